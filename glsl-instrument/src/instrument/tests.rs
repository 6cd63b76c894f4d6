//! Tests of the whole instrumenter: generated shaders per stage, parse
//! back, names, outputs, semantics.

use super::test_support::{every_position, model, probe, reachable, stage_model};
use crate::test_shaders::LOOP_BRANCH;
use crate::{InstrumentError, OutputSlot, Position, Probe, Semantics, ShaderModel, Stage, StepId};

/// Stepping into a `subroutine(T)` function called directly: its call
/// instance copy is a plain function (Mesa rejects the qualifier on a
/// second declaration), the original keeps it for the subroutine uniform.
#[test]
fn subroutine_function_copies_are_plain_functions() {
    let m = model(
        "#version 430\n\
         subroutine float ShadeFn(vec2 p);\n\
         layout(index = 3) subroutine(ShadeFn) float shadeA(vec2 p) {\n\
             float k = p.x / 64.0;\n\
             return k;\n\
         }\n\
         subroutine uniform ShadeFn u_shade;\n\
         out vec4 frag;\n\
         void main() {\n\
             float s = shadeA(gl_FragCoord.xy) + u_shade(gl_FragCoord.xy);\n\
             frag = vec4(s);\n\
         }\n",
    );
    let pos = Position {
        step: StepId(1),
        calls: vec![(StepId(2), 0)],
        iterations: vec![],
    };
    let out = probe(&m, &pos, Some("p"));
    assert!(
        out.source
            .contains("layout(index = 3) subroutine(ShadeFn) float shadeA(vec2 p)"),
        "{}",
        out.source
    );
    let copies: Vec<&str> = out
        .source
        .lines()
        .filter(|l| l.contains("gldbg1_shadeA(vec2 p)"))
        .collect();
    assert_eq!(copies.len(), 2, "prototype and definition: {}", out.source);
    for l in copies {
        assert!(l.starts_with("float gldbg1_shadeA("), "{l}");
    }
}

#[test]
fn every_reachable_position_instruments_to_valid_glsl() {
    for src in [LOOP_BRANCH, crate::flow::tests::FLOW] {
        let m = model(src);
        let positions = reachable(&m);
        assert!(positions.len() > 10);
        for pos in positions {
            let step = m.step(pos.step);
            let expr = step.scope.last().map(|v| v.name.clone());
            let out = probe(&m, &pos, expr.as_deref());
            assert!(out.source.contains("gldbg_c == 0."), "{}", out.source);
            assert_eq!(out.path_uniform.is_some(), !pos.iterations.is_empty());
            if let Some(u) = &out.path_uniform {
                assert!(
                    out.source
                        .contains(&format!("uniform int {u}[{}];", pos.iterations.len()))
                );
                assert!(
                    out.source
                        .contains(&format!("{u}[{}]", pos.iterations.len() - 1))
                );
            }
            assert!(out.source.starts_with("#version 330 core\n"));
            assert_eq!(
                out.cache_key,
                model(src)
                    .instrument(&Probe {
                        position: &pos,
                        expr: expr.as_deref(),
                        semantics: Semantics::Equivalent,
                    })
                    .unwrap()
                    .cache_key
            );
        }
    }
}

