//! The pixel-history shader (issue 16, [`ShaderModel::instrument_history`]):
//! the app's fragment shader, unchanged except that its `main` is renamed
//! and called by a new `main` that
//!
//! * in *record* mode (uniform [`PixelHistory::prim_uniform`] `< 0`)
//!   appends one record per fragment at the pixel
//!   [`PixelHistory::pixel_uniform`] to a storage block with the trace
//!   block's header (`uint hits, records, words, full; uint data[]`):
//!   on entry `[primitive, 1, front facing, 0, 0, 0, 0, 0]`, and once the
//!   app's `main` returned (a `discard` never gets there) the depth and the
//!   output chosen by [`PixelHistory::output_uniform`] (an index into
//!   [`PixelHistory::outputs`]) and state 2 ([`HISTORY_RECORD_WORDS`] words
//!   a record, see [`HistoryRecord`]);
//! * in *filter* mode (`>= 0`) discards every fragment of another
//!   primitive before the app's `main` runs, and records nothing: the
//!   draw replayed so passes one primitive's fragments through the app's
//!   tests and blending, in primitive order.
//!
//! The app's outputs, uniforms and everything else keep their names, so
//! the app's locations and bindings apply to the debug program as they are.

use glsl_lang::ast;

use crate::parse::Names;
use crate::{InstrumentError, ShaderModel, Stage};

/// Words of one fragment record.
pub const HISTORY_RECORD_WORDS: usize = 8;
/// [`HistoryRecord::state`]: the fragment entered `main` (and was
/// discarded if nothing more was written).
pub const HISTORY_ENTERED: u32 = 1;
/// [`HistoryRecord::state`]: the app's `main` returned.
pub const HISTORY_DONE: u32 = 2;

/// A pixel-history shader and what the executor sets on it.
#[derive(Clone, Debug)]
pub struct PixelHistory {
    /// The whole fragment shader.
    pub source: String,
    /// The record block's name (std430, declared without a binding on
    /// desktop GL; see [`PixelHistory::binding`]).
    pub block: String,
    /// GLSL ES (which cannot rebind a block): the block's declared binding.
    pub binding: Option<u32>,
    /// `int`: -1 records, `k >= 0` lets only primitive `k` through.
    pub prim_uniform: String,
    /// `ivec2`: the pixel recorded.
    pub pixel_uniform: String,
    /// `int`: which of [`PixelHistory::outputs`] a record holds.
    pub output_uniform: String,
    /// The shader's colour outputs, by the name GL knows them by
    /// (`color`, `o[1]`, `gl_FragColor`, `gl_FragData[2]`), with their
    /// component types.
    pub outputs: Vec<HistoryOutput>,
    /// Whether records hold `gl_PrimitiveID` (GLSL 1.50, GLSL ES 3.20);
    /// else 0 and fragments of one draw are told apart by nothing.
    pub primitive_ids: bool,
    /// Whether the depth recorded is `gl_FragDepth` (the shader writes it)
    /// rather than `gl_FragCoord.z`.
    pub writes_depth: bool,
    /// `layout(early_fragment_tests) in;`: the tests run before the
    /// shader, so its `discard` (and the filter's) comes after them.
    pub early_tests: bool,
}

/// One colour output of the app's fragment shader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryOutput {
    pub name: String,
    /// `float`, `int` or `uint`.
    pub base: crate::BaseType,
    pub components: u8,
}

/// A record as read back (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HistoryRecord {
    pub primitive: u32,
    pub state: u32,
    pub front_facing: bool,
    /// `f32` bits of the depth.
    pub depth: u32,
    /// The output's components as bits (float bits, or the integer).
    pub value: [u32; 4],
}

impl HistoryRecord {
    /// The record at the start of `words` (at least [`HISTORY_RECORD_WORDS`]).
    pub fn from_words(words: &[u32]) -> HistoryRecord {
        HistoryRecord {
            primitive: words[0],
            state: words[1],
            front_facing: words[2] != 0,
            depth: words[3],
            value: [words[4], words[5], words[6], words[7]],
        }
    }
}

const SSBO: &str = "GL_ARB_shader_storage_buffer_object";

