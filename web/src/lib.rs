//! Writ in a web page: the playground's host.
//!
//! The page (`web/static/`) runs this crate, built for
//! `wasm32-unknown-unknown`, in a Web Worker. It is the real checker, the
//! real machine and the real policy host of `writ-host` (grants, scopes,
//! caps, plans, the write-ahead audit log with its hash chain); what the
//! page simulates, and says it does, is the outside world:
//!
//! - the store is in memory ([`STORE_NAME`], `writ_host::store::memory`): the
//!   audit log, the payment ledger and the org chart (seeded from the
//!   files the policy names);
//! - `Http` answers only from the recorded responses the policy names:
//!   a page has no network of its own, and a request with no recorded
//!   answer is denied;
//! - `Confirm.ask` is handed out to the page ([`Playground::run`] pauses
//!   there, the page asks the person, [`Playground::answer`] goes on);
//! - the files a policy names (`recorded = "responses.toml"`, `seed =
//!   "org.sql"`) are the ones the page gives ([`Playground::set_files`]),
//!   by the path written in the policy.
//!
//! Every request and answer is JSON (`serde_json::Value`), the shapes
//! `docs/playground.md` lists; `bindings.rs` passes them to the page as
//! text. The same functions run natively in this crate's tests.
//!
//! Invariants: nothing here panics on any program, policy or file the
//! page gives; the run's limits are the policy's (`[limits]`), so a
//! runaway program stops with its limit's code; a paused run is held as
//! its sealed snapshot, never as a borrowed machine.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{Value as Json, json};
use writ::render::words::{self, Edge};
use writ_host::engine::{Compiled, Engine, Files, Outcome, PauseAt, Plan, Reply, RunOptions, Step};
use writ_host::policy::Policy;
use writ_host::store::{self, AuditRecord, LedgerRow, Store, memory};
use writ_lang::Code;
use writ_runtime::RunError;

#[cfg(target_arch = "wasm32")]
mod bindings;
mod contents;

pub use contents::{contents_from_json, contents_to_json};

/// The page's store's name among memory stores: one store, for every
/// run of the page (`memory:playground`).
pub const STORE_NAME: &str = "playground";

/// The most files the page may give at once, and their most bytes in all.
pub const MAX_FILES: usize = 64;
/// See [`MAX_FILES`].
pub const MAX_FILES_BYTES: usize = 8 * 1024 * 1024;

/// The most audit records and ledger rows [`Playground::audit`] returns
/// (the last ones): what the page shows is bounded as what it stores is
/// not.
pub const AUDIT_SHOWN: usize = 500;

/// A run paused at `Confirm.ask`: its snapshot, and the texts it was
/// checked from (the worker checks them again to go on).
struct PausedRun {
    source: String,
    policy: String,
    bytes: Vec<u8>,
    question: String,
}

/// The playground's host: an engine whose files are the page's, the runs
/// paused at a question, and the plans made and not yet approved.
pub struct Playground {
    engine: Engine,
    /// The memory store's name ([`STORE_NAME`] in the page).
    store: String,
    files: Arc<Mutex<HashMap<String, String>>>,
    paused: Option<PausedRun>,
    /// The plan made last and not yet approved, with the program and
    /// policy it was made of (a new plan replaces it).
    planned: Option<(String, String, Plan)>,
}

impl Default for Playground {
    fn default() -> Self {
        Playground::new()
    }
}

/// A request the page made that cannot be carried out, as JSON:
/// `{"status": "error", "error": {...}}`.
fn refusal(code: Code, message: impl Into<String>, help: Option<&str>) -> Json {
    json!({
        "status": "error",
        "error": { "code": code.as_str(), "message": message.into(), "help": help },
    })
}

impl Playground {
    /// A playground with no files, whose store is [`STORE_NAME`].
    pub fn new() -> Playground {
        Playground::with_store(STORE_NAME)
    }

    /// A playground whose store is the memory store `name` (tests give
    /// each playground its own).
    pub fn with_store(name: &str) -> Playground {
        let files: Arc<Mutex<HashMap<String, String>>> = Arc::default();
        let read = files.clone();
        let reader: Files = Arc::new(move |path: &str| {
            let files = read
                .lock()
                .map_err(|_| "the page's files are not readable".to_string())?;
            files.get(path).cloned().ok_or_else(|| {
                format!("the page has no file `{path}` (the files a policy names are given with the example)")
            })
        });
        Playground {
            engine: Engine::new().with_files(reader),
            store: name.to_string(),
            files,
            paused: None,
            planned: None,
        }
    }

