//! Pausing at host operations: a run that stops at each operation of a
//! host capability, is handed out with its state kept, and continues
//! with the host's answer.
//!
//! [`start`] runs a module's top level until it ends ([`Progress::Done`])
//! or performs an operation no handler in the program handles and that
//! is not `Fail` ([`Progress::Paused`]). A [`Paused`] run owns its state —
//! operand stack, frames, handler stack (continuations captured by its
//! handlers too), globals, the steps, units, output and running time it
//! has used, and its memory base — and borrows only the module. The host
//! reads the operation ([`Paused::effect`], [`Paused::op`],
//! [`Paused::args`]) and answers it with [`Paused::resume`]: a value (the
//! operation's result), [`HostError::Fail`] (`Fail.fail(message)`
//! performed where the operation was, which the program may handle), or
//! [`HostError::Stop`] (the run ends with that error). [`crate::run`] is
//! the same machine driven by a loop that answers each pause with a
//! [`crate::Host`] (see [`super::run_function`]).
//!
//! Invariants:
//! - **A paused run holds no meter.** The thread's work meter is parked at
//!   a pause (what it had charged and the time it had left kept in the
//!   [`Paused`]) and started again at resume, so paused runs can be
//!   resumed in any order, nested in other runs, or dropped.
//! - **The time limit counts running time only.** The time a run spends
//!   paused and handed out is not counted: at resume its deadline is now
//!   plus the time it had left, and its running time continues from what
//!   it was (a cancellation flag raised meanwhile is seen at resume).
//! - **Memory stays the run's.** Values the paused run holds stay alive
//!   and charged to it: at resume its memory base is set so that what it
//!   used before the pause is what it uses again, whatever other runs
//!   made or freed meanwhile. Values the host makes for its answer before
//!   resuming are the host's, not charged to the run (as long as the run
//!   keeps the answer, it is part of the run's stack, counted by slot).
//! - **Dropping a paused run** takes its stacks apart front to back, as a
//!   finished run's are, and leaves no trace on the thread's meter.

use crate::clock::Instant;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::{Exit, Machine, Usage};
use crate::code::Module;
use crate::error::RunError;
use crate::host::HostError;
use crate::limits::Limits;
use crate::meter;
use crate::value::{self, Value};

/// Where a run stands after [`start`] or [`Paused::resume`].
pub enum Progress<'a> {
    /// The run ended: with the top level's value, or an error (placed,
    /// with its stack trace, as [`crate::run`]'s are).
    Done(Result<Value, RunError>),
    /// The run stopped at an operation of a host capability.
    Paused(Paused<'a>),
}

impl std::fmt::Debug for Progress<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Progress::Done(r) => f.debug_tuple("Done").field(r).finish(),
            Progress::Paused(p) => f.debug_tuple("Paused").field(p).finish(),
        }
    }
}

/// A run stopped at an operation of a host capability, with its state
/// kept: answer it with [`Paused::resume`], or drop it to end the run.
pub struct Paused<'a> {
    /// Boxed once, at [`start`], and moved from pause to pause.
    pub(super) machine: Box<Machine<'a>>,
    pub(super) meter: meter::Parked,
    /// Bytes of live values the run had made when it paused.
    pub(super) live: usize,
}

impl std::fmt::Debug for Paused<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Paused")
            .field("effect", &self.effect())
            .field("op", &self.op())
            .field("args", &self.args().len())
            .finish()
    }
}

