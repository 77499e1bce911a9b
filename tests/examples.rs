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
