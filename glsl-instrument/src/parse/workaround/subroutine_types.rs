//! glsl-lang does not know subroutine types: `subroutine RET NAME(...);`
//! declares NAME as a type (GLSL 4.00 §6.1.2), which its grammar does not
//! model, so a later `subroutine uniform NAME u;` fails. NAME is declared
//! as a type name in the parse context and its declaration gets a
//! placeholder function name, renamed back in the tree.

use super::{Rewriter, is_ident};

/// Token `k` starts a subroutine type declaration: its name hidden.
pub(super) fn rewrite(r: &mut Rewriter<'_>, k: usize) {
    let (word, next) = (r.text(k), r.text(k + 1));
    if word != "subroutine" || next == "(" || next == "uniform" {
        return;
    }
    let mut j = k + 1;
    while j + 1 < r.toks.len() && !matches!(r.text(j), ";" | "{" | "(") {
        j += 1;
    }
    if j < r.toks.len() && r.text(j) == "(" && j > k + 1 {
        let name = r.text(j - 1);
        if is_ident(name)
            && let Some(p) = r.fresh(name)
        {
            r.replace(j - 1, &p);
            r.w.restore.insert(p, name.to_string());
            r.w.type_names.push(name.to_string());
            r.renamed.insert(j - 1);
        }
    }
}
