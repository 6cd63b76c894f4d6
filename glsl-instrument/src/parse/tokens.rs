//! A token scanner for the rewrites before parsing: code tokens outside
//! comments and directives, the keyword tables they consult, and
//! same-length text edits (every byte offset of the source is kept, so
//! glsl-lang's spans still point into it).

/// A token of the code outside comments and preprocessor lines.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tok {
    pub start: usize,
    pub end: usize,
}

/// The code tokens of `src`: identifiers/numbers (one token each) and
/// single punctuation characters.
pub(crate) fn code_tokens(src: &str) -> Vec<Tok> {
    let b = src.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if let Some(end) = comment_end(b, i) {
            i = end;
            continue;
        }
        if line_start && c == b'#' {
            // A directive, with its continuation lines.
            while i < b.len() && !(b[i] == b'\n' && b[i - 1] != b'\\') {
                i += 1;
            }
            continue;
        }
        line_start = false;
        let start = i;
        if ident(c) {
            while i < b.len() && ident(b[i]) {
                i += 1;
            }
        } else {
            i += 1;
            while i < b.len() && !src.is_char_boundary(i) {
                i += 1;
            }
        }
        out.push(Tok { start, end: i });
    }
    out
}

/// Built-in type keywords (for "is the previous token a type").
pub(crate) fn builtin_type_word(w: &str) -> bool {
    if matches!(
        w,
        "void" | "bool" | "int" | "uint" | "float" | "double" | "atomic_uint"
    ) {
        return true;
    }
    let rest = w.strip_prefix(['i', 'u', 'b', 'd']).unwrap_or(w);
    ((rest.starts_with("vec") || rest.starts_with("mat"))
        && rest.len() > 3
        && rest[3..].bytes().all(|c| c.is_ascii_digit() || c == b'x'))
        || rest.starts_with("sampler")
        || rest.starts_with("image")
}

/// Storage, interpolation, precision and other qualifier keywords.
pub(crate) const QUALIFIERS: &[&str] = &[
    "const",
    "in",
    "out",
    "inout",
    "uniform",
    "buffer",
    "shared",
    "attribute",
    "varying",
    "centroid",
    "sample",
    "patch",
    "flat",
    "smooth",
    "noperspective",
    "invariant",
    "precise",
    "lowp",
    "mediump",
    "highp",
    "coherent",
    "volatile",
    "restrict",
    "readonly",
    "writeonly",
    "layout",
    "subroutine",
];

/// Replace `src[range]` (same length) in `out`.
pub(crate) fn splice(out: &mut String, start: usize, text: &str) {
    out.replace_range(start..start + text.len(), text);
}

/// `text` with every whole-word `from` replaced by `to` (same length).
pub(crate) fn replace_word(text: &str, from: &str, to: &str) -> String {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut from_i = 0;
    while let Some(k) = text[from_i..].find(from) {
        let i = from_i + k;
        let j = i + from.len();
        if (i == 0 || !word(b[i - 1])) && (j == b.len() || !word(b[j])) {
            out.push_str(&text[last..i]);
            out.push_str(to);
            last = j;
        }
        from_i = j;
    }
    out.push_str(&text[last..]);
    out
}

/// Whether a token is an identifier (or keyword).
pub(crate) fn is_ident(s: &str) -> bool {
    s.as_bytes()
        .first()
        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
}

/// Where the comment starting at byte `i` of `b` ends (the byte after a
/// `/* */`, or the newline ending a `//` comment); `None` if none starts
/// there. An unterminated `/*` runs to the end.
pub(crate) fn comment_end(b: &[u8], i: usize) -> Option<usize> {
    match (b.get(i), b.get(i + 1)) {
        (Some(b'/'), Some(b'/')) => Some(
            b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |n| i + n),
        ),
        (Some(b'/'), Some(b'*')) => {
            let body = &b[i + 2..];
            Some(
                body.windows(2)
                    .position(|w| w == b"*/")
                    .map_or(b.len() + 2, |n| i + 2 + n + 2),
            )
        }
        _ => None,
    }
}

#[cfg(test)]
mod comment_tests {
    use super::comment_end;

    #[test]
    fn comments_end_where_glsl_says() {
        let b = b"a // x\nb /* y */c /*/ z */d /* open";
        assert_eq!(comment_end(b, 0), None);
        assert_eq!(comment_end(b, 2), Some(6), "at the newline");
        assert_eq!(comment_end(b, 9), Some(16), "after */");
        assert_eq!(comment_end(b, 18), Some(26), "/*/ does not close");
        assert_eq!(
            comment_end(b, 28),
            Some(b.len() + 2),
            "unterminated: past the end"
        );
        assert_eq!(comment_end(b"// end", 0), Some(6));
    }
}