/// Start running `module`'s top level under `limits` (with the host's
/// cancellation flag, if it gives one), until it ends or stops at its
/// first operation of a host capability.
///
/// ```
/// use writ_runtime::{Limits, Progress, Value, start};
///
/// let text = "let t = Clock.now()\nt + 1\n";
/// let parsed = writ_lang::parse(text);
/// let typed = writ_lang::types::check(&parsed.program, &Default::default());
/// let module = writ_runtime::compile(&parsed.program, &typed).expect("compiles");
///
/// let mut progress = start(&module, &Limits::default(), None);
/// let value = loop {
///     match progress {
///         Progress::Paused(paused) => {
///             assert_eq!((paused.effect(), paused.op()), ("Clock", "now"));
///             progress = paused.resume(Ok(Value::int(41)));
///         }
///         Progress::Done(result) => break result.expect("a value"),
///     }
/// };
/// assert_eq!(value.as_int(), Some(42));
/// ```
pub fn start<'a>(
    module: &'a Module,
    limits: &Limits,
    cancel: Option<&Arc<AtomicBool>>,
) -> Progress<'a> {
    let mut m = Box::new(Machine::new(module, Vec::new(), limits, cancel));
    let step = m.start(module.main).and_then(|()| m.execute());
    settle(m, step)
}

/// What a slice of running came to: hand the machine out at a pause, or
/// take it apart at the end.
pub(super) fn settle<'a>(mut m: Box<Machine<'a>>, step: Result<Exit, RunError>) -> Progress<'a> {
    match step {
        Ok(Exit::Paused) if m.pending.is_some() => {
            let Some(scope) = m.meter.take() else {
                return Progress::Done(Err(RunError::internal(
                    "a running machine without a meter",
                )));
            };
            m.earlier = m.running_time();
            let live = value::live_bytes().saturating_sub(m.memory_base);
            Progress::Paused(Paused {
                machine: m,
                meter: scope.park(),
                live,
            })
        }
        Ok(Exit::Paused) => Progress::Done(Err(RunError::internal("a pause at no operation"))),
        Ok(Exit::Done(v)) => Progress::Done(Ok(v)),
        Err(mut e) => {
            m.locate(&mut e);
            Progress::Done(Err(e))
        }
    }
}

impl<'a> Paused<'a> {
    /// The capability of the operation the run stopped at (`Http`, `Log`,
    /// an embedder's capability, ...).
    pub fn effect(&self) -> &'a str {
        self.machine.pending_op().map_or("", |(e, _, _)| e)
    }

    /// The operation's name (`get`, `info`, ...).
    pub fn op(&self) -> &'a str {
        self.machine.pending_op().map_or("", |(_, o, _)| o)
    }

    /// The operation's arguments, in order.
    pub fn args(&self) -> &[Value] {
        self.machine.pending_op().map_or(&[], |(_, _, a)| a)
    }

    /// What the run has used of its limits so far: its fuel (steps and
    /// metered units), the most memory its checks saw, and its running
    /// time (the time it spent paused not counted).
    pub fn usage(&self) -> Usage {
        let m = &self.machine;
        let steps = m.steps.saturating_add(m.window.saturating_sub(m.countdown));
        Usage {
            fuel: steps.saturating_add(self.meter.units().0),
            memory_peak: m.peak.get().max(self.live.saturating_add(m.stacks_bytes())),
            time: m.earlier,
        }
    }

    /// Continue the run with the host's answer to the operation: `Ok(v)`
    /// is its result; `Err(HostError::Fail(message))` performs
    /// `Fail.fail(message)` where the operation was; `Err(HostError::Stop(e))`
    /// ends the run with `e`. Runs until the run ends or stops at its
    /// next operation of a host capability.
    pub fn resume(self, answer: Result<Value, HostError>) -> Progress<'a> {
        let mut machine = self.wake();
        let step = machine.answer(answer).and_then(|()| machine.execute());
        settle(machine, step)
    }

    /// The machine, running again: its meter restarted where it was
    /// parked, its clock and memory base set as the module docs say.
    pub(super) fn wake(self) -> Box<Machine<'a>> {
        let Paused {
            mut machine,
            meter,
            live,
        } = self;
        machine.meter = Some(meter.resume());
        machine.started = Instant::now();
        machine.memory_base = value::live_bytes().saturating_sub(live);
        machine
    }
}
