//! The probe-expression type checker: each error kind with its exact
//! message and column, valid expressions that must not be rejected (also
//! every step expression of a few piglit shaders), built-ins in scope.

use glsl_instrument::{
    InstrumentError, Position, Probe, Semantics, ShaderModel, Stage, StepId, StepKind,
};

const SHADER: &str = "#version 330 core
struct Light { vec3 dir; float power; };
uniform Light light;
uniform sampler2D tex;
uniform mat3 m3;
uniform float w[4];
in vec2 uv;
out vec4 color;
float shade(float x, int n) { return x * float(n); }
vec3 shade(vec3 x, int n) { return x; }
void nothing() { }
void main() {
    vec2 a = uv * 2.0;
    vec3 b = vec3(a, 1.0);
    float c = dot(b, light.dir);
    int k = 3;
    color = vec4(b, c) + texture(tex, uv);
    if (c > 0.5) {
        float inner = c;
        color.x = inner;
    }
    float later = 1.0;
    color.y = later;
}
";

fn model() -> ShaderModel {
    ShaderModel::parse(SHADER, Stage::Fragment).unwrap()
}

fn step_on(m: &ShaderModel, line: u32) -> StepId {
    m.steps_on_line(line)[0]
}

/// The type of `expr` at the step on line 17 (a, b, c, k in scope).
fn ty(m: &ShaderModel, expr: &str) -> Option<String> {
    match m.expression_type(step_on(m, 17), expr) {
        Ok(t) => t,
        Err(e) => panic!("`{expr}` rejected: {e}"),
    }
}

/// The message of the error for `expr` at line 17.
fn error(m: &ShaderModel, expr: &str) -> String {
    match m.expression_type(step_on(m, 17), expr) {
        Err(InstrumentError::BadExpression { expr: e, message }) => {
            assert_eq!(e, expr);
            message
        }
        other => panic!("`{expr}`: expected an error, got {other:?}"),
    }
}

#[test]
fn every_error_kind_with_message_and_column() {
    let m = model();
    let cases: &[(&str, &str)] = &[
        // operators
        ("a + b", "no operator `+` for vec2 and vec3 at column 3"),
        ("m3 * a", "no operator `*` for mat3 and vec2 at column 4"),
        ("k % 2.0", "no operator `%` for int and float at column 3"),
        (
            "b < b",
            "operator `<` compares scalars, not vec3 and vec3 (use lessThan, greaterThan, ...) at column 3",
        ),
        (
            "true && c",
            "operator `&&` needs bool operands, not bool and float at column 6",
        ),
        ("!c", "no operator `!` for float at column 1"),
        (
            "light == 1.0",
            "no operator `==` for Light and float at column 7",
        ),
        ("a = b", "cannot assign vec3 to vec2 at column 3"),
        // names
        ("zz * 2.0", "undeclared identifier `zz` at column 1"),
        (
            "later + 1.0",
            "`later` is not in scope at line 17 (declared at line 22) at column 1",
        ),
        (
            "c + inner",
            "`inner` is not in scope at line 17 (declared at line 19) at column 5",
        ),
        (
            "dot + 1.0",
            "`dot` is a function, not a variable at column 1",
        ),
        ("k(1)", "`k` is a variable, not a function at column 1"),
        // fields and swizzles
        ("light.color", "Light has no field `color` at column 7"),
        ("a.z", "vec2 has no component `z` at column 3"),
        ("b.xq", "swizzle `.xq` mixes component sets at column 3"),
        (
            "b.xyzxy",
            "swizzle `.xyzxy` has more than 4 components at column 3",
        ),
        ("b.foo", "vec3 has no field `foo` at column 3"),
        ("m3.x", "mat3 has no field `x` at column 4"),
        // indexing
        ("a[2]", "index 2 is out of range for vec2 at column 3"),
        ("w[4]", "index 4 is out of range for float[4] at column 3"),
        ("a[-1]", "index -1 is out of range for vec2 at column 3"),
        ("w[-2]", "index -2 is out of range for float[4] at column 3"),
        (
            "gl_FragCoord[-1]",
            "index -1 is out of range for vec4 at column 14",
        ),
        (
            "a[c]",
            "an index must be an int or uint, not float at column 3",
        ),
        ("c[0]", "float cannot be indexed at column 3"),
        // calls and constructors
        (
            "dot(a, b)",
            "no overload of `dot` takes (vec2, vec3) at column 1",
        ),
        (
            "shade(a, k)",
            "no overload of `shade` takes (vec2, int) at column 1",
        ),
        (
            "vec3(a)",
            "the vec3 constructor needs 3 components, got 2 at column 1",
        ),
        (
            "vec2(b, c)",
            "too many arguments for the vec2 constructor at column 1",
        ),
        (
            "mat2(a, c)",
            "the mat2 constructor needs 4 components, got 3 at column 1",
        ),
        (
            "vec4(light)",
            "the vec4 constructor cannot take Light at column 1",
        ),
        (
            "Light(b)",
            "the Light constructor needs 2 arguments, got 1 at column 1",
        ),
        (
            "Light(b, a)",
            "argument 2 of the Light constructor: expected float, got vec2 at column 1",
        ),
        // ?:
        (
            "c ? a : a",
            "the condition of `?:` must be bool, not float at column 1",
        ),
        (
            "k > 1 ? a : b",
            "the branches of `?:` have different types: vec2 and vec3 at column 13",
        ),
        // void
        (
            "nothing()",
            "`nothing()` has no value (it returns void) at column 1",
        ),
        (
            "1.0 + nothing()",
            "`nothing()` has no value (it returns void) at column 7",
        ),
    ];
    for (expr, want) in cases {
        assert_eq!(&error(&m, expr), want, "{expr}");
    }
    // Columns count from the expression as typed (leading blanks too).
    assert_eq!(
        error(&m, "  a +  b"),
        "no operator `+` for vec2 and vec3 at column 5"
    );
}

