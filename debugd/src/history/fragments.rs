//! A draw's fragments at the pixel, from its `CMD_PIXEL_HISTORY` reply:
//! the records (what the shader did) and the passes (what the app's tests
//! and blending did with each primitive's fragment). Which test rejected a
//! fragment: the scissor by the app's box; `discard` by the record (the
//! app's `main` never returned); for a fragment the occlusion query saw
//! no sample of, the alpha test and then the stencil test by their
//! functions over the recorded output and the stencil value before it,
//! and the depth test only where those passed (GL's order). Where none of
//! them rejected it, "other" (a sample mask, a disabled draw buffer).

use gldbg_proto::shm::{self as abi, FragmentPass, FragmentTests, PixelValue};
use glsl_instrument::{BaseType, HISTORY_DONE, HistoryOutput, HistoryRecord};

use super::{Color, Fragment, color};

/// What a draw's reply says, for [`fragments`].
pub struct DrawReply<'a> {
    pub records: Vec<HistoryRecord>,
    pub passes: Vec<FragmentPass>,
    pub tests: FragmentTests,
    pub before: PixelValue,
    /// `PASSES_*` of the preload.
    pub passed: u32,
    /// The shader's output for the image's draw buffer.
    pub output: Option<&'a HistoryOutput>,
    /// `abi::PIXEL_*` of the image.
    pub kind: u32,
    /// The draw buffer writing the image (the alpha test reads draw
    /// buffer 0's output).
    pub draw_buffer: u32,
    /// The shader asks for early fragment tests.
    pub early_tests: bool,
}

/// [`DrawReply::passed`] values (the preload's `history.rs`).
pub const PASSES_RUN: u32 = 1;
pub const PASSES_NO_FORMAT: u32 = 2;
pub const PASSES_AMBIGUOUS: u32 = 3;
pub const PASSES_TOO_MANY: u32 = 4;
pub const PASSES_MULTISAMPLE: u32 = 5;

/// The fragments in primitive order, and a note where something is unknown.
pub fn fragments(r: &DrawReply<'_>, pixel: (i32, i32)) -> (Vec<Fragment>, String) {
    let mut records = r.records.clone();
    records.sort_by_key(|rec| rec.primitive);
    let t = &r.tests;
    let scissored = t.scissor_on != 0 && !inside(t.scissor, pixel);
    let note = match r.passed {
        _ if scissored || records.is_empty() => String::new(),
        PASSES_RUN => String::new(),
        PASSES_NO_FORMAT => {
            "the image's format cannot be copied: which tests passed is not known".into()
        }
        PASSES_AMBIGUOUS => "two fragments have one primitive id (instances, a multi-draw, \
                             or no gl_PrimitiveID before GLSL 1.50): their order, and so which \
                             tests passed, is not known"
            .into(),
        PASSES_TOO_MANY => "too many fragments at the pixel to pass one by one".into(),
        PASSES_MULTISAMPLE => "the framebuffer is multisampled: which tests passed is not known \
                               (gldbg passes single-sampled fragments)"
            .into(),
        _ => "the fragments were not passed through the tests".into(),
    };
    if r.early_tests && !records.is_empty() && !scissored {
        return (
            early(r, &records),
            "the shader asks for early fragment tests (they run before \
                 it, and before its discard): which tests passed is not known"
                .into(),
        );
    }
    let mut state = r.before;
    let mut out = Vec::with_capacity(records.len());
    for rec in &records {
        let done = rec.state == HISTORY_DONE;
        let mut f = Fragment {
            primitive: rec.primitive,
            front_facing: rec.front_facing,
            ..Default::default()
        };
        let unchanged = |f: &mut Fragment, v: &PixelValue| {
            f.color_before = color(v.color, r.kind);
            f.color_after = f.color_before.clone();
            (f.depth_before, f.stencil_before) = depth_stencil(v);
            (f.depth_after, f.stencil_after) = (f.depth_before, f.stencil_before);
        };
        if scissored {
            f.passed = Some(false);
            f.rejected_by = Some("scissor");
            unchanged(&mut f, &state);
            out.push(f);
            continue;
        }
        if done {
            f.depth = Some(f64::from(f32::from_bits(rec.depth)));
            f.output = r.output.map(|o| output_value(rec, o)).unwrap_or_default();
        }
        if !done {
            f.passed = Some(false);
            f.rejected_by = Some("discard");
            unchanged(&mut f, &state);
        } else if let Some(p) = r.passes.iter().find(|p| p.primitive == rec.primitive) {
            f.color_before = color(state.color, r.kind);
            (f.depth_before, f.stencil_before) = depth_stencil(&state);
            f.color_after = color(p.after.color, r.kind);
            (f.depth_after, f.stencil_after) = depth_stencil(&p.after);
            f.passed = Some(p.samples > 0);
            if p.samples == 0 {
                f.rejected_by = rejected_by(t, rec, (&f.output, r.draw_buffer), &state);
            }
            state = p.after;
        }
        out.push(f);
    }
    (out, note)
}

