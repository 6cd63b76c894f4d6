//! Valid GLSL that glsl-lang cannot parse as is (piglit shaders Mesa
//! compiles): each shape parses, its steps sit at the original
//! line:column, and the instrumented shader prints the construct back as
//! written.

use glsl_instrument::{Position, Probe, Semantics, ShaderModel, Stage, StepKind};

fn parse(src: &str, stage: Stage) -> ShaderModel {
    match ShaderModel::parse(src, stage) {
        Ok(m) => m,
        Err(e) => panic!("{e}\n{src}"),
    }
}

fn instrumented(m: &ShaderModel, pos: &Position) -> String {
    m.instrument(&Probe {
        position: pos,
        expr: None,
        semantics: Semantics::Equivalent,
    })
    .unwrap_or_else(|e| panic!("{e}"))
    .source
}

/// The step on `line` (1-based) and its column.
fn step_at(m: &ShaderModel, line: u32) -> (u32, u32) {
    let id = m.steps_on_line(line)[0];
    let s = m.step(id);
    (s.line, s.column)
}

fn assert_prints(m: &ShaderModel, pieces: &[&str]) {
    let out = instrumented(m, &m.entry());
    for p in pieces {
        assert!(out.contains(p), "`{p}` missing in\n{out}");
    }
    // The debug shader parses again (same workarounds).
    if let Err(e) = ShaderModel::parse(&out, m.stage()) {
        panic!("instrumented shader does not parse again: {e}\n{out}");
    }
}

// piglit spec/arb_shader_subroutine/execution/simple-subroutine.shader_test
const SUBROUTINE: &str = "#version 150
#extension GL_ARB_shader_subroutine: enable
out vec4 color;
subroutine vec4 getcolor();
subroutine uniform getcolor GetColor;
subroutine(getcolor)
vec4 color_red()
{
\treturn vec4(1.0, 0.0, 0.0, 1.0);
}
subroutine(getcolor)
vec4 color_green()
{
\treturn vec4(0.0, 1.0, 0.0, 1.0);
}
void main()
{
\tcolor = GetColor();
}
";

#[test]
fn subroutine_types_uniforms_and_qualifiers() {
    let m = parse(SUBROUTINE, Stage::Fragment);
    assert_eq!(step_at(&m, 9), (9, 2));
    assert_eq!(step_at(&m, 18), (18, 2));
    assert_eq!(m.step(m.entry().step).line, 18);
    assert_prints(
        &m,
        &[
            "subroutine vec4 getcolor();",
            "subroutine uniform getcolor GetColor;",
            "subroutine(getcolor) vec4 color_red()",
            "color = GetColor();",
        ],
    );
    // The subroutine uniform is in scope (its type as written), and a call
    // through it has the subroutine type's result.
    let s = m.step(m.entry().step);
    assert!(
        s.scope
            .iter()
            .any(|v| v.name == "GetColor" && v.ty == "getcolor")
    );
    assert_eq!(
        m.expression_type(s.id, "GetColor().rgb"),
        Ok(Some("vec3".into()))
    );
    // A type matching several types, a layout, arrays of subroutine
    // uniforms (called through an index), a one-letter type name, an
    // array return type, and a direct call of an implementation.
    let src = "#version 150
#extension GL_ARB_shader_subroutine: require
#extension GL_ARB_explicit_uniform_location: require
#extension GL_ARB_arrays_of_arrays: enable
out vec4 color;
subroutine float a();
subroutine float T();
subroutine vec4[2] arr();
layout(location = 2) subroutine uniform a f[2][2];
subroutine uniform T g;
subroutine (a, T) float both() { return 0.5; }
subroutine (arr) vec4[2] pair() { return vec4[2](vec4(1.0), vec4(0.0)); }
void main()
{
  color = vec4(f[1][0](), g(), both(), pair()[0].x);
}
";
    let m = parse(src, Stage::Fragment);
    assert_eq!(step_at(&m, 15), (15, 3));
    assert_eq!(m.step(m.entry().step).calls, vec!["both", "pair"]);
    assert_prints(
        &m,
        &[
            "subroutine float a();",
            "subroutine float T();",
            "subroutine vec4[2] arr();",
            "layout(location = 2) subroutine uniform a f[2][2];",
            "subroutine(a, T) float both()",
            "f[1][0]()",
        ],
    );
}

