//! The server's tools: `check`, `run`, `plan`, `approve` and `explain` —
//! their definitions (input schemas, descriptions carrying the primer's
//! core and the policy's grants, annotations derived from what the policy
//! lets a program do) and their work.
//!
//! Invariants: the work runs on a blocking thread, never on the runtime's;
//! a program's answers are the command line's JSON (`writ check --format
//! json`, `writ run --format json`), so the two cannot drift; a plan is
//! carried out only after the person accepted it through elicitation
//! ([`Asker`]) — the model's call to `approve` only asks; a source over
//! [`limits::MAX_SOURCE_BYTES`] is answered with `E9004` and not checked.

use std::sync::Arc;

use std::sync::atomic::AtomicBool;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};
use writ::render::words::Edge;
use writ::{Code, Diagnostic};
use writ_host::engine::{Engine, Outcome, RunOptions};
use writ_lang::types::{BUILTIN_OPERATIONS, InputDecl, OpKind};

use super::elicitation::{Answer, Asker};
use super::limits;
use super::server::{Shared, StoredPlan};
use crate::outcome_json;

/// The name a program's diagnostics give its source.
pub const PROGRAM: &str = "program.writ";

/// A tool's answer: its text (JSON, or words for `explain`), and whether
/// it reports a failure (a rejected, failed or refused run; a malformed
/// call).
pub struct Reply {
    /// The text.
    pub text: String,
    /// A failure.
    pub is_error: bool,
}

impl Reply {
    /// `doc` as JSON text, within [`limits::MAX_RESULT_BYTES`] whenever
    /// its long parts allow: a `log` too long keeps its first lines and
    /// says how many are left out, and a value's `display` too long is
    /// replaced by its length, so the answer stays JSON and keeps its
    /// `status`, `error`, `usage` and `limits` (the last resort, a cut of
    /// the text, is [`limits::bounded`]'s).
    fn json(doc: &Value, is_error: bool) -> Reply {
        let text = |d: &Value| serde_json::to_string_pretty(d).unwrap_or_default() + "\n";
        let mut out = text(doc);
        if out.len() > limits::MAX_RESULT_BYTES {
            out = text(&fitted(doc, out.len()));
        }
        Reply {
            text: out,
            is_error,
        }
    }

    /// A call the tool cannot serve: `message` says what was expected.
    fn usage(message: impl Into<String>) -> Reply {
        Reply::json(&json!({ "status": "usage", "error": message.into() }), true)
    }
}

/// `doc` made to fit [`limits::MAX_RESULT_BYTES`] (see [`Reply::json`]):
/// `total` is the length of its text as it is.
fn fitted(doc: &Value, total: usize) -> Value {
    let mut doc = doc.clone();
    let room = limits::MAX_RESULT_BYTES;
    let note = |what: &str| {
        format!(
            "[{what} not shown: writ mcp shows at most {room} bytes of a result, and this one took {total}]"
        )
    };
    // A value's display first: it is the value's data again, as text.
    if let Some(display) = doc.pointer_mut("/value/display")
        && display.as_str().is_some_and(|d| d.len() > room / 4)
    {
        let n = display.as_str().map_or(0, str::len);
        *display = Value::String(note(&format!("the display ({n} bytes)")));
    }
    // Then the log's lines from the last: as many of the first as fit.
    if let Some(Value::Array(lines)) = doc.get("log") {
        let size = |l: &Value| serde_json::to_string(l).map_or(0, |t| t.len() + 8);
        let rest: usize = serde_json::to_string_pretty(&doc)
            .map_or(0, |t| t.len())
            .saturating_sub(lines.iter().map(size).sum::<usize>());
        let budget = room.saturating_sub(rest).saturating_sub(512);
        let mut used = 0;
        let kept = lines
            .iter()
            .take_while(|l| {
                used += size(l);
                used <= budget
            })
            .count();
        if kept < lines.len() {
            let left = lines.len() - kept;
            let mut shown: Vec<Value> = lines.iter().take(kept).cloned().collect();
            shown.push(Value::String(note(&format!(
                "the last {left} of the log's lines"
            ))));
            if let Some(log) = doc.get_mut("log") {
                *log = Value::Array(shown);
            }
        }
    }
    doc
}