impl ShaderModel {
    /// The pixel-history shader of this fragment shader (see the module
    /// documentation). [`InstrumentError::Unsupported`] for another stage
    /// or a GLSL without storage blocks (before 4.30 without `GL_ARB_shader_
    /// storage_buffer_object` from 1.40, before GLSL ES 3.10).
    pub fn instrument_history(&self) -> Result<PixelHistory, InstrumentError> {
        if self.stage != Stage::Fragment {
            return Err(InstrumentError::Unsupported(
                "pixel history instruments fragment shaders".into(),
            ));
        }
        if !(self.es && self.version >= 310 || !self.es && self.version >= 140) {
            return Err(InstrumentError::Unsupported(format!(
                "pixel history needs storage blocks in the fragment shader (GLSL 4.30, or 1.40 \
                 with {SSBO}, or GLSL ES 3.10); this shader is {}",
                crate::hits::version_name(self)
            )));
        }
        let main = self
            .model
            .main
            .map(|f| self.model.functions[f].decl)
            .ok_or_else(|| InstrumentError::Unsupported("the shader has no main".into()))?;
        let mut names = Names::new(&self.idents);
        let app_main = names.fresh("gldbg_app_main");
        let mut tu = self.tu.0.clone();
        let ast::ExternalDeclarationData::FunctionDefinition(def) = &mut tu[main].content else {
            return Err(InstrumentError::Unsupported(
                "internal error: main is not a function definition".into(),
            ));
        };
        def.prototype.name = ast::IdentifierData::from(app_main.as_str()).into();
        let h = PixelHistory {
            source: String::new(),
            block: names.fresh("gldbg_history"),
            binding: self
                .es
                .then(|| crate::instrument::binding_after_buffers(&self.tu.0)),
            prim_uniform: names.fresh("gldbg_hist_prim"),
            pixel_uniform: names.fresh("gldbg_hist_pixel"),
            output_uniform: names.fresh("gldbg_hist_out"),
            outputs: colour_outputs(self),
            primitive_ids: if self.es {
                self.version >= 320
            } else {
                self.version >= 150
            },
            writes_depth: self.idents.contains("gl_FragDepth"),
            early_tests: self.source.contains("early_fragment_tests"),
        };
        let mut extensions = Vec::new();
        if !self.es && self.version < 430 {
            extensions.push(format!("#extension {SSBO} : require"));
        }
        if !self.es && self.version < 330 {
            extensions.push("#extension GL_ARB_shader_bit_encoding : require".into());
        }
        let inst = names.fresh("gldbg_h");
        let decls = declarations(&h, &inst, self.es);
        let mut source = crate::hits::print_with(self, &tu, extensions, decls);
        source.push_str(&new_main(&h, &inst, &app_main, self.es));
        Ok(PixelHistory { source, ..h })
    }
}

/// The block and the uniforms.
fn declarations(h: &PixelHistory, inst: &str, es: bool) -> String {
    let p = if es { "highp " } else { "" };
    let layout = match h.binding {
        Some(b) => format!("std430, binding = {b}"),
        None => "std430".into(),
    };
    format!(
        "layout({layout}) buffer {block} {{\n    {p}uint hits;\n    {p}uint records;\n    \
         {p}uint words;\n    {p}uint full;\n    {p}uint data[];\n}} {inst};\n\
         uniform {p}int {prim};\nuniform {p}ivec2 {pixel};\nuniform {p}int {out};\n",
        block = h.block,
        prim = h.prim_uniform,
        pixel = h.pixel_uniform,
        out = h.output_uniform,
    )
}