#[test]
fn loop_in_callee_gets_counter_duplicate_and_guard() {
    let m = model(LOOP_BRANCH);
    let pos = Position {
        step: StepId(5),
        calls: vec![(StepId(9), 0)],
        iterations: vec![2],
    };
    let out = probe(&m, &pos, Some("acc"));
    let s = &out.source;
    // main stays the entry point: it sets the debug globals up first
    // and copies the outputs out last.
    assert!(s.contains("void main() {\n    gldbg_begin();\n"), "{s}");
    assert!(s.contains("    gldbg_end();\n}"), "{s}");
    assert!(s.contains(
        "void gldbg_end() {\n    gldbg_value = gldbg_v;\n    gldbg_coverage = gldbg_c;\n}"
    ));
    assert!(!s.contains("gldbg_main"), "{s}");
    // The call instance goes to the duplicate; the original stays.
    assert!(s.contains("float s = gldbg1_shade(d, 4) * scale;"));
    assert!(s.contains("float shade(float x, int n) {"));
    assert!(s.contains("float gldbg1_shade(float x, int n) {"));
    // Loop counting and the guarded write before the statement.
    assert!(
        s.contains("gldbg_iter0 = -1;\n    for (int i = 0; gldbg_iter0++, i < n; i++) {"),
        "{s}"
    );
    assert!(s.contains("if (gldbg_iter0 == gldbg_path[0] && gldbg_c == 0.) {\n                gldbg_c = gldbg_store(acc);\n            }\n            acc += x * float(i);"), "{s}");
    assert_eq!(s.matches("gldbg_store(acc)").count(), 1);
    assert_eq!(out.value, OutputSlot::Named("gldbg_value".into()));
    assert_eq!(out.coverage, OutputSlot::Named("gldbg_coverage".into()));
    assert_eq!(out.app_outputs, vec!["color".to_string()]);
    assert_eq!(out.path_uniform.as_deref(), Some("gldbg_path"));
    assert!(s.contains("intBitsToFloat"));
    assert!(!s.contains("#extension"));
}

#[test]
fn conditions_and_increments_use_the_sequence_operator() {
    let m = model(LOOP_BRANCH);
    let c = vec![(StepId(9), 0)];
    let at = |step: u32, it: Vec<u32>| Position {
        step: StepId(step),
        calls: c.clone(),
        iterations: it,
    };
    let s = probe(&m, &at(4, vec![1]), Some("x > 0.5")).source;
    assert!(s.contains("if (gldbg_iter0 == gldbg_path[0] && gldbg_c == 0. && (gldbg_c = gldbg_store(x > 0.5), true), x > 0.5) {"), "{s}");
    let s = probe(&m, &at(2, vec![0]), Some("i")).source;
    assert!(s.contains("gldbg_iter0++, (gldbg_iter0 == gldbg_path[0] && gldbg_c == 0. && (gldbg_c = gldbg_store(i), true), i < n)"), "{s}");
    let s = probe(&m, &at(3, vec![0]), Some("i")).source;
    assert!(s.contains("; gldbg_iter0 == gldbg_path[0] && gldbg_c == 0. && (gldbg_c = gldbg_store(i), true), i++) {"), "{s}");
    // The loop init: before the loop, outside the counted loop.
    let s = probe(&m, &at(1, vec![]), None).source;
    assert!(
        s.contains(
            "if (gldbg_c == 0.) {\n        gldbg_c = 17.;\n    }\n    for (int i = 0; i < n; i++) {"
        ),
        "{s}"
    );
}

#[test]
fn discard_stays_unless_reporting_discarded_fragments() {
    let src = "#version 330 core\nin vec2 uv;\nout vec4 o;\nvoid main() {\n    float a = uv.x;\n    if (a < 0.5) discard;\n    o = vec4(a);\n}\n";
    let m = model(src);
    // After the `if` (`a` is declared by an earlier step).
    let after_if = Position {
        step: m.steps_on_line(7)[0],
        calls: vec![],
        iterations: vec![],
    };
    let s = probe(&m, &after_if, Some("a")).source;
    assert!(s.contains("    if (a < 0.5) discard;\n"), "{s}");
    assert!(!s.contains("return;"), "{s}");
    let s = m
        .instrument(&Probe {
            position: &after_if,
            expr: Some("a"),
            semantics: Semantics::ReportDiscarded,
        })
        .unwrap()
        .source;
    assert!(
        s.contains(
            "if (a < 0.5) {\n        if (gldbg_c == 0.) discard;\n        {\n            gldbg_end();\n            return;\n        }\n    }"
        ),
        "{s}"
    );
}

