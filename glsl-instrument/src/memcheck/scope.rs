//! What the memcheck rewrite knows of a name: where its memory is
//! (storage block, `shared`, local, image, atomic counter) and its type,
//! from the shader's global declarations and the functions' scopes; the
//! names a statement may write.

use std::collections::{HashMap, HashSet};

use glsl_lang::ast;

use crate::steps::{call_name, type_string, walk_expr, walk_stmt_exprs};

/// The values an `int` (`signed`) or `uint` expression can take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Range {
    pub lo: i64,
    pub hi: i64,
    pub signed: bool,
}

impl Range {
    /// `[lo, hi]` of the type, `None` where it leaves the type's values
    /// (the arithmetic would wrap) or is empty.
    pub fn new(lo: i64, hi: i64, signed: bool) -> Option<Range> {
        let (min, max) = match signed {
            true => (i64::from(i32::MIN), i64::from(i32::MAX)),
            false => (0, i64::from(u32::MAX)),
        };
        (lo <= hi && lo >= min && hi <= max).then_some(Range { lo, hi, signed })
    }

    /// Every value is a valid index of an array of `size` elements.
    pub fn within(&self, size: u32) -> bool {
        self.lo >= 0 && self.hi < i64::from(size)
    }

    /// As a value of the given signedness (GLSL's implicit `int` to
    /// `uint` conversion keeps non-negative values; nothing converts
    /// `uint` to `int` implicitly).
    pub(super) fn as_type(self, signed: bool) -> Option<Range> {
        match (self.signed, signed) {
            (a, b) if a == b => Some(self),
            (true, false) if self.lo >= 0 => Range::new(self.lo, self.hi, false),
            _ => None,
        }
    }
}

/// A type as written, split into its element type and array dimensions
/// (`float[16][16]`: `float`, 2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Ty {
    pub base: String,
    pub dims: usize,
    /// Each dimension's size where it is a literal, outermost first
    /// (`float[16][]`: `[Some(16), None]`).
    pub sizes: Vec<Option<u32>>,
}

impl Ty {
    pub fn parse(written: &str) -> Ty {
        let base = written.split('[').next().unwrap_or("").trim().to_string();
        let sizes = written
            .split('[')
            .skip(1)
            .map(|part| {
                let n = part.split(']').next().unwrap_or("").trim();
                n.trim_end_matches(['u', 'U']).parse::<u32>().ok()
            })
            .collect();
        Ty {
            base,
            dims: written.matches('[').count(),
            sizes,
        }
    }

    /// A type without array dimensions.
    pub fn scalar(base: &str) -> Ty {
        Ty {
            base: base.to_string(),
            dims: 0,
            sizes: Vec::new(),
        }
    }

    /// The element type of an array type.
    pub fn peel(&self) -> Ty {
        Ty {
            base: self.base.clone(),
            dims: self.dims.saturating_sub(1),
            sizes: self.sizes.iter().skip(1).copied().collect(),
        }
    }

    /// The outermost dimension's size, where it is a literal.
    pub fn outer_size(&self) -> Option<u32> {
        self.sizes.first().copied().flatten()
    }

    /// Components of a vector element (`vec4`: 4); 1 for anything else
    /// (a matrix or struct element is tracked whole).
    pub fn components(&self) -> u32 {
        let b = self.base.as_str();
        let n = b.chars().last().and_then(|c| c.to_digit(10)).unwrap_or(1);
        let vector = ["vec", "ivec", "uvec", "bvec", "dvec"]
            .iter()
            .any(|p| b.strip_prefix(p).is_some_and(|r| r.len() == 1));
        if vector { n } else { 1 }
    }

    pub fn is_vector(&self) -> bool {
        self.dims == 0 && self.components() > 1
    }
}

/// Which coordinate an image takes and what `imageSize` returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ImageShape {
    /// `int` coordinate, `int` size.
    One,
    /// `ivec2`, `ivec2`.
    Two,
    /// `ivec3`, `ivec3`.
    Three,
    /// A cube map: `ivec3` coordinate (z: the face), `ivec2` size.
    Cube,
    /// A cube map array: `ivec3` coordinate (z: layer * 6 + face),
    /// `ivec3` size (z: the cubes).
    CubeArray,
}

