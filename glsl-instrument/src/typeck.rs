//! Type checking of a probe expression at one step: the type of `EXPR`
//! from the variables in scope there (locals, parameters, globals, inputs,
//! uniforms, the stage's built-ins), struct and block members, arrays,
//! swizzles, constructors, operators with GLSL's implicit conversions,
//! and built-in and user functions with their overloads.
//!
//! Errors are reported only when certain. Anything this checker does not
//! model (an unknown function, an extension's type, a macro it cannot see
//! through) gives an unknown type and no error: the driver decides.

use std::collections::HashMap;
use std::fmt;

use glsl_lang::ast;
use glsl_lang::visitor::{Host, Visit, Visitor};

use crate::builtins;
use crate::parse::line_col;
use crate::steps::type_string;
use crate::{ShaderModel, StepId, Variable};

/// Scalar kind, in implicit-conversion order (int → uint → float → double).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Base {
    Bool,
    Int,
    Uint,
    Float,
    Double,
}

/// A GLSL type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    Void,
    /// Scalar (rows 1, cols 1), vector (rows n, cols 1) or matrix (cols x rows).
    Num {
        base: Base,
        rows: u8,
        cols: u8,
    },
    /// Element type and size (None: unsized or not a literal).
    Array(Box<Ty>, Option<u32>),
    /// A user struct or block, or a built-in struct.
    Struct(String),
    /// Samplers, images, atomic counters.
    Opaque(String),
}

impl Ty {
    fn num(base: Base, rows: u8, cols: u8) -> Ty {
        Ty::Num { base, rows, cols }
    }
    fn scalar(base: Base) -> Ty {
        Ty::num(base, 1, 1)
    }
    fn is_scalar(&self) -> bool {
        matches!(
            self,
            Ty::Num {
                rows: 1,
                cols: 1,
                ..
            }
        )
    }
    fn base(&self) -> Option<Base> {
        match self {
            Ty::Num { base, .. } => Some(*base),
            _ => None,
        }
    }
    fn with_base(&self, b: Base) -> Ty {
        match self {
            Ty::Num { rows, cols, .. } => Ty::num(b, *rows, *cols),
            t => t.clone(),
        }
    }
    /// Number of scalar components (constructors).
    fn components(&self) -> Option<u32> {
        match self {
            Ty::Num { rows, cols, .. } => Some(u32::from(*rows) * u32::from(*cols)),
            _ => None,
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Void => f.write_str("void"),
            Ty::Num { base, rows, cols } => {
                let (scalar, prefix) = match base {
                    Base::Bool => ("bool", "b"),
                    Base::Int => ("int", "i"),
                    Base::Uint => ("uint", "u"),
                    Base::Float => ("float", ""),
                    Base::Double => ("double", "d"),
                };
                match (rows, cols) {
                    (1, 1) => f.write_str(scalar),
                    (n, 1) => write!(f, "{prefix}vec{n}"),
                    (r, c) if r == c => write!(f, "{prefix}mat{c}"),
                    (r, c) => write!(f, "{prefix}mat{c}x{r}"),
                }
            }
            Ty::Array(t, Some(n)) => write!(f, "{t}[{n}]"),
            Ty::Array(t, None) => write!(f, "{t}[]"),
            Ty::Struct(n) | Ty::Opaque(n) => f.write_str(n),
        }
    }
}

/// Read a type as written ("vec3", "float[4]", "S[2][3]", "mat2x3").
/// `None`: a type this checker does not model.
pub(crate) fn parse_type(s: &str, decls: &Decls) -> Option<Ty> {
    let s = s.trim();
    let (head, arrays) = match s.find('[') {
        Some(i) => (s[..i].trim(), &s[i..]),
        None => (s, ""),
    };
    let mut t = base_type(head, decls)?;
    // `T[a][b]`: an array of `a` arrays of `b`; build from the innermost.
    let mut dims = Vec::new();
    let mut rest = arrays;
    while let Some(r) = rest.strip_prefix('[') {
        let end = r.find(']')?;
        dims.push(r[..end].trim().parse::<u32>().ok());
        rest = r[end + 1..].trim_start();
    }
    if !rest.is_empty() {
        return None;
    }
    for d in dims.into_iter().rev() {
        t = Ty::Array(Box::new(t), d);
    }
    Some(t)
}

fn base_type(s: &str, decls: &Decls) -> Option<Ty> {
    let scalar = |name: &str| match name {
        "bool" => Some(Base::Bool),
        "int" => Some(Base::Int),
        "uint" | "unsigned int" => Some(Base::Uint),
        "float" => Some(Base::Float),
        "double" => Some(Base::Double),
        _ => None,
    };
    if let Some(b) = scalar(s) {
        return Some(Ty::scalar(b));
    }
    if s == "void" {
        return Some(Ty::Void);
    }
    let (base, rest) = match s.as_bytes().first()? {
        b'b' if s.starts_with("bvec") => (Base::Bool, &s[1..]),
        b'i' if s.starts_with("ivec") => (Base::Int, &s[1..]),
        b'u' if s.starts_with("uvec") => (Base::Uint, &s[1..]),
        b'd' if s.starts_with("dvec") || s.starts_with("dmat") => (Base::Double, &s[1..]),
        _ => (Base::Float, s),
    };
    let dim = |d: &str| -> Option<u8> {
        match d {
            "2" => Some(2),
            "3" => Some(3),
            "4" => Some(4),
            _ => None,
        }
    };
    if let Some(n) = rest.strip_prefix("vec") {
        return Some(Ty::num(base, dim(n)?, 1));
    }
    if let Some(m) = rest.strip_prefix("mat")
        && matches!(base, Base::Float | Base::Double)
    {
        return Some(match m.split_once('x') {
            Some((c, r)) => Ty::num(base, dim(r)?, dim(c)?),
            None => Ty::num(base, dim(m)?, dim(m)?),
        });
    }
    let opaque = [
        "sampler", "isampler", "usampler", "image", "iimage", "uimage",
    ];
    if opaque.iter().any(|p| s.starts_with(p)) || s == "atomic_uint" {
        return Some(Ty::Opaque(s.to_string()));
    }
    if decls.structs.contains_key(s) || builtins::builtin_struct(s).is_some() {
        return Some(Ty::Struct(s.to_string()));
    }
    None
}

