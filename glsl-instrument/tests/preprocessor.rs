//! Names resolve as the driver's preprocessor resolves them, in every
//! branch combination: declarations, outputs and macros used in probe
//! expressions around `#if`/`#elif`/`#else`/`#ifdef`/`#ifndef`/`#undef`;
//! lines numbered as the driver numbers them after `#line` and `#include`.

use glsl_instrument::{Includes, Position, Probe, Semantics, ShaderModel, Stage, StepId};

/// The variable the debug shader stores for `expr` at `step`.
fn stored(m: &ShaderModel, step: StepId, expr: &str) -> String {
    let pos = Position {
        step,
        calls: Vec::new(),
        iterations: Vec::new(),
    };
    let out = m
        .instrument(&Probe {
            position: &pos,
            expr: Some(expr),
            semantics: Semantics::Equivalent,
        })
        .unwrap_or_else(|e| panic!("{expr}: {e}"));
    let at = out
        .source
        .find("gldbg_store(")
        .and_then(|_| out.source.rfind("= gldbg_store("))
        .expect("a store");
    let rest = &out.source[at + "= gldbg_store(".len()..];
    rest[..rest.find(");").unwrap()].to_string()
}

fn last_step(m: &ShaderModel) -> StepId {
    m.steps().last().unwrap().id
}

/// `SEL` picks one of four branches; each defines `OUT` as another output
/// and `K` as another constant. Only the active branch's output exists.
fn selector_shader(head: &str) -> String {
    format!(
        "#version 330 core\n\
         {head}\n\
         #if SEL == 0\n\
         #define OUT out_a\n\
         #define K 1.0\n\
         layout(location = 0) out vec4 out_a;\n\
         #elif SEL == 1 || defined(FORCE_B)\n\
         #define OUT out_b\n\
         #define K 2.0\n\
         layout(location = 0) out vec4 out_b;\n\
         #elif SEL > 1 && SEL * 2 < 6\n\
         #define OUT out_c\n\
         #define K (1.0 + 2.0)\n\
         layout(location = 0) out vec4 out_c;\n\
         #else\n\
         #define OUT gl_FragColor\n\
         #define K 4.0\n\
         #endif\n\
         void main() {{\n\
         \x20   vec4 c = vec4(K);\n\
         \x20   OUT = c;\n\
         }}\n"
    )
}

#[test]
fn outputs_and_macros_resolve_through_the_active_branch_only() {
    let cases = [
        ("#define SEL 0", "out_a", "1."),
        ("#define SEL 1", "out_b", "2."),
        ("#define SEL 7\n#define FORCE_B", "out_b", "2."),
        ("#define SEL 2", "out_c", "(1. + 2.)"),
        ("#define SEL 9", "gl_FragColor", "4."),
        // Undefined in `#if`: 0.
        ("", "out_a", "1."),
        ("#define SEL 1\n#undef SEL", "out_a", "1."),
    ];
    for (head, out, k) in cases {
        let src = selector_shader(head);
        let m = ShaderModel::parse(&src, Stage::Fragment).unwrap_or_else(|e| panic!("{head}: {e}"));
        let write = last_step(&m);
        assert_eq!(m.step(write).text, format!("{out} = c;"), "{head}");
        let declared: Vec<&str> = m
            .step(write)
            .scope
            .iter()
            .map(|v| v.name.as_str())
            .collect();
        for other in ["out_a", "out_b", "out_c"] {
            assert_eq!(
                declared.contains(&other),
                other == out,
                "{head}: {declared:?}"
            );
        }
        // The debug shader writes `gl_FragColor` through an output of its own.
        let var = if out == "gl_FragColor" {
            "gldbg_FragColor"
        } else {
            out
        };
        assert_eq!(stored(&m, write, "OUT"), var, "{head}");
        assert_eq!(
            stored(&m, write, "K * OUT"),
            format!("{k} * {var}"),
            "{head}"
        );
    }
}

/// RetroArch's shaders pick their output by `__VERSION__`; ES shaders by
/// `GL_ES`: the probe must see the branch the code saw.
#[test]
fn builtin_macros_decide_branches_for_probes_too() {
    let src = "#version 130\n\
        #if __VERSION__ >= 130\n\
        #define COMPAT_IN in\n\
        #define FragColor fragColor\n\
        out vec4 fragColor;\n\
        #else\n\
        #define COMPAT_IN varying\n\
        #define FragColor gl_FragColor\n\
        #endif\n\
        COMPAT_IN vec2 uv;\n\
        void main() {\n\
        \x20   FragColor = vec4(uv, 0.0, 1.0);\n\
        \x20   FragColor.x += 1.0;\n\
        }\n";
    let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
    assert_eq!(stored(&m, last_step(&m), "FragColor"), "fragColor");
    let es = "#version 300 es\n\
        precision highp float;\n\
        #ifndef GL_ES\n\
        #define COLOR gl_FragColor\n\
        #else\n\
        #define COLOR es_color\n\
        layout(location = 0) out vec4 es_color;\n\
        #endif\n\
        void main() {\n\
        \x20   COLOR = vec4(1.0);\n\
        \x20   COLOR.y = 0.5;\n\
        }\n";
    let m = ShaderModel::parse(es, Stage::Fragment).unwrap();
    assert_eq!(stored(&m, last_step(&m), "COLOR"), "es_color");
}

