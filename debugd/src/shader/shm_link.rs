//! The shader debugger's link to the preload over the shared memory: a
//! [`StepRequest`] becomes a debug step command (`CMD_FRAGMENT_STEP`,
//! `CMD_VERTEX_STEP`, `CMD_COMPUTE_STEP`) to the stopped thread, and its
//! reply a [`ProbeResult`] read out of the bulk area.

use gldbg_proto::shm::{
    self as abi, BulkRef, ComputeStepReply, ComputeStepRequest, FragmentStepReply,
    FragmentStepRequest, OutputRef, ShaderRef, VertexStepReply, VertexStepRequest,
};
use glsl_instrument::{Instrumented, OutputSlot, Stage};

use super::link::{Link, Reports, StepRequest, TraceAsk, TraceData};
use super::reply::Timing;
use super::{FragmentOptions, Held, HeldRefs, ProbeResult, ReadMode, Reply, held};
use crate::error::{Error, Result};
use crate::program::{self, StageSource};
use crate::shm::SharedMemory;
use crate::status::check_status;

/// Timeout of a debug replay (compile, link, draw, read back on a slow driver).
const PROBE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

/// The shader objects a step request carries (`shaders` of each request;
/// the type of `push_shaders` ties this to the ABI's arrays).
const SHADER_OBJECTS: usize = 6;

/// Requests start on this boundary in the bulk request area, and the
/// strings they refer to start on the next one past the request.
const REQUEST_ALIGN: usize = 64;

/// Where the strings of a step request of type `R` start: past the
/// request, on a [`REQUEST_ALIGN`] boundary.
fn request_start<R>() -> usize {
    std::mem::size_of::<R>().next_multiple_of(REQUEST_ALIGN)
}

/// The link over the shared memory of a thread stopped at the draw.
pub struct ShmLink<'a> {
    /// Where rejected shaders and warnings go (the session).
    pub reports: &'a dyn Reports,
    pub shm: &'a SharedMemory,
    /// The slot of the stopped thread.
    pub slot: usize,
}

impl Link for ShmLink<'_> {
    fn step(&mut self, request: &StepRequest<'_>) -> Result<ProbeResult> {
        let mut runner = StepRunner {
            reports: self.reports,
            shm: self.shm,
            slot: self.slot,
            stage: request.stage,
            others: request.others,
            fragment_options: request.fragment_options,
            trace: request.trace,
            traced: None,
        };
        let mut result = runner.run(
            request.shader,
            request.path,
            request.components,
            &request.readback,
        )?;
        result.trace = runner.traced.take();
        Ok(result)
    }
}

/// Sends a debug step command (`CMD_FRAGMENT_STEP`, `CMD_VERTEX_STEP`) for
/// one instrumented shader and reads the result: fragments as an image of
/// the framebuffer, vertices as a `vertices`×1 image (vertex N at x = N).
struct StepRunner<'a> {
    reports: &'a dyn Reports,
    shm: &'a SharedMemory,
    slot: usize,
    /// The stage being debugged (the instrumented shader's).
    stage: Stage,
    others: &'a [StageSource],
    fragment_options: FragmentOptions,
    /// The trace buffer to bind (ABI 12) and, after the step, what it held.
    trace: Option<TraceAsk<'a>>,
    traced: Option<TraceData>,
}

/// The trace request of a step: the block's name (pushed) and capacity.
fn push_trace(w: &mut crate::shm::BulkWriter<'_>, ask: Option<TraceAsk<'_>>) -> abi::TraceRequest {
    match ask {
        None => abi::TraceRequest::default(),
        Some(ask) => abi::TraceRequest {
            block: w.push(ask.block.as_bytes()),
            capacity_words: ask.capacity_words,
            zero_data: u32::from(ask.zero_data),
        },
    }
}

