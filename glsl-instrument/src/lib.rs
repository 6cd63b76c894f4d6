//! GLSL front-end and instrumenter of gldbg: parses a shader (glsl-lang,
//! full preprocessor, spans into the original source), builds its step
//! model, and generates debug shaders that hand out the value of an
//! expression at one dynamic position (GLSLDevil rules, see DESIGN.md §7).
//!
//! **Architecture invariant:** this crate knows nothing about GL, gRPC or
//! processes. It is pure: source text in, source text and tables out.
//!
//! API CONTRACT (used by debugd; do not change signatures without telling
//! the debugd owner):
//!
//! ```ignore
//! let model = ShaderModel::parse(source, Stage::Fragment)?;     // ParseError has line:column
//! let pos = model.entry();                                        // first step of main
//! let step = model.step(pos.step);                                // line, column, text, kind
//! let next: Vec<Position> = model.successors(&pos, StepMode::Into); // candidates, preferred first
//! let probe = model.instrument(&Probe { position: &pos, expr: Some("d * 2.0"),
//!                                        semantics: Semantics::Equivalent })?;
//! // probe.source: the debug shader; probe.value / probe.coverage: its outputs
//! // (OutputSlot: per stage), probe.emission: geometry only;
//! // probe.path_uniform + pos.iterations: the loop path to pass as uniform int[];
//! // probe.cache_key: equal for equal sources.
//! let ty = decode_type(coverage_texel);   // Some(ValueType) if reached
//! let v = ty.decode(value_texel);         // Vec<f64>, components in order
//! ```
//!
//! Semantics (details on the items):
//! * Steps, per function in source order, ids dense: expression statements
//!   and variable declarations (`Statement`), `if` conditions and `switch`
//!   heads (`IfCondition`), `for` init / condition / increment, `while` and
//!   `do` conditions, `return`, `break`, `continue`, `discard`. Lines and
//!   columns are physical positions in the original source (a macro's
//!   statements sit where the macro is used; `#line` does not renumber).
//! * Iterations: the n-th evaluation (0-based) of a `for`/`while` condition
//!   is iteration n, as are the body and increment after it; a `do` body
//!   run n and the condition after it are iteration n.
//! * The debug write happens before the step executes, once per fragment
//!   (the first time the position is reached with the given iterations).
//! * Coverage codes: see [`decode_type`]; a coverage-only probe writes 17.
//!
//! Modules: `parse` (glsl-lang front-end), `steps` (static step model and
//! flow targets), `flow` (dynamic successors), `instrument` (debug shader),
//! `typeck` (the probe expression's type), `parts` (values wider than the
//! debug output, probed in parts), `value` (type codes).

// A doc comment separated from its item documents the next item instead
// (`cargo clippy` refuses it).
#![deny(clippy::empty_line_after_doc_comments)]

use std::collections::HashSet;
use std::fmt;

mod builtins;
mod depth;
mod effects;
mod flow;
#[doc(hidden)]
pub mod fuzzing;
mod history;
mod hits;
mod instrument;
pub mod memcheck;
mod parse;
mod parts;
mod preprocess;
mod sampling;
pub mod source_map;
mod steps;
mod summary;
mod trace;
mod typeck;
mod value;

pub use preprocess::Includes;

/// `source` with its `#include`s spliced in as the driver does and the
/// `#include` lines blanked: the same shader, compilable without the named
/// strings (`glCompileShader`). Errors: an `#include` that names no string.
pub fn splice_includes(source: &str, includes: &Includes, api: Api) -> Result<String, ParseError> {
    Ok(preprocess::preprocess(source, includes, api)?.spliced)
}

/// Shader stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    Vertex,
    TessControl,
    TessEval,
    Geometry,
    Fragment,
    Compute,
}

impl Stage {
    /// Every stage, in pipeline order.
    pub const ALL: [Stage; 6] = [
        Stage::Vertex,
        Stage::TessControl,
        Stage::TessEval,
        Stage::Geometry,
        Stage::Fragment,
        Stage::Compute,
    ];

    /// CLI spelling: "vertex", "tess-control", "tess-eval", "geometry", "fragment", "compute".
    pub fn name(self) -> &'static str {
        match self {
            Stage::Vertex => "vertex",
            Stage::TessControl => "tess-control",
            Stage::TessEval => "tess-eval",
            Stage::Geometry => "geometry",
            Stage::Fragment => "fragment",
            Stage::Compute => "compute",
        }
    }

    /// Parse the CLI spelling.
    pub fn from_name(name: &str) -> Option<Stage> {
        Stage::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The GL shader type enum (`GL_FRAGMENT_SHADER`, ...).
    pub fn gl_enum(self) -> u32 {
        match self {
            Stage::Vertex => GL_VERTEX_SHADER,
            Stage::TessControl => GL_TESS_CONTROL_SHADER,
            Stage::TessEval => GL_TESS_EVALUATION_SHADER,
            Stage::Geometry => GL_GEOMETRY_SHADER,
            Stage::Fragment => GL_FRAGMENT_SHADER,
            Stage::Compute => GL_COMPUTE_SHADER,
        }
    }

    pub fn from_gl_enum(e: u32) -> Option<Stage> {
        Stage::ALL.into_iter().find(|s| s.gl_enum() == e)
    }
}

