//! GL-level control on real apps (Mesa, EGL surfaceless): `break error`,
//! `break draw N`, `break shader-switch`, `info call` pointer contents,
//! `set arg I[K]`, `info state`, `pause`, `detach`/`kill`, threads, crash
//! reports, apps started by launcher scripts.
//!
//! Needs `libgldbg_preload.so` beside the test executable's directory
//! (`cargo build --workspace` first) and a C compiler for the test apps.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use gldbg_debugd::session::BreakKind;
use gldbg_debugd::{Config, LaunchOptions, Session};
use gldbg_proto::api::function_id;
use gldbg_proto::pb;
use gldbg_tests::{compile_c, preload};

fn control_app() -> &'static PathBuf {
    static APP: OnceLock<PathBuf> = OnceLock::new();
    APP.get_or_init(|| {
        // `control-` starts its name: apps_started_by_launcher_scripts checks it.
        compile_c(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/apps/control.c"),
            "control-app",
            &["-O0", "-lEGL", "-lpthread"],
        )
    })
}

fn threads_app() -> &'static PathBuf {
    static APP: OnceLock<PathBuf> = OnceLock::new();
    APP.get_or_init(|| {
        compile_c(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("../preload/tests/apps/threads.c"),
            "preload-threads",
            &["-lEGL", "-lpthread"],
        )
    })
}

fn scratch(tag: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("control-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn session() -> Arc<Session> {
    Session::new(Config {
        preload: preload(),
        app_ends_with_daemon: false,
    })
}

fn launch(s: &Arc<Session>, program: &Path, args: &[&str]) -> pb::StateReply {
    let r = s
        .launch(LaunchOptions {
            program: program.display().to_string(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: vec!["MESA_SHADER_CACHE_DISABLE=true".into()],
            cwd: None,
            // As an interactive `gldbg run` does: Ctrl-C reaches only gldbg.
            own_process_group: true,
            capture_output: false,
            stdin_null: false,
        })
        .expect("launch");
    assert_eq!(r.state(), pb::RunState::Stopped, "{r:?}");
    r
}

fn stop_of(r: &pb::StateReply) -> &pb::CallInfo {
    assert_eq!(r.state(), pb::RunState::Stopped, "{r:?}");
    r.stop.as_ref().expect("a stop")
}

fn exited_ok(r: &pb::StateReply) {
    assert_eq!(r.state(), pb::RunState::Exited, "{r:?}");
    assert_eq!(r.exit.as_ref().and_then(|e| e.code), Some(0), "{r:?}");
}

fn bp(name: &str) -> BreakKind {
    BreakKind::Function(function_id(name).unwrap())
}

fn arg<'a>(c: &'a pb::CallInfo, name: &str) -> &'a pb::Argument {
    c.args
        .iter()
        .find(|a| a.name == name)
        .unwrap_or_else(|| panic!("no argument {name} in {c:?}"))
}

#[test]
fn break_error_stops_after_the_call_and_the_app_keeps_its_error() {
    let dir = scratch("error");
    let out = dir.join("out.txt");
    let s = session();
    launch(&s, control_app(), &["errors", out.to_str().unwrap()]);
    let b = s.add_breakpoint(BreakKind::GlError);
    let r = s.continue_().unwrap();
    let c = stop_of(&r);
    assert_eq!(c.function, "glEnable");
    assert_eq!(c.error, "GL_INVALID_ENUM");
    assert_eq!(r.breakpoint_id, b.id);
    let info = s.info_call().unwrap();
    assert_eq!(info.error, "GL_INVALID_ENUM");
    assert_eq!(arg(&info, "cap").raw, 0x1234);
    // Executed already: it cannot be skipped or edited.
    assert!(s.skip().is_err());
    let list = s.list_breakpoints();
    assert_eq!(list.breakpoints[0].description, "error");
    assert_eq!(list.breakpoints[0].hits, 1);
    // The rest of the app raises no error: it runs to its end.
    exited_ok(&s.continue_().unwrap());
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains("app error 0x500\nthen 0\n"),
        "the app must get its own error once: {text}"
    );
    assert!(text.contains("final error 0\n"), "{text}");
    assert_eq!(s.list_breakpoints().breakpoints[0].hits, 1);
}

