//! The transform feedback strategy (`CMD_VERTEX_STEP`): the stopped draw
//! replayed with an instrumented vertex, tessellation evaluation or
//! geometry shader, one captured record per vertex the stage outputs.
//!
//! Vertex: the draw runs again as `GL_POINTS` (same arguments otherwise, so
//! the same vertices in the same order, instances one after another).
//! Tess-eval and geometry: the draw runs again as it is, through every
//! stage but the fragment shader, and the capture takes the primitive type
//! the last stage outputs. Either way with rasterizer discard, into a
//! transform feedback buffer ([`Capture`]) bound to a transform feedback
//! object of our own: the app's transform feedback object, its buffer
//! bindings and its running capture are untouched (a running one is paused
//! around the replay). The buffer is pre-filled with all-ones words; the
//! coverage varying is never all-ones (0 or a type code), so the first
//! untouched record ends the capture without a query that could collide
//! with the app's own queries.
//!
//! A request whose debug shader writes storage blocks instead (a
//! non-indexed draw) goes to the storage strategy (`storage.rs`).

use gldbg_proto::shm::{self, BulkRef, ShaderRef, VertexStepReply, VertexStepRequest};

use crate::gl;
use crate::intercept::context::current_context;
use crate::intercept::errors::drain_own_errors;

use super::bulk::Bulk;
use super::capture::Capture;
use super::context::{gl_at_least, is_es};
use super::error::Error;
use super::pipeline::{Call, Replay, StepRequest, command};
use super::program::{DebugProgram, Kind, Mark, link};
use super::records::{COVERAGE_WORD, VALUE_BYTES, coverage_bytes};
use super::state::Saved;
use super::target::bind_discard_target;
use super::uniforms::bind_app_attributes;

/// Vertices captured when the draw's count cannot be read from its
/// arguments (indirect draws).
const DEFAULT_CAPACITY: usize = 1 << 20;
/// Most vertices one step captures (80 MB of transform feedback).
const MAX_CAPACITY: usize = 4 << 20;
/// One geometry emission record: a `vec3`.
const EMISSION_BYTES: usize = 12;

/// `CMD_VERTEX_STEP`: write a `VertexStepReply` at `BULK_REPLY`.
pub fn vertex_step(id: u32, args: &[u64]) -> u32 {
    command(id, args, check, step)
}

fn check(call: Call, req: &VertexStepRequest) -> Result<(), Error> {
    // Replayed as points: the call must take its primitive mode first.
    call.replayable(call.has_mode() || !replays_as_points(req))?;
    // GL 3.3 contexts have them through ARB_transform_feedback2 (NVIDIA
    // gives a 3.3 context exactly what it asks for; Mesa gives 4.5).
    // (ES 2.0 has no GL_MAJOR_VERSION: asking would raise an error the app sees.)
    let feedback_objects = match super::context::es_version() {
        Some((major, _)) => major >= 3,
        None => gl_at_least(4, 0) || gl::has_extension("GL_ARB_transform_feedback2"),
    };
    if feedback_objects {
        return Ok(());
    }
    let here = match super::context::es_version() {
        Some((major, minor)) => format!("; this context is OpenGL ES {major}.{minor}"),
        None => String::new(),
    };
    Err(Error::Unsupported(format!(
        "vertex debugging needs transform feedback objects (GL 4.0, \
         GL_ARB_transform_feedback2 or GL ES 3.0){here}"
    )))
}

