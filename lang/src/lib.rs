//! The Writ front end: source text → tokens → AST → types and effects.
//! Pure: this crate performs no I/O and knows nothing of the runtime.
//!
//! The stages, in order: [`lexer`] (logos), [`delimiters`] (bracket
//! balancing and nesting limits), [`parser`] (chumsky), [`types`] (names,
//! types, effects, the capability manifest); [`analyse`] runs them all.
//! Each returns what it
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

pub use diagnostic::{Code, Diagnostic, Hint, Label, Severity};
pub use parser::{Parsed, parse, parse_at};
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
