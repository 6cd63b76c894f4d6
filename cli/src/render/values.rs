//! Printed values: components shown by the kind of their type
//! ([`GlslType`]), a value in parts (`PrintReply.parts`) part by part, and
//! components not written yet at this step as `undefined`, never a number.

use gldbg_proto::pb;
use serde::Serialize;
use serde_json::{Value, json};

use super::glsl_type::{GlslType, Scalar};
use crate::numbers;

/// One component as text: floats in their shortest round-trip form, `%g`-like
/// (`numbers::float_text`).
fn component_text(v: f64, s: Scalar) -> String {
    match s {
        Scalar::Bool if v.is_finite() => (v != 0.0).to_string(),
        Scalar::Int if v.is_finite() && v.fract() == 0.0 => format!("{}", v as i64),
        Scalar::Float => numbers::float_text(v, true),
        _ => numbers::float_text(v, false),
    }
}

/// One component as JSON: a number (floats rounded to the shortest decimal of
/// their f32, so 0.1f reads 0.1), `"NaN"`, `"Inf"`, `"-Inf"` for the others.
fn component_json(v: f64, s: Scalar) -> Value {
    match s {
        Scalar::Bool | Scalar::Int if v.is_finite() && v.fract() == 0.0 => json!(v as i64),
        Scalar::Float => numbers::float_json(v, true),
        _ => numbers::float_json(v, false),
    }
}

fn components_text(values: &[f64], s: Scalar) -> String {
    let parts: Vec<String> = values.iter().map(|v| component_text(*v, s)).collect();
    if parts.len() == 1 {
        parts[0].clone()
    } else {
        format!("({})", parts.join(", "))
    }
}

/// The shape of the values of one print: the kind of the whole value, or
/// its parts (path, kind, components) one after the other.
pub struct Layout<'a> {
    whole: Scalar,
    parts: Vec<(&'a str, Scalar, usize)>,
}

impl<'a> Layout<'a> {
    /// The layout of the values of `reply`, its type names parsed once.
    pub fn of(reply: &'a pb::PrintReply) -> Layout<'a> {
        Layout::new(&reply.r#type, &reply.parts)
    }

    /// The layout of a value of type `ty` in `parts` (none: whole).
    pub fn new(ty: &str, parts: &'a [pb::ValuePart]) -> Layout<'a> {
        Layout {
            whole: GlslType::scalar_of(ty),
            parts: parts
                .iter()
                .map(|p| {
                    let s = GlslType::scalar_of(&p.r#type);
                    (p.path.as_str(), s, p.components as usize)
                })
                .collect(),
        }
    }

    /// The components of a value, each with its part's path (`None`: the
    /// value is not in parts) and kind; `values` holds the parts'
    /// components one after the other.
    fn split<'v>(&self, values: &'v [f64]) -> Vec<(Option<&'a str>, Scalar, &'v [f64])> {
        if self.parts.is_empty() {
            return vec![(None, self.whole, values)];
        }
        let mut rest = values;
        self.parts
            .iter()
            .map(|&(path, s, n)| {
                let (mine, tail) = rest.split_at(n.min(rest.len()));
                rest = tail;
                (Some(path), s, mine)
            })
            .collect()
    }

    /// The kind of each component of a value of `len` components.
    fn kinds(&self, len: usize) -> Vec<Scalar> {
        if self.parts.is_empty() {
            return vec![self.whole; len];
        }
        let mut kinds = Vec::new();
        for &(_, s, n) in &self.parts {
            kinds.extend(std::iter::repeat_n(s, n));
        }
        kinds
    }

    /// A value as text: `(1, 2)`, or a value in parts at their paths,
    /// `{[0] = (1, 2, 3), [1] = (4, 5, 6)}`, as gdb prints an aggregate.
    pub fn text(&self, values: &[f64]) -> String {
        let split = self.split(values);
        if let [(None, s, v)] = split.as_slice() {
            return components_text(v, *s);
        }
        let items: Vec<String> = split
            .into_iter()
            .map(|(p, s, v)| format!("{} = {}", p.unwrap_or(""), components_text(v, s)))
            .collect();
        format!("{{{}}}", items.join(", "))
    }

    /// A value as JSON: its components in one array.
    pub fn json(&self, values: &[f64]) -> Vec<Value> {
        self.split(values)
            .into_iter()
            .flat_map(|(_, s, v)| v.iter().map(move |&x| component_json(x, s)))
            .collect()
    }

    /// Components of a value; those in `undefined` (not written yet at this
    /// step) as `undefined`, never as a number.
    pub fn written_text(&self, values: &[f64], undefined: &[u32]) -> String {
        if undefined.is_empty() {
            return self.text(values);
        }
        if undefined.len() >= values.len() {
            return "not yet written at this step".into();
        }
        let kinds = self.kinds(values.len());
        let items: Vec<String> = values
            .iter()
            .enumerate()
            .map(|(i, &v)| match undefined.contains(&(i as u32)) {
                true => "undefined".into(),
                false => components_text(&[v], kinds.get(i).copied().unwrap_or(Scalar::Float)),
            })
            .collect();
        format!("({})", items.join(", "))
    }

    /// A reached invocation's value as JSON (CLI.md).
    pub fn written_json(&self, values: &[f64], undefined: &'a [u32]) -> Written<'a> {
        if !undefined.is_empty() && undefined.len() >= values.len() {
            return Written::Not { undefined: true };
        }
        let mut value = self.json(values);
        for &i in undefined {
            if let Some(x) = value.get_mut(i as usize) {
                *x = json!("undefined");
            }
        }
        Written::Value {
            value,
            undefined_components: (!undefined.is_empty()).then_some(undefined),
        }
    }
}

/// A reached invocation's value (CLI.md): not written at all,
/// `"undefined": true` and no `"value"`; partly, the components not written
/// as the string `"undefined"` in `"value"`, their indices in
/// `"undefined_components"`.
#[derive(Serialize)]
#[serde(untagged)]
pub enum Written<'a> {
    Not {
        undefined: bool,
    },
    Value {
        value: Vec<Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        undefined_components: Option<&'a [u32]>,
    },
}
