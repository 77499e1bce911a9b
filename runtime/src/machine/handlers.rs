//! Handlers in the machine: installing them, performing operations,
//! capturing and resuming continuations.
//!
//! - `handle` pushes an [`Entry::Handler`] and calls the body thunk in a
//!   frame of kind `Body`; when that frame returns, the handler is
//!   removed and its `return` clause applied to the value.
//! - `perform` looks down the handler stack for the nearest handler of the
//!   operation, jumping over handlers hidden by a `Skip` entry. None: the
//!   operation goes to the host (`Fail` ends the run).
//! - **General clause**: the frames, operand stack and handler entries
//!   from the handler up are moved into a [`Resumption`]; the clause runs
//!   where the `handle` was, so it is outside its own handler; the
//!   operation's arguments stay on top of the stack for it. Calling the
//!   resumption puts its parts back (rebased to where it is resumed),
//!   handler included (deep handlers), and delivers its argument as the
//!   operation's result. A resumption owned only by the caller is moved,
//!   not copied (one captured by a closure is held once when that closure
//!   is called by its only holder and reads it for the last time:
//!   `MoveCapture`); a shared one is copied, straight from where it is
//!   held, so every resume is independent (multi-shot).
//! - **Moving in bulk.** Capture and a moved resume move each of the three
//!   parts as one block. A resumption resumed at the depth it was captured
//!   at (a generator's consumer in a loop) needs no rebasing. A moved
//!   resumption, emptied, is kept whole ([`Spare`], a few and small, not
//!   charged while kept) and the next capture moves the part captured
//!   into it, so a capture allocates nothing.
//! - **Abortive clause** (never mentions `resume`): the same, but the
//!   continuation is dropped instead of captured.
//! - **Tail-resumptive clause**: no capture. A `Skip` entry hides the
//!   handler and those above it, the clause runs on top of the performer,
//!   and `resume(v)` returns `v` to it directly (updating the handler's
//!   parameter first, for `resume(v, p)`).

use std::rc::Rc;

use writ_lang::Code;
use writ_lang::types::BuiltinEffect;

use super::calls::CallFrame;
use super::{Entry, Frame, Kind, Machine, Pending, bad_index};
use crate::code::Module;
use crate::error::RunError;
use crate::host::HostError;
use crate::limits::Limit;
use crate::value::{self, Repr, Value};

/// The handler entries an operation's search for its handler may look at
/// free of charge: a search that looks at more is charged a unit of fuel
/// for each entry it looked at ([`Machine::lookup`]). Handlers nest this
/// deep in ordinary programs.
const FREE_SEARCH: u64 = 16;

/// The rest of a handled computation: what `resume` calls.
#[derive(Debug, Default)]
pub struct Resumption {
    pub(super) frames: Vec<Frame>,
    pub(super) stack: Vec<Value>,
    pub(super) handlers: Vec<Entry>,
    pub(super) frame_base: u32,
    pub(super) stack_base: u32,
    pub(super) handler_base: u32,
    charged: usize,
}

impl Resumption {
    /// A resumption of these parts (as `perform` captures them, or as a
    /// snapshot restores them), charged as `perform` charges one.
    pub(super) fn new(
        frames: Vec<Frame>,
        stack: Vec<Value>,
        handlers: Vec<Entry>,
        bases: (u32, u32, u32),
    ) -> Resumption {
        let mut k = Resumption {
            frames,
            stack,
            handlers,
            frame_base: bases.0,
            stack_base: bases.1,
            handler_base: bases.2,
            charged: 0,
        };
        k.charge();
        k
    }

    /// Charge what it holds: the room its vectors have, not only what is
    /// in them (a kept resumption's vectors may have room left from an
    /// earlier, deeper capture). It must not be charged already.
    fn charge(&mut self) {
        self.charged = value::HEADER
            + self.frames.capacity() * std::mem::size_of::<Frame>()
            + self.stack.capacity() * value::SLOT
            + self.handlers.capacity() * std::mem::size_of::<Entry>();
        value::charge(self.charged);
    }
}

impl Clone for Resumption {
    fn clone(&self) -> Self {
        value::charge(self.charged);
        Resumption {
            frames: self.frames.clone(),
            stack: self.stack.clone(),
            handlers: self.handlers.clone(),
            frame_base: self.frame_base,
            stack_base: self.stack_base,
            handler_base: self.handler_base,
            charged: self.charged,
        }
    }
}

