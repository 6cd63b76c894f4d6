//! The shader's preprocessor state as the driver sees it, computed once and
//! used everywhere a name or a line is resolved.
//!
//! One pass over the source decides which lines are active (`#if`,
//! `#ifdef`, `#ifndef`, `#elif`, `#else`, `#endif`, nested; conditions
//! with `defined`, macros and integer arithmetic; `#define`/`#undef` only
//! where active), splices `#include`d named strings
//! (`ARB_shading_language_include`) and numbers every line as the driver
//! does after `#line` and `#include`. It yields:
//!
//! * the text the model holds (includes spliced in, nothing else changed),
//! * the same text with every inactive line and every conditional
//!   directive blanked, byte for byte (what glsl-lang parses: it never
//!   decides a branch itself),
//! * each line's number as the driver counts it,
//! * the macros in effect at each line (for probe expressions).
//!
//! The driver's numbering (Mesa's, checked against its compile logs): a
//! line after `#line N` is line N from GLSL 3.30 on and in every GLSL ES
//! (1.00 too), N + 1 in older desktop GLSL; an `#include`d string's lines
//! follow the `#include` line's number, and the including string goes on
//! one line after them. (The extension's spec leaves this to the
//! implementation; other drivers may number included strings apart.)

pub(crate) mod expand;
mod expr;

use std::collections::{BTreeMap, HashMap};

use expand::{MacroDef, parse_define};

use crate::{Api, ParseError};

/// Named strings for `#include` (`glNamedStringARB`) and the search paths
/// of the compile (`glCompileShaderIncludeARB`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Includes {
    /// Name (an absolute path such as `/lib/light.glsl`) → text.
    pub strings: BTreeMap<String, String>,
    /// Directories searched, in order, for a relative `#include` path.
    pub search_paths: Vec<String>,
}

/// How deep `#include`s may nest (a string including itself ends here).
const MAX_INCLUDE_DEPTH: usize = 32;

/// A line's number as the driver reports it: source string and line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DriverLine {
    pub string: u32,
    pub line: u32,
}

/// One `#define` and the lines where it is in effect.
struct DefSpan {
    /// `#define NAME ...` on one line (continuations joined, comments gone).
    directive: String,
    /// 0-based index of the last line of the directive: in effect after it.
    from: usize,
    /// 0-based index of the line that ends it (`#undef`, a redefinition).
    to: usize,
}

/// The preprocessor's view of a shader (see the module doc).
pub(crate) struct Preprocessed {
    pub text: String,
    pub active: String,
    /// `text` with the `#include` lines blanked: compiles without the
    /// named strings (the shader's other stages are linked from it).
    pub spliced: String,
    /// Per line of `text` (0-based index).
    pub lines: Vec<DriverLine>,
    defs: Vec<DefSpan>,
}

impl Preprocessed {
    /// The `#define`s in effect at 1-based line `line` of `text`, one a
    /// line, in definition order.
    pub fn macros_at(&self, line: u32) -> String {
        let at = (line as usize).saturating_sub(1);
        let mut out = String::new();
        for d in self.defs.iter().filter(|d| d.from < at && at <= d.to) {
            out.push_str(&d.directive);
            out.push('\n');
        }
        out
    }

    /// The driver's number of 1-based line `line` of `text`.
    pub fn driver_line(&self, line: u32) -> u32 {
        self.lines
            .get((line as usize).saturating_sub(1))
            .map_or(line, |l| l.line)
    }
}

/// What the driver predefines, by `#version` (without one: the default
/// of a context of `api`).
fn predefined(text: &str, api: Api) -> HashMap<String, MacroDef> {
    let (version, es, compat) = version_line(text, api);
    let mut names: Vec<String> = glsl_lang_pp::exts::DEFAULT_REGISTRY
        .all()
        .map(|e| e.name().as_ref().to_string())
        .collect();
    if es {
        names.push("GL_ES".into());
        if version >= 300 {
            names.push("GL_es_profile".into());
        }
    } else if version >= 150 {
        names.push("GL_core_profile".into());
        if compat {
            names.push("GL_compatibility_profile".into());
        }
    }
    if es || version >= 130 {
        names.push("GL_FRAGMENT_PRECISION_HIGH".into());
    }
    let mut defs: HashMap<String, MacroDef> =
        names.into_iter().map(|n| (n, object(&["1"]))).collect();
    defs.insert("__VERSION__".into(), object(&[&version.to_string()]));
    defs
}

