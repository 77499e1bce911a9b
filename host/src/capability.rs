//! Capabilities an embedder writes in Rust: the interface (Writ source),
//! the handler, and its arguments, read with the runtime's typed
//! conversions ([`FromValue`], [`IntoValue`], re-exported here).

use std::fmt;
use std::sync::Arc;

use writ_lang::types::InputType;
pub use writ_runtime::{FromValue, IntoValue};
use writ_runtime::{Limits, Module, Value};

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
///
/// A refusal made with [`Refusal::fail`] is not a denial: the operation
/// was allowed (its audit record says so) but could not be carried out,
/// and the program sees `Fail` where it performed it, as for
/// [`crate::engine::Reply::Fail`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The reason, as the denial states it (or the `Fail`'s message).
    pub reason: String,
    /// `Fail` at the operation rather than a denial.
    pub fail: bool,
}

impl Refusal {
    /// The operation could not be carried out: `Fail(message)` where the
    /// program performed it (the program may handle it), not a denial.
    pub fn fail(message: impl Into<String>) -> Refusal {
        Refusal {
            reason: message.into(),
            fail: true,
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

impl From<String> for Refusal {
    fn from(reason: String) -> Refusal {
        Refusal {
            reason,
            fail: false,
        }
    }
}

impl From<&str> for Refusal {
    fn from(reason: &str) -> Refusal {
        Refusal {
            reason: reason.to_string(),
            fail: false,
        }
    }
}

impl From<ArgError> for Refusal {
    fn from(e: ArgError) -> Refusal {
        Refusal {
            reason: e.to_string(),
            fail: false,
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
    /// Each operation's result type as data, or why it is not data: read
    /// from the interface once, when the capability is added (shared, so
    /// that an operation carries its own at no cost).
    pub(crate) results: Vec<(String, ResultType)>,
}

/// An operation's declared result type as data, or why it is not data.
pub(crate) type ResultType = Arc<Result<InputType, String>>;

impl Capability {
    /// The result types of the operations `interface` declares for the
    /// effect `name` (each as data, or why it is not).
    pub(crate) fn results_of(name: &str, interface: &str) -> Vec<(String, ResultType)> {
        writ_lang::types::operation_results(interface, name)
            .into_iter()
            .map(|(op, ty)| (op, Arc::new(ty)))
            .collect()
    }

    /// The result type of its operation `op`.
    pub(crate) fn result_of(&self, op: &str) -> Option<ResultType> {
        self.results
            .iter()
            .find(|(o, _)| o == op)
            .map(|(_, t)| t.clone())
    }
}

/// The arguments of an operation, read with typed conversions, or as JSON
/// ([`Args::json`]); and the conversion of a JSON result to the
/// operation's result type ([`Args::result_from_json`]), for handlers
/// written in another language.
pub struct Args<'a> {
    values: &'a [Value],
    /// The program, its limits and the operation's declared result type,
    /// when the engine calls the handler (absent in [`Args::new`]).
    context: Option<Context<'a>>,
}

/// What the engine knows of an operation beside its arguments.
#[derive(Clone, Copy)]
struct Context<'a> {
    module: &'a Module,
    limits: &'a Limits,
    name: &'a str,
    result: Option<&'a Result<InputType, String>>,
}

impl<'a> Args<'a> {
    /// Arguments by themselves (no program around them: [`Args::json`]
    /// and [`Args::result_from_json`] are not available).
    pub fn new(values: &'a [Value]) -> Args<'a> {
        Args {
            values,
            context: None,
        }
    }

    /// The arguments of `name` (`Weather.high`) as the engine gives them.
    pub(crate) fn in_program(
        values: &'a [Value],
        module: &'a Module,
        limits: &'a Limits,
        name: &'a str,
        result: Option<&'a Result<InputType, String>>,
    ) -> Args<'a> {
        Args {
            values,
            context: Some(Context {
                module,
                limits,
                name,
                result,
            }),
        }
    }

    /// The arguments as values.
    pub fn values(&self) -> &'a [Value] {
        self.values
    }

    /// Argument `i` (from 0) as a Rust value; an error names what was
    /// expected and what was found.
    pub fn get<T: FromValue>(&self, i: usize) -> Result<T, ArgError> {
        let missing = ArgError {
            index: i,
            expected: T::NAME,
            found: None,
        };
        let v = self.values.get(i).ok_or(missing)?;
        T::from_value(v).map_err(|e| ArgError {
            index: i,
            expected: e.expected,
            found: Some(e.found),
        })
    }

    /// Every argument as JSON, in the mapping of [`writ_runtime::json`]
    /// (records as objects, variants as `{"tag": …}`, `Option` as the
    /// value or `null`), each no longer than the run's output limit (its
    /// `E5004` else). Arguments have passed the engine's size gate
    /// ([`crate::arguments`]) before a handler sees them.
    pub fn json(&self) -> Result<Vec<serde_json::Value>, Refusal> {
        let Some(c) = self.context else {
            return Err("the arguments are not in a program (Args::new)".into());
        };
        self.values
            .iter()
            .map(|v| {
                let text = v
                    .to_json(c.module, c.limits.output)
                    .map_err(|e| Refusal::from(format!("{}: {}", c.name, e.message)))?;
                serde_json::from_str(text.as_str())
                    .map_err(|e| Refusal::from(format!("{}: an argument as JSON: {e}", c.name)))
            })
            .collect()
    }

    /// A JSON value as the operation's result, converted to its declared
    /// type as a program's inputs are (decision 009), charged to the run's
    /// limits; an error names what was expected and what was found
    /// (`Weather.high: expected Int, found "warm"`).
    pub fn result_from_json(&self, json: &serde_json::Value) -> Result<Value, String> {
        let Some(c) = self.context else {
            return Err("the arguments are not in a program (Args::new)".to_string());
        };
        match c.result {
            Some(Ok(ty)) => {
                writ_runtime::inputs::value_from_json(c.module, c.name, json, ty, c.limits)
                    .map_err(|e| e.message)
            }
            Some(Err(why)) => Err(format!(
                "the result of {} is not data a handler can give as JSON ({why})",
                c.name
            )),
            None => Err(format!("{} is not in its capability's interface", c.name)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_argument_missing_or_of_another_type_names_what_was_expected_and_found() {
        let values = [Value::int(3)];
        let args = Args::new(&values);
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
                reason: "expected argument 2 to be a Bool, found none".into(),
                fail: false,
            })
        );
    }
}
