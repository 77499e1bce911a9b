//! Driving a run: a host that answers most operations of host
//! capabilities in place, while the run's clock runs, and hands the run
//! out at the ones it chooses.
//!
//! [`start`](super::start) hands a run out at every operation of a host
//! capability; [`run`](super::run) answers every one in place. A
//! [`Driver`] decides per operation: [`Handling::Answer`] answers it at
//! once (the run's meter running, so the answer's work and waiting are
//! the run's, bounded by its [`crate::meter::deadline`]), and
//! [`Handling::HandOut`] stops the run there as [`start`](super::start)'s
//! pauses do, returning the [`Paused`] run ([`Driven::Paused`]). A run
//! handed out is continued with [`Paused::resume_driven`] (the host's
//! answer) or [`Paused::hand_back`] (the driver answers the operation
//! after all, in place). A finished run says what it used
//! ([`Driven::Done`]).
//!
//! Invariants: one machine and one answering path ([`Machine::answer`])
//! for every way a run is driven; the operation handed out is the one the
//! driver was asked about, its arguments unchanged.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::pause::settle;
use super::{Exit, Machine, Paused, Progress, Usage};
use crate::code::Module;
use crate::error::RunError;
use crate::host::HostError;
use crate::limits::Limits;
use crate::value::Value;

/// What a [`Driver`] does with an operation of a host capability.
#[derive(Debug)]
pub enum Handling {
    /// Answer it now: its result, `Fail` at the operation, or the end of
    /// the run (as [`crate::Host::perform`]'s answer).
    Answer(Result<Value, HostError>),
    /// Stop the run at the operation and hand it out ([`Driven::Paused`]).
    HandOut,
}

/// Decides, operation by operation, whether a run is answered in place
/// or handed out.
pub trait Driver {
    /// The operation `effect.op(args)` was performed and no handler in
    /// the program handles it.
    fn handle(&mut self, effect: &str, op: &str, args: &[Value]) -> Handling;
}

/// Where a driven run stands.
pub enum Driven<'a> {
    /// The run ended, with the top level's value or the error that
    /// stopped it (placed, with its stack trace), and what it used of its
    /// limits (its running time only: not the time it spent handed out).
    Done(Result<Value, RunError>, Usage),
    /// The driver handed the run out at an operation.
    Paused(Paused<'a>),
}

impl std::fmt::Debug for Driven<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Driven::Done(r, u) => f.debug_tuple("Done").field(r).field(u).finish(),
            Driven::Paused(p) => f.debug_tuple("Paused").field(p).finish(),
        }
    }
}

/// Run `module`'s top level with `globals` as its global slots (the
/// inputs' values [`crate::inputs::from_json`] gives, or none), `driver`
/// handling each operation of a host capability.
///
/// ```
/// use writ_runtime::{Driven, Driver, Handling, HostError, Limits, Value, drive};
///
/// /// Answers `Clock.now` in place, hands out everything else.
/// struct Clocked;
/// impl Driver for Clocked {
///     fn handle(&mut self, effect: &str, _op: &str, _args: &[Value]) -> Handling {
///         match effect {
///             "Clock" => Handling::Answer(Ok(Value::int(40))),
///             _ => Handling::HandOut,
///         }
///     }
/// }
///
/// let text = "let t = Clock.now()\nLog.info(\"at ${t}\")\nt + 2\n";
/// let parsed = writ_lang::parse(text);
/// let typed = writ_lang::types::check(&parsed.program, &Default::default());
/// let module = writ_runtime::compile(&parsed.program, &typed).expect("compiles");
///
/// let Driven::Paused(paused) = drive(&module, Vec::new(), &Limits::default(), None, &mut Clocked)
/// else { panic!("expected a pause at Log.info") };
/// assert_eq!((paused.effect(), paused.args()[0].as_str()), ("Log", Some("at 40")));
/// let Driven::Done(result, usage) = paused.resume_driven(Ok(Value::unit()), &mut Clocked)
/// else { panic!("expected the end") };
/// assert_eq!(result.expect("a value").as_int(), Some(42));
/// assert!(usage.fuel > 0);
/// ```
pub fn drive<'a>(
    module: &'a Module,
    globals: Vec<Value>,
    limits: &Limits,
    cancel: Option<&Arc<AtomicBool>>,
    driver: &mut dyn Driver,
) -> Driven<'a> {
    let mut m = Box::new(Machine::new(module, globals, limits, cancel));
    let step = m.start(module.main).and_then(|()| m.execute());
    run_slice(m, step, driver)
}

impl<'a> Paused<'a> {
    /// Continue the run with the host's answer to the operation it was
    /// handed out at (as [`Paused::resume`]), `driver` handling the
    /// operations after it.
    pub fn resume_driven(
        self,
        answer: Result<Value, HostError>,
        driver: &mut dyn Driver,
    ) -> Driven<'a> {
        let mut m = self.wake();
        let step = m.answer(answer).and_then(|()| m.execute());
        run_slice(m, step, driver)
    }

    /// Continue the run, `driver` handling the operation it was handed
    /// out at (asked again, now with the run's meter running: the answer's
    /// waiting counts against the run's time) and the ones after it. A
    /// driver that hands the same operation out again pauses the run
    /// again there.
    pub fn hand_back(self, driver: &mut dyn Driver) -> Driven<'a> {
        let m = self.wake();
        run_slice(m, Ok(Exit::Paused), driver)
    }
}

/// Run until the driver hands the run out or it ends.
fn run_slice<'a>(
    mut m: Box<Machine<'a>>,
    mut step: Result<Exit, RunError>,
    driver: &mut dyn Driver,
) -> Driven<'a> {
    let result = loop {
        match step {
            Ok(Exit::Paused) => {
                let handling = match m.pending_op() {
                    Some((effect, op, args)) => driver.handle(effect, op, args),
                    None => break Err(RunError::internal("a pause at no operation")),
                };
                match handling {
                    Handling::Answer(answer) => {
                        step = m.answer(answer).and_then(|()| m.execute());
                    }
                    Handling::HandOut => {
                        return match settle(m, Ok(Exit::Paused)) {
                            Progress::Paused(p) => Driven::Paused(p),
                            Progress::Done(r) => Driven::Done(r, Usage::default()),
                        };
                    }
                }
            }
            Ok(Exit::Done(v)) => break Ok(v),
            Err(e) => break Err(e),
        }
    };
    let result = result.map_err(|mut e| {
        m.locate(&mut e);
        e
    });
    let usage = m.usage();
    // Dropping the machine takes its stacks apart front to back and
    // restores the thread's meter.
    drop(m);
    Driven::Done(result, usage)
}
