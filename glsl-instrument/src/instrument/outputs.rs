//! Where the debug value leaves the shader, per stage (DESIGN.md §7: "an
//! extra fragment output, a captured varying, or a buffer write").
//!
//! Each function declares the stage's debug outputs and says how the debug
//! globals (`value`, `coverage`) are handed out to them. The app's own
//! outputs are never touched, except the fragment built-ins
//! `gl_FragColor`/`gl_FragData`, which cannot coexist with new outputs.
//!
//! * fragment: two outputs, copied at the end of the wrapping `main`;
//! * vertex, tess-eval: two `out` varyings, copied at the end of the
//!   wrapping `main` (every vertex has them, 0 when not reached);
//! * geometry: three `out` varyings (value, coverage, emit index) copied
//!   before every `EmitVertex()`/`EmitStreamVertex()`;
//! * tess-control: two per-vertex output arrays written at
//!   `[gl_InvocationID]`, at the start of `main` (zero) and at the probe
//!   (`main` is not wrapped: `barrier()` is only allowed in `main`);
//! * compute: two storage blocks at bindings the shader does not use,
//!   written at the start of `main` (zero) and at the probe.

use glsl_lang::ast;

use super::{call, comma, index, int, var};
use crate::parse::Names;
use crate::steps::walk_stmt_exprs;
use crate::{InstrumentError, OutputSlot, ShaderModel};

/// The debug globals the probe writes, and how to declare things.
pub(super) struct Globals<'a> {
    /// `vec4` global holding the value.
    pub value: &'a str,
    /// `float` global holding the coverage (type code).
    pub coverage: &'a str,
    /// Precision prefix for ES ("highp " or a macro), empty on desktop.
    pub precision: &'a str,
    /// Name of the flush function (stages that do not wrap `main`):
    /// `float flush(float code)` hands the value and `code` out and returns `code`.
    pub flush: Option<&'a str>,
}

/// What a stage adds to the shader for its outputs.
#[derive(Default)]
pub(super) struct StageOutputs {
    pub value: Option<OutputSlot>,
    pub coverage: Option<OutputSlot>,
    pub emit_index: Option<OutputSlot>,
    pub app_outputs: Vec<String>,
    /// `#extension` lines the outputs need.
    pub extensions: Vec<String>,
    /// Declarations before the debug helpers.
    pub decls: String,
    /// Functions after the debug helpers (before the app's functions).
    pub functions: String,
    /// Statements at the start of the new `main` (wrapping stages).
    pub main_start: String,
    /// Statements at the end of the new `main` (wrapping stages).
    pub main_end: String,
    /// Text appended after everything (the flush function's definition).
    pub tail: String,
}

/// `kw` for an output variable by GLSL version: `varying` before 1.30 and in ES 1.00.
fn varying_keyword(m: &ShaderModel) -> &'static str {
    let modern = if m.es {
        m.version >= 300
    } else {
        m.version >= 130
    };
    if modern { "out" } else { "varying" }
}

/// vertex, tess-eval: `out vec4 value; out float coverage;`, copied at the end.
pub(super) fn varyings(m: &ShaderModel, names: &mut Names, g: &Globals<'_>) -> StageOutputs {
    let out_value = names.fresh("gldbg_value");
    let out_coverage = names.fresh("gldbg_coverage");
    let (kw, p) = (varying_keyword(m), g.precision);
    StageOutputs {
        decls: format!("{kw} {p}vec4 {out_value};\n{kw} {p}float {out_coverage};\n"),
        main_end: format!(
            "    {out_value} = {};\n    {out_coverage} = {};\n",
            g.value, g.coverage
        ),
        value: Some(OutputSlot::Varying(out_value)),
        coverage: Some(OutputSlot::Varying(out_coverage)),
        ..StageOutputs::default()
    }
}