#[test]
fn instrument_reports_the_type_error() {
    let m = model();
    let pos = Position {
        step: step_on(&m, 17),
        calls: vec![],
        iterations: vec![],
    };
    let e = m
        .instrument(&Probe {
            position: &pos,
            expr: Some("vec2(1.0) + vec3(1.0)"),
            semantics: Semantics::Equivalent,
        })
        .unwrap_err();
    match &e {
        InstrumentError::BadExpression { expr, message } => {
            assert_eq!(expr, "vec2(1.0) + vec3(1.0)");
            assert_eq!(message, "no operator `+` for vec2 and vec3 at column 11");
        }
        other => panic!("{other:?}"),
    }
    // Valid and unknown expressions go through to the instrumenter.
    for expr in ["a * c", "texture(tex, uv).rg", "someExtensionFunction(a)"] {
        m.instrument(&Probe {
            position: &pos,
            expr: Some(expr),
            semantics: Semantics::Equivalent,
        })
        .unwrap_or_else(|e| panic!("{expr}: {e}"));
    }
}

#[test]
fn valid_expressions_and_their_types() {
    let m = model();
    let cases: &[(&str, &str)] = &[
        ("a", "vec2"),
        ("a + 1.0", "vec2"),
        ("2.0 * a", "vec2"),
        ("b * m3", "vec3"),
        ("m3 * b", "vec3"),
        ("m3 * m3", "mat3"),
        ("a.yx", "vec2"),
        ("b.stp", "vec3"),
        ("c.x", "float"),
        ("light", "Light"),
        ("light.dir.xy", "vec2"),
        ("light.power * c", "float"),
        ("texture(tex, uv)", "vec4"),
        ("texture(tex, uv).r", "float"),
        ("textureSize(tex, 0)", "ivec2"),
        ("shade(c, k)", "float"),
        ("shade(b, k)", "vec3"),
        ("shade(1, 2)", "float"),
        ("float(k) / 2.0", "float"),
        ("k * 2", "int"),
        ("k << 1", "int"),
        ("-k", "int"),
        ("c > 0.5 && k < 4", "bool"),
        ("a == a", "bool"),
        ("lessThan(a, vec2(1.0))", "bvec2"),
        ("any(lessThan(a, vec2(1.0)))", "bool"),
        ("mix(b, vec3(0.0), 0.5)", "vec3"),
        ("clamp(c, 0.0, 1.0)", "float"),
        ("clamp(a, 0.0, 1.0)", "vec2"),
        ("max(k, 2)", "int"),
        ("transpose(mat2x3(1.0))", "mat3x2"),
        ("determinant(m3)", "float"),
        ("normalize(b)", "vec3"),
        ("cross(b, b)", "vec3"),
        ("length(a)", "float"),
        ("vec4(b, c)", "vec4"),
        ("vec4(a, a)", "vec4"),
        ("vec3(c)", "vec3"),
        ("vec2(b)", "vec2"),
        ("mat3(1.0)[0]", "vec3"),
        ("mat2(a, a)", "mat2"),
        ("m3[1][2]", "float"),
        ("w", "float[4]"),
        ("w[1]", "float"),
        ("w.length()", "int"),
        ("Light(b, c)", "Light"),
        ("Light(b, c).dir", "vec3"),
        ("k > 1 ? c : 1.0", "float"),
        ("k > 1 ? a : vec2(k)", "vec2"),
        ("gl_FragCoord.xy", "vec2"),
        ("gl_FrontFacing", "bool"),
        ("gl_DepthRange.far", "float"),
        ("ivec2(gl_FragCoord.xy) % 2", "ivec2"),
        ("uvec2(1u) >> 1", "uvec2"),
        ("c += 1.0", "float"),
        ("k++", "int"),
        ("(a).x", "float"),
    ];
    for (expr, want) in cases {
        assert_eq!(ty(&m, expr).as_deref(), Some(*want), "{expr}");
    }
    // Unknown to the checker: no type, no error (the driver decides).
    for expr in [
        "someExtensionFunction(a)",
        "gl_SomeFutureBuiltin",
        "a.length()",
    ] {
        let _ = ty(&m, expr);
    }
    assert_eq!(ty(&m, "someExtensionFunction(a)"), None);
    assert_eq!(ty(&m, "gl_SomeFutureBuiltin + 1.0"), None);
    // A variable at its own declaration step does not exist yet (the
    // value is taken before the step).
    assert_eq!(
        m.expression_type(step_on(&m, 13), "a * 2.0"),
        Err(InstrumentError::BadExpression {
            expr: "a * 2.0".into(),
            message: "`a` is not in scope at line 13 (declared at line 13) at column 1".into()
        })
    );
    assert_eq!(
        m.expression_type(step_on(&m, 14), "a * 2.0"),
        Ok(Some("vec2".into()))
    );
    // A parse error is the instrumenter's to report.
    assert_eq!(m.expression_type(step_on(&m, 17), "a + * b"), Ok(None));
}

