//! `writ run --pause-at CAP --save FILE` and `writ resume FILE`, each in
//! its own process: the book_ticket story asks before it pays, pauses at
//! the question, and is finished by a second process; replies that do
//! not fit, replays, a changed file, a wrong person and unknown pause
//! points are refused with their codes and exit codes.

use std::path::{Path, PathBuf};
use std::process::Command;

fn story() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join("book_ticket")
}

/// A fresh path in the temporary directory for this test's `name`.
fn temp(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("writ-pause-resume-{name}-{}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

/// Run `writ args...` in `dir`, with no terminal to ask: (exit code,
/// stdout, stderr).
fn writ(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_writ"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("writ runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Start the confirmed booking, paused at `Confirm`, saved: its store and
/// saved file.
fn paused(name: &str) -> (String, String) {
    let (db, snap) = (temp(&format!("{name}.db")), temp(&format!("{name}.snap")));
    let (db, snap) = (db.display().to_string(), snap.display().to_string());
    let (code, out, err) = writ(
        &story(),
        &[
            "run",
            "book_confirmed.writ",
            "--policy",
            "policy.toml",
            "--db",
            &db,
            "--pause-at",
            "Confirm",
            "--save",
            &snap,
        ],
    );
    assert_eq!(code, 5, "{out}{err}");
    assert_eq!(
        out,
        format!(
            "cheapest: A1-318 with air-one.example for 389.00 EUR\n\
             paused at Confirm.ask(\"Pay 389.00 EUR to air-one.example for A1-318?\")\n  \
             allowed so far: granted\n  \
             reply with --answer (a Bool), --carry-out, --fail MESSAGE or --refuse REASON\n\
             saved to {snap}: continue with `writ resume {snap} --policy policy.toml --carry-out` (or another reply)\n"
        )
    );
    assert_eq!(err, "");
    (db, snap)
}

fn audit(db: &str) -> String {
    let (code, out, err) = writ(&story(), &["audit", "show", "--db", db]);
    assert_eq!(code, 0, "{err}");
    // Dates and program hashes left out.
    out.lines()
        .map(|l| {
            let seq = l.split(' ').next().unwrap_or_default();
            let rest = l.split_once(" ada ").map_or(l, |(_, rest)| rest);
            let rest = rest.split(" [program").next().unwrap_or(rest);
            if seq.starts_with('#') {
                format!("{seq} {rest}")
            } else {
                rest.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_booking_pauses_at_the_question_and_a_second_process_pays() {
    let (db, snap) = paused("pays");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&snap)
            .expect("saved")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "readable by its owner only");
    }
    // Without a reply, the pending question is shown and the file kept.
    let (code, out, _) = writ(&story(), &["resume", &snap, "--policy", "policy.toml"]);
    assert_eq!(code, 5);
    assert!(
        out.ends_with("not saved again: the saved run is unchanged\n"),
        "{out}"
    );
    // An answer that does not fit: E4010, exit 3, nothing used.
    let (code, _, err) = writ(
        &story(),
        &[
            "resume",
            &snap,
            "--policy",
            "policy.toml",
            "--answer",
            "\"yes\"",
        ],
    );
    assert_eq!(code, 3);
    assert!(
        err.starts_with("[E4010] Error: Confirm.ask: expected Bool, found \"yes\""),
        "{err}"
    );
    // Answered: the payment is made, in this second process.
    let (code, out, err) = writ(
        &story(),
        &[
            "resume",
            &snap,
            "--policy",
            "policy.toml",
            "--answer",
            "true",
        ],
    );
    assert_eq!(
        (code, err.as_str()),
        (
            0,
            "note: Http answers came from recorded responses, not the network\n"
        )
    );
    assert_eq!(
        out,
        "cheapest: A1-318 with air-one.example for 389.00 EUR\n\"booked A1-318 (receipt pay-1)\"\n"
    );
    assert_eq!(
        audit(&db),
        "#1 Http.get(\"https://air-one.example/offers\") allowed: allowed by https://air-one.example/offers (recorded response)\n\
         #2 Http.get(\"https://skyways.example/api/offers\") allowed: allowed by https://skyways.example/api/offers (recorded response)\n\
         #3 Confirm.ask(\"Pay 389.00 EUR to air-one.example for A1-318?\") allowed: granted; answered by the host\n\
         #4 Pay.pay(\"air-one.example\", 38900, \"flight A1-318\") allowed: air-one.example is an allowed payee and 389.00 EUR is within the caps\n\
         4 records"
    );
    // Once: the same file again is refused, and nothing more is paid.
    let (code, _, err) = writ(
        &story(),
        &[
            "resume",
            &snap,
            "--policy",
            "policy.toml",
            "--answer",
            "true",
        ],
    );
    assert_eq!(code, 3);
    assert!(
        err.contains("[E4009] Error: snapshot refused: expected a snapshot not resumed before"),
        "{err}"
    );
    assert!(audit(&db).ends_with("4 records"));
}

#[test]
fn refusing_at_the_pause_is_audited_and_the_program_goes_on() {
    let (db, snap) = paused("refuses");
    let (code, out, err) = writ(
        &story(),
        &[
            "resume",
            &snap,
            "--policy",
            "policy.toml",
            "--refuse",
            "Ada wants to think",
        ],
    );
    // The grant's on_deny is the default, `stop`: E4005, exit 3.
    assert_eq!(code, 3, "{out}");
    assert!(audit(&db).contains(
        "#3 Confirm.ask(\"Pay 389.00 EUR to air-one.example for A1-318?\") denied: refused by the host: Ada wants to think"
    ));
    // The host refused, not the policy: the help says who.
    assert!(
        err.contains("Help: the host refused this operation (the policy allowed it)"),
        "{err}"
    );
}

#[test]
fn a_changed_file_another_person_and_unknown_pause_points_are_refused() {
    let (_db, snap) = paused("refused");
    let mut bytes = std::fs::read(&snap).expect("saved");
    if let Some(last) = bytes.last_mut() {
        *last ^= 1;
    }
    let changed = temp("refused-changed.snap");
    std::fs::write(&changed, &bytes).expect("written");
    let changed = changed.display().to_string();
    let (code, _, err) = writ(
        &story(),
        &["resume", &changed, "--policy", "policy.toml", "--carry-out"],
    );
    assert_eq!(code, 3);
    assert!(
        err.contains("[E4009] Error: snapshot refused: expected a snapshot sealed by this store"),
        "{err}"
    );

    // Another person's policy over the same store and program.
    let dir = temp("refused-bob");
    let _ = std::fs::create_dir_all(&dir);
    let policy = std::fs::read_to_string(story().join("policy.toml")).expect("policy");
    let other = dir.join("policy.toml");
    std::fs::write(&other, policy.replace("id = \"ada\"", "id = \"bob\"")).expect("written");
    std::fs::copy(story().join("responses.toml"), dir.join("responses.toml")).expect("copied");
    let (code, _, err) = writ(
        &story(),
        &[
            "resume",
            &snap,
            "--policy",
            &other.display().to_string(),
            "--carry-out",
        ],
    );
    assert_eq!(code, 3);
    assert!(
        err.contains("expected a snapshot of a run for bob, but found one of a run for ada"),
        "{err}"
    );

    let (code, _, err) = writ(
        &story(),
        &[
            "run",
            "book_confirmed.writ",
            "--policy",
            "policy.toml",
            "--pause-at",
            "Confirmm",
            "--save",
            &snap,
        ],
    );
    assert_eq!(code, 3);
    assert!(err.starts_with("[E4011] Error: expected a capability (Http, Pay, Records, Audit, Log, Clock, Confirm) or one of its operations (`Http.post`) to pause at, found `Confirmm`"), "{err}");

    let (code, _, err) = writ(
        &story(),
        &["resume", "policy.toml", "--policy", "policy.toml"],
    );
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: expected a run saved by `writ run --save` in `policy.toml`"),
        "{err}"
    );
}

#[test]
fn with_format_json_a_pause_is_one_json_object() {
    let db = temp("json.db").display().to_string();
    let snap = temp("json.snap").display().to_string();
    let (code, out, err) = writ(
        &story(),
        &[
            "run",
            "book_confirmed.writ",
            "--policy",
            "policy.toml",
            "--db",
            &db,
            "--pause-at",
            "Confirm.ask",
            "--save",
            &snap,
            "--format",
            "json",
        ],
    );
    assert_eq!((code, err.as_str()), (5, ""));
    let doc: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
    assert_eq!(
        doc,
        serde_json::json!({
            "file": "book_confirmed.writ",
            "status": "paused",
            "paused": {
                "operation": "Confirm.ask",
                "capability": "Confirm",
                "arguments": ["Pay 389.00 EUR to air-one.example for A1-318?"],
                "rule": "granted",
                "answer_type": "Bool",
            },
            "log": ["cheapest: A1-318 with air-one.example for 389.00 EUR"],
            "saved": snap,
        })
    );
    let (code, out, _) = writ(
        &story(),
        &[
            "resume",
            &snap,
            "--policy",
            "policy.toml",
            "--answer",
            "false",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0);
    let doc: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
    assert_eq!(doc["value"]["data"], "not booked: Ada said no");
    assert_eq!(doc["status"], "ok");
}

#[test]
fn a_recorded_run_replays_and_a_read_the_recording_lacks_stops_the_run() {
    let reads = temp("reads.json").display().to_string();
    let (db1, db2) = (temp("reads-1.db"), temp("reads-2.db"));
    let (db1, db2) = (db1.display().to_string(), db2.display().to_string());
    let (code, live, _) = writ(
        &story(),
        &[
            "run",
            "book.writ",
            "--policy",
            "policy.toml",
            "--db",
            &db1,
            "--record",
            &reads,
        ],
    );
    assert_eq!(code, 0);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&reads).expect("recorded")).expect("JSON");
    let ops: Vec<&str> = doc["reads"]
        .as_array()
        .expect("reads")
        .iter()
        .filter_map(|r| r["operation"].as_str())
        .collect();
    assert_eq!(ops, ["Http.get", "Http.get", "Http.get"]);
    let (code, replayed, err) = writ(
        &story(),
        &[
            "run",
            "book.writ",
            "--policy",
            "policy.toml",
            "--db",
            &db2,
            "--replay",
            &reads,
        ],
    );
    assert_eq!((code, replayed.as_str()), (0, live.as_str()), "{err}");
    // The confirmed booking asks a question the recording does not hold.
    let (code, _, err) = writ(
        &story(),
        &[
            "run",
            "book_confirmed.writ",
            "--policy",
            "policy.toml",
            "--db",
            &db2,
            "--replay",
            &reads,
        ],
    );
    assert_eq!(code, 3);
    assert!(
        err.starts_with("[E4012] Error: expected a read the recording holds, found Confirm.ask(\"Pay 389.00 EUR to air-one.example for A1-318?\")"),
        "{err}"
    );
    let (code, _, err) = writ(
        &story(),
        &[
            "run",
            "book.writ",
            "--policy",
            "policy.toml",
            "--replay",
            "policy.toml",
        ],
    );
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: in `--replay policy.toml`: expected JSON"),
        "{err}"
    );
}

#[test]
fn a_run_saved_with_a_relative_store_resumes_from_another_directory() {
    let dir = temp("relative");
    let _ = std::fs::create_dir_all(&dir);
    for f in ["book_confirmed.writ", "policy.toml", "responses.toml"] {
        std::fs::copy(story().join(f), dir.join(f)).expect("copied");
    }
    let (code, _, err) = writ(
        &dir,
        &[
            "run",
            "book_confirmed.writ",
            "--policy",
            "policy.toml",
            "--db",
            "here.db",
            "--pause-at",
            "Confirm",
            "--save",
            "run.snap",
        ],
    );
    assert_eq!(code, 5, "{err}");
    let elsewhere = std::env::temp_dir();
    let snap = dir.join("run.snap").display().to_string();
    let policy = dir.join("policy.toml").display().to_string();
    let (code, out, err) = writ(
        &elsewhere,
        &["resume", &snap, "--policy", &policy, "--answer", "true"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.ends_with("\"booked A1-318 (receipt pay-1)\"\n"),
        "{out}"
    );
    assert!(
        !elsewhere.join("here.db").exists(),
        "no store made where resume ran"
    );
}

#[test]
fn a_saved_runs_input_types_are_sealed_with_it_and_its_program_is_bounded() {
    let dir = temp("inputs-dir");
    let _ = std::fs::create_dir_all(&dir);
    std::fs::write(
        dir.join("p.toml"),
        "[principal]\nid = \"ada\"\nrole = \"r\"\n\n[store]\npath = \"s.db\"\n\n[grants.Log]\n\n[grants.Confirm]\n",
    )
    .expect("written");
    std::fs::write(dir.join("r.writ"), "let ok = Confirm.ask(\"go?\")\n[x.c]\n").expect("written");
    std::fs::write(dir.join("in.json"), "{\"x\": {\"c\": 7}}").expect("written");
    let (code, out, err) = writ(
        &dir,
        &[
            "run",
            "r.writ",
            "--policy",
            "p.toml",
            "--input-type",
            "x={ c: Int }",
            "--inputs",
            "in.json",
            "--pause-at",
            "Confirm",
            "--save",
            "r.snap",
        ],
    );
    assert_eq!(code, 5, "{out}{err}");
    let bytes = std::fs::read(dir.join("r.snap")).expect("saved");
    // The header (line 2) is JSON; its input types are changed.
    let mut parts = bytes.splitn(3, |b| *b == b'\n');
    let (first, header, rest) = (
        parts.next().expect("line 1"),
        parts.next().expect("line 2"),
        parts.next().expect("the rest"),
    );
    let mut h: serde_json::Value = serde_json::from_slice(header).expect("JSON");
    h["input_types"] = serde_json::json!(["x={ c: Bool }"]);
    let write = |name: &str, header: &serde_json::Value| {
        let mut changed = first.to_vec();
        changed.push(b'\n');
        changed.extend(serde_json::to_vec(header).expect("JSON"));
        changed.push(b'\n');
        changed.extend_from_slice(rest);
        std::fs::write(dir.join(name), changed).expect("written");
    };
    write("typed.snap", &h);
    let (code, out, err) = writ(
        &dir,
        &[
            "resume",
            "typed.snap",
            "--policy",
            "p.toml",
            "--answer",
            "true",
        ],
    );
    assert_eq!(code, 3, "{out}{err}");
    assert!(
        err.contains("[E4009] Error: snapshot refused: expected a snapshot of this program (hash ")
            && err.contains(") checked with these inputs' types, but found one of another program, or of this one checked with other inputs' types"),
        "{err}"
    );
    // A program in the header over the bound of a source file.
    h["input_types"] = serde_json::json!(["x={ c: Int }"]);
    h["source"] = serde_json::json!(format!("{}1\n", "\n".repeat(2_100_000)));
    write("big.snap", &h);
    let (code, _, err) = writ(
        &dir,
        &[
            "resume", "big.snap", "--policy", "p.toml", "--answer", "true",
        ],
    );
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "error: expected a saved run whose program is at most 2097152 bytes, found 2100002 bytes\n"
    );
    // Untouched, it resumes.
    let (code, out, err) = writ(
        &dir,
        &["resume", "r.snap", "--policy", "p.toml", "--answer", "true"],
    );
    assert_eq!((code, out.as_str()), (0, "[7]\n"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
