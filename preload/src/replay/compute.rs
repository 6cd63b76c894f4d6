//! The compute debug step (`CMD_COMPUTE_STEP`): the stopped dispatch run
//! again with an instrumented compute shader whose debug values go to two
//! storage buffers of our own, one record per invocation. The tess-control
//! step is the same with a draw: the draw replayed through every stage but
//! the fragment shader with rasterizer discard, one record per output
//! vertex of each patch.
//!
//! A replayed dispatch writes the app's buffers and images a second time;
//! [`ShaderWrites`] copies them aside before the replay and back after it.
//!
//! The two indexed bindings our buffers take, the generic buffer bindings
//! that `glBindBufferBase` and the copies move, and the program are put
//! back as they were.

use crate::replay::debug_blocks;
use crate::replay::fragment::{
    Bulk, Failure, ProgramCache, Saved, bind_app_attributes, bind_discard_target, cleanup,
    compile_attach, has_context, is_es, load_app_uniforms,
    replay_draw, replay_errors, replayable, set_path, write_reply,
};
use crate::generated::{CLASS, invoke};
use crate::gl;
use crate::intercept::errors::{drain_own_errors, hold_app_errors};
use crate::replay::writes::ShaderWrites;
use gldbg_proto::api::{FUNCTIONS, class};
use gldbg_proto::shm::{self, BulkRef, ComputeStepReply, ComputeStepRequest};
use std::time::Instant;

/// Linked compute debug programs.
static CACHE: ProgramCache = ProgramCache::new(16);

/// `CMD_COMPUTE_STEP`: write a `ComputeStepReply` at `BULK_REPLY`.
pub fn compute_step(id: u32, args: &[u64]) -> u32 {
    let Some(bulk) = Bulk::get() else {
        return shm::STATUS_GL_FAILED;
    };
    let fail = |status: u32, log: &str| {
        write_reply(
            &bulk,
            ComputeStepReply::default(),
            Err((status, log.to_string())),
        )
    };
    let req: ComputeStepRequest = bulk.read(shm::BULK_REQUEST);
    let tess = req.stage == gl::TESS_CONTROL_SHADER;
    let name = FUNCTIONS[id as usize].name;
    if tess {
        if let Err((status, log)) = replayable(id, true) {
            return fail(status, &log);
        }
    } else if CLASS[id as usize] & class::DISPATCH == 0 {
        return fail(
            shm::STATUS_NOT_A_DRAW,
            &format!("{name} is not a compute dispatch"),
        );
    }
    if !has_context() {
        return fail(
            shm::STATUS_NO_CONTEXT,
            "no GL context is current on the stopped thread",
        );
    }
    hold_app_errors();
    let mut saved = Saved::capture(0);
    saved.suspend();
    let mut reply = ComputeStepReply {
        program: saved.program,
        ..Default::default()
    };
    let result = step(&bulk, id, args, &req, &saved, &mut reply);
    saved.restore();
    drain_own_errors();
    write_reply(&bulk, reply, result)
}

