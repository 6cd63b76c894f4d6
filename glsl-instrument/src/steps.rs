//! The static step model: walks every function body in source order and
//! records its steps (statements, conditions, loop parts, jumps) with
//! position, text, scope, loop depth and user calls; the tree path that
//! finds each step again in the AST (for the instrumenter); and each step's
//! static flow targets (for `successors`, see flow.rs).

use std::collections::{HashMap, HashSet};

use glsl_lang::ast;
use glsl_lang::transpiler::glsl as printer;

use crate::parse::{expr_text, line_col, one_line, stmt_text};
use crate::{Step, StepId, StepKind, Variable};

/// Which part of the statement found at a step's path the step is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    /// The statement itself (expression, declaration, jump).
    Whole,
    IfCond,
    SwitchHead,
    ForInit,
    /// Condition of `for`, `while` or `do`.
    LoopCond,
    ForInc,
}

/// One move down the statement tree: from a compound statement (or a
/// switch body) to its `Index`-th statement, from an `if` to a branch,
/// from a loop to its body. The first element indexes the function body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PathElem {
    Index(usize),
    Then,
    Else,
    Body,
}

/// A static flow target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// Go to `step`, keeping the iteration counts of the outermost `keep`
    /// loops of the current function (the innermost kept one plus one if
    /// `advance`); loops entered beyond those start at iteration 0.
    Step { step: u32, keep: u32, advance: bool },
    /// Leave the function (continue in the caller).
    Return,
    /// No way on (a loop without any step and without exit).
    Nowhere,
}

/// What the instrumenter and `successors` need to know about a step.
#[derive(Clone, Debug)]
pub(crate) struct StepInfo {
    /// Index into `Model::functions`.
    pub func: usize,
    pub path: Vec<PathElem>,
    pub part: Part,
    /// Path lengths of the enclosing loop statements, outermost first
    /// (`path[..n]` is the loop statement); one per `Step::loop_depth`.
    pub loops: Vec<usize>,
    /// The function (index) each user call of the step goes to.
    pub call_targets: Vec<Option<usize>>,
    /// Static successors, preferred first.
    pub succ: Vec<Target>,
    /// For a jump (`break`, `continue`, `return`, `discard`): where the
    /// invocations that did not take it go on, as if it were an empty
    /// statement (the reconvergence point: stepping visits it before the
    /// jump's own target, as a GPU runs the other lanes on first).
    pub resume: Option<Target>,
}

