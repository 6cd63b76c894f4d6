//! A GLSL type as the renderer needs it, parsed once from the type name a
//! reply carries (`PrintReply.type`, `ValuePart.type`, `DumpReply.type`):
//! the scalar kind of its components (which decides how each is shown:
//! everything that shows a component asks this, never the name), and its
//! vector or matrix shape and array sizes.

/// The kind of one component, which decides how it is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    Bool,
    /// `int` and `uint` components (whole numbers).
    Int,
    /// `float` components, and any type that is not a known scalar, vector
    /// or matrix of another kind (structs, samplers, names gldbg does not know).
    Float,
    Double,
}

/// A parsed GLSL type name: `vec3`, `mat2x3`, `uvec4`, `float[2]`, `S[2]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlslType {
    /// The kind of its components.
    pub scalar: Scalar,
    /// Components per column: 1 for a scalar, N for a vecN, R for a matCxR
    /// (0 for a struct or opaque type).
    pub rows: u32,
    /// Columns: 1 for scalars and vectors, C for a matC or matCxR.
    pub columns: u32,
    /// The sizes of its array dimensions (`float[2][3]`: `[2, 3]`); a size
    /// left to the driver (`float[]`) is 0.
    pub array: Vec<u32>,
}

impl GlslType {
    /// Parse a type name as the daemon writes it (a precision qualifier, if
    /// any, is skipped). Never fails: a name that is not a built-in scalar,
    /// vector or matrix is an aggregate of `Float` components.
    pub fn parse(name: &str) -> GlslType {
        let name = name.split_whitespace().last().unwrap_or("");
        let (base, dims) = match name.find('[') {
            Some(i) => (&name[..i], &name[i..]),
            None => (name, ""),
        };
        let array = dims
            .split('[')
            .skip(1)
            .map(|d| d.trim_end_matches(']').trim().parse().unwrap_or(0))
            .collect();
        let (scalar, rows, columns) = builtin(base).unwrap_or((Scalar::Float, 0, 1));
        GlslType {
            scalar,
            rows,
            columns,
            array,
        }
    }

    /// The kind of the components of the type named `name`.
    pub fn scalar_of(name: &str) -> Scalar {
        GlslType::parse(name).scalar
    }
}

/// A built-in scalar, vector or matrix: its scalar kind, rows and columns.
fn builtin(base: &str) -> Option<(Scalar, u32, u32)> {
    let scalar = |s: &str| match s {
        "bool" => Some(Scalar::Bool),
        "int" | "uint" | "int64_t" | "uint64_t" => Some(Scalar::Int),
        "float" => Some(Scalar::Float),
        "double" => Some(Scalar::Double),
        _ => None,
    };
    if let Some(s) = scalar(base) {
        return Some((s, 1, 1));
    }
    let size = |d: &str| match d {
        "2" => Some(2),
        "3" => Some(3),
        "4" => Some(4),
        _ => None,
    };
    let (prefix, rest) = match base.find("vec").or_else(|| base.find("mat")) {
        Some(i) => (&base[..i], &base[i..]),
        None => return None,
    };
    let s = match prefix {
        "" => Scalar::Float,
        "b" => Scalar::Bool,
        "i" | "u" | "i64" | "u64" => Scalar::Int,
        "d" => Scalar::Double,
        _ => return None,
    };
    if let Some(n) = rest.strip_prefix("vec") {
        return Some((s, size(n)?, 1));
    }
    let shape = rest.strip_prefix("mat")?;
    if !matches!(s, Scalar::Float | Scalar::Double) {
        return None;
    }
    match shape.split_once('x') {
        Some((c, r)) => Some((s, size(r)?, size(c)?)),
        None => Some((s, size(shape)?, size(shape)?)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(name: &str) -> (Scalar, u32, u32, Vec<u32>) {
        let g = GlslType::parse(name);
        (g.scalar, g.rows, g.columns, g.array)
    }

    #[test]
    fn scalars_vectors_matrices_and_arrays() {
        assert_eq!(t("float"), (Scalar::Float, 1, 1, vec![]));
        assert_eq!(t("vec3"), (Scalar::Float, 3, 1, vec![]));
        assert_eq!(t("ivec2"), (Scalar::Int, 2, 1, vec![]));
        assert_eq!(t("uint"), (Scalar::Int, 1, 1, vec![]));
        assert_eq!(t("uvec4"), (Scalar::Int, 4, 1, vec![]));
        assert_eq!(t("int64_t"), (Scalar::Int, 1, 1, vec![]));
        assert_eq!(t("u64vec3"), (Scalar::Int, 3, 1, vec![]));
        assert_eq!(t("bool"), (Scalar::Bool, 1, 1, vec![]));
        assert_eq!(t("bvec2"), (Scalar::Bool, 2, 1, vec![]));
        assert_eq!(t("double"), (Scalar::Double, 1, 1, vec![]));
        assert_eq!(t("dvec3"), (Scalar::Double, 3, 1, vec![]));
        assert_eq!(t("dmat2"), (Scalar::Double, 2, 2, vec![]));
        assert_eq!(t("mat2x3"), (Scalar::Float, 3, 2, vec![]));
        assert_eq!(t("mat4"), (Scalar::Float, 4, 4, vec![]));
        assert_eq!(t("int[4]"), (Scalar::Int, 1, 1, vec![4]));
        assert_eq!(t("vec2[3]"), (Scalar::Float, 2, 1, vec![3]));
        assert_eq!(t("float[2][3]"), (Scalar::Float, 1, 1, vec![2, 3]));
        assert_eq!(t(" highp ivec3 "), (Scalar::Int, 3, 1, vec![]));
    }

    #[test]
    fn names_that_only_look_like_a_kind_are_not_one() {
        // A prefix is not a type: these are structs or opaque types.
        let names = [
            "S",
            "S[2]",
            "integer",
            "boolean",
            "intensity",
            "sampler2D",
            "isampler2D",
            "doubles",
            "bmat2",
            "imat3",
            "vec5",
        ];
        for name in names {
            assert_eq!(GlslType::scalar_of(name), Scalar::Float, "{name}");
        }
    }
}
