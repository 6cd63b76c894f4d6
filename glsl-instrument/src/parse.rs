//! The glsl-lang front-end: parsing the active lines of a shader (which
//! ones, [`crate::preprocess`] decides; glsl-lang's preprocessor expands
//! their macros, and spans are byte offsets into the source), mapping
//! offsets to 1-based line:column, parsing a user expression, printing AST
//! pieces, and collecting identifiers so generated names are unique.
//!
//! Valid GLSL glsl-lang rejects is rewritten first, every byte offset kept
//! (so spans still point into the original source): unknown extensions,
//! wide literals; and, on a second attempt when the first
//! fails, subroutine types, `precise x;`, `invariant a, b;`, `invariant`
//! after other qualifiers, later keywords used as identifiers by older
//! versions, struct names used as variable names, `#elif` without
//! expression, `#line N "file"` and a line continuation inside `*/`
//! (see [`workarounds`]). What must print differently is restored in the
//! tree (placeholder names renamed back; the printer writes them verbatim).

use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};

use glsl_lang::ast;
use glsl_lang::parse::{DefaultLexer, ParseBuilder, ParseContext, ParseOptions};
use glsl_lang::transpiler::glsl as printer;

use crate::preprocess::expand;
use crate::{Api, ParseError};

/// A parsed shader: the tree (with `#version`/`#extension`/`#pragma`
/// injected back so they survive printing) and what the preamble said.
pub(crate) struct Parsed {
    pub tu: ast::TranslationUnit,
    /// `#version` number (if absent: 110, or 100 in a GL ES context).
    pub version: u32,
    pub es: bool,
    /// `#version N compatibility`.
    pub compat: bool,
    /// Names of `#extension`s the shader enables.
    pub extensions: Vec<String>,
    /// `#extension` lines glsl-lang does not know (it rejects them): they
    /// were blanked before parsing and must be written back after `#version`.
    pub unknown_extensions: Vec<String>,
}

/// Blank out `#extension` lines naming extensions missing from glsl-lang's
/// registry (it fails on them even with `enable`), keeping every byte
/// offset. Returns the edited source and the removed lines.
///
/// A driver defines the macro of each extension it supports, and the
/// shader compiled there, so `#ifdef GL_X` must hold for the extensions it
/// enables. glsl-lang's preprocessor refuses `#define GL_...`, so the name
/// is renamed: the blanked line becomes `#define _pqr 1` with `_pqr` a
/// placeholder of the same length, used for every other occurrence of
/// the name; `renames` (placeholder → name) restores it in the tree.
fn hide_unknown_extensions(
    src: &str,
    used: &HashSet<String>,
    renames: &mut std::collections::HashMap<String, String>,
) -> (String, Vec<String>, Vec<String>) {
    use glsl_lang_pp::exts::{DEFAULT_REGISTRY, names::ExtNameAtom};
    let mut out = String::with_capacity(src.len());
    let mut lines = Vec::new();
    let mut names = Vec::new();
    let mut by_text = std::collections::HashMap::new();
    let mut next_per_len = std::collections::HashMap::new();
    for line in src.split_inclusive('\n') {
        let t = line.trim_start();
        let name = t
            .strip_prefix('#')
            .map(str::trim_start)
            .and_then(|r| r.strip_prefix("extension"))
            .and_then(|r| {
                let r = r.trim_start();
                let end = r
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(r.len());
                (end > 0).then(|| &r[..end])
            });
        match name {
            Some(n) if n != "all" && DEFAULT_REGISTRY.get(&ExtNameAtom::from(n)).is_none() => {
                lines.push(line.trim_end().to_string());
                let enabled = !line.contains(": disable") && !line.contains(":disable");
                let mut define = String::new();
                if enabled
                    && !names.iter().any(|x| x == n)
                    && let Some(p) = fresh_placeholder(n, &mut by_text, &mut next_per_len, used)
                {
                    define = format!("#define {p} 1");
                    renames.insert(p, n.to_string());
                }
                if enabled {
                    names.push(n.to_string());
                }
                // Same byte length, so every offset still matches `src`.
                let body = line.trim_end_matches(['\n', '\r']);
                let fill = if define.len() <= body.len() {
                    define.as_str()
                } else {
                    ""
                };
                out.push_str(fill);
                out.extend(std::iter::repeat_n(' ', body.len() - fill.len()));
                out.push_str(&line[body.len()..]);
            }
            _ => out.push_str(line),
        }
    }
    for (p, n) in renames.iter() {
        out = replace_word(&out, n, p);
    }
    (out, lines, names)
}

