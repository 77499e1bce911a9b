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
//! then read them: they are what a user will see.

use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("corpus")
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

/// The codes the first line of a case promises, or `None` for "accepted".
fn header(text: &str) -> Result<Option<Vec<String>>, String> {
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

#[test]
fn corpus() {
    let bless = std::env::var_os("WRIT_BLESS").is_some();
    let mut all = Vec::new();
    cases(&corpus_dir(), &mut all);
    assert!(
        all.len() >= 60,
        "expected at least 60 corpus cases, found {}",
        all.len()
    );
    let mut failures = Vec::new();
    for path in &all {
        let rel = path
            .strip_prefix(corpus_dir())
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let expected_codes = match header(&text) {
            Ok(h) => h,
            Err(e) => {
                failures.push(format!("{rel}: {e}"));
                continue;
            }
        };
        // Cases under `parse/` test the syntax alone.
        let mut mode: Vec<&str> = if rel.starts_with("parse/") {
            vec!["--syntax-only"]
        } else {
            vec![]
        };
        if let Some(args) = text.lines().nth(1).and_then(|l| l.strip_prefix("// args:")) {
            mode.extend(
                args.split_whitespace()
                    .map(|a| if a == "''" { "" } else { a }),
            );
        }
        let mode = &mode[..];
        let (human, human_code) = run(&rel, mode);
        let (json, json_code) = run(&rel, &[mode, &["--format", "json"]].concat());

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

        for (ext, actual) in [("out", &human), ("json", &json)] {
            let file = path.with_extension(ext);
            if bless {
                std::fs::write(&file, actual).expect("can write expectation");
                continue;
            }
            match std::fs::read_to_string(&file) {
                Ok(want) if want == *actual => {}
                Ok(want) => failures.push(format!(
                    "{rel}: `writ check` output differs from {ext}\n--- expected\n{want}\n--- actual\n{actual}"
                )),
                Err(_) => failures.push(format!(
                    "{rel}: no .{ext} file; run `WRIT_BLESS=1 cargo test --test corpus` and review it"
                )),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} corpus failures:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
