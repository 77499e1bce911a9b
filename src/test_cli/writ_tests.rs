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
    /// Where the calls of the tests appended after both are (start and
    /// end in the program), with the test's name in the test file.
    arms: Vec<(usize, usize, Span)>,
}

impl Sources {
    /// Which file `span` of the program is in, and the span there; `None`
    /// for the call of the test appended after both.
    fn locate(&self, span: Span) -> Option<(&File, Span)> {
        let test_end = self.offset + self.test.1.len();
        if span.start >= test_end {
            // The call of a test: shown at the test's name.
            let (_, _, name) = self
                .arms
                .iter()
                .find(|(start, end, _)| (*start..*end).contains(&span.start))?;
            Some((&self.test, *name))
        } else if span.start >= self.offset {
            Some((
                &self.test,
                Span::new(
                    span.start - self.offset,
                    span.end.min(test_end) - self.offset,
                ),
            ))
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
        let mut elsewhere = Vec::new();
        d.labels = d
            .labels
            .into_iter()
            .filter_map(|mut l| {
                let (file, span) = self.locate(l.span)?;
                if !Rc::ptr_eq(&file.0, &home.0) {
                    // A label in the other file: said in a note.
                    let p = writ::LineIndex::new(&file.1).position(span.start);
                    elsewhere.push(format!("{}:{}:{}: {}", file.0, p.line, p.column, l.message));
                    return None;
                }
                l.span = span;
                Some(l)
            })
            .collect();
        d.notes.extend(elsewhere);
        Placed::new(d, &home.0, &home.1)
    }

    /// A run's error, shown in the file where it happened; the calls of
    /// its trace placed in their own files.
    fn place_error(&self, e: &RunError) -> Placed {
        let home = e.span.and_then(|s| self.locate(s)).map(|(f, _)| f.clone());
        let test_end = self.offset + self.test.1.len();
        let d = render::words::run_error(e, Edge::Test, &|span: Span| {
            // The call of the test is not the files': no place in them.
            if span.start >= test_end {
                return None;
            }
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

/// The input that says which test a run calls (`-1`: none, only the top
/// level).
const SELECTOR: &str = "writ_test_case_";

/// Run the tests of one `*_test.writ` file that `filter` selects: the
/// program (the files, then a statement per test calling it when
/// [`SELECTOR`] is its number)
/// is checked and compiled once, its top level run once alone (an error
/// there fails every test: none of them would have run), then run once
/// per test.
pub fn run_file(path: &Path, filter: Option<&str>, limits: &writ::Limits) -> Vec<TestResult> {
    let shown = path.display().to_string();
    let mut sources = match sources(path) {
        Ok(s) => s,
        Err(placed) => return vec![TestResult::file_error(&shown, placed)],
    };
    let parsed = writ_lang::parse(&sources.test.1);
    let tests: Vec<&FnDecl> = parsed
        .program
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Fn(f) if f.name.name.starts_with("test_") => Some(&**f),
            _ => None,
        })
        .collect();
    // Every parameterless test is called from the program (so that each
    // is checked), whichever the filter selects.
    let separator = if sources.text.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    // One statement per test, so that what the checker says of a test's
    // call (a capability it performs) is placed at that test.
    let mut program = format!("{}{separator}", sources.text);
    let mut index = Vec::new();
    for f in tests.iter().filter(|f| f.params.is_empty()) {
        let start = program.len();
        program.push_str(&format!(
            "if {SELECTOR} == {} {{ {}(); () }} else {{ () }}\n",
            index.len(),
            f.name.name
        ));
        sources.arms.push((start, program.len(), f.name.span));
        index.push(f.name.name.as_str());
    }
    let names: Vec<String> = writ::DEFAULT_GRANTS.iter().map(|g| g.to_string()).collect();
    let inputs = [writ::InputDecl::new(SELECTOR, "Int")];
    let options = writ::CheckOptions {
        grants: Some(writ::Grants {
            names: &names,
            by: writ::GrantedBy::Default,
        }),
        inputs: &inputs,
        ..Default::default()
    };
    // The tests that were to run: all fail when the file does not check.
    let selected_count = tests
        .iter()
        .filter(|f| selected(&f.name.name, filter))
        .count();
    let mut analysis = writ_lang::analyse(&program, &options);
    render::words::reword(&mut analysis.diagnostics, Edge::Test);
    let accepted = analysis.accepted();
    let (Some(typed), true) = (analysis.typed, accepted) else {
        let placed = analysis
            .diagnostics
            .into_iter()
            .map(|d| sources.place(d))
            .collect();
        return vec![TestResult::file_error_of(&shown, placed, selected_count)];
    };
    let module = match writ_runtime::compile(&analysis.program, &typed) {
        Ok(m) => m,
        Err(e) => {
            return vec![TestResult::file_error_of(
                &shown,
                vec![sources.place_error(&e)],
                selected_count,
            )];
        }
    };
    let runner = Runner {
        module: &module,
        sources: &sources,
        limits,
    };
    // The top level alone: if it stops, no test would run.
    let setup = runner.run(-1, limits);
    let mut results: Vec<TestResult> = tests
        .iter()
        .filter(|f| selected(&f.name.name, filter))
        .map(|f| {
            let at = index.iter().position(|n| *n == f.name.name);
            run_one(&shown, &runner, f, at, &setup)
        })
        .collect();
    results.extend(near_misses(&shown, &sources, &parsed.program.items, filter));
    results
}

/// The functions of the test file that look like tests but are not named
/// `test_...` (`testTotal`, `tset_total`, `Test_total`): each is a failed
/// result (`E7005`), as a test that silently never runs would let a
/// broken program pass. Only a function taking nothing and declaring no
/// result (or `()`), as a test does, is taken for one: a helper that
/// makes a value names its type.
fn near_misses(
    file: &str,
    sources: &Sources,
    items: &[Item],
    filter: Option<&str>,
) -> Vec<TestResult> {
    items
        .iter()
        .filter_map(|item| match item {
            Item::Fn(f) => Some(&**f),
            _ => None,
        })
        .filter(|f| f.params.is_empty() && f.body.is_some())
        .filter(|f| {
            f.ret
                .as_ref()
                .is_none_or(|t| matches!(t.kind, writ_lang::ast::TypeExprKind::Unit))
        })
        .filter(|f| almost_test(&f.name.name) && selected(&f.name.name, filter))
        .map(|f| {
            let name = &f.name.name;
            let mut result = TestResult::new(file, name, Kind::Writ);
            result.diagnostics.push(Placed::new(
                Diagnostic::new(
                    Code::NotNamedAsTest,
                    format!(
                        "expected a test's name to start with `test_`, found `{name}`, which is not run"
                    ),
                )
                .with_primary(f.name.span, "named like a test, but not one")
                .with_help(format!(
                    "rename it `{}` to run it as a test, or give a helper a name that does not look like one",
                    as_test_name(name)
                )),
                &sources.test.0,
                &sources.test.1,
            ));
            result
        })
        .collect()
}

/// Whether `name` (not `test_...`) looks like a test's: `test` followed
/// by anything but `_` (`testTotal`, `test1`, `tests_total`), any case
/// of it (`Test_total`), or its first word one slip from `test` (`tset`,
/// `tets`, `tst`, `tesst`).
fn almost_test(name: &str) -> bool {
    if name.starts_with("test_") {
        return false;
    }
    let lower = name.to_ascii_lowercase();
    if lower.starts_with("test") {
        return true;
    }
    let Some((first, _)) = lower.split_once('_') else {
        return false;
    };
    let t = first.as_bytes();
    let test = b"test";
    let swapped = t.len() == 4
        && (0..3).any(|i| {
            let mut w = [t[0], t[1], t[2], t[3]];
            w.swap(i, i + 1);
            &w == test
        });
    // One letter dropped or doubled (`tst`, `tesst`), not one changed
    // (`rest_`, `best_` are words of their own).
    let dropped = t.len() == 3 && (0..4).any(|i| test[..i] == t[..i] && test[i + 1..] == t[i..]);
    let doubled = t.len() == 5 && (0..4).any(|i| t[..=i] == test[..=i] && t[i + 1..] == test[i..]);
    swapped || dropped || doubled
}

/// `name` as a test's name: `test_` and the rest of it in snake case
/// (`testTotal` -> `test_total`, `tset_total` -> `test_total`).
fn as_test_name(name: &str) -> String {
    let rest = match name.split_once('_') {
        Some((first, rest))
            if matches!(first.to_ascii_lowercase().as_str(), "test" | "tests")
                || almost_test(&format!("{}_", first.to_ascii_lowercase())) =>
        {
            rest.to_string()
        }
        // `testTotal`: `test` is ASCII, so byte 4 is a character's start.
        _ => name
            .get(4..)
            .unwrap_or("")
            .trim_start_matches('_')
            .to_string(),
    };
    let mut snake = String::new();
    for c in rest.chars() {
        if c.is_uppercase() {
            if !snake.is_empty() && !snake.ends_with('_') {
                snake.push('_');
            }
            snake.extend(c.to_lowercase());
        } else {
            snake.push(c);
        }
    }
    if snake.is_empty() {
        "test_it".to_string()
    } else {
        format!("test_{snake}")
    }
}

/// The compiled program of a test file, and what a run of it needs.
struct Runner<'a> {
    module: &'a writ_runtime::Module,
    sources: &'a Sources,
    limits: &'a writ::Limits,
}

/// One run's end, its `Log` lines and its fuel.
struct Ran {
    result: Result<(), RunError>,
    log: Vec<String>,
    fuel: u64,
}

impl Runner<'_> {
    /// Run the program calling test number `at` (`-1`: none) under
    /// `limits`, on a fresh machine.
    fn run(&self, at: i64, limits: &writ::Limits) -> Ran {
        let mut values = serde_json::Map::new();
        values.insert(SELECTOR.to_string(), serde_json::Value::from(at));
        let mut log = Vec::new();
        let globals = match writ_runtime::inputs::from_json(self.module, &values, limits) {
            Ok(g) => g,
            Err(e) => {
                return Ran {
                    result: Err(e),
                    log,
                    fuel: 0,
                };
            }
        };
        let mut host = writ_runtime::LogHost::new(|line: &str| log.push(line.to_string()));
        let (ran, used) = writ_runtime::inputs::run(self.module, globals, limits, &mut host, None);
        Ran {
            result: ran.map(|_| ()),
            log,
            fuel: used.fuel,
        }
    }
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
            arms: Vec::new(),
        });
    };
    let tested_shown = tested_path.display().to_string();
    let tested_text =
        crate::read_file(&tested_path).map_err(|d| placed_in(vec![d], &tested_shown, ""))?;
    let parsed = writ_lang::parse(&tested_text);
    if parsed.has_errors() {
        return Err(placed_in(parsed.diagnostics, &tested_shown, &tested_text));
    }
    if let Some(d) = shadowed_namespace(&parsed.program.items, &tested_text) {
        return Err(placed_in(vec![d], &tested_shown, &tested_text));
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
        arms: Vec::new(),
    })
}

