//! The one way the shader debugger reaches the app: the link. A
//! [`StepRequest`] (an instrumented shader, the loop path it is probed at,
//! the program's other stages) goes out; a [`ProbeResult`] (per invocation:
//! coverage and value) comes back. [`super::shm_link::ShmLink`] sends it to
//! the preload; unit tests answer with results they build.

use glsl_instrument::{Instrumented, Position, Stage};

use super::{FragmentOptions, ProbeResult, ReadMode};
use crate::error::{Error, Result};
use crate::program::StageSource;

/// One replay of the stopped draw (or dispatch) with a debug shader.
#[derive(Clone, Copy, Debug)]
pub struct StepRequest<'a> {
    /// The debugged stage (the instrumented shader's).
    pub stage: Stage,
    /// The step probed. Only the unit tests' link reads it (to build its
    /// answer and check `path` and `shader`): the preload needs only
    /// `shader`, which has it built in.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) position: &'a Position,
    /// The expression probed; `None`: coverage only. Only the unit tests'
    /// link reads it, as `position`.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) expr: Option<&'a str>,
    pub shader: &'a Instrumented,
    /// The loop iterations the probe is taken at (outermost first).
    pub path: &'a [u32],
    /// How many of the value's components to read back (1..=4; 0:
    /// coverage only, for a step).
    pub components: u32,
    /// What to read back: every invocation, one, or a GPU summary (the
    /// result says what it holds: a link may read everything instead).
    pub readback: ReadMode,
    /// The program's other stages, compiled as they are.
    pub others: &'a [StageSource],
    /// What a fragment step does with depth, stencil and the alpha test.
    pub fragment_options: FragmentOptions,
    /// A trace shader's storage block to bind and read back (`None`: the
    /// shader writes no trace).
    pub trace: Option<TraceAsk<'a>>,
}

/// The trace buffer a step binds for a trace shader
/// (`glsl_instrument::Trace`).
#[derive(Clone, Copy, Debug)]
pub struct TraceAsk<'a> {
    /// The storage block's name in the debug shader.
    pub block: &'a str,
    /// Words of record data the buffer holds (after its header).
    pub capacity_words: u32,
    /// Zero the data too, not only the header (a block of atomics).
    pub zero_data: bool,
}

/// What a trace buffer held after the replay
/// (`glsl_instrument::TRACE_HEADER_WORDS` words of header, then records).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceData {
    /// Invocations the focus predicate held for.
    pub hits: u32,
    /// Records the traced invocation executed (written or not).
    pub records: u32,
    /// Whether a record did not fit (nothing was written after it).
    pub full: bool,
    /// The record words written.
    pub words: Vec<u32>,
}

/// Runs a debug step and reads back what it wrote.
pub trait Link {
    fn step(&mut self, request: &StepRequest<'_>) -> Result<ProbeResult>;
}

/// What a link tells the session on the side of a step.
pub trait Reports {
    /// The driver rejected a debug shader (`what`: "compile", "link of …"):
    /// keep its source and log for the user; returns the request's error.
    fn rejected_shader(&self, what: &str, stage: Stage, source: &str, log: &str) -> Error;
    /// Something the user should know (sent as a warning event).
    fn warn(&self, message: String);
}
