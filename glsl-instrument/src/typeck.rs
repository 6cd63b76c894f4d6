//! Type checking of a probe expression at one step: the type of `EXPR`
//! from the variables in scope there (locals, parameters, globals, inputs,
//! uniforms, the stage's built-ins), struct and block members, arrays,
//! swizzles, constructors, operators with GLSL's implicit conversions,
//! and built-in and user functions with their overloads.
//!
//! Errors are reported only when certain. Anything this checker does not
//! model (an unknown function, an extension's type, a macro it cannot see
//! through) gives an unknown type and no error: the driver decides.

use glsl_lang::ast;

use crate::builtins;
use crate::parse::line_col;
use crate::steps::type_string;
use crate::{ShaderModel, StepId, Variable};
mod decls;
mod ops;
mod signatures;
mod ty;

pub(crate) use decls::{Decls, struct_fields};
use ops::{binary, binary_shape_unknown};
use signatures::{instantiate, opaque_function};
use ty::constant_index;
use ty::converts;
pub(crate) use ty::{Base, Ty, parse_type};

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
            E::Unary(op, a) => return self.unary(op, a),
            E::PostInc(a) | E::PostDec(a) => return self.post_step(e, a),
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
            E::Assignment(l, op, r) => return self.assignment(l, op, r),
            E::Bracket(a, i) => return self.index(a, i),
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

    /// A prefix operator applied to `a`.
    fn unary(&self, op: &ast::UnaryOp, a: &ast::Expr) -> Res {
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
        Ok(Some(t))
    }

    /// `a++` or `a--` (`e`).
    fn post_step(&self, e: &ast::Expr, a: &ast::Expr) -> Res {
        let Some(t) = self.value(a)? else {
            return Ok(None);
        };
        if !matches!(t.base(), Some(b) if b != Base::Bool) {
            let name = if matches!(e.content, ast::ExprData::PostInc(_)) {
                "++"
            } else {
                "--"
            };
            return err(start(e), format!("no operator `{name}` for {t}"));
        }
        Ok(Some(t))
    }

    /// `l op= r`: the type of `l`.
    fn assignment(&self, l: &ast::Expr, op: &ast::AssignmentOp, r: &ast::Expr) -> Res {
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
        Ok(Some(tl))
    }

    /// `a[i]`.
    fn index(&self, a: &ast::Expr, i: &ast::Expr) -> Res {
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
        Ok(Some(elem))
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