/// The value of an index written as an integer literal, possibly negated
/// (`v[2]`, `v[-1]`, `v[-(1)]`): what the type check can refuse as out of
/// range before the driver sees it.
fn constant_index(e: &ast::Expr) -> Option<i64> {
    use glsl_lang::ast::{ExprData as E, UnaryOpData as U};
    match &e.content {
        E::IntConst(n) => Some(i64::from(*n)),
        E::UIntConst(n) => Some(i64::from(*n)),
        E::Unary(op, a) => match op.content {
            U::Minus => constant_index(a).map(|k| -k),
            U::Add => constant_index(a),
            _ => None,
        },
        _ => None,
    }
}

/// GLSL's implicit conversions (4.00 and GL_ARB_gpu_shader5: int → uint,
/// int/uint → float, int/uint/float → double; same shape). Older and ES
/// versions have fewer; the checker is lenient there (the driver decides).
fn converts(from: &Ty, to: &Ty) -> bool {
    match (from, to) {
        (
            Ty::Num {
                base: a,
                rows: r1,
                cols: c1,
            },
            Ty::Num {
                base: b,
                rows: r2,
                cols: c2,
            },
        ) => {
            r1 == r2
                && c1 == c2
                && (a == b
                    || (*a != Base::Bool
                        && *b != Base::Bool
                        && a < b
                        && (*c1 == 1 || *a >= Base::Float)))
        }
        // An unsized array declaration takes its size from the initializer.
        (Ty::Array(a, n), Ty::Array(b, m)) => a == b && (n == m || n.is_none() || m.is_none()),
        (a, b) => a == b,
    }
}

/// What the shader declares, for the checker.
#[derive(Default)]
pub(crate) struct Decls {
    /// Struct and block fields by type name; `None` if the name has
    /// different definitions (e.g. in two functions).
    pub structs: HashMap<String, Option<Vec<(String, String)>>>,
    /// User functions: name → (return type, parameter types) per overload.
    pub functions: HashMap<String, Vec<(String, Vec<String>)>>,
    /// Every declared variable: name → byte offsets of its declarations.
    pub variables: HashMap<String, Vec<usize>>,
}

impl Decls {
    pub(crate) fn collect(tu: &ast::TranslationUnit) -> Decls {
        struct Collect(Decls);
        impl Collect {
            fn fields(&mut self, name: &str, fields: &[ast::StructFieldSpecifier]) {
                let list: Vec<(String, String)> = fields
                    .iter()
                    .flat_map(|f| {
                        f.identifiers.iter().map(|id| {
                            (
                                id.ident.0.to_string(),
                                type_string(&f.ty, id.array_spec.as_ref()),
                            )
                        })
                    })
                    .collect();
                let entry = self
                    .0
                    .structs
                    .entry(name.to_string())
                    .or_insert_with(|| Some(list.clone()));
                if entry.as_ref() != Some(&list) {
                    *entry = None;
                }
            }
            fn var(&mut self, id: &ast::Identifier) {
                let at = id.span.map_or(0, |s| usize::from(s.start().offset));
                self.0
                    .variables
                    .entry(id.0.to_string())
                    .or_default()
                    .push(at);
            }
        }
        impl Visitor for Collect {
            fn visit_struct_specifier(&mut self, s: &ast::StructSpecifier) -> Visit {
                if let Some(n) = &s.name {
                    self.fields(n.0.as_str(), &s.fields);
                }
                Visit::Children
            }
            fn visit_block(&mut self, b: &ast::Block) -> Visit {
                self.fields(b.name.0.as_str(), &b.fields);
                match &b.identifier {
                    Some(id) => self.var(&id.ident),
                    None => {
                        for f in &b.fields {
                            for id in &f.identifiers {
                                self.var(&id.ident);
                            }
                        }
                    }
                }
                // Block fields are not variables of their own.
                Visit::Parent
            }
            fn visit_function_prototype(&mut self, p: &ast::FunctionPrototype) -> Visit {
                let ret = type_string(&p.ty.ty, None);
                let params = crate::steps::parameter_types(p);
                let list = self.0.functions.entry(p.name.0.to_string()).or_default();
                if !list.iter().any(|(_, ps)| *ps == params) {
                    list.push((ret, params));
                }
                Visit::Children
            }
            fn visit_init_declarator_list(&mut self, l: &ast::InitDeclaratorList) -> Visit {
                if crate::steps::qualifies_only(&l.head) {
                    return Visit::Parent;
                }
                Visit::Children
            }
            fn visit_single_declaration(&mut self, d: &ast::SingleDeclaration) -> Visit {
                if let Some(n) = &d.name {
                    self.var(n);
                }
                Visit::Children
            }
            fn visit_single_declaration_no_type(
                &mut self,
                d: &ast::SingleDeclarationNoType,
            ) -> Visit {
                self.var(&d.ident.ident);
                Visit::Children
            }
            fn visit_function_parameter_declarator(
                &mut self,
                d: &ast::FunctionParameterDeclarator,
            ) -> Visit {
                self.var(&d.ident.ident);
                Visit::Children
            }
            fn visit_condition(&mut self, c: &ast::Condition) -> Visit {
                if let ast::ConditionData::Assignment(_, id, _) = &c.content {
                    self.var(id);
                }
                Visit::Children
            }
        }
        let mut c = Collect(Decls::default());
        tu.visit(&mut c);
        c.0
    }
}

