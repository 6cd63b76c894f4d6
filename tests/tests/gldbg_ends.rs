//! Issue 11, point 10: an app launched by `gldbg run` ends with gldbg, as
//! gdb's inferior does, whatever ends gldbg: SIGTERM (`timeout`, `kill`),
//! SIGHUP (a closed terminal), Ctrl-C (SIGINT) at a `--batch` run, and even
//! SIGKILL. Nothing is left in the temp dir: the socket directory goes with
//! gldbg, and the one a SIGKILLed gldbg could not remove goes at the next
//! `gldbg run`. (`gldbg-debugd` keeps the other rule, the app survives the
//! daemon: survival.rs.)
//!
//! The test process is a child subreaper, so the app, orphaned when gldbg
//! dies, is reparented to it: the test reads how the app ended.

mod support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use gldbg_tests::*;
use support::*;

const WAIT: Duration = Duration::from_secs(30);

/// The entries of `dir` that are gldbg's socket directories.
fn socket_dirs(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("gldbg-cli-"))
        .collect()
}

/// `gldbg run --batch -x SCRIPT -- survivor ...` with TMPDIR=`tmp`, once
/// the app runs and has printed a tick (without `--json` the app's output
/// reaches gldbg's stdout directly); returns gldbg and the app's pid.
fn start_running(tmp: &TempDir) -> (Child, i32) {
    let script = tmp.join("continue.gldbg");
    std::fs::write(&script, "continue\n").unwrap();
    let mut gldbg = Command::new(gldbg())
        .args(["run", "--batch", "-x"])
        .arg(&script)
        .arg("--")
        .arg(survivor())
        .args(["--frames", "100000000", "--tick", "20"])
        .env("TMPDIR", tmp.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start gldbg");
    let (tx, rx) = channel();
    let stdout = gldbg.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line.starts_with("tick ") {
                let _ = tx.send(());
            }
        }
    });
    if rx.recv_timeout(WAIT).is_err() {
        let _ = gldbg.kill();
        panic!("the app did not start running under gldbg");
    }
    let app = children(gldbg.id() as i32)
        .into_iter()
        .find(|&pid| comm(pid) == "survivor")
        .unwrap_or_else(|| panic!("survivor is not a child of gldbg"));
    (gldbg, app)
}

/// The children of every thread of process `pid`.
fn children(pid: i32) -> Vec<i32> {
    let mut found = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return found; // ended
    };
    for task in tasks.flatten() {
        let list = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        found.extend(
            list.split_whitespace()
                .filter_map(|p| p.parse::<i32>().ok()),
        );
    }
    found
}

fn comm(pid: i32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// Waits (bounded) for the orphaned app, now our child; the signal that
/// ended it, or a failure if it is still running (it is killed then).
fn app_end_signal(app: i32) -> Option<i32> {
    let deadline = Instant::now() + WAIT;
    loop {
        let mut status = 0;
        // SAFETY: waitpid on a specific pid with a valid status pointer.
        let r = unsafe { libc::waitpid(app, &mut status, libc::WNOHANG) };
        if r == app {
            return libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status));
        }
        if Instant::now() > deadline {
            // SAFETY: kill(2) on the orphan we are about to report.
            unsafe { libc::kill(app, libc::SIGKILL) };
            panic!("the app {app} still runs after gldbg ended (orphaned)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_app_ends_with_gldbg_and_nothing_is_left_in_tmp() {
    require_workspace();
    // SAFETY: prctl with integer arguments only.
    let r = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    assert_eq!(r, 0, "PR_SET_CHILD_SUBREAPER");
    for (name, sig) in [
        ("SIGTERM", libc::SIGTERM),
        ("SIGHUP", libc::SIGHUP),
        ("SIGINT", libc::SIGINT),
        ("SIGKILL", libc::SIGKILL),
    ] {
        let tmp = TempDir::new(&format!("ends-{name}"));
        let (mut session, app) = start_running(&tmp);
        assert_eq!(socket_dirs(tmp.path()).len(), 1, "{name}: the socket dir");
        // SAFETY: kill(2) on our own child, not reaped yet.
        unsafe { libc::kill(session.id() as i32, sig) };
        let status = session.wait().unwrap();
        use std::os::unix::process::ExitStatusExt as _;
        assert_eq!(status.signal(), Some(sig), "{name}: gldbg ends by it");
        assert_eq!(
            app_end_signal(app),
            Some(libc::SIGKILL),
            "{name}: the app is killed with gldbg"
        );
        if sig != libc::SIGKILL {
            assert_eq!(socket_dirs(tmp.path()), Vec::<String>::new(), "{name}");
            continue;
        }
        // A SIGKILLed gldbg leaves its directory; the next run removes it.
        assert_eq!(socket_dirs(tmp.path()).len(), 1, "{name}");
        let script = tmp.join("short.gldbg");
        std::fs::write(&script, "continue\n").unwrap();
        let mut next = Command::new(gldbg());
        next.args(["run", "--batch", "--json", "-x"])
            .arg(&script)
            .arg("--")
            .arg(survivor())
            .args(["--frames", "1"])
            .env("TMPDIR", tmp.path());
        let out = run_command(next);
        assert!(out.status.success(), "{}", out.transcript());
        assert_eq!(socket_dirs(tmp.path()), Vec::<String>::new(), "{name}");
    }
}

/// A detached app is no longer gldbg's: it runs on after gldbg ends, to
/// its own exit.
#[test]
fn a_detached_app_outlives_gldbg() {
    require_workspace();
    // SAFETY: prctl with integer arguments only.
    let r = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    assert_eq!(r, 0, "PR_SET_CHILD_SUBREAPER");
    let tmp = TempDir::new("ends-detach");
    let script = tmp.join("detach.gldbg");
    std::fs::write(&script, "detach\n").unwrap();
    let mut session = Command::new(gldbg())
        .args(["run", "--batch", "--json", "-x"])
        .arg(&script)
        .arg("--")
        .arg(survivor())
        .args(["--frames", "300", "--tick", "100"])
        .env("TMPDIR", tmp.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .expect("start gldbg");
    let gldbg_pid = session.id() as i32;
    // The app: a child of gldbg while gldbg lives, then of this process.
    let deadline = Instant::now() + WAIT;
    let app = loop {
        let mut candidates = children(gldbg_pid);
        candidates.extend(children(std::process::id() as i32));
        if let Some(pid) = candidates.into_iter().find(|&p| comm(p) == "survivor") {
            break pid;
        }
        assert!(Instant::now() < deadline, "survivor did not start");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(session.wait().unwrap().success());
    assert_eq!(socket_dirs(tmp.path()), Vec::<String>::new());
    // Reparented to us: it ends by itself, with status 0.
    let deadline = Instant::now() + WAIT;
    loop {
        let mut status = 0;
        // SAFETY: waitpid on a specific pid with a valid status pointer.
        let r = unsafe { libc::waitpid(app, &mut status, libc::WNOHANG) };
        if r == app {
            assert!(
                libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
                "the detached app ends by itself with 0 (status {status:#x})"
            );
            break;
        }
        assert!(Instant::now() < deadline, "the detached app did not end");
        std::thread::sleep(Duration::from_millis(20));
    }
}
