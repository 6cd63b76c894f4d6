//! GL-call control: the stop watcher that turns stopped slots into
//! session stops (counting breakpoint hits), and resuming the app from a
//! stop: `continue`, `step [N]`, `skip`.

use super::*;

impl Session {
    /// The stop watcher: turns stopped slots into session stops.
    pub(super) fn watch_stops(self: Arc<Self>, id: u64, shm: Arc<SharedMemory>) {
        let mut seen = shm
            .header()
            .stop_seq
            .load(Ordering::Acquire)
            .wrapping_sub(1);
        loop {
            {
                let c = self.control();
                if c.launched.as_ref().is_none_or(|l| l.id != id) {
                    return;
                }
            }
            if self.fast_stepping.load(Ordering::Acquire) {
                // `step N` takes the stops itself; a stop it left is still
                // found below afterwards (stop_seq has moved past `seen`).
                std::thread::sleep(Duration::from_millis(1));
                continue;
            }
            let now = shm.wait_stop_seq(seen, STOP_POLL);
            if now == seen {
                continue;
            }
            seen = now;
            self.take_stops(id, &shm);
        }
    }

    /// Turn every stopped slot not taken yet into a session stop. Claims
    /// are made under the control lock, so the watcher and a stepping
    /// thread may both scan.
    pub(super) fn take_stops(&self, id: u64, shm: &SharedMemory) {
        for call in shm.stopped() {
            if call.state != abi::STATE_STOPPED || !claim(&mut self.control().claimed, shm, &call) {
                continue;
            }
            self.new_stop(id, shm, call);
        }
    }

    pub(super) fn new_stop(&self, id: u64, shm: &SharedMemory, call: StoppedCall) {
        let pid = {
            let c = self.control();
            match &c.launched {
                Some(l) if l.id == id => app_pid(l),
                _ => return,
            }
        };
        let mut ret = None;
        if call.error != 0 {
            // Stopped after the call: it was executed.
            ret = Some(call.ret);
        } else if class_of(call.function) & class::SHADER_RECORD != 0 {
            match self.record(pid, shm, &call) {
                Ok(r) => ret = r,
                Err(e) => self.emit(pb::event::Kind::Warning(format!(
                    "could not record {} (call {}): {e}",
                    function_name(call.function),
                    call.call_number
                ))),
            }
        }
        let draw = if class_of(call.function) & class::DRAW != 0 && !call.not_drawn {
            // The draw count is bumped before the call's stop; after it for an error stop too.
            shm.draw_count()
        } else {
            0
        };
        // A swap bumps the count before its stop: it belongs to the frame it ends.
        let frame = match class_of(call.function) & class::FRAME_END {
            0 => shm.frame_count() + 1,
            _ => shm.frame_count(),
        };
        let mut c = self.control();
        if c.launched.as_ref().is_none_or(|l| l.id != id) {
            return;
        }
        c.stop_serial += 1;
        let mut stop = Stop {
            serial: c.stop_serial,
            slot: call.slot,
            tid: call.tid,
            function: call.function,
            call_number: call.call_number,
            args: call.args.clone(),
            ret,
            draw,
            frame,
            breakpoint_id: 0,
            error: call.error,
            pid,
            context: call.context,
            stop_id: call.stop_id,
            source_check: false,
            memcheck_ran: call.memcheck_ran,
        };
        let hit = c.breakpoints.hit(&stop);
        stop.breakpoint_id = hit;
        // Source breakpoints and memcheck: a draw (that draws) or dispatch
        // stops to be checked (internally where no GL breakpoint stops there).
        // A stop where findings of armed memcheck runs wait is one too,
        // whatever changed since: `continue` takes them there.
        stop.source_check = stop.memcheck_ran
            || (!c.stepping
                && stop.error == 0
                && (c.breakpoints.has_sources() || c.memcheck.active())
                && (stop.draw != 0 || class_of(stop.function) & class::DISPATCH != 0));
        let hit = hit | u32::from(stop.source_check);
        let recent = c.recent.entry(stop.tid).or_default();
        if recent.len() == RECENT_CALLS {
            recent.pop_front();
        }
        recent.push_back(stop.clone());
        if hit != 0 || c.stepping {
            c.pending.push_back(stop);
            if self.fast_stepping.load(Ordering::Relaxed)
                && c.state == RunState::Running
                && c.current.is_none()
            {
                // `step N`: its thread reports the last stop only.
                Self::promote_quiet(&mut c);
                return;
            }
            if c.state == RunState::Running
                && c.current.is_none()
                && let Some(s) = self.promote(&mut c)
            {
                drop(c);
                self.emit(pb::event::Kind::Stopped(s));
                self.changed.notify_all();
                return;
            }
            self.changed.notify_all();
        } else {
            drop(c);
            if let Err(e) = shm.command_at(call.slot, call.stop_id, abi::CMD_CONTINUE, CMD_TIMEOUT)
            {
                self.emit(pb::event::Kind::Warning(format!(
                    "could not continue {}: {e}",
                    function_name(call.function)
                )));
            }
        }
    }

