//! The checker's work budget, and the size of a type counted as a tree.
//!
//! Types are shared graphs: `let v1 = (v0, v0)` makes a node whose two
//! children are one node, so fifty such lines make a type of fifty nodes
//! that is a tree of 2^50. Every walk over types visits each node once
//! (memos and visit marks), but to be sure that no walk, present or
//! future, can be made to take for ever, each one also charges the
//! [`Work`] counter: one unit per node visited, per expression inferred,
//! per field compared, per row of a match matrix. When a program's check
//! has spent [`WORK_LIMIT`] units, every walk stops at once and gives a
//! neutral answer, the checker reports `E2013` at the innermost expression
//! being inferred (or at the item being checked), and every later
//! diagnostic is dropped: the program is rejected (fail closed), never
//! accepted on a partial check.
//!
//! The budget counts units of work, not time, so a program is accepted or
//! rejected the same way on every machine. It is generous: the standard
//! library and every example need less than a fiftieth of it; see
//! `docs/performance.md` for what it takes in wall time.
//!
//! Separately, [`Checker::tree_size_over`] counts a type's size as the
//! tree it prints as, with a memo (each node's size is computed once) and
//! a cut-off (counting stops as soon as the limit is passed), so counting
//! itself is bounded by the number of distinct nodes below the cut-off.
//! A `let` value or a call whose type is larger than
//! [`MAX_INSTANCE_NODES`] as a tree is reported as `E2010`.
//!
//! Invariants: [`Work::charge`] never overflows (it saturates); once the
//! budget is spent it stays spent until [`Work::restart`]; a check whose
//! budget ran out always carries an `E2013` error.

use std::cell::Cell;
use std::collections::HashMap;

use crate::diagnostic::{Code, Diagnostic};
use crate::span::Span;
use crate::types::exhaust;
use crate::types::infer::{Checker, MAX_INSTANCE_NODES};
use crate::types::ty::{Node, TyId};
use crate::types::{STACK_CHUNK, STACK_RED_ZONE};

/// The units of work one check (one program, or one REPL input) may
/// spend. See `docs/performance.md` for the time this takes.
pub const WORK_LIMIT: u64 = 40_000_000;

/// A counter of work units against [`WORK_LIMIT`]. Interior mutability
/// lets read-only walks (`&self`) charge too.
#[derive(Clone, Debug, Default)]
pub(super) struct Work {
    used: Cell<u64>,
}

impl Work {
    /// Spend `units`; false when the budget is (now) spent.
    pub(super) fn charge(&self, units: u64) -> bool {
        let used = self.used.get().saturating_add(units);
        self.used.set(used);
        used <= WORK_LIMIT
    }

    /// Whether the budget is spent.
    pub(super) fn out(&self) -> bool {
        self.used.get() > WORK_LIMIT
    }

    /// The units spent so far.
    pub(super) fn used(&self) -> u64 {
        self.used.get()
    }

    /// The units left.
    pub(super) fn remaining(&self) -> u64 {
        WORK_LIMIT.saturating_sub(self.used.get())
    }

    /// Start a new check, with the whole budget.
    pub(super) fn restart(&self) {
        self.used.set(0);
    }
}

impl Checker {
    /// Spend `units` of the check's budget; false when it is spent.
    pub(super) fn charge(&self, units: u64) -> bool {
        self.arena.work.charge(units)
    }

    /// Whether the check's budget is spent.
    pub(super) fn out_of_work(&self) -> bool {
        self.arena.work.out()
    }

    /// If the budget ran out inside the expression or item at `span` and
    /// that has not been reported yet, report it there.
    pub(super) fn report_out_of_work(&mut self, span: Span) {
        if !self.out_of_work() || self.work_reported {
            return;
        }
        self.work_reported = true;
        self.report(
            Diagnostic::new(
                Code::CheckBudget,
                format!(
                    "expected a program the checker can check within {WORK_LIMIT} units of work, found one that needs more"
                ),
            )
            .with_primary(span, "the checker's budget ran out here")
            .with_help(
                "make the expensive parts smaller (split large matches, do not pair a value with itself again and again), or split the program",
            ),
        );
    }

    /// Check the exhaustiveness of `arms` within what is left of the
    /// budget (at most [`exhaust::BUDGET`]), charging what it spent. A
    /// check stopped by the program's budget leaves it spent.
    pub(super) fn exhaustive(&self, arms: &[exhaust::Arm]) -> exhaust::Report {
        let left = usize::try_from(self.arena.work.remaining()).unwrap_or(usize::MAX);
        let allowed = exhaust::BUDGET.min(left);
        let report = exhaust::check_within(arms, allowed);
        let over = u64::from(report.gave_up && allowed < exhaust::BUDGET);
        self.charge((report.used as u64).saturating_add(over));
        report
    }

    /// Whether `ty`, counted as a tree (a shared part once per path to
    /// it), has more than `limit` nodes. Bounded: each node is counted
    /// once, and counting stops past `limit`.
    pub(super) fn tree_size_over(&mut self, ty: TyId, limit: usize) -> bool {
        self.tree_size(ty, limit, &mut HashMap::new()) > limit
    }

    /// The tree size of `ty`, or any number above `limit` once it is
    /// known to be larger (a part already reported as too large counts as
    /// larger than any limit).
    fn tree_size(&mut self, ty: TyId, limit: usize, memo: &mut HashMap<TyId, usize>) -> usize {
        stacker::maybe_grow(STACK_RED_ZONE, STACK_CHUNK, || {
            let t = self.arena.resolve(ty);
            if let Some(n) = memo.get(&t) {
                return *n;
            }
            if self.oversized.contains(&t) {
                return usize::MAX;
            }
            if let Some(n) = self.arena.known_size(t) {
                return n;
            }
            if !self.charge(1) {
                return limit.saturating_add(1);
            }
            let mut total = 1usize;
            let mut ground = !matches!(self.arena.node(t), Node::Var { .. } | Node::Error);
            for c in self.arena.children(t) {
                total = total.saturating_add(self.tree_size(c, limit, memo));
                ground = ground && self.arena.known_size(c).is_some();
                if total > limit {
                    break;
                }
            }
            memo.insert(t, total);
            if ground && total <= limit {
                self.arena.remember_size(t, total);
            }
            total
        })
    }

    /// If `ty` is larger than the checker builds (as a tree), report it at
    /// `span` and give `Error` instead, so later walks stay small.
    pub(super) fn limit_tree_size(&mut self, ty: TyId, span: Span) -> TyId {
        if self.out_of_work() || !self.tree_size_over(ty, MAX_INSTANCE_NODES) {
            return ty;
        }
        let error = self.error_ty();
        self.oversized.insert(error);
        // Built from a value already reported as too large: one report.
        let mut memo = HashMap::new();
        if self.out_of_work() || self.tree_size(ty, usize::MAX - 1, &mut memo) == usize::MAX {
            return error;
        }
        self.report(
            Diagnostic::new(
                Code::TooComplex,
                format!(
                    "expected types of at most {MAX_INSTANCE_NODES} parts, found a larger one here"
                ),
            )
            .with_primary(span, "this has a type too large to check")
            .with_help("give large values declared types, or build them from smaller parts instead of pairing a value with itself again and again"),
        );
        error
    }
}
