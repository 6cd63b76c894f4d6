//! One debugging session: the launched app, its shared memory and tracer,
//! breakpoints, the current stop, recorded shaders and shader debugging.
//!
//! Threads: the tracer thread (see [`crate::launch`]) reports exits and
//! crashes over a channel to the session's event thread; the stop watcher
//! waits on `Header::stop_seq` and turns stopped slots into session stops
//! (recording shader calls and continuing internal stops itself). RPC
//! handlers call the blocking methods here from `spawn_blocking`.
//!
//! Locks: `debug` (shader debugging; held across probes) is always taken
//! before `control` (held briefly, never across a shared-memory command
//! that waits on the app, except the short ones of a stopped slot).
//! A request that needs a stopped app while it runs fails at once with
//! `FailedPrecondition`; only Continue/Step/Skip/Launch wait for the app.

use std::collections::{HashMap, VecDeque};
use std::ffi::OsString;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use gldbg_proto::api::{self, FUNCTIONS, class};
use gldbg_proto::pb;
use gldbg_proto::shm::{
    self as abi, BulkRef, ComputeStepReply, ComputeStepRequest, FragmentStepReply,
    FragmentStepRequest, OutputRef, ProgramReply, ShaderRef, VertexStepReply, VertexStepRequest,
};
use glsl_instrument::{Instrumented, OutputSlot, ShaderModel, Stage, StepMode};
use tokio::sync::broadcast;

use crate::Config;
use crate::error::{Error, Result};
use crate::format;
use crate::image::PngOptions;
use crate::launch::{self, TraceEvent, Tracer};
use crate::program::{self, ProgramText, Recorded, StageSource};
use crate::remote::Remote;
use crate::shader::{
    Focus, FragmentOptions, Held, HeldRefs, ProbeResult, ProbeRunner, ReadMode, Reply, ShaderDebug,
    held,
};
use crate::shm::{SharedMemory, StoppedCall};
use crate::{cancel, glstate, pointee};

mod lifecycle;

/// Timeout of short shared-memory commands (continue, finish, query).
const CMD_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the exit report waits for the app's captured output to end.
const OUTPUT_DRAIN: Duration = Duration::from_secs(2);
/// How long the daemon and a stopped thread spin for each other in `step N`
/// before sleeping: long enough to cover a GL call between two stops, short
/// enough that a thread busy outside GL costs little CPU.
const STEP_SPIN: Duration = Duration::from_millis(2);
/// Timeout of a debug replay (compile, link, draw, read back on a slow driver).
const PROBE_TIMEOUT: Duration = Duration::from_secs(120);
/// How long Launch waits for the preload to attach before answering RUNNING.
const ATTACH_TIMEOUT: Duration = Duration::from_secs(20);

fn classes() -> &'static [u32] {
    static C: OnceLock<Vec<u32>> = OnceLock::new();
    C.get_or_init(|| FUNCTIONS.iter().map(|f| api::classify(f.name)).collect())
}

fn class_of(id: u32) -> u32 {
    classes().get(id as usize).copied().unwrap_or(0)
}

fn function_name(id: u32) -> &'static str {
    FUNCTIONS.get(id as usize).map_or("?", |f| f.name)
}

/// What a breakpoint stops at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BreakKind {
    Function(u32),
    Draw,
    DrawNumber(u64),
    ShaderSwitch,
    Frame,
    /// Any GL call that raised a GL error (checked after each call while it exists).
    GlError,
}

impl BreakKind {
    fn describe(self) -> String {
        match self {
            BreakKind::Function(id) => function_name(id).to_string(),
            BreakKind::Draw => "draw".into(),
            BreakKind::DrawNumber(n) => format!("draw {n}"),
            BreakKind::ShaderSwitch => "shader-switch".into(),
            BreakKind::Frame => "frame".into(),
            BreakKind::GlError => "error".into(),
        }
    }

    /// Whether a call of `function` needs its bit for this breakpoint.
    fn covers(self, function: u32) -> bool {
        match self {
            BreakKind::Function(id) => id == function,
            BreakKind::Draw | BreakKind::DrawNumber(_) => class_of(function) & class::DRAW != 0,
            BreakKind::ShaderSwitch => class_of(function) & class::SHADER_SWITCH != 0,
            BreakKind::Frame => class_of(function) & class::FRAME_END != 0,
            // No bit: the preload checks every call while `check_errors` is set.
            BreakKind::GlError => false,
        }
    }

    fn matches(self, stop: &Stop) -> bool {
        match self {
            BreakKind::DrawNumber(n) => {
                self.covers(stop.function) && stop.draw == n && stop.error == 0
            }
            // A draw call compiled into a display list draws nothing.
            BreakKind::Draw => self.covers(stop.function) && stop.draw != 0 && stop.error == 0,
            BreakKind::GlError => stop.error != 0,
            // Other breakpoints stop before the call, never again after it.
            k => k.covers(stop.function) && stop.error == 0,
        }
    }
}

#[derive(Clone, Debug)]
struct Breakpoint {
    id: u32,
    kind: BreakKind,
    hits: u64,
}

/// A call the app is stopped at.
#[derive(Clone, Debug)]
struct Stop {
    serial: u64,
    slot: usize,
    tid: u32,
    function: u32,
    call_number: u64,
    args: Vec<u64>,
    ret: Option<u64>,
    draw: u64,
    /// The frame the call belongs to (1-based; see `pb::CallInfo::frame`).
    frame: u64,
    breakpoint_id: u32,
    /// The GL error the call raised (an error-breakpoint stop after the call), else 0.
    error: u32,
    /// Process id of the thread.
    pid: u32,
    /// The EGL/GLX context current on the thread at the stop (0 if none).
    context: u64,
    /// The slot's `stop_id` of this stop: commands releasing it name it.
    stop_id: u32,
}

/// The outcome of a preload command's status, for the statuses every
/// command shares; `other` describes any other failure.
fn check_status(command: &str, status: u32, other: impl FnOnce(u32) -> Error) -> Result<()> {
    let refused = |what: &str| Err(Error::FailedPrecondition(what.into()));
    match status {
        abi::STATUS_OK => Ok(()),
        abi::STATUS_NOT_A_DRAW => refused("not stopped at a draw call the debugger can replay"),
        abi::STATUS_NO_PROGRAM => refused(
            "no program is current (a draw here uses the fixed-function pipeline: there is no \
             shader to debug; `break shader-switch` stops where the app makes a program current)",
        ),
        abi::STATUS_NO_CONTEXT => refused("no GL context is current on the stopped thread"),
        abi::STATUS_UNKNOWN_COMMAND => Err(Error::Internal(format!(
            "the preload does not know {command}"
        ))),
        st => Err(other(st)),
    }
}

/// Calls remembered per thread for crash reports.
const RECENT_CALLS: usize = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RunState {
    NotStarted,
    Running,
    Stopped,
    Exited,
}

/// The launched process.
struct Launched {
    id: u64,
    pid: u32,
    shm: Arc<SharedMemory>,
    tracer: Tracer,
}

struct Control {
    state: RunState,
    launched: Option<Launched>,
    launch_counter: u64,
    current: Option<Stop>,
    pending: VecDeque<Stop>,
    /// Per slot: the `stop_id` of the stop last taken (by the watcher or `step N`).
    claimed: HashMap<usize, u32>,
    /// Every call stops (stepping) rather than only breakpoints.
    stepping: bool,
    breakpoints: Vec<Breakpoint>,
    next_breakpoint: u32,
    exit: Option<pb::Exit>,
    crash: Option<pb::Crash>,
    /// The last calls that went through the stop path on each thread
    /// (at most `RECENT_CALLS`, oldest first; for crash reports).
    recent: HashMap<u32, VecDeque<Stop>>,
    /// Set while `pause` holds the app outside a GL call.
    paused: Option<pb::CallInfo>,
    /// Shader objects recorded from the app's calls, per GL context: object
    /// names are per context (or share group). A program used in a context
    /// other than the one that built it falls back to the driver's copy of
    /// its sources.
    recorded: HashMap<u64, Recorded>,
    /// Each GL context made sharing objects with another: the context that
    /// stands for its share group (the group's first), the key of `recorded`.
    share_group: HashMap<u64, u64>,
    stop_serial: u64,
    /// The current shader stop, when debugging a shader.
    shader_stop: Option<pb::ShaderStop>,
}

impl Control {
    /// The context that stands for `context`'s share group.
    fn share_root(&self, context: u64) -> u64 {
        self.share_group.get(&context).copied().unwrap_or(context)
    }

    /// The shader bookkeeping of `context`'s share group.
    fn recorded_mut(&mut self, context: u64) -> &mut Recorded {
        let root = self.share_root(context);
        self.recorded.entry(root).or_default()
    }

    /// A context `created` that shares objects with `share` (0: none).
    fn context_created(&mut self, created: u64, share: u64) {
        if created != 0 && share != 0 {
            let root = self.share_root(share);
            self.share_group.insert(created, root);
        }
    }
}

/// A launch request in domain terms.
#[derive(Clone, Debug, Default)]
pub struct LaunchOptions {
    pub program: String,
    pub args: Vec<String>,
    /// KEY=VALUE entries added to the daemon's environment.
    pub env: Vec<String>,
    pub cwd: Option<PathBuf>,
    /// Start the app in its own process group (an interactive client's
    /// Ctrl-C then reaches only the client, which pauses the app).
    pub own_process_group: bool,
    /// Send the app's stdout and stderr as `output` events.
    pub capture_output: bool,
}

/// The session (one per daemon).
pub struct Session {
    config: Config,
    control: Mutex<Control>,
    changed: Condvar,
    debug: Mutex<Option<ShaderDebug>>,
    events: broadcast::Sender<pb::Event>,
    event_seq: AtomicU64,
    /// Counter of debug shaders saved after a driver rejected them.
    rejected: AtomicU64,
    /// The launched app's saved rejected shaders (their directory goes with it).
    saved: Mutex<Option<crate::saved_shaders::SessionShaders>>,
    /// Set while `step N` runs its loop: that thread takes the stops itself
    /// (the stop watcher stands aside) and no per-step event is sent.
    fast_stepping: AtomicBool,
}

impl Session {
    pub fn new(config: Config) -> Arc<Session> {
        lifecycle::heap_policy();
        let (events, _) = broadcast::channel(1024);
        Arc::new(Session {
            config,
            control: Mutex::new(Control {
                state: RunState::NotStarted,
                launched: None,
                launch_counter: 0,
                current: None,
                pending: VecDeque::new(),
                claimed: HashMap::new(),
                stepping: false,
                breakpoints: Vec::new(),
                next_breakpoint: 1,
                exit: None,
                crash: None,
                recent: HashMap::new(),
                paused: None,
                recorded: HashMap::new(),
                share_group: HashMap::new(),
                stop_serial: 0,
                shader_stop: None,
            }),
            changed: Condvar::new(),
            debug: Mutex::new(None),
            events,
            event_seq: AtomicU64::new(0),
            rejected: AtomicU64::new(0),
            saved: Mutex::new(None),
            fast_stepping: AtomicBool::new(false),
        })
    }

