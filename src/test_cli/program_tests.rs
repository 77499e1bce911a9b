//! Tests of whole programs: each `[[test]]` of a `*_test.toml` file names a
//! program (and usually a policy) and states what must happen when it is
//! checked and run: rejected with a code, stopped by an error or a limit,
//! or finished with a value; its `Log` lines; the operations allowed,
//! denied or never carried out; the audit records written
//! (docs/testing.md#tests-of-whole-programs).
//!
//! The program is never trusted: it runs under the policy on a store of
//! its own (a fresh temporary SQLite file per test, or one per file for
//! the tests that say `store = "shared"`), with `Http` answered from the
//! policy's recorded responses or a `replay` file when they are given,
//! and `Confirm` answered as the test says (`confirm = true`), never by a
//! person. Paths in a test file are relative to it.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Deserialize;
use writ::render::words::Edge;
use writ::{Code, Diagnostic, Span, render};
use writ_host::engine::{Decision, Engine, Operation, ReadMode, RunOptions};

use super::{Kind, TestResult, placed_in, selected};

/// The most bytes of a test file.
const MAX_SPEC_BYTES: u64 = 1024 * 1024;

/// A `*_test.toml` file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Spec {
    /// The tests, in order.
    #[serde(default)]
    test: Vec<Case>,
}

/// One `[[test]]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    program: String,
    policy: Option<String>,
    replay: Option<String>,
    inputs: Option<String>,
    #[serde(default)]
    input_types: Vec<String>,
    #[serde(default)]
    limits: Vec<String>,
    #[serde(default)]
    confirm: bool,
    #[serde(default)]
    store: StoreMode,
    /// Make a plan (`writ plan`) instead of running: nothing is carried
    /// out, and the expectations apply to the plan's acts.
    #[serde(default)]
    plan: bool,
    expect: Expect,
}

/// Whose store a test runs on.
#[derive(Deserialize, Default, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum StoreMode {
    /// A new, empty store (seeded as the policy says).
    #[default]
    Fresh,
    /// The store the file's other `shared` tests run on, in their order.
    Shared,
}

/// How the run must end.
#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "lowercase")]
enum End {
    /// Ran to its end.
    Finished,
    /// Rejected by the checker: not run.
    Rejected,
    /// Stopped by a run-time error (`E4xxx`).
    Error,
    /// Stopped by a limit (`E5xxx`).
    Limit,
}

impl End {
    fn words(self) -> &'static str {
        match self {
            End::Finished => "finish",
            End::Rejected => "be rejected",
            End::Error => "stop with a run-time error",
            End::Limit => "stop at a limit",
        }
    }
}

/// `[test.expect]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    outcome: End,
    code: Option<String>,
    value: Option<String>,
    log: Option<Vec<String>>,
    #[serde(default)]
    log_contains: Vec<String>,
    #[serde(default)]
    allowed: Vec<Matcher>,
    #[serde(default)]
    denied: Vec<Matcher>,
    #[serde(default)]
    never: Vec<Matcher>,
    #[serde(default)]
    audit: Vec<Matcher>,
    /// With `plan = true`: the plan's acts, exactly, in order.
    acts: Option<Vec<Matcher>>,
}

/// Which operations: `"Pay.pay"`, or `{ operation = "Pay.pay", arguments
/// = "attacker.example", decision = "denied" }` (the arguments as the
/// audit log shows them, containing that text).
#[derive(Deserialize, Clone)]
#[serde(untagged)]
enum Matcher {
    Name(String),
    Full(FullMatcher),
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct FullMatcher {
    operation: String,
    arguments: Option<String>,
    decision: Option<String>,
}

impl Matcher {
    fn parts(&self) -> (&str, Option<&str>, Option<&str>) {
        match self {
            Matcher::Name(op) => (op, None, None),
            Matcher::Full(m) => (&m.operation, m.arguments.as_deref(), m.decision.as_deref()),
        }
    }

    fn matches(&self, operation: &str, arguments: &str, decision: &str) -> bool {
        let (op, args, dec) = self.parts();
        op == operation
            && args.is_none_or(|a| arguments.contains(a))
            && dec.is_none_or(|d| d == decision)
    }

