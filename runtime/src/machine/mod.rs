//! The abstract machine: runs a [`Module`] with an explicit, heap-allocated
//! stack.
//!
//! # State
//!
//! - the **operand stack**: every frame's locals (at its base) and
//!   temporaries, one vector for the whole run;
//! - the **frames**: function, program counter, base, captured values, and
//!   a [`Kind`] saying what returning from it means;
//! - the **handler stack**: one [`Entry`] per installed handler (its
//!   clauses, its parameter, where its body's frame and stack start), and
//!   `Skip` entries that hide handlers while one of their clauses runs in
//!   place.
//!
//! # Invariants
//!
//! - **No Rust recursion grows with the program.** Calls push frames;
//!   returning pops them; a Writ program recursing a million deep grows the
//!   frame vector (bounded by the depth limit and counted in memory), never
//!   the host stack.
//! - **Tail calls reuse the frame**, so a loop written as tail recursion
//!   runs in constant space, across functions too.
//! - **Every step costs fuel**; time, cancellation and memory are checked
//!   every [`CHECK_EVERY`] steps and after each capture or resumption.
//! - **Nothing panics.** Every index the code holds is checked; a bad one
//!   (a bug in lowering) stops the run with `E4004`.
//!
//! Handlers (perform, capture, resume) are in [`handlers`]; arithmetic and
//! data operations in [`ops`].

mod handlers;
mod ops;

use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::code::{Arith, CaptureFrom, Literal, Module, Op, Operand};
use crate::error::{RunError, TraceEntry};
use crate::host::Host;
use crate::limits::{CHECK_EVERY, Limit, Limits};
use crate::meter::{self, Meter};
use crate::value::{self, ClosureObj, Value};

pub use handlers::Resumption;

/// What returning from a frame means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// An ordinary call: the value goes to the caller.
    Normal,
    /// A handler's body: uninstall the handler, then apply its `return`
    /// clause.
    Body,
    /// A tail-resumptive clause running in place: remove its `Skip` entry.
    Clause,
    /// The top level: the run's result.
    Top,
}

/// One activation.
#[derive(Clone, Debug)]
pub(crate) struct Frame {
    func: u32,
    pc: u32,
    base: u32,
    kind: Kind,
    closure: Option<Rc<ClosureObj>>,
}

/// One entry of the handler stack.
#[derive(Clone, Debug)]
pub(crate) enum Entry {
    /// An installed handler.
    Handler {
        /// Its [`crate::code::HandlerInfo`].
        info: u32,
        /// Its clause closures.
        closures: Rc<Vec<Value>>,
        /// Its parameter (`()` if it has none).
        state: Value,
        /// The index of its body's frame.
        frame: u32,
        /// Where its body's part of the operand stack starts.
        stack: u32,
    },
    /// While a clause of the handler at this index runs in place, an
    /// operation skips it and every handler above it.
    Skip(u32),
}

/// A running program.
pub struct Machine<'a> {
    module: &'a Module,
    host: &'a mut dyn Host,
    limits: Limits,
    cancel: Option<&'a AtomicBool>,
    literals: Vec<Value>,
    shapes: Vec<Rc<[u32]>>,
    globals: Vec<Value>,
    stack: Vec<Value>,
    frames: Vec<Frame>,
    handlers: Vec<Entry>,
    /// Steps taken before the current window.
    steps: u64,
    /// Steps of the current window.
    window: u64,
    /// Steps left in the current window.
    countdown: u64,
    started: Instant,
    memory_base: usize,
    output: usize,
    /// The work meter of this run (restored when the machine is dropped).
    _meter: meter::Scope,
}

/// Run a module's top level to its value.
pub fn run(
    module: &Module,
    limits: &Limits,
    host: &mut dyn Host,
    cancel: Option<&AtomicBool>,
) -> Result<Value, RunError> {
    let mut globals = Vec::new();
    let result = run_function(module, module.main, &mut globals, limits, host, cancel);
    while globals.pop().is_some() {}
    result
}

