//! Shader-level debugging at one draw stop: the step model of the shader,
//! the current dynamic position, shader breakpoints, and probes (one
//! instrumented replay of the draw each) cached per (position, expression).
//!
//! The GL work of a probe is done by a [`ProbeRunner`] (the session sends
//! `CMD_FRAGMENT_STEP` to the stopped thread); everything here is logic.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use gldbg_proto::pb;
use glsl_instrument::{
    InstrumentError, Instrumented, Position, Probe, Semantics, ShaderModel, StepMode, decode_type,
};

use crate::error::{Error, Result};
use crate::image::Field;
use crate::program::StageSource;

/// Most steps `continue` takes before giving up.
pub const MAX_CONTINUE_STEPS: usize = 10_000;
/// Most rounds of "no candidate reached: ask again from the last one".
const MAX_UNREACHED_ROUNDS: usize = 64;

/// What one replay of the draw with a debug shader read back.
#[derive(Clone, Debug)]
pub struct ProbeResult {
    pub width: u32,
    pub height: u32,
    /// Layers stacked in `height` (compute: the z extent of the dispatch,
    /// each layer `height / layers` rows of y); 1 otherwise.
    pub layers: u32,
    /// RGBA32F per pixel, rows bottom-up.
    pub values: Vec<f32>,
    /// Coverage/type code per pixel (0: not reached).
    pub coverage: Vec<f32>,
}

impl ProbeResult {
    pub fn reached(&self) -> u64 {
        self.coverage
            .iter()
            .filter(|c| decode_type(**c).is_some())
            .count() as u64
    }

    /// Decode into a field of values; also the GLSL type name (of the first reached fragment).
    pub fn field(&self) -> (Field, String) {
        let n = (self.width * self.height) as usize;
        let mut ty_name = String::new();
        let mut comps = 1usize;
        let mut values = Vec::with_capacity(n);
        for i in 0..n {
            let cov = self.coverage.get(i).copied().unwrap_or(0.0);
            match decode_type(cov) {
                Some(ty) => {
                    if ty_name.is_empty() {
                        ty_name = ty.to_string();
                        comps = ty.components.clamp(1, 4) as usize;
                    }
                    let t =
                        [0, 1, 2, 3].map(|c| self.values.get(i * 4 + c).copied().unwrap_or(0.0));
                    let dec = ty.decode(t);
                    let mut v = [0f64; 4];
                    for (d, s) in v.iter_mut().zip(dec.iter()) {
                        *d = *s;
                    }
                    values.push(Some(v));
                }
                None => values.push(None),
            }
        }
        (
            Field {
                width: self.width,
                height: self.height,
                components: comps,
                values,
            },
            ty_name,
        )
    }
}

/// Runs a generated debug shader at the draw and reads back the result.
pub trait ProbeRunner {
    fn run(&mut self, inst: &Instrumented, path: &[u32]) -> Result<ProbeResult>;
}

/// The state of debugging one shader at one draw stop.
pub struct ShaderDebug {
    pub model: ShaderModel,
    /// Serial of the GL stop this belongs to.
    pub stop_serial: u64,
    pub pos: Position,
    pub reached: u64,
    pub finished: bool,
    pub breakpoints: BTreeSet<u32>,
    pub breakpoint_hit: u32,
    /// The program's other stages, passed unchanged to every probe.
    pub others: Vec<StageSource>,
    /// `DEPTH_STENCIL_COPY` or `DEPTH_STENCIL_CLEAR`.
    pub depth_stencil: u32,
    cache: HashMap<(Position, Option<String>), Arc<ProbeResult>>,
}

fn instrument_error(e: InstrumentError) -> Error {
    match e {
        InstrumentError::BadExpression { .. } => Error::InvalidArgument(e.to_string()),
        InstrumentError::NoSuchStep(_) => Error::Internal(e.to_string()),
        InstrumentError::Unsupported(_) => Error::Unimplemented(e.to_string()),
    }
}

impl ShaderDebug {
    /// Start at the entry of `main`; probes the entry's coverage.
    pub fn start(
        model: ShaderModel,
        stop_serial: u64,
        runner: &mut dyn ProbeRunner,
    ) -> Result<ShaderDebug> {
        let pos = model.entry();
        let mut d = ShaderDebug {
            model,
            stop_serial,
            pos: pos.clone(),
            reached: 0,
            finished: false,
            breakpoints: BTreeSet::new(),
            breakpoint_hit: 0,
            others: Vec::new(),
            depth_stencil: 0,
            cache: HashMap::new(),
        };
        d.reached = d.probe(&pos, None, runner)?.reached();
        Ok(d)
    }

