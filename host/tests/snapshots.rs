//! Snapshots of runs paused under a policy (`Pending::to_bytes`,
//! `Engine::restore`): a run saved and restored at every pause ends as a
//! straight run does, with the same audit log (also for generated
//! programs, inside handlers, with multi-shot continuations captured);
//! snapshots of another program, person or store, changed, cut short or
//! replayed are refused (`E4009`); the restoring policy decides the
//! pending operation again; the memory limit bounds a snapshot.

use std::sync::Arc;

mod common;

use common::audit_lines;
use proptest::prelude::*;
use writ_host::engine::{Compiled, Engine, Outcome, PauseAt, Reply, RunOptions, Step};
use writ_host::policy::Policy;

fn engine() -> Engine {
    Engine::new()
        .with_confirm(Arc::new(|q: &str| !q.contains("no")))
        .with_clock(Arc::new(|| 86_400_000 * 20_000 + 5))
}

fn policy(engine: &Engine, extra: &str) -> Policy {
    let text = format!(
        "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[grants.Log]\n\n[grants.Clock]\n\n\
         [grants.Confirm]\naudit = true\n\n[grants.Audit]\n\n\
         [grants.Pay]\npayees = [\"air-one.example\"]\ncurrency = \"EUR\"\nmax_payment_cents = 1000\nmax_run_cents = 1500\nmax_day_cents = 100000\non_deny = \"fail\"\n{extra}"
    );
    match engine.parse_policy(&text) {
        Ok(p) => p,
        Err(d) => panic!("{d:#?}"),
    }
}

fn options(db: &str) -> RunOptions {
    RunOptions {
        store: Some(db.to_string()),
        pause_at: PauseAt::Every,
        ..RunOptions::default()
    }
}

fn check(engine: &Engine, text: &str, p: &Policy) -> Compiled {
    match engine.check(text, p) {
        Ok(c) => c,
        Err(d) => panic!("{d:#?}"),
    }
}

/// Run `program` straight through against a fresh store `db`.
fn straight(engine: &Engine, program: &Compiled, p: &Policy, db: &str) -> Outcome {
    match engine.run(program, p, &options(db), &mut |_| {}) {
        Ok(o) => o,
        Err(e) => panic!("{e:?}"),
    }
}

/// Run `program` against `db`, pausing at every operation, saving the run
/// to bytes there, dropping it and restoring it from the bytes before
/// letting the engine carry the operation out; the outcome and the
/// number of snapshots taken.
fn through_snapshots(
    engine: &Engine,
    program: &Compiled,
    p: &Policy,
    db: &str,
) -> (Outcome, usize) {
    let mut step = match engine.start(program, p, &options(db)) {
        Ok(s) => s,
        Err(e) => panic!("{e:?}"),
    };
    let mut taken = 0;
    loop {
        match step {
            Step::Done(o) => return (o, taken),
            Step::Paused(mut pending) => {
                let bytes = match pending.to_bytes() {
                    Ok(b) => b,
                    Err(e) => panic!("{e:?}"),
                };
                taken += 1;
                drop(pending);
                let restored = match engine.restore(program, p, &bytes, &options(db)) {
                    Ok(Step::Paused(r)) => r,
                    other => panic!("expected the pause again, found {other:?}"),
                };
                step = match restored.resume(Reply::CarryOut) {
                    Ok(s) => s,
                    Err(bad) => panic!("{:?}", bad.error),
                };
            }
        }
    }
}

/// The audit log without what differs between two stores: nothing (the
/// records name the program by hash, the principal, the operation).
fn same_runs(a: &Outcome, b: &Outcome, db_a: &str, db_b: &str) {
    assert_eq!(a.result.as_deref().ok(), b.result.as_deref().ok());
    assert_eq!(
        a.result.as_ref().err().map(|e| e.code),
        b.result.as_ref().err().map(|e| e.code)
    );
    assert_eq!(a.output, b.output);
    assert_eq!(a.operations, b.operations);
    assert_eq!(a.audit_ids, b.audit_ids);
    assert_eq!(audit_lines(db_a), audit_lines(db_b));
    assert_eq!(a.usage.fuel, b.usage.fuel);
}

