//! The fragment stage's debug outputs: named outputs after the app's
//! (from GLSL 1.30 or ES 3.00, or older GLSL with user outputs), else
//! `gl_FragData[k]`, `gl_FragData[k+1]` (ES 2 contexts: RGBA8 bytes of
//! each component); the app's `gl_FragColor`/`gl_FragData` renamed where
//! they cannot coexist with new outputs.

use glsl_lang::ast;

use super::qualifiers::{has_storage, location};
use super::{Globals, StageOutputs};
use crate::instrument::build::{index, int, var};
use crate::instrument::siblings;
use crate::parse::Names;
use crate::steps::walk_stmt_exprs;
use crate::{OutputSlot, ShaderModel};

/// Give an `out` declaration an explicit `layout(location = loc)`.
fn add_location(d: &mut ast::ExternalDeclaration, loc: i32) {
    if let ast::ExternalDeclarationData::Declaration(decl) = &mut d.content
        && let ast::DeclarationData::InitDeclaratorList(list) = &mut decl.content
    {
        let spec: ast::TypeQualifierSpec = ast::TypeQualifierSpecData::Layout(
            ast::LayoutQualifierData {
                ids: vec![
                    ast::LayoutQualifierSpecData::Identifier(
                        ast::IdentifierData::from("location").into(),
                        Some(Box::new(int(loc))),
                    )
                    .into(),
                ],
            }
            .into(),
        )
        .into();
        match &mut list.head.ty.qualifier {
            Some(q) => q.qualifiers.insert(0, spec),
            None => {
                list.head.ty.qualifier = Some(
                    ast::TypeQualifierData {
                        qualifiers: vec![spec],
                    }
                    .into(),
                )
            }
        }
    }
}

/// A dual-source blending output (`layout(location = L, index = 1) out`)
/// loses its `location` and `index`: the debug program adds outputs of its
/// own, and with a second source a driver may allow only one colour output
/// (NVIDIA: "too many color outputs when using dual source output"). The
/// output still takes its values; the preload binds it to a free location
/// of its own (as it does an index-1 output the app bound with
/// `glBindFragDataLocationIndexed`).
fn unpair_second_source(d: &mut ast::ExternalDeclaration) {
    let ast::ExternalDeclarationData::Declaration(decl) = &mut d.content else {
        return;
    };
    let ast::DeclarationData::InitDeclaratorList(list) = &mut decl.content else {
        return;
    };
    if !has_storage(&list.head.ty.qualifier, &ast::StorageQualifierData::Out) {
        return;
    }
    let Some(q) = list.head.ty.qualifier.as_mut() else {
        return;
    };
    let is_id = |id: &ast::LayoutQualifierSpec, want: &str| matches!(&id.content, ast::LayoutQualifierSpecData::Identifier(n, _) if n.as_str() == want);
    let second = q.qualifiers.iter().any(|spec| match &spec.content {
        ast::TypeQualifierSpecData::Layout(l) => l.ids.iter().any(|id| match &id.content {
            ast::LayoutQualifierSpecData::Identifier(n, Some(e)) if n.as_str() == "index" => {
                !matches!(
                    e.content,
                    ast::ExprData::IntConst(0) | ast::ExprData::UIntConst(0)
                )
            }
            _ => false,
        }),
        _ => false,
    });
    if !second {
        return;
    }
    for spec in &mut q.qualifiers {
        if let ast::TypeQualifierSpecData::Layout(l) = &mut spec.content {
            l.ids
                .retain(|id| !is_id(id, "index") && !is_id(id, "location"));
        }
    }
    q.qualifiers.retain(
        |spec| !matches!(&spec.content, ast::TypeQualifierSpecData::Layout(l) if l.ids.is_empty()),
    );
}

/// What the shader and its siblings do with `gl_FragColor`/`gl_FragData`.
struct BuiltinUses {
    frag_color: bool,
    /// Elements of `gl_FragData` to declare where it is renamed.
    frag_data_len: i32,
}

impl BuiltinUses {
    /// A `gl_FragData` indexed by anything but constants takes 4 elements.
    const DYNAMIC_FRAG_DATA_LEN: i32 = 4;

