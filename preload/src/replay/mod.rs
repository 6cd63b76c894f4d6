//! Our GL work while an app thread is stopped: the daemon's commands, run
//! on that thread with the app's context current. The one entry is
//! [`run_command`] (called by the stop protocol, `crate::stop`).
//!
//! * [`fragment`]: program queries, the fragment step; [`vertex`] and
//!   [`compute`]: the vertex and compute debug steps; [`es2`]: the
//!   fragment step of OpenGL ES 2 contexts; [`capture`]: the transform
//!   feedback buffer; [`debug_blocks`]: bindings of the debug storage
//!   blocks; [`writes`]: what a replay writes, copied aside and back;
//!   [`blend`]: neutral blend functions for a replay; [`es`]: what a GL ES
//!   context offers the steps.

pub mod blend;
pub mod capture;
pub mod compute;
pub mod debug_blocks;
pub mod es;
pub mod es2;
pub mod fragment;
pub mod vertex;
pub mod writes;

use gldbg_proto::shm;

/// Run daemon command `cmd` at the stopped call `id` with `args`; returns
/// the command's status (`STATUS_UNKNOWN_COMMAND` for one that is not ours).
pub fn run_command(cmd: u32, id: u32, args: &[u64]) -> u32 {
    match cmd {
        shm::CMD_FRAGMENT_STEP => fragment::fragment_step(id, args),
        shm::CMD_VERTEX_STEP => vertex::vertex_step(id, args),
        shm::CMD_COMPUTE_STEP => compute::compute_step(id, args),
        shm::CMD_QUERY_PROGRAM => fragment::query_program(),
        shm::CMD_QUERY_STATE => fragment::query_state(),
        shm::CMD_RELEASE => fragment::release_targets(),
        _ => shm::STATUS_UNKNOWN_COMMAND,
    }
}