    fn control(&self) -> MutexGuard<'_, Control> {
        self.control.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn debug_lock(&self) -> MutexGuard<'_, Option<ShaderDebug>> {
        self.debug.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Subscribe to session events.
    pub fn subscribe(&self) -> broadcast::Receiver<pb::Event> {
        self.events.subscribe()
    }

    fn emit(&self, kind: pb::event::Kind) {
        let seq = self.event_seq.fetch_add(1, Ordering::Relaxed) + 1;
        // No subscriber is fine.
        let _ = self.events.send(pb::Event {
            kind: Some(kind),
            seq,
        });
    }

    // ----- launch -----

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
        let cwd = match &opts.cwd {
            Some(c) => c.clone(),
            None => std::env::current_dir()
                .map_err(|e| Error::Internal(format!("current directory: {e}")))?,
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
        // Our copies of the write ends close when this function returns:
        // the readers then see the end once the app (and its children) did.
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
            own_process_group: opts.own_process_group,
            kill_with_tracer: self.config.app_ends_with_daemon,
            preload: self.config.preload.clone(),
            output_fds: pipes
                .as_ref()
                .map(|(o, e)| (o.1.as_raw_fd(), e.1.as_raw_fd())),
        };

        let (tx, rx) = mpsc::channel();
        let id;
        {
            let mut c = self.control();
            // The last moment a cancelled Launch can leave no trace.
            cancel::check()?;
            c.stepping = true;
            apply_bits(&c, &shm);
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
            c.recorded.clear();
            c.share_group.clear();
            c.shader_stop = None;
            for b in &mut c.breakpoints {
                b.hits = 0;
            }
        }
        self.emit(pb::event::Kind::Running(pb::Empty {}));
        let mut relays = Vec::new();
        if let Some(((out, _), (err, _))) = pipes {
            for (stream, read) in [("stdout", out), ("stderr", err)] {
                let me = self.clone();
                relays.push(
                    std::thread::Builder::new()
                        .name(format!("gldbg-{stream}"))
                        .spawn(move || me.relay_output(stream, read))
                        .map_err(|e| Error::Internal(format!("thread: {e}")))?,
                );
            }
        }
        let me = self.clone();
        std::thread::Builder::new()
            .name("gldbg-events".into())
            .spawn(move || me.event_thread(id, rx, relays))
            .map_err(|e| Error::Internal(format!("thread: {e}")))?;
        let me = self.clone();
        let shm2 = shm.clone();
        std::thread::Builder::new()
            .name("gldbg-stops".into())
            .spawn(move || me.watch_stops(id, shm2))
            .map_err(|e| Error::Internal(format!("thread: {e}")))?;
        // Wait for the first stop; give up waiting (answer RUNNING) if the preload never attaches.
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
                    opts.program,
                    ATTACH_TIMEOUT.as_secs()
                )));
                let c = self.control();
                return Ok(self.state_reply(&c));
            }
            c = self
                .changed
                .wait_timeout(c, Duration::from_millis(200))
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    /// Exits and crashes from the tracer. `relays`: the threads sending the
    /// app's captured output; the exit is reported after the output.
    fn event_thread(
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

    fn finish_launch(&self, id: u64, exit: pb::Exit) {
        let mut c = self.control();
        if c.launched.as_ref().is_some_and(|l| l.id == id) {
            c.state = RunState::Exited;
            c.exit = Some(exit);
            c.current = None;
            c.pending.clear();
            c.shader_stop = None;
            c.paused = None;
            c.launched = None;
            // The app's session ended: its saved shaders go (unless kept).
            drop(self.saved_shaders().take());
        }
        self.changed.notify_all();
    }

    fn saved_shaders(&self) -> MutexGuard<'_, Option<crate::saved_shaders::SessionShaders>> {
        self.saved.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Send what the app writes to `read` as `output` events until the end
    /// of the pipe. A UTF-8 sequence split between reads is kept whole.
    fn relay_output(&self, stream: &str, read: std::os::fd::OwnedFd) {
        use std::io::Read;
        let mut file = std::fs::File::from(read);
        let mut buf = vec![0u8; 64 << 10];
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

    // ----- stops -----

    /// The stop watcher: turns stopped slots into session stops.
    fn watch_stops(self: Arc<Self>, id: u64, shm: Arc<SharedMemory>) {
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
            let now = shm.wait_stop_seq(seen, Duration::from_millis(100));
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
    fn take_stops(&self, id: u64, shm: &SharedMemory) {
        for call in shm.stopped() {
            if call.state != abi::STATE_STOPPED || !claim(&mut self.control().claimed, shm, &call) {
                continue;
            }
            self.new_stop(id, shm, call);
        }
    }

    fn new_stop(&self, id: u64, shm: &SharedMemory, call: StoppedCall) {
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
        };
        let mut hit = 0;
        for b in &mut c.breakpoints {
            if b.kind.matches(&stop) {
                b.hits += 1;
                if hit == 0 {
                    hit = b.id;
                }
            }
        }
        stop.breakpoint_id = hit;
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

    /// Make the next pending stop current; returns its call info.
    fn promote(&self, c: &mut Control) -> Option<pb::CallInfo> {
        let s = c.pending.pop_front()?;
        c.state = RunState::Stopped;
        let info = call_info(&s, None);
        c.current = Some(s);
        Some(info)
    }

    /// Make the next pending stop current without building its report.
    fn promote_quiet(c: &mut Control) -> bool {
        match c.pending.pop_front() {
            Some(s) => {
                c.state = RunState::Stopped;
                c.current = Some(s);
                true
            }
            None => false,
        }
    }

    /// Record a shader call's effect; may execute it (CMD_FINISH) to learn its result.
    fn record(&self, pid: u32, shm: &SharedMemory, call: &StoppedCall) -> Result<Option<u64>> {
        let name = function_name(call.function);
        let a = |i: usize| call.args.get(i).copied().unwrap_or(0);
        let remote = Remote::new(pid);
        let mem = |e: nix::errno::Errno| Error::Internal(format!("reading the app's memory: {e}"));
        match name {
            "glCreateShader" | "glCreateShaderObjectARB" => {
                let ret = self.finish(shm, call)?;
                self.control()
                    .recorded_mut(call.context)
                    .create_shader(ret as u32, a(0) as u32);
                Ok(Some(ret))
            }
            "glShaderSource" | "glShaderSourceARB" => {
                let src = remote.shader_source(a(1) as i32, a(2), a(3)).map_err(mem)?;
                self.control()
                    .recorded_mut(call.context)
                    .shader_source(a(0) as u32, src);
                Ok(None)
            }
            "glAttachShader" | "glAttachObjectARB" => {
                self.control()
                    .recorded_mut(call.context)
                    .attach(a(0) as u32, a(1) as u32);
                Ok(None)
            }
            "glDetachShader" | "glDetachObjectARB" => {
                self.control()
                    .recorded_mut(call.context)
                    .detach(a(0) as u32, a(1) as u32);
                Ok(None)
            }
            "glLinkProgram" | "glLinkProgramARB" => {
                self.control().recorded_mut(call.context).link(a(0) as u32);
                Ok(None)
            }
            // Object names are per share group: a context created sharing
            // with another sees the programs that one built.
            "glXCreateContext"
            | "glXCreateNewContext"
            | "glXCreateContextAttribsARB"
            | "eglCreateContext" => {
                let share = a(if name == "glXCreateNewContext" { 3 } else { 2 });
                let ret = self.finish(shm, call)?;
                self.control().context_created(ret, share);
                Ok(Some(ret))
            }
            "glNamedStringARB" | "glDeleteNamedStringARB" => {
                let (name, text) = if name == "glNamedStringARB" {
                    let text = remote.string(a(4), a(3) as i32).map_err(mem)?;
                    (remote.string(a(2), a(1) as i32).map_err(mem)?, Some(text))
                } else {
                    (remote.string(a(1), a(0) as i32).map_err(mem)?, None)
                };
                self.control()
                    .recorded_mut(call.context)
                    .named_string(name, text);
                Ok(None)
            }
            "glCompileShaderIncludeARB" => {
                let paths = remote.strings(a(1) as i32, a(2), a(3)).map_err(mem)?;
                self.control()
                    .recorded_mut(call.context)
                    .compile_include(a(0) as u32, paths);
                Ok(None)
            }
            "glProgramBinary" | "glProgramBinaryOES" => {
                self.control()
                    .recorded_mut(call.context)
                    .program_binary(a(0) as u32);
                Ok(None)
            }
            "glShaderBinary" => {
                let count = (a(0) as i32).clamp(0, 1024) as usize;
                let ids = remote.read_i32s(a(1), count).map_err(mem)?;
                let ids: Vec<u32> = ids.into_iter().map(|i| i as u32).collect();
                self.control()
                    .recorded_mut(call.context)
                    .shader_binary(&ids);
                Ok(None)
            }
            "glCreateShaderProgramv" => {
                let src = remote.shader_source(a(1) as i32, a(2), 0).map_err(mem)?;
                let ret = self.finish(shm, call)?;
                self.control().recorded_mut(call.context).shader_program(
                    ret as u32,
                    a(0) as u32,
                    src,
                );
                Ok(Some(ret))
            }
            _ => Ok(None),
        }
    }

    fn finish(&self, shm: &SharedMemory, call: &StoppedCall) -> Result<u64> {
        let slot = call.slot;
        let st = shm.command_at(slot, call.stop_id, abi::CMD_FINISH, CMD_TIMEOUT)?;
        if st != abi::STATUS_OK {
            return Err(Error::Internal(format!(
                "CMD_FINISH failed with status {st}"
            )));
        }
        Ok(shm.header().slots[slot].ret.load(Ordering::Acquire))
    }

    // ----- state -----

    fn state_reply(&self, c: &Control) -> pb::StateReply {
        let state = match c.state {
            RunState::NotStarted => pb::RunState::NotStarted,
            RunState::Running => pb::RunState::Running,
            RunState::Stopped => pb::RunState::Stopped,
            RunState::Exited => pb::RunState::Exited,
        };
        pb::StateReply {
            state: state as i32,
            stop: c
                .current
                .as_ref()
                .filter(|_| c.state == RunState::Stopped)
                .map(|s| call_info(s, None))
                .or_else(|| c.paused.clone().filter(|_| c.state == RunState::Stopped)),
            exit: c.exit.clone().filter(|_| c.state == RunState::Exited),
            breakpoint_id: c.current.as_ref().map_or(0, |s| s.breakpoint_id),
            shader: c.shader_stop.clone(),
            crash: c.crash.clone(),
        }
    }

    pub fn get_state(&self) -> pb::StateReply {
        let c = self.control();
        self.state_reply(&c)
    }

    /// The current stop, its shared memory and pid; FailedPrecondition unless stopped.
    fn stopped(&self) -> Result<(Stop, Arc<SharedMemory>, u32)> {
        let c = self.control();
        stopped_in(&c)
    }

    // ----- resuming -----

    fn wait_not_running(&self) -> pb::StateReply {
        let mut c = self.control();
        loop {
            if c.state != RunState::Running {
                return self.state_reply(&c);
            }
            c = self.changed.wait(c).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Let the current call go with `cmd` (continue or skip) and wait for the next stop or the exit.
    fn resume(&self, cmd: u32, step: bool) -> Result<pb::StateReply> {
        if let Some(r) = self.resume_paused(cmd, step)? {
            return Ok(r);
        }
        let mut dbg = self.debug_lock();
        let (slot, shm, released, release_gl) = {
            let mut c = self.control();
            let (stop, shm, _) = stopped_in(&c)?;
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
                        if p.breakpoint_id != 0 {
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
        self.emit(pb::event::Kind::Running(pb::Empty {}));
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
            return Err(Error::Internal(format!(
                "the app did not take the command: {e}"
            )));
        }
        Ok(self.wait_not_running())
    }

    /// Resume an app held by `pause` (every thread); None if it is not paused.
    fn resume_paused(&self, cmd: u32, step: bool) -> Result<Option<pb::StateReply>> {
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
            l.tracer.resume().map_err(Error::Internal)?;
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

    /// Stop a running app wherever it is: every thread is held in a ptrace
    /// stop (PTRACE_INTERRUPT); the state becomes STOPPED with a `paused`
    /// CallInfo naming a thread (the GL process's main thread when it is
    /// traced) and its instruction pointer. `continue`/`step` resume.
    pub fn pause(&self) -> Result<pb::StateReply> {
        let mut c = self.control();
        require_state(&c, RunState::Running)?;
        let Some(l) = &c.launched else {
            return Err(Error::not_launched());
        };
        cancel::check()?;
        let pid = app_pid(l);
        // The tracer never takes this lock; holding it keeps stops from being promoted meanwhile.
        let report = l.tracer.pause(pid).map_err(Error::Internal)?;
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

    pub fn continue_(&self) -> Result<pb::StateReply> {
        self.resume(abi::CMD_CONTINUE, false)
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
    fn step_loop(&self, count: u64) -> Result<pb::StateReply> {
        let (id, shm) = {
            let mut dbg = self.debug_lock();
            let mut c = self.control();
            let (_, shm, _) = stopped_in(&c)?;
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
                let Ok((stop, _, _)) = stopped_in(&c) else {
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
            return Err(Error::Internal(format!(
                "the app did not take the command: {e}"
            )));
        }
        Ok(reply)
    }

    /// Wait (in `step_loop`) until the session is no longer running: the
    /// next stop taken (here, or pending from another thread) or the exit.
    fn await_stop(&self, id: u64, shm: &SharedMemory) {
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
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut c = self.control();
        while c.launched.is_some() && Instant::now() < deadline {
            c = self
                .changed
                .wait_timeout(c, Duration::from_millis(100))
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
                l.tracer.resume().map_err(Error::Internal)?;
                c.paused = None;
            }
            c.stepping = false;
            shm.set_step_all(false);
            shm.set_check_errors(false);
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
        r.map_err(Error::Internal)?;
        Ok(self.wait_not_running())
    }

    // ----- breakpoints -----

    pub fn add_breakpoint(&self, kind: BreakKind) -> pb::Breakpoint {
        let mut c = self.control();
        let id = c.next_breakpoint;
        c.next_breakpoint += 1;
        c.breakpoints.push(Breakpoint { id, kind, hits: 0 });
        if let Some(l) = &c.launched
            && !c.stepping
        {
            apply_bits(&c, &l.shm);
        }
        pb::Breakpoint {
            id,
            description: kind.describe(),
            hits: 0,
        }
    }

    pub fn delete_breakpoint(&self, id: u32) -> Result<pb::BreakpointList> {
        let mut c = self.control();
        if id == 0 {
            c.breakpoints.clear();
        } else if c.breakpoints.iter().any(|b| b.id == id) {
            c.breakpoints.retain(|b| b.id != id);
        } else {
            return Err(Error::InvalidArgument(format!("no breakpoint {id}")));
        }
        if let Some(l) = &c.launched
            && !c.stepping
        {
            apply_bits(&c, &l.shm);
        }
        Ok(breakpoint_list(&c))
    }

    pub fn list_breakpoints(&self) -> pb::BreakpointList {
        breakpoint_list(&self.control())
    }

    // ----- GL-level inspection -----

    pub fn info_call(&self) -> Result<pb::CallInfo> {
        let (stop, _, pid) = self.stopped()?;
        Ok(call_info(&stop, Some(Remote::new(pid))))
    }

    /// `set arg I VALUE`, or with `element` K, `set arg I[K] VALUE`: write
    /// element K of the array argument I points at, in the app's memory
    /// (process_vm_writev), typed by the pointee of the parameter.
    pub fn set_arg(&self, index: u32, element: Option<u32>, value: &str) -> Result<pb::CallInfo> {
        let mut c = self.control();
        let (stop, shm, pid) = stopped_in(&c)?;
        if stop.ret.is_some() {
            return Err(Error::FailedPrecondition(
                "the call was already executed".into(),
            ));
        }
        cancel::check()?;
        let f = &FUNCTIONS[stop.function as usize];
        let Some(param) = f.params.get(index as usize) else {
            return Err(Error::InvalidArgument(format!(
                "{} has {} arguments (0-based index {index})",
                f.name,
                f.params.len()
            )));
        };
        if let Some(k) = element {
            let Some(elem) = pointee::elem_of(param) else {
                return Err(Error::InvalidArgument(format!(
                    "argument {index} of {} ({} {}) is not a pointer to numbers",
                    f.name, param.c_type, param.name
                )));
            };
            let addr = stop.args.get(index as usize).copied().unwrap_or(0);
            if addr == 0 {
                return Err(Error::InvalidArgument(format!("argument {index} is NULL")));
            }
            if let Some(n) = pointee::element_count(f, index as usize, &stop.args)
                && k as usize >= n
            {
                return Err(Error::InvalidArgument(format!(
                    "element {k} is out of range: argument {index} points at {n} elements"
                )));
            }
            let bytes = elem.parse(value).map_err(Error::InvalidArgument)?;
            // The element is the client's number: past the address space or
            // outside the app's mappings is its error, not ours.
            let at = (u64::from(k) * elem.size() as u64)
                .checked_add(addr)
                .ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "element {k} of argument {index} is past the end of the address space"
                    ))
                })?;
            Remote::new(pid).write(at, &bytes).map_err(|e| match e {
                nix::errno::Errno::EFAULT => Error::InvalidArgument(format!(
                    "element {k} of argument {index} ({at:#x}) is not in the app's memory"
                )),
                e => Error::Internal(format!("writing the app's memory: {e}")),
            })?;
            return Ok(call_info(&stop, Some(Remote::new(pid))));
        }
        let word = format::parse_arg(param, value).map_err(Error::InvalidArgument)?;
        shm.set_arg(stop.slot, index as usize, word);
        let cur = c.current.as_mut().expect("stopped");
        if let Some(a) = cur.args.get_mut(index as usize) {
            *a = word;
        }
        let cur = cur.clone();
        Ok(call_info(&cur, Some(Remote::new(pid))))
    }

    /// `info state [NAME]`: GL state read on the stopped thread (one name,
    /// or the common table of [`glstate::COMMON`]).
    pub fn info_state(&self, name: &str) -> Result<pb::GlState> {
        use gldbg_proto::shm::{StateQuery, StateRequest, StateValue};
        let _dbg = self.debug_lock();
        let (stop, shm, _) = self.stopped()?;
        let queries: Vec<(glstate::StateName, u32)> = if name.trim().is_empty() {
            glstate::COMMON
                .iter()
                .filter_map(|e| Some((*e, api::gl_enum_value(e.name)?)))
                .collect()
        } else {
            vec![glstate::lookup(name).ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "{} is not a GL enum name",
                    crate::error::quote(name.trim())
                ))
            })?]
        };
        let first = (abi::BULK_REQUEST + size_of::<StateRequest>() + 7) & !7;
        for (i, (e, value)) in queries.iter().enumerate() {
            shm.write_struct(
                first + i * size_of::<StateQuery>(),
                &StateQuery {
                    name: *value,
                    kind: e.kind,
                    count: e.count,
                    _pad: 0,
                },
            );
        }
        shm.write_struct(
            abi::BULK_REQUEST,
            &StateRequest {
                count: queries.len() as u32,
                _pad: 0,
            },
        );
        let st = shm.command(stop.slot, abi::CMD_QUERY_STATE, CMD_TIMEOUT)?;
        check_status("CMD_QUERY_STATE", st, |st| {
            Error::Internal(format!("reading GL state failed (status {st})"))
        })?;
        let values = queries
            .iter()
            .enumerate()
            .map(|(i, (e, _))| {
                let v: StateValue = shm.read_struct(abi::BULK_REPLY + i * size_of::<StateValue>());
                let n = (v.count as usize).min(v.values.len());
                pb::GlStateValue {
                    name: e.name.to_string(),
                    values: if v.error == 0 {
                        v.values[..n].to_vec()
                    } else {
                        Vec::new()
                    },
                    error: if v.error == 0 {
                        String::new()
                    } else {
                        api::gl_enum_name(v.error, "ErrorCode")
                            .map_or_else(|| format!("{:#x}", v.error), str::to_string)
                    },
                }
            })
            .collect();
        Ok(pb::GlState { values })
    }

    /// Ask the preload for the current program and combine with recorded sources.
    /// The current program's description, its stages' sources and, when
    /// some source is unknown because the app loaded a binary, why.
    fn query_program(&self) -> Result<(ProgramText, Vec<StageSource>, Option<String>)> {
        let (stop, shm, _) = self.stopped()?;
        let st = shm.command(stop.slot, abi::CMD_QUERY_PROGRAM, CMD_TIMEOUT)?;
        if st == abi::STATUS_NO_PROGRAM {
            // A program whose glProgramBinary failed (under gldbg, always)
            // and that the app never linked from source cannot be current.
            let c = self.control();
            let loaded = c
                .recorded
                .get(&stop.context)
                .and_then(Recorded::unlinked_binary_note);
            if let Some(note) = loaded {
                return Err(Error::FailedPrecondition(format!(
                    "no program is current: {note}"
                )));
            }
        }
        check_status("CMD_QUERY_PROGRAM", st, |st| {
            Error::Internal(format!("querying the program failed (status {st})"))
        })?;
        let reply: ProgramReply = shm.read_struct(abi::BULK_REPLY);
        let text = program::parse_program_text(&shm.read_bytes(reply.text));
        let c = self.control();
        let none = Recorded::default();
        let recorded = c.recorded.get(&c.share_root(stop.context)).unwrap_or(&none);
        // The sources the app linked (a pipeline: each stage program's),
        // else the attached shaders' as recorded or as the driver has them.
        let mut stages: Vec<StageSource> = Vec::new();
        for program in &text.programs {
            if let Some(linked) = recorded.linked.get(program) {
                stages.extend(linked.iter().cloned());
            }
        }
        // A stage may be several shader objects: all of them.
        let linked_types: Vec<u32> = stages.iter().map(|s| s.gl_type).collect();
        for (id, ty) in &text.shaders {
            if linked_types.contains(ty) {
                continue;
            }
            let shader = recorded.shaders.get(id);
            let rec = shader.and_then(|s| s.source.clone());
            // A shader loaded with glShaderBinary has no GLSL: what a
            // driver answers for its source (NVIDIA: the SPIR-V words) is
            // not one.
            let binary = recorded.binary_shaders.contains(id);
            let source = rec
                .clone()
                .or_else(|| text.sources.get(id).cloned().filter(|_| !binary))
                .unwrap_or_default();
            let paths = shader.map_or(&[][..], |s| &s.search_paths[..]);
            stages.push(StageSource {
                id: *id,
                gl_type: *ty,
                recorded: rec.is_some(),
                includes: recorded.includes(&source, paths),
                source,
            });
        }
        let shaders: Vec<u32> = text.shaders.iter().map(|s| s.0).collect();
        let unknown = stages.is_empty() || stages.iter().any(|s| s.source.is_empty());
        let note = unknown
            .then(|| recorded.binary_note(&text.programs, &shaders))
            .flatten();
        Ok((text, stages, note))
    }

    pub fn info_program(&self) -> Result<pb::ProgramInfo> {
        let _dbg = self.debug_lock();
        let (text, stages, note) = self.query_program()?;
        let var = |v: &program::ProgramVariable| pb::Variable {
            name: v.name.clone(),
            r#type: program::glsl_type_name(v.gl_type),
            size: v.size,
            location: v.location,
            value: v.value.clone(),
            index: 0,
            block: v.block.clone(),
        };
        Ok(pb::ProgramInfo {
            note: note.unwrap_or_default(),
            program: text.program,
            shaders: stages
                .iter()
                .map(|s| pb::ShaderInfo {
                    stage: program::stage_name(s.gl_type),
                    id: s.id,
                    version: program::glsl_version(&s.source),
                    source: s.source.clone(),
                    recorded: s.recorded,
                })
                .collect(),
            uniforms: text.uniforms.iter().map(var).collect(),
            attributes: text.attributes.iter().map(var).collect(),
            outputs: text
                .outputs
                .iter()
                .map(|(n, l, i)| pb::Variable {
                    name: n.clone(),
                    r#type: String::new(),
                    size: 1,
                    location: *l,
                    value: String::new(),
                    index: *i,
                    block: String::new(),
                })
                .collect(),
        })
    }

    // ----- shader debugging -----

    pub fn debug_shader(&self, request: &pb::DebugShaderRequest) -> Result<pb::ShaderStop> {
        let fragment_options = FragmentOptions::from_request(request)?;
        let stage = request.stage.trim();
        let stage = Stage::from_name(stage).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "unknown stage {:?} (vertex, tess-control, tess-eval, geometry, fragment, compute)",
                crate::error::quote(stage)
            ))
        })?;
        let mut dbg = self.debug_lock();
        let (stop, shm, _) = self.stopped()?;
        cancel::check()?;
        if dbg.as_ref().is_some_and(|d| d.stop_serial != stop.serial) {
            // A new draw: the last one's probes go first (the GL objects
            // stay for this one).
            self.release_debug(&mut dbg, Some(&shm), None);
        }
        let at = function_name(stop.function);
        match stage {
            Stage::Compute if class_of(stop.function) & class::DISPATCH == 0 => {
                return Err(Error::FailedPrecondition(format!(
                    "not stopped at a compute dispatch (stopped at {at}); use `break glDispatchCompute` and `continue`"
                )));
            }
            Stage::Compute => {}
            _ if class_of(stop.function) & class::DRAW == 0 => {
                return Err(Error::FailedPrecondition(format!(
                    "not stopped at a draw call (stopped at {at}); use `break draw` and `continue`"
                )));
            }
            _ if stop.draw == 0 => {
                return Err(Error::FailedPrecondition(format!(
                    "{at} draws nothing here (it is compiled into a display list, or calls \
                     lists that draw nothing); use `break draw` and `continue`"
                )));
            }
            _ => {}
        }
        let (text, stages, note) = self.query_program()?;
        let because = note.map_or(String::new(), |n| format!(": {n}"));
        let model = stage_model(&stages, stage, text.api, &because)?;
        // The other stages are compiled with `glCompileShader`: their
        // `#include`s spliced in.
        let others: Vec<StageSource> = stages
            .iter()
            .filter(|s| s.gl_type != stage.gl_enum())
            .map(|s| StageSource {
                source: glsl_instrument::splice_includes(&s.source, &s.includes, text.api)
                    .unwrap_or_else(|_| s.source.clone()),
                ..s.clone()
            })
            .collect();
        let mut runner = StepRunner {
            session: self,
            shm: &shm,
            slot: stop.slot,
            stage,
            others: &others,
            fragment_options,
        };
        // A non-indexed draw's vertices are gl_VertexID - first (plus whole
        // instances): the vertex shader can write them in place.
        let vertex_buffer =
            stage == Stage::Vertex && at.starts_with("glDrawArrays") && !at.contains("Indirect");
        let mut d = ShaderDebug::start(model, stop.serial, vertex_buffer, &mut runner)?;
        d.others = others;
        d.fragment_options = fragment_options;
        let s = d.stop_with_timing();
        *dbg = Some(d);
        self.control().shader_stop = Some(s.clone());
        Ok(s)
    }

    /// Run `f` on the active shader debug state with a probe runner for the current stop.
    fn with_debug<T>(
        &self,
        f: impl FnOnce(&mut ShaderDebug, &mut dyn ProbeRunner) -> Result<T>,
    ) -> Result<T> {
        let mut dbg = self.debug_lock();
        let Some(d) = dbg.as_mut() else {
            return Err(Error::FailedPrecondition(
                "not debugging a shader (use `debug fragment` at a draw call)".into(),
            ));
        };
        let (stop, shm, _) = self.stopped()?;
        if stop.serial != d.stop_serial {
            self.release_debug(&mut dbg, Some(&shm), None);
            self.control().shader_stop = None;
            return Err(Error::FailedPrecondition(
                "the app moved on from the draw call that was being debugged".into(),
            ));
        }
        cancel::check()?;
        let others = d.others.clone();
        let mut runner = StepRunner {
            session: self,
            shm: &shm,
            slot: stop.slot,
            stage: d.model.stage(),
            others: &others,
            fragment_options: d.fragment_options,
        };
        // Each command reports the cost of its own probes.
        let _ = d.take_timing();
        let r = f(d, &mut runner);
        let s = d.stop();
        self.control().shader_stop = Some(s);
        r
    }

    pub fn shader_step(&self, mode: StepMode, count: u64) -> Result<pb::ShaderStop> {
        self.with_debug(|d, r| {
            for _ in 0..count.max(1) {
                if !d.step_once(mode, r)? {
                    break;
                }
            }
            Ok(d.stop_with_timing())
        })
    }

    pub fn shader_continue(&self) -> Result<pb::ShaderStop> {
        self.with_debug(|d, r| {
            d.continue_to_breakpoint(r)?;
            Ok(d.stop_with_timing())
        })
    }

    pub fn shader_break(&self, line: u32) -> Result<pb::ShaderBreakpoints> {
        self.with_debug(|d, _| {
            d.add_breakpoint(line)?;
            Ok(pb::ShaderBreakpoints {
                lines: d.breakpoints.iter().copied().collect(),
            })
        })
    }

    pub fn shader_delete_break(&self, line: u32) -> Result<pb::ShaderBreakpoints> {
        self.with_debug(|d, _| {
            if line == 0 {
                d.breakpoints.clear();
            } else if !d.breakpoints.remove(&line) {
                return Err(Error::InvalidArgument(format!(
                    "no shader breakpoint on line {line}"
                )));
            }
            Ok(pb::ShaderBreakpoints {
                lines: d.breakpoints.iter().copied().collect(),
            })
        })
    }

    pub fn shader_list(&self, line: u32, context: u32) -> Result<pb::SourceListing> {
        self.with_debug(|d, _| d.listing(line, context))
    }

    pub fn print(&self, expr: &str, at: Option<pb::Invocation>) -> Result<pb::PrintReply> {
        if expr.trim().is_empty() {
            return Err(Error::InvalidArgument("print needs an expression".into()));
        }
        self.with_debug(|d, r| {
            let stage = d.model.stage();
            if let Some(pb::invocation::Kind::Primitive(n)) = at.as_ref().and_then(|a| a.kind) {
                return print_primitive(d, r, expr, n, at);
            }
            let cell = invocation_cell(stage, at.as_ref())?;
            let pos = d.pos.clone();
            // One invocation or a GPU summary where it can (shader/readback.rs).
            let mode = d.print_mode(expr, cell, TABLE_ROWS as u32);
            let value = d.probe_value_as(&pos, expr, &mode, r)?;
            let res = value.first();
            let ty = value.ty.clone();
            match cell {
                Some((x, y, z)) => {
                    let Some(index) = res.index((x, y, z)) else {
                        return Err(Error::InvalidArgument(outside(
                            stage,
                            (x, y, z),
                            res.extent(),
                        )));
                    };
                    let v = value.value_at(index);
                    // Once finished, a fragment that ran main but did not
                    // reach its end was discarded.
                    let discarded = v.is_none()
                        && stage == Stage::Fragment
                        && d.end_coverage(r)?
                            .is_some_and(|end| !end.reached_at((x, y, z)))
                        && {
                            let entry = d.model.entry();
                            d.probe(&entry, None, r)?.reached_at((x, y, z))
                        };
                    Ok(pb::PrintReply {
                        expr: expr.to_string(),
                        r#type: ty,
                        value: v.clone().unwrap_or_default(),
                        reached: v.is_some(),
                        at,
                        summary: None,
                        timing: d.take_timing(),
                        emitted: Vec::new(),
                        table: Vec::new(),
                        parts: value.reply_parts(),
                        discarded,
                        undefined: match v {
                            Some(_) => value.undefined_at(index),
                            None => Vec::new(),
                        },
                        written_unknown: value.written_unknown(),
                    })
                }
                None => {
                    let (st, undefined) = value.stats();
                    // Vertex-like stages also get a table of their first vertices.
                    let table = match stage {
                        Stage::Fragment | Stage::Compute => Vec::new(),
                        _ => (0..res.coverage.len().min(TABLE_ROWS))
                            .map(|i| {
                                let v = value.value_at(i);
                                pb::TableRow {
                                    vertex: i as u32,
                                    reached: v.is_some(),
                                    undefined: match v {
                                        Some(_) => value.undefined_at(i),
                                        None => Vec::new(),
                                    },
                                    value: v.unwrap_or_default(),
                                }
                            })
                            .collect(),
                    };
                    let entry = d.model.entry();
                    let ran = d.probe(&entry, None, r)?;
                    let total = ran.reached();
                    // Once finished: fragments that ran main but did not
                    // reach its end (a return or its last statement).
                    let discarded = match (stage, d.end_coverage(r)?) {
                        (Stage::Fragment, Some(end)) => ran
                            .coverage
                            .iter()
                            .zip(&end.coverage)
                            .filter(|(a, b)| **a != 0 && **b == 0)
                            .count() as u64,
                        _ => 0,
                    };
                    Ok(pb::PrintReply {
                        expr: expr.to_string(),
                        r#type: ty,
                        value: Vec::new(),
                        reached: st.count > 0,
                        at: None,
                        summary: Some(pb::Summary {
                            count: st.count + undefined,
                            min: st.min,
                            max: st.max,
                            nan: st.nan,
                            inf: st.inf,
                            total,
                            discarded,
                            undefined,
                        }),
                        timing: d.take_timing(),
                        emitted: Vec::new(),
                        table,
                        parts: value.reply_parts(),
                        written_unknown: value.written_unknown(),
                        ..Default::default()
                    })
                }
            }
        })
    }

    /// `dump`: the value of `expr` over every invocation as an NPY file or
    /// as a PNG drawn with `png` (the range it mapped comes back).
    pub fn dump(&self, expr: &str, npy: bool, png: PngOptions) -> Result<pb::DumpReply> {
        if expr.trim().is_empty() {
            return Err(Error::InvalidArgument("dump needs an expression".into()));
        }
        if npy && png != PngOptions::default() {
            return Err(Error::InvalidArgument(
                "range= and colormap= are for .png dumps (a .npy file holds the values)".into(),
            ));
        }
        if let Some((lo, hi)) = png.range
            && !(lo.is_finite() && hi.is_finite() && lo < hi)
        {
            return Err(Error::InvalidArgument(format!(
                "range={lo},{hi}: the range needs two finite numbers, the first below the second"
            )));
        }
        self.with_debug(|d, r| {
            let pos = d.pos.clone();
            let value = d.probe_value(&pos, expr, r)?;
            if value.is_composite() {
                return Err(Error::InvalidArgument(format!(
                    "dump draws one scalar or vector per invocation; `{expr}` is a {} in parts \
                     {}: dump one of them, e.g. `({expr}){}`",
                    value.ty,
                    value.part_paths().join(" "),
                    value.part_paths()[0],
                )));
            }
            let (mut field, ty) = value.first().field();
            if png.viridis && field.components != 1 {
                return Err(Error::InvalidArgument(format!(
                    "colormap=viridis draws a scalar; `{expr}` is a {ty}: dump one component, \
                     e.g. `({expr}).x`"
                )));
            }
            // A value not written yet is no value: drawn as uncovered.
            let mut undefined = 0;
            for (i, v) in field.values.iter_mut().enumerate() {
                if v.is_some() && !value.undefined_at(i).is_empty() {
                    *v = None;
                    undefined += 1;
                }
            }
            let mut reply = pb::DumpReply {
                width: field.width,
                height: field.height,
                r#type: ty,
                reached: field.stats().count,
                undefined,
                written_unknown: value.written_unknown(),
                ..Default::default()
            };
            if npy {
                reply.data = field.to_npy();
            } else {
                let image = field.render_png(&png).map_err(Error::Internal)?;
                reply.data = image.data;
                reply.mapped_min = image.mapped.iter().map(|r| r.0).collect();
                reply.mapped_max = image.mapped.iter().map(|r| r.1).collect();
                reply.legend_width = image.legend_width;
            }
            Ok(reply)
        })
    }

    pub fn end_debug(&self) -> Result<pb::StateReply> {
        let mut dbg = self.debug_lock();
        if dbg.is_none() {
            return Err(Error::FailedPrecondition("not debugging a shader".into()));
        }
        cancel::check()?;
        match self.stopped() {
            Ok((stop, shm, _)) => self.release_debug(&mut dbg, Some(&shm), Some(stop.slot)),
            Err(_) => self.release_debug(&mut dbg, None, None),
        };
        let mut c = self.control();
        c.shader_stop = None;
        Ok(self.state_reply(&c))
    }

    /// `focus`: steps follow the invocation `at` (None: any invocation).
    pub fn focus(&self, at: Option<pb::Invocation>) -> Result<pb::ShaderStop> {
        self.with_debug(|d, r| {
            let Some(at) = at else {
                d.focus = None;
                return Ok(d.stop());
            };
            let stage = d.model.stage();
            let pos = d.pos.clone();
            if let Some(pb::invocation::Kind::Primitive(n)) = at.kind {
                if stage != Stage::Geometry {
                    return Err(Error::InvalidArgument(format!(
                        "`focus primitive N` follows an input primitive of a geometry shader, \
                         not of a {} shader",
                        stage.name()
                    )));
                }
                if d.probe(&pos, None, r)?.emitted_by(n).is_empty() {
                    return Err(Error::InvalidArgument(format!(
                        "input primitive {n} emitted no vertex at this step"
                    )));
                }
                d.focus = Some((Focus::Primitive(n), at));
                return Ok(d.stop_with_timing());
            }
            let Some(cell) = invocation_cell(stage, Some(&at))? else {
                return Err(Error::InvalidArgument("focus needs an invocation".into()));
            };
            let res = d.probe(&pos, None, r)?;
            if res.index(cell).is_none() {
                return Err(Error::InvalidArgument(outside(stage, cell, res.extent())));
            }
            d.focus = Some((Focus::Cell(cell), at));
            Ok(d.stop_with_timing())
        })
    }

    /// `info flow`: branch sides or loop iterations at the current step.
    pub fn info_flow(&self) -> Result<pb::FlowInfo> {
        self.with_debug(|d, r| d.flow(r))
    }

    /// Save a rejected debug shader and its log; returns the error for the RPC.
    fn rejected_shader(&self, what: &str, stage: Stage, source: &str, log: &str) -> Error {
        let n = self.rejected.fetch_add(1, Ordering::Relaxed) + 1;
        let saved = match self.saved_shaders().as_ref() {
            Some(s) => s.save(n, file_extension(stage), source, log),
            None => Err(std::io::Error::other("the app's session has ended")),
        };
        let mut head: Vec<&str> = log
            .lines()
            .filter(|l| l.to_lowercase().contains("error"))
            .take(3)
            .collect();
        if head.is_empty() {
            head = log
                .lines()
                .filter(|l| !l.trim().is_empty())
                .take(3)
                .collect();
        }
        let msg = match saved {
            Ok((src_path, log_path)) => format!(
                "the driver rejected the debug shader ({what}): {}; generated source saved to {}, driver log to {}{}",
                head.join(" | "),
                src_path.display(),
                log_path.display(),
                crate::saved_shaders::lifetime_note()
            ),
            Err(e) => format!(
                "the driver rejected the debug shader ({what}): {}; could not save it: {e}",
                head.join(" | "),
            ),
        };
        self.emit(pb::event::Kind::Warning(msg.clone()));
        Error::Internal(msg)
    }
}

