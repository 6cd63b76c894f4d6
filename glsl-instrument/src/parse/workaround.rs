//! Valid GLSL that glsl-lang 0.8 cannot read, each defect handled by its
//! own module. Every rewrite keeps every byte offset of the source (so
//! spans still point into it); what the tree must print differently is
//! restored after parsing (placeholder identifiers and type names renamed
//! back to the original text, which the printer writes verbatim).
//!
//! Before the first parse (harmless to any shader):
//! * `unknown_extensions`: `#extension` lines glsl-lang's registry lacks;
//! * `wide_literals`: integer literals its lexer rejects, `unsigned int`;
//!
//! on a later attempt, only when the one before failed (see
//! `parse::strategy`), so nothing that parsed before changes:
//! * `gated_types`: built-in type names it gates by `#version`;
//! * `stuck_macro`: a macro its preprocessor cannot rescan;
//! * the rewrites of [`rewrite`], one module each: `comment_end`,
//!   `bare_elif`, `line_file`, `subroutine_types`, `invariant`,
//!   `later_keywords`, `struct_names`.

use std::collections::{HashMap, HashSet};

use glsl_lang::ast;

use super::placeholder::fresh_placeholder;
use super::tokens::{Tok, code_tokens, is_ident, splice};

mod bare_elif;
mod comment_end;
pub(crate) mod gated_types;
mod invariant;
pub(crate) mod later_keywords;
mod line_file;
mod struct_names;
pub(crate) mod stuck_macro;
mod subroutine_types;
pub(crate) mod unknown_extensions;
pub(crate) mod wide_literals;

/// What [`rewrite`] changed, to undo in the tree.
#[derive(Default)]
pub(crate) struct Workarounds {
    /// placeholder → original text.
    pub restore: HashMap<String, String>,
    /// Names to declare as type names (subroutine types, placeholders).
    pub type_names: Vec<String>,
    /// Offsets of `invariant` qualifiers parsed as `precise`.
    pub invariant_at: HashSet<usize>,
}

/// The state of the token rewrites: the source's code tokens, the edited
/// text (same length), and the placeholders handed out.
pub(crate) struct Rewriter<'a> {
    src: &'a str,
    out: String,
    toks: Vec<Tok>,
    w: Workarounds,
    used: HashSet<String>,
    by_text: HashMap<String, String>,
    next_per_len: HashMap<usize, usize>,
    /// Tokens already replaced by a placeholder.
    renamed: HashSet<usize>,
    /// Identifiers after `struct`.
    structs: HashSet<&'a str>,
    version: u32,
    es: bool,
}

impl<'a> Rewriter<'a> {
    /// The source text of token `k` (empty past the end).
    fn text(&self, k: usize) -> &'a str {
        self.toks.get(k).map_or("", |t| &self.src[t.start..t.end])
    }

    /// Whether token `k` starts a statement.
    fn at_stmt_start(&self, k: usize) -> bool {
        k == 0 || matches!(self.text(k - 1), ";" | "{" | "}")
    }

    /// A placeholder for `t`, reserved.
    fn fresh(&mut self, t: &str) -> Option<String> {
        let p = fresh_placeholder(t, &mut self.by_text, &mut self.next_per_len, &self.used);
        if let Some(p) = &p {
            self.used.insert(p.clone());
        }
        p
    }

    /// Write `with` (same length) over token `k`.
    fn replace(&mut self, k: usize, with: &str) {
        splice(&mut self.out, self.toks[k].start, with);
    }
}

/// The later attempt's rewrites of `src` (same length) for a shader of
/// `#version` `version` (`es`), and what to restore in the tree.
pub(crate) fn rewrite(
    src: &str,
    version: u32,
    es: bool,
    used: &HashSet<String>,
) -> (String, Workarounds) {
    let mut out = src.to_string();
    comment_end::rewrite(src, &mut out);
    bare_elif::rewrite(src, &mut out);
    line_file::rewrite(src, &mut out);
    let toks = code_tokens(&out);
    let mut r = Rewriter {
        src,
        out,
        structs: struct_names::declared(src, &toks),
        toks,
        w: Workarounds::default(),
        used: used.clone(),
        by_text: HashMap::new(),
        next_per_len: HashMap::new(),
        renamed: HashSet::new(),
        version,
        es,
    };
    for k in 0..r.toks.len() {
        subroutine_types::rewrite(&mut r, k);
        if invariant::declaration(&mut r, k)
            || invariant::qualifier(&mut r, k)
            || later_keywords::rewrite(&mut r, k)
        {
            continue;
        }
        struct_names::rewrite(&mut r, k);
    }
    (r.out, r.w)
}

