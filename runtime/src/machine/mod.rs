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
//!   every [`CHECK_EVERY`](crate::limits::CHECK_EVERY) steps and after
//!   each capture or resumption, and time and cancellation again as soon
//!   as a host operation returns (it may have waited).
//! - **Nothing panics.** Every index the code holds is checked; a bad one
//!   (a bug in lowering) stops the run with `E4004`.
//!
//! # Modules
//!
//! - [`entry`]: the entry points ([`run`], [`run_function`]), setting a run
//!   up and taking it apart, and placing errors;
//! - [`pause`]: pausing at an operation of a host capability and resuming
//!   with the host's answer ([`start`], [`Progress`], [`Paused`]);
//! - [`drive`]: a [`Driver`] answering operations in place and handing
//!   the run out at the ones it chooses ([`drive()`], [`Driven`]);
//! - [`snapshot`]: a paused run as bytes, and restored from them
//!   ([`Paused::to_bytes`], [`restore`]);
//! - [`step`]: the run loop and its inline fast paths;
//! - [`calls`]: calls, frames, closures and returns;
//! - [`handlers`]: handlers (perform, capture, resume);
//! - [`ops`]: arithmetic and data operations;
//! - [`accounting`]: fuel, time, cancellation, memory and output limits;
//! - `op_stats` (with the `op-stats` feature only): counts of the ops a
//!   run executes and of the pairs that follow each other.

mod accounting;
mod calls;
mod drive;
mod entry;
mod guards;
mod handlers;
mod inline;
#[cfg(feature = "op-stats")]
pub mod op_stats;
mod ops;
mod pause;
mod snapshot;
mod step;

use crate::clock::Instant;
use std::rc::Rc;

use crate::code::Module;
use crate::error::RunError;
use crate::limits::Limits;
use crate::meter;
use crate::value::{ClosureObj, Value};

pub use drive::{Driven, Driver, Handling, drive};
pub(crate) use entry::run_top;
pub use entry::{Usage, run, run_function, run_measured};
pub use handlers::Resumption;
pub use pause::{Paused, Progress, start};
pub use snapshot::{bound as snapshot_bound, restore};

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
        param: Value,
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
    limits: Limits,
    literals: Vec<Value>,
    shapes: Vec<Rc<[u32]>>,
    globals: Vec<Value>,
    stack: Vec<Value>,
    frames: Vec<Frame>,
    handlers: Vec<Entry>,
    /// Emptied vectors of moved resumptions, for the next captures.
    spare: handlers::Spare,
    /// A tuple's, a constructor's and a closure's object let go of, for
    /// the next one made ([`crate::value::Recycled`]).
    recycled: crate::value::Recycled,
    /// Steps taken before the current window.
    steps: u64,
    /// Steps of the current window.
    window: u64,
    /// Steps left in the current window.
    countdown: u64,
    /// When the current slice of running started (a run paused and
    /// resumed runs in several slices).
    started: Instant,
    /// Running time of the slices before the current one.
    earlier: std::time::Duration,
    memory_base: usize,
    /// Bytes a full stack wanted to grow by and did not, as that would
    /// have passed the memory limit ([`Machine::stack_growth`]): the next
    /// step's check ends the run with `E5002` for them.
    stack_wanted: usize,
    /// The most memory in use seen by a memory check so far.
    peak: std::cell::Cell<usize>,
    output: usize,
    /// The operation of a host capability the run stopped at, once
    /// [`Machine::execute`] has returned [`Exit::Paused`], until it is
    /// answered.
    pending: Option<Pending>,
    /// The work meter of this run while it runs (restored when the machine
    /// is dropped); `None` while the run is paused and handed out.
    meter: Option<meter::Scope>,
}

/// An operation of a host capability the machine stopped at: its
/// arguments are the top of the operand stack from `start`.
#[derive(Clone, Copy, Debug)]
struct Pending {
    effect: u32,
    op: u32,
    start: usize,
}

/// How [`Machine::execute`] stopped without an error.
enum Exit {
    /// The top level returned this value.
    Done(Value),
    /// The run performed an operation of a host capability
    /// ([`Machine::pending`]).
    Paused,
}

impl Drop for Machine<'_> {
    /// Take the stacks and globals apart front to back (see
    /// [`Machine::unwind`]), whether the run ended or was dropped while
    /// paused.
    fn drop(&mut self) {
        self.unwind();
        while self.globals.pop().is_some() {}
    }
}

impl Machine<'_> {
    /// Push a value onto the operand stack: inline on the common path,
    /// with the growth out of line and taking the value with it.
    /// `Vec::push` keeps the value alive across its growth call, which
    /// makes the compiler hold it in memory rather than in its two
    /// registers on every push (about 4% of `list.map`).
    #[inline(always)]
    fn push(&mut self, v: Value) {
        let len = self.stack.len();
        if len < self.stack.capacity() {
            // SAFETY: `len` is below the capacity, so slot `len` is
            // allocated and holds no value; it is written before the
            // length takes it in.
            unsafe {
                self.stack.as_mut_ptr().add(len).write(v);
                self.stack.set_len(len + 1);
            }
        } else {
            self.push_growing(v);
        }
    }

    /// A push onto a full stack, out of line (see [`Machine::push`]).
    #[cold]
    #[inline(never)]
    fn push_growing(&mut self, v: Value) {
        let more = self.stack_growth(self.stack.len(), crate::value::SLOT);
        // Exactly: `reserve` would double whatever it is asked for.
        self.stack.reserve_exact(more);
        self.stack.push(v);
    }
}

fn bad_index() -> RunError {
    RunError::internal("an index out of range in the compiled code")
}
