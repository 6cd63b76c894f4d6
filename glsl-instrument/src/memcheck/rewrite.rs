//! The memcheck edits in the app's functions: every array access of a
//! storage, `shared` or local array gets its index passed through a check
//! (evaluated once, returned unchanged), image coordinates and atomic
//! counters are checked, locals declared without a value get a `bool`
//! set where they are assigned and checked where they are read, and
//! `barrier()` / memory barriers advance the epochs.

use std::collections::{BTreeSet, HashMap, HashSet};

use glsl_lang::ast;

use super::scope::{Globals, Home, Ty, Var};
use super::{MemSite, Space, TrackedArray};
use crate::parse::{expr_text, line_col};

/// A deferred slot: its site, and whether its element is told as (row,
/// column) (`gldbg_mc_ixr`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Slot {
    pub site: u32,
    pub row: bool,
}

/// The sites the plain copy takes: the checked copy's, in order.
pub(super) struct Replay {
    pub(super) next: usize,
    pub(super) end: usize,
    /// A site the plain copy asked for differs from the checked copy's.
    pub(super) bad: bool,
}

impl Replay {
    /// The next site of the checked copy, which must be `site`.
    pub(super) fn take(&mut self, sites: &[MemSite], site: &MemSite) -> u32 {
        let i = self.next;
        self.next += 1;
        if i >= self.end || sites.get(i) != Some(site) {
            self.bad = true;
        }
        i as u32
    }
}

/// How an access uses its memory (the check functions' `kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ctx {
    Read = 0,
    Write = 1,
    ReadWrite = 2,
    Atomic = 3,
}

/// One step of an access path below its root variable.
pub(super) enum Op {
    Dot(ast::Identifier),
    Index(Box<ast::Expr>),
}

/// Where an access is in the app's source and its text there.
pub(super) type Place = (Option<ast::NodeSpan>, String);

/// What [`Rewrite::path`] found of one access path, for
/// [`Rewrite::checks`] (track.rs).
pub(super) struct Access {
    /// The path's array levels: (op index, the array's type there).
    pub levels: Vec<(usize, Ty)>,
    /// The ops `[a, b)` indexing the tracked element (a storage or
    /// `shared` array's outer levels).
    pub element_run: Option<(usize, usize)>,
    /// The components of a vector element the access selects.
    pub component: Option<(u32, u32)>,
    pub home: Home,
    /// The array as written (`buf.data`, `s.items`).
    pub key: String,
    pub ctx: Ctx,
    pub arrayed_block: bool,
    /// The array is a struct member (`s.a[i]`).
    pub in_struct: bool,
    /// The path as the app wrote it (its place and text for sites).
    pub whole: ast::Expr,
}

/// What [`Rewrite::walk`] learns of a path.
struct Walked {
    ty: Ty,
    home: Home,
    key: String,
    levels: Vec<(usize, Ty)>,
    element_run: Option<(usize, usize)>,
    component: Option<(u32, u32)>,
    arrayed_block: bool,
    in_struct: bool,
}

/// The rewrite's state over the whole shader.
pub(super) struct Rewrite<'a> {
    pub g: &'a Globals,
    pub src: &'a str,
    pub(super) scopes: Vec<HashMap<String, Var>>,
    pub sites: Vec<MemSite>,
    pub storage: Vec<TrackedArray>,
    pub(super) storage_keys: HashMap<String, usize>,
    /// `shared` arrays accessed, by name: their shadow index.
    pub shared: Vec<(String, Ty)>,
    /// Survey pass: the storage arrays written anywhere are collected,
    /// nothing else counts.
    pub survey: bool,
    pub written: HashSet<String>,
    /// Survey pass: the `shared` arrays assigned whole (`t = T[4](...)`):
    /// their elements' writes are not seen, so they get bounds checks only.
    pub whole: HashSet<String>,
    /// The `shared` arrays the current statement's barrier interval only
    /// reads (quiet.rs): their reads check for uninitialised elements alone.
    pub(super) quiet: HashSet<String>,
    /// Shadow `shared` arrays.
    pub shared_on: bool,
    pub not_checked: BTreeSet<String>,
    pub temps: usize,
    pub counters: bool,
    pub(super) flags: usize,
    /// The work group size where literal (range.rs).
    pub local_size: Option<[u32; 3]>,
    /// The names the current function writes anywhere, declares more
    /// than once or takes as parameters: its locals of these names get
    /// no range (range.rs), whatever scope each use is in.
    pub(super) fn_unranged: HashSet<String>,
    /// Versioning (version.rs): the shadowed arrays read quietly so far
    /// in the statement being versioned, the arrays whose quiet reads
    /// get bounds checks alone (its plain copy), whether a statement is
    /// being versioned, the sites its plain copy takes again.
    pub(super) quiet_used: BTreeSet<usize>,
    pub(super) plain: HashSet<String>,
    pub(super) versioning: bool,
    pub(super) replay: Option<Replay>,
    /// Loops the statement being rewritten is in (its function's), and
    /// the deferred bounds checks' slots (defer.rs).
    pub(super) loops: usize,
    pub(super) deferred: Vec<Slot>,
}