fn step(
    bulk: &Bulk,
    id: u32,
    args: &[u64],
    req: &ComputeStepRequest,
    saved: &Saved,
    reply: &mut ComputeStepReply,
) -> Result<(), Failure> {
    saved.check_programs()?;
    // The program of the debugged stage (a pipeline's stage program).
    let app = saved.program_for(match req.stage {
        gl::TESS_CONTROL_SHADER => gl::TESS_CONTROL_SHADER,
        _ => gl::COMPUTE_SHADER,
    });
    if app == 0 {
        return Err((
            shm::STATUS_NO_PROGRAM,
            "no program of the debugged stage is in use".into(),
        ));
    }
    let tess = req.stage == gl::TESS_CONTROL_SHADER;
    let (groups, local_size) = if tess {
        patch_size(id, args, app)?
    } else {
        dispatch_size(id, args, app)?
    };
    reply.groups = groups;
    reply.local_size = local_size;
    let invocations = groups
        .iter()
        .chain(&local_size)
        .try_fold(1usize, |n, &d| n.checked_mul(d as usize))
        .unwrap_or(usize::MAX);
    let out_off = shm::BULK_DATA;
    if invocations == 0 {
        return Err((shm::STATUS_GL_FAILED, "the dispatch is empty".into()));
    }
    if invocations > (shm::BULK_SIZE - out_off) / 20 {
        return Err((
            shm::STATUS_GL_FAILED,
            format!("{invocations} invocations do not fit in the shared memory"),
        ));
    }

    let t0 = Instant::now();
    let context = crate::intercept::context::current_context();
    // Its shaders are detached after linking: a live, linked program of
    // that name is still the one we built (our names are never the app's).
    let still_ours = |p: u32| gl::is_program(p) && gl::get_program_i(p, gl::LINK_STATUS) != 0;
    let prog = match CACHE.get(context, app, req.cache_key, still_ours) {
        Some(p) => {
            reply.cached = 1;
            p
        }
        None => {
            let p = build_program(bulk, saved, req)?;
            CACHE.put(context, app, req.cache_key, p, still_ours);
            p
        }
    };
    gl::use_program(prog);
    load_app_uniforms(prog, saved);
    let value_binding = debug_blocks::place(prog, &saved.programs, req.value_binding)?;
    let path_len = (req.path_len as usize).min(shm::MAX_PATH);
    set_path(bulk, prog, req.path_uniform, &req.path[..path_len]);
    let size_uniform = bulk.str(req.local_size_uniform);
    if !size_uniform.is_empty() {
        let loc = gl::uniform_location(prog, &size_uniform);
        if loc >= 0 && tess {
            gl::uniform_1ui(loc, local_size[0]);
        } else if loc >= 0 {
            gl::uniform_3ui(loc, local_size);
        }
    }
    reply.build_ns = t0.elapsed().as_nanos() as u64;
    // Uniforms the copy cannot set (atomic counters, opaque types) raise
    // errors of ours that mean nothing for the step.
    drain_own_errors();

    let writes = ShaderWrites::snapshot(prog).map_err(|e| (shm::STATUS_GL_FAILED, e))?;
    (reply.restored_buffers, reply.restored_images) = writes.counts();
    let bindings = Bindings::capture(value_binding);
    let values = gl::gen_buffer();
    let coverage = gl::gen_buffer();
    let result = (|| {
        gl::bind_buffer(gl::SHADER_STORAGE_BUFFER, values);
        gl::buffer_data(
            gl::SHADER_STORAGE_BUFFER,
            &vec![0u8; invocations * 16],
            gl::DYNAMIC_COPY,
        );
        gl::bind_buffer(gl::SHADER_STORAGE_BUFFER, coverage);
        gl::buffer_data(
            gl::SHADER_STORAGE_BUFFER,
            &vec![0u8; invocations * 4],
            gl::DYNAMIC_COPY,
        );
        gl::bind_buffer_base(gl::SHADER_STORAGE_BUFFER, value_binding, values);
        gl::bind_buffer_base(gl::SHADER_STORAGE_BUFFER, value_binding + 1, coverage);
        let setup_error = drain_own_errors();
        if setup_error != 0 {
            return Err((
                shm::STATUS_GL_FAILED,
                format!("preparing the debug buffers raised GL error {setup_error:#x}"),
            ));
        }

        let t1 = Instant::now();
        if tess {
            // Only the tess-control values matter; `saved` restores it.
            gl::set_enabled(gl::RASTERIZER_DISCARD, true);
            bind_discard_target()?;
        }
        if tess {
            replay_draw(id, args, None);
        } else {
            // SAFETY: the stopped call's own arguments (an indirect dispatch
            // reads the app's indirect buffer, still bound as it was).
            unsafe { invoke(id, args) };
        }
        gl::memory_barrier(gl::ALL_BARRIER_BITS);
        let replayed = replay_errors("dispatch");
        reply.replay_ns = t1.elapsed().as_nanos() as u64;
        replayed?;

        let t2 = Instant::now();
        let value_off = out_off;
        let coverage_off = value_off + invocations * 16;
        let (Some(v), Some(c)) = (
            bulk.slice_mut(value_off, invocations * 16),
            bulk.slice_mut(coverage_off, invocations * 4),
        ) else {
            return Err((shm::STATUS_GL_FAILED, "no room for the values".into()));
        };
        let es = is_es();
        gl::bind_buffer(gl::SHADER_STORAGE_BUFFER, values);
        gl::get_buffer_bytes(gl::SHADER_STORAGE_BUFFER, v, es);
        gl::bind_buffer(gl::SHADER_STORAGE_BUFFER, coverage);
        gl::get_buffer_bytes(gl::SHADER_STORAGE_BUFFER, c, es);
        let read_error = drain_own_errors();
        if read_error != 0 {
            return Err((
                shm::STATUS_GL_FAILED,
                format!("reading the debug buffers raised GL error {read_error:#x}"),
            ));
        }
        reply.invocations = invocations as u32;
        reply.values = BulkRef::at(value_off, invocations * 16);
        reply.coverage = BulkRef::at(coverage_off, invocations * 4);
        reply.readback_ns = t2.elapsed().as_nanos() as u64;
        Ok(())
    })();
    writes.restore();
    bindings.restore();
    gl::delete_buffer(values);
    gl::delete_buffer(coverage);
    result
}

