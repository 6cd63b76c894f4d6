//! The session's shader-debugging requests: `debug`, shader steps and
//! breakpoints, `print`, `dump`, `focus`, `info flow`, `end`.

use super::*;

impl Session {
    pub fn debug_shader(&self, request: &pb::DebugShaderRequest) -> Result<pb::ShaderStop> {
        let fragment_options = FragmentOptions::from_request(request)?;
        let stage = request.stage.trim();
        let stage = Stage::from_name(stage).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "unknown stage {:?} (vertex, tess-control, tess-eval, geometry, fragment, compute)",
                crate::error::quote(stage)
            ))
        })?;
        let mut dbg = self.debug_lock();
        let (stop, shm, _) = self.stopped()?;
        cancel::check()?;
        if dbg.as_ref().is_some_and(|d| d.stop_serial != stop.serial) {
            // A new draw: the last one's probes go first (the GL objects
            // stay for this one).
            self.release_debug(&mut dbg, Some(&shm), None);
        }
        let at = function_name(stop.function);
        match stage {
            Stage::Compute if class_of(stop.function) & class::DISPATCH == 0 => {
                return Err(Error::FailedPrecondition(format!(
                    "not stopped at a compute dispatch (stopped at {at}); use `break glDispatchCompute` and `continue`"
                )));
            }
            Stage::Compute => {}
            _ if class_of(stop.function) & class::DRAW == 0 => {
                return Err(Error::FailedPrecondition(format!(
                    "not stopped at a draw call (stopped at {at}); use `break draw` and `continue`"
                )));
            }
            _ if stop.draw == 0 => {
                return Err(Error::FailedPrecondition(format!(
                    "{at} draws nothing here (it is compiled into a display list, or calls \
                     lists that draw nothing); use `break draw` and `continue`"
                )));
            }
            _ => {}
        }
        let (text, stages, note) = self.query_program()?;
        let because = note.map_or(String::new(), |n| format!(": {n}"));
        let model = stage_model(&stages, stage, text.api, &because)?;
        // The other stages are compiled with `glCompileShader`: their
        // `#include`s spliced in.
        let others: Vec<StageSource> = stages
            .iter()
            .filter(|s| s.gl_type != stage.gl_enum())
            .map(|s| StageSource {
                source: glsl_instrument::splice_includes(&s.source, &s.includes, text.api)
                    .unwrap_or_else(|_| s.source.clone()),
                ..s.clone()
            })
            .collect();
        let mut runner = StepRunner {
            session: self,
            shm: &shm,
            slot: stop.slot,
            stage,
            others: &others,
            fragment_options,
        };
        // A non-indexed draw's vertices are gl_VertexID - first (plus whole
        // instances): the vertex shader can write them in place.
        let vertex_buffer =
            stage == Stage::Vertex && at.starts_with("glDrawArrays") && !at.contains("Indirect");
        let mut d = ShaderDebug::start(model, stop.serial, vertex_buffer, &mut runner)?;
        d.others = others;
        d.fragment_options = fragment_options;
        let s = d.stop_with_timing();
        *dbg = Some(d);
        self.control().shader_stop = Some(s.clone());
        Ok(s)
    }

    /// Run `f` on the active shader debug state with a probe runner for the current stop.
    pub(super) fn with_debug<T>(
        &self,
        f: impl FnOnce(&mut ShaderDebug, &mut dyn ProbeRunner) -> Result<T>,
    ) -> Result<T> {
        let mut dbg = self.debug_lock();
        let Some(d) = dbg.as_mut() else {
            return Err(Error::FailedPrecondition(
                "not debugging a shader (use `debug fragment` at a draw call)".into(),
            ));
        };
        let (stop, shm, _) = self.stopped()?;
        if stop.serial != d.stop_serial {
            self.release_debug(&mut dbg, Some(&shm), None);
            self.control().shader_stop = None;
            return Err(Error::FailedPrecondition(
                "the app moved on from the draw call that was being debugged".into(),
            ));
        }
        cancel::check()?;
        let others = d.others.clone();
        let mut runner = StepRunner {
            session: self,
            shm: &shm,
            slot: stop.slot,
            stage: d.model.stage(),
            others: &others,
            fragment_options: d.fragment_options,
        };
        // Each command reports the cost of its own probes.
        let _ = d.take_timing();
        let r = f(d, &mut runner);
        let s = d.stop();
        self.control().shader_stop = Some(s);
        r
    }

    pub fn shader_step(&self, mode: StepMode, count: u64) -> Result<pb::ShaderStop> {
        self.with_debug(|d, r| {
            for _ in 0..count.max(1) {
                if !d.step_once(mode, r)? {
                    break;
                }
            }
            Ok(d.stop_with_timing())
        })
    }

    pub fn shader_continue(&self) -> Result<pb::ShaderStop> {
        self.with_debug(|d, r| {
            d.continue_to_breakpoint(r)?;
            Ok(d.stop_with_timing())
        })
    }

    pub fn shader_break(&self, line: u32) -> Result<pb::ShaderBreakpoints> {
        self.with_debug(|d, _| {
            d.add_breakpoint(line)?;
            Ok(pb::ShaderBreakpoints {
                lines: d.breakpoints.iter().copied().collect(),
            })
        })
    }

    pub fn shader_delete_break(&self, line: u32) -> Result<pb::ShaderBreakpoints> {
        self.with_debug(|d, _| {
            if line == 0 {
                d.breakpoints.clear();
            } else if !d.breakpoints.remove(&line) {
                return Err(Error::InvalidArgument(format!(
                    "no shader breakpoint on line {line}"
                )));
            }
            Ok(pb::ShaderBreakpoints {
                lines: d.breakpoints.iter().copied().collect(),
            })
        })
    }

    pub fn shader_list(&self, line: u32, context: u32) -> Result<pb::SourceListing> {
        self.with_debug(|d, _| d.listing(line, context))
    }

    pub fn print(&self, expr: &str, at: Option<pb::Invocation>) -> Result<pb::PrintReply> {
        if expr.trim().is_empty() {
            return Err(Error::InvalidArgument("print needs an expression".into()));
        }
        self.with_debug(|d, r| {
            let stage = d.model.stage();
            if let Some(pb::invocation::Kind::Primitive(n)) = at.as_ref().and_then(|a| a.kind) {
                return print_primitive(d, r, expr, n, at);
            }
            let cell = invocation_cell(stage, at.as_ref())?;
            let pos = d.pos.clone();
            let value = d.probe_value(&pos, expr, r)?;
            let res = value.first();
            let ty = value.ty.clone();
            match cell {
                Some((x, y, z)) => {
                    let Some(index) = res.index((x, y, z)) else {
                        return Err(Error::InvalidArgument(outside(
                            stage,
                            (x, y, z),
                            res.extent(),
                        )));
                    };
                    let v = value.value_at(index);
                    // Once finished, a fragment that ran main but did not
                    // reach its end was discarded.
                    let discarded = v.is_none()
                        && stage == Stage::Fragment
                        && d.end_coverage(r)?
                            .is_some_and(|end| !end.reached_at((x, y, z)))
                        && {
                            let entry = d.model.entry();
                            d.probe(&entry, None, r)?.reached_at((x, y, z))
                        };
                    Ok(pb::PrintReply {
                        expr: expr.to_string(),
                        r#type: ty,
                        value: v.clone().unwrap_or_default(),
                        reached: v.is_some(),
                        at,
                        summary: None,
                        timing: d.take_timing(),
                        emitted: Vec::new(),
                        table: Vec::new(),
                        parts: value.reply_parts(),
                        discarded,
                        undefined: match v {
                            Some(_) => value.undefined_at(index),
                            None => Vec::new(),
                        },
                        written_unknown: value.written_unknown(),
                    })
                }
                None => {
                    let (st, undefined) = value.stats();
                    // Vertex-like stages also get a table of their first vertices.
                    let table = match stage {
                        Stage::Fragment | Stage::Compute => Vec::new(),
                        _ => (0..res.coverage.len().min(TABLE_ROWS))
                            .map(|i| {
                                let v = value.value_at(i);
                                pb::TableRow {
                                    vertex: i as u32,
                                    reached: v.is_some(),
                                    undefined: match v {
                                        Some(_) => value.undefined_at(i),
                                        None => Vec::new(),
                                    },
                                    value: v.unwrap_or_default(),
                                }
                            })
                            .collect(),
                    };
                    let entry = d.model.entry();
                    let ran = d.probe(&entry, None, r)?;
                    let total = ran.reached();
                    // Once finished: fragments that ran main but did not
                    // reach its end (a return or its last statement).
                    let discarded = match (stage, d.end_coverage(r)?) {
                        (Stage::Fragment, Some(end)) => ran
                            .coverage
                            .iter()
                            .zip(&end.coverage)
                            .filter(|(a, b)| **a != 0 && **b == 0)
                            .count() as u64,
                        _ => 0,
                    };
                    Ok(pb::PrintReply {
                        expr: expr.to_string(),
                        r#type: ty,
                        value: Vec::new(),
                        reached: st.count > 0,
                        at: None,
                        summary: Some(pb::Summary {
                            count: st.count + undefined,
                            min: st.min,
                            max: st.max,
                            nan: st.nan,
                            inf: st.inf,
                            total,
                            discarded,
                            undefined,
                        }),
                        timing: d.take_timing(),
                        emitted: Vec::new(),
                        table,
                        parts: value.reply_parts(),
                        written_unknown: value.written_unknown(),
                        ..Default::default()
                    })
                }
            }
        })
    }

    /// `dump`: the value of `expr` over every invocation as an NPY file or
    /// as a PNG drawn with `png` (the range it mapped comes back).
    pub fn dump(&self, expr: &str, npy: bool, png: PngOptions) -> Result<pb::DumpReply> {
        if expr.trim().is_empty() {
            return Err(Error::InvalidArgument("dump needs an expression".into()));
        }
        if npy && png != PngOptions::default() {
            return Err(Error::InvalidArgument(
                "range= and colormap= are for .png dumps (a .npy file holds the values)".into(),
            ));
        }
        if let Some((lo, hi)) = png.range
            && !(lo.is_finite() && hi.is_finite() && lo < hi)
        {
            return Err(Error::InvalidArgument(format!(
                "range={lo},{hi}: the range needs two finite numbers, the first below the second"
            )));
        }
        self.with_debug(|d, r| {
            let pos = d.pos.clone();
            let value = d.probe_value(&pos, expr, r)?;
            if value.is_composite() {
                return Err(Error::InvalidArgument(format!(
                    "dump draws one scalar or vector per invocation; `{expr}` is a {} in parts \
                     {}: dump one of them, e.g. `({expr}){}`",
                    value.ty,
                    value.part_paths().join(" "),
                    value.part_paths()[0],
                )));
            }
            let (mut field, ty) = value.first().field();
            if png.viridis && field.components != 1 {
                return Err(Error::InvalidArgument(format!(
                    "colormap=viridis draws a scalar; `{expr}` is a {ty}: dump one component, \
                     e.g. `({expr}).x`"
                )));
            }
            // A value not written yet is no value: drawn as uncovered.
            let mut undefined = 0;
            for (i, v) in field.values.iter_mut().enumerate() {
                if v.is_some() && !value.undefined_at(i).is_empty() {
                    *v = None;
                    undefined += 1;
                }
            }
            let mut reply = pb::DumpReply {
                width: field.width,
                height: field.height,
                r#type: ty,
                reached: field.stats().count,
                undefined,
                written_unknown: value.written_unknown(),
                ..Default::default()
            };
            if npy {
                reply.data = field.to_npy();
            } else {
                let image = field.render_png(&png).map_err(Error::Internal)?;
                reply.data = image.data;
                reply.mapped_min = image.mapped.iter().map(|r| r.0).collect();
                reply.mapped_max = image.mapped.iter().map(|r| r.1).collect();
                reply.legend_width = image.legend_width;
            }
            Ok(reply)
        })
    }

    pub fn end_debug(&self) -> Result<pb::StateReply> {
        let mut dbg = self.debug_lock();
        if dbg.is_none() {
            return Err(Error::FailedPrecondition("not debugging a shader".into()));
        }
        cancel::check()?;
        match self.stopped() {
            Ok((stop, shm, _)) => self.release_debug(&mut dbg, Some(&shm), Some(stop.slot)),
            Err(_) => self.release_debug(&mut dbg, None, None),
        };
        let mut c = self.control();
        c.shader_stop = None;
        Ok(self.state_reply(&c))
    }

    /// `focus`: steps follow the invocation `at` (None: any invocation).
    pub fn focus(&self, at: Option<pb::Invocation>) -> Result<pb::ShaderStop> {
        self.with_debug(|d, r| {
            let Some(at) = at else {
                d.focus = None;
                return Ok(d.stop());
            };
            let stage = d.model.stage();
            let pos = d.pos.clone();
            if let Some(pb::invocation::Kind::Primitive(n)) = at.kind {
                if stage != Stage::Geometry {
                    return Err(Error::InvalidArgument(format!(
                        "`focus primitive N` follows an input primitive of a geometry shader, \
                         not of a {} shader",
                        stage.name()
                    )));
                }
                if d.probe(&pos, None, r)?.emitted_by(n).is_empty() {
                    return Err(Error::InvalidArgument(format!(
                        "input primitive {n} emitted no vertex at this step"
                    )));
                }
                d.focus = Some((Focus::Primitive(n), at));
                return Ok(d.stop_with_timing());
            }
            let Some(cell) = invocation_cell(stage, Some(&at))? else {
                return Err(Error::InvalidArgument("focus needs an invocation".into()));
            };
            let res = d.probe(&pos, None, r)?;
            if res.index(cell).is_none() {
                return Err(Error::InvalidArgument(outside(stage, cell, res.extent())));
            }
            d.focus = Some((Focus::Cell(cell), at));
            Ok(d.stop_with_timing())
        })
    }

    /// `info flow`: branch sides or loop iterations at the current step.
    pub fn info_flow(&self) -> Result<pb::FlowInfo> {
        self.with_debug(|d, r| d.flow(r))
    }

    /// Save a rejected debug shader and its log; returns the error for the RPC.
    pub(super) fn rejected_shader(
        &self,
        what: &str,
        stage: Stage,
        source: &str,
        log: &str,
    ) -> Error {
        let n = self.rejected.fetch_add(1, Ordering::Relaxed) + 1;
        let saved = match self.saved_shaders().as_ref() {
            Some(s) => s.save(n, file_extension(stage), source, log),
            None => Err(std::io::Error::other("the app's session has ended")),
        };
        let mut head: Vec<&str> = log
            .lines()
            .filter(|l| l.to_lowercase().contains("error"))
            .take(3)
            .collect();
        if head.is_empty() {
            head = log
                .lines()
                .filter(|l| !l.trim().is_empty())
                .take(3)
                .collect();
        }
        let msg = match saved {
            Ok((src_path, log_path)) => format!(
                "the driver rejected the debug shader ({what}): {}; generated source saved to {}, driver log to {}{}",
                head.join(" | "),
                src_path.display(),
                log_path.display(),
                crate::saved_shaders::lifetime_note()
            ),
            Err(e) => format!(
                "the driver rejected the debug shader ({what}): {}; could not save it: {e}",
                head.join(" | "),
            ),
        };
        self.emit(pb::event::Kind::Warning(msg.clone()));
        Error::Internal(msg)
    }
}