/// How a process ended, as `Exit::description` says it.
fn exit_description(code: Option<i32>, signal: Option<i32>) -> String {
    match (code, signal) {
        (Some(c), _) => format!("exited with code {c}"),
        (None, Some(s)) => format!("killed by {}", launch::signal_name(s)),
        (None, None) => "exited".to_string(),
    }
}

/// Sends a debug step command (`CMD_FRAGMENT_STEP`, `CMD_VERTEX_STEP`) for
/// one instrumented shader and reads the result: fragments as an image of
/// the framebuffer, vertices as a `vertices`×1 image (vertex N at x = N).
struct StepRunner<'a> {
    session: &'a Session,
    shm: &'a SharedMemory,
    slot: usize,
    /// The stage being debugged (the instrumented shader's).
    stage: Stage,
    others: &'a [StageSource],
    fragment_options: FragmentOptions,
}

/// The loop path of a request: the uniform's name (pushed), its length and
/// values (`check_request` bounds the length).
fn push_path(
    w: &mut crate::shm::BulkWriter<'_>,
    inst: &Instrumented,
    path: &[u32],
    len: &mut u32,
    values: &mut [i32; abi::MAX_PATH],
) -> BulkRef {
    let Some(u) = &inst.path_uniform else {
        return BulkRef::default();
    };
    *len = path.len().min(abi::MAX_PATH) as u32;
    for (v, it) in values.iter_mut().zip(path) {
        *v = *it as i32;
    }
    w.push(u.as_bytes())
}

