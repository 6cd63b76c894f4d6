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
//! The `out`/`inout` parameters of every function are tracked inside it,
//! and a call copies them from and back to its arguments' mirrors; how
//! each kind of write is followed is in `written/track.rs`.
//!
//! Where gldbg cannot tell (a write it cannot follow, an output the
//! stage's other shader objects name (their writes are not followed), a
//! struct or interface-block output, a tess-control output, an array whose
//! size is not a constant, a local that hides an output, an uninitialized
//! local it does not track, an `out` parameter of the probe's function),
//! the probe does not claim either way: it is
//! [`InstrumentError::WrittenUnknown`] with the names, and the value is
//! shown with a note that gldbg cannot tell whether it was written.

mod track;

use std::collections::{BTreeSet, HashSet};

use glsl_lang::ast;

use super::{and, assign, boolean, call, comma, int, var};
use crate::parse::{Names, expr_text};
use crate::steps::walk_expr;
use crate::{ShaderModel, Stage};

/// What a mirror holds for one output (or one array element).
#[derive(Clone, Debug, PartialEq)]
enum Shape {
    /// One flag: a scalar.
    Flag,
    /// One flag per component of a vector.
    Vector(u8),
    /// An array of the element shape (a matrix: of its columns); the
    /// size as GLSL text.
    Array(Box<Shape>, String),
}

/// One tracked output (or local of `main`) and its mirror global.
#[derive(Clone, Debug)]
pub(super) struct Tracked {
    name: String,
    mirror: String,
    shape: Shape,
    /// Where the name is declared: a function (its index among the
    /// declarations: a local of `main`, a parameter), or `None`: global.
    scope: Option<usize>,
}

/// An `out`/`inout` parameter of a function (or an `in` one).
pub(super) struct Param {
    /// `out` or `inout`.
    writes: bool,
    /// `inout`: the argument's value (and mirror) is copied in.
    copy_in: bool,
    /// Its mirror and shape; `None` where it is not tracked.
    mirror: Option<(String, Shape)>,
}

/// The tracked outputs of a shader and what the written probe adds.
pub(super) struct Written {
    tracked: Vec<Tracked>,
    /// The scope the probe reads names in (`main` where it is in `main`).
    probe_scope: Option<usize>,
    /// The names the probe's function declares itself: a global of the
    /// same name the probe reads may be the local (cannot tell).
    probe_shadow: HashSet<String>,
    /// Outputs gldbg cannot track (structs, blocks, tess-control outputs).
    untracked: BTreeSet<String>,
    /// Every function definition: name and index among the declarations.
    defs: Vec<(String, usize)>,
    /// The parameters of each function definition (by index).
    params: std::collections::HashMap<usize, Vec<Param>>,
    /// Geometry: the function clearing every mirror, called after each
    /// `EmitVertex()`/`EmitStreamVertex()` (outputs are undefined after it).
    reset: Option<String>,
    /// Functions returning a value with tracked parameters: the global
    /// `int` naming the call site their returns copy the parameters'
    /// mirrors back to (0: none; see `written/track.rs`).
    site_vars: std::collections::HashMap<usize, String>,
}

/// The shape of a (non-array) type name.
fn base_shape(ty: &str) -> Option<Shape> {
    match ty {
        "float" | "int" | "uint" | "bool" | "double" => Some(Shape::Flag),
        _ => {
            let n = ty.strip_prefix(['i', 'u', 'b', 'd']).unwrap_or(ty);
            match n.strip_prefix("vec").and_then(|k| k.parse::<u8>().ok()) {
                Some(k @ 2..=4) => Some(Shape::Vector(k)),
                _ => matrix(n),
            }
        }
    }
}

/// A matrix type (`mat3`, `mat2x4`): an array of its columns.
fn matrix(n: &str) -> Option<Shape> {
    let dims = n.strip_prefix("mat")?;
    let (c, r) = match dims.split_once('x') {
        Some((c, r)) => (c.parse::<u8>().ok()?, r.parse::<u8>().ok()?),
        None => {
            let k = dims.parse::<u8>().ok()?;
            (k, k)
        }
    };
    ((2..=4).contains(&c) && (2..=4).contains(&r))
        .then(|| Shape::Array(Box::new(Shape::Vector(r)), c.to_string()))
}

