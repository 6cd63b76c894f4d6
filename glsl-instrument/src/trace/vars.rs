//! Which variables a trace record holds and how their values are laid
//! out: before a step, the function's parameters and locals in scope plus
//! the writable globals the shader uses (user outputs, written built-in
//! outputs, global variables); in the entry record, the inputs, uniforms
//! and built-in inputs it reads. Each variable is split in parts
//! (parts.rs), each component one word; what cannot be stored (opaque,
//! unsized, too many parts, doubles without `unpackDouble2x32`) is left out.

use std::collections::{HashMap, HashSet};

use glsl_lang::ast;

use super::{TracedPart, TracedVar, VarRole};
use crate::steps::declared_variables;
use crate::typeck::Decls;
use crate::{BaseType, ShaderModel, Stage, ValueType, Variable};

/// What a global is to the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Global {
    /// An input or a uniform (entry record).
    Input,
    /// Writable by the shader: `defined` where it has an initialiser.
    Writable { defined: bool },
    /// Constants, storage buffers: not traced.
    Skip,
}

/// Built-in outputs (written by the shader where it names them).
fn builtin_output(stage: Stage, name: &str) -> bool {
    matches!(
        name,
        "gl_Position"
            | "gl_PointSize"
            | "gl_ClipDistance"
            | "gl_CullDistance"
            | "gl_ClipVertex"
            | "gl_FrontColor"
            | "gl_BackColor"
            | "gl_FrontSecondaryColor"
            | "gl_BackSecondaryColor"
            | "gl_FragDepth"
            | "gl_SampleMask"
            | "gl_FragColor"
            | "gl_FragData"
    ) || (stage == Stage::Geometry && matches!(name, "gl_Layer" | "gl_ViewportIndex"))
}

fn storage(q: Option<&ast::TypeQualifier>) -> Vec<ast::StorageQualifierData> {
    q.into_iter()
        .flat_map(|q| q.qualifiers.iter())
        .filter_map(|s| match &s.content {
            ast::TypeQualifierSpecData::Storage(st) => Some(st.content.clone()),
            _ => None,
        })
        .collect()
}

/// A global's kind from its storage qualifiers.
fn kind_of(stage: Stage, quals: &[ast::StorageQualifierData], defined: bool) -> Global {
    use ast::StorageQualifierData as S;
    let has = |q: S| quals.contains(&q);
    if has(S::Const) || has(S::Buffer) {
        Global::Skip
    } else if has(S::Uniform) || has(S::In) || has(S::Attribute) {
        Global::Input
    } else if has(S::Varying) {
        match stage {
            Stage::Fragment => Global::Input,
            _ => Global::Writable { defined: false },
        }
    } else if has(S::Out) || has(S::Shared) {
        Global::Writable { defined: false }
    } else {
        Global::Writable { defined }
    }
}

/// A variable's parts: path and type.
type Parts = Vec<(String, ValueType)>;

/// The variables of the shader, told apart, and their layouts.
pub(crate) struct Vars<'m> {
    m: &'m ShaderModel,
    decls: Decls,
    /// User globals: name → (type, kind).
    globals: HashMap<String, (String, Global)>,
    builtins: HashSet<String>,
    /// Names the shader's functions mention.
    used: HashSet<String>,
    has_double: bool,
    /// Parts (path, type) by (name, type); `None`: not stored.
    parts: HashMap<(String, String), Option<Parts>>,
}