    /// Use the memory store `name` from now on (each lab keeps its own,
    /// as each lab's commands name their own store file); a run waiting
    /// for an answer, and a plan not approved, are dropped.
    pub fn use_store(&mut self, name: &str) -> Json {
        if let Err(e) = store::Location::parse(&format!("memory:{name}")) {
            return refusal(Code::HostUnavailable, e.to_string(), None);
        }
        self.store = name.to_string();
        self.paused = None;
        self.planned = None;
        json!({ "status": "ok", "store": name })
    }

    /// The memory store's name runs use.
    pub fn store_name(&self) -> &str {
        &self.store
    }

    /// The files policies name, by the path written in the policy
    /// (`{"responses.toml": "..."}`), replacing those given before. More
    /// than [`MAX_FILES`] files or [`MAX_FILES_BYTES`] bytes is refused.
    pub fn set_files(&mut self, files: &Json) -> Json {
        let Some(map) = files.as_object() else {
            return refusal(
                Code::HostUnavailable,
                "expected the files as an object of paths to texts, found another JSON value",
                None,
            );
        };
        let total: usize = map
            .iter()
            .map(|(k, v)| k.len() + v.as_str().map_or(0, str::len))
            .sum();
        if map.len() > MAX_FILES || total > MAX_FILES_BYTES {
            return refusal(
                Code::HostUnavailable,
                format!(
                    "expected at most {MAX_FILES} files of {MAX_FILES_BYTES} bytes in all, found {} of {total}",
                    map.len()
                ),
                None,
            );
        }
        let mut given = HashMap::new();
        for (path, text) in map {
            let Some(text) = text.as_str() else {
                return refusal(
                    Code::HostUnavailable,
                    format!("expected the file `{path}` as text, found another JSON value"),
                    None,
                );
            };
            given.insert(path.clone(), text.to_string());
        }
        match self.files.lock() {
            Ok(mut files) => {
                *files = given;
                json!({ "status": "ok" })
            }
            Err(_) => refusal(
                Code::HostUnavailable,
                "the page's files are not writable",
                None,
            ),
        }
    }

    /// Parse `policy` and check `source` against it: the diagnostics of
    /// both (as `writ check --json` gives them), the program's manifest
    /// (each effect, granted or not, with the places it is performed),
    /// and every capability the engine has, granted or not.
    pub fn check(&self, source: &str, policy: &str) -> Json {
        let (policy, policy_diagnostics) = match self.policy(policy) {
            Ok(p) => (Some(p), Json::Array(Vec::new())),
            Err(d) => (None, d),
        };
        let granted = policy.as_ref().map(Policy::granted).unwrap_or_default();
        let grants: Vec<Json> = writ_lang::types::HOST_CAPABILITIES
            .iter()
            .map(|c| c.to_string())
            .chain(self.engine.capability_names())
            .map(|name| json!({ "name": name, "granted": granted.contains(&name) }))
            .collect();
        let Some(policy) = policy else {
            return json!({
                "status": "checked",
                "accepted": false,
                "policy_diagnostics": policy_diagnostics,
                "diagnostics": [],
                "manifest": [],
                "grants": grants,
            });
        };
        let (diagnostics, manifest) = match self.compile(source, &policy) {
            Ok(compiled) => (
                Json::Array(Vec::new()),
                manifest(&compiled.manifest, source, &granted),
            ),
            // A program refused only for what it performs (E3002) still
            // has a manifest: checked with no grants (checked, not
            // judged), it says what it would need. Any other error would
            // refuse it again: it is not checked twice.
            Err(d) if !only_ungranted(&d) => (d, Json::Array(Vec::new())),
            Err(d) => {
                let unjudged = writ::check_source(
                    source,
                    &writ::CheckOptions {
                        grants: None,
                        interfaces: &[],
                        inputs: &[],
                    },
                );
                (d, manifest(&unjudged.manifest, source, &granted))
            }
        };
        json!({
            "status": "checked",
            "accepted": diagnostics.as_array().is_some_and(Vec::is_empty),
            "policy_diagnostics": policy_diagnostics,
            "diagnostics": diagnostics,
            "manifest": manifest,
            "grants": grants,
        })
    }

