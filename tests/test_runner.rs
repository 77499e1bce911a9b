//! `writ test` itself: the runner's report of tests that pass, fail,
//! crash, run out of a limit, expect what does not happen, or cannot be
//! run (a test file that does not check, a malformed test file, a missing
//! program), in both output formats, with a directory, a filter and
//! usage errors. Each command runs in `tests/test_runner/cases/` with
//! `NO_COLOR=1`; what it prints (standard output, then standard error)
//! and its exit code are compared with `tests/test_runner/NAME.out`,
//! written with `WRIT_BLESS=1 cargo test --test test_runner` (then read
//! the diff: every line is what a user sees).

use std::path::Path;
use std::process::Command;

/// Each case: its name (the `.out` file) and the arguments of `writ`.
const CASES: &[(&str, &[&str])] = &[
    ("runs", &["test", "runs_test.writ"]),
    ("does_not_check", &["test", "nocheck_test.writ"]),
    (
        "does_not_check_json",
        &["test", "--format", "json", "nocheck_test.writ"],
    ),
    ("paired", &["test", "cart_test.writ"]),
    ("check_alone", &["check", "cart_test.writ"]),
    ("defined_in_both", &["test", "twice_test.writ"]),
    ("programs", &["test", "programs/shop_test.toml"]),
    ("malformed", &["test", "programs/malformed_test.toml"]),
    (
        "unparsable_counts_its_tests",
        &["test", "programs/unparsable_test.toml"],
    ),
    ("shadowed_namespace", &["test", "shadow_test.writ"]),
    ("top_level_stops", &["test", "setup_test.writ"]),
    ("capability_in_a_test", &["test", "pays_test.writ"]),
    ("misspelt_operation", &["test", "programs/typo_test.toml"]),
    ("plans", &["test", "programs/plan_test.toml"]),
    (
        "odd_tests_named_twice",
        &["test", "programs/odd_test.toml", "programs/odd_test.toml"],
    ),
    ("unknown_code", &["test", "programs/badcode_test.toml"]),
    ("directory_filtered", &["test", ".", "--filter", "pays"]),
    (
        "filter_json",
        &[
            "test",
            "runs_test.writ",
            "--filter",
            "passes",
            "--format",
            "json",
        ],
    ),
    (
        "nothing_found_json",
        &[
            "test",
            "runs_test.writ",
            "--filter",
            "no such test",
            "--format",
            "json",
        ],
    ),
    ("missing_path", &["test", "missing_test.writ"]),
    ("named_almost_as_tests", &["test", "names_test.writ"]),
    (
        "named_almost_as_tests_filtered",
        &["test", "names_test.writ", "--filter", "Camel"],
    ),
    ("not_a_test_file", &["test", "programs/inputs.json"]),
    (
        "bad_limit",
        &["test", "runs_test.writ", "--limit", "fuel=lots"],
    ),
];

#[test]
fn the_runner_reports_what_the_golden_files_show() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/test_runner");
    let bless = std::env::var_os("WRIT_BLESS").is_some();
    let mut failures = Vec::new();
    for (name, args) in CASES {
        let out = Command::new(env!("CARGO_BIN_EXE_writ"))
            .args(*args)
            .current_dir(root.join("cases"))
            .env("NO_COLOR", "1")
            .output()
            .expect("writ runs");
        let printed = format!(
            "$ writ {}\n{}{}exit code {}\n",
            args.join(" "),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            out.status.code().unwrap_or(-1)
        );
        let golden = root.join(format!("{name}.out"));
        if bless {
            std::fs::write(&golden, &printed).expect("the golden file written");
            continue;
        }
        let want = std::fs::read_to_string(&golden).unwrap_or_default();
        if want != printed {
            failures.push(format!(
                "{name}: `writ {}` prints something else\n--- {}\n{want}\n--- actual\n{printed}",
                args.join(" "),
                golden.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n(if the change is meant, run WRIT_BLESS=1 cargo test --test test_runner and read the diff)",
        failures.join("\n\n")
    );
}

/// A store that cannot be opened (here: no temporary directory) means the
/// program never ran: the test fails as not runnable (`E7001`), whatever
/// it expects, for a run and for a plan alike.
#[test]
fn a_store_that_cannot_be_opened_fails_the_test_not_the_program() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/test_runner/cases");
    for (file, filter) in [
        ("programs/shop_test.toml", "pays within the cap"),
        ("programs/plan_test.toml", "the plan holds both"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_writ"))
            .args(["test", file, "--filter", filter])
            .current_dir(&root)
            .env("NO_COLOR", "1")
            .env("TMPDIR", "/nonexistent/writ-test")
            .output()
            .expect("writ runs");
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{text}");
        assert!(text.contains("0 passed, 1 failed"), "{text}");
        assert!(
            text.contains("[E7001] Error: the test's store could not be used, so nothing ran"),
            "{text}"
        );
    }
}
