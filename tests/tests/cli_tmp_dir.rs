//! Issue 12, point 12: `gldbg run` sitting at its prompt (commands from a
//! pipe nobody writes to) leaves nothing in the temp dir whatever ends it:
//! SIGHUP (the terminal closed), SIGTERM, SIGINT, SIGQUIT and SIGABRT (an
//! abort: no unwinding, the directory goes from a signal handler). A
//! directory whose owner died without cleaning (SIGKILL), or whose pid now
//! belongs to a later process, goes at the next `gldbg run`. The same holds
//! for a session with a generated token's file and rejected debug shaders
//! saved (a subdirectory): nothing of gldbg stays in the temp dir or
//! `$XDG_RUNTIME_DIR`.

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
    start(tmp, None, &[]).0
}

/// What a started `gldbg run` wrote (stdout and stderr), line by line.
type OutputLines = std::sync::mpsc::Receiver<String>;

/// [`at_prompt`] with `XDG_RUNTIME_DIR`=`xdg` (when given) and more `run`
/// arguments; also returns its stdin and its output's lines.
fn start(
    tmp: &TempDir,
    xdg: Option<&Path>,
    args: &[&str],
) -> (Child, std::process::ChildStdin, OutputLines) {
    let mut cmd = Command::new(gldbg());
    cmd.arg("run")
        .args(args)
        .arg("--")
        .arg(egl_shade())
        .env("TMPDIR", tmp.path())
        .env_remove("GLDBG_KEEP_DEBUG_SHADERS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(xdg) = xdg {
        cmd.env("XDG_RUNTIME_DIR", xdg);
    }
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
    let (err_tx, err_rx) = channel();
    let stdout = gldbg.stdout.take().unwrap();
    let out_tx = err_tx.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line.starts_with("Stopped at") {
                let _ = tx.send(());
            }
            let _ = out_tx.send(line);
        }
    });
    let stderr = gldbg.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = err_tx.send(line);
        }
    });
    if rx.recv_timeout(Duration::from_secs(30)).is_err() {
        let _ = gldbg.kill();
        panic!("gldbg did not stop at the app's first call");
    }
    let stdin = gldbg.stdin.take().unwrap();
    (gldbg, stdin, err_rx)
}

/// The first output line containing `what` (within 60 s).
fn wait_for(lines: &OutputLines, what: &str) -> String {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
        match lines.recv_timeout(left) {
            Ok(line) if line.contains(what) => return line,
            Ok(_) => {}
            Err(_) => break,
        }
    }
    panic!("gldbg never said {what:?}");
}

/// Everything of gldbg's (any name starting with `gldbg`) in `dir`.
fn gldbg_entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("gldbg"))
        .collect()
}

/// The signals that end `gldbg run`, SIGQUIT and SIGABRT through the abort
/// handler (no unwinding, no destructors).
const ENDINGS: [(&str, libc::c_int); 5] = [
    ("SIGHUP", libc::SIGHUP),
    ("SIGTERM", libc::SIGTERM),
    ("SIGINT", libc::SIGINT),
    ("SIGQUIT", libc::SIGQUIT),
    ("SIGABRT", libc::SIGABRT),
];

#[test]
fn every_signal_and_an_abort_remove_the_socket_directory() {
    require_workspace();
    for (name, sig) in ENDINGS {
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

/// A session with something to clean: TCP with a generated token (its file)
/// and a debug shader the driver rejected (its source and log saved, in a
/// subdirectory). Whatever signal ends it, nothing of gldbg stays in the
/// temp dir or in `$XDG_RUNTIME_DIR`.
#[test]
fn every_signal_and_an_abort_remove_the_token_and_the_saved_shaders() {
    use std::io::Write as _;
    use std::os::unix::fs::PermissionsExt as _;
    require_workspace();
    for (name, sig) in ENDINGS {
        let tmp = TempDir::new(&format!("tmpdir-full-{name}"));
        let xdg_dir = TempDir::new(&format!("xdg-{name}"));
        // A usable runtime dir: ours, 0700.
        let xdg = xdg_dir.join("run");
        std::fs::create_dir(&xdg).unwrap();
        std::fs::set_permissions(&xdg, std::fs::Permissions::from_mode(0o700)).unwrap();
        let (mut gldbg, mut stdin, output) = start(&tmp, Some(&xdg), &["--listen", "127.0.0.1:0"]);
        let said = wait_for(&output, "the token for");
        let token = paths_in(&said)
            .into_iter()
            .find(|p| p.ends_with("token"))
            .unwrap_or_else(|| panic!("{name}: no token file in {said}"));
        assert!(token.is_file(), "{name}: {}", token.display());
        stdin
            .write_all(b"break draw\ncontinue\ndebug fragment\nprint float[2](1.0)\n")
            .unwrap();
        let err = wait_for(&output, "generated source saved to");
        let saved: Vec<_> = paths_in(&err).into_iter().filter(|p| p.is_file()).collect();
        assert_eq!(saved.len(), 2, "{name}: source and log saved: {err}");
        // SAFETY: kill(2) on our own child, not reaped yet.
        unsafe { libc::kill(gldbg.id() as i32, sig) };
        let status = gldbg.wait().unwrap();
        assert_eq!(status.signal(), Some(sig), "{name}: gldbg ends by it");
        drop(stdin);
        assert!(!token.exists(), "{name}: {} left", token.display());
        for f in &saved {
            assert!(!f.exists(), "{name}: {} left", f.display());
        }
        assert_eq!(
            gldbg_entries(tmp.path()),
            Vec::<String>::new(),
            "{name}: left in TMPDIR"
        );
        assert_eq!(
            gldbg_entries(&xdg),
            Vec::<String>::new(),
            "{name}: left in XDG_RUNTIME_DIR"
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
