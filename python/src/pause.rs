//! Runs the host drives from Python: `Engine.start` and `Engine.load`
//! give a `Paused` run (or `Done`), replied to with `resume`, `carry_out`,
//! `fail` or `refuse`, and saved with `dump`.
//!
//! A paused run borrows its engine, program and policy and is not `Send`,
//! so it lives on a thread of its own (an actor) that owns them: the
//! `Paused` object sends it the host's replies and waits for where the
//! run comes to next, with the GIL released and Ctrl-C watched
//! ([`crate::worker::wait`]). Dropping a `Paused` ends its run there (the
//! thread's channel closes; what was carried out stays carried out and
//! audited).
//!
//! Invariants: a `Paused` is replied to once (a second reply raises
//! `RuntimeError`), except a reply that does not fit (E4010), after which
//! it can be replied to again; `dump` does not end it.

use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use writ_host::engine::{Compiled, Outcome, Pending, Reply, RunOptions, Step};
use writ_lang::types::OpKind;
use writ_runtime::RunError;

use crate::convert::{to_json, to_py};
use crate::engine::{PyOperation, PyOutcome, Shared, operations, outcome};
use crate::errors;

/// What the host asks of a paused run's thread.
enum Command {
    Reply(Reply),
    Dump,
}

/// What a paused run's thread answers.
enum Event {
    Paused(Info),
    Done(Box<Result<Outcome, RunError>>),
    Bytes(Result<Vec<u8>, RunError>),
    /// The reply did not fit; the operation is still pending.
    Bad(RunError),
    /// Python code the run called raised what must reach the caller
    /// (see `worker::stop_run`); the run is over.
    Raised(PyErr),
}

/// What the host sees of a pending operation.
struct Info {
    capability: String,
    operation: String,
    kind: OpKind,
    args: serde_json::Value,
    arguments: String,
    rule: String,
    output: Vec<String>,
    operations: Vec<writ_host::engine::Operation>,
}

fn info(p: &Pending<'_>) -> Info {
    Info {
        capability: p.capability().to_string(),
        operation: p.operation().to_string(),
        kind: p.kind(),
        args: p.arguments_json(),
        arguments: p.arguments().to_string(),
        rule: p.rule().to_string(),
        output: p.output().to_vec(),
        operations: p.operations().to_vec(),
    }
}

/// The thread of a paused run, as the `Paused` object holds it.
struct Actor {
    commands: Sender<Command>,
    events: Option<Receiver<Event>>,
    cancel: Arc<AtomicBool>,
    source: Arc<str>,
}

/// The body of a run's thread: start (or restore) the run, then answer
/// the host's commands until it ends or the host lets it go.
fn serve(
    shared: Arc<Shared>,
    program: Arc<Compiled>,
    options: RunOptions,
    snapshot: Option<Vec<u8>>,
    events: Sender<Event>,
    commands: Receiver<Command>,
) {
    let cancel = options.cancel.clone().unwrap_or_default();
    let (first, stopped) = crate::worker::scoped(&cancel, || match &snapshot {
        Some(bytes) => shared
            .engine
            .restore(&program, &shared.policy, bytes, &options),
        None => shared.engine.start(&program, &shared.policy, &options),
    });
    if let Some(err) = stopped {
        let _ = events.send(Event::Raised(err));
        return;
    }
    let mut step = match first {
        Ok(s) => s,
        Err(e) => {
            let _ = events.send(Event::Done(Box::new(Err(e))));
            return;
        }
    };
    loop {
        let mut pending = match step {
            Step::Done(o) => {
                let _ = events.send(Event::Done(Box::new(Ok(o))));
                return;
            }
            Step::Paused(p) => p,
        };
        if events.send(Event::Paused(info(&pending))).is_err() {
            return;
        }
        step = loop {
            match commands.recv() {
                Err(_) => return,
                Ok(Command::Dump) => {
                    if events.send(Event::Bytes(pending.to_bytes())).is_err() {
                        return;
                    }
                }
                Ok(Command::Reply(reply)) => {
                    match crate::worker::scoped(&cancel, || pending.resume(reply)) {
                        (_, Some(err)) => {
                            let _ = events.send(Event::Raised(err));
                            return;
                        }
                        (resumed, None) => match resumed {
                            Ok(next) => break next,
                            Err(bad) => {
                                let bad = *bad;
                                if events.send(Event::Bad(bad.error)).is_err() {
                                    return;
                                }
                                pending = bad.pending;
                            }
                        },
                    }
                }
            }
        };
    }
}