/// The loop path of a request: the uniform's name (pushed), its length and
/// values (`check_request` bounds the length).
fn push_path(
    w: &mut crate::shm::BulkWriter<'_>,
    inst: &Instrumented,
    path: &[u32],
    len: &mut u32,
    values: &mut [i32; abi::MAX_PATH],
) -> BulkRef {
    let Some(u) = &inst.path_uniform else {
        return BulkRef::default();
    };
    *len = path.len().min(abi::MAX_PATH) as u32;
    for (v, it) in values.iter_mut().zip(path) {
        *v = *it as i32;
    }
    w.push(u.as_bytes())
}

/// A GLSL ES fragment shader of the app's fragment shader's version that
/// reads nothing (None for desktop GLSL, where the preload links none):
/// GL ES fails a link where a fragment input has no matching output, and
/// a vertex or tess-eval step leaves out the stages that write them.
fn placeholder_fragment(app_fragment: &str) -> Option<String> {
    let version = program::glsl_version(app_fragment);
    match version.as_str() {
        "" | "100" => {
            let line = if version.is_empty() {
                String::new()
            } else {
                "#version 100\n".into()
            };
            Some(format!(
                "{line}precision mediump float;\nvoid main() {{\n    gl_FragColor = vec4(0.0);\n}}\n"
            ))
        }
        v if v.ends_with(" es") => Some(format!(
            "#version {v}\nprecision mediump float;\nlayout(location = 0) out vec4 gldbg_fragment;\n\
             void main() {{\n    gldbg_fragment = vec4(0.0);\n}}\n"
        )),
        _ => None,
    }
}

/// Where a fragment debug output goes, for the preload's executor.
fn output_ref(w: &mut crate::shm::BulkWriter<'_>, slot: &OutputSlot) -> Result<OutputRef> {
    match slot {
        OutputSlot::Named(n) => Ok(OutputRef {
            frag_data_index: -1,
            _pad: 0,
            name: w.push(n.as_bytes()),
        }),
        OutputSlot::FragData(i) => Ok(OutputRef {
            frag_data_index: *i as i32,
            _pad: 0,
            name: BulkRef::default(),
        }),
        other => Err(Error::Internal(format!(
            "a fragment step got a debug output of another stage: {other:?}"
        ))),
    }
}