/// Inside handlers: a state handler around the operations, and a choice
/// handler that resumes its continuation twice, captured before a pause.
const HANDLED: &str = "\
effect Choose {
  fn pick() -> Bool
}
effect Count {
  fn tick() -> Int
}
fn both(body: () -> Str / {Choose, Confirm, Log, Pay}) -> List[Str] / {Confirm, Log, Pay} {
  handle { [body()] } with {
    Choose.pick() => resume(true) ++ resume(false)
  }
}
let n = handle {
  let a = Count.tick()
  Log.info(\"tick ${a}\")
  let b = Count.tick()
  a + b
} with {
  Count.tick() => resume(7)
}
let paths = both(fn() {
  let way = if Choose.pick() { \"left\" } else { \"right\" }
  let ok = Confirm.ask(\"go ${way}?\")
  if ok {
    let r = Pay.pay(\"air-one.example\", 100 + n, \"${way}\")
    \"${way} paid ${r.cents}\"
  } else {
    \"${way} stayed\"
  }
})
Log.info(\"${paths}\")
paths
";

#[test]
fn a_run_saved_and_restored_at_every_pause_ends_as_a_straight_run_does() {
    let engine = engine();
    let p = policy(&engine, "");
    let program = check(&engine, HANDLED, &p);
    let (a, b) = (
        common::db("snapshots", "handled-straight"),
        common::db("snapshots", "handled-restored"),
    );
    let plain = straight(&engine, &program, &p, &a);
    let (restored, taken) = through_snapshots(&engine, &program, &p, &b);
    assert_eq!(
        plain.result.as_deref().ok(),
        Some("[\"left paid 114\", \"right paid 114\"]")
    );
    assert_eq!(taken, 6, "Log, then Confirm and Pay on each path, then Log");
    same_runs(&plain, &restored, &a, &b);
}

/// Restore `bytes` of `program` under `p` against `db`, expecting a
/// refusal: its message.
fn refused(engine: &Engine, program: &Compiled, p: &Policy, bytes: &[u8], db: &str) -> String {
    match engine.restore(program, p, bytes, &options(db)) {
        Err(e) => {
            assert_eq!(e.code.as_str(), "E4009", "{}", e.message);
            e.message
        }
        Ok(s) => panic!("expected E4009, found {s:?}"),
    }
}

#[test]
fn snapshots_of_another_program_person_or_store_changed_cut_or_replayed_are_refused() {
    let engine = engine();
    let p = policy(&engine, "");
    let program = check(
        &engine,
        "let ok = Confirm.ask(\"go?\")\nLog.info(\"${ok}\")\nok\n",
        &p,
    );
    let db = common::db("snapshots", "refused");
    let Ok(Step::Paused(mut pending)) = engine.start(&program, &p, &options(&db)) else {
        panic!("expected a pause")
    };
    let bytes = match pending.to_bytes() {
        Ok(b) => b,
        Err(e) => panic!("{e:?}"),
    };
    drop(pending);

    let other = check(&engine, "let ok = Confirm.ask(\"go?\")\nok\n", &p);
    let m = refused(&engine, &other, &p, &bytes, &db);
    assert!(
        m.starts_with("snapshot refused: expected a snapshot of this program (hash "),
        "{m}"
    );

    let bob = engine
        .parse_policy(
            "[principal]\nid = \"bob\"\nrole = \"employee\"\n\n[grants.Log]\n\n[grants.Confirm]\n",
        )
        .unwrap_or_else(|d| panic!("{d:#?}"));
    let m = refused(&engine, &program, &bob, &bytes, &db);
    assert_eq!(
        m,
        "snapshot refused: expected a snapshot of a run for bob, but found one of a run for ada"
    );

    let elsewhere = common::db("snapshots", "refused-elsewhere");
    let m = refused(&engine, &program, &p, &bytes, &elsewhere);
    assert_eq!(
        m,
        "snapshot refused: expected a snapshot sealed by this store, but found a seal that does not match: the bytes were changed, cut short, or sealed by another store"
    );

    assert_eq!(
        refused(&engine, &program, &p, b"not a snapshot at all", &db),
        "snapshot refused: expected the magic bytes `WRITRUN` at byte 0, but found other bytes: this is not a snapshot of a Writ run"
    );
    // Every byte changed, and every length cut short: refused, never a
    // panic, nothing run.
    for i in 0..bytes.len() {
        let mut changed = bytes.clone();
        changed[i] ^= 0x20;
        refused(&engine, &program, &p, &changed, &db);
    }
    for n in 0..bytes.len() {
        refused(&engine, &program, &p, &bytes[..n], &db);
    }
    assert!(audit_lines(&db).is_empty(), "nothing ran");

    // Resumed once: a second restore of the same bytes is refused, and so
    // is a restore of bytes restored but not yet replied to, once replied.
    let Ok(Step::Paused(first)) = engine.restore(&program, &p, &bytes, &options(&db)) else {
        panic!("restored")
    };
    let Ok(Step::Paused(second)) = engine.restore(&program, &p, &bytes, &options(&db)) else {
        panic!("restored, not yet replied to")
    };
    let Ok(Step::Paused(log)) = first.resume(Reply::Answer(serde_json::json!(true))) else {
        panic!("expected a pause at Log.info")
    };
    drop(log);
    let Ok(Step::Done(o)) = second.resume(Reply::CarryOut) else {
        panic!("ended")
    };
    let e = o.result.expect_err("refused");
    assert_eq!(e.code.as_str(), "E4009");
    assert_eq!(
        e.message,
        "snapshot refused: expected a snapshot not resumed before, but found one that was resumed already (each snapshot resumes once)"
    );
    let m = refused(&engine, &program, &p, &bytes, &db);
    assert!(m.contains("resumed already"), "{m}");
    assert_eq!(
        audit_lines(&db),
        ["Confirm.ask(\"go?\") allowed: granted; answered by the host"]
    );
}

#[test]
fn the_restoring_policy_decides_the_pending_operation_again() {
    let engine = engine();
    let p = policy(&engine, "");
    let text = "let r = handle { let p = Pay.pay(\"air-one.example\", 500, \"fare\")\n \"paid ${p.cents}\" } with { Fail.fail(why) => \"refused: ${why}\" }\nr\n";
    let program = check(&engine, text, &p);
    let db = common::db("snapshots", "decided-again");
    let Ok(Step::Paused(mut pending)) = engine.start(&program, &p, &options(&db)) else {
        panic!("expected a pause at Pay.pay")
    };
    let bytes = pending.to_bytes().unwrap_or_else(|e| panic!("{e:?}"));
    drop(pending);
    // Meanwhile the person lowered the cap: the payment is denied at
    // restore, never handed out, and the run goes on past the denial.
    let mut lower = policy(&engine, "");
    if let Some(g) = lower.grants.get_mut("Pay")
        && let writ_host::policy::Scope::Pay(s) = &mut g.scope
    {
        s.max_payment_cents = 100;
    }
    let Ok(Step::Done(o)) = engine.restore(&program, &lower, &bytes, &options(&db)) else {
        panic!("expected the end")
    };
    assert_eq!(
        o.result.as_deref().ok(),
        Some(
            "\"refused: Pay.pay(\\\"air-one.example\\\", 500, \\\"fare\\\") was denied: 5.00 EUR is over the cap of 1.00 EUR per payment\""
        )
    );
    // And the snapshot was used: it cannot be restored under the old
    // policy to pay after all.
    assert!(refused(&engine, &program, &p, &bytes, &db).contains("resumed already"));
}

#[test]
fn a_snapshot_is_bounded_by_the_memory_limit() {
    let engine = engine();
    let mut p = policy(&engine, "");
    p.limits.memory = 4 << 20;
    let text = "let big = list.map(list.range(0, 20000), fn(i) { \"item ${i}\" })\nlet ok = Confirm.ask(\"go?\")\nlist.length(big)\n";
    let program = check(&engine, text, &p);
    let db = common::db("snapshots", "memory");
    let Ok(Step::Paused(mut pending)) = engine.start(&program, &p, &options(&db)) else {
        panic!("expected a pause")
    };
    let bytes = pending.to_bytes().unwrap_or_else(|e| panic!("{e:?}"));
    drop(pending);
    assert!(bytes.len() < 2 * (4 << 20) + 65536, "{}", bytes.len());
    let mut small = p.clone();
    small.limits.memory = 64 << 10;
    let e = match engine.restore(&program, &small, &bytes, &options(&db)) {
        Err(e) => e,
        Ok(s) => panic!("expected E5002, found {s:?}"),
    };
    assert_eq!(e.code.as_str(), "E5002");
    let Ok(Step::Paused(pending)) = engine.restore(&program, &p, &bytes, &options(&db)) else {
        panic!("restored under the limit it ran with")
    };
    let Ok(Step::Done(o)) = pending.resume(Reply::CarryOut) else {
        panic!("ended")
    };
    assert_eq!(o.result.as_deref().ok(), Some("20000"));
}

/// One statement of a generated program.
fn statement() -> impl Strategy<Value = String> {
    prop_oneof![
        (0..50i64).prop_map(|i| format!("Log.info(\"line ${{{i} + n}}\")\n")),
        Just("let n = n + Clock.now() % 7\n".to_string()),
        prop_oneof![Just("go"), Just("no")]
            .prop_map(|a| format!("let n = if Confirm.ask(\"{a}?\") {{ n + 1 }} else {{ n }}\n")),
        (0..40i64).prop_map(|i| format!("Audit.note(\"note {i}\")\n")),
        (1..700i64).prop_map(|c| format!(
            "let n = handle {{ let r = Pay.pay(\"air-one.example\", {c}, \"m\")\n n + r.cents }} with {{ Fail.fail(why) => n - 1 }}\n"
        )),
        (1..5i64).prop_map(|k| format!(
            "let n = handle {{ n + Count.tick() + Count.tick() }} with {{ Count.tick() => {{ Log.info(\"tick\")\n resume({k}) }} }}\n"
        )),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn straight_and_through_snapshots_at_every_pause_agree(stmts in prop::collection::vec(statement(), 1..8)) {
        let mut text = String::from("effect Count {\n  fn tick() -> Int\n}\nlet n = 0\n");
        for s in &stmts {
            text.push_str(s);
        }
        text.push_str("n\n");
        let engine = engine();
        let p = policy(&engine, "");
        let program = check(&engine, &text, &p);
        let (a, b) = (common::db("snapshots", "prop-straight"), common::db("snapshots", "prop-restored"));
        let plain = straight(&engine, &program, &p, &a);
        let (restored, _) = through_snapshots(&engine, &program, &p, &b);
        same_runs(&plain, &restored, &a, &b);
    }
}

#[test]
fn a_run_and_its_snapshot_go_on_once_between_them() {
    let engine = engine();
    let p = policy(&engine, "");
    let program = check(
        &engine,
        "if Confirm.ask(\"pay?\") { Pay.pay(\"air-one.example\", 100, \"x\").id } else { \"no\" }\n",
        &p,
    );
    let at_confirm = |db: &str| RunOptions {
        store: Some(db.to_string()),
        pause_at: PauseAt::Only(vec!["Confirm".into()]),
        ..RunOptions::default()
    };
    let answer = |step: Result<Step<'_>, writ_host::engine::BadReply<'_>>| match step {
        Ok(Step::Done(o)) => o.result,
        other => panic!("expected the end, found {other:?}"),
    };

    // The run goes on here first: its snapshot is used up.
    let db = common::db("snapshots", "once-here");
    let Ok(Step::Paused(mut pending)) = engine.start(&program, &p, &at_confirm(&db)) else {
        panic!("expected a pause at Confirm.ask")
    };
    let bytes = match pending.to_bytes() {
        Ok(b) => b,
        Err(e) => panic!("{e:?}"),
    };
    let ended = answer(
        pending
            .resume(Reply::Answer(serde_json::json!(true)))
            .map_err(|b| *b),
    );
    assert_eq!(ended.as_deref(), Ok("\"pay-1\""));
    refused(&engine, &program, &p, &bytes, &db);

    // The snapshot goes on first: the run it was taken of is refused
    // before it pays.
    let db2 = common::db("snapshots", "once-there");
    let Ok(Step::Paused(mut pending)) = engine.start(&program, &p, &at_confirm(&db2)) else {
        panic!("expected a pause at Confirm.ask")
    };
    let bytes = match pending.to_bytes() {
        Ok(b) => b,
        Err(e) => panic!("{e:?}"),
    };
    let Ok(Step::Paused(restored)) = engine.restore(&program, &p, &bytes, &at_confirm(&db2)) else {
        panic!("expected the pause again")
    };
    let there = answer(
        restored
            .resume(Reply::Answer(serde_json::json!(true)))
            .map_err(|b| *b),
    );
    assert_eq!(there.as_deref(), Ok("\"pay-1\""));
    match pending.resume(Reply::Answer(serde_json::json!(true))) {
        Ok(Step::Done(o)) => {
            let e = o.result.expect_err("the original run is refused");
            assert_eq!(e.code.as_str(), "E4009", "{}", e.message);
            assert!(
                o.operations.iter().all(|op| op.operation != "Pay.pay"),
                "{:?}",
                o.operations
            );
        }
        other => panic!("expected the end, found {other:?}"),
    }
    let paid = audit_lines(&db2)
        .iter()
        .filter(|l| l.contains("Pay.pay"))
        .count();
    assert_eq!(paid, 1);
    let _ = std::fs::remove_file(&db);
    let _ = std::fs::remove_file(&db2);
}