fn step(
    bulk: &mut Bulk,
    call: Call,
    req: &VertexStepRequest,
    reply: &mut VertexStepReply,
) -> Result<(), Error> {
    let stage = match req.stage {
        0 => gl::VERTEX_SHADER,
        s => s,
    };
    let mut r = Replay::begin(bulk, call, reply, 1).tracing(req.trace, stage);
    r.reply.program = r.saved.program;
    let objects = Objects::bind_scratch();
    r.saved.check_programs()?;
    let record = Record::of(req);
    let prog = debug_program(&mut r, req, &record)?;
    if record.to_buffers {
        return super::storage::vertex_values(&mut r, req, prog);
    }
    let as_points = replays_as_points(req);
    // Tessellation and geometry amplify: only the vertex stage's count is known.
    let expected = if as_points { call.vertex_count() } else { None };
    let capacity = expected.unwrap_or(DEFAULT_CAPACITY).clamp(1, MAX_CAPACITY);
    r.reply.truncated = expected.is_some_and(|n| n > capacity) as u32;
    if shm::BULK_DATA + capacity * record.len > shm::BULK_SIZE {
        return Err(Error::TooMany(format!("{capacity} vertices")));
    }
    let feedback = StepFeedback::bind();
    // The vertex stage captures exactly its vertices (unless a restart
    // index drops some).
    let restart =
        gl::is_enabled(gl::PRIMITIVE_RESTART) || gl::is_enabled(gl::PRIMITIVE_RESTART_FIXED_INDEX);
    drain_own_errors();
    let exact = expected.filter(|_| !restart);
    // Else an all-ones coverage (a NaN no shader writes) ends the capture.
    let sentinel = exact.is_none().then_some(0xFF);
    let capture = Capture::bind(feedback.context, capacity * record.len, sentinel)?;
    gl::set_enabled(gl::RASTERIZER_DISCARD, true);
    bind_discard_target()?;
    drain_own_errors();
    let writes = r.writes(prog)?;
    let mode = capture_mode(prog, req);
    let replayed = r.replay("draw", |call| {
        gl::begin_transform_feedback(mode);
        // The vertex stage as points (`check` checked the mode).
        call.draw(as_points.then_some(gl::POINTS));
        gl::end_transform_feedback();
        // Mesa keeps the capture's primitive mode per context: a begin/end
        // in the app's mode puts it back for the app's paused capture.
        if let Some(mode) =
            crate::intercept::hooks::feedback_mode().filter(|_| objects.app_capturing)
        {
            gl::begin_transform_feedback(mode);
            gl::end_transform_feedback();
        }
    });
    let restored = writes.finish();
    replayed?;
    restored?;
    // A capture ended by its sentinel knows it ended; one that filled its
    // capacity without one may be cut short (unless the count was known).
    let bounded = expected.is_some_and(|n| n <= capacity);
    r.read_back(|r| read_back(r, req, &capture, &record, (exact, capacity, bounded)))
}

/// The layout of one captured record: the `vec4` value (when asked for),
/// the `float` coverage, the geometry stage's `vec3` emission.
struct Record {
    value_len: usize,
    emission: bool,
    /// Storage-block outputs (a non-indexed draw) capture no varyings.
    to_buffers: bool,
    len: usize,
}

impl Record {
    fn of(req: &VertexStepRequest) -> Record {
        // A step needs the coverage alone (a fifth of the capture): the value
        // is captured only when the request names it.
        let value_len = if req.value_varying.len > 0 {
            VALUE_BYTES
        } else {
            0
        };
        let emission = req.emission_varying.len > 0;
        Record {
            value_len,
            emission,
            to_buffers: req.first_uniform.len > 0,
            len: value_len + COVERAGE_WORD + if emission { EMISSION_BYTES } else { 0 },
        }
    }
}

/// The cached or new debug program (current, with the app's resources).
fn debug_program(
    r: &mut Replay<VertexStepReply>,
    req: &VertexStepRequest,
    record: &Record,
) -> Result<u32, Error> {
    let mut varyings = Vec::new();
    for (name, wanted) in [
        (req.value_varying, record.value_len > 0),
        (req.coverage_varying, !record.to_buffers),
        (req.emission_varying, record.emission),
    ] {
        if wanted {
            varyings.push(r.bulk.str(name));
        }
    }
    // Programs with and without the value are cached apart.
    let key = match record.value_len {
        0 => req.cache_key ^ (1 << 63),
        _ => req.cache_key,
    };
    let still_ours = |p: &DebugProgram| {
        gl::is_program(p.program)
            && gl::get_program_i(p.program, gl::TRANSFORM_FEEDBACK_VARYINGS)
                == varyings.len() as i32
    };
    // Captured: our coverage varying; written to blocks: our blocks.
    let mark = match record.to_buffers {
        true => Mark::Blocks,
        false => Mark::Varying(r.bulk.str(req.coverage_varying)),
    };
    let app = r.saved.primary();
    let build = |bulk: &Bulk, saved: &Saved| {
        let names: Vec<&str> = varyings.iter().map(String::as_str).collect();
        build_program(bulk, saved, req, &names).map(DebugProgram::plain)
    };
    let dbg = r.program(
        (Kind::Vertex, app, key),
        req.path(),
        (&mark, still_ours),
        build,
    )?;
    Ok(dbg.program)
}