/// What the daemon does the same way with every step command's reply.
trait StepReply: Copy + Default {
    /// The command and its name (for messages).
    const COMMAND: (u32, &'static str);
    /// The driver's log or the error text.
    fn log(&self) -> BulkRef;
    /// The preload's share of the probe's cost.
    fn timing(&self) -> Timing;
    /// (ABI 12) What the trace buffer held.
    fn trace(&self) -> abi::TraceReply;
}

macro_rules! step_reply {
    ($($reply:ty => $command:ident),* $(,)?) => {$(
        impl StepReply for $reply {
            const COMMAND: (u32, &'static str) = (abi::$command, stringify!($command));
            fn log(&self) -> BulkRef {
                self.log
            }
            fn timing(&self) -> Timing {
                Timing {
                    cached_programs: self.cached.min(1),
                    build_ns: self.build_ns,
                    replay_ns: self.replay_ns,
                    readback_ns: self.readback_ns,
                    ..Default::default()
                }
            }
            fn trace(&self) -> abi::TraceReply {
                self.trace
            }
        }
    )*};
}

step_reply!(
    VertexStepReply => CMD_VERTEX_STEP,
    ComputeStepReply => CMD_COMPUTE_STEP,
    FragmentStepReply => CMD_FRAGMENT_STEP,
);

impl StepRunner<'_> {
    /// Send step request `req` (its variable parts already written after
    /// it), wait for the preload and read its reply, checked.
    fn exchange<R: StepReply>(&mut self, req: &impl Copy, inst: &Instrumented) -> Result<R> {
        let (command, name) = R::COMMAND;
        self.shm.write_struct(abi::BULK_REQUEST, req);
        let st = self.shm.command(self.slot, command, PROBE_TIMEOUT)?;
        let reply: R = self.shm.read_struct(abi::BULK_REPLY);
        self.check_step(name, st, inst, reply.log())?;
        self.traced = self.read_trace(&reply.trace())?;
        Ok(reply)
    }

    /// The trace buffer's contents from a step's reply (untrusted: every
    /// length checked against the request and the bulk region). None
    /// when no trace was asked for; a context that cannot write a storage
    /// buffer from the stage is `Unimplemented` (the caller falls back
    /// to probes).
    fn read_trace(&self, t: &abi::TraceReply) -> Result<Option<TraceData>> {
        let Some(ask) = self.trace else {
            return Ok(None);
        };
        match t.status {
            abi::TRACE_OK => {}
            abi::TRACE_UNSUPPORTED => {
                return Err(Error::Unimplemented(format!(
                    "a trace of this step: the driver cannot write a storage buffer from the {} stage",
                    self.stage.name()
                )));
            }
            s => {
                return Err(Error::Internal(format!(
                    "the preload answered a trace step with trace status {s}"
                )));
            }
        }
        let (offset, len) = (t.data.offset as usize, t.data.len as usize);
        // A zeroed block of atomics comes back whole.
        let words = match ask.zero_data {
            true => ask.capacity_words,
            false => t.words.min(ask.capacity_words),
        } as usize;
        if len != words * 4 || offset < abi::BULK_DATA || offset + len > abi::BULK_SIZE {
            return Err(Error::Internal(format!(
                "the preload's trace data ({len} bytes at {offset}) does not match its {} words \
                 (capacity {})",
                t.words, ask.capacity_words
            )));
        }
        let bytes = self.shm.read_bytes(t.data);
        if bytes.len() != len {
            return Err(Error::Internal(
                "the trace data is outside the shared memory".into(),
            ));
        }
        Ok(Some(TraceData {
            hits: t.hits,
            records: t.records,
            full: t.full != 0,
            words: bytes
                .chunks_exact(4)
                .map(|w| u32::from_ne_bytes([w[0], w[1], w[2], w[3]]))
                .collect(),
        }))
    }

    fn run(
        &mut self,
        inst: &Instrumented,
        path: &[u32],
        components: u32,
        mode: &ReadMode,
    ) -> Result<ProbeResult> {
        let want = components > 0;
        match self.stage {
            Stage::Fragment => self.fragment(inst, path, components, mode),
            Stage::Vertex | Stage::TessEval | Stage::Geometry => {
                self.vertex(inst, path, want, mode)
            }
            Stage::Compute | Stage::TessControl => self.compute(inst, path, want, mode),
        }
    }
}

impl StepRunner<'_> {
    /// The loop path and the shaders, checked against the ABI's limits.
    fn check_request(&self, path: &[u32]) -> Result<()> {
        if path.len() > abi::MAX_PATH {
            return Err(Error::Unimplemented(format!(
                "loops nested deeper than {} levels",
                abi::MAX_PATH
            )));
        }
        if self.others.len() + 1 > SHADER_OBJECTS {
            return Err(Error::Internal("too many shader stages".into()));
        }
        Ok(())
    }

    /// The shader objects fit the request (the instrumented one, its
    /// siblings, the other stages').
    fn check_count(&self, inst: &Instrumented) -> Result<()> {
        let n = self.others.len() + 1 + inst.siblings.len();
        if n > SHADER_OBJECTS {
            return Err(Error::Unimplemented(format!(
                "programs of more than {SHADER_OBJECTS} shader objects (this one has {n})"
            )));
        }
        Ok(())
    }

