//! docs/primer.md is what a model reads instead of the whole manual, so
//! every claim in its code must hold. Its fenced blocks are of three kinds:
//!
//! - ```` ```writ ````: a whole program that `writ check` accepts without a
//!   warning. If the block right before it is a ```` ```toml ```` policy,
//!   it is checked and run under that policy (a principal is put before a
//!   policy without one; the store is a fresh file).
//! - ```` ```output ````, right after a program: exactly what running it
//!   prints (standard output, then standard error). A program that runs
//!   without a policy and prints anything must have one: every program
//!   that prints is run.
//! - ```` ```toml ````: a policy (or its grants) that `writ` accepts.
//!
//! No other kind of block is allowed, so nothing in the primer goes
//! unchecked. The file is at most 13 KB and its core (up to
//! `<!-- core ends -->`) at most 4 KB.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One fenced block: its info string, first line (1-based) and text.
struct Block {
    info: String,
    line: usize,
    text: String,
}

fn blocks(markdown: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut current: Option<Block> = None;
    for (i, line) in markdown.lines().enumerate() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut current, fence) {
            (None, Some(info)) => {
                current = Some(Block {
                    info: info.trim().to_string(),
                    line: i + 1,
                    text: String::new(),
                })
            }
            (Some(_), Some(_)) => {
                if let Some(b) = current.take() {
                    out.push(b);
                }
            }
            (Some(b), None) => {
                b.text.push_str(line);
                b.text.push('\n');
            }
            (None, None) => {}
        }
    }
    out
}

fn primer_text() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(root.join("docs/primer.md")).expect("docs/primer.md")
}

/// A policy block as a whole policy: with a principal if it has none.
fn whole_policy(block: &str) -> String {
    if block.contains("[principal]") {
        block.to_string()
    } else {
        format!("[principal]\nid = \"e1\"\nrole = \"employee\"\n\n{block}")
    }
}

