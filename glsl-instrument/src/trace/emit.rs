//! The GLSL the trace adds: the trace block and the `on` flag, a function
//! that reserves a record's words (counting it, honouring `start`,
//! `max_records` and the block's capacity), and one store helper per list
//! of part types: `bool gldbg_rec(uint id, T0 a0, T1 a1, ...)` writes its
//! arguments' components as words and returns `true`, so a record is one
//! call, a statement or an operand of `&&`.

use std::collections::HashMap;

use super::TraceSpec;
use super::TracedVar;
use crate::parse::Names;
use crate::{BaseType, ValueType};

/// Names and text of the trace's declarations.
pub(super) struct Emitter {
    pub block: String,
    /// The block's instance name (`None` before GLSL 1.50, which has
    /// none: its members then have fresh names).
    inst: Option<String>,
    /// The global `bool` set for the traced invocation.
    pub on: String,
    reserve: String,
    /// Prefix of the helpers' parameters and locals (no macro of the app
    /// can rename them).
    x: String,
    precision: String,
    /// Helper name by list of part types.
    helpers: HashMap<Vec<String>, String>,
    /// Helper definitions, in creation order.
    text: String,
}

impl Emitter {
    /// `instance`: whether the block may have an instance name.
    pub fn new(names: &mut Names, precision: &str, instance: bool) -> Emitter {
        Emitter {
            block: names.fresh("gldbg_Trace"),
            inst: instance.then(|| names.fresh("gldbg_trace")),
            on: names.fresh("gldbg_on"),
            reserve: names.fresh("gldbg_reserve"),
            x: names.fresh("gldbg_x"),
            precision: precision.to_string(),
            helpers: HashMap::new(),
            text: String::new(),
        }
    }

    /// The call writing record `id` with `vars`' values: `helper(IDu, a, b.c, ...)`.
    pub fn call(&mut self, names: &mut Names, id: u32, vars: &[TracedVar]) -> String {
        let mut args = vec![format!("{id}u")];
        let mut types = Vec::new();
        for v in vars {
            for p in &v.parts {
                args.push(format!("{}{}", v.name, p.path));
                types.push(p.ty);
            }
        }
        let key: Vec<String> = types.iter().map(|t| t.to_string()).collect();
        let name = match self.helpers.get(&key) {
            Some(n) => n.clone(),
            None => {
                let n = names.fresh("gldbg_rec");
                self.text.push_str(&self.helper(&n, &types));
                self.helpers.insert(key, n.clone());
                n
            }
        };
        format!("{name}({})", args.join(", "))
    }

    fn helper(&self, name: &str, types: &[ValueType]) -> String {
        let (p, x) = (&self.precision, &self.x);
        let mut params = vec![format!("{p}uint {x}_id")];
        let mut body = String::new();
        let mut k = 0u32;
        for (i, ty) in types.iter().enumerate() {
            let prec = if ty.base == BaseType::Bool { "" } else { p };
            params.push(format!("{prec}{ty} {x}_a{i}"));
            for c in 0..ty.components {
                let comp = match ty.components {
                    1 => format!("{x}_a{i}"),
                    _ => format!("{x}_a{i}.{}", ['x', 'y', 'z', 'w'][c as usize]),
                };
                let words = match ty.base {
                    BaseType::Float => vec![format!("floatBitsToUint({comp})")],
                    BaseType::Int => vec![format!("uint({comp})")],
                    BaseType::Uint => vec![comp],
                    BaseType::Bool => vec![format!("({comp} ? 1u : 0u)")],
                    BaseType::Double => vec![
                        format!("unpackDouble2x32({comp}).x"),
                        format!("unpackDouble2x32({comp}).y"),
                    ],
                };
                for w in words {
                    body.push_str(&format!(
                        "        {}[{x}_w + {k}u] = {w};\n",
                        self.member("data")
                    ));
                    k += 1;
                }
            }
        }
        format!(
            "bool {name}({}) {{\n    {p}uint {x}_w = {}({x}_id, {k}u);\n    if ({x}_w != 0xFFFFFFFFu) {{\n{body}    }}\n    return true;\n}}\n",
            params.join(", "),
            self.reserve
        )
    }

    /// How the code names the block's member `name`.
    fn member(&self, name: &str) -> String {
        match &self.inst {
            Some(i) => format!("{i}.{name}"),
            None => format!("{}_{name}", self.x),
        }
    }

    /// The block, the flag, the reserve function and the helpers.
    /// `binding`: an explicit binding (GLSL ES, which cannot rebind).
    pub fn declarations(&self, spec: &TraceSpec<'_>, binding: Option<u32>) -> String {
        let p = &self.precision;
        let (b, on, r) = (&self.block, &self.on, &self.reserve);
        let [records, words, full, data] =
            ["records", "words", "full", "data"].map(|n| self.member(n));
        // The declared member names (bare where there is an instance name).
        let [dh, dr, dw, df, dd] =
            ["hits", "records", "words", "full", "data"].map(|n| match &self.inst {
                Some(_) => n.to_string(),
                None => self.member(n),
            });
        let inst = self
            .inst
            .as_ref()
            .map_or(String::new(), |i| format!(" {i}"));
        let (id, len, k, w) = (
            format!("{}_id", self.x),
            format!("{}_len", self.x),
            format!("{}_k", self.x),
            format!("{}_w", self.x),
        );
        let layout = match binding {
            Some(n) => format!("std430, binding = {n}"),
            None => "std430".to_string(),
        };
        let (start, max) = (spec.start, spec.max_records);
        format!(
            "layout({layout}) buffer {b} {{\n    {p}uint {dh};\n    {p}uint {dr};\n    {p}uint {dw};\n    \
             {p}uint {df};\n    {p}uint {dd}[];\n}}{inst};\n\
             bool {on} = false;\n\
             {p}uint {r}({p}uint {id}, {p}uint {len}) {{\n    \
             {p}uint {k} = {records};\n    {records} = {k} + 1u;\n    \
             if ({k} < {start}u || {full} != 0u) return 0xFFFFFFFFu;\n    \
             {p}uint {w} = {words};\n    \
             if ({k} - {start}u >= {max}u || uint({data}.length()) - {w} < {len} + 2u) {{\n        \
             {full} = 1u;\n        return 0xFFFFFFFFu;\n    }}\n    \
             {data}[{w}] = {id};\n    {data}[{w} + 1u] = {len};\n    {words} = {w} + 2u + {len};\n    \
             return {w} + 2u;\n}}\n{}",
            self.text
        )
    }

    /// The claim, first thing in `main`: `if (FOCUS) { on = atomicAdd(hits, 1u) == 0u; }`.
    pub fn claim(&self) -> String {
        format!("{} = atomicAdd({}, 1u) == 0u", self.on, self.member("hits"))
    }
}