    /// Write the instrumented shader and the program's other stages.
    fn push_shaders(
        &self,
        w: &mut crate::shm::BulkWriter<'_>,
        inst: &Instrumented,
        shaders: &mut [ShaderRef; SHADER_OBJECTS],
    ) -> u32 {
        shaders[0] = ShaderRef {
            gl_type: self.stage.gl_enum(),
            _pad: 0,
            source: w.push(inst.source.as_bytes()),
        };
        let mut n = 1;
        for sib in &inst.siblings {
            if n < shaders.len() {
                shaders[n] = ShaderRef {
                    gl_type: self.stage.gl_enum(),
                    _pad: 0,
                    source: w.push(sib.as_bytes()),
                };
                n += 1;
            }
        }
        for s in self.others.iter() {
            if n >= shaders.len() {
                break;
            }
            // A replay without rasterization links a fragment shader only
            // in GL ES, which needs one: a placeholder, so the app's inputs
            // need no outputs of the stages the step leaves out.
            let placeholder = (self.stage != Stage::Fragment
                && s.gl_type == Stage::Fragment.gl_enum())
            .then(|| placeholder_fragment(&s.source))
            .flatten();
            let source = placeholder.as_deref().unwrap_or(&s.source);
            shaders[n] = ShaderRef {
                gl_type: s.gl_type,
                _pad: 0,
                source: w.push(source.as_bytes()),
            };
            n += 1;
        }
        n as u32
    }

    /// The outcome of a debug step command: the driver's rejection becomes
    /// a saved source and log, other failures an error with the preload's log.
    fn check_step(
        &self,
        command: &'static str,
        st: u32,
        inst: &Instrumented,
        log: BulkRef,
    ) -> Result<()> {
        let log = || String::from_utf8_lossy(&self.shm.read_bytes(log)).into_owned();
        match st {
            abi::STATUS_OK => Ok(()),
            abi::STATUS_COMPILE_FAILED => {
                Err(self
                    .reports
                    .rejected_shader("compile", self.stage, &inst.source, &log()))
            }
            abi::STATUS_LINK_FAILED => {
                // Each shader compiled: the program did not link. Say which
                // shaders met there (the others are the app's own).
                let others: Vec<String> = self
                    .others
                    .iter()
                    .map(|s| program::stage_name(s.gl_type))
                    .collect();
                let what = match others.is_empty() {
                    true => format!("link of the instrumented {} shader", self.stage.name()),
                    false => format!(
                        "link of the instrumented {} shader with the app's {} shader{}",
                        self.stage.name(),
                        others.join(" and "),
                        if others.len() > 1 { "s" } else { "" }
                    ),
                };
                Err(self
                    .reports
                    .rejected_shader(&what, self.stage, &inst.source, &log()))
            }
            // The preload says why (e.g. inside a display list being compiled).
            abi::STATUS_NOT_A_DRAW if !log().is_empty() => Err(Error::FailedPrecondition(format!(
                "not stopped at a draw call the debugger can replay: {}",
                log()
            ))),
            st => check_status(command, st, |status| Error::Replay { status, log: log() }),
        }
    }

