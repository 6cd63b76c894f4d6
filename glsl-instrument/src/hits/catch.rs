//! `catch nan` / `catch inf`: after every step that assigns a float-based
//! value, a hit where what it wrote is NaN (or infinite), with the record
//! index of that step (each function keeps the index of its last step in
//! a global: GLSL has no recursion, so nothing runs that step again
//! before the check).

use glsl_lang::ast;

use super::Plan;
use super::edit::{assign, call, internal, uint, var};
use crate::instrument::position::stmt_at;
use crate::parse::{Names, expr_text, parse_expr_in};
use crate::steps::Part;
use crate::{InstrumentError, ShaderModel, StepId, StepKind};

/// The plan: every step of a function `f` sets `k_f` to its record index,
/// and each assigning step is followed by `hit(k_f, step, <bad>)`.
pub(super) fn plan(
    m: &ShaderModel,
    nan: bool,
    inf: bool,
    from: (u32, u32),
    names: &mut Names,
) -> Result<Plan, InstrumentError> {
    if !nan && !inf {
        return Err(InstrumentError::Unsupported(
            "catch: neither NaN nor Inf asked for".into(),
        ));
    }
    let mut plan = Plan::counting(m, names, from);
    let last: Vec<String> = (0..m.model.functions.len())
        .map(|_| names.fresh("gldbg_k"))
        .collect();
    for k in &last {
        plan.decls.push_str(&format!("highp uint {k};\n"));
    }
    let mut tu = m.tu.0.clone();
    for i in 0..m.model.steps.len() {
        let info = &m.model.info[i];
        let k = &last[info.func];
        let tick = call(&plan.counters.tick, vec![]);
        plan.before[i] = Some(assign(var(k), tick));
        let assigning = match info.part {
            Part::Whole => m.model.steps[i].kind == StepKind::Statement,
            Part::ForInc => true,
            _ => false,
        };
        if !assigning {
            continue;
        }
        let decl = m.model.functions[info.func].decl;
        let ast::ExternalDeclarationData::FunctionDefinition(def) = &mut tu[decl].content else {
            return Err(internal("step outside a function"));
        };
        let stmt = stmt_at(&mut def.statement, &info.path).ok_or_else(|| internal("no step"))?;
        let checks: Vec<String> = written(stmt, info.part)
            .into_iter()
            .filter_map(|w| bad_value(m, StepId(i as u32), &w, nan, inf))
            .collect();
        if checks.is_empty() {
            continue;
        }
        let text = checks.join(" || ");
        let bad = parse_expr_in(&text, &m.model.type_names, "", m.version)
            .map_err(|e| internal(&format!("catch check `{text}`: {e}")))?;
        plan.after[i] = Some(call(&plan.counters.hit, vec![var(k), uint(i as u32), bad]));
    }
    Ok(plan)
}

/// What a step writes: the lvalue's text, and the text whose type is the
/// written value's (a declared variable: its initializer's).
struct Write {
    lvalue: String,
    typed: String,
}

/// The writes of a statement step (its expression's top-level
/// assignments, `++`/`--`, initialised declarations) or of a `for`
/// increment. Writes under `?:`, `&&`, `||` or a call may not happen: not
/// checked (a stale NaN would be reported as written there).
fn written(stmt: &mut ast::Statement, part: Part) -> Vec<Write> {
    let mut out = Vec::new();
    match (&stmt.content, part) {
        (ast::StatementData::Expression(e), Part::Whole) => {
            if let Some(e) = &e.0 {
                top_writes(e, &mut out);
            }
        }
        (ast::StatementData::Declaration(d), Part::Whole) => {
            if let ast::DeclarationData::InitDeclaratorList(list) = &d.content {
                let head = list.head.name.as_ref().zip(list.head.initializer.as_ref());
                let tail = list.tail.iter().map(|t| (&t.ident.ident, &t.initializer));
                let tail = tail.filter_map(|(n, i)| i.as_ref().map(|i| (n, i)));
                for (name, init) in head.into_iter().chain(tail) {
                    if let ast::InitializerData::Simple(e) = &init.content {
                        out.push(Write {
                            lvalue: name.0.to_string(),
                            typed: expr_text(e),
                        });
                    }
                }
            }
        }
        (ast::StatementData::Iteration(it), Part::ForInc) => {
            if let ast::IterationStatementData::For(_, rest, _) = &it.content
                && let Some(e) = &rest.post_expr
            {
                top_writes(e, &mut out);
            }
        }
        _ => {}
    }
    out
}

/// Writes that surely happen when `e` is evaluated (`a = b = c`, `x++,
/// y += 1.0`).
fn top_writes(e: &ast::Expr, out: &mut Vec<Write>) {
    use ast::ExprData as E;
    let lvalue = |l: &ast::Expr, out: &mut Vec<Write>| {
        let text = expr_text(l);
        out.push(Write {
            lvalue: text.clone(),
            typed: text,
        });
    };
    match &e.content {
        E::Assignment(l, _, r) => {
            lvalue(l, out);
            top_writes(r, out);
        }
        E::PostInc(l) | E::PostDec(l) => lvalue(l, out),
        E::Unary(op, l) if matches!(op.content, ast::UnaryOpData::Inc | ast::UnaryOpData::Dec) => {
            lvalue(l, out)
        }
        E::Comma(a, b) => {
            top_writes(a, out);
            top_writes(b, out);
        }
        _ => {}
    }
}

/// The check of one write (`isnan(v.x) || isinf(v.x)`, per part of an
/// array, struct or matrix), or `None` where nothing float-based is
/// written, its type is unknown, or the lvalue has an effect (`a[i++]`:
/// evaluated again it would name another element).
fn bad_value(m: &ShaderModel, step: StepId, w: &Write, nan: bool, inf: bool) -> Option<String> {
    let lv = parse_expr_in(&w.lvalue, &m.model.type_names, "", m.version).ok()?;
    crate::effects::check(&m.tu, &lv).ok()?;
    let layout = crate::parts::layout(m, step, &w.typed).ok()??;
    let mut checks = Vec::new();
    for part in &layout.parts {
        let floating = ["float", "vec", "double", "dvec", "mat", "dmat"]
            .iter()
            .any(|p| part.ty.starts_with(p));
        if !floating {
            continue;
        }
        let x = format!("{}{}", w.lvalue, part.path);
        // A matrix part (`mat2` fits the debug output whole) by column.
        let columns = matrix_columns(&part.ty);
        let values: Vec<String> = match columns {
            Some(n) => (0..n).map(|c| format!("{x}[{c}]")).collect(),
            None => vec![x],
        };
        let vector = columns.is_some() || (part.ty != "float" && part.ty != "double");
        for v in &values {
            for (want, f) in [(nan, "isnan"), (inf, "isinf")] {
                if want {
                    checks.push(match vector {
                        true => format!("any({f}({v}))"),
                        false => format!("{f}({v})"),
                    });
                }
            }
        }
    }
    (!checks.is_empty()).then(|| checks.join(" || "))
}

/// The columns of a matrix type (`mat3x2`: 3, `dmat2`: 2), `None` for others.
fn matrix_columns(ty: &str) -> Option<usize> {
    let rest = ty.strip_prefix('d').unwrap_or(ty).strip_prefix("mat")?;
    rest.chars().next()?.to_digit(10).map(|d| d as usize)
}
