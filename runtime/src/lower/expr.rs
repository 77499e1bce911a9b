//! Lowering expressions.
//!
//! `expr(e, Position::Inner)` leaves `e`'s value on the stack;
//! `expr(e, Position::Tail)` returns it from the function (so calls there
//! become tail calls).
//! Evaluation order is source order everywhere, record fields included.

use writ_lang::Span;
use writ_lang::ast::{BinOp, Expr, ExprKind, Ident, Lambda, StrPart, UnOp};

use writ_lang::types::Resolved;

use super::{FnCtx, Lowerer, Position, ResumeMode, Slot};
use crate::code::{Arith, Literal, Op};

impl Lowerer {
    /// Lower an expression.
    pub(super) fn expr(&mut self, e: &Expr, at: Position) {
        let span = e.span;
        match &e.kind {
            ExprKind::Call { callee, args } => return self.call(span, callee, args, None, at),
            ExprKind::Block(b) => return self.block(b, at),
            ExprKind::If {
                branches,
                otherwise,
            } => return self.if_(span, branches, otherwise.as_deref(), at),
            ExprKind::Match { scrutinee, arms } => return self.match_(span, scrutinee, arms, at),
            ExprKind::Binary { op, lhs, rhs } if matches!(op, BinOp::And | BinOp::Or) => {
                return self.logic(span, *op, lhs, rhs, at);
            }
            ExprKind::Binary {
                op: BinOp::Pipe,
                lhs,
                rhs,
            } => return self.pipe(span, lhs, rhs, at),
            ExprKind::Handle(h) => {
                self.handle(span, h);
            }
            ExprKind::Error => {
                self.emit(Op::NoMatch, span);
            }
            ExprKind::Unit => {
                self.emit(Op::Unit, span);
            }
            ExprKind::Bool(b) => {
                self.emit(Op::Bool(*b), span);
            }
            ExprKind::Int(n) => {
                self.emit(Op::Int(*n), span);
            }
            ExprKind::Float(x) => {
                let l = self.literal(Literal::Float(*x));
                self.emit(Op::Literal(l), span);
            }
            ExprKind::Str(s) => {
                let l = self.literal(Literal::Str(s.clone()));
                self.emit(Op::Literal(l), span);
            }
            ExprKind::Interp(parts) => {
                for p in parts {
                    match p {
                        StrPart::Text(t) => {
                            let l = self.literal(Literal::Str(t.clone()));
                            self.emit(Op::Literal(l), span);
                        }
                        StrPart::Expr(e) => self.expr(e, Position::Inner),
                    }
                }
                self.emit(Op::Interp(parts.len() as u32), span);
            }
            ExprKind::Var(name) => self.var(name),
            ExprKind::Ctor(name) => self.ctor_value(name),
            ExprKind::List(items) => {
                for i in items {
                    self.expr(i, Position::Inner);
                }
                self.emit(Op::List(items.len() as u32), span);
            }
            ExprKind::Tuple(items) => {
                for i in items {
                    self.expr(i, Position::Inner);
                }
                self.emit(Op::Tuple(items.len() as u32), span);
            }
            ExprKind::Record(fields) => {
                let shape = self.fields_in_order(fields, span);
                self.emit(Op::Record(shape), span);
            }
            ExprKind::RecordUpdate { base, fields } => {
                self.expr(base, Position::Inner);
                let shape = self.fields_in_order(fields, span);
                self.emit(Op::Update(shape), span);
            }
            ExprKind::Field { expr, name } => {
                if let Some(slot) = self.namespace_member(expr, name) {
                    self.push_slot(slot, span);
                } else {
                    self.expr(expr, Position::Inner);
                    let sym = self.symbol(&name.name);
                    self.emit(Op::Field(sym), name.span);
                }
            }
            ExprKind::Perform(p) => {
                for a in &p.args {
                    self.expr(a, Position::Inner);
                }
                self.perform(span, &p.effect, &p.op, p.args.len());
            }
            ExprKind::Lambda(lam) => self.lambda(span, lam),
            ExprKind::Binary { op, lhs, rhs } => self.binary(span, *op, lhs, rhs),
            ExprKind::Unary { op, expr } => {
                self.expr(expr, Position::Inner);
                self.emit(
                    match op {
                        UnOp::Neg => Op::Neg,
                        UnOp::Not => Op::Not,
                    },
                    span,
                );
            }
        }
        if at == Position::Tail {
            self.emit(Op::Return, span);
        }
    }

