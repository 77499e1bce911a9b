//! Checking from Python: `writ.check` and what it gives (`Checked`,
//! `Diagnostic`, `Label`, `Signature`, `ManifestEntry`), each field as
//! `writ check --format json` shows it, and `rendered` as `writ check`
//! prints it (without colour).
//!
//! Invariants: the GIL is released while a program is checked; the
//! objects are immutable snapshots of what the checker found.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use writ::{CheckOptions, Grants, InputDecl, LineIndex};
use writ_lang::types::{GrantedBy, ManifestEntry, Signature};
use writ_lang::{Diagnostic, Severity};

use crate::policy::PyPolicy;

/// Diagnostics as `writ check` prints them, without colour.
pub(crate) fn rendered(diags: &[Diagnostic], path: &str, text: &str) -> String {
    writ::render::human(diags, path, text, false)
}

/// Text from Python (a program's, a policy's), read by the rules the
/// command line reads a file's bytes by ([`writ::source_text`]): at most
/// [`writ::MAX_SOURCE_BYTES`] (2 MiB, else `E9004`), a leading byte-order
/// mark skipped; a `str` that has no UTF-8 form (a lone surrogate, such
/// as `"\ud800"`) is text that is not UTF-8 (`E9003`). The text, or the
/// diagnostic that refuses it.
pub(crate) fn text_of(s: &Bound<'_, PyString>) -> PyResult<Result<String, Diagnostic>> {
    if let Ok(text) = s.to_cow() {
        return Ok(writ::source_text(text.as_bytes()).map(str::to_string));
    }
    // Its code points as UTF-8 would write them, surrogates included:
    // the shared reader then finds where the text stops being UTF-8.
    let bytes = s.call_method1("encode", ("utf-8", "surrogatepass"))?;
    let bytes = bytes.cast::<PyBytes>()?.as_bytes();
    Ok(match writ::source_text(bytes) {
        Ok(text) => Ok(text.to_string()),
        Err(d) if d.code == writ_lang::Code::NotUtf8 => Err(d.with_help(
            "a str holding a lone surrogate (such as '\\ud800') has no UTF-8 form: remove it, or decode the bytes the text came from with errors=\"replace\"",
        )),
        Err(d) => Err(d),
    })
}

/// What checking finds of text refused before it is read ([`text_of`]).
pub(crate) fn refused_text(d: Diagnostic) -> PyChecked {
    let c = writ::Checked {
        diagnostics: vec![d],
        signatures: Vec::new(),
        manifest: Vec::new(),
        inputs: Vec::new(),
    };
    checked(&c, "")
}

/// A place a diagnostic points at: lines and columns count from 1
/// (columns in characters).
#[pyclass(frozen, get_all, name = "Label", module = "writ")]
#[derive(Clone)]
pub(crate) struct PyLabel {
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    message: String,
    primary: bool,
}

#[pymethods]
impl PyLabel {
    fn __repr__(&self) -> String {
        format!(
            "Label({}:{}-{}:{}, {:?}{})",
            self.line,
            self.column,
            self.end_line,
            self.end_column,
            self.message,
            if self.primary { ", primary" } else { "" }
        )
    }
}

/// What the checker (or a policy's reader) found: a stable `code`, a
/// `severity` ("error" or "warning"), a `message` naming what was
/// expected and what was found, `labels` pointing into the text, `notes`,
/// `help`, and `rendered`, the text `writ check` prints.
///
/// >>> import writ
/// >>> d = writ.check("let x = 1 +\n").diagnostics[0]
/// >>> d.code, d.severity, d.line
/// ('E0100', 'error', 1)
#[pyclass(frozen, name = "Diagnostic", module = "writ")]
#[derive(Clone)]
pub(crate) struct PyDiagnostic {
    #[pyo3(get)]
    code: String,
    #[pyo3(get)]
    severity: String,
    #[pyo3(get)]
    message: String,
    #[pyo3(get)]
    labels: Vec<PyLabel>,
    #[pyo3(get)]
    notes: Vec<String>,
    #[pyo3(get)]
    help: Option<String>,
    #[pyo3(get)]
    rendered: String,
    #[pyo3(get)]
    line: usize,
    #[pyo3(get)]
    column: usize,
    /// The diagnostic as `writ check --format json` writes it.
    json: serde_json::Value,
}

