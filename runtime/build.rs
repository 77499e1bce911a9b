//! The build script: lowers the standard library and writes its image
//! (`OUT_DIR/lowered.bin`), which the crate embeds (see
//! `src/lower/image.rs`).
//!
//! The script is this crate: it compiles the crate's own modules (the
//! list below mirrors `src/lib.rs`) against the `writ-lang` the crate
//! uses, and lowers the library as a process would at first use, so the
//! image is what the crate's code makes of the library. Cargo runs it
//! again when a file of the crate or of `stdlib/` changes, or `writ-lang`
//! does. It sets `cfg(writ_library_image)` for the crate alone: compiled
//! here, the modules lower the library rather than read an image.

// What the crate makes public is private here, and much of it unused.
#![allow(dead_code, unreachable_pub, unused_imports, unused_macros)]
// `writ_library_image` is set for the crate, never for this script.
#![allow(unexpected_cfgs)]

// One inline module holding the crate's files, so that a file's own
// modules are found beside it (`value.rs` and `value/`), and the
// modules re-exported at the root, where the crate's paths expect them.
#[path = "src"]
mod src {
    pub mod clock;
    pub mod code;
    pub mod display;
    pub mod error;
    pub mod host;
    pub mod inputs;
    pub mod limits;
    pub mod lower;
    pub mod machine;
    pub mod meter;
    pub mod natives;
    pub mod order;
    pub mod session;
    pub mod value;
}

use src::{
    clock, code, display, error, host, inputs, limits, lower, machine, meter, natives, order,
    session, value,
};

pub use code::Module;
pub use error::{RunError, TraceEntry};
pub use host::{Host, HostError, LogHost};
pub use limits::{Limit, Limits};
pub use machine::{
    Driven, Driver, Handling, Paused, Progress, Usage, drive, restore, run, run_measured,
    snapshot_bound, start,
};
pub use value::json;
pub use value::{
    FromValue, FromValueError, IntoValue, ListRef, MapRef, RecordRef, Value, VariantRef, View,
};

const STACK_RED_ZONE: usize = 128 * 1024;
const STACK_CHUNK: usize = 4 * 1024 * 1024;

#[path = "../build/library_image.rs"]
mod library_image;

fn main() {
    library_image::write("lowered.bin", lower::image::image());
}
