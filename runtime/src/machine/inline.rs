//! The pieces the run loop ([`super::step`]) does inline, written as
//! functions: `Int` arithmetic on the stack's top, frames pushed and
//! reused in place, a tail call's locals replaced, simple and
//! tail-resumptive clauses, and values let go without the drop glue.
//!
//! Invariants:
//! - **Inline or cold, by design.** Each function here is
//!   `#[inline(always)]` (it is part of the loop's code) or out of line
//!   and `#[cold]` (growth, arithmetic operands): the loop's register
//!   allocation is what the benchmarks measure, and a change of either
//!   attribute is a change to the loop (measure it on all eleven effect
//!   benchmarks).
//! - **Plain values are forgotten, others dropped** ([`forget_plain`],
//!   [`discard_above`]): never wrong, only faster where values own
//!   nothing.

use std::rc::Rc;

use crate::code::{Arith, Atom, ClauseInfo, Function, Operand, SimpleClause};
use crate::error::RunError;
use crate::value::{ClosureObj, Repr, Value, plain};

use super::{Entry, Frame, Kind, Machine};

impl<'a> Machine<'a> {
    /// `x op y` on the two operands on top of the stack, the result left
    /// in their place: `Int` with `Int` inline (written over the first
    /// operand; two `Int`s need no dropping), anything else through
    /// [`Machine::arith`].
    #[inline(always)]
    pub(super) fn arith_top(&mut self, a: Arith) -> Result<(), RunError> {
        let fast = match self.stack.as_slice() {
            [.., Value(Repr::Int(p)), Value(Repr::Int(q))] => int_fast(a, *p, *q),
            _ => None,
        };
        if let Some(v) = fast {
            if let Some(y) = self.stack.pop() {
                forget_plain(y);
            }
            if let Some(x) = self.stack.last_mut() {
                forget_plain(std::mem::replace(x, v));
            }
            return Ok(());
        }
        let underflow = || RunError::internal("operand stack underflow");
        let y = self.stack.pop().ok_or_else(underflow)?;
        let x = self.stack.pop().ok_or_else(underflow)?;
        let v = self.arith(a, x, y)?;
        self.push(v);
        Ok(())
    }

    /// Push a frame of `kind` for `func` (function `f`, with its closure
    /// if it has one) whose arguments are on the stack from `base`, and
    /// its other locals.
    #[inline(always)]
    pub(super) fn push_frame(
        &mut self,
        f: u32,
        func: &Function,
        base: usize,
        kind: Kind,
        closure: Option<Rc<ClosureObj>>,
    ) {
        if self.frames.len() == self.frames.capacity() {
            self.grow_frames();
        }
        let frame = Frame {
            func: f,
            pc: 0,
            base: base as u32,
            kind,
            closure,
        };
        // `push` itself was left out of line by the optimiser (its growth
        // path with it); with room made above, writing the frame in place
        // is a store and a length.
        let spare = self.frames.spare_capacity_mut();
        if let Some(slot) = spare.first_mut() {
            slot.write(frame);
            let len = self.frames.len() + 1;
            // SAFETY: the element at the old length was initialised just
            // above, inside the vector's capacity (`spare` was not empty).
            unsafe { self.frames.set_len(len) };
        }
        for _ in func.arity..func.locals {
            self.push(Value(Repr::Unit));
        }
    }

    /// Make the running frame, whose locals start at `base`, a frame of
    /// `func` (function `f`, with its closure if it has one) for a tail
    /// call: its arguments, on top of the stack, replace the locals (see
    /// [`Machine::replace_locals`]).
    #[inline(always)]
    pub(super) fn reuse_frame(
        &mut self,
        f: u32,
        func: &Function,
        base: usize,
        closure: Option<Rc<ClosureObj>>,
    ) {
        self.replace_locals(func, base);
        if let Some(top) = self.frames.last_mut() {
            top.func = f;
            top.pc = 0;
            top.closure = closure;
        }
    }

    /// The arguments of a tail call of `func`, on top of the stack,
    /// replace the running frame's locals from `base`, and `func`'s other
    /// locals follow. The caller checked that there are `func.arity`
    /// values above `base`.
    #[inline(always)]
    pub(super) fn replace_locals(&mut self, func: &Function, base: usize) {
        let n = func.arity as usize;
        let start = self.stack.len() - n;
        for i in 0..n {
            self.stack.swap(base + i, start + i);
        }
        // The old locals, now above the arguments: most are plain or
        // moved out already. (Popped one by one: `discard_above`'s scan
        // for the topmost owning value measured 3% slower on list.map's
        // loop, whose frames are small.)
        while self.stack.len() > base + n {
            if let Some(v) = self.stack.pop() {
                forget_plain(v);
            }
        }
        for _ in func.arity..func.locals {
            self.push(Value(Repr::Unit));
        }
    }