#[test]
fn legacy_110_uses_frag_data_and_converts_ints() {
    let src = "varying vec2 uv;
uniform int n;
void main() {
int k = n * 2;
gl_FragColor = vec4(uv, float(k), 1.0);
}
";
    let m = model(src);
    assert_eq!(m.version(), (110, false));
    let pos = Position {
        step: StepId(1),
        calls: vec![],
        iterations: vec![],
    };
    let out = probe(&m, &pos, Some("k"));
    let s = &out.source;
    assert_eq!(out.value, OutputSlot::FragData(1));
    assert_eq!(out.coverage, OutputSlot::FragData(2));
    assert!(out.app_outputs.is_empty());
    assert!(
        s.contains("gl_FragData[0] = vec4(uv, float(k), 1.);"),
        "{s}"
    );
    assert!(!s.contains("gl_FragColor"));
    assert!(
        s.contains("gl_FragData[1] = gldbg_v;\n    gl_FragData[2] = vec4(gldbg_c, 0.0, 0.0, 1.0);")
    );
    assert!(!s.contains("BitsToFloat") && !s.contains("uint") && !s.contains("#version"));
    // ints travel as floats with the float type code
    assert!(s.contains("float gldbg_store(int x) {\n    gldbg_v = vec4(float(x), 0.0, 0.0, 0.0);\n    return 1.0;"), "{s}");
}

#[test]
fn glsl_130_frag_color_becomes_an_output_and_bits_need_the_extension() {
    let src =
        "#version 130\nin vec2 uv;\nvoid main() {\n    gl_FragColor = vec4(uv, 0.0, 1.0);\n}\n";
    let m = model(src);
    let out = probe(&m, &m.entry(), Some("uv"));
    let s = &out.source;
    assert!(
        s.starts_with("#version 130\n#extension GL_ARB_shader_bit_encoding : enable\n"),
        "{s}"
    );
    assert!(
        s.contains("out vec4 gldbg_FragColor;")
            && s.contains("gldbg_FragColor = vec4(uv, 0., 1.);")
    );
    assert_eq!(out.app_outputs, vec!["gldbg_FragColor".to_string()]);
    assert!(
        s.contains("#ifdef GL_ARB_shader_bit_encoding\n")
            && s.contains("#else\n")
            && s.contains("#endif\n")
    );
}

#[test]
fn es_300_outputs_get_locations() {
    let src = "#version 300 es\nprecision mediump float;\nin vec2 uv;\nout vec4 color;\nvoid main() {\n    color = vec4(uv, 0.0, 1.0);\n}\n";
    let m = model(src);
    let out = probe(&m, &m.entry(), Some("uv"));
    let s = &out.source;
    assert!(s.contains("layout(location = 0) out vec4 color;"), "{s}");
    assert!(s.contains("layout(location = 1) out highp vec4 gldbg_value;"));
    assert!(s.contains("layout(location = 2) out highp float gldbg_coverage;"));
    assert!(s.contains("highp float gldbg_store(highp vec2 x)"));
    // Our declarations come after the app's precision statement.
    assert!(s.find("precision mediump float;").unwrap() < s.find("gldbg_v;").unwrap());
}

#[test]
fn added_names_are_unique() {
    let src = "#version 330\nout vec4 gldbg_value;\nfloat gldbg_v;\nvoid gldbg_main() { gldbg_v = 1.0; }\nvoid main() {\n    gldbg_main();\n    gldbg_value = vec4(gldbg_v);\n}\n";
    let m = model(src);
    let out = probe(&m, &m.entry(), Some("gldbg_v"));
    let s = &out.source;
    assert_eq!(out.value, OutputSlot::Named("gldbg_value_1".into()));
    assert!(s.contains("void gldbg_main() {") && s.contains("    gldbg_main();\n"));
    assert!(s.contains("gldbg_c = gldbg_store(gldbg_v);"), "{s}");
    assert!(s.contains("vec4 gldbg_v_1;"));
}

