//! glsl-lang-pp rescans a macro's expansion on its own: a function-like
//! macro name produced by `##` (or by a nested expansion) whose `(` follows
//! in the enclosing replacement list fails with its
//! `UnterminatedMacroInvocation` error ("end of input in macro X"; piglit
//! glsl-1.30/preprocessor/concat/nested_concat). C99 6.10.3.4 rescans the
//! expansion together with the rest of the tokens. On a later attempt
//! such an object-like macro is expanded by us (Prosser's hide-set
//! algorithm, `crate::preprocess::expand`) and its `#define` written back
//! as the full expansion, in the bytes of the `#define` lines the
//! expansion used up (so every offset, and hence every line:column, stays
//! where it was).

use std::collections::{HashMap, HashSet};

use glsl_lang::lexer::full::LexicalError;
use glsl_lang_pp::processor::event::{ErrorKind, ProcessingErrorKind};
use lang_util::error::ParseErrorKind;

use crate::preprocess::expand::{
    EXPANSION_BUDGET, MacroDef, PpTok, parse_define, pp_expand, pp_tokens,
};

/// The macro glsl-lang-pp could not finish, from the kind of its error.
pub(crate) fn stuck_macro<E: std::error::Error + 'static>(
    kind: &ParseErrorKind<LexicalError<E>>,
) -> Option<String> {
    let ParseErrorKind::LexicalError {
        error: LexicalError::Processor(p),
    } = kind
    else {
        return None;
    };
    match p.inner() {
        ErrorKind::Processing(ProcessingErrorKind::UnterminatedMacroInvocation { ident }) => {
            Some(ident.to_string())
        }
        _ => None,
    }
}

/// The directives of a source: its lines, the macros defined (as at the
/// end of the source), and where each `#define` is.
struct Directives<'a> {
    lines: Vec<&'a str>,
    defs: HashMap<String, MacroDef>,
    /// First and last line of each macro's `#define` (with continuations).
    define_lines: HashMap<String, (usize, usize)>,
    /// Per line: part of a directive.
    in_directive: Vec<bool>,
}

impl<'a> Directives<'a> {
    fn scan(src: &'a str) -> Directives<'a> {
        let lines: Vec<&str> = src.split_inclusive('\n').collect();
        let mut d = Directives {
            in_directive: vec![false; lines.len()],
            lines,
            defs: HashMap::new(),
            define_lines: HashMap::new(),
        };
        let mut i = 0;
        while i < d.lines.len() {
            let first = i;
            if !d.lines[i].trim_start().starts_with('#') {
                i += 1;
                continue;
            }
            let mut text = String::new();
            loop {
                d.in_directive[i] = true;
                let l = d.lines[i].trim_end_matches(['\n', '\r']);
                match l.strip_suffix('\\') {
                    Some(l) if i + 1 < d.lines.len() => {
                        text.push_str(l);
                        i += 1;
                    }
                    _ => {
                        text.push_str(l);
                        break;
                    }
                }
            }
            i += 1;
            let directive = text.trim_start()[1..].trim_start();
            if let Some(rest) = directive.strip_prefix("define")
                && rest.starts_with([' ', '\t'])
                && let Some((name, def)) = parse_define(rest)
            {
                d.defs.insert(name.clone(), def);
                d.define_lines.insert(name, (first, i - 1));
            } else if let Some(rest) = directive.strip_prefix("undef") {
                d.defs.remove(rest.trim());
            }
        }
        d
    }

    /// The lines outside directives.
    fn code(&self) -> String {
        self.lines
            .iter()
            .zip(&self.in_directive)
            .filter(|(_, d)| !**d)
            .map(|(l, _)| *l)
            .collect()
    }
}

/// The one invocation of macro `name` in `code` (all its invocations
/// alike: a function-like macro keeps its parameters but ignores them), or
/// `None`.
fn the_invocation<'t>(name: &str, def: &MacroDef, code: &'t [String]) -> Option<&'t [String]> {
    let mut calls: Vec<&[String]> = Vec::new();
    for (k, _) in code.iter().enumerate().filter(|(_, t)| *t == name) {
        let call = match def.params {
            None => &code[k..=k],
            Some(_) => {
                if code.get(k + 1).is_none_or(|t| t != "(") {
                    return None;
                }
                let mut depth = 0;
                let mut end = None;
                for (j, t) in code.iter().enumerate().skip(k + 1) {
                    match t.as_str() {
                        "(" => depth += 1,
                        ")" if depth == 1 => {
                            end = Some(j);
                            break;
                        }
                        ")" => depth -= 1,
                        _ => {}
                    }
                }
                &code[k..=end?]
            }
        };
        calls.push(call);
    }
    let call = *calls.first()?;
    calls.iter().all(|c| *c == call).then_some(call)
}

