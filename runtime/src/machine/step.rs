//! The run loop: fetch an instruction, count it, do it.
//!
//! [`Machine::execute`] keeps the running frame's code, program counter
//! and base in locals and handles the commonest instructions inline
//! (locals, `Int` arithmetic and branches, calls of known functions and
//! of function and closure values, tail calls (a function's call of
//! itself keeping its frame), returns (of a local or a constant when a
//! comparison holds, too), list patterns and constructor tests on
//! locals, the library's walks
//! over a list (`Each`, `AppendLocal`, `CallLocal`), simple and
//! tail-resumptive handler clauses); a call `f(n - 1)` of a known
//! function tests the callee's leading guards first
//! ([`super::guards`]); everything
//! else goes to [`super::calls`], [`super::handlers`] and [`super::ops`],
//! after which the loop reloads the running frame.
//!
//! Invariants:
//! - **Every instruction costs one step**; every
//!   [`crate::limits::CHECK_EVERY`] steps the loop calls the periodic
//!   check ([`super::accounting`]).
//! - **The frame's program counter is written back** (`sync!`) before
//!   anything that may fail, call, or look at the frames, so errors are
//!   placed at the instruction that caused them.
//! - **No index is trusted but the program counter**: every local,
//!   literal, global, function and handler index is checked, and a bad one
//!   stops the run with `E4004`. The op at the program counter is fetched
//!   without a test: the loop runs only a module whose code was checked
//!   when it was made ([`crate::code::Function::verify`]: every function
//!   ends with an op that never goes on, and its jumps land inside it), so
//!   the counter cannot leave its function's code.
//! - **Plain values are let go without the drop glue.** A value that owns
//!   nothing (`()`, `Bool`, `Int`, `Float`, a constructor without fields,
//!   a function or native) is forgotten rather than dropped on the hot
//!   paths (`Int` arithmetic, `Pop`, `SetLocal`, a returning frame's
//!   slots, a tail call's old locals, a simple clause's arguments), which keeps the
//!   out-of-line drop of [`Value`] off them; anything else is dropped as
//!   usual. The loop's `unsafe` block is the fetch of the op at the
//!   program counter; the pieces it inlines ([`super::inline`]) hold the
//!   others (a frame or value written into capacity made just before it,
//!   the stack cut down over plain values).

use std::rc::Rc;

use crate::code::{Function, Module, Op};
use crate::error::RunError;
use crate::value::{Repr, Value};

use super::calls::CallFrame;
use super::guards::{Guarded, guards};
use super::inline::{discard_above, forget_plain, int_cmp, int_fast, push_in_place, take_closure};
use super::ops::{list_item, list_len};
use super::{Entry, Exit, Kind, Machine, bad_index};

impl<'a> Machine<'a> {
    /// The code, program counter and base of the running frame.
    #[inline(always)]
    pub(super) fn load(&self) -> Result<(&'a [Op], usize, usize), RunError> {
        let module: &'a Module = self.module;
        let f = self
            .frames
            .last()
            .ok_or_else(|| RunError::internal("no frame to run"))?;
        let func = module
            .functions
            .get(f.func as usize)
            .ok_or_else(|| RunError::internal("a frame of an unknown function"))?;
        Ok((&func.ops, f.pc as usize, f.base as usize))
    }

    /// Run until the top level returns ([`Exit::Done`]) or the program
    /// performs an operation of a host capability ([`Exit::Paused`], with
    /// the operation in [`Machine::pending`]).
    pub(super) fn execute(&mut self) -> Result<Exit, RunError> {
        // The loop fetches ops without a bounds test: only code whose
        // program counter cannot leave it runs (see `run_loop`).
        if !self.module.is_verified() {
            return Err(RunError::internal("a module whose code was not checked"));
        }
        self.run_loop()
    }

