//! glsl-lang-pp rejects `#line N "file"` (GL_GOOGLE_cpp_style_line_directive,
//! ARB_shading_language_include). The file name only names errors: it is
//! blanked.

use super::splice;

/// `src`'s `#line` file names blanked in `out` (same length).
pub(super) fn rewrite(src: &str, out: &mut String) {
    let mut offset = 0;
    for line in src.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let t = body.trim_start();
        let indent = body.len() - t.len();
        if let Some(d) = t.strip_prefix('#') {
            let d_trim = d.trim_start();
            let at = offset + indent + 1 + (d.len() - d_trim.len());
            if let Some(r) = d_trim.strip_prefix("line")
                && let Some(q) = r.find('"')
                && let Some(q2) = r[q + 1..].find('"')
            {
                let s = at + 4 + q;
                splice(out, s, &" ".repeat(q2 + 2));
            }
        }
        offset += line.len();
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
