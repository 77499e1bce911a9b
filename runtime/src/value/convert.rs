//! Typed conversions between Writ values and Rust values: [`FromValue`]
//! reads a value as a Rust type, [`IntoValue`] makes one from a Rust
//! value. A host's capabilities use them for their arguments and results
//! (`writ_host::engine::Args::get`).
//!
//! Invariant: a conversion that does not apply is an error naming the
//! type expected and the kind of value found ([`FromValueError`]), never
//! a default value and never a panic.

use std::fmt;

use super::Value;

/// A Rust type a Writ value converts to.
pub trait FromValue: Sized {
    /// The Writ type, as a message names it (`an Int`).
    const NAME: &'static str;

    /// The conversion, or why it does not apply.
    fn from_value(v: &Value) -> Result<Self, FromValueError>;
}

/// A value that is not of the type asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FromValueError {
    /// The Writ type asked for, as [`FromValue::NAME`] names it.
    pub expected: &'static str,
    /// What the value is, as [`Value::describe`] names it.
    pub found: &'static str,
}

impl FromValueError {
    /// `v` is not a `T`.
    pub fn new<T: FromValue>(v: &Value) -> FromValueError {
        FromValueError {
            expected: T::NAME,
            found: v.describe(),
        }
    }
}

impl fmt::Display for FromValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "expected {}, found {}", self.expected, self.found)
    }
}

impl std::error::Error for FromValueError {}

/// A conversion through one of [`Value`]'s accessors.
fn read<T: FromValue>(v: &Value, get: impl Fn(&Value) -> Option<T>) -> Result<T, FromValueError> {
    get(v).ok_or_else(|| FromValueError::new::<T>(v))
}

impl FromValue for i64 {
    const NAME: &'static str = "an Int";
    fn from_value(v: &Value) -> Result<Self, FromValueError> {
        read(v, Value::as_int)
    }
}

impl FromValue for f64 {
    const NAME: &'static str = "a Float";
    fn from_value(v: &Value) -> Result<Self, FromValueError> {
        read(v, Value::as_float)
    }
}

impl FromValue for bool {
    const NAME: &'static str = "a Bool";
    fn from_value(v: &Value) -> Result<Self, FromValueError> {
        read(v, Value::as_bool)
    }
}

impl FromValue for String {
    const NAME: &'static str = "a Str";
    fn from_value(v: &Value) -> Result<Self, FromValueError> {
        read(v, |v| v.as_str().map(str::to_string))
    }
}

impl FromValue for () {
    const NAME: &'static str = "()";
    fn from_value(v: &Value) -> Result<Self, FromValueError> {
        read(v, |v| v.is_unit().then_some(()))
    }
}

/// Any value, as it is (shared, not copied).
impl FromValue for Value {
    const NAME: &'static str = "a value";
    fn from_value(v: &Value) -> Result<Self, FromValueError> {
        Ok(v.clone())
    }
}

/// A Rust value that converts to a Writ value.
pub trait IntoValue {
    /// The conversion.
    fn into_value(self) -> Value;
}

impl IntoValue for i64 {
    fn into_value(self) -> Value {
        Value::int(self)
    }
}

impl IntoValue for f64 {
    fn into_value(self) -> Value {
        Value::float(self)
    }
}

impl IntoValue for bool {
    fn into_value(self) -> Value {
        Value::bool(self)
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
        Value::unit()
    }
}

impl IntoValue for Value {
    fn into_value(self) -> Value {
        self
    }
}

impl<T: IntoValue> IntoValue for Vec<T> {
    fn into_value(self) -> Value {
        Value::list(self.into_iter().map(IntoValue::into_value))
    }
}