    /// Evaluate field values in source order, leaving them on the stack in
    /// shape (name) order; the shape.
    fn fields_in_order(&mut self, fields: &[writ_lang::ast::FieldInit], span: Span) -> u32 {
        let names: Vec<&str> = fields.iter().map(|f| f.name.name.as_str()).collect();
        let shape = self.shape(&names);
        let values: Vec<(&str, &Expr)> = fields
            .iter()
            .map(|f| (f.name.name.as_str(), &f.value))
            .collect();
        let sorted = names.windows(2).all(|w| w[0] <= w[1]);
        if sorted {
            for (_, v) in values {
                self.expr(v, Position::Inner);
            }
            return shape;
        }
        let saved = self.push_scope();
        let mut slots: Vec<(&str, u32)> = Vec::new();
        for (n, v) in values {
            self.expr(v, Position::Inner);
            let s = self.ctx().slot();
            self.emit(Op::SetLocal(s), span);
            slots.push((n, s));
        }
        slots.sort_by(|a, b| a.0.cmp(b.0));
        for (_, s) in slots {
            self.emit(Op::Local(s), span);
        }
        self.pop_scope(saved);
        shape
    }

    fn perform(&mut self, span: Span, effect: &Ident, op: &Ident, argc: usize) {
        let found = self.effect_ids.get(&effect.name).and_then(|e| {
            let info = self.module.effects.get(*e as usize)?;
            let o = info.ops.iter().position(|n| *n == op.name)?;
            Some((*e, o as u32))
        });
        match found {
            Some((e, o)) => self.emit(Op::Perform(e, o, argc as u32), span),
            None => self.emit(Op::NoMatch, span),
        };
    }

    fn push_slot(&mut self, slot: Slot, span: Span) {
        let op = match slot {
            Slot::Local(s) => Op::Local(s),
            Slot::Capture(c) => Op::Capture(c),
            Slot::SelfFn => Op::SelfFn,
            Slot::Global(g) => Op::Global(g),
            Slot::Func(f) => Op::Func(f),
            Slot::Native(n) => Op::Native(n),
        };
        self.emit(op, span);
    }

    fn var(&mut self, name: &Ident) {
        match self.slot_of(name) {
            Some(slot) => self.push_slot(slot, name.span),
            None => {
                self.emit(Op::NoMatch, name.span);
            }
        }
    }

    fn ctor_value(&mut self, name: &Ident) {
        let Some(&id) = self.ctor_ids.get(&name.name) else {
            self.emit(Op::NoMatch, name.span);
            return;
        };
        let arity = self.module.ctors.get(id as usize).map_or(0, |c| c.arity);
        if arity == 0 {
            self.emit(Op::Variant(id, 0), name.span);
        } else {
            let f = self.ctor_wrapper(id, arity, &name.name);
            self.emit(Op::Func(f), name.span);
        }
    }

    /// `ns.f` when the checker resolved it to a namespace member.
    /// `list.sum` on `Float`s (as the checker found) is the float version
    /// of the native, whose empty sum is `0.0`.
    fn namespace_member(&mut self, expr: &Expr, name: &Ident) -> Option<Slot> {
        let ExprKind::Var(ns) = &expr.kind else {
            return None;
        };
        let Resolved::Member { float_sum } = self.resolved(ns.span)? else {
            return None;
        };
        if *float_sum && ns.name == "list" && name.name == "sum" {
            return self.float_sum();
        }
        self.namespaces.get(&ns.name)?.get(&name.name).copied()
    }