impl PyDiagnostic {
    /// Each diagnostic about `text` (named `path` in the rendered text).
    pub(crate) fn all(diags: &[Diagnostic], path: &str, text: &str) -> Vec<PyDiagnostic> {
        let index = LineIndex::new(text);
        // Each as `writ check --format json` writes it (one index of the
        // text's lines for all of them).
        let mut json = match writ::render::json(diags, path, text) {
            serde_json::Value::Array(all) => all.into_iter(),
            _ => Vec::new().into_iter(),
        };
        diags
            .iter()
            .map(|d| {
                let labels: Vec<PyLabel> = d
                    .labels
                    .iter()
                    .map(|l| {
                        let r = l.span.within(text);
                        let (s, e) = (index.position(r.start), index.position(r.end));
                        PyLabel {
                            line: s.line,
                            column: s.column,
                            end_line: e.line,
                            end_column: e.column,
                            message: l.message.clone(),
                            primary: l.primary,
                        }
                    })
                    .collect();
                let at = labels
                    .iter()
                    .find(|l| l.primary)
                    .or(labels.first())
                    .map_or((0, 0), |l| (l.line, l.column));
                PyDiagnostic {
                    code: d.code.as_str().to_string(),
                    severity: match d.severity {
                        Severity::Error => "error",
                        Severity::Warning => "warning",
                    }
                    .to_string(),
                    message: d.message.clone(),
                    labels,
                    notes: d.notes.clone(),
                    help: d.help.clone(),
                    rendered: rendered(std::slice::from_ref(d), path, text),
                    line: at.0,
                    column: at.1,
                    json: json.next().unwrap_or_default(),
                }
            })
            .collect()
    }

    fn is_error(&self) -> bool {
        self.severity == "error"
    }
}

#[pymethods]
impl PyDiagnostic {
    /// The diagnostic as a dict, exactly as `writ check --format json`
    /// writes it: `code`, `severity`, `message`, `file` (`"<program>"`, or
    /// the policy's path), `labels` (each with `primary`, `message`, and
    /// `start` and `end`, each a `line`, `column` and byte `offset`),
    /// `notes` and `help`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::convert::to_py(py, &self.json)
    }

    fn __str__(&self) -> String {
        self.rendered.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "Diagnostic({} {} at {}:{}: {:?})",
            self.code, self.severity, self.line, self.column, self.message
        )
    }
}

/// A top-level function's inferred signature.
#[pyclass(frozen, get_all, name = "Signature", module = "writ")]
#[derive(Clone)]
pub(crate) struct PySignature {
    name: String,
    signature: String,
    line: usize,
}

#[pymethods]
impl PySignature {
    fn __repr__(&self) -> String {
        format!("Signature({:?})", self.signature)
    }
}

/// One effect a program may perform: whether it is a host capability
/// (granted by a policy), and each operation with its line.
#[pyclass(frozen, get_all, name = "ManifestEntry", module = "writ")]
#[derive(Clone)]
pub(crate) struct PyManifestEntry {
    effect: String,
    capability: bool,
    operations: Vec<String>,
    lines: Vec<usize>,
}

#[pymethods]
impl PyManifestEntry {
    fn __repr__(&self) -> String {
        format!(
            "ManifestEntry({}: {})",
            self.effect,
            self.operations.join(", ")
        )
    }
}

/// A manifest for Python.
pub(crate) fn manifest(entries: &[ManifestEntry], text: &str) -> Vec<PyManifestEntry> {
    let index = LineIndex::new(text);
    entries
        .iter()
        .map(|m| PyManifestEntry {
            effect: m.effect.clone(),
            capability: m.capability,
            operations: m
                .sites
                .iter()
                .map(|(op, _)| format!("{}.{op}", m.effect))
                .collect(),
            lines: m
                .sites
                .iter()
                .map(|(_, span)| index.position(span.start).line)
                .collect(),
        })
        .collect()
}

/// What checking a program found.
///
/// >>> import writ
/// >>> c = writ.check('Log.info("hi")\n', grants=["Log"])
/// >>> c.accepted, [m.effect for m in c.manifest]
/// (True, ['Log'])
#[pyclass(frozen, get_all, name = "Checked", module = "writ")]
pub(crate) struct PyChecked {
    accepted: bool,
    diagnostics: Vec<PyDiagnostic>,
    signatures: Vec<PySignature>,
    manifest: Vec<PyManifestEntry>,
    rendered: String,
}