/// The file extension of a shader of `stage` (glslang's convention).
pub(super) fn file_extension(stage: Stage) -> &'static str {
    match stage {
        Stage::Vertex => "vert",
        Stage::TessControl => "tesc",
        Stage::TessEval => "tese",
        Stage::Geometry => "geom",
        Stage::Fragment => "frag",
        Stage::Compute => "comp",
    }
}

/// Why `cell` names no invocation of a probe of `extent` (width, rows, layers).
pub(super) fn outside(
    stage: Stage,
    (x, y, z): (u32, u32, u32),
    (w, rows, layers): (u32, u32, u32),
) -> String {
    match stage {
        Stage::Fragment => format!("pixel ({x},{y}) is outside the {w}x{rows} framebuffer"),
        Stage::Vertex => format!("vertex {x} is not in the draw ({w} vertices)"),
        Stage::TessEval | Stage::Geometry | Stage::TessControl => format!(
            "vertex {x} is not among the {w} vertices the {} stage output",
            stage.name()
        ),
        _ => format!(
            "invocation ({x},{y},{z}) is outside the dispatch ({w}x{rows}x{layers} invocations)"
        ),
    }
}

/// Rows of the table a summary `print` of a vertex-like stage shows.
pub(super) const TABLE_ROWS: usize = 32;