fn depth_stencil(v: &PixelValue) -> (Option<f64>, Option<u32>) {
    (
        (v.has_depth != 0).then_some(f64::from(v.depth)),
        (v.has_stencil != 0).then_some(v.stencil),
    )
}

fn inside([x, y, w, h]: [i32; 4], (px, py): (i32, i32)) -> bool {
    px >= x && py >= y && px < x.saturating_add(w) && py < y.saturating_add(h)
}

/// The output's components from the record's bits.
fn output_value(rec: &HistoryRecord, o: &HistoryOutput) -> Color {
    rec.value[..o.components as usize]
        .iter()
        .map(|&b| match o.base {
            BaseType::Int => f64::from(b as i32),
            BaseType::Uint => f64::from(b),
            _ => f64::from(f32::from_bits(b)),
        })
        .collect()
}

/// The fragments of a shader with early tests: what it output, nothing
/// of the tests (they ran before it, in an order gldbg does not replay).
fn early(r: &DrawReply<'_>, records: &[HistoryRecord]) -> Vec<Fragment> {
    records
        .iter()
        .map(|rec| {
            let done = rec.state == HISTORY_DONE;
            Fragment {
                primitive: rec.primitive,
                front_facing: rec.front_facing,
                depth: done.then(|| f64::from(f32::from_bits(rec.depth))),
                output: match done {
                    true => r.output.map(|o| output_value(rec, o)).unwrap_or_default(),
                    false => Vec::new(),
                },
                ..Default::default()
            }
        })
        .collect()
}

/// The test that rejected a fragment no sample of which passed (see the
/// module documentation); `before` is the pixel before it; `None` where
/// gldbg cannot tell (the alpha test of draw buffer 0 when the output
/// recorded is another's, a stencil it cannot read).
fn rejected_by(
    t: &FragmentTests,
    rec: &HistoryRecord,
    (output, draw_buffer): (&Color, u32),
    before: &PixelValue,
) -> Option<&'static str> {
    if t.alpha_on != 0 {
        match output.get(3) {
            Some(&a)
                if draw_buffer == 0
                    && !compare(t.alpha_func, a.clamp(0.0, 1.0), f64::from(t.alpha_ref)) =>
            {
                return Some("alpha");
            }
            Some(_) if draw_buffer == 0 => {}
            _ => return None,
        }
    }
    let has_stencil = t.buffers & 2 != 0;
    if t.stencil_on != 0 && has_stencil {
        if before.has_stencil == 0 {
            return None;
        }
        let face = usize::from(!rec.front_facing);
        let mask = t.stencil_mask[face];
        let reference = t.stencil_ref[face].clamp(0, 255) as u32 & mask;
        let value = before.stencil & mask;
        if !compare(t.stencil_func[face], f64::from(reference), f64::from(value)) {
            return Some("stencil");
        }
    }
    if t.depth_on != 0 && t.buffers & 1 != 0 {
        return Some("depth");
    }
    Some("other")
}

/// GL's comparison `func` (GL_NEVER .. GL_ALWAYS) of `a` against `b`, as
/// the tests apply it (`a` the incoming value or reference).
fn compare(func: u32, a: f64, b: f64) -> bool {
    match func {
        0x0200 => false,
        0x0201 => a < b,
        0x0202 => a == b,
        0x0203 => a <= b,
        0x0204 => a > b,
        0x0205 => a != b,
        0x0206 => a >= b,
        _ => true,
    }
}

