//! `dprintf`: before each execution of the chosen steps, every invocation
//! appends a message (step, its id, the arguments' words) to a storage
//! block (layout: [`crate::Dprintf`]).

use glsl_lang::ast;

use super::edit::{call, uint};
use super::{Plan, checked_expr, step_index};
use crate::parse::Names;
use crate::{BaseType, InstrumentError, ShaderModel, Stage, StepId, ValueType};

const SSBO: &str = "GL_ARB_shader_storage_buffer_object";

/// The plan (a print call before each step), the block's name and the
/// arguments' types.
pub(super) fn plan(
    m: &ShaderModel,
    steps: &[StepId],
    args: &[&str],
    names: &mut Names,
) -> Result<(Plan, String, Option<u32>, Vec<ValueType>), InstrumentError> {
    let ssbo_ext = !m.es && m.version >= 140 && m.version < 430;
    if !(m.es && m.version >= 310 || !m.es && m.version >= 140) {
        return Err(InstrumentError::Unsupported(format!(
            "dprintf needs storage blocks (GLSL 4.30, or 1.40 with {SSBO}, or GLSL ES 3.10); \
             this shader is {}",
            super::version_name(m)
        )));
    }
    if steps.is_empty() {
        return Err(InstrumentError::Unsupported(
            "dprintf needs at least one step".into(),
        ));
    }
    let mut types: Option<Vec<ValueType>> = None;
    let mut trees = Vec::new();
    let mut first_error = None;
    for &id in steps {
        let i = step_index(m, id)?;
        // Arguments not valid at this step of the line (a name not in
        // scope yet): the step is left out.
        let (list, here) = match args_at(m, id, args) {
            Ok(x) => x,
            Err(e) => {
                first_error.get_or_insert(e);
                continue;
            }
        };
        if let Some(old) = &types
            && let Some(k) = (0..args.len()).find(|&k| old[k] != here[k])
        {
            return Err(bad(
                args[k],
                "has a different type at another step of the line",
            ));
        }
        types = Some(here);
        trees.push((i, list));
    }
    let Some(types) = types else {
        return Err(first_error.unwrap_or_else(|| super::edit::internal("no step")));
    };
    let block = names.fresh("gldbg_dprintf");
    let inst = names.fresh("gldbg_dp");
    let print = names.fresh("gldbg_print");
    let n = m.model.steps.len();
    let mut plan = Plan {
        before: vec![None; n],
        after: vec![None; n],
        ..Default::default()
    };
    for (i, list) in trees {
        plan.before[i] = Some(call(&print, list));
    }
    if ssbo_ext {
        plan.extensions.push(format!("#extension {SSBO} : require"));
    }
    if !m.es && m.version < 330 {
        plan.extensions
            .push("#extension GL_ARB_shader_bit_encoding : require".into());
    }
    let binding = es_binding(m);
    plan.decls = declarations(m, &block, binding, &inst, &print, &types);
    Ok((plan, block, binding, types))
}

/// The print call's arguments at `step` (the step id first) and their types.
fn args_at(
    m: &ShaderModel,
    step: StepId,
    args: &[&str],
) -> Result<(Vec<ast::Expr>, Vec<ValueType>), InstrumentError> {
    let mut list = vec![uint(step.0)];
    let mut types = Vec::new();
    for text in args {
        let (e, ty) = checked_expr(m, step, text, true)?;
        types.push(arg_type(text, ty.as_deref())?);
        list.push(e);
    }
    Ok((list, types))
}

fn bad(text: &str, message: &str) -> InstrumentError {
    InstrumentError::BadExpression {
        expr: text.to_string(),
        message: message.to_string(),
    }
}

/// The value type of an argument: a scalar or vector (doubles: up to `dvec2`).
fn arg_type(text: &str, ty: Option<&str>) -> Result<ValueType, InstrumentError> {
    let Some(ty) = ty else {
        return Err(bad(text, "gldbg does not know its type"));
    };
    let (base, rest) = match ty {
        "float" | "int" | "uint" | "bool" | "double" => (ty, "1"),
        _ => {
            let digits = ty.trim_start_matches(|c: char| !c.is_ascii_digit());
            (&ty[..ty.len() - digits.len()], digits)
        }
    };
    let base = match base {
        "float" | "vec" => BaseType::Float,
        "int" | "ivec" => BaseType::Int,
        "uint" | "uvec" => BaseType::Uint,
        "bool" | "bvec" => BaseType::Bool,
        "double" | "dvec" => BaseType::Double,
        _ => return Err(bad(text, &format!("is a {ty}, not a scalar or vector"))),
    };
    let components: u8 = rest.parse().unwrap_or(0);
    let max = if base == BaseType::Double { 2 } else { 4 };
    if !(1..=max).contains(&components) {
        return Err(bad(text, &format!("is a {ty}, not a scalar or vector")));
    }
    Ok(ValueType { base, components })
}