    fn scan(m: &ShaderModel, decls: &mut [ast::ExternalDeclaration]) -> BuiltinUses {
        let mut uses_frag_color = false;
        let mut frag_data_max: Option<i32> = None;
        let mut frag_data_refs = 0usize;
        let mut frag_data_const = 0usize;
        for d in decls.iter_mut() {
            if let ast::ExternalDeclarationData::FunctionDefinition(def) = &mut d.content {
                for s in &mut def.statement.statement_list {
                    walk_stmt_exprs(s, &mut |e| match &e.content {
                        ast::ExprData::Variable(v) if v.as_str() == "gl_FragColor" => {
                            uses_frag_color = true
                        }
                        ast::ExprData::Variable(v) if v.as_str() == "gl_FragData" => {
                            frag_data_refs += 1
                        }
                        ast::ExprData::Bracket(a, i) => {
                            if let (ast::ExprData::Variable(v), ast::ExprData::IntConst(k)) =
                                (&a.content, &i.content)
                                && v.as_str() == "gl_FragData"
                            {
                                frag_data_const += 1;
                                frag_data_max = Some(frag_data_max.map_or(*k, |m| m.max(*k)));
                            }
                        }
                        _ => {}
                    });
                }
            }
        }
        // What the program's other fragment shader objects write counts too.
        let (sibling_color, sibling_data_len) = siblings::builtin_uses(&m.siblings);
        let dynamic = if frag_data_refs > frag_data_const {
            Self::DYNAMIC_FRAG_DATA_LEN
        } else {
            0
        };
        BuiltinUses {
            frag_color: uses_frag_color || sibling_color,
            frag_data_len: frag_data_max
                .map_or(0, |k| k + 1)
                .max(dynamic)
                .max(sibling_data_len),
        }
    }
}

/// The app's own `out` declarations.
struct AppOutputs {
    names: Vec<String>,
    /// Highest location taken (-1: none).
    max_location: i32,
    /// Declarations without a location.
    unlocated: Vec<usize>,
    /// EXT_gpu_shader4's `varying out`.
    varying_out: bool,
}

impl AppOutputs {
    fn scan(decls: &[ast::ExternalDeclaration]) -> AppOutputs {
        let mut o = AppOutputs {
            names: Vec::new(),
            max_location: -1,
            unlocated: Vec::new(),
            varying_out: false,
        };
        for (i, d) in decls.iter().enumerate() {
            if let ast::ExternalDeclarationData::Declaration(decl) = &d.content
                && let ast::DeclarationData::InitDeclaratorList(list) = &decl.content
                && has_storage(&list.head.ty.qualifier, &ast::StorageQualifierData::Out)
            {
                let names_here: Vec<String> = list
                    .head
                    .name
                    .iter()
                    .map(|n| n.0.to_string())
                    .chain(list.tail.iter().map(|t| t.ident.ident.0.to_string()))
                    .collect();
                if names_here.is_empty() {
                    continue;
                }
                match location(&list.head.ty.qualifier) {
                    Some(l) => o.max_location = o.max_location.max(l + names_here.len() as i32 - 1),
                    None => o.unlocated.push(i),
                }
                o.varying_out |=
                    has_storage(&list.head.ty.qualifier, &ast::StorageQualifierData::Varying);
                o.names.extend(names_here);
            }
        }
        o
    }
}

/// The names `gl_FragColor`/`gl_FragData` become, and the debug outputs'.
struct FragNames {
    frag_color: String,
    frag_data: String,
    value: String,
    coverage: String,
}

/// fragment: GLSL >= 1.30 (ES >= 3.00), or older GLSL with user outputs:
/// two named outputs (ES: explicit locations after the app's), with
/// `gl_FragColor`/`gl_FragData` rewritten to named outputs listed in
/// `app_outputs`; older GLSL: `gl_FragData[k]`, `gl_FragData[k+1]` with
/// `gl_FragColor` rewritten to `gl_FragData[0]`.
pub(crate) fn fragment(
    m: &ShaderModel,
    decls: &mut [ast::ExternalDeclaration],
    names: &mut Names,
    g: &Globals<'_>,
) -> StageOutputs {
    let (version, es) = (m.version, m.es);
    let modern = if es { version >= 300 } else { version >= 130 };
    if !es {
        for d in decls.iter_mut() {
            unpair_second_source(d);
        }
    }
    let uses = BuiltinUses::scan(m, decls);
    let mut app = AppOutputs::scan(decls);
    let fresh = FragNames {
        frag_color: names.fresh("gldbg_FragColor"),
        frag_data: names.fresh("gldbg_FragData"),
        value: names.fresh("gldbg_value"),
        coverage: names.fresh("gldbg_coverage"),
    };
    let mut out = StageOutputs::default();
    // A shader whose source references neither gl_FragColor nor gl_FragData
    // (a probe expression may) may be
    // linked with one that writes either: gl_FragData[k] would clash with a
    // gl_FragColor there, so the debug outputs are EXT_gpu_shader4's named
    // `varying out`s.
    let foreign = !modern
        && !es
        && app.names.is_empty()
        && !m.idents.contains("gl_FragColor")
        && !m.idents.contains("gl_FragData");
    let mut renaming = siblings::Renaming::default();
    // Before GLSL 1.30, user outputs (EXT_gpu_shader4's `varying out`, or
    // `out` with GL_ARB_explicit_attrib_location) cannot be mixed with
    // gl_FragData either: the debug outputs are declared like them.
    let legacy_named = !modern && (!app.names.is_empty() || foreign);
    let named = modern || legacy_named;
    if foreign && !m.extensions.iter().any(|x| x == "GL_EXT_gpu_shader4") {
        out.extensions
            .push("#extension GL_EXT_gpu_shader4 : require".into());
    }
    let out_kw = if legacy_named && (app.varying_out || foreign) {
        "varying out"
    } else {
        "out"
    };
    if named {
        named_outputs(
            m,
            decls,
            &uses,
            &mut app,
            &fresh,
            foreign,
            out_kw,
            g,
            &mut out,
            &mut renaming,
        );
    } else {
        frag_data_outputs(m, &uses, names, g, &mut out, &mut renaming);
    }
    rename_builtins(decls, named, &fresh);
    out.app_outputs = app.names;
    out.siblings = Some(
        m.siblings
            .iter()
            .map(|s| siblings::rewrite(s, &renaming))
            .collect(),
    );
    out
}