/// geometry: value, coverage and emit index varyings, handed out by a
/// function called right before each `EmitVertex()`/`EmitStreamVertex(n)`
/// of every function (`EmitVertex()` becomes `(put(), EmitVertex())`).
pub(super) fn geometry(
    m: &ShaderModel,
    decls: &mut [ast::ExternalDeclaration],
    names: &mut Names,
    g: &Globals<'_>,
) -> StageOutputs {
    let out_value = names.fresh("gldbg_value");
    let out_coverage = names.fresh("gldbg_coverage");
    let out_emit = names.fresh("gldbg_emit_index");
    let counter = names.fresh("gldbg_emitted");
    let put = names.fresh("gldbg_put");
    let (kw, p) = (varying_keyword(m), g.precision);
    // A global `layout(stream = k) out;` changes the stream of later
    // outputs: ours are captured from stream 0.
    let has_ext = |e: &str| m.extensions.iter().any(|x| x == e);
    let streams = m.idents.contains("stream")
        && ((!m.es && m.version >= 400) || has_ext("GL_ARB_gpu_shader5"));
    let layout = if streams { "layout(stream = 0) " } else { "" };
    for d in decls.iter_mut() {
        if let ast::ExternalDeclarationData::FunctionDefinition(def) = &mut d.content {
            for s in &mut def.statement.statement_list {
                walk_stmt_exprs(s, &mut |e| {
                    if let ast::ExprData::FunCall(id, _) = &e.content
                        && id.as_ident().is_some_and(|n| {
                            matches!(n.as_str(), "EmitVertex" | "EmitStreamVertex")
                        })
                    {
                        let old = std::mem::replace(e, int(0));
                        *e = comma(call(&put, vec![]), old);
                    }
                });
            }
        }
    }
    StageOutputs {
        decls: format!(
            "{layout}{kw} {p}vec4 {out_value};\n{layout}{kw} {p}float {out_coverage};\n{layout}{kw} {p}float {out_emit};\n{p}int {counter};\n"
        ),
        functions: format!(
            "void {put}() {{\n    {out_value} = {v};\n    {out_coverage} = {c};\n    {out_emit} = float({counter});\n    {counter}++;\n}}\n",
            v = g.value,
            c = g.coverage
        ),
        main_start: format!("    {counter} = 0;\n"),
        value: Some(OutputSlot::Varying(out_value)),
        coverage: Some(OutputSlot::Varying(out_coverage)),
        emit_index: Some(OutputSlot::Varying(out_emit)),
        ..StageOutputs::default()
    }
}

/// The flush function's definition: `float flush(float code) { body return code; }`
/// (`code`: the parameter's name, also used by `body`).
fn flush_fn(g: &Globals<'_>, code: &str, body: &str) -> String {
    let flush = g.flush.unwrap_or("gldbg_flush");
    format!("float {flush}(float {code}) {{\n{body}    return {code};\n}}\n")
}

/// The prototype of the flush function (its definition comes last).
fn flush_prototype(g: &Globals<'_>) -> String {
    format!("float {}(float code);\n", g.flush.unwrap_or("gldbg_flush"))
}

/// tess-control: `out vec4 value[]; out float coverage[];` written at
/// `[gl_InvocationID]` by the flush function.
pub(super) fn per_vertex(names: &mut Names, g: &Globals<'_>) -> StageOutputs {
    let out_value = names.fresh("gldbg_value");
    let out_coverage = names.fresh("gldbg_coverage");
    let code = names.fresh("gldbg_code");
    let p = g.precision;
    StageOutputs {
        decls: format!("out {p}vec4 {out_value}[];\nout {p}float {out_coverage}[];\n"),
        functions: flush_prototype(g),
        tail: flush_fn(
            g,
            &code,
            &format!(
                "    {out_value}[gl_InvocationID] = {};\n    {out_coverage}[gl_InvocationID] = {code};\n",
                g.value
            ),
        ),
        value: Some(OutputSlot::PerVertexArray(out_value)),
        coverage: Some(OutputSlot::PerVertexArray(out_coverage)),
        ..StageOutputs::default()
    }
}

/// Bindings of the shader's `buffer` blocks (an array of blocks takes one
/// per element; a block without `binding` has binding 0).
fn buffer_bindings(decls: &[ast::ExternalDeclaration]) -> Vec<u32> {
    let mut used = Vec::new();
    for d in decls {
        let ast::ExternalDeclarationData::Declaration(decl) = &d.content else {
            continue;
        };
        let ast::DeclarationData::Block(b) = &decl.content else {
            continue;
        };
        let quals = &b.qualifier.qualifiers;
        let is_buffer = quals.iter().any(|q| {
            matches!(&q.content, ast::TypeQualifierSpecData::Storage(s) if s.content == ast::StorageQualifierData::Buffer)
        });
        if !is_buffer {
            continue;
        }
        let binding = quals
            .iter()
            .find_map(|q| match &q.content {
                ast::TypeQualifierSpecData::Layout(l) => {
                    l.ids.iter().find_map(|id| match &id.content {
                        ast::LayoutQualifierSpecData::Identifier(n, Some(e))
                            if n.as_str() == "binding" =>
                        {
                            const_uint(e)
                        }
                        _ => None,
                    })
                }
                _ => None,
            })
            .unwrap_or(0);
        let count = b
            .identifier
            .as_ref()
            .and_then(|i| i.array_spec.as_ref())
            .map_or(1, |a| {
                a.dimensions.iter().fold(1u32, |n, dim| match &dim.content {
                    ast::ArraySpecifierDimensionData::ExplicitlySized(e) => {
                        n.saturating_mul(const_uint(e).unwrap_or(1))
                    }
                    ast::ArraySpecifierDimensionData::Unsized => n,
                })
            });
        used.extend((0..count.min(64)).map(|k| binding.saturating_add(k)));
    }
    used
}

