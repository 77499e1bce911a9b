//! The engine from Python: `writ.Engine` (a policy, a store, limits, the
//! embedder's capabilities), the programs it compiles (`Program`), what a
//! run did (`Outcome`, `Operation`, `Usage`), plans (`Plan`), the audit
//! log (`AuditRecord`) and the primer.
//!
//! Invariants: an `Engine` is immutable and may be used from any number
//! of threads at once; every check and run happens with the GIL released,
//! runs on a thread of their own ([`crate::worker`]) so that Ctrl-C
//! cancels them; a `Program` made by another engine is checked again
//! against this engine's policy before it runs (it could need a grant
//! this policy does not give).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use writ_host::engine::{self as host, Compiled, Outcome, Plan, ReadMode, RunOptions};
use writ_host::policy::Policy;
use writ_host::store::Store;
use writ_lang::types::InputDecl;

use crate::caps::{PyCapability, handler};
use crate::convert::{json_text_to_py, to_json, to_py};
use crate::diag::{
    PyChecked, PyManifestEntry, checked, input_decls, manifest, refused_text, text_of,
};
use crate::errors::{self, AuditError, NotApproved};
use crate::policy::PyPolicy;

/// What an engine holds, shared with its runs' threads.
pub(crate) struct Shared {
    pub(crate) engine: host::Engine,
    pub(crate) policy: Policy,
    pub(crate) store: String,
}

/// An engine: checks programs against a person's policy and runs them
/// with exactly the authority it grants, on the store (`store`, a SQLite
/// file: the audit log, the ledger, the records) the policy names or the
/// one given. `limits` overrides the policy's (`{"fuel": 10**6, "time":
/// "2s"}`); `capabilities` adds the embedder's own
/// (`{"Weather": writ.Capability(...)}`), which the policy must grant;
/// `confirm(question) -> bool` answers the person's confirmations
/// (without it, every confirmation is refused).
///
/// >>> import writ, tempfile, os
/// >>> policy = writ.Policy.from_toml('[principal]\nid = "ada"\nrole = "employee"\n\n[grants.Log]\n')
/// >>> engine = writ.Engine(policy, store=os.path.join(tempfile.mkdtemp(), "writ.db"))
/// >>> engine.run('Log.info("hi")\n6 * 7').value
/// 42
#[pyclass(frozen, name = "Engine", module = "writ")]
pub(crate) struct PyEngine {
    pub(crate) shared: Arc<Shared>,
    policy: Py<PyPolicy>,
    /// This engine's number, unique in the process (never reused, unlike
    /// an address): the programs it compiled carry it.
    id: u64,
}

/// The next engine's number.
static ENGINES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// A checked, compiled program: run it any number of times.
#[pyclass(frozen, name = "Program", module = "writ")]
pub(crate) struct PyProgram {
    pub(crate) compiled: Arc<Compiled>,
    /// The number of the engine that compiled it (whose policy it was
    /// checked against).
    pub(crate) engine: u64,
    #[pyo3(get)]
    pub(crate) source: String,
    pub(crate) decls: Vec<(String, String)>,
}

#[pymethods]
impl PyProgram {
    /// The SHA-256 of its text, as the audit log names it.
    #[getter]
    fn hash(&self) -> String {
        self.compiled.hash.clone()
    }

    /// The effects it may perform.
    #[getter]
    fn effects(&self) -> Vec<String> {
        self.compiled.effects.clone()
    }

    /// Each effect it may perform, with where.
    #[getter]
    fn manifest(&self) -> Vec<PyManifestEntry> {
        manifest(&self.compiled.manifest, &self.source)
    }

    /// Its inputs, each with its type.
    #[getter]
    fn inputs(&self) -> BTreeMap<String, String> {
        self.compiled
            .inputs
            .iter()
            .map(|i| (i.name.clone(), i.ty.to_string()))
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "Program(hash={:.12}…, effects=[{}])",
            self.compiled.hash,
            self.compiled.effects.join(", ")
        )
    }
}

/// What a run used of its limits: fuel (steps), peak memory (bytes),
/// time (milliseconds).
#[pyclass(frozen, get_all, name = "Usage", module = "writ")]
#[derive(Clone)]
pub(crate) struct PyUsage {
    fuel: u64,
    memory: usize,
    time_ms: f64,
}

#[pymethods]
impl PyUsage {
    fn __repr__(&self) -> String {
        format!(
            "Usage(fuel={}, memory={}, time_ms={:.3})",
            self.fuel, self.memory, self.time_ms
        )
    }
}

