//! Tests of the hit and dprintf shaders' generated text.

use crate::{BaseType, HitKind, HitSpec, InstrumentError, ShaderModel, Stage, StepId, StepKind};

/// A user function called twice (once in a loop), a loop, an assignment
/// of each kind catch looks at.
const COMPUTE: &str = "#version 430
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Out { float o[]; };
float f(float x) {
    float y = x * 2.0;
    return y;
}
void main() {
    float acc = 0.0;
    int n = 3;
    for (int i = 0; i < 4; i++) {
        acc += f(float(i));
        n++;
    }
    vec3 v = vec3(acc);
    v.x += 1.0;
    float w = sqrt(acc - 100.0);
    float z = 0.0;
    acc = w / z;
    o[gl_GlobalInvocationID.x] = acc + f(v.x) + float(n);
}
";

fn compute() -> ShaderModel {
    ShaderModel::parse(COMPUTE, Stage::Compute).unwrap()
}

fn parses_again(source: &str, stage: Stage) {
    if let Err(e) = ShaderModel::parse(source, stage) {
        panic!("generated shader does not parse: {e}\n{source}");
    }
}

/// The steps starting on `line`.
fn on_line(m: &ShaderModel, line: u32) -> Vec<StepId> {
    m.steps_on_line(line)
}

fn hits(m: &ShaderModel, steps: &[StepId], cond: Option<&str>) -> String {
    let spec = HitSpec {
        after: 0,
        skip: 0,
        kind: HitKind::Condition { steps, cond },
    };
    let out = m.instrument_hits(&spec).unwrap();
    parses_again(&out.source, m.stage());
    out.source
}

#[test]
fn every_step_of_every_function_counts_once_before_it_runs() {
    let m = compute();
    let src = hits(&m, &on_line(&m, 12), Some("acc > 3.0"));
    // One count per step (the breakpoint's step counts inside its hit).
    assert_eq!(
        src.matches("gldbg_tick()").count(),
        m.steps().len() + 1,
        "{src}"
    );
    // The function body counts its two steps, each before it.
    assert!(
        src.contains("if (true) {\n        gldbg_tick();\n    }\n    float y = x * 2.;"),
        "{src}"
    );
    // The loop's condition and increment count where the trace records them.
    assert!(
        src.contains("; true && (gldbg_tick(), true), i < 4;"),
        "{src}"
    );
    assert!(
        src.contains("; true && (gldbg_tick(), true), i++)"),
        "{src}"
    );
    // The breakpoint's step: its hit with its record index and step id.
    let step = on_line(&m, 12)[0].0;
    assert!(
        src.contains(&format!("gldbg_hit(gldbg_tick(), {step}u, bool(acc > 3.))")),
        "{src}"
    );
    // main starts by zeroing the counter (record 0 is main's entry); the
    // value handed out is the first hit's record + 1, hits, its step.
    let main = src.find("void main()").unwrap();
    assert!(src[main..].contains("gldbg_reset();"), "{src}");
    assert!(
        src.contains("uvec4(gldbg_first, gldbg_hits, gldbg_hit_step, 0u)"),
        "{src}"
    );
    assert!(
        src.contains("if (gldbg_n < 4294967294u) gldbg_n++;"),
        "{src}"
    );
    assert!(
        src.contains("if (gldbg_hits < 4294967295u) gldbg_hits++;"),
        "{src}"
    );
}

#[test]
fn a_condition_with_an_effect_a_type_error_or_a_call_is_refused() {
    let m = compute();
    let steps = on_line(&m, 12);
    let err = |cond: &str| {
        let spec = HitSpec {
            after: 0,
            skip: 0,
            kind: HitKind::Condition {
                steps: &steps,
                cond: Some(cond),
            },
        };
        match m.instrument_hits(&spec) {
            Err(InstrumentError::BadExpression { message, .. }) => message,
            other => panic!("{cond}: {other:?}"),
        }
    };
    let e = err("acc++ > 3.0");
    assert!(e.contains("modif") || e.contains("effect"), "{e}");
    let e = err("acc > vec2(1.0)");
    assert!(e.contains("at column"), "{e}");
    let e = err("acc + nope > 1.0");
    assert!(e.contains("at column 7"), "{e}");
    let e = err("f(acc) > 1.0");
    assert!(e.contains("`f`"), "{e}");
    let e = err("vec2(acc)");
    assert!(e.contains("scalar"), "{e}");
    // An unknown step.
    let spec = HitSpec {
        after: 0,
        skip: 0,
        kind: HitKind::Condition {
            steps: &[StepId(999)],
            cond: None,
        },
    };
    assert_eq!(
        m.instrument_hits(&spec).err(),
        Some(InstrumentError::NoSuchStep(999))
    );
}

