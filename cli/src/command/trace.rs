//! The words of the trace era (CLI.md "Trace, conditions and history"):
//! the reverse moves, frame selection and the trace budget.

use super::{Command, ParseError, err, parse_count, parse_u32};

/// A move backwards through the focused invocation's traced run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reverse {
    /// `reverse-step` / `rs` [N]: the previous step, into calls.
    Step(u64),
    /// `reverse-next` / `rn` [N]: over calls.
    Next(u64),
    /// `reverse-finish`: back to the call of the current function.
    Finish,
    /// `reverse-continue` / `rc`: back to a shader breakpoint or watch.
    Continue,
}

/// `frame [N]`, `up [N]`, `down [N]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameMove {
    /// `frame`: the selected frame, again.
    Current,
    /// `frame N`.
    To(u32),
    /// `up N` (outwards, towards `main`) or, negative, `down N`.
    By(i64),
}

/// `reverse-step [N]`, `reverse-next [N]`, `reverse-finish`, `reverse-continue`.
pub(super) fn parse_reverse(name: &str, rest: &[&str]) -> Result<Command, ParseError> {
    let once = |r: Reverse| match rest {
        [] => Ok(Command::Reverse(r)),
        _ => err(format!("usage: {name} (no arguments)")),
    };
    match name {
        "reverse-step" | "rs" => Ok(Command::Reverse(Reverse::Step(parse_count(name, rest)?))),
        "reverse-next" | "rn" => Ok(Command::Reverse(Reverse::Next(parse_count(name, rest)?))),
        "reverse-finish" => once(Reverse::Finish),
        _ => once(Reverse::Continue),
    }
}

/// `frame [N]`, `up [N]`, `down [N]`.
pub(super) fn parse_frame(name: &str, rest: &[&str]) -> Result<Command, ParseError> {
    let n = match rest {
        [] => None,
        [n] => Some(parse_u32(n, name)?),
        _ => return err(format!("usage: {name} [N]")),
    };
    Ok(Command::Frame(match (name, n) {
        ("up", n) => FrameMove::By(i64::from(n.unwrap_or(1))),
        ("down", n) => FrameMove::By(-i64::from(n.unwrap_or(1))),
        (_, Some(n)) => FrameMove::To(n),
        (_, None) => FrameMove::Current,
    }))
}

/// `set trace-records N`, `set trace-bytes N` (`rest`: the words after `set`).
pub(super) fn parse_set_trace(rest: &[&str]) -> Result<Command, ParseError> {
    let usage = "usage: set trace-records N | set trace-bytes N (N > 0)";
    let [what, n] = rest else { return err(usage) };
    let n: u64 = match n.parse() {
        Ok(n) if n > 0 => n,
        _ => return err(usage),
    };
    Ok(match *what {
        "trace-records" => Command::SetTraceBudget {
            records: n,
            bytes: 0,
        },
        "trace-bytes" => Command::SetTraceBudget {
            records: 0,
            bytes: n,
        },
        _ => return err(usage),
    })
}

/// `break LINE if COND` / `tbreak LINE [if COND]` (`args`: after the command).
pub(super) fn parse_break_if(args: &str, temporary: bool) -> Result<Command, ParseError> {
    let name = if temporary { "tbreak" } else { "break" };
    let (line, condition) = match args.split_once(" if ") {
        Some((line, cond)) => (line.trim(), Some(cond.trim())),
        None => (args.trim(), None),
    };
    if condition.is_some_and(str::is_empty) || line.is_empty() {
        return err(format!("usage: {name} LINE [if COND]"));
    }
    if let Some((file, line)) = super::source::parse_location(line, name)? {
        return Ok(Command::SourceBreak {
            file,
            line,
            condition: condition.map(str::to_string),
            temporary,
            log: None,
        });
    }
    let line = match parse_u32(line, name)? {
        0 => return err(format!("{name}: source lines are counted from 1")),
        n => n,
    };
    Ok(Command::ShaderBreak {
        line,
        condition: condition.map(str::to_string),
        temporary,
    })
}

