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

use super::{call, comma, index, int, var};
use crate::parse::{Names, expr_text};
use crate::steps::walk_stmt_exprs;
use crate::{OutputSlot, ShaderModel, Stage};

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
    let binding = buffer_bindings(decls)
        .into_iter()
        .max()
        .map_or(0, |b| b + 1);
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
    if !es {
        for d in decls.iter_mut() {
            unpair_second_source(d);
        }
    }
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
    let (sibling_color, sibling_data_len) = super::siblings::builtin_uses(&m.siblings);
    uses_frag_color |= sibling_color;
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
    let frag_data_len = frag_data_max
        .map_or(0, |k| k + 1)
        .max(if frag_data_refs > frag_data_const {
            4
        } else {
            0
        })
        .max(sibling_data_len);
    let mut out = StageOutputs::default();
    // Before GLSL 1.30, user outputs (EXT_gpu_shader4's `varying out`, or
    // `out` with GL_ARB_explicit_attrib_location) cannot be mixed with
    // gl_FragData either: the debug outputs are declared like them.
    let has_ext = |e: &str| m.extensions.iter().any(|x| x == e);
    // A shader whose source references neither gl_FragColor nor gl_FragData
    // (a probe expression may) may be
    // linked with one that writes either: gl_FragData[k] would clash with a
    // gl_FragColor there, so the debug outputs are EXT_gpu_shader4's named
    // `varying out`s.
    let foreign = !modern
        && !es
        && app_outputs.is_empty()
        && !m.idents.contains("gl_FragColor")
        && !m.idents.contains("gl_FragData");
    let mut renaming = super::siblings::Renaming::default();
    let legacy_named = !modern && (!app_outputs.is_empty() || foreign);
    let named = modern || legacy_named;
    // With the app's own named outputs the app cannot use gl_FragColor /
    // gl_FragData: a reference comes from the probe expression, and reads a
    // private global (not an output that would take a location first).
    // The same where the app references neither (`foreign`).
    let builtin_private = !app_outputs.is_empty() || foreign;
    if foreign && !has_ext("GL_EXT_gpu_shader4") {
        out.extensions
            .push("#extension GL_EXT_gpu_shader4 : require".into());
    }
    let out_kw = if legacy_named && (varying_out || foreign) {
        "varying out"
    } else {
        "out"
    };
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
        let builtin_kw = if builtin_private {
            String::new()
        } else {
            format!("{out_kw} ")
        };
        if uses_frag_color && !es {
            let decl = format!("{builtin_kw}vec4 {frag_color_name};\n");
            out.decls.push_str(&decl);
            renaming.decls.push_str(&decl);
            renaming.frag_color = Some(frag_color_name.clone());
            if !builtin_private {
                app_outputs.push(frag_color_name.clone());
            }
        }
        if frag_data_len > 0 && !es {
            let decl = format!("{builtin_kw}vec4 {frag_data_name}[{frag_data_len}];\n");
            out.decls.push_str(&decl);
            renaming.decls.push_str(&decl);
            renaming.frag_data = Some(frag_data_name.clone());
            if !builtin_private {
                app_outputs.push(frag_data_name.clone());
            }
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
        renaming.frag_color = Some("gl_FragData[0]".into());
        let k = frag_data_len
            .max(if uses_frag_color { 1 } else { 0 })
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
                "    gl_FragData[{}] = vec4({} * 0.003921569, 0.0, 0.0, 1.0);\n",
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
    out.siblings = Some(
        m.siblings
            .iter()
            .map(|s| super::siblings::rewrite(s, &renaming))
            .collect(),
    );
    out
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
    return vec4({name}_b0, {name}_b1, {name}_b2, {name}_b3) * 0.003921569;
}}
"
    )
}
