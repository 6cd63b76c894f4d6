//! Shader stops (`debug`, shader `step`/`continue`, `focus`) and the pieces
//! shader results share: an invocation (`@ X,Y`), what probes cost, the
//! word for a stage's invocations.

use std::fmt;

use gldbg_proto::pb;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::command::At;

/// What a stage's invocations are called: "fragments", "vertices", ...
pub fn noun(stage: &str) -> &'static str {
    match stage {
        "fragment" => "fragments",
        "vertex" | "tess-eval" | "geometry" => "vertices",
        _ => "invocations",
    }
}

/// An invocation of the wire as the command language writes it.
pub fn invocation_at(inv: Option<&pb::Invocation>) -> Option<At> {
    use pb::invocation::Kind;
    match inv.and_then(|i| i.kind.as_ref()) {
        Some(Kind::Pixel(p)) => Some(At::Pixel { x: p.x, y: p.y }),
        Some(Kind::Vertex(n)) => Some(At::Vertex(*n)),
        Some(Kind::Primitive(n)) => Some(At::Primitive(*n)),
        Some(Kind::Invocation(w)) => Some(At::Invocation {
            x: w.x,
            y: w.y,
            z: w.z,
        }),
        None => None,
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

/// Where a shader stopped and how many invocations got there.
#[derive(Serialize)]
pub struct ShaderStopView<'a> {
    stage: &'a str,
    line: u32,
    column: u32,
    step: u32,
    function: &'a str,
    text: &'a str,
    kind: &'a str,
    reached: u64,
    finished: bool,
    iterations: &'a [u32],
    calls: &'a [String],
    #[serde(skip_serializing_if = "is_zero")]
    breakpoint_line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    focus: Option<AtJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    focus_reached: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timing: Option<Timing>,
}

impl<'a> ShaderStopView<'a> {
    pub fn new(stop: &'a pb::ShaderStop) -> ShaderStopView<'a> {
        let focus = invocation_at(stop.focus.as_ref());
        ShaderStopView {
            stage: &stop.stage,
            line: stop.line,
            column: stop.column,
            step: stop.step,
            function: &stop.function,
            text: &stop.text,
            kind: &stop.kind,
            reached: stop.reached,
            finished: stop.finished,
            iterations: &stop.iterations,
            calls: &stop.calls,
            breakpoint_line: stop.breakpoint_line,
            focus_reached: focus.map(|_| stop.focus_reached),
            focus: focus.map(AtJson),
            timing: Timing::of(stop.timing.as_ref()),
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
        write!(f, "{stage} shader: ")?;
        if self.finished {
            f.write_str("finished (end of main)")?;
        } else {
            write!(f, "line {}:{}", self.line, self.column)?;
            if !self.function.is_empty() {
                write!(f, " in {}()", self.function)?;
            }
            if !self.text.is_empty() {
                write!(f, ": {}", self.text)?;
            }
        }
        let mut extras = vec![format!("reached by {} {}", self.reached, noun(self.stage))];
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
