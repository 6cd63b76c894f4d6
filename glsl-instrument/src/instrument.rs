//! Debug-shader generation, GLSLDevil style (DESIGN.md §7). One part per
//! concern, each in its own module; [`instrument_to`] runs them in order:
//!
//! 1. `position`: the chain of activations from `main` to the probed step
//!    and the step's statement found again by its path.
//! 2. `calls`: every function on the chain is duplicated under a fresh
//!    name and the one call of the chain is redirected to the copy, so only
//!    that call instance carries the debug write.
//! 3. `loops`: each loop enclosing the chain gets a global counter (reset
//!    to -1 just before the loop, incremented at each condition evaluation
//!    of `for`/`while` and at each body start of `do`); the write is
//!    guarded by `counter_k == path[k] && ... && coverage == 0.0` with
//!    `path` a uniform `int[N]` the daemon sets to `Position::iterations`.
//! 4. The write happens before the step (`position::write_at`): an extra
//!    `if (guard) {...}` statement before statements, or
//!    `(guard && (write, true), cond)` in conditions and increments; no
//!    loop nesting is ever added.
//! 5. `store`: the value goes through overloaded `store` helpers, so the
//!    driver resolves the type; they return the type code (value.rs).
//!    `written`: the written probe replaces the value by what was written.
//! 6. `dialect`: what the GLSL version / ES allow (integer bits, `uint`,
//!    doubles, precision).
//! 7. `main_edits`, `hoist`: `main` keeps its body; the debug outputs'
//!    setup runs first and their copy-out before every `return` and at its
//!    end (`outputs`, per stage). Tess-control and compute keep their
//!    `main` unwrapped (tess-control allows `barrier()` only there): it
//!    starts by zeroing the outputs, and the probe writes them through a
//!    `flush` helper.
//! 8. `printer`: the text, with glsl-lang's printer defects repaired.
//!
//! [`Semantics::Equivalent`]: nothing of the app changes but names;
//! `ReportDiscarded` turns a fragment `discard` in `main` into `return`
//! once the value was written.

use glsl_lang::ast;

use crate::parse::{Names, parse_expr_in};
use crate::{InstrumentError, Instrumented, Probe, Semantics, ShaderModel, Stage};

pub(crate) mod build;
mod calls;
mod dialect;
mod hoist;
mod loops;
mod main_edits;
pub(crate) mod outputs;
pub(crate) mod position;
pub(crate) mod printer;
mod siblings;
mod store;
mod written;

pub(crate) use build::internal as internal_error;
use build::{
    and, assign, boolean, call, comma, compound, eq, expr_stmt, float, if_stmt, int, internal, var,
    wrap_expr,
};
pub(crate) use dialect::{Bits, Dialect};
pub(crate) use outputs::binding_after_buffers;
pub(crate) use position::last_main_step;
pub(crate) use position::{insert_before, stmt_at, write_at};

/// What a caller adds on top of an end-of-`main` coverage probe (the trace,
/// trace/): run on the translation unit once the probe's names are
/// reserved, given the end-of-`main` write (`guard`, `write`), which it
/// must then place itself (before each `return` of `main` and at its end:
/// its own edits of `main` would move the paths). It returns what the
/// debug shader declares for it.
pub(crate) type Extra<'a> = &'a mut dyn FnMut(
    &mut [ast::ExternalDeclaration],
    &ast::Expr,
    &ast::Expr,
    &mut Names,
) -> Result<ExtraText, InstrumentError>;

/// The declarations an [`Extra`] adds: text before the functions, and
/// `#extension` lines.
#[derive(Default)]
pub(crate) struct ExtraText {
    pub prelude: String,
    pub extensions: Vec<String>,
}

/// Where the debug write goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum At {
    /// Before the probe's step, at its position.
    #[default]
    Step,
    /// The last statement of `main` (and before each of its `return`s);
    /// the probe's position is not used.
    EndOfMain,
}

impl At {
    /// `EndOfMain` where `at_end`.
    pub fn from_end(at_end: bool) -> At {
        if at_end { At::EndOfMain } else { At::Step }
    }
}

/// How a vertex shader hands its values out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Capture {
    /// The stage's usual outputs (see `outputs`).
    #[default]
    StageOutputs,
    /// Storage blocks indexed by the vertex's place in a non-indexed draw
    /// (`outputs::vertex_buffer`) instead of varyings.
    VertexBuffer,
}

/// What the probe hands out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Reading {
    /// The expression's value.
    #[default]
    Value,
    /// Whether the outputs the expression reads were written yet (written.rs).
    Written,
}

/// How [`instrument_to`] instruments.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Options {
    pub at: At,
    pub capture: Capture,
    pub reading: Reading,
}

