//! glsl-lang-pp evaluates the expression of every `#elif`, so an `#elif`
//! without one fails, although a compiler accepts it where it is not
//! evaluated (a group before it was taken), like `#else` (the branches
//! are decided by `crate::preprocess` first: only inactive ones remain).
//! It becomes `#else`.

use super::splice;

/// `src`'s bare `#elif`s written as `#else` in `out` (same length).
pub(super) fn rewrite(src: &str, out: &mut String) {
    let mut offset = 0;
    for line in src.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let t = body.trim_start();
        let indent = body.len() - t.len();
        if let Some(d) = t.strip_prefix('#') {
            let d_trim = d.trim_start();
            let at = offset + indent + 1 + (d.len() - d_trim.len());
            if d_trim.trim_end() == "elif" {
                splice(out, at, "else");
            }
        }
        offset += line.len();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_bare_elif_becomes_else() {
        let src = "#if 1\n  #  elif\n#elif X\n#endif\n";
        let mut out = src.to_string();
        super::rewrite(src, &mut out);
        assert_eq!(out, "#if 1\n  #  else\n#elif X\n#endif\n");
    }
}
