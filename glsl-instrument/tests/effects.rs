//! Issue 12 points 7 and 10: `print` evaluates without side effects, and a
//! literal its type cannot hold is refused. Every form that builds a probe
//! (layout, value, end of main) refuses with a message naming what
//! it does; the type query refuses the literal too.

use glsl_instrument::{InstrumentError, Position, Probe, Semantics, ShaderModel, Stage};

const SHADER: &str = "#version 430 core
uniform float u_gain;
layout(binding = 0) uniform atomic_uint c;
layout(binding = 0, r32ui) uniform uimage2D img;
layout(std430, binding = 1) buffer Result { float result[]; };
out vec4 color;
float total;

float pure_twice(float x) { float y = x; y *= 2.0; return y; }
void split(float x, out float whole) { whole = floor(x); }
float bump(float x) { total += x; return total; }
float store(float x) { result[0] = x; return x; }
float count() { return float(atomicCounterIncrement(c)); }
float through(float x) { return bump(x) + 1.0; }
float uses_out(float x) { float w; split(x, w); return w; }
float paints(float x) { imageStore(img, ivec2(0), uvec4(1u)); return x; }
float elsewhere(float x);
float calls_elsewhere(float x) { return elsewhere(x) * 2.0; }

void main() {
    int i = 3;
    float x = u_gain * float(i);
    color = vec4(pure_twice(x), uses_out(x), 0.0, 1.0);
}
";

fn refusal(m: &ShaderModel, expr: &str) -> Option<String> {
    let step = m.steps().last().unwrap().id;
    let pos = Position { step, ..m.entry() };
    let probe = Probe {
        position: &pos,
        expr: Some(expr),
        semantics: Semantics::Equivalent,
    };
    // The type query stays a type question (also of an assignment); the
    // layout `print` asks first and every form that builds a probe refuse.
    let errors = [
        m.instrument(&probe).err(),
        m.instrument_end_of_main(&probe).err(),
        m.value_layout(step, expr).err(),
    ];
    let first = errors[0].clone().map(|e| match e {
        InstrumentError::BadExpression { message, .. } => message,
        e => panic!("{expr}: {e}"),
    });
    for (k, e) in errors.iter().enumerate() {
        assert_eq!(e.is_some(), first.is_some(), "{expr}: form {k}: {e:?}");
    }
    first
}

#[test]
fn side_effects_are_refused() {
    let m = ShaderModel::parse(SHADER, Stage::Fragment).unwrap();
    let cases: &[(&str, &str)] = &[
        ("i = -2000000000", "an assignment to `i`"),
        ("u_gain = 5.0", "an assignment to `u_gain`"),
        ("result[0] = 12345.0", "an assignment to `result[0]`"),
        (
            "result[100000000] = 1.0",
            "an assignment to `result[100000000]`",
        ),
        ("x += 1.0", "an assignment to `x`"),
        ("x * (i <<= 2)", "an assignment to `i`"),
        ("i++", "`++` on `i`"),
        ("--i + 1", "`--` on `i`"),
        ("float(i--)", "`--` on `i`"),
        ("atomicCounterIncrement(c)", "`atomicCounterIncrement`"),
        ("atomicCounterDecrement(c)", "`atomicCounterDecrement`"),
        ("imageAtomicAdd(img, ivec2(0), 1u)", "`imageAtomicAdd`"),
        ("imageStore(img, ivec2(0), uvec4(1u))", "`imageStore`"),
        ("memoryBarrier()", "`memoryBarrier`"),
        ("barrier()", "`barrier`"),
        ("modf(x, x)", "`modf` (it writes its `out` argument)"),
        ("split(x, x)", "`split`, which has `out`/`inout` parameters"),
        ("bump(x)", "`bump`, which writes `total`"),
        ("store(x)", "`store`, which writes `result`"),
        ("count()", "`count`, which calls `atomicCounterIncrement`"),
        ("paints(x)", "`paints`, which calls `imageStore`"),
        (
            "through(x) * 2.0",
            "`through`, which calls `bump`, which writes `total`",
        ),
        ("vec2(x, bump(x)).y", "`bump`, which writes `total`"),
        (
            "elsewhere(x)",
            "`elsewhere`, which is defined in another shader object",
        ),
        (
            "calls_elsewhere(x)",
            "`calls_elsewhere`, which calls `elsewhere`, which is defined in another",
        ),
    ];
    for (expr, what) in cases {
        let message = refusal(&m, expr).unwrap_or_else(|| panic!("{expr}: accepted"));
        assert!(message.contains(what), "{expr}: {message}");
        assert!(
            message.contains("without side effects"),
            "{expr}: {message}"
        );
    }
}

#[test]
fn pure_expressions_still_work() {
    let m = ShaderModel::parse(SHADER, Stage::Fragment).unwrap();
    // Locals written inside a function, an `out` argument that is a local,
    // reading an atomic counter or an image: no effect on the app.
    for expr in [
        "pure_twice(x)",
        "uses_out(x) + 1.0",
        "float(atomicCounter(c))",
        "x == 1.0 ? u_gain : -u_gain",
        "result[0] + float(i)",
        "float(imageLoad(img, ivec2(0)).x)",
        "3.4e38",
    ] {
        assert_eq!(refusal(&m, expr), None, "{expr}");
    }
}

#[test]
fn out_of_range_literals_are_refused() {
    let m = ShaderModel::parse(SHADER, Stage::Fragment).unwrap();
    for (expr, what) in [
        ("1e39", "float literal out of range"),
        ("x * -1.0e39", "float literal out of range"),
        ("double(1e400lf)", "double literal out of range"),
    ] {
        let message = refusal(&m, expr).unwrap_or_else(|| panic!("{expr}: accepted"));
        assert!(message.contains(what), "{expr}: {message}");
        let step = m.steps().last().unwrap().id;
        let typed = m.expression_type(step, expr).map_err(|e| e.to_string());
        assert!(
            matches!(&typed, Err(e) if e.contains(what)),
            "{expr}: {typed:?}"
        );
    }
    // Integers beyond 32 bits do not parse (the type query answers
    // "unknown", the probe reports the parse error).
    let step = m.steps().last().unwrap().id;
    let pos = Position { step, ..m.entry() };
    for expr in ["4294967296", "99999999999u", "x + float(4294967296)"] {
        let probe = Probe {
            position: &pos,
            expr: Some(expr),
            semantics: Semantics::Equivalent,
        };
        let err = m.instrument(&probe).err().map(|e| e.to_string());
        eprintln!("{expr}: {err:?}");
        assert!(matches!(err, Some(e) if e.contains(expr)), "{expr}");
    }
}
