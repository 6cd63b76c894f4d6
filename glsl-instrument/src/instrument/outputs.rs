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
//!   wrapping `main` (every vertex has them, 0 when not reached); a vertex
//!   shader at a non-indexed draw may instead write two storage blocks at
//!   the end of the wrapping `main`, at the vertex's place in the draw
//!   (`vertex_buffer`: no transform feedback);
//! * geometry: three `out` varyings (value, coverage, and the emission:
//!   emit index, `gl_PrimitiveIDIn`, `gl_InvocationID`) copied before every
//!   `EmitVertex()`/`EmitStreamVertex()`;
//! * tess-control, compute: two storage blocks at bindings the shader does
//!   not use, written at the start of `main` (zero) and at the probe
//!   (`main` is not wrapped: `barrier()` is only allowed in `main`).
//!   Tess-control used per-vertex output arrays before: a shader using all
//!   its output components could not link with them.

use glsl_lang::ast;

use super::{call, comma, int};

mod fragment;
mod qualifiers;

use crate::parse::{Names, expr_text};
use crate::steps::walk_stmt_exprs;
use crate::{OutputSlot, ShaderModel, Stage};
pub(super) use fragment::fragment;
use qualifiers::{has_storage, location};

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
    pub emission: Option<OutputSlot>,
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
    /// compute: the `uvec3` local-size uniform; tess-control: the `uint`
    /// output-vertices uniform (declared where the shader lacks the layout).
    pub size_uniform: Option<String>,
    /// vertex to buffers: the `uint` uniforms `first` and `count`.
    pub vertex_index_uniforms: Option<(String, String)>,
    /// fragment: the siblings rewritten (siblings.rs); `None`: unchanged.
    pub siblings: Option<Vec<String>>,
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
pub(super) fn varyings(
    m: &ShaderModel,
    decls: &[ast::ExternalDeclaration],
    names: &mut Names,
    g: &Globals<'_>,
) -> StageOutputs {
    let out_value = names.fresh("gldbg_value");
    let out_coverage = names.fresh("gldbg_coverage");
    let (kw, p) = (varying_keyword(m), g.precision);
    let layout = |k: u32| debug_layout(m, decls, None, k);
    StageOutputs {
        decls: format!(
            "{}{kw} {p}vec4 {out_value};\n{}{kw} {p}float {out_coverage};\n",
            layout(0),
            layout(1)
        ),
        main_end: format!(
            "    {out_value} = {};\n    {out_coverage} = {};\n",
            g.value, g.coverage
        ),
        value: Some(OutputSlot::Varying(out_value)),
        coverage: Some(OutputSlot::Varying(out_coverage)),
        ..StageOutputs::default()
    }
}

/// The `layout(...) ` of the `k`-th debug varying: `stream` if given, and an
/// explicit location above every location the shader's outputs use (and
/// above the room its unlocated outputs need: the linker gives those the
/// lowest free slots, and a separable program matches them with the next
/// stage by those slots) when the shader places its in/outs itself and the
/// language allows `location` on outputs. Otherwise no location: the
/// linker's own assignment then never meets an explicit one.
fn debug_layout(
    m: &ShaderModel,
    decls: &[ast::ExternalDeclaration],
    stream: Option<u32>,
    k: u32,
) -> String {
    let mut ids = Vec::new();
    if let Some(s) = stream {
        ids.push(format!("stream = {s}"));
    }
    let has_ext = |e: &str| m.extensions.iter().any(|x| x == e);
    let allowed = if m.es {
        m.version >= 310
    } else {
        m.version >= 410 || has_ext("GL_ARB_separate_shader_objects")
    };
    // Locations go up to 31 (Mesa's MAX_VARYING; GL_MAX_VARYING_VECTORS);
    // past that, no location (the linker drops what nothing captures).
    if allowed
        && let Some(base) = free_output_location(decls)
        && base + 3 <= MAX_VARYING_LOCATIONS
    {
        ids.push(format!("location = {}", base + k));
    }
    if ids.is_empty() {
        String::new()
    } else {
        format!("layout({}) ", ids.join(", "))
    }
}

/// Output locations a stage has (Mesa: 32 vec4 varyings).
const MAX_VARYING_LOCATIONS: u32 = 32;

