//! Whether the outputs a probe expression reads were written yet.
//!
//! An output (`gl_FragColor`, `gl_Position`, a user `out`) is undefined
//! until the invocation writes it, and so is each component a partial
//! write (`gl_FragColor.rgb = ...`) leaves out. The *written probe* of an
//! expression tracks this per invocation on the path it takes: each
//! tracked output gets a mirror global of `bool`/`bvecN` (an array of
//! them for an output array), cleared at the start of `main`; every
//! statement that assigns the output (`=`) also sets the mirror of what it
//! assigned: `(gl_FragData[i].xy = e, w[i].xy = bvec2(true))`. The probe
//! then hands out, instead of the expression's value, the mirror of what
//! it reads: per component where the expression is an output, its swizzle
//! or element, else one `bool` (all it reads written).
//!
//! Locals of `main` declared without an initializer (outside loops, one
//! declaration of the name) are tracked the same way while the probe is in
//! `main` (or at its end): a local read before any assignment is undefined.
//!
//! A name passed to a function call (it may be an `out` argument) is not
//! tracked, nor an output the stage's other shader objects name (their
//! writes are not followed). Where a write cannot be followed (nested in a larger
//! expression, an index with side effects, a matrix column, a whole array)
//! the mirror stays false and the value is reported as not written.
//! Structs and interface blocks are not tracked (reported as written).

use glsl_lang::ast;

use super::{and, assign, boolean, call, comma, int, var};
use crate::parse::{Names, expr_text};
use crate::steps::walk_expr;
use crate::{ShaderModel, Stage};

/// What a mirror holds for one output (or one array element).
#[derive(Clone, Debug, PartialEq)]
enum Shape {
    /// One flag: a scalar, or a value only tracked whole (a matrix).
    Flag,
    /// One flag per component of a vector.
    Vector(u8),
    /// An array of the element shape; the size as GLSL text.
    Array(Box<Shape>, String),
}

/// One tracked output (or local of `main`) and its mirror global.
#[derive(Clone, Debug)]
pub(super) struct Tracked {
    name: String,
    mirror: String,
    shape: Shape,
    /// A local: only `main`'s assignments set it.
    local: bool,
}

/// The tracked outputs of a shader and what the written probe adds.
pub(super) struct Written {
    tracked: Vec<Tracked>,
    /// Geometry: the function clearing every mirror, called after each
    /// `EmitVertex()`/`EmitStreamVertex()` (outputs are undefined after it).
    reset: Option<String>,
}

/// The shape of a (non-array) type name.
fn base_shape(ty: &str) -> Option<Shape> {
    match ty {
        "float" | "int" | "uint" | "bool" | "double" => Some(Shape::Flag),
        _ => {
            let n = ty.strip_prefix(['i', 'u', 'b', 'd']).unwrap_or(ty);
            match n.strip_prefix("vec").and_then(|k| k.parse::<u8>().ok()) {
                Some(k @ 2..=4) => Some(Shape::Vector(k)),
                _ if n.starts_with("mat") => Some(Shape::Flag),
                _ => None,
            }
        }
    }
}

/// The built-in outputs of `stage` (name, shape).
fn builtins(stage: Stage) -> Vec<(&'static str, Shape)> {
    let v4 = || Shape::Vector(4);
    let arr = |s: Shape, n: &str| Shape::Array(Box::new(s), n.to_string());
    match stage {
        Stage::Fragment => vec![
            ("gl_FragColor", v4()),
            ("gl_FragData", arr(v4(), "gl_MaxDrawBuffers")),
            ("gl_FragDepth", Shape::Flag),
        ],
        Stage::Vertex | Stage::TessEval | Stage::Geometry => vec![
            ("gl_Position", v4()),
            ("gl_PointSize", Shape::Flag),
            ("gl_ClipVertex", v4()),
            ("gl_ClipDistance", arr(Shape::Flag, "gl_MaxClipDistances")),
            ("gl_FrontColor", v4()),
            ("gl_BackColor", v4()),
            ("gl_FrontSecondaryColor", v4()),
            ("gl_BackSecondaryColor", v4()),
            ("gl_TexCoord", arr(v4(), "gl_MaxTextureCoords")),
            ("gl_FogFragCoord", Shape::Flag),
        ],
        Stage::TessControl | Stage::Compute => Vec::new(),
    }
}

