//! One-replay questions over every invocation (issue 14, "over all
//! invocations"): conditional breakpoints, `catch nan` / `catch inf`
//! ([`ShaderModel::instrument_hits`]) and `dprintf`
//! ([`ShaderModel::instrument_dprintf`]).
//!
//! Both run the app's code unchanged in every invocation (only `gldbg_`
//! names and statements are added) and are built in two passes: the app's
//! tree gets the additions (`edit`), is printed and parsed again, and that
//! shader gets the usual end-of-`main` probe
//! ([`ShaderModel::instrument_end_of_main`]), so every replay kind reads
//! the result as it reads any end-of-`main` value.
//!
//! **Hits.** Every invocation keeps a record counter counted exactly as
//! the trace (trace.rs) numbers its records: 0 at the entry of `main`,
//! then +1 before every step of every function, in execution order (the
//! same places as `write_at`), saturating at `0xFFFF_FFFE`. A hit's record
//! index is therefore the index of the trace record of the same execution.
//! The end-of-`main` value is the `uvec4`
//!
//! ```text
//! x: record index of the invocation's first hit + 1 (0: no hit)
//! y: hits (executions), saturating at 0xFFFFFFFF
//! z: step id of the first hit (0 where x is 0)
//! w: 0
//! ```
//!
//! A [`HitKind::Condition`] hit is an execution of one of its steps where
//! the condition holds before the step runs; a [`HitKind::Catch`] hit is
//! an execution of a step that assigned a float-based value that is NaN
//! (or Inf) afterwards: its record index is the assigning step's. An
//! invocation that is discarded or that ends without reaching the end of
//! `main` (or a `return` of it) reports nothing (no coverage).
//!
//! **dprintf** appends messages to a storage block, see [`Dprintf`].

use glsl_lang::ast;

use crate::parse::{Names, parse_expr_in};
use crate::{InstrumentError, Instrumented, Probe, Semantics, ShaderModel, StepId, ValueType};

mod catch;
mod dprintf;
mod edit;

/// Words of a dprintf message before its arguments' words: step id and
/// the invocation's id (x, y, z).
pub const DPRINTF_MESSAGE_HEADER_WORDS: usize = 4;

/// What [`ShaderModel::instrument_hits`] counts.
#[derive(Clone, Copy, Debug)]
pub struct HitSpec<'a> {
    pub kind: HitKind<'a>,
    /// Hits before this record index are counted, not remembered (a
    /// `continue` from record K asks for K + 1).
    pub after: u32,
    /// Of the hits from `after` on, the first `skip` are passed over
    /// (`ignore`): the one remembered is the next.
    pub skip: u32,
}

/// The kind of hit.
#[derive(Clone, Copy, Debug)]
pub enum HitKind<'a> {
    /// Before each execution of one of `steps` (e.g. every step of a
    /// source line): a hit where `cond` (GLSL valid at that step, without
    /// side effects or calls of the shader's functions, convertible to
    /// `bool`) holds; `None`: every execution. A step where `cond` does
    /// not resolve (a name not in scope yet: a `for`'s variable at its
    /// init) is left out; an error only where it resolves at none.
    Condition {
        steps: &'a [StepId],
        cond: Option<&'a str>,
    },
    /// After each step that assigns a float-based value (`float`, `vecN`,
    /// `matN`, doubles, arrays and structs of them, whole or a part):
    /// a hit where what it wrote is NaN (`nan`) or infinite (`inf`).
    /// Checked: a statement's top-level assignments, `++`/`--` and
    /// initialised declarations, and `for` increments, the lvalue as
    /// written re-read after the step. Not checked: writes that may not
    /// happen (under `?:`, `&&`, `||`), in conditions or a `for` init,
    /// through `out` arguments, lvalues with an effect (`a[i++]`), types
    /// the type checker does not know.
    Catch { nan: bool, inf: bool },
}

