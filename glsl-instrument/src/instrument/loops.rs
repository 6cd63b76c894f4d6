//! Loop guards: a counter per loop enclosing the probe's chain (reset to
//! -1 before the loop, ticked at each condition evaluation of `for`/`while`
//! and at each body start of `do`), and the guard of the write that
//! compares them with the loop path uniform.

use glsl_lang::ast;

use super::build::{
    and, assign, boolean, comma, compound, eq, expr_stmt, float, index, int, internal, post_inc,
    prepend_to_condition, var,
};
use super::position::{insert_before, stmt_at};
use crate::InstrumentError;
use crate::parse::Names;
use crate::steps::StepInfo;

/// Count the iterations of the loops enclosing the step, innermost first
/// (so the paths of outer loops stay valid while inner ones are edited).
pub(super) fn count_loops(
    body: &mut ast::CompoundStatement,
    info: &StepInfo,
    counters: &[String],
) -> Result<(), InstrumentError> {
    use ast::IterationStatementData as It;
    for (j, &len) in info.loops.iter().enumerate().rev() {
        let counter = counters.get(j).ok_or_else(|| internal("counter missing"))?;
        let path = &info.path[..len.min(info.path.len())];
        let stmt = stmt_at(body, path).ok_or_else(|| internal("loop not found"))?;
        let tick = post_inc(var(counter));
        let ast::StatementData::Iteration(it) = &mut stmt.content else {
            return Err(internal("not a loop"));
        };
        match &mut it.content {
            It::For(_, rest, _) => match &mut rest.condition {
                Some(c) => prepend_to_condition(c, tick),
                None => {
                    rest.condition =
                        Some(ast::ConditionData::Expr(comma(tick, boolean(true))).into())
                }
            },
            It::While(c, _) => prepend_to_condition(c, tick),
            It::DoWhile(b, _) => match &mut b.content {
                ast::StatementData::Compound(c) => c.statement_list.insert(0, expr_stmt(tick)),
                _ => {
                    let old = std::mem::replace(&mut **b, compound(Vec::new()));
                    **b = compound(vec![expr_stmt(tick), old]);
                }
            },
        }
        insert_before(body, path, vec![expr_stmt(assign(var(counter), int(-1)))])?;
    }
    Ok(())
}

/// One counter name per enclosing loop, outermost first.
pub(super) fn counter_names(loops: usize, names: &mut Names) -> Vec<String> {
    (0..loops)
        .map(|j| names.fresh(&format!("gldbg_iter{j}")))
        .collect()
}

/// The guard of the write: every counter at its iteration of the path,
/// and no value written yet (`coverage == 0.0`).
pub(super) fn guard(counters: &[String], path: Option<&str>, coverage: &str) -> ast::Expr {
    let mut guard: Option<ast::Expr> = None;
    for (j, c) in counters.iter().enumerate() {
        let test = eq(var(c), index(var(path.unwrap_or_default()), j as i32));
        guard = Some(match guard {
            Some(g) => and(g, test),
            None => test,
        });
    }
    let first_hit = eq(var(coverage), float(0.0));
    match guard {
        Some(g) => and(g, first_hit),
        None => first_hit,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::parse::expr_text;

    #[test]
    fn the_guard_compares_every_counter_with_the_path() {
        let idents: HashSet<String> = ["gldbg_iter1".to_string()].into();
        let mut names = Names::new(&idents);
        let counters = counter_names(2, &mut names);
        assert_eq!(counters, ["gldbg_iter0", "gldbg_iter1_1"]);
        let g = guard(&counters, Some("P"), "C");
        assert_eq!(
            expr_text(&g),
            "gldbg_iter0 == P[0] && gldbg_iter1_1 == P[1] && C == 0."
        );
        assert_eq!(expr_text(&guard(&[], None, "C")), "C == 0.");
    }

    #[test]
    fn counters_tick_at_each_condition_and_reset_before_the_loop() {
        use crate::test_shaders::LOOP_BRANCH;
        use crate::{ShaderModel, Stage, StepKind};
        let m = ShaderModel::parse(LOOP_BRANCH, Stage::Fragment).unwrap();
        let step = m
            .steps()
            .iter()
            .find(|s| s.kind == StepKind::IfCondition)
            .unwrap();
        let info = &m.model.info[step.id.0 as usize];
        let mut tu = m.tu.0.clone();
        let ast::ExternalDeclarationData::FunctionDefinition(def) =
            &mut tu[m.model.functions[info.func].decl].content
        else {
            panic!("not a function");
        };
        count_loops(&mut def.statement, info, &["K".to_string()]).unwrap();
        let text = crate::parse::print_tu(&tu);
        assert!(text.contains("K = -1;"), "{text}");
        assert!(text.contains("for (int i = 0; K++, i < n; i++)"), "{text}");
    }
}
