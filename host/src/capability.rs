//! Capabilities an embedder writes in Rust: the interface (Writ source),
//! the handler, and its arguments, read with the runtime's typed
//! conversions ([`FromValue`], [`IntoValue`], re-exported here).

use std::fmt;
use std::sync::Arc;

use writ_runtime::Value;
pub use writ_runtime::{FromValue, IntoValue};

/// A host capability's handler: given the operation's name and arguments,
/// the result, or why it was refused (a refusal is audited and handled by
/// the grant's `on_deny`, like a scope denial).
///
/// It runs on the run's thread, as the embedder's own code, which the host
/// cannot interrupt: a handler that waits (on the network, on a person)
/// should wait no longer than the run's time left,
/// [`writ_runtime::meter::deadline`]`()?.left()`. The run's time limit and
/// cancellation are checked again when it returns.
pub type Handler = Arc<dyn Fn(&str, &Args<'_>) -> Result<Value, Refusal> + Send + Sync>;

/// Why a handler refused an operation, in the embedder's words: the rule
/// of its denial and audit record. Made from a string
/// (`Err("no forecast".into())`) or from an [`ArgError`] (`args.get(0)?`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The reason, as the denial states it.
    pub reason: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

impl From<String> for Refusal {
    fn from(reason: String) -> Refusal {
        Refusal { reason }
    }
}

impl From<&str> for Refusal {
    fn from(reason: &str) -> Refusal {
        Refusal {
            reason: reason.to_string(),
        }
    }
}

impl From<ArgError> for Refusal {
    fn from(e: ArgError) -> Refusal {
        Refusal {
            reason: e.to_string(),
        }
    }
}

/// An argument that is not there or not of the type asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgError {
    /// The argument's position, from 0.
    pub index: usize,
    /// The Writ type asked for, as [`FromValue::NAME`] says it.
    pub expected: &'static str,
    /// What the argument is, as [`writ_runtime::Value::describe`] says
    /// it; `None` if there is no such argument.
    pub found: Option<&'static str>,
}

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "expected argument {} to be {}, found {}",
            self.index.saturating_add(1),
            self.expected,
            self.found.unwrap_or("none")
        )
    }
}

impl std::error::Error for ArgError {}

/// A capability an embedder provides: its interface in Writ and its
/// handler.
#[derive(Clone)]
pub struct Capability {
    /// The effect's name, as declared in `interface`.
    pub name: String,
    /// Writ source declaring the effect (`effect Weather { ... }`).
    pub interface: String,
    /// What carries out its operations.
    pub handler: Handler,
    /// Its operations that are reads (see [`writ_lang::types::OpKind`]):
    /// every other one is an act.
    pub reads: Vec<String>,
}

/// The arguments of an operation, read with typed conversions.
pub struct Args<'a>(pub &'a [Value]);

impl Args<'_> {
    /// Argument `i` (from 0) as a Rust value; an error names what was
    /// expected and what was found.
    pub fn get<T: FromValue>(&self, i: usize) -> Result<T, ArgError> {
        let missing = ArgError {
            index: i,
            expected: T::NAME,
            found: None,
        };
        let v = self.0.get(i).ok_or(missing)?;
        T::from_value(v).map_err(|e| ArgError {
            index: i,
            expected: e.expected,
            found: Some(e.found),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_argument_missing_or_of_another_type_names_what_was_expected_and_found() {
        let values = [Value::int(3)];
        let args = Args(&values);
        assert_eq!(args.get::<i64>(0), Ok(3));
        let wrong = args.get::<String>(0);
        assert_eq!(
            wrong,
            Err(ArgError {
                index: 0,
                expected: "a Str",
                found: Some("an Int"),
            })
        );
        assert_eq!(
            wrong.map_err(|e| e.to_string()),
            Err("expected argument 1 to be a Str, found an Int".to_string())
        );
        assert_eq!(
            args.get::<bool>(1).map_err(Refusal::from),
            Err(Refusal {
                reason: "expected argument 2 to be a Bool, found none".into()
            })
        );
    }
}
