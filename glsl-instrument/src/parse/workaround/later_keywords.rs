//! glsl-lang's lexer reserves every keyword of the latest GLSL whatever the
//! `#version`, so an older shader using a later keyword as a name
//! (`uniform float centroid;` in GLSL 1.10) fails. Such a word becomes a
//! placeholder identifier, renamed back in the tree; the probe expression
//! parser does the same (parse/expr.rs).

use super::{Rewriter, is_ident};
use crate::parse::tokens::QUALIFIERS;

/// Keywords glsl-lang always lexes as such that older GLSL versions leave
/// free as identifiers: (word, first desktop version, first ES version).
pub(crate) const LATER_KEYWORDS: &[(&str, u32, u32)] = &[
    ("invariant", 120, 100),
    ("centroid", 120, 300),
    ("precision", 130, 100),
    ("lowp", 130, 100),
    ("mediump", 130, 100),
    ("highp", 130, 100),
    ("flat", 130, 300),
    ("smooth", 130, 300),
    ("noperspective", 130, 9999),
    ("patch", 400, 320),
    ("sample", 400, 320),
    ("subroutine", 400, 9999),
    ("precise", 400, 320),
    ("buffer", 430, 310),
    ("shared", 430, 310),
    ("coherent", 420, 310),
    ("volatile", 420, 310),
    ("restrict", 420, 310),
    ("readonly", 420, 310),
    ("writeonly", 420, 310),
];

/// Whether `word` is a keyword of [`LATER_KEYWORDS`] that GLSL `version`
/// (`es`) leaves free as an identifier.
pub(crate) fn free_at(word: &str, version: u32, es: bool) -> bool {
    LATER_KEYWORDS
        .iter()
        .any(|(kw, d, e)| *kw == word && if es { version < *e } else { version < *d })
}

/// Token `k` is a later keyword used as a name: hidden. Whether it applied.
pub(super) fn rewrite(r: &mut Rewriter<'_>, k: usize) -> bool {
    let (word, next) = (r.text(k), r.text(k + 1));
    let prev = if k > 0 { r.text(k - 1) } else { "" };
    if free_at(word, r.version, r.es)
        && !is_ident(next)
        && next != "("
        && !QUALIFIERS.contains(&prev)
        && let Some(p) = r.fresh(word)
    {
        r.replace(k, &p);
        r.w.restore.insert(p, word.to_string());
        return true;
    }
    false
}
