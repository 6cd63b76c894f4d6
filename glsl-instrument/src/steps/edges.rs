//! Static flow targets: the successors of each step of a function body
//! from its control structure (`Ir`), loops counted by `Target::keep`.

use super::{Builder, Ir, LoopKind, Target};
use crate::StepKind;

impl Builder<'_> {
    fn set_succ(&mut self, step: u32, targets: Vec<Target>) {
        let mut out: Vec<Target> = Vec::new();
        for t in targets {
            if t != Target::Nowhere && !out.contains(&t) {
                out.push(t);
            }
        }
        self.model.info[step as usize].succ = out;
    }

    /// Fill the static successors of the steps in `ir`, whose statements
    /// sit inside `depth` loops; `follow` is where control goes after `ir`,
    /// `brk`/`cont` where `break`/`continue` go.
    pub(super) fn flow(
        &mut self,
        ir: &Ir,
        depth: u32,
        follow: Target,
        brk: Option<Target>,
        cont: Option<Target>,
    ) {
        match ir {
            Ir::Step(s) => {
                let kind = self.model.steps[*s as usize].kind;
                let targets = match kind {
                    StepKind::Break => brk.into_iter().collect(),
                    StepKind::Continue => cont.into_iter().collect(),
                    StepKind::Return => vec![Target::Return],
                    StepKind::Discard => vec![],
                    _ => vec![follow],
                };
                self.set_succ(*s, targets);
                let jump = matches!(
                    kind,
                    StepKind::Break | StepKind::Continue | StepKind::Return | StepKind::Discard
                );
                self.model.info[*s as usize].resume =
                    (jump && follow != Target::Nowhere).then_some(follow);
            }
            Ir::Block(v) => self.flow_seq(v, depth, follow, brk, cont),
            Ir::If { cond, then, els } => {
                let t = entry(then, depth, follow);
                let e = els.as_ref().map_or(follow, |e| entry(e, depth, follow));
                self.set_succ(*cond, vec![t, e]);
                self.flow(then, depth, follow, brk, cont);
                if let Some(e) = els {
                    self.flow(e, depth, follow, brk, cont);
                }
            }
            Ir::Switch {
                head,
                body,
                labels,
                has_default,
            } => {
                let mut targets: Vec<Target> = labels
                    .iter()
                    .map(|&i| entry_seq(&body[i + 1..], depth, follow))
                    .collect();
                if !has_default {
                    targets.push(follow);
                }
                self.set_succ(*head, targets);
                self.flow_seq(body, depth, follow, Some(follow), cont);
            }
            Ir::Loop {
                kind,
                init,
                cond,
                inc,
                body,
            } => self.flow_loop(*kind, [*init, *cond, *inc], body, depth, follow),
            Ir::Label | Ir::Empty => {}
        }
    }

    /// [`Builder::flow`] of a loop (`parts`: its init, condition and
    /// increment steps) whose statement sits inside `depth` loops.
    fn flow_loop(
        &mut self,
        kind: LoopKind,
        parts: [Option<u32>; 3],
        body: &Ir,
        depth: u32,
        follow: Target,
    ) {
        let [init, cond, inc] = parts;
        let (init, cond, inc) = (&init, &cond, &inc);
        let inner = depth + 1;
        let exit = follow;
        let at = |s: u32, keep: u32| Target::Step {
            step: s,
            keep,
            advance: false,
        };
        match kind {
            LoopKind::For => {
                // The next iteration starts at the condition, or
                // without one directly in the body.
                let next_iter = match cond {
                    Some(c) => Target::Step {
                        step: *c,
                        keep: inner,
                        advance: true,
                    },
                    None => advance(
                        entry(body, inner, inc.map_or(Target::Nowhere, |i| at(i, inner))),
                        inner,
                    ),
                };
                let after_body = inc.map_or(next_iter, |i| at(i, inner));
                if let Some(i) = init {
                    let first = match cond {
                        Some(c) => at(*c, depth),
                        None => entry(body, depth, inc.map_or(Target::Nowhere, |i| at(i, depth))),
                    };
                    self.set_succ(*i, vec![first]);
                }
                if let Some(c) = cond {
                    self.set_succ(*c, vec![entry(body, inner, after_body), exit]);
                }
                if let Some(i) = inc {
                    self.set_succ(*i, vec![next_iter]);
                }
                self.flow(body, inner, after_body, Some(exit), Some(after_body));
            }
            LoopKind::While => {
                let Some(c) = *cond else { return };
                let next = Target::Step {
                    step: c,
                    keep: inner,
                    advance: true,
                };
                self.set_succ(c, vec![entry(body, inner, next), exit]);
                self.flow(body, inner, next, Some(exit), Some(next));
            }
            LoopKind::Do => {
                let Some(c) = *cond else { return };
                let at_cond = at(c, inner);
                let next = advance(entry(body, inner, at_cond), inner);
                self.set_succ(c, vec![next, exit]);
                self.flow(body, inner, at_cond, Some(exit), Some(at_cond));
            }
        }
    }

    fn flow_seq(
        &mut self,
        v: &[Ir],
        depth: u32,
        follow: Target,
        brk: Option<Target>,
        cont: Option<Target>,
    ) {
        for i in 0..v.len() {
            let next = entry_seq(&v[i + 1..], depth, follow);
            self.flow(&v[i], depth, next, brk, cont);
        }
    }
}

/// Entering a loop's next iteration: count one more on the loop kept last.
pub(super) fn advance(t: Target, inner: u32) -> Target {
    match t {
        Target::Step { step, keep, .. } if keep == inner => Target::Step {
            step,
            keep,
            advance: true,
        },
        t => t,
    }
}

/// The first step executed by `ir`, if it has one (`keep`: see Target).
pub(super) fn entry_opt(ir: &Ir, keep: u32) -> Option<Target> {
    let at = |s: u32| Target::Step {
        step: s,
        keep,
        advance: false,
    };
    match ir {
        Ir::Step(s) => Some(at(*s)),
        Ir::Block(v) => v.iter().find_map(|n| entry_opt(n, keep)),
        Ir::If { cond, .. } => Some(at(*cond)),
        Ir::Switch { head, .. } => Some(at(*head)),
        Ir::Loop {
            kind,
            init,
            cond,
            inc,
            body,
        } => match kind {
            LoopKind::For => init
                .or(*cond)
                .map(at)
                .or_else(|| entry_opt(body, keep))
                .or_else(|| inc.map(at))
                .or(Some(Target::Nowhere)),
            LoopKind::While => cond.map(at),
            LoopKind::Do => entry_opt(body, keep).or_else(|| cond.map(at)),
        },
        Ir::Label | Ir::Empty => None,
    }
}

pub(super) fn entry(ir: &Ir, keep: u32, follow: Target) -> Target {
    entry_opt(ir, keep).unwrap_or(follow)
}

pub(super) fn entry_seq(v: &[Ir], keep: u32, follow: Target) -> Target {
    v.iter().find_map(|n| entry_opt(n, keep)).unwrap_or(follow)
}
