//! The locals summary (`info locals` without a focus) on the real driver
//! (Mesa llvmpipe, headless EGL): a compute dispatch of 64 invocations
//! with a loop and a user function; at positions inside the loop at
//! iteration 1, inside the function called there, and under a branch only
//! some invocations take, the block's hits and every component's min,
//! max, NaN and Inf counts must equal a CPU run of the same formulas over
//! all invocations (NaN and -Inf planted in some), and every invocation's
//! own output must be the app's.

use gldbg_corpus::driver::{Driver, first_error};
use gldbg_corpus::gl_run::Gl;
use glsl_instrument::{
    Api, BaseType, ComponentSummary, LocalsSummary, Position, ShaderModel, Stage, StepMode,
    TRACE_HEADER_WORDS, VarRole, float_key, key_value,
};

/// Every value is a small multiple of 1/8 (exact in f32, whatever the
/// driver fuses); invocations with `id % 9 == 4` get a NaN, those with
/// `id % 11 == 5` a -Inf, which flow into the function and the output.
const COMPUTE: &str = "#version 430
layout(local_size_x = 16) in;
layout(std430, binding = 0) buffer Out { float o[]; };
float shade(float x, int k, out vec2 w) {
    float s = x * float(k) - 3.0;
    w = vec2(s, -s);
    return s + w.y * 0.5;
}
void main() {
    uint id = gl_GlobalInvocationID.x;
    float acc = float(id) * 0.25 - 4.0;
    int n = int(id % 7u) - 3;
    bvec2 b = bvec2(id % 2u == 0u, id > 40u);
    float t;
    for (int i = 0; i < 3; i++) {
        float v = acc;
        if (id % 9u == 4u) v = uintBitsToFloat(0x7FC00000u);
        if (id % 11u == 5u) v = uintBitsToFloat(0xFF800000u);
        vec2 w;
        float r = shade(v + float(i), n, w);
        t = r + w.x;
        if (n > 0) {
            acc += 0.5;
        }
        acc = acc + float(i) * 0.25;
    }
    o[id] = acc + t;
}
";

const INVOCATIONS: usize = 64;

