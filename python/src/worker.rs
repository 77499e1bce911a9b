//! Where runs happen: with the GIL released, and where Ctrl-C can stop
//! them.
//!
//! Python delivers a signal to its main thread only, and raises
//! `KeyboardInterrupt` only when that thread runs Python code, which a
//! run does not. On the main thread, a run goes on on that thread with
//! SIGINT watched ([`crate::interrupt`]: Ctrl-C sets the run's cancel
//! flag); where SIGINT cannot be watched so, it goes to a worker thread
//! while the caller waits in slices of [`SLICE`], checking Python's
//! signals between them. On any other thread, a run goes on on that
//! thread (Ctrl-C never reaches it). A cancelled run stops with `E5006`
//! at its next check of its limits (within 4,096 steps, or when a
//! capability's handler returns), and `KeyboardInterrupt` is raised.
//!
//! Invariants: the caller never returns while its run goes on, except a
//! paused run, whose thread waits for the host's reply
//! ([`crate::pause`]); a worker that ends without answering is an error,
//! never a hang.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::ThreadId;
use std::time::Duration;

use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError};
use pyo3::prelude::*;

use crate::interrupt;

/// How long the caller waits before it looks for a signal again.
const SLICE: Duration = Duration::from_millis(20);

/// The stack of a run's thread: the checker and the machine grow their
/// own stacks where they recurse deeply; this is room to start with.
pub(crate) const STACK: usize = 16 * 1024 * 1024;

/// Wait for the answer on `rx`, with the GIL released, checking Python's
/// signals between slices; a signal's exception sets `cancel`, waits for
/// the answer (the run stopping) and is returned. Gives the receiver back.
pub(crate) fn wait<T: Send>(
    py: Python<'_>,
    rx: Receiver<T>,
    cancel: &AtomicBool,
) -> (Receiver<T>, PyResult<T>) {
    let mut rx = rx;
    loop {
        let (back, got) = py.detach(move || {
            let got = rx.recv_timeout(SLICE);
            (rx, got)
        });
        rx = back;
        match got {
            Ok(v) => return (rx, Ok(v)),
            Err(RecvTimeoutError::Disconnected) => {
                return (
                    rx,
                    Err(PyRuntimeError::new_err(
                        "the run's thread ended without an answer",
                    )),
                );
            }
            Err(RecvTimeoutError::Timeout) => {
                if let Err(interrupt) = py.check_signals() {
                    cancel.store(true, Ordering::SeqCst);
                    let (back, _) = py.detach(move || {
                        let last = rx.recv();
                        (rx, last)
                    });
                    return (back, Err(interrupt));
                }
            }
        }
    }
}

thread_local! {
    /// The cancel flag of the run going on on this thread, and the
    /// exception that stopped it, if Python code it called raised one that
    /// must reach the caller ([`stop_run`]).
    static SCOPE: RefCell<Option<(Arc<AtomicBool>, Option<PyErr>)>> = const { RefCell::new(None) };
}

/// Do `work` (a run, or part of one) as the run watching `cancel`: Python
/// code it calls on this thread may stop it with [`stop_run`], whose
/// exception is given back. Scopes nest (a capability's handler may run
/// another program).
pub(crate) fn scoped<T>(cancel: &Arc<AtomicBool>, work: impl FnOnce() -> T) -> (T, Option<PyErr>) {
    let outer = SCOPE.with(|s| s.borrow_mut().replace((cancel.clone(), None)));
    let result = work();
    let stopped = SCOPE.with(|s| {
        let mut slot = s.borrow_mut();
        let ours = slot.take();
        *slot = outer;
        ours.and_then(|(_, e)| e)
    });
    (result, stopped)
}

/// Stop the run going on on this thread because Python code it called
/// raised `err`, which must reach the caller (a `SystemExit` or
/// `KeyboardInterrupt` in a capability's handler, an exception in an
/// `on_log` sink): the run is cancelled (it stops as soon as the
/// operation returns, carrying out nothing more) and `err` is raised
/// where it was started. The first such exception is kept.
pub(crate) fn stop_run(err: PyErr) {
    SCOPE.with(|s| {
        if let Some((cancel, slot)) = s.borrow_mut().as_mut() {
            cancel.store(true, Ordering::SeqCst);
            if slot.is_none() {
                *slot = Some(err);
            }
        }
    });
}

/// A piece of work for a worker thread.
type Job = Box<dyn FnOnce() + Send>;

/// The most worker threads kept waiting for work between runs.
const IDLE_WORKERS: usize = 8;

/// Worker threads waiting for work: each the sending end of its queue.
static IDLE: Mutex<Vec<Sender<Job>>> = Mutex::new(Vec::new());

