//! `CMD_MEMCHECK` (issue 17): the stopped dispatch or draw run with the
//! memcheck program (glsl-instrument's `memcheck.rs`: the app's shader,
//! every statement kept, its memory accesses checked) and the findings
//! read back.
//!
//! The program is built from the request's shaders (the checked stage
//! first, the app program's other stages after; a draw's program gets the
//! app's attribute and output locations before linking), cached as
//! `Kind::Memcheck` while it has its findings block, and given the app's
//! uniforms and block bindings as every debug program is (`Replay::
//! program`). Then, at storage bindings no block of the program uses
//! (`debug_blocks::place_one`), buffers of ours, zeroed:
//! * the findings block, exactly the request's `log_words` words (bound
//!   and read back as a trace buffer, `trace.rs`, its data zeroed too);
//! * the storage shadow, where the shader declares one (a buffer kept per
//!   context, grown when asked for more, deleted on `CMD_RELEASE`; bound
//!   as exactly the range given, zeroed): tracked array `k`
//!   (its storage block's binding `b` in the program, the range bound
//!   there `R` bytes, `GL_SHADER_STORAGE_BUFFER_SIZE` or the buffer's size
//!   less the start when bound whole) needs `R / 4` components; in order,
//!   each is given its components at `sbase[k]` (the running sum) unless
//!   the running total at 16 bytes a component would pass the budget (or
//!   the context's largest storage block): then `scap[k] = 0`;
//! * `gldbg_mc_acb[i]` the bytes bound at atomic counter binding `i`.
//!
//! Then the call is issued as the app issues it (`Call::dispatch`: direct,
//! indirect, with a group size; `Call::draw_as_app`: the app's blending,
//! framebuffer and tests) inside a `GL_TIME_ELAPSED` query of ours where the
//! context has one and the app's own timer query is not active. In place,
//! the call is the app's: nothing is copied aside, the app's counting
//! queries count it (`Replay::begin_for_app`). Not in place, what the
//! shader writes is copied aside and put back (`ShaderWrites`), the app's
//! queries are suspended, and a draw writes no colour, depth or stencil.
//! Every state and binding is put back by the `Replay` guard and ours.

use std::sync::Mutex;

use gldbg_proto::shm::{self, BulkRef, MemcheckReply, MemcheckRequest, TraceRequest};

use crate::gl;
use crate::intercept::errors::{drain_own_errors, hold_app_errors};

use super::bulk::{Bulk, align8};
use super::context::{compatibility_context, has_context, is_es, program_interface_query};
use super::debug_blocks;
use super::error::Error;
use super::memcheck_findings::Block;
use super::pipeline::{Call, Replay, check_gl, command};
use super::program::{DebugProgram, Kind, Mark, link};
use super::state::Saved;
use super::trace::SavedBinding;
use super::uniforms::bind_app_attributes;

/// Shadow bytes per tracked component: 4 words (writer, its meta, reader,
/// its meta).
const SHADOW_COMPONENT_BYTES: u64 = 16;
/// Atomic counter bindings whose range sizes the shader is given.
const COUNTER_BINDINGS: u32 = 8;

/// `CMD_MEMCHECK` for the stopped call `id` with `args`.
pub fn memcheck(id: u32, args: &[u64]) -> u32 {
    command(id, args, check, step)
}

pub(super) fn check(call: Call, req: &MemcheckRequest) -> Result<(), Error> {
    if !call.is_dispatch() {
        call.replayable(true)?;
    }
    if !has_context() {
        return Err(Error::NoContext);
    }
    if req.log_words < shm::TRACE_HEADER_WORDS as u32 {
        return Err(Error::Call(format!(
            "a findings block of {} words is shorter than its header",
            req.log_words
        )));
    }
    // In place, the call is the app's: a `glEnd` stop's deferred sequence
    // and a display list's calls are issued by the stop's own release.
    use gldbg_proto::api::ids;
    if req.in_place != 0 && matches!(call.id, ids::glEnd | ids::glCallList | ids::glCallLists) {
        return Err(Error::Unsupported(format!(
            "{} is not run in place by memcheck (immediate mode and display lists)",
            call.name()
        )));
    }
    // In place, the app's transform feedback would capture the call: the
    // checked program has none of the app's captured varyings.
    let feedback = gl::get_b(gl::TRANSFORM_FEEDBACK_ACTIVE) != 0;
    if req.in_place != 0 && feedback {
        return Err(Error::Unsupported(
            "transform feedback is active: the checked program cannot capture the app's \
             varyings, so the call is not run in its place"
                .into(),
        ));
    }
    Ok(())
}

