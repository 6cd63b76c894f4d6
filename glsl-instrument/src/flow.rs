//! Dynamic successors: turns the static flow targets of a step (steps.rs)
//! into candidate next `Position`s, with the call chain and the loop
//! iteration counts carried along, stepping into, over or out of calls.

use crate::steps::{Model, Target};
use crate::{Position, StepId, StepMode};

impl Model {
    /// Loop depth of a step, or None if the id is unknown.
    fn depth(&self, step: StepId) -> Option<usize> {
        self.steps
            .get(step.0 as usize)
            .map(|s| s.loop_depth as usize)
    }

    /// Number of iteration entries that belong to the callers of `pos`'s
    /// function, or None if `pos` is malformed.
    fn caller_loops(&self, pos: &Position) -> Option<usize> {
        pos.iterations.len().checked_sub(self.depth(pos.step)?)
    }

    pub(crate) fn successors(&self, pos: &Position, mode: StepMode) -> Vec<Position> {
        let mut out = Vec::new();
        if self.caller_loops(pos).is_none() {
            return out;
        }
        match mode {
            StepMode::Into => {
                self.callee_entries(pos, 0, &mut out);
                self.static_next(pos, true, &mut out);
            }
            StepMode::Over => self.static_next(pos, false, &mut out),
            StepMode::Out => self.after_return(pos, false, &mut out),
        }
        let mut unique: Vec<Position> = Vec::with_capacity(out.len());
        for p in out {
            if !unique.contains(&p) {
                unique.push(p);
            }
        }
        unique
    }

    /// First steps of the callees of `pos`'s step, from call index `from` on.
    fn callee_entries(&self, pos: &Position, from: usize, out: &mut Vec<Position>) {
        let Some(info) = self.info.get(pos.step.0 as usize) else {
            return;
        };
        for (j, target) in info.call_targets.iter().enumerate().skip(from) {
            let Some(f) = target else { continue };
            let Target::Step { step, .. } = self.functions[*f].entry else {
                continue;
            };
            let mut iterations = pos.iterations.clone();
            iterations.resize(
                iterations.len() + self.steps[step as usize].loop_depth as usize,
                0,
            );
            let mut calls = pos.calls.clone();
            calls.push((pos.step, j as u32));
            out.push(Position {
                step: StepId(step),
                calls,
                iterations,
            });
        }
    }

    /// The step's own successors in its function (a `Return` target leads
    /// back into the caller); for a jump, where the invocations that did
    /// not jump go on comes first.
    fn static_next(&self, pos: &Position, into: bool, out: &mut Vec<Position>) {
        let (Some(info), Some(base)) = (self.info.get(pos.step.0 as usize), self.caller_loops(pos))
        else {
            return;
        };
        for t in info.resume.iter().chain(&info.succ) {
            match *t {
                Target::Step {
                    step,
                    keep,
                    advance,
                } => {
                    let keep = (keep as usize).min(pos.iterations.len() - base);
                    let mut iterations = pos.iterations[..base + keep].to_vec();
                    if advance && keep > 0 {
                        iterations[base + keep - 1] += 1;
                    }
                    iterations.resize(base + self.steps[step as usize].loop_depth as usize, 0);
                    out.push(Position {
                        step: StepId(step),
                        calls: pos.calls.clone(),
                        iterations,
                    });
                }
                Target::Return => self.after_return(pos, into, out),
                Target::Nowhere => {}
            }
        }
    }