const GL_VERTEX_SHADER: u32 = 0x8B31;
const GL_TESS_CONTROL_SHADER: u32 = 0x8E88;
const GL_TESS_EVALUATION_SHADER: u32 = 0x8E87;
const GL_GEOMETRY_SHADER: u32 = 0x8DD9;
const GL_FRAGMENT_SHADER: u32 = 0x8B30;
const GL_COMPUTE_SHADER: u32 = 0x91B9;

/// A shader the front-end cannot read, with the position in the original source.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct ParseError {
    /// 1-based line in the original source.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    pub message: String,
}

/// A request the instrumenter cannot satisfy.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InstrumentError {
    /// Shown with the expression and the message [`quote`]d: a megabyte
    /// expression (or identifier in the message) is not repeated back.
    #[error("expression `{}`: {}", quote(expr, 80), quote(message, 400))]
    BadExpression { expr: String, message: String },
    #[error("no step {0}")]
    NoSuchStep(u32),
    #[error("{0}")]
    Unsupported(String),
    /// A written probe reads names whose writes gldbg cannot follow (a
    /// struct or block output, a write it cannot track): whether they
    /// were written yet is unknown.
    #[error("gldbg cannot tell whether {} was written", .0.join(", "))]
    WrittenUnknown(Vec<String>),
}

/// Index into [`ShaderModel::steps`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StepId(pub u32);

/// What a step is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepKind {
    /// An expression statement or a declaration with initializer.
    Statement,
    /// The condition of an `if` (also `?:` later).
    IfCondition,
    /// The init statement of a `for`.
    LoopInit,
    /// The condition of `for`/`while`/`do`.
    LoopCondition,
    /// The increment expression of a `for`.
    LoopIncrement,
    Return,
    Break,
    Continue,
    Discard,
}

impl StepKind {
    pub fn name(self) -> &'static str {
        match self {
            StepKind::Statement => "statement",
            StepKind::IfCondition => "if-condition",
            StepKind::LoopInit => "loop-init",
            StepKind::LoopCondition => "loop-condition",
            StepKind::LoopIncrement => "loop-increment",
            StepKind::Return => "return",
            StepKind::Break => "break",
            StepKind::Continue => "continue",
            StepKind::Discard => "discard",
        }
    }
}

/// A variable visible at a step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variable {
    pub name: String,
    /// GLSL type as written, e.g. "vec3", "float[4]".
    pub ty: String,
}

/// One static step of the shader.
#[derive(Clone, Debug)]
pub struct Step {
    pub id: StepId,
    pub kind: StepKind,
    /// Name of the function the step is in.
    pub function: String,
    /// 1-based position in the original source.
    pub line: u32,
    pub column: u32,
    /// Short source text of the step, one line.
    pub text: String,
    /// Variables in scope before the step executes: the stage's built-ins
    /// first, then globals, inputs, uniforms, parameters and locals (the
    /// innermost last).
    pub scope: Vec<Variable>,
    /// Number of enclosing loops inside `function`.
    pub loop_depth: u32,
    /// User functions called by this step, in evaluation order.
    pub calls: Vec<String>,
    /// `IfCondition` and `LoopCondition` steps: the condition they test,
    /// from the AST (nothing needs to re-parse [`Step::text`], which may
    /// be shortened).
    pub condition: Option<StepCondition>,
}

/// The statement a condition step belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConditionKind {
    If,
    Switch,
    While,
    For,
    /// The condition of a `do ... while`.
    Do,
}

impl ConditionKind {
    /// The statement's keyword: "if", "switch", "while", "for", "do".
    pub fn keyword(self) -> &'static str {
        match self {
            ConditionKind::If => "if",
            ConditionKind::Switch => "switch",
            ConditionKind::While => "while",
            ConditionKind::For => "for",
            ConditionKind::Do => "do",
        }
    }
}

/// The condition of a branch, `switch` or loop step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepCondition {
    pub kind: ConditionKind,
    /// The condition on one line without keyword and parentheses
    /// (`p.x > t`; a declaring `while` condition as `bool b = e`), as the
    /// source writes it (as glsl-lang prints it where a macro is
    /// involved), never shortened: an expression to probe.
    pub text: String,
    /// Byte range of the condition in [`ShaderModel::source`] (`None`
    /// where the parser gave none).
    pub span: Option<std::ops::Range<usize>>,
}