/// The shadow as planned: per tracked array its base, cap and need.
#[derive(Default)]
struct Shadow {
    base: Vec<u32>,
    caps: Vec<u32>,
    needed: Vec<u32>,
    /// Components given in all.
    total: u64,
    /// The block's index and binding in the checked program.
    block: Option<(u32, u32)>,
}

fn step(
    bulk: &mut Bulk,
    call: Call,
    req: &MemcheckRequest,
    reply: &mut MemcheckReply,
) -> Result<(), Error> {
    step_as(bulk, call, req, reply, Run::AtStop)
}

/// The replay of a checked call.
pub(super) type MemcheckReplay<'a> = Replay<'a, MemcheckReply>;

/// How a checked call is run.
#[derive(Clone, Copy)]
pub(super) enum Run {
    /// At a stop, for the daemon (`CMD_MEMCHECK`): timed, the findings
    /// read back, and the program armed after where the request asks
    /// (`memcheck_arm.rs`).
    AtStop,
    /// By an armed program without a stop (`memcheck_armed.rs`): nothing
    /// waits for the GPU; the findings block is this block of the run's
    /// own, and it and the lists go to `defer`.
    Armed { findings: Block, defer: Defer },
}

/// What ends an armed run: its replay (the findings block still bound),
/// its lists, its findings block.
pub(super) type Defer = fn(&mut MemcheckReplay<'_>, Lists, Block) -> Result<(), Error>;

pub(super) fn step_as(
    bulk: &mut Bulk,
    call: Call,
    req: &MemcheckRequest,
    reply: &mut MemcheckReply,
    run: Run,
) -> Result<(), Error> {
    let in_place = req.in_place != 0;
    let draw = !call.is_dispatch();
    let stage = match draw {
        true => gl::FRAGMENT_SHADER,
        false => gl::COMPUTE_SHADER,
    };
    let max_db = match draw {
        true => gl::get_i(gl::MAX_DRAW_BUFFERS).clamp(1, 32) as u32,
        false => 0,
    };
    let findings = TraceRequest {
        block: req.log_block,
        capacity_words: req.log_words - shm::TRACE_HEADER_WORDS as u32,
        zero_data: 1,
    };
    let r = match in_place {
        true => Replay::begin_for_app(bulk, call, reply, max_db),
        false => Replay::begin(bulk, call, reply, max_db),
    };
    let mut r = match run {
        Run::AtStop => r.tracing(findings, stage),
        Run::Armed { findings: b, .. } => r.tracing_into(findings, stage, (b.buffer, b.zeroed())),
    };
    (r.reply.log_binding, r.reply.shadow_binding) = (u32::MAX, u32::MAX);
    r.saved.check_programs()?;
    let app = r.saved.program_for(stage);
    r.reply.program = app;
    if app == 0 {
        return Err(Error::NoStageProgram);
    }
    if app != req.program {
        return Err(Error::Call(format!(
            "the call uses program {app}; the checked program is for program {}",
            req.program
        )));
    }
    let prog = program(&mut r, req, app, draw)?;
    // Uniforms the copy cannot set (atomic counters, opaque types) raise
    // errors of ours that mean nothing for the call.
    drain_own_errors();
    let shadow = place_shadow(&r, req, prog)?;
    set_uniforms(&r, req, prog, &shadow);
    check_gl("setting the memcheck uniforms")?;
    let ours: Vec<u32> = shadow.block.map(|(index, _)| index).into_iter().collect();
    let writes = r.writes_but(prog, !in_place, &ours)?;
    if r.reply.trace.status != shm::TRACE_OK && r.reply.trace.status != shm::TRACE_NONE {
        return Err(Error::Unsupported(format!(
            "the checked program's findings block {} cannot be bound here",
            r.bulk.str(req.log_block)
        )));
    }
    let _shadow_bound = bind_shadow(&mut r, &shadow)?;
    if let Some(w) = &writes {
        (r.reply.restored_buffers, r.reply.restored_images) = w.counts();
    }
    if draw && !in_place {
        gl::color_mask([0; 4]);
        gl::depth_mask(gl::FALSE);
        gl::stencil_mask_separate(gl::FRONT_AND_BACK, 0);
    }
    let timer = match run {
        Run::AtStop => Timer::begin(),
        Run::Armed { .. } => Timer(None),
    };
    let replayed = r.replay(if draw { "draw" } else { "dispatch" }, |c| match draw {
        true => c.draw_as_app(),
        false => c.dispatch(),
    });
    let gpu_ns = timer.end();
    // A call that raised a GL error did nothing (the daemon runs the app's
    // own call then); else it ran, in place as the app's.
    r.reply.ran = u32::from(replayed.is_ok());
    gl::memory_barrier(gl::ALL_BARRIER_BITS);
    let restored = writes.map_or(Ok(()), |w| w.finish());
    replayed?;
    restored?;
    r.reply.cache_key = req.cache_key;
    if let Run::Armed { defer, findings } = run {
        let lists = lists(&r, req, prog, &shadow);
        return defer(&mut r, lists, findings);
    }
    r.read_back(|_| Ok(()))?;
    r.reply.gpu_ns = gpu_ns.unwrap_or(0);
    let lists = lists(&r, req, prog, &shadow);
    write_lists(&mut r, lists)?;
    if req.arm != 0 && in_place && !draw {
        super::memcheck_arm::arm(r.bulk, req);
    }
    Ok(())
}

/// The checked program: cached or built (a draw's with the app's
/// attribute and fragment output locations), made current with the app's
/// uniforms and bindings.
fn program(
    r: &mut Replay<MemcheckReply>,
    req: &MemcheckRequest,
    app: u32,
    draw: bool,
) -> Result<u32, Error> {
    let shaders = &req.shaders[..(req.shader_count as usize).min(req.shaders.len())];
    if shaders.is_empty() {
        return Err(Error::Call("the memcheck request has no shaders".into()));
    }
    let mark = Mark::Block(r.bulk.str(req.log_block));
    let primary = r.saved.primary();
    let dbg = r.program(
        (Kind::Memcheck, app, req.cache_key),
        (BulkRef::default(), &[]),
        (&mark, |_: &DebugProgram| true),
        |bulk, _saved: &Saved| {
            let prog = link(bulk, shaders, |prog| {
                if draw {
                    bind_app_attributes(primary, prog);
                    bind_app_outputs(app, prog);
                }
                Ok(())
            })?;
            Ok(DebugProgram::plain(prog))
        },
    )?;
    Ok(dbg.program)
}

/// Give `prog` (before linking) the locations and indices of the app
/// fragment program `app`'s outputs, by name.
fn bind_app_outputs(app: u32, prog: u32) {
    // GL ES binds no output locations at run time (its shaders say them).
    if !program_interface_query() || is_es() {
        return;
    }
    let n = gl::program_interface_i(app, gl::PROGRAM_OUTPUT, gl::ACTIVE_RESOURCES).clamp(0, 64);
    for i in 0..n as u32 {
        let name = gl::program_resource_name(app, gl::PROGRAM_OUTPUT, i);
        let base = name.split('[').next().unwrap_or_default();
        if base.is_empty()
            || base.starts_with("gl_")
            || name.contains('[') && !name.ends_with("[0]")
        {
            continue;
        }
        let loc = gl::program_resource_i(app, gl::PROGRAM_OUTPUT, i, gl::LOCATION);
        if loc < 0 {
            continue;
        }
        let index = gl::program_resource_i(app, gl::PROGRAM_OUTPUT, i, gl::LOCATION_INDEX).max(0);
        gl::bind_frag_data_location_indexed(prog, loc as u32, index as u32, base);
    }
}

/// A list of [`BulkRef`] strings (its own bytes checked first).
fn names(bulk: &Bulk, list: BulkRef) -> Vec<String> {
    let refs = bulk.bytes(list).len() / size_of::<BulkRef>();
    (0..refs.min(list.list_len()))
        .map(|i| bulk.str(bulk.read::<BulkRef>(list.list_item(i))))
        .collect()
}

/// The storage binding of block `name` in `prog` (None: not an active
/// block, or the context cannot list blocks).
fn block_binding(prog: u32, name: &str) -> Option<(u32, u32)> {
    if !program_interface_query() {
        return None;
    }
    let index = gl::program_resource_index(prog, gl::SHADER_STORAGE_BLOCK, name);
    (index != u32::MAX).then(|| {
        let b = gl::program_resource_i(prog, gl::SHADER_STORAGE_BLOCK, index, gl::BUFFER_BINDING);
        (index, b.max(0) as u32)
    })
}

/// Bytes of the range bound at an indexed `binding` (`binding_q`,
/// `start_q`, `size_q`: its target's queries): the range's size, or
/// for a buffer bound whole its size less the start; 0 when none is bound.
fn bound_bytes(binding: u32, (binding_q, start_q, size_q): (u32, u32, u32)) -> u64 {
    let buffer = gl::get_i_indexed(binding_q, binding) as u32;
    if buffer == 0 {
        return 0;
    }
    let size = gl::get_i64_indexed(size_q, binding);
    if size > 0 {
        return size as u64;
    }
    let start = gl::get_i64_indexed(start_q, binding).max(0);
    let read = gl::get_i(gl::COPY_READ_BUFFER) as u32;
    gl::bind_buffer(gl::COPY_READ_BUFFER, buffer);
    let whole = gl::buffer_size(gl::COPY_READ_BUFFER);
    gl::bind_buffer(gl::COPY_READ_BUFFER, read);
    (whole - start).max(0) as u64
}

const STORAGE_QUERIES: (u32, u32, u32) = (
    gl::SHADER_STORAGE_BUFFER_BINDING,
    gl::SHADER_STORAGE_BUFFER_START,
    gl::SHADER_STORAGE_BUFFER_SIZE,
);
const COUNTER_QUERIES: (u32, u32, u32) = (
    gl::ATOMIC_COUNTER_BUFFER_BINDING,
    gl::ATOMIC_COUNTER_BUFFER_START,
    gl::ATOMIC_COUNTER_BUFFER_SIZE,
);

/// Plan the shadow of `prog`'s tracked arrays (module documentation) and
/// place its block at a free binding.
fn place_shadow(
    r: &Replay<MemcheckReply>,
    req: &MemcheckRequest,
    prog: u32,
) -> Result<Shadow, Error> {
    let tracked = names(r.bulk, req.tracked);
    let mut s = Shadow::default();
    let name = r.bulk.str(req.shadow_block);
    if name.is_empty() || tracked.is_empty() {
        return Ok(s);
    }
    let limit = gl::get_i64(gl::MAX_SHADER_STORAGE_BLOCK_SIZE).max(0) as u64;
    let budget = req.budget_bytes.min(limit);
    for block in &tracked {
        let range = match block_binding(prog, block) {
            Some((_, b)) => bound_bytes(b, STORAGE_QUERIES),
            None => 0,
        };
        let needed = (range / 4).min(u64::from(u32::MAX)) as u32;
        let fits = (s.total + u64::from(needed)) * SHADOW_COMPONENT_BYTES <= budget;
        let cap = if fits { needed } else { 0 };
        s.base.push(s.total as u32);
        s.caps.push(cap);
        s.needed.push(needed);
        s.total += u64::from(cap);
    }
    check_gl("measuring the tracked arrays' ranges")?;
    if let Some((index, _)) = block_binding(prog, &name) {
        let binding = debug_blocks::place_one(prog, index)?;
        s.block = Some((index, binding));
    }
    Ok(s)
}

/// Set the shadow's base and cap uniforms and the atomic counter sizes.
fn set_uniforms(r: &Replay<MemcheckReply>, req: &MemcheckRequest, prog: u32, s: &Shadow) {
    let loc = |name: BulkRef| gl::uniform_location(prog, &r.bulk.str(name));
    if !s.base.is_empty() {
        let (base, cap) = (loc(req.base_uniform), loc(req.cap_uniform));
        if base >= 0 {
            gl::uniform_1uiv(base, &s.base);
        }
        if cap >= 0 {
            gl::uniform_1uiv(cap, &s.caps);
        }
    }
    if req.counters != 0 {
        let sizes: Vec<u32> = (0..COUNTER_BINDINGS)
            .map(|i| {
                let bytes = bound_bytes(i, COUNTER_QUERIES);
                bytes.min(u64::from(u32::MAX)) as u32
            })
            .collect();
        let at = loc(req.counter_uniform);
        if at >= 0 {
            gl::uniform_1uiv(at, &sizes);
        }
    }
}

/// Our shadow buffer bound at its binding for one call: the app's binding
/// put back when dropped (the buffer deleted unless kept).
struct ShadowBound {
    saved: SavedBinding,
    buffer: u32,
    kept: bool,
}

impl Drop for ShadowBound {
    fn drop(&mut self) {
        self.saved.restore();
        if !self.kept {
            gl::delete_buffer(self.buffer);
        }
    }
}

/// Bind a shadow buffer with its first `total` components' bytes zeroed,
/// bound as exactly that range (at least one component: a block with
/// nothing given still has a buffer).
fn bind_shadow(r: &mut Replay<MemcheckReply>, s: &Shadow) -> Result<Option<ShadowBound>, Error> {
    let Some((_, binding)) = s.block else {
        return Ok(None);
    };
    r.reply.shadow_binding = binding;
    r.reply.shadow_bytes = s.total * SHADOW_COMPONENT_BYTES;
    let bytes = r.reply.shadow_bytes.max(SHADOW_COMPONENT_BYTES) as i64;
    let saved = SavedBinding::capture(binding);
    let (buffer, kept) = shadow_buffer(bytes)?;
    // Dropped (the app's binding back) whatever happens next.
    let bound = ShadowBound {
        saved,
        buffer,
        kept,
    };
    gl::bind_buffer_range(gl::SHADER_STORAGE_BUFFER, binding, buffer, 0, bytes);
    check_gl("binding the memcheck shadow")?;
    // Binding the range bound the generic binding to the buffer too.
    if !super::zero_fill::zero(binding, bytes as u64)
        // GL ES has no glClearBufferSubData (a driver may still export it).
        && (is_es() || !gl::clear_buffer_zero(gl::SHADER_STORAGE_BUFFER, bytes))
    {
        let zeros = vec![0u8; 1 << 20];
        for at in (0..bytes as usize).step_by(zeros.len()) {
            let n = zeros.len().min(bytes as usize - at);
            gl::buffer_sub_data(gl::SHADER_STORAGE_BUFFER, at, &zeros[..n]);
        }
    }
    check_gl("zeroing the memcheck shadow")?;
    Ok(Some(bound))
}

/// One context's shadow buffer, kept between calls (allocating the
/// budget's 256 MiB at every dispatch would cost more than the dispatch),
/// deleted on `CMD_RELEASE`.
#[derive(Clone, Copy)]
struct KeptShadow {
    context: u64,
    buffer: u32,
    size: i64,
}

static SHADOWS: Mutex<Vec<KeptShadow>> = Mutex::new(Vec::new());
/// Contexts whose shadows are kept: the oldest is forgotten.
const SHADOWS_MAX: usize = 2;
/// The usage hint our shadow buffers are made with (`GL_STREAM_COPY`).
const SHADOW_USAGE: u32 = 0x88E2;

/// A shadow buffer of at least `bytes`, bound at
/// `GL_SHADER_STORAGE_BUFFER` (the caller's `SavedBinding` puts that
/// binding back), and whether it is kept for the context (not in a
/// compatibility context, where the app may bind names it never made).
fn shadow_buffer(bytes: i64) -> Result<(u32, bool), Error> {
    let context = crate::intercept::context::current_context();
    let Ok(mut all) = SHADOWS.lock() else {
        return Err(Error::Poisoned("memcheck shadow"));
    };
    if let Some(i) = all.iter().position(|k| k.context == context) {
        let k = all.remove(i);
        if still_ours(&k) {
            if k.size >= bytes {
                all.push(k);
                return Ok((k.buffer, true));
            }
            gl::delete_buffer(k.buffer);
        }
    }
    let buffer = gl::gen_buffer();
    gl::bind_buffer(gl::SHADER_STORAGE_BUFFER, buffer);
    gl::buffer_data_uninit(gl::SHADER_STORAGE_BUFFER, bytes, SHADOW_USAGE);
    let keep = !compatibility_context();
    if keep {
        if all.len() >= SHADOWS_MAX {
            all.remove(0);
        }
        all.push(KeptShadow {
            context,
            buffer,
            size: bytes,
        });
    }
    Ok((buffer, keep))
}

/// Whether `k`'s buffer is still the one we made (bound at
/// `GL_SHADER_STORAGE_BUFFER` to look).
fn still_ours(k: &KeptShadow) -> bool {
    gl::is_buffer(k.buffer) && {
        gl::bind_buffer(gl::SHADER_STORAGE_BUFFER, k.buffer);
        gl::buffer_size(gl::SHADER_STORAGE_BUFFER) == k.size
            && gl::buffer_usage(gl::SHADER_STORAGE_BUFFER) == SHADOW_USAGE
    }
}

/// `CMD_RELEASE`: delete the current context's shadow buffer; the app's
/// generic binding and GL errors stay as they were.
pub(crate) fn release_shadow() {
    if !has_context() {
        return;
    }
    let context = crate::intercept::context::current_context();
    let mine = {
        let Ok(mut all) = SHADOWS.lock() else { return };
        let Some(i) = all.iter().position(|k| k.context == context) else {
            return;
        };
        all.remove(i)
    };
    hold_app_errors();
    let generic = gl::get_i(gl::SHADER_STORAGE_BUFFER_BINDING) as u32;
    if still_ours(&mine) {
        gl::delete_buffer(mine.buffer);
    }
    gl::bind_buffer(gl::SHADER_STORAGE_BUFFER, generic);
    drain_own_errors();
}

/// A `GL_TIME_ELAPSED` query of ours around the call, where the context
/// has timer queries and no timer query of the app's is active (in place,
/// the app's queries are not suspended: they count the call).
struct Timer(Option<u32>);

impl Timer {
    fn begin() -> Timer {
        let usable = !is_es()
            && super::context::gl_at_least(3, 3)
            && gl::current_query_indexed(gl::TIME_ELAPSED, 0) == 0;
        drain_own_errors();
        if !usable {
            return Timer(None);
        }
        let q = gl::gen_query();
        gl::begin_query(gl::TIME_ELAPSED, 0, q);
        Timer(Some(q))
    }

    /// End the query; the call's nanoseconds (waits for the GPU).
    fn end(self) -> Option<u64> {
        let q = self.0?;
        gl::end_query(gl::TIME_ELAPSED, 0);
        // A query buffer bound would receive the result instead.
        let query_buffer = gl::get_i(gl::QUERY_BUFFER_BINDING) as u32;
        if query_buffer != 0 {
            gl::bind_buffer(gl::QUERY_BUFFER, 0);
        }
        let ns = gl::query_object_u64(q, gl::QUERY_RESULT);
        if query_buffer != 0 {
            gl::bind_buffer(gl::QUERY_BUFFER, query_buffer);
        }
        gl::delete_query(q);
        (drain_own_errors() == 0).then_some(ns)
    }
}

/// A run's lists for the daemon: per tracked array the shadow caps given
/// and the components needed, per asked block its binding (`u32::MAX`: not
/// an active block); one `u32` each, as bytes.
pub(super) struct Lists {
    pub(super) caps: Vec<u8>,
    pub(super) needed: Vec<u8>,
    pub(super) bindings: Vec<u8>,
}

fn lists(r: &Replay<MemcheckReply>, req: &MemcheckRequest, prog: u32, s: &Shadow) -> Lists {
    let bytes = |v: &[u32]| v.iter().flat_map(|w| w.to_ne_bytes()).collect::<Vec<u8>>();
    let asked: Vec<u32> = names(r.bulk, req.asked)
        .iter()
        .map(|n| block_binding(prog, n).map_or(u32::MAX, |(_, b)| b))
        .collect();
    Lists {
        caps: bytes(&s.caps),
        needed: bytes(&s.needed),
        bindings: bytes(&asked),
    }
}

/// After the read back: the findings block's words in one run, then the
/// lists.
fn write_lists(r: &mut Replay<MemcheckReply>, lists: Lists) -> Result<(), Error> {
    let t = r.reply.trace;
    if t.status != shm::TRACE_OK {
        return Err(Error::Unsupported(
            "the checked program's findings block was not read back".into(),
        ));
    }
    r.reply.log_binding = t.binding;
    let mut words: Vec<u8> = [t.hits, t.records, t.words, t.full]
        .iter()
        .flat_map(|w| w.to_ne_bytes())
        .collect();
    words.extend_from_slice(r.bulk.bytes(t.data));
    let at = align8(t.data.offset as usize + t.data.len as usize);
    put_runs(r.bulk, r.reply, at, &words, &lists)
}

/// Put the findings `words` and `lists` in the bulk region from `at` on,
/// each run 8-byte aligned, and refer to them in `reply`.
pub(super) fn put_runs(
    bulk: &mut Bulk,
    reply: &mut MemcheckReply,
    mut at: usize,
    words: &[u8],
    lists: &Lists,
) -> Result<(), Error> {
    let mut put = |bulk: &mut Bulk, data: &[u8]| {
        let put = bulk.put(at, data);
        at = align8(at + data.len());
        match put.len as usize == data.len() {
            true => Ok(put),
            false => Err(Error::NoRoom(
                "the memcheck findings do not fit in the shared memory",
            )),
        }
    };
    reply.words = put(bulk, words)?;
    reply.caps = put(bulk, &lists.caps)?;
    reply.needed = put(bulk, &lists.needed)?;
    reply.bindings = put(bulk, &lists.bindings)?;
    Ok(())
}
