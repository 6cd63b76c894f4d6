//! The trace shader: the end-of-`main` coverage probe (instrument.rs,
//! `ReportDiscarded` as the daemon asks for it)
//! with, on top, the claim and the entry record first in `main`, a record
//! before every step of every function (`position::write_at`'s places:
//! `if (on) { rec; }` before statements and `for` inits, `(on && rec,
//! cond)` in conditions and increments) and the end records of `main`.
//! Steps are edited in reverse order per function, so the paths of the
//! steps still to edit stay valid.

use std::collections::HashSet;

use glsl_lang::ast;

use super::emit::Emitter;
use super::vars::{Vars, record_words};
use super::{END_RECORD, ENTRY_RECORD, RecordLayout, Trace, TraceLayout, TraceSpec, TracedVar};
use crate::instrument::build::{compound, expr_stmt, if_stmt, var};
use crate::instrument::{self, At, Bits, Dialect, ExtraText, Options, insert_before, write_at};
use crate::parse::{Names, parse_expr_in};
use crate::{InstrumentError, Probe, Semantics, ShaderModel, Stage, StepId, StepKind, Variable};

const SSBO: &str = "GL_ARB_shader_storage_buffer_object";

/// Refuse a GLSL without storage blocks.
fn check_version(m: &ShaderModel) -> Result<(), InstrumentError> {
    let ok = if m.es {
        m.version >= 310
    } else {
        m.version >= 140
    };
    match ok {
        true => Ok(()),
        false => Err(InstrumentError::Unsupported(format!(
            "a trace needs storage buffers: GLSL ES 3.10 or GLSL 1.40 with {SSBO} \
             (this shader is GLSL{} {})",
            if m.es { " ES" } else { "" },
            m.version
        ))),
    }
}

/// The calls each place of the trace makes (GLSL expression text).
struct Plan {
    /// By step id.
    steps: Vec<String>,
    /// `main`'s `return` steps: their end record.
    returns: Vec<(usize, String)>,
    /// The end record after `main`'s last statement.
    end: String,
    entry: String,
}

/// `main`'s scope at its end: what its first step sees plus the variables
/// its top-level statements declare (a later one hides an earlier name),
/// and the names of those locals.
fn end_scope(m: &ShaderModel, main: usize) -> (Vec<Variable>, HashSet<String>) {
    let mut scope = m.step(m.entry().step).scope.clone();
    let mut locals = HashSet::new();
    let decl = m.model.functions[main].decl;
    if let ast::ExternalDeclarationData::FunctionDefinition(def) = &m.tu.0[decl].content {
        for st in &def.statement.statement_list {
            if let ast::StatementData::Declaration(d) = &st.content {
                let vars = crate::steps::declared_variables(d);
                locals.extend(vars.iter().map(|v| v.name.clone()));
                scope.extend(vars);
            }
        }
    }
    let mut seen = HashSet::new();
    let mut out: Vec<Variable> = scope
        .into_iter()
        .rev()
        .filter(|v| seen.insert(v.name.clone()))
        .collect();
    out.reverse();
    (out, locals)
}

fn record(step: Option<usize>, vars: Vec<TracedVar>) -> RecordLayout {
    RecordLayout {
        step: step.map(|s| StepId(s as u32)),
        words: record_words(&vars),
        vars,
        ..RecordLayout::default()
    }
}

/// Every record's layout and call.
fn plan(
    m: &ShaderModel,
    vars: &mut Vars<'_>,
    em: &mut Emitter,
    names: &mut Names,
    layout: &mut TraceLayout,
) -> Result<Plan, InstrumentError> {
    let main = m
        .model
        .main
        .ok_or_else(|| InstrumentError::Unsupported("no `main`".into()))?;
    let last = instrument::last_main_step(m)
        .ok_or_else(|| InstrumentError::Unsupported("`main` has no steps".into()))?
        .0 as usize;
    let mut bodies: Vec<Option<ast::CompoundStatement>> = m
        .model
        .functions
        .iter()
        .map(|f| match &m.tu.0[f.decl].content {
            ast::ExternalDeclarationData::FunctionDefinition(def) => Some(def.statement.clone()),
            _ => None,
        })
        .collect();
    let mut steps = Vec::new();
    let mut returns = Vec::new();
    for (s, step) in m.steps().iter().enumerate() {
        let info = &m.model.info[s];
        let locals = match &m.tu.0[m.model.functions[info.func].decl].content {
            ast::ExternalDeclarationData::FunctionDefinition(def) => {
                super::vars::locals_at(&def.statement, &info.path, info.part)
            }
            _ => Default::default(),
        };
        let traced = vars.record(info.func, &step.scope, &locals);
        steps.push(em.call(names, s as u32, &traced));
        let mut rec = record(Some(s), traced.clone());
        if let Some(body) = bodies[info.func].as_mut()
            && let Some(stmt) = instrument::stmt_at(body, &info.path)
        {
            (rec.declares, rec.writes) = super::writes::effects(m, info, stmt);
        }
        layout.records.insert(s as u32, rec);
        if info.func == main && step.kind == StepKind::Return && s != last {
            let id = END_RECORD | s as u32;
            returns.push((s, em.call(names, id, &traced)));
            layout.records.insert(id, record(Some(s), traced));
        }
    }
    // The end of `main`; where its last step is a `return`, both end
    // records of that id hold what is in scope at both places.
    let (mut scope, locals) = end_scope(m, main);
    if m.step(StepId(last as u32)).kind == StepKind::Return {
        let at_return = &m.step(StepId(last as u32)).scope;
        scope.retain(|v| at_return.contains(v));
    }
    let end_vars = vars.record(main, &scope, &locals);
    let end_id = END_RECORD | last as u32;
    let end = em.call(names, end_id, &end_vars);
    if m.step(StepId(last as u32)).kind == StepKind::Return {
        returns.push((last, end.clone()));
    }
    layout.records.insert(end_id, record(Some(last), end_vars));
    let entry_vars = vars.entry(&m.step(m.entry().step).scope);
    let entry = em.call(names, ENTRY_RECORD, &entry_vars);
    layout
        .records
        .insert(ENTRY_RECORD, record(None, entry_vars));
    Ok(Plan {
        steps,
        returns,
        end,
        entry,
    })
}

