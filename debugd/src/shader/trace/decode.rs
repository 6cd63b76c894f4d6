//! Records to events: the words a trace shader wrote (see
//! `glsl-instrument/src/trace.rs` for their format) checked against the
//! layout, each step record given its dynamic position (the step model's
//! successors, the one whose step the record names), and what each traced
//! variable's value means at that point (written yet or not).

use std::collections::HashMap;
use std::ops::Range;

use glsl_instrument::{
    END_RECORD, ENTRY_RECORD, Position, RecordLayout, ShaderModel, StepMode, TraceLayout, VarRole,
};

/// Most rounds of "no successor names the record's step: look on from the
/// last one" (as stepping by coverage does for steps nobody reaches).
const MAX_UNMATCHED_ROUNDS: usize = 64;

/// Whether a traced variable holds a written value at an event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Defined {
    Yes,
    /// Declared (or an output, or an `out` parameter) and not written yet.
    No,
    /// Only these constant paths were written (`.x`, `[2]`).
    Parts(Vec<String>),
    /// Written through a dynamic index: which parts is not known.
    Unknown,
}

/// One record of the traced run.
#[derive(Clone, Debug)]
pub struct Event {
    /// The record's index in the run (the entry record is 0).
    pub index: u32,
    /// Its id (a step id, or `END_RECORD | step`).
    pub id: u32,
    /// Where the step is (an end record: main's position at its end).
    pub pos: Position,
    /// Its values in [`super::Trace::words`].
    pub values: Range<usize>,
    /// Per variable of the record's layout.
    pub defined: Vec<Defined>,
}

/// Why records could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    #[error("trace record {index} is cut off ({have} of {need} words)")]
    Short {
        index: u32,
        have: usize,
        need: usize,
    },
    #[error("trace record {index} has id {id:#x}, which the trace shader does not write")]
    UnknownId { index: u32, id: u32 },
    #[error("trace record {index} has {len} value words where its layout has {words}")]
    Length { index: u32, len: u32, words: u32 },
    #[error(
        "trace record {index} names step {step}, which no path of the step model reaches from \
         step {from}"
    )]
    Unmatched { index: u32, step: u32, from: u32 },
    #[error("trace record {index} (step {step}) comes after the end of main")]
    AfterEnd { index: u32, step: u32 },
}

/// What writes have been seen in one function activation.
#[derive(Clone, Debug, Default)]
struct Activation {
    /// The call site chain it is for (`Position::calls`).
    calls: Vec<(glsl_instrument::StepId, u32)>,
    vars: HashMap<String, Defined>,
}

/// The decoder's state between parts of a trace (a part that did not fit
/// is followed by the next, recorded from where it ended).
#[derive(Clone, Debug, Default)]
pub struct Decoder {
    /// The last step record's position and id.
    last: Option<(Position, u32)>,
    stack: Vec<Activation>,
    globals: HashMap<String, Defined>,
    /// Records read so far (the next record's index).
    pub next_index: u32,
    /// Whether an end record was read.
    pub ended: bool,
}

/// Records decoded from one part of a trace.
#[derive(Debug, Default)]
pub struct Part {
    pub events: Vec<Event>,
    pub end: Option<Event>,
    /// The entry record's values.
    pub entry: Option<Range<usize>>,
}

