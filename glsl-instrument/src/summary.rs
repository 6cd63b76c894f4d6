//! `info locals` without a focus (issue 14, "over all invocations"): one
//! replay summarises every local and parameter in scope at a dynamic
//! position over all the invocations that reach it (count, min, max, NaN,
//! Inf per component), instead of one replay per variable.
//!
//! The debug shader is the ordinary probe of the position
//! (instrument.rs: the chain of calls copied, loop counters compared with
//! the path uniform, the write once, the first time the invocation gets
//! there with those iterations) whose value is a call of a `gldbg_` helper
//! taking every summarised part as an argument; the helper adds them to a
//! std430 block with atomics and returns `1.0`. The app's code runs
//! unchanged in every invocation.
//!
//! `hits` counts shader invocations, once each (the probe's guard: the
//! first time it gets there with those iterations): a fragment that
//! discards later still counts; helper invocations do not (their stores
//! have no effect); a vertex the driver shades twice counts twice.
//!
//! The block (see [`LocalsSummary::block`]), zeroed before the replay:
//!
//! ```text
//! uint hits;     // invocations that reached the position (atomicAdd)
//! uint records;  // 0
//! uint words;    // 0
//! uint full;     // 0
//! uint data[];   // 4 words per component c (its index over all parts):
//!                // data[4c]     atomicMax(~key): the min key is ~data[4c]
//!                // data[4c + 1] atomicMax(key):  the max key
//!                // data[4c + 2] invocations where it is NaN
//!                // data[4c + 3] invocations where it is +-Inf
//! ```
//!
//! The key orders values as unsigned words do: a float's bits `b` give
//! `b ^ (b >> 31 != 0 ? 0xFFFFFFFF : 0x80000000)` ([`float_key`]), an int
//! `i` gives `uint(i) ^ 0x80000000`, a uint is itself, a bool 0 or 1. NaN
//! and Inf components count in their words only, not in min and max. A
//! component whose min/max words are still `0`/`0` after a replay with
//! hits had only NaN/Inf values (a real min key `~0` = `0xFFFFFFFF` and
//! max `0` cannot both be: see [`ComponentSummary::range`]).

use glsl_lang::ast;

use crate::instrument::{self, At, Options};
use crate::parse::Names;
use crate::trace::vars::{Vars, locals_at};
use crate::{
    BaseType, InstrumentError, Instrumented, Position, Probe, Semantics, ShaderModel, TracedPart,
    TracedVar, VarRole,
};

mod emit;
#[cfg(test)]
mod tests;

/// Words of `data` per summarised component.
pub const SUMMARY_WORDS_PER_COMPONENT: usize = 4;

/// A generated locals summary ([`ShaderModel::instrument_locals_summary`]).
#[derive(Clone, Debug)]
pub struct LocalsSummary {
    /// The debug shader: the app's code unchanged in every invocation; at
    /// the position (its step, call instance and loop iterations: set
    /// [`Instrumented::path_uniform`] to the position's iterations as for
    /// any probe), every invocation that reaches it adds its locals' and
    /// arguments' values into the block. Its probe value is `1.0` (a
    /// float) where the invocation reached the position.
    pub shader: Instrumented,
    /// The std430 block's name (prefix `gldbg_`): no binding on desktop
    /// GL (bind it by name); on GL ES an explicit one, [`Self::binding`].
    pub block: String,
    /// The locals and parameters in scope at the step (roles
    /// [`VarRole::Local`] / [`VarRole::Param`]), in scope order;
    /// [`TracedPart::offset`] is the index of the part's first component
    /// (its words start at `data[4 * offset]`).
    pub vars: Vec<TracedVar>,
    /// Per var: whether it may be read before it is written on some path
    /// (declared without an initialiser somewhere in its function, or an
    /// `out` parameter).
    pub maybe_undefined: Vec<bool>,
    /// GL ES: the binding the block is declared with (after the shader's
    /// own buffers and, in compute and tess-control, the probe's two);
    /// desktop GL: `None`.
    pub binding: Option<u32>,
}

impl LocalsSummary {
    /// Components summarised (the `c` of the last one + 1).
    pub fn components(&self) -> usize {
        self.vars
            .iter()
            .flat_map(|v| v.parts.iter())
            .map(|p| usize::from(p.ty.components))
            .sum()
    }

