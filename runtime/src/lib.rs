//! The Writ runtime: lowering from the checked AST to a core IR, the
//! abstract machine that runs it, values, handlers, limits and the host
//! API.
//!
//! The pipeline: [`compile`] lowers a program the type checker accepted
//! (with the standard library) to a [`Module`]; [`run`] executes the
//! module under [`Limits`], handing operations of host capabilities to a
//! [`Host`]; [`start`] runs it until its first such operation and hands
//! the run out, [`Paused`], for the host to answer and resume (`run` is a
//! loop over the same pauses); a paused run is saved as bytes with
//! [`Paused::to_bytes`] and continued from them, in this process or
//! another, with [`restore`] (at most [`snapshot_bound`] bytes). A module
//! is plain data and can be run many times.
//! [`session`] does the same one input at a time (the REPL's back end).
//!
//! What a host works with:
//! - [`Value`]: a program's values, opaque. Made with its constructors or
//!   [`IntoValue`], read with its accessors, [`FromValue`] or
//!   [`Value::view`] (one level of structure at a time: [`View`]), shown
//!   with [`display::to_string`];
//! - [`Host`] and [`HostError`]: how operations leave the machine, and how
//!   a host refuses one or ends the run; [`LogHost`] grants only `Log`;
//! - [`RunError`] (with its [`TraceEntry`]s), [`Limits`] and [`Limit`]:
//!   how a run ends when it does not end with a value, and what bounds
//!   it; [`meter::deadline`]: the time a host operation may still wait;
//! - [`display::safe_text`]: text from a program made safe to show;
//! - [`inputs`]: the values a host passes a program's declared inputs, as
//!   JSON checked against their types, and the run that starts with them.
//!
//! The bytecode and the machine are not part of this surface: a
//! [`Module`] is opaque (the feature `internals` adds a listing of its
//! code, for reading what lowering produced).
//!
//! Invariants: nothing here touches the file system, network or terminal
//! except through the [`Host`] it is given; no program — however deep,
//! large or looping — panics the machine, overflows the host stack or
//! runs past its limits: it ends with a value or a [`RunError`]. Outside
//! this crate a [`Value`] is opaque: its representation is the machine's
//! to change (`docs/decisions/008-opaque-values.md`).

#![warn(missing_docs)]

pub mod clock;
mod code;
pub mod display;
mod error;
mod host;
pub mod inputs;
pub mod limits;
mod lower;
mod machine;
pub mod meter;
mod natives;
mod order;
pub mod session;
mod value;

pub use code::Module;
pub use error::{RunError, TraceEntry};
pub use host::{Host, HostError, LogHost};
pub use limits::{Limit, Limits};
/// Counting the ops runs execute (`--features op-stats`).
#[cfg(feature = "op-stats")]
pub use machine::op_stats;
pub use machine::{
    Driven, Driver, Handling, Paused, Progress, Usage, drive, restore, run, run_measured,
    snapshot_bound, start,
};
pub use value::json;
pub use value::{
    FromValue, FromValueError, IntoValue, ListRef, MapRef, RecordRef, Value, VariantRef, View,
};

/// Grow the host stack when less than this much is left while lowering.
const STACK_RED_ZONE: usize = 128 * 1024;
/// Grow it by this much at a time.
const STACK_CHUNK: usize = 4 * 1024 * 1024;

/// Lower a program the type checker accepted to a runnable module, with
/// what the checker found ([`writ_lang::types::Typed`]: the resolution of
/// its names, and the embedder's capability interfaces it was checked
/// with). An error here is an internal error (a bug in Writ, not in the
/// program).
pub fn compile(
    program: &writ_lang::ast::Program,
    typed: &writ_lang::types::Typed,
) -> Result<Module, RunError> {
    stacker::maybe_grow(STACK_RED_ZONE, STACK_CHUNK, || {
        lower::lower(program, &typed.resolution, &typed.interfaces, &typed.inputs)
    })
    .map_err(RunError::internal)
}
