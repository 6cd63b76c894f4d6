//! The vertex debug step (`CMD_VERTEX_STEP`): the stopped draw replayed with
//! an instrumented vertex, tessellation evaluation or geometry shader, one
//! captured record per vertex the stage outputs.
//!
//! Vertex: the draw runs again as `GL_POINTS` (same arguments otherwise, so
//! the same vertices in the same order, instances one after another).
//! Tess-eval and geometry: the draw runs again as it is, through every
//! stage but the fragment shader, and the capture takes the primitive type
//! the last stage outputs. Either way with rasterizer discard, into a
//! transform feedback buffer bound to a transform feedback
//! object of our own: the app's transform feedback object, its buffer
//! bindings and its running capture are untouched (a running one is paused
//! around the replay). The buffer is pre-filled with all-ones words; the
//! coverage varying is never all-ones (0 or a type code), so the first
//! untouched record ends the capture without a query that could collide
//! with the app's own queries.

use crate::replay::capture::Capture;
use crate::replay::compute::Bindings;
use crate::replay::debug_blocks;
use crate::replay::fragment::{
    Bulk, Failure, ProgramCache, Saved, bind_app_attributes, bind_discard_target, cleanup,
    compile_attach, gl_at_least, is_es, load_app_uniforms,
    replay_draw, replay_errors, replayable, set_path, write_reply,
};
use crate::gl;
use crate::intercept::errors::{drain_own_errors, hold_app_errors};
use crate::replay::writes::ShaderWrites;
use gldbg_proto::api::{Abi, FUNCTIONS};
use gldbg_proto::shm::{self, BulkRef, VertexStepReply, VertexStepRequest};
use std::time::Instant;

// One captured vertex: the `vec4` value (when asked for) then the `float`
// coverage; the geometry stage's then has its `vec3` emission.

/// Vertices captured when the draw's count cannot be read from its
/// arguments (indirect draws).
const DEFAULT_CAPACITY: usize = 1 << 20;
/// Most vertices one step captures (80 MB of transform feedback).
const MAX_CAPACITY: usize = 4 << 20;

/// Linked vertex debug programs.
static CACHE: ProgramCache = ProgramCache::new(16);

/// `CMD_VERTEX_STEP`: write a `VertexStepReply` at `BULK_REPLY`.
pub fn vertex_step(id: u32, args: &[u64]) -> u32 {
    let Some(bulk) = Bulk::get() else {
        return shm::STATUS_GL_FAILED;
    };
    let fail = |status: u32, log: &str| {
        write_reply(
            &bulk,
            VertexStepReply::default(),
            Err((status, log.to_string())),
        )
    };
    let req: VertexStepRequest = bulk.read(shm::BULK_REQUEST);
    let as_points = replays_as_points(&req);
    // Replayed as points: the call must take its primitive mode first.
    let has_mode = FUNCTIONS[id as usize]
        .params
        .first()
        .is_some_and(|p| p.name == "mode");
    if let Err((status, log)) = replayable(id, has_mode || !as_points) {
        return fail(status, &log);
    }
    // GL 3.3 contexts have them through ARB_transform_feedback2 (NVIDIA
    // gives a 3.3 context exactly what it asks for; Mesa gives 4.5).
    // (ES 2.0 has no GL_MAJOR_VERSION: asking would raise an error the app sees.)
    let feedback_objects = if let Some((major, _)) = crate::replay::es::version() {
        major >= 3
    } else {
        gl_at_least(4, 0) || gl::has_extension("GL_ARB_transform_feedback2")
    };
    if !feedback_objects {
        let here = match crate::replay::es::version() {
            Some((major, minor)) => format!("; this context is OpenGL ES {major}.{minor}"),
            None => String::new(),
        };
        return fail(
            shm::STATUS_GL_FAILED,
            &format!(
                "vertex debugging needs transform feedback objects (GL 4.0, \
                 GL_ARB_transform_feedback2 or GL ES 3.0){here}"
            ),
        );
    }
    hold_app_errors();
    let mut saved = Saved::capture(1);
    let app_feedback = gl::get_i(gl::TRANSFORM_FEEDBACK_BINDING) as u32;
    let app_feedback_buffer = gl::get_i(gl::TRANSFORM_FEEDBACK_BUFFER_BINDING) as u32;
    // The app's capture, paused or running: its primitive mode is put back
    // after ours (`restore_feedback_mode`).
    let app_capturing = gl::get_b(gl::TRANSFORM_FEEDBACK_ACTIVE) != 0;
    saved.suspend();
    // GL refuses glTransformFeedbackVaryings while a transform feedback
    // object is active, even paused, and the app's may be the default
    // object 0: build with a scratch object bound (ours for the replay).
    let scratch = gl::gen_transform_feedback();
    gl::bind_transform_feedback(scratch);
    let mut reply = VertexStepReply {
        program: saved.program,
        ..Default::default()
    };
    let result = step(&bulk, id, args, &req, &saved, &mut reply, app_capturing);
    gl::bind_transform_feedback(app_feedback);
    gl::delete_transform_feedback(scratch);
    gl::bind_buffer(gl::TRANSFORM_FEEDBACK_BUFFER, app_feedback_buffer);
    saved.restore();
    drain_own_errors();
    write_reply(&bulk, reply, result)
}

