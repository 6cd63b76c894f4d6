//! The trace shader on the real driver (Mesa llvmpipe, headless EGL): a
//! compute shader traced for one invocation is dispatched, its trace block
//! read back and decoded with the layout; the record sequence and every
//! recorded local must equal a CPU run of the same formulas, the `start`,
//! `max_records`, capacity (`full`) and `records` rules must hold, and
//! every invocation's own output must be the app's. The trace shaders of
//! the other stages are compiled on the driver.

use gldbg_corpus::driver::{Driver, first_error};
use gldbg_corpus::gl_run::Gl;
use glsl_instrument::{
    BaseType, END_RECORD, ENTRY_RECORD, ShaderModel, Stage, StepKind, TRACE_HEADER_WORDS, Trace,
    TraceSpec,
};
use std::collections::HashMap;

const COMPUTE: &str = "#version 430
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Out { float o[]; };
float twice(in float x, out float y, inout float z) {
    y = x * 2.0;
    z = z + y;
    return y + 1.0;
}
void main() {
    uint id = gl_GlobalInvocationID.x;
    float acc = float(id);
    float t;
    for (int i = 0; i < 3; i++) {
        float y;
        float r = twice(acc + float(i), y, acc);
        t = r * 0.5;
    }
    if (acc > 1000.0) {
        return;
    }
    o[id] = acc + t;
}
";

/// Invocations dispatched (2 groups of 4).
const INVOCATIONS: usize = 8;
const TRACED: u32 = 2;

/// One expected record: the step's text (or "ENTRY" / "END") and the
/// values of the variables that are defined there.
type Expected = (&'static str, Vec<(&'static str, f64)>);

/// The CPU run of `COMPUTE` for invocation `id`: the records in order,
/// and the value it writes to `o[id]`.
fn cpu(id: u32) -> (Vec<Expected>, f32) {
    let mut ev: Vec<Expected> = vec![("ENTRY", vec![("gl_GlobalInvocationID", f64::from(id))])];
    ev.push(("uint id = gl_GlobalInvocationID.x", vec![]));
    let idf = f64::from(id);
    ev.push(("float acc = float(id)", vec![("id", idf)]));
    let mut acc = id as f32;
    ev.push(("float t;", vec![("id", idf), ("acc", f64::from(acc))]));
    let mut t = None::<f32>;
    let base = |acc: f32, t: Option<f32>| {
        let mut v = vec![("id", idf), ("acc", f64::from(acc))];
        v.extend(t.map(|t| ("t", f64::from(t))));
        v
    };
    ev.push(("int i = 0", base(acc, t)));
    for i in 0..3 {
        let with_i = |acc, t| {
            let mut v = base(acc, t);
            v.push(("i", f64::from(i)));
            v
        };
        ev.push(("i < 3", with_i(acc, t)));
        ev.push(("float y;", with_i(acc, t)));
        ev.push(("float r = twice", with_i(acc, t)));
        let x = acc + i as f32;
        ev.push((
            "y = x * 2.0",
            vec![("x", f64::from(x)), ("z", f64::from(acc))],
        ));
        let y = x * 2.0;
        let args = |z: f32| {
            vec![
                ("x", f64::from(x)),
                ("y", f64::from(y)),
                ("z", f64::from(z)),
            ]
        };
        ev.push(("z = z + y", args(acc)));
        let z = acc + y;
        ev.push(("return y + 1.0", args(z)));
        let r = y + 1.0;
        acc = z;
        let mut v = with_i(acc, t);
        v.extend([("y", f64::from(y)), ("r", f64::from(r))]);
        ev.push(("t = r * 0.5", v));
        t = Some(r * 0.5);
        ev.push(("i++", with_i(acc, t)));
    }
    ev.push(("i < 3", {
        let mut v = base(acc, t);
        v.push(("i", 3.0));
        v
    }));
    ev.push(("if (acc > 1000.0)", base(acc, t)));
    ev.push(("o[id] = acc + t", base(acc, t)));
    ev.push(("END", base(acc, t)));
    (ev, acc + t.unwrap())
}

/// A decoded record: its id and each variable's components.
struct Record {
    id: u32,
    values: HashMap<String, Vec<f64>>,
}

