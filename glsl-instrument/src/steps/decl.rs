//! Types and variables of declarations: type names as written, the
//! variables a declaration or parameter list brings into scope, the
//! stage's built-ins, and a best-effort type of an expression.

use glsl_lang::ast;
use glsl_lang::transpiler::glsl as printer;

use crate::Variable;
use crate::parse::one_line;

/// "vec3", "float[4]", "S" for a type specifier plus an identifier's array.
pub(crate) fn type_string(ts: &ast::TypeSpecifier, extra: Option<&ast::ArraySpecifier>) -> String {
    let mut s = match &ts.ty.content {
        ast::TypeSpecifierNonArrayData::Struct(st) => st
            .name
            .as_ref()
            .map_or_else(|| "struct".to_string(), |n| n.0.to_string()),
        ast::TypeSpecifierNonArrayData::TypeName(n) => n.0.to_string(),
        _ => one_line(|f, st| printer::show_type_specifier_non_array(f, &ts.ty, st)),
    };
    // `vec4[2] b[3]` is an array of 3 `vec4[2]`: the name's dimensions
    // are the outer ones.
    for a in extra.into_iter().chain(ts.array_specifier.iter()) {
        s.push_str(&one_line(|f, st| printer::show_array_spec(f, a, st)));
    }
    s
}

/// `precise a;` / `invariant a, b;`: parse.rs's stand-in declaration
/// whose type name is the keyword (it declares nothing).
pub(crate) fn qualifies_only(head: &ast::SingleDeclaration) -> bool {
    matches!(&head.ty.ty.ty.content,
        ast::TypeSpecifierNonArrayData::TypeName(n) if matches!(n.0.as_str(), "precise" | "invariant"))
}

/// The built-in variables a step of `stage` lists (builtins.rs).
pub(crate) fn builtin_scope(
    stage: crate::Stage,
    version: u32,
    es: bool,
    compat: bool,
) -> Vec<Variable> {
    crate::builtins::scope_variables(stage, version, es, compat)
        .map(|v| Variable {
            name: v.name.to_string(),
            ty: v.ty.to_string(),
        })
        .collect()
}

/// Variables declared by a declaration (global or local).
pub(crate) fn declared_variables(d: &ast::Declaration) -> Vec<Variable> {
    let mut out = Vec::new();
    match &d.content {
        ast::DeclarationData::InitDeclaratorList(list) if qualifies_only(&list.head) => {}
        ast::DeclarationData::InitDeclaratorList(list) => {
            let ty = &list.head.ty.ty;
            if let Some(name) = &list.head.name {
                out.push(Variable {
                    name: name.0.to_string(),
                    ty: type_string(ty, list.head.array_specifier.as_ref()),
                });
            }
            for t in &list.tail {
                out.push(Variable {
                    name: t.ident.ident.0.to_string(),
                    ty: type_string(ty, t.ident.array_spec.as_ref()),
                });
            }
        }
        ast::DeclarationData::Block(b) => match &b.identifier {
            Some(id) => {
                let mut ty = b.name.0.to_string();
                if let Some(a) = &id.array_spec {
                    ty.push_str(&one_line(|f, st| printer::show_array_spec(f, a, st)));
                }
                out.push(Variable {
                    name: id.ident.0.to_string(),
                    ty,
                });
            }
            None => {
                for field in &b.fields {
                    for id in &field.identifiers {
                        out.push(Variable {
                            name: id.ident.0.to_string(),
                            ty: type_string(&field.ty, id.array_spec.as_ref()),
                        });
                    }
                }
            }
        },
        _ => {}
    }
    out
}

pub(super) fn struct_name(d: &ast::Declaration) -> Option<String> {
    if let ast::DeclarationData::InitDeclaratorList(list) = &d.content
        && let ast::TypeSpecifierNonArrayData::Struct(st) = &list.head.ty.ty.ty.content
    {
        return st.name.as_ref().map(|n| n.0.to_string());
    }
    None
}

pub(super) fn parameters(proto: &ast::FunctionPrototype) -> Vec<Variable> {
    proto
        .parameters
        .iter()
        .filter_map(|p| match &p.content {
            ast::FunctionParameterDeclarationData::Named(_, d) => Some(Variable {
                name: d.ident.ident.0.to_string(),
                ty: type_string(&d.ty, d.ident.array_spec.as_ref()),
            }),
            ast::FunctionParameterDeclarationData::Unnamed(..) => None,
        })
        .collect()
}

