//! glsl-lang's lexer parses every integer literal as an `i32` and knows
//! no 64-bit literals, and reserves `unsigned`: valid GLSL such as
//! `0xe40fe410` (a `uint` bit pattern, GLSL 1.30 §4.1.3), `20l`/`0ul`
//! (GL_ARB_gpu_shader_int64) and EXT_gpu_shader4's `unsigned int` fail.
//! They are hidden behind placeholders before the first parse.

use std::collections::{HashMap, HashSet};

use glsl_lang::ast;

use crate::parse::placeholder::fresh_placeholder;
use crate::parse::tokens::comment_end;

/// Integer literals glsl-lang's lexer rejects although GLSL accepts them:
/// hexadecimal/octal/decimal literals above `i32::MAX` without `u` (GLSL
/// takes the bit pattern), and the 64-bit literals of
/// GL_ARB_gpu_shader_int64 (`0l`, `5ul`). Each is replaced, outside
/// preprocessor conditions, by an identifier of the same byte length
/// (so every offset still matches the original source); after parsing the
/// identifier is renamed to the literal's text, which the printer writes
/// back verbatim. Returns the edited source and placeholder → literal.
pub(crate) fn hide(
    src: &str,
    used: &HashSet<String>,
) -> (String, HashMap<String, String>, Vec<String>) {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut map: HashMap<String, String> = HashMap::new();
    let mut by_literal: HashMap<String, String> = HashMap::new();
    let mut next_per_len: HashMap<usize, usize> = HashMap::new();
    let mut types: Vec<String> = Vec::new();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    let mut line_start = true;
    // Inside a directive whose numbers must stay (#if, #line, #version...).
    let mut skip_line = false;
    let mut last = 0; // start of the not yet copied text
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            // A continued directive line stays in its mode.
            let continued = i > 0 && b[i - 1] == b'\\';
            if !continued {
                skip_line = false;
            }
            line_start = true;
            i += 1;
            continue;
        }
        if let Some(end) = comment_end(b, i) {
            i = end;
            continue;
        }
        if line_start && c == b'#' {
            let rest = src[i + 1..].trim_start_matches([' ', '\t']);
            skip_line = !rest.starts_with("define");
            line_start = false;
            i += 1;
            continue;
        }
        if !c.is_ascii_whitespace() {
            line_start = false;
        }
        // EXT_gpu_shader4's `unsigned int` (glsl-lang reserves `unsigned`):
        // a same-length placeholder type name.
        if c == b'u'
            && !skip_line
            && (i == 0 || !ident(b[i - 1]))
            && src[i..].starts_with("unsigned")
            && let Some(len) = unsigned_int_len(&src[i..])
        {
            let text = &src[i..i + len];
            if let Some(name) = fresh_placeholder(text, &mut by_literal, &mut next_per_len, used) {
                map.insert(name.clone(), "unsigned int".to_string());
                types.push(name.clone());
                out.push_str(&src[last..i]);
                out.push_str(&name);
                i += len;
                last = i;
                continue;
            }
        }
        if c.is_ascii_digit() && (i == 0 || !(ident(b[i - 1]) || b[i - 1] == b'.')) {
            let start = i;
            while i < b.len() && (ident(b[i]) || b[i] == b'.') {
                i += 1;
            }
            let text = &src[start..i];
            if !skip_line
                && wide_literal(text)
                && let Some(name) =
                    fresh_placeholder(text, &mut by_literal, &mut next_per_len, used)
            {
                map.insert(name.clone(), text.to_string());
                out.push_str(&src[last..start]);
                out.push_str(&name);
                last = i;
            }
            continue;
        }
        i += 1;
    }
    out.push_str(&src[last.min(src.len())..]);
    (out, map, types)
}

/// Length of `unsigned<blanks>int` at the start of `s` (followed by a non-identifier).
fn unsigned_int_len(s: &str) -> Option<usize> {
    let rest = s.strip_prefix("unsigned")?;
    let blanks = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    if blanks == 0 {
        return None;
    }
    let after = rest[blanks..].strip_prefix("int")?;
    if after
        .bytes()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
    {
        return None;
    }
    Some(8 + blanks + 3)
}

/// Whether an integer literal token is valid GLSL that glsl-lang rejects.
pub(crate) fn wide_literal(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let hex = lower.strip_prefix("0x");
    if hex.is_none() && (lower.contains('.') || lower.contains('e') || lower.ends_with('f')) {
        return false;
    }
    let body = hex.unwrap_or(&lower);
    let digits = body.trim_end_matches(['u', 'l']);
    let suffix = &body[digits.len()..];
    if digits.is_empty() {
        return false;
    }
    if suffix.contains('l') {
        return matches!(suffix, "l" | "ul" | "lu");
    }
    if !suffix.is_empty() {
        return false;
    }
    let radix = if hex.is_some() {
        16
    } else if digits.len() > 1 && digits.starts_with('0') {
        8
    } else {
        10
    };
    u64::from_str_radix(digits, radix).is_ok_and(|v| v > i32::MAX as u64 && v <= u32::MAX as u64)
}

/// Rename the placeholder identifiers of [`hide`] back to
/// the literal text.
pub(crate) fn restore(tu: &mut ast::TranslationUnit, map: &HashMap<String, String>) {
    use glsl_lang::visitor::{HostMut, Visit, VisitorMut};
    struct Restore<'a>(&'a HashMap<String, String>);
    impl VisitorMut for Restore<'_> {
        fn visit_expr(&mut self, e: &mut ast::Expr) -> Visit {
            if let ast::ExprData::Variable(id) = &mut e.content
                && let Some(lit) = self.0.get(id.0.as_str())
            {
                id.content = ast::IdentifierData::from(lit.as_str());
            }
            Visit::Children
        }
        fn visit_type_specifier_non_array(&mut self, t: &mut ast::TypeSpecifierNonArray) -> Visit {
            if let ast::TypeSpecifierNonArrayData::TypeName(n) = &mut t.content
                && let Some(text) = self.0.get(n.0.as_str())
            {
                n.content = ast::TypeNameData::from(text.as_str());
            }
            Visit::Children
        }
    }
    tu.visit_mut(&mut Restore(map));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_literals_glsl_lang_rejects_are_wide() {
        assert!(wide_literal("0xe40fe410") && wide_literal("4294967295") && wide_literal("20l"));
        assert!(wide_literal("0ul") && wide_literal("037777777777"));
        assert!(!wide_literal("2147483647") && !wide_literal("0xffu") && !wide_literal("1e5"));
        assert_eq!(unsigned_int_len("unsigned  int x"), Some(13));
        assert_eq!(unsigned_int_len("unsigned intx"), None);
    }

    #[test]
    fn hidden_literals_keep_their_offsets_and_directives_keep_theirs() {
        let src = "#if 0xe40fe410\n#endif\nuint a = 0xe40fe410; unsigned int b;\n";
        let (out, map, types) = hide(src, &HashSet::new());
        assert_eq!(out.len(), src.len());
        assert!(out.starts_with("#if 0xe40fe410\n"), "{out}");
        assert!(!out[15..].contains("0xe40fe410"), "{out}");
        assert_eq!(map.len(), 2);
        assert_eq!(types.len(), 1);
    }
}