/// `condition LINE [COND]`.
pub(super) fn parse_condition(args: &str) -> Result<Command, ParseError> {
    let args = args.trim();
    let (line, cond) = args.split_once(char::is_whitespace).unwrap_or((args, ""));
    if line.is_empty() {
        return err("usage: condition LINE [COND]");
    }
    Ok(Command::Condition {
        line: parse_u32(line, "condition")?,
        condition: Some(cond.trim())
            .filter(|c| !c.is_empty())
            .map(str::to_string),
    })
}

/// `ignore LINE N`.
pub(super) fn parse_ignore(rest: &[&str]) -> Result<Command, ParseError> {
    let [line, count] = rest else {
        return err("usage: ignore LINE N");
    };
    Ok(Command::Ignore {
        line: parse_u32(line, "ignore")?,
        count: parse_u32(count, "ignore")?,
    })
}

/// `catch nan|inf [off]`.
pub(super) fn parse_catch(rest: &[&str]) -> Result<Command, ParseError> {
    let (what, off) = match rest {
        [what] => (*what, false),
        [what, "off"] => (*what, true),
        _ => return err("usage: catch nan | catch inf [off]"),
    };
    let (nan, inf) = match what {
        "nan" => (true, false),
        "inf" => (false, true),
        _ => return err("usage: catch nan | catch inf [off]"),
    };
    Ok(Command::Catch { nan, inf, off })
}

/// `dprintf LINE,"FORMAT",ARG...` (`args`: after the command): the format
/// in double quotes (`\"`, `\\`, `\n`, `\t` escapes), the arguments split
/// at the commas outside parentheses and brackets.
pub(super) fn parse_dprintf(args: &str) -> Result<Command, ParseError> {
    let usage = "usage: dprintf LINE,\"FORMAT\",ARG...";
    let Some((line, rest)) = args.split_once(',') else {
        return err(usage);
    };
    let location = super::source::parse_location(line, "dprintf")?;
    let line = match location
        .as_ref()
        .map_or_else(|| parse_u32(line.trim(), "dprintf"), |l| Ok(l.1))?
    {
        0 => return err("dprintf: source lines are counted from 1"),
        n => n,
    };
    let Some(rest) = rest.trim_start().strip_prefix('"') else {
        return err(usage);
    };
    let mut format = String::new();
    let mut chars = rest.char_indices();
    let mut end = None;
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => {
                end = Some(i + 1);
                break;
            }
            '\\' => match chars.next().map(|(_, e)| e) {
                Some('n') => format.push('\n'),
                Some('t') => format.push('\t'),
                Some(e @ ('"' | '\\')) => format.push(e),
                Some(e) => {
                    format.push('\\');
                    format.push(e);
                }
                None => return err("dprintf: the format's quote is not closed"),
            },
            c => format.push(c),
        }
    }
    let Some(end) = end else {
        return err("dprintf: the format's quote is not closed");
    };
    let tail = rest[end..].trim();
    let args = match tail {
        "" => Vec::new(),
        t => {
            let Some(t) = t.strip_prefix(',') else {
                return err(usage);
            };
            split_args(t)?
        }
    };
    if let Some((file, line)) = location {
        return Ok(Command::SourceBreak {
            file,
            line,
            condition: None,
            temporary: false,
            log: Some(super::source::log_of(format, args)?),
        });
    }
    Ok(Command::Dprintf { line, format, args })
}

/// Split at the commas outside `()` and `[]`.
fn split_args(s: &str) -> Result<Vec<String>, ParseError> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(s[start..].trim().to_string());
    if depth != 0 || out.iter().any(String::is_empty) {
        return err("dprintf: an argument is empty or its parentheses do not match");
    }
    Ok(out)
}
