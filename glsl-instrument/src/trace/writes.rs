//! What a step declares and what it may write ([`RecordLayout::declares`],
//! [`RecordLayout::writes`]): declared names, assignments, `++`/`--`,
//! initialised declarations, `out`/`inout` arguments of user and built-in
//! calls, each as the variable and a constant path into it.
//!
//! [`RecordLayout::declares`]: super::RecordLayout::declares
//! [`RecordLayout::writes`]: super::RecordLayout::writes

use glsl_lang::ast;

use super::TracedWrite;
use crate::ShaderModel;
use crate::steps::{Part, StepInfo, call_name, declared_variables, step_exprs, walk_expr};

/// The root variable of an assigned expression and the constant path into
/// it (`None` for a dynamic index).
fn lvalue(e: &ast::Expr) -> Option<TracedWrite> {
    use ast::ExprData as E;
    match &e.content {
        E::Variable(v) => Some(TracedWrite {
            name: v.0.to_string(),
            path: Some(String::new()),
        }),
        E::Dot(a, field) => {
            let mut w = lvalue(a)?;
            w.path = w.path.map(|p| format!("{p}.{}", field.0));
            Some(w)
        }
        E::Bracket(a, i) => {
            let mut w = lvalue(a)?;
            let index = match i.content {
                E::IntConst(k) if k >= 0 => Some(k as u32),
                E::UIntConst(k) => Some(k),
                _ => None,
            };
            w.path = match (w.path, index) {
                (Some(p), Some(k)) => Some(format!("{p}[{k}]")),
                _ => None,
            };
            Some(w)
        }
        _ => None,
    }
}

/// Per argument of a user function: whether it is `out` or `inout`.
fn out_positions(m: &ShaderModel, func: usize) -> Vec<bool> {
    let decl = m.model.functions[func].decl;
    let ast::ExternalDeclarationData::FunctionDefinition(def) = &m.tu.0[decl].content else {
        return Vec::new();
    };
    def.prototype
        .parameters
        .iter()
        .map(|p| {
            let q = match &p.content {
                ast::FunctionParameterDeclarationData::Named(q, _)
                | ast::FunctionParameterDeclarationData::Unnamed(q, _) => q,
            };
            q.iter().flat_map(|q| q.qualifiers.iter()).any(|s| {
                matches!(&s.content, ast::TypeQualifierSpecData::Storage(st)
                    if matches!(st.content, ast::StorageQualifierData::Out | ast::StorageQualifierData::InOut))
            })
        })
        .collect()
}

/// Names declared by a declaration and those it initialises.
fn declaration(d: &ast::Declaration, declares: &mut Vec<String>, writes: &mut Vec<TracedWrite>) {
    let vars = declared_variables(d);
    if let ast::DeclarationData::InitDeclaratorList(list) = &d.content {
        let inits = std::iter::once(list.head.initializer.is_some())
            .chain(list.tail.iter().map(|t| t.initializer.is_some()));
        for (v, init) in vars.iter().zip(inits) {
            if init {
                writes.push(TracedWrite {
                    name: v.name.clone(),
                    path: Some(String::new()),
                });
            }
        }
    }
    declares.extend(vars.into_iter().map(|v| v.name));
}

/// The declarations of the step `info` finds in `body` (a copy of its
/// function's body).
fn declarations(
    stmt: &ast::Statement,
    part: Part,
    declares: &mut Vec<String>,
    writes: &mut Vec<TracedWrite>,
) {
    use ast::IterationStatementData as It;
    use ast::StatementData as S;
    match (part, &stmt.content) {
        (Part::Whole, S::Declaration(d)) => declaration(d, declares, writes),
        (Part::ForInit, S::Iteration(it)) => {
            if let It::For(init, _, _) = &it.content
                && let ast::ForInitStatementData::Declaration(d) = &init.content
            {
                declaration(d, declares, writes)
            }
        }
        (Part::LoopCond, S::Iteration(it)) => {
            let c = match &it.content {
                It::While(c, _) => Some(c),
                It::For(_, rest, _) => rest.condition.as_ref(),
                It::DoWhile(..) => None,
            };
            if let Some(c) = c
                && let ast::ConditionData::Assignment(_, ident, _) = &c.content
            {
                declares.push(ident.0.to_string());
                writes.push(TracedWrite {
                    name: ident.0.to_string(),
                    path: Some(String::new()),
                });
            }
        }
        _ => {}
    }
}

/// What the step declares and writes; `stmt` is (a copy of) its statement.
pub(super) fn effects(
    m: &ShaderModel,
    info: &StepInfo,
    stmt: &mut ast::Statement,
) -> (Vec<String>, Vec<TracedWrite>) {
    let mut declares = Vec::new();
    let mut writes = Vec::new();
    declarations(stmt, info.part, &mut declares, &mut writes);
    let here = m.model.functions[info.func].decl;
    let mut user_call = 0usize;
    step_exprs(stmt, info.part, &mut |e| {
        walk_expr(e, &mut |node| {
            use ast::ExprData as E;
            let mut write = |target: &ast::Expr| writes.extend(lvalue(target));
            match &node.content {
                E::Assignment(lhs, _, _) => write(lhs),
                E::PostInc(a) | E::PostDec(a) => write(a),
                E::Unary(op, a)
                    if matches!(op.content, ast::UnaryOpData::Inc | ast::UnaryOpData::Dec) =>
                {
                    write(a)
                }
                E::FunCall(_, args) => {
                    let Some((name, _)) = call_name(node) else {
                        return;
                    };
                    let is_user = m
                        .model
                        .functions
                        .iter()
                        .any(|f| f.name == name && f.declared_at < here);
                    if is_user {
                        let target = info.call_targets.get(user_call).copied().flatten();
                        user_call += 1;
                        match target {
                            Some(f) => {
                                let outs = out_positions(m, f);
                                for (a, _) in args.iter().zip(outs).filter(|(_, o)| *o) {
                                    write(a);
                                }
                            }
                            // Which overload is unknown: any argument may be written.
                            None => {
                                for a in args {
                                    if let Some(mut w) = lvalue(a) {
                                        w.path = None;
                                        writes.push(w);
                                    }
                                }
                            }
                        }
                    } else {
                        for &k in crate::effects::builtin_out_args(name) {
                            if let Some(a) = args.get(k) {
                                write(a);
                            }
                        }
                    }
                }
                _ => {}
            }
        })
    });
    let mut seen = Vec::new();
    writes.retain(|w| {
        let new = !seen.contains(w);
        seen.push(w.clone());
        new
    });
    (declares, writes)
}
