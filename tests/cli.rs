//! The `writ` command line: exit codes, file errors, formats, `explain`,
//! `--version`. Output is compared as a user sees it.

use std::path::PathBuf;
use std::process::{Command, Output};

fn writ(args: &[&str], dir: &std::path::Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_writ"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("writ runs")
}

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("writ-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr_of(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn accepted_rejected_and_exit_codes() {
    let dir = scratch("codes");
    std::fs::write(dir.join("ok.writ"), "let x = 1\n").unwrap();
    std::fs::write(dir.join("bad.writ"), "let x = (1\n").unwrap();

    let o = writ(&["check", "ok.writ"], &dir);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "ok.writ: accepted\n");

    let o = writ(&["check", "ok.writ", "bad.writ"], &dir);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(
        text.starts_with(
            "ok.writ: accepted\n[E0010] Error: expected `)` to close the `(` opened at 1:9"
        ),
        "{text}"
    );
    assert!(text.ends_with("bad.writ: rejected: 1 error\n"), "{text}");
    // Piped output is never coloured.
    assert!(!text.contains('\u{1b}'));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unreadable_files_exit_2_and_name_the_problem() {
    let dir = scratch("io");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("latin1.writ"), b"let s = \"caf\xe9\"\n").unwrap();
    std::fs::write(dir.join("bad.writ"), "let x = (1\n").unwrap();
    let big = vec![b' '; writ::MAX_SOURCE_BYTES as usize + 1];
    std::fs::write(dir.join("big.writ"), big).unwrap();

    let o = writ(&["check", "missing.writ"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stdout(&o).starts_with("[E9001] Error: cannot read `missing.writ`: "),
        "{}",
        stdout(&o)
    );

    let o = writ(&["check", "sub"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stdout(&o),
        "[E9002] Error: expected a Writ source file, found the directory `sub`\n  in sub\n  Help: name the `.writ` files inside it\nsub: not checked\n"
    );

    let o = writ(&["check", "latin1.writ"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).starts_with(
        "[E9003] Error: expected UTF-8 text, found an invalid byte at offset 12 (line 1)\n"
    ));

    let o = writ(&["check", "big.writ"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).starts_with(
        "[E9004] Error: expected a source file of at most 2097152 bytes, found 2097153 bytes\n"
    ));

    // An unreadable file wins over a rejected one.
    let o = writ(&["check", "bad.writ", "missing.writ"], &dir);
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn json_format_is_one_document() {
    let dir = scratch("json");
    std::fs::write(dir.join("bad.writ"), "let x = 1 +\n").unwrap();
    std::fs::write(dir.join("ok.writ"), "let x = 1\n").unwrap();
    let o = writ(
        &[
            "check",
            "--format",
            "json",
            "bad.writ",
            "ok.writ",
            "nope.writ",
        ],
        &dir,
    );
    assert_eq!(o.status.code(), Some(2));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    assert_eq!(doc["version"], 1);
    let files = doc["files"].as_array().expect("files");
    assert_eq!(files.len(), 3);
    assert_eq!(files[0]["status"], "rejected");
    assert_eq!(files[1]["status"], "accepted");
    assert_eq!(files[2]["status"], "unreadable");
    let d = &files[0]["diagnostics"][0];
    assert_eq!(d["code"], "E0100");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["file"], "bad.writ");
    assert_eq!(d["message"], "expected an expression, found end of input");
    assert_eq!(d["labels"][0]["primary"], true);
    assert_eq!(d["labels"][0]["start"]["line"], 1);
    assert_eq!(d["labels"][0]["start"]["column"], 12);
    assert_eq!(d["labels"][0]["start"]["offset"], 11);
    assert_eq!(files[2]["diagnostics"][0]["code"], "E9001");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn explain_prints_the_documented_section() {
    let dir = scratch("explain");
    let o = writ(&["explain", "E0010"], &dir);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with("## E0010: unclosed delimiter\n"));
    let lower = writ(&["explain", "e0010"], &dir);
    assert_eq!(stdout(&lower), stdout(&o));

    let o = writ(&["explain", "E4242"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "error: `E4242` is not a Writ diagnostic code (codes look like `E0100`; see docs/errors.md)\n"
    );
    // A warning's number with an error's letter: the code meant is named.
    let o = writ(&["explain", "E3008"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "error: `E3008` is not a Writ diagnostic code; did you mean `W3008`? (see docs/errors.md)\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn version_and_usage_errors() {
    let dir = scratch("usage");
    let o = writ(&["--version"], &dir);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), format!("writ {}\n", env!("CARGO_PKG_VERSION")));

    // No subcommand, no files, an unknown format: usage errors, exit 2.
    assert_eq!(writ(&[], &dir).status.code(), Some(2));
    assert_eq!(writ(&["check"], &dir).status.code(), Some(2));
    assert_eq!(
        writ(&["check", "--format", "xml", "a.writ"], &dir)
            .status
            .code(),
        Some(2)
    );
    assert_eq!(writ(&["frobnicate"], &dir).status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn endless_device_is_too_large_not_read_forever() {
    let dir = scratch("device");
    let o = writ(&["check", "/dev/zero"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).starts_with(
        "[E9004] Error: expected a source file of at most 2097152 bytes, found more\n"
    ));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn grant_checks_the_manifest_and_its_own_names() {
    let dir = scratch("grant");
    std::fs::write(
        dir.join("fetch.writ"),
        "let page = Http.get(\"https://a.example\")\nLog.info(page)\n",
    )
    .expect("write");
    // Without --grant: accepted, with the manifest.
    let o = writ(&["check", "fetch.writ"], &dir);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("capability Http: Http.get (read) at fetch.writ:1:12"));
    // Everything needed granted (`Fail` may be named; it needs no grant).
    let o = writ(&["check", "--grant", "Http,Log,Fail", "fetch.writ"], &dir);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    // Too little granted: rejected, the program was not run.
    let o = writ(&["check", "--grant", "Log", "fetch.writ"], &dir);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("[E3002]"));
    assert!(stdout(&o).contains("the program was not run"));
    // Nothing granted.
    let o = writ(&["check", "--grant", "", "fetch.writ"], &dir);
    assert_eq!(o.status.code(), Some(1));
    // A name that is not a capability is a usage error.
    let o = writ(&["check", "--grant", "Htp,log", "fetch.writ"], &dir);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("`Htp` is not a host capability"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_usage_errors_exit_2_and_say_what_was_expected() {
    let dir = scratch("run-usage");
    std::fs::write(dir.join("ok.writ"), "1 + 1\n").expect("write");
    let cases: [(&[&str], &str); 4] = [
        (
            &["run", "--limit", "speed=1", "ok.writ"],
            "expected one of fuel, memory, depth, output, time; found `speed`",
        ),
        (
            &["run", "--limit", "fuel", "ok.writ"],
            "in `--limit fuel`: expected `name=value` (like `fuel=1000000`), found `fuel`",
        ),
        (
            &["run", "--limit", "memory=lots", "ok.writ"],
            "expected a size such as 4096, 64K, 256M or 1G, found `lots`",
        ),
        (&["run", "missing.writ"], "[E9001]"),
    ];
    for (args, message) in cases {
        let out = writ(args, &dir);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    let out = writ(&["run", "--limit", "fuel=1000000", "ok.writ"], &dir);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "2\n");
}

#[test]
fn policy_grants_check_the_manifest_and_a_malformed_policy_exits_2() {
    let dir = scratch("policy");
    let prog = "let page = Http.get(\"https://air-one.example/offers\")\nLog.info(page)\n";
    std::fs::write(dir.join("main.writ"), prog).expect("write");
    std::fs::write(
        dir.join("log.toml"),
        "[principal]\nid = \"e1\"\nrole = \"employee\"\n\n[grants.Log]\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("web.toml"),
        "[principal]\nid = \"e1\"\nrole = \"employee\"\n\n[grants.Log]\n\n[grants.Http]\nallow = [\"https://air-one.example/offers\"]\n",
    )
    .expect("write");
    std::fs::write(dir.join("bad.toml"), "[principal]\nid = \"e1\"\n").expect("write");

    let o = writ(&["check", "--policy", "web.toml", "main.writ"], &dir);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));

    let o = writ(&["check", "--policy", "log.toml", "main.writ"], &dir);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("[E3002]"), "{}", stdout(&o));

    let o = writ(&["check", "--policy", "bad.toml", "main.writ"], &dir);
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    assert!(
        out.contains("[E6005]") && out.contains("bad.toml:1:1"),
        "{out}"
    );
    assert!(
        out.ends_with("bad.toml: malformed policy: 1 error; nothing is granted\n"),
        "{out}"
    );

    let o = writ(&["check", "--policy", "missing.toml", "main.writ"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).contains("[E9001]"), "{}", stdout(&o));

    // The files a policy names are read as a run would read them: missing
    // or malformed, the policy grants nothing (exit 2), as a run would not
    // start.
    std::fs::write(
        dir.join("rec.toml"),
        "[principal]\nid = \"e1\"\nrole = \"employee\"\n\n[grants.Log]\n\n[grants.Http]\nrecorded = \"responses.toml\"\n",
    )
    .expect("write");
    let o = writ(&["check", "--policy", "rec.toml", "main.writ"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stdout(&o),
        "[E4006] Error: cannot read the recorded responses responses.toml: No such file or directory (os error 2)\n  in rec.toml\n  Help: nothing was run: the host could not make the checks the policy asks for\nrec.toml: a file the policy names cannot be used; nothing is granted\n"
    );
    std::fs::write(
        dir.join("responses.toml"),
        "[[responses]]\nurl = \"https://air-one.example/offers\"\nbody = \"{}\"\n",
    )
    .expect("write");
    let o = writ(&["check", "--policy", "rec.toml", "main.writ"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stdout(&o),
        "[E4006] Error: expected recorded responses in responses.toml, found `responses`, which is not `response`\n  in rec.toml\n  Help: write each response as a table `[[response]]` with `url = \"...\"` and `body = \"...\"`; nothing was run\nrec.toml: a file the policy names cannot be used; nothing is granted\n"
    );
    std::fs::write(
        dir.join("responses.toml"),
        "[[response]]\nurl = \"https://air-one.example/offers\"\nbody = \"{}\"\n",
    )
    .expect("write");
    let o = writ(&["check", "--policy", "rec.toml", "main.writ"], &dir);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    // Relative to the policy's directory, wherever `writ` runs.
    std::fs::create_dir_all(dir.join("sub")).expect("mkdir");
    std::fs::rename(dir.join("rec.toml"), dir.join("sub/rec.toml")).expect("move");
    std::fs::rename(dir.join("responses.toml"), dir.join("sub/responses.toml")).expect("move");
    let o = writ(&["check", "--policy", "sub/rec.toml", "main.writ"], &dir);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));

    let o = writ(
        &[
            "check",
            "--policy",
            "web.toml",
            "--grant",
            "Log",
            "main.writ",
        ],
        &dir,
    );
    assert_eq!(
        o.status.code(),
        Some(2),
        "--policy and --grant together are a usage error"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn db_init_audit_show_and_the_small_capabilities() {
    let dir = scratch("dbinit");
    std::fs::write(
        dir.join("seed.sql"),
        "INSERT INTO employees (id, name, manager) VALUES ('ada', 'Ada', NULL);\n",
    )
    .expect("write");
    let o = writ(&["db", "init", "--db", "s.db", "--seed", "seed.sql"], &dir);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(stdout(&o), "created s.db\n");
    let o = writ(&["db", "init", "--db", "s.db"], &dir);
    assert_eq!(o.status.code(), Some(2), "an existing store is not touched");

    std::fs::write(
        dir.join("p.toml"),
        "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[grants.Log]\n[grants.Clock]\n[grants.Audit]\n[grants.Records]\nscope = \"self\"\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("main.writ"),
        "let t = Clock.now()\nAudit.note(\"started at a time after 2026: ${t > 1767225600000}\")\nLog.info(Records.read(\"ada\").name)\n",
    )
    .expect("write");
    let o = writ(
        &["run", "main.writ", "--policy", "p.toml", "--db", "s.db"],
        &dir,
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(stdout(&o), "Ada\n");

    let o = writ(&["audit", "show", "--db", "s.db", "--format", "json"], &dir);
    assert_eq!(o.status.code(), Some(0));
    let records: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap_or_default();
    let ops: Vec<(&str, &str)> = records
        .as_array()
        .map(|a| {
            a.iter()
                .map(|r| {
                    (
                        r["operation"].as_str().unwrap_or(""),
                        r["arguments"].as_str().unwrap_or(""),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        ops,
        [
            ("Audit.note", "\"started at a time after 2026: true\""),
            ("Records.read", "\"ada\""),
        ],
        "Clock and Log are not audited unless the policy asks"
    );
    let o = writ(&["audit", "verify", "--db", "s.db"], &dir);
    assert_eq!(
        stdout(&o),
        "the audit log holds: 2 records, each linked to the one before, and the ledger matches them\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn audit_commands_need_a_store_and_a_failed_db_init_leaves_nothing() {
    let dir = scratch("nostore");
    let o = writ(&["audit", "verify", "--db", "typo.db"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        !dir.join("typo.db").exists(),
        "no store is created by reading one"
    );
    std::fs::write(dir.join("bad.sql"), "INSERT INTO nowhere VALUES (1);\n").expect("write");
    let o = writ(&["db", "init", "--db", "new.db", "--seed", "bad.sql"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert!(!dir.join("new.db").exists(), "a failed init leaves no file");
    std::fs::write(dir.join("good.sql"), "SELECT 1;\n").expect("write");
    let o = writ(
        &["db", "init", "--db", "new.db", "--seed", "good.sql"],
        &dir,
    );
    assert_eq!(o.status.code(), Some(0));

    // An unhandled denial (on_deny = "fail") is shown once, as the error.
    std::fs::write(
        dir.join("p.toml"),
        "[principal]\nid = \"a\"\nrole = \"r\"\n\n[grants.Pay]\npayees = [\"x.example\"]\ncurrency = \"EUR\"\nmax_payment_cents = 100\non_deny = \"fail\"\n",
    )
    .expect("write");
    std::fs::write(dir.join("main.writ"), "Pay.pay(\"y.example\", 5, \"m\")\n").expect("write");
    let o = writ(
        &["run", "main.writ", "--policy", "p.toml", "--db", "new.db"],
        &dir,
    );
    assert_eq!(o.status.code(), Some(3));
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(
        err.contains("[E4003]") && !err.contains("denied: Pay.pay"),
        "{err}"
    );
    // Under a policy, E3002 says to grant the capability in the policy.
    std::fs::write(dir.join("rec.writ"), "Records.read(\"a\")\n").expect("write");
    let o = writ(
        &["run", "rec.writ", "--policy", "p.toml", "--db", "new.db"],
        &dir,
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(
        err.contains("add `[grants.Records]` to the policy"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_store_sqlite_would_keep_in_no_file_is_refused_and_named_files_are_bounded() {
    let dir = scratch("nofile-store");
    std::fs::write(
        dir.join("p.toml"),
        "[principal]\nid = \"a\"\nrole = \"r\"\n\n[grants.Pay]\npayees = [\"shop.example\"]\ncurrency = \"EUR\"\nmax_payment_cents = 1000\nmax_day_cents = 1000\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("pay.writ"),
        "Pay.pay(\"shop.example\", 1000, \"x\")\n",
    )
    .expect("write");
    // Each of these would start every run with an empty ledger: the day's
    // cap would not hold. None is opened.
    for db in [":memory:", "file:cap.db?mode=memory"] {
        for args in [
            vec!["db", "init", "--db", db],
            vec!["audit", "show", "--db", db],
        ] {
            let o = writ(&args, &dir);
            assert_eq!(o.status.code(), Some(2), "{args:?}");
            let err = stderr_of(&o);
            assert!(
                err.starts_with("error: expected a SQLite file's path, found "),
                "{args:?}: {err}"
            );
        }
        // A run's store that cannot be opened: nothing runs (E4006).
        let o = writ(&["run", "pay.writ", "--policy", "p.toml", "--db", db], &dir);
        assert_eq!(o.status.code(), Some(3));
        let err = stderr_of(&o);
        assert!(
            err.starts_with("[E4006] Error: expected a SQLite file's path, found ")
                && err.contains("Help: nothing was run"),
            "{err}"
        );
    }
    assert!(!dir.join("cap.db").exists());
    // A seed is read no further than its bound, whatever it is.
    let big = "-- padding\n".repeat(6_200_000);
    std::fs::write(dir.join("big.sql"), big).expect("write");
    let o = writ(&["db", "init", "--db", "s.db", "--seed", "big.sql"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr_of(&o),
        "error: cannot read the seed big.sql: expected a file of at most 67108864 bytes (64 MiB), found more\n"
    );
    assert!(!dir.join("s.db").exists());
    // A policy over the bound is said to be a policy, not a program.
    std::fs::write(
        dir.join("big.toml"),
        format!(
            "[principal]\nid = \"a\"\nrole = \"r\"\n{}\n",
            "#".repeat(2_100_000)
        ),
    )
    .expect("write");
    let o = writ(&["run", "pay.writ", "--policy", "big.toml"], &dir);
    assert_eq!(o.status.code(), Some(2));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        out.contains("expected a policy file of at most 2097152 bytes, found 2100033 bytes")
            && out.contains("a policy grants capabilities and sets limits in a few lines")
            && out.contains("big.toml: policy not read"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_text_report_shows_an_effects_first_20_places_and_counts_the_rest() {
    let dir = scratch("many-places");
    std::fs::write(dir.join("m.writ"), "Log.info(\"a\")\n".repeat(25)).expect("write");
    let o = writ(&["check", "m.writ"], &dir);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    let shown: String = (1..=20)
        .map(|l| format!("Log.info (read) at m.writ:{l}:1, "))
        .collect();
    assert_eq!(
        out,
        format!(
            "m.writ: accepted\n  capability Log: {shown}and 5 more (`--format json` lists every place)\n"
        )
    );
    let o = writ(&["check", "m.writ", "--format", "json"], &dir);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(
        doc["files"][0]["manifest"][0]["sites"]
            .as_array()
            .map(Vec::len),
        Some(25)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn repl_refuses_to_start_with_a_policy_it_cannot_use() {
    let dir = scratch("repl-start");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let missing = writ(&["repl", "--policy", "nope.toml"], &dir);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr_of(&missing).contains("[E9001]"),
        "{}",
        stderr_of(&missing)
    );
    std::fs::write(dir.join("bad.toml"), "[principal]\nid = 3\n").expect("write");
    let malformed = writ(&["repl", "--policy", "bad.toml"], &dir);
    assert_eq!(malformed.status.code(), Some(2));
    assert!(
        stderr_of(&malformed).contains("nothing is granted"),
        "{}",
        stderr_of(&malformed)
    );
    let store = root.join("tests/repl/bad_store.toml");
    let unopenable = writ(&["repl", "--policy", &store.display().to_string()], &dir);
    assert_eq!(unopenable.status.code(), Some(2));
    assert!(
        stderr_of(&unopenable).contains("[E4006]"),
        "{}",
        stderr_of(&unopenable)
    );
    let limit = writ(&["repl", "--limit", "fuel=lots"], &dir);
    assert_eq!(limit.status.code(), Some(2));
    // With nothing to read, it ends at once, successfully.
    let empty = writ(&["repl"], &dir);
    assert_eq!(empty.status.code(), Some(0));
    assert_eq!(stdout(&empty), "");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A store in `dir/name` after three payments (records and ledger rows 1
/// to 3) and a note (record 4).
fn paid_store(dir: &std::path::Path, name: &str) {
    std::fs::write(
        dir.join("pay.toml"),
        "[principal]\nid = \"ada\"\nrole = \"r\"\n\n[grants.Audit]\n\n[grants.Pay]\npayees = [\"x.example\"]\ncurrency = \"EUR\"\nmax_payment_cents = 1000\nmax_day_cents = 1000\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("pay.writ"),
        "let a = Pay.pay(\"x.example\", 100, \"a\")\nlet b = Pay.pay(\"x.example\", 200, \"b\")\nlet c = Pay.pay(\"x.example\", 300, \"c\")\nAudit.note(\"paid\")\n",
    )
    .expect("write");
    let o = writ(
        &["run", "pay.writ", "--policy", "pay.toml", "--db", name],
        dir,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
}

/// Change the store with SQL, its triggers dropped first.
fn tamper(dir: &std::path::Path, name: &str, sql: &str) {
    // The SQLite file edited directly, as its owner could.
    let done = rusqlite::Connection::open(dir.join(name)).and_then(|c| {
        c.execute_batch(&format!(
            "DROP TRIGGER audit_no_delete; DROP TRIGGER ledger_no_update; DROP TRIGGER ledger_no_delete; {sql}"
        ))
    });
    assert_eq!(done, Ok(()));
}

#[test]
fn audit_head_anchors_the_log_and_verify_finds_ledger_and_tail_changes() {
    let dir = scratch("head");
    paid_store(&dir, "s.db");
    let o = writ(&["audit", "head", "--db", "s.db"], &dir);
    assert_eq!(o.status.code(), Some(0));
    let head = stdout(&o).trim_end().to_string();
    let (count, hash) = head.split_once(':').unwrap_or_default();
    assert_eq!(count, "4");
    assert!(
        hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()),
        "{head}"
    );
    let o = writ(&["audit", "verify", "--db", "s.db", "--head", &head], &dir);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout(&o),
        "the audit log holds: 4 records, each linked to the one before, and the ledger matches them; it still holds the head you kept (record 4)\n"
    );

    let verify = |db: &str, head: Option<&str>| {
        let mut args = vec!["audit", "verify", "--db", db];
        args.extend(head.map(|h| ["--head", h]).into_iter().flatten());
        let o = writ(&args, &dir);
        (o.status.code(), stdout(&o))
    };
    let cases = [
        (
            "DELETE FROM ledger WHERE id = 2;",
            "the audit log was tampered with: ledger row 2, the payment of audit record 2, is missing: it was deleted, and the day's total with it\n",
        ),
        (
            "UPDATE ledger SET cents = 1 WHERE id = 1;",
            "the audit log was tampered with: ledger row 1 does not match the hash in its audit record 1: it was edited\n",
        ),
        (
            "INSERT INTO ledger (time_ms, day, principal, payee, cents, currency, memo, audit_seq) VALUES (0, '2026-12-01', 'ada', 'x.example', 5, 'EUR', '', 4);",
            "the audit log was tampered with: ledger row 4 (5 cents to x.example) has no audit record: it was added outside a run\n",
        ),
    ];
    for (i, (sql, said)) in cases.iter().enumerate() {
        let db = format!("t{i}.db");
        std::fs::copy(dir.join("s.db"), dir.join(&db)).expect("copy");
        tamper(&dir, &db, sql);
        assert_eq!(verify(&db, None), (Some(1), said.to_string()), "{sql}");
        // No head is given for a changed log.
        let o = writ(&["audit", "head", "--db", &db], &dir);
        assert_eq!(o.status.code(), Some(1));
        assert!(
            stdout(&o).ends_with("; no head is given for it\n"),
            "{}",
            stdout(&o)
        );
    }

    // The tail removed, the last payment's ledger row with it: the day's
    // total falls and the chain still holds; only the head finds it.
    let tails = [
        ("DELETE FROM audit WHERE seq = 4;", "record 4 was removed"),
        (
            "DELETE FROM audit WHERE seq >= 3; DELETE FROM ledger WHERE id = 3;",
            "records 3 to 4 were removed",
        ),
    ];
    for (i, (sql, removed)) in tails.iter().enumerate() {
        let db = format!("tail{i}.db");
        std::fs::copy(dir.join("s.db"), dir.join(&db)).expect("copy");
        tamper(&dir, &db, sql);
        assert_eq!(verify(&db, None).0, Some(0), "{sql}");
        let (code, said) = verify(&db, Some(&head));
        assert_eq!(code, Some(1));
        let ends = if i == 0 { 3 } else { 2 };
        assert_eq!(
            said,
            format!(
                "the audit log was tampered with: the log ends at record {ends}, but the head you hold is record 4: {removed} from its end\n"
            )
        );
    }
    // A log rewritten whole, hashes and all, ends elsewhere.
    let other = scratch("head-other");
    paid_store(&other, "s.db");
    std::fs::copy(other.join("s.db"), dir.join("rewritten.db")).expect("copy");
    let (code, said) = verify("rewritten.db", Some(&head));
    assert_eq!(code, Some(1));
    assert!(
        said.starts_with(
            "the audit log was tampered with: record 4 is not the head you hold (its hash starts "
        ),
        "{said}"
    );

    // A head not written COUNT:HASH, or given to another action.
    let o = writ(&["audit", "verify", "--db", "s.db", "--head", "4"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr_of(&o),
        "error: in `--head`: expected a head written COUNT:HASH (a number of records, `:`, 64 hex digits); found `4` (`writ audit head` prints one)\n"
    );
    let o = writ(&["audit", "show", "--db", "s.db", "--head", &head], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr_of(&o),
        "error: `--head` goes with `writ audit verify`\n"
    );
    // JSON is what `show` writes; the others say so rather than ignore it.
    for action in ["head", "verify"] {
        let o = writ(&["audit", action, "--db", "s.db", "--format", "json"], &dir);
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(
            stderr_of(&o),
            "error: `--format json` goes with `writ audit show`\n"
        );
    }

    // A store written before the ledger was chained is refused, saying so.
    std::fs::copy(dir.join("s.db"), dir.join("v1.db")).expect("copy");
    tamper(
        &dir,
        "v1.db",
        "UPDATE meta SET value = '1' WHERE key = 'schema';",
    );
    let o = writ(&["audit", "verify", "--db", "v1.db"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr_of(&o),
        "error: expected a store of schema version 3, found version 1: it was written before the ledger was chained into the audit log, and cannot be changed in place; keep it as an archive and create a new store (`writ db init` creates one)\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&other);
}

#[test]
fn audit_verify_says_tampered_only_for_a_changed_log_and_a_failing_store_as_one() {
    let dir = scratch("failing");
    paid_store(&dir, "s.db");
    // A record edited: tampering, exit 1, on standard output.
    std::fs::copy(dir.join("s.db"), dir.join("edited.db")).expect("copy");
    tamper(
        &dir,
        "edited.db",
        "DROP TRIGGER audit_no_update; UPDATE audit SET rule = 'nobody' WHERE seq = 2;",
    );
    let o = writ(&["audit", "verify", "--db", "edited.db"], &dir);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        "the audit log was tampered with: record 2 does not match its hash: it was edited\n"
    );
    assert_eq!(stderr_of(&o), "");

    // The audit table's root made another table's page: the file opens,
    // but the log cannot be read. That is a store failing, not evidence
    // of tampering: an error, exit 2, and nothing on standard output.
    std::fs::copy(dir.join("s.db"), dir.join("unreadable.db")).expect("copy");
    tamper(
        &dir,
        "unreadable.db",
        "PRAGMA writable_schema = ON; UPDATE sqlite_master SET rootpage = (SELECT rootpage FROM sqlite_master WHERE name = 'ledger_day') WHERE name = 'audit'; PRAGMA writable_schema = OFF;",
    );
    let o = writ(&["audit", "verify", "--db", "unreadable.db"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o), "");
    assert_eq!(
        stderr_of(&o),
        "error: the store could not be read (database disk image is malformed); the audit log was not checked\n"
    );
    let o = writ(&["audit", "head", "--db", "unreadable.db"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o), "");
    assert_eq!(
        stderr_of(&o),
        "error: the store could not be read (database disk image is malformed); no head is given for it\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_limit_is_raised_where_it_was_set() {
    let dir = scratch("limit-words");
    std::fs::write(
        dir.join("p.toml"),
        "[principal]\nid = \"a\"\nrole = \"r\"\n\n[limits]\nfuel = 10000\n\n[grants.Log]\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("spin.writ"),
        "fn spin(n) { spin(n + 1) }\nspin(0)\n",
    )
    .expect("write");
    // The policy set it: raised in the policy, not with a flag that would
    // override what the person set.
    let o = writ(
        &["run", "spin.writ", "--policy", "p.toml", "--db", "p.db"],
        &dir,
    );
    assert_eq!(o.status.code(), Some(4));
    assert_eq!(
        stderr_of(&o),
        "[E5001] Error: expected the program to finish within 10000 units of fuel (steps and library work), but it needed more
   ╭─[ spin.writ:1:14 ]
   │
 1 │ fn spin(n) { spin(n + 1) }
   │              ─────┬─────  
   │                   ╰─────── the fuel limit was reached here
   │ 
   │ Help: raise `fuel` in the policy's `[limits]` (p.toml) if the program needs more
   │ 
   │ Note: while running (innermost call first):
   │         spin at 1:14
   │         <top level> at 2:1
───╯
"
    );
    // A `--limit` set it: raised with `--limit`.
    let o = writ(
        &[
            "run",
            "spin.writ",
            "--policy",
            "p.toml",
            "--db",
            "p.db",
            "--limit",
            "fuel=20000",
        ],
        &dir,
    );
    assert_eq!(o.status.code(), Some(4));
    let err = stderr_of(&o);
    assert!(
        err.contains("Help: raise it with `--limit fuel=...` if the program needs more"),
        "{err}"
    );
    // A `--limit` of another limit: the fuel is still the policy's.
    let o = writ(
        &[
            "run",
            "spin.writ",
            "--policy",
            "p.toml",
            "--db",
            "p.db",
            "--limit",
            "depth=5000",
        ],
        &dir,
    );
    assert_eq!(o.status.code(), Some(4));
    let err = stderr_of(&o);
    assert!(
        err.contains(
            "Help: raise `fuel` in the policy's `[limits]` (p.toml) if the program needs more"
        ),
        "{err}"
    );
    // No policy: the default, raised with `--limit`.
    let o = writ(&["run", "spin.writ", "--limit", "fuel=10000"], &dir);
    assert_eq!(o.status.code(), Some(4));
    let err = stderr_of(&o);
    assert!(
        err.contains("Help: raise it with `--limit fuel=...` if the program needs more")
            && !err.contains("policy"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_lists_the_declared_inputs_in_both_formats() {
    let dir = scratch("inputs-check");
    std::fs::write(
        dir.join("book.writ"),
        "fn cents(r: { budget_cents: Int, to: Str }) -> Int { r.budget_cents }\ncents(request)\n",
    )
    .expect("write");
    let ty = "request={ to: Str, budget_cents: Int }";
    let out = writ(&["check", "--input-type", ty, "book.writ"], &dir);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(
        stdout(&out),
        "book.writ: accepted\n  input request: { budget_cents: Int, to: Str }\n  fn cents(r: { budget_cents: Int, to: Str }) -> Int\n"
    );
    let out = writ(
        &["check", "--format", "json", "--input-type", ty, "book.writ"],
        &dir,
    );
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        doc["files"][0]["inputs"],
        serde_json::json!([{ "name": "request", "type": "{ budget_cents: Int, to: Str }" }])
    );
    // Without the declaration the name is unknown (and the JSON output
    // has no `inputs`); with another type, a use that does not fit is
    // rejected.
    let out = writ(&["check", "book.writ"], &dir);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("[E1001]"), "{}", stdout(&out));
    let out = writ(&["check", "--format", "json", "book.writ"], &dir);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(doc["files"][0].get("inputs"), None);
    let out = writ(&["check", "--input-type", "request=Int", "book.writ"], &dir);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("[E2001]"), "{}", stdout(&out));
}

#[test]
fn run_takes_inputs_from_a_json_file_with_or_without_a_policy() {
    let dir = scratch("inputs-run");
    std::fs::write(
        dir.join("book.writ"),
        "Log.info(\"to ${request.to}\")\nrequest.budget_cents / 100\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("in.json"),
        "{ \"request\": { \"to\": \"BER\", \"budget_cents\": 25000 } }\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("bad.json"),
        "{ \"request\": { \"to\": \"BER\", \"budget_cents\": \"500\" } }\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("policy.toml"),
        "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[grants.Log]\n",
    )
    .expect("write");
    let ty = "request={ to: Str, budget_cents: Int }";
    for policy in [&[][..], &["--policy", "policy.toml", "--db", "w.db"][..]] {
        let mut args = vec!["run", "--input-type", ty, "--inputs", "in.json"];
        args.extend_from_slice(policy);
        args.push("book.writ");
        let out = writ(&args, &dir);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr_of(&out));
        assert_eq!(stdout(&out), "to BER\n250\n", "{args:?}");

        let mut args = vec!["run", "--input-type", ty, "--inputs", "bad.json"];
        args.extend_from_slice(policy);
        args.push("book.writ");
        let out = writ(&args, &dir);
        assert_eq!(out.status.code(), Some(3), "{args:?}");
        assert_eq!(stdout(&out), "", "nothing ran: {args:?}");
        assert_eq!(
            stderr_of(&out),
            "[E4007] Error: request.budget_cents: expected Int, found \"500\"\n  in book.writ\n",
            "{args:?}"
        );
    }
}

#[test]
fn malformed_input_arguments_are_usage_errors() {
    let dir = scratch("inputs-usage");
    std::fs::write(dir.join("ok.writ"), "n + 1\n").expect("write");
    std::fs::write(dir.join("list.json"), "[1, 2]\n").expect("write");
    std::fs::write(dir.join("broken.json"), "{ \"n\": \n").expect("write");
    let cases: [(&[&str], &str); 4] = [
        (
            &["run", "--input-type", "n", "ok.writ"],
            "error: expected `--input-type NAME=TYPE` (like `request={ to: Str }`), found `n`\n",
        ),
        (
            &[
                "run",
                "--input-type",
                "n=Int",
                "--inputs",
                "list.json",
                "ok.writ",
            ],
            "error: in `--inputs list.json`: expected a JSON object of the inputs' values by name, found another JSON value\n",
        ),
        (
            &[
                "run",
                "--input-type",
                "n=Int",
                "--inputs",
                "broken.json",
                "ok.writ",
            ],
            "error: in `--inputs broken.json`: expected JSON, found an error: EOF while parsing a value at line 2 column 0\n",
        ),
        (
            &["check", "--input-type", "n", "ok.writ"],
            "error: expected `--input-type NAME=TYPE` (like `request={ to: Str }`), found `n`\n",
        ),
    ];
    for (args, message) in cases {
        let out = writ(args, &dir);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(stderr_of(&out), message, "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    let out = writ(&["run", "--inputs", "missing.json", "ok.writ"], &dir);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).starts_with("error: in `--inputs missing.json`: cannot read it: "),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn db_migrate_needs_a_store_takes_no_seed_and_leaves_one_up_to_date_as_it_is() {
    let dir = scratch("migrate");
    let o = writ(&["db", "migrate", "--db", "none.db"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr_of(&o),
        "error: there is no store at none.db; pass its path with `--db`\n"
    );
    assert!(!dir.join("none.db").exists(), "nothing created");
    let o = writ(&["db", "migrate", "--db", "s.db", "--seed", "x.sql"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr_of(&o),
        "error: `writ db migrate` takes no `--seed`: a seed is run only when a store is created\n"
    );
    let o = writ(&["db", "init", "--db", "s.db"], &dir);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    let o = writ(&["db", "migrate", "--db", "s.db"], &dir);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    assert_eq!(stdout(&o), "s.db is at schema version 3 already\n");
    let _ = std::fs::remove_dir_all(&dir);
}
