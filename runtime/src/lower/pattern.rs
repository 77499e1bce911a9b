//! Lowering patterns and `match`.
//!
//! A pattern is lowered against a value held in a local slot: each test
//! loads what it needs from the slot (or from a part of it, stored in a
//! fresh slot) and jumps to the failure label if the test fails, so a
//! failed test never leaves anything on the stack. A variable pattern
//! binds the slot itself: no copy.
//!
//! A `match` is a decision tree ([`super::decision`]); one whose tree
//! would be too large tries its arms in order instead, and the first whose
//! pattern and guard hold runs. A match that falls through
//! every arm (impossible once the checker has proved it exhaustive) stops
//! with an internal error.

use writ_lang::Span;
use writ_lang::ast::{Arm, Expr, Pattern, PatternKind};

use super::{Lowerer, Position};
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
        self.expr(scrutinee, Position::Inner);
        let slot = self.ctx().slot();
        self.emit(Op::SetLocal(slot), scrutinee.span);
        if self.match_tree(slot, arms, at) {
            return;
        }
        let mut ends = Vec::new();
        for arm in arms {
            let saved = self.push_scope();
            let mut fails = Vec::new();
            self.pattern(&arm.pattern, slot, &mut fails);
            if let Some(g) = &arm.guard {
                self.expr(g, Position::Inner);
                fails.push(self.emit(Op::JumpIfFalse(0), g.span));
            }
            self.expr(&arm.body, at);
            if at == Position::Inner {
                ends.push(self.emit(Op::Jump(0), arm.span));
            }
            self.pop_scope(saved);
            let next = self.here();
            for f in fails {
                self.patch(f, next);
            }
        }
        self.emit(Op::NoMatch, span);
        let end = self.here();
        for j in ends {
            self.patch(j, end);
        }
    }
}