/// Where a name's memory is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Home {
    /// A member of an unnamed storage block.
    Storage {
        block: String,
    },
    /// A storage block's instance name (`buf` of `buf.data`); arrayed
    /// instances are not tracked.
    StorageInstance {
        block: String,
        arrayed: bool,
    },
    Shared,
    /// A local or parameter; `flag`: the `bool` saying it was assigned
    /// (a local declared without a value, an `out` parameter).
    Local {
        flag: Option<String>,
    },
    Image {
        binding: Option<u32>,
        shape: ImageShape,
    },
    Counter {
        binding: u32,
        offset: Option<u32>,
    },
    Other,
}

#[derive(Clone, Debug)]
pub(super) struct Var {
    pub home: Home,
    pub ty: Ty,
    /// The values it can hold where it is in scope (range.rs): a local
    /// never written after its initializer, a loop counter in its body.
    pub range: Option<Range>,
}

impl Var {
    /// A name without a range.
    pub fn new(home: Home, ty: Ty) -> Var {
        Var {
            home,
            ty,
            range: None,
        }
    }
}

/// How a function writes an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Dir {
    In,
    Out,
    InOut,
}

/// The shader's global names, block and struct members, and user
/// functions' parameter directions.
#[derive(Default)]
pub(super) struct Globals {
    pub vars: HashMap<String, Var>,
    /// Storage block name → its members.
    pub blocks: HashMap<String, Vec<(String, Ty)>>,
    /// Struct name → its fields.
    pub structs: HashMap<String, Vec<(String, Ty)>>,
    /// Function name → each overload's parameter directions.
    pub functions: HashMap<String, Vec<Vec<Dir>>>,
    /// `shared` variables in declaration order.
    pub shared: Vec<String>,
}

fn storage(q: Option<&ast::TypeQualifier>) -> Vec<ast::StorageQualifierData> {
    q.map(|q| {
        q.qualifiers
            .iter()
            .filter_map(|s| match &s.content {
                ast::TypeQualifierSpecData::Storage(st) => Some(st.content.clone()),
                _ => None,
            })
            .collect()
    })
    .unwrap_or_default()
}

/// `layout(name = N)` of a qualifier.
fn layout_int(q: Option<&ast::TypeQualifier>, name: &str) -> Option<u32> {
    for s in &q?.qualifiers {
        let ast::TypeQualifierSpecData::Layout(l) = &s.content else {
            continue;
        };
        for id in &l.ids {
            if let ast::LayoutQualifierSpecData::Identifier(n, Some(v)) = &id.content
                && n.0.as_str() == name
                && let ast::ExprData::IntConst(i) = v.content
            {
                return u32::try_from(i).ok();
            }
            if let ast::LayoutQualifierSpecData::Identifier(n, Some(v)) = &id.content
                && n.0.as_str() == name
                && let ast::ExprData::UIntConst(u) = v.content
            {
                return Some(u);
            }
        }
    }
    None
}

fn image_shape(base: &str) -> Option<ImageShape> {
    let rest = base
        .strip_prefix("image")
        .or_else(|| base.strip_prefix(['i', 'u'])?.strip_prefix("image"))?;
    Some(match rest {
        "1D" | "Buffer" => ImageShape::One,
        "2D" | "2DRect" | "1DArray" | "2DMS" => ImageShape::Two,
        "3D" | "2DArray" | "2DMSArray" => ImageShape::Three,
        "CubeArray" => ImageShape::CubeArray,
        "Cube" => ImageShape::Cube,
        _ => return None,
    })
}

/// The byte size of an atomic counter declaration (arrays: literal sizes
/// only; `None` where the size is not a literal).
fn counter_bytes(ty: &str) -> Option<u32> {
    let mut n = 1u32;
    for part in ty.split('[').skip(1) {
        n *= part.trim_end_matches(']').trim().parse::<u32>().ok()?;
    }
    Some(4 * n)
}

