//! How `gldbg run` ends when a signal ends it, and what it leaves behind.
//!
//! As gdb's inferior, an app launched by `gldbg run` ends with gldbg unless it
//! was detached: the embedded daemon traces it with `PTRACE_O_EXITKILL`
//! (`Config::app_ends_with_daemon`), so whatever ends this process, SIGKILL
//! included, the kernel kills the app. What is left is ours to clean: on
//! SIGTERM, SIGHUP (a closed terminal) and, when nobody types at a REPL,
//! SIGINT, [`end_on_signals`] removes the socket directory, puts the
//! terminal back out of the line editor's raw mode, and ends the process by
//! the same signal (the default action, so a parent sees it). An abort
//! (SIGABRT: `abort()`, a panic while panicking, a stack overflow) and
//! SIGQUIT remove it from a signal handler with raw syscalls only
//! ([`remove_on_abort`]). A directory that a SIGKILLed gldbg left is removed
//! by the next `gldbg run` ([`sweep_stale_dirs`]): its owner is gone, or its
//! pid now belongs to a process started after the directory was made.

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

/// The directory [`remove_on_abort`]'s handler removes (set once).
static ABORT_DIR: std::sync::OnceLock<std::ffi::CString> = std::sync::OnceLock::new();

/// Remove `dir` (its files, and its subdirectories with their files: the
/// saved debug shaders) when gldbg dies by SIGABRT or SIGQUIT,
/// which end the process without unwinding and which the tokio task of
/// [`end_on_signals`] cannot see in time. The handler then lets the signal
/// take its default action (a core dump where enabled).
pub fn remove_on_abort(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt as _;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes())?;
    if ABORT_DIR.set(path).is_err() {
        return Ok(()); // one embedded daemon, one directory
    }
    for sig in [libc::SIGABRT, libc::SIGQUIT] {
        // SAFETY: a zeroed sigaction is valid (empty mask, no flags); the
        // handler only makes async-signal-safe syscalls (see `on_abort`).
        let r = unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_abort as extern "C" fn(libc::c_int) as libc::sighandler_t;
            // SA_ONSTACK: a stack overflow aborts from the alternate stack.
            action.sa_flags = libc::SA_ONSTACK;
            // The other one waits: one removal per thread at a time.
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaddset(&mut action.sa_mask, libc::SIGABRT);
            libc::sigaddset(&mut action.sa_mask, libc::SIGQUIT);
            libc::sigaction(sig, &action, std::ptr::null_mut())
        };
        if r != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The SIGABRT/SIGQUIT handler: remove [`ABORT_DIR`] (no allocation, no
/// lock: `open`, `getdents64`, `unlinkat`, `close`), then die by the
/// signal's default action.
extern "C" fn on_abort(sig: libc::c_int) {
    if let Some(dir) = ABORT_DIR.get() {
        remove_dir_two_levels(dir);
    }
    // SAFETY: signal(2) and raise(2) are async-signal-safe; the raised signal
    // is blocked until this handler returns, then its default action runs.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

/// The directory-entry buffers of [`remove_dir_two_levels`] (one for the
/// directory, one for a subdirectory): static, because a stack overflow
/// aborts from the small alternate signal stack, already partly used by
/// std's own handler (a 4 KiB buffer there overflows it and the process dies
/// by SIGSEGV with the directory left).
struct DirentBuffers(std::cell::UnsafeCell<[[u8; 4096]; 2]>);

// SAFETY: only the thread that wins `DIRENT_BUSY` touches the buffers.
unsafe impl Sync for DirentBuffers {}

static DIRENT_BUFFERS: DirentBuffers = DirentBuffers(std::cell::UnsafeCell::new([[0; 4096]; 2]));
static DIRENT_BUSY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// How long a second aborting thread waits for the first one's removal.
const BUSY_WAIT_NANOS: i64 = 2_000_000_000;

/// Take [`DIRENT_BUSY`]: when another thread holds it (aborting at the same
/// time), yield until it is done, at most [`BUSY_WAIT_NANOS`] (it may be
/// stuck), so that this thread's `raise` does not end the process in the
/// middle of the other's removal. Only async-signal-safe calls.
fn take_dirents() -> bool {
    use std::sync::atomic::Ordering;
    let mut start = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime(2) writes the timespec we pass.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut start) };
    while DIRENT_BUSY.swap(true, Ordering::Acquire) {
        let mut now = start;
        // SAFETY: as above; sched_yield(2) takes no arguments.
        unsafe {
            libc::sched_yield();
            libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now);
        }
        let waited = (now.tv_sec - start.tv_sec) * 1_000_000_000 + (now.tv_nsec - start.tv_nsec);
        if waited > BUSY_WAIT_NANOS {
            return false;
        }
    }
    true
}

