//! Type codes carried by the coverage output, and decoding of value texels.
//!
//! Code = 4 * base + components, base Float = 0, Int = 1, Uint = 2, Bool = 3:
//! float..vec4 = 1..4, int..ivec4 = 5..8, uint..uvec4 = 9..12,
//! bool..bvec4 = 13..16. [`CODE_NO_VALUE`] (17) = reached, no value asked
//! (a coverage-only probe); it decodes as `float` with value 0.
//! double = 18, dvec2 = 19: each component is two texel words, the low
//! then the high half of its bits (unpackDouble2x32).
//! 0 (the clear value) = not reached.

use crate::{BaseType, ValueType};

/// Coverage code of a probe without expression: reached, no value.
pub(crate) const CODE_NO_VALUE: u32 = 17;
/// Coverage code of a `double`; `dvec2` is the next.
const CODE_DOUBLE: u32 = 18;
/// The largest code.
const CODE_MAX: u32 = CODE_DOUBLE + 1;

const BASES: [BaseType; 4] = [
    BaseType::Float,
    BaseType::Int,
    BaseType::Uint,
    BaseType::Bool,
];

/// The coverage code of a value type.
pub(crate) fn type_code(ty: ValueType) -> u32 {
    if ty.base == BaseType::Double {
        return CODE_DOUBLE + u32::from(ty.components.clamp(1, 2)) - 1;
    }
    let base = BASES.iter().position(|b| *b == ty.base).unwrap_or(0) as u32;
    4 * base + u32::from(ty.components.clamp(1, 4))
}

/// The type code a coverage texel holds, or 0 when it holds none (not
/// reached, or not a code): the test of [`decode_type`] without building
/// the type, for scanning a whole image.
#[inline]
pub fn coverage_code(coverage: f32) -> u8 {
    let code = coverage as u32; // NaN and negatives give 0
    if code as f32 == coverage && (1..=CODE_MAX).contains(&code) {
        code as u8
    } else {
        0
    }
}

pub(crate) fn decode_type(coverage: f32) -> Option<ValueType> {
    if !(coverage >= 1.0 && coverage <= CODE_MAX as f32) || coverage.fract() != 0.0 {
        return None;
    }
    let code = coverage as u32;
    if code >= CODE_DOUBLE {
        return Some(ValueType {
            base: BaseType::Double,
            components: (code - CODE_DOUBLE + 1) as u8,
        });
    }
    if code == CODE_NO_VALUE {
        return Some(ValueType {
            base: BaseType::Float,
            components: 1,
        });
    }
    let base = BASES[((code - 1) / 4) as usize];
    Some(ValueType {
        base,
        components: ((code - 1) % 4 + 1) as u8,
    })
}

pub(crate) fn decode(ty: ValueType, texel: [f32; 4]) -> Vec<f64> {
    let (values, n) = decode_fixed(ty, texel);
    values[..n].to_vec()
}

/// [`decode`] without allocating (summaries decode millions of texels):
/// the components, zeros after them, and how many there are.
pub(crate) fn decode_fixed(ty: ValueType, texel: [f32; 4]) -> ([f64; 4], usize) {
    let mut out = [0f64; 4];
    if ty.base == BaseType::Double {
        let n = usize::from(ty.components.clamp(1, 2));
        for (d, w) in out.iter_mut().zip(texel.chunks_exact(2)).take(n) {
            *d = f64::from_bits(u64::from(w[0].to_bits()) | u64::from(w[1].to_bits()) << 32);
        }
        return (out, n);
    }
    let n = usize::from(ty.components.clamp(1, 4));
    for (d, &x) in out.iter_mut().zip(&texel).take(n) {
        *d = match ty.base {
            BaseType::Float => f64::from(x),
            // Integers travel bit-exact through intBitsToFloat / uintBitsToFloat.
            BaseType::Int => f64::from(x.to_bits() as i32),
            BaseType::Uint => f64::from(x.to_bits()),
            BaseType::Bool => f64::from(u8::from(x != 0.0)),
            BaseType::Double => unreachable!("doubles decode above"),
        };
    }
    (out, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coverage_codes_agree_with_decode_type() {
        for c in [
            0.0,
            0.5,
            1.0,
            4.0,
            16.0,
            17.0,
            17.5,
            18.0,
            19.0,
            20.0,
            -1.0,
            f32::NAN,
            f32::INFINITY,
        ] {
            assert_eq!(coverage_code(c) != 0, decode_type(c).is_some(), "{c}");
            if coverage_code(c) != 0 {
                assert_eq!(coverage_code(c) as f32, c);
            }
        }
    }

    #[test]
    fn codes_round_trip() {
        for base in BASES {
            for components in 1..=4 {
                let ty = ValueType { base, components };
                assert_eq!(decode_type(type_code(ty) as f32), Some(ty));
            }
        }
        for components in 1..=2 {
            let ty = ValueType {
                base: BaseType::Double,
                components,
            };
            assert_eq!(decode_type(type_code(ty) as f32), Some(ty));
        }
        assert_eq!(decode_type(0.0), None);
        assert_eq!(decode_type(f32::NAN), None);
        assert_eq!(decode_type(2.5), None);
        assert_eq!(decode_type(20.0), None);
        assert_eq!(
            decode_type(CODE_NO_VALUE as f32),
            Some(ValueType {
                base: BaseType::Float,
                components: 1
            })
        );
    }

    #[test]
    fn texels_decode() {
        let int = ValueType {
            base: BaseType::Int,
            components: 2,
        };
        assert_eq!(
            decode(
                int,
                [f32::from_bits((-3i32) as u32), f32::from_bits(7), 0.0, 0.0]
            ),
            vec![-3.0, 7.0]
        );
        let uint = ValueType {
            base: BaseType::Uint,
            components: 1,
        };
        assert_eq!(
            decode(uint, [f32::from_bits(u32::MAX), 0.0, 0.0, 0.0]),
            vec![4294967295.0]
        );
        let v3 = ValueType {
            base: BaseType::Float,
            components: 3,
        };
        assert_eq!(decode(v3, [0.5, -1.0, 2.0, 9.0]), vec![0.5, -1.0, 2.0]);
        let b = ValueType {
            base: BaseType::Bool,
            components: 1,
        };
        assert_eq!(decode(b, [1.0, 0.0, 0.0, 0.0]), vec![1.0]);
        // Doubles: low word, high word (unpackDouble2x32), bit-exact.
        let x = 1.0 + 2f64.powi(-30);
        let y = -6.5f64;
        let words = |d: f64| {
            let b = d.to_bits();
            [f32::from_bits(b as u32), f32::from_bits((b >> 32) as u32)]
        };
        let (wx, wy) = (words(x), words(y));
        let dvec2 = ValueType {
            base: BaseType::Double,
            components: 2,
        };
        assert_eq!(decode(dvec2, [wx[0], wx[1], wy[0], wy[1]]), vec![x, y]);
        let double = ValueType {
            base: BaseType::Double,
            components: 1,
        };
        assert_eq!(decode(double, [wy[0], wy[1], 9.0, 9.0]), vec![y]);
        // Out-of-range component counts never panic.
        assert_eq!(
            decode(
                ValueType {
                    base: BaseType::Float,
                    components: 0
                },
                [1.0; 4]
            )
            .len(),
            1
        );
    }
}
