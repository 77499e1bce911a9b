//! The build script: checks the standard library and writes its image
//! (`OUT_DIR/library.bin`), which the crate embeds (see
//! `src/types/library.rs`).
//!
//! The script is this crate: it compiles the crate's own modules (the
//! list below mirrors `src/lib.rs`) and runs the same check a process
//! would run at first use, so the image is what the crate's code makes of
//! the library's sources. Cargo runs it again when a file of the crate or
//! of `stdlib/` changes. It sets `cfg(writ_library_image)` for the crate
//! alone: compiled here, the modules check the library rather than read an
//! image.

// What the crate makes public is private here, and much of it unused.
#![allow(dead_code, unreachable_pub, unused_imports, unused_macros)]
// `writ_library_image` is set for the crate, never for this script.
#![allow(unexpected_cfgs)]

#[path = "src/ast.rs"]
mod ast;
#[path = "src/delimiters.rs"]
mod delimiters;
#[path = "src/diagnostic.rs"]
mod diagnostic;
#[path = "src/image.rs"]
mod image;
#[path = "src/input.rs"]
mod input;
#[path = "src/lexer/mod.rs"]
mod lexer;
#[path = "src/parser/mod.rs"]
mod parser;
#[path = "src/span.rs"]
mod span;
#[path = "src/stdlib/mod.rs"]
mod stdlib;
#[path = "src/token.rs"]
mod token;
#[path = "src/types/mod.rs"]
mod types;

pub use diagnostic::{Code, Diagnostic, Hint, Label, Severity, sort_and_dedup};
pub use input::{is_blank, needs_more};
pub use lexer::is_deceptive;
pub use parser::{Parsed, parse, parse_at, parse_library};
pub use span::{LineIndex, Position, Span};

#[path = "../build/library_image.rs"]
mod library_image;

fn main() {
    library_image::write("library.bin", types::library::image());
}
