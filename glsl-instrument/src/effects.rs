//! What a probe expression may not do. `print` evaluates an expression
//! inside the app's shader at the step: an assignment, `++`/`--` or a call
//! that writes (atomics, image stores, barriers, vertex emission, a user
//! function with `out`/`inout` parameters or writing globals, buffers or
//! images, directly or through what it calls) would change what the app
//! computes after the probe, or on a real GPU write out of bounds or hang.
//! Literals the GLSL type cannot hold (`1e39` is `inf` as a float) are
//! refused too.

use std::collections::{HashMap, HashSet};

use glsl_lang::ast;
use glsl_lang::visitor::{Host, Visit, Visitor};

/// Why a probe expression is refused (the message names what it does).
fn refused(what: String) -> String {
    format!("{what}: refused, `print` evaluates without side effects")
}

/// Built-in functions with an effect besides their value: memory writes,
/// synchronization, primitive emission.
fn builtin_effect(name: &str) -> bool {
    (name.starts_with("atomic") && name != "atomicCounter")
        || name.starts_with("imageAtomic")
        || name.ends_with("Barrier")
        || name.starts_with("memoryBarrier")
        || name.ends_with("InvocationInterlockARB")
        || matches!(
            name,
            "imageStore"
                | "barrier"
                | "EmitVertex"
                | "EndPrimitive"
                | "EmitStreamVertex"
                | "EndStreamPrimitive"
                | "demote"
                | "terminateInvocation"
                | "debugPrintfEXT"
        )
}

/// Built-in functions writing the arguments at these positions (a sparse
/// texture lookup's `out` texel: any argument after the sampler, as its
/// position varies).
pub(crate) fn builtin_out_args(name: &str) -> &'static [usize] {
    match name {
        "modf" | "frexp" => &[1],
        "uaddCarry" | "usubBorrow" => &[2],
        "umulExtended" | "imulExtended" => &[2, 3],
        n if n.starts_with("sparse") && n != "sparseTexelsResidentARB" => &[1, 2, 3, 4, 5, 6],
        _ => &[],
    }
}

/// The callee's name of a call (`None`: a constructor or a method).
fn callee(id: &ast::FunIdentifier) -> Option<&str> {
    match &id.content {
        ast::FunIdentifierData::Expr(e) => match &e.content {
            ast::ExprData::Variable(v) => Some(v.0.as_str()),
            _ => None,
        },
        ast::FunIdentifierData::TypeSpecifier(_) => None,
    }
}

/// The variable an l-value writes (`a[i].f` writes `a`).
fn root(mut e: &ast::Expr) -> Option<&str> {
    loop {
        match &e.content {
            ast::ExprData::Variable(v) => return Some(v.0.as_str()),
            ast::ExprData::Bracket(a, _) | ast::ExprData::Dot(a, _) => e = a,
            _ => return None,
        }
    }
}

/// A user function as far as effects go.
#[derive(Default)]
struct Function {
    /// Names the function declares (parameters, locals).
    locals: HashSet<String>,
    /// Why the function has an effect beyond its parameters, if it does.
    effect: Option<String>,
    /// User functions it calls.
    calls: Vec<String>,
    /// Roots of what it writes.
    writes: Vec<String>,
}

fn out_positions(proto: &ast::FunctionPrototype) -> Vec<usize> {
    proto
        .parameters
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            let q = match &p.content {
                ast::FunctionParameterDeclarationData::Named(q, _)
                | ast::FunctionParameterDeclarationData::Unnamed(q, _) => q,
            };
            q.iter().flat_map(|q| q.qualifiers.iter()).any(|s| {
                matches!(&s.content, ast::TypeQualifierSpecData::Storage(st)
                    if matches!(st.content, ast::StorageQualifierData::Out | ast::StorageQualifierData::InOut))
            })
        })
        .map(|(i, _)| i)
        .collect()
}

/// Collects what a function body writes and calls.
struct Body<'a> {
    out_params: &'a HashMap<String, Vec<usize>>,
    locals: HashSet<String>,
    writes: Vec<String>,
    calls: Vec<String>,
    effect: Option<String>,
}

impl Body<'_> {
    fn write(&mut self, target: &ast::Expr) {
        self.writes
            .push(root(target).map_or_else(|| "?".to_string(), str::to_string));
    }
}

