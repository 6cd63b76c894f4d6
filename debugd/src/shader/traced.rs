//! Stepping through the focused invocation's recorded run (issue 14).
//!
//! With a focus, the first step records the invocation's whole run in one
//! replay of a trace shader (`glsl_instrument::Trace`: one record per
//! executed step with the values in scope); from then on `step`, `next`,
//! `finish`, `continue` and their `reverse-` forms move through the
//! records, `info locals` / `info args` / `backtrace` / `frame` read them,
//! and `print` of a traced variable at the focus answers from them, with
//! no replay. A run longer than the budget is recorded in parts: moving
//! past the last record recorded records the next part from there.
//! Where the driver cannot write a storage buffer from the stage, stepping
//! probes as before and says so once.

use glsl_instrument::{Stage, TraceSpec};

use super::probe_result::Focus;
use super::reply::{Frame, Invocation, Local, ShaderStop, TraceStop, TracedValue, WatchHit};
use super::trace::{Budget, Trace};
use super::{GeneratedReplay, Link, ReadMode, ShaderDebug, TraceAsk, instrument_error};
use crate::error::{Error, Result};

/// `GLDBG_TRACE=off` in the daemon's environment: steps probe each step
/// as before a trace existed (the bench's baseline), quietly.
pub const ENV_TRACE: &str = "GLDBG_TRACE";

/// Most trace parts one command records.
const MAX_PARTS_PER_COMMAND: usize = 64;

/// Which way a traced move goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Backward,
}

/// Where a traced move stops (besides the ends of the run).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Until {
    /// The next record (`step`, `reverse-step`).
    Any,
    /// The next record at this call depth or above (`next`).
    Over,
    /// The next record above this call depth (`finish`).
    Out,
    /// A shader breakpoint's line, or a watched value's change (`continue`).
    Breakpoint,
}

/// The trace state of one shader debug.
#[derive(Default)]
pub struct TraceState {
    pub trace: Option<Trace>,
    /// The current event (`events.len()`: the run has ended).
    pub cursor: usize,
    /// The selected frame (0: the innermost).
    pub frame: usize,
    pub budget: Budget,
    /// Why the stage cannot be traced here (said once).
    pub off: Option<String>,
    /// `off` came from a failure (not a stage that cannot): a new focus
    /// tries again.
    pub off_transient: bool,
    /// Warnings for the session to send as events.
    pub warnings: Vec<String>,
    /// `watch` expressions.
    pub watches: Vec<String>,
    /// The watch that stopped the last move.
    pub watch_hit: Option<WatchHit>,
    /// The focused invocation's predicate, found when the focus was set
    /// (a vertex-like stage needs a probe to tell its invocation).
    pub predicate: Option<String>,
}

impl ShaderDebug {
    /// At `focus`: the predicate of a vertex-like stage's invocation, so
    /// the first step's recording is one replay. Where it cannot be found
    /// now, the first step tries again (and says why).
    pub(super) fn prepare_predicate(&mut self, link: &mut dyn Link) {
        let vertex_like = matches!(
            self.model.stage(),
            Stage::Vertex | Stage::TessControl | Stage::TessEval | Stage::Geometry
        );
        if vertex_like && self.traced.off.is_none() {
            self.traced.predicate = self.focus_predicate(link).ok();
        }
    }

