//! Errors that end a run: run-time errors of the program (overflow,
//! division by zero, `Fail` reaching the top level), exhausted limits, and
//! internal errors (states a checked program cannot reach, reported
//! instead of crashing).
//!
//! Invariants: every error has a stable [`Code`]; its span, when it has
//! one, is in the program's text (an error inside standard-library code is
//! placed at the program's call into the library); its trace lists the
//! Writ functions active when it happened, innermost first.

use writ_lang::{Code, Diagnostic, LineIndex, Span};

use crate::limits::Limit;

/// One active call when an error happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceEntry {
    /// The function's name (`f`, `<lambda>`, `list.map`, `<top level>`).
    pub function: String,
    /// Where in the program it was executing, if in the program (library
    /// code has no span of its own).
    pub span: Option<Span>,
    /// How many consecutive frames were this same call (a recursion).
    pub times: usize,
}

/// Why a run stopped without a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunError {
    /// The stable code.
    pub code: Code,
    /// What happened, naming what was expected and what was found.
    pub message: String,
    /// Where, in the program's text.
    pub span: Option<Span>,
    /// The limit that was exhausted, for limit errors.
    pub limit: Option<Limit>,
    /// The Writ stack, innermost call first.
    pub trace: Vec<TraceEntry>,
    /// Advice, where some helps.
    pub help: Option<String>,
}

impl RunError {
    /// An error with a code and message, placed later by the machine.
    pub fn new(code: Code, message: impl Into<String>) -> RunError {
        RunError {
            code,
            message: message.into(),
            span: None,
            limit: None,
            trace: Vec::new(),
            help: None,
        }
    }

    /// The error of an exhausted limit, with the help every limit gives.
    pub fn limit(limit: Limit, message: impl Into<String>) -> RunError {
        let mut e = RunError::new(limit.code(), message);
        e.limit = Some(limit);
        e.help = Some(match limit {
            Limit::Cancelled => "the run was stopped from outside the program".to_string(),
            l => format!(
                "raise it with `--limit {}=...` if the program needs more",
                l.name()
            ),
        });
        e
    }

    /// The error of a run that ran past its time limit of `time` (the
    /// machine's, or a host operation's that waited until the run's time
    /// was up).
    pub fn out_of_time(time: std::time::Duration) -> RunError {
        RunError::limit(
            Limit::Time,
            format!(
                "expected the program to finish within {} ms, but it ran longer",
                time.as_millis()
            ),
        )
    }

    /// An internal error: a state no checked program reaches.
    pub fn internal(what: impl Into<String>) -> RunError {
        RunError::new(
            Code::InternalError,
            format!("internal error: {}", what.into()),
        )
        .with_help("this is a bug in Writ, not in the program; please report it with the program")
    }

    /// `Int` arithmetic whose result does not fit: `what` is the
    /// computation as written, such as `9223372036854775807 + 1`.
    pub fn overflow(what: &str) -> RunError {
        RunError::new(
            Code::IntegerOverflow,
            format!("expected a result that fits in Int, found {what}, which overflows"),
        )
        .with_help("Int is 64 bits; convert to Float with `math.to_float` for larger magnitudes")
    }

    /// Add advice.
    pub fn with_help(mut self, help: impl Into<String>) -> RunError {
        self.help = Some(help.into());
        self
    }

    /// Whether a limit ended the run (exit code 4) rather than an error of
    /// the program (exit code 3).
    pub fn is_limit(&self) -> bool {
        self.limit.is_some()
    }

    /// The error as a diagnostic against the program's text: the primary
    /// label at the span, and the stack trace as a note.
    pub fn to_diagnostic(&self, source: &str) -> Diagnostic {
        let mut d = Diagnostic::new(self.code, self.message.clone());
        if let Some(span) = self.span {
            let label = match self.limit {
                Some(Limit::Cancelled) => "the run was cancelled here".to_string(),
                Some(l) => format!("the {} limit was reached here", l.name()),
                None => "here".to_string(),
            };
            d = d.with_primary(span, label);
        }
        if self.trace.len() > 1 || self.trace.first().is_some_and(|t| t.times > 1) {
            let lines = LineIndex::new(source);
            let mut note = String::from("while running (innermost call first):");
            for t in &self.trace {
                note.push_str("\n  ");
                note.push_str(&t.function);
                if let Some(s) = t.span {
                    let p = lines.position(s.start);
                    note.push_str(&format!(" at {}:{}", p.line, p.column));
                }
                if t.times > 1 {
                    note.push_str(&format!(", {} times", t.times));
                }
            }
            d = d.with_note(note);
        }
        if let Some(h) = &self.help {
            d = d.with_help(h.clone());
        }
        d
    }
}
