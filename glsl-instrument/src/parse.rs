//! The glsl-lang front-end: parsing the active lines of a shader (which
//! ones, [`crate::preprocess`] decides; glsl-lang's preprocessor expands
//! their macros, and spans are byte offsets into the source) and mapping
//! offsets to 1-based line:column. Its parts:
//!
//! * `workaround`: valid GLSL glsl-lang rejects, one module per defect,
//!   rewritten keeping every byte offset and restored in the tree;
//! * `strategy`: the attempts of a parse, named and tried in order;
//! * `tokens`, `placeholder`: the scanner and the same-length placeholder
//!   names the rewrites use;
//! * `expr`: the probe expression parser;
//! * `print`: glsl-lang's printer on AST pieces;
//! * `names`: identifiers of a text, fresh names for generated code.

use std::collections::{HashMap, HashSet};

use glsl_lang::ast;
use glsl_lang::parse::ParseOptions;

use crate::{Api, ParseError};

mod expr;
mod names;
mod placeholder;
mod print;
mod strategy;
mod tokens;
mod workaround;

#[cfg(test)]
pub(crate) use expr::parse_expr;
pub(crate) use expr::{parse_expr_in, parse_expr_spanned};
pub(crate) use names::{Names, words};
pub(crate) use print::{expr_text, one_line, print_tu, stmt_text};
use workaround::{gated_types, unknown_extensions, wide_literals};