use crate::instrument::build::binary;
pub(super) use crate::instrument::build::{
    assign, call, comma, compound, expr_stmt, uint as u, var as v,
};

/// `e.length()` as an `int`.
pub(super) fn length_of(e: ast::Expr) -> ast::Expr {
    let callee: ast::Expr =
        ast::ExprData::Dot(Box::new(e), ast::IdentifierData::from("length").into()).into();
    ast::ExprData::FunCall(
        ast::FunIdentifierData::Expr(Box::new(callee)).into(),
        vec![],
    )
    .into()
}
pub(super) fn mul(a: ast::Expr, b: ast::Expr) -> ast::Expr {
    binary(ast::BinaryOpData::Mult, a, b)
}
pub(super) fn add(a: ast::Expr, b: ast::Expr) -> ast::Expr {
    binary(ast::BinaryOpData::Add, a, b)
}
pub(super) fn take(e: &mut ast::Expr) -> ast::Expr {
    std::mem::replace(e, ast::ExprData::BoolConst(false).into())
}
pub(super) fn is_const(e: &ast::Expr) -> bool {
    matches!(
        e.content,
        ast::ExprData::IntConst(_) | ast::ExprData::UIntConst(_)
    )
}
/// A `bool` local `name = false`.
fn flag_decl(name: &str) -> ast::Statement {
    let text = format!("bool {name} = false;");
    super::parse_statements(&text)
        .into_iter()
        .next()
        .expect("a flag declaration parses")
}

/// The path's root and its steps (`buf.data[i].x`: `buf`, [.data, [i], .x]).
pub(super) fn flatten(e: ast::Expr, ops: &mut Vec<Op>) -> ast::Expr {
    match e.content {
        ast::ExprData::Dot(base, field) => {
            let root = flatten(*base, ops);
            ops.push(Op::Dot(field));
            root
        }
        ast::ExprData::Bracket(base, idx) => {
            let root = flatten(*base, ops);
            ops.push(Op::Index(idx));
            root
        }
        _ => e,
    }
}

pub(super) fn rebuild(root: ast::Expr, ops: Vec<Op>) -> ast::Expr {
    ops.into_iter().fold(root, |acc, op| match op {
        Op::Dot(f) => ast::ExprData::Dot(Box::new(acc), f).into(),
        Op::Index(i) => ast::ExprData::Bracket(Box::new(acc), i).into(),
    })
}

/// The path up to `n` ops with every index made 0 (for a `.length()`:
/// inner array sizes do not depend on the outer indices).
pub(super) fn zeroed(root: &ast::Expr, ops: &[Op], n: usize) -> ast::Expr {
    ops[..n].iter().fold(root.clone(), |acc, op| match op {
        Op::Dot(f) => ast::ExprData::Dot(Box::new(acc), f.clone()).into(),
        Op::Index(_) => {
            ast::ExprData::Bracket(Box::new(acc), Box::new(ast::ExprData::IntConst(0).into()))
                .into()
        }
    })
}

