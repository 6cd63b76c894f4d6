//! What pointer arguments point at, from the registry's `len` attribute
//! (`Param::len`) and the parameter's C type: how many elements, of which
//! type, formatted for `info call` and written by `set arg I[K] VALUE`.
//!
//! Lengths the daemon evaluates: a number (`1`, `16`), another parameter
//! (`count`, `size`, `n`), a parameter times a number (`count*4`), and a few
//! `COMPSIZE(...)` forms of common calls (`glTexParameter*v`,
//! `glClearBuffer*v`). Other lengths are unknown: no contents are shown and
//! `set arg I[K]` still works, without a bounds check. Only input pointers
//! (`const T *`) are read before the call; output pointers only once the
//! call was executed (`finish`).

use gldbg_proto::api::{Abi, Function, Param, gl_enum_name};

/// Most elements shown by `info call`.
pub const MAX_SHOWN: usize = 64;
/// Most bytes shown of untyped (`void *`) data.
pub const MAX_BYTES: usize = 64;

/// The element type behind a pointer parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    F32,
    F64,
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    /// A `GLenum` element: shown by name.
    Enum,
    I64,
    U64,
    /// `void`: raw bytes.
    Byte,
}

impl Elem {
    pub fn size(self) -> usize {
        match self {
            Elem::I8 | Elem::U8 | Elem::Byte => 1,
            Elem::I16 | Elem::U16 => 2,
            Elem::F32 | Elem::I32 | Elem::U32 | Elem::Enum => 4,
            Elem::F64 | Elem::I64 | Elem::U64 => 8,
        }
    }

    /// Format one element from its native-endian bytes.
    pub fn format(self, b: &[u8]) -> String {
        let mut w = [0u8; 8];
        w[..b.len().min(8)].copy_from_slice(&b[..b.len().min(8)]);
        let u = u64::from_ne_bytes(w);
        match self {
            Elem::F32 => gldbg_proto::api::float_text(f32::from_bits(u as u32) as f64, true),
            Elem::F64 => gldbg_proto::api::float_text(f64::from_bits(u), false),
            Elem::I8 => (u as i8).to_string(),
            Elem::U8 | Elem::Byte => (u as u8).to_string(),
            Elem::I16 => (u as i16).to_string(),
            Elem::U16 => (u as u16).to_string(),
            Elem::I32 => (u as i32).to_string(),
            Elem::U32 => (u as u32).to_string(),
            Elem::Enum => gl_enum_name(u as u32, "")
                .map_or_else(|| format!("{:#x}", u as u32), str::to_string),
            Elem::I64 => (u as i64).to_string(),
            Elem::U64 => u.to_string(),
        }
    }

    /// Parse a value typed by the user into this element's bytes; a
    /// number that does not fit the element is refused, never wrapped.
    pub fn parse(self, text: &str) -> Result<Vec<u8>, String> {
        use crate::format::{parse_f32, parse_f64, parse_int};
        let t = text.trim();
        if t.starts_with("GL_") {
            let v = gldbg_proto::api::gl_enum_value(t)
                .ok_or_else(|| format!("unknown enum {}", crate::error::quote(t)))?;
            return self.parse(&v.to_string());
        }
        Ok(match self {
            Elem::F32 => parse_f32(t)?.to_ne_bytes().to_vec(),
            Elem::F64 => parse_f64(t)?.to_ne_bytes().to_vec(),
            Elem::I8 | Elem::U8 | Elem::Byte => vec![parse_int(t, 8)? as u8],
            Elem::I16 | Elem::U16 => (parse_int(t, 16)? as u16).to_ne_bytes().to_vec(),
            Elem::I32 | Elem::U32 | Elem::Enum => (parse_int(t, 32)? as u32).to_ne_bytes().to_vec(),
            Elem::I64 | Elem::U64 => (parse_int(t, 64)? as u64).to_ne_bytes().to_vec(),
        })
    }
}

