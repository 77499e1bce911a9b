//! Policies from Python: `writ.Policy.from_toml` and `Policy.from_file`.
//!
//! A policy may grant capabilities of the embedder's (`[grants.Weather]`)
//! that no engine is made for yet: their names are read from the text and
//! accepted here, and the `Engine` made with the policy reads it again
//! against its own capabilities (a grant of a capability it does not
//! provide is a `PolicyError` there).
//!
//! Invariants: a `Policy` is immutable; its file's directory, when read
//! from a file, is where its seed and recorded-responses paths resolve.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyString;
use writ_host::policy::{self, Policy};
use writ_lang::types::HOST_CAPABILITIES;
use writ_lang::{Code, Diagnostic};
use writ_runtime::limits::Limit;

use crate::diag::text_of;
use crate::errors::policy_error;

/// The most bytes of a policy's text, as the command line reads one.
const MAX_POLICY_BYTES: u64 = writ::MAX_SOURCE_BYTES;

/// What to do about a policy over [`MAX_POLICY_BYTES`] (the command
/// line's words).
const TOO_LARGE_HELP: &str = "a policy grants capabilities and sets limits in a few lines; data (records, responses) belongs in the files it names, such as `[store] seed`";

/// A person's policy: who they are (`principal`, `role`), what is granted
/// (`grants`), the run's `limits` and the store.
///
/// >>> import writ
/// >>> p = writ.Policy.from_toml('[principal]\nid = "ada"\nrole = "employee"\n\n[grants.Log]\n')
/// >>> p.principal, p.grants
/// ('ada', ['Log'])
#[pyclass(frozen, name = "Policy", module = "writ")]
pub(crate) struct PyPolicy {
    pub(crate) policy: Policy,
    /// Its text, read again by an engine with capabilities of its own.
    pub(crate) text: String,
    /// Its name in diagnostics (the file's path, or `<policy>`).
    pub(crate) path: String,
}

impl PyPolicy {
    fn parse(
        py: Python<'_>,
        text: String,
        path: String,
        dir: Option<PathBuf>,
    ) -> PyResult<PyPolicy> {
        let extra: Vec<String> = policy::granted_names(&text)
            .into_iter()
            .filter(|n| !HOST_CAPABILITIES.contains(&n.as_str()))
            .collect();
        let parsed = py.detach(|| policy::parse_with(&text, &extra));
        match parsed {
            Ok(mut policy) => {
                policy.dir = dir;
                Ok(PyPolicy { policy, text, path })
            }
            Err(diags) => Err(policy_error(py, &text, &path, &diags)),
        }
    }

    /// The policy read again against an engine's capabilities `names`.
    pub(crate) fn for_engine(&self, py: Python<'_>, names: &[String]) -> PyResult<Policy> {
        match policy::parse_with(&self.text, names) {
            Ok(mut p) => {
                p.dir.clone_from(&self.policy.dir);
                Ok(p)
            }
            Err(diags) => Err(policy_error(py, &self.text, &self.path, &diags)),
        }
    }
}

#[pymethods]
impl PyPolicy {
    /// Read a policy from its TOML text; relative paths in it (the store,
    /// seed, recorded responses) resolve against `base_dir` (default: the
    /// process's current directory, whenever a run uses them). Raises
    /// `PolicyError` with its diagnostics (`E9004` for text over 2 MiB,
    /// `E9003` for a str with no UTF-8 form); a leading byte-order mark is
    /// skipped, as the command line skips one.
    #[staticmethod]
    #[pyo3(signature = (text, *, base_dir=None))]
    fn from_toml(
        py: Python<'_>,
        text: Bound<'_, PyString>,
        base_dir: Option<PathBuf>,
    ) -> PyResult<PyPolicy> {
        let shown = "<policy>";
        let text = match text_of(&text)? {
            Ok(t) => t,
            Err(d) if d.code == Code::FileTooLarge => {
                let found = text.to_cow().map(|t| t.len()).unwrap_or_default();
                let d = Diagnostic::new(
                    Code::FileTooLarge,
                    format!(
                        "expected a policy of at most {MAX_POLICY_BYTES} bytes, found {found} bytes"
                    ),
                )
                .with_help(TOO_LARGE_HELP);
                return Err(policy_error(py, "", shown, &[d]));
            }
            Err(d) => return Err(policy_error(py, "", shown, &[d])),
        };
        PyPolicy::parse(py, text, shown.to_string(), base_dir)
    }

    /// Read a policy file; relative paths in it resolve against its
    /// directory. Raises `PolicyError` with its diagnostic: `E9001` for a
    /// file that cannot be read, `E9004` for one over 2 MiB, `E9003` for
    /// one not in UTF-8 (a leading byte-order mark is skipped).
    #[staticmethod]
    fn from_file(py: Python<'_>, path: PathBuf) -> PyResult<PyPolicy> {
        let shown = path.display().to_string();
        // At most 2 MiB, as the command line reads a policy: a device or a
        // pipe named as the policy is read no further than one byte past.
        let read = std::fs::File::open(&path).and_then(|f| {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(
                &mut std::io::Read::take(f, MAX_POLICY_BYTES + 1),
                &mut bytes,
            )
            .map(|_| bytes)
        });
        let refused = |code: Code, message: String| {
            let d = Diagnostic::new(code, message);
            let d = if code == Code::FileTooLarge {
                d.with_help(TOO_LARGE_HELP)
            } else {
                d
            };
            policy_error(py, "", &shown, &[d])
        };
        let bytes = match read {
            Ok(bytes) if bytes.len() as u64 > MAX_POLICY_BYTES => {
                return Err(refused(
                    Code::FileTooLarge,
                    format!(
                        "expected a policy file of at most {MAX_POLICY_BYTES} bytes, found more in {shown}"
                    ),
                ));
            }
            Ok(bytes) => bytes,
            Err(e) => {
                return Err(refused(
                    Code::CannotReadFile,
                    format!("cannot read the policy file {shown}: {e}"),
                ));
            }
        };
        let text = match writ::source_text(&bytes) {
            Ok(t) => t.to_string(),
            Err(_) => {
                return Err(refused(
                    Code::NotUtf8,
                    format!("expected a policy file in UTF-8, found other bytes in {shown}"),
                ));
            }
        };
        let dir = path.parent().map(|p| {
            if p.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                p.to_path_buf()
            }
        });
        PyPolicy::parse(py, text, shown, dir)
    }

    /// The principal's id.
    #[getter]
    fn principal(&self) -> String {
        self.policy.principal.id.clone()
    }

    /// The principal's role.
    #[getter]
    fn role(&self) -> String {
        self.policy.principal.role.clone()
    }

    /// The capabilities granted, by name.
    #[getter]
    fn grants(&self) -> Vec<String> {
        self.policy.granted()
    }

    /// The run's limits, each in its unit (fuel in steps, memory and
    /// output in bytes, depth in calls, time in milliseconds).
    #[getter]
    fn limits(&self) -> std::collections::BTreeMap<&'static str, u64> {
        Limit::SETTABLE
            .iter()
            .map(|l| (l.name(), l.value_in(&self.policy.limits)))
            .collect()
    }

    /// The policy's text.
    #[getter]
    fn text(&self) -> String {
        self.text.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "Policy(principal={:?}, grants=[{}])",
            self.policy.principal.id,
            self.policy.granted().join(", ")
        )
    }
}
