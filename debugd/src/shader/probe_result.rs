//! What a probe read back ([`ProbeResult`]: per invocation, the value's
//! components and whether it reached the step) and a value as `print`
//! shows it ([`ProbedValue`]: the probes of its parts, with which
//! components were not written yet).

use std::sync::Arc;

use super::reply::{Timing, ValuePart};
use glsl_instrument::decode_type;

use super::readback::Held;
use crate::image::{Field, Stats};

/// What one replay of the draw with a debug shader read back.
#[derive(Clone, Debug)]
pub struct ProbeResult {
    pub width: u32,
    pub height: u32,
    /// Layers stacked in `height` (compute: the z extent of the dispatch,
    /// each layer `height / layers` rows of y); 1 otherwise.
    pub layers: u32,
    /// The value's first `components` floats per pixel (of the RGBA32F the
    /// shader wrote), rows bottom-up; empty for a coverage-only probe.
    pub values: Vec<f32>,
    pub components: usize,
    /// Per invocation: nonzero if it reached the probed step.
    pub coverage: Vec<u8>,
    /// The type code (see `decode_type`) the reached invocations wrote:
    /// one expression, one type; 0 when none was reached.
    pub code: u8,
    /// What the preload reported for it (build, replay, readback, cached).
    pub timing: Timing,
    /// Geometry: per captured vertex (emit index, input primitive,
    /// invocation); empty for other stages.
    pub emission: Vec<[u32; 3]>,
    /// Which invocations `values` and `coverage` hold: all, or (a print's
    /// point or summary readback) one, or a summary and the first few.
    pub held: Held,
    /// A trace shader's records (`None` for other probes).
    pub trace: Option<super::link::TraceData>,
}

/// The invocation `focus` follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    /// A fragment, vertex, tess or compute invocation.
    Cell(Cell),
    /// The geometry shader invocation(s) of an input primitive: reached
    /// where a vertex it emitted after the step was captured.
    Primitive(u32),
}

impl Focus {
    /// Whether the focused invocation reached the step `r` probed.
    pub fn reached(&self, r: &ProbeResult) -> bool {
        match *self {
            Focus::Cell(cell) => r.reached_at(cell),
            Focus::Primitive(n) => r
                .emitted_by(n)
                .iter()
                .any(|&(i, _, _)| r.coverage.get(i).is_some_and(|&c| c != 0)),
        }
    }
}

/// An invocation as `print` and `focus` name it: a fragment's pixel
/// `(x, y, 0)`, vertex N as `(N, 0, 0)`, a compute invocation's global id.
pub type Cell = (u32, u32, u32);

impl ProbeResult {
    /// The captured vertices input primitive `primitive` emitted, as
    /// (captured index, emit index, invocation), in emission order, each
    /// emission once: transform feedback splits strips into independent
    /// primitives, so a strip's inner vertices are captured twice or more.
    pub fn emitted_by(&self, primitive: u32) -> Vec<(usize, u32, u32)> {
        let mut out: Vec<(usize, u32, u32)> = Vec::new();
        for (i, &[emit, prim, invocation]) in self.emission.iter().enumerate() {
            if prim == primitive
                && !out
                    .iter()
                    .any(|&(_, e, inv)| (e, inv) == (emit, invocation))
            {
                out.push((i, emit, invocation));
            }
        }
        out.sort_by_key(|&(_, emit, invocation)| (invocation, emit));
        out
    }

    /// The memory the result holds.
    pub fn heap_bytes(&self) -> usize {
        self.values.len() * 4 + self.coverage.len() + self.emission.len() * 12
    }

    /// Where `cell` is in `values` (×4) and `coverage`; `None` outside.
    pub fn index(&self, (x, y, z): Cell) -> Option<usize> {
        let layers = self.layers.max(1);
        let rows = self.height / layers;
        (x < self.width && y < rows && z < layers)
            .then(|| ((y + z * rows) as usize) * self.width as usize + x as usize)
    }

    /// Whether the invocation at `cell` reached the probed step.
    pub fn reached_at(&self, cell: Cell) -> bool {
        // A point or summary result holds too few invocations to say: a
        // wrong "not reached" is worse than a failed request.
        assert!(self.held == Held::All, "reached_at needs every invocation");
        self.index(cell)
            .and_then(|i| self.coverage.get(i))
            .is_some_and(|&c| c != 0)
    }

