//! Launching the app under ptrace and the tracer thread.
//!
//! [`spawn`] starts one dedicated OS thread (the tracer: the kernel accepts
//! ptrace requests only from the thread that attached). That thread forks
//! the app, seizes it (`PTRACE_SEIZE` with `TRACECLONE | TRACEEXEC |
//! TRACEFORK | TRACEVFORK`; `EXITKILL` only for `gldbg run`: for
//! `gldbg-debugd`, if the daemon dies the app lives on), lets it exec, and then runs the wait loop: it restarts every stop
//! (forwarding signals), follows new threads and child processes (an app
//! started by a launcher script), turns an uncaught fatal signal into a
//! [`CrashReport`] and reports the exit of the launched process. `Pause`
//! interrupts every thread (`PTRACE_INTERRUPT`, which works because the
//! app was seized) and holds them until `Resume`; `Kill` kills every
//! traced process. It talks to the rest of the daemon over channels only:
//! [`TraceCommand`]s in, [`TraceEvent`]s out.
//!
//! The tracee dying under us (`ESRCH`) is a normal outcome, never a panic.

use std::ffi::{CString, OsStr, OsString};
use std::os::fd::RawFd;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Sender};

use nix::errno::Errno;
use nix::sys::ptrace;
use nix::sys::signal::{self, Signal};
use nix::unistd::Pid;

mod tracer;
mod wait;

pub use tracer::{CrashReport, PauseReport, TraceCommand, TraceError, TraceEvent, Tracer};
pub use wait::{WaitEvent, decode_status, is_crash_signal, signal_caught, signal_name};

use tracer::TraceLoop;
use wait::wait_raw;

/// The fd number the shared-memory memfd gets in the app.
pub const CHILD_SHM_FD: RawFd = 900;

/// Why a launch failed.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("no such program: {0}")]
    NotFound(String),
    #[error("not executable: {0}")]
    NotExecutable(String),
    #[error("bad launch argument: {0}")]
    BadArgument(String),
    #[error("cannot start {program}: {stage} failed: {errno}")]
    Exec {
        program: String,
        stage: &'static str,
        errno: Errno,
    },
    #[error("ptrace setup failed: {0}")]
    Trace(String),
}

/// Find the program to run: a name without `/` is searched in `path_var`
/// (like execvp); a path is taken relative to `cwd`. It must be a regular,
/// executable file.
pub fn resolve_program(
    program: &str,
    path_var: Option<&OsStr>,
    cwd: &Path,
) -> Result<PathBuf, LaunchError> {
    fn executable(p: &Path) -> Result<bool, ()> {
        match std::fs::metadata(p) {
            Ok(m) if m.is_file() => Ok(m.permissions().mode() & 0o111 != 0),
            Ok(_) => Ok(false),
            Err(_) => Err(()),
        }
    }
    if program.is_empty() {
        return Err(LaunchError::NotFound(String::new()));
    }
    if program.contains('/') {
        let p = cwd.join(program);
        return match executable(&p) {
            Ok(true) => Ok(p),
            Ok(false) => Err(LaunchError::NotExecutable(program.to_string())),
            Err(()) => Err(LaunchError::NotFound(program.to_string())),
        };
    }
    let path_var = path_var
        .map(OsStr::to_os_string)
        .unwrap_or_else(|| OsString::from("/usr/local/bin:/usr/bin:/bin"));
    let mut found_not_exec = false;
    for dir in std::env::split_paths(&path_var) {
        let dir = if dir.as_os_str().is_empty() {
            cwd.to_path_buf()
        } else {
            cwd.join(dir)
        };
        let p = dir.join(program);
        match executable(&p) {
            Ok(true) => return Ok(p),
            Ok(false) => found_not_exec = true,
            Err(()) => {}
        }
    }
    if found_not_exec {
        Err(LaunchError::NotExecutable(program.to_string()))
    } else {
        Err(LaunchError::NotFound(program.to_string()))
    }
}