/// `text` with every whole-word `from` replaced by `to` (same length).
fn replace_word(text: &str, from: &str, to: &str) -> String {
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

/// Built-in type names glsl-lang gates by `#version` (or does not know,
/// like the int64 types of GL_ARB_gpu_shader_int64): a shader that gets
/// them from an extension or from GLSL ES (`atomic_uint` in 3.10 es,
/// `dvec3` with GL_ARB_gpu_shader_fp64 in 1.50, ...) would fail. Those the
/// source uses are declared as type names in the parse context, so they
/// parse as (and print back as) named types. Vulkan-only names
/// (`texture2D`, `sampler`, ...) are left out: they are ordinary
/// identifiers or built-in functions in OpenGL GLSL.
const GATED_TYPE_NAMES: &[&str] = &[
    "double",
    "uint",
    "atomic_uint",
    "uvec2",
    "uvec3",
    "uvec4",
    "dvec2",
    "dvec3",
    "dvec4",
    "mat2x2",
    "mat2x3",
    "mat2x4",
    "mat3x2",
    "mat3x3",
    "mat3x4",
    "mat4x2",
    "mat4x3",
    "mat4x4",
    "dmat2",
    "dmat3",
    "dmat4",
    "dmat2x2",
    "dmat2x3",
    "dmat2x4",
    "dmat3x2",
    "dmat3x3",
    "dmat3x4",
    "dmat4x2",
    "dmat4x3",
    "dmat4x4",
    "sampler1DArray",
    "sampler1DArrayShadow",
    "isampler1D",
    "isampler1DArray",
    "usampler1D",
    "usampler1DArray",
    "sampler2DArray",
    "sampler2DArrayShadow",
    "isampler2D",
    "isampler2DArray",
    "usampler2D",
    "usampler2DArray",
    "sampler2DRect",
    "sampler2DRectShadow",
    "isampler2DRect",
    "usampler2DRect",
    "sampler2DMS",
    "isampler2DMS",
    "usampler2DMS",
    "sampler2DMSArray",
    "isampler2DMSArray",
    "usampler2DMSArray",
    "isampler3D",
    "usampler3D",
    "samplerCubeShadow",
    "isamplerCube",
    "usamplerCube",
    "samplerCubeArray",
    "samplerCubeArrayShadow",
    "isamplerCubeArray",
    "usamplerCubeArray",
    "samplerBuffer",
    "isamplerBuffer",
    "usamplerBuffer",
    "image1D",
    "iimage1D",
    "uimage1D",
    "image1DArray",
    "iimage1DArray",
    "uimage1DArray",
    "image2D",
    "iimage2D",
    "uimage2D",
    "image2DArray",
    "iimage2DArray",
    "uimage2DArray",
    "image2DRect",
    "iimage2DRect",
    "uimage2DRect",
    "image2DMS",
    "iimage2DMS",
    "uimage2DMS",
    "image2DMSArray",
    "iimage2DMSArray",
    "uimage2DMSArray",
    "image3D",
    "iimage3D",
    "uimage3D",
    "imageCube",
    "iimageCube",
    "uimageCube",
    "imageCubeArray",
    "iimageCubeArray",
    "uimageCubeArray",
    "imageBuffer",
    "iimageBuffer",
    "uimageBuffer",
    "samplerExternalOES",
    "int64_t",
    "uint64_t",
    "i64vec2",
    "i64vec3",
    "i64vec4",
    "u64vec2",
    "u64vec3",
    "u64vec4",
    // Compatibility-profile built-in structs.
    "gl_DepthRangeParameters",
    "gl_PointParameters",
    "gl_MaterialParameters",
    "gl_LightSourceParameters",
    "gl_LightModelParameters",
    "gl_LightModelProducts",
    "gl_LightProducts",
    "gl_FogParameters",
];

/// Integer literals glsl-lang's lexer rejects although GLSL accepts them:
/// hexadecimal/octal/decimal literals above `i32::MAX` without `u` (GLSL
/// takes the bit pattern), and the 64-bit literals of
/// GL_ARB_gpu_shader_int64 (`0l`, `5ul`). Each is replaced, outside
/// preprocessor conditions, by an identifier of the same byte length
/// (so every offset still matches the original source); after parsing the
/// identifier is renamed to the literal's text, which the printer writes
/// back verbatim. Returns the edited source and placeholder → literal.
fn hide_wide_literals(
    src: &str,
    used: &HashSet<String>,
) -> (
    String,
    std::collections::HashMap<String, String>,
    Vec<String>,
) {
    use std::collections::HashMap;
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
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                i += 1;
            }
            i += 2;
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

/// The placeholder identifier for `text` (same byte length, unused in the source).
fn fresh_placeholder(
    text: &str,
    by_text: &mut std::collections::HashMap<String, String>,
    next_per_len: &mut std::collections::HashMap<usize, usize>,
    used: &HashSet<String>,
) -> Option<String> {
    if let Some(name) = by_text.get(text) {
        return Some(name.clone());
    }
    let n = next_per_len.entry(text.len()).or_insert(0);
    loop {
        if candidate_exhausted(text.len(), *n) {
            return None;
        }
        let candidate = placeholder(text.len(), *n);
        *n += 1;
        if let Some(c) = candidate
            && !used.contains(&c)
        {
            by_text.insert(text.to_string(), c.clone());
            return Some(c);
        }
    }
}

const PLACEHOLDER_CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/// The `n`-th identifier of byte length `len`: `_` then base-62 digits.
fn placeholder(len: usize, n: usize) -> Option<String> {
    // One character: a letter the source does not use.
    if len == 1 {
        return PLACEHOLDER_CHARS[..52]
            .get(n)
            .map(|c| (*c as char).to_string());
    }
    if len < 2 {
        return None;
    }
    let mut s = vec![b'_'; len];
    let mut k = n;
    for slot in s.iter_mut().skip(1).rev() {
        *slot = PLACEHOLDER_CHARS[k % PLACEHOLDER_CHARS.len()];
        k /= PLACEHOLDER_CHARS.len();
    }
    if k > 0 {
        return None;
    }
    // `__` is reserved; a leading `_` plus a digit is fine.
    Some(String::from_utf8(s).unwrap())
}

fn candidate_exhausted(len: usize, n: usize) -> bool {
    (len == 1 && n >= 52)
        || len == 0
        || (len > 1 && len - 1 < 6 && n >= PLACEHOLDER_CHARS.len().pow((len - 1) as u32))
        || n > 100_000
}

/// Whether an integer literal token is valid GLSL that glsl-lang rejects.
fn wide_literal(text: &str) -> bool {
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

/// Rename the placeholder identifiers of [`hide_wide_literals`] back to
/// the literal text.
fn restore_wide_literals(
    tu: &mut ast::TranslationUnit,
    map: &std::collections::HashMap<String, String>,
) {
    use glsl_lang::visitor::{HostMut, Visit, VisitorMut};
    struct Restore<'a>(&'a std::collections::HashMap<String, String>);
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

/// Valid GLSL that glsl-lang cannot parse, rewritten before a second
/// parse attempt (only when the first fails, so nothing that parsed before
/// changes). Every rewrite keeps every byte offset; what the tree must
/// print differently is restored after parsing (placeholder identifiers
/// and type names renamed back to the original text, which the printer
/// writes verbatim; `precise` qualifiers that stood for `invariant`).
#[derive(Default)]
struct Workarounds {
    /// placeholder → original text.
    restore: std::collections::HashMap<String, String>,
    /// Names to declare as type names (subroutine types, placeholders).
    type_names: Vec<String>,
    /// Offsets of `invariant` qualifiers parsed as `precise`.
    invariant_at: HashSet<usize>,
}

/// A token of the code outside comments and preprocessor lines.
#[derive(Clone, Copy, Debug)]
struct Tok {
    start: usize,
    end: usize,
}

/// The code tokens of `src`: identifiers/numbers (one token each) and
/// single punctuation characters.
fn code_tokens(src: &str) -> Vec<Tok> {
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
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                i += 1;
            }
            i += 2;
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
fn builtin_type_word(w: &str) -> bool {
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
const QUALIFIERS: &[&str] = &[
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

/// Keywords glsl-lang always lexes as such that older GLSL versions leave
/// free as identifiers: (word, first desktop version, first ES version).
const LATER_KEYWORDS: &[(&str, u32, u32)] = &[
    ("invariant", 120, 100),
    ("centroid", 120, 300),
    ("precision", 130, 100),
    ("lowp", 130, 100),
    ("mediump", 130, 100),
    ("highp", 130, 100),
    ("flat", 130, 300),
    ("smooth", 130, 300),
    ("noperspective", 130, 9999),
    ("patch", 400, 320),
    ("sample", 400, 320),
    ("subroutine", 400, 9999),
    ("precise", 400, 320),
    ("buffer", 430, 310),
    ("shared", 430, 310),
    ("coherent", 420, 310),
    ("volatile", 420, 310),
    ("restrict", 420, 310),
    ("readonly", 420, 310),
    ("writeonly", 420, 310),
];

/// Replace `src[range]` (same length) in `out`.
fn splice(out: &mut String, start: usize, text: &str) {
    out.replace_range(start..start + text.len(), text);
}

/// The second-attempt rewrites of `src` (same length) for a shader of
/// `#version` `version` (`es`), and what to restore in the tree.
fn workarounds(src: &str, version: u32, es: bool, used: &HashSet<String>) -> (String, Workarounds) {
    let mut w = Workarounds::default();
    let mut out = src.to_string();
    let mut by_text = std::collections::HashMap::new();
    let mut next_per_len = std::collections::HashMap::new();
    let mut used = used.clone();

    // Directives and comments, line by line.
    {
        let b = src.as_bytes();
        // A line continuation that splits a comment's `*/`: `*\<newline>/`.
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
                        splice(&mut out, j, "*/\n ");
                        break;
                    }
                    j += 1;
                }
                i = j + 2;
                continue;
            }
            i += 1;
        }
        let mut offset = 0;
        for line in src.split_inclusive('\n') {
            let body = line.trim_end_matches(['\n', '\r']);
            let t = body.trim_start();
            let indent = body.len() - t.len();
            if let Some(d) = t.strip_prefix('#') {
                let d_trim = d.trim_start();
                let at = offset + indent + 1 + (d.len() - d_trim.len());
                // `#elif` without expression: only valid where it is not
                // evaluated (a group before it was taken), like `#else`.
                if d_trim.trim_end() == "elif" {
                    splice(&mut out, at, "else");
                }
                // `#line N "file"` (GL_GOOGLE_cpp_style_line_directive, the
                // include extension): the file name only names errors.
                if let Some(r) = d_trim.strip_prefix("line")
                    && let Some(q) = r.find('"')
                    && let Some(q2) = r[q + 1..].find('"')
                {
                    let s = at + 4 + q;
                    splice(&mut out, s, &" ".repeat(q2 + 2));
                }
            }
            offset += line.len();
        }
    }

    let toks = code_tokens(&out);
    let text = |t: &Tok| &src[t.start..t.end];
    let is_ident = |s: &str| {
        s.as_bytes()
            .first()
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
    };
    let at_stmt_start = |k: usize| k == 0 || matches!(text(&toks[k - 1]), ";" | "{" | "}");
    let mut fresh = |t: &str, used: &mut HashSet<String>| {
        let p = fresh_placeholder(t, &mut by_text, &mut next_per_len, used);
        if let Some(p) = &p {
            used.insert(p.clone());
        }
        p
    };
    let mut renamed: HashSet<usize> = HashSet::new();

    // Struct names: identifiers after `struct`.
    let structs: HashSet<&str> = toks
        .windows(2)
        .filter(|p| text(&p[0]) == "struct" && is_ident(text(&p[1])))
        .map(|p| text(&p[1]))
        .collect();

    for k in 0..toks.len() {
        let word = text(&toks[k]);
        let next = toks.get(k + 1).map(text).unwrap_or("");
        let prev = if k > 0 { text(&toks[k - 1]) } else { "" };
        // Subroutine types: `subroutine RET NAME(...)` declares NAME as a
        // type, which glsl-lang does not know: NAME is declared as a type
        // name and its declaration gets a placeholder function name.
        if word == "subroutine" && next != "(" && next != "uniform" {
            let mut j = k + 1;
            while j + 1 < toks.len() && !matches!(text(&toks[j]), ";" | "{" | "(") {
                j += 1;
            }
            if j < toks.len() && text(&toks[j]) == "(" && j > k + 1 {
                let name_tok = toks[j - 1];
                let name = text(&name_tok);
                if is_ident(name)
                    && let Some(p) = fresh(name, &mut used)
                {
                    splice(&mut out, name_tok.start, &p);
                    w.restore.insert(p, name.to_string());
                    w.type_names.push(name.to_string());
                    renamed.insert(j - 1);
                }
            }
        }
        // `precise a;`, `invariant a, b;`: a placeholder type name that
        // prints back as the keyword (steps.rs skips these declarations).
        if (word == "precise" || word == "invariant") && at_stmt_start(k) {
            let mut j = k + 1;
            let mut n = 0;
            while j + 1 < toks.len()
                && is_ident(text(&toks[j]))
                && !QUALIFIERS.contains(&text(&toks[j]))
                && !builtin_type_word(text(&toks[j]))
            {
                n += 1;
                match text(&toks[j + 1]) {
                    "," => j += 2,
                    ";" => break,
                    _ => {
                        n = 0;
                        break;
                    }
                }
            }
            let ends = toks.get(j + 1).is_some_and(|t| text(t) == ";");
            if ends
                && n > 0
                && (word == "precise" || n > 1)
                && let Some(p) = fresh(word, &mut used)
            {
                splice(&mut out, toks[k].start, &p);
                w.restore.insert(p.clone(), word.to_string());
                w.type_names.push(p);
                renamed.insert(k);
                continue;
            }
        }
        // `invariant` where glsl-lang wants it first or followed by another
        // qualifier (`out flat invariant float x;`, a block member
        // `invariant vec4 x;`): parsed as `precise`, restored after.
        if word == "invariant"
            && (es || version >= 120)
            && !renamed.contains(&k)
            && !(is_ident(next) && toks.get(k + 2).is_some_and(|t| text(t) == ";"))
            && !(at_stmt_start(k) && QUALIFIERS.contains(&next))
        {
            splice(&mut out, toks[k].start, "precise  ");
            w.invariant_at.insert(toks[k].start);
            continue;
        }
        // Later keywords used as identifiers in an older version.
        if let Some((_, d, e)) = LATER_KEYWORDS.iter().find(|(kw, _, _)| *kw == word)
            && (if es { version < *e } else { version < *d })
            && !is_ident(next)
            && next != "("
            && !QUALIFIERS.contains(&prev)
            && let Some(p) = fresh(word, &mut used)
        {
            splice(&mut out, toks[k].start, &p);
            w.restore.insert(p, word.to_string());
            continue;
        }
        // A struct name used as a variable or field name (`S S;`, `s.S`,
        // `vec4 Name = ...; x = Name;`).
        if structs.contains(word) && prev != "struct" && !renamed.contains(&k) {
            let prev_is_type = builtin_type_word(prev) || structs.contains(prev);
            let as_ident = prev == "."
                || (prev_is_type && next != "(")
                || (matches!(
                    next,
                    ";" | ")" | "," | "=" | "]" | "." | "+" | "-" | "*" | "/" | "%" | "<" | ">" | "!" | "&" | "|" | "^" | "?" | ":"
                ) && prev != "("
                    && prev != ",")
                // `float(Name)`, `g(Name)`: an argument, unless it is an
                // unnamed parameter (`void g(S)`: a type before the name).
                || (prev == "("
                    && next == ")"
                    && k >= 2
                    && (builtin_type_word(text(&toks[k - 2]))
                        || (k >= 3
                            && is_ident(text(&toks[k - 2]))
                            && !builtin_type_word(text(&toks[k - 3]))
                            && !structs.contains(text(&toks[k - 3])))));
            if as_ident && let Some(p) = fresh(word, &mut used) {
                splice(&mut out, toks[k].start, &p);
                w.restore.insert(p, word.to_string());
            }
        }
    }
    (out, w)
}

