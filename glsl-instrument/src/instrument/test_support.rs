//! Helpers of the crate's unit tests: models, probes, reachable positions
//! (the instrumenter's), and the per-stage test shaders the trace and the
//! locals summary tests share.

use std::collections::HashSet;

use crate::{Instrumented, Position, Probe, Semantics, ShaderModel, Stage, StepMode};

pub(crate) fn model(src: &str) -> ShaderModel {
    ShaderModel::parse(src, Stage::Fragment).unwrap()
}

pub(crate) fn probe(m: &ShaderModel, pos: &Position, expr: Option<&str>) -> Instrumented {
    let out = m
        .instrument(&Probe {
            position: pos,
            expr,
            semantics: Semantics::Equivalent,
        })
        .unwrap();
    if let Err(e) = crate::parse::parse_shader(&out.source) {
        panic!("generated shader does not parse: {e}\n{}", out.source);
    }
    out
}

/// Positions reachable from the entry (iterations capped at 2).
pub(crate) fn reachable(m: &ShaderModel) -> Vec<Position> {
    reachable_up_to(m, 300)
}

/// Positions reachable from the entry (iterations capped at 2), stopping
/// once more than `most` are found.
pub(crate) fn reachable_up_to(m: &ShaderModel, most: usize) -> Vec<Position> {
    let mut seen = HashSet::new();
    let mut todo = vec![m.entry()];
    let mut out = Vec::new();
    while let Some(p) = todo.pop() {
        if p.iterations.iter().any(|&i| i > 2) || !seen.insert(p.clone()) || out.len() > most {
            continue;
        }
        todo.extend(m.successors(&p, StepMode::Into));
        out.push(p);
    }
    out
}

pub(crate) fn stage_model(src: &str, stage: Stage) -> ShaderModel {
    ShaderModel::parse(src, stage).unwrap()
}

/// Every reachable position of `m`, with and without a value: parses again.
pub(crate) fn every_position(m: &ShaderModel) -> Vec<Instrumented> {
    let positions = reachable(m);
    assert!(positions.len() >= 3);
    let mut outs = Vec::new();
    for pos in positions {
        let expr = m.step(pos.step).scope.last().map(|v| v.name.clone());
        outs.push(probe(m, &pos, expr.as_deref()));
        outs.push(probe(m, &pos, None));
    }
    outs
}

/// A user function with in/out/inout parameters, nested loops, a local
/// without initialiser, a struct and an array local, and a `return` in
/// `main`; `head` and `out` are per stage, `more_locals` (empty, or lines
/// each starting with a newline) follows the array local.
fn shader(head: &str, out: &str, more_locals: &str) -> String {
    format!(
        "{head}
struct Pair {{ float a; vec2 b; }};
uniform float scale;
float g_acc;
void accumulate(in float x, out float y, inout vec2 z) {{
    y = x * 2.0;
    z.y += y;
    z[0] = 1.0;
}}
void main() {{
    float acc;
    Pair p = Pair(1.0, vec2(2.0));
    float arr[3];{more_locals}
    arr[1] = 4.0;
    for (int i = 0; i < 2; i++) {{
        for (int j = 0; j < 2; ++j) {{
            float y;
            accumulate(float(i + j), y, p.b);
            acc = y;
        }}
    }}
    g_acc = acc * scale;
    if (acc > 100.0) {{
        return;
    }}
    {out}
}}
"
    )
}

/// [`shader`] for each stage, in the order fragment, vertex, geometry,
/// tessellation control, tessellation evaluation, compute.
pub(crate) fn stage_shaders(more_locals: &str) -> Vec<(Stage, String)> {
    let geometry = "#version 430\nlayout(points) in;\nlayout(points, max_vertices = 2) out;";
    let compute =
        "#version 430\nlayout(local_size_x = 4) in;\nlayout(std430) buffer O { float o[]; };";
    [
        (
            Stage::Fragment,
            "#version 430\nout vec4 color;",
            "color = vec4(acc);",
        ),
        (
            Stage::Vertex,
            "#version 430\nin vec4 pos;",
            "gl_Position = pos * acc;",
        ),
        (
            Stage::Geometry,
            geometry,
            "for (int k = 0; k < 2; k++) { gl_Position = vec4(acc); EmitVertex(); }",
        ),
        (
            Stage::TessControl,
            "#version 430\nlayout(vertices = 1) out;",
            "gl_TessLevelOuter[0] = acc;",
        ),
        (
            Stage::TessEval,
            "#version 430\nlayout(triangles) in;",
            "gl_Position = vec4(acc);",
        ),
        (Stage::Compute, compute, "o[gl_GlobalInvocationID.x] = acc;"),
    ]
    .into_iter()
    .map(|(stage, head, out)| (stage, shader(head, out, more_locals)))
    .collect()
}