    /// Where control goes when `pos`'s function returns: after the call
    /// site in the caller (into the call site's next callee first when
    /// stepping into calls). Nothing when `pos` is in `main`.
    fn after_return(&self, pos: &Position, into: bool, out: &mut Vec<Position>) {
        let Some((&(site, index), rest)) = pos.calls.split_last() else {
            return;
        };
        let Some(base) = self.caller_loops(pos) else {
            return;
        };
        let caller = Position {
            step: site,
            calls: rest.to_vec(),
            iterations: pos.iterations[..base].to_vec(),
        };
        if self.caller_loops(&caller).is_none() {
            return;
        }
        if into {
            self.callee_entries(&caller, index as usize + 1, out);
        }
        self.static_next(&caller, into, out);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use crate::test_shaders::LOOP_BRANCH;
    use crate::{Position, ShaderModel, Stage, StepId, StepMode};

    fn p(step: u32, calls: &[(u32, u32)], iterations: &[u32]) -> Position {
        Position {
            step: StepId(step),
            calls: calls.iter().map(|&(s, k)| (StepId(s), k)).collect(),
            iterations: iterations.to_vec(),
        }
    }

    fn model(src: &str) -> ShaderModel {
        ShaderModel::parse(src, Stage::Fragment).unwrap()
    }

    #[test]
    fn successors_through_if_loop_call_and_return() {
        let m = model(LOOP_BRANCH);
        let c = &[(9, 0)];
        assert_eq!(m.entry(), p(8, &[], &[]));
        assert_eq!(
            m.successors(&p(8, &[], &[]), StepMode::Into),
            vec![p(9, &[], &[])]
        );
        // Into the call first, then over it.
        assert_eq!(
            m.successors(&p(9, &[], &[]), StepMode::Into),
            vec![p(0, c, &[]), p(10, &[], &[])]
        );
        assert_eq!(
            m.successors(&p(9, &[], &[]), StepMode::Over),
            vec![p(10, &[], &[])]
        );
        assert_eq!(
            m.successors(&p(0, c, &[]), StepMode::Into),
            vec![p(1, c, &[])]
        );
        // Loop init enters the loop at iteration 0.
        assert_eq!(
            m.successors(&p(1, c, &[]), StepMode::Over),
            vec![p(2, c, &[0])]
        );
        // Condition: body at the same iteration, or the exit.
        assert_eq!(
            m.successors(&p(2, c, &[3]), StepMode::Over),
            vec![p(4, c, &[3]), p(7, c, &[])]
        );
        // if: then-branch, else-branch.
        assert_eq!(
            m.successors(&p(4, c, &[3]), StepMode::Over),
            vec![p(5, c, &[3]), p(6, c, &[3])]
        );
        // End of the body: the increment, same iteration; then the condition, next one.
        assert_eq!(
            m.successors(&p(5, c, &[3]), StepMode::Over),
            vec![p(3, c, &[3])]
        );
        assert_eq!(
            m.successors(&p(6, c, &[3]), StepMode::Over),
            vec![p(3, c, &[3])]
        );
        assert_eq!(
            m.successors(&p(3, c, &[3]), StepMode::Over),
            vec![p(2, c, &[4])]
        );
        // Return: back in main after the call site.
        assert_eq!(
            m.successors(&p(7, c, &[]), StepMode::Into),
            vec![p(10, &[], &[])]
        );
        // Out of shade from anywhere in it.
        assert_eq!(
            m.successors(&p(5, c, &[1]), StepMode::Out),
            vec![p(10, &[], &[])]
        );
        // The end of main, and out of main.
        assert!(m.successors(&p(10, &[], &[]), StepMode::Into).is_empty());
        assert!(m.successors(&p(9, &[], &[]), StepMode::Out).is_empty());
        // Malformed positions give nothing.
        assert!(m.successors(&p(99, &[], &[]), StepMode::Into).is_empty());
        assert!(m.successors(&p(5, c, &[]), StepMode::Into).is_empty());
    }

    pub(crate) const FLOW: &str = "#version 330 core
out vec4 o;
float f(float x) { return x * 2.0; }
float g(float x) { if (x > 0.0) { return 1.0; } return f(x); }
void main() {
    float a = 0.0;
    for (int i = 0; i < 2; i++) {
        int j = 0;
        while (j < 3) {
            if (j == 1) { j++; continue; }
            if (a > 9.0) break;
            j++;
        }
    }
    do {
        a -= 1.0;
    } while (a > 0.0);
    a = f(a) + g(a);
    if (a > 0.0) {
    } else {
    }
    for (;;) { break; }
    o = vec4(a);
}
";

    #[test]
    fn successors_of_nested_loops_jumps_and_empty_blocks() {
        let m = model(FLOW);
        let id = |line: u32, n: usize| m.steps_on_line(line)[n].0;
        let (for_cond, for_inc, decl_j, while_cond) = (id(7, 1), id(7, 2), id(8, 0), id(9, 0));
        let (if_j, j_inc_cont, cont, if_a, brk, j_inc) = (
            id(10, 0),
            id(10, 1),
            id(10, 2),
            id(11, 0),
            id(11, 1),
            id(12, 0),
        );
        let (do_body, do_cond, call_line, if_empty, for_ever_brk, last) = (
            id(16, 0),
            id(17, 0),
            id(18, 0),
            id(19, 0),
            id(22, 0),
            id(23, 0),
        );
        // Outer condition at iteration 1: body (declaration of j) or exit to the do body.
        assert_eq!(
            m.successors(&p(for_cond, &[], &[1]), StepMode::Over),
            vec![p(decl_j, &[], &[1]), p(do_body, &[], &[0])]
        );
        // Entering the inner while from the outer body starts it at iteration 0.
        assert_eq!(
            m.successors(&p(decl_j, &[], &[1]), StepMode::Over),
            vec![p(while_cond, &[], &[1, 0])]
        );
        assert_eq!(
            m.successors(&p(while_cond, &[], &[1, 2]), StepMode::Over),
            vec![p(if_j, &[], &[1, 2]), p(for_inc, &[], &[1])]
        );
        assert_eq!(
            m.successors(&p(if_j, &[], &[1, 2]), StepMode::Over),
            vec![p(j_inc_cont, &[], &[1, 2]), p(if_a, &[], &[1, 2])]
        );
        // continue: first where the invocations that did not take it go on
        // (the next statement, same iteration), then the condition, next
        // iteration; the end of a while body: the condition.
        assert_eq!(
            m.successors(&p(cont, &[], &[1, 2]), StepMode::Over),
            vec![p(if_a, &[], &[1, 2]), p(while_cond, &[], &[1, 3])]
        );
        assert_eq!(
            m.successors(&p(j_inc, &[], &[1, 2]), StepMode::Over),
            vec![p(while_cond, &[], &[1, 3])]
        );
        // break leaves the inner loop only (after the others' next statement).
        assert_eq!(
            m.successors(&p(brk, &[], &[0, 1]), StepMode::Over),
            vec![p(j_inc, &[], &[0, 1]), p(for_inc, &[], &[0])]
        );
        // do-while: body n then condition n; condition -> body n+1 or exit.
        assert_eq!(
            m.successors(&p(do_body, &[], &[4]), StepMode::Over),
            vec![p(do_cond, &[], &[4])]
        );
        assert_eq!(
            m.successors(&p(do_cond, &[], &[4]), StepMode::Over),
            vec![p(do_body, &[], &[5]), p(call_line, &[], &[])]
        );
        // Two calls on one step: into the first; its end goes into the second.
        let f_ret = id(3, 0);
        let g_if = id(4, 0);
        assert_eq!(
            m.successors(&p(call_line, &[], &[]), StepMode::Into),
            vec![
                p(f_ret, &[(call_line, 0)], &[]),
                p(g_if, &[(call_line, 1)], &[]),
                p(if_empty, &[], &[])
            ]
        );
        assert_eq!(
            m.successors(&p(f_ret, &[(call_line, 0)], &[]), StepMode::Into),
            vec![p(g_if, &[(call_line, 1)], &[]), p(if_empty, &[], &[])]
        );
        assert_eq!(
            m.successors(&p(f_ret, &[(call_line, 0)], &[]), StepMode::Over),
            vec![p(if_empty, &[], &[])]
        );
        // A nested call chain: g's `return f(x)` steps into f; f's return goes back to main.
        let g_ret_f = id(4, 2);
        let chain = &[(call_line, 1), (g_ret_f, 0)];
        assert_eq!(
            m.successors(&p(g_ret_f, &[(call_line, 1)], &[]), StepMode::Into)[0],
            p(f_ret, chain, &[])
        );
        assert_eq!(
            m.successors(&p(f_ret, chain, &[]), StepMode::Over),
            vec![p(if_empty, &[], &[])]
        );
        // Empty then and else blocks both continue after the if (one candidate).
        let for_ever = for_ever_brk;
        assert_eq!(
            m.successors(&p(if_empty, &[], &[]), StepMode::Over),
            vec![p(for_ever, &[], &[0])]
        );
        // A for(;;) without condition: its body at iteration 0; break leaves
        // it (after the next iteration of those that did not break).
        assert_eq!(
            m.successors(&p(for_ever, &[], &[0]), StepMode::Over),
            vec![p(for_ever, &[], &[1]), p(last, &[], &[])]
        );
    }
}