/// A dynamic position: one static step, in one call instance, at one loop iteration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub step: StepId,
    /// Call sites from `main` inward: each is the step containing the call
    /// and the index of the call among that step's `calls`.
    pub calls: Vec<(StepId, u32)>,
    /// Iteration index (0-based) of each enclosing loop, outermost first,
    /// across the whole call chain (loops of callers first).
    pub iterations: Vec<u32>,
}

/// How `successors` moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepMode {
    /// Into user function calls.
    Into,
    /// Over calls.
    Over,
    /// Out of the current function.
    Out,
}

/// Where a debug output of the instrumented shader is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutputSlot {
    /// fragment: a named `out` variable without a location; the executor picks a free location.
    Named(String),
    /// fragment: `gl_FragData[index]` (GLSL < 1.30 and ES 1.00).
    FragData(u32),
    /// vertex, tess-eval, geometry: an extra `out` varying of that name (`varying`
    /// before GLSL 1.30 / in ES 1.00), to capture with transform feedback (one
    /// value per emitted vertex).
    Varying(String),
    /// compute, tess-control: a storage block named `block` at `binding` (one
    /// the shader does not use), whose only member is the runtime-sized array
    /// `member` (std430: `vec4` for the value, `float` for the coverage).
    /// Compute: indexed by the invocation's linear global index (x + y*sizeX +
    /// z*sizeX*sizeY over the whole dispatch); tess-control: by
    /// `gl_PrimitiveID * <output vertices> + gl_InvocationID`.
    Buffer {
        binding: u32,
        block: String,
        member: String,
    },
}

/// What the instrumented program may change besides adding the debug outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Semantics {
    /// The original outputs are bit-identical to the original program's; a
    /// `discard` stays a `discard` (a fragment discarded after the probe
    /// loses its debug value).
    #[default]
    Equivalent,
    /// Debugger view: a `discard` directly in `main` after the debug value
    /// was written returns from `main` instead, so discarded fragments still
    /// report the value (their original outputs are then not meaningful).
    ReportDiscarded,
}

/// A request: the value of `expr` (or coverage only) at `position`.
#[derive(Clone, Debug)]
pub struct Probe<'a> {
    pub position: &'a Position,
    /// `None`: only coverage is wanted.
    pub expr: Option<&'a str>,
    pub semantics: Semantics,
}

/// A generated debug shader and where its outputs are.
#[derive(Clone, Debug)]
pub struct Instrumented {
    pub source: String,
    /// The program's other shader objects of this stage (set with
    /// [`ShaderModel::set_siblings`]) as the debug program must compile
    /// them: fragment siblings write the outputs `source` renamed
    /// `gl_FragColor`/`gl_FragData` to.
    pub siblings: Vec<String>,
    /// vec4 debug value output.
    pub value: OutputSlot,
    /// float coverage output: 0.0 = did not reach; else a type code (see [`decode_type`]).
    pub coverage: OutputSlot,
    /// Names of the shader's own user-defined outputs (kept at their app locations).
    pub app_outputs: Vec<String>,
    /// Name of the `uniform int[N]` holding the loop path; set it to `position.iterations`.
    /// `None` if the position has no enclosing loops.
    pub path_uniform: Option<String>,
    /// Hash of everything that determines `source`.
    pub cache_key: u64,
    /// geometry: the emission of each captured vertex, a `vec3` varying:
    /// the invocation's emit index (0 for the first vertex it emits, counted
    /// over all streams), `gl_PrimitiveIDIn` and `gl_InvocationID` (0 where
    /// the shader's GLSL has none).
    pub emission: Option<OutputSlot>,
    /// compute shader that does not declare its `local_size` (another shader
    /// of the program does): name of the `uniform uvec3` the buffer index is
    /// computed with. The executor sets it to `GL_COMPUTE_WORK_GROUP_SIZE` of
    /// the linked program; unset, the app's outputs are still unchanged.
    pub local_size_uniform: Option<String>,
    /// tess-control shader without its own `layout(vertices = N) out;`: name
    /// of the `uniform uint` the buffer index is computed with. The executor
    /// sets it to `GL_TESS_CONTROL_OUTPUT_VERTICES` of the linked program.
    pub output_vertices_uniform: Option<String>,
    /// vertex shader instrumented for a non-indexed draw
    /// ([`ShaderModel::instrument_vertex_buffer`]): the `uniform uint`s
    /// the executor sets to the draw's `first` and `count`.
    pub vertex_index_uniforms: Option<(String, String)>,
}

/// GLSL type of a debug value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueType {
    pub base: BaseType,
    /// 1..=4 (doubles: 1..=2)
    pub components: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BaseType {
    Float,
    Int,
    Uint,
    Bool,
    /// Two value words per component: a `double` or `dvec2` fills the
    /// debug output's vec4; wider double types are probed in parts
    /// ([`ShaderModel::value_layout`]).
    Double,
}

