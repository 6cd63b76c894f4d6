//! Repairs of glsl-lang 0.8's printer and of the order of declarations in
//! the assembled debug shader.

use glsl_lang::ast;

use super::build::{boolean, wrap_expr};
use crate::parse::print_tu;
use crate::steps::{walk_expr, walk_stmt_exprs};

/// The debug shader's text: `#version`, `extension_lines`, the original
/// preamble, `prelude` (our declarations) before the first function, the
/// functions, then `tail`. Repairs the printer's defects first.
pub(super) fn shader_text(
    decls: &mut Vec<ast::ExternalDeclaration>,
    extension_lines: &[String],
    prelude: &str,
    tail: &str,
) -> String {
    protect_commas(decls);
    hoist_builtin_redeclarations(decls);
    let is_version = |d: &ast::ExternalDeclaration| matches!(&d.content, ast::ExternalDeclarationData::Preprocessor(p) if matches!(p.content, ast::PreprocessorData::Version(_)));
    let head_end = decls.iter().position(is_version).map_or(0, |v| v + 1);
    let helpers_at = decls
        .iter()
        .position(is_function)
        .unwrap_or(decls.len())
        .max(head_end);
    let mut source = String::new();
    let mut push = |text: &str| {
        if !text.is_empty() {
            if !source.is_empty() && !source.ends_with('\n') {
                source.push('\n');
            }
            source.push_str(text);
        }
    };
    push(&print_tu(&decls[..head_end]));
    for line in extension_lines {
        push(&format!("{line}\n"));
    }
    push(&print_tu(&decls[head_end..helpers_at]));
    push(prelude);
    push(&print_tu(&decls[helpers_at..]));
    push(tail);
    fix_type_names(&source)
}

/// A function definition or prototype.
fn is_function(d: &ast::ExternalDeclaration) -> bool {
    match &d.content {
        ast::ExternalDeclarationData::FunctionDefinition(_) => true,
        ast::ExternalDeclarationData::Declaration(decl) => {
            matches!(decl.content, ast::DeclarationData::FunctionPrototype(_))
        }
        _ => false,
    }
}

/// Equal for equal debug programs: the source and the siblings it links with.
pub(crate) fn cache_key(source: &str, siblings: &[String]) -> u64 {
    let mut key_text = source.to_string();
    for sib in siblings {
        key_text.push('\0');
        key_text.push_str(sib);
    }
    fnv1a(&key_text)
}

/// FNV-1a offset basis and prime (64-bit).
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(FNV_OFFSET, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(FNV_PRIME)
    })
}

/// Move redeclarations of built-in variables (`layout(origin_upper_left)
/// in vec4 gl_FragCoord;`) that come after a function to just before the
/// first function: a duplicate of that function, placed next to it, may
/// read the built-in in its probe, and GLSL rejects a use before the
/// redeclaration. A redeclaration applies to the whole shader, so the move
/// changes no value.
fn hoist_builtin_redeclarations(decls: &mut Vec<ast::ExternalDeclaration>) {
    let redeclares_builtin = |d: &ast::ExternalDeclaration| match &d.content {
        ast::ExternalDeclarationData::Declaration(decl) => match &decl.content {
            ast::DeclarationData::InitDeclaratorList(list) => list
                .head
                .name
                .as_ref()
                .is_some_and(|n| n.0.as_str().starts_with("gl_")),
            _ => false,
        },
        _ => false,
    };
    let Some(first) = decls.iter().position(is_function) else {
        return;
    };
    let mut moved = Vec::new();
    let mut i = first;
    while i < decls.len() {
        if redeclares_builtin(&decls[i]) {
            moved.push(decls.remove(i));
        } else {
            i += 1;
        }
    }
    for (k, d) in moved.into_iter().enumerate() {
        decls.insert(first + k, d);
    }
}

