//! What a probe reads back ([`ReadMode`]): every invocation (what steps,
//! `dump`, `focus` and `info flow` need), one invocation (`print @`), or a
//! summary the preload reduces on the GPU (`print` without `@`); which a
//! print asks for, and the decoding of what a point or summary reply holds
//! into a [`ProbeResult`] that says so ([`Held`]).
//!
//! The preload may read everything instead of what was asked (no compute
//! shaders, a GL ES 2 context, a capture of unknown length): the reply
//! says what it holds. A summary whose type codes disagree with the type
//! asked for is thrown away and the probe read again whole: a debugger
//! never shows a wrong value. `GLDBG_READBACK=all` in the daemon's
//! environment makes every probe read everything (the bench's baseline).

use gldbg_proto::shm::{
    self as abi, BulkRef, READBACK_ALL, READBACK_ONE, READBACK_SUMMARY, ReadbackReply,
    ReadbackRequest,
};
use glsl_instrument::{BaseType, Stage, decode_type};

use super::reply::Timing;
use super::{Cell, ProbeResult, ShaderDebug};
use crate::image::Stats;
use crate::shm::SharedMemory;

/// The environment variable that forces full readbacks (`all`).
pub const ENV_READBACK: &str = "GLDBG_READBACK";

/// What a probe asks the preload to read back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReadMode {
    /// Every invocation's value and coverage.
    All,
    /// One invocation's (and the type code of the draw's reached ones).
    One(Cell),
    /// A GPU summary of `components` words compared as `base`
    /// (`abi::SUMMARY_*`), with the first `head` invocations whole.
    Summary {
        base: u32,
        components: u32,
        head: u32,
    },
}

impl ReadMode {
    /// The request's readback fields.
    pub fn request(&self) -> ReadbackRequest {
        match *self {
            ReadMode::All => ReadbackRequest::default(),
            ReadMode::One((x, y, z)) => ReadbackRequest {
                mode: READBACK_ONE,
                cell: [x, y, z],
                ..Default::default()
            },
            ReadMode::Summary {
                base,
                components,
                head,
            } => ReadbackRequest {
                mode: READBACK_SUMMARY,
                base,
                components,
                head,
                ..Default::default()
            },
        }
    }
}

/// What a [`ProbeResult`] holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Held {
    /// Every invocation.
    All,
    /// The invocation of this linear index alone (`usize::MAX`: the cell
    /// asked for is outside the draw, nothing held).
    One(usize),
    /// The summary, and the first `coverage.len()` invocations whole.
    Summary(Stats),
}

/// Whether `GLDBG_READBACK=all` forces full readbacks.
pub fn forced_all() -> bool {
    std::env::var(ENV_READBACK).is_ok_and(|v| v.eq_ignore_ascii_case("all"))
}

/// The summary of a GLSL scalar or vector type the GPU can reduce:
/// (`SUMMARY_*`, components); `None` for others (doubles, matrices,
/// structs, arrays, unknown types).
fn summary_type(ty: &str) -> Option<(u32, u32)> {
    let (base, n) = match ty {
        "float" => (abi::SUMMARY_FLOAT, 1),
        "int" => (abi::SUMMARY_INT, 1),
        "uint" => (abi::SUMMARY_UINT, 1),
        "bool" => (abi::SUMMARY_BOOL, 1),
        _ => {
            let (prefix, n) = ty.split_at(ty.len().checked_sub(1)?);
            let n: u32 = n.parse().ok().filter(|n| (2..=4).contains(n))?;
            let base = match prefix {
                "vec" => abi::SUMMARY_FLOAT,
                "ivec" => abi::SUMMARY_INT,
                "uvec" => abi::SUMMARY_UINT,
                "bvec" => abi::SUMMARY_BOOL,
                _ => return None,
            };
            (base, n)
        }
    };
    Some((base, n))
}

impl ShaderDebug {
    /// How a `print` of `expr` at `cell` (`None`: a summary, whose vertex
    /// table shows `head` rows) reads back: one invocation, a GPU summary
    /// of a scalar or vector, or everything (other stages, other types,
    /// `GLDBG_READBACK=all`).
    pub fn print_mode(&self, expr: &str, cell: Option<Cell>, head: u32) -> ReadMode {
        let stage = self.model.stage();
        if forced_all() || !matches!(stage, Stage::Fragment | Stage::Vertex | Stage::Compute) {
            return ReadMode::All;
        }
        if let Some(cell) = cell {
            return ReadMode::One(cell);
        }
        let step = match self.finished {
            true => self.model.last_step_of_main().unwrap_or(self.pos.step),
            false => self.pos.step,
        };
        let ty = self.model.expression_type(step, expr).ok().flatten();
        match ty.as_deref().and_then(summary_type) {
            Some((base, components)) => ReadMode::Summary {
                base,
                components,
                head: if stage == Stage::Vertex { head } else { 0 },
            },
            None => ReadMode::All,
        }
    }
}

