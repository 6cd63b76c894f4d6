//! The app's resources given to a debug program: attribute locations
//! (before linking), then at every step (a cached program must follow what
//! the app set since) its default-block uniform values, bindless handles,
//! subroutine selections and uniform and storage block bindings, and the
//! step's loop path.

use gldbg_proto::shm::{self, BulkRef};

use crate::gl;

use super::bulk::Bulk;
use super::context::program_interface_query;
use super::state::Saved;

/// Give the current debug program `dbg` the app program's uniform values,
/// subroutine selections and block bindings (at every step: a cached debug
/// program must follow what the app set since).
pub(crate) fn load_app_uniforms(dbg: u32, saved: &Saved) {
    // Block bindings too: the app may have moved its blocks since we linked.
    bind_app_blocks(&saved.programs, dbg);
    // A pipeline's stage programs each hold their own uniforms; a name in
    // two of them is one uniform of the debug program (the later stage's value).
    for &p in &saved.programs {
        copy_uniforms(p, dbg);
        // Sampler and image uniforms the app set to bindless handles.
        crate::intercept::bindless::copy(p, dbg);
    }
    if saved.program != 0 {
        copy_subroutines(saved.program, dbg, &saved.subroutines);
    }
}

/// Set the debug program's loop-path uniform (`int[]`, named in the bulk
/// region; nothing to do for a step outside loops).
pub(crate) fn set_path(bulk: &Bulk, prog: u32, uniform: BulkRef, path: &[i32]) {
    let name = bulk.str(uniform);
    if name.is_empty() || path.is_empty() {
        return;
    }
    let loc = gl::uniform_location(prog, &name);
    if loc >= 0 {
        gl::uniform_1iv(loc, &path[..path.len().min(shm::MAX_PATH)]);
    }
}

/// Give the debug program (current) the app's subroutine selections, by
/// uniform and function names. A stage where some location cannot be
/// matched keeps the driver's defaults.
fn copy_subroutines(app: u32, dbg: u32, saved: &[(u32, Vec<u32>)]) {
    for (stage, app_indices) in saved {
        let stage = *stage;
        let n = gl::program_stage_i(dbg, stage, gl::ACTIVE_SUBROUTINE_UNIFORM_LOCATIONS)
            .clamp(0, 1024) as usize;
        if n == 0 {
            continue;
        }
        let mut indices: Vec<Option<u32>> = vec![None; n];
        let uniforms =
            gl::program_stage_i(app, stage, gl::ACTIVE_SUBROUTINE_UNIFORMS).max(0) as u32;
        for u in 0..uniforms {
            let name = gl::active_subroutine_uniform_name(app, stage, u);
            let (src, dst) = (
                gl::subroutine_uniform_location(app, stage, &name),
                gl::subroutine_uniform_location(dbg, stage, &name),
            );
            let Some(&selected) = usize::try_from(src).ok().and_then(|l| app_indices.get(l)) else {
                continue;
            };
            let function = gl::active_subroutine_name(app, stage, selected);
            let index = gl::subroutine_index(dbg, stage, &function);
            if let Some(slot) = usize::try_from(dst).ok().and_then(|l| indices.get_mut(l))
                && index != u32::MAX
            {
                *slot = Some(index);
            }
        }
        if let Some(all) = indices.into_iter().collect::<Option<Vec<u32>>>() {
            gl::uniform_subroutines(stage, &all);
        }
    }
}

/// Give the debug program the app program's attribute locations (before linking).
pub(crate) fn bind_app_attributes(app: u32, prog: u32) {
    let n = gl::get_program_i(app, gl::ACTIVE_ATTRIBUTES).max(0) as u32;
    let max = gl::get_program_i(app, gl::ACTIVE_ATTRIBUTE_MAX_LENGTH).max(0) as usize;
    for i in 0..n {
        let (name, _, _) = gl::active_variable(app, i, true, max);
        if name.starts_with("gl_") {
            continue;
        }
        let loc = gl::attrib_location(app, &name);
        if loc >= 0 {
            gl::bind_attrib_location(prog, loc as u32, &name);
        }
    }
}

/// Give `prog`'s uniform and storage blocks the bindings the blocks of the
/// same names have in the app's `programs`.
pub(crate) fn bind_app_blocks(programs: &[u32], prog: u32) {
    for &app in programs {
        bind_blocks_of(app, prog);
    }
}

fn bind_blocks_of(app: u32, prog: u32) {
    let blocks = gl::get_program_i(app, gl::ACTIVE_UNIFORM_BLOCKS).max(0) as u32;
    for b in 0..blocks {
        let name = gl::uniform_block_name(app, b);
        let binding = gl::uniform_block_param(app, b, gl::UNIFORM_BLOCK_BINDING);
        let idx = gl::uniform_block_index(prog, &name);
        if idx != u32::MAX {
            gl::uniform_block_binding(prog, idx, binding.max(0) as u32);
        }
    }
    // Shader storage block bindings by name (GL 4.3+).
    if program_interface_query() {
        let n = gl::program_interface_i(app, gl::SHADER_STORAGE_BLOCK, gl::ACTIVE_RESOURCES)
            .clamp(0, 256) as u32;
        for b in 0..n {
            let name = gl::program_resource_name(app, gl::SHADER_STORAGE_BLOCK, b);
            let binding =
                gl::program_resource_i(app, gl::SHADER_STORAGE_BLOCK, b, gl::BUFFER_BINDING);
            let idx = gl::program_resource_index(prog, gl::SHADER_STORAGE_BLOCK, &name);
            if idx != u32::MAX {
                gl::shader_storage_block_binding(prog, idx, binding.max(0) as u32);
            }
        }
    }
}

/// Copy every default-block uniform value of `app` into `dbg` (current program).
pub(crate) fn copy_uniforms(app: u32, dbg: u32) {
    // (ES 2 has no uniform blocks, nor glGetActiveUniformsiv to ask.)
    let blocks = super::context::es_version().is_none_or(|v| v.0 >= 3);
    let n = gl::get_program_i(app, gl::ACTIVE_UNIFORMS).max(0) as u32;
    let max = gl::get_program_i(app, gl::ACTIVE_UNIFORM_MAX_LENGTH).max(0) as usize;
    for i in 0..n {
        if blocks && gl::active_uniform_param(app, i, gl::UNIFORM_BLOCK_INDEX) != -1 {
            continue;
        }
        let (name, size, ty) = gl::active_variable(app, i, false, max);
        if name.starts_with("gl_") {
            continue;
        }
        let (kind, _, _) = gl::uniform_shape(ty);
        let base = name.strip_suffix("[0]").unwrap_or(&name);
        for e in 0..size.max(1) {
            let elem = if size > 1 || name.ends_with("[0]") {
                format!("{base}[{e}]")
            } else {
                name.clone()
            };
            let (src, dst) = (
                gl::uniform_location(app, &elem),
                gl::uniform_location(dbg, &elem),
            );
            if src < 0 || dst < 0 {
                continue;
            }
            let v = gl::get_uniform(app, src, kind);
            gl::set_uniform(dst, ty, &v);
        }
    }
}
