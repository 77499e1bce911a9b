//! The engine's scope rules, each allowed and denied: payment caps (per
//! payment, per run, per day), confirmation, payees; record scopes; denial
//! as `Fail` or as the end of the run; and the types a server shares across
//! threads.

use std::sync::Arc;

mod common;

use common::{audit_lines, run_with};
use writ_host::engine::{Compiled, Decision, Engine, RunOptions};
use writ_host::policy::{self, Policy};

fn policy(extra: &str) -> Policy {
    let text = format!("[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[grants.Log]\n{extra}");
    match policy::parse(&text) {
        Ok(p) => p,
        Err(d) => panic!("{d:#?}"),
    }
}

fn db(name: &str) -> String {
    common::db("engine", name)
}

/// A policy with `extra` grants, in a fresh directory whose
/// `responses.toml` answers `url` with `body`; the directory too.
fn with_recorded(name: &str, url: &str, body: &str, extra: &str) -> (Policy, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("writ-engine-{name}-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(
        dir.join("responses.toml"),
        format!("[[response]]\nurl = \"{url}\"\nbody = \"{body}\"\n"),
    );
    let mut p = policy(extra);
    p.dir = Some(dir.clone());
    (p, dir)
}

const PAY: &str = "[grants.Pay]\npayees = [\"air-one.example\"]\ncurrency = \"EUR\"\nmax_payment_cents = 1000\nmax_run_cents = 1500\nmax_day_cents = 2500\non_deny = \"fail\"\n";

/// A program paying each amount in turn and printing what happened.
fn payments(amounts: &[i64]) -> String {
    let mut s = String::from(
        "fn pay(c: Int) -> Str / {Pay} {\n  handle { let r = Pay.pay(\"air-one.example\", c, \"t\"); \"paid ${r.cents}\" } with { Fail.fail(why) => \"refused\" }\n}\n",
    );
    for a in amounts {
        s.push_str(&format!("Log.info(pay({a}))\n"));
    }
    s
}

#[test]
fn payment_caps_hold_per_payment_per_run_and_per_day() {
    let engine = Engine::new();
    let p = policy(PAY);
    let db = db("caps");
    // 1001 is over the payment cap; 600 + 600 fit the run cap of 1500, a
    // third 600 does not; 0 and negative amounts are refused.
    let o = run_with(&engine, &payments(&[1001, 600, 600, 600, 0, -5]), &p, &db);
    assert_eq!(
        o.output,
        [
            "refused", "paid 600", "paid 600", "refused", "refused", "refused"
        ]
    );
    // The next run starts a new run total, but the day's total (1200 of
    // 2500) allows only one more 1000 and then nothing above 300.
    let o = run_with(&engine, &payments(&[1000, 400, 300]), &p, &db);
    assert_eq!(o.output, ["paid 1000", "refused", "paid 300"]);
    let denied: Vec<&str> = o
        .operations
        .iter()
        .filter(|op| op.decision == Decision::Denied)
        .map(|op| op.rule.as_str())
        .collect();
    assert_eq!(
        denied,
        ["4.00 EUR would bring today's payments to 26.00 EUR, over the cap of 25.00 EUR"]
    );
    let _ = std::fs::remove_file(&db);
}

/// Caps near the largest `Int`: a sum of payments past it is over every
/// cap (it was counted saturating, so a second payment of the largest
/// amount passed a cap of the largest amount, and the run then stopped on
/// an overflow), and the rule's words name the true total.
#[test]
fn caps_near_the_largest_int_are_not_passed_by_overflowing_the_total() {
    let engine = Engine::new();
    let max = i64::MAX;
    let p = policy(&format!(
        "[grants.Pay]\npayees = [\"air-one.example\"]\ncurrency = \"EUR\"\nmax_payment_cents = {max}\nmax_run_cents = {max}\nmax_day_cents = {max}\non_deny = \"fail\"\n"
    ));
    let db = db("caps-max");
    let o = run_with(&engine, &payments(&[max, max, 1]), &p, &db);
    assert_eq!(
        o.output,
        [
            format!("paid {max}"),
            "refused".to_string(),
            "refused".to_string()
        ]
    );
    assert!(o.result.is_ok(), "{:?}", o.result);
    let denied: Vec<&str> = o
        .operations
        .iter()
        .filter(|op| op.decision == Decision::Denied)
        .map(|op| op.rule.as_str())
        .collect();
    assert_eq!(
        denied.first().copied(),
        Some(
            "92233720368547758.07 EUR would bring this run's payments to 184467440737095516.14 EUR, over the cap of 92233720368547758.07 EUR"
        )
    );
    // The next run, the same day: over the day's cap, however it adds up.
    let o = run_with(&engine, &payments(&[max]), &p, &db);
    assert_eq!(o.output, ["refused"]);
    let _ = std::fs::remove_file(&db);
}

