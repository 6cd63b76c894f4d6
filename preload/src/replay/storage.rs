//! The storage buffer strategy: the debug shader writes its values and
//! coverage into two storage buffers of ours, one record per invocation,
//! read back after the replay.
//!
//! * Compute (`CMD_COMPUTE_STEP`): the stopped dispatch run again.
//! * Tess-control (`CMD_COMPUTE_STEP` with that stage): the draw replayed
//!   through every stage but the fragment shader with rasterizer discard,
//!   one record per output vertex of each patch.
//! * Vertex of a non-indexed draw (`CMD_VERTEX_STEP` with storage
//!   outputs, [`vertex_values`]): records at `gl_VertexID - first +
//!   gl_InstanceID * count` (transform feedback's order).
//!
//! The two indexed bindings our buffers take ([`debug_blocks`]: free
//! ones), the generic buffer bindings that `glBindBufferBase` and the
//! copies move, and the program are put back as they were.

use gldbg_proto::shm::{self, BulkRef, ComputeStepReply, ComputeStepRequest, ShaderRef};
use gldbg_proto::shm::{VertexStepReply, VertexStepRequest};

use crate::gl;
use crate::intercept::errors::drain_own_errors;

use super::bulk::Bulk;
use super::context::{has_context, is_es};
use super::debug_blocks;
use super::error::Error;
use super::pipeline::{Call, Replay, StepRequest, check_gl, command};
use super::program::{DebugProgram, Kind, Mark, link};
use super::records::{COVERAGE_WORD, VALUE_BYTES, coverage_bytes};
use super::state::Saved;
use super::target::bind_discard_target;
use super::uniforms::bind_app_attributes;

/// Bytes per invocation in the bulk region: the value and its coverage word.
const INVOCATION_BYTES: usize = VALUE_BYTES + COVERAGE_WORD;

/// `CMD_COMPUTE_STEP`: write a `ComputeStepReply` at `BULK_REPLY`.
pub fn compute_step(id: u32, args: &[u64]) -> u32 {
    command(id, args, check, step)
}

fn check(call: Call, req: &ComputeStepRequest) -> Result<(), Error> {
    if req.stage == gl::TESS_CONTROL_SHADER {
        call.replayable(true)?;
    } else if !call.is_dispatch() {
        return Err(Error::NotADispatch { name: call.name() });
    }
    if !has_context() {
        return Err(Error::NoContext);
    }
    Ok(())
}