fn const_uint(e: &ast::Expr) -> Option<u32> {
    match e.content {
        ast::ExprData::IntConst(i) => u32::try_from(i).ok(),
        ast::ExprData::UIntConst(u) => Some(u),
        _ => None,
    }
}

/// compute: two storage blocks after the highest binding the shader's
/// buffer blocks use, `vec4 value[]` and `float coverage[]`, indexed by the
/// linear global invocation index, written by the flush function.
pub(super) fn buffer(
    m: &ShaderModel,
    decls: &[ast::ExternalDeclaration],
    names: &mut Names,
    g: &Globals<'_>,
) -> Result<StageOutputs, InstrumentError> {
    // ARB_compute_variable_group_size: the size is only known at dispatch.
    let size = if m.idents.contains("local_size_variable") {
        "gl_LocalGroupSizeARB"
    } else if ["local_size_x", "local_size_y", "local_size_z"]
        .iter()
        .any(|w| m.idents.contains(*w))
    {
        "gl_WorkGroupSize"
    } else {
        // The size is declared by another compute shader of the program:
        // this one cannot name it, so it cannot linearise the index.
        return Err(InstrumentError::Unsupported(
            "this compute shader does not declare its local_size (another shader of the program does): \
             debugging it alone is not supported"
                .into(),
        ));
    };
    let binding = buffer_bindings(decls)
        .into_iter()
        .max()
        .map_or(0, |b| b + 1);
    let value_block = names.fresh("gldbg_Value");
    let coverage_block = names.fresh("gldbg_Coverage");
    let out_value = names.fresh("gldbg_value");
    let out_coverage = names.fresh("gldbg_coverage");
    let (code, i) = (names.fresh("gldbg_code"), names.fresh("gldbg_index"));
    let p = g.precision;
    let has_ext = |e: &str| m.extensions.iter().any(|x| x == e);
    let mut extensions = Vec::new();
    if !m.es && m.version < 430 && !has_ext("GL_ARB_shader_storage_buffer_object") {
        extensions.push("#extension GL_ARB_shader_storage_buffer_object : require".to_string());
    }
    if !m.es && m.version < 420 && !has_ext("GL_ARB_shading_language_420pack") {
        extensions.push("#extension GL_ARB_shading_language_420pack : require".to_string());
    }
    Ok(StageOutputs {
        decls: format!(
            "layout(std430, binding = {binding}) buffer {value_block} {{\n    {p}vec4 {out_value}[];\n}};\n\
             layout(std430, binding = {}) buffer {coverage_block} {{\n    {p}float {out_coverage}[];\n}};\n",
            binding + 1
        ),
        functions: flush_prototype(g),
        // Defined last: gl_WorkGroupSize needs the `local_size` layout first,
        // which may come anywhere before the end.
        tail: flush_fn(
            g,
            &code,
            &format!(
                "    {p}uint {i} = gl_GlobalInvocationID.x + gl_NumWorkGroups.x * {size}.x * (gl_GlobalInvocationID.y + gl_NumWorkGroups.y * {size}.y * gl_GlobalInvocationID.z);\n    {out_value}[{i}] = {};\n    {out_coverage}[{i}] = {code};\n",
                g.value
            ),
        ),
        extensions,
        value: Some(OutputSlot::Buffer {
            binding,
            block: value_block,
            member: out_value,
        }),
        coverage: Some(OutputSlot::Buffer {
            binding: binding + 1,
            block: coverage_block,
            member: out_coverage,
        }),
        ..StageOutputs::default()
    })
}

// ---------------------------------------------------------------------------
// Fragment.

fn has_storage(q: &Option<ast::TypeQualifier>, s: &ast::StorageQualifierData) -> bool {
    q.as_ref().is_some_and(|q| {
        q.qualifiers.iter().any(|spec| matches!(&spec.content, ast::TypeQualifierSpecData::Storage(x) if &x.content == s))
    })
}

/// Explicit `layout(location = N)` of a qualifier.
fn location(q: &Option<ast::TypeQualifier>) -> Option<i32> {
    q.as_ref()?
        .qualifiers
        .iter()
        .find_map(|spec| match &spec.content {
            ast::TypeQualifierSpecData::Layout(l) => {
                l.ids.iter().find_map(|id| match &id.content {
                    ast::LayoutQualifierSpecData::Identifier(name, Some(e))
                        if name.as_str() == "location" =>
                    {
                        match e.content {
                            ast::ExprData::IntConst(i) => Some(i),
                            ast::ExprData::UIntConst(u) => Some(u as i32),
                            _ => None,
                        }
                    }
                    _ => None,
                })
            }
            _ => None,
        })
}

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

