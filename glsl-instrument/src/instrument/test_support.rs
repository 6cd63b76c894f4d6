//! Helpers of the instrumenter's tests: models, probes, reachable positions.

use std::collections::HashSet;

use crate::{Instrumented, Position, Probe, Semantics, ShaderModel, Stage, StepMode};

pub(super) fn model(src: &str) -> ShaderModel {
    ShaderModel::parse(src, Stage::Fragment).unwrap()
}

pub(super) fn probe(m: &ShaderModel, pos: &Position, expr: Option<&str>) -> Instrumented {
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
pub(super) fn reachable(m: &ShaderModel) -> Vec<Position> {
    let mut seen = HashSet::new();
    let mut todo = vec![m.entry()];
    let mut out = Vec::new();
    while let Some(p) = todo.pop() {
        if p.iterations.iter().any(|&i| i > 2) || !seen.insert(p.clone()) || out.len() > 300 {
            continue;
        }
        todo.extend(m.successors(&p, StepMode::Into));
        out.push(p);
    }
    out
}

pub(super) fn stage_model(src: &str, stage: Stage) -> ShaderModel {
    ShaderModel::parse(src, stage).unwrap()
}

/// Every reachable position of `m`, with and without a value: parses again.
pub(super) fn every_position(m: &ShaderModel) -> Vec<Instrumented> {
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