fn step(
    bulk: &mut Bulk,
    call: Call,
    req: &ComputeStepRequest,
    reply: &mut ComputeStepReply,
) -> Result<(), Error> {
    let tess = req.stage == gl::TESS_CONTROL_SHADER;
    let stage = match tess {
        true => gl::TESS_CONTROL_SHADER,
        false => gl::COMPUTE_SHADER,
    };
    let mut r = Replay::begin(bulk, call, reply, 0).tracing(req.trace, stage);
    r.reply.program = r.saved.program;
    r.saved.check_programs()?;
    // The program of the debugged stage (a pipeline's stage program).
    let app = r.saved.program_for(match tess {
        true => gl::TESS_CONTROL_SHADER,
        false => gl::COMPUTE_SHADER,
    });
    if app == 0 {
        return Err(Error::NoStageProgram);
    }
    let (groups, local_size) = match tess {
        true => patch_size(call, app)?,
        false => dispatch_size(call, app)?,
    };
    (r.reply.groups, r.reply.local_size) = (groups, local_size);
    let invocations = invocations(groups, local_size)?;
    let prog = r
        .program(
            (Kind::Compute, app, req.cache_key),
            req.path(),
            // Our value and coverage blocks, by the instrumenter's prefix.
            (&Mark::Blocks, |_: &DebugProgram| true),
            |bulk, saved| build_program(bulk, saved, req).map(DebugProgram::plain),
        )?
        .program;
    let trace = r.trace_block();
    let value_binding = debug_blocks::place(prog, &r.saved.programs, req.value_binding, &trace)?;
    let size_uniform = r.bulk.str(req.local_size_uniform);
    if !size_uniform.is_empty() {
        let loc = gl::uniform_location(prog, &size_uniform);
        if loc >= 0 && tess {
            gl::uniform_1ui(loc, local_size[0]);
        } else if loc >= 0 {
            gl::uniform_3ui(loc, local_size);
        }
    }
    // Uniforms the copy cannot set (atomic counters, opaque types) raise
    // errors of ours that mean nothing for the step.
    drain_own_errors();
    let writes = r.writes(prog)?;
    (r.reply.restored_buffers, r.reply.restored_images) = writes.counts();
    let buffers = DebugBuffers::bind(value_binding, invocations, true)?;
    if tess {
        // Only the tess-control values matter; `Saved` restores it.
        gl::set_enabled(gl::RASTERIZER_DISCARD, true);
        bind_discard_target()?;
    }
    let replayed = r.replay("dispatch", |call| {
        match tess {
            true => call.draw(None),
            false => call.dispatch(),
        }
        gl::memory_barrier(gl::ALL_BARRIER_BITS);
    });
    let restored = writes.finish();
    replayed?;
    restored?;
    r.read_back(|r| {
        // One invocation or a GPU summary where asked (and possible).
        let extent = [0, 1, 2].map(|i| groups[i] * local_size[i]);
        let asked = &req.readback;
        let blocks = (buffers.values, buffers.coverage);
        if let Some(held) = super::readback::from_blocks(r.bulk, asked, extent, blocks) {
            r.reply.invocations = invocations as u32;
            (r.reply.values, r.reply.coverage) = (held.values, held.coverage);
            r.reply.readback = held.reply;
            return Ok(());
        }
        let value_off = shm::BULK_DATA;
        let coverage_off = value_off + invocations * VALUE_BYTES;
        let (values, coverage) = (invocations * VALUE_BYTES, invocations * COVERAGE_WORD);
        let [v, c] = r
            .bulk
            .disjoint_mut([(value_off, values), (coverage_off, coverage)])
            .ok_or(Error::NoRoom("no room for the values"))?;
        buffers.read_words(v, c)?;
        r.reply.invocations = invocations as u32;
        r.reply.values = BulkRef::at(value_off, values);
        r.reply.coverage = BulkRef::at(coverage_off, coverage);
        Ok(())
    })
}

/// Invocations of `groups` work groups of `local_size`, if they fit.
fn invocations(groups: [u32; 3], local_size: [u32; 3]) -> Result<usize, Error> {
    let n = groups
        .iter()
        .chain(&local_size)
        .try_fold(1usize, |n, &d| n.checked_mul(d as usize))
        .unwrap_or(usize::MAX);
    if n == 0 {
        return Err(Error::Call("the dispatch is empty".into()));
    }
    if n > (shm::BULK_SIZE - shm::BULK_DATA) / INVOCATION_BYTES {
        return Err(Error::TooMany(format!("{n} invocations")));
    }
    Ok(n)
}

