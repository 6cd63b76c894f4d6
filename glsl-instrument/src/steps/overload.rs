//! Which user function a call goes to (GLSL's overload rules, as far as
//! the argument types are known).

use glsl_lang::ast;

use super::FunctionInfo;
use super::decl::infer_type;
use crate::Variable;

/// The definition a call goes to: same argument count, then the one whose
/// parameter types match the arguments' (where known), else the first.
pub(super) fn resolve_overload(
    cands: &[usize],
    functions: &[FunctionInfo],
    args: &[ast::Expr],
    scope: &[Variable],
) -> Option<usize> {
    let nargs = if args.len() == 1
        && matches!(&args[0].content, ast::ExprData::Variable(v) if v.as_str() == "void")
    {
        0
    } else {
        args.len()
    };
    let same_count: Vec<usize> = cands
        .iter()
        .copied()
        .filter(|&f| functions[f].params.len() == nargs)
        .collect();
    if same_count.len() > 1 {
        let types: Vec<Option<String>> = args.iter().map(|a| infer_type(a, scope)).collect();
        // Exact matches first; else the candidate reachable by implicit
        // conversions with the most exact arguments (GLSL 4.00 /
        // GL_ARB_gpu_shader5 resolution, simplified).
        let score = |f: usize| -> Option<usize> {
            let mut exact = 0;
            for (p, t) in functions[f].params.iter().zip(&types) {
                match t {
                    None => {}
                    Some(t) if t == p => exact += 1,
                    Some(t) if implicitly_converts(t, p) => {}
                    Some(_) => return None,
                }
            }
            Some(exact)
        };
        let mut best: Option<(usize, usize)> = None;
        for f in same_count.iter().copied() {
            if let Some(e) = score(f)
                && best.is_none_or(|(_, b)| e > b)
            {
                best = Some((f, e));
            }
        }
        if let Some((f, _)) = best {
            return Some(f);
        }
    }
    same_count.first().or(cands.first()).copied()
}

/// GLSL's implicit conversions (int → uint → float → double, per vector size).
pub(super) fn implicitly_converts(from: &str, to: &str) -> bool {
    let split = |t: &str| -> Option<(u8, String)> {
        let rank = |b: &str| match b {
            "int" | "ivec" => Some(0u8),
            "uint" | "uvec" => Some(1),
            "float" | "vec" | "mat" => Some(2),
            "double" | "dvec" | "dmat" => Some(3),
            _ => None,
        };
        let base_end = t.find(|c: char| c.is_ascii_digit()).unwrap_or(t.len());
        let (base, size) = t.split_at(base_end);
        let kind = match base {
            "mat" | "dmat" => "m",
            "int" | "uint" | "float" | "double" => "s",
            _ => "v",
        };
        Some((rank(base)?, format!("{kind}{size}")))
    };
    match (split(from), split(to)) {
        (Some((rf, sf)), Some((rt, st))) => {
            sf == st && rf < rt && !(rf == 2 && sf.starts_with('m') && rt != 3)
        }
        _ => false,
    }
}
