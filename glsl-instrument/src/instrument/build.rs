//! Building blocks of the debug shader's AST: expressions and statements
//! the instrumenter adds, and the two edits every insertion uses (wrap an
//! expression, run something before a condition).

use glsl_lang::ast;

use crate::InstrumentError;

pub(crate) fn internal(what: &str) -> InstrumentError {
    InstrumentError::Unsupported(format!("internal error: {what}"))
}

pub(crate) fn var(name: &str) -> ast::Expr {
    ast::ExprData::variable(name).into()
}
pub(super) fn int(i: i32) -> ast::Expr {
    ast::ExprData::IntConst(i).into()
}
pub(crate) fn uint(u: u32) -> ast::Expr {
    ast::ExprData::UIntConst(u).into()
}
pub(super) fn float(x: f32) -> ast::Expr {
    ast::ExprData::FloatConst(x).into()
}
pub(crate) fn boolean(b: bool) -> ast::Expr {
    ast::ExprData::BoolConst(b).into()
}
pub(crate) fn binary(op: ast::BinaryOpData, a: ast::Expr, b: ast::Expr) -> ast::Expr {
    ast::ExprData::Binary(op.into(), Box::new(a), Box::new(b)).into()
}
pub(super) fn and(a: ast::Expr, b: ast::Expr) -> ast::Expr {
    binary(ast::BinaryOpData::And, a, b)
}
pub(super) fn eq(a: ast::Expr, b: ast::Expr) -> ast::Expr {
    binary(ast::BinaryOpData::Equal, a, b)
}
pub(crate) fn comma(a: ast::Expr, b: ast::Expr) -> ast::Expr {
    ast::ExprData::Comma(Box::new(a), Box::new(b)).into()
}
pub(crate) fn assign(a: ast::Expr, b: ast::Expr) -> ast::Expr {
    ast::ExprData::Assignment(
        Box::new(a),
        ast::AssignmentOpData::Equal.into(),
        Box::new(b),
    )
    .into()
}
pub(super) fn index(a: ast::Expr, i: i32) -> ast::Expr {
    ast::ExprData::Bracket(Box::new(a), Box::new(int(i))).into()
}
pub(crate) fn call(name: &str, args: Vec<ast::Expr>) -> ast::Expr {
    ast::ExprData::FunCall(ast::FunIdentifierData::ident(name).into(), args).into()
}
pub(super) fn post_inc(a: ast::Expr) -> ast::Expr {
    ast::ExprData::PostInc(Box::new(a)).into()
}
pub(crate) fn expr_stmt(e: ast::Expr) -> ast::Statement {
    ast::StatementData::Expression(ast::ExprStatementData(Some(e)).into()).into()
}
pub(crate) fn compound(list: Vec<ast::Statement>) -> ast::Statement {
    ast::StatementData::Compound(
        ast::CompoundStatementData {
            statement_list: list,
        }
        .into(),
    )
    .into()
}
pub(crate) fn if_stmt(cond: ast::Expr, then: ast::Statement) -> ast::Statement {
    ast::StatementData::Selection(
        ast::SelectionStatementData {
            cond: Box::new(cond),
            rest: ast::SelectionRestStatementData::Statement(Box::new(then)).into(),
        }
        .into(),
    )
    .into()
}

/// Replace `e` by `f(e)`.
pub(super) fn wrap_expr(e: &mut ast::Expr, f: impl FnOnce(ast::Expr) -> ast::Expr) {
    let old = std::mem::replace(e, boolean(true));
    *e = f(old);
}

/// Run `pre` (a bool-free side effect `x`) before a loop/if condition:
/// `(x, cond)`, or `(x, true) && init` for a declaring condition (the
/// printer would drop the parentheses of a sequence in an initializer).
pub(super) fn prepend_to_condition(c: &mut ast::Condition, pre: ast::Expr) {
    match &mut c.content {
        ast::ConditionData::Expr(e) => wrap_expr(e, |e| comma(pre, e)),
        ast::ConditionData::Assignment(_, _, init) => {
            if let ast::InitializerData::Simple(e) = &mut init.content {
                wrap_expr(e, |e| and(comma(pre, boolean(true)), e));
            }
        }
    }
}