/// Everything the child needs, prepared before the fork.
#[derive(Debug, Clone)]
pub struct LaunchSpec {
    /// Resolved program path.
    pub program: PathBuf,
    /// argv, argv[0] included.
    pub argv: Vec<OsString>,
    /// The complete environment of the child.
    pub env: Vec<(OsString, OsString)>,
    pub cwd: Option<PathBuf>,
    /// A memfd to hand to the child at [`CHILD_SHM_FD`] (None: the child
    /// opens the shared memory by path, `GLDBG_SHM`).
    pub shm_fd: Option<RawFd>,
    /// The preload library (to find the GL call in flight at a crash).
    pub preload: PathBuf,
    /// The shared memory, whose header says where each thread's call word
    /// lies (read at a crash, while the thread is still there).
    pub shm: Option<std::sync::Arc<crate::shm::SharedMemory>>,
    /// `setpgid(0, 0)` in the child before exec.
    pub own_process_group: bool,
    /// `PTRACE_O_EXITKILL`: every process still traced is killed when the
    /// tracer ends (with the daemon's process); a detached one is not.
    pub kill_with_tracer: bool,
    /// Write ends of pipes to become the child's stdout and stderr (None:
    /// inherited).
    pub output_fds: Option<(RawFd, RawFd)>,
    /// The child's stdin is /dev/null (else inherited).
    pub stdin_null: bool,
}

/// Build the child's environment: `base` (the daemon's), then `extra`
/// (KEY=VALUE) over it, then `LD_PRELOAD` with the preload prepended and
/// the shared-memory variable `shm_env=shm_value`.
pub fn child_env(
    base: impl IntoIterator<Item = (OsString, OsString)>,
    extra: &[String],
    preload: &Path,
    shm_env: &str,
    shm_value: &str,
) -> Result<Vec<(OsString, OsString)>, LaunchError> {
    let mut env: Vec<(OsString, OsString)> = base.into_iter().collect();
    let set = |k: OsString, v: OsString, env: &mut Vec<(OsString, OsString)>| {
        if let Some(e) = env.iter_mut().find(|(ek, _)| *ek == k) {
            e.1 = v;
        } else {
            env.push((k, v));
        }
    };
    for kv in extra {
        let Some((k, v)) = kv.split_once('=') else {
            return Err(LaunchError::BadArgument(format!(
                "environment entry without '=': {kv}"
            )));
        };
        if k.is_empty() {
            return Err(LaunchError::BadArgument(format!(
                "environment entry without a name: {kv}"
            )));
        }
        set(k.into(), v.into(), &mut env);
    }
    let mut preload_val = preload.as_os_str().to_os_string();
    if let Some((_, old)) = env.iter().find(|(k, _)| k == "LD_PRELOAD")
        && !old.is_empty()
    {
        preload_val.push(":");
        preload_val.push(old);
    }
    set("LD_PRELOAD".into(), preload_val, &mut env);
    set(shm_env.into(), shm_value.into(), &mut env);
    Ok(env)
}

/// Start the tracer thread, which forks, seizes and execs the app. Returns
/// once the exec succeeded (or failed).
pub fn spawn(spec: LaunchSpec, events: Sender<TraceEvent>) -> Result<Tracer, LaunchError> {
    let (cmd_tx, cmd_rx) = mpsc::channel();
    let (ready_tx, ready_rx) = mpsc::channel();
    let thread = std::thread::Builder::new()
        .name("gldbg-tracer".into())
        .spawn(move || match start_child(&spec) {
            Ok(pid) => {
                let _ = ready_tx.send(Ok(pid));
                let mut trace = TraceLoop::new(pid, events, cmd_rx, spec.preload.clone());
                trace.shm = spec.shm.clone();
                trace.detach_at_end = spec.kill_with_tracer;
                trace.run();
            }
            Err(e) => {
                let _ = ready_tx.send(Err(e));
            }
        })
        .map_err(|e| LaunchError::Trace(format!("cannot start the tracer thread: {e}")))?;
    let pid = ready_rx
        .recv()
        .map_err(|_| LaunchError::Trace("the tracer thread ended".into()))??;
    Ok(Tracer {
        pid: pid.as_raw() as u32,
        commands: cmd_tx,
        thread: Some(thread),
    })
}

