//! The ends of things on the raw gRPC API of a real `gldbg-debugd`, with
//! `tests/apps/egl_big.c` (a large RGBA32F framebuffer; `work(N)` in its
//! fragment shader costs N loop iterations per fragment):
//!
//! * the app dying during a probe ends the probe at once with the reason,
//!   and EndDebug, Print and a new Launch answer at once; the same for an
//!   app a launcher script forked (issue 12.5);
//! * a request whose client went away takes no effect later: a Launch
//!   cancelled before the app's first GL call leaves no app running, a
//!   Continue and an EndDebug cancelled while queued behind a slow probe do
//!   nothing once it ends (issue 12.6);
//! * the memory of a 1080p draw's probes (the daemon's heap and the shared
//!   memory's pages) goes back when its debugging ends and when the app
//!   exits (issue 12.13).

mod support;

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use gldbg_proto::pb;
use gldbg_proto::pb::debugger_client::DebuggerClient;
use gldbg_tests::*;
use tonic::Code;
use tonic::transport::Channel;

type Client = DebuggerClient<Channel>;

/// How long one request may take before the test calls it a hang.
const HANG: Duration = Duration::from_secs(60);
/// "At once": what an answer may take once the app is gone.
const PROMPT: Duration = Duration::from_secs(5);

fn big() -> PathBuf {
    support::build_c_app("egl_big.c", "egl_big", &["EGL", "OpenGL"], &[])
}

async fn client(socket: &Path) -> Client {
    DebuggerClient::new(support::grpc::channel(socket.to_path_buf()).await)
}

/// Awaits a request with the hang guard.
async fn timely<T>(what: &str, f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(HANG, f)
        .await
        .unwrap_or_else(|_| panic!("{what}: no answer after {HANG:?} (hang)"))
}

fn state(r: &pb::StateReply) -> pb::RunState {
    pb::RunState::try_from(r.state).unwrap_or(pb::RunState::Unspecified)
}

fn launch_request(program: &Path, args: &[&str]) -> pb::LaunchRequest {
    pb::LaunchRequest {
        program: program.display().to_string(),
        args: args.iter().map(|a| a.to_string()).collect(),
        ..Default::default()
    }
}

/// Launch egl_big with `args`, break at draws, continue to the first draw
/// and debug its fragment shader; returns the stop.
async fn at_first_draw(c: &mut Client, args: &[&str]) -> pb::CallInfo {
    launched_to_first_draw(c, launch_request(&big(), args)).await
}

