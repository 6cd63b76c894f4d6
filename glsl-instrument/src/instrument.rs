//! Debug-shader generation, GLSLDevil style (DESIGN.md §7).
//!
//! * The original `main` is renamed; a new `main` initialises the debug
//!   globals, calls it (so an early `return` still reaches the end) and
//!   copies the debug globals to the stage's outputs (outputs.rs).
//!   Tess-control and compute keep their `main` (tess-control allows
//!   `barrier()` only there): it starts by zeroing the outputs, and the
//!   probe writes them through a `flush` helper.
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
//! * [`Semantics::Equivalent`]: nothing of the app changes but names;
//!   `ReportDiscarded` turns a fragment `discard` in `main` into `return`
//!   once the value was written.

use std::collections::{HashMap, HashSet};

use glsl_lang::ast;

use crate::parse::{Names, parse_expr_in, print_tu};
use crate::steps::{Part, PathElem, StepInfo, call_name, step_exprs, walk_expr, walk_stmt_exprs};
use crate::value::{CODE_NO_VALUE, type_code};
use crate::{
    BaseType, InstrumentError, Instrumented, Probe, Semantics, ShaderModel, Stage, StepId,
    StepKind, ValueType,
};

mod hoist;
mod outputs;
mod siblings;
mod written;

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

