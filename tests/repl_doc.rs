//! docs/repl.md is a transcript: in its ```` ```repl ```` blocks, a line
//! starting `writ> ` or `  ... ` is typed, a `$ writ repl ...` line starts a
//! new session (each block continues the session before it otherwise), and
//! every other line is what the REPL prints (standard output and error, in
//! order). Each session is run with piped input and must print exactly
//! that, trailing spaces aside.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

struct Session {
    args: Vec<String>,
    input: String,
    expected: Vec<String>,
}

fn sessions(doc: &str) -> Vec<Session> {
    let mut out: Vec<Session> = Vec::new();
    let mut in_block = false;
    for line in doc.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block && line.trim() == "```repl";
            continue;
        }
        if !in_block {
            continue;
        }
        if let Some(args) = line.strip_prefix("$ writ repl") {
            out.push(Session {
                args: args.split_whitespace().map(str::to_string).collect(),
                input: String::new(),
                expected: Vec::new(),
            });
            continue;
        }
        if out.is_empty() {
            out.push(Session {
                args: Vec::new(),
                input: String::new(),
                expected: Vec::new(),
            });
        }
        let Some(s) = out.last_mut() else { continue };
        if let Some(typed) = line
            .strip_prefix("writ> ")
            .or_else(|| line.strip_prefix("  ... "))
        {
            s.input.push_str(typed);
            s.input.push('\n');
        } else if line == "writ>" {
            s.input.push('\n');
        } else {
            s.expected.push(line.trim_end().to_string());
        }
    }
    out
}

#[test]
fn the_tour_is_what_the_repl_prints() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/repl.md")).expect("docs/repl.md");
    let all = sessions(&doc);
    assert!(all.len() >= 2, "docs/repl.md has no sessions");
    let tmp = std::env::temp_dir().join(format!("writ-repl-doc-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).expect("a temporary directory");
    for (i, s) in all.iter().enumerate() {
        // Both streams into one pipe, so that their order is kept.
        let mut line = "exec \"$0\" repl".to_string();
        for a in &s.args {
            line.push_str(&format!(
                " '{}'",
                a.replace("{tmp}", &tmp.display().to_string())
            ));
        }
        line.push_str(" 2>&1");
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(&line)
            .arg(env!("CARGO_BIN_EXE_writ"))
            .current_dir(&root)
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("sh runs");
        if let Some(mut stdin) = child.stdin.take() {
            stdin.write_all(s.input.as_bytes()).expect("input written");
        }
        let out = child.wait_with_output().expect("the REPL ends");
        let got: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| l.trim_end().to_string())
            .collect();
        let tmp_text = tmp.display().to_string();
        let got: Vec<String> = got.iter().map(|l| l.replace(&tmp_text, "{tmp}")).collect();
        assert_eq!(
            got.join("\n"),
            s.expected.join("\n"),
            "session {} of docs/repl.md (input:\n{})",
            i + 1,
            s.input
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