/// Two named debug outputs after the app's, and the built-in outputs the
/// app uses declared under their new names.
#[allow(clippy::too_many_arguments)]
fn named_outputs(
    m: &ShaderModel,
    decls: &mut [ast::ExternalDeclaration],
    uses: &BuiltinUses,
    app: &mut AppOutputs,
    fresh: &FragNames,
    foreign: bool,
    out_kw: &str,
    g: &Globals<'_>,
    out: &mut StageOutputs,
    renaming: &mut siblings::Renaming,
) {
    let es = m.es;
    // With the app's own named outputs the app cannot use gl_FragColor /
    // gl_FragData: a reference comes from the probe expression, and reads a
    // private global (not an output that would take a location first).
    // The same where the app references neither (`foreign`).
    let builtin_private = !app.names.is_empty() || foreign;
    // ES 3 needs explicit locations once there is more than one output.
    let layout = |loc: i32| {
        if es {
            format!("layout(location = {loc}) ")
        } else {
            String::new()
        }
    };
    if es && app.unlocated.len() == 1 && app.max_location < 0 {
        add_location(&mut decls[app.unlocated[0]], 0);
        app.max_location = 0;
    }
    let builtin_kw = if builtin_private {
        String::new()
    } else {
        format!("{out_kw} ")
    };
    if uses.frag_color && !es {
        let decl = format!("{builtin_kw}vec4 {};\n", fresh.frag_color);
        out.decls.push_str(&decl);
        renaming.decls.push_str(&decl);
        renaming.frag_color = Some(fresh.frag_color.clone());
        if !builtin_private {
            app.names.push(fresh.frag_color.clone());
        }
    }
    if uses.frag_data_len > 0 && !es {
        let decl = format!(
            "{builtin_kw}vec4 {}[{}];\n",
            fresh.frag_data, uses.frag_data_len
        );
        out.decls.push_str(&decl);
        renaming.decls.push_str(&decl);
        renaming.frag_data = Some(fresh.frag_data.clone());
        if !builtin_private {
            app.names.push(fresh.frag_data.clone());
        }
    }
    let p = if es { "highp " } else { "" };
    let (out_value, out_coverage) = (&fresh.value, &fresh.coverage);
    out.decls.push_str(&format!(
        "{}{out_kw} {p}vec4 {out_value};\n",
        layout(app.max_location + 1)
    ));
    out.decls.push_str(&format!(
        "{}{out_kw} {p}float {out_coverage};\n",
        layout(app.max_location + 2)
    ));
    out.main_end = format!(
        "    {out_value} = {};\n    {out_coverage} = {};\n",
        g.value, g.coverage
    );
    out.value = Some(OutputSlot::Named(out_value.clone()));
    out.coverage = Some(OutputSlot::Named(out_coverage.clone()));
}

/// 1/255: a byte as an RGBA8 output component (the coverage code in red,
/// the packed value bytes).
const BYTE_SCALE: &str = "0.003921569";

