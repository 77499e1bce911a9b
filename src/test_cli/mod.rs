//! `writ test [PATH...] [--format human|json] [--filter TEXT] [--limit
//! ...]`: find test files, run every test in isolation, report each, and
//! exit 0 when all passed (docs/testing.md).
//!
//! Two kinds of test file: `*_test.writ`, whose top-level functions named
//! `test_...` are tests written in Writ ([`writ_tests`]), and
//! `*_test.toml`, whose `[[test]]` tables each state what must happen to a
//! whole program, usually under a policy ([`program_tests`]). A file named
//! on the command line is taken whatever its name; a directory is searched
//! for files of those names.
//!
//! Invariants: every test runs on a fresh machine (and, for program tests,
//! a fresh store unless the test says otherwise), under limits; nothing a
//! test does can make the runner panic or stop the other tests; the exit
//! code is 0 only when at least one test ran and every test passed.

mod program_tests;
mod report;
mod writ_tests;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;

use writ::Diagnostic;

pub use report::Format;

/// How deep `writ test` looks inside a directory.
const MAX_DEPTH: usize = 32;
/// The most test files one `writ test` takes.
const MAX_FILES: usize = 10_000;

/// What `writ test` was given.
pub struct Options<'a> {
    /// Files and directories (none: the current directory).
    pub paths: &'a [PathBuf],
    /// Human or JSON output.
    pub format: Format,
    /// Run only the tests whose name contains this.
    pub filter: Option<&'a str>,
    /// `--limit`s, applied to every test.
    pub limit: &'a [String],
}

/// The kind of a test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A `test_` function of a `*_test.writ` file.
    Writ,
    /// A `[[test]]` of a `*_test.toml` file.
    Program,
    /// A file whose tests could not be run (it does not check, or cannot
    /// be read).
    File,
}

/// A diagnostic with the file it is shown in.
#[derive(Clone)]
pub struct Placed {
    /// The diagnostic, its spans in `text`.
    pub diagnostic: Diagnostic,
    /// The file's path, as shown.
    pub path: Rc<str>,
    /// The file's text (empty for a diagnostic about a file as a whole).
    pub text: Rc<str>,
}

impl Placed {
    /// `diagnostic`, shown in the file `path` whose text is `text`.
    fn new(diagnostic: Diagnostic, path: &Rc<str>, text: &Rc<str>) -> Placed {
        Placed {
            diagnostic,
            path: Rc::clone(path),
            text: Rc::clone(text),
        }
    }
}

/// One test's outcome.
pub struct TestResult {
    /// The test file, as given or found.
    pub file: String,
    /// The test's name (the file's, for [`Kind::File`]).
    pub name: String,
    /// What kind of test.
    pub kind: Kind,
    /// Whether it passed.
    pub passed: bool,
    /// Why it failed: what the test found wrong with what happened
    /// (`E7003`) or with itself (`E7001`, `E7002`), and the program's own
    /// diagnostics, each with the file it points into.
    pub diagnostics: Vec<Placed>,
    /// What the test wrote with `Log.info`.
    pub log: Vec<String>,
    /// Fuel the run spent.
    pub fuel: u64,
    /// How many tests this result counts as: 1, or, for a file that
    /// could not be tested, the tests in it that were to run (each one
    /// fails), at least 1.
    pub counts: usize,
}

impl TestResult {
    /// A test of `file` named `name`, not run yet.
    fn new(file: &str, name: &str, kind: Kind) -> TestResult {
        TestResult {
            file: file.to_string(),
            name: name.to_string(),
            kind,
            passed: false,
            diagnostics: Vec::new(),
            log: Vec::new(),
            fuel: 0,
            counts: 1,
        }
    }

    /// A result without a run: a file that could not be tested, with its
    /// diagnostics in `path` (whose text is `text`).
    fn file_error(file: &str, diagnostics: Vec<Placed>) -> TestResult {
        let mut r = TestResult::new(file, file, Kind::File);
        r.diagnostics = diagnostics;
        r
    }

    /// A file that could not be tested, whose `tests` tests (those the
    /// filter selects) therefore all fail: a submission that does not
    /// check never scores better than one whose tests ran and failed.
    fn file_error_of(file: &str, diagnostics: Vec<Placed>, tests: usize) -> TestResult {
        let mut r = TestResult::file_error(file, diagnostics);
        r.counts = tests.max(1);
        r
    }
}

/// Diagnostics all shown in one file.
fn placed_in(diagnostics: Vec<Diagnostic>, path: &str, text: &str) -> Vec<Placed> {
    let (path, text): (Rc<str>, Rc<str>) = (path.into(), text.into());
    diagnostics
        .into_iter()
        .map(|d| Placed::new(d, &path, &text))
        .collect()
}

