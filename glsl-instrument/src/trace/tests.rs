//! Unit tests of the trace generator: per stage, the generated shader
//! re-parses, the layout covers every step, the entry and the end ids, its
//! offsets add up, and steps' writes and declarations are right.

use super::*;
use crate::instrument::test_support::stage_shaders;
use crate::{Stage, StepKind};

fn spec() -> TraceSpec<'static> {
    TraceSpec {
        focus: "gl_PrimitiveID == 0",
        start: 0,
        max_records: 100,
    }
}

fn trace_of(stage: Stage, src: &str) -> (ShaderModel, Trace) {
    let m = ShaderModel::parse(src, stage).unwrap();
    let focus = match stage {
        Stage::Compute => "gl_GlobalInvocationID == uvec3(2u, 0u, 0u)",
        Stage::Vertex => "gl_VertexID == 0",
        Stage::Fragment => "all(equal(ivec2(gl_FragCoord.xy), ivec2(1, 2)))",
        _ => spec().focus,
    };
    let t = m
        .instrument_trace(&TraceSpec { focus, ..spec() })
        .unwrap_or_else(|e| panic!("{stage:?}: {e}"));
    (m, t)
}

#[test]
fn every_stage_traces_every_step_and_reparses() {
    for (stage, src) in stage_shaders("") {
        let (m, t) = trace_of(stage, &src);
        let text = &t.shader.source;
        ShaderModel::parse(text, stage).unwrap_or_else(|e| panic!("{stage:?}: {e}\n{text}"));
        assert!(t.block.starts_with("gldbg_"), "{}", t.block);
        assert!(text.contains(&format!("buffer {}", t.block)), "{text}");
        for s in m.steps() {
            let rec = &t.layout.records[&s.id.0];
            assert_eq!(rec.step, Some(s.id));
            // One call per step, with its id.
            assert!(
                text.contains(&format!("({}u", s.id.0)),
                "{stage:?} step {}: {text}",
                s.id.0
            );
        }
        let entry = &t.layout.records[&ENTRY_RECORD];
        assert_eq!(entry.step, None);
        assert!(entry.vars.iter().all(|v| v.role == VarRole::Input));
        let last = m.last_step_of_main().unwrap();
        assert!(t.layout.records.contains_key(&(END_RECORD | last.0)));
        let ret = m
            .steps()
            .iter()
            .find(|s| s.kind == StepKind::Return && s.function == "main")
            .unwrap();
        assert!(t.layout.records.contains_key(&(END_RECORD | ret.id.0)));
        assert_eq!(t.layout.records.len(), m.steps().len() + 3);
        for (id, rec) in &t.layout.records {
            let mut next = 0;
            for v in &rec.vars {
                for p in &v.parts {
                    assert_eq!(p.offset, next, "{stage:?} record {id:x} {}", v.name);
                    next += u32::from(p.ty.components) * super::vars::words_per_component(p.ty);
                }
            }
            assert_eq!(rec.words, next, "{stage:?} record {id:x}");
        }
    }
}

#[test]
fn a_record_holds_params_locals_and_writable_globals() {
    let (stage, src) = stage_shaders("").remove(0);
    let (m, t) = trace_of(stage, &src);
    let at = |text: &str| {
        let s = m.steps().iter().find(|s| s.text.starts_with(text)).unwrap();
        &t.layout.records[&s.id.0]
    };
    let names = |r: &RecordLayout| -> Vec<(String, VarRole)> {
        r.vars.iter().map(|v| (v.name.clone(), v.role)).collect()
    };
    // In the callee: its parameters (y undefined: `out`), the written globals.
    let r = at("y = x * 2.0");
    assert_eq!(
        names(r),
        [
            ("color".to_string(), VarRole::Global { defined: false }),
            ("g_acc".to_string(), VarRole::Global { defined: false }),
            ("x".to_string(), VarRole::Param { defined: true }),
            ("y".to_string(), VarRole::Param { defined: false }),
            ("z".to_string(), VarRole::Param { defined: true }),
        ]
    );
    // In main's inner loop: the struct by field, the array by element.
    let r = at("acc = y");
    let p = r.vars.iter().find(|v| v.name == "p").unwrap();
    let paths: Vec<&str> = p.parts.iter().map(|x| x.path.as_str()).collect();
    assert_eq!(paths, [".a", ".b"]);
    let arr = r.vars.iter().find(|v| v.name == "arr").unwrap();
    assert_eq!(arr.parts.len(), 3);
    assert_eq!(arr.parts[2].path, "[2]");
    for local in ["acc", "i", "j", "y"] {
        let v = r.vars.iter().find(|v| v.name == local).unwrap();
        assert_eq!(v.role, VarRole::Local, "{local}");
    }
    // The uniform is an input: in the entry record only.
    assert!(!r.vars.iter().any(|v| v.name == "scale"));
    let entry = &t.layout.records[&ENTRY_RECORD];
    assert!(entry.vars.iter().any(|v| v.name == "scale"));
    // Read by the focus only, not by the shader.
    assert!(!entry.vars.iter().any(|v| v.name == "gl_FragCoord"));
}