/// Start (or, with `snapshot`, restore) a run on its own thread and wait
/// for its first pause or its end.
pub(crate) fn start(
    py: Python<'_>,
    shared: Arc<Shared>,
    program: Arc<Compiled>,
    source: String,
    options: RunOptions,
    cancel: Arc<AtomicBool>,
    snapshot: Option<Vec<u8>>,
) -> PyResult<Py<PyAny>> {
    let (commands, command_rx) = channel();
    let (event_tx, events) = channel();
    std::thread::Builder::new()
        .name("writ-paused-run".into())
        .stack_size(crate::worker::STACK)
        .spawn(move || serve(shared, program, options, snapshot, event_tx, command_rx))
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the run's thread: {e}")))?;
    let actor = Actor {
        commands,
        events: Some(events),
        cancel,
        source: Arc::from(source),
    };
    next(py, actor, None)
}

/// Wait for where the run comes to, as a Python object. A reply that did
/// not fit leaves the run paused: its actor goes back to `paused`, the
/// `Paused` replied to.
fn next(py: Python<'_>, mut actor: Actor, paused: Option<&PyPaused>) -> PyResult<Py<PyAny>> {
    let Some(events) = actor.events.take() else {
        return Err(PyRuntimeError::new_err("the paused run is gone"));
    };
    let (events, got) = crate::worker::wait(py, events, &actor.cancel);
    actor.events = Some(events);
    match got? {
        Event::Paused(i) => Ok(Py::new(py, PyPaused::new(py, i, actor)?)?.into_any()),
        Event::Done(done) => match *done {
            Ok(o) => {
                let out = outcome(py, o, &actor.source)?;
                Ok(Py::new(py, PyDone::new(py, out)?)?.into_any())
            }
            Err(e) => Err(errors::run_error(py, &e, &actor.source, None)),
        },
        Event::Bad(e) => {
            let err = errors::run_error(py, &e, &actor.source, None);
            if let Some(p) = paused {
                p.put_back(actor);
            }
            Err(err)
        }
        Event::Raised(err) => Err(err),
        Event::Bytes(_) => Err(PyRuntimeError::new_err(
            "the paused run answered out of turn",
        )),
    }
}

/// A run that ended: its `outcome` (and, for short, its `value` and
/// `output`).
#[pyclass(frozen, name = "Done", module = "writ")]
pub(crate) struct PyDone {
    #[pyo3(get)]
    outcome: Py<PyOutcome>,
}

impl PyDone {
    fn new(py: Python<'_>, outcome: PyOutcome) -> PyResult<PyDone> {
        Ok(PyDone {
            outcome: Py::new(py, outcome)?,
        })
    }
}

#[pymethods]
impl PyDone {
    /// The run's final value.
    #[getter]
    fn value(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.outcome.bind(py).getattr("value").map(Bound::unbind)
    }

    /// The lines it wrote.
    #[getter]
    fn output(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.outcome.bind(py).getattr("output").map(Bound::unbind)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "Done({})",
            self.outcome
                .bind(py)
                .repr()
                .map(|r| r.to_string())
                .unwrap_or_default()
        )
    }
}

/// A run paused at an operation of a host capability, which the policy
/// allowed so far: `capability`, `operation` (`Confirm.ask`), `kind`
/// (`"read"` or `"act"`), `args` (Python data), `arguments` (as the audit
/// log shows them), `rule`, and the run's `output` and `operations` so
/// far. Reply once: `resume(value)` (the operation's result, given by
/// you), `carry_out()` (the engine carries it out, as in a straight run),
/// `fail(message)` (`Fail` at the operation) or `refuse(reason)` (a
/// denial, audited); each gives the next `Paused` or `Done`. `dump()`
/// saves it as bytes for `Engine.load`.
#[pyclass(frozen, name = "Paused", module = "writ")]
pub(crate) struct PyPaused {
    actor: Mutex<Option<Actor>>,
    #[pyo3(get)]
    capability: String,
    #[pyo3(get)]
    operation: String,
    kind: OpKind,
    #[pyo3(get)]
    args: Py<PyAny>,
    #[pyo3(get)]
    arguments: String,
    #[pyo3(get)]
    rule: String,
    #[pyo3(get)]
    output: Vec<String>,
    #[pyo3(get)]
    operations: Vec<PyOperation>,
}