/// fragment: GLSL >= 1.30 (ES >= 3.00), or older GLSL with user outputs:
/// two named outputs (ES: explicit locations after the app's), with
/// `gl_FragColor`/`gl_FragData` rewritten to named outputs listed in
/// `app_outputs`; older GLSL: `gl_FragData[k]`, `gl_FragData[k+1]` with
/// `gl_FragColor` rewritten to `gl_FragData[0]`.
pub(super) fn fragment(
    m: &ShaderModel,
    decls: &mut [ast::ExternalDeclaration],
    names: &mut Names,
    g: &Globals<'_>,
) -> StageOutputs {
    let (version, es) = (m.version, m.es);
    let modern = if es { version >= 300 } else { version >= 130 };
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
    let mut app_outputs = Vec::new();
    let mut max_location: i32 = -1;
    let mut unlocated: Vec<usize> = Vec::new();
    let mut varying_out = false;
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
                Some(l) => max_location = max_location.max(l + names_here.len() as i32 - 1),
                None => unlocated.push(i),
            }
            varying_out |=
                has_storage(&list.head.ty.qualifier, &ast::StorageQualifierData::Varying);
            app_outputs.extend(names_here);
        }
    }
    let frag_color_name = names.fresh("gldbg_FragColor");
    let frag_data_name = names.fresh("gldbg_FragData");
    let out_value = names.fresh("gldbg_value");
    let out_coverage = names.fresh("gldbg_coverage");
    let frag_data_len =
        frag_data_max
            .map_or(0, |k| k + 1)
            .max(if frag_data_refs > frag_data_const {
                4
            } else {
                0
            });
    // Before GLSL 1.30, user outputs (EXT_gpu_shader4's `varying out`, or
    // `out` with GL_ARB_explicit_attrib_location) cannot be mixed with
    // gl_FragData either: the debug outputs are declared like them.
    let legacy_named = !modern && !app_outputs.is_empty();
    let named = modern || legacy_named;
    let out_kw = if legacy_named && varying_out {
        "varying out"
    } else {
        "out"
    };
    let mut out = StageOutputs::default();
    if named {
        // ES 3 needs explicit locations once there is more than one output.
        let layout = |loc: i32| {
            if es {
                format!("layout(location = {loc}) ")
            } else {
                String::new()
            }
        };
        if es && unlocated.len() == 1 && max_location < 0 {
            add_location(&mut decls[unlocated[0]], 0);
            max_location = 0;
        }
        if uses_frag_color && !es {
            out.decls
                .push_str(&format!("{out_kw} vec4 {frag_color_name};\n"));
            app_outputs.push(frag_color_name.clone());
        }
        if frag_data_len > 0 && !es {
            out.decls.push_str(&format!(
                "{out_kw} vec4 {frag_data_name}[{frag_data_len}];\n"
            ));
            app_outputs.push(frag_data_name.clone());
        }
        let p = if es { "highp " } else { "" };
        out.decls.push_str(&format!(
            "{}{out_kw} {p}vec4 {out_value};\n",
            layout(max_location + 1)
        ));
        out.decls.push_str(&format!(
            "{}{out_kw} {p}float {out_coverage};\n",
            layout(max_location + 2)
        ));
        out.main_end = format!(
            "    {out_value} = {};\n    {out_coverage} = {};\n",
            g.value, g.coverage
        );
        out.value = Some(OutputSlot::Named(out_value));
        out.coverage = Some(OutputSlot::Named(out_coverage));
    } else {
        let k = frag_data_len
            .max(if uses_frag_color { 1 } else { 0 })
            .max(1);
        out.value = Some(OutputSlot::FragData(k as u32));
        out.coverage = Some(OutputSlot::FragData(k as u32 + 1));
        out.main_end = format!(
            "    gl_FragData[{k}] = {};\n    gl_FragData[{}] = vec4({}, 0.0, 0.0, 1.0);\n",
            g.value,
            k + 1,
            g.coverage
        );
        let has_ext = |e: &str| m.extensions.iter().any(|x| x == e);
        if es && !has_ext("GL_EXT_draw_buffers") {
            out.extensions
                .push("#extension GL_EXT_draw_buffers : enable".into());
        }
    }
    // gl_FragColor / gl_FragData cannot be mixed with the new outputs.
    for d in decls.iter_mut() {
        if let ast::ExternalDeclarationData::FunctionDefinition(def) = &mut d.content {
            for s in &mut def.statement.statement_list {
                walk_stmt_exprs(s, &mut |e| {
                    let ast::ExprData::Variable(v) = &e.content else {
                        return;
                    };
                    match (v.as_str(), named) {
                        ("gl_FragColor", true) => *e = var(&frag_color_name),
                        ("gl_FragColor", false) => *e = index(var("gl_FragData"), 0),
                        ("gl_FragData", true) => *e = var(&frag_data_name),
                        _ => {}
                    }
                });
            }
        }
    }
    out.app_outputs = app_outputs;
    out
}