impl Decoder {
    /// Decode `data` (the records from the decoder's `next_index` on)
    /// whose value words are appended to `words`.
    pub fn decode(
        &mut self,
        model: &ShaderModel,
        layout: &TraceLayout,
        data: &[u32],
        words: &mut Vec<u32>,
    ) -> Result<Part, DecodeError> {
        let mut part = Part::default();
        let mut at = 0usize;
        while at < data.len() {
            let index = self.next_index;
            let header = data.get(at..at + 2).ok_or(DecodeError::Short {
                index,
                have: data.len() - at,
                need: 2,
            })?;
            let (id, len) = (header[0], header[1]);
            let rec = layout
                .records
                .get(&id)
                .ok_or(DecodeError::UnknownId { index, id })?;
            if len != rec.words {
                return Err(DecodeError::Length {
                    index,
                    len,
                    words: rec.words,
                });
            }
            let body = data
                .get(at + 2..at + 2 + len as usize)
                .ok_or(DecodeError::Short {
                    index,
                    have: data.len() - at,
                    need: 2 + len as usize,
                })?;
            let values = words.len()..words.len() + body.len();
            words.extend_from_slice(body);
            at += 2 + len as usize;
            self.next_index += 1;
            if id == ENTRY_RECORD {
                part.entry = Some(values);
                continue;
            }
            if self.ended {
                return Err(DecodeError::AfterEnd { index, step: id });
            }
            if id & END_RECORD != 0 && id != ENTRY_RECORD {
                // `main`'s own frame at its end (its last step may have
                // called a function: the last record was in that one).
                let step = glsl_instrument::StepId(id & !END_RECORD);
                let iterations = self.last.as_ref().map_or_else(Vec::new, |(p, _)| {
                    let depth = model
                        .steps()
                        .get(step.0 as usize)
                        .map_or(0, |s| s.loop_depth as usize);
                    p.iterations[..depth.min(p.iterations.len())].to_vec()
                });
                let pos = Position {
                    step,
                    calls: Vec::new(),
                    iterations,
                };
                self.enter(&pos, layout);
                let defined = self.defined(rec, &pos);
                self.ended = true;
                part.end = Some(Event {
                    index,
                    id,
                    pos,
                    values,
                    defined,
                });
                continue;
            }
            let pos = self.position(model, id, index)?;
            self.enter(&pos, layout);
            let defined = self.defined(rec, &pos);
            self.apply(rec, &pos);
            if emits(model, &pos) {
                self.emitted(rec);
            }
            self.last = Some((pos.clone(), id));
            part.events.push(Event {
                index,
                id,
                pos,
                values,
                defined,
            });
        }
        Ok(part)
    }

    /// The position of the record naming step `id`: the entry of main
    /// first, then the successor (stepping into calls) with that step.
    fn position(&self, model: &ShaderModel, id: u32, index: u32) -> Result<Position, DecodeError> {
        let Some((last, last_id)) = &self.last else {
            let entry = model.entry();
            return match entry.step.0 == id {
                true => Ok(entry),
                false => Err(DecodeError::Unmatched {
                    index,
                    step: id,
                    from: entry.step.0,
                }),
            };
        };
        let mut cands = model.successors(last, StepMode::Into);
        for _ in 0..MAX_UNMATCHED_ROUNDS {
            if let Some(p) = cands.iter().find(|p| p.step.0 == id) {
                return Ok(p.clone());
            }
            let Some(next) = cands.last().cloned() else {
                break;
            };
            cands = model.successors(&next, StepMode::Into);
        }
        Err(DecodeError::Unmatched {
            index,
            step: id,
            from: *last_id,
        })
    }

    /// Keep one activation per call of `pos`'s chain: leave the calls
    /// that returned, enter the new ones (their parameters as their roles
    /// say).
    fn enter(&mut self, pos: &Position, layout: &TraceLayout) {
        let depth = pos.calls.len() + 1;
        let same = self
            .stack
            .iter()
            .enumerate()
            .take_while(|(i, a)| *i < depth && pos.calls.get(..*i) == Some(&a.calls[..]))
            .count();
        self.stack.truncate(same);
        while self.stack.len() < depth {
            let calls = pos.calls[..self.stack.len()].to_vec();
            let mut a = Activation {
                calls,
                vars: HashMap::new(),
            };
            // The parameters are in every record of the function's first
            // step: their roles say whether they start defined.
            if self.stack.len() + 1 == depth
                && let Some(rec) = layout.records.get(&pos.step.0)
            {
                for v in &rec.vars {
                    if let VarRole::Param { defined } = v.role {
                        a.vars.insert(v.name.clone(), yes_no(defined));
                    }
                }
            }
            self.stack.push(a);
        }
    }

    /// What each of `rec`'s variables holds before its step runs.
    fn defined(&self, rec: &RecordLayout, pos: &Position) -> Vec<Defined> {
        let frame = self.stack.get(pos.calls.len());
        rec.vars
            .iter()
            .map(|v| match v.role {
                VarRole::Input => Defined::Yes,
                VarRole::Global { defined } => self
                    .globals
                    .get(&v.name)
                    .cloned()
                    .unwrap_or(yes_no(defined)),
                VarRole::Param { defined } => frame
                    .and_then(|f| f.vars.get(&v.name).cloned())
                    .unwrap_or(yes_no(defined)),
                // A local's declaring step ran before it came into scope.
                VarRole::Local => frame
                    .and_then(|f| f.vars.get(&v.name).cloned())
                    .unwrap_or(Defined::Unknown),
            })
            .collect()
    }

