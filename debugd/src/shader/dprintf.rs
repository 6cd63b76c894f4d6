//! `dprintf LINE,"FORMAT",ARG...` (issue 14): one replay in which every
//! invocation that reaches the line appends its arguments' values to a
//! storage block (`glsl_instrument::Dprintf`); the daemon formats each
//! message as GL_EXT_debug_printf does (`%d %i %u %x %X %o %f %e %g %a %c
//! %s %%`, widths, precisions, `%vNX` vectors) and names its invocation.
//! Messages past the limit are counted, not kept.

use glsl_instrument::{BaseType, Stage, ValueType};

use super::reply::Invocation;
use super::{GeneratedReplay, Link, ReadMode, ShaderDebug, TraceAsk, instrument_error};
use crate::error::{Error, Result};

/// Messages one `dprintf` keeps per draw by default.
pub const DEFAULT_LIMIT: u32 = 1024;

/// One message.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// Fragment, compute and geometry invocations as `focus` names them.
    pub invocation: Option<Invocation>,
    /// Vertex and tessellation invocations by their built-ins.
    pub ids: Vec<(&'static str, f64)>,
    pub text: String,
}

/// One message of a [`ShaderDebug::messages`] replay: its invocation and
/// its arguments' values.
pub(super) struct RawMessage {
    pub invocation: Option<Invocation>,
    pub ids: Vec<(&'static str, f64)>,
    pub values: Vec<(ValueType, Vec<f64>)>,
}

/// What a `dprintf` printed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Printed {
    pub messages: Vec<Message>,
    /// Messages past the limit.
    pub dropped: u64,
}

/// One piece of a format: text, or a conversion of the next argument.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Text(String),
    Conv {
        /// `-`, `+`, ` `, `0`, `#` as written.
        flags: String,
        width: Option<usize>,
        precision: Option<usize>,
        /// Components of a `%vN` vector conversion (1: a scalar).
        vector: usize,
        conv: char,
    },
}

/// Parse a format string; errors name the offending conversion.
fn parse_format(format: &str) -> Result<Vec<Piece>> {
    let bad = |m: String| Error::InvalidArgument(format!("dprintf format: {m}"));
    let mut out = Vec::new();
    let mut text = String::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            text.push(c);
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            text.push('%');
            continue;
        }
        if !text.is_empty() {
            out.push(Piece::Text(std::mem::take(&mut text)));
        }
        let mut flags = String::new();
        while let Some(&f) = chars.peek().filter(|f| "-+ 0#".contains(**f)) {
            flags.push(f);
            chars.next();
        }
        let number = |chars: &mut std::iter::Peekable<std::str::Chars>| {
            let mut n = String::new();
            while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                n.push(d);
                chars.next();
            }
            n.parse::<usize>().ok()
        };
        // `%v3.1f` and `%.1v3f`: the vector size before or after the precision.
        let mut vector = vector_size(&mut chars).map_err(bad)?;
        let width = number(&mut chars);
        let precision = match chars.peek() {
            Some('.') => {
                chars.next();
                Some(number(&mut chars).unwrap_or(0))
            }
            _ => None,
        };
        if vector == 1 {
            vector = vector_size(&mut chars).map_err(bad)?;
        }
        // Length modifiers GL_EXT_debug_printf allows (and ignores here).
        while chars.peek().is_some_and(|c| "hlL".contains(*c)) {
            chars.next();
        }
        let conv = chars.next().ok_or_else(|| bad("a `%` at the end".into()))?;
        if !"diuxXofFeEgGaAc".contains(conv) {
            return Err(bad(format!("unknown conversion `%{conv}`")));
        }
        out.push(Piece::Conv {
            flags,
            width,
            precision,
            vector,
            conv,
        });
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    Ok(out)
}

/// A `vN` vector size (1 where none is written).
fn vector_size(
    chars: &mut std::iter::Peekable<std::str::Chars>,
) -> std::result::Result<usize, String> {
    if chars.peek() != Some(&'v') {
        return Ok(1);
    }
    chars.next();
    match chars.next() {
        Some(n @ '2'..='4') => Ok(n as usize - '0' as usize),
        other => Err(format!("`%v` needs a size 2, 3 or 4, not {other:?}")),
    }
}