impl Drop for Resumption {
    fn drop(&mut self) {
        value::credit(self.charged);
        // Moved back onto the stacks (the common case): nothing held.
        if self.stack.is_empty() && self.handlers.is_empty() && self.frames.is_empty() {
            return;
        }
        // The handlers' and frames' values beside the stack's, not pushed
        // onto it: its vector may have no room left (a capture reserves
        // exactly what it moves), and growing it would copy it whole.
        let mut more: smallvec::SmallVec<[Value; 4]> = smallvec::SmallVec::new();
        for e in std::mem::take(&mut self.handlers) {
            if let Entry::Handler {
                closures, param, ..
            } = e
            {
                more.push(param);
                if let Ok(cl) = Rc::try_unwrap(closures) {
                    more.extend(cl);
                }
            }
        }
        for f in std::mem::take(&mut self.frames) {
            if let Some(c) = f.closure {
                more.push(Value(Repr::Closure(c)));
            }
        }
        let mut stack = std::mem::take(&mut self.stack);
        value::defer_values(stack.drain(..).chain(more));
    }
}

/// Resumptions that were moved back onto the stacks, emptied and kept
/// by the machine for its next captures: a generator's capture and
/// resume, repeated, then allocate nothing (neither the resumption nor
/// its vectors). At most [`SPARE_SETS`] are kept, none whose vectors
/// have room for more than [`SPARE_ROOM`] elements, so what is kept is
/// small and bounded; a kept resumption is charged nothing (small and
/// bounded, it is the machine's, not the program's memory) and is
/// charged again when a capture fills it.
#[derive(Debug, Default)]
pub(super) struct Spare {
    kept: Vec<Rc<Resumption>>,
}

/// How many emptied resumptions [`Spare`] keeps.
const SPARE_SETS: usize = 4;
/// The most elements a vector of a resumption kept by [`Spare`] has room
/// for.
const SPARE_ROOM: usize = 4096;

impl Spare {
    /// Keep a resumption moved back (its vectors emptied, nothing else
    /// holding it), no longer charged; one too large, or past the count,
    /// is let go.
    fn keep(&mut self, mut k: Rc<Resumption>) {
        let Some(r) = Rc::get_mut(&mut k) else {
            return;
        };
        value::credit(r.charged);
        r.charged = 0;
        let small = |n: usize| n <= SPARE_ROOM;
        if r.frames.is_empty()
            && r.stack.is_empty()
            && r.handlers.is_empty()
            && small(r.frames.capacity())
            && small(r.stack.capacity())
            && small(r.handlers.capacity())
            && self.kept.len() < SPARE_SETS
        {
            self.kept.push(k);
        }
    }

    /// A kept resumption to fill, or a new one; nothing else holds it.
    fn take(&mut self) -> Rc<Resumption> {
        self.kept.pop().unwrap_or_default()
    }
}

/// Move `from[at..]` onto the end of `to`, in bulk: the elements are
/// copied once, and `to` keeps (or grows) its room.
fn move_tail<T>(from: &mut Vec<T>, at: usize, to: &mut Vec<T>) {
    let at = at.min(from.len());
    let n = from.len() - at;
    // A vector with room grows as vectors do; an empty one gets exactly
    // what it holds (what is charged is the room).
    if to.capacity() == 0 {
        to.reserve_exact(n);
    } else {
        to.reserve(n);
    }
    // SAFETY: `from[at..]` is `n` initialised elements, and `to` has room
    // for `n` more after its length (reserved above); the two vectors do
    // not overlap. The elements are moved, not copied: `from` is cut to
    // `at` before either vector is used again, so each element has one
    // owner.
    unsafe {
        let src = from.as_ptr().add(at);
        let dst = to.as_mut_ptr().add(to.len());
        std::ptr::copy_nonoverlapping(src, dst, n);
        from.set_len(at);
        to.set_len(to.len() + n);
    }
}