impl<'m> Vars<'m> {
    pub fn new(m: &'m ShaderModel, has_double: bool) -> Vars<'m> {
        let mut globals = HashMap::new();
        let mut used = HashSet::new();
        for d in &m.tu.0 {
            match &d.content {
                ast::ExternalDeclarationData::Declaration(decl) => {
                    let (quals, defined) = match &decl.content {
                        ast::DeclarationData::InitDeclaratorList(l) => (
                            storage(l.head.ty.qualifier.as_ref()),
                            l.head.initializer.is_some(),
                        ),
                        ast::DeclarationData::Block(b) => (storage(Some(&b.qualifier)), false),
                        _ => continue,
                    };
                    for v in declared_variables(decl) {
                        globals.insert(v.name, (v.ty, kind_of(m.stage, &quals, defined)));
                    }
                }
                ast::ExternalDeclarationData::FunctionDefinition(_) => {
                    crate::parse::words(&crate::parse::print_tu(std::slice::from_ref(d)), &mut used)
                }
                _ => {}
            }
        }
        let builtins = crate::builtins::scope_variables(m.stage, m.version, m.es, true)
            .map(|v| v.name.to_string())
            .collect();
        Vars {
            m,
            decls: Decls::collect(&m.tu),
            globals,
            builtins,
            used,
            has_double,
            parts: HashMap::new(),
        }
    }

    /// The role of `v` in the scope of function `func` (`None`: not in a
    /// step record).
    fn role(
        &self,
        params: &HashMap<String, (String, bool)>,
        locals: &HashSet<String>,
        v: &Variable,
    ) -> Option<VarRole> {
        if locals.contains(&v.name) {
            return Some(VarRole::Local);
        }
        if let Some((ty, defined)) = params.get(&v.name)
            && *ty == v.ty
        {
            return Some(VarRole::Param { defined: *defined });
        }
        if let Some((ty, kind)) = self.globals.get(&v.name)
            && *ty == v.ty
        {
            return match kind {
                Global::Writable { defined } if self.used.contains(&v.name) => {
                    Some(VarRole::Global { defined: *defined })
                }
                _ => None,
            };
        }
        if self.builtins.contains(&v.name) {
            let written = builtin_output(self.m.stage, &v.name) && self.used.contains(&v.name);
            return written.then_some(VarRole::Global { defined: false });
        }
        Some(VarRole::Local)
    }

    /// Parameters of function `func`: name → (type, defined on entry).
    pub fn params(&self, func: usize) -> HashMap<String, (String, bool)> {
        let decl = self.m.model.functions[func].decl;
        let ast::ExternalDeclarationData::FunctionDefinition(def) = &self.m.tu.0[decl].content
        else {
            return HashMap::new();
        };
        let mut out = HashMap::new();
        for p in &def.prototype.parameters {
            if let ast::FunctionParameterDeclarationData::Named(q, d) = &p.content {
                let quals = storage(q.as_ref());
                let defined = !quals.contains(&ast::StorageQualifierData::Out);
                let ty = crate::steps::type_string(&d.ty, d.ident.array_spec.as_ref());
                out.insert(d.ident.ident.0.to_string(), (ty, defined));
            }
        }
        out
    }

    /// The variables of a record with `scope`, in function `func`, where
    /// `locals` are the names its local declarations bring into scope
    /// there (a local hides a global or parameter of the same name).
    pub fn record(
        &mut self,
        func: usize,
        scope: &[Variable],
        locals: &HashSet<String>,
    ) -> Vec<TracedVar> {
        let params = self.params(func);
        let roles: Vec<(Variable, VarRole)> = scope
            .iter()
            .filter_map(|v| Some((v.clone(), self.role(&params, locals, v)?)))
            .collect();
        self.layout(roles)
    }

    /// The entry record's variables: the inputs, uniforms and built-in
    /// inputs in `scope` (main's first step) the shader's functions name.
    pub fn entry(&mut self, scope: &[Variable]) -> Vec<TracedVar> {
        let roles: Vec<(Variable, VarRole)> = scope
            .iter()
            .filter(|v| self.used.contains(&v.name))
            .filter(|v| match self.globals.get(&v.name) {
                Some((ty, kind)) => *ty == v.ty && *kind == Global::Input,
                None => self.builtins.contains(&v.name) && !builtin_output(self.m.stage, &v.name),
            })
            .map(|v| (v.clone(), VarRole::Input))
            .collect();
        self.layout(roles)
    }

    /// Lay the variables out one after the other, leaving out those that
    /// cannot be stored.
    fn layout(&mut self, vars: Vec<(Variable, VarRole)>) -> Vec<TracedVar> {
        let mut offset = 0u32;
        let mut out = Vec::new();
        for (v, role) in vars {
            let Some(parts) = self.parts_of(&v) else {
                continue;
            };
            let parts = parts
                .into_iter()
                .map(|(path, ty)| {
                    let p = TracedPart { path, ty, offset };
                    offset += ty.components as u32 * words_per_component(ty);
                    p
                })
                .collect();
            out.push(TracedVar {
                name: v.name,
                ty: v.ty,
                role,
                parts,
            });
        }
        out
    }

    fn parts_of(&mut self, v: &Variable) -> Option<Parts> {
        let key = (v.name.clone(), v.ty.clone());
        if let Some(p) = self.parts.get(&key) {
            return p.clone();
        }
        let parts = crate::parts::variable_parts(&self.decls, &v.name, &v.ty).and_then(|ps| {
            ps.into_iter()
                .map(|p| Some((p.path, value_type(&p.ty)?)))
                .collect::<Option<Vec<_>>>()
        });
        let parts = parts
            .filter(|ps| self.has_double || ps.iter().all(|(_, t)| t.base != BaseType::Double));
        self.parts.insert(key, parts.clone());
        parts
    }
}

/// Words one component of `ty` takes.
pub(super) fn words_per_component(ty: ValueType) -> u32 {
    match ty.base {
        BaseType::Double => 2,
        _ => 1,
    }
}

/// Words a record's values take.
pub(super) fn record_words(vars: &[TracedVar]) -> u32 {
    vars.iter()
        .flat_map(|v| v.parts.iter())
        .map(|p| p.ty.components as u32 * words_per_component(p.ty))
        .sum()
}

/// "vec3" → float × 3, "bool" → bool × 1; `None` for anything else.
pub(super) fn value_type(ty: &str) -> Option<ValueType> {
    let scalar = |s: &str| match s {
        "float" => Some(BaseType::Float),
        "int" => Some(BaseType::Int),
        "uint" => Some(BaseType::Uint),
        "bool" => Some(BaseType::Bool),
        "double" => Some(BaseType::Double),
        _ => None,
    };
    if let Some(base) = scalar(ty) {
        return Some(ValueType {
            base,
            components: 1,
        });
    }
    let at = ty.find("vec")?;
    let base = match &ty[..at] {
        "" => BaseType::Float,
        "i" => BaseType::Int,
        "u" => BaseType::Uint,
        "b" => BaseType::Bool,
        "d" => BaseType::Double,
        _ => return None,
    };
    let n: u8 = ty[at + 3..].parse().ok()?;
    let max = if base == BaseType::Double { 2 } else { 4 };
    (2..=max).contains(&n).then_some(ValueType {
        base,
        components: n,
    })
}

/// The names local declarations bring into scope at the step found at
/// `path` (`part` of its statement) in `body`: declarations before it in
/// every enclosing list, the declaring init of an enclosing `for` (also at
/// its condition and increment), the declaring condition of an enclosing
/// `while`.
pub(crate) fn locals_at(
    body: &ast::CompoundStatement,
    path: &[crate::steps::PathElem],
    part: crate::steps::Part,
) -> HashSet<String> {
    use crate::steps::{Part, PathElem};
    use ast::IterationStatementData as It;
    use ast::StatementData as S;
    let mut out = HashSet::new();
    let declare = |d: &ast::Declaration, out: &mut HashSet<String>| {
        out.extend(declared_variables(d).into_iter().map(|v| v.name));
    };
    let mut list: Option<&[ast::Statement]> = Some(&body.statement_list);
    let mut cur: Option<&ast::Statement> = None;
    for e in path {
        match (e, cur.map(|c| &c.content)) {
            (PathElem::Index(i), _) => {
                let l = match cur.map(|c| &c.content) {
                    None => list.unwrap_or(&[]),
                    Some(S::Compound(c)) => &c.statement_list,
                    Some(S::Switch(sw)) => &sw.body,
                    _ => return out,
                };
                for st in l.iter().take(*i) {
                    if let S::Declaration(d) = &st.content {
                        declare(d, &mut out);
                    }
                }
                list = None;
                cur = l.get(*i);
            }
            (PathElem::Then | PathElem::Else, Some(S::Selection(sel))) => {
                cur = match (&sel.rest.content, e) {
                    (ast::SelectionRestStatementData::Statement(t), PathElem::Then)
                    | (ast::SelectionRestStatementData::Else(t, _), PathElem::Then)
                    | (ast::SelectionRestStatementData::Else(_, t), PathElem::Else) => Some(t),
                    _ => return out,
                };
            }
            (PathElem::Body, Some(S::Iteration(it))) => {
                loop_decls(it, &mut out);
                cur = match &it.content {
                    It::While(_, b) | It::DoWhile(b, _) | It::For(_, _, b) => Some(b),
                };
            }
            _ => return out,
        }
    }
    if matches!(part, Part::LoopCond | Part::ForInc)
        && let Some(S::Iteration(it)) = cur.map(|c| &c.content)
        && let It::For(init, _, _) = &it.content
        && let ast::ForInitStatementData::Declaration(d) = &init.content
    {
        declare(d, &mut out);
    }
    out
}

/// What a loop declares for its body: a `for` init, a `while` condition.
fn loop_decls(it: &ast::IterationStatement, out: &mut HashSet<String>) {
    use ast::IterationStatementData as It;
    match &it.content {
        It::For(init, rest, _) => {
            if let ast::ForInitStatementData::Declaration(d) = &init.content {
                out.extend(declared_variables(d).into_iter().map(|v| v.name));
            }
            if let Some(c) = &rest.condition
                && let ast::ConditionData::Assignment(_, ident, _) = &c.content
            {
                out.insert(ident.0.to_string());
            }
        }
        It::While(c, _) => {
            if let ast::ConditionData::Assignment(_, ident, _) = &c.content {
                out.insert(ident.0.to_string());
            }
        }
        It::DoWhile(..) => {}
    }
}
