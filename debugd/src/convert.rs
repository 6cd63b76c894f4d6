//! The protobuf edge of shader debugging: requests into the shader
//! debugger's own types ([`crate::shader`]), its answers back into
//! messages. Only this module and the service module turn one into the
//! other (the session's state reply takes its shader stop from
//! [`state_shader`]); the wire format stays exactly what it was.

use gldbg_proto::pb;
use glsl_instrument::Stage;

use crate::error::{Error, Result};
use crate::shader::reply::{
    Dumped, EmittedVertex, Flow, FlowIteration, FlowSide, Frame, Invocation, Local, Printed,
    ShaderStop, SourceLine, Summary, TableRow, Timing, TraceStop, TracedValue, ValuePart,
};
use crate::shader::{DebugRequest, FocusOn, FragmentOptions};

impl TryFrom<&pb::DebugShaderRequest> for DebugRequest {
    type Error = Error;

    /// An unknown buffer mode or stage is an invalid argument.
    fn try_from(r: &pb::DebugShaderRequest) -> Result<DebugRequest> {
        let fragment_options = fragment_options(r)?;
        let stage = r.stage.trim();
        let stage = Stage::from_name(stage).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "unknown stage {:?} (vertex, tess-control, tess-eval, geometry, fragment, compute)",
                crate::error::quote(stage)
            ))
        })?;
        Ok(DebugRequest {
            stage,
            fragment_options,
        })
    }
}

/// The fragment options of a `DebugShader` request.
fn fragment_options(r: &pb::DebugShaderRequest) -> Result<FragmentOptions> {
    let mode = |what: &str, v: i32| {
        let m = pb::FragmentBuffer::try_from(v).map_err(|_| {
            Error::InvalidArgument(format!("unknown {what} mode {v} (0 copy, 1 clear, 2 off)"))
        })?;
        Ok::<u32, Error>(match m {
            // The older flag asks for clear where the new field says nothing.
            pb::FragmentBuffer::BufferCopy if r.clear_depth_stencil => {
                gldbg_proto::shm::BUFFER_CLEAR
            }
            pb::FragmentBuffer::BufferCopy => gldbg_proto::shm::BUFFER_COPY,
            pb::FragmentBuffer::BufferClear => gldbg_proto::shm::BUFFER_CLEAR,
            pb::FragmentBuffer::TestOff => gldbg_proto::shm::TEST_OFF,
        })
    };
    Ok(FragmentOptions {
        depth: mode("depth", r.depth)?,
        stencil: mode("stencil", r.stencil)?,
        alpha_test_off: r.alpha_test_off,
    })
}

/// The invocation a request names; `None` for none (also an `Invocation`
/// message with no kind set).
pub fn invocation(at: Option<pb::Invocation>) -> Option<Invocation> {
    use pb::invocation::Kind;
    Some(match at?.kind? {
        Kind::Pixel(p) => Invocation::Pixel { x: p.x, y: p.y },
        Kind::Vertex(n) => Invocation::Vertex(n),
        Kind::Primitive(n) => Invocation::Primitive(n),
        Kind::Invocation(g) => Invocation::Global {
            x: g.x,
            y: g.y,
            z: g.z,
        },
    })
}

/// What a `Focus` request asks to follow: any invocation (no `at`), the
/// one it names, or none named (an `at` with no kind: an error).
pub fn focus_on(at: Option<pb::Invocation>) -> FocusOn {
    match at {
        None => FocusOn::Any,
        Some(at) => invocation(Some(at)).map_or(FocusOn::Unnamed, FocusOn::At),
    }
}

impl From<Invocation> for pb::Invocation {
    fn from(at: Invocation) -> pb::Invocation {
        use pb::invocation::Kind;
        let kind = match at {
            Invocation::Pixel { x, y } => Kind::Pixel(pb::Pixel { x, y }),
            Invocation::Vertex(n) => Kind::Vertex(n),
            Invocation::Primitive(n) => Kind::Primitive(n),
            Invocation::Global { x, y, z } => Kind::Invocation(pb::Workgroup { x, y, z }),
        };
        pb::Invocation { kind: Some(kind) }
    }
}

