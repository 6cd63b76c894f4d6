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
//! A call inside a larger expression or a declaration (of a function that
//! returns a value) cannot be followed by a statement: it sets the
//! function's *site* global to the call site's number (0 at every other
//! call) and each `return e` of the function becomes
//! `return (site == K ? (argument mirror = parameter mirror, true) :
//! false, ..., e)`; its arguments' indices must be constants there.
//!
//! Anything else that writes a tracked name (such a call where an index is
//! not a constant or a return expression writes the parameter, an index
//! with side effects, a part of a scalar) makes its root *unknown*: the
//! probe then says it cannot tell.

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
    /// The call sites inside expressions whose copies back the callee's
    /// returns make.
    pub(super) sites: &'a mut Vec<Site>,
}

/// A call inside an expression of a function with tracked parameters.
pub(super) struct Site {
    def: usize,
    number: i32,
    /// (argument mirror, parameter mirror).
    copies: Vec<(ast::Expr, String)>,
    /// The arguments' roots (unknown where the copy cannot be made).
    roots: Vec<(Option<usize>, String)>,
}

/// Whether every index of the chain `e` is a constant.
fn constant_indices(e: &ast::Expr) -> bool {
    chain(e).is_some_and(|(_, ops)| {
        ops.iter().all(|op| match op {
            Op::Index(i) => matches!(
                i.content,
                ast::ExprData::IntConst(_) | ast::ExprData::UIntConst(_)
            ),
            Op::Field(_) => true,
        })
    })
}

/// Make each call site's copies back at the returns of its callee, or its
/// arguments unknown where a return expression may write a parameter.
pub(super) fn copy_back_at_returns(
    w: &Written,
    decls: &mut [ast::ExternalDeclaration],
    sites: &[Site],
    unknown: &mut BTreeSet<(Option<usize>, String)>,
) {
    for (k, d) in decls.iter_mut().enumerate() {
        let mine: Vec<&Site> = sites.iter().filter(|s| s.def == k).collect();
        let (Some(var), false) = (w.site_vars.get(&k), mine.is_empty()) else {
            continue;
        };
        let ast::ExternalDeclarationData::FunctionDefinition(def) = &mut d.content else {
            continue;
        };
        let mut copies: Option<ast::Expr> = None;
        for s in &mine {
            let mut each: Option<ast::Expr> = None;
            for (m, p) in &s.copies {
                let c = assign(m.clone(), super::super::var(p));
                each = Some(match each {
                    Some(e) => comma(e, c),
                    None => c,
                });
            }
            let Some(each) = each else { continue };
            let test = super::super::eq(super::super::var(var), super::super::int(s.number));
            let c: ast::Expr = ast::ExprData::Ternary(
                Box::new(test),
                Box::new(comma(each, boolean(true))),
                Box::new(boolean(false)),
            )
            .into();
            copies = Some(match copies {
                Some(e) => comma(e, c),
                None => c,
            });
        }
        let Some(copies) = copies else { continue };
        let mut clean = true;
        for s in &mut def.statement.statement_list {
            returns(s, &mut |e| {
                // Copied before `e` runs: `e` must not write anything.
                clean &= !may_write(w, e);
                wrap_expr(e, |e| comma(copies.clone(), e));
            });
        }
        if !clean {
            for s in &mine {
                unknown.extend(s.roots.iter().cloned());
            }
        }
    }
}

/// Whether `e` may write a variable: an assignment, `++`/`--`, a call
/// with an `out`/`inout` parameter.
fn may_write(w: &Written, e: &ast::Expr) -> bool {
    let mut found = false;
    crate::steps::walk_expr(&mut e.clone(), &mut |x| match &x.content {
        ast::ExprData::Assignment(..) | ast::ExprData::PostInc(_) | ast::ExprData::PostDec(_) => {
            found = true
        }
        ast::ExprData::Unary(op, _)
            if matches!(op.content, ast::UnaryOpData::Inc | ast::UnaryOpData::Dec) =>
        {
            found = true
        }
        ast::ExprData::FunCall(..) => {
            let Some((name, _)) = crate::steps::call_name(x) else {
                return; // a constructor
            };
            let defs = w.defs_named(name);
            let user_writes = defs.iter().any(|&d| {
                w.params
                    .get(&d)
                    .is_some_and(|ps| ps.iter().any(|p| p.writes))
            });
            found |= user_writes || !builtin_outs(name).is_empty();
        }
        _ => {}
    });
    found
}

