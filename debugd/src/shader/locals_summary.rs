//! `info locals` / `info args` without a focus (issue 14): every local and
//! argument in scope at the current position summarised over every
//! invocation that reaches it (count, min, max, NaN, Inf), from ONE replay
//! of a summary shader (`glsl_instrument::LocalsSummary`) whose atomics
//! fill a zeroed block carried as a trace's.

use glsl_instrument::{ComponentSummary, TracedVar, VarRole, key_value};

use super::reply::{Local, Summary, TracedValue};
use super::{GeneratedReplay, Link, ReadMode, ShaderDebug, TraceAsk, instrument_error};
use crate::error::{Error, Result};

/// One variable's summary from the block's data (after its header).
fn summarise(v: &TracedVar, data: &[u32], reached: u64) -> Option<Summary> {
    let mut s = Summary {
        count: reached,
        ..Default::default()
    };
    for p in &v.parts {
        for k in 0..usize::from(p.ty.components.max(1)) {
            let c = ComponentSummary::from_words(data, p.offset as usize + k)?;
            // No finite value in this component: no range to show.
            let (lo, hi) = match c.range() {
                Some((lo, hi)) => (
                    key_value(p.ty.base, lo).unwrap_or(f64::NAN),
                    key_value(p.ty.base, hi).unwrap_or(f64::NAN),
                ),
                None => (f64::NAN, f64::NAN),
            };
            s.min.push(lo);
            s.max.push(hi);
            // Counted per component; the variable's are the largest (a
            // lower bound where one invocation has several NaN components).
            s.nan = s.nan.max(u64::from(c.nan));
            s.inf = s.inf.max(u64::from(c.inf));
        }
    }
    Some(s)
}

fn parts(v: &TracedVar) -> Vec<(String, String, u32)> {
    match v.parts.as_slice() {
        [p] if p.path.is_empty() => Vec::new(),
        ps => ps
            .iter()
            .map(|p| (p.path.clone(), p.ty.to_string(), u32::from(p.ty.components)))
            .collect(),
    }
}

impl ShaderDebug {
    /// `info locals` / `info args` over every invocation at the current
    /// position: one replay.
    pub(super) fn locals_summary(&mut self, args: bool, link: &mut dyn Link) -> Result<Vec<Local>> {
        if self.finished {
            return Err(Error::FailedPrecondition(
                "the shader has finished: `info locals` over every invocation needs a step \
                 (or a focus, whose trace holds the end of main)"
                    .into(),
            ));
        }
        let pos = self.pos.clone();
        let t0 = std::time::Instant::now();
        let s = self
            .model
            .instrument_locals_summary(&pos)
            .map_err(instrument_error)?;
        let instrumented = t0.elapsed();
        let capacity = u32::try_from(s.block_words() - glsl_instrument::TRACE_HEADER_WORDS)
            .unwrap_or(u32::MAX)
            .max(1);
        let r = self.replay_generated(
            GeneratedReplay {
                shader: &s.shader,
                position: &pos,
                path: &pos.iterations,
                components: 0,
                readback: ReadMode::All,
                trace: Some(TraceAsk {
                    block: &s.block,
                    capacity_words: capacity,
                    zero_data: true,
                }),
                instrumented,
            },
            link,
        )?;
        let data = r
            .trace
            .ok_or_else(|| Error::Internal("the summary replay brought no block back".into()))?;
        let reached = u64::from(data.hits);
        let mut out = Vec::new();
        for (v, maybe_undefined) in s.vars.iter().zip(&s.maybe_undefined) {
            let wanted = match v.role {
                VarRole::Param { .. } => args,
                VarRole::Local => !args,
                _ => false,
            };
            if !wanted {
                continue;
            }
            let Some(summary) = summarise(v, &data.words, reached) else {
                return Err(Error::Internal(format!(
                    "the summary block is too short for `{}`",
                    v.name
                )));
            };
            out.push(Local {
                name: v.name.clone(),
                value: TracedValue {
                    ty: v.ty.clone(),
                    parts: parts(v),
                    ..Default::default()
                },
                summary: Some(summary),
                maybe_undefined: *maybe_undefined,
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glsl_instrument::{BaseType, ValueType};

    fn key_of(x: f32) -> u32 {
        let b = x.to_bits();
        b ^ if b >> 31 != 0 {
            0xFFFF_FFFF
        } else {
            0x8000_0000
        }
    }

    #[test]
    fn a_summary_reads_min_max_and_counts() {
        let v = TracedVar {
            name: "v".into(),
            ty: "vec2".into(),
            role: VarRole::Local,
            parts: vec![glsl_instrument::TracedPart {
                path: String::new(),
                ty: ValueType {
                    base: BaseType::Float,
                    components: 2,
                },
                offset: 0,
            }],
        };
        // x: -1 .. 3 over 4 invocations, one NaN; y: all NaN or Inf
        // (its min and max words untouched: zero).
        let data = [!key_of(-1.0), key_of(3.0), 1, 0, 0, 0, 2, 2];
        let s = summarise(&v, &data, 4).unwrap();
        assert_eq!(s.min[0], -1.0);
        assert_eq!(s.max[0], 3.0);
        assert!(s.min[1].is_nan() && s.max[1].is_nan());
        assert_eq!((s.count, s.nan, s.inf), (4, 2, 2));
        // A block too short for the variable.
        assert!(summarise(&v, &data[..5], 4).is_none());
    }
}