    /// After the step of `rec` ran: what it declared and wrote.
    fn apply(&mut self, rec: &RecordLayout, pos: &Position) {
        let is_global = |name: &str| {
            rec.vars
                .iter()
                .any(|v| v.name == name && matches!(v.role, VarRole::Global { .. }))
        };
        let depth = pos.calls.len();
        let Some(frame) = self.stack.get_mut(depth) else {
            return;
        };
        for name in &rec.declares {
            frame.vars.insert(name.clone(), Defined::No);
        }
        for w in &rec.writes {
            // A name the function declares is its own (it may shadow a global).
            let local = frame.vars.contains_key(&w.name) || !is_global(&w.name);
            let map = match local {
                true => &mut frame.vars,
                false => &mut self.globals,
            };
            let now = map.remove(&w.name).unwrap_or(Defined::No);
            map.insert(w.name.clone(), after_write(now, w.path.as_deref()));
        }
    }
}

/// Whether the step at `pos` emits a vertex (a geometry shader's outputs
/// are undefined after `EmitVertex` / `EmitStreamVertex`).
fn emits(model: &ShaderModel, pos: &Position) -> bool {
    model.stage() == glsl_instrument::Stage::Geometry && {
        let text = &model.step(pos.step).text;
        text.contains("EmitVertex") || text.contains("EmitStreamVertex")
    }
}

impl Decoder {
    /// After an emission: the outputs (globals without an initialiser)
    /// are undefined until written again.
    fn emitted(&mut self, rec: &RecordLayout) {
        for v in &rec.vars {
            if v.role == (VarRole::Global { defined: false }) {
                self.globals.insert(v.name.clone(), Defined::No);
            }
        }
    }
}

fn yes_no(defined: bool) -> Defined {
    match defined {
        true => Defined::Yes,
        false => Defined::No,
    }
}

/// What a variable holds after a write of `path` (`None`: a dynamic index).
fn after_write(now: Defined, path: Option<&str>) -> Defined {
    match (now, path) {
        (_, Some("")) | (Defined::Yes, _) => Defined::Yes,
        (Defined::Unknown, _) | (_, None) => Defined::Unknown,
        (Defined::No, Some(p)) => Defined::Parts(vec![p.to_string()]),
        (Defined::Parts(mut ps), Some(p)) => {
            if !ps.iter().any(|q| q == p) {
                ps.push(p.to_string());
            }
            Defined::Parts(ps)
        }
    }
}

/// Which of a part's `components` a set of written paths covers: the part
/// is at `part_path` inside the variable.
pub fn written_components(written: &[String], part_path: &str, components: usize) -> Vec<bool> {
    let mut out = vec![false; components];
    for w in written {
        if part_path.starts_with(w.as_str())
            && (part_path.len() == w.len() || part_path[w.len()..].starts_with(['.', '[']))
        {
            out.iter_mut().for_each(|c| *c = true);
            continue;
        }
        // A swizzle of this part: `.xz` after the part's path.
        let Some(rest) = w.strip_prefix(part_path) else {
            continue;
        };
        let Some(swizzle) = rest.strip_prefix('.') else {
            continue;
        };
        for ch in swizzle.chars() {
            let i = match ch {
                'x' | 'r' | 's' => 0,
                'y' | 'g' | 't' => 1,
                'z' | 'b' | 'p' => 2,
                'w' | 'a' | 'q' => 3,
                _ => continue,
            };
            if let Some(c) = out.get_mut(i) {
                *c = true;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_accumulate_by_path() {
        let d = after_write(Defined::No, Some(".x"));
        let d = after_write(d, Some(".y"));
        assert_eq!(d, Defined::Parts(vec![".x".into(), ".y".into()]));
        assert_eq!(after_write(d.clone(), None), Defined::Unknown);
        assert_eq!(after_write(d, Some("")), Defined::Yes);
        assert_eq!(after_write(Defined::Unknown, Some("")), Defined::Yes);
    }

    #[test]
    fn written_components_follow_paths_and_swizzles() {
        let w = vec![".xz".to_string()];
        assert_eq!(written_components(&w, "", 4), [true, false, true, false]);
        let w = vec!["[1]".to_string()];
        assert_eq!(written_components(&w, "[1]", 3), [true; 3]);
        assert_eq!(written_components(&w, "[0]", 3), [false; 3]);
        assert_eq!(written_components(&w, "[1].color", 3), [true; 3]);
        // `[1]` is not a prefix of `[10]`.
        assert_eq!(written_components(&w, "[10]", 1), [false]);
        let w = vec!["[2].y".to_string()];
        assert_eq!(written_components(&w, "[2]", 2), [false, true]);
    }
}