/// What the policy lets a program reach, for the tools' annotations.
#[derive(Clone, Copy, Debug)]
pub struct Reach {
    /// Some granted operation acts (pays, posts).
    pub acts: bool,
    /// A granted capability reaches outside the host: `Http` on the
    /// network (not from recorded responses), `Pay` to payees.
    pub open_world: bool,
    /// A granted read reaches outside the host: `Http` on the network
    /// (what a plan, which carries out no act, can reach).
    pub reads_outside: bool,
}

/// What `policy` lets a program reach, from the read/act kind of each
/// operation of each granted capability.
pub fn reach(engine: &Engine, policy: &writ_host::policy::Policy) -> Reach {
    let granted = policy.granted();
    let acts = BUILTIN_OPERATIONS.iter().any(|(effect, op, _)| {
        granted.iter().any(|g| g == effect)
            && engine.operation_kind(effect, op) == Some(OpKind::Act)
    });
    let http_live = policy.grants.get("Http").is_some_and(
        |g| !matches!(&g.scope, writ_host::policy::Scope::Http(h) if h.recorded.is_some()),
    );
    Reach {
        acts,
        open_world: http_live || granted.iter().any(|g| g == "Pay"),
        reads_outside: http_live,
    }
}

fn annotations(
    title: &str,
    read_only: bool,
    destructive: bool,
    idempotent: bool,
    open_world: bool,
) -> ToolAnnotations {
    let mut a = ToolAnnotations::with_title(title)
        .read_only(read_only)
        .idempotent(idempotent)
        .open_world(open_world);
    if !read_only {
        a = a.destructive(destructive);
    }
    a
}

fn schema(doc: Value) -> Arc<JsonObject> {
    match doc {
        Value::Object(m) => Arc::new(m),
        _ => Arc::new(JsonObject::new()),
    }
}

/// The tools, as `tools/list` shows them.
pub fn definitions(shared: &Shared) -> Vec<Tool> {
    let reach = shared.reach;
    let source = json!({ "type": "string", "description": "The program: Writ source text (at most 2 MiB)." });
    let input_types = json!({
        "type": "object",
        "additionalProperties": { "type": "string" },
        "description": "The inputs the host passes the program, each name with its Writ type, e.g. {\"request\": \"{ to: Str, budget_cents: Int }\"}.",
    });
    let inputs = json!({
        "type": "object",
        "description": "The inputs' values, by name, as JSON (each of its declared type).",
    });
    let language = format!("{}\n\n{}", writ::primer::core(), shared.grants);
    let check = Tool::new(
        "check",
        format!(
            "Check a Writ program under this server's policy without running it. Returns JSON: `status` (accepted or rejected), `diagnostics` (each with its code, severity, message, labels with line and column, and help; `explain` gives a code's documentation), the top-level functions' `signatures`, and the `manifest` of effects it performs with each operation's read/act kind. Repair the program until it is accepted, then `run` it (or `plan` it).\n\n{language}"
        ),
        schema(json!({
            "type": "object",
            "properties": { "source": source, "input_types": input_types },
            "required": ["source"],
        })),
    )
    .annotate(annotations("Check a Writ program", true, false, true, false));
    let run = Tool::new(
        "run",
        format!(
            "Check and run a Writ program under this server's policy: with exactly the capabilities it grants, scoped, limited and audited. Returns JSON: `status` (ok, rejected or failed), the `value` (as data and as displayed), the `Log` lines, the host `operations` with their decisions (allowed or denied), rules and audit ids, the `usage` of the limits, and the `error` with its code. Payments and posts are carried out; a confirmation the program or the policy asks for goes to the person.\n\n{language}"
        ),
        schema(json!({
            "type": "object",
            "properties": { "source": source, "input_types": input_types, "inputs": inputs },
            "required": ["source"],
        })),
    )
    .annotate(annotations(
        "Run a Writ program",
        !reach.acts,
        reach.acts,
        !reach.acts && !reach.open_world,
        reach.open_world,
    ));
    let plan = Tool::new(
        "plan",
        format!(
            "Show what a Writ program would do under this server's policy without doing it: its reads are performed, its acts (payments, posts) decided by the policy but not carried out. Returns JSON: the `plan_id`, the plan in `words`, the plan itself, and the planned run's `log` and `result`. To carry the plan out, call `approve` with the `plan_id`: the person (not you) is asked to approve it.\n\n{}",
            shared.grants
        ),
        schema(json!({
            "type": "object",
            "properties": { "source": source, "input_types": input_types, "inputs": inputs },
            "required": ["source"],
        })),
    )
    .annotate(annotations(
        "Plan a Writ program",
        true,
        false,
        !reach.reads_outside,
        reach.reads_outside,
    ));
    let approve = Tool::new(
        "approve",
        format!(
            "Ask the person to approve a plan made by `plan`, and carry it out only if they accept: the plan's words are shown to them through the client (MCP elicitation); you cannot approve it yourself. Accepted, the program runs with only the plan's acts, in order, each once, and the answer is the run's JSON (as `run`'s). Declined, dismissed, unanswered, or with a client that cannot ask the person: nothing runs, and the answer says so.\n\n{}",
            shared.grants
        ),
        schema(json!({
            "type": "object",
            "properties": { "plan_id": { "type": "string", "description": "The `plan_id` a `plan` call returned." } },
            "required": ["plan_id"],
        })),
    )
    .annotate(annotations(
        "Carry out a plan the person approves",
        !reach.acts,
        reach.acts,
        false,
        reach.open_world,
    ));
    let explain = Tool::new(
        "explain",
        "Explain a Writ diagnostic code (like `E2001`, from `check` or `run`): its section of the error reference, with an example and the fix.",
        schema(json!({
            "type": "object",
            "properties": { "code": { "type": "string", "description": "The code, e.g. `E2001`." } },
            "required": ["code"],
        })),
    )
    .annotate(annotations("Explain a diagnostic code", true, false, true, false));
    vec![check, run, plan, approve, explain]
}