fn object(body: &[&str]) -> MacroDef {
    MacroDef {
        params: None,
        body: body.iter().map(|s| s.to_string()).collect(),
    }
}

/// `#version`: number, ES, compatibility profile; without one, the
/// default of a context of `api` (GLSL 1.10, or GLSL ES 1.00 in GL ES).
pub(crate) fn version_line(src: &str, api: Api) -> (u32, bool, bool) {
    for l in src.lines() {
        if let Some(r) = l.trim_start().strip_prefix('#')
            && let Some(r) = r.trim_start().strip_prefix("version")
        {
            let mut w = r.split_whitespace();
            let version = w.next().and_then(|n| n.parse().ok()).unwrap_or(110);
            let profile = w.next();
            return (
                version,
                version == 100 || profile == Some("es"),
                profile == Some("compatibility"),
            );
        }
    }
    let (version, es) = api.default_version();
    (version, es, false)
}

/// One open conditional.
struct Cond {
    /// Every enclosing conditional is active.
    outer: bool,
    /// The current branch is active.
    active: bool,
    /// A branch was taken already (later `#elif`/`#else` are inactive).
    taken: bool,
    seen_else: bool,
}

/// The running state of the pass.
struct State<'a> {
    includes: &'a Includes,
    macros: HashMap<String, MacroDef>,
    /// Index into `defs` of each user macro now defined.
    open_defs: HashMap<String, usize>,
    defs: Vec<DefSpan>,
    conds: Vec<Cond>,
    text: String,
    active: String,
    spliced: String,
    lines: Vec<DriverLine>,
    /// The driver's number of the next line.
    next: DriverLine,
    /// `#line N`: the next line is N (GLSL >= 3.30, every ES) or N + 1.
    line_sets_next: bool,
    /// The driver's number of the directive being read.
    here: DriverLine,
    /// The directory of the named string being read (none: the shader's own).
    dir: Option<String>,
}

/// Run the pass over `src` (see the module doc).
pub(crate) fn preprocess(
    src: &str,
    includes: &Includes,
    api: Api,
) -> Result<Preprocessed, ParseError> {
    let (version, es, _) = version_line(src, api);
    let mut st = State {
        includes,
        macros: predefined(src, api),
        open_defs: HashMap::new(),
        defs: Vec::new(),
        conds: Vec::new(),
        text: String::with_capacity(src.len()),
        active: String::with_capacity(src.len()),
        spliced: String::with_capacity(src.len()),
        lines: Vec::new(),
        next: DriverLine { string: 0, line: 1 },
        line_sets_next: es || version >= 330,
        here: DriverLine { string: 0, line: 1 },
        dir: None,
    };
    st.run(src, 0)?;
    if !st.conds.is_empty() {
        st.here = st.lines.last().copied().unwrap_or(st.here);
        return Err(st.err("unterminated #if".into()));
    }
    let end = st.lines.len();
    for d in &mut st.defs {
        d.to = d.to.min(end);
    }
    Ok(Preprocessed {
        text: st.text,
        active: st.active,
        spliced: st.spliced,
        lines: st.lines,
        defs: st.defs,
    })
}

/// The physical lines of `src` with their code (comments blanked, so a
/// `#` in a comment is no directive).
fn code_lines(src: &str) -> Vec<(&str, String)> {
    let mut in_block = false;
    src.split_inclusive('\n')
        .map(|raw| {
            let b = raw.as_bytes();
            let at = |i: usize, pair: &[u8; 2]| b.get(i..i + 2) == Some(&pair[..]);
            let mut code = String::with_capacity(raw.len());
            let mut i = 0;
            while i < b.len() {
                if in_block {
                    // Byte by byte: a comment may hold any UTF-8.
                    if at(i, b"*/") {
                        in_block = false;
                        code.push_str("  ");
                        i += 2;
                    } else {
                        code.push(' ');
                        i += 1;
                    }
                } else if at(i, b"/*") {
                    in_block = true;
                    code.push_str("  ");
                    i += 2;
                } else if at(i, b"//") {
                    break;
                } else {
                    let len = raw[i..].chars().next().map_or(1, char::len_utf8);
                    code.push_str(&raw[i..i + len]);
                    i += len;
                }
            }
            (raw, code)
        })
        .collect()
}