/// A GLSL ES fragment shader of the app's fragment shader's version that
/// reads nothing (None for desktop GLSL, where the preload links none):
/// GL ES fails a link where a fragment input has no matching output, and
/// a vertex or tess-eval step leaves out the stages that write them.
fn placeholder_fragment(app_fragment: &str) -> Option<String> {
    let version = program::glsl_version(app_fragment);
    match version.as_str() {
        "" | "100" => {
            let line = if version.is_empty() {
                String::new()
            } else {
                "#version 100\n".into()
            };
            Some(format!(
                "{line}precision mediump float;\nvoid main() {{\n    gl_FragColor = vec4(0.0);\n}}\n"
            ))
        }
        v if v.ends_with(" es") => Some(format!(
            "#version {v}\nprecision mediump float;\nlayout(location = 0) out vec4 gldbg_fragment;\n\
             void main() {{\n    gldbg_fragment = vec4(0.0);\n}}\n"
        )),
        _ => None,
    }
}

/// The model of the stage's shader object that defines `main`, its other
/// shader objects (functions it calls) as siblings, `#include`s spliced:
/// the debug program compiles them as the instrumenter rewrote them.
fn stage_model(
    stages: &[StageSource],
    stage: Stage,
    api: glsl_instrument::Api,
    because: &str,
) -> Result<ShaderModel> {
    let mine: Vec<&StageSource> = stages
        .iter()
        .filter(|s| s.gl_type == stage.gl_enum())
        .collect();
    if mine.is_empty() {
        return Err(Error::FailedPrecondition(format!(
            "the current program has no {} shader{because}",
            stage.name()
        )));
    }
    if mine.iter().any(|s| s.source.is_empty()) {
        return Err(Error::FailedPrecondition(format!(
            "the {} shader's source is unknown{because}",
            stage.name()
        )));
    }
    let parse = |s: &StageSource| {
        ShaderModel::parse_with(&s.source, stage, &s.includes, api)
            .map_err(|e| Error::InvalidArgument(format!("{} shader {e}", stage.name())))
    };
    // The first object that parses with a `main`; a single one as it is
    // (its parse error, or its missing `main`, is reported).
    let mut chosen = None;
    if mine.len() > 1 {
        for (i, s) in mine.iter().enumerate() {
            if let Ok(m) = parse(s)
                && m.has_main()
            {
                chosen = Some((i, m));
                break;
            }
        }
    }
    let (index, mut model) = match chosen {
        Some(c) => c,
        None => (0, parse(mine[0])?),
    };
    let siblings: Vec<String> = mine
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != index)
        .map(|(_, s)| {
            glsl_instrument::splice_includes(&s.source, &s.includes, api)
                .unwrap_or_else(|_| s.source.clone())
        })
        .collect();
    model.set_siblings(siblings);
    Ok(model)
}