/// One host operation a run asked for, and what became of it.
#[pyclass(frozen, get_all, name = "Operation", module = "writ")]
#[derive(Clone)]
pub(crate) struct PyOperation {
    operation: String,
    arguments: String,
    decision: String,
    rule: String,
    audit_id: Option<i64>,
}

#[pymethods]
impl PyOperation {
    fn __repr__(&self) -> String {
        format!(
            "Operation({}({}) {}: {})",
            self.operation, self.arguments, self.decision, self.rule
        )
    }
}

/// The operations of a run, for Python.
pub(crate) fn operations(ops: &[host::Operation]) -> Vec<PyOperation> {
    ops.iter()
        .map(|o| PyOperation {
            operation: o.operation.clone(),
            arguments: o.arguments.clone(),
            decision: o.decision.as_str().to_string(),
            rule: o.rule.clone(),
            audit_id: o.audit_id,
        })
        .collect()
}

/// What a run did: its final `value` as Python data (None for `()`),
/// its `display` form as Writ shows it, the `output` lines of `Log.info`,
/// each host `operations` with its decision, the `audit_ids` it wrote,
/// its `usage`, whether `Http` answers were `recorded`, and, in a run of
/// an approved plan with `live=True`, the `changed_reads`.
#[pyclass(frozen, get_all, name = "Outcome", module = "writ")]
pub(crate) struct PyOutcome {
    value: Py<PyAny>,
    display: String,
    output: Vec<String>,
    operations: Vec<PyOperation>,
    audit_ids: Vec<i64>,
    usage: PyUsage,
    recorded: bool,
    changed_reads: Vec<String>,
}

#[pymethods]
impl PyOutcome {
    fn __repr__(&self) -> String {
        format!(
            "Outcome(display={:?}, output={:?})",
            self.display, self.output
        )
    }
}

/// An outcome for Python, or the exception its error makes (with what
/// the run did before, as `outcome`).
pub(crate) fn outcome(py: Python<'_>, o: Outcome, source: &str) -> PyResult<PyOutcome> {
    let usage = PyUsage {
        fuel: o.usage.fuel,
        memory: o.usage.memory_peak,
        time_ms: o.usage.time.as_secs_f64() * 1000.0,
    };
    // The value's JSON text is read as a whole, at any depth (serde_json
    // would refuse one nested deeper than 128): never None for a value.
    let (value, error) = match (&o.result, &o.value) {
        (Err(e), _) => (py.None(), Some(e.clone())),
        (Ok(_), Some(Err(e))) => (py.None(), Some(e.clone())),
        (Ok(_), Some(Ok(json))) => (json_text_to_py(py, json.as_str())?.unbind(), None),
        (Ok(_), None) => (py.None(), None),
    };
    let made = PyOutcome {
        value,
        display: o.result.clone().unwrap_or_default(),
        output: o.output,
        operations: operations(&o.operations),
        audit_ids: o.audit_ids,
        usage,
        recorded: o.recorded,
        changed_reads: o.changed_reads,
    };
    match error {
        None => Ok(made),
        Some(e) => {
            let obj = Py::new(py, made)?.into_any();
            Err(errors::run_error(py, &e, source, Some(obj)))
        }
    }
}

/// A plan of a run (`Engine.plan`): the `acts` it would carry out, each
/// with the policy's decision, the `reads` it made (performed, recorded),
/// its `log`, its `result`, and its `words`, what the person is shown.
/// Approve it by running it: `engine.run(program, approve=plan)`.
#[pyclass(frozen, name = "Plan", module = "writ")]
pub(crate) struct PyPlan {
    pub(crate) plan: Arc<Plan>,
    #[pyo3(get)]
    words: Vec<String>,
}

#[pymethods]
impl PyPlan {
    /// The plan as JSON text (the schema of docs/embedding.md), with its
    /// digest: what to show, store and give back to `run(approve=...)`.
    fn to_json(&self) -> String {
        serde_json::to_string_pretty(&self.plan.to_json()).unwrap_or_default()
    }

