//! Zeroing one of our storage buffers with a compute pass of ours, where
//! `glClearBufferSubData` is slow: NVIDIA's H100 driver clears 16 MiB in
//! 533 µs (about 30 GB/s, 256 MiB in 8.5 ms) where this pass takes 10 µs
//! (measured side by side; memcheck's storage shadow is zeroed before
//! every checked call, `memcheck.rs`).
//!
//! The program is built once per context and kept as the reduction's is
//! (`reduce.rs`) (GL 4.3, or 3.3 with `GL_ARB_compute_shader` and
//! `GL_ARB_shader_storage_buffer_object`; not on GL ES, which cannot move
//! a block's binding at run time) and writes
//! the range the caller bound at a storage binding of its choice. The
//! current program is put back; no buffer binding is moved. A conditional
//! render that discards dispatches discards this pass and the app's call
//! alike.

use super::context::{gl_at_least, is_es};
use super::program::{PerContext, compute_program};
use crate::gl;
use crate::intercept::errors::drain_own_errors;

/// The block every invocation writes 16 bytes of per round.
const SOURCE: &str = "
layout(local_size_x = 256) in;
layout(std430) writeonly buffer GldbgZero { uvec4 z[]; } gldbg_zero;
uniform uint gldbg_zero_n;
void main() {
    for (uint i = gl_GlobalInvocationID.x; i < gldbg_zero_n; i += gl_NumWorkGroups.x * 256u)
        gldbg_zero.z[i] = uvec4(0u);
}
";

/// Most work groups one pass dispatches (each loops over its share).
const MAX_GROUPS: u64 = 4096;

/// The program per context.
static PROGRAMS: PerContext = PerContext::new("gldbg_zero_n");

/// GL's `GL_SHADER_STORAGE_BARRIER_BIT`.
const SHADER_STORAGE_BARRIER_BIT: u32 = 0x2000;

/// Zero the first `bytes` (a multiple of 16) of the range bound at storage
/// `binding`. False where this context cannot (no compute shaders, GL ES,
/// the program failed to build, or GL failed): the caller clears another way.
pub(crate) fn zero(binding: u32, bytes: u64) -> bool {
    if !bytes.is_multiple_of(16) {
        return false;
    }
    let Some(prog) = program() else {
        return false;
    };
    let vec4s = bytes / 16;
    let Ok(n) = u32::try_from(vec4s) else {
        return false;
    };
    let current = gl::get_i(gl::CURRENT_PROGRAM) as u32;
    gl::use_program(prog);
    gl::shader_storage_block_binding(prog, 0, binding);
    gl::uniform_1ui(gl::uniform_location(prog, "gldbg_zero_n"), n);
    let groups = vec4s.div_ceil(256).clamp(1, MAX_GROUPS) as u32;
    gl::dispatch_compute(groups, 1, 1);
    // The checked call's reads and atomics of the shadow come after.
    gl::memory_barrier(SHADER_STORAGE_BARRIER_BIT);
    gl::use_program(current);
    drain_own_errors() == 0
}

/// This context's program (built on first use); `None` where it cannot be.
fn program() -> Option<u32> {
    PROGRAMS.get(|| if available() { build() } else { 0 })
}

fn available() -> bool {
    !is_es()
        && (gl_at_least(4, 3)
            || (gl::has_extension("GL_ARB_compute_shader")
                && gl::has_extension("GL_ARB_shader_storage_buffer_object")))
}

fn build() -> u32 {
    let header = match gl_at_least(4, 3) {
        true => "#version 430\n",
        false => {
            "#version 330\n#extension GL_ARB_compute_shader : require\n\
             #extension GL_ARB_shader_storage_buffer_object : require\n"
        }
    };
    compute_program(&format!("{header}{SOURCE}"))
}