    /// Check and run `source` under `policy` against the page's store:
    /// `{"status": "done", ...}` with its value or error, its `Log`
    /// lines, its operations with their decisions and its usage; or
    /// `{"status": "confirm", "question": ...}` when it asks the person
    /// ([`Playground::answer`] goes on); or the diagnostics that kept it
    /// from running.
    pub fn run(&mut self, source: &str, policy: &str) -> Json {
        self.paused = None;
        let (compiled, policy_parsed) = match self.prepare(source, policy) {
            Ok(p) => p,
            Err(j) => return j,
        };
        let options = self.options(None);
        let step = self.engine.start(&compiled, &policy_parsed, &options);
        let answer = self.stepped(step, &policy_parsed);
        self.keep_paused(answer, source, policy)
    }

    /// Answer the question a paused run asked (`yes` or not) and go on
    /// to its end or its next question.
    pub fn answer(&mut self, yes: bool) -> Json {
        let Some(paused) = self.paused.take() else {
            return refusal(
                Code::HostUnavailable,
                "expected a run waiting for an answer, found none",
                Some("run a program that asks with Confirm.ask first"),
            );
        };
        let (compiled, policy) = match self.prepare(&paused.source, &paused.policy) {
            Ok(p) => p,
            Err(j) => return j,
        };
        let options = self.options(None);
        let step = match self
            .engine
            .restore(&compiled, &policy, &paused.bytes, &options)
        {
            Ok(Step::Paused(pending)) => pending
                .resume(Reply::Answer(json!(yes)))
                .map_err(|bad| bad.error),
            other => other,
        };
        let answer = self.stepped(step, &policy);
        self.keep_paused(answer, &paused.source, &paused.policy)
    }

    /// The question of the run waiting for an answer, if one is.
    pub fn waiting(&self) -> Option<&str> {
        self.paused.as_ref().map(|p| p.question.as_str())
    }

    /// Make a plan of `source` under `policy`: its reads performed, its
    /// acts decided by the policy and simulated, nothing paid. The plan
    /// is kept under its id for [`Playground::approve`].
    pub fn plan(&mut self, source: &str, policy: &str) -> Json {
        let (compiled, policy_parsed) = match self.prepare(source, policy) {
            Ok(p) => p,
            Err(j) => return j,
        };
        match self
            .engine
            .plan(&compiled, &policy_parsed, &self.options(None))
        {
            Ok(plan) => {
                let shown = json!({
                    "status": "plan",
                    "id": plan.id,
                    "words": plan.words(&policy_parsed),
                    "acts": plan.acts.len(),
                    "log": plan.log,
                    "result": match &plan.result { Ok(v) => json!({"value": v}), Err(e) => json!({"error": e}) },
                });
                // One plan waits at a time: a new one replaces the last.
                self.planned = Some((source.to_string(), policy.to_string(), plan));
                shown
            }
            Err(e) => json!({ "status": "done", "ok": false, "error": run_error(&e) }),
        }
    }

    /// Run the plan `id` as approved: its acts, in order, each once, and
    /// nothing else (another act is `E4013`); a plan run before is
    /// `E4014`.
    pub fn approve(&mut self, id: &str) -> Json {
        let Some((source, policy, plan)) = self.planned.take_if(|(_, _, p)| p.id == id) else {
            return refusal(
                Code::HostUnavailable,
                format!(
                    "expected the id of the plan made last, found `{}`",
                    writ_runtime::display::safe_text(id, writ_runtime::display::LineBreaks::Escape)
                ),
                Some("make a plan with Plan, then approve it"),
            );
        };
        self.paused = None;
        let (compiled, policy_parsed) = match self.prepare(&source, &policy) {
            Ok(p) => p,
            Err(j) => return j,
        };
        // A run of an approved plan is not handed out: its reads
        // (`Confirm.ask` among them) are answered as the plan recorded
        // them, and a run bound to a plan cannot be saved to go on later.
        let options = RunOptions {
            pause_at: PauseAt::Only(Vec::new()),
            ..self.options(Some(Arc::new(plan)))
        };
        let step = self.engine.start(&compiled, &policy_parsed, &options);
        let answer = self.stepped(step, &policy_parsed);
        self.keep_paused(answer, &source, &policy)
    }

