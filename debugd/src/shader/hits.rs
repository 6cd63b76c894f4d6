//! Conditions over every invocation (issue 14): conditional, temporary and
//! ignore-counted shader breakpoints and `catch nan` / `catch inf`. Each
//! is one replay of a hit shader (`glsl_instrument::HitSpec`) that counts,
//! per invocation, the executions where it holds and remembers the first
//! one's record index; the first hit over the draw (earliest in its own
//! run, ties by invocation order) becomes the focus, its run is traced and
//! the stop is that record.

use std::collections::BTreeMap;

use glsl_instrument::{HitKind, HitSpec, Stage};

use super::probe_result::Focus;
use super::reply::{HitStop, Invocation};
use super::{Cell, GeneratedReplay, Link, ReadMode, ShaderDebug, instrument_error};
use crate::error::{Error, Result};

/// What a shader breakpoint has besides its line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BreakExtras {
    /// `break LINE if COND`, `condition LINE COND`.
    pub condition: Option<String>,
    /// `tbreak`: deleted at its first stop.
    pub temporary: bool,
    /// `ignore LINE N`: the next N hits of each invocation pass.
    pub ignore: u32,
    /// From its last replay over the draw: executions and invocations that hit.
    pub executions: u64,
    pub invocations: u64,
    /// Whether `executions` and `invocations` were counted for this
    /// condition at this draw.
    pub counted: bool,
}

/// `catch nan` / `catch inf`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Catches {
    pub nan: bool,
    pub inf: bool,
}

/// The first hit of one hit replay.
#[derive(Clone, Copy, Debug)]
struct Hit {
    /// Index of the invocation in the replay's result.
    index: usize,
    /// Its record index (the trace's numbering).
    record: u32,
    executions: u64,
    invocations: u64,
}

/// A hit replay's per-invocation words: (first + 1, hits, step).
type HitWords = (u32, u32, u32);

/// Whose first hit a hit replay looks for.
#[derive(Clone, Copy, Debug)]
enum Among {
    All,
    /// The invocation at this cell (the focus).
    Cell(Cell),
    /// The invocation at this index of the replay's result.
    Index(usize),
}

impl ShaderDebug {
    /// Whether `continue` runs hit replays.
    pub(super) fn has_conditions(&self) -> bool {
        self.catches.nan
            || self.catches.inf
            || self
                .break_extras
                .values()
                .any(|e| e.condition.is_some() || e.ignore > 0)
    }

    /// One hit replay; the first hit from record `after` on (of the
    /// invocation at `only`, or of any).
    fn hit_replay(
        &mut self,
        kind: HitKind<'_>,
        after: u32,
        skip: u32,
        only: Among,
        link: &mut dyn Link,
    ) -> Result<(Option<Hit>, (u64, u64), super::ProbeResult)> {
        let t0 = std::time::Instant::now();
        let spec = HitSpec { kind, after, skip };
        let shader = self
            .model
            .instrument_hits(&spec)
            .map_err(instrument_error)?;
        let entry = self.model.entry();
        let r = self.replay_generated(
            GeneratedReplay {
                shader: &shader,
                position: &entry,
                path: &[],
                components: 4,
                readback: ReadMode::All,
                trace: None,
                instrumented: t0.elapsed(),
            },
            link,
        )?;
        let words = |i: usize| -> Option<HitWords> {
            let v = r.value_at(i)?;
            Some((v[0] as u32, v[1] as u32, v[2] as u32))
        };
        let n = r.coverage.len();
        let (mut executions, mut invocations) = (0u64, 0u64);
        let mut best: Option<Hit> = None;
        let candidates: Vec<usize> = match only {
            Among::Cell(cell) => r.index(cell).into_iter().collect(),
            Among::Index(i) => (i < n).then_some(i).into_iter().collect(),
            Among::All => (0..n).collect(),
        };
        for i in 0..n {
            let Some((_, hits, _)) = words(i) else {
                continue;
            };
            if hits > 0 {
                executions += u64::from(hits);
                invocations += 1;
            }
        }
        for i in candidates {
            let Some((first, _, _)) = words(i) else {
                continue;
            };
            if first == 0 {
                continue;
            }
            let record = first - 1;
            if best.is_none_or(|b| record < b.record) {
                best = Some(Hit {
                    index: i,
                    record,
                    executions: 0,
                    invocations: 0,
                });
            }
        }
        let best = best.map(|b| Hit {
            executions,
            invocations,
            ..b
        });
        Ok((best, (executions, invocations), r))
    }

