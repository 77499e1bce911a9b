//! `writ primer [--policy P]`: the primer as committed, then the policy's
//! grants in words. The grants of each example policy are golden files,
//! `tests/primer/NAME.out` (what follows the primer, then the exit code);
//! `WRIT_BLESS=1 cargo test --test primer_cli` rewrites them (then read
//! them: they are what a model is told).

use std::path::Path;
use std::process::Command;

fn writ_primer(args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_writ"))
        .arg("primer")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .expect("writ runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// The primer as `writ primer` prints it: the file without its core marker.
fn primer_alone() -> String {
    let (out, err, code) = writ_primer(&[]);
    assert_eq!((err.as_str(), code), ("", 0));
    out
}

#[test]
fn without_a_policy_it_prints_the_primer_file() {
    let out = primer_alone();
    let (core, rest) = writ::primer::PRIMER
        .split_once("<!-- core ends -->")
        .expect("the primer marks its core");
    assert_eq!(out, format!("{}\n\n{}\n", core.trim_end(), rest.trim()));
    assert_eq!(core.trim_end(), writ::primer::core());
}

/// (golden file, policy) for each example policy shown.
const CASES: &[(&str, &str)] = &[
    ("book_ticket", "examples/book_ticket/policy.toml"),
    ("hr_review", "examples/hr_review/policy.toml"),
    ("my_benefits", "examples/my_benefits/policy.toml"),
    ("malformed", "tests/primer/malformed.toml"),
    ("missing", "tests/primer/no-such-policy.toml"),
];

#[test]
fn grants_in_words_are_golden() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bless = std::env::var_os("WRIT_BLESS").is_some();
    let primer = primer_alone();
    let mut failures = Vec::new();
    for (name, policy) in CASES {
        let (out, err, code) = writ_primer(&["--policy", policy]);
        let shown = match out.strip_prefix(&primer) {
            // The primer, a blank line, then the grants.
            Some(rest) => format!(
                "{}{err}exit {code}\n",
                rest.strip_prefix('\n').unwrap_or(rest)
            ),
            None => format!("{out}{err}exit {code}\n"),
        };
        let golden = root.join("tests/primer").join(format!("{name}.out"));
        if bless {
            std::fs::write(&golden, &shown).expect("write the golden file");
            continue;
        }
        let want = std::fs::read_to_string(&golden).unwrap_or_default();
        if shown != want {
            failures.push(format!(
                "{name}: `writ primer --policy {policy}` prints something else\n--- golden\n{want}--- printed\n{shown}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n(WRIT_BLESS=1 cargo test --test primer_cli rewrites the golden files)",
        failures.join("\n\n")
    );
}
