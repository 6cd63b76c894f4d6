//! Tests of the instrumenter per stage: outputs, varyings, storage
//! blocks, emission, locations.

use super::test_support::{every_position, probe, stage_model};
use crate::{
    InstrumentError, OutputSlot, Position, Probe, Semantics, ShaderModel, Stage, StepMode,
};

const VERTEX_330: &str = "#version 330 core
layout(location = 0) in vec3 pos;
uniform int n;
out vec3 color;
void main() {
vec3 c = vec3(0.0);
for (int i = 0; i < n; i++) {
    c += pos * float(i);
}
color = c;
gl_Position = vec4(pos, 1.0);
}
";

#[test]
fn vertex_gets_two_varyings_copied_at_the_end() {
    let m = stage_model(VERTEX_330, Stage::Vertex);
    for out in every_position(&m) {
        assert_eq!(out.value, OutputSlot::Varying("gldbg_value".into()));
        assert_eq!(out.coverage, OutputSlot::Varying("gldbg_coverage".into()));
        assert_eq!(out.emission, None);
        let s = &out.source;
        assert!(s.starts_with("#version 330 core\n"), "{s}");
        assert!(
            s.contains("out vec4 gldbg_value;\nout float gldbg_coverage;\n"),
            "{s}"
        );
        // The app's outputs are untouched; the new main copies ours last.
        assert!(s.contains("out vec3 color;") && s.contains("gl_Position = vec4(pos, 1.);"));
        assert!(s.ends_with("    gldbg_end();\n}\n"), "{s}");
        assert!(
            s.contains(
                "void gldbg_end() {\n    gldbg_value = gldbg_v;\n    gldbg_coverage = gldbg_c;\n}\n"
            ),
            "{s}"
        );
    }
    // In the loop: counter, path uniform, guarded write before the statement.
    let pos = Position {
        step: m.steps_on_line(8)[0],
        calls: vec![],
        iterations: vec![1],
    };
    let s = probe(&m, &pos, Some("c")).source;
    assert!(s.contains("if (gldbg_iter0 == gldbg_path[0] && gldbg_c == 0.) {\n            gldbg_c = gldbg_store(c);\n        }\n        c += pos * float(i);"), "{s}");
}

#[test]
fn vertex_shaders_of_non_indexed_draws_write_storage_blocks_in_draw_order() {
    let m = stage_model(VERTEX_330, Stage::Vertex);
    let probe = Probe {
        position: &m.entry(),
        expr: Some("pos"),
        semantics: Semantics::ReportDiscarded,
    };
    let out = m.instrument_vertex_buffer(&probe, false).unwrap();
    let block = |binding: u32, block: &str, member: &str| OutputSlot::Buffer {
        binding,
        block: block.into(),
        member: member.into(),
    };
    assert_eq!(out.value, block(0, "gldbg_Value", "gldbg_value"));
    assert_eq!(out.coverage, block(1, "gldbg_Coverage", "gldbg_coverage"));
    assert_eq!(
        out.vertex_index_uniforms,
        Some(("gldbg_first".into(), "gldbg_count".into()))
    );
    let s = &out.source;
    assert!(
        s.contains("#extension GL_ARB_shader_storage_buffer_object : require"),
        "{s}"
    );
    assert!(
        s.contains("uniform uint gldbg_first;\nuniform uint gldbg_count;\n"),
        "{s}"
    );
    assert!(
        s.contains(
            "void gldbg_end() {\n    uint gldbg_index = uint(gl_VertexID) - gldbg_first + \
             uint(gl_InstanceID) * gldbg_count;\n    gldbg_value[gldbg_index] = gldbg_v;\n    \
             gldbg_coverage[gldbg_index] = gldbg_c;\n}\n"
        ),
        "{s}"
    );
    assert!(!s.contains("out vec4 gldbg_value"), "{s}");
    // At the end of main too; no other stage, no GLSL without gl_InstanceID.
    assert!(m.instrument_vertex_buffer(&probe, true).is_ok());
    let legacy = stage_model(
        "#version 130\nin vec4 p;\nvoid main() {\n    gl_Position = p;\n}\n",
        Stage::Vertex,
    );
    let entry = legacy.entry();
    let old = Probe {
        position: &entry,
        expr: None,
        semantics: Semantics::ReportDiscarded,
    };
    assert!(matches!(
        legacy.instrument_vertex_buffer(&old, false),
        Err(InstrumentError::Unsupported(_))
    ));
}

