//! Debug-shader generation, GLSLDevil style (DESIGN.md §7).
//!
//! * The original `main` is renamed; a new `main` initialises the debug
//!   globals, calls it (so an early `return` still reaches the end) and
//!   copies the debug globals to two extra outputs.
//! * Every function on the position's call chain is duplicated under a
//!   fresh name and the one call of the chain is redirected to the copy, so
//!   only that call instance carries the debug write.
//! * Each loop enclosing the chain gets a global counter (reset to -1 just
//!   before the loop, incremented at each condition evaluation of
//!   `for`/`while` and at each body start of `do`); the write is guarded by
//!   `counter_k == path[k] && ... && coverage == 0.0` with `path` a uniform
//!   `int[N]` the daemon sets to `Position::iterations`.
//! * The write happens before the step: an extra `if (guard) {...}`
//!   statement before statements, or `(guard && (write, true), cond)` in
//!   conditions and increments; no loop nesting is ever added.
//! * The value goes through overloaded `store` helpers, so the driver
//!   resolves the type; they return the type code (value.rs).

use std::collections::{HashMap, HashSet};

use glsl_lang::ast;

use crate::parse::{Names, parse_expr_in, print_tu};
use crate::steps::{Part, PathElem, StepInfo, call_name, step_exprs, walk_expr, walk_stmt_exprs};
use crate::value::{CODE_NO_VALUE, type_code};
use crate::{
    BaseType, InstrumentError, Instrumented, OutputSlot, Probe, ShaderModel, Stage, StepId,
    ValueType,
};

fn internal(what: &str) -> InstrumentError {
    InstrumentError::Unsupported(format!("internal error: {what}"))
}

// ---------------------------------------------------------------------------
// AST construction helpers.

fn var(name: &str) -> ast::Expr {
    ast::ExprData::variable(name).into()
}
fn int(i: i32) -> ast::Expr {
    ast::ExprData::IntConst(i).into()
}
fn float(x: f32) -> ast::Expr {
    ast::ExprData::FloatConst(x).into()
}
fn boolean(b: bool) -> ast::Expr {
    ast::ExprData::BoolConst(b).into()
}
fn binary(op: ast::BinaryOpData, a: ast::Expr, b: ast::Expr) -> ast::Expr {
    ast::ExprData::Binary(op.into(), Box::new(a), Box::new(b)).into()
}
fn and(a: ast::Expr, b: ast::Expr) -> ast::Expr {
    binary(ast::BinaryOpData::And, a, b)
}
fn eq(a: ast::Expr, b: ast::Expr) -> ast::Expr {
    binary(ast::BinaryOpData::Equal, a, b)
}
fn comma(a: ast::Expr, b: ast::Expr) -> ast::Expr {
    ast::ExprData::Comma(Box::new(a), Box::new(b)).into()
}
fn assign(a: ast::Expr, b: ast::Expr) -> ast::Expr {
    ast::ExprData::Assignment(
        Box::new(a),
        ast::AssignmentOpData::Equal.into(),
        Box::new(b),
    )
    .into()
}
fn index(a: ast::Expr, i: i32) -> ast::Expr {
    ast::ExprData::Bracket(Box::new(a), Box::new(int(i))).into()
}
fn call(name: &str, args: Vec<ast::Expr>) -> ast::Expr {
    ast::ExprData::FunCall(ast::FunIdentifierData::ident(name).into(), args).into()
}
fn post_inc(a: ast::Expr) -> ast::Expr {
    ast::ExprData::PostInc(Box::new(a)).into()
}
fn expr_stmt(e: ast::Expr) -> ast::Statement {
    ast::StatementData::Expression(ast::ExprStatementData(Some(e)).into()).into()
}
fn compound(list: Vec<ast::Statement>) -> ast::Statement {
    ast::StatementData::Compound(
        ast::CompoundStatementData {
            statement_list: list,
        }
        .into(),
    )
    .into()
}
fn if_stmt(cond: ast::Expr, then: ast::Statement) -> ast::Statement {
    ast::StatementData::Selection(
        ast::SelectionStatementData {
            cond: Box::new(cond),
            rest: ast::SelectionRestStatementData::Statement(Box::new(then)).into(),
        }
        .into(),
    )
    .into()
}

/// Replace `e` by `f(e)`.
fn wrap_expr(e: &mut ast::Expr, f: impl FnOnce(ast::Expr) -> ast::Expr) {
    let old = std::mem::replace(e, boolean(true));
    *e = f(old);
}