    fn shown(&self) -> String {
        let (op, args, dec) = self.parts();
        let mut s = op.to_string();
        if let Some(a) = args {
            s.push_str(&format!(" with arguments containing `{a}`"));
        }
        if let Some(d) = dec {
            s.push_str(&format!(" ({d})"));
        }
        s
    }
}

/// What one run did, whichever way it ran.
struct Ran {
    /// Diagnostics of a rejected program.
    rejected: Option<Vec<Diagnostic>>,
    /// The value's display form, or the error.
    result: Option<Result<String, writ::RunError>>,
    log: Vec<String>,
    operations: Vec<Operation>,
    fuel: u64,
    /// The audit records the run wrote.
    audit_ids: Vec<i64>,
}

/// Run the tests of one `*_test.toml` file that `filter` selects.
pub fn run_file(path: &Path, filter: Option<&str>, limit: &[String]) -> Vec<TestResult> {
    let shown = path.display().to_string();
    let text = match crate::read_file(path) {
        Ok(t) => t,
        Err(d) => {
            return vec![TestResult::file_error(
                &shown,
                placed_in(vec![d], &shown, ""),
            )];
        }
    };
    if text.len() as u64 > MAX_SPEC_BYTES {
        let d = Diagnostic::new(
            Code::MalformedTest,
            format!(
                "expected a test file of at most {MAX_SPEC_BYTES} bytes, found {}",
                text.len()
            ),
        );
        return vec![TestResult::file_error(
            &shown,
            placed_in(vec![d], &shown, ""),
        )];
    }
    let spec: Spec = match toml::from_str(&text) {
        Ok(s) => s,
        Err(e) => {
            let mut d = Diagnostic::new(
                Code::MalformedTest,
                format!(
                    "expected a test file (docs/testing.md), found an error: {}",
                    e.message()
                ),
            )
            .with_help(
                "each test is a `[[test]]` table with `name`, `program` and `[test.expect]`",
            );
            if let Some(r) = e.span() {
                d = d.with_primary(Span::new(r.start, r.end), "here");
            }
            return vec![TestResult::file_error(
                &shown,
                placed_in(vec![d], &shown, &text),
            )];
        }
    };
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let shared = TempStore::new();
    spec.test
        .iter()
        .filter(|c| selected(&c.name, filter))
        .map(|case| {
            let fresh;
            let store = match case.store {
                StoreMode::Shared => &shared,
                StoreMode::Fresh => {
                    fresh = TempStore::new();
                    &fresh
                }
            };
            run_case(&shown, &dir, case, limit, store)
        })
        .collect()
}

/// Run one case and compare what happened with what it expects.
fn run_case(
    file: &str,
    dir: &Path,
    case: &Case,
    limit: &[String],
    store: &TempStore,
) -> TestResult {
    let program_path = dir.join(&case.program);
    let program_shown = program_path.display().to_string();
    let mut result = TestResult::new(file, &case.name, Kind::Program);
    let about_test = |d: Diagnostic| placed_in(vec![d], file, "");
    let text = match crate::read_file(&program_path) {
        Ok(t) => t,
        Err(d) => {
            result.diagnostics = placed_in(vec![d], &program_shown, "");
            return result;
        }
    };
    let code = match case.expect.code.as_deref().map(|c| (c, Code::parse(c))) {
        None => None,
        Some((_, Some(code))) => Some(code),
        Some((c, None)) => {
            result.diagnostics = about_test(malformed(format!(
                "expected a diagnostic code in `expect.code` (like `E4005`), found `{c}`"
            )));
            return result;
        }
    };
    if let Some(why) = unknown_matcher(&case.expect) {
        result.diagnostics = about_test(malformed(why));
        return result;
    }
    if case.expect.acts.is_some() && !case.plan {
        result.diagnostics = about_test(malformed(
            "expected `plan = true` in a test that expects a plan's `acts`".to_string(),
        ));
        return result;
    }
    if case.policy.is_none()
        && (!case.expect.audit.is_empty() || case.replay.is_some() || case.plan)
    {
        result.diagnostics = about_test(malformed(
            "expected a `policy` for a test that makes a plan, replays reads or expects audit records (only a policy's host plans, reads and audits)".to_string(),
        ));
        return result;
    }
    let ran = match run_program(dir, case, limit, &text, store) {
        Ok(r) => r,
        Err(d) => {
            result.diagnostics = about_test(malformed(d));
            return result;
        }
    };
    result.log = ran.log.clone();
    result.fuel = ran.fuel;
    store.written.borrow_mut().extend(&ran.audit_ids);
    if let Some(diags) = &ran.rejected
        && let Some(d) = diags.iter().find(|d| d.code == Code::InputType)
    {
        result.diagnostics = about_test(malformed(format!("in `input_types`: {}", d.message)));
        return result;
    }
    let mut unmet = Vec::new();
    let mut shown_error = None;
    let end = match (&ran.rejected, &ran.result) {
        (Some(diags), _) => {
            if case.expect.outcome != End::Rejected
                || code.is_some_and(|c| !diags.iter().any(|d| d.code == c))
            {
                shown_error = Some(diags.clone());
            }
            End::Rejected
        }
        (None, Some(Err(e))) => {
            let end = if e.is_limit() { End::Limit } else { End::Error };
            if case.expect.outcome != end || code.is_some_and(|c| c != e.code) {
                shown_error = Some(vec![render::words::run_error_in(e, Edge::Cli, &text)]);
            }
            end
        }
        _ => End::Finished,
    };
    let found_code = match (&ran.rejected, &ran.result) {
        (Some(diags), _) => diags.iter().find(|d| d.is_error()).map(|d| d.code),
        (None, Some(Err(e))) => Some(e.code),
        _ => None,
    };
    if end != case.expect.outcome {
        unmet.push(format!(
            "expected the program to {}, found that it {}",
            case.expect.outcome.words(),
            match found_code {
                Some(c) => format!("{} ({})", end_words(end), c.as_str()),
                None => end_words(end).to_string(),
            }
        ));
    } else if let Some(c) = code {
        let has = match (&ran.rejected, &ran.result) {
            (Some(diags), _) => diags.iter().any(|d| d.code == c),
            (None, Some(Err(e))) => e.code == c,
            _ => false,
        };
        if !has {
            unmet.push(format!(
                "expected {}, found {}",
                c.as_str(),
                found_code.map_or("no code".to_string(), |f| f.as_str().to_string())
            ));
        }
    }
    if let Some(want) = &case.expect.value {
        match &ran.result {
            Some(Ok(v)) if v == want => {}
            Some(Ok(v)) => unmet.push(format!(
                "expected the value `{}`, found `{}`",
                cut(want),
                cut(v)
            )),
            _ => unmet.push(format!("expected the value `{want}`, found no value")),
        }
    }
    if let Some(want) = &case.expect.log
        && *want != ran.log
    {
        unmet.push(format!(
            "expected the Log lines {}, found {}",
            lines(want),
            lines(&ran.log)
        ));
    }
    for part in &case.expect.log_contains {
        if !ran.log.iter().any(|l| l.contains(part.as_str())) {
            unmet.push(format!(
                "expected a Log line containing `{part}`, found {}",
                lines(&ran.log)
            ));
        }
    }
    let seen = |m: &Matcher, d: Decision| {
        ran.operations
            .iter()
            .any(|o| m.matches(&o.operation, &o.arguments, d.as_str()) && o.decision == d)
    };
    for (wanted, d) in [
        (&case.expect.allowed, Decision::Allowed),
        (&case.expect.denied, Decision::Denied),
    ] {
        for m in wanted.iter().filter(|m| !seen(m, d)) {
            unmet.push(format!(
                "expected {} to be {d}, found {}",
                m.shown(),
                operations(&ran.operations)
            ));
        }
    }
    for m in &case.expect.never {
        if let Some(o) = ran.operations.iter().find(|o| {
            o.decision == Decision::Allowed && m.matches(&o.operation, &o.arguments, "allowed")
        }) {
            unmet.push(format!(
                "expected {} never to be {}, found {}({}) allowed",
                m.shown(),
                if case.plan {
                    "allowed in the plan"
                } else {
                    "carried out"
                },
                o.operation,
                cut(&o.arguments)
            ));
        }
    }
    if let Some(acts) = &case.expect.acts {
        let same = acts.len() == ran.operations.len()
            && acts
                .iter()
                .zip(&ran.operations)
                .all(|(m, o)| m.matches(&o.operation, &o.arguments, o.decision.as_str()));
        if !same {
            unmet.push(format!(
                "expected the plan's acts to be [{}], found {}",
                acts.iter()
                    .map(Matcher::shown)
                    .collect::<Vec<_>>()
                    .join("; "),
                operations(&ran.operations)
            ));
        }
    }
    if !case.expect.audit.is_empty() {
        match audit_records(store) {
            Ok(records) => {
                let mut at = 0;
                for m in &case.expect.audit {
                    match records[at..]
                        .iter()
                        .position(|(op, args, dec)| m.matches(op, args, dec))
                    {
                        Some(i) => at += i + 1,
                        None => {
                            unmet.push(format!(
                                "expected an audit record of {} (after those matched before it), found {}",
                                m.shown(),
                                if records.is_empty() {
                                    "none".to_string()
                                } else {
                                    listed(
                                        records
                                            .iter()
                                            .map(|(op, args, dec)| format!("{op}({}) {dec}", cut(args)))
                                            .collect(),
                                        "; ",
                                    )
                                }
                            ));
                            break;
                        }
                    }
                }
            }
            Err(e) => unmet.push(format!(
                "expected to read the audit log, found an error: {e}"
            )),
        }
    }
    if unmet.is_empty() {
        result.passed = true;
        return result;
    }
    result.diagnostics = placed_in(
        unmet
            .into_iter()
            .map(|u| Diagnostic::new(Code::ExpectationNotMet, u))
            .collect(),
        file,
        "",
    );
    if let Some(diags) = shown_error {
        result
            .diagnostics
            .extend(placed_in(diags, &program_shown, &text));
    }
    result
}

/// How a run ended, for a sentence (`found that it did ...`).
fn end_words(end: End) -> &'static str {
    match end {
        End::Finished => "finished",
        End::Rejected => "was rejected",
        End::Error => "stopped with a run-time error",
        End::Limit => "stopped at a limit",
    }
}

