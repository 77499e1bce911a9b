//! The package's exceptions: one class per kind of failure, each carrying
//! its stable code (`E4005`), message, help and the text `writ` would
//! print; and the conversion of the host's errors into them.
//!
//! Hierarchy: `WritError` ⊃ `PolicyError`, `Rejected`, `AuditError`,
//! `RunError` ⊃ `LimitExceeded`, `Denied`, `NotApproved`, `SnapshotError`.
//! `Refuse` is not an error of Writ's: a capability's handler raises it to
//! deny an operation.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use writ::render::words::{Edge, run_error_in};
use writ_lang::{Code, Diagnostic};

use crate::diag::{PyDiagnostic, rendered};

create_exception!(
    writ,
    WritError,
    PyException,
    "Every error of Writ's: `code` is the stable diagnostic code, `message` says what was expected and what was found, `help` what to do, `rendered` the text `writ` prints."
);
create_exception!(
    writ,
    PolicyError,
    WritError,
    "The policy could not be read: `diagnostics` points into its text."
);
create_exception!(
    writ,
    Rejected,
    WritError,
    "The program did not check: `diagnostics` says why (nothing ran)."
);
create_exception!(
    writ,
    AuditError,
    WritError,
    "The audit log does not verify, or the store could not be read."
);
create_exception!(
    writ,
    RunError,
    WritError,
    "The run stopped with an error; `outcome` is what it did before (or None when nothing ran)."
);
create_exception!(
    writ,
    LimitExceeded,
    RunError,
    "A limit of the run was reached: `limit` names it (fuel, memory, depth, output, time, cancel)."
);
create_exception!(
    writ,
    Denied,
    RunError,
    "An operation was denied and its grant ends the run there (`on_deny = \"stop\"`, E4005)."
);
create_exception!(
    writ,
    NotApproved,
    RunError,
    "A run of an approved plan strayed from it (E4013) or the plan does not apply (E4014)."
);
create_exception!(
    writ,
    SnapshotError,
    RunError,
    "A paused run's bytes were refused (E4009): damaged, of another program, person or store, or resumed already."
);
create_exception!(
    writ,
    Refuse,
    PyException,
    "Raised by a capability's handler to deny the operation (audited), whatever the capability's `on_error` says: `Refuse(reason)`."
);

/// Set the attributes every `WritError` has.
fn with_fields(
    py: Python<'_>,
    err: PyErr,
    code: &str,
    message: &str,
    help: Option<&str>,
    rendered: &str,
) -> PyErr {
    let value = err.value(py);
    let _ = value.setattr("code", code);
    let _ = value.setattr("message", message);
    let _ = value.setattr("help", help);
    let _ = value.setattr("rendered", rendered);
    err
}

/// A policy's diagnostics as a `PolicyError`.
pub(crate) fn policy_error(py: Python<'_>, text: &str, path: &str, diags: &[Diagnostic]) -> PyErr {
    diagnostics_error(py, PolicyError::new_err, text, path, diags)
}

/// A program's diagnostics as `Rejected`.
pub(crate) fn rejected(py: Python<'_>, text: &str, diags: &[Diagnostic]) -> PyErr {
    diagnostics_error(py, Rejected::new_err, text, "<program>", diags)
}

fn diagnostics_error(
    py: Python<'_>,
    make: fn(String) -> PyErr,
    text: &str,
    path: &str,
    diags: &[Diagnostic],
) -> PyErr {
    let first = diags
        .iter()
        .find(|d| d.is_error())
        .or_else(|| diags.first());
    let (code, message, help) = match first {
        Some(d) => (d.code.as_str(), d.message.clone(), d.help.clone()),
        None => (Code::InternalError.as_str(), "rejected".to_string(), None),
    };
    let all = rendered(diags, path, text);
    let err = make(format!("[{code}] {message}"));
    let err = with_fields(py, err, code, &message, help.as_deref(), &all);
    let list: Vec<PyDiagnostic> = PyDiagnostic::all(diags, path, text);
    let _ = err.value(py).setattr("diagnostics", list);
    err
}

/// A run's error as the exception of its kind, with `outcome` (what the
/// run did before it stopped, or None).
pub(crate) fn run_error(
    py: Python<'_>,
    e: &writ_runtime::RunError,
    source: &str,
    outcome: Option<Py<PyAny>>,
) -> PyErr {
    let d = run_error_in(e, Edge::Embedded, source);
    let text = rendered(std::slice::from_ref(&d), "<program>", source);
    let msg = format!("[{}] {}", e.code.as_str(), e.message);
    let err = if e.is_limit() {
        LimitExceeded::new_err(msg)
    } else if e.code == Code::OperationDenied {
        Denied::new_err(msg)
    } else if matches!(e.code, Code::PlanDeviation | Code::PlanNotApplicable) {
        NotApproved::new_err(msg)
    } else if e.code == Code::SnapshotRefused {
        SnapshotError::new_err(msg)
    } else {
        RunError::new_err(msg)
    };
    let err = with_fields(
        py,
        err,
        e.code.as_str(),
        &e.message,
        d.help.as_deref(),
        &text,
    );
    let value = err.value(py);
    let _ = value.setattr("limit", e.limit.map(|l| l.name()));
    let _ = value.setattr("outcome", outcome);
    err
}

/// An error of the package's own (a store that cannot be read, say) with
/// a code. A `RunError` (of any kind) has its `outcome` and `limit`, both
/// None: nothing ran.
pub(crate) fn plain(py: Python<'_>, make: fn(String) -> PyErr, code: &str, message: &str) -> PyErr {
    plain_with_help(py, make, code, message, None)
}

/// [`plain`], with `help`.
pub(crate) fn plain_with_help(
    py: Python<'_>,
    make: fn(String) -> PyErr,
    code: &str,
    message: &str,
    help: Option<&str>,
) -> PyErr {
    let text = match help {
        Some(h) => format!("[{code}] Error: {message}\n  Help: {h}\n"),
        None => format!("[{code}] Error: {message}\n"),
    };
    let err = with_fields(
        py,
        make(format!("[{code}] {message}")),
        code,
        message,
        help,
        &text,
    );
    let value = err.value(py);
    if value.is_instance_of::<RunError>() {
        let _ = value.setattr("limit", py.None());
        let _ = value.setattr("outcome", py.None());
    }
    err
}

/// A store's location that no run could open (a `postgres://` URL that
/// holds a password, a URL of another scheme, a name SQLite gives a
/// meaning of its own), refused as a run refuses it: `RunError` `E4006`,
/// in the run's words. The reason never holds the password.
pub(crate) fn store_refused(py: Python<'_>, reason: &str) -> PyErr {
    plain_with_help(
        py,
        RunError::new_err,
        Code::HostUnavailable.as_str(),
        reason,
        Some("nothing was run: the host could not make the checks the policy asks for"),
    )
}

/// Register the exceptions in the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("WritError", py.get_type::<WritError>())?;
    m.add("PolicyError", py.get_type::<PolicyError>())?;
    m.add("Rejected", py.get_type::<Rejected>())?;
    m.add("AuditError", py.get_type::<AuditError>())?;
    m.add("RunError", py.get_type::<RunError>())?;
    m.add("LimitExceeded", py.get_type::<LimitExceeded>())?;
    m.add("Denied", py.get_type::<Denied>())?;
    m.add("NotApproved", py.get_type::<NotApproved>())?;
    m.add("SnapshotError", py.get_type::<SnapshotError>())?;
    m.add("Refuse", py.get_type::<Refuse>())?;
    Ok(())
}