    /// Words of the whole block: the 4 header words and `data`.
    pub fn block_words(&self) -> usize {
        crate::TRACE_HEADER_WORDS + SUMMARY_WORDS_PER_COMPONENT * self.components()
    }
}

/// One component's summary, read back from its four words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ComponentSummary {
    /// `~data[4c]`: the smallest key (meaningful where [`Self::range`]).
    pub min_key: u32,
    pub max_key: u32,
    pub nan: u32,
    pub inf: u32,
}

impl ComponentSummary {
    /// The four words of component `c` of `data` (the block after its header).
    pub fn from_words(data: &[u32], c: usize) -> Option<ComponentSummary> {
        let w = data.get(SUMMARY_WORDS_PER_COMPONENT * c..SUMMARY_WORDS_PER_COMPONENT * (c + 1))?;
        Some(ComponentSummary {
            min_key: !w[0],
            max_key: w[1],
            nan: w[2],
            inf: w[3],
        })
    }

    /// `(min key, max key)` where some invocation had a finite value
    /// (a min key above the max key means none did: both words are 0).
    pub fn range(&self) -> Option<(u32, u32)> {
        (self.min_key <= self.max_key).then_some((self.min_key, self.max_key))
    }
}

/// The order-preserving key of a float's bits.
pub fn float_key(bits: u32) -> u32 {
    bits ^ if bits >> 31 != 0 {
        0xFFFF_FFFF
    } else {
        0x8000_0000
    }
}

/// The value of a key of a component of `base` (inverse of the shader's
/// key): float, int, uint and bool (0/1) as `f64`; `None` for doubles.
pub fn key_value(base: BaseType, key: u32) -> Option<f64> {
    Some(match base {
        BaseType::Float => {
            let bits = if key >> 31 != 0 {
                key ^ 0x8000_0000
            } else {
                !key
            };
            f64::from(f32::from_bits(bits))
        }
        BaseType::Int => f64::from((key ^ 0x8000_0000) as i32),
        BaseType::Uint | BaseType::Bool => f64::from(key),
        BaseType::Double => return None,
    })
}

impl ShaderModel {
    /// The locals summary shader at `position` (see [`LocalsSummary`] and
    /// the module documentation of `summary.rs`). Errors: an unknown step
    /// or position, as for a probe; [`InstrumentError::Unsupported`] where
    /// the shader's GLSL has no storage blocks with atomics (before GLSL
    /// 4.30 without `GL_ARB_shader_storage_buffer_object` from 1.40, or
    /// before GLSL ES 3.10).
    pub fn instrument_locals_summary(
        &self,
        position: &Position,
    ) -> Result<LocalsSummary, InstrumentError> {
        check_version(self)?;
        let s = position.step.0 as usize;
        if s >= self.model.steps.len() {
            return Err(InstrumentError::NoSuchStep(position.step.0));
        }
        let vars = summarised_vars(self, s);
        let maybe_undefined = vars.iter().map(|v| maybe_undefined(self, s, v)).collect();
        let mut names = Names::new(&self.idents);
        let em = emit::Emitter::new(&mut names, self.es || self.version >= 150);
        let call = em.call(&vars);
        let probe = Probe {
            position,
            expr: Some(&call),
            semantics: Semantics::Equivalent,
        };
        let opts = Options {
            at: At::Step,
            ..Options::default()
        };
        let mut shader = instrument::instrument_with(self, &probe, opts, None)?;
        // The same binding as the trace's block (GL ES cannot rebind one).
        let binding = crate::trace::es_binding(self);
        let text = em.declarations(&vars, binding);
        shader.source = emit::insert_after_head(&shader.source, &extensions(self), &text);
        shader.cache_key = instrument::printer::cache_key(&shader.source, &shader.siblings);
        Ok(LocalsSummary {
            shader,
            block: em.block.clone(),
            vars,
            maybe_undefined,
            binding,
        })
    }
}

/// Refuse a GLSL without storage blocks.
fn check_version(m: &ShaderModel) -> Result<(), InstrumentError> {
    let ok = if m.es {
        m.version >= 310
    } else {
        m.version >= 140
    };
    if ok {
        return Ok(());
    }
    Err(InstrumentError::Unsupported(format!(
        "a summary of the locals over all invocations needs storage buffers: GLSL ES 3.10 \
         or GLSL 1.40 with GL_ARB_shader_storage_buffer_object (this shader is GLSL{} {})",
        if m.es { " ES" } else { "" },
        m.version
    )))
}