/// One variable's components at a position, as the CPU sees them.
type Values = Vec<(&'static str, Vec<f64>)>;

/// What invocation `id` holds at the three positions (iteration 1), in
/// scope order; `None` where it does not get there. And its output.
struct Cpu {
    in_shade: Values,
    at_t: Values,
    in_branch: Option<Values>,
    out: f32,
}

fn cpu(id: u32) -> Cpu {
    let acc0 = id as f32 * 0.25 - 4.0;
    let mut acc = acc0;
    let n = (id % 7) as i32 - 3;
    let b = [f64::from(id.is_multiple_of(2)), f64::from(id > 40)];
    let mut t = 0.0f32;
    let (mut in_shade, mut at_t, mut in_branch) = (vec![], vec![], None);
    for i in 0..3 {
        let mut v = acc;
        if id % 9 == 4 {
            v = f32::from_bits(0x7FC0_0000);
        }
        if id % 11 == 5 {
            v = f32::from_bits(0xFF80_0000);
        }
        let x = v + i as f32;
        let s = x * n as f32 - 3.0;
        let w = [s, -s];
        let r = s + w[1] * 0.5;
        let f = |x: f32| f64::from(x);
        let main_vars = |acc: f32, t: f32| -> Values {
            vec![
                ("id", vec![f64::from(id)]),
                ("acc", vec![f(acc)]),
                ("n", vec![f64::from(n)]),
                ("b", b.to_vec()),
                ("t", vec![f(t)]),
                ("i", vec![f64::from(i)]),
                ("v", vec![f(v)]),
                ("w", vec![f(w[0]), f(w[1])]),
                ("r", vec![f(r)]),
            ]
        };
        if i == 1 {
            in_shade = vec![
                ("x", vec![f(x)]),
                ("k", vec![f64::from(n)]),
                ("w", vec![f(w[0]), f(w[1])]),
                ("s", vec![f(s)]),
            ];
            at_t = main_vars(acc, t);
        }
        t = r + w[0];
        if n > 0 {
            if i == 1 {
                in_branch = Some(main_vars(acc, t));
            }
            acc += 0.5;
        }
        acc += i as f32 * 0.25;
    }
    Cpu {
        in_shade,
        at_t,
        in_branch,
        out: acc + t,
    }
}

/// The four words of one component over the invocations' values (the
/// shader's rules: NaN and Inf counted apart, keys' min and max).
fn expected_words(base: BaseType, values: &[f64]) -> [u32; 4] {
    let (mut min, mut max, mut nan, mut inf) = (None::<u32>, None::<u32>, 0, 0);
    for &v in values {
        let key = match base {
            BaseType::Float if v.is_nan() => {
                nan += 1;
                continue;
            }
            BaseType::Float if v.is_infinite() => {
                inf += 1;
                continue;
            }
            BaseType::Float => float_key((v as f32).to_bits()),
            BaseType::Int => (v as i32 as u32) ^ 0x8000_0000,
            _ => v as u32,
        };
        min = Some(min.map_or(key, |m| m.min(key)));
        max = Some(max.map_or(key, |m| m.max(key)));
    }
    [min.map_or(0, |m| !m), max.unwrap_or(0), nan, inf]
}

/// The dynamic position at the step starting with `text` at iterations `iters`.
fn position(m: &ShaderModel, text: &str, iters: &[u32]) -> Position {
    let mut todo = vec![m.entry()];
    let mut seen = std::collections::HashSet::new();
    while let Some(p) = todo.pop() {
        if m.step(p.step).text.starts_with(text) && p.iterations == iters {
            return p;
        }
        if p.iterations.iter().any(|&i| i > 2) || !seen.insert(p.clone()) {
            continue;
        }
        todo.extend(m.successors(&p, StepMode::Into));
    }
    panic!("no position {text} {iters:?}");
}

/// Dispatch the summary of `pos`: the block's words and the app's outputs.
fn run(gl: &Gl, s: &LocalsSummary, pos: &Position) -> (Vec<u32>, Vec<f32>) {
    let prog = gl
        .compute_program(&s.shader.source)
        .unwrap_or_else(|e| panic!("{}\n{}", first_error(&e), s.shader.source));
    gl.block_binding(prog, &s.block, 5);
    if let Some(path) = &s.shader.path_uniform {
        let iters: Vec<i32> = pos.iterations.iter().map(|&i| i as i32).collect();
        gl.int_array(prog, path, &iters);
    }
    let out = gl.buffer(0, INVOCATIONS);
    // The probe's two blocks (bindings 1 and 2).
    gl.buffer(1, INVOCATIONS * 4);
    gl.buffer(2, INVOCATIONS);
    let block = gl.buffer(5, s.block_words());
    gl.dispatch(prog, (INVOCATIONS / 16) as u32);
    let words = gl.read(block, s.block_words());
    let outputs = gl
        .read(out, INVOCATIONS)
        .into_iter()
        .map(f32::from_bits)
        .collect();
    (words, outputs)
}

/// The summary at `pos` must be the CPU's over the invocations `at` gives
/// values for (in scope order, names checked).
fn check(gl: &Gl, m: &ShaderModel, pos: &Position, at: &dyn Fn(&Cpu) -> Option<Values>) {
    let s = m.instrument_locals_summary(pos).unwrap();
    let (words, outputs) = run(gl, &s, pos);
    let cpus: Vec<Cpu> = (0..INVOCATIONS as u32).map(cpu).collect();
    let reached: Vec<Values> = cpus.iter().filter_map(at).collect();
    assert!(!reached.is_empty());
    // hits, records, words, full.
    assert_eq!(
        words[..TRACE_HEADER_WORDS],
        [reached.len() as u32, 0, 0, 0],
        "{:?}",
        pos
    );
    let planted = compare(&s, &words, &reached, pos);
    // The planted NaN and Inf were seen.
    assert!(planted.0 > 0 && planted.1 > 0, "{planted:?}");
    // Every invocation computed what the app computes.
    for (id, c) in cpus.iter().enumerate() {
        let same =
            outputs[id].to_bits() == c.out.to_bits() || (outputs[id].is_nan() && c.out.is_nan());
        assert!(same, "o[{id}]: {} != {}", outputs[id], c.out);
    }
}

/// The block's `data` must hold what the shader's rules give over
/// `reached` (each invocation's values in scope order, names checked);
/// returns the NaN and Inf counts over all components.
fn compare(s: &LocalsSummary, words: &[u32], reached: &[Values], pos: &Position) -> (u32, u32) {
    let names: Vec<&str> = s.vars.iter().map(|v| v.name.as_str()).collect();
    let want: Vec<&str> = reached[0].iter().map(|(n, _)| *n).collect();
    assert_eq!(names, want);
    let data = &words[TRACE_HEADER_WORDS..];
    let mut planted = (0, 0);
    for (vi, var) in s.vars.iter().enumerate() {
        let mut comp = 0;
        for part in &var.parts {
            for k in 0..usize::from(part.ty.components) {
                let values: Vec<f64> = reached.iter().map(|r| r[vi].1[comp]).collect();
                let want = expected_words(part.ty.base, &values);
                let c = part.offset as usize + k;
                assert_eq!(
                    data[4 * c..4 * c + 4],
                    want,
                    "{} component {comp} at {pos:?}",
                    var.name
                );
                planted.0 += want[2];
                planted.1 += want[3];
                let got = ComponentSummary::from_words(data, c).unwrap();
                assert_eq!((got.nan, got.inf), (want[2], want[3]));
                // Decoded back, the range is the finite values' (by value).
                let finite = values.iter().filter(|v| v.is_finite());
                let lo = finite.clone().copied().reduce(f64::min);
                let hi = finite.copied().reduce(f64::max);
                let (dlo, dhi) = got.range().map_or((None, None), |(a, b)| {
                    (key_value(part.ty.base, a), key_value(part.ty.base, b))
                });
                assert_eq!((dlo, dhi), (lo, hi), "{} component {comp}", var.name);
                comp += 1;
            }
        }
    }
    planted
}

#[test]
fn locals_summarised_over_all_invocations_equal_the_cpus() {
    // The context, current while the test runs.
    let driver = Driver::new().expect("headless EGL context on Mesa");
    let gl = driver.gl();
    let m = ShaderModel::parse(COMPUTE, Stage::Compute).unwrap();

    // In the function, called at iteration 1.
    let pos = position(&m, "return s + w.y", &[1]);
    assert_eq!(pos.calls.len(), 1);
    let s = m.instrument_locals_summary(&pos).unwrap();
    assert_eq!(s.maybe_undefined, [false, false, true, false]);
    assert!(matches!(s.vars[2].role, VarRole::Param { defined: false }));
    check(&gl, &m, &pos, &|c| Some(c.in_shade.clone()));

    // In main's loop, iteration 1 (not 0 or 2).
    let pos = position(&m, "t = r + w.x", &[1]);
    let s = m.instrument_locals_summary(&pos).unwrap();
    let undefined: Vec<&str> = s
        .vars
        .iter()
        .zip(&s.maybe_undefined)
        .filter(|(_, u)| **u)
        .map(|(v, _)| v.name.as_str())
        .collect();
    assert_eq!(undefined, ["t", "w"]);
    check(&gl, &m, &pos, &|c| Some(c.at_t.clone()));

    // Under a branch only some invocations take: they alone count.
    let pos = position(&m, "acc += 0.5", &[1]);
    check(&gl, &m, &pos, &|c| c.in_branch.clone());
}

/// A user function called in a loop of `main`, per stage (`HEAD`, `OUT`).
fn stage_source(head: &str, out: &str) -> String {
    format!(
        "{head}
float f(in float x, out vec2 y) {{
    float s = x * 2.0;
    y = vec2(s);
    return s + y.x;
}}
void main() {{
    float acc = 1.0;
    ivec2 k = ivec2(1, 2);
    bool flag = acc > 0.0;
    for (int i = 0; i < 3; i++) {{
        vec2 y;
        acc += f(acc, y);
    }}
    {out}
}}
"
    )
}

#[test]
fn every_stages_summary_compiles_on_the_driver() {
    let driver = Driver::new().expect("headless EGL context on Mesa");
    let v430 = "#version 430\n";
    let sources = [
        (
            Stage::Fragment,
            format!("{v430}out vec4 color;"),
            "color = vec4(acc);",
        ),
        (
            Stage::Vertex,
            format!("{v430}in vec4 pos;"),
            "gl_Position = pos * acc;",
        ),
        (
            Stage::Geometry,
            format!("{v430}layout(points) in;\nlayout(points, max_vertices = 1) out;"),
            "gl_Position = vec4(acc); EmitVertex();",
        ),
        (
            Stage::TessControl,
            format!("{v430}layout(vertices = 1) out;"),
            "gl_TessLevelOuter[0] = acc;",
        ),
        (
            Stage::TessEval,
            format!("{v430}layout(triangles) in;"),
            "gl_Position = vec4(acc);",
        ),
        (
            Stage::Compute,
            format!("{v430}layout(local_size_x = 4) in;"),
            "if (acc < 0.0) barrier();",
        ),
        // Storage blocks and bit casts through extensions.
        (
            Stage::Fragment,
            "#version 140\nout vec4 color;".to_string(),
            "color = vec4(acc);",
        ),
        // GLSL ES: precisions everywhere, an explicit binding.
        (
            Stage::Fragment,
            "#version 310 es\nprecision mediump float;\nout vec4 color;".to_string(),
            "color = vec4(acc);",
        ),
        // No block instance names before 1.50.
        (
            Stage::Vertex,
            "#version 140\nin vec4 pos;".to_string(),
            "gl_Position = pos * acc;",
        ),
    ];
    for (stage, head, out) in sources {
        let src = stage_source(&head, out);
        driver
            .compile(stage.gl_enum(), &src)
            .unwrap_or_else(|e| panic!("{stage:?} original: {e}"));
        let api = if head.contains(" es") {
            Api::Es
        } else {
            Api::Gl
        };
        let m =
            ShaderModel::parse_in(&src, stage, api).unwrap_or_else(|e| panic!("{stage:?}: {e}"));
        for (text, vars) in [("return s", 3), ("acc += f", 5)] {
            let pos = position(&m, text, &[1]);
            let s = m
                .instrument_locals_summary(&pos)
                .unwrap_or_else(|e| panic!("{stage:?}: {e}"));
            assert_eq!(s.vars.len(), vars, "{stage:?} {text}");
            driver
                .compile(stage.gl_enum(), &s.shader.source)
                .unwrap_or_else(|e| panic!("{stage:?}: {}\n{}", first_error(&e), s.shader.source));
        }
    }
}

/// Values exact in f32 (small multiples of 1/16).
const FRAGMENT: &str = "#version 430
layout(location = 0) out vec4 color;
float wave(in float x, out float s) {
    s = x * 0.5 - 2.0;
    return s + 1.0;
}
void main() {
    vec2 p = gl_FragCoord.xy;
    float acc = 0.0;
    for (int i = 0; i < 2; i++) {
        float s;
        float w = wave(p.x + float(i) - p.y, s);
        acc += w * s;
    }
    color = vec4(acc, p, 1.0);
}
";

/// `FRAGMENT` at pixel (x, y): the locals in `wave` and after the call
/// at iteration 1, and the colour.
fn cpu_fragment(x: u32, y: u32) -> (Values, Values, [f32; 4]) {
    let p = [x as f32 + 0.5, y as f32 + 0.5];
    let mut acc = 0.0f32;
    let (mut in_wave, mut after_call) = (vec![], vec![]);
    for i in 0..2 {
        let arg = p[0] + i as f32 - p[1];
        let s = arg * 0.5 - 2.0;
        let w = s + 1.0;
        if i == 1 {
            in_wave = vec![("x", vec![f64::from(arg)]), ("s", vec![f64::from(s)])];
            after_call = vec![
                ("p", vec![f64::from(p[0]), f64::from(p[1])]),
                ("acc", vec![f64::from(acc)]),
                ("i", vec![1.0]),
                ("s", vec![f64::from(s)]),
                ("w", vec![f64::from(w)]),
            ];
        }
        acc += w * s;
    }
    (in_wave, after_call, [acc, p[0], p[1], 1.0])
}

/// A fragment draw (8x8, every pixel covered once): at a position in the
/// function and one after its call, both at iteration 1.
#[test]
fn a_fragment_draws_summary_equals_the_cpus() {
    let driver = Driver::new().expect("headless EGL context on Mesa");
    let gl = driver.gl();
    let m = ShaderModel::parse(FRAGMENT, Stage::Fragment).unwrap();
    let size = 8;
    let cpus: Vec<_> = (0..size * size)
        .map(|k| cpu_fragment(k % size, k / size))
        .collect();
    for (text, in_wave) in [("return s + 1.0", true), ("acc += w * s", false)] {
        let pos = position(&m, text, &[1]);
        let s = m.instrument_locals_summary(&pos).unwrap();
        let prog = gl
            .covering_program(&s.shader.source)
            .unwrap_or_else(|e| panic!("{}\n{}", first_error(&e), s.shader.source));
        gl.block_binding(prog, &s.block, 5);
        let iters: Vec<i32> = pos.iterations.iter().map(|&i| i as i32).collect();
        gl.int_array(prog, s.shader.path_uniform.as_ref().unwrap(), &iters);
        let block = gl.buffer(5, s.block_words());
        let pixels = gl.draw_covering(prog, size as i32);
        let words = gl.read(block, s.block_words());
        assert_eq!(words[..TRACE_HEADER_WORDS], [size * size, 0, 0, 0]);
        let reached: Vec<Values> = cpus
            .iter()
            .map(|c| if in_wave { c.0.clone() } else { c.1.clone() })
            .collect();
        compare(&s, &words, &reached, &pos);
        // The app's colour, unchanged.
        for (k, px) in pixels.iter().enumerate() {
            assert_eq!(*px, cpus[k].2, "pixel {k}");
        }
    }
}
