//! Static value ranges of integer index expressions: where an index is
//! provably within its array's literal size, memcheck needs no bounds
//! check there. Known: `int`/`uint` literals, `gl_LocalInvocationID.xyz`
//! and `gl_LocalInvocationIndex` (from the shader's literal
//! `local_size`), locals whose range the rewrite recorded (declared with
//! a value and never written in their function, canonical loop counters
//! in their loop's body), `+ - *`, `&` and `%` by a non-negative value,
//! `>>` by a literal, `min`/`max`/`clamp`, `int()`/`uint()`, `?:` and
//! `,`. A range is claimed only where no arithmetic can wrap and every
//! operand's type (`int` or `uint`, after GLSL's implicit conversion) is
//! known: anything else is unknown, and its check stays.

use std::collections::HashSet;

use glsl_lang::ast;

use super::rewrite::Rewrite;
use super::scope::{Globals, Range, expr_writes, writes};
use crate::steps::call_name;

/// Two operands converted to their common type.
fn unify(a: Range, b: Range) -> Option<(Range, Range, bool)> {
    let signed = a.signed && b.signed;
    Some((a.as_type(signed)?, b.as_type(signed)?, signed))
}

/// What the ranges of names come from.
pub(super) struct Env<'a> {
    /// The range the rewrite recorded for a name in scope.
    pub var: &'a dyn Fn(&str) -> Option<Range>,
    /// The work group size where the shader declares it with literals.
    pub local_size: Option<[u32; 3]>,
}

/// The range of `e`, `None` where it is not known.
pub(super) fn range_of(e: &ast::Expr, env: &Env<'_>) -> Option<Range> {
    use ast::ExprData as E;
    match &e.content {
        E::IntConst(i) => Range::new(i64::from(*i), i64::from(*i), true),
        E::UIntConst(u) => Range::new(i64::from(*u), i64::from(*u), false),
        E::Variable(n) if n.0.as_str() == "gl_LocalInvocationIndex" => {
            let [x, y, z] = env.local_size?;
            Range::new(0, i64::from(x) * i64::from(y) * i64::from(z) - 1, false)
        }
        E::Variable(n) => (env.var)(n.0.as_str()),
        E::Dot(base, f) => {
            let E::Variable(n) = &base.content else {
                return None;
            };
            if n.0.as_str() != "gl_LocalInvocationID" {
                return None;
            }
            let size = env.local_size?;
            let d = match f.0.as_str() {
                "x" => 0,
                "y" => 1,
                "z" => 2,
                _ => return None,
            };
            Range::new(0, i64::from(size[d]) - 1, false)
        }
        E::Binary(op, a, b) => binary(&op.content, a, b, env),
        E::Unary(op, a) => match op.content {
            ast::UnaryOpData::Add => range_of(a, env),
            ast::UnaryOpData::Minus => {
                let r = range_of(a, env)?;
                r.signed.then(|| Range::new(-r.hi, -r.lo, true)).flatten()
            }
            _ => None,
        },
        E::Ternary(_, b, c) => {
            let (b, c, signed) = unify(range_of(b, env)?, range_of(c, env)?)?;
            Range::new(b.lo.min(c.lo), b.hi.max(c.hi), signed)
        }
        E::Comma(_, b) => range_of(b, env),
        E::FunCall(..) => call(e, env),
        _ => None,
    }
}

fn binary(op: &ast::BinaryOpData, a: &ast::Expr, b: &ast::Expr, env: &Env<'_>) -> Option<Range> {
    use ast::BinaryOpData as B;
    let (ra, rb) = (range_of(a, env), range_of(b, env));
    match op {
        B::Add | B::Sub | B::Mult => {
            let (a, b, signed) = unify(ra?, rb?)?;
            let (lo, hi) = match op {
                B::Add => (a.lo + b.lo, a.hi + b.hi),
                B::Sub => (a.lo - b.hi, a.hi - b.lo),
                _ => {
                    // Operands fit 32 bits: the products fit i128.
                    let p = [(a.lo, b.lo), (a.lo, b.hi), (a.hi, b.lo), (a.hi, b.hi)]
                        .map(|(x, y)| i64::try_from(i128::from(x) * i128::from(y)).ok());
                    let p: Option<Vec<i64>> = p.into_iter().collect();
                    let p = p?;
                    (*p.iter().min()?, *p.iter().max()?)
                }
            };
            Range::new(lo, hi, signed)
        }
        // x & c with c >= 0 is in [0, c] whatever x is; a `uint` side
        // makes the result `uint` whatever the other side's type.
        B::BitAnd => match (ra, rb) {
            (Some(a), Some(b)) => {
                let (a, b, signed) = unify(a, b)?;
                let hi = [a, b].iter().filter(|r| r.lo >= 0).map(|r| r.hi).min()?;
                Range::new(0, hi, signed)
            }
            (Some(c), None) | (None, Some(c)) if !c.signed => Range::new(0, c.hi, false),
            _ => None,
        },
        // x % c, c > 0: in [0, c - 1] for x >= 0 (a `uint` c makes x `uint`).
        B::Mod => {
            let c = rb?;
            if c.lo <= 0 {
                return None;
            }
            match ra {
                Some(a) => {
                    let (a, c, signed) = unify(a, c)?;
                    (a.lo >= 0)
                        .then(|| Range::new(0, a.hi.min(c.hi - 1), signed))
                        .flatten()
                }
                None if !c.signed => Range::new(0, c.hi - 1, false),
                None => None,
            }
        }
        B::RShift => {
            let (a, s) = (ra?, rb?);
            (a.lo >= 0 && s.lo == s.hi && (0..32).contains(&s.lo))
                .then(|| Range::new(a.lo >> s.lo, a.hi >> s.lo, a.signed))
                .flatten()
        }
        _ => None,
    }
}

