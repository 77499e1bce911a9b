//! The Writ front end: source text → tokens → AST → types and effects.
//! Pure: this crate performs no I/O and knows nothing of the runtime.
//!
//! The stages, in order: the lexer (logos), the bracket balancer (nesting
//! limits), the parser (chumsky), and [`types`] (names, types, effects,
//! the capability manifest); [`analyse`] runs them all. Each returns what
//! it could build together with every [`Diagnostic`] it found; none stops
//! at the first problem, and none panics on any input.
//!
//! # The surface
//!
//! What this crate exports is what the runtime, the host, the command line
//! and embedders use, and nothing else:
//!
//! - parsing: [`parse`], [`parse_at`] (an input of a session) and
//!   [`parse_library`] (a standard-library file) give a [`Parsed`]: the
//!   [`ast`] and the syntax diagnostics; [`needs_more`], [`continues_above`] and [`is_blank`]
//!   say when a REPL's input is finished;
//! - checking: [`analyse`] (parse, then check) and [`types`]: the checking
//!   entry points, what they find ([`types::Typed`]: signatures, the
//!   manifest, the resolution lowering compiles from), the grants, and the
//!   checker's session that checks one input at a time;
//! - diagnostics and places: [`Diagnostic`] and its parts, [`Span`],
//!   [`LineIndex`];
//! - [`stdlib`]: the standard library's sources and its reference;
//! - [`is_deceptive`]: the characters source text may not hold, which the
//!   runtime and the host escape when they show text;
//! - `image` (hidden from these docs, and no stable interface): writing
//!   and reading the standard library's build-time images, for the
//!   runtime's lowered image (decision 014).
//!
//! Everything else (the lexer, the balancer, the grammar, and the
//! checker's machinery: inference, unification, the type arena, the
//! tables of declarations) is `pub(crate)`. The cargo feature `internals`
//! (off by default, and no stable interface) makes the lexer and its
//! tokens public, for the parse benchmark (`benches/parse.rs`).

#![warn(missing_docs)]
#![warn(unreachable_pub)]

pub mod ast;
mod delimiters;
mod diagnostic;
#[doc(hidden)]
pub mod image;
mod input;
#[cfg(feature = "internals")]
pub mod lexer;
#[cfg(not(feature = "internals"))]
#[allow(unreachable_pub)] // `pub` for `internals`
mod lexer;
mod parser;
mod span;
pub mod stdlib;
#[cfg(feature = "internals")]
pub mod token;
#[cfg(not(feature = "internals"))]
#[allow(unreachable_pub)] // `pub` for `internals`
mod token;
pub mod types;

pub use diagnostic::{Code, Diagnostic, Hint, Label, Severity, sort_and_dedup};
pub use input::{closes_unopened, continues_above, is_blank, needs_more};
pub use lexer::is_deceptive;
pub use parser::{Parsed, parse, parse_at, parse_library};
pub use span::{LineIndex, Position, Span};

/// A program's text, parsed and (if it parsed) checked.
#[derive(Debug)]
pub struct Analysis {
    /// The parsed program.
    pub program: ast::Program,
    /// What the checker found; `None` when the text did not parse.
    pub typed: Option<types::Typed>,
    /// Every diagnostic of both stages, sorted by position.
    pub diagnostics: Vec<Diagnostic>,
}

impl Analysis {
    /// Whether the program is accepted (it parsed, and no error was found).
    pub fn accepted(&self) -> bool {
        self.typed.is_some() && !self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Parse `text` and, if it parses, check it with `options` (see
/// [`types::check`]).
pub fn analyse(text: &str, options: &types::CheckOptions<'_>) -> Analysis {
    let parsed = parse(text);
    if parsed.has_errors() {
        return Analysis {
            program: parsed.program,
            typed: None,
            diagnostics: parsed.diagnostics,
        };
    }
    let typed = types::check(&parsed.program, options);
    let mut diagnostics = parsed.diagnostics;
    diagnostics.extend(typed.diagnostics.iter().cloned());
    diagnostic::sort_and_dedup(&mut diagnostics);
    Analysis {
        program: parsed.program,
        typed: Some(typed),
        diagnostics,
    }
}
