//! Indices of `out`/`inout` arguments in `main`, evaluated before the call.
//!
//! GLSL evaluates an `out`/`inout` argument's lvalue once, before the call:
//! `func(i, v[w[i]])` with `func` setting `i` writes back to `v[w[old i]]`.
//! NVIDIA's compiler sometimes evaluates the index again after the call
//! (in a function other than `main` always; in `main` once a probe is added
//! before the call: piglit out-parameter-indexing, H200), so the debug
//! shader would write another element than the app's program. In `main`
//! such an index is taken into a global of ours first (`gldbg_k0 = int(w[i]);
//! func(i, v[gldbg_k0]);`), which every compiler evaluates once, where that
//! cannot change the order of anything: the statement is the call alone (or
//! a plain assignment of its result), and its arguments have no side
//! effects. Other functions keep the app's text (NVIDIA evaluates them the
//! same way in the app's program).

use std::collections::HashMap;

use glsl_lang::ast;

use super::{assign, call, compound, expr_stmt, var};
use crate::parse::Names;

/// A parameter's direction and type.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Param {
    /// `out` or `inout`.
    out: bool,
    /// `inout`.
    copy_in: bool,
    /// Its GLSL type.
    ty: String,
}

/// Per user function name, per overload: its parameters.
pub(super) type Params = HashMap<String, Vec<Vec<Param>>>;

/// The parameters of every user function (definitions and prototypes).
pub(super) fn out_params(decls: &[ast::ExternalDeclaration]) -> Params {
    let mut map: Params = HashMap::new();
    for d in decls {
        let proto = match &d.content {
            ast::ExternalDeclarationData::FunctionDefinition(f) => &f.prototype,
            ast::ExternalDeclarationData::Declaration(decl) => match &decl.content {
                ast::DeclarationData::FunctionPrototype(p) => p,
                _ => continue,
            },
            _ => continue,
        };
        let types = crate::steps::parameter_types(proto);
        let outs: Vec<Param> = proto
            .parameters
            .iter()
            .zip(types)
            .map(|(p, ty)| {
                let q = match &p.content {
                    ast::FunctionParameterDeclarationData::Named(q, _)
                    | ast::FunctionParameterDeclarationData::Unnamed(q, _) => q,
                };
                let has = |want: ast::StorageQualifierData| {
                    q.as_ref().is_some_and(|q| {
                        q.qualifiers.iter().any(|s| {
                            matches!(&s.content, ast::TypeQualifierSpecData::Storage(st) if st.content == want)
                        })
                    })
                };
                let copy_in = has(ast::StorageQualifierData::InOut);
                Param {
                    out: copy_in || has(ast::StorageQualifierData::Out),
                    copy_in,
                    ty,
                }
            })
            .collect();
        map.entry(proto.name.as_str().to_string())
            .or_default()
            .push(outs);
    }
    map
}

/// The globals holding the indices and copied arguments: (type, name).
pub(super) type Temps = Vec<(String, String)>;

/// Hoist the indices in every statement of `list` (and nested blocks).
pub(super) fn hoist_in(
    list: &mut [ast::Statement],
    outs: &Params,
    names: &mut Names,
    globals: &mut Temps,
) {
    for s in list {
        hoist_stmt(s, outs, names, globals);
    }
}

fn hoist_stmt(s: &mut ast::Statement, outs: &Params, names: &mut Names, globals: &mut Temps) {
    use ast::StatementData as S;
    match &mut s.content {
        S::Expression(es) => {
            let Some(e) = es.0.as_mut() else { return };
            let (call, bare) = match &mut e.content {
                ast::ExprData::Assignment(lhs, _, rhs) if pure(lhs, outs) => (rhs.as_mut(), false),
                _ => (e, true),
            };
            let (mut before, after) = hoist_call(call, bare, outs, names, globals);
            if !before.is_empty() || !after.is_empty() {
                let stmt = std::mem::replace(s, expr_stmt(super::int(0)));
                before.push(stmt);
                before.extend(after);
                *s = compound(before);
            }
        }
        S::Compound(c) => hoist_in(&mut c.statement_list, outs, names, globals),
        S::Selection(sel) => match &mut sel.rest.content {
            ast::SelectionRestStatementData::Statement(t) => hoist_stmt(t, outs, names, globals),
            ast::SelectionRestStatementData::Else(t, e) => {
                hoist_stmt(t, outs, names, globals);
                hoist_stmt(e, outs, names, globals);
            }
        },
        S::Switch(sw) => hoist_in(&mut sw.body, outs, names, globals),
        S::Iteration(it) => match &mut it.content {
            ast::IterationStatementData::While(_, b)
            | ast::IterationStatementData::DoWhile(b, _)
            | ast::IterationStatementData::For(_, _, b) => hoist_stmt(b, outs, names, globals),
        },
        _ => {}
    }
}

