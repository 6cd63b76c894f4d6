//! Values wider than the debug output: a matrix, an array, a struct, a
//! `dvec3`/`dvec4` are probed in parts, each part a sub-expression the
//! debug output holds (a scalar or vector, a `double` or `dvec2`), in the
//! order GLSL lays the value out (columns, elements, fields).
//!
//! Opaque values (samplers, images, atomic counters) have no value a shader
//! can store: asking for one is an error that says what to print instead;
//! inside a struct they are left out.

use crate::typeck::{Base, Decls, Ty};
use crate::{InstrumentError, ShaderModel, StepId};

/// The most parts one value is probed in (each part costs a replay).
pub const MAX_PARTS: usize = 64;

/// How a value is probed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueLayout {
    /// The GLSL type of the whole value ("mat3", "float[4]", "Light").
    pub ty: String,
    /// The sub-expressions to probe, in component order: one part, the
    /// expression itself, for a value the debug output holds.
    pub parts: Vec<ValuePart>,
}

/// One probe of a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValuePart {
    /// The sub-expression, e.g. `(m)[1]`, `(lights)[0].color`, `(d).zw`.
    pub expr: String,
    /// Its path inside the value, e.g. `[1]`, `[0].color`, `.zw`;
    /// empty for the value itself.
    pub path: String,
    /// Its GLSL type.
    pub ty: String,
}

pub(crate) fn layout(
    model: &ShaderModel,
    step: StepId,
    expr: &str,
) -> Result<Option<ValueLayout>, InstrumentError> {
    let Some(ty) = crate::typeck::check(model, step, expr)? else {
        return Ok(None);
    };
    let decls = Decls::collect(&model.tu);
    let bad = |message: String| InstrumentError::BadExpression {
        expr: expr.trim().to_string(),
        message,
    };
    let count = part_count(&decls, &ty);
    if count > MAX_PARTS as u64 {
        return Err(bad(format!(
            "a {ty} is probed in {count} parts, more than the {MAX_PARTS} one print runs; \
             print an element or a field of it"
        )));
    }
    let whole = format!("({})", expr.trim());
    let mut parts = Vec::new();
    split(&decls, &ty, &whole, String::new(), &mut parts).map_err(bad)?;
    if parts.is_empty() {
        return Err(bad(format!(
            "a {ty} holds only opaque handles (samplers, images), which have no value in \
             the shader"
        )));
    }
    if let [only] = parts.as_mut_slice()
        && only.path.is_empty()
    {
        // The value itself: probed as the user wrote it.
        only.expr = expr.trim().to_string();
    }
    Ok(Some(ValueLayout {
        ty: ty.to_string(),
        parts,
    }))
}

/// The parts of a variable `name` of GLSL type `ty` (as written), each a
/// sub-expression of `name`; `None` where the type is unknown, unsized,
/// opaque, has more than [`MAX_PARTS`] parts or none.
pub(crate) fn variable_parts(decls: &Decls, name: &str, ty: &str) -> Option<Vec<ValuePart>> {
    let ty = crate::typeck::parse_type(ty, decls)?;
    if part_count(decls, &ty) > MAX_PARTS as u64 {
        return None;
    }
    let mut parts = Vec::new();
    split(decls, &ty, name, String::new(), &mut parts).ok()?;
    (!parts.is_empty()).then_some(parts)
}

/// How many parts `split` makes of a `ty` (errors count as one).
fn part_count(decls: &Decls, ty: &Ty) -> u64 {
    match ty {
        Ty::Num {
            base: Base::Double,
            rows: 3..,
            cols: 1,
        } => 2,
        Ty::Num { base, rows, cols } if *cols > 1 => {
            u64::from(*cols)
                * part_count(
                    decls,
                    &Ty::Num {
                        base: *base,
                        rows: *rows,
                        cols: 1,
                    },
                )
        }
        Ty::Array(element, Some(n)) => u64::from(*n).saturating_mul(part_count(decls, element)),
        Ty::Struct(name) => crate::typeck::struct_fields(decls, name).map_or(1, |fields| {
            fields
                .iter()
                .map(|(_, t)| {
                    crate::typeck::parse_type(t, decls).map_or(1, |t| part_count(decls, &t))
                })
                .fold(0u64, u64::saturating_add)
        }),
        _ => 1,
    }
}