#[test]
fn draw_n_shader_switch_pointer_contents_set_arg_element_and_state() {
    let dir = scratch("draw");
    let out = dir.join("out.txt");
    let s = session();
    launch(&s, control_app(), &["errors", out.to_str().unwrap()]);
    let use_program = s.add_breakpoint(BreakKind::ShaderSwitch);
    s.add_breakpoint(bp("glGetUniformLocation"));
    s.add_breakpoint(bp("glUniform4fv"));
    s.add_breakpoint(bp("glBufferData"));
    let draw2 = s.add_breakpoint(BreakKind::DrawNumber(2));

    let r = s.continue_().unwrap();
    assert_eq!(stop_of(&r).function, "glUseProgram");
    assert_eq!(r.breakpoint_id, use_program.id);

    let r = s.continue_().unwrap();
    assert_eq!(stop_of(&r).function, "glGetUniformLocation");
    assert_eq!(arg(&s.info_call().unwrap(), "name").contents, "u_color");

    let r = s.continue_().unwrap();
    assert_eq!(stop_of(&r).function, "glUniform4fv");
    assert_eq!(
        arg(&s.info_call().unwrap(), "value").contents,
        "[0.25, 0.5, 0.75, 1]"
    );
    // Element 1 of the array the pointer argument points at, in the app's memory.
    let c = s.set_arg(2, Some(1), "0.125").unwrap();
    assert_eq!(arg(&c, "value").contents, "[0.25, 0.125, 0.75, 1]");
    assert!(
        s.set_arg(2, Some(4), "1").is_err(),
        "out of range: count*4 = 4 elements"
    );
    assert!(s.set_arg(0, Some(0), "1").is_err(), "not a pointer");

    let r = s.continue_().unwrap();
    assert_eq!(stop_of(&r).function, "glBufferData");
    let hex = (0..24)
        .map(|i| format!("{i:02x}"))
        .collect::<Vec<_>>()
        .join(" ");
    assert_eq!(arg(&s.info_call().unwrap(), "data").contents, hex);
    let r = s.continue_().unwrap(); // the vertex buffer's glBufferData
    assert_eq!(arg(stop_of(&r), "size").value, "24", "{r:?}");

    let r = s.continue_().unwrap();
    let c = stop_of(&r);
    assert_eq!((c.function.as_str(), c.draw), ("glDrawArrays", 2));
    assert_eq!(r.breakpoint_id, draw2.id);

    let st = s.info_state("GL_VIEWPORT").unwrap();
    assert_eq!(st.values[0].values, [0.0, 0.0, 64.0, 48.0]);
    let all = s.info_state("").unwrap();
    let get = |n: &str| {
        all.values
            .iter()
            .find(|v| v.name == n)
            .unwrap_or_else(|| panic!("{n}"))
            .clone()
    };
    assert_eq!(get("GL_VIEWPORT").values, [0.0, 0.0, 64.0, 48.0]);
    assert_eq!(get("GL_DEPTH_TEST").values, [0.0]);
    assert!(get("GL_CURRENT_PROGRAM").values[0] > 0.0);
    assert_eq!(get("GL_BLEND_SRC_RGB").values, [1.0]); // GL_ONE
    assert!(all.values.iter().all(|v| v.error.is_empty()), "{all:?}");
    // A name that is no state: the query's error is reported, never left for the app.
    let bad = s.info_state("GL_TEXTURE_2D").unwrap();
    assert_eq!(bad.values[0].error, "GL_INVALID_ENUM");
    assert!(s.info_state("GL_NO_SUCH_NAME").is_err());

    let hits: Vec<u64> = s
        .list_breakpoints()
        .breakpoints
        .iter()
        .map(|b| b.hits)
        .collect();
    assert_eq!(hits, [1, 1, 1, 2, 1]);
    // `skip`: draw 2 is not executed; the next call (draw 3) stops.
    let r = s.skip().unwrap();
    let c = stop_of(&r);
    assert_eq!((c.function.as_str(), c.draw), ("glDrawArrays", 3));
    assert!(s.delete_breakpoint(99).is_err());
    let left = s.delete_breakpoint(draw2.id).unwrap();
    assert_eq!(left.breakpoints.len(), 4);
    s.delete_breakpoint(0).unwrap();
    exited_ok(&s.continue_().unwrap());
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains("uniform 0.25 0.125 0.75 1\n"),
        "the app sees the edited element: {text}"
    );
    assert!(
        text.contains("final error 0\n"),
        "info state left no error: {text}"
    );
}