fn step(
    bulk: &Bulk,
    id: u32,
    args: &[u64],
    req: &VertexStepRequest,
    saved: &Saved,
    reply: &mut VertexStepReply,
    app_capturing: bool,
) -> Result<(), Failure> {
    saved.check_programs()?;
    let app = saved.primary();
    let t0 = Instant::now();
    let context = crate::intercept::context::current_context();
    // A step needs the coverage alone (a fifth of the capture): the value
    // is captured only when the request names it.
    let value_len = if req.value_varying.len > 0 { 16 } else { 0 };
    let emission = req.emission_varying.len > 0;
    let mut varyings = Vec::new();
    // Storage-block outputs (a non-indexed draw) capture no varyings.
    let to_buffers = req.first_uniform.len > 0;
    for (name, wanted) in [
        (req.value_varying, value_len > 0),
        (req.coverage_varying, !to_buffers),
        (req.emission_varying, emission),
    ] {
        if wanted {
            varyings.push(bulk.str(name));
        }
    }
    let record = value_len + 4 + if emission { 12 } else { 0 };
    let key = match value_len {
        0 => req.cache_key ^ (1 << 63),
        _ => req.cache_key,
    };
    let still_ours = |p: u32| {
        gl::is_program(p)
            && gl::get_program_i(p, gl::TRANSFORM_FEEDBACK_VARYINGS) == varyings.len() as i32
    };
    let prog = match CACHE.get(context, app, key, still_ours) {
        Some(p) => {
            reply.cached = 1;
            p
        }
        None => {
            let names: Vec<&str> = varyings.iter().map(String::as_str).collect();
            let p = build_program(bulk, saved, req, &names)?;
            CACHE.put(context, app, key, p, still_ours);
            p
        }
    };
    gl::use_program(prog);
    load_app_uniforms(prog, saved);
    let path_len = (req.path_len as usize).min(shm::MAX_PATH);
    set_path(bulk, prog, req.path_uniform, &req.path[..path_len]);
    reply.build_ns = t0.elapsed().as_nanos() as u64;
    if to_buffers {
        return step_to_buffers(bulk, id, args, req, (prog, &saved.programs), reply);
    }

    let as_points = replays_as_points(req);
    // Tessellation and geometry amplify: only the vertex stage's count is known.
    let expected = if as_points {
        vertex_count(id, args)
    } else {
        None
    };
    let capacity = expected.unwrap_or(DEFAULT_CAPACITY).clamp(1, MAX_CAPACITY);
    reply.truncated = expected.is_some_and(|n| n > capacity) as u32;
    let out_off = shm::BULK_DATA;
    if out_off + capacity * record > shm::BULK_SIZE {
        return Err((
            shm::STATUS_GL_FAILED,
            format!("{capacity} vertices do not fit in the shared memory"),
        ));
    }

    let feedback = gl::gen_transform_feedback();
    let result = (|| {
        gl::bind_transform_feedback(feedback);
        // The vertex stage captures exactly its vertices (unless a restart
        // index drops some).
        let restart = gl::is_enabled(gl::PRIMITIVE_RESTART)
            || gl::is_enabled(gl::PRIMITIVE_RESTART_FIXED_INDEX);
        drain_own_errors();
        let exact = expected.filter(|_| !restart);
        // Else an all-ones coverage (a NaN no shader writes) ends the capture.
        let sentinel = exact.is_none().then_some(0xFF);
        let capture = Capture::bind(context, capacity * record, sentinel)?;
        gl::set_enabled(gl::RASTERIZER_DISCARD, true);
        bind_discard_target()?;
        drain_own_errors();

        let writes = ShaderWrites::snapshot(prog).map_err(|e| (shm::STATUS_GL_FAILED, e))?;
        let t1 = Instant::now();
        gl::begin_transform_feedback(capture_mode(prog, req));
        // The vertex stage as points (`vertex_step` checked the mode).
        replay_draw(id, args, as_points.then_some(gl::POINTS));
        gl::end_transform_feedback();
        // Mesa keeps the capture's primitive mode per context: a begin/end
        // in the app's mode puts it back for the app's paused capture.
        if let Some(mode) = crate::intercept::hooks::feedback_mode().filter(|_| app_capturing) {
            gl::begin_transform_feedback(mode);
            gl::end_transform_feedback();
        }
        writes.restore();
        let replayed = replay_errors("draw");
        reply.replay_ns = t1.elapsed().as_nanos() as u64;
        replayed?;

        let t2 = Instant::now();
        // Split the records straight from the captured bytes into the
        // shared memory: values, then coverage as one byte per vertex (a
        // quarter of the copy; the daemon reads bytes), then emissions.
        let mut code = 0u32;
        let split = |records: &[u8]| -> Result<usize, Failure> {
            let n = match exact {
                Some(n) => n.min(capacity),
                None => records
                    .chunks_exact(record)
                    .position(|r| r[value_len..value_len + 4] == [0xFF; 4])
                    .unwrap_or(capacity),
            };
            let coverage = out_off + n * value_len;
            let emissions = coverage + n;
            let (Some(v), Some(c), Some(e)) = (
                bulk.slice_mut(out_off, n * value_len),
                bulk.slice_mut(coverage, n),
                bulk.slice_mut(emissions, if emission { n * 12 } else { 0 }),
            ) else {
                return Err((shm::STATUS_GL_FAILED, "no room for the capture".into()));
            };
            if record == 4 {
                // A step's capture is the coverage alone.
                code = coverage_bytes(records, c);
                return Ok(n);
            }
            let records = records.chunks_exact(record).take(n);
            for ((i, r), reached) in records.enumerate().zip(c.iter_mut()) {
                let (value, rest) = r.split_at(value_len);
                // 0.0 (not reached) or the type code, one for the whole
                // probe (one expression, one type).
                let cov = f32::from_ne_bytes([rest[0], rest[1], rest[2], rest[3]]);
                *reached = u8::from(cov != 0.0);
                if cov != 0.0 {
                    code = cov as u32;
                }
                if value_len > 0 {
                    v[i * value_len..(i + 1) * value_len].copy_from_slice(value);
                }
                if emission {
                    e[i * 12..i * 12 + 12].copy_from_slice(&rest[4..16]);
                }
            }
            Ok(n)
        };
        let len = exact.map_or(capacity, |n| n.min(capacity)) * record;
        let n = capture.read(len, split);
        let read_error = drain_own_errors();
        let n = match (n, read_error) {
            (Some(n), 0) => n?,
            _ => {
                return Err((
                    shm::STATUS_GL_FAILED,
                    format!("reading the captured vertices raised GL error {read_error:#x}"),
                ));
            }
        };
        let values = out_off;
        let coverage = values + n * value_len;
        let emissions = coverage + n;
        let emission_len = if emission { n * 12 } else { 0 };
        reply.emission = BulkRef::at(emissions, emission_len);
        reply.vertices = n as u32;
        reply.values = BulkRef::at(values, n * value_len);
        reply.coverage = BulkRef::at(coverage, n);
        reply.coverage_code = code;
        reply.readback_ns = t2.elapsed().as_nanos() as u64;
        Ok(())
    })();
    gl::bind_transform_feedback(0);
    gl::delete_transform_feedback(feedback);
    Capture::end_step(context);
    result
}

