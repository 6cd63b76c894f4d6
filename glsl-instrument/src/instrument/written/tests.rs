//! Unit tests of the written probe's generated source.

use crate::{Probe, Semantics, ShaderModel, Stage};

/// The written probe of `expr` at the first step on `line`.
fn probe_at(
    src: &str,
    stage: Stage,
    line: u32,
    expr: &str,
) -> Result<Option<crate::Instrumented>, crate::InstrumentError> {
    let m = ShaderModel::parse(src, stage).unwrap();
    let pos = crate::Position {
        step: m.steps_on_line(line)[0],
        calls: vec![],
        iterations: vec![],
    };
    let probe = Probe {
        position: &pos,
        expr: Some(expr),
        semantics: Semantics::ReportDiscarded,
    };
    m.instrument_written(&probe, false)
}

/// The names gldbg cannot tell of the written probe of `expr`.
fn unknown(src: &str, stage: Stage, line: u32, expr: &str) -> Vec<String> {
    match probe_at(src, stage, line, expr) {
        Err(crate::InstrumentError::WrittenUnknown(n)) => n,
        r => panic!("{:?}", r.map(|i| i.map(|i| i.source))),
    }
}

fn written(src: &str, stage: Stage, line: u32, expr: &str) -> Option<String> {
    probe_at(src, stage, line, expr).unwrap().map(|i| i.source)
}

const FRAG: &str = "#version 110
uniform float t;
void main() {
    float a = t * 2.0;
    if (t > 0.5)
        gl_FragColor.rgb = vec3(a);
    gl_FragData[1] = vec4(a);
    gl_FragColor.a = 1.0;
}
";

#[test]
fn writes_set_the_mirror_of_what_they_assign_on_the_path_taken() {
    let s = written(FRAG, Stage::Fragment, 8, "gl_FragColor").unwrap();
    // Cleared at the start, set after each write, on its branch.
    assert!(s.contains("bvec4 gldbg_w_FragColor;\n"), "{s}");
    assert!(s.contains("    gldbg_w_FragColor = bvec4(false);\n"), "{s}");
    assert!(
        s.contains(
            "if (t > 0.5) gl_FragData[0].rgb = vec3(a), gldbg_w_FragColor.rgb = bvec3(true);"
        ),
        "{s}"
    );
    assert!(s.contains("gldbg_w_FragColor.a = true;"), "{s}");
    assert!(s.contains("gldbg_w_FragData[1] = bvec4(true);"), "{s}");
    assert!(
            s.contains("for (int gldbg_k = 0; gldbg_k < (gl_MaxDrawBuffers); gldbg_k++) gldbg_w_FragData[gldbg_k] = bvec4(false);"),
            "{s}"
        );
    // The probe hands out the mirror, per component.
    assert!(
        s.contains("gldbg_c = gldbg_store(gldbg_w_FragColor);"),
        "{s}"
    );
    let s = written(FRAG, Stage::Fragment, 8, "gl_FragColor.ab").unwrap();
    assert!(s.contains("gldbg_store(gldbg_w_FragColor.ab)"), "{s}");
    // Another expression: one flag for all it reads.
    let s = written(
        FRAG,
        Stage::Fragment,
        8,
        "gl_FragColor.r * a + gl_FragData[1].x",
    )
    .unwrap();
    assert!(
        s.contains("gldbg_store(gldbg_w_FragColor.r && gldbg_w_FragData[1].x)"),
        "{s}"
    );
    // No output read: no written probe.
    assert_eq!(written(FRAG, Stage::Fragment, 8, "a * t"), None);
}

#[test]
fn user_outputs_and_vertex_builtins_are_tracked() {
    let src = "#version 330 core
in vec4 p;
out vec3 c;
out float k[2];
void main() {
    int i = 1;
    k[i] = 1.0;
    c = p.xyz;
    gl_Position = p;
}
";
    let s = written(src, Stage::Vertex, 9, "gl_Position").unwrap();
    assert!(s.contains("bvec4 gldbg_w_Position;"), "{s}");
    assert!(
        s.contains("gl_Position = p, gldbg_w_Position = bvec4(true);"),
        "{s}"
    );
    let s = written(src, Stage::Vertex, 9, "k[0] + k[1]").unwrap();
    assert!(s.contains("k[i] = 1., gldbg_w_k[i] = true;"), "{s}");
    assert!(
        s.contains("gldbg_store(gldbg_w_k[0] && gldbg_w_k[1])"),
        "{s}"
    );
    let s = written(src, Stage::Vertex, 9, "c").unwrap();
    assert!(s.contains("c = p.xyz, gldbg_w_c = bvec3(true);"), "{s}");
}

