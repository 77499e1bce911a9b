//! The Writ front end: source text → tokens → AST (→ types and effects, in
//! later stages). Pure: this crate performs no I/O and knows nothing of the
//! runtime.
//!
//! The stages, in order: [`lexer`] (logos), [`delimiters`] (bracket
//! balancing and nesting limits), [`parser`] (chumsky). Each returns what it
//! could build together with every [`Diagnostic`] it found; none stops at the
//! first problem, and none panics on any input.

#![warn(missing_docs)]

pub mod ast;
pub mod delimiters;
pub mod diagnostic;
pub mod lexer;
pub mod parser;
pub mod span;
pub mod stdlib;
pub mod token;
pub mod types;

pub use diagnostic::{Code, Diagnostic, Label, Severity};
pub use parser::{Parsed, parse};
pub use span::{LineIndex, Position, Span};