#[test]
fn a_payee_off_the_list_is_refused_whatever_its_spelling() {
    let engine = Engine::new();
    let p = policy(PAY);
    let db = db("payee");
    let src = "fn pay(to: Str) -> Str / {Pay} {\n  handle { let r = Pay.pay(to, 100, \"t\"); \"paid ${r.payee}\" } with { Fail.fail(why) => \"refused\" }\n}\n\
Log.info(pay(\"AIR-ONE.example\"))\nLog.info(pay(\"air-one.example.attacker.example\"))\nLog.info(pay(\"attacker.example\"))\n";
    let o = run_with(&engine, src, &p, &db);
    assert_eq!(o.output, ["paid air-one.example", "refused", "refused"]);
    let _ = std::fs::remove_file(&db);
}

#[test]
fn confirmation_is_asked_and_a_no_is_a_denial() {
    let p = policy(&format!("{PAY}confirm = true\n"));
    let db = db("confirm");
    let asked = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = asked.clone();
    let yes_to_small = Engine::new().with_confirm(Arc::new(move |q: &str| {
        if let Ok(mut l) = log.lock() {
            l.push(q.to_string());
        }
        q.contains(" 1.00 ")
    }));
    let o = run_with(&yes_to_small, &payments(&[100, 200]), &p, &db);
    assert_eq!(o.output, ["paid 100", "refused"]);
    let questions = asked.lock().map(|l| l.clone()).unwrap_or_default();
    assert_eq!(
        questions,
        [
            "memo \"t\" — Pay 1.00 EUR to air-one.example?",
            "memo \"t\" — Pay 2.00 EUR to air-one.example?"
        ]
    );
    // With nobody to ask (the default engine), every payment is refused.
    let o = run_with(&Engine::new(), &payments(&[100]), &p, &db);
    assert_eq!(o.output, ["refused"]);
    let _ = std::fs::remove_file(&db);
}

#[test]
fn on_deny_stop_ends_the_run_and_fail_lets_the_program_recover() {
    let engine = Engine::new();
    let stop = policy(&PAY.replace("on_deny = \"fail\"\n", ""));
    let db = db("stop");
    let src = "Log.info(\"before\")\nlet r = Pay.pay(\"attacker.example\", 100, \"x\")\nLog.info(\"after\")\n";
    let o = run_with(&engine, src, &stop, &db);
    assert_eq!(o.output, ["before"]);
    let err = o.result.err().map(|e| (e.code.to_string(), e.message));
    assert_eq!(
        err,
        Some((
            "E4005".to_string(),
            "Pay.pay(\"attacker.example\", 100, \"x\") was denied: attacker.example is not an allowed payee (air-one.example)".to_string()
        ))
    );
    // Unhandled, a `fail` denial ends the run as any `Fail` does (E4003).
    let fail = policy(PAY);
    let o = run_with(&engine, src, &fail, &db);
    assert_eq!(
        o.result.err().map(|e| e.code.to_string()),
        Some("E4003".to_string())
    );
    let _ = std::fs::remove_file(&db);
}