#[test]
fn catch_nan_checks_float_writes_after_the_step_and_not_int_ones() {
    let m = compute();
    let spec = HitSpec {
        after: 0,
        skip: 0,
        kind: HitKind::Catch {
            nan: true,
            inf: false,
        },
    };
    let out = m.instrument_hits(&spec).unwrap();
    parses_again(&out.source, Stage::Compute);
    let src = out.source;
    let step = |line: u32| on_line(&m, line)[0].0;
    let check = |line: u32, what: &str| {
        let k = if line == 5 { "gldbg_k" } else { "gldbg_k_1" };
        format!("gldbg_hit({k}, {}u, {what})", step(line))
    };
    // `x = y / z;`, `v.x += 1.0;`, `float w = sqrt(a);`, `acc += f(..)`.
    for (line, what) in [
        (19, "isnan(acc)"),
        (16, "isnan(v.x)"),
        (17, "isnan(w)"),
        (12, "isnan(acc)"),
        (15, "any(isnan(v))"),
        (5, "isnan(y)"),
    ] {
        assert!(src.contains(&check(line, what)), "line {line}: {src}");
    }
    // The check follows the statement.
    assert!(
        src.contains(&format!("v.x += 1.;\n    {};", check(16, "isnan(v.x)"))),
        "{src}"
    );
    // Int writes: none (`n++`, `int n = 3`, `i++`).
    for line in [10, 13] {
        assert!(!src.contains(&format!(", {}u, ", step(line))), "{src}");
    }
    assert!(!src.contains("i++, gldbg_hit"), "{src}");
    // Each step keeps its record index in its function's global.
    assert!(src.contains("gldbg_k = gldbg_tick()"), "{src}");
    assert!(src.contains("gldbg_k_1 = gldbg_tick()"), "{src}");
    // inf too.
    let spec = HitSpec {
        after: 0,
        skip: 0,
        kind: HitKind::Catch {
            nan: true,
            inf: true,
        },
    };
    let src = m.instrument_hits(&spec).unwrap().source;
    assert!(src.contains(&check(17, "isnan(w) || isinf(w)")), "{src}");
}

#[test]
fn catch_in_a_for_increment_checks_after_the_increment() {
    let src = "#version 330\nout vec4 c;\nvoid main() {\n    float t = 0.0;\n    for (int i = 0; i < 3; i++, t += 0.5) {\n        c = vec4(t);\n    }\n}\n";
    let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
    let spec = HitSpec {
        after: 0,
        skip: 0,
        kind: HitKind::Catch {
            nan: true,
            inf: false,
        },
    };
    let out = m.instrument_hits(&spec).unwrap();
    parses_again(&out.source, Stage::Fragment);
    let inc = m
        .steps()
        .iter()
        .find(|s| s.kind == StepKind::LoopIncrement)
        .unwrap()
        .id
        .0;
    assert!(
        out.source.contains(&format!(
            "(i++, t += 0.5, gldbg_hit(gldbg_k, {inc}u, isnan(t))))"
        )),
        "{}",
        out.source
    );
    // A matrix by column, a vec4 output whole.
    assert!(out.source.contains("any(isnan(c))"), "{}", out.source);
}

const STAGES: [(Stage, &str); 6] = [
    (
        Stage::Vertex,
        "#version 430\nin vec3 p;\nvoid main() {\n    vec4 q = vec4(p, 1.0);\n    for (int i = 0; i < 2; i++) { q.x += 1.0; }\n    gl_Position = q;\n}\n",
    ),
    (
        Stage::TessControl,
        "#version 430\nlayout(vertices = 3) out;\nvoid main() {\n    float l = 2.0;\n    if (gl_InvocationID == 0) { gl_TessLevelInner[0] = l; gl_TessLevelOuter[0] = l; }\n    barrier();\n    gl_out[gl_InvocationID].gl_Position = gl_in[gl_InvocationID].gl_Position;\n}\n",
    ),
    (
        Stage::TessEval,
        "#version 430\nlayout(triangles) in;\nvoid main() {\n    vec4 p = gl_in[0].gl_Position * gl_TessCoord.x;\n    p.y += 1.0;\n    gl_Position = p;\n}\n",
    ),
    (
        Stage::Geometry,
        "#version 430\nlayout(points) in;\nlayout(points, max_vertices = 2) out;\nvoid main() {\n    for (int i = 0; i < 2; i++) {\n        float s = float(i);\n        gl_Position = gl_in[0].gl_Position + vec4(s);\n        EmitVertex();\n    }\n}\n",
    ),
    (
        Stage::Fragment,
        "#version 300 es\nprecision mediump float;\nout vec4 c;\nvoid main() {\n    float a = gl_FragCoord.x;\n    if (a > 2.0) { discard; }\n    c = vec4(a / 0.0);\n}\n",
    ),
    (Stage::Compute, COMPUTE),
];

