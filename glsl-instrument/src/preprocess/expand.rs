//! Macro expansion by C99's rules (Prosser's hide sets), for `#if`
//! expressions and for the rescans glsl-lang-pp does not do.

use std::collections::HashSet;

// ---------------------------------------------------------------------------
// Macro rescans glsl-lang-pp does not do.
//
// glsl-lang-pp rescans a macro's expansion on its own: a function-like
// macro name produced by `##` (or by a nested expansion) whose `(` follows
// in the enclosing replacement list fails with "end of input in macro X"
// (piglit glsl-1.30/preprocessor/concat/nested_concat). C99 6.10.3.4
// rescans the expansion together with the rest of the tokens. The fallback
// below expands such an object-like macro itself (Prosser's hide-set
// algorithm) and writes its `#define` back as the full expansion, in the
// bytes of the `#define` lines the expansion used up (so every offset, and
// hence every line:column, stays where it was).

/// One `#define`: parameters (`None`: object-like) and replacement tokens.
pub(crate) struct MacroDef {
    pub params: Option<Vec<String>>,
    pub body: Vec<String>,
}

/// A preprocessing token and its hide set.
#[derive(Clone)]
pub(crate) struct PpTok {
    pub text: String,
    pub hide: Vec<String>,
}

/// Preprocessing tokens of `s`: identifiers, pp-numbers, `##`, the
/// multi-character operators and single characters.
pub(crate) fn pp_tokens(s: &str) -> Vec<String> {
    const OPS: [&str; 23] = [
        "<<=", ">>=", "##", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "^^", "+=",
        "-=", "*=", "/=", "%=", "&=", "|=", "^=", "...",
    ];
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_alphanumeric()
            || c == b'_'
            || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            let start = i;
            let number = c.is_ascii_digit() || c == b'.';
            i += 1;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric()
                    || b[i] == b'_'
                    || (number
                        && (b[i] == b'.'
                            || ((b[i] == b'+' || b[i] == b'-')
                                && matches!(b[i - 1], b'e' | b'E')))))
            {
                i += 1;
            }
            out.push(s[start..i].to_string());
        } else if let Some(op) = OPS.iter().find(|op| s[i..].starts_with(*op)) {
            out.push((*op).to_string());
            i += op.len();
        } else {
            let len = s[i..].chars().next().map_or(1, char::len_utf8);
            out.push(s[i..i + len].to_string());
            i += len;
        }
    }
    out
}

/// A `#define` directive's text (after `define`) as a macro.
pub(crate) fn parse_define(rest: &str) -> Option<(String, MacroDef)> {
    let rest = rest.trim_start();
    let name_len = rest
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
        .count();
    if name_len == 0 {
        return None;
    }
    let name = rest[..name_len].to_string();
    let after = &rest[name_len..];
    if let Some(p) = after.strip_prefix('(') {
        let close = p.find(')')?;
        let params = p[..close]
            .split(',')
            .map(|x| x.trim().to_string())
            .filter(|x| !x.is_empty())
            .collect();
        let body = pp_tokens(&p[close + 1..]);
        Some((
            name,
            MacroDef {
                params: Some(params),
                body,
            },
        ))
    } else {
        Some((
            name,
            MacroDef {
                params: None,
                body: pp_tokens(after),
            },
        ))
    }
}

/// Arguments nested in macro arguments that [`pp_expand`] expands (each
/// level recurses once).
const MAX_ARG_NESTING: u32 = 64;

/// Expand `ts` fully (C99 6.10.3, hide sets); `used` collects the macros
/// expanded. `None` when an invocation is cut off, the work explodes or
/// arguments nest more than [`MAX_ARG_NESTING`] deep.
pub(crate) fn pp_expand(
    ts: std::collections::VecDeque<PpTok>,
    defs: &std::collections::HashMap<String, MacroDef>,
    used: &mut HashSet<String>,
    budget: &mut usize,
) -> Option<Vec<PpTok>> {
    expand_nested(ts, defs, used, budget, 0)
}