/// `min`, `max`, `clamp`, `int()` and `uint()`.
fn call(e: &ast::Expr, env: &Env<'_>) -> Option<Range> {
    let ast::ExprData::FunCall(id, args) = &e.content else {
        return None;
    };
    let (name, n) = match &id.content {
        ast::FunIdentifierData::TypeSpecifier(t) if t.array_specifier.is_none() => {
            match t.ty.content {
                ast::TypeSpecifierNonArrayData::Int => ("int", args.len()),
                ast::TypeSpecifierNonArrayData::UInt => ("uint", args.len()),
                _ => return None,
            }
        }
        _ => call_name(e)?,
    };
    let r: Vec<Option<Range>> = args.iter().map(|a| range_of(a, env)).collect();
    match (name, n) {
        ("uint", 1) => {
            let a = r[0]?;
            Range::new(a.lo, a.hi, false).filter(|_| a.lo >= 0)
        }
        ("int", 1) => {
            let a = r[0]?;
            Range::new(a.lo, a.hi, true)
        }
        ("min", 2) | ("max", 2) => match (r[0], r[1]) {
            (Some(a), Some(b)) => {
                let (a, b, signed) = unify(a, b)?;
                match name {
                    "min" => Range::new(a.lo.min(b.lo), a.hi.min(b.hi), signed),
                    _ => Range::new(a.lo.max(b.lo), a.hi.max(b.hi), signed),
                }
            }
            // min(x, c) of a `uint` c: `uint`, at most c.
            (Some(c), None) | (None, Some(c)) if name == "min" && !c.signed => {
                Range::new(0, c.hi, false)
            }
            _ => None,
        },
        ("clamp", 3) => {
            let (lo, hi) = (r[1]?, r[2]?);
            let (lo, hi, signed) = unify(lo, hi)?;
            if lo.hi > hi.lo {
                return None; // undefined results
            }
            match r[0] {
                Some(x) => {
                    let x = x.as_type(signed)?;
                    Range::new(
                        x.lo.max(lo.lo).min(hi.lo),
                        x.hi.max(lo.hi).min(hi.hi),
                        signed,
                    )
                }
                // A `uint` bound makes x `uint`; `int` bounds leave x's
                // type unknown.
                None if !signed => Range::new(lo.lo, hi.hi, false),
                None => None,
            }
        }
        _ => None,
    }
}

/// The range of a local declared `int`/`uint` with this initializer's
/// range (a `uint` takes a non-negative `int`).
pub(super) fn declared(ty: &str, init: Option<Range>) -> Option<Range> {
    match ty {
        "uint" => init?.as_type(false),
        "int" => init.filter(|r| r.signed),
        _ => None,
    }
}

