//! The index checks of one access path (`Rewrite::checks`): each array
//! level's index through a bounds check, and for the element of a tracked
//! array (a storage array the shader writes, a `shared` array) the race and
//! uninitialised-read check with its flat element index (outer levels kept
//! in temporaries) and the components the access touches.

use glsl_lang::ast;

use crate::parse::expr_text;

use super::rewrite::{
    Access, Ctx, Op, Rewrite, add, assign, call, is_const, length_of, mul, take, u, v, zeroed,
};
use super::scope::{Home, Ty};
use super::{Space, TrackedArray};

/// The text of `whole` up to its `n`-th step (`tile[y]` of `tile[y][x]`).
fn level_text(whole: &ast::Expr, n: usize) -> String {
    let mut ops = Vec::new();
    let root = super::rewrite::flatten(whole.clone(), &mut ops);
    ops.truncate(n);
    expr_text(&super::rewrite::rebuild(root, ops))
}

impl Rewrite<'_> {
    /// The index checks of one path (`levels`: its array levels).
    pub(super) fn checks(&mut self, root: &ast::Expr, ops: &mut [Op], a: &Access) {
        let Access {
            levels,
            element_run,
            component,
            home,
            key,
            ctx,
            arrayed_block,
            in_struct,
            whole,
        } = a;
        let (levels, element_run, component, ctx) = (&levels[..], *element_run, *component, *ctx);
        let (key, arrayed_block, in_struct) = (key.as_str(), *arrayed_block, *in_struct);
        let (space, block) = match home {
            Home::Storage { block } => (Space::Storage, Some(block.clone())),
            Home::Shared => (Space::Shared, None),
            Home::Local { .. } => (Space::Local, None),
            _ => return,
        };
        if self.survey {
            if space == Space::Storage && ctx != Ctx::Read && element_run.is_some() {
                self.written.insert(key.to_string());
            }
            if space == Space::Shared && ctx != Ctx::Read && levels.is_empty() {
                self.whole.insert(key.to_string());
            }
            return;
        }
        if levels.is_empty() {
            if ctx != Ctx::Read && space != Space::Local {
                self.not_checked.insert(
                    "races on storage and shared variables that are not arrays (scalars, whole structs)".into(),
                );
            }
            return;
        }
        if arrayed_block && space == Space::Storage {
            self.not_checked
                .insert("arrays in arrays of storage blocks".into());
            return;
        }
        let tracked = element_run
            .and_then(|run| self.tracking(run, levels, space, &block, key, in_struct, ctx));
        // Elements of a two-dimensional run are told as (row, column); a
        // deeper run's as its flat index (said by the variable's name).
        let dims = match tracked.as_ref() {
            Some((a, b, ..)) if b - a == 2 => 2,
            _ => 1,
        };
        let key = match tracked.as_ref() {
            Some((a, b, ..)) if b - a > 2 => format!("{key} (flat element)"),
            _ => key.to_string(),
        };
        let key = key.as_str();
        // Levels whose index is provably in range (range.rs): no bounds
        // check there.
        let proven: Vec<bool> = levels
            .iter()
            .map(|(k, ty)| match &ops[*k] {
                Op::Index(i) => self.in_range(i, ty.outer_size()),
                Op::Dot(_) => false,
            })
            .collect();
        // A plain copy's quiet read (version.rs): bounds only, the row
        // kept for a two-dimensional element's report where its column
        // is not proven.
        let plain = tracked.as_ref().is_some_and(|t| t.2.starts_with('p'));
        let last_proven = tracked.as_ref().is_some_and(|(_, b, ..)| {
            levels
                .iter()
                .zip(&proven)
                .any(|((k, _), p)| k + 1 == *b && *p)
        });
        let plan = Plan {
            tracked: tracked.as_ref(),
            component,
            ctx,
            dims,
            plain,
            keep_row: !plain || (!last_proven && dims == 2),
        };
        let mut prefix: Option<ast::Expr> = None;
        for ((k, _), proven) in levels.iter().zip(proven) {
            let k = *k;
            let Op::Index(idx) = &ops[k] else { continue };
            let in_run = tracked
                .as_ref()
                .is_some_and(|(a, b, ..)| (*a..*b).contains(&k));
            let last_of_run = tracked.as_ref().is_some_and(|(_, b, ..)| k + 1 == *b);
            if !in_run && space != Space::Storage && is_const(idx) {
                continue;
            }
            let len = length_of(zeroed(root, ops, k));
            // The tracked element's site: its whole index (2 words for a
            // two-dimensional run); an outer level's: that level alone.
            let (text, words) = match (&tracked, last_of_run) {
                (Some(_), true) => (expr_text(whole), dims),
                _ if k + 1 == ops.len() => (expr_text(whole), 1),
                _ => (level_text(whole, k + 1), 1),
            };
            let place = (whole.span, text);
            let site = self.site_at(&place, key.to_string(), space, block.clone(), None, words);
            let Op::Index(idx) = &mut ops[k] else {
                continue;
            };
            let index = take(idx);
            let checked = self.level_check(&plan, k, proven, (index, len, site), &mut prefix);
            let Op::Index(idx) = &mut ops[k] else {
                continue;
            };
            **idx = checked;
        }
    }

    /// The checked index of level `k` of a path (`index`, its level's
    /// `.length()` and site), `prefix` the flat index of the tracked
    /// run's outer levels so far.
    fn level_check(
        &mut self,
        plan: &Plan<'_>,
        k: usize,
        proven: bool,
        (index, len, site): (ast::Expr, ast::Expr, u32),
        prefix: &mut Option<ast::Expr>,
    ) -> ast::Expr {
        let in_run = plan.tracked.is_some_and(|(a, b, ..)| (*a..*b).contains(&k));
        let last_of_run = plan.tracked.is_some_and(|(_, b, ..)| k + 1 == *b);
        match (plan.tracked, last_of_run, in_run) {
            (Some(_), true, _) if plan.plain => {
                let pre = prefix
                    .take()
                    .map(|p| mul(p, call("uint", vec![len.clone()])));
                match (proven, pre) {
                    (true, _) => index,
                    (false, pre) => self.bounds_call(index, len, site, pre),
                }
            }
            (Some((_, _, which, ncomp)), true, _) => {
                // The flat index of the row's first element.
                let pre = match prefix.take() {
                    None => u(0),
                    Some(p) => mul(p, call("uint", vec![len.clone()])),
                };
                let element = Element {
                    which,
                    ncomp: *ncomp,
                    component: plan.component,
                    dims: plan.dims,
                };
                tracked_check(&element, index, len, site, pre, plan.ctx)
            }
            (Some(_), false, true) if plan.keep_row => {
                // An outer level of a tracked run: kept in a temporary
                // for the flat element index (((t0 * L1) + t1) * L2 ...).
                let t = format!("gldbg_mc_t{}", self.temps);
                self.temps += 1;
                let tu = call("uint", vec![v(&t)]);
                *prefix = Some(match prefix.take() {
                    None => tu,
                    Some(p) => add(mul(p, call("uint", vec![len.clone()])), tu),
                });
                let index = match proven {
                    true => index,
                    false => self.bounds_call(index, len, site, None),
                };
                assign(v(&t), call("int", vec![index]))
            }
            _ if proven => index,
            _ => self.bounds_call(index, len, site, None),
        }
    }

    /// The tracking of an access's element run `(a, b)`: the run, the
    /// check function's tracked array (`k<N>`: storage, `s<N>`: shared)
    /// and the element's components; `None` (said in the not-checked
    /// list where it matters) for an array whose elements are not tracked.
    #[allow(clippy::too_many_arguments)]
    fn tracking(
        &mut self,
        (a, b): (usize, usize),
        levels: &[(usize, Ty)],
        space: Space,
        block: &Option<String>,
        key: &str,
        in_struct: bool,
        ctx: Ctx,
    ) -> Option<(usize, usize, String, u32)> {
        let elem = levels.iter().find(|(k, _)| *k == b - 1)?.1.clone();
        let elem = Ty::scalar(&elem.base);
        let ncomp = elem.components();
        if self.g.structs.contains_key(&elem.base) {
            // Different invocations may own different members.
            self.not_checked.insert(format!(
                "races and uninitialised reads in `{key}`, an array of structs (bounds are checked)"
            ));
            return None;
        }
        if in_struct && space == Space::Shared {
            self.not_checked.insert(format!(
                    "races and uninitialised reads in `{key}`, an array inside a shared struct (bounds are checked)"
                ));
            return None;
        }
        match space {
            Space::Storage if self.written.contains(key) => {
                let k = match self.storage_keys.get(key) {
                    Some(k) => *k,
                    None => {
                        self.storage.push(TrackedArray {
                            block: block.clone().unwrap_or_default(),
                            array: key.to_string(),
                            components: ncomp,
                        });
                        self.storage_keys
                            .insert(key.to_string(), self.storage.len() - 1);
                        self.storage.len() - 1
                    }
                };
                Some((a, b, format!("k{k}"), ncomp))
            }
            Space::Shared if self.whole.contains(key) => {
                self.not_checked.insert(format!(
                    "races and uninitialised reads of `{key}` (the shader assigns it whole)"
                ));
                None
            }
            Space::Shared if self.shared_on => {
                let j = match self.shared.iter().position(|(n, _)| n == key) {
                    Some(j) => j,
                    None => {
                        let var = self
                            .g
                            .vars
                            .get(key)
                            .map(|v| v.ty.clone())
                            .unwrap_or(Ty::parse("?"));
                        self.shared.push((key.to_string(), var));
                        self.shared.len() - 1
                    }
                };
                // A read in an interval that writes nothing of it: the
                // uninitialised check alone (quiet.rs).
                // In a versioned statement's plain copy (version.rs): its
                // bounds alone.
                let quiet = ctx == Ctx::Read && self.quiet.contains(key);
                let which = match (quiet, self.plain.contains(key)) {
                    (true, true) => format!("p{j}"),
                    (true, false) => {
                        self.quiet_used.insert(j);
                        format!("q{j}")
                    }
                    _ => format!("s{j}"),
                };
                Some((a, b, which, ncomp))
            }
            _ => None,
        }
    }
}