/// The fields (name, type as written) of a struct or block type, built-in
/// (`gl_DepthRangeParameters`) or declared; `None`: unknown.
pub(crate) fn struct_fields(decls: &Decls, name: &str) -> Option<Vec<(String, String)>> {
    if let Some(f) = builtins::builtin_struct(name) {
        return Some(
            f.iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
        );
    }
    decls.structs.get(name).cloned().flatten()
}

/// A certain type error, at a byte offset of the parsed probe source.
struct TypeError {
    message: String,
    at: Option<usize>,
}

type Res = Result<Option<Ty>, TypeError>;

fn err<T>(node_at: Option<usize>, message: String) -> Result<T, TypeError> {
    Err(TypeError {
        message,
        at: node_at,
    })
}

fn start<T: ast::NodeContent>(n: &ast::Node<T>) -> Option<usize> {
    n.span.map(|s| usize::from(s.start().offset))
}

/// The checker at one step.
pub(crate) struct Checker<'a> {
    pub scope: &'a [Variable],
    pub decls: &'a Decls,
    pub stage: crate::Stage,
    /// Line of the step (for "not in scope" messages) and the original source.
    pub line: u32,
    pub column: u32,
    pub source: &'a str,
    /// The `#define`s in effect at the step (`ShaderModel::probe_macros`).
    pub macros: &'a str,
    /// The driver's number of each source line (messages name those).
    pub lines: &'a crate::preprocess::Preprocessed,
    /// The probe expression and where it starts in the parsed text.
    pub probe: &'a str,
    pub base: usize,
}

