//! glsl-lang's grammar takes `invariant` only as the first qualifier of a
//! declaration with a type, and `precise` not at all alone: GLSL's
//! `precise a;` and `invariant a, b;` (redeclarations of existing
//! variables, GLSL 4.00 §4.7/§4.8) fail, as does `invariant` after another
//! qualifier (`out flat invariant float x;`, a block member
//! `invariant vec4 x;`), which GLSL 4.20 allows in any order.

use super::{Rewriter, is_ident};
use crate::parse::tokens::{QUALIFIERS, builtin_type_word};

/// `precise a;`, `invariant a, b;` at token `k`: the keyword becomes a
/// placeholder type name that prints back as the keyword (steps.rs skips
/// these declarations). Whether it applied.
pub(super) fn declaration(r: &mut Rewriter<'_>, k: usize) -> bool {
    let word = r.text(k);
    if !((word == "precise" || word == "invariant") && r.at_stmt_start(k)) {
        return false;
    }
    let mut j = k + 1;
    let mut n = 0;
    while j + 1 < r.toks.len()
        && is_ident(r.text(j))
        && !QUALIFIERS.contains(&r.text(j))
        && !builtin_type_word(r.text(j))
    {
        n += 1;
        match r.text(j + 1) {
            "," => j += 2,
            ";" => break,
            _ => {
                n = 0;
                break;
            }
        }
    }
    let ends = r.text(j + 1) == ";";
    if ends
        && n > 0
        && (word == "precise" || n > 1)
        && let Some(p) = r.fresh(word)
    {
        r.replace(k, &p);
        r.w.restore.insert(p.clone(), word.to_string());
        r.w.type_names.push(p);
        r.renamed.insert(k);
        return true;
    }
    false
}

/// `invariant` at token `k` where glsl-lang wants it first or followed by
/// another qualifier: parsed as `precise`, restored after. Whether it applied.
pub(super) fn qualifier(r: &mut Rewriter<'_>, k: usize) -> bool {
    let next = r.text(k + 1);
    if r.text(k) == "invariant"
        && (r.es || r.version >= 120)
        && !r.renamed.contains(&k)
        && !(is_ident(next) && r.text(k + 2) == ";")
        && !(r.at_stmt_start(k) && QUALIFIERS.contains(&next))
    {
        r.replace(k, "precise  ");
        r.w.invariant_at.insert(r.toks[k].start);
        return true;
    }
    false
}
