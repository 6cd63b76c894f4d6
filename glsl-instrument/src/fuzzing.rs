//! The never-panic entry points shared by the cargo-fuzz targets and the
//! seed-corpus replay tests: `parse_instrument` ([`run_bytes`],
//! `tests/seeds.rs`): parse → step model → successors → instrument every
//! reached position → decode; `print_expr` ([`run_print_bytes`],
//! `tests/print_seeds.rs`): a shader and a `print` expression → parse →
//! type check → layout → instrument the probe → print. Not part of the
//! debugger's API.

use crate::{Position, Probe, Semantics, ShaderModel, Stage, StepMode, decode_type};

/// Stages in the order the first input byte selects them.
const STAGES: [Stage; 6] = [
    Stage::Fragment,
    Stage::Vertex,
    Stage::Geometry,
    Stage::TessControl,
    Stage::TessEval,
    Stage::Compute,
];

/// The first input byte that selects `stage`.
pub fn stage_byte(stage: Stage) -> u8 {
    STAGES.iter().position(|s| *s == stage).unwrap_or(0) as u8
}

/// A fuzz input for `source` as `stage`.
pub fn input(source: &str, stage: Stage) -> Vec<u8> {
    let mut v = vec![stage_byte(stage)];
    v.extend_from_slice(source.as_bytes());
    v
}

/// What one run did (for the replay test's figures).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Figures {
    pub parsed: bool,
    pub positions: usize,
    pub instrumented: usize,
}

/// Fuzz input: first byte = stage (mod 6), the rest = shader source (UTF-8,
/// lossy). Must never panic, whatever the input.
pub fn run_bytes(data: &[u8]) -> Figures {
    let Some((&first, rest)) = data.split_first() else {
        return Figures::default();
    };
    let stage = STAGES[usize::from(first) % STAGES.len()];
    run(&String::from_utf8_lossy(rest), stage)
}

/// Positions per input that [`run`] instruments.
pub const MAX_INSTRUMENTED: usize = 6;

/// Parse `source` and exercise every part of the model on it: successors in
/// all modes from every position reached (at most 24), `steps_on_line`, and
/// `instrument` at 6 of those positions spread over the walk, each with no
/// expression, a malformed expression and the innermost variables in scope
/// (4 probes), under both [`Semantics`].
pub fn run(source: &str, stage: Stage) -> Figures {
    // Kept small: an input's cost is mostly its instrumentations, and a
    // fuzzer at a few inputs a second never gets past its seeds.
    const MAX_POSITIONS: usize = 24;
    const MAX_PROBES: usize = 4;
    let mut f = Figures::default();
    let Ok(model) = ShaderModel::parse(source, stage) else {
        return f;
    };
    f.parsed = true;
    for s in model.steps() {
        let _ = model.steps_on_line(s.line);
    }
    let mut seen: Vec<Position> = vec![model.entry()];
    let mut i = 0;
    while i < seen.len() && seen.len() < MAX_POSITIONS {
        let pos = seen[i].clone();
        for mode in [StepMode::Into, StepMode::Over, StepMode::Out] {
            for next in model.successors(&pos, mode) {
                if seen.len() < MAX_POSITIONS && !seen.contains(&next) {
                    seen.push(next);
                }
            }
        }
        i += 1;
    }
    f.positions = seen.len();
    // Instrument at a few positions spread over the walk; the generated
    // shader is parsed again once (it is large: every store overload).
    let stride = seen.len().div_ceil(MAX_INSTRUMENTED).max(1);
    let mut reparsed = false;
    for pos in seen.iter().step_by(stride) {
        let step = model.step(pos.step);
        let mut exprs: Vec<Option<String>> = vec![None, Some("(".into())];
        exprs.extend(
            step.scope
                .iter()
                .rev()
                .take(MAX_PROBES - 2)
                .map(|v| Some(v.name.clone())),
        );
        for (k, expr) in exprs.into_iter().enumerate() {
            // Both semantics, alternating (the coverage-only probe gets the default).
            let semantics = if k % 2 == 0 {
                Semantics::Equivalent
            } else {
                Semantics::ReportDiscarded
            };
            let probe = Probe {
                position: pos,
                expr: expr.as_deref(),
                semantics,
            };
            if let Ok(out) = model.instrument(&probe) {
                f.instrumented += 1;
                // The generated shader parses again (checked once per input).
                if expr.is_none() && !reparsed {
                    reparsed = true;
                    let again = ShaderModel::parse(&out.source, stage);
                    debug_assert!(again.is_ok(), "{:?}\n{}", again.err(), out.source);
                }
                if let Some(t) = decode_type(17.0) {
                    let _ = t.decode([0.0; 4]);
                }
            }
        }
    }
    f
}

