//! Writ for Python: the native module `writ._writ`, which the package
//! `writ` re-exports (see docs/python.md).
//!
//! By concept: [`convert`] (Python data and JSON), [`diag`] (checking,
//! diagnostics), [`policy`], [`engine`] (engines, programs, runs, plans,
//! the audit log), [`caps`] (capabilities written in Python), [`pause`]
//! (runs the host drives), [`worker`] (where runs happen: the GIL
//! released, Ctrl-C watched), [`errors`] (the exceptions).
//!
//! Invariants: nothing here panics on anything a caller passes; no Writ
//! work is done with the GIL held; a program reaches Python only through
//! a capability its policy grants.

use pyo3::prelude::*;

mod caps;
mod convert;
mod diag;
mod engine;
mod errors;
mod interrupt;
mod pause;
mod policy;
mod worker;

#[pymodule]
fn _writ(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    worker::note_main(m.py());
    errors::register(m)?;
    m.add_class::<diag::PyLabel>()?;
    m.add_class::<diag::PyDiagnostic>()?;
    m.add_class::<diag::PySignature>()?;
    m.add_class::<diag::PyManifestEntry>()?;
    m.add_class::<diag::PyChecked>()?;
    m.add_class::<policy::PyPolicy>()?;
    m.add_class::<caps::PyCapability>()?;
    m.add_class::<engine::PyEngine>()?;
    m.add_class::<engine::PyProgram>()?;
    m.add_class::<engine::PyUsage>()?;
    m.add_class::<engine::PyOperation>()?;
    m.add_class::<engine::PyOutcome>()?;
    m.add_class::<engine::PyPlan>()?;
    m.add_class::<engine::PyAuditRecord>()?;
    m.add_class::<pause::PyPaused>()?;
    m.add_class::<pause::PyDone>()?;
    m.add_function(wrap_pyfunction!(diag::check, m)?)?;
    m.add_function(wrap_pyfunction!(diag::explain, m)?)?;
    m.add_function(wrap_pyfunction!(engine::primer, m)?)?;
    Ok(())
}
