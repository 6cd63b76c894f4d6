//! Hit and dprintf shaders on the real driver (Mesa llvmpipe, headless
//! EGL): a compute shader with a loop calling a user function is
//! dispatched with `instrument_hits` (conditional breakpoints, one that no
//! invocation meets, `catch nan` with a planted `sqrt(-1.0)` in some
//! invocations) and `instrument_dprintf`; every invocation's end-of-`main`
//! value (first record + 1, hits, step) and every message must equal a
//! CPU run of the same code that counts records as the trace numbers them,
//! and the app's own output must be unchanged.

use gldbg_corpus::driver::{Driver, first_error};
use gldbg_corpus::gl_run::Gl;
use glsl_instrument::{
    Dprintf, HitKind, HitSpec, Instrumented, OutputSlot, ShaderModel, Stage, StepId, decode_type,
};

const COMPUTE: &str = "#version 430
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Out { float o[]; };
float half_of(float x) {
    float y = x * 0.5;
    return y;
}
void main() {
    uint id = gl_GlobalInvocationID.x;
    float acc = 0.0;
    float d = float(id % 3u);
    for (int i = 0; i < 6; i++) {
        acc += half_of(float(id) + float(i));
    }
    float q = sqrt(d - 1.0);
    o[id] = acc + q;
}
";
/// Lines of `COMPUTE`'s steps the tests name.
const LOOP_BODY: u32 = 13;
const NAN_LINE: u32 = 15;
const OUT_LINE: u32 = 16;

/// Invocations dispatched (2 groups of 4).
const INVOCATIONS: usize = 8;

/// What the CPU run of one invocation saw before each step: (record index,
/// line of the step, `acc`, `i`), and the value it writes to `o[id]`.
struct CpuRun {
    before: Vec<(u32, u32, f32, i32)>,
    out: f32,
}

/// `COMPUTE` for invocation `id`, counting records as the trace does
/// (0: entry of main, +1 before every step of every function).
fn cpu(id: u32) -> CpuRun {
    let mut before = Vec::new();
    let mut record = 0u32;
    let mut at = |line: u32, acc: f32, i: i32| {
        record += 1;
        before.push((record, line, acc, i));
    };
    let (mut acc, mut i) = (0.0f32, -1);
    at(9, acc, i);
    at(10, acc, i);
    at(11, acc, i);
    let d = (id % 3) as f32;
    at(12, acc, i); // for-init
    i = 0;
    loop {
        at(12, acc, i); // condition
        if i >= 6 {
            break;
        }
        at(LOOP_BODY, acc, i);
        let x = id as f32 + i as f32;
        at(5, acc, i);
        let y = x * 0.5;
        at(6, acc, i);
        acc += y;
        at(12, acc, i); // increment
        i += 1;
    }
    at(NAN_LINE, acc, i);
    let q = (d - 1.0).sqrt();
    at(OUT_LINE, acc, i);
    CpuRun {
        before,
        out: acc + q,
    }
}

/// The one step of `line`.
fn step_on(m: &ShaderModel, line: u32) -> StepId {
    let steps = m.steps_on_line(line);
    assert_eq!(steps.len(), 1, "line {line}");
    steps[0]
}

/// Dispatch `shader`, with `extra` storage blocks (name, words) bound at
/// free bindings; returns the app's `o`, every invocation's end-of-`main`
/// value words (`None`: no coverage), and the extra blocks' words.
fn run(
    gl: &Gl,
    shader: &Instrumented,
    extra: &[(&str, usize)],
) -> (Vec<f32>, Vec<Option<[u32; 4]>>, Vec<Vec<u32>>) {
    let prog = gl
        .compute_program(&shader.source)
        .unwrap_or_else(|e| panic!("{e}\n{}", shader.source));
    let out = gl.buffer(0, INVOCATIONS);
    let slot = |s: &OutputSlot| match s {
        OutputSlot::Buffer { binding, .. } => *binding,
        other => panic!("compute output {other:?}"),
    };
    let value = gl.buffer(slot(&shader.value), INVOCATIONS * 4);
    let coverage = gl.buffer(slot(&shader.coverage), INVOCATIONS);
    let extra_buffers: Vec<u32> = extra
        .iter()
        .enumerate()
        .map(|(k, (name, words))| {
            let binding = 10 + k as u32;
            gl.block_binding(prog, name, binding);
            gl.buffer(binding, *words)
        })
        .collect();
    gl.dispatch(prog, (INVOCATIONS / 4) as u32);
    let o = gl
        .read(out, INVOCATIONS)
        .into_iter()
        .map(f32::from_bits)
        .collect();
    let v = gl.read(value, INVOCATIONS * 4);
    let c = gl.read(coverage, INVOCATIONS);
    let values = (0..INVOCATIONS)
        .map(|k| {
            // A hit value is a uvec4; dprintf's probe has none (code 17).
            let code = f32::from_bits(c[k]);
            decode_type(code).map(|t| {
                let uvec4 = t.to_string() == "uvec4";
                assert!(uvec4 || code == 17.0, "coverage {code} of invocation {k}");
                [v[4 * k], v[4 * k + 1], v[4 * k + 2], v[4 * k + 3]]
            })
        })
        .collect();
    let blocks = extra_buffers
        .iter()
        .zip(extra)
        .map(|(b, (_, words))| gl.read(*b, *words))
        .collect();
    (o, values, blocks)
}

