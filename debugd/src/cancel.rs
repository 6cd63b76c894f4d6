//! Requests whose client went away. tonic drops a handler's future when
//! its client cancels (or its deadline passes), but the blocking work the
//! handler started on the blocking pool goes on: a request queued behind a
//! lock would take effect long after its client gave up. The handler holds
//! a [`Guard`]; dropping it marks the request cancelled, and the session
//! asks [`check`] at each point where it is about to commit an effect
//! (start the app, release a call, run a probe), after taking its locks.
//!
//! The flag travels with the blocking work as a thread-local ([`scope`]):
//! session code runs on that thread and needs no extra parameter.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::{Error, Result};

thread_local! {
    static CURRENT: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Held by a request handler's future: its drop (the handler finished or
/// was dropped by tonic) marks the request cancelled.
pub struct Guard(Arc<AtomicBool>);

impl Guard {
    pub fn new() -> Guard {
        Guard(Arc::new(AtomicBool::new(false)))
    }

    /// The flag to hand to [`scope`].
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.0.clone()
    }
}

impl Default for Guard {
    fn default() -> Self {
        Guard::new()
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// Run `f` (on this thread) as the work of the request `flag` belongs to.
pub fn scope<T>(flag: Arc<AtomicBool>, f: impl FnOnce() -> T) -> T {
    struct Reset(Option<Arc<AtomicBool>>);
    impl Drop for Reset {
        fn drop(&mut self) {
            let old = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = old);
        }
    }
    let old = CURRENT.with(|c| c.borrow_mut().replace(flag));
    let _reset = Reset(old);
    f()
}

/// Whether the request this thread works for was cancelled by its client
/// (false outside a request: the daemon's own launch, unit tests).
pub fn cancelled() -> bool {
    CURRENT.with(|c| {
        c.borrow()
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Acquire))
    })
}

/// Err when the request was cancelled: call it before committing an effect.
pub fn check() -> Result<()> {
    if cancelled() {
        return Err(Error::FailedPrecondition(
            "the request was cancelled by its client before it took effect; nothing was done"
                .into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_guard_cancels_its_scope_only() {
        assert!(check().is_ok());
        let guard = Guard::new();
        let flag = guard.flag();
        let worker = std::thread::spawn(move || {
            scope(flag, || {
                let before = cancelled();
                while !cancelled() {
                    std::thread::yield_now();
                }
                (before, check().is_err())
            })
        });
        std::thread::sleep(std::time::Duration::from_millis(20));
        drop(guard);
        assert_eq!(worker.join().unwrap(), (false, true));
        assert!(!cancelled(), "the flag belongs to the worker's scope");
    }
}