/// `print EXPR @ primitive N` of a geometry shader: the vertices input
/// primitive N emitted, with the value each carried when emitted.
pub(super) fn print_primitive(
    d: &mut ShaderDebug,
    r: &mut dyn ProbeRunner,
    expr: &str,
    primitive: u32,
    at: Option<pb::Invocation>,
) -> Result<pb::PrintReply> {
    if d.model.stage() != Stage::Geometry {
        return Err(Error::InvalidArgument(format!(
            "`@ primitive N` names an input primitive of a geometry shader; a {} shader is \
             printed at {}",
            d.model.stage().name(),
            match d.model.stage() {
                Stage::Fragment => "a pixel (@ X,Y)",
                Stage::Compute => "an invocation (@ invocation X,Y,Z)",
                _ => "a vertex (@ vertex N)",
            }
        )));
    }
    let pos = d.pos.clone();
    let value = d.probe_value(&pos, expr, r)?;
    let res = value.first();
    let ty = value.ty.clone();
    let emitted: Vec<pb::EmittedVertex> = res
        .emitted_by(primitive)
        .into_iter()
        .map(|(i, emit, invocation)| {
            let v = value.value_at(i);
            pb::EmittedVertex {
                emit,
                invocation,
                vertex: i as u32,
                reached: v.is_some(),
                value: v.unwrap_or_default(),
            }
        })
        .collect();
    if emitted.is_empty() {
        let primitives = res
            .emission
            .iter()
            .map(|e| u64::from(e[1]) + 1)
            .max()
            .unwrap_or(0);
        return Err(Error::InvalidArgument(format!(
            "input primitive {primitive} emitted no vertex (the geometry shader's captured \
             vertices come from {primitives} input primitives)"
        )));
    }
    Ok(pb::PrintReply {
        expr: expr.to_string(),
        r#type: ty,
        value: Vec::new(),
        reached: emitted.iter().any(|e| e.reached),
        at,
        summary: None,
        timing: d.take_timing(),
        emitted,
        table: Vec::new(),
        parts: value.reply_parts(),
        written_unknown: value.written_unknown(),
        ..Default::default()
    })
}

