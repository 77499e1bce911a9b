//! The course (docs/course/): every lab, on a fresh copy of its directory,
//! as a student and a teacher would meet it.
//!
//! For each `docs/course/labN-.../`:
//! - its README's transcripts are what the binary prints: a line
//!   `` `writ ARGS` prints: `` and the ```` ```text ```` block after it
//!   (standard output then standard error, trailing spaces aside; the exit
//!   code 0, or `N` when the next line says `exit code N.`), and its
//!   ```` ```repl ```` sessions as in docs/repl.md (`$ writ repl ARGS`
//!   starts one; `writ> ` and `  ... ` lines are typed), all run in the
//!   lab's directory, in the order written;
//! - its reference solutions (`instructor/solution/`, copied over
//!   `starter/`) pass every test of `writ test starter`;
//! - its starter files as shipped fail exactly the tests listed in
//!   `instructor/starter_failures.txt`, and pass the others.

mod transcripts;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn labs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/course");
    let mut labs: Vec<PathBuf> = std::fs::read_dir(&root)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.is_dir()
                        && p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.starts_with("lab"))
                })
                .collect()
        })
        .unwrap_or_default();
    labs.sort();
    labs
}

/// Copy the directory `from` to `to`, recursively.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a directory");
    for entry in std::fs::read_dir(from)
        .expect("a readable directory")
        .flatten()
    {
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("a copy");
        }
    }
}

/// A fresh copy of `lab` in the temporary directory.
fn fresh_copy(lab: &Path, purpose: &str) -> PathBuf {
    let name = lab.file_name().and_then(|n| n.to_str()).unwrap_or("lab");
    let dir = std::env::temp_dir().join(format!(
        "writ-course-{}-{name}-{purpose}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    copy_dir(lab, &dir);
    dir
}

/// One checked step of a README.
enum Step {
    Command {
        args: Vec<String>,
        line: usize,
        expected: String,
        code: i32,
    },
    Repl {
        args: Vec<String>,
        line: usize,
        input: String,
        expected: Vec<String>,
    },
}

fn steps(doc: &str) -> Vec<Step> {
    let lines: Vec<&str> = doc.lines().collect();
    let mut steps = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.trim() == "```repl" {
            let close = (i + 1..lines.len())
                .find(|&k| lines[k].trim() == "```")
                .unwrap_or(lines.len());
            for (k, l) in lines.iter().enumerate().take(close).skip(i + 1) {
                if let Some(args) = l.strip_prefix("$ writ repl") {
                    steps.push(Step::Repl {
                        args: args.split_whitespace().map(str::to_string).collect(),
                        line: k + 1,
                        input: String::new(),
                        expected: Vec::new(),
                    });
                    continue;
                }
                if !matches!(steps.last(), Some(Step::Repl { .. })) {
                    steps.push(Step::Repl {
                        args: Vec::new(),
                        line: k + 1,
                        input: String::new(),
                        expected: Vec::new(),
                    });
                }
                let Some(Step::Repl {
                    input, expected, ..
                }) = steps.last_mut()
                else {
                    continue;
                };
                if let Some(typed) = l
                    .strip_prefix("writ> ")
                    .or_else(|| l.strip_prefix("  ... "))
                {
                    input.push_str(typed);
                    input.push('\n');
                } else if *l == "writ>" {
                    input.push('\n');
                } else {
                    expected.push(l.trim_end().to_string());
                }
            }
            i = close + 1;
            continue;
        }
        let Some(args) = transcripts::command_line(line) else {
            i += 1;
            continue;
        };
        let Some((open, close)) = transcripts::block_after(&lines, i) else {
            i += 1;
            continue;
        };
        let expected = lines[open + 1..close].join("\n");
        let code = transcripts::stated_exit(&lines, close).unwrap_or(0);
        steps.push(Step::Command {
            args,
            line: open + 1,
            expected,
            code,
        });
        i = close + 1;
    }
    steps
}

/// What `writ` prints for `args` run in `dir` (with `input` piped in),
/// standard output then standard error, trailing spaces of lines
/// dropped, and its exit code.
fn writ(dir: &Path, args: &[String], input: Option<&str>, merged: bool) -> (String, i32) {
    let mut command = if merged {
        // Both streams into one pipe, so that their order is kept.
        let mut line = "exec \"$0\"".to_string();
        for a in args {
            line.push_str(&format!(" '{a}'"));
        }
        line.push_str(" 2>&1");
        let mut c = Command::new("sh");
        c.arg("-c").arg(line).arg(env!("CARGO_BIN_EXE_writ"));
        c
    } else {
        let mut c = Command::new(env!("CARGO_BIN_EXE_writ"));
        c.args(args);
        c
    };
    let mut child = command
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("writ runs");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input.unwrap_or("").as_bytes());
    }
    let out = child.wait_with_output().expect("writ ends");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = text.trim_end().lines().map(str::trim_end).collect();
    (lines.join("\n"), out.status.code().unwrap_or(-1))
}