impl Checker<'_> {
    /// `e` as the user typed it (as printed if its span is elsewhere,
    /// e.g. inside a macro).
    fn text_of(&self, e: &ast::Expr) -> String {
        e.span
            .and_then(|sp| {
                let (a, b) = (usize::from(sp.start().offset), usize::from(sp.end().offset));
                self.probe
                    .get(a.checked_sub(self.base)?..b.checked_sub(self.base)?)
            })
            .map_or_else(|| crate::parse::expr_text(e), |t| t.trim().to_string())
    }

    fn ty(&self, s: &str) -> Option<Ty> {
        parse_type(s, self.decls)
    }

    fn fields(&self, name: &str) -> Option<Vec<(String, String)>> {
        struct_fields(self.decls, name)
    }

    /// Type of `e`; `Ok(None)`: unknown.
    fn infer(&self, e: &ast::Expr) -> Res {
        use ast::ExprData as E;
        Ok(match &e.content {
            E::Variable(id) => return self.variable(id),
            E::IntConst(_) => Some(Ty::scalar(Base::Int)),
            E::UIntConst(_) => Some(Ty::scalar(Base::Uint)),
            E::BoolConst(_) => Some(Ty::scalar(Base::Bool)),
            E::FloatConst(_) => Some(Ty::scalar(Base::Float)),
            E::DoubleConst(_) => Some(Ty::scalar(Base::Double)),
            E::Unary(op, a) => {
                let Some(t) = self.value(a)? else {
                    return Ok(None);
                };
                use ast::UnaryOpData as U;
                let (name, ok) = match op.content {
                    U::Not => ("!", t == Ty::scalar(Base::Bool)),
                    U::Complement => ("~", matches!(t.base(), Some(Base::Int | Base::Uint))),
                    U::Minus => ("-", matches!(t.base(), Some(b) if b != Base::Bool)),
                    U::Add => ("+", matches!(t.base(), Some(b) if b != Base::Bool)),
                    U::Inc => ("++", matches!(t.base(), Some(b) if b != Base::Bool)),
                    U::Dec => ("--", matches!(t.base(), Some(b) if b != Base::Bool)),
                };
                if !ok {
                    return err(start(op), format!("no operator `{name}` for {t}"));
                }
                Some(t)
            }
            E::PostInc(a) | E::PostDec(a) => {
                let Some(t) = self.value(a)? else {
                    return Ok(None);
                };
                if !matches!(t.base(), Some(b) if b != Base::Bool) {
                    let name = if matches!(e.content, E::PostInc(_)) {
                        "++"
                    } else {
                        "--"
                    };
                    return err(start(e), format!("no operator `{name}` for {t}"));
                }
                Some(t)
            }
            E::Binary(op, a, b) => {
                let (ta, tb) = (self.value(a)?, self.value(b)?);
                let (Some(ta), Some(tb)) = (ta, tb) else {
                    return Ok(binary_shape_unknown(&op.content));
                };
                Some(binary(&op.content, &ta, &tb).map_err(|m| TypeError {
                    message: m,
                    at: start(op),
                })?)
            }
            E::Ternary(c, a, b) => {
                if let Some(tc) = self.value(c)?
                    && tc != Ty::scalar(Base::Bool)
                {
                    return err(
                        start(c),
                        format!("the condition of `?:` must be bool, not {tc}"),
                    );
                }
                let (ta, tb) = (self.value(a)?, self.value(b)?);
                match (ta, tb) {
                    (Some(ta), Some(tb)) => {
                        if converts(&tb, &ta) {
                            Some(ta)
                        } else if converts(&ta, &tb) {
                            Some(tb)
                        } else {
                            return err(
                                start(b),
                                format!("the branches of `?:` have different types: {ta} and {tb}"),
                            );
                        }
                    }
                    _ => None,
                }
            }
            E::Assignment(l, op, r) => {
                let (tl, tr) = (self.value(l)?, self.value(r)?);
                let (Some(tl), Some(tr)) = (tl, tr) else {
                    return Ok(None);
                };
                use ast::AssignmentOpData as A;
                use ast::BinaryOpData as B;
                let bin = match op.content {
                    A::Equal => None,
                    A::Mult => Some(B::Mult),
                    A::Div => Some(B::Div),
                    A::Mod => Some(B::Mod),
                    A::Add => Some(B::Add),
                    A::Sub => Some(B::Sub),
                    A::LShift => Some(B::LShift),
                    A::RShift => Some(B::RShift),
                    A::And => Some(B::BitAnd),
                    A::Xor => Some(B::BitXor),
                    A::Or => Some(B::BitOr),
                };
                let value = match bin {
                    Some(b) => binary(&b, &tl, &tr).map_err(|m| TypeError {
                        message: m,
                        at: start(op),
                    })?,
                    None => tr,
                };
                if !converts(&value, &tl) {
                    return err(start(op), format!("cannot assign {value} to {tl}"));
                }
                Some(tl)
            }
            E::Bracket(a, i) => {
                let ti = self.value(i)?;
                if let Some(ti) = &ti
                    && !(ti.is_scalar() && matches!(ti.base(), Some(Base::Int | Base::Uint)))
                {
                    return err(
                        start(i),
                        format!("an index must be an int or uint, not {ti}"),
                    );
                }
                let Some(ta) = self.value(a)? else {
                    return Ok(None);
                };
                let constant = constant_index(i);
                let (elem, size) = match &ta {
                    Ty::Array(t, n) => ((**t).clone(), *n),
                    Ty::Num {
                        base,
                        rows,
                        cols: 1,
                    } if *rows > 1 => (Ty::scalar(*base), Some(u32::from(*rows))),
                    Ty::Num { base, rows, cols } if *cols > 1 => {
                        (Ty::num(*base, *rows, 1), Some(u32::from(*cols)))
                    }
                    t => return err(start(i), format!("{t} cannot be indexed")),
                };
                if let Some(k) = constant
                    && (k < 0 || size.is_some_and(|n| k >= i64::from(n)))
                {
                    return err(start(i), format!("index {k} is out of range for {ta}"));
                }
                Some(elem)
            }
            E::Dot(a, field) => {
                let Some(ta) = self.value(a)? else {
                    return Ok(None);
                };
                return self.field(&ta, field);
            }
            E::FunCall(id, args) => return self.call(e, id, args),
            E::Comma(a, b) => {
                self.infer(a)?;
                return self.infer(b);
            }
        })
    }

    /// Like `infer`, but a void operand is an error (it has no value).
    fn value(&self, e: &ast::Expr) -> Res {
        let t = self.infer(e)?;
        if t == Some(Ty::Void) {
            return err(
                start(e),
                format!("`{}` has no value (it returns void)", self.text_of(e)),
            );
        }
        Ok(t)
    }

    fn variable(&self, id: &ast::Identifier) -> Res {
        let name = id.0.as_str();
        if let Some(v) = self.scope.iter().rev().find(|v| v.name == name) {
            return Ok(self.ty(&v.ty));
        }
        if name.starts_with("gl_") {
            return Ok(builtins::variable_type(self.stage, name).and_then(|t| self.ty(t)));
        }
        if let Some(offsets) = self.decls.variables.get(name) {
            // Also a variable the step itself declares (`float a = ...;`):
            // the debug value is taken before the step, where `a` does not
            // exist yet (the driver would say "undeclared").
            // The declaration after the step (else the first one).
            let here = (self.line, self.column);
            let at = offsets
                .iter()
                .copied()
                .find(|&at| line_col(self.source, at) > here)
                .unwrap_or(offsets[0]);
            let (line, _) = line_col(self.source, at);
            return err(
                start(id),
                format!(
                    "`{name}` is not in scope at line {} (declared at line {})",
                    self.lines.driver_line(self.line),
                    self.lines.driver_line(line)
                ),
            );
        }
        if self.decls.functions.contains_key(name)
            || !builtins::function_signatures(name).is_empty()
        {
            return err(start(id), format!("`{name}` is a function, not a variable"));
        }
        // A macro the probe could not expand (its definitions did not
        // preprocess alone): not certain.
        if self.macros.lines().any(|l| {
            l.trim_start()
                .strip_prefix('#')
                .map(str::trim_start)
                .and_then(|d| d.strip_prefix("define"))
                .is_some_and(|d| {
                    d.trim_start()
                        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .next()
                        == Some(name)
                })
        }) {
            return Ok(None);
        }
        err(start(id), format!("undeclared identifier `{name}`"))
    }

    fn field(&self, t: &Ty, field: &ast::Identifier) -> Res {
        let name = field.0.as_str();
        match t {
            Ty::Struct(s) => match self.fields(s) {
                Some(fields) => match fields.iter().find(|(n, _)| n == name) {
                    Some((_, ty)) => Ok(self.ty(ty)),
                    None => err(start(field), format!("{s} has no field `{name}`")),
                },
                None => Ok(None),
            },
            Ty::Num {
                base,
                rows,
                cols: 1,
            } => {
                const SETS: [&str; 3] = ["xyzw", "rgba", "stpq"];
                let set = SETS.iter().find(|s| name.chars().all(|c| s.contains(c)));
                let Some(set) = set else {
                    return if name.chars().all(|c| SETS.iter().any(|s| s.contains(c))) {
                        err(
                            start(field),
                            format!("swizzle `.{name}` mixes component sets"),
                        )
                    } else {
                        err(start(field), format!("{t} has no field `{name}`"))
                    };
                };
                if name.len() > 4 {
                    return err(
                        start(field),
                        format!("swizzle `.{name}` has more than 4 components"),
                    );
                }
                if let Some(c) = name
                    .chars()
                    .find(|c| set.find(*c).unwrap_or(0) >= *rows as usize)
                {
                    return err(start(field), format!("{t} has no component `{c}`"));
                }
                Ok(Some(Ty::num(*base, name.len() as u8, 1)))
            }
            Ty::Void => Ok(None),
            t => err(start(field), format!("{t} has no field `{name}`")),
        }
    }

    fn call(&self, e: &ast::Expr, id: &ast::FunIdentifier, args: &[ast::Expr]) -> Res {
        let mut types = Vec::with_capacity(args.len());
        for a in args {
            types.push(self.value(a)?);
        }
        match &id.content {
            ast::FunIdentifierData::TypeSpecifier(ts) => {
                let written = type_string(ts, None);
                let Some(t) = self.ty(&written) else {
                    return Ok(None);
                };
                self.construct(e, &t, &types)
            }
            ast::FunIdentifierData::Expr(callee) => match &callee.content {
                ast::ExprData::Variable(name) => {
                    let name = name.0.as_str();
                    // A subroutine uniform: the subroutine type's result.
                    if let Some(v) = self.scope.iter().rev().find(|v| v.name == name)
                        && let Some(list) = self.decls.functions.get(v.ty.as_str())
                        && let [(ret, _)] = list.as_slice()
                    {
                        return Ok(self.ty(ret));
                    }
                    if self.decls.structs.contains_key(name)
                        && !self.decls.functions.contains_key(name)
                    {
                        return self.construct(e, &Ty::Struct(name.to_string()), &types);
                    }
                    self.function(e, name, &types)
                }
                // `a.length()`
                ast::ExprData::Dot(a, m) if m.0.as_str() == "length" && args.is_empty() => {
                    match self.value(a)? {
                        Some(Ty::Array(..)) | None => Ok(Some(Ty::scalar(Base::Int))),
                        Some(Ty::Num { rows, .. }) if rows > 1 => Ok(Some(Ty::scalar(Base::Int))),
                        Some(t) => err(start(m), format!("{t} has no method `length`")),
                    }
                }
                _ => Ok(None),
            },
        }
    }

    fn construct(&self, e: &ast::Expr, t: &Ty, args: &[Option<Ty>]) -> Res {
        let at = start(e);
        match t {
            Ty::Num {
                base: _,
                rows,
                cols,
            } => {
                if args.is_empty() {
                    return err(at, format!("the {t} constructor needs arguments"));
                }
                let known: Option<Vec<&Ty>> = args.iter().map(|a| a.as_ref()).collect();
                let Some(known) = known else {
                    return Ok(Some(t.clone()));
                };
                for a in &known {
                    // (A bindless handle: uvec2(sampler) with ARB_bindless_texture.)
                    if matches!(a, Ty::Opaque(_)) {
                        return Ok(Some(t.clone()));
                    }
                    if a.base().is_none() {
                        return err(at, format!("the {t} constructor cannot take {a}"));
                    }
                }
                let want = u32::from(*rows) * u32::from(*cols);
                if known.len() == 1 && (known[0].is_scalar() || want == 1) {
                    return Ok(Some(t.clone()));
                }
                // Matrix from matrix.
                if *cols > 1
                    && known.len() == 1
                    && matches!(known[0], Ty::Num { cols: c, .. } if *c > 1)
                {
                    return Ok(Some(t.clone()));
                }
                if *cols > 1
                    && known
                        .iter()
                        .any(|a| matches!(a, Ty::Num { cols: c, .. } if *c > 1))
                {
                    return Ok(Some(t.clone())); // driver's rules
                }
                let have: u32 = known.iter().filter_map(|a| a.components()).sum();
                let before_last: u32 = known[..known.len() - 1]
                    .iter()
                    .filter_map(|a| a.components())
                    .sum();
                if *cols == 1 && have < want {
                    return err(
                        at,
                        format!("the {t} constructor needs {want} components, got {have}"),
                    );
                }
                if *cols > 1 && have != want {
                    return err(
                        at,
                        format!("the {t} constructor needs {want} components, got {have}"),
                    );
                }
                if before_last >= want {
                    return err(at, format!("too many arguments for the {t} constructor"));
                }
                Ok(Some(t.clone()))
            }
            Ty::Struct(name) => {
                let Some(fields) = self.fields(name) else {
                    return Ok(Some(t.clone()));
                };
                if fields.len() != args.len() {
                    return err(
                        at,
                        format!(
                            "the {name} constructor needs {} arguments, got {}",
                            fields.len(),
                            args.len()
                        ),
                    );
                }
                for (k, ((_, fty), a)) in fields.iter().zip(args).enumerate() {
                    if let (Some(f), Some(a)) = (self.ty(fty), a)
                        && !converts(a, &f)
                    {
                        return err(
                            at,
                            format!(
                                "argument {} of the {name} constructor: expected {f}, got {a}",
                                k + 1
                            ),
                        );
                    }
                }
                Ok(Some(t.clone()))
            }
            _ => Ok(Some(t.clone())),
        }
    }

    fn function(&self, e: &ast::Expr, name: &str, args: &[Option<Ty>]) -> Res {
        if builtins::is_opaque_function(name) && !self.decls.functions.contains_key(name) {
            return Ok(opaque_function(name, args));
        }
        // Candidates: the user's overloads, then the built-in ones.
        let mut cands: Vec<(Ty, Vec<Ty>)> = Vec::new();
        let mut modelled = true;
        if let Some(list) = self.decls.functions.get(name) {
            for (ret, params) in list {
                let ps: Option<Vec<Ty>> = params.iter().map(|p| self.ty(p)).collect();
                match (self.ty(ret), ps) {
                    (Some(r), Some(ps)) => cands.push((r, ps)),
                    _ => modelled = false,
                }
            }
        }
        for (ret, params) in builtins::function_signatures(name) {
            cands.extend(instantiate(name, ret, &params, self.decls));
        }
        if cands.is_empty() {
            // (A subroutine uniform is a variable of a type not modelled
            // here; a function of the same name as a variable is called.)
            if modelled
                && let Some(v) = self.scope.iter().rev().find(|v| v.name == name)
                && self.ty(&v.ty).is_some()
            {
                return err(start(e), format!("`{name}` is a variable, not a function"));
            }
            return Ok(None);
        }
        let arity: Vec<&(Ty, Vec<Ty>)> = cands.iter().filter(|c| c.1.len() == args.len()).collect();
        let all_known = args.iter().all(Option::is_some);
        // Best: the most arguments matching exactly, the rest converted.
        let mut best: Option<(usize, &Ty)> = None;
        let mut tie = false;
        let mut returns: Vec<&Ty> = Vec::new();
        for (ret, params) in &arity {
            let mut exact = 0;
            let mut ok = true;
            for (p, a) in params.iter().zip(args) {
                match a {
                    Some(a) if a == p => exact += 1,
                    // (`out` parameters convert the other way.)
                    Some(a) if converts(a, p) || converts(p, a) => {}
                    Some(_) => ok = false,
                    None => {}
                }
            }
            if !ok {
                continue;
            }
            if !returns.contains(&ret) {
                returns.push(ret);
            }
            match best {
                Some((b, _)) if b > exact => {}
                Some((b, r)) if b == exact => tie |= r != ret,
                _ => {
                    best = Some((exact, ret));
                    tie = false;
                }
            }
        }
        match best {
            Some((_, ret)) if all_known && !tie => Ok(Some(ret.clone())),
            Some(_) if returns.len() == 1 => Ok(Some(returns[0].clone())),
            Some(_) => Ok(None),
            None if all_known && modelled => {
                let list: Vec<String> = args
                    .iter()
                    .map(|a| a.as_ref().map_or("?".into(), |t| t.to_string()))
                    .collect();
                err(
                    start(e),
                    format!("no overload of `{name}` takes ({})", list.join(", ")),
                )
            }
            None => Ok(None),
        }
    }
}