/// The work group size of a compute shader that declares it with
/// literals (no specialisation constants, no variable size); 1 where a
/// dimension is not declared.
pub(super) fn local_size(tu: &[ast::ExternalDeclaration]) -> Option<[u32; 3]> {
    let mut size = [1u32; 3];
    let mut any = false;
    for d in tu {
        let ast::ExternalDeclarationData::Declaration(decl) = &d.content else {
            continue;
        };
        let ast::DeclarationData::TypeOnly(q) = &decl.content else {
            continue;
        };
        for spec in &q.qualifiers {
            let ast::TypeQualifierSpecData::Layout(l) = &spec.content else {
                continue;
            };
            for id in &l.ids {
                let ast::LayoutQualifierSpecData::Identifier(n, v) = &id.content else {
                    continue;
                };
                let name = n.0.as_str();
                if !name.starts_with("local_size") {
                    continue;
                }
                let d = match name {
                    "local_size_x" => 0,
                    "local_size_y" => 1,
                    "local_size_z" => 2,
                    _ => return None, // `_id`, `variable`
                };
                let value = match v.as_deref().map(|v| &v.content) {
                    Some(ast::ExprData::IntConst(i)) => u32::try_from(*i).ok()?,
                    Some(ast::ExprData::UIntConst(u)) => *u,
                    _ => return None,
                };
                size[d] = value.max(1);
                any = true;
            }
        }
    }
    any.then_some(size)
}

/// A canonical counted loop `for (T k = L0; k < L1; ++k)` (`<=`, `L1 >
/// k`, `k++`, `k += c` with c > 0 also), `k` written nowhere else in it:
/// the counter's name and its range inside the body. `init` is the
/// counter's initializer's range, `types` the counter's declared type.
pub(super) struct Counted<'a> {
    pub name: &'a str,
    pub ty: &'a str,
    pub init: Option<Range>,
    pub cond: &'a ast::Expr,
    pub post: &'a ast::Expr,
    pub body: &'a ast::Statement,
}

impl Counted<'_> {
    pub fn range(&self, g: &Globals, env: &Env<'_>) -> Option<Range> {
        let k = declared(self.ty, self.init)?;
        let is_k = |e: &ast::Expr| matches!(&e.content, ast::ExprData::Variable(n) if n.0.as_str() == self.name);
        // The bound: k < E (E > k) or k <= E (E >= k).
        let (bound, inclusive) = match &self.cond.content {
            ast::ExprData::Binary(op, a, b) => match (&op.content, is_k(a), is_k(b)) {
                (ast::BinaryOpData::Lt, true, false) => (b, false),
                (ast::BinaryOpData::Lte, true, false) => (b, true),
                (ast::BinaryOpData::Gt, false, true) => (a, false),
                (ast::BinaryOpData::Gte, false, true) => (a, true),
                _ => return None,
            },
            _ => return None,
        };
        let bound = range_of(bound, env)?.as_type(k.signed)?;
        let step = match &self.post.content {
            ast::ExprData::PostInc(a) if is_k(a) => 1,
            ast::ExprData::Unary(op, a) if op.content == ast::UnaryOpData::Inc && is_k(a) => 1,
            ast::ExprData::Assignment(a, op, c)
                if op.content == ast::AssignmentOpData::Add && is_k(a) =>
            {
                let c = range_of(c, env)?.as_type(k.signed)?;
                if c.lo < 1 {
                    return None;
                }
                c.hi
            }
            _ => return None,
        };
        // No other write of k: not in the body, not in the condition.
        let mut w = HashSet::new();
        writes(self.body, g, &mut w);
        expr_writes(self.cond, g, &mut w);
        if w.contains(self.name) {
            return None;
        }
        let hi = if inclusive { bound.hi } else { bound.hi - 1 };
        // The last increment must not wrap (k <= hi, k + step fits).
        Range::new(k.lo, hi + step, k.signed)?;
        Range::new(k.lo, hi, k.signed)
    }
}