/// A dprintf shader ([`ShaderModel::instrument_dprintf`]).
///
/// The block [`Dprintf::block`] (std430, declared without binding on
/// desktop GL: bind a buffer to it; see [`Dprintf::binding`]) has the
/// trace block's header:
///
/// ```text
/// uint hits;     // not written (0 if the buffer was cleared)
/// uint records;  // messages attempted (atomicAdd)
/// uint words;    // words of `data` written (atomicAdd)
/// uint full;     // 1 once a message did not fit (it was dropped)
/// uint data[];   // the messages, each at slot k * message_words
/// ```
///
/// A message is `[step id, invocation x, y, z, words of each arg...]`;
/// the invocation id by stage: fragment `ivec2(gl_FragCoord.xy)`, 0;
/// vertex `gl_VertexID`, `gl_InstanceID`, 0; compute
/// `gl_GlobalInvocationID`; tess-control `gl_PrimitiveID`,
/// `gl_InvocationID`, 0; tess-eval `gl_PrimitiveID`, then the bits of
/// `gl_TessCoord.x` and `.y`; geometry `gl_PrimitiveIDIn`,
/// `gl_InvocationID` (0 before GLSL 4.00), 0. Each argument's components
/// are one word each (float bits, int bits, uint, bool 0/1; a double two
/// words, low then high). The k-th attempted message is written at word
/// `k * message_words` where it fits in `data.length()`; else `full` is
/// set and it is dropped (so messages are the first `words /
/// message_words` slots, all written).
#[derive(Clone, Debug)]
pub struct Dprintf {
    /// An end-of-`main` coverage-only probe (as the trace's) plus the writes.
    pub shader: Instrumented,
    /// The storage block's name (`gldbg_` prefix).
    pub block: String,
    /// GLSL ES (which cannot rebind a block): the binding the block is
    /// declared with, after the shader's own buffers; desktop: `None`
    /// (declared without one: bind it by name).
    pub binding: Option<u32>,
    /// The arguments' types, in order.
    pub args: Vec<ValueType>,
}

impl Dprintf {
    /// Words of one message.
    pub fn message_words(&self) -> usize {
        DPRINTF_MESSAGE_HEADER_WORDS + self.args.iter().map(|t| t.words()).sum::<usize>()
    }
}

impl ShaderModel {
    /// The hit shader of `spec` (see the module documentation of
    /// `hits.rs`): its end-of-`main` value is `uvec4(first record + 1,
    /// hits, step of the first hit, 0)`. Errors: a condition with a side
    /// effect, a call of the shader's functions, a certain type error (with
    /// its column) or a type that is not a scalar; an unknown step;
    /// [`InstrumentError::Unsupported`] where the shader's GLSL has no
    /// `uint` (before GLSL 1.30 or ES 3.00).
    pub fn instrument_hits(&self, spec: &HitSpec<'_>) -> Result<Instrumented, InstrumentError> {
        let (desktop, es) = (130, 300);
        if self.version < if self.es { es } else { desktop } {
            return Err(InstrumentError::Unsupported(format!(
                "hit counts need `uint` (GLSL 1.30 or GLSL ES 3.00); this shader is {}",
                version_name(self)
            )));
        }
        let mut names = Names::new(&self.idents);
        let plan = match spec.kind {
            HitKind::Condition { steps, cond } => {
                edit::condition_plan(self, steps, cond, (spec.after, spec.skip), &mut names)?
            }
            HitKind::Catch { nan, inf } => {
                catch::plan(self, nan, inf, (spec.after, spec.skip), &mut names)?
            }
        };
        let model = reparse(self, &plan)?;
        let expr = format!(
            "uvec4({}, {}, {}, 0u)",
            plan.counters.first, plan.counters.hits, plan.counters.step
        );
        model.instrument_end_of_main(&Probe {
            position: &model.entry(),
            expr: Some(&expr),
            semantics: Semantics::Equivalent,
        })
    }