    /// The extent as `print` reports it: width, rows, layers.
    pub fn extent(&self) -> (u32, u32, u32) {
        let layers = self.layers.max(1);
        (self.width, self.height / layers, layers)
    }

    pub fn reached(&self) -> u64 {
        if let Held::Summary(s) = &self.held {
            return s.count;
        }
        assert!(
            self.held == Held::All,
            "a point result counts one invocation"
        );
        self.coverage.iter().filter(|&&c| c != 0).count() as u64
    }

    /// Where invocation `i` is in `values` and `coverage` (`None`: not
    /// held). Point results are asked only about their own invocation.
    fn local(&self, i: usize) -> Option<usize> {
        match self.held {
            Held::All | Held::Summary(_) => Some(i),
            Held::One(p) => {
                assert_eq!(p, i, "a point result asked about another invocation");
                (p == i).then_some(0)
            }
        }
    }

    /// The type the reached invocations wrote, its GLSL name ("" when none
    /// was reached) and its components (1..=4).
    pub fn value_type(&self) -> (Option<glsl_instrument::ValueType>, String, usize) {
        let ty = decode_type(self.code as f32);
        let name = ty.map(|t| t.to_string()).unwrap_or_default();
        (
            ty,
            name,
            ty.map_or(1, |t| t.components.clamp(1, 4) as usize),
        )
    }

    /// The decoded value of invocation `i` (`None`: not reached).
    pub fn value_at(&self, i: usize) -> Option<[f64; 4]> {
        self.decode_at(decode_type(self.code as f32)?, i)
    }

    fn decode_at(&self, ty: glsl_instrument::ValueType, i: usize) -> Option<[f64; 4]> {
        let i = self.local(i)?;
        if self.coverage.get(i).is_none_or(|&c| c == 0) {
            return None;
        }
        let k = self.components;
        let t = [0, 1, 2, 3].map(|c| {
            (c < k)
                .then(|| self.values.get(i * k + c).copied())
                .flatten()
                .unwrap_or(0.0)
        });
        Some(ty.decode_fixed(t).0)
    }

    /// The summary over the reached invocations, and the type name,
    /// without materializing the field (80 MB at 1080p).
    pub fn stats(&self) -> (Stats, String) {
        let (ty, name, comps) = self.value_type();
        if let Held::Summary(s) = &self.held {
            return (s.clone(), name); // reduced on the GPU
        }
        let mut s = Stats::new(comps);
        if let Some(ty) = ty {
            for i in 0..self.coverage.len() {
                if let Some(v) = self.decode_at(ty, i) {
                    s.add(&v);
                }
            }
        }
        (s.finish(), name)
    }

    /// Decode into a field of values (for images); also the GLSL type name.
    pub fn field(&self) -> (Field, String) {
        assert!(self.held == Held::All, "a field needs every invocation");
        let n = (self.width * self.height) as usize;
        let (ty, name, comps) = self.value_type();
        (
            Field {
                width: self.width,
                height: self.height,
                components: comps,
                values: (0..n)
                    .map(|i| ty.and_then(|ty| self.decode_at(ty, i)))
                    .collect(),
            },
            name,
        )
    }
}

/// A value as `print` shows it: the probes of its parts (one, for a value
/// the debug output holds; a matrix's columns, an array's elements, a
/// struct's fields otherwise), their components concatenated.
pub struct ProbedValue {
    /// The GLSL type of the whole value.
    pub ty: String,
    pub(super) parts: Vec<ProbedPart>,
}

pub(super) struct ProbedPart {
    /// Where the part is inside the value (`[1]`, `.color`; empty for a
    /// value in one part).
    pub(super) path: String,
    /// Its GLSL type as the type checker knows it.
    pub(super) ty: String,
    pub(super) result: Arc<ProbeResult>,
    /// Its written probe (per invocation: whether the outputs it reads were
    /// written yet); `None` when it reads no tracked output.
    pub(super) written: Option<Arc<ProbeResult>>,
    /// The names it reads whose writes gldbg cannot tell (no written
    /// probe then).
    pub(super) unknown: Vec<String>,
}