/// The pointee of a single-level pointer parameter (`const GLfloat *`), or
/// None for non-pointers, pointers to pointers and opaque types.
pub fn elem_of(param: &Param) -> Option<Elem> {
    if param.abi != Abi::Ptr {
        return None;
    }
    let t = param.c_type.trim();
    let base = t.strip_suffix('*')?.trim();
    if base.contains('*') {
        return None;
    }
    let base = base.trim_start_matches("const ").trim();
    Some(match base {
        "GLfloat" | "GLclampf" => Elem::F32,
        "GLdouble" | "GLclampd" => Elem::F64,
        "GLbyte" | "GLchar" | "GLcharARB" | "char" => Elem::I8,
        "GLubyte" | "GLboolean" => Elem::U8,
        "GLshort" => Elem::I16,
        "GLushort" | "GLhalf" | "GLhalfNV" => Elem::U16,
        "GLint" | "GLsizei" | "GLfixed" | "EGLint" | "int" => Elem::I32,
        "GLuint" | "GLbitfield" | "unsigned int" => Elem::U32,
        "GLenum" => Elem::Enum,
        "GLint64" | "GLint64EXT" | "GLintptr" | "GLsizeiptr" | "EGLAttrib" => Elem::I64,
        "GLuint64" | "GLuint64EXT" => Elem::U64,
        "void" => Elem::Byte,
        _ => return None,
    })
}

/// Whether the pointer is an input (`const T *`): its contents are valid before the call.
pub fn is_input(param: &Param) -> bool {
    param.c_type.trim().starts_with("const ")
}

/// Evaluate the `len` of parameter `index` of `f` with the call's argument
/// words: the number of elements it points at, if known.
pub fn element_count(f: &Function, index: usize, args: &[u64]) -> Option<usize> {
    let len = f.params.get(index)?.len.trim();
    if len.is_empty() {
        return None;
    }
    let arg = |name: &str| -> Option<i64> {
        let i = f
            .params
            .iter()
            .position(|p| p.name.trim_end_matches('_') == name)?;
        let w = *args.get(i)?;
        Some(match f.params[i].abi {
            Abi::I32 => i64::from(w as i32),
            Abi::U32 => i64::from(w as u32),
            Abi::I16 => i64::from(w as i16),
            Abi::U16 => i64::from(w as u16),
            _ => w as i64,
        })
    };
    let term = |t: &str| -> Option<i64> {
        let t = t.trim();
        t.parse::<i64>().ok().or_else(|| arg(t))
    };
    if let Some(inner) = len
        .strip_prefix("COMPSIZE(")
        .and_then(|r| r.strip_suffix(')'))
    {
        return compsize(f.name, inner, &arg);
    }
    let n = match len.split_once('*') {
        Some((a, b)) => term(a)?.checked_mul(term(b)?)?,
        None => term(len)?,
    };
    usize::try_from(n).ok()
}

/// The `COMPSIZE(...)` lengths gldbg knows (a few common calls).
fn compsize(function: &str, inner: &str, arg: &dyn Fn(&str) -> Option<i64>) -> Option<usize> {
    if inner == "pname"
        && (function.starts_with("glTexParameter") || function.starts_with("glSamplerParameter"))
    {
        // GL_TEXTURE_BORDER_COLOR (and swizzle RGBA) take four values, the rest one.
        let pname = arg("pname")? as u32;
        return Some(if matches!(pname, 0x1004 | 0x8E46) {
            4
        } else {
            1
        });
    }
    if inner == "buffer" && function.starts_with("glClearBuffer") {
        let buffer = arg("buffer")? as u32;
        // GL_COLOR: four components; GL_DEPTH / GL_STENCIL: one.
        return Some(if buffer == 0x1800 { 4 } else { 1 });
    }
    None
}