/// Move `from[at..end]` onto the end of `to`, in bulk, and what was above
/// it (`from[end..]`, an operation's arguments) down to `at`: each element
/// is copied once, `to` keeps (or grows) its room as in [`move_tail`].
fn move_below<T>(from: &mut Vec<T>, at: usize, end: usize, to: &mut Vec<T>) {
    let len = from.len();
    let end = end.min(len);
    let at = at.min(end);
    let (n, above) = (end - at, len - end);
    if to.capacity() == 0 {
        to.reserve_exact(n);
    } else {
        to.reserve(n);
    }
    // SAFETY: `from[at..end]` is `n` initialised elements and `to` has
    // room for `n` more after its length (reserved above); the two
    // vectors do not overlap. Then `from[end..len]`, `above` initialised
    // elements, is copied down to `at` (the ranges may overlap: `copy`),
    // and `from` is cut to `at + above`. Every element is moved, not
    // copied: each has one owner when either vector is used again.
    unsafe {
        let base = from.as_mut_ptr();
        std::ptr::copy_nonoverlapping(base.add(at), to.as_mut_ptr().add(to.len()), n);
        to.set_len(to.len() + n);
        std::ptr::copy(base.add(end), base.add(at), above);
        from.set_len(at + above);
    }
}

/// Where a resumption's frames, operand stack and handler entries were
/// captured and where they are put back: rebasing what they hold.
struct Shift {
    from: (u32, u32, u32),
    to: (u32, u32, u32),
}

impl Shift {
    fn new(k: &Resumption, to: (usize, usize, usize)) -> Result<Shift, RunError> {
        let at = |n: usize| u32::try_from(n).map_err(|_| bad_index());
        Ok(Shift {
            from: (k.frame_base, k.stack_base, k.handler_base),
            to: (at(to.0)?, at(to.1)?, at(to.2)?),
        })
    }

    fn rebase(x: u32, from: u32, to: u32) -> Result<u32, RunError> {
        x.checked_sub(from)
            .and_then(|d| to.checked_add(d))
            .ok_or_else(bad_index)
    }

    /// A frame's base (or a handler's stack start).
    #[inline]
    fn stack(&self, x: u32) -> Result<u32, RunError> {
        Shift::rebase(x, self.from.1, self.to.1)
    }

    /// Rebase, in place, the frames and handler entries just put back
    /// (appended in bulk, so each is written once where it lies).
    fn rebase_in_place(
        &self,
        frames: &mut [Frame],
        handlers: &mut [Entry],
    ) -> Result<(), RunError> {
        for f in frames {
            f.base = self.stack(f.base)?;
        }
        for e in handlers {
            match e {
                Entry::Skip(t) => *t = Shift::rebase(*t, self.from.2, self.to.2)?,
                Entry::Handler { frame, stack, .. } => {
                    *frame = Shift::rebase(*frame, self.from.0, self.to.0)?;
                    *stack = self.stack(*stack)?;
                }
            }
        }
        Ok(())
    }
}

impl<'a> Machine<'a> {
    /// `handle`: pop the body thunk, the clause closures and the initial
    /// parameter; install the handler; call the body.
    pub(super) fn handle(&mut self, id: u32) -> Result<(), RunError> {
        let info = self
            .module
            .handlers
            .get(id as usize)
            .ok_or_else(bad_index)?;
        let body = self.stack.pop().ok_or_else(bad_index)?;
        let start = self
            .stack
            .len()
            .checked_sub(info.closures as usize)
            .ok_or_else(bad_index)?;
        let closures = self.stack.split_off(start);
        let param = if info.has_param {
            self.stack.pop().ok_or_else(bad_index)?
        } else {
            Value(Repr::Unit)
        };
        self.handlers.push(Entry::Handler {
            info: id,
            closures: Rc::new(closures),
            param,
            frame: self.frames.len() as u32,
            stack: self.stack.len() as u32,
        });
        self.call(body, 0, CallFrame::New)?;
        if let Some(f) = self.frames.last_mut() {
            f.kind = Kind::Body;
        }
        Ok(())
    }

    /// A handler's body returned `v`: uninstall the handler and apply its
    /// `return` clause (outside the handler).
    pub(super) fn body_returned(&mut self, v: Value) -> Result<(), RunError> {
        let Some(Entry::Handler {
            info,
            closures,
            param,
            ..
        }) = self.handlers.pop()
        else {
            return Err(RunError::internal(
                "a handled body returned past its handler",
            ));
        };
        let info = self
            .module
            .handlers
            .get(info as usize)
            .ok_or_else(bad_index)?;
        if !info.has_return {
            self.push(v);
            return Ok(());
        }
        let ret = closures.last().cloned().ok_or_else(bad_index)?;
        self.push(v);
        let mut argc = 1;
        if info.has_param {
            self.push(param);
            argc += 1;
        }
        self.call(ret, argc, CallFrame::New)
    }