impl Globals {
    pub fn collect(tu: &[ast::ExternalDeclaration]) -> Globals {
        let mut g = Globals::default();
        // Next free offset per atomic counter binding.
        let mut next: HashMap<u32, Option<u32>> = HashMap::new();
        for d in tu {
            match &d.content {
                ast::ExternalDeclarationData::Declaration(decl) => {
                    g.declaration(decl, &mut next);
                }
                ast::ExternalDeclarationData::FunctionDefinition(def) => {
                    g.function(&def.prototype);
                }
                _ => {}
            }
        }
        g
    }

    fn function(&mut self, p: &ast::FunctionPrototype) {
        let dirs = p
            .parameters
            .iter()
            .filter_map(|p| {
                let (q, is_void) = match &p.content {
                    ast::FunctionParameterDeclarationData::Named(q, _) => (q.as_ref(), false),
                    ast::FunctionParameterDeclarationData::Unnamed(q, ts) => (
                        q.as_ref(),
                        ts.ty.content == ast::TypeSpecifierNonArrayData::Void,
                    ),
                };
                if is_void {
                    return None;
                }
                let st = storage(q);
                Some(if st.contains(&ast::StorageQualifierData::InOut) {
                    Dir::InOut
                } else if st.contains(&ast::StorageQualifierData::Out) {
                    Dir::Out
                } else {
                    Dir::In
                })
            })
            .collect::<Vec<_>>();
        let list = self.functions.entry(p.name.0.to_string()).or_default();
        if !list.contains(&dirs) {
            list.push(dirs);
        }
    }

    fn declaration(&mut self, decl: &ast::Declaration, next: &mut HashMap<u32, Option<u32>>) {
        match &decl.content {
            ast::DeclarationData::FunctionPrototype(p) => self.function(p),
            ast::DeclarationData::Block(b) => {
                let st = storage(Some(&b.qualifier));
                if !st.contains(&ast::StorageQualifierData::Buffer) {
                    return;
                }
                let block = b.name.0.to_string();
                let members: Vec<(String, Ty)> = b
                    .fields
                    .iter()
                    .flat_map(|f| {
                        f.identifiers.iter().map(|id| {
                            (
                                id.ident.0.to_string(),
                                Ty::parse(&type_string(&f.ty, id.array_spec.as_ref())),
                            )
                        })
                    })
                    .collect();
                match &b.identifier {
                    Some(id) => {
                        self.vars.insert(
                            id.ident.0.to_string(),
                            Var {
                                home: Home::StorageInstance {
                                    block: block.clone(),
                                    arrayed: id.array_spec.is_some(),
                                },
                                ty: Ty {
                                    base: block.clone(),
                                    dims: usize::from(id.array_spec.is_some()),
                                    sizes: Vec::new(),
                                },
                                range: None,
                            },
                        );
                    }
                    None => {
                        for (name, ty) in &members {
                            self.vars.insert(
                                name.clone(),
                                Var::new(
                                    Home::Storage {
                                        block: block.clone(),
                                    },
                                    ty.clone(),
                                ),
                            );
                        }
                    }
                }
                self.blocks.insert(block, members);
            }
            ast::DeclarationData::InitDeclaratorList(list) => {
                let head = &list.head;
                if let ast::TypeSpecifierNonArrayData::Struct(s) = &head.ty.ty.ty.content
                    && let Some(n) = &s.name
                {
                    let fields = s
                        .fields
                        .iter()
                        .flat_map(|f| {
                            f.identifiers.iter().map(|id| {
                                (
                                    id.ident.0.to_string(),
                                    Ty::parse(&type_string(&f.ty, id.array_spec.as_ref())),
                                )
                            })
                        })
                        .collect();
                    self.structs.insert(n.0.to_string(), fields);
                }
                let q = head.ty.qualifier.as_ref();
                let st = storage(q);
                let mut names: Vec<(String, String)> = Vec::new();
                if let Some(n) = &head.name {
                    names.push((
                        n.0.to_string(),
                        type_string(&head.ty.ty, head.array_specifier.as_ref()),
                    ));
                }
                for t in &list.tail {
                    names.push((
                        t.ident.ident.0.to_string(),
                        type_string(&head.ty.ty, t.ident.array_spec.as_ref()),
                    ));
                }
                for (name, written) in names {
                    let ty = Ty::parse(&written);
                    let home = if st.contains(&ast::StorageQualifierData::Shared) {
                        self.shared.push(name.clone());
                        Home::Shared
                    } else if let Some(shape) = image_shape(&ty.base) {
                        Home::Image {
                            binding: layout_int(q, "binding"),
                            shape,
                        }
                    } else if ty.base == "atomic_uint" {
                        let binding = layout_int(q, "binding").unwrap_or(0);
                        let at = layout_int(q, "offset")
                            .or_else(|| next.get(&binding).copied().unwrap_or(Some(0)));
                        let bytes = counter_bytes(&written);
                        next.insert(binding, at.zip(bytes).map(|(a, b)| a + b));
                        Home::Counter {
                            binding,
                            offset: at,
                        }
                    } else {
                        Home::Other
                    };
                    self.vars.insert(name, Var::new(home, ty));
                }
            }
            _ => {}
        }
    }

