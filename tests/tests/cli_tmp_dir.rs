//! Issue 12, point 12: `gldbg run` sitting at its prompt (commands from a
//! pipe nobody writes to) leaves nothing in the temp dir whatever ends it:
//! SIGHUP (the terminal closed), SIGTERM, SIGINT, SIGQUIT and SIGABRT (an
//! abort: no unwinding, the directory goes from a signal handler). A
//! directory whose owner died without cleaning (SIGKILL), or whose pid now
//! belongs to a later process, goes at the next `gldbg run`.

use std::io::{BufRead, BufReader};
use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::channel;
use std::time::Duration;

use gldbg_tests::*;

/// The entries of `dir` that are gldbg's socket directories.
fn socket_dirs(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("gldbg-cli-"))
        .collect()
}

/// `gldbg run -- egl_shade` with TMPDIR=`tmp`, commands from a pipe we hold
/// open, once it has stopped at the first call and waits for a command.
fn at_prompt(tmp: &TempDir) -> Child {
    let mut cmd = Command::new(gldbg());
    cmd.args(["run", "--"])
        .arg(egl_shade())
        .env("TMPDIR", tmp.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    // SAFETY: setrlimit(2) in the child before exec, no allocation: a
    // SIGQUIT/SIGABRT leaves no core file behind.
    unsafe {
        cmd.pre_exec(|| {
            let none = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_CORE, &none);
            Ok(())
        });
    }
    let mut gldbg = cmd.spawn().expect("start gldbg");
    let (tx, rx) = channel();
    let stdout = gldbg.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line.starts_with("Stopped at") {
                let _ = tx.send(());
            }
        }
    });
    if rx.recv_timeout(Duration::from_secs(30)).is_err() {
        let _ = gldbg.kill();
        panic!("gldbg did not stop at the app's first call");
    }
    gldbg
}

#[test]
fn every_signal_and_an_abort_remove_the_socket_directory() {
    require_workspace();
    for (name, sig) in [
        ("SIGHUP", libc::SIGHUP),
        ("SIGTERM", libc::SIGTERM),
        ("SIGINT", libc::SIGINT),
        ("SIGQUIT", libc::SIGQUIT),
        ("SIGABRT", libc::SIGABRT),
    ] {
        let tmp = TempDir::new(&format!("tmpdir-{name}"));
        let mut gldbg = at_prompt(&tmp);
        assert_eq!(socket_dirs(tmp.path()).len(), 1, "{name}: the socket dir");
        // SAFETY: kill(2) on our own child, not reaped yet.
        unsafe { libc::kill(gldbg.id() as i32, sig) };
        let status = gldbg.wait().unwrap();
        assert_eq!(status.signal(), Some(sig), "{name}: gldbg ends by it");
        assert_eq!(
            socket_dirs(tmp.path()),
            Vec::<String>::new(),
            "{name}: left behind"
        );
    }
}

#[test]
fn the_next_run_sweeps_directories_of_dead_and_replaced_owners() {
    require_workspace();
    let tmp = TempDir::new("tmpdir-sweep");
    // A SIGKILLed gldbg leaves its directory.
    let mut killed = at_prompt(&tmp);
    killed.kill().unwrap();
    killed.wait().unwrap();
    assert_eq!(socket_dirs(tmp.path()).len(), 1, "SIGKILL leaves it");
    // An aborted gldbg whose pid was reused: pid 1 runs, but it started
    // long after 1970 (the creation time in the name, hex ns since the epoch).
    let reused = tmp.join("gldbg-cli-1-0-0");
    std::fs::create_dir(&reused).unwrap();
    std::fs::write(reused.join("gldbg.sock"), b"").unwrap();
    // A live gldbg's directory stays: this process, made now.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let live = tmp.join(&format!("gldbg-cli-{}-{now:x}-0", std::process::id()));
    std::fs::create_dir(&live).unwrap();

    let mut next = at_prompt(&tmp);
    let left = socket_dirs(tmp.path());
    next.kill().unwrap();
    next.wait().unwrap();
    let live_name = live.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        left.contains(&live_name),
        "a live owner's directory went: {left:?}"
    );
    assert_eq!(
        left.len(),
        2,
        "the next run's own and the live one only: {left:?}"
    );
    assert!(!reused.exists());
}