impl From<Timing> for pb::ProbeTiming {
    fn from(t: Timing) -> pb::ProbeTiming {
        pb::ProbeTiming {
            probes: t.probes,
            cached_programs: t.cached_programs,
            instrument_ns: t.instrument_ns,
            build_ns: t.build_ns,
            replay_ns: t.replay_ns,
            readback_ns: t.readback_ns,
            readback_bytes: t.readback_bytes,
            total_ns: t.total_ns,
        }
    }
}

/// The shader stop of a state reply: the session's last one, as a message.
pub(crate) fn state_shader(stop: Option<&ShaderStop>) -> Option<pb::ShaderStop> {
    stop.cloned().map(Into::into)
}

impl From<ShaderStop> for pb::ShaderStop {
    fn from(s: ShaderStop) -> pb::ShaderStop {
        pb::ShaderStop {
            stage: s.stage,
            step: s.step,
            line: s.line,
            column: s.column,
            function: s.function,
            text: s.text,
            kind: s.kind,
            iterations: s.iterations,
            calls: s.calls,
            reached: s.reached,
            finished: s.finished,
            breakpoint_line: s.breakpoint_line,
            focus: s.focus.map(Into::into),
            focus_reached: s.focus_reached,
            timing: s.timing.map(Into::into),
            trace: s.trace.map(Into::into),
            hits: s.hits.map(|h| pb::HitInfo {
                kind: h.kind,
                invocations: h.invocations,
                executions: h.executions,
                variable: h.variable.unwrap_or_default(),
                line: h.line,
            }),
            source: s
                .source
                .map(|(file, line)| pb::SourceLocation { file, line }),
            shader: s.shader,
        }
    }
}

impl From<TraceStop> for pb::TraceInfo {
    fn from(t: TraceStop) -> pb::TraceInfo {
        pb::TraceInfo {
            record: t.record,
            records: t.records,
            recorded: t.recorded,
            truncated: t.truncated,
            frame: t.frame,
            watch: t.watch.map(|w| pb::WatchChange {
                old: w.old.map(|v| local_value(&w.expr, v)),
                new: w.new.map(|v| local_value(&w.expr, v)),
                expr: w.expr,
            }),
        }
    }
}

/// The shader breakpoints with their extras as a message.
pub(crate) fn shader_breakpoints(
    list: std::collections::BTreeMap<u32, crate::shader::BreakExtras>,
) -> pb::ShaderBreakpoints {
    pb::ShaderBreakpoints {
        lines: list.keys().copied().collect(),
        breakpoints: list
            .into_iter()
            .map(|(line, e)| pb::ShaderBreakpoint {
                line,
                condition: e.condition.unwrap_or_default(),
                temporary: e.temporary,
                ignore: e.ignore,
                executions: e.executions,
                invocations: e.invocations,
                counted: e.counted,
            })
            .collect(),
    }
}

/// A traced value as a message, named `name`.
pub(crate) fn local_value(name: &str, v: TracedValue) -> pb::LocalValue {
    pb::LocalValue {
        name: name.to_string(),
        r#type: v.ty,
        value: v.value,
        undefined: v.undefined,
        written_unknown: v.written_unknown,
        parts: v
            .parts
            .into_iter()
            .map(|(path, ty, components)| pb::ValuePart {
                path,
                r#type: ty,
                components,
            })
            .collect(),
        summary: None,
        maybe_undefined: false,
    }
}

impl From<Local> for pb::LocalValue {
    fn from(l: Local) -> pb::LocalValue {
        pb::LocalValue {
            summary: l.summary.map(Into::into),
            maybe_undefined: l.maybe_undefined,
            ..local_value(&l.name, l.value)
        }
    }
}

impl From<Frame> for pb::StackFrame {
    fn from(f: Frame) -> pb::StackFrame {
        pb::StackFrame {
            level: f.level,
            function: f.function,
            line: f.line,
            column: f.column,
            args: f.args.into_iter().map(Into::into).collect(),
            source: f
                .source
                .map(|(file, line)| pb::SourceLocation { file, line }),
        }
    }
}