/// The new `main` (see the module documentation).
fn new_main(h: &PixelHistory, inst: &str, app_main: &str, es: bool) -> String {
    let p = if es { "highp " } else { "" };
    let prim = match h.primitive_ids {
        true => "gl_PrimitiveID",
        false => "0",
    };
    let depth = match h.writes_depth {
        true => "gl_FragDepth",
        false => "gl_FragCoord.z",
    };
    let w = HISTORY_RECORD_WORDS;
    let mut pick = String::new();
    for (i, o) in h.outputs.iter().enumerate() {
        pick.push_str(&format!(
            "        {}if ({} == {i}) gldbg_v = {};\n",
            if i == 0 { "" } else { "else " },
            h.output_uniform,
            output_bits(o)
        ));
    }
    format!(
        "\nvoid main() {{\n    \
         {p}int gldbg_p = {prim};\n    \
         if ({prim_u} >= 0) {{\n        if (gldbg_p != {prim_u}) discard;\n        {app_main}();\n        return;\n    }}\n    \
         {p}uint gldbg_s = 0xFFFFFFFFu;\n    \
         if (ivec2(gl_FragCoord.xy) == {pixel}) {{\n        \
         gldbg_s = atomicAdd({inst}.records, 1u);\n        \
         if (gldbg_s < uint({inst}.data.length()) / {w}u) {{\n            \
         {p}uint gldbg_a = gldbg_s * {w}u;\n            \
         {inst}.data[gldbg_a] = uint(gldbg_p);\n            \
         {inst}.data[gldbg_a + 1u] = 1u;\n            \
         {inst}.data[gldbg_a + 2u] = gl_FrontFacing ? 1u : 0u;\n            \
         atomicAdd({inst}.words, {w}u);\n        \
         }} else {{\n            {inst}.full = 1u;\n            gldbg_s = 0xFFFFFFFFu;\n        }}\n    }}\n    \
         {app_main}();\n    \
         if (gldbg_s != 0xFFFFFFFFu) {{\n        \
         {p}uint gldbg_a = gldbg_s * {w}u;\n        \
         {p}uvec4 gldbg_v = uvec4(0u);\n{pick}        \
         {inst}.data[gldbg_a + 3u] = floatBitsToUint({depth});\n        \
         {inst}.data[gldbg_a + 4u] = gldbg_v.x;\n        \
         {inst}.data[gldbg_a + 5u] = gldbg_v.y;\n        \
         {inst}.data[gldbg_a + 6u] = gldbg_v.z;\n        \
         {inst}.data[gldbg_a + 7u] = gldbg_v.w;\n        \
         {inst}.data[gldbg_a + 1u] = 2u;\n    }}\n}}\n",
        prim_u = h.prim_uniform,
        pixel = h.pixel_uniform,
    )
}

/// `uvec4` bits of output `o` (missing components 0).
fn output_bits(o: &HistoryOutput) -> String {
    use crate::BaseType;
    let n = o.components;
    let v = match n {
        4 => o.name.clone(),
        _ => {
            let pad = match o.base {
                BaseType::Float => "0.0",
                BaseType::Int => "0",
                _ => "0u",
            };
            let ty = match o.base {
                BaseType::Float => "vec4",
                BaseType::Int => "ivec4",
                _ => "uvec4",
            };
            let pads = vec![pad; 4 - n as usize].join(", ");
            format!("{ty}({}, {pads})", o.name)
        }
    };
    match o.base {
        BaseType::Float => format!("floatBitsToUint({v})"),
        BaseType::Int => format!("uvec4({v})"),
        _ => v,
    }
}

/// The shader's colour outputs: its `out` variables (arrays element by
/// element), else `gl_FragData[0..8]` or `gl_FragColor` where it uses them.
fn colour_outputs(m: &ShaderModel) -> Vec<HistoryOutput> {
    use crate::BaseType;
    let mut outs = Vec::new();
    for d in &m.tu.0 {
        let ast::ExternalDeclarationData::Declaration(decl) = &d.content else {
            continue;
        };
        let ast::DeclarationData::InitDeclaratorList(list) = &decl.content else {
            continue;
        };
        let is_out = list.head.ty.qualifier.as_ref().is_some_and(|q| {
            q.qualifiers.iter().any(|s| {
                matches!(&s.content, ast::TypeQualifierSpecData::Storage(x)
                    if x.content == ast::StorageQualifierData::Out)
            })
        });
        if !is_out {
            continue;
        }
        let Some((base, components)) = scalar_or_vector(&list.head.ty.ty.ty) else {
            continue;
        };
        let ty_len = list.head.ty.ty.array_specifier.as_ref().map(array_len);
        let mut declared: Vec<(String, Option<u32>)> = Vec::new();
        if let Some(n) = &list.head.name {
            let len = list.head.array_specifier.as_ref().map(array_len).or(ty_len);
            declared.push((n.0.to_string(), len));
        }
        for t in &list.tail {
            let len = t.ident.array_spec.as_ref().map(array_len).or(ty_len);
            declared.push((t.ident.ident.0.to_string(), len));
        }
        for (name, len) in declared {
            match len {
                None => outs.push(HistoryOutput {
                    name,
                    base,
                    components,
                }),
                Some(n) => outs.extend((0..n.min(8)).map(|i| HistoryOutput {
                    name: format!("{name}[{i}]"),
                    base,
                    components,
                })),
            }
        }
    }
    if outs.is_empty() {
        let builtin = |name: String| HistoryOutput {
            name,
            base: BaseType::Float,
            components: 4,
        };
        if m.idents.contains("gl_FragData") {
            outs.extend((0..8).map(|i| builtin(format!("gl_FragData[{i}]"))));
        } else if m.idents.contains("gl_FragColor") {
            outs.push(builtin("gl_FragColor".into()));
        }
    }
    outs
}