impl fmt::Display for ValueType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (scalar, prefix) = match self.base {
            BaseType::Float => ("float", ""),
            BaseType::Int => ("int", "i"),
            BaseType::Uint => ("uint", "u"),
            BaseType::Bool => ("bool", "b"),
            BaseType::Double => ("double", "d"),
        };
        if self.components == 1 {
            f.write_str(scalar)
        } else {
            write!(f, "{prefix}vec{}", self.components)
        }
    }
}

/// The type of a value from its coverage texel; `None` = not reached.
///
/// Codes: `4 * base + components` with base float 0, int 1, uint 2,
/// bool 3 (float = 1 ... vec4 = 4, int = 5 ... ivec4 = 8, uint = 9 ...
/// uvec4 = 12, bool = 13 ... bvec4 = 16). A probe without expression
/// writes 17 ("reached, no value"), which decodes as `float` (value 0).
/// 0 and anything else = not reached.
///
/// Integers are bit-exact (intBitsToFloat / uintBitsToFloat) where the
/// shader's GLSL has them (desktop >= 330, ES >= 300, or
/// GL_ARB_shader_bit_encoding / GL_ARB_gpu_shader5, which the debug shader
/// enables when available from GLSL 1.30); otherwise they are converted to
/// float and their code is the float code (they decode as `float`).
/// `double` (18) and `dvec2` (19) are bit-exact where the shader has
/// `uintBitsToFloat`; elsewhere, and for `dvec3`/`dvec4` probed whole,
/// they are converted to float. Bools decode as 0.0 / 1.0.
pub fn decode_type(coverage: f32) -> Option<ValueType> {
    value::decode_type(coverage)
}

pub use history::{
    HISTORY_DONE, HISTORY_ENTERED, HISTORY_RECORD_WORDS, HistoryOutput, HistoryRecord, PixelHistory,
};
pub use hits::{DPRINTF_MESSAGE_HEADER_WORDS, Dprintf, HitKind, HitSpec};
pub use parts::{MAX_PARTS, ValueLayout, ValuePart};
pub use sampling::SamplingSite;
pub use summary::{
    ComponentSummary, LocalsSummary, SUMMARY_WORDS_PER_COMPONENT, float_key, key_value,
};
pub use trace::{
    END_RECORD, ENTRY_RECORD, RecordLayout, TRACE_HEADER_WORDS, Trace, TraceLayout, TraceSpec,
    TracedPart, TracedVar, TracedWrite, VarRole,
};
pub use value::coverage_code;

impl ValueType {
    /// How many words of the value texel the value fills.
    pub fn words(self) -> usize {
        let n = usize::from(self.components.clamp(1, 4));
        match self.base {
            BaseType::Double => 2 * n.min(2),
            _ => n,
        }
    }

    /// The components of a value texel, in order.
    pub fn decode(self, texel: [f32; 4]) -> Vec<f64> {
        value::decode(self, texel)
    }

    /// [`ValueType::decode`] without allocating: the components, zeros
    /// after them, and how many there are.
    pub fn decode_fixed(self, texel: [f32; 4]) -> ([f64; 4], usize) {
        value::decode_fixed(self, texel)
    }
}

/// The API of the context a shader is compiled in: it decides the
/// language of a shader without `#version`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Api {
    /// Desktop OpenGL: GLSL 1.10 without `#version`.
    #[default]
    Gl,
    /// OpenGL ES: GLSL ES 1.00 without `#version`.
    Es,
    /// OpenGL ES 2.x: as [`Api::Es`], and the context has no float render
    /// target: a GLSL ES 1.00 fragment debug shader writes each value
    /// component's IEEE-754 bits into an RGBA8 output of its own
    /// (`gl_FragData[k..k+4]`, least significant byte in red) and the
    /// coverage code into the next one's red byte.
    Es2,
}

impl Api {
    /// The version of a shader without `#version` in a context of this API
    /// (number, ES).
    pub(crate) fn default_version(self) -> (u32, bool) {
        match self {
            Api::Gl => (110, false),
            Api::Es | Api::Es2 => (100, true),
        }
    }
}

