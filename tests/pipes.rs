//! No command panics when its standard output or standard error is a
//! closed pipe (`writ run f.writ 2>&1 | true`, `... | head`): what cannot
//! be written is dropped, and the exit code is the one the command would
//! have had (docs: README, "Exit codes").
//!
//! Each command is started with a pipe whose reading end is closed
//! before it starts, so every write it makes fails (`EPIPE`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Which of the command's outputs are closed pipes.
#[derive(Clone, Copy, Debug)]
enum Closed {
    Stdout,
    Stderr,
    Both,
}

fn closed_pipe() -> std::io::PipeWriter {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    writer
}

/// Run `writ args` in `dir` with `closed` outputs closed and `input` on
/// standard input; the exit code, and standard error when it is open.
fn run_closed(dir: &Path, args: &[&str], closed: Closed, input: &str) -> (Option<i32>, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_writ"));
    c.args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped());
    let (out, err) = match closed {
        Closed::Stdout => (Stdio::from(closed_pipe()), Stdio::piped()),
        Closed::Stderr => (Stdio::null(), Stdio::from(closed_pipe())),
        Closed::Both => (Stdio::from(closed_pipe()), Stdio::from(closed_pipe())),
    };
    let mut child = c.stdout(out).stderr(err).spawn().expect("writ starts");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input.as_bytes());
    }
    let o = child.wait_with_output().expect("writ ends");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("writ-pipes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let files = [
        ("fails.writ", "Log.info(\"before\")\nlet x = 1 / 0\n"),
        (
            "loud.writ",
            "let xs = list.map(list.range(0, 100000), fn(i) { Log.info(\"line ${i}\") })\nlist.length(xs)\n",
        ),
        ("value.writ", "list.range(0, 100000)\n"),
        ("bad.writ", "let x = (1\n"),
        (
            "policy.toml",
            "[principal]\nid = \"ada\"\nrole = \"r\"\n\n[grants.Log]\n[grants.Audit]\n\n[grants.Pay]\npayees = [\"x.example\"]\ncurrency = \"EUR\"\nmax_payment_cents = 100\non_deny = \"fail\"\n",
        ),
        (
            "pay.writ",
            "Audit.note(\"start\")\nlet r = handle Pay.pay(\"y.example\", 5, \"m\").cents with { Fail.fail(_) => 0 }\nLog.info(\"paid ${r}\")\nPay.pay(\"y.example\", 5, \"m\")\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).expect("write");
    }
    dir
}

#[test]
fn no_command_panics_on_a_closed_output_and_each_keeps_its_exit_code() {
    let dir = scratch();
    use Closed::{Both, Stderr, Stdout};
    // (arguments, standard input, exit code): each with every output
    // closed in turn.
    let cases: &[(&[&str], &str, i32)] = &[
        (&["run", "fails.writ"], "", 3),
        (&["run", "loud.writ"], "", 4),
        (&["run", "value.writ"], "", 0),
        (&["run", "missing.writ"], "", 2),
        (
            &["run", "pay.writ", "--policy", "policy.toml", "--db", "s.db"],
            "",
            3,
        ),
        (&["check", "bad.writ"], "", 1),
        (
            &["check", "--format", "json", "bad.writ", "fails.writ"],
            "",
            1,
        ),
        (&["explain", "E0100"], "", 0),
        (&["primer"], "", 0),
        (&["primer", "--policy", "policy.toml"], "", 0),
        (&["primer", "--policy", "missing.toml"], "", 2),
        (&["explain", "E99"], "", 2),
        (
            &["mcp", "--policy", "policy.toml", "--db", "m.db"],
            concat!(
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
                "\n",
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                "\n",
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run","arguments":{"source":"Log.info(\"hi\")"}}}"#,
                "\n",
            ),
            0,
        ),
        (&["mcp", "--policy", "missing.toml"], "", 2),
        (&["audit", "show", "--db", "s.db"], "", 0),
        (
            &["audit", "show", "--db", "s.db", "--format", "json"],
            "",
            0,
        ),
        (&["audit", "verify", "--db", "s.db"], "", 0),
        (&["audit", "head", "--db", "s.db"], "", 0),
        (&["audit", "verify", "--db", "none.db"], "", 2),
        (&["repl"], "let x = 1\nx + 1\n:type x\n:help\n", 0),
        (&["repl"], "1 / 0\n", 1),
        (
            &["repl", "--policy", "policy.toml", "--db", "s.db"],
            "Audit.note(\"n\")\n:policy\n",
            0,
        ),
        (&["--help"], "", 0),
        (&["--version"], "", 0),
        (&["nonsense"], "", 2),
    ];
    for (args, input, code) in cases {
        for closed in [Stdout, Stderr, Both] {
            let (got, err) = run_closed(&dir, args, closed, input);
            assert_eq!(
                got,
                Some(*code),
                "writ {args:?} with {closed:?} closed: {err}"
            );
            assert!(!err.contains("panicked"), "{err}");
        }
    }
    // With only standard output closed, the error is still said.
    let (_, err) = run_closed(&dir, &["run", "loud.writ"], Stdout, "");
    assert!(
        err.starts_with("[E5004] Error: expected at most 1 MiB of output"),
        "{err}"
    );
    // `db init` creates the store whatever happens to what it says.
    for (i, closed) in [Stdout, Stderr, Both].into_iter().enumerate() {
        let db = format!("new{i}.db");
        assert_eq!(
            run_closed(&dir, &["db", "init", "--db", &db], closed, "").0,
            Some(0)
        );
        assert!(dir.join(&db).is_file());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