/// glsl-lang 0.8's printer drops the parentheses of a comma expression that
/// is a call argument or an initializer (`f((a, b))` prints `f(a, b)`,
/// `float x = (a, b);` prints `float x = a, b;`). Such an `(a, b)` becomes
/// `true ? a, b : b`: the printer writes a ternary's middle operand as is and
/// the grammar allows a sequence there; `a` and `b` run once, the value and
/// type are `b`'s, and a constant stays constant.
pub(crate) fn protect_commas(decls: &mut [ast::ExternalDeclaration]) {
    fn in_list(e: &mut ast::Expr) {
        if let ast::ExprData::Comma(_, b) = &e.content {
            let b = (**b).clone();
            wrap_expr(e, |c| {
                ast::ExprData::Ternary(Box::new(boolean(true)), Box::new(c), Box::new(b)).into()
            });
        }
    }
    fn args(e: &mut ast::Expr) {
        walk_expr(e, &mut |e| {
            if let ast::ExprData::FunCall(_, a) = &mut e.content {
                a.iter_mut().for_each(in_list);
            }
        });
    }
    fn initializer(i: &mut ast::Initializer) {
        match &mut i.content {
            ast::InitializerData::Simple(e) => {
                args(e);
                in_list(e);
            }
            ast::InitializerData::List(list) => list.iter_mut().for_each(initializer),
        }
    }
    fn declaration(d: &mut ast::Declaration) {
        if let ast::DeclarationData::InitDeclaratorList(list) = &mut d.content {
            list.head.initializer.iter_mut().for_each(initializer);
            for t in &mut list.tail {
                t.initializer.iter_mut().for_each(initializer);
            }
        }
    }
    fn statement(s: &mut ast::Statement) {
        use ast::IterationStatementData as It;
        use ast::StatementData as S;
        match &mut s.content {
            S::Declaration(d) => declaration(d),
            S::Compound(c) => c.statement_list.iter_mut().for_each(statement),
            S::Switch(sw) => sw.body.iter_mut().for_each(statement),
            S::Selection(sel) => match &mut sel.rest.content {
                ast::SelectionRestStatementData::Statement(a) => statement(a),
                ast::SelectionRestStatementData::Else(a, b) => {
                    statement(a);
                    statement(b);
                }
            },
            S::Iteration(it) => {
                let (cond, body) = match &mut it.content {
                    It::While(c, body) => (Some(c), body),
                    It::DoWhile(body, _) => (None, body),
                    It::For(init, rest, body) => {
                        if let ast::ForInitStatementData::Declaration(d) = &mut init.content {
                            declaration(d);
                        }
                        (rest.condition.as_mut(), body)
                    }
                };
                if let Some(c) = cond
                    && let ast::ConditionData::Assignment(_, _, i) = &mut c.content
                {
                    initializer(i);
                }
                statement(body);
            }
            _ => {}
        }
    }
    for d in decls.iter_mut() {
        match &mut d.content {
            ast::ExternalDeclarationData::Declaration(decl) => declaration(decl),
            ast::ExternalDeclarationData::FunctionDefinition(def) => {
                for st in &mut def.statement.statement_list {
                    // Call arguments anywhere (initializers included),
                    // then the initializers themselves.
                    walk_stmt_exprs(st, &mut |e| {
                        if let ast::ExprData::FunCall(_, a) = &mut e.content {
                            a.iter_mut().for_each(in_list);
                        }
                    });
                    statement(st);
                }
            }
            _ => {}
        }
    }
}

/// glsl-lang 0.8's printer misspells some type names
/// (transpiler/glsl.rs: `isampler2MS`, `usamplerDMSArray`): put the right
/// ones back, as whole words.
pub(crate) fn fix_type_names(source: &str) -> String {
    const WRONG: [(&str, &str); 2] = [
        ("isampler2MS", "isampler2DMS"),
        ("usamplerDMSArray", "usampler2DMSArray"),
    ];
    if !WRONG.iter().any(|(w, _)| source.contains(w)) {
        return source.to_string();
    }
    let mut out = String::with_capacity(source.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let fixed = WRONG.iter().find(|(w, _)| w == word).map(|(_, r)| *r);
        out.push_str(fixed.unwrap_or(word));
        word.clear();
    };
    for c in source.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misspelt_type_names_are_fixed_as_whole_words() {
        assert_eq!(
            fix_type_names("uniform isampler2MS s; int isampler2MSx;"),
            "uniform isampler2DMS s; int isampler2MSx;"
        );
        assert_eq!(fix_type_names("usamplerDMSArray"), "usampler2DMSArray");
    }

    #[test]
    fn cache_keys_differ_with_the_siblings() {
        let a = cache_key("void main() {}", &[]);
        assert_eq!(a, cache_key("void main() {}", &[]));
        assert_ne!(a, cache_key("void main() {}", &["x".into()]));
        assert_eq!(fnv1a(""), FNV_OFFSET);
    }

    #[test]
    fn comma_arguments_keep_their_parentheses() {
        let tu = crate::parse::parse_shader("void main() { float x = f((a, b)); }").unwrap();
        let mut decls = tu.tu.0;
        let text = shader_text(&mut decls, &[], "", "");
        assert!(text.contains("true ? a, b : b"), "{text}");
    }
}
