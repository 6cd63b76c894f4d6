//! Expression traversals shared by the step model and the instrumenter
//! (same order: a step's calls are numbered the same in both).

use glsl_lang::ast;

use super::Part;

/// Call `f` on every node of `e`, children first (so the arguments of a
/// call come before the call: evaluation order).
pub(crate) fn walk_expr(e: &mut ast::Expr, f: &mut dyn FnMut(&mut ast::Expr)) {
    use ast::ExprData as E;
    match &mut e.content {
        E::Variable(_)
        | E::IntConst(_)
        | E::UIntConst(_)
        | E::BoolConst(_)
        | E::FloatConst(_)
        | E::DoubleConst(_) => {}
        E::Unary(_, a) | E::Dot(a, _) | E::PostInc(a) | E::PostDec(a) => walk_expr(a, f),
        E::Binary(_, a, b) | E::Assignment(a, _, b) | E::Bracket(a, b) | E::Comma(a, b) => {
            walk_expr(a, f);
            walk_expr(b, f);
        }
        E::Ternary(a, b, c) => {
            walk_expr(a, f);
            walk_expr(b, f);
            walk_expr(c, f);
        }
        E::FunCall(id, args) => {
            if let ast::FunIdentifierData::Expr(callee) = &mut id.content {
                walk_expr(callee, f);
            }
            for a in args {
                walk_expr(a, f);
            }
        }
    }
    f(e);
}

/// Name and argument count of a call of a plain function name.
pub(crate) fn call_name(e: &ast::Expr) -> Option<(&str, usize)> {
    match &e.content {
        ast::ExprData::FunCall(id, args) => {
            let name = id.as_ident()?.as_str();
            // `f(void)`-style calls do not exist; `f()` has no args.
            Some((name, args.len()))
        }
        _ => None,
    }
}

fn initializer_exprs(init: &mut ast::Initializer, f: &mut dyn FnMut(&mut ast::Expr)) {
    match &mut init.content {
        ast::InitializerData::Simple(e) => f(e),
        ast::InitializerData::List(list) => {
            for i in list {
                initializer_exprs(i, f);
            }
        }
    }
}

fn declaration_exprs(d: &mut ast::Declaration, f: &mut dyn FnMut(&mut ast::Expr)) {
    if let ast::DeclarationData::InitDeclaratorList(list) = &mut d.content {
        if let Some(init) = &mut list.head.initializer {
            initializer_exprs(init, f);
        }
        for t in &mut list.tail {
            if let Some(init) = &mut t.initializer {
                initializer_exprs(init, f);
            }
        }
    }
}

fn condition_exprs(c: &mut ast::Condition, f: &mut dyn FnMut(&mut ast::Expr)) {
    match &mut c.content {
        ast::ConditionData::Expr(e) => f(e),
        ast::ConditionData::Assignment(_, _, init) => initializer_exprs(init, f),
    }
}

/// Call `f` on the top-level expressions evaluated by the step `part` of
/// `stmt`, in evaluation order.
pub(crate) fn step_exprs(stmt: &mut ast::Statement, part: Part, f: &mut dyn FnMut(&mut ast::Expr)) {
    use ast::StatementData as S;
    match (part, &mut stmt.content) {
        (Part::Whole, S::Declaration(d)) => declaration_exprs(d, f),
        (Part::Whole, S::Expression(es)) => {
            if let Some(e) = &mut es.content.0 {
                f(e)
            }
        }
        (Part::Whole, S::Jump(j)) => {
            if let ast::JumpStatementData::Return(Some(e)) = &mut j.content {
                f(e)
            }
        }
        (Part::IfCond, S::Selection(sel)) => f(&mut sel.cond),
        (Part::SwitchHead, S::Switch(sw)) => f(&mut sw.head),
        (part, S::Iteration(it)) => match (part, &mut it.content) {
            (Part::ForInit, ast::IterationStatementData::For(init, _, _)) => {
                match &mut init.content {
                    ast::ForInitStatementData::Expression(Some(e)) => f(e),
                    ast::ForInitStatementData::Expression(None) => {}
                    ast::ForInitStatementData::Declaration(d) => declaration_exprs(d, f),
                }
            }
            (Part::LoopCond, ast::IterationStatementData::For(_, rest, _)) => {
                if let Some(c) = &mut rest.condition {
                    condition_exprs(c, f)
                }
            }
            (Part::LoopCond, ast::IterationStatementData::While(c, _)) => condition_exprs(c, f),
            (Part::LoopCond, ast::IterationStatementData::DoWhile(_, e)) => f(e),
            (Part::ForInc, ast::IterationStatementData::For(_, rest, _)) => {
                if let Some(e) = &mut rest.post_expr {
                    f(e)
                }
            }
            _ => {}
        },
        _ => {}
    }
}

/// Call `f` (children first) on every expression node of `stmt` and of the
/// statements inside it.
pub(crate) fn walk_stmt_exprs(stmt: &mut ast::Statement, f: &mut dyn FnMut(&mut ast::Expr)) {
    use ast::StatementData as S;
    let mut each = |e: &mut ast::Expr| walk_expr(e, f);
    match &mut stmt.content {
        S::Declaration(_) | S::Expression(_) | S::Jump(_) => {
            step_exprs(stmt, Part::Whole, &mut each)
        }
        S::Selection(_) => {
            step_exprs(stmt, Part::IfCond, &mut each);
            if let S::Selection(sel) = &mut stmt.content {
                match &mut sel.rest.content {
                    ast::SelectionRestStatementData::Statement(s) => walk_stmt_exprs(s, f),
                    ast::SelectionRestStatementData::Else(a, b) => {
                        walk_stmt_exprs(a, f);
                        walk_stmt_exprs(b, f);
                    }
                }
            }
        }
        S::Switch(_) => {
            step_exprs(stmt, Part::SwitchHead, &mut each);
            if let S::Switch(sw) = &mut stmt.content {
                for s in &mut sw.body {
                    walk_stmt_exprs(s, f);
                }
            }
        }
        S::CaseLabel(c) => {
            if let ast::CaseLabelData::Case(e) = &mut c.content {
                walk_expr(e, f)
            }
        }
        S::Iteration(_) => {
            for part in [Part::ForInit, Part::LoopCond, Part::ForInc] {
                step_exprs(stmt, part, &mut each);
            }
            if let S::Iteration(it) = &mut stmt.content {
                match &mut it.content {
                    ast::IterationStatementData::While(_, b)
                    | ast::IterationStatementData::DoWhile(b, _)
                    | ast::IterationStatementData::For(_, _, b) => walk_stmt_exprs(b, f),
                }
            }
        }
        S::Compound(c) => {
            for s in &mut c.statement_list {
                walk_stmt_exprs(s, f);
            }
        }
    }
}