/// The records in `data` (`words` of them written), decoded with the layout.
fn decode(trace: &Trace, data: &[u32]) -> Vec<Record> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < data.len() {
        let (id, len) = (data[at], data[at + 1] as usize);
        let layout = &trace.layout.records[&id];
        assert_eq!(layout.words as usize, len, "record {id:#x}");
        let words = &data[at + 2..at + 2 + len];
        let mut values = HashMap::new();
        for v in &layout.vars {
            let mut comps = Vec::new();
            for p in &v.parts {
                let w = &words[p.offset as usize..];
                for c in 0..usize::from(p.ty.components) {
                    comps.push(match p.ty.base {
                        BaseType::Float => f64::from(f32::from_bits(w[c])),
                        BaseType::Int => f64::from(w[c] as i32),
                        BaseType::Uint => f64::from(w[c]),
                        BaseType::Bool => f64::from(w[c]),
                        BaseType::Double => {
                            f64::from_bits(u64::from(w[2 * c]) | (u64::from(w[2 * c + 1]) << 32))
                        }
                    });
                }
            }
            values.insert(v.name.clone(), comps);
        }
        out.push(Record { id, values });
        at += 2 + len;
    }
    out
}

/// The text a record is expected under.
fn label(m: &ShaderModel, id: u32) -> String {
    match id {
        ENTRY_RECORD => "ENTRY".into(),
        _ if id & END_RECORD != 0 => "END".into(),
        _ => m.step(glsl_instrument::StepId(id)).text.clone(),
    }
}

struct Run {
    header: Vec<u32>,
    records: Vec<Record>,
    outputs: Vec<f32>,
}

/// Dispatch the trace of `spec` with a trace block of `capacity` data words.
fn run(gl: &Gl, m: &ShaderModel, spec: &TraceSpec<'_>, capacity: usize) -> (Trace, Run) {
    let trace = m.instrument_trace(spec).unwrap();
    let prog = gl
        .compute_program(&trace.shader.source)
        .unwrap_or_else(|e| panic!("{}\n{}", first_error(&e), trace.shader.source));
    gl.block_binding(prog, &trace.block, 5);
    let out = gl.buffer(0, INVOCATIONS);
    // The coverage probe's two blocks (bindings 1 and 2).
    gl.buffer(1, INVOCATIONS * 4);
    gl.buffer(2, INVOCATIONS);
    let tb = gl.buffer(5, TRACE_HEADER_WORDS + capacity);
    gl.dispatch(prog, (INVOCATIONS / 4) as u32);
    let all = gl.read(tb, TRACE_HEADER_WORDS + capacity);
    let header = all[..TRACE_HEADER_WORDS].to_vec();
    let written = header[2] as usize;
    let records = decode(
        &trace,
        &all[TRACE_HEADER_WORDS..TRACE_HEADER_WORDS + written],
    );
    let outputs = gl
        .read(out, INVOCATIONS)
        .into_iter()
        .map(f32::from_bits)
        .collect();
    (
        trace,
        Run {
            header,
            records,
            outputs,
        },
    )
}

/// The records of `run` must be the expected ones from index `from`.
fn check_records(m: &ShaderModel, run: &Run, expected: &[Expected], from: usize) {
    for (k, rec) in run.records.iter().enumerate() {
        let (text, vals) = &expected[from + k];
        let got = label(m, rec.id);
        assert!(
            got.starts_with(text),
            "record {}: {got:?}, expected {text:?}",
            from + k
        );
        for (name, want) in vals {
            let v = rec
                .values
                .get(*name)
                .unwrap_or_else(|| panic!("record {} ({text}) lacks {name}", from + k));
            assert_eq!(v[0], *want, "record {} ({text}): {name}", from + k);
        }
    }
}