    /// One probe, from the cache when the same (position, expression) was run before.
    pub fn probe(
        &mut self,
        pos: &Position,
        expr: Option<&str>,
        runner: &mut dyn ProbeRunner,
    ) -> Result<Arc<ProbeResult>> {
        let key = (pos.clone(), expr.map(str::to_string));
        if let Some(r) = self.cache.get(&key) {
            return Ok(r.clone());
        }
        let inst = self
            .model
            .instrument(&Probe {
                position: pos,
                expr,
                // The debugger wants the values of fragments discarded later too.
                semantics: Semantics::ReportDiscarded,
            })
            .map_err(instrument_error)?;
        let r = Arc::new(runner.run(&inst, &pos.iterations)?);
        self.cache.insert(key, r.clone());
        Ok(r)
    }

    /// Move one step: the first successor candidate some fragment reaches;
    /// if none is reached, ask again from the last candidate (bounded).
    /// Returns false when the shader ended.
    pub fn step_once(&mut self, mode: StepMode, runner: &mut dyn ProbeRunner) -> Result<bool> {
        if self.finished {
            return Ok(false);
        }
        self.breakpoint_hit = 0;
        let mut cands = self.model.successors(&self.pos, mode);
        for _ in 0..MAX_UNREACHED_ROUNDS {
            let Some(last) = cands.last().cloned() else {
                break;
            };
            for c in &cands {
                let n = self.probe(c, None, runner)?.reached();
                if n > 0 {
                    self.pos = c.clone();
                    self.reached = n;
                    return Ok(true);
                }
            }
            cands = self.model.successors(&last, mode);
        }
        self.finished = true;
        Ok(false)
    }

    /// Step into until a position on a breakpoint line (or the end).
    pub fn continue_to_breakpoint(&mut self, runner: &mut dyn ProbeRunner) -> Result<()> {
        for _ in 0..MAX_CONTINUE_STEPS {
            if !self.step_once(StepMode::Into, runner)? {
                return Ok(());
            }
            let line = self.model.step(self.pos.step).line;
            if self.breakpoints.contains(&line) {
                self.breakpoint_hit = line;
                return Ok(());
            }
        }
        Err(Error::FailedPrecondition(format!(
            "no shader breakpoint reached within {MAX_CONTINUE_STEPS} steps; stopped at line {}",
            self.model.step(self.pos.step).line
        )))
    }

    /// Set a breakpoint at `line`, or at the next line (within 50) that has a step.
    pub fn add_breakpoint(&mut self, line: u32) -> Result<u32> {
        let last = self.model.source().lines().count() as u32;
        for l in line..=(line + 50).min(last.max(line)) {
            if !self.model.steps_on_line(l).is_empty() {
                self.breakpoints.insert(l);
                return Ok(l);
            }
        }
        Err(Error::InvalidArgument(format!(
            "no shader step on or after line {line}"
        )))
    }

    pub fn stop(&self) -> pb::ShaderStop {
        let st = self.model.step(self.pos.step);
        let mut calls = vec!["main".to_string()];
        for (sid, idx) in &self.pos.calls {
            if let Some(name) = self.model.step(*sid).calls.get(*idx as usize) {
                calls.push(name.clone());
            }
        }
        pb::ShaderStop {
            stage: self.model.stage().name().to_string(),
            step: self.pos.step.0,
            line: st.line,
            column: st.column,
            function: st.function.clone(),
            text: st.text.clone(),
            kind: st.kind.name().to_string(),
            iterations: self.pos.iterations.clone(),
            calls,
            reached: self.reached,
            finished: self.finished,
            breakpoint_line: self.breakpoint_hit,
        }
    }

    /// Source lines around `center` (0: the current step), `context` each side.
    pub fn listing(&self, center: u32, context: u32) -> pb::SourceListing {
        let cur = self.model.step(self.pos.step).line;
        let center = if center == 0 { cur } else { center };
        let context = if context == 0 { 5 } else { context };
        let lines = self
            .model
            .source()
            .lines()
            .enumerate()
            .map(|(i, t)| (i as u32 + 1, t))
            .filter(|(n, _)| *n + context >= center && *n <= center + context)
            .map(|(n, t)| pb::SourceLine {
                line: n,
                text: t.to_string(),
                current: n == cur && !self.finished,
                breakpoint: self.breakpoints.contains(&n),
            })
            .collect();
        pb::SourceListing { lines }
    }
}
