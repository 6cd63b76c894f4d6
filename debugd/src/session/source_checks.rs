//! The source breakpoints' check at a draw or dispatch stop
//! (`Stop::source_check`, see `sources.rs`): `continue` runs it at each
//! one, then memcheck's (`memcheck.rs`), and goes on from the internal
//! ones until a source breakpoint or a memcheck finding stops (reported
//! with its id and the shader stop) or the app stops for another reason
//! (a GL breakpoint's stop, checked first).

use super::sources::{SourceBreak, user_files};
use super::*;
use crate::shader::{self, Reports, ShmLink, UserFile};

/// What one source breakpoint did at a draw.
enum Outcome {
    Stopped,
    WentOn,
}

/// Why a source breakpoint could not be checked at a draw.
enum Failed {
    /// Its condition or log text does not compile at the line.
    Text(Error),
    /// This draw could not be checked (a replay, a trace budget, a
    /// shader the hit replay cannot serve): said once, the next draws
    /// are checked.
    Draw(Error),
}

impl Session {
    /// After a resume: while the app is at a source-check stop, check it;
    /// go on from an internal one where no source breakpoint stops there.
    /// A GL breakpoint's stop at that draw is reported as it is.
    pub(super) fn continue_source_checks(
        &self,
        mut reply: pb::StateReply,
    ) -> Result<pb::StateReply> {
        loop {
            let Some(internal) = self.at_source_check() else {
                return Ok(reply);
            };
            // An armed memcheck run's findings first: a `pause` may make
            // this stop the user's.
            if let Err(e) = self.memcheck_take_first() {
                self.surface_check_stop();
                return Err(e);
            }
            match self.check_sources(None) {
                Ok(Some(r)) => return Ok(r),
                Ok(None) if internal && self.take_pause_request() => {
                    // `pause` came during the checks: this draw is the stop.
                    self.surface_check_stop();
                    return Ok(self.get_state());
                }
                Ok(None) if internal => {}
                Ok(None) => return Ok(self.checked_gl_stop()),
                Err(e) => {
                    // The stop the check failed at becomes the user's.
                    self.surface_check_stop();
                    return Err(e);
                }
            }
            // Memcheck's check: the call may run checked in place (then skipped).
            let cmd = match self.memcheck_at_stop() {
                Ok(super::memcheck::Next::Resume(cmd)) => cmd,
                Ok(super::memcheck::Next::Stopped(r)) => return Ok(*r),
                Err(e) => {
                    self.surface_check_stop();
                    return Err(e);
                }
            };
            reply = self.resume_with(cmd, false, true)?;
        }
    }

    /// Whether `pause` asked for a stop during the checks (cleared).
    fn take_pause_request(&self) -> bool {
        std::mem::take(&mut self.control().files.pause_requested)
    }

    /// Whether the app is at an internal source-check stop (a `continue`
    /// is checking it: to the user the app is running).
    pub(super) fn in_source_checks(c: &Control) -> bool {
        c.state == RunState::Stopped
            && c.paused.is_none()
            && c.current.as_ref().is_some_and(Stop::internal)
    }