impl Visitor for Body<'_> {
    fn visit_expr(&mut self, e: &ast::Expr) -> Visit {
        use ast::ExprData as E;
        match &e.content {
            E::Assignment(l, ..) => self.write(l),
            E::Unary(op, a)
                if matches!(op.content, ast::UnaryOpData::Inc | ast::UnaryOpData::Dec) =>
            {
                self.write(a)
            }
            E::PostInc(a) | E::PostDec(a) => self.write(a),
            E::FunCall(id, args) => {
                if let Some(name) = callee(id) {
                    if builtin_effect(name) && self.effect.is_none() {
                        self.effect = Some(format!("calls `{name}`"));
                    }
                    let user = self.out_params.get(name);
                    let outs = user.map_or(builtin_out_args(name), Vec::as_slice);
                    for &i in outs {
                        if let Some(a) = args.get(i) {
                            self.write(a);
                        }
                    }
                    if user.is_some() {
                        self.calls.push(name.to_string());
                    }
                }
            }
            _ => {}
        }
        Visit::Children
    }

    fn visit_single_declaration(&mut self, d: &ast::SingleDeclaration) -> Visit {
        if let Some(n) = &d.name {
            self.locals.insert(n.0.to_string());
        }
        Visit::Children
    }

    fn visit_single_declaration_no_type(&mut self, d: &ast::SingleDeclarationNoType) -> Visit {
        self.locals.insert(d.ident.ident.0.to_string());
        Visit::Children
    }

    fn visit_condition(&mut self, c: &ast::Condition) -> Visit {
        if let ast::ConditionData::Assignment(_, id, _) = &c.content {
            self.locals.insert(id.0.to_string());
        }
        Visit::Children
    }
}

/// Names declared outside functions (a local of the same name does not
/// make a write to it local: which one is written depends on scope).
fn globals(tu: &ast::TranslationUnit) -> HashSet<String> {
    let mut out = HashSet::new();
    for d in &tu.0 {
        if let ast::ExternalDeclarationData::Declaration(decl) = &d.content {
            match &decl.content {
                ast::DeclarationData::InitDeclaratorList(l) => {
                    out.extend(l.head.name.iter().map(|n| n.0.to_string()));
                    out.extend(l.tail.iter().map(|t| t.ident.ident.0.to_string()));
                }
                ast::DeclarationData::Block(b) => match &b.identifier {
                    Some(id) => {
                        out.insert(id.ident.0.to_string());
                    }
                    None => {
                        for f in &b.fields {
                            out.extend(f.identifiers.iter().map(|i| i.ident.0.to_string()));
                        }
                    }
                },
                _ => {}
            }
        }
    }
    out
}

