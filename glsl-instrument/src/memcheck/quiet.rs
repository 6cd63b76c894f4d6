//! Barrier intervals in which a `shared` array is only read: the
//! statements of a list strictly between two `barrier()` statements of that
//! same list, with no barrier, jump or call of the shader's own functions
//! inside them. Every invocation of the workgroup runs exactly those
//! statements between the two barriers (barriers are in uniform control
//! flow), so an array none of them writes cannot race there, and its reads
//! need no record: only the uninitialised-read check (matmul's inner loop
//! between its tile loads).

use std::collections::HashSet;

use glsl_lang::ast;

use super::scope::Globals;
use crate::steps::call_name;

/// Per statement of `list`: the `shared` arrays (of `shared`) only read in
/// its barrier interval, empty where it is in none.
pub(super) fn quiet_sets(list: &[ast::Statement], g: &Globals) -> Vec<HashSet<String>> {
    let barriers: Vec<usize> = list
        .iter()
        .enumerate()
        .filter(|(_, s)| is_barrier(s))
        .map(|(i, _)| i)
        .collect();
    let mut out = vec![HashSet::new(); list.len()];
    for pair in barriers.windows(2) {
        let run = &list[pair[0] + 1..pair[1]];
        let Some(written) = writes(run, g) else {
            continue;
        };
        let quiet: HashSet<String> = g
            .shared
            .iter()
            .filter(|n| !written.contains(*n))
            .cloned()
            .collect();
        for slot in &mut out[pair[0] + 1..pair[1]] {
            *slot = quiet.clone();
        }
    }
    out
}

/// `barrier();`
fn is_barrier(s: &ast::Statement) -> bool {
    matches!(&s.content, ast::StatementData::Expression(e)
        if e.content.0.as_ref().and_then(call_name).is_some_and(|(n, _)| n == "barrier"))
}

/// The names a run may write (scope.rs: `writes`); `None` where the
/// run is no clean interval (a barrier, a jump or a call of the shader's
/// functions inside).
fn writes(run: &[ast::Statement], g: &Globals) -> Option<HashSet<String>> {
    let mut written = HashSet::new();
    for s in run {
        if has_jump(s) || super::scope::writes(s, g, &mut written) {
            return None;
        }
    }
    Some(written)
}

/// A `return`, `break`, `continue` or `discard` anywhere in `s`.
fn has_jump(s: &ast::Statement) -> bool {
    use ast::StatementData as S;
    match &s.content {
        S::Jump(_) => true,
        S::Compound(c) => c.statement_list.iter().any(has_jump),
        S::Selection(sel) => match &sel.rest.content {
            ast::SelectionRestStatementData::Statement(a) => has_jump(a),
            ast::SelectionRestStatementData::Else(a, b) => has_jump(a) || has_jump(b),
        },
        S::Switch(_) => true,
        S::Iteration(it) => match &it.content {
            ast::IterationStatementData::While(_, b)
            | ast::IterationStatementData::DoWhile(b, _)
            | ast::IterationStatementData::For(_, _, b) => has_jump(b),
        },
        S::Declaration(_) | S::Expression(_) | S::CaseLabel(_) => false,
    }
}
