//! Every ```writ block in the README and in docs/language.md is a program
//! that `writ check` accepts, so the documentation shows working code. A
//! block fenced as ```writ fragment is a piece of a program (it uses names
//! it does not define) and is checked with `--syntax-only`. A ```text block
//! right after a program whose first line is `$ writ run main.writ` shows
//! exactly what running it prints (standard output, then standard error).

use std::path::Path;
use std::process::Command;

fn blocks(markdown: &str) -> Vec<(usize, String, bool)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String, bool)> = None;
    for (i, line) in markdown.lines().enumerate() {
        match &mut current {
            None if line.trim_start() == "```writ" => current = Some((i + 1, String::new(), false)),
            None if line.trim_start() == "```writ fragment" => {
                current = Some((i + 1, String::new(), true))
            }
            Some((start, text, fragment)) if line.trim_start() == "```" => {
                out.push((*start, std::mem::take(text), *fragment));
                current = None;
            }
            Some((_, text, _)) => {
                text.push_str(line);
                text.push('\n');
            }
            None => {}
        }
    }
    out
}

/// The ```text block that directly follows the code block starting at
/// `line` (1-based line of its fence), if it shows `writ check` output.
fn output_after(markdown: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = markdown.lines().collect();
    let mut i = line;
    while lines.get(i).is_some_and(|l| l.trim_start() != "```") {
        i += 1;
    }
    i += 1;
    while lines.get(i).is_some_and(|l| l.trim().is_empty()) {
        i += 1;
    }
    if lines.get(i).map(|l| l.trim_start()) != Some("```text") {
        return None;
    }
    let body: Vec<&str> = lines
        .iter()
        .skip(i + 1)
        .take_while(|l| l.trim_start() != "```")
        .copied()
        .collect();
    body.first()
        .is_some_and(|f| f.ends_with(": accepted"))
        .then(|| body.join("\n"))
}

/// Every ```text block that starts with `PATH.writ: accepted`, where PATH
/// is a file of the repository, is exactly what `writ check PATH` prints
/// from the repository's root.
#[test]
fn documented_outputs_of_repository_files_are_exact() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut failures = Vec::new();
    let mut count = 0;
    for doc in ["README.md", "docs/language.md"] {
        let text = std::fs::read_to_string(root.join(doc)).expect("doc exists");
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if line.trim_start() != "```text" {
                continue;
            }
            let body: Vec<&str> = lines
                .iter()
                .skip(i + 1)
                .take_while(|l| l.trim_start() != "```")
                .copied()
                .collect();
            let Some(path) = body
                .first()
                .and_then(|f| f.strip_suffix(": accepted"))
                .filter(|p| root.join(p).is_file())
            else {
                continue;
            };
            count += 1;
            let out = Command::new(env!("CARGO_BIN_EXE_writ"))
                .arg("check")
                .arg(path)
                .current_dir(root)
                .env("NO_COLOR", "1")
                .output()
                .expect("writ runs");
            let printed = String::from_utf8_lossy(&out.stdout);
            let documented = body.join("\n") + "\n";
            if printed != documented {
                failures.push(format!(
                    "{doc}:{}: documented\n{documented}\nprinted\n{printed}",
                    i + 1
                ));
            }
        }
    }
    assert!(
        count >= 1,
        "expected documented outputs of repository files"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The ```text block after the code block starting at `line`, if it
/// shows a run (`$ writ run main.writ`): the documented output.
fn run_after(markdown: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = markdown.lines().collect();
    let mut i = line;
    while lines.get(i).is_some_and(|l| l.trim_start() != "```") {
        i += 1;
    }
    i += 1;
    while lines.get(i).is_some_and(|l| l.trim().is_empty()) {
        i += 1;
    }
    if lines.get(i).map(|l| l.trim_start()) != Some("```text")
        || lines.get(i + 1).map(|l| l.trim()) != Some("$ writ run main.writ")
    {
        return None;
    }
    let body: Vec<&str> = lines
        .iter()
        .skip(i + 2)
        .take_while(|l| l.trim_start() != "```")
        .copied()
        .collect();
    Some(body.join("\n") + "\n")
}

#[test]
fn documented_runs_print_what_the_document_shows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut failures = Vec::new();
    let mut count = 0;
    for doc in ["README.md", "docs/language.md"] {
        let text = std::fs::read_to_string(root.join(doc)).expect("doc exists");
        for (line, program, _) in blocks(&text) {
            let Some(documented) = run_after(&text, line) else {
                continue;
            };
            count += 1;
            let dir =
                std::env::temp_dir().join(format!("writ-docs-run-{}-{count}", std::process::id()));
            std::fs::create_dir_all(&dir).expect("temp dir");
            std::fs::write(dir.join("main.writ"), &program).expect("write");
            let out = Command::new(env!("CARGO_BIN_EXE_writ"))
                .args(["run", "main.writ"])
                .current_dir(&dir)
                .env("NO_COLOR", "1")
                .output()
                .expect("writ runs");
            let _ = std::fs::remove_dir_all(&dir);
            let printed = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            if printed != documented {
                failures.push(format!(
                    "{doc}:{line}: `writ run` prints something else\n--- documented\n{documented}--- printed\n{printed}"
                ));
            }
        }
    }
    assert!(count >= 2, "expected documented runs, found {count}");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn documented_programs_are_accepted() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("writ-docs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut failures = Vec::new();
    let mut count = 0;
    for doc in ["README.md", "docs/language.md"] {
        let text = std::fs::read_to_string(root.join(doc)).expect("doc exists");
        for (line, program, fragment) in blocks(&text) {
            count += 1;
            let file = dir.join(format!("block{count}.writ"));
            std::fs::write(&file, &program).expect("write");
            let out = Command::new(env!("CARGO_BIN_EXE_writ"))
                .arg("check")
                .args(if fragment {
                    &["--syntax-only"][..]
                } else {
                    &[]
                })
                .arg(&file)
                .env("NO_COLOR", "1")
                .output()
                .expect("writ runs");
            let stdout = String::from_utf8_lossy(&out.stdout);
            if out.status.code() != Some(0) {
                failures.push(format!("{doc}:{line}:\n{program}\n{stdout}"));
            }
            // A ```text block right after the program, starting with
            // `NAME.writ: accepted`, shows the signatures it prints.
            if let Some(shown) = output_after(&text, line) {
                let printed: Vec<&str> = stdout.lines().skip(1).collect();
                let documented: Vec<&str> = shown.lines().skip(1).collect();
                if printed != documented {
                    failures.push(format!(
                        "{doc}:{line}: the documented output differs\n--- documented\n{}\n--- printed\n{}",
                        documented.join("\n"),
                        printed.join("\n")
                    ));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(count >= 8, "expected documented programs, found {count}");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
