//! Recording a run's reads and replaying them (`ReadMode`): a replayed
//! run makes the same choices without performing its reads; the policy
//! still decides each; a read the recording lacks stops the run
//! (`E4012`); a recorded answer of another type is `E4010`; acts are
//! never replayed; a malformed recording is refused.

use std::sync::Arc;

mod common;

use common::audit_lines;
use writ_host::engine::{Engine, ReadMode, Recording, RunOptions};
use writ_host::policy::Policy;

fn engine(now: i64, confirm: bool) -> Engine {
    Engine::new()
        .with_clock(Arc::new(move || now))
        .with_confirm(Arc::new(move |_: &str| confirm))
}

fn policy(engine: &Engine, name: &str) -> Policy {
    let dir = std::env::temp_dir().join(format!("writ-reads-{name}-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(
        dir.join("seed.sql"),
        "INSERT INTO employees (id, name, manager, fields) VALUES ('ada', 'Ada', 'bob', '{\"plan\": \"Gold\"}'), ('bob', 'Bob', NULL, '{}');",
    );
    let _ = std::fs::write(
        dir.join("responses.toml"),
        "[[response]]\nurl = \"https://fares.example/osl\"\nbody = \"120\"\n",
    );
    let text = "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[store]\nseed = \"seed.sql\"\n\n\
        [grants.Log]\n\n[grants.Clock]\n\n[grants.Confirm]\n\n\
        [grants.Http]\nrecorded = \"responses.toml\"\non_deny = \"fail\"\n\n\
        [grants.Records]\nscope = \"self\"\naudit = true\non_deny = \"fail\"\n\n\
        [grants.Pay]\npayees = [\"air-one.example\"]\ncurrency = \"EUR\"\nmax_payment_cents = 1000\n";
    let mut p = engine
        .parse_policy(text)
        .unwrap_or_else(|d| panic!("{d:#?}"));
    p.dir = Some(dir);
    p
}

const TEXT: &str = "\
let fare = Http.get(\"https://fares.example/osl\")
let me = Records.read(\"ada\")
let t = Clock.now()
let ok = Confirm.ask(\"pay ${fare}?\")
Log.info(\"${me.name} ${me.manager} ${t} ${ok}\")
let r = Pay.pay(\"air-one.example\", 100, \"fare ${fare}\")
\"${fare} ${r.id}\"
";

fn run(
    engine: &Engine,
    p: &Policy,
    text: &str,
    db: &str,
    reads: ReadMode,
) -> writ_host::engine::Outcome {
    let program = engine.check(text, p).unwrap_or_else(|d| panic!("{d:#?}"));
    let options = RunOptions {
        store: Some(db.to_string()),
        reads,
        ..RunOptions::default()
    };
    engine
        .run(&program, p, &options, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e:?}"))
}

#[test]
fn a_replayed_run_makes_the_same_choices_without_performing_its_reads() {
    let (a, b) = (engine(1_000, true), engine(2_000, false));
    let p = policy(&a, "replay");
    let db = common::db("reads", "record");
    let recorded = run(&a, &p, TEXT, &db, ReadMode::Record);
    assert_eq!(recorded.output, ["Ada Some(\"bob\") 1000 true"]);
    let ops: Vec<&str> = recorded
        .reads
        .iter()
        .map(|r| r.operation.as_str())
        .collect();
    assert_eq!(
        ops,
        ["Http.get", "Records.read", "Clock.now", "Confirm.ask"],
        "acts and Log are not reads recorded"
    );
    let recording = Recording {
        reads: recorded.reads.clone(),
    };
    // Through its JSON, as `--record` writes it and `--replay` reads it.
    let recording = Recording::from_json(&recording.to_json()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(recording.reads, recorded.reads);

    // Another clock, and a person who would say no: the same run, the
    // answers coming from the recording.
    let db2 = common::db("reads", "replay");
    let replayed = run(&b, &p, TEXT, &db2, ReadMode::Replay(Arc::new(recording)));
    assert_eq!(replayed.output, recorded.output);
    assert_eq!(replayed.result.as_deref().ok(), Some("\"120 pay-1\""));
    assert_eq!(
        audit_lines(&db2),
        [
            "Http.get(\"https://fares.example/osl\") allowed: a recorded URL (recorded response); replayed from the recording",
            "Records.read(\"ada\") allowed: scope \"self\": the principal's own record; replayed from the recording",
            "Pay.pay(\"air-one.example\", 100, \"fare 120\") allowed: air-one.example is an allowed payee and 1.00 EUR is within the caps",
        ],
        "the act is performed, never replayed"
    );
}

#[test]
fn the_policy_decides_a_replayed_read_and_a_missing_one_stops_the_run() {
    let e = engine(1_000, true);
    let p = policy(&e, "missing");
    let db = common::db("reads", "missing-record");
    let recorded = run(
        &e,
        &p,
        "Records.read(\"ada\").name\n",
        &db,
        ReadMode::Record,
    );
    let mut recording = Recording {
        reads: recorded.reads,
    };
    // A forged recording of a coworker's record: the scope denies the read
    // before the recording is looked at.
    let mut forged = recording.reads[0].clone();
    forged.arguments = vec![serde_json::json!("bob")];
    recording.reads.push(forged);
    let recording = Arc::new(recording);
    let text = "let mine = Records.read(\"ada\").name\nlet theirs = handle { Records.read(\"bob\").name } with { Fail.fail(why) => \"denied\" }\n\"${mine} ${theirs}\"\n";
    let o = run(
        &e,
        &p,
        text,
        &common::db("reads", "missing-scope"),
        ReadMode::Replay(recording.clone()),
    );
    assert_eq!(o.result.as_deref().ok(), Some("\"Ada denied\""));

    let o = run(
        &e,
        &p,
        "Records.read(\"ada\").name ++ Records.read(\"ada\").name\n",
        &common::db("reads", "missing"),
        ReadMode::Replay(recording),
    );
    let err = o.result.expect_err("E4012");
    assert_eq!(err.code.as_str(), "E4012");
    assert_eq!(
        err.message,
        "expected a read the recording holds, found Records.read(\"ada\"), which it does not (or not as many times)"
    );
}

#[test]
fn a_recorded_answer_of_another_type_is_refused_and_a_malformed_recording_too() {
    let e = engine(1_000, true);
    let p = policy(&e, "types");
    let recording = Recording::from_json(&serde_json::json!({
        "format": 1,
        "reads": [{ "operation": "Clock.now", "arguments": [], "answer": "noon" }],
    }))
    .unwrap_or_else(|e| panic!("{e}"));
    let o = run(
        &e,
        &p,
        "Clock.now() + 1\n",
        &common::db("reads", "types"),
        ReadMode::Replay(Arc::new(recording)),
    );
    let err = o.result.expect_err("E4010");
    assert_eq!(err.code.as_str(), "E4010");
    assert_eq!(err.message, "Clock.now: expected Int, found \"noon\"");

    for (doc, why) in [
        (
            serde_json::json!({ "reads": [] }),
            "expected a recording of reads of format 1 (`\"format\": 1`), found none",
        ),
        (
            serde_json::json!({ "format": 1 }),
            "expected a list `reads`, found none",
        ),
        (
            serde_json::json!({ "format": 1, "reads": [{ "operation": "now", "arguments": [], "answer": 1 }] }),
            "expected read 0 to hold an `operation` (`Http.get`), its `arguments` (a list) and its `answer`, found {\"answer\":1,\"arguments\":[],\"operation\":\"now\"}",
        ),
    ] {
        assert_eq!(Recording::from_json(&doc).err().as_deref(), Some(why));
    }
}

#[test]
fn what_a_recording_keeps_is_bounded_by_the_memory_limit() {
    let e = engine(1_000, true);
    let dir = std::env::temp_dir().join(format!("writ-reads-bound-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let page = "x".repeat(20_000);
    let _ = std::fs::write(
        dir.join("responses.toml"),
        format!("[[response]]\nurl = \"https://fares.example/big\"\nbody = \"{page}\"\n"),
    );
    let text = "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[limits]\nmemory = \"64K\"\n\n[grants.Http]\nrecorded = \"responses.toml\"\n";
    let mut p = e.parse_policy(text).unwrap_or_else(|d| panic!("{d:#?}"));
    p.dir = Some(dir);
    let source = "fn get(n: Int) -> Int / {Http} {\n  if n == 0 { 0 } else { str.length(Http.get(\"https://fares.example/big\")) + get(n - 1) }\n}\nget(5)\n";
    let o = run(
        &e,
        &p,
        source,
        &common::db("reads", "bound"),
        ReadMode::Record,
    );
    let err = o.result.expect_err("E5002");
    assert_eq!(err.code.as_str(), "E5002");
    assert!(
        err.message.starts_with("expected the recorded reads to take at most 65536 bytes (the memory limit), but Http.get would take "),
        "{}",
        err.message
    );
    assert_eq!(
        o.reads.len(),
        3,
        "three pages of 20 KB fit, the fourth does not"
    );
    // Not recording, the same run keeps nothing and ends.
    let o = run(
        &e,
        &p,
        source,
        &common::db("reads", "bound-live"),
        ReadMode::Live,
    );
    assert_eq!(o.result.as_deref().ok(), Some("100000"));
}

#[test]
fn a_replayed_answer_is_held_to_the_policys_rules_on_answers() {
    // A recording made under a broader policy (or edited by hand): the
    // policy in force narrows a list to its scope, redacts a record's
    // fields, denies another's record and a response over its bound.
    let e = engine(1_000, true);
    let dir = std::env::temp_dir().join(format!("writ-reads-rules-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(
        dir.join("seed.sql"),
        "INSERT INTO employees (id, name, manager, fields) VALUES ('ada', 'Ada', NULL, '{}');",
    );
    let text = "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[store]\nseed = \"seed.sql\"\n\n\
        [grants.Http]\nallow = [\"https://fares.example/\"]\nmax_response_bytes = 10\non_deny = \"fail\"\n\n\
        [grants.Records]\nscope = \"self\"\nredact = [\"salary\"]\naudit = true\non_deny = \"fail\"\n";
    let mut p = e.parse_policy(text).unwrap_or_else(|d| panic!("{d:#?}"));
    p.dir = Some(dir);
    let record = |id: &str| {
        serde_json::json!({ "id": id, "name": "Ada", "manager": null,
            "fields": { "salary": "1000000", "plan": "Gold" } })
    };
    let recording = Recording::from_json(&serde_json::json!({
        "format": 1,
        "reads": [
            { "operation": "Records.list", "arguments": [], "answer": ["bob", "ada", "cy"] },
            { "operation": "Records.read", "arguments": ["ada"], "answer": record("ada") },
            { "operation": "Records.read", "arguments": ["ada"], "answer": record("bob") },
            { "operation": "Http.get", "arguments": ["https://fares.example/a"], "answer": "120" },
            { "operation": "Http.get", "arguments": ["https://fares.example/b"], "answer": "x".repeat(11) },
        ],
    }))
    .unwrap_or_else(|e| panic!("{e}"));
    let source = "\
let ids = Records.list()
let mine = Records.read(\"ada\")
let forged = handle { Records.read(\"ada\").name } with { Fail.fail(why) => why }
let a = Http.get(\"https://fares.example/a\")
let b = handle { Http.get(\"https://fares.example/b\") } with { Fail.fail(why) => why }
\"${ids} ${map.keys(mine.fields)} ${a}\\n${forged}\\n${b}\"
";
    let db = common::db("reads", "rules");
    let o = run(&e, &p, source, &db, ReadMode::Replay(Arc::new(recording)));
    assert_eq!(
        o.result.as_deref().ok(),
        Some(
            "\"[\\\"ada\\\"] [\\\"plan\\\"] 120\\nRecords.read(\\\"ada\\\") was denied: the recorded record is bob's, not ada's\\nHttp.get(\\\"https://fares.example/b\\\") was denied: the recorded response of https://fares.example/b is larger than 10 bytes\""
        ),
        "{:?}",
        o.result
    );
    let audit = audit_lines(&db);
    assert!(
        audit
            .iter()
            .any(|l| l.contains("the recorded record is bob's, not ada's"))
            && audit.iter().any(|l| l.contains("is larger than 10 bytes")),
        "{audit:#?}"
    );
}

/// A policy's `recorded` response is held to the grant's
/// `max_response_bytes` as a live one is: one over it is denied (and
/// audited so), one within it answered.
#[test]
fn a_recorded_response_over_the_grants_bound_is_denied() {
    let e = engine(1_000, true);
    let dir = std::env::temp_dir().join(format!("writ-reads-recorded-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(
        dir.join("responses.toml"),
        "[[response]]\nurl = \"https://fares.example/small\"\nbody = \"0123456789\"\n\n\
         [[response]]\nurl = \"https://fares.example/big\"\nbody = \"0123456789a\"\n",
    );
    let text = "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[grants.Http]\nrecorded = \"responses.toml\"\nmax_response_bytes = 10\naudit = true\n";
    let mut p = e.parse_policy(text).unwrap_or_else(|d| panic!("{d:#?}"));
    p.dir = Some(dir);
    let db = common::db("reads", "recorded-bound");
    let o = run(
        &e,
        &p,
        "Http.get(\"https://fares.example/small\")",
        &db,
        ReadMode::Live,
    );
    assert_eq!(o.result.as_deref().ok(), Some("\"0123456789\""));
    let o = run(
        &e,
        &p,
        "Http.get(\"https://fares.example/big\")",
        &db,
        ReadMode::Live,
    );
    let err = o.result.expect_err("denied");
    assert_eq!(err.code.as_str(), "E4005", "{}", err.message);
    assert!(
        err.message
            .contains("the recorded response of https://fares.example/big is larger than 10 bytes"),
        "{}",
        err.message
    );
    let denied: Vec<_> = o
        .operations
        .iter()
        .filter(|op| op.decision == writ_host::engine::Decision::Denied)
        .collect();
    assert_eq!(denied.len(), 1, "{:?}", o.operations);
}
