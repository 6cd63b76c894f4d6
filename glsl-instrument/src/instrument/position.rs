//! Position tracking: the chain of activations from `main` to the probed
//! step (which call of which step leads on, how many loops enclose it) and
//! the statement of a step found again by its path, where the debug write
//! goes in front of it.

use glsl_lang::ast;

use super::At;
use super::build::{
    and, boolean, comma, compound, expr_stmt, if_stmt, internal, prepend_to_condition, wrap_expr,
};
use crate::steps::{Part, PathElem, StepInfo};
use crate::{InstrumentError, Position, ShaderModel, StepId, StepKind};

// ---------------------------------------------------------------------------
// Finding steps again by path.

pub(crate) fn child(s: &mut ast::Statement, e: PathElem) -> Option<&mut ast::Statement> {
    use ast::StatementData as S;
    match (&mut s.content, e) {
        (S::Compound(c), PathElem::Index(i)) => c.statement_list.get_mut(i),
        (S::Switch(sw), PathElem::Index(i)) => sw.body.get_mut(i),
        (S::Selection(sel), PathElem::Then) => match &mut sel.rest.content {
            ast::SelectionRestStatementData::Statement(t)
            | ast::SelectionRestStatementData::Else(t, _) => Some(t),
        },
        (S::Selection(sel), PathElem::Else) => match &mut sel.rest.content {
            ast::SelectionRestStatementData::Else(_, e) => Some(e),
            ast::SelectionRestStatementData::Statement(_) => None,
        },
        (S::Iteration(it), PathElem::Body) => match &mut it.content {
            ast::IterationStatementData::While(_, b)
            | ast::IterationStatementData::DoWhile(b, _)
            | ast::IterationStatementData::For(_, _, b) => Some(b),
        },
        _ => None,
    }
}

pub(crate) fn stmt_at<'a>(
    body: &'a mut ast::CompoundStatement,
    path: &[PathElem],
) -> Option<&'a mut ast::Statement> {
    let (PathElem::Index(first), rest) = path.split_first()? else {
        return None;
    };
    let mut cur = body.statement_list.get_mut(*first)?;
    for e in rest {
        cur = child(cur, *e)?;
    }
    Some(cur)
}

/// Insert `new` right before the statement at `path`; a statement that is
/// not in a list (a lone branch or loop body) becomes `{ new...; stmt }`.
pub(crate) fn insert_before(
    body: &mut ast::CompoundStatement,
    path: &[PathElem],
    new: Vec<ast::Statement>,
) -> Result<(), InstrumentError> {
    let bad = || internal("statement path not found");
    match path.split_last() {
        Some((PathElem::Index(i), parent)) => {
            let list = if parent.is_empty() {
                &mut body.statement_list
            } else {
                match &mut stmt_at(body, parent).ok_or_else(bad)?.content {
                    ast::StatementData::Compound(c) => &mut c.statement_list,
                    ast::StatementData::Switch(sw) => &mut sw.body,
                    _ => return Err(bad()),
                }
            };
            if *i > list.len() {
                return Err(bad());
            }
            list.splice(*i..*i, new);
            Ok(())
        }
        Some(_) => {
            let s = stmt_at(body, path).ok_or_else(bad)?;
            let old = std::mem::replace(s, compound(Vec::new()));
            let mut list = new;
            list.push(old);
            *s = compound(list);
            Ok(())
        }
        None => Err(bad()),
    }
}