/// A parsed shader with its step model.
///
/// Lines and columns are those of [`ShaderModel::source`] (the shader with
/// its `#include`s spliced in; a statement produced by a macro sits where
/// the macro is used); [`ShaderModel::driver_line`] gives the number the
/// driver uses for one (after `#line` and `#include`). Step text is the step's source
/// text on one line, or, where a macro is involved, the expansion as
/// glsl-lang prints it (literals normalised, e.g. `1.`).
pub struct ShaderModel {
    source: String,
    stage: Stage,
    version: u32,
    es: bool,
    tu: glsl_lang::ast::TranslationUnit,
    extensions: Vec<String>,
    /// `#extension` lines hidden from glsl-lang (unknown to it), re-emitted.
    unknown_extensions: Vec<String>,
    /// Every identifier of the source, so generated names are unique.
    idents: HashSet<String>,
    /// The preprocessor's view: macros in effect per line (for probe
    /// expressions), the driver's line numbers.
    pp: preprocess::Preprocessed,
    model: steps::Model,
    /// The context's API (decides how fragment debug outputs are written).
    api: Api,
    /// The program's other shader objects of this stage (see
    /// [`ShaderModel::set_siblings`]).
    siblings: Vec<String>,
}

impl ShaderModel {
    /// Parse `source` (a complete shader, `#version` first or defaulting to 110).
    ///
    /// Errors: anything glsl-lang cannot parse even after parse.rs's
    /// workarounds (e.g. a nested `##` concatenation), and a
    /// shader without a `main` that has at least one step.
    ///
    /// Valid GLSL that glsl-lang rejects is rewritten first, keeping every
    /// byte offset (parse.rs): unknown `#extension`s are hidden (their macro
    /// stays defined under a same-length placeholder), `GL_ES` and
    /// `GL_FRAGMENT_PRECISION_HIGH` tests are resolved as the driver would,
    /// wide integer literals (`0xe40fe410`, `20l`, `0ul`) and `unsigned int`
    /// become placeholders printed back verbatim, and built-in type names
    /// gated by version (`atomic_uint` in 3.10 es, `dvec3` via an
    /// extension, int64 types) are declared when a first parse fails.
    pub fn parse(source: &str, stage: Stage) -> Result<ShaderModel, ParseError> {
        ShaderModel::parse_in(source, stage, Api::Gl)
    }

    /// [`ShaderModel::parse`] for a shader of a context of `api`: in GL ES
    /// a shader without `#version` is GLSL ES 1.00 (`GL_ES` defined, its
    /// precision statements kept), not GLSL 1.10.
    pub fn parse_in(source: &str, stage: Stage, api: Api) -> Result<ShaderModel, ParseError> {
        Self::parse_with(source, stage, &Includes::default(), api)
    }

    /// [`ShaderModel::parse_in`] with the named strings an `#include` may
    /// name (`ARB_shading_language_include`), spliced in as the driver does.
    /// Branches (`#if` ...) are decided once, by [`preprocess`]: glsl-lang
    /// parses only the active lines. Error lines are the driver's numbers.
    pub fn parse_with(
        source: &str,
        stage: Stage,
        includes: &Includes,
        api: Api,
    ) -> Result<ShaderModel, ParseError> {
        let pp = preprocess::preprocess(source, includes, api)?;
        Self::parse_preprocessed(pp, stage, api)
    }

    fn parse_preprocessed(
        pp: preprocess::Preprocessed,
        stage: Stage,
        api: Api,
    ) -> Result<ShaderModel, ParseError> {
        let text = pp.text.clone();
        let source = text.as_str();
        // Errors say the driver's line numbers.
        let at_driver_line = |e: ParseError| ParseError {
            line: pp.driver_line(e.line),
            ..e
        };
        let parsed = parse::parse_active(source, &pp.active, api).map_err(at_driver_line)?;
        let mut tu = parsed.tu;
        let builtins = steps::builtin_scope(stage, parsed.version, parsed.es, parsed.compat);
        let model = steps::build(&mut tu, source, builtins);
        let Some(main) = model.main else {
            return Err(ParseError {
                line: 1,
                column: 1,
                message: "no `main` function".into(),
            });
        };
        if !matches!(model.functions[main].entry, steps::Target::Step { .. }) {
            let (line, column) = match &tu.0[model.functions[main].decl].span {
                Some(span) => parse::line_col(source, usize::from(span.start().offset)),
                None => (1, 1),
            };
            return Err(at_driver_line(ParseError {
                line,
                column,
                message: "`main` has no statement to debug".into(),
            }));
        }
        let mut idents = HashSet::new();
        parse::words(source, &mut idents);
        parse::words(&parse::print_tu(&tu.0), &mut idents);
        Ok(ShaderModel {
            source: source.to_string(),
            stage,
            version: parsed.version,
            es: parsed.es,
            tu,
            extensions: parsed.extensions,
            unknown_extensions: parsed.unknown_extensions,
            idents,
            pp,
            model,
            api,
            siblings: Vec::new(),
        })
    }

    /// Whether the shader defines `main` (a program's stage may be several
    /// shader objects, one of them with `main`).
    pub fn has_main(&self) -> bool {
        self.model.main.is_some()
    }