/// Where a fragment debug output goes, for the preload's executor.
fn output_ref(w: &mut crate::shm::BulkWriter<'_>, slot: &OutputSlot) -> Result<OutputRef> {
    match slot {
        OutputSlot::Named(n) => Ok(OutputRef {
            frag_data_index: -1,
            _pad: 0,
            name: w.push(n.as_bytes()),
        }),
        OutputSlot::FragData(i) => Ok(OutputRef {
            frag_data_index: *i as i32,
            _pad: 0,
            name: BulkRef::default(),
        }),
        other => Err(Error::Internal(format!(
            "a fragment step got a debug output of another stage: {other:?}"
        ))),
    }
}

impl ProbeRunner for StepRunner<'_> {
    fn run(&mut self, inst: &Instrumented, path: &[u32], components: u32) -> Result<ProbeResult> {
        self.run_as(inst, path, components, &ReadMode::All)
    }

    fn run_as(
        &mut self,
        inst: &Instrumented,
        path: &[u32],
        components: u32,
        mode: &ReadMode,
    ) -> Result<ProbeResult> {
        let want = components > 0;
        match self.stage {
            Stage::Fragment => self.fragment(inst, path, components, mode),
            Stage::Vertex | Stage::TessEval | Stage::Geometry => {
                self.vertex(inst, path, want, mode)
            }
            Stage::Compute | Stage::TessControl => self.compute(inst, path, want, mode),
        }
    }
}