impl Rewrite<'_> {
    /// What range.rs needs of the rewrite's scopes.
    fn env_range(&self, e: &ast::Expr) -> Option<Range> {
        let var = |n: &str| self.lookup(n).and_then(|v| v.range);
        let env = Env {
            var: &var,
            local_size: self.local_size,
        };
        range_of(e, &env)
    }

    /// The range of a local declared `name` of type `ty` with `init`:
    /// where its function writes no variable of that name, declares none
    /// other and takes no such parameter, and no global has that name.
    pub(super) fn declared_range(
        &self,
        name: &str,
        ty: &str,
        init: Option<&ast::Initializer>,
    ) -> Option<Range> {
        if self.fn_unranged.contains(name) || self.g.vars.contains_key(name) {
            return None;
        }
        let ast::InitializerData::Simple(e) = &init?.content else {
            return None;
        };
        declared(ty, self.env_range(e))
    }

    /// A canonical counted `for` loop's counter and its range in the
    /// body (before the loop is rewritten).
    pub(super) fn counter(
        &self,
        init: &ast::ForInitStatement,
        rest: &ast::ForRestStatement,
        body: &ast::Statement,
    ) -> Option<(String, Range)> {
        let ast::ForInitStatementData::Declaration(d) = &init.content else {
            return None;
        };
        let ast::DeclarationData::InitDeclaratorList(list) = &d.content else {
            return None;
        };
        if !list.tail.is_empty() || list.head.array_specifier.is_some() {
            return None;
        }
        let name = list.head.name.as_ref()?.0.as_str();
        let ty = crate::steps::type_string(&list.head.ty.ty, None);
        let ast::InitializerData::Simple(first) = &list.head.initializer.as_ref()?.content else {
            return None;
        };
        let ast::ConditionData::Expr(cond) = &rest.condition.as_ref()?.content else {
            return None;
        };
        let counted = Counted {
            name,
            ty: &ty,
            init: self.env_range(first),
            cond,
            post: rest.post_expr.as_ref()?,
            body,
        };
        let var = |n: &str| match n == name {
            true => None, // the bound may not name the counter
            false => self.lookup(n).and_then(|v| v.range),
        };
        let env = Env {
            var: &var,
            local_size: self.local_size,
        };
        Some((name.to_string(), counted.range(self.g, &env)?))
    }

    /// `idx` is provably a valid index of a level of `size` elements.
    pub(super) fn in_range(&self, idx: &ast::Expr, size: Option<u32>) -> bool {
        size.is_some_and(|n| self.env_range(idx).is_some_and(|r| r.within(n)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The range of `text` with x: uint [0, 7], i: int [-4, 4], a work
    /// group of 16 x 4 (u, c: unknown).
    fn r(text: &str) -> Option<(i64, i64, bool)> {
        let s = crate::memcheck::parse_statements(&format!("{text};"));
        let ast::StatementData::Expression(e) = &s[0].content else {
            panic!("{text}")
        };
        let var = |n: &str| match n {
            "x" => Range::new(0, 7, false),
            "i" => Range::new(-4, 4, true),
            _ => None,
        };
        let env = Env {
            var: &var,
            local_size: Some([16, 4, 1]),
        };
        range_of(e.0.as_ref().unwrap(), &env).map(|r| (r.lo, r.hi, r.signed))
    }

    #[test]
    fn arithmetic_without_wrapping() {
        assert_eq!(r("x * 2u + 1u"), Some((1, 15, false)));
        assert_eq!(r("i - 1"), Some((-5, 3, true)));
        assert_eq!(r("int(x) + 1"), Some((1, 8, true)));
        // uint below zero, products past 32 bits, mixed signs: unknown.
        assert_eq!(r("x - 1u"), None);
        assert_eq!(r("x * 4000000000u"), None);
        assert_eq!(r("4000000000u * 4000000000u"), None);
        assert_eq!(r("i + x"), None);
        assert_eq!(r("uint(i)"), None);
        assert_eq!(r("-x"), None);
        assert_eq!(r("-i"), Some((-4, 4, true)));
        assert_eq!(r("c ? x : 20u"), Some((0, 20, false)));
    }

    #[test]
    fn masks_remainders_shifts_and_clamps() {
        assert_eq!(r("u & 15u"), Some((0, 15, false)));
        assert_eq!(r("u & 15"), None); // u may be a negative int
        assert_eq!(r("u % 8u"), Some((0, 7, false)));
        assert_eq!(r("u % 8"), None);
        assert_eq!(r("x % 3u"), Some((0, 2, false)));
        assert_eq!(r("x >> 1u"), Some((0, 3, false)));
        assert_eq!(r("i >> 1"), None);
        assert_eq!(r("min(u, 15u)"), Some((0, 15, false)));
        assert_eq!(r("max(u, 1u)"), None);
        assert_eq!(r("clamp(i, 0, 3)"), Some((0, 3, true)));
        assert_eq!(r("clamp(u, 0u, 9u)"), Some((0, 9, false)));
        assert_eq!(r("clamp(u, 2u, 1u)"), None);
    }

    #[test]
    fn work_group_ids_from_the_layout() {
        assert_eq!(r("gl_LocalInvocationID.y"), Some((0, 3, false)));
        assert_eq!(r("gl_LocalInvocationIndex"), Some((0, 63, false)));
        assert_eq!(r("gl_GlobalInvocationID.x"), None);
        let size = |src: &str| {
            let m = crate::ShaderModel::parse(src, crate::Stage::Compute).unwrap();
            local_size(&m.tu.0)
        };
        assert_eq!(
            size(
                "#version 430\nlayout(local_size_x = 8, local_size_y = 2) in;\nvoid main() { barrier(); }\n"
            ),
            Some([8, 2, 1])
        );
        assert_eq!(
            size("#version 430\nlayout(local_size_x_id = 0) in;\nvoid main() { barrier(); }\n"),
            None
        );
    }
}