#[pymethods]
impl PyChecked {
    /// The errors among the diagnostics.
    #[getter]
    fn errors(&self) -> Vec<PyDiagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| d.is_error())
            .cloned()
            .collect()
    }

    /// The warnings among the diagnostics.
    #[getter]
    fn warnings(&self) -> Vec<PyDiagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| !d.is_error())
            .cloned()
            .collect()
    }

    fn __bool__(&self) -> bool {
        self.accepted
    }

    fn __repr__(&self) -> String {
        format!(
            "Checked(accepted={}, diagnostics=[{}])",
            if self.accepted { "True" } else { "False" },
            self.diagnostics
                .iter()
                .map(|d| d.code.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// Make a `Checked` from what the checker found.
pub(crate) fn checked(c: &writ::Checked, text: &str) -> PyChecked {
    let index = LineIndex::new(text);
    PyChecked {
        accepted: c.accepted(),
        diagnostics: PyDiagnostic::all(&c.diagnostics, "<program>", text),
        signatures: c
            .signatures
            .iter()
            .map(|s: &Signature| PySignature {
                name: s.name.clone(),
                signature: s.signature.clone(),
                line: index.position(s.span.start).line,
            })
            .collect(),
        manifest: manifest(&c.manifest, text),
        rendered: rendered(&c.diagnostics, "<program>", text),
    }
}

/// Inputs as the checker takes them: `{name: "Writ type"}`.
pub(crate) fn input_decls(inputs: Option<Vec<(String, String)>>) -> Vec<InputDecl> {
    inputs
        .unwrap_or_default()
        .iter()
        .map(|(n, t)| InputDecl::new(n, t))
        .collect()
}

/// Check a program's source: parse it, resolve its names, infer its types
/// and effects. With `grants` (capability names) or a `policy` (its
/// grants and its embedder capabilities are not known here: check those
/// with `Engine.check`), a program that needs a capability outside them
/// is rejected (E3002). `inputs` declares the values a host will pass it
/// (`{"request": "{ to: Str, budget_cents: Int }"}`).
///
/// >>> import writ
/// >>> writ.check("1 +").accepted
/// False
/// >>> writ.check('Http.get("https://a.example")', grants=["Log"]).errors[0].code
/// 'E3002'
#[pyfunction]
#[pyo3(signature = (source, *, inputs=None, grants=None, policy=None))]
pub(crate) fn check(
    py: Python<'_>,
    source: Bound<'_, PyString>,
    inputs: Option<std::collections::BTreeMap<String, String>>,
    grants: Option<Vec<String>>,
    policy: Option<PyRef<'_, PyPolicy>>,
) -> PyResult<PyChecked> {
    if grants.is_some() && policy.is_some() {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "check: expected `grants` or `policy`, found both",
        ));
    }
    if let Some(unknown) = grants
        .iter()
        .flatten()
        .find(|g| !writ_lang::types::HOST_CAPABILITIES.contains(&g.as_str()))
    {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "check: expected grants of the host's capabilities ({}), found {unknown:?} (an engine's own capabilities are checked with Engine.check)",
            writ_lang::types::HOST_CAPABILITIES.join(", ")
        )));
    }
    let names: Option<(Vec<String>, GrantedBy)> = match (&grants, &policy) {
        (Some(g), _) => Some((g.clone(), GrantedBy::List)),
        (_, Some(p)) => Some((p.policy.granted(), GrantedBy::Policy)),
        _ => None,
    };
    let source = match text_of(&source)? {
        Ok(text) => text,
        Err(refused) => return Ok(refused_text(refused)),
    };
    let decls = input_decls(inputs.map(|m| m.into_iter().collect()));
    let c = py.detach(|| {
        let grants = names.as_ref().map(|(n, by)| Grants { names: n, by: *by });
        let options = CheckOptions {
            grants,
            inputs: &decls,
            ..CheckOptions::default()
        };
        writ::check_source(&source, &options)
    });
    Ok(checked(&c, &source))
}

/// The documentation of a diagnostic code (`"E3002"`), as `writ explain`
/// prints it; None for a string that is not a code.
#[pyfunction]
pub(crate) fn explain(code: &str) -> Option<String> {
    writ_lang::Code::parse(code).and_then(writ::explain::explain)
}