    /// The GLSL predicate true for the focused invocation (one probe at
    /// the entry of `main` tells a vertex-like stage's invocation apart).
    fn focus_predicate(&mut self, link: &mut dyn Link) -> Result<String> {
        let Some((focus, _)) = self.focus else {
            return Err(Error::Internal("a trace needs a focus".into()));
        };
        let stage = self.model.stage();
        let cell = match (stage, focus) {
            (Stage::Geometry, Focus::Primitive(n)) => {
                return Ok(format!("gl_PrimitiveIDIn == {n}"));
            }
            (_, Focus::Primitive(_)) => {
                return Err(Error::Internal(
                    "a primitive focus outside a geometry shader".into(),
                ));
            }
            (_, Focus::Cell(cell)) => cell,
        };
        let (x, y, z) = cell;
        let identity = match stage {
            Stage::Fragment => {
                return Ok(format!(
                    "all(equal(ivec2(gl_FragCoord.xy), ivec2({x}, {y})))"
                ));
            }
            Stage::Compute => {
                return Ok(format!(
                    "all(equal(gl_GlobalInvocationID, uvec3({x}u, {y}u, {z}u)))"
                ));
            }
            Stage::Vertex => "vec2(gl_VertexID, gl_InstanceID)",
            Stage::TessControl => "vec2(gl_PrimitiveID, gl_InvocationID)",
            Stage::TessEval => "vec4(gl_TessCoord, gl_PrimitiveID)",
            Stage::Geometry => "vec2(gl_PrimitiveIDIn, gl_InvocationID)",
        };
        let entry = self.model.entry();
        let r = self.probe_at(&entry, Some(identity), false, &ReadMode::All, link)?;
        let v = r.index(cell).and_then(|i| r.value_at(i)).ok_or_else(|| {
            Error::FailedPrecondition(format!(
                "the focused {} invocation does not run the shader at this draw",
                stage.name()
            ))
        })?;
        let bits = |f: f64| format!("uintBitsToFloat({}u)", (f as f32).to_bits());
        Ok(match stage {
            Stage::Vertex => format!("gl_VertexID == {} && gl_InstanceID == {}", v[0], v[1]),
            Stage::TessControl => {
                format!("gl_PrimitiveID == {} && gl_InvocationID == {}", v[0], v[1])
            }
            Stage::Geometry => {
                format!(
                    "gl_PrimitiveIDIn == {} && gl_InvocationID == {}",
                    v[0], v[1]
                )
            }
            _ => format!(
                "gl_PrimitiveID == {} && gl_TessCoord == vec3({}, {}, {})",
                v[3],
                bits(v[0]),
                bits(v[1]),
                bits(v[2])
            ),
        })
    }

    /// One recording from record `start` on: the trace shader and what it wrote.
    fn record(
        &mut self,
        predicate: &str,
        start: u32,
        link: &mut dyn Link,
    ) -> Result<(glsl_instrument::Trace, super::TraceData)> {
        let t0 = std::time::Instant::now();
        let spec = TraceSpec {
            focus: predicate,
            start,
            max_records: self.traced.budget.records,
        };
        let shader = self
            .model
            .instrument_trace(&spec)
            .map_err(instrument_error)?;
        let instrumented = t0.elapsed();
        let entry = self.model.entry();
        // The trace is what is wanted: of the draw's coverage, the focused
        // invocation's alone where the stage reads one back.
        let readback = match self.focus {
            Some((Focus::Cell(cell), _))
                if !super::readback::forced_all()
                    && matches!(
                        self.model.stage(),
                        Stage::Fragment | Stage::Vertex | Stage::Compute
                    ) =>
            {
                ReadMode::One(cell)
            }
            _ => ReadMode::All,
        };
        let r = self.replay_generated(
            GeneratedReplay {
                shader: &shader.shader,
                position: &entry,
                path: &[],
                // A point readback reads a value (the coverage-only
                // probe's zero): one component.
                components: u32::from(matches!(readback, ReadMode::One(_))),
                readback,
                trace: Some(TraceAsk {
                    block: &shader.block,
                    capacity_words: self.traced.budget.capacity_words(),
                    zero_data: false,
                }),
                instrumented,
            },
            link,
        )?;
        let data = r
            .trace
            .ok_or_else(|| Error::Internal("the trace replay brought no trace back".into()))?;
        Ok((shader, data))
    }

