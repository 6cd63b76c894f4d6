//! Values out of a trace: a traced variable's words at an event turned
//! into components, with the ones not written yet marked; a variable or a
//! part of one (`a[1]`, `s.color`) found by the text of an expression.

use glsl_instrument::{BaseType, RecordLayout, TracedVar, ValueType, VarRole};

use super::decode::{Defined, written_components};
use super::{Event, Trace};
use crate::shader::reply::{Local, TracedValue};

/// The components of one part's words.
fn decode(ty: ValueType, words: &[u32]) -> Vec<f64> {
    let n = usize::from(ty.components.max(1));
    match ty.base {
        BaseType::Float => words
            .iter()
            .take(n)
            .map(|&w| f32::from_bits(w).into())
            .collect(),
        BaseType::Int => words.iter().take(n).map(|&w| f64::from(w as i32)).collect(),
        BaseType::Uint => words.iter().take(n).map(|&w| f64::from(w)).collect(),
        BaseType::Bool => words
            .iter()
            .take(n)
            .map(|&w| if w != 0 { 1.0 } else { 0.0 })
            .collect(),
        BaseType::Double => words
            .chunks_exact(2)
            .take(n)
            .map(|c| f64::from_bits(u64::from(c[0]) | (u64::from(c[1]) << 32)))
            .collect(),
    }
}

/// Words one part takes.
fn part_words(ty: ValueType) -> usize {
    let n = usize::from(ty.components.max(1));
    match ty.base {
        BaseType::Double => 2 * n,
        _ => n,
    }
}

impl Trace {
    /// The layout of event `e`'s record.
    pub fn record(&self, e: &Event) -> &RecordLayout {
        &self.layout.records[&e.id]
    }

    /// Variable `v` (of `e`'s record, `defined` its state there), whole
    /// or the parts under `path` (empty: whole).
    fn value_of(
        &self,
        e: &Event,
        v: &TracedVar,
        defined: &Defined,
        path: &str,
    ) -> Option<TracedValue> {
        let words = &self.words[e.values.clone()];
        let mut out = TracedValue {
            ty: v.ty.clone(),
            written_unknown: *defined == Defined::Unknown,
            ..Default::default()
        };
        let parts: Vec<_> = v
            .parts
            .iter()
            .filter(|p| {
                path.is_empty()
                    || p.path == path
                    || p.path.starts_with(path) && p.path[path.len()..].starts_with(['.', '['])
            })
            .collect();
        if parts.is_empty() {
            return None;
        }
        if !path.is_empty() {
            out.ty = match parts.as_slice() {
                [p] if p.path == path => p.ty.to_string(),
                _ => return None,
            };
        }
        for p in &parts {
            let at = p.offset as usize;
            let comps = decode(p.ty, words.get(at..at + part_words(p.ty))?);
            let written = match defined {
                Defined::Yes | Defined::Unknown => vec![true; comps.len()],
                Defined::No => vec![false; comps.len()],
                Defined::Parts(ws) => written_components(ws, &p.path, comps.len()),
            };
            for (c, w) in comps.into_iter().zip(written) {
                if !w {
                    out.undefined.push(out.value.len() as u32);
                }
                out.value.push(c);
            }
            if v.parts.len() > 1 && path.is_empty() {
                out.parts
                    .push((p.path.clone(), p.ty.to_string(), u32::from(p.ty.components)));
            }
        }
        Some(out)
    }

    /// The variables of event `e` with `role`'s kind (locals, parameters).
    pub fn locals(&self, e: &Event, args: bool) -> Vec<Local> {
        let rec = self.record(e);
        rec.vars
            .iter()
            .zip(&e.defined)
            .filter(|(v, _)| match v.role {
                VarRole::Param { .. } => args,
                VarRole::Local => !args,
                _ => false,
            })
            .filter_map(|(v, d)| {
                Some(Local {
                    name: v.name.clone(),
                    value: self.value_of(e, v, d, "")?,
                    ..Default::default()
                })
            })
            .collect()
    }

    /// The value of `expr` at event `e` where it names a traced variable
    /// or a part of one as its layout splits it (`m[1]`, `s.color`):
    /// innermost first (a local shadows a global), then the entry
    /// record's inputs and uniforms. `None`: the trace does not hold it.
    pub fn lookup(&self, e: &Event, expr: &str) -> Option<TracedValue> {
        let expr: String = expr.chars().filter(|c| !c.is_whitespace()).collect();
        let split = expr.find(['.', '[']).unwrap_or(expr.len());
        let (name, path) = expr.split_at(split);
        let rec = self.record(e);
        let found = rec
            .vars
            .iter()
            .zip(&e.defined)
            .rev()
            .find(|(v, _)| v.name == name);
        if let Some((v, d)) = found {
            return self.value_of(e, v, d, path);
        }
        let entry = self.entry.clone()?;
        let entry_rec = &self.layout.records[&glsl_instrument::ENTRY_RECORD];
        let v = entry_rec.vars.iter().find(|v| v.name == name)?;
        let at_entry = Event {
            index: 0,
            id: glsl_instrument::ENTRY_RECORD,
            pos: e.pos.clone(),
            values: entry,
            defined: Vec::new(),
        };
        self.value_of(&at_entry, v, &Defined::Yes, path)
    }
}
