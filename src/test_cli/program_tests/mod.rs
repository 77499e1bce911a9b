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

mod run;
mod spec;

use std::path::Path;

use writ::render::words::Edge;
use writ::{Code, Diagnostic, Span, render};
use writ_host::engine::{Decision, Operation};

use super::{Kind, TestResult, placed_in, selected};
use run::{Ending, TempStore, audit_records, run_program};
use spec::{Case, Matcher, Spec, StoreMode, unknown_matcher};

/// The most bytes of a test file.
const MAX_SPEC_BYTES: u64 = 1024 * 1024;

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
            // The tests it was to hold all fail, counted by their
            // `[[test]]` headers (the file could not be read as tables).
            let tests = text
                .lines()
                .filter(|l| l.trim().replace(' ', "") == "[[test]]")
                .count();
            return vec![TestResult::file_error_of(
                &shown,
                placed_in(vec![d], &shown, &text),
                tests,
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
    if case.name.trim().is_empty() {
        result.diagnostics = about_test(malformed(
            "expected a test's `name` to say what it tests, found an empty name".to_string(),
        ));
        return result;
    }
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
    if let Ending::Rejected(diags) = &ran.ending
        && let Some(d) = diags.iter().find(|d| d.code == Code::InputType)
    {
        result.diagnostics = about_test(malformed(format!("in `input_types`: {}", d.message)));
        return result;
    }
    let mut unmet = Vec::new();
    let end = ran.ending.end();
    let found = ran.ending.code();
    if end != case.expect.outcome {
        unmet.push(format!(
            "expected the program to {}, found that it {}",
            case.expect.outcome.expected(),
            match found {
                Some(c) => format!("{} ({})", end.found(), c.as_str()),
                None => end.found().to_string(),
            }
        ));
    } else if let Some(c) = code.filter(|c| !ran.ending.has(*c)) {
        unmet.push(format!(
            "expected {}, found {}",
            c.as_str(),
            found.map_or("no code".to_string(), |f| f.as_str().to_string())
        ));
    }
    if let Some(want) = &case.expect.value {
        match &ran.ending {
            Ending::Finished(v) if v == want => {}
            Ending::Finished(v) => unmet.push(format!(
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
                    match records
                        .get(at..)
                        .unwrap_or_default()
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
    // The program's own diagnostics, when it ended otherwise than the
    // test expects.
    let shown = match &ran.ending {
        Ending::Rejected(diags) => diags.clone(),
        // A limit is raised with the test's own `limits` key, which is
        // over `--limit` and the policy's.
        Ending::Stopped(e) => vec![render::words::run_error_in(e, Edge::TestTable, &text)],
        Ending::Finished(_) => Vec::new(),
    };
    if end != case.expect.outcome || code.is_some_and(|c| !ran.ending.has(c)) {
        result
            .diagnostics
            .extend(placed_in(shown, &program_shown, &text));
    }
    result
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