/// Do the work of the tool `name` with `args`; `None` for a tool there
/// is not.
/// `cancel`, set by the server when the client cancels the call or its
/// time is up, stops a run or plan at its next check of its limits.
pub fn call(
    shared: &Shared,
    name: &str,
    args: &JsonObject,
    asker: &Asker,
    cancel: &Arc<AtomicBool>,
) -> Option<Reply> {
    let reply = match name {
        "check" => check(shared, args),
        "run" => run(shared, args, asker, cancel),
        "plan" => plan(shared, args, asker, cancel),
        "approve" => approve(shared, args, asker, cancel),
        "explain" => explain(args),
        _ => return None,
    };
    Some(reply.unwrap_or_else(|r| r))
}

/// The argument `name`, a string, or the usage reply.
fn string<'a>(args: &'a JsonObject, name: &str) -> Result<&'a str, Reply> {
    match args.get(name) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(Reply::usage(format!(
            "expected `{name}` to be a string, found {}",
            kind(other)
        ))),
        None => Err(Reply::usage(format!(
            "expected the argument `{name}`, found none"
        ))),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The program's source; or the diagnostic that refuses it unread
/// (`E9004` past the size bound), which each tool answers in its own
/// shape; or the reply to a malformed call.
fn source(args: &JsonObject) -> Result<Result<String, Diagnostic>, Reply> {
    let text = string(args, "source")?;
    if text.len() as u64 > limits::MAX_SOURCE_BYTES {
        return Ok(Err(writ::too_large(text.len() as u64)));
    }
    Ok(writ::source_text(text.as_bytes()).map(str::to_string))
}

/// The declared inputs (`input_types`).
fn input_types(args: &JsonObject) -> Result<Vec<InputDecl>, Reply> {
    match args.get("input_types") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(name, ty)| match ty {
                Value::String(t) => Ok(InputDecl::new(name.trim(), t.trim())),
                other => Err(Reply::usage(format!(
                    "expected the type of the input `{name}` to be a string of Writ (like \"{{ to: Str }}\"), found {}",
                    kind(other)
                ))),
            })
            .collect(),
        Some(other) => Err(Reply::usage(format!(
            "expected `input_types` to be an object of each input's Writ type by name, found {}",
            kind(other)
        ))),
    }
}

/// The inputs' values (`inputs`).
fn input_values(args: &JsonObject) -> Result<serde_json::Map<String, Value>, Reply> {
    match args.get("inputs") {
        None | Some(Value::Null) => Ok(serde_json::Map::new()),
        Some(Value::Object(m)) => Ok(m.clone()),
        Some(other) => Err(Reply::usage(format!(
            "expected `inputs` to be an object of the inputs' values by name, found {}",
            kind(other)
        ))),
    }
}

/// A program not run, with its diagnostics, as `writ run --format json`
/// shows one.
fn rejected(diagnostics: &[Diagnostic], text: &str, limits: &writ::Limits) -> Reply {
    let (out, _) = outcome_json::text(outcome_json::Report {
        path: PROGRAM,
        text,
        edge: Edge::Policy(None),
        diagnostics,
        result: None,
        value: None,
        log: &[],
        operations: &[],
        usage: writ::Usage::default(),
        limits,
        recorded: false,
    });
    Reply {
        text: out,
        is_error: true,
    }
}