impl From<Summary> for pb::Summary {
    fn from(s: Summary) -> pb::Summary {
        pb::Summary {
            count: s.count,
            min: s.min,
            max: s.max,
            nan: s.nan,
            inf: s.inf,
            total: s.total,
            discarded: s.discarded,
            undefined: s.undefined,
        }
    }
}

impl From<TableRow> for pb::TableRow {
    fn from(r: TableRow) -> pb::TableRow {
        pb::TableRow {
            vertex: r.vertex,
            reached: r.reached,
            value: r.value,
            undefined: r.undefined,
        }
    }
}

impl From<EmittedVertex> for pb::EmittedVertex {
    fn from(e: EmittedVertex) -> pb::EmittedVertex {
        pb::EmittedVertex {
            emit: e.emit,
            invocation: e.invocation,
            vertex: e.vertex,
            reached: e.reached,
            value: e.value,
        }
    }
}

impl From<ValuePart> for pb::ValuePart {
    fn from(p: ValuePart) -> pb::ValuePart {
        pb::ValuePart {
            path: p.path,
            r#type: p.ty,
            components: p.components,
        }
    }
}

/// Each element of `v` as its message.
fn all<T, U: From<T>>(v: Vec<T>) -> Vec<U> {
    v.into_iter().map(U::from).collect()
}

impl From<Printed> for pb::PrintReply {
    fn from(p: Printed) -> pb::PrintReply {
        pb::PrintReply {
            expr: p.expr,
            r#type: p.ty,
            value: p.value,
            reached: p.reached,
            at: p.at.map(Into::into),
            summary: p.summary.map(Into::into),
            timing: p.timing.map(Into::into),
            emitted: all(p.emitted),
            table: all(p.table),
            parts: all(p.parts),
            discarded: p.discarded,
            undefined: p.undefined,
            written_unknown: p.written_unknown,
        }
    }
}

impl From<Dumped> for pb::DumpReply {
    fn from(d: Dumped) -> pb::DumpReply {
        pb::DumpReply {
            width: d.width,
            height: d.height,
            r#type: d.ty,
            data: d.data,
            reached: d.reached,
            undefined: d.undefined,
            mapped_min: d.mapped_min,
            mapped_max: d.mapped_max,
            legend_width: d.legend_width,
            written_unknown: d.written_unknown,
        }
    }
}

impl From<FlowSide> for pb::FlowSide {
    fn from(s: FlowSide) -> pb::FlowSide {
        pb::FlowSide {
            label: s.label,
            count: s.count,
        }
    }
}

impl From<FlowIteration> for pb::FlowIteration {
    fn from(i: FlowIteration) -> pb::FlowIteration {
        pb::FlowIteration {
            iteration: i.iteration,
            evaluated: i.evaluated,
            entered: i.entered,
        }
    }
}

impl From<Flow> for pb::FlowInfo {
    fn from(f: Flow) -> pb::FlowInfo {
        pb::FlowInfo {
            kind: f.kind,
            line: f.line,
            condition: f.condition,
            reached: f.reached,
            sides: all(f.sides),
            iterations: all(f.iterations),
            chart_png: f.chart_png,
        }
    }
}

/// A listing as its message.
pub fn listing(lines: Vec<SourceLine>, file: String) -> pb::SourceListing {
    pb::SourceListing {
        file,
        lines: lines
            .into_iter()
            .map(|l| pb::SourceLine {
                line: l.line,
                text: l.text,
                current: l.current,
                breakpoint: l.breakpoint,
                file_line: l.file_line,
            })
            .collect(),
    }
}

/// A pixel history request: the pixel's coordinates as the GL's `int`s.
pub fn history_ask(r: &pb::PixelHistoryRequest) -> Result<crate::history::HistoryAsk> {
    let coordinate = |field: &str, v: u32| {
        i32::try_from(v)
            .map(|_| v)
            .map_err(|_| crate::error::out_of_range(field, v, "0..=2147483647"))
    };
    Ok(crate::history::HistoryAsk {
        x: coordinate("x", r.x)?,
        y: coordinate("y", r.y)?,
        texture: match r.texture {
            Some(t) => Some((t, r.level, r.layer.unwrap_or(-1).max(-1))),
            None => None,
        },
        until_draw: r.until_draw,
    })
}

