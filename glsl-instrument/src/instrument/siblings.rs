//! The program's other shader objects of the debugged stage ("siblings":
//! a fragment program may be several shader objects, one with `main`, the
//! others defining functions it calls).
//!
//! The debug fragment shader turns `gl_FragColor`/`gl_FragData` into named
//! outputs (or `gl_FragColor` into `gl_FragData[0]`); a sibling that still
//! wrote the built-in would write another variable than the one the debug
//! shader hands out, and NVIDIA refuses to link a program that mixes them
//! ("user-defined fragment shader outputs may not be used with
//! gl_FragColor or gl_FragData"). So each sibling gets the same renaming,
//! as text (whole identifiers, macros included), and the same declarations
//! of the renamed outputs. Siblings of other stages are sent unchanged.

use std::collections::HashSet;

/// How a sibling's `gl_FragColor`/`gl_FragData` are rewritten.
#[derive(Default)]
pub(super) struct Renaming {
    /// `gl_FragColor` becomes this expression (a name, or `gl_FragData[0]`).
    pub frag_color: Option<String>,
    /// `gl_FragData` becomes this name.
    pub frag_data: Option<String>,
    /// Declarations the renamed names need (the debug shader's own).
    pub decls: String,
}

/// What the siblings reference: `gl_FragColor`, and the length
/// `gl_FragData` needs (the largest constant index + 1, or 4 where an index
/// is not an integer literal), as the debug shader counts its own.
pub(super) fn builtin_uses(siblings: &[String]) -> (bool, i32) {
    let mut frag_color = false;
    let mut frag_data_len = 0;
    for s in siblings {
        let mut words = HashSet::new();
        crate::parse::words(s, &mut words);
        frag_color |= words.contains("gl_FragColor");
        for (at, _) in s.match_indices("gl_FragData") {
            let rest = s[at + "gl_FragData".len()..].trim_start();
            let literal = rest.strip_prefix('[').and_then(|r| {
                let end = r.find(']')?;
                r[..end].trim().parse::<i32>().ok()
            });
            frag_data_len = frag_data_len.max(literal.map_or(4, |k| k + 1));
        }
    }
    (frag_color, frag_data_len)
}

/// `source` with every identifier `gl_FragColor`/`gl_FragData` renamed and
/// the declarations inserted after the `#version` and `#extension` lines
/// at its head (those must come before anything else).
pub(super) fn rewrite(source: &str, r: &Renaming) -> String {
    let renamed = rename_words(source, |w| match w {
        "gl_FragColor" => r.frag_color.as_deref(),
        "gl_FragData" => r.frag_data.as_deref(),
        _ => None,
    });
    if r.decls.is_empty() {
        return renamed;
    }
    let mut at = 0;
    let mut offset = 0;
    for line in renamed.split_inclusive('\n') {
        offset += line.len();
        let t = line.trim_start();
        if t.starts_with("#version") || t.starts_with("#extension") {
            at = offset;
        }
    }
    let mut out = renamed[..at].to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&r.decls);
    out.push_str(&renamed[at..]);
    out
}

/// Replace whole identifiers of `text` for which `f` gives a replacement.
fn rename_words<'a>(text: &str, f: impl Fn(&str) -> Option<&'a str>) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let w = &text[start..i];
            out.push_str(f(w).unwrap_or(w));
        } else if c.is_ascii_digit() {
            // A number's suffix (`1u`, `2e5`) is no identifier.
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b'.')
            {
                i += 1;
            }
            out.push_str(&text[start..i]);
        } else {
            let ch = text[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_are_renamed_as_whole_words_after_the_head() {
        let src = "#version 150\n#extension GL_ARB_foo : enable\n#define C gl_FragColor\nvoid blue() { C.b = 1.0; gl_FragColor.a = 2.0; my_gl_FragColor = 1.0; gl_FragData[1] = vec4(0); }\n";
        let r = Renaming {
            frag_color: Some("gldbg_FragColor".into()),
            frag_data: Some("gldbg_FragData".into()),
            decls: "out vec4 gldbg_FragColor;\n".into(),
        };
        let s = rewrite(src, &r);
        assert_eq!(
            s,
            "#version 150\n#extension GL_ARB_foo : enable\nout vec4 gldbg_FragColor;\n#define C gldbg_FragColor\nvoid blue() { C.b = 1.0; gldbg_FragColor.a = 2.0; my_gl_FragColor = 1.0; gldbg_FragData[1] = vec4(0); }\n"
        );
        assert_eq!(builtin_uses(&[src.to_string()]), (true, 2));
        assert_eq!(
            builtin_uses(&["void f(int i) { gl_FragData[i] = vec4(0); }".into()]),
            (false, 4)
        );
    }
}