/// The vertex step of a non-indexed draw whose debug shader writes storage
/// blocks at `gl_VertexID - first + gl_InstanceID * count` (the order
/// transform feedback would capture in): the draw replayed as it is with
/// rasterizer discard, no transform feedback, the blocks read back. The
/// program is current; the caller restores the rest.
fn step_to_buffers(
    bulk: &Bulk,
    id: u32,
    args: &[u64],
    req: &VertexStepRequest,
    (prog, app_programs): (u32, &[u32]),
    reply: &mut VertexStepReply,
) -> Result<(), Failure> {
    let name = FUNCTIONS[id as usize].name;
    let arg = |i: usize| args.get(i).copied().unwrap_or(0) as u32;
    // glDrawArrays[Instanced[BaseInstance]](mode, first, count, ...).
    if !name.starts_with("glDrawArrays") || name.contains("Indirect") {
        return Err((
            shm::STATUS_GL_FAILED,
            format!("{name} is not a non-indexed draw with its first and count"),
        ));
    }
    let (first, count) = (arg(1), (arg(2) as i32).max(0) as u32);
    let n = vertex_count(id, args).unwrap_or(0);
    if n == 0 {
        return Err((shm::STATUS_GL_FAILED, "the draw has no vertices".into()));
    }
    let want = req.want_value != 0;
    let out_off = shm::BULK_DATA;
    let value_len = if want { 16 } else { 0 };
    if out_off + n * (value_len + 1) > shm::BULK_SIZE {
        return Err((
            shm::STATUS_GL_FAILED,
            format!("{n} vertices do not fit in the shared memory"),
        ));
    }
    for (uniform, v) in [(req.first_uniform, first), (req.count_uniform, count)] {
        let loc = gl::uniform_location(prog, &bulk.str(uniform));
        if loc >= 0 {
            gl::uniform_1ui(loc, v);
        }
    }
    // Uniforms the copy cannot set raise errors of ours that mean nothing.
    drain_own_errors();

    let value_binding = debug_blocks::place(prog, app_programs, req.value_binding)?;
    let writes = ShaderWrites::snapshot(prog).map_err(|e| (shm::STATUS_GL_FAILED, e))?;
    let bindings = Bindings::capture(value_binding);
    let (values, coverage) = (gl::gen_buffer(), gl::gen_buffer());
    let result = (|| {
        // Every vertex writes both (coverage 0 where not reached).
        for (buffer, len) in [(values, n * 16), (coverage, n * 4)] {
            gl::bind_buffer(gl::SHADER_STORAGE_BUFFER, buffer);
            gl::buffer_data_uninit(gl::SHADER_STORAGE_BUFFER, len as i64, gl::STREAM_READ);
        }
        gl::bind_buffer_base(gl::SHADER_STORAGE_BUFFER, value_binding, values);
        gl::bind_buffer_base(gl::SHADER_STORAGE_BUFFER, value_binding + 1, coverage);
        gl::set_enabled(gl::RASTERIZER_DISCARD, true);
        bind_discard_target()?;
        if drain_own_errors() != 0 {
            return Err((
                shm::STATUS_GL_FAILED,
                "preparing the debug buffers failed".into(),
            ));
        }

        let t1 = Instant::now();
        replay_draw(id, args, None);
        gl::memory_barrier(gl::ALL_BARRIER_BITS);
        let replayed = replay_errors("draw");
        reply.replay_ns = t1.elapsed().as_nanos() as u64;
        replayed?;

        let t2 = Instant::now();
        let coverage_off = out_off + n * value_len;
        let (Some(v), Some(c)) = (
            bulk.slice_mut(out_off, n * value_len),
            bulk.slice_mut(coverage_off, n),
        ) else {
            return Err((shm::STATUS_GL_FAILED, "no room for the values".into()));
        };
        gl::bind_buffer(gl::SHADER_STORAGE_BUFFER, coverage);
        let code = gl::with_mapped(gl::SHADER_STORAGE_BUFFER, n * 4, |words| {
            coverage_bytes(words, c)
        });
        let values_read = !want || {
            gl::bind_buffer(gl::SHADER_STORAGE_BUFFER, values);
            gl::with_mapped(gl::SHADER_STORAGE_BUFFER, n * 16, |bytes| {
                v.copy_from_slice(bytes)
            })
            .is_some()
        };
        let read_error = drain_own_errors();
        let Some(code) = code.filter(|_| read_error == 0 && values_read) else {
            return Err((
                shm::STATUS_GL_FAILED,
                format!("reading the debug buffers raised GL error {read_error:#x}"),
            ));
        };
        reply.vertices = n as u32;
        reply.values = BulkRef::at(out_off, n * value_len);
        reply.coverage = BulkRef::at(coverage_off, n);
        reply.coverage_code = code;
        reply.readback_ns = t2.elapsed().as_nanos() as u64;
        Ok(())
    })();
    writes.restore();
    bindings.restore();
    gl::delete_buffer(values);
    gl::delete_buffer(coverage);
    result
}