/// The result of a binary operator whose operand types are not both known.
fn binary_shape_unknown(op: &ast::BinaryOpData) -> Option<Ty> {
    use ast::BinaryOpData as B;
    match op {
        B::Or | B::Xor | B::And | B::Equal | B::NonEqual | B::Lt | B::Gt | B::Lte | B::Gte => {
            Some(Ty::scalar(Base::Bool))
        }
        _ => None,
    }
}

fn op_name(op: &ast::BinaryOpData) -> &'static str {
    use ast::BinaryOpData as B;
    match op {
        B::Or => "||",
        B::Xor => "^^",
        B::And => "&&",
        B::BitOr => "|",
        B::BitXor => "^",
        B::BitAnd => "&",
        B::Equal => "==",
        B::NonEqual => "!=",
        B::Lt => "<",
        B::Gt => ">",
        B::Lte => "<=",
        B::Gte => ">=",
        B::LShift => "<<",
        B::RShift => ">>",
        B::Add => "+",
        B::Sub => "-",
        B::Mult => "*",
        B::Div => "/",
        B::Mod => "%",
    }
}

/// The type of `a op b` (both known), or the error message.
fn binary(op: &ast::BinaryOpData, a: &Ty, b: &Ty) -> Result<Ty, String> {
    use ast::BinaryOpData as B;
    let name = op_name(op);
    let no = || format!("no operator `{name}` for {a} and {b}");
    let bool_t = Ty::scalar(Base::Bool);
    match op {
        B::Or | B::Xor | B::And => {
            if *a == bool_t && *b == bool_t {
                Ok(bool_t)
            } else {
                Err(format!(
                    "operator `{name}` needs bool operands, not {a} and {b}"
                ))
            }
        }
        B::Equal | B::NonEqual => {
            if matches!(a, Ty::Opaque(_)) || matches!(b, Ty::Opaque(_)) {
                return Err(no());
            }
            if converts(a, b) || converts(b, a) {
                Ok(bool_t)
            } else {
                Err(no())
            }
        }
        B::Lt | B::Gt | B::Lte | B::Gte => {
            let numeric = |t: &Ty| t.is_scalar() && t.base() != Some(Base::Bool);
            if numeric(a) && numeric(b) {
                Ok(bool_t)
            } else if matches!((a, b), (Ty::Num { rows: r1, cols: 1, .. }, Ty::Num { rows: r2, cols: 1, .. }) if *r1 > 1 && r1 == r2)
            {
                Err(format!(
                    "operator `{name}` compares scalars, not {a} and {b} (use lessThan, greaterThan, ...)"
                ))
            } else {
                Err(no())
            }
        }
        B::LShift | B::RShift => {
            let (
                Ty::Num {
                    base: ba,
                    rows: ra,
                    cols: 1,
                },
                Ty::Num {
                    base: bb,
                    rows: rb,
                    cols: 1,
                },
            ) = (a, b)
            else {
                return Err(no());
            };
            let int = |x: &Base| matches!(x, Base::Int | Base::Uint);
            if int(ba) && int(bb) && (ra == rb || *rb == 1) {
                Ok(a.clone())
            } else {
                Err(no())
            }
        }
        _ => {
            let (
                Ty::Num {
                    base: ba,
                    rows: ra,
                    cols: ca,
                },
                Ty::Num {
                    base: bb,
                    rows: rb,
                    cols: cb,
                },
            ) = (a, b)
            else {
                return Err(no());
            };
            if *ba == Base::Bool || *bb == Base::Bool {
                return Err(no());
            }
            // Common base by implicit conversion (matrices only to double).
            let base = (*ba).max(*bb);
            let integer = matches!(base, Base::Int | Base::Uint);
            if matches!(op, B::Mod | B::BitAnd | B::BitOr | B::BitXor) && !integer {
                return Err(no());
            }
            let (ma, mb) = (*ca > 1, *cb > 1);
            let sa = *ra == 1 && *ca == 1;
            let sb = *rb == 1 && *cb == 1;
            if sa {
                return Ok(b.with_base(base));
            }
            if sb {
                return Ok(a.with_base(base));
            }
            match (ma, mb) {
                (false, false) if ra == rb => Ok(a.with_base(base)),
                (true, true) if *op == B::Mult => {
                    if ca == rb {
                        Ok(Ty::num(base, *ra, *cb))
                    } else {
                        Err(no())
                    }
                }
                (true, true) if matches!(op, B::Add | B::Sub | B::Div) && ra == rb && ca == cb => {
                    Ok(a.with_base(base))
                }
                // matrix * column vector, row vector * matrix
                (true, false) if *op == B::Mult && ca == rb => Ok(Ty::num(base, *ra, 1)),
                (false, true) if *op == B::Mult && ra == rb => Ok(Ty::num(base, *cb, 1)),
                _ => Err(no()),
            }
        }
    }
}