    /// The program's other shader objects of this stage, as the driver
    /// compiles them (`#include`s spliced): the debug shader accounts for
    /// what they write (a fragment sibling's `gl_FragColor`), and
    /// [`Instrumented::siblings`] is what the debug program links in
    /// their place.
    pub fn set_siblings(&mut self, sources: Vec<String>) {
        for s in &sources {
            parse::words(s, &mut self.idents);
        }
        self.siblings = sources;
    }

    /// The number the driver gives 1-based line `line` of
    /// [`ShaderModel::source`] (after `#line` and `#include`): what its
    /// logs say, and what a user names.
    pub fn driver_line(&self, line: u32) -> u32 {
        self.pp.driver_line(line)
    }

    /// The lines of [`ShaderModel::source`] (1-based) the driver numbers
    /// `driver_line`, in order (several where `#line` repeats numbers).
    pub fn lines_numbered(&self, driver_line: u32) -> Vec<u32> {
        (1..=self.pp.lines.len() as u32)
            .filter(|&l| self.pp.driver_line(l) == driver_line)
            .collect()
    }

    /// The `#define`s in effect at `step`, for probe expressions there.
    pub(crate) fn probe_macros(&self, step: StepId) -> String {
        let line = self
            .steps()
            .get(step.0 as usize)
            .map_or(u32::MAX, |s| s.line);
        self.pp.macros_at(line)
    }

    pub fn stage(&self) -> Stage {
        self.stage
    }

    /// `#version` number (110 if absent) and whether it is ES.
    pub fn version(&self) -> (u32, bool) {
        (self.version, self.es)
    }

    /// The original source.
    pub fn source(&self) -> &str {
        &self.source
    }

    pub fn steps(&self) -> &[Step] {
        &self.model.steps
    }

    pub fn step(&self, id: StepId) -> &Step {
        &self.steps()[id.0 as usize]
    }

    /// The first step of `main`.
    pub fn entry(&self) -> Position {
        // `parse` guarantees main has a first step.
        let step = self
            .model
            .main
            .and_then(|m| match self.model.functions[m].entry {
                steps::Target::Step { step, .. } => Some(step),
                _ => None,
            })
            .unwrap_or(0);
        let depth = self
            .model
            .steps
            .get(step as usize)
            .map_or(0, |s| s.loop_depth as usize);
        Position {
            step: StepId(step),
            calls: Vec::new(),
            iterations: vec![0; depth],
        }
    }

    /// Steps whose position starts on `line`, in source order.
    pub fn steps_on_line(&self, line: u32) -> Vec<StepId> {
        self.model
            .steps
            .iter()
            .filter(|s| s.line == line)
            .map(|s| s.id)
            .collect()
    }

    /// Candidate next positions after `pos`, preferred first (e.g. the
    /// then-branch before the else-branch, the loop body before the exit).
    /// The debugger takes the first one that some invocation reaches; if
    /// none is reached it asks again from the last candidate. Empty: the
    /// shader ends after `pos`.
    ///
    /// Loop iterations: for `for`/`while`, the n-th evaluation (0-based) of
    /// the condition is iteration n, and so are the body and the increment
    /// that follow it; for `do`, body n then condition n. `Into` lists the
    /// first step of each user function the step calls (in call order),
    /// then the normal successors; a function's end continues after its
    /// call site (with `Into`, first into the call site's next call).
    /// `Out` gives the continuation in the caller (nothing in `main`).
    /// Malformed positions give no successors.
    pub fn successors(&self, pos: &Position, mode: StepMode) -> Vec<Position> {
        self.model.successors(pos, mode)
    }

    /// Generate the debug shader for `probe`, for every stage. Outputs
    /// ([`OutputSlot`]): fragment: GLSL >= 1.30 (ES >= 3.00) gets two named
    /// `out`s (ES: with explicit locations after the app's), and a use of
    /// `gl_FragColor`/`gl_FragData` becomes a named output listed in
    /// `app_outputs`; older GLSL writes `gl_FragData[k]`, `gl_FragData[k+1]`
    /// with `gl_FragColor` rewritten to `gl_FragData[0]`. Vertex, tess-eval:
    /// two `Varying`s (0 where not reached). Geometry: the same, written
    /// before every `EmitVertex`/`EmitStreamVertex`, plus `emission`.
    /// Tess-control, compute: two `Buffer`s at bindings the shader does not use.
    ///
    /// With [`Semantics::Equivalent`] the app's own outputs are unchanged.
    /// With [`Semantics::ReportDiscarded`] a `discard` directly in `main`
    /// after the debug value was written returns from main instead, so the
    /// fragment keeps its debug outputs (its own outputs are then written
    /// too); a `discard` in another function still drops the fragment.
    pub fn instrument(&self, probe: &Probe<'_>) -> Result<Instrumented, InstrumentError> {
        // Type check first (typeck.rs): a certain error is reported here
        // with its column; anything unknown is left to the driver.
        if let Some(expr) = probe.expr {
            effects::check_probe(self, probe.position.step, expr)?;
            typeck::check(self, probe.position.step, expr)?;
        }
        instrument::instrument_to(self, probe, instrument::Options::default())
    }

