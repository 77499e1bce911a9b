//! Calls and frames: entering a function (or reusing the frame for a tail
//! call), calling closures, natives and resumptions, making closures, and
//! returning.
//!
//! Invariants:
//! - **Calls push frames, never Rust stack.** A call is a [`super::Frame`]
//!   on the machine's frame vector; its depth is bounded by the depth limit
//!   (`E5003`), checked before the frame is pushed.
//! - **Tail calls reuse the running frame**: the arguments replace its
//!   locals, so tail recursion runs in constant space. A tail call of a
//!   resumption from an ordinary call's frame lets that frame go before
//!   the continuation goes back on the stacks.
//! - **A native's metered work is reported at the call**: after a native
//!   returns, a tripped meter becomes the limit's error
//!   ([`Machine::metered`]), not the native's cut-short result.

use std::rc::Rc;

use crate::code::{CaptureFrom, Module};
use crate::error::RunError;
use crate::limits::Limit;
use crate::value::{ClosureObj, Repr, Small, Value};

use super::{Entry, Frame, Kind, Machine, bad_index};

/// Whether a call gets a frame of its own or takes over its caller's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CallFrame {
    /// A new frame on top of the caller's (counted against the depth
    /// limit).
    New,
    /// A tail call: the caller's frame is reused, so a loop written as a
    /// tail call runs in constant depth.
    Reuse,
}

impl<'a> Machine<'a> {
    /// The running function as a value (for a local function naming
    /// itself).
    pub(super) fn current_fn(&self) -> Result<Value, RunError> {
        let f = self.frames.last().ok_or_else(bad_index)?;
        Ok(match &f.closure {
            Some(c) => Value(Repr::Closure(c.clone())),
            None => Value(Repr::Func(f.func.into())),
        })
    }

    pub(super) fn make_closure(&mut self, f: u32, base: usize) -> Result<Value, RunError> {
        let func = self
            .module
            .functions
            .get(f as usize)
            .ok_or_else(bad_index)?;
        let mut captures = Small::with_capacity(func.captures.len());
        for c in &func.captures {
            let v = match c {
                CaptureFrom::Local(s) => self.stack.get(base + *s as usize).cloned(),
                CaptureFrom::Capture(i) => self
                    .frames
                    .last()
                    .and_then(|fr| fr.closure.as_ref())
                    .and_then(|cl| cl.captures.get(*i as usize))
                    .cloned(),
                CaptureFrom::SelfFn => self.current_fn().ok(),
            };
            captures.push(v.ok_or_else(bad_index)?);
        }
        Ok(self.recycled.closure(f, captures))
    }

    /// Call a function value with the `argc` arguments on top of the stack.
    pub(super) fn call(
        &mut self,
        callee: Value,
        argc: usize,
        frame: CallFrame,
    ) -> Result<(), RunError> {
        match callee {
            Value(Repr::Func(f)) => self.enter(f.get(), None, argc, frame),
            Value(Repr::Closure(c)) => {
                let f = c.func;
                self.enter(f, Some(c), argc, frame)
            }
            Value(Repr::Native(n)) => {
                let start = self.stack.len().checked_sub(argc).ok_or_else(bad_index)?;
                let v = crate::natives::call(self, n.get(), start)?;
                self.metered()?;
                self.stack.truncate(start);
                self.push(v);
                Ok(())
            }
            Value(Repr::Resume(k)) => {
                let leave = frame == CallFrame::Reuse
                    && self.frames.last().is_some_and(|f| f.kind == Kind::Normal);
                self.resume(k, argc, leave)
            }
            _ => Err(RunError::internal("called a value that is not a function")),
        }
    }

    /// Let the running frame go for a tail call of a resumption
    /// (`fn() { resume(()) }`, a clause ending in `resume(v)`), once the
    /// resume's checks have passed and its arguments are off the stack
    /// ([`Machine::resume`]): its locals are dropped and the frame popped,
    /// so the continuation returns straight to the caller (as any tail
    /// call does, in constant depth), and the frame's closure, its capture
    /// moved out, is kept for the next closure made
    /// ([`crate::value::Recycled`]). Only an ordinary call's frame is let
    /// go (the caller checks): a handler's body, a clause running in place
    /// and the top level stay (their return is not a plain return). Out
    /// of line, to leave the resume's other paths as they were.
    #[inline(never)]
    pub(super) fn leave_for_resume(&mut self) -> Result<(), RunError> {
        let base = self.frames.last().ok_or_else(bad_index)?.base as usize;
        if base > self.stack.len() {
            return Err(bad_index());
        }
        super::inline::discard_above(&mut self.stack, base);
        if let Some(Frame {
            closure: Some(c), ..
        }) = self.frames.pop()
        {
            self.recycled.keep(Value(Repr::Closure(c)));
        }
        Ok(())
    }

    /// Push a frame for function `f` (or reuse the running one for a tail
    /// call, [`CallFrame::Reuse`]).
    pub(super) fn enter(
        &mut self,
        f: u32,
        closure: Option<Rc<ClosureObj>>,
        argc: usize,
        frame: CallFrame,
    ) -> Result<(), RunError> {
        let func = self
            .module
            .functions
            .get(f as usize)
            .ok_or_else(bad_index)?;
        if func.arity as usize != argc {
            return Err(RunError::internal(format!(
                "called `{}` with {argc} arguments instead of {}",
                func.name, func.arity
            )));
        }
        let start = self.stack.len().checked_sub(argc).ok_or_else(bad_index)?;
        let base = if frame == CallFrame::Reuse {
            let top = self.frames.last_mut().ok_or_else(bad_index)?;
            let base = top.base as usize;
            top.func = f;
            top.pc = 0;
            top.closure = closure;
            if start > base {
                self.stack.drain(base..start);
            }
            base
        } else {
            if self.frames.len() >= self.limits.depth {
                return Err(RunError::limit(
                    Limit::Depth,
                    Limit::Depth.value_in(&self.limits),
                    format!(
                        "expected calls nested at most {} deep, but `{}` went deeper",
                        self.limits.depth, func.name
                    ),
                )
                .with_help("a loop written as a tail call (the call is the last thing the function does) runs in constant depth"));
            }
            self.push_frame(f, func, start, Kind::Normal, closure);
            return Ok(());
        };
        let end = base + func.locals as usize;
        if end > self.stack.capacity() {
            let more = self.stack_growth(self.stack.len(), crate::value::SLOT);
            self.stack.reserve_exact(more.max(end - self.stack.len()));
        }
        self.stack.resize(end, Value(Repr::Unit));
        Ok(())
    }

    /// Return `v` from the running frame; `Some` when the run is over.
    pub(super) fn ret(&mut self, v: Value) -> Result<Option<Value>, RunError> {
        let frame = self.frames.pop().ok_or_else(bad_index)?;
        self.stack.truncate(frame.base as usize);
        match frame.kind {
            Kind::Top => return Ok(Some(v)),
            Kind::Normal => self.push(v),
            Kind::Clause => {
                if !matches!(self.handlers.pop(), Some(Entry::Skip(_))) {
                    return Err(RunError::internal("a clause returned past its handler"));
                }
                self.push(v);
            }
            Kind::Body => self.body_returned(v)?,
        }
        Ok(None)
    }

    /// The module being run.
    pub(crate) fn module(&self) -> &'a Module {
        self.module
    }

    /// The arguments of a native call, starting at `start`.
    pub(crate) fn args(&self, start: usize) -> &[Value] {
        self.stack.get(start..).unwrap_or(&[])
    }
}