/// States of every thread of `pid` (`/proc/PID/task/*/stat` field 3).
fn thread_states(pid: u32) -> Vec<char> {
    let mut v = Vec::new();
    for t in std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .flatten()
    {
        if let Ok(st) = std::fs::read_to_string(t.path().join("stat"))
            && let Some(i) = st.rfind(')')
        {
            v.push(st[i + 2..].chars().next().unwrap());
        }
    }
    v
}

/// How long a test waits for a state it polls for. A guard against hangs,
/// not a timing assertion.
const HANG: Duration = Duration::from_secs(60);

/// Polls until `ready` holds, failing with `what` after [`HANG`].
#[track_caller]
fn wait_until(what: &str, mut ready: impl FnMut() -> bool) {
    let t = Instant::now();
    while !ready() {
        assert!(t.elapsed() < HANG, "{what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// `control spin-until GATE`: its files (the gate the test creates to let
/// it end, and the one the app creates once it spins).
struct Spin {
    gate: PathBuf,
    spinning: PathBuf,
}

impl Spin {
    fn new(tag: &str) -> Spin {
        let dir = scratch(tag);
        Spin {
            gate: dir.join("gate"),
            spinning: dir.join("gate.spinning"),
        }
    }

    fn args(&self) -> [&str; 2] {
        ["spin-until", self.gate.to_str().unwrap()]
    }

    /// Continues `s` on another thread; returns once the session says
    /// Running and the app has reached its spin loop (outside GL).
    fn run(&self, s: &Arc<Session>) -> std::thread::JoinHandle<pb::StateReply> {
        let s2 = s.clone();
        let running = std::thread::spawn(move || s2.continue_().expect("continue"));
        wait_until("the app never reached its spin loop", || {
            s.get_state().state() == pb::RunState::Running && self.spinning.exists()
        });
        running
    }

    /// Lets the app leave its loop and end.
    fn release(&self) {
        std::fs::write(&self.gate, "").unwrap();
    }
}

/// User-mode CPU time of `pid` in clock ticks (`/proc/PID/stat` field 14).
fn utime(pid: u32) -> u64 {
    let st = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    st[st.rfind(')').unwrap() + 2..]
        .split(' ')
        .nth(11)
        .unwrap()
        .parse()
        .unwrap()
}

/// `TracerPid` of `pid`, `None` once it is gone.
fn tracer_of(pid: u32) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("TracerPid:").map(|v| v.trim().to_string()))
}

/// Whether `pid` has ended (gone, or a zombie of this process).
fn ended(pid: u32) -> bool {
    let st = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    st.is_empty() || st.contains(") Z")
}

#[test]
fn pause_stops_a_busy_app_and_continue_resumes_it() {
    let spin = Spin::new("pause");
    let s = session();
    launch(&s, control_app(), &spin.args());
    let pid = stop_of(&s.get_state()).pid;
    assert!(pid > 0);
    // Its own process group: a terminal's Ctrl-C would reach only the debugger.
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let pgrp: u32 = stat[stat.rfind(')').unwrap() + 2..]
        .split(' ')
        .nth(2)
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(pgrp, pid);
    let running = spin.run(&s);
    let r = s.pause().unwrap();
    let c = stop_of(&r);
    assert!(c.paused && c.function.is_empty() && c.pc != 0, "{c:?}");
    assert_eq!(c.thread, pid, "the main thread is reported");
    // The pending `continue` returns at the pause.
    let r2 = running.join().unwrap();
    assert!(stop_of(&r2).paused);
    let states = thread_states(pid);
    assert!(
        states.iter().all(|&st| st == 't'),
        "every thread in a tracing stop: {states:?}"
    );
    let e = s.info_call().unwrap_err().to_string();
    assert!(e.contains("paused"), "{e}");
    assert!(s.pause().is_err(), "already stopped");
    // Continued, it spins again (its CPU time grows) and does not end by
    // itself: the gate is still closed.
    let paused_at = utime(pid);
    let s2 = s.clone();
    let resumed = std::thread::spawn(move || s2.continue_());
    wait_until("the continued app never ran again", || {
        utime(pid) > paused_at
    });
    assert!(!ended(pid), "the app ended before its gate opened");
    spin.release();
    exited_ok(&resumed.join().unwrap().unwrap());
}

#[test]
fn detach_and_kill_while_stopped_and_while_running() {
    // Kill while stopped at a GL call.
    let spin = Spin::new("kill-stopped");
    let s = session();
    launch(&s, control_app(), &spin.args());
    let r = s.kill().unwrap();
    assert_eq!(r.state(), pb::RunState::Exited, "{r:?}");
    assert_eq!(r.exit.as_ref().and_then(|e| e.signal), Some(libc::SIGKILL));

    // Kill while running (spinning outside GL; its gate is never opened).
    let spin = Spin::new("kill-running");
    let s = session();
    launch(&s, control_app(), &spin.args());
    let running = spin.run(&s);
    let r = s.kill().unwrap();
    assert_eq!(r.state(), pb::RunState::Exited, "{r:?}");
    assert_eq!(r.exit.as_ref().and_then(|e| e.signal), Some(libc::SIGKILL));
    assert_eq!(running.join().unwrap().state(), pb::RunState::Exited);

    // Detach while stopped: the app runs on alone and finishes its work.
    let dir = scratch("detach");
    let out = dir.join("out.txt");
    let s = session();
    launch(&s, control_app(), &["errors", out.to_str().unwrap()]);
    s.add_breakpoint(BreakKind::GlError);
    stop_of(&s.continue_().unwrap());
    let r = s.detach().unwrap();
    assert_eq!(r.state(), pb::RunState::Exited, "{r:?}");
    wait_until("the detached app did not finish", || {
        std::fs::read_to_string(&out)
            .unwrap_or_default()
            .contains("done")
    });
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .contains("app error 0x500\n")
    );

    // Detach while running freely (spinning outside GL): still alive (its
    // gate is closed) and traced by no one; it ends once the gate opens.
    let spin = Spin::new("detach-running");
    let s = session();
    launch(&s, control_app(), &spin.args());
    let pid = stop_of(&s.get_state()).pid;
    let running = spin.run(&s);
    let r = s.detach().unwrap();
    assert_eq!(r.state(), pb::RunState::Exited, "{r:?}");
    assert_eq!(running.join().unwrap().state(), pb::RunState::Exited);
    assert_eq!(tracer_of(pid).as_deref(), Some("0"), "detached, alive");
    spin.release();
    wait_until("the detached app did not end", || ended(pid));

    // Detach while running (paused first, then detached: every held thread goes).
    let spin = Spin::new("detach-paused");
    let s = session();
    launch(&s, control_app(), &spin.args());
    let running = spin.run(&s);
    let pid = stop_of(&s.pause().unwrap()).pid;
    running.join().unwrap();
    s.detach().unwrap();
    assert_eq!(tracer_of(pid).as_deref(), Some("0"), "detached, alive");
    // Not stopped any more: it runs (its CPU time grows), then ends by itself.
    let detached_at = utime(pid);
    wait_until("the detached app never ran", || utime(pid) > detached_at);
    spin.release();
    wait_until("the detached app did not end", || ended(pid));
}