fn check(shared: &Shared, args: &JsonObject) -> Result<Reply, Reply> {
    let text = match source(args)? {
        Ok(t) => t,
        // Refused unread: a rejected check, in `check`'s shape.
        Err(d) => {
            let report = crate::FileReport {
                path: PROGRAM.to_string(),
                text: String::new(),
                diagnostics: vec![d],
                signatures: Vec::new(),
                manifest: Vec::new(),
                inputs: Vec::new(),
                unreadable: false,
            };
            return Ok(Reply::json(&crate::file_json(&report), false));
        }
    };
    let decls = input_types(args)?;
    let granted = shared.policy.granted();
    let mut checked = writ::check_source(
        &text,
        &writ::CheckOptions {
            grants: Some(writ::Grants {
                names: &granted,
                by: writ::GrantedBy::Policy,
            }),
            inputs: &decls,
            ..Default::default()
        },
    );
    writ::render::words::reword(&mut checked.diagnostics, shared.edge());
    let report = crate::FileReport {
        path: PROGRAM.to_string(),
        text,
        diagnostics: checked.diagnostics,
        signatures: checked.signatures,
        manifest: checked.manifest,
        inputs: checked.inputs,
        unreadable: false,
    };
    Ok(Reply::json(&crate::file_json(&report), false))
}

/// A `run` or `plan` request's program: its source and its inputs'
/// values read, and the program compiled under the policy by an engine
/// that asks the person (or the reply saying why not).
fn prepare(
    shared: &Shared,
    args: &JsonObject,
    asker: &Asker,
) -> Result<
    (
        String,
        serde_json::Map<String, Value>,
        Engine,
        writ_host::engine::Compiled,
    ),
    Reply,
> {
    let text = source(args)?.map_err(|d| rejected(&[d], "", &shared.policy.limits))?;
    let decls = input_types(args)?;
    let values = input_values(args)?;
    let engine = engine(asker);
    let program = compile(shared, &engine, &text, &decls)?;
    Ok((text, values, engine, program))
}

/// The engine of one request: its confirmations asked of the person.
fn engine(asker: &Asker) -> Engine {
    let asker = asker.clone();
    Engine::new().with_confirm(Arc::new(move |question: &str| asker.confirm(question)))
}

/// The program compiled under the policy, or the rejected reply.
fn compile(
    shared: &Shared,
    engine: &Engine,
    text: &str,
    decls: &[InputDecl],
) -> Result<writ_host::engine::Compiled, Reply> {
    engine
        .check_with_inputs(text, &shared.policy, decls)
        .map_err(|mut diags| {
            writ::render::words::reword(&mut diags, shared.edge());
            rejected(&diags, text, &shared.policy.limits)
        })
}

/// How a run ended, as `writ run --format json` shows it.
fn outcome(shared: &Shared, text: &str, ran: Result<Outcome, writ::RunError>) -> Reply {
    let (out, code) =
        outcome_json::policy_run(ran, PROGRAM, text, &shared.policy.limits, |_| shared.edge());
    Reply {
        text: out,
        is_error: code != 0,
    }
}

fn options(
    shared: &Shared,
    inputs: serde_json::Map<String, Value>,
    cancel: &Arc<AtomicBool>,
) -> RunOptions {
    RunOptions {
        store: shared.db.clone(),
        inputs,
        cancel: Some(Arc::clone(cancel)),
        ..RunOptions::default()
    }
}

fn run(
    shared: &Shared,
    args: &JsonObject,
    asker: &Asker,
    cancel: &Arc<AtomicBool>,
) -> Result<Reply, Reply> {
    let (text, values, engine, program) = prepare(shared, args, asker)?;
    let ran = engine.run(
        &program,
        &shared.policy,
        &options(shared, values, cancel),
        &mut |_| {},
    );
    Ok(outcome(shared, &text, ran))
}