    /// A plan from its JSON text; one that was changed after it was made
    /// (its digests do not match) or is malformed is `NotApproved`
    /// (E4014). With `policy` (the `Policy` it was made under, or the
    /// `Engine` that made it, whose `limits` may differ from its policy's),
    /// its `words` are made too; a policy other than the plan's is
    /// `NotApproved` (E4014), as a run of it under that policy would be.
    #[staticmethod]
    #[pyo3(signature = (text, *, policy=None))]
    fn from_json(py: Python<'_>, text: &str, policy: Option<Bound<'_, PyAny>>) -> PyResult<PyPlan> {
        let under: Option<Policy> = match &policy {
            None => None,
            Some(p) if p.is_none() => None,
            Some(p) => {
                if let Ok(p) = p.cast::<PyPolicy>() {
                    Some(p.get().policy.clone())
                } else if let Ok(e) = p.cast::<PyEngine>() {
                    Some(e.get().shared.policy.clone())
                } else {
                    return Err(PyTypeError::new_err(format!(
                        "policy: expected a writ.Policy or a writ.Engine, found {}",
                        crate::convert::short_repr(p)
                    )));
                }
            }
        };
        let plan = plan_from_json(py, text)?;
        let words = match under {
            Some(p) if host::policy_digest(&p) != plan.policy => {
                return Err(errors::plain_with_help(
                    py,
                    NotApproved::new_err,
                    writ_lang::Code::PlanNotApplicable.as_str(),
                    "expected a plan made under this policy, found one made under another (or this one since changed)",
                    Some(
                        "give the policy the plan was made under (or the engine that made it, if it was made with limits of its own); nothing was run",
                    ),
                ));
            }
            Some(p) => plan.words(&p),
            None => Vec::new(),
        };
        Ok(PyPlan {
            plan: Arc::new(plan),
            words,
        })
    }

    /// The program's hash.
    #[getter]
    fn program(&self) -> String {
        self.plan.program.clone()
    }

    /// The person's id.
    #[getter]
    fn principal(&self) -> String {
        self.plan.principal.clone()
    }

    /// The acts, each a dict (operation, arguments, shown, decision, rule,
    /// digest).
    #[getter]
    fn acts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.part(py, "acts")
    }

    /// The reads, each a dict (operation, arguments, answer, digest).
    #[getter]
    fn reads<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.part(py, "reads")
    }

    /// The lines the planned run wrote.
    #[getter]
    fn log(&self) -> Vec<String> {
        self.plan.log.clone()
    }

    /// The planned run's result (its display form), or None if it ended
    /// with an error (see `error`).
    #[getter]
    fn result(&self) -> Option<String> {
        self.plan.result.as_ref().ok().cloned()
    }

    /// The planned run's error (`E4005: …`), or None.
    #[getter]
    fn error(&self) -> Option<String> {
        self.plan.result.as_ref().err().cloned()
    }

    fn __str__(&self) -> String {
        self.words.join("\n")
    }

    fn __repr__(&self) -> String {
        format!(
            "Plan(acts={}, reads={})",
            self.plan.acts.len(),
            self.plan.reads.len()
        )
    }
}

impl PyPlan {
    fn part<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        let doc = self.plan.to_json();
        match doc.get(key) {
            Some(j) => to_py(py, j),
            None => Ok(PyList::empty(py).into_any()),
        }
    }
}

fn plan_from_json(py: Python<'_>, text: &str) -> PyResult<Plan> {
    let bad = |why: String| {
        errors::plain(
            py,
            NotApproved::new_err,
            writ_lang::Code::PlanNotApplicable.as_str(),
            &format!("expected a plan as Engine.plan made it, but this one is not: {why}"),
        )
    };
    let doc: serde_json::Value =
        serde_json::from_str(text).map_err(|e| bad(format!("text that is not JSON ({e})")))?;
    Plan::from_json(&doc).map_err(bad)
}

/// One record of the audit log.
#[pyclass(frozen, get_all, name = "AuditRecord", module = "writ")]
pub(crate) struct PyAuditRecord {
    seq: i64,
    time_ms: i64,
    principal: String,
    program: String,
    operation: String,
    arguments: String,
    decision: String,
    rule: String,
    hash: String,
    prev_hash: String,
}

#[pymethods]
impl PyAuditRecord {
    /// The record as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("seq", self.seq)?;
        d.set_item("time_ms", self.time_ms)?;
        d.set_item("principal", &self.principal)?;
        d.set_item("program", &self.program)?;
        d.set_item("operation", &self.operation)?;
        d.set_item("arguments", &self.arguments)?;
        d.set_item("decision", &self.decision)?;
        d.set_item("rule", &self.rule)?;
        d.set_item("hash", &self.hash)?;
        d.set_item("prev_hash", &self.prev_hash)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "AuditRecord({} {} {}({}) {})",
            self.seq, self.principal, self.operation, self.arguments, self.decision
        )
    }
}

