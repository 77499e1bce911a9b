//! Checking and running a test's program: under its policy on a store of
//! the test's own (or planning it there), or, without a policy, as `writ
//! run` runs it.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use writ::render::words::Edge;
use writ::{Code, Diagnostic, RunError, render};
use writ_host::engine::{Decision, Engine, Operation, ReadMode, RunOptions};

use super::spec::{Case, End};

/// How a test's program ended.
pub(super) enum Ending {
    /// The checker rejected it (these diagnostics): it did not run.
    Rejected(Vec<Diagnostic>),
    /// It ran to its end: its value's display form (empty for `()`).
    Finished(String),
    /// A run-time error or a limit stopped it.
    Stopped(RunError),
}

impl Ending {
    /// The kind of ending, as a test names it.
    pub(super) fn end(&self) -> End {
        match self {
            Ending::Rejected(_) => End::Rejected,
            Ending::Finished(_) => End::Finished,
            Ending::Stopped(e) if e.is_limit() => End::Limit,
            Ending::Stopped(_) => End::Error,
        }
    }

    /// Its code: the first error's of a rejection, the error's of a stop.
    pub(super) fn code(&self) -> Option<Code> {
        match self {
            Ending::Rejected(diags) => diags.iter().find(|d| d.is_error()).map(|d| d.code),
            Ending::Finished(_) => None,
            Ending::Stopped(e) => Some(e.code),
        }
    }

    /// Whether it ended with `code` (any of a rejection's).
    pub(super) fn has(&self, code: Code) -> bool {
        match self {
            Ending::Rejected(diags) => diags.iter().any(|d| d.code == code),
            Ending::Finished(_) => false,
            Ending::Stopped(e) => e.code == code,
        }
    }
}

/// What one run did, whichever way it ran.
pub(super) struct Ran {
    pub(super) ending: Ending,
    /// Its `Log` lines.
    pub(super) log: Vec<String>,
    /// The host operations it asked for (a plan's acts, for a plan).
    pub(super) operations: Vec<Operation>,
    /// The fuel it spent (0 for a plan, which does not say).
    pub(super) fuel: u64,
    /// The audit records it wrote.
    pub(super) audit_ids: Vec<i64>,
}

impl Ran {
    /// A program that did not get as far as a host operation.
    fn ended(ending: Ending, log: Vec<String>, fuel: u64) -> Ran {
        Ran {
            ending,
            log,
            operations: Vec::new(),
            fuel,
            audit_ids: Vec::new(),
        }
    }
}

/// Check and run the case's program (whose text is `text`); `Err` says
/// what in the test is wrong (a file it names cannot be read, a malformed
/// limit, a store that cannot be opened).
pub(super) fn run_program(
    dir: &Path,
    case: &Case,
    limit: &[String],
    text: &str,
    store: &TempStore,
) -> Result<Ran, String> {
    let decls: Vec<writ::InputDecl> = case
        .input_types
        .iter()
        .map(|a| {
            crate::inputs_cli::declaration(a)
                .ok_or_else(|| format!("expected `NAME=TYPE` in `input_types`, found `{a}`"))
        })
        .collect::<Result<_, _>>()?;
    let values = match &case.inputs {
        None => serde_json::Map::new(),
        Some(f) => match json_file(dir, "inputs", f)? {
            serde_json::Value::Object(m) => m,
            _ => {
                return Err(format!(
                    "in `inputs = \"{f}\"`: expected a JSON object of the inputs' values by name"
                ));
            }
        },
    };
    let set_limits = |limits: &mut writ::Limits| -> Result<(), String> {
        for l in limit.iter().chain(&case.limits) {
            crate::set_limit(limits, l).map_err(|why| format!("in the limit `{l}`: {why}"))?;
        }
        Ok(())
    };
    let mut log = Vec::new();
    let Some(policy_file) = &case.policy else {
        let mut limits = writ::Limits::default();
        set_limits(&mut limits)?;
        let ran = writ::run_source_with_inputs(
            text,
            &decls,
            &values,
            &limits,
            &mut |l: &str| log.push(l.to_string()),
            None,
        );
        let ending = match ran.result {
            None => {
                let mut diags = ran.checked.diagnostics;
                render::words::reword(&mut diags, Edge::Cli);
                Ending::Rejected(diags)
            }
            Some(Ok(v)) => Ending::Finished(v),
            Some(Err(e)) => Ending::Stopped(e),
        };
        // Without a policy `Log` is granted as `writ run` grants it: each
        // line printed is an allowed `Log.info`, so that `allowed` and
        // `never` see it as they would under a policy.
        let operations = log
            .iter()
            .map(|line| Operation {
                operation: "Log.info".to_string(),
                arguments: writ_host::arguments::recorded(line),
                decision: Decision::Allowed,
                rule: "granted without a policy".to_string(),
                audit_id: None,
            })
            .collect();
        return Ok(Ran {
            operations,
            ..Ran::ended(ending, log, ran.usage.fuel)
        });
    };
    let mut policy = crate::read_policy(&dir.join(policy_file)).map_err(|(_, diags)| {
        format!(
            "in `policy = \"{policy_file}\"`: {}",
            diags.first().map_or(String::new(), |d| format!(
                "[{}] {}",
                d.code.as_str(),
                d.message
            ))
        )
    })?;
    policy.dir = dir.join(policy_file).parent().map(Path::to_path_buf);
    set_limits(&mut policy.limits)?;
    let reads = match &case.replay {
        None => ReadMode::Live,
        Some(f) => {
            let recording = writ_host::engine::Recording::from_json(&json_file(dir, "replay", f)?)
                .map_err(|why| format!("in `replay = \"{f}\"`: {why}"))?;
            ReadMode::Replay(Arc::new(recording))
        }
    };
    let confirm = case.confirm;
    let engine = Engine::new().with_confirm(Arc::new(move |_: &str| confirm));
    let program = match engine.check_with_inputs(text, &policy, &decls) {
        Ok(p) => p,
        Err(mut diags) => {
            render::words::reword(&mut diags, Edge::Policy(Some(policy_file)));
            return Ok(Ran::ended(Ending::Rejected(diags), log, 0));
        }
    };
    let options = RunOptions {
        store: Some(store.path.display().to_string()),
        inputs: values,
        reads,
        ..RunOptions::default()
    };
    let ran = if case.plan {
        // A plan says nothing of the audit records it wrote (its reads and
        // refusals, `for a plan`): they are the ones after the store's
        // last record before it.
        let before = last_record(store)?;
        let planned = engine.plan(&program, &policy, &options);
        let audit_ids = match planned {
            Ok(_) => records_after(store, before)?,
            Err(_) => Vec::new(),
        };
        planned.map(|plan| Ran {
            ending: match plan.result {
                Ok(v) => Ending::Finished(v),
                Err(words) => Ending::Stopped(planned_error(&words)),
            },
            log: plan.log,
            operations: plan
                .acts
                .into_iter()
                .map(|a| Operation {
                    operation: a.operation,
                    arguments: a.shown,
                    decision: a.decision,
                    rule: a.rule,
                    audit_id: None,
                })
                .collect(),
            fuel: 0,
            audit_ids,
        })
    } else {
        let mut log_line = |l: &str| log.push(l.to_string());
        engine
            .run(&program, &policy, &options, &mut log_line)
            .map(|outcome| Ran {
                ending: match outcome.result {
                    Ok(v) => Ending::Finished(v),
                    Err(e) => Ending::Stopped(e),
                },
                log: outcome.output,
                operations: outcome.operations,
                fuel: outcome.usage.fuel,
                audit_ids: outcome.audit_ids,
            })
    };
    match ran {
        Ok(ran) => Ok(ran),
        // The store could not be opened, so nothing ran: that is the
        // test's setting, not the program's doing.
        Err(e) if e.code == Code::HostUnavailable => Err(format!(
            "the test's store could not be used, so nothing ran: {}",
            e.message
        )),
        // Nothing ran either (a plan refused before its first step).
        Err(e) => Ok(Ran::ended(Ending::Stopped(e), log, 0)),
    }
}

