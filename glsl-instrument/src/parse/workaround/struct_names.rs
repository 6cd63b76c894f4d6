//! glsl-lang's lexer turns every declared struct name into a type-name
//! token for the rest of the shader, so a struct name also used as a
//! variable or field name (`S S;`, `s.S`, `vec4 Name = ...; x = Name;`),
//! valid GLSL (names live in one scope per block, GLSL §4.2), fails. Such a
//! use becomes a placeholder identifier, renamed back in the tree.

use std::collections::HashSet;

use super::{Rewriter, Tok, is_ident};
use crate::parse::tokens::builtin_type_word;

/// The identifiers after `struct` in `src`.
pub(super) fn declared<'a>(src: &'a str, toks: &[Tok]) -> HashSet<&'a str> {
    let text = |t: &Tok| &src[t.start..t.end];
    toks.windows(2)
        .filter(|p| text(&p[0]) == "struct" && is_ident(text(&p[1])))
        .map(|p| text(&p[1]))
        .collect()
}

/// Token `k` is a struct name used as an identifier: hidden.
pub(super) fn rewrite(r: &mut Rewriter<'_>, k: usize) {
    let (word, next) = (r.text(k), r.text(k + 1));
    let prev = if k > 0 { r.text(k - 1) } else { "" };
    if !(r.structs.contains(word) && prev != "struct" && !r.renamed.contains(&k)) {
        return;
    }
    let is_type = |w: &str| builtin_type_word(w) || r.structs.contains(w);
    let as_ident = prev == "."
        || (is_type(prev) && next != "(")
        || (matches!(
            next,
            ";" | ")" | "," | "=" | "]" | "." | "+" | "-" | "*" | "/" | "%" | "<" | ">" | "!" | "&" | "|" | "^" | "?" | ":"
        ) && prev != "("
            && prev != ",")
        // `float(Name)`, `g(Name)`: an argument, unless it is an
        // unnamed parameter (`void g(S)`: a type before the name).
        || (prev == "("
            && next == ")"
            && k >= 2
            && (builtin_type_word(r.text(k - 2))
                || (k >= 3
                    && is_ident(r.text(k - 2))
                    && !builtin_type_word(r.text(k - 3))
                    && !r.structs.contains(r.text(k - 3)))));
    if as_ident && let Some(p) = r.fresh(word) {
        r.replace(k, &p);
        r.w.restore.insert(p, word.to_string());
    }
}
