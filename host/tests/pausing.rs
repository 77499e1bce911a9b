//! Runs the host drives (`Engine::start`, `Pending::resume`): a pause at
//! every host capability with the same outcome and audit log as a
//! straight run; the host answering, failing and refusing at a pause,
//! each audited; replies that do not fit (`E4010`) given back; a denial
//! by the policy never handed out; pause points checked (`E4011`); time
//! spent handed out not counted.

use std::sync::Arc;

mod common;

use common::audit_lines;
use writ_host::engine::{
    Decision, Engine, IntoValue, Outcome, PauseAt, Pending, Reply, RunOptions, Step,
};
use writ_host::policy::Policy;

const WEATHER: &str =
    "effect Weather {\n  /// The forecast high for `city`.\n  fn high(city: Str) -> Int\n}\n";

fn engine() -> Engine {
    Engine::new()
        .with_confirm(Arc::new(|q: &str| q.contains("yes")))
        .with_clock(Arc::new(|| 86_400_000 * 20_000 + 5))
        .with_capability(
            "Weather",
            WEATHER,
            Arc::new(|_, args| Ok((args.get::<String>(0)?.len() as i64).into_value())),
        )
}

/// A policy granting every built-in capability and `Weather`, in a fresh
/// directory holding a seed and recorded responses.
fn policy(engine: &Engine, name: &str, extra: &str) -> Policy {
    let dir = std::env::temp_dir().join(format!("writ-pausing-{name}-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(
        dir.join("seed.sql"),
        "INSERT INTO employees (id, name, manager, fields) VALUES ('ada', 'Ada', NULL, '{\"plan\": \"Gold\"}');",
    );
    let _ = std::fs::write(
        dir.join("responses.toml"),
        "[[response]]\nurl = \"https://fares.example/osl\"\nbody = \"120\"\n",
    );
    let text = format!(
        "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[store]\nseed = \"seed.sql\"\n\n\
         [grants.Log]\n\n[grants.Clock]\n\n[grants.Confirm]\n\n[grants.Audit]\n\n\
         [grants.Http]\nrecorded = \"responses.toml\"\non_deny = \"fail\"\n\n\
         [grants.Records]\nscope = \"self\"\non_deny = \"fail\"\n\n\
         [grants.Pay]\npayees = [\"air-one.example\"]\ncurrency = \"EUR\"\nmax_payment_cents = 1000\nmax_run_cents = 1500\nmax_day_cents = 2500\non_deny = \"fail\"\n\n\
         [grants.Weather]\n{extra}"
    );
    let mut p = match engine.parse_policy(&text) {
        Ok(p) => p,
        Err(d) => panic!("{d:#?}"),
    };
    p.dir = Some(dir);
    p
}

fn options(db: &str, pause_at: PauseAt) -> RunOptions {
    RunOptions {
        store: Some(db.to_string()),
        pause_at,
        ..RunOptions::default()
    }
}

/// Every host capability, once each (and a payment the policy refuses).
const EVERY: &str = "\
let t = Clock.now()
Log.info(\"now ${t % 1000}\")
let ok = Confirm.ask(\"yes, go on?\")
Audit.note(\"checking fares\")
let fare = Http.get(\"https://fares.example/osl\")
let me = Records.read(\"ada\")
let high = Weather.high(\"Oslo\")
let r = Pay.pay(\"air-one.example\", 600, \"fare ${fare}\")
let refused = handle { Pay.pay(\"elsewhere.example\", 1, \"x\"); \"paid\" } with { Fail.fail(why) => \"refused\" }
\"${ok} ${me.name} ${high} ${r.cents} ${refused}\"
";

/// Drive `step` to its end, replying with `reply(pending)` at each pause;
/// the operations seen, as `Op(arguments json) rule`.
fn drive<'a>(
    mut step: Step<'a>,
    mut reply: impl FnMut(&Pending<'a>) -> Reply,
) -> (Outcome, Vec<String>) {
    let mut seen = Vec::new();
    loop {
        match step {
            Step::Done(o) => return (o, seen),
            Step::Paused(p) => {
                seen.push(format!(
                    "{}({}) {}",
                    p.operation(),
                    p.arguments_json(),
                    p.rule()
                ));
                let r = reply(&p);
                step = match p.resume(r) {
                    Ok(s) => s,
                    Err(bad) => panic!("{:?}", bad.error),
                };
            }
        }
    }
}

#[test]
fn a_run_paused_at_every_capability_ends_as_a_straight_run_does() {
    let engine = engine();
    let p = policy(&engine, "every", "");
    let program = match engine.check(EVERY, &p) {
        Ok(c) => c,
        Err(d) => panic!("{d:#?}"),
    };
    let straight_db = common::db("pausing", "every-straight");
    let straight = match engine.run(
        &program,
        &p,
        &options(&straight_db, PauseAt::Every),
        &mut |_| {},
    ) {
        Ok(o) => o,
        Err(e) => panic!("{e:?}"),
    };
    let paused_db = common::db("pausing", "every-paused");
    let step = match engine.start(&program, &p, &options(&paused_db, PauseAt::Every)) {
        Ok(s) => s,
        Err(e) => panic!("{e:?}"),
    };
    let (driven, seen) = drive(step, |_| Reply::CarryOut);
    assert_eq!(
        seen,
        [
            "Clock.now([]) granted",
            "Log.info([\"now 5\"]) granted",
            "Confirm.ask([\"yes, go on?\"]) granted",
            "Audit.note([\"checking fares\"]) granted",
            "Http.get([\"https://fares.example/osl\"]) a recorded URL (recorded response)",
            "Records.read([\"ada\"]) scope \"self\": the principal's own record",
            "Weather.high([\"Oslo\"]) granted",
            "Pay.pay([\"air-one.example\",600,\"fare 120\"]) air-one.example is an allowed payee and 6.00 EUR is within the caps",
        ],
        "the payment to elsewhere.example is denied by the policy and never handed out"
    );
    assert_eq!(
        driven.result.as_deref().ok(),
        Some("\"true Ada 4 600 refused\"")
    );
    assert_eq!(
        driven.result.as_deref().ok(),
        straight.result.as_deref().ok()
    );
    assert_eq!(driven.output, straight.output);
    assert_eq!(driven.operations, straight.operations);
    assert_eq!(driven.audit_ids, straight.audit_ids);
    assert_eq!(audit_lines(&paused_db), audit_lines(&straight_db));
    assert_eq!(driven.usage.fuel, straight.usage.fuel);
}

/// Check `text` under the `name` policy and start it, pausing at `at`.
fn start_at<'a>(
    engine: &'a Engine,
    program: &'a writ_host::engine::Compiled,
    p: &'a Policy,
    db: &str,
    at: &[&str],
) -> Step<'a> {
    let at = PauseAt::Only(at.iter().map(|s| s.to_string()).collect());
    match engine.start(program, p, &options(db, at)) {
        Ok(s) => s,
        Err(e) => panic!("{e:?}"),
    }
}

fn check(engine: &Engine, text: &str, p: &Policy) -> writ_host::engine::Compiled {
    match engine.check(text, p) {
        Ok(c) => c,
        Err(d) => panic!("{d:#?}"),
    }
}

#[test]
fn the_host_answers_confirm_clock_http_and_its_own_capability_and_each_is_audited() {
    let engine = engine();
    let p = policy(&engine, "answers", "");
    let text = "let ok = Confirm.ask(\"no?\")\nlet t = Clock.now()\nlet body = Http.get(\"https://fares.example/osl\")\nlet h = Weather.high(\"Oslo\")\n\"${ok} ${t} ${body} ${h}\"\n";
    let program = check(&engine, text, &p);
    let db = common::db("pausing", "answers");
    let step = start_at(
        &engine,
        &program,
        &p,
        &db,
        &["Confirm", "Clock.now", "Http", "Weather"],
    );
    let mut answers = vec![
        serde_json::json!(true),
        serde_json::json!(7),
        serde_json::json!("fare from the host"),
        serde_json::json!(-3),
    ]
    .into_iter();
    let (o, seen) = drive(step, |_| Reply::Answer(answers.next().unwrap_or_default()));
    assert_eq!(seen.len(), 4);
    assert_eq!(
        o.result.as_deref().ok(),
        Some("\"true 7 fare from the host -3\"")
    );
    assert!(!o.recorded, "the host answered Http, not the recordings");
    assert_eq!(
        audit_lines(&db),
        [
            "Http.get(\"https://fares.example/osl\") allowed: a recorded URL (recorded response); answered by the host",
            "Weather.high(\"Oslo\") allowed: granted; answered by the host",
        ],
        "Clock and Confirm are not audited by default"
    );
}

#[test]
fn a_reply_that_does_not_fit_is_given_back_with_the_operation() {
    let engine = engine();
    let p = policy(&engine, "misfit", "");
    let text = "let ok = Confirm.ask(\"go?\")\nlet r = Pay.pay(\"air-one.example\", 100, \"m\")\n\"${ok} ${r.cents}\"\n";
    let program = check(&engine, text, &p);
    let db = common::db("pausing", "misfit");
    let Step::Paused(pending) = start_at(&engine, &program, &p, &db, &["Confirm", "Pay"]) else {
        panic!("expected a pause at Confirm.ask")
    };
    let bad = match pending.resume(Reply::Answer(serde_json::json!(1))) {
        Err(bad) => bad,
        Ok(s) => panic!("expected E4010, found {s:?}"),
    };
    assert_eq!(bad.error.code.as_str(), "E4010");
    assert_eq!(bad.error.message, "Confirm.ask: expected Bool, found 1");
    assert_eq!(
        bad.error.help.as_deref(),
        Some("the answer must be a Bool; the run was not resumed")
    );
    // Still pending: answered again, it goes on, to the payment.
    let Ok(Step::Paused(pay)) = bad.pending.resume(Reply::Answer(serde_json::json!(true))) else {
        panic!("expected a pause at Pay.pay")
    };
    assert_eq!(pay.operation(), "Pay.pay");
    assert!(pay.answer_type().is_err());
    let bad = match pay.resume(Reply::Answer(serde_json::json!({"id": "forged"}))) {
        Err(bad) => bad,
        Ok(s) => panic!("expected E4010, found {s:?}"),
    };
    assert_eq!(bad.error.code.as_str(), "E4010");
    assert_eq!(
        bad.error.message,
        "Pay.pay is carried out by the engine only (the store or the run holds what it does)"
    );
    let Ok(Step::Done(o)) = bad.pending.resume(Reply::CarryOut) else {
        panic!("expected the end")
    };
    assert_eq!(o.result.as_deref().ok(), Some("\"true 100\""));
}

#[test]
fn a_refusal_at_a_pause_is_an_audited_denial_and_a_failure_is_fail_at_the_operation() {
    let engine = engine();
    let p = policy(&engine, "refuse", "on_deny = \"fail\"\n");
    let text = "fn high(c: Str) -> Str / {Weather} {\n  handle { \"${Weather.high(c)}\" } with { Fail.fail(why) => \"no: ${why}\" }\n}\n[high(\"Oslo\"), high(\"Rome\")]\n";
    let program = check(&engine, text, &p);
    let db = common::db("pausing", "refuse");
    let step = start_at(&engine, &program, &p, &db, &["Weather.high"]);
    let mut replies = vec![
        Reply::Refuse("the person said no".into()),
        Reply::Fail("the forecast service is down".into()),
    ]
    .into_iter();
    let (o, _) = drive(step, |_| replies.next().unwrap_or(Reply::CarryOut));
    assert_eq!(
        o.result.as_deref().ok(),
        Some(
            "[\"no: Weather.high(\\\"Oslo\\\") was denied: refused by the host: the person said no\", \"no: the forecast service is down\"]"
        )
    );
    let decisions: Vec<Decision> = o.operations.iter().map(|op| op.decision).collect();
    assert_eq!(decisions, [Decision::Denied, Decision::Allowed]);
    assert_eq!(
        audit_lines(&db),
        [
            "Weather.high(\"Oslo\") denied: refused by the host: the person said no",
            "Weather.high(\"Rome\") allowed: granted; failed at the host: the forecast service is down",
        ]
    );

    // With `on_deny = "stop"`, a refusal ends the run.
    let p = policy(&engine, "refuse-stop", "on_deny = \"stop\"\n");
    let program = check(&engine, text, &p);
    let db = common::db("pausing", "refuse-stop");
    let step = start_at(&engine, &program, &p, &db, &["Weather"]);
    let (o, _) = drive(step, |_| Reply::Refuse("no".into()));
    let e = match o.result {
        Err(e) => e,
        Ok(v) => panic!("expected E4005, found {v}"),
    };
    assert_eq!(e.code.as_str(), "E4005");
    assert_eq!(audit_lines(&db).len(), 1);
}

#[test]
fn pause_points_must_name_the_engines_capabilities_and_operations() {
    let engine = engine();
    let p = policy(&engine, "points", "");
    let program = check(&engine, "Log.info(\"x\")\n", &p);
    let db = common::db("pausing", "points");
    for (at, shown) in [
        ("Confirm.tell", "Confirm.tell"),
        ("Wether", "Wether"),
        ("Weather.low", "Weather.low"),
    ] {
        let e = match engine.start(&program, &p, &options(&db, PauseAt::Only(vec![at.into()]))) {
            Err(e) => e,
            Ok(s) => panic!("expected E4011 for {at}, found {s:?}"),
        };
        assert_eq!(e.code.as_str(), "E4011");
        assert_eq!(
            e.message,
            format!(
                "expected a capability (Http, Pay, Records, Audit, Log, Clock, Confirm, Weather) or one of its operations (`Http.post`) to pause at, found `{shown}`"
            )
        );
    }
    for at in ["Weather", "Weather.high", "Http.post", "Log"] {
        assert!(
            engine
                .start(&program, &p, &options(&db, PauseAt::Only(vec![at.into()])))
                .is_ok()
        );
    }
    // A straight run does not look at pause points at all.
    let o = engine.run(
        &program,
        &p,
        &options(&db, PauseAt::Only(vec!["Nothing".into()])),
        &mut |_| {},
    );
    assert!(o.is_ok());
}

#[test]
fn time_spent_handed_out_is_not_the_runs() {
    let engine = engine();
    let p = policy(&engine, "time", "");
    let mut p = p;
    p.limits.time = std::time::Duration::from_millis(150);
    let program = check(
        &engine,
        "let a = Confirm.ask(\"yes?\")\nlet b = Confirm.ask(\"yes?\")\na && b\n",
        &p,
    );
    let db = common::db("pausing", "time");
    let step = start_at(&engine, &program, &p, &db, &["Confirm"]);
    let (o, seen) = drive(step, |_| {
        std::thread::sleep(std::time::Duration::from_millis(120));
        Reply::CarryOut
    });
    assert_eq!(seen.len(), 2);
    assert_eq!(o.result.as_deref().ok(), Some("true"));
    assert!(o.usage.time < std::time::Duration::from_millis(150));
}

#[test]
fn a_pending_operation_says_whether_it_is_a_read_or_an_act() {
    use writ_lang::types::OpKind;
    let engine = engine();
    let p = policy(&engine, "kinds", "");
    let text = "let h = Weather.high(\"Oslo\")\nlet r = Pay.pay(\"air-one.example\", 100, \"m\")\nlet t = Clock.now()\nh + r.cents + t\n";
    let program = check(&engine, text, &p);
    let kinds = |engine: &Engine, db: &str| {
        let step = start_at(engine, &program, &p, db, &["Weather", "Pay", "Clock"]);
        let mut kinds = Vec::new();
        let _ = drive(step, |pending| {
            kinds.push(format!("{} {:?}", pending.operation(), pending.kind()));
            Reply::CarryOut
        });
        kinds
    };
    // Not declared a read, the embedder's operation is an act.
    assert_eq!(
        kinds(&engine, &common::db("pausing", "kinds-act")),
        ["Weather.high Act", "Pay.pay Act", "Clock.now Read"]
    );
    let reading = match engine.clone().with_reads("Weather", &["high"]) {
        Ok(e) => e,
        Err(why) => panic!("{why}"),
    };
    assert_eq!(
        reading.operation_kind("Weather", "high"),
        Some(OpKind::Read)
    );
    assert_eq!(
        kinds(&reading, &common::db("pausing", "kinds-read")),
        ["Weather.high Read", "Pay.pay Act", "Clock.now Read"]
    );
    assert_eq!(
        engine
            .clone()
            .with_reads("Weather", &["low"])
            .err()
            .as_deref(),
        Some("expected an operation Weather's interface declares, found `low`")
    );
    assert_eq!(
        engine.with_reads("Http", &["get"]).err().as_deref(),
        Some(
            "expected one of the embedder's capabilities (Weather), found `Http`: the built-in capabilities' reads and acts are fixed"
        )
    );
}