    /// Perform operation `op` of effect `effect` with the `argc` arguments
    /// on top of the stack.
    pub(super) fn perform(&mut self, effect: u32, op: u32, argc: usize) -> Result<(), RunError> {
        match self.handler_for(effect, Some(op))? {
            Some((i, clause, info)) => self.perform_at(i, clause, info.has_param, argc),
            None => self.perform_host(effect, op, argc),
        }
    }

    /// Perform an operation whose handler [`Machine::handler_for`] found:
    /// the handler at index `i` of the handler stack runs `clause` (in
    /// place when it is tail-resumptive, after capturing or dropping the
    /// continuation otherwise) with the `argc` arguments on top of the
    /// stack.
    pub(super) fn perform_at(
        &mut self,
        i: usize,
        clause: &crate::code::ClauseInfo,
        has_param: bool,
        argc: usize,
    ) -> Result<(), RunError> {
        let Some(Entry::Handler {
            closures,
            frame,
            stack,
            ..
        }) = self.handlers.get(i)
        else {
            return Err(bad_index());
        };
        let body = closures
            .get(clause.clause as usize)
            .cloned()
            .ok_or_else(bad_index)?;
        let (frame, stack_base) = (*frame as usize, *stack as usize);
        let with_param = usize::from(has_param);
        // The clause holds the parameter alone ([`Machine::take_param`]):
        // every `resume` of it gives the handler its next one. It is
        // taken once nothing can stop the operation before the clause
        // is called (a limit that stops it leaves the handler whole).
        if clause.tail_resumptive {
            if has_param {
                let param = self.take_param(i);
                self.push(param);
            }
            self.handlers.push(Entry::Skip(i as u32));
            self.call(body, argc + with_param, CallFrame::New)?;
            if let Some(f) = self.frames.last_mut() {
                f.kind = Kind::Clause;
            }
            return Ok(());
        }
        // The arguments stay on top: the captured (or dropped) part of the
        // operand stack is the one below them, from the handler's base.
        let start = self.stack.len().checked_sub(argc).ok_or_else(bad_index)?;
        if stack_base > start || frame > self.frames.len() || i > self.handlers.len() {
            return Err(bad_index());
        }
        let param;
        let resume = if clause.abortive {
            param = self.take_param(i);
            self.frames.truncate(frame);
            // The arguments are taken off, what lies between the handler's
            // base and them is let go (plain values, most of a deep
            // stack's, cut off without the drop glue), and the arguments
            // go back on.
            let args = self.take_small(argc)?;
            super::inline::discard_above(&mut self.stack, stack_base);
            self.stack.extend(args);
            self.handlers.truncate(i);
            Value(Repr::Unit)
        } else {
            // Moving the captured part costs a unit per slot moved.
            let moved =
                (self.frames.len() - frame) + (start - stack_base) + (self.handlers.len() - i);
            self.tick(moved as u64)?;
            param = self.take_param(i);
            // Into a kept resumption when there is one (its vectors'
            // room too), else a new one.
            let mut kept = self.spare.take();
            let Some(k) = Rc::get_mut(&mut kept) else {
                return Err(bad_index());
            };
            move_tail(&mut self.frames, frame, &mut k.frames);
            // The part of the operand stack below the arguments; they
            // move down in its place.
            move_below(&mut self.stack, stack_base, start, &mut k.stack);
            move_tail(&mut self.handlers, i, &mut k.handlers);
            (k.frame_base, k.stack_base, k.handler_base) =
                (frame as u32, stack_base as u32, i as u32);
            k.charge();
            Value(Repr::Resume(kept))
        };
        if has_param {
            self.push(param);
        }
        self.push(resume);
        self.check_memory(0)?;
        self.call(body, argc + with_param + 1, CallFrame::New)
    }