/// What a `program=` argument holds: a compiled program, or source text.
#[derive(FromPyObject)]
pub(crate) enum ProgramArg<'py> {
    Compiled(PyRef<'py, PyProgram>),
    Source(Bound<'py, PyString>),
}

impl PyEngine {
    fn id(&self) -> u64 {
        self.id
    }

    /// The program to run: this engine's, or compiled again here.
    pub(crate) fn program_of(
        &self,
        py: Python<'_>,
        program: ProgramArg<'_>,
    ) -> PyResult<(Arc<Compiled>, String)> {
        match program {
            ProgramArg::Compiled(p) if p.engine == self.id() => {
                Ok((p.compiled.clone(), p.source.clone()))
            }
            ProgramArg::Compiled(p) => {
                let again = self.compile_decls(py, &p.source, p.decls.clone())?;
                Ok((again.compiled, again.source))
            }
            ProgramArg::Source(text) => {
                let p = self.compile_text(py, &text, Vec::new())?;
                Ok((p.compiled, p.source))
            }
        }
    }

    /// Compile source text from Python, read as the command line reads
    /// a source file ([`crate::diag::text_of`]: `Rejected` with `E9004`
    /// or `E9003` when it cannot be).
    fn compile_text(
        &self,
        py: Python<'_>,
        source: &Bound<'_, PyString>,
        decls: Vec<(String, String)>,
    ) -> PyResult<PyProgram> {
        match text_of(source)? {
            Ok(text) => self.compile_decls(py, &text, decls),
            Err(refused) => Err(errors::rejected(py, "", &[refused])),
        }
    }

    fn compile_decls(
        &self,
        py: Python<'_>,
        source: &str,
        decls: Vec<(String, String)>,
    ) -> PyResult<PyProgram> {
        let inputs: Vec<InputDecl> = input_decls(Some(decls.clone()));
        let shared = &self.shared;
        let text = source.to_string();
        let result = py.detach(|| {
            shared
                .engine
                .check_with_inputs(&text, &shared.policy, &inputs)
        });
        match result {
            Ok(compiled) => Ok(PyProgram {
                compiled: Arc::new(compiled),
                engine: self.id(),
                source: text,
                decls,
            }),
            Err(diags) => Err(errors::rejected(py, source, &diags)),
        }
    }

    /// The options of a run on this engine's store.
    pub(crate) fn options(
        &self,
        inputs: Option<&Bound<'_, PyAny>>,
        cancel: &Arc<AtomicBool>,
    ) -> PyResult<RunOptions> {
        let mut map = serde_json::Map::new();
        if let Some(given) = inputs
            && !given.is_none()
        {
            let dict = given.cast::<PyDict>().map_err(|_| {
                PyTypeError::new_err("inputs: expected a dict of each input's name to its value")
            })?;
            for (k, v) in dict.iter() {
                let name: String = k
                    .extract()
                    .map_err(|_| PyTypeError::new_err("inputs: expected str keys"))?;
                let value = to_json(&v, &format!("input {name:?}"))?;
                map.insert(name, value);
            }
        }
        Ok(RunOptions {
            store: Some(self.shared.store.clone()),
            inputs: map,
            cancel: Some(cancel.clone()),
            ..RunOptions::default()
        })
    }

    /// Start a run that pauses where `pause_at` says (or restore one from
    /// `snapshot`), on a thread of its own.
    fn paused_run(
        &self,
        py: Python<'_>,
        program: ProgramArg<'_>,
        inputs: Option<&Bound<'_, PyAny>>,
        pause_at: Option<host::PauseAt>,
        snapshot: Option<Vec<u8>>,
    ) -> PyResult<Py<PyAny>> {
        let (compiled, source) = self.program_of(py, program)?;
        // A paused run's own flag: its waits watch for Ctrl-C.
        let cancel = Arc::new(AtomicBool::new(false));
        let mut options = self.options(inputs, &cancel)?;
        if let Some(at) = pause_at {
            options.pause_at = at;
        }
        let shared = self.shared.clone();
        crate::pause::start(py, shared, compiled, source, options, cancel, snapshot)
    }

    /// Open the store, which must exist already, and do `f` with it, the
    /// GIL released. A store that does not exist (no run made it yet, or
    /// a mistyped path) is an `AuditError`, never an empty log, and is not
    /// created.
    fn with_store<R: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&Store) -> R + Send,
    ) -> PyResult<R> {
        let path = self.shared.store.clone();
        let policy = &self.shared.policy;
        let opened =
            py.detach(|| host::open_existing(policy, &path).map(|found| found.map(|s| f(&s))));
        match opened {
            Ok(Some(r)) => Ok(r),
            Ok(None) => Err(errors::plain(
                py,
                AuditError::new_err,
                writ_lang::Code::HostUnavailable.as_str(),
                &format!(
                    "there is no store at {path}: expected an existing store (a run creates one), found none; nothing was created"
                ),
            )),
            Err(e) => Err(errors::plain(
                py,
                AuditError::new_err,
                writ_lang::Code::HostUnavailable.as_str(),
                &format!("the store {path} could not be opened: {e}"),
            )),
        }
    }
}