/// The lines `name`'s new definition may fill: its own `#define` and the
/// adjacent `#define`s of macros its expansion `used` that nothing else
/// in the code (`code_words`) reaches.
fn region(
    d: &Directives<'_>,
    name: &str,
    used: &HashSet<String>,
    code_words: &HashSet<String>,
) -> (usize, usize) {
    let mut reach: HashSet<&String> = HashSet::new();
    let mut todo: Vec<&String> = code_words.iter().filter(|w| *w != name).collect();
    while let Some(w) = todo.pop() {
        if let Some(def) = d.defs.get(w)
            && reach.insert(w)
        {
            todo.extend(def.body.iter());
        }
    }
    let (first, last) = d.define_lines[name];
    let droppable = |l: usize| {
        d.defs.iter().any(|(n, _)| {
            n != name
                && used.contains(n)
                // Nothing else the code invokes reaches it.
                && !reach.contains(n)
                && d.define_lines.get(n).is_some_and(|(a, b)| (*a..=*b).contains(&l))
        })
    };
    let (mut lo, mut hi) = (first, last);
    while lo > 0 && droppable(lo - 1) {
        lo -= 1;
    }
    while hi + 1 < d.lines.len() && droppable(hi + 1) {
        hi += 1;
    }
    (lo, hi)
}

/// `words` laid out over `lines` (each keeping its length and line end,
/// continued with `\` but the last); `None` where they do not fit.
fn fill(lines: &[&str], words: &[String]) -> Option<String> {
    let mut filled = String::new();
    let mut words = words.iter().peekable();
    for (k, l) in lines.iter().enumerate() {
        let last = k + 1 == lines.len();
        let body_len = l.trim_end_matches(['\n', '\r']).len();
        let room = if last {
            body_len
        } else {
            body_len.checked_sub(2)?
        };
        let mut line = String::new();
        while let Some(w) = words.peek() {
            let need = if line.is_empty() {
                w.len()
            } else {
                line.len() + 1 + w.len()
            };
            if need > room {
                break;
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(w);
            words.next();
        }
        let pad = if last {
            body_len - line.len()
        } else {
            body_len - 1 - line.len()
        };
        line.push_str(&" ".repeat(pad));
        if !last {
            line.push('\\');
        }
        line.push_str(&l[body_len..]);
        filled.push_str(&line);
    }
    words.peek().is_none().then_some(filled)
}

/// The source with each object-like macro whose expansion runs into
/// `stuck` (the macro glsl-lang-pp could not finish) redefined as its full
/// expansion, same length; `None` when that cannot be done.
pub(crate) fn expand_stuck_macro(src: &str, stuck: &str) -> Option<String> {
    let d = Directives::scan(src);
    // Object-like macros named in the code whose expansion uses `stuck`.
    let code_toks = pp_tokens(&d.code());
    let code_words: HashSet<String> = code_toks.iter().cloned().collect();
    let mut out = src.to_string();
    let mut changed = false;
    let mut rewritten = HashSet::new();
    let mut names: Vec<&String> = code_words
        .iter()
        .filter(|n| d.defs.contains_key(*n))
        .collect();
    names.sort();
    for name in names {
        let def = &d.defs[name];
        let Some(call) = the_invocation(name, def, &code_toks) else {
            continue;
        };
        let mut used = HashSet::new();
        let mut budget = EXPANSION_BUDGET;
        let start = call
            .iter()
            .map(|t| PpTok {
                text: t.clone(),
                hide: Vec::new(),
            })
            .collect();
        let Some(expansion) = pp_expand(start, &d.defs, &mut used, &mut budget) else {
            continue;
        };
        let params = def.params.clone();
        if !used.contains(stuck)
            || expansion
                .iter()
                .any(|t| params.iter().flatten().any(|p| *p == t.text))
        {
            continue;
        }
        let head = match &params {
            None => format!("#define {name}"),
            Some(p) => format!("#define {name}({})", p.join(",")),
        };
        let (lo, hi) = region(&d, name, &used, &code_words);
        let text: Vec<String> = std::iter::once(head)
            .chain(expansion.into_iter().map(|t| t.text))
            .collect();
        let region_start: usize = d.lines[..lo].iter().map(|l| l.len()).sum();
        let Some(filled) = fill(&d.lines[lo..=hi], &text) else {
            // A `\` with no room on a continued line: nothing can be done.
            if d.lines[lo..hi]
                .iter()
                .any(|l| l.trim_end_matches(['\n', '\r']).len() < 2)
            {
                return None;
            }
            continue;
        };
        if (lo..=hi).any(|l| rewritten.contains(&l)) {
            continue;
        }
        rewritten.extend(lo..=hi);
        out.replace_range(region_start..region_start + filled.len(), &filled);
        changed = true;
    }
    changed.then_some(out)
}