/// Whether a global declaration is an output of `stage`.
fn is_output(q: &Option<ast::TypeQualifier>, stage: Stage) -> bool {
    q.as_ref().is_some_and(|q| {
        q.qualifiers.iter().any(|s| match &s.content {
            ast::TypeQualifierSpecData::Storage(st) => match &st.content {
                ast::StorageQualifierData::Out => true,
                ast::StorageQualifierData::Varying => stage != Stage::Fragment,
                _ => false,
            },
            _ => false,
        })
    })
}

/// The user outputs declared in `decls` (name, shape): plain globals of a
/// scalar, vector or matrix type, or one-dimensional sized arrays of them.
fn user_outputs(decls: &[ast::ExternalDeclaration], stage: Stage) -> Vec<(String, Shape)> {
    let mut out = Vec::new();
    for d in decls {
        let ast::ExternalDeclarationData::Declaration(decl) = &d.content else {
            continue;
        };
        let ast::DeclarationData::InitDeclaratorList(list) = &decl.content else {
            continue;
        };
        if is_output(&list.head.ty.qualifier, stage) {
            declared(list, false, &mut out);
        }
    }
    out
}

/// The names `list` declares with their shapes, where the shape is known
/// (`uninitialized`: only those without an initializer).
fn declared(list: &ast::InitDeclaratorList, uninitialized: bool, out: &mut Vec<(String, Shape)>) {
    let ts = &list.head.ty.ty;
    let plain: ast::TypeSpecifier = ast::TypeSpecifierData {
        ty: ts.ty.clone(),
        array_specifier: None,
    }
    .into();
    let Some(base) = base_shape(&crate::steps::type_string(&plain, None)) else {
        return;
    };
    let heads = list.head.name.iter().map(|n| {
        let init = list.head.initializer.is_some();
        (n.0.to_string(), list.head.array_specifier.as_ref(), init)
    });
    let tails = list.tail.iter().map(|t| {
        let init = t.initializer.is_some();
        (
            t.ident.ident.0.to_string(),
            t.ident.array_spec.as_ref(),
            init,
        )
    });
    for (name, own, init) in heads.chain(tails) {
        if uninitialized && init {
            continue;
        }
        let dims: Vec<&ast::ArraySpecifierDimension> = own
            .into_iter()
            .chain(ts.array_specifier.iter())
            .flat_map(|a| a.dimensions.iter())
            .collect();
        let shape = match dims.as_slice() {
            [] => base.clone(),
            [d] => match &d.content {
                ast::ArraySpecifierDimensionData::ExplicitlySized(n) => {
                    Shape::Array(Box::new(base.clone()), expr_text(n))
                }
                ast::ArraySpecifierDimensionData::Unsized => continue,
            },
            _ => continue,
        };
        out.push((name, shape));
    }
}

/// The names `list` declares.
fn names_of(list: &ast::InitDeclaratorList) -> Vec<String> {
    let head = list.head.name.iter().map(|n| n.0.to_string());
    let tail = list.tail.iter().map(|t| t.ident.ident.0.to_string());
    head.chain(tail).collect()
}

/// Every name `main` declares (`names`), and in `out` the uninitialized
/// ones declared outside loops.
fn main_locals(
    s: &ast::Statement,
    in_loop: bool,
    names: &mut Vec<String>,
    out: &mut Vec<(String, Shape)>,
) {
    use ast::IterationStatementData as It;
    use ast::StatementData as S;
    if let S::Iteration(it) = &s.content
        && let It::For(init, _, b) = &it.content
    {
        if let ast::ForInitStatementData::Declaration(d) = &init.content
            && let ast::DeclarationData::InitDeclaratorList(list) = &d.content
        {
            names.extend(names_of(list));
        }
        return main_locals(b, true, names, out);
    }
    let mut each = |x: &ast::Statement, in_loop| main_locals(x, in_loop, names, out);
    match &s.content {
        S::Declaration(d) => {
            if let ast::DeclarationData::InitDeclaratorList(list) = &d.content {
                names.extend(names_of(list));
                if !in_loop {
                    declared(list, true, out);
                }
            }
        }
        S::Compound(c) => c.statement_list.iter().for_each(|x| each(x, in_loop)),
        S::Switch(sw) => sw.body.iter().for_each(|x| each(x, in_loop)),
        S::Selection(sel) => match &sel.rest.content {
            ast::SelectionRestStatementData::Statement(t) => each(t, in_loop),
            ast::SelectionRestStatementData::Else(t, e) => {
                each(t, in_loop);
                each(e, in_loop);
            }
        },
        S::Iteration(it) => match &it.content {
            It::While(_, b) | It::DoWhile(b, _) => each(b, true),
            It::For(_, _, b) => each(b, true), // handled above
        },
        _ => {}
    }
}

