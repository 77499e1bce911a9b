//! What the corpus harnesses share: finding the cases under a directory,
//! reading their header lines, and comparing what a case produced with the
//! expected files beside it (or writing them, under `WRIT_BLESS=1`).
//!
//! Used by `tests/corpus.rs` (`writ check`), `tests/run_corpus.rs`
//! (`writ run`) and, through `#[path]`, by `lang/tests/corpus.rs` (the
//! same check corpus through the library). It spawns nothing and knows no
//! crate of the project, so that every harness can include it; each
//! harness uses only part of it.
//!
//! The header lines of a case are its first two lines:
//! - the first says what is expected: `// expect: accepted` or
//!   `// expect: CODE ...` in the check corpus ([`expected_codes`]),
//!   `// run: ok` or `// run: CODE` in the run corpus ([`expected_exit`]);
//! - the optional second, `// args: ...`, gives arguments for the command
//!   before the file name, split on whitespace, `''` standing for an empty
//!   argument ([`Case::args`]).

// Each harness uses part of this module; the rest is not dead in the others.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// One case: a `.writ` file and its text.
pub struct Case {
    /// The file.
    pub path: PathBuf,
    /// Its path relative to the corpus directory, with `/` separators (the
    /// name the commands are given, and failures use).
    pub rel: String,
    /// Its text (empty if it cannot be read as UTF-8).
    pub text: String,
}

impl Case {
    /// The arguments of the `// args:` line, if the case has one.
    pub fn args(&self) -> Vec<String> {
        self.text
            .lines()
            .nth(1)
            .and_then(|l| l.strip_prefix("// args:"))
            .map(|a| {
                a.split_whitespace()
                    .map(|a| if a == "''" { "" } else { a }.to_string())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The expected file beside the case with extension `ext`, if present.
    pub fn expected(&self, ext: &str) -> Option<String> {
        std::fs::read_to_string(self.path.with_extension(ext)).ok()
    }
}

/// Every `.writ` file under `dir`, recursively, in path order.
pub fn cases(dir: &Path) -> Vec<Case> {
    let mut paths = Vec::new();
    collect(dir, &mut paths);
    paths
        .into_iter()
        .map(|path| Case {
            rel: path
                .strip_prefix(dir)
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default(),
            text: std::fs::read_to_string(&path).unwrap_or_default(),
            path,
        })
        .collect()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "writ") {
            out.push(path);
        }
    }
}

/// The codes a check case's first line promises (`// expect: E0100 E0010`,
/// in order), or `None` for `// expect: accepted`.
pub fn expected_codes(text: &str) -> Result<Option<Vec<String>>, String> {
    let first = text.lines().next().unwrap_or("");
    let Some(rest) = first.strip_prefix("// expect:") else {
        return Err("first line must be `// expect: accepted` or `// expect: CODE ...`".into());
    };
    let rest = rest.trim();
    if rest == "accepted" {
        Ok(None)
    } else {
        Ok(Some(rest.split_whitespace().map(str::to_string).collect()))
    }
}

/// The exit code a run case's first line promises, with the code of the
/// diagnostic that stops it: `// run: ok` is exit 0; an `E4xxx` exit 3, an
/// `E5xxx` exit 4, any other `E` code exit 1.
pub fn expected_exit(text: &str) -> Option<(i32, Option<String>)> {
    let rest = text.lines().next()?.strip_prefix("// run:")?.trim();
    if rest == "ok" {
        return Some((0, None));
    }
    let code = rest.to_string();
    let exit = match code.get(..2) {
        Some("E4") => 3,
        Some("E5") => 4,
        Some("E0" | "E1" | "E2" | "E3") => 1,
        _ => return None,
    };
    Some((exit, Some(code)))
}

/// The failures of one harness run, gathered so that one run shows them
/// all, and the expected files compared (or blessed).
pub struct Failures {
    /// Whether `WRIT_BLESS` is set: expected files are written, not read.
    pub bless: bool,
    /// The command that blesses this harness's expected files.
    bless_with: &'static str,
    list: Vec<String>,
}

impl Failures {
    /// No failures yet; `bless_with` is the command that rewrites the
    /// expected files (named in the failure for a missing one).
    pub fn new(bless_with: &'static str) -> Self {
        Failures {
            bless: std::env::var_os("WRIT_BLESS").is_some(),
            bless_with,
            list: Vec::new(),
        }
    }

    /// Record a failure.
    pub fn push(&mut self, failure: String) {
        self.list.push(failure);
    }

    /// Compare `actual` with the case's `.ext` file (`what` names the
    /// output in a failure), or write it there when blessing.
    pub fn golden(&mut self, case: &Case, ext: &str, what: &str, actual: &str) {
        let file = case.path.with_extension(ext);
        if self.bless {
            std::fs::write(&file, actual).expect("can write expectation");
            return;
        }
        let rel = &case.rel;
        match std::fs::read_to_string(&file) {
            Ok(want) if want == actual => {}
            Ok(want) => self.list.push(format!(
                "{rel}: {what} differs from .{ext}\n--- expected\n{want}\n--- actual\n{actual}"
            )),
            Err(_) => self.list.push(format!(
                "{rel}: no .{ext} file; run `{}` and review it",
                self.bless_with
            )),
        }
    }

    /// Fail the test, listing every failure, if there is any; `name` names
    /// the corpus.
    pub fn finish(self, name: &str) {
        assert!(
            self.list.is_empty(),
            "{} {name} failures:\n\n{}",
            self.list.len(),
            self.list.join("\n\n")
        );
    }
}
