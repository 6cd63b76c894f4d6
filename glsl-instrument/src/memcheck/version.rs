//! Versioned statements: a statement of a quiet run (quiet.rs) that
//! reads `shared` arrays quietly becomes
//! `if (gldbg_mc_okA && ...) { plain } else { checked }`. `gldbg_mc_okN`
//! (emit.rs) is true once every component of array N was written in the
//! workgroup: no read of it can then find an uninitialised element, and
//! the plain copy checks those reads' bounds alone (every other access
//! as in the checked copy). Both copies take the same sites, so a
//! finding reads the same whichever copy ran. A declaration is not
//! versioned (its names must stay in scope after it): its reads keep
//! their checks.

use glsl_lang::ast;

use super::rewrite::{Replay, Rewrite, compound, v};
use crate::instrument::build::binary;

impl Rewrite<'_> {
    /// Rewrite `s` (a statement of a list); versioned where it is in a
    /// quiet run, reads arrays quietly and is no declaration; returns the
    /// statements to put after it ([`Rewrite::stmt`]).
    pub(super) fn versioned(&mut self, s: &mut ast::Statement) -> Vec<ast::Statement> {
        let eligible = !self.survey
            && !self.versioning
            && !self.quiet.is_empty()
            && !matches!(s.content, ast::StatementData::Declaration(_));
        if !eligible {
            return self.stmt(s);
        }
        let original = s.clone();
        let base = self.sites.len();
        let before = std::mem::take(&mut self.quiet_used);
        self.versioning = true;
        let extra = self.stmt(s);
        let used = std::mem::replace(&mut self.quiet_used, before);
        if used.is_empty() || !extra.is_empty() {
            self.versioning = false;
            return extra;
        }
        let mut plain = original;
        self.plain = used.iter().map(|j| self.shared[*j].0.clone()).collect();
        self.replay = Some(Replay {
            next: base,
            end: self.sites.len(),
            bad: false,
        });
        let plain_extra = self.stmt(&mut plain);
        let replay = self.replay.take();
        self.plain.clear();
        self.versioning = false;
        let same = replay.is_some_and(|r| !r.bad && r.next == r.end);
        if !same || !plain_extra.is_empty() {
            return extra;
        }
        let cond = used
            .iter()
            .map(|j| v(&format!("gldbg_mc_ok{j}")))
            .reduce(|a, b| binary(ast::BinaryOpData::And, a, b))
            .expect("at least one array");
        let checked = std::mem::replace(s, compound(vec![]));
        // Both branches in braces: an `if` without `else` inside stays
        // apart from this one's `else`.
        *s = ast::StatementData::Selection(
            ast::SelectionStatementData {
                cond: Box::new(cond),
                rest: ast::SelectionRestStatementData::Else(
                    Box::new(compound(vec![plain])),
                    Box::new(compound(vec![checked])),
                )
                .into(),
            }
            .into(),
        )
        .into();
        extra
    }
}
