//! The glsl-lang front-end: parsing a shader with the full preprocessor
//! (so `#define`, `#if` and `#line` work and spans are byte offsets into the
//! original source), mapping offsets to 1-based line:column, parsing a
//! user expression, printing AST pieces, and collecting identifiers so
//! generated names are unique.

use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};

use glsl_lang::ast;
use glsl_lang::parse::{DefaultLexer, ParseBuilder, ParseContext, ParseOptions};
use glsl_lang::transpiler::glsl as printer;

use crate::ParseError;

/// A parsed shader: the tree (with `#version`/`#extension`/`#pragma`
/// injected back so they survive printing) and what the preamble said.
pub(crate) struct Parsed {
    pub tu: ast::TranslationUnit,
    /// `#version` number (110 if absent).
    pub version: u32,
    pub es: bool,
    /// Names of `#extension`s the shader enables.
    pub extensions: Vec<String>,
    /// `#extension` lines glsl-lang does not know (it rejects them): they
    /// were blanked before parsing and must be written back after `#version`.
    pub unknown_extensions: Vec<String>,
}

/// Blank out `#extension` lines naming extensions missing from glsl-lang's
/// registry (it fails on them even with `enable`), keeping every byte
/// offset. Returns the edited source and the removed lines.
fn hide_unknown_extensions(src: &str) -> (String, Vec<String>, Vec<String>) {
    use glsl_lang_pp::exts::{DEFAULT_REGISTRY, names::ExtNameAtom};
    let mut out = String::with_capacity(src.len());
    let mut lines = Vec::new();
    let mut names = Vec::new();
    for line in src.split_inclusive('\n') {
        let t = line.trim_start();
        let name = t
            .strip_prefix('#')
            .map(str::trim_start)
            .and_then(|r| r.strip_prefix("extension"))
            .and_then(|r| {
                let r = r.trim_start();
                let end = r
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(r.len());
                (end > 0).then(|| &r[..end])
            });
        match name {
            Some(n) if n != "all" && DEFAULT_REGISTRY.get(&ExtNameAtom::from(n)).is_none() => {
                lines.push(line.trim_end().to_string());
                if !line.contains(": disable") && !line.contains(":disable") {
                    names.push(n.to_string());
                }
                for c in line.chars() {
                    // Same byte length, so every offset still matches `src`.
                    if c == '\n' || c == '\r' {
                        out.push(c);
                    } else {
                        out.extend(std::iter::repeat_n(' ', c.len_utf8()));
                    }
                }
            }
            _ => out.push_str(line),
        }
    }
    (out, lines, names)
}

/// 1-based (line, column) of a byte offset of `src`; columns count characters.
pub(crate) fn line_col(src: &str, offset: usize) -> (u32, u32) {
    let mut offset = offset.min(src.len());
    while !src.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &src[..offset];
    let line = before.matches('\n').count() as u32 + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = src[line_start..offset].chars().count() as u32 + 1;
    (line, column)
}

/// Parse a complete shader. Never panics: a panic inside glsl-lang is
/// turned into a ParseError at 1:1.
pub(crate) fn parse_shader(src: &str) -> Result<Parsed, ParseError> {
    let opts = ParseOptions {
        default_version: 110,
        ..ParseOptions::default()
    };
    let (edited, unknown_extensions, unknown_names) = hide_unknown_extensions(src);
    let result = catch_unwind(AssertUnwindSafe(|| {
        match ParseBuilder::<DefaultLexer<'_>, ast::TranslationUnit>::new(&edited)
            .opts(&opts)
            .parse()
        {
            Ok((mut tu, _ctx, lexer)) => {
                lexer.into_directives().inject(&mut tu);
                Ok(tu)
            }
            Err(err) => {
                let (line, column) = line_col(src, usize::from(err.pos().start()));
                Err(ParseError {
                    line,
                    column,
                    message: shorten(&err.inner().to_string()),
                })
            }
        }
    }));
    let tu = match result {
        Ok(r) => r?,
        Err(_) => {
            return Err(ParseError {
                line: 1,
                column: 1,
                message: "internal error in the GLSL parser".into(),
            });
        }
    };
    let mut version = 110;
    let mut es = false;
    let mut extensions = unknown_names;
    for decl in &tu.0 {
        if let ast::ExternalDeclarationData::Preprocessor(pp) = &decl.content {
            match &pp.content {
                ast::PreprocessorData::Version(v) => {
                    version = u32::from(v.version);
                    es = version == 100
                        || matches!(
                            v.profile.as_ref().map(|p| &p.content),
                            Some(ast::PreprocessorVersionProfileData::Es)
                        );
                }
                ast::PreprocessorData::Extension(e) => {
                    if let ast::PreprocessorExtensionNameData::Specific(name) = &e.name.content {
                        let disabled = matches!(
                            e.behavior.as_ref().map(|b| &b.content),
                            Some(ast::PreprocessorExtensionBehaviorData::Disable)
                        );
                        if !disabled {
                            extensions.push(name.to_string());
                        }
                    }
                }
                _ => {}
            }
        }
    }
    Ok(Parsed {
        tu,
        version,
        es,
        extensions,
        unknown_extensions,
    })
}