/// The components a swizzle selects when they are one ascending run
/// (`y`: (1, 1), `xyz`: (0, 3)); `None` for others (`zx`, `xx`), which
/// then count as the whole element.
fn swizzle_run(field: &str) -> Option<(u32, u32)> {
    let set = ["xyzw", "rgba", "stpq"]
        .into_iter()
        .find(|set| field.chars().all(|c| set.contains(c)))?;
    let idx: Vec<u32> = field.chars().map(|c| set.find(c).unwrap() as u32).collect();
    let first = *idx.first()?;
    idx.iter()
        .enumerate()
        .all(|(k, &c)| c == first + k as u32)
        .then_some((first, idx.len() as u32))
}

const MEMORY_BARRIERS: [&str; 4] = [
    "memoryBarrier",
    "memoryBarrierBuffer",
    "groupMemoryBarrier",
    "memoryBarrierShared",
];

impl<'a> Rewrite<'a> {
    pub fn new(g: &'a Globals, src: &'a str, survey: bool, shared_on: bool) -> Rewrite<'a> {
        Rewrite {
            g,
            src,
            scopes: Vec::new(),
            sites: Vec::new(),
            storage: Vec::new(),
            storage_keys: HashMap::new(),
            shared: Vec::new(),
            survey,
            written: HashSet::new(),
            whole: HashSet::new(),
            quiet: HashSet::new(),
            shared_on,
            not_checked: BTreeSet::new(),
            temps: 0,
            counters: false,
            flags: 0,
            local_size: None,
            fn_unranged: HashSet::new(),
            quiet_used: BTreeSet::new(),
            plain: HashSet::new(),
            versioning: false,
            replay: None,
            loops: 0,
            deferred: Vec::new(),
        }
    }

    pub(super) fn lookup(&self, name: &str) -> Option<Var> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name))
            .or_else(|| self.g.vars.get(name))
            .cloned()
    }

    fn declare(&mut self, name: String, var: Var) {
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name, var);
        }
    }

    fn fresh_flag(&mut self, name: &str) -> String {
        self.flags += 1;
        format!("gldbg_mc_f{}_{name}", self.flags)
    }

    #[allow(clippy::too_many_arguments)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn site(
        &mut self,
        at: &ast::Expr,
        variable: String,
        space: Space,
        block: Option<String>,
        binding: Option<u32>,
        element_words: u32,
    ) -> u32 {
        let place = (at.span, expr_text(at));
        self.site_at(&place, variable, space, block, binding, element_words)
    }

    /// A site at `place`: the span and text of the access as the app wrote it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn site_at(
        &mut self,
        place: &Place,
        variable: String,
        space: Space,
        block: Option<String>,
        binding: Option<u32>,
        element_words: u32,
    ) -> u32 {
        let offset = place.0.map_or(0, |s| usize::from(s.start().offset));
        let (line, column) = line_col(self.src, offset);
        let site = MemSite {
            line,
            column,
            expr: place.1.clone(),
            variable,
            space,
            block,
            binding,
            element_words,
            signed: true,
        };
        if let Some(r) = &mut self.replay {
            return r.take(&self.sites, &site);
        }
        self.sites.push(site);
        (self.sites.len() - 1) as u32
    }

    // ---- functions and statements ----

    /// One function: its parameters in scope (`out` ones with a flag set
    /// false first), its body rewritten, `prologue` first in it.
    pub fn function(&mut self, def: &mut ast::FunctionDefinition, prologue: Vec<ast::Statement>) {
        self.scopes.push(HashMap::new());
        self.fn_unranged = super::scope::unranged(def, self.g);
        let mut first = prologue;
        for p in &def.prototype.parameters {
            let ast::FunctionParameterDeclarationData::Named(q, d) = &p.content else {
                continue;
            };
            let out = q.as_ref().is_some_and(|q| {
                q.qualifiers.iter().any(|s| {
                    matches!(&s.content, ast::TypeQualifierSpecData::Storage(st)
                        if st.content == ast::StorageQualifierData::Out)
                })
            });
            let name = d.ident.ident.0.to_string();
            let ty = Ty::parse(&crate::steps::type_string(
                &d.ty,
                d.ident.array_spec.as_ref(),
            ));
            let flag = out.then(|| self.fresh_flag(&name));
            if let Some(f) = &flag {
                first.push(flag_decl(f));
            }
            self.declare(name, Var::new(Home::Local { flag }, ty));
        }
        let body = &mut def.statement.statement_list;
        self.list(body);
        if !first.is_empty() {
            let rest = std::mem::take(body);
            *body = first.into_iter().chain(rest).collect();
        }
        self.scopes.pop();
    }

    fn list(&mut self, list: &mut Vec<ast::Statement>) {
        // The barrier intervals of this list (quiet.rs), on top of the one
        // the list itself is in.
        let inherited = self.quiet.clone();
        let sets = super::quiet::quiet_sets(list, self.g);
        let old = std::mem::take(list);
        for (mut s, set) in old.into_iter().zip(sets) {
            self.quiet = inherited.union(&set).cloned().collect();
            let extra = self.versioned(&mut s);
            list.push(s);
            list.extend(extra);
        }
        self.quiet = inherited;
    }

    /// Rewrite `s`; returns statements to put right after it (the flags
    /// of the locals it declares).
    pub(super) fn stmt(&mut self, s: &mut ast::Statement) -> Vec<ast::Statement> {
        use ast::StatementData as S;
        match &mut s.content {
            S::Compound(c) => {
                self.scopes.push(HashMap::new());
                self.list(&mut c.statement_list);
                self.scopes.pop();
            }
            S::Declaration(d) => return self.declaration(d),
            S::Expression(es) => {
                let Some(e) = &mut es.content.0 else {
                    return Vec::new();
                };
                if let Some((name, _)) = crate::steps::call_name(e) {
                    if name == "barrier" {
                        let b = take(e);
                        *s = compound(vec![
                            expr_stmt(b),
                            expr_stmt(call("gldbg_mc_barrier", vec![])),
                        ]);
                        return Vec::new();
                    }
                    if MEMORY_BARRIERS.contains(&name) {
                        let b = take(e);
                        *s = compound(vec![
                            expr_stmt(b),
                            expr_stmt(assign(
                                v("gldbg_mc_mb"),
                                ast::ExprData::BoolConst(true).into(),
                            )),
                        ]);
                        return Vec::new();
                    }
                }
                // `x = e;` of a local with a flag: the flag set after.
                if let ast::ExprData::Assignment(lhs, op, rhs) = &mut e.content
                    && op.content == ast::AssignmentOpData::Equal
                    && let Some(flag) = self.root_flag(lhs)
                {
                    self.expr(rhs, Ctx::Read);
                    self.expr(lhs, Ctx::Write);
                    let done = expr_stmt(assign(v(&flag), ast::ExprData::BoolConst(true).into()));
                    let inner = std::mem::replace(s, compound(vec![]));
                    *s = compound(vec![inner, done]);
                    return Vec::new();
                }
                self.expr(e, Ctx::Read);
            }
            S::Selection(sel) => {
                self.expr(&mut sel.cond, Ctx::Read);
                match &mut sel.rest.content {
                    ast::SelectionRestStatementData::Statement(a) => self.branch(a),
                    ast::SelectionRestStatementData::Else(a, b) => {
                        self.branch(a);
                        self.branch(b);
                    }
                }
            }
            S::Switch(sw) => {
                self.expr(&mut sw.head, Ctx::Read);
                self.scopes.push(HashMap::new());
                self.list(&mut sw.body);
                self.scopes.pop();
            }
            S::CaseLabel(_) => {}
            S::Iteration(it) => {
                self.scopes.push(HashMap::new());
                self.loops += 1;
                match &mut it.content {
                    ast::IterationStatementData::While(c, body) => {
                        self.condition(c);
                        self.branch(body);
                    }
                    ast::IterationStatementData::DoWhile(body, c) => {
                        self.branch(body);
                        self.expr(c, Ctx::Read);
                    }
                    ast::IterationStatementData::For(init, rest, body) => {
                        let counter = self.counter(init, rest, body);
                        match &mut init.content {
                            ast::ForInitStatementData::Expression(Some(e)) => {
                                self.expr(e, Ctx::Read)
                            }
                            ast::ForInitStatementData::Expression(None) => {}
                            ast::ForInitStatementData::Declaration(d) => {
                                // A `for` variable without a value: taken as assigned.
                                self.declaration_no_flags(d);
                            }
                        }
                        if let Some(c) = &mut rest.condition {
                            self.condition(c);
                        }
                        if let Some(e) = &mut rest.post_expr {
                            self.expr(e, Ctx::Read);
                        }
                        // The counter's range holds in the body only.
                        if let Some((name, r)) = counter
                            && let Some(var) = self.scopes.last_mut().and_then(|s| s.get_mut(&name))
                        {
                            var.range = Some(r);
                        }
                        self.branch(body);
                    }
                }
                self.loops -= 1;
                self.scopes.pop();
            }
            S::Jump(j) => {
                if let ast::JumpStatementData::Return(Some(e)) = &mut j.content {
                    self.expr(e, Ctx::Read);
                }
            }
        }
        Vec::new()
    }

    /// A branch or loop body: where it declares, it becomes a block.
    fn branch(&mut self, s: &mut ast::Statement) {
        let extra = self.stmt(s);
        if !extra.is_empty() {
            let inner = std::mem::replace(s, compound(vec![]));
            *s = compound(std::iter::once(inner).chain(extra).collect());
        }
    }

    fn condition(&mut self, c: &mut ast::Condition) {
        match &mut c.content {
            ast::ConditionData::Expr(e) => self.expr(e, Ctx::Read),
            ast::ConditionData::Assignment(ty, name, init) => {
                self.initializer(init);
                let ty = Ty::parse(&crate::steps::type_string(&ty.ty, None));
                self.declare(name.0.to_string(), Var::new(Home::Local { flag: None }, ty));
            }
        }
    }

    fn initializer(&mut self, init: &mut ast::Initializer) {
        match &mut init.content {
            ast::InitializerData::Simple(e) => self.expr(e, Ctx::Read),
            ast::InitializerData::List(list) => {
                for i in list {
                    self.initializer(i);
                }
            }
        }
    }

    fn declaration_no_flags(&mut self, d: &mut ast::Declaration) {
        let _ = self.declare_locals(d, false);
    }

    fn declaration(&mut self, d: &mut ast::Declaration) -> Vec<ast::Statement> {
        self.declare_locals(d, true)
    }

    /// The locals of a declaration, each after its initializer is
    /// rewritten; with `flags`, one `bool` per local declared without a
    /// value.
    fn declare_locals(&mut self, d: &mut ast::Declaration, flags: bool) -> Vec<ast::Statement> {
        let ast::DeclarationData::InitDeclaratorList(list) = &mut d.content else {
            return Vec::new();
        };
        if crate::steps::qualifies_only(&list.head) {
            return Vec::new();
        }
        let constant = list.head.ty.qualifier.as_ref().is_some_and(|q| {
            q.qualifiers.iter().any(|s| {
                matches!(&s.content, ast::TypeQualifierSpecData::Storage(st)
                    if st.content == ast::StorageQualifierData::Const)
            })
        });
        let ty_spec = list.head.ty.ty.clone();
        // Each local is in scope from the end of its own declarator on
        // (`uint a = 1u, b = a;`).
        let mut extra = Vec::new();
        let head_ty = crate::steps::type_string(&ty_spec, list.head.array_specifier.as_ref());
        let head = list.head.name.as_ref().map(|n| n.0.to_string());
        let ast::InitDeclaratorListData { head: h, tail } = &mut **list;
        let head = head.map(|name| (name, head_ty, &mut h.initializer));
        let tail = tail.iter_mut().map(|t| {
            let ty = crate::steps::type_string(&ty_spec, t.ident.array_spec.as_ref());
            (t.ident.ident.0.to_string(), ty, &mut t.initializer)
        });
        for (name, ty, init) in head.into_iter().chain(tail) {
            let range = self.declared_range(&name, &ty, init.as_ref());
            if let Some(init) = init {
                self.initializer(init);
            }
            let flag = (flags && init.is_none() && !constant).then(|| self.fresh_flag(&name));
            if let Some(f) = &flag {
                extra.push(flag_decl(f));
            }
            self.declare(
                name,
                Var {
                    home: Home::Local { flag },
                    ty: Ty::parse(&ty),
                    range,
                },
            );
        }
        extra
    }

    // ---- expressions ----

    /// The flag of the local at the root of an lvalue, if it has one.
    pub(super) fn root_flag(&self, e: &ast::Expr) -> Option<String> {
        let mut e = e;
        loop {
            match &e.content {
                ast::ExprData::Dot(b, _) | ast::ExprData::Bracket(b, _) => e = b,
                ast::ExprData::Variable(n) => {
                    return match self.lookup(n.0.as_str())?.home {
                        Home::Local { flag } => flag,
                        _ => None,
                    };
                }
                _ => return None,
            }
        }
    }

    /// `(gldbg_mc_u(flag, site), e)`: a read of a local that may not be
    /// assigned yet.
    pub(super) fn checked_read(&mut self, e: &mut ast::Expr, flag: &str, name: &str, at: &Place) {
        if self.survey {
            return;
        }
        let site = self.site_at(at, name.to_string(), Space::Local, None, None, 0);
        let inner = take(e);
        *e = comma(call("gldbg_mc_u", vec![v(flag), u(site)]), inner);
    }

    pub fn expr(&mut self, e: &mut ast::Expr, ctx: Ctx) {
        use ast::ExprData as E;
        match &mut e.content {
            E::IntConst(_)
            | E::UIntConst(_)
            | E::BoolConst(_)
            | E::FloatConst(_)
            | E::DoubleConst(_) => {}
            E::Variable(_) | E::Dot(..) | E::Bracket(..) => self.path(e, ctx),
            E::Assignment(lhs, op, rhs) => {
                let equal = op.content == ast::AssignmentOpData::Equal;
                self.expr(rhs, Ctx::Read);
                let flag = self.root_flag(lhs);
                let name = root_name(lhs);
                let at = (lhs.span, expr_text(lhs));
                self.expr(lhs, if equal { Ctx::Write } else { Ctx::ReadWrite });
                if let Some(flag) = flag {
                    if equal {
                        let inner = take(e);
                        *e = comma(
                            assign(v(&flag), ast::ExprData::BoolConst(true).into()),
                            inner,
                        );
                    } else {
                        self.checked_read(e, &flag, &name, &at);
                    }
                }
            }
            E::Unary(op, a) => {
                let incdec = matches!(op.content, ast::UnaryOpData::Inc | ast::UnaryOpData::Dec);
                if incdec {
                    self.incdec(e);
                } else {
                    self.expr(a, Ctx::Read);
                }
            }
            E::PostInc(_) | E::PostDec(_) => self.incdec(e),
            E::Binary(_, a, b) | E::Comma(a, b) => {
                self.expr(a, Ctx::Read);
                self.expr(b, Ctx::Read);
            }
            E::Ternary(a, b, c) => {
                self.expr(a, Ctx::Read);
                self.expr(b, ctx);
                self.expr(c, ctx);
            }
            E::FunCall(..) => self.call(e),
        }
    }

    fn incdec(&mut self, e: &mut ast::Expr) {
        use ast::ExprData as E;
        let (E::Unary(_, a) | E::PostInc(a) | E::PostDec(a)) = &mut e.content else {
            return;
        };
        let flag = self.root_flag(a);
        let (name, at) = (root_name(a), (a.span, expr_text(a)));
        self.expr(a, Ctx::ReadWrite);
        if let Some(flag) = flag {
            self.checked_read(e, &flag, &name, &at);
        }
    }

    /// The types along a path: where each array level is, which ops index
    /// a tracked element, which components the access selects.
    fn walk(&self, var: &Var, name: &str, ops: &[Op]) -> Walked {
        let mut ty = var.ty.clone();
        let mut home = var.home.clone();
        let mut key = name.to_string();
        let mut levels: Vec<(usize, Ty)> = Vec::new(); // (op index, array type before)
        let mut element_run: Option<(usize, usize)> = None; // ops [a, b)
        let mut component: Option<(u32, u32)> = None;
        let mut arrayed_block = false;
        // A struct member's array (`s.a[i]`): its key names the path.
        let mut in_struct = false;
        for (k, op) in ops.iter().enumerate() {
            match op {
                Op::Dot(f) => {
                    let f = f.0.as_str();
                    if let Home::StorageInstance { block, arrayed } = &home {
                        arrayed_block = *arrayed;
                        ty = self.g.member(block, f).unwrap_or(Ty::parse("?"));
                        home = Home::Storage {
                            block: block.clone(),
                        };
                        key = format!("{key}.{f}");
                    } else if ty.is_vector() {
                        if element_run.is_some_and(|(_, b)| b == k) {
                            component = swizzle_run(f);
                        }
                        ty = Ty::scalar("?");
                    } else {
                        if element_run.is_none() {
                            key = format!("{key}.{f}");
                            in_struct = true;
                        }
                        ty = self.g.member(&ty.base, f).unwrap_or(Ty::parse("?"));
                    }
                }
                Op::Index(i) => {
                    if ty.dims > 0 {
                        levels.push((k, ty.clone()));
                        let start_run = element_run.is_none()
                            && matches!(home, Home::Storage { .. } | Home::Shared)
                            && levels.len() == 1;
                        if start_run {
                            element_run = Some((k, k + 1));
                        } else if let Some((a, b)) = element_run
                            && b == k
                            && levels.len() > 1
                        {
                            element_run = Some((a, k + 1));
                        }
                        ty = ty.peel();
                        if matches!(home, Home::StorageInstance { .. }) {
                            arrayed_block = true;
                        }
                    } else if ty.is_vector() {
                        if element_run.is_some_and(|(_, b)| b == k)
                            && let ast::ExprData::IntConst(c) = i.content
                        {
                            component = u32::try_from(c).ok().map(|c| (c, 1));
                        }
                        ty = Ty::scalar("?");
                    } else {
                        ty = Ty::scalar("?");
                    }
                }
            }
        }
        Walked {
            ty,
            home,
            key,
            levels,
            element_run,
            component,
            arrayed_block,
            in_struct,
        }
    }

    /// An access path rooted at a variable (see the module documentation).
    fn path(&mut self, e: &mut ast::Expr, ctx: Ctx) {
        let whole = e.clone();
        let mut ops = Vec::new();
        let root = flatten(take(e), &mut ops);
        let ast::ExprData::Variable(root_name) = &root.content else {
            // `f().x`, `(a + b)[i]`, `vec4(1.0)[i]`: the base is read.
            let mut root = root;
            self.expr(&mut root, Ctx::Read);
            for op in &mut ops {
                if let Op::Index(i) = op {
                    self.expr(i, Ctx::Read);
                }
            }
            *e = rebuild(root, ops);
            return;
        };
        let name = root_name.0.to_string();
        let var = self
            .lookup(&name)
            .unwrap_or(Var::new(Home::Other, Ty::parse("?")));
        for op in &mut ops {
            if let Op::Index(i) = op {
                self.expr(i, Ctx::Read);
            }
        }
        let Walked {
            ty,
            home,
            key,
            levels,
            element_run,
            component,
            arrayed_block,
            in_struct,
        } = self.walk(&var, &name, &ops);
        let final_dims = ty.dims;
        let place = (whole.span, expr_text(&whole));
        self.checks(
            &root,
            &mut ops,
            &Access {
                levels,
                element_run,
                component,
                home,
                key,
                ctx,
                arrayed_block,
                in_struct,
                whole,
            },
        );
        *e = rebuild(root, ops);
        if let (Home::Local { flag: Some(flag) }, Ctx::Read) = (&var.home, ctx)
            && final_dims == 0
        {
            self.checked_read(e, &flag.clone(), &name, &place);
        }
    }
}

/// [`root_var`](super::scope::root_var), or the expression's text where there is none.
pub(super) fn root_name(e: &ast::Expr) -> String {
    super::scope::root_var(e).unwrap_or_else(|| expr_text(e))
}

/// The root variable of an image (or array) expression and whether the
/// expression can be evaluated twice (no side effects: names, fields,
/// constant or plain-variable indices).
pub(super) fn pure_root(e: &ast::Expr) -> (Option<String>, bool) {
    match &e.content {
        ast::ExprData::Variable(n) => (Some(n.0.to_string()), true),
        ast::ExprData::Dot(b, _) => pure_root(b),
        ast::ExprData::Bracket(b, i) => {
            let (r, p) = pure_root(b);
            let pi = matches!(
                i.content,
                ast::ExprData::IntConst(_)
                    | ast::ExprData::UIntConst(_)
                    | ast::ExprData::Variable(_)
            );
            (r, p && pi)
        }
        _ => (None, false),
    }
}
