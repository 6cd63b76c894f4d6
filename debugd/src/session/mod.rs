//! One debugging session: the launched app, its shared memory and tracer,
//! breakpoints, the current stop, recorded shaders and shader debugging.
//! This module holds the state ([`Control`] behind the control lock, the
//! current [`Stop`]) and the state reply; the work is split by concern:
//! [`process`] (launch, tracer events, pause, kill, detach, crashes),
//! [`calls`] (the stop watcher; continue, step, skip), [`breakpoints`],
//! [`inspect`] (the stopped call and GL state), [`recording`] (shader
//! sources from the app's calls, `info program`), [`debugging`] (the
//! shader-debugging requests, handed to [`crate::shader`]), [`history`]
//! (pixel history, handed to [`crate::history`]), [`memcheck`] (its
//! modes and the check at each dispatch and draw), [`tracing`]
//! (the requests answered from the focused invocation's trace) and
//! [`lifecycle`] (the ends of things).
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
use gldbg_proto::shm::{self as abi, ProgramReply};
use glsl_instrument::{Stage, StepMode};
use tokio::sync::broadcast;

use crate::Config;
use crate::error::{Error, Result};
use crate::format;
use crate::image::PngOptions;
use crate::launch::{self, TraceEvent, Tracer};
use crate::program::{self, ProgramText, Recorded, StageSource};
use crate::remote::Remote;
use crate::shader::ShaderDebug;
use crate::shm::{SharedMemory, StoppedCall};
use crate::{cancel, glstate, pointee};

mod breakpoints;
mod calls;
mod debugging;
mod history;
mod inspect;
mod lifecycle;
mod memcheck;
mod process;
mod recording;
mod sampled;
mod source_checks;
mod sources;
mod tracing;

pub use breakpoints::BreakKind;
use breakpoints::{Breakpoints, apply_bits};
pub use history::HistoryDebug;
use inspect::call_info;
use recording::Recordings;

use crate::status::check_status;

/// Timeout of short shared-memory commands (continue, finish, query).
const CMD_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the exit report waits for the app's captured output to end.
const OUTPUT_DRAIN: Duration = Duration::from_secs(2);
/// How long the daemon and a stopped thread spin for each other in `step N`
/// before sleeping: long enough to cover a GL call between two stops, short
/// enough that a thread busy outside GL costs little CPU.
const STEP_SPIN: Duration = Duration::from_millis(2);
/// How long `kill` waits for the app's exit.
const KILL_WAIT: Duration = Duration::from_secs(10);
/// How long Launch waits for the preload to attach before answering RUNNING.
const ATTACH_TIMEOUT: Duration = Duration::from_secs(20);
/// How often Launch's wait for the first stop wakes to check for
/// cancellation and [`ATTACH_TIMEOUT`] when nothing changed.
const FIRST_STOP_POLL: Duration = Duration::from_millis(200);
/// How often a wait for the app's exit (`kill`, an undone launch) wakes
/// when nothing changed, to check its deadline.
const EXIT_POLL: Duration = Duration::from_millis(100);
/// How long the stop watcher waits for a new stop before checking that its
/// launch is still the session's app.
const STOP_POLL: Duration = Duration::from_millis(100);
/// Session events buffered for a slow subscriber before it starts losing
/// the oldest ones (it is told how many it missed): log points send up to
/// a `dprintf` replay's limit (1024) each at every matching draw, several
/// draws in a row within one `continue`.
const EVENT_BUFFER: usize = 8192;

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

/// The stop a request works at and the shared memory to reach its thread
/// (the thread's process is `stop.pid`).
struct AtStop {
    stop: Stop,
    shm: Arc<SharedMemory>,
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
    /// A stop at a draw or dispatch for `continue`'s checks
    /// (`source_checks.rs`: source breakpoints, then memcheck's): without
    /// a GL breakpoint there it is internal (never reported unless a
    /// source breakpoint or a memcheck finding stops there).
    source_check: bool,
    /// Findings of armed memcheck runs (dispatches run checked without a
    /// stop, earlier) wait at this stop, before its call: `continue`'s
    /// memcheck check takes them.
    memcheck_ran: bool,
}