/// `e` a call of a user function with `out`/`inout` parameters and pure
/// arguments: the non-constant indices of those arguments are assigned to
/// globals first; where the statement is the call alone (`bare`) and the
/// overload is known, such an argument is also copied in and out through
/// a global of the parameter's type, as GLSL's calls do (NVIDIA also
/// writes an `out int` to `v[i]` of a `vec4` wrongly once a probe calls a
/// function before: piglit vs-out-conversion-int-to-float-vec4-index).
/// Returns the statements before and after the call.
fn hoist_call(
    e: &mut ast::Expr,
    bare: bool,
    outs: &Params,
    names: &mut Names,
    globals: &mut Temps,
) -> (Vec<ast::Statement>, Vec<ast::Statement>) {
    let (mut before, mut after) = (Vec::new(), Vec::new());
    let ast::ExprData::FunCall(id, args) = &mut e.content else {
        return (before, after);
    };
    let Some(name) = id.as_ident().map(|n| n.as_str().to_string()) else {
        return (before, after);
    };
    let Some(overloads) = outs.get(&name) else {
        return (before, after);
    };
    if !args.iter().all(|a| pure(a, outs)) {
        return (before, after);
    }
    let n = args.len();
    let matching: Vec<&Vec<Param>> = overloads.iter().filter(|o| o.len() == n).collect();
    for (k, a) in args.iter_mut().enumerate() {
        let params: Vec<&Param> = matching.iter().filter_map(|o| o.get(k)).collect();
        if !params.iter().any(|p| p.out) {
            continue;
        }
        if !hoist_indices(a, names, &mut before, globals) {
            continue;
        }
        // One overload (overloads of one name and arity share the
        // declaration's types only by chance) and a plain type.
        let one = params.len() == 1 || params.windows(2).all(|w| w[0] == w[1]);
        let p = params[0];
        if !bare || !one || p.ty.contains('[') || p.ty.contains("struct") {
            continue;
        }
        let t = names.fresh(&format!("gldbg_a{}", globals.len()));
        globals.push((p.ty.clone(), t.clone()));
        let lvalue = std::mem::replace(a, var(&t));
        if p.copy_in {
            before.push(expr_stmt(assign(var(&t), lvalue.clone())));
        }
        after.push(expr_stmt(assign(lvalue, var(&t))));
    }
    (before, after)
}

/// In an lvalue chain (`v[1][w[i]]`, `s.a[i].x`), each index that is not
/// a literal is first assigned to a new global `int`, which the chain reads.
/// Whether any index was hoisted.
fn hoist_indices(
    a: &mut ast::Expr,
    names: &mut Names,
    temps: &mut Vec<ast::Statement>,
    globals: &mut Temps,
) -> bool {
    match &mut a.content {
        ast::ExprData::Bracket(base, index) => {
            let inner = hoist_indices(base, names, temps, globals);
            if matches!(
                index.content,
                ast::ExprData::IntConst(_) | ast::ExprData::UIntConst(_)
            ) {
                return inner;
            }
            let t = names.fresh(&format!("gldbg_k{}", globals.len()));
            let old = std::mem::replace(&mut **index, var(&t));
            temps.push(expr_stmt(assign(var(&t), call("int", vec![old]))));
            globals.push(("int".into(), t));
            true
        }
        ast::ExprData::Dot(base, _) => hoist_indices(base, names, temps, globals),
        _ => false,
    }
}

/// No side effects: variables, literals, operators, indices, fields and
/// constructors or built-ins of those (a user function may write globals).
fn pure(e: &ast::Expr, user: &Params) -> bool {
    use ast::ExprData as E;
    match &e.content {
        E::Variable(_)
        | E::IntConst(_)
        | E::UIntConst(_)
        | E::BoolConst(_)
        | E::FloatConst(_)
        | E::DoubleConst(_) => true,
        E::Unary(op, x) => {
            !matches!(op.content, ast::UnaryOpData::Inc | ast::UnaryOpData::Dec) && pure(x, user)
        }
        E::Binary(_, a, b) => pure(a, user) && pure(b, user),
        E::Ternary(c, a, b) => pure(c, user) && pure(a, user) && pure(b, user),
        E::Bracket(a, i) => pure(a, user) && pure(i, user),
        E::Dot(a, _) => pure(a, user),
        E::FunCall(id, args) => {
            let builtin_or_type = match id.as_ident() {
                Some(n) => !user.contains_key(n.as_str()),
                None => true,
            };
            builtin_or_type && args.iter().all(|a| pure(a, user))
        }
        _ => false,
    }
}
