//! One-replay "hit" shaders (issue 14): conditions evaluated in every
//! invocation at every execution of a line, NaN/Inf caught where an
//! assignment makes them, and dprintf messages. (Interface; the generator
//! is being written.)

use crate::{InstrumentError, Instrumented, ShaderModel, StepId, ValueType};

/// What a hit shader looks for.
#[derive(Clone, Copy, Debug)]
pub enum HitKind<'a> {
    /// Before each execution of one of `steps`, where `cond` holds (`None`: always).
    Condition {
        steps: &'a [StepId],
        cond: Option<&'a str>,
    },
    /// After each assignment that leaves a NaN (`nan`) or an infinity (`inf`).
    Catch { nan: bool, inf: bool },
}

/// A hit shader's request.
#[derive(Clone, Copy, Debug)]
pub struct HitSpec<'a> {
    pub kind: HitKind<'a>,
    /// Only hits at record index `after` or later are remembered (all are counted).
    pub after: u32,
    /// The first `skip` of those are passed over.
    pub skip: u32,
}

/// A dprintf shader.
#[derive(Clone, Debug)]
pub struct Dprintf {
    pub shader: Instrumented,
    pub block: String,
    pub args: Vec<ValueType>,
}

impl ShaderModel {
    /// The hit shader of `spec`: at the end of `main`, per invocation,
    /// `uvec4(first remembered hit's record index + 1 (0: none), hits,
    /// its step id, 0)`.
    pub fn instrument_hits(&self, spec: &HitSpec<'_>) -> Result<Instrumented, InstrumentError> {
        let _ = spec;
        Err(InstrumentError::Unsupported(
            "conditions over all invocations are not built yet".into(),
        ))
    }

    /// The dprintf shader of `args` at `steps`.
    pub fn instrument_dprintf(
        &self,
        steps: &[StepId],
        args: &[&str],
    ) -> Result<Dprintf, InstrumentError> {
        let _ = (steps, args);
        Err(InstrumentError::Unsupported(
            "dprintf is not built yet".into(),
        ))
    }
}