/// A file to test, and which kind it is.
enum TestFile {
    Writ(PathBuf),
    Program(PathBuf),
}

/// `writ test`.
pub fn run(options: &Options<'_>) -> ExitCode {
    let mut limits = writ::Limits::default();
    if let Err(code) = crate::apply_limits(&mut limits, options.limit) {
        return code;
    }
    let here = [PathBuf::from(".")];
    let paths = if options.paths.is_empty() {
        &here[..]
    } else {
        options.paths
    };
    let files = match discover(paths) {
        Ok(f) => f,
        Err(message) => {
            err_println!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let mut results = Vec::new();
    let mut printer = report::Printer::new(options.format);
    for file in &files {
        let found = match file {
            TestFile::Writ(p) => writ_tests::run_file(p, options.filter, &limits),
            TestFile::Program(p) => program_tests::run_file(p, options.filter, options.limit),
        };
        printer.file(&found);
        results.extend(found);
    }
    printer.finish(&results, options.filter)
}

/// For `writ check` of a test file `NAME_test.writ` beside a `NAME.writ`:
/// a note on each unknown name, type or constructor that `writ test`
/// checks the two together (the names are probably `NAME.writ`'s), where
/// `writ check` checks the file alone.
pub fn note_pairing(path: &Path, diagnostics: &mut [Diagnostic]) {
    let Some(tested) = writ_tests::tested_file(path) else {
        return;
    };
    let name = tested
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
    for d in diagnostics.iter_mut().filter(|d| {
        matches!(
            d.code,
            writ::Code::UnknownName | writ::Code::UnknownType | writ::Code::UnknownConstructor
        )
    }) {
        d.notes.push(format!(
            "`writ check` checks this test file alone; `writ test` checks it together with `{name}` beside it, whose names it sees (docs/testing.md)"
        ));
    }
}

/// Whether a test named `name` is run under `--filter`.
fn selected(name: &str, filter: Option<&str>) -> bool {
    filter.is_none_or(|f| name.contains(f))
}

/// The test files under `paths`: files as given (by extension), and in
/// directories those named `*_test.writ` and `*_test.toml`, in order of
/// their paths. A path that does not exist, or a file of another
/// extension, is a usage error.
fn discover(paths: &[PathBuf]) -> Result<Vec<TestFile>, String> {
    let mut files = Vec::new();
    for path in paths {
        let meta = std::fs::metadata(path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        if meta.is_dir() {
            let mut found = Vec::new();
            walk(path, 0, &mut found)?;
            found.sort();
            // `writ test` in a directory names its files from there.
            files.extend(found.into_iter().filter_map(|p| {
                let p = p.strip_prefix(".").map_or(p.clone(), Path::to_path_buf);
                kind_of(&p, true)
            }));
        } else {
            files.push(kind_of(path, false).ok_or_else(|| {
                format!(
                    "expected a test file (`.writ` or `.toml`), found `{}`",
                    path.display()
                )
            })?);
        }
    }
    // A file named twice, or named and also found in a directory named,
    // runs once, where it first came.
    let mut seen = std::collections::HashSet::new();
    files.retain(|f| {
        let (TestFile::Writ(p) | TestFile::Program(p)) = f;
        seen.insert(p.canonicalize().unwrap_or_else(|_| p.clone()))
    });
    Ok(files)
}

/// What kind of test file `path` is: in a directory search only the
/// `_test` names count, on the command line any `.writ` or `.toml`.
fn kind_of(path: &Path, searched: bool) -> Option<TestFile> {
    let name = path.file_name()?.to_str()?;
    let suffix = |ext: &str| {
        if searched {
            name.ends_with(&format!("_test.{ext}"))
        } else {
            name.ends_with(&format!(".{ext}"))
        }
    };
    if suffix("writ") {
        Some(TestFile::Writ(path.to_path_buf()))
    } else if suffix("toml") {
        Some(TestFile::Program(path.to_path_buf()))
    } else {
        None
    }
}

/// Collect every file below `dir` (not hidden directories, not `target`),
/// at most [`MAX_DEPTH`] levels down and [`MAX_FILES`] in all.
fn walk(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Ok(());
    }
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read `{}`: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if !name.starts_with('.') && name != "target" && name != "node_modules" {
                walk(&path, depth + 1, found)?;
            }
        } else if kind.is_file() && (name.ends_with("_test.writ") || name.ends_with("_test.toml")) {
            if found.len() >= MAX_FILES {
                return Err(format!(
                    "more than {MAX_FILES} test files under `{}`",
                    dir.display()
                ));
            }
            found.push(path);
        }
    }
    Ok(())
}
