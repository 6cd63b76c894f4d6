//! The pixel-history words (issue 16): `history X,Y [until draw N]`,
//! `history texture T X,Y [level L] [layer K] [until draw N]`,
//! `debug history K`.

use super::{Command, ParseError, err, numbers, parse_u32, parse_u64};

/// A `history` request as typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryArgs {
    pub x: u32,
    pub y: u32,
    /// A texture's (name, level, layer) instead of the current draw
    /// framebuffer's image.
    pub texture: Option<(u32, i32, Option<i32>)>,
    /// End after this draw of the frame.
    pub until_draw: Option<u64>,
}

const USAGE: &str =
    "usage: history X,Y [until draw N] | history texture T X,Y [level L] [layer K] [until draw N]";

/// `history ...` (`rest`: the words after the command).
pub(super) fn parse_history(rest: &[&str]) -> Result<Command, ParseError> {
    let mut words = rest;
    let mut texture = None;
    if let ["texture", name, more @ ..] = words {
        texture = Some(parse_u32(name, "history texture")?);
        words = more;
    }
    // The pixel may be typed "X,Y", "X, Y" or "X Y".
    let n = words
        .iter()
        .position(|w| matches!(*w, "level" | "layer" | "until"))
        .unwrap_or(words.len());
    if n == 0 {
        return err(USAGE);
    }
    let xy = numbers(&words[..n].join(" "), 2, "history")?;
    let (mut level, mut layer, mut until_draw) = (0i32, None, None);
    let mut opts = &words[n..];
    while !opts.is_empty() {
        opts = match opts {
            ["level", l, more @ ..] if texture.is_some() => {
                level = level_number(l, "level")?;
                more
            }
            ["layer", k, more @ ..] if texture.is_some() => {
                layer = Some(level_number(k, "layer")?);
                more
            }
            ["until", "draw", d, more @ ..] => {
                until_draw = match parse_u64(d, "history until draw")? {
                    0 => return err("history: draws are counted from 1"),
                    d => Some(d),
                };
                more
            }
            _ => return err(USAGE),
        };
    }
    Ok(Command::History(HistoryArgs {
        x: xy[0],
        y: xy[1],
        texture: texture.map(|t| (t, level, layer)),
        until_draw,
    }))
}

fn level_number(word: &str, what: &str) -> Result<i32, ParseError> {
    let n = parse_u32(word, &format!("history {what}"))?;
    i32::try_from(n).or_else(|_| err(format!("history: {what} {n} is out of range")))
}

/// `debug history K`.
pub(super) fn parse_debug_history(rest: &[&str]) -> Result<Command, ParseError> {
    match rest {
        [k] => match parse_u32(k, "debug history")? {
            0 => err("debug history: entries are counted from 1"),
            k => Ok(Command::DebugHistory(k)),
        },
        _ => err("usage: debug history K (an entry of the last `history`)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::parse;

    fn history(line: &str) -> HistoryArgs {
        match parse(line).unwrap().unwrap() {
            Command::History(h) => h,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn history_forms() {
        let h = history("history 10,5");
        assert_eq!((h.x, h.y, h.texture, h.until_draw), (10, 5, None, None));
        assert_eq!(history("history 10, 5 until draw 7").until_draw, Some(7));
        let h = history("history texture 3 4,2 level 1 layer 2");
        assert_eq!(h.texture, Some((3, 1, Some(2))));
        assert_eq!((h.x, h.y), (4, 2));
        assert_eq!(
            parse("debug history 2").unwrap().unwrap(),
            Command::DebugHistory(2)
        );
        for bad in [
            "history",
            "history 1",
            "history 1,2 level 3",
            "history 1,2 until draw 0",
            "history texture x 1,2",
            "history 1,2,3",
            "debug history 0",
            "debug history",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