    /// An operation no handler in the program handles: `Fail` ends the
    /// run; anything else stops the machine at it ([`Machine::pending`],
    /// its arguments left on the stack), for the host to answer with
    /// [`Machine::answer`].
    pub(super) fn perform_host(
        &mut self,
        effect: u32,
        op: u32,
        argc: usize,
    ) -> Result<(), RunError> {
        let module = self.module;
        let info = module.effects.get(effect as usize).ok_or_else(bad_index)?;
        info.ops.get(op as usize).ok_or_else(bad_index)?;
        let start = self.stack.len().checked_sub(argc).ok_or_else(bad_index)?;
        if BuiltinEffect::Fail.is(&info.name) {
            let message = self
                .stack
                .get(start)
                .and_then(Value::as_str)
                .unwrap_or_default();
            return Err(RunError::new(
                Code::ProgramFailed,
                // The program's own text, escaped (it reaches terminals)
                // and bounded (it can be as long as memory allows).
                format!(
                    "the program failed: {}",
                    crate::display::safe_start(message, FAIL_SHOWN, crate::display::LineBreaks::Escape)
                ),
            )
            .with_help("`Fail.fail` was performed with no handler of `Fail` around it; handle `Fail` to recover instead"));
        }
        if BuiltinEffect::Log.is(&info.name) {
            let bytes: usize = self
                .stack
                .get(start..)
                .unwrap_or(&[])
                .iter()
                .filter_map(Value::as_str)
                .map(|s| s.len() + 1)
                .sum();
            self.count_output(bytes)?;
        }
        self.pending = Some(Pending { effect, op, start });
        Ok(())
    }

    /// The operation the machine stopped at: its capability, its
    /// operation and its arguments (`None` when it is not stopped at one).
    pub(super) fn pending_op(&self) -> Option<(&'a str, &'a str, &[Value])> {
        let p = self.pending?;
        let module: &'a Module = self.module;
        let info = module.effects.get(p.effect as usize)?;
        let op = info.ops.get(p.op as usize)?;
        Some((&info.name, op, self.stack.get(p.start..).unwrap_or(&[])))
    }

    /// Answer the operation the machine stopped at with the host's
    /// `result`: a value is the operation's result; [`HostError::Fail`]
    /// performs `Fail.fail(message)` where the operation was (a denial the
    /// program may handle); [`HostError::Stop`] ends the run. Then
    /// [`Machine::execute`] continues the run.
    pub(super) fn answer(&mut self, result: Result<Value, HostError>) -> Result<(), RunError> {
        let Some(Pending { start, .. }) = self.pending.take() else {
            return Err(RunError::internal("an answer to no pending operation"));
        };
        // The operation may have waited past the run's time, or been
        // cancelled while it waited: the run ends now, not at the next
        // periodic check (which a short program would never reach).
        if !matches!(result, Err(HostError::Stop(_)))
            && let Some(l) = self.interrupted()
        {
            return Err(self.exhausted(l));
        }
        match result {
            Ok(v) => {
                self.stack.truncate(start);
                self.push(v);
                Ok(())
            }
            Err(HostError::Stop(e)) if e.stopped_by_grant && self.fail_handled() => {
                let help = "the program handles `Fail` around this operation: with `on_deny = \"fail\"` in the policy's grant, the denial would be `Fail.fail(message)` and that handler would recover from it";
                let help = match &e.help {
                    Some(h) => format!("{h}; {help}"),
                    None => help.to_string(),
                };
                Err(e.with_help(help))
            }
            Err(HostError::Stop(e)) => Err(e),
            // A denial the program may handle: `Fail.fail(message)`,
            // performed where the operation was.
            Err(HostError::Fail(message)) => {
                self.stack.truncate(start);
                let fail = self
                    .module
                    .effects
                    .iter()
                    .position(|e| BuiltinEffect::Fail.is(&e.name))
                    .ok_or_else(bad_index)?;
                self.push(Value::str(message));
                self.perform(fail as u32, 0, 1)
            }
        }
    }

