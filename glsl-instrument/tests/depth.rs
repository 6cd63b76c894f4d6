//! Issue 12 point 1: every pass over a probe expression or a shader
//! recurses per level, so nesting is bounded before any of them runs. Each
//! shape at 10x the limit must come back as a clear error on a thread with
//! the daemon's 2 MiB worker stack (a stack overflow aborts the test
//! binary), and shapes just inside the limit must still work.

use glsl_instrument::{Position, Probe, Semantics, ShaderModel, Stage};

const SHADER: &str = "#version 430 core
uniform float u;
uniform int k[4];
out vec4 color;
void main() {
    float x = u;
    color = vec4(x);
}
";

/// Levels a probe expression may nest (`depth::EXPR_LIMIT`).
const EXPR_LIMIT: usize = 64;
/// Levels a shader may nest (`depth::SHADER_LIMIT`).
const SHADER_LIMIT: usize = 512;

/// Run `f` on a thread with a tokio worker's stack (2 MiB).
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

/// `n` levels of each expression shape.
fn shapes(n: usize) -> Vec<(&'static str, String)> {
    vec![
        ("sum", format!("x{}", "+x".repeat(n))),
        ("unary", format!("{}x", "- ".repeat(n))),
        ("call", format!("{}x{}", "abs(".repeat(n), ")".repeat(n))),
        ("parens", format!("{}x{}", "(".repeat(n), ")".repeat(n))),
        ("index", format!("{}0{}", "k[".repeat(n), "]".repeat(n))),
        (
            "mixed",
            format!("{}x{}", "-abs(x+".repeat(n / 3), ")".repeat(n / 3)),
        ),
    ]
}

#[test]
fn deep_probe_expressions_are_refused_on_a_worker_stack() {
    on_small_stack(|| {
        let m = ShaderModel::parse(SHADER, Stage::Fragment).unwrap();
        let step = m.steps().last().unwrap().id;
        let pos = Position { step, ..m.entry() };
        for (shape, e) in shapes(10 * EXPR_LIMIT) {
            let probe = Probe {
                position: &pos,
                expr: Some(&e),
                semantics: Semantics::Equivalent,
            };
            let results = [
                m.instrument(&probe).map(|_| ()),
                m.instrument_end_of_main(&probe).map(|_| ()),
                m.instrument_vertex_buffer(&probe, false).map(|_| ()),
                m.instrument_written(&probe, false).map(|_| ()),
                m.value_layout(step, &e).map(|_| ()),
            ];
            for (i, r) in results.into_iter().enumerate() {
                // The vertex-buffer form refuses a fragment shader first;
                // the written probe may answer "no output read" and the
                // layout "unknown" (the value probe then reports the
                // error); the others name the limit.
                let Err(err) = r else {
                    assert!(i >= 3, "{shape} #{i}: accepted");
                    continue;
                };
                let err = err.to_string();
                if i != 2 {
                    assert!(
                        err.contains("nested too deeply (more than 64 levels)"),
                        "{shape} #{i}: {}",
                        &err[err.len().saturating_sub(200)..]
                    );
                }
            }
            // Unknown, not an error, to the type query (the daemon then
            // instruments and reports the parse error above).
            let _ = m.expression_type(step, &e);
        }
    });
}

#[test]
fn expressions_inside_the_limit_still_work() {
    on_small_stack(|| {
        let m = ShaderModel::parse(SHADER, Stage::Fragment).unwrap();
        let step = m.steps().last().unwrap().id;
        let pos = Position { step, ..m.entry() };
        for (shape, e) in shapes(EXPR_LIMIT - 4) {
            let probe = Probe {
                position: &pos,
                expr: Some(&e),
                semantics: Semantics::Equivalent,
            };
            let out = m
                .instrument(&probe)
                .unwrap_or_else(|e| panic!("{shape}: {e}"));
            assert!(
                ShaderModel::parse(&out.source, Stage::Fragment).is_ok(),
                "{shape}"
            );
            let ty = m.expression_type(step, &e).unwrap();
            let want = if shape == "index" { "int" } else { "float" };
            assert_eq!(ty.as_deref(), Some(want), "{shape}");
        }
    });
}