    /// The type of `member` of a struct or block named `base`.
    pub fn member(&self, base: &str, member: &str) -> Option<Ty> {
        let fields = self.structs.get(base).or_else(|| self.blocks.get(base))?;
        fields
            .iter()
            .find(|(n, _)| n == member)
            .map(|(_, t)| t.clone())
    }

    /// The directions of `name`'s parameters for a call with `n`
    /// arguments: where overloads disagree on an argument, `InOut`.
    pub fn directions(&self, name: &str, n: usize) -> Option<Vec<Dir>> {
        if let Some(b) = builtin_out(name, n) {
            return Some(b);
        }
        let list = self.functions.get(name)?;
        let mut out: Option<Vec<Dir>> = None;
        for dirs in list.iter().filter(|d| d.len() == n) {
            out = Some(match out {
                None => dirs.clone(),
                Some(prev) => prev
                    .iter()
                    .zip(dirs)
                    .map(|(a, b)| if a == b { *a } else { Dir::InOut })
                    .collect(),
            });
        }
        out
    }
}

/// The built-ins reading or writing memory through their first argument.
pub(super) const MEMORY_ATOMICS: [&str; 8] = [
    "atomicAdd",
    "atomicMin",
    "atomicMax",
    "atomicAnd",
    "atomicOr",
    "atomicXor",
    "atomicExchange",
    "atomicCompSwap",
];
/// The variable at the root of an lvalue (`a` of `a[i].x`).
pub(super) fn root_var(e: &ast::Expr) -> Option<String> {
    match &e.content {
        ast::ExprData::Dot(b, _) | ast::ExprData::Bracket(b, _) => root_var(b),
        ast::ExprData::Variable(n) => Some(n.0.to_string()),
        _ => None,
    }
}

/// The names `s` may write anywhere inside it (assignments, `++`/`--`,
/// `out`/`inout` arguments, memory atomics' first argument); `calls`
/// set where it calls one of the shader's own functions.
pub(super) fn writes(s: &ast::Statement, g: &Globals, out: &mut HashSet<String>) -> bool {
    let mut calls = false;
    let mut s = s.clone();
    walk_stmt_exprs(&mut s, &mut |e| write_of(e, g, out, &mut calls));
    calls
}

/// [`writes`] of one expression.
pub(super) fn expr_writes(e: &ast::Expr, g: &Globals, out: &mut HashSet<String>) {
    let mut calls = false;
    let mut e = e.clone();
    walk_expr(&mut e, &mut |e| write_of(e, g, out, &mut calls));
}

fn write_of(e: &ast::Expr, g: &Globals, written: &mut HashSet<String>, calls: &mut bool) {
    match &e.content {
        ast::ExprData::Assignment(lhs, _, _) => written.extend(root_var(lhs)),
        ast::ExprData::PostInc(a) | ast::ExprData::PostDec(a) => written.extend(root_var(a)),
        ast::ExprData::Unary(op, a)
            if matches!(op.content, ast::UnaryOpData::Inc | ast::UnaryOpData::Dec) =>
        {
            written.extend(root_var(a));
        }
        ast::ExprData::FunCall(_, args) => {
            let Some((name, n)) = call_name(e) else {
                return;
            };
            if name == "barrier" || g.functions.contains_key(name) {
                *calls = true;
            }
            if MEMORY_ATOMICS.contains(&name) {
                written.extend(args.first().and_then(root_var));
            }
            if let Some(dirs) = g.directions(name, n) {
                for (a, d) in args.iter().zip(dirs) {
                    if d != Dir::In {
                        written.extend(root_var(a));
                    }
                }
            }
        }
        _ => {}
    }
}