/// Tess-control allows `barrier()` only in `main` itself, so its `main` is
/// edited in place and the outputs are written at the probe (compute does
/// the same: its outputs are buffer writes). Other stages wrap the
/// original `main` and copy the debug globals out at the end.
fn wraps_main(stage: Stage) -> bool {
    !matches!(stage, Stage::TessControl | Stage::Compute)
}

/// The names of everything the instrumenter adds (in the order they are
/// reserved: the generated text depends on it).
struct Added {
    /// `main`'s first and last calls (stages that wrap `main`). `main`
    /// stays the entry point, its body where the app wrote it: NVIDIA
    /// compiles code in a function other than `main` differently (an
    /// indexed `inout` argument whose index the call changes is written
    /// back at the new index), so moving `main`'s body into a function
    /// called from a new `main` changed what the program computes there.
    begin_end: Option<(String, String)>,
    /// The copies of the chain's functions after `main`.
    dups: Vec<String>,
    value: String,
    coverage: String,
    store: String,
    counters: Vec<String>,
    path_uniform: Option<String>,
    /// Stages that do not wrap `main`: the function handing the outputs out.
    flush: Option<String>,
}

impl Added {
    fn new(m: &ShaderModel, chain: &position::Chain, names: &mut Names) -> Added {
        let wraps = wraps_main(m.stage);
        let begin_end = wraps.then(|| (names.fresh("gldbg_begin"), names.fresh("gldbg_end")));
        let dups = chain.frames[1..]
            .iter()
            .enumerate()
            .map(|(i, fr)| calls::copy_name(&m.model.functions[fr.func].name, i + 1, names))
            .collect();
        let value = names.fresh("gldbg_v");
        let coverage = names.fresh("gldbg_c");
        let store = names.fresh("gldbg_store");
        let counters = loops::counter_names(chain.total_loops, names);
        let path_uniform = (chain.total_loops > 0).then(|| names.fresh("gldbg_path"));
        let flush = (!wraps).then(|| names.fresh("gldbg_flush"));
        Added {
            begin_end,
            dups,
            value,
            coverage,
            store,
            counters,
            path_uniform,
            flush,
        }
    }
}

/// The probe expression parsed where the probe's step is, refused if it
/// has side effects.
fn probe_expr(
    m: &ShaderModel,
    text: Option<&str>,
    step: crate::StepId,
) -> Result<Option<ast::Expr>, InstrumentError> {
    let Some(text) = text else {
        return Ok(None);
    };
    parse_expr_in(text, &m.model.type_names, &m.probe_macros(step), m.version)
        .and_then(|e| crate::effects::check(&m.tu, &e).map(|()| e))
        .map(Some)
        .map_err(|message| InstrumentError::BadExpression {
            expr: text.to_string(),
            message,
        })
}

/// What the written probe adds: its declarations and what `begin` clears.
#[derive(Default)]
struct WrittenText {
    decls: String,
    clear: String,
}

/// The written probe of `expr` (written.rs): the expression replaced by
/// what its outputs had written, `tu` tracking them in every function.
fn written_probe(
    m: &ShaderModel,
    chain: &position::Chain,
    at: At,
    expr: Option<ast::Expr>,
    tu: &mut [ast::ExternalDeclaration],
    names: &mut Names,
) -> Result<(Option<ast::Expr>, WrittenText), InstrumentError> {
    let model = &m.model;
    let no_output =
        || InstrumentError::Unsupported("the expression reads no tracked output".into());
    let e = expr.as_ref().ok_or_else(no_output)?;
    // Locals of main where the probe is in main itself.
    let func = model.info[chain.target].func;
    let in_main =
        at == At::EndOfMain || (chain.position.calls.is_empty() && Some(func) == model.main);
    let probe_func = &model.functions[func].name;
    let w = written::Written::new(m, e, in_main, probe_func, names);
    if !wraps_main(m.stage) {
        // Tess-control (all its outputs untracked) and compute: no
        // written probe, only what gldbg cannot tell.
        let unknown = w.track(&mut tu.to_vec(), &model.function_names);
        return Err(match w.expr(e, &unknown) {
            Err(n) => InstrumentError::WrittenUnknown(n),
            Ok(_) => no_output(),
        });
    }
    let unknown = w.track(tu, &model.function_names);
    let expr = w
        .expr(e, &unknown)
        .map_err(InstrumentError::WrittenUnknown)?
        .ok_or_else(no_output)?;
    let decls = w.decls(names);
    let clear = w.clear(names);
    Ok((Some(expr), WrittenText { decls, clear }))
}

