//! glsl-lang-pp does not splice a line continuation inside a comment
//! before finding the comment's end, so a `*\<newline>/` (valid: C99
//! 5.1.1.2 splices lines before comments end) leaves the comment open to
//! the end of the file. The `*\` pair becomes `*/` and the `/` a blank.

use super::splice;

/// `src`'s `*\<newline>/` comment ends closed in `out` (same length).
pub(super) fn rewrite(src: &str, out: &mut String) {
    let b = src.as_bytes();
    let mut i = 0;
    while i + 3 < b.len() {
        if &b[i..i + 2] == b"/*" {
            let mut j = i + 2;
            while j + 1 < b.len() && !(b[j] == b'*' && b[j + 1] == b'/') {
                if b[j] == b'*'
                    && b[j + 1] == b'\\'
                    && b.get(j + 2) == Some(&b'\n')
                    && b.get(j + 3) == Some(&b'/')
                {
                    splice(out, j, "*/\n ");
                    break;
                }
                j += 1;
            }
            i = j + 2;
            continue;
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_continued_comment_end_is_closed() {
        let src = "/* c *\\\n/\nfloat x;";
        let mut out = src.to_string();
        super::rewrite(src, &mut out);
        assert_eq!(out, "/* c */\n \nfloat x;");
    }
}