/// Put the guarded debug write in front of the step.
pub(crate) fn write_at(
    body: &mut ast::CompoundStatement,
    info: &StepInfo,
    guard: &ast::Expr,
    write: &ast::Expr,
) -> Result<(), InstrumentError> {
    use ast::IterationStatementData as It;
    use ast::StatementData as S;
    if matches!(info.part, Part::Whole | Part::ForInit) {
        let stmt = if_stmt(guard.clone(), compound(vec![expr_stmt(write.clone())]));
        return insert_before(body, &info.path, vec![stmt]);
    }
    // `guard && (write, true)`: evaluated for its side effect only.
    let g = and(guard.clone(), comma(write.clone(), boolean(true)));
    let stmt = stmt_at(body, &info.path).ok_or_else(|| internal("step not found"))?;
    match (info.part, &mut stmt.content) {
        (Part::IfCond, S::Selection(sel)) => wrap_expr(&mut sel.cond, |e| comma(g, e)),
        (Part::SwitchHead, S::Switch(sw)) => wrap_expr(&mut sw.head, |e| comma(g, e)),
        (Part::LoopCond, S::Iteration(it)) => match &mut it.content {
            It::For(_, rest, _) => match &mut rest.condition {
                Some(c) => prepend_to_condition(c, g),
                None => return Err(internal("loop without condition")),
            },
            It::While(c, _) => prepend_to_condition(c, g),
            It::DoWhile(_, e) => wrap_expr(e, |e| comma(g, e)),
        },
        (Part::ForInc, S::Iteration(it)) => match &mut it.content {
            It::For(_, rest, _) => match &mut rest.post_expr {
                Some(e) => wrap_expr(e, |e| comma(g, e)),
                None => return Err(internal("loop without increment")),
            },
            _ => return Err(internal("increment of a non-for loop")),
        },
        _ => return Err(internal("step kind does not match its statement")),
    }
    Ok(())
}

/// One function activation on the chain: the step in it (call site or
/// target) and, for call sites, which call leads on.
pub(super) struct Frame {
    /// Index into the model's functions.
    pub func: usize,
    /// Index into the model's steps.
    pub step: usize,
    pub call: Option<u32>,
}

/// Where the debug write goes: the frames from `main` (first) to the
/// function of the step (last), and the loops enclosing it.
pub(super) struct Chain {
    /// The probed position (at the end of `main`: its last step).
    pub position: Position,
    pub frames: Vec<Frame>,
    /// Index of the probed step.
    pub target: usize,
    /// Loops enclosing the write over the whole chain (none at the end of `main`).
    pub total_loops: usize,
}

/// The chain of `position` (not used at the end of `main`), checked against
/// the model: every call site calls a user function in the frame before,
/// and the iterations match the loops.
pub(super) fn resolve(
    m: &ShaderModel,
    position: &Position,
    at: At,
) -> Result<Chain, InstrumentError> {
    let model = &m.model;
    let pos = match at {
        At::EndOfMain => {
            let step = last_main_step(m)
                .ok_or_else(|| InstrumentError::Unsupported("`main` has no steps".into()))?;
            Position {
                step,
                calls: Vec::new(),
                iterations: vec![0; model.info[step.0 as usize].loops.len()],
            }
        }
        At::Step => position.clone(),
    };
    let known = |s: StepId| {
        if (s.0 as usize) < model.steps.len() {
            Ok(s.0 as usize)
        } else {
            Err(InstrumentError::NoSuchStep(s.0))
        }
    };
    let target = known(pos.step)?;
    let mut func = model
        .main
        .ok_or_else(|| InstrumentError::Unsupported("the shader has no main function".into()))?;
    let mut frames = Vec::new();
    let mut total_loops = 0usize;
    for &(site, k) in &pos.calls {
        let site = known(site)?;
        let info = &model.info[site];
        if info.func != func {
            return Err(InstrumentError::Unsupported(format!(
                "call site step {site} is not in function `{}`",
                model.functions[func].name
            )));
        }
        let callee = info
            .call_targets
            .get(k as usize)
            .copied()
            .flatten()
            .ok_or_else(|| {
                InstrumentError::Unsupported(format!("step {site} has no user function call #{k}"))
            })?;
        frames.push(Frame {
            func,
            step: site,
            call: Some(k),
        });
        total_loops += info.loops.len();
        func = callee;
    }
    if model.info[target].func != func {
        return Err(InstrumentError::Unsupported(format!(
            "step {target} is not in function `{}` reached by the call chain",
            model.functions[func].name
        )));
    }
    frames.push(Frame {
        func,
        step: target,
        call: None,
    });
    if at == At::Step {
        total_loops += model.info[target].loops.len();
        if pos.iterations.len() != total_loops {
            return Err(InstrumentError::Unsupported(format!(
                "position has {} loop iterations, its call chain has {total_loops} enclosing loops",
                pos.iterations.len()
            )));
        }
    }
    Ok(Chain {
        position: pos,
        frames,
        target,
        total_loops,
    })
}