/// Coverage words (0.0: not reached, else the type code, one for the
/// whole probe) as one byte per vertex in `out`, in a loop the compiler
/// vectorises (nonzero bits but the sign: reached); returns the code.
fn coverage_bytes(words: &[u8], out: &mut [u8]) -> u32 {
    let (words, _) = words.as_chunks::<4>();
    for (reached, word) in out.iter_mut().zip(words) {
        *reached = u8::from(u32::from_ne_bytes(*word) << 1 != 0);
    }
    out.iter()
        .position(|&r| r != 0)
        .map_or(0, |i| f32::from_ne_bytes(words[i]) as u32)
}

/// Link the debug program: the instrumented shader with the stages it needs
/// (vertex: alone; tess-eval, geometry: every stage of the app's program
/// but the fragment shader; GL ES needs the fragment shader too), the app's
/// attribute locations, the debug `varyings` captured (block bindings are
/// the app's at each step: `load_app_uniforms`).
fn build_program(
    bulk: &Bulk,
    saved: &Saved,
    req: &VertexStepRequest,
    varyings: &[&str],
) -> Result<u32, Failure> {
    let sources = linked_stages(req);
    let prog = gl::create_program();
    let shaders = compile_attach(bulk, prog, &sources)?;
    bind_app_attributes(saved.primary(), prog);
    gl::transform_feedback_varyings(prog, varyings);
    gl::link_program(prog);
    if gl::get_program_i(prog, gl::LINK_STATUS) == 0 {
        let log = gl::program_info_log(prog);
        cleanup(prog, &shaders, true);
        return Err((shm::STATUS_LINK_FAILED, log));
    }
    cleanup(prog, &shaders, false);
    Ok(prog)
}