/// A macro redefined between two steps: each probe sees its own.
#[test]
fn probes_see_the_macros_in_effect_at_their_step() {
    let src = "#version 330 core\n\
        out vec4 a;\n\
        out vec4 b;\n\
        #define TARGET a\n\
        void main() {\n\
        \x20   a = vec4(1.0);\n\
        #undef TARGET\n\
        #define TARGET b\n\
        \x20   b = vec4(2.0);\n\
        #undef TARGET\n\
        \x20   a.x = 3.0;\n\
        }\n";
    let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
    let on = |line| m.steps_on_line(line)[0];
    assert_eq!(stored(&m, on(6), "TARGET"), "a");
    assert_eq!(stored(&m, on(9), "TARGET"), "b");
    // Undefined at line 11: a plain (undeclared) name, as the driver sees it.
    let pos = Position {
        step: on(11),
        calls: Vec::new(),
        iterations: Vec::new(),
    };
    let Err(e) = m.instrument(&Probe {
        position: &pos,
        expr: Some("TARGET"),
        semantics: Semantics::Equivalent,
    }) else {
        panic!("TARGET is undefined there");
    };
    assert!(e.to_string().contains("TARGET"), "{e}");
}

#[test]
fn line_directives_give_the_drivers_numbers() {
    // An engine's header, then the user's file from line 1 again.
    let src = "#version 330 core\n\
        uniform float u_time;\n\
        #line 1\n\
        out vec4 color;\n\
        void main() {\n\
        \x20   color = vec4(u_time);\n\
        }\n";
    let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
    let s = &m.steps()[0];
    assert_eq!((s.line, m.driver_line(s.line)), (6, 3));
    assert_eq!(m.lines_numbered(3), [3, 6]);
    assert_eq!(m.lines_numbered(2), [2, 5]);
    // Before GLSL 3.30 `#line N` names the line after the next.
    let old = src.replace("330 core", "150");
    let m = ShaderModel::parse(&old, Stage::Fragment).unwrap();
    assert_eq!(m.driver_line(6), 4);
    // A parse error says the driver's line.
    let bad = src.replace("vec4(u_time)", "vec4(u_time) +");
    let e = ShaderModel::parse(&bad, Stage::Fragment).err().unwrap();
    assert_eq!(e.line, 3, "{e}");
}

#[test]
fn includes_are_spliced_as_the_driver_does() {
    let mut inc = Includes::default();
    inc.strings.insert(
        "/shaders/common.glsl".into(),
        "#ifndef COMMON\n#define COMMON\n#define OUT result\nfloat twice(float x) {\n    return 2.0 * x;\n}\n#endif\n"
            .into(),
    );
    inc.search_paths.push("/shaders".into());
    let src = "#version 330 core\n\
        #extension GL_ARB_shading_language_include : require\n\
        #include \"common.glsl\"\n\
        #include </shaders/common.glsl>\n\
        layout(location = 0) out vec4 OUT;\n\
        void main() {\n\
        \x20   float t = twice(0.25);\n\
        \x20   OUT = vec4(t);\n\
        }\n";
    let m = ShaderModel::parse_with(src, Stage::Fragment, &inc, glsl_instrument::Api::Gl).unwrap();
    // The included function's step, and main's, with Mesa's numbers.
    let twice = m.steps().iter().find(|s| s.function == "twice").unwrap();
    assert_eq!(
        m.source()
            .lines()
            .nth(twice.line as usize - 1)
            .unwrap()
            .trim(),
        "return 2.0 * x;"
    );
    assert_eq!(m.driver_line(twice.line), 8);
    let write = last_step(&m);
    assert_eq!(m.step(write).text, "result = vec4(t);");
    // `#include` at 3, its 7 lines 4-10, the next line 12; the second
    // `#include` (12) again 13-19 (inactive under its guard), then 21:
    // `OUT = ...` is line 24 (Mesa's log says 0:24 for an error there).
    assert_eq!(m.driver_line(m.step(write).line), 24);
    assert_eq!(stored(&m, write, "OUT"), "result");
    // No named string: a clear error at the `#include`.
    let e = ShaderModel::parse(src, Stage::Fragment).err().unwrap();
    assert_eq!(e.line, 3, "{e}");
    assert!(
        e.message.contains("common.glsl") && e.message.contains("named string"),
        "{e}"
    );
    // The debug shader has no #include left.
    let pos = m.entry();
    let out = m
        .instrument(&Probe {
            position: &pos,
            expr: None,
            semantics: Semantics::Equivalent,
        })
        .unwrap();
    assert!(!out.source.contains("#include"), "{}", out.source);
    assert!(
        out.source.contains("float twice(float x)"),
        "{}",
        out.source
    );
}

/// The type checker's messages name the driver's lines too.
#[test]
fn scope_messages_name_the_drivers_lines() {
    let src = "#version 330 core\n\
        uniform float u;\n\
        #line 1\n\
        out vec4 c;\n\
        void main() {\n\
        \x20   c = vec4(u);\n\
        \x20   float later = 1.0;\n\
        \x20   c.x = later;\n\
        }\n";
    let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
    let first = m.steps()[0].id;
    let pos = Position {
        step: first,
        calls: Vec::new(),
        iterations: Vec::new(),
    };
    let Err(e) = m.instrument(&Probe {
        position: &pos,
        expr: Some("later"),
        semantics: Semantics::Equivalent,
    }) else {
        panic!("`later` is not in scope at the first step");
    };
    let e = e.to_string();
    assert!(
        e.contains("not in scope at line 3 (declared at line 4)"),
        "{e}"
    );
}