/// Undo [`workarounds`] in the tree: placeholder identifiers and type
/// names back to their text, `precise` back to `invariant` where it stood.
fn restore_workarounds(tu: &mut ast::TranslationUnit, w: &Workarounds) {
    use glsl_lang::visitor::{HostMut, Visit, VisitorMut};
    struct Restore<'a>(&'a Workarounds);
    impl VisitorMut for Restore<'_> {
        fn visit_identifier(&mut self, id: &mut ast::Identifier) -> Visit {
            if let Some(t) = self.0.restore.get(id.0.as_str()) {
                id.content = ast::IdentifierData::from(t.as_str());
            }
            Visit::Children
        }
        fn visit_type_name(&mut self, n: &mut ast::TypeName) -> Visit {
            if let Some(t) = self.0.restore.get(n.0.as_str()) {
                n.content = ast::TypeNameData::from(t.as_str());
            }
            Visit::Children
        }
        fn visit_type_qualifier_spec(&mut self, q: &mut ast::TypeQualifierSpec) -> Visit {
            if q.content == ast::TypeQualifierSpecData::Precise
                && let Some(span) = q.span
                && self
                    .0
                    .invariant_at
                    .contains(&usize::from(span.start().offset))
            {
                q.content = ast::TypeQualifierSpecData::Invariant;
            }
            Visit::Children
        }
    }
    tu.visit_mut(&mut Restore(w));
}