/// The first output location above the shader's explicit output locations
/// plus the slots its unlocated outputs take; `None` when no `in`/`out`
/// declaration has an explicit location.
fn free_output_location(decls: &[ast::ExternalDeclaration]) -> Option<u32> {
    let structs = struct_slots(decls);
    let mut any_location = false;
    let (mut end, mut unlocated) = (0u32, 0u32);
    let is_io = |q: &Option<ast::TypeQualifier>| {
        has_storage(q, &ast::StorageQualifierData::Out)
            || has_storage(q, &ast::StorageQualifierData::In)
    };
    for d in decls {
        let ast::ExternalDeclarationData::Declaration(decl) = &d.content else {
            continue;
        };
        match &decl.content {
            ast::DeclarationData::InitDeclaratorList(list) => {
                let q = &list.head.ty.qualifier;
                if !is_io(q) {
                    continue;
                }
                let loc = location(q);
                any_location |= loc.is_some();
                if !has_storage(q, &ast::StorageQualifierData::Out) {
                    continue;
                }
                let ty = &list.head.ty.ty;
                let mut n = 0u32;
                if list.head.name.is_some() {
                    n += type_slots(ty, list.head.array_specifier.as_ref(), &structs);
                }
                for t in &list.tail {
                    n += type_slots(ty, t.ident.array_spec.as_ref(), &structs);
                }
                match loc {
                    Some(l) => end = end.max(l.max(0) as u32 + n),
                    None => unlocated += n,
                }
            }
            ast::DeclarationData::Block(b) => {
                let q = Some(b.qualifier.clone());
                if !is_io(&q) {
                    continue;
                }
                let is_out = has_storage(&q, &ast::StorageQualifierData::Out);
                let block_loc = location(&q);
                any_location |= block_loc.is_some();
                let mut next = block_loc.map(|l| l.max(0) as u32);
                let mut total = 0u32;
                for f in &b.fields {
                    let member_loc = location(&f.qualifier);
                    any_location |= member_loc.is_some();
                    let n: u32 = f
                        .identifiers
                        .iter()
                        .map(|i| type_slots(&f.ty, i.array_spec.as_ref(), &structs))
                        .sum();
                    if let Some(l) = member_loc {
                        next = Some(l.max(0) as u32);
                    }
                    match next.as_mut() {
                        Some(at) => {
                            *at += n;
                            end = end.max(if is_out { *at } else { 0 });
                        }
                        None => total += n,
                    }
                }
                let count = b
                    .identifier
                    .as_ref()
                    .and_then(|i| i.array_spec.as_ref())
                    .map_or(1, array_len);
                if is_out {
                    if next.is_none() {
                        unlocated += total * count;
                    } else if count > 1 {
                        // Conservative: the whole array after the block's start.
                        end = end.max(block_loc.unwrap_or(0).max(0) as u32 + total.max(1) * count);
                    }
                }
            }
            _ => {}
        }
    }
    any_location.then_some(end + unlocated)
}

/// Product of an array's sizes (unknown sizes count 1).
fn array_len(a: &ast::ArraySpecifier) -> u32 {
    a.dimensions.iter().fold(1u32, |n, dim| match &dim.content {
        ast::ArraySpecifierDimensionData::ExplicitlySized(e) => {
            n.saturating_mul(const_uint(e).unwrap_or(1))
        }
        ast::ArraySpecifierDimensionData::Unsized => n,
    })
}

/// Slots of the named structs declared at global scope.
fn struct_slots(decls: &[ast::ExternalDeclaration]) -> std::collections::HashMap<String, u32> {
    let mut out = std::collections::HashMap::new();
    for d in decls {
        if let ast::ExternalDeclarationData::Declaration(decl) = &d.content
            && let ast::DeclarationData::InitDeclaratorList(list) = &decl.content
            && let ast::TypeSpecifierNonArrayData::Struct(st) = &list.head.ty.ty.ty.content
            && let Some(name) = &st.name
        {
            let n = fields_slots(&st.fields, &out);
            out.insert(name.0.to_string(), n);
        }
    }
    out
}

fn fields_slots(
    fields: &[ast::StructFieldSpecifier],
    structs: &std::collections::HashMap<String, u32>,
) -> u32 {
    fields
        .iter()
        .map(|f| {
            f.identifiers
                .iter()
                .map(|i| type_slots(&f.ty, i.array_spec.as_ref(), structs))
                .sum::<u32>()
        })
        .sum()
}