/// What a step reply's readback means for its probe.
pub enum Reply {
    /// Everything was read: decode as always.
    Whole,
    /// One invocation or a summary, decoded.
    Held(Box<ProbeResult>),
    /// What came back cannot be trusted (a summary of another type than
    /// asked, a point elsewhere): read again whole.
    Retry,
}

/// The parts of a step reply a point or summary is read from: its
/// readback, its values (`stride` floats per held invocation) and coverage
/// (one byte per held invocation).
pub struct HeldRefs {
    pub readback: ReadbackReply,
    pub values: BulkRef,
    pub stride: usize,
    pub coverage: BulkRef,
}

/// Decode a step reply's point or summary for a probe of `extent` (width,
/// rows, layers) asked as `mode`.
pub fn held(
    shm: &SharedMemory,
    refs: &HeldRefs,
    (width, rows, layers): (u32, u32, u32),
    mut timing: Timing,
    mode: &ReadMode,
) -> Reply {
    let rb = &refs.readback;
    if rb.mode == READBACK_ALL {
        return Reply::Whole;
    }
    timing.readback_bytes = u64::from(refs.values.len) + u64::from(refs.coverage.len);
    let code = glsl_instrument::coverage_code(rb.code as f32);
    let mut r = ProbeResult {
        width,
        height: rows * layers,
        layers,
        values: Vec::new(),
        components: 0,
        coverage: shm.read_bytes(refs.coverage),
        code,
        timing,
        emission: Vec::new(),
        held: Held::All,
        trace: None,
    };
    let words = decode_type(code as f32).map_or(0, |t| t.words().min(refs.stride));
    r.values = shm.read_texel_components(refs.values, refs.stride, words);
    r.components = words;
    let held = rb.held as usize;
    if r.coverage.len() != held || r.values.len() != held * words {
        return Reply::Retry;
    }
    match (rb.mode, *mode) {
        (READBACK_ONE, ReadMode::One(cell)) => {
            // Not reached, and no type: the preload shaded that pixel alone
            // (`narrowed`): the draw's type comes from a whole readback.
            if rb.narrowed != 0 && held == 1 && r.coverage[0] == 0 && code == 0 {
                return Reply::Retry;
            }
            let index = r.index(cell);
            match (index, rb.index) {
                (None, u32::MAX) if held == 0 => r.held = Held::One(usize::MAX),
                (Some(i), got) if got as usize == i && held == 1 => r.held = Held::One(i),
                _ => return Reply::Retry,
            }
        }
        (
            READBACK_SUMMARY,
            ReadMode::Summary {
                base, components, ..
            },
        ) => match summary_stats(&rb.summary, base, components) {
            Some(s) => r.held = Held::Summary(s),
            None => return Reply::Retry,
        },
        _ => return Reply::Retry,
    }
    Reply::Held(Box::new(r))
}

/// The summary words as [`Stats`], if the reached invocations all wrote
/// the type asked for; none reached: the empty summary of one component
/// (as a full readback gives).
fn summary_stats(w: &[u32; abi::SUMMARY_WORDS], base: u32, components: u32) -> Option<Stats> {
    let count = w[abi::SUMMARY_COUNT];
    if count == 0 {
        return Some(Stats::new(1).finish());
    }
    if w[abi::SUMMARY_CODE_MIN] != w[abi::SUMMARY_CODE_MAX] {
        return None;
    }
    let ty = decode_type(f32::from_bits(w[abi::SUMMARY_CODE_MAX]))?;
    let wrote = match ty.base {
        BaseType::Float => abi::SUMMARY_FLOAT,
        BaseType::Int => abi::SUMMARY_INT,
        BaseType::Uint => abi::SUMMARY_UINT,
        BaseType::Bool => abi::SUMMARY_BOOL,
        BaseType::Double => return None,
    };
    if wrote != base || u32::from(ty.components) != components {
        return None;
    }
    let n = components as usize;
    let mut s = Stats::new(n);
    s.count = u64::from(count);
    s.nan = u64::from(w[abi::SUMMARY_NAN]);
    s.inf = u64::from(w[abi::SUMMARY_INF]);
    for k in 0..n {
        let (lo, hi) = (w[abi::SUMMARY_MIN + k], w[abi::SUMMARY_MAX + k]);
        if lo <= hi {
            s.min[k] = unorder(lo, base);
            s.max[k] = unorder(hi, base);
        }
    }
    Some(s.finish())
}

