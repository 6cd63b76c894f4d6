//! Program and shader binaries under a debugger: the app takes its source
//! path.
//!
//! A program loaded with `glProgramBinary` (Qt's, Chromium's and many
//! engines' shader caches) has no source gldbg could instrument. While a
//! session is attached, the driver reports no binary formats
//! (`GL_NUM_PROGRAM_BINARY_FORMATS` and `GL_NUM_SHADER_BINARY_FORMATS` read
//! 0 through every `glGet*v`, the format lists are empty), so an app that
//! asks first never saves or loads a binary; and `glProgramBinary` fails as
//! the spec allows a load to fail (link status false, no GL error: the
//! driver is given an empty binary), so an app with a cache compiles from
//! source. Without a session every call is forwarded unchanged.

use crate::generated::invoke;
use gldbg_proto::api::ids;

const NUM_PROGRAM_BINARY_FORMATS: u32 = 0x87FE;
const PROGRAM_BINARY_FORMATS: u32 = 0x87FF;
const NUM_SHADER_BINARY_FORMATS: u32 = 0x8DF9;
const SHADER_BINARY_FORMATS: u32 = 0x8DF8;

/// The hook of `glProgramBinary[OES]` and the `glGet*v` state queries.
pub fn call(id: u32, args: &[u64]) -> u64 {
    if crate::session::session().is_none() {
        // SAFETY: pass-through: the app's own call.
        return unsafe { invoke(id, args) };
    }
    if matches!(id, ids::glProgramBinary | ids::glProgramBinaryOES) {
        // The app's program and format, no bytes: the load fails (link
        // status false) without an error, and the app links from source.
        let mut failing = args.to_vec();
        if let Some(length) = failing.get_mut(3) {
            *length = 0;
        }
        // SAFETY: the app's arguments with a length of 0 (no byte is read).
        return unsafe { invoke(id, &failing) };
    }
    let pname = args.first().copied().unwrap_or(0) as u32;
    let out = args.get(1).copied().unwrap_or(0) as usize;
    match pname {
        NUM_PROGRAM_BINARY_FORMATS | NUM_SHADER_BINARY_FORMATS if out != 0 => {
            write_zero(id, out);
            0
        }
        // The lists have as many entries as the counts say: none.
        PROGRAM_BINARY_FORMATS | SHADER_BINARY_FORMATS => 0,
        // SAFETY: any other query: the app's own call.
        _ => unsafe { invoke(id, args) },
    }
}

/// Store a zero of the type `glGet*v` `id` writes at `out`.
fn write_zero(id: u32, out: usize) {
    let size = match id {
        ids::glGetBooleanv => 1,
        ids::glGetIntegerv | ids::glGetFloatv => 4,
        _ => 8, // glGetInteger64v, glGetDoublev
    };
    // SAFETY: the app passed `out` for one value of this query's type
    // (GL's contract: the count queries return one value), zero in any type.
    unsafe { core::ptr::write_bytes(out as *mut u8, 0, size) };
}