/// The version of a shader without `#version` in a context of `api`.
pub(crate) fn default_version(api: Api) -> (u32, bool) {
    match api {
        Api::Gl => (110, false),
        Api::Es | Api::Es2 => (100, true),
    }
}

/// 1-based (line, column) of a byte offset of `src`; columns count characters.
pub(crate) fn line_col(src: &str, offset: usize) -> (u32, u32) {
    let mut offset = offset.min(src.len());
    while !src.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &src[..offset];
    let line = before.matches('\n').count() as u32 + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = src[line_start..offset].chars().count() as u32 + 1;
    (line, column)
}

/// Parse a complete shader without named strings to include (tests).
#[cfg(test)]
pub(crate) fn parse_shader(src: &str) -> Result<Parsed, ParseError> {
    let p = crate::preprocess::preprocess(src, &Default::default(), Api::Gl)?;
    parse_active(&p.text, &p.active, Api::Gl)
}

/// Parse a complete shader of a context of `api` (which decides what a
/// shader without `#version` is): `src` as the model holds it, `active` the
/// same text with the lines the preprocessor leaves out blanked
/// ([`crate::preprocess`]: glsl-lang decides no branch itself). Never
/// panics: a panic inside glsl-lang is turned into a ParseError at 1:1.
pub(crate) fn parse_active(src: &str, active: &str, api: Api) -> Result<Parsed, ParseError> {
    let opts = ParseOptions {
        default_version: default_version(api).0 as u16,
        ..ParseOptions::default()
    };
    let mut used = HashSet::new();
    words(src, &mut used);
    let mut renames = std::collections::HashMap::new();
    let (edited, unknown_extensions, unknown_names) =
        hide_unknown_extensions(active, &used, &mut renames);
    used.extend(renames.keys().cloned());
    let (edited, mut literals, placeholder_types) = hide_wide_literals(&edited, &used);
    literals.extend(renames);
    let front = Front {
        src,
        opts,
        // Gated built-in type names the source uses: declared as type
        // names on a second attempt (an old shader may use e.g. `mat4x2`
        // as a variable name).
        gated: GATED_TYPE_NAMES
            .iter()
            .copied()
            .filter(|n| used.contains(*n))
            .collect(),
        placeholder_types,
        literals,
    };
    let tu = match front.attempt_gated(&edited, None) {
        Ok(tu) => tu,
        Err(Failed::Deep(e)) => return Err(e),
        Err(Failed::Syntax(_, e)) => front.fallback(edited, e, api, &used)?,
    };
    finish(tu, api, unknown_names, unknown_extensions)
}

/// Why one parse of a text failed.
enum Failed {
    /// Nested past [`crate::depth::SHADER_LIMIT`]: not parsed, and no
    /// rewrite of the text can help.
    Deep(ParseError),
    /// glsl-lang's error, at a byte offset of the text.
    Syntax(usize, ParseError),
}

