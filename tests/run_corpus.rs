//! The run corpus: every `tests/run/**/*.writ` file is a program that
//! `writ run` executes, with its expected output beside it.
//!
//! The first line of a case says how the run ends: `// run: ok` (exit 0),
//! or `// run: CODE` with the code of the error that stops it (`E4xxx`,
//! exit 3), of the limit it exhausts (`E5xxx`, exit 4), or of the check
//! that rejects it so that it never runs (any other code, exit 1). An optional
//! second line `// args: --limit fuel=10000` passes arguments to
//! `writ run` before the file (`''` is an empty argument). Next to the case, `NAME.out` holds exactly
//! what `writ run` prints from `tests/run/` with `NO_COLOR=1`: the
//! program's `Log` lines and final value on standard output, then any
//! diagnostic from standard error.
//!
//! To add a case, add a `.writ` file and run
//! `WRIT_BLESS=1 cargo test --test run_corpus` to write its `.out`; then
//! read it: check that every value is the one the program should compute.
//! The case format and the comparison are shared with the check corpus
//! (`tests/common/`).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn run_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("run")
}

#[test]
fn run_corpus() {
    let all = common::cases(&run_dir());
    assert!(
        all.len() >= 20,
        "expected at least 20 run cases, found {}",
        all.len()
    );
    let mut failures = common::Failures::new("WRIT_BLESS=1 cargo test --test run_corpus");
    for case in &all {
        let rel = &case.rel;
        let Some((want_exit, want_code)) = common::expected_exit(&case.text) else {
            failures.push(format!(
                "{rel}: first line must be `// run: ok` or `// run: E....`"
            ));
            continue;
        };
        let out = Command::new(env!("CARGO_BIN_EXE_writ"))
            .arg("run")
            .args(case.args())
            .arg(rel)
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
        failures.golden(case, "out", "`writ run` output", &actual);
    }
    failures.finish("run corpus");
}