/// Split the captured records straight into the shared memory: values,
/// then coverage as one byte per vertex (a quarter of the copy; the daemon
/// reads bytes), then emissions.
fn read_back(
    r: &mut Replay<VertexStepReply>,
    req: &VertexStepRequest,
    capture: &Capture,
    record: &Record,
    (exact, capacity, bounded): (Option<usize>, usize, bool),
) -> Result<(), Error> {
    // One vertex or a GPU summary where asked (a capture of known length).
    let layout = (
        capture.buffer(),
        record.len,
        record.value_len,
        record.emission,
    );
    let asked = &req.readback;
    let n = exact.map(|n| n.min(capacity));
    if let Some(held) = n.and_then(|n| super::readback::from_capture(r.bulk, asked, n, layout)) {
        super::readback::vertex_reply(r.reply, held);
        return Ok(());
    }
    let out_off = shm::BULK_DATA;
    let (value_len, len) = (record.value_len, record.len);
    let emission_len = |n: usize| {
        if record.emission {
            n * EMISSION_BYTES
        } else {
            0
        }
    };
    let bulk = &mut *r.bulk;
    let split = |records: &[u8]| -> Result<(usize, u32), Error> {
        let n = match exact {
            Some(n) => n.min(capacity),
            None => records
                .chunks_exact(len)
                .position(|r| r[value_len..value_len + COVERAGE_WORD] == [0xFF; 4])
                .unwrap_or(capacity),
        };
        let coverage = out_off + n * value_len;
        let [v, c, e] = bulk
            .disjoint_mut([
                (out_off, n * value_len),
                (coverage, n),
                (coverage + n, emission_len(n)),
            ])
            .ok_or(Error::NoRoom("no room for the capture"))?;
        if len == COVERAGE_WORD {
            // A step's capture is the coverage alone.
            return Ok((n, coverage_bytes(records, c)));
        }
        Ok((n, split_records(records, len, value_len, (v, c, e))))
    };
    let read = capture.read(exact.map_or(capacity, |n| n.min(capacity)) * len, split);
    let read_error = drain_own_errors();
    let (n, code) = match (read, read_error) {
        (Some(read), 0) => read?,
        _ => {
            return Err(Error::Gl {
                doing: "reading the captured vertices",
                code: read_error,
            });
        }
    };
    if exact.is_none() && n == capacity && !bounded {
        // No sentinel: the draw wrote as many as there was room for, or more.
        r.reply.truncated = 1;
    }
    let coverage = out_off + n * value_len;
    r.reply.emission = BulkRef::at(coverage + n, emission_len(n));
    r.reply.vertices = n as u32;
    r.reply.values = BulkRef::at(out_off, n * value_len);
    r.reply.coverage = BulkRef::at(coverage, n);
    r.reply.coverage_code = code;
    Ok(())
}

/// Split whole records into values, coverage bytes and emissions; returns
/// the type code (0.0: not reached, else the code, one for the whole
/// probe: one expression, one type).
fn split_records(
    records: &[u8],
    len: usize,
    value_len: usize,
    (v, c, e): (&mut [u8], &mut [u8], &mut [u8]),
) -> u32 {
    let mut code = 0u32;
    let emission = !e.is_empty();
    for ((i, r), reached) in records.chunks_exact(len).enumerate().zip(c.iter_mut()) {
        let (value, rest) = r.split_at(value_len);
        let cov = f32::from_ne_bytes([rest[0], rest[1], rest[2], rest[3]]);
        *reached = u8::from(cov != 0.0);
        if cov != 0.0 {
            code = cov as u32;
        }
        if value_len > 0 {
            v[i * value_len..(i + 1) * value_len].copy_from_slice(value);
        }
        if emission {
            let at = i * EMISSION_BYTES;
            e[at..at + EMISSION_BYTES]
                .copy_from_slice(&rest[COVERAGE_WORD..COVERAGE_WORD + EMISSION_BYTES]);
        }
    }
    code
}