#[test]
fn each_gl_thread_stops_in_its_own_slot() {
    let s = session();
    launch(&s, threads_app(), &[]);
    s.add_breakpoint(bp("glDrawArrays"));
    let a = stop_of(&s.continue_().unwrap()).clone();
    let b = stop_of(&s.continue_().unwrap()).clone();
    assert_eq!(
        (a.function.as_str(), b.function.as_str()),
        ("glDrawArrays", "glDrawArrays")
    );
    assert_ne!(a.thread, b.thread, "two threads stop, each named");
    assert_ne!(a.thread, a.pid, "not the main thread");
    exited_ok(&s.continue_().unwrap());
}

#[test]
fn crash_report_lists_the_calls_gldbg_saw() {
    let s = session();
    launch(&s, control_app(), &["crash"]);
    s.add_breakpoint(bp("glClear"));
    s.add_breakpoint(bp("glFinish"));
    stop_of(&s.continue_().unwrap());
    stop_of(&s.continue_().unwrap());
    let r = s.continue_().unwrap();
    let crash = r.crash.expect("a crash report");
    assert_eq!(crash.signal, libc::SIGSEGV);
    let seen: Vec<&str> = crash
        .stopped_calls_seen
        .iter()
        .map(|c| c.function.as_str())
        .collect();
    assert_eq!(seen.last(), Some(&"glFinish"), "{seen:?}");
    assert!(seen.contains(&"glClear"), "{seen:?}");
    assert!(seen.len() <= 8);
    // The app keeps wrapper addresses (from eglGetProcAddress) in locals on
    // its stack; they are no return addresses and must not be taken for the
    // call in flight.
    assert_eq!(
        crash.call.as_ref().unwrap().function,
        "glFinish",
        "{:?}",
        crash.call
    );
    assert!(!crash.in_call);
}