/// How [`Rewrite::checks`] checks a path's levels: its tracked run (the
/// run, check function, components), the components the access selects,
/// its use, its element's dimensions, whether it is a plain copy's quiet
/// read (version.rs: bounds alone), whether the run's outer levels are
/// kept in temporaries (the element's flat index or a report's row).
struct Plan<'a> {
    tracked: Option<&'a (usize, usize, String, u32)>,
    component: Option<(u32, u32)>,
    ctx: Ctx,
    dims: u32,
    plain: bool,
    keep_row: bool,
}

/// The tracked element of an access: its check function (`k<N>`: storage
/// array N, `s<N>`: shared array N), its components and the ones the
/// access selects, its index's dimensions (2: told as row and column).
struct Element<'a> {
    which: &'a str,
    ncomp: u32,
    component: Option<(u32, u32)>,
    dims: u32,
}

/// The call checking the last index of a tracked element.
fn tracked_check(
    e: &Element<'_>,
    index: ast::Expr,
    len: ast::Expr,
    site: u32,
    pre: ast::Expr,
    ctx: Ctx,
) -> ast::Expr {
    let (c0, nc) = match e.component {
        Some((c, n)) if e.ncomp > 1 && c + n <= e.ncomp => (c, n),
        _ => (0, e.ncomp),
    };
    let (fname, mut args) = match e.which.split_at(1) {
        ("k", n) => (
            "gldbg_mc_at".to_string(),
            vec![
                index,
                len,
                u(site),
                pre,
                u(ctx as u32),
                u(n.parse().unwrap_or(0)),
            ],
        ),
        ("q", n) => (
            format!("gldbg_mc_aq{n}"),
            vec![index, len, u(site), pre, u(ctx as u32)],
        ),
        (_, n) => (
            format!("gldbg_mc_ah{n}"),
            vec![index, len, u(site), pre, u(ctx as u32)],
        ),
    };
    args.extend([u(c0), u(nc), u(e.ncomp), u(e.dims)]);
    call(&fname, args)
}
