//! Human-readable call arguments: GL enum names for `GLenum` parameters,
//! booleans, bitfields in hex, numbers, floats and pointers; and the GL
//! function names nearest to a mistyped one.

use gldbg_proto::api::{self, Abi, Function, Param};

use crate::error::quote;
use gldbg_proto::pb;

/// Format one argument word of `param`.
pub fn format_arg(param: &Param, word: u64) -> String {
    let ty = param.c_type.trim();
    match param.abi {
        Abi::Ptr => {
            if word == 0 {
                "NULL".to_string()
            } else {
                format!("{word:#x}")
            }
        }
        _ if ty == "GLenum" => {
            let v = word as u32;
            match api::gl_enum_name(v, param.group) {
                Some(name) if !(v == 0 && param.group.is_empty()) => name.to_string(),
                _ => format!("{v:#x}"),
            }
        }
        _ if ty == "EGLenum" => format!("{:#x}", word as u32),
        _ if ty == "GLboolean" => match word as u8 {
            0 => "GL_FALSE".to_string(),
            1 => "GL_TRUE".to_string(),
            v => v.to_string(),
        },
        _ if ty == "GLbitfield" => format!("{:#x}", word as u32),
        abi => abi.format_word(word),
    }
}

/// Format a return value of `function` (after the call was executed).
pub fn format_ret(function: &Function, word: u64) -> String {
    let ty = function.ret_type.trim();
    match function.ret {
        Abi::Void => String::new(),
        Abi::Ptr if word == 0 => "NULL".to_string(),
        _ if ty == "GLenum" => api::gl_enum_name(word as u32, "")
            .map(str::to_string)
            .unwrap_or_else(|| format!("{:#x}", word as u32)),
        _ if ty == "GLboolean" => {
            if word as u8 != 0 {
                "GL_TRUE".into()
            } else {
                "GL_FALSE".into()
            }
        }
        abi => abi.format_word(word),
    }
}

/// All arguments of a call, named and formatted. `contents(i)` supplies
/// what lies behind pointer argument `i` when the caller knows it.
pub fn format_args(
    function: &Function,
    args: &[u64],
    contents: impl Fn(usize) -> Option<String>,
) -> Vec<pb::Argument> {
    function
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let raw = args.get(i).copied().unwrap_or(0);
            pb::Argument {
                name: p.name.trim_end_matches('_').to_string(),
                r#type: p.c_type.to_string(),
                raw,
                value: format_arg(p, raw),
                contents: contents(i).unwrap_or_default(),
            }
        })
        .collect()
}

/// Parse a value typed by the user for argument `param` into a raw word:
/// a GL enum name, `true`/`false`, a float (for float parameters), an
/// integer (decimal or 0x hex, negative allowed) that fits the argument.
pub fn parse_arg(param: &Param, text: &str) -> Result<u64, String> {
    let t = text.trim();
    if t.starts_with("GL_") || t.starts_with("EGL_") || t.starts_with("GLX_") {
        return api::gl_enum_value(t)
            .map(u64::from)
            .ok_or_else(|| format!("unknown enum {}", quote(t)));
    }
    match t {
        "true" | "GL_TRUE" => return Ok(1),
        "false" | "GL_FALSE" => return Ok(0),
        "NULL" => return Ok(0),
        _ => {}
    }
    Ok(match param.abi {
        Abi::F32 => u64::from(parse_f32(t)?.to_bits()),
        Abi::F64 => parse_f64(t)?.to_bits(),
        Abi::I8 | Abi::U8 => parse_int(t, 8)? as i8 as i64 as u64,
        Abi::I16 | Abi::U16 => parse_int(t, 16)? as i16 as i64 as u64,
        Abi::I32 => parse_int(t, 32)? as i32 as i64 as u64,
        Abi::U32 => parse_int(t, 32)? as u32 as u64,
        _ => parse_int(t, 64)? as u64,
    })
}

