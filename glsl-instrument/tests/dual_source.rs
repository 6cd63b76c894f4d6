//! A dual-source blending output (`layout(location = 0, index = 1) out`)
//! is no second source in the debug shader: the debug program adds two
//! outputs, and a driver may allow no other colour output next to a second
//! source (NVIDIA: "too many color outputs when using dual source output").
//! It stays an output without `location`/`index`, placed by the preload.

use glsl_instrument::{OutputSlot, Probe, Semantics, ShaderModel, Stage};

const DUAL: &str = "#version 330 core\n\
layout(location = 0, index = 0) out vec4 c0;\n\
layout(location = 0, index = 1) out vec4 c1;\n\
void main() {\n    c0 = vec4(0.25);\n    c1 = vec4(0.5);\n}\n";

#[test]
fn the_second_source_loses_its_location_and_index() {
    let m = ShaderModel::parse(DUAL, Stage::Fragment).unwrap();
    for expr in [None, Some("c1")] {
        let out = m
            .instrument(&Probe {
                position: &m.entry(),
                expr,
                semantics: Semantics::Equivalent,
            })
            .unwrap();
        let s = &out.source;
        assert!(
            s.contains("layout(location = 0, index = 0) out vec4 c0;"),
            "{s}"
        );
        assert!(!s.contains("index = 1"), "{s}");
        assert!(s.contains("out vec4 c1;"), "{s}");
        assert!(matches!(out.value, OutputSlot::Named(_)), "{s}");
        assert!(out.app_outputs.iter().any(|o| o == "c1"), "{s}");
        ShaderModel::parse(s, Stage::Fragment).unwrap_or_else(|e| panic!("{e}\n{s}"));
    }
}