/// A fragment shader whose `main` holds `body`.
fn shader_with(body: &str) -> String {
    format!(
        "#version 330 core\nuniform float u;\nout vec4 color;\nvoid main() {{\n    float x = u;\n{body}\n    color = vec4(x);\n}}\n"
    )
}

/// `n` levels of each statement and expression shape in a shader.
fn shader_shapes(n: usize) -> Vec<(&'static str, String)> {
    let mut chain = String::from("if (x > 0.0) x = 1.0;");
    for i in 0..n {
        chain.push_str(&format!(" else if (x > {i}.0) x = {i}.0;"));
    }
    vec![
        (
            "blocks",
            format!("{}x += 1.0;{}", "{".repeat(n / 2), "}".repeat(n / 2)),
        ),
        ("else if", chain),
        ("ifs", format!("{} x = 2.0;", "if (x > 0.0) ".repeat(n))),
        (
            "loops",
            format!("{} x += 1.0;", "for (int i = 0; i < 2; i++) ".repeat(n / 2)),
        ),
        ("sum", format!("x = x{};", "+x".repeat(n))),
        (
            "call",
            format!("x = {}x{};", "abs(".repeat(n), ")".repeat(n)),
        ),
        ("unary", format!("x = {}x;", "- ".repeat(n))),
        ("sequence", format!("x = ({}x);", "x, ".repeat(n))),
        (
            "macro",
            format!(
                "#define A x + x + x + x + x + x + x + x\n#define B A + A + A + A + A + A + A + A\n x = {};",
                vec!["B"; n / 64].join(" + ")
            ),
        ),
    ]
}

#[test]
fn deep_shaders_are_refused_on_a_worker_stack() {
    on_small_stack(|| {
        for (shape, body) in shader_shapes(10 * SHADER_LIMIT) {
            let err = ShaderModel::parse(&shader_with(&body), Stage::Fragment)
                .err()
                .unwrap_or_else(|| panic!("{shape}: parsed"));
            assert!(
                err.message
                    .contains("nested too deeply (more than 512 levels)"),
                "{shape}: {err:?}"
            );
            assert!((6..=8).contains(&err.line), "{shape}: {err:?}");
        }
        // `#if` expressions and macro arguments nest too.
        let deep_if = format!(
            "#if {}1{}\n#endif\n",
            "(".repeat(10_000),
            ")".repeat(10_000)
        );
        let err = ShaderModel::parse(&shader_with(&deep_if), Stage::Fragment).err();
        let err = format!("{err:?}");
        assert!(
            err.contains("nested too deeply"),
            "{}",
            &err[err.len() - 100..]
        );
        let deep_arg = format!(
            "#define F(a) a\n#if {}1{}\n#endif\n",
            "F(".repeat(20_000),
            ")".repeat(20_000)
        );
        let _ = ShaderModel::parse(&shader_with(&deep_arg), Stage::Fragment);
    });
}

#[test]
fn shaders_inside_the_limit_still_parse_and_instrument() {
    on_small_stack(|| {
        for (shape, body) in shader_shapes(SHADER_LIMIT / 2 - 16) {
            let m = ShaderModel::parse(&shader_with(&body), Stage::Fragment)
                .unwrap_or_else(|e| panic!("{shape}: {e:?}"));
            // The step inside the nesting (`x = 2.0`, `x += 1.0`, ...) and
            // the deepest probe expression there.
            let step = m.steps()[m.steps().len() - 2].id;
            let n = SHADER_LIMIT / 2 - 16;
            let loops = if shape == "loops" { n / 2 } else { 0 };
            let pos = Position {
                step,
                iterations: vec![0; loops],
                ..m.entry()
            };
            let expr = format!("x{}", "+x".repeat(EXPR_LIMIT - 8));
            let probe = Probe {
                position: &pos,
                expr: Some(&expr),
                semantics: Semantics::Equivalent,
            };
            m.instrument(&probe)
                .unwrap_or_else(|e| panic!("{shape}: {e}"));
            m.value_layout(step, &expr)
                .unwrap_or_else(|e| panic!("{shape}: {e}"));
        }
    });
}