#[test]
fn locals_of_main_without_initializer_are_tracked() {
    let src = "#version 330 core
uniform float t;
out vec4 o;
float f(out float y) { float x; y = 1.0; x = y; return x; }
void main() {
    float x;
    float z;
    float g = f(z);
    if (t > 0.5) x = 1.0;
    o = vec4(x, z, g, 1.0);
}
";
    let s = written(src, Stage::Fragment, 10, "x").unwrap();
    assert!(s.contains("if (t > 0.5) x = 1., gldbg_w_x = true;"), "{s}");
    assert!(s.contains("gldbg_store(gldbg_w_x)"), "{s}");
    // f's own `x` is another variable: its writes set nothing.
    assert!(s.contains("x = y;\n"), "{s}");
    // `z` is written through `out` in a declaration's call: copied back
    // at `f`'s return.
    let s = written(src, Stage::Fragment, 10, "z").unwrap();
    assert!(
        s.contains("return gldbg_site_f == 1 ? gldbg_w_z = gldbg_w_y, true : false, x;"),
        "{s}"
    );
    // Inside f, main's locals are not tracked.
    assert_eq!(written(src, Stage::Fragment, 4, "x"), None);
}

#[test]
fn geometry_outputs_are_unwritten_again_after_each_emit() {
    let src = "#version 150
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
out vec4 c;
void main() {
    for (int i = 0; i < 3; i++) {
        gl_Position = gl_in[i].gl_Position;
        c = vec4(1.0);
        EmitVertex();
    }
    EndPrimitive();
}
";
    let s = written(src, Stage::Geometry, 11, "gl_Position").unwrap();
    assert!(s.contains("void gldbg_unwritten() {\n"), "{s}");
    assert!(
        s.contains("gldbg_put(), EmitVertex(), gldbg_unwritten();"),
        "{s}"
    );
    assert!(
        s.contains("    gldbg_unwritten();\n}\nvoid gldbg_end() {"),
        "{s}"
    );
}

#[test]
fn out_and_inout_arguments_copy_the_mirrors_through_the_call() {
    let src = "#version 330 core
uniform float t;
out vec4 o;
void set(out float y, float v) { if (v > 0.5) y = v; }
void keep(inout vec2 y) { y.x = 2.0; }
void paint() { o.a = 1.0; }
void main() {
    float z;
    vec4 c;
    set(z, t);
    keep(c.zw);
    float i;
    float f = modf(t * 3.0, i);
    paint();
    o.rgb = vec3(z, i, f + c.z);
}
";
    let s = written(src, Stage::Fragment, 15, "z").unwrap();
    // `out`: cleared before the call, copied back after it; inside
    // `set` the parameter's write sets the parameter's mirror.
    assert!(
        s.contains("gldbg_w_y = false, set(z, t), gldbg_w_z = gldbg_w_y;"),
        "{s}"
    );
    assert!(s.contains("if (v > 0.5) y = v, gldbg_w_y = true;"), "{s}");
    // `inout`: the argument's mirror copied in and back, per component.
    let s = written(src, Stage::Fragment, 15, "c.zw").unwrap();
    assert!(
        s.contains("gldbg_w_y_1 = gldbg_w_c.zw, keep(c.zw), gldbg_w_c.zw = gldbg_w_y_1;"),
        "{s}"
    );
    assert!(s.contains("y.x = 2., gldbg_w_y_1.x = true;"), "{s}");
    // A built-in's `out` argument is written by the call.
    let s = written(src, Stage::Fragment, 15, "i").unwrap();
    assert!(s.contains("gldbg_w_i = true, modf(t * 3., i)"), "{s}");
    // A function assigning the output directly sets its (global) mirror.
    let s = written(src, Stage::Fragment, 15, "o").unwrap();
    assert!(s.contains("o.a = 1., gldbg_w_o.a = true;"), "{s}");
    // A user call with an `out` argument inside an expression: cannot tell.
    let src2 = src.replace("    set(z, t);\n", "    float q = t + (set(z, t), 1.0);\n");
    assert_eq!(unknown(&src2, Stage::Fragment, 15, "z + 1.0"), ["z"]);
}