#[test]
fn precise_statement() {
    // piglit arb_gpu_shader5/compiler/precise-qualifier/precise-06, -07, -09
    let src = "#version 150
#extension GL_ARB_gpu_shader5: require
out vec4 color;
vec4 x;
precise x;
float foo(out float y) {
\tprecise y;
\ty = 1.0;
\treturn y;
}
void main() {
\tvec4 z;
\tprecise z;
\tz = vec4(foo(z.x));
\tcolor = z + x;
}
";
    let m = parse(src, Stage::Fragment);
    // `precise z;` is no step and declares nothing.
    assert!(m.steps_on_line(13).is_empty());
    assert!(m.steps_on_line(7).is_empty());
    assert_eq!(step_at(&m, 14), (14, 2));
    let s = m.step(m.steps_on_line(14)[0]);
    assert_eq!(s.scope.iter().filter(|v| v.name == "z").count(), 1);
    assert_eq!(s.scope.iter().find(|v| v.name == "x").unwrap().ty, "vec4");
    assert_prints(&m, &["precise x;", "precise y;", "precise z;"]);
}

#[test]
fn invariant_lists_and_late_invariant() {
    // piglit glslparsertest/glsl2/invariant-02.vert
    let src = "#version 120
invariant gl_Position, gl_FrontColor, gl_BackColor;
void main() {
  gl_Position = gl_Vertex;
}
";
    let m = parse(src, Stage::Vertex);
    assert_eq!(step_at(&m, 4), (4, 3));
    assert_prints(&m, &["invariant gl_Position, gl_FrontColor, gl_BackColor;"]);
    // The built-in keeps its type in scope.
    let s = m.step(m.entry().step);
    assert_eq!(
        s.scope.iter().find(|v| v.name == "gl_Position").unwrap().ty,
        "vec4"
    );
    // arb_shading_language_420pack invariant-qual-ordering.vert; a block
    // member (glsl-1.50 invariant-qualifier-in-out-block-01.vert).
    let src = "#version 150
#extension GL_ARB_shading_language_420pack: enable
out flat invariant float x;
out block {
    invariant vec4 y;
};
void main() {
  x = 1.0;
  y = vec4(x);
}
";
    let m = parse(src, Stage::Vertex);
    assert_eq!(step_at(&m, 8), (8, 3));
    assert_prints(&m, &["out flat invariant float x;", "invariant vec4 y;"]);
}

#[test]
fn struct_names_used_as_variable_and_field_names() {
    // piglit glsl-1.10/compiler/struct/structure-and-field-have-same-name-nested.vert
    let src = "#version 110
struct S  { vec4 S; };
struct S2 { S S; };
void main()
{
  S2 s = S2(S(gl_Vertex));
  gl_Position = s.S.S;
}
";
    let m = parse(src, Stage::Vertex);
    assert_eq!(step_at(&m, 7), (7, 3));
    assert_prints(&m, &["vec4 S;", "S S;", "gl_Position = s.S.S;"]);
    // piglit glsl-1.20/compiler/scoping-struct-vs-variable.vert and
    // glslparsertest/glsl2/struct-04.vert
    let src = "#version 120
struct Name {
    float a;
};
void main()
{
    Name Name;
    vec4 v = vec4(1.0);
    gl_Position = v;
}
float f(int Name) { return float(Name); }
";
    let m = parse(src, Stage::Vertex);
    let s = m.step(m.steps_on_line(7)[0]);
    assert_eq!(s.text, "Name Name;");
    assert_prints(
        &m,
        &["Name Name;", "float f(int Name)", "return float(Name);"],
    );
}

#[test]
fn later_keywords_as_identifiers_in_older_versions() {
    // piglit glsl-1.10 qualifiers/invariant-01.vert, centroid-01.vert,
    // execution/glsl-precision-110; glsl-es-3.00 buffer-variable-name.vert
    let src = "#version 110
uniform vec4 invariant;
uniform float centroid;
void main()
{
  float lowp = centroid;
  gl_Position = invariant * lowp;
}
";
    let m = parse(src, Stage::Vertex);
    assert_eq!(step_at(&m, 7), (7, 3));
    assert_prints(
        &m,
        &[
            "uniform vec4 invariant;",
            "float lowp = centroid;",
            "gl_Position = invariant * lowp;",
        ],
    );
    let src = "#version 300 es
in vec4 buffer;
void main()
{
  gl_Position = buffer;
}
";
    let m = parse(src, Stage::Vertex);
    assert_eq!(step_at(&m, 5), (5, 3));
    assert_prints(&m, &["in vec4 buffer;", "gl_Position = buffer;"]);
}