/// What every parse of one shader's text (as edited, or rewritten after a
/// failure) shares.
struct Front<'a> {
    /// The source as the model holds it (errors' line:column).
    src: &'a str,
    opts: ParseOptions,
    gated: Vec<&'static str>,
    /// Type names standing for hidden literals' types.
    placeholder_types: Vec<String>,
    /// Placeholder → text of hidden literals and extension names.
    literals: std::collections::HashMap<String, String>,
}

impl Front<'_> {
    /// Parse `text` (the gated type names declared if `declare_gated`, the
    /// rewrites of `fix` undone in the tree). The one place a shader's
    /// text reaches glsl-lang's parser, so its nesting is bounded here,
    /// before any pass can recurse over a tree too deep for the stack,
    /// whichever rewrite produced the text. Never panics.
    fn attempt(
        &self,
        text: &str,
        declare_gated: bool,
        fix: Option<&Workarounds>,
    ) -> Result<ast::TranslationUnit, Failed> {
        let result = catch_unwind(AssertUnwindSafe(|| {
            if let Err(offset) = crate::depth::check(text, &self.opts, crate::depth::SHADER_LIMIT) {
                let (line, column) = line_col(self.src, offset);
                let message = crate::depth::message("the shader is", crate::depth::SHADER_LIMIT);
                return Err(Failed::Deep(ParseError {
                    line,
                    column,
                    message,
                }));
            }
            let ctx = ParseContext::new();
            let gated = self.gated.iter().filter(|_| declare_gated).copied();
            let placeholders = self.placeholder_types.iter().map(String::as_str);
            let fixes = fix
                .iter()
                .flat_map(|w| w.type_names.iter().map(String::as_str));
            for name in gated.chain(placeholders).chain(fixes) {
                ctx.add_type_name(ast::IdentifierData::from(name).into());
            }
            match ParseBuilder::<DefaultLexer<'_>, ast::TranslationUnit>::new(text)
                .opts(&self.opts)
                .context(&ctx)
                .parse()
            {
                Ok((mut tu, _ctx, lexer)) => {
                    lexer.into_directives().inject(&mut tu);
                    if let Some(w) = fix {
                        restore_workarounds(&mut tu, w);
                    }
                    if !self.literals.is_empty() {
                        restore_wide_literals(&mut tu, &self.literals);
                    }
                    Ok(tu)
                }
                Err(err) => {
                    let offset = usize::from(err.pos().start());
                    let (line, column) = line_col(self.src, offset);
                    let message = shorten(&err.inner().to_string());
                    Err(Failed::Syntax(
                        offset,
                        ParseError {
                            line,
                            column,
                            message,
                        },
                    ))
                }
            }
        }));
        result.unwrap_or_else(|_| {
            Err(Failed::Syntax(
                0,
                ParseError {
                    line: 1,
                    column: 1,
                    message: "internal error in the GLSL parser".into(),
                },
            ))
        })
    }

    /// [`Front::attempt`] as glsl-lang's version rules say; if that fails
    /// and the source uses gated type names, again with those declared,
    /// reporting the attempt that got further.
    fn attempt_gated(
        &self,
        text: &str,
        fix: Option<&Workarounds>,
    ) -> Result<ast::TranslationUnit, Failed> {
        match self.attempt(text, false, fix) {
            Err(Failed::Syntax(offset, e)) if !self.gated.is_empty() => {
                match self.attempt(text, true, fix) {
                    Err(Failed::Syntax(offset2, _)) if offset2 <= offset => {
                        Err(Failed::Syntax(offset, e))
                    }
                    second => second,
                }
            }
            first => first,
        }
    }

    /// After the first parse of `edited` failed with `e`: a macro
    /// glsl-lang-pp cannot rescan expanded by us, and valid GLSL glsl-lang
    /// rejects rewritten ([`workarounds`]). `e` is the error reported if
    /// these fail too, unless a text is nested too deeply.
    fn fallback(
        &self,
        edited: String,
        e: ParseError,
        api: Api,
        used: &HashSet<String>,
    ) -> Result<ast::TranslationUnit, ParseError> {
        // Expanded by us to the same length, then parsed as usual.
        let stuck = e
            .message
            .split_once("end of input in macro ")
            .map(|(_, m)| m.trim().trim_matches('`'));
        let rescanned = stuck.and_then(|m| expand::expand_stuck_macro(&edited, m));
        let edited = match rescanned {
            Some(text) => match self.attempt(&text, !self.gated.is_empty(), None) {
                Ok(tu) => return Ok(tu),
                Err(Failed::Deep(deep)) => return Err(deep),
                Err(Failed::Syntax(..)) => text,
            },
            None => edited,
        };
        let (v, is_es, _) = crate::preprocess::version_line(self.src, api);
        let (fixed, w) = workarounds(&edited, v, is_es, used);
        if fixed == edited && w.type_names.is_empty() {
            return Err(e);
        }
        match self.attempt_gated(&fixed, Some(&w)) {
            Ok(tu) => Ok(tu),
            Err(Failed::Deep(deep)) => Err(deep),
            Err(Failed::Syntax(..)) => Err(e),
        }
    }
}

/// The [`Parsed`] of a tree: version and extensions from its directives.
fn finish(
    tu: ast::TranslationUnit,
    api: Api,
    unknown_names: Vec<String>,
    unknown_extensions: Vec<String>,
) -> Result<Parsed, ParseError> {
    let (mut version, mut es) = default_version(api);
    let mut compat = false;
    let mut extensions = unknown_names;
    for decl in &tu.0 {
        if let ast::ExternalDeclarationData::Preprocessor(pp) = &decl.content {
            match &pp.content {
                ast::PreprocessorData::Version(v) => {
                    version = u32::from(v.version);
                    compat = matches!(
                        v.profile.as_ref().map(|p| &p.content),
                        Some(ast::PreprocessorVersionProfileData::Compatibility)
                    );
                    es = version == 100
                        || matches!(
                            v.profile.as_ref().map(|p| &p.content),
                            Some(ast::PreprocessorVersionProfileData::Es)
                        );
                }
                ast::PreprocessorData::Extension(e) => {
                    if let ast::PreprocessorExtensionNameData::Specific(name) = &e.name.content {
                        let disabled = matches!(
                            e.behavior.as_ref().map(|b| &b.content),
                            Some(ast::PreprocessorExtensionBehaviorData::Disable)
                        );
                        if !disabled {
                            extensions.push(name.to_string());
                        }
                    }
                }
                _ => {}
            }
        }
    }
    Ok(Parsed {
        tu,
        version,
        es,
        compat,
        extensions,
        unknown_extensions,
    })
}