#[test]
fn a_traced_compute_invocation_records_its_run() {
    // The context, current while the test runs.
    let driver = Driver::new().expect("headless EGL context on Mesa");
    let gl = driver.gl();
    let m = ShaderModel::parse(COMPUTE, Stage::Compute).unwrap();
    // The loop's init is a step.
    assert!(m.steps().iter().any(|s| s.kind == StepKind::LoopInit));
    let focus = format!("gl_GlobalInvocationID == uvec3({TRACED}u, 0u, 0u)");
    let spec = TraceSpec {
        focus: &focus,
        start: 0,
        max_records: 1000,
    };
    let (expected, _) = cpu(TRACED);
    let (trace, whole) = run(&gl, &m, &spec, 4096);
    // hits, records, words, full.
    assert_eq!(whole.header[0], 1);
    assert_eq!(whole.header[1] as usize, expected.len());
    assert_eq!(whole.header[3], 0);
    assert_eq!(whole.records.len(), expected.len());
    check_records(&m, &whole, &expected, 0);
    let words: usize = whole
        .records
        .iter()
        .map(|r| 2 + trace.layout.records[&r.id].words as usize)
        .sum();
    assert_eq!(whole.header[2] as usize, words);
    // The gl_GlobalInvocationID of the entry record, whole.
    assert_eq!(
        whole.records[0].values["gl_GlobalInvocationID"],
        [2.0, 0.0, 0.0]
    );
    // Every invocation computed what the app computes.
    for id in 0..INVOCATIONS as u32 {
        assert_eq!(whole.outputs[id as usize], cpu(id).1, "o[{id}]");
    }

    // The next part: records 5, 6, 7 only; the one after sets `full`.
    let part = TraceSpec {
        start: 5,
        max_records: 3,
        ..spec
    };
    let (_, run2) = run(&gl, &m, &part, 4096);
    assert_eq!(run2.header[1] as usize, expected.len());
    assert_eq!(run2.header[3], 1);
    assert_eq!(run2.records.len(), 3);
    check_records(&m, &run2, &expected, 5);

    // A block too small: the records that fit, then `full`.
    let first_two: usize = whole.records[..2]
        .iter()
        .map(|r| 2 + trace.layout.records[&r.id].words as usize)
        .sum();
    let (_, run3) = run(&gl, &m, &spec, first_two + 1);
    assert_eq!(run3.records.len(), 2);
    assert_eq!(run3.header[3], 1);
    assert_eq!(run3.header[1] as usize, expected.len());
    check_records(&m, &run3, &expected, 0);

    // A focus every invocation meets: all claim, one writes its whole run.
    let (_, run4) = run(
        &gl,
        &m,
        &TraceSpec {
            focus: "true",
            ..spec
        },
        4096,
    );
    assert_eq!(run4.header[0] as usize, INVOCATIONS);
    assert_eq!(run4.records.len(), expected.len());
}

const FRAGMENT: &str = "#version 430
out vec4 color;
float wave(in float x, out float s) {
    s = x * 0.5;
    return s + 1.0;
}
void main() {
    vec2 p = gl_FragCoord.xy;
    float acc = 0.0;
    for (int i = 0; i < 2; i++) {
        float s;
        acc += wave(p.x + float(i), s);
    }
    color = vec4(acc, p, 1.0);
}
";

/// The CPU run of `FRAGMENT` at fragment coordinate `p`.
fn cpu_fragment(p: [f32; 2]) -> Vec<Expected> {
    let pv = |acc: f32| vec![("p", f64::from(p[0])), ("acc", f64::from(acc))];
    let mut ev: Vec<Expected> = vec![("ENTRY", vec![("gl_FragCoord", f64::from(p[0]))])];
    ev.push(("vec2 p = gl_FragCoord.xy", vec![]));
    ev.push(("float acc = 0.0", vec![("p", f64::from(p[0]))]));
    let mut acc = 0.0f32;
    ev.push(("int i = 0", pv(acc)));
    for i in 0..2 {
        let mut v = pv(acc);
        v.push(("i", f64::from(i)));
        ev.push(("i < 2", v.clone()));
        ev.push(("float s;", v.clone()));
        ev.push(("acc += wave", v));
        let x = p[0] + i as f32;
        ev.push(("s = x * 0.5", vec![("x", f64::from(x))]));
        let s = x * 0.5;
        ev.push((
            "return s + 1.0",
            vec![("x", f64::from(x)), ("s", f64::from(s))],
        ));
        acc += s + 1.0;
        let mut v = pv(acc);
        v.push(("i", f64::from(i)));
        ev.push(("i++", v));
    }
    let mut v = pv(acc);
    v.push(("i", 2.0));
    ev.push(("i < 2", v));
    ev.push(("color = vec4", pv(acc)));
    let mut end = pv(acc);
    end.push(("color", f64::from(acc)));
    ev.push(("END", end));
    ev
}

#[test]
fn a_traced_fragment_records_its_run() {
    let driver = Driver::new().expect("headless EGL context on Mesa");
    let gl = driver.gl();
    let m = ShaderModel::parse(FRAGMENT, Stage::Fragment).unwrap();
    let spec = TraceSpec {
        focus: "all(equal(ivec2(gl_FragCoord.xy), ivec2(3, 2)))",
        start: 0,
        max_records: 1000,
    };
    let trace = m.instrument_trace(&spec).unwrap();
    let prog = gl
        .covering_program(&trace.shader.source)
        .unwrap_or_else(|e| panic!("{}\n{}", first_error(&e), trace.shader.source));
    gl.block_binding(prog, &trace.block, 5);
    let capacity = 4096;
    let tb = gl.buffer(5, TRACE_HEADER_WORDS + capacity);
    gl.draw_covering(prog, 8);
    let all = gl.read(tb, TRACE_HEADER_WORDS + capacity);
    let written = all[2] as usize;
    let run = Run {
        header: all[..TRACE_HEADER_WORDS].to_vec(),
        records: decode(
            &trace,
            &all[TRACE_HEADER_WORDS..TRACE_HEADER_WORDS + written],
        ),
        outputs: Vec::new(),
    };
    let expected = cpu_fragment([3.5, 2.5]);
    assert_eq!(run.header[0], 1, "hits");
    assert_eq!(run.header[1] as usize, expected.len());
    assert_eq!(run.header[3], 0);
    assert_eq!(run.records.len(), expected.len());
    check_records(&m, &run, &expected, 0);
    let end = run.records.last().unwrap();
    assert_eq!(
        end.values["color"],
        [f64::from(expected_acc(3.5)), 3.5, 2.5, 1.0]
    );
}