#[test]
fn every_lab_s_transcripts_are_what_writ_prints() {
    let labs = labs();
    let mut failures = Vec::new();
    for lab in &labs {
        let doc = std::fs::read_to_string(lab.join("README.md")).unwrap_or_default();
        let dir = fresh_copy(lab, "readme");
        let name = lab.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        for step in steps(&doc) {
            match step {
                Step::Command {
                    args,
                    line,
                    expected,
                    code,
                } => {
                    let (actual, got) = writ(&dir, &args, None, false);
                    let expected: Vec<&str> = expected.lines().map(str::trim_end).collect();
                    let expected = expected.join("\n");
                    if actual != expected || got != code {
                        failures.push(format!(
                            "{name}/README.md line {line}: `writ {}` prints something else (exit {got}, documented {code})\n--- documented\n{expected}\n--- actual\n{actual}\n---",
                            args.join(" ")
                        ));
                    }
                }
                Step::Repl {
                    args,
                    line,
                    input,
                    expected,
                } => {
                    let mut all = vec!["repl".to_string()];
                    all.extend(args);
                    let (actual, _) = writ(&dir, &all, Some(&input), true);
                    let expected = expected.join("\n");
                    if actual != expected.trim_end() {
                        failures.push(format!(
                            "{name}/README.md line {line}: the REPL session prints something else\n--- documented\n{expected}\n--- actual\n{actual}\n---"
                        ));
                    }
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The tests `writ test --format json` ran in `dir`: (name, passed).
fn graded(dir: &Path) -> Vec<(String, bool)> {
    let (out, _) = writ(
        dir,
        &["test".into(), ".".into(), "--format".into(), "json".into()],
        None,
        false,
    );
    let doc: serde_json::Value = serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("{}: not JSON ({e}):\n{out}", dir.display()));
    doc["tests"]
        .as_array()
        .map(|tests| {
            tests
                .iter()
                .map(|t| {
                    (
                        t["name"].as_str().unwrap_or("?").to_string(),
                        t["status"] == "passed",
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn every_lab_s_solutions_pass_and_its_starter_fails_what_it_should() {
    let labs = labs();
    assert!(
        labs.len() >= 7,
        "expected the seven labs, found {}",
        labs.len()
    );
    let mut failures = Vec::new();
    for lab in &labs {
        let name = lab.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        // The reference solutions, in place of the starter files.
        let dir = fresh_copy(lab, "solution");
        copy_dir(&lab.join("instructor/solution"), &dir.join("starter"));
        let results = graded(&dir.join("starter"));
        if results.is_empty() {
            failures.push(format!("{name}: no tests ran"));
        }
        for (test, passed) in &results {
            if !passed {
                failures.push(format!(
                    "{name}: the reference solution fails `{test}` (run `writ test starter` after copying instructor/solution/ over starter/)"
                ));
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
        // The starter files as shipped.
        let dir = fresh_copy(lab, "starter");
        let listed = std::fs::read_to_string(lab.join("instructor/starter_failures.txt"))
            .unwrap_or_default();
        let mut expected: Vec<&str> = listed
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        expected.sort_unstable();
        let results = graded(&dir.join("starter"));
        let mut failed: Vec<&str> = results
            .iter()
            .filter(|(_, p)| !p)
            .map(|(n, _)| n.as_str())
            .collect();
        failed.sort_unstable();
        if failed != expected || expected.is_empty() {
            failures.push(format!(
                "{name}: the starter fails {failed:?}; instructor/starter_failures.txt lists {expected:?}"
            ));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The names of the failed tests in a `writ test --format json` result.
fn failed_in(json: &str) -> Vec<String> {
    let doc: serde_json::Value =
        serde_json::from_str(json).unwrap_or_else(|e| panic!("not JSON ({e}):\n{json}"));
    let mut failed: Vec<String> = doc["tests"]
        .as_array()
        .map(|tests| {
            tests
                .iter()
                .filter(|t| t["status"] != "passed")
                .map(|t| t["name"].as_str().unwrap_or("?").to_string())
                .collect()
        })
        .unwrap_or_default();
    failed.sort_unstable();
    failed
}

/// The course README's grading loop, run as written (by bash) on two
/// submissions of lab 6: the reference solutions pass every test, and a
/// submission whose one change is the lab's own policy (widened to pay
/// the attacker, which makes the starter's attack "succeed") is graded
/// under the lab's policy, failing what the starter fails.
#[test]
fn the_readme_s_grading_loop_grades_with_the_lab_s_own_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/course");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("the course README");
    let from = readme
        .find("To grade a class")
        .expect("the grading section");
    let block = readme[from..]
        .split("```text\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("the grading loop");
    let script = block.replacen("lab=lab3-reference-monitors", "lab=lab6-confused-deputy", 1);
    assert_ne!(script, block, "the loop names its lab on its first line");
    let lab = root.join("lab6-confused-deputy");
    let dir = std::env::temp_dir().join(format!("writ-course-grading-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy_dir(&lab, &dir.join("lab6-confused-deputy"));
    copy_dir(
        &lab.join("instructor/solution"),
        &dir.join("submissions/alice"),
    );
    let mallory = dir.join("submissions/mallory");
    copy_dir(&lab.join("starter"), &mallory);
    let policy = std::fs::read_to_string(mallory.join("policy.toml")).expect("the lab's policy");
    let widened = policy.replace(
        "\"jetlow.example\"]",
        "\"jetlow.example\", \"attacker.example\"]",
    );
    assert_ne!(widened, policy, "the lab's payees are listed as expected");
    std::fs::write(mallory.join("policy.toml"), widened).expect("write the policy");
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_writ"));
    let path = format!(
        "{}:{}",
        bin.parent()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .args(["-e", "-c", &script])
        .current_dir(&dir)
        .env("PATH", path)
        .output()
        .expect("bash runs");
    assert!(
        out.stderr.is_empty(),
        "the loop printed errors: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result = |name: &str| {
        std::fs::read_to_string(dir.join(format!("results/{name}.json"))).expect("a result")
    };
    assert_eq!(failed_in(&result("alice")), Vec::<String>::new());
    let listed =
        std::fs::read_to_string(lab.join("instructor/starter_failures.txt")).unwrap_or_default();
    let mut expected: Vec<String> = listed
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    expected.sort_unstable();
    assert_eq!(failed_in(&result("mallory")), expected);
    let _ = std::fs::remove_dir_all(&dir);
}
