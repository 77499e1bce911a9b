//! Tests written in Writ: the top-level functions of a `*_test.writ` file
//! whose names start with `test_` (docs/testing.md#tests-in-writ).
//!
//! A test file `NAME_test.writ` beside a file `NAME.writ` tests it: the
//! tests see `NAME.writ`'s declarations (`fn`, `type`, `effect`) and its
//! top-level `let`s, but its other top-level statements do not run. The
//! two are checked as one program, the tested file's text first (its other
//! statements blanked out, so every position in it stays where it is),
//! then the test file's; each diagnostic is shown in the file it points
//! into.
//!
//! The whole is checked once (with `Log` and `Fail`, as `writ run`
//! grants); one that does not check fails as a whole, with its
//! diagnostics. Each test then runs on a machine of its own: the same text
//! with a call of the test appended, so the top-level statements of the
//! test file run first, every time. A test passes when that run ends
//! without an error, or, when its doc comment says `Expect: CODE`, when
//! it stops with exactly that code. A doc line `Limits: fuel=...,time=...`
//! sets that test's limits over the command line's.

use std::path::{Path, PathBuf};
use std::rc::Rc;

use writ::render::words::Edge;
use writ::{Code, Diagnostic, RunError, Span, render};
use writ_lang::ast::{FnDecl, Item, Stmt};

use super::{Kind, Placed, TestResult, placed_in, selected};

/// What a test's doc comment asks of it.
struct Wanted {
    /// The code it must stop with (`Expect: E4002`).
    code: Option<Code>,
    /// Limits of its own (`Limits: fuel=1000`), as `--limit` takes them.
    limits: Vec<String>,
}

/// A file: its path as shown, and its text.
type File = (Rc<str>, Rc<str>);

/// The program a test file's tests run: the tested file (if any), then
/// the test file, in one text.
struct Sources {
    /// The tested file's path and text (as written).
    tested: Option<File>,
    /// The test file's path and text.
    test: File,
    /// Where the test file starts in `text`.
    offset: usize,
    /// The program: the tested file, its statements other than `let`
    /// blanked, a line break, then the test file.
    text: String,
}

impl Sources {
    /// Which file `span` of the program is in, and the span there; `None`
    /// for the call of the test appended after both.
    fn locate(&self, span: Span) -> Option<(&File, Span)> {
        let test_end = self.offset + self.test.1.len();
        if span.start >= self.offset {
            (span.start < test_end).then(|| {
                (
                    &self.test,
                    Span::new(
                        span.start - self.offset,
                        span.end.min(test_end) - self.offset,
                    ),
                )
            })
        } else {
            let tested = self.tested.as_ref()?;
            Some((tested, Span::new(span.start, span.end.min(tested.1.len()))))
        }
    }

    /// A diagnostic about the program, shown in the file its primary
    /// label is in (labels in the other file are left out), or about the
    /// test file as a whole when it has no label in either.
    fn place(&self, mut d: Diagnostic) -> Placed {
        let home = d
            .labels
            .iter()
            .find(|l| l.primary)
            .or(d.labels.first())
            .and_then(|l| self.locate(l.span))
            .map(|(file, _)| file.clone());
        let Some(home) = home else {
            d.labels.clear();
            return Placed::new(d, &self.test.0, &"".into());
        };
        d.labels = d
            .labels
            .into_iter()
            .filter_map(|mut l| {
                let (file, span) = self.locate(l.span)?;
                (Rc::ptr_eq(&file.0, &home.0)).then(|| {
                    l.span = span;
                    l
                })
            })
            .collect();
        Placed::new(d, &home.0, &home.1)
    }

    /// A run's error, shown in the file where it happened; the calls of
    /// its trace placed in their own files.
    fn place_error(&self, e: &RunError) -> Placed {
        let home = e.span.and_then(|s| self.locate(s)).map(|(f, _)| f.clone());
        let d = render::words::run_error(e, Edge::Cli, &|span: Span| {
            let (file, at) = self.locate(span)?;
            let p = writ::LineIndex::new(&file.1).position(at.start);
            match &home {
                Some(h) if Rc::ptr_eq(&h.0, &file.0) => Some(format!("{}:{}", p.line, p.column)),
                _ => Some(format!("{}:{}:{}", file.0, p.line, p.column)),
            }
        });
        self.place(d)
    }
}

/// Run the tests of one `*_test.writ` file that `filter` selects.
pub fn run_file(path: &Path, filter: Option<&str>, limits: &writ::Limits) -> Vec<TestResult> {
    let shown = path.display().to_string();
    let sources = match sources(path) {
        Ok(s) => s,
        Err(placed) => return vec![TestResult::file_error(&shown, placed)],
    };
    let names: Vec<String> = writ::DEFAULT_GRANTS.iter().map(|g| g.to_string()).collect();
    let options = writ::CheckOptions {
        grants: Some(writ::Grants {
            names: &names,
            by: writ::GrantedBy::Default,
        }),
        ..Default::default()
    };
    let mut checked = writ::check_source(&sources.text, &options);
    render::words::reword(&mut checked.diagnostics, Edge::Cli);
    for d in &mut checked.diagnostics {
        if d.code == Code::EffectNotGranted {
            d.help = Some(
                "tests run with only `Log` and `Fail`: handle the capability in the test (a handler that plays the host), move the operation into a function the tests do not call, or test the whole program under a policy in a `_test.toml` file".to_string(),
            );
        }
    }
    if !checked.accepted() {
        let placed = checked
            .diagnostics
            .into_iter()
            .map(|d| sources.place(d))
            .collect();
        return vec![TestResult::file_error(&shown, placed)];
    }
    let parsed = writ_lang::parse(&sources.test.1);
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
        .map(|f| run_one(&shown, &sources, f, limits))
        .collect()
}

