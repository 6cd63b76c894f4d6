//! Setting the written probe's mirrors where the shader writes what they
//! track, in every function, or naming what cannot be followed.
//!
//! Followed exactly: `=` anywhere in an expression (at statement level
//! `lhs = e, mark`; nested `(lhs = e, mark, lhs)`), with plain indices
//! (no assignment or user call in them); a whole array of constant size
//! and a matrix (per column) too. Compound assignments and `++`/`--`
//! change no mirror: they leave a written value written and an undefined
//! one undefined. Built-ins with `out` parameters (`modf`, `frexp`,
//! `uaddCarry`, ...) mark their argument before the call (nothing reads a
//! mirror in between: their arguments have no user call). A user function
//! call at statement level copies the argument's mirror to the
//! parameter's (`inout`; cleared for `out`) before it and back after it;
//! inside the function the parameter's writes set its mirror.
//!
//! Anything else that writes a tracked name (a user call with an `out`
//! argument inside a larger expression or a declaration, an index with
//! side effects, a part of a matrix or array that is not a column or an
//! element) makes its root *unknown*: the probe then says it cannot tell.

use std::collections::{BTreeSet, HashSet};

use glsl_lang::ast;

use super::super::{assign, boolean, comma, wrap_expr};
use super::{Op, Shape, Tracked, Written, bvec, chain, pure};

/// The built-ins with `out` parameters, and their positions.
fn builtin_outs(name: &str) -> &'static [usize] {
    match name {
        "modf" | "frexp" => &[1],
        "uaddCarry" | "usubBorrow" => &[2],
        "umulExtended" | "imulExtended" => &[2, 3],
        _ => &[],
    }
}

/// One function's view of the tracked names while its body is rewritten.
pub(super) struct Tracker<'a> {
    pub(super) w: &'a Written,
    /// The function's index among the declarations.
    pub(super) scope: usize,
    pub(super) user: &'a HashSet<String>,
    /// (scope of the tracked name, name) whose writes were not followed.
    pub(super) unknown: &'a mut BTreeSet<(Option<usize>, String)>,
    /// The names the function declares itself (parameters, locals): a
    /// global of the same name written there may be either.
    pub(super) shadow: HashSet<String>,
}