#[test]
fn writes_and_declarations_follow_the_assignment_forms() {
    let src = "#version 430
out vec4 color;
struct L { vec3 c; float w; };
void f(in float a, out float b, inout vec2 c) { b = a; c.x = a; }
void main() {
    L ls[2];
    vec4 v = vec4(0.0), u;
    int k = 1;
    v.yz = vec2(1.0);
    ls[1].c = vec3(2.0);
    ls[k].w = 3.0;
    k++;
    --k;
    v += u;
    float e;
    float fr = modf(1.5, e);
    f(1.0, u.x, v.zw);
    color = v;
}
";
    let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
    let t = m
        .instrument_trace(&TraceSpec {
            focus: "true",
            ..spec()
        })
        .unwrap();
    let w = |name: &str, path: Option<&str>| TracedWrite {
        name: name.to_string(),
        path: path.map(str::to_string),
    };
    let at = |text: &str| {
        let s = m.steps().iter().find(|s| s.text.starts_with(text)).unwrap();
        let r = &t.layout.records[&s.id.0];
        (r.declares.clone(), r.writes.clone())
    };
    assert_eq!(at("L ls[2]"), (vec!["ls".to_string()], vec![]));
    assert_eq!(
        at("vec4 v = vec4(0.0), u"),
        (vec!["v".into(), "u".into()], vec![w("v", Some(""))])
    );
    assert_eq!(at("v.yz = ").1, [w("v", Some(".yz"))]);
    assert_eq!(at("ls[1].c").1, [w("ls", Some("[1].c"))]);
    assert_eq!(at("ls[k].w").1, [w("ls", None)]);
    assert_eq!(at("k++").1, [w("k", Some(""))]);
    assert_eq!(at("--k").1, [w("k", Some(""))]);
    assert_eq!(at("v += u").1, [w("v", Some(""))]);
    assert_eq!(at("float e;"), (vec!["e".to_string()], vec![]));
    assert_eq!(at("float fr").1, [w("fr", Some("")), w("e", Some(""))]);
    assert_eq!(at("f(1.0").1, [w("u", Some(".x")), w("v", Some(".zw"))]);
    assert_eq!(at("b = a").1, [w("b", Some(""))]);
    assert_eq!(at("c.x = a").1, [w("c", Some(".x"))]);
}

#[test]
fn old_glsl_is_refused_and_1_40_requires_the_extension() {
    let es = "#version 300 es\nprecision highp float;\nout vec4 c;\nvoid main() {\n    c = vec4(1.0);\n}\n";
    let m = ShaderModel::parse(es, Stage::Fragment).unwrap();
    match m.instrument_trace(&spec()) {
        Err(InstrumentError::Unsupported(msg)) => assert!(msg.contains("ES 3.10"), "{msg}"),
        other => panic!("{other:?}"),
    }
    let old = "#version 130\nvoid main() {\n    gl_FragColor = vec4(1.0);\n}\n";
    let m = ShaderModel::parse(old, Stage::Fragment).unwrap();
    assert!(matches!(
        m.instrument_trace(&spec()),
        Err(InstrumentError::Unsupported(_))
    ));
    let v140 =
        "#version 140\nout vec4 c;\nvoid main() {\n    float x = 1.0;\n    c = vec4(x);\n}\n";
    let m = ShaderModel::parse(v140, Stage::Fragment).unwrap();
    let t = m
        .instrument_trace(&TraceSpec {
            focus: "true",
            ..spec()
        })
        .unwrap();
    let text = &t.shader.source;
    assert!(
        text.contains("#extension GL_ARB_shader_storage_buffer_object : require"),
        "{text}"
    );
    assert!(
        text.contains("#extension GL_ARB_shader_bit_encoding : require"),
        "{text}"
    );
    // A focus with a side effect is refused.
    let bad = m.instrument_trace(&TraceSpec {
        focus: "(c = vec4(0.0)) == vec4(0.0)",
        ..spec()
    });
    assert!(
        matches!(bad, Err(InstrumentError::BadExpression { .. })),
        "{bad:?}"
    );
}