    /// Whether steps are answered from a trace: with a focus, record one
    /// if there is none yet (where the stage cannot be traced, say why
    /// once and go on probing).
    pub fn traced_now(&mut self, link: &mut dyn Link) -> Result<bool> {
        if self.focus.is_none() || self.traced.off.is_some() {
            return Ok(false);
        }
        if std::env::var(ENV_TRACE).is_ok_and(|v| v.eq_ignore_ascii_case("off")) {
            // The old way, for comparisons (the bench's baseline).
            self.traced.off = Some(format!("{ENV_TRACE}=off"));
            return Ok(false);
        }
        if self.traced.trace.is_some() {
            return Ok(true);
        }
        let predicate = match self.traced.predicate.take() {
            Some(p) => Ok(p),
            None => self.focus_predicate(link),
        };
        let made = predicate.and_then(|predicate| {
            let (shader, data) = self.record(&predicate, 0, link)?;
            Trace::new(&self.model, shader, predicate, data)
        });
        let trace = match made {
            Ok(t) => t,
            Err(e @ (Error::Unimplemented(_) | Error::Internal(_))) => {
                self.traced.off_transient = matches!(e, Error::Internal(_));
                let why = e.to_string();
                self.traced.warnings.push(format!(
                    "no trace of the focused invocation: {why}; each step replays the draw instead"
                ));
                self.traced.off = Some(why);
                return Ok(false);
            }
            Err(e) => return Err(e),
        };
        if trace.hits == 0 {
            return Err(Error::FailedPrecondition(format!(
                "the focused invocation does not run the {} shader at this draw",
                self.model.stage().name()
            )));
        }
        if trace.hits > 1 {
            self.traced.warnings.push(format!(
                "{} invocations match the focus (a pixel covered by several primitives); \
                 the trace follows the first to run",
                trace.hits
            ));
        }
        let cursor = match self.finished {
            true => trace.events.len(),
            false => trace
                .events
                .iter()
                .position(|e| e.pos == self.pos)
                .unwrap_or_else(|| {
                    self.traced.warnings.push(
                        "the focused invocation does not reach the current step; \
                         the trace starts at the entry of main"
                            .into(),
                    );
                    0
                }),
        };
        self.traced.trace = Some(trace);
        self.go(cursor);
        Ok(true)
    }

    /// Why this stage cannot be traced here, once tried.
    pub fn trace_off(&self) -> Option<&str> {
        self.traced.off.as_deref()
    }

