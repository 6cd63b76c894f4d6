//! The app's GL errors across our GL work: its pending errors are held back
//! (drained before any call of ours) and handed to it first by the
//! `glGetError` hook, unchanged and once per code; our own errors are
//! drained and never left for the app.

use core::cell::Cell;

use crate::gl;

/// Errors held for the app, oldest first (GL keeps one flag per error kind,
/// so a few entries are enough).
const HELD: usize = 8;

thread_local! {
    static ERRORS: Cell<[u32; HELD]> = const { Cell::new([0; HELD]) };
    static ERROR_COUNT: Cell<usize> = const { Cell::new(0) };
}

/// Park one of the app's pending GL errors for its next `glGetError`.
/// GL keeps one flag per error code until it is read: an error already
/// held is not queued twice, so the app reads each code once, as without
/// gldbg.
pub fn hold_error(e: u32) {
    let n = ERROR_COUNT.with(|c| c.get());
    if ERRORS.with(|c| c.get()[..n].contains(&e)) {
        return;
    }
    if n < HELD {
        ERRORS.with(|c| {
            let mut a = c.get();
            a[n] = e;
            c.set(a);
        });
        ERROR_COUNT.with(|c| c.set(n + 1));
    }
}

/// After a call, for an error breakpoint: the errors the real `glGetError`
/// reports now are held for the app (it gets them unchanged, before any
/// later one); returns the first, if any. Errors already held were raised
/// by earlier calls and are not reported again.
pub fn take_new_error() -> Option<u32> {
    let mut first = None;
    for _ in 0..HELD {
        let e = crate::gl::get_error();
        if e == 0 {
            break;
        }
        hold_error(e);
        first.get_or_insert(e);
    }
    first
}

/// The oldest held error, taken (the `glGetError` hook).
pub(crate) fn pop_error() -> Option<u32> {
    let n = ERROR_COUNT.with(|c| c.get());
    if n == 0 {
        return None;
    }
    let first = ERRORS.with(|c| {
        let mut a = c.get();
        let first = a[0];
        a.copy_within(1.., 0);
        c.set(a);
        first
    });
    ERROR_COUNT.with(|c| c.set(n - 1));
    Some(first)
}

/// Hold the app's pending GL errors for it (the app sees them later).
pub(crate) fn hold_app_errors() {
    for _ in 0..16 {
        let e = gl::get_error();
        if e == 0 {
            break;
        }
        hold_error(e);
    }
}

/// Drain our own GL errors; returns the first.
pub(crate) fn drain_own_errors() -> u32 {
    let mut first = 0;
    for _ in 0..16 {
        let e = gl::get_error();
        if e == 0 {
            break;
        }
        if first == 0 {
            first = e;
        }
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_errors_come_back_once_per_code_in_order() {
        hold_error(0x500);
        hold_error(0x502);
        hold_error(0x500);
        assert_eq!(pop_error(), Some(0x500));
        assert_eq!(pop_error(), Some(0x502));
        assert_eq!(pop_error(), None);
    }
}
