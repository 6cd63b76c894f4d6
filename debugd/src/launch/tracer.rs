//! The tracer thread's side: the wait loop that restarts every stop,
//! follows threads and child processes, turns fatal signals into
//! [`CrashReport`]s and serves [`TraceCommand`]s (kill, pause, resume,
//! detach); and [`Tracer`], the handle the rest of the daemon holds.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use nix::errno::Errno;
use nix::sys::ptrace;
use nix::sys::signal::{self, Signal};
use nix::unistd::Pid;

use super::wait::{WaitEvent, is_crash_signal, signal_caught, wait_raw};

/// How long a request to the tracer thread waits for its answer.
const TRACER_REPLY: Duration = Duration::from_secs(10);

/// Why a request to the tracer thread failed.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The tracer thread is gone (the app ended or was detached).
    #[error("the tracer has ended")]
    Ended,
    /// It did not answer within [`TRACER_REPLY`].
    #[error("the tracer did not answer")]
    NoAnswer(#[source] mpsc::RecvTimeoutError),
    /// The app exited while `pause` waited for its threads to stop.
    #[error("the app exited")]
    AppExited,
    /// `pause` found no thread it could stop.
    #[error("no thread could be stopped")]
    NoThreadStopped,
}

/// A fatal signal caught on its way to the app.
#[derive(Debug, Clone)]
pub struct CrashReport {
    pub signal: i32,
    pub tid: u32,
    /// Process (thread group) of the crashing thread.
    pub pid: u32,
    pub fault_address: u64,
    pub registers: Vec<(String, u64)>,
    /// The GL/GLX/EGL wrapper found on the crashing thread's stack.
    pub in_flight: Option<String>,
    /// The thread's call word (`ThreadCalls`): its call count and the last
    /// function it entered (id + 1), read before the signal is delivered.
    pub entered: Option<(u64, u32)>,
}

/// What the tracer reports.
#[derive(Debug, Clone)]
pub enum TraceEvent {
    /// The process ended (the leader's exit status).
    Exited {
        code: Option<i32>,
        signal: Option<i32>,
    },
    /// An uncaught fatal signal is being delivered (the exit follows).
    Crashed(CrashReport),
    /// The tracer let the process go (detach): no more events.
    Detached,
    /// A child process of the launched one (followed through fork) ended;
    /// the launched process goes on (a launcher script's app, say).
    ProcessEnded {
        pid: u32,
        code: Option<i32>,
        signal: Option<i32>,
    },
    /// Something the user should know.
    Warning(String),
}

/// Where `pause` stopped the app: the thread reported and its instruction pointer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PauseReport {
    pub tid: u32,
    pub pc: u64,
    /// Threads held stopped.
    pub threads: usize,
}

/// Requests to the tracer thread.
#[derive(Debug)]
pub enum TraceCommand {
    /// SIGKILL every traced process.
    Kill,
    /// Detach from every thread; the reply says when done.
    Detach(Sender<Result<(), TraceError>>),
    /// Stop every thread (PTRACE_INTERRUPT) and hold it; report the thread
    /// `prefer` (a tid, usually the GL process's main thread) if traced.
    Pause {
        prefer: u32,
        reply: Sender<Result<PauseReport, TraceError>>,
    },
    /// Restart every held thread.
    Resume(Sender<()>),
}

/// Handle of a launched, traced process.
pub struct Tracer {
    pub pid: u32,
    pub(super) commands: Sender<TraceCommand>,
    pub(super) thread: Option<JoinHandle<()>>,
}

impl Tracer {
    /// Kill the app (SIGKILL); the exit comes as an event.
    pub fn kill(&self) {
        if self.commands.send(TraceCommand::Kill).is_err() {
            // Tracer gone: the process is gone too, or detached.
        }
    }

    /// Stop every thread of the app where it is.
    pub fn pause(&self, prefer: u32) -> Result<PauseReport, TraceError> {
        let (tx, rx) = mpsc::channel();
        self.commands
            .send(TraceCommand::Pause { prefer, reply: tx })
            .map_err(|_| TraceError::Ended)?;
        rx.recv_timeout(TRACER_REPLY)
            .map_err(TraceError::NoAnswer)?
    }