/// glsl-lang lists every acceptable token after "expected"; keep a few.
fn shorten(message: &str) -> String {
    match message.split_once(", expected ") {
        Some((head, list)) => {
            let items: Vec<&str> = list.split(", ").collect();
            if items.len() > 6 {
                format!("{head}, expected {}, ...", items[..6].join(", "))
            } else {
                message.to_string()
            }
        }
        None => message.to_string(),
    }
}

/// The shader's macro and conditional directives (`#define`, `#undef`,
/// `#if*`, `#elif`, `#else`, `#endif`, with continuation lines), so a probe
/// expression sees the same macros as the code (at the end of the shader).
pub(crate) fn macro_lines(src: &str) -> String {
    const KEEP: [&str; 8] = [
        "define", "undef", "ifdef", "ifndef", "if", "elif", "else", "endif",
    ];
    let mut out = String::new();
    let mut continued = false;
    for line in src.lines() {
        let keep = continued || {
            let t = line.trim_start();
            t.strip_prefix('#').map(str::trim_start).is_some_and(|d| {
                let word: String = d.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
                KEEP.contains(&word.as_str())
            })
        };
        if keep {
            out.push_str(line);
            out.push('\n');
        }
        continued = keep && line.trim_end().ends_with('\\');
    }
    out
}

/// Parse a user expression (as typed after `print`). `type_names` are the
/// shader's struct names, so constructors of them parse; `macros` (see
/// [`macro_lines`]) are expanded in it. Errors carry the column inside the
/// expression.
pub(crate) fn parse_expr(
    expr: &str,
    type_names: &[String],
    macros: &str,
) -> Result<ast::Expr, String> {
    if expr.trim().is_empty() {
        return Err("empty expression".into());
    }
    if macros.is_empty() {
        return parse_expr_with(expr, type_names, "");
    }
    // Macros that do not preprocess alone (e.g. redefined in #if branches
    // that depend on what we dropped) must not make every probe fail.
    parse_expr_with(expr, type_names, macros).or_else(|_| parse_expr_with(expr, type_names, ""))
}