/// The vertex step of a non-indexed draw whose debug shader `prog`
/// (current) writes storage blocks: the draw replayed as it is with
/// rasterizer discard, no transform feedback, the blocks read back.
pub(crate) fn vertex_values(
    r: &mut Replay<VertexStepReply>,
    req: &VertexStepRequest,
    prog: u32,
) -> Result<(), Error> {
    let name = r.call.name();
    // glDrawArrays[Instanced[BaseInstance]](mode, first, count, ...).
    let shape = r.call.shape();
    let (Some(first), Some(count), true) = (shape.first, shape.count, shape.is_direct_array_draw())
    else {
        return Err(Error::Call(format!(
            "{name} is not a non-indexed draw with its first and count"
        )));
    };
    let first = r.call.arg(usize::from(first));
    let count = (r.call.arg(usize::from(count)) as i32).max(0) as u32;
    let n = r.call.vertex_count().unwrap_or(0);
    if n == 0 {
        return Err(Error::Call("the draw has no vertices".into()));
    }
    let want = req.want_value != 0;
    let value_len = if want { VALUE_BYTES } else { 0 };
    if shm::BULK_DATA + n * (value_len + 1) > shm::BULK_SIZE {
        return Err(Error::TooMany(format!("{n} vertices")));
    }
    for (uniform, v) in [(req.first_uniform, first), (req.count_uniform, count)] {
        let loc = gl::uniform_location(prog, &r.bulk.str(uniform));
        if loc >= 0 {
            gl::uniform_1ui(loc, v);
        }
    }
    // Uniforms the copy cannot set raise errors of ours that mean nothing.
    drain_own_errors();
    let trace = r.trace_block();
    let value_binding = debug_blocks::place(prog, &r.saved.programs, req.value_binding, &trace)?;
    let writes = r.writes(prog)?;
    // Every vertex writes both (coverage 0 where not reached).
    let buffers = DebugBuffers::bind(value_binding, n, false)?;
    gl::set_enabled(gl::RASTERIZER_DISCARD, true);
    bind_discard_target()?;
    check_gl("preparing the debug buffers")?;
    let replayed = r.replay("draw", |call| {
        call.draw(None);
        gl::memory_barrier(gl::ALL_BARRIER_BITS);
    });
    let restored = writes.finish();
    replayed?;
    restored?;
    r.read_back(|r| {
        let asked = &req.readback;
        let blocks = (buffers.values, buffers.coverage);
        let held =
            want.then(|| super::readback::from_blocks(r.bulk, asked, [n as u32, 1, 1], blocks));
        if let Some(held) = held.flatten() {
            super::readback::vertex_reply(r.reply, held);
            return Ok(());
        }
        let out_off = shm::BULK_DATA;
        let coverage_off = out_off + n * value_len;
        let [v, c] = r
            .bulk
            .disjoint_mut([(out_off, n * value_len), (coverage_off, n)])
            .ok_or(Error::NoRoom("no room for the values"))?;
        let code = buffers.read_vertices(want.then_some(v), c)?;
        r.reply.vertices = n as u32;
        r.reply.values = BulkRef::at(out_off, n * value_len);
        r.reply.coverage = BulkRef::at(coverage_off, n);
        r.reply.coverage_code = code;
        Ok(())
    })
}

/// Our value and coverage buffers, bound at `value_binding` and the next
/// storage binding for one step; the bindings they move are put back and
/// the buffers deleted when dropped.
struct DebugBuffers {
    values: u32,
    coverage: u32,
    bindings: Bindings,
}

impl DebugBuffers {
    /// Buffers for `n` records (zeroed where `zeroed`: not every
    /// invocation writes its record), bound.
    fn bind(value_binding: u32, n: usize, zeroed: bool) -> Result<DebugBuffers, Error> {
        let b = DebugBuffers {
            values: gl::gen_buffer(),
            coverage: gl::gen_buffer(),
            bindings: Bindings::capture(value_binding),
        };
        for (buffer, len) in [(b.values, n * VALUE_BYTES), (b.coverage, n * COVERAGE_WORD)] {
            gl::bind_buffer(gl::SHADER_STORAGE_BUFFER, buffer);
            match zeroed {
                true => {
                    gl::buffer_data(gl::SHADER_STORAGE_BUFFER, &vec![0u8; len], gl::DYNAMIC_COPY)
                }
                false => {
                    gl::buffer_data_uninit(gl::SHADER_STORAGE_BUFFER, len as i64, gl::STREAM_READ)
                }
            }
        }
        gl::bind_buffer_base(gl::SHADER_STORAGE_BUFFER, value_binding, b.values);
        gl::bind_buffer_base(gl::SHADER_STORAGE_BUFFER, value_binding + 1, b.coverage);
        check_gl("preparing the debug buffers")?;
        Ok(b)
    }

    /// Values and coverage words as they are (compute, tess-control).
    fn read_words(&self, values: &mut [u8], coverage: &mut [u8]) -> Result<(), Error> {
        let es = is_es();
        gl::bind_buffer(gl::SHADER_STORAGE_BUFFER, self.values);
        gl::get_buffer_bytes(gl::SHADER_STORAGE_BUFFER, values, es);
        gl::bind_buffer(gl::SHADER_STORAGE_BUFFER, self.coverage);
        gl::get_buffer_bytes(gl::SHADER_STORAGE_BUFFER, coverage, es);
        check_gl("reading the debug buffers")
    }

