//! The first pass of the hit and dprintf shaders: a [`Plan`]'s additions
//! placed in the app's tree (before a step where `write_at` puts a debug
//! write, after a statement or inside a `for` increment), and the tree
//! printed with the additions' declarations; also the condition plan.

use glsl_lang::ast;

use super::{Plan, checked_expr, step_index};
use crate::instrument::position::{insert_before, stmt_at, write_at};
use crate::instrument::printer;
use crate::parse::{Names, print_tu};
use crate::steps::{Part, PathElem};
use crate::{InstrumentError, ShaderModel, StepId};

pub(super) fn internal(what: &str) -> InstrumentError {
    InstrumentError::Unsupported(format!("internal error: {what}"))
}

pub(super) fn var(name: &str) -> ast::Expr {
    ast::ExprData::variable(name).into()
}
pub(super) fn uint(u: u32) -> ast::Expr {
    ast::ExprData::UIntConst(u).into()
}
pub(super) fn call(name: &str, args: Vec<ast::Expr>) -> ast::Expr {
    ast::ExprData::FunCall(ast::FunIdentifierData::ident(name).into(), args).into()
}
pub(super) fn assign(a: ast::Expr, b: ast::Expr) -> ast::Expr {
    ast::ExprData::Assignment(
        Box::new(a),
        ast::AssignmentOpData::Equal.into(),
        Box::new(b),
    )
    .into()
}
fn comma(a: ast::Expr, b: ast::Expr) -> ast::Expr {
    ast::ExprData::Comma(Box::new(a), Box::new(b)).into()
}
fn expr_stmt(e: ast::Expr) -> ast::Statement {
    ast::StatementData::Expression(ast::ExprStatementData(Some(e)).into()).into()
}
fn compound(list: Vec<ast::Statement>) -> ast::Statement {
    ast::StatementData::Compound(
        ast::CompoundStatementData {
            statement_list: list,
        }
        .into(),
    )
    .into()
}

/// The plan of a conditional breakpoint: the counter, and at each of
/// `steps` a hit where `cond` holds (always without one).
pub(super) fn condition_plan(
    m: &ShaderModel,
    steps: &[StepId],
    cond: Option<&str>,
    from: (u32, u32),
    names: &mut Names,
) -> Result<Plan, InstrumentError> {
    if steps.is_empty() {
        return Err(InstrumentError::Unsupported(
            "a breakpoint needs at least one step".into(),
        ));
    }
    let mut plan = Plan::counting(m, names, from);
    let mut first_error = None;
    let mut placed = false;
    for &id in steps {
        let i = step_index(m, id)?;
        let c = match cond {
            None => ast::ExprData::BoolConst(true).into(),
            Some(text) => match condition_at(m, id, text) {
                Ok(c) => c,
                // Not valid at this step of the line (a name not in scope
                // yet, e.g. a `for`'s variable at its init): left out.
                Err(e) => {
                    first_error.get_or_insert(e);
                    continue;
                }
            },
        };
        let tick = call(&plan.counters.tick, vec![]);
        plan.before[i] = Some(call(&plan.counters.hit, vec![tick, uint(id.0), c]));
        placed = true;
    }
    match first_error {
        Some(e) if !placed => Err(e),
        _ => Ok(plan),
    }
}

/// `bool(cond)` at `step`, or why not.
fn condition_at(m: &ShaderModel, step: StepId, text: &str) -> Result<ast::Expr, InstrumentError> {
    let (e, ty) = checked_expr(m, step, text, false)?;
    if let Some(ty) = ty.filter(|t| !is_scalar(t)) {
        return Err(InstrumentError::BadExpression {
            expr: text.to_string(),
            message: format!("a condition must be a scalar (bool, number), not {ty}"),
        });
    }
    Ok(call("bool", vec![e]))
}

fn is_scalar(ty: &str) -> bool {
    matches!(ty, "bool" | "int" | "uint" | "float" | "double")
}

