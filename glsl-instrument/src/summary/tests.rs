//! Unit tests of the locals summary: per stage, every reachable position's
//! shader re-parses and calls the helper once with every summarised part;
//! the variables, roles, component offsets and `maybe_undefined` are right;
//! the block and version rules hold; the key orders values.

use super::*;
use crate::instrument::test_support;
use crate::{Api, Stage};

/// Locals the summary's test shaders add to the shared ones (a double, an
/// unsigned vector, a bool), after the array local.
const MORE_LOCALS: &str = "
    double d = 1.0lf;
    uvec2 u = uvec2(1u);
    bool flag = true;";

/// The shared per-stage test shaders with [`MORE_LOCALS`].
fn stage_shaders() -> Vec<(Stage, String)> {
    test_support::stage_shaders(MORE_LOCALS)
}

/// Positions reachable from the entry (iterations capped at 2, at most
/// about 200).
fn reachable(m: &ShaderModel) -> Vec<Position> {
    test_support::reachable_up_to(m, 200)
}

/// The position at the step whose text starts with `text`, reached first.
fn position_at(m: &ShaderModel, text: &str) -> Position {
    let mut all = reachable(m);
    all.sort_by_key(|p| p.iterations.iter().sum::<u32>());
    all.into_iter()
        .find(|p| m.step(p.step).text.starts_with(text))
        .unwrap_or_else(|| panic!("no step {text}"))
}

fn names(s: &LocalsSummary) -> Vec<&str> {
    s.vars.iter().map(|v| v.name.as_str()).collect()
}

#[test]
fn every_stage_and_position_reparses_with_one_helper_call() {
    for (stage, src) in stage_shaders() {
        let m = ShaderModel::parse(&src, stage).unwrap();
        let positions = reachable(&m);
        assert!(positions.len() > 20, "{stage:?}");
        for pos in positions {
            let s = m
                .instrument_locals_summary(&pos)
                .unwrap_or_else(|e| panic!("{stage:?} {pos:?}: {e}"));
            let text = &s.shader.source;
            ShaderModel::parse(text, stage).unwrap_or_else(|e| panic!("{stage:?}: {e}\n{text}"));
            assert!(s.block.starts_with("gldbg_"), "{}", s.block);
            assert!(text.contains(&format!("buffer {} {{", s.block)), "{text}");
            assert_eq!(s.binding, None);
            assert_eq!(s.maybe_undefined.len(), s.vars.len());
            // Only locals and parameters; the probe's path uniform where
            // the position is in a loop.
            assert!(
                s.vars
                    .iter()
                    .all(|v| matches!(v.role, VarRole::Local | VarRole::Param { .. }))
            );
            assert_eq!(
                s.shader.path_uniform.is_some(),
                !pos.iterations.is_empty(),
                "{pos:?}"
            );
            // Offsets are component indices, one after the other.
            let mut next = 0;
            for p in s.vars.iter().flat_map(|v| v.parts.iter()) {
                assert_eq!(p.offset, next);
                next += u32::from(p.ty.components);
            }
            assert_eq!(s.components(), next as usize);
            assert_eq!(s.block_words(), 4 + 4 * next as usize);
            // The helper is called once (the probe), with every part.
            let call = format!("gldbg_sum({}", s.vars.first().map_or("", |v| &v.name));
            assert_eq!(text.matches("gldbg_sum(").count(), 2, "{text}");
            assert!(text.contains(&call), "{call}\n{text}");
            // The block comes before the first function.
            let block_at = text.find("buffer gldbg_Summary").unwrap();
            assert!(block_at < text.find("void main").unwrap());
        }
    }
}

#[test]
fn in_the_inner_loop_every_local_is_summarised_but_doubles() {
    let (_, src) = &stage_shaders()[0];
    let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
    let pos = position_at(&m, "acc = y");
    assert_eq!(pos.iterations, [0, 0]);
    let s = m.instrument_locals_summary(&pos).unwrap();
    assert_eq!(names(&s), ["acc", "p", "arr", "u", "flag", "i", "j", "y"]);
    assert!(s.vars.iter().all(|v| v.role == VarRole::Local));
    assert_eq!(
        s.maybe_undefined,
        [true, false, true, false, false, false, false, true]
    );
    // acc 1, p.a 1, p.b 2, arr 3 x 1, u 2, flag 1, i 1, j 1, y 1.
    let offsets: Vec<(String, u32)> = s
        .vars
        .iter()
        .flat_map(|v| {
            v.parts
                .iter()
                .map(move |p| (format!("{}{}", v.name, p.path), p.offset))
        })
        .collect();
    let want = [
        ("acc", 0),
        ("p.a", 1),
        ("p.b", 2),
        ("arr[0]", 4),
        ("arr[1]", 5),
        ("arr[2]", 6),
        ("u", 7),
        ("flag", 9),
        ("i", 10),
        ("j", 11),
        ("y", 12),
    ];
    let got: Vec<(&str, u32)> = offsets.iter().map(|(n, o)| (n.as_str(), *o)).collect();
    assert_eq!(got, want);
    assert_eq!(s.components(), 13);
    let text = &s.shader.source;
    assert!(
        text.contains("gldbg_sum(acc, p.a, p.b, arr[0], arr[1], arr[2], u, flag, i, j, y)"),
        "{text}"
    );
    // Each kind of component keyed as documented.
    assert!(text.contains("gldbg_sum_key(uint(gldbg_sum_x_a8) ^ 0x80000000u, 10u)"));
    assert!(text.contains("gldbg_sum_key(gldbg_sum_x_a6.y, 8u)"));
    assert!(text.contains("gldbg_sum_key(gldbg_sum_x_a7 ? 1u : 0u, 9u)"));
    assert!(text.contains("gldbg_sum_float(gldbg_sum_x_a2.y, 3u)"));
}

