//! glsl-lang-pp rejects `#line N "file"` (GL_GOOGLE_cpp_style_line_directive,
//! ARB_shading_language_include). The file name only names errors: it is
//! blanked.

use super::{directives, splice};

/// `src`'s `#line` file names blanked in `out` (same length).
pub(super) fn rewrite(src: &str, out: &mut String) {
    for (at, word) in directives(src) {
        if let Some(r) = word.strip_prefix("line")
            && let Some(q) = r.find('"')
            && let Some(q2) = r[q + 1..].find('"')
        {
            splice(out, at + 4 + q, &" ".repeat(q2 + 2));
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_file_name_is_blanked() {
        let src = "#line 3 \"f.glsl\"\n#line 4\n";
        let mut out = src.to_string();
        super::rewrite(src, &mut out);
        assert_eq!(out, "#line 3         \n#line 4\n");
    }
}