/// Each preprocessor directive line of `src`: the byte offset of the
/// directive's word (after `#` and any blanks) and the text from there to
/// the line's end (without the newline). Workarounds that rewrite a
/// directive in place splice at that offset.
fn directives(src: &str) -> impl Iterator<Item = (usize, &str)> {
    src.split_inclusive('\n')
        .scan(0, |offset, line| {
            let start = *offset;
            *offset += line.len();
            Some((start, line))
        })
        .filter_map(|(start, line)| {
            let body = line.trim_end_matches(['\n', '\r']);
            let t = body.trim_start();
            let d = t.strip_prefix('#')?;
            let word = d.trim_start();
            Some((start + body.len() - word.len(), word))
        })
}

/// Undo [`rewrite`] in the tree: placeholder identifiers and type
/// names back to their text, `precise` back to `invariant` where it stood.
pub(crate) fn restore(tu: &mut ast::TranslationUnit, w: &Workarounds) {
    use glsl_lang::visitor::{HostMut, Visit, VisitorMut};
    struct Restore<'a>(&'a Workarounds);
    impl VisitorMut for Restore<'_> {
        fn visit_identifier(&mut self, id: &mut ast::Identifier) -> Visit {
            if let Some(t) = self.0.restore.get(id.0.as_str()) {
                id.content = ast::IdentifierData::from(t.as_str());
            }
            Visit::Children
        }
        fn visit_type_name(&mut self, n: &mut ast::TypeName) -> Visit {
            if let Some(t) = self.0.restore.get(n.0.as_str()) {
                n.content = ast::TypeNameData::from(t.as_str());
            }
            Visit::Children
        }
        fn visit_type_qualifier_spec(&mut self, q: &mut ast::TypeQualifierSpec) -> Visit {
            if q.content == ast::TypeQualifierSpecData::Precise
                && let Some(span) = q.span
                && self
                    .0
                    .invariant_at
                    .contains(&usize::from(span.start().offset))
            {
                q.content = ast::TypeQualifierSpecData::Invariant;
            }
            Visit::Children
        }
    }
    tu.visit_mut(&mut Restore(w));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse_shader, print_tu, words};

    #[test]
    fn workarounds_keep_every_offset() {
        let src = "#version 110\nstruct S { vec4 S; };\n/* c *\\\n/\nuniform float centroid;\n#if 1\n#elif\n#endif\n#line 3 \"f\"\nvoid main() { S S; gl_Position = S.S * centroid; }\n";
        let mut used = HashSet::new();
        words(src, &mut used);
        let (out, w) = rewrite(src, 110, false, &used);
        assert_eq!(out.len(), src.len());
        assert_eq!(
            out.match_indices('\n').collect::<Vec<_>>(),
            src.match_indices('\n').collect::<Vec<_>>()
        );
        assert!(
            out.contains("#else") && out.contains("#line 3    \n"),
            "{out}"
        );
        assert!(out.contains("*/\n "), "{out}");
        // One-letter names get an unused letter; the struct type stays.
        assert!(out.contains("struct S { vec4 a; };"), "{out}");
        assert!(out.contains("S a;") && out.contains("a.a *"), "{out}");
        assert_eq!(w.restore.get("a").map(String::as_str), Some("S"));
        let p = parse_shader(src).unwrap();
        let printed = print_tu(&p.tu.0);
        assert!(
            printed.contains("S S;") && printed.contains("uniform float centroid;"),
            "{printed}"
        );
        // A shader that parses as is is not rewritten.
        let plain = "struct S { vec4 v; };\nvoid main() { S s; }\n";
        assert!(print_tu(&parse_shader(plain).unwrap().tu.0).contains("S s;"));
    }
}