/// As [`at_first_draw`], for any launch request of egl_big.
async fn launched_to_first_draw(c: &mut Client, request: pb::LaunchRequest) -> pb::CallInfo {
    let first = timely("Launch", c.launch(request))
        .await
        .expect("Launch")
        .into_inner();
    assert_eq!(state(&first), pb::RunState::Stopped, "{first:?}");
    timely(
        "AddBreakpoint",
        c.add_breakpoint(pb::BreakpointSpec {
            kind: Some(pb::breakpoint_spec::Kind::Draw(pb::Empty {})),
        }),
    )
    .await
    .expect("break draw");
    let at = timely("Continue", c.r#continue(pb::Empty {}))
        .await
        .expect("Continue")
        .into_inner();
    assert_eq!(state(&at), pb::RunState::Stopped, "{at:?}");
    let stop = at.stop.expect("a stop");
    assert_eq!(stop.draw, 1, "{stop:?}");
    debug_fragment(c).await;
    stop
}

async fn debug_fragment(c: &mut Client) {
    timely(
        "DebugShader",
        c.debug_shader(pb::DebugShaderRequest {
            stage: "fragment".into(),
            ..Default::default()
        }),
    )
    .await
    .expect("debug fragment");
}

fn pixel(x: u32, y: u32) -> Option<pb::Invocation> {
    Some(pb::Invocation {
        kind: Some(pb::invocation::Kind::Pixel(pb::Pixel { x, y })),
    })
}

fn print_request(expr: &str, at: Option<pb::Invocation>) -> pb::PrintRequest {
    pb::PrintRequest {
        expr: expr.into(),
        at,
    }
}

/// Kill the app and wait for its exit (the daemon stays for the next test step).
async fn kill_app(c: &mut Client) {
    let r = timely("Kill", c.kill(pb::Empty {}))
        .await
        .expect("Kill")
        .into_inner();
    assert_eq!(state(&r), pb::RunState::Exited, "{r:?}");
}

/// Starts a probe that never ends by itself (10^9 iterations for each of
/// 65536 fragments), SIGKILLs the app's process `pid` while it runs, and
/// checks that the probe fails at once, naming the kill.
async fn kill_during_a_probe(c: &Client, pid: u32) {
    let mut c2 = c.clone();
    let probe =
        // A summary: every fragment runs (a print @ shades its pixel alone).
        tokio::spawn(async move { c2.print(print_request("work(1e9)", None)).await });
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(!probe.is_finished(), "the probe should still run");
    // SAFETY: a plain kill(2) of the app's pid.
    assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGKILL) }, 0);
    let killed = Instant::now();
    let r = timely("Print", probe).await.expect("the Print task");
    let took = killed.elapsed();
    let e = r.expect_err("a probe of a dead app has no value");
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(
        e.message().contains("killed by SIGKILL"),
        "the reason is named: {e:?}"
    );
    assert!(took < PROMPT, "the probe ended {took:?} after the kill");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_launcher_scripts_app_dying_during_a_probe_ends_the_probe_at_once() {
    require_workspace();
    let dir = TempDir::new("lifecycle-child");
    let socket = dir.join("d.sock");
    let _daemon = start_unix_daemon(&socket, &[]);
    let mut c = client(&socket).await;
    // The shell forks the app and outlives it.
    let script = format!("'{}' --size 256x256; sleep 30", big().display());
    let request = launch_request(Path::new("/bin/sh"), &["-c", &script]);
    let stop = launched_to_first_draw(&mut c, request).await;
    kill_during_a_probe(&c, stop.pid).await;
    kill_app(&mut c).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_app_dying_during_a_probe_ends_the_probe_at_once() {
    require_workspace();
    let dir = TempDir::new("lifecycle-death");
    let socket = dir.join("d.sock");
    let _daemon = start_unix_daemon(&socket, &[]);
    let mut c = client(&socket).await;
    let stop = at_first_draw(&mut c, &["--size", "256x256"]).await;
    kill_during_a_probe(&c, stop.pid).await;
    let s = timely("GetState", c.get_state(pb::Empty {}))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(state(&s), pb::RunState::Exited, "{s:?}");
    for (what, r) in [
        (
            "EndDebug",
            timely_prompt(c.end_debug(pb::Empty {})).await.map(|_| ()),
        ),
        (
            "Print",
            timely_prompt(c.print(print_request("gl_FragCoord.xy", pixel(5, 5))))
                .await
                .map(|_| ()),
        ),
    ] {
        let e = r.expect_err(what);
        assert_eq!(e.code(), Code::FailedPrecondition, "{what}: {e:?}");
    }
    // A new launch works at once.
    let again = timely_prompt(c.launch(launch_request(&big(), &["--size", "64x32"])))
        .await
        .expect("Launch after the death")
        .into_inner();
    assert_eq!(state(&again), pb::RunState::Stopped, "{again:?}");
    kill_app(&mut c).await;
}

/// Awaits a request that must answer within [`PROMPT`].
async fn timely_prompt<T>(f: impl std::future::Future<Output = T>) -> T {
    let start = Instant::now();
    let r = timely("request", f).await;
    assert!(
        start.elapsed() < PROMPT,
        "answered after {:?}",
        start.elapsed()
    );
    r
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_launch_leaves_no_app() {
    require_workspace();
    let dir = TempDir::new("lifecycle-launch");
    let socket = dir.join("d.sock");
    let _daemon = start_unix_daemon(&socket, &[]);
    let mut c = client(&socket).await;
    // The app's first GL call comes 2 s after the start: the client gives up before.
    let script = format!(
        "sleep 2; exec '{}' --size 64x32 --frames 1",
        big().display()
    );
    let request = launch_request(Path::new("/bin/sh"), &["-c", &script]);
    let gave_up = tokio::time::timeout(Duration::from_millis(500), c.launch(request)).await;
    assert!(gave_up.is_err(), "the Launch answered early: {gave_up:?}");
    // Past the app's first GL call: a late Launch would be stopped there now.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let s = timely("GetState", c.get_state(pb::Empty {}))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        state(&s),
        pb::RunState::Exited,
        "the cancelled Launch's app was killed: {s:?}"
    );
    assert_eq!(s.exit.as_ref().and_then(|e| e.signal), Some(9), "{s:?}");
    // The session goes on.
    let again = timely(
        "Launch",
        c.launch(launch_request(&big(), &["--size", "64x32"])),
    )
    .await
    .expect("Launch")
    .into_inner();
    assert_eq!(state(&again), pb::RunState::Stopped, "{again:?}");
    kill_app(&mut c).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_cancelled_behind_a_slow_probe_take_no_effect() {
    require_workspace();
    let dir = TempDir::new("lifecycle-cancel");
    let socket = dir.join("d.sock");
    let _daemon = start_unix_daemon(&socket, &[]);
    let mut c = client(&socket).await;
    let stop = at_first_draw(&mut c, &["--size", "256x256"]).await;

    // A probe of about 4 s on this machine: time work(N) until it takes
    // half a second (its cost is about linear in N), then scale N.
    let mut n: f64 = 20_000.0;
    loop {
        let start = Instant::now();
        timely(
            "Print",
            // Summaries: every fragment runs (a print @ shades its pixel alone).
            c.print(print_request(&format!("work({n:.1})"), None)),
        )
        .await
        .expect("calibration print");
        let secs = start.elapsed().as_secs_f64();
        if secs >= 0.5 || n >= 1e8 {
            n = (n * 4.0 / secs).min(1e9).round();
            break;
        }
        n *= (0.6 / secs.max(0.05)).min(16.0);
        n = n.round();
    }

    let mut c2 = c.clone();
    let expr = format!("work({n:.1})");
    let started = Instant::now();
    let probe = tokio::spawn(async move { c2.print(print_request(&expr, None)).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Both wait for the probe's lock; their clients give up after 300 ms.
    let mut c3 = c.clone();
    let cont = tokio::time::timeout(Duration::from_millis(300), c3.r#continue(pb::Empty {})).await;
    assert!(cont.is_err(), "Continue was not held up: {cont:?}");
    let end = tokio::time::timeout(Duration::from_millis(300), c3.end_debug(pb::Empty {})).await;
    assert!(end.is_err(), "EndDebug was not held up: {end:?}");
    assert!(
        !probe.is_finished(),
        "the probe ended within {:?}: too fast to test",
        started.elapsed()
    );
    timely("Print", probe)
        .await
        .unwrap()
        .expect("the slow probe");
    // Time for a late effect to happen.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let s = timely("GetState", c.get_state(pb::Empty {}))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(state(&s), pb::RunState::Stopped, "no late Continue: {s:?}");
    assert_eq!(
        s.stop.as_ref().map(|s| s.call),
        Some(stop.call),
        "still at the same draw: {s:?}"
    );
    assert!(s.shader.is_some(), "no late EndDebug: {s:?}");
    // The session works as before.
    let p = timely(
        "Print",
        c.print(print_request("gl_FragCoord.xy", pixel(7, 9))),
    )
    .await
    .expect("print gl_FragCoord.xy")
    .into_inner();
    assert_eq!(p.value, vec![7.5, 9.5], "{p:?}");
    kill_app(&mut c).await;
}

/// A process's resident memory in bytes (`VmRSS`).
fn rss(pid: u32) -> u64 {
    status_bytes(pid, "VmRSS:")
}

/// A memory line of `/proc/PID/status` in bytes.
fn status_bytes(pid: u32, key: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with(key)).expect(key);
    let kb: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap();
    kb * 1024
}

/// The bytes allocated to the daemon's shared memory (the memfd's
/// `st_blocks`); None when the daemon holds no memfd.
fn shm_bytes(pid: u32) -> Option<u64> {
    for e in std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.flatten() {
        let target = std::fs::read_link(e.path()).unwrap_or_default();
        if target.to_string_lossy().starts_with("/memfd:gldbg") {
            return Some(std::fs::metadata(e.path()).ok()?.blocks() * 512);
        }
    }
    None
}

const MIB: u64 = 1 << 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn probe_memory_goes_back_after_end_and_after_the_exit() {
    require_workspace();
    let dir = TempDir::new("lifecycle-memory");
    let socket = dir.join("d.sock");
    // Summaries read back whole (as before GPU summaries): the probes then
    // hold every fragment's value, the memory this test sees given back.
    let daemon = start_unix_daemon(&socket, &[("GLDBG_READBACK", "all")]);
    let pid = daemon.0.id();
    let mut c = client(&socket).await;
    let launched = timely("Launch", c.launch(launch_request(&big(), &[])))
        .await
        .expect("Launch")
        .into_inner();
    assert_eq!(state(&launched), pb::RunState::Stopped, "{launched:?}");
    let bp = timely(
        "AddBreakpoint",
        c.add_breakpoint(pb::BreakpointSpec {
            kind: Some(pb::breakpoint_spec::Kind::Draw(pb::Empty {})),
        }),
    )
    .await
    .unwrap()
    .into_inner();
    let at = timely("Continue", c.r#continue(pb::Empty {}))
        .await
        .expect("Continue")
        .into_inner();
    let app = at.stop.expect("a stop").pid;
    let (rss0, shm0) = (rss(pid), shm_bytes(pid).expect("the daemon's memfd"));
    // The app's own memory (its GL objects; the shared pages are counted above).
    let app0 = status_bytes(app, "RssAnon:");

    // Probes over every one of the 1920x1080 fragments: vec4 values each.
    debug_fragment(&mut c).await;
    for k in 1..=8 {
        let p = timely(
            "Print",
            c.print(print_request(&format!("gl_FragCoord * {k}.0"), None)),
        )
        .await
        .expect("print")
        .into_inner();
        let s = p.summary.expect("a summary");
        assert_eq!(s.count, 1920 * 1080, "{k}");
        assert_eq!(s.max[0], 1919.5 * k as f64, "{k}");
    }
    let (rss1, shm1) = (rss(pid), shm_bytes(pid).unwrap());
    let app1 = status_bytes(app, "RssAnon:");
    assert!(
        rss1 > rss0 + 150 * MIB && shm1 > shm0 + 30 * MIB,
        "the probes took memory: rss {} -> {} MiB, shm {} -> {} MiB",
        rss0 / MIB,
        rss1 / MIB,
        shm0 / MIB,
        shm1 / MIB
    );

    timely("EndDebug", c.end_debug(pb::Empty {}))
        .await
        .expect("EndDebug");
    let (rss2, shm2) = (rss(pid), shm_bytes(pid).unwrap());
    // The app's memory, for the record (its debug renderbuffers are
    // deleted at `end`; the driver frees them at its own pace).
    let next = timely("Continue", c.r#continue(pb::Empty {}))
        .await
        .expect("Continue")
        .into_inner();
    assert_eq!(next.stop.as_ref().map(|s| s.draw), Some(2), "{next:?}");
    let app2 = status_bytes(app, "RssAnon:");
    assert!(
        // The request and reply areas (the first 8 MiB of the bulk region) stay.
        rss2 < rss0 + 16 * MIB && shm2 <= 9 * MIB,
        "after `end`: rss {} MiB (before the probes {}, with them {}), shm {} MiB \
         (before {}, with them {})",
        rss2 / MIB,
        rss0 / MIB,
        rss1 / MIB,
        shm2 / MIB,
        shm0 / MIB,
        shm1 / MIB
    );

    eprintln!(
        "memory before, with the probes, after end (app: at the next draw): daemon rss {} -> {} -> {} MiB, \
         shm {} -> {} -> {} MiB, app anon {} -> {} -> {} MiB",
        rss0 / MIB,
        rss1 / MIB,
        rss2 / MIB,
        shm0 / MIB,
        shm1 / MIB,
        shm2 / MIB,
        app0 / MIB,
        app1 / MIB,
        app2 / MIB,
    );

    // Values stay right after the release.
    debug_fragment(&mut c).await;
    let p = timely(
        "Print",
        c.print(print_request("gl_FragCoord.xy", pixel(1500, 900))),
    )
    .await
    .expect("print")
    .into_inner();
    assert_eq!(p.value, vec![1500.5, 900.5], "{p:?}");
    let p = timely("Print", c.print(print_request("gl_FragCoord * 3.0", None)))
        .await
        .expect("print")
        .into_inner();
    assert_eq!(p.summary.expect("a summary").max[1], 1079.5 * 3.0);

    // The app runs to its end with the debugging still on.
    timely(
        "DeleteBreakpoint",
        c.delete_breakpoint(pb::DeleteBreakpointRequest { id: bp.id }),
    )
    .await
    .expect("delete");
    let end = timely("Continue", c.r#continue(pb::Empty {}))
        .await
        .expect("Continue")
        .into_inner();
    assert_eq!(state(&end), pb::RunState::Exited, "{end:?}");
    // The app saw nothing: its bindings, errors and pixel (else exit 3).
    assert_eq!(end.exit.as_ref().and_then(|e| e.code), Some(0), "{end:?}");
    let deadline = Instant::now() + PROMPT;
    loop {
        let (rss3, shm3) = (rss(pid), shm_bytes(pid));
        if rss3 < rss0 + 16 * MIB && shm3.is_none() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "after the exit: rss {} MiB (before the probes {}), shm {:?}",
            rss3 / MIB,
            rss0 / MIB,
            shm3
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The app's process frozen by a cgroup freezer (v1 `freezer`, or v2
/// `cgroup.freeze`): unlike SIGSTOP, which its tracer sees, a frozen app
/// runs nothing until thawed. The cgroup is thawed and removed on drop.
struct Frozen {
    dir: PathBuf,
    v1: bool,
}

impl Frozen {
    /// None (said why) where no freezer can be used.
    fn freeze(pid: u32) -> Option<Frozen> {
        let name = format!("gldbg-test-{}", std::process::id());
        for (root, v1) in [("/sys/fs/cgroup/freezer", true), ("/sys/fs/cgroup", false)] {
            let control = if v1 { "freezer.state" } else { "cgroup.freeze" };
            if !Path::new(root).join(control).exists() && !v1 {
                continue;
            }
            let dir = Path::new(root).join(&name);
            if std::fs::create_dir(&dir).is_err() {
                continue;
            }
            let frozen = Frozen { dir, v1 };
            if std::fs::write(frozen.dir.join("cgroup.procs"), pid.to_string()).is_err() {
                continue;
            }
            let state = if v1 { "FROZEN" } else { "1" };
            if std::fs::write(frozen.dir.join(control), state).is_ok() {
                return Some(frozen);
            }
        }
        eprintln!(
            "\n*** SKIPPED: no usable cgroup freezer (needs root and a writable cgroupfs) ***\n"
        );
        None
    }

    fn thaw(&self) {
        let (control, state) = if self.v1 {
            ("freezer.state", "THAWED")
        } else {
            ("cgroup.freeze", "0")
        };
        let _ = std::fs::write(self.dir.join(control), state);
    }
}

impl Drop for Frozen {
    fn drop(&mut self) {
        self.thaw();
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::fs::remove_dir(&self.dir).is_err() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Continue from a debugged draw while the app is frozen (the preload
/// cannot answer the release of its debug objects), then the app dies:
/// GetState answers meanwhile and the Continue ends at once, not at the
/// command timeout (the release is not sent under the session's lock).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_app_dying_while_its_debug_objects_are_released_ends_the_continue_at_once() {
    require_workspace();
    let dir = TempDir::new("lifecycle-release");
    let socket = dir.join("d.sock");
    let _daemon = start_unix_daemon(&socket, &[]);
    let mut c = client(&socket).await;
    let stop = at_first_draw(&mut c, &["--size", "64x32"]).await;
    let Some(frozen) = Frozen::freeze(stop.pid) else {
        kill_app(&mut c).await;
        return;
    };
    let mut c2 = c.clone();
    let resume = tokio::spawn(async move { c2.r#continue(pb::Empty {}).await });
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert!(!resume.is_finished(), "the frozen app answered");
    timely_prompt(c.get_state(pb::Empty {}))
        .await
        .expect("GetState while the release waits");
    // SAFETY: a plain kill(2) of the app's pid.
    assert_eq!(unsafe { libc::kill(stop.pid as i32, libc::SIGKILL) }, 0);
    let killed = Instant::now();
    // A frozen (v1) task dies only once thawed.
    frozen.thaw();
    let _ = timely("Continue", resume).await.expect("the Continue task");
    let took = killed.elapsed();
    assert!(took < PROMPT, "the Continue ended {took:?} after the kill");
    let s = timely_prompt(c.get_state(pb::Empty {}))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(state(&s), pb::RunState::Exited, "{s:?}");
}
