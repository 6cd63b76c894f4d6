//! `FILE:LINE` locations of source breakpoints (`break FILE:LINE [if
//! COND]`, `tbreak FILE:LINE`, `dprintf FILE:LINE,...`): a shader file of
//! the user's and a 1-based line of it.

use super::{ParseError, err, q};

/// `wave.frag:24` → ("wave.frag", 24); None where `word` is no
/// `FILE:LINE` (a function name, a bare line); an error where it is one
/// with a bad line.
pub(super) fn parse_location(word: &str, name: &str) -> Result<Option<(String, u32)>, ParseError> {
    let Some((file, line)) = word.trim().rsplit_once(':') else {
        return Ok(None);
    };
    if file.is_empty() {
        return err(format!(
            "{name}: `{}` names no file before the `:`",
            q(word)
        ));
    }
    match line.parse::<u32>() {
        Ok(0) => err(format!("{name}: source lines are counted from 1")),
        Ok(n) => Ok(Some((file.to_string(), n))),
        Err(_) => err(format!(
            "{name}: `{}` is not FILE:LINE (LINE a number from 1)",
            q(word)
        )),
    }
}

/// A source log point's (format, args) as the daemon reads them: with
/// arguments, printf style; without, DAP text (`{EXPR}` placeholders), so
/// a printf format without arguments must have no conversions (an error
/// says so) and its `%%` is one `%`.
pub(super) fn log_of(
    format: String,
    args: Vec<String>,
) -> Result<(String, Vec<String>), ParseError> {
    if !args.is_empty() {
        return Ok((format, args));
    }
    let mut text = String::new();
    let mut conversions = 0;
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('%', Some('%')) => {
                chars.next();
                text.push('%');
            }
            ('%', _) => {
                conversions += 1;
                text.push('%');
            }
            (c, _) => text.push(c),
        }
    }
    if conversions > 0 {
        return err(format!(
            "dprintf: the format has {conversions} conversion{} and no arguments follow it \
             (without arguments, write {{EXPR}} where a value goes)",
            if conversions == 1 { "" } else { "s" }
        ));
    }
    Ok((text, args))
}

#[cfg(test)]
mod tests {
    use crate::command::{Command, parse};

    fn source(line: &str) -> Command {
        parse(line).unwrap().unwrap()
    }

    #[test]
    fn file_line_breakpoints() {
        assert_eq!(
            source("break shaders/wave.frag:24"),
            Command::SourceBreak {
                file: "shaders/wave.frag".into(),
                line: 24,
                condition: None,
                temporary: false,
                log: None,
            }
        );
        assert_eq!(
            source("b wave.frag:24 if p.x > 0.25"),
            Command::SourceBreak {
                file: "wave.frag".into(),
                line: 24,
                condition: Some("p.x > 0.25".into()),
                temporary: false,
                log: None,
            }
        );
        assert_eq!(
            source("tbreak wave.vert:8"),
            Command::SourceBreak {
                file: "wave.vert".into(),
                line: 8,
                condition: None,
                temporary: true,
                log: None,
            }
        );
        assert_eq!(
            source("dprintf wave.frag:24,\"acc=%f\",acc"),
            Command::SourceBreak {
                file: "wave.frag".into(),
                line: 24,
                condition: None,
                temporary: false,
                log: Some(("acc=%f".into(), vec!["acc".into()])),
            }
        );
        // Lines and functions stay what they were.
        assert!(matches!(source("break 24"), Command::Break(_)));
        assert!(matches!(
            source("dprintf 24,\"x\""),
            Command::Dprintf { .. }
        ));
    }

    #[test]
    fn a_log_point_without_arguments_is_dap_text() {
        let log = |line: &str| match parse(line) {
            Ok(Some(Command::SourceBreak { log, .. })) => Ok(log.unwrap()),
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e.to_string()),
        };
        assert_eq!(
            log("dprintf w.frag:3,\"acc={acc} 100%%\"").unwrap(),
            ("acc={acc} 100%".to_string(), vec![])
        );
        let e = log("dprintf w.frag:3,\"x=%d\"").unwrap_err();
        assert!(e.contains("1 conversion and no arguments"), "{e}");
        // With arguments: printf style, as it was.
        assert_eq!(
            log("dprintf w.frag:3,\"x=%d %%\",i").unwrap(),
            ("x=%d %%".to_string(), vec!["i".to_string()])
        );
    }

    #[test]
    fn bad_locations_say_why() {
        let e = parse("break wave.frag:0").unwrap_err().to_string();
        assert!(e.contains("counted from 1"), "{e}");
        let e = parse("break wave.frag:x").unwrap_err().to_string();
        assert!(e.contains("is not FILE:LINE"), "{e}");
        let e = parse("break :3").unwrap_err().to_string();
        assert!(e.contains("names no file"), "{e}");
        assert!(parse("tbreak wave.frag:2 if ").is_err());
    }
}