impl<'a> Tracker<'a> {
    /// The tracked `root` as the function sees it; a global the function
    /// also declares a local of is unknown (which one a write hits is not
    /// followed).
    fn find(&mut self, root: &str) -> Option<&'a Tracked> {
        let w: &'a Written = self.w;
        let t = w.find_in(root, Some(self.scope))?;
        if t.scope.is_none() && self.shadow.contains(root) {
            self.unknown.insert((None, root.to_string()));
            return None;
        }
        Some(t)
    }

    fn unknown_root(&mut self, e: &ast::Expr) {
        if let Some((root, _)) = chain(e)
            && let Some(t) = self.find(root)
        {
            self.unknown.insert((t.scope, root.to_string()));
        }
    }

    /// The mark `lhs = ...` needs, or `None` (the root made unknown when
    /// it is tracked).
    fn mark_or_unknown(&mut self, lhs: &ast::Expr) -> Option<ast::Expr> {
        let (root, _) = chain(lhs)?;
        self.find(root)?;
        let m = self.w.mark(lhs, Some(self.scope), self.user);
        if m.is_none() {
            self.unknown_root(lhs);
        }
        m
    }

    pub(super) fn stmt(&mut self, s: &mut ast::Statement) {
        use ast::IterationStatementData as It;
        use ast::StatementData as S;
        match &mut s.content {
            S::Expression(es) => {
                if let Some(e) = &mut es.0 {
                    self.top(e);
                }
            }
            S::Declaration(d) => {
                if let ast::DeclarationData::InitDeclaratorList(list) = &mut d.content {
                    if let Some(i) = &mut list.head.initializer {
                        self.initializer(i);
                    }
                    for t in &mut list.tail {
                        if let Some(i) = &mut t.initializer {
                            self.initializer(i);
                        }
                    }
                }
            }
            S::Compound(c) => c.statement_list.iter_mut().for_each(|x| self.stmt(x)),
            S::Switch(sw) => {
                self.nested(&mut sw.head);
                sw.body.iter_mut().for_each(|x| self.stmt(x));
            }
            S::Selection(sel) => {
                self.nested(&mut sel.cond);
                match &mut sel.rest.content {
                    ast::SelectionRestStatementData::Statement(t) => self.stmt(t),
                    ast::SelectionRestStatementData::Else(t, e) => {
                        self.stmt(t);
                        self.stmt(e);
                    }
                }
            }
            S::Iteration(it) => match &mut it.content {
                It::While(c, b) => {
                    self.condition(c);
                    self.stmt(b);
                }
                It::DoWhile(b, c) => {
                    self.stmt(b);
                    self.nested(c);
                }
                It::For(init, rest, b) => {
                    match &mut init.content {
                        ast::ForInitStatementData::Expression(Some(e)) => self.top(e),
                        ast::ForInitStatementData::Declaration(d) => {
                            let mut st: ast::Statement =
                                ast::StatementData::Declaration((**d).clone()).into();
                            self.stmt(&mut st);
                            if let ast::StatementData::Declaration(nd) = st.content {
                                **d = nd;
                            }
                        }
                        _ => {}
                    }
                    if let Some(c) = &mut rest.condition {
                        self.condition(c);
                    }
                    if let Some(e) = &mut rest.post_expr {
                        self.top(e);
                    }
                    self.stmt(b);
                }
            },
            S::Jump(j) => {
                if let ast::JumpStatementData::Return(Some(e)) = &mut j.content {
                    self.nested(e);
                }
            }
            S::CaseLabel(_) => {}
        }
    }

    fn condition(&mut self, c: &mut ast::Condition) {
        match &mut c.content {
            ast::ConditionData::Expr(e) => self.nested(e),
            ast::ConditionData::Assignment(_, _, i) => self.initializer(i),
        }
    }

    fn initializer(&mut self, i: &mut ast::Initializer) {
        match &mut i.content {
            ast::InitializerData::Simple(e) => self.nested(e),
            ast::InitializerData::List(l) => l.iter_mut().for_each(|x| self.initializer(x)),
        }
    }

    /// A statement-level expression (or a part of a top-level comma).
    pub(super) fn top(&mut self, e: &mut ast::Expr) {
        let emits = crate::steps::call_name(e)
            .is_some_and(|(n, _)| matches!(n, "EmitVertex" | "EmitStreamVertex"));
        if let Some(reset) = &self.w.reset
            && emits
        {
            wrap_expr(e, |e| comma(e, super::super::call(reset, vec![])));
            return;
        }
        match &mut e.content {
            ast::ExprData::Comma(a, b) => {
                self.top(a);
                self.top(b);
            }
            ast::ExprData::Assignment(lhs, op, rhs)
                if matches!(op.content, ast::AssignmentOpData::Equal) =>
            {
                let (pre, post) = self.call_or_nested(rhs);
                let mark = self.mark_or_unknown(lhs);
                let mut after = mark.into_iter().chain(post).collect::<Vec<_>>();
                after.reverse();
                wrap_expr(e, |mut e| {
                    for p in pre.into_iter().rev() {
                        e = comma(p, e);
                    }
                    while let Some(a) = after.pop() {
                        e = comma(e, a);
                    }
                    e
                });
            }
            _ => {
                let (pre, post) = self.call_or_nested(e);
                wrap_expr(e, |mut e| {
                    for p in pre.into_iter().rev() {
                        e = comma(p, e);
                    }
                    for p in post {
                        e = comma(e, p);
                    }
                    e
                });
            }
        }
    }

    /// Rewrite `e`; where it is a user call, the copies of its `out` and
    /// `inout` arguments' mirrors (before, after).
    fn call_or_nested(&mut self, e: &mut ast::Expr) -> (Vec<ast::Expr>, Vec<ast::Expr>) {
        let name = match &e.content {
            ast::ExprData::FunCall(id, _) => id.as_ident().map(|i| i.as_str().to_string()),
            _ => None,
        };
        let Some(name) = name.filter(|n| self.user.contains(n)) else {
            self.nested(e);
            return (Vec::new(), Vec::new());
        };
        let ast::ExprData::FunCall(_, args) = &mut e.content else {
            unreachable!()
        };
        for a in args.iter_mut() {
            self.nested(a);
        }
        let (mut pre, mut post) = (Vec::new(), Vec::new());
        let defs = self.w.defs_named(&name);
        for (k, a) in args.iter().enumerate() {
            let Some((root, _)) = chain(a) else { continue };
            if self.find(root).is_none() {
                continue;
            }
            let params: Vec<_> = defs.iter().map(|&d| self.w.param(d, k)).collect();
            if params.iter().all(|p| p.is_none_or(|p| !p.writes)) {
                continue; // `in` everywhere
            }
            // One definition, its parameter tracked, the argument followed.
            let copy = match params.as_slice() {
                [Some(p)] => p.mirror.as_ref().and_then(|(pm, pshape)| {
                    let (m, shape) = self.w.lvalue_mirror(a, Some(self.scope), self.user)?;
                    (shape == *pshape).then_some((m, pm.clone(), p.copy_in, shape))
                }),
                _ => None,
            };
            match copy {
                Some((m, pm, copy_in, shape)) => {
                    let init = match (copy_in, &shape) {
                        (true, _) => m.clone(),
                        (false, Shape::Vector(n)) => bvec(*n, false),
                        (false, _) => boolean(false),
                    };
                    pre.push(assign(super::super::var(&pm), init));
                    post.push(assign(m, super::super::var(&pm)));
                }
                None => self.unknown_root(a),
            }
        }
        (pre, post)
    }

    /// Rewrite the writes inside `e` (not at statement level).
    fn nested(&mut self, e: &mut ast::Expr) {
        use ast::ExprData as E;
        match &mut e.content {
            E::Assignment(lhs, op, rhs) => {
                self.nested(rhs);
                self.lvalue_indices(lhs);
                if matches!(op.content, ast::AssignmentOpData::Equal)
                    && let Some(mark) = self.mark_or_unknown(lhs)
                {
                    let lhs = (**lhs).clone();
                    wrap_expr(e, |e| comma(comma(e, mark), lhs));
                }
            }
            E::FunCall(id, args) => {
                for a in args.iter_mut() {
                    self.nested(a);
                }
                let name = id.as_ident().map(|i| i.as_str().to_string());
                let Some(name) = name else { return };
                if self.user.contains(&name) {
                    // A user call inside an expression: its `out`
                    // arguments cannot be copied back here.
                    let defs = self.w.defs_named(&name);
                    for (k, a) in args.iter().enumerate() {
                        let writes = defs
                            .iter()
                            .any(|&d| self.w.param(d, k).is_some_and(|p| p.writes));
                        if writes || defs.is_empty() {
                            self.unknown_root(a);
                        }
                    }
                    return;
                }
                let outs = builtin_outs(&name);
                if outs.is_empty() {
                    return;
                }
                let all_pure = args.iter().all(|a| pure(a, self.user));
                let mut marks = Vec::new();
                for &k in outs {
                    let Some(a) = args.get(k) else { continue };
                    let Some((root, _)) = chain(a) else { continue };
                    if self.find(root).is_none() {
                        continue;
                    }
                    match all_pure {
                        true => {
                            let a = a.clone();
                            if let Some(m) = self.mark_or_unknown(&a) {
                                marks.push(m);
                            }
                        }
                        false => self.unknown_root(&a.clone()),
                    }
                }
                wrap_expr(e, |mut e| {
                    for m in marks.into_iter().rev() {
                        e = comma(m, e);
                    }
                    e
                });
            }
            E::Unary(_, a) | E::Dot(a, _) | E::PostInc(a) | E::PostDec(a) => self.nested(a),
            E::Binary(_, a, b) | E::Bracket(a, b) | E::Comma(a, b) => {
                self.nested(a);
                self.nested(b);
            }
            E::Ternary(a, b, c) => {
                self.nested(a);
                self.nested(b);
                self.nested(c);
            }
            _ => {}
        }
    }

    /// The indices of an lvalue chain (a write in one makes the chain
    /// impure: `mark` then declines it).
    fn lvalue_indices(&mut self, lhs: &mut ast::Expr) {
        match &mut lhs.content {
            ast::ExprData::Bracket(a, i) => {
                self.lvalue_indices(a);
                self.nested(i);
            }
            ast::ExprData::Dot(a, _) => self.lvalue_indices(a),
            _ => {}
        }
    }
}

/// Whether `ops` only index with plain expressions.
pub(super) fn plain_ops(ops: &[Op<'_>], user: &HashSet<String>) -> bool {
    ops.iter().all(|op| match op {
        Op::Index(i) => pure(i, user),
        Op::Field(_) => true,
    })
}