fn cstring(s: &OsStr) -> Result<CString, LaunchError> {
    CString::new(s.as_bytes()).map_err(|_| LaunchError::BadArgument(format!("NUL byte in {s:?}")))
}

/// Fork, stop, seize, exec. Runs on the tracer thread.
fn start_child(spec: &LaunchSpec) -> Result<Pid, LaunchError> {
    let program_name = spec.program.display().to_string();
    // Everything the child touches is prepared before the fork (no allocation after it).
    let prog = cstring(spec.program.as_os_str())?;
    let argv: Vec<CString> = spec
        .argv
        .iter()
        .map(|a| cstring(a))
        .collect::<Result<_, _>>()?;
    let envp: Vec<CString> = spec
        .env
        .iter()
        .map(|(k, v)| {
            let mut kv = k.clone().into_vec();
            kv.push(b'=');
            kv.extend_from_slice(v.as_bytes());
            CString::new(kv)
                .map_err(|_| LaunchError::BadArgument(format!("NUL byte in environment {k:?}")))
        })
        .collect::<Result<_, _>>()?;
    let cwd = spec
        .cwd
        .as_ref()
        .map(|c| cstring(c.as_os_str()))
        .transpose()?;
    let mut argv_ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    argv_ptrs.push(std::ptr::null());
    let mut envp_ptrs: Vec<*const libc::c_char> = envp.iter().map(|a| a.as_ptr()).collect();
    envp_ptrs.push(std::ptr::null());
    let shm_fd = spec.shm_fd;
    let own_group = spec.own_process_group;
    let output_fds = spec.output_fds;
    let stdin_null = spec.stdin_null;

    let mut pipe_fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 writes two fds into the array.
    if unsafe { libc::pipe2(pipe_fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(LaunchError::Exec {
            program: program_name,
            stage: "pipe",
            errno: Errno::last(),
        });
    }
    let (err_r, err_w) = (pipe_fds[0], pipe_fds[1]);

    // SAFETY: the child only calls async-signal-safe functions (chdir, open,
    // dup2, close, fcntl, raise, execve, write, _exit) on data prepared above.
    let fork = unsafe { nix::unistd::fork() };
    match fork {
        Err(e) => {
            // SAFETY: closing our own pipe fds.
            unsafe {
                libc::close(err_r);
                libc::close(err_w);
            }
            Err(LaunchError::Exec {
                program: program_name,
                stage: "fork",
                errno: e,
            })
        }
        Ok(nix::unistd::ForkResult::Child) => {
            // SAFETY: see the fork above; raw libc calls only, then _exit.
            unsafe {
                let fail = |stage: u8| -> ! {
                    let errno = *libc::__errno_location();
                    let mut buf = [0u8; 5];
                    buf[0] = stage;
                    buf[1..].copy_from_slice(&errno.to_ne_bytes());
                    libc::write(err_w, buf.as_ptr().cast(), buf.len());
                    libc::_exit(127)
                };
                libc::close(err_r);
                if let Some(c) = &cwd
                    && libc::chdir(c.as_ptr()) != 0
                {
                    fail(1);
                }
                if let Some(shm_fd) = shm_fd {
                    if shm_fd != CHILD_SHM_FD && libc::dup2(shm_fd, CHILD_SHM_FD) < 0 {
                        fail(2);
                    }
                    if libc::fcntl(CHILD_SHM_FD, libc::F_SETFD, 0) != 0 {
                        fail(2);
                    }
                }
                if let Some((out, err)) = output_fds
                    && (libc::dup2(out, 1) < 0 || libc::dup2(err, 2) < 0)
                {
                    fail(2);
                }
                if stdin_null {
                    let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY);
                    if null < 0 || libc::dup2(null, 0) < 0 {
                        fail(2);
                    }
                    if null != 0 {
                        libc::close(null);
                    }
                }
                if own_group {
                    libc::setpgid(0, 0);
                }
                libc::raise(libc::SIGSTOP);
                libc::execve(prog.as_ptr(), argv_ptrs.as_ptr(), envp_ptrs.as_ptr());
                fail(3);
            }
        }
        Ok(nix::unistd::ForkResult::Parent { child }) => {
            // SAFETY: closing our copy of the write end.
            unsafe { libc::close(err_w) };
            let result = seize_and_exec(child, err_r, &program_name, spec.kill_with_tracer);
            // SAFETY: closing our read end.
            unsafe { libc::close(err_r) };
            result.map(|()| child)
        }
    }
}