/// Run `pre` (a bool-free side effect `x`) before a loop/if condition:
/// `(x, cond)`, or `(x, true) && init` for a declaring condition (the
/// printer would drop the parentheses of a sequence in an initializer).
fn prepend_to_condition(c: &mut ast::Condition, pre: ast::Expr) {
    match &mut c.content {
        ast::ConditionData::Expr(e) => wrap_expr(e, |e| comma(pre, e)),
        ast::ConditionData::Assignment(_, _, init) => {
            if let ast::InitializerData::Simple(e) = &mut init.content {
                wrap_expr(e, |e| and(comma(pre, boolean(true)), e));
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Finding steps again by path.

fn child(s: &mut ast::Statement, e: PathElem) -> Option<&mut ast::Statement> {
    use ast::StatementData as S;
    match (&mut s.content, e) {
        (S::Compound(c), PathElem::Index(i)) => c.statement_list.get_mut(i),
        (S::Switch(sw), PathElem::Index(i)) => sw.body.get_mut(i),
        (S::Selection(sel), PathElem::Then) => match &mut sel.rest.content {
            ast::SelectionRestStatementData::Statement(t)
            | ast::SelectionRestStatementData::Else(t, _) => Some(t),
        },
        (S::Selection(sel), PathElem::Else) => match &mut sel.rest.content {
            ast::SelectionRestStatementData::Else(_, e) => Some(e),
            ast::SelectionRestStatementData::Statement(_) => None,
        },
        (S::Iteration(it), PathElem::Body) => match &mut it.content {
            ast::IterationStatementData::While(_, b)
            | ast::IterationStatementData::DoWhile(b, _)
            | ast::IterationStatementData::For(_, _, b) => Some(b),
        },
        _ => None,
    }
}

fn stmt_at<'a>(
    body: &'a mut ast::CompoundStatement,
    path: &[PathElem],
) -> Option<&'a mut ast::Statement> {
    let (PathElem::Index(first), rest) = path.split_first()? else {
        return None;
    };
    let mut cur = body.statement_list.get_mut(*first)?;
    for e in rest {
        cur = child(cur, *e)?;
    }
    Some(cur)
}

/// Insert `new` right before the statement at `path`; a statement that is
/// not in a list (a lone branch or loop body) becomes `{ new...; stmt }`.
fn insert_before(
    body: &mut ast::CompoundStatement,
    path: &[PathElem],
    new: Vec<ast::Statement>,
) -> Result<(), InstrumentError> {
    let bad = || internal("statement path not found");
    match path.split_last() {
        Some((PathElem::Index(i), parent)) => {
            let list = if parent.is_empty() {
                &mut body.statement_list
            } else {
                match &mut stmt_at(body, parent).ok_or_else(bad)?.content {
                    ast::StatementData::Compound(c) => &mut c.statement_list,
                    ast::StatementData::Switch(sw) => &mut sw.body,
                    _ => return Err(bad()),
                }
            };
            if *i > list.len() {
                return Err(bad());
            }
            list.splice(*i..*i, new);
            Ok(())
        }
        Some(_) => {
            let s = stmt_at(body, path).ok_or_else(bad)?;
            let old = std::mem::replace(s, compound(Vec::new()));
            let mut list = new;
            list.push(old);
            *s = compound(list);
            Ok(())
        }
        None => Err(bad()),
    }
}

// ---------------------------------------------------------------------------
// The per-frame edits.

/// Send the `k`-th user call of the step to `new_name`.
fn redirect(
    body: &mut ast::CompoundStatement,
    info: &StepInfo,
    k: u32,
    new_name: &str,
    user: &HashSet<String>,
) -> Result<(), InstrumentError> {
    let stmt = stmt_at(body, &info.path).ok_or_else(|| internal("call site not found"))?;
    let mut n = 0;
    let mut done = false;
    step_exprs(stmt, info.part, &mut |e| {
        walk_expr(e, &mut |c| {
            if call_name(c).is_some_and(|(name, _)| user.contains(name)) {
                if n == k
                    && let ast::ExprData::FunCall(id, _) = &mut c.content
                    && let Some(ident) = id.as_ident_mut()
                {
                    *ident = ast::IdentifierData::from(new_name).into();
                    done = true;
                }
                n += 1;
            }
        })
    });
    if done {
        Ok(())
    } else {
        Err(internal("call not found"))
    }
}

/// Put the guarded debug write in front of the step.
fn write_at(
    body: &mut ast::CompoundStatement,
    info: &StepInfo,
    guard: &ast::Expr,
    write: &ast::Expr,
) -> Result<(), InstrumentError> {
    use ast::IterationStatementData as It;
    use ast::StatementData as S;
    if matches!(info.part, Part::Whole | Part::ForInit) {
        let stmt = if_stmt(guard.clone(), compound(vec![expr_stmt(write.clone())]));
        return insert_before(body, &info.path, vec![stmt]);
    }
    // `guard && (write, true)`: evaluated for its side effect only.
    let g = and(guard.clone(), comma(write.clone(), boolean(true)));
    let stmt = stmt_at(body, &info.path).ok_or_else(|| internal("step not found"))?;
    match (info.part, &mut stmt.content) {
        (Part::IfCond, S::Selection(sel)) => wrap_expr(&mut sel.cond, |e| comma(g, e)),
        (Part::SwitchHead, S::Switch(sw)) => wrap_expr(&mut sw.head, |e| comma(g, e)),
        (Part::LoopCond, S::Iteration(it)) => match &mut it.content {
            It::For(_, rest, _) => match &mut rest.condition {
                Some(c) => prepend_to_condition(c, g),
                None => return Err(internal("loop without condition")),
            },
            It::While(c, _) => prepend_to_condition(c, g),
            It::DoWhile(_, e) => wrap_expr(e, |e| comma(g, e)),
        },
        (Part::ForInc, S::Iteration(it)) => match &mut it.content {
            It::For(_, rest, _) => match &mut rest.post_expr {
                Some(e) => wrap_expr(e, |e| comma(g, e)),
                None => return Err(internal("loop without increment")),
            },
            _ => return Err(internal("increment of a non-for loop")),
        },
        _ => return Err(internal("step kind does not match its statement")),
    }
    Ok(())
}

/// Count the iterations of the loops enclosing the step, innermost first
/// (so the paths of outer loops stay valid while inner ones are edited).
fn count_loops(
    body: &mut ast::CompoundStatement,
    info: &StepInfo,
    counters: &[String],
) -> Result<(), InstrumentError> {
    use ast::IterationStatementData as It;
    for (j, &len) in info.loops.iter().enumerate().rev() {
        let counter = counters.get(j).ok_or_else(|| internal("counter missing"))?;
        let path = &info.path[..len.min(info.path.len())];
        let stmt = stmt_at(body, path).ok_or_else(|| internal("loop not found"))?;
        let tick = post_inc(var(counter));
        let ast::StatementData::Iteration(it) = &mut stmt.content else {
            return Err(internal("not a loop"));
        };
        match &mut it.content {
            It::For(_, rest, _) => match &mut rest.condition {
                Some(c) => prepend_to_condition(c, tick),
                None => {
                    rest.condition =
                        Some(ast::ConditionData::Expr(comma(tick, boolean(true))).into())
                }
            },
            It::While(c, _) => prepend_to_condition(c, tick),
            It::DoWhile(b, _) => match &mut b.content {
                ast::StatementData::Compound(c) => c.statement_list.insert(0, expr_stmt(tick)),
                _ => {
                    let old = std::mem::replace(&mut **b, compound(Vec::new()));
                    **b = compound(vec![expr_stmt(tick), old]);
                }
            },
        }
        insert_before(body, path, vec![expr_stmt(assign(var(counter), int(-1)))])?;
    }
    Ok(())
}

/// In the original `main`, `discard` becomes
/// `{ if (coverage == 0.0) discard; return; }`: a fragment that already
/// wrote the debug value would otherwise lose it with all its outputs;
/// returning from main ends it just as well (its own outputs then reach
/// the debug framebuffer). Only in main: elsewhere a return would resume
/// the caller.
fn keep_reached_fragments(s: &mut ast::Statement, coverage: &str) {
    use ast::StatementData as S;
    match &mut s.content {
        S::Jump(j) if matches!(j.content, ast::JumpStatementData::Discard) => {
            let discard: ast::Statement = S::Jump(ast::JumpStatementData::Discard.into()).into();
            let ret: ast::Statement = S::Jump(ast::JumpStatementData::Return(None).into()).into();
            *s = compound(vec![if_stmt(eq(var(coverage), float(0.0)), discard), ret]);
        }
        S::Compound(c) => c
            .statement_list
            .iter_mut()
            .for_each(|x| keep_reached_fragments(x, coverage)),
        S::Switch(sw) => sw
            .body
            .iter_mut()
            .for_each(|x| keep_reached_fragments(x, coverage)),
        S::Selection(sel) => match &mut sel.rest.content {
            ast::SelectionRestStatementData::Statement(t) => keep_reached_fragments(t, coverage),
            ast::SelectionRestStatementData::Else(t, e) => {
                keep_reached_fragments(t, coverage);
                keep_reached_fragments(e, coverage);
            }
        },
        S::Iteration(it) => match &mut it.content {
            ast::IterationStatementData::While(_, b)
            | ast::IterationStatementData::DoWhile(b, _)
            | ast::IterationStatementData::For(_, _, b) => keep_reached_fragments(b, coverage),
        },
        _ => {}
    }
}

// ---------------------------------------------------------------------------
// Outputs and helper text.

/// How integers reach the float value output.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bits {
    /// intBitsToFloat / uintBitsToFloat exist.
    Exact,
    /// Only with GL_ARB_shader_bit_encoding: decided by `#ifdef`.
    IfExtension,
    /// Converted to float (and reported as float).
    Converted,
}

struct HelperNames<'a> {
    value: &'a str,
    coverage: &'a str,
    store: &'a str,
    counters: &'a [String],
    path: Option<&'a str>,
    /// Precision prefix for ES ("highp " or a macro), empty on desktop.
    precision: &'a str,
}