    /// The page's audit log and ledger (the last [`AUDIT_SHOWN`] of
    /// each), and whether the log's chain verifies.
    pub fn audit(&self) -> Json {
        let store = match Store::open(&format!("memory:{}", self.store), None) {
            Ok(s) => s,
            Err(e) => return refusal(Code::HostUnavailable, e.to_string(), None),
        };
        let verified = match store.verify() {
            Ok(n) => json!({ "ok": true, "records": n }),
            Err(e) => json!({ "ok": false, "message": e.to_string() }),
        };
        let contents = memory::export(&self.store).unwrap_or_default();
        let skip = |n: usize| n.saturating_sub(AUDIT_SHOWN);
        let records: Vec<Json> = contents
            .records
            .iter()
            .skip(skip(contents.records.len()))
            .map(record_json)
            .collect();
        let ledger: Vec<Json> = contents
            .ledger
            .iter()
            .skip(skip(contents.ledger.len()))
            .map(ledger_json)
            .collect();
        json!({
            "status": "audit",
            "verified": verified,
            "total": contents.records.len(),
            "records": records,
            "ledger": ledger,
        })
    }

    /// Everything the page's store holds, to keep in the page (see
    /// [`contents_to_json`]).
    pub fn export(&self) -> Json {
        contents_to_json(&memory::export(&self.store).unwrap_or_default())
    }

    /// Make the page's store hold what [`Playground::export`] gave (kept
    /// by the page when a worker was ended); it is verified before it is
    /// used.
    pub fn import(&mut self, contents: &Json) -> Json {
        match contents_from_json(contents)
            .and_then(|c| memory::import(&self.store, c).map_err(|e| e.to_string()))
        {
            Ok(()) => self.audit(),
            Err(e) => refusal(Code::HostUnavailable, e, None),
        }
    }

    /// Empty the page's store: a new audit log, ledger and org chart
    /// (seeded again by the next run's policy).
    pub fn reset(&mut self) -> Json {
        memory::forget(&self.store);
        self.paused = None;
        self.planned = None;
        json!({ "status": "ok" })
    }

    /// The options of every run of the page: its store, paused at
    /// `Confirm`.
    fn options(&self, approved: Option<Arc<Plan>>) -> RunOptions {
        RunOptions {
            store: Some(format!("memory:{}", self.store)),
            pause_at: PauseAt::Only(vec!["Confirm".to_string()]),
            approved,
            ..RunOptions::default()
        }
    }

    /// The policy `text` parsed, or its diagnostics as JSON.
    fn policy(&self, text: &str) -> Result<Policy, Json> {
        // The bound of a source file (`writ::MAX_SOURCE_BYTES`, E9004).
        writ::source_text(text.as_bytes())
            .map_err(|d| writ::render::json(&[d], "policy.toml", text))?;
        self.engine.parse_policy(text).map_err(|mut d| {
            words::reword(&mut d, Edge::Policy(None));
            writ::render::json(&d, "policy.toml", text)
        })
    }

    /// `source` checked against `policy`, or its diagnostics as JSON.
    fn compile(&self, source: &str, policy: &Policy) -> Result<Compiled, Json> {
        writ::source_text(source.as_bytes())
            .map_err(|d| writ::render::json(&[d], "program.writ", source))?;
        self.engine.check(source, policy).map_err(|mut d| {
            words::reword(&mut d, Edge::Policy(None));
            writ::render::json(&d, "program.writ", source)
        })
    }

    /// Both texts parsed and checked, or the answer that says why not.
    fn prepare(&self, source: &str, policy: &str) -> Result<(Compiled, Policy), Json> {
        let policy = self.policy(policy).map_err(
            |d| json!({ "status": "rejected", "policy_diagnostics": d, "diagnostics": [] }),
        )?;
        let compiled = self.compile(source, &policy).map_err(
            |d| json!({ "status": "rejected", "policy_diagnostics": [], "diagnostics": d }),
        )?;
        Ok((compiled, policy))
    }

    /// What a step of a run says: its end, or its question (with the
    /// snapshot to go on from, taken out here).
    fn stepped(&self, step: Result<Step<'_>, RunError>, policy: &Policy) -> Stepped {
        match step {
            Ok(Step::Done(outcome)) => Stepped::Answer(outcome_json(&outcome, policy)),
            Ok(Step::Paused(mut pending)) => {
                let question = pending.arguments().to_string();
                let shown = json!({
                    "status": "confirm",
                    "operation": pending.operation(),
                    "question": pending.arguments(),
                    "log": pending.output(),
                });
                match pending.to_bytes() {
                    Ok(bytes) => Stepped::Paused(shown, bytes, question),
                    Err(e) => Stepped::Answer(
                        json!({ "status": "done", "ok": false, "error": run_error(&e), "log": [], "operations": [] }),
                    ),
                }
            }
            Err(e) => Stepped::Answer(
                json!({ "status": "done", "ok": false, "error": run_error(&e), "log": [], "operations": [] }),
            ),
        }
    }

