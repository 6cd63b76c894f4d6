//! The preload link of shader debugging: debug step requests in the
//! shared memory and their results read back.

use super::*;

/// Sends a debug step command (`CMD_FRAGMENT_STEP`, `CMD_VERTEX_STEP`) for
/// one instrumented shader and reads the result: fragments as an image of
/// the framebuffer, vertices as a `vertices`×1 image (vertex N at x = N).
pub(super) struct StepRunner<'a> {
    pub(super) session: &'a Session,
    pub(super) shm: &'a SharedMemory,
    pub(super) slot: usize,
    /// The stage being debugged (the instrumented shader's).
    pub(super) stage: Stage,
    pub(super) others: &'a [StageSource],
    pub(super) fragment_options: FragmentOptions,
}

/// The loop path of a request: the uniform's name (pushed), its length and
/// values (`check_request` bounds the length).
pub(super) fn push_path(
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
pub(super) fn placeholder_fragment(app_fragment: &str) -> Option<String> {
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

/// The model of the stage's shader object that defines `main`, its other
/// shader objects (functions it calls) as siblings, `#include`s spliced:
/// the debug program compiles them as the instrumenter rewrote them.
pub(super) fn stage_model(
    stages: &[StageSource],
    stage: Stage,
    api: glsl_instrument::Api,
    because: &str,
) -> Result<ShaderModel> {
    let mine: Vec<&StageSource> = stages
        .iter()
        .filter(|s| s.gl_type == stage.gl_enum())
        .collect();
    if mine.is_empty() {
        return Err(Error::FailedPrecondition(format!(
            "the current program has no {} shader{because}",
            stage.name()
        )));
    }
    if mine.iter().any(|s| s.source.is_empty()) {
        return Err(Error::FailedPrecondition(format!(
            "the {} shader's source is unknown{because}",
            stage.name()
        )));
    }
    let parse = |s: &StageSource| {
        ShaderModel::parse_with(&s.source, stage, &s.includes, api)
            .map_err(|e| Error::InvalidArgument(format!("{} shader {e}", stage.name())))
    };
    // The first object that parses with a `main`; a single one as it is
    // (its parse error, or its missing `main`, is reported).
    let mut chosen = None;
    if mine.len() > 1 {
        for (i, s) in mine.iter().enumerate() {
            if let Ok(m) = parse(s)
                && m.has_main()
            {
                chosen = Some((i, m));
                break;
            }
        }
    }
    let (index, mut model) = match chosen {
        Some(c) => c,
        None => (0, parse(mine[0])?),
    };
    let siblings: Vec<String> = mine
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != index)
        .map(|(_, s)| {
            glsl_instrument::splice_includes(&s.source, &s.includes, api)
                .unwrap_or_else(|_| s.source.clone())
        })
        .collect();
    model.set_siblings(siblings);
    Ok(model)
}

/// Where a fragment debug output goes, for the preload's executor.
pub(super) fn output_ref(
    w: &mut crate::shm::BulkWriter<'_>,
    slot: &OutputSlot,
) -> Result<OutputRef> {
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

impl ProbeRunner for StepRunner<'_> {
    fn run(&mut self, inst: &Instrumented, path: &[u32], components: u32) -> Result<ProbeResult> {
        let want = components > 0;
        match self.stage {
            Stage::Fragment => self.fragment(inst, path, components),
            Stage::Vertex | Stage::TessEval | Stage::Geometry => self.vertex(inst, path, want),
            Stage::Compute | Stage::TessControl => self.compute(inst, path, want),
        }
    }
}

impl StepRunner<'_> {
    /// The loop path and the shaders, checked against the ABI's limits.
    pub(super) fn check_request(&self, path: &[u32]) -> Result<()> {
        if path.len() > abi::MAX_PATH {
            return Err(Error::Unimplemented(format!(
                "loops nested deeper than {} levels",
                abi::MAX_PATH
            )));
        }
        if self.others.len() + 1 > 6 {
            return Err(Error::Internal("too many shader stages".into()));
        }
        Ok(())
    }

    /// The shader objects fit the request (the instrumented one, its
    /// siblings, the other stages').
    pub(super) fn check_count(&self, inst: &Instrumented) -> Result<()> {
        let n = self.others.len() + 1 + inst.siblings.len();
        if n > 6 {
            return Err(Error::Unimplemented(format!(
                "programs of more than 6 shader objects (this one has {n})"
            )));
        }
        Ok(())
    }

    /// Write the instrumented shader and the program's other stages.
    pub(super) fn push_shaders(
        &self,
        w: &mut crate::shm::BulkWriter<'_>,
        inst: &Instrumented,
        shaders: &mut [ShaderRef; 6],
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
    pub(super) fn check_step(
        &self,
        command: &str,
        st: u32,
        inst: &Instrumented,
        log: BulkRef,
    ) -> Result<()> {
        let log = || String::from_utf8_lossy(&self.shm.read_bytes(log)).into_owned();
        match st {
            abi::STATUS_OK => Ok(()),
            abi::STATUS_COMPILE_FAILED => {
                Err(self
                    .session
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
                    .session
                    .rejected_shader(&what, self.stage, &inst.source, &log()))
            }
            // The preload says why (e.g. inside a display list being compiled).
            abi::STATUS_NOT_A_DRAW if !log().is_empty() => Err(Error::FailedPrecondition(format!(
                "not stopped at a draw call the debugger can replay: {}",
                log()
            ))),
            st => check_status(command, st, |st| {
                Error::Internal(format!("the debug replay failed (status {st}): {}", log()))
            }),
        }
    }

    pub(super) fn vertex(
        &mut self,
        inst: &Instrumented,
        path: &[u32],
        want: bool,
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
            ..Default::default()
        };
        let start = (std::mem::size_of::<VertexStepRequest>() + 63) & !63;
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
        }
        self.shm.write_struct(abi::BULK_REQUEST, &req);
        let st = self
            .shm
            .command(self.slot, abi::CMD_VERTEX_STEP, PROBE_TIMEOUT)?;
        let reply: VertexStepReply = self.shm.read_struct(abi::BULK_REPLY);
        self.check_step("CMD_VERTEX_STEP", st, inst, reply.log)?;
        if reply.truncated != 0 {
            self.session.emit(pb::event::Kind::Warning(format!(
                "the draw has more vertices than one step captures; showing the first {}",
                reply.vertices
            )));
        }
        let t = timing(
            reply.cached,
            reply.build_ns,
            reply.replay_ns,
            reply.readback_ns,
        );
        let extent = (reply.vertices, 1, 1);
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

    pub(super) fn compute(
        &mut self,
        inst: &Instrumented,
        path: &[u32],
        want: bool,
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
            ..Default::default()
        };
        let start = (std::mem::size_of::<ComputeStepRequest>() + 63) & !63;
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
        }
        self.shm.write_struct(abi::BULK_REQUEST, &req);
        let st = self
            .shm
            .command(self.slot, abi::CMD_COMPUTE_STEP, PROBE_TIMEOUT)?;
        let reply: ComputeStepReply = self.shm.read_struct(abi::BULK_REPLY);
        self.check_step("CMD_COMPUTE_STEP", st, inst, reply.log)?;
        // Invocations by global index: rows of the x extent, y rows per z layer.
        let extent = |i: usize| reply.groups[i].saturating_mul(reply.local_size[i]);
        let (w, rows, layers) = (extent(0), extent(1), extent(2));
        if reply.invocations as u64 != w as u64 * rows as u64 * layers as u64 {
            return Err(Error::Internal(format!(
                "the compute replay counted {} invocations for {w}x{rows}x{layers}",
                reply.invocations
            )));
        }
        let t = timing(
            reply.cached,
            reply.build_ns,
            reply.replay_ns,
            reply.readback_ns,
        );
        read_probe(
            self.shm,
            (reply.values, 4, want),
            CoverageRef::Codes(reply.coverage),
            (w, rows, layers),
            t,
        )
    }

    pub(super) fn fragment(
        &mut self,
        inst: &Instrumented,
        path: &[u32],
        components: u32,
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
            ..Default::default()
        };
        let start = (std::mem::size_of::<FragmentStepRequest>() + 63) & !63;
        {
            let mut w = self.shm.bulk_writer(abi::BULK_REQUEST + start);
            req.shader_count = self.push_shaders(&mut w, inst, &mut req.shaders);
            req.value_output = output_ref(&mut w, &inst.value)?;
            req.coverage_output = output_ref(&mut w, &inst.coverage)?;
            req.app_outputs = w.push(inst.app_outputs.join("\n").as_bytes());
            req.path_uniform = push_path(&mut w, inst, path, &mut req.path_len, &mut req.path);
        }
        self.shm.write_struct(abi::BULK_REQUEST, &req);
        let st = self
            .shm
            .command(self.slot, abi::CMD_FRAGMENT_STEP, PROBE_TIMEOUT)?;
        let reply: FragmentStepReply = self.shm.read_struct(abi::BULK_REPLY);
        self.check_step("CMD_FRAGMENT_STEP", st, inst, reply.log)?;
        let t = timing(
            reply.cached,
            reply.build_ns,
            reply.replay_ns,
            reply.readback_ns,
        );
        let extent = (reply.width, reply.height, 1);
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
pub(super) enum CoverageRef {
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
pub(super) fn read_probe(
    shm: &SharedMemory,
    (values, stride, want): (BulkRef, usize, bool),
    coverage: CoverageRef,
    (width, rows, layers): (u32, u32, u32),
    timing: pb::ProbeTiming,
) -> Result<ProbeResult> {
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
    })
}

/// A preload step reply's timing, as one probe's.
pub(super) fn timing(
    cached: u32,
    build_ns: u64,
    replay_ns: u64,
    readback_ns: u64,
) -> pb::ProbeTiming {
    pb::ProbeTiming {
        cached_programs: cached.min(1),
        build_ns,
        replay_ns,
        readback_ns,
        ..Default::default()
    }
}
