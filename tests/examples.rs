//! Every program in `examples/` and `stdlib/` passes `writ check`.

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
    let mut files = writ_files(&root.join("examples"));
    files.extend(writ_files(&root.join("stdlib")));
    assert!(
        files.len() >= 3,
        "expected examples and stdlib files, found {files:?}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_writ"))
        .arg("check")
        .args(&files)
        .env("NO_COLOR", "1")
        .output()
        .expect("writ runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert_eq!(stdout.lines().count(), files.len(), "{stdout}");
}