    /// A call, with `first` (from a pipe) as an extra first argument.
    fn call(
        &mut self,
        span: Span,
        callee: &Expr,
        args: &[Expr],
        first: Option<&Expr>,
        at: Position,
    ) {
        let argc = args.len() + usize::from(first.is_some());
        if let ExprKind::Ctor(name) = &callee.kind
            && let Some(&id) = self.ctor_ids.get(&name.name)
        {
            if let Some(f) = first {
                self.expr(f, Position::Inner);
            }
            for a in args {
                self.expr(a, Position::Inner);
            }
            self.emit(Op::Variant(id, argc as u32), span);
            if at == Position::Tail {
                self.emit(Op::Return, span);
            }
            return;
        }
        if at == Position::Tail && first.is_none() && self.is_tail_resume(callee) {
            for a in args {
                self.expr(a, Position::Inner);
            }
            let op = if self.ctx().resume == ResumeMode::TailWith {
                Op::ResumeTailWith
            } else {
                Op::ResumeTail
            };
            self.emit(op, span);
            return;
        }
        // A call of a top-level or library function, or of a native,
        // names it directly (a native's call is not a tail call: it pushes
        // its result, which the frame then returns).
        let known = match &callee.kind {
            ExprKind::Var(v) => self.slot_of(v),
            ExprKind::Field { expr, name } => self.namespace_member(expr, name),
            _ => None,
        };
        if let Some(slot @ (Slot::Func(_) | Slot::Native(_))) = known {
            if let Some(f) = first {
                self.expr(f, Position::Inner);
            }
            for a in args {
                self.expr(a, Position::Inner);
            }
            let argc = argc as u32;
            // The program's call of an assertion written in Writ
            // (`assert.fails`) keeps the program's frame, tail or not: its
            // failure is placed at the call, in the program, not at the
            // call of the function that made it. (Other library calls
            // stay tail calls: a loop through `option.and_then`, which
            // calls back in tail position, runs in constant depth.)
            let assertion = !self.in_library
                && matches!(slot, Slot::Func(f) if self.module.functions.get(f as usize).is_some_and(|g| g.library && g.name.starts_with("assert.")));
            match (slot, at) {
                (Slot::Func(f), Position::Tail) if assertion => {
                    self.emit(Op::CallFunc(f, argc), span);
                    self.emit(Op::Return, span)
                }
                (Slot::Func(f), Position::Tail) => self.emit(Op::TailCallFunc(f, argc), span),
                (Slot::Func(f), _) => self.emit(Op::CallFunc(f, argc), span),
                (Slot::Native(n), Position::Tail) => {
                    self.emit(Op::CallNative(n, argc), span);
                    self.emit(Op::Return, span)
                }
                (Slot::Native(n), _) => self.emit(Op::CallNative(n, argc), span),
                _ => return,
            };
            return;
        }
        // A function calling itself by name as its last act runs on in its
        // own frame, with its closure (naming itself does nothing).
        if at == Position::Tail
            && let ExprKind::Var(v) = &callee.kind
            && matches!(self.slot_of(v), Some(Slot::SelfFn))
        {
            if let Some(f) = first {
                self.expr(f, Position::Inner);
            }
            for a in args {
                self.expr(a, Position::Inner);
            }
            self.emit(Op::TailCallSelf(argc as u32), span);
            return;
        }
        // Left to right as written: a piped value, the callee, then the
        // arguments. The callee sits below the arguments on the stack.
        let saved = self.push_scope();
        let piped = first.map(|f| {
            self.expr(f, Position::Inner);
            let slot = self.ctx().slot();
            self.emit(Op::SetLocal(slot), f.span);
            slot
        });
        self.expr(callee, Position::Inner);
        if let Some(slot) = piped {
            self.emit(Op::Local(slot), span);
        }
        for a in args {
            self.expr(a, Position::Inner);
        }
        self.pop_scope(saved);
        if at == Position::Tail {
            // The `Return` is reached only when the callee is not a Writ
            // function (a native, a resumption), which returns here.
            self.emit(Op::TailCall(argc as u32), span);
            self.emit(Op::Return, span);
        } else {
            self.emit(Op::Call(argc as u32), span);
        }
    }

    /// Whether `callee` is the `resume` of the tail-resumptive clause
    /// being lowered (as the checker resolved it).
    fn is_tail_resume(&mut self, callee: &Expr) -> bool {
        let ctx = self.ctx();
        if ctx.resume == ResumeMode::Value {
            return false;
        }
        let Some(binder) = ctx.resume_binder else {
            return false;
        };
        matches!(&callee.kind, ExprKind::Var(v)
            if self.resolved(v.span) == Some(&Resolved::Local(binder)))
    }

    fn pipe(&mut self, span: Span, lhs: &Expr, rhs: &Expr, at: Position) {
        match &rhs.kind {
            ExprKind::Call { callee, args } => self.call(span, callee, args, Some(lhs), at),
            ExprKind::Perform(p) => {
                self.expr(lhs, Position::Inner);
                for a in &p.args {
                    self.expr(a, Position::Inner);
                }
                self.perform(span, &p.effect, &p.op, p.args.len() + 1);
                if at == Position::Tail {
                    self.emit(Op::Return, span);
                }
            }
            _ => self.call(span, rhs, &[], Some(lhs), at),
        }
    }

    fn binary(&mut self, span: Span, op: BinOp, lhs: &Expr, rhs: &Expr) {
        let arith = match op {
            BinOp::And | BinOp::Or => return self.logic(span, op, lhs, rhs, Position::Inner),
            BinOp::Pipe => return self.pipe(span, lhs, rhs, Position::Inner),
            _ => match arith_of(op) {
                Some(a) => a,
                None => return,
            },
        };
        self.expr(lhs, Position::Inner);
        self.expr(rhs, Position::Inner);
        self.emit(Op::Arith(arith), span);
    }