    /// Run a simple clause (see [`crate::code::SimpleClause`]) of the
    /// handler at index `at`: pop the `argc` arguments, update the
    /// handler's parameter, and return the operation's result (`None`,
    /// leaving everything as it was, when an operand is out of range).
    #[inline(always)]
    pub(super) fn simple_clause(
        &mut self,
        at: usize,
        simple: &SimpleClause,
        argc: usize,
    ) -> Option<Value> {
        let start = self.stack.len().checked_sub(argc)?;
        let Some(Entry::Handler { param, .. }) = self.handlers.get_mut(at) else {
            return None;
        };
        let args = self.stack.get(start..).unwrap_or(&[]);
        // Either operand may send the clause to its frame instead: the
        // parameter changes only once both are computed (each from the
        // parameter as it was).
        let result = operand(&simple.result, args, param)?;
        if let Some(next) = &simple.next {
            let next = operand(next, args, param)?;
            forget_plain(std::mem::replace(param, next));
        }
        discard_above(&mut self.stack, start);
        Some(result)
    }

    /// A tail-resumptive `clause` of the handler at index `at`, to run in
    /// place: the clause's function and its closure (if it captures
    /// anything). The handler's parameter is taken separately
    /// ([`Machine::take_param`]), once the call is sure to be made.
    #[inline(always)]
    pub(super) fn tail_clause(&self, at: usize, clause: &ClauseInfo) -> Option<InPlace> {
        let Some(Entry::Handler { closures, .. }) = self.handlers.get(at) else {
            return None;
        };
        match closures.get(clause.clause as usize)? {
            Value(Repr::Func(f)) => Some((f.get(), None)),
            Value(Repr::Closure(cl)) => Some((cl.func, Some(cl.clone()))),
            _ => None,
        }
    }

    /// The parameter of the handler at index `at`, for a clause about to
    /// run: taken, not copied, so that the clause holds the only
    /// reference (`resume((), seen ++ [x])` then extends `seen` in
    /// place). The handler keeps `()` meanwhile; nothing reads it before
    /// the clause's `resume` gives it its next value (a handler with a
    /// parameter is resumed with one), and operations the clause
    /// performs skip this handler.
    ///
    /// A tuple or constructor of plain parts only (`(i, j)`, `Acc(n,
    /// total)`) is shared instead: nothing in it can be extended in
    /// place, and the handler's copy, let go when the clause resumes,
    /// is kept for the next one the clause makes (decision 031), where
    /// the clause's own would be freed as it is taken apart.
    #[inline(always)]
    pub(super) fn take_param(&mut self, at: usize) -> Value {
        match self.handlers.get_mut(at) {
            Some(Entry::Handler { param, .. }) => {
                let plain_parts = matches!(param.0, Repr::Tuple(_) | Repr::Variant(_))
                    && param.parts().iter().all(|p| matches!(p.0, plain!()));
                if plain_parts {
                    param.clone()
                } else {
                    std::mem::replace(param, Value(Repr::Unit))
                }
            }
            _ => Value(Repr::Unit),
        }
    }
}

/// A tail-resumptive clause to run in place ([`Machine::tail_clause`]):
/// the clause's function and its closure (if it captures anything).
type InPlace = (u32, Option<Rc<ClosureObj>>);

/// Push onto a vector: inline when it has room, its growth out of line
/// (`Vec::push` is left out of line whole by the optimiser).
#[inline(always)]
pub(super) fn push_in_place<T>(v: &mut Vec<T>, x: T) {
    if v.len() == v.capacity() {
        grow_one(v);
    }
    let spare = v.spare_capacity_mut();
    if let Some(slot) = spare.first_mut() {
        slot.write(x);
        let len = v.len() + 1;
        // SAFETY: the element at the old length was initialised just
        // above, inside the vector's capacity (`spare` was not empty).
        unsafe { v.set_len(len) };
    }
}