fn plan(
    shared: &Shared,
    args: &JsonObject,
    asker: &Asker,
    cancel: &Arc<AtomicBool>,
) -> Result<Reply, Reply> {
    let (text, values, engine, program) = prepare(shared, args, asker)?;
    let plan = match engine.plan(
        &program,
        &shared.policy,
        &options(shared, values.clone(), cancel),
    ) {
        Ok(p) => p,
        Err(e) => return Ok(outcome(shared, &text, Err(e))),
    };
    let words = plan.words(&shared.policy);
    let as_json = plan.to_json();
    let bytes = text.len().saturating_add(as_json.to_string().len());
    let mut doc = json!({
        "status": "planned",
        "words": words,
        "log": plan.log,
        "result": match &plan.result { Ok(v) => json!({ "ok": v }), Err(e) => json!({ "error": e }) },
        "plan": as_json,
    });
    let id = shared.keep_plan(StoredPlan {
        source: text,
        program: Arc::new(program),
        bytes,
        inputs: values,
        plan: Arc::new(plan),
    });
    doc["plan_id"] = json!(id);
    doc["next"] = json!(
        "call `approve` with this plan_id: the person is shown the plan and asked to approve it"
    );
    Ok(Reply::json(&doc, false))
}

fn approve(
    shared: &Shared,
    args: &JsonObject,
    asker: &Asker,
    cancel: &Arc<AtomicBool>,
) -> Result<Reply, Reply> {
    let id = string(args, "plan_id")?;
    let Some(stored) = shared.plan(id) else {
        return Err(Reply::usage(format!(
            "expected the plan_id of a plan this server made (it keeps the last {}), found `{id}`: call `plan` first",
            limits::KEPT_PLANS
        )));
    };
    let words = stored.plan.words(&shared.policy);
    let message = format!(
        "Approve this plan of a Writ program, for {}?\n\n{}\n\nAccept to carry out exactly these acts, in this order; decline or cancel and nothing is done.",
        shared.policy.principal.id,
        words
            .iter()
            .map(|l| writ::render::terminal_safe(l))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let answer = asker.ask(&message, limits::APPROVAL_WAIT);
    if answer != Answer::Accepted {
        return Ok(Reply::json(
            &json!({
                "status": "refused",
                "plan_id": id,
                "ran": false,
                "why": format!("not run: {}; a plan runs only once the person approves it", answer.words()),
            }),
            true,
        ));
    }
    // Approved once: the plan is spent.
    shared.forget_plan(id);
    let mut options = options(shared, stored.inputs.clone(), cancel);
    options.approved = Some(Arc::clone(&stored.plan));
    let ran = engine(asker).run(&stored.program, &shared.policy, &options, &mut |_| {});
    Ok(outcome(shared, &stored.source, ran))
}

fn explain(args: &JsonObject) -> Result<Reply, Reply> {
    let code = string(args, "code")?;
    match Code::parse(code.trim()).and_then(writ::explain::explain) {
        Some(text) => Ok(Reply {
            text,
            is_error: false,
        }),
        None => Err(Reply::usage(format!(
            "expected a Writ diagnostic code (like `E0100`; see docs/errors.md), found `{code}`"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_too_long_keeps_its_status_error_and_usage_as_json() {
        let line = "x".repeat(1000);
        let doc = json!({
            "status": "failed",
            "value": { "data": null, "display": "y".repeat(900_000) },
            "log": vec![line; 2000],
            "usage": { "fuel": 1 },
            "error": { "code": "E5004" },
        });
        let reply = Reply::json(&doc, true);
        assert!(
            reply.text.len() <= limits::MAX_RESULT_BYTES,
            "{}",
            reply.text.len()
        );
        let back: Value = serde_json::from_str(&reply.text).expect("JSON");
        assert_eq!(back["status"], "failed");
        assert_eq!(back["error"]["code"], "E5004");
        assert_eq!(back["usage"]["fuel"], 1);
        assert!(
            back["value"]["display"]
                .as_str()
                .is_some_and(|d| d.starts_with("[the display (900000 bytes) not shown: writ mcp shows at most 1048576 bytes of a result")),
            "{}",
            back["value"]["display"]
        );
        let log = back["log"].as_array().expect("a log");
        let last = log.last().and_then(Value::as_str).unwrap_or_default();
        assert!(
            last.starts_with(&format!(
                "[the last {} of the log's lines not shown",
                2001 - log.len()
            )),
            "{last}"
        );
        assert!(log.len() > 900, "{}", log.len());
        // An answer that fits is as it was.
        let small = json!({ "status": "ok", "log": ["a"] });
        let reply = Reply::json(&small, false);
        assert_eq!(serde_json::from_str::<Value>(&reply.text).ok(), Some(small));
    }
}