    fn vertex(
        &mut self,
        inst: &Instrumented,
        path: &[u32],
        want: bool,
        mode: &ReadMode,
    ) -> Result<ProbeResult> {
        self.check_request(path)?;
        self.check_count(inst)?;
        let varying = |slot: &OutputSlot| match slot {
            OutputSlot::Varying(name) => Ok(name.clone()),
            other => Err(Error::Internal(format!(
                "a vertex step got a debug output of another stage: {other:?}"
            ))),
        };
        let mut req = VertexStepRequest {
            cache_key: inst.cache_key,
            stage: self.stage.gl_enum(),
            want_value: u32::from(want),
            readback: mode.request(),
            ..Default::default()
        };
        let start = request_start::<VertexStepRequest>();
        {
            let mut w = self.shm.bulk_writer(abi::BULK_REQUEST + start);
            req.shader_count = self.push_shaders(&mut w, inst, &mut req.shaders);
            match (&inst.value, &inst.vertex_index_uniforms) {
                // Storage blocks at the draw's vertices (a non-indexed draw).
                (OutputSlot::Buffer { binding, .. }, Some((first, count))) => {
                    req.value_binding = *binding;
                    req.first_uniform = w.push(first.as_bytes());
                    req.count_uniform = w.push(count.as_bytes());
                }
                _ => {
                    let (value, coverage) = (varying(&inst.value)?, varying(&inst.coverage)?);
                    // A coverage-only probe (a step) leaves the value out of the capture.
                    if want {
                        req.value_varying = w.push(value.as_bytes());
                    }
                    req.coverage_varying = w.push(coverage.as_bytes());
                    if let Some(e) = inst.emission.as_ref().map(varying).transpose()? {
                        req.emission_varying = w.push(e.as_bytes());
                    }
                }
            }
            req.path_uniform = push_path(&mut w, inst, path, &mut req.path_len, &mut req.path);
            req.trace = push_trace(&mut w, self.trace);
        }
        let reply: VertexStepReply = self.exchange(&req, inst)?;
        if reply.truncated != 0 {
            self.reports.warn(format!(
                "the draw has more vertices than one step captures; showing the first {}",
                reply.vertices
            ));
        }
        let t = reply.timing();
        let extent = (reply.vertices, 1, 1);
        let refs = HeldRefs {
            readback: reply.readback,
            values: reply.values,
            stride: 4,
            coverage: reply.coverage,
        };
        match held(self.shm, &refs, extent, t, mode) {
            Reply::Whole => {}
            Reply::Held(r) => return Ok(*r),
            Reply::Retry => return self.vertex(inst, path, want, &ReadMode::All),
        }
        let values = (reply.values, 4, want);
        let coverage = CoverageRef::Bytes(reply.coverage, reply.coverage_code);
        let mut r = read_probe(self.shm, values, coverage, extent, t)?;
        r.emission = self
            .shm
            .read_f32s(reply.emission)
            .chunks_exact(3)
            .map(|e| [e[0] as u32, e[1] as u32, e[2] as u32])
            .collect();
        Ok(r)
    }

    fn compute(
        &mut self,
        inst: &Instrumented,
        path: &[u32],
        want: bool,
        mode: &ReadMode,
    ) -> Result<ProbeResult> {
        self.check_request(path)?;
        self.check_count(inst)?;
        let OutputSlot::Buffer { binding, .. } = &inst.value else {
            return Err(Error::Internal(format!(
                "a compute step got a debug output of another stage: {:?}",
                inst.value
            )));
        };
        let mut req = ComputeStepRequest {
            cache_key: inst.cache_key,
            value_binding: *binding,
            stage: self.stage.gl_enum(),
            readback: mode.request(),
            ..Default::default()
        };
        let start = request_start::<ComputeStepRequest>();
        {
            let mut w = self.shm.bulk_writer(abi::BULK_REQUEST + start);
            req.shader_count = self.push_shaders(&mut w, inst, &mut req.shaders);
            if let Some(u) = inst
                .local_size_uniform
                .as_ref()
                .or(inst.output_vertices_uniform.as_ref())
            {
                req.local_size_uniform = w.push(u.as_bytes());
            }
            req.path_uniform = push_path(&mut w, inst, path, &mut req.path_len, &mut req.path);
            req.trace = push_trace(&mut w, self.trace);
        }
        let reply: ComputeStepReply = self.exchange(&req, inst)?;
        // Invocations by global index: rows of the x extent, y rows per z layer.
        let extent = |i: usize| reply.groups[i].saturating_mul(reply.local_size[i]);
        let (w, rows, layers) = (extent(0), extent(1), extent(2));
        if reply.invocations as u64 != w as u64 * rows as u64 * layers as u64 {
            return Err(Error::Internal(format!(
                "the compute replay counted {} invocations for {w}x{rows}x{layers}",
                reply.invocations
            )));
        }
        let t = reply.timing();
        let refs = HeldRefs {
            readback: reply.readback,
            values: reply.values,
            stride: 4,
            coverage: reply.coverage,
        };
        match held(self.shm, &refs, (w, rows, layers), t, mode) {
            Reply::Whole => {}
            Reply::Held(r) => return Ok(*r),
            Reply::Retry => return self.compute(inst, path, want, &ReadMode::All),
        }
        read_probe(
            self.shm,
            (reply.values, 4, want),
            CoverageRef::Codes(reply.coverage),
            (w, rows, layers),
            t,
        )
    }