/// The records of a reply's trace data (`HISTORY_RECORD_WORDS` words each).
pub fn records(words: &[u32]) -> Vec<HistoryRecord> {
    words
        .chunks_exact(abi::HISTORY_RECORD_WORDS)
        .map(HistoryRecord::from_words)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use glsl_instrument::HISTORY_ENTERED;

    fn rec(primitive: u32, state: u32, depth: f32, value: [f32; 4]) -> HistoryRecord {
        HistoryRecord {
            primitive,
            state,
            front_facing: true,
            depth: depth.to_bits(),
            value: value.map(f32::to_bits),
        }
    }

    fn px(c: [f32; 4], depth: f32, stencil: u32) -> PixelValue {
        PixelValue {
            color: c.map(f32::to_bits),
            depth,
            stencil,
            has_depth: 1,
            has_stencil: 1,
        }
    }

    const OUT: HistoryOutput = HistoryOutput {
        name: String::new(),
        base: BaseType::Float,
        components: 4,
    };

    #[test]
    fn each_fragment_is_judged_in_primitive_order() {
        let before = px([0.0; 4], 0.5, 1);
        let tests = FragmentTests {
            depth_on: 1,
            depth_func: 0x0201,
            stencil_on: 1,
            stencil_func: [0x0202; 2],
            stencil_ref: [1; 2],
            stencil_mask: [0xFF; 2],
            buffers: 3,
            ..Default::default()
        };
        let r = DrawReply {
            // Recorded out of order (atomics): sorted by primitive.
            records: vec![
                rec(2, HISTORY_DONE, 0.4, [0.0, 1.0, 0.0, 1.0]),
                rec(0, HISTORY_DONE, 0.3, [1.0, 0.0, 0.0, 1.0]),
                rec(1, HISTORY_DONE, 0.6, [0.0, 0.0, 1.0, 1.0]),
                rec(3, HISTORY_ENTERED, 0.0, [0.0; 4]),
            ],
            passes: vec![
                FragmentPass {
                    primitive: 0,
                    samples: 1,
                    after: px([1.0, 0.0, 0.0, 1.0], 0.3, 1),
                },
                FragmentPass {
                    primitive: 1,
                    samples: 0,
                    after: px([1.0, 0.0, 0.0, 1.0], 0.3, 1),
                },
                FragmentPass {
                    primitive: 2,
                    samples: 0,
                    after: px([1.0, 0.0, 0.0, 1.0], 0.3, 1),
                },
                FragmentPass {
                    primitive: 3,
                    samples: 0,
                    after: px([1.0, 0.0, 0.0, 1.0], 0.3, 1),
                },
            ],
            tests,
            before,
            passed: PASSES_RUN,
            output: Some(&OUT),
            kind: abi::PIXEL_FLOAT,
            draw_buffer: 0,
            early_tests: false,
        };
        let (f, note) = fragments(&r, (5, 5));
        assert!(note.is_empty());
        let summary: Vec<_> = f
            .iter()
            .map(|f| (f.primitive, f.passed, f.rejected_by))
            .collect();
        assert_eq!(
            summary,
            [
                (0, Some(true), None),
                (1, Some(false), Some("depth")),
                (2, Some(false), Some("depth")),
                (3, Some(false), Some("discard")),
            ]
        );
        assert_eq!(f[0].color_before, [0.0; 4]);
        assert_eq!(f[0].color_after, [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(
            f[1].depth_before,
            Some(f64::from(0.3f32)),
            "after the first fragment"
        );
        assert!(f[3].output.is_empty() && f[3].depth.is_none());
        // A stencil value the reference fails: stencil, not depth.
        let mut r2 = r;
        r2.before.stencil = 2;
        r2.passes[0].samples = 0;
        r2.passes[0].after = r2.before;
        let (f, _) = fragments(&r2, (5, 5));
        assert_eq!(f[0].rejected_by, Some("stencil"));
        // Outside the scissor: rejected there, no output.
        r2.tests.scissor_on = 1;
        r2.tests.scissor = [0, 0, 4, 4];
        let (f, _) = fragments(&r2, (5, 5));
        assert!(
            f.iter()
                .all(|f| f.rejected_by == Some("scissor") && f.output.is_empty())
        );
    }
}