fn expand_nested(
    mut ts: std::collections::VecDeque<PpTok>,
    defs: &std::collections::HashMap<String, MacroDef>,
    used: &mut HashSet<String>,
    budget: &mut usize,
    nesting: u32,
) -> Option<Vec<PpTok>> {
    if nesting > MAX_ARG_NESTING {
        return None;
    }
    let mut out = Vec::new();
    while let Some(t) = ts.pop_front() {
        *budget = budget.checked_sub(1)?;
        let Some(def) = defs.get(&t.text).filter(|_| !t.hide.contains(&t.text)) else {
            out.push(t);
            continue;
        };
        let mut hide = t.hide.clone();
        hide.push(t.text.clone());
        let replaced = match &def.params {
            None => pp_subst(&def.body, &[], &[], &hide, defs, used, budget, nesting)?,
            Some(params) => {
                if ts.front().is_none_or(|n| n.text != "(") {
                    out.push(t);
                    continue;
                }
                ts.pop_front();
                let mut args: Vec<Vec<PpTok>> = vec![Vec::new()];
                let mut depth = 0;
                loop {
                    let a = ts.pop_front()?;
                    match a.text.as_str() {
                        ")" if depth == 0 => break,
                        "," if depth == 0 => {
                            args.push(Vec::new());
                            continue;
                        }
                        "(" => depth += 1,
                        ")" => depth -= 1,
                        _ => {}
                    }
                    args.last_mut()?.push(a);
                }
                if params.is_empty() && args.len() == 1 && args[0].is_empty() {
                    args.clear();
                }
                if args.len() != params.len() {
                    return None;
                }
                pp_subst(&def.body, params, &args, &hide, defs, used, budget, nesting)?
            }
        };
        used.insert(t.text.clone());
        for r in replaced.into_iter().rev() {
            ts.push_front(r);
        }
    }
    Some(out)
}

/// A replacement list with the arguments substituted and `##` applied.
#[allow(clippy::too_many_arguments)]
fn pp_subst(
    body: &[String],
    params: &[String],
    args: &[Vec<PpTok>],
    hide: &[String],
    defs: &std::collections::HashMap<String, MacroDef>,
    used: &mut HashSet<String>,
    budget: &mut usize,
    nesting: u32,
) -> Option<Vec<PpTok>> {
    let arg = |t: &str| params.iter().position(|p| p == t).map(|i| &args[i]);
    let mut os: Vec<PpTok> = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let t = &body[i];
        if t == "##" && i + 1 < body.len() {
            let rhs: Vec<PpTok> = match arg(&body[i + 1]) {
                Some(a) => a.clone(),
                None => vec![PpTok {
                    text: body[i + 1].clone(),
                    hide: Vec::new(),
                }],
            };
            let mut rhs = rhs.into_iter();
            if let Some(first) = rhs.next() {
                match os.last_mut() {
                    Some(last) => last.text.push_str(&first.text),
                    None => os.push(first),
                }
            }
            os.extend(rhs);
            i += 2;
            continue;
        }
        match arg(t) {
            // An operand of `##` is not macro-expanded first.
            Some(a) if body.get(i + 1).is_some_and(|n| n == "##") => os.extend(a.iter().cloned()),
            Some(a) => os.extend(expand_nested(
                a.iter().cloned().collect(),
                defs,
                used,
                budget,
                nesting + 1,
            )?),
            None => os.push(PpTok {
                text: t.clone(),
                hide: Vec::new(),
            }),
        }
        i += 1;
    }
    for t in &mut os {
        t.hide.extend(hide.iter().cloned());
    }
    Some(os)
}