/// The last step of `main` (in source order), if it has any.
pub(crate) fn last_main_step(m: &ShaderModel) -> Option<StepId> {
    let main = m.model.main?;
    let last = m.model.info.iter().rposition(|i| i.func == main)?;
    Some(StepId(last as u32))
}

/// The `return` steps of `main` (in source order) where `expr` resolves
/// (all of them for a coverage-only probe): an invocation returning there
/// ends `main`, so the end-of-main value is taken before each. Where a name
/// of `expr` is not in scope (declared after the `return`), the invocation
/// has no such value and stays unwritten.
pub(super) fn returns_in_main(m: &ShaderModel, expr: Option<&str>) -> Vec<usize> {
    let Some(main) = m.model.main else {
        return Vec::new();
    };
    (0..m.model.steps.len())
        .filter(|&i| m.model.info[i].func == main && m.model.steps[i].kind == StepKind::Return)
        .filter(|&i| expr.is_none_or(|e| crate::typeck::check(m, StepId(i as u32), e).is_ok()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_shaders::LOOP_BRANCH;
    use crate::{Stage, StepMode};

    fn model() -> ShaderModel {
        ShaderModel::parse(LOOP_BRANCH, Stage::Fragment).unwrap()
    }

    #[test]
    fn a_position_in_a_callee_resolves_to_main_then_the_callee() {
        let m = model();
        // Into `shade` from main's second statement: its first step.
        let second = m.successors(&m.entry(), StepMode::Into)[0].clone();
        let inside = m.successors(&second, StepMode::Into)[0].clone();
        assert_eq!(inside.calls.len(), 1, "{inside:?}");
        let chain = resolve(&m, &inside, At::Step).unwrap();
        assert_eq!(chain.frames.len(), 2);
        assert_eq!(chain.frames[0].call, Some(0));
        assert_eq!(Some(chain.frames[0].func), m.model.main);
        assert_eq!(chain.frames[1].call, None);
        assert_eq!(chain.target, inside.step.0 as usize);
        assert_eq!(chain.total_loops, 0);
    }

    #[test]
    fn iterations_must_match_the_enclosing_loops() {
        let m = model();
        let in_loop = m.steps().iter().find(|s| s.loop_depth == 1).unwrap();
        let site = m.steps().iter().find(|s| !s.calls.is_empty()).unwrap();
        let mut pos = Position {
            step: in_loop.id,
            calls: vec![(site.id, 0)],
            iterations: vec![3],
        };
        assert_eq!(resolve(&m, &pos, At::Step).unwrap().total_loops, 1);
        pos.iterations.clear();
        assert!(matches!(
            resolve(&m, &pos, At::Step),
            Err(InstrumentError::Unsupported(_))
        ));
        // At the end of main the position is not used.
        let end = resolve(&m, &pos, At::EndOfMain).unwrap();
        assert_eq!(end.frames.len(), 1);
        assert_eq!(Some(end.position.step), last_main_step(&m));
        pos.step = StepId(999);
        assert_eq!(
            resolve(&m, &pos, At::Step).err(),
            Some(InstrumentError::NoSuchStep(999))
        );
    }

    #[test]
    fn the_write_goes_before_a_statement_or_into_a_condition() {
        use crate::parse::print_tu;
        let m = model();
        let cond = m
            .steps()
            .iter()
            .find(|s| s.kind == StepKind::IfCondition)
            .unwrap();
        let info = &m.model.info[cond.id.0 as usize];
        let mut tu = m.tu.0.clone();
        let decl = m.model.functions[info.func].decl;
        let ast::ExternalDeclarationData::FunctionDefinition(def) = &mut tu[decl].content else {
            panic!("not a function");
        };
        let guard = super::super::build::var("G");
        let write = super::super::build::var("W");
        write_at(&mut def.statement, info, &guard, &write).unwrap();
        let text = print_tu(&tu);
        assert!(text.contains("if (G && (W, true), x > 0.5)"), "{text}");
    }
}