fn parse_expr_with(expr: &str, type_names: &[String], macros: &str) -> Result<ast::Expr, String> {
    let src = format!("{macros}void gldbg_probe() {{\n{expr}\n;}}");
    let expr_line = macros.matches('\n').count() as u32 + 2;
    let result = catch_unwind(AssertUnwindSafe(|| {
        let ctx = ParseContext::new();
        for name in type_names {
            ctx.add_type_name(ast::IdentifierData::from(name.as_str()).into());
        }
        ParseBuilder::<DefaultLexer<'_>, ast::TranslationUnit>::new(&src)
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
        Ok(Err((offset, message))) => {
            let (line, column) = line_col(&src, offset);
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
            Some(e) => Ok(e),
            None => Err("empty expression".into()),
        },
        _ => Err("not an expression".into()),
    }
}

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

/// Every identifier-like word of `text`.
pub(crate) fn words(text: &str, into: &mut HashSet<String>) {
    let mut cur = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_alphanumeric() || c == '_' {
            cur.push(c);
        } else if !cur.is_empty() {
            if !cur.as_bytes()[0].is_ascii_digit() {
                into.insert(std::mem::take(&mut cur));
            } else {
                cur.clear();
            }
        }
    }
}

/// Generator of names not used anywhere in the shader.
pub(crate) struct Names {
    used: HashSet<String>,
}

impl Names {
    pub fn new(used: &HashSet<String>) -> Names {
        Names { used: used.clone() }
    }

    /// `base` if free, else `base_1`, `base_2`, ...; reserves the result.
    pub fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut n = 1;
        while self.used.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.used.insert(name.clone());
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_chars() {
        let s = "ab\ncé d";
        assert_eq!(line_col(s, 0), (1, 1));
        assert_eq!(line_col(s, 3), (2, 1));
        assert_eq!(line_col(s, 7), (2, 4));
        assert_eq!(line_col(s, 100), (2, 5));
    }

    #[test]
    fn version_and_extensions() {
        let p = parse_shader("#version 300 es\n#extension GL_EXT_foo : enable\nvoid main(){}\n")
            .unwrap();
        assert_eq!((p.version, p.es), (300, true));
        assert_eq!(p.extensions, vec!["GL_EXT_foo".to_string()]);
        let p = parse_shader("void main(){}\n").unwrap();
        assert_eq!((p.version, p.es), (110, false));
        // glsl-lang rejects extensions it does not know: they are hidden and kept.
        let p =
            parse_shader("#version 330\n#extension GL_FOO_bar : require\nvoid main(){}\n").unwrap();
        assert_eq!(
            p.unknown_extensions,
            vec!["#extension GL_FOO_bar : require".to_string()]
        );
        assert_eq!(p.extensions, vec!["GL_FOO_bar".to_string()]);
    }

    #[test]
    fn errors_have_positions_and_short_messages() {
        let e = parse_shader("void main() {\n  x = ;\n}").err().unwrap();
        assert_eq!((e.line, e.column), (2, 7));
        assert!(e.message.len() < 200, "{}", e.message);
        let e = parse_shader("#version 400\nsubroutine vec4 S(vec4 c);\nsubroutine(S) vec4 f(vec4 c){return c;}\nvoid main(){}\n").err().unwrap();
        assert_eq!(e.line, 3);
    }

    #[test]
    fn expression_errors() {
        assert!(parse_expr("a + b * 2.0", &[], "").is_ok());
        let e = parse_expr("a + * 2.0", &[], "").unwrap_err();
        assert!(e.contains("at column 5"), "{e}");
        assert!(parse_expr("a; b", &[], "").is_err());
        assert!(parse_expr("a); } void f() { (b", &[], "").is_err());
        assert!(parse_expr("", &[], "").is_err());
        assert!(parse_expr("a, b", &[], "").is_err());
        assert!(parse_expr("S(1.0).x", &["S".into()], "").is_ok());
    }

    #[test]
    fn expressions_see_the_shader_macros() {
        let src = "#version 330\n#define TWO_PI (2.0 * \\\n  3.14159)\n#ifdef GL_ES\n#define K 1.0\n#else\n#define K 2.0\n#endif\nvoid main() {}\n";
        let macros = macro_lines(src);
        assert_eq!(macros.lines().count(), 7);
        let e = parse_expr("r * TWO_PI + K", &[], &macros).unwrap();
        assert_eq!(expr_text(&e), "r * (2. * 3.14159) + 2.");
        let err = parse_expr("r +* K", &[], &macros).unwrap_err();
        assert!(err.contains("at column 4"), "{err}");
    }

    #[test]
    fn names_are_fresh() {
        let mut used = HashSet::new();
        words("float gldbg_v; int x2 = 3;", &mut used);
        let mut n = Names::new(&used);
        assert_eq!(n.fresh("gldbg_v"), "gldbg_v_1");
        assert_eq!(n.fresh("gldbg_v"), "gldbg_v_2");
        assert_eq!(n.fresh("gldbg_c"), "gldbg_c");
    }
}