#[test]
fn nested_compound_matrix_and_array_writes_are_followed_or_unknown() {
    let src = "#version 330 core
uniform int n;
out vec4 o;
out mat2 m;
out float k[2];
out float r;
void main() {
    float a;
    float b;
    b = a = 1.0;
    o = vec4(0.0);
    o += vec4(a);
    m[1] = vec2(b);
    float ks[2] = float[2](1.0, 2.0);
    k = ks;
    k[n++] = 3.0;
    r = 0.0;
}
";
    let s = written(src, Stage::Fragment, 17, "a").unwrap();
    assert!(
        s.contains("b = (a = 1., gldbg_w_a = true, a), gldbg_w_b = true;"),
        "{s}"
    );
    // `+=` changes no mirror: written before, written after.
    let s = written(src, Stage::Fragment, 17, "o").unwrap();
    assert!(s.contains("o += vec4(a);\n"), "{s}");
    // A matrix per column: the column written, the other not.
    let s = written(src, Stage::Fragment, 17, "m").unwrap();
    assert!(s.contains("bvec2 gldbg_w_m[2];"), "{s}");
    assert!(
        s.contains("m[1] = vec2(b), gldbg_w_m[1] = bvec2(true);"),
        "{s}"
    );
    assert!(
        s.contains("gldbg_store(all(gldbg_w_m[0]) && all(gldbg_w_m[1]))"),
        "{s}"
    );
    // A whole array of constant size: each element.
    let s = written(src, Stage::Fragment, 17, "r").unwrap();
    assert!(
        s.contains("k = ks, (gldbg_w_k[0] = true, gldbg_w_k[1] = true);"),
        "{s}"
    );
    // An index with a side effect: which element is not followed.
    assert_eq!(unknown(src, Stage::Fragment, 17, "k[0]"), ["k"]);
    assert_eq!(unknown(src, Stage::Fragment, 17, "k[1] + r"), ["k"]);
}

#[test]
fn struct_block_and_tess_control_outputs_are_unknown() {
    let src = "#version 330 core
struct S { vec4 c; };
out S s;
out B { vec4 d; } b;
out vec4 plain;
void main() {
    s.c = vec4(1.0);
    b.d = vec4(1.0);
    plain = vec4(1.0);
}
";
    assert_eq!(unknown(src, Stage::Fragment, 9, "s.c"), ["s"]);
    assert_eq!(unknown(src, Stage::Fragment, 9, "b.d.x"), ["b"]);
    assert!(written(src, Stage::Fragment, 9, "plain").is_some());
    let tcs = "#version 400 core
layout(vertices = 3) out;
out vec4 pv[];
void main() {
    gl_out[gl_InvocationID].gl_Position = gl_in[gl_InvocationID].gl_Position;
    pv[gl_InvocationID] = vec4(1.0);
    gl_TessLevelOuter[0] = 1.0;
}
";
    assert_eq!(
        unknown(
            tcs,
            Stage::TessControl,
            7,
            "gl_out[gl_InvocationID].gl_Position"
        ),
        ["gl_out"]
    );
    assert_eq!(unknown(tcs, Stage::TessControl, 7, "pv[0]"), ["pv"]);
    assert_eq!(
        unknown(tcs, Stage::TessControl, 7, "gl_TessLevelOuter[0]"),
        ["gl_TessLevelOuter"]
    );
}

#[test]
fn a_local_of_an_outputs_name_is_not_taken_for_the_output() {
    let src = "#version 330 core
out vec4 c;
void f() { vec4 c; c = vec4(1.0); }
void main() {
    f();
    c.x = 0.0;
}
";
    // `f` writes its own `c`: never claimed as the output's write.
    assert_eq!(unknown(src, Stage::Fragment, 6, "c"), ["c"]);
    let src = "#version 330 core
out vec4 c;
void main() {
    c = vec4(0.5);
    if (c.x > 0.0) { vec4 c = vec4(2.0); c.y = 1.0; }
}
";
    // The probe in main, where a local hides the output: cannot tell.
    assert_eq!(unknown(src, Stage::Fragment, 5, "c.x"), ["c"]);
}

