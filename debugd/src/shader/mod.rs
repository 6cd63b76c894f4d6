//! Shader-level debugging at one draw stop: the step model of the shader,
//! the current dynamic position, shader breakpoints, and probes (one
//! instrumented replay of the draw each) cached per (position, expression).
//!
//! The probe cycle is here end to end: instrument the shader for a
//! position and expression, send the step through a [`Link`] (the
//! preload's is [`ShmLink`]), cache the result, and read steps, values and
//! flow out of it. Nothing here knows the session, and nothing but
//! [`shm_link`] (and [`readback`]'s decoding of what the preload wrote)
//! knows the shared memory.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use glsl_instrument::{
    ConditionKind, InstrumentError, Instrumented, Position, Probe, Semantics, ShaderModel, StepId,
    StepKind, StepMode,
};

use crate::error::{Error, Result};
use crate::program::StageSource;

/// Most steps `continue` takes before giving up.
pub const MAX_CONTINUE_STEPS: usize = 10_000;
/// Most loop iterations `info flow` counts.
const MAX_FLOW_ITERATIONS: u32 = 1024;
/// Most rounds of "no candidate reached: ask again from the last one".
const MAX_UNREACHED_ROUNDS: usize = 64;
/// How many lines past the one asked for a breakpoint looks for a line
/// with a step.
const BREAKPOINT_SEARCH_LINES: u32 = 50;

mod dprintf;
mod files;
mod generated;
mod hits;
mod link;
mod locals_summary;
mod logpoint;
mod print;
mod probe_result;
mod readback;
pub mod reply;
mod sampled;
mod shm_link;
mod sources;
#[cfg(test)]
mod tests;
pub mod trace;
mod traced;

pub use dprintf::{
    DEFAULT_LIMIT as DPRINTF_LIMIT, Message as DprintfMessage, Printed as DprintfPrinted,
};
pub use files::{FileMap, UserFile};
use generated::{Generated, Generator};
pub use hits::{BreakExtras, Catches};
pub use link::{Link, Reports, StepRequest, TraceAsk, TraceData};
pub use print::FocusOn;
use probe_result::ProbedPart;
pub use probe_result::{Cell, Focus, ProbeResult, ProbedValue};
pub use readback::{Held, HeldRefs, ReadMode, Reply, held};
use reply::{Flow, FlowIteration, FlowSide, Invocation, ShaderStop, SourceLine, Timing};
pub use sampled::Sampled;
pub use shm_link::ShmLink;
pub use sources::{other_stages, stage_model};
use traced::TraceState;
pub use traced::{Direction, Until};

/// What a probe is cached by: the position, the expression (none: the
/// coverage alone), whether it was taken at the end of main, whether
/// it is the expression's written probe, and what it holds (a point or
/// summary result is never taken for a whole one; a whole one serves all).
type ProbeKey = (Position, Option<String>, bool, bool, ReadMode);

/// The memory the probe results of one shader debug keep at most: a 1080p
/// probe of a vec4 holds 35 MB, and a session steps through hundreds.
const PROBE_CACHE_BYTES: usize = 1 << 30;

/// Probe results, the least recently used dropped beyond a byte budget.
struct ProbeCache {
    entries: HashMap<ProbeKey, (Arc<ProbeResult>, u64)>,
    /// Use counter: an entry's is its last use.
    tick: u64,
    bytes: usize,
    budget: usize,
}

impl ProbeCache {
    fn new(budget: usize) -> ProbeCache {
        ProbeCache {
            entries: HashMap::new(),
            tick: 0,
            bytes: 0,
            budget,
        }
    }

    fn get(&mut self, key: &ProbeKey) -> Option<Arc<ProbeResult>> {
        self.tick += 1;
        let (r, used) = self.entries.get_mut(key)?;
        *used = self.tick;
        Some(r.clone())
    }

    /// Without counting a use.
    fn peek(&self, key: &ProbeKey) -> Option<&Arc<ProbeResult>> {
        self.entries.get(key).map(|(r, _)| r)
    }

