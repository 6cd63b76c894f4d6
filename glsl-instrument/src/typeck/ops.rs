//! Operators: the result type of a binary operator from its operands'
//! types (GLSL 4.60 §5.9), with implicit conversions.

use glsl_lang::ast;

use super::ty::{Base, Ty, converts};

/// The result of a binary operator whose operand types are not both known.
pub(super) fn binary_shape_unknown(op: &ast::BinaryOpData) -> Option<Ty> {
    use ast::BinaryOpData as B;
    match op {
        B::Or | B::Xor | B::And | B::Equal | B::NonEqual | B::Lt | B::Gt | B::Lte | B::Gte => {
            Some(Ty::scalar(Base::Bool))
        }
        _ => None,
    }
}

fn op_name(op: &ast::BinaryOpData) -> &'static str {
    use ast::BinaryOpData as B;
    match op {
        B::Or => "||",
        B::Xor => "^^",
        B::And => "&&",
        B::BitOr => "|",
        B::BitXor => "^",
        B::BitAnd => "&",
        B::Equal => "==",
        B::NonEqual => "!=",
        B::Lt => "<",
        B::Gt => ">",
        B::Lte => "<=",
        B::Gte => ">=",
        B::LShift => "<<",
        B::RShift => ">>",
        B::Add => "+",
        B::Sub => "-",
        B::Mult => "*",
        B::Div => "/",
        B::Mod => "%",
    }
}

/// The type of `a op b` (both known), or the error message.
pub(super) fn binary(op: &ast::BinaryOpData, a: &Ty, b: &Ty) -> Result<Ty, String> {
    use ast::BinaryOpData as B;
    let name = op_name(op);
    let no = || format!("no operator `{name}` for {a} and {b}");
    let bool_t = Ty::scalar(Base::Bool);
    match op {
        B::Or | B::Xor | B::And => {
            if *a == bool_t && *b == bool_t {
                Ok(bool_t)
            } else {
                Err(format!(
                    "operator `{name}` needs bool operands, not {a} and {b}"
                ))
            }
        }
        B::Equal | B::NonEqual => {
            if matches!(a, Ty::Opaque(_)) || matches!(b, Ty::Opaque(_)) {
                return Err(no());
            }
            if converts(a, b) || converts(b, a) {
                Ok(bool_t)
            } else {
                Err(no())
            }
        }
        B::Lt | B::Gt | B::Lte | B::Gte => {
            let numeric = |t: &Ty| t.is_scalar() && t.base() != Some(Base::Bool);
            if numeric(a) && numeric(b) {
                Ok(bool_t)
            } else if matches!((a, b), (Ty::Num { rows: r1, cols: 1, .. }, Ty::Num { rows: r2, cols: 1, .. }) if *r1 > 1 && r1 == r2)
            {
                Err(format!(
                    "operator `{name}` compares scalars, not {a} and {b} (use lessThan, greaterThan, ...)"
                ))
            } else {
                Err(no())
            }
        }
        B::LShift | B::RShift => {
            let (
                Ty::Num {
                    base: ba,
                    rows: ra,
                    cols: 1,
                },
                Ty::Num {
                    base: bb,
                    rows: rb,
                    cols: 1,
                },
            ) = (a, b)
            else {
                return Err(no());
            };
            let int = |x: &Base| matches!(x, Base::Int | Base::Uint);
            if int(ba) && int(bb) && (ra == rb || *rb == 1) {
                Ok(a.clone())
            } else {
                Err(no())
            }
        }
        _ => {
            let (
                Ty::Num {
                    base: ba,
                    rows: ra,
                    cols: ca,
                },
                Ty::Num {
                    base: bb,
                    rows: rb,
                    cols: cb,
                },
            ) = (a, b)
            else {
                return Err(no());
            };
            if *ba == Base::Bool || *bb == Base::Bool {
                return Err(no());
            }
            // Common base by implicit conversion (matrices only to double).
            let base = (*ba).max(*bb);
            let integer = matches!(base, Base::Int | Base::Uint);
            if matches!(op, B::Mod | B::BitAnd | B::BitOr | B::BitXor) && !integer {
                return Err(no());
            }
            let (ma, mb) = (*ca > 1, *cb > 1);
            let sa = *ra == 1 && *ca == 1;
            let sb = *rb == 1 && *cb == 1;
            if sa {
                return Ok(b.with_base(base));
            }
            if sb {
                return Ok(a.with_base(base));
            }
            match (ma, mb) {
                (false, false) if ra == rb => Ok(a.with_base(base)),
                (true, true) if *op == B::Mult => {
                    if ca == rb {
                        Ok(Ty::num(base, *ra, *cb))
                    } else {
                        Err(no())
                    }
                }
                (true, true) if matches!(op, B::Add | B::Sub | B::Div) && ra == rb && ca == cb => {
                    Ok(a.with_base(base))
                }
                // matrix * column vector, row vector * matrix
                (true, false) if *op == B::Mult && ca == rb => Ok(Ty::num(base, *ra, 1)),
                (false, true) if *op == B::Mult && ra == rb => Ok(Ty::num(base, *cb, 1)),
                _ => Err(no()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::typeck::{Decls, parse_type};

    fn ty(s: &str) -> Ty {
        parse_type(s, &Decls::default()).unwrap()
    }

    #[test]
    fn operators_follow_glsl_shapes_and_conversions() {
        use ast::BinaryOpData as B;
        assert_eq!(binary(&B::Add, &ty("vec3"), &ty("float")), Ok(ty("vec3")));
        assert_eq!(binary(&B::Mult, &ty("mat3"), &ty("vec3")), Ok(ty("vec3")));
        assert_eq!(binary(&B::Mult, &ty("vec2"), &ty("mat3x2")), Ok(ty("vec3")));
        assert_eq!(binary(&B::Add, &ty("int"), &ty("float")), Ok(ty("float")));
        assert_eq!(binary(&B::Lt, &ty("int"), &ty("uint")), Ok(ty("bool")));
        assert!(binary(&B::Add, &ty("vec2"), &ty("vec3")).is_err());
        assert_eq!(binary_shape_unknown(&B::Equal), Some(ty("bool")));
        assert_eq!(binary_shape_unknown(&B::Add), None);
    }
}