/// An integer typed by the user (decimal or 0x hex) for a `bits`-wide
/// value: signed or unsigned, so from `-2^(bits-1)` to `2^bits - 1`;
/// anything else is refused with the range (never wrapped).
pub fn parse_int(t: &str, bits: u32) -> Result<i128, String> {
    let (negative, digits) = match t.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, t),
    };
    let magnitude = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(h) => i128::from_str_radix(h, 16),
        None => digits.parse::<i128>(),
    };
    let bad = || format!("{}: expected an integer", quote(t));
    let magnitude = magnitude.map_err(|e| match e.kind() {
        std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => {
            out_of_range(t, bits)
        }
        _ => bad(),
    })?;
    if magnitude < 0 {
        return Err(bad()); // "--5", "0x-5"
    }
    let v = if negative { -magnitude } else { magnitude };
    let (min, max) = (-(1i128 << (bits - 1)), (1i128 << bits) - 1);
    if !(min..=max).contains(&v) {
        return Err(out_of_range(t, bits));
    }
    Ok(v)
}

fn out_of_range(t: &str, bits: u32) -> String {
    format!(
        "{} is out of range for a {bits}-bit value ({}..={})",
        quote(t),
        -(1i128 << (bits - 1)),
        (1i128 << bits) - 1
    )
}

/// A float typed by the user for a `float`: a finite number that rounds to
/// infinity (`1e39`) is refused; `inf` and `nan` are taken as typed.
pub fn parse_f32(t: &str) -> Result<f32, String> {
    let v = t
        .parse::<f32>()
        .map_err(|_| format!("{}: expected a number", quote(t)))?;
    if v.is_infinite() && !t.to_ascii_lowercase().contains("inf") {
        return Err(format!(
            "{} is out of range for a float (magnitude up to {:e})",
            quote(t),
            f32::MAX
        ));
    }
    Ok(v)
}

/// A float typed by the user for a `double` (see [`parse_f32`]).
pub fn parse_f64(t: &str) -> Result<f64, String> {
    let v = t
        .parse::<f64>()
        .map_err(|_| format!("{}: expected a number", quote(t)))?;
    if v.is_infinite() && !t.to_ascii_lowercase().contains("inf") {
        return Err(format!(
            "{} is out of range for a double (magnitude up to {:e})",
            quote(t),
            f64::MAX
        ));
    }
    Ok(v)
}

/// The function names nearest to `name` (an unknown one), best first, at
/// most `n`: edit distance ignoring case, also with a `gl` prefix added
/// (`DrawArrays`); only names close enough to be what was meant.
pub fn nearest_functions(name: &str, n: usize) -> Vec<&'static str> {
    let typed = name.trim().to_ascii_lowercase();
    let prefixed = format!("gl{typed}");
    let limit = (typed.len() / 4).clamp(1, 3);
    let mut scored: Vec<(usize, &'static str)> = api::FUNCTIONS
        .iter()
        .filter_map(|f| {
            let candidate = f.name.to_ascii_lowercase();
            let d = edit_distance(&typed, &candidate).min(edit_distance(&prefixed, &candidate));
            (d <= limit).then_some((d, f.name))
        })
        .collect();
    scored.sort();
    scored.into_iter().take(n).map(|(_, name)| name).collect()
}

