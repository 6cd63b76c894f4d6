//! How `gldbg run` ends when a signal ends it, and what it leaves behind.
//!
//! As gdb's inferior, an app launched by `gldbg run` ends with gldbg unless it
//! was detached: the embedded daemon traces it with `PTRACE_O_EXITKILL`
//! (`Config::app_ends_with_daemon`), so whatever ends this process, SIGKILL
//! included, the kernel kills the app. What is left is ours to clean: on
//! SIGTERM, SIGHUP (a closed terminal) and, when nobody types at a REPL,
//! SIGINT, [`end_on_signals`] removes the socket directory, puts the
//! terminal back out of the line editor's raw mode, and ends the process by
//! the same signal (the default action, so a parent sees it). A
//! directory that a SIGKILLed gldbg left is removed by the next `gldbg run`
//! ([`sweep_stale_dirs`]).

use std::path::{Path, PathBuf};

use tokio::signal::unix::{SignalKind, signal};

/// The prefix of the embedded daemon's socket directories in the temp dir:
/// `gldbg-cli-PID-...`.
pub const DIR_PREFIX: &str = "gldbg-cli-";

/// Spawn (on the current tokio runtime) the task that ends gldbg on SIGTERM,
/// SIGHUP and, with `interrupt`, SIGINT (an interactive REPL keeps SIGINT:
/// there Ctrl-C pauses the app). The task removes `dir` first.
pub fn end_on_signals(dir: PathBuf, interrupt: bool) -> std::io::Result<()> {
    let mut term = signal(SignalKind::terminate())?;
    let mut hup = signal(SignalKind::hangup())?;
    let mut int = if interrupt {
        Some(signal(SignalKind::interrupt())?)
    } else {
        None
    };
    // The terminal as it is now, before the line editor makes it raw.
    let terminal = saved_terminal();
    tokio::spawn(async move {
        let interrupted = async {
            match &mut int {
                Some(s) => s.recv().await,
                None => std::future::pending().await,
            }
        };
        let sig = tokio::select! {
            _ = term.recv() => libc::SIGTERM,
            _ = hup.recv() => libc::SIGHUP,
            _ = interrupted => libc::SIGINT,
        };
        let _ = std::fs::remove_dir_all(&dir);
        if let Some(t) = terminal {
            restore_terminal(&t);
        }
        die_by(sig);
    });
    Ok(())
}

/// The settings of the terminal on stdin, if it is one.
fn saved_terminal() -> Option<libc::termios> {
    // SAFETY: tcgetattr writes one termios into the struct we pass; the
    // zeroed struct is a valid termios (plain integers and arrays).
    let (r, t) = unsafe {
        let mut t: libc::termios = std::mem::zeroed();
        (libc::tcgetattr(0, &mut t), t)
    };
    (r == 0).then_some(t)
}

/// Put the terminal back as [`saved_terminal`] found it (a REPL's raw mode
/// would otherwise outlive gldbg).
fn restore_terminal(t: &libc::termios) {
    // SAFETY: tcsetattr reads the termios we pass.
    unsafe { libc::tcsetattr(0, libc::TCSANOW, t) };
}

/// End the process by `sig`'s default action (terminate), as if no handler
/// had been installed; the exit status then says which signal it was.
fn die_by(sig: libc::c_int) -> ! {
    // SAFETY: signal(2) resets one signal to its default disposition and
    // raise(3) sends it to this thread; neither touches Rust-owned memory.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
    // Not reached: the default action of these signals ends the process.
    std::process::exit(128 + sig)
}

/// Remove the socket directories of gldbg processes that no longer exist
/// (a SIGKILLed gldbg cannot remove its own). Only this user's directories.
pub fn sweep_stale_dirs(base: &Path) {
    use std::os::unix::fs::MetadataExt as _;
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    // SAFETY: getuid(2) cannot fail and has no arguments.
    let uid = unsafe { libc::getuid() };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(owner_pid) else {
            continue;
        };
        let ours = entry.metadata().is_ok_and(|m| m.is_dir() && m.uid() == uid);
        if ours && !process_exists(pid) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The gldbg pid in a directory name `gldbg-cli-PID-...`.
fn owner_pid(name: &str) -> Option<i32> {
    let rest = name.strip_prefix(DIR_PREFIX)?;
    let pid = rest.split('-').next()?;
    pid.parse().ok().filter(|&p| p > 0)
}

/// Whether a process `pid` exists (a zombie counts; EPERM means it exists).
fn process_exists(pid: i32) -> bool {
    // SAFETY: kill(2) with signal 0 sends nothing; it only checks the pid.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directory_names() {
        assert_eq!(owner_pid("gldbg-cli-1234-18a7f-0"), Some(1234));
        assert_eq!(owner_pid("gldbg-cli-x-1"), None);
        assert_eq!(owner_pid("gldbg-tests-1234-0-a"), None);
        assert_eq!(owner_pid("gldbg-cli-0-1"), None);
    }

    #[test]
    fn stale_directories_go_live_ones_stay() {
        let base = std::env::temp_dir().join(format!("gldbg-sweep-test-{}", std::process::id()));
        std::fs::create_dir_all(&base).unwrap();
        // A pid that cannot exist (above the kernel's pid_max limit of 2^22).
        let stale = base.join(format!("{DIR_PREFIX}{}-1-0", (1 << 22) + 7));
        let live = base.join(format!("{DIR_PREFIX}{}-1-0", std::process::id()));
        let other = base.join("something-else");
        for d in [&stale, &live, &other] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(stale.join("gldbg.sock"), b"").unwrap();
        sweep_stale_dirs(&base);
        assert!(!stale.exists());
        assert!(live.exists() && other.exists());
        std::fs::remove_dir_all(&base).unwrap();
    }
}