/// The `#extension` lines the summary needs (desktop GL: storage blocks
/// before 4.30, `floatBitsToUint` before 3.30).
fn extensions(m: &ShaderModel) -> Vec<String> {
    let mut out = Vec::new();
    if !m.es && m.version < 430 {
        out.push("#extension GL_ARB_shader_storage_buffer_object : require".to_string());
    }
    if !m.es && m.version < 330 {
        out.push("#extension GL_ARB_shader_bit_encoding : require".to_string());
    }
    out
}

/// The locals and parameters in scope at step `s` as the trace lays them
/// out (doubles, opaque, unsized and over-long variables left out), the
/// part offsets renumbered as component indices.
fn summarised_vars(m: &ShaderModel, s: usize) -> Vec<TracedVar> {
    let info = &m.model.info[s];
    let locals = match &m.tu.0[m.model.functions[info.func].decl].content {
        ast::ExternalDeclarationData::FunctionDefinition(def) => {
            locals_at(&def.statement, &info.path, info.part)
        }
        _ => Default::default(),
    };
    let mut vars = Vars::new(m, false);
    let all = vars.record(info.func, &m.step(crate::StepId(s as u32)).scope, &locals);
    let mut c = 0u32;
    all.into_iter()
        .filter(|v| matches!(v.role, VarRole::Local | VarRole::Param { .. }))
        .filter(|v| v.parts.iter().all(|p| p.ty.base != BaseType::Double))
        .map(|v| {
            let parts = v
                .parts
                .into_iter()
                .map(|p| {
                    let part = TracedPart { offset: c, ..p };
                    c += u32::from(p.ty.components);
                    part
                })
                .collect();
            TracedVar { parts, ..v }
        })
        .collect()
}

/// Whether `v` (in scope at step `s`) may be read before it is written:
/// an `out` parameter, or a name some declaration of the step's function
/// declares without an initialiser.
fn maybe_undefined(m: &ShaderModel, s: usize, v: &TracedVar) -> bool {
    match v.role {
        VarRole::Param { defined } => return !defined,
        VarRole::Local => {}
        _ => return false,
    }
    let func = m.model.info[s].func;
    let ast::ExternalDeclarationData::FunctionDefinition(def) =
        &m.tu.0[m.model.functions[func].decl].content
    else {
        return true;
    };
    let mut uninit = false;
    for st in &def.statement.statement_list {
        uninitialised_in(st, &v.name, &mut uninit);
    }
    uninit
}

/// Sets `found` where `st` (or a statement in it) declares `name`
/// without an initialiser.
fn uninitialised_in(st: &ast::Statement, name: &str, found: &mut bool) {
    use ast::StatementData as S;
    match &st.content {
        S::Declaration(d) => declares_uninitialised(d, name, found),
        S::Compound(c) => c
            .statement_list
            .iter()
            .for_each(|s| uninitialised_in(s, name, found)),
        S::Selection(sel) => match &sel.rest.content {
            ast::SelectionRestStatementData::Statement(t) => uninitialised_in(t, name, found),
            ast::SelectionRestStatementData::Else(t, e) => {
                uninitialised_in(t, name, found);
                uninitialised_in(e, name, found);
            }
        },
        S::Switch(sw) => sw
            .body
            .iter()
            .for_each(|s| uninitialised_in(s, name, found)),
        S::Iteration(it) => match &it.content {
            ast::IterationStatementData::For(init, _, body) => {
                if let ast::ForInitStatementData::Declaration(d) = &init.content {
                    declares_uninitialised(d, name, found);
                }
                uninitialised_in(body, name, found);
            }
            ast::IterationStatementData::While(_, body)
            | ast::IterationStatementData::DoWhile(body, _) => uninitialised_in(body, name, found),
        },
        _ => {}
    }
}

fn declares_uninitialised(d: &ast::Declaration, name: &str, found: &mut bool) {
    let ast::DeclarationData::InitDeclaratorList(l) = &d.content else {
        return;
    };
    if l.head.name.as_ref().is_some_and(|n| n.0 == name) && l.head.initializer.is_none() {
        *found = true;
    }
    for t in &l.tail {
        if t.ident.ident.0 == name && t.initializer.is_none() {
            *found = true;
        }
    }
}