/// `return` in `main` becomes `{ end(); return; }`: the debug outputs are
/// copied out before `main` ends there.
fn end_before_returns(s: &mut ast::Statement, end: &str) {
    use ast::StatementData as S;
    match &mut s.content {
        S::Jump(j) if matches!(j.content, ast::JumpStatementData::Return(_)) => {
            let ret = std::mem::replace(s, expr_stmt(int(0)));
            *s = compound(vec![expr_stmt(call(end, vec![])), ret]);
        }
        S::Compound(c) => c
            .statement_list
            .iter_mut()
            .for_each(|x| end_before_returns(x, end)),
        S::Switch(sw) => sw.body.iter_mut().for_each(|x| end_before_returns(x, end)),
        S::Selection(sel) => match &mut sel.rest.content {
            ast::SelectionRestStatementData::Statement(t) => end_before_returns(t, end),
            ast::SelectionRestStatementData::Else(t, e) => {
                end_before_returns(t, end);
                end_before_returns(e, end);
            }
        },
        S::Iteration(it) => match &mut it.content {
            ast::IterationStatementData::While(_, b)
            | ast::IterationStatementData::DoWhile(b, _)
            | ast::IterationStatementData::For(_, _, b) => end_before_returns(b, end),
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
    // GLSL ES allows precision qualifiers on float, int and opaque types
    // only: `highp bool` is an error (NVIDIA: C1151; Mesa lets it pass).
    let param_p = if ty.starts_with("bool") || ty.starts_with("bvec") {
        ""
    } else {
        p
    };
    out.push_str(&format!(
        "{p}float {store}({param_p}{ty} x) {{\n    {v} = {packed};\n    return {code}.0;\n}}\n",
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
        // Bit-exact where uintBitsToFloat exists (unpackDouble2x32 comes
        // with the doubles); dvec3 and dvec4 exceed the vec4 output and are
        // probed in parts where their type is known (parts.rs).
        let exact = |out: &mut String| {
            store_fn(
                out,
                h,
                "double",
                "vec4(uintBitsToFloat(unpackDouble2x32(x)), 0.0, 0.0)",
                code(BaseType::Double, 1),
            );
            store_fn(
                out,
                h,
                "dvec2",
                "vec4(uintBitsToFloat(unpackDouble2x32(x.x)), uintBitsToFloat(unpackDouble2x32(x.y)))",
                code(BaseType::Double, 2),
            );
        };
        let converted_from = match bits {
            Bits::Exact => {
                exact(&mut out);
                3
            }
            Bits::Converted => 1,
            Bits::IfExtension => {
                out.push_str("#ifdef GL_ARB_shader_bit_encoding\n");
                exact(&mut out);
                out.push_str("#else\n");
                for n in 1..=2 {
                    double_converted(&mut out, h, n);
                }
                out.push_str("#endif\n");
                3
            }
        };
        for n in converted_from..=4usize {
            double_converted(&mut out, h, n);
        }
    }
    out
}

/// The `store` overload of a double type converted to float.
fn double_converted(out: &mut String, h: &HelperNames<'_>, n: usize) {
    let (ty, fty) = if n == 1 {
        ("double".to_string(), "float".to_string())
    } else {
        (format!("dvec{n}"), format!("vec{n}"))
    };
    store_fn(
        out,
        h,
        &ty,
        &pad(&format!("{fty}(x)"), n),
        code(BaseType::Float, n),
    );
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

/// A call instance's copy of a function is an ordinary function: a
/// `subroutine(T)` function's qualifier (and its `layout(index = N)`) stay
/// on the original, which the subroutine uniform still selects; GLSL
/// forbids them on a second declaration.
fn plain_function(proto: &mut ast::FunctionPrototype) {
    if let Some(q) = &mut proto.ty.qualifier {
        q.qualifiers.retain(|spec| {
            !matches!(
                &spec.content,
                ast::TypeQualifierSpecData::Layout(_)
                    | ast::TypeQualifierSpecData::Storage(ast::StorageQualifier {
                        content: ast::StorageQualifierData::Subroutine(_),
                        ..
                    })
            )
        });
        if q.qualifiers.is_empty() {
            proto.ty.qualifier = None;
        }
    }
}

/// The last step of `main` (in source order), if it has any.
pub(crate) fn last_main_step(m: &ShaderModel) -> Option<StepId> {
    let main = m.model.main?;
    let last = m.model.info.iter().rposition(|i| i.func == main)?;
    Some(StepId(last as u32))
}

/// The `return` steps of `main` (in source order) where `expr` resolves
/// (all of them for a coverage-only probe): an invocation returning there
/// ends `main`, so the end-of-main value is taken before each. Where a name
/// of `expr` is not in scope (declared after the `return`), the invocation
/// has no such value and stays unwritten.
fn returns_in_main(m: &ShaderModel, expr: Option<&str>) -> Vec<usize> {
    let Some(main) = m.model.main else {
        return Vec::new();
    };
    (0..m.model.steps.len())
        .filter(|&i| m.model.info[i].func == main && m.model.steps[i].kind == StepKind::Return)
        .filter(|&i| expr.is_none_or(|e| crate::typeck::check(m, StepId(i as u32), e).is_ok()))
        .collect()
}

/// The debug shader of `probe`; `at_end`: the write is the last statement
/// of `main` instead of before the probe's step (whose position is then
/// not used).
pub(crate) fn instrument(
    m: &ShaderModel,
    probe: &Probe<'_>,
    at_end: bool,
) -> Result<Instrumented, InstrumentError> {
    instrument_to(m, probe, at_end, false, false)
}

/// [`instrument`]; `vertex_buffer`: a vertex shader's outputs are storage
/// blocks indexed by the vertex's place in a non-indexed draw (see
/// `outputs::vertex_buffer`) instead of varyings; `written`: the written
/// probe of the expression (written.rs) instead of its value.
pub(crate) fn instrument_to(
    m: &ShaderModel,
    probe: &Probe<'_>,
    at_end: bool,
    vertex_buffer: bool,
    written: bool,
) -> Result<Instrumented, InstrumentError> {
    let stage = m.stage;
    if vertex_buffer {
        outputs::check_vertex_buffer(m)?;
    }
    // Tess-control allows `barrier()` only in `main` itself, so its `main` is
    // edited in place and the outputs are written at the probe (compute
    // does the same: its outputs are buffer writes). Other stages wrap the
    // original `main` and copy the debug globals out at the end.
    let wraps_main = !matches!(stage, Stage::TessControl | Stage::Compute);
    let model = &m.model;
    let end_position;
    let pos = match at_end {
        true => {
            let step = last_main_step(m)
                .ok_or_else(|| InstrumentError::Unsupported("`main` has no steps".into()))?;
            end_position = crate::Position {
                step,
                calls: Vec::new(),
                iterations: vec![0; model.info[step.0 as usize].loops.len()],
            };
            &end_position
        }
        false => probe.position,
    };

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
    // At the end of main no loop encloses the write.
    total_loops += if at_end {
        0
    } else {
        model.info[target].loops.len()
    };
    if !at_end && pos.iterations.len() != total_loops {
        return Err(InstrumentError::Unsupported(format!(
            "position has {} loop iterations, its call chain has {total_loops} enclosing loops",
            pos.iterations.len()
        )));
    }

    let expr = match probe.expr {
        Some(text) => Some(
            parse_expr_in(
                text,
                &model.type_names,
                &m.probe_macros(pos.step),
                m.version,
            )
            .and_then(|e| crate::effects::check(&m.tu, &e).map(|()| e))
            .map_err(|message| InstrumentError::BadExpression {
                expr: text.to_string(),
                message,
            })?,
        ),
        None => None,
    };

    // Fresh names for everything added.
    let mut names = Names::new(&m.idents);
    // `main` stays the entry point, its body where the app wrote it: the
    // debug outputs' setup runs first (`begin`) and their copy-out before
    // every `return` of `main` and at its end (`end`). NVIDIA compiles code
    // in a function other than `main` differently (an indexed `inout`
    // argument whose index the call changes is written back at the new
    // index), so moving `main`'s body into a function called from a new
    // `main` changed what the program computes there.
    let begin_end = wraps_main.then(|| (names.fresh("gldbg_begin"), names.fresh("gldbg_end")));
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
    let flush = (!wraps_main).then(|| names.fresh("gldbg_flush"));
    // The written probe hands out what the expression's outputs had
    // written instead of its value, and tracks them in every function.
    let mut tu = m.tu.0.clone();
    let mut expr = expr;
    let mut written_clear = String::new();
    let mut written_decls = String::new();
    if written {
        let no_output =
            || InstrumentError::Unsupported("the expression reads no tracked output".into());
        let e = expr.as_ref().ok_or_else(no_output)?;
        // Locals of main where the probe is in main itself.
        let in_main =
            at_end || (pos.calls.is_empty() && Some(model.info[target].func) == model.main);
        let probe_func = &model.functions[model.info[target].func].name;
        let w = written::Written::new(m, e, in_main, probe_func, &mut names);
        if !wraps_main {
            // Tess-control (all its outputs untracked) and compute: no
            // written probe, only what gldbg cannot tell.
            let unknown = w.track(&mut tu.clone(), &model.function_names);
            return Err(match w.expr(e, &unknown) {
                Err(n) => InstrumentError::WrittenUnknown(n),
                Ok(_) => no_output(),
            });
        }
        let unknown = w.track(&mut tu, &model.function_names);
        expr = Some(
            w.expr(e, &unknown)
                .map_err(InstrumentError::WrittenUnknown)?
                .ok_or_else(no_output)?,
        );
        written_decls = w.decls(&mut names);
        written_clear = w.clear(&mut names);
    }

    // The debug write, `coverage = store(expr)` (or the no-value code),
    // through the flush function where the outputs are written at the
    // probe; and its guard.
    let code = match &expr {
        Some(e) => call(&store, vec![e.clone()]),
        None => float(CODE_NO_VALUE as f32),
    };
    let write = assign(
        var(&coverage_var),
        match &flush {
            Some(f) => call(f, vec![code]),
            None => code,
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
    let mut decls = tu.clone();
    let mut before: HashMap<usize, Vec<ast::ExternalDeclaration>> = HashMap::new();
    let mut after: HashMap<usize, Vec<ast::ExternalDeclaration>> = HashMap::new();
    let mut loop_base = 0;
    let mut index_globals: hoist::Temps = Vec::new();
    for (i, fr) in frames.iter().enumerate() {
        let decl = model.functions[fr.func].decl;
        let mut def = function_def(&tu[decl])
            .ok_or_else(|| internal("function definition missing"))?
            .clone();
        if i > 0 {
            def.prototype.name = ast::IdentifierData::from(dup_names[i - 1].as_str()).into();
            plain_function(&mut def.prototype);
        }
        let info = &model.info[fr.step];
        match fr.call {
            Some(k) => redirect(
                &mut def.statement,
                info,
                k,
                &dup_names[i],
                &model.function_names,
            )?,
            None if at_end => {
                // A `return` in main ends main: the value is taken there too.
                for r in returns_in_main(m, probe.expr).into_iter().rev() {
                    write_at(&mut def.statement, &model.info[r], &guard, &write)?;
                }
                def.statement.statement_list.push(if_stmt(
                    guard.clone(),
                    compound(vec![expr_stmt(write.clone())]),
                ))
            }
            None => write_at(&mut def.statement, info, &guard, &write)?,
        }
        if !at_end {
            count_loops(
                &mut def.statement,
                info,
                &counters[loop_base..loop_base + info.loops.len()],
            )?;
            loop_base += info.loops.len();
        }
        let slot = if i == 0 {
            before.entry(decl).or_default()
        } else {
            after.entry(decl).or_default()
        };
        if fr.call.is_some() {
            // A prototype, so this function may call the next duplicate.
            let next = function_def(&tu[model.functions[frames[i + 1].func].decl])
                .ok_or_else(|| internal("callee missing"))?;
            let mut proto = next.prototype.clone();
            proto.name = ast::IdentifierData::from(dup_names[i].as_str()).into();
            plain_function(&mut proto);
            slot.push(prototype_decl(proto));
        }
        if i == 0 && stage == Stage::Fragment && probe.semantics == Semantics::ReportDiscarded {
            for st in &mut def.statement.statement_list {
                keep_reached_fragments(st, &coverage_var);
            }
        }
        if i == 0 && !wraps_main {
            // Last, so the step paths above still hold.
            let flush = flush.as_deref().unwrap_or_default();
            let mut init = vec![
                expr_stmt(assign(var(&value_var), call("vec4", vec![float(0.0)]))),
                expr_stmt(assign(var(&coverage_var), float(0.0))),
            ];
            init.extend(counters.iter().map(|c| expr_stmt(assign(var(c), int(0)))));
            init.push(expr_stmt(call(flush, vec![float(0.0)])));
            def.statement.statement_list.splice(0..0, init);
        }
        if i == 0 && !(m.es && m.version < 300) {
            // Last, so the step paths above still hold. (GLSL ES 1.00
            // limits indices to loop indices and constants: not there.)
            let mut outs = hoist::out_params(&tu);
            // The position's copies of the functions on its call chain.
            for (k, dup) in dup_names.iter().enumerate() {
                let f = &model.functions[frames[k + 1].func].name;
                let o = outs.get(f.as_str()).cloned().unwrap_or_default();
                outs.insert(dup.clone(), o);
            }
            hoist::hoist_in(
                &mut def.statement.statement_list,
                &outs,
                &mut names,
                &mut index_globals,
            );
        }
        if i == 0
            && let Some((begin, end)) = &begin_end
        {
            // Last, so the step paths above still hold.
            let list = &mut def.statement.statement_list;
            list.iter_mut().for_each(|st| end_before_returns(st, end));
            list.insert(0, expr_stmt(call(begin, vec![])));
            list.push(expr_stmt(call(end, vec![])));
        }
        let def_decl: ast::ExternalDeclaration =
            ast::ExternalDeclarationData::FunctionDefinition(def).into();
        if i == 0 {
            decls[decl] = def_decl;
        } else {
            slot.push(def_decl);
        }
    }
    let mut merged = Vec::with_capacity(decls.len() + 8);
    for (i, d) in decls.into_iter().enumerate() {
        merged.extend(before.remove(&i).unwrap_or_default());
        merged.push(d);
        merged.extend(after.remove(&i).unwrap_or_default());
    }
    let mut decls = merged;

    // Integer encoding and precision.
    let (version, es) = (m.version, m.es);
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
    let mut prelude = String::new();
    // Only the fragment language may lack highp (ES 1.00).
    let precision = if es && version < 300 && stage == Stage::Fragment {
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

    // Outputs.
    let globals = outputs::Globals {
        value: &value_var,
        coverage: &coverage_var,
        precision: &precision,
        flush: flush.as_deref(),
    };
    let outs = match stage {
        Stage::Fragment => outputs::fragment(m, &mut decls, &mut names, &globals),
        Stage::Vertex if vertex_buffer => outputs::vertex_buffer(m, &decls, &mut names, &globals),
        Stage::Vertex | Stage::TessEval => outputs::varyings(m, &decls, &mut names, &globals),
        Stage::Geometry => outputs::geometry(m, &mut decls, &mut names, &globals),
        Stage::TessControl | Stage::Compute => outputs::buffer(m, &decls, &mut names, &globals),
    };
    let size_uniform = outs.size_uniform.clone();
    let vertex_index_uniforms = outs.vertex_index_uniforms.clone();
    let (Some(value_slot), Some(coverage_slot)) = (outs.value, outs.coverage) else {
        return Err(internal("stage without outputs"));
    };

    let mut extension_lines: Vec<String> = m.unknown_extensions.clone();
    if bits == Bits::IfExtension {
        extension_lines.push("#extension GL_ARB_shader_bit_encoding : enable".into());
    }
    extension_lines.extend(outs.extensions);
    prelude.push_str(&outs.decls);
    prelude.push_str(&written_decls);
    for (ty, k) in &index_globals {
        // Precision only on the types that take one (not bool, structs).
        let numeric = ["float", "vec", "int", "ivec", "uint", "uvec", "mat"]
            .iter()
            .any(|t| ty.starts_with(t));
        let p = if es && numeric { "highp " } else { "" };
        prelude.push_str(&format!("{p}{ty} {k};\n"));
    }
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
    prelude.push_str(&outs.functions);

    // What `main` calls first and last (stages that keep the outputs until
    // the end of `main`).
    if let Some((begin, end)) = &begin_end {
        prelude.push_str(&format!(
            "void {begin}() {{\n    {value_var} = vec4(0.0);\n    {coverage_var} = 0.0;\n"
        ));
        for c in &counters {
            prelude.push_str(&format!("    {c} = 0;\n"));
        }
        prelude.push_str(&outs.main_start);
        prelude.push_str(&written_clear);
        prelude.push_str(&format!("}}\nvoid {end}() {{\n{}}}\n", outs.main_end));
    }
    let mut tail = String::new();
    tail.push_str(&outs.tail);

    protect_commas(&mut decls);
    hoist_builtin_redeclarations(&mut decls);
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
    push(&tail);

    let source = fix_type_names(&source);
    let siblings = outs.siblings.unwrap_or_else(|| m.siblings.clone());
    let mut key_text = source.clone();
    for sib in &siblings {
        key_text.push('\0');
        key_text.push_str(sib);
    }
    let (local_size_uniform, output_vertices_uniform) = match stage {
        Stage::Compute => (size_uniform, None),
        _ => (None, size_uniform),
    };
    Ok(Instrumented {
        cache_key: fnv1a(&key_text),
        source,
        siblings,
        value: value_slot,
        coverage: coverage_slot,
        emission: outs.emission,
        app_outputs: outs.app_outputs,
        path_uniform,
        local_size_uniform,
        vertex_index_uniforms,
        output_vertices_uniform,
    })
}

/// glsl-lang 0.8's printer drops the parentheses of a comma expression that
/// is a call argument or an initializer (`f((a, b))` prints `f(a, b)`,
/// `float x = (a, b);` prints `float x = a, b;`). Such an `(a, b)` becomes
/// `true ? a, b : b`: the printer writes a ternary's middle operand as is and
/// the grammar allows a sequence there; `a` and `b` run once, the value and
/// type are `b`'s, and a constant stays constant.
/// Move redeclarations of built-in variables (`layout(origin_upper_left)
/// in vec4 gl_FragCoord;`) that come after a function to just before the
/// first function: a duplicate of that function, placed next to it, may
/// read the built-in in its probe, and GLSL rejects a use before the
/// redeclaration. A redeclaration applies to the whole shader, so the move
/// changes no value.
fn hoist_builtin_redeclarations(decls: &mut Vec<ast::ExternalDeclaration>) {
    let is_function = |d: &ast::ExternalDeclaration| match &d.content {
        ast::ExternalDeclarationData::FunctionDefinition(_) => true,
        ast::ExternalDeclarationData::Declaration(decl) => {
            matches!(decl.content, ast::DeclarationData::FunctionPrototype(_))
        }
        _ => false,
    };
    let redeclares_builtin = |d: &ast::ExternalDeclaration| match &d.content {
        ast::ExternalDeclarationData::Declaration(decl) => match &decl.content {
            ast::DeclarationData::InitDeclaratorList(list) => list
                .head
                .name
                .as_ref()
                .is_some_and(|n| n.0.as_str().starts_with("gl_")),
            _ => false,
        },
        _ => false,
    };
    let Some(first) = decls.iter().position(is_function) else {
        return;
    };
    let mut moved = Vec::new();
    let mut i = first;
    while i < decls.len() {
        if redeclares_builtin(&decls[i]) {
            moved.push(decls.remove(i));
        } else {
            i += 1;
        }
    }
    for (k, d) in moved.into_iter().enumerate() {
        decls.insert(first + k, d);
    }
}

fn protect_commas(decls: &mut [ast::ExternalDeclaration]) {
    fn in_list(e: &mut ast::Expr) {
        if let ast::ExprData::Comma(_, b) = &e.content {
            let b = (**b).clone();
            wrap_expr(e, |c| {
                ast::ExprData::Ternary(Box::new(boolean(true)), Box::new(c), Box::new(b)).into()
            });
        }
    }
    fn args(e: &mut ast::Expr) {
        walk_expr(e, &mut |e| {
            if let ast::ExprData::FunCall(_, a) = &mut e.content {
                a.iter_mut().for_each(in_list);
            }
        });
    }
    fn initializer(i: &mut ast::Initializer) {
        match &mut i.content {
            ast::InitializerData::Simple(e) => {
                args(e);
                in_list(e);
            }
            ast::InitializerData::List(list) => list.iter_mut().for_each(initializer),
        }
    }
    fn declaration(d: &mut ast::Declaration) {
        if let ast::DeclarationData::InitDeclaratorList(list) = &mut d.content {
            list.head.initializer.iter_mut().for_each(initializer);
            for t in &mut list.tail {
                t.initializer.iter_mut().for_each(initializer);
            }
        }
    }
    fn statement(s: &mut ast::Statement) {
        use ast::IterationStatementData as It;
        use ast::StatementData as S;
        match &mut s.content {
            S::Declaration(d) => declaration(d),
            S::Compound(c) => c.statement_list.iter_mut().for_each(statement),
            S::Switch(sw) => sw.body.iter_mut().for_each(statement),
            S::Selection(sel) => match &mut sel.rest.content {
                ast::SelectionRestStatementData::Statement(a) => statement(a),
                ast::SelectionRestStatementData::Else(a, b) => {
                    statement(a);
                    statement(b);
                }
            },
            S::Iteration(it) => {
                let (cond, body) = match &mut it.content {
                    It::While(c, body) => (Some(c), body),
                    It::DoWhile(body, _) => (None, body),
                    It::For(init, rest, body) => {
                        if let ast::ForInitStatementData::Declaration(d) = &mut init.content {
                            declaration(d);
                        }
                        (rest.condition.as_mut(), body)
                    }
                };
                if let Some(c) = cond
                    && let ast::ConditionData::Assignment(_, _, i) = &mut c.content
                {
                    initializer(i);
                }
                statement(body);
            }
            _ => {}
        }
    }
    for d in decls.iter_mut() {
        match &mut d.content {
            ast::ExternalDeclarationData::Declaration(decl) => declaration(decl),
            ast::ExternalDeclarationData::FunctionDefinition(def) => {
                for st in &mut def.statement.statement_list {
                    // Call arguments anywhere (initializers included),
                    // then the initializers themselves.
                    walk_stmt_exprs(st, &mut |e| {
                        if let ast::ExprData::FunCall(_, a) = &mut e.content {
                            a.iter_mut().for_each(in_list);
                        }
                    });
                    statement(st);
                }
            }
            _ => {}
        }
    }
}

/// glsl-lang 0.8's printer misspells some type names
/// (transpiler/glsl.rs: `isampler2MS`, `usamplerDMSArray`): put the right
/// ones back, as whole words.
fn fix_type_names(source: &str) -> String {
    const WRONG: [(&str, &str); 2] = [
        ("isampler2MS", "isampler2DMS"),
        ("usamplerDMSArray", "usampler2DMSArray"),
    ];
    if !WRONG.iter().any(|(w, _)| source.contains(w)) {
        return source.to_string();
    }
    let mut out = String::with_capacity(source.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let fixed = WRONG.iter().find(|(w, _)| w == word).map(|(_, r)| *r);
        out.push_str(fixed.unwrap_or(word));
        word.clear();
    };
    for c in source.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use crate::test_shaders::LOOP_BRANCH;
    use crate::{
        InstrumentError, Instrumented, OutputSlot, Position, Probe, Semantics, ShaderModel, Stage,
        StepId, StepMode,
    };

    fn model(src: &str) -> ShaderModel {
        ShaderModel::parse(src, Stage::Fragment).unwrap()
    }

    fn probe(m: &ShaderModel, pos: &Position, expr: Option<&str>) -> Instrumented {
        let out = m
            .instrument(&Probe {
                position: pos,
                expr,
                semantics: Semantics::Equivalent,
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

    /// Stepping into a `subroutine(T)` function called directly: its call
    /// instance copy is a plain function (Mesa rejects the qualifier on a
    /// second declaration), the original keeps it for the subroutine uniform.
    #[test]
    fn subroutine_function_copies_are_plain_functions() {
        let m = model(
            "#version 430\n\
             subroutine float ShadeFn(vec2 p);\n\
             layout(index = 3) subroutine(ShadeFn) float shadeA(vec2 p) {\n\
                 float k = p.x / 64.0;\n\
                 return k;\n\
             }\n\
             subroutine uniform ShadeFn u_shade;\n\
             out vec4 frag;\n\
             void main() {\n\
                 float s = shadeA(gl_FragCoord.xy) + u_shade(gl_FragCoord.xy);\n\
                 frag = vec4(s);\n\
             }\n",
        );
        let pos = Position {
            step: StepId(1),
            calls: vec![(StepId(2), 0)],
            iterations: vec![],
        };
        let out = probe(&m, &pos, Some("p"));
        assert!(
            out.source
                .contains("layout(index = 3) subroutine(ShadeFn) float shadeA(vec2 p)"),
            "{}",
            out.source
        );
        let copies: Vec<&str> = out
            .source
            .lines()
            .filter(|l| l.contains("gldbg1_shadeA(vec2 p)"))
            .collect();
        assert_eq!(copies.len(), 2, "prototype and definition: {}", out.source);
        for l in copies {
            assert!(l.starts_with("float gldbg1_shadeA("), "{l}");
        }
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
                            expr: expr.as_deref(),
                            semantics: Semantics::Equivalent,
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
        // main stays the entry point: it sets the debug globals up first
        // and copies the outputs out last.
        assert!(s.contains("void main() {\n    gldbg_begin();\n"), "{s}");
        assert!(s.contains("    gldbg_end();\n}"), "{s}");
        assert!(s.contains(
            "void gldbg_end() {\n    gldbg_value = gldbg_v;\n    gldbg_coverage = gldbg_c;\n}"
        ));
        assert!(!s.contains("gldbg_main"), "{s}");
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
    fn discard_stays_unless_reporting_discarded_fragments() {
        let src = "#version 330 core\nin vec2 uv;\nout vec4 o;\nvoid main() {\n    float a = uv.x;\n    if (a < 0.5) discard;\n    o = vec4(a);\n}\n";
        let m = model(src);
        // After the `if` (`a` is declared by an earlier step).
        let after_if = Position {
            step: m.steps_on_line(7)[0],
            calls: vec![],
            iterations: vec![],
        };
        let s = probe(&m, &after_if, Some("a")).source;
        assert!(s.contains("    if (a < 0.5) discard;\n"), "{s}");
        assert!(!s.contains("return;"), "{s}");
        let s = m
            .instrument(&Probe {
                position: &after_if,
                expr: Some("a"),
                semantics: Semantics::ReportDiscarded,
            })
            .unwrap()
            .source;
        assert!(
            s.contains(
                "if (a < 0.5) {\n        if (gldbg_c == 0.) discard;\n        {\n            gldbg_end();\n            return;\n        }\n    }"
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
        assert!(s.contains("void gldbg_main() {") && s.contains("    gldbg_main();\n"));
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
            semantics: Semantics::Equivalent,
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
                expr: None,
                semantics: Semantics::Equivalent,
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
                        expr: None,
                        semantics: Semantics::Equivalent,
                    }),
                    Err(InstrumentError::Unsupported(_))
                ),
                "{bad:?}"
            );
        }
    }

    // ---- Other stages: outputs per stage (TEAM2.md planned API). The driver
    // compiles these shapes too: see the corpus harness (`gldbg-corpus compile`).

    fn stage_model(src: &str, stage: Stage) -> ShaderModel {
        ShaderModel::parse(src, stage).unwrap()
    }

    /// Every reachable position of `m`, with and without a value: parses again.
    fn every_position(m: &ShaderModel) -> Vec<Instrumented> {
        let positions = reachable(m);
        assert!(positions.len() >= 3);
        let mut outs = Vec::new();
        for pos in positions {
            let expr = m.step(pos.step).scope.last().map(|v| v.name.clone());
            outs.push(probe(m, &pos, expr.as_deref()));
            outs.push(probe(m, &pos, None));
        }
        outs
    }

    const VERTEX_330: &str = "#version 330 core
layout(location = 0) in vec3 pos;
uniform int n;
out vec3 color;
void main() {
    vec3 c = vec3(0.0);
    for (int i = 0; i < n; i++) {
        c += pos * float(i);
    }
    color = c;
    gl_Position = vec4(pos, 1.0);
}
";

    #[test]
    fn vertex_gets_two_varyings_copied_at_the_end() {
        let m = stage_model(VERTEX_330, Stage::Vertex);
        for out in every_position(&m) {
            assert_eq!(out.value, OutputSlot::Varying("gldbg_value".into()));
            assert_eq!(out.coverage, OutputSlot::Varying("gldbg_coverage".into()));
            assert_eq!(out.emission, None);
            let s = &out.source;
            assert!(s.starts_with("#version 330 core\n"), "{s}");
            assert!(
                s.contains("out vec4 gldbg_value;\nout float gldbg_coverage;\n"),
                "{s}"
            );
            // The app's outputs are untouched; the new main copies ours last.
            assert!(s.contains("out vec3 color;") && s.contains("gl_Position = vec4(pos, 1.);"));
            assert!(s.ends_with("    gldbg_end();\n}\n"), "{s}");
            assert!(s.contains("void gldbg_end() {\n    gldbg_value = gldbg_v;\n    gldbg_coverage = gldbg_c;\n}\n"), "{s}");
        }
        // In the loop: counter, path uniform, guarded write before the statement.
        let pos = Position {
            step: m.steps_on_line(8)[0],
            calls: vec![],
            iterations: vec![1],
        };
        let s = probe(&m, &pos, Some("c")).source;
        assert!(s.contains("if (gldbg_iter0 == gldbg_path[0] && gldbg_c == 0.) {\n            gldbg_c = gldbg_store(c);\n        }\n        c += pos * float(i);"), "{s}");
    }

    #[test]
    fn vertex_shaders_of_non_indexed_draws_write_storage_blocks_in_draw_order() {
        let m = stage_model(VERTEX_330, Stage::Vertex);
        let probe = Probe {
            position: &m.entry(),
            expr: Some("pos"),
            semantics: Semantics::ReportDiscarded,
        };
        let out = m.instrument_vertex_buffer(&probe, false).unwrap();
        let block = |binding: u32, block: &str, member: &str| OutputSlot::Buffer {
            binding,
            block: block.into(),
            member: member.into(),
        };
        assert_eq!(out.value, block(0, "gldbg_Value", "gldbg_value"));
        assert_eq!(out.coverage, block(1, "gldbg_Coverage", "gldbg_coverage"));
        assert_eq!(
            out.vertex_index_uniforms,
            Some(("gldbg_first".into(), "gldbg_count".into()))
        );
        let s = &out.source;
        assert!(
            s.contains("#extension GL_ARB_shader_storage_buffer_object : require"),
            "{s}"
        );
        assert!(
            s.contains("uniform uint gldbg_first;\nuniform uint gldbg_count;\n"),
            "{s}"
        );
        assert!(
            s.contains(
                "void gldbg_end() {\n    uint gldbg_index = uint(gl_VertexID) - gldbg_first + \
                 uint(gl_InstanceID) * gldbg_count;\n    gldbg_value[gldbg_index] = gldbg_v;\n    \
                 gldbg_coverage[gldbg_index] = gldbg_c;\n}\n"
            ),
            "{s}"
        );
        assert!(!s.contains("out vec4 gldbg_value"), "{s}");
        // At the end of main too; no other stage, no GLSL without gl_InstanceID.
        assert!(m.instrument_vertex_buffer(&probe, true).is_ok());
        let legacy = stage_model(
            "#version 130\nin vec4 p;\nvoid main() {\n    gl_Position = p;\n}\n",
            Stage::Vertex,
        );
        let entry = legacy.entry();
        let old = Probe {
            position: &entry,
            expr: None,
            semantics: Semantics::ReportDiscarded,
        };
        assert!(matches!(
            legacy.instrument_vertex_buffer(&old, false),
            Err(InstrumentError::Unsupported(_))
        ));
    }

    #[test]
    fn old_vertex_shaders_use_varying_and_es_gets_highp() {
        let legacy = "attribute vec4 p;\nvarying float k;\nvoid main() {\n    k = p.x * 2.0;\n    gl_Position = ftransform();\n}\n";
        let m = stage_model(legacy, Stage::Vertex);
        let s = probe(&m, &m.entry(), Some("p")).source;
        assert!(
            s.contains("varying vec4 gldbg_value;\nvarying float gldbg_coverage;\n"),
            "{s}"
        );
        assert!(!s.contains("#version") && !s.contains("out vec4"), "{s}");
        let es100 = "#version 100\nattribute vec4 p;\nvarying mediump float k;\nvoid main() {\n    k = p.x;\n    gl_Position = p;\n}\n";
        let m = stage_model(es100, Stage::Vertex);
        let s = probe(&m, &m.entry(), Some("p")).source;
        assert!(
            s.contains("varying highp vec4 gldbg_value;\nvarying highp float gldbg_coverage;\n"),
            "{s}"
        );
        assert!(s.contains("highp float gldbg_store(highp vec4 x)"), "{s}");
        let es300 = "#version 300 es\nin vec4 p;\nout float k;\nvoid main() {\n    k = p.x;\n    gl_Position = p;\n}\n";
        let m = stage_model(es300, Stage::Vertex);
        let s = probe(&m, &m.entry(), Some("p")).source;
        assert!(
            s.contains("out highp vec4 gldbg_value;\nout highp float gldbg_coverage;\n"),
            "{s}"
        );
        // No locations: vertex outputs are matched by name.
        assert!(!s.contains("layout(location"), "{s}");
    }

    #[test]
    fn tess_eval_gets_two_varyings() {
        let src = "#version 400
layout(triangles, equal_spacing) in;
out float w;
void main() {
    vec3 b = gl_TessCoord;
    w = b.x + b.y;
    gl_Position = vec4(b, 1.0);
}
";
        let m = stage_model(src, Stage::TessEval);
        for out in every_position(&m) {
            assert_eq!(out.value, OutputSlot::Varying("gldbg_value".into()));
            assert_eq!(out.coverage, OutputSlot::Varying("gldbg_coverage".into()));
            assert!(
                out.source.contains("layout(triangles, equal_spacing) in;"),
                "{}",
                out.source
            );
            assert!(
                out.source
                    .contains("out vec4 gldbg_value;\nout float gldbg_coverage;\n")
            );
        }
    }

    const GEOMETRY_150: &str = "#version 150
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
in vec3 vcolor[];
out vec3 gcolor;
void emit(int k) {
    gcolor = vcolor[k];
    gl_Position = gl_in[k].gl_Position;
    EmitVertex();
}
void main() {
    for (int i = 0; i < 2; i++) {
        emit(i);
    }
    gcolor = vcolor[2];
    gl_Position = gl_in[2].gl_Position;
    EmitVertex();
    EndPrimitive();
}
";

    #[test]
    fn geometry_hands_the_value_out_before_every_emit() {
        let m = stage_model(GEOMETRY_150, Stage::Geometry);
        for out in every_position(&m) {
            let s = &out.source;
            assert_eq!(out.value, OutputSlot::Varying("gldbg_value".into()));
            assert_eq!(out.coverage, OutputSlot::Varying("gldbg_coverage".into()));
            assert_eq!(
                out.emission,
                Some(OutputSlot::Varying("gldbg_emission".into()))
            );
            assert!(s.contains("out vec4 gldbg_value;\nout float gldbg_coverage;\nout vec3 gldbg_emission;\nint gldbg_emitted;\n"), "{s}");
            // GLSL 1.50: no gl_InvocationID.
            assert!(s.contains("void gldbg_put() {\n    gldbg_value = gldbg_v;\n    gldbg_coverage = gldbg_c;\n    gldbg_emission = vec3(float(gldbg_emitted), float(gl_PrimitiveIDIn), 0.0);\n    gldbg_emitted++;\n}\n"), "{s}");
            // Every EmitVertex (also in `emit` and its duplicate) hands out first.
            assert_eq!(
                s.matches("EmitVertex()").count(),
                s.matches("gldbg_put(), EmitVertex()").count()
            );
            assert!(s.matches("gldbg_put(), EmitVertex();").count() >= 2, "{s}");
            assert!(s.contains("    gldbg_emitted = 0;\n}\n"), "{s}");
            assert!(s.contains("    EndPrimitive();\n"));
        }
        // Inside `emit`, called from the loop in main: the duplicate carries the write.
        let site = m.steps_on_line(13)[0];
        let pos = Position {
            step: m.steps_on_line(7)[0],
            calls: vec![(site, 0)],
            iterations: vec![1],
        };
        let s = probe(&m, &pos, Some("k")).source;
        assert!(s.contains("void gldbg1_emit(int k) {"), "{s}");
        assert!(s.contains("gldbg1_emit(i);"), "{s}");
    }

    #[test]
    fn geometry_with_streams_captures_from_stream_0() {
        let src = "#version 400
layout(points) in;
layout(points, max_vertices = 2) out;
layout(stream = 1) out float s1;
void main() {
    float x = gl_in[0].gl_Position.x;
    s1 = x;
    EmitStreamVertex(1);
    EndStreamPrimitive(1);
}
";
        let m = stage_model(src, Stage::Geometry);
        let s = probe(&m, &m.entry(), Some("gl_in[0].gl_Position")).source;
        assert!(
            s.contains("layout(stream = 0) out vec4 gldbg_value;"),
            "{s}"
        );
        assert!(s.contains("gldbg_put(), EmitStreamVertex(1);"), "{s}");
    }

    const TESS_CONTROL_400: &str = "#version 400
layout(vertices = 3) out;
in vec3 vpos[];
out vec3 tpos[];
void main() {
    tpos[gl_InvocationID] = vpos[gl_InvocationID];
    barrier();
    if (gl_InvocationID == 0) {
        gl_TessLevelInner[0] = 2.0;
        return;
    }
    gl_TessLevelOuter[gl_InvocationID] = 3.0;
}
";

    #[test]
    fn tess_control_writes_storage_blocks_at_the_probe() {
        let m = stage_model(TESS_CONTROL_400, Stage::TessControl);
        for out in every_position(&m) {
            let s = &out.source;
            // Storage blocks, not per-vertex outputs: a shader using all its
            // output components must still link.
            assert!(
                matches!(&out.value, OutputSlot::Buffer { binding: 0, member, .. } if member == "gldbg_value"),
                "{:?}",
                out.value
            );
            assert!(matches!(
                out.coverage,
                OutputSlot::Buffer { binding: 1, .. }
            ));
            assert_eq!(out.output_vertices_uniform, None);
            assert!(!s.contains("out vec4 gldbg_value"), "{s}");
            assert!(s.contains("#extension GL_ARB_shader_storage_buffer_object : require\n"));
            assert!(s.contains("layout(std430, binding = 0) buffer gldbg_Value {\n    vec4 gldbg_value[];\n};\n"), "{s}");
            // main stays main (barrier() is only allowed there), zeroes first.
            assert!(!s.contains("gldbg_main"), "{s}");
            assert!(s.contains("void main() {\n    gldbg_v = vec4(0.);\n    gldbg_c = 0.;\n    gldbg_flush(0.);\n"), "{s}");
            assert!(s.contains("\n    barrier();\n"));
            assert!(s.ends_with("float gldbg_flush(float gldbg_code) {\n    uint gldbg_index = uint(gl_PrimitiveID) * uint(3) + uint(gl_InvocationID);\n    gldbg_value[gldbg_index] = gldbg_v;\n    gldbg_coverage[gldbg_index] = gldbg_code;\n    return gldbg_code;\n}\n"), "{s}");
        }
        let pos = Position {
            step: m.steps_on_line(12)[0],
            calls: vec![],
            iterations: vec![],
        };
        let s = probe(&m, &pos, Some("gl_InvocationID")).source;
        assert!(s.contains("if (gldbg_c == 0.) {\n        gldbg_c = gldbg_flush(gldbg_store(gl_InvocationID));\n    }\n    gl_TessLevelOuter[gl_InvocationID] = 3.;"), "{s}");
    }

    #[test]
    fn compute_writes_a_free_storage_block() {
        let src = "#version 430
layout(local_size_x = 8, local_size_y = 2) in;
layout(std430, binding = 2) buffer Data { float d[]; };
layout(std430) buffer Other { uint n; };
layout(binding = 0) uniform sampler2D tex;
void main() {
    uint i = gl_GlobalInvocationID.x;
    for (int k = 0; k < 2; k++) {
        d[i] += float(k);
    }
}
";
        let m = stage_model(src, Stage::Compute);
        for out in every_position(&m) {
            let s = &out.source;
            assert_eq!(
                out.value,
                OutputSlot::Buffer {
                    binding: 3,
                    block: "gldbg_Value".into(),
                    member: "gldbg_value".into()
                }
            );
            assert_eq!(
                out.coverage,
                OutputSlot::Buffer {
                    binding: 4,
                    block: "gldbg_Coverage".into(),
                    member: "gldbg_coverage".into()
                }
            );
            assert!(s.contains("layout(std430, binding = 3) buffer gldbg_Value {\n    vec4 gldbg_value[];\n};\nlayout(std430, binding = 4) buffer gldbg_Coverage {\n    float gldbg_coverage[];\n};\n"), "{s}");
            assert!(s.contains("uint gldbg_index = gl_GlobalInvocationID.x + gl_NumWorkGroups.x * gl_WorkGroupSize.x * (gl_GlobalInvocationID.y + gl_NumWorkGroups.y * gl_WorkGroupSize.y * gl_GlobalInvocationID.z);\n    gldbg_value[gldbg_index] = gldbg_v;\n    gldbg_coverage[gldbg_index] = gldbg_code;\n"), "{s}");
            assert!(
                !s.contains("gldbg_main") && !s.contains("#extension"),
                "{s}"
            );
        }
        // An array of blocks takes a binding per element; old GLSL gets the extensions.
        let src = "#version 330
#extension GL_ARB_compute_shader : enable
layout(local_size_x = 1) in;
void main() {
    int x = 1;
    x += 2;
}
";
        let m = stage_model(src, Stage::Compute);
        let second = Position {
            step: m.steps_on_line(6)[0],
            calls: vec![],
            iterations: vec![],
        };
        let out = probe(&m, &second, Some("x"));
        assert!(out.source.starts_with("#version 330\n#extension GL_ARB_shader_storage_buffer_object : require\n#extension GL_ARB_shading_language_420pack : require\n#extension GL_ARB_compute_shader : enable\n"), "{}", out.source);
        assert!(matches!(out.value, OutputSlot::Buffer { binding: 0, .. }));
        let src = "#version 310 es
layout(local_size_x = 4) in;
layout(std430, binding = 1) buffer B { highp float v[]; } b[3];
void main() {
    b[0].v[0] = 1.0;
}
";
        let m = stage_model(src, Stage::Compute);
        let out = probe(&m, &m.entry(), None);
        assert!(
            matches!(out.value, OutputSlot::Buffer { binding: 4, .. }),
            "{:?}",
            out.value
        );
        assert!(
            out.source.contains("highp vec4 gldbg_value[];")
                && out.source.contains("highp uint gldbg_index =")
        );
        // The local size declared by another shader of the program: a
        // uniform the executor sets.
        let m = stage_model(
            "#version 430\nlayout(std430, binding = 0) buffer B { uint v[]; };\nvoid main() {\n    v[gl_GlobalInvocationID.x] = 1u;\n}\n",
            Stage::Compute,
        );
        let out = probe(&m, &m.entry(), None);
        assert_eq!(out.local_size_uniform.as_deref(), Some("gldbg_local_size"));
        assert!(
            out.source.contains("uniform uvec3 gldbg_local_size;\n"),
            "{}",
            out.source
        );
        assert!(
            out.source
                .contains("gl_NumWorkGroups.x * gldbg_local_size.x *"),
            "{}",
            out.source
        );
        assert!(!out.source.contains("gl_WorkGroupSize"), "{}", out.source);
    }

    #[test]
    fn tess_control_without_vertices_layout_takes_a_uniform() {
        let src = "#version 400\nin vec3 vpos[];\nout vec3 tpos[];\nvoid main() {\n    tpos[gl_InvocationID] = vpos[gl_InvocationID];\n}\n";
        let m = stage_model(src, Stage::TessControl);
        let out = probe(&m, &m.entry(), None);
        assert_eq!(
            out.output_vertices_uniform.as_deref(),
            Some("gldbg_output_vertices")
        );
        assert!(
            out.source.contains("uniform uint gldbg_output_vertices;\n"),
            "{}",
            out.source
        );
        assert!(
            out.source
                .contains("uint(gl_PrimitiveID) * gldbg_output_vertices + uint(gl_InvocationID)"),
            "{}",
            out.source
        );
        // A named constant stays a name.
        let src = "#version 400\nconst int N = 4;\nlayout(vertices = N) out;\nvoid main() {\n    gl_TessLevelOuter[0] = 1.0;\n}\n";
        let m = stage_model(src, Stage::TessControl);
        let out = probe(&m, &m.entry(), None);
        assert_eq!(out.output_vertices_uniform, None);
        assert!(
            out.source
                .contains("uint(gl_PrimitiveID) * uint(N) + uint(gl_InvocationID)"),
            "{}",
            out.source
        );
    }

    #[test]
    fn debug_varyings_get_locations_above_the_apps_when_the_shader_places_its_own() {
        // Separable programs match unlocated varyings by the slots the linker
        // gives them: ours go above a[6] (0..5) and the unlocated `to_gs`.
        let src = "#version 150\n#extension GL_ARB_separate_shader_objects: require\nlayout(location = 0) out vec3 a[6];\nlayout(location = 0, component = 3) out float b[6];\nout vec4 to_gs;\nin vec4 pos;\nvoid main() {\n    a[0] = vec3(0.0);\n    to_gs = pos;\n}\n";
        let m = stage_model(src, Stage::Vertex);
        let s = probe(&m, &m.entry(), None).source;
        assert!(s.contains("layout(location = 7) out vec4 gldbg_value;\nlayout(location = 8) out float gldbg_coverage;\n"), "{s}");
        // Matrices and dvec4 take several locations.
        let src = "#version 410\nlayout(location = 2) out mat3 m3[2];\nlayout(location = 9) out flat dvec4 d;\nvoid main() {\n    m3[0] = mat3(1.0);\n    d = dvec4(1.0);\n}\n";
        let m = stage_model(src, Stage::TessEval);
        let s = probe(&m, &m.entry(), None).source;
        assert!(
            s.contains("layout(location = 11) out vec4 gldbg_value;\n"),
            "{s}"
        );
        // No room above the app's 32 locations: none.
        let src = "#version 140\n#extension GL_ARB_separate_shader_objects: require\nlayout(location = 0) out vec3 a[32];\nvoid main() {\n    a[0] = vec3(1.0);\n}\n";
        let m = stage_model(src, Stage::Vertex);
        let s = probe(&m, &m.entry(), None).source;
        assert!(
            s.contains("\nout vec4 gldbg_value;\nout float gldbg_coverage;\n"),
            "{s}"
        );
        // Geometry: with the stream.
        let src = "#version 410\nlayout(points) in;\nlayout(points, max_vertices = 1) out;\nlayout(stream = 1) out;\nlayout(location = 3) out vec4 c;\nvoid main() {\n    c = vec4(1.0);\n    EmitStreamVertex(1);\n}\n";
        let m = stage_model(src, Stage::Geometry);
        let s = probe(&m, &m.entry(), None).source;
        assert!(s.contains("layout(stream = 0, location = 4) out vec4 gldbg_value;\nlayout(stream = 0, location = 5) out float gldbg_coverage;\nlayout(stream = 0, location = 6) out vec3 gldbg_emission;\n"), "{s}");
        // No explicit locations, or a language without output locations: none.
        let src = "#version 410\nin vec4 pos;\nout vec4 c;\nvoid main() {\n    c = pos;\n}\n";
        let m = stage_model(src, Stage::Vertex);
        assert!(!probe(&m, &m.entry(), None).source.contains("location"));
        let src = "#version 330\nlayout(location = 0) in vec4 pos;\nvoid main() {\n    gl_Position = pos;\n}\n";
        let m = stage_model(src, Stage::Vertex);
        let s = probe(&m, &m.entry(), None).source;
        assert!(
            s.contains("\nout vec4 gldbg_value;\nout float gldbg_coverage;\n"),
            "{s}"
        );
    }

    #[test]
    fn fragment_builtins_the_app_cannot_write_are_not_outputs() {
        // The app has its own unlocated output: a probe reading gl_FragColor
        // must not add an output that takes location 0 before it.
        let src = "#version 120\n#extension GL_EXT_gpu_shader4: require\nout vec4 piglit_fragcolor;\nvoid main() {\n    piglit_fragcolor = vec4(0.0, 1.0, 0.0, 1.0);\n}\n";
        let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
        let pos = m
            .successors(&m.entry(), StepMode::Into)
            .into_iter()
            .next()
            .unwrap_or_else(|| m.entry());
        let out = probe(&m, &pos, Some("gl_FragColor"));
        assert!(
            out.source.contains("\nvec4 gldbg_FragColor;\n"),
            "{}",
            out.source
        );
        assert!(
            !out.source.contains("out vec4 gldbg_FragColor"),
            "{}",
            out.source
        );
        assert_eq!(out.app_outputs, vec!["piglit_fragcolor".to_string()]);
        // A GLSL 1.10 shader referencing neither built-in (another shader of
        // the program writes gl_FragColor): named `varying out`s, not
        // gl_FragData[k].
        let src = "float a[6];\nvoid myfunc();\nvoid main() {\n    myfunc();\n}\n";
        let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
        let out = probe(&m, &m.entry(), Some("gl_FragColor"));
        assert_eq!(out.value, OutputSlot::Named("gldbg_value".into()));
        assert!(
            out.source
                .contains("#extension GL_EXT_gpu_shader4 : require\n"),
            "{}",
            out.source
        );
        assert!(out.source.contains("\nvec4 gldbg_FragColor;\nvarying out vec4 gldbg_value;\nvarying out float gldbg_coverage;\n"), "{}", out.source);
        assert!(!out.source.contains("gl_FragData"), "{}", out.source);
        assert!(out.app_outputs.is_empty());
    }

    #[test]
    fn comma_expressions_in_arguments_and_initializers_keep_their_meaning() {
        let src = "#version 100\nprecision mediump float;\nconst float f = cos((1.0, 2.0));\nvoid main() {\n    float a = 1.0;\n    float x = (a = 2.0, a + 1.0), y = 3.0;\n    vec2 v = vec2((a, 4.0), 5.0);\n    float w[2];\n    for (float i = (a, 0.0); i < 1.0; i++) { }\n    a = (a, 6.0);\n    gl_FragColor = vec4(f, x, v.x, y);\n}\n";
        let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
        let s = probe(&m, &m.entry(), None).source;
        assert!(
            s.contains("const float f = cos(true ? 1., 2. : 2.);"),
            "{s}"
        );
        assert!(
            s.contains("float x = true ? a = 2., a + 1. : a + 1., y = 3.;"),
            "{s}"
        );
        assert!(s.contains("vec2 v = vec2(true ? a, 4. : 4., 5.);"), "{s}");
        assert!(s.contains("for (float i = true ? a, 0. : 0.; "), "{s}");
        // Where the printer keeps the parentheses, nothing changes.
        assert!(s.contains("a = (a, 6.);"), "{s}");
        // And the result parses back to the same meaning.
        let again = ShaderModel::parse(&s, Stage::Fragment);
        assert!(again.is_ok(), "{s}");
    }

    #[test]
    fn misspelt_multisample_sampler_types_are_printed_right() {
        let src = "#version 150\nuniform isampler2DMS a;\nuniform usampler2DMSArray b;\nout vec4 o;\nvoid main() {\n    o = vec4(texelFetch(a, ivec2(0), 0)) + vec4(texelFetch(b, ivec3(0), 1));\n}\n";
        let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
        let out = probe(&m, &m.entry(), None);
        assert!(
            out.source.contains("uniform isampler2DMS a;"),
            "{}",
            out.source
        );
        assert!(
            out.source.contains("uniform usampler2DMSArray b;"),
            "{}",
            out.source
        );
        assert!(!out.source.contains("isampler2MS") && !out.source.contains("usamplerDMSArray"));
        assert_eq!(
            super::fix_type_names("isampler2MSx isampler2MS(usamplerDMSArray)"),
            "isampler2MSx isampler2DMS(usampler2DMSArray)"
        );
    }

    /// piglit's fs-inout-index-two-level: `v[w[i]]` is an `inout` argument
    /// whose index reads another `inout` argument; GLSL evaluates it once,
    /// at the call. At every position and at the end of main the debug
    /// shader keeps the call as it is (only renamed to the position's copy)
    /// with the statements around it in their order: no probe rewrites an
    /// argument, duplicates an index or moves a side effect.
    #[test]
    fn an_indexed_inout_argument_stays_as_the_app_wrote_it() {
        let src = "#version 120
uniform int u = 1;
void func(inout int i, inout int w[4], inout int x)
{
  i = 0;
  for (int j = 0; j < 4; ++j)
    w[j] += j;
  x = 1;
}
void main()
{
  int v[4] = int[](0, 0, 0, 0);
  int w[4] = int[](0, 1, 0, 0);
  int i = u;
  func(i, w, v[w[i]]);
  if (v[1] != 1) {
    gl_FragColor = vec4(1.0, 0.0, 0.0, 1.0);
    return;
  }
  gl_FragColor = vec4(0.0, 1.0, 0.0, 1.0);
}
";
        let m = model(src);
        let mut sources: Vec<String> = every_position(&m).into_iter().map(|i| i.source).collect();
        sources.push(
            m.instrument_end_of_main(&Probe {
                position: &m.entry(),
                expr: Some("gl_FragColor"),
                semantics: Semantics::ReportDiscarded,
            })
            .unwrap()
            .source,
        );
        for s in &sources {
            let main = &s[s.find("void main()").unwrap_or_else(|| panic!("{s}"))..];
            let app_lines: Vec<&str> = main
                .lines()
                .map(str::trim)
                .filter(|l| {
                    [
                        "int v[4]",
                        "int w[4]",
                        "int i = u;",
                        "gldbg_k0 = int(w[i]);",
                        "gldbg_a1 = v[gldbg_k0];",
                        "func(i, w, gldbg_a1);",
                        "v[gldbg_k0] = gldbg_a1;",
                        "v[1] != 1",
                    ]
                    .iter()
                    .any(|p| l.contains(p))
                })
                .collect();
            // The index of the inout argument is taken right before the
            // call, and the element copied in and out as GLSL's call does
            // (NVIDIA evaluates `w[i]` again after the call otherwise).
            assert_eq!(app_lines.len(), 8, "{s}");
            assert_eq!(app_lines[3], "gldbg_k0 = int(w[i]);", "{s}");
            assert_eq!(app_lines[4], "gldbg_a1 = v[gldbg_k0];", "{s}");
            assert!(app_lines[5].ends_with("func(i, w, gldbg_a1);"), "{s}");
            assert_eq!(app_lines[6], "v[gldbg_k0] = gldbg_a1;", "{s}");
            assert!(app_lines[7].ends_with("v[1] != 1) {"), "{s}");
            assert!(s.contains("\nint gldbg_k0;\nint gldbg_a1;\n"), "{s}");
            assert!(!s.contains("? "), "no argument is rewritten otherwise: {s}");
        }
    }

    /// NVIDIA writes an indexed `inout` argument back at the index the call
    /// left (`func(i, v[1][i])` with `func` setting `i`) when the call is in
    /// a function other than `main` (piglit's
    /// out-parameter-indexing/vs-inout-index-inout-vec4-array-element, H200):
    /// the body of the app's `main` must stay in `main`, for every probe.
    #[test]
    fn the_apps_main_body_stays_in_main() {
        let src = "#version 120
uniform int u = 1;
varying vec4 color;
void func(inout int i, inout float f) { i = 0; f = 1.; }
void main()
{
  vec4 v[] = vec4[](vec4(0.), vec4(0.));
  int i = u;
  if (i > 2) return;
  func(i, v[1][i]);
  color = v[1];
  gl_Position = gl_Vertex;
}
";
        let m = stage_model(src, Stage::Vertex);
        let mut sources: Vec<String> = every_position(&m).into_iter().map(|i| i.source).collect();
        sources.push(
            m.instrument_end_of_main(&Probe {
                position: &m.entry(),
                expr: Some("color"),
                semantics: Semantics::ReportDiscarded,
            })
            .unwrap()
            .source,
        );
        for s in &sources {
            assert_eq!(s.matches("void main()").count(), 1, "{s}");
            let start = s.find("void main() {\n    gldbg_begin();\n").expect(s);
            let body = &s[start..start + s[start..].find("\n}").expect(s)];
            assert!(body.contains("gldbg_k0 = int(i);\n"), "{s}");
            assert!(body.contains("func(i, gldbg_a1);\n"), "{s}");
            assert!(body.contains("v[1][gldbg_k0] = gldbg_a1;\n"), "{s}");
            assert!(body.contains("    color = v[1];\n"), "{s}");
            // The outputs are copied out at the return and at the end.
            let returns: Vec<usize> = body.match_indices("return;").map(|(k, _)| k).collect();
            assert_eq!(returns.len(), 1, "{s}");
            assert!(
                body[..returns[0]].trim_end().ends_with("gldbg_end();"),
                "{s}"
            );
            assert!(body.ends_with("    gldbg_end();"), "{s}");
            assert!(!s.contains("gldbg_main"), "{s}");
        }
    }

    /// An `out int` argument bound to a dynamically indexed `vec4`
    /// component is copied out through a global of the parameter's type
    /// (NVIDIA wrote the wrong component once a probe called a function
    /// before the call: piglit vs-out-conversion-int-to-float-vec4-index);
    /// no copy-in for `out`. Where copying could reorder side effects (an
    /// argument with `++`) or the call is part of an assignment, only what
    /// is safe is done.
    #[test]
    fn out_arguments_with_dynamic_indices_are_copied_in_main() {
        let src = "#version 120
uniform int u;
void f(inout int i, out int x) { x = 4; i = 0; }
int g(inout int i, out int x) { x = 4; i = 0; return 1; }
void main() {
    vec4 value = vec4(0.0);
    int i = u;
    f(i, value[i]);
    int r = 0;
    r = g(i, value[i]);
    f(i, value[i++]);
    gl_FragColor = value * float(r);
}
";
        let m = model(src);
        let s = probe(&m, &m.entry(), Some("u")).source;
        let main = &s[s.find("void main()").unwrap()..];
        assert!(
            main.contains("    {\n        gldbg_k0 = int(i);\n        f(i, gldbg_a1);\n        value[gldbg_k0] = gldbg_a1;\n    }\n"),
            "{s}"
        );
        assert!(s.contains("\nint gldbg_k0;\nint gldbg_a1;\n"), "{s}");
        // An assignment: the index only.
        assert!(
            main.contains(
                "    {\n        gldbg_k2 = int(i);\n        r = g(i, value[gldbg_k2]);\n    }\n"
            ),
            "{s}"
        );
        // A side effect in the arguments: as the app wrote it.
        assert!(main.contains("    f(i, value[i++]);\n"), "{s}");
    }

    /// A fragment program of several shader objects: the others write
    /// `gl_FragColor` too, and get the renamed output with its declaration
    /// (NVIDIA links no program mixing it with user-defined outputs, and
    /// the debug value must see their writes: piglit
    /// fragcoord-layout-qualifiers-matching-case-3).
    #[test]
    fn fragment_siblings_write_the_renamed_outputs() {
        let main_src = "#version 150\nvoid blue();\nvoid main() {\n    gl_FragColor = vec4(0.5);\n    blue();\n}\n";
        let blue = "#version 150\nvoid blue()\n{\n    gl_FragColor.b = 1.0;\n}\n".to_string();
        let mut m = model(main_src);
        m.set_siblings(vec![blue.clone()]);
        let end = m
            .instrument_end_of_main(&Probe {
                position: &m.entry(),
                expr: Some("gl_FragColor"),
                semantics: Semantics::ReportDiscarded,
            })
            .unwrap();
        for inst in [probe(&m, &m.entry(), Some("gl_FragColor")), end] {
            let s = &inst.source;
            assert!(s.contains("out vec4 gldbg_FragColor;\n"), "{s}");
            assert!(!s.contains("gl_FragColor"), "{s}");
            assert_eq!(
                inst.siblings,
                vec![
                    "#version 150\nout vec4 gldbg_FragColor;\nvoid blue()\n{\n    gldbg_FragColor.b = 1.0;\n}\n"
                ]
            );
            assert!(inst.app_outputs.contains(&"gldbg_FragColor".to_string()));
        }
        // Only a sibling writes it (GLSL 1.20): gl_FragData[0] there, the
        // debug outputs after it, and no named outputs that would clash.
        let mut m = model("#version 120\nvoid blue();\nvoid main() {\n    blue();\n}\n");
        m.set_siblings(vec![blue.replace("150", "120")]);
        let inst = probe(&m, &m.entry(), None);
        assert_eq!(inst.value, OutputSlot::FragData(1), "{}", inst.source);
        assert!(
            !inst.source.contains("GL_EXT_gpu_shader4"),
            "{}",
            inst.source
        );
        assert!(
            inst.siblings[0].contains("    gl_FragData[0].b = 1.0;\n"),
            "{:?}",
            inst.siblings
        );
        // Without siblings nothing is sent in their place.
        assert!(
            probe(&model(main_src), &m.entry(), None)
                .siblings
                .is_empty()
        );
    }
}

#[cfg(test)]
mod overload_tests {
    use crate::{Position, Probe, Semantics, ShaderModel, Stage};

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
                semantics: Semantics::Equivalent,
            })
            .unwrap()
            .source;
        assert!(s.contains("vec3 gldbg1_f(vec3 v) {"), "{s}");
        assert!(s.contains("o = vec4(gldbg1_f(c), f(c.x));"), "{s}");
    }

    #[test]
    fn end_of_main_writes_after_the_last_statement_outside_loops() {
        let src = "#version 330 core
out vec4 o;
void main() {
    float a = 0.0;
    for (int i = 0; i < 4; i++) {
        a += 1.0;
    }
    o = vec4(a);
}
";
        let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
        // Any position: the end of main does not depend on it.
        let pos = Position {
            step: m.steps_on_line(6)[0],
            calls: vec![],
            iterations: vec![2],
        };
        let inst = m
            .instrument_end_of_main(&Probe {
                position: &pos,
                expr: Some("o"),
                semantics: Semantics::ReportDiscarded,
            })
            .unwrap();
        let s = &inst.source;
        assert!(
            s.contains("    o = vec4(a);\n    if (gldbg_c == 0.) {\n        gldbg_c = gldbg_store(o);\n    }\n    gldbg_end();\n}"),
            "{s}"
        );
        assert_eq!(inst.path_uniform, None, "{s}");
        // A local declared in main is in scope there; one of the loop is not.
        let at_end = |e| {
            m.instrument_end_of_main(&Probe {
                position: &pos,
                expr: Some(e),
                semantics: Semantics::ReportDiscarded,
            })
        };
        assert!(at_end("a * 2.0").is_ok());
        assert!(at_end("i").is_err());
    }

    #[test]
    fn end_of_main_is_also_taken_at_each_return_of_main() {
        let src = "#version 330 core
out vec4 o;
uniform float t;
float f(float x) { if (x > 1.0) return x; return 0.0; }
void main() {
    float a = f(t);
    if (a > 0.5) {
        o = vec4(a);
        return;
    }
    if (a < 0.0) discard;
    float late = 2.0 * a;
    for (int i = 0; i < 3; i++) { if (late > 9.0) return; }
    o = vec4(late);
}
";
        let m = ShaderModel::parse(src, Stage::Fragment).unwrap();
        let pos = m.entry();
        let at_end = |e| {
            m.instrument_end_of_main(&Probe {
                position: &pos,
                expr: e,
                semantics: Semantics::ReportDiscarded,
            })
            .unwrap()
            .source
        };
        let s = at_end(Some("o"));
        let write = "if (gldbg_c == 0.) {\n            gldbg_c = gldbg_store(o);\n        }\n        {\n            gldbg_end();\n            return;\n        }";
        assert!(s.contains(write), "{s}");
        // The loop's return too (no loop counter guards it), the callee's not.
        assert_eq!(s.matches("gldbg_c = gldbg_store(o);").count(), 3, "{s}");
        assert!(s.contains("if (x > 1.) return x;"), "{s}");
        // `late` is not in scope at the first return: that invocation has
        // no `late`, so nothing is written there.
        let s = at_end(Some("late"));
        assert_eq!(s.matches("gldbg_c = gldbg_store(late);").count(), 2, "{s}");
        // Coverage alone: every return of main.
        let s = at_end(None);
        assert_eq!(s.matches("gldbg_c = 17.;").count(), 3, "{s}");
    }
}