/// The invocation's id as three `uint` words (see [`crate::Dprintf`]).
fn invocation_id(m: &ShaderModel) -> [String; 3] {
    let s = |x: &str| x.to_string();
    match m.stage {
        Stage::Fragment => [
            s("uint(int(gl_FragCoord.x))"),
            s("uint(int(gl_FragCoord.y))"),
            s("0u"),
        ],
        Stage::Vertex => [s("uint(gl_VertexID)"), s("uint(gl_InstanceID)"), s("0u")],
        Stage::Compute => ["x", "y", "z"].map(|c| format!("gl_GlobalInvocationID.{c}")),
        Stage::TessControl => [
            s("uint(gl_PrimitiveID)"),
            s("uint(gl_InvocationID)"),
            s("0u"),
        ],
        Stage::TessEval => [
            s("uint(gl_PrimitiveID)"),
            s("floatBitsToUint(gl_TessCoord.x)"),
            s("floatBitsToUint(gl_TessCoord.y)"),
        ],
        Stage::Geometry => {
            let inv = match m.es || m.version >= 400 {
                true => "uint(gl_InvocationID)",
                false => "0u",
            };
            [s("uint(gl_PrimitiveIDIn)"), s(inv), s("0u")]
        }
    }
}

/// The words of argument `a` of type `t`.
fn arg_words(a: &str, t: ValueType) -> Vec<String> {
    let comps: Vec<String> = match t.components {
        1 => vec![a.to_string()],
        n => ["x", "y", "z", "w"][..n as usize]
            .iter()
            .map(|c| format!("{a}.{c}"))
            .collect(),
    };
    comps
        .into_iter()
        .flat_map(|c| match t.base {
            BaseType::Float => vec![format!("floatBitsToUint({c})")],
            BaseType::Int => vec![format!("uint({c})")],
            BaseType::Uint => vec![c],
            BaseType::Bool => vec![format!("({c} ? 1u : 0u)")],
            BaseType::Double => vec![
                format!("unpackDouble2x32({c}).x"),
                format!("unpackDouble2x32({c}).y"),
            ],
        })
        .collect()
}

/// GLSL ES cannot rebind a block (no `glShaderStorageBlockBinding`): the
/// block takes the binding after the shader's buffers (the end-of-`main`
/// probe's own, in compute and tess-control, come after it). Desktop GL:
/// none, the executor binds it by name.
fn es_binding(m: &ShaderModel) -> Option<u32> {
    m.es.then(|| crate::instrument::binding_after_buffers(&m.tu.0))
}

/// The block and the print function.
fn declarations(
    m: &ShaderModel,
    block: &str,
    binding: Option<u32>,
    inst: &str,
    print: &str,
    types: &[ValueType],
) -> String {
    let p = "highp ";
    let mut params = format!("{p}uint gldbg_s");
    let mut words = vec!["gldbg_s".to_string()];
    words.extend(invocation_id(m));
    for (k, t) in types.iter().enumerate() {
        let prec =
            if t.base == BaseType::Float || t.base == BaseType::Int || t.base == BaseType::Uint {
                p
            } else {
                ""
            };
        params.push_str(&format!(", {prec}{t} gldbg_a{k}"));
        words.extend(arg_words(&format!("gldbg_a{k}"), *t));
    }
    let len = words.len();
    let layout = match binding {
        Some(b) => format!("std430, binding = {b}"),
        None => "std430".to_string(),
    };
    let mut writes = String::new();
    for (k, w) in words.iter().enumerate() {
        writes.push_str(&format!("        {inst}.data[gldbg_at + {k}u] = {w};\n"));
    }
    format!(
        "layout({layout}) buffer {block} {{\n    {p}uint hits;\n    {p}uint records;\n    \
         {p}uint words;\n    {p}uint full;\n    {p}uint data[];\n}} {inst};\n\
         void {print}({params}) {{\n    \
         {p}uint gldbg_slot = atomicAdd({inst}.records, 1u);\n    \
         if (gldbg_slot < uint({inst}.data.length()) / {len}u) {{\n        \
         {p}uint gldbg_at = gldbg_slot * {len}u;\n{writes}        \
         atomicAdd({inst}.words, {len}u);\n    }} else {{\n        {inst}.full = 1u;\n    }}\n}}\n"
    )
}