/// The app's output of every invocation equals the CPU's (NaN where planted).
fn check_app_output(o: &[f32]) {
    for (id, got) in o.iter().enumerate() {
        let want = cpu(id as u32).out;
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "o[{id}] = {got}, CPU {want}"
        );
    }
}

/// The expected end-of-`main` value of a condition on `line`: the hits
/// where `cond(acc, i)` holds before the step.
fn expected_condition(
    id: u32,
    line: u32,
    step: StepId,
    cond: impl Fn(f32, i32) -> bool,
) -> [u32; 4] {
    let hits: Vec<u32> = cpu(id)
        .before
        .iter()
        .filter(|(_, l, acc, i)| *l == line && cond(*acc, *i))
        .map(|(r, ..)| *r)
        .collect();
    match hits.first() {
        Some(first) => [first + 1, hits.len() as u32, step.0, 0],
        None => [0, 0, 0, 0],
    }
}

#[test]
fn conditional_breakpoints_count_every_invocations_hits_and_first_record() {
    let driver = Driver::new().expect("headless EGL (Mesa)");
    let gl = driver.gl();
    let m = ShaderModel::parse(COMPUTE, Stage::Compute).unwrap();
    let body = step_on(&m, LOOP_BODY);
    type Cond = fn(f32, i32) -> bool;
    let cases: [(Option<&str>, Cond); 4] = [
        (Some("acc > 3.0"), |acc, _| acc > 3.0),
        (Some("i == 2"), |_, i| i == 2),
        (Some("acc > 1000.0"), |_, _| false),
        (None, |_, _| true),
    ];
    let mut some_hit = false;
    for (cond, model) in cases {
        let spec = HitSpec {
            after: 0,
            skip: 0,
            kind: HitKind::Condition {
                steps: &[body],
                cond,
            },
        };
        let shader = m.instrument_hits(&spec).unwrap();
        let (o, values, _) = run(&gl, &shader, &[]);
        check_app_output(&o);
        for (id, got) in values.iter().enumerate() {
            let want = expected_condition(id as u32, LOOP_BODY, body, model);
            some_hit |= want[1] > 0;
            assert_eq!(*got, Some(want), "{cond:?}, invocation {id}");
        }
    }
    assert!(some_hit);
}

#[test]
fn catch_nan_finds_the_planted_sqrt_of_a_negative_and_its_record() {
    let driver = Driver::new().expect("headless EGL (Mesa)");
    let gl = driver.gl();
    let m = ShaderModel::parse(COMPUTE, Stage::Compute).unwrap();
    let nan_step = step_on(&m, NAN_LINE);
    let spec = HitSpec {
        after: 0,
        skip: 0,
        kind: HitKind::Catch {
            nan: true,
            inf: false,
        },
    };
    let shader = m.instrument_hits(&spec).unwrap();
    let (o, values, _) = run(&gl, &shader, &[]);
    check_app_output(&o);
    for (id, got) in values.iter().enumerate() {
        let run = cpu(id as u32);
        let record = |line: u32| run.before.iter().find(|b| b.1 == line).unwrap().0;
        // `q` is NaN where id % 3 == 0, and so is `o[id]` written after it.
        let want = match id % 3 {
            0 => [record(NAN_LINE) + 1, 2, nan_step.0, 0],
            _ => [0, 0, 0, 0],
        };
        assert_eq!(*got, Some(want), "invocation {id}");
    }
    // Inf: sqrt(-1) is NaN, not Inf: nothing.
    let spec = HitSpec {
        after: 0,
        skip: 0,
        kind: HitKind::Catch {
            nan: false,
            inf: true,
        },
    };
    let (_, values, _) = run(&gl, &m.instrument_hits(&spec).unwrap(), &[]);
    assert!(values.iter().all(|v| *v == Some([0; 4])), "{values:?}");
}

/// The messages of a dprintf block: header and each message's words.
fn messages(d: &Dprintf, words: &[u32]) -> ([u32; 4], Vec<Vec<u32>>) {
    let len = d.message_words();
    let header = [words[0], words[1], words[2], words[3]];
    let data = &words[4..];
    let n = (header[2] as usize / len).min(data.len() / len);
    (
        header,
        (0..n)
            .map(|k| data[k * len..(k + 1) * len].to_vec())
            .collect(),
    )
}