#[test]
fn old_vertex_shaders_use_varying_and_es_gets_highp() {
    let legacy = "attribute vec4 p;\nvarying float k;\nvoid main() {\n    k = p.x * 2.0;\n    gl_Position = ftransform();\n}\n";
    let m = stage_model(legacy, Stage::Vertex);
    let s = probe(&m, &m.entry(), Some("p")).source;
    assert!(
        s.contains("varying vec4 gldbg_value;\nvarying float gldbg_coverage;\n"),
        "{s}"
    );
    assert!(!s.contains("#version") && !s.contains("out vec4"), "{s}");
    let es100 = "#version 100\nattribute vec4 p;\nvarying mediump float k;\nvoid main() {\n    k = p.x;\n    gl_Position = p;\n}\n";
    let m = stage_model(es100, Stage::Vertex);
    let s = probe(&m, &m.entry(), Some("p")).source;
    assert!(
        s.contains("varying highp vec4 gldbg_value;\nvarying highp float gldbg_coverage;\n"),
        "{s}"
    );
    assert!(s.contains("highp float gldbg_store(highp vec4 x)"), "{s}");
    let es300 = "#version 300 es\nin vec4 p;\nout float k;\nvoid main() {\n    k = p.x;\n    gl_Position = p;\n}\n";
    let m = stage_model(es300, Stage::Vertex);
    let s = probe(&m, &m.entry(), Some("p")).source;
    assert!(
        s.contains("out highp vec4 gldbg_value;\nout highp float gldbg_coverage;\n"),
        "{s}"
    );
    // No locations: vertex outputs are matched by name.
    assert!(!s.contains("layout(location"), "{s}");
}

#[test]
fn tess_eval_gets_two_varyings() {
    let src = "#version 400
layout(triangles, equal_spacing) in;
out float w;
void main() {
vec3 b = gl_TessCoord;
w = b.x + b.y;
gl_Position = vec4(b, 1.0);
}
";
    let m = stage_model(src, Stage::TessEval);
    for out in every_position(&m) {
        assert_eq!(out.value, OutputSlot::Varying("gldbg_value".into()));
        assert_eq!(out.coverage, OutputSlot::Varying("gldbg_coverage".into()));
        assert!(
            out.source.contains("layout(triangles, equal_spacing) in;"),
            "{}",
            out.source
        );
        assert!(
            out.source
                .contains("out vec4 gldbg_value;\nout float gldbg_coverage;\n")
        );
    }
}

const GEOMETRY_150: &str = "#version 150
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
in vec3 vcolor[];
out vec3 gcolor;
void emit(int k) {
gcolor = vcolor[k];
gl_Position = gl_in[k].gl_Position;
EmitVertex();
}
void main() {
for (int i = 0; i < 2; i++) {
    emit(i);
}
gcolor = vcolor[2];
gl_Position = gl_in[2].gl_Position;
EmitVertex();
EndPrimitive();
}
";