    /// The warnings to send since the last call.
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.traced.warnings)
    }

    /// A stop that is not a move names no breakpoint, watch or hit.
    pub(super) fn clear_stop_reasons(&mut self) {
        self.breakpoint_hit = 0;
        self.traced.watch_hit = None;
        self.hit_stop = None;
    }

    /// Forget the recorded run (the focus changed); a failure to record
    /// (not a stage that cannot) may be tried again.
    pub(super) fn drop_trace(&mut self) {
        self.clear_stop_reasons();
        if self.traced.off_transient {
            self.traced.off = None;
            self.traced.off_transient = false;
        }
        self.traced.trace = None;
        self.traced.predicate = None;
        self.traced.cursor = 0;
        self.traced.frame = 0;
        self.traced.watch_hit = None;
    }

    /// Record the next part of a run that did not fit; false when the run
    /// is all recorded.
    fn record_more(&mut self, link: &mut dyn Link) -> Result<bool> {
        let Some(t) = self.traced.trace.as_ref() else {
            return Ok(false);
        };
        if !t.truncated() {
            return Ok(false);
        }
        let (predicate, start) = (t.predicate.clone(), t.recorded());
        let (_, data) = self.record(&predicate, start, link)?;
        let model = &self.model;
        let t = self.traced.trace.as_mut().expect("checked");
        let before = t.recorded();
        t.append(model, data)?;
        Ok(t.recorded() > before)
    }

    /// The current event's record index (`None`: the run has ended).
    pub(super) fn current_record(&self) -> Option<u32> {
        let t = self.traced.trace.as_ref()?;
        t.events.get(self.traced.cursor).map(|e| e.index)
    }

    /// Make the event of record `record` current, recording more parts
    /// of the run until it is there; false when the run has no such record.
    pub(super) fn go_to_record(&mut self, record: u32, link: &mut dyn Link) -> Result<bool> {
        for _ in 0..=MAX_PARTS_PER_COMMAND {
            let Some(t) = self.traced.trace.as_ref() else {
                return Ok(false);
            };
            if let Some(i) = t.events.iter().position(|e| e.index == record) {
                self.go(i);
                return Ok(true);
            }
            if t.end.as_ref().is_some_and(|e| e.index == record) {
                let n = t.events.len();
                self.go(n);
                return Ok(true);
            }
            if !self.record_more(link)? {
                return Ok(false);
            }
        }
        Ok(false)
    }

    /// The next record after the current one on a plain (unconditional)
    /// breakpoint's line, and that line, without moving.
    pub(super) fn next_plain_breakpoint(
        &mut self,
        link: &mut dyn Link,
    ) -> Result<Option<(u32, u32)>> {
        let mut j = self.traced.cursor;
        for _ in 0..=MAX_PARTS_PER_COMMAND {
            let Some(t) = self.traced.trace.as_ref() else {
                return Ok(None);
            };
            while j + 1 < t.events.len() {
                j += 1;
                let e = &t.events[j];
                let line = self.model.driver_line(self.model.step(e.pos.step).line);
                if self.is_plain_breakpoint(line) {
                    return Ok(Some((e.index, line)));
                }
            }
            if !self.record_more(link)? {
                return Ok(None);
            }
        }
        Ok(None)
    }

    /// A breakpoint line whose stops the trace decides alone.
    pub(super) fn is_plain_breakpoint(&self, line: u32) -> bool {
        self.breakpoints.contains(&line)
            && self
                .break_extras
                .get(&line)
                .is_none_or(|e| e.condition.is_none() && e.ignore == 0)
    }

    /// The driver's line of the step of record `record`.
    pub(super) fn line_of_record(&self, record: u32) -> u32 {
        let Some(t) = self.traced.trace.as_ref() else {
            return 0;
        };
        t.events.iter().find(|e| e.index == record).map_or(0, |e| {
            self.model.driver_line(self.model.step(e.pos.step).line)
        })
    }

    /// After a catch: which variable the step of record `record` left NaN
    /// (`nan`) or infinite, from the values once it has run (its calls
    /// returned: the next record at its depth or above).
    pub(super) fn caught_variable(&self, record: u32, nan: bool) -> Option<String> {
        let t = self.traced.trace.as_ref()?;
        let i = t.events.iter().position(|e| e.index == record)?;
        let written = &t.record(&t.events[i]).writes;
        let depth = t.depth(i);
        let after = t.events[i + 1..]
            .iter()
            .find(|e| e.pos.calls.len() <= depth)
            .or(t.end.as_ref())?;
        written.iter().find_map(|w| {
            let v = t.lookup(after, &w.name)?;
            let bad = v.value.iter().enumerate().any(|(k, x)| {
                !v.undefined.contains(&(k as u32)) && if nan { x.is_nan() } else { x.is_infinite() }
            });
            bad.then(|| w.name.clone())
        })
    }

    /// Make event `i` (or the end of the run) current.
    pub(super) fn go(&mut self, i: usize) {
        let Some(t) = self.traced.trace.as_ref() else {
            return;
        };
        self.traced.cursor = i;
        self.traced.frame = 0;
        match t.events.get(i) {
            Some(e) => {
                self.pos = e.pos.clone();
                self.finished = false;
            }
            None => self.finished = true,
        }
    }

    /// Move through the trace; false when a forward move ran off the end
    /// (the run has ended there).
    pub fn trace_move(
        &mut self,
        dir: Direction,
        until: Until,
        link: &mut dyn Link,
    ) -> Result<bool> {
        self.breakpoint_hit = 0;
        self.traced.watch_hit = None;
        self.hit_stop = None;
        let cur = self.traced.cursor;
        let t = self.traced.trace.as_ref().expect("traced");
        let len = t.events.len();
        let depth = t.events.get(cur).map_or(0, |e| e.pos.calls.len());
        if dir == Direction::Backward {
            if cur == 0 {
                return Err(Error::FailedPrecondition(
                    "at the start of the traced run: nothing runs before the entry of main".into(),
                ));
            }
            if until == Until::Out && (depth == 0 || cur >= len) {
                return Err(Error::FailedPrecondition(
                    "reverse-finish needs a function called from main; this is main".into(),
                ));
            }
        }
        let mut watched = self.watch_values(cur, link)?;
        let mut j = cur;
        let mut parts = 0;
        loop {
            match dir {
                Direction::Backward if j == 0 => {
                    // reverse-continue with nothing on the way: the start.
                    self.go(0);
                    return Ok(true);
                }
                Direction::Backward => j -= 1,
                Direction::Forward => j += 1,
            }
            let len = self.traced.trace.as_ref().map_or(0, |t| t.events.len());
            if dir == Direction::Forward && j >= len {
                if parts < MAX_PARTS_PER_COMMAND && self.record_more(link)? {
                    parts += 1;
                    j -= 1;
                    continue;
                }
                if self.traced.trace.as_ref().is_some_and(Trace::truncated) {
                    // Not the end: as far as this command records.
                    self.traced.warnings.push(format!(
                        "stopped after recording {MAX_PARTS_PER_COMMAND} more parts of the run \
                         (set trace-records / trace-bytes for larger ones); it goes on"
                    ));
                    self.go(len.saturating_sub(1));
                    return Ok(true);
                }
                // The end of `main`: a watched value its last step changed.
                if until == Until::Breakpoint && self.watch_changed(&mut watched, len, link)? {
                    self.go(len);
                    return Ok(true);
                }
                self.go(len);
                return Ok(false);
            }
            let t = self.traced.trace.as_ref().expect("traced");
            let d = t.events[j].pos.calls.len();
            let hit = match until {
                Until::Any => true,
                Until::Over => d <= depth,
                Until::Out => d < depth,
                Until::Breakpoint => {
                    let line = self
                        .model
                        .driver_line(self.model.step(t.events[j].pos.step).line);
                    if self.is_plain_breakpoint(line) {
                        self.stopped_at_breakpoint(line);
                        true
                    } else {
                        self.watch_changed(&mut watched, j, link)?
                    }
                }
            };
            if hit {
                self.go(j);
                return Ok(true);
            }
        }
    }

    /// The watched values at event `i`.
    fn watch_values(&mut self, i: usize, link: &mut dyn Link) -> Result<Vec<Option<TracedValue>>> {
        let exprs = self.traced.watches.clone();
        exprs
            .iter()
            .map(|e| self.value_at_event(i, e, link))
            .collect()
    }

    /// Whether a watched value at event `j` differs from `before`; the
    /// first that does is the stop's watch hit. Where an expression is not
    /// in scope (another function's record) nothing changes; one that
    /// comes into scope is followed from there.
    fn watch_changed(
        &mut self,
        before: &mut [Option<TracedValue>],
        j: usize,
        link: &mut dyn Link,
    ) -> Result<bool> {
        let exprs = self.traced.watches.clone();
        for (expr, old) in exprs.iter().zip(before.iter_mut()) {
            let Some(new) = self.value_at_event(j, expr, link)? else {
                continue;
            };
            let Some(was) = old.as_ref() else {
                *old = Some(new);
                continue;
            };
            if new != *was {
                let new = Some(new);
                self.traced.watch_hit = Some(WatchHit {
                    expr: expr.clone(),
                    old: old.clone(),
                    new,
                });
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The focused invocation's value of `expr` at event `i`: from the
    /// trace where it holds it, else one probe at the event's position.
    /// `None`: not reached, or not in scope there.
    fn value_at_event(
        &mut self,
        i: usize,
        expr: &str,
        link: &mut dyn Link,
    ) -> Result<Option<TracedValue>> {
        let t = self.traced.trace.as_ref().expect("traced");
        let Some(e) = t.events.get(i).or(t.end.as_ref()) else {
            return Ok(None);
        };
        if let Some(v) = t.lookup(e, expr) {
            return Ok(Some(v));
        }
        let Some((_, at)) = self.focus else {
            return Ok(None);
        };
        let (pos, finished) = (self.pos.clone(), self.finished);
        self.pos = e.pos.clone();
        self.finished = i >= t.events.len();
        let printed = self.print_probed(expr, Some(at), link);
        (self.pos, self.finished) = (pos, finished);
        match printed {
            Ok(p) if p.reached => Ok(Some(TracedValue {
                ty: p.ty,
                value: p.value,
                undefined: p.undefined,
                written_unknown: !p.written_unknown.is_empty(),
                parts: Vec::new(),
            })),
            Ok(_) => Ok(None),
            // Not in scope at this step: no value here.
            Err(Error::InvalidArgument(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The event the selected frame shows (the end of the run: its end record).
    fn frame_event(&self) -> Option<&super::trace::Event> {
        let t = self.traced.trace.as_ref()?;
        if self.traced.cursor >= t.events.len() {
            return t.end.as_ref();
        }
        let j = t.frame_event(self.traced.cursor, self.traced.frame)?;
        t.events.get(j)
    }

    /// `info locals` / `info args` of the selected frame, from the trace.
    pub fn info_locals(&mut self, args: bool, link: &mut dyn Link) -> Result<Vec<Local>> {
        // Without a focus: over every invocation (one replay).
        if self.focus.is_none() {
            return self.locals_summary(args, link);
        }
        if !self.traced_now(link)? {
            return Err(Error::FailedPrecondition(match &self.traced.off {
                Some(why) => format!("info locals needs a trace of the focused invocation: {why}"),
                None => {
                    "info locals needs a focused invocation (`focus X,Y`, `focus vertex N`, ...): \
                         its trace holds every local"
                        .into()
                }
            }));
        }
        let t = self.traced.trace.as_ref().expect("traced");
        match self.frame_event() {
            Some(e) => Ok(t.locals(e, args)),
            None => Err(Error::FailedPrecondition(
                "the focused invocation did not reach the end of main (discarded)".into(),
            )),
        }
    }

    /// `backtrace`: the frames of the current event, innermost first.
    pub fn backtrace(&mut self, link: &mut dyn Link) -> Result<Vec<Frame>> {
        if !self.traced_now(link)? {
            // Without a trace: the call chain of the position, no values.
            return Ok(self.chain_frames());
        }
        let t = self.traced.trace.as_ref().expect("traced");
        let cur = self.traced.cursor;
        if cur >= t.events.len() {
            return Ok(Vec::new());
        }
        let depth = t.depth(cur);
        let mut frames = Vec::with_capacity(depth + 1);
        for level in 0..=depth {
            let Some(j) = t.frame_event(cur, level) else {
                break;
            };
            let e = &t.events[j];
            let st = self.model.step(e.pos.step);
            frames.push(Frame {
                level: level as u32,
                function: st.function.clone(),
                line: self.model.driver_line(st.line),
                column: st.column,
                args: t.locals(e, true),
                source: self.file_of_source_line(st.line),
            });
        }
        Ok(frames)
    }

    /// The frames of the current position, without values.
    fn chain_frames(&self) -> Vec<Frame> {
        let mut frames = Vec::new();
        let st = self.model.step(self.pos.step);
        frames.push(Frame {
            level: 0,
            function: st.function.clone(),
            line: self.model.driver_line(st.line),
            column: st.column,
            args: Vec::new(),
            source: self.file_of_source_line(st.line),
        });
        for (level, (site, _)) in self.pos.calls.iter().rev().enumerate() {
            let st = self.model.step(*site);
            frames.push(Frame {
                level: level as u32 + 1,
                function: st.function.clone(),
                line: self.model.driver_line(st.line),
                column: st.column,
                args: Vec::new(),
                source: self.file_of_source_line(st.line),
            });
        }
        frames
    }

    /// `frame N` (or, `relative`, `up N` / `down -N`): select a frame of
    /// the traced call stack.
    pub fn select_frame(
        &mut self,
        level: i64,
        relative: bool,
        link: &mut dyn Link,
    ) -> Result<ShaderStop> {
        if !self.traced_now(link)? {
            return Err(Error::FailedPrecondition(
                "frames need a trace of the focused invocation (`focus ...` first)".into(),
            ));
        }
        self.clear_stop_reasons();
        let t = self.traced.trace.as_ref().expect("traced");
        let depth = match t.events.get(self.traced.cursor) {
            Some(e) => e.pos.calls.len() as i64,
            None => 0,
        };
        let want = if relative {
            self.traced.frame as i64 + level
        } else {
            level
        };
        if !(0..=depth).contains(&want) {
            return Err(crate::error::out_of_range(
                "frame",
                want,
                &format!("0..={depth}, the frames of the call stack"),
            ));
        }
        self.traced.frame = want as usize;
        Ok(self.stop_with_timing())
    }

    /// `print EXPR` at the focus from the trace: `None` where the trace
    /// does not hold it (not traced, another invocation, not a variable).
    pub(super) fn print_traced(
        &self,
        expr: &str,
        at: Option<Invocation>,
    ) -> Option<(TracedValue, Invocation)> {
        let (_, focus) = self.focus?;
        // `@ primitive N` lists the vertices the primitive emitted, each
        // with its value (the geometry view): not the trace's one value.
        if at != Some(focus) || matches!(focus, Invocation::Primitive(_)) {
            return None;
        }
        let t = self.traced.trace.as_ref()?;
        Some((t.lookup(self.frame_event()?, expr)?, focus))
    }

    /// The trace part of the current stop.
    pub(super) fn trace_stop(&self) -> Option<TraceStop> {
        let t = self.traced.trace.as_ref()?;
        let record = match t.events.get(self.traced.cursor) {
            Some(e) => e.index,
            None => t.end.as_ref().map_or(t.recorded(), |e| e.index),
        };
        Some(TraceStop {
            record,
            records: t.records,
            recorded: t.recorded(),
            truncated: t.truncated(),
            frame: self.traced.frame as u32,
            watch: self.traced.watch_hit.clone(),
        })
    }

    /// The position the selected frame shows (`None`: the innermost).
    pub(super) fn frame_position(&self) -> Option<glsl_instrument::Position> {
        if self.traced.frame == 0 {
            return None;
        }
        self.frame_event().map(|e| e.pos.clone())
    }

    /// `set trace-records N` / `set trace-bytes N`: the next recordings' budget.
    pub fn set_budget(&mut self, budget: Budget) -> Result<Budget> {
        if budget.records == 0 || budget.bytes < 64 {
            return Err(Error::InvalidArgument(
                "a trace budget needs at least 1 record and 64 bytes".into(),
            ));
        }
        self.traced.budget = budget;
        Ok(budget)
    }

    /// `watch EXPR` (add) or `delete` of one (`remove`): the watch list.
    pub fn watch(&mut self, expr: &str, remove: bool) -> Result<Vec<String>> {
        let expr = expr.trim();
        match remove {
            true if expr.is_empty() => self.traced.watches.clear(),
            true => {
                let before = self.traced.watches.len();
                self.traced.watches.retain(|w| w != expr);
                if self.traced.watches.len() == before {
                    return Err(Error::InvalidArgument(format!("no watch on `{expr}`")));
                }
            }
            false if expr.is_empty() => {
                return Err(Error::InvalidArgument("watch needs an expression".into()));
            }
            false => {
                if self.focus.is_none() {
                    return Err(Error::FailedPrecondition(
                        "watch follows the focused invocation's value: `focus ...` first".into(),
                    ));
                }
                // Valid here, or where it comes into scope later (a
                // watch is followed from where it is in scope).
                let here = self.model.value_layout(self.pos.step, expr);
                if let Err(e) = here {
                    let somewhere = self
                        .model
                        .steps()
                        .iter()
                        .any(|st| self.model.value_layout(st.id, expr).is_ok());
                    if !somewhere {
                        return Err(instrument_error(e));
                    }
                }
                if !self.traced.watches.iter().any(|w| w == expr) {
                    self.traced.watches.push(expr.to_string());
                }
            }
        }
        Ok(self.traced.watches.clone())
    }
}