/// A capability's interface must parse, declare the effect `name` (and
/// nothing the library or host declares already), and check: `Rejected`
/// with its diagnostics, or `ValueError`.
fn check_interface(py: Python<'_>, name: &str, interface: &str) -> PyResult<()> {
    if writ_lang::types::HOST_CAPABILITIES.contains(&name) || name == "Fail" {
        return Err(PyValueError::new_err(format!(
            "capabilities[{name:?}]: expected a name of your own, found the built-in capability {name}"
        )));
    }
    let parsed = writ_lang::parse_library(interface);
    if parsed.has_errors() {
        return Err(errors::rejected(py, interface, &parsed.diagnostics));
    }
    let declared: Vec<&str> = parsed
        .program
        .items
        .iter()
        .filter_map(|i| match i {
            writ_lang::ast::Item::Effect(e) => Some(e.name.name.as_str()),
            _ => None,
        })
        .collect();
    if declared != [name] {
        return Err(PyValueError::new_err(format!(
            "capabilities[{name:?}]: expected an interface declaring `effect {name}` and nothing else, found {}",
            if declared.is_empty() {
                "no effect".to_string()
            } else {
                format!("`effect {}`", declared.join("`, `effect "))
            }
        )));
    }
    let interfaces = [interface.to_string()];
    let checked = py.detach(|| {
        writ::check_source(
            "()\n",
            &writ::CheckOptions {
                interfaces: &interfaces,
                ..writ::CheckOptions::default()
            },
        )
    });
    if !checked.accepted() {
        return Err(errors::rejected(py, interface, &checked.diagnostics));
    }
    Ok(())
}

/// Apply `limits={...}` to a policy's limits: each a whole number in the
/// limit's unit (milliseconds for `time`, as `Policy.limits` gives them),
/// or a str as a policy writes it (`"64M"`, `"2s"`). A `bool` is refused,
/// though Python counts it an `int`.
fn apply_limits(policy: &mut Policy, limits: &Bound<'_, PyDict>) -> PyResult<()> {
    for (k, v) in limits.iter() {
        let name: String = k
            .extract()
            .map_err(|_| PyTypeError::new_err("limits: expected str keys"))?;
        let expected = || {
            format!(
                "limits[{name:?}]: expected a whole number ({}) or a str (\"64M\", \"2s\"), found {}",
                if name == "time" {
                    "milliseconds"
                } else {
                    "in the limit's unit"
                },
                crate::convert::short_repr(&v)
            )
        };
        let number = if v.cast::<pyo3::types::PyBool>().is_ok() {
            return Err(PyValueError::new_err(expected()));
        } else if let Ok(s) = v.cast::<pyo3::types::PyString>() {
            policy
                .limits
                .set(&name, &s.to_cow()?)
                .map_err(|e| PyValueError::new_err(format!("limits[{name:?}]: {e}")))?;
            continue;
        } else if let Ok(i) = v.cast::<pyo3::types::PyInt>() {
            i.extract::<u64>()
                .map_err(|_| PyValueError::new_err(expected()))?
        } else if let Ok(f) = v.cast::<pyo3::types::PyFloat>() {
            // A float that is a whole number (`1e6`) is that number.
            let x = f.value();
            if x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x < 18_446_744_073_709_551_616.0 {
                x as u64
            } else {
                return Err(PyValueError::new_err(expected()));
            }
        } else {
            return Err(PyTypeError::new_err(expected()));
        };
        // A number is in the limit's unit: milliseconds for `time`.
        let text = if name == "time" {
            format!("{number}ms")
        } else {
            number.to_string()
        };
        policy
            .limits
            .set(&name, &text)
            .map_err(|e| PyValueError::new_err(format!("limits[{name:?}]: {e}")))?;
    }
    Ok(())
}

