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
