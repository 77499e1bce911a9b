//! Capabilities an embedder writes in Rust: the interface (Writ source),
//! the handler, and the typed conversions between Writ values and Rust
//! values that handlers use.

use std::sync::Arc;

use writ_runtime::Value;

/// A host capability's handler: given the operation's name and arguments,
/// the result, or why it was refused (a refusal is audited and handled by
/// the grant's `on_deny`, like a scope denial).
///
/// It runs on the run's thread, as the embedder's own code, which the host
/// cannot interrupt: a handler that waits (on the network, on a person)
/// should wait no longer than the run's time left,
/// [`writ_runtime::meter::time_left`]. The run's time limit and
/// cancellation are checked again when it returns.
pub type Handler = Arc<dyn Fn(&str, &Args<'_>) -> Result<Value, String> + Send + Sync>;

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
}

/// The arguments of an operation, read with typed conversions.
pub struct Args<'a>(pub &'a [Value]);

impl Args<'_> {
    /// Argument `i` as a Rust value; an error names what was expected.
    pub fn get<T: FromValue>(&self, i: usize) -> Result<T, String> {
        self.0
            .get(i)
            .and_then(T::from_value)
            .ok_or_else(|| format!("expected argument {} to be {}", i + 1, T::NAME))
    }
}

/// A Rust type a Writ value converts to.
pub trait FromValue: Sized {
    /// The Writ type, for messages.
    const NAME: &'static str;
    /// The conversion, if the value has this type.
    fn from_value(v: &Value) -> Option<Self>;
}

impl FromValue for i64 {
    const NAME: &'static str = "an Int";
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Int(n) => Some(*n),
            _ => None,
        }
    }
}

impl FromValue for f64 {
    const NAME: &'static str = "a Float";
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Float(x) => Some(*x),
            _ => None,
        }
    }
}

impl FromValue for bool {
    const NAME: &'static str = "a Bool";
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }
}

impl FromValue for String {
    const NAME: &'static str = "a Str";
    fn from_value(v: &Value) -> Option<Self> {
        v.as_str().map(str::to_string)
    }
}

/// A Rust value that converts to a Writ value.
pub trait IntoValue {
    /// The conversion.
    fn into_value(self) -> Value;
}

impl IntoValue for i64 {
    fn into_value(self) -> Value {
        Value::Int(self)
    }
}

impl IntoValue for f64 {
    fn into_value(self) -> Value {
        Value::Float(self)
    }
}

impl IntoValue for bool {
    fn into_value(self) -> Value {
        Value::Bool(self)
    }
}

impl IntoValue for String {
    fn into_value(self) -> Value {
        Value::str(self)
    }
}

impl IntoValue for &str {
    fn into_value(self) -> Value {
        Value::str(self)
    }
}

impl IntoValue for () {
    fn into_value(self) -> Value {
        Value::Unit
    }
}

impl<T: IntoValue> IntoValue for Vec<T> {
    fn into_value(self) -> Value {
        Value::list(self.into_iter().map(IntoValue::into_value).collect())
    }
}
