//! Tests written in Writ: the top-level functions of a `*_test.writ` file
//! whose names start with `test_` (docs/testing.md#tests-in-writ).
//!
//! The file is checked once as a program (with `Log` and `Fail`, as `writ
//! run` grants); a file that does not check fails as a whole, with its
//! diagnostics. Each test then runs on a machine of its own: the file's
//! text with a call of the test appended, so the file's top-level
//! statements run first, every time. A test passes when that run ends
//! without an error, or, when its doc comment says `Expect: CODE`, when
//! it stops with exactly that code. A doc line `Limits: fuel=...,time=...`
//! sets that test's limits over the command line's.

use std::path::Path;

use writ::render::words::Edge;
use writ::{Code, Diagnostic, Span, render};
use writ_lang::ast::{FnDecl, Item};

use super::{Kind, TestResult, selected};

/// What a test's doc comment asks of it.
struct Wanted {
    /// The code it must stop with (`Expect: E4002`).
    code: Option<Code>,
    /// Limits of its own (`Limits: fuel=1000`), as `--limit` takes them.
    limits: Vec<String>,
}

/// Run the tests of one `*_test.writ` file that `filter` selects.
pub fn run_file(path: &Path, filter: Option<&str>, limits: &writ::Limits) -> Vec<TestResult> {
    let shown = path.display().to_string();
    let text = match crate::read_file(path) {
        Ok(t) => t,
        Err(d) => return vec![TestResult::file_error(&shown, "", vec![d])],
    };
    let names: Vec<String> = writ::DEFAULT_GRANTS.iter().map(|g| g.to_string()).collect();
    let options = writ::CheckOptions {
        grants: Some(writ::Grants {
            names: &names,
            by: writ::GrantedBy::Default,
        }),
        ..Default::default()
    };
    let mut checked = writ::check_source(&text, &options);
    render::words::reword(&mut checked.diagnostics, Edge::Cli);
    if !checked.accepted() {
        return vec![TestResult::file_error(&shown, &text, checked.diagnostics)];
    }
    let parsed = writ_lang::parse(&text);
    let tests: Vec<&FnDecl> = parsed
        .program
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Fn(f) if f.name.name.starts_with("test_") => Some(&**f),
            _ => None,
        })
        .filter(|f| selected(&f.name.name, filter))
        .collect();
    tests
        .into_iter()
        .map(|f| run_one(&shown, &text, f, limits))
        .collect()
}

/// Run one test function on a fresh machine.
fn run_one(file: &str, text: &str, f: &FnDecl, limits: &writ::Limits) -> TestResult {
    let name = f.name.name.clone();
    let mut result = TestResult {
        file: file.to_string(),
        name: name.clone(),
        kind: Kind::Writ,
        passed: false,
        findings: Vec::new(),
        diagnostics: Vec::new(),
        source_path: file.to_string(),
        source: text.to_string(),
        log: Vec::new(),
        fuel: 0,
    };
    if !f.params.is_empty() {
        let n = f.params.len();
        result.diagnostics.push(
            Diagnostic::new(
                Code::TestTakesParameters,
                format!(
                    "expected a test function without parameters, found {n} parameter{}",
                    if n == 1 { "" } else { "s" }
                ),
            )
            .with_primary(f.name.span, "a test, called with no arguments")
            .with_help(format!(
                "rename it if it is a helper (tests are the functions named `test_...`), or make the values it needs inside it: `fn {name}() {{ ... }}`"
            )),
        );
        return result;
    }
    let wanted = match wanted(f) {
        Ok(w) => w,
        Err(d) => {
            result.diagnostics.push(d);
            return result;
        }
    };
    let mut limits = limits.clone();
    for l in &wanted.limits {
        let set = match l.split_once('=') {
            Some((n, v)) => limits.set(n.trim(), v.trim()).map_err(|e| e.to_string()),
            None => Err("expected `name=value`".to_string()),
        };
        if let Err(e) = set {
            result.diagnostics.push(
                Diagnostic::new(
                    Code::MalformedTest,
                    format!("expected `Limits: name=value,...` in the doc comment of `{name}`: in `{l}`: {e}"),
                )
                .with_primary(f.name.span, "this test"),
            );
            return result;
        }
    }
    let separator = if text.ends_with('\n') { "" } else { "\n" };
    let source = format!("{text}{separator}{name}()\n");
    let mut log = Vec::new();
    let ran = writ::run_source(
        &source,
        &limits,
        &mut |line: &str| log.push(line.to_string()),
        None,
    );
    result.log = log;
    result.fuel = ran.usage.fuel;
    result.source = source;
    let Some(outcome) = ran.result else {
        // Checked above as a file; the appended call can still fail to
        // check (a later `let` took the test's name).
        let mut diags = ran.checked.diagnostics;
        render::words::reword(&mut diags, Edge::Cli);
        result.diagnostics = diags;
        return result;
    };
    match (outcome, wanted.code) {
        (Ok(_), None) => result.passed = true,
        (Ok(_), Some(code)) => result.diagnostics.push(
            Diagnostic::new(
                Code::ExpectationNotMet,
                format!(
                    "expected `{name}` to stop with {code}, found that it finished",
                    code = code.as_str()
                ),
            )
            .with_primary(f.name.span, "this test")
            .with_help(format!("its doc comment says `Expect: {}`", code.as_str())),
        ),
        (Err(e), Some(code)) if e.code == code => result.passed = true,
        (Err(mut e), wanted_code) => {
            // The appended call is not the program's: leave it out of the
            // trace.
            let end = text.len();
            e.trace
                .retain(|t| t.span.is_none_or(|s: Span| s.start < end));
            let mut d = render::words::run_error_in(&e, Edge::Cli, &result.source);
            if let Some(code) = wanted_code {
                d = d.with_note(format!(
                    "the test expected {} (its doc comment says `Expect: {}`)",
                    code.as_str(),
                    code.as_str()
                ));
            }
            result.diagnostics.push(d);
        }
    }
    result
}

/// Read `Expect:` and `Limits:` lines from a test's doc comment.
fn wanted(f: &FnDecl) -> Result<Wanted, Diagnostic> {
    let mut w = Wanted {
        code: None,
        limits: Vec::new(),
    };
    let Some(doc) = &f.doc else {
        return Ok(w);
    };
    for line in doc.lines() {
        let line = line.trim();
        if let Some(rest) = strip_word(line, "expect:") {
            let code = Code::parse(rest.trim()).ok_or_else(|| {
                Diagnostic::new(
                    Code::MalformedTest,
                    format!(
                        "expected a diagnostic code after `Expect:` (like `E4002`), found `{}`",
                        rest.trim()
                    ),
                )
                .with_primary(f.name.span, "in the doc comment of this test")
                .with_help("`writ explain CODE` shows what each code means")
            })?;
            w.code = Some(code);
        } else if let Some(rest) = strip_word(line, "limits:") {
            w.limits.extend(
                rest.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string),
            );
        }
    }
    Ok(w)
}

/// `line` after `word` (compared without regard to case).
fn strip_word<'a>(line: &'a str, word: &str) -> Option<&'a str> {
    let head = line.get(..word.len())?;
    head.eq_ignore_ascii_case(word)
        .then(|| line.get(word.len()..))
        .flatten()
}