    /// The innermost handler in reach with a clause for `effect` (and
    /// `op`, when given): its index in the handler stack, the clause, and
    /// the handler's description; `None` when the operation goes to the
    /// host. See [`Machine::lookup`].
    pub(super) fn handler_for(
        &self,
        effect: u32,
        op: Option<u32>,
    ) -> Result<Option<Found<'a>>, RunError> {
        self.lookup(effect, op).map_err(|()| match self.metered() {
            Err(limit) => limit,
            Ok(()) => bad_index(),
        })
    }

    /// The walk down the handler stack behind [`Machine::handler_for`],
    /// jumping over the handlers a `Skip` entry hides; `Err` for an index
    /// out of range (a bug in lowering). What an operation looks up, once:
    /// the step loop's `Perform` then runs a simple clause, a clause in
    /// place, or [`Machine::perform_at`] with what it found, and sends
    /// anything else (no handler, or a bad index, reported there) to
    /// [`Machine::perform`].
    ///
    /// A walk that looks at more than [`FREE_SEARCH`] entries is charged a
    /// unit of fuel per entry it looked at (an operation under a hundred
    /// thousand handlers of other effects is that much work); `Err` too
    /// when that trips the meter ([`Machine::handler_for`] then reports
    /// the limit).
    #[inline(always)]
    pub(super) fn lookup(&self, effect: u32, op: Option<u32>) -> Result<Option<Found<'a>>, ()> {
        let module = self.module;
        let mut i = self.handlers.len();
        let mut visited = 0u64;
        while i > 0 {
            i -= 1;
            visited += 1;
            match self.handlers.get(i) {
                Some(Entry::Skip(t)) => i = *t as usize,
                Some(Entry::Handler { info, .. }) => {
                    let info = module.handlers.get(*info as usize).ok_or(())?;
                    if let Some(c) = info
                        .clauses
                        .iter()
                        .find(|c| c.effect == effect && op.is_none_or(|op| c.op == op))
                    {
                        if visited > FREE_SEARCH && !self.charge_search(visited) {
                            return Err(());
                        }
                        return Ok(Some((i, c, info)));
                    }
                }
                None => return Err(()),
            }
        }
        if visited > FREE_SEARCH && !self.charge_search(visited) {
            return Err(());
        }
        Ok(None)
    }

    /// Charge a long walk down the handler stack ([`Machine::lookup`]):
    /// `false` when it trips the meter.
    #[cold]
    #[inline(never)]
    fn charge_search(&self, visited: u64) -> bool {
        self.meter().charge(visited)
    }

    /// Whether `Fail.fail` performed here would reach a handler of the
    /// program.
    fn fail_handled(&self) -> bool {
        let fail = self
            .module
            .effects
            .iter()
            .position(|e| BuiltinEffect::Fail.is(&e.name));
        fail.and_then(|f| u32::try_from(f).ok())
            .is_some_and(|f| matches!(self.handler_for(f, None), Ok(Some(_))))
    }

    /// Call a resumption with its argument (and the handler's next
    /// parameter): its frames, operand stack and handler entries go back
    /// on top of the machine's, rebased to where it is resumed. A
    /// resumption nothing else holds is moved (its emptied vectors are
    /// kept for the next capture, [`Spare`]); a shared one is copied
    /// straight from where it is held, so it can be resumed again
    /// (multi-shot). With `leave` (a tail call of the resumption from an
    /// ordinary call's frame), the running frame goes once the checks
    /// have passed ([`Machine::leave_for_resume`]), so that an error they
    /// report is placed at the call.
    pub(super) fn resume(
        &mut self,
        mut k: Rc<Resumption>,
        argc: usize,
        leave: bool,
    ) -> Result<(), RunError> {
        let param = if argc == 2 {
            Some(self.stack.pop().ok_or_else(bad_index)?)
        } else {
            None
        };
        let v = self.stack.pop().ok_or_else(bad_index)?;
        if self.frames.len().saturating_sub(usize::from(leave)) + k.frames.len() > self.limits.depth
        {
            return Err(RunError::limit(
                Limit::Depth,
                Limit::Depth.value_in(&self.limits),
                format!(
                    "expected calls nested at most {} deep, but resuming went deeper",
                    self.limits.depth
                ),
            ));
        }
        // Copying (or moving) it back costs a unit per slot.
        self.tick((k.frames.len() + k.stack.len() + k.handlers.len()) as u64)?;
        if leave {
            self.leave_for_resume()?;
        }
        let nh = self.handlers.len();
        match Rc::get_mut(&mut k) {
            Some(moving) => {
                let moved = self.move_back(moving);
                // The resumption is still charged while memory is checked
                // (as a copy of a shared one is).
                let done = moved.and_then(|()| self.resumed(v, param, nh));
                self.spare.keep(k);
                done
            }
            None => {
                let shared = k;
                // Counted as a copy of the resumption would be, until the
                // memory check.
                value::charge(shared.charged);
                let done = self
                    .copy_back(&shared)
                    .and_then(|()| self.resumed(v, param, nh));
                value::credit(shared.charged);
                done
            }
        }
    }

    /// Move a resumption nothing else holds back onto the stacks, each
    /// part in bulk; then, unless it is resumed where it was captured
    /// (as when a generator's consumer resumes it at the same depth each
    /// time), its frames and handler entries are rebased where they lie.
    fn move_back(&mut self, k: &mut Resumption) -> Result<(), RunError> {
        let at = (self.frames.len(), self.stack.len(), self.handlers.len());
        let same = |base: u32, at: usize| base as usize == at;
        let shift =
            if same(k.frame_base, at.0) && same(k.stack_base, at.1) && same(k.handler_base, at.2) {
                None
            } else {
                Some(Shift::new(k, at)?)
            };
        self.stack.append(&mut k.stack);
        self.frames.append(&mut k.frames);
        self.handlers.append(&mut k.handlers);
        match shift {
            Some(shift) => self.rebase_from(&shift, at),
            None => Ok(()),
        }
    }

    /// Copy a shared resumption onto the stacks, rebased.
    fn copy_back(&mut self, k: &Resumption) -> Result<(), RunError> {
        let at = (self.frames.len(), self.stack.len(), self.handlers.len());
        let shift = Shift::new(k, at)?;
        self.stack.extend_from_slice(&k.stack);
        self.frames.extend_from_slice(&k.frames);
        self.handlers.extend_from_slice(&k.handlers);
        self.rebase_from(&shift, at)
    }

    /// Rebase the frames and handler entries from `at` (where a
    /// resumption's were just put back) up.
    fn rebase_from(&mut self, shift: &Shift, at: (usize, usize, usize)) -> Result<(), RunError> {
        let frames = self.frames.get_mut(at.0..).ok_or_else(bad_index)?;
        let handlers = self.handlers.get_mut(at.2..).ok_or_else(bad_index)?;
        shift.rebase_in_place(frames, handlers)
    }

    /// The end of a resume: the handler resumed (the first entry put
    /// back, at `nh`) takes its next parameter, the operation's result is
    /// pushed, and memory is checked.
    fn resumed(&mut self, v: Value, param: Option<Value>, nh: usize) -> Result<(), RunError> {
        if let Some(s) = param {
            let old = match self.handlers.get_mut(nh) {
                Some(Entry::Handler { param, .. }) => std::mem::replace(param, s),
                _ => return Err(bad_index()),
            };
            self.recycled.keep(old);
        }
        self.push(v);
        self.check_memory(0)
    }

    /// `resume(v)` (or `resume(v, p)`) at the end of a clause running in
    /// place: return `v` to the performer.
    pub(super) fn resume_tail(
        &mut self,
        v: Value,
        param: Option<Value>,
    ) -> Result<Option<Value>, RunError> {
        if let Some(s) = param {
            let Some(&Entry::Skip(t)) = self.handlers.last() else {
                return Err(RunError::internal("resumed in place outside a clause"));
            };
            self.set_param(t, s)?;
        }
        self.ret(v)
    }

    /// Give the handler at `at` its next parameter. The one it had is let
    /// go through [`crate::value::Recycled`]: a state's tuple held by
    /// nothing else is kept for the next one the program makes. Out of
    /// line, so that the run loop's inline resume stays as small as it was.
    #[inline(never)]
    pub(super) fn set_param(&mut self, at: u32, s: Value) -> Result<(), RunError> {
        let old = match self.handlers.get_mut(at as usize) {
            Some(Entry::Handler { param, .. }) => std::mem::replace(param, s),
            _ => return Err(bad_index()),
        };
        self.recycled.keep(old);
        Ok(())
    }
}

/// A handler found for an operation ([`Machine::handler_for`]): its index
/// in the handler stack, the clause that handles the operation, and the
/// handler's description.
pub(super) type Found<'a> = (
    usize,
    &'a crate::code::ClauseInfo,
    &'a crate::code::HandlerInfo,
);

/// The most bytes of a `Fail.fail` message that reach the top level's
/// error; a longer message is shown by its start and its length.
pub(crate) const FAIL_SHOWN: usize = 1024;

#[cfg(test)]
mod tests;