#[test]
fn geometry_hands_the_value_out_before_every_emit() {
    let m = stage_model(GEOMETRY_150, Stage::Geometry);
    for out in every_position(&m) {
        let s = &out.source;
        assert_eq!(out.value, OutputSlot::Varying("gldbg_value".into()));
        assert_eq!(out.coverage, OutputSlot::Varying("gldbg_coverage".into()));
        assert_eq!(
            out.emission,
            Some(OutputSlot::Varying("gldbg_emission".into()))
        );
        assert!(s.contains("out vec4 gldbg_value;\nout float gldbg_coverage;\nout vec3 gldbg_emission;\nint gldbg_emitted;\n"), "{s}");
        // GLSL 1.50: no gl_InvocationID.
        assert!(s.contains("void gldbg_put() {\n    gldbg_value = gldbg_v;\n    gldbg_coverage = gldbg_c;\n    gldbg_emission = vec3(float(gldbg_emitted), float(gl_PrimitiveIDIn), 0.0);\n    gldbg_emitted++;\n}\n"), "{s}");
        // Every EmitVertex (also in `emit` and its duplicate) hands out first.
        assert_eq!(
            s.matches("EmitVertex()").count(),
            s.matches("gldbg_put(), EmitVertex()").count()
        );
        assert!(s.matches("gldbg_put(), EmitVertex();").count() >= 2, "{s}");
        assert!(s.contains("    gldbg_emitted = 0;\n}\n"), "{s}");
        assert!(s.contains("    EndPrimitive();\n"));
    }
    // Inside `emit`, called from the loop in main: the duplicate carries the write.
    let site = m.steps_on_line(13)[0];
    let pos = Position {
        step: m.steps_on_line(7)[0],
        calls: vec![(site, 0)],
        iterations: vec![1],
    };
    let s = probe(&m, &pos, Some("k")).source;
    assert!(s.contains("void gldbg1_emit(int k) {"), "{s}");
    assert!(s.contains("gldbg1_emit(i);"), "{s}");
}

#[test]
fn geometry_with_streams_captures_from_stream_0() {
    let src = "#version 400
layout(points) in;
layout(points, max_vertices = 2) out;
layout(stream = 1) out float s1;
void main() {
float x = gl_in[0].gl_Position.x;
s1 = x;
EmitStreamVertex(1);
EndStreamPrimitive(1);
}
";
    let m = stage_model(src, Stage::Geometry);
    let s = probe(&m, &m.entry(), Some("gl_in[0].gl_Position")).source;
    assert!(
        s.contains("layout(stream = 0) out vec4 gldbg_value;"),
        "{s}"
    );
    assert!(s.contains("gldbg_put(), EmitStreamVertex(1);"), "{s}");
}

const TESS_CONTROL_400: &str = "#version 400
layout(vertices = 3) out;
in vec3 vpos[];
out vec3 tpos[];
void main() {
tpos[gl_InvocationID] = vpos[gl_InvocationID];
barrier();
if (gl_InvocationID == 0) {
    gl_TessLevelInner[0] = 2.0;
    return;
}
gl_TessLevelOuter[gl_InvocationID] = 3.0;
}
";