/// glsl-lang lists every acceptable token after "expected"; keep a few.
fn shorten(message: &str) -> String {
    match message.split_once(", expected ") {
        Some((head, list)) => {
            let items: Vec<&str> = list.split(", ").collect();
            if items.len() > 6 {
                format!("{head}, expected {}, ...", items[..6].join(", "))
            } else {
                message.to_string()
            }
        }
        None => message.to_string(),
    }
}

/// Parse a user expression (as typed after `print`). `type_names` are the
/// shader's struct names, so constructors of them parse; `macros` (the
/// `#define`s in effect at the step: `Preprocessed::macros_at`) are
/// expanded in it. Errors carry the column inside the
/// expression.
#[cfg(test)]
pub(crate) fn parse_expr(
    expr: &str,
    type_names: &[String],
    macros: &str,
) -> Result<ast::Expr, String> {
    parse_expr_in(expr, type_names, macros, 460)
}

/// [`parse_expr`] with the shader's `#version` (which built-in type names
/// are keywords: `mat4x2` is a variable name in GLSL 1.10).
pub(crate) fn parse_expr_in(
    expr: &str,
    type_names: &[String],
    macros: &str,
    version: u32,
) -> Result<ast::Expr, String> {
    if expr.trim().is_empty() {
        return Err("empty expression".into());
    }
    if macros.is_empty() {
        return parse_expr_with(expr, type_names, "", version);
    }
    // Macros that do not preprocess alone (e.g. redefined in #if branches
    // that depend on what we dropped) must not make every probe fail.
    parse_expr_with(expr, type_names, macros, version)
        .or_else(|_| parse_expr_with(expr, type_names, "", version))
}

/// [`parse_expr_in`] plus the byte offset where `expr` starts in the text
/// the tree's spans point into (for columns inside the expression).
pub(crate) fn parse_expr_spanned(
    expr: &str,
    type_names: &[String],
    macros: &str,
    version: u32,
) -> Result<(ast::Expr, usize), String> {
    if expr.trim().is_empty() {
        return Err("empty expression".into());
    }
    let prefix = |m: &str| m.len() + PROBE_PREFIX.len();
    if macros.is_empty() {
        return parse_expr_with(expr, type_names, "", version).map(|e| (e, prefix("")));
    }
    match parse_expr_with(expr, type_names, macros, version) {
        Ok(e) => Ok((e, prefix(macros))),
        Err(_) => parse_expr_with(expr, type_names, "", version).map(|e| (e, prefix(""))),
    }
}

const PROBE_PREFIX: &str = "void gldbg_probe() {\n";

fn parse_expr_with(
    expr: &str,
    type_names: &[String],
    macros: &str,
    version: u32,
) -> Result<ast::Expr, String> {
    // Later keywords that name variables at this version (`float lowp;`
    // in GLSL 1.10): renamed as in the shader (same length, so columns
    // hold), restored in the tree below.
    let (expr_text, restore) = free_keywords(expr, version);
    let src = format!("{macros}{PROBE_PREFIX}{expr_text}\n;}}");
    let expr_line = macros.matches('\n').count() as u32 + 2;
    let result = catch_unwind(AssertUnwindSafe(|| {
        let ctx = ParseContext::new();
        for name in type_names {
            ctx.add_type_name(ast::IdentifierData::from(name.as_str()).into());
        }
        let opts = ParseOptions {
            default_version: u16::try_from(version).unwrap_or(460),
            ..ParseOptions::default()
        };
        // The probe function's block adds its weight. Checked before
        // parsing: the type checker and the printer recurse once per level.
        let limit = crate::depth::EXPR_LIMIT + crate::depth::BLOCK;
        if crate::depth::check(&src, &opts, limit).is_err() {
            return Err((
                usize::MAX,
                crate::depth::message("expression", crate::depth::EXPR_LIMIT),
            ));
        }
        ParseBuilder::<DefaultLexer<'_>, ast::TranslationUnit>::new(&src)
            .opts(&opts)
            .context(&ctx)
            .parse()
            .map(|(tu, _, _)| tu)
            .map_err(|err| {
                (
                    usize::from(err.pos().start()),
                    shorten(&err.inner().to_string()),
                )
            })
    }));
    let tu = match result {
        Ok(Ok(tu)) => tu,
        Ok(Err((usize::MAX, message))) => return Err(message),
        Ok(Err((offset, message))) => {
            let (line, column) = line_col(&src, offset);
            let at = if line == expr_line {
                format!(" at column {column}")
            } else {
                String::new()
            };
            return Err(format!("{message}{at}"));
        }
        Err(_) => return Err("internal error in the GLSL parser".into()),
    };
    let mut decls = tu.0.into_iter();
    let (Some(decl), None) = (decls.next(), decls.next()) else {
        return Err("not a single expression".into());
    };
    let ast::ExternalDeclarationData::FunctionDefinition(def) = decl.content else {
        return Err("not a single expression".into());
    };
    let mut stmts = def.content.statement.content.statement_list.into_iter();
    let (Some(stmt), None) = (stmts.next(), stmts.next()) else {
        return Err("not a single expression".into());
    };
    match stmt.content {
        ast::StatementData::Expression(es) => match es.content.0 {
            // The printer drops the parentheses of a sequence used as a
            // function argument, so a top-level `a, b` cannot be wrapped.
            Some(e) if matches!(e.content, ast::ExprData::Comma(..)) => {
                Err("a sequence (`,`) expression cannot be probed".into())
            }
            Some(mut e) => {
                if !restore.is_empty() {
                    restore_identifiers(&mut e, &restore);
                }
                Ok(e)
            }
            None => Err("empty expression".into()),
        },
        _ => Err("not an expression".into()),
    }
}