impl PyPaused {
    fn new(py: Python<'_>, i: Info, actor: Actor) -> PyResult<PyPaused> {
        Ok(PyPaused {
            actor: Mutex::new(Some(actor)),
            capability: i.capability,
            operation: i.operation,
            kind: i.kind,
            args: to_py(py, &i.args)?.unbind(),
            arguments: i.arguments,
            rule: i.rule,
            output: i.output,
            operations: operations(&i.operations),
        })
    }

    fn take(&self) -> PyResult<Actor> {
        let mut slot = self
            .actor
            .lock()
            .map_err(|_| PyRuntimeError::new_err("the paused run's lock is poisoned"))?;
        slot.take().ok_or_else(|| {
            PyRuntimeError::new_err(format!(
                "this pause at {} was replied to already: use the Paused or Done its reply gave",
                self.operation
            ))
        })
    }

    fn put_back(&self, actor: Actor) {
        if let Ok(mut slot) = self.actor.lock() {
            *slot = Some(actor);
        }
    }

    fn reply(&self, py: Python<'_>, reply: Reply) -> PyResult<Py<PyAny>> {
        let actor = self.take()?;
        if actor.commands.send(Command::Reply(reply)).is_err() {
            return Err(PyRuntimeError::new_err("the paused run is gone"));
        }
        next(py, actor, Some(self))
    }
}

#[pymethods]
impl PyPaused {
    /// `"read"` or `"act"`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.kind.as_str()
    }

    /// Answer the operation with `value` (Python data of its result
    /// type): for `Clock`, `Confirm`, `Http` and the embedder's
    /// capabilities. A value that does not fit is `RunError` E4010, and
    /// the run stays paused here.
    #[pyo3(signature = (value=None))]
    fn resume(&self, py: Python<'_>, value: Option<Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        let json = match value {
            Some(v) => to_json(&v, &format!("the answer to {}", self.operation))?,
            None => serde_json::Value::Null,
        };
        self.reply(py, Reply::Answer(json))
    }

    /// Let the engine carry the operation out, as a straight run does.
    fn carry_out(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.reply(py, Reply::CarryOut)
    }

    /// `Fail(message)` at the operation: allowed, but not carried out.
    fn fail(&self, py: Python<'_>, message: String) -> PyResult<Py<PyAny>> {
        self.reply(py, Reply::Fail(message))
    }

    /// Refuse the operation: a denial, audited, raised as the grant's
    /// `on_deny` says.
    fn refuse(&self, py: Python<'_>, reason: String) -> PyResult<Py<PyAny>> {
        self.reply(py, Reply::Refuse(reason))
    }

    /// The paused run as bytes, sealed with the store's key: give them to
    /// `Engine.load` (here or in another process) to go on from here.
    /// The run stays paused here too; a snapshot resumes once.
    fn dump<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let mut actor = self.take()?;
        if actor.commands.send(Command::Dump).is_err() {
            return Err(PyRuntimeError::new_err("the paused run is gone"));
        }
        let Some(events) = actor.events.take() else {
            return Err(PyRuntimeError::new_err("the paused run is gone"));
        };
        let (events, got) = crate::worker::wait(py, events, &actor.cancel);
        actor.events = Some(events);
        let source = actor.source.clone();
        self.put_back(actor);
        match got? {
            Event::Bytes(Ok(b)) => Ok(PyBytes::new(py, &b)),
            Event::Bytes(Err(e)) => Err(errors::run_error(py, &e, &source, None)),
            _ => Err(PyTypeError::new_err("the paused run answered out of turn")),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "Paused({}({}), {})",
            self.operation,
            self.arguments,
            self.kind.as_str()
        )
    }
}