/// The locals of `main` a written probe tracks: declared once in `main`,
/// outside loops, without an initializer.
fn uninitialized_locals(decls: &[ast::ExternalDeclaration]) -> Vec<(String, Shape)> {
    let main = decls.iter().find_map(|d| match &d.content {
        ast::ExternalDeclarationData::FunctionDefinition(f)
            if f.prototype.name.as_str() == "main" =>
        {
            Some(f)
        }
        _ => None,
    });
    let Some(main) = main else {
        return Vec::new();
    };
    let (mut names, mut out) = (Vec::new(), Vec::new());
    for s in &main.statement.statement_list {
        main_locals(s, false, &mut names, &mut out);
    }
    out.retain(|(n, _)| names.iter().filter(|m| *m == n).count() == 1);
    out
}

/// The names passed (whole, indexed or swizzled) to a function call
/// anywhere in `decls`: they may be `out` arguments.
fn call_arguments(decls: &[ast::ExternalDeclaration]) -> std::collections::HashSet<String> {
    let mut names = std::collections::HashSet::new();
    for d in decls {
        if let ast::ExternalDeclarationData::FunctionDefinition(def) = &d.content {
            let mut body = def.statement.clone();
            for s in &mut body.statement_list {
                crate::steps::walk_stmt_exprs(s, &mut |e| {
                    if let ast::ExprData::FunCall(id, args) = &e.content
                        && id.as_ident().is_some()
                    {
                        for a in args {
                            if let Some((root, _)) = chain(a) {
                                names.insert(root.to_string());
                            }
                        }
                    }
                });
            }
        }
    }
    names
}