/// A value back from the order-preserving word the GPU compared.
fn unorder(o: u32, base: u32) -> f64 {
    match base {
        abi::SUMMARY_INT => f64::from((o ^ 0x8000_0000) as i32),
        abi::SUMMARY_UINT | abi::SUMMARY_BOOL => f64::from(o),
        _ => {
            let bits = if o & 0x8000_0000 != 0 {
                o & 0x7fff_ffff
            } else {
                !o
            };
            f64::from(f32::from_bits(bits))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The GPU's order-preserving word of a value (as `reduce.rs` computes it).
    fn order(bits: u32, base: u32) -> u32 {
        match base {
            abi::SUMMARY_INT => bits ^ 0x8000_0000,
            abi::SUMMARY_UINT => bits,
            abi::SUMMARY_BOOL => u32::from(bits << 1 != 0),
            _ if bits & 0x8000_0000 != 0 => !bits,
            _ => bits | 0x8000_0000,
        }
    }

    #[test]
    fn ordered_words_keep_the_order_and_come_back_exact() {
        let floats = [-f32::MAX, -1.5, -0.0, 0.0, 1e-30, 2.5, f32::MAX];
        for pair in floats.windows(2) {
            let (a, b) = (pair[0].to_bits(), pair[1].to_bits());
            assert!(order(a, 0) < order(b, 0), "{pair:?}");
        }
        for f in floats {
            assert_eq!(unorder(order(f.to_bits(), 0), 0), f64::from(f));
        }
        for i in [i32::MIN, -7, 0, 3, i32::MAX] {
            assert_eq!(unorder(order(i as u32, 1), 1), f64::from(i));
        }
        assert!(order((-7i32) as u32, 1) < order(3, 1));
        assert_eq!(unorder(order(u32::MAX, 2), 2), f64::from(u32::MAX));
    }

    #[test]
    fn a_summary_of_another_type_is_not_trusted() {
        let mut w = [0u32; abi::SUMMARY_WORDS];
        w[abi::SUMMARY_COUNT] = 3;
        // Code 1 is a float (see glsl_instrument::decode_type).
        let float_code = (1.0f32).to_bits();
        w[abi::SUMMARY_CODE_MIN] = float_code;
        w[abi::SUMMARY_CODE_MAX] = float_code;
        w[abi::SUMMARY_MIN] = order((-2.0f32).to_bits(), 0);
        w[abi::SUMMARY_MAX] = order((5.0f32).to_bits(), 0);
        let ty = decode_type(1.0).unwrap();
        assert_eq!((ty.base, ty.components), (BaseType::Float, 1));
        let s = summary_stats(&w, abi::SUMMARY_FLOAT, 1).unwrap();
        assert_eq!((s.count, s.min[0], s.max[0]), (3, -2.0, 5.0));
        assert!(summary_stats(&w, abi::SUMMARY_INT, 1).is_none());
        assert!(summary_stats(&w, abi::SUMMARY_FLOAT, 2).is_none());
        w[abi::SUMMARY_CODE_MAX] = (2.0f32).to_bits();
        assert!(
            summary_stats(&w, abi::SUMMARY_FLOAT, 1).is_none(),
            "mixed codes"
        );
    }

    #[test]
    fn components_without_a_finite_value_have_nan_bounds() {
        let mut w = [0u32; abi::SUMMARY_WORDS];
        w[abi::SUMMARY_COUNT] = 2;
        w[abi::SUMMARY_NAN] = 2;
        w[abi::SUMMARY_CODE_MIN] = (1.0f32).to_bits();
        w[abi::SUMMARY_CODE_MAX] = (1.0f32).to_bits();
        w[abi::SUMMARY_MIN] = !0;
        let s = summary_stats(&w, abi::SUMMARY_FLOAT, 1).unwrap();
        assert!(s.min[0].is_nan() && s.max[0].is_nan());
        assert_eq!((s.count, s.nan, s.inf), (2, 2, 0));
    }

    #[test]
    fn print_types_map_to_summaries() {
        assert_eq!(summary_type("vec3"), Some((abi::SUMMARY_FLOAT, 3)));
        assert_eq!(summary_type("bvec2"), Some((abi::SUMMARY_BOOL, 2)));
        assert_eq!(summary_type("uint"), Some((abi::SUMMARY_UINT, 1)));
        assert_eq!(summary_type("dvec2"), None);
        assert_eq!(summary_type("mat2"), None);
        assert_eq!(summary_type("vec5"), None);
        assert_eq!(summary_type(""), None);
    }
}