    /// Like [`ShaderModel::instrument`], but the value is taken at the end
    /// of `main`, after its last statement (an invocation that returned
    /// early or was discarded does not reach it): what a debugger shows
    /// once stepping has finished, outputs included. `probe.position` is
    /// not used; names are those in scope at `main`'s last step.
    pub fn instrument_end_of_main(
        &self,
        probe: &Probe<'_>,
    ) -> Result<Instrumented, InstrumentError> {
        if let (Some(expr), Some(last)) = (probe.expr, instrument::last_main_step(self)) {
            effects::check_probe(self, last, expr)?;
            typeck::check(self, last, expr)?;
        }
        instrument::instrument_to(
            self,
            probe,
            instrument::Options {
                at: instrument::At::EndOfMain,
                ..Default::default()
            },
        )
    }

    /// [`ShaderModel::instrument`] (or, `at_end`, `instrument_end_of_main`)
    /// of a vertex shader for a non-indexed draw: the value and coverage go
    /// to two storage blocks ([`OutputSlot::Buffer`]) at the vertex's place
    /// in the draw, `gl_VertexID - first + gl_InstanceID * count`, with
    /// `first` and `count` the uniforms named in
    /// [`Instrumented::vertex_index_uniforms`]; no transform feedback
    /// (on an H100, capturing 1M vertices with it took 5.0 ms of GPU time;
    /// the whole step this way takes 1.7 ms). Unsupported: another stage,
    /// or GLSL before 1.40 / ES 3.10.
    pub fn instrument_vertex_buffer(
        &self,
        probe: &Probe<'_>,
        at_end: bool,
    ) -> Result<Instrumented, InstrumentError> {
        let step = match at_end {
            true => instrument::last_main_step(self),
            false => Some(probe.position.step),
        };
        if let (Some(expr), Some(step)) = (probe.expr, step) {
            effects::check_probe(self, step, expr)?;
            typeck::check(self, step, expr)?;
        }
        instrument::instrument_to(
            self,
            probe,
            instrument::Options {
                at: instrument::At::from_end(at_end),
                capture: instrument::Capture::VertexBuffer,
                ..Default::default()
            },
        )
    }

    /// The *written probe* of `probe.expr`: a debug shader that hands out,
    /// instead of the value, whether the outputs it reads were written yet
    /// on the invocation's path (`bool`/`bvecN`: per component where the
    /// expression is an output or a part of one, else one `bool` for all;
    /// see `instrument/written.rs`). An output is undefined until written.
    /// `at_end`: at the end of `main`, as [`ShaderModel::instrument_end_of_main`].
    /// `Ok(None)`: the expression reads no output the probe tracks;
    /// [`InstrumentError::WrittenUnknown`]: gldbg cannot tell.
    pub fn instrument_written(
        &self,
        probe: &Probe<'_>,
        at_end: bool,
    ) -> Result<Option<Instrumented>, InstrumentError> {
        let opts = instrument::Options {
            at: instrument::At::from_end(at_end),
            reading: instrument::Reading::Written,
            ..Default::default()
        };
        match instrument::instrument_to(self, probe, opts) {
            Ok(i) => Ok(Some(i)),
            Err(InstrumentError::Unsupported(_)) if probe.expr.is_some() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The last step of `main`: where names resolve for
    /// [`ShaderModel::instrument_end_of_main`].
    pub fn last_step_of_main(&self) -> Option<StepId> {
        instrument::last_main_step(self)
    }

    /// How `print` probes `expr` at `step`: in parts where the value is
    /// wider than the debug output (a matrix by column, an array by
    /// element, a struct by field, a `dvec3` as `.xy` and `.z`). `None`
    /// where the type checker does not know the type (the driver decides;
    /// probe the expression whole). Errors: a side effect, a certain type error, an
    /// opaque value (sampler, image), an unsized array, more than
    /// [`MAX_PARTS`] parts.
    pub fn value_layout(
        &self,
        step: StepId,
        expr: &str,
    ) -> Result<Option<ValueLayout>, InstrumentError> {
        effects::check_probe(self, step, expr)?;
        parts::layout(self, step, expr)
    }

    /// The GLSL type of `expr` at `step` ("vec3", "float[4]", "S"), or
    /// `None` where the type checker does not know it (an unknown function,
    /// an extension's type) or the expression does not parse. Errors: a
    /// certain type error (see [`ShaderModel::instrument`]).
    pub fn expression_type(
        &self,
        step: StepId,
        expr: &str,
    ) -> Result<Option<String>, InstrumentError> {
        Ok(typeck::check(self, step, expr)?.map(|t| t.to_string()))
    }
}

/// `text` as an error quotes it: whole up to `max` characters, else its
/// first `max`, `…` and its length in bytes.
pub fn quote(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => text.into(),
        Some((end, _)) => format!("{}… ({} bytes)", &text[..end], text.len()).into(),
    }
}

#[cfg(test)]
pub(crate) mod test_shaders {
    /// A user function with a for loop and an if/else, called from main.
    pub const LOOP_BRANCH: &str = "#version 330 core
uniform float scale;
in vec2 uv;
out vec4 color;

float shade(float x, int n) {
    float acc = 0.0;
    for (int i = 0; i < n; i++) {
        if (x > 0.5) {
            acc += x * float(i);
        } else {
            acc -= 1.0;
        }
    }
    return acc;
}

void main() {
    float d = length(uv);
    float s = shade(d, 4) * scale;
    color = vec4(s, d, 0.0, 1.0);
}
";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_megabyte_expression_is_quoted_not_repeated() {
        let long = "a".repeat(1 << 20);
        let e = InstrumentError::BadExpression {
            expr: long.clone(),
            message: format!("unknown name `{long}`"),
        }
        .to_string();
        assert!(e.len() < 600, "{} bytes: {}", e.len(), &e[..200]);
        assert!(
            e.starts_with(&format!("expression `{}… (1048576 bytes)`", "a".repeat(80))),
            "{e}"
        );
    }

