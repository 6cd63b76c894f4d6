//! Process control: launching the app under the tracer, the tracer's
//! events (exits, crashes, child processes), the app's captured output,
//! and `pause`, `kill`, `detach`.

use super::*;

impl Session {
    /// Launch the program stopped at its first GL call; returns at that stop (or the exit).
    pub fn launch(self: &Arc<Self>, opts: LaunchOptions) -> Result<pb::StateReply> {
        {
            let c = self.control();
            if matches!(c.state, RunState::Running | RunState::Stopped) {
                return Err(Error::FailedPrecondition(
                    "a program is already running (kill or detach it first)".into(),
                ));
            }
        }
        self.release_debug(&mut self.debug_lock(), None, None);
        let (spec, shm, pipes) = self.launch_spec(&opts)?;
        let (tx, rx) = mpsc::channel();
        let id = self.start_tracer(spec, &shm, tx)?;
        self.emit(pb::event::Kind::Running(pb::Empty {}));
        self.spawn_watchers(id, rx, &shm, pipes)?;
        self.await_first_stop(id, &shm, &opts.program)
    }

    /// What to launch for `opts`, with a new shared memory and (when the
    /// output is captured) the pipes for it.
    fn launch_spec(
        &self,
        opts: &LaunchOptions,
    ) -> Result<(launch::LaunchSpec, Arc<SharedMemory>, Option<OutputPipes>)> {
        let cwd = match &opts.cwd {
            Some(c) => c.clone(),
            None => std::env::current_dir().map_err(Error::os("current directory"))?,
        };
        let path_var: Option<OsString> = opts
            .env
            .iter()
            .rev()
            .find_map(|kv| kv.strip_prefix("PATH=").map(OsString::from))
            .or_else(|| std::env::var_os("PATH"));
        let program = launch::resolve_program(&opts.program, path_var.as_deref(), &cwd)?;
        if !self.config.preload.is_file() {
            return Err(Error::FailedPrecondition(format!(
                "the preload library is missing: {}",
                self.config.preload.display()
            )));
        }
        let shm = Arc::new(SharedMemory::create()?);
        // By path, not by inherited fd: it reaches the app through a
        // launcher script's exec (see `gldbg_proto::shm::ENV_PATH`).
        let shm_path = format!("/proc/{}/fd/{}", std::process::id(), shm.raw_fd());
        let env = launch::child_env(
            std::env::vars_os(),
            &opts.env,
            &self.config.preload,
            abi::ENV_PATH,
            &shm_path,
        )?;
        let mut argv = vec![OsString::from(&opts.program)];
        argv.extend(opts.args.iter().map(OsString::from));
        // Our copies of the write ends close once the tracer started the
        // app (`spawn_watchers`): the readers then see the end once the app
        // (and its children) did, even when it ends before Launch's wait
        // for the first stop does (then its exit waits for its output).
        let pipes = if opts.capture_output {
            Some((output_pipe()?, output_pipe()?))
        } else {
            None
        };
        let spec = launch::LaunchSpec {
            program,
            argv,
            env,
            cwd: opts.cwd.clone(),
            shm_fd: None,
            shm: Some(shm.clone()),
            own_process_group: opts.own_process_group,
            kill_with_tracer: self.config.app_ends_with_daemon,
            preload: self.config.preload.clone(),
            output_fds: pipes
                .as_ref()
                .map(|(o, e)| (o.1.as_raw_fd(), e.1.as_raw_fd())),
            stdin_null: opts.stdin_null,
        };
        Ok((spec, shm, pipes))
    }

    /// Start the tracer (which forks and execs the app) and make it the
    /// session's app: a fresh state, breakpoint hits from 0. Returns the
    /// launch's id.
    fn start_tracer(
        &self,
        spec: launch::LaunchSpec,
        shm: &Arc<SharedMemory>,
        tx: mpsc::Sender<TraceEvent>,
    ) -> Result<u64> {
        let id;
        {
            let mut c = self.control();
            // The last moment a cancelled Launch can leave no trace.
            cancel::check()?;
            c.stepping = true;
            apply_bits(&c, shm);
            shm.set_step_all(true);
            let tracer = launch::spawn(spec, tx)?;
            c.launch_counter += 1;
            id = c.launch_counter;
            // A new app, a new directory for its rejected shaders (the
            // last app's goes).
            drop(
                self.saved_shaders()
                    .replace(crate::saved_shaders::SessionShaders::new()),
            );
            c.launched = Some(Launched {
                id,
                pid: tracer.pid,
                shm: shm.clone(),
                tracer,
            });
            c.state = RunState::Running;
            c.current = None;
            c.pending.clear();
            c.claimed.clear();
            c.exit = None;
            c.crash = None;
            c.recent.clear();
            c.paused = None;
            c.programs = Recordings::default();
            c.shader_stop = None;
            c.history = None;
            c.breakpoints.reset_hits();
            c.memcheck.restart();
        }
        Ok(id)
    }