    /// Add `r`, then drop the least recently used results (never `keep`)
    /// until the cache is within its budget.
    fn insert(&mut self, key: ProbeKey, r: Arc<ProbeResult>, keep: &ProbeKey) {
        self.tick += 1;
        self.bytes += r.heap_bytes();
        if let Some((old, _)) = self.entries.insert(key, (r, self.tick)) {
            self.bytes -= old.heap_bytes();
        }
        while self.bytes > self.budget {
            let oldest = self
                .entries
                .iter()
                .filter(|(k, _)| *k != keep)
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| k.clone());
            let Some((old, _)) = oldest.and_then(|k| self.entries.remove(&k)) else {
                break;
            };
            self.bytes -= old.heap_bytes();
        }
    }
}

/// The key a result is cached under: what it holds.
fn held_key(r: &ProbeResult, mode: &ReadMode) -> ReadMode {
    match r.held {
        Held::All => ReadMode::All,
        _ => *mode,
    }
}

/// How many value components a probe of `expr` at `step` reads back: the
/// type's own where the type checker knows a scalar or vector type, else
/// all four of the debug output.
fn value_components(model: &ShaderModel, step: StepId, expr: &str) -> u32 {
    let Some(ty) = model.expression_type(step, expr).ok().flatten() else {
        return 4;
    };
    match ty.as_str() {
        "float" | "int" | "uint" | "bool" => return 1,
        // Two words per double.
        "double" => return 2,
        "dvec2" => return 4,
        _ => {}
    }
    let (base, n) = ty.split_at(ty.len().saturating_sub(1));
    match (base, n.parse::<u32>()) {
        ("vec" | "ivec" | "uvec" | "bvec", Ok(n @ 2..=4)) => n,
        _ => 4,
    }
}

/// A replay of a generated shader (see [`ShaderDebug::replay_generated`]).
struct GeneratedReplay<'a> {
    shader: &'a Instrumented,
    position: &'a Position,
    path: &'a [u32],
    components: u32,
    readback: ReadMode,
    trace: Option<TraceAsk<'a>>,
    /// The time taken to generate the shader.
    instrumented: std::time::Duration,
}

/// How a fragment step treats the app's depth and stencil buffers and its
/// depth, stencil and alpha tests (`shm::BUFFER_*`, `shm::TEST_OFF`).
/// Blending never applies: the debug outputs are written unblended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FragmentOptions {
    pub depth: u32,
    pub stencil: u32,
    pub alpha_test_off: bool,
}

/// A `debug STAGE` request: the stage and what fragment steps do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DebugRequest {
    pub stage: glsl_instrument::Stage,
    pub fragment_options: FragmentOptions,
}

/// What a shader debug starts from: the debugged stage's model and what
/// every replay of the stopped draw needs besides.
pub struct Target {
    pub model: ShaderModel,
    /// Serial of the GL stop.
    pub stop_serial: u64,
    /// The program's other stages ([`other_stages`]).
    pub others: Vec<StageSource>,
    pub fragment_options: FragmentOptions,
    /// A vertex shader at a non-indexed draw (see [`ShaderDebug::vertex_buffer`]).
    pub vertex_buffer: bool,
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
    others: Vec<StageSource>,
    /// What fragment steps do with the depth, stencil and alpha tests.
    fragment_options: FragmentOptions,
    /// The invocation steps follow (`focus`), as named by the user.
    pub focus: Option<(Focus, Invocation)>,
    /// A vertex shader at a non-indexed draw: probes write storage blocks
    /// at each vertex's place in the draw, without transform feedback
    /// (cleared for good when the driver refuses such a probe).
    pub vertex_buffer: bool,
    /// The cost of the probes run since the last [`ShaderDebug::take_timing`].
    timing: Timing,
    cache: ProbeCache,
    /// The debug shaders generated so far (`generated.rs`).
    generated: Generated,
    /// The focused invocation's recorded run (`traced.rs`).
    traced: TraceState,
    /// Shader breakpoints' conditions, ignore counts, hits (`hits.rs`).
    break_extras: std::collections::BTreeMap<u32, BreakExtras>,
    catches: Catches,
    /// What the last conditional stop hit.
    hit_stop: Option<reply::HitStop>,
    /// The GL shader object of the stage, and where it is in a user's file (`files.rs`).
    shader_object: u32,
    file_map: Option<FileMap>,
}