    #[test]
    fn model_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<ShaderModel>();
    }

    #[test]
    fn parse_errors_never_panic() {
        let e = ShaderModel::parse(
            "#version 400\nvec4 S(vec4 c);\nvec4 f(vec4 c) { return c +; }\nvoid main() {}\n",
            Stage::Fragment,
        )
        .err()
        .unwrap();
        assert_eq!(e.line, 3);
        assert!(e.to_string().starts_with("3:"), "{e}");
        assert!(ShaderModel::parse("float f() { return 1.0; }", Stage::Fragment).is_err());
        assert!(ShaderModel::parse("void main() { }", Stage::Fragment).is_err());
        // Every prefix of a real shader: an error or a model, never a panic.
        let src = test_shaders::LOOP_BRANCH;
        for end in (0..src.len()).step_by(7) {
            if let Ok(m) = ShaderModel::parse(&src[..end], Stage::Fragment) {
                let _ = m.successors(&m.entry(), StepMode::Into);
            }
        }
    }

    #[test]
    fn calls_resolve_like_glsl() {
        // A definition after the call does not redirect it: `abs` here is the built-in.
        let m = ShaderModel::parse(
            "void main() {\n  gl_FragColor = abs(vec4(0.0, -1.0, 0.0, 1.0));\n}\nvec4 abs(vec4 u) { return vec4(1.0, 0.0, 0.0, 1.0); }\n",
            Stage::Fragment,
        )
        .unwrap();
        assert!(m.step(m.entry().step).calls.is_empty());
        // ... unless a prototype comes first.
        let m = ShaderModel::parse(
            "vec4 abs(vec4 u);\nvoid main() {\n  gl_FragColor = abs(vec4(0.0));\n}\nvec4 abs(vec4 u) { return vec4(1.0, 0.0, 0.0, 1.0); }\n",
            Stage::Fragment,
        )
        .unwrap();
        assert_eq!(m.step(m.entry().step).calls, vec!["abs".to_string()]);
        // Overloads by implicit conversion: foo(int, int, int) picks the
        // candidate with the most exact arguments.
        let m = ShaderModel::parse(
            "#version 150\nout vec4 r;\nvoid foo(float x, int y, float z) { r = vec4(1.0); }\nvoid foo(float x, int y, int z) { r = vec4(0.5); }\nvoid main() {\n  int a = 0;\n  foo(a, a, a);\n}\n",
            Stage::Fragment,
        )
        .unwrap();
        let call = m.steps().iter().find(|s| s.line == 7).unwrap();
        let next = m.successors(
            &Position {
                step: call.id,
                calls: vec![],
                iterations: vec![],
            },
            StepMode::Into,
        );
        assert_eq!(m.step(next[0].step).line, 4, "{next:?}");
    }

    #[test]
    fn entry_and_lines() {
        let m = ShaderModel::parse(test_shaders::LOOP_BRANCH, Stage::Fragment).unwrap();
        assert_eq!(m.version(), (330, false));
        assert_eq!(m.stage(), Stage::Fragment);
        let e = m.entry();
        assert_eq!(m.step(e.step).line, 19);
        assert!(e.calls.is_empty() && e.iterations.is_empty());
        assert_eq!(m.steps_on_line(8).len(), 3); // for init, condition, increment
        assert!(m.steps_on_line(5).is_empty());
    }
}
