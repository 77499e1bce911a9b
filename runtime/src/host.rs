//! The host API: how operations of host capabilities leave the machine.
//!
//! When an operation has no handler in the program, the machine hands it
//! to the [`Host`] with its arguments; the host decides and returns a
//! value, [`HostError::Fail`] (the machine performs `Fail.fail(reason)`
//! where the operation was, so the program's handlers see it), or
//! [`HostError::Stop`] (the run ends). [`LogHost`] grants only `Log`; the
//! policy-driven host is inside `writ_host::engine::Engine`. `Fail.fail`
//! with no handler never reaches the host: it ends the run with `E4003`.
//!
//! Invariants: a host that does not know an operation refuses it (an
//! error, never a default value): fail closed.

use writ_lang::Code;
use writ_lang::types::BuiltinEffect;

use crate::error::RunError;
use crate::value::{Repr, Value};

/// Why the host gives no value back for an operation.
#[derive(Debug)]
pub enum HostError {
    /// Raise `Fail.fail(message)` in the program where the operation was
    /// performed (a denial the policy lets the program handle).
    Fail(String),
    /// End the run with this error.
    Stop(RunError),
}

impl From<RunError> for HostError {
    fn from(e: RunError) -> Self {
        HostError::Stop(e)
    }
}

/// What runs host capabilities for a program.
pub trait Host {
    /// Perform `effect.op(args)`; the result goes back to the program.
    /// An operation that waits should wait no longer than the run's time
    /// left ([`crate::meter::deadline`]): as soon as it returns (with a
    /// value or `Fail`), a run past its time or cancelled meanwhile ends
    /// (`E5005`, `E5006`).
    fn perform(&mut self, effect: &str, op: &str, args: &[Value]) -> Result<Value, HostError>;
}

/// A host that grants only `Log`, writing each `Log.info` line to a sink.
pub struct LogHost<F: FnMut(&str)> {
    sink: F,
}

impl<F: FnMut(&str)> LogHost<F> {
    /// A host whose `Log.info(message)` calls `sink(message)`.
    pub fn new(sink: F) -> Self {
        LogHost { sink }
    }
}

impl<F: FnMut(&str)> Host for LogHost<F> {
    fn perform(&mut self, effect: &str, op: &str, args: &[Value]) -> Result<Value, HostError> {
        match (effect, op, args) {
            (effect, "info", [message]) if BuiltinEffect::Log.is(effect) => {
                (self.sink)(message.as_str().unwrap_or_default());
                Ok(Value(Repr::Unit))
            }
            _ => Err(HostError::Stop(RunError::new(
                Code::InternalError,
                format!("expected only granted operations to reach the host, found `{effect}.{op}`, which this host does not grant"),
            )
            .with_help("the run was stopped before the operation was carried out"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_host_logs_and_refuses_everything_else() {
        let mut lines = Vec::new();
        let mut host = LogHost::new(|l: &str| lines.push(l.to_string()));
        let ok = host.perform(BuiltinEffect::Log.name(), "info", &[Value::str("hi")]);
        assert!(matches!(ok, Ok(Value(Repr::Unit))));
        let refused = host.perform("Pay", "pay", &[]);
        let Err(HostError::Stop(refused)) = refused else {
            panic!("expected a refusal, found {refused:?}");
        };
        assert_eq!(refused.code, Code::InternalError);
        assert!(refused.message.contains("`Pay.pay`"), "{}", refused.message);
        assert_eq!(lines, ["hi"]);
    }
}