/// A fresh directory for one block's files.
fn scratch(n: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("writ-primer-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

fn writ(dir: &Path, args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_writ"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("writ runs");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[test]
fn the_primer_fits_a_prompt() {
    let text = primer_text();
    assert!(
        text.len() <= 13 * 1024,
        "docs/primer.md is {} bytes, over 13 KB",
        text.len()
    );
    assert_eq!(
        text.matches("<!-- core ends -->").count(),
        1,
        "docs/primer.md marks the end of its core exactly once"
    );
    let core = writ::primer::core();
    assert!(
        core.len() <= 4 * 1024,
        "the primer's core is {} bytes, over 4 KB",
        core.len()
    );
    assert_eq!(writ::primer::PRIMER, text, "the binary carries the file");
}

#[test]
fn every_block_of_the_primer_is_checked() {
    let text = primer_text();
    let all = blocks(&text);
    let mut failures = Vec::new();
    let mut programs = 0;
    let mut runs = 0;
    for (n, b) in all.iter().enumerate() {
        let at = format!("docs/primer.md:{}", b.line);
        match b.info.as_str() {
            "toml" => {
                if let Err(d) = writ_host::policy::parse(&whole_policy(&b.text)) {
                    let messages: Vec<&String> = d.iter().map(|d| &d.message).collect();
                    failures.push(format!("{at}: a policy writ refuses: {messages:?}"));
                }
            }
            "output" => {
                if n == 0 || all.get(n - 1).map(|p| p.info.as_str()) != Some("writ") {
                    failures.push(format!("{at}: an output block must follow a program"));
                }
            }
            "writ" => {
                programs += 1;
                let dir = scratch(n);
                std::fs::write(dir.join("main.writ"), &b.text).expect("write the program");
                let policy = n
                    .checked_sub(1)
                    .and_then(|p| all.get(p))
                    .filter(|p| p.info == "toml");
                let mut check = vec!["check", "main.writ"];
                let mut run = vec!["run", "main.writ"];
                if let Some(p) = policy {
                    std::fs::write(dir.join("policy.toml"), whole_policy(&p.text))
                        .expect("write the policy");
                    check.extend(["--policy", "policy.toml"]);
                    run.extend(["--policy", "policy.toml", "--db", "store.db"]);
                }
                let (_, checked) = writ(&dir, &check);
                if !checked.starts_with("main.writ: accepted\n") {
                    failures.push(format!("{at}: `writ check` says\n{checked}"));
                    let _ = std::fs::remove_dir_all(&dir);
                    continue;
                }
                let expected = all
                    .get(n + 1)
                    .filter(|o| o.info == "output")
                    .map(|o| o.text.clone());
                // Without a policy, `writ run` grants `Log`: a program that
                // needs more is only checked, unless it shows its output.
                let runnable =
                    policy.is_some() || writ(&dir, &["check", "--grant", "Log", "main.writ"]).0;
                if runnable {
                    runs += 1;
                    let (_, printed) = writ(&dir, &run);
                    let want = expected.unwrap_or_default();
                    if printed != want {
                        failures.push(format!(
                            "{at}: `writ run` prints something else\n--- shown\n{want}--- printed\n{printed}"
                        ));
                    }
                } else if expected.is_some() {
                    failures.push(format!(
                        "{at}: shows an output but cannot run without a policy: put one before it"
                    ));
                }
                let _ = std::fs::remove_dir_all(&dir);
            }
            other => failures.push(format!("{at}: a ```{other} block, which nothing checks")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(
        programs >= 5,
        "expected programs in the primer, found {programs}"
    );
    assert!(runs >= 5, "expected programs run, found {runs}");
}

/// The functions of each namespace, from the generated reference's
/// headings (`### `list.map``).
fn library() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let reference = std::fs::read_to_string(root.join("docs/stdlib.md")).expect("docs/stdlib.md");
    reference
        .lines()
        .filter_map(|l| l.strip_prefix("### `")?.strip_suffix('`'))
        .filter_map(|name| name.split_once('.'))
        .map(|(ns, f)| (ns.to_string(), f.to_string()))
        .collect()
}

/// The primer's list of the standard library names every function, and
/// every `namespace.function` the primer mentions exists.
#[test]
fn the_primer_names_the_standard_library_exactly() {
    let text = primer_text();
    let library = library();
    assert!(library.len() > 100, "expected the reference's functions");
    let section = text
        .split("## The standard library")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("a section listing the standard library");
    // Each bullet, its continuation lines joined: "- `list`: length ...".
    let mut listed: Vec<(String, String)> = Vec::new();
    for bullet in section.split("\n- ").skip(1) {
        let Some((ns, names)) = bullet.strip_prefix('`').and_then(|b| b.split_once("`: ")) else {
            continue;
        };
        let names = names.split(" (").next().unwrap_or_default();
        listed.extend(
            names
                .split_whitespace()
                .map(|f| (ns.to_string(), f.to_string())),
        );
    }
    let missing: Vec<String> = library
        .iter()
        .filter(|f| !listed.contains(f))
        .map(|(ns, f)| format!("{ns}.{f}"))
        .collect();
    let unknown: Vec<String> = listed
        .iter()
        .filter(|f| !library.contains(f))
        .map(|(ns, f)| format!("{ns}.{f}"))
        .collect();
    assert!(missing.is_empty(), "the primer does not list {missing:?}");
    assert!(
        unknown.is_empty(),
        "the primer lists {unknown:?}, which do not exist"
    );
    // Every `ns.name` written anywhere in the primer.
    let namespaces: Vec<&str> = library.iter().map(|(ns, _)| ns.as_str()).collect();
    let mut wrong = Vec::new();
    let bytes = text.as_bytes();
    for (at, _) in text.match_indices('.') {
        let before = text[..at]
            .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .next()
            .unwrap_or_default();
        let after = text[at + 1..]
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .next()
            .unwrap_or_default();
        let starts_word = at.checked_sub(before.len() + 1).is_none_or(|i| {
            !(bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b'.')
        });
        if namespaces.contains(&before) && !after.is_empty() && starts_word {
            let pair = (before.to_string(), after.to_string());
            if !library.contains(&pair) {
                wrong.push(format!("{before}.{after}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the primer mentions {wrong:?}, which do not exist"
    );
}