/// Make room for one more element, out of line.
#[cold]
#[inline(never)]
fn grow_one<T>(v: &mut Vec<T>) {
    v.reserve(v.len().max(16));
}

/// Let go of a value known to own nothing, without the out-of-line drop
/// glue of [`Value`] (a value that does own something is dropped as
/// usual, so this is never wrong, only slower).
#[inline(always)]
pub(super) fn forget_plain(v: Value) {
    if !v.is_heap() {
        std::mem::forget(v);
    } else {
        drop(v);
    }
}

/// Drop the operand stack down to `len`: a returning frame's locals and
/// temporaries, or (an abortive clause's cut) every frame between an
/// operation and its handler. Each value that owns something is dropped,
/// one by one; the plain ones, most of them in the calls that matter and
/// however many there are, cost a test each, not the drop glue.
#[inline(always)]
pub(super) fn discard_above(stack: &mut Vec<Value>, len: usize) {
    let Some(tail) = stack.get_mut(len..) else {
        return;
    };
    for v in tail.iter_mut().filter(|v| v.is_heap()) {
        drop(std::mem::replace(v, Value(Repr::Unit)));
    }
    // SAFETY: `len` is at most the length (`tail` is `stack[len..]`), and
    // every value from `len` up now owns nothing, so leaving them
    // undropped leaks nothing.
    unsafe { stack.set_len(len) }
}

/// The value of a simple clause's operand; `None` when the clause must
/// run in its frame instead (an argument out of range, or arithmetic on
/// a value that is not an `Int`, or that overflows).
#[inline(always)]
fn operand(o: &Operand, args: &[Value], param: &Value) -> Option<Value> {
    Some(match *o {
        Operand::Arg(k) => args.get(k as usize)?.clone(),
        Operand::Param => param.clone(),
        Operand::Unit => Value(Repr::Unit),
        Operand::Int(n) => Value(Repr::Int(n)),
        Operand::Bool(b) => Value::bool(b),
        Operand::Arith(op, x, y) => arith_operand(op, x, y, args, param)?,
    })
}

/// An [`Operand::Arith`]'s value, out of line (the operands without
/// arithmetic, the commoner, stay short).
#[inline(never)]
fn arith_operand(op: Arith, x: Atom, y: Atom, args: &[Value], param: &Value) -> Option<Value> {
    let int = |a: Atom| match a {
        Atom::Arg(k) => match args.get(k as usize) {
            Some(Value(Repr::Int(n))) => Some(*n),
            _ => None,
        },
        Atom::Param => match param {
            Value(Repr::Int(n)) => Some(*n),
            _ => None,
        },
        Atom::Int(n) => Some(n),
    };
    int_fast(op, int(x)?, int(y)?)
}

/// The step loop's fast path for `Int op Int`: comparisons, `+`, `-`,
/// `*`, `/` and `%` that fit. `None` sends everything else (overflow and
/// a zero divisor included, so that they are reported) to
/// [`Machine::arith`].
#[inline(always)]
pub(super) fn int_fast(op: Arith, x: i64, y: i64) -> Option<Value> {
    match op {
        Arith::Lt | Arith::Le | Arith::Gt | Arith::Ge | Arith::Eq | Arith::Ne => {
            Some(Value::bool(int_cmp(op, x, y)))
        }
        Arith::Add => x.checked_add(y).map(Value::int),
        Arith::Sub => x.checked_sub(y).map(Value::int),
        Arith::Mul => x.checked_mul(y).map(Value::int),
        // A zero divisor (and `MIN / -1`) goes to `Machine::arith`, which
        // reports it; the remainder otherwise always fits.
        Arith::Div => x.checked_div(y).map(Value::int),
        Arith::Rem if y != 0 => Some(Value::int(x.wrapping_rem(y))),
        _ => None,
    }
}

/// An integer comparison.
#[inline(always)]
pub(super) fn int_cmp(cmp: Arith, x: i64, y: i64) -> bool {
    match cmp {
        Arith::Lt => x < y,
        Arith::Le => x <= y,
        Arith::Gt => x > y,
        Arith::Ge => x >= y,
        Arith::Eq => x == y,
        _ => x != y,
    }
}

/// The closure a called value is, if it is one (a function value has
/// none).
#[inline(always)]
pub(super) fn take_closure(callee: Value) -> Option<Rc<ClosureObj>> {
    match callee {
        Value(Repr::Closure(c)) => Some(c),
        _ => None,
    }
}