#[test]
fn every_stage_gets_hits_catches_and_dprintf_that_parse_again() {
    for (stage, src) in STAGES {
        let m = ShaderModel::parse(src, stage).unwrap();
        let steps = vec![m.entry().step];
        let name = stage.name();
        for kind in [
            HitKind::Condition {
                steps: &steps,
                cond: Some("true"),
            },
            HitKind::Condition {
                steps: &steps,
                cond: None,
            },
            HitKind::Catch {
                nan: true,
                inf: true,
            },
        ] {
            let out = m
                .instrument_hits(&HitSpec {
                    kind,
                    after: 0,
                    skip: 0,
                })
                .unwrap();
            parses_again(&out.source, stage);
            assert!(out.source.contains("gldbg_tick()"), "{name}");
        }
        let (_, es) = m.version();
        let args: &[&str] =
            &["1.5", "gl_FragCoord.xy"][..if stage == Stage::Fragment { 2 } else { 1 }];
        if !es {
            let d = m.instrument_dprintf(&steps, args).unwrap();
            parses_again(&d.shader.source, stage);
            assert!(d.shader.source.contains(&d.block), "{name}");
        }
    }
}

#[test]
fn dprintf_writes_the_step_the_invocation_and_each_args_words() {
    let m = compute();
    let steps = on_line(&m, 12);
    let d = m
        .instrument_dprintf(&steps, &["acc", "i", "v.x > 0.0", "uvec2(3u)"])
        .unwrap_err();
    // `v` is not declared yet at line 12.
    assert!(matches!(d, InstrumentError::BadExpression { .. }), "{d:?}");
    let d = m
        .instrument_dprintf(&steps, &["acc", "i", "acc > 1.0", "uvec2(3u)"])
        .unwrap();
    parses_again(&d.shader.source, Stage::Compute);
    let src = &d.shader.source;
    let types: Vec<(BaseType, u8)> = d.args.iter().map(|t| (t.base, t.components)).collect();
    assert_eq!(
        types,
        [
            (BaseType::Float, 1),
            (BaseType::Int, 1),
            (BaseType::Bool, 1),
            (BaseType::Uint, 2)
        ]
    );
    assert_eq!(d.message_words(), 4 + 1 + 1 + 1 + 2);
    assert!(d.block.starts_with("gldbg_"));
    assert!(
        src.contains(&format!("layout(std430) buffer {} {{", d.block)),
        "{src}"
    );
    for w in [
        "gldbg_dp.data[gldbg_at + 0u] = gldbg_s;",
        "gldbg_dp.data[gldbg_at + 1u] = gldbg_GlobalInvocationID.x;",
        "gldbg_dp.data[gldbg_at + 4u] = floatBitsToUint(gldbg_a0);",
        "gldbg_dp.data[gldbg_at + 5u] = uint(gldbg_a1);",
        "gldbg_dp.data[gldbg_at + 6u] = gldbg_a2 ? 1u : 0u;",
        "gldbg_dp.data[gldbg_at + 8u] = gldbg_a3.y;",
        "if (gldbg_slot < uint(gldbg_dp.data.length()) / 9u)",
        "atomicAdd(gldbg_dp.words, 9u);",
        "gldbg_dp.full = 1u;",
    ] {
        assert!(
            src.contains(&w.replace("gldbg_Global", "gl_Global")),
            "{w}: {src}"
        );
    }
    let step = steps[0].0;
    assert!(
        src.contains(&format!(
            "gldbg_print({step}u, acc, i, acc > 1., uvec2(3u))"
        )),
        "{src}"
    );
    // A matrix is no argument; an old shader has no storage blocks.
    let e = m.instrument_dprintf(&steps, &["mat2(1.0)"]).unwrap_err();
    assert!(e.to_string().contains("not a scalar or vector"), "{e}");
    let old = ShaderModel::parse(
        "#version 130\nvoid main() { gl_FragColor = vec4(1.0); }\n",
        Stage::Fragment,
    )
    .unwrap();
    let e = old.instrument_dprintf(&[StepId(0)], &[]).unwrap_err();
    assert!(matches!(e, InstrumentError::Unsupported(_)), "{e}");
}

#[test]
fn shaders_without_uint_are_refused() {
    for src in [
        "#version 120\nvoid main() { gl_FragColor = vec4(1.0); }\n",
        "#version 100\nprecision mediump float;\nvoid main() { gl_FragColor = vec4(1.0); }\n",
    ] {
        let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
        let spec = HitSpec {
            after: 0,
            skip: 0,
            kind: HitKind::Catch {
                nan: true,
                inf: false,
            },
        };
        let e = m.instrument_hits(&spec).unwrap_err();
        assert!(
            matches!(&e, InstrumentError::Unsupported(s) if s.contains("uint")),
            "{e}"
        );
    }
}

