//! Edits of the app's `main` itself: a `discard` that keeps the fragment's
//! debug value ([`crate::Semantics::ReportDiscarded`]) and the copy-out of
//! the debug outputs before each `return`.

use glsl_lang::ast;

use super::build::{call, compound, eq, expr_stmt, float, if_stmt, int, var};

/// In the original `main`, `discard` becomes
/// `{ if (coverage == 0.0) discard; return; }`: a fragment that already
/// wrote the debug value would otherwise lose it with all its outputs;
/// returning from main ends it just as well (its own outputs then reach
/// the debug framebuffer). Only in main: elsewhere a return would resume
/// the caller.
pub(super) fn keep_reached_fragments(s: &mut ast::Statement, coverage: &str) {
    use ast::StatementData as S;
    match &mut s.content {
        S::Jump(j) if matches!(j.content, ast::JumpStatementData::Discard) => {
            let discard: ast::Statement = S::Jump(ast::JumpStatementData::Discard.into()).into();
            let ret: ast::Statement = S::Jump(ast::JumpStatementData::Return(None).into()).into();
            *s = compound(vec![if_stmt(eq(var(coverage), float(0.0)), discard), ret]);
        }
        S::Compound(c) => c
            .statement_list
            .iter_mut()
            .for_each(|x| keep_reached_fragments(x, coverage)),
        S::Switch(sw) => sw
            .body
            .iter_mut()
            .for_each(|x| keep_reached_fragments(x, coverage)),
        S::Selection(sel) => match &mut sel.rest.content {
            ast::SelectionRestStatementData::Statement(t) => keep_reached_fragments(t, coverage),
            ast::SelectionRestStatementData::Else(t, e) => {
                keep_reached_fragments(t, coverage);
                keep_reached_fragments(e, coverage);
            }
        },
        S::Iteration(it) => match &mut it.content {
            ast::IterationStatementData::While(_, b)
            | ast::IterationStatementData::DoWhile(b, _)
            | ast::IterationStatementData::For(_, _, b) => keep_reached_fragments(b, coverage),
        },
        _ => {}
    }
}

/// `return` in `main` becomes `{ end(); return; }`: the debug outputs are
/// copied out before `main` ends there.
pub(super) fn end_before_returns(s: &mut ast::Statement, end: &str) {
    use ast::StatementData as S;
    match &mut s.content {
        S::Jump(j) if matches!(j.content, ast::JumpStatementData::Return(_)) => {
            let ret = std::mem::replace(s, expr_stmt(int(0)));
            *s = compound(vec![expr_stmt(call(end, vec![])), ret]);
        }
        S::Compound(c) => c
            .statement_list
            .iter_mut()
            .for_each(|x| end_before_returns(x, end)),
        S::Switch(sw) => sw.body.iter_mut().for_each(|x| end_before_returns(x, end)),
        S::Selection(sel) => match &mut sel.rest.content {
            ast::SelectionRestStatementData::Statement(t) => end_before_returns(t, end),
            ast::SelectionRestStatementData::Else(t, e) => {
                end_before_returns(t, end);
                end_before_returns(e, end);
            }
        },
        S::Iteration(it) => match &mut it.content {
            ast::IterationStatementData::While(_, b)
            | ast::IterationStatementData::DoWhile(b, _)
            | ast::IterationStatementData::For(_, _, b) => end_before_returns(b, end),
        },
        _ => {}
    }
}
