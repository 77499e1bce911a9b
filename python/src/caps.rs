//! Capabilities written in Python: `writ.Capability(interface, handler)`
//! and the engine's handler that calls it.
//!
//! A program reaches Python only through an operation of a capability the
//! policy grants: the engine decides the operation first (scope, audit,
//! `on_deny`), then this handler converts the arguments to Python data
//! (the JSON mapping), calls the embedder's callable with the GIL held,
//! and converts its result to the operation's declared result type.
//!
//! Invariants: an exception in the callable, or a result of another type,
//! is `Fail` at the operation (`on_error="fail"`, the default) or a
//! denial (`on_error="deny"`); `writ.Refuse(reason)` is always a denial.
//! Nothing the callable does can carry out an operation the policy did not
//! allow: it is called only after the policy allowed this one.

use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyMapping, PyTuple};
use writ_host::engine::{Args, Handler, Refusal};

use crate::convert::{short_repr, to_json, to_py};
use crate::errors::Refuse;

/// What an exception in a capability's handler becomes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum OnError {
    /// `Fail` at the operation: the program may handle it.
    Fail,
    /// A denial, audited, handled as the grant's `on_deny` says.
    Deny,
}

/// A capability of the embedder's, in Python: its Writ interface (an
/// `effect` declaration), the handler that carries out its operations,
/// which of them are reads (`reads`; every other is an act, which a plan
/// asks the person to approve), and what an exception in the handler
/// becomes (`on_error`: `"fail"`, `Fail` at the operation, which the
/// program may handle; or `"deny"`, a denial, audited).
///
/// The handler is a callable `handler(operation, *args)`, a mapping
/// `{"operation": callable(*args)}`, or an object whose method named like
/// the operation is called with the arguments. Arguments and the result
/// are Python data in the JSON mapping (records are dicts).
///
/// >>> import writ
/// >>> weather = writ.Capability(
/// ...     "effect Weather {\n  fn high(city: Str) -> Int\n}\n",
/// ...     {"high": lambda city: 21 if city == "Lisbon" else 12},
/// ...     reads=["high"],
/// ... )
#[pyclass(frozen, name = "Capability", module = "writ")]
pub(crate) struct PyCapability {
    #[pyo3(get)]
    pub(crate) interface: String,
    pub(crate) handler: Py<PyAny>,
    #[pyo3(get)]
    pub(crate) reads: Vec<String>,
    pub(crate) on_error: OnError,
}

#[pymethods]
impl PyCapability {
    #[new]
    #[pyo3(signature = (interface, handler, *, reads=Vec::new(), on_error="fail"))]
    fn new(
        interface: String,
        handler: Py<PyAny>,
        reads: Vec<String>,
        on_error: &str,
    ) -> PyResult<PyCapability> {
        let on_error = match on_error {
            "fail" => OnError::Fail,
            "deny" => OnError::Deny,
            other => {
                return Err(PyValueError::new_err(format!(
                    "Capability: expected on_error to be \"fail\" or \"deny\", found {other:?}"
                )));
            }
        };
        Ok(PyCapability {
            interface,
            handler,
            reads,
            on_error,
        })
    }

    /// `"fail"` or `"deny"`.
    #[getter]
    fn on_error(&self) -> &'static str {
        match self.on_error {
            OnError::Fail => "fail",
            OnError::Deny => "deny",
        }
    }

    fn __repr__(&self) -> String {
        let first = self.interface.lines().next().unwrap_or_default();
        format!("Capability({first:?}, on_error={:?})", self.on_error())
    }
}

impl PyCapability {
    /// A capability from what `capabilities={...}` holds: a `Capability`,
    /// or a pair `(interface, handler)`.
    pub(crate) fn from_entry(
        name: &str,
        entry: &Bound<'_, PyAny>,
    ) -> PyResult<(String, Py<PyAny>, Vec<String>, OnError)> {
        if let Ok(c) = entry.cast::<PyCapability>() {
            let c = c.get();
            return Ok((
                c.interface.clone(),
                c.handler.clone_ref(entry.py()),
                c.reads.clone(),
                c.on_error,
            ));
        }
        if let Ok(t) = entry.cast::<PyTuple>()
            && t.len() == 2
        {
            let interface: String = t.get_item(0)?.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "capabilities[{name:?}]: expected (interface: str, handler), found a first item {}",
                    short_repr(&t.get_item(0).map(|x| x.into_any()).unwrap_or_else(|_| entry.clone()))
                ))
            })?;
            return Ok((
                interface,
                t.get_item(1)?.unbind(),
                Vec::new(),
                OnError::Fail,
            ));
        }
        Err(PyTypeError::new_err(format!(
            "capabilities[{name:?}]: expected a writ.Capability or a pair (interface, handler), found {}",
            short_repr(entry)
        )))
    }
}

/// The engine's handler for the Python capability `name`.
pub(crate) fn handler(name: String, callable: Py<PyAny>, on_error: OnError) -> Handler {
    let callable = Arc::new(callable);
    Arc::new(
        move |op: &str, args: &Args<'_>| -> Result<writ_runtime::Value, Refusal> {
            let args_json = args.json()?;
            let failed = |message: String| match on_error {
                OnError::Fail => Refusal::fail(message),
                OnError::Deny => Refusal::from(message),
            };
            let answer = Python::attach(|py| -> Result<serde_json::Value, Refusal> {
                let called = call(py, &callable, op, &args_json);
                match called {
                    Ok(result) => to_json(&result, &format!("the result of {name}.{op}"))
                        .map_err(|e| failed(e.value(py).to_string())),
                    Err(e) if !e.is_instance_of::<pyo3::exceptions::PyException>(py) => {
                        // Not an error of the handler's service (Ctrl-C's
                        // KeyboardInterrupt, SystemExit): the run stops as
                        // the operation returns, and the caller gets it.
                        let what = format!("{name}.{op} was interrupted");
                        crate::worker::stop_run(e);
                        Err(Refusal::fail(what))
                    }
                    Err(e) if e.is_instance_of::<Refuse>(py) => {
                        Err(Refusal::from(e.value(py).to_string()))
                    }
                    Err(e) => {
                        let kind = e
                            .get_type(py)
                            .name()
                            .map(|n| n.to_string())
                            .unwrap_or_else(|_| "Exception".to_string());
                        Err(failed(format!(
                            "{name}.{op} raised {kind}: {}",
                            e.value(py)
                        )))
                    }
                }
            })?;
            args.result_from_json(&answer).map_err(failed)
        },
    )
}

/// Call the handler for `op` with the arguments as Python data.
fn call<'py>(
    py: Python<'py>,
    handler: &Py<PyAny>,
    op: &str,
    args: &[serde_json::Value],
) -> PyResult<Bound<'py, PyAny>> {
    let values = args
        .iter()
        .map(|a| to_py(py, a))
        .collect::<PyResult<Vec<_>>>()?;
    let h = handler.bind(py);
    if let Ok(m) = h.cast::<PyMapping>() {
        let f = m.get_item(op)?;
        return f.call1(PyTuple::new(py, values)?);
    }
    if h.is_callable() {
        let mut all = vec![op.into_pyobject(py)?.into_any()];
        all.extend(values);
        return h.call1(PyTuple::new(py, all)?);
    }
    h.getattr(op)?.call1(PyTuple::new(py, values)?)
}
