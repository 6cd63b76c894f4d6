//! The trace of one invocation (issue 14): a debug shader that, for the
//! focused invocation only, appends one record per executed step to a
//! storage buffer, each with the values of the variables in scope before
//! the step; every other invocation runs the app's code unchanged.
//!
//! The buffer is one std430 block named [`Trace::block`]:
//!
//! ```text
//! uint hits;     // invocations the focus predicate held for (atomicAdd)
//! uint records;  // records the traced invocation executed (written or not)
//! uint words;    // words of `data` written
//! uint full;     // 1 once a record did not fit (nothing written after it)
//! uint data[];   // the records; its capacity is the bound range's
//! ```
//!
//! Only the invocation whose `atomicAdd(hits, 1u)` returned 0 among those
//! the focus predicate holds for (evaluated first thing in `main`) writes.
//! Its `k`-th record (0-based, counted over the whole run) is written when
//! `k >= TraceSpec::start`, `k < start + max_records` and it fits in
//! `data`; once one is not written for either reason, `full` is set and
//! nothing more is written, but `records` goes on counting.
//!
//! A record is `[id, len, values...]`: `id` is a step id (before that step
//! runs), [`ENTRY_RECORD`] (first thing in `main`: the inputs, uniforms and
//! built-ins the shader reads) or [`END_RECORD`] | step id (at the end of
//! `main`: after its last statement, or at a `return` of `main`, that
//! step's id); `len` the number of value words that follow, always
//! [`RecordLayout::words`] of the id's layout. Values are each
//! [`TracedVar`]'s parts in order, each component one word (float bits,
//! int bits, uint, bool 0/1; a double two words, low then high).
//!
//! The daemon turns the records into dynamic positions with
//! [`crate::ShaderModel::successors`] (a record names only its step; the
//! call chain and loop iterations follow from the step sequence).

use std::collections::HashMap;

use crate::{InstrumentError, Instrumented, ShaderModel, StepId, ValueType};

/// Words before `data` in the trace block.
pub const TRACE_HEADER_WORDS: usize = 4;
/// Record id of the entry record.
pub const ENTRY_RECORD: u32 = 0xFFFF_FFFE;
/// Flag of an end-of-`main` record's id (the rest is a step id).
pub const END_RECORD: u32 = 0x8000_0000;

/// What to trace.
#[derive(Clone, Copy, Debug)]
pub struct TraceSpec<'a> {
    /// A GLSL `bool` expression, valid at the start of `main`, true for the
    /// invocation to trace (e.g. `all(equal(ivec2(gl_FragCoord.xy),
    /// ivec2(3, 4)))`, `gl_GlobalInvocationID == uvec3(1u, 0u, 0u)`). Where
    /// it holds for several, the first to claim the trace writes it.
    pub focus: &'a str,
    /// Records before this one are counted, not written (the next part of
    /// a trace that did not fit).
    pub start: u32,
    /// At most this many records are written (from `start` on); the first
    /// one past it sets `full`, as a record that does not fit does.
    pub max_records: u32,
}

/// A generated trace shader.
#[derive(Clone, Debug)]
pub struct Trace {
    /// The debug shader: an end-of-`main` coverage probe (no value), so
    /// every replay kind captures it as usual, plus the trace writes.
    pub shader: Instrumented,
    /// Name of the trace's storage block (prefix `gldbg_`).
    pub block: String,
    pub layout: TraceLayout,
}

/// How to read the records.
#[derive(Clone, Debug, Default)]
pub struct TraceLayout {
    /// By record id: every step of the shader, [`ENTRY_RECORD`], and one
    /// [`END_RECORD`] id per place `main` ends.
    pub records: HashMap<u32, RecordLayout>,
}

/// The values one record holds.
#[derive(Clone, Debug, Default)]
pub struct RecordLayout {
    /// The step (an end record: the `return` of `main`, or `main`'s last
    /// step for its end); `None` for the entry record.
    pub step: Option<StepId>,
    pub vars: Vec<TracedVar>,
    /// Value words after the record's two header words.
    pub words: u32,
    /// Step records: the variables the step declares (each undefined from
    /// then on unless also in `writes`).
    pub declares: Vec<String>,
    /// Step records: what the step may write (assignments, `++`/`--`,
    /// initialised declarations, `out`/`inout` arguments of any call).
    pub writes: Vec<TracedWrite>,
}

/// A write a step makes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TracedWrite {
    /// The variable written (the root of the assigned expression).
    pub name: String,
    /// The part written, as a constant path into the variable (`.x`,
    /// `.yz`, `[2]`, `[1].color`); `Some("")`: the whole variable;
    /// `None`: a part with a dynamic index (which one is not known).
    pub path: Option<String>,
}

/// What a traced variable is to the function the record is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarRole {
    /// A local variable of the function.
    Local,
    /// A parameter: `defined` false for an `out` parameter (undefined until
    /// written), true for `in` and `inout`.
    Param { defined: bool },
    /// A global the shader can write (an output, a built-in output, a
    /// global variable): `defined` where it has an initialiser.
    Global { defined: bool },
    /// An input, uniform or built-in input (entry record only).
    Input,
}

/// One variable of a record.
#[derive(Clone, Debug)]
pub struct TracedVar {
    pub name: String,
    /// Its GLSL type ("vec3", "float[4]", "Light").
    pub ty: String,
    pub role: VarRole,
    /// In component order (as [`crate::ValueLayout`]: one part with an
    /// empty path for a value up to a vec4).
    pub parts: Vec<TracedPart>,
}

/// One part of a traced variable.
#[derive(Clone, Debug)]
pub struct TracedPart {
    /// Path in the variable (`[1]`, `.color`, ``).
    pub path: String,
    pub ty: ValueType,
    /// Word offset of its first component in the record's values.
    pub offset: u32,
}

impl ShaderModel {
    /// The trace shader of this stage's shader for `spec` (see the module
    /// documentation). Errors: [`InstrumentError::Unsupported`] where the
    /// shader's GLSL cannot write a storage buffer (GL ES before 3.10, or
    /// GLSL before 1.40 without `GL_ARB_shader_storage_buffer_object`).
    pub fn instrument_trace(&self, spec: &TraceSpec<'_>) -> Result<Trace, InstrumentError> {
        generate::trace(self, spec)
    }
}

mod emit;
mod generate;
pub(crate) use generate::es_binding;
#[cfg(test)]
mod tests;
pub(crate) mod vars;
mod writes;