/// The test file at `path` and the file it tests, if there is one; or why
/// they cannot be tested (unreadable, or the tested file does not parse).
fn sources(path: &Path) -> Result<Sources, Vec<Placed>> {
    let shown = path.display().to_string();
    let text = crate::read_file(path).map_err(|d| placed_in(vec![d], &shown, ""))?;
    let test: File = (shown.as_str().into(), text.as_str().into());
    let Some(tested_path) = tested_file(path) else {
        return Ok(Sources {
            tested: None,
            offset: 0,
            text,
            test,
        });
    };
    let tested_shown = tested_path.display().to_string();
    let tested_text =
        crate::read_file(&tested_path).map_err(|d| placed_in(vec![d], &tested_shown, ""))?;
    let parsed = writ_lang::parse(&tested_text);
    if parsed.has_errors() {
        return Err(placed_in(parsed.diagnostics, &tested_shown, &tested_text));
    }
    let mut prefix = tested_text.clone().into_bytes();
    for item in &parsed.program.items {
        let span = match item {
            Item::Stmt(Stmt::Let(_)) | Item::Fn(_) | Item::Type(_) | Item::Effect(_) => continue,
            Item::Stmt(s) => s.span(),
        };
        // Blank the statement, keeping its line breaks (and so every
        // line and column after it).
        for b in prefix.get_mut(span.start..span.end).into_iter().flatten() {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    // Only whole statements were replaced, byte for byte, by ASCII: the
    // text is still UTF-8.
    let prefix = String::from_utf8_lossy(&prefix).into_owned();
    let offset = prefix.len() + 1;
    Ok(Sources {
        tested: Some((tested_shown.as_str().into(), tested_text.as_str().into())),
        offset,
        text: format!("{prefix}\n{text}"),
        test,
    })
}

/// `NAME.writ` beside `NAME_test.writ`, if it exists.
fn tested_file(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_suffix("_test.writ")?;
    let tested = path.with_file_name(format!("{stem}.writ"));
    tested.is_file().then_some(tested)
}

/// Run one test function on a fresh machine.
fn run_one(file: &str, sources: &Sources, f: &FnDecl, limits: &writ::Limits) -> TestResult {
    let name = f.name.name.clone();
    let mut result = TestResult::new(file, &name, Kind::Writ);
    let in_test = |d: Diagnostic| Placed::new(d, &sources.test.0, &sources.test.1);
    if !f.params.is_empty() {
        let n = f.params.len();
        result.diagnostics.push(in_test(
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
        ));
        return result;
    }
    let wanted = match wanted(f) {
        Ok(w) => w,
        Err(d) => {
            result.diagnostics.push(in_test(d));
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
            result.diagnostics.push(in_test(
                Diagnostic::new(
                    Code::MalformedTest,
                    format!("expected `Limits: name=value,...` in the doc comment of `{name}`: in `{l}`: {e}"),
                )
                .with_primary(f.name.span, "this test"),
            ));
            return result;
        }
    }
    let separator = if sources.text.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    let program = format!("{}{separator}{name}()\n", sources.text);
    let mut log = Vec::new();
    let ran = writ::run_source(
        &program,
        &limits,
        &mut |line: &str| log.push(line.to_string()),
        None,
    );
    result.log = log;
    result.fuel = ran.usage.fuel;
    let Some(outcome) = ran.result else {
        // Checked above as a whole; the appended call can still fail to
        // check (a later `let` took the test's name).
        let mut diags = ran.checked.diagnostics;
        render::words::reword(&mut diags, Edge::Cli);
        result.diagnostics = diags.into_iter().map(|d| sources.place(d)).collect();
        return result;
    };
    match (outcome, wanted.code) {
        (Ok(_), None) => result.passed = true,
        (Ok(_), Some(code)) => result.diagnostics.push(in_test(
            Diagnostic::new(
                Code::ExpectationNotMet,
                format!(
                    "expected `{name}` to stop with {code}, found that it finished",
                    code = code.as_str()
                ),
            )
            .with_primary(f.name.span, "this test")
            .with_help(format!("its doc comment says `Expect: {}`", code.as_str())),
        )),
        (Err(e), Some(code)) if e.code == code => result.passed = true,
        (Err(e), wanted_code) => {
            let mut placed = sources.place_error(&e);
            if let Some(code) = wanted_code {
                placed.diagnostic = placed.diagnostic.with_note(format!(
                    "the test expected {} (its doc comment says `Expect: {}`)",
                    code.as_str(),
                    code.as_str()
                ));
            }
            result.diagnostics.push(placed);
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