/// A top-level `fn` or `let` of the tested file that takes the name of a
/// standard-library namespace (`assert`, `list`, ...): the tests' calls
/// `assert.eq(...)` would then be its, so a tested file could make every
/// assertion hold. Such a file is refused (`E7001`). A `let` is refused
/// when its pattern's text holds the name as a word (a field named so
/// too: the rule errs on the side of refusing).
fn shadowed_namespace(items: &[Item], text: &str) -> Option<Diagnostic> {
    let namespaces: Vec<&str> = writ_lang::stdlib::FILES
        .iter()
        .filter_map(|f| f.name.strip_suffix(".writ"))
        .filter(|n| !matches!(*n, "prelude" | "capabilities"))
        .collect();
    let word_at = |hay: &str, word: &str| -> Option<usize> {
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        hay.match_indices(word).map(|(i, _)| i).find(|&i| {
            !hay.get(..i)
                .and_then(|h| h.chars().next_back())
                .is_some_and(ident)
                && !hay
                    .get(i + word.len()..)
                    .and_then(|t| t.chars().next())
                    .is_some_and(ident)
        })
    };
    for item in items {
        let (span, named) = match item {
            Item::Fn(f) => (f.name.span, f.name.name.as_str()),
            Item::Stmt(Stmt::Let(l)) => {
                let span = l.pattern.span;
                (span, text.get(span.start..span.end).unwrap_or(""))
            }
            _ => continue,
        };
        if let Some(ns) = namespaces.iter().find(|ns| word_at(named, ns).is_some()) {
            return Some(
                Diagnostic::new(
                    Code::MalformedTest,
                    format!(
                        "expected the tested file to leave the standard library's names alone, found a top-level definition of `{ns}`"
                    ),
                )
                .with_primary(span, format!("`{ns}` is the namespace the tests call"))
                .with_help(format!("rename it: the tests' calls of `{ns}.…` must reach the standard library")),
            );
        }
    }
    None
}