impl StepRunner<'_> {
    /// The loop path and the shaders, checked against the ABI's limits.
    fn check_request(&self, path: &[u32]) -> Result<()> {
        if path.len() > abi::MAX_PATH {
            return Err(Error::Unimplemented(format!(
                "loops nested deeper than {} levels",
                abi::MAX_PATH
            )));
        }
        if self.others.len() + 1 > 6 {
            return Err(Error::Internal("too many shader stages".into()));
        }
        Ok(())
    }

    /// The shader objects fit the request (the instrumented one, its
    /// siblings, the other stages').
    fn check_count(&self, inst: &Instrumented) -> Result<()> {
        let n = self.others.len() + 1 + inst.siblings.len();
        if n > 6 {
            return Err(Error::Unimplemented(format!(
                "programs of more than 6 shader objects (this one has {n})"
            )));
        }
        Ok(())
    }

    /// Write the instrumented shader and the program's other stages.
    fn push_shaders(
        &self,
        w: &mut crate::shm::BulkWriter<'_>,
        inst: &Instrumented,
        shaders: &mut [ShaderRef; 6],
    ) -> u32 {
        shaders[0] = ShaderRef {
            gl_type: self.stage.gl_enum(),
            _pad: 0,
            source: w.push(inst.source.as_bytes()),
        };
        let mut n = 1;
        for sib in &inst.siblings {
            if n < shaders.len() {
                shaders[n] = ShaderRef {
                    gl_type: self.stage.gl_enum(),
                    _pad: 0,
                    source: w.push(sib.as_bytes()),
                };
                n += 1;
            }
        }
        for s in self.others.iter() {
            if n >= shaders.len() {
                break;
            }
            // A replay without rasterization links a fragment shader only
            // in GL ES, which needs one: a placeholder, so the app's inputs
            // need no outputs of the stages the step leaves out.
            let placeholder = (self.stage != Stage::Fragment
                && s.gl_type == Stage::Fragment.gl_enum())
            .then(|| placeholder_fragment(&s.source))
            .flatten();
            let source = placeholder.as_deref().unwrap_or(&s.source);
            shaders[n] = ShaderRef {
                gl_type: s.gl_type,
                _pad: 0,
                source: w.push(source.as_bytes()),
            };
            n += 1;
        }
        n as u32
    }

    /// The outcome of a debug step command: the driver's rejection becomes
    /// a saved source and log, other failures an error with the preload's log.
    fn check_step(&self, command: &str, st: u32, inst: &Instrumented, log: BulkRef) -> Result<()> {
        let log = || String::from_utf8_lossy(&self.shm.read_bytes(log)).into_owned();
        match st {
            abi::STATUS_OK => Ok(()),
            abi::STATUS_COMPILE_FAILED => {
                Err(self
                    .session
                    .rejected_shader("compile", self.stage, &inst.source, &log()))
            }
            abi::STATUS_LINK_FAILED => {
                // Each shader compiled: the program did not link. Say which
                // shaders met there (the others are the app's own).
                let others: Vec<String> = self
                    .others
                    .iter()
                    .map(|s| program::stage_name(s.gl_type))
                    .collect();
                let what = match others.is_empty() {
                    true => format!("link of the instrumented {} shader", self.stage.name()),
                    false => format!(
                        "link of the instrumented {} shader with the app's {} shader{}",
                        self.stage.name(),
                        others.join(" and "),
                        if others.len() > 1 { "s" } else { "" }
                    ),
                };
                Err(self
                    .session
                    .rejected_shader(&what, self.stage, &inst.source, &log()))
            }
            // The preload says why (e.g. inside a display list being compiled).
            abi::STATUS_NOT_A_DRAW if !log().is_empty() => Err(Error::FailedPrecondition(format!(
                "not stopped at a draw call the debugger can replay: {}",
                log()
            ))),
            st => check_status(command, st, |st| {
                Error::Internal(format!("the debug replay failed (status {st}): {}", log()))
            }),
        }
    }

    fn vertex(
        &mut self,
        inst: &Instrumented,
        path: &[u32],
        want: bool,
        mode: &ReadMode,
    ) -> Result<ProbeResult> {
        self.check_request(path)?;
        self.check_count(inst)?;
        let varying = |slot: &OutputSlot| match slot {
            OutputSlot::Varying(name) => Ok(name.clone()),
            other => Err(Error::Internal(format!(
                "a vertex step got a debug output of another stage: {other:?}"
            ))),
        };
        let mut req = VertexStepRequest {
            cache_key: inst.cache_key,
            stage: self.stage.gl_enum(),
            want_value: u32::from(want),
            readback: mode.request(),
            ..Default::default()
        };
        let start = (std::mem::size_of::<VertexStepRequest>() + 63) & !63;
        {
            let mut w = self.shm.bulk_writer(abi::BULK_REQUEST + start);
            req.shader_count = self.push_shaders(&mut w, inst, &mut req.shaders);
            match (&inst.value, &inst.vertex_index_uniforms) {
                // Storage blocks at the draw's vertices (a non-indexed draw).
                (OutputSlot::Buffer { binding, .. }, Some((first, count))) => {
                    req.value_binding = *binding;
                    req.first_uniform = w.push(first.as_bytes());
                    req.count_uniform = w.push(count.as_bytes());
                }
                _ => {
                    let (value, coverage) = (varying(&inst.value)?, varying(&inst.coverage)?);
                    // A coverage-only probe (a step) leaves the value out of the capture.
                    if want {
                        req.value_varying = w.push(value.as_bytes());
                    }
                    req.coverage_varying = w.push(coverage.as_bytes());
                    if let Some(e) = inst.emission.as_ref().map(varying).transpose()? {
                        req.emission_varying = w.push(e.as_bytes());
                    }
                }
            }
            req.path_uniform = push_path(&mut w, inst, path, &mut req.path_len, &mut req.path);
        }
        self.shm.write_struct(abi::BULK_REQUEST, &req);
        let st = self
            .shm
            .command(self.slot, abi::CMD_VERTEX_STEP, PROBE_TIMEOUT)?;
        let reply: VertexStepReply = self.shm.read_struct(abi::BULK_REPLY);
        self.check_step("CMD_VERTEX_STEP", st, inst, reply.log)?;
        if reply.truncated != 0 {
            self.session.emit(pb::event::Kind::Warning(format!(
                "the draw has more vertices than one step captures; showing the first {}",
                reply.vertices
            )));
        }
        let t = timing(
            reply.cached,
            reply.build_ns,
            reply.replay_ns,
            reply.readback_ns,
        );
        let extent = (reply.vertices, 1, 1);
        let refs = HeldRefs {
            readback: reply.readback,
            values: reply.values,
            stride: 4,
            coverage: reply.coverage,
        };
        match held(self.shm, &refs, extent, t, mode) {
            Reply::Whole => {}
            Reply::Held(r) => return Ok(*r),
            Reply::Retry => return self.vertex(inst, path, want, &ReadMode::All),
        }
        let values = (reply.values, 4, want);
        let coverage = CoverageRef::Bytes(reply.coverage, reply.coverage_code);
        let mut r = read_probe(self.shm, values, coverage, extent, t)?;
        r.emission = self
            .shm
            .read_f32s(reply.emission)
            .chunks_exact(3)
            .map(|e| [e[0] as u32, e[1] as u32, e[2] as u32])
            .collect();
        Ok(r)
    }

    fn compute(
        &mut self,
        inst: &Instrumented,
        path: &[u32],
        want: bool,
        mode: &ReadMode,
    ) -> Result<ProbeResult> {
        self.check_request(path)?;
        self.check_count(inst)?;
        let OutputSlot::Buffer { binding, .. } = &inst.value else {
            return Err(Error::Internal(format!(
                "a compute step got a debug output of another stage: {:?}",
                inst.value
            )));
        };
        let mut req = ComputeStepRequest {
            cache_key: inst.cache_key,
            value_binding: *binding,
            stage: self.stage.gl_enum(),
            readback: mode.request(),
            ..Default::default()
        };
        let start = (std::mem::size_of::<ComputeStepRequest>() + 63) & !63;
        {
            let mut w = self.shm.bulk_writer(abi::BULK_REQUEST + start);
            req.shader_count = self.push_shaders(&mut w, inst, &mut req.shaders);
            if let Some(u) = inst
                .local_size_uniform
                .as_ref()
                .or(inst.output_vertices_uniform.as_ref())
            {
                req.local_size_uniform = w.push(u.as_bytes());
            }
            req.path_uniform = push_path(&mut w, inst, path, &mut req.path_len, &mut req.path);
        }
        self.shm.write_struct(abi::BULK_REQUEST, &req);
        let st = self
            .shm
            .command(self.slot, abi::CMD_COMPUTE_STEP, PROBE_TIMEOUT)?;
        let reply: ComputeStepReply = self.shm.read_struct(abi::BULK_REPLY);
        self.check_step("CMD_COMPUTE_STEP", st, inst, reply.log)?;
        // Invocations by global index: rows of the x extent, y rows per z layer.
        let extent = |i: usize| reply.groups[i].saturating_mul(reply.local_size[i]);
        let (w, rows, layers) = (extent(0), extent(1), extent(2));
        if reply.invocations as u64 != w as u64 * rows as u64 * layers as u64 {
            return Err(Error::Internal(format!(
                "the compute replay counted {} invocations for {w}x{rows}x{layers}",
                reply.invocations
            )));
        }
        let t = timing(
            reply.cached,
            reply.build_ns,
            reply.replay_ns,
            reply.readback_ns,
        );
        let refs = HeldRefs {
            readback: reply.readback,
            values: reply.values,
            stride: 4,
            coverage: reply.coverage,
        };
        match held(self.shm, &refs, (w, rows, layers), t, mode) {
            Reply::Whole => {}
            Reply::Held(r) => return Ok(*r),
            Reply::Retry => return self.compute(inst, path, want, &ReadMode::All),
        }
        read_probe(
            self.shm,
            (reply.values, 4, want),
            CoverageRef::Codes(reply.coverage),
            (w, rows, layers),
            t,
        )
    }

    fn fragment(
        &mut self,
        inst: &Instrumented,
        path: &[u32],
        components: u32,
        mode: &ReadMode,
    ) -> Result<ProbeResult> {
        self.check_request(path)?;
        self.check_count(inst)?;
        let mut req = FragmentStepRequest {
            cache_key: inst.cache_key,
            shader_count: 0,
            depth: self.fragment_options.depth,
            stencil: self.fragment_options.stencil,
            alpha_test_off: self.fragment_options.alpha_test_off as u32,
            value_components: components,
            readback: mode.request(),
            ..Default::default()
        };
        let start = (std::mem::size_of::<FragmentStepRequest>() + 63) & !63;
        {
            let mut w = self.shm.bulk_writer(abi::BULK_REQUEST + start);
            req.shader_count = self.push_shaders(&mut w, inst, &mut req.shaders);
            req.value_output = output_ref(&mut w, &inst.value)?;
            req.coverage_output = output_ref(&mut w, &inst.coverage)?;
            req.app_outputs = w.push(inst.app_outputs.join("\n").as_bytes());
            req.path_uniform = push_path(&mut w, inst, path, &mut req.path_len, &mut req.path);
        }
        self.shm.write_struct(abi::BULK_REQUEST, &req);
        let st = self
            .shm
            .command(self.slot, abi::CMD_FRAGMENT_STEP, PROBE_TIMEOUT)?;
        let reply: FragmentStepReply = self.shm.read_struct(abi::BULK_REPLY);
        self.check_step("CMD_FRAGMENT_STEP", st, inst, reply.log)?;
        let t = timing(
            reply.cached,
            reply.build_ns,
            reply.replay_ns,
            reply.readback_ns,
        );
        let extent = (reply.width, reply.height, 1);
        let refs = HeldRefs {
            readback: reply.readback,
            values: reply.values,
            stride: reply.value_components as usize,
            coverage: reply.coverage,
        };
        match held(self.shm, &refs, extent, t, mode) {
            Reply::Whole => {}
            Reply::Held(r) => return Ok(*r),
            Reply::Retry => return self.fragment(inst, path, components, &ReadMode::All),
        }
        let values = (
            reply.values,
            reply.value_components as usize,
            components > 0,
        );
        let coverage = CoverageRef::Bytes(reply.coverage, reply.coverage_code);
        read_probe(self.shm, values, coverage, extent, t)
    }
}

