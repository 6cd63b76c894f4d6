//! The probe expression parser: a user expression (as typed after
//! `print`) parsed inside a probe function, with the shader's struct names,
//! macros and version, errors at a column inside the expression.

use std::collections::{HashMap, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};

use glsl_lang::ast;
use glsl_lang::parse::{DefaultLexer, ParseBuilder, ParseContext, ParseOptions};

use super::placeholder::fresh_placeholder;
use super::tokens::{code_tokens, splice};
use super::workaround::later_keywords::LATER_KEYWORDS;
use super::{line_col, shorten};

/// Parse a user expression (as typed after `print`). `type_names` are the
/// shader's struct names, so constructors of them parse; `macros` (the
/// `#define`s in effect at the step: `Preprocessed::macros_at`) are
/// expanded in it. Errors carry the column inside the
/// expression.
#[cfg(test)]
pub(crate) fn parse_expr(
    expr: &str,
    type_names: &[String],
    macros: &str,
) -> Result<ast::Expr, String> {
    parse_expr_in(expr, type_names, macros, LATEST_VERSION)
}

/// [`parse_expr`] with the shader's `#version` (which built-in type names
/// are keywords: `mat4x2` is a variable name in GLSL 1.10).
pub(crate) fn parse_expr_in(
    expr: &str,
    type_names: &[String],
    macros: &str,
    version: u32,
) -> Result<ast::Expr, String> {
    if expr.trim().is_empty() {
        return Err("empty expression".into());
    }
    if macros.is_empty() {
        return parse_expr_with(expr, type_names, "", version);
    }
    // Macros that do not preprocess alone (e.g. redefined in #if branches
    // that depend on what we dropped) must not make every probe fail.
    parse_expr_with(expr, type_names, macros, version)
        .or_else(|_| parse_expr_with(expr, type_names, "", version))
}

/// [`parse_expr_in`] plus the byte offset where `expr` starts in the text
/// the tree's spans point into (for columns inside the expression).
pub(crate) fn parse_expr_spanned(
    expr: &str,
    type_names: &[String],
    macros: &str,
    version: u32,
) -> Result<(ast::Expr, usize), String> {
    if expr.trim().is_empty() {
        return Err("empty expression".into());
    }
    let prefix = |m: &str| m.len() + PROBE_PREFIX.len();
    if macros.is_empty() {
        return parse_expr_with(expr, type_names, "", version).map(|e| (e, prefix("")));
    }
    match parse_expr_with(expr, type_names, macros, version) {
        Ok(e) => Ok((e, prefix(macros))),
        Err(_) => parse_expr_with(expr, type_names, "", version).map(|e| (e, prefix(""))),
    }
}

/// The latest GLSL version (4.60): where no version is known.
const LATEST_VERSION: u32 = 460;

const PROBE_PREFIX: &str = "void gldbg_probe() {\n";