/// `expr` with each keyword of [`LATER_KEYWORDS`] that is still an
/// identifier at `version` replaced by a same-length placeholder, and the
/// placeholder → word map. Desktop GLSL has no version 100, 300, 310 or
/// 320, so those are GLSL ES.
fn free_keywords(expr: &str, version: u32) -> (String, std::collections::HashMap<String, String>) {
    let mut restore = std::collections::HashMap::new();
    let es = matches!(version, 100 | 300 | 310 | 320);
    let toks = code_tokens(expr);
    let free = |w: &str| {
        LATER_KEYWORDS
            .iter()
            .any(|(kw, d, e)| *kw == w && if es { version < *e } else { version < *d })
    };
    if !toks.iter().any(|t| free(&expr[t.start..t.end])) {
        return (expr.to_string(), restore);
    }
    let used: HashSet<String> = toks
        .iter()
        .map(|t| expr[t.start..t.end].to_string())
        .collect();
    let (mut by_text, mut next_per_len) = Default::default();
    let mut out = expr.to_string();
    for t in &toks {
        let w = &expr[t.start..t.end];
        if free(w)
            && let Some(p) = fresh_placeholder(w, &mut by_text, &mut next_per_len, &used)
        {
            splice(&mut out, t.start, &p);
            restore.insert(p, w.to_string());
        }
    }
    (out, restore)
}

/// Rename the identifiers of `e` by `restore` (placeholder → original).
fn restore_identifiers(e: &mut ast::Expr, restore: &std::collections::HashMap<String, String>) {
    use glsl_lang::visitor::{HostMut, Visit, VisitorMut};
    struct Restore<'a>(&'a std::collections::HashMap<String, String>);
    impl VisitorMut for Restore<'_> {
        fn visit_identifier(&mut self, id: &mut ast::Identifier) -> Visit {
            if let Some(t) = self.0.get(id.0.as_str()) {
                id.content = ast::IdentifierData::from(t.as_str());
            }
            Visit::Children
        }
    }
    e.visit_mut(&mut Restore(restore));
}