    /// The loop of [`Machine::execute`], on a module whose code was
    /// checked ([`Module::is_verified`]).
    #[inline(never)]
    fn run_loop(&mut self) -> Result<Exit, RunError> {
        let functions: &'a [Function] = &self.module.functions;
        let (mut code, mut pc, mut base) = self.load()?;
        macro_rules! sync {
            () => {
                if let Some(f) = self.frames.last_mut() {
                    f.pc = pc as u32;
                }
            };
        }
        macro_rules! tri {
            ($e:expr) => {
                match $e {
                    Ok(v) => v,
                    Err(e) => {
                        sync!();
                        return Err(e);
                    }
                }
            };
        }
        macro_rules! pop {
            () => {
                match self.stack.pop() {
                    Some(v) => v,
                    None => {
                        sync!();
                        return Err(RunError::internal("operand stack underflow"));
                    }
                }
            };
        }
        // A local of the running frame moved out (leaving `()`), and a
        // local set (letting its old value go), an index out of range
        // stopping the run.
        macro_rules! take_local {
            ($i:expr) => {
                tri!(
                    self.stack
                        .get_mut(base + $i as usize)
                        .map(|slot| std::mem::replace(slot, Value(Repr::Unit)))
                        .ok_or_else(bad_index)
                )
            };
        }
        macro_rules! set_local {
            ($i:expr, $v:expr) => {
                match self.stack.get_mut(base + $i as usize) {
                    Some(slot) => forget_plain(std::mem::replace(slot, $v)),
                    None => {
                        sync!();
                        return Err(bad_index());
                    }
                }
            };
        }
        // `local op constant` (or, after `const`, `constant op local`):
        // `Int` with `Int` inline, anything else (and an overflow, to
        // report it with the operands in their order) through
        // [`Machine::arith`].
        macro_rules! local_int {
            (const $k:expr, $slot:expr, $a:expr) => {
                local_int!(@ $slot, $k, $a, true)
            };
            ($slot:expr, $k:expr, $a:expr) => {
                local_int!(@ $slot, $k, $a, false)
            };
            (@ $slot:expr, $k:expr, $a:expr, $k_first:literal) => {{
                let x = self.stack.get(base + $slot as usize);
                let k = i64::from($k);
                let fast = match x {
                    Some(Value(Repr::Int(p))) if $k_first => int_fast($a, k, *p),
                    Some(Value(Repr::Int(p))) => int_fast($a, *p, k),
                    _ => None,
                };
                match fast {
                    Some(v) => v,
                    None => {
                        let x = tri!(x.cloned().ok_or_else(bad_index));
                        let k = Value(Repr::Int(k));
                        let (l, r) = if $k_first { (k, x) } else { (x, k) };
                        tri!(self.arith($a, l, r))
                    }
                }
            }};
        }
        // Whether `local cmp constant` holds: `Int` inline, anything else
        // through [`Machine::arith`].
        macro_rules! local_holds {
            ($slot:expr, $cmp:expr, $k:expr) => {
                match self.stack.get(base + $slot as usize) {
                    Some(Value(Repr::Int(x))) => int_cmp($cmp, *x, i64::from($k)),
                    other => {
                        let x = tri!(other.cloned().ok_or_else(bad_index));
                        match tri!(self.arith($cmp, x, Value(Repr::Int(i64::from($k))))) {
                            Value(Repr::Bool(b)) => b.get(),
                            _ => false,
                        }
                    }
                }
            };
        }
        macro_rules! reload {
            () => {
                let (c, p, b) = self.load()?;
                code = c;
                pc = p;
                base = b;
            };
        }
        // Return `v` from the running frame: inline for an ordinary call
        // returning to its caller (the frame's locals and temporaries
        // let go of, the value pushed in their place), through
        // [`Machine::ret`] otherwise.
        macro_rules! ret {
            ($v:expr) => {
                let v = $v;
                if self.frames.len() > 1
                    && let Some(top) = self.frames.last()
                    && top.kind == Kind::Normal
                {
                    if let Some(done) = self.frames.pop() {
                        discard_above(&mut self.stack, done.base as usize);
                    }
                    self.push(v);
                    reload!();
                    continue;
                }
                sync!();
                if let Some(done) = tri!(self.ret(v)) {
                    return Ok(Exit::Done(done));
                }
                reload!();
            };
        }
        loop {
            // SAFETY: `pc` is within `code`. Every function of the module
            // was checked (`Function::verify`, tested above): it has code,
            // its last op never goes on to the next, and its jumps land
            // inside it. `pc` is only ever 0 in a new frame, a checked
            // jump's target, one past an op that goes on (hence not the
            // last; a new frame started past the callee's leading guards,
            // `guards.rs`, is one of these), or a frame's saved `pc`,
            // which is one of those (a
            // frame is saved at the op being run: one that goes on, when
            // the frame is run again; the snapshot decoder refuses a
            // saved `pc` past the last op).
            let op = unsafe { code.get_unchecked(pc) };
            pc += 1;
            #[cfg(feature = "op-stats")]
            super::op_stats::count(op);
            self.countdown -= 1;
            if self.countdown == 0 {
                sync!();
                tri!(self.check());
            }
            match *op {
                Op::Unit => self.push(Value(Repr::Unit)),
                Op::Bool(b) => self.push(Value::bool(b)),
                Op::Int(n) => self.push(Value(Repr::Int(n))),
                Op::Literal(i) => {
                    let v = tri!(self.literals.get(i as usize).cloned().ok_or_else(bad_index));
                    self.push(v);
                }
                Op::Local(i) => {
                    let v = tri!(
                        self.stack
                            .get(base + i as usize)
                            .cloned()
                            .ok_or_else(bad_index)
                    );
                    self.push(v);
                }
                Op::MoveLocal(i) => {
                    let v = take_local!(i);
                    self.push(v);
                }
                Op::SetLocal(i) => {
                    let v = pop!();
                    set_local!(i, v);
                }
                Op::Capture(i) => {
                    let v = self
                        .frames
                        .last()
                        .and_then(|f| f.closure.as_ref())
                        .and_then(|c| c.captures.get(i as usize))
                        .cloned();
                    let v = tri!(v.ok_or_else(bad_index));
                    self.push(v);
                }
                Op::MoveCapture(i) => {
                    // Moved only when nothing but this frame holds the
                    // closure: no other call of it can then read the
                    // capture, and lowering made this the last read of
                    // this call (a function naming itself gets no moves).
                    let v = match self.frames.last_mut().and_then(|f| f.closure.as_mut()) {
                        Some(c) => match Rc::get_mut(c) {
                            Some(obj) => obj
                                .captures
                                .get_mut(i as usize)
                                .map(|slot| std::mem::replace(slot, Value(Repr::Unit))),
                            None => c.captures.get(i as usize).cloned(),
                        },
                        None => None,
                    };
                    let v = tri!(v.ok_or_else(bad_index));
                    self.push(v);
                }
                Op::SelfFn => {
                    let v = tri!(self.current_fn());
                    self.push(v);
                }
                Op::Global(g) => {
                    let v = tri!(self.globals.get(g as usize).cloned().ok_or_else(bad_index));
                    self.push(v);
                }
                Op::SetGlobal(g) => {
                    let v = pop!();
                    match self.globals.get_mut(g as usize) {
                        Some(slot) => *slot = v,
                        None => {
                            sync!();
                            return Err(bad_index());
                        }
                    }
                }
                Op::Func(f) => self.push(Value(Repr::Func(f.into()))),
                Op::Native(n) => self.push(Value(Repr::Native(n.into()))),
                Op::Closure(f) => {
                    let v = tri!(self.make_closure(f, base));
                    self.push(v);
                }
                Op::Pop => forget_plain(pop!()),
                Op::Arith(a) => tri!(self.arith_top(a)),
                Op::LocalIntArith(slot, k, a) => {
                    let v = local_int!(slot, k, a);
                    self.push(v);
                }
                Op::IntLocalArith(k, slot, a) => {
                    let v = local_int!(const k, slot, a);
                    self.push(v);
                }
                Op::LocalLocalArith(p, q, a) => {
                    let x = self.stack.get(base + p as usize);
                    let y = self.stack.get(base + q as usize);
                    let fast = match (x, y) {
                        (Some(Value(Repr::Int(p))), Some(Value(Repr::Int(q)))) => {
                            int_fast(a, *p, *q)
                        }
                        _ => None,
                    };
                    let v = match fast {
                        Some(v) => v,
                        None => {
                            let x = tri!(x.cloned().ok_or_else(bad_index));
                            let y = tri!(y.cloned().ok_or_else(bad_index));
                            tri!(self.arith(a, x, y))
                        }
                    };
                    self.push(v);
                }
                Op::ArithInt(a, k) => {
                    let fast = match self.stack.last() {
                        Some(Value(Repr::Int(x))) => int_fast(a, *x, k),
                        _ => None,
                    };
                    match fast {
                        Some(v) => {
                            if let Some(top) = self.stack.last_mut() {
                                forget_plain(std::mem::replace(top, v));
                            }
                        }
                        None => {
                            let x = pop!();
                            let v = tri!(self.arith(a, x, Value(Repr::Int(k))));
                            self.push(v);
                        }
                    }
                }
                Op::BranchInt(cmp, k, t) => {
                    let fast = match self.stack.last() {
                        Some(Value(Repr::Int(x))) => Some(int_cmp(cmp, *x, k)),
                        _ => None,
                    };
                    let holds = match fast {
                        Some(h) => {
                            forget_plain(pop!());
                            h
                        }
                        None => {
                            let x = pop!();
                            match tri!(self.arith(cmp, x, Value(Repr::Int(k)))) {
                                Value(Repr::Bool(b)) => b.get(),
                                _ => false,
                            }
                        }
                    };
                    if !holds {
                        pc = t as usize;
                    }
                }
                Op::TestCtorLocal(s, c, t) => {
                    let v = tri!(self.stack.get(base + s as usize).ok_or_else(bad_index));
                    if v.ctor() != Some(c) {
                        pc = t as usize;
                    }
                }
                Op::BranchLocalInt(slot, cmp, k, t) => {
                    let holds = local_holds!(slot, cmp, k);
                    if !holds {
                        pc = t as usize;
                    }
                }
                Op::BranchLocalLocal(p, q, cmp, t) => {
                    let x = self.stack.get(base + p as usize);
                    let y = self.stack.get(base + q as usize);
                    let holds = match (x, y) {
                        (Some(Value(Repr::Int(x))), Some(Value(Repr::Int(y)))) => {
                            int_cmp(cmp, *x, *y)
                        }
                        _ => {
                            let x = tri!(x.cloned().ok_or_else(bad_index));
                            let y = tri!(y.cloned().ok_or_else(bad_index));
                            match tri!(self.arith(cmp, x, y)) {
                                Value(Repr::Bool(b)) => b.get(),
                                _ => false,
                            }
                        }
                    };
                    if !holds {
                        pc = t as usize;
                    }
                }
                Op::BranchArith(cmp, t) => {
                    // `Int` with `Int` inline (two plain values popped),
                    // anything else through [`Machine::arith`].
                    let fast = match self.stack.as_slice() {
                        [.., Value(Repr::Int(x)), Value(Repr::Int(y))] => {
                            Some(int_cmp(cmp, *x, *y))
                        }
                        _ => None,
                    };
                    let holds = match fast {
                        Some(h) => {
                            forget_plain(pop!());
                            forget_plain(pop!());
                            h
                        }
                        None => {
                            tri!(self.arith_top(cmp));
                            match pop!() {
                                Value(Repr::Bool(b)) => b.get(),
                                _ => {
                                    sync!();
                                    return Err(RunError::internal(
                                        "a comparison that is not a Bool",
                                    ));
                                }
                            }
                        }
                    };
                    if !holds {
                        pc = t as usize;
                    }
                }
                Op::Neg => {
                    let v = match pop!() {
                        Value(Repr::Int(n)) => tri!(
                            n.checked_neg()
                                .map(Value::int)
                                .ok_or_else(|| RunError::overflow(&format!("-({n})")))
                        ),
                        Value(Repr::Float(x)) => Value::float(-x.get()),
                        _ => tri!(Err(RunError::internal(
                            "negated a value that is not a number"
                        ))),
                    };
                    self.push(v);
                }
                Op::Not => {
                    let v = match pop!() {
                        Value(Repr::Bool(b)) => Value::bool(!b.get()),
                        _ => tri!(Err(RunError::internal("`!` of a value that is not a Bool"))),
                    };
                    self.push(v);
                }
                Op::TestLenLocal(s, n, t)
                | Op::TestMinLenLocal(s, n, t)
                | Op::JumpLenLocal(s, n, t) => {
                    let len = tri!(list_len(self.stack.get(base + s as usize)));
                    let jump = match op {
                        Op::TestLenLocal(..) => len != n as usize,
                        Op::JumpLenLocal(..) => len == n as usize,
                        _ => len < n as usize,
                    };
                    if jump {
                        pc = t as usize;
                    }
                }
                Op::ItemLocal(s, i, d) => {
                    let v = tri!(list_item(self.stack.get(base + s as usize), i));
                    set_local!(d, v);
                }
                Op::DropItemsLocal(s, n, d) => {
                    let list = take_local!(s);
                    let rest = tri!(self.rest_of(list, n));
                    set_local!(d, rest);
                }
                Op::PartLocal(a, i, d) => {
                    let v = self
                        .stack
                        .get(base + a as usize)
                        .and_then(|t| t.parts().get(i as usize).cloned());
                    let v = tri!(v.ok_or_else(bad_index));
                    set_local!(d, v);
                }
                Op::TakePartLocal(a, i, d) => {
                    let t = take_local!(a);
                    let v = tri!(t.parts().get(i as usize).cloned().ok_or_else(bad_index));
                    drop(t);
                    set_local!(d, v);
                }
                Op::MoveToLocal(a, b) => {
                    let v = take_local!(a);
                    set_local!(b, v);
                }
                Op::Each(l, i, t) => match tri!(self.each(base, l, i)) {
                    Some(v) => self.push(v),
                    None => pc = t as usize,
                },
                Op::ListFor(l) => {
                    let v = tri!(self.list_for(base + l as usize));
                    self.push(v);
                }
                Op::AppendLocal(a) => {
                    let x = pop!();
                    let acc = take_local!(a);
                    let v = tri!(self.append(acc, x));
                    set_local!(a, v);
                }
                Op::CallLocal(slot, n) => {
                    sync!();
                    // The common case inline, as for `Call`: a function or
                    // closure of the right arity, in a new frame not too
                    // deep.
                    let n = n as usize;
                    let callee = tri!(self.stack.get(base + slot as usize).ok_or_else(bad_index));
                    let known = match callee {
                        Value(Repr::Closure(c)) => Some((c.func, Some(c.clone()))),
                        Value(Repr::Func(f)) => Some((f.get(), None)),
                        _ => None,
                    };
                    if let Some((f, closure)) = known
                        && let Some(func) = functions.get(f as usize)
                        && func.arity as usize == n
                        && self.frames.len() < self.limits.depth
                        && self.stack.len() >= base + n
                    {
                        base = self.stack.len() - n;
                        self.push_frame(f, func, base, Kind::Normal, closure);
                        code = &func.ops;
                        pc = 0;
                        continue;
                    }
                    let callee = callee.clone();
                    tri!(self.call(callee, n, CallFrame::New));
                    reload!();
                }
                Op::Jump(t) => pc = t as usize,
                Op::JumpIfFalse(t) => match pop!() {
                    Value(Repr::Bool(b)) => {
                        if !b.get() {
                            pc = t as usize;
                        }
                    }
                    _ => {
                        sync!();
                        return Err(RunError::internal("a condition that is not a Bool"));
                    }
                },
                Op::Call(n) | Op::TailCall(n) => {
                    sync!();
                    let at = tri!(
                        self.stack
                            .len()
                            .checked_sub(n as usize + 1)
                            .ok_or_else(bad_index)
                    );
                    // The common case inline: a function or closure of the
                    // right arity, in a new frame not too deep, or in this
                    // frame for a tail call.
                    let known = match self.stack.get(at) {
                        Some(Value(Repr::Closure(c))) => Some(c.func),
                        Some(Value(Repr::Func(f))) => Some(f.get()),
                        _ => None,
                    };
                    let tail = matches!(op, Op::TailCall(_));
                    if let Some(f) = known
                        && let Some(func) = functions.get(f as usize)
                        && func.arity == n
                    {
                        if tail && at >= base {
                            let closure = take_closure(self.stack.remove(at));
                            self.reuse_frame(f, func, base, closure);
                            code = &func.ops;
                            pc = 0;
                            continue;
                        }
                        if !tail && self.frames.len() < self.limits.depth {
                            let closure = take_closure(self.stack.remove(at));
                            base = at;
                            self.push_frame(f, func, base, Kind::Normal, closure);
                            code = &func.ops;
                            pc = 0;
                            continue;
                        }
                    }
                    let callee = self.stack.remove(at);
                    let frame = if tail {
                        CallFrame::Reuse
                    } else {
                        CallFrame::New
                    };
                    tri!(self.call(callee, n as usize, frame));
                    reload!();
                }
                Op::CallFunc(f, n) => {
                    sync!();
                    // The common case inline: a known function, not too deep.
                    let n = n as usize;
                    match functions.get(f as usize) {
                        Some(func)
                            if func.arity as usize == n
                                && self.frames.len() < self.limits.depth
                                && self.stack.len() >= n =>
                        {
                            base = self.stack.len() - n;
                            self.push_frame(f, func, base, Kind::Normal, None);
                            code = &func.ops;
                            pc = 0;
                        }
                        _ => {
                            tri!(self.enter(f, None, n, CallFrame::New));
                            reload!();
                        }
                    }
                }
                Op::CallFuncLocalInt(f, slot, k, a) => {
                    sync!();
                    let v = local_int!(slot, k, a);
                    // Then as `CallFunc(f, 1)`, the callee's leading guards
                    // tested on the argument first (`guards.rs`).
                    match functions.get(f as usize) {
                        Some(func) if func.arity == 1 && self.frames.len() < self.limits.depth => {
                            // (An argument that is not an `Int`, as from
                            // `f(n == 1)`, is the callee's to test.)
                            let guarded = match v {
                                Value(Repr::Int(x)) => guards(&func.ops, x),
                                _ => Guarded::Enter(0),
                            };
                            match guarded {
                                Guarded::Enter(skip) => {
                                    self.push(v);
                                    base = self.stack.len() - 1;
                                    self.push_frame(f, func, base, Kind::Normal, None);
                                    code = &func.ops;
                                    pc = skip as usize;
                                }
                                Guarded::Int(r) => {
                                    forget_plain(v);
                                    self.push(Value(Repr::Int(i64::from(r))));
                                }
                                Guarded::Arg => self.push(v),
                            }
                        }
                        _ => {
                            self.push(v);
                            tri!(self.enter(f, None, 1, CallFrame::New));
                            reload!();
                        }
                    }
                }
                Op::TailCallFunc(f, n) => {
                    // The common case inline: the arguments replace the
                    // frame's locals.
                    let n = n as usize;
                    let start = self.stack.len().saturating_sub(n);
                    match functions.get(f as usize) {
                        Some(func)
                            if func.arity as usize == n
                                && self.stack.len() >= n
                                && start >= base =>
                        {
                            self.reuse_frame(f, func, base, None);
                            code = &func.ops;
                            pc = 0;
                        }
                        _ => {
                            sync!();
                            tri!(self.enter(f, None, n, CallFrame::Reuse));
                            reload!();
                        }
                    }
                }
                Op::TailCallSelf(n) => {
                    let n = n as usize;
                    let func = self
                        .frames
                        .last()
                        .and_then(|f| functions.get(f.func as usize));
                    match func {
                        Some(func)
                            if func.arity as usize == n
                                && self.stack.len() >= n
                                && self.stack.len() - n >= base =>
                        {
                            self.replace_locals(func, base);
                            pc = 0;
                        }
                        _ => {
                            sync!();
                            return Err(RunError::internal(
                                "a tail call of the running function with the wrong arguments",
                            ));
                        }
                    }
                }
                Op::Return => {
                    let v = pop!();
                    ret!(v);
                }
                Op::ReturnLocal(i) => {
                    let v = take_local!(i);
                    ret!(v);
                }
                Op::ReturnLocalIf(slot, cmp, k, _) | Op::ReturnIntIf(slot, cmp, k, _) => {
                    let holds = local_holds!(slot, cmp, k);
                    if holds {
                        let v = match *op {
                            Op::ReturnLocalIf(_, _, _, r) => take_local!(r),
                            Op::ReturnIntIf(_, _, _, v) => Value(Repr::Int(i64::from(v))),
                            _ => Value(Repr::Unit),
                        };
                        ret!(v);
                    }
                }
                Op::ReturnArith(a) => {
                    // `Int op Int` inline: the operands stay where they
                    // are, plain values the returning frame lets go of.
                    let fast = match self.stack.as_slice() {
                        [.., Value(Repr::Int(p)), Value(Repr::Int(q))] => int_fast(a, *p, *q),
                        _ => None,
                    };
                    let v = match fast {
                        Some(v) => v,
                        None => {
                            tri!(self.arith_top(a));
                            pop!()
                        }
                    };
                    ret!(v);
                }
                Op::ResumeTail | Op::ResumeTailWith => {
                    // The common case inline: return to the performer,
                    // updating the handler's parameter.
                    let param = if *op == Op::ResumeTailWith {
                        Some(pop!())
                    } else {
                        None
                    };
                    let v = pop!();
                    if let (Some(&Entry::Skip(t)), Some(top)) =
                        (self.handlers.last(), self.frames.last())
                        && top.kind == Kind::Clause
                        && self.frames.len() > 1
                    {
                        if let Some(s) = param {
                            tri!(self.set_param(t, s));
                        }
                        // The `Skip` entry, checked above: nothing to drop.
                        if let Some(other @ Entry::Handler { .. }) = self.handlers.pop() {
                            drop(other);
                        }
                        if let Some(done) = self.frames.pop() {
                            discard_above(&mut self.stack, done.base as usize);
                        }
                        reload!();
                        self.push(v);
                        continue;
                    }
                    sync!();
                    if let Some(done) = tri!(self.resume_tail(v, param)) {
                        return Ok(Exit::Done(done));
                    }
                    reload!();
                }
                Op::Perform(e, o, n) => {
                    sync!();
                    let n = n as usize;
                    // The handler is looked up once; then the commonest
                    // cases inline.
                    let Ok(Some((i, clause, info))) = self.lookup(e, Some(o)) else {
                        // No handler in the program (or a bad index, which
                        // this reports): the host's.
                        tri!(self.perform(e, o, n));
                        if self.pending.is_some() {
                            return Ok(Exit::Paused);
                        }
                        reload!();
                        continue;
                    };
                    // A clause that only resumes with its arguments or
                    // parameter needs no frame at all.
                    if let Some(simple) = &clause.simple
                        && let Some(v) = self.simple_clause(i, simple, n)
                    {
                        self.push(v);
                        continue;
                    }
                    // A tail-resumptive clause runs in place, in a new
                    // frame (with its closure, if it captures anything).
                    if clause.tail_resumptive
                        && let Some((f, closure)) = self.tail_clause(i, clause)
                        && let Some(func) = functions.get(f as usize)
                        && func.arity as usize == n + usize::from(info.has_param)
                        && self.frames.len() < self.limits.depth
                    {
                        if info.has_param {
                            let s = self.take_param(i);
                            self.push(s);
                        }
                        push_in_place(&mut self.handlers, Entry::Skip(i as u32));
                        base = self.stack.len() - func.arity as usize;
                        self.push_frame(f, func, base, Kind::Clause, closure);
                        code = &func.ops;
                        pc = 0;
                        continue;
                    }
                    tri!(self.perform_at(i, clause, info.has_param, n));
                    reload!();
                }
                Op::Handle(h) => {
                    sync!();
                    tri!(self.handle(h));
                    reload!();
                }
                Op::NoMatch => {
                    sync!();
                    return Err(RunError::internal("no pattern matched a checked match"));
                }
                other => {
                    let jump = tri!(self.data_op(other));
                    if let Some(t) = jump {
                        pc = t as usize;
                    }
                }
            }
        }
    }
}