fn side(label: &str, count: u64) -> FlowSide {
    FlowSide {
        label: label.into(),
        count,
    }
}

/// A written probe, or the names gldbg cannot tell (no probe).
fn split(
    w: std::result::Result<Option<Arc<ProbeResult>>, Vec<String>>,
) -> (Option<Arc<ProbeResult>>, Vec<String>) {
    match w {
        Ok(w) => (w, Vec::new()),
        Err(names) => (None, names),
    }
}

fn instrument_error(e: InstrumentError) -> Error {
    match e {
        InstrumentError::BadExpression { .. } => Error::InvalidArgument(e.to_string()),
        InstrumentError::NoSuchStep(_) => Error::Internal(e.to_string()),
        InstrumentError::Unsupported(_) => Error::Unimplemented(e.to_string()),
        InstrumentError::WrittenUnknown(_) => Error::Internal(e.to_string()),
    }
}

impl ShaderDebug {
    /// Start at the entry of `main`; probes the entry's coverage.
    pub fn start(target: Target, link: &mut dyn Link) -> Result<ShaderDebug> {
        let Target {
            model,
            stop_serial,
            others,
            fragment_options,
            vertex_buffer,
        } = target;
        let pos = model.entry();
        let mut d = ShaderDebug {
            model,
            stop_serial,
            pos: pos.clone(),
            reached: 0,
            finished: false,
            breakpoints: BTreeSet::new(),
            breakpoint_hit: 0,
            others,
            fragment_options,
            focus: None,
            vertex_buffer,
            timing: Timing::default(),
            cache: ProbeCache::new(PROBE_CACHE_BYTES),
            generated: Generated::default(),
            traced: TraceState::default(),
            break_extras: Default::default(),
            catches: Catches::default(),
            hit_stop: None,
            shader_object: 0,
            file_map: None,
        };
        d.reached = d.probe(&pos, None, link)?.reached();
        Ok(d)
    }

    /// Send `probe`'s instrumented shader through `link`, at loop `path`.
    fn replay(
        &self,
        link: &mut dyn Link,
        probe: &Probe,
        shader: &Instrumented,
        path: &[u32],
        components: u32,
        readback: &ReadMode,
    ) -> Result<ProbeResult> {
        link.step(&StepRequest {
            stage: self.model.stage(),
            position: probe.position,
            expr: probe.expr,
            shader,
            path,
            components,
            readback: *readback,
            others: &self.others,
            fragment_options: self.fragment_options,
            trace: None,
        })
    }

    /// One probe, from the cache when the same (position, expression) was run before.
    pub fn probe(
        &mut self,
        pos: &Position,
        expr: Option<&str>,
        link: &mut dyn Link,
    ) -> Result<Arc<ProbeResult>> {
        self.probe_as(pos, expr, &ReadMode::All, link)
    }

    /// [`ShaderDebug::probe`] reading back as `mode` asks (a whole result
    /// cached serves it).
    pub fn probe_as(
        &mut self,
        pos: &Position,
        expr: Option<&str>,
        mode: &ReadMode,
        link: &mut dyn Link,
    ) -> Result<Arc<ProbeResult>> {
        // Once stepping has finished, values are those at the end of main.
        let at_end = self.finished && expr.is_some();
        self.probe_at(pos, expr, at_end, mode, link)
    }

    /// Once stepping has finished: which invocations reached the end of
    /// `main` (a `return` in it or its last statement); `None` before.
    pub fn end_coverage(&mut self, link: &mut dyn Link) -> Result<Option<Arc<ProbeResult>>> {
        if !self.finished {
            return Ok(None);
        }
        let pos = self.pos.clone();
        self.probe_at(&pos, None, true, &ReadMode::All, link)
            .map(Some)
    }