/// Shaders glsl-lang rejects at first and parses after a rewrite (a stuck
/// macro expanded by us, `#line N "file"`, `#elif` without expression, a
/// line continuation inside `*/`, a later keyword as a name), each with
/// `body` after the part that needs the rewrite.
fn fallback_shaders(body: &str) -> Vec<(&'static str, String)> {
    vec![
        (
            "stuck macro",
            format!(
                "#version 130\nout vec4 color;\nuniform float u;\n\
                 #define STEP_ONE() color = vec4(0.0)\n\
                 #define GLUE(x,y) x ## _ ## y\n\
                 #define EVALUATE(x,y) GLUE(x,y)\n\
                 #define STEP(n) EVALUATE(STEP, n)()\n\
                 void main() {{\n    float x = u;\n    STEP(ONE);\n{body}\n    color.x = x;\n}}\n"
            ),
        ),
        (
            "#line file",
            format!(
                "#version 130\n#extension GL_ARB_shading_language_include: enable\n\
                 out vec4 color;\nuniform float u;\nvoid main() {{\n    float x = u;\n\
                 #line 0 \"/a/b\"\n{body}\n    color = vec4(x);\n}}\n"
            ),
        ),
        (
            "#elif",
            format!(
                "#version 130\nout vec4 color;\nuniform float u;\nvoid main() {{\n    float x = u;\n\
                 #if 1\n{body}\n#elif\n    x = 1.0;\n#endif\n    color = vec4(x);\n}}\n"
            ),
        ),
        (
            "comment",
            format!(
                "#version 130\n#extension GL_ARB_shading_language_420pack: enable\n\
                 out vec4 color;\nuniform float u;\nvoid main() {{\n    float x = u;\n\
                 /* a *\\\n/\n{body}\n    color = vec4(x);\n}}\n"
            ),
        ),
        (
            "later keyword",
            format!(
                "#version 110\nuniform float u;\nvoid main() {{\n    float x = u;\n    float sample = x;\n\
                 {body}\n    gl_FragColor = vec4(x, sample, 0.0, 1.0);\n}}\n"
            ),
        ),
    ]
}

#[test]
fn deep_shaders_on_the_fallback_paths_are_refused() {
    on_small_stack(|| {
        // Each parses when shallow (so the rewrite is taken) ...
        for (shape, src) in fallback_shaders("    x = abs(x);") {
            ShaderModel::parse(&src, Stage::Fragment).unwrap_or_else(|e| panic!("{shape}: {e:?}"));
        }
        // ... and is refused, not parsed, at 10x the limit.
        let n = 10 * SHADER_LIMIT;
        let deep = [
            (
                "call",
                format!("    x = {}x{};", "abs(".repeat(n), ")".repeat(n)),
            ),
            (
                "blocks",
                format!("{}x += 1.0;{}", "{".repeat(n / 2), "}".repeat(n / 2)),
            ),
            ("sum", format!("    x = x{};", "+x".repeat(n))),
        ];
        for (kind, body) in &deep {
            for (shape, src) in fallback_shaders(body) {
                let err = ShaderModel::parse(&src, Stage::Fragment)
                    .err()
                    .unwrap_or_else(|| panic!("{shape}, {kind}: parsed"));
                assert!(
                    err.message
                        .contains("nested too deeply (more than 512 levels)"),
                    "{shape}, {kind}: {err:?}"
                );
            }
        }
    });
}