/// Print a node with glsl-lang's printer, whitespace collapsed to one line.
pub(crate) fn one_line(
    show: impl FnOnce(&mut String, &mut printer::FormattingState<'_>) -> std::fmt::Result,
) -> String {
    let mut out = String::new();
    let mut state = printer::FormattingState::default();
    let _ = show(&mut out, &mut state);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(crate) fn expr_text(e: &ast::Expr) -> String {
    one_line(|f, s| printer::show_expr(f, e, s))
}

pub(crate) fn stmt_text(st: &ast::Statement) -> String {
    one_line(|f, s| printer::show_statement(f, st, s))
}

/// Print a whole translation unit.
pub(crate) fn print_tu(decls: &[ast::ExternalDeclaration]) -> String {
    let mut out = String::new();
    let tu = ast::TranslationUnit(decls.to_vec());
    let _ = printer::show_translation_unit(&mut out, &tu, printer::FormattingState::default());
    out
}

/// Every identifier-like word of `text`.
pub(crate) fn words(text: &str, into: &mut HashSet<String>) {
    let mut cur = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_alphanumeric() || c == '_' {
            cur.push(c);
        } else if !cur.is_empty() {
            if !cur.as_bytes()[0].is_ascii_digit() {
                into.insert(std::mem::take(&mut cur));
            } else {
                cur.clear();
            }
        }
    }
}

/// Generator of names not used anywhere in the shader.
pub(crate) struct Names {
    used: HashSet<String>,
}

impl Names {
    pub fn new(used: &HashSet<String>) -> Names {
        Names { used: used.clone() }
    }

    /// `base` if free, else `base_1`, `base_2`, ...; reserves the result.
    pub fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut n = 1;
        while self.used.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.used.insert(name.clone());
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_chars() {
        let s = "ab\ncé d";
        assert_eq!(line_col(s, 0), (1, 1));
        assert_eq!(line_col(s, 3), (2, 1));
        assert_eq!(line_col(s, 7), (2, 4));
        assert_eq!(line_col(s, 100), (2, 5));
    }

    #[test]
    fn version_and_extensions() {
        let p = parse_shader("#version 300 es\n#extension GL_EXT_foo : enable\nvoid main(){}\n")
            .unwrap();
        assert_eq!((p.version, p.es), (300, true));
        assert_eq!(p.extensions, vec!["GL_EXT_foo".to_string()]);
        let p = parse_shader("void main(){}\n").unwrap();
        assert_eq!((p.version, p.es), (110, false));
        // glsl-lang rejects extensions it does not know: they are hidden and kept.
        let p =
            parse_shader("#version 330\n#extension GL_FOO_bar : require\nvoid main(){}\n").unwrap();
        assert_eq!(
            p.unknown_extensions,
            vec!["#extension GL_FOO_bar : require".to_string()]
        );
        assert_eq!(p.extensions, vec!["GL_FOO_bar".to_string()]);
        // ... and their macro is defined, as by a driver that has them.
        let src = "#version 110\n#extension GL_AMD_foo : require\n#if !defined GL_AMD_foo || GL_AMD_foo != 1\n#error no\n#endif\nvoid main(){ x = ; }\n";
        let e = parse_shader(src).err().unwrap();
        assert_eq!((e.line, e.column), (6, 18), "{e}");
        let p = parse_shader("#version 110\n#extension GL_AMD_foo : enable\n#ifdef GL_AMD_foo\nvoid main(){ }\n#endif\n").unwrap();
        let printed = print_tu(&p.tu.0);
        assert!(printed.contains("void main"), "{printed}");
        assert!(!printed.contains("#define"), "{printed}");
    }

    #[test]
    fn errors_have_positions_and_short_messages() {
        let e = parse_shader("void main() {\n  x = ;\n}").err().unwrap();
        assert_eq!((e.line, e.column), (2, 7));
        assert!(e.message.len() < 200, "{}", e.message);
        let e = parse_shader(
            "#version 400\nvec4 S(vec4 c);\nvec4 f(vec4 c){return c +;}\nvoid main(){}\n",
        )
        .err()
        .unwrap();
        assert_eq!((e.line, e.column), (3, 26));
    }

    #[test]
    fn expression_errors() {
        assert!(parse_expr("a + b * 2.0", &[], "").is_ok());
        let e = parse_expr("a + * 2.0", &[], "").unwrap_err();
        assert!(e.contains("at column 5"), "{e}");
        assert!(parse_expr("a; b", &[], "").is_err());
        assert!(parse_expr("a); } void f() { (b", &[], "").is_err());
        assert!(parse_expr("", &[], "").is_err());
        assert!(parse_expr("a, b", &[], "").is_err());
        assert!(parse_expr("S(1.0).x", &["S".into()], "").is_ok());
        assert!(parse_expr("mat4x2 * 2.0", &[], "").is_err());
        assert!(parse_expr_in("mat4x2 * 2.0", &[], "", 110).is_ok());
    }

    #[test]
    fn expressions_see_the_shader_macros() {
        let src = "#version 330\n#define TWO_PI (2.0 * \\\n  3.14159)\n#ifdef GL_ES\n#define K 1.0\n#else\n#define K 2.0\n#endif\nvoid main() {}\n";
        let macros = crate::preprocess::preprocess(src, &Default::default(), Api::Gl)
            .unwrap()
            .macros_at(9);
        assert_eq!(macros.lines().count(), 2);
        let e = parse_expr("r * TWO_PI + K", &[], &macros).unwrap();
        assert_eq!(expr_text(&e), "r * (2. * 3.14159) + 2.");
        let err = parse_expr("r +* K", &[], &macros).unwrap_err();
        assert!(err.contains("at column 4"), "{err}");
    }

    #[test]
    fn gated_type_names_and_wide_literals() {
        // atomic_uint is core in ES 3.10; dvec3 comes from an extension in 1.50.
        let p = parse_shader("#version 310 es\nlayout(binding = 0) uniform atomic_uint a;\nvoid main() { atomicCounterIncrement(a); }\n").unwrap();
        assert!(print_tu(&p.tu.0).contains("uniform atomic_uint a"));
        let src = "#version 150\n#extension GL_ARB_gpu_shader_int64 : require\n#define BIG 0xffffffff\n#if 0\n#endif\nvoid main() {\n  int a = 0xe40fe410;\n  int64_t b = 20l + int64_t(BIG);\n  uint64_t c = 0ul; // 0xffffffffffl\n  i64vec2 d = i64vec2(3000000000l);\n  int e = 017777777777 + 020000000000;\n}\n";
        let p = parse_shader(src).unwrap();
        let printed = print_tu(&p.tu.0);
        for lit in [
            "0xe40fe410",
            "20l",
            "0ul",
            "3000000000l",
            "0xffffffff",
            "020000000000",
        ] {
            assert!(printed.contains(lit), "{lit} missing in {printed}");
        }
        assert!(printed.contains("i64vec2 d"), "{printed}");
        assert!(!printed.contains("_a"), "{printed}");
        // Every offset is kept: an error after the literals is where it is.
        let e = parse_shader("void main() {\n  int a = 0xe40fe410; x = ;\n}")
            .err()
            .unwrap();
        assert_eq!((e.line, e.column), (2, 27));
        let p = parse_shader("#version 120\n#extension GL_EXT_gpu_shader4 : require\nflat varying unsigned  int x;\nuniform gl_PointParameters pp;\nvoid main() { unsigned int y = x; gl_FragColor = vec4(y); }\n").unwrap();
        let printed = print_tu(&p.tu.0);
        assert!(
            printed.contains("unsigned int x") && printed.contains("unsigned int y"),
            "{printed}"
        );
        // GL_ES and GL_FRAGMENT_PRECISION_HIGH are defined as by the driver.
        let p = parse_shader("#version 100\n#ifdef GL_ES\nprecision mediump float;\n#endif\n#if defined(GL_FRAGMENT_PRECISION_HIGH) && GL_FRAGMENT_PRECISION_HIGH == 1\nprecision highp float;\n#endif\n#ifndef GL_ES\n#error not ES\n#endif\nuniform float a;\nvoid main() { gl_FragColor = vec4(a); }\n").unwrap();
        let printed = print_tu(&p.tu.0);
        assert!(
            printed.contains("precision mediump float")
                && printed.contains("precision highp float"),
            "{printed}"
        );
        assert!(
            parse_shader("#version 330\n#ifdef GL_ES\n#error ES\n#endif\nvoid main() { x = ; }\n")
                .err()
                .unwrap()
                .line
                == 5
        );
        // A 1.10 shader may name a variable like a later built-in type.
        assert!(
            parse_shader("void main() { float mat4x2 = 1.0; gl_FragColor = vec4(mat4x2); }\n")
                .is_ok()
        );
        assert!(!wide_literal("0x7fffffff"));
        assert!(wide_literal("2147483648"));
        assert!(!wide_literal("1.0lf"));
        assert!(!wide_literal("4294967296"));
    }

    #[test]
    fn workarounds_keep_every_offset() {
        let src = "#version 110\nstruct S { vec4 S; };\n/* c *\\\n/\nuniform float centroid;\n#if 1\n#elif\n#endif\n#line 3 \"f\"\nvoid main() { S S; gl_Position = S.S * centroid; }\n";
        let mut used = HashSet::new();
        words(src, &mut used);
        let (out, w) = workarounds(src, 110, false, &used);
        assert_eq!(out.len(), src.len());
        assert_eq!(
            out.match_indices('\n').collect::<Vec<_>>(),
            src.match_indices('\n').collect::<Vec<_>>()
        );
        assert!(
            out.contains("#else") && out.contains("#line 3    \n"),
            "{out}"
        );
        assert!(out.contains("*/\n "), "{out}");
        // One-letter names get an unused letter; the struct type stays.
        assert!(out.contains("struct S { vec4 a; };"), "{out}");
        assert!(out.contains("S a;") && out.contains("a.a *"), "{out}");
        assert_eq!(w.restore.get("a").map(String::as_str), Some("S"));
        let p = parse_shader(src).unwrap();
        let printed = print_tu(&p.tu.0);
        assert!(
            printed.contains("S S;") && printed.contains("uniform float centroid;"),
            "{printed}"
        );
        // A shader that parses as is is not rewritten.
        let plain = "struct S { vec4 v; };\nvoid main() { S s; }\n";
        assert!(print_tu(&parse_shader(plain).unwrap().tu.0).contains("S s;"));
    }

    #[test]
    fn names_are_fresh() {
        let mut used = HashSet::new();
        words("float gldbg_v; int x2 = 3;", &mut used);
        let mut n = Names::new(&used);
        assert_eq!(n.fresh("gldbg_v"), "gldbg_v_1");
        assert_eq!(n.fresh("gldbg_v"), "gldbg_v_2");
        assert_eq!(n.fresh("gldbg_c"), "gldbg_c");
    }
}