impl From<crate::history::History> for pb::PixelHistoryReply {
    fn from(h: crate::history::History) -> pb::PixelHistoryReply {
        let color = |c: Vec<f64>| pb::PixelColor { value: c };
        pb::PixelHistoryReply {
            x: h.texel.x as u32,
            y: h.texel.y as u32,
            image: h.image(),
            kind: h.kind_name().into(),
            format: h.format_name(),
            end: h.end.clone(),
            start: Some(color(h.start.clone())),
            notes: h.notes.clone(),
            entries: (h.entries.into_iter())
                .map(|e| pb::HistoryEntry {
                    entry: e.entry,
                    call: e.call,
                    function: e.function,
                    draw: e.draw,
                    frame: e.frame,
                    program: e.program,
                    framebuffer: e.framebuffer,
                    before: Some(color(e.before)),
                    after: Some(color(e.after)),
                    note: e.note,
                    global_draw: e.global_draw,
                    thread: e.thread,
                    fragments: (e.fragments.into_iter())
                        .map(|f| pb::HistoryFragment {
                            primitive: f.primitive,
                            output: f.output,
                            depth: f.depth,
                            passed: f.passed,
                            rejected_by: f.rejected_by.unwrap_or("").into(),
                            color_before: Some(color(f.color_before)),
                            color_after: Some(color(f.color_after)),
                            depth_before: f.depth_before,
                            depth_after: f.depth_after,
                            stencil_before: f.stencil_before,
                            stencil_after: f.stencil_after,
                            front_facing: f.front_facing,
                        })
                        .collect(),
                })
                .collect(),
        }
    }
}

/// `info sources`' reads and notes.
pub fn source_reads(
    (reads, notes): (Vec<crate::history::SourceRead>, Vec<String>),
) -> pb::SourceReads {
    pb::SourceReads {
        reads: reads
            .into_iter()
            .map(|r| pb::SourceRead {
                line: r.read.line,
                column: r.read.column,
                function: r.read.function,
                sampler: r.read.sampler,
                coord_expr: r.read.coord_text,
                coord: r.read.coord,
                unit: r.unit,
                texture: r.texture,
                width: r.size.map(|s| s.0),
                height: r.size.map(|s| s.1),
                texel: r.texel.unwrap_or_default(),
            })
            .collect(),
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invocations_survive_the_round_trip() {
        for at in [
            Invocation::Pixel { x: 3, y: 4 },
            Invocation::Vertex(7),
            Invocation::Primitive(2),
            Invocation::Global { x: 1, y: 2, z: 3 },
        ] {
            assert_eq!(invocation(Some(at.into())), Some(at));
        }
        assert_eq!(invocation(Some(pb::Invocation { kind: None })), None);
        assert_eq!(invocation(None), None);
    }

    #[test]
    fn debug_requests_are_checked_at_the_edge() {
        let r = pb::DebugShaderRequest {
            stage: " vertex ".into(),
            clear_depth_stencil: true,
            ..Default::default()
        };
        let d = DebugRequest::try_from(&r).unwrap();
        assert_eq!(d.stage, Stage::Vertex);
        assert_eq!(d.fragment_options.depth, gldbg_proto::shm::BUFFER_CLEAR);
        let bad = pb::DebugShaderRequest {
            stage: "fragment".into(),
            depth: 7,
            ..Default::default()
        };
        assert_eq!(
            DebugRequest::try_from(&bad).unwrap_err().to_string(),
            "unknown depth mode 7 (0 copy, 1 clear, 2 off)"
        );
        let bad = pb::DebugShaderRequest {
            stage: "pixel".into(),
            ..Default::default()
        };
        assert!(
            DebugRequest::try_from(&bad)
                .unwrap_err()
                .to_string()
                .starts_with("unknown stage \"pixel\"")
        );
    }
}
