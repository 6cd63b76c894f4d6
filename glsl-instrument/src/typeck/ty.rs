//! GLSL types as the checker sees them: scalar kinds, vectors, matrices,
//! arrays, structs and opaque types; parsing a type as written, and GLSL's
//! implicit conversions.

use std::fmt;

use glsl_lang::ast;

use super::decls::Decls;
use crate::builtins;

/// Scalar kind, in implicit-conversion order (int → uint → float → double).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Base {
    Bool,
    Int,
    Uint,
    Float,
    Double,
}

/// A GLSL type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    Void,
    /// Scalar (rows 1, cols 1), vector (rows n, cols 1) or matrix (cols x rows).
    Num {
        base: Base,
        rows: u8,
        cols: u8,
    },
    /// Element type and size (None: unsized or not a literal).
    Array(Box<Ty>, Option<u32>),
    /// A user struct or block, or a built-in struct.
    Struct(String),
    /// Samplers, images, atomic counters.
    Opaque(String),
}

impl Ty {
    pub(super) fn num(base: Base, rows: u8, cols: u8) -> Ty {
        Ty::Num { base, rows, cols }
    }
    pub(super) fn scalar(base: Base) -> Ty {
        Ty::num(base, 1, 1)
    }
    pub(super) fn is_scalar(&self) -> bool {
        matches!(
            self,
            Ty::Num {
                rows: 1,
                cols: 1,
                ..
            }
        )
    }
    pub(super) fn base(&self) -> Option<Base> {
        match self {
            Ty::Num { base, .. } => Some(*base),
            _ => None,
        }
    }
    pub(super) fn with_base(&self, b: Base) -> Ty {
        match self {
            Ty::Num { rows, cols, .. } => Ty::num(b, *rows, *cols),
            t => t.clone(),
        }
    }
    /// Number of scalar components (constructors).
    pub(super) fn components(&self) -> Option<u32> {
        match self {
            Ty::Num { rows, cols, .. } => Some(u32::from(*rows) * u32::from(*cols)),
            _ => None,
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Void => f.write_str("void"),
            Ty::Num { base, rows, cols } => {
                let (scalar, prefix) = match base {
                    Base::Bool => ("bool", "b"),
                    Base::Int => ("int", "i"),
                    Base::Uint => ("uint", "u"),
                    Base::Float => ("float", ""),
                    Base::Double => ("double", "d"),
                };
                match (rows, cols) {
                    (1, 1) => f.write_str(scalar),
                    (n, 1) => write!(f, "{prefix}vec{n}"),
                    (r, c) if r == c => write!(f, "{prefix}mat{c}"),
                    (r, c) => write!(f, "{prefix}mat{c}x{r}"),
                }
            }
            Ty::Array(t, Some(n)) => write!(f, "{t}[{n}]"),
            Ty::Array(t, None) => write!(f, "{t}[]"),
            Ty::Struct(n) | Ty::Opaque(n) => f.write_str(n),
        }
    }
}

/// Read a type as written ("vec3", "float[4]", "S[2][3]", "mat2x3").
/// `None`: a type this checker does not model.
pub(crate) fn parse_type(s: &str, decls: &Decls) -> Option<Ty> {
    let s = s.trim();
    let (head, arrays) = match s.find('[') {
        Some(i) => (s[..i].trim(), &s[i..]),
        None => (s, ""),
    };
    let mut t = base_type(head, decls)?;
    // `T[a][b]`: an array of `a` arrays of `b`; build from the innermost.
    let mut dims = Vec::new();
    let mut rest = arrays;
    while let Some(r) = rest.strip_prefix('[') {
        let end = r.find(']')?;
        dims.push(r[..end].trim().parse::<u32>().ok());
        rest = r[end + 1..].trim_start();
    }
    if !rest.is_empty() {
        return None;
    }
    for d in dims.into_iter().rev() {
        t = Ty::Array(Box::new(t), d);
    }
    Some(t)
}

