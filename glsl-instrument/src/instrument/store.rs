//! The write of the value: the debug globals and the overloaded `store`
//! helpers that pack a value of any numeric type into the `vec4` value
//! global and return its type code (value.rs), so the driver resolves the
//! type.

use glsl_lang::ast;

use super::build::{assign, call, float, var};
use super::dialect::Bits;
use crate::value::{CODE_NO_VALUE, type_code};
use crate::{BaseType, ValueType};

/// The debug write: `coverage = store(expr)` (or the no-value code),
/// through the `flush` function where the outputs are written at the probe.
pub(super) fn write(
    expr: Option<ast::Expr>,
    store: &str,
    coverage: &str,
    flush: Option<&str>,
) -> ast::Expr {
    let code = match expr {
        Some(e) => call(store, vec![e]),
        None => float(CODE_NO_VALUE as f32),
    };
    assign(
        var(coverage),
        match flush {
            Some(f) => call(f, vec![code]),
            None => code,
        },
    )
}

/// The names [`helpers`] declares and uses.
pub(super) struct HelperNames<'a> {
    pub value: &'a str,
    pub coverage: &'a str,
    pub store: &'a str,
    pub counters: &'a [String],
    pub path: Option<&'a str>,
    /// Precision prefix for ES ("highp " or a macro), empty on desktop.
    pub precision: &'a str,
}

fn pad(x: &str, n: usize) -> String {
    let zeros = ", 0.0".repeat(4 - n);
    format!("vec4({x}{zeros})")
}

fn store_fn(out: &mut String, h: &HelperNames<'_>, ty: &str, packed: &str, code: u32) {
    let p = h.precision;
    // GLSL ES allows precision qualifiers on float, int and opaque types
    // only: `highp bool` is an error (NVIDIA: C1151; Mesa lets it pass).
    let param_p = if ty.starts_with("bool") || ty.starts_with("bvec") {
        ""
    } else {
        p
    };
    out.push_str(&format!(
        "{p}float {store}({param_p}{ty} x) {{\n    {v} = {packed};\n    return {code}.0;\n}}\n",
        store = h.store,
        v = h.value
    ));
}

fn code(base: BaseType, n: usize) -> u32 {
    type_code(ValueType {
        base,
        components: n as u8,
    })
}

fn int_stores(out: &mut String, h: &HelperNames<'_>, has_uint: bool, exact: bool) {
    for n in 1..=4usize {
        let (ity, uty, fty) = if n == 1 {
            ("int".to_string(), "uint".to_string(), "float".to_string())
        } else {
            (format!("ivec{n}"), format!("uvec{n}"), format!("vec{n}"))
        };
        if exact {
            store_fn(
                out,
                h,
                &ity,
                &pad("intBitsToFloat(x)", n),
                code(BaseType::Int, n),
            );
            if has_uint {
                store_fn(
                    out,
                    h,
                    &uty,
                    &pad("uintBitsToFloat(x)", n),
                    code(BaseType::Uint, n),
                );
            }
        } else {
            // Converted values are reported as float: decode cannot know.
            store_fn(
                out,
                h,
                &ity,
                &pad(&format!("{fty}(x)"), n),
                code(BaseType::Float, n),
            );
            if has_uint {
                store_fn(
                    out,
                    h,
                    &uty,
                    &pad(&format!("{fty}(x)"), n),
                    code(BaseType::Float, n),
                );
            }
        }
    }
}

/// Declarations of the debug globals and the `store` overloads.
pub(super) fn helpers(h: &HelperNames<'_>, has_uint: bool, bits: Bits, has_double: bool) -> String {
    let p = h.precision;
    let mut out = String::new();
    out.push_str(&format!("{p}vec4 {};\n{p}float {};\n", h.value, h.coverage));
    for c in h.counters {
        out.push_str(&format!("{p}int {c};\n"));
    }
    if let Some(path) = h.path {
        out.push_str(&format!("uniform {p}int {path}[{}];\n", h.counters.len()));
    }
    for n in 1..=4usize {
        let ty = if n == 1 {
            "float".to_string()
        } else {
            format!("vec{n}")
        };
        let packed = if n == 4 { "x".to_string() } else { pad("x", n) };
        store_fn(&mut out, h, &ty, &packed, code(BaseType::Float, n));
    }
    match bits {
        Bits::Exact => int_stores(&mut out, h, has_uint, true),
        Bits::Converted => int_stores(&mut out, h, has_uint, false),
        Bits::IfExtension => {
            out.push_str("#ifdef GL_ARB_shader_bit_encoding\n");
            int_stores(&mut out, h, has_uint, true);
            out.push_str("#else\n");
            int_stores(&mut out, h, has_uint, false);
            out.push_str("#endif\n");
        }
    }
    for n in 1..=4usize {
        let (ty, fty) = if n == 1 {
            ("bool".to_string(), "float".to_string())
        } else {
            (format!("bvec{n}"), format!("vec{n}"))
        };
        store_fn(
            &mut out,
            h,
            &ty,
            &pad(&format!("{fty}(x)"), n),
            code(BaseType::Bool, n),
        );
    }
    if has_double {
        // Bit-exact where uintBitsToFloat exists (unpackDouble2x32 comes
        // with the doubles); dvec3 and dvec4 exceed the vec4 output and are
        // probed in parts where their type is known (parts.rs).
        let exact = |out: &mut String| {
            store_fn(
                out,
                h,
                "double",
                "vec4(uintBitsToFloat(unpackDouble2x32(x)), 0.0, 0.0)",
                code(BaseType::Double, 1),
            );
            store_fn(
                out,
                h,
                "dvec2",
                "vec4(uintBitsToFloat(unpackDouble2x32(x.x)), uintBitsToFloat(unpackDouble2x32(x.y)))",
                code(BaseType::Double, 2),
            );
        };
        let converted_from = match bits {
            Bits::Exact => {
                exact(&mut out);
                3
            }
            Bits::Converted => 1,
            Bits::IfExtension => {
                out.push_str("#ifdef GL_ARB_shader_bit_encoding\n");
                exact(&mut out);
                out.push_str("#else\n");
                for n in 1..=2 {
                    double_converted(&mut out, h, n);
                }
                out.push_str("#endif\n");
                3
            }
        };
        for n in converted_from..=4usize {
            double_converted(&mut out, h, n);
        }
    }
    out
}

/// The `store` overload of a double type converted to float.
fn double_converted(out: &mut String, h: &HelperNames<'_>, n: usize) {
    let (ty, fty) = if n == 1 {
        ("double".to_string(), "float".to_string())
    } else {
        (format!("dvec{n}"), format!("vec{n}"))
    };
    store_fn(
        out,
        h,
        &ty,
        &pad(&format!("{fty}(x)"), n),
        code(BaseType::Float, n),
    );
}