    fn if_(
        &mut self,
        span: Span,
        branches: &[(Expr, writ_lang::ast::Block)],
        otherwise: Option<&writ_lang::ast::Block>,
        at: Position,
    ) {
        let mut ends = Vec::new();
        for (cond, body) in branches {
            let mut skips = Vec::new();
            self.branch(cond, false, &mut skips);
            self.block(body, at);
            if at == Position::Inner {
                ends.push(self.emit(Op::Jump(0), span));
            }
            self.patch_here(skips);
        }
        match otherwise {
            Some(b) => self.block(b, at),
            None => {
                self.emit(Op::Unit, span);
                if at == Position::Tail {
                    self.emit(Op::Return, span);
                }
            }
        }
        self.patch_here(ends);
    }

    /// `lhs && rhs` or `lhs || rhs` as a value: the left operand as a
    /// test that jumps to the deciding constant, the right one as the
    /// value otherwise (in tail position, so a call there is a tail call:
    /// `ok(x) && check(rest)` recurses in constant depth).
    fn logic(&mut self, span: Span, op: BinOp, lhs: &Expr, rhs: &Expr, at: Position) {
        let decides = op == BinOp::Or;
        let mut decided = Vec::new();
        self.branch(lhs, decides, &mut decided);
        self.expr(rhs, at);
        let end = (at == Position::Inner).then(|| self.emit(Op::Jump(0), span));
        self.patch_here(decided);
        self.emit(Op::Bool(decides), span);
        if at == Position::Tail {
            self.emit(Op::Return, span);
        }
        self.patch_here(end);
    }

    /// Lower `cond` (a `Bool`) as control flow: jump when its value is
    /// `jump_when` (the jumps are pushed on `jumps`, for the caller to
    /// point), fall through when it is not. `&&`, `||` and `!` become
    /// jumps instead of a `Bool` made and tested, so `if a && b` is two
    /// tests, each fused with its comparison by the peephole pass. The
    /// operands are evaluated in the same order, and the right one only
    /// when the left does not decide, as when the value is made.
    pub(super) fn branch(&mut self, cond: &Expr, jump_when: bool, jumps: &mut Vec<usize>) {
        match &cond.kind {
            ExprKind::Binary { op, lhs, rhs } if matches!(op, BinOp::And | BinOp::Or) => {
                // The value of `lhs` that decides the whole: `false` for
                // `&&`, `true` for `||`.
                let decides = *op == BinOp::Or;
                if decides == jump_when {
                    self.branch(lhs, jump_when, jumps);
                    self.branch(rhs, jump_when, jumps);
                } else {
                    let mut past = Vec::new();
                    self.branch(lhs, decides, &mut past);
                    self.branch(rhs, jump_when, jumps);
                    self.patch_here(past);
                }
            }
            ExprKind::Unary {
                op: UnOp::Not,
                expr,
            } => self.branch(expr, !jump_when, jumps),
            _ => {
                self.expr(cond, Position::Inner);
                if jump_when {
                    self.emit(Op::Not, cond.span);
                }
                jumps.push(self.emit(Op::JumpIfFalse(0), cond.span));
            }
        }
    }

    /// A lambda: a nested function, and a closure of it if it captures.
    fn lambda(&mut self, span: Span, lam: &Lambda) {
        let ctx = FnCtx::with_params(self.nested_name("<lambda>"), &lam.params);
        self.fns.push(ctx);
        self.block(&lam.body, Position::Tail);
        if let Some(ctx) = self.fns.pop() {
            self.push_function(ctx, span);
        }
    }
}

/// The machine's operator for a binary operator that is one (`None` for
/// `&&`, `||` and `|>`, which lower to jumps and calls).
pub(super) fn arith_of(op: BinOp) -> Option<Arith> {
    Some(match op {
        BinOp::Eq => Arith::Eq,
        BinOp::Ne => Arith::Ne,
        BinOp::Lt => Arith::Lt,
        BinOp::Le => Arith::Le,
        BinOp::Gt => Arith::Gt,
        BinOp::Ge => Arith::Ge,
        BinOp::Concat => Arith::Concat,
        BinOp::Add => Arith::Add,
        BinOp::Sub => Arith::Sub,
        BinOp::Mul => Arith::Mul,
        BinOp::Div => Arith::Div,
        BinOp::Rem => Arith::Rem,
        BinOp::And | BinOp::Or | BinOp::Pipe => return None,
    })
}