    fn fragment(
        &mut self,
        inst: &Instrumented,
        path: &[u32],
        components: u32,
        mode: &ReadMode,
    ) -> Result<ProbeResult> {
        self.check_request(path)?;
        self.check_count(inst)?;
        let mut req = FragmentStepRequest {
            cache_key: inst.cache_key,
            shader_count: 0,
            depth: self.fragment_options.depth,
            stencil: self.fragment_options.stencil,
            alpha_test_off: self.fragment_options.alpha_test_off as u32,
            value_components: components,
            readback: mode.request(),
            ..Default::default()
        };
        let start = request_start::<FragmentStepRequest>();
        {
            let mut w = self.shm.bulk_writer(abi::BULK_REQUEST + start);
            req.shader_count = self.push_shaders(&mut w, inst, &mut req.shaders);
            req.value_output = output_ref(&mut w, &inst.value)?;
            req.coverage_output = output_ref(&mut w, &inst.coverage)?;
            let names: Vec<BulkRef> = (inst.app_outputs.iter())
                .map(|name| w.push(name.as_bytes()))
                .collect();
            req.app_outputs = w.push(&BulkRef::list_bytes(&names));
            req.path_uniform = push_path(&mut w, inst, path, &mut req.path_len, &mut req.path);
            req.trace = push_trace(&mut w, self.trace);
        }
        let reply: FragmentStepReply = self.exchange(&req, inst)?;
        let t = reply.timing();
        let extent = (reply.width, reply.height, 1);
        let refs = HeldRefs {
            readback: reply.readback,
            values: reply.values,
            stride: reply.value_components as usize,
            coverage: reply.coverage,
        };
        match held(self.shm, &refs, extent, t, mode) {
            Reply::Whole => {}
            Reply::Held(r) => return Ok(*r),
            Reply::Retry => return self.fragment(inst, path, components, &ReadMode::All),
        }
        let values = (
            reply.values,
            reply.value_components as usize,
            components > 0,
        );
        let coverage = CoverageRef::Bytes(reply.coverage, reply.coverage_code);
        read_probe(self.shm, values, coverage, extent, t)
    }
}

/// Where a probe's coverage is in the shared memory.
enum CoverageRef {
    /// One `f32` type code per invocation (compute steps).
    Codes(BulkRef),
    /// One byte per invocation (nonzero: reached) and the type code all
    /// reached invocations wrote (fragment, vertex-like steps).
    Bytes(BulkRef, u32),
}