/// Link the debug program: the instrumented compute shader (plus any other
/// compute shader the app program links), or the instrumented tess-control
/// shader with every other stage but the fragment shader (kept on GL ES,
/// which needs one); the app's attribute locations (block bindings are
/// the app's at each step: `load_app_uniforms`).
fn build_program(bulk: &Bulk, saved: &Saved, req: &ComputeStepRequest) -> Result<u32, Failure> {
    let tess = req.stage == gl::TESS_CONTROL_SHADER;
    let es = is_es();
    let sources: Vec<shm::ShaderRef> = req.shaders[..(req.shader_count as usize).min(6)]
        .iter()
        .copied()
        .filter(|s| match s.gl_type {
            gl::COMPUTE_SHADER => !tess,
            gl::FRAGMENT_SHADER => tess && es,
            _ => tess,
        })
        .collect();
    let prog = gl::create_program();
    let shaders = compile_attach(bulk, prog, &sources)?;
    if tess {
        bind_app_attributes(saved.primary(), prog);
    }
    gl::link_program(prog);
    if gl::get_program_i(prog, gl::LINK_STATUS) == 0 {
        let log = gl::program_info_log(prog);
        cleanup(prog, &shaders, true);
        return Err((shm::STATUS_LINK_FAILED, log));
    }
    cleanup(prog, &shaders, false);
    Ok(prog)
}

/// Work groups and work group size of the stopped dispatch.
fn dispatch_size(id: u32, args: &[u64], app: u32) -> Result<([u32; 3], [u32; 3]), Failure> {
    let arg = |i: usize| args.get(i).copied().unwrap_or(0) as u32;
    let name = FUNCTIONS[id as usize].name;
    let groups = if name.starts_with("glDispatchComputeIndirect") {
        let offset = args.first().copied().unwrap_or(0) as i64;
        if gl::get_i(gl::DISPATCH_INDIRECT_BUFFER_BINDING) == 0 {
            return Err((
                shm::STATUS_GL_FAILED,
                "no indirect dispatch buffer is bound".into(),
            ));
        }
        let mut raw = [0u8; 12];
        gl::get_buffer_bytes_at(gl::DISPATCH_INDIRECT_BUFFER, offset, &mut raw, is_es());
        let word = |i: usize| u32::from_ne_bytes(raw[i * 4..i * 4 + 4].try_into().unwrap());
        [word(0), word(1), word(2)]
    } else {
        [arg(0), arg(1), arg(2)]
    };
    // glDispatchComputeGroupSizeARB gives the work group size too.
    let local = if name.starts_with("glDispatchComputeGroupSize") {
        [arg(3), arg(4), arg(5)]
    } else {
        gl::get_program_i3(app, gl::COMPUTE_WORK_GROUP_SIZE).map(|d| d.max(0) as u32)
    };
    Ok((groups, local))
}

/// Patches of the stopped draw and the output patch size (as work groups
/// of one dimension: invocation `patch * size + gl_InvocationID`).
fn patch_size(id: u32, args: &[u64], app: u32) -> Result<([u32; 3], [u32; 3]), Failure> {
    let per_patch = gl::get_i(gl::PATCH_VERTICES).max(1) as usize;
    let Some(vertices) = crate::replay::vertex::vertex_count(id, args) else {
        return Err((
            shm::STATUS_GL_FAILED,
            "the draw's vertex count is not in its arguments (indirect draws are not \
             supported for tess-control debugging)"
                .into(),
        ));
    };
    let out = gl::get_program_i(app, gl::TESS_CONTROL_OUTPUT_VERTICES).max(0) as u32;
    Ok(([(vertices / per_patch) as u32, 1, 1], [out, 1, 1]))
}

/// The buffer bindings a compute step moves: the two indexed storage
/// bindings our buffers take and the generic bindings of the targets it
/// binds to.
pub(crate) struct Bindings {
    value_binding: u32,
    indexed: [(u32, i64, i64); 2],
    generic: [(u32, u32); 3],
}

impl Bindings {
    pub(crate) fn capture(value_binding: u32) -> Bindings {
        let indexed = |i: u32| {
            (
                gl::get_i_indexed(gl::SHADER_STORAGE_BUFFER_BINDING, i) as u32,
                gl::get_i64_indexed(gl::SHADER_STORAGE_BUFFER_START, i),
                gl::get_i64_indexed(gl::SHADER_STORAGE_BUFFER_SIZE, i),
            )
        };
        let generic = |target: u32| (target, gl::get_i(target) as u32);
        Bindings {
            value_binding,
            indexed: [indexed(value_binding), indexed(value_binding + 1)],
            // For these targets the binding query has the target's own value.
            generic: [
                (
                    gl::SHADER_STORAGE_BUFFER,
                    gl::get_i(gl::SHADER_STORAGE_BUFFER_BINDING) as u32,
                ),
                generic(gl::COPY_READ_BUFFER),
                generic(gl::COPY_WRITE_BUFFER),
            ],
        }
    }

    pub(crate) fn restore(&self) {
        for (i, &(buffer, start, size)) in self.indexed.iter().enumerate() {
            let index = self.value_binding + i as u32;
            if buffer != 0 && size > 0 {
                gl::bind_buffer_range(gl::SHADER_STORAGE_BUFFER, index, buffer, start, size);
            } else {
                gl::bind_buffer_base(gl::SHADER_STORAGE_BUFFER, index, buffer);
            }
        }
        // Last: binding an indexed target also sets its generic binding.
        for &(target, buffer) in &self.generic {
            gl::bind_buffer(target, buffer);
        }
    }
}