#[test]
fn tess_control_writes_storage_blocks_at_the_probe() {
    let m = stage_model(TESS_CONTROL_400, Stage::TessControl);
    for out in every_position(&m) {
        let s = &out.source;
        // Storage blocks, not per-vertex outputs: a shader using all its
        // output components must still link.
        assert!(
            matches!(&out.value, OutputSlot::Buffer { binding: 0, member, .. } if member == "gldbg_value"),
            "{:?}",
            out.value
        );
        assert!(matches!(
            out.coverage,
            OutputSlot::Buffer { binding: 1, .. }
        ));
        assert_eq!(out.output_vertices_uniform, None);
        assert!(!s.contains("out vec4 gldbg_value"), "{s}");
        assert!(s.contains("#extension GL_ARB_shader_storage_buffer_object : require\n"));
        assert!(
            s.contains(
                "layout(std430, binding = 0) buffer gldbg_Value {\n    vec4 gldbg_value[];\n};\n"
            ),
            "{s}"
        );
        // main stays main (barrier() is only allowed there), zeroes first.
        assert!(!s.contains("gldbg_main"), "{s}");
        assert!(
            s.contains(
                "void main() {\n    gldbg_v = vec4(0.);\n    gldbg_c = 0.;\n    gldbg_flush(0.);\n"
            ),
            "{s}"
        );
        assert!(s.contains("\n    barrier();\n"));
        assert!(s.ends_with("float gldbg_flush(float gldbg_code) {\n    uint gldbg_index = uint(gl_PrimitiveID) * uint(3) + uint(gl_InvocationID);\n    gldbg_value[gldbg_index] = gldbg_v;\n    gldbg_coverage[gldbg_index] = gldbg_code;\n    return gldbg_code;\n}\n"), "{s}");
    }
    let pos = Position {
        step: m.steps_on_line(12)[0],
        calls: vec![],
        iterations: vec![],
    };
    let s = probe(&m, &pos, Some("gl_InvocationID")).source;
    assert!(s.contains("if (gldbg_c == 0.) {\n        gldbg_c = gldbg_flush(gldbg_store(gl_InvocationID));\n    }\n    gl_TessLevelOuter[gl_InvocationID] = 3.;"), "{s}");
}

#[test]
fn compute_writes_a_free_storage_block() {
    let src = "#version 430
layout(local_size_x = 8, local_size_y = 2) in;
layout(std430, binding = 2) buffer Data { float d[]; };
layout(std430) buffer Other { uint n; };
layout(binding = 0) uniform sampler2D tex;
void main() {
uint i = gl_GlobalInvocationID.x;
for (int k = 0; k < 2; k++) {
    d[i] += float(k);
}
}
";
    let m = stage_model(src, Stage::Compute);
    for out in every_position(&m) {
        let s = &out.source;
        assert_eq!(
            out.value,
            OutputSlot::Buffer {
                binding: 3,
                block: "gldbg_Value".into(),
                member: "gldbg_value".into()
            }
        );
        assert_eq!(
            out.coverage,
            OutputSlot::Buffer {
                binding: 4,
                block: "gldbg_Coverage".into(),
                member: "gldbg_coverage".into()
            }
        );
        assert!(s.contains("layout(std430, binding = 3) buffer gldbg_Value {\n    vec4 gldbg_value[];\n};\nlayout(std430, binding = 4) buffer gldbg_Coverage {\n    float gldbg_coverage[];\n};\n"), "{s}");
        assert!(s.contains("uint gldbg_index = gl_GlobalInvocationID.x + gl_NumWorkGroups.x * gl_WorkGroupSize.x * (gl_GlobalInvocationID.y + gl_NumWorkGroups.y * gl_WorkGroupSize.y * gl_GlobalInvocationID.z);\n    gldbg_value[gldbg_index] = gldbg_v;\n    gldbg_coverage[gldbg_index] = gldbg_code;\n"), "{s}");
        assert!(
            !s.contains("gldbg_main") && !s.contains("#extension"),
            "{s}"
        );
    }
    // An array of blocks takes a binding per element; old GLSL gets the extensions.
    let src = "#version 330
#extension GL_ARB_compute_shader : enable
layout(local_size_x = 1) in;
void main() {
int x = 1;
x += 2;
}
";
    let m = stage_model(src, Stage::Compute);
    let second = Position {
        step: m.steps_on_line(6)[0],
        calls: vec![],
        iterations: vec![],
    };
    let out = probe(&m, &second, Some("x"));
    assert!(out.source.starts_with("#version 330\n#extension GL_ARB_shader_storage_buffer_object : require\n#extension GL_ARB_shading_language_420pack : require\n#extension GL_ARB_compute_shader : enable\n"), "{}", out.source);
    assert!(matches!(out.value, OutputSlot::Buffer { binding: 0, .. }));
    let src = "#version 310 es
layout(local_size_x = 4) in;
layout(std430, binding = 1) buffer B { highp float v[]; } b[3];
void main() {
b[0].v[0] = 1.0;
}
";
    let m = stage_model(src, Stage::Compute);
    let out = probe(&m, &m.entry(), None);
    assert!(
        matches!(out.value, OutputSlot::Buffer { binding: 4, .. }),
        "{:?}",
        out.value
    );
    assert!(
        out.source.contains("highp vec4 gldbg_value[];")
            && out.source.contains("highp uint gldbg_index =")
    );
    // The local size declared by another shader of the program: a
    // uniform the executor sets.
    let m = stage_model(
        "#version 430\nlayout(std430, binding = 0) buffer B { uint v[]; };\nvoid main() {\n    v[gl_GlobalInvocationID.x] = 1u;\n}\n",
        Stage::Compute,
    );
    let out = probe(&m, &m.entry(), None);
    assert_eq!(out.local_size_uniform.as_deref(), Some("gldbg_local_size"));
    assert!(
        out.source.contains("uniform uvec3 gldbg_local_size;\n"),
        "{}",
        out.source
    );
    assert!(
        out.source
            .contains("gl_NumWorkGroups.x * gldbg_local_size.x *"),
        "{}",
        out.source
    );
    assert!(!out.source.contains("gl_WorkGroupSize"), "{}", out.source);
}