    /// The dprintf shader: before each execution of one of `steps`, every
    /// invocation appends a message with the values of `args` (each a
    /// scalar or vector expression valid at every one of the steps, of one
    /// type) to the storage block (see [`Dprintf`]); a step where an
    /// argument does not resolve is left out. Errors: a bad
    /// argument (named), an unknown step; [`InstrumentError::Unsupported`]
    /// where the shader's GLSL has no storage blocks (before GLSL 4.30
    /// without `GL_ARB_shader_storage_buffer_object` from 1.40, or before
    /// GLSL ES 3.10).
    pub fn instrument_dprintf(
        &self,
        steps: &[StepId],
        args: &[&str],
    ) -> Result<Dprintf, InstrumentError> {
        let mut names = Names::new(&self.idents);
        let (plan, block, binding, types) = dprintf::plan(self, steps, args, &mut names)?;
        let model = reparse(self, &plan)?;
        let shader = model.instrument_end_of_main(&Probe {
            position: &model.entry(),
            expr: None,
            semantics: Semantics::Equivalent,
        })?;
        Ok(Dprintf {
            shader,
            block,
            binding,
            args: types,
        })
    }
}

/// "GLSL 1.20", "GLSL ES 1.00".
pub(crate) fn version_name(m: &ShaderModel) -> String {
    let es = if m.es { "ES " } else { "" };
    format!("GLSL {es}{}.{:02}", m.version / 100, m.version % 100)
}

/// The names of the hit state (globals of the debug shader).
#[derive(Clone, Debug, Default)]
pub(crate) struct Counters {
    /// The record counter.
    pub n: String,
    pub hits: String,
    pub first: String,
    pub step: String,
    /// Hits from `after` on passed over so far (`skip`).
    pub skipped: String,
    /// `uint tick()`: +1 on the counter, returns it.
    pub tick: String,
    /// `bool hit(uint record, uint step, bool c)`: counts a hit where `c`.
    pub hit: String,
    /// `void reset()`: zero all, first thing in `main`.
    pub reset: String,
}

impl Counters {
    fn new(names: &mut Names) -> Counters {
        Counters {
            n: names.fresh("gldbg_n"),
            hits: names.fresh("gldbg_hits"),
            first: names.fresh("gldbg_first"),
            step: names.fresh("gldbg_hit_step"),
            skipped: names.fresh("gldbg_skipped"),
            tick: names.fresh("gldbg_tick"),
            hit: names.fresh("gldbg_hit"),
            reset: names.fresh("gldbg_reset"),
        }
    }

    /// Their declarations and helper functions (GLSL text): every hit is
    /// counted; the one remembered is the `skip + 1`-th at or after
    /// record `after`.
    fn decls(&self, after: u32, skip: u32) -> String {
        let Counters {
            n,
            hits,
            first,
            step,
            skipped,
            tick,
            hit,
            reset,
        } = self;
        format!(
            "highp uint {n};\nhighp uint {hits};\nhighp uint {first};\nhighp uint {step};\n\
             highp uint {skipped};\n\
             void {reset}() {{ {n} = 0u; {hits} = 0u; {first} = 0u; {step} = 0u; {skipped} = 0u; }}\n\
             highp uint {tick}() {{ if ({n} < 0xFFFFFFFEu) {n}++; return {n}; }}\n\
             bool {hit}(highp uint gldbg_r, highp uint gldbg_s, bool gldbg_c) {{\n    if (gldbg_c) {{\n        \
             if ({hits} < 0xFFFFFFFFu) {hits}++;\n        \
             if ({first} == 0u && gldbg_r >= {after}u) {{\n            \
             if ({skipped} < {skip}u) {skipped}++;\n            \
             else {{ {first} = gldbg_r + 1u; {step} = gldbg_s; }}\n        }}\n    }}\n    return gldbg_c;\n}}\n"
        )
    }
}