fn pad(x: &str, n: usize) -> String {
    let zeros = ", 0.0".repeat(4 - n);
    format!("vec4({x}{zeros})")
}

fn store_fn(out: &mut String, h: &HelperNames<'_>, ty: &str, packed: &str, code: u32) {
    let p = h.precision;
    out.push_str(&format!(
        "{p}float {store}({p}{ty} x) {{\n    {v} = {packed};\n    return {code}.0;\n}}\n",
        store = h.store,
        v = h.value
    ));
}

fn code(base: BaseType, n: usize) -> u32 {
    type_code(ValueType {
        base,
        components: n as u8,
    })
}

fn int_stores(out: &mut String, h: &HelperNames<'_>, has_uint: bool, exact: bool) {
    for n in 1..=4usize {
        let (ity, uty, fty) = if n == 1 {
            ("int".to_string(), "uint".to_string(), "float".to_string())
        } else {
            (format!("ivec{n}"), format!("uvec{n}"), format!("vec{n}"))
        };
        if exact {
            store_fn(
                out,
                h,
                &ity,
                &pad("intBitsToFloat(x)", n),
                code(BaseType::Int, n),
            );
            if has_uint {
                store_fn(
                    out,
                    h,
                    &uty,
                    &pad("uintBitsToFloat(x)", n),
                    code(BaseType::Uint, n),
                );
            }
        } else {
            // Converted values are reported as float: decode cannot know.
            store_fn(
                out,
                h,
                &ity,
                &pad(&format!("{fty}(x)"), n),
                code(BaseType::Float, n),
            );
            if has_uint {
                store_fn(
                    out,
                    h,
                    &uty,
                    &pad(&format!("{fty}(x)"), n),
                    code(BaseType::Float, n),
                );
            }
        }
    }
}