/// Remove `dir`, the entries in it (the socket, files) and one level of
/// subdirectories with their files (the saved debug shaders'
/// `gldbg-shaders-*`), with raw syscalls, as a signal handler may.
fn remove_dir_two_levels(dir: &std::ffi::CStr) {
    if !take_dirents() {
        return;
    }
    // SAFETY: a NUL-terminated path; the static buffers are ours alone
    // (DIRENT_BUSY taken above) until the release below.
    unsafe {
        let [outer, inner] = &mut *DIRENT_BUFFERS.0.get();
        let fd = libc::open(
            dir.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        );
        if fd >= 0 {
            remove_entries(fd, outer, Some(inner));
            libc::close(fd);
        }
        libc::rmdir(dir.as_ptr());
    }
    DIRENT_BUSY.store(false, std::sync::atomic::Ordering::Release);
}

/// Unlink every entry of the open directory `fd`, reading entries into
/// `buf`; with `sub`, an entry that is a directory (unlinkat fails on it) is
/// opened without following a symlink, emptied with `sub` as its buffer and
/// removed.
///
/// # Safety
/// `fd` is an open directory. getdents64 fills whole `linux_dirent64`
/// records (u64 ino, i64 off, u16 reclen, u8 type, NUL-terminated name).
unsafe fn remove_entries(fd: libc::c_int, buf: &mut [u8; 4096], mut sub: Option<&mut [u8; 4096]>) {
    // SAFETY: see the contract above; every name points into `buf` and is
    // NUL-terminated by the kernel; each fd passed is one we opened.
    unsafe {
        loop {
            let n = libc::syscall(libc::SYS_getdents64, fd, buf.as_mut_ptr(), buf.len());
            if n <= 0 {
                break;
            }
            let mut at = 0usize;
            while at + 19 < n as usize {
                let reclen = u16::from_ne_bytes([buf[at + 16], buf[at + 17]]) as usize;
                let name = buf.as_ptr().add(at + 19).cast::<libc::c_char>();
                let dot = *name == b'.' as libc::c_char
                    && (*name.add(1) == 0
                        || (*name.add(1) == b'.' as libc::c_char && *name.add(2) == 0));
                if !dot
                    && libc::unlinkat(fd, name, 0) != 0
                    && let Some(sub) = sub.as_deref_mut()
                {
                    let subfd = libc::openat(
                        fd,
                        name,
                        libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                    );
                    if subfd >= 0 {
                        remove_entries(subfd, sub, None);
                        libc::close(subfd);
                        libc::unlinkat(fd, name, libc::AT_REMOVEDIR);
                    }
                }
                if reclen == 0 {
                    break;
                }
                at += reclen;
            }
        }
    }
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
        let Some((pid, made)) = name.to_str().and_then(owner) else {
            continue;
        };
        let ours = entry.metadata().is_ok_and(|m| m.is_dir() && m.uid() == uid);
        if ours && !owner_alive(pid, made) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The gldbg pid and the creation time (ns since the epoch) in a directory
/// name `gldbg-cli-PID-NANOS_HEX-N` (`None` for the time in other forms).
fn owner(name: &str) -> Option<(i32, Option<u128>)> {
    let mut parts = name.strip_prefix(DIR_PREFIX)?.split('-');
    let pid = parts.next()?.parse().ok().filter(|&p| p > 0)?;
    let made = parts.next().and_then(|t| u128::from_str_radix(t, 16).ok());
    Some((pid, made))
}

/// Whether the gldbg that made a directory at `made` may still run: a
/// process `pid` exists and started before the directory was made (a pid
/// reused by a later process, after an abort or a SIGKILL, is not the
/// owner). Start times have clock-tick and boot-time rounding: a second of
/// slack keeps a live owner's directory.
fn owner_alive(pid: i32, made: Option<u128>) -> bool {
    if !process_exists(pid) {
        return false;
    }
    match (made, process_start_nanos(pid)) {
        (Some(made), Some(started)) => started <= made + 1_000_000_000,
        _ => true,
    }
}

/// When process `pid` started, in ns since the epoch (`/proc/PID/stat`
/// field 22 in clock ticks since boot, plus `btime` of `/proc/stat`).
fn process_start_nanos(pid: i32) -> Option<u128> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses.
    let after_comm = &stat[stat.rfind(')')? + 1..];
    let ticks: u128 = after_comm.split_whitespace().nth(19)?.parse().ok()?;
    let boot = std::fs::read_to_string("/proc/stat").ok()?;
    let btime: u128 = boot
        .lines()
        .find_map(|l| l.strip_prefix("btime "))?
        .trim()
        .parse()
        .ok()?;
    // SAFETY: sysconf with a valid name has no other effect.
    let hz = u128::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) }).ok()?;
    (hz > 0).then(|| btime * 1_000_000_000 + ticks * 1_000_000_000 / hz)
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
        assert_eq!(owner("gldbg-cli-1234-18a7f-0"), Some((1234, Some(0x18a7f))));
        assert_eq!(owner("gldbg-cli-x-1"), None);
        assert_eq!(owner("gldbg-tests-1234-0-a"), None);
        assert_eq!(owner("gldbg-cli-0-1"), None);
        assert_eq!(owner("gldbg-cli-7"), Some((7, None)));
    }

    fn now_nanos() -> u128 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    }

    #[test]
    fn a_pid_taken_by_a_later_process_is_not_the_owner() {
        let me = std::process::id() as i32;
        let started = process_start_nanos(me).expect("our start time");
        let now = now_nanos();
        assert!(started <= now && now - started < 3600 * 1_000_000_000);
        assert!(owner_alive(me, Some(now)));
        // A directory made a minute before this process started: its owner
        // was an earlier process with our pid.
        assert!(!owner_alive(me, Some(started - 60_000_000_000)));
        assert!(!owner_alive((1 << 22) + 7, Some(now)));
    }

    /// Recurse until the stack overflows (1 KiB a frame, kept by black_box).
    fn overflow(n: u64) -> u64 {
        if n == u64::MAX {
            return 0;
        }
        let frame = std::hint::black_box([n as u8; 1024]);
        overflow(n + 1) + u64::from(frame[0])
    }

    /// A real abort: a stack overflow, which std turns into abort() from its
    /// SIGSEGV handler on the small alternate signal stack. The test runs
    /// itself in a child process that overflows; the directory must go.
    #[test]
    fn a_stack_overflow_removes_the_directory() {
        const DIR_VAR: &str = "GLDBG_TEST_OVERFLOW_DIR";
        if let Some(dir) = std::env::var_os(DIR_VAR) {
            remove_on_abort(Path::new(&dir)).unwrap();
            std::process::exit(i32::from(overflow(0) == 7)); // not reached
        }
        let dir = std::env::temp_dir().join(format!("gldbg-overflow-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("gldbg.sock"), b"").unwrap();
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "signals::tests::a_stack_overflow_removes_the_directory",
                "--nocapture",
            ])
            .env(DIR_VAR, &dir)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        use std::os::unix::process::ExitStatusExt as _;
        assert_eq!(out.status.signal(), Some(libc::SIGABRT), "{stderr}");
        assert!(stderr.contains("overflowed its stack"), "{stderr}");
        assert!(!dir.exists(), "left behind: {}", dir.display());
    }

    #[test]
    fn the_abort_handler_removes_a_directory_with_files() {
        let dir = std::env::temp_dir().join(format!("gldbg-abort-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for i in 0..300 {
            // More entries than one 4 KiB getdents64 buffer holds.
            std::fs::write(dir.join(format!("file-with-a-longish-name-{i}")), b"x").unwrap();
        }
        // The saved debug shaders' directory, one level down, and a symlink
        // to a directory elsewhere, whose files must stay.
        let saved = dir.join("gldbg-shaders-0123");
        std::fs::create_dir(&saved).unwrap();
        for i in 0..200 {
            std::fs::write(saved.join(format!("debug-{i}-with-a-long-name.frag")), b"x").unwrap();
        }
        let elsewhere =
            std::env::temp_dir().join(format!("gldbg-abort-keep-{}", std::process::id()));
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(elsewhere.join("keep"), b"x").unwrap();
        std::os::unix::fs::symlink(&elsewhere, dir.join("link")).unwrap();
        use std::os::unix::ffi::OsStrExt as _;
        let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).unwrap();
        remove_dir_two_levels(&c);
        assert!(!dir.exists());
        assert!(elsewhere.join("keep").exists(), "followed a symlink");
        std::fs::remove_dir_all(&elsewhere).unwrap();
    }

    /// A second thread aborting while the first removes waits for it (its
    /// `raise` would end the process halfway), within a bound.
    #[test]
    fn a_second_aborting_thread_waits_for_the_first() {
        use std::sync::atomic::Ordering;
        // The first thread: holds the flag, as if removing, for 300 ms.
        while DIRENT_BUSY.swap(true, Ordering::Acquire) {
            std::thread::yield_now(); // another test removing
        }
        let first = std::thread::spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(300));
            DIRENT_BUSY.store(false, Ordering::Release);
        });
        let start = std::time::Instant::now();
        assert!(take_dirents(), "the flag came free");
        let waited = start.elapsed();
        DIRENT_BUSY.store(false, Ordering::Release);
        first.join().unwrap();
        assert!(
            waited >= std::time::Duration::from_millis(250),
            "{waited:?}"
        );
        assert!(waited < std::time::Duration::from_secs(2), "{waited:?}");
    }

    #[test]
    fn stale_directories_go_live_ones_stay() {
        let base = std::env::temp_dir().join(format!("gldbg-sweep-test-{}", std::process::id()));
        std::fs::create_dir_all(&base).unwrap();
        // A pid that cannot exist (above the kernel's pid_max limit of 2^22).
        let stale = base.join(format!("{DIR_PREFIX}{}-1-0", (1 << 22) + 7));
        let live = base.join(format!(
            "{DIR_PREFIX}{}-{:x}-0",
            std::process::id(),
            now_nanos()
        ));
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
