//! The corpus: every `tests/corpus/**/*.writ` file is a test case.
//!
//! A case is a Writ program whose first line states what is expected of it:
//! `// expect: accepted`, or `// expect: E0100 E0010` (the codes of the
//! diagnostics, in order; a case with only warnings, `W....`, is accepted).
//! Cases under `parse/` are checked with `--syntax-only`: they test the
//! grammar alone. Next to it, `NAME.out` holds exactly what
//! `writ check NAME.writ` prints and `NAME.json` exactly what
//! `writ check --format json NAME.writ` prints, both run from
//! `tests/corpus/` with `NO_COLOR=1`.
//!
//! A case may have a second header line `// args: --grant Http,Log`: its
//! whitespace-separated arguments are passed to `writ check` before the
//! file name, in both runs (`''` stands for an empty argument, so
//! `// args: --grant ''` grants nothing).
//!
//! To add a case, add a `.writ` file and run
//! `WRIT_BLESS=1 cargo test --test corpus` to write its `.out` and `.json`;
//! then read them: they are what a user will see. The case format and the
//! comparison are shared with the run corpus (`tests/common/`);
//! `lang/tests/corpus.rs` runs the same cases through the library.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("corpus")
}

/// Run `writ check [args] REL` from the corpus directory.
fn run(rel: &str, args: &[&str]) -> (String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_writ"))
        .arg("check")
        .args(args)
        .arg(rel)
        .current_dir(corpus_dir())
        .env("NO_COLOR", "1")
        .output()
        .expect("the writ binary runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn corpus() {
    let all = common::cases(&corpus_dir());
    assert!(
        all.len() >= 60,
        "expected at least 60 corpus cases, found {}",
        all.len()
    );
    let mut failures = common::Failures::new("WRIT_BLESS=1 cargo test --test corpus");
    for case in &all {
        let rel = &case.rel;
        let expected_codes = match common::expected_codes(&case.text) {
            Ok(h) => h,
            Err(e) => {
                failures.push(format!("{rel}: {e}"));
                continue;
            }
        };
        // Cases under `parse/` test the syntax alone.
        let mut mode: Vec<String> = if rel.starts_with("parse/") {
            vec!["--syntax-only".to_string()]
        } else {
            vec![]
        };
        mode.extend(case.args());
        let mode: Vec<&str> = mode.iter().map(String::as_str).collect();
        let (human, human_code) = run(rel, &mode);
        let (json, json_code) = run(rel, &[&mode[..], &["--format", "json"]].concat());

        // The header states the intent; check it against what happened.
        let doc: serde_json::Value = serde_json::from_str(&json).unwrap_or_default();
        let codes: Vec<String> = doc["files"][0]["diagnostics"]
            .as_array()
            .map(|ds| {
                ds.iter()
                    .filter_map(|d| d["code"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        match &expected_codes {
            None if human_code != 0 || !codes.is_empty() => failures.push(format!(
                "{rel}: expected to be accepted, got exit {human_code} and codes {codes:?}"
            )),
            Some(want)
                if *want != codes
                    || human_code != i32::from(want.iter().any(|c| c.starts_with('E'))) =>
            {
                failures.push(format!(
                    "{rel}: expected codes {want:?} (exit 1 if any is an error, else 0), got {codes:?} and exit {human_code}"
                ))
            }
            _ => {}
        }
        if human_code != json_code {
            failures.push(format!(
                "{rel}: exit code {human_code} (human) but {json_code} (json)"
            ));
        }
        failures.golden(case, "out", "`writ check` output", &human);
        failures.golden(case, "json", "`writ check --format json` output", &json);
    }
    failures.finish("corpus");
}