    /// The threads of launch `id`: the output relays, the tracer's events
    /// and the stop watcher.
    fn spawn_watchers(
        self: &Arc<Self>,
        id: u64,
        rx: mpsc::Receiver<TraceEvent>,
        shm: &Arc<SharedMemory>,
        pipes: Option<OutputPipes>,
    ) -> Result<()> {
        let mut relays = Vec::new();
        if let Some(((out, _), (err, _))) = pipes {
            for (stream, read) in [("stdout", out), ("stderr", err)] {
                let me = self.clone();
                relays.push(
                    std::thread::Builder::new()
                        .name(format!("gldbg-{stream}"))
                        .spawn(move || me.relay_output(stream, read))
                        .map_err(Error::os("thread"))?,
                );
            }
        }
        let me = self.clone();
        std::thread::Builder::new()
            .name("gldbg-events".into())
            .spawn(move || me.event_thread(id, rx, relays))
            .map_err(Error::os("thread"))?;
        let me = self.clone();
        let shm2 = shm.clone();
        std::thread::Builder::new()
            .name("gldbg-stops".into())
            .spawn(move || me.watch_stops(id, shm2))
            .map_err(Error::os("thread"))?;
        Ok(())
    }

    /// Wait for launch `id`'s first stop; give up waiting (answer RUNNING)
    /// if the preload never attaches.
    fn await_first_stop(
        &self,
        id: u64,
        shm: &SharedMemory,
        program: &str,
    ) -> Result<pb::StateReply> {
        let start = Instant::now();
        let mut c = self.control();
        loop {
            if cancel::cancelled() {
                drop(c);
                return Err(self.undo_launch(id));
            }
            if c.state != RunState::Running {
                return Ok(self.state_reply(&c));
            }
            if start.elapsed() > ATTACH_TIMEOUT
                && shm.header().preload_attached.load(Ordering::Acquire) == 0
            {
                drop(c);
                self.emit(pb::event::Kind::Warning(format!(
                    "the preload did not attach to {} within {}s (statically linked, or it cleared LD_PRELOAD?); the app runs untraced by GL stops",
                    program,
                    ATTACH_TIMEOUT.as_secs()
                )));
                let c = self.control();
                return Ok(self.state_reply(&c));
            }
            c = self
                .changed
                .wait_timeout(c, FIRST_STOP_POLL)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    /// Exits and crashes from the tracer. `relays`: the threads sending the
    /// app's captured output; the exit is reported after the output.
    pub(super) fn event_thread(
        self: Arc<Self>,
        id: u64,
        rx: mpsc::Receiver<TraceEvent>,
        relays: Vec<std::thread::JoinHandle<()>>,
    ) {
        while let Ok(ev) = rx.recv() {
            match ev {
                TraceEvent::Exited { code, signal } => {
                    let description = exit_description(code, signal);
                    // A command in flight to the app fails now, not at its timeout.
                    self.app_ended(id, &description);
                    // The app's last words come before its exit (a child of
                    // the app that keeps the pipes open is not waited for long).
                    let deadline = Instant::now() + OUTPUT_DRAIN;
                    while relays.iter().any(|r| !r.is_finished()) && Instant::now() < deadline {
                        std::thread::sleep(Duration::from_millis(2));
                    }
                    let exit = pb::Exit {
                        code,
                        signal,
                        description,
                    };
                    self.finish_launch(id, exit.clone());
                    self.emit(pb::event::Kind::Exited(exit));
                    self.release_after_exit();
                    return;
                }
                TraceEvent::Detached => {
                    let exit = pb::Exit {
                        code: None,
                        signal: None,
                        description: "detached".into(),
                    };
                    self.finish_launch(id, exit.clone());
                    self.emit(pb::event::Kind::Exited(exit));
                    self.release_after_exit();
                    return;
                }
                TraceEvent::Crashed(report) => {
                    let crash = {
                        let mut c = self.control();
                        let Some(l) = c.launched.as_ref().filter(|l| l.id == id) else {
                            continue;
                        };
                        if report.pid != l.pid && report.pid != app_pid(l) {
                            // A child process of the app (followed through
                            // fork) died: the app itself goes on.
                            let w = format!(
                                "child process {} of the app was killed by {} (thread {})",
                                report.pid,
                                launch::signal_name(report.signal),
                                report.tid
                            );
                            drop(c);
                            self.emit(pb::event::Kind::Warning(w));
                            continue;
                        }
                        let crash = crash_info(&c, &report);
                        c.crash = Some(crash.clone());
                        crash
                    };
                    self.emit(pb::event::Kind::Crashed(crash));
                }
                TraceEvent::Warning(w) => self.emit(pb::event::Kind::Warning(w)),
                TraceEvent::ProcessEnded { pid, code, signal } => {
                    self.process_ended(id, pid, exit_description(code, signal))
                }
            }
        }
        // The tracer thread is gone without a word (it panicked): never leave the session RUNNING.
        let exit = pb::Exit {
            code: None,
            signal: None,
            description: "lost track of the app (the tracer thread ended)".into(),
        };
        self.app_ended(id, "was lost track of (the tracer thread ended)");
        self.finish_launch(id, exit.clone());
        self.emit(pb::event::Kind::Exited(exit));
        self.release_after_exit();
    }

    pub(super) fn finish_launch(&self, id: u64, exit: pb::Exit) {
        let mut c = self.control();
        if c.launched.as_ref().is_some_and(|l| l.id == id) {
            c.state = RunState::Exited;
            c.exit = Some(exit);
            c.current = None;
            c.pending.clear();
            c.shader_stop = None;
            c.paused = None;
            // What the app's preload counted stays in the memcheck report.
            if let Some(l) = c.launched.take() {
                c.memcheck.app_ended(&l.shm);
            }
            // The app's session ended: its saved shaders go (unless kept).
            drop(self.saved_shaders().take());
        }
        self.changed.notify_all();
    }

    pub(super) fn saved_shaders(
        &self,
    ) -> MutexGuard<'_, Option<crate::saved_shaders::SessionShaders>> {
        self.saved.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Send what the app writes to `read` as `output` events until the end
    /// of the pipe. A UTF-8 sequence split between reads is kept whole.
    pub(super) fn relay_output(&self, stream: &str, read: std::os::fd::OwnedFd) {
        use std::io::Read;
        let mut file = std::fs::File::from(read);
        let mut buf = vec![0u8; OUTPUT_CHUNK];
        let mut pending = Vec::new();
        loop {
            let n = match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            };
            pending.extend_from_slice(&buf[..n]);
            let whole = match std::str::from_utf8(&pending) {
                Ok(_) => pending.len(),
                // An incomplete sequence at the end waits for the next read.
                Err(e) if e.error_len().is_none() => e.valid_up_to(),
                Err(_) => pending.len(),
            };
            if whole > 0 {
                let text = String::from_utf8_lossy(&pending[..whole]).into_owned();
                pending.drain(..whole);
                self.emit(pb::event::Kind::Output(pb::Output {
                    stream: stream.into(),
                    text,
                }));
            }
        }
        if !pending.is_empty() {
            self.emit(pb::event::Kind::Output(pb::Output {
                stream: stream.into(),
                text: String::from_utf8_lossy(&pending).into_owned(),
            }));
        }
    }

    /// Stop a running app wherever it is: every thread is held in a ptrace
    /// stop (PTRACE_INTERRUPT); the state becomes STOPPED with a `paused`
    /// CallInfo naming a thread (the GL process's main thread when it is
    /// traced) and its instruction pointer. `continue`/`step` resume.
    pub fn pause(&self) -> Result<pb::StateReply> {
        let mut c = self.control();
        if Self::in_source_checks(&c) {
            // A `continue` checks this draw for source breakpoints.
            return Ok(self.pause_in_checks(c));
        }
        require_state(&c, RunState::Running)?;
        let Some(l) = &c.launched else {
            return Err(Error::not_launched());
        };
        cancel::check()?;
        let pid = app_pid(l);
        // The tracer never takes this lock; holding it keeps stops from being promoted meanwhile.
        let report = l.tracer.pause(pid)?;
        if c.current.is_some() || !c.pending.is_empty() {
            // A GL stop came first: report it, with the threads running again
            // (a stopped GL thread must be able to take commands).
            let _ = l.tracer.resume();
            if c.current.is_none()
                && let Some(info) = self.promote(&mut c)
            {
                let r = self.state_reply(&c);
                drop(c);
                self.emit(pb::event::Kind::Stopped(info));
                self.changed.notify_all();
                return Ok(r);
            }
            if Self::in_source_checks(&c) {
                return Ok(self.pause_in_checks(c));
            }
            return Ok(self.state_reply(&c));
        }
        let info = pb::CallInfo {
            paused: true,
            thread: report.tid,
            pc: report.pc,
            pid,
            ..Default::default()
        };
        c.paused = Some(info.clone());
        c.state = RunState::Stopped;
        let r = self.state_reply(&c);
        drop(c);
        self.changed.notify_all();
        self.emit(pb::event::Kind::Stopped(info));
        Ok(r)
    }

    pub fn kill(&self) -> Result<pb::StateReply> {
        {
            let c = self.control();
            match &c.launched {
                Some(l) => {
                    cancel::check()?;
                    l.tracer.kill()
                }
                None => return Err(Error::not_launched()),
            }
        }
        let deadline = Instant::now() + KILL_WAIT;
        let mut c = self.control();
        while c.launched.is_some() && Instant::now() < deadline {
            c = self
                .changed
                .wait_timeout(c, EXIT_POLL)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        drop(c);
        self.release_debug(&mut self.debug_lock(), None, None);
        Ok(self.get_state())
    }

    pub fn detach(&self) -> Result<pb::StateReply> {
        let mut dbg = self.debug_lock();
        let (shm, slots, release_gl) = {
            let mut c = self.control();
            let Some(l) = &c.launched else {
                return Err(Error::not_launched());
            };
            cancel::check()?;
            let shm = l.shm.clone();
            // The GL objects go after the control lock (see release_debug).
            let ended = self.release_debug(&mut dbg, Some(&shm), None);
            let release_gl = c.current.as_ref().map(|s| s.slot).filter(|_| ended);
            if c.paused.is_some() {
                // Held threads must run to take the CONTINUE commands below.
                l.tracer.resume()?;
                c.paused = None;
            }
            c.stepping = false;
            shm.set_step_all(false);
            shm.set_check_errors(false);
            shm.set_memcheck_fast(false);
            for id in 0..FUNCTIONS.len() as u32 {
                shm.set_breakpoint(id, false);
            }
            let mut slots: Vec<(usize, u32)> =
                c.pending.drain(..).map(|s| (s.slot, s.stop_id)).collect();
            slots.extend(c.current.take().map(|s| (s.slot, s.stop_id)));
            c.state = RunState::Running;
            (shm, slots, release_gl)
        };
        if let Some(slot) = release_gl {
            lifecycle::release_gl(&shm, slot);
        }
        for (s, stop_id) in slots {
            let _ = shm.command_at(s, stop_id, abi::CMD_CONTINUE, CMD_TIMEOUT);
        }
        let r = {
            let c = self.control();
            match &c.launched {
                Some(l) => l.tracer.detach(),
                None => Ok(()),
            }
        };
        r?;
        Ok(self.wait_not_running())
    }
}

/// How a process ended, as `Exit::description` says it.
pub(super) fn exit_description(code: Option<i32>, signal: Option<i32>) -> String {
    match (code, signal) {
        (Some(c), _) => format!("exited with code {c}"),
        (None, Some(s)) => format!("killed by {}", launch::signal_name(s)),
        (None, None) => "exited".to_string(),
    }
}

/// The most bytes of the app's output read (and sent as one event) at once.
const OUTPUT_CHUNK: usize = 64 << 10;

/// The app's stdout and stderr pipes: (read end, write end) each.
type OutputPipes = (
    (std::os::fd::OwnedFd, std::os::fd::OwnedFd),
    (std::os::fd::OwnedFd, std::os::fd::OwnedFd),
);

/// A pipe for the app's output: (read end, write end), both close-on-exec
/// (the child gets the write end by dup2, which clears the flag).
pub(super) fn output_pipe() -> Result<(std::os::fd::OwnedFd, std::os::fd::OwnedFd)> {
    rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)
        .map_err(|e| Error::os("pipe for the app's output")(e.into()))
}

/// The last GL call the crashing thread entered, from its call word
/// (read by the tracer before the signal was delivered).
fn entered_call(r: &launch::CrashReport) -> Option<pb::CallInfo> {
    let (calls, entered) = r.entered?;
    let id = entered.checked_sub(1)?;
    if id as usize >= api::FUNCTIONS.len() {
        return None;
    }
    Some(pb::CallInfo {
        function: function_name(id).to_string(),
        function_id: id,
        call: calls,
        thread: r.tid,
        pid: r.pid,
        ..Default::default()
    })
}

/// Crash report with the call in flight on the crashing thread.
pub(super) fn crash_info(c: &Control, r: &launch::CrashReport) -> pb::Crash {
    let mut call = None;
    let mut in_call = false;
    if let Some(l) = &c.launched {
        for slot in l.shm.header().slots.iter() {
            if slot.tid.load(Ordering::Acquire) == r.tid
                && slot.state.load(Ordering::Acquire) == abi::STATE_IN_CALL
            {
                let n = (slot.arg_count.load(Ordering::Relaxed) as usize).min(abi::MAX_ARGS);
                let s = Stop {
                    serial: 0,
                    slot: 0,
                    tid: r.tid,
                    function: slot.function.load(Ordering::Relaxed),
                    call_number: slot.call_number.load(Ordering::Relaxed),
                    args: (0..n)
                        .map(|i| slot.args[i].load(Ordering::Relaxed))
                        .collect(),
                    ret: None,
                    draw: 0,
                    frame: l.shm.frame_count().max(1),
                    breakpoint_id: 0,
                    error: 0,
                    pid: r.pid,
                    context: slot.context.load(Ordering::Relaxed),
                    stop_id: 0,
                    source_check: false,
                    memcheck_ran: false,
                };
                call = Some(call_info(&s, None));
                in_call = true;
            }
        }
    }
    if call.is_none()
        && let Some(id) = r.in_flight.as_deref().and_then(api::function_id)
    {
        // Found on the stack: the function is known, its arguments are not.
        call = Some(pb::CallInfo {
            function: function_name(id).to_string(),
            function_id: id,
            thread: r.tid,
            ..Default::default()
        });
        in_call = true;
    }
    let recent = c.recent.get(&r.tid);
    if call.is_none() {
        call = recent.and_then(|q| q.back()).map(|s| call_info(s, None));
    }
    let entered = c.launched.as_ref().and_then(|l| {
        let mut call = entered_call(r)?;
        // As a stop's frame (`calls.rs`): a swap is counted before it runs
        // and belongs to the frame it ends.
        call.frame = match super::class_of(call.function_id) & class::FRAME_END {
            0 => l.shm.frame_count() + 1,
            _ => l.shm.frame_count(),
        };
        Some(call)
    });
    pb::Crash {
        entered,
        signal: r.signal,
        signal_name: launch::signal_name(r.signal),
        fault_address: r.fault_address,
        thread: r.tid,
        registers: r.registers.iter().cloned().collect(),
        call,
        in_call,
        stopped_calls_seen: recent
            .map(|q| q.iter().map(|s| call_info(s, None)).collect())
            .unwrap_or_default(),
        pid: r.pid,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The preload `cargo build --workspace` put beside the test's directory.
    fn preload() -> std::path::PathBuf {
        let exe = std::env::current_exe().unwrap();
        let p = exe
            .parent()
            .unwrap()
            .parent()
            .unwrap()
            .join("libgldbg_preload.so");
        assert!(
            p.is_file(),
            "{} is missing: run `cargo build --workspace` first",
            p.display()
        );
        p
    }

    /// An app that ends before its first GL call: its last words (an
    /// incomplete UTF-8 sequence the relay holds until the pipe's end) come
    /// before its exit. Our write ends close once the app started, not
    /// after Launch's wait: else the relay saw the end only after the exit
    /// was reported (the drain gave up after OUTPUT_DRAIN).
    #[test]
    fn output_of_an_app_that_ends_before_gl_comes_before_its_exit() {
        let s = Session::new(Config {
            preload: preload(),
            app_ends_with_daemon: false,
        });
        let mut events = s.subscribe();
        let r = s
            .launch(LaunchOptions {
                program: "/bin/sh".into(),
                args: vec!["-c".into(), r"printf 'hi \303'; exit 3".into()],
                env: Vec::new(),
                cwd: None,
                own_process_group: true,
                capture_output: true,
                stdin_null: true,
            })
            .expect("launch");
        assert_eq!(r.state(), pb::RunState::Exited, "{r:?}");
        let mut stdout = String::new();
        let exit = loop {
            match events.blocking_recv().expect("events until the exit") {
                pb::Event {
                    kind: Some(pb::event::Kind::Output(o)),
                    ..
                } if o.stream == "stdout" => stdout.push_str(&o.text),
                pb::Event {
                    kind: Some(pb::event::Kind::Exited(e)),
                    ..
                } => break e,
                _ => {}
            }
        };
        assert_eq!(exit.code, Some(3));
        assert_eq!(stdout, "hi \u{FFFD}", "all of the output before the exit");
    }
}