/// `NAME.writ` beside `NAME_test.writ`, if it exists.
pub(super) fn tested_file(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_suffix("_test.writ")?;
    let tested = path.with_file_name(format!("{stem}.writ"));
    tested.is_file().then_some(tested)
}

/// Run one test function on a fresh machine: `at` is its place in the
/// program's `match` (`None` for a function with parameters), `setup`
/// the run of the top level alone.
fn run_one(
    file: &str,
    runner: &Runner<'_>,
    f: &FnDecl,
    at: Option<usize>,
    setup: &Ran,
) -> TestResult {
    let sources = runner.sources;
    let name = f.name.name.clone();
    let mut result = TestResult::new(file, &name, Kind::Writ);
    let in_test = |d: Diagnostic| Placed::new(d, &sources.test.0, &sources.test.1);
    let Some(at) = at else {
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
    };
    let wanted = match wanted(f) {
        Ok(w) => w,
        Err(d) => {
            result.diagnostics.push(in_test(d));
            return result;
        }
    };
    let mut limits = runner.limits.clone();
    for l in &wanted.limits {
        if let Err(e) = crate::set_limit(&mut limits, l) {
            result.diagnostics.push(in_test(
                Diagnostic::new(
                    Code::MalformedTest,
                    format!("in the doc comment of `{name}`, `Limits: {l}`: {e}"),
                )
                .with_primary(f.name.span, "this test"),
            ));
            return result;
        }
    }
    if let Err(e) = &setup.result {
        // The top level stopped before any test was called: this test
        // did not run, whatever it expects.
        let mut placed = sources.place_error(e);
        placed.diagnostic = placed.diagnostic.with_note(format!(
            "the files' top level stopped before `{name}` was called"
        ));
        result.diagnostics.push(placed);
        result.log = setup.log.clone();
        result.fuel = setup.fuel;
        return result;
    }
    let ran = runner.run(i64::try_from(at).unwrap_or(i64::MAX), &limits);
    result.log = ran.log;
    result.fuel = ran.fuel;
    match (ran.result, wanted.code) {
        (Ok(()), None) => result.passed = true,
        (Ok(()), Some(code)) => result.diagnostics.push(in_test(
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
            if let Some(before) = w.code {
                return Err(Diagnostic::new(
                    Code::MalformedTest,
                    format!(
                        "expected one `Expect:` line in the doc comment, found `Expect: {}` and `Expect: {}`",
                        before.as_str(),
                        code.as_str()
                    ),
                )
                .with_primary(f.name.span, "in the doc comment of this test")
                .with_help("a test stops with one code: keep the one it must stop with"));
            }
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

#[cfg(test)]
mod tests {
    use super::{almost_test, as_test_name};

    #[test]
    fn names_one_slip_from_a_test_are_taken_for_tests() {
        for name in [
            "testTotal",
            "test1",
            "tests_total",
            "test",
            "tset_total",
            "tets_total",
            "etst_total",
            "tst_total",
            "tes_total",
            "ttest_total",
            "tesst_total",
        ] {
            assert!(almost_test(name), "{name}");
        }
    }

    #[test]
    fn tests_and_other_names_are_not() {
        for name in [
            "test_total",
            "rest_api",
            "best_of",
            "total",
            "check_total",
            "tester",
            "t_x",
            "tea_time",
            "été_total",
        ] {
            assert_eq!(almost_test(name), name == "tester", "{name}");
        }
    }

    #[test]
    fn the_suggested_name_is_a_test_name() {
        for (name, want) in [
            ("testTotal", "test_total"),
            ("test1", "test_1"),
            ("tests_total", "test_total"),
            ("tset_total", "test_total"),
            ("tesst_cart_total", "test_cart_total"),
            ("test", "test_it"),
            ("testÉté", "test_été"),
        ] {
            assert_eq!(as_test_name(name), want, "{name}");
        }
    }
}