/// The user functions of `tu` that write outside their locals (globals,
/// buffers, images, built-in outputs) or have `out`/`inout` parameters,
/// each with the reason.
fn effectful_functions(tu: &ast::TranslationUnit) -> HashMap<String, String> {
    let mut out_params: HashMap<String, Vec<usize>> = HashMap::new();
    for d in &tu.0 {
        let proto = match &d.content {
            ast::ExternalDeclarationData::FunctionDefinition(f) => &f.prototype,
            ast::ExternalDeclarationData::Declaration(decl) => match &decl.content {
                ast::DeclarationData::FunctionPrototype(p) => p,
                _ => continue,
            },
            _ => continue,
        };
        // Overloads share a name: any `out` position counts for all.
        let list = out_params.entry(proto.name.0.to_string()).or_default();
        for i in out_positions(proto) {
            if !list.contains(&i) {
                list.push(i);
            }
        }
    }
    let global_names = globals(tu);
    let mut functions: HashMap<String, Vec<Function>> = HashMap::new();
    let mut undefined: HashSet<String> = out_params.keys().cloned().collect();
    for d in &tu.0 {
        let ast::ExternalDeclarationData::FunctionDefinition(f) = &d.content else {
            continue;
        };
        undefined.remove(f.prototype.name.0.as_str());
        let mut body = Body {
            out_params: &out_params,
            locals: HashSet::new(),
            writes: Vec::new(),
            calls: Vec::new(),
            effect: None,
        };
        for p in &f.prototype.parameters {
            if let ast::FunctionParameterDeclarationData::Named(_, d) = &p.content {
                body.locals.insert(d.ident.ident.0.to_string());
            }
        }
        f.statement.visit(&mut body);
        functions
            .entry(f.prototype.name.0.to_string())
            .or_default()
            .push(Function {
                locals: body.locals,
                effect: body.effect,
                calls: body.calls,
                writes: body.writes,
            });
    }
    // Direct effects, then through calls until nothing changes. A function
    // defined in another shader object of the stage may write anything.
    let mut effect: HashMap<String, String> = undefined
        .into_iter()
        .map(|n| {
            let why = "is defined in another shader object (gldbg cannot tell what it writes)";
            (n, why.to_string())
        })
        .collect();
    for (name, overloads) in &functions {
        for f in overloads {
            let why = f.effect.clone().or_else(|| {
                f.writes
                    .iter()
                    .find(|w| !f.locals.contains(*w) || global_names.contains(*w))
                    .map(|w| format!("writes `{w}`"))
            });
            if let Some(why) = why {
                effect.entry(name.clone()).or_insert(why);
            }
        }
    }
    loop {
        let mut changed = false;
        for (name, overloads) in &functions {
            if effect.contains_key(name) {
                continue;
            }
            let through = overloads
                .iter()
                .flat_map(|f| f.calls.iter())
                .find(|c| effect.contains_key(*c));
            if let Some(c) = through {
                let why = format!("calls `{c}`, which {}", effect[c]);
                effect.insert(name.clone(), why);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for (name, outs) in &out_params {
        if !outs.is_empty() {
            effect
                .entry(name.clone())
                .or_insert_with(|| "has `out`/`inout` parameters".to_string());
        }
    }
    effect
}

/// [`check`] of `expr` as probed at `step` of `model` (its macros), before
/// the type check (whose "returns void" would hide why `imageStore(...)`
/// is refused). An expression that does not parse passes: the later
/// stages report that.
pub(crate) fn check_probe(
    model: &crate::ShaderModel,
    step: crate::StepId,
    expr: &str,
) -> Result<(), crate::InstrumentError> {
    let macros = model.probe_macros(step);
    let Ok(e) = crate::parse::parse_expr_in(expr, &model.model.type_names, &macros, model.version)
    else {
        return Ok(());
    };
    check(&model.tu, &e).map_err(|message| crate::InstrumentError::BadExpression {
        expr: expr.to_string(),
        message,
    })
}

/// Refuse a probe expression with an effect, or a literal its type cannot
/// hold; `tu` is the shader's tree (its user functions).
pub(crate) fn check(tu: &ast::TranslationUnit, e: &ast::Expr) -> Result<(), String> {
    literals(e)?;
    let effect = effectful_functions(tu);
    struct Probe<'a> {
        effect: &'a HashMap<String, String>,
        found: Option<String>,
    }
    impl Visitor for Probe<'_> {
        fn visit_expr(&mut self, e: &ast::Expr) -> Visit {
            use ast::ExprData as E;
            if self.found.is_some() {
                return Visit::Parent;
            }
            let short = |e: &ast::Expr| {
                let t = crate::parse::expr_text(e);
                match t.char_indices().nth(40) {
                    Some((i, _)) => format!("{}...", &t[..i]),
                    None => t,
                }
            };
            self.found = match &e.content {
                E::Assignment(l, ..) => Some(format!("an assignment to `{}`", short(l))),
                E::Unary(op, a) if matches!(op.content, ast::UnaryOpData::Inc) => {
                    Some(format!("`++` on `{}`", short(a)))
                }
                E::Unary(op, a) if matches!(op.content, ast::UnaryOpData::Dec) => {
                    Some(format!("`--` on `{}`", short(a)))
                }
                E::PostInc(a) => Some(format!("`++` on `{}`", short(a))),
                E::PostDec(a) => Some(format!("`--` on `{}`", short(a))),
                E::FunCall(id, _) => callee(id).and_then(|name| {
                    if builtin_effect(name) {
                        Some(format!("`{name}` (it writes or synchronizes)"))
                    } else if !builtin_out_args(name).is_empty() && !self.effect.contains_key(name)
                    {
                        Some(format!("`{name}` (it writes its `out` argument)"))
                    } else {
                        self.effect
                            .get(name)
                            .map(|why| format!("a call of `{name}`, which {why}"))
                    }
                }),
                _ => None,
            };
            Visit::Children
        }
    }
    let mut probe = Probe {
        effect: &effect,
        found: None,
    };
    e.visit(&mut probe);
    match probe.found {
        Some(what) => Err(refused(what)),
        None => Ok(()),
    }
}

/// A float or double literal beyond its type's range (the lexer made it
/// infinite).
pub(crate) fn literals(e: &ast::Expr) -> Result<(), String> {
    struct Lits(Option<String>);
    impl Visitor for Lits {
        fn visit_expr(&mut self, e: &ast::Expr) -> Visit {
            match e.content {
                ast::ExprData::FloatConst(f) if !f.is_finite() && self.0.is_none() => {
                    self.0 = Some("a float literal out of range (more than 3.4e38)".into());
                }
                ast::ExprData::DoubleConst(d) if !d.is_finite() && self.0.is_none() => {
                    self.0 = Some("a double literal out of range (more than 1.8e308)".into());
                }
                _ => {}
            }
            Visit::Children
        }
    }
    let mut l = Lits(None);
    e.visit(&mut l);
    l.0.map_or(Ok(()), Err)
}