#[test]
fn dprintf_prints_every_invocations_values_at_the_line() {
    let driver = Driver::new().expect("headless EGL (Mesa)");
    let gl = driver.gl();
    let m = ShaderModel::parse(COMPUTE, Stage::Compute).unwrap();
    let body = step_on(&m, LOOP_BODY);
    let d = m.instrument_dprintf(&[body], &["acc", "i"]).unwrap();
    let len = d.message_words();
    assert_eq!(len, 6);
    let mut want: Vec<Vec<u32>> = Vec::new();
    for id in 0..INVOCATIONS as u32 {
        for (_, line, acc, i) in cpu(id).before {
            if line == LOOP_BODY {
                want.push(vec![body.0, id, 0, 0, acc.to_bits(), i as u32]);
            }
        }
    }
    want.sort();
    // Room for all.
    let words = 4 + want.len() * len + 3;
    let (o, values, blocks) = run(&gl, &d.shader, &[(&d.block, words)]);
    check_app_output(&o);
    assert!(values.iter().all(|v| v.is_some()), "coverage {values:?}");
    let (header, mut got) = messages(&d, &blocks[0]);
    got.sort();
    assert_eq!(header, [0, want.len() as u32, (want.len() * len) as u32, 0]);
    assert_eq!(got, want);
    // Room for 5: the first five attempted are written, the rest dropped.
    let (_, _, blocks) = run(&gl, &d.shader, &[(&d.block, 4 + 5 * len + 2)]);
    let (header, got) = messages(&d, &blocks[0]);
    assert_eq!(header, [0, want.len() as u32, (5 * len) as u32, 1]);
    assert_eq!(got.len(), 5);
    assert!(got.iter().all(|g| want.contains(g)), "{got:?}");
}

/// A shader per stage (and GLSL versions from the oldest with `uint`),
/// each with a loop or a branch and float writes.
const STAGES: [(Stage, &str); 9] = [
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
        "#version 330\nlayout(points) in;\nlayout(points, max_vertices = 2) out;\nvoid main() {\n    for (int i = 0; i < 2; i++) {\n        mat2 m = mat2(float(i));\n        gl_Position = gl_in[0].gl_Position + vec4(m[0], m[1]);\n        EmitVertex();\n    }\n}\n",
    ),
    (
        Stage::Fragment,
        "#version 130\nuniform float k;\nvoid main() {\n    float a[2];\n    a[0] = gl_FragCoord.x / k;\n    if (a[0] > 2.0) { discard; }\n    gl_FragColor = vec4(a[0]);\n}\n",
    ),
    (
        Stage::Fragment,
        "#version 300 es\nprecision mediump float;\nout vec4 c;\nvoid main() {\n    float a = gl_FragCoord.x;\n    if (a > 2.0) { return; }\n    c = vec4(a / 0.0);\n}\n",
    ),
    (
        Stage::Fragment,
        "#version 310 es\nprecision mediump float;\nout vec4 c;\nstruct L { vec3 d; float w; };\nvoid main() {\n    L l = L(vec3(gl_FragCoord.x), 1.0);\n    l.w *= 2.0;\n    c = vec4(l.d, l.w);\n}\n",
    ),
    (
        Stage::Fragment,
        "#version 150\nout vec4 c;\nvoid main() {\n    vec2 p = gl_FragCoord.xy;\n    for (int i = 0; i < 3; i++, p *= 0.5) { c = vec4(p, 0.0, 1.0); }\n}\n",
    ),
    (Stage::Compute, COMPUTE),
];

#[test]
fn every_stage_hit_and_dprintf_shader_compiles_on_the_driver() {
    let driver = Driver::new().expect("headless EGL (Mesa)");
    let mut failures = Vec::new();
    for (stage, src) in STAGES {
        let m = ShaderModel::parse(src, stage).unwrap();
        let steps = vec![m.entry().step];
        let name = format!("{} {:?}", stage.name(), m.version());
        let kinds = [
            HitKind::Condition {
                steps: &steps,
                cond: Some("gl_FragCoord.x > 1.0"),
            },
            HitKind::Condition {
                steps: &steps,
                cond: None,
            },
            HitKind::Catch {
                nan: true,
                inf: true,
            },
        ];
        let mut shaders = Vec::new();
        for (k, kind) in kinds.into_iter().enumerate() {
            if k == 0 && stage != Stage::Fragment {
                continue;
            }
            shaders.push(
                m.instrument_hits(&HitSpec {
                    kind,
                    after: 0,
                    skip: 0,
                })
                .unwrap(),
            );
        }
        let (version, es) = m.version();
        if (es && version >= 310) || (!es && version >= 140) {
            let args: &[&str] = match stage {
                Stage::Fragment => &["gl_FragCoord.xy", "gl_FrontFacing"],
                _ => &["1.5", "ivec3(2)"],
            };
            shaders.push(m.instrument_dprintf(&steps, args).unwrap().shader);
        }
        for s in shaders {
            if let Err(log) = driver.compile(stage.gl_enum(), &s.source) {
                failures.push(format!("{name}: {}\n{}", first_error(&log), s.source));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
