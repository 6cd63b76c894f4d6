//! The static step model: walks every function body in source order and
//! records its steps (statements, conditions, loop parts, jumps) with
//! position, text, scope, loop depth and user calls; the tree path that
//! finds each step again in the AST (for the instrumenter); and each step's
//! static flow targets (for `successors`, see flow.rs).

use std::collections::{HashMap, HashSet};

use glsl_lang::ast;
use glsl_lang::transpiler::glsl as printer;

use crate::parse::{expr_text, line_col, one_line, stmt_text};
use crate::{ConditionKind, Step, StepCondition, StepId, StepKind, Variable};

mod decl;
mod edges;
mod overload;
mod walk;

pub(crate) use decl::{
    builtin_scope, declared_variables, parameter_types, qualifies_only, type_string,
};
use decl::{parameters, struct_name};
use edges::entry;
use overload::resolve_overload;
pub(crate) use walk::{call_name, step_exprs, walk_expr, walk_stmt_exprs};

/// Characters of a step's display text ([`Step::text`]); longer ones are
/// cut and end in `...`.
const MAX_STEP_TEXT: usize = 120;

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
        if text.chars().count() > MAX_STEP_TEXT {
            text = text.chars().take(MAX_STEP_TEXT - 3).collect::<String>() + "...";
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
            condition: None,
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

    /// Record the condition step `step` tests: `text` (whole, one line)
    /// at `span` of the source.
    fn set_condition(
        &mut self,
        step: u32,
        kind: ConditionKind,
        text: String,
        span: Option<ast::NodeSpan>,
    ) {
        let span = span.map(|s| usize::from(s.start().offset)..usize::from(s.end().offset));
        self.model.steps[step as usize].condition = Some(StepCondition { kind, text, span });
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
                let cspan = sel.cond.span;
                let inner = self.text_of(cspan, expr_text(&sel.cond));
                let text = format!("if ({inner})");
                let cond =
                    self.add_step(StepKind::IfCondition, Part::IfCond, cspan.or(span), text, s);
                self.set_condition(cond, ConditionKind::If, inner, cspan);
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
                let hspan = sw.head.span;
                let inner = self.text_of(hspan, expr_text(&sw.head));
                let text = format!("switch ({inner})");
                let head = self.add_step(
                    StepKind::IfCondition,
                    Part::SwitchHead,
                    hspan.or(span),
                    text,
                    s,
                );
                self.set_condition(head, ConditionKind::Switch, inner, hspan);
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
                    let id =
                        self.add_step(StepKind::LoopCondition, Part::LoopCond, sp, text.clone(), s);
                    self.set_condition(id, ConditionKind::For, text, sp);
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
                let (sp, inner, var) = (
                    c.span,
                    self.text_of(c.span, condition_text(c)),
                    condition_var(c),
                );
                self.loops.push(loop_path_len);
                let text = format!("while ({inner})");
                let cond = self.add_step(
                    StepKind::LoopCondition,
                    Part::LoopCond,
                    sp.or(s.span),
                    text,
                    s,
                );
                self.set_condition(cond, ConditionKind::While, inner, sp);
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
                let (sp, inner) = (e.span, self.text_of(e.span, expr_text(e)));
                self.loops.push(loop_path_len);
                let body = Box::new(self.visit_body(s));
                let text = format!("while ({inner})");
                let cond = self.add_step(
                    StepKind::LoopCondition,
                    Part::LoopCond,
                    sp.or(s.span),
                    text,
                    s,
                );
                self.set_condition(cond, ConditionKind::Do, inner, sp);
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

    #[test]
    fn condition_steps_carry_their_condition_from_the_ast() {
        use crate::{ConditionKind, StepCondition};
        let src = "#version 330 core
uniform float t;
uniform int mode;
in vec2 p;
out vec4 color;
float f(float x) { return x; }
void main() {
    float a = 1.0, b = 2.0, x = p.y;
    if (p.x > t) { color = vec4(1.0); }
    switch (mode) { case 0: color = vec4(0.0); break; default: break; }
    while (f(x) < (a + b)) { x += 1.0; }
    for (int i = 0; i < 4; i++) { x -= 0.5; }
    do { x += 0.25; } while (x < 3.0);
    if (x > 0.0 && x < 1.0 && x < 2.0 && x < 3.0 && x < 4.0 && x < 5.0 && x < 6.0 && x < 7.0 && x < 8.0 && x < 9.0 && x < 10.0) { x = 0.0; }
}
";
        let m = model(src);
        let conds: Vec<(ConditionKind, &str)> = m
            .steps()
            .iter()
            .filter_map(|s| s.condition.as_ref().map(|c| (c.kind, c.text.as_str())))
            .collect();
        let long = "x > 0.0 && x < 1.0 && x < 2.0 && x < 3.0 && x < 4.0 && x < 5.0 && x < 6.0 && x < 7.0 && x < 8.0 && x < 9.0 && x < 10.0";
        assert_eq!(
            conds,
            [
                (ConditionKind::If, "p.x > t"),
                (ConditionKind::Switch, "mode"),
                (ConditionKind::While, "f(x) < (a + b)"),
                (ConditionKind::For, "i < 4"),
                (ConditionKind::Do, "x < 3.0"),
                (ConditionKind::If, long),
            ]
        );
        // The display text is shortened; the condition is not.
        let last = m.steps().iter().rfind(|s| s.condition.is_some()).unwrap();
        assert!(last.text.ends_with("..."), "{}", last.text);
        // Every condition step has one, no other step does, and the span
        // is the condition's text in the source.
        for s in m.steps() {
            let is_cond = matches!(s.kind, StepKind::IfCondition | StepKind::LoopCondition);
            assert_eq!(s.condition.is_some(), is_cond, "{s:?}");
            if let Some(StepCondition {
                text,
                span: Some(span),
                ..
            }) = &s.condition
            {
                assert_eq!(&src[span.clone()], text.as_str());
            }
        }
        assert_eq!(ConditionKind::Do.keyword(), "do");
    }
}