/// Locations a variable of type `ty` (with the declarator's array `extra`)
/// takes (dvec3/dvec4 two, a matrix one per column, doubled for dmat with
/// more than two rows).
fn type_slots(
    ty: &ast::TypeSpecifier,
    extra: Option<&ast::ArraySpecifier>,
    structs: &std::collections::HashMap<String, u32>,
) -> u32 {
    use ast::TypeSpecifierNonArrayData as T;
    let base = match &ty.ty.content {
        T::DVec3 | T::DVec4 => 2,
        T::Mat2 | T::Mat22 | T::Mat23 | T::Mat24 | T::DMat2 | T::DMat22 => 2,
        T::Mat3 | T::Mat32 | T::Mat33 | T::Mat34 | T::DMat32 => 3,
        T::Mat4 | T::Mat42 | T::Mat43 | T::Mat44 | T::DMat23 | T::DMat24 | T::DMat42 => 4,
        T::DMat3 | T::DMat33 | T::DMat34 => 6,
        T::DMat4 | T::DMat43 | T::DMat44 => 8,
        T::Struct(st) => fields_slots(&st.fields, structs),
        T::TypeName(n) => structs.get(n.0.as_str()).copied().unwrap_or(4),
        _ => 1,
    };
    let arrays = ty.array_specifier.as_ref().map_or(1, array_len) * extra.map_or(1, array_len);
    base * arrays
}

/// geometry: value, coverage and emission varyings, handed out by a
/// function called right before each `EmitVertex()`/`EmitStreamVertex(n)`
/// of every function (`EmitVertex()` becomes `(put(), EmitVertex())`).
/// The emission (`vec3`: the invocation's emit index, `gl_PrimitiveIDIn`,
/// `gl_InvocationID` or 0 before GLSL 4.00) tells which input primitive
/// emitted a captured vertex, and which of its vertices it is: transform
/// feedback splits strips into independent primitives.
pub(super) fn geometry(
    m: &ShaderModel,
    decls: &mut [ast::ExternalDeclaration],
    names: &mut Names,
    g: &Globals<'_>,
) -> StageOutputs {
    let out_value = names.fresh("gldbg_value");
    let out_coverage = names.fresh("gldbg_coverage");
    let out_emit = names.fresh("gldbg_emission");
    let counter = names.fresh("gldbg_emitted");
    let put = names.fresh("gldbg_put");
    let (kw, p) = (varying_keyword(m), g.precision);
    // A global `layout(stream = k) out;` changes the stream of later
    // outputs: ours are captured from stream 0.
    let has_ext = |e: &str| m.extensions.iter().any(|x| x == e);
    let streams = m.idents.contains("stream")
        && ((!m.es && m.version >= 400) || has_ext("GL_ARB_gpu_shader5"));
    let stream = streams.then_some(0);
    let layout = |k: u32| debug_layout(m, decls, stream, k);
    let (l0, l1, l2) = (layout(0), layout(1), layout(2));
    // Instanced geometry shaders (GLSL 4.00, ARB_gpu_shader5, every GL ES one).
    let invocation = if m.es || m.version >= 400 || has_ext("GL_ARB_gpu_shader5") {
        "float(gl_InvocationID)"
    } else {
        "0.0"
    };
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
            "{l0}{kw} {p}vec4 {out_value};\n{l1}{kw} {p}float {out_coverage};\n{l2}{kw} {p}vec3 {out_emit};\n{p}int {counter};\n"
        ),
        functions: format!(
            "void {put}() {{\n    {out_value} = {v};\n    {out_coverage} = {c};\n    {out_emit} = vec3(float({counter}), float(gl_PrimitiveIDIn), {invocation});\n    {counter}++;\n}}\n",
            v = g.value,
            c = g.coverage
        ),
        main_start: format!("    {counter} = 0;\n"),
        value: Some(OutputSlot::Varying(out_value)),
        coverage: Some(OutputSlot::Varying(out_coverage)),
        emission: Some(OutputSlot::Varying(out_emit)),
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

/// The binding after every one of the shader's `buffer` blocks (0 where
/// it has none): where a block of ours goes in GLSL ES, which cannot
/// rebind a block at run time.
pub(crate) fn binding_after_buffers(decls: &[ast::ExternalDeclaration]) -> u32 {
    buffer_bindings(decls)
        .into_iter()
        .max()
        .map_or(0, |b| b + 1)
}