#[test]
fn tess_control_without_vertices_layout_takes_a_uniform() {
    let src = "#version 400\nin vec3 vpos[];\nout vec3 tpos[];\nvoid main() {\n    tpos[gl_InvocationID] = vpos[gl_InvocationID];\n}\n";
    let m = stage_model(src, Stage::TessControl);
    let out = probe(&m, &m.entry(), None);
    assert_eq!(
        out.output_vertices_uniform.as_deref(),
        Some("gldbg_output_vertices")
    );
    assert!(
        out.source.contains("uniform uint gldbg_output_vertices;\n"),
        "{}",
        out.source
    );
    assert!(
        out.source
            .contains("uint(gl_PrimitiveID) * gldbg_output_vertices + uint(gl_InvocationID)"),
        "{}",
        out.source
    );
    // A named constant stays a name.
    let src = "#version 400\nconst int N = 4;\nlayout(vertices = N) out;\nvoid main() {\n    gl_TessLevelOuter[0] = 1.0;\n}\n";
    let m = stage_model(src, Stage::TessControl);
    let out = probe(&m, &m.entry(), None);
    assert_eq!(out.output_vertices_uniform, None);
    assert!(
        out.source
            .contains("uint(gl_PrimitiveID) * uint(N) + uint(gl_InvocationID)"),
        "{}",
        out.source
    );
}