/// Append the parts of `expr` (of type `ty`, at `path` inside the value).
fn split(
    decls: &Decls,
    ty: &Ty,
    expr: &str,
    path: String,
    out: &mut Vec<ValuePart>,
) -> Result<(), String> {
    let mut push = |expr: String, path: String, ty: &Ty| {
        out.push(ValuePart {
            expr,
            path,
            ty: ty.to_string(),
        })
    };
    match ty {
        Ty::Num {
            base,
            rows,
            cols: 1,
            ..
        } if *base == Base::Double && *rows > 2 => {
            let rest = if *rows == 3 { "z" } else { "zw" };
            let (lo, hi) = (
                Ty::Num {
                    base: Base::Double,
                    rows: 2,
                    cols: 1,
                },
                Ty::Num {
                    base: Base::Double,
                    rows: rows - 2,
                    cols: 1,
                },
            );
            push(format!("{expr}.xy"), format!("{path}.xy"), &lo);
            push(format!("{expr}.{rest}"), format!("{path}.{rest}"), &hi);
        }
        Ty::Num { base, rows, cols } if *cols > 1 => {
            let column = Ty::Num {
                base: *base,
                rows: *rows,
                cols: 1,
            };
            for c in 0..*cols {
                split(
                    decls,
                    &column,
                    &format!("{expr}[{c}]"),
                    format!("{path}[{c}]"),
                    out,
                )?;
            }
        }
        Ty::Num { .. } => push(expr.to_string(), path, ty),
        Ty::Array(element, Some(n)) => {
            for i in 0..*n {
                split(
                    decls,
                    element,
                    &format!("{expr}[{i}]"),
                    format!("{path}[{i}]"),
                    out,
                )?;
            }
        }
        Ty::Array(_, None) => {
            return Err(format!(
                "a {ty} has no size known before the draw; print one element, e.g. `{expr}[0]`"
            ));
        }
        Ty::Struct(name) => {
            let Some(fields) = crate::typeck::struct_fields(decls, name) else {
                // A struct the checker cannot see: the driver decides.
                push(expr.to_string(), path, ty);
                return Ok(());
            };
            for (field, field_ty) in fields {
                let sub = format!("{expr}.{field}");
                let sub_path = format!("{path}.{field}");
                match crate::typeck::parse_type(&field_ty, decls) {
                    Some(t) => split(decls, &t, &sub, sub_path, out)?,
                    None => out.push(ValuePart {
                        expr: sub,
                        path: sub_path,
                        ty: field_ty,
                    }),
                }
            }
        }
        // Inside an aggregate: left out, the rest still prints.
        Ty::Opaque(_) if !path.is_empty() => {}
        Ty::Opaque(name) => {
            return Err(format!(
                "a {name} is an opaque handle with no value in the shader; print what it \
                 gives, e.g. a texture() or imageLoad() of it, or see its unit with \
                 `info state`"
            ));
        }
        Ty::Void => return Err("it has no value (it returns void)".into()),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Stage;

    const SHADER: &str = "#version 400 core
struct Light { vec3 color; float power[2]; };
struct Material { sampler2D albedo; float gloss; };
uniform Material mat;
struct Maps { sampler2D a; sampler2D b; };
uniform Maps maps;
uniform mat3 m3;
uniform mat2x3 m23;
uniform dmat2 dm;
uniform dvec3 d3;
uniform double d1;
uniform Light lights[2];
uniform sampler2D tex;
uniform float big[100];
buffer B { float tail[]; };
out vec4 color;
void main() {
    color = vec4(m3[0], 1.0);
}
";

    fn layout_of(expr: &str) -> Result<Option<ValueLayout>, InstrumentError> {
        let m = ShaderModel::parse(SHADER, Stage::Fragment).unwrap();
        let step = m.steps_on_line(18)[0];
        layout(&m, step, expr)
    }

    fn exprs(expr: &str) -> (String, Vec<(String, String, String)>) {
        let l = layout_of(expr).unwrap().unwrap();
        (
            l.ty,
            l.parts
                .into_iter()
                .map(|p| (p.expr, p.path, p.ty))
                .collect(),
        )
    }

    fn part(expr: &str, path: &str, ty: &str) -> (String, String, String) {
        (expr.into(), path.into(), ty.into())
    }

    #[test]
    fn plain_values_are_one_part_as_written() {
        assert_eq!(
            exprs("m3[0] * 2.0"),
            ("vec3".into(), vec![part("m3[0] * 2.0", "", "vec3")])
        );
        assert_eq!(
            exprs("d1"),
            ("double".into(), vec![part("d1", "", "double")])
        );
    }

    #[test]
    fn matrices_split_by_column() {
        assert_eq!(
            exprs("m23"),
            (
                "mat2x3".into(),
                vec![
                    part("(m23)[0]", "[0]", "vec3"),
                    part("(m23)[1]", "[1]", "vec3")
                ]
            )
        );
        assert_eq!(exprs("m3 * m3").1.len(), 3);
    }

    #[test]
    fn wide_doubles_split_into_dvec2_halves() {
        assert_eq!(
            exprs("d3"),
            (
                "dvec3".into(),
                vec![
                    part("(d3).xy", ".xy", "dvec2"),
                    part("(d3).z", ".z", "double")
                ]
            )
        );
        assert_eq!(
            exprs("dm").1,
            vec![
                part("(dm)[0]", "[0]", "dvec2"),
                part("(dm)[1]", "[1]", "dvec2")
            ]
        );
    }

    #[test]
    fn arrays_and_structs_split_by_element_and_field() {
        assert_eq!(
            exprs("lights").1,
            vec![
                part("(lights)[0].color", "[0].color", "vec3"),
                part("(lights)[0].power[0]", "[0].power[0]", "float"),
                part("(lights)[0].power[1]", "[0].power[1]", "float"),
                part("(lights)[1].color", "[1].color", "vec3"),
                part("(lights)[1].power[0]", "[1].power[0]", "float"),
                part("(lights)[1].power[1]", "[1].power[1]", "float"),
            ]
        );
        assert_eq!(exprs("lights[1]").0, "Light");
    }

    #[test]
    fn opaque_unsized_and_huge_values_are_clear_errors() {
        let message = |expr: &str| match layout_of(expr) {
            Err(InstrumentError::BadExpression { message, .. }) => message,
            other => panic!("{expr}: {other:?}"),
        };
        assert!(
            message("tex").contains("sampler2D is an opaque handle"),
            "{}",
            message("tex")
        );
        assert!(
            message("tail").contains("print one element"),
            "{}",
            message("tail")
        );
        let huge = message("big");
        assert!(
            huge.contains("100 parts") && huge.contains("an element"),
            "{huge}"
        );
        let maps = message("maps");
        assert!(maps.contains("only opaque handles"), "{maps}");
    }

    #[test]
    fn opaque_members_are_left_out_of_a_struct() {
        assert_eq!(
            exprs("mat"),
            (
                "Material".into(),
                vec![part("(mat).gloss", ".gloss", "float")]
            )
        );
    }
}