/// Declarations of the debug globals and the `store` overloads.
fn helpers(h: &HelperNames<'_>, has_uint: bool, bits: Bits, has_double: bool) -> String {
    let p = h.precision;
    let mut out = String::new();
    out.push_str(&format!("{p}vec4 {};\n{p}float {};\n", h.value, h.coverage));
    for c in h.counters {
        out.push_str(&format!("{p}int {c};\n"));
    }
    if let Some(path) = h.path {
        out.push_str(&format!("uniform {p}int {path}[{}];\n", h.counters.len()));
    }
    for n in 1..=4usize {
        let ty = if n == 1 {
            "float".to_string()
        } else {
            format!("vec{n}")
        };
        let packed = if n == 4 { "x".to_string() } else { pad("x", n) };
        store_fn(&mut out, h, &ty, &packed, code(BaseType::Float, n));
    }
    match bits {
        Bits::Exact => int_stores(&mut out, h, has_uint, true),
        Bits::Converted => int_stores(&mut out, h, has_uint, false),
        Bits::IfExtension => {
            out.push_str("#ifdef GL_ARB_shader_bit_encoding\n");
            int_stores(&mut out, h, has_uint, true);
            out.push_str("#else\n");
            int_stores(&mut out, h, has_uint, false);
            out.push_str("#endif\n");
        }
    }
    for n in 1..=4usize {
        let (ty, fty) = if n == 1 {
            ("bool".to_string(), "float".to_string())
        } else {
            (format!("bvec{n}"), format!("vec{n}"))
        };
        store_fn(
            &mut out,
            h,
            &ty,
            &pad(&format!("{fty}(x)"), n),
            code(BaseType::Bool, n),
        );
    }
    if has_double {
        for n in 1..=4usize {
            let (ty, fty) = if n == 1 {
                ("double".to_string(), "float".to_string())
            } else {
                (format!("dvec{n}"), format!("vec{n}"))
            };
            store_fn(
                &mut out,
                h,
                &ty,
                &pad(&format!("{fty}(x)"), n),
                code(BaseType::Float, n),
            );
        }
    }
    out
}

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

fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn function_def(d: &ast::ExternalDeclaration) -> Option<&ast::FunctionDefinition> {
    match &d.content {
        ast::ExternalDeclarationData::FunctionDefinition(def) => Some(def),
        _ => None,
    }
}

fn prototype_decl(p: ast::FunctionPrototype) -> ast::ExternalDeclaration {
    ast::ExternalDeclarationData::Declaration(ast::DeclarationData::FunctionPrototype(p).into())
        .into()
}

/// One function activation on the chain: the step in it (call site or
/// target) and, for call sites, which call leads on.
struct Frame {
    func: usize,
    step: usize,
    call: Option<u32>,
}

// ---------------------------------------------------------------------------