#[test]
fn builtins_by_stage_are_in_scope_and_typed() {
    let scope = |src: &str, stage: Stage| {
        let m = ShaderModel::parse(src, stage).unwrap();
        let s = m.step(m.entry().step).clone();
        (m, s)
    };
    let has = |s: &glsl_instrument::Step, name: &str, ty: &str| {
        s.scope.iter().any(|v| v.name == name && v.ty == ty)
    };
    let (m, s) = scope(
        "#version 330\nin vec4 p;\nvoid main() {\n  gl_Position = p;\n}\n",
        Stage::Vertex,
    );
    assert!(has(&s, "gl_VertexID", "int") && has(&s, "gl_InstanceID", "int"));
    assert!(has(&s, "gl_Position", "vec4") && has(&s, "gl_PointSize", "float"));
    assert!(
        !s.scope
            .iter()
            .any(|v| v.name == "gl_FragCoord" || v.name == "gl_Vertex")
    );
    // User variables come last: the innermost is `scope.last()`.
    assert_eq!(s.scope.last().unwrap().name, "p");
    assert_eq!(
        m.expression_type(s.id, "gl_VertexID + gl_InstanceID"),
        Ok(Some("int".into()))
    );
    let (_, s) = scope(
        "#version 110\nvoid main() {\n  gl_Position = gl_Vertex;\n}\n",
        Stage::Vertex,
    );
    assert!(has(&s, "gl_Vertex", "vec4") && has(&s, "gl_MultiTexCoord0", "vec4"));
    assert!(!s.scope.iter().any(|v| v.name == "gl_VertexID"));
    let (m, s) = scope(
        "#version 150\nlayout(triangles) in;\nlayout(triangle_strip, max_vertices = 3) out;\nvoid main() {\n  gl_Position = gl_in[0].gl_Position;\n  EmitVertex();\n}\n",
        Stage::Geometry,
    );
    assert!(has(&s, "gl_in", "gl_PerVertex[]") && has(&s, "gl_PrimitiveIDIn", "int"));
    assert_eq!(
        m.expression_type(s.id, "gl_in[0].gl_Position.xy"),
        Ok(Some("vec2".into()))
    );
    let (_, s) = scope(
        "#version 400\nlayout(vertices = 3) out;\nvoid main() {\n  gl_TessLevelOuter[0] = 1.0;\n}\n",
        Stage::TessControl,
    );
    assert!(has(&s, "gl_InvocationID", "int") && has(&s, "gl_out", "gl_PerVertex[]"));
    assert!(has(&s, "gl_TessLevelOuter", "float[4]"));
    let (_, s) = scope(
        "#version 400\nlayout(triangles) in;\nvoid main() {\n  gl_Position = vec4(gl_TessCoord, 1.0);\n}\n",
        Stage::TessEval,
    );
    assert!(has(&s, "gl_TessCoord", "vec3") && has(&s, "gl_PrimitiveID", "int"));
    let (m, s) = scope(
        "#version 430\nlayout(local_size_x = 4) in;\nlayout(std430, binding = 0) buffer B { uint v[]; };\nvoid main() {\n  v[gl_GlobalInvocationID.x] = gl_LocalInvocationIndex;\n}\n",
        Stage::Compute,
    );
    for n in [
        "gl_GlobalInvocationID",
        "gl_LocalInvocationID",
        "gl_WorkGroupID",
        "gl_NumWorkGroups",
        "gl_WorkGroupSize",
    ] {
        assert!(has(&s, n, "uvec3"), "{n}");
    }
    assert!(has(&s, "gl_LocalInvocationIndex", "uint") && has(&s, "v", "uint[]"));
    assert_eq!(
        m.expression_type(s.id, "v[gl_GlobalInvocationID.x] + 1u"),
        Ok(Some("uint".into()))
    );
    let (_, s) = scope(
        "#version 300 es\nprecision mediump float;\nout vec4 c;\nvoid main() {\n  c = gl_FragCoord;\n}\n",
        Stage::Fragment,
    );
    assert!(has(&s, "gl_FragCoord", "vec4") && has(&s, "gl_FragDepth", "float"));
    assert!(!s.scope.iter().any(|v| v.name == "gl_FragColor"));
}

