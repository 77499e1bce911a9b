//! Every program in `examples/` passes `writ check` (the standard library
//! is checked by `lang/tests/stdlib.rs`).

use std::path::Path;
use std::process::Command;

fn writ_files(dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "writ"))
                .map(|p| p.to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn examples_and_stdlib_are_accepted() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = writ_files(&root.join("examples"));
    assert!(files.len() >= 2, "expected examples, found {files:?}");
    let out = Command::new(env!("CARGO_BIN_EXE_writ"))
        .arg("check")
        .args(&files)
        .env("NO_COLOR", "1")
        .output()
        .expect("writ runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let accepted = stdout.lines().filter(|l| l.ends_with(": accepted")).count();
    assert_eq!(accepted, files.len(), "{stdout}");
}

/// Every benchmark program in `examples/bench/` prints its published output
/// at the small test input written in the file (`NAME.expected`).
#[test]
fn benchmark_programs_print_their_published_outputs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = writ_files(&root.join("examples").join("bench"));
    assert_eq!(
        files.len(),
        11,
        "expected the 11 benchmark programs, found {files:?}"
    );
    let mut failures = Vec::new();
    for file in &files {
        let expected = std::fs::read_to_string(Path::new(file).with_extension("expected"))
            .unwrap_or_else(|_| format!("(no .expected file for {file})"));
        let out = Command::new(env!("CARGO_BIN_EXE_writ"))
            .arg("run")
            .arg(file)
            .env("NO_COLOR", "1")
            .output()
            .expect("writ runs");
        let printed = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if out.status.code() != Some(0) || printed != expected {
            failures.push(format!("{file}: expected\n{expected}printed\n{printed}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