/// The JSON value in the file `name` (relative to `dir`) that the test's
/// `key` names, or why it cannot be had.
fn json_file(dir: &Path, key: &str, name: &str) -> Result<serde_json::Value, String> {
    crate::inputs_cli::json_file(&dir.join(name), crate::inputs_cli::MAX_INPUTS_BYTES)
        .map_err(|why| format!("in `{key} = \"{name}\"`: {why}"))
}

/// The error a plan's run ended with, from its words (`E4005: ...`, as a
/// plan keeps it).
fn planned_error(words: &str) -> RunError {
    let (code, message) = words.split_once(": ").unwrap_or(("", words));
    let code = Code::parse(code).unwrap_or(Code::InternalError);
    let mut e = RunError::new(code, message);
    e.limit = writ::Limit::SETTABLE
        .into_iter()
        .chain([writ::Limit::Cancelled])
        .find(|l| l.code() == code);
    e
}

/// The audit records of a test's store that its file's runs wrote:
/// operation, arguments, decision.
pub(super) fn audit_records(store: &TempStore) -> Result<Vec<(String, String, String)>, String> {
    if !store.path.is_file() {
        return Ok(Vec::new());
    }
    let s = writ_host::store::Store::open(&store.path.display().to_string(), None)
        .map_err(|e| e.to_string())?;
    let records = s.records().map_err(|e| e.to_string())?;
    let written = store.written.borrow();
    Ok(records
        .into_iter()
        .filter(|r| written.contains(&r.seq))
        .map(|r| (r.operation, r.arguments, r.decision))
        .collect())
}

/// The sequence number of the store's last audit record (0 when it has
/// none, or no file yet).
fn last_record(store: &TempStore) -> Result<i64, String> {
    Ok(records_after(store, 0)?.into_iter().max().unwrap_or(0))
}

/// The sequence numbers of the store's audit records after `seq`.
fn records_after(store: &TempStore, seq: i64) -> Result<Vec<i64>, String> {
    if !store.path.is_file() {
        return Ok(Vec::new());
    }
    let s = writ_host::store::Store::open(&store.path.display().to_string(), None)
        .map_err(|e| format!("the test's store could not be read: {e}"))?;
    let records = s
        .records()
        .map_err(|e| format!("the test's store could not be read: {e}"))?;
    Ok(records
        .into_iter()
        .map(|r| r.seq)
        .filter(|n| *n > seq)
        .collect())
}

/// A store file in the temporary directory, removed when dropped.
pub(super) struct TempStore {
    path: PathBuf,
    /// The audit records the file's runs on it wrote: only these count
    /// for `audit` expectations (not rows a policy's seed put in).
    pub(super) written: RefCell<Vec<i64>>,
}

impl TempStore {
    /// A store of its own, empty: a file left by an earlier process of
    /// the same id is removed first.
    pub(super) fn new() -> TempStore {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("writ-test-{}-{n}.db", std::process::id()));
        let store = TempStore {
            path,
            written: RefCell::new(Vec::new()),
        };
        store.remove();
        store
    }

    fn remove(&self) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut p = self.path.clone().into_os_string();
            p.push(suffix);
            let _ = std::fs::remove_file(PathBuf::from(p));
        }
    }
}

impl Drop for TempStore {
    fn drop(&mut self) {
        self.remove();
    }
}