pub(crate) fn instrument(
    m: &ShaderModel,
    probe: &Probe<'_>,
) -> Result<Instrumented, InstrumentError> {
    if m.stage != Stage::Fragment {
        return Err(InstrumentError::Unsupported(format!(
            "debugging {} shaders is not supported yet",
            m.stage.name()
        )));
    }
    let model = &m.model;
    let pos = probe.position;

    // The chain of activations from main to the step.
    let known = |s: StepId| {
        if (s.0 as usize) < model.steps.len() {
            Ok(s.0 as usize)
        } else {
            Err(InstrumentError::NoSuchStep(s.0))
        }
    };
    let target = known(pos.step)?;
    let mut func = model
        .main
        .ok_or_else(|| InstrumentError::Unsupported("the shader has no main function".into()))?;
    let mut frames = Vec::new();
    let mut total_loops = 0usize;
    for &(site, k) in &pos.calls {
        let site = known(site)?;
        let info = &model.info[site];
        if info.func != func {
            return Err(InstrumentError::Unsupported(format!(
                "call site step {site} is not in function `{}`",
                model.functions[func].name
            )));
        }
        let callee = info
            .call_targets
            .get(k as usize)
            .copied()
            .flatten()
            .ok_or_else(|| {
                InstrumentError::Unsupported(format!("step {site} has no user function call #{k}"))
            })?;
        frames.push(Frame {
            func,
            step: site,
            call: Some(k),
        });
        total_loops += info.loops.len();
        func = callee;
    }
    if model.info[target].func != func {
        return Err(InstrumentError::Unsupported(format!(
            "step {target} is not in function `{}` reached by the call chain",
            model.functions[func].name
        )));
    }
    frames.push(Frame {
        func,
        step: target,
        call: None,
    });
    total_loops += model.info[target].loops.len();
    if pos.iterations.len() != total_loops {
        return Err(InstrumentError::Unsupported(format!(
            "position has {} loop iterations, its call chain has {total_loops} enclosing loops",
            pos.iterations.len()
        )));
    }

    let expr = match probe.expr {
        Some(text) => Some(
            parse_expr_in(text, &model.type_names, &m.macros, m.version).map_err(|message| {
                InstrumentError::BadExpression {
                    expr: text.to_string(),
                    message,
                }
            })?,
        ),
        None => None,
    };

    // Fresh names for everything added.
    let mut names = Names::new(&m.idents);
    let main_name = names.fresh("gldbg_main");
    let dup_names: Vec<String> = frames[1..]
        .iter()
        .enumerate()
        .map(|(i, fr)| {
            let f = &model.functions[fr.func].name;
            let base = if f.starts_with('_') {
                format!("gldbg{}{f}", i + 1)
            } else {
                format!("gldbg{}_{f}", i + 1)
            };
            names.fresh(&base)
        })
        .collect();
    let value_var = names.fresh("gldbg_v");
    let coverage_var = names.fresh("gldbg_c");
    let store = names.fresh("gldbg_store");
    let counters: Vec<String> = (0..total_loops)
        .map(|j| names.fresh(&format!("gldbg_iter{j}")))
        .collect();
    let path_uniform = (total_loops > 0).then(|| names.fresh("gldbg_path"));

    // The debug write and its guard.
    let write = assign(
        var(&coverage_var),
        match &expr {
            Some(e) => call(&store, vec![e.clone()]),
            None => float(CODE_NO_VALUE as f32),
        },
    );
    let mut guard: Option<ast::Expr> = None;
    for (j, c) in counters.iter().enumerate() {
        let test = eq(
            var(c),
            index(var(path_uniform.as_deref().unwrap_or_default()), j as i32),
        );
        guard = Some(match guard {
            Some(g) => and(g, test),
            None => test,
        });
    }
    let first_hit = eq(var(&coverage_var), float(0.0));
    let guard = match guard {
        Some(g) => and(g, first_hit),
        None => first_hit,
    };

    // Edit main in place and add the duplicates of the chain's functions.
    let mut decls = m.tu.0.clone();
    let mut before: HashMap<usize, Vec<ast::ExternalDeclaration>> = HashMap::new();
    let mut after: HashMap<usize, Vec<ast::ExternalDeclaration>> = HashMap::new();
    let mut loop_base = 0;
    for (i, fr) in frames.iter().enumerate() {
        let decl = model.functions[fr.func].decl;
        let mut def = function_def(&m.tu.0[decl])
            .ok_or_else(|| internal("function definition missing"))?
            .clone();
        def.prototype.name = ast::IdentifierData::from(if i == 0 {
            main_name.as_str()
        } else {
            dup_names[i - 1].as_str()
        })
        .into();
        let info = &model.info[fr.step];
        match fr.call {
            Some(k) => redirect(
                &mut def.statement,
                info,
                k,
                &dup_names[i],
                &model.function_names,
            )?,
            None => write_at(&mut def.statement, info, &guard, &write)?,
        }
        count_loops(
            &mut def.statement,
            info,
            &counters[loop_base..loop_base + info.loops.len()],
        )?;
        loop_base += info.loops.len();
        let slot = if i == 0 {
            before.entry(decl).or_default()
        } else {
            after.entry(decl).or_default()
        };
        if fr.call.is_some() {
            // A prototype, so this function may call the next duplicate.
            let next = function_def(&m.tu.0[model.functions[frames[i + 1].func].decl])
                .ok_or_else(|| internal("callee missing"))?;
            let mut proto = next.prototype.clone();
            proto.name = ast::IdentifierData::from(dup_names[i].as_str()).into();
            slot.push(prototype_decl(proto));
        }
        if i == 0 {
            for st in &mut def.statement.statement_list {
                keep_reached_fragments(st, &coverage_var);
            }
        }
        let def_decl: ast::ExternalDeclaration =
            ast::ExternalDeclarationData::FunctionDefinition(def).into();
        if i == 0 {
            decls[decl] = def_decl;
        } else {
            slot.push(def_decl);
        }
    }
    // Prototypes of the original main follow its new name.
    for d in &mut decls {
        if let ast::ExternalDeclarationData::Declaration(decl) = &mut d.content
            && let ast::DeclarationData::FunctionPrototype(p) = &mut decl.content
            && p.name.as_str() == "main"
        {
            p.name = ast::IdentifierData::from(main_name.as_str()).into();
        }
    }
    let mut merged = Vec::with_capacity(decls.len() + 8);
    for (i, d) in decls.into_iter().enumerate() {
        merged.extend(before.remove(&i).unwrap_or_default());
        merged.push(d);
        merged.extend(after.remove(&i).unwrap_or_default());
    }
    let mut decls = merged;

    // Outputs.
    let (version, es) = (m.version, m.es);
    let modern = if es { version >= 300 } else { version >= 130 };
    let mut uses_frag_color = false;
    let mut frag_data_max: Option<i32> = None;
    let mut frag_data_refs = 0usize;
    let mut frag_data_const = 0usize;
    for d in &mut decls {
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
    let mut out_decls = String::new();
    let (value_slot, coverage_slot, legacy_k);
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
            out_decls.push_str(&format!("{out_kw} vec4 {frag_color_name};\n"));
            app_outputs.push(frag_color_name.clone());
        }
        if frag_data_len > 0 && !es {
            out_decls.push_str(&format!(
                "{out_kw} vec4 {frag_data_name}[{frag_data_len}];\n"
            ));
            app_outputs.push(frag_data_name.clone());
        }
        let p = if es { "highp " } else { "" };
        out_decls.push_str(&format!(
            "{}{out_kw} {p}vec4 {out_value};\n",
            layout(max_location + 1)
        ));
        out_decls.push_str(&format!(
            "{}{out_kw} {p}float {out_coverage};\n",
            layout(max_location + 2)
        ));
        value_slot = OutputSlot::Named(out_value.clone());
        coverage_slot = OutputSlot::Named(out_coverage.clone());
        legacy_k = 0;
    } else {
        let k = frag_data_len
            .max(if uses_frag_color { 1 } else { 0 })
            .max(1);
        value_slot = OutputSlot::FragData(k as u32);
        coverage_slot = OutputSlot::FragData(k as u32 + 1);
        legacy_k = k;
    }
    // gl_FragColor / gl_FragData cannot be mixed with the new outputs.
    for d in &mut decls {
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

    // Integer encoding and precision.
    let has_ext = |name: &str| m.extensions.iter().any(|e| e == name);
    let bits = if (!es && version >= 330)
        || (es && version >= 300)
        || has_ext("GL_ARB_shader_bit_encoding")
        || has_ext("GL_ARB_gpu_shader5")
    {
        Bits::Exact
    } else if !es && version >= 130 {
        Bits::IfExtension
    } else {
        Bits::Converted
    };
    let has_uint = if es {
        version >= 300
    } else {
        version >= 130 || has_ext("GL_EXT_gpu_shader4")
    };
    let has_double = !es && (version >= 400 || has_ext("GL_ARB_gpu_shader_fp64"));
    let mut extension_lines: Vec<String> = m.unknown_extensions.clone();
    if bits == Bits::IfExtension {
        extension_lines.push("#extension GL_ARB_shader_bit_encoding : enable".into());
    }
    if es && !modern && legacy_k > 0 && !has_ext("GL_EXT_draw_buffers") {
        extension_lines.push("#extension GL_EXT_draw_buffers : enable".into());
    }
    let mut prelude = String::new();
    let precision = if es && version < 300 {
        let macro_name = names.fresh("GLDBG_P");
        prelude.push_str(&format!(
            "#ifdef GL_FRAGMENT_PRECISION_HIGH\n#define {macro_name} highp\n#else\n#define {macro_name} mediump\n#endif\n"
        ));
        format!("{macro_name} ")
    } else if es {
        "highp ".to_string()
    } else {
        String::new()
    };
    prelude.push_str(&out_decls);
    prelude.push_str(&helpers(
        &HelperNames {
            value: &value_var,
            coverage: &coverage_var,
            store: &store,
            counters: &counters,
            path: path_uniform.as_deref(),
            precision: &precision,
        },
        has_uint,
        bits,
        has_double,
    ));

    // The new entry point.
    let mut new_main =
        format!("void main() {{\n    {value_var} = vec4(0.0);\n    {coverage_var} = 0.0;\n");
    for c in &counters {
        new_main.push_str(&format!("    {c} = 0;\n"));
    }
    new_main.push_str(&format!("    {main_name}();\n"));
    if named {
        new_main.push_str(&format!(
            "    {out_value} = {value_var};\n    {out_coverage} = {coverage_var};\n}}\n"
        ));
    } else {
        new_main.push_str(&format!(
            "    gl_FragData[{legacy_k}] = {value_var};\n    gl_FragData[{}] = vec4({coverage_var}, 0.0, 0.0, 1.0);\n}}\n",
            legacy_k + 1
        ));
    }

    // Assemble: #version, extensions, the original preamble, our
    // declarations before the first function, the functions, new main.
    let is_version = |d: &ast::ExternalDeclaration| matches!(&d.content, ast::ExternalDeclarationData::Preprocessor(p) if matches!(p.content, ast::PreprocessorData::Version(_)));
    let is_function = |d: &ast::ExternalDeclaration| match &d.content {
        ast::ExternalDeclarationData::FunctionDefinition(_) => true,
        ast::ExternalDeclarationData::Declaration(decl) => {
            matches!(decl.content, ast::DeclarationData::FunctionPrototype(_))
        }
        _ => false,
    };
    let head_end = decls.iter().position(is_version).map_or(0, |v| v + 1);
    let helpers_at = decls
        .iter()
        .position(is_function)
        .unwrap_or(decls.len())
        .max(head_end);
    let mut source = String::new();
    let mut push = |text: &str| {
        if !text.is_empty() {
            if !source.is_empty() && !source.ends_with('\n') {
                source.push('\n');
            }
            source.push_str(text);
        }
    };
    push(&print_tu(&decls[..head_end]));
    for line in &extension_lines {
        push(&format!("{line}\n"));
    }
    push(&print_tu(&decls[head_end..helpers_at]));
    push(&prelude);
    push(&print_tu(&decls[helpers_at..]));
    push(&new_main);

    Ok(Instrumented {
        cache_key: fnv1a(&source),
        source,
        value: value_slot,
        coverage: coverage_slot,
        app_outputs,
        path_uniform,
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

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use crate::test_shaders::LOOP_BRANCH;
    use crate::{
        InstrumentError, Instrumented, OutputSlot, Position, Probe, ShaderModel, Stage, StepId,
        StepMode,
    };

    fn model(src: &str) -> ShaderModel {
        ShaderModel::parse(src, Stage::Fragment).unwrap()
    }

    fn probe(m: &ShaderModel, pos: &Position, expr: Option<&str>) -> Instrumented {
        let out = m
            .instrument(&Probe {
                position: pos,
                expr,
            })
            .unwrap();
        if let Err(e) = crate::parse::parse_shader(&out.source) {
            panic!("generated shader does not parse: {e}\n{}", out.source);
        }
        out
    }

    /// Positions reachable from the entry (iterations capped at 2).
    fn reachable(m: &ShaderModel) -> Vec<Position> {
        let mut seen = HashSet::new();
        let mut todo = vec![m.entry()];
        let mut out = Vec::new();
        while let Some(p) = todo.pop() {
            if p.iterations.iter().any(|&i| i > 2) || !seen.insert(p.clone()) || out.len() > 300 {
                continue;
            }
            todo.extend(m.successors(&p, StepMode::Into));
            out.push(p);
        }
        out
    }

    #[test]
    fn every_reachable_position_instruments_to_valid_glsl() {
        for src in [LOOP_BRANCH, crate::flow::tests::FLOW] {
            let m = model(src);
            let positions = reachable(&m);
            assert!(positions.len() > 10);
            for pos in positions {
                let step = m.step(pos.step);
                let expr = step.scope.last().map(|v| v.name.clone());
                let out = probe(&m, &pos, expr.as_deref());
                assert!(out.source.contains("gldbg_c == 0."), "{}", out.source);
                assert_eq!(out.path_uniform.is_some(), !pos.iterations.is_empty());
                if let Some(u) = &out.path_uniform {
                    assert!(
                        out.source
                            .contains(&format!("uniform int {u}[{}];", pos.iterations.len()))
                    );
                    assert!(
                        out.source
                            .contains(&format!("{u}[{}]", pos.iterations.len() - 1))
                    );
                }
                assert!(out.source.starts_with("#version 330 core\n"));
                assert_eq!(
                    out.cache_key,
                    model(src)
                        .instrument(&Probe {
                            position: &pos,
                            expr: expr.as_deref()
                        })
                        .unwrap()
                        .cache_key
                );
            }
        }
    }

    #[test]
    fn loop_in_callee_gets_counter_duplicate_and_guard() {
        let m = model(LOOP_BRANCH);
        let pos = Position {
            step: StepId(5),
            calls: vec![(StepId(9), 0)],
            iterations: vec![2],
        };
        let out = probe(&m, &pos, Some("acc"));
        let s = &out.source;
        // main renamed and called from the new main, which copies the outputs.
        assert!(s.contains("void gldbg_main() {"));
        assert!(s.contains(
            "    gldbg_main();\n    gldbg_value = gldbg_v;\n    gldbg_coverage = gldbg_c;\n}"
        ));
        // The call instance goes to the duplicate; the original stays.
        assert!(s.contains("float s = gldbg1_shade(d, 4) * scale;"));
        assert!(s.contains("float shade(float x, int n) {"));
        assert!(s.contains("float gldbg1_shade(float x, int n) {"));
        // Loop counting and the guarded write before the statement.
        assert!(
            s.contains("gldbg_iter0 = -1;\n    for (int i = 0; gldbg_iter0++, i < n; i++) {"),
            "{s}"
        );
        assert!(s.contains("if (gldbg_iter0 == gldbg_path[0] && gldbg_c == 0.) {\n                gldbg_c = gldbg_store(acc);\n            }\n            acc += x * float(i);"), "{s}");
        assert_eq!(s.matches("gldbg_store(acc)").count(), 1);
        assert_eq!(out.value, OutputSlot::Named("gldbg_value".into()));
        assert_eq!(out.coverage, OutputSlot::Named("gldbg_coverage".into()));
        assert_eq!(out.app_outputs, vec!["color".to_string()]);
        assert_eq!(out.path_uniform.as_deref(), Some("gldbg_path"));
        assert!(s.contains("intBitsToFloat"));
        assert!(!s.contains("#extension"));
    }

    #[test]
    fn conditions_and_increments_use_the_sequence_operator() {
        let m = model(LOOP_BRANCH);
        let c = vec![(StepId(9), 0)];
        let at = |step: u32, it: Vec<u32>| Position {
            step: StepId(step),
            calls: c.clone(),
            iterations: it,
        };
        let s = probe(&m, &at(4, vec![1]), Some("x > 0.5")).source;
        assert!(s.contains("if (gldbg_iter0 == gldbg_path[0] && gldbg_c == 0. && (gldbg_c = gldbg_store(x > 0.5), true), x > 0.5) {"), "{s}");
        let s = probe(&m, &at(2, vec![0]), Some("i")).source;
        assert!(s.contains("gldbg_iter0++, (gldbg_iter0 == gldbg_path[0] && gldbg_c == 0. && (gldbg_c = gldbg_store(i), true), i < n)"), "{s}");
        let s = probe(&m, &at(3, vec![0]), Some("i")).source;
        assert!(s.contains("; gldbg_iter0 == gldbg_path[0] && gldbg_c == 0. && (gldbg_c = gldbg_store(i), true), i++) {"), "{s}");
        // The loop init: before the loop, outside the counted loop.
        let s = probe(&m, &at(1, vec![]), None).source;
        assert!(s.contains("if (gldbg_c == 0.) {\n        gldbg_c = 17.;\n    }\n    for (int i = 0; i < n; i++) {"), "{s}");
    }

    #[test]
    fn discard_in_main_keeps_fragments_that_wrote() {
        let src = "#version 330 core\nin vec2 uv;\nout vec4 o;\nvoid main() {\n    float a = uv.x;\n    if (a < 0.5) discard;\n    o = vec4(a);\n}\n";
        let m = model(src);
        let s = probe(&m, &m.entry(), Some("a")).source;
        assert!(
            s.contains(
                "if (a < 0.5) {\n        if (gldbg_c == 0.) discard;\n        return;\n    }"
            ),
            "{s}"
        );
    }

    #[test]
    fn legacy_110_uses_frag_data_and_converts_ints() {
        let src = "varying vec2 uv;
uniform int n;
void main() {
    int k = n * 2;
    gl_FragColor = vec4(uv, float(k), 1.0);
}
";
        let m = model(src);
        assert_eq!(m.version(), (110, false));
        let pos = Position {
            step: StepId(1),
            calls: vec![],
            iterations: vec![],
        };
        let out = probe(&m, &pos, Some("k"));
        let s = &out.source;
        assert_eq!(out.value, OutputSlot::FragData(1));
        assert_eq!(out.coverage, OutputSlot::FragData(2));
        assert!(out.app_outputs.is_empty());
        assert!(
            s.contains("gl_FragData[0] = vec4(uv, float(k), 1.);"),
            "{s}"
        );
        assert!(!s.contains("gl_FragColor"));
        assert!(s.contains(
            "gl_FragData[1] = gldbg_v;\n    gl_FragData[2] = vec4(gldbg_c, 0.0, 0.0, 1.0);"
        ));
        assert!(!s.contains("BitsToFloat") && !s.contains("uint") && !s.contains("#version"));
        // ints travel as floats with the float type code
        assert!(s.contains("float gldbg_store(int x) {\n    gldbg_v = vec4(float(x), 0.0, 0.0, 0.0);\n    return 1.0;"), "{s}");
    }

    #[test]
    fn glsl_130_frag_color_becomes_an_output_and_bits_need_the_extension() {
        let src =
            "#version 130\nin vec2 uv;\nvoid main() {\n    gl_FragColor = vec4(uv, 0.0, 1.0);\n}\n";
        let m = model(src);
        let out = probe(&m, &m.entry(), Some("uv"));
        let s = &out.source;
        assert!(
            s.starts_with("#version 130\n#extension GL_ARB_shader_bit_encoding : enable\n"),
            "{s}"
        );
        assert!(
            s.contains("out vec4 gldbg_FragColor;")
                && s.contains("gldbg_FragColor = vec4(uv, 0., 1.);")
        );
        assert_eq!(out.app_outputs, vec!["gldbg_FragColor".to_string()]);
        assert!(
            s.contains("#ifdef GL_ARB_shader_bit_encoding\n")
                && s.contains("#else\n")
                && s.contains("#endif\n")
        );
    }

    #[test]
    fn es_300_outputs_get_locations() {
        let src = "#version 300 es\nprecision mediump float;\nin vec2 uv;\nout vec4 color;\nvoid main() {\n    color = vec4(uv, 0.0, 1.0);\n}\n";
        let m = model(src);
        let out = probe(&m, &m.entry(), Some("uv"));
        let s = &out.source;
        assert!(s.contains("layout(location = 0) out vec4 color;"), "{s}");
        assert!(s.contains("layout(location = 1) out highp vec4 gldbg_value;"));
        assert!(s.contains("layout(location = 2) out highp float gldbg_coverage;"));
        assert!(s.contains("highp float gldbg_store(highp vec2 x)"));
        // Our declarations come after the app's precision statement.
        assert!(s.find("precision mediump float;").unwrap() < s.find("gldbg_v;").unwrap());
    }

    #[test]
    fn added_names_are_unique() {
        let src = "#version 330\nout vec4 gldbg_value;\nfloat gldbg_v;\nvoid gldbg_main() { gldbg_v = 1.0; }\nvoid main() {\n    gldbg_main();\n    gldbg_value = vec4(gldbg_v);\n}\n";
        let m = model(src);
        let out = probe(&m, &m.entry(), Some("gldbg_v"));
        let s = &out.source;
        assert_eq!(out.value, OutputSlot::Named("gldbg_value_1".into()));
        assert!(s.contains("void gldbg_main_1() {") && s.contains("    gldbg_main_1();\n"));
        assert!(s.contains("gldbg_c = gldbg_store(gldbg_v);"), "{s}");
        assert!(s.contains("vec4 gldbg_v_1;"));
    }

    #[test]
    fn bad_requests_are_errors() {
        let m = model(LOOP_BRANCH);
        let e = m.entry();
        match m.instrument(&Probe {
            position: &e,
            expr: Some("d +* 2.0"),
        }) {
            Err(InstrumentError::BadExpression { expr, message }) => {
                assert_eq!(expr, "d +* 2.0");
                assert!(message.contains("column"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        let bad = Position {
            step: StepId(99),
            calls: vec![],
            iterations: vec![],
        };
        assert_eq!(
            m.instrument(&Probe {
                position: &bad,
                expr: None
            })
            .err(),
            Some(InstrumentError::NoSuchStep(99))
        );
        // Step 5 is in `shade`, not in main; wrong iteration counts.
        for bad in [
            Position {
                step: StepId(5),
                calls: vec![],
                iterations: vec![0],
            },
            Position {
                step: StepId(5),
                calls: vec![(StepId(9), 0)],
                iterations: vec![],
            },
            Position {
                step: StepId(5),
                calls: vec![(StepId(9), 1)],
                iterations: vec![0],
            },
            Position {
                step: StepId(5),
                calls: vec![(StepId(8), 0)],
                iterations: vec![0],
            },
        ] {
            assert!(
                matches!(
                    m.instrument(&Probe {
                        position: &bad,
                        expr: None
                    }),
                    Err(InstrumentError::Unsupported(_))
                ),
                "{bad:?}"
            );
        }
        let v = ShaderModel::parse(LOOP_BRANCH, Stage::Vertex).unwrap();
        assert!(matches!(
            v.instrument(&Probe {
                position: &e,
                expr: None
            }),
            Err(InstrumentError::Unsupported(_))
        ));
    }
}

#[cfg(test)]
mod overload_tests {
    use crate::{Position, Probe, ShaderModel, Stage};

    #[test]
    fn the_called_overload_is_duplicated() {
        let src = "#version 330 core
out vec4 o;
float f(float x) { return x; }
vec3 f(vec3 v) { return v * 2.0; }
void main() {
    vec3 c = vec3(1.0);
    o = vec4(f(c), f(c.x));
}
";
        let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
        let site = m.steps_on_line(7)[0];
        let ret = m.steps_on_line(4)[0];
        let pos = Position {
            step: ret,
            calls: vec![(site, 0)],
            iterations: vec![],
        };
        let s = m
            .instrument(&Probe {
                position: &pos,
                expr: Some("v"),
            })
            .unwrap()
            .source;
        assert!(s.contains("vec3 gldbg1_f(vec3 v) {"), "{s}");
        assert!(s.contains("o = vec4(gldbg1_f(c), f(c.x));"), "{s}");
    }
}