/// Every instantiation of a generic built-in signature.
fn instantiate(name: &str, ret: &str, params: &[&str], decls: &Decls) -> Vec<(Ty, Vec<Ty>)> {
    let all: Vec<&str> = std::iter::once(ret).chain(params.iter().copied()).collect();
    let has_mat = all.iter().any(|t| *t == "mat" || *t == "dmat");
    let sizes: &[u8] = if all
        .iter()
        .any(|t| t.starts_with("gen") || t.starts_with("vec"))
    {
        &[1, 2, 3, 4]
    } else {
        &[1]
    };
    let mats: Vec<(u8, u8)> = if has_mat {
        (2..=4).flat_map(|c| (2..=4).map(move |r| (c, r))).collect()
    } else {
        vec![(0, 0)]
    };
    let mut out = Vec::new();
    for &n in sizes {
        for &(c, r) in &mats {
            let one = |t: &str| -> Option<Ty> {
                let base = match t.get(3..) {
                    Some("F") => Some(Base::Float),
                    Some("D") => Some(Base::Double),
                    Some("I") => Some(Base::Int),
                    Some("U") => Some(Base::Uint),
                    Some("B") => Some(Base::Bool),
                    _ => None,
                };
                if let Some(b) = base {
                    if t.starts_with("gen") {
                        return Some(Ty::num(b, n, 1));
                    }
                    if t.starts_with("vec") {
                        return (n > 1).then(|| Ty::num(b, n, 1));
                    }
                }
                match t {
                    "mat" => Some(Ty::num(Base::Float, r, c)),
                    "dmat" => Some(Ty::num(Base::Double, r, c)),
                    _ => parse_type(t, decls),
                }
            };
            // Functions of square matrices only.
            if has_mat && c != r && matches!(name, "determinant" | "inverse") {
                continue;
            }
            // transpose flips the shape.
            let r_ty = match (name, one(ret)) {
                ("transpose", Some(Ty::Num { base, rows, cols })) => {
                    Some(Ty::num(base, cols, rows))
                }
                (_, t) => t,
            };
            let ps: Option<Vec<Ty>> = params.iter().map(|p| one(p)).collect();
            if let (Some(r_ty), Some(ps)) = (r_ty, ps) {
                out.push((r_ty, ps));
            }
        }
    }
    out
}