#[derive(Clone, Debug)]
pub(crate) struct FunctionInfo {
    pub name: String,
    /// Index of the definition in the translation unit.
    pub decl: usize,
    /// Parameter types (overloads are told apart by them).
    pub params: Vec<String>,
    /// First step, or `Return` for a function without steps.
    pub entry: Target,
    /// Index of its first declaration (prototype or definition): a call
    /// in a function defined before it goes to the built-in of that name.
    pub declared_at: usize,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Model {
    pub steps: Vec<Step>,
    pub info: Vec<StepInfo>,
    pub functions: Vec<FunctionInfo>,
    pub main: Option<usize>,
    /// Struct names (so a probe expression can construct them).
    pub type_names: Vec<String>,
    /// Names of the user-defined functions.
    pub function_names: HashSet<String>,
}

// ---------------------------------------------------------------------------
// Expression helpers shared with the instrumenter (same traversal order).

/// Call `f` on every node of `e`, children first (so the arguments of a
/// call come before the call: evaluation order).
pub(crate) fn walk_expr(e: &mut ast::Expr, f: &mut dyn FnMut(&mut ast::Expr)) {
    use ast::ExprData as E;
    match &mut e.content {
        E::Variable(_)
        | E::IntConst(_)
        | E::UIntConst(_)
        | E::BoolConst(_)
        | E::FloatConst(_)
        | E::DoubleConst(_) => {}
        E::Unary(_, a) | E::Dot(a, _) | E::PostInc(a) | E::PostDec(a) => walk_expr(a, f),
        E::Binary(_, a, b) | E::Assignment(a, _, b) | E::Bracket(a, b) | E::Comma(a, b) => {
            walk_expr(a, f);
            walk_expr(b, f);
        }
        E::Ternary(a, b, c) => {
            walk_expr(a, f);
            walk_expr(b, f);
            walk_expr(c, f);
        }
        E::FunCall(id, args) => {
            if let ast::FunIdentifierData::Expr(callee) = &mut id.content {
                walk_expr(callee, f);
            }
            for a in args {
                walk_expr(a, f);
            }
        }
    }
    f(e);
}

/// Name and argument count of a call of a plain function name.
pub(crate) fn call_name(e: &ast::Expr) -> Option<(&str, usize)> {
    match &e.content {
        ast::ExprData::FunCall(id, args) => {
            let name = id.as_ident()?.as_str();
            // `f(void)`-style calls do not exist; `f()` has no args.
            Some((name, args.len()))
        }
        _ => None,
    }
}

fn initializer_exprs(init: &mut ast::Initializer, f: &mut dyn FnMut(&mut ast::Expr)) {
    match &mut init.content {
        ast::InitializerData::Simple(e) => f(e),
        ast::InitializerData::List(list) => {
            for i in list {
                initializer_exprs(i, f);
            }
        }
    }
}

fn declaration_exprs(d: &mut ast::Declaration, f: &mut dyn FnMut(&mut ast::Expr)) {
    if let ast::DeclarationData::InitDeclaratorList(list) = &mut d.content {
        if let Some(init) = &mut list.head.initializer {
            initializer_exprs(init, f);
        }
        for t in &mut list.tail {
            if let Some(init) = &mut t.initializer {
                initializer_exprs(init, f);
            }
        }
    }
}

fn condition_exprs(c: &mut ast::Condition, f: &mut dyn FnMut(&mut ast::Expr)) {
    match &mut c.content {
        ast::ConditionData::Expr(e) => f(e),
        ast::ConditionData::Assignment(_, _, init) => initializer_exprs(init, f),
    }
}

/// Call `f` on the top-level expressions evaluated by the step `part` of
/// `stmt`, in evaluation order.
pub(crate) fn step_exprs(stmt: &mut ast::Statement, part: Part, f: &mut dyn FnMut(&mut ast::Expr)) {
    use ast::StatementData as S;
    match (part, &mut stmt.content) {
        (Part::Whole, S::Declaration(d)) => declaration_exprs(d, f),
        (Part::Whole, S::Expression(es)) => {
            if let Some(e) = &mut es.content.0 {
                f(e)
            }
        }
        (Part::Whole, S::Jump(j)) => {
            if let ast::JumpStatementData::Return(Some(e)) = &mut j.content {
                f(e)
            }
        }
        (Part::IfCond, S::Selection(sel)) => f(&mut sel.cond),
        (Part::SwitchHead, S::Switch(sw)) => f(&mut sw.head),
        (part, S::Iteration(it)) => match (part, &mut it.content) {
            (Part::ForInit, ast::IterationStatementData::For(init, _, _)) => {
                match &mut init.content {
                    ast::ForInitStatementData::Expression(Some(e)) => f(e),
                    ast::ForInitStatementData::Expression(None) => {}
                    ast::ForInitStatementData::Declaration(d) => declaration_exprs(d, f),
                }
            }
            (Part::LoopCond, ast::IterationStatementData::For(_, rest, _)) => {
                if let Some(c) = &mut rest.condition {
                    condition_exprs(c, f)
                }
            }
            (Part::LoopCond, ast::IterationStatementData::While(c, _)) => condition_exprs(c, f),
            (Part::LoopCond, ast::IterationStatementData::DoWhile(_, e)) => f(e),
            (Part::ForInc, ast::IterationStatementData::For(_, rest, _)) => {
                if let Some(e) = &mut rest.post_expr {
                    f(e)
                }
            }
            _ => {}
        },
        _ => {}
    }
}

/// Call `f` (children first) on every expression node of `stmt` and of the
/// statements inside it.
pub(crate) fn walk_stmt_exprs(stmt: &mut ast::Statement, f: &mut dyn FnMut(&mut ast::Expr)) {
    use ast::StatementData as S;
    let mut each = |e: &mut ast::Expr| walk_expr(e, f);
    match &mut stmt.content {
        S::Declaration(_) | S::Expression(_) | S::Jump(_) => {
            step_exprs(stmt, Part::Whole, &mut each)
        }
        S::Selection(_) => {
            step_exprs(stmt, Part::IfCond, &mut each);
            if let S::Selection(sel) = &mut stmt.content {
                match &mut sel.rest.content {
                    ast::SelectionRestStatementData::Statement(s) => walk_stmt_exprs(s, f),
                    ast::SelectionRestStatementData::Else(a, b) => {
                        walk_stmt_exprs(a, f);
                        walk_stmt_exprs(b, f);
                    }
                }
            }
        }
        S::Switch(_) => {
            step_exprs(stmt, Part::SwitchHead, &mut each);
            if let S::Switch(sw) = &mut stmt.content {
                for s in &mut sw.body {
                    walk_stmt_exprs(s, f);
                }
            }
        }
        S::CaseLabel(c) => {
            if let ast::CaseLabelData::Case(e) = &mut c.content {
                walk_expr(e, f)
            }
        }
        S::Iteration(_) => {
            for part in [Part::ForInit, Part::LoopCond, Part::ForInc] {
                step_exprs(stmt, part, &mut each);
            }
            if let S::Iteration(it) = &mut stmt.content {
                match &mut it.content {
                    ast::IterationStatementData::While(_, b)
                    | ast::IterationStatementData::DoWhile(b, _)
                    | ast::IterationStatementData::For(_, _, b) => walk_stmt_exprs(b, f),
                }
            }
        }
        S::Compound(c) => {
            for s in &mut c.statement_list {
                walk_stmt_exprs(s, f);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Types and variables.

/// "vec3", "float[4]", "S" for a type specifier plus an identifier's array.
pub(crate) fn type_string(ts: &ast::TypeSpecifier, extra: Option<&ast::ArraySpecifier>) -> String {
    let mut s = match &ts.ty.content {
        ast::TypeSpecifierNonArrayData::Struct(st) => st
            .name
            .as_ref()
            .map_or_else(|| "struct".to_string(), |n| n.0.to_string()),
        ast::TypeSpecifierNonArrayData::TypeName(n) => n.0.to_string(),
        _ => one_line(|f, st| printer::show_type_specifier_non_array(f, &ts.ty, st)),
    };
    // `vec4[2] b[3]` is an array of 3 `vec4[2]`: the name's dimensions
    // are the outer ones.
    for a in extra.into_iter().chain(ts.array_specifier.iter()) {
        s.push_str(&one_line(|f, st| printer::show_array_spec(f, a, st)));
    }
    s
}

/// `precise a;` / `invariant a, b;`: parse.rs's stand-in declaration
/// whose type name is the keyword (it declares nothing).
pub(crate) fn qualifies_only(head: &ast::SingleDeclaration) -> bool {
    matches!(&head.ty.ty.ty.content,
        ast::TypeSpecifierNonArrayData::TypeName(n) if matches!(n.0.as_str(), "precise" | "invariant"))
}

/// The built-in variables a step of `stage` lists (builtins.rs).
pub(crate) fn builtin_scope(
    stage: crate::Stage,
    version: u32,
    es: bool,
    compat: bool,
) -> Vec<Variable> {
    crate::builtins::scope_variables(stage, version, es, compat)
        .map(|v| Variable {
            name: v.name.to_string(),
            ty: v.ty.to_string(),
        })
        .collect()
}

/// Variables declared by a declaration (global or local).
pub(crate) fn declared_variables(d: &ast::Declaration) -> Vec<Variable> {
    let mut out = Vec::new();
    match &d.content {
        ast::DeclarationData::InitDeclaratorList(list) if qualifies_only(&list.head) => {}
        ast::DeclarationData::InitDeclaratorList(list) => {
            let ty = &list.head.ty.ty;
            if let Some(name) = &list.head.name {
                out.push(Variable {
                    name: name.0.to_string(),
                    ty: type_string(ty, list.head.array_specifier.as_ref()),
                });
            }
            for t in &list.tail {
                out.push(Variable {
                    name: t.ident.ident.0.to_string(),
                    ty: type_string(ty, t.ident.array_spec.as_ref()),
                });
            }
        }
        ast::DeclarationData::Block(b) => match &b.identifier {
            Some(id) => {
                let mut ty = b.name.0.to_string();
                if let Some(a) = &id.array_spec {
                    ty.push_str(&one_line(|f, st| printer::show_array_spec(f, a, st)));
                }
                out.push(Variable {
                    name: id.ident.0.to_string(),
                    ty,
                });
            }
            None => {
                for field in &b.fields {
                    for id in &field.identifiers {
                        out.push(Variable {
                            name: id.ident.0.to_string(),
                            ty: type_string(&field.ty, id.array_spec.as_ref()),
                        });
                    }
                }
            }
        },
        _ => {}
    }
    out
}

fn struct_name(d: &ast::Declaration) -> Option<String> {
    if let ast::DeclarationData::InitDeclaratorList(list) = &d.content
        && let ast::TypeSpecifierNonArrayData::Struct(st) = &list.head.ty.ty.ty.content
    {
        return st.name.as_ref().map(|n| n.0.to_string());
    }
    None
}

fn parameters(proto: &ast::FunctionPrototype) -> Vec<Variable> {
    proto
        .parameters
        .iter()
        .filter_map(|p| match &p.content {
            ast::FunctionParameterDeclarationData::Named(_, d) => Some(Variable {
                name: d.ident.ident.0.to_string(),
                ty: type_string(&d.ty, d.ident.array_spec.as_ref()),
            }),
            ast::FunctionParameterDeclarationData::Unnamed(..) => None,
        })
        .collect()
}

pub(crate) fn parameter_types(proto: &ast::FunctionPrototype) -> Vec<String> {
    let is_void = |p: &ast::FunctionParameterDeclaration| {
        matches!(&p.content, ast::FunctionParameterDeclarationData::Unnamed(_, ts)
            if ts.ty.content == ast::TypeSpecifierNonArrayData::Void && ts.array_specifier.is_none())
    };
    match proto.parameters.as_slice() {
        [p] if is_void(p) => Vec::new(),
        ps => ps
            .iter()
            .map(|p| match &p.content {
                ast::FunctionParameterDeclarationData::Named(_, d) => {
                    type_string(&d.ty, d.ident.array_spec.as_ref())
                }
                ast::FunctionParameterDeclarationData::Unnamed(_, ts) => type_string(ts, None),
            })
            .collect(),
    }
}

/// A best-effort type of `e` (no type checker here): enough to tell
/// common overloads apart. None = unknown.
fn infer_type(e: &ast::Expr, scope: &[Variable]) -> Option<String> {
    use ast::ExprData as E;
    const SCALARS: [&str; 5] = ["float", "int", "uint", "bool", "double"];
    // "vec3" -> ("", 3), "ivec2" -> ("i", 2); scalars -> their vector prefix, 1.
    let vector = |t: &str| -> Option<(String, usize)> {
        if let Some(i) = SCALARS.iter().position(|s| *s == t) {
            return Some((["", "i", "u", "b", "d"][i].to_string(), 1));
        }
        let at = t.find("vec")?;
        let n: usize = t[at + 3..].parse().ok()?;
        Some((t[..at].to_string(), n))
    };
    let make = |prefix: &str, n: usize| -> String {
        if n == 1 {
            let i = ["", "i", "u", "b", "d"]
                .iter()
                .position(|p| *p == prefix)
                .unwrap_or(0);
            SCALARS[i].to_string()
        } else {
            format!("{prefix}vec{n}")
        }
    };
    match &e.content {
        E::Variable(v) => scope
            .iter()
            .rev()
            .find(|x| x.name == v.as_str())
            .map(|x| x.ty.clone()),
        E::IntConst(_) => Some("int".into()),
        E::UIntConst(_) => Some("uint".into()),
        E::BoolConst(_) => Some("bool".into()),
        E::FloatConst(_) => Some("float".into()),
        E::DoubleConst(_) => Some("double".into()),
        E::FunCall(id, _) => match &id.content {
            ast::FunIdentifierData::TypeSpecifier(ts) => Some(type_string(ts, None)),
            ast::FunIdentifierData::Expr(_) => None,
        },
        E::Dot(inner, field) => {
            let (prefix, n) = vector(&infer_type(inner, scope)?)?;
            let len = field.as_str().len();
            (n > 1
                && (1..=4).contains(&len)
                && field.as_str().chars().all(|c| "xyzwrgbastpq".contains(c)))
            .then(|| make(&prefix, len))
        }
        E::Unary(_, a) | E::PostInc(a) | E::PostDec(a) | E::Assignment(a, _, _) => {
            infer_type(a, scope)
        }
        E::Ternary(_, a, b) => infer_type(a, scope).or_else(|| infer_type(b, scope)),
        E::Bracket(a, _) => {
            let t = infer_type(a, scope)?;
            if let Some(open) = t.rfind('[') {
                return Some(t[..open].to_string());
            }
            let (prefix, n) = vector(&t)?;
            (n > 1).then(|| make(&prefix, 1))
        }
        E::Binary(op, a, b) => {
            use ast::BinaryOpData as B;
            match op.content {
                B::Or
                | B::Xor
                | B::And
                | B::Equal
                | B::NonEqual
                | B::Lt
                | B::Gt
                | B::Lte
                | B::Gte => Some("bool".into()),
                _ => {
                    let (ta, tb) = (infer_type(a, scope)?, infer_type(b, scope)?);
                    if ta == tb || SCALARS.contains(&tb.as_str()) {
                        Some(ta)
                    } else if SCALARS.contains(&ta.as_str()) {
                        Some(tb)
                    } else {
                        None
                    }
                }
            }
        }
        E::Comma(_, b) => infer_type(b, scope),
    }
}

// ---------------------------------------------------------------------------
// The walk.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LoopKind {
    For,
    While,
    Do,
}

/// Control structure of a function body, with step ids at the leaves.
enum Ir {
    Step(u32),
    Block(Vec<Ir>),
    If {
        cond: u32,
        then: Box<Ir>,
        els: Option<Box<Ir>>,
    },
    Switch {
        head: u32,
        body: Vec<Ir>,
        labels: Vec<usize>,
        has_default: bool,
    },
    Loop {
        kind: LoopKind,
        init: Option<u32>,
        cond: Option<u32>,
        inc: Option<u32>,
        body: Box<Ir>,
    },
    Label,
    Empty,
}

struct Builder<'s> {
    src: &'s str,
    model: Model,
    /// Function indices by name (overloads share a name).
    by_name: HashMap<String, Vec<usize>>,
    scope: Vec<Variable>,
    func: usize,
    path: Vec<PathElem>,
    loops: Vec<usize>,
    last_offset: usize,
}

/// Build the step model of a translation unit. `src` is the original
/// source the spans point into. (The walk borrows the tree mutably only to
/// share the expression visitors with the instrumenter; nothing changes.)
///
/// `builtins`: the stage's built-in variables, first in every scope (so
/// the innermost user variable stays last).
pub(crate) fn build(tu: &mut ast::TranslationUnit, src: &str, builtins: Vec<Variable>) -> Model {
    let mut b = Builder {
        src,
        model: Model::default(),
        by_name: HashMap::new(),
        scope: Vec::new(),
        func: 0,
        path: Vec::new(),
        loops: Vec::new(),
        last_offset: 0,
    };
    for (i, decl) in tu.0.iter().enumerate() {
        if let ast::ExternalDeclarationData::FunctionDefinition(def) = &decl.content {
            let name = def.prototype.name.0.to_string();
            let idx = b.model.functions.len();
            let params = parameter_types(&def.prototype);
            // The first prototype of the same signature, if it comes first.
            let declared_at = tu.0[..i]
                .iter()
                .position(|d| {
                    matches!(&d.content, ast::ExternalDeclarationData::Declaration(dd)
                        if matches!(&dd.content, ast::DeclarationData::FunctionPrototype(p)
                            if p.name.0 == def.prototype.name.0 && parameter_types(p) == params))
                })
                .unwrap_or(i);
            b.model.functions.push(FunctionInfo {
                name: name.clone(),
                decl: i,
                params,
                entry: Target::Return,
                declared_at,
            });
            b.by_name.entry(name.clone()).or_default().push(idx);
            b.model.function_names.insert(name.clone());
            if name == "main" && b.model.main.is_none() {
                b.model.main = Some(idx);
            }
        }
    }
    let mut globals: Vec<Variable> = builtins;
    let mut func = 0;
    for decl in tu.0.iter_mut() {
        match &mut decl.content {
            ast::ExternalDeclarationData::Declaration(d) => {
                globals.extend(declared_variables(d));
                if let Some(n) = struct_name(d) {
                    b.model.type_names.push(n);
                }
            }
            ast::ExternalDeclarationData::FunctionDefinition(def) => {
                b.func = func;
                b.scope = globals.clone();
                b.scope.extend(parameters(&def.prototype));
                b.path.clear();
                b.loops.clear();
                if let Some(span) = def.span {
                    b.last_offset = usize::from(span.start().offset);
                }
                let body = Ir::Block(b.visit_list(&mut def.statement.statement_list));
                b.model.functions[func].entry = entry(&body, 0, Target::Return);
                b.flow(&body, 0, Target::Return, None, None);
                func += 1;
            }
            ast::ExternalDeclarationData::Preprocessor(_) => {}
        }
    }
    b.model
}

impl Builder<'_> {
    /// Scope without shadowed entries (the innermost declaration wins).
    fn visible(&self) -> Vec<Variable> {
        let mut seen = HashSet::new();
        let mut out: Vec<Variable> = self
            .scope
            .iter()
            .rev()
            .filter(|v| seen.insert(v.name.clone()))
            .cloned()
            .collect();
        out.reverse();
        out
    }

    /// The step's own source text when it is what the printed tree says
    /// (same identifiers: no macro in between, literals may differ), else
    /// the printed text.
    fn text_of(&self, span: Option<ast::NodeSpan>, printed: String) -> String {
        let Some(span) = span else { return printed };
        let range = usize::from(span.start().offset)..usize::from(span.end().offset);
        let Some(raw) = self.src.get(range) else {
            return printed;
        };
        if raw.contains("//") || raw.contains("/*") || raw.contains('#') || raw.contains('\\') {
            return printed;
        }
        let (mut a, mut b) = (HashSet::new(), HashSet::new());
        crate::parse::words(raw, &mut a);
        crate::parse::words(&printed, &mut b);
        if a != b || raw.trim().is_empty() {
            return printed;
        }
        raw.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    fn add_step(
        &mut self,
        kind: StepKind,
        part: Part,
        span: Option<ast::NodeSpan>,
        text: String,
        stmt: &mut ast::Statement,
    ) -> u32 {
        let offset = span.map_or(self.last_offset, |s| usize::from(s.start().offset));
        self.last_offset = offset;
        let (line, column) = line_col(self.src, offset);
        let mut calls = Vec::new();
        let mut call_targets = Vec::new();
        let (by_name, functions, scope) = (&self.by_name, &self.model.functions, &self.scope);
        // Only functions declared before the calling function are visible
        // (GLSL has no forward references; a later definition of a
        // built-in's name does not redirect earlier calls).
        let here = functions[self.func].decl;
        step_exprs(stmt, part, &mut |e| {
            walk_expr(e, &mut |c| {
                if let Some((name, _)) = call_name(c)
                    && let Some(all) = by_name.get(name)
                    && let cands = all
                        .iter()
                        .copied()
                        .filter(|&f| functions[f].declared_at < here)
                        .collect::<Vec<_>>()
                    && !cands.is_empty()
                    && let ast::ExprData::FunCall(_, args) = &c.content
                {
                    calls.push(name.to_string());
                    call_targets.push(resolve_overload(&cands, functions, args, scope));
                }
            })
        });
        let id = self.model.steps.len() as u32;
        let mut text = text;
        if text.chars().count() > 120 {
            text = text.chars().take(117).collect::<String>() + "...";
        }
        self.model.steps.push(Step {
            id: StepId(id),
            kind,
            function: self.model.functions[self.func].name.clone(),
            line,
            column,
            text,
            scope: self.visible(),
            loop_depth: self.loops.len() as u32,
            calls,
        });
        self.model.info.push(StepInfo {
            func: self.func,
            path: self.path.clone(),
            part,
            loops: self.loops.clone(),
            call_targets,
            succ: Vec::new(),
            resume: None,
        });
        id
    }

    /// Visit a statement list (compound or switch body), a scope of its own;
    /// `PathElem::Index` continues the current path into it.
    fn visit_list(&mut self, list: &mut [ast::Statement]) -> Vec<Ir> {
        let mark = self.scope.len();
        let mut out = Vec::with_capacity(list.len());
        for (i, s) in list.iter_mut().enumerate() {
            self.path.push(PathElem::Index(i));
            out.push(self.visit_stmt(s));
            self.path.pop();
        }
        self.scope.truncate(mark);
        out
    }

    /// A statement that is a branch or a loop body: its own scope.
    fn visit_nested(&mut self, elem: PathElem, s: &mut ast::Statement) -> Ir {
        let mark = self.scope.len();
        self.path.push(elem);
        let ir = self.visit_stmt(s);
        self.path.pop();
        self.scope.truncate(mark);
        ir
    }

    fn visit_stmt(&mut self, s: &mut ast::Statement) -> Ir {
        use ast::StatementData as S;
        let span = s.span;
        match &s.content {
            S::Declaration(d) => {
                let vars = declared_variables(d);
                if let Some(n) = struct_name(d) {
                    self.model.type_names.push(n);
                }
                if vars.is_empty() {
                    return Ir::Empty;
                }
                let text = self.text_of(span, stmt_text(s));
                let id = self.add_step(StepKind::Statement, Part::Whole, span, text, s);
                self.scope.extend(vars);
                Ir::Step(id)
            }
            S::Expression(es) => {
                if es.content.0.is_none() {
                    return Ir::Empty;
                }
                let text = self.text_of(span, stmt_text(s));
                Ir::Step(self.add_step(StepKind::Statement, Part::Whole, span, text, s))
            }
            S::Jump(j) => {
                let kind = match &j.content {
                    ast::JumpStatementData::Continue => StepKind::Continue,
                    ast::JumpStatementData::Break => StepKind::Break,
                    ast::JumpStatementData::Return(_) => StepKind::Return,
                    ast::JumpStatementData::Discard => StepKind::Discard,
                };
                let text = self.text_of(span, stmt_text(s));
                Ir::Step(self.add_step(kind, Part::Whole, span, text, s))
            }
            S::Selection(sel) => {
                let (cspan, text) = (
                    sel.cond.span,
                    format!("if ({})", self.text_of(sel.cond.span, expr_text(&sel.cond))),
                );
                let cond =
                    self.add_step(StepKind::IfCondition, Part::IfCond, cspan.or(span), text, s);
                let S::Selection(sel) = &mut s.content else {
                    unreachable!()
                };
                match &mut sel.rest.content {
                    ast::SelectionRestStatementData::Statement(t) => {
                        let then = Box::new(self.visit_nested(PathElem::Then, t));
                        Ir::If {
                            cond,
                            then,
                            els: None,
                        }
                    }
                    ast::SelectionRestStatementData::Else(t, e) => {
                        let then = Box::new(self.visit_nested(PathElem::Then, t));
                        let els = Some(Box::new(self.visit_nested(PathElem::Else, e)));
                        Ir::If { cond, then, els }
                    }
                }
            }
            S::Switch(sw) => {
                let (hspan, text) = (
                    sw.head.span,
                    format!(
                        "switch ({})",
                        self.text_of(sw.head.span, expr_text(&sw.head))
                    ),
                );
                let head = self.add_step(
                    StepKind::IfCondition,
                    Part::SwitchHead,
                    hspan.or(span),
                    text,
                    s,
                );
                let S::Switch(sw) = &mut s.content else {
                    unreachable!()
                };
                let body = self.visit_list(&mut sw.body);
                let mut labels = Vec::new();
                let mut has_default = false;
                for (i, st) in sw.body.iter().enumerate() {
                    if let S::CaseLabel(l) = &st.content {
                        labels.push(i);
                        has_default |= matches!(l.content, ast::CaseLabelData::Def);
                    }
                }
                Ir::Switch {
                    head,
                    body,
                    labels,
                    has_default,
                }
            }
            S::CaseLabel(_) => Ir::Label,
            S::Compound(_) => {
                let S::Compound(c) = &mut s.content else {
                    unreachable!()
                };
                Ir::Block(self.visit_list(&mut c.statement_list))
            }
            S::Iteration(_) => self.visit_loop(s),
        }
    }

    fn visit_loop(&mut self, s: &mut ast::Statement) -> Ir {
        let ast::StatementData::Iteration(it) = &s.content else {
            return Ir::Empty;
        };
        let mark = self.scope.len();
        let loop_path_len = self.path.len();
        let ir = match &it.content {
            ast::IterationStatementData::For(init, rest, _) => {
                let init_info = match &init.content {
                    ast::ForInitStatementData::Expression(None) => None,
                    ast::ForInitStatementData::Expression(Some(e)) => Some((
                        init.span.or(e.span),
                        self.text_of(e.span, expr_text(e)),
                        Vec::new(),
                    )),
                    ast::ForInitStatementData::Declaration(d) => {
                        let text = self.text_of(
                            d.span,
                            one_line(|f, st| printer::show_declaration(f, d, st)),
                        );
                        Some((
                            init.span.or(d.span),
                            text.trim_end_matches(';').trim().to_string(),
                            declared_variables(d),
                        ))
                    }
                };
                let cond_info = rest.condition.as_ref().map(|c| {
                    (
                        c.span,
                        self.text_of(c.span, condition_text(c)),
                        condition_var(c),
                    )
                });
                let inc_info = rest
                    .post_expr
                    .as_ref()
                    .map(|e| (e.span, self.text_of(e.span, expr_text(e))));
                let init = init_info.map(|(sp, text, vars)| {
                    let id = self.add_step(StepKind::LoopInit, Part::ForInit, sp, text, s);
                    self.scope.extend(vars);
                    id
                });
                self.loops.push(loop_path_len);
                let cond = cond_info.map(|(sp, text, var)| {
                    let id = self.add_step(StepKind::LoopCondition, Part::LoopCond, sp, text, s);
                    self.scope.extend(var);
                    id
                });
                let inc = inc_info.map(|(sp, text)| {
                    self.add_step(StepKind::LoopIncrement, Part::ForInc, sp, text, s)
                });
                let body = Box::new(self.visit_body(s));
                Ir::Loop {
                    kind: LoopKind::For,
                    init,
                    cond,
                    inc,
                    body,
                }
            }
            ast::IterationStatementData::While(c, _) => {
                let (sp, text, var) = (
                    c.span,
                    format!("while ({})", self.text_of(c.span, condition_text(c))),
                    condition_var(c),
                );
                self.loops.push(loop_path_len);
                let cond = self.add_step(
                    StepKind::LoopCondition,
                    Part::LoopCond,
                    sp.or(s.span),
                    text,
                    s,
                );
                self.scope.extend(var);
                let body = Box::new(self.visit_body(s));
                Ir::Loop {
                    kind: LoopKind::While,
                    init: None,
                    cond: Some(cond),
                    inc: None,
                    body,
                }
            }
            ast::IterationStatementData::DoWhile(_, e) => {
                let (sp, text) = (
                    e.span,
                    format!("while ({})", self.text_of(e.span, expr_text(e))),
                );
                self.loops.push(loop_path_len);
                let body = Box::new(self.visit_body(s));
                let cond = self.add_step(
                    StepKind::LoopCondition,
                    Part::LoopCond,
                    sp.or(s.span),
                    text,
                    s,
                );
                Ir::Loop {
                    kind: LoopKind::Do,
                    init: None,
                    cond: Some(cond),
                    inc: None,
                    body,
                }
            }
        };
        self.loops.pop();
        self.scope.truncate(mark);
        ir
    }

    fn visit_body(&mut self, s: &mut ast::Statement) -> Ir {
        match loop_body(s) {
            Some(b) => self.visit_nested(PathElem::Body, b),
            None => Ir::Empty,
        }
    }

    fn set_succ(&mut self, step: u32, targets: Vec<Target>) {
        let mut out: Vec<Target> = Vec::new();
        for t in targets {
            if t != Target::Nowhere && !out.contains(&t) {
                out.push(t);
            }
        }
        self.model.info[step as usize].succ = out;
    }

    /// Fill the static successors of the steps in `ir`, whose statements
    /// sit inside `depth` loops; `follow` is where control goes after `ir`,
    /// `brk`/`cont` where `break`/`continue` go.
    fn flow(
        &mut self,
        ir: &Ir,
        depth: u32,
        follow: Target,
        brk: Option<Target>,
        cont: Option<Target>,
    ) {
        match ir {
            Ir::Step(s) => {
                let kind = self.model.steps[*s as usize].kind;
                let targets = match kind {
                    StepKind::Break => brk.into_iter().collect(),
                    StepKind::Continue => cont.into_iter().collect(),
                    StepKind::Return => vec![Target::Return],
                    StepKind::Discard => vec![],
                    _ => vec![follow],
                };
                self.set_succ(*s, targets);
                let jump = matches!(
                    kind,
                    StepKind::Break | StepKind::Continue | StepKind::Return | StepKind::Discard
                );
                self.model.info[*s as usize].resume =
                    (jump && follow != Target::Nowhere).then_some(follow);
            }
            Ir::Block(v) => self.flow_seq(v, depth, follow, brk, cont),
            Ir::If { cond, then, els } => {
                let t = entry(then, depth, follow);
                let e = els.as_ref().map_or(follow, |e| entry(e, depth, follow));
                self.set_succ(*cond, vec![t, e]);
                self.flow(then, depth, follow, brk, cont);
                if let Some(e) = els {
                    self.flow(e, depth, follow, brk, cont);
                }
            }
            Ir::Switch {
                head,
                body,
                labels,
                has_default,
            } => {
                let mut targets: Vec<Target> = labels
                    .iter()
                    .map(|&i| entry_seq(&body[i + 1..], depth, follow))
                    .collect();
                if !has_default {
                    targets.push(follow);
                }
                self.set_succ(*head, targets);
                self.flow_seq(body, depth, follow, Some(follow), cont);
            }
            Ir::Loop {
                kind,
                init,
                cond,
                inc,
                body,
            } => {
                let inner = depth + 1;
                let exit = follow;
                let at = |s: u32, keep: u32| Target::Step {
                    step: s,
                    keep,
                    advance: false,
                };
                match kind {
                    LoopKind::For => {
                        // The next iteration starts at the condition, or
                        // without one directly in the body.
                        let next_iter = match cond {
                            Some(c) => Target::Step {
                                step: *c,
                                keep: inner,
                                advance: true,
                            },
                            None => advance(
                                entry(body, inner, inc.map_or(Target::Nowhere, |i| at(i, inner))),
                                inner,
                            ),
                        };
                        let after_body = inc.map_or(next_iter, |i| at(i, inner));
                        if let Some(i) = init {
                            let first = match cond {
                                Some(c) => at(*c, depth),
                                None => entry(
                                    body,
                                    depth,
                                    inc.map_or(Target::Nowhere, |i| at(i, depth)),
                                ),
                            };
                            self.set_succ(*i, vec![first]);
                        }
                        if let Some(c) = cond {
                            self.set_succ(*c, vec![entry(body, inner, after_body), exit]);
                        }
                        if let Some(i) = inc {
                            self.set_succ(*i, vec![next_iter]);
                        }
                        self.flow(body, inner, after_body, Some(exit), Some(after_body));
                    }
                    LoopKind::While => {
                        let Some(c) = *cond else { return };
                        let next = Target::Step {
                            step: c,
                            keep: inner,
                            advance: true,
                        };
                        self.set_succ(c, vec![entry(body, inner, next), exit]);
                        self.flow(body, inner, next, Some(exit), Some(next));
                    }
                    LoopKind::Do => {
                        let Some(c) = *cond else { return };
                        let at_cond = at(c, inner);
                        let next = advance(entry(body, inner, at_cond), inner);
                        self.set_succ(c, vec![next, exit]);
                        self.flow(body, inner, at_cond, Some(exit), Some(at_cond));
                    }
                }
            }
            Ir::Label | Ir::Empty => {}
        }
    }

    fn flow_seq(
        &mut self,
        v: &[Ir],
        depth: u32,
        follow: Target,
        brk: Option<Target>,
        cont: Option<Target>,
    ) {
        for i in 0..v.len() {
            let next = entry_seq(&v[i + 1..], depth, follow);
            self.flow(&v[i], depth, next, brk, cont);
        }
    }
}

/// The definition a call goes to: same argument count, then the one whose
/// parameter types match the arguments' (where known), else the first.
fn resolve_overload(
    cands: &[usize],
    functions: &[FunctionInfo],
    args: &[ast::Expr],
    scope: &[Variable],
) -> Option<usize> {
    let nargs = if args.len() == 1
        && matches!(&args[0].content, ast::ExprData::Variable(v) if v.as_str() == "void")
    {
        0
    } else {
        args.len()
    };
    let same_count: Vec<usize> = cands
        .iter()
        .copied()
        .filter(|&f| functions[f].params.len() == nargs)
        .collect();
    if same_count.len() > 1 {
        let types: Vec<Option<String>> = args.iter().map(|a| infer_type(a, scope)).collect();
        // Exact matches first; else the candidate reachable by implicit
        // conversions with the most exact arguments (GLSL 4.00 /
        // GL_ARB_gpu_shader5 resolution, simplified).
        let score = |f: usize| -> Option<usize> {
            let mut exact = 0;
            for (p, t) in functions[f].params.iter().zip(&types) {
                match t {
                    None => {}
                    Some(t) if t == p => exact += 1,
                    Some(t) if implicitly_converts(t, p) => {}
                    Some(_) => return None,
                }
            }
            Some(exact)
        };
        let mut best: Option<(usize, usize)> = None;
        for f in same_count.iter().copied() {
            if let Some(e) = score(f)
                && best.is_none_or(|(_, b)| e > b)
            {
                best = Some((f, e));
            }
        }
        if let Some((f, _)) = best {
            return Some(f);
        }
    }
    same_count.first().or(cands.first()).copied()
}

/// GLSL's implicit conversions (int → uint → float → double, per vector size).
fn implicitly_converts(from: &str, to: &str) -> bool {
    let split = |t: &str| -> Option<(u8, String)> {
        let rank = |b: &str| match b {
            "int" | "ivec" => Some(0u8),
            "uint" | "uvec" => Some(1),
            "float" | "vec" | "mat" => Some(2),
            "double" | "dvec" | "dmat" => Some(3),
            _ => None,
        };
        let base_end = t.find(|c: char| c.is_ascii_digit()).unwrap_or(t.len());
        let (base, size) = t.split_at(base_end);
        let kind = match base {
            "mat" | "dmat" => "m",
            "int" | "uint" | "float" | "double" => "s",
            _ => "v",
        };
        Some((rank(base)?, format!("{kind}{size}")))
    };
    match (split(from), split(to)) {
        (Some((rf, sf)), Some((rt, st))) => {
            sf == st && rf < rt && !(rf == 2 && sf.starts_with('m') && rt != 3)
        }
        _ => false,
    }
}

fn loop_body(s: &mut ast::Statement) -> Option<&mut ast::Statement> {
    match &mut s.content {
        ast::StatementData::Iteration(it) => match &mut it.content {
            ast::IterationStatementData::While(_, b)
            | ast::IterationStatementData::DoWhile(b, _)
            | ast::IterationStatementData::For(_, _, b) => Some(b),
        },
        _ => None,
    }
}

fn condition_text(c: &ast::Condition) -> String {
    match &c.content {
        ast::ConditionData::Expr(e) => expr_text(e),
        ast::ConditionData::Assignment(..) => one_line(|f, st| printer::show_condition(f, c, st)),
    }
}

/// The variable a `while (bool b = ...)` condition declares.
fn condition_var(c: &ast::Condition) -> Option<Variable> {
    match &c.content {
        ast::ConditionData::Assignment(ty, name, _) => Some(Variable {
            name: name.0.to_string(),
            ty: type_string(&ty.ty, None),
        }),
        ast::ConditionData::Expr(_) => None,
    }
}

/// Entering a loop's next iteration: count one more on the loop kept last.
fn advance(t: Target, inner: u32) -> Target {
    match t {
        Target::Step { step, keep, .. } if keep == inner => Target::Step {
            step,
            keep,
            advance: true,
        },
        t => t,
    }
}

/// The first step executed by `ir`, if it has one (`keep`: see Target).
fn entry_opt(ir: &Ir, keep: u32) -> Option<Target> {
    let at = |s: u32| Target::Step {
        step: s,
        keep,
        advance: false,
    };
    match ir {
        Ir::Step(s) => Some(at(*s)),
        Ir::Block(v) => v.iter().find_map(|n| entry_opt(n, keep)),
        Ir::If { cond, .. } => Some(at(*cond)),
        Ir::Switch { head, .. } => Some(at(*head)),
        Ir::Loop {
            kind,
            init,
            cond,
            inc,
            body,
        } => match kind {
            LoopKind::For => init
                .or(*cond)
                .map(at)
                .or_else(|| entry_opt(body, keep))
                .or_else(|| inc.map(at))
                .or(Some(Target::Nowhere)),
            LoopKind::While => cond.map(at),
            LoopKind::Do => entry_opt(body, keep).or_else(|| cond.map(at)),
        },
        Ir::Label | Ir::Empty => None,
    }
}

fn entry(ir: &Ir, keep: u32, follow: Target) -> Target {
    entry_opt(ir, keep).unwrap_or(follow)
}

fn entry_seq(v: &[Ir], keep: u32, follow: Target) -> Target {
    v.iter().find_map(|n| entry_opt(n, keep)).unwrap_or(follow)
}

#[cfg(test)]
mod tests {
    use crate::test_shaders::LOOP_BRANCH;
    use crate::{ShaderModel, Stage, StepKind};

    fn model(src: &str) -> ShaderModel {
        ShaderModel::parse(src, Stage::Fragment).unwrap()
    }

    fn names(scope: &[crate::Variable]) -> Vec<String> {
        scope
            .iter()
            .map(|v| format!("{} {}", v.ty, v.name))
            .collect()
    }

    #[test]
    fn steps_of_function_with_loop_and_branch() {
        let m = model(LOOP_BRANCH);
        let got: Vec<(StepKind, u32, u32, &str, u32)> = m
            .steps()
            .iter()
            .map(|s| (s.kind, s.line, s.column, s.function.as_str(), s.loop_depth))
            .collect();
        use StepKind::*;
        assert_eq!(
            got,
            vec![
                (Statement, 7, 5, "shade", 0),
                (LoopInit, 8, 10, "shade", 0),
                (LoopCondition, 8, 21, "shade", 1),
                (LoopIncrement, 8, 28, "shade", 1),
                (IfCondition, 9, 13, "shade", 1),
                (Statement, 10, 13, "shade", 1),
                (Statement, 12, 13, "shade", 1),
                (Return, 15, 5, "shade", 0),
                (Statement, 19, 5, "main", 0),
                (Statement, 20, 5, "main", 0),
                (Statement, 21, 5, "main", 0),
            ]
        );
        for (i, s) in m.steps().iter().enumerate() {
            assert_eq!(s.id.0 as usize, i);
        }
        assert_eq!(m.steps()[1].text, "int i = 0");
        assert_eq!(m.steps()[2].text, "i < n");
        assert_eq!(m.steps()[4].text, "if (x > 0.5)");
        assert_eq!(m.steps()[6].text, "acc -= 1.0;");
        assert_eq!(m.steps()[3].text, "i++");
        assert_eq!(m.steps()[9].calls, vec!["shade".to_string()]);
        assert!(m.steps()[8].calls.is_empty());
        // The stage's built-ins come first, then the shader's globals.
        let builtins = names(&super::builtin_scope(Stage::Fragment, 330, false, false));
        assert_eq!(
            builtins,
            [
                "int gl_PrimitiveID",
                "vec4 gl_FragCoord",
                "bool gl_FrontFacing",
                "vec2 gl_PointCoord",
                "float[] gl_ClipDistance",
                "float gl_FragDepth",
            ]
        );
        let globals: Vec<String> = builtins
            .into_iter()
            .chain(["float scale", "vec2 uv", "vec4 color"].map(String::from))
            .collect();
        let globals: Vec<&str> = globals.iter().map(String::as_str).collect();
        let scope = |i: usize| names(&m.steps()[i].scope);
        assert_eq!(scope(0), [&globals[..], &["float x", "int n"]].concat());
        assert_eq!(
            scope(1),
            [&globals[..], &["float x", "int n", "float acc"]].concat()
        );
        assert_eq!(
            scope(5),
            [&globals[..], &["float x", "int n", "float acc", "int i"]].concat()
        );
        // The loop variable is gone after the loop.
        assert_eq!(
            scope(7),
            [&globals[..], &["float x", "int n", "float acc"]].concat()
        );
        assert_eq!(scope(8), globals.to_vec());
        assert_eq!(scope(10), [&globals[..], &["float d", "float s"]].concat());
    }

    #[test]
    fn macros_and_line_directives_keep_original_lines() {
        let src = "#version 330 core
#define SQ(x) ((x) * (x))
#define STEP a += 1.0;
out vec4 o;
void main() {
    float a = SQ(2.0);
    STEP
#line 100
    a = SQ(a) +
        1.0;
#if 0
    a = 0.0;
#else
    a = -a;
#endif
    o = vec4(a);
}
";
        let m = model(src);
        let lines: Vec<u32> = m.steps().iter().map(|s| s.line).collect();
        assert_eq!(lines, vec![6, 7, 9, 14, 16]);
        // Macro-made statements show the expansion, others their source.
        assert_eq!(m.steps()[1].text, "a += 1.;");
        assert_eq!(m.steps()[2].text, "a = a * a + 1.;");
        assert_eq!(m.steps()[3].text, "a = -a;");
        assert_eq!(m.steps()[2].column, 5);
    }

    #[test]
    fn shadowing_switch_while_do_and_blocks() {
        let src = "#version 330 core
uniform int mode;
float v;
out vec4 o;
void main() {
    float v = 1.0;
    switch (mode) {
    case 0:
        v = 2.0;
        break;
    default:
        v = 3.0;
    }
    {
        int k = 0;
        while (k < 3) { k++; }
        do { k--; } while (k > 0);
    }
    if (v > 1.0) {} else { discard; }
    o = vec4(v);
}
";
        let m = model(src);
        use StepKind::*;
        let kinds: Vec<StepKind> = m.steps().iter().map(|s| s.kind).collect();
        assert_eq!(
            kinds,
            vec![
                Statement,
                IfCondition,
                Statement,
                Break,
                Statement,
                Statement,
                LoopCondition,
                Statement,
                Statement,
                LoopCondition,
                IfCondition,
                Discard,
                Statement
            ]
        );
        // The local `v` shadows the global one.
        let v: Vec<&crate::Variable> = m.steps()[2]
            .scope
            .iter()
            .filter(|x| x.name == "v")
            .collect();
        assert_eq!(v.len(), 1);
        assert_eq!(m.steps()[1].text, "switch (mode)");
        assert_eq!(m.steps()[9].loop_depth, 1);
        assert!(m.steps()[7].scope.iter().any(|x| x.name == "k"));
        assert!(!m.steps()[10].scope.iter().any(|x| x.name == "k"));
    }

    #[test]
    fn overloads_are_resolved_by_argument_types() {
        let src = "#version 330 core
out vec4 o;
float f(float x) { return x; }
vec3 f(vec3 v) { return v * 2.0; }
float f(float x, float y) { return x + y; }
void main() {
    vec3 c = vec3(1.0);
    float a = f(c.x) + f(1.0, 2.0);
    o = vec4(f(c), f(a));
}
";
        let m = model(src);
        let target = |step: usize, k: usize| {
            let f = m.model.info[step].call_targets[k].unwrap();
            m.model.functions[f].params.join(",")
        };
        let a = m.steps_on_line(8)[0].0 as usize;
        let o = m.steps_on_line(9)[0].0 as usize;
        assert_eq!(m.steps()[o].calls, vec!["f".to_string(), "f".to_string()]);
        assert_eq!(
            (target(a, 0), target(a, 1)),
            ("float".to_string(), "float,float".to_string())
        );
        assert_eq!(
            (target(o, 0), target(o, 1)),
            ("vec3".to_string(), "float".to_string())
        );
    }
}