    /// The written probe of `expr` (`ShaderModel::instrument_written`):
    /// per invocation whether the outputs it reads were written yet;
    /// `None` when it reads none the probe tracks; `Err` with the names
    /// whose writes gldbg cannot tell.
    fn probe_written(
        &mut self,
        pos: &Position,
        expr: &str,
        mode: &ReadMode,
        link: &mut dyn Link,
    ) -> Result<std::result::Result<Option<Arc<ProbeResult>>, Vec<String>>> {
        let at_end = self.finished;
        let key = (
            pos.clone(),
            Some(expr.to_string()),
            at_end,
            true,
            ReadMode::All,
        );
        if let Some(r) = self.cache.get(&key) {
            return Ok(Ok(Some(r)));
        }
        let key = (key.0, key.1, at_end, true, *mode);
        if let Some(r) = self.cache.get(&key) {
            return Ok(Ok(Some(r)));
        }
        let probe = Probe {
            position: pos,
            expr: Some(expr),
            semantics: Semantics::ReportDiscarded,
        };
        let model = &self.model;
        let made = self
            .generated
            .get_or((Generator::Written, pos, Some(expr), at_end), || {
                model.instrument_written(&probe, at_end)
            });
        let inst = match made {
            Ok(Some(inst)) => inst,
            Ok(None) => return Ok(Ok(None)),
            Err(InstrumentError::WrittenUnknown(names)) => return Ok(Err(names)),
            Err(e) => return Err(instrument_error(e)),
        };
        let path = if at_end { &[][..] } else { &pos.iterations[..] };
        let r = Arc::new(self.replay(link, &probe, &inst, path, 4, mode)?);
        let key = (key.0, key.1, at_end, true, held_key(&r, mode));
        self.cache.insert(key, r.clone(), &self.current_key());
        Ok(Ok(Some(r)))
    }

    /// [`ShaderDebug::probe`], at the end of `main` or not.
    fn probe_at(
        &mut self,
        pos: &Position,
        expr: Option<&str>,
        at_end: bool,
        mode: &ReadMode,
        link: &mut dyn Link,
    ) -> Result<Arc<ProbeResult>> {
        let key = (
            pos.clone(),
            expr.map(str::to_string),
            at_end,
            false,
            ReadMode::All,
        );
        if let Some(r) = self.cache.get(&key) {
            return Ok(r);
        }
        let key = (key.0, key.1, at_end, false, *mode);
        if let Some(r) = self.cache.get(&key) {
            return Ok(r);
        }
        let t0 = std::time::Instant::now();
        let probe = Probe {
            position: pos,
            expr,
            // The debugger wants the values of fragments discarded later too.
            semantics: Semantics::ReportDiscarded,
        };
        let path = if at_end { &[][..] } else { &pos.iterations[..] };
        let components = expr.map_or(0, |e| value_components(&self.model, pos.step, e));
        let mut instrumented = std::time::Duration::ZERO;
        let mut result = None;
        let mut buffer_failed = false;
        if self.vertex_buffer {
            let model = &self.model;
            let made = self
                .generated
                .get_or((Generator::VertexBuffer, pos, expr, at_end), || {
                    model.instrument_vertex_buffer(&probe, at_end).map(Some)
                });
            match made.map(|i| i.expect("made")) {
                Ok(inst) => {
                    instrumented = t0.elapsed();
                    match self.replay(link, &probe, &inst, path, components, mode) {
                        Ok(r) => result = Some(r),
                        Err(Error::InvalidArgument(e)) => return Err(Error::InvalidArgument(e)),
                        Err(_) => buffer_failed = true,
                    }
                }
                Err(InstrumentError::Unsupported(_)) => self.vertex_buffer = false,
                Err(e) => return Err(instrument_error(e)),
            }
        }
        let r = match result {
            Some(r) => Arc::new(r),
            None => {
                let t1 = std::time::Instant::now();
                let model = &self.model;
                let generator = match at_end {
                    true => Generator::EndOfMain,
                    false => Generator::Value,
                };
                let inst = self
                    .generated
                    .get_or((generator, pos, expr, at_end), || {
                        match at_end {
                            true => model.instrument_end_of_main(&probe),
                            false => model.instrument(&probe),
                        }
                        .map(Some)
                    })
                    .map_err(instrument_error)?
                    .expect("made");
                instrumented += t1.elapsed();
                let r = Arc::new(self.replay(link, &probe, &inst, path, components, mode)?);
                // Transform feedback took what storage blocks could not
                // (the driver has none in vertex shaders): it from now on.
                // Where it failed too, the expression was at fault.
                if buffer_failed {
                    self.vertex_buffer = false;
                }
                r
            }
        };
        self.count_probe(&r.timing, instrumented, t0);
        // The current position's coverage stays: `stop` reads it for the focus.
        let key = (key.0, key.1, at_end, false, held_key(&r, mode));
        self.cache.insert(key, r.clone(), &self.current_key());
        Ok(r)
    }

