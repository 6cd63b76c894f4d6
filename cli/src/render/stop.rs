//! Shader stops (`debug`, shader `step`/`continue`, `focus`) and the pieces
//! shader results share: an invocation (`@ X,Y`), what probes cost, the
//! word for a stage's invocations.

use std::fmt;

use gldbg_proto::pb;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::command::At;
pub use crate::exec::invocation_at;

/// What a stage's invocations are called: "fragments", "vertices", ...
pub fn noun(stage: &str) -> &'static str {
    match stage {
        "fragment" => "fragments",
        "vertex" | "tess-eval" | "geometry" => "vertices",
        _ => "invocations",
    }
}

/// An invocation in JSON: `{"x": 1, "y": 2}`, `{"vertex": 3}`,
/// `{"primitive": 0}`, `{"x": 1, "y": 2, "z": 3}`.
pub struct AtJson(pub At);

impl Serialize for AtJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let entries: &[(&str, u32)] = match self.0 {
            At::Pixel { x, y } => &[("x", x), ("y", y)],
            At::Vertex(n) => &[("vertex", n)],
            At::Primitive(n) => &[("primitive", n)],
            At::Invocation { x, y, z } => &[("x", x), ("y", y), ("z", z)],
        };
        let mut m = s.serialize_map(Some(entries.len()))?;
        for (k, v) in entries {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// What a command's probes cost (`"timing"`, nanoseconds), when it ran any.
#[derive(Serialize)]
pub struct Timing {
    probes: u32,
    cached_programs: u32,
    instrument_ns: u64,
    build_ns: u64,
    replay_ns: u64,
    readback_ns: u64,
    /// Bytes the probes read back (a point or a GPU summary: a few).
    readback_bytes: u64,
    total_ns: u64,
}

impl Timing {
    pub fn of(t: Option<&pb::ProbeTiming>) -> Option<Timing> {
        t.map(|t| Timing {
            probes: t.probes,
            cached_programs: t.cached_programs,
            instrument_ns: t.instrument_ns,
            build_ns: t.build_ns,
            replay_ns: t.replay_ns,
            readback_ns: t.readback_ns,
            readback_bytes: t.readback_bytes,
            total_ns: t.total_ns,
        })
    }
}

use super::is_zero;

/// The current step of a shader stop (none once the shader has finished).
#[derive(Serialize)]
struct StepAt<'a> {
    line: u32,
    column: u32,
    step: u32,
    function: &'a str,
    text: &'a str,
    kind: &'a str,
}

/// Where a traced stop is in the recorded run.
#[derive(Serialize)]
struct TraceJson {
    record: u32,
    records: u32,
    recorded: u32,
    truncated: bool,
}

/// The watch that stopped a move: its value before and after.
#[derive(Serialize)]
struct WatchJson<'a> {
    expr: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    old: Option<super::values::Written<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    new: Option<super::values::Written<'a>>,
    #[serde(skip)]
    text: String,
}

impl<'a> WatchJson<'a> {
    fn new(w: &'a pb::WatchChange) -> WatchJson<'a> {
        let json = |v: &'a Option<pb::LocalValue>| {
            v.as_ref().map(|v| {
                super::values::Layout::new(&v.r#type, &v.parts).written_json(&v.value, &v.undefined)
            })
        };
        let text = |v: &Option<pb::LocalValue>| match v {
            Some(v) => {
                super::values::Layout::new(&v.r#type, &v.parts).written_text(&v.value, &v.undefined)
            }
            None => "(no value)".into(),
        };
        WatchJson {
            expr: &w.expr,
            old: json(&w.old),
            new: json(&w.new),
            text: format!("watch {}: {} -> {}", w.expr, text(&w.old), text(&w.new)),
        }
    }
}

/// What a conditional breakpoint or catch hit over the draw.
#[derive(Serialize)]
struct HitsJson {
    invocations: u64,
    executions: u64,
}

/// What a catch caught: `"nan"` or `"inf"`, in which variable, on which line.
#[derive(Serialize)]
struct CaughtJson<'a> {
    kind: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    variable: &'a str,
    line: u32,
}

/// Where a shader stopped and how many invocations got there.
#[derive(Serialize)]
pub struct ShaderStopView<'a> {
    stage: &'a str,
    #[serde(flatten)]
    at: Option<StepAt<'a>>,
    /// Not known at a traced stop (no replay ran).
    #[serde(skip_serializing_if = "Option::is_none")]
    reached: Option<u64>,
    finished: bool,
    iterations: &'a [u32],
    calls: &'a [String],
    #[serde(skip_serializing_if = "is_zero")]
    breakpoint_line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    focus: Option<AtJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    focus_reached: Option<bool>,
    #[serde(skip_serializing_if = "is_zero")]
    frame: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    trace: Option<TraceJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    watchpoint: Option<WatchJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hits: Option<HitsJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    caught: Option<CaughtJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timing: Option<Timing>,
    /// The step's place in the user's file (issue 15), where mapped.
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file_line: Option<u32>,
}