/// `acc` of `FRAGMENT` at the end, for fragment x coordinate `x`.
fn expected_acc(x: f32) -> f32 {
    (0..2).fold(0.0f32, |acc, i| acc + ((x + i as f32) * 0.5 + 1.0))
}

/// Shaders of the other stages with a user function, loops and a struct.
fn stage_sources() -> Vec<(Stage, String)> {
    let body = |out: &str| {
        format!(
            "struct P {{ float a; vec2 b; }};
float f(in float x, out float y, inout vec2 z) {{ y = x; z.x += y; return y * 2.0; }}
void main() {{
    P p = P(1.0, vec2(0.5));
    float acc;
    for (int i = 0; i < 2; i++) {{ float y; acc = f(float(i), y, p.b); }}
    if (acc > 9.0) {{ return; }}
    {out}
}}
"
        )
    };
    vec![
        (
            Stage::Fragment,
            format!(
                "#version 430\nout vec4 c;\n{}",
                body("if (acc < -1.0) discard; c = vec4(acc, p.b, 1.0);")
            ),
        ),
        (
            Stage::Vertex,
            format!(
                "#version 430\nin vec4 v;\n{}",
                body("gl_Position = v * acc;")
            ),
        ),
        (
            Stage::Geometry,
            format!(
                "#version 430\nlayout(points) in;\nlayout(points, max_vertices = 2) out;\n{}",
                body("for (int k = 0; k < 2; k++) { gl_Position = vec4(acc); EmitVertex(); }")
            ),
        ),
        (
            Stage::TessControl,
            // barrier() only in main, before any return.
            "#version 430\nlayout(vertices = 1) out;\n\
             float f(in float x, out float y) { y = x; return y * 2.0; }\n\
             void main() {\n    float acc = 0.0;\n    \
             for (int i = 0; i < 2; i++) { float y; acc += f(float(i), y); }\n    \
             barrier();\n    gl_TessLevelOuter[0] = acc;\n}\n"
                .to_string(),
        ),
        (
            Stage::TessEval,
            format!(
                "#version 430\nlayout(triangles) in;\n{}",
                body("gl_Position = vec4(acc, gl_TessCoord);")
            ),
        ),
        (
            Stage::Fragment,
            format!(
                "#version 150\nout vec4 c;\n{}",
                body("c = vec4(acc, p.b, 1.0);")
            ),
        ),
        // Doubles are stored through unpackDouble2x32.
        (
            Stage::Fragment,
            format!(
                "#version 400\nout vec4 c;\n{}",
                body("dvec3 d = dvec3(acc); c = vec4(float(d.z), p.b, 1.0);")
            ),
        ),
        // gl_FragColor becomes a named output, in the records too.
        (
            Stage::Fragment,
            format!(
                "#version 140\n{}",
                body("gl_FragColor = vec4(acc, p.b, 1.0);")
            ),
        ),
        (
            Stage::Compute,
            format!(
                "#version 310 es\nlayout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer O {{ highp float o[]; }};\nprecision highp float;\n{}",
                body("o[0] = acc;")
            ),
        ),
    ]
}

#[test]
fn every_stage_trace_compiles_on_the_driver() {
    let driver = Driver::new().expect("headless EGL context on Mesa");
    for (stage, src) in stage_sources() {
        let m = ShaderModel::parse(&src, stage).unwrap_or_else(|e| panic!("{stage:?}: {e}"));
        driver
            .compile(stage.gl_enum(), &src)
            .unwrap_or_else(|e| panic!("{stage:?} original: {e}"));
        let trace = m
            .instrument_trace(&TraceSpec {
                focus: "true",
                start: 0,
                max_records: 64,
            })
            .unwrap_or_else(|e| panic!("{stage:?}: {e}"));
        driver
            .compile(stage.gl_enum(), &trace.shader.source)
            .unwrap_or_else(|e| panic!("{stage:?}: {}\n{}", first_error(&e), trace.shader.source));
    }
}
