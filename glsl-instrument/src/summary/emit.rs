//! The GLSL the locals summary adds: its block, the probe's value (one
//! call of a helper with every summarised part), the helper that counts
//! the invocation and adds each component (two per-component helpers: a
//! key's min and max; a float's NaN, Inf or key), and where the text goes
//! in the debug shader (after `#version` and the `#extension` lines, so
//! before every function that calls it; every declaration has its
//! precision, as GLSL ES needs before the shader's `precision` lines).

use crate::parse::Names;
use crate::{BaseType, TracedVar};

/// Names of the summary's declarations.
pub(super) struct Emitter {
    pub block: String,
    /// The block's instance name (`None` before GLSL 1.50: its members
    /// then have fresh names).
    inst: Option<String>,
    /// `highp float sum(parts...)`: the probe's value.
    sum: String,
    /// `void key(uint k, uint c)`: min and max of component `c`.
    key: String,
    /// `void float(float v, uint c)`: NaN, Inf or the key of component `c`.
    float: String,
    /// Prefix of the helpers' parameters and locals.
    x: String,
    /// Member names, bare where there is an instance name.
    members: [String; 5],
}

/// Precision of what the summary declares (GLSL ES needs one everywhere;
/// desktop GL ignores it, so it is always written).
const P: &str = "highp ";

impl Emitter {
    /// `instance`: whether the block may have an instance name.
    pub fn new(names: &mut Names, instance: bool) -> Emitter {
        let block = names.fresh("gldbg_Summary");
        let inst = instance.then(|| names.fresh("gldbg_summary"));
        let members = ["hits", "records", "words", "full", "data"].map(|n| match inst {
            Some(_) => n.to_string(),
            None => names.fresh(&format!("gldbg_summary_{n}")),
        });
        Emitter {
            block,
            inst,
            sum: names.fresh("gldbg_sum"),
            key: names.fresh("gldbg_sum_key"),
            float: names.fresh("gldbg_sum_float"),
            x: names.fresh("gldbg_sum_x"),
            members,
        }
    }

    /// How the code names member `i` (0 hits ... 4 data).
    fn member(&self, i: usize) -> String {
        match &self.inst {
            Some(inst) => format!("{inst}.{}", self.members[i]),
            None => self.members[i].clone(),
        }
    }

    /// The probe expression: `sum(a, b.c, d[1], ...)`.
    pub fn call(&self, vars: &[TracedVar]) -> String {
        let args: Vec<String> = vars
            .iter()
            .flat_map(|v| v.parts.iter().map(move |p| format!("{}{}", v.name, p.path)))
            .collect();
        format!("{}({})", self.sum, args.join(", "))
    }

    /// The block and the helpers; `binding`: an explicit binding (GL ES).
    pub fn declarations(&self, vars: &[TracedVar], binding: Option<u32>) -> String {
        let layout = match binding {
            Some(n) => format!("std430, binding = {n}"),
            None => "std430".to_string(),
        };
        let m = &self.members;
        let inst = self
            .inst
            .as_ref()
            .map_or(String::new(), |i| format!(" {i}"));
        let (x, key, float, data) = (&self.x, &self.key, &self.float, self.member(4));
        let mut text = format!(
            "layout({layout}) buffer {} {{\n    {P}uint {};\n    {P}uint {};\n    {P}uint {};\n    \
             {P}uint {};\n    {P}uint {}[];\n}}{inst};\n",
            self.block, m[0], m[1], m[2], m[3], m[4]
        );
        text.push_str(&format!(
            "void {key}({P}uint {x}_k, {P}uint {x}_c) {{\n    \
             atomicMax({data}[4u * {x}_c], ~{x}_k);\n    \
             atomicMax({data}[4u * {x}_c + 1u], {x}_k);\n}}\n\
             void {float}({P}float {x}_v, {P}uint {x}_c) {{\n    \
             {P}uint {x}_b = floatBitsToUint({x}_v);\n    \
             if (({x}_b & 0x7FFFFFFFu) > 0x7F800000u) atomicAdd({data}[4u * {x}_c + 2u], 1u);\n    \
             else if (({x}_b & 0x7FFFFFFFu) == 0x7F800000u) atomicAdd({data}[4u * {x}_c + 3u], 1u);\n    \
             else {key}({x}_b ^ (({x}_b >> 31u) != 0u ? 0xFFFFFFFFu : 0x80000000u), {x}_c);\n}}\n"
        ));
        text.push_str(&self.sum_helper(vars));
        text
    }

    /// `highp float sum(T0 a0, ...)`: counts the invocation, adds every
    /// component, returns 1.0.
    fn sum_helper(&self, vars: &[TracedVar]) -> String {
        let x = &self.x;
        let mut params = Vec::new();
        let mut body = format!("    atomicAdd({}, 1u);\n", self.member(0));
        let parts = vars.iter().flat_map(|v| v.parts.iter());
        for (i, p) in parts.enumerate() {
            let prec = if p.ty.base == BaseType::Bool { "" } else { P };
            params.push(format!("{prec}{} {x}_a{i}", p.ty));
            for k in 0..p.ty.components {
                let comp = match p.ty.components {
                    1 => format!("{x}_a{i}"),
                    _ => format!("{x}_a{i}.{}", ['x', 'y', 'z', 'w'][usize::from(k)]),
                };
                let c = p.offset + u32::from(k);
                let line = match p.ty.base {
                    BaseType::Float => format!("{}({comp}, {c}u)", self.float),
                    BaseType::Int => format!("{}(uint({comp}) ^ 0x80000000u, {c}u)", self.key),
                    BaseType::Uint => format!("{}({comp}, {c}u)", self.key),
                    BaseType::Bool => format!("{}({comp} ? 1u : 0u, {c}u)", self.key),
                    // Left out by the caller.
                    BaseType::Double => continue,
                };
                body.push_str(&format!("    {line};\n"));
            }
        }
        format!(
            "{P}float {}({}) {{\n{body}    return 1.0;\n}}\n",
            self.sum,
            params.join(", ")
        )
    }
}

/// `source` with `extensions` (those not there yet) and `text` after its
/// `#version` line and the `#extension` lines that follow it.
pub(super) fn insert_after_head(source: &str, extensions: &[String], text: &str) -> String {
    let mut at = 0;
    for line in source.split_inclusive('\n') {
        let t = line.trim();
        if !(t.is_empty() || t.starts_with("#version") || t.starts_with("#extension")) {
            break;
        }
        at += line.len();
    }
    let mut out = source[..at].to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    for e in extensions {
        if !source.lines().any(|l| l.trim() == e) {
            out.push_str(e);
            out.push('\n');
        }
    }
    out.push_str(text);
    out.push_str(&source[at..]);
    out
}