/// Levenshtein distance between two ASCII strings.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len().abs_diff(b.len()) > 3 {
        return a.len().abs_diff(b.len());
    }
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != cb))
                .min(above + 1)
                .min(row[j] + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn func(name: &str) -> &'static Function {
        &api::FUNCTIONS[api::function_id(name).unwrap() as usize]
    }

    #[test]
    fn nearest_function_names() {
        let near = |n: &str| nearest_functions(n, 5);
        assert_eq!(near("glDrawArray")[0], "glDrawArrays");
        assert_eq!(near("gldrawarrays")[0], "glDrawArrays");
        assert_eq!(near("DrawElements")[0], "glDrawElements");
        assert!(near("glUseProgam").contains(&"glUseProgram"));
        assert!(near("glBindBuffr").contains(&"glBindBuffer"));
        assert!(near("frobnicate").is_empty());
        assert!(near("glDrawArrays").len() <= 5);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn formats_draw_arrays() {
        let f = func("glDrawArrays");
        let args = format_args(f, &[0x0004, 0, 3], |_| None);
        assert_eq!(args.len(), 3);
        assert_eq!(args[0].name, "mode");
        assert_eq!(args[0].value, "GL_TRIANGLES");
        assert_eq!(args[1].value, "0");
        assert_eq!(args[2].value, "3");
    }

    #[test]
    fn formats_floats_pointers_and_bools() {
        let f = func("glClearColor");
        let args = format_args(
            f,
            &[
                u64::from(0.5f32.to_bits()),
                0,
                u64::from(1.0f32.to_bits()),
                0,
            ],
            |_| None,
        );
        assert_eq!(args[0].value, "0.5");
        assert_eq!(args[2].value, "1");
        let f = func("glShaderSource");
        let args = format_args(f, &[3, 1, 0x1000, 0], |i| {
            (i == 2).then(|| "void main(){}".to_string())
        });
        assert_eq!(args[2].value, "0x1000");
        assert_eq!(args[2].contents, "void main(){}");
        assert_eq!(args[3].value, "NULL");
        let f = func("glDepthMask");
        assert_eq!(format_args(f, &[1], |_| None)[0].value, "GL_TRUE");
        let f = func("glUniform1i");
        assert_eq!(
            format_args(f, &[0, (-2i64) as u64], |_| None)[1].value,
            "-2"
        );
    }

    #[test]
    fn parses_args() {
        let f = func("glDrawArrays");
        assert_eq!(parse_arg(&f.params[0], "GL_LINES").unwrap(), 1);
        assert_eq!(parse_arg(&f.params[2], "0x10").unwrap(), 16);
        assert_eq!(
            parse_arg(&f.params[1], "-1").unwrap(),
            u64::from(u32::MAX) | 0xffff_ffff_0000_0000
        );
        let f = func("glClearColor");
        assert_eq!(
            parse_arg(&f.params[0], "0.25").unwrap(),
            u64::from(0.25f32.to_bits())
        );
        assert!(parse_arg(&f.params[0], "GL_NOPE").is_err());
    }

    #[test]
    fn numbers_that_do_not_fit_are_refused_not_wrapped() {
        let f = func("glDrawArrays"); // (GLenum mode, GLint first, GLsizei count)
        assert_eq!(
            parse_arg(&f.params[1], "4294967296").unwrap_err(),
            "4294967296 is out of range for a 32-bit value (-2147483648..=4294967295)"
        );
        assert!(parse_arg(&f.params[1], "-2147483649").is_err());
        assert!(parse_arg(&f.params[1], "0x100000000").is_err());
        assert!(
            parse_arg(&f.params[1], &"9".repeat(100))
                .unwrap_err()
                .contains("out of range")
        );
        assert_eq!(parse_arg(&f.params[1], "4294967295").unwrap(), u64::MAX);
        assert_eq!(parse_arg(&f.params[1], "-0x10").unwrap(), (-16i64) as u64);
        assert!(parse_arg(&f.params[1], "--5").is_err());
        let f = func("glClearColor");
        assert!(
            parse_arg(&f.params[0], "1e39")
                .unwrap_err()
                .contains("out of range")
        );
        assert_eq!(
            parse_arg(&f.params[0], "-inf").unwrap(),
            u64::from(f32::NEG_INFINITY.to_bits())
        );
        // A long value is quoted, not repeated.
        let e = parse_arg(&f.params[0], &"x".repeat(1 << 20)).unwrap_err();
        assert!(e.len() < 200, "{e}");
    }
}
