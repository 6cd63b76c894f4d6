//! Our GL work while an app thread is stopped: the daemon's commands, run
//! on that thread with the app's context current. The one entry is
//! [`run_command`] (called by the stop protocol, `stop.rs`), a table
//! from command to the code that runs it.
//!
//! Every debug step is one pipeline ([`pipeline`]: save the app's state,
//! build or reuse the debug program, bind the app's resources, copy aside
//! what the shader writes, replay, read back, restore on drop) with one
//! strategy for capturing values:
//! * [`framebuffer`]: fragment values rendered into a framebuffer of ours;
//! * [`feedback`]: vertex, tess-eval and geometry outputs captured with
//!   transform feedback ([`capture`]: its buffer);
//! * [`storage`]: compute, tess-control and (non-indexed draws) vertex
//!   values written into storage buffers of ours ([`debug_blocks`]: at
//!   free bindings);
//! * [`es2`]: fragment values packed into bytes (GL ES 2).
//!
//! Around them: [`state`] (the app's state saved and restored),
//! [`program`] (building and the one cache of debug programs),
//! [`uniforms`] (the app's uniforms, blocks, attributes given to a debug
//! program), [`writes`] (what a replay writes, copied aside and back),
//! [`target`] (our framebuffers), [`trace`] (a trace shader's buffer,
//! bound and read back with any step), [`blend`] (neutral blend functions),
//! [`context`] and [`es`] (what the context is and offers), [`bulk`] (the
//! command's view of the shared memory), [`error`] (why a step failed),
//! [`query`] (program and state queries), [`records`] (the layout of
//! what a step reads back). A pixel history (issue 16): [`texel`] (the
//! image it follows, read one texel at a time) and [`history`] (a draw's
//! fragments at the pixel, passed one by one through the app's tests).
//! Memcheck (issue 17): [`memcheck`] (the call run with the checked
//! program, in place or with its writes put back, the findings read back),
//! [`memcheck_arm`] (the programs armed) and [`memcheck_armed`] (their
//! later dispatches run checked without a stop, the findings read behind a
//! fence) and [`zero_fill`] (the shadow zeroed by a compute pass of ours).
//!
//! A new kind of replay is one module with its `check` and `step` for
//! `pipeline::command`, plus a line in [`run_command`].

pub mod blend;
pub mod bulk;
pub mod capture;
pub mod context;
pub mod debug_blocks;
pub mod error;
pub mod es;
pub mod es2;
pub mod feedback;
pub mod framebuffer;
pub mod history;
pub mod memcheck;
pub mod memcheck_arm;
pub mod memcheck_armed;
pub mod memcheck_findings;
pub mod pipeline;
pub mod pixel_scissor;
pub mod program;
pub mod query;
pub mod readback;
pub mod records;
pub mod reduce;
pub mod state;
pub mod storage;
pub mod target;
pub mod texel;
pub mod trace;
pub mod uniforms;
pub mod writes;
pub mod zero_fill;

use gldbg_proto::shm;

/// Run daemon command `cmd` at the stopped call `id` with `args`; returns
/// the command's status (`STATUS_UNKNOWN_COMMAND` for one that is not ours).
pub fn run_command(cmd: u32, id: u32, args: &[u64]) -> u32 {
    match cmd {
        shm::CMD_FRAGMENT_STEP => framebuffer::fragment_step(id, args),
        shm::CMD_VERTEX_STEP => feedback::vertex_step(id, args),
        shm::CMD_COMPUTE_STEP => storage::compute_step(id, args),
        shm::CMD_QUERY_PROGRAM => query::query_program(),
        shm::CMD_QUERY_STATE => query::query_state(),
        shm::CMD_RELEASE => {
            history::release_copies();
            memcheck::release_shadow();
            target::release_targets()
        }
        shm::CMD_PIXEL_READ => texel::pixel_read(id, args),
        shm::CMD_PIXEL_HISTORY => history::pixel_history(id, args),
        shm::CMD_MEMCHECK => memcheck::memcheck(id, args),
        shm::CMD_MEMCHECK_TAKE => memcheck_armed::take(),
        _ => shm::STATUS_UNKNOWN_COMMAND,
    }
}