/// `gl_FragData[k]` and `gl_FragData[k+1]` after the elements the app uses
/// (ES 2 contexts: each value component's bytes in `gl_FragData[k..k+4]`).
fn frag_data_outputs(
    m: &ShaderModel,
    uses: &BuiltinUses,
    names: &mut Names,
    g: &Globals<'_>,
    out: &mut StageOutputs,
    renaming: &mut siblings::Renaming,
) {
    let es = m.es;
    renaming.frag_color = Some("gl_FragData[0]".into());
    let k = uses
        .frag_data_len
        .max(if uses.frag_color { 1 } else { 0 })
        .max(1);
    out.value = Some(OutputSlot::FragData(k as u32));
    if es && m.api == crate::Api::Es2 {
        // No float render target: each component's bits in RGBA8.
        let pack = names.fresh("gldbg_pack");
        out.functions.push_str(&pack_function(&pack, g.precision));
        out.coverage = Some(OutputSlot::FragData(k as u32 + 4));
        for (i, c) in ["x", "y", "z", "w"].iter().enumerate() {
            out.main_end.push_str(&format!(
                "    gl_FragData[{}] = {pack}({}.{c});\n",
                k as usize + i,
                g.value
            ));
        }
        out.main_end.push_str(&format!(
            "    gl_FragData[{}] = vec4({} * {BYTE_SCALE}, 0.0, 0.0, 1.0);\n",
            k + 4,
            g.coverage
        ));
    } else {
        out.coverage = Some(OutputSlot::FragData(k as u32 + 1));
        out.main_end = format!(
            "    gl_FragData[{k}] = {};\n    gl_FragData[{}] = vec4({}, 0.0, 0.0, 1.0);\n",
            g.value,
            k + 1,
            g.coverage
        );
    }
    if es && !m.extensions.iter().any(|x| x == "GL_EXT_draw_buffers") {
        out.extensions
            .push("#extension GL_EXT_draw_buffers : enable".into());
    }
}

/// gl_FragColor / gl_FragData cannot be mixed with the new outputs: the
/// app's uses renamed (named outputs) or moved to `gl_FragData[0]`.
fn rename_builtins(decls: &mut [ast::ExternalDeclaration], named: bool, fresh: &FragNames) {
    for d in decls.iter_mut() {
        if let ast::ExternalDeclarationData::FunctionDefinition(def) = &mut d.content {
            for s in &mut def.statement.statement_list {
                walk_stmt_exprs(s, &mut |e| {
                    let ast::ExprData::Variable(v) = &e.content else {
                        return;
                    };
                    match (v.as_str(), named) {
                        ("gl_FragColor", true) => *e = var(&fresh.frag_color),
                        ("gl_FragColor", false) => *e = index(var("gl_FragData"), 0),
                        ("gl_FragData", true) => *e = var(&fresh.frag_data),
                        _ => {}
                    }
                });
            }
        }
    }
}

/// `{p}vec4 NAME({p}float NAME_x)`: the IEEE-754 single-precision bits of `x` as
/// four bytes over 255 (red: the least significant), for an RGBA8 output
/// (GLSL ES 1.00: no `floatBitsToUint`). Exact where the shader computes
/// in 32-bit floats: only power-of-two scalings, `floor` and integers
/// below 2^24; `log2` only guesses the exponent, corrected by comparison.
/// Locals are named after the function: the app's macros stay out.
fn pack_function(name: &str, p: &str) -> String {
    format!(
        "{p}vec4 {name}({p}float {name}_x) {{
    {p}float {name}_s = ({name}_x < 0.0 || ({name}_x == 0.0 && 1.0 / {name}_x < 0.0)) ? 128.0 : 0.0;
    {p}float {name}_a = abs({name}_x);
    {p}float {name}_e = 0.0;
    {p}float {name}_m = 0.0;
    if (!({name}_x == {name}_x)) {{
        {name}_e = 255.0;
        {name}_m = 4194304.0;
    }} else if ({name}_a > 3.4028234e38) {{
        {name}_e = 255.0;
    }} else if ({name}_a >= 1.1754944e-38) {{
        {name}_e = clamp(floor(log2({name}_a)), -126.0, 127.0);
        if ({name}_a * exp2(-{name}_e) < 1.0) {{ {name}_e -= 1.0; }}
        if ({name}_a * exp2(-{name}_e) >= 2.0) {{ {name}_e += 1.0; }}
        {name}_m = ({name}_a * exp2(-{name}_e) - 1.0) * 8388608.0;
        {name}_e += 127.0;
    }} else {{
        {name}_m = {name}_a * 8.507059e37 * 8388608.0;
    }}
    {name}_m = floor({name}_m + 0.5);
    {p}float {name}_m1 = floor({name}_m * 0.00390625);
    {p}float {name}_b0 = {name}_m - {name}_m1 * 256.0;
    {p}float {name}_m2 = floor({name}_m1 * 0.00390625);
    {p}float {name}_b1 = {name}_m1 - {name}_m2 * 256.0;
    {p}float {name}_eh = floor({name}_e * 0.5);
    {p}float {name}_b2 = {name}_m2 + ({name}_e - {name}_eh * 2.0) * 128.0;
    {p}float {name}_b3 = {name}_s + {name}_eh;
    return vec4({name}_b0, {name}_b1, {name}_b2, {name}_b3) * {BYTE_SCALE};
}}
"
    )
}