/// At most 200 bytes of `text`, for a message.
fn cut(text: &str) -> String {
    let mut end = text.len().min(200);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    match text.get(..end) {
        Some(start) if end < text.len() => format!("{start}…"),
        _ => text.to_string(),
    }
}

/// The first operation named in `expect` that the host does not have,
/// or decision that is neither `allowed` nor `denied`, in words: a
/// misspelt name would match nothing, and `never` would hold vacuously.
fn unknown_matcher(expect: &Expect) -> Option<String> {
    let engine = Engine::new();
    let all = expect
        .allowed
        .iter()
        .chain(&expect.denied)
        .chain(&expect.never)
        .chain(&expect.audit)
        .chain(expect.acts.iter().flatten());
    for m in all {
        let (op, _, decision) = m.parts();
        let known = op
            .split_once('.')
            .is_some_and(|(effect, name)| engine.operation_kind(effect, name).is_some());
        if !known {
            return Some(format!(
                "expected an operation the host has, written `Capability.operation` (like `Pay.pay` or `Http.get`), found `{op}`"
            ));
        }
        if let Some(d) = decision.filter(|d| !matches!(*d, "allowed" | "denied")) {
            return Some(format!(
                "expected the decision `allowed` or `denied`, found `{d}`"
            ));
        }
    }
    None
}

