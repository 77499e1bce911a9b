//! Lowering patterns and `match`.
//!
//! A pattern is lowered against a value held in a local slot: each test
//! loads what it needs from the slot (or from a part of it, stored in a
//! fresh slot) and jumps to the failure label if the test fails, so a
//! failed test never leaves anything on the stack. A variable pattern
//! binds the slot itself: no copy.
//!
//! A `match` on a variable of the running frame, and a `let` whose
//! pattern takes one apart, work on the variable's own slot; anything
//! else is computed into a new slot first. `let` patterns at the top
//! level bind globals.
//!
//! A `match` is a decision tree ([`super::decision`]); one whose tree
//! would be too large tries its arms in order instead, and the first whose
//! pattern and guard hold runs. A match that falls through
//! every arm (impossible once the checker has proved it exhaustive) stops
//! with an internal error.

use writ_lang::Span;
use writ_lang::ast::{Arm, Expr, ExprKind, Pattern, PatternKind};

use super::{Lowerer, Position, Slot};
use crate::code::{Literal, Op};

impl Lowerer {
    /// Test `pat` against the value in `slot`, binding its names in the
    /// current scope; failed tests jump to the labels pushed on `fails`.
    pub(super) fn pattern(&mut self, pat: &Pattern, slot: u32, fails: &mut Vec<usize>) {
        let span = pat.span;
        match &pat.kind {
            PatternKind::Error => {
                self.emit(Op::NoMatch, span);
            }
            PatternKind::Wildcard | PatternKind::Unit => {}
            PatternKind::Bind(name) => self.bind(name.span, slot),
            PatternKind::Bool(b) => {
                self.emit(Op::Local(slot), span);
                if !*b {
                    self.emit(Op::Not, span);
                }
                fails.push(self.emit(Op::JumpIfFalse(0), span));
            }
            PatternKind::Int(n) => {
                self.emit(Op::Local(slot), span);
                self.emit(Op::Int(*n), span);
                fails.push(self.emit(Op::TestEq(0), span));
            }
            PatternKind::Float(x) => self.literal_test(slot, Literal::Float(*x), span, fails),
            PatternKind::Str(s) => self.literal_test(slot, Literal::Str(s.clone()), span, fails),
            PatternKind::Tuple(ps) => self.parts(ps, slot, span, fails),
            PatternKind::Ctor { name, args } => {
                let Some(&id) = self.ctor_ids.get(&name.name) else {
                    self.emit(Op::NoMatch, span);
                    return;
                };
                self.emit(Op::Local(slot), span);
                fails.push(self.emit(Op::TestCtor(id, 0), span));
                self.parts(args, slot, span, fails);
            }
            PatternKind::Record { fields, .. } => {
                for f in fields {
                    let sym = self.symbol(&f.name.name);
                    self.emit(Op::Local(slot), span);
                    self.emit(Op::Field(sym), f.name.span);
                    let s = self.ctx().slot();
                    self.emit(Op::SetLocal(s), span);
                    match &f.pattern {
                        Some(p) => self.pattern(p, s, fails),
                        None => self.bind(f.name.span, s),
                    }
                }
            }
            PatternKind::List { items, rest } => {
                let n = items.len() as u32;
                self.emit(Op::Local(slot), span);
                let test = if rest.is_some() {
                    Op::TestMinLen(n, 0)
                } else {
                    Op::TestLen(n, 0)
                };
                fails.push(self.emit(test, span));
                for (i, p) in items.iter().enumerate() {
                    if matches!(p.kind, PatternKind::Wildcard) {
                        continue;
                    }
                    self.emit(Op::Local(slot), p.span);
                    self.emit(Op::Item(i as u32), p.span);
                    let s = self.ctx().slot();
                    self.emit(Op::SetLocal(s), p.span);
                    self.pattern(p, s, fails);
                }
                if let Some(name) = rest.as_ref().and_then(|r| r.name.as_ref()) {
                    self.emit(Op::Local(slot), name.span);
                    self.emit(Op::DropItems(n), name.span);
                    let s = self.ctx().slot();
                    self.emit(Op::SetLocal(s), name.span);
                    self.bind(name.span, s);
                }
            }
        }
    }

    fn literal_test(&mut self, slot: u32, lit: Literal, span: Span, fails: &mut Vec<usize>) {
        let l = self.literal(lit);
        self.emit(Op::Local(slot), span);
        self.emit(Op::Literal(l), span);
        fails.push(self.emit(Op::TestEq(0), span));
    }