#[test]
fn records_sit_before_statements_and_in_conditions() {
    let (stage, src) = stage_shaders("").remove(5);
    let (m, t) = trace_of(stage, &src);
    let text = &t.shader.source;
    let on = "gldbg_on";
    // The claim and the entry record open main.
    let claim = text
        .find("atomicAdd(gldbg_trace.hits, 1u) == 0u")
        .expect(text);
    let entry = text.find(&format!("({ENTRY_RECORD}u")).expect(text);
    assert!(claim < entry, "{text}");
    // A loop condition carries its record: `(on && rec(id, ...), i < 2)`.
    let cond = m
        .steps()
        .iter()
        .find(|s| s.kind == StepKind::LoopCondition)
        .unwrap();
    let needle = format!("{on} && (gldbg_rec");
    let at = text.find(&needle).expect(text);
    assert!(text[at..].contains(&format!("({}u, ", cond.id.0)), "{text}");
    // The end record and the coverage write end main.
    let last = m.last_step_of_main().unwrap();
    assert!(
        text.contains(&format!("({}u", END_RECORD | last.0)),
        "{text}"
    );
}

#[test]
fn a_local_hiding_a_global_or_parameter_is_a_local() {
    let src = "#version 430
out vec4 color;
float g;
float f(float x) {
    float r = x;
    for (int i = 0; i < 2; i++) {
        float x = r + 1.0;
        r = x;
    }
    return r;
}
void main() {
    g = 1.0;
    float g = 2.0;
    color = vec4(f(g));
}
";
    let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
    let t = m
        .instrument_trace(&TraceSpec {
            focus: "true",
            ..spec()
        })
        .unwrap();
    let role = |text: &str, name: &str| {
        let s = m.steps().iter().find(|s| s.text.starts_with(text)).unwrap();
        let r = &t.layout.records[&s.id.0];
        r.vars.iter().find(|v| v.name == name).map(|v| v.role)
    };
    assert_eq!(
        role("float r = x", "x"),
        Some(VarRole::Param { defined: true })
    );
    assert_eq!(role("r = x;", "x"), Some(VarRole::Local));
    assert_eq!(role("i++", "i"), Some(VarRole::Local));
    assert_eq!(role("i++", "x"), Some(VarRole::Param { defined: true }));
    assert_eq!(
        role("float g = 2.0", "g"),
        Some(VarRole::Global { defined: false })
    );
    assert_eq!(role("color = ", "g"), Some(VarRole::Local));
    let last = m.last_step_of_main().unwrap();
    let end = &t.layout.records[&(END_RECORD | last.0)];
    let g = end.vars.iter().find(|v| v.name == "g").unwrap();
    assert_eq!(g.role, VarRole::Local);
}

#[test]
fn doubles_take_two_words_and_opaque_or_unsized_values_are_left_out() {
    let src = "#version 430
layout(local_size_x = 1) in;
layout(std430) buffer B { float tail[]; };
uniform sampler2D tex;
uniform float big[100];
void main() {
    dvec3 d = dvec3(1.0, 2.0, 3.0);
    mat2 m2 = mat2(1.0);
    bvec2 b = bvec2(true, false);
    tail[0] = float(d.x) + texture(tex, vec2(0.0)).x + big[3] + m2[0][0] + float(b.x);
}
";
    let m = ShaderModel::parse(src, Stage::Compute).unwrap();
    let t = m
        .instrument_trace(&TraceSpec {
            focus: "true",
            ..spec()
        })
        .unwrap();
    let last = m.last_step_of_main().unwrap();
    let r = &t.layout.records[&last.0];
    let names: Vec<&str> = r.vars.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["d", "m2", "b"]);
    let d = &r.vars[0];
    let parts: Vec<(&str, u32)> = d
        .parts
        .iter()
        .map(|p| (p.path.as_str(), p.offset))
        .collect();
    assert_eq!(parts, [(".xy", 0), (".z", 4)]);
    assert_eq!(r.vars[1].parts[1].path, "[1]");
    assert_eq!(r.vars[1].parts[1].offset, 8);
    assert_eq!(r.words, 6 + 4 + 2);
    assert!(
        t.shader.source.contains("unpackDouble2x32("),
        "{}",
        t.shader.source
    );
    // The sampler, the unsized buffer member and the 100-part array are not read.
    let entry = &t.layout.records[&ENTRY_RECORD];
    assert!(entry.vars.is_empty(), "{:?}", entry.vars);
}