#[test]
fn preprocessor_strictness() {
    // `#elif` without expression after a taken group
    // (glsl-1.10/execution/glsl-pp-elif-no-expression-1).
    let src = "#version 110
void main()
{
#if 1
\tgl_FragColor = vec4(0.0, 1.0, 0.0, 1.0);
#elif
\tgl_FragColor = vec4(1.0, 0.0, 0.0, 1.0);
#endif
}
";
    let m = parse(src, Stage::Fragment);
    assert_eq!(m.steps().len(), 1);
    assert_eq!(step_at(&m, 5), (5, 2));
    // `#line N "file"` (arb_shading_language_include/compile/line_path.frag).
    let src = "#version 110
#extension GL_ARB_shading_language_include: enable
void main()
{
#line 0 \"/shader/./include/../pa th\"
gl_FragColor = vec4(1.0);
}
";
    let m = parse(src, Stage::Fragment);
    // `#line` does not renumber: the step is on physical line 6.
    assert_eq!(step_at(&m, 6), (6, 1));
    // A line continuation splitting a comment's `*/`
    // (arb_shading_language_420pack/compiler/line-continuation.frag).
    let src = "#version 130
#extension GL_ARB_shading_language_420pack: enable
/* Make sure it works in comments too.*\\
/
uniform vec4 f\\
oo;
void main() {
\tgl_FragColor = foo;
}
";
    let m = parse(src, Stage::Fragment);
    assert_eq!(step_at(&m, 8), (8, 2));
    assert_prints(&m, &["uniform vec4 foo;"]);
}

#[test]
fn errors_still_have_positions() {
    // A shader that fails with and without the workarounds reports the
    // first attempt's position.
    let e = ShaderModel::parse(
        "#version 400\nsubroutine vec4 S(vec4 c);\nsubroutine(S) vec4 f(vec4 c) { return c +; }\nvoid main() { }\n",
        Stage::Fragment,
    )
    .err()
    .unwrap();
    assert_eq!(e.line, 3, "{e}");
    // Nested `##` through a function-like macro invoked with different
    // arguments is the one shape left (glsl-lang-pp: "end of input in
    // macro"; see nested_concat_in_a_function_like_call).
    let e = ShaderModel::parse(
        "#version 130\nout vec4 c;\n#define STEP_ONE() c = vec4(1.0)\n#define STEP_TWO() c = vec4(2.0)\n#define GLUE(x,y) x ## _ ## y\n#define EVALUATE(x,y) GLUE(x,y)\n#define STEP(s) EVALUATE(STEP, s)()\nvoid main() {\n  STEP(ONE);\n  STEP(TWO);\n}\n",
        Stage::Fragment,
    )
    .err()
    .unwrap();
    assert_eq!(e.line, 9, "{e}");
    assert!(e.message.contains("macro"), "{e}");
    // Step kinds are unchanged around a workaround.
    let m = parse(SUBROUTINE, Stage::Fragment);
    assert!(
        m.steps()
            .iter()
            .all(|s| s.kind == StepKind::Return || s.kind == StepKind::Statement)
    );
}

// piglit spec/glsl-1.30/preprocessor/concat/nested_concat.shader_test:
// `STEP_ONE` is made by `##` and its `()` follows in STEP's replacement
// list (glsl-lang-pp alone: "end of input in macro STEP_ONE").
const NESTED_CONCAT: &str = "#version 130

out vec4 out_Color;

#define STEP_ONE() \\
\tout_Color = vec4(0.0,1.0,0.0,1.0)

#define GLUE(x,y) x ## _ ## y
#define NEW_GLUE STEP ## _ ## ONE
#define EVALUATE(x,y)  GLUE(x,y)
#define STEP(stepname) EVALUATE(STEP, stepname)()
#define PERFORM_RAYCASTING_STEP STEP(ONE)

void main() {
   PERFORM_RAYCASTING_STEP;
   out_Color.x = 0.0;
}
";

#[test]
fn nested_concat_rescans_with_following_tokens() {
    let m = parse(NESTED_CONCAT, Stage::Fragment);
    // Steps stay at the original line:column.
    assert_eq!(step_at(&m, 15), (15, 4));
    assert_eq!(step_at(&m, 16), (16, 4));
    assert_prints(
        &m,
        &["out_Color = vec4(0., 1., 0., 1.);", "out_Color.x = 0.;"],
    );
}

// piglit spec/glsl-1.10/execution/glsl-precision-110.shader_test: `lowp`
// is a variable name before GLSL 1.30 and can be probed as one.
const PRECISION_110: &str = "#version 110

void main()
{
\tfloat lowp = 1.0;

\tgl_FragColor = vec4(0.0, lowp, 0.0, 0.0);
}
";

#[test]
fn later_keyword_as_variable_is_probed() {
    let m = parse(PRECISION_110, Stage::Fragment);
    let id = m.steps_on_line(7)[0];
    let scope: Vec<&str> = m.step(id).scope.iter().map(|v| v.name.as_str()).collect();
    assert!(scope.contains(&"lowp"), "{scope:?}");
    assert_eq!(
        m.expression_type(id, "lowp * 2.0").unwrap().as_deref(),
        Some("float")
    );
    let mut pos = m.entry();
    pos.step = id;
    let out = m
        .instrument(&Probe {
            position: &pos,
            expr: Some("lowp + 1.0"),
            semantics: Semantics::Equivalent,
        })
        .unwrap_or_else(|e| panic!("{e}"))
        .source;
    assert!(out.contains("gldbg_store(lowp + 1.)"), "{out}");
    // In GLSL ES 1.00 `lowp` is a keyword: not an expression.
    let es = parse(
        "#version 100\nprecision mediump float;\nvoid main() { gl_FragColor = vec4(1.0); }\n",
        Stage::Fragment,
    );
    let id = es.steps_on_line(3)[0];
    let mut pos = es.entry();
    pos.step = id;
    assert!(
        es.instrument(&Probe {
            position: &pos,
            expr: Some("lowp"),
            semantics: Semantics::Equivalent,
        })
        .is_err()
    );
}

// piglit spec/arb_tessellation_shader/execution/compatibility: a
// tess-control shader has the legacy varyings only in gl_in[]/gl_out[].
#[test]
fn tess_control_scope_has_no_plain_legacy_varyings() {
    let tcs = "#version 400 compatibility
layout(vertices = 3) out;
void main() {
    gl_out[gl_InvocationID].gl_FogFragCoord = gl_in[gl_InvocationID].gl_FogFragCoord;
    gl_TessLevelOuter[0] = 1.0;
}
";
    let m = parse(tcs, Stage::TessControl);
    let scope: Vec<String> = m
        .step(m.steps_on_line(4)[0])
        .scope
        .iter()
        .map(|v| v.name.clone())
        .collect();
    for absent in [
        "gl_FogFragCoord",
        "gl_TexCoord",
        "gl_ClipDistance",
        "gl_FrontColor",
        "gl_Position",
    ] {
        assert!(!scope.iter().any(|n| n == absent), "{absent} in {scope:?}");
    }
    for present in [
        "gl_in",
        "gl_out",
        "gl_InvocationID",
        "gl_TessLevelOuter",
        "gl_PrimitiveID",
    ] {
        assert!(
            scope.iter().any(|n| n == present),
            "{present} missing in {scope:?}"
        );
    }
    // Tess-eval and geometry write them as plain outputs (unnamed
    // gl_PerVertex out block).
    let tes = "#version 400 compatibility
layout(triangles) in;
void main() {
    gl_FogFragCoord = gl_in[0].gl_FogFragCoord;
}
";
    let m = parse(tes, Stage::TessEval);
    let scope: Vec<String> = m
        .step(m.steps_on_line(4)[0])
        .scope
        .iter()
        .map(|v| v.name.clone())
        .collect();
    assert!(
        scope.iter().any(|n| n == "gl_FogFragCoord") && scope.iter().any(|n| n == "gl_TexCoord")
    );
}

// The same shape with the function-like macro invoked in the code (as in
// tests/apps/shade_common.h's SHADE_FS_UNPARSED).
const NESTED_CONCAT_CALL: &str = "#version 330 core
uniform float u_gain;
out vec4 frag;
#define STEP_ONE() frag = vec4(u_gain, 0.0, 0.0, 1.0)
#define GLUE(x, y) x ## _ ## y
#define EVALUATE(x, y) GLUE(x, y)
#define STEP(name) EVALUATE(STEP, name)()
void main() {
    STEP(ONE);
    frag.y = 1.0;
}
";

#[test]
fn nested_concat_in_a_function_like_call() {
    let m = parse(NESTED_CONCAT_CALL, Stage::Fragment);
    assert_eq!(step_at(&m, 9), (9, 5));
    assert_eq!(step_at(&m, 10), (10, 5));
    assert_prints(&m, &["frag = vec4(u_gain, 0., 0., 1.);"]);
    // Two different invocations cannot share one rewritten `#define`: the
    // parse error stays.
    let two = NESTED_CONCAT_CALL.replace("frag.y = 1.0;", "STEP(TWO);");
    assert!(ShaderModel::parse(&two, Stage::Fragment).is_err());
}