    /// Make the next pending stop current; returns its call info (None
    /// for an internal source-check stop: it is not reported).
    pub(super) fn promote(&self, c: &mut Control) -> Option<pb::CallInfo> {
        let s = c.pending.pop_front()?;
        c.state = RunState::Stopped;
        let info = (!s.internal()).then(|| call_info(&s, None));
        c.current = Some(s);
        info
    }

    /// Make the next pending stop current without building its report.
    pub(super) fn promote_quiet(c: &mut Control) -> bool {
        match c.pending.pop_front() {
            Some(s) => {
                c.state = RunState::Stopped;
                c.current = Some(s);
                true
            }
            None => false,
        }
    }

    pub(super) fn wait_not_running(&self) -> pb::StateReply {
        let mut c = self.control();
        loop {
            if c.state != RunState::Running {
                return self.state_reply(&c);
            }
            c = self.changed.wait(c).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Let the current call go with `cmd` (continue or skip) and wait for the next stop or the exit.
    pub(super) fn resume(&self, cmd: u32, step: bool) -> Result<pb::StateReply> {
        self.resume_with(cmd, step, false)
    }

    /// [`Self::resume`]; `quiet`: no RUNNING event (the app goes on after
    /// an internal stop nobody saw).
    pub(super) fn resume_with(&self, cmd: u32, step: bool, quiet: bool) -> Result<pb::StateReply> {
        if let Some(r) = self.resume_paused(cmd, step)? {
            return Ok(r);
        }
        let mut dbg = self.debug_lock();
        let (slot, shm, released, release_gl) = {
            let mut c = self.control();
            let AtStop { stop, shm } = stopped_in(&c)?;
            if cmd == abi::CMD_SKIP && stop.ret.is_some() {
                return Err(Error::FailedPrecondition(format!(
                    "{} was already executed; it cannot be skipped",
                    function_name(stop.function)
                )));
            }
            // The last moment a cancelled Continue/Step/Skip leaves no trace.
            cancel::check()?;
            // The GL objects go after the control lock (see release_debug).
            let release_gl = self.release_debug(&mut dbg, Some(&shm), None);
            c.shader_stop = None;
            c.stepping = step;
            shm.set_step_all(step);
            if !step {
                apply_bits(&c, &shm);
            }
            // Stops of other threads that only stepping made visible go too.
            let mut released = Vec::new();
            if !step {
                let keep: VecDeque<Stop> = c
                    .pending
                    .drain(..)
                    .filter(|p| {
                        if p.breakpoint_id != 0 || p.source_check {
                            true
                        } else {
                            released.push((p.slot, p.stop_id));
                            false
                        }
                    })
                    .collect();
                c.pending = keep;
            }
            c.current = None;
            c.state = RunState::Running;
            ((stop.slot, stop.stop_id), shm, released, release_gl)
        };
        if release_gl {
            lifecycle::release_gl(&shm, slot.0);
        }
        drop(dbg);
        if !quiet {
            self.emit(pb::event::Kind::Running(pb::Empty {}));
        }
        let st = shm.command_at(slot.0, slot.1, cmd, CMD_TIMEOUT);
        for (s, stop_id) in released {
            let _ = shm.command_at(s, stop_id, abi::CMD_CONTINUE, CMD_TIMEOUT);
        }
        {
            let mut c = self.control();
            if c.state == RunState::Running
                && c.current.is_none()
                && let Some(info) = self.promote(&mut c)
            {
                drop(c);
                self.emit(pb::event::Kind::Stopped(info));
            }
        }
        if let Err(e) = st {
            return Err(Error::NotTaken(e));
        }
        Ok(self.wait_not_running())
    }

    /// Resume an app held by `pause` (every thread); None if it is not paused.
    pub(super) fn resume_paused(&self, cmd: u32, step: bool) -> Result<Option<pb::StateReply>> {
        {
            let mut c = self.control();
            if c.paused.is_none() || c.state != RunState::Stopped {
                return Ok(None);
            }
            if cmd == abi::CMD_SKIP {
                return Err(Error::FailedPrecondition(
                    "the app is paused outside a GL call: there is no call to skip (`continue` or `step` resumes it)".into(),
                ));
            }
            let Some(l) = &c.launched else {
                return Err(Error::not_launched());
            };
            let shm = l.shm.clone();
            cancel::check()?;
            l.tracer.resume()?;
            c.paused = None;
            c.stepping = step;
            shm.set_step_all(step);
            if !step {
                apply_bits(&c, &shm);
            }
            c.state = RunState::Running;
        }
        self.emit(pb::event::Kind::Running(pb::Empty {}));
        {
            let mut c = self.control();
            if c.state == RunState::Running
                && c.current.is_none()
                && let Some(info) = self.promote(&mut c)
            {
                drop(c);
                self.emit(pb::event::Kind::Stopped(info));
            }
        }
        Ok(Some(self.wait_not_running()))
    }

    /// `continue`: to the next breakpoint, crash or exit; internal
    /// source-check stops are checked on the way (`sources.rs`).
    pub fn continue_(&self) -> Result<pb::StateReply> {
        // The draw the app is at first, where nothing checked it yet (a
        // source breakpoint set at a GL breakpoint's stop, after a step).
        if let Some(r) = self.check_before_resume()? {
            return Ok(r);
        }
        let cmd = match self.memcheck_before_resume()? {
            memcheck::Next::Resume(cmd) => cmd,
            memcheck::Next::Stopped(r) => return Ok(*r),
        };
        let r = self
            .resume(cmd, false)
            .and_then(|r| self.continue_source_checks(r));
        // A `pause` waiting for the checks' stop (`pause_in_checks`).
        self.control().files.pause_requested = false;
        self.changed.notify_all();
        r
    }

    /// Execute the current call and stop at the next, `count` times; ends
    /// early at an exit or at a stop where a user breakpoint hits.
    pub fn step(&self, count: u64) -> Result<pb::StateReply> {
        let count = count.max(1);
        let paused = self.control().paused.is_some();
        if count == 1 || paused {
            let r = self.resume(abi::CMD_CONTINUE, true)?;
            if count == 1 || r.state != pb::RunState::Stopped as i32 || r.breakpoint_id != 0 {
                return Ok(r);
            }
            return self.step_loop(count - 1);
        }
        self.step_loop(count)
    }

    /// `step N` on one thread: CONTINUE to the slot, then wait on
    /// `stop_seq` for the next stop and take it here (the same
    /// `new_stop` handling as the watcher's: shader-recording stops are
    /// recorded, breakpoints counted), without the watcher, the condvar
    /// or per-step events: one RUNNING event and one STOPPED event in all.
    pub(super) fn step_loop(&self, count: u64) -> Result<pb::StateReply> {
        let (id, shm) = {
            let mut dbg = self.debug_lock();
            let mut c = self.control();
            let AtStop { shm, .. } = stopped_in(&c)?;
            cancel::check()?;
            let Some(id) = c.launched.as_ref().map(|l| l.id) else {
                return Err(Error::not_launched());
            };
            *dbg = None;
            c.shader_stop = None;
            c.stepping = true;
            shm.set_step_all(true);
            shm.set_spin(STEP_SPIN);
            self.fast_stepping.store(true, Ordering::Release);
            (id, shm)
        };
        self.emit(pb::event::Kind::Running(pb::Empty {}));
        let mut failed = None;
        for i in 0..count {
            let slot = {
                let mut c = self.control();
                let Ok(AtStop { stop, .. }) = stopped_in(&c) else {
                    break;
                };
                if i > 0 && stop.breakpoint_id != 0 {
                    break;
                }
                c.current = None;
                c.state = RunState::Running;
                (stop.slot, stop.stop_id)
            };
            if let Err(e) = shm.command_at(slot.0, slot.1, abi::CMD_CONTINUE, CMD_TIMEOUT) {
                // As `resume`: a stop already pending becomes current, no waiting.
                let mut c = self.control();
                if c.state == RunState::Running && c.current.is_none() {
                    Self::promote_quiet(&mut c);
                }
                failed = Some(e);
                break;
            }
            self.await_stop(id, &shm);
        }
        self.fast_stepping.store(false, Ordering::Release);
        shm.set_spin(Duration::ZERO);
        let (reply, info) = {
            let c = self.control();
            let info = c
                .current
                .as_ref()
                .filter(|_| c.state == RunState::Stopped && c.paused.is_none())
                .map(|s| call_info(s, None));
            (self.state_reply(&c), info)
        };
        if let Some(info) = info {
            self.emit(pb::event::Kind::Stopped(info));
        }
        self.changed.notify_all();
        if let Some(e) = failed {
            return Err(Error::NotTaken(e));
        }
        Ok(reply)
    }

    /// Wait (in `step_loop`) until the session is no longer running: the
    /// next stop taken (here, or pending from another thread) or the exit.
    pub(super) fn await_stop(&self, id: u64, shm: &SharedMemory) {
        loop {
            let seen = shm.header().stop_seq.load(Ordering::Acquire);
            {
                let mut c = self.control();
                if c.state != RunState::Running {
                    return;
                }
                if c.current.is_none() && Self::promote_quiet(&mut c) {
                    return;
                }
            }
            self.take_stops(id, shm);
            if self.control().state != RunState::Running {
                return;
            }
            shm.wait_stop_seq(seen, Duration::from_millis(10));
        }
    }

    /// Do not execute the current call (the app sees 0 returned) and stop at the next call.
    pub fn skip(&self) -> Result<pb::StateReply> {
        self.resume(abi::CMD_SKIP, true)
    }
}

/// Take the stop `call` for the session unless it was taken already: only
/// while its slot is still at that stop. The watcher and `step N` both
/// scan; a scan's snapshot may be old by the time it claims (a stop taken,
/// continued and left by the other meanwhile): taking it again would make
/// the session command a thread that is running (the lost `step N`
/// command). Under the control lock.
pub(super) fn claim(
    claimed: &mut HashMap<usize, u32>,
    shm: &SharedMemory,
    call: &StoppedCall,
) -> bool {
    if claimed.get(&call.slot) == Some(&call.stop_id) || !shm.is_stopped_at(call.slot, call.stop_id)
    {
        return false;
    }
    claimed.insert(call.slot, call.stop_id);
    true
}