/// A malformed test: `E7001`.
fn malformed(why: String) -> Diagnostic {
    Diagnostic::new(Code::MalformedTest, why)
}

/// At most ten items for a message, joined by `sep`, then how many more.
fn listed(items: Vec<String>, sep: &str) -> String {
    let more = items.len().saturating_sub(10);
    let shown: Vec<&str> = items.iter().take(10).map(String::as_str).collect();
    let rest = if more > 0 {
        format!("{sep}and {more} more")
    } else {
        String::new()
    };
    format!("{}{rest}", shown.join(sep))
}

/// Lines as a list shown in a message.
fn lines(lines: &[String]) -> String {
    if lines.is_empty() {
        return "none".to_string();
    }
    let text = listed(
        lines.iter().map(|l| format!("{:?}", cut(l))).collect(),
        ", ",
    );
    format!("[{text}]")
}

/// Operations as a list shown in a message.
fn operations(ops: &[Operation]) -> String {
    if ops.is_empty() {
        return "no operations".to_string();
    }
    listed(
        ops.iter()
            .map(|o| format!("{}({}) {}", o.operation, cut(&o.arguments), o.decision))
            .collect(),
        "; ",
    )
}

/// Check and run the case's program; `Err` says what in the test is
/// wrong (a file it names cannot be read, a malformed limit).
fn run_program(
    dir: &Path,
    case: &Case,
    limit: &[String],
    text: &str,
    store: &TempStore,
) -> Result<Ran, String> {
    let decls: Vec<writ::InputDecl> = case
        .input_types
        .iter()
        .map(|a| match a.split_once('=') {
            Some((name, ty)) => Ok(writ::InputDecl::new(name.trim(), ty.trim())),
            None => Err(format!(
                "expected `NAME=TYPE` in `input_types`, found `{a}`"
            )),
        })
        .collect::<Result<_, _>>()?;
    let values = match &case.inputs {
        None => serde_json::Map::new(),
        Some(f) => {
            match crate::inputs_cli::json_file(&dir.join(f), crate::inputs_cli::MAX_INPUTS_BYTES)
                .map_err(|why| format!("in `inputs = \"{f}\"`: {why}"))?
            {
                serde_json::Value::Object(m) => m,
                _ => {
                    return Err(format!(
                        "in `inputs = \"{f}\"`: expected a JSON object of the inputs' values by name"
                    ));
                }
            }
        }
    };
    let set_limits = |limits: &mut writ::Limits| -> Result<(), String> {
        for l in limit.iter().chain(&case.limits) {
            let (n, v) = l
                .split_once('=')
                .ok_or_else(|| format!("expected a limit `name=value`, found `{l}`"))?;
            limits
                .set(n.trim(), v.trim())
                .map_err(|e| format!("in the limit `{l}`: {e}"))?;
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
        let mut diags = ran.checked.diagnostics;
        render::words::reword(&mut diags, Edge::Cli);
        return Ok(Ran {
            rejected: ran.result.is_none().then_some(diags),
            result: ran.result,
            log,
            operations: Vec::new(),
            fuel: ran.usage.fuel,
            audit_ids: Vec::new(),
        });
    };
    let policy_path = dir.join(policy_file);
    let policy_text = crate::read_file(&policy_path)
        .map_err(|d| format!("in `policy = \"{policy_file}\"`: {}", d.message))?;
    let mut policy = writ_host::policy::parse(&policy_text).map_err(|diags| {
        format!(
            "in `policy = \"{policy_file}\"`: the policy is malformed: {}",
            diags.first().map_or(String::new(), |d| format!(
                "[{}] {}",
                d.code.as_str(),
                d.message
            ))
        )
    })?;
    policy.dir = policy_path.parent().map(Path::to_path_buf);
    set_limits(&mut policy.limits)?;
    let reads = match &case.replay {
        None => ReadMode::Live,
        Some(f) => {
            let doc =
                crate::inputs_cli::json_file(&dir.join(f), crate::inputs_cli::MAX_INPUTS_BYTES)
                    .map_err(|why| format!("in `replay = \"{f}\"`: {why}"))?;
            let recording = writ_host::engine::Recording::from_json(&doc)
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
            return Ok(Ran {
                rejected: Some(diags),
                result: None,
                log,
                operations: Vec::new(),
                fuel: 0,
                audit_ids: Vec::new(),
            });
        }
    };
    let options = RunOptions {
        store: Some(store.path.display().to_string()),
        inputs: values,
        reads,
        ..RunOptions::default()
    };
    if case.plan {
        return Ok(match engine.plan(&program, &policy, &options) {
            Ok(plan) => Ran {
                rejected: None,
                result: Some(plan.result.map_err(|e| planned_error(&e))),
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
                audit_ids: Vec::new(),
            },
            Err(e) => Ran {
                rejected: None,
                result: Some(Err(e)),
                log,
                operations: Vec::new(),
                fuel: 0,
                audit_ids: Vec::new(),
            },
        });
    }
    let ran = engine.run(&program, &policy, &options, &mut |l: &str| {
        log.push(l.to_string())
    });
    Ok(match ran {
        Ok(outcome) => Ran {
            rejected: None,
            result: Some(outcome.result),
            log: outcome.output,
            operations: outcome.operations,
            fuel: outcome.usage.fuel,
            audit_ids: outcome.audit_ids,
        },
        // The store could not be opened, so nothing ran: that is the
        // test's setting, not the program's doing.
        Err(e) if e.code == Code::HostUnavailable => {
            return Err(format!(
                "the test's store could not be used, so nothing ran: {}",
                e.message
            ));
        }
        Err(e) => Ran {
            rejected: None,
            result: Some(Err(e)),
            log,
            operations: Vec::new(),
            fuel: 0,
            audit_ids: Vec::new(),
        },
    })
}

/// The error a plan's run ended with, from its words (`E4005: ...`).
fn planned_error(words: &str) -> writ::RunError {
    let (code, message) = words.split_once(": ").unwrap_or(("", words));
    let code = Code::parse(code).unwrap_or(Code::InternalError);
    let mut e = writ::RunError::new(code, message);
    e.limit = writ::Limit::SETTABLE
        .into_iter()
        .chain([writ::Limit::Cancelled])
        .find(|l| l.code() == code);
    e
}

/// The audit records of a test's store: operation, arguments, decision.
fn audit_records(store: &TempStore) -> Result<Vec<(String, String, String)>, String> {
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

/// A store file in the temporary directory, removed when dropped.
struct TempStore {
    path: PathBuf,
    /// The audit records the file's runs on it wrote: only these count
    /// for `audit` expectations (not rows a policy's seed put in).
    written: RefCell<Vec<i64>>,
}

impl TempStore {
    fn new() -> TempStore {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("writ-test-{}-{n}.db", std::process::id()));
        // A file left by an earlier process of the same id is not this
        // test's: start empty.
        let store = TempStore {
            path,
            written: RefCell::new(Vec::new()),
        };
        store.remove();
        store
    }
}

impl TempStore {
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