#[test]
fn an_emit_leaves_the_locals_of_main_written() {
    let src = "#version 150
layout(points) in;
layout(points, max_vertices = 2) out;
void main() {
    float w;
    w = 1.0;
    gl_Position = vec4(w);
    EmitVertex();
    gl_Position = vec4(w);
    EmitVertex();
}
";
    let s = written(src, Stage::Geometry, 9, "gl_Position.x + w").unwrap();
    // The reset after each emit clears the outputs only; `main`'s start
    // clears the locals too.
    let reset = &s[s.find("void gldbg_unwritten() {").unwrap()..];
    let reset = &reset[..reset.find('}').unwrap()];
    assert!(reset.contains("gldbg_w_Position = bvec4(false);"), "{s}");
    assert!(!reset.contains("gldbg_w_w"), "{s}");
    assert!(
        s.contains("    gldbg_unwritten();\n    gldbg_w_w = false;\n"),
        "{s}"
    );
}

#[test]
fn a_call_inside_an_expression_copies_back_at_the_callees_returns() {
    let src = "#version 330 core
uniform float t;
out vec4 o;
float f(float v, out float r) { if (v > 0.5) return 0.0; r = v; return abs(v); }
void main() {
    float z;
    float w[2];
    float g = f(t, z) + f(t, w[int(t)]);
    o = vec4(z, g, w[0], 1.0);
}
";
    let s = written(src, Stage::Fragment, 9, "z").unwrap();
    // The site number and the parameter's mirror before the call ...
    assert!(
        s.contains("float g = (gldbg_site_f = 1, (gldbg_w_r = false, f(t, z))) + "),
        "{s}"
    );
    // ... copied back at each return where the site is this one; a call
    // that follows nothing names no site.
    assert!(
        s.contains(
            "if (v > 0.5) return gldbg_site_f == 1 ? gldbg_w_z = gldbg_w_r, true : false, 0.;"
        ),
        "{s}"
    );
    assert!(s.contains("(gldbg_site_f = 0, f(t, w[int(t)]))"), "{s}");
    // Its element is not a constant: cannot tell.
    assert_eq!(unknown(src, Stage::Fragment, 9, "w[0]"), ["w"]);
    // A return expression that writes the parameter runs after the copy:
    // cannot tell.
    let src = src.replace("r = v; return abs(v);", "return r = v;");
    assert_eq!(unknown(&src, Stage::Fragment, 9, "z"), ["z"]);
}

#[test]
fn untracked_locals_and_out_parameters_are_unknown_not_written() {
    let src = "#version 330 core
uniform float t;
out vec4 o;
void f(out float y) {
    float u;
    if (t > 0.5) u = 1.0;
    y = u;
}
void main() {
    float z;
    for (int i = 0; i < 2; i++) {
        float l;
        if (t > 0.5) l = 1.0;
        z = l;
    }
    f(z);
    o = vec4(z);
}
";
    // A local of another function, an `out` parameter before its write, a
    // local declared in a loop: never shown as if written.
    let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
    let at = |line: u32, in_f: bool, expr: &str| {
        let pos = crate::Position {
            step: m.steps_on_line(line)[0],
            calls: match in_f {
                true => vec![(m.steps_on_line(16)[0], 0)],
                false => vec![],
            },
            iterations: match in_f {
                true => vec![],
                false => vec![0],
            },
        };
        let probe = Probe {
            position: &pos,
            expr: Some(expr),
            semantics: Semantics::ReportDiscarded,
        };
        match m.instrument_written(&probe, false) {
            Err(crate::InstrumentError::WrittenUnknown(n)) => n,
            r => panic!("{:?}", r.map(|i| i.map(|i| i.source))),
        }
    };
    assert_eq!(at(7, true, "u"), ["u"]);
    assert_eq!(at(6, true, "y"), ["y"]);
    assert_eq!(at(14, false, "l"), ["l"]);
    // A tracked local of main is still followed.
    assert!(written(src, Stage::Fragment, 17, "z").is_some());
}

#[test]
fn an_overloaded_function_with_out_parameters_is_unknown_at_its_calls() {
    let src = "#version 330 core
uniform float t;
out vec4 o;
float f(float v, out float r) { r = v; return v; }
float f(vec2 v, out float r) { r = v.x; return v.y; }
void main() {
    float z;
    float g = f(t, z);
    o = vec4(z, g, 0.0, 1.0);
}
";
    // Which definition runs is the compiler's choice: no site global, and
    // the argument cannot tell.
    assert_eq!(unknown(src, Stage::Fragment, 9, "z"), ["z"]);
    let s = written(src, Stage::Fragment, 9, "o").unwrap();
    assert!(!s.contains("gldbg_site_f"), "{s}");
}