/// The expression of a step as its text shows it (statement right-hand
/// sides, conditions, increments, return values).
fn step_expr(kind: StepKind, text: &str) -> Option<String> {
    if text.ends_with("...") {
        return None;
    }
    let t = text.trim().trim_end_matches(';').trim();
    match kind {
        StepKind::IfCondition => {
            let r = t.strip_prefix("if")?.trim();
            Some(r.strip_prefix('(')?.strip_suffix(')')?.to_string())
        }
        StepKind::LoopCondition | StepKind::LoopIncrement => Some(t.to_string()),
        StepKind::Return => t
            .strip_prefix("return")
            .map(|r| r.trim().to_string())
            .filter(|r| !r.is_empty()),
        StepKind::Statement | StepKind::LoopInit => {
            let b = t.as_bytes();
            let mut depth = 0;
            for (i, c) in t.char_indices() {
                match c {
                    '(' | '[' => depth += 1,
                    ')' | ']' => depth -= 1,
                    _ => {}
                }
                if c == '='
                    && depth == 0
                    && i > 0
                    && b.get(i + 1) != Some(&b'=')
                    && !b"=!<>+-*/%&|^".contains(&b[i - 1])
                {
                    let lhs = &t[..i];
                    // `T x = E` declares: E; `x = E` assigns: the whole.
                    if lhs.trim().contains(' ') && !lhs.contains('.') && !lhs.contains('[') {
                        return Some(t[i + 1..].trim().to_string());
                    }
                    return Some(t.to_string());
                }
            }
            (!t.contains(' ') || t.contains('(')).then(|| t.to_string())
        }
        _ => None,
    }
}

