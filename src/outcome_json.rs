//! `writ run --format json`: the whole outcome of a run as one JSON
//! object on standard output (docs/embedding.md, "Results as data", gives
//! the schema): how it ended, its value (as data and as displayed), its
//! `Log` lines, its host operations with their decisions and audit ids,
//! what it used of its limits, the limits, and the error with its code.
//!
//! Invariant: the value's JSON text ([`writ::json::Json`]) is spliced into
//! the object as it is, never parsed into a tree, so a value of any depth
//! is printed without recursion; every other field is small and written
//! with serde_json. The exit codes are those of the human output.

use std::fmt::Write as _;
use std::process::ExitCode;

use serde_json::{Value, json};
use writ::json::Json;
use writ::render;
use writ::render::words::Edge;
use writ::{Diagnostic, Limits, RunError, Usage};
use writ_host::engine::Operation;

/// What [`writ_host::engine::Engine::run`] returned, as the text of
/// its report (see [`text`]): the outcome's parts, or, when the engine
/// stopped the run before its first step, only the error. `edge` words
/// the error's help from how the run ended.
pub fn policy_run<'a>(
    ran: Result<writ_host::engine::Outcome, RunError>,
    path: &'a str,
    text_of: &'a str,
    limits: &'a Limits,
    edge: impl FnOnce(&Result<String, RunError>) -> Edge<'a>,
) -> (String, u8) {
    let (result, value, log, operations, usage, recorded) = match ran {
        Ok(o) => (
            o.result,
            o.value,
            o.output,
            o.operations,
            o.usage,
            o.recorded,
        ),
        Err(e) => (
            Err(e),
            None,
            Vec::new(),
            Vec::new(),
            Usage::default(),
            false,
        ),
    };
    text(Report {
        path,
        text: text_of,
        edge: edge(&result),
        diagnostics: &[],
        result: Some(result),
        value,
        log: &log,
        operations: &operations,
        usage,
        limits,
        recorded,
    })
}

/// Everything a run's JSON shows.
pub struct Report<'a> {
    /// The program's file, as the diagnostics name it.
    pub path: &'a str,
    /// The program's text.
    pub text: &'a str,
    /// Who set the limits and grants, for the wording of an error's help.
    pub edge: Edge<'a>,
    /// The checker's warnings (an accepted program), or its errors.
    pub diagnostics: &'a [Diagnostic],
    /// `None` if the program was rejected; else the display of its
    /// value, or the error that stopped it.
    pub result: Option<Result<String, RunError>>,
    /// The value as JSON, when it ran to one.
    pub value: Option<Result<Json, RunError>>,
    /// The `Log` lines, in order.
    pub log: &'a [String],
    /// The host operations, in order.
    pub operations: &'a [Operation],
    /// What the run used.
    pub usage: Usage,
    /// The limits it ran under.
    pub limits: &'a Limits,
    /// Whether `Http` answers came from recorded responses.
    pub recorded: bool,
}

/// Print `report` as one JSON object; the exit code: 0 the program
/// finished, 1 it was rejected, 3 a run-time error, 4 a limit (a value
/// whose JSON passes the output limit is `E5004`, a limit).
pub fn print(report: Report<'_>) -> ExitCode {
    let (out, code) = text(report);
    crate::host_cli::out(&out);
    ExitCode::from(code)
}

/// `report` as the text of one JSON object (what [`print`] prints), with
/// the exit code [`print`] gives.
pub fn text(report: Report<'_>) -> (String, u8) {
    let Report {
        path,
        text,
        edge,
        diagnostics,
        result,
        value,
        log,
        operations,
        usage,
        limits,
        recorded,
    } = report;
    let error =
        |e: &RunError| render::json_one(&render::words::run_error_in(e, edge, text), path, text);
    let (status, value_text, error, code) = match (result, value) {
        (None, _) => ("rejected", "null".to_string(), Value::Null, 1),
        (Some(Err(e)), _) => (
            "failed",
            "null".to_string(),
            error(&e),
            if e.is_limit() { 4 } else { 3 },
        ),
        (Some(Ok(display)), value) => {
            let display = if display.is_empty() {
                "()".to_string()
            } else {
                display
            };
            let display = json_text(&Value::String(display));
            match value {
                Some(Ok(data)) => (
                    "ok",
                    format!("{{\"data\": {data}, \"display\": {display}}}"),
                    Value::Null,
                    0,
                ),
                Some(Err(e)) => (
                    "failed",
                    format!("{{\"data\": null, \"display\": {display}}}"),
                    error(&e),
                    if e.is_limit() { 4 } else { 3 },
                ),
                None => (
                    "ok",
                    format!("{{\"data\": null, \"display\": {display}}}"),
                    Value::Null,
                    0,
                ),
            }
        }
    };
    let operations: Vec<Value> = operations
        .iter()
        .map(|o| {
            json!({
                "operation": o.operation,
                "arguments": o.arguments,
                "decision": o.decision.as_str(),
                "rule": o.rule,
                "audit_id": o.audit_id,
            })
        })
        .collect();
    let fields: [(&str, String); 9] = [
        ("status", json_text(&json!(status))),
        ("value", value_text),
        ("log", json_text(&json!(log))),
        ("operations", json_text(&Value::Array(operations))),
        (
            "usage",
            json_text(&json!({
                "fuel": usage.fuel,
                "memory_peak": usage.memory_peak,
                "time_ms": usage.time.as_micros() as f64 / 1000.0,
            })),
        ),
        (
            "limits",
            json_text(&json!({
                "fuel": limits.fuel,
                "memory": limits.memory,
                "depth": limits.depth,
                "output": limits.output,
                "time_ms": limits.time.as_secs_f64() * 1000.0,
            })),
        ),
        ("recorded", json_text(&json!(recorded))),
        ("error", json_text(&error)),
        (
            "diagnostics",
            json_text(&render::json(diagnostics, path, text)),
        ),
    ];
    let mut out = String::from("{\n");
    for (i, (name, field)) in fields.iter().enumerate() {
        let comma = if i + 1 < fields.len() { "," } else { "" };
        let _ = writeln!(out, "  \"{name}\": {field}{comma}");
    }
    out.push_str("}\n");
    (out, code)
}

/// A small JSON value's compact text.
fn json_text(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".to_string())
}