#[test]
fn es_dprintf_blocks_take_the_binding_after_the_shaders_buffers() {
    let src = "#version 310 es\nlayout(local_size_x = 1) in;\nlayout(std430, binding = 2) buffer B { float o[]; };\nvoid main() {\n    float a = o[0];\n    o[1] = a;\n}\n";
    let m = ShaderModel::parse(src, Stage::Compute).unwrap();
    let d = m.instrument_dprintf(&[StepId(1)], &["a"]).unwrap();
    parses_again(&d.shader.source, Stage::Compute);
    assert_eq!(d.binding, Some(3));
    let decl = format!("layout(std430, binding = 3) buffer {} {{", d.block);
    assert!(d.shader.source.contains(&decl), "{}", d.shader.source);
    // The end-of-main probe's own blocks come after it.
    for slot in [&d.shader.value, &d.shader.coverage] {
        let crate::OutputSlot::Buffer { binding, .. } = slot else {
            panic!("{slot:?}");
        };
        assert!(*binding > 3, "{slot:?}");
    }
    // Desktop: no binding; ES 3.00: no storage blocks.
    assert_eq!(
        compute()
            .instrument_dprintf(&[StepId(1)], &[])
            .unwrap()
            .binding,
        None
    );
    let es300 = ShaderModel::parse(STAGES[4].1, Stage::Fragment).unwrap();
    let e = es300.instrument_dprintf(&[StepId(0)], &[]).unwrap_err();
    assert!(e.to_string().contains("GLSL ES 3.10"), "{e}");
}

#[test]
fn the_apps_sequences_survive_the_second_parse() {
    // Printed as is, `float x = (a, b);` would declare a second `b`.
    let src = "#version 330\nout vec4 c;\nfloat f(float v) { return v; }\nvoid main() {\n    float a = 1.0;\n    float b = 2.0;\n    {\n        float x = (a, b);\n        c = vec4(x, f((a, b)), b, 1.0);\n    }\n}\n";
    let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
    let steps = on_line(&m, 9);
    let out = hits(&m, &steps, Some("b > 1.0"));
    assert!(!out.contains("float x = a, b;"), "{out}");
    assert!(out.contains("float x = true ? a, b : b;"), "{out}");
    assert!(out.contains("f(true ? a, b : b)"), "{out}");
}

#[test]
fn macros_are_expanded_once() {
    let src = "#version 330\n#define N 3\n#define SQ(x) ((x) * (x))\nout vec4 c;\nvoid main() {\n    float s = 0.0;\n    for (int i = 0; i < N; i++) { s += SQ(float(i)); }\n#undef N\n    float N = 2.0;\n    c = vec4(s, N, 0.0, 1.0);\n}\n";
    let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
    let out = hits(&m, &on_line(&m, 7), Some("s > N"));
    // The condition sees the macro of its line; the printed shader has no
    // `#define` left to expand again (`N` is a variable after `#undef`).
    assert!(out.contains("bool(s > 3)"), "{out}");
    assert!(out.contains("float N = 2."), "{out}");
    assert!(!out.contains("#define"), "{out}");
}

#[test]
fn steps_of_the_line_where_the_names_are_not_in_scope_are_left_out() {
    let m = compute();
    // Line 11: `for (int i = 0; i < 4; i++)`: init, condition, increment;
    // `i` is not in scope at the init.
    let steps = on_line(&m, 11);
    assert_eq!(steps.len(), 3);
    let src = hits(&m, &steps, Some("i == 2"));
    let at = |s: StepId| format!("gldbg_hit(gldbg_tick(), {}u, bool(i == 2))", s.0);
    let kinds: Vec<StepKind> = steps.iter().map(|s| m.step(*s).kind).collect();
    for (s, kind) in steps.iter().zip(kinds) {
        let want = kind != StepKind::LoopInit;
        assert_eq!(src.contains(&at(*s)), want, "{kind:?}: {src}");
    }
    let d = m.instrument_dprintf(&steps, &["i"]).unwrap();
    assert_eq!(d.shader.source.matches("gldbg_print(").count(), 1 + 2);
    // Where it is valid at none, its error.
    let spec = HitSpec {
        after: 0,
        skip: 0,
        kind: HitKind::Condition {
            steps: &steps,
            cond: Some("nope > 1"),
        },
    };
    let e = m.instrument_hits(&spec).unwrap_err();
    assert!(e.to_string().contains("nope"), "{e}");
    assert!(m.instrument_dprintf(&steps, &["nope"]).is_err());
}