#[pymethods]
impl PyEngine {
    #[new]
    #[pyo3(signature = (policy, *, store=None, limits=None, capabilities=None, confirm=None))]
    fn new(
        py: Python<'_>,
        policy: Py<PyPolicy>,
        store: Option<PathBuf>,
        limits: Option<Bound<'_, PyDict>>,
        capabilities: Option<Bound<'_, PyDict>>,
        confirm: Option<Py<PyAny>>,
    ) -> PyResult<PyEngine> {
        let mut engine = host::Engine::new();
        let mut reads: Vec<(String, Vec<String>)> = Vec::new();
        if let Some(caps) = capabilities {
            for (k, v) in caps.iter() {
                let name: String = k.extract().map_err(|_| {
                    PyTypeError::new_err("capabilities: expected str keys (the effects' names)")
                })?;
                let (interface, callable, r, on_error) = PyCapability::from_entry(&name, &v)?;
                check_interface(py, &name, &interface)?;
                engine = engine.with_capability(
                    &name,
                    &interface,
                    handler(name.clone(), callable, on_error),
                );
                reads.push((name, r));
            }
        }
        for (name, ops) in reads {
            if !ops.is_empty() {
                let ops: Vec<&str> = ops.iter().map(String::as_str).collect();
                engine = engine.with_reads(&name, &ops).map_err(|e| {
                    PyValueError::new_err(format!("capabilities[{name:?}].reads: {e}"))
                })?;
            }
        }
        if let Some(confirm) = confirm {
            if !confirm.bind(py).is_callable() {
                return Err(PyTypeError::new_err(format!(
                    "confirm: expected a callable (question: str) -> bool, found {}",
                    crate::convert::short_repr(confirm.bind(py))
                )));
            }
            let confirm = Arc::new(confirm);
            engine = engine.with_confirm(Arc::new(move |question: &str| {
                // Fail closed: an exception or an answer that is not a
                // bool is a no.
                Python::attach(|py| match confirm.bind(py).call1((question,)) {
                    Ok(answer) => answer.extract::<bool>().unwrap_or(false),
                    Err(e) => {
                        // Ctrl-C or SystemExit while the person was asked
                        // stop the run; any other error is a no.
                        if !e.is_instance_of::<pyo3::exceptions::PyException>(py) {
                            crate::worker::stop_run(e);
                        }
                        false
                    }
                })
            }));
        }
        let mut p = policy
            .borrow(py)
            .for_engine(py, &engine.capability_names())?;
        if let Some(limits) = limits {
            apply_limits(&mut p, &limits)?;
        }
        let store = match store {
            Some(s) => s.display().to_string(),
            None => host::store_path(&p, &RunOptions::default()),
        };
        // A location no run could open is refused now, as a run would
        // refuse it (E4006): a URL holding a password never reaches the
        // engine's `store`, its repr or a message.
        if let Err(e) = writ_host::store::Location::parse(&store) {
            return Err(errors::store_refused(py, &e.to_string()));
        }
        Ok(PyEngine {
            shared: Arc::new(Shared {
                engine,
                policy: p,
                store,
            }),
            policy,
            id: ENGINES.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        })
    }

    /// The policy the engine was made with.
    #[getter]
    fn policy(&self, py: Python<'_>) -> Py<PyPolicy> {
        self.policy.clone_ref(py)
    }

    /// The store's file.
    #[getter]
    fn store(&self) -> String {
        self.shared.store.clone()
    }

    /// Check a program against the policy's grants and this engine's
    /// capabilities, with `inputs` declared (`{"name": "Writ type"}`).
    #[pyo3(signature = (source, *, inputs=None))]
    fn check(
        &self,
        py: Python<'_>,
        source: Bound<'_, PyString>,
        inputs: Option<BTreeMap<String, String>>,
    ) -> PyResult<PyChecked> {
        let source = match text_of(&source)? {
            Ok(text) => text,
            Err(refused) => return Ok(refused_text(refused)),
        };
        let decls = input_decls(inputs.map(|m| m.into_iter().collect()));
        let shared = &self.shared;
        let c = py.detach(|| {
            let granted = shared.policy.granted();
            let interfaces: Vec<String> = shared
                .engine
                .capability_names()
                .iter()
                .filter_map(|n| shared.engine.capability_interface(n).map(str::to_string))
                .collect();
            let options = writ::CheckOptions {
                grants: Some(writ::Grants {
                    names: &granted,
                    by: writ::GrantedBy::Policy,
                }),
                interfaces: &interfaces,
                inputs: &decls,
            };
            writ::check_source(&source, &options)
        });
        Ok(checked(&c, &source))
    }