/// Texture, image and atomic functions: the result from the first argument.
fn opaque_function(name: &str, args: &[Option<Ty>]) -> Option<Ty> {
    let first = args.first()?.as_ref()?;
    let vec4 = |prefix: char| {
        let base = match prefix {
            'i' => Base::Int,
            'u' => Base::Uint,
            _ => Base::Float,
        };
        Ty::num(base, 4, 1)
    };
    let dims = |s: &str| -> Option<u8> {
        let s = s
            .strip_prefix(['i', 'u'])
            .filter(|r| r.starts_with("sampler") || r.starts_with("image"))
            .unwrap_or(s);
        let s = s.trim_start_matches("sampler").trim_start_matches("image");
        let s = s.trim_end_matches("Shadow");
        Some(match s {
            "1D" | "Buffer" => 1,
            "2D" | "2DRect" | "1DArray" | "Cube" | "2DMS" | "External" => 2,
            "3D" | "2DArray" | "CubeArray" | "2DMSArray" => 3,
            _ => return None,
        })
    };
    let size = |n: u8| {
        if n == 1 {
            Ty::scalar(Base::Int)
        } else {
            Ty::num(Base::Int, n, 1)
        }
    };
    if name.starts_with("atomicCounter") {
        return Some(Ty::scalar(Base::Uint));
    }
    if name.starts_with("atomic") {
        return Some(first.clone());
    }
    let Ty::Opaque(s) = first else { return None };
    // `isampler2D`, `uimage3D`: integer kinds; `sampler2D`, `image2D`: float.
    let prefix = match s.as_bytes() {
        [p @ (b'i' | b'u'), b's' | b'i', ..] => *p as char,
        _ => 'f',
    };
    if name.starts_with("image") {
        return match name {
            "imageLoad" => Some(vec4(prefix)),
            "imageStore" => Some(Ty::Void),
            "imageSize" => dims(s).map(size),
            "imageSamples" => Some(Ty::scalar(Base::Int)),
            _ if name.starts_with("imageAtomic") => Some(match prefix {
                'i' => Ty::scalar(Base::Int),
                'u' => Ty::scalar(Base::Uint),
                _ => Ty::scalar(Base::Float),
            }),
            _ => None,
        };
    }
    match name {
        "textureSize" => dims(s).map(size),
        "textureQueryLod" | "textureQueryLOD" => Some(Ty::num(Base::Float, 2, 1)),
        "textureQueryLevels" | "textureSamples" => Some(Ty::scalar(Base::Int)),
        "texture"
        | "textureProj"
        | "textureLod"
        | "textureOffset"
        | "textureProjOffset"
        | "textureLodOffset"
        | "textureProjLod"
        | "textureProjLodOffset"
        | "textureGrad"
        | "textureGradOffset"
        | "textureProjGrad"
        | "textureProjGradOffset"
        | "texelFetch"
        | "texelFetchOffset" => Some(if s.contains("Shadow") {
            Ty::scalar(Base::Float)
        } else {
            vec4(prefix)
        }),
        "textureGather" | "textureGatherOffset" | "textureGatherOffsets" => Some(vec4(prefix)),
        _ => {
            // GLSL 1.10 forms (`texture2D`, `shadow2DProj`, `textureCubeLod`,
            // ...): a vec4 (of the sampler's kind with EXT_gpu_shader4).
            let rest = name
                .strip_prefix("texture")
                .or_else(|| name.strip_prefix("shadow"))?;
            let legacy = ["1D", "2D", "3D", "Cube"]
                .iter()
                .any(|d| rest.starts_with(d))
                && !rest.contains("Size")
                && !name.starts_with("texel");
            legacy.then(|| vec4(prefix))
        }
    }
}