/// The app's shader with `plan` applied, as text.
pub(super) fn apply(m: &ShaderModel, plan: &Plan) -> Result<String, InstrumentError> {
    let mut tu = m.tu.0.clone();
    for (f, func) in m.model.functions.iter().enumerate() {
        let ast::ExternalDeclarationData::FunctionDefinition(def) = &mut tu[func.decl].content
        else {
            continue;
        };
        let body = &mut def.statement;
        // Last step first: an insertion moves only what comes after it.
        for i in (0..m.model.steps.len()).rev() {
            let info = &m.model.info[i];
            if info.func != f {
                continue;
            }
            if let Some(after) = &plan.after[i] {
                place_after(body, &info.path, info.part, after.clone())?;
            }
            if let Some(before) = &plan.before[i] {
                let yes = ast::ExprData::BoolConst(true).into();
                write_at(body, info, &yes, before)?;
            }
        }
        if Some(f) == m.model.main {
            let first = plan.main_start.iter().cloned().map(expr_stmt);
            body.statement_list.splice(0..0, first);
        }
    }
    // glsl-lang's printer drops the parentheses of `f((a, b))` and
    // `x = (a, b)` (the same repairs as the debug shader's).
    printer::protect_commas(&mut tu);
    Ok(printer::fix_type_names(&text(m, &tu, plan)))
}

/// `after` once the step at `path` ran: a statement after it (a lone
/// statement becomes `{ stmt; after; }`), or `(inc, after)` in a `for`
/// increment. Other parts (conditions) get nothing.
fn place_after(
    body: &mut ast::CompoundStatement,
    path: &[PathElem],
    part: Part,
    after: ast::Expr,
) -> Result<(), InstrumentError> {
    match (part, path.split_last()) {
        (Part::Whole, Some((PathElem::Index(i), parent))) => {
            let mut next = parent.to_vec();
            next.push(PathElem::Index(i + 1));
            insert_before(body, &next, vec![expr_stmt(after)])
        }
        (Part::Whole, Some(_)) => {
            let s = stmt_at(body, path).ok_or_else(|| internal("step not found"))?;
            let old = std::mem::replace(s, compound(Vec::new()));
            *s = compound(vec![old, expr_stmt(after)]);
            Ok(())
        }
        (Part::ForInc, _) => {
            let s = stmt_at(body, path).ok_or_else(|| internal("step not found"))?;
            let ast::StatementData::Iteration(it) = &mut s.content else {
                return Err(internal("increment of a non-loop"));
            };
            let ast::IterationStatementData::For(_, rest, _) = &mut it.content else {
                return Err(internal("increment of a non-for loop"));
            };
            let inc = rest
                .post_expr
                .as_mut()
                .ok_or_else(|| internal("loop without increment"))?;
            let old = std::mem::replace(&mut **inc, uint(0));
            **inc = comma(old, after);
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The printed shader: `#version`, the hidden and the plan's `#extension`
/// lines, the declarations before the first function, the plan's
/// declarations, the functions.
pub(super) fn text(m: &ShaderModel, tu: &[ast::ExternalDeclaration], plan: &Plan) -> String {
    let is_version = |d: &ast::ExternalDeclaration| {
        matches!(&d.content, ast::ExternalDeclarationData::Preprocessor(p)
            if matches!(p.content, ast::PreprocessorData::Version(_)))
    };
    let is_function = |d: &ast::ExternalDeclaration| match &d.content {
        ast::ExternalDeclarationData::FunctionDefinition(_) => true,
        ast::ExternalDeclarationData::Declaration(decl) => {
            matches!(decl.content, ast::DeclarationData::FunctionPrototype(_))
        }
        _ => false,
    };
    let head = tu.iter().position(is_version).map_or(0, |v| v + 1);
    let funcs = tu
        .iter()
        .position(is_function)
        .unwrap_or(tu.len())
        .max(head);
    let mut out = print_tu(&tu[..head]);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    for line in m.unknown_extensions.iter().chain(&plan.extensions) {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(&print_tu(&tu[head..funcs]));
    out.push('\n');
    out.push_str(&plan.decls);
    out.push_str(&print_tu(&tu[funcs..]));
    out
}
