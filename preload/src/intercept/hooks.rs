//! The hand-written hooks behind the generated wrappers of the
//! `GET_PROC_ADDRESS`, `GET_ERROR`, `QUERY`, `IMMEDIATE`, `LIST`, `BINARY`,
//! `HANDLE_UNIFORM` and `FEEDBACK_BEGIN` functions.
//!
//! * GetProcAddress (`glXGetProcAddress[ARB]`, `eglGetProcAddress`): call the
//!   real one; for a name we export and a non-null answer, remember the real
//!   pointer and return our wrapper instead.
//! * `glGetError`: the app's held-back errors (`errors.rs`) first, then
//!   the real ones.
//! * Query object calls: `queries.rs`; immediate mode: `immediate.rs`;
//!   display lists: `lists.rs`; program binaries and their formats: `binary.rs`;
//!   bindless texture handles in uniforms: `bindless.rs`;
//!   `glBeginTransformFeedback`: its mode is remembered per context.

use crate::generated::{CLASS, WRAPPERS, invoke};
use core::ffi::{CStr, c_char};
use gldbg_proto::api::{self, class};

/// Run the hook of a hooked function with its argument words.
pub fn call(id: u32, args: &[u64]) -> u64 {
    let c = CLASS[id as usize];
    if c & class::GET_ERROR != 0 {
        if let Some(e) = super::errors::pop_error() {
            return e as u64;
        }
        // SAFETY: glGetError takes no arguments.
        return unsafe { invoke(id, &[]) };
    }
    if c & class::GET_PROC_ADDRESS != 0 {
        return get_proc_address(id, args.first().copied().unwrap_or(0));
    }
    if c & class::QUERY != 0 {
        return super::queries::call(id, args);
    }
    if c & class::IMMEDIATE != 0 {
        return super::immediate::call(id, args);
    }
    if c & class::LIST != 0 {
        return super::lists::call(id, args);
    }
    if c & class::BINARY != 0 {
        return super::binary::call(id, args);
    }
    if c & class::HANDLE_UNIFORM != 0 {
        return super::bindless::call(id, args);
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
            super::resolve::learn(fid, real as usize as *mut core::ffi::c_void);
            WRAPPERS[fid as usize].0 as usize as u64
        }
        None => real,
    }
}

/// The primitive mode of the app's latest `glBeginTransformFeedback`, per
/// context: Mesa keeps it per context, not per transform feedback object,
/// so a step's own capture (points) must put it back before the app's
/// paused capture resumes.
static FEEDBACK_MODES: std::sync::Mutex<Vec<(u64, u32)>> = std::sync::Mutex::new(Vec::new());

fn remember_feedback_mode(mode: u32) {
    let context = super::context::current_context();
    if let Ok(mut modes) = FEEDBACK_MODES.lock() {
        modes.retain(|&(c, _)| c != context);
        modes.push((context, mode));
    }
}

/// The mode of the app's latest `glBeginTransformFeedback` in this context.
pub fn feedback_mode() -> Option<u32> {
    let context = super::context::current_context();
    FEEDBACK_MODES
        .lock()
        .ok()?
        .iter()
        .find(|&&(c, _)| c == context)
        .map(|&(_, m)| m)
}