    /// Check and compile a program, with `inputs` declared (`{"request":
    /// "{ to: Str, budget_cents: Int }"}`); `Rejected` with its
    /// diagnostics if it does not check.
    #[pyo3(signature = (source, *, inputs=None))]
    fn compile(
        &self,
        py: Python<'_>,
        source: Bound<'_, PyString>,
        inputs: Option<BTreeMap<String, String>>,
    ) -> PyResult<PyProgram> {
        self.compile_text(
            py,
            &source,
            inputs.map(|m| m.into_iter().collect()).unwrap_or_default(),
        )
    }

    /// Run a program (compiled, or source text) to its end, with its
    /// `inputs`' values. With `approve` (a `Plan`, or its JSON text), run
    /// it as the person approved: only the plan's acts, in order, each
    /// once, its reads answered from the plan (`live=True`: performed
    /// again, changes noted in `changed_reads`). `on_log(line)` is called
    /// for each `Log.info` line as it is written. Raises `RunError` (or
    /// the subclass of its kind) when the run stops with an error.
    #[pyo3(signature = (program, *, inputs=None, approve=None, live=false, on_log=None))]
    fn run(
        &self,
        py: Python<'_>,
        program: ProgramArg<'_>,
        inputs: Option<Bound<'_, PyAny>>,
        approve: Option<Bound<'_, PyAny>>,
        live: bool,
        on_log: Option<Py<PyAny>>,
    ) -> PyResult<PyOutcome> {
        let (compiled, source) = self.program_of(py, program)?;
        let cancel = crate::worker::cancel_flag();
        let mut options = self.options(inputs.as_ref(), &cancel)?;
        if let Some(a) = approve
            && !a.is_none()
        {
            let plan = if let Ok(p) = a.cast::<PyPlan>() {
                p.get().plan.clone()
            } else if let Ok(text) = a.extract::<String>() {
                Arc::new(plan_from_json(py, &text)?)
            } else {
                return Err(PyTypeError::new_err(
                    "approve: expected a writ.Plan or its JSON text",
                ));
            };
            options.approved = Some(plan);
            if live {
                options.reads = ReadMode::Record;
            }
        }
        let shared = self.shared.clone();
        let result = crate::worker::run(py, cancel, move || {
            let mut log = |line: &str| {
                if let Some(f) = &on_log {
                    Python::attach(|py| {
                        // A sink that raises stops the run: its output is
                        // not lost without the caller knowing.
                        if let Err(e) = f.bind(py).call1((line,)) {
                            crate::worker::stop_run(e);
                        }
                    });
                }
            };
            let ran = shared
                .engine
                .run(&compiled, &shared.policy, &options, &mut log);
            // The program goes back with the result, to be dropped on the
            // caller's thread, where it was made (memory freed where it
            // was allocated is reused sooner).
            (ran, compiled, on_log)
        })?;
        let (result, compiled, on_log) = result;
        drop((compiled, on_log));
        match result {
            Ok(o) => outcome(py, o, &source),
            Err(e) => Err(errors::run_error(py, &e, &source, None)),
        }
    }

    /// Start a run that pauses at the operations of host capabilities
    /// (every one, or those `pause_at` names: `["Confirm", "Http.post"]`),
    /// handing each to you: a `Paused` run to `resume(value)`,
    /// `carry_out()`, `fail(message)`, `refuse(reason)` or `dump()`; or
    /// `Done` when it ends without pausing.
    #[pyo3(signature = (program, *, inputs=None, pause_at=None))]
    fn start(
        &self,
        py: Python<'_>,
        program: ProgramArg<'_>,
        inputs: Option<Bound<'_, PyAny>>,
        pause_at: Option<Vec<String>>,
    ) -> PyResult<Py<PyAny>> {
        self.paused_run(
            py,
            program,
            inputs.as_ref(),
            pause_at.map(host::PauseAt::Only),
            None,
        )
    }