#[test]
fn apps_started_by_launcher_scripts_are_debuggable() {
    let dir = scratch("scripts");
    let app = control_app();
    for (shell, package, exec) in [
        ("/bin/sh", "dash", true),
        ("/bin/sh", "dash", false),
        ("/bin/bash", "bash", true),
        ("/bin/bash", "bash", false),
    ] {
        assert!(
            Path::new(shell).exists(),
            "{shell} is missing: install the Debian package {package} (`bash .ci/setup`)"
        );
        let out = dir.join(format!("out-{}-{exec}.txt", shell.replace('/', "_")));
        let script = dir.join(format!("run-{}-{exec}.sh", shell.replace('/', "_")));
        // Without exec the shell must fork: a command follows the app.
        let body = if exec {
            format!("exec {} \"$@\"\n", app.display())
        } else {
            format!("{} \"$@\"\nexit $?\n", app.display())
        };
        std::fs::write(&script, format!("#!{shell}\n{body}")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let s = session();
        launch(&s, &script, &["errors", out.to_str().unwrap()]);
        s.add_breakpoint(BreakKind::DrawNumber(1));
        let r = s.continue_().unwrap();
        let c = stop_of(&r);
        assert_eq!(c.function, "glDrawArrays", "{shell} exec={exec}");
        let info = s.info_call().unwrap();
        assert_eq!(arg(&info, "count").value, "3");
        // The GL process is the one that claimed the session.
        let comm = std::fs::read_to_string(format!("/proc/{}/comm", c.pid)).unwrap();
        assert!(comm.starts_with("control-"), "{shell} exec={exec}: {comm}");
        let ppid: u32 = std::fs::read_to_string(format!("/proc/{}/status", c.pid))
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("PPid:").map(|v| v.trim().parse().unwrap()))
            .unwrap();
        // exec: the launched process itself (our child); else the shell's child.
        assert_eq!(ppid == std::process::id(), exec, "{shell} exec={exec}");
        exited_ok(&s.continue_().unwrap());
        assert!(std::fs::read_to_string(&out).unwrap().contains("done\n"));
    }
}

#[test]
fn a_child_process_of_the_app_runs_untouched_and_its_crash_is_no_app_crash() {
    let s = session();
    let mut events = s.subscribe();
    let first = launch(&s, control_app(), &["forkchild"]);
    let app_pid = stop_of(&first).pid;
    s.add_breakpoint(bp("glClear"));
    // The child (fork + exec, it calls glClear too) never stops: only the
    // process that claimed the session does.
    let r = s.continue_().unwrap();
    let c = stop_of(&r);
    assert_eq!((c.function.as_str(), c.pid), ("glClear", app_pid), "{c:?}");
    let r = s.continue_().unwrap();
    exited_ok(&r);
    assert!(r.crash.is_none(), "{r:?}");
    let mut warned = false;
    while let Ok(ev) = events.try_recv() {
        if let Some(pb::event::Kind::Warning(w)) = ev.kind {
            warned |= w.contains("child process") && w.contains("SIGSEGV");
        }
    }
    assert!(warned, "the child's crash is reported as a warning");
}