/// A parsed shader: the tree (with `#version`/`#extension`/`#pragma`
/// injected back so they survive printing) and what the preamble said.
pub(crate) struct Parsed {
    pub tu: ast::TranslationUnit,
    /// `#version` number (if absent: 110, or 100 in a GL ES context).
    pub version: u32,
    pub es: bool,
    /// `#version N compatibility`.
    pub compat: bool,
    /// Names of `#extension`s the shader enables.
    pub extensions: Vec<String>,
    /// `#extension` lines glsl-lang does not know (it rejects them): they
    /// were blanked before parsing and must be written back after `#version`.
    pub unknown_extensions: Vec<String>,
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

/// Parse a complete shader without named strings to include (tests).
#[cfg(test)]
pub(crate) fn parse_shader(src: &str) -> Result<Parsed, ParseError> {
    let p = crate::preprocess::preprocess(src, &Default::default(), Api::Gl)?;
    parse_active(&p.text, &p.active, Api::Gl)
}

/// Parse a complete shader of a context of `api` (which decides what a
/// shader without `#version` is): `src` as the model holds it, `active` the
/// same text with the lines the preprocessor leaves out blanked
/// ([`crate::preprocess`]: glsl-lang decides no branch itself). Never
/// panics: a panic inside glsl-lang is turned into a ParseError at 1:1.
pub(crate) fn parse_active(src: &str, active: &str, api: Api) -> Result<Parsed, ParseError> {
    let opts = ParseOptions {
        default_version: api.default_version().0 as u16,
        ..ParseOptions::default()
    };
    let mut used = HashSet::new();
    words(src, &mut used);
    let mut renames = HashMap::new();
    let (edited, unknown_extensions, unknown_names) =
        unknown_extensions::hide(active, &used, &mut renames);
    used.extend(renames.keys().cloned());
    let (edited, mut literals, placeholder_types) = wide_literals::hide(&edited, &used);
    literals.extend(renames);
    let front = strategy::Front {
        src,
        opts,
        // Gated built-in type names the source uses: declared as type
        // names on a second attempt (an old shader may use e.g. `mat4x2`
        // as a variable name).
        gated: gated_types::GATED_TYPE_NAMES
            .iter()
            .copied()
            .filter(|n| used.contains(*n))
            .collect(),
        placeholder_types,
        literals,
    };
    let tu = strategy::parse(&front, edited, api, &used)?;
    finish(tu, api, unknown_names, unknown_extensions)
}

/// The [`Parsed`] of a tree: version and extensions from its directives.
fn finish(
    tu: ast::TranslationUnit,
    api: Api,
    unknown_names: Vec<String>,
    unknown_extensions: Vec<String>,
) -> Result<Parsed, ParseError> {
    let (mut version, mut es) = api.default_version();
    let mut compat = false;
    let mut extensions = unknown_names;
    for decl in &tu.0 {
        if let ast::ExternalDeclarationData::Preprocessor(pp) = &decl.content {
            match &pp.content {
                ast::PreprocessorData::Version(v) => {
                    version = u32::from(v.version);
                    compat = matches!(
                        v.profile.as_ref().map(|p| &p.content),
                        Some(ast::PreprocessorVersionProfileData::Compatibility)
                    );
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
        compat,
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
        // ... and their macro is defined, as by a driver that has them.
        let src = "#version 110\n#extension GL_AMD_foo : require\n#if !defined GL_AMD_foo || GL_AMD_foo != 1\n#error no\n#endif\nvoid main(){ x = ; }\n";
        let e = parse_shader(src).err().unwrap();
        assert_eq!((e.line, e.column), (6, 18), "{e}");
        let p = parse_shader("#version 110\n#extension GL_AMD_foo : enable\n#ifdef GL_AMD_foo\nvoid main(){ }\n#endif\n").unwrap();
        let printed = print_tu(&p.tu.0);
        assert!(printed.contains("void main"), "{printed}");
        assert!(!printed.contains("#define"), "{printed}");
    }

    #[test]
    fn errors_have_positions_and_short_messages() {
        let e = parse_shader("void main() {\n  x = ;\n}").err().unwrap();
        assert_eq!((e.line, e.column), (2, 7));
        assert!(e.message.len() < 200, "{}", e.message);
        let e = parse_shader(
            "#version 400\nvec4 S(vec4 c);\nvec4 f(vec4 c){return c +;}\nvoid main(){}\n",
        )
        .err()
        .unwrap();
        assert_eq!((e.line, e.column), (3, 26));
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
        assert!(parse_expr("mat4x2 * 2.0", &[], "").is_err());
        assert!(parse_expr_in("mat4x2 * 2.0", &[], "", 110).is_ok());
    }

    #[test]
    fn expressions_see_the_shader_macros() {
        let src = "#version 330\n#define TWO_PI (2.0 * \\\n  3.14159)\n#ifdef GL_ES\n#define K 1.0\n#else\n#define K 2.0\n#endif\nvoid main() {}\n";
        let macros = crate::preprocess::preprocess(src, &Default::default(), Api::Gl)
            .unwrap()
            .macros_at(9);
        assert_eq!(macros.lines().count(), 2);
        let e = parse_expr("r * TWO_PI + K", &[], &macros).unwrap();
        assert_eq!(expr_text(&e), "r * (2. * 3.14159) + 2.");
        let err = parse_expr("r +* K", &[], &macros).unwrap_err();
        assert!(err.contains("at column 4"), "{err}");
    }

    #[test]
    fn gated_type_names_and_wide_literals() {
        // atomic_uint is core in ES 3.10; dvec3 comes from an extension in 1.50.
        let p = parse_shader("#version 310 es\nlayout(binding = 0) uniform atomic_uint a;\nvoid main() { atomicCounterIncrement(a); }\n").unwrap();
        assert!(print_tu(&p.tu.0).contains("uniform atomic_uint a"));
        let src = "#version 150\n#extension GL_ARB_gpu_shader_int64 : require\n#define BIG 0xffffffff\n#if 0\n#endif\nvoid main() {\n  int a = 0xe40fe410;\n  int64_t b = 20l + int64_t(BIG);\n  uint64_t c = 0ul; // 0xffffffffffl\n  i64vec2 d = i64vec2(3000000000l);\n  int e = 017777777777 + 020000000000;\n}\n";
        let p = parse_shader(src).unwrap();
        let printed = print_tu(&p.tu.0);
        for lit in [
            "0xe40fe410",
            "20l",
            "0ul",
            "3000000000l",
            "0xffffffff",
            "020000000000",
        ] {
            assert!(printed.contains(lit), "{lit} missing in {printed}");
        }
        assert!(printed.contains("i64vec2 d"), "{printed}");
        assert!(!printed.contains("_a"), "{printed}");
        // Every offset is kept: an error after the literals is where it is.
        let e = parse_shader("void main() {\n  int a = 0xe40fe410; x = ;\n}")
            .err()
            .unwrap();
        assert_eq!((e.line, e.column), (2, 27));
        let p = parse_shader("#version 120\n#extension GL_EXT_gpu_shader4 : require\nflat varying unsigned  int x;\nuniform gl_PointParameters pp;\nvoid main() { unsigned int y = x; gl_FragColor = vec4(y); }\n").unwrap();
        let printed = print_tu(&p.tu.0);
        assert!(
            printed.contains("unsigned int x") && printed.contains("unsigned int y"),
            "{printed}"
        );
        // GL_ES and GL_FRAGMENT_PRECISION_HIGH are defined as by the driver.
        let p = parse_shader("#version 100\n#ifdef GL_ES\nprecision mediump float;\n#endif\n#if defined(GL_FRAGMENT_PRECISION_HIGH) && GL_FRAGMENT_PRECISION_HIGH == 1\nprecision highp float;\n#endif\n#ifndef GL_ES\n#error not ES\n#endif\nuniform float a;\nvoid main() { gl_FragColor = vec4(a); }\n").unwrap();
        let printed = print_tu(&p.tu.0);
        assert!(
            printed.contains("precision mediump float")
                && printed.contains("precision highp float"),
            "{printed}"
        );
        assert!(
            parse_shader("#version 330\n#ifdef GL_ES\n#error ES\n#endif\nvoid main() { x = ; }\n")
                .err()
                .unwrap()
                .line
                == 5
        );
        // A 1.10 shader may name a variable like a later built-in type.
        assert!(
            parse_shader("void main() { float mat4x2 = 1.0; gl_FragColor = vec4(mat4x2); }\n")
                .is_ok()
        );
        assert!(!wide_literals::wide_literal("0x7fffffff"));
        assert!(wide_literals::wide_literal("2147483648"));
        assert!(!wide_literals::wide_literal("1.0lf"));
        assert!(!wide_literals::wide_literal("4294967296"));
    }
}