/// The debug shader of `probe` (see [`Options`]).
pub(crate) fn instrument_to(
    m: &ShaderModel,
    probe: &Probe<'_>,
    opts: Options,
) -> Result<Instrumented, InstrumentError> {
    instrument_with(m, probe, opts, None)
}

/// [`instrument_to`] with `extra`'s edits (only at the end of `main`).
pub(crate) fn instrument_with(
    m: &ShaderModel,
    probe: &Probe<'_>,
    opts: Options,
    extra: Option<Extra<'_>>,
) -> Result<Instrumented, InstrumentError> {
    if opts.capture == Capture::VertexBuffer {
        outputs::check_vertex_buffer(m)?;
    }
    let chain = position::resolve(m, probe.position, opts.at)?;
    let expr = probe_expr(m, probe.expr, chain.position.step)?;
    // Fresh names for everything added.
    let mut names = Names::new(&m.idents);
    let added = Added::new(m, &chain, &mut names);
    let mut tu = m.tu.0.clone();
    let (expr, written) = match opts.reading {
        Reading::Value => (expr, WrittenText::default()),
        Reading::Written => written_probe(m, &chain, opts.at, expr, &mut tu, &mut names)?,
    };
    let write = store::write(expr, &added.store, &added.coverage, added.flush.as_deref());
    let guard = loops::guard(
        &added.counters,
        added.path_uniform.as_deref(),
        &added.coverage,
    );
    let extra = match extra {
        Some(edit) if opts.at == At::EndOfMain => Some(edit(&mut tu, &guard, &write, &mut names)?),
        Some(_) => return Err(internal("extra edits only at the end of main")),
        None => None,
    };
    let placed = extra.is_some();
    let mut index_globals: hoist::Temps = Vec::new();
    let mut loop_base = 0;
    let mut decls = calls::duplicate_chain(m, &tu, &chain.frames, &added.dups, |i, fr, def| {
        let info = &m.model.info[fr.step];
        match (fr.call, opts.at) {
            (Some(_), _) => {}
            (None, At::EndOfMain) if placed => {}
            (None, At::EndOfMain) => {
                // A `return` in main ends main: the value is taken there too.
                for r in position::returns_in_main(m, probe.expr).into_iter().rev() {
                    position::write_at(&mut def.statement, &m.model.info[r], &guard, &write)?;
                }
                def.statement.statement_list.push(if_stmt(
                    guard.clone(),
                    compound(vec![expr_stmt(write.clone())]),
                ))
            }
            (None, At::Step) => position::write_at(&mut def.statement, info, &guard, &write)?,
        }
        if opts.at == At::Step {
            let n = info.loops.len();
            loops::count_loops(
                &mut def.statement,
                info,
                &added.counters[loop_base..loop_base + n],
            )?;
            loop_base += n;
        }
        if i == 0 {
            finish_main(
                m,
                &tu,
                &chain,
                &added,
                probe.semantics,
                def,
                &mut names,
                &mut index_globals,
            );
        }
        Ok(())
    })?;
    let dialect = dialect::Dialect::of(m, &mut names);
    assemble(
        m,
        opts,
        &mut decls,
        &added,
        &dialect,
        &written,
        &index_globals,
        &extra.unwrap_or_default(),
        &mut names,
    )
}

/// The edits of `main` after the write and the loop counters (last, so the
/// step paths still hold): discards that keep the debug value, the outputs
/// zeroed first where `main` is not wrapped, indices of `out` arguments
/// taken first (hoist.rs), `begin`/`end` around the body.
#[allow(clippy::too_many_arguments)]
fn finish_main(
    m: &ShaderModel,
    tu: &[ast::ExternalDeclaration],
    chain: &position::Chain,
    added: &Added,
    semantics: Semantics,
    def: &mut ast::FunctionDefinition,
    names: &mut Names,
    index_globals: &mut hoist::Temps,
) {
    if m.stage == Stage::Fragment && semantics == Semantics::ReportDiscarded {
        for st in &mut def.statement.statement_list {
            main_edits::keep_reached_fragments(st, &added.coverage);
        }
    }
    if let Some(flush) = &added.flush {
        let mut init = vec![
            expr_stmt(assign(var(&added.value), call("vec4", vec![float(0.0)]))),
            expr_stmt(assign(var(&added.coverage), float(0.0))),
        ];
        init.extend(
            added
                .counters
                .iter()
                .map(|c| expr_stmt(assign(var(c), int(0)))),
        );
        init.push(expr_stmt(call(flush, vec![float(0.0)])));
        def.statement.statement_list.splice(0..0, init);
    }
    if !(m.es && m.version < 300) {
        // GLSL ES 1.00 limits indices to loop indices and constants: not there.
        let mut outs = hoist::out_params(tu);
        // The position's copies of the functions on its call chain.
        for (k, dup) in added.dups.iter().enumerate() {
            let f = &m.model.functions[chain.frames[k + 1].func].name;
            let o = outs.get(f.as_str()).cloned().unwrap_or_default();
            outs.insert(dup.clone(), o);
        }
        hoist::hoist_in(
            &mut def.statement.statement_list,
            &outs,
            names,
            index_globals,
        );
    }
    if let Some((begin, end)) = &added.begin_end {
        let list = &mut def.statement.statement_list;
        list.iter_mut()
            .for_each(|st| main_edits::end_before_returns(st, end));
        list.insert(0, expr_stmt(call(begin, vec![])));
        list.push(expr_stmt(call(end, vec![])));
    }
}