    /// Restart the threads `pause` held.
    pub fn resume(&self) -> Result<(), TraceError> {
        let (tx, rx) = mpsc::channel();
        self.commands
            .send(TraceCommand::Resume(tx))
            .map_err(|_| TraceError::Ended)?;
        rx.recv_timeout(TRACER_REPLY).map_err(TraceError::NoAnswer)
    }

    /// Detach from the app, letting it run on untraced.
    pub fn detach(&self) -> Result<(), TraceError> {
        let (tx, rx) = mpsc::channel();
        self.commands
            .send(TraceCommand::Detach(tx))
            .map_err(|_| TraceError::Ended)?;
        rx.recv_timeout(TRACER_REPLY)
            .map_err(TraceError::NoAnswer)?
    }
}

impl Drop for Tracer {
    fn drop(&mut self) {
        // The thread ends by itself when the process ends; never join here
        // (a live app keeps it running).
        drop(self.thread.take());
    }
}

pub(super) struct TraceLoop {
    pid: Pid,
    preload: PathBuf,
    /// Where the threads' call words are (the preload's header field).
    pub(super) shm: Option<std::sync::Arc<crate::shm::SharedMemory>>,
    tids: BTreeSet<i32>,
    /// Child processes (fork, vfork) not known to have ended.
    children: BTreeSet<i32>,
    /// Threads held in a ptrace stop by `pause`, with the signal to deliver at resume.
    held: std::collections::BTreeMap<i32, Option<Signal>>,
    /// True between Pause and Resume: new threads are held too.
    paused: bool,
    events: Sender<TraceEvent>,
    commands: Receiver<TraceCommand>,
    /// Detach what is still traced when the launched process ends (with
    /// `PTRACE_O_EXITKILL`, the end of this thread would kill it).
    pub(super) detach_at_end: bool,
}

impl TraceLoop {
    pub(super) fn new(
        pid: Pid,
        events: Sender<TraceEvent>,
        commands: Receiver<TraceCommand>,
        preload: PathBuf,
    ) -> Self {
        TraceLoop {
            pid,
            preload,
            shm: None,
            tids: BTreeSet::from([pid.as_raw()]),
            children: BTreeSet::new(),
            held: Default::default(),
            paused: false,
            events,
            commands,
            detach_at_end: false,
        }
    }

    fn send(&self, ev: TraceEvent) {
        // The session may be gone; the loop still has to keep the app running.
        let _ = self.events.send(ev);
    }

    pub(super) fn run(mut self) {
        self.wait_loop();
        // The launched process ended with other processes still traced
        // (children it forked): let them go before this thread ends, as
        // without `PTRACE_O_EXITKILL`, which would kill them.
        if self.detach_at_end && !self.tids.is_empty() {
            let _ = self.detach_all();
        }
    }

