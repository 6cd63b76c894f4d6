//! glsl-lang-pp evaluates the expression of every `#elif`, so an `#elif`
//! without one fails, although a compiler accepts it where it is not
//! evaluated (a group before it was taken), like `#else` (the branches
//! are decided by `crate::preprocess` first: only inactive ones remain).
//! It becomes `#else`.

use super::{directives, splice};

/// `src`'s bare `#elif`s written as `#else` in `out` (same length).
pub(super) fn rewrite(src: &str, out: &mut String) {
    for (at, word) in directives(src) {
        if word.trim_end() == "elif" {
            splice(out, at, "else");
        }
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
