//! `#if` / `#elif` expressions: `defined`, macro expansion, then the
//! integer arithmetic of GLSL's preprocessor (C's, without `?:`).

use std::collections::{HashMap, HashSet, VecDeque};

use super::expand::{EXPANSION_BUDGET, MacroDef, PpTok, pp_expand, pp_tokens};

/// The value of the controlling expression `text` (after `#if`/`#elif`)
/// with the macros `defs`: `Err` says why it cannot be evaluated.
pub(crate) fn eval_condition(text: &str, defs: &HashMap<String, MacroDef>) -> Result<bool, String> {
    let toks = resolve_defined(&pp_tokens(text), defs)?;
    let start: VecDeque<PpTok> = toks
        .into_iter()
        .map(|text| PpTok {
            text,
            hide: Vec::new(),
        })
        .collect();
    let mut budget = EXPANSION_BUDGET;
    let expanded = pp_expand(start, defs, &mut HashSet::new(), &mut budget)
        .ok_or("the expression's macros do not expand")?;
    // `defined` produced by a macro (GCC evaluates it too).
    let words: Vec<String> = expanded.into_iter().map(|t| t.text).collect();
    let words = resolve_defined(&words, defs)?;
    if words.is_empty() {
        return Err("no expression".into());
    }
    let mut p = Parser {
        toks: &words,
        at: 0,
        nesting: 0,
    };
    let v = p.binary(0)?;
    match p.toks.get(p.at) {
        None => Ok(v != 0),
        Some(t) => Err(format!("unexpected `{t}`")),
    }
}

/// `defined X` and `defined ( X )` replaced by `1` or `0`.
fn resolve_defined(
    toks: &[String],
    defs: &HashMap<String, MacroDef>,
) -> Result<Vec<String>, String> {
    let mut out = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        if toks[i] != "defined" {
            out.push(toks[i].clone());
            i += 1;
            continue;
        }
        let (name, next) = match toks.get(i + 1).map(String::as_str) {
            Some("(") => match (toks.get(i + 2), toks.get(i + 3).map(String::as_str)) {
                (Some(n), Some(")")) => (n, i + 4),
                _ => return Err("`defined` needs a macro name".into()),
            },
            Some(_) => (&toks[i + 1], i + 2),
            None => return Err("`defined` needs a macro name".into()),
        };
        if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            return Err(format!("`defined` needs a macro name, not `{name}`"));
        }
        out.push(
            if defs.contains_key(name.as_str()) {
                "1"
            } else {
                "0"
            }
            .into(),
        );
        i = next;
    }
    Ok(out)
}

/// Precedence climbing over the expanded tokens; identifiers left after
/// expansion are 0 (as in C).
struct Parser<'a> {
    toks: &'a [String],
    at: usize,
    /// Unary operators and parentheses open (each recurses).
    nesting: u32,
}

/// Unary operators and parentheses an `#if` expression may nest.
const MAX_NESTING: u32 = 64;

/// Binary operators, loosest first.
const LEVELS: [&[&str]; 10] = [
    &["||"],
    &["&&"],
    &["|"],
    &["^"],
    &["&"],
    &["==", "!="],
    &["<", ">", "<=", ">="],
    &["<<", ">>"],
    &["+", "-"],
    &["*", "/", "%"],
];

impl Parser<'_> {
    fn binary(&mut self, level: usize) -> Result<i64, String> {
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut lhs = self.binary(level + 1)?;
        while let Some(op) = self
            .toks
            .get(self.at)
            .filter(|t| LEVELS[level].contains(&t.as_str()))
        {
            let op = op.clone();
            self.at += 1;
            let rhs = self.binary(level + 1)?;
            lhs = apply(&op, lhs, rhs)?;
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<i64, String> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err(format!(
                "expression nested too deeply (more than {MAX_NESTING} levels)"
            ));
        }
        let v = self.operand();
        self.nesting -= 1;
        v
    }

    fn operand(&mut self) -> Result<i64, String> {
        let t = self.toks.get(self.at).ok_or("the expression ends early")?;
        self.at += 1;
        match t.as_str() {
            "+" => self.unary(),
            "-" => Ok(self.unary()?.wrapping_neg()),
            "~" => Ok(!self.unary()?),
            "!" => Ok(i64::from(self.unary()? == 0)),
            "(" => {
                let v = self.binary(0)?;
                match self.toks.get(self.at).map(String::as_str) {
                    Some(")") => {
                        self.at += 1;
                        Ok(v)
                    }
                    _ => Err("missing `)`".into()),
                }
            }
            w if w.starts_with(|c: char| c.is_ascii_digit()) => number(w),
            w if w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') => Ok(0),
            w => Err(format!("unexpected `{w}`")),
        }
    }
}

fn apply(op: &str, a: i64, b: i64) -> Result<i64, String> {
    Ok(match op {
        "||" => i64::from(a != 0 || b != 0),
        "&&" => i64::from(a != 0 && b != 0),
        "|" => a | b,
        "^" => a ^ b,
        "&" => a & b,
        "==" => i64::from(a == b),
        "!=" => i64::from(a != b),
        "<" => i64::from(a < b),
        ">" => i64::from(a > b),
        "<=" => i64::from(a <= b),
        ">=" => i64::from(a >= b),
        "<<" => a.wrapping_shl(b as u32),
        ">>" => a.wrapping_shr(b as u32),
        "+" => a.wrapping_add(b),
        "-" => a.wrapping_sub(b),
        "*" => a.wrapping_mul(b),
        "/" | "%" if b == 0 => return Err("division by zero".into()),
        "/" => a.wrapping_div(b),
        _ => a.wrapping_rem(b),
    })
}

/// A decimal, octal (`0`) or hex (`0x`) integer, `u`/`U` suffix allowed.
fn number(w: &str) -> Result<i64, String> {
    let digits = w.trim_end_matches(['u', 'U']);
    let parsed = if let Some(h) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        i64::from_str_radix(h, 16)
    } else if digits.len() > 1 && digits.starts_with('0') {
        i64::from_str_radix(&digits[1..], 8)
    } else {
        digits.parse()
    };
    parsed.map_err(|_| format!("`{w}` is not an integer"))
}