    /// Restart stops and serve commands until the launched process ends.
    fn wait_loop(&mut self) {
        loop {
            let mut progressed = false;
            let tids: Vec<i32> = self.tids.iter().copied().collect();
            for tid in tids {
                match wait_raw(tid, true) {
                    Ok(Some((tid, ev))) => {
                        progressed = true;
                        if self.handle(tid, ev) {
                            return;
                        }
                    }
                    Ok(None) => {}
                    Err(Errno::ECHILD) => {
                        self.tids.remove(&tid);
                        if tid == self.pid.as_raw() {
                            self.send(TraceEvent::Exited {
                                code: None,
                                signal: None,
                            });
                            return;
                        }
                    }
                    Err(_) => {}
                }
            }
            if progressed {
                while let Ok(cmd) = self.commands.try_recv() {
                    if self.command(cmd) {
                        return;
                    }
                }
                continue;
            }
            match self.commands.recv_timeout(Duration::from_millis(3)) {
                Ok(cmd) => {
                    if self.command(cmd) {
                        return;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                // Session gone: keep serving the app until it ends.
                Err(RecvTimeoutError::Disconnected) => std::thread::sleep(Duration::from_millis(3)),
            }
        }
    }

    /// Handle one stop or exit; true when the loop is over.
    fn handle(&mut self, tid: i32, ev: WaitEvent) -> bool {
        let t = Pid::from_raw(tid);
        match ev {
            WaitEvent::Exited { code } => {
                self.tids.remove(&tid);
                self.child_ended(tid, Some(code), None);
                if tid == self.pid.as_raw() {
                    self.send(TraceEvent::Exited {
                        code: Some(code),
                        signal: None,
                    });
                    return true;
                }
            }
            WaitEvent::Killed { signal, .. } => {
                self.tids.remove(&tid);
                self.child_ended(tid, None, Some(signal));
                if tid == self.pid.as_raw() {
                    self.send(TraceEvent::Exited {
                        code: None,
                        signal: Some(signal),
                    });
                    return true;
                }
            }
            WaitEvent::SignalStop { signal } => {
                if is_crash_signal(signal) && !self.caught(tid, signal) {
                    let report = self.crash_report(t, signal);
                    self.send(TraceEvent::Crashed(report));
                }
                let _ = ptrace::cont(t, Signal::try_from(signal).ok());
            }
            WaitEvent::GroupStop { .. } if self.paused => {
                self.held.insert(tid, None);
            }
            WaitEvent::GroupStop { .. } => {
                // Job-control stops are not kept: the debugger controls the app.
                let _ = ptrace::cont(t, None);
            }
            WaitEvent::Event { event, .. } => {
                if matches!(
                    event,
                    libc::PTRACE_EVENT_CLONE | libc::PTRACE_EVENT_FORK | libc::PTRACE_EVENT_VFORK
                ) && let Ok(new) = ptrace::getevent(t)
                {
                    self.tids.insert(new as i32);
                    if event != libc::PTRACE_EVENT_CLONE {
                        self.children.insert(new as i32);
                    }
                }
                if self.paused && event == libc::PTRACE_EVENT_STOP {
                    // A thread born (or interrupted) while paused stays stopped.
                    self.held.insert(tid, None);
                } else {
                    let _ = ptrace::cont(t, None);
                }
            }
            WaitEvent::Continued | WaitEvent::Unknown(_) => {}
        }
        false
    }

    /// Report the end of a child process (its leader's exit).
    fn child_ended(&mut self, tid: i32, code: Option<i32>, signal: Option<i32>) {
        if self.children.remove(&tid) {
            self.send(TraceEvent::ProcessEnded {
                pid: tid as u32,
                code,
                signal,
            });
        }
    }

    fn caught(&self, tid: i32, signal: i32) -> bool {
        let path = format!("/proc/{}/task/{tid}/status", self.pid.as_raw());
        std::fs::read_to_string(path)
            .map(|s| signal_caught(&s, signal))
            .unwrap_or(false)
    }

    fn crash_report(&self, t: Pid, signal: i32) -> CrashReport {
        let fault_address = ptrace::getsiginfo(t)
            // SAFETY: si_addr is valid to read for the fault signals; for others it reads the union's bytes.
            .map(|si| unsafe { si.si_addr() } as u64)
            .unwrap_or(0);
        let registers = registers(t);
        let sp = registers
            .iter()
            .find(|(n, _)| n == "rsp" || n == "sp")
            .map(|(_, v)| *v);
        let in_flight = sp.and_then(|sp| {
            crate::inflight::call_in_flight(self.pid.as_raw() as u32, sp, &self.preload)
        });
        let pid = std::fs::read_to_string(format!("/proc/{}/status", t.as_raw()))
            .ok()
            .and_then(|st| {
                st.lines()
                    .find_map(|l| l.strip_prefix("Tgid:"))
                    .and_then(|v| v.trim().parse().ok())
            })
            .unwrap_or(self.pid.as_raw() as u32);
        // The offset is the session's process's: another program (a child
        // that exec'd) lays out its TLS otherwise.
        let entered = self.shm.as_ref().and_then(|shm| {
            use std::sync::atomic::Ordering::Acquire;
            let h = shm.header();
            if h.preload_pid.load(Acquire) != pid {
                return None;
            }
            let fs_base = registers.iter().find(|(n, _)| n == "fs_base")?.1;
            crate::inflight::thread_calls(t.as_raw() as u32, fs_base, h.tls_offset.load(Acquire))
        });
        CrashReport {
            signal,
            tid: t.as_raw() as u32,
            pid,
            fault_address,
            registers,
            in_flight,
            entered,
        }
    }

    /// Handle a command; true when the loop is over.
    fn command(&mut self, cmd: TraceCommand) -> bool {
        match cmd {
            TraceCommand::Kill => {
                // Every traced process (a launcher script's child app too).
                for &tid in &self.tids {
                    let _ = signal::kill(Pid::from_raw(tid), Signal::SIGKILL);
                }
                let _ = signal::kill(self.pid, Signal::SIGKILL);
                false
            }
            TraceCommand::Pause { prefer, reply } => {
                let r = self.pause_all(prefer as i32);
                let _ = reply.send(r);
                false
            }
            TraceCommand::Resume(reply) => {
                self.resume_all();
                let _ = reply.send(());
                false
            }
            TraceCommand::Detach(reply) => {
                let r = self.detach_all();
                let ok = r.is_ok();
                let _ = reply.send(r);
                if ok {
                    self.send(TraceEvent::Detached);
                }
                ok
            }
        }
    }

    /// PTRACE_INTERRUPT every thread and wait until each is in a ptrace
    /// stop; they stay held until [`Self::resume_all`].
    fn pause_all(&mut self, prefer: i32) -> Result<PauseReport, TraceError> {
        self.paused = true;
        let mut todo: Vec<i32> = self
            .tids
            .iter()
            .copied()
            .filter(|t| !self.held.contains_key(t))
            .collect();
        while let Some(tid) = todo.pop() {
            let t = Pid::from_raw(tid);
            if ptrace::interrupt(t).is_err() {
                continue;
            }
            loop {
                match wait_raw(tid, false) {
                    Ok(Some((_, ev @ (WaitEvent::Exited { .. } | WaitEvent::Killed { .. })))) => {
                        if self.handle(tid, ev) {
                            self.paused = false;
                            return Err(TraceError::AppExited);
                        }
                        break;
                    }
                    Err(_) => {
                        self.tids.remove(&tid);
                        break;
                    }
                    Ok(Some((_, WaitEvent::SignalStop { signal }))) => {
                        if is_crash_signal(signal) && !self.caught(tid, signal) {
                            let report = self.crash_report(t, signal);
                            self.send(TraceEvent::Crashed(report));
                        }
                        // Stopped for a signal: deliver it at resume.
                        self.held.insert(tid, Signal::try_from(signal).ok());
                        break;
                    }
                    Ok(Some((
                        _,
                        WaitEvent::Event {
                            event:
                                libc::PTRACE_EVENT_CLONE
                                | libc::PTRACE_EVENT_FORK
                                | libc::PTRACE_EVENT_VFORK,
                            ..
                        },
                    ))) => {
                        if let Ok(new) = ptrace::getevent(t) {
                            self.tids.insert(new as i32);
                            todo.push(new as i32);
                        }
                        // Hold it here: the event stop is a ptrace stop.
                        self.held.insert(tid, None);
                        break;
                    }
                    Ok(Some((_, WaitEvent::Event { .. } | WaitEvent::GroupStop { .. }))) => {
                        self.held.insert(tid, None);
                        break;
                    }
                    Ok(_) => continue,
                }
            }
        }
        let tid = if self.held.contains_key(&prefer) {
            prefer
        } else if self.held.contains_key(&self.pid.as_raw()) {
            self.pid.as_raw()
        } else {
            *self.held.keys().next().ok_or(TraceError::NoThreadStopped)?
        };
        let pc = registers(Pid::from_raw(tid))
            .into_iter()
            .find(|(n, _)| n == "rip" || n == "pc")
            .map_or(0, |(_, v)| v);
        Ok(PauseReport {
            tid: tid as u32,
            pc,
            threads: self.held.len(),
        })
    }

    fn resume_all(&mut self) {
        self.paused = false;
        for (tid, sig) in std::mem::take(&mut self.held) {
            let _ = ptrace::cont(Pid::from_raw(tid), sig);
        }
    }

    fn detach_all(&mut self) -> Result<(), TraceError> {
        self.paused = false;
        for (tid, sig) in std::mem::take(&mut self.held) {
            // Already in a ptrace stop: detach at once.
            let _ = ptrace::detach(Pid::from_raw(tid), sig);
            self.tids.remove(&tid);
        }
        let tids: Vec<i32> = self.tids.iter().copied().collect();
        for tid in tids {
            let t = Pid::from_raw(tid);
            if ptrace::interrupt(t).is_err() {
                self.tids.remove(&tid);
                continue;
            }
            // Wait for that thread's stop; pass a pending signal on at detach.
            loop {
                match wait_raw(tid, false) {
                    Ok(Some((_, WaitEvent::Exited { .. } | WaitEvent::Killed { .. }))) | Err(_) => {
                        self.tids.remove(&tid);
                        break;
                    }
                    Ok(Some((_, WaitEvent::SignalStop { signal }))) => {
                        let _ = ptrace::detach(t, Signal::try_from(signal).ok());
                        self.tids.remove(&tid);
                        break;
                    }
                    Ok(Some((_, WaitEvent::Event { event, .. }))) => {
                        if matches!(
                            event,
                            libc::PTRACE_EVENT_CLONE
                                | libc::PTRACE_EVENT_FORK
                                | libc::PTRACE_EVENT_VFORK
                        ) {
                            if let Ok(new) = ptrace::getevent(t) {
                                self.tids.insert(new as i32);
                            }
                            let _ = ptrace::cont(t, None);
                            let _ = ptrace::interrupt(t);
                            continue;
                        }
                        let _ = ptrace::detach(t, None);
                        self.tids.remove(&tid);
                        break;
                    }
                    Ok(Some((_, WaitEvent::GroupStop { .. }))) => {
                        let _ = ptrace::detach(t, None);
                        self.tids.remove(&tid);
                        break;
                    }
                    Ok(_) => continue,
                }
            }
        }
        // Threads born during the detach.
        if !self.tids.is_empty() {
            return self.detach_all();
        }
        Ok(())
    }
}

#[cfg(target_arch = "x86_64")]
fn registers(t: Pid) -> Vec<(String, u64)> {
    let Ok(r) = ptrace::getregs(t) else {
        return Vec::new();
    };
    [
        ("rip", r.rip),
        ("rsp", r.rsp),
        ("rbp", r.rbp),
        ("rax", r.rax),
        ("rbx", r.rbx),
        ("rcx", r.rcx),
        ("rdx", r.rdx),
        ("rsi", r.rsi),
        ("rdi", r.rdi),
        ("r8", r.r8),
        ("r9", r.r9),
        ("r10", r.r10),
        ("r11", r.r11),
        ("r12", r.r12),
        ("r13", r.r13),
        ("r14", r.r14),
        ("r15", r.r15),
        ("eflags", r.eflags),
        ("fs_base", r.fs_base),
        ("gs_base", r.gs_base),
    ]
    .into_iter()
    .map(|(n, v)| (n.to_string(), v))
    .collect()
}

#[cfg(target_arch = "aarch64")]
fn registers(t: Pid) -> Vec<(String, u64)> {
    let Ok(r) = ptrace::getregs(t) else {
        return Vec::new();
    };
    let mut v: Vec<(String, u64)> = r
        .regs
        .iter()
        .enumerate()
        .map(|(i, x)| (format!("x{i}"), *x))
        .collect();
    v.push(("sp".into(), r.sp));
    v.push(("pc".into(), r.pc));
    v.push(("pstate".into(), r.pstate));
    v
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn registers(_t: Pid) -> Vec<(String, u64)> {
    Vec::new()
}