#[test]
fn bad_requests_are_errors() {
    let m = model(LOOP_BRANCH);
    let e = m.entry();
    match m.instrument(&Probe {
        position: &e,
        expr: Some("d +* 2.0"),
        semantics: Semantics::Equivalent,
    }) {
        Err(InstrumentError::BadExpression { expr, message }) => {
            assert_eq!(expr, "d +* 2.0");
            assert!(message.contains("column"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    let bad = Position {
        step: StepId(99),
        calls: vec![],
        iterations: vec![],
    };
    assert_eq!(
        m.instrument(&Probe {
            position: &bad,
            expr: None,
            semantics: Semantics::Equivalent,
        })
        .err(),
        Some(InstrumentError::NoSuchStep(99))
    );
    // Step 5 is in `shade`, not in main; wrong iteration counts.
    for bad in [
        Position {
            step: StepId(5),
            calls: vec![],
            iterations: vec![0],
        },
        Position {
            step: StepId(5),
            calls: vec![(StepId(9), 0)],
            iterations: vec![],
        },
        Position {
            step: StepId(5),
            calls: vec![(StepId(9), 1)],
            iterations: vec![0],
        },
        Position {
            step: StepId(5),
            calls: vec![(StepId(8), 0)],
            iterations: vec![0],
        },
    ] {
        assert!(
            matches!(
                m.instrument(&Probe {
                    position: &bad,
                    expr: None,
                    semantics: Semantics::Equivalent,
                }),
                Err(InstrumentError::Unsupported(_))
            ),
            "{bad:?}"
        );
    }
}

// ---- Other stages: outputs per stage (TEAM2.md planned API). The driver
// compiles these shapes too: see the corpus harness (`gldbg-corpus compile`).

#[test]
fn comma_expressions_in_arguments_and_initializers_keep_their_meaning() {
    let src = "#version 100\nprecision mediump float;\nconst float f = cos((1.0, 2.0));\nvoid main() {\n    float a = 1.0;\n    float x = (a = 2.0, a + 1.0), y = 3.0;\n    vec2 v = vec2((a, 4.0), 5.0);\n    float w[2];\n    for (float i = (a, 0.0); i < 1.0; i++) { }\n    a = (a, 6.0);\n    gl_FragColor = vec4(f, x, v.x, y);\n}\n";
    let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
    let s = probe(&m, &m.entry(), None).source;
    assert!(
        s.contains("const float f = cos(true ? 1., 2. : 2.);"),
        "{s}"
    );
    assert!(
        s.contains("float x = true ? a = 2., a + 1. : a + 1., y = 3.;"),
        "{s}"
    );
    assert!(s.contains("vec2 v = vec2(true ? a, 4. : 4., 5.);"), "{s}");
    assert!(s.contains("for (float i = true ? a, 0. : 0.; "), "{s}");
    // Where the printer keeps the parentheses, nothing changes.
    assert!(s.contains("a = (a, 6.);"), "{s}");
    // And the result parses back to the same meaning.
    let again = ShaderModel::parse(&s, Stage::Fragment);
    assert!(again.is_ok(), "{s}");
}

#[test]
fn misspelt_multisample_sampler_types_are_printed_right() {
    let src = "#version 150\nuniform isampler2DMS a;\nuniform usampler2DMSArray b;\nout vec4 o;\nvoid main() {\n    o = vec4(texelFetch(a, ivec2(0), 0)) + vec4(texelFetch(b, ivec3(0), 1));\n}\n";
    let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
    let out = probe(&m, &m.entry(), None);
    assert!(
        out.source.contains("uniform isampler2DMS a;"),
        "{}",
        out.source
    );
    assert!(
        out.source.contains("uniform usampler2DMSArray b;"),
        "{}",
        out.source
    );
    assert!(!out.source.contains("isampler2MS") && !out.source.contains("usamplerDMSArray"));
    assert_eq!(
        super::printer::fix_type_names("isampler2MSx isampler2MS(usamplerDMSArray)"),
        "isampler2MSx isampler2DMS(usampler2DMSArray)"
    );
}

/// piglit's fs-inout-index-two-level: `v[w[i]]` is an `inout` argument
/// whose index reads another `inout` argument; GLSL evaluates it once,
/// at the call. At every position and at the end of main the debug
/// shader keeps the call as it is (only renamed to the position's copy)
/// with the statements around it in their order: no probe rewrites an
/// argument, duplicates an index or moves a side effect.
#[test]
fn an_indexed_inout_argument_stays_as_the_app_wrote_it() {
    let src = "#version 120
uniform int u = 1;
void func(inout int i, inout int w[4], inout int x)
{
  i = 0;
  for (int j = 0; j < 4; ++j)
w[j] += j;
  x = 1;
}
void main()
{
  int v[4] = int[](0, 0, 0, 0);
  int w[4] = int[](0, 1, 0, 0);
  int i = u;
  func(i, w, v[w[i]]);
  if (v[1] != 1) {
gl_FragColor = vec4(1.0, 0.0, 0.0, 1.0);
return;
  }
  gl_FragColor = vec4(0.0, 1.0, 0.0, 1.0);
}
";
    let m = model(src);
    let mut sources: Vec<String> = every_position(&m).into_iter().map(|i| i.source).collect();
    sources.push(
        m.instrument_end_of_main(&Probe {
            position: &m.entry(),
            expr: Some("gl_FragColor"),
            semantics: Semantics::ReportDiscarded,
        })
        .unwrap()
        .source,
    );
    for s in &sources {
        let main = &s[s.find("void main()").unwrap_or_else(|| panic!("{s}"))..];
        let app_lines: Vec<&str> = main
            .lines()
            .map(str::trim)
            .filter(|l| {
                [
                    "int v[4]",
                    "int w[4]",
                    "int i = u;",
                    "gldbg_k0 = int(w[i]);",
                    "gldbg_a1 = v[gldbg_k0];",
                    "func(i, w, gldbg_a1);",
                    "v[gldbg_k0] = gldbg_a1;",
                    "v[1] != 1",
                ]
                .iter()
                .any(|p| l.contains(p))
            })
            .collect();
        // The index of the inout argument is taken right before the
        // call, and the element copied in and out as GLSL's call does
        // (NVIDIA evaluates `w[i]` again after the call otherwise).
        assert_eq!(app_lines.len(), 8, "{s}");
        assert_eq!(app_lines[3], "gldbg_k0 = int(w[i]);", "{s}");
        assert_eq!(app_lines[4], "gldbg_a1 = v[gldbg_k0];", "{s}");
        assert!(app_lines[5].ends_with("func(i, w, gldbg_a1);"), "{s}");
        assert_eq!(app_lines[6], "v[gldbg_k0] = gldbg_a1;", "{s}");
        assert!(app_lines[7].ends_with("v[1] != 1) {"), "{s}");
        assert!(s.contains("\nint gldbg_k0;\nint gldbg_a1;\n"), "{s}");
        assert!(!s.contains("? "), "no argument is rewritten otherwise: {s}");
    }
}

/// NVIDIA writes an indexed `inout` argument back at the index the call
/// left (`func(i, v[1][i])` with `func` setting `i`) when the call is in
/// a function other than `main` (piglit's
/// out-parameter-indexing/vs-inout-index-inout-vec4-array-element, H200):
/// the body of the app's `main` must stay in `main`, for every probe.
#[test]
fn the_apps_main_body_stays_in_main() {
    let src = "#version 120
uniform int u = 1;
varying vec4 color;
void func(inout int i, inout float f) { i = 0; f = 1.; }
void main()
{
  vec4 v[] = vec4[](vec4(0.), vec4(0.));
  int i = u;
  if (i > 2) return;
  func(i, v[1][i]);
  color = v[1];
  gl_Position = gl_Vertex;
}
";
    let m = stage_model(src, Stage::Vertex);
    let mut sources: Vec<String> = every_position(&m).into_iter().map(|i| i.source).collect();
    sources.push(
        m.instrument_end_of_main(&Probe {
            position: &m.entry(),
            expr: Some("color"),
            semantics: Semantics::ReportDiscarded,
        })
        .unwrap()
        .source,
    );
    for s in &sources {
        assert_eq!(s.matches("void main()").count(), 1, "{s}");
        let start = s.find("void main() {\n    gldbg_begin();\n").expect(s);
        let body = &s[start..start + s[start..].find("\n}").expect(s)];
        assert!(body.contains("gldbg_k0 = int(i);\n"), "{s}");
        assert!(body.contains("func(i, gldbg_a1);\n"), "{s}");
        assert!(body.contains("v[1][gldbg_k0] = gldbg_a1;\n"), "{s}");
        assert!(body.contains("    color = v[1];\n"), "{s}");
        // The outputs are copied out at the return and at the end.
        let returns: Vec<usize> = body.match_indices("return;").map(|(k, _)| k).collect();
        assert_eq!(returns.len(), 1, "{s}");
        assert!(
            body[..returns[0]].trim_end().ends_with("gldbg_end();"),
            "{s}"
        );
        assert!(body.ends_with("    gldbg_end();"), "{s}");
        assert!(!s.contains("gldbg_main"), "{s}");
    }
}

/// An `out int` argument bound to a dynamically indexed `vec4`
/// component is copied out through a global of the parameter's type
/// (NVIDIA wrote the wrong component once a probe called a function
/// before the call: piglit vs-out-conversion-int-to-float-vec4-index);
/// no copy-in for `out`. Where copying could reorder side effects (an
/// argument with `++`) or the call is part of an assignment, only what
/// is safe is done.
#[test]
fn out_arguments_with_dynamic_indices_are_copied_in_main() {
    let src = "#version 120
uniform int u;
void f(inout int i, out int x) { x = 4; i = 0; }
int g(inout int i, out int x) { x = 4; i = 0; return 1; }
void main() {
vec4 value = vec4(0.0);
int i = u;
f(i, value[i]);
int r = 0;
r = g(i, value[i]);
f(i, value[i++]);
gl_FragColor = value * float(r);
}
";
    let m = model(src);
    let s = probe(&m, &m.entry(), Some("u")).source;
    let main = &s[s.find("void main()").unwrap()..];
    assert!(
        main.contains("    {\n        gldbg_k0 = int(i);\n        f(i, gldbg_a1);\n        value[gldbg_k0] = gldbg_a1;\n    }\n"),
        "{s}"
    );
    assert!(s.contains("\nint gldbg_k0;\nint gldbg_a1;\n"), "{s}");
    // An assignment: the index only.
    assert!(
        main.contains(
            "    {\n        gldbg_k2 = int(i);\n        r = g(i, value[gldbg_k2]);\n    }\n"
        ),
        "{s}"
    );
    // A side effect in the arguments: as the app wrote it.
    assert!(main.contains("    f(i, value[i++]);\n"), "{s}");
}

/// A fragment program of several shader objects: the others write
/// `gl_FragColor` too, and get the renamed output with its declaration
/// (NVIDIA links no program mixing it with user-defined outputs, and
/// the debug value must see their writes: piglit
/// fragcoord-layout-qualifiers-matching-case-3).
#[test]
fn fragment_siblings_write_the_renamed_outputs() {
    let main_src = "#version 150\nvoid blue();\nvoid main() {\n    gl_FragColor = vec4(0.5);\n    blue();\n}\n";
    let blue = "#version 150\nvoid blue()\n{\n    gl_FragColor.b = 1.0;\n}\n".to_string();
    let mut m = model(main_src);
    m.set_siblings(vec![blue.clone()]);
    let end = m
        .instrument_end_of_main(&Probe {
            position: &m.entry(),
            expr: Some("gl_FragColor"),
            semantics: Semantics::ReportDiscarded,
        })
        .unwrap();
    for inst in [probe(&m, &m.entry(), Some("gl_FragColor")), end] {
        let s = &inst.source;
        assert!(s.contains("out vec4 gldbg_FragColor;\n"), "{s}");
        assert!(!s.contains("gl_FragColor"), "{s}");
        assert_eq!(
            inst.siblings,
            vec![
                "#version 150\nout vec4 gldbg_FragColor;\nvoid blue()\n{\n    gldbg_FragColor.b = 1.0;\n}\n"
            ]
        );
        assert!(inst.app_outputs.contains(&"gldbg_FragColor".to_string()));
    }
    // Only a sibling writes it (GLSL 1.20): gl_FragData[0] there, the
    // debug outputs after it, and no named outputs that would clash.
    let mut m = model("#version 120\nvoid blue();\nvoid main() {\n    blue();\n}\n");
    m.set_siblings(vec![blue.replace("150", "120")]);
    let inst = probe(&m, &m.entry(), None);
    assert_eq!(inst.value, OutputSlot::FragData(1), "{}", inst.source);
    assert!(
        !inst.source.contains("GL_EXT_gpu_shader4"),
        "{}",
        inst.source
    );
    assert!(
        inst.siblings[0].contains("    gl_FragData[0].b = 1.0;\n"),
        "{:?}",
        inst.siblings
    );
    // Without siblings nothing is sent in their place.
    assert!(
        probe(&model(main_src), &m.entry(), None)
            .siblings
            .is_empty()
    );
}

mod overload_tests {
    use crate::{Position, Probe, Semantics, ShaderModel, Stage};

    #[test]
    fn the_called_overload_is_duplicated() {
        let src = "#version 330 core
out vec4 o;
float f(float x) { return x; }
vec3 f(vec3 v) { return v * 2.0; }
void main() {
    vec3 c = vec3(1.0);
    o = vec4(f(c), f(c.x));
}
";
        let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
        let site = m.steps_on_line(7)[0];
        let ret = m.steps_on_line(4)[0];
        let pos = Position {
            step: ret,
            calls: vec![(site, 0)],
            iterations: vec![],
        };
        let s = m
            .instrument(&Probe {
                position: &pos,
                expr: Some("v"),
                semantics: Semantics::Equivalent,
            })
            .unwrap()
            .source;
        assert!(s.contains("vec3 gldbg1_f(vec3 v) {"), "{s}");
        assert!(s.contains("o = vec4(gldbg1_f(c), f(c.x));"), "{s}");
    }

    #[test]
    fn end_of_main_writes_after_the_last_statement_outside_loops() {
        let src = "#version 330 core
out vec4 o;
void main() {
    float a = 0.0;
    for (int i = 0; i < 4; i++) {
        a += 1.0;
    }
    o = vec4(a);
}
";
        let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
        // Any position: the end of main does not depend on it.
        let pos = Position {
            step: m.steps_on_line(6)[0],
            calls: vec![],
            iterations: vec![2],
        };
        let inst = m
            .instrument_end_of_main(&Probe {
                position: &pos,
                expr: Some("o"),
                semantics: Semantics::ReportDiscarded,
            })
            .unwrap();
        let s = &inst.source;
        assert!(
            s.contains("    o = vec4(a);\n    if (gldbg_c == 0.) {\n        gldbg_c = gldbg_store(o);\n    }\n    gldbg_end();\n}"),
            "{s}"
        );
        assert_eq!(inst.path_uniform, None, "{s}");
        // A local declared in main is in scope there; one of the loop is not.
        let at_end = |e| {
            m.instrument_end_of_main(&Probe {
                position: &pos,
                expr: Some(e),
                semantics: Semantics::ReportDiscarded,
            })
        };
        assert!(at_end("a * 2.0").is_ok());
        assert!(at_end("i").is_err());
    }

    #[test]
    fn end_of_main_is_also_taken_at_each_return_of_main() {
        let src = "#version 330 core
out vec4 o;
uniform float t;
float f(float x) { if (x > 1.0) return x; return 0.0; }
void main() {
    float a = f(t);
    if (a > 0.5) {
        o = vec4(a);
        return;
    }
    if (a < 0.0) discard;
    float late = 2.0 * a;
    for (int i = 0; i < 3; i++) { if (late > 9.0) return; }
    o = vec4(late);
}
";
        let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
        let pos = m.entry();
        let at_end = |e| {
            m.instrument_end_of_main(&Probe {
                position: &pos,
                expr: e,
                semantics: Semantics::ReportDiscarded,
            })
            .unwrap()
            .source
        };
        let s = at_end(Some("o"));
        let write = "if (gldbg_c == 0.) {\n            gldbg_c = gldbg_store(o);\n        }\n        {\n            gldbg_end();\n            return;\n        }";
        assert!(s.contains(write), "{s}");
        // The loop's return too (no loop counter guards it), the callee's not.
        assert_eq!(s.matches("gldbg_c = gldbg_store(o);").count(), 3, "{s}");
        assert!(s.contains("if (x > 1.) return x;"), "{s}");
        // `late` is not in scope at the first return: that invocation has
        // no `late`, so nothing is written there.
        let s = at_end(Some("late"));
        assert_eq!(s.matches("gldbg_c = gldbg_store(late);").count(), 2, "{s}");
        // Coverage alone: every return of main.
        let s = at_end(None);
        assert_eq!(s.matches("gldbg_c = 17.;").count(), 3, "{s}");
    }
}