/// What the first pass adds to the app's tree.
#[derive(Default)]
pub(crate) struct Plan {
    /// By step index: what runs before it (placed as `write_at` places).
    pub before: Vec<Option<ast::Expr>>,
    /// By step index: what runs after it (statement steps: a statement
    /// after it; `for` increments: `(inc, after)`).
    pub after: Vec<Option<ast::Expr>>,
    /// Statements first in `main`.
    pub main_start: Vec<ast::Expr>,
    /// Declarations before the first function.
    pub decls: String,
    /// `#extension` lines after `#version`.
    pub extensions: Vec<String>,
    pub counters: Counters,
}

impl Plan {
    /// A plan with the record counter (ticks before every step) and nothing else.
    fn counting(m: &ShaderModel, names: &mut Names, (after, skip): (u32, u32)) -> Plan {
        let counters = Counters::new(names);
        let n = m.model.steps.len();
        let tick = edit::call(&counters.tick, vec![]);
        Plan {
            before: vec![Some(tick); n],
            after: vec![None; n],
            main_start: vec![edit::call(&counters.reset, vec![])],
            decls: counters.decls(after, skip),
            extensions: Vec::new(),
            counters,
        }
    }
}

/// The app's shader with `plan`'s additions, parsed again.
/// The app's tree `tu` (edited by the caller) printed as a whole shader,
/// with `extensions` after `#version` and `decls` before the first function.
pub(crate) fn print_with(
    m: &ShaderModel,
    tu: &[ast::ExternalDeclaration],
    extensions: Vec<String>,
    decls: String,
) -> String {
    let plan = Plan {
        extensions,
        decls,
        ..Default::default()
    };
    let mut tu = tu.to_vec();
    crate::instrument::printer::protect_commas(&mut tu);
    crate::instrument::printer::fix_type_names(&edit::text(m, &tu, &plan))
}

fn reparse(m: &ShaderModel, plan: &Plan) -> Result<ShaderModel, InstrumentError> {
    let text = edit::apply(m, plan)?;
    let mut model = ShaderModel::parse_in(&text, m.stage, m.api).map_err(|e| {
        InstrumentError::Unsupported(format!(
            "internal error: the shader with hit counters does not parse again: {e}"
        ))
    })?;
    model.set_siblings(m.siblings.clone());
    Ok(model)
}

/// An expression for `step`: parsed there, refused with a side effect, a
/// call of one of the shader's functions (it would run their counted
/// steps) or a certain type error; returns the tree and its type
/// (`None`: unknown to the type checker).
fn checked_expr(
    m: &ShaderModel,
    step: StepId,
    text: &str,
    calls_allowed: bool,
) -> Result<(ast::Expr, Option<String>), InstrumentError> {
    let bad = |message: String| InstrumentError::BadExpression {
        expr: text.to_string(),
        message,
    };
    crate::effects::check_probe(m, step, text)?;
    let ty = crate::typeck::check(m, step, text)?.map(|t| t.to_string());
    let mut e =
        parse_expr_in(text, &m.model.type_names, &m.probe_macros(step), m.version).map_err(bad)?;
    let mut user_call = None;
    crate::steps::walk_expr(&mut e, &mut |x| {
        if let Some((name, _)) = crate::steps::call_name(x)
            && m.model.function_names.contains(name)
        {
            user_call.get_or_insert_with(|| name.to_string());
        }
    });
    if let Some(f) = user_call.filter(|_| !calls_allowed) {
        return Err(bad(format!(
            "calls the shader's function `{f}` (its steps would count as executed)"
        )));
    }
    Ok((e, ty))
}

/// The step index of `id`, or the error for an unknown one.
fn step_index(m: &ShaderModel, id: StepId) -> Result<usize, InstrumentError> {
    let i = id.0 as usize;
    if i < m.model.steps.len() {
        Ok(i)
    } else {
        Err(InstrumentError::NoSuchStep(id.0))
    }
}

#[cfg(test)]
mod tests;
