//! Entry points of the machine: setting up a run, starting its top level,
//! and taking it apart at the end.
//!
//! Invariants:
//! - **One meter per run.** [`Machine::new`] starts the thread's work
//!   meter ([`crate::meter::Scope`]) before the first step and the machine
//!   holds it while it runs (a run paused and handed out parks it, see
//!   [`super::pause`]), so metered work in the run is charged to this
//!   run's limits and nothing else's.
//! - **One path.** [`run`] and [`run_function`] are a loop over the
//!   machine's pauses at host operations, the host answering each.
//! - **Errors are placed.** An error leaving the run gets the span of the
//!   innermost program code and a bounded stack trace ([`TRACE_ENTRIES`]
//!   entries at most) before the stacks are taken apart.
//! - **Teardown does not recurse.** The stacks and globals are dropped
//!   front to back, one value at a time.

use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::clock::Instant;

use super::Machine;
use crate::code::{Literal, Module};
use crate::error::{RunError, TraceEntry};
use crate::host::Host;
use crate::limits::Limits;
use crate::meter;
use crate::value::{self, Repr, Value};

use super::{Exit, Frame, Kind};

/// Run a module's top level to its value, handing each operation of a
/// host capability to `host`.
pub fn run(
    module: &Module,
    limits: &Limits,
    host: &mut dyn Host,
    cancel: Option<&Arc<AtomicBool>>,
) -> Result<Value, RunError> {
    run_measured(module, limits, host, cancel).0
}

/// What a run used of its limits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Fuel spent: the machine's steps plus the units of metered library
    /// work (the quantity [`Limits::fuel`] bounds).
    pub fuel: u64,
    /// The most bytes of memory the run was seen to use (sampled at each
    /// of the machine's memory checks: at least every 4,096 steps, and
    /// before allocations in
    /// proportion to their operands; the quantity [`Limits::memory`]
    /// bounds).
    pub memory_peak: usize,
    /// The time from its first step to its end.
    pub time: Duration,
}

/// Run a module's top level to its value, and say what it used (also
/// when it failed: what it used up to the error).
pub fn run_measured(
    module: &Module,
    limits: &Limits,
    host: &mut dyn Host,
    cancel: Option<&Arc<AtomicBool>>,
) -> (Result<Value, RunError>, Usage) {
    let mut globals = Vec::new();
    let (result, usage) = run_top(module, module.main, &mut globals, limits, host, cancel);
    while globals.pop().is_some() {}
    (result, usage)
}

/// Run the function `main` of `module` (one input of a session) as a top
/// level, with `globals` as the program's global slots: they are grown to
/// the module's count first, and keep what the run stored in them.
///
/// This is the loop over the machine's pauses ([`super::pause`]) with
/// `host` answering each: the run stops at an operation of a host
/// capability exactly as [`super::start`]'s does and is answered through
/// the same [`Machine::answer`]. Only the meter differs: the run is not
/// handed out between, so its meter (and clock) keep running while the
/// host performs the operation, which sees the run's
/// [`meter::deadline`].
pub fn run_function(
    module: &Module,
    main: u32,
    globals: &mut Vec<Value>,
    limits: &Limits,
    host: &mut dyn Host,
    cancel: Option<&Arc<AtomicBool>>,
) -> Result<Value, RunError> {
    run_top(module, main, globals, limits, host, cancel).0
}

/// [`run_function`], with what the run used.
pub(crate) fn run_top(
    module: &Module,
    main: u32,
    globals: &mut Vec<Value>,
    limits: &Limits,
    host: &mut dyn Host,
    cancel: Option<&Arc<AtomicBool>>,
) -> (Result<Value, RunError>, Usage) {
    let mut m = Machine::new(module, std::mem::take(globals), limits, cancel);
    let mut step = m.start(main).and_then(|()| m.execute());
    let result = loop {
        match step {
            Ok(Exit::Done(v)) => break Ok(v),
            Err(e) => break Err(e),
            Ok(Exit::Paused) => {
                let answer = match m.pending_op() {
                    Some((effect, op, args)) => host.perform(effect, op, args),
                    None => break Err(RunError::internal("a pause at no operation")),
                };
                step = m.answer(answer).and_then(|()| m.execute());
            }
        }
    };
    let result = result.map_err(|mut e| {
        m.locate(&mut e);
        e
    });
    let usage = m.usage();
    m.unwind();
    *globals = std::mem::take(&mut m.globals);
    (result, usage)
}

impl<'a> Machine<'a> {
    /// A machine for one run of `module` with `globals` (grown to the
    /// module's count), its meter started: nothing has run yet.
    pub(super) fn new(
        module: &'a Module,
        mut globals: Vec<Value>,
        limits: &Limits,
        cancel: Option<&Arc<AtomicBool>>,
    ) -> Machine<'a> {
        let memory_base = value::live_bytes();
        let started = Instant::now();
        let meter = meter::Scope::start(
            limits.fuel,
            started.checked_add(limits.time).map(|d| (limits.time, d)),
            cancel.cloned(),
        );
        globals.resize(module.globals as usize, Value(Repr::Unit));
        let mut m = Machine {
            module,
            limits: limits.clone(),
            literals: Vec::new(),
            shapes: module
                .shapes
                .iter()
                .map(|s| Rc::from(s.as_slice()))
                .collect(),
            globals,
            stack: Vec::new(),
            frames: Vec::new(),
            handlers: Vec::new(),
            spare: Default::default(),
            recycled: Default::default(),
            steps: 0,
            window: 0,
            countdown: 0,
            started,
            earlier: Duration::ZERO,
            memory_base,
            stack_wanted: 0,
            peak: std::cell::Cell::new(0),
            output: 0,
            pending: None,
            meter: Some(meter),
        };
        m.literals = literal_values(module);
        m.open_window();
        m
    }

    pub(super) fn start(&mut self, main: u32) -> Result<(), RunError> {
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
        self.stack.resize(locals as usize, Value(Repr::Unit));
        Ok(())
    }

    /// Drop the machine's stacks front to back, so that dropping them does
    /// not recurse through long chains.
    pub(super) fn unwind(&mut self) {
        while self.frames.pop().is_some() {}
        while self.handlers.pop().is_some() {}
        while self.stack.pop().is_some() {}
    }

    /// Place an error: its span (the innermost program code) and trace
    /// (consecutive frames of the same call merged, at most
    /// [`TRACE_ENTRIES`] entries).
    pub(super) fn locate(&self, e: &mut RunError) {
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
                // Merged only while nothing was left out since: past the
                // bound, a frame like the last kept one is not consecutive
                // with it (`f`, `g`, `f`, ... of a mutual recursion).
                Some(last) if omitted == 0 && last.function == func.name && last.span == span => {
                    last.times += 1
                }
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
}

/// The values of a module's literals, made (and charged) for one run.
pub(super) fn literal_values(module: &Module) -> Vec<Value> {
    module
        .literals
        .iter()
        .map(|l| match l {
            Literal::Float(x) => Value::float(*x),
            Literal::Str(s) => Value::str(s.as_str()),
        })
        .collect()
}

/// The most entries a stack trace shows.
const TRACE_ENTRIES: usize = 12;