/// Where a probe's coverage is in the shared memory.
enum CoverageRef {
    /// One `f32` type code per invocation (compute steps).
    Codes(BulkRef),
    /// One byte per invocation (nonzero: reached) and the type code all
    /// reached invocations wrote (fragment, vertex-like steps).
    Bytes(BulkRef, u32),
}

/// A probe's result for `width` x `rows` x `layers` invocations, read out
/// of the shared memory: the coverage, then (`want`) the value's components
/// of each invocation (`values` holds `stride` floats per invocation), as
/// many as the type the reached invocations wrote has (none reached: no
/// values).
fn read_probe(
    shm: &SharedMemory,
    (values, stride, want): (BulkRef, usize, bool),
    coverage: CoverageRef,
    (width, rows, layers): (u32, u32, u32),
    timing: pb::ProbeTiming,
) -> Result<ProbeResult> {
    let mut timing = timing;
    timing.readback_bytes = u64::from(values.len)
        + u64::from(match &coverage {
            CoverageRef::Codes(r) | CoverageRef::Bytes(r, _) => r.len,
        });
    // One byte per invocation: a quarter of the copy, and of the memory the
    // probe cache keeps.
    let (coverage, code) = match coverage {
        CoverageRef::Bytes(r, code) => (
            shm.read_bytes(r),
            glsl_instrument::coverage_code(code as f32),
        ),
        CoverageRef::Codes(r) => shm.with_f32s(r, |c| {
            let mut code = 0;
            let bytes = c
                .iter()
                .map(|&c| match glsl_instrument::coverage_code(c) {
                    0 => 0,
                    k => {
                        code = k;
                        1
                    }
                })
                .collect();
            (bytes, code)
        }),
    };
    let components = match (want, glsl_instrument::decode_type(code as f32)) {
        (true, Some(t)) => t.words().min(stride),
        _ => 0,
    };
    let values = shm.read_texel_components(values, stride, components);
    let n = width as usize * rows as usize * layers as usize;
    if values.len() < n * components || coverage.len() < n {
        return Err(Error::Internal(format!(
            "the debug replay returned {} values and {} coverage words for {width}x{rows}x{layers} invocations",
            values.len(),
            coverage.len()
        )));
    }
    Ok(ProbeResult {
        emission: Vec::new(),
        code,
        width,
        height: rows * layers,
        layers,
        values,
        components,
        coverage,
        timing,
        held: Held::All,
    })
}

/// A preload step reply's timing, as one probe's.
fn timing(cached: u32, build_ns: u64, replay_ns: u64, readback_ns: u64) -> pb::ProbeTiming {
    pb::ProbeTiming {
        cached_programs: cached.min(1),
        build_ns,
        replay_ns,
        readback_ns,
        ..Default::default()
    }
}

/// Why `cell` names no invocation of a probe of `extent` (width, rows, layers).
fn outside(stage: Stage, (x, y, z): (u32, u32, u32), (w, rows, layers): (u32, u32, u32)) -> String {
    match stage {
        Stage::Fragment => format!("pixel ({x},{y}) is outside the {w}x{rows} framebuffer"),
        Stage::Vertex => format!("vertex {x} is not in the draw ({w} vertices)"),
        Stage::TessEval | Stage::Geometry | Stage::TessControl => format!(
            "vertex {x} is not among the {w} vertices the {} stage output",
            stage.name()
        ),
        _ => format!(
            "invocation ({x},{y},{z}) is outside the dispatch ({w}x{rows}x{layers} invocations)"
        ),
    }
}

/// The file extension of a shader of `stage` (glslang's convention).
fn file_extension(stage: Stage) -> &'static str {
    match stage {
        Stage::Vertex => "vert",
        Stage::TessControl => "tesc",
        Stage::TessEval => "tese",
        Stage::Geometry => "geom",
        Stage::Fragment => "frag",
        Stage::Compute => "comp",
    }
}

/// Rows of the table a summary `print` of a vertex-like stage shows.
const TABLE_ROWS: usize = 32;

/// `print EXPR @ primitive N` of a geometry shader: the vertices input
/// primitive N emitted, with the value each carried when emitted.
fn print_primitive(
    d: &mut ShaderDebug,
    r: &mut dyn ProbeRunner,
    expr: &str,
    primitive: u32,
    at: Option<pb::Invocation>,
) -> Result<pb::PrintReply> {
    if d.model.stage() != Stage::Geometry {
        return Err(Error::InvalidArgument(format!(
            "`@ primitive N` names an input primitive of a geometry shader; a {} shader is \
             printed at {}",
            d.model.stage().name(),
            match d.model.stage() {
                Stage::Fragment => "a pixel (@ X,Y)",
                Stage::Compute => "an invocation (@ invocation X,Y,Z)",
                _ => "a vertex (@ vertex N)",
            }
        )));
    }
    let pos = d.pos.clone();
    let value = d.probe_value(&pos, expr, r)?;
    let res = value.first();
    let ty = value.ty.clone();
    let emitted: Vec<pb::EmittedVertex> = res
        .emitted_by(primitive)
        .into_iter()
        .map(|(i, emit, invocation)| {
            let v = value.value_at(i);
            pb::EmittedVertex {
                emit,
                invocation,
                vertex: i as u32,
                reached: v.is_some(),
                value: v.unwrap_or_default(),
            }
        })
        .collect();
    if emitted.is_empty() {
        let primitives = res
            .emission
            .iter()
            .map(|e| u64::from(e[1]) + 1)
            .max()
            .unwrap_or(0);
        return Err(Error::InvalidArgument(format!(
            "input primitive {primitive} emitted no vertex (the geometry shader's captured \
             vertices come from {primitives} input primitives)"
        )));
    }
    Ok(pb::PrintReply {
        expr: expr.to_string(),
        r#type: ty,
        value: Vec::new(),
        reached: emitted.iter().any(|e| e.reached),
        at,
        summary: None,
        timing: d.take_timing(),
        emitted,
        table: Vec::new(),
        parts: value.reply_parts(),
        written_unknown: value.written_unknown(),
        ..Default::default()
    })
}

