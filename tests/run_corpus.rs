//! The run corpus: every `tests/run/**/*.writ` file is a program that
//! `writ run` executes, with its expected output beside it.
//!
//! The first line of a case says how the run ends: `// run: ok` (exit 0),
//! or `// run: CODE` with the code of the error that stops it (`E4xxx`,
//! exit 3), of the limit it exhausts (`E5xxx`, exit 4), or of the check
//! that rejects it so that it never runs (any other code, exit 1). An optional
//! second line `// args: --limit fuel=10000` passes arguments to
//! `writ run` before the file. Next to the case, `NAME.out` holds exactly
//! what `writ run` prints from `tests/run/` with `NO_COLOR=1`: the
//! program's `Log` lines and final value on standard output, then any
//! diagnostic from standard error.
//!
//! To add a case, add a `.writ` file and run
//! `WRIT_BLESS=1 cargo test --test run_corpus` to write its `.out`; then
//! read it: check that every value is the one the program should compute.

use std::path::{Path, PathBuf};
use std::process::Command;

fn run_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("run")
}

fn cases(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            cases(&path, out);
        } else if path.extension().is_some_and(|e| e == "writ") {
            out.push(path);
        }
    }
}

/// The exit code a `// run:` header promises.
fn expected_exit(header: &str) -> Option<(i32, Option<String>)> {
    let rest = header.strip_prefix("// run:")?.trim();
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

#[test]
fn run_corpus() {
    let bless = std::env::var_os("WRIT_BLESS").is_some();
    let mut all = Vec::new();
    cases(&run_dir(), &mut all);
    assert!(
        all.len() >= 20,
        "expected at least 20 run cases, found {}",
        all.len()
    );
    let mut failures = Vec::new();
    for path in &all {
        let rel = path
            .strip_prefix(run_dir())
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let Some((want_exit, want_code)) = text.lines().next().and_then(expected_exit) else {
            failures.push(format!(
                "{rel}: first line must be `// run: ok` or `// run: E....`"
            ));
            continue;
        };
        let args: Vec<&str> = text
            .lines()
            .nth(1)
            .and_then(|l| l.strip_prefix("// args:"))
            .map(|a| a.split_whitespace().collect())
            .unwrap_or_default();
        let out = Command::new(env!("CARGO_BIN_EXE_writ"))
            .arg("run")
            .args(&args)
            .arg(&rel)
            .current_dir(run_dir())
            .env("NO_COLOR", "1")
            .output()
            .expect("the writ binary runs");
        let actual = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let exit = out.status.code().unwrap_or(-1);
        if exit != want_exit {
            failures.push(format!(
                "{rel}: exit {exit}, expected {want_exit}\n{actual}"
            ));
        }
        if let Some(code) = want_code
            && !actual.contains(&format!("[{code}]"))
        {
            failures.push(format!(
                "{rel}: expected the run to stop with {code}\n{actual}"
            ));
        }
        let file = path.with_extension("out");
        if bless {
            std::fs::write(&file, &actual).expect("can write expectation");
            continue;
        }
        match std::fs::read_to_string(&file) {
            Ok(want) if want == actual => {}
            Ok(want) => failures.push(format!(
                "{rel}: `writ run` output differs\n--- expected\n{want}\n--- actual\n{actual}"
            )),
            Err(_) => failures.push(format!(
                "{rel}: no .out file; run `WRIT_BLESS=1 cargo test --test run_corpus` and review it"
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} run corpus failures:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