/// Every step expression of `src` type-checks at its step without error;
/// returns how many got a type.
fn self_check(src: &str, stage: Stage) -> (usize, usize) {
    let m = ShaderModel::parse(src, stage).unwrap();
    let (mut checked, mut typed) = (0, 0);
    for s in m.steps() {
        let Some(e) = step_expr(s.kind, &s.text) else {
            continue;
        };
        match m.expression_type(s.id, &e) {
            Ok(t) => {
                checked += 1;
                typed += usize::from(t.is_some());
            }
            // A call statement of a void function has no value.
            Err(err) if err.to_string().contains("returns void") => {}
            Err(err) => panic!("false error at line {} `{}`: {err}", s.line, s.text),
        }
    }
    (checked, typed)
}

#[test]
fn piglit_step_expressions_have_no_false_errors() {
    // piglit spec/glsl-1.10/execution/fs-sampler-numbering-2 style: loops,
    // structs, arrays, matrices, built-ins, user overloads (condensed from
    // several piglit shaders).
    let shaders: &[(&str, Stage)] = &[
        (
            // glsl-1.20 execution/variable-indexing/vs-varying-array-mat3-index-wr
            "#version 120
uniform int index;
uniform mat3 m[4];
varying mat3 dst_matrix[4];
void main()
{
    gl_Position = gl_ModelViewProjectionMatrix * gl_Vertex;
    for (int i = 0; i < 4; i++)
        dst_matrix[i] = mat3(0.0);
    dst_matrix[index] = m[index];
    dst_matrix[index][1] = m[index][2] * 2.0;
    gl_FrontColor = vec4(dst_matrix[index][0], 1.0);
    gl_TexCoord[0] = gl_MultiTexCoord0 * gl_TextureMatrix[0];
}
",
            Stage::Vertex,
        ),
        (
            // glsl-1.30 built-in-functions / bitwise and integer forms
            "#version 130
uniform ivec4 a;
uniform uvec2 u;
out vec4 color;
int f(int x) { return x * 2; }
float f(float x) { return x / 2.0; }
void main()
{
    ivec4 b = a & ivec4(0xff);
    ivec4 c = (b << 2) | (a >> 1) ^ ~b;
    uvec2 v = u % 3u + uvec2(b.xy);
    int s = f(b.x) + int(f(1.5));
    bvec4 eq = equal(b, c);
    if (all(eq) || any(not(eq)))
        color = vec4(b) / 255.0;
    else
        color = vec4(v, s, 1.0);
    color.rg = vec2(clamp(abs(b.zw), ivec2(0), ivec2(10)));
    color.b = mix(color.r, color.g, step(0.5, color.a));
    switch (s) {
    case 1: color.a = float(trunc(1.5)); break;
    default: color.a = min(roundEven(color.r), 1.0);
    }
}
",
            Stage::Fragment,
        ),
        (
            // glsl-1.50 geometry: gl_in, EmitVertex, interface blocks
            "#version 150
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
in VS { vec4 color; float w[2]; } vs[];
out vec4 gcolor;
struct P { vec3 pos; float k[3]; };
void main()
{
    P p = P(vec3(0.0), float[3](1.0, 2.0, 3.0));
    for (int i = 0; i < 3; i++) {
        gl_Position = gl_in[i].gl_Position + vec4(p.pos, p.k[i]);
        gcolor = vs[i].color * vs[i].w[1];
        gl_PrimitiveID = gl_PrimitiveIDIn;
        EmitVertex();
    }
    EndPrimitive();
}
",
            Stage::Geometry,
        ),
        (
            // arb_compute_shader / 4.30 SSBOs, atomics, images
            "#version 430
layout(local_size_x = 8, local_size_y = 8) in;
layout(std430, binding = 0) buffer Out { uint counts[]; vec4 data[]; } o;
layout(rgba8, binding = 1) uniform image2D img;
shared uint total;
uint sq(uint x) { return x * x; }
void main()
{
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    atomicAdd(total, sq(idx));
    barrier();
    vec4 t = imageLoad(img, ivec2(gl_GlobalInvocationID.xy));
    o.counts[idx] = total + uint(t.x * 255.0);
    imageStore(img, ivec2(gl_LocalInvocationID.xy), t.bgra);
    uint m = max(idx, 3u) + uint(gl_LocalInvocationIndex);
    o.data[idx] = vec4(float(m), packUnorm4x8(t), unpackHalf2x16(m));
}
",
            Stage::Compute,
        ),
        (
            // ES 1.00 / 3.00 fragment with precision, swizzles, matrices
            "#version 300 es
precision highp float;
uniform mat2x3 m;
uniform sampler2D s;
in vec2 tc;
out vec4 o;
void main()
{
    vec3 v = m * tc;
    mat3x2 t = transpose(m);
    vec2 w = t * v + tc.yx;
    float d = distance(w, tc) + dot(v.zyx, vec3(1.0)) + texture(s, tc).a;
    o = d > 1.0 ? vec4(v, 1.0) : vec4(w, w);
    o.xz *= vec2(2.0);
    o.w = fract(gl_FragCoord.x) + float(gl_FrontFacing);
}
",
            Stage::Fragment,
        ),
    ];
    let (mut checked, mut typed) = (0, 0);
    for (src, stage) in shaders {
        let (c, t) = self_check(src, *stage);
        checked += c;
        typed += t;
    }
    assert!(checked >= 40, "{checked}");
    // Nearly every expression of these shaders gets a type.
    assert!(typed * 10 >= checked * 9, "{typed} of {checked}");
}

