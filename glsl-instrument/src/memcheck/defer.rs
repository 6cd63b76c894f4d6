//! Deferred bounds reports: a bounds check inside a loop that only
//! reports out-of-bounds (storage, `shared` and local arrays; not the
//! race and uninitialised-read tracking) reports nothing where the access
//! is. It counts the invocation's out-of-bounds accesses of its site in a
//! private slot and keeps the first bad index, branch-free and without a
//! memory write, so the driver can issue a loop's loads together. The
//! slots are reported once each (`gldbg_mc_flush`, adding the count to
//! the record's) wherever the invocation may end: before each `return`
//! of `main`, at its end, and before every `discard`.
//!
//! A record's count stays the number of out-of-bounds accesses; its
//! element is the one of the claiming invocation's first out-of-bounds
//! access at that site (the first to add to the count writes it).

use glsl_lang::ast;

use super::rewrite::{Rewrite, Slot, call, compound, expr_stmt, u};

impl Rewrite<'_> {
    /// The bounds check of an index (`prefix`: the flat index of a
    /// two-dimensional element's row, told as (row, column)): deferred
    /// inside a loop (`gldbg_mc_ix`, `gldbg_mc_ixr` with a slot), reported
    /// at once elsewhere (`gldbg_mc_ixn`, `gldbg_mc_ixrn` with the site).
    pub(super) fn bounds_call(
        &mut self,
        index: ast::Expr,
        len: ast::Expr,
        site: u32,
        prefix: Option<ast::Expr>,
    ) -> ast::Expr {
        let row = prefix.is_some();
        let (name, at) = if self.loops > 0 {
            let slot = Slot { site, row };
            let k = match self.deferred.iter().position(|s| *s == slot) {
                Some(k) => k,
                None => {
                    self.deferred.push(slot);
                    self.deferred.len() - 1
                }
            };
            (if row { "gldbg_mc_ixr" } else { "gldbg_mc_ix" }, k as u32)
        } else {
            (if row { "gldbg_mc_ixrn" } else { "gldbg_mc_ixn" }, site)
        };
        let mut args = vec![index, len, u(at)];
        args.extend(prefix);
        call(name, args)
    }
}

/// The slots' state and the deferred checks (`p`: the precision prefix).
/// Empty where there are no slots.
pub(super) fn declarations(slots: &[Slot], p: &str) -> String {
    let d = slots.len();
    if d == 0 {
        return String::new();
    }
    let zeros = vec!["0u"; d].join(", ");
    // The row of a (row, column) element: only where there is one.
    let rows = slots.iter().any(|s| s.row);
    let mut s = String::new();
    for a in ["dc", "de", "dr"]
        .into_iter()
        .take(if rows { 3 } else { 2 })
    {
        s += &format!("{p}uint gldbg_mc_{a}[{d}] = uint[{d}]({zeros});\n");
    }
    // Count, then keep the index where this one is the first bad access.
    for (ty, bad, el) in [
        ("int", "i < 0 || i >= n", "uint(i)"),
        ("uint", "i >= uint(n)", "i"),
    ] {
        s += &format!(
            "{p}{ty} gldbg_mc_ix({p}{ty} i, {p}int n, {p}uint slot) {{\n    \
             bool bad = {bad};\n    \
             gldbg_mc_de[slot] = (bad && gldbg_mc_dc[slot] == 0u) ? {el} : gldbg_mc_de[slot];\n    \
             gldbg_mc_dc[slot] += bad ? 1u : 0u;\n    return i;\n}}\n"
        );
        if !rows {
            continue;
        }
        s += &format!(
            "{p}{ty} gldbg_mc_ixr({p}{ty} i, {p}int n, {p}uint slot, {p}uint prefix) {{\n    \
             bool bad = {bad};\n    bool first = bad && gldbg_mc_dc[slot] == 0u;\n    \
             gldbg_mc_de[slot] = first ? {el} : gldbg_mc_de[slot];\n    \
             gldbg_mc_dr[slot] = first ? prefix / uint(max(n, 1)) : gldbg_mc_dr[slot];\n    \
             gldbg_mc_dc[slot] += bad ? 1u : 0u;\n    return i;\n}}\n"
        );
    }
    s += "void gldbg_mc_flush() {\n";
    for (k, slot) in slots.iter().enumerate() {
        let el = match slot.row {
            true => format!("uvec3(gldbg_mc_dr[{k}], gldbg_mc_de[{k}], 0u)"),
            false => format!("uvec3(gldbg_mc_de[{k}], 0u, 0u)"),
        };
        // Zeroed once told: a second flush (an invocation going on past
        // a `discard`) adds nothing.
        s += &format!(
            "    if (gldbg_mc_dc[{k}] != 0u) {{\n        \
             gldbg_mc_reportn({site}u, 0u, {el}, 0u, uvec2(0u), 0u, gldbg_mc_dc[{k}]);\n        \
             gldbg_mc_dc[{k}] = 0u;\n    }}\n",
            site = slot.site
        );
    }
    s += "}\n";
    s
}

/// The deferred reports told wherever the invocation may end: before
/// every `return` of function `main` of `tu` and at its end, and in a
/// fragment shader before every `discard`.
pub(super) fn insert_flushes(tu: &mut [ast::ExternalDeclaration], main: usize, fragment: bool) {
    for (i, d) in tu.iter_mut().enumerate() {
        if let ast::ExternalDeclarationData::FunctionDefinition(def) = &mut d.content {
            let body = &mut def.statement.statement_list;
            flush_before_exits(body, i == main, fragment);
            if i == main {
                body.push(flush());
            }
        }
    }
}

/// `gldbg_mc_flush();` before every `return` of `main` (`in_main`) and,
/// in a fragment shader, before every `discard` of a function body.
fn flush_before_exits(list: &mut [ast::Statement], in_main: bool, fragment: bool) {
    for s in list {
        flush_in(s, in_main, fragment);
    }
}

fn flush_in(s: &mut ast::Statement, in_main: bool, fragment: bool) {
    use ast::StatementData as S;
    match &mut s.content {
        S::Compound(c) => flush_before_exits(&mut c.statement_list, in_main, fragment),
        S::Selection(sel) => match &mut sel.rest.content {
            ast::SelectionRestStatementData::Statement(a) => flush_in(a, in_main, fragment),
            ast::SelectionRestStatementData::Else(a, b) => {
                flush_in(a, in_main, fragment);
                flush_in(b, in_main, fragment);
            }
        },
        S::Switch(sw) => flush_before_exits(&mut sw.body, in_main, fragment),
        S::Iteration(it) => match &mut it.content {
            ast::IterationStatementData::While(_, body)
            | ast::IterationStatementData::DoWhile(body, _)
            | ast::IterationStatementData::For(_, _, body) => flush_in(body, in_main, fragment),
        },
        S::Jump(j) => {
            let exits = match j.content {
                ast::JumpStatementData::Return(_) => in_main,
                ast::JumpStatementData::Discard => fragment,
                _ => false,
            };
            if exits {
                let jump = std::mem::replace(s, compound(vec![]));
                *s = compound(vec![flush(), jump]);
            }
        }
        S::Declaration(_) | S::Expression(_) | S::CaseLabel(_) => {}
    }
}

/// `gldbg_mc_flush();`
fn flush() -> ast::Statement {
    expr_stmt(call("gldbg_mc_flush", vec![]))
}