#[test]
fn record_scopes_self_reports_and_all() {
    let dir = std::env::temp_dir().join(format!("writ-engine-records-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let seed = "INSERT INTO employees (id, name, manager, fields) VALUES \
        ('ada', 'Ada', 'boss', '{\"plan\": \"Gold\", \"salary\": \"1\"}'), \
        ('bob', 'Bob', 'ada', '{\"plan\": \"Silver\"}'), \
        ('cy', 'Cy', 'bob', '{}'), ('boss', 'Boss', NULL, '{}');";
    let _ = std::fs::write(dir.join("seed.sql"), seed);
    let src = "fn read(id: Str) -> Str / {Records} {\n  handle { let r = Records.read(id); \"${r.name} ${map.keys(r.fields)}\" } with { Fail.fail(why) => \"refused\" }\n}\n\
Log.info(\"${Records.list()}\")\nLog.info(read(\"ada\"))\nLog.info(read(\"bob\"))\nLog.info(read(\"cy\"))\nLog.info(read(\"boss\"))\nLog.info(read(\"nobody\"))\n";
    let engine = Engine::new();
    let mut outputs = Vec::new();
    for scope in ["self", "reports", "all"] {
        let mut p = policy(&format!(
            "[store]\nseed = \"seed.sql\"\n\n[grants.Records]\nscope = \"{scope}\"\nredact = [\"salary\"]\non_deny = \"fail\"\n"
        ));
        p.dir = Some(dir.clone());
        let db = db(&format!("records-{scope}"));
        outputs.push(run_with(&engine, src, &p, &db).output);
        let _ = std::fs::remove_file(&db);
    }
    assert_eq!(
        outputs,
        [
            vec![
                "[\"ada\"]",
                "Ada [\"plan\"]",
                "refused",
                "refused",
                "refused",
                "refused"
            ],
            vec![
                "[\"bob\", \"cy\"]",
                "refused",
                "Bob [\"plan\"]",
                "Cy []",
                "refused",
                "refused"
            ],
            vec![
                "[\"ada\", \"bob\", \"boss\", \"cy\"]",
                "Ada [\"plan\"]",
                "Bob [\"plan\"]",
                "Cy []",
                "Boss []",
                "refused"
            ],
        ]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn engine_programs_and_policies_can_be_shared_across_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<Engine>();
    shared::<Compiled>();
    shared::<Policy>();
    // Check once, run on several threads.
    let engine = Engine::new();
    let p = policy("");
    let program = match engine.check("Log.info(\"hi\")\n40 + 2\n", &p) {
        Ok(x) => Arc::new(x),
        Err(d) => panic!("{d:#?}"),
    };
    let handles: Vec<_> = (0..3)
        .map(|i| {
            let (engine, p, program) = (engine.clone(), p.clone(), program.clone());
            std::thread::spawn(move || {
                let options = RunOptions {
                    store: Some(db(&format!("thread{i}"))),
                    ..Default::default()
                };
                let o = engine.run(&program, &p, &options, &mut |_: &str| {});
                o.ok().and_then(|o| o.result.ok())
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().ok().flatten().as_deref(), Some("42"));
    }
}

#[test]
fn audit_arguments_false_redacts_them_in_the_log_only() {
    let engine = Engine::new();
    let p = policy(&format!("{PAY}audit_arguments = false\n"));
    let db = db("redact");
    let o = run_with(&engine, &payments(&[100, 5000]), &p, &db);
    assert_eq!(o.output, ["paid 100", "refused"]);
    let store = match writ_host::store::Store::open(&db, None) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    let args: Vec<(String, String)> = store
        .records()
        .unwrap_or_default()
        .into_iter()
        .map(|r| (r.arguments, r.decision))
        .collect();
    assert_eq!(
        args,
        [
            ("(redacted)".to_string(), "allowed".to_string()),
            ("(redacted)".to_string(), "denied".to_string())
        ]
    );
    // The outcome, which stays with the host, keeps them.
    assert_eq!(
        o.operations.first().map(|op| op.arguments.as_str()),
        Some("\"air-one.example\", 100, \"t\"")
    );
    let _ = std::fs::remove_file(&db);
}

#[test]
fn recorded_responses_alone_allow_exactly_the_recorded_urls_and_notes_are_redacted_too() {
    let (p, dir) = with_recorded(
        "recorded",
        "https://a.example/x",
        "hello",
        "[grants.Http]\nrecorded = \"responses.toml\"\non_deny = \"fail\"\n\n[grants.Audit]\naudit_arguments = false\n",
    );
    let db = db("recorded");
    let src = "fn get(u: Str) -> Str / {Http} {\n  handle Http.get(u) with { Fail.fail(why) => \"refused\" }\n}\n\
Log.info(get(\"https://A.example./x\"))\nLog.info(get(\"https://a.example/y\"))\nAudit.note(\"secret\")\n";
    let o = run_with(&Engine::new(), src, &p, &db);
    assert_eq!(o.output, ["hello", "refused"]);
    assert!(o.recorded);
    let store = match writ_host::store::Store::open(&db, None) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    let note = store
        .records()
        .unwrap_or_default()
        .into_iter()
        .find(|r| r.operation == "Audit.note")
        .map(|r| r.arguments);
    assert_eq!(note.as_deref(), Some("(redacted)"));
    let _ = std::fs::remove_file(&db);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_store_of_another_schema_or_a_malformed_recorded_file_stops_before_the_run() {
    let engine = Engine::new();
    // A store written by another schema version is refused, not guessed at.
    let schema_db = db("schema");
    match writ_host::store::Store::open(&schema_db, None) {
        Ok(s) => drop(s),
        Err(e) => panic!("{e}"),
    }
    // Written by another version: the file edited as its owner could.
    let edited = rusqlite::Connection::open(&schema_db)
        .and_then(|c| c.execute_batch("UPDATE meta SET value = '99' WHERE key = 'schema'"));
    assert_eq!(edited, Ok(()));
    let p = policy("");
    let program = match engine.check("Log.info(\"hi\")\n", &p) {
        Ok(x) => x,
        Err(d) => panic!("{d:#?}"),
    };
    let options = RunOptions {
        store: Some(schema_db.clone()),
        ..Default::default()
    };
    let err = engine.run(&program, &p, &options, &mut |_: &str| {}).err();
    assert_eq!(
        err.map(|e| (e.code.to_string(), e.message)),
        Some((
            "E4006".to_string(),
            "expected a store of schema version 3, found version 99: it was written by a newer Writ, which this one cannot read or migrate; use that Writ (or a newer one)".to_string()
        ))
    );
    let _ = std::fs::remove_file(&schema_db);

    // A recorded-responses file with an entry lacking its body.
    let dir = std::env::temp_dir().join(format!("writ-engine-badrec-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(
        dir.join("r.toml"),
        "[[response]]\nurl = \"https://a.example/\"\nbdy = \"x\"\n",
    );
    let mut p = policy("[grants.Http]\nrecorded = \"r.toml\"\n");
    p.dir = Some(dir.clone());
    let db = db("badrec");
    let options = RunOptions {
        store: Some(db.clone()),
        ..Default::default()
    };
    let mut printed = Vec::new();
    let err = engine
        .run(&program, &p, &options, &mut |l: &str| {
            printed.push(l.to_string())
        })
        .err();
    let err = err.map(|e| (e.code.to_string(), e.message));
    assert!(
        err.as_ref().is_some_and(|(c, m)| c == "E4006"
            && m.contains("found `bdy` in response 1, which takes only `url` and `body`")),
        "{err:?}"
    );
    assert!(printed.is_empty(), "nothing ran");
    let _ = std::fs::remove_file(&db);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn what_a_program_chooses_is_escaped_in_operations_and_the_audit_log() {
    let p = policy(PAY);
    let db = db("escaped");
    // A payee crafted to rewrite the terminal line its denial is shown on.
    let src = "handle Pay.pay(\"evil\\u{1b}[2K\\rair-one.example\\u{202E}\", 100, \"m\\nx\").cents with { Fail.fail(_) => 0 }\n";
    let o = run_with(&Engine::new(), src, &p, &db);
    let op = o.operations.first().expect("the payment was asked for");
    assert_eq!(op.decision, Decision::Denied);
    for text in [&op.arguments, &op.rule] {
        assert!(
            !text.chars().any(|c| c.is_control() || c == '\u{202E}'),
            "{text:?}"
        );
    }
    assert!(
        op.rule
            .contains("evil\\u{1b}[2k\\u{d}air-one.example\\u{202e}"),
        "{}",
        op.rule
    );
    let lines = audit_lines(&db);
    assert_eq!(lines.len(), 1);
    assert!(!lines[0].chars().any(|c| c.is_control()), "{lines:?}");
    let _ = std::fs::remove_file(&db);
}

#[test]
fn an_operation_of_a_capability_not_granted_is_refused_and_audited() {
    // Checked where Pay is granted, run where it is not: the host refuses
    // (the checker would have), and keeps a record of the attempt.
    let engine = Engine::new();
    let program = match engine.check(
        "Pay.pay(\"air-one.example\", 100, \"t\").cents\n",
        &policy(PAY),
    ) {
        Ok(p) => p,
        Err(d) => panic!("{d:#?}"),
    };
    let db = db("ungranted");
    let o = common::run(&engine, &program, &policy(""), &db);
    let err = o.result.expect_err("refused");
    assert_eq!(err.code.as_str(), "E4005");
    assert_eq!(
        audit_lines(&db),
        ["Pay.pay(\"air-one.example\", 100, \"t\") denied: not granted by the policy"]
    );
    let _ = std::fs::remove_file(&db);
}

#[test]
fn what_http_post_sends_is_in_its_audit_record() {
    let (p, dir) = with_recorded(
        "post",
        "https://a.example/form",
        "thanks",
        "[grants.Http]\nrecorded = \"responses.toml\"\n",
    );
    let db = db("post");
    let big = "y".repeat(2000);
    let src = format!(
        "Log.info(Http.post(\"https://a.example/form\", \"name=ada\"))\nLog.info(Http.post(\"https://a.example/form\", \"{big}\"))\n"
    );
    let o = run_with(&Engine::new(), &src, &p, &db);
    assert_eq!(o.output, ["thanks", "thanks"]);
    let lines = audit_lines(&db);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0].starts_with("Http.post(\"https://a.example/form\", \"name=ada\") allowed"),
        "{}",
        lines[0]
    );
    // A long body: its start, its length and its hash.
    let hash = writ_host::store::sha256_hex(big.as_bytes());
    assert!(
        lines[1].contains(&format!("… (2000 bytes, sha256 {hash})")),
        "{}",
        lines[1]
    );
    let _ = std::fs::remove_file(&db);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_payment_record_is_escaped_as_every_record_is() {
    let p = policy(PAY);
    let db = db("pay-escaped");
    let src = "Pay.pay(\"air-one.example\", 100, \"a\\u{3164}\\u{1b}b\").cents\n";
    let o = run_with(&Engine::new(), src, &p, &db);
    assert_eq!(o.result.ok().as_deref(), Some("100"));
    let lines = audit_lines(&db);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].contains("a\\u{3164}\\u{1b}b") && lines[0].contains("1.00 EUR is within the caps"),
        "{}",
        lines[0]
    );
    let _ = std::fs::remove_file(&db);
}

#[test]
fn a_write_waiting_for_the_store_ends_when_the_runs_time_is_up() {
    // Another connection holds the store's write lock. The lock wait is
    // 10 s, the run's time 300 ms: the audit record's write stops waiting
    // at the run's time, and the run ends with E5005, not E4006 after 10 s.
    let db = common::db("engine", "lock-run-time");
    let Ok(store) = writ_host::store::Store::open(&db, None) else {
        panic!("store")
    };
    drop(store);
    let Ok(holder) = rusqlite::Connection::open(&db) else {
        panic!("connection")
    };
    assert!(holder.execute_batch("BEGIN IMMEDIATE").is_ok());
    let policy = match policy::parse(
        "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[limits]\ntime = \"300ms\"\n\n[grants.Audit]\n",
    ) {
        Ok(p) => p,
        Err(d) => panic!("{d:#?}"),
    };
    let engine = Engine::new();
    let program = match engine.check("Audit.note(\"waiting\")\n", &policy) {
        Ok(p) => p,
        Err(d) => panic!("{d:#?}"),
    };
    let options = RunOptions {
        store: Some(db.clone()),
        ..Default::default()
    };
    let outcome = engine.run(&program, &policy, &options, &mut |_: &str| {});
    let code = match outcome {
        Ok(o) => o.result.err().map(|e| e.code.to_string()),
        Err(e) => Some(format!("{e:?}")),
    };
    assert_eq!(code.as_deref(), Some("E5005"));
    assert!(holder.execute_batch("COMMIT").is_ok());
    assert_eq!(audit_lines(&db), Vec::<String>::new());
    let _ = std::fs::remove_file(&db);
}

#[test]
fn an_outcome_holds_the_value_as_json_and_what_the_run_used() {
    let engine = Engine::new();
    let p = policy("");
    let o = run_with(&engine, "[Some(1), None]\n", &p, &db("json-ok"));
    assert_eq!(o.result.as_deref(), Ok("[Some(1), None]"));
    let json = o
        .value
        .as_ref()
        .and_then(|v| v.as_ref().ok())
        .map(|j| j.as_str());
    assert_eq!(json, Some("[1,null]"));
    assert_eq!(
        o.value_json().and_then(Result::ok),
        Some(serde_json::json!([1, null]))
    );
    assert!(o.usage.fuel > 0 && o.usage.memory_peak > 0);
    // A failed run has no value, and reports what it used up to the error.
    let o = run_with(
        &engine,
        "fn f(n: Int) -> Int { 1 / n }\nf(0)\n",
        &p,
        &db("json-failed"),
    );
    assert!(o.result.is_err() && o.value.is_none() && o.value_json().is_none());
    assert!(o.usage.fuel > 0);
    // A value whose JSON passes the output limit is refused with E5004,
    // and so is its display: neither is cut.
    let mut small = policy("");
    small.limits.output = 16;
    let o = run_with(&engine, "list.range(0, 100)\n", &small, &db("json-large"));
    let err = o.value.and_then(Result::err).expect("refused");
    assert_eq!(err.code.as_str(), "E5004");
    let err = o.result.expect_err("refused");
    assert_eq!(err.code.as_str(), "E5004");
    assert_eq!(
        err.message,
        "expected the result's display to take at most 16 bytes, but it needed more"
    );
    // One that fits is shown whole.
    let o = run_with(&engine, "list.range(0, 5)\n", &small, &db("json-fits"));
    assert_eq!(o.result.as_deref().ok(), Some("[0, 1, 2, 3, 4]"));
}

#[test]
fn a_run_whose_cancel_flag_is_set_stops_with_e5006_and_pays_nothing_more() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let engine = Engine::new();
    let p = policy(PAY);
    let db = db("cancel");
    let source = "fn spin(n: Int) -> Int { if n < 0 { n } else { spin(n + 1) } }\nLog.info(\"paying\")\nlet r = Pay.pay(\"air-one.example\", 100, \"t\")\nLog.info(\"paid\")\nspin(0)\nPay.pay(\"air-one.example\", 100, \"again\")\n";
    let program = match engine.check(source, &p) {
        Ok(c) => c,
        Err(d) => panic!("{d:#?}"),
    };
    let cancel = Arc::new(AtomicBool::new(false));
    let options = RunOptions {
        store: Some(db.clone()),
        cancel: Some(Arc::clone(&cancel)),
        ..Default::default()
    };
    // The host sets the flag once the first payment is through; the run
    // is spinning by then, and its next check stops it.
    let flag = Arc::clone(&cancel);
    let mut log = |line: &str| {
        if line == "paid" {
            flag.store(true, Ordering::SeqCst);
        }
    };
    let o = match engine.run(&program, &p, &options, &mut log) {
        Ok(o) => o,
        Err(e) => panic!("{e:?}"),
    };
    let err = o.result.err().map(|e| e.code.to_string());
    assert_eq!(err.as_deref(), Some("E5006"));
    let payments: Vec<_> = o
        .operations
        .iter()
        .filter(|op| op.operation.starts_with("Pay."))
        .collect();
    assert_eq!(payments.len(), 1, "{:?}", o.operations);

    // Without the flag set, the same options run to the end.
    let quick = match engine.check("Log.info(\"hi\")\n1 + 1\n", &p) {
        Ok(c) => c,
        Err(d) => panic!("{d:#?}"),
    };
    cancel.store(false, Ordering::SeqCst);
    let o = match engine.run(&quick, &p, &options, &mut |_: &str| {}) {
        Ok(o) => o,
        Err(e) => panic!("{e:?}"),
    };
    assert_eq!(o.result.ok().as_deref(), Some("2"));
}

#[test]
fn an_engine_keeps_a_stores_connection_only_while_its_path_names_the_same_file() {
    let engine = Engine::new();
    let policy = match engine
        .parse_policy("[principal]\nid = \"ada\"\nrole = \"r\"\n\n[grants.Log]\naudit = true\n")
    {
        Ok(p) => p,
        Err(d) => panic!("{d:#?}"),
    };
    let db = common::db("engine", "kept");
    let first = common::run_with(&engine, "Log.info(\"one\")\n", &policy, &db);
    let second = common::run_with(&engine, "Log.info(\"two\")\n", &policy, &db);
    assert_eq!(
        (first.audit_ids.clone(), second.audit_ids.clone()),
        (vec![1], vec![2])
    );
    assert_eq!(common::audit_lines(&db).len(), 2);
    // The file is removed and made again: the next run writes to the new
    // one, not to the connection kept to the old.
    let _ = std::fs::remove_file(&db);
    let third = common::run_with(&engine, "Log.info(\"three\")\n", &policy, &db);
    assert_eq!(third.audit_ids, [1]);
    let lines = common::audit_lines(&db);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("three"), "{lines:?}");
    let _ = std::fs::remove_file(&db);
}

#[path = "../../tests/postgres/support.rs"]
mod postgres_support;

#[test]
fn a_kept_connection_to_postgres_serves_only_runs_that_reach_it_the_same_way() {
    let Some(url) = postgres_support::fresh_database() else {
        return;
    };
    let engine = Engine::new();
    let options = RunOptions {
        store: Some(url.clone()),
        ..Default::default()
    };
    let p = policy("[grants.Audit]\n");
    let program = match engine.check("Audit.note(\"hi\")\n", &p) {
        Ok(x) => x,
        Err(d) => panic!("{d:#?}"),
    };
    // Twice: the second run takes the connection the first kept.
    for _ in 0..2 {
        let o = engine.run(&program, &p, &options, &mut |_: &str| {});
        assert!(matches!(o.map(|o| o.result), Ok(Ok(_))));
    }
    // A policy that takes the password from a variable that is not set
    // is refused, connection kept or not.
    let unset = policy("[grants.Audit]\n[store]\npassword_env = \"WRIT_TEST_NO_SUCH_VARIABLE\"\n");
    let err = engine
        .run(&program, &unset, &options, &mut |_: &str| {})
        .err();
    assert_eq!(
        err.map(|e| (e.code.to_string(), e.message)),
        Some((
            "E4006".to_string(),
            "the policy takes the store's password from the environment variable WRIT_TEST_NO_SUCH_VARIABLE, which is not set".to_string()
        ))
    );
    // A wrong password is refused by the server, though a connection
    // made with the right one is kept.
    let wrong = std::env::temp_dir().join(format!("writ-wrong-pw-{}", std::process::id()));
    assert!(std::fs::write(&wrong, "not the password\n").is_ok());
    let wrong_policy = policy(&format!(
        "[grants.Audit]\n[store]\npassword_file = \"{}\"\n",
        wrong.display()
    ));
    let err = engine
        .run(&program, &wrong_policy, &options, &mut |_: &str| {})
        .err();
    let said = err
        .map(|e| (e.code.to_string(), e.message))
        .unwrap_or_default();
    assert_eq!(said.0, "E4006");
    assert!(
        said.1.starts_with(&format!(
            "cannot open the store {url}: password authentication failed"
        )),
        "{}",
        said.1
    );
    let _ = std::fs::remove_file(&wrong);
    assert_eq!(common::audit_lines(&url).len(), 2);
}

#[test]
fn an_engine_holds_at_most_max_connections_to_postgres_stores() {
    let (Some(first), Some(second)) = (
        postgres_support::fresh_database(),
        postgres_support::fresh_database(),
    ) else {
        return;
    };
    let engine = Engine::new();
    let p = policy("[grants.Audit]\n[store]\nmax_connections = 1\nlock_wait = \"200ms\"\n");
    let note = match engine.check("Audit.note(\"hi\")\n", &p) {
        Ok(x) => x,
        Err(d) => panic!("{d:#?}"),
    };
    let on = |db: &str| RunOptions {
        store: Some(db.to_string()),
        ..Default::default()
    };
    let ran = |db: &str| {
        engine
            .run(&note, &p, &on(db), &mut |_: &str| {})
            .map(|o| o.result.is_ok())
            .map_err(|e| e.message)
    };
    // One after another: the kept connection is used again, and closed
    // to make room for one to another database.
    assert_eq!(ran(&first), Ok(true));
    assert_eq!(ran(&first), Ok(true));
    assert_eq!(ran(&second), Ok(true));
    assert_eq!(ran(&first), Ok(true));
    // At once: while a long run holds the one connection, another waits
    // its lock wait for it, then is refused.
    let long = match engine.check(
        "fn go(n: Int) -> () / {Audit, Log} {\n  if n > 0 {\n    Audit.note(\"op\")\n    go(n - 1)\n  }\n}\nLog.info(\"started\")\ngo(3000)\n",
        &policy("[grants.Audit]\n[store]\nmax_connections = 1\n[limits]\ntime = \"60s\"\n"),
    ) {
        Ok(x) => x,
        Err(d) => panic!("{d:#?}"),
    };
    let (started, holding) = std::sync::mpsc::channel();
    let held = {
        let (engine, long, options) = (engine.clone(), long, on(&first));
        let long_policy =
            policy("[grants.Audit]\n[store]\nmax_connections = 1\n[limits]\ntime = \"60s\"\n");
        std::thread::spawn(move || {
            let o = engine.run(&long, &long_policy, &options, &mut |_: &str| {
                let _ = started.send(());
            });
            o.map(|o| o.result.is_ok()).map_err(|e| e.message)
        })
    };
    assert_eq!(holding.recv(), Ok(()));
    assert_eq!(
        ran(&second),
        Err("all 1 of this host's connections to PostgreSQL stores (the policy's [store] max_connections) were in use by other runs for over 200 ms".to_string())
    );
    assert_eq!(held.join().ok(), Some(Ok(true)));
    assert_eq!(ran(&second), Ok(true));
}

#[test]
fn a_memo_holding_a_nul_character_is_refused_on_every_store() {
    let engine = Engine::new();
    let p = policy(
        "[grants.Pay]\npayees = [\"air-one.example\"]\ncurrency = \"EUR\"\nmax_payment_cents = 500\nmax_day_cents = 500\n",
    );
    let db = db("nulmemo");
    let o = run_with(
        &engine,
        "Pay.pay(\"air-one.example\", 100, \"a\\u{0}b\")\n",
        &p,
        &db,
    );
    assert_eq!(
        o.result.err().map(|e| e.message),
        Some("Pay.pay(\"air-one.example\", 100, \"a\\0b\") was denied: a memo may not hold a NUL character".to_string())
    );
    assert_eq!(
        audit_lines(&db),
        vec![
            "Pay.pay(\"air-one.example\", 100, \"a\\0b\") denied: a memo may not hold a NUL character"
        ]
    );
    let _ = std::fs::remove_file(&db);
}

/// A new store is readable by its owner only: it holds the records a
/// policy redacts and the key that seals saved runs.
#[cfg(unix)]
#[test]
fn a_new_store_is_readable_by_its_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let engine = Engine::new();
    let db = db("private");
    let _ = std::fs::remove_file(&db);
    let o = run_with(&engine, "Log.info(\"x\")", &policy(""), &db);
    assert!(o.result.is_ok(), "{:?}", o.result);
    let mode = std::fs::metadata(&db).map(|m| m.permissions().mode() & 0o777);
    assert_eq!(mode.ok(), Some(0o600));
    let _ = std::fs::remove_file(&db);
}

#[test]
fn a_recorded_responses_file_is_read_strictly() {
    let engine = Engine::new();
    let dir = std::env::temp_dir().join(format!("writ-engine-strictrec-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let ok = "[[response]]\nurl = \"https://a.example/x\"\nbody = \"{}\"\n";
    // Each file, and what its refusal says (each with E4006, before anything runs).
    let cases: &[(&str, &str)] = &[
        (
            "[[responses]]\nurl = \"https://a.example/x\"\nbody = \"{}\"\n",
            "found `responses`, which is not `response`",
        ),
        (
            "[response]\nurl = \"https://a.example/x\"\nbody = \"{}\"\n",
            "found `response` as a single value, not a list of `[[response]]` tables",
        ),
        (
            "[[response]]\nurl = \"https://a.example/x\"\nbody = \"{}\"\nstatus = 404\n",
            "found `status` in response 1, which takes only `url` and `body`",
        ),
        (
            "[[response]]\nurl = \"https://a.example/x\"\nbody = 3\n",
            "found response 1 without a `url` and a `body` of text",
        ),
        ("# nothing yet\n", "found no `[[response]]`"),
        (
            "[[response]]\nurl = \"https://a.example/x\"\nbody = \"{}\"\n[[response]]\nurl = \"HTTPS://A.example/x\"\nbody = \"[]\"\n",
            "found https://a.example/x recorded twice (response 2 again)",
        ),
        ("response = [1]\n", "found response 1 not a table"),
        // A long key is shown by its start and length.
        (
            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx = 1\n",
            "found `xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx… (100 bytes, shown shortened)`, which is not `response`",
        ),
    ];
    let program = match engine.check("Log.info(\"hi\")\n", &policy("")) {
        Ok(x) => x,
        Err(d) => panic!("{d:#?}"),
    };
    for (i, (file, said)) in cases.iter().chain([&(ok, "")]).enumerate() {
        let _ = std::fs::write(dir.join("r.toml"), file);
        let mut p = policy("[grants.Http]\nrecorded = \"r.toml\"\n");
        p.dir = Some(dir.clone());
        let db = db(&format!("strictrec{i}"));
        let options = RunOptions {
            store: Some(db.clone()),
            ..Default::default()
        };
        let mut printed = Vec::new();
        let err = engine
            .run(&program, &p, &options, &mut |l: &str| {
                printed.push(l.to_string())
            })
            .err()
            .map(|e| (e.code.to_string(), e.message, e.help.unwrap_or_default()));
        if said.is_empty() {
            assert!(err.is_none(), "{err:?}");
            assert_eq!(printed, ["hi"]);
        } else {
            let (code, message, help) = err.expect("refused");
            assert_eq!(code, "E4006", "{message}");
            assert!(
                message.starts_with("expected recorded responses in "),
                "{message}"
            );
            assert!(message.contains(said), "{message}");
            assert!(help.ends_with("nothing was run"), "{help}");
            assert!(printed.is_empty(), "nothing ran");
        }
        let _ = std::fs::remove_file(&db);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