fn array_len(a: &ast::ArraySpecifier) -> u32 {
    a.dimensions.iter().fold(1u32, |n, dim| match &dim.content {
        ast::ArraySpecifierDimensionData::ExplicitlySized(e) => match e.content {
            ast::ExprData::IntConst(i) => n.saturating_mul(i.max(0) as u32),
            ast::ExprData::UIntConst(u) => n.saturating_mul(u),
            _ => n,
        },
        ast::ArraySpecifierDimensionData::Unsized => n,
    })
}

fn scalar_or_vector(t: &ast::TypeSpecifierNonArrayData) -> Option<(crate::BaseType, u8)> {
    use crate::BaseType::{Float, Int, Uint};
    use ast::TypeSpecifierNonArrayData as T;
    Some(match t {
        T::Float => (Float, 1),
        T::Vec2 => (Float, 2),
        T::Vec3 => (Float, 3),
        T::Vec4 => (Float, 4),
        T::Int => (Int, 1),
        T::IVec2 => (Int, 2),
        T::IVec3 => (Int, 3),
        T::IVec4 => (Int, 4),
        T::UInt => (Uint, 1),
        T::UVec2 => (Uint, 2),
        T::UVec3 => (Uint, 3),
        T::UVec4 => (Uint, 4),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(src: &str) -> ShaderModel {
        ShaderModel::parse(src, Stage::Fragment).expect("parses")
    }

    #[test]
    fn main_is_wrapped_and_outputs_listed() {
        let m = model(
            "#version 330\nout vec4 color;\nlayout(location = 1) out uvec2 ids[2];\n\
             uniform float k;\nvoid main() { if (k < 0.0) discard; color = vec4(k); \
             ids[0] = uvec2(1u); ids[1] = uvec2(2u); }\n",
        );
        let h = m.instrument_history().expect("instruments");
        let names: Vec<&str> = h.outputs.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, ["color", "ids[0]", "ids[1]"]);
        assert!(h.primitive_ids && !h.writes_depth);
        assert!(h.source.contains("void gldbg_app_main()"), "{}", h.source);
        assert!(
            h.source
                .contains("#extension GL_ARB_shader_storage_buffer_object : require")
        );
        assert!(h.source.contains("uvec4(ids[1], 0u, 0u)"), "{}", h.source);
        // The result parses as a fragment shader again.
        model(&h.source);
    }

    #[test]
    fn builtin_outputs_and_depth() {
        let m =
            model("#version 140\nvoid main() { gl_FragColor = vec4(1.0); gl_FragDepth = 0.5; }\n");
        let h = m.instrument_history().expect("instruments");
        assert_eq!(h.outputs.len(), 1);
        assert_eq!(h.outputs[0].name, "gl_FragColor");
        assert!(!h.primitive_ids && h.writes_depth);
        assert!(h.source.contains("floatBitsToUint(gl_FragDepth)"));
        model(&h.source);
    }

    #[test]
    fn old_glsl_is_refused() {
        let m = model("#version 120\nvoid main() { gl_FragColor = vec4(1.0); }\n");
        let e = m.instrument_history().unwrap_err().to_string();
        assert!(e.contains("storage blocks"), "{e}");
    }
}