impl ProbedPart {
    /// Which of the part's `n` components invocation `i` has not written
    /// yet (a one-flag written probe covers them all).
    fn undefined_at(&self, i: usize, n: usize) -> Vec<usize> {
        let Some(w) = &self.written else {
            return Vec::new();
        };
        let Some(flags) = w.value_at(i) else {
            return Vec::new(); // the written probe did not reach: cannot say
        };
        let k = w.value_type().2;
        (0..n)
            .filter(|&c| flags[if k == 1 { 0 } else { c.min(k - 1) }] == 0.0)
            .collect()
    }
}

impl ProbedValue {
    /// The probe of the first part: where the invocations are, which
    /// reached the position, what a geometry shader emitted. All parts are
    /// probes at the same position, so they agree on these.
    pub fn first(&self) -> &ProbeResult {
        &self.parts[0].result
    }

    /// Whether the value was probed in parts (a struct whose other members
    /// are opaque has only one).
    pub fn is_composite(&self) -> bool {
        self.parts.len() > 1 || self.parts.iter().any(|p| !p.path.is_empty())
    }

    /// The parts' paths, for a message.
    pub fn part_paths(&self) -> Vec<&str> {
        self.parts.iter().map(|p| p.path.as_str()).collect()
    }

    /// The parts as `PrintReply.parts` lists them: none for a value in one
    /// part.
    pub fn reply_parts(&self) -> Vec<ValuePart> {
        if !self.is_composite() {
            return Vec::new();
        }
        self.parts
            .iter()
            .map(|p| {
                let (ty, _, components) = p.result.value_type();
                ValuePart {
                    path: p.path.clone(),
                    // The type the driver wrote where reached (an int of an
                    // old GLSL comes back as float).
                    ty: ty.map_or_else(|| p.ty.clone(), |t| t.to_string()),
                    components: components as u32,
                }
            })
            .collect()
    }

    /// How many components the value has (those of a part none reached
    /// count as one).
    pub fn components(&self) -> usize {
        self.parts.iter().map(|p| p.result.value_type().2).sum()
    }

    /// The value of invocation `i`, all components in order (`None`: not
    /// reached).
    pub fn value_at(&self, i: usize) -> Option<Vec<f64>> {
        let mut out = Vec::new();
        for p in &self.parts {
            let v = p.result.value_at(i)?;
            out.extend_from_slice(&v[..p.result.value_type().2]);
        }
        Some(out)
    }

    /// The components of invocation `i`'s value (indices into
    /// [`ProbedValue::value_at`]) not written yet at the position: an output
    /// before its first write, or left out by a partial write.
    pub fn undefined_at(&self, i: usize) -> Vec<u32> {
        let mut out = Vec::new();
        let mut base = 0;
        for p in &self.parts {
            let n = p.result.value_type().2;
            out.extend(p.undefined_at(i, n).into_iter().map(|c| (base + c) as u32));
            base += n;
        }
        out
    }

    /// The names the value reads whose writes gldbg cannot tell.
    pub fn written_unknown(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for n in self.parts.iter().flat_map(|p| &p.unknown) {
            if !out.contains(n) {
                out.push(n.clone());
            }
        }
        out
    }

    /// Whether any part has a written probe.
    fn tracks_writes(&self) -> bool {
        self.parts.iter().any(|p| p.written.is_some())
    }

    /// The summary over the reached invocations whose value is written,
    /// and how many reached ones are not (wholly) written yet.
    pub fn stats(&self) -> (Stats, u64) {
        if let [only] = self.parts.as_slice()
            && only.written.is_none()
        {
            return (only.result.stats().0, 0); // without building a Vec per invocation
        }
        let mut s = Stats::new(self.components());
        let mut undefined = 0;
        for i in 0..self.first().coverage.len() {
            if let Some(v) = self.value_at(i) {
                if self.tracks_writes() && !self.undefined_at(i).is_empty() {
                    undefined += 1;
                } else {
                    s.add(&v);
                }
            }
        }
        (s.finish(), undefined)
    }
}
