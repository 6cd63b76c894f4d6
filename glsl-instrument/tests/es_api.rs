//! A shader without `#version` in a GL ES context is GLSL ES 1.00 (as the
//! ES driver reads it: `GL_ES` defined), not GLSL 1.10: glmark2-es2's
//! shaders keep their `#ifdef GL_ES` precision statement, and the debug
//! shader declares what it adds with a precision.

use glsl_instrument::{Api, Probe, Semantics, ShaderModel, Stage};

/// glmark2-es2's shape: macros and the precision statement behind `GL_ES`.
const NO_VERSION: &str = "#if defined(GL_ES) && defined(GL_FRAGMENT_PRECISION_HIGH)\n\
#define HIGHP_OR_DEFAULT highp\n#else\n#define HIGHP_OR_DEFAULT\n#endif\n\
#ifdef GL_ES\nprecision mediump float;\n#endif\n\
const vec4 MaterialDiffuse = vec4(0.0, 0.0, 1.0, 1.0);\nvarying vec3 n;\n\
void main(void)\n{\n    bool lit = n.z > 0.0;\n    gl_FragColor = lit ? MaterialDiffuse : vec4(0.0);\n}\n";

#[test]
fn es_context_reads_a_shader_without_version_as_glsl_es_100() {
    let es = ShaderModel::parse_in(NO_VERSION, Stage::Fragment, Api::Es).unwrap();
    assert_eq!(es.version(), (100, true));
    let gl = ShaderModel::parse(NO_VERSION, Stage::Fragment).unwrap();
    assert_eq!(gl.version(), (110, false));
    for expr in [None, Some("n.z > 0.0"), Some("MaterialDiffuse")] {
        let out = es
            .instrument(&Probe {
                position: &es.entry(),
                expr,
                semantics: Semantics::Equivalent,
            })
            .unwrap()
            .source;
        assert!(!out.contains("#version"), "still GLSL ES 1.00:\n{out}");
        let precision = out
            .find("precision mediump float;")
            .unwrap_or_else(|| panic!("the app's precision statement is kept:\n{out}"));
        assert!(
            precision < out.find("MaterialDiffuse").unwrap(),
            "before the first float declaration:\n{out}"
        );
        assert!(
            !out.contains("highp bool") && !out.contains("P bool"),
            "{out}"
        );
        // The ES debug shader parses again as ES.
        ShaderModel::parse_in(&out, Stage::Fragment, Api::Es)
            .unwrap_or_else(|e| panic!("{e}\n{out}"));
    }
}