pub(super) fn base_type(s: &str, decls: &Decls) -> Option<Ty> {
    let scalar = |name: &str| match name {
        "bool" => Some(Base::Bool),
        "int" => Some(Base::Int),
        "uint" | "unsigned int" => Some(Base::Uint),
        "float" => Some(Base::Float),
        "double" => Some(Base::Double),
        _ => None,
    };
    if let Some(b) = scalar(s) {
        return Some(Ty::scalar(b));
    }
    if s == "void" {
        return Some(Ty::Void);
    }
    let (base, rest) = match s.as_bytes().first()? {
        b'b' if s.starts_with("bvec") => (Base::Bool, &s[1..]),
        b'i' if s.starts_with("ivec") => (Base::Int, &s[1..]),
        b'u' if s.starts_with("uvec") => (Base::Uint, &s[1..]),
        b'd' if s.starts_with("dvec") || s.starts_with("dmat") => (Base::Double, &s[1..]),
        _ => (Base::Float, s),
    };
    let dim = |d: &str| -> Option<u8> {
        match d {
            "2" => Some(2),
            "3" => Some(3),
            "4" => Some(4),
            _ => None,
        }
    };
    if let Some(n) = rest.strip_prefix("vec") {
        return Some(Ty::num(base, dim(n)?, 1));
    }
    if let Some(m) = rest.strip_prefix("mat")
        && matches!(base, Base::Float | Base::Double)
    {
        return Some(match m.split_once('x') {
            Some((c, r)) => Ty::num(base, dim(r)?, dim(c)?),
            None => Ty::num(base, dim(m)?, dim(m)?),
        });
    }
    let opaque = [
        "sampler", "isampler", "usampler", "image", "iimage", "uimage",
    ];
    if opaque.iter().any(|p| s.starts_with(p)) || s == "atomic_uint" {
        return Some(Ty::Opaque(s.to_string()));
    }
    if decls.structs.contains_key(s) || builtins::builtin_struct(s).is_some() {
        return Some(Ty::Struct(s.to_string()));
    }
    None
}

/// The value of an index written as an integer literal, possibly negated
/// (`v[2]`, `v[-1]`, `v[-(1)]`): what the type check can refuse as out of
/// range before the driver sees it.
pub(super) fn constant_index(e: &ast::Expr) -> Option<i64> {
    use glsl_lang::ast::{ExprData as E, UnaryOpData as U};
    match &e.content {
        E::IntConst(n) => Some(i64::from(*n)),
        E::UIntConst(n) => Some(i64::from(*n)),
        E::Unary(op, a) => match op.content {
            U::Minus => constant_index(a).map(|k| -k),
            U::Add => constant_index(a),
            _ => None,
        },
        _ => None,
    }
}

/// GLSL's implicit conversions (4.00 and GL_ARB_gpu_shader5: int → uint,
/// int/uint → float, int/uint/float → double; same shape). Older and ES
/// versions have fewer; the checker is lenient there (the driver decides).
pub(super) fn converts(from: &Ty, to: &Ty) -> bool {
    match (from, to) {
        (
            Ty::Num {
                base: a,
                rows: r1,
                cols: c1,
            },
            Ty::Num {
                base: b,
                rows: r2,
                cols: c2,
            },
        ) => {
            r1 == r2
                && c1 == c2
                && (a == b
                    || (*a != Base::Bool
                        && *b != Base::Bool
                        && a < b
                        && (*c1 == 1 || *a >= Base::Float)))
        }
        // An unsized array declaration takes its size from the initializer.
        (Ty::Array(a, n), Ty::Array(b, m)) => a == b && (n == m || n.is_none() || m.is_none()),
        (a, b) => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_parse_as_written_and_convert_implicitly() {
        let decls = Decls::default();
        let t = |s: &str| parse_type(s, &decls);
        assert_eq!(
            t("float[4]"),
            Some(Ty::Array(Box::new(Ty::scalar(Base::Float)), Some(4)))
        );
        assert_eq!(t("mat2x3").map(|m| m.to_string()), Some("mat2x3".into()));
        assert_eq!(t("ivec3").and_then(|v| v.components()), Some(3));
        assert_eq!(t("NoSuchType"), None);
        let (i, f) = (t("int").unwrap(), t("float").unwrap());
        assert!(converts(&i, &f) && !converts(&f, &i));
        assert!(converts(&t("uvec2").unwrap(), &t("dvec2").unwrap()));
        assert!(!converts(&t("vec2").unwrap(), &t("vec3").unwrap()));
    }
}