    /// Add one replay's cost (`instrumented`: generating its shader; `t0`:
    /// when the probe began) to the command's timing.
    fn count_probe(
        &mut self,
        done: &Timing,
        instrumented: std::time::Duration,
        t0: std::time::Instant,
    ) {
        let t = &mut self.timing;
        t.probes += 1;
        t.cached_programs += done.cached_programs;
        t.instrument_ns += instrumented.as_nanos() as u64;
        t.build_ns += done.build_ns;
        t.replay_ns += done.replay_ns;
        t.readback_ns += done.readback_ns;
        t.readback_bytes += done.readback_bytes;
        t.total_ns += t0.elapsed().as_nanos() as u64;
    }

    /// One replay of a generated shader that is not a probe of an
    /// expression (a trace, hit, dprintf or summary shader): at its
    /// position and loop path, reading back as asked, with the block its
    /// `trace` names; its cost counted (the block's words as read back).
    fn replay_generated(
        &mut self,
        request: GeneratedReplay<'_>,
        link: &mut dyn Link,
    ) -> Result<ProbeResult> {
        let t0 = std::time::Instant::now();
        let r = link.step(&StepRequest {
            stage: self.model.stage(),
            position: request.position,
            expr: None,
            shader: request.shader,
            path: request.path,
            components: request.components,
            readback: request.readback,
            others: &self.others,
            fragment_options: self.fragment_options,
            trace: request.trace,
        })?;
        let mut done = r.timing;
        done.readback_bytes += r.trace.as_ref().map_or(0, |d| 4 * d.words.len() as u64);
        self.count_probe(&done, request.instrumented, t0);
        Ok(r)
    }

    /// The cache key of the current position's coverage.
    fn current_key(&self) -> ProbeKey {
        (self.pos.clone(), None, false, false, ReadMode::All)
    }

    /// The value of `expr` at `pos` for `print`: probed whole where the
    /// debug output holds it, else in parts (`ShaderModel::value_layout`).
    pub fn probe_value(
        &mut self,
        pos: &Position,
        expr: &str,
        link: &mut dyn Link,
    ) -> Result<ProbedValue> {
        self.probe_value_as(pos, expr, &ReadMode::All, link)
    }

    /// [`ShaderDebug::probe_value`] reading back as `mode` asks: a point
    /// for every part; a summary only of a value in one part without a
    /// written probe (`ProbedValue::stats` needs every invocation's
    /// undefined components), everything otherwise.
    pub fn probe_value_as(
        &mut self,
        pos: &Position,
        expr: &str,
        mode: &ReadMode,
        link: &mut dyn Link,
    ) -> Result<ProbedValue> {
        let whole = match mode {
            ReadMode::Summary { .. } => ReadMode::All,
            m => *m,
        };
        // Names resolve where the value is taken: at the end of main once
        // stepping has finished.
        let step = match self.finished {
            true => self.model.last_step_of_main().unwrap_or(pos.step),
            false => pos.step,
        };
        let layout = self
            .model
            .value_layout(step, expr)
            .map_err(instrument_error)?;
        let Some(layout) = layout.filter(|l| l.parts.iter().any(|p| !p.path.is_empty())) else {
            let (result, (written, unknown)) = if whole == *mode {
                let result = self.probe_as(pos, Some(expr), mode, link)?;
                (result, split(self.probe_written(pos, expr, mode, link)?))
            } else {
                // A summary: whether there is a written probe decides first.
                let (written, unknown) = split(self.probe_written(pos, expr, &whole, link)?);
                let mode = if written.is_some() { &whole } else { mode };
                (
                    self.probe_as(pos, Some(expr), mode, link)?,
                    (written, unknown),
                )
            };
            let ty = result.value_type().1;
            return Ok(ProbedValue {
                ty: ty.clone(),
                parts: vec![ProbedPart {
                    path: String::new(),
                    ty,
                    result,
                    written,
                    unknown,
                }],
            });
        };
        let mut parts = Vec::with_capacity(layout.parts.len());
        for part in layout.parts {
            let (written, unknown) = split(self.probe_written(pos, &part.expr, &whole, link)?);
            parts.push(ProbedPart {
                result: self.probe_as(pos, Some(&part.expr), &whole, link)?,
                written,
                unknown,
                path: part.path,
                ty: part.ty,
            });
        }
        Ok(ProbedValue {
            ty: layout.ty,
            parts,
        })
    }

