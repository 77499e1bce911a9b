//! Snapshots: a paused run as bytes ([`Paused::to_bytes`]), and a paused
//! run again from them ([`restore`]), in this process or another, against
//! the same module.
//!
//! # What the bytes hold
//!
//! Everything a [`Paused`] run is, so that a restored run continues
//! exactly as the original would (the same result, the same fuel used,
//! the same output counted, its time limit counting from the running time
//! already used): the operand stack, the frames, the handler stack (each
//! handler's clause closures and parameter), the globals, the operation
//! the run stopped at, and what it has used of its limits — steps (and
//! where the current check window stands), the work meter's units, the
//! output counted, the running time, the memory peak and the live bytes.
//! Values are stored as a graph: every reference-counted object (strings,
//! tuples, records, variants, lists, list views, maps, closures,
//! resumptions — the multi-shot continuations handlers captured, with
//! their frames, stack and handler entries — and handlers' clause lists)
//! is written once, where it is first needed, and referred to by its
//! index after, so sharing is kept (a value of `n` objects shared as a
//! DAG is `O(n)` bytes, and a restored run's memory is what the
//! original's was) and a restored object has the reference count, hence
//! the behaviour, of the original.
//!
//! # Format (version 1)
//!
//! Integers are LEB128 varints (signed ones zig-zag encoded); floats their
//! eight IEEE bytes, little-endian (bit-exact, NaN payloads included).
//!
//! 1. Header: the magic `WRITSNAP`, the format version (`u32` LE) and the
//!    module's fingerprint (`u64` LE, [`Module::fingerprint`]).
//! 2. Usage: steps before the current window, the window, the steps left
//!    in it, the meter's units, the units to its next poll, the running
//!    time (seconds, nanoseconds), output bytes, memory peak, live bytes.
//! 3. Objects, children before parents, each a kind byte and its
//!    contents, up to a kind byte 0. Object indices start after the
//!    module's literals (index `i < literals` is the run's literal `i`,
//!    so literal strings stay shared); record shapes are the module's,
//!    or written where first used.
//! 4. Globals, operand stack, frames, handler stack, each a count and its
//!    items; then the pending operation (effect, operation, where its
//!    arguments start on the stack). Nothing may follow.
//!
//! # Invariants
//!
//! - **Bounded output.** [`Paused::to_bytes`] writes at most
//!   [`bound`]`(limits)` bytes — twice the run's memory limit plus 64 KiB —
//!   and fails with the memory limit's error (`E5002`) past it. Every item
//!   written is smaller than what the run is charged for it (a slot 16
//!   bytes, an object a 32-byte header and its slots, a string its length
//!   and a header), so a run within its memory limit always fits.
//! - **Untrusted input.** [`restore`] never panics and never does
//!   unbounded work: every count is checked against the bytes left before
//!   anything is allocated for it; every index (function, constructor,
//!   native, handler, record symbol, effect, operation, object), program
//!   counter, frame base and stack or handler offset is checked against
//!   the module and the state decoded so far; values are charged to the
//!   memory limit as they are made (past it: `E5002`); map keys must come
//!   in strictly increasing order, and comparing them is metered (at most
//!   [`COMPARE_UNITS_PER_BYTE`] units per input byte). Anything else
//!   wrong — truncated, corrupted or crafted bytes, another format version
//!   or another module — is `E4009` (snapshot refused), naming what was
//!   expected, where, and what was found. Decoding is linear in the input
//!   (but for the map insertions, `O(n log n)` comparisons).
//! - **No recursion on the data.** The encoder walks the value graph with
//!   an explicit work list; the decoder reads objects in order (each
//!   refers only to earlier ones), so neither grows the host stack with a
//!   value's depth or a stack's height.
//! - **The module is the original's.** The bytes hold indices into the
//!   module, never code: restoring against another module is refused by
//!   its fingerprint. The bytes are not authenticated here: a host that
//!   stores them wraps them in its own envelope (program hash, version,
//!   MAC).

mod decode;
mod encode;
mod reader;
#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use writ_lang::Code;

use super::Paused;
use crate::code::Module;
use crate::error::RunError;
use crate::limits::{Limit, Limits};

/// The first bytes of every snapshot.
const MAGIC: &[u8; 8] = b"WRITSNAP";
/// The format's version: bytes of another version are refused.
const VERSION: u32 = 1;

/// The most units of comparison work decoding may spend per byte of
/// input (on the keys of the maps it rebuilds).
pub const COMPARE_UNITS_PER_BYTE: u64 = 64;

/// Tags of a value written in place.
mod tag {
    pub(super) const UNIT: u8 = 0;
    pub(super) const FALSE: u8 = 1;
    pub(super) const TRUE: u8 = 2;
    pub(super) const INT: u8 = 3;
    pub(super) const FLOAT: u8 = 4;
    pub(super) const CTOR: u8 = 5;
    pub(super) const FUNC: u8 = 6;
    pub(super) const NATIVE: u8 = 7;
    /// A reference to an object written before.
    pub(super) const OBJECT: u8 = 8;
}