#[cfg(test)]
mod tests {
    use crate::code::{Arith, Module, Op};
    use crate::lower::testing::{compiled, ops_of};

    fn native(module: &Module, name: &str) -> u32 {
        let at = module.natives.iter().position(|n| n.name == name);
        at.and_then(|at| u32::try_from(at).ok()).unwrap_or(u32::MAX)
    }

    /// `&&`, `||` and `!` in a condition, a guard or a value are jumps:
    /// no `Bool` is made to be tested, each comparison is fused with its
    /// branch, and the right operand of a value in tail position is in
    /// tail position (a call there is a tail call).
    #[test]
    fn conditions_are_lowered_as_jumps() {
        let m = compiled(
            "fn both(a: Int, b: Int) -> Int { if a > 0 && b > 0 { 1 } else { 2 } }\n\
             fn either(a: Int, b: Int) -> Int { if !(a > 0 || b > 0) { 1 } else { 2 } }\n\
             fn all_pos(xs: List[Int]) -> Bool {\n\
               match xs { [] => true, [x, ..rest] => x > 0 && all_pos(rest) }\n\
             }\n\
             fn guard(a: Int) -> Int { match a { n if n > 1 && n < 5 => 1, _ => 0 } }\n\
             fn any(a: Bool, b: Bool) -> Bool { a || b }\n\
             both(1, 2) + either(0, 0) + guard(3)\n",
        );
        assert_eq!(
            ops_of(&m, "both"),
            vec![
                Op::BranchLocalInt(0, Arith::Gt, 0, 2),
                Op::ReturnIntIf(1, Arith::Gt, 0, 1),
                Op::Int(2),
                Op::Return,
            ]
        );
        assert_eq!(
            ops_of(&m, "either"),
            vec![
                Op::LocalIntArith(0, 0, Arith::Gt),
                Op::Not,
                Op::JumpIfFalse(8),
                Op::LocalIntArith(1, 0, Arith::Gt),
                Op::Not,
                Op::JumpIfFalse(8),
                Op::Int(1),
                Op::Return,
                Op::Int(2),
                Op::Return,
            ]
        );
        let all_pos = ops_of(&m, "all_pos");
        assert!(
            all_pos.contains(&Op::BranchLocalInt(2, Arith::Gt, 0, 8)),
            "{all_pos:?}"
        );
        // Its tail call of itself keeps the frame.
        assert!(all_pos.contains(&Op::TailCallSelf(1)), "{all_pos:?}");
        let guard = ops_of(&m, "guard");
        assert!(
            !guard
                .iter()
                .any(|op| matches!(op, Op::Bool(_) | Op::JumpIfFalse(_))),
            "{guard:?}"
        );
        // As a value: the left operand decides with its constant.
        assert_eq!(
            ops_of(&m, "any"),
            vec![
                Op::MoveLocal(0),
                Op::Not,
                Op::JumpIfFalse(4),
                Op::ReturnLocal(1),
                Op::Bool(true),
                Op::Return,
            ]
        );
    }

    /// A native named in a call is called directly, its arguments alone
    /// on the stack, and its result returned by the frame when the call
    /// is the function's last act; a native passed as a value is pushed
    /// as one.
    #[test]
    fn a_native_called_by_name_gets_no_callee_on_the_stack() {
        let m = compiled(
            "fn far(a: Int, b: Int) -> Int { math.abs(a - b) }\n\
             fn big(a: Int) -> Int { math.max(a |> math.abs, 1) + 1 }\n\
             fn all(xs: List[Int]) -> List[Int] { list.map(xs, math.abs) }\n\
             far(1, 2) + big(3) + list.length(all([1]))\n",
        );
        let (abs, max) = (native(&m, "math.abs"), native(&m, "math.max"));
        assert_eq!(
            ops_of(&m, "far"),
            vec![
                Op::LocalLocalArith(0, 1, Arith::Sub),
                Op::CallNative(abs, 1),
                Op::Return,
            ]
        );
        assert_eq!(
            ops_of(&m, "big"),
            vec![
                Op::MoveLocal(0),
                Op::CallNative(abs, 1),
                Op::Int(1),
                Op::CallNative(max, 2),
                Op::ArithInt(Arith::Add, 1),
                Op::Return,
            ]
        );
        assert!(ops_of(&m, "all").contains(&Op::Native(abs)));
    }
}