/// A probe's result for `width` x `rows` x `layers` invocations, read out
/// of the shared memory: the coverage, then (`want`) the value's components
/// of each invocation (`values` holds `stride` floats per invocation), as
/// many as the type the reached invocations wrote has (none reached: no
/// values).
fn read_probe(
    shm: &SharedMemory,
    (values, stride, want): (BulkRef, usize, bool),
    coverage: CoverageRef,
    (width, rows, layers): (u32, u32, u32),
    timing: Timing,
) -> Result<ProbeResult> {
    let mut timing = timing;
    timing.readback_bytes = u64::from(values.len)
        + u64::from(match &coverage {
            CoverageRef::Codes(r) | CoverageRef::Bytes(r, _) => r.len,
        });
    // One byte per invocation: a quarter of the copy, and of the memory the
    // probe cache keeps.
    let (coverage, code) = match coverage {
        CoverageRef::Bytes(r, code) => (
            shm.read_bytes(r),
            glsl_instrument::coverage_code(code as f32),
        ),
        CoverageRef::Codes(r) => shm.with_f32s(r, |c| {
            let mut code = 0;
            let bytes = c
                .iter()
                .map(|&c| match glsl_instrument::coverage_code(c) {
                    0 => 0,
                    k => {
                        code = k;
                        1
                    }
                })
                .collect();
            (bytes, code)
        }),
    };
    let components = match (want, glsl_instrument::decode_type(code as f32)) {
        (true, Some(t)) => t.words().min(stride),
        _ => 0,
    };
    let values = shm.read_texel_components(values, stride, components);
    let n = width as usize * rows as usize * layers as usize;
    if values.len() < n * components || coverage.len() < n {
        return Err(Error::Internal(format!(
            "the debug replay returned {} values and {} coverage words for {width}x{rows}x{layers} invocations",
            values.len(),
            coverage.len()
        )));
    }
    Ok(ProbeResult {
        emission: Vec::new(),
        code,
        width,
        height: rows * layers,
        layers,
        values,
        components,
        coverage,
        timing,
        held: Held::All,
        trace: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Quiet;

    impl Reports for Quiet {
        fn rejected_shader(&self, what: &str, _: Stage, _: &str, log: &str) -> Error {
            Error::Internal(format!("{what}: {log}"))
        }
        fn warn(&self, _: String) {}
    }

    fn runner<'a>(shm: &'a SharedMemory, ask: Option<TraceAsk<'a>>) -> StepRunner<'a> {
        StepRunner {
            reports: &Quiet,
            shm,
            slot: 0,
            stage: Stage::Geometry,
            others: &[],
            fragment_options: FragmentOptions::default(),
            trace: ask,
            traced: None,
        }
    }

    /// A trace reply of `words` written (as the preload writes it: at most
    /// the capacity's words in `data`).
    fn reply(shm: &SharedMemory, words: u32, data: &[u32]) -> abi::TraceReply {
        let bytes: Vec<u8> = data.iter().flat_map(|w| w.to_ne_bytes()).collect();
        abi::TraceReply {
            status: abi::TRACE_OK,
            hits: 2,
            records: 5,
            words,
            full: 1,
            binding: 1,
            data: shm.bulk_writer(abi::BULK_DATA + 64).push(&bytes),
        }
    }

    #[test]
    fn a_trace_reply_is_decoded_and_checked() {
        let shm = SharedMemory::create().unwrap();
        let ask = Some(TraceAsk {
            block: "gldbg_trace_t",
            capacity_words: 3,
            zero_data: false,
        });
        let r = runner(&shm, ask);
        let expected = TraceData {
            hits: 2,
            records: 5,
            full: true,
            words: vec![7, 8, 9],
        };
        assert_eq!(
            r.read_trace(&reply(&shm, 3, &[7, 8, 9])).unwrap(),
            Some(expected.clone())
        );
        // A shader that counted past the capacity: the capacity's words.
        assert_eq!(
            r.read_trace(&reply(&shm, 40, &[7, 8, 9])).unwrap(),
            Some(expected)
        );
        // No trace asked for: none, whatever the reply says.
        assert_eq!(
            runner(&shm, None)
                .read_trace(&reply(&shm, 3, &[7, 8, 9]))
                .unwrap(),
            None
        );
        // The driver cannot: the caller falls back to probes.
        let unsupported = abi::TraceReply {
            status: abi::TRACE_UNSUPPORTED,
            ..Default::default()
        };
        match r.read_trace(&unsupported) {
            Err(Error::Unimplemented(m)) => assert!(
                m.contains("cannot write a storage buffer from the geometry stage"),
                "{m}"
            ),
            other => panic!("{other:?}"),
        }
        // Lengths that do not match the words, or lie outside the region.
        for bad in [
            reply(&shm, 3, &[7, 8]),
            reply(&shm, 2, &[7, 8, 9]),
            abi::TraceReply {
                data: BulkRef::at(abi::BULK_SIZE - 4, 12),
                ..reply(&shm, 3, &[7, 8, 9])
            },
            abi::TraceReply {
                data: BulkRef::at(0, 12),
                ..reply(&shm, 3, &[7, 8, 9])
            },
            abi::TraceReply {
                status: 7,
                ..reply(&shm, 3, &[7, 8, 9])
            },
        ] {
            assert!(
                matches!(r.read_trace(&bad), Err(Error::Internal(_))),
                "{bad:?}"
            );
        }
    }
}