    /// The invocation at index `i` of a replay's result, as focus names it.
    fn invocation_at(&self, r: &super::ProbeResult, i: usize) -> (Focus, Invocation) {
        let (w, rows, _) = r.extent();
        let (w, rows) = (w.max(1) as usize, rows.max(1) as usize);
        let (x, y, z) = (
            (i % w) as u32,
            ((i / w) % rows) as u32,
            (i / (w * rows)) as u32,
        );
        match self.model.stage() {
            Stage::Fragment => (Focus::Cell((x, y, 0)), Invocation::Pixel { x, y }),
            Stage::Compute => (Focus::Cell((x, y, z)), Invocation::Global { x, y, z }),
            Stage::Geometry => {
                let prim = r.emission.get(i).map_or(0, |e| e[1]);
                (Focus::Primitive(prim), Invocation::Primitive(prim))
            }
            _ => (Focus::Cell((x, 0, 0)), Invocation::Vertex(x)),
        }
    }

    /// `continue` with conditions: the earliest hit of the conditional
    /// breakpoints and catches (with a focus: the focused invocation's,
    /// after the current record), and of the plain breakpoints in the
    /// trace; focus it, trace it and stop there. Returns false when
    /// nothing is hit (the run ends).
    pub(super) fn continue_conditional(&mut self, link: &mut dyn Link) -> Result<bool> {
        let cell = match self.focus {
            Some((Focus::Cell(cell), _)) => Some(cell),
            _ => None,
        };
        let focused = match cell {
            Some(cell) if self.traced_now(link)? => Some(cell),
            _ => None,
        };
        let after = match focused {
            Some(_) => self.current_record().map_or(u32::MAX, |r| r + 1),
            None => 0,
        };
        let among = focused.map_or(Among::All, Among::Cell);
        // (record, line or 0 for a catch, hit, the replay's invocation, kind)
        let mut best: Option<(u32, u32, Hit, (Focus, Invocation), &'static str)> = None;
        let lines: Vec<(u32, BreakExtras)> = self
            .breakpoints
            .iter()
            .map(|&l| (l, self.break_extras.get(&l).cloned().unwrap_or_default()))
            .collect();
        for (line, extras) in lines {
            if extras.condition.is_none() && extras.ignore == 0 {
                continue;
            }
            let steps = self.steps_on(line);
            let kind = HitKind::Condition {
                steps: &steps,
                cond: extras.condition.as_deref(),
            };
            let (hit, counts, r) = self.hit_replay(kind, after, extras.ignore, among, link)?;
            if let Some(e) = self.break_extras.get_mut(&line) {
                // Every hit of the draw is counted, whatever `after` is.
                (e.executions, e.invocations) = counts;
                e.counted = true;
            }
            if let Some(h) = hit
                && best.as_ref().is_none_or(|b| h.record < b.0)
            {
                best = Some((
                    h.record,
                    line,
                    h,
                    self.invocation_at(&r, h.index),
                    "breakpoint",
                ));
            }
        }
        for (on, name) in [(self.catches.nan, "nan"), (self.catches.inf, "inf")] {
            if !on {
                continue;
            }
            let kind = HitKind::Catch {
                nan: name == "nan",
                inf: name == "inf",
            };
            // The current step has not run yet: what it assigns counts.
            let from = match focused {
                Some(_) => after.saturating_sub(1),
                None => 0,
            };
            let (hit, _, r) = self.hit_replay(kind, from, 0, among, link)?;
            if let Some(h) = hit
                && best.as_ref().is_none_or(|b| h.record < b.0)
            {
                best = Some((h.record, 0, h, self.invocation_at(&r, h.index), name));
            }
        }
        // A plain breakpoint the focused invocation reaches first wins.
        if focused.is_some() {
            let plain = self.next_plain_breakpoint(link)?;
            if let Some((record, line)) = plain
                && best.as_ref().is_none_or(|b| record < b.0)
            {
                let found = self.go_to_record(record, link)?;
                self.breakpoint_hit = line;
                return Ok(found);
            }
        }
        let Some((record, line, hit, (focus, at), kind)) = best else {
            return Ok(false);
        };
        if focused.is_none() {
            self.drop_trace();
            self.focus = Some((focus, at));
            if !self.traced_now(link)? {
                return Err(Error::FailedPrecondition(format!(
                    "a hit at {at:?} was found but its run cannot be traced here: {}",
                    self.trace_off().unwrap_or("no trace")
                )));
            }
        }
        // A catch stops after the assignment that made the value.
        if !self.go_to_record(record, link)? {
            return Err(Error::FailedPrecondition(format!(
                "the hit at record {record} of the run is not in the focused invocation's trace \
                 (several invocations at the focus, or past the recordings one command makes)"
            )));
        }
        if line == 0 {
            // A catch stops once the assigning step has run (over its calls).
            self.trace_move(super::Direction::Forward, super::Until::Over, link)?;
        } else {
            self.stopped_at_breakpoint(line);
        }
        self.hit_stop = Some(HitStop {
            kind: kind.to_string(),
            invocations: hit.invocations,
            executions: hit.executions,
            variable: match line {
                0 => self.caught_variable(record, kind == "nan"),
                _ => None,
            },
            line: match line {
                0 => self.line_of_record(record),
                l => l,
            },
        });
        Ok(true)
    }

    /// A source breakpoint's check at its draw (issue 15): one hit replay
    /// of `steps` (the breakpoint's, exactly; its shader breakpoint is on
    /// driver line `line`, with its condition) over the draw. Where the
    /// draw's executions pass `ignore` (what earlier draws left of it),
    /// the stop is focused, traced and stopped at: without an ignore
    /// count, the first hit (earliest in its run, ties by invocation
    /// order); with one, execution `ignore + 1` of the draw, counting the
    /// invocations' executions in invocation order (a second replay finds
    /// that execution's record in its invocation's run). Returns whether
    /// it stopped and the executions the draw counted.
    pub fn stop_at_first_hit(
        &mut self,
        line: u32,
        steps: &[glsl_instrument::StepId],
        ignore: u64,
        link: &mut dyn Link,
    ) -> Result<(bool, u64)> {
        self.hit_stop = None;
        self.breakpoint_hit = 0;
        let cond = self
            .break_extras
            .get(&line)
            .and_then(|e| e.condition.clone());
        let kind = HitKind::Condition {
            steps,
            cond: cond.as_deref(),
        };
        let (hit, (executions, invocations), r) = self.hit_replay(kind, 0, 0, Among::All, link)?;
        if let Some(e) = self.break_extras.get_mut(&line) {
            (e.executions, e.invocations) = (executions, invocations);
            e.counted = true;
        }
        let Some(mut h) = hit.filter(|_| executions > ignore) else {
            return Ok((false, executions));
        };
        let mut r = r;
        if ignore > 0 {
            let (index, skip) = nth_execution(&r, ignore)
                .ok_or_else(|| Error::Internal("the hit replay's counts do not add up".into()))?;
            let (again, _, r2) = self.hit_replay(kind, 0, skip, Among::Index(index), link)?;
            h = again.ok_or_else(|| {
                Error::Internal(format!(
                    "execution {} of invocation {index} was counted but not found again",
                    skip + 1
                ))
            })?;
            r = r2;
        }
        let (focus, at) = self.invocation_at(&r, h.index);
        self.drop_trace();
        self.focus = Some((focus, at));
        if !self.traced_now(link)? {
            return Err(Error::FailedPrecondition(format!(
                "a hit at {at:?} was found but its run cannot be traced here: {}",
                self.trace_off().unwrap_or("no trace")
            )));
        }
        if !self.go_to_record(h.record, link)? {
            return Err(Error::FailedPrecondition(format!(
                "the hit at record {} of the run is not in the focused invocation's trace",
                h.record
            )));
        }
        self.stopped_at_breakpoint(line);
        self.hit_stop = Some(HitStop {
            kind: "breakpoint".into(),
            invocations,
            executions,
            variable: None,
            line,
        });
        Ok((true, executions))
    }

    /// A stop at the breakpoint on `line`: said in the stop, a `tbreak`
    /// deleted, its ignore count spent.
    pub(super) fn stopped_at_breakpoint(&mut self, line: u32) {
        self.breakpoint_hit = line;
        if self.break_extras.get(&line).is_some_and(|e| e.temporary) {
            self.breakpoints.remove(&line);
            self.break_extras.remove(&line);
        } else if let Some(e) = self.break_extras.get_mut(&line) {
            e.ignore = 0;
        }
    }

    /// The steps on a breakpoint's line (the driver's numbering).
    fn steps_on(&self, line: u32) -> Vec<glsl_instrument::StepId> {
        self.model
            .lines_numbered(line)
            .into_iter()
            .flat_map(|l| self.model.steps_on_line(l))
            .collect()
    }

    /// `break LINE if COND` / `tbreak LINE`: a shader breakpoint with extras.
    pub fn add_conditional_breakpoint(
        &mut self,
        line: u32,
        condition: Option<String>,
        temporary: bool,
    ) -> Result<u32> {
        let line = self.add_breakpoint(line)?;
        if let Some(c) = &condition {
            self.check_condition(line, c)?;
        }
        let e = self.break_extras.entry(line).or_default();
        e.condition = condition.filter(|c| !c.trim().is_empty());
        e.temporary = temporary;
        e.counted = false;
        Ok(line)
    }

    /// A condition must make a hit shader at the line (it parses, has no
    /// side effect, resolves at one of its steps): built once here so a
    /// bad one is refused when it is set, not at `continue`.
    fn check_condition(&self, line: u32, cond: &str) -> Result<()> {
        self.check_condition_at(&self.steps_on(line), cond)
    }

    /// [`Self::check_condition`] at `steps` (a source breakpoint's, exactly).
    pub fn check_condition_at(&self, steps: &[glsl_instrument::StepId], cond: &str) -> Result<()> {
        let spec = HitSpec {
            kind: HitKind::Condition {
                steps,
                cond: Some(cond),
            },
            after: 0,
            skip: 0,
        };
        self.model
            .instrument_hits(&spec)
            .map(|_| ())
            .map_err(instrument_error)
    }

    /// `condition LINE [COND]`, `ignore LINE N`.
    pub fn set_break_extras(
        &mut self,
        line: u32,
        condition: Option<Option<String>>,
        ignore: Option<u32>,
    ) -> Result<()> {
        if line == 0 && condition.is_none() && ignore.is_none() {
            // Only the list.
            return Ok(());
        }
        if !self.breakpoints.contains(&line) {
            return Err(Error::InvalidArgument(format!(
                "no shader breakpoint on line {line}"
            )));
        }
        if let Some(Some(c)) = &condition {
            self.check_condition(line, c)?;
        }
        let e = self.break_extras.entry(line).or_default();
        if let Some(c) = condition {
            e.condition = c.filter(|c| !c.trim().is_empty());
            e.counted = false;
        }
        if let Some(n) = ignore {
            e.ignore = n;
        }
        Ok(())
    }

    /// `delete LINE` (0: all).
    pub fn delete_breakpoint(&mut self, line: u32) -> Result<()> {
        if line == 0 {
            self.breakpoints.clear();
            self.break_extras.clear();
        } else if !self.breakpoints.remove(&line) {
            return Err(Error::InvalidArgument(format!(
                "no shader breakpoint on line {line}"
            )));
        }
        self.break_extras.remove(&line);
        Ok(())
    }

    /// Count the hits of every shader breakpoint not counted yet at this
    /// draw (one replay each), for `info breakpoints`.
    pub fn count_hits(&mut self, link: &mut dyn Link) -> Result<()> {
        let lines: Vec<u32> = self.breakpoints.iter().copied().collect();
        for line in lines {
            let extras = self.break_extras.get(&line).cloned().unwrap_or_default();
            if extras.counted {
                continue;
            }
            let steps = self.steps_on(line);
            let kind = HitKind::Condition {
                steps: &steps,
                cond: extras.condition.as_deref(),
            };
            // A shader the hit replay cannot serve (no `uint`: GLSL 1.20)
            // leaves its counts unknown; the listing does not fail.
            let counts = match self.hit_replay(kind, 0, 0, Among::All, link) {
                Ok((_, counts, _)) => counts,
                Err(Error::Unimplemented(_) | Error::Internal(_)) => continue,
                Err(e) => return Err(e),
            };
            let e = self.break_extras.entry(line).or_default();
            (e.executions, e.invocations) = counts;
            e.counted = true;
        }
        Ok(())
    }

    /// The shader breakpoints with their extras, by line.
    pub fn breakpoint_list(&self) -> BTreeMap<u32, BreakExtras> {
        self.breakpoints
            .iter()
            .map(|&l| (l, self.break_extras.get(&l).cloned().unwrap_or_default()))
            .collect()
    }

    /// `catch nan` / `catch inf` (on), or their removal.
    pub fn set_catch(&mut self, nan: bool, inf: bool, on: bool) -> Catches {
        if nan {
            self.catches.nan = on;
        }
        if inf {
            self.catches.inf = on;
        }
        self.catches
    }
}

/// Execution `ignore + 1` of a hit replay `r` (skip 0), counting each
/// invocation's executions in invocation order: its invocation's index
/// and how many of that invocation's executions come before it.
fn nth_execution(r: &super::ProbeResult, ignore: u64) -> Option<(usize, u32)> {
    let mut left = ignore;
    for i in 0..r.coverage.len() {
        let Some(v) = r.value_at(i) else {
            continue;
        };
        let hits = v[1] as u64;
        if hits > left {
            return u32::try_from(left).ok().map(|skip| (i, skip));
        }
        left -= hits;
    }
    None
}