/// Type-check `expr` at `step` of `model`. `Ok(None)`: the type is not
/// known (or the expression does not parse: the instrumenter reports that).
pub(crate) fn check(
    model: &ShaderModel,
    step: StepId,
    expr: &str,
) -> Result<Option<Ty>, crate::InstrumentError> {
    let Some(st) = model.model.steps.get(step.0 as usize) else {
        return Ok(None);
    };
    let macros = model.probe_macros(step);
    let Ok((e, base)) =
        crate::parse::parse_expr_spanned(expr, &model.model.type_names, &macros, model.version)
    else {
        return Ok(None);
    };
    // A literal its type cannot hold (side effects are the instrumenter's
    // refusal: this stays a type query, also of assignments).
    crate::effects::literals(&e).map_err(|message| crate::InstrumentError::BadExpression {
        expr: expr.to_string(),
        message,
    })?;
    let decls = Decls::collect(&model.tu);
    let checker = Checker {
        scope: &st.scope,
        decls: &decls,
        stage: model.stage,
        line: st.line,
        column: st.column,
        source: &model.source,
        macros: &macros,
        lines: &model.pp,
        probe: expr,
        base,
    };
    let result = checker.value(&e).and_then(|t| match t {
        Some(Ty::Void) => err(
            start(&e),
            format!("`{}` has no value (it returns void)", expr.trim()),
        ),
        t => Ok(t),
    });
    result.map_err(|te| {
        let column = te
            .at
            .filter(|&at| at >= base && at <= base + expr.len())
            .and_then(|at| expr.get(..at - base))
            .map(|before| before.chars().count() + 1);
        let message = match column {
            Some(c) => format!("{} at column {c}", te.message),
            None => te.message,
        };
        crate::InstrumentError::BadExpression {
            expr: expr.to_string(),
            message,
        }
    })
}