    /// The current stop with the cost of the probes that led to it.
    pub fn stop_with_timing(&mut self) -> ShaderStop {
        let mut s = self.stop();
        s.timing = self.take_timing();
        // A stop answered from the trace says it ran no probe.
        if s.trace.is_some() && s.timing.is_none() {
            s.timing = Some(Timing::default());
        }
        s
    }

    /// The cost of the probes run since the last call (for a command's reply).
    pub fn take_timing(&mut self) -> Option<Timing> {
        let t = std::mem::take(&mut self.timing);
        (t.probes > 0).then_some(t)
    }

    /// Move one step: the first successor candidate some invocation reaches
    /// (with a focus: that the focused invocation reaches, so steps follow
    /// its path); if none is reached, ask again from the last candidate
    /// (bounded). Returns false when the shader ended.
    pub fn step_once(&mut self, mode: StepMode, link: &mut dyn Link) -> Result<bool> {
        self.clear_stop_reasons();
        if self.traced_now(link)? {
            if self.finished {
                return Ok(false);
            }
            let until = match mode {
                StepMode::Into => Until::Any,
                StepMode::Over => Until::Over,
                StepMode::Out => Until::Out,
            };
            return self.trace_move(Direction::Forward, until, link);
        }
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
                let r = self.probe(c, None, link)?;
                let taken = match &self.focus {
                    Some((focus, _)) => focus.reached(&r),
                    None => r.reached() > 0,
                };
                if taken {
                    self.pos = c.clone();
                    self.reached = r.reached();
                    return Ok(true);
                }
            }
            cands = self.model.successors(&last, mode);
        }
        self.finished = true;
        // The end of main is reached by the invocations that ran to its
        // last statement or returned from it (not the discarded ones).
        if let Some(end) = self.end_coverage(link)? {
            self.reached = end.reached();
        }
        Ok(false)
    }

    /// Step into until a position on a breakpoint line (or the end).
    pub fn continue_to_breakpoint(&mut self, link: &mut dyn Link) -> Result<()> {
        self.hit_stop = None;
        self.breakpoint_hit = 0;
        self.traced.watch_hit = None;
        if self.has_conditions() {
            if self.continue_conditional(link)? {
                return Ok(());
            }
            if self.traced.trace.is_some() {
                // Nothing hit in the focused invocation's run: to its end.
                let n = self.traced.trace.as_ref().map_or(0, |t| t.events.len());
                self.go(n);
                return Ok(());
            }
        }
        if self.traced_now(link)? {
            if !self.finished {
                self.trace_move(Direction::Forward, Until::Breakpoint, link)?;
            }
            return Ok(());
        }
        if !self.traced.watches.is_empty() {
            return Err(Error::FailedPrecondition(
                "watch needs a trace of the focused invocation, which this stage cannot record here"
                    .into(),
            ));
        }
        for _ in 0..MAX_CONTINUE_STEPS {
            if !self.step_once(StepMode::Into, link)? {
                return Ok(());
            }
            let line = self.model.driver_line(self.model.step(self.pos.step).line);
            if self.is_plain_breakpoint(line) {
                self.stopped_at_breakpoint(line);
                return Ok(());
            }
        }
        Err(Error::FailedPrecondition(format!(
            "no shader breakpoint reached within {MAX_CONTINUE_STEPS} steps; stopped at line {}",
            self.model.driver_line(self.model.step(self.pos.step).line)
        )))
    }

    /// Set a breakpoint at `line` (the driver's number, after `#line` and
    /// `#include`), or at the next line (within [`BREAKPOINT_SEARCH_LINES`]) that has a step.
    pub fn add_breakpoint(&mut self, line: u32) -> Result<u32> {
        let last = self.last_line();
        if line == 0 || line > last {
            return Err(crate::error::out_of_range(
                "line",
                line,
                &format!("1..={last}, the shader's lines"),
            ));
        }
        for l in line..=line.saturating_add(BREAKPOINT_SEARCH_LINES).min(last) {
            let has_step = self
                .model
                .lines_numbered(l)
                .into_iter()
                .any(|t| !self.model.steps_on_line(t).is_empty());
            if has_step {
                self.breakpoints.insert(l);
                return Ok(l);
            }
        }
        Err(Error::InvalidArgument(format!(
            "no shader step on or after line {line}"
        )))
    }

    pub fn stop(&self) -> ShaderStop {
        // A caller's frame shows its call site.
        let frame = self.frame_position();
        let pos = frame.as_ref().unwrap_or(&self.pos);
        let st = self.model.step(pos.step);
        let mut calls = vec!["main".to_string()];
        for (sid, idx) in &pos.calls {
            if let Some(name) = self.model.step(*sid).calls.get(*idx as usize) {
                calls.push(name.clone());
            }
        }
        ShaderStop {
            stage: self.model.stage().name().to_string(),
            step: pos.step.0,
            line: self.model.driver_line(st.line),
            column: st.column,
            function: st.function.clone(),
            text: st.text.clone(),
            kind: st.kind.name().to_string(),
            iterations: pos.iterations.clone(),
            calls,
            reached: self.reached,
            finished: self.finished,
            breakpoint_line: self.breakpoint_hit,
            focus: self.focus.as_ref().map(|(_, at)| *at),
            focus_reached: self.traced.trace.is_some()
                || self.focus.as_ref().is_some_and(|(focus, _)| {
                    self.cache
                        .peek(&self.current_key())
                        .is_some_and(|r| focus.reached(r))
                }),
            timing: None,
            trace: self.trace_stop(),
            hits: self.hit_stop.clone(),
            source: self.file_of_source_line(st.line),
            shader: self.shader_object,
        }
    }

    /// `info flow` at the current step. A branch (`if`): how many of the
    /// invocations here see the condition true and false; a `switch`: how
    /// many take each value; a loop condition: iteration by iteration (the
    /// current one's enclosing position, from iteration 0), how many
    /// evaluate the condition and how many stay in, until none is left.
    /// Each count comes from one probe of the condition's value.
    pub fn flow(&mut self, link: &mut dyn Link) -> Result<Flow> {
        if self.finished {
            return Err(Error::FailedPrecondition(
                "the shader has finished: there is no current step (a new `debug`, or with a \
                 focus `reverse-step`, goes back)"
                    .into(),
            ));
        }
        let st = self.model.step(self.pos.step).clone();
        let cond = st.condition.as_ref();
        let (kind, cond) = match (st.kind, cond.map(|c| (c.kind, c.text.as_str()))) {
            (StepKind::IfCondition, Some((ConditionKind::Switch, c))) => ("switch", c),
            (StepKind::IfCondition, Some((_, c))) => ("branch", c),
            (StepKind::LoopCondition, Some((_, c))) => ("loop", c),
            _ => {
                return Err(Error::FailedPrecondition(format!(
                    "info flow needs a branch or loop condition; the current step (line {}) is a {}: `{}`",
                    self.model.driver_line(st.line),
                    st.kind.name(),
                    st.text
                )));
            }
        };
        let mut info = Flow {
            kind: kind.into(),
            line: self.model.driver_line(st.line),
            condition: cond.to_string(),
            ..Default::default()
        };
        let pos = self.pos.clone();
        match kind {
            "branch" => {
                let values = self.condition_values(&pos, &format!("bool({cond})"), link)?;
                let taken = values.iter().filter(|v| **v != 0.0).count() as u64;
                info.reached = values.len() as u64;
                info.sides = vec![side("true", taken), side("false", info.reached - taken)];
            }
            "switch" => {
                let values = self.condition_values(&pos, &format!("int({cond})"), link)?;
                let mut counts = std::collections::BTreeMap::<i64, u64>::new();
                for v in &values {
                    *counts.entry(*v as i64).or_default() += 1;
                }
                info.reached = values.len() as u64;
                info.sides = counts
                    .into_iter()
                    .map(|(v, n)| side(&format!("case {v}"), n))
                    .collect();
            }
            _ => {
                let mut at = pos.clone();
                for n in 0..MAX_FLOW_ITERATIONS {
                    if let Some(last) = at.iterations.last_mut() {
                        *last = n;
                    }
                    let values = self.condition_values(&at, &format!("bool({cond})"), link)?;
                    if values.is_empty() {
                        break;
                    }
                    info.iterations.push(FlowIteration {
                        iteration: n,
                        evaluated: values.len() as u64,
                        entered: values.iter().filter(|v| **v != 0.0).count() as u64,
                    });
                }
                info.reached = info.iterations.first().map_or(0, |i| i.evaluated);
            }
        }
        let bars: Vec<(u64, u64)> = if kind == "loop" {
            info.iterations
                .iter()
                .map(|i| (i.evaluated, i.entered))
                .collect()
        } else {
            info.sides.iter().map(|s| (s.count, s.count)).collect()
        };
        info.chart_png = crate::image::bar_chart(&bars).map_err(Error::Internal)?;
        Ok(info)
    }

    /// The first component of `expr` at every invocation that reaches `pos`.
    fn condition_values(
        &mut self,
        pos: &Position,
        expr: &str,
        link: &mut dyn Link,
    ) -> Result<Vec<f64>> {
        let res = self.probe(pos, Some(expr), link)?;
        Ok((0..res.coverage.len())
            .filter_map(|i| res.value_at(i))
            .map(|v| v[0])
            .collect())
    }

    /// The highest line number the driver gives the shader's lines.
    fn last_line(&self) -> u32 {
        let lines = u32::try_from(self.model.source().lines().count()).unwrap_or(u32::MAX);
        (1..=lines)
            .map(|l| self.model.driver_line(l))
            .max()
            .unwrap_or(0)
    }

    /// Source lines around `center` (0: the current step; else the
    /// driver's number, the last line so numbered), `context` lines (0: 5)
    /// each side, numbered as the driver numbers them (after `#line`,
    /// `#include`); any context is fine (it saturates), a centre past the
    /// last line is INVALID_ARGUMENT.
    pub fn listing(&self, center: u32, context: u32) -> Result<Vec<SourceLine>> {
        let cur = self.model.step(self.pos.step).line;
        let last = self.last_line();
        if center > last {
            return Err(crate::error::out_of_range(
                "line",
                center,
                &format!("1..={last}, the shader's lines, or 0 for the current one"),
            ));
        }
        let center = match center {
            0 => cur,
            n => self.model.lines_numbered(n).last().copied().unwrap_or(n),
        };
        let context = if context == 0 { 5 } else { context };
        let lines = self
            .model
            .source()
            .lines()
            .enumerate()
            .map(|(i, t)| (i as u32 + 1, t))
            .filter(|(n, _)| {
                n.saturating_add(context) >= center && *n <= center.saturating_add(context)
            })
            .map(|(n, t)| {
                let shown = self.model.driver_line(n);
                SourceLine {
                    line: shown,
                    text: t.to_string(),
                    current: n == cur && !self.finished,
                    breakpoint: self.breakpoints.contains(&shown),
                    file_line: self.file_of_source_line(n).map_or(0, |(_, l)| l),
                }
            })
            .collect();
        Ok(lines)
    }
}