/// The shaders of the debug program. Vertex: the instrumented vertex
/// shader. Tess-eval: the stages up to it (a geometry shader would be
/// captured instead). Geometry: every stage. On GL ES, which needs one, the
/// app's fragment shader too; on desktop GL rasterizer discard needs none.
fn linked_stages(req: &VertexStepRequest) -> Vec<shm::ShaderRef> {
    let es = is_es();
    let stage = match req.stage {
        0 => gl::VERTEX_SHADER,
        s => s,
    };
    req.shaders[..(req.shader_count as usize).min(6)]
        .iter()
        .copied()
        .filter(|s| match s.gl_type {
            gl::FRAGMENT_SHADER => es,
            gl::VERTEX_SHADER => true,
            gl::GEOMETRY_SHADER => stage == gl::GEOMETRY_SHADER,
            _ => stage != gl::VERTEX_SHADER,
        })
        .collect()
}

/// Whether the request debugs the vertex stage (replayed as points).
fn replays_as_points(req: &VertexStepRequest) -> bool {
    matches!(req.stage, 0 | gl::VERTEX_SHADER)
}

/// The primitive type transform feedback must capture in: points for the
/// vertex stage replayed as points, else what the program's last stage
/// before rasterization outputs (geometry: its output type; tessellation:
/// points, lines for isolines, else triangles).
fn capture_mode(prog: u32, req: &VertexStepRequest) -> u32 {
    const LINES: u32 = 0x0001;
    const TRIANGLES: u32 = 0x0004;
    if replays_as_points(req) {
        return gl::POINTS;
    }
    let stages: Vec<u32> = linked_stages(req).iter().map(|s| s.gl_type).collect();
    if stages.contains(&gl::GEOMETRY_SHADER) {
        return match gl::get_program_i(prog, gl::GEOMETRY_OUTPUT_TYPE) as u32 {
            gl::POINTS => gl::POINTS,
            0x0003 => LINES, // GL_LINE_STRIP
            _ => TRIANGLES,
        };
    }
    if stages.contains(&gl::TESS_EVALUATION_SHADER) {
        if gl::get_program_i(prog, gl::TESS_GEN_POINT_MODE) != 0 {
            return gl::POINTS;
        }
        return match gl::get_program_i(prog, gl::TESS_GEN_MODE) as u32 {
            gl::ISOLINES => LINES,
            _ => TRIANGLES,
        };
    }
    gl::POINTS
}

/// How many vertices the draw feeds to the vertex stage, read from its
/// arguments (`count` × `instancecount`, or the sum of a multi-draw's
/// counts); `None` when they do not say (indirect draws).
pub(crate) fn vertex_count(id: u32, args: &[u64]) -> Option<usize> {
    let params = FUNCTIONS[id as usize].params;
    let arg = |name: &str| {
        params
            .iter()
            .position(|p| p.name == name)
            .and_then(|i| Some((params[i].abi, *args.get(i)?)))
    };
    let instances = match arg("instancecount").or_else(|| arg("primcount")) {
        Some((Abi::Ptr, _)) => return None,
        Some((_, n)) => (n as u32 as i32).max(0) as usize,
        None => 1,
    };
    let count = match arg("count")? {
        (Abi::Ptr, counts) => {
            let draws = (arg("drawcount")?.1 as u32 as i32).clamp(0, 1 << 20) as usize;
            if counts == 0 {
                return None;
            }
            // SAFETY: the app's own array of `drawcount` GLsizei counts,
            // valid while its thread is stopped inside this call.
            let counts =
                unsafe { core::slice::from_raw_parts(counts as usize as *const i32, draws) };
            counts.iter().map(|&c| c.max(0) as usize).sum()
        }
        (_, n) => (n as u32 as i32).max(0) as usize,
    };
    Some(count.saturating_mul(instances))
}