/// Run the function `main` of `module` (one input of a session) as a top
/// level, with `globals` as the program's global slots: they are grown to
/// the module's count first, and keep what the run stored in them.
pub fn run_function(
    module: &Module,
    main: u32,
    globals: &mut Vec<Value>,
    limits: &Limits,
    host: &mut dyn Host,
    cancel: Option<&AtomicBool>,
) -> Result<Value, RunError> {
    let memory_base = value::live_bytes();
    let started = Instant::now();
    let meter = meter::Scope::start(limits.fuel, started.checked_add(limits.time));
    let mut kept = std::mem::take(globals);
    kept.resize(module.globals as usize, Value::Unit);
    let mut m = Machine {
        module,
        host,
        limits: limits.clone(),
        cancel,
        literals: Vec::new(),
        shapes: module
            .shapes
            .iter()
            .map(|s| Rc::from(s.as_slice()))
            .collect(),
        globals: kept,
        stack: Vec::new(),
        frames: Vec::new(),
        handlers: Vec::new(),
        steps: 0,
        window: 0,
        countdown: 0,
        started,
        memory_base,
        output: 0,
        _meter: meter,
    };
    m.literals = module
        .literals
        .iter()
        .map(|l| match l {
            Literal::Int(n) => Value::Int(*n),
            Literal::Float(x) => Value::Float(*x),
            Literal::Str(s) => Value::str(s.as_str()),
        })
        .collect();
    m.open_window();
    let result = m.start(main).and_then(|()| m.execute());
    let result = result.map_err(|mut e| {
        m.locate(&mut e);
        e
    });
    m.unwind();
    *globals = std::mem::take(&mut m.globals);
    result
}

impl<'a> Machine<'a> {
    fn start(&mut self, main: u32) -> Result<(), RunError> {
        let locals = self
            .module
            .functions
            .get(main as usize)
            .ok_or_else(|| RunError::internal("no top level"))?
            .locals;
        self.frames.push(Frame {
            func: main,
            pc: 0,
            base: 0,
            kind: Kind::Top,
            closure: None,
        });
        self.stack.resize(locals as usize, Value::Unit);
        Ok(())
    }

    /// Drop the machine's stacks front to back, so that dropping them does
    /// not recurse through long chains.
    fn unwind(&mut self) {
        while self.frames.pop().is_some() {}
        while self.handlers.pop().is_some() {}
        while self.stack.pop().is_some() {}
    }

    /// The code, program counter and base of the running frame.
    #[inline(always)]
    fn load(&self) -> Result<(&'a [Op], usize, usize), RunError> {
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

    fn open_window(&mut self) {
        let left = self
            .limits
            .fuel
            .saturating_sub(self.steps)
            .saturating_sub(meter::used());
        self.window = CHECK_EVERY.min(left).max(1);
        self.countdown = self.window;
        meter::set_budget(self.limits.fuel.saturating_sub(self.steps));
    }

    /// The periodic check: fuel (steps and metered work together), time,
    /// cancellation, memory.
    fn check(&mut self) -> Result<(), RunError> {
        self.steps += self.window;
        let limit = if let Some(l) = meter::tripped() {
            Some(l)
        } else if self.steps.saturating_add(meter::used()) >= self.limits.fuel {
            Some(Limit::Fuel)
        } else if self.started.elapsed() > self.limits.time {
            Some(Limit::Time)
        } else if self.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            Some(Limit::Cancelled)
        } else {
            None
        };
        if let Some(l) = limit {
            return Err(self.exhausted(l));
        }
        self.check_memory(0)?;
        self.open_window();
        Ok(())
    }

    /// The error of an exhausted fuel, time or cancellation limit.
    pub(crate) fn exhausted(&self, limit: Limit) -> RunError {
        let message = match limit {
            Limit::Fuel => format!(
                "expected the program to finish within {} steps, but it took more",
                self.limits.fuel
            ),
            Limit::Time => format!(
                "expected the program to finish within {} ms, but it ran longer",
                self.limits.time.as_millis()
            ),
            Limit::Cancelled => "the host cancelled the run".to_string(),
            Limit::Memory | Limit::Depth | Limit::Output => {
                return RunError::internal("the work meter tripped on a limit it does not meter");
            }
        };
        limit_error(limit, message)
    }

