//! Errors that end a run: run-time errors of the program (overflow,
//! division by zero, `Fail` reaching the top level), exhausted limits, and
//! internal errors (states a checked program cannot reach, reported
//! instead of crashing).
//!
//! Errors are data: what happened, where, the Writ stack, and which limit
//! was exhausted with its value. How they read to a person (the trace as
//! text, how to raise a limit where the program ran) is the edge's to say:
//! the `writ` package's `render::words`.
//!
//! Invariants: every error has a stable [`Code`]; its span, when it has
//! one, is in the program's text (an error inside standard-library code is
//! placed at the program's call into the library); its trace lists the
//! Writ functions active when it happened, innermost first; a limit error
//! names its limit and, but for a cancellation, the limit's value.

use writ_lang::{Code, Span};

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
    /// The exhausted limit's value in the run, in its own unit (steps,
    /// bytes, calls, milliseconds; see [`Limit::value_in`]); `None` for a
    /// cancellation and for errors that are not a limit's.
    pub limit_value: Option<u64>,
    /// The Writ stack, innermost call first.
    pub trace: Vec<TraceEntry>,
    /// Advice that holds wherever the program runs, where some helps. How
    /// to raise an exhausted limit is not in it: that depends on where the
    /// limit was set, and the edge says it from [`Self::limit`].
    pub help: Option<String>,
    /// A grant's denial of an operation under `on_deny = "stop"`, which
    /// `on_deny = "fail"` would have made a `Fail.fail` the program can
    /// handle (see [`RunError::denied`]).
    pub stopped_by_grant: bool,
}

impl RunError {
    /// An error with a code and message, placed later by the machine.
    pub fn new(code: Code, message: impl Into<String>) -> RunError {
        RunError {
            code,
            message: message.into(),
            span: None,
            limit: None,
            limit_value: None,
            trace: Vec::new(),
            help: None,
            stopped_by_grant: false,
        }
    }

    /// A grant's denial of an operation, which ends the run because the
    /// grant says `on_deny = "stop"` (`E4005`). When the program handles
    /// `Fail` where the operation was, the machine adds to the help that
    /// `on_deny = "fail"` would have let that handler recover.
    pub fn denied(message: impl Into<String>, help: impl Into<String>) -> RunError {
        let mut e = RunError::new(Code::OperationDenied, message).with_help(help);
        e.stopped_by_grant = true;
        e
    }

    /// The error of an exhausted limit whose value was `value` (in the
    /// limit's unit; ignored for [`Limit::Cancelled`]).
    pub fn limit(limit: Limit, value: u64, message: impl Into<String>) -> RunError {
        let mut e = RunError::new(limit.code(), message);
        e.limit = Some(limit);
        if limit == Limit::Cancelled {
            e.help = Some("the run was stopped from outside the program".to_string());
        } else {
            e.limit_value = Some(value);
        }
        e
    }

    /// The error of a run that ran past its time limit of `time` (the
    /// machine's, or a host operation's that waited until the run's time
    /// was up).
    pub fn out_of_time(time: std::time::Duration) -> RunError {
        RunError::limit(
            Limit::Time,
            u64::try_from(time.as_millis()).unwrap_or(u64::MAX),
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
}