/// Which invocation of `stage` a `print` names: a fragment at its pixel
/// (x, y, 0), vertex N as (N, 0, 0), a compute invocation by its global id;
/// `None` for a summary over all.
fn invocation_cell(stage: Stage, at: Option<&pb::Invocation>) -> Result<Option<(u32, u32, u32)>> {
    use pb::invocation::Kind;
    match (stage, at.and_then(|a| a.kind)) {
        (_, None) => Ok(None),
        (Stage::Fragment, Some(Kind::Pixel(p))) => Ok(Some((p.x, p.y, 0))),
        (
            Stage::Vertex | Stage::TessControl | Stage::TessEval | Stage::Geometry,
            Some(Kind::Vertex(n)),
        ) => Ok(Some((n, 0, 0))),
        (Stage::Compute, Some(Kind::Invocation(g))) => Ok(Some((g.x, g.y, g.z))),
        (Stage::Fragment, Some(_)) => Err(Error::InvalidArgument(
            "a fragment shader is printed at a pixel (@ X,Y) or over all fragments".into(),
        )),
        (Stage::Vertex, Some(_)) => Err(Error::InvalidArgument(
            "a vertex shader is printed at a vertex (@ vertex N) or over all vertices".into(),
        )),
        (Stage::TessEval | Stage::Geometry, Some(_)) => Err(Error::InvalidArgument(format!(
            "a {} shader is printed at an output vertex (@ vertex N: the N-th vertex of the \
             primitives it outputs, in order) or over all of them",
            stage.name()
        ))),
        (Stage::TessControl, Some(_)) => Err(Error::InvalidArgument(
            "a tess-control shader is printed at an output vertex (@ vertex N: patch N / size, \
             gl_InvocationID N % size) or over all of them"
                .into(),
        )),
        (Stage::Compute, Some(_)) => Err(Error::InvalidArgument(
            "a compute shader is printed at an invocation (@ invocation X,Y,Z, its \
             gl_GlobalInvocationID) or over all invocations"
                .into(),
        )),
    }
}

/// A pipe for the app's output: (read end, write end), both close-on-exec
/// (the child gets the write end by dup2, which clears the flag).
fn output_pipe() -> Result<(std::os::fd::OwnedFd, std::os::fd::OwnedFd)> {
    rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)
        .map_err(|e| Error::Internal(format!("pipe for the app's output: {e}")))
}

/// The error for a command that needs the app in state `want`, if it is not.
fn require_state(c: &Control, want: RunState) -> Result<()> {
    match (c.state, want) {
        (have, want) if have == want => Ok(()),
        (RunState::NotStarted, _) => Err(Error::not_launched()),
        (RunState::Exited, _) => Err(Error::FailedPrecondition("the app has exited".into())),
        (RunState::Running, _) => Err(Error::FailedPrecondition(
            "the app is running; it must be stopped at a GL call".into(),
        )),
        (RunState::Stopped, _) => Err(Error::FailedPrecondition(
            "the app is already stopped".into(),
        )),
    }
}

fn stopped_in(c: &Control) -> Result<(Stop, Arc<SharedMemory>, u32)> {
    require_state(c, RunState::Stopped)?;
    if let Some(p) = &c.paused {
        return Err(Error::FailedPrecondition(format!(
            "the app is paused outside a GL call (thread {} at {:#x}); `continue` or `step` resumes it",
            p.thread, p.pc
        )));
    }
    let (Some(stop), Some(l)) = (&c.current, &c.launched) else {
        return Err(Error::FailedPrecondition("the app is not stopped".into()));
    };
    Ok((stop.clone(), l.shm.clone(), stop.pid))
}

/// The process that owns the GL session: the one whose preload claimed it
/// (an app started by a launcher script is not the launched process), else
/// the launched one.
fn app_pid(l: &Launched) -> u32 {
    match l.shm.header().preload_pid.load(Ordering::Acquire) {
        0 => l.pid,
        p => p,
    }
}

/// Set every function's breakpoint bit: shader-record functions, plus the user's breakpoints.
fn apply_bits(c: &Control, shm: &SharedMemory) {
    for id in 0..FUNCTIONS.len() as u32 {
        let on = class_of(id) & class::SHADER_RECORD != 0
            || c.breakpoints.iter().any(|b| b.kind.covers(id));
        shm.set_breakpoint(id, on);
    }
    shm.set_check_errors(c.breakpoints.iter().any(|b| b.kind == BreakKind::GlError));
}

fn breakpoint_list(c: &Control) -> pb::BreakpointList {
    pb::BreakpointList {
        breakpoints: c
            .breakpoints
            .iter()
            .map(|b| pb::Breakpoint {
                id: b.id,
                description: b.kind.describe(),
                hits: b.hits,
            })
            .collect(),
    }
}

/// Call info of a stop; with `remote`, pointer contents where known (shader sources).
fn call_info(s: &Stop, remote: Option<Remote>) -> pb::CallInfo {
    let Some(f) = FUNCTIONS.get(s.function as usize) else {
        return pb::CallInfo {
            function: format!("#{}", s.function),
            function_id: s.function,
            ..Default::default()
        };
    };
    let executed = s.ret.is_some();
    let contents = |i: usize| -> Option<String> {
        let r = remote?;
        let a = |k: usize| s.args.get(k).copied().unwrap_or(0);
        match (f.name, i) {
            ("glShaderSource" | "glShaderSourceARB", 2) => {
                r.shader_source(a(1) as i32, a(2), a(3)).ok()
            }
            ("glCreateShaderProgramv", 2) => r.shader_source(a(1) as i32, a(2), 0).ok(),
            _ => {
                let p = f.params.get(i)?;
                let ty = p.c_type.trim();
                let is_string = matches!(
                    ty,
                    "const GLchar *" | "const char *" | "const GLcharARB *" | "const GLubyte *"
                );
                if is_string && a(i) != 0 {
                    r.read_cstr_max(a(i), 4096)
                        .ok()
                        .map(|b| String::from_utf8_lossy(&b).into_owned())
                } else {
                    pointee::describe(f, i, &s.args, executed, &|addr, len| r.read(addr, len).ok())
                }
            }
        }
    };
    pb::CallInfo {
        function: f.name.to_string(),
        function_id: s.function,
        call: s.call_number,
        thread: s.tid,
        args: format::format_args(f, &s.args, contents),
        draw: s.draw,
        frame: s.frame,
        returned: s.ret.map(|r| format::format_ret(f, r)).unwrap_or_default(),
        error: gl_error_name(s.error),
        paused: false,
        pc: 0,
        pid: s.pid,
    }
}

/// The name of a GL error code ("" for 0).
fn gl_error_name(e: u32) -> String {
    match e {
        0 => String::new(),
        e => api::gl_enum_name(e, "ErrorCode").map_or_else(|| format!("{e:#x}"), str::to_string),
    }
}

/// Take the stop `call` for the session unless it was taken already: only
/// while its slot is still at that stop. The watcher and `step N` both
/// scan; a scan's snapshot may be old by the time it claims (a stop taken,
/// continued and left by the other meanwhile): taking it again would make
/// the session command a thread that is running (the lost `step N`
/// command). Under the control lock.
fn claim(claimed: &mut HashMap<usize, u32>, shm: &SharedMemory, call: &StoppedCall) -> bool {
    if claimed.get(&call.slot) == Some(&call.stop_id) || !shm.is_stopped_at(call.slot, call.stop_id)
    {
        return false;
    }
    claimed.insert(call.slot, call.stop_id);
    true
}

/// Crash report with the call in flight on the crashing thread.
fn crash_info(c: &Control, r: &launch::CrashReport) -> pb::Crash {
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
    pb::Crash {
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

pub use glsl_instrument::StepMode as ShaderStepMode;

#[cfg(test)]
mod tests {
    use super::*;

    fn stop(name: &str, draw: u64, error: u32) -> Stop {
        Stop {
            serial: 1,
            slot: 0,
            tid: 1,
            function: api::function_id(name).unwrap(),
            call_number: 1,
            args: Vec::new(),
            ret: None,
            draw,
            frame: 1,
            breakpoint_id: 0,
            error,
            pid: 1,
            context: 0,
            stop_id: 1,
        }
    }

    /// A stopped slot's words, as the preload writes them.
    fn stop_slot(shm: &SharedMemory, slot: usize, stop_id: u32, call_number: u64) {
        let s = &shm.header().slots[slot];
        s.tid.store(7, Ordering::Relaxed);
        s.call_number.store(call_number, Ordering::Relaxed);
        s.stop_id.store(stop_id, Ordering::Relaxed);
        s.state.store(abi::STATE_STOPPED, Ordering::Release);
    }

    /// The lost `step N` command: the watcher's scan sees stop 1; before it
    /// claims, `step N` takes stop 1, continues it and takes stop 2. The
    /// watcher's old snapshot must not become a stop again (the session
    /// would then continue a thread that runs: its command was lost).
    #[test]
    fn an_old_snapshot_is_never_claimed() {
        let shm = SharedMemory::create().unwrap();
        let mut claimed = HashMap::new();
        stop_slot(&shm, 2, 1, 40);
        let old = shm.stopped().remove(0);
        assert_eq!((old.slot, old.stop_id, old.call_number), (2, 1, 40));
        assert!(claim(&mut claimed, &shm, &old), "a new stop is taken");
        assert!(!claim(&mut claimed, &shm, &old), "once");
        // Continued: running the call, then stopped at the next.
        let s = &shm.header().slots[2];
        s.state.store(abi::STATE_IN_CALL, Ordering::Release);
        assert!(!claim(&mut claimed, &shm, &old));
        stop_slot(&shm, 2, 2, 41);
        let next = shm.stopped().remove(0);
        assert!(claim(&mut claimed, &shm, &next));
        assert!(
            !claim(&mut claimed, &shm, &old),
            "the old snapshot differs from the last claim but is not current"
        );
        // Executed by FINISH (RETURNED): not a stop to take.
        s.state.store(abi::STATE_RETURNED, Ordering::Release);
        let mut fresh = HashMap::new();
        assert!(!claim(&mut fresh, &shm, &next));
    }

    #[test]
    fn breakpoint_kinds_match_their_stops() {
        let id = |n: &str| api::function_id(n).unwrap();
        assert!(BreakKind::Frame.covers(id("eglSwapBuffers")));
        assert!(BreakKind::Frame.covers(id("glXSwapBuffers")));
        assert!(!BreakKind::Frame.covers(id("glFlush")));
        assert!(BreakKind::ShaderSwitch.covers(id("glUseProgram")));
        assert!(BreakKind::Draw.covers(id("glDrawElements")));
        assert!(
            !BreakKind::GlError.covers(id("glEnable")),
            "error breakpoints need no bits"
        );
        assert!(BreakKind::GlError.matches(&stop("glEnable", 0, 0x500)));
        assert!(!BreakKind::GlError.matches(&stop("glEnable", 0, 0)));
        assert!(BreakKind::DrawNumber(2).matches(&stop("glDrawArrays", 2, 0)));
        assert!(!BreakKind::DrawNumber(2).matches(&stop("glDrawArrays", 3, 0)));
        // A stop after the call (error) never counts again for a stop-before breakpoint.
        assert!(!BreakKind::Draw.matches(&stop("glDrawArrays", 2, 0x502)));
        assert!(!BreakKind::Function(id("glEnable")).matches(&stop("glEnable", 0, 0x500)));
        assert_eq!(BreakKind::GlError.describe(), "error");
        assert_eq!(gl_error_name(0x502), "GL_INVALID_OPERATION");
        assert_eq!(gl_error_name(0), "");
    }
}
