//! The calls of the memcheck rewrite: each argument in the context its
//! parameter gives it (`out`: a write, `inout`: both, a memory atomic's
//! first: atomic), the locals' flags an `out` argument sets, image
//! coordinates against `imageSize`, atomic counters against the range
//! bound at their binding.

use glsl_lang::ast;

use super::Space;
use super::rewrite::{Ctx, Rewrite, assign, call, comma, pure_root, root_name, take, u, v};
use super::scope::{Dir, Home, ImageShape, MEMORY_ATOMICS, Var};
use crate::parse::expr_text;

const IMAGE_CALLS: [&str; 11] = [
    "imageLoad",
    "imageStore",
    "imageAtomicAdd",
    "imageAtomicMin",
    "imageAtomicMax",
    "imageAtomicAnd",
    "imageAtomicOr",
    "imageAtomicXor",
    "imageAtomicExchange",
    "imageAtomicCompSwap",
    "imageAtomicFloatAdd",
];
const COUNTER_CALLS: [&str; 13] = [
    "atomicCounter",
    "atomicCounterIncrement",
    "atomicCounterDecrement",
    "atomicCounterAdd",
    "atomicCounterSubtract",
    "atomicCounterMin",
    "atomicCounterMax",
    "atomicCounterAnd",
    "atomicCounterOr",
    "atomicCounterXor",
    "atomicCounterExchange",
    "atomicCounterCompSwap",
    "atomicCounterAddARB",
];

impl Rewrite<'_> {
    pub(super) fn call(&mut self, e: &mut ast::Expr) {
        let ast::ExprData::FunCall(id, args) = &mut e.content else {
            return;
        };
        // `a.length()`: nothing is read.
        if let ast::FunIdentifierData::Expr(callee) = &id.content
            && matches!(callee.content, ast::ExprData::Dot(..))
        {
            return;
        }
        let name = id
            .as_ident()
            .map(|i| i.as_str().to_string())
            .unwrap_or_default();
        let user = self.g.functions.contains_key(&name);
        if !user && COUNTER_CALLS.contains(&name.as_str()) {
            return self.counter_call(e);
        }
        if !user && IMAGE_CALLS.contains(&name.as_str()) {
            return self.image_call(e);
        }
        let memory_atomic = !user && MEMORY_ATOMICS.contains(&name.as_str());
        let dirs = self.g.directions(&name, args.len());
        let mut set = Vec::new();
        let mut check = Vec::new();
        for (i, a) in args.iter_mut().enumerate() {
            let dir = dirs
                .as_ref()
                .and_then(|d| d.get(i).copied())
                .unwrap_or(Dir::In);
            let ctx = match (memory_atomic && i == 0, dir) {
                (true, _) => Ctx::Atomic,
                (false, Dir::In) => Ctx::Read,
                (false, Dir::Out) => Ctx::Write,
                (false, Dir::InOut) => Ctx::ReadWrite,
            };
            if let Some(flag) = self.root_flag(a) {
                match ctx {
                    Ctx::Write => set.push(flag),
                    Ctx::ReadWrite => check.push((flag, root_name(a), (a.span, expr_text(a)))),
                    _ => {}
                }
            }
            self.expr(a, ctx);
        }
        for (flag, name, at) in check {
            self.checked_read(e, &flag, &name, &at);
        }
        for flag in set {
            let inner = take(e);
            *e = comma(
                assign(v(&flag), ast::ExprData::BoolConst(true).into()),
                inner,
            );
        }
    }

    /// `imageLoad(img, P)` → `imageLoad(img, gldbg_mc_img(P, imageSize(img), site))`.
    fn image_call(&mut self, e: &mut ast::Expr) {
        let whole = e.clone();
        let ast::ExprData::FunCall(_, args) = &mut e.content else {
            return;
        };
        for a in args.iter_mut().skip(1) {
            self.expr(a, Ctx::Read);
        }
        if args.len() < 2 || self.survey {
            return;
        }
        let img = args[0].clone();
        let (root, pure) = pure_root(&img);
        let Some(Var {
            home: Home::Image { binding, shape },
            ..
        }) = root.and_then(|r| self.lookup(&r))
        else {
            return;
        };
        if !pure {
            self.not_checked.insert(
                "image coordinates where the image is chosen by an expression with side effects"
                    .into(),
            );
            return;
        }
        let words = match shape {
            ImageShape::One => 1,
            ImageShape::Two => 2,
            ImageShape::Three | ImageShape::Cube | ImageShape::CubeArray => 3,
        };
        let check = match shape {
            ImageShape::CubeArray => "gldbg_mc_imgca",
            _ => "gldbg_mc_img",
        };
        // An element of an image array: its binding where the index is a constant.
        let binding = match &img.content {
            ast::ExprData::Variable(_) => binding,
            ast::ExprData::Bracket(_, i) => match i.content {
                ast::ExprData::IntConst(k) => {
                    binding.zip(u32::try_from(k).ok()).map(|(b, k)| b + k)
                }
                ast::ExprData::UIntConst(k) => binding.map(|b| b + k),
                _ => None,
            },
            _ => None,
        };
        let site = self.site(&whole, expr_text(&img), Space::Image, None, binding, words);
        let coord = take(&mut args[1]);
        args[1] = call(check, vec![coord, call("imageSize", vec![img]), u(site)]);
    }

    /// `atomicCounterIncrement(c)` → `(gldbg_mc_ctr(offset, binding, site), ...)`.
    fn counter_call(&mut self, e: &mut ast::Expr) {
        let ast::ExprData::FunCall(_, args) = &mut e.content else {
            return;
        };
        for a in args.iter_mut().skip(1) {
            self.expr(a, Ctx::Read);
        }
        let Some(first) = args.first_mut() else {
            return;
        };
        let (name, extra) = match &first.content {
            ast::ExprData::Variable(n) => (n.0.to_string(), Some(0)),
            ast::ExprData::Bracket(b, i) => match (&b.content, &i.content) {
                (ast::ExprData::Variable(n), ast::ExprData::IntConst(k)) => {
                    (n.0.to_string(), u32::try_from(*k).ok())
                }
                (ast::ExprData::Variable(n), ast::ExprData::UIntConst(k)) => {
                    (n.0.to_string(), Some(*k))
                }
                (ast::ExprData::Variable(n), _) => (n.0.to_string(), None),
                _ => return,
            },
            _ => return,
        };
        // A dynamic index into a counter array: its bounds.
        self.expr(first, Ctx::Atomic);
        let Some(Var {
            home: Home::Counter { binding, offset },
            ..
        }) = self.lookup(&name)
        else {
            return;
        };
        if self.survey {
            return;
        }
        let (Some(offset), Some(extra)) = (offset, extra) else {
            self.not_checked.insert(format!(
                "atomic counter `{name}` against its buffer (a dynamic index or an offset gldbg cannot compute)"
            ));
            return;
        };
        if binding as usize >= super::ATOMIC_COUNTER_BINDINGS {
            return;
        }
        self.counters = true;
        let site = self.site(e, name.clone(), Space::Counter, None, Some(binding), 1);
        let inner = take(e);
        *e = comma(
            call(
                "gldbg_mc_ctr",
                vec![u(offset + 4 * extra), u(binding), u(site)],
            ),
            inner,
        );
    }
}