impl<'a> ShaderStopView<'a> {
    pub fn new(stop: &'a pb::ShaderStop) -> ShaderStopView<'a> {
        let focus = invocation_at(stop.focus.as_ref());
        let trace = stop.trace.as_ref();
        ShaderStopView {
            stage: &stop.stage,
            // Once finished there is no current step to name.
            at: (!stop.finished).then_some(StepAt {
                line: stop.line,
                column: stop.column,
                step: stop.step,
                function: &stop.function,
                text: &stop.text,
                kind: &stop.kind,
            }),
            reached: trace.is_none().then_some(stop.reached),
            finished: stop.finished,
            iterations: &stop.iterations,
            calls: &stop.calls,
            breakpoint_line: stop.breakpoint_line,
            focus_reached: focus.map(|_| stop.focus_reached),
            focus: focus.map(AtJson),
            frame: trace.map_or(0, |t| t.frame),
            trace: trace.map(|t| TraceJson {
                record: t.record,
                records: t.records,
                recorded: t.recorded,
                truncated: t.truncated,
            }),
            watchpoint: trace.and_then(|t| t.watch.as_ref()).map(WatchJson::new),
            hits: stop.hits.as_ref().map(|h| HitsJson {
                invocations: h.invocations,
                executions: h.executions,
            }),
            caught: stop
                .hits
                .as_ref()
                .filter(|h| h.kind != "breakpoint")
                .map(|h| CaughtJson {
                    kind: &h.kind,
                    variable: &h.variable,
                    line: h.line,
                }),
            timing: Timing::of(stop.timing.as_ref()),
            file: stop.source.as_ref().map(|s| s.file.as_str()),
            file_line: stop.source.as_ref().map(|s| s.line),
        }
    }
}

impl fmt::Display for ShaderStopView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let stage = if self.stage.is_empty() {
            "shader"
        } else {
            self.stage
        };
        if let Some(w) = &self.watchpoint {
            writeln!(f, "{}", w.text)?;
        }
        if let Some(c) = &self.caught {
            let what = if c.kind == "nan" { "NaN" } else { "Inf" };
            match c.variable {
                "" => writeln!(f, "Caught {what} made at line {}", c.line)?,
                v => writeln!(f, "Caught {what} in {v}, made at line {}", c.line)?,
            }
        }
        if self.frame != 0 {
            write!(f, "#{} ", self.frame)?;
        }
        write!(f, "{stage} shader: ")?;
        match &self.at {
            None => f.write_str("finished (end of main)")?,
            Some(at) => {
                write!(f, "line {}:{}", at.line, at.column)?;
                if let (Some(file), Some(n)) = (self.file, self.file_line) {
                    write!(f, " ({file}:{n})")?;
                }
                if !at.function.is_empty() {
                    write!(f, " in {}()", at.function)?;
                }
                if !at.text.is_empty() {
                    write!(f, ": {}", at.text)?;
                }
            }
        }
        let mut extras = Vec::new();
        if let Some(reached) = self.reached {
            extras.push(format!("reached by {reached} {}", noun(self.stage)));
        }
        if let Some(h) = &self.hits {
            extras.push(format!(
                "hit by {} {} ({} times)",
                h.invocations,
                noun(self.stage),
                h.executions
            ));
        }
        if let Some(t) = &self.trace {
            let more = if t.truncated {
                ", more recorded as needed"
            } else {
                ""
            };
            extras.push(format!(
                "traced: record {} of {}{more}",
                t.record, t.records
            ));
        }
        match self.iterations {
            [] => {}
            [i] => extras.push(format!("loop iteration {i}")),
            its => extras.push(format!(
                "loop iterations {}",
                its.iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
        if self.breakpoint_line != 0 {
            extras.push(format!("breakpoint at line {}", self.breakpoint_line));
        }
        if let (Some(AtJson(at)), Some(reached)) = (&self.focus, self.focus_reached) {
            let here = if reached { "" } else { " (not here)" };
            extras.push(format!("focus {at}{here}"));
        }
        write!(f, "  [{}]", extras.join(", "))
    }
}
