//! Built-in function signatures made concrete: generic signatures
//! (`genType`, `vec`, `mat`) instantiated per size and kind, and texture,
//! image and atomic functions typed from their first argument.

use super::decls::Decls;
use super::ty::{Base, Ty, parse_type};

/// Every instantiation of a generic built-in signature.
pub(super) fn instantiate(
    name: &str,
    ret: &str,
    params: &[&str],
    decls: &Decls,
) -> Vec<(Ty, Vec<Ty>)> {
    let all: Vec<&str> = std::iter::once(ret).chain(params.iter().copied()).collect();
    let has_mat = all.iter().any(|t| *t == "mat" || *t == "dmat");
    let sizes: &[u8] = if all
        .iter()
        .any(|t| t.starts_with("gen") || t.starts_with("vec"))
    {
        &[1, 2, 3, 4]
    } else {
        &[1]
    };
    let mats: Vec<(u8, u8)> = if has_mat {
        (2..=4).flat_map(|c| (2..=4).map(move |r| (c, r))).collect()
    } else {
        vec![(0, 0)]
    };
    let mut out = Vec::new();
    for &n in sizes {
        for &(c, r) in &mats {
            let one = |t: &str| -> Option<Ty> {
                let base = match t.get(3..) {
                    Some("F") => Some(Base::Float),
                    Some("D") => Some(Base::Double),
                    Some("I") => Some(Base::Int),
                    Some("U") => Some(Base::Uint),
                    Some("B") => Some(Base::Bool),
                    _ => None,
                };
                if let Some(b) = base {
                    if t.starts_with("gen") {
                        return Some(Ty::num(b, n, 1));
                    }
                    if t.starts_with("vec") {
                        return (n > 1).then(|| Ty::num(b, n, 1));
                    }
                }
                match t {
                    "mat" => Some(Ty::num(Base::Float, r, c)),
                    "dmat" => Some(Ty::num(Base::Double, r, c)),
                    _ => parse_type(t, decls),
                }
            };
            // Functions of square matrices only.
            if has_mat && c != r && matches!(name, "determinant" | "inverse") {
                continue;
            }
            // transpose flips the shape.
            let r_ty = match (name, one(ret)) {
                ("transpose", Some(Ty::Num { base, rows, cols })) => {
                    Some(Ty::num(base, cols, rows))
                }
                (_, t) => t,
            };
            let ps: Option<Vec<Ty>> = params.iter().map(|p| one(p)).collect();
            if let (Some(r_ty), Some(ps)) = (r_ty, ps) {
                out.push((r_ty, ps));
            }
        }
    }
    out
}

/// Texture, image and atomic functions: the result from the first argument.
pub(super) fn opaque_function(name: &str, args: &[Option<Ty>]) -> Option<Ty> {
    let first = args.first()?.as_ref()?;
    let vec4 = |prefix: char| {
        let base = match prefix {
            'i' => Base::Int,
            'u' => Base::Uint,
            _ => Base::Float,
        };
        Ty::num(base, 4, 1)
    };
    let dims = |s: &str| -> Option<u8> {
        let s = s
            .strip_prefix(['i', 'u'])
            .filter(|r| r.starts_with("sampler") || r.starts_with("image"))
            .unwrap_or(s);
        let s = s.trim_start_matches("sampler").trim_start_matches("image");
        let s = s.trim_end_matches("Shadow");
        Some(match s {
            "1D" | "Buffer" => 1,
            "2D" | "2DRect" | "1DArray" | "Cube" | "2DMS" | "External" => 2,
            "3D" | "2DArray" | "CubeArray" | "2DMSArray" => 3,
            _ => return None,
        })
    };
    let size = |n: u8| {
        if n == 1 {
            Ty::scalar(Base::Int)
        } else {
            Ty::num(Base::Int, n, 1)
        }
    };
    if name.starts_with("atomicCounter") {
        return Some(Ty::scalar(Base::Uint));
    }
    if name.starts_with("atomic") {
        return Some(first.clone());
    }
    let Ty::Opaque(s) = first else { return None };
    // `isampler2D`, `uimage3D`: integer kinds; `sampler2D`, `image2D`: float.
    let prefix = match s.as_bytes() {
        [p @ (b'i' | b'u'), b's' | b'i', ..] => *p as char,
        _ => 'f',
    };
    if name.starts_with("image") {
        return match name {
            "imageLoad" => Some(vec4(prefix)),
            "imageStore" => Some(Ty::Void),
            "imageSize" => dims(s).map(size),
            "imageSamples" => Some(Ty::scalar(Base::Int)),
            _ if name.starts_with("imageAtomic") => Some(match prefix {
                'i' => Ty::scalar(Base::Int),
                'u' => Ty::scalar(Base::Uint),
                _ => Ty::scalar(Base::Float),
            }),
            _ => None,
        };
    }
    match name {
        "textureSize" => dims(s).map(size),
        "textureQueryLod" | "textureQueryLOD" => Some(Ty::num(Base::Float, 2, 1)),
        "textureQueryLevels" | "textureSamples" => Some(Ty::scalar(Base::Int)),
        "texture"
        | "textureProj"
        | "textureLod"
        | "textureOffset"
        | "textureProjOffset"
        | "textureLodOffset"
        | "textureProjLod"
        | "textureProjLodOffset"
        | "textureGrad"
        | "textureGradOffset"
        | "textureProjGrad"
        | "textureProjGradOffset"
        | "texelFetch"
        | "texelFetchOffset" => Some(if s.contains("Shadow") {
            Ty::scalar(Base::Float)
        } else {
            vec4(prefix)
        }),
        "textureGather" | "textureGatherOffset" | "textureGatherOffsets" => Some(vec4(prefix)),
        _ => {
            // GLSL 1.10 forms (`texture2D`, `shadow2DProj`, `textureCubeLod`,
            // ...): a vec4 (of the sampler's kind with EXT_gpu_shader4).
            let rest = name
                .strip_prefix("texture")
                .or_else(|| name.strip_prefix("shadow"))?;
            let legacy = ["1D", "2D", "3D", "Cube"]
                .iter()
                .any(|d| rest.starts_with(d))
                && !rest.contains("Size")
                && !name.starts_with("texel");
            legacy.then(|| vec4(prefix))
        }
    }
}