fn parse(m: &ShaderModel, text: &str) -> Result<ast::Expr, InstrumentError> {
    parse_expr_in(text, &m.model.type_names, "", m.version)
        .map_err(|e| instrument::internal_error(&format!("generated `{text}`: {e}")))
}

/// `if (on) { e; }`.
fn when_on(em: &Emitter, e: ast::Expr) -> ast::Statement {
    if_stmt(var(&em.on), compound(vec![expr_stmt(e)]))
}

/// The trace's edits of every function (see the module documentation).
#[allow(clippy::too_many_arguments)]
fn edit(
    m: &ShaderModel,
    tu: &mut [ast::ExternalDeclaration],
    plan: &Plan,
    em: &Emitter,
    focus: &ast::Expr,
    guard: &ast::Expr,
    write: &ast::Expr,
) -> Result<(), InstrumentError> {
    let written = || if_stmt(guard.clone(), compound(vec![expr_stmt(write.clone())]));
    for (fi, f) in m.model.functions.iter().enumerate() {
        let ast::ExternalDeclarationData::FunctionDefinition(def) = &mut tu[f.decl].content else {
            continue;
        };
        let body = &mut def.statement;
        let is_main = Some(fi) == m.model.main;
        if is_main {
            body.statement_list.push(when_on(em, parse(m, &plan.end)?));
            body.statement_list.push(written());
        }
        for s in (0..m.steps().len())
            .rev()
            .filter(|&s| m.model.info[s].func == fi)
        {
            let info = &m.model.info[s];
            let rec = parse(m, &plan.steps[s])?;
            match plan.returns.iter().find(|(r, _)| *r == s) {
                Some((_, end)) if is_main => {
                    let new = vec![when_on(em, rec), when_on(em, parse(m, end)?), written()];
                    insert_before(body, &info.path, new)?;
                }
                _ => write_at(body, info, &var(&em.on), &rec)?,
            }
        }
        if is_main {
            let claim = if_stmt(
                focus.clone(),
                compound(vec![expr_stmt(parse(m, &em.claim())?)]),
            );
            let entry = when_on(em, parse(m, &plan.entry)?);
            body.statement_list.splice(0..0, [claim, entry]);
        }
    }
    Ok(())
}

/// The `#extension` lines the trace needs.
fn extensions(m: &ShaderModel, dialect: &Dialect) -> Vec<String> {
    let has = |e: &str| m.extensions.iter().any(|x| x == e);
    let mut out = Vec::new();
    if !m.es && m.version < 430 && !has(SSBO) {
        out.push(format!("#extension {SSBO} : require"));
    }
    if dialect.bits != Bits::Exact && !has("GL_ARB_shader_bit_encoding") {
        out.push("#extension GL_ARB_shader_bit_encoding : require".to_string());
    }
    out
}

/// GLSL ES cannot rebind a block: the trace block takes the binding after
/// the shader's buffers (and the probe's own two in compute and
/// tess-control). Desktop GL: none, the executor binds it by name.
pub(crate) fn es_binding(m: &ShaderModel) -> Option<u32> {
    if !m.es {
        return None;
    }
    let next = instrument::binding_after_buffers(&m.tu.0);
    Some(match m.stage {
        Stage::Compute | Stage::TessControl => next + 2,
        _ => next,
    })
}

/// [`ShaderModel::instrument_trace`].
pub(super) fn trace(m: &ShaderModel, spec: &TraceSpec<'_>) -> Result<Trace, InstrumentError> {
    check_version(m)?;
    let bad = |message: String| InstrumentError::BadExpression {
        expr: spec.focus.to_string(),
        message,
    };
    let focus = parse_expr_in(spec.focus, &m.model.type_names, "", m.version).map_err(bad)?;
    crate::effects::check(&m.tu, &focus).map_err(bad)?;
    let mut layout = TraceLayout::default();
    let mut block = String::new();
    let mut extra = |tu: &mut [ast::ExternalDeclaration],
                     guard: &ast::Expr,
                     write: &ast::Expr,
                     names: &mut Names|
     -> Result<ExtraText, InstrumentError> {
        let dialect = Dialect::of(m, names);
        let mut em = Emitter::new(names, &dialect.precision, m.es || m.version >= 150);
        let mut vars = Vars::new(m, dialect.has_double);
        let plan = plan(m, &mut vars, &mut em, names, &mut layout)?;
        edit(m, tu, &plan, &em, &focus, guard, write)?;
        block = em.block.clone();
        Ok(ExtraText {
            prelude: em.declarations(spec, es_binding(m)),
            extensions: extensions(m, &dialect),
        })
    };
    let entry = m.entry();
    let probe = Probe {
        position: &entry,
        expr: None,
        // As the daemon's end-of-main probes (a no-op at the end: a `discard`
        // in main still discards, the coverage is not written yet there).
        semantics: Semantics::ReportDiscarded,
    };
    let opts = Options {
        at: At::EndOfMain,
        ..Options::default()
    };
    let shader = instrument::instrument_with(m, &probe, opts, Some(&mut extra))?;
    Ok(Trace {
        shader,
        block,
        layout,
    })
}