    /// A paused run again from the bytes `Paused.dump()` made of it (in
    /// this process or another), with the same program, person and
    /// store: `Paused` at the same operation (decided again by the
    /// policy), or `Done`. It then pauses where the run was started to
    /// pause (`pause_at` of `start`, which the bytes hold, sealed), unless
    /// `pause_at` says otherwise. A snapshot resumes once; damaged bytes,
    /// or those of another program, person or store, are `SnapshotError`
    /// (E4009).
    #[pyo3(signature = (program, data, *, pause_at=None))]
    fn load(
        &self,
        py: Python<'_>,
        program: ProgramArg<'_>,
        data: Vec<u8>,
        pause_at: Option<Vec<String>>,
    ) -> PyResult<Py<PyAny>> {
        let at = match pause_at {
            Some(at) => host::PauseAt::Only(at),
            // Read before the bytes' seal is checked; the restore checks
            // it, and it covers where the run pauses.
            None => host::saved_pause_at(&data).map_err(|e| errors::run_error(py, &e, "", None))?,
        };
        self.paused_run(py, program, None, Some(at), Some(data))
    }

    /// Plan a run: its reads are performed (and recorded), its acts
    /// decided by the policy but not carried out. Show the plan's `words`
    /// to the person; run what they approve with `run(program,
    /// approve=plan)`.
    #[pyo3(signature = (program, *, inputs=None))]
    fn plan(
        &self,
        py: Python<'_>,
        program: ProgramArg<'_>,
        inputs: Option<Bound<'_, PyAny>>,
    ) -> PyResult<PyPlan> {
        let (compiled, source) = self.program_of(py, program)?;
        let cancel = crate::worker::cancel_flag();
        let options = self.options(inputs.as_ref(), &cancel)?;
        let shared = self.shared.clone();
        let planned = crate::worker::run(py, cancel, move || {
            let planned = shared
                .engine
                .plan(&compiled, &shared.policy, &options)
                .map(|plan| {
                    let words = plan.words(&shared.policy);
                    (plan, words)
                });
            (planned, compiled)
        })?;
        let (planned, compiled) = planned;
        drop(compiled);
        match planned {
            Ok((plan, words)) => Ok(PyPlan {
                plan: Arc::new(plan),
                words,
            }),
            Err(e) => Err(errors::run_error(py, &e, &source, None)),
        }
    }

    /// The primer (how to write Writ, for a model), then this engine's
    /// grants in words: what to put in a model's context.
    fn primer(&self, py: Python<'_>) -> String {
        let shared = &self.shared;
        py.detach(|| writ::primer::primer(&shared.engine, Some(&shared.policy)))
    }

    /// The audit log's records, oldest first (the `last` N of them).
    #[pyo3(signature = (last=None))]
    fn audit(&self, py: Python<'_>, last: Option<usize>) -> PyResult<Vec<PyAuditRecord>> {
        let records = self.with_store(py, |store| match last {
            Some(n) => store.last_records(n).map(|(r, _)| r),
            None => store.records(),
        })?;
        let records = records.map_err(|e| {
            errors::plain(
                py,
                AuditError::new_err,
                writ_lang::Code::HostUnavailable.as_str(),
                &format!("the audit log could not be read: {e}"),
            )
        })?;
        Ok(records
            .into_iter()
            .map(|r| PyAuditRecord {
                seq: r.seq,
                time_ms: r.time_ms,
                principal: r.principal,
                program: r.program,
                operation: r.operation,
                arguments: r.arguments,
                decision: r.decision,
                rule: r.rule,
                hash: r.hash,
                prev_hash: r.prev_hash,
            })
            .collect())
    }

    /// Verify the audit log: each record linked to the one before by its
    /// hash, and the ledger matching them. The number of records, or
    /// `AuditError` saying where the chain breaks.
    fn verify(&self, py: Python<'_>) -> PyResult<usize> {
        self.with_store(py, |store| store.verify())?.map_err(|e| {
            errors::plain(
                py,
                AuditError::new_err,
                writ_lang::Code::AuditBroken.as_str(),
                &format!("the audit log does not verify: {e}"),
            )
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "Engine(principal={:?}, grants=[{}], store={:?})",
            self.shared.policy.principal.id,
            self.shared.policy.granted().join(", "),
            self.shared.store
        )
    }
}

/// The primer, and with a policy its grants in words.
#[pyfunction]
#[pyo3(signature = (policy=None))]
pub(crate) fn primer(py: Python<'_>, policy: Option<PyRef<'_, PyPolicy>>) -> String {
    let engine = host::Engine::new();
    let p = policy.map(|p| p.policy.clone());
    py.detach(|| writ::primer::primer(&engine, p.as_ref()))
}