/// The built-in outputs of `stage` gldbg cannot track.
fn untracked_builtins(stage: Stage) -> &'static [&'static str] {
    match stage {
        Stage::Fragment => &["gl_SampleMask"],
        Stage::Vertex | Stage::TessEval | Stage::Geometry => &["gl_CullDistance"],
        Stage::TessControl => &["gl_out", "gl_TessLevelOuter", "gl_TessLevelInner"],
        Stage::Compute => &[],
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
/// scalar, vector or matrix type, or one-dimensional sized arrays of them;
/// and in `untracked` the others (structs, interface blocks, all outputs
/// of a tess-control shader: other invocations write them too).
fn user_outputs(
    decls: &[ast::ExternalDeclaration],
    stage: Stage,
    untracked: &mut BTreeSet<String>,
) -> Vec<(String, Shape)> {
    let mut out = Vec::new();
    for d in decls {
        let ast::ExternalDeclarationData::Declaration(decl) = &d.content else {
            continue;
        };
        match &decl.content {
            ast::DeclarationData::InitDeclaratorList(list)
                if is_output(&list.head.ty.qualifier, stage) =>
            {
                let mut shapes = Vec::new();
                declared(list, false, &mut shapes, untracked);
                match stage {
                    Stage::TessControl => untracked.extend(shapes.into_iter().map(|(n, _)| n)),
                    _ => out.extend(shapes),
                }
            }
            ast::DeclarationData::Block(b) if is_output(&Some(b.qualifier.clone()), stage) => {
                if b.name.0.as_str() == "gl_PerVertex" && stage != Stage::TessControl {
                    continue; // its members are the tracked built-ins
                }
                match &b.identifier {
                    Some(i) => {
                        untracked.insert(i.ident.0.to_string());
                    }
                    None => {
                        for f in &b.fields {
                            untracked.extend(f.identifiers.iter().map(|i| i.ident.0.to_string()));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The names `list` declares with their shapes, where the shape is known
/// (`uninitialized`: only those without an initializer).
fn declared(
    list: &ast::InitDeclaratorList,
    uninitialized: bool,
    out: &mut Vec<(String, Shape)>,
    untracked: &mut BTreeSet<String>,
) {
    let ts = &list.head.ty.ty;
    let plain: ast::TypeSpecifier = ast::TypeSpecifierData {
        ty: ts.ty.clone(),
        array_specifier: None,
    }
    .into();
    let base = base_shape(&crate::steps::type_string(&plain, None));
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
        let Some(base) = &base else {
            untracked.insert(name);
            continue;
        };
        let dims: Vec<&ast::ArraySpecifierDimension> = own
            .into_iter()
            .chain(ts.array_specifier.iter())
            .flat_map(|a| a.dimensions.iter())
            .collect();
        let shape = match (dims.as_slice(), base) {
            ([], _) => base.clone(),
            ([d], Shape::Flag | Shape::Vector(_)) => match &d.content {
                ast::ArraySpecifierDimensionData::ExplicitlySized(n) => {
                    Shape::Array(Box::new(base.clone()), expr_text(n))
                }
                ast::ArraySpecifierDimensionData::Unsized => {
                    untracked.insert(name);
                    continue;
                }
            },
            _ => {
                untracked.insert(name);
                continue;
            }
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

/// Every name a function (`main`) declares (`names`), and in `out` the
/// uninitialized ones declared outside loops.
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
                    declared(list, true, out, &mut BTreeSet::new());
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
fn uninitialized_locals(
    decls: &[ast::ExternalDeclaration],
) -> (Option<usize>, Vec<(String, Shape)>) {
    let main = decls
        .iter()
        .enumerate()
        .find_map(|(k, d)| match &d.content {
            ast::ExternalDeclarationData::FunctionDefinition(f)
                if f.prototype.name.as_str() == "main" =>
            {
                Some((k, f))
            }
            _ => None,
        });
    let Some((k, main)) = main else {
        return (None, Vec::new());
    };
    let (mut names, mut out) = (Vec::new(), Vec::new());
    for s in &main.statement.statement_list {
        main_locals(s, false, &mut names, &mut out);
    }
    out.retain(|(n, _)| names.iter().filter(|m| *m == n).count() == 1);
    (Some(k), out)
}

/// The names function definition `def` declares (parameters, locals).
fn function_names_declared(def: &ast::FunctionDefinition) -> Vec<String> {
    let mut names = Vec::new();
    for s in &def.statement.statement_list {
        main_locals(s, false, &mut names, &mut Vec::new());
    }
    for p in &def.prototype.parameters {
        if let ast::FunctionParameterDeclarationData::Named(_, d) = &p.content {
            names.push(d.ident.ident.0.to_string());
        }
    }
    names
}

/// The names `s` declares without an initializer anywhere (loops too).
fn uninitialized_anywhere(s: &ast::Statement, out: &mut Vec<String>) {
    use ast::IterationStatementData as It;
    use ast::StatementData as S;
    let decl = |d: &ast::Declaration, out: &mut Vec<String>| {
        if let ast::DeclarationData::InitDeclaratorList(list) = &d.content {
            let mut shapes = Vec::new();
            let mut other = BTreeSet::new();
            declared(list, true, &mut shapes, &mut other);
            out.extend(shapes.into_iter().map(|(n, _)| n).chain(other));
        }
    };
    match &s.content {
        S::Declaration(d) => decl(d, out),
        S::Compound(c) => c
            .statement_list
            .iter()
            .for_each(|x| uninitialized_anywhere(x, out)),
        S::Switch(sw) => sw.body.iter().for_each(|x| uninitialized_anywhere(x, out)),
        S::Selection(sel) => match &sel.rest.content {
            ast::SelectionRestStatementData::Statement(t) => uninitialized_anywhere(t, out),
            ast::SelectionRestStatementData::Else(t, e) => {
                uninitialized_anywhere(t, out);
                uninitialized_anywhere(e, out);
            }
        },
        S::Iteration(it) => match &it.content {
            It::While(_, b) | It::DoWhile(b, _) => uninitialized_anywhere(b, out),
            It::For(init, _, b) => {
                if let ast::ForInitStatementData::Declaration(d) = &init.content {
                    decl(d, out);
                }
                uninitialized_anywhere(b, out);
            }
        },
        _ => {}
    }
}

/// The names the definitions of function `name` declare.
fn declared_in(decls: &[ast::ExternalDeclaration], name: &str) -> Vec<String> {
    decls
        .iter()
        .filter_map(|d| match &d.content {
            ast::ExternalDeclarationData::FunctionDefinition(f)
                if f.prototype.name.as_str() == name =>
            {
                Some(function_names_declared(f))
            }
            _ => None,
        })
        .flatten()
        .collect()
}

/// The function definitions of `decls` (name, index) and their
/// parameters; the tracked ones (`out`/`inout` of a tracked shape, not an
/// array) get mirrors in `tracked`.
fn functions(
    decls: &[ast::ExternalDeclaration],
    names: &mut Names,
    tracked: &mut Vec<Tracked>,
) -> (
    Vec<(String, usize)>,
    std::collections::HashMap<usize, Vec<Param>>,
) {
    let (mut defs, mut params) = (Vec::new(), std::collections::HashMap::new());
    for (k, d) in decls.iter().enumerate() {
        let ast::ExternalDeclarationData::FunctionDefinition(f) = &d.content else {
            continue;
        };
        defs.push((f.prototype.name.to_string(), k));
        let mut list = Vec::new();
        for p in &f.prototype.parameters {
            let (q, ty, ident) = match &p.content {
                ast::FunctionParameterDeclarationData::Named(q, d) => (q, &d.ty, Some(&d.ident)),
                ast::FunctionParameterDeclarationData::Unnamed(q, t) => (q, t, None),
            };
            let (mut writes, mut copy_in) = (false, false);
            for s in q.iter().flat_map(|q| q.qualifiers.iter()) {
                if let ast::TypeQualifierSpecData::Storage(st) = &s.content {
                    match st.content {
                        ast::StorageQualifierData::Out => writes = true,
                        ast::StorageQualifierData::InOut => (writes, copy_in) = (true, true),
                        _ => {}
                    }
                }
            }
            let shape = ident
                .filter(|i| writes && i.array_spec.is_none() && ty.array_specifier.is_none())
                .and_then(|i| Some((i, base_shape(&crate::steps::type_string(ty, None))?)))
                .filter(|(_, s)| matches!(s, Shape::Flag | Shape::Vector(_)));
            let mirror = shape.map(|(i, shape)| {
                let mirror = names.fresh(&format!("gldbg_w_{}", i.ident.0.as_str()));
                tracked.push(Tracked {
                    name: i.ident.0.to_string(),
                    mirror: mirror.clone(),
                    shape: shape.clone(),
                    scope: Some(k),
                });
                (mirror, shape)
            });
            list.push(Param {
                writes,
                copy_in,
                mirror,
            });
        }
        params.insert(k, list);
    }
    (defs, params)
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
    /// where the probe is in `main` itself (`in_main`); the `out`/`inout`
    /// parameters of every function.
    pub(super) fn new(
        m: &ShaderModel,
        probe: &ast::Expr,
        in_main: bool,
        probe_func: &str,
        names: &mut Names,
    ) -> Written {
        let mut named = HashSet::new();
        walk_expr(&mut probe.clone(), &mut |x| {
            if let ast::ExprData::Variable(v) = &x.content {
                named.insert(v.as_str().to_string());
            }
        });
        let mut untracked: BTreeSet<String> = untracked_builtins(m.stage)
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut tracked = Vec::new();
        let outputs = builtins(m.stage)
            .into_iter()
            .filter(|(n, _)| named.contains(*n) || m.idents.contains(*n))
            .map(|(n, s)| (n.to_string(), s))
            .chain(user_outputs(&m.tu.0, m.stage, &mut untracked))
            .map(|(n, s)| (n, s, None));
        let (main, locals) = uninitialized_locals(&m.tu.0);
        let probe_scope = main.filter(|_| in_main);
        let locals = match probe_scope {
            Some(_) => locals,
            None => Vec::new(),
        };
        // What the stage's other shader objects name (they may write it):
        // their writes are not followed, so gldbg cannot tell.
        let mut in_siblings = HashSet::new();
        for sib in &m.siblings {
            crate::parse::words(sib, &mut in_siblings);
        }
        for (name, shape, scope) in outputs.chain(locals.into_iter().map(|(n, s)| (n, s, main))) {
            if scope.is_none() && in_siblings.contains(&name) {
                untracked.insert(name);
                continue;
            }
            if tracked
                .iter()
                .any(|t: &Tracked| t.name == name && t.scope == scope)
            {
                continue;
            }
            let mirror = names.fresh(&format!("gldbg_w_{}", name.trim_start_matches("gl_")));
            tracked.push(Tracked {
                name,
                mirror,
                shape,
                scope,
            });
        }
        let (defs, params) = functions(&m.tu.0, names, &mut tracked);
        let mut site_vars = std::collections::HashMap::new();
        for (k, d) in m.tu.0.iter().enumerate() {
            // Not for an overload: a call site may not know which it calls.
            if let ast::ExternalDeclarationData::FunctionDefinition(f) = &d.content
                && defs
                    .iter()
                    .filter(|(n, _)| n == f.prototype.name.as_str())
                    .count()
                    == 1
                && crate::steps::type_string(&f.prototype.ty.ty, None) != "void"
                && params
                    .get(&k)
                    .is_some_and(|p| p.iter().any(|p| p.mirror.is_some()))
            {
                site_vars.insert(
                    k,
                    names.fresh(&format!("gldbg_site_{}", f.prototype.name.as_str())),
                );
            }
        }
        let reset = (m.stage == Stage::Geometry).then(|| names.fresh("gldbg_unwritten"));
        let probe_shadow = match in_main {
            true => "main",
            false => probe_func,
        };
        // The probe function's locals without an initializer that are not
        // tracked (in a loop, declared twice, in a function other than
        // `main`): undefined until written, which gldbg cannot tell.
        for (idx, d) in m.tu.0.iter().enumerate() {
            if let ast::ExternalDeclarationData::FunctionDefinition(f) = &d.content
                && f.prototype.name.as_str() == probe_shadow
            {
                let mut uninit = Vec::new();
                for s in &f.statement.statement_list {
                    uninitialized_anywhere(s, &mut uninit);
                }
                // An `out` parameter starts undefined in each call.
                let info = params.get(&idx).map(Vec::as_slice).unwrap_or_default();
                for (p, q) in f.prototype.parameters.iter().zip(info) {
                    if let (true, ast::FunctionParameterDeclarationData::Named(_, d)) =
                        (q.writes && !q.copy_in, &p.content)
                    {
                        uninit.push(d.ident.ident.0.to_string());
                    }
                }
                let scope = probe_scope;
                untracked.extend(uninit.into_iter().filter(|n| {
                    !tracked
                        .iter()
                        .any(|t: &Tracked| &t.name == n && t.scope.is_some() && t.scope == scope)
                }));
            }
        }
        Written {
            probe_shadow: declared_in(&m.tu.0, probe_shadow).into_iter().collect(),
            tracked,
            probe_scope,
            untracked,
            defs,
            params,
            reset,
            site_vars,
        }
    }

    /// The tracked `name` as code in function `scope` sees it: its own
    /// local or parameter, else a global.
    fn find_in(&self, name: &str, scope: Option<usize>) -> Option<&Tracked> {
        let own = scope.and_then(|_| {
            self.tracked
                .iter()
                .find(|t| t.name == name && t.scope == scope)
        });
        own.or_else(|| {
            self.tracked
                .iter()
                .find(|t| t.name == name && t.scope.is_none())
        })
    }

    /// The definitions of function `name` (their indices).
    fn defs_named(&self, name: &str) -> Vec<usize> {
        self.defs
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, k)| *k)
            .collect()
    }

    /// Parameter `k` of definition `def`.
    fn param(&self, def: usize, k: usize) -> Option<&Param> {
        self.params.get(&def)?.get(k)
    }

    /// The mirror of a chain rooted at tracked `t` and its shape; `None`
    /// where the chain cannot be followed.
    fn mirror_of(&self, t: &Tracked, ops: &[Op<'_>]) -> Option<(ast::Expr, Shape)> {
        let mut e = var(&t.mirror);
        let mut shape = t.shape.clone();
        for op in ops {
            match (&shape, op) {
                // A scalar's `.x` is the scalar.
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

    /// The mirror of the lvalue `lhs` in function `scope` and its shape:
    /// rooted at a tracked name, with plain indices, not a part of a
    /// scalar.
    fn lvalue_mirror(
        &self,
        lhs: &ast::Expr,
        scope: Option<usize>,
        user: &HashSet<String>,
    ) -> Option<(ast::Expr, Shape)> {
        let (root, ops) = chain(lhs)?;
        let t = self.find_in(root, scope)?;
        if !track::plain_ops(&ops, user) || (t.shape == Shape::Flag && !ops.is_empty()) {
            return None;
        }
        self.mirror_of(t, &ops)
    }

    /// The mark a write of all of `lhs` needs: `mirror = true` (per
    /// element where it is an array of constant size).
    fn mark(
        &self,
        lhs: &ast::Expr,
        scope: Option<usize>,
        user: &HashSet<String>,
    ) -> Option<ast::Expr> {
        let (mirror, shape) = self.lvalue_mirror(lhs, scope, user)?;
        mark_all(mirror, &shape)
    }

    /// Set the mirrors where the statements of every function write what
    /// they track (expressions only: the step paths stay valid). Returns
    /// the (scope, name)s whose writes could not all be followed.
    pub(super) fn track(
        &self,
        decls: &mut [ast::ExternalDeclaration],
        user: &HashSet<String>,
    ) -> BTreeSet<(Option<usize>, String)> {
        let mut unknown = BTreeSet::new();
        let mut sites = Vec::new();
        for (k, d) in decls.iter_mut().enumerate() {
            if let ast::ExternalDeclarationData::FunctionDefinition(def) = &mut d.content {
                let shadow = function_names_declared(def);
                let mut t = track::Tracker {
                    w: self,
                    scope: k,
                    user,
                    unknown: &mut unknown,
                    shadow: shadow.into_iter().collect(),
                    sites: &mut sites,
                };
                for s in &mut def.statement.statement_list {
                    t.stmt(s);
                }
            }
        }
        track::copy_back_at_returns(self, decls, &sites, &mut unknown);
        unknown
    }

    /// The outputs `e` reads, as (mirror expression, shape); `Err` with
    /// the names where gldbg cannot tell.
    fn reads(
        &self,
        e: &ast::Expr,
        unknown: &BTreeSet<(Option<usize>, String)>,
        out: &mut Vec<(ast::Expr, Shape)>,
    ) -> Result<(), Vec<String>> {
        if let Some((root, ops)) = chain(e) {
            if let Some(t) = self.find_in(root, self.probe_scope) {
                let shadowed = t.scope.is_none() && self.probe_shadow.contains(root);
                if shadowed || unknown.contains(&(t.scope, root.to_string())) {
                    return Err(vec![root.to_string()]);
                }
                for op in &ops {
                    if let Op::Index(i) = op {
                        self.reads(i, unknown, out)?;
                    }
                }
                return match self.mirror_of(t, &ops) {
                    Some(m) => {
                        out.push(m);
                        Ok(())
                    }
                    None => Err(vec![root.to_string()]),
                };
            }
            if self.untracked.contains(root) {
                return Err(vec![root.to_string()]);
            }
        }
        use ast::ExprData as E;
        match &e.content {
            E::Variable(_)
            | E::IntConst(_)
            | E::UIntConst(_)
            | E::BoolConst(_)
            | E::FloatConst(_)
            | E::DoubleConst(_) => Ok(()),
            E::Unary(_, a) | E::Dot(a, _) | E::PostInc(a) | E::PostDec(a) => {
                self.reads(a, unknown, out)
            }
            E::Binary(_, a, b) | E::Assignment(a, _, b) | E::Bracket(a, b) | E::Comma(a, b) => {
                self.reads(a, unknown, out)?;
                self.reads(b, unknown, out)
            }
            E::Ternary(a, b, c) => {
                self.reads(a, unknown, out)?;
                self.reads(b, unknown, out)?;
                self.reads(c, unknown, out)
            }
            E::FunCall(_, args) => args.iter().try_for_each(|a| self.reads(a, unknown, out)),
        }
    }

    /// The written-probe expression of `e`: `bool`/`bvecN` per component
    /// where `e` is an output (part), else one `bool`; `Ok(None)` when `e`
    /// reads no tracked output; `Err` with the names read whose writes
    /// gldbg cannot tell (`unknown`: what [`Written::track`] returned).
    pub(super) fn expr(
        &self,
        e: &ast::Expr,
        unknown: &BTreeSet<(Option<usize>, String)>,
    ) -> Result<Option<ast::Expr>, Vec<String>> {
        let mut found = Vec::new();
        self.reads(e, unknown, &mut found)?;
        if found.is_empty() {
            return Ok(None);
        }
        if let (Some((root, _)), [(m, Shape::Flag | Shape::Vector(_))]) =
            (chain(e), found.as_slice())
            && self.find_in(root, self.probe_scope).is_some()
        {
            return Ok(Some(m.clone()));
        }
        let mut all: Option<ast::Expr> = None;
        for (m, shape) in found {
            let name = expr_text(&m);
            let flag = flag_of(m, &shape).ok_or_else(|| vec![name])?;
            all = Some(match all {
                Some(a) => and(a, flag),
                None => flag,
            });
        }
        Ok(all)
    }

    /// Declarations of the mirrors (global, uninitialized).
    pub(super) fn decls(&self, names: &mut Names) -> String {
        let mut s = self.mirrors();
        if let Some(reset) = &self.reset {
            s.push_str(&format!(
                "void {reset}() {{\n{}}}\n",
                self.clear_statements(names, |t| t.scope.is_none())
            ));
        }
        s
    }

    /// The mirrors' declarations.
    fn mirrors(&self) -> String {
        let mut s = String::new();
        let mut sites: Vec<&String> = self.site_vars.values().collect();
        sites.sort();
        for v in sites {
            s.push_str(&format!("int {v};\n"));
        }
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
            // Geometry: the outputs through the reset function (it also
            // follows each emit, which leaves locals as they are).
            Some(reset) => format!(
                "    {reset}();\n{}",
                self.clear_statements(names, |t| t.scope.is_some())
            ),
            None => self.clear_statements(names, |_| true),
        }
    }

    /// Statements clearing the mirrors of the tracked names `which` takes.
    fn clear_statements(&self, names: &mut Names, which: impl Fn(&Tracked) -> bool) -> String {
        let mut s = String::new();
        for t in self.tracked.iter().filter(|t| which(t)) {
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

/// `m` (of `shape`) all written: `m = true`, per element of an array of
/// constant size; `None` for another array.
fn mark_all(m: ast::Expr, shape: &Shape) -> Option<ast::Expr> {
    match shape {
        Shape::Flag => Some(assign(m, boolean(true))),
        Shape::Vector(n) => Some(assign(m, bvec(*n, true))),
        Shape::Array(elem, size) => {
            let n: i32 = size.trim().parse().ok()?;
            let mut all: Option<ast::Expr> = None;
            for k in 0..n {
                let e = ast::ExprData::Bracket(Box::new(m.clone()), Box::new(int(k))).into();
                let f = mark_all(e, elem)?;
                all = Some(match all {
                    Some(a) => comma(a, f),
                    None => f,
                });
            }
            all
        }
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
mod tests;