    /// `pause` while `continue` checks draws: ask its loop to stop at the
    /// draw it checks and wait for that stop (or the app's end).
    pub(super) fn pause_in_checks(&self, mut c: MutexGuard<'_, Control>) -> pb::StateReply {
        c.files.pause_requested = true;
        while Self::in_source_checks(&c) || (c.state == RunState::Running && c.launched.is_some()) {
            c = self
                .changed
                .wait_timeout(c, Duration::from_millis(50))
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        c.files.pause_requested = false;
        self.state_reply(&c)
    }

    /// Before `continue` resumes: where the app is stopped at a draw or
    /// dispatch the source breakpoints were not checked at, check it; the
    /// reply of a source breakpoint's stop there (reported as a new stop),
    /// or None to resume.
    pub(super) fn check_before_resume(&self) -> Result<Option<pb::StateReply>> {
        let from = {
            let c = self.control();
            let Some(s) = c.current.as_ref().filter(|_| {
                c.state == RunState::Stopped && c.paused.is_none() && c.breakpoints.has_sources()
            }) else {
                return Ok(None);
            };
            let unchecked = c.files.checked != Some(s.serial)
                && s.error == 0
                && s.ret.is_none()
                && (s.draw != 0 || class_of(s.function) & class::DISPATCH != 0);
            // A source breakpoint stopped here: the rest of the draw's
            // checks (later breakpoints and stages) before it runs.
            let rest = c.files.resume.filter(|r| r.0 == s.serial);
            match (unchecked, rest) {
                (_, Some((_, pass, id))) => Some((pass, id)),
                (true, None) => None,
                (false, None) => return Ok(None),
            }
        };
        let Some(reply) = self.check_sources(from)? else {
            return Ok(None);
        };
        let info = {
            let c = self.control();
            c.current.as_ref().map(|s| call_info(s, None))
        };
        if let Some(info) = info {
            self.emit(pb::event::Kind::Stopped(info));
        }
        Ok(Some(reply))
    }

    /// At a source-check stop: whether it is internal; None elsewhere.
    fn at_source_check(&self) -> Option<bool> {
        let c = self.control();
        c.current
            .as_ref()
            .filter(|s| s.source_check && c.state == RunState::Stopped && c.paused.is_none())
            .map(Stop::internal)
    }

    /// A GL breakpoint's stop, checked: its reply as a plain stop.
    fn checked_gl_stop(&self) -> pb::StateReply {
        let mut c = self.control();
        if let Some(s) = c.current.as_mut() {
            s.source_check = false;
        }
        self.state_reply(&c)
    }

    /// Report the stop the check was at as a stop of the app (a GL
    /// breakpoint's was reported already).
    fn surface_check_stop(&self) {
        let mut c = self.control();
        if let Some(s) = c.current.as_mut().filter(|s| s.source_check) {
            let internal = s.internal();
            s.source_check = false;
            let info = call_info(s, None);
            drop(c);
            if internal {
                self.emit(pb::event::Kind::Stopped(info));
            }
        }
    }

    /// Check the draw the app is stopped at internally against every
    /// source breakpoint (`from`: only the passes from this one on, in it
    /// only the breakpoints after this id); the reply of a stop, or None
    /// to go on.
    fn check_sources(&self, from: Option<(usize, u32)>) -> Result<Option<pb::StateReply>> {
        let mut dbg = self.debug_lock();
        let AtStop { stop, shm } = self.stopped()?;
        cancel::check()?;
        let (breaks, files, shaders) = {
            let mut c = self.control();
            if !c.breakpoints.has_sources() {
                // Only memcheck made this stop.
                return Ok(None);
            }
            c.files.checked = Some(stop.serial);
            c.files.resume = None;
            // Verified again only when the app recorded shaders since.
            let generation = (
                c.launched.as_ref().map_or(0, |l| l.id),
                c.programs.generation(),
            );
            let again = c.files.verified_at != Some(generation);
            c.files.verified_at = Some(generation);
            let shaders = again.then(|| c.programs.every_shader());
            (c.breakpoints.sources(), user_files(&c), shaders)
        };
        let breaks = match shaders {
            Some(shaders) => {
                self.reverify(&breaks, &shaders);
                self.control().breakpoints.sources()
            }
            None => breaks,
        };
        let breaks: Vec<(u32, SourceBreak)> =
            breaks.into_iter().filter(|(_, b)| !b.failed()).collect();
        if breaks.is_empty() {
            return Ok(None);
        }
        let program = match self.query_program() {
            Ok(p) => p,
            // No program (a fixed-function draw), no replayable draw, no
            // context: no shader holds a file here; the draw goes on.
            Err(Error::FailedPrecondition(_)) => {
                self.release_debug(&mut dbg, Some(&shm), Some(stop.slot));
                self.control().shader_stop = None;
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        let (first, after) = from.unwrap_or((0, 0));
        for (pass, (logs, stage)) in passes(&stop).into_iter().enumerate().skip(first) {
            let after = if pass == first { after } else { 0 };
            let mine: Vec<&(u32, SourceBreak)> = breaks
                .iter()
                .filter(|(id, b)| b.log().is_some() == logs && *id > after)
                .filter(|(_, b)| {
                    let f = b.file_of();
                    program.stages.iter().any(|s| {
                        s.gl_type == stage.gl_enum() && f.span_in(s.id, &s.source).is_some()
                    })
                })
                .collect();
            if mine.is_empty() {
                continue;
            }
            let stopped =
                self.check_stage(&mut dbg, &stop, &shm, &program, stage, &mine, &files)?;
            if let Some((id, temporary)) = stopped {
                self.control().files.resume = Some((stop.serial, pass, id));
                return Ok(Some(self.source_stop(id, temporary)));
            }
        }
        // Nothing stopped: the draw's debugging ends, as `end` ends it;
        // the GL objects of a stage whose debug failed to start after
        // another's go too.
        let released = self.release_debug(&mut dbg, Some(&shm), Some(stop.slot));
        let made = {
            let mut c = self.control();
            c.shader_stop = None;
            c.files.gl_made.take() == Some(stop.serial)
        };
        if made && !released {
            lifecycle::release_gl(&shm, stop.slot);
        }
        Ok(None)
    }

    /// Update the verification of the breakpoints not verified yet.
    fn reverify(&self, breaks: &[(u32, SourceBreak)], shaders: &[recording::ShaderObject]) {
        for (id, b) in breaks {
            if b.is_verified() {
                continue;
            }
            let mut b = b.clone();
            b.verify(shaders);
            if let Some((sb, _)) = self.control().breakpoints.source_mut(*id) {
                sb.set_verification(&b);
            }
        }
    }

    /// The breakpoints `breaks` of `stage` at this draw; the breakpoint
    /// that stopped (its id, whether it was temporary), with the debug
    /// left in `dbg`.
    #[allow(clippy::too_many_arguments)]
    fn check_stage(
        &self,
        dbg: &mut Option<ShaderDebug>,
        stop: &Stop,
        shm: &SharedMemory,
        program: &recording::CurrentProgram,
        stage: Stage,
        breaks: &[&(u32, SourceBreak)],
        files: &[UserFile],
    ) -> Result<Option<(u32, bool)>> {
        // A new stage: the last one's probes go (the GL objects stay:
        // released when the draw's check ends, see `gl_made`).
        if self.release_debug(dbg, Some(shm), None) {
            self.control().files.gl_made = Some(stop.serial);
        }
        let mut d = match self.start_debug(stop, shm, program, stage, Default::default()) {
            Ok(d) => d,
            Err(e) => {
                // Once per message, not at every draw of this program.
                self.warn_once(
                    format!("stage {}: {e}", stage.name()),
                    format!(
                        "source breakpoints: the {} shader of draw {} cannot be debugged \
                         (said once; draws where the same happens are not checked): {e}",
                        stage.name(),
                        stop.draw
                    ),
                );
                return Ok(None);
            }
        };
        let mut link = ShmLink {
            reports: self,
            shm,
            slot: stop.slot,
        };
        let mut found = None;
        for (id, b) in breaks.iter().map(|p| (p.0, &p.1)) {
            // Mapped with this breakpoint's file first.
            let mut fs = vec![b.file_of()];
            fs.extend(files.iter().cloned());
            d.set_files(d.shader_object(), &fs);
            let Some((line, steps)) = d.steps_of_file_line(b.file(), b.line()) else {
                if d.mapped_file() != b.file() {
                    // Never silently: the stage holds the file's text, yet
                    // its debugged source does not as whole lines.
                    self.warn_once(
                        format!("unmapped {id}"),
                        format!(
                            "source breakpoint {id}: {} is in the program's {} shader but not \
                             as whole lines of the source gldbg debugs (an #include spliced \
                             into it, or another shader object of the stage than main's): \
                             it is not checked there (not supported yet)",
                            b.file(),
                            stage.name()
                        ),
                    );
                }
                continue;
            };
            let r = match b.log() {
                Some(log) => self.log_at(&mut d, id, &steps, log, &mut link),
                None => self.break_at(&mut d, id, b, (line, &steps), &mut link),
            };
            match r {
                Ok(Outcome::Stopped) => {
                    found = Some((id, b.is_temporary()));
                    break;
                }
                Ok(Outcome::WentOn) => {}
                // A condition that resolves in another shader holding the
                // file (verified there) is no failure of the breakpoint.
                Err(Failed::Text(e)) if b.log().is_none() && b.is_verified() => {
                    self.skipped(id, stop.draw, e)
                }
                Err(Failed::Text(e)) => self.source_failed(id, e),
                Err(Failed::Draw(e)) => self.skipped(id, stop.draw, e),
            }
        }
        if let Some((id, _)) = found {
            // The stop shows the file of the breakpoint that stopped.
            if let Some((_, b)) = breaks.iter().map(|p| (p.0, &p.1)).find(|p| p.0 == id) {
                let mut fs = vec![b.file_of()];
                fs.extend(files.iter().cloned());
                d.set_files(d.shader_object(), &fs);
            }
            let s = d.stop_with_timing();
            self.control().shader_stop = Some(s);
        }
        *dbg = Some(d);
        Ok(found)
    }

    /// A plain breakpoint in a shader without `uint` (GLSL before 1.30, ES
    /// 1.00): no hit shader, no trace; steps by coverage (one replay each,
    /// GLSLDevil's way) from `main`'s entry to the line, and stops there
    /// unfocused if some invocation reaches it. At the driver's line (as
    /// `break LINE`).
    fn break_by_coverage(
        &self,
        d: &mut ShaderDebug,
        id: u32,
        b: &SourceBreak,
        line: u32,
        link: &mut ShmLink,
    ) -> std::result::Result<Outcome, Failed> {
        let line = d
            .add_conditional_breakpoint(line, None, b.is_temporary())
            .map_err(Failed::Draw)?;
        d.continue_to_breakpoint(link).map_err(Failed::Draw)?;
        let stopped = !d.finished && d.breakpoint_hit == line;
        if stopped && let Some((_, hits)) = self.control().breakpoints.source_mut(id) {
            *hits += 1;
        }
        Ok(if stopped {
            Outcome::Stopped
        } else {
            Outcome::WentOn
        })
    }

    /// A breakpoint at `steps` (on driver line `line`): one hit replay
    /// over the draw. Its shader breakpoint is temporary as it is (a
    /// `tbreak` stops once in its draw too).
    fn break_at(
        &self,
        d: &mut ShaderDebug,
        id: u32,
        b: &SourceBreak,
        (line, steps): (u32, &[glsl_instrument::StepId]),
        link: &mut ShmLink,
    ) -> std::result::Result<Outcome, Failed> {
        let ignore = match self.control().breakpoints.source_mut(id) {
            Some((sb, _)) => sb.ignore_left,
            None => return Ok(Outcome::WentOn),
        };
        let (version, es) = d.model.version();
        if version < if es { 300 } else { 130 } && b.condition().is_none() && ignore == 0 {
            return self.break_by_coverage(d, id, b, line, link);
        }
        if let Some(cond) = b.condition() {
            // At the breakpoint's own steps (not all the driver's line has).
            d.check_condition_at(steps, cond).map_err(|e| match e {
                Error::InvalidArgument(_) => Failed::Text(e),
                e => Failed::Draw(e),
            })?;
        }
        let line = d
            .add_conditional_breakpoint(line, b.condition().map(str::to_string), b.is_temporary())
            .map_err(|e| match e {
                Error::InvalidArgument(_) if b.condition().is_some() => Failed::Text(e),
                e => Failed::Draw(e),
            })?;
        let (stopped, executions) = d
            .stop_at_first_hit(line, steps, ignore, link)
            .map_err(Failed::Draw)?;
        if let Some((sb, hits)) = self.control().breakpoints.source_mut(id) {
            if stopped {
                sb.ignore_left = 0;
                *hits += 1;
            } else {
                sb.ignore_left = sb.ignore_left.saturating_sub(executions);
            }
        }
        Ok(if stopped {
            Outcome::Stopped
        } else {
            Outcome::WentOn
        })
    }

    /// A log point at `steps`: its `dprintf` replay, the messages as
    /// `dprintf` events.
    fn log_at(
        &self,
        d: &mut ShaderDebug,
        id: u32,
        steps: &[glsl_instrument::StepId],
        (format, args): &(String, Vec<String>),
        link: &mut ShmLink,
    ) -> std::result::Result<Outcome, Failed> {
        let text = |e: Error| match e {
            Error::InvalidArgument(_) => Failed::Text(e),
            e => Failed::Draw(e),
        };
        let Some(&first) = steps.first() else {
            return Ok(Outcome::WentOn);
        };
        // dprintf names a driver line: the steps' own.
        let at = d.driver_line_of_step(first);
        let (format, args) = match args.is_empty() {
            true => d.log_format(steps, format).map_err(text)?,
            false => (format.clone(), args.clone()),
        };
        let p = d
            .dprintf(at, &format, &args, shader::DPRINTF_LIMIT, false, link)
            .map_err(text)?;
        if self.control().breakpoints.source_mut(id).is_none() {
            // Deleted meanwhile (a client's setBreakpoints): it prints nothing.
            return Ok(Outcome::WentOn);
        }
        self.emit_dprintf(&p);
        if p.dropped > 0 {
            // Counted at every draw, never lost silently (the CLI's dprintf
            // says the same): one line beside the draw's 1,024 messages.
            self.warn(format!(
                "log point {id}: {} more messages at this draw were dropped (at most {} per draw)",
                p.dropped,
                shader::DPRINTF_LIMIT,
            ));
        }
        if let Some((_, hits)) = self.control().breakpoints.source_mut(id)
            && !p.messages.is_empty()
        {
            *hits += 1;
        }
        Ok(Outcome::WentOn)
    }

    /// A source breakpoint that failed at a draw (its condition or log
    /// message does not compile there): said once, not checked again.
    fn source_failed(&self, id: u32, e: Error) {
        let message = format!("source breakpoint {id}: {e}");
        if let Some((sb, _)) = self.control().breakpoints.source_mut(id) {
            sb.fail(message.clone());
        }
        self.warn(message);
    }

    /// Source breakpoint `id` could not be checked at draw `draw`: said
    /// once per breakpoint and reason; later draws are checked.
    fn skipped(&self, id: u32, draw: u64, e: Error) {
        self.warn_once(
            format!("skipped {id}: {e}"),
            format!(
                "source breakpoint {id}: not checked at draw {draw} (said once; later draws \
                 are checked): {e}"
            ),
        );
    }

    /// A warning said once per app for its `key`.
    pub(super) fn warn_once(&self, key: String, message: String) {
        let mut c = self.control();
        let app = c.launched.as_ref().map_or(0, |l| l.id);
        if c.files.warned.insert((app, key)) {
            drop(c);
            self.warn(message);
        }
    }

    /// The reply of a stop at source breakpoint `id` (deleted if temporary).
    fn source_stop(&self, id: u32, temporary: bool) -> pb::StateReply {
        let mut c = self.control();
        if temporary {
            let _ = c.breakpoints.delete(id);
            if let Some(l) = &c.launched {
                apply_bits(&c, &l.shm);
            }
        }
        let mut info = None;
        if let Some(s) = c.current.as_mut() {
            // A GL breakpoint's stop here was reported already.
            let internal = s.internal();
            s.source_check = false;
            s.breakpoint_id = id;
            info = internal.then(|| call_info(s, None));
        }
        let reply = self.state_reply(&c);
        drop(c);
        if let Some(info) = info {
            self.emit(pb::event::Kind::Stopped(info));
        }
        reply
    }
}

/// The passes of a source check at `stop`: (log points?, stage), log
/// points first (a breakpoint that stops at this draw does not keep them
/// from printing theirs), the compute stage only at a dispatch.
fn passes(stop: &Stop) -> Vec<(bool, Stage)> {
    let dispatch = class_of(stop.function) & class::DISPATCH != 0;
    let stages = || {
        Stage::ALL
            .into_iter()
            .filter(move |s| (*s == Stage::Compute) == dispatch)
    };
    stages()
        .map(|s| (true, s))
        .chain(stages().map(|s| (false, s)))
        .collect()
}