    /// The parts of a tuple or constructor, each against its pattern.
    fn parts(&mut self, ps: &[Pattern], slot: u32, span: Span, fails: &mut Vec<usize>) {
        for (i, p) in ps.iter().enumerate() {
            if matches!(p.kind, PatternKind::Wildcard | PatternKind::Unit) {
                continue;
            }
            self.emit(Op::Local(slot), span);
            self.emit(Op::Part(i as u32), p.span);
            let s = self.ctx().slot();
            self.emit(Op::SetLocal(s), p.span);
            self.pattern(p, s, fails);
        }
    }

    /// `match scrutinee { arms }`.
    pub(super) fn match_(&mut self, span: Span, scrutinee: &Expr, arms: &[Arm], at: Position) {
        // A variable of the running frame is matched in its own slot;
        // anything else is computed into a new one.
        let slot = match self.own_local(scrutinee) {
            Some(s) => s,
            None => {
                self.expr(scrutinee, Position::Inner);
                let slot = self.ctx().slot();
                self.emit(Op::SetLocal(slot), scrutinee.span);
                slot
            }
        };
        if self.match_tree(slot, arms, at) {
            return;
        }
        let mut ends = Vec::new();
        for arm in arms {
            let saved = self.push_scope();
            let mut fails = Vec::new();
            self.pattern(&arm.pattern, slot, &mut fails);
            if let Some(g) = &arm.guard {
                self.branch(g, false, &mut fails);
            }
            self.expr(&arm.body, at);
            if at == Position::Inner {
                ends.push(self.emit(Op::Jump(0), arm.span));
            }
            self.pop_scope(saved);
            self.patch_here(fails);
        }
        self.emit(Op::NoMatch, span);
        self.patch_here(ends);
    }
}

impl Lowerer {
    /// Bind a top-level `let`'s pattern to its globals.
    pub(super) fn let_pattern(&mut self, pat: &Pattern) {
        let span = pat.span;
        let slot = self.ctx().slot();
        self.emit(Op::SetLocal(slot), span);
        let mut fails = Vec::new();
        let before = self.ctx().scopes.len();
        self.ctx().scopes.push(Vec::new());
        self.pattern(pat, slot, &mut fails);
        let bound = self.ctx().scopes.pop().unwrap_or_default();
        self.ctx().scopes.truncate(before);
        for (binder, local) in bound {
            if let Some(&Slot::Global(g)) = self.top.get(&binder) {
                self.emit(Op::Local(local), span);
                self.emit(Op::SetGlobal(g), span);
            }
        }
        self.fail_to_no_match(fails, span);
    }

    /// Make a failed irrefutable pattern stop the run (unreachable once
    /// checked).
    pub(super) fn fail_to_no_match(&mut self, fails: Vec<usize>, span: Span) {
        if fails.is_empty() {
            return;
        }
        let skip = self.emit(Op::Jump(0), span);
        self.patch_here(fails);
        self.emit(Op::NoMatch, span);
        self.patch_here([skip]);
    }

    /// Bind a local `let`'s pattern (the value is on the stack).
    pub(super) fn local_pattern(&mut self, pat: &Pattern) {
        if let PatternKind::Bind(name) = &pat.kind {
            let slot = self.ctx().slot();
            self.emit(Op::SetLocal(slot), pat.span);
            self.bind(name.span, slot);
            return;
        }
        let slot = self.ctx().slot();
        self.emit(Op::SetLocal(slot), pat.span);
        self.pattern_in(pat, slot);
    }

    /// Bind a local `let`'s pattern to the value in `slot`.
    pub(super) fn pattern_in(&mut self, pat: &Pattern, slot: u32) {
        let mut fails = Vec::new();
        self.pattern(pat, slot, &mut fails);
        self.fail_to_no_match(fails, pat.span);
    }

    /// The slot of `e` when it is a variable of the running frame (not a
    /// capture, a global or a function): a `match` or a `let` pattern
    /// takes it apart there rather than in a copy.
    pub(super) fn own_local(&mut self, e: &Expr) -> Option<u32> {
        match &e.kind {
            ExprKind::Var(v) => match self.slot_of(v) {
                Some(Slot::Local(s)) => Some(s),
                _ => None,
            },
            _ => None,
        }
    }
}
