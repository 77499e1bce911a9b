//! How `writ test` reports: for people, a line per test as each file
//! finishes, then each failure with its diagnostics rendered as `writ run`
//! renders them (and the test's `Log` lines), then `N passed, N failed`;
//! for programs, one JSON object at the end (docs/testing.md#output).
//!
//! Everything goes to standard output (through [`crate::host_cli::out`]),
//! and what a test wrote is shown escaped, as `writ run` shows `Log`
//! lines on a terminal.

use std::io::IsTerminal;
use std::process::ExitCode;

use serde_json::json;
use writ::{Code, Diagnostic, render};

use super::{Kind, TestResult};
use crate::host_cli::out;

/// The most `Log` lines shown under a failed test (all are in JSON).
const LOG_SHOWN: usize = 20;

/// Output for people or programs.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Lines and rendered diagnostics.
    Human,
    /// One JSON object.
    Json,
}

/// Prints as results come in.
pub struct Printer {
    format: Format,
    color: bool,
}

impl Printer {
    /// A printer for `format`.
    pub fn new(format: Format) -> Printer {
        Printer {
            format,
            color: render::want_color(
                std::io::stdout().is_terminal(),
                std::env::var("NO_COLOR").ok().as_deref(),
            ),
        }
    }

    /// One file's results, as it finishes.
    pub fn file(&mut self, results: &[TestResult]) {
        if self.format == Format::Json {
            return;
        }
        let Some(first) = results.first() else {
            return;
        };
        let mut text = format!("{}\n", safe(&first.file));
        for r in results {
            let mark = if r.passed { "pass" } else { "FAIL" };
            let name = match r.kind {
                Kind::File if r.counts > 1 => format!(
                    "(the file could not be tested: its {} tests fail)",
                    r.counts
                ),
                Kind::File => "(the file could not be tested)".to_string(),
                _ => safe(&r.name),
            };
            text.push_str(&format!("  {mark}  {name}\n"));
        }
        out(&text);
    }

    /// The failures, the closing line, and the exit code: 0 when tests
    /// ran and all passed, 1 otherwise.
    pub fn finish(&self, results: &[TestResult], filter: Option<&str>) -> ExitCode {
        let passed: usize = results.iter().filter(|r| r.passed).map(|r| r.counts).sum();
        let failed: usize = results.iter().filter(|r| !r.passed).map(|r| r.counts).sum();
        let none = results.is_empty().then(|| no_tests(filter));
        if self.format == Format::Json {
            let tests: Vec<serde_json::Value> = results.iter().map(test_json).collect();
            let mut doc = json!({
                "tests": tests,
                "passed": passed,
                "failed": failed,
            });
            if let (Some(d), Some(obj)) = (&none, doc.as_object_mut()) {
                obj.insert("error".into(), render::json_one(d, "", ""));
            }
            out(&format!("{doc}\n"));
        } else {
            let failures: Vec<&TestResult> = results.iter().filter(|r| !r.passed).collect();
            let mut text = String::new();
            if !failures.is_empty() {
                text.push_str("\nfailures:\n");
            }
            for r in failures {
                let title = match r.kind {
                    Kind::File => format!("{} (the file could not be tested)", safe(&r.file)),
                    _ => format!("{}: {}", safe(&r.file), safe(&r.name)),
                };
                text.push_str(&format!("\n---- {title} ----\n"));
                for p in &r.diagnostics {
                    text.push_str(&render::human(
                        std::slice::from_ref(&p.diagnostic),
                        &p.path,
                        &p.text,
                        self.color,
                    ));
                }
                if !r.log.is_empty() {
                    text.push_str(&format!(
                        "Log ({} line{}):\n",
                        r.log.len(),
                        if r.log.len() == 1 { "" } else { "s" }
                    ));
                    for line in r.log.iter().take(LOG_SHOWN) {
                        text.push_str(&format!("  | {}\n", safe(line)));
                    }
                    if r.log.len() > LOG_SHOWN {
                        text.push_str(&format!("  | ... {} more\n", r.log.len() - LOG_SHOWN));
                    }
                }
            }
            if let Some(d) = &none {
                text.push_str(&render::human(std::slice::from_ref(d), "", "", self.color));
            }
            text.push_str(&format!("\n{passed} passed, {failed} failed\n"));
            out(&text);
        }
        if failed == 0 && none.is_none() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        }
    }
}

/// `E7004`: nothing to run.
fn no_tests(filter: Option<&str>) -> Diagnostic {
    let d = match filter {
        Some(f) => Diagnostic::new(
            Code::NoTests,
            format!(
                "expected at least one test whose name contains `{}`, found none",
                safe(f)
            ),
        ),
        None => Diagnostic::new(Code::NoTests, "expected at least one test, found none"),
    };
    d.with_help(
        "tests are the `test_...` functions of `*_test.writ` files and the `[[test]]` tables of `*_test.toml` files (docs/testing.md)",
    )
}

/// One test as JSON.
fn test_json(r: &TestResult) -> serde_json::Value {
    json!({
        "file": r.file,
        "name": r.name,
        "kind": match r.kind {
            Kind::Writ => "writ",
            Kind::Program => "program",
            Kind::File => "file",
        },
        "status": if r.passed { "passed" } else { "failed" },
        "diagnostics": diagnostics_json(r),
        "log": r.log,
        "fuel": r.fuel,
        "counts": r.counts,
    })
}

/// A test's diagnostics as JSON, each with its file.
fn diagnostics_json(r: &TestResult) -> serde_json::Value {
    serde_json::Value::Array(
        r.diagnostics
            .iter()
            .map(|p| render::json_one(&p.diagnostic, &p.path, &p.text))
            .collect(),
    )
}

/// Text from a test file or a program, safe to print on a terminal, and
/// on one line: its line breaks are escaped too, so that no test's name
/// can split a `pass`/`FAIL` line or imitate another.
fn safe(text: &str) -> String {
    writ_runtime::display::safe_text(text, writ_runtime::display::LineBreaks::Escape)
}