/// Kinds of an object written once.
mod kind {
    /// The end of the objects.
    pub(super) const END: u8 = 0;
    pub(super) const STR: u8 = 1;
    pub(super) const TUPLE: u8 = 2;
    pub(super) const RECORD: u8 = 3;
    pub(super) const VARIANT: u8 = 4;
    pub(super) const LIST: u8 = 5;
    /// A view of a list from an index on.
    pub(super) const VIEW: u8 = 6;
    pub(super) const MAP: u8 = 7;
    pub(super) const CLOSURE: u8 = 8;
    pub(super) const RESUME: u8 = 9;
    /// A handler's clause closures.
    pub(super) const CLAUSES: u8 = 10;
}

/// The most bytes a snapshot of a run under `limits` may take: twice its
/// memory limit, plus 64 KiB ([`Paused::to_bytes`] fails past it). A host
/// may refuse larger bytes before restoring them.
pub fn bound(limits: &Limits) -> usize {
    limits.memory.saturating_mul(2).saturating_add(64 * 1024)
}

impl Paused<'_> {
    /// The paused run's whole state as bytes, for [`restore`] to continue
    /// it later, in this process or another, against the same module: its
    /// values (with their sharing), frames, handlers and the continuations
    /// they captured, globals, the pending operation, and what it has used
    /// of its limits (fuel, output, running time, memory). The run is not
    /// changed.
    ///
    /// The bytes may hold anything the program has read or computed (a
    /// page it fetched, a record it was given): keep them as the data
    /// they hold would be kept. They are not authenticated: a host that
    /// stores them should seal them (see `docs/embedding.md`). They take
    /// at most [`snapshot_bound`](crate::snapshot_bound) bytes for the run's limits (twice its memory
    /// limit plus 64 KiB); past that, the memory limit's error (`E5002`).
    ///
    /// ```
    /// use writ_runtime::{Limits, Progress, Value, restore, start};
    ///
    /// let text = "let t = Clock.now()\nlet u = Clock.now()\nt * 10 + u\n";
    /// let parsed = writ_lang::parse(text);
    /// let typed = writ_lang::types::check(&parsed.program, &Default::default());
    /// let module = writ_runtime::compile(&parsed.program, &typed).expect("compiles");
    ///
    /// let Progress::Paused(paused) = start(&module, &Limits::default(), None) else {
    ///     panic!("the run stops at Clock.now")
    /// };
    /// let bytes = paused.to_bytes().expect("a snapshot");
    /// drop(paused);
    ///
    /// // Later, perhaps in another process, with the same module:
    /// let mut progress = Progress::Paused(
    ///     restore(&module, &bytes, &Limits::default(), None).expect("restored"),
    /// );
    /// let mut now = 0;
    /// let value = loop {
    ///     match progress {
    ///         Progress::Paused(p) => {
    ///             now += 1;
    ///             progress = p.resume(Ok(Value::int(now)));
    ///         }
    ///         Progress::Done(result) => break result.expect("a value"),
    ///     }
    /// };
    /// assert_eq!(value.as_int(), Some(12));
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>, RunError> {
        encode::encode(self)
    }
}

/// A paused run again from the bytes [`Paused::to_bytes`] made of it,
/// against the same `module`, under `limits` (with the host's
/// cancellation flag, if it gives one): answer it with
/// [`Paused::resume`], as the original would have been. What the run had
/// used of its limits counts against `limits`: its fuel, output and
/// running time continue from what they were.
///
/// The bytes are untrusted: anything that is not a snapshot of a run of
/// this module, taken by this version of the format — truncated,
/// corrupted or crafted bytes, or a snapshot of another module — is
/// refused with `E4009`, naming what was expected and found; a state
/// that needs more memory than `limits` allow is refused with the memory
/// limit's error (`E5002`). Never a panic; the work is linear in the
/// bytes but for rebuilding maps (`O(n log n)` key comparisons, metered
/// on a budget in proportion to the bytes). See [`Paused::to_bytes`] for
/// an example.
pub fn restore<'a>(
    module: &'a Module,
    bytes: &[u8],
    limits: &Limits,
    cancel: Option<&Arc<AtomicBool>>,
) -> Result<Paused<'a>, RunError> {
    decode::decode(module, bytes, limits, cancel)
}

/// The error of bytes that are not a snapshot this module can restore.
fn refused(expected: &str, at: usize, found: impl std::fmt::Display) -> RunError {
    RunError::new(
        Code::SnapshotRefused,
        format!("snapshot refused: expected {expected} at byte {at}, but found {found}"),
    )
    .with_help(
        "a snapshot is restored by the same version of Writ, against the program it was taken of, \
         and exactly as it was written",
    )
}

/// The error of a snapshot that would take more than `limits` allow.
fn too_big(limits: &Limits, what: &str) -> RunError {
    RunError::limit(
        Limit::Memory,
        Limit::Memory.value_in(limits),
        format!(
            "expected the program to use at most {}, but {what} needed more",
            super::accounting::bytes_text(limits.memory)
        ),
    )
}