    /// Coverage as one byte per vertex and the values where asked;
    /// returns the type code.
    fn read_vertices(&self, values: Option<&mut [u8]>, coverage: &mut [u8]) -> Result<u32, Error> {
        let n = coverage.len();
        gl::bind_buffer(gl::SHADER_STORAGE_BUFFER, self.coverage);
        let code = gl::with_mapped(gl::SHADER_STORAGE_BUFFER, n * COVERAGE_WORD, |words| {
            coverage_bytes(words, coverage)
        });
        let values_read = match values {
            None => true,
            Some(v) => {
                gl::bind_buffer(gl::SHADER_STORAGE_BUFFER, self.values);
                gl::with_mapped(gl::SHADER_STORAGE_BUFFER, n * VALUE_BYTES, |bytes| {
                    v.copy_from_slice(bytes)
                })
                .is_some()
            }
        };
        let read_error = drain_own_errors();
        code.filter(|_| read_error == 0 && values_read)
            .ok_or(Error::Gl {
                doing: "reading the debug buffers",
                code: read_error,
            })
    }
}

impl Drop for DebugBuffers {
    fn drop(&mut self) {
        self.bindings.restore();
        gl::delete_buffer(self.values);
        gl::delete_buffer(self.coverage);
    }
}

/// Link the debug program: the instrumented compute shader (plus any other
/// compute shader the app program links), or the instrumented tess-control
/// shader with every other stage but the fragment shader (kept on GL ES,
/// which needs one); the app's attribute locations (block bindings are
/// the app's at each step: `Replay::program`).
fn build_program(bulk: &Bulk, saved: &Saved, req: &ComputeStepRequest) -> Result<u32, Error> {
    let tess = req.stage == gl::TESS_CONTROL_SHADER;
    let es = is_es();
    let sources: Vec<ShaderRef> = req
        .shaders()
        .iter()
        .copied()
        .filter(|s| match s.gl_type {
            gl::COMPUTE_SHADER => !tess,
            gl::FRAGMENT_SHADER => tess && es,
            _ => tess,
        })
        .collect();
    link(bulk, &sources, |prog| {
        if tess {
            bind_app_attributes(saved.primary(), prog);
        }
        Ok(())
    })
}

/// Work groups and work group size of the stopped dispatch.
fn dispatch_size(call: Call, app: u32) -> Result<([u32; 3], [u32; 3]), Error> {
    let shape = call.shape();
    let groups = if shape.indirect {
        let offset = call.args.first().copied().unwrap_or(0) as i64;
        if gl::get_i(gl::DISPATCH_INDIRECT_BUFFER_BINDING) == 0 {
            return Err(Error::Call("no indirect dispatch buffer is bound".into()));
        }
        let mut raw = [0u8; 12];
        gl::get_buffer_bytes_at(gl::DISPATCH_INDIRECT_BUFFER, offset, &mut raw, is_es());
        let (words, _) = raw.as_chunks::<4>();
        [0, 1, 2].map(|i| u32::from_ne_bytes(words[i]))
    } else {
        [call.arg(0), call.arg(1), call.arg(2)]
    };
    // glDispatchComputeGroupSizeARB gives the work group size too.
    let local = if let Some(x) = shape.group_size.map(usize::from) {
        [call.arg(x), call.arg(x + 1), call.arg(x + 2)]
    } else {
        gl::get_program_i3(app, gl::COMPUTE_WORK_GROUP_SIZE).map(|d| d.max(0) as u32)
    };
    Ok((groups, local))
}

/// Patches of the stopped draw and the output patch size (as work groups
/// of one dimension: invocation `patch * size + gl_InvocationID`).
fn patch_size(call: Call, app: u32) -> Result<([u32; 3], [u32; 3]), Error> {
    let per_patch = gl::get_i(gl::PATCH_VERTICES).max(1) as usize;
    let Some(vertices) = call.vertex_count() else {
        return Err(Error::Call(
            "the draw's vertex count is not in its arguments (indirect draws are not \
             supported for tess-control debugging)"
                .into(),
        ));
    };
    let out = gl::get_program_i(app, gl::TESS_CONTROL_OUTPUT_VERTICES).max(0) as u32;
    Ok(([(vertices / per_patch) as u32, 1, 1], [out, 1, 1]))
}

/// The buffer bindings a storage step moves: the two indexed storage
/// bindings our buffers take and the generic bindings of the targets it
/// binds to.
struct Bindings {
    value_binding: u32,
    indexed: [(u32, i64, i64); 2],
    generic: [(u32, u32); 3],
}

impl Bindings {
    fn capture(value_binding: u32) -> Bindings {
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

    fn restore(&self) {
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