/// The names a function writes anywhere ([`writes`]), declares more than
/// once, or takes as parameters.
pub(super) fn unranged(def: &ast::FunctionDefinition, g: &Globals) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut seen = HashSet::new();
    for p in &def.prototype.parameters {
        if let ast::FunctionParameterDeclarationData::Named(_, d) = &p.content {
            out.insert(d.ident.ident.0.to_string());
        }
    }
    for s in &def.statement.statement_list {
        writes(s, g, &mut out);
        declared_names(s, &mut |n| {
            if !seen.insert(n.to_string()) {
                out.insert(n.to_string());
            }
        });
    }
    out
}

/// Every name a statement declares, at any depth.
fn declared_names(s: &ast::Statement, f: &mut dyn FnMut(&str)) {
    use ast::StatementData as S;
    let decl = |d: &ast::Declaration, f: &mut dyn FnMut(&str)| {
        if let ast::DeclarationData::InitDeclaratorList(l) = &d.content {
            l.head.name.iter().for_each(|n| f(n.0.as_str()));
            l.tail.iter().for_each(|t| f(t.ident.ident.0.as_str()));
        }
    };
    let cond = |c: &ast::Condition, f: &mut dyn FnMut(&str)| {
        if let ast::ConditionData::Assignment(_, n, _) = &c.content {
            f(n.0.as_str());
        }
    };
    match &s.content {
        S::Declaration(d) => decl(d, f),
        S::Compound(c) => c.statement_list.iter().for_each(|s| declared_names(s, f)),
        S::Selection(sel) => match &sel.rest.content {
            ast::SelectionRestStatementData::Statement(a) => declared_names(a, f),
            ast::SelectionRestStatementData::Else(a, b) => {
                declared_names(a, f);
                declared_names(b, f);
            }
        },
        S::Switch(sw) => sw.body.iter().for_each(|s| declared_names(s, f)),
        S::Iteration(it) => match &it.content {
            ast::IterationStatementData::While(c, b) => {
                cond(c, f);
                declared_names(b, f);
            }
            ast::IterationStatementData::DoWhile(b, _) => declared_names(b, f),
            ast::IterationStatementData::For(init, rest, b) => {
                if let ast::ForInitStatementData::Declaration(d) = &init.content {
                    decl(d, f);
                }
                if let Some(c) = &rest.condition {
                    cond(c, f);
                }
                declared_names(b, f);
            }
        },
        S::Expression(_) | S::Jump(_) | S::CaseLabel(_) => {}
    }
}

/// The built-ins with `out` parameters.
fn builtin_out(name: &str, n: usize) -> Option<Vec<Dir>> {
    let outs: &[usize] = match name {
        "modf" | "frexp" => &[1],
        "uaddCarry" | "usubBorrow" => &[2],
        "umulExtended" | "imulExtended" => &[2, 3],
        _ => return None,
    };
    Some(
        (0..n)
            .map(|i| if outs.contains(&i) { Dir::Out } else { Dir::In })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_split_into_element_and_dimensions() {
        assert_eq!(
            Ty::parse("float[16][16]"),
            Ty {
                base: "float".into(),
                dims: 2,
                sizes: vec![Some(16), Some(16)],
            }
        );
        assert_eq!(Ty::parse("uint[4u][]").sizes, vec![Some(4), None]);
        assert_eq!(Ty::parse("float[N]").outer_size(), None);
        assert_eq!(Ty::parse("vec4[]").components(), 4);
        assert_eq!(Ty::parse("mat4").components(), 1);
        assert!(Ty::parse("ivec3").is_vector());
        assert_eq!(counter_bytes("atomic_uint[3]"), Some(12));
        assert_eq!(image_shape("uimage2DArray"), Some(ImageShape::Three));
        assert_eq!(image_shape("imageCube"), Some(ImageShape::Cube));
    }
}
