//! Macro expansion by C99's rules (Prosser's hide sets), for `#if`
//! expressions and for the rescans glsl-lang-pp does not do
//! (`parse/workaround/stuck_macro.rs`).

use std::collections::HashSet;

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

/// Tokens [`pp_expand`] may produce for one expansion before it gives up.
pub(crate) const EXPANSION_BUDGET: usize = 100_000;

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
