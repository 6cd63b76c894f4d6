//! What the shader debugger answers, in its own terms: the current stop,
//! a printed value, a dump, the flow at a condition, a listing, and what
//! the probes cost. The service edge (`convert.rs`) turns them into
//! protobuf messages; nothing in `shader` builds one.

/// An invocation as the user names it (`@ X,Y`, `@ vertex N`,
/// `@ primitive N`, `@ invocation X,Y,Z`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invocation {
    Pixel {
        x: u32,
        y: u32,
    },
    Vertex(u32),
    /// An input primitive of a geometry shader.
    Primitive(u32),
    /// A compute invocation by its `gl_GlobalInvocationID`.
    Global {
        x: u32,
        y: u32,
        z: u32,
    },
}

/// What the probes of one command cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timing {
    /// Probes run (cached results cost nothing).
    pub probes: u32,
    /// Probes whose debug program the preload had linked before.
    pub cached_programs: u32,
    pub instrument_ns: u64,
    pub build_ns: u64,
    pub replay_ns: u64,
    pub readback_ns: u64,
    /// Bytes the probes read back (a point or a summary: a few).
    pub readback_bytes: u64,
    /// Each probe end to end, as the daemon saw it.
    pub total_ns: u64,
}

/// Where shader stepping is (`ShaderStop` on the wire).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShaderStop {
    pub stage: String,
    pub step: u32,
    /// The driver's line number (after `#line` and `#include`).
    pub line: u32,
    pub column: u32,
    pub function: String,
    pub text: String,
    pub kind: String,
    pub iterations: Vec<u32>,
    /// `main`, then the functions called down to the step.
    pub calls: Vec<String>,
    pub reached: u64,
    pub finished: bool,
    pub breakpoint_line: u32,
    pub focus: Option<Invocation>,
    pub focus_reached: bool,
    pub timing: Option<Timing>,
    /// A stop in the focused invocation's trace (then `reached` is not known).
    pub trace: Option<TraceStop>,
    /// A stop of a conditional breakpoint or a catch.
    pub hits: Option<HitStop>,
    /// The step's user file and file line, where the shader maps to one.
    pub source: Option<(String, u32)>,
    /// The GL shader object of the debugged stage.
    pub shader: u32,
}

/// What a conditional breakpoint or catch hit over the draw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HitStop {
    /// "breakpoint", "nan" or "inf".
    pub kind: String,
    /// Invocations that hit, and their executions that did.
    pub invocations: u64,
    pub executions: u64,
    /// A catch: the variable the assignment left NaN / infinite.
    pub variable: Option<String>,
    /// The breakpoint's line, or the assignment's.
    pub line: u32,
}

/// Where a traced stop is in the recorded run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceStop {
    /// The current record's index in the run (the entry record is 0).
    pub record: u32,
    /// Records the invocation ran.
    pub records: u32,
    /// Records recorded so far.
    pub recorded: u32,
    /// Whether the run goes on past the recorded records.
    pub truncated: bool,
    /// The selected frame (0: innermost).
    pub frame: u32,
    /// The watch whose value changed, where one stopped the move.
    pub watch: Option<WatchHit>,
}

/// A watched expression's change.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WatchHit {
    pub expr: String,
    /// `None`: no value (not in scope or not reached).
    pub old: Option<TracedValue>,
    pub new: Option<TracedValue>,
}

/// A value the trace holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TracedValue {
    /// Its GLSL type.
    pub ty: String,
    /// The components in order (undefined ones too: see `undefined`).
    pub value: Vec<f64>,
    /// Indices into `value` of the components not written yet.
    pub undefined: Vec<u32>,
    /// Written through a dynamic index: which parts were is not known.
    pub written_unknown: bool,
    /// Its parts (path, type, components) where it has more than one.
    pub parts: Vec<(String, String, u32)>,
}

impl TracedValue {
    /// Whether no component was written.
    pub fn wholly_undefined(&self) -> bool {
        !self.value.is_empty() && self.undefined.len() == self.value.len()
    }
}

/// A local or argument (`info locals`, `info args`, `backtrace`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Local {
    pub name: String,
    /// From a trace (the type and parts also for a summary).
    pub value: TracedValue,
    /// `info locals` without a focus: over every invocation.
    pub summary: Option<Summary>,
    /// A summary of a variable some invocations may read unwritten.
    pub maybe_undefined: bool,
}

/// A frame of the shader call stack (`backtrace`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Frame {
    /// 0: innermost.
    pub level: u32,
    pub function: String,
    /// The frame's current step: the call site for callers.
    pub line: u32,
    pub column: u32,
    pub args: Vec<Local>,
    /// The user's file and file line, where the shader maps to one.
    pub source: Option<(String, u32)>,
}

/// A `print` summary over every invocation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    pub count: u64,
    pub min: Vec<f64>,
    pub max: Vec<f64>,
    pub nan: u64,
    pub inf: u64,
    pub total: u64,
    pub discarded: u64,
    pub undefined: u64,
}

/// A row of the table of first vertices of a summary `print`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TableRow {
    pub vertex: u32,
    pub reached: bool,
    pub value: Vec<f64>,
    pub undefined: Vec<u32>,
}

/// A vertex a geometry primitive emitted, with the value it carried.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EmittedVertex {
    pub emit: u32,
    pub invocation: u32,
    pub vertex: u32,
    pub reached: bool,
    pub value: Vec<f64>,
}

/// A part of a value probed in parts (a matrix column, a struct field).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ValuePart {
    pub path: String,
    pub ty: String,
    pub components: u32,
}

/// What `print` answers (`PrintReply` on the wire).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Printed {
    pub expr: String,
    /// The GLSL type name.
    pub ty: String,
    pub value: Vec<f64>,
    pub reached: bool,
    pub at: Option<Invocation>,
    pub summary: Option<Summary>,
    pub timing: Option<Timing>,
    pub emitted: Vec<EmittedVertex>,
    pub table: Vec<TableRow>,
    pub parts: Vec<ValuePart>,
    pub discarded: bool,
    pub undefined: Vec<u32>,
    pub written_unknown: Vec<String>,
}

/// What `dump` answers: the file and what it shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dumped {
    pub width: u32,
    pub height: u32,
    pub ty: String,
    pub data: Vec<u8>,
    pub reached: u64,
    pub undefined: u64,
    pub mapped_min: Vec<f64>,
    pub mapped_max: Vec<f64>,
    pub legend_width: u32,
    pub written_unknown: Vec<String>,
}

/// A side of a branch (`true`, `case 3`) and how many invocations take it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlowSide {
    pub label: String,
    pub count: u64,
}

/// One iteration of a loop: how many evaluate its condition, how many stay in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowIteration {
    pub iteration: u32,
    pub evaluated: u64,
    pub entered: u64,
}

/// What `info flow` answers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Flow {
    /// "branch", "switch" or "loop".
    pub kind: String,
    pub line: u32,
    pub condition: String,
    pub reached: u64,
    pub sides: Vec<FlowSide>,
    pub iterations: Vec<FlowIteration>,
    pub chart_png: Vec<u8>,
}

/// A line of a source listing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceLine {
    pub line: u32,
    pub text: String,
    pub current: bool,
    pub breakpoint: bool,
    /// The user's file line (0: the line is not from a mapped file).
    pub file_line: u32,
}