    /// A handle on this run's work meter (polling its cancellation flag).
    pub(crate) fn meter(&self) -> Meter<'a> {
        Meter::new(self.cancel)
    }

    /// `Err` with the exhausted limit if metered work tripped the meter:
    /// called after every metered operation, so that the limit, not the
    /// operation's cut-short result, is what the program sees.
    pub(crate) fn metered(&self) -> Result<(), RunError> {
        match meter::tripped() {
            Some(l) => Err(self.exhausted(l)),
            None => Ok(()),
        }
    }

    /// Bytes in use: live values made during this run, plus the stacks.
    fn memory_used(&self) -> usize {
        value::live_bytes().saturating_sub(self.memory_base)
            + self.stack.len() * value::SLOT
            + self.frames.len() * std::mem::size_of::<Frame>()
            + self.handlers.len() * std::mem::size_of::<Entry>()
    }

    /// Fail if `more` bytes on top of what is in use would pass the limit.
    pub(crate) fn check_memory(&self, more: usize) -> Result<(), RunError> {
        let used = self.memory_used().saturating_add(more);
        if used > self.limits.memory {
            return Err(limit_error(
                Limit::Memory,
                format!(
                    "expected the program to use at most {}, but it needed more",
                    bytes_text(self.limits.memory)
                ),
            ));
        }
        Ok(())
    }

    /// Place an error: its span (the innermost program code) and trace
    /// (consecutive frames of the same call merged, at most
    /// [`TRACE_ENTRIES`] entries).
    fn locate(&self, e: &mut RunError) {
        let mut trace: Vec<TraceEntry> = Vec::new();
        let mut program_span = None;
        let mut omitted = 0usize;
        for f in self.frames.iter().rev() {
            let Some(func) = self.module.functions.get(f.func as usize) else {
                continue;
            };
            let span = if func.library {
                None
            } else {
                func.spans.get((f.pc as usize).saturating_sub(1)).copied()
            };
            if program_span.is_none() {
                program_span = span;
            }
            let full = trace.len() >= TRACE_ENTRIES;
            match trace.last_mut() {
                Some(last) if last.function == func.name && last.span == span => last.times += 1,
                _ if full => omitted += 1,
                _ => trace.push(TraceEntry {
                    function: func.name.clone(),
                    span,
                    times: 1,
                }),
            }
        }
        if omitted > 0 {
            trace.push(TraceEntry {
                function: format!("... {omitted} more calls"),
                span: None,
                times: 1,
            });
        }
        if e.span.is_none() {
            e.span = program_span;
        }
        e.trace = trace;
    }

    /// Run until the top level returns.
    fn execute(&mut self) -> Result<Value, RunError> {
        let functions: &'a [crate::code::Function] = &self.module.functions;
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
        macro_rules! reload {
            () => {
                let (c, p, b) = self.load()?;
                code = c;
                pc = p;
                base = b;
            };
        }
        loop {
            let Some(&op) = code.get(pc) else {
                sync!();
                return Err(RunError::internal("ran past the end of a function"));
            };
            pc += 1;
            self.countdown -= 1;
            if self.countdown == 0 {
                sync!();
                tri!(self.check());
            }
            match op {
                Op::Unit => self.stack.push(Value::Unit),
                Op::Bool(b) => self.stack.push(Value::Bool(b)),
                Op::Int(n) => self.stack.push(Value::Int(n)),
                Op::Literal(i) => {
                    let v = tri!(self.literals.get(i as usize).cloned().ok_or_else(bad_index));
                    self.stack.push(v);
                }
                Op::Local(i) => {
                    let v = tri!(
                        self.stack
                            .get(base + i as usize)
                            .cloned()
                            .ok_or_else(bad_index)
                    );
                    self.stack.push(v);
                }
                Op::MoveLocal(i) => {
                    let v = tri!(
                        self.stack
                            .get_mut(base + i as usize)
                            .map(|slot| std::mem::replace(slot, Value::Unit))
                            .ok_or_else(bad_index)
                    );
                    self.stack.push(v);
                }
                Op::SetLocal(i) => {
                    let v = pop!();
                    match self.stack.get_mut(base + i as usize) {
                        Some(slot) => *slot = v,
                        None => {
                            sync!();
                            return Err(bad_index());
                        }
                    }
                }
                Op::Capture(i) => {
                    let v = self
                        .frames
                        .last()
                        .and_then(|f| f.closure.as_ref())
                        .and_then(|c| c.captures.get(i as usize))
                        .cloned();
                    let v = tri!(v.ok_or_else(bad_index));
                    self.stack.push(v);
                }
                Op::SelfFn => {
                    let v = tri!(self.current_fn());
                    self.stack.push(v);
                }
                Op::Global(g) => {
                    let v = tri!(self.globals.get(g as usize).cloned().ok_or_else(bad_index));
                    self.stack.push(v);
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
                Op::Func(f) => self.stack.push(Value::Func(f)),
                Op::Native(n) => self.stack.push(Value::Native(n)),
                Op::Closure(f) => {
                    let v = tri!(self.make_closure(f, base));
                    self.stack.push(v);
                }
                Op::Pop => {
                    pop!();
                }
                Op::Arith(a) => {
                    let y = pop!();
                    let x = pop!();
                    // The common case inline: Int with Int.
                    let fast = match (&x, &y) {
                        (Value::Int(p), Value::Int(q)) => int_fast(a, *p, *q),
                        _ => None,
                    };
                    let v = match fast {
                        Some(v) => v,
                        None => tri!(self.arith(a, x, y)),
                    };
                    self.stack.push(v);
                }
                Op::LocalIntArith(slot, k, a) => {
                    let x = self.stack.get(base + slot as usize);
                    let k = i64::from(k);
                    let fast = match x {
                        Some(Value::Int(p)) => int_fast(a, *p, k),
                        _ => None,
                    };
                    let v = match fast {
                        Some(v) => v,
                        None => {
                            let x = tri!(x.cloned().ok_or_else(bad_index));
                            tri!(self.arith(a, x, Value::Int(k)))
                        }
                    };
                    self.stack.push(v);
                }
                Op::LocalLocalArith(p, q, a) => {
                    let x = self.stack.get(base + p as usize);
                    let y = self.stack.get(base + q as usize);
                    let fast = match (x, y) {
                        (Some(Value::Int(p)), Some(Value::Int(q))) => int_fast(a, *p, *q),
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
                    self.stack.push(v);
                }
                Op::BranchLocalInt(slot, cmp, k, t) => {
                    let holds = match self.stack.get(base + slot as usize) {
                        Some(Value::Int(x)) => int_cmp(cmp, *x, i64::from(k)),
                        other => {
                            let x = tri!(other.cloned().ok_or_else(bad_index));
                            match tri!(self.arith(cmp, x, Value::Int(i64::from(k)))) {
                                Value::Bool(b) => b,
                                _ => false,
                            }
                        }
                    };
                    if !holds {
                        pc = t as usize;
                    }
                }
                Op::BranchLocalLocal(p, q, cmp, t) => {
                    let x = self.stack.get(base + p as usize);
                    let y = self.stack.get(base + q as usize);
                    let holds = match (x, y) {
                        (Some(Value::Int(x)), Some(Value::Int(y))) => int_cmp(cmp, *x, *y),
                        _ => {
                            let x = tri!(x.cloned().ok_or_else(bad_index));
                            let y = tri!(y.cloned().ok_or_else(bad_index));
                            match tri!(self.arith(cmp, x, y)) {
                                Value::Bool(b) => b,
                                _ => false,
                            }
                        }
                    };
                    if !holds {
                        pc = t as usize;
                    }
                }
                Op::Neg => {
                    let v = match pop!() {
                        Value::Int(n) => tri!(
                            n.checked_neg()
                                .map(Value::Int)
                                .ok_or_else(|| RunError::overflow(&format!("-({n})")))
                        ),
                        Value::Float(x) => Value::Float(-x),
                        _ => tri!(Err(RunError::internal(
                            "negated a value that is not a number"
                        ))),
                    };
                    self.stack.push(v);
                }
                Op::Not => {
                    let v = match pop!() {
                        Value::Bool(b) => Value::Bool(!b),
                        _ => tri!(Err(RunError::internal("`!` of a value that is not a Bool"))),
                    };
                    self.stack.push(v);
                }
                Op::Jump(t) => pc = t as usize,
                Op::JumpIfFalse(t) => match pop!() {
                    Value::Bool(b) => {
                        if !b {
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
                    let callee = self.stack.remove(at);
                    tri!(self.call(callee, n as usize, matches!(op, Op::TailCall(_))));
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
                            self.frames.push(Frame {
                                func: f,
                                pc: 0,
                                base: base as u32,
                                kind: Kind::Normal,
                                closure: None,
                            });
                            for _ in func.arity..func.locals {
                                self.stack.push(Value::Unit);
                            }
                            code = &func.ops;
                            pc = 0;
                        }
                        _ => {
                            tri!(self.enter(f, None, n, false));
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
                        Some(func) if func.arity as usize == n && start >= base => {
                            for i in 0..n {
                                self.stack.swap(base + i, start + i);
                            }
                            self.stack.truncate(base + n);
                            for _ in func.arity..func.locals {
                                self.stack.push(Value::Unit);
                            }
                            if let Some(top) = self.frames.last_mut() {
                                top.func = f;
                                top.pc = 0;
                                top.closure = None;
                            }
                            code = &func.ops;
                            pc = 0;
                        }
                        _ => {
                            sync!();
                            tri!(self.enter(f, None, n, true));
                            reload!();
                        }
                    }
                }
                Op::Return => {
                    let v = pop!();
                    // The common case inline: an ordinary call returns to a
                    // caller.
                    if self.frames.len() > 1
                        && let Some(top) = self.frames.last()
                        && top.kind == Kind::Normal
                    {
                        let done = self.frames.pop();
                        if let Some(done) = done {
                            self.stack.truncate(done.base as usize);
                        }
                        self.stack.push(v);
                        reload!();
                        continue;
                    }
                    sync!();
                    if let Some(done) = tri!(self.ret(v)) {
                        return Ok(done);
                    }
                    reload!();
                }
                Op::ResumeTail | Op::ResumeTailWith => {
                    // The common case inline: return to the performer,
                    // updating the handler's parameter.
                    let state = if op == Op::ResumeTailWith {
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
                        if let Some(s) = state {
                            match self.handlers.get_mut(t as usize) {
                                Some(Entry::Handler { state, .. }) => *state = s,
                                _ => {
                                    sync!();
                                    return Err(bad_index());
                                }
                            }
                        }
                        self.handlers.pop();
                        if let Some(done) = self.frames.pop() {
                            self.stack.truncate(done.base as usize);
                        }
                        self.stack.push(v);
                        reload!();
                        continue;
                    }
                    sync!();
                    if let Some(done) = tri!(self.resume_tail(v, state)) {
                        return Ok(done);
                    }
                    reload!();
                }
                Op::Perform(e, o, n) => {
                    sync!();
                    // The commonest case: a clause that only resumes with
                    // its arguments or parameter needs no frame at all.
                    if let Some(v) = self.simple_clause(e, o, n as usize) {
                        self.stack.push(v);
                        continue;
                    }
                    // The common case inline: a tail-resumptive clause that
                    // captures nothing runs in place, in a new frame.
                    if let Some((i, f, state)) = self.tail_clause(e, o)
                        && let Some(func) = functions.get(f as usize)
                        && func.arity as usize == n as usize + usize::from(state.is_some())
                        && self.frames.len() < self.limits.depth
                    {
                        self.handlers.push(Entry::Skip(i as u32));
                        if let Some(s) = state {
                            self.stack.push(s);
                        }
                        base = self.stack.len() - func.arity as usize;
                        self.frames.push(Frame {
                            func: f,
                            pc: 0,
                            base: base as u32,
                            kind: Kind::Clause,
                            closure: None,
                        });
                        for _ in func.arity..func.locals {
                            self.stack.push(Value::Unit);
                        }
                        code = &func.ops;
                        pc = 0;
                        continue;
                    }
                    tri!(self.perform(e, o, n as usize));
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

    /// Run the nearest clause of `effect.op` if it is simple (see
    /// [`crate::code::SimpleClause`]): pop the `argc` arguments, update the
    /// handler's parameter, and return the operation's result.
    #[inline(always)]
    fn simple_clause(&mut self, effect: u32, op: u32, argc: usize) -> Option<Value> {
        let module: &'a Module = self.module;
        let mut i = self.handlers.len();
        let (at, simple) = loop {
            i = i.checked_sub(1)?;
            match self.handlers.get(i)? {
                Entry::Skip(t) => i = *t as usize,
                Entry::Handler { info, .. } => {
                    let info = module.handlers.get(*info as usize)?;
                    if let Some(c) = info
                        .clauses
                        .iter()
                        .find(|c| c.effect == effect && c.op == op)
                    {
                        break (i, c.simple?);
                    }
                }
            }
        };
        let start = self.stack.len().checked_sub(argc)?;
        let in_range =
            |o: Option<Operand>| !matches!(o, Some(Operand::Arg(k)) if k as usize >= argc);
        if !in_range(Some(simple.result)) || !in_range(simple.next) {
            return None;
        }
        let Some(Entry::Handler { state, .. }) = self.handlers.get_mut(at) else {
            return None;
        };
        let args = self.stack.get(start..).unwrap_or(&[]);
        let result = operand(simple.result, args, state);
        if let Some(next) = simple.next {
            *state = operand(next, args, state);
        }
        self.stack.truncate(start);
        Some(result)
    }

    /// The nearest handler of `effect.op`, if its clause is tail-resumptive
    /// and a function that captures nothing: the handler's index, the
    /// clause's function, and the handler's parameter (if it has one).
    #[inline(always)]
    fn tail_clause(&self, effect: u32, op: u32) -> Option<(usize, u32, Option<Value>)> {
        let mut i = self.handlers.len();
        loop {
            i = i.checked_sub(1)?;
            match self.handlers.get(i)? {
                Entry::Skip(t) => i = *t as usize,
                Entry::Handler {
                    info,
                    closures,
                    state,
                    ..
                } => {
                    let info = self.module.handlers.get(*info as usize)?;
                    let Some(c) = info
                        .clauses
                        .iter()
                        .find(|c| c.effect == effect && c.op == op)
                    else {
                        continue;
                    };
                    if !c.tail_resumptive {
                        return None;
                    }
                    let Some(Value::Func(f)) = closures.get(c.clause as usize) else {
                        return None;
                    };
                    return Some((i, *f, info.has_state.then(|| state.clone())));
                }
            }
        }
    }

    /// The running function as a value (for a local function naming
    /// itself).
    fn current_fn(&self) -> Result<Value, RunError> {
        let f = self.frames.last().ok_or_else(bad_index)?;
        Ok(match &f.closure {
            Some(c) => Value::Closure(c.clone()),
            None => Value::Func(f.func),
        })
    }

    fn make_closure(&mut self, f: u32, base: usize) -> Result<Value, RunError> {
        let func = self
            .module
            .functions
            .get(f as usize)
            .ok_or_else(bad_index)?;
        let mut captures = Vec::with_capacity(func.captures.len());
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
        Ok(Value::Closure(ClosureObj::new(f, captures)))
    }

    /// Call a function value with the `argc` arguments on top of the stack.
    fn call(&mut self, callee: Value, argc: usize, tail: bool) -> Result<(), RunError> {
        match callee {
            Value::Func(f) => self.enter(f, None, argc, tail),
            Value::Closure(c) => {
                let f = c.func;
                self.enter(f, Some(c), argc, tail)
            }
            Value::Native(n) => {
                let start = self.stack.len().checked_sub(argc).ok_or_else(bad_index)?;
                let v = crate::natives::call(self, n, start)?;
                self.metered()?;
                self.stack.truncate(start);
                self.stack.push(v);
                Ok(())
            }
            Value::Resume(k) => self.resume(k, argc),
            _ => Err(RunError::internal("called a value that is not a function")),
        }
    }

    /// Push a frame for function `f` (or reuse the running one for a tail
    /// call).
    fn enter(
        &mut self,
        f: u32,
        closure: Option<Rc<ClosureObj>>,
        argc: usize,
        tail: bool,
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
        let base = if tail {
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
                return Err(limit_error(
                    Limit::Depth,
                    format!(
                        "expected calls nested at most {} deep, but `{}` went deeper",
                        self.limits.depth, func.name
                    ),
                )
                .with_help("a loop written as a tail call (the call is the last thing the function does) runs in constant depth; or raise the limit with `--limit depth=...`"));
            }
            self.frames.push(Frame {
                func: f,
                pc: 0,
                base: start as u32,
                kind: Kind::Normal,
                closure,
            });
            start
        };
        self.stack.resize(base + func.locals as usize, Value::Unit);
        Ok(())
    }

    /// Return `v` from the running frame; `Some` when the run is over.
    fn ret(&mut self, v: Value) -> Result<Option<Value>, RunError> {
        let frame = self.frames.pop().ok_or_else(bad_index)?;
        self.stack.truncate(frame.base as usize);
        match frame.kind {
            Kind::Top => return Ok(Some(v)),
            Kind::Normal => self.stack.push(v),
            Kind::Clause => {
                if !matches!(self.handlers.pop(), Some(Entry::Skip(_))) {
                    return Err(RunError::internal("a clause returned past its handler"));
                }
                self.stack.push(v);
            }
            Kind::Body => self.body_returned(v)?,
        }
        Ok(None)
    }

    /// Count `bytes` of output against the output limit.
    pub(crate) fn count_output(&mut self, bytes: usize) -> Result<(), RunError> {
        self.output = self.output.saturating_add(bytes);
        if self.output > self.limits.output {
            return Err(limit_error(
                Limit::Output,
                format!(
                    "expected at most {} of output, but the program tried to write more (the line that would pass the limit was not written)",
                    bytes_text(self.limits.output)
                ),
            ));
        }
        Ok(())
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

fn bad_index() -> RunError {
    RunError::internal("an index out of range in the compiled code")
}

/// An exhausted limit.
pub(crate) fn limit_error(limit: Limit, message: String) -> RunError {
    let mut e = RunError::new(limit.code(), message);
    e.limit = Some(limit);
    e.help = Some(match limit {
        Limit::Cancelled => "the run was stopped from outside the program".to_string(),
        l => format!(
            "raise it with `--limit {}=...` if the program needs more",
            l.name()
        ),
    });
    e
}

/// The value of a simple clause's operand (its index was checked).
#[inline(always)]
fn operand(o: Operand, args: &[Value], state: &Value) -> Value {
    match o {
        Operand::Arg(k) => match args.get(k as usize) {
            Some(v) => v.clone(),
            None => Value::Unit,
        },
        Operand::State => state.clone(),
        Operand::Unit => Value::Unit,
        Operand::Int(n) => Value::Int(n),
        Operand::Bool(b) => Value::Bool(b),
    }
}

/// The step loop's fast path for `Int op Int`: comparisons, `+` and `-`
/// that fit. `None` sends everything else (overflow included, so that it
/// is reported) to [`Machine::arith`].
#[inline(always)]
fn int_fast(op: Arith, x: i64, y: i64) -> Option<Value> {
    match op {
        Arith::Lt | Arith::Le | Arith::Gt | Arith::Ge | Arith::Eq | Arith::Ne => {
            Some(Value::Bool(int_cmp(op, x, y)))
        }
        Arith::Add => x.checked_add(y).map(Value::Int),
        Arith::Sub => x.checked_sub(y).map(Value::Int),
        _ => None,
    }
}

/// An integer comparison.
#[inline(always)]
fn int_cmp(cmp: Arith, x: i64, y: i64) -> bool {
    match cmp {
        Arith::Lt => x < y,
        Arith::Le => x <= y,
        Arith::Gt => x > y,
        Arith::Ge => x >= y,
        Arith::Eq => x == y,
        _ => x != y,
    }
}

/// A byte count for people: `512 MiB`, `4 KiB`, `100 bytes`.
fn bytes_text(n: usize) -> String {
    const KIB: usize = 1024;
    const MIB: usize = 1024 * 1024;
    const GIB: usize = 1024 * 1024 * 1024;
    match n {
        n if n >= GIB && n % GIB == 0 => format!("{} GiB", n / GIB),
        n if n >= MIB && n % MIB == 0 => format!("{} MiB", n / MIB),
        n if n >= KIB && n % KIB == 0 => format!("{} KiB", n / KIB),
        n => format!("{n} bytes"),
    }
}

/// The most entries a stack trace shows.
const TRACE_ENTRIES: usize = 12;