/// Bindings of the shader's `buffer` blocks (an array of blocks takes one
/// per element; a block without `binding` has binding 0).
pub(crate) fn buffer_bindings(decls: &[ast::ExternalDeclaration]) -> Vec<u32> {
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

/// The `N` of the shader's `layout(vertices = N) out;` (tess-control).
fn output_vertices(decls: &[ast::ExternalDeclaration]) -> Option<String> {
    decls.iter().find_map(|d| {
        let ast::ExternalDeclarationData::Declaration(decl) = &d.content else {
            return None;
        };
        let q = match &decl.content {
            ast::DeclarationData::TypeOnly(q) => q,
            _ => return None,
        };
        q.qualifiers.iter().find_map(|spec| match &spec.content {
            ast::TypeQualifierSpecData::Layout(l) => {
                l.ids.iter().find_map(|id| match &id.content {
                    ast::LayoutQualifierSpecData::Identifier(n, Some(e))
                        if n.as_str() == "vertices" =>
                    {
                        Some(expr_text(e))
                    }
                    _ => None,
                })
            }
            _ => None,
        })
    })
}

/// The two storage blocks of the buffer outputs, after the highest binding
/// the shader's buffer blocks use: `vec4 value[]` and `float coverage[]`.
struct StorageBlocks {
    /// Their declarations.
    decls: String,
    /// `#extension` lines they need.
    extensions: Vec<String>,
    value: OutputSlot,
    coverage: OutputSlot,
    /// The array members, to write.
    value_member: String,
    coverage_member: String,
}

fn storage_blocks(
    m: &ShaderModel,
    decls: &[ast::ExternalDeclaration],
    names: &mut Names,
    p: &str,
) -> StorageBlocks {
    let binding = binding_after_buffers(decls);
    let value_block = names.fresh("gldbg_Value");
    let coverage_block = names.fresh("gldbg_Coverage");
    let out_value = names.fresh("gldbg_value");
    let out_coverage = names.fresh("gldbg_coverage");
    let has_ext = |e: &str| m.extensions.iter().any(|x| x == e);
    let mut extensions = Vec::new();
    if !m.es && m.version < 430 && !has_ext("GL_ARB_shader_storage_buffer_object") {
        extensions.push("#extension GL_ARB_shader_storage_buffer_object : require".to_string());
    }
    if !m.es && m.version < 420 && !has_ext("GL_ARB_shading_language_420pack") {
        extensions.push("#extension GL_ARB_shading_language_420pack : require".to_string());
    }
    StorageBlocks {
        decls: format!(
            "layout(std430, binding = {binding}) buffer {value_block} {{\n    {p}vec4 {out_value}[];\n}};\n\
             layout(std430, binding = {}) buffer {coverage_block} {{\n    {p}float {out_coverage}[];\n}};\n",
            binding + 1
        ),
        extensions,
        value: OutputSlot::Buffer {
            binding,
            block: value_block,
            member: out_value.clone(),
        },
        coverage: OutputSlot::Buffer {
            binding: binding + 1,
            block: coverage_block,
            member: out_coverage.clone(),
        },
        value_member: out_value,
        coverage_member: out_coverage,
    }
}

/// compute, tess-control: two storage blocks after the highest binding the
/// shader's buffer blocks use, `vec4 value[]` and `float coverage[]`,
/// written by the flush function. Compute: indexed by the linear global
/// invocation index; tess-control: by
/// `gl_PrimitiveID * <output vertices> + gl_InvocationID`. A size the shader does not declare (compute
/// `local_size`, tess-control `vertices`; another shader of the program
/// does) comes from a uniform named in `size_uniform`: unset, it is 0 and
/// only our own buffers get wrong indices.
pub(super) fn buffer(
    m: &ShaderModel,
    decls: &[ast::ExternalDeclaration],
    names: &mut Names,
    g: &Globals<'_>,
) -> StageOutputs {
    let p = g.precision;
    let mut size_decl = String::new();
    let mut size_uniform = None;
    let i = names.fresh("gldbg_index");
    let index = if m.stage == Stage::TessControl {
        let vertices = match output_vertices(decls) {
            Some(n) => format!("uint({n})"),
            None => {
                let u = names.fresh("gldbg_output_vertices");
                size_decl = format!("uniform {p}uint {u};\n");
                size_uniform = Some(u.clone());
                u
            }
        };
        format!("uint(gl_PrimitiveID) * {vertices} + uint(gl_InvocationID)")
    } else {
        // ARB_compute_variable_group_size: the size is only known at dispatch.
        let size = if m.idents.contains("local_size_variable") {
            "gl_LocalGroupSizeARB".to_string()
        } else if ["local_size_x", "local_size_y", "local_size_z"]
            .iter()
            .any(|w| m.idents.contains(*w))
        {
            "gl_WorkGroupSize".to_string()
        } else {
            // Declared by another compute shader of the program: this one
            // cannot name it (gl_WorkGroupSize needs the layout).
            let u = names.fresh("gldbg_local_size");
            size_decl = format!("uniform {p}uvec3 {u};\n");
            size_uniform = Some(u.clone());
            u
        };
        format!(
            "gl_GlobalInvocationID.x + gl_NumWorkGroups.x * {size}.x * (gl_GlobalInvocationID.y + gl_NumWorkGroups.y * {size}.y * gl_GlobalInvocationID.z)"
        )
    };
    let blocks = storage_blocks(m, decls, names, p);
    let (out_value, out_coverage) = (&blocks.value_member, &blocks.coverage_member);
    let code = names.fresh("gldbg_code");
    StageOutputs {
        decls: format!("{size_decl}{}", blocks.decls),
        functions: flush_prototype(g),
        // Defined last: gl_WorkGroupSize needs the `local_size` layout first,
        // which may come anywhere before the end.
        tail: flush_fn(
            g,
            &code,
            &format!(
                "    {p}uint {i} = {index};\n    {out_value}[{i}] = {};\n    {out_coverage}[{i}] = {code};\n",
                g.value
            ),
        ),
        extensions: blocks.extensions,
        value: Some(blocks.value),
        coverage: Some(blocks.coverage),
        size_uniform,
        ..StageOutputs::default()
    }
}

/// Whether a vertex shader can write its outputs to storage blocks: it
/// needs `gl_VertexID` and `gl_InstanceID` (desktop GLSL 1.40, ES 3.00) and
/// storage blocks (desktop 4.30 or the extension, ES 3.10).
pub(super) fn check_vertex_buffer(m: &ShaderModel) -> Result<(), crate::InstrumentError> {
    let ok = m.stage == Stage::Vertex
        && if m.es {
            m.version >= 310
        } else {
            m.version >= 140
        };
    match ok {
        true => Ok(()),
        false => Err(crate::InstrumentError::Unsupported(format!(
            "storage-block outputs need a vertex shader of GLSL 1.40 or ES 3.10 (this is a {} shader, version {}{})",
            m.stage.name(),
            m.version,
            if m.es { " es" } else { "" }
        ))),
    }
}

/// vertex, for a non-indexed draw: `vec4 value[]` and `float coverage[]`
/// in two storage blocks after the highest binding the shader's buffer
/// blocks use, written at the end of the wrapping `main` at the vertex's
/// place in the draw, `gl_VertexID - first + gl_InstanceID * count` (the
/// order transform feedback would capture it in), `first` and `count`
/// being uniforms the executor sets from the draw's arguments. A vertex
/// the driver shades twice writes the same values twice.
pub(super) fn vertex_buffer(
    m: &ShaderModel,
    decls: &[ast::ExternalDeclaration],
    names: &mut Names,
    g: &Globals<'_>,
) -> StageOutputs {
    let p = g.precision;
    let first = names.fresh("gldbg_first");
    let count = names.fresh("gldbg_count");
    let i = names.fresh("gldbg_index");
    let blocks = storage_blocks(m, decls, names, p);
    let (out_value, out_coverage) = (&blocks.value_member, &blocks.coverage_member);
    StageOutputs {
        decls: format!(
            "uniform {p}uint {first};\nuniform {p}uint {count};\n{}",
            blocks.decls
        ),
        main_end: format!(
            "    {p}uint {i} = uint(gl_VertexID) - {first} + uint(gl_InstanceID) * {count};\n    \
             {out_value}[{i}] = {};\n    {out_coverage}[{i}] = {};\n",
            g.value, g.coverage
        ),
        extensions: blocks.extensions,
        value: Some(blocks.value),
        coverage: Some(blocks.coverage),
        vertex_index_uniforms: Some((first, count)),
        ..StageOutputs::default()
    }
}
