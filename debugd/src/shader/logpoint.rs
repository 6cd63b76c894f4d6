//! DAP log messages (issue 15): text with `{EXPR}` placeholders (`{{` and
//! `}}` for braces) turned into a `dprintf` format and arguments, each
//! placeholder's conversion chosen from its expression's type at the line
//! (`%g` for floats, `%d` for ints and bools, `%u` for uints, `%vN` for
//! vectors).

use glsl_instrument::{BaseType, StepId};

use super::{ShaderDebug, instrument_error};
use crate::error::{Error, Result};

/// The text's pieces: literal text and expressions, in order.
fn split_placeholders(text: &str) -> Result<(Vec<String>, Vec<String>)> {
    let mut literals = vec![String::new()];
    let mut exprs = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                literals.last_mut().expect("one").push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                literals.last_mut().expect("one").push('}');
            }
            '{' => {
                let mut e = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(c) => e.push(c),
                        None => {
                            return Err(Error::InvalidArgument(format!(
                                "log message: `{{{e}` has no closing `}}`"
                            )));
                        }
                    }
                }
                if e.trim().is_empty() {
                    return Err(Error::InvalidArgument(
                        "log message: an empty `{}` placeholder".into(),
                    ));
                }
                exprs.push(e.trim().to_string());
                literals.push(String::new());
            }
            '}' => {
                return Err(Error::InvalidArgument(
                    "log message: a `}` without its `{` (write `}}` for one)".into(),
                ));
            }
            c => literals.last_mut().expect("one").push(c),
        }
    }
    Ok((literals, exprs))
}

impl ShaderDebug {
    /// The `dprintf` format and arguments of DAP log message `text` at
    /// `steps` (the log point's line's).
    pub fn log_format(&self, steps: &[StepId], text: &str) -> Result<(String, Vec<String>)> {
        let (literals, exprs) = split_placeholders(text)?;
        let mut conversions = Vec::new();
        if !exprs.is_empty() {
            let refs: Vec<&str> = exprs.iter().map(String::as_str).collect();
            let d = self
                .model
                .instrument_dprintf(steps, &refs)
                .map_err(instrument_error)?;
            for t in d.args {
                let conv = match t.base {
                    BaseType::Float | BaseType::Double => "g",
                    BaseType::Int | BaseType::Bool => "d",
                    BaseType::Uint => "u",
                };
                conversions.push(match t.components {
                    0 | 1 => format!("%{conv}"),
                    n => format!("%v{n}{conv}"),
                });
            }
        }
        let mut format = String::new();
        for (i, lit) in literals.iter().enumerate() {
            format.push_str(&lit.replace('%', "%%"));
            if let Some(c) = conversions.get(i) {
                format.push_str(c);
            }
        }
        Ok((format, exprs))
    }
}

#[cfg(test)]
mod tests {
    use super::split_placeholders;

    #[test]
    fn placeholders_and_escapes() {
        let (lit, ex) = split_placeholders("acc={acc} {{p}} at {p.x}%").unwrap();
        assert_eq!(lit, vec!["acc=", " {p} at ", "%"]);
        assert_eq!(ex, vec!["acc", "p.x"]);
        assert!(split_placeholders("a {b").is_err());
        assert!(split_placeholders("a } b").is_err());
        assert!(split_placeholders("{ }").is_err());
    }
}
