//! Printing AST pieces with glsl-lang's printer (one line for step text
//! and messages, a whole translation unit for debug shaders).

use glsl_lang::ast;
use glsl_lang::transpiler::glsl as printer;

/// Print a node with glsl-lang's printer, whitespace collapsed to one line.
pub(crate) fn one_line(
    show: impl FnOnce(&mut String, &mut printer::FormattingState<'_>) -> std::fmt::Result,
) -> String {
    let mut out = String::new();
    let mut state = printer::FormattingState::default();
    let _ = show(&mut out, &mut state);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(crate) fn expr_text(e: &ast::Expr) -> String {
    one_line(|f, s| printer::show_expr(f, e, s))
}

pub(crate) fn stmt_text(st: &ast::Statement) -> String {
    one_line(|f, s| printer::show_statement(f, st, s))
}

/// Print a whole translation unit.
pub(crate) fn print_tu(decls: &[ast::ExternalDeclaration]) -> String {
    let mut out = String::new();
    let tu = ast::TranslationUnit(decls.to_vec());
    let _ = printer::show_translation_unit(&mut out, &tu, printer::FormattingState::default());
    out
}