    fn keep_paused(&mut self, answer: Stepped, source: &str, policy: &str) -> Json {
        match answer {
            Stepped::Answer(j) => j,
            Stepped::Paused(shown, bytes, question) => {
                self.paused = Some(PausedRun {
                    source: source.to_string(),
                    policy: policy.to_string(),
                    bytes,
                    question,
                });
                shown
            }
        }
    }
}

/// A step's answer, or a question with its snapshot.
enum Stepped {
    Answer(Json),
    Paused(Json, Vec<u8>, String),
}

/// Whether every error among `diagnostics` (as JSON) is a capability
/// the policy does not grant (`E3002`).
fn only_ungranted(diagnostics: &Json) -> bool {
    diagnostics.as_array().is_some_and(|list| {
        list.iter()
            .filter(|d| d["severity"] == "error")
            .all(|d| d["code"] == Code::EffectNotGranted.as_str())
    })
}

/// A run's error as JSON: its code, message, help (worded for a policy's
/// limits) and where in the program it was, when it says.
fn run_error(e: &RunError) -> Json {
    json!({
        "code": e.code.as_str(),
        "message": e.message,
        "help": words::run_help(e, Edge::Policy(None)),
    })
}

/// What a run did, as JSON.
fn outcome_json(o: &Outcome, policy: &Policy) -> Json {
    let operations: Vec<Json> = o
        .operations
        .iter()
        .map(|op| {
            json!({
                "operation": op.operation,
                "arguments": op.arguments,
                "decision": op.decision.as_str(),
                "rule": op.rule,
                "audit_id": op.audit_id,
            })
        })
        .collect();
    let usage = json!({
        "fuel": o.usage.fuel,
        "fuel_limit": policy.limits.fuel,
        "memory_peak": o.usage.memory_peak,
        "time_ms": u64::try_from(o.usage.time.as_millis()).unwrap_or(u64::MAX),
    });
    let mut answer = json!({
        "status": "done",
        "ok": o.result.is_ok(),
        "log": o.output,
        "operations": operations,
        "usage": usage,
        "recorded": o.recorded,
    });
    match &o.result {
        Ok(v) => answer["value"] = json!(v),
        Err(e) => answer["error"] = run_error(e),
    }
    answer
}

/// Each effect the program performs, whether the policy grants it, and
/// where it is performed (byte offsets into the program).
fn manifest(entries: &[writ::ManifestEntry], source: &str, granted: &[String]) -> Json {
    Json::Array(
        entries
            .iter()
            .map(|m| {
                let sites: Vec<Json> = m
                    .sites
                    .iter()
                    .map(|(op, span)| {
                        let r = span.within(source);
                        json!({ "operation": op, "start": r.start, "end": r.end })
                    })
                    .collect();
                json!({
                    "effect": m.effect,
                    "capability": m.capability,
                    "granted": !m.capability || granted.contains(&m.effect),
                    "sites": sites,
                })
            })
            .collect(),
    )
}

/// An audit record as JSON.
pub fn record_json(r: &AuditRecord) -> Json {
    json!({
        "seq": r.seq,
        "time_ms": r.time_ms,
        "principal": r.principal,
        "program": r.program,
        "operation": r.operation,
        "arguments": r.arguments,
        "decision": r.decision,
        "rule": r.rule,
        "ledger_id": r.ledger_id,
        "ledger_hash": r.ledger_hash,
        "prev_hash": r.prev_hash,
        "hash": r.hash,
    })
}

/// A ledger row as JSON.
pub fn ledger_json(r: &LedgerRow) -> Json {
    json!({
        "id": r.id,
        "time_ms": r.time_ms,
        "day": r.day,
        "principal": r.principal,
        "payee": r.payee,
        "cents": r.cents,
        "currency": r.currency,
        "memo": r.memo,
        "audit_seq": r.audit_seq,
    })
}

/// The explanation of a diagnostic's or a run error's code (what `writ
/// explain` prints), or `None` for a code there is none of.
pub fn explain(code: &str) -> Option<String> {
    writ::explain::explain(Code::parse(code)?)
}

/// Mix the page's randomness into the memory store's pool (the page has
/// no other source; snapshot keys are drawn from it).
pub fn add_entropy(bytes: &[u8]) {
    store::memory::add_entropy(bytes);
}

#[cfg(test)]
mod tests;