#[test]
fn in_the_function_the_parameters_are_summarised_and_out_is_undefined() {
    let (_, src) = &stage_shaders()[5];
    let m = ShaderModel::parse(src, Stage::Compute).unwrap();
    let pos = position_at(&m, "z.y += y");
    assert_eq!(pos.calls.len(), 1);
    let s = m.instrument_locals_summary(&pos).unwrap();
    assert_eq!(names(&s), ["x", "y", "z"]);
    assert_eq!(
        s.vars.iter().map(|v| v.role).collect::<Vec<_>>(),
        [
            VarRole::Param { defined: true },
            VarRole::Param { defined: false },
            VarRole::Param { defined: true },
        ]
    );
    assert_eq!(s.maybe_undefined, [false, true, false]);
    assert_eq!(s.components(), 4);
    // main's locals, the global and the uniform are not in it.
    assert!(s.shader.source.contains("gldbg_sum(x, y, z)"));
}

#[test]
fn at_mains_first_step_nothing_is_summarised_but_the_count() {
    let (_, src) = &stage_shaders()[0];
    let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
    let s = m.instrument_locals_summary(&m.entry()).unwrap();
    assert!(s.vars.is_empty());
    assert_eq!(s.block_words(), 4);
    assert!(s.shader.source.contains("gldbg_sum()"));
}

#[test]
fn glsl_without_storage_blocks_is_refused_and_old_desktop_glsl_gets_extensions() {
    let body = "void main() { float a = 1.0; gl_FragColor = vec4(a); }";
    let m = ShaderModel::parse(&format!("#version 130\n{body}"), Stage::Fragment).unwrap();
    let err = m.instrument_locals_summary(&m.entry()).unwrap_err();
    assert!(matches!(err, InstrumentError::Unsupported(_)), "{err}");
    let es = "#version 300 es\nprecision mediump float;\nout vec4 c;\nvoid main() { float a = 1.0; c = vec4(a); }";
    let m = ShaderModel::parse_in(es, Stage::Fragment, Api::Es).unwrap();
    let err = m.instrument_locals_summary(&m.entry()).unwrap_err();
    assert!(matches!(err, InstrumentError::Unsupported(_)), "{err}");
    let m = ShaderModel::parse(&format!("#version 140\n{body}"), Stage::Fragment).unwrap();
    let pos = position_at(&m, "gl_FragColor");
    let s = m.instrument_locals_summary(&pos).unwrap();
    let text = &s.shader.source;
    assert!(text.contains("#extension GL_ARB_shader_storage_buffer_object : require"));
    assert!(text.contains("#extension GL_ARB_shader_bit_encoding : require"));
    // No instance name before 1.50: the members have fresh names.
    assert!(text.contains("atomicAdd(gldbg_summary_hits, 1u)"), "{text}");
    ShaderModel::parse(text, Stage::Fragment).unwrap_or_else(|e| panic!("{e}\n{text}"));
    // An unknown step.
    let bad = Position {
        step: crate::StepId(999),
        calls: vec![],
        iterations: vec![],
    };
    assert!(matches!(
        m.instrument_locals_summary(&bad),
        Err(InstrumentError::NoSuchStep(999))
    ));
}

#[test]
fn gles_declares_the_block_with_a_binding_after_the_apps() {
    let src = "#version 310 es\nprecision mediump float;\nlayout(local_size_x = 1) in;\n\
               layout(std430, binding = 3) buffer O { float o[]; };\n\
               void main() { float a = 2.0; o[0] = a; }";
    let m = ShaderModel::parse_in(src, Stage::Compute, Api::Es).unwrap();
    let pos = position_at(&m, "o[0]");
    let s = m.instrument_locals_summary(&pos).unwrap();
    // The app's 3, then the probe's two.
    assert_eq!(s.binding, Some(6));
    let text = &s.shader.source;
    assert!(text.contains("layout(std430, binding = 6) buffer gldbg_Summary"));
    assert!(text.contains("highp float gldbg_sum(highp float gldbg_sum_x_a0)"));
    ShaderModel::parse_in(text, Stage::Compute, Api::Es).unwrap_or_else(|e| panic!("{e}\n{text}"));
}

#[test]
fn keys_order_values_and_decode_back() {
    let floats = [f32::NEG_INFINITY, -3.5, -0.0, 0.0, 1e-40, 2.0, f32::MAX];
    for w in floats.windows(2) {
        assert!(
            float_key(w[0].to_bits()) < float_key(w[1].to_bits()),
            "{w:?}"
        );
    }
    for f in floats {
        let back = key_value(BaseType::Float, float_key(f.to_bits())).unwrap();
        assert_eq!(back.to_bits(), f64::from(f).to_bits());
    }
    let ints = [i32::MIN, -1, 0, 1, i32::MAX];
    for i in ints {
        let key = (i as u32) ^ 0x8000_0000;
        assert_eq!(key_value(BaseType::Int, key), Some(f64::from(i)));
    }
    // A component that never had a finite value: words 0, 0.
    let none = ComponentSummary::from_words(&[0, 0, 3, 0], 0).unwrap();
    assert_eq!(none.range(), None);
    assert_eq!(none.nan, 3);
    let one = ComponentSummary::from_words(&[0, 0, 0, 0, !7, 9, 0, 1], 1).unwrap();
    assert_eq!(one.range(), Some((7, 9)));
    assert_eq!(ComponentSummary::from_words(&[0; 4], 1), None);
}