/// The body of a worker thread: do each job it is given, then offer
/// itself for the next one (or end, when enough others wait).
fn serve(jobs: Receiver<Job>, me: Sender<Job>) {
    while let Ok(job) = jobs.recv() {
        job();
        match IDLE.lock() {
            Ok(mut idle) if idle.len() < IDLE_WORKERS => idle.push(me.clone()),
            _ => return,
        }
    }
}

/// Give `job` to a waiting worker thread, or to a new one.
fn dispatch(job: Job) -> PyResult<()> {
    let mut job = job;
    loop {
        let idle = IDLE.lock().ok().and_then(|mut idle| idle.pop());
        let Some(worker) = idle else { break };
        match worker.send(job) {
            Ok(()) => return Ok(()),
            // That worker ended: try another.
            Err(back) => job = back.0,
        }
    }
    let (tx, rx) = channel::<Job>();
    let me = tx.clone();
    std::thread::Builder::new()
        .name("writ-run".into())
        .stack_size(STACK)
        .spawn(move || serve(rx, me))
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the run's thread: {e}")))?;
    tx.send(job)
        .map_err(|_| PyRuntimeError::new_err("the run's thread ended before its run"))
}

/// The thread Python's main thread is (read when the module is
/// imported: where Ctrl-C is delivered), if the import happened there.
static MAIN: OnceLock<Option<ThreadId>> = OnceLock::new();

/// Note the importing thread as the main thread if Python says it is.
pub(crate) fn note_main(py: Python<'_>) {
    let main = py
        .import("threading")
        .and_then(|t| {
            let current = t.call_method0("current_thread")?;
            let main = t.call_method0("main_thread")?;
            Ok(current.is(&main))
        })
        .unwrap_or(false);
    let _ = MAIN.set(main.then(|| std::thread::current().id()));
}

fn on_main_thread() -> bool {
    matches!(MAIN.get(), Some(Some(id)) if *id == std::thread::current().id())
}

/// How many runs are under way on the main thread (runs nest when a
/// capability's handler runs another).
static MAIN_RUNS: AtomicUsize = AtomicUsize::new(0);

/// The cancel flag a run started here should watch: on the main thread,
/// the one Ctrl-C sets ([`interrupt::flag`]); elsewhere, a flag of its
/// own.
pub(crate) fn cancel_flag() -> Arc<AtomicBool> {
    if on_main_thread() {
        interrupt::flag().clone()
    } else {
        Arc::new(AtomicBool::new(false))
    }
}

/// Run `work` with the GIL released, so that Ctrl-C cancels it: on the
/// main thread, on this thread with SIGINT watched ([`interrupt`]), or,
/// where it cannot be watched so, on a worker thread while this one waits
/// and checks for signals; on another thread (which Ctrl-C never
/// reaches), on this thread. `cancel` is the flag the work's run watches
/// ([`cancel_flag`]).
pub(crate) fn run<T: Send + 'static>(
    py: Python<'_>,
    cancel: Arc<AtomicBool>,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let flag = cancel.clone();
    let work = move || scoped(&flag, work);
    let (result, stopped) = run_unscoped(py, cancel, work)?;
    if let Some(err) = stopped {
        return Err(err);
    }
    if on_main_thread() && interrupt::seen() {
        // Python noted the signal too (unless a capability's handler
        // took its KeyboardInterrupt): raise it now.
        py.check_signals()?;
        return Err(PyKeyboardInterrupt::new_err(()));
    }
    Ok(result)
}

fn run_unscoped<T: Send + 'static>(
    py: Python<'_>,
    cancel: Arc<AtomicBool>,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    if !on_main_thread() {
        return Ok(py.detach(work));
    }
    py.check_signals()?;
    if MAIN_RUNS.fetch_add(1, Ordering::SeqCst) == 0 {
        interrupt::reset();
    }
    let guard = interrupt::Guard::watch(true);
    let result = if guard.watching() {
        let r = py.detach(work);
        drop(guard);
        Ok(r)
    } else {
        drop(guard);
        on_worker(py, cancel, work)
    };
    MAIN_RUNS.fetch_sub(1, Ordering::SeqCst);
    result
}

/// Run `work` on a worker thread with the GIL released, and wait for it
/// checking for signals (see the module's docs). Worker threads are kept
/// between runs (at most [`IDLE_WORKERS`] waiting).
fn on_worker<T: Send + 'static>(
    py: Python<'_>,
    cancel: Arc<AtomicBool>,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let (tx, rx) = channel();
    dispatch(Box::new(move || {
        let _ = tx.send(work());
    }))?;
    wait(py, rx, &cancel).1
}