/// The stage's outputs and the whole debug shader's text.
#[allow(clippy::too_many_arguments)]
fn assemble(
    m: &ShaderModel,
    opts: Options,
    decls: &mut Vec<ast::ExternalDeclaration>,
    added: &Added,
    dialect: &dialect::Dialect,
    written: &WrittenText,
    index_globals: &hoist::Temps,
    extra: &ExtraText,
    names: &mut Names,
) -> Result<Instrumented, InstrumentError> {
    let globals = outputs::Globals {
        value: &added.value,
        coverage: &added.coverage,
        precision: &dialect.precision,
        flush: added.flush.as_deref(),
    };
    let outs = match m.stage {
        Stage::Fragment => outputs::fragment(m, decls, names, &globals),
        Stage::Vertex if opts.capture == Capture::VertexBuffer => {
            outputs::vertex_buffer(m, decls, names, &globals)
        }
        Stage::Vertex | Stage::TessEval => outputs::varyings(m, decls, names, &globals),
        Stage::Geometry => outputs::geometry(m, decls, names, &globals),
        Stage::TessControl | Stage::Compute => outputs::buffer(m, decls, names, &globals),
    };
    let (Some(value_slot), Some(coverage_slot)) = (outs.value, outs.coverage) else {
        return Err(internal("stage without outputs"));
    };
    let mut extension_lines: Vec<String> = m.unknown_extensions.clone();
    extension_lines.extend(dialect.extension_lines());
    extension_lines.extend(outs.extensions);
    for line in &extra.extensions {
        if !extension_lines.contains(line) {
            extension_lines.push(line.clone());
        }
    }
    let mut prelude = dialect.prelude.clone();
    prelude.push_str(&outs.decls);
    prelude.push_str(&extra.prelude);
    prelude.push_str(&written.decls);
    for (ty, k) in index_globals {
        prelude.push_str(&dialect.global(ty, k));
    }
    prelude.push_str(&store::helpers(
        &store::HelperNames {
            value: &added.value,
            coverage: &added.coverage,
            store: &added.store,
            counters: &added.counters,
            path: added.path_uniform.as_deref(),
            precision: &dialect.precision,
        },
        dialect.has_uint,
        dialect.bits,
        dialect.has_double,
    ));
    prelude.push_str(&outs.functions);
    // What `main` calls first and last (stages that keep the outputs until
    // the end of `main`).
    if let Some((begin, end)) = &added.begin_end {
        let (v, c) = (&added.value, &added.coverage);
        prelude.push_str(&format!(
            "void {begin}() {{\n    {v} = vec4(0.0);\n    {c} = 0.0;\n"
        ));
        for c in &added.counters {
            prelude.push_str(&format!("    {c} = 0;\n"));
        }
        prelude.push_str(&outs.main_start);
        prelude.push_str(&written.clear);
        prelude.push_str(&format!("}}\nvoid {end}() {{\n{}}}\n", outs.main_end));
    }
    let source = printer::shader_text(decls, &extension_lines, &prelude, &outs.tail);
    let siblings = outs.siblings.unwrap_or_else(|| m.siblings.clone());
    let (local_size_uniform, output_vertices_uniform) = match m.stage {
        Stage::Compute => (outs.size_uniform, None),
        _ => (None, outs.size_uniform),
    };
    Ok(Instrumented {
        cache_key: printer::cache_key(&source, &siblings),
        source,
        siblings,
        value: value_slot,
        coverage: coverage_slot,
        emission: outs.emission,
        app_outputs: outs.app_outputs,
        path_uniform: added.path_uniform.clone(),
        local_size_uniform,
        vertex_index_uniforms: outs.vertex_index_uniforms,
        output_vertices_uniform,
    })
}

#[cfg(test)]
mod stage_tests;
#[cfg(test)]
pub(crate) mod test_support;
#[cfg(test)]
mod tests;
