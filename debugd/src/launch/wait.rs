//! `waitpid` statuses decoded once into a closed enum, and the signal
//! facts the tracer needs (crash signals, the app's own handlers, names).

use nix::errno::Errno;
use nix::sys::signal::Signal;

/// A decoded `waitpid` status of a tracee (decoded once, here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitEvent {
    /// The thread (or process) exited with a code.
    Exited {
        code: i32,
    },
    /// A signal ended it.
    Killed {
        signal: i32,
        core: bool,
    },
    /// Signal-delivery stop: `signal` is about to be delivered.
    SignalStop {
        signal: i32,
    },
    /// Group stop (job control) of a seized tracee.
    GroupStop {
        signal: i32,
    },
    /// A `PTRACE_EVENT_*` stop (clone, exec, interrupt/new-thread stop).
    Event {
        event: i32,
        signal: i32,
    },
    Continued,
    Unknown(i32),
}

/// Decode a raw `waitpid` status.
pub fn decode_status(status: i32) -> WaitEvent {
    if libc::WIFEXITED(status) {
        WaitEvent::Exited {
            code: libc::WEXITSTATUS(status),
        }
    } else if libc::WIFSIGNALED(status) {
        WaitEvent::Killed {
            signal: libc::WTERMSIG(status),
            core: libc::WCOREDUMP(status),
        }
    } else if libc::WIFSTOPPED(status) {
        let signal = libc::WSTOPSIG(status);
        let event = (status >> 16) & 0xffff;
        if event == 0 {
            WaitEvent::SignalStop { signal }
        } else if event == libc::PTRACE_EVENT_STOP
            && matches!(
                signal,
                libc::SIGSTOP | libc::SIGTSTP | libc::SIGTTIN | libc::SIGTTOU
            )
        {
            WaitEvent::GroupStop { signal }
        } else {
            WaitEvent::Event { event, signal }
        }
    } else if libc::WIFCONTINUED(status) {
        WaitEvent::Continued
    } else {
        WaitEvent::Unknown(status)
    }
}

/// Signals whose default action kills the process with a core dump: a crash.
pub fn is_crash_signal(signal: i32) -> bool {
    matches!(
        signal,
        libc::SIGSEGV
            | libc::SIGBUS
            | libc::SIGILL
            | libc::SIGFPE
            | libc::SIGABRT
            | libc::SIGSYS
            | libc::SIGTRAP
            | libc::SIGQUIT
            | libc::SIGXCPU
            | libc::SIGXFSZ
    )
}

/// Whether `signal` is in the `SigCgt:` mask of a `/proc/PID/status` text
/// (the process has a handler for it).
pub fn signal_caught(status_text: &str, signal: i32) -> bool {
    status_text
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
        .is_some_and(|mask| (1..=64).contains(&signal) && mask & (1u64 << (signal - 1)) != 0)
}

/// Name of a signal ("SIGSEGV").
pub fn signal_name(signal: i32) -> String {
    Signal::try_from(signal)
        .map(|s| s.as_str().to_string())
        .unwrap_or_else(|_| format!("SIG{signal}"))
}

/// Raw `waitpid` with `__WALL`; `Ok(None)` with WNOHANG and nothing to report.
pub(super) fn wait_raw(pid: i32, nohang: bool) -> Result<Option<(i32, WaitEvent)>, Errno> {
    let mut status = 0;
    let flags = libc::__WALL | if nohang { libc::WNOHANG } else { 0 };
    loop {
        // SAFETY: waitpid only writes the status int we pass.
        let r = unsafe { libc::waitpid(pid, &mut status, flags) };
        if r < 0 {
            let e = Errno::last();
            if e == Errno::EINTR {
                continue;
            }
            return Err(e);
        }
        if r == 0 {
            return Ok(None);
        }
        return Ok(Some((r, decode_status(status))));
    }
}