/// Pad `s` to `width` as `flags` say.
fn pad(s: String, flags: &str, width: Option<usize>) -> String {
    let Some(w) = width.filter(|w| *w > s.chars().count()) else {
        return s;
    };
    let fill = w - s.chars().count();
    if flags.contains('-') {
        format!("{s}{}", " ".repeat(fill))
    } else if flags.contains('0') && !s.contains(['n', 'N', 'i', 'I']) {
        let (sign, digits) = match s.strip_prefix(['-', '+']) {
            Some(rest) => (&s[..1], rest),
            None => ("", s.as_str()),
        };
        format!("{sign}{}{digits}", "0".repeat(fill))
    } else {
        format!("{}{s}", " ".repeat(fill))
    }
}

/// A `%e`-style float: `d.ddde±XX`.
fn exp_text(v: f64, precision: usize, upper: bool) -> String {
    let s = format!("{v:.precision$e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    let out = format!("{mant}e{sign}{:02}", exp.abs());
    if upper { out.to_uppercase() } else { out }
}

/// One component under one conversion.
fn convert(v: f64, base: BaseType, flags: &str, precision: Option<usize>, conv: char) -> String {
    let sign = |s: String, neg: bool| match (neg, flags.contains('+'), flags.contains(' ')) {
        (true, ..) => s,
        (false, true, _) => format!("+{s}"),
        (false, false, true) => format!(" {s}"),
        _ => s,
    };
    if !v.is_finite() && "fFeEgGaA".contains(conv) {
        let s = if v.is_nan() {
            "nan"
        } else if v > 0.0 {
            "inf"
        } else {
            "-inf"
        };
        return if conv.is_ascii_uppercase() {
            s.to_uppercase()
        } else {
            s.into()
        };
    }
    match conv {
        'd' | 'i' => sign((v as i64).to_string(), v < 0.0),
        // Unsigned conversions of an int show its 32 bits, as C does.
        'u' | 'x' | 'X' | 'o' => {
            let bits = match base {
                BaseType::Int => (v as i64 as i32) as u32,
                _ => v as u32,
            };
            match conv {
                'u' => bits.to_string(),
                'x' => format!("{}{bits:x}", if flags.contains('#') { "0x" } else { "" }),
                'X' => format!("{}{bits:X}", if flags.contains('#') { "0X" } else { "" }),
                _ => format!("{}{bits:o}", if flags.contains('#') { "0" } else { "" }),
            }
        }
        'c' => char::from_u32(v as u32).map_or_else(String::new, String::from),
        'f' | 'F' => sign(format!("{v:.*}", precision.unwrap_or(6)), v < 0.0),
        'e' | 'E' => sign(exp_text(v, precision.unwrap_or(6), conv == 'E'), v < 0.0),
        'a' | 'A' => sign(format!("{v:e}"), v < 0.0),
        _ => {
            // %g: the shorter of %e and %f at `precision` significant digits.
            let p = precision.unwrap_or(6).max(1);
            let exp = if v == 0.0 {
                0
            } else {
                v.abs().log10().floor() as i32
            };
            let s = if exp < -4 || exp >= p as i32 {
                exp_text(v, p - 1, conv == 'G')
            } else {
                format!("{v:.*}", (p as i32 - 1 - exp).max(0) as usize)
            };
            let s = match (flags.contains('#'), s.split_once(['e', 'E'])) {
                (true, _) => s,
                (false, Some((m, e))) if m.contains('.') => {
                    let m = m.trim_end_matches('0').trim_end_matches('.');
                    format!("{m}{}{e}", if conv == 'G' { 'E' } else { 'e' })
                }
                (false, None) if s.contains('.') => {
                    s.trim_end_matches('0').trim_end_matches('.').to_string()
                }
                _ => s,
            };
            sign(s, v < 0.0)
        }
    }
}

/// Format one message from its arguments' components.
fn format_message(pieces: &[Piece], args: &[(ValueType, Vec<f64>)]) -> String {
    let mut out = String::new();
    let mut next = args.iter();
    for p in pieces {
        match p {
            Piece::Text(t) => out.push_str(t),
            Piece::Conv {
                flags,
                width,
                precision,
                vector,
                conv,
            } => {
                let Some((ty, comps)) = next.next() else {
                    out.push_str("<missing>");
                    continue;
                };
                let parts: Vec<String> = comps
                    .iter()
                    .take(*vector)
                    .map(|&v| pad(convert(v, ty.base, flags, *precision, *conv), flags, *width))
                    .collect();
                out.push_str(&parts.join(", "));
            }
        }
    }
    out
}

/// The components of one argument's words.
fn decode(ty: ValueType, words: &[u32]) -> Vec<f64> {
    match ty.base {
        BaseType::Float => words.iter().map(|&w| f32::from_bits(w).into()).collect(),
        BaseType::Int => words.iter().map(|&w| f64::from(w as i32)).collect(),
        BaseType::Uint => words.iter().map(|&w| f64::from(w)).collect(),
        BaseType::Bool => words.iter().map(|&w| f64::from(u8::from(w != 0))).collect(),
        BaseType::Double => words
            .chunks_exact(2)
            .map(|c| f64::from_bits(u64::from(c[0]) | (u64::from(c[1]) << 32)))
            .collect(),
    }
}

fn words_of(ty: ValueType) -> usize {
    let n = usize::from(ty.components.max(1));
    if ty.base == BaseType::Double {
        2 * n
    } else {
        n
    }
}

impl ShaderDebug {
    /// `dprintf LINE,"FORMAT",ARG...` over this draw: every invocation that
    /// reaches LINE (only the focused one with `focused`), up to `limit`
    /// messages.
    pub fn dprintf(
        &mut self,
        line: u32,
        format: &str,
        args: &[String],
        limit: u32,
        focused: bool,
        link: &mut dyn Link,
    ) -> Result<Printed> {
        if focused
            && (self.focus.is_none()
                || !matches!(
                    self.model.stage(),
                    Stage::Fragment | Stage::Compute | Stage::Geometry
                ))
        {
            // Vertex and tessellation messages name built-ins, not the
            // invocation `focus` counts: they cannot be told apart.
            return Err(Error::InvalidArgument(
                "a focused dprintf needs a focus on a fragment, compute or geometry invocation"
                    .into(),
            ));
        }
        let pieces = parse_format(format)?;
        let wanted: usize = pieces
            .iter()
            .filter(|p| matches!(p, Piece::Conv { .. }))
            .count();
        if wanted != args.len() {
            return Err(Error::InvalidArgument(format!(
                "dprintf: the format has {wanted} conversion{} and {} argument{} follow{} it",
                if wanted == 1 { "" } else { "s" },
                args.len(),
                if args.len() == 1 { "" } else { "s" },
                if args.len() == 1 { "s" } else { "" }
            )));
        }
        let steps: Vec<_> = self
            .model
            .lines_numbered(line)
            .into_iter()
            .flat_map(|l| self.model.steps_on_line(l))
            .collect();
        if steps.is_empty() {
            return Err(Error::InvalidArgument(format!(
                "dprintf: no shader step on line {line}"
            )));
        }
        let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let (raw, dropped) = self.messages(&steps, &arg_refs, limit, link)?;
        let focus = self.focus.map(|(_, at)| at);
        let messages = raw
            .into_iter()
            .filter(|m| !focused || (m.invocation.is_some() && m.invocation == focus))
            .map(|m| Message {
                text: format_message(&pieces, &m.values),
                invocation: m.invocation,
                ids: m.ids,
            })
            .collect();
        Ok(Printed { messages, dropped })
    }

    /// One replay in which every invocation reaching one of `steps`
    /// appends the values of `args` (as `dprintf`'s): the messages kept
    /// (at most `limit`, the rest counted).
    pub(super) fn messages(
        &mut self,
        steps: &[glsl_instrument::StepId],
        args: &[&str],
        limit: u32,
        link: &mut dyn Link,
    ) -> Result<(Vec<RawMessage>, u64)> {
        let t0 = std::time::Instant::now();
        let d = self
            .model
            .instrument_dprintf(steps, args)
            .map_err(instrument_error)?;
        let instrumented = t0.elapsed();
        let per_message = 4 + d.args.iter().map(|t| words_of(*t)).sum::<usize>();
        let capacity = u32::try_from(per_message)
            .ok()
            .and_then(|w| w.checked_mul(limit.max(1)))
            .ok_or_else(|| {
                Error::InvalidArgument(format!("dprintf: a limit of {limit} messages is too many"))
            })?;
        let entry = self.model.entry();
        let r = self.replay_generated(
            GeneratedReplay {
                shader: &d.shader,
                position: &entry,
                path: &[],
                components: 0,
                readback: ReadMode::All,
                trace: Some(TraceAsk {
                    block: &d.block,
                    capacity_words: capacity,
                    zero_data: false,
                }),
                instrumented,
            },
            link,
        )?;
        let data = r
            .trace
            .ok_or_else(|| Error::Internal("the dprintf replay brought no messages back".into()))?;
        let mut out = Vec::new();
        for m in data.words.chunks_exact(per_message) {
            let (invocation, ids) = self.message_invocation([m[1], m[2], m[3]]);
            let mut at = 4;
            let values: Vec<(ValueType, Vec<f64>)> = d
                .args
                .iter()
                .map(|t| {
                    let n = words_of(*t);
                    let v = decode(*t, &m[at..at + n]);
                    at += n;
                    (*t, v)
                })
                .collect();
            out.push(RawMessage {
                invocation,
                ids,
                values,
            });
        }
        let written = (data.words.len() / per_message) as u64;
        Ok((out, u64::from(data.records).saturating_sub(written)))
    }

    /// A message's invocation from its three id words: as `focus` names
    /// it, or by the built-ins the shader wrote (a vertex's `gl_VertexID`
    /// is not its place in the draw `focus vertex N` counts).
    fn message_invocation(
        &self,
        [x, y, z]: [u32; 3],
    ) -> (Option<Invocation>, Vec<(&'static str, f64)>) {
        let f = |w: u32| f64::from(f32::from_bits(w));
        match self.model.stage() {
            Stage::Fragment => (Some(Invocation::Pixel { x, y }), Vec::new()),
            Stage::Compute => (Some(Invocation::Global { x, y, z }), Vec::new()),
            Stage::Geometry => (Some(Invocation::Primitive(x)), Vec::new()),
            Stage::Vertex => (
                None,
                vec![
                    ("gl_VertexID", f64::from(x as i32)),
                    ("gl_InstanceID", f64::from(y as i32)),
                ],
            ),
            Stage::TessControl => (
                None,
                vec![
                    ("gl_PrimitiveID", f64::from(x)),
                    ("gl_InvocationID", f64::from(y)),
                ],
            ),
            Stage::TessEval => (
                None,
                vec![
                    ("gl_PrimitiveID", f64::from(x)),
                    ("gl_TessCoord.x", f(y)),
                    ("gl_TessCoord.y", f(z)),
                ],
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(format: &str, args: &[(BaseType, &[f64])]) -> String {
        let pieces = parse_format(format).unwrap();
        let args: Vec<(ValueType, Vec<f64>)> = args
            .iter()
            .map(|(b, v)| {
                (
                    ValueType {
                        base: *b,
                        components: v.len() as u8,
                    },
                    v.to_vec(),
                )
            })
            .collect();
        format_message(&pieces, &args)
    }

    #[test]
    fn c_conversions() {
        assert_eq!(fmt("x=%d", &[(BaseType::Int, &[-3.0])]), "x=-3");
        assert_eq!(fmt("%5.2f|", &[(BaseType::Float, &[3.14159])]), " 3.14|");
        assert_eq!(fmt("%-6.1f|", &[(BaseType::Float, &[2.0])]), "2.0   |");
        assert_eq!(fmt("%e", &[(BaseType::Float, &[1234.5])]), "1.234500e+03");
        assert_eq!(
            fmt(
                "%g %g",
                &[(BaseType::Float, &[0.5]), (BaseType::Float, &[1e-7])]
            ),
            "0.5 1e-07"
        );
        assert_eq!(
            fmt(
                "%x %#X",
                &[(BaseType::Uint, &[255.0]), (BaseType::Uint, &[255.0])]
            ),
            "ff 0XFF"
        );
        assert_eq!(fmt("%u", &[(BaseType::Int, &[-1.0])]), "4294967295");
        assert_eq!(fmt("%05d", &[(BaseType::Int, &[-42.0])]), "-0042");
        assert_eq!(fmt("100%%", &[]), "100%");
        assert_eq!(fmt("%f", &[(BaseType::Float, &[f64::NAN])]), "nan");
    }

    #[test]
    fn vectors_print_their_components() {
        assert_eq!(
            fmt("v=%v3.1f", &[(BaseType::Float, &[1.0, 2.5, -3.0])]),
            "v=1.0, 2.5, -3.0"
        );
        assert_eq!(fmt("%v2d", &[(BaseType::Int, &[4.0, 5.0])]), "4, 5");
        assert_eq!(
            fmt("%.2v2f", &[(BaseType::Float, &[0.5, 1.0])]),
            "0.50, 1.00"
        );
    }

    #[test]
    fn bad_formats_say_why() {
        let e = parse_format("%q").unwrap_err().to_string();
        assert!(e.contains("unknown conversion `%q`"), "{e}");
        let e = parse_format("%v5f").unwrap_err().to_string();
        assert!(e.contains("size 2, 3 or 4"), "{e}");
        let e = parse_format("50%").unwrap_err().to_string();
        assert!(e.contains("at the end"), "{e}");
    }
}