/// The app's transform feedback object and buffer binding across a vertex
/// step, and a scratch object of ours bound meanwhile: GL refuses
/// `glTransformFeedbackVaryings` while a transform feedback object is
/// active, even paused, and the app's may be the default object 0. Put
/// back when dropped (before the `Replay` restores the rest).
struct Objects {
    app_feedback: u32,
    app_buffer: u32,
    scratch: u32,
    /// The app's capture, paused or running: its primitive mode is put
    /// back after ours.
    app_capturing: bool,
}

impl Objects {
    fn bind_scratch() -> Objects {
        let o = Objects {
            app_feedback: gl::get_i(gl::TRANSFORM_FEEDBACK_BINDING) as u32,
            app_buffer: gl::get_i(gl::TRANSFORM_FEEDBACK_BUFFER_BINDING) as u32,
            scratch: gl::gen_transform_feedback(),
            app_capturing: gl::get_b(gl::TRANSFORM_FEEDBACK_ACTIVE) != 0,
        };
        gl::bind_transform_feedback(o.scratch);
        o
    }
}

impl Drop for Objects {
    fn drop(&mut self) {
        gl::bind_transform_feedback(self.app_feedback);
        gl::delete_transform_feedback(self.scratch);
        gl::bind_buffer(gl::TRANSFORM_FEEDBACK_BUFFER, self.app_buffer);
    }
}

/// The transform feedback object of one capture, bound while it lives;
/// the context's capture buffer ends its step with it.
struct StepFeedback {
    context: u64,
    object: u32,
}

impl StepFeedback {
    fn bind() -> StepFeedback {
        let f = StepFeedback {
            context: current_context(),
            object: gl::gen_transform_feedback(),
        };
        gl::bind_transform_feedback(f.object);
        f
    }
}

impl Drop for StepFeedback {
    fn drop(&mut self) {
        gl::bind_transform_feedback(0);
        gl::delete_transform_feedback(self.object);
        Capture::end_step(self.context);
    }
}

/// Link the debug program: the instrumented shader with the stages it needs
/// (vertex: alone; tess-eval, geometry: every stage of the app's program
/// but the fragment shader; GL ES needs the fragment shader too), the app's
/// attribute locations, the debug `varyings` captured (block bindings are
/// the app's at each step: `Replay::program`).
fn build_program(
    bulk: &Bulk,
    saved: &Saved,
    req: &VertexStepRequest,
    varyings: &[&str],
) -> Result<u32, Error> {
    link(bulk, &linked_stages(req), |prog| {
        bind_app_attributes(saved.primary(), prog);
        gl::transform_feedback_varyings(prog, varyings);
        Ok(())
    })
}

/// The shaders of the debug program. Vertex: the instrumented vertex
/// shader. Tess-eval: the stages up to it (a geometry shader would be
/// captured instead). Geometry: every stage. On GL ES, which needs one, the
/// app's fragment shader too; on desktop GL rasterizer discard needs none.
fn linked_stages(req: &VertexStepRequest) -> Vec<ShaderRef> {
    let es = is_es();
    let stage = match req.stage {
        0 => gl::VERTEX_SHADER,
        s => s,
    };
    req.shaders()
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
    if replays_as_points(req) {
        return gl::POINTS;
    }
    let stages: Vec<u32> = linked_stages(req).iter().map(|s| s.gl_type).collect();
    if stages.contains(&gl::GEOMETRY_SHADER) {
        return match gl::get_program_i(prog, gl::GEOMETRY_OUTPUT_TYPE) as u32 {
            gl::POINTS => gl::POINTS,
            gl::LINE_STRIP => gl::LINES,
            _ => gl::TRIANGLES,
        };
    }
    if stages.contains(&gl::TESS_EVALUATION_SHADER) {
        if gl::get_program_i(prog, gl::TESS_GEN_POINT_MODE) != 0 {
            return gl::POINTS;
        }
        return match gl::get_program_i(prog, gl::TESS_GEN_MODE) as u32 {
            gl::ISOLINES => gl::LINES,
            _ => gl::TRIANGLES,
        };
    }
    gl::POINTS
}