#[test]
fn debug_varyings_get_locations_above_the_apps_when_the_shader_places_its_own() {
    // Separable programs match unlocated varyings by the slots the linker
    // gives them: ours go above a[6] (0..5) and the unlocated `to_gs`.
    let src = "#version 150\n#extension GL_ARB_separate_shader_objects: require\nlayout(location = 0) out vec3 a[6];\nlayout(location = 0, component = 3) out float b[6];\nout vec4 to_gs;\nin vec4 pos;\nvoid main() {\n    a[0] = vec3(0.0);\n    to_gs = pos;\n}\n";
    let m = stage_model(src, Stage::Vertex);
    let s = probe(&m, &m.entry(), None).source;
    assert!(s.contains("layout(location = 7) out vec4 gldbg_value;\nlayout(location = 8) out float gldbg_coverage;\n"), "{s}");
    // Matrices and dvec4 take several locations.
    let src = "#version 410\nlayout(location = 2) out mat3 m3[2];\nlayout(location = 9) out flat dvec4 d;\nvoid main() {\n    m3[0] = mat3(1.0);\n    d = dvec4(1.0);\n}\n";
    let m = stage_model(src, Stage::TessEval);
    let s = probe(&m, &m.entry(), None).source;
    assert!(
        s.contains("layout(location = 11) out vec4 gldbg_value;\n"),
        "{s}"
    );
    // No room above the app's 32 locations: none.
    let src = "#version 140\n#extension GL_ARB_separate_shader_objects: require\nlayout(location = 0) out vec3 a[32];\nvoid main() {\n    a[0] = vec3(1.0);\n}\n";
    let m = stage_model(src, Stage::Vertex);
    let s = probe(&m, &m.entry(), None).source;
    assert!(
        s.contains("\nout vec4 gldbg_value;\nout float gldbg_coverage;\n"),
        "{s}"
    );
    // Geometry: with the stream.
    let src = "#version 410\nlayout(points) in;\nlayout(points, max_vertices = 1) out;\nlayout(stream = 1) out;\nlayout(location = 3) out vec4 c;\nvoid main() {\n    c = vec4(1.0);\n    EmitStreamVertex(1);\n}\n";
    let m = stage_model(src, Stage::Geometry);
    let s = probe(&m, &m.entry(), None).source;
    assert!(s.contains("layout(stream = 0, location = 4) out vec4 gldbg_value;\nlayout(stream = 0, location = 5) out float gldbg_coverage;\nlayout(stream = 0, location = 6) out vec3 gldbg_emission;\n"), "{s}");
    // No explicit locations, or a language without output locations: none.
    let src = "#version 410\nin vec4 pos;\nout vec4 c;\nvoid main() {\n    c = pos;\n}\n";
    let m = stage_model(src, Stage::Vertex);
    assert!(!probe(&m, &m.entry(), None).source.contains("location"));
    let src = "#version 330\nlayout(location = 0) in vec4 pos;\nvoid main() {\n    gl_Position = pos;\n}\n";
    let m = stage_model(src, Stage::Vertex);
    let s = probe(&m, &m.entry(), None).source;
    assert!(
        s.contains("\nout vec4 gldbg_value;\nout float gldbg_coverage;\n"),
        "{s}"
    );
}

#[test]
fn fragment_builtins_the_app_cannot_write_are_not_outputs() {
    // The app has its own unlocated output: a probe reading gl_FragColor
    // must not add an output that takes location 0 before it.
    let src = "#version 120\n#extension GL_EXT_gpu_shader4: require\nout vec4 piglit_fragcolor;\nvoid main() {\n    piglit_fragcolor = vec4(0.0, 1.0, 0.0, 1.0);\n}\n";
    let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
    let pos = m
        .successors(&m.entry(), StepMode::Into)
        .into_iter()
        .next()
        .unwrap_or_else(|| m.entry());
    let out = probe(&m, &pos, Some("gl_FragColor"));
    assert!(
        out.source.contains("\nvec4 gldbg_FragColor;\n"),
        "{}",
        out.source
    );
    assert!(
        !out.source.contains("out vec4 gldbg_FragColor"),
        "{}",
        out.source
    );
    assert_eq!(out.app_outputs, vec!["piglit_fragcolor".to_string()]);
    // A GLSL 1.10 shader referencing neither built-in (another shader of
    // the program writes gl_FragColor): named `varying out`s, not
    // gl_FragData[k].
    let src = "float a[6];\nvoid myfunc();\nvoid main() {\n    myfunc();\n}\n";
    let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
    let out = probe(&m, &m.entry(), Some("gl_FragColor"));
    assert_eq!(out.value, OutputSlot::Named("gldbg_value".into()));
    assert!(
        out.source
            .contains("#extension GL_EXT_gpu_shader4 : require\n"),
        "{}",
        out.source
    );
    assert!(out.source.contains("\nvec4 gldbg_FragColor;\nvarying out vec4 gldbg_value;\nvarying out float gldbg_coverage;\n"), "{}", out.source);
    assert!(!out.source.contains("gl_FragData"), "{}", out.source);
    assert!(out.app_outputs.is_empty());
}
