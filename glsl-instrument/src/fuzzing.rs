//! The never-panic entry point shared by the cargo-fuzz target
//! (`fuzz/fuzz_targets/parse_instrument.rs`) and the seed-corpus replay test
//! (`tests/seeds.rs`): parse → step model → successors → instrument every
//! reached position → decode. Not part of the debugger's API.

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