/// The source with each object-like macro whose expansion runs into
/// `stuck` (the macro glsl-lang-pp could not finish) redefined as its full
/// expansion, same length; `None` when that cannot be done.
pub(crate) fn expand_stuck_macro(src: &str, stuck: &str) -> Option<String> {
    // Directive lines (with continuations): (first line, last line, text).
    let lines: Vec<&str> = src.split_inclusive('\n').collect();
    let mut defs = std::collections::HashMap::new();
    let mut define_lines: std::collections::HashMap<String, (usize, usize)> =
        std::collections::HashMap::new();
    let mut in_directive = vec![false; lines.len()];
    let mut i = 0;
    while i < lines.len() {
        let first = i;
        let t = lines[i].trim_start();
        if !t.starts_with('#') {
            i += 1;
            continue;
        }
        let mut text = String::new();
        loop {
            in_directive[i] = true;
            let l = lines[i].trim_end_matches(['\n', '\r']);
            match l.strip_suffix('\\') {
                Some(l) if i + 1 < lines.len() => {
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
        let d = text.trim_start()[1..].trim_start();
        if let Some(rest) = d.strip_prefix("define")
            && rest.starts_with([' ', '\t'])
            && let Some((name, def)) = parse_define(rest)
        {
            defs.insert(name.clone(), def);
            define_lines.insert(name, (first, i - 1));
        } else if let Some(rest) = d.strip_prefix("undef") {
            defs.remove(rest.trim());
        }
    }
    // Object-like macros named in the code whose expansion uses `stuck`.
    let code: String = lines
        .iter()
        .zip(&in_directive)
        .filter(|(_, d)| !**d)
        .map(|(l, _)| *l)
        .collect();
    let code_toks = pp_tokens(&code);
    let code_words: HashSet<String> = code_toks.iter().cloned().collect();
    let mut out = src.to_string();
    let mut changed = false;
    let mut rewritten = HashSet::new();
    let mut names: Vec<&String> = code_words
        .iter()
        .filter(|n| defs.contains_key(*n))
        .collect();
    names.sort();
    for name in names {
        // Its invocations in the code: all the same (a function-like
        // macro keeps its parameters but ignores them), or skipped.
        let def = &defs[name];
        let mut calls: Vec<&[String]> = Vec::new();
        for (k, _) in code_toks.iter().enumerate().filter(|(_, t)| *t == name) {
            let call = match def.params {
                None => &code_toks[k..=k],
                Some(_) => {
                    if code_toks.get(k + 1).is_none_or(|t| t != "(") {
                        calls.clear();
                        break;
                    }
                    let mut depth = 0;
                    let mut end = None;
                    for (j, t) in code_toks.iter().enumerate().skip(k + 1) {
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
                    let Some(end) = end else {
                        calls.clear();
                        break;
                    };
                    &code_toks[k..=end]
                }
            };
            calls.push(call);
        }
        let Some(call) = calls.first() else {
            continue;
        };
        if calls.iter().any(|c| c != call) {
            continue;
        }
        let mut used = HashSet::new();
        let mut budget = 100_000;
        let start = call
            .iter()
            .map(|t| PpTok {
                text: t.clone(),
                hide: Vec::new(),
            })
            .collect();
        let Some(expansion) = pp_expand(start, &defs, &mut used, &mut budget) else {
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
        // The `#define` lines of the macros used, around `name`'s: their
        // bytes hold the new definition when no other code needs them.
        let mut reach: HashSet<&String> = HashSet::new();
        let mut todo: Vec<&String> = code_words.iter().filter(|w| *w != name).collect();
        while let Some(w) = todo.pop() {
            if let Some(d) = defs.get(w)
                && reach.insert(w)
            {
                todo.extend(d.body.iter());
            }
        }
        let (first, last) = define_lines[name];
        let droppable = |l: usize| {
            defs.iter().any(|(n, _)| {
                n != name
                    && used.contains(n)
                    // Nothing else the code invokes reaches it.
                    && !reach.contains(n)
                    && define_lines.get(n).is_some_and(|(a, b)| (*a..=*b).contains(&l))
            })
        };
        let (mut lo, mut hi) = (first, last);
        while lo > 0 && droppable(lo - 1) {
            lo -= 1;
        }
        while hi + 1 < lines.len() && droppable(hi + 1) {
            hi += 1;
        }
        let text: Vec<String> = std::iter::once(head)
            .chain(expansion.into_iter().map(|t| t.text))
            .collect();
        let region_start: usize = lines[..lo].iter().map(|l| l.len()).sum();
        let mut filled = String::new();
        let mut words = text.iter().peekable();
        for (k, l) in lines[lo..=hi].iter().enumerate() {
            let body_len = l.trim_end_matches(['\n', '\r']).len();
            let room = if k + lo == hi {
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
            let pad = if k + lo == hi {
                body_len - line.len()
            } else {
                body_len - 1 - line.len()
            };
            line.push_str(&" ".repeat(pad));
            if k + lo != hi {
                line.push('\\');
            }
            line.push_str(&l[body_len..]);
            filled.push_str(&line);
        }
        if words.peek().is_some() || (lo..=hi).any(|l| rewritten.contains(&l)) {
            continue;
        }
        rewritten.extend(lo..=hi);
        out.replace_range(region_start..region_start + filled.len(), &filled);
        changed = true;
    }
    changed.then_some(out)
}