/// `info call` text of the contents behind pointer `index`: numbers in
/// brackets (enum names for `GLenum`), or the first bytes in hex for
/// `void *` data. `read(addr, len)` reads the app's memory.
pub fn describe(
    f: &Function,
    index: usize,
    args: &[u64],
    executed: bool,
    read: &dyn Fn(u64, usize) -> Option<Vec<u8>>,
) -> Option<String> {
    let p = f.params.get(index)?;
    let addr = *args.get(index)?;
    if addr == 0 || !(is_input(p) || executed) {
        return None;
    }
    let elem = elem_of(p)?;
    let n = element_count(f, index, args)?;
    if elem == Elem::Byte {
        let take = n.min(MAX_BYTES);
        let b = read(addr, take)?;
        let hex: Vec<String> = b.iter().map(|x| format!("{x:02x}")).collect();
        let more = if n > take {
            format!(" ... ({n} bytes)")
        } else {
            String::new()
        };
        return Some(format!("{}{more}", hex.join(" ")));
    }
    let take = n.min(MAX_SHOWN);
    let b = read(addr, take * elem.size())?;
    let items: Vec<String> = b
        .chunks_exact(elem.size())
        .map(|c| elem.format(c))
        .collect();
    let more = if n > take {
        format!(", ... ({n} elements)")
    } else {
        String::new()
    };
    Some(format!("[{}{more}]", items.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gldbg_proto::api::{FUNCTIONS, function_id};

    fn func(name: &str) -> &'static Function {
        &FUNCTIONS[function_id(name).unwrap() as usize]
    }

    #[test]
    fn counts_from_the_registry() {
        let f = func("glUniform4fv");
        assert_eq!(element_count(f, 2, &[3, 2, 0x1000]), Some(8));
        assert_eq!(elem_of(&f.params[2]), Some(Elem::F32));
        let f = func("glBufferData");
        assert_eq!(element_count(f, 2, &[0x8892, 24, 0x1000, 0x88E4]), Some(24));
        assert_eq!(elem_of(&f.params[2]), Some(Elem::Byte));
        let f = func("glTexParameterfv");
        assert_eq!(element_count(f, 2, &[0xDE1, 0x1004, 1]), Some(4));
        assert_eq!(element_count(f, 2, &[0xDE1, 0x2801, 1]), Some(1));
        assert_eq!(element_count(func("glGetIntegerv"), 1, &[0xBA2, 1]), None);
        assert_eq!(
            elem_of(&func("glShaderSource").params[2]),
            None,
            "pointer to pointers"
        );
    }

    #[test]
    fn describes_arrays_bytes_and_outputs() {
        let data = [1.5f32, -2.0, 0.25, 4.0];
        let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_ne_bytes()).collect();
        let read = |_: u64, n: usize| Some(bytes[..n].to_vec());
        let f = func("glUniform4fv");
        assert_eq!(
            describe(f, 2, &[0, 1, 8], false, &read).unwrap(),
            "[1.5, -2, 0.25, 4]"
        );
        let f = func("glBufferData");
        assert_eq!(
            describe(f, 2, &[0x8892, 4, 8, 0], false, &read).unwrap(),
            "00 00 c0 3f"
        );
        let f = func("glGenBuffers");
        assert_eq!(
            describe(f, 1, &[1, 8], false, &read),
            None,
            "an output before the call"
        );
        assert!(describe(f, 1, &[1, 8], true, &read).is_some());
    }

    #[test]
    fn parses_elements() {
        assert_eq!(Elem::F32.parse("0.5").unwrap(), 0.5f32.to_ne_bytes());
        assert_eq!(Elem::I32.parse("-1").unwrap(), (-1i32).to_ne_bytes());
        assert_eq!(
            Elem::Enum.parse("GL_TRIANGLES").unwrap(),
            4u32.to_ne_bytes()
        );
        assert_eq!(Elem::U8.parse("0xff").unwrap(), [255]);
        assert!(Elem::F32.parse("x").is_err());
        assert_eq!(Elem::Enum.format(&0x1406u32.to_ne_bytes()), "GL_FLOAT");
    }
}