#[test]
fn textures_and_images() {
    let src = "#version 430
uniform sampler2DShadow sh;
uniform isampler3D is;
uniform usampler2DArray ua;
uniform samplerCube cube;
layout(rgba32f) uniform image2D img;
layout(r32ui) uniform uimage2D uimg;
layout(r32i) uniform iimageBuffer ib;
out vec4 o;
void main() {
  o = vec4(1.0);
}
";
    let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
    let at = m.entry().step;
    let cases: &[(&str, Option<&str>)] = &[
        ("texture(sh, vec3(0.5))", Some("float")),
        ("textureGather(sh, vec2(0.5), 0.5)", Some("vec4")),
        ("texelFetch(is, ivec3(0), 0)", Some("ivec4")),
        ("texture(ua, vec3(0.5))", Some("uvec4")),
        ("textureSize(ua, 0)", Some("ivec3")),
        ("textureSize(cube, 0)", Some("ivec2")),
        ("textureQueryLod(cube, vec3(1.0))", Some("vec2")),
        ("textureCube(cube, vec3(1.0))", Some("vec4")),
        ("imageLoad(img, ivec2(0))", Some("vec4")),
        ("imageLoad(uimg, ivec2(0)).x", Some("uint")),
        ("imageSize(img)", Some("ivec2")),
        ("imageSize(ib)", Some("int")),
        ("imageAtomicAdd(uimg, ivec2(0), 1u)", Some("uint")),
        ("imageAtomicAdd(ib, 0, 1)", Some("int")),
        // An extension's form the checker does not model: no type, no error.
        ("textureSize2D(cube, 0)", None),
    ];
    for (expr, want) in cases {
        assert_eq!(
            m.expression_type(at, expr),
            Ok(want.map(String::from)),
            "{expr}"
        );
    }
    assert_eq!(
        m.expression_type(at, "imageStore(img, ivec2(0), vec4(1.0))"),
        Err(InstrumentError::BadExpression {
            expr: "imageStore(img, ivec2(0), vec4(1.0))".into(),
            message:
                "`imageStore(img, ivec2(0), vec4(1.0))` has no value (it returns void) at column 1"
                    .into()
        })
    );
}