fn parse_expr_with(
    expr: &str,
    type_names: &[String],
    macros: &str,
    version: u32,
) -> Result<ast::Expr, String> {
    // Later keywords that name variables at this version (`float lowp;`
    // in GLSL 1.10): renamed as in the shader (same length, so columns
    // hold), restored in the tree below.
    let (expr_text, restore) = free_keywords(expr, version);
    let src = format!("{macros}{PROBE_PREFIX}{expr_text}\n;}}");
    let expr_line = macros.matches('\n').count() as u32 + 2;
    let result = catch_unwind(AssertUnwindSafe(|| {
        let ctx = ParseContext::new();
        for name in type_names {
            ctx.add_type_name(ast::IdentifierData::from(name.as_str()).into());
        }
        let opts = ParseOptions {
            default_version: u16::try_from(version).unwrap_or(LATEST_VERSION as u16),
            ..ParseOptions::default()
        };
        // The probe function's block adds its weight. Checked before
        // parsing: the type checker and the printer recurse once per level.
        let limit = crate::depth::EXPR_LIMIT + crate::depth::BLOCK;
        if crate::depth::check(&src, &opts, limit).is_err() {
            return Err((
                usize::MAX,
                crate::depth::message("expression", crate::depth::EXPR_LIMIT),
            ));
        }
        ParseBuilder::<DefaultLexer<'_>, ast::TranslationUnit>::new(&src)
            .opts(&opts)
            .context(&ctx)
            .parse()
            .map(|(tu, _, _)| tu)
            .map_err(|err| {
                (
                    usize::from(err.pos().start()),
                    shorten(&err.inner().to_string()),
                )
            })
    }));
    let tu = match result {
        Ok(Ok(tu)) => tu,
        Ok(Err((usize::MAX, message))) => return Err(message),
        Ok(Err((offset, message))) => {
            let (line, column) = line_col(&src, offset);
            // Past the expression: at the `;` the probe puts after it.
            if line == expr_line + 1 {
                let message = message.replace("unexpected `;`", "the expression ends too early");
                let end = expr.chars().count() + 1;
                return Err(format!("{message} at column {end}"));
            }
            let at = if line == expr_line {
                format!(" at column {column}")
            } else {
                String::new()
            };
            return Err(format!("{message}{at}"));
        }
        Err(_) => return Err("internal error in the GLSL parser".into()),
    };
    let mut decls = tu.0.into_iter();
    let (Some(decl), None) = (decls.next(), decls.next()) else {
        return Err("not a single expression".into());
    };
    let ast::ExternalDeclarationData::FunctionDefinition(def) = decl.content else {
        return Err("not a single expression".into());
    };
    let mut stmts = def.content.statement.content.statement_list.into_iter();
    let (Some(stmt), None) = (stmts.next(), stmts.next()) else {
        return Err("not a single expression".into());
    };
    match stmt.content {
        ast::StatementData::Expression(es) => match es.content.0 {
            // The printer drops the parentheses of a sequence used as a
            // function argument, so a top-level `a, b` cannot be wrapped.
            Some(e) if matches!(e.content, ast::ExprData::Comma(..)) => {
                Err("a sequence (`,`) expression cannot be probed".into())
            }
            Some(mut e) => {
                if !restore.is_empty() {
                    restore_identifiers(&mut e, &restore);
                }
                Ok(e)
            }
            None => Err("empty expression".into()),
        },
        _ => Err("not an expression".into()),
    }
}

/// `expr` with each keyword of [`LATER_KEYWORDS`] that is still an
/// identifier at `version` replaced by a same-length placeholder, and the
/// placeholder → word map. Desktop GLSL has no version 100, 300, 310 or
/// 320, so those are GLSL ES.
fn free_keywords(expr: &str, version: u32) -> (String, HashMap<String, String>) {
    let mut restore = HashMap::new();
    let es = matches!(version, 100 | 300 | 310 | 320);
    let toks = code_tokens(expr);
    let free = |w: &str| {
        LATER_KEYWORDS
            .iter()
            .any(|(kw, d, e)| *kw == w && if es { version < *e } else { version < *d })
    };
    if !toks.iter().any(|t| free(&expr[t.start..t.end])) {
        return (expr.to_string(), restore);
    }
    let used: HashSet<String> = toks
        .iter()
        .map(|t| expr[t.start..t.end].to_string())
        .collect();
    let (mut by_text, mut next_per_len) = Default::default();
    let mut out = expr.to_string();
    for t in &toks {
        let w = &expr[t.start..t.end];
        if free(w)
            && let Some(p) = fresh_placeholder(w, &mut by_text, &mut next_per_len, &used)
        {
            splice(&mut out, t.start, &p);
            restore.insert(p, w.to_string());
        }
    }
    (out, restore)
}

/// Rename the identifiers of `e` by `restore` (placeholder → original).
fn restore_identifiers(e: &mut ast::Expr, restore: &HashMap<String, String>) {
    use glsl_lang::visitor::{HostMut, Visit, VisitorMut};
    struct Restore<'a>(&'a HashMap<String, String>);
    impl VisitorMut for Restore<'_> {
        fn visit_identifier(&mut self, id: &mut ast::Identifier) -> Visit {
            if let Some(t) = self.0.get(id.0.as_str()) {
                id.content = ast::IdentifierData::from(t.as_str());
            }
            Visit::Children
        }
    }
    e.visit_mut(&mut Restore(restore));
}
