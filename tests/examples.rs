//! Every program in `examples/` passes `writ check` (the standard library
//! is checked by `lang/tests/stdlib.rs`), and no example or documented
//! program raises a handler warning (W3006, W3007, W3008).

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

/// Every `.writ` file under `dir`, in its subdirectories too.
fn writ_files_deep(dir: &Path) -> Vec<String> {
    let mut files = writ_files(dir);
    let mut subdirs: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    subdirs.sort();
    for d in subdirs {
        files.extend(writ_files_deep(&d));
    }
    files
}

/// The ```writ blocks (fragments too) of a Markdown document.
fn writ_blocks(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        let fence = line.trim_start();
        match &mut current {
            None if fence == "```writ" || fence.starts_with("```writ ") => {
                current = Some(String::new())
            }
            Some(text) if fence == "```" => {
                out.push(std::mem::take(text));
                current = None;
            }
            Some(text) => {
                text.push_str(line);
                text.push('\n');
            }
            None => {}
        }
    }
    out
}

/// The handler warnings (W3006, W3007, W3008) have no false alarms: no
/// program under `examples/` (the benchmarks and the stories' programs
/// included) and no ```writ block of the README or `docs/` (but
/// `docs/errors.md`, which shows them on purpose) has one. (The
/// standard library has no diagnostic at all: `lang/src/types/items.rs`.)
#[test]
fn handler_warnings_raise_no_false_alarms() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = writ_files_deep(&root.join("examples"));
    assert!(files.len() >= 15, "expected examples, found {files:?}");
    let dir = std::env::temp_dir().join(format!("writ-handler-warnings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut docs: Vec<std::path::PathBuf> = vec![root.join("README.md")];
    if let Ok(entries) = std::fs::read_dir(root.join("docs")) {
        docs.extend(
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "md"))
                // Its examples show every diagnostic on purpose
                // (`tests/errors_doc.rs` checks them).
                .filter(|p| !p.ends_with("errors.md")),
        );
    }
    docs.sort();
    let mut blocks = 0;
    for doc in &docs {
        let text = std::fs::read_to_string(doc).unwrap_or_default();
        for block in writ_blocks(&text) {
            blocks += 1;
            let file = dir.join(format!("block{blocks}.writ"));
            std::fs::write(&file, block).expect("write");
            files.push(file.to_string_lossy().into_owned());
        }
    }
    assert!(
        blocks >= 100,
        "expected documented programs, found {blocks}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_writ"))
        .arg("check")
        .args(&files)
        .env("NO_COLOR", "1")
        .output()
        .expect("writ runs");
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let checked = stdout.lines().filter(|l| l.contains(".writ: ")).count();
    assert_eq!(checked, files.len(), "{stdout}");
    for code in ["[W3006]", "[W3007]", "[W3008]"] {
        assert!(!stdout.contains(code), "{code} raised:\n{stdout}");
    }
}