fn read_exec_error(err_r: RawFd, program: &str) -> Option<LaunchError> {
    let mut buf = [0u8; 5];
    // SAFETY: reading into a local buffer.
    let n = unsafe { libc::read(err_r, buf.as_mut_ptr().cast(), buf.len()) };
    if n != 5 {
        return None;
    }
    let errno = Errno::from_raw(i32::from_ne_bytes([buf[1], buf[2], buf[3], buf[4]]));
    let stage = match buf[0] {
        1 => "chdir",
        2 => "passing the shared memory",
        _ => "exec",
    };
    Some(LaunchError::Exec {
        program: program.to_string(),
        stage,
        errno,
    })
}

fn seize_and_exec(
    child: Pid,
    err_r: RawFd,
    program: &str,
    kill_with_tracer: bool,
) -> Result<(), LaunchError> {
    // Wait for the child's own SIGSTOP (or its early death).
    loop {
        let mut status = 0;
        // SAFETY: waitpid writes the status int.
        let r = unsafe { libc::waitpid(child.as_raw(), &mut status, libc::WUNTRACED) };
        if r < 0 {
            if Errno::last() == Errno::EINTR {
                continue;
            }
            return Err(LaunchError::Trace(format!("waitpid: {}", Errno::last())));
        }
        match decode_status(status) {
            WaitEvent::SignalStop { .. }
            | WaitEvent::GroupStop { .. }
            | WaitEvent::Event { .. } => break,
            WaitEvent::Exited { .. } | WaitEvent::Killed { .. } => {
                return Err(read_exec_error(err_r, program)
                    .unwrap_or_else(|| LaunchError::Trace("the child died before exec".into())));
            }
            _ => continue,
        }
    }
    // Forks are followed too: an app started by a launcher script that does
    // not `exec` it is a child of the shell, and must be traced (crashes,
    // pause, kill). Which process gets GL stops is decided by the preload
    // (the first one to call GL claims the session).
    // With `kill_with_tracer` (`gldbg run`), EXITKILL: the app and the
    // children it forked (they inherit the options) end with us, even when
    // gldbg is SIGKILLed; a detached process is no tracee and lives on.
    let mut opts = ptrace::Options::PTRACE_O_TRACECLONE
        | ptrace::Options::PTRACE_O_TRACEEXEC
        | ptrace::Options::PTRACE_O_TRACEFORK
        | ptrace::Options::PTRACE_O_TRACEVFORK;
    if kill_with_tracer {
        opts |= ptrace::Options::PTRACE_O_EXITKILL;
    }
    if let Err(e) = ptrace::seize(child, opts) {
        let _ = signal::kill(child, Signal::SIGKILL);
        return Err(LaunchError::Trace(format!("PTRACE_SEIZE: {e}")));
    }
    let _ = signal::kill(child, Signal::SIGCONT);
    // Run until the exec event (success) or the child's exit (failure).
    loop {
        let ev = match wait_raw(child.as_raw(), false) {
            Ok(Some((_, ev))) => ev,
            Ok(None) => continue,
            Err(e) => return Err(LaunchError::Trace(format!("waitpid: {e}"))),
        };
        match ev {
            WaitEvent::Event { event, .. } if event == libc::PTRACE_EVENT_EXEC => {
                let _ = ptrace::cont(child, None);
                return Ok(());
            }
            WaitEvent::Exited { .. } | WaitEvent::Killed { .. } => {
                return Err(read_exec_error(err_r, program)
                    .unwrap_or_else(|| LaunchError::Trace("the child died before exec".into())));
            }
            WaitEvent::SignalStop { signal } => {
                // SIGCONT (ours) and anything else: deliver, except a second SIGSTOP.
                let sig = if signal == libc::SIGSTOP {
                    None
                } else {
                    Signal::try_from(signal).ok()
                };
                let _ = ptrace::cont(child, sig);
            }
            _ => {
                let _ = ptrace::cont(child, None);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_wait_statuses() {
        assert_eq!(decode_status(3 << 8), WaitEvent::Exited { code: 3 });
        assert_eq!(
            decode_status(libc::SIGSEGV | 0x80),
            WaitEvent::Killed {
                signal: libc::SIGSEGV,
                core: true
            }
        );
        assert_eq!(
            decode_status((libc::SIGSEGV << 8) | 0x7f),
            WaitEvent::SignalStop {
                signal: libc::SIGSEGV
            }
        );
        assert_eq!(
            decode_status((libc::PTRACE_EVENT_STOP << 16) | (libc::SIGSTOP << 8) | 0x7f),
            WaitEvent::GroupStop {
                signal: libc::SIGSTOP
            }
        );
        assert_eq!(
            decode_status((libc::PTRACE_EVENT_CLONE << 16) | (libc::SIGTRAP << 8) | 0x7f),
            WaitEvent::Event {
                event: libc::PTRACE_EVENT_CLONE,
                signal: libc::SIGTRAP
            }
        );
        assert_eq!(decode_status(0xffff), WaitEvent::Continued);
    }

    #[test]
    fn sigcgt_mask() {
        let s = "Name:\tapp\nSigCgt:\t0000000000000400\n";
        assert!(signal_caught(s, libc::SIGSEGV)); // 11 -> bit 10
        assert!(!signal_caught(s, libc::SIGBUS));
        assert!(!signal_caught("", libc::SIGSEGV));
    }

    #[test]
    fn resolves_programs() {
        let dir = std::env::temp_dir().join(format!("gldbg-resolve-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let exe = dir.join("app");
        std::fs::write(&exe, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let plain = dir.join("data");
        std::fs::write(&plain, "x").unwrap();
        let path = std::env::join_paths(["/nonexistent", dir.to_str().unwrap()]).unwrap();
        assert_eq!(
            resolve_program("app", Some(&path), Path::new("/")).unwrap(),
            exe
        );
        assert!(matches!(
            resolve_program("nope", Some(&path), Path::new("/")),
            Err(LaunchError::NotFound(_))
        ));
        assert!(matches!(
            resolve_program("./data", None, &dir),
            Err(LaunchError::NotExecutable(_))
        ));
        assert_eq!(
            resolve_program("./app", None, &dir).unwrap(),
            dir.join("./app")
        );
        assert!(matches!(
            resolve_program("/no/such", None, &dir),
            Err(LaunchError::NotFound(_))
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn child_environment() {
        let base = vec![
            ("LD_PRELOAD".into(), "/x.so".into()),
            ("A".into(), "1".into()),
        ];
        let env = child_env(
            base,
            &["A=2".into(), "B=3".into()],
            Path::new("/p.so"),
            "GLDBG_SHM_FD",
            "900",
        )
        .unwrap();
        let get = |k: &str| {
            env.iter()
                .find(|(ek, _)| ek == k)
                .map(|(_, v)| v.to_str().unwrap().to_string())
        };
        assert_eq!(get("LD_PRELOAD").unwrap(), "/p.so:/x.so");
        assert_eq!(get("A").unwrap(), "2");
        assert_eq!(get("B").unwrap(), "3");
        assert_eq!(get("GLDBG_SHM_FD").unwrap(), "900");
        assert!(child_env(Vec::new(), &["noeq".into()], Path::new("/p.so"), "X", "1").is_err());
    }
}