/// Which invocation of `stage` a `print` names: a fragment at its pixel
/// (x, y, 0), vertex N as (N, 0, 0), a compute invocation by its global id;
/// `None` for a summary over all.
pub(super) fn invocation_cell(
    stage: Stage,
    at: Option<&pb::Invocation>,
) -> Result<Option<(u32, u32, u32)>> {
    use pb::invocation::Kind;
    match (stage, at.and_then(|a| a.kind)) {
        (_, None) => Ok(None),
        (Stage::Fragment, Some(Kind::Pixel(p))) => Ok(Some((p.x, p.y, 0))),
        (
            Stage::Vertex | Stage::TessControl | Stage::TessEval | Stage::Geometry,
            Some(Kind::Vertex(n)),
        ) => Ok(Some((n, 0, 0))),
        (Stage::Compute, Some(Kind::Invocation(g))) => Ok(Some((g.x, g.y, g.z))),
        (Stage::Fragment, Some(_)) => Err(Error::InvalidArgument(
            "a fragment shader is printed at a pixel (@ X,Y) or over all fragments".into(),
        )),
        (Stage::Vertex, Some(_)) => Err(Error::InvalidArgument(
            "a vertex shader is printed at a vertex (@ vertex N) or over all vertices".into(),
        )),
        (Stage::TessEval | Stage::Geometry, Some(_)) => Err(Error::InvalidArgument(format!(
            "a {} shader is printed at an output vertex (@ vertex N: the N-th vertex of the \
             primitives it outputs, in order) or over all of them",
            stage.name()
        ))),
        (Stage::TessControl, Some(_)) => Err(Error::InvalidArgument(
            "a tess-control shader is printed at an output vertex (@ vertex N: patch N / size, \
             gl_InvocationID N % size) or over all of them"
                .into(),
        )),
        (Stage::Compute, Some(_)) => Err(Error::InvalidArgument(
            "a compute shader is printed at an invocation (@ invocation X,Y,Z, its \
             gl_GlobalInvocationID) or over all invocations"
                .into(),
        )),
    }
}