/// An lvalue-like chain: a variable, then indices and swizzles.
enum Op<'a> {
    Index(&'a ast::Expr),
    Field(&'a str),
}

fn chain(e: &ast::Expr) -> Option<(&str, Vec<Op<'_>>)> {
    match &e.content {
        ast::ExprData::Variable(v) => Some((v.as_str(), Vec::new())),
        ast::ExprData::Bracket(a, i) => chain(a).map(|(r, mut ops)| {
            ops.push(Op::Index(i));
            (r, ops)
        }),
        ast::ExprData::Dot(a, f) => chain(a).map(|(r, mut ops)| {
            ops.push(Op::Field(f.as_str()));
            (r, ops)
        }),
        _ => None,
    }
}

/// Whether evaluating `e` twice is the same as once: no assignment,
/// increment or call of a function of the shader.
fn pure(e: &ast::Expr, user: &std::collections::HashSet<String>) -> bool {
    let mut ok = true;
    let mut e = e.clone();
    walk_expr(&mut e, &mut |x| match &x.content {
        ast::ExprData::Assignment(..) | ast::ExprData::PostInc(_) | ast::ExprData::PostDec(_) => {
            ok = false
        }
        ast::ExprData::Unary(op, _)
            if matches!(op.content, ast::UnaryOpData::Inc | ast::UnaryOpData::Dec) =>
        {
            ok = false
        }
        ast::ExprData::FunCall(..)
            if crate::steps::call_name(x).is_none_or(|(n, _)| user.contains(n)) =>
        {
            ok = false
        }
        _ => {}
    });
    ok
}

fn bvec(n: u8, b: bool) -> ast::Expr {
    match n {
        1 => boolean(b),
        n => call(&format!("bvec{n}"), vec![boolean(b)]),
    }
}

impl Written {
    /// The outputs of `m` a written probe tracks.
    /// Built-ins only where the shader or `probe` names them (their array
    /// sizes are constants of some GLSL versions only); `main`'s locals
    /// where the probe is in `main` itself (`in_main`).
    pub(super) fn new(
        m: &ShaderModel,
        probe: &ast::Expr,
        in_main: bool,
        names: &mut Names,
    ) -> Written {
        let mut named = std::collections::HashSet::new();
        walk_expr(&mut probe.clone(), &mut |x| {
            if let ast::ExprData::Variable(v) = &x.content {
                named.insert(v.as_str().to_string());
            }
        });
        let mut tracked = Vec::new();
        let outputs = builtins(m.stage)
            .into_iter()
            .filter(|(n, _)| named.contains(*n) || m.idents.contains(*n))
            .map(|(n, s)| (n.to_string(), s))
            .chain(user_outputs(&m.tu.0, m.stage))
            .map(|(n, s)| (n, s, false));
        let locals = match in_main {
            true => uninitialized_locals(&m.tu.0),
            false => Vec::new(),
        };
        let passed = call_arguments(&m.tu.0);
        // What the stage's other shader objects name (they may write it).
        let mut in_siblings = std::collections::HashSet::new();
        for sib in &m.siblings {
            crate::parse::words(sib, &mut in_siblings);
        }
        for (name, shape, local) in outputs.chain(locals.into_iter().map(|(n, s)| (n, s, true))) {
            if passed.contains(&name)
                || (!local && in_siblings.contains(&name))
                || tracked.iter().any(|t: &Tracked| t.name == name)
            {
                continue;
            }
            let mirror = names.fresh(&format!("gldbg_w_{}", name.trim_start_matches("gl_")));
            tracked.push(Tracked {
                name,
                mirror,
                shape,
                local,
            });
        }
        let reset = (m.stage == Stage::Geometry).then(|| names.fresh("gldbg_unwritten"));
        Written { tracked, reset }
    }

    fn find(&self, name: &str) -> Option<&Tracked> {
        self.tracked.iter().find(|t| t.name == name)
    }

    /// The mirror of a chain rooted at a tracked output and its shape;
    /// `None` where the chain cannot be followed.
    fn mirror_of(&self, root: &str, ops: &[Op<'_>]) -> Option<(ast::Expr, Shape)> {
        let t = self.find(root)?;
        let mut e = var(&t.mirror);
        let mut shape = t.shape.clone();
        for op in ops {
            match (&shape, op) {
                // A flag covers the whole value (a matrix's column too).
                (Shape::Flag, _) => return Some((e, Shape::Flag)),
                (Shape::Vector(_), Op::Index(i)) => {
                    e = ast::ExprData::Bracket(Box::new(e), Box::new((*i).clone())).into();
                    shape = Shape::Flag;
                }
                (Shape::Vector(_), Op::Field(f)) => {
                    let n = f.len() as u8;
                    if !(1..=4).contains(&n) {
                        return None;
                    }
                    e = ast::ExprData::Dot(Box::new(e), ast::IdentifierData::from(*f).into())
                        .into();
                    shape = if n == 1 {
                        Shape::Flag
                    } else {
                        Shape::Vector(n)
                    };
                }
                (Shape::Array(elem, _), Op::Index(i)) => {
                    e = ast::ExprData::Bracket(Box::new(e), Box::new((*i).clone())).into();
                    shape = (**elem).clone();
                }
                (Shape::Array(..), Op::Field(_)) => return None,
            }
        }
        Some((e, shape))
    }

    /// The mark a statement-level `lhs = ...` needs: `mirror = true`.
    fn mark(&self, lhs: &ast::Expr, user: &std::collections::HashSet<String>) -> Option<ast::Expr> {
        let (root, ops) = chain(lhs)?;
        let t = self.find(root)?;
        let pure_ops = ops.iter().all(|op| match op {
            Op::Index(i) => pure(i, user),
            Op::Field(_) => true,
        });
        if !pure_ops {
            return None;
        }
        // A matrix column (or any part of a flag-tracked value) is not the whole.
        if t.shape == Shape::Flag && !ops.is_empty() {
            return None;
        }
        let (mirror, shape) = self.mirror_of(root, &ops)?;
        let value = match shape {
            Shape::Flag => boolean(true),
            Shape::Vector(n) => bvec(n, true),
            Shape::Array(..) => return None,
        };
        Some(assign(mirror, value))
    }

    /// Set the mirrors where the statements of every function assign a
    /// tracked output (expressions only: the step paths stay valid).
    pub(super) fn track(
        &self,
        decls: &mut [ast::ExternalDeclaration],
        user: &std::collections::HashSet<String>,
    ) {
        let outputs = Written {
            reset: self.reset.clone(),
            tracked: self.tracked.iter().filter(|t| !t.local).cloned().collect(),
        };
        for d in decls {
            if let ast::ExternalDeclarationData::FunctionDefinition(def) = &mut d.content {
                let w = match def.prototype.name.as_str() {
                    "main" => self,
                    _ => &outputs,
                };
                for s in &mut def.statement.statement_list {
                    w.track_stmt(s, user);
                }
            }
        }
    }

    fn track_top(&self, e: &mut ast::Expr, user: &std::collections::HashSet<String>) {
        let emits = crate::steps::call_name(e)
            .is_some_and(|(n, _)| matches!(n, "EmitVertex" | "EmitStreamVertex"));
        if let Some(reset) = &self.reset
            && emits
        {
            super::wrap_expr(e, |e| comma(e, call(reset, vec![])));
            return;
        }
        match &mut e.content {
            ast::ExprData::Comma(a, b) => {
                self.track_top(a, user);
                self.track_top(b, user);
            }
            ast::ExprData::Assignment(lhs, op, _)
                if matches!(op.content, ast::AssignmentOpData::Equal) =>
            {
                if let Some(mark) = self.mark(lhs, user) {
                    super::wrap_expr(e, |e| comma(e, mark));
                }
            }
            _ => {}
        }
    }

    fn track_stmt(&self, s: &mut ast::Statement, user: &std::collections::HashSet<String>) {
        use ast::IterationStatementData as It;
        use ast::StatementData as S;
        match &mut s.content {
            S::Expression(es) => {
                if let Some(e) = &mut es.0 {
                    self.track_top(e, user);
                }
            }
            S::Compound(c) => c
                .statement_list
                .iter_mut()
                .for_each(|x| self.track_stmt(x, user)),
            S::Switch(sw) => sw.body.iter_mut().for_each(|x| self.track_stmt(x, user)),
            S::Selection(sel) => match &mut sel.rest.content {
                ast::SelectionRestStatementData::Statement(t) => self.track_stmt(t, user),
                ast::SelectionRestStatementData::Else(t, e) => {
                    self.track_stmt(t, user);
                    self.track_stmt(e, user);
                }
            },
            S::Iteration(it) => match &mut it.content {
                It::While(_, b) | It::DoWhile(b, _) => self.track_stmt(b, user),
                It::For(init, rest, b) => {
                    if let ast::ForInitStatementData::Expression(Some(e)) = &mut init.content {
                        self.track_top(e, user);
                    }
                    if let Some(e) = &mut rest.post_expr {
                        self.track_top(e, user);
                    }
                    self.track_stmt(b, user);
                }
            },
            _ => {}
        }
    }

    /// The outputs `e` reads, as (root, mirror expression and shape); an
    /// output whose mirror cannot be followed gives `None` for the whole.
    fn reads(&self, e: &ast::Expr, out: &mut Vec<(ast::Expr, Shape)>) -> bool {
        if let Some((root, ops)) = chain(e)
            && self.find(root).is_some()
        {
            return match self.mirror_of(root, &ops) {
                Some(m) => {
                    out.push(m);
                    true
                }
                None => false,
            };
        }
        use ast::ExprData as E;
        match &e.content {
            E::Variable(_)
            | E::IntConst(_)
            | E::UIntConst(_)
            | E::BoolConst(_)
            | E::FloatConst(_)
            | E::DoubleConst(_) => true,
            E::Unary(_, a) | E::Dot(a, _) | E::PostInc(a) | E::PostDec(a) => self.reads(a, out),
            E::Binary(_, a, b) | E::Assignment(a, _, b) | E::Bracket(a, b) | E::Comma(a, b) => {
                self.reads(a, out) && self.reads(b, out)
            }
            E::Ternary(a, b, c) => self.reads(a, out) && self.reads(b, out) && self.reads(c, out),
            E::FunCall(_, args) => args.iter().all(|a| self.reads(a, out)),
        }
    }

    /// The written-probe expression of `e`: `bool`/`bvecN` per component
    /// where `e` is an output (part), else one `bool`; `None` when `e`
    /// reads no tracked output (or one it cannot follow).
    pub(super) fn expr(&self, e: &ast::Expr) -> Option<ast::Expr> {
        let mut found = Vec::new();
        if !self.reads(e, &mut found) || found.is_empty() {
            return None;
        }
        if let (Some((root, _)), [(m, Shape::Flag | Shape::Vector(_))]) =
            (chain(e), found.as_slice())
            && self.find(root).is_some()
        {
            return Some(m.clone());
        }
        let mut all: Option<ast::Expr> = None;
        for (m, shape) in found {
            let flag = flag_of(m, &shape)?;
            all = Some(match all {
                Some(a) => and(a, flag),
                None => flag,
            });
        }
        all
    }

    /// Declarations of the mirrors (global, uninitialized).
    pub(super) fn decls(&self, names: &mut Names) -> String {
        let mut s = self.mirrors();
        if let Some(reset) = &self.reset {
            s.push_str(&format!(
                "void {reset}() {{\n{}}}\n",
                self.clear_statements(names)
            ));
        }
        s
    }

    /// The mirrors' declarations.
    fn mirrors(&self) -> String {
        let mut s = String::new();
        for t in &self.tracked {
            let line = match &t.shape {
                Shape::Flag => format!("bool {};\n", t.mirror),
                Shape::Vector(n) => format!("bvec{n} {};\n", t.mirror),
                Shape::Array(elem, size) => match **elem {
                    Shape::Vector(n) => format!("bvec{n} {}[{size}];\n", t.mirror),
                    _ => format!("bool {}[{size}];\n", t.mirror),
                },
            };
            s.push_str(&line);
        }
        s
    }

    /// Statements clearing every mirror (the start of `main`).
    pub(super) fn clear(&self, names: &mut Names) -> String {
        match &self.reset {
            Some(reset) => format!("    {reset}();\n"),
            None => self.clear_statements(names),
        }
    }

    fn clear_statements(&self, names: &mut Names) -> String {
        let mut s = String::new();
        for t in &self.tracked {
            match &t.shape {
                Shape::Array(elem, size) => {
                    let i = names.fresh("gldbg_k");
                    let v = match **elem {
                        Shape::Vector(n) => format!("bvec{n}(false)"),
                        _ => "false".into(),
                    };
                    s.push_str(&format!(
                        "    for (int {i} = 0; {i} < ({size}); {i}++) {}[{i}] = {v};\n",
                        t.mirror
                    ));
                }
                Shape::Vector(n) => s.push_str(&format!("    {} = bvec{n}(false);\n", t.mirror)),
                Shape::Flag => s.push_str(&format!("    {} = false;\n", t.mirror)),
            }
        }
        s
    }
}

/// One `bool`: everything `m` (of `shape`) covers is written.
fn flag_of(m: ast::Expr, shape: &Shape) -> Option<ast::Expr> {
    match shape {
        Shape::Flag => Some(m),
        Shape::Vector(_) => Some(call("all", vec![m])),
        Shape::Array(elem, size) => {
            let n: i32 = size.trim().parse().ok()?;
            let mut all: Option<ast::Expr> = None;
            for k in 0..n {
                let e = ast::ExprData::Bracket(Box::new(m.clone()), Box::new(int(k))).into();
                let f = flag_of(e, elem)?;
                all = Some(match all {
                    Some(a) => and(a, f),
                    None => f,
                });
            }
            all
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Probe, Semantics, ShaderModel, Stage};

    fn written(src: &str, stage: Stage, line: u32, expr: &str) -> Option<String> {
        let m = ShaderModel::parse(src, stage).unwrap();
        let pos = crate::Position {
            step: m.steps_on_line(line)[0],
            calls: vec![],
            iterations: vec![],
        };
        let probe = Probe {
            position: &pos,
            expr: Some(expr),
            semantics: Semantics::ReportDiscarded,
        };
        m.instrument_written(&probe, false)
            .unwrap()
            .map(|i| i.source)
    }

    const FRAG: &str = "#version 110
uniform float t;
void main() {
    float a = t * 2.0;
    if (t > 0.5)
        gl_FragColor.rgb = vec3(a);
    gl_FragData[1] = vec4(a);
    gl_FragColor.a = 1.0;
}
";

    #[test]
    fn writes_set_the_mirror_of_what_they_assign_on_the_path_taken() {
        let s = written(FRAG, Stage::Fragment, 8, "gl_FragColor").unwrap();
        // Cleared at the start, set after each write, on its branch.
        assert!(s.contains("bvec4 gldbg_w_FragColor;\n"), "{s}");
        assert!(s.contains("    gldbg_w_FragColor = bvec4(false);\n"), "{s}");
        assert!(
            s.contains(
                "if (t > 0.5) gl_FragData[0].rgb = vec3(a), gldbg_w_FragColor.rgb = bvec3(true);"
            ),
            "{s}"
        );
        assert!(s.contains("gldbg_w_FragColor.a = true;"), "{s}");
        assert!(s.contains("gldbg_w_FragData[1] = bvec4(true);"), "{s}");
        assert!(
            s.contains("for (int gldbg_k = 0; gldbg_k < (gl_MaxDrawBuffers); gldbg_k++) gldbg_w_FragData[gldbg_k] = bvec4(false);"),
            "{s}"
        );
        // The probe hands out the mirror, per component.
        assert!(
            s.contains("gldbg_c = gldbg_store(gldbg_w_FragColor);"),
            "{s}"
        );
        let s = written(FRAG, Stage::Fragment, 8, "gl_FragColor.ab").unwrap();
        assert!(s.contains("gldbg_store(gldbg_w_FragColor.ab)"), "{s}");
        // Another expression: one flag for all it reads.
        let s = written(
            FRAG,
            Stage::Fragment,
            8,
            "gl_FragColor.r * a + gl_FragData[1].x",
        )
        .unwrap();
        assert!(
            s.contains("gldbg_store(gldbg_w_FragColor.r && gldbg_w_FragData[1].x)"),
            "{s}"
        );
        // No output read: no written probe.
        assert_eq!(written(FRAG, Stage::Fragment, 8, "a * t"), None);
    }

    #[test]
    fn user_outputs_and_vertex_builtins_are_tracked() {
        let src = "#version 330 core
in vec4 p;
out vec3 c;
out float k[2];
void main() {
    int i = 1;
    k[i] = 1.0;
    c = p.xyz;
    gl_Position = p;
}
";
        let s = written(src, Stage::Vertex, 9, "gl_Position").unwrap();
        assert!(s.contains("bvec4 gldbg_w_Position;"), "{s}");
        assert!(
            s.contains("gl_Position = p, gldbg_w_Position = bvec4(true);"),
            "{s}"
        );
        let s = written(src, Stage::Vertex, 9, "k[0] + k[1]").unwrap();
        assert!(s.contains("k[i] = 1., gldbg_w_k[i] = true;"), "{s}");
        assert!(
            s.contains("gldbg_store(gldbg_w_k[0] && gldbg_w_k[1])"),
            "{s}"
        );
        let s = written(src, Stage::Vertex, 9, "c").unwrap();
        assert!(s.contains("c = p.xyz, gldbg_w_c = bvec3(true);"), "{s}");
    }

    #[test]
    fn locals_of_main_without_initializer_are_tracked_unless_passed_to_a_call() {
        let src = "#version 330 core
uniform float t;
out vec4 o;
float f(out float y) { float x; y = 1.0; x = y; return x; }
void main() {
    float x;
    float z;
    float g = f(z);
    if (t > 0.5) x = 1.0;
    o = vec4(x, z, g, 1.0);
}
";
        let s = written(src, Stage::Fragment, 10, "x").unwrap();
        assert!(s.contains("if (t > 0.5) x = 1., gldbg_w_x = true;"), "{s}");
        assert!(s.contains("gldbg_store(gldbg_w_x)"), "{s}");
        // f's own `x` is another variable: its writes set nothing.
        assert!(s.contains("x = y;\n"), "{s}");
        // `z` may be written through `out`: not tracked.
        assert_eq!(written(src, Stage::Fragment, 10, "z"), None);
        // Inside f, main's locals are not tracked.
        assert_eq!(written(src, Stage::Fragment, 4, "x"), None);
    }

    #[test]
    fn geometry_outputs_are_unwritten_again_after_each_emit() {
        let src = "#version 150
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
out vec4 c;
void main() {
    for (int i = 0; i < 3; i++) {
        gl_Position = gl_in[i].gl_Position;
        c = vec4(1.0);
        EmitVertex();
    }
    EndPrimitive();
}
";
        let s = written(src, Stage::Geometry, 11, "gl_Position").unwrap();
        assert!(s.contains("void gldbg_unwritten() {\n"), "{s}");
        assert!(
            s.contains("gldbg_put(), EmitVertex(), gldbg_unwritten();"),
            "{s}"
        );
        assert!(
            s.contains("    gldbg_unwritten();\n}\nvoid gldbg_end() {"),
            "{s}"
        );
    }
}