/// Apply `f` to the expression of every `return e;` in `s`.
fn returns(s: &mut ast::Statement, f: &mut dyn FnMut(&mut ast::Expr)) {
    use ast::IterationStatementData as It;
    use ast::StatementData as S;
    match &mut s.content {
        S::Jump(j) => {
            if let ast::JumpStatementData::Return(Some(e)) = &mut j.content {
                f(e);
            }
        }
        S::Compound(c) => c.statement_list.iter_mut().for_each(|x| returns(x, f)),
        S::Switch(sw) => sw.body.iter_mut().for_each(|x| returns(x, f)),
        S::Selection(sel) => match &mut sel.rest.content {
            ast::SelectionRestStatementData::Statement(t) => returns(t, f),
            ast::SelectionRestStatementData::Else(t, e) => {
                returns(t, f);
                returns(e, f);
            }
        },
        S::Iteration(it) => match &mut it.content {
            It::While(_, b) | It::DoWhile(b, _) | It::For(_, _, b) => returns(b, f),
        },
        _ => {}
    }
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
        if let [d] = defs.as_slice()
            && let Some(v) = self.w.site_vars.get(d)
        {
            pre.push(assign(super::super::var(v), super::super::int(0)));
        }
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

    /// A user call inside an expression: what to run before it (its site
    /// number and the parameters' mirrors); its tracked `out`/`inout`
    /// arguments unknown where the callee's returns cannot copy them back.
    fn site(&mut self, name: &str, args: &[ast::Expr]) -> Vec<ast::Expr> {
        let defs = self.w.defs_named(name);
        let var = match defs.as_slice() {
            [d] => self.w.site_vars.get(d).cloned(),
            _ => None,
        };
        let number = self.sites.len() as i32 + 1;
        let (mut pre, mut copies, mut roots, mut failed) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (k, a) in args.iter().enumerate() {
            let writes = defs
                .iter()
                .any(|&d| self.w.param(d, k).is_none_or(|p| p.writes));
            let Some((root, _)) = chain(a) else { continue };
            let Some(t) = self.find(root) else { continue };
            if !writes && !defs.is_empty() {
                continue;
            }
            let key = (t.scope, root.to_string());
            let param = match (defs.as_slice(), &var) {
                ([d], Some(_)) => self
                    .w
                    .param(*d, k)
                    .and_then(|p| Some((p.mirror.clone()?, p.copy_in))),
                _ => None,
            };
            let followed = param.and_then(|((pm, pshape), copy_in)| {
                let (m, shape) = self.w.lvalue_mirror(a, Some(self.scope), self.user)?;
                (shape == pshape && constant_indices(a)).then_some((m, pm, copy_in, shape))
            });
            match followed {
                Some((m, pm, copy_in, shape)) => {
                    let init = match (copy_in, &shape) {
                        (true, _) => m.clone(),
                        (false, Shape::Vector(n)) => bvec(*n, false),
                        (false, _) => boolean(false),
                    };
                    pre.push(assign(super::super::var(&pm), init));
                    copies.push((m, pm));
                    roots.push(key);
                }
                None => failed.push(key),
            }
        }
        self.unknown.extend(failed);
        let Some(var) = var else { return pre };
        let site = match copies.is_empty() {
            true => 0,
            false => number,
        };
        pre.insert(0, assign(super::super::var(&var), super::super::int(site)));
        if site != 0 {
            self.sites.push(Site {
                def: defs[0],
                number,
                copies,
                roots,
            });
        }
        pre
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
                    let pre = self.site(&name, args);
                    wrap_expr(e, |mut e| {
                        for p in pre.into_iter().rev() {
                            e = comma(p, e);
                        }
                        e
                    });
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