impl State<'_> {
    fn is_active(&self) -> bool {
        self.conds.last().is_none_or(|c| c.outer && c.active)
    }

    /// An error at the directive being read (the driver's line number).
    fn err(&self, message: String) -> ParseError {
        ParseError {
            line: self.here.line,
            column: 1,
            message,
        }
    }

    /// Append one physical line of `text`, kept in `active` or blanked;
    /// in `spliced` unless it is an `#include`.
    fn push_line(&mut self, raw: &str, keep: bool, include: bool) {
        let body = raw.trim_end_matches(['\n', '\r']);
        let blank = |out: &mut String| {
            out.extend(std::iter::repeat_n(' ', body.len()));
            out.push_str(&raw[body.len()..]);
        };
        self.text.push_str(raw);
        if keep {
            self.active.push_str(raw);
        } else {
            blank(&mut self.active);
        }
        if include {
            blank(&mut self.spliced);
        } else {
            self.spliced.push_str(raw);
        }
        self.lines.push(self.next);
        self.next.line += 1;
    }

    fn run(&mut self, src: &str, depth: usize) -> Result<(), ParseError> {
        let lines = code_lines(src);
        let mut i = 0;
        while i < lines.len() {
            let (raw, code) = &lines[i];
            let Some(d) = code.trim_start().strip_prefix('#') else {
                let keep = self.is_active();
                self.push_line(raw, keep, false);
                i += 1;
                continue;
            };
            // The directive with its continuation lines.
            let mut text = d.trim_end_matches(['\n', '\r']).to_string();
            let mut last = i;
            while text.ends_with('\\') && last + 1 < lines.len() {
                text.pop();
                last += 1;
                text.push(' ');
                text.push_str(lines[last].1.trim_end_matches(['\n', '\r']));
            }
            let d = text.trim_start();
            let word: String = d
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let rest = d[word.len()..].trim();
            let was_active = self.is_active();
            self.here = self.next;
            let conditional = self.conditional(&word, rest)?;
            let keep = was_active && !conditional && word != "include";
            let first_line = self.lines.len();
            let include = was_active && word == "include";
            for (raw, _) in &lines[i..=last] {
                self.push_line(raw, keep, include);
            }
            if was_active && !conditional {
                self.directive(&word, rest, d, first_line, self.lines.len() - 1, depth)?;
            }
            i = last + 1;
        }
        Ok(())
    }

    /// A conditional directive: the stack updated, `true`. Else `false`.
    fn conditional(&mut self, word: &str, rest: &str) -> Result<bool, ParseError> {
        let active = self.is_active();
        if matches!(word, "if" | "elif") {
            let (line, string) = (self.here.line.to_string(), self.here.string.to_string());
            self.macros.insert("__LINE__".into(), object(&[&line]));
            self.macros.insert("__FILE__".into(), object(&[&string]));
        }
        let name = || rest.split_whitespace().next().unwrap_or("");
        match word {
            "if" | "ifdef" | "ifndef" => {
                let value = if !active {
                    false
                } else if word == "if" {
                    expr::eval_condition(rest, &self.macros)
                        .map_err(|e| self.err(format!("#if {rest}: {e}")))?
                } else {
                    self.macros.contains_key(name()) == (word == "ifdef")
                };
                self.conds.push(Cond {
                    outer: active,
                    active: value,
                    taken: value,
                    seen_else: false,
                });
            }
            "elif" | "else" => {
                let Some(c) = self.conds.last() else {
                    return Err(self.err(format!("#{word} without #if")));
                };
                if c.seen_else {
                    return Err(self.err(format!("#{word} after #else")));
                }
                let (outer, taken) = (c.outer, c.taken);
                let value = outer
                    && !taken
                    && (word == "else"
                        // `#elif` with no expression (accepted by Mesa) is false.
                        || (!rest.is_empty()
                            && expr::eval_condition(rest, &self.macros)
                                .map_err(|e| self.err(format!("#elif {rest}: {e}")))?));
                let c = self.conds.last_mut().expect("checked above");
                c.active = value;
                c.taken |= value;
                c.seen_else = word == "else";
            }
            "endif" => {
                if self.conds.pop().is_none() {
                    return Err(self.err("#endif without #if".into()));
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// An active directive other than a conditional (lines `first..=last`).
    fn directive(
        &mut self,
        word: &str,
        rest: &str,
        whole: &str,
        first: usize,
        last: usize,
        depth: usize,
    ) -> Result<(), ParseError> {
        match word {
            "define" => {
                if let Some((name, def)) = parse_define(rest) {
                    if let Some(k) = self.open_defs.remove(&name) {
                        self.defs[k].to = first;
                    }
                    self.open_defs.insert(name.clone(), self.defs.len());
                    self.defs.push(DefSpan {
                        directive: format!("#{}", whole.trim()),
                        from: last,
                        to: usize::MAX,
                    });
                    self.macros.insert(name, def);
                }
            }
            "undef" => {
                let name = rest.split_whitespace().next().unwrap_or("");
                if let Some(k) = self.open_defs.remove(name) {
                    self.defs[k].to = first;
                }
                self.macros.remove(name);
            }
            "extension" => {
                // An enabled extension the registry does not know is
                // supported by the driver the shader compiled on.
                let name = rest.split(':').next().unwrap_or("").trim();
                if !rest.trim_end().ends_with("disable") && !self.macros.contains_key(name) {
                    self.macros.insert(name.to_string(), object(&["1"]));
                }
            }
            "line" => {
                let mut w = rest.split_whitespace();
                let n = w.next().and_then(|n| n.parse::<u32>().ok());
                let Some(n) = n else {
                    return Err(self.err(format!("#line needs a line number: `#line {rest}`")));
                };
                self.next.line = if self.line_sets_next { n } else { n + 1 };
                if let Some(s) = w.next().and_then(|s| s.parse::<u32>().ok()) {
                    self.next.string = s;
                }
            }
            "include" => self.include(rest, depth)?,
            _ => {}
        }
        Ok(())
    }

    /// Splice the named string `#include` names.
    fn include(&mut self, rest: &str, depth: usize) -> Result<(), ParseError> {
        let quoted = rest.strip_prefix('"').and_then(|r| r.split_once('"'));
        let path = quoted
            .or_else(|| rest.strip_prefix('<').and_then(|r| r.split_once('>')))
            .map(|(p, _)| p);
        let Some(path) = path else {
            return Err(self.err(format!("#include needs \"path\" or <path>, not `{rest}`")));
        };
        if depth >= MAX_INCLUDE_DEPTH {
            return Err(self.err(format!(
                "#include \"{path}\" nests deeper than {MAX_INCLUDE_DEPTH}"
            )));
        }
        let dir = self.dir.clone().filter(|_| quoted.is_some());
        let Some((name, text)) = resolve(self.includes, path, dir.as_deref()) else {
            return Err(self.err(format!(
                "#include \"{path}\": no such named string (glNamedStringARB){}",
                if path.starts_with('/') {
                    String::new()
                } else {
                    format!(" in the search paths {:?}", self.includes.search_paths)
                }
            )));
        };
        let string = self.next.string;
        let outer = self
            .dir
            .replace(name.rsplit_once('/').map_or("", |(d, _)| d).to_string());
        self.run(&text, depth + 1)?;
        self.dir = outer;
        if !self.text.ends_with('\n') {
            self.text.push('\n');
            self.active.push('\n');
            self.spliced.push('\n');
        }
        // The driver goes on one line after the included string's, in
        // the including string.
        self.next.line += 1;
        self.next.string = string;
        Ok(())
    }
}

/// A path with `.`, `..` and repeated `/` resolved (`/a/./b/../c` → `/a/c`).
fn normal(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/').filter(|s| !s.is_empty() && *s != ".") {
        if part == ".." {
            parts.pop();
        } else {
            parts.push(part);
        }
    }
    format!("/{}", parts.join("/"))
}

/// The named string an `#include` names, and its name: an absolute path
/// as it is; a relative one first beside the including named string
/// (`"..."` in an included string: `dir`), then in each search path in
/// order (ARB_shading_language_include).
fn resolve(includes: &Includes, path: &str, dir: Option<&str>) -> Option<(String, String)> {
    let find = |full: String| {
        let full = normal(&full);
        includes
            .strings
            .iter()
            .find(|(name, _)| normal(name) == full)
            .map(|(_, text)| (full, text.clone()))
    };
    if path.starts_with('/') {
        return find(path.to_string());
    }
    dir.iter()
        .map(|d| d.to_string())
        .chain(includes.search_paths.iter().cloned())
        .find_map(|d| find(format!("{d}/{path}")))
}

#[cfg(test)]
mod tests;