/// Separates the shader from the expression in a `print_expr` input.
pub const PRINT_SEPARATOR: &[u8] = b"\n//print\n";

/// A `print_expr` input: `source` as `stage`, probed with `expr`.
pub fn print_input(source: &str, stage: Stage, expr: &str) -> Vec<u8> {
    let mut v = input(source, stage);
    v.extend_from_slice(PRINT_SEPARATOR);
    v.extend_from_slice(expr.as_bytes());
    v
}

/// What one `print_expr` run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrintFigures {
    pub parsed: bool,
    /// Positions the expression was probed at.
    pub probed: usize,
    /// Probes that gave a debug shader.
    pub instrumented: usize,
    /// Probes refused as a bad expression (parse, type, effect, depth).
    pub refused: usize,
}

/// Fuzz input for `print_expr`: first byte = stage (mod 6), then the
/// shader source up to [`PRINT_SEPARATOR`], then the expression (without
/// a separator, the whole rest is the expression on a fixed shader).
/// Must never panic nor overflow the stack, whatever the input.
pub fn run_print_bytes(data: &[u8]) -> PrintFigures {
    const DEFAULT: &str = "#version 430 core\nuniform float u;\nuniform int k[4];\n\
        layout(std430, binding = 1) buffer B { float b[]; };\nout vec4 color;\n\
        float f(float x) { return x * u; }\nvoid main() {\n    float x = u;\n    int i = k[1];\n\
        color = vec4(f(x), float(i), b[0], 1.0);\n}\n";
    let Some((&first, rest)) = data.split_first() else {
        return PrintFigures::default();
    };
    let stage = STAGES[usize::from(first) % STAGES.len()];
    let split = rest
        .windows(PRINT_SEPARATOR.len())
        .position(|w| w == PRINT_SEPARATOR);
    let (source, expr) = match split {
        Some(i) => (
            String::from_utf8_lossy(&rest[..i]),
            String::from_utf8_lossy(&rest[i + PRINT_SEPARATOR.len()..]),
        ),
        None => (DEFAULT.into(), String::from_utf8_lossy(rest)),
    };
    let stage = if split.is_none() {
        Stage::Fragment
    } else {
        stage
    };
    run_print(&source, stage, &expr)
}

/// Parse `source` and probe `expr` the way `print` does: type, layout,
/// the value probe, the written probe and the end-of-main probe at the
/// last step of `main`, the value probe at its entry. The first debug
/// shader is parsed again (it is large: once per input keeps the fuzzer
/// fast). A 2 MiB stack, as a daemon worker's, is the caller's business.
pub fn run_print(source: &str, stage: Stage, expr: &str) -> PrintFigures {
    let mut f = PrintFigures::default();
    let Ok(model) = ShaderModel::parse(source, stage) else {
        return f;
    };
    f.parsed = true;
    let entry = model.entry();
    let last = model.last_step_of_main().map(|step| Position {
        step,
        ..model.entry()
    });
    let mut reparsed = false;
    let mut tally = |r: Result<crate::Instrumented, crate::InstrumentError>| match r {
        Ok(out) => {
            f.instrumented += 1;
            if !reparsed {
                reparsed = true;
                // The debug shader with the expression printed in it
                // parses again (unless the probe made it too deep).
                let again = ShaderModel::parse(&out.source, stage);
                debug_assert!(
                    again
                        .as_ref()
                        .err()
                        .is_none_or(|e| e.message.contains("too deeply")),
                    "{:?}\n{}",
                    again.err(),
                    out.source
                );
            }
        }
        Err(crate::InstrumentError::BadExpression { .. }) => f.refused += 1,
        Err(_) => {}
    };
    let probe = |position| Probe {
        position,
        expr: Some(expr),
        semantics: Semantics::Equivalent,
    };
    if let Some(pos) = &last {
        let _ = model.expression_type(pos.step, expr);
        let _ = model.value_layout(pos.step, expr);
        tally(model.instrument(&probe(pos)));
        let _ = model.instrument_written(&probe(pos), false);
        if stage == Stage::Vertex {
            tally(model.instrument_vertex_buffer(&probe(pos), true));
        }
    }
    tally(model.instrument(&probe(&entry)));
    tally(model.instrument_end_of_main(&probe(&entry)));
    f.probed = 2;
    f
}
