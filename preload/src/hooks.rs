//! The hand-written hooks behind the generated wrappers of the
//! `GET_PROC_ADDRESS`, `GET_ERROR`, `QUERY`, `IMMEDIATE`, `LIST`, `BINARY`,
//! `HANDLE_UNIFORM` and `FEEDBACK_BEGIN` functions, and the app's held-back
//! GL errors.
//!
//! * GetProcAddress (`glXGetProcAddress[ARB]`, `eglGetProcAddress`): call the
//!   real one; for a name we export and a non-null answer, remember the real
//!   pointer and return our wrapper instead.
//! * `glGetError`: the executor drains the app's pending errors before its
//!   own GL work and parks them here; the app's next `glGetError` calls get
//!   them first, then the real ones.
//! * Query object calls: `queries.rs`; immediate mode: `immediate.rs`;
//!   display lists: `lists.rs`; program binaries and their formats: `binary.rs`;
//!   bindless texture handles in uniforms: `bindless.rs`;
//!   `glBeginTransformFeedback`: its mode is remembered per context.

use crate::generated::{CLASS, WRAPPERS, invoke};
use core::cell::Cell;
use core::ffi::{CStr, c_char};
use gldbg_proto::api::{self, class};

/// Errors held for the app, oldest first (GL keeps one flag per error kind,
/// so a few entries are enough).
const HELD: usize = 8;

thread_local! {
    static ERRORS: Cell<[u32; HELD]> = const { Cell::new([0; HELD]) };
    static ERROR_COUNT: Cell<usize> = const { Cell::new(0) };
}

/// Run the hook of a hooked function with its argument words.
pub fn call(id: u32, args: &[u64]) -> u64 {
    let c = CLASS[id as usize];
    if c & class::GET_ERROR != 0 {
        if let Some(e) = pop_error() {
            return e as u64;
        }
        // SAFETY: glGetError takes no arguments.
        return unsafe { invoke(id, &[]) };
    }
    if c & class::GET_PROC_ADDRESS != 0 {
        return get_proc_address(id, args.first().copied().unwrap_or(0));
    }
    if c & class::QUERY != 0 {
        return crate::queries::call(id, args);
    }
    if c & class::IMMEDIATE != 0 {
        return crate::immediate::call(id, args);
    }
    if c & class::LIST != 0 {
        return crate::lists::call(id, args);
    }
    if c & class::BINARY != 0 {
        return crate::binary::call(id, args);
    }
    if c & class::HANDLE_UNIFORM != 0 {
        return crate::bindless::call(id, args);
    }
    if c & class::FEEDBACK_BEGIN != 0 {
        let mode = args.first().copied().unwrap_or(0) as u32;
        remember_feedback_mode(mode);
    }
    // SAFETY: not a hooked function: forward the app's own arguments.
    unsafe { invoke(id, args) }
}

fn get_proc_address(id: u32, name_word: u64) -> u64 {
    // SAFETY: the app's own argument to the real GetProcAddress.
    let real = unsafe { invoke(id, &[name_word]) };
    if real == 0 || name_word == 0 {
        return real;
    }
    // SAFETY: GetProcAddress takes a NUL-terminated name (the app's contract).
    let name = unsafe { CStr::from_ptr(name_word as usize as *const c_char) };
    let Ok(name) = name.to_str() else { return real };
    match api::function_id(name) {
        Some(fid) => {
            crate::resolve::learn(fid, real as usize as *mut core::ffi::c_void);
            WRAPPERS[fid as usize].0 as usize as u64
        }
        None => real,
    }
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

fn pop_error() -> Option<u32> {
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

/// The primitive mode of the app's latest `glBeginTransformFeedback`, per
/// context: Mesa keeps it per context, not per transform feedback object,
/// so a step's own capture (points) must put it back before the app's
/// paused capture resumes.
static FEEDBACK_MODES: std::sync::Mutex<Vec<(u64, u32)>> = std::sync::Mutex::new(Vec::new());

fn remember_feedback_mode(mode: u32) {
    let context = current_context();
    if let Ok(mut modes) = FEEDBACK_MODES.lock() {
        modes.retain(|&(c, _)| c != context);
        modes.push((context, mode));
    }
}

/// The mode of the app's latest `glBeginTransformFeedback` in this context.
pub fn feedback_mode() -> Option<u32> {
    let context = current_context();
    FEEDBACK_MODES
        .lock()
        .ok()?
        .iter()
        .find(|&&(c, _)| c == context)
        .map(|&(_, m)| m)
}

/// The current GLX or EGL context of this thread (0 if none), asking only
/// window-system libraries that are already loaded.
pub fn current_context() -> u64 {
    for id in [
        api::ids::glXGetCurrentContext,
        api::ids::eglGetCurrentContext,
    ] {
        if crate::resolve::ptr_noload(id).is_some() {
            // SAFETY: no arguments; the function is loaded.
            let c = unsafe { invoke(id, &[]) };
            if c != 0 {
                return c;
            }
        }
    }
    0
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
