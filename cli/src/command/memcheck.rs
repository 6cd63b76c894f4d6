//! The memcheck words (issue 17): `memcheck on|off|stop` and `memcheck`
//! (the report).

use super::{Command, ParseError, err, q};

/// What `memcheck WORD` sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemcheckSet {
    /// Every later dispatch and draw runs checked; findings are events.
    On,
    Off,
    /// Like `on`, and the first finding stops the app before its call.
    Stop,
}

/// `memcheck [on|off|stop]` (`rest`: the words after the command).
pub(super) fn parse_memcheck(rest: &[&str]) -> Result<Command, ParseError> {
    Ok(Command::Memcheck(match rest {
        [] => None,
        ["on"] => Some(MemcheckSet::On),
        ["off"] => Some(MemcheckSet::Off),
        ["stop"] => Some(MemcheckSet::Stop),
        [w] => {
            return err(format!(
                "memcheck: unknown mode `{}` (on, off or stop; `memcheck` alone reports)",
                q(w)
            ));
        }
        _ => return err("usage: memcheck [on|off|stop]"),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::parse;

    #[test]
    fn memcheck_words() {
        let m = |line: &str| parse(line).unwrap().unwrap();
        assert_eq!(m("memcheck"), Command::Memcheck(None));
        assert_eq!(m("memcheck on"), Command::Memcheck(Some(MemcheckSet::On)));
        assert_eq!(
            m("memcheck  off "),
            Command::Memcheck(Some(MemcheckSet::Off))
        );
        assert_eq!(
            m("memcheck stop"),
            Command::Memcheck(Some(MemcheckSet::Stop))
        );
        let e = parse("memcheck maybe").unwrap_err().to_string();
        assert!(e.contains("unknown mode `maybe`"), "{e}");
        let e = parse("memcheck on off").unwrap_err().to_string();
        assert_eq!(e, "usage: memcheck [on|off|stop]");
        assert!(!crate::command::help_entries(Some("memcheck")).is_empty());
    }
}
