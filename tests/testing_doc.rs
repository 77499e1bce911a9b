//! docs/testing.md shows files and what `writ test` prints for them, and
//! this test holds it to that. A line that is only `` `NAME`: `` (or
//! `` `NAME` holds: ``) followed by a fenced block writes that block to the
//! file NAME (in one scratch directory for the whole document, so later
//! commands see earlier files); a line `` `writ ARGS` prints: `` followed
//! by a ```` ```text ```` or ```` ```json ```` block runs `writ ARGS` there
//! (with `NO_COLOR=1`) and must print exactly that block, standard output
//! then standard error, trailing spaces aside. A line `exit code N.` after
//! the block, if there is one, is the command's exit code; otherwise it
//! must be 0 for output ending in `0 failed` (or JSON with `"failed":0`
//! and no `"error"`) and 1 for any other.
//!
//! With `WRIT_BLESS=1`, the document's output blocks are rewritten with
//! what the commands print (review the diff).

mod transcripts;

use std::path::{Path, PathBuf};
use std::process::Command;

/// One step of the document: write a file, or run a command and compare.
enum Step {
    File {
        name: String,
        text: String,
    },
    Run {
        args: Vec<String>,
        /// Lines of the document holding the expected output (the block's
        /// first and one-past-last line).
        lines: (usize, usize),
        expected: String,
    },
}

fn doc_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/testing.md")
}

/// The file a line names (`` `cart_test.writ`: ``), if it is such a line.
fn file_line(line: &str) -> Option<String> {
    let rest = line.strip_prefix('`')?;
    let (name, after) = rest.split_once('`')?;
    matches!(after, ":" | " holds:")
        .then(|| name.to_string())
        .filter(|n| !n.starts_with("writ ") && !n.contains(' '))
}

fn steps(doc: &str) -> Vec<Step> {
    let lines: Vec<&str> = doc.lines().collect();
    let mut steps = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let file = file_line(line);
        let run = transcripts::command_line(line);
        if file.is_none() && run.is_none() {
            i += 1;
            continue;
        }
        let Some((open, close)) = transcripts::block_after(&lines, i) else {
            i += 1;
            continue;
        };
        let text = lines[open + 1..close].join("\n");
        match (file, run) {
            (Some(name), _) => steps.push(Step::File {
                name,
                text: text + "\n",
            }),
            (None, Some(args)) => steps.push(Step::Run {
                args,
                lines: (open + 1, close),
                expected: text,
            }),
            (None, None) => {}
        }
        i = close + 1;
    }
    steps
}

#[test]
fn every_command_prints_what_the_document_shows() {
    let doc = std::fs::read_to_string(doc_path()).expect("docs/testing.md");
    let steps = steps(&doc);
    let runs = steps
        .iter()
        .filter(|s| matches!(s, Step::Run { .. }))
        .count();
    assert!(runs >= 5, "expected the document's commands, found {runs}");
    let dir = std::env::temp_dir().join(format!("writ-testing-doc-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let bless = std::env::var_os("WRIT_BLESS").is_some();
    let mut lines: Vec<String> = doc.lines().map(str::to_string).collect();
    let mut replacements: Vec<((usize, usize), String)> = Vec::new();
    let mut failures = Vec::new();
    for step in &steps {
        match step {
            Step::File { name, text } => {
                let path = dir.join(name);
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).expect("a directory");
                }
                std::fs::write(&path, text).expect("the file written");
            }
            Step::Run {
                args,
                lines: at,
                expected,
            } => {
                let out = Command::new(env!("CARGO_BIN_EXE_writ"))
                    .args(args)
                    .current_dir(&dir)
                    .env("NO_COLOR", "1")
                    .output()
                    .expect("writ runs");
                let printed = format!(
                    "{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
                let actual: Vec<&str> = printed.trim_end().lines().map(str::trim_end).collect();
                let actual = actual.join("\n");
                let wanted: Vec<&str> = expected.lines().map(str::trim_end).collect();
                let wanted = wanted.join("\n");
                if actual != wanted {
                    if bless {
                        replacements.push((*at, actual.clone()));
                    } else {
                        failures.push(format!(
                            "`writ {}` (docs/testing.md line {}) prints something else\n--- documented\n{wanted}\n--- actual\n{actual}\n---",
                            args.join(" "),
                            at.0
                        ));
                    }
                }
                let code = out.status.code().unwrap_or(-1);
                let doc_lines: Vec<&str> = doc.lines().collect();
                let stated = transcripts::stated_exit(&doc_lines, at.1);
                let all_passed = actual.ends_with(" 0 failed")
                    || (actual.contains("\"failed\":0") && !actual.contains("\"error\""));
                let want_code = stated.unwrap_or(if all_passed { 0 } else { 1 });
                if code != want_code {
                    failures.push(format!(
                        "`writ {}` (docs/testing.md line {}): exit code {code}, expected {want_code}",
                        args.join(" "),
                        at.0
                    ));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    if bless && !replacements.is_empty() {
        for ((start, end), text) in replacements.into_iter().rev() {
            lines.splice(start..end, text.lines().map(str::to_string));
        }
        std::fs::write(doc_path(), lines.join("\n") + "\n").expect("docs/testing.md written");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