pub(crate) fn parameter_types(proto: &ast::FunctionPrototype) -> Vec<String> {
    let is_void = |p: &ast::FunctionParameterDeclaration| {
        matches!(&p.content, ast::FunctionParameterDeclarationData::Unnamed(_, ts)
            if ts.ty.content == ast::TypeSpecifierNonArrayData::Void && ts.array_specifier.is_none())
    };
    match proto.parameters.as_slice() {
        [p] if is_void(p) => Vec::new(),
        ps => ps
            .iter()
            .map(|p| match &p.content {
                ast::FunctionParameterDeclarationData::Named(_, d) => {
                    type_string(&d.ty, d.ident.array_spec.as_ref())
                }
                ast::FunctionParameterDeclarationData::Unnamed(_, ts) => type_string(ts, None),
            })
            .collect(),
    }
}

/// A best-effort type of `e` (no type checker here): enough to tell
/// common overloads apart. None = unknown.
pub(super) fn infer_type(e: &ast::Expr, scope: &[Variable]) -> Option<String> {
    use ast::ExprData as E;
    const SCALARS: [&str; 5] = ["float", "int", "uint", "bool", "double"];
    // "vec3" -> ("", 3), "ivec2" -> ("i", 2); scalars -> their vector prefix, 1.
    let vector = |t: &str| -> Option<(String, usize)> {
        if let Some(i) = SCALARS.iter().position(|s| *s == t) {
            return Some((["", "i", "u", "b", "d"][i].to_string(), 1));
        }
        let at = t.find("vec")?;
        let n: usize = t[at + 3..].parse().ok()?;
        Some((t[..at].to_string(), n))
    };
    let make = |prefix: &str, n: usize| -> String {
        if n == 1 {
            let i = ["", "i", "u", "b", "d"]
                .iter()
                .position(|p| *p == prefix)
                .unwrap_or(0);
            SCALARS[i].to_string()
        } else {
            format!("{prefix}vec{n}")
        }
    };
    match &e.content {
        E::Variable(v) => scope
            .iter()
            .rev()
            .find(|x| x.name == v.as_str())
            .map(|x| x.ty.clone()),
        E::IntConst(_) => Some("int".into()),
        E::UIntConst(_) => Some("uint".into()),
        E::BoolConst(_) => Some("bool".into()),
        E::FloatConst(_) => Some("float".into()),
        E::DoubleConst(_) => Some("double".into()),
        E::FunCall(id, _) => match &id.content {
            ast::FunIdentifierData::TypeSpecifier(ts) => Some(type_string(ts, None)),
            ast::FunIdentifierData::Expr(_) => None,
        },
        E::Dot(inner, field) => {
            let (prefix, n) = vector(&infer_type(inner, scope)?)?;
            let len = field.as_str().len();
            (n > 1
                && (1..=4).contains(&len)
                && field.as_str().chars().all(|c| "xyzwrgbastpq".contains(c)))
            .then(|| make(&prefix, len))
        }
        E::Unary(_, a) | E::PostInc(a) | E::PostDec(a) | E::Assignment(a, _, _) => {
            infer_type(a, scope)
        }
        E::Ternary(_, a, b) => infer_type(a, scope).or_else(|| infer_type(b, scope)),
        E::Bracket(a, _) => {
            let t = infer_type(a, scope)?;
            if let Some(open) = t.rfind('[') {
                return Some(t[..open].to_string());
            }
            let (prefix, n) = vector(&t)?;
            (n > 1).then(|| make(&prefix, 1))
        }
        E::Binary(op, a, b) => {
            use ast::BinaryOpData as B;
            match op.content {
                B::Or
                | B::Xor
                | B::And
                | B::Equal
                | B::NonEqual
                | B::Lt
                | B::Gt
                | B::Lte
                | B::Gte => Some("bool".into()),
                _ => {
                    let (ta, tb) = (infer_type(a, scope)?, infer_type(b, scope)?);
                    if ta == tb || SCALARS.contains(&tb.as_str()) {
                        Some(ta)
                    } else if SCALARS.contains(&ta.as_str()) {
                        Some(tb)
                    } else {
                        None
                    }
                }
            }
        }
        E::Comma(_, b) => infer_type(b, scope),
    }
}

// ---------------------------------------------------------------------------
// The walk.
