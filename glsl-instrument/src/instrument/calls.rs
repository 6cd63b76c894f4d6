//! Call-instance duplication: every function on the position's call chain
//! is copied under a fresh name and the one call of the chain redirected to
//! the copy, so only that call instance carries the debug write.

use std::collections::{HashMap, HashSet};

use glsl_lang::ast;

use super::build::internal;
use super::position::{Frame, stmt_at};
use crate::InstrumentError;
use crate::ShaderModel;
use crate::parse::Names;
use crate::steps::{StepInfo, call_name, step_exprs, walk_expr};

// ---------------------------------------------------------------------------
// The per-frame edits.

/// Send the `k`-th user call of the step to `new_name`.
pub(super) fn redirect(
    body: &mut ast::CompoundStatement,
    info: &StepInfo,
    k: u32,
    new_name: &str,
    user: &HashSet<String>,
) -> Result<(), InstrumentError> {
    let stmt = stmt_at(body, &info.path).ok_or_else(|| internal("call site not found"))?;
    let mut n = 0;
    let mut done = false;
    step_exprs(stmt, info.part, &mut |e| {
        walk_expr(e, &mut |c| {
            if call_name(c).is_some_and(|(name, _)| user.contains(name)) {
                if n == k
                    && let ast::ExprData::FunCall(id, _) = &mut c.content
                    && let Some(ident) = id.as_ident_mut()
                {
                    *ident = ast::IdentifierData::from(new_name).into();
                    done = true;
                }
                n += 1;
            }
        })
    });
    if done {
        Ok(())
    } else {
        Err(internal("call not found"))
    }
}

pub(super) fn function_def(d: &ast::ExternalDeclaration) -> Option<&ast::FunctionDefinition> {
    match &d.content {
        ast::ExternalDeclarationData::FunctionDefinition(def) => Some(def),
        _ => None,
    }
}

pub(super) fn prototype_decl(p: ast::FunctionPrototype) -> ast::ExternalDeclaration {
    ast::ExternalDeclarationData::Declaration(ast::DeclarationData::FunctionPrototype(p).into())
        .into()
}

// ---------------------------------------------------------------------------

/// A call instance's copy of a function is an ordinary function: a
/// `subroutine(T)` function's qualifier (and its `layout(index = N)`) stay
/// on the original, which the subroutine uniform still selects; GLSL
/// forbids them on a second declaration.
pub(super) fn plain_function(proto: &mut ast::FunctionPrototype) {
    if let Some(q) = &mut proto.ty.qualifier {
        q.qualifiers.retain(|spec| {
            !matches!(
                &spec.content,
                ast::TypeQualifierSpecData::Layout(_)
                    | ast::TypeQualifierSpecData::Storage(ast::StorageQualifier {
                        content: ast::StorageQualifierData::Subroutine(_),
                        ..
                    })
            )
        });
        if q.qualifiers.is_empty() {
            proto.ty.qualifier = None;
        }
    }
}

/// The fresh name of the copy of function `f` at depth `depth` of the chain.
pub(super) fn copy_name(f: &str, depth: usize, names: &mut Names) -> String {
    let base = if f.starts_with('_') {
        format!("gldbg{depth}{f}")
    } else {
        format!("gldbg{depth}_{f}")
    };
    names.fresh(&base)
}

/// The shader's declarations with `main` (`frames[0]`) edited in place and
/// a copy of each other function of the chain, named `dups`, right after
/// its original (with a prototype where the function before calls it).
/// Each frame's call leading on is redirected to the next copy, then
/// `edit(i, frame, definition)` makes the frame's own edits.
pub(super) fn duplicate_chain(
    m: &ShaderModel,
    tu: &[ast::ExternalDeclaration],
    frames: &[Frame],
    dups: &[String],
    mut edit: impl FnMut(usize, &Frame, &mut ast::FunctionDefinition) -> Result<(), InstrumentError>,
) -> Result<Vec<ast::ExternalDeclaration>, InstrumentError> {
    let model = &m.model;
    let mut decls = tu.to_vec();
    let mut before: HashMap<usize, Vec<ast::ExternalDeclaration>> = HashMap::new();
    let mut after: HashMap<usize, Vec<ast::ExternalDeclaration>> = HashMap::new();
    for (i, fr) in frames.iter().enumerate() {
        let decl = model.functions[fr.func].decl;
        let mut def = function_def(&tu[decl])
            .ok_or_else(|| internal("function definition missing"))?
            .clone();
        if i > 0 {
            def.prototype.name = ast::IdentifierData::from(dups[i - 1].as_str()).into();
            plain_function(&mut def.prototype);
        }
        if let Some(k) = fr.call {
            let info = &model.info[fr.step];
            redirect(&mut def.statement, info, k, &dups[i], &model.function_names)?;
        }
        edit(i, fr, &mut def)?;
        let slot = if i == 0 {
            before.entry(decl).or_default()
        } else {
            after.entry(decl).or_default()
        };
        if fr.call.is_some() {
            // A prototype, so this function may call the next duplicate.
            let next = function_def(&tu[model.functions[frames[i + 1].func].decl])
                .ok_or_else(|| internal("callee missing"))?;
            let mut proto = next.prototype.clone();
            proto.name = ast::IdentifierData::from(dups[i].as_str()).into();
            plain_function(&mut proto);
            slot.push(prototype_decl(proto));
        }
        let def_decl: ast::ExternalDeclaration =
            ast::ExternalDeclarationData::FunctionDefinition(def).into();
        if i == 0 {
            decls[decl] = def_decl;
        } else {
            slot.push(def_decl);
        }
    }
    let mut merged = Vec::with_capacity(decls.len() + 2 * frames.len());
    for (i, d) in decls.into_iter().enumerate() {
        merged.extend(before.remove(&i).unwrap_or_default());
        merged.push(d);
        merged.extend(after.remove(&i).unwrap_or_default());
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::instrument::At;
    use crate::instrument::position::resolve;
    use crate::test_shaders::LOOP_BRANCH;
    use crate::{Stage, StepMode};

    #[test]
    fn copy_names_say_the_depth_and_the_function() {
        let idents: HashSet<String> = ["gldbg1_f".to_string()].into();
        let mut names = Names::new(&idents);
        assert_eq!(copy_name("f", 1, &mut names), "gldbg1_f_1");
        assert_eq!(copy_name("_g", 2, &mut names), "gldbg2_g");
    }

    #[test]
    fn the_chains_call_goes_to_the_copy_declared_after_its_original() {
        let m = ShaderModel::parse(LOOP_BRANCH, Stage::Fragment).unwrap();
        let second = m.successors(&m.entry(), StepMode::Into)[0].clone();
        let inside = m.successors(&second, StepMode::Into)[0].clone();
        let chain = resolve(&m, &inside, At::Step).unwrap();
        let dups = vec!["COPY".to_string()];
        let mut edited = Vec::new();
        let decls = duplicate_chain(&m, &m.tu.0, &chain.frames, &dups, |i, _, _| {
            edited.push(i);
            Ok(())
        })
        .unwrap();
        assert_eq!(edited, [0, 1]);
        assert_eq!(decls.len(), m.tu.0.len() + 2);
        let text = crate::parse::print_tu(&decls);
        let (proto, copy) = (
            text.find("float COPY(").unwrap(),
            text.rfind("float COPY(").unwrap(),
        );
        assert!(
            proto < copy && text.find("float shade(").unwrap() < proto,
            "{text}"
        );
        assert!(
            !text.contains("shade(d, 4)") && text.contains("COPY(d, 4)"),
            "{text}"
        );
    }
}
