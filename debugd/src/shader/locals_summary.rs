//! `info locals` / `info args` without a focus (issue 14): every local and
//! argument in scope at the current position summarised over every
//! invocation that reaches it (count, min, max, NaN, Inf), from ONE replay
//! of a summary shader (`glsl_instrument::LocalsSummary`) whose atomics
//! fill a zeroed block carried as a trace's.

use glsl_instrument::{BaseType, TracedVar, ValueType, VarRole};

use super::reply::{Local, Summary, TracedValue};
use super::{Link, ReadMode, ShaderDebug, StepRequest, TraceAsk, instrument_error};
use crate::error::{Error, Result};

/// A component's value from its order-preserving key.
fn from_key(key: u32, base: BaseType) -> f64 {
    match base {
        BaseType::Float => {
            let bits = if key & 0x8000_0000 != 0 {
                key ^ 0x8000_0000
            } else {
                !key
            };
            f32::from_bits(bits).into()
        }
        BaseType::Int => f64::from((key ^ 0x8000_0000) as i32),
        _ => f64::from(key),
    }
}

/// One variable's summary from the block's words (4 per component).
fn summarise(v: &TracedVar, data: &[u32], reached: u64) -> Option<Summary> {
    let mut s = Summary {
        count: reached,
        ..Default::default()
    };
    for p in &v.parts {
        let n = usize::from(p.ty.components.max(1));
        for k in 0..n {
            let at = 4 * (p.offset as usize + k);
            let w = data.get(at..at + 4)?;
            let (nan, inf) = (u64::from(w[2]), u64::from(w[3]));
            // No finite value in this component: no range to show.
            let finite = reached.saturating_sub(nan + inf);
            let (lo, hi) = match finite {
                0 => (f64::NAN, f64::NAN),
                _ => (from_key(!w[0], p.ty.base), from_key(w[1], p.ty.base)),
            };
            s.min.push(lo);
            s.max.push(hi);
            // Per component counts; the variable's are the largest (a lower
            // bound where several components are NaN in one invocation).
            s.nan = s.nan.max(nan);
            s.inf = s.inf.max(inf);
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
        let s = self
            .model
            .instrument_locals_summary(&pos)
            .map_err(instrument_error)?;
        let comps: usize = s
            .vars
            .iter()
            .flat_map(|v| &v.parts)
            .map(|p| usize::from(p.ty.components.max(1)))
            .sum();
        let capacity = u32::try_from(4 * comps.max(1)).unwrap_or(u32::MAX);
        let t0 = std::time::Instant::now();
        let r = link.step(&StepRequest {
            stage: self.model.stage(),
            position: &pos,
            expr: None,
            shader: &s.shader,
            path: &pos.iterations,
            components: 0,
            readback: ReadMode::All,
            others: &self.others,
            fragment_options: self.fragment_options,
            trace: Some(TraceAsk {
                block: &s.block,
                capacity_words: capacity,
                zero_data: true,
            }),
        })?;
        self.timing.probes += 1;
        self.timing.build_ns += r.timing.build_ns;
        self.timing.replay_ns += r.timing.replay_ns;
        self.timing.readback_ns += r.timing.readback_ns;
        self.timing.total_ns += t0.elapsed().as_nanos() as u64;
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

    fn key_of(x: f32) -> u32 {
        let b = x.to_bits();
        b ^ if b >> 31 != 0 { 0xFFFF_FFFF } else { 0x8000_0000 }
    }

    #[test]
    fn keys_decode_in_order() {
        for x in [-3.5f32, -0.0, 0.0, 1.0, 1e-30, 7.25] {
            assert_eq!(from_key(key_of(x), BaseType::Float), f64::from(x));
        }
        assert!(key_of(-1.0) < key_of(-0.5) && key_of(-0.5) < key_of(2.0));
        assert_eq!(from_key((-7i32 as u32) ^ 0x8000_0000, BaseType::Int), -7.0);
        assert_eq!(from_key(9, BaseType::Uint), 9.0);
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
        // x: -1 .. 3 over 4 invocations, one NaN; y: all NaN or Inf.
        let data = [!key_of(-1.0), key_of(3.0), 1, 0, 0, 0, 2, 2];
        let s = summarise(&v, &data, 4).unwrap();
        assert_eq!(s.min[0], -1.0);
        assert_eq!(s.max[0], 3.0);
        assert!(s.min[1].is_nan() && s.max[1].is_nan());
        assert_eq!((s.count, s.nan, s.inf), (4, 2, 2));
    }
}