impl Stop {
    /// A stop only for the source breakpoints' check.
    fn internal(&self) -> bool {
        self.source_check && self.breakpoint_id == 0
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
    breakpoints: Breakpoints,
    exit: Option<pb::Exit>,
    crash: Option<pb::Crash>,
    /// The last calls that went through the stop path on each thread
    /// (at most `RECENT_CALLS`, oldest first; for crash reports).
    recent: HashMap<u32, VecDeque<Stop>>,
    /// Set while `pause` holds the app outside a GL call.
    paused: Option<pb::CallInfo>,
    /// Shader objects recorded from the app's calls, per share group.
    programs: Recordings,
    stop_serial: u64,
    /// The current shader stop, when debugging a shader.
    shader_stop: Option<crate::shader::reply::ShaderStop>,
    /// The user's files (`SetSourceFiles`) and which shaders hold them.
    files: sources::Files,
    /// The last pixel history (`debug history K` names its entries).
    history: Option<crate::history::History>,
    /// memcheck's mode, findings and checked programs.
    memcheck: memcheck::Memcheck,
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
    /// The app reads /dev/null, not the daemon's stdin.
    pub stdin_null: bool,
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
    /// How much a trace recording may hold (`set trace-records`, ...).
    trace_budget: Mutex<crate::shader::trace::Budget>,
}

impl Session {
    pub fn new(config: Config) -> Arc<Session> {
        lifecycle::heap_policy();
        let (events, _) = broadcast::channel(EVENT_BUFFER);
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
                breakpoints: Breakpoints::default(),
                exit: None,
                crash: None,
                recent: HashMap::new(),
                paused: None,
                programs: Recordings::default(),
                stop_serial: 0,
                shader_stop: None,
                files: Default::default(),
                history: None,
                memcheck: Default::default(),
            }),
            changed: Condvar::new(),
            debug: Mutex::new(None),
            events,
            event_seq: AtomicU64::new(0),
            rejected: AtomicU64::new(0),
            saved: Mutex::new(None),
            fast_stepping: AtomicBool::new(false),
            trace_budget: Mutex::new(Default::default()),
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
}

impl Session {
    fn state_reply(&self, c: &Control) -> pb::StateReply {
        if Self::in_source_checks(c) {
            // A `continue` checking a draw for source breakpoints: running.
            return pb::StateReply {
                state: pb::RunState::Running as i32,
                crash: c.crash.clone(),
                ..Default::default()
            };
        }
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
            shader: crate::convert::state_shader(c.shader_stop.as_ref()),
            crash: c.crash.clone(),
            memcheck: c
                .current
                .as_ref()
                .filter(|_| c.state == RunState::Stopped)
                .and_then(|s| c.memcheck.finding_at(s.serial)),
        }
    }

    pub fn get_state(&self) -> pb::StateReply {
        let c = self.control();
        self.state_reply(&c)
    }

    /// The current stop and its shared memory; FailedPrecondition unless stopped.
    fn stopped(&self) -> Result<AtStop> {
        let c = self.control();
        stopped_in(&c)
    }
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

fn stopped_in(c: &Control) -> Result<AtStop> {
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
    Ok(AtStop {
        stop: stop.clone(),
        shm: l.shm.clone(),
    })
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

pub use glsl_instrument::StepMode as ShaderStepMode;

#[cfg(test)]
mod tests {
    use super::calls::claim;
    use super::inspect::gl_error_name;
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
            source_check: false,
            memcheck_ran: false,
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

    #[test]
    fn breakpoints_count_every_hit_and_stop_for_the_first() {
        let mut b = Breakpoints::default();
        let draw = b.add(BreakKind::Draw);
        let second = b.add(BreakKind::DrawNumber(2));
        let errors = b.add(BreakKind::GlError);
        assert_eq!((draw, second, errors), (1, 2, 3));
        assert_eq!(b.hit(&stop("glDrawArrays", 2, 0)), draw);
        assert_eq!(b.hit(&stop("glDrawArrays", 3, 0)), draw);
        assert_eq!(b.hit(&stop("glEnable", 0, 0)), 0);
        assert_eq!(b.hit(&stop("glEnable", 0, 0x500)), errors);
        let hits = |b: &Breakpoints| -> Vec<(u32, u64)> {
            b.to_list()
                .breakpoints
                .iter()
                .map(|p| (p.id, p.hits))
                .collect()
        };
        assert_eq!(hits(&b), vec![(1, 2), (2, 1), (3, 1)]);
        b.reset_hits();
        assert_eq!(hits(&b), vec![(1, 0), (2, 0), (3, 0)]);
        assert_eq!(b.delete(9).unwrap_err().to_string(), "no breakpoint 9");
        b.delete(draw).unwrap();
        // Ids are never reused.
        assert_eq!(b.add(BreakKind::Frame), 4);
        b.delete(0).unwrap();
        assert!(hits(&b).is_empty());
    }
}
