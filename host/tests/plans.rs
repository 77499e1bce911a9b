//! Plans (`Engine::plan`, `RunOptions::approved`): a plan performs its
//! reads and no act; an approved plan executes only its acts, each once,
//! in order — every deviation stopped before the act (`E4013`) and
//! audited; a plan of another program, policy, person or inputs, or
//! executed before, is refused (`E4014`); a changed plan does not read
//! back; an act denied at planning shows as denied; an embedder's
//! declared read is performed and its act simulated.

use std::sync::Arc;

mod common;

use common::audit_lines;
use writ_host::engine::{Compiled, Decision, Engine, IntoValue, Plan, RunOptions};
use writ_host::policy::Policy;

fn engine() -> Engine {
    let tickets = "effect Tickets {\n  fn price(route: Str) -> Int\n  fn book(route: Str) -> { id: Str, seats: Int }\n}\n";
    Engine::new()
        .with_capability(
            "Tickets",
            tickets,
            Arc::new(|op, args| {
                let route = args.get::<String>(0)?;
                match op {
                    "price" => Ok((route.len() as i64 * 100).into_value()),
                    _ => Err(format!("booking {route} is not offered here").into()),
                }
            }),
        )
        .with_reads("Tickets", &["price"])
        .unwrap_or_else(|e| panic!("{e}"))
}

fn policy(engine: &Engine, name: &str, id: &str, max: i64) -> Policy {
    let dir = std::env::temp_dir().join(format!("writ-plans-{name}-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(
        dir.join("responses.toml"),
        "[[response]]\nurl = \"https://fares.example/cheap\"\nbody = \"air-one.example\"\n",
    );
    let text = format!(
        "[principal]\nid = \"{id}\"\nrole = \"employee\"\n\n[grants.Log]\n\n\
         [grants.Http]\nrecorded = \"responses.toml\"\n\n\
         [grants.Pay]\npayees = [\"air-one.example\"]\ncurrency = \"EUR\"\nmax_payment_cents = {max}\non_deny = \"fail\"\n\n\
         [grants.Tickets]\non_deny = \"fail\"\n"
    );
    let mut p = engine
        .parse_policy(&text)
        .unwrap_or_else(|d| panic!("{d:#?}"));
    p.dir = Some(dir);
    p
}

fn check(engine: &Engine, text: &str, p: &Policy) -> Compiled {
    engine.check(text, p).unwrap_or_else(|d| panic!("{d:#?}"))
}

fn options(db: &str) -> RunOptions {
    RunOptions {
        store: Some(db.to_string()),
        ..RunOptions::default()
    }
}

fn approved(db: &str, plan: &Plan) -> RunOptions {
    RunOptions {
        approved: Some(Arc::new(plan.clone())),
        ..options(db)
    }
}

const BOOK: &str = "\
let payee = Http.get(\"https://fares.example/cheap\")
let price = Tickets.price(\"OSL-BER\")
Log.info(\"paying ${payee} ${price}\")
let r = Pay.pay(payee, price * 50, \"flight OSL-BER\")
let extra = handle { Pay.pay(payee, 90000, \"upgrade\")\n \"upgraded\" } with { Fail.fail(why) => \"no upgrade\" }
\"${r.id} ${extra}\"
";

#[test]
fn a_plan_performs_reads_and_no_act_and_its_approval_executes_exactly_its_acts() {
    let e = engine();
    let p = policy(&e, "book", "ada", 50000);
    let program = check(&e, BOOK, &p);
    let db = common::db("plans", "book");
    let plan = e
        .plan(&program, &p, &options(&db))
        .unwrap_or_else(|err| panic!("{err:?}"));
    assert_eq!(plan.result.as_deref(), Ok("\"planned-1 no upgrade\""));
    assert_eq!(plan.log, ["paying air-one.example 700"]);
    let reads: Vec<&str> = plan.reads.iter().map(|r| r.operation.as_str()).collect();
    assert_eq!(reads, ["Http.get", "Tickets.price"]);
    let acts: Vec<(String, Decision)> = plan
        .acts
        .iter()
        .map(|a| (a.operation.clone(), a.decision))
        .collect();
    assert_eq!(
        acts,
        [
            ("Pay.pay".to_string(), Decision::Allowed),
            ("Pay.pay".to_string(), Decision::Denied)
        ],
        "the upgrade is over the cap: denied at planning"
    );
    assert_eq!(
        plan.words(&p),
        [
            "It will, in this order (approve all or none):",
            "  1. Pay 350.00 EUR to air-one.example (\"flight OSL-BER\")",
            "  In all: 350.00 EUR in 1 payment.",
            "Denied by the policy (not approvable): Pay.pay(\"air-one.example\", 90000, \"upgrade\"): 900.00 EUR is over the cap of 500.00 EUR per payment",
            "It read, to decide (2):",
            "  Http.get(\"https://fares.example/cheap\")",
            "  Tickets.price(\"OSL-BER\")",
        ]
    );
    // Nothing was paid; the reads and the denial are in the log.
    assert_eq!(
        audit_lines(&db),
        [
            "Http.get(\"https://fares.example/cheap\") allowed: a recorded URL (recorded response); for a plan",
            "Tickets.price(\"OSL-BER\") allowed: granted; for a plan",
            "Pay.pay(\"air-one.example\", 90000, \"upgrade\") denied: 900.00 EUR is over the cap of 500.00 EUR per payment; for a plan",
        ]
    );
    // Through its JSON, as a page would send it back.
    let plan = Plan::from_json(&plan.to_json()).unwrap_or_else(|why| panic!("{why}"));
    let short = plan.digest()[..12].to_string();
    let o = e
        .run(&program, &p, &approved(&db, &plan), &mut |_| {})
        .unwrap_or_else(|err| panic!("{err:?}"));
    assert_eq!(o.result.as_deref().ok(), Some("\"pay-1 no upgrade\""));
    let log = audit_lines(&db);
    assert_eq!(
        log[3..],
        [
            format!(
                "Plan.approve({}) allowed: approved by ada: 1 act",
                plan.digest()
            ),
            format!(
                "Http.get(\"https://fares.example/cheap\") allowed: a recorded URL (recorded response); replayed from the recording; as approved in plan {short} (audit #4)"
            ),
            format!(
                "Tickets.price(\"OSL-BER\") allowed: granted; replayed from the recording; as approved in plan {short} (audit #4)"
            ),
            format!(
                "Pay.pay(\"air-one.example\", 35000, \"flight OSL-BER\") allowed: air-one.example is an allowed payee and 350.00 EUR is within the caps; as approved in plan {short} (audit #4)"
            ),
            format!(
                "Pay.pay(\"air-one.example\", 90000, \"upgrade\") denied: 900.00 EUR is over the cap of 500.00 EUR per payment; as approved in plan {short} (audit #4)"
            ),
        ]
    );
    // Once.
    let again = e
        .run(&program, &p, &approved(&db, &plan), &mut |_| {})
        .unwrap_err();
    assert_eq!(again.code.as_str(), "E4014");
    assert_eq!(
        again.message,
        format!(
            "expected a plan not executed before, found plan {short}, executed already (a plan executes once)"
        )
    );
}

/// Record `plan` in the store at `db` as made there, as `Engine::plan`
/// records the plans it makes.
fn record_as_made(db: &str, plan: &Plan) {
    let conn = rusqlite::Connection::open(db).unwrap_or_else(|e| panic!("{e}"));
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?1, 'made')",
        [format!("planned:{}", plan.digest())],
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

/// A plan is approved only on the store it was made on: on another (a
/// file, or a store in memory, which is new in each process) it is
/// refused before anything runs, and it is still approved, once, where it
/// was made. A plan changed after it was made (here, an act's amount and
/// its digests made again) was not made anywhere, and is refused too.
#[test]
fn a_plan_is_approved_only_on_the_store_it_was_made_on() {
    let e = engine();
    let p = policy(&e, "stores", "ada", 50000);
    let made_on = common::db("plans", "made-on");
    let other = common::db("plans", "other");
    let program = check(&e, "Pay.pay(\"air-one.example\", 100, \"a\").id\n", &p);
    let plan = e
        .plan(&program, &p, &options(&made_on))
        .unwrap_or_else(|err| panic!("{err:?}"));
    let short = plan.digest()[..12].to_string();
    for store in [other.as_str(), "memory:elsewhere"] {
        let refused = e
            .run(&program, &p, &approved(store, &plan), &mut |_| {})
            .unwrap_err();
        assert_eq!(refused.code.as_str(), "E4014");
        assert_eq!(
            refused.message,
            format!(
                "expected a plan made on this store, found plan {short}, made on another (a plan is approved on the store it was made on, and executes once there)"
            )
        );
    }
    assert!(
        audit_lines(&other).is_empty(),
        "nothing was approved or paid on the other store"
    );
    let o = e
        .run(&program, &p, &approved(&made_on, &plan), &mut |_| {})
        .unwrap_or_else(|err| panic!("{err:?}"));
    assert_eq!(o.result.as_deref().ok(), Some("\"pay-1\""));
    // Changed after it was made: the same plan under a new identifier (its
    // digest made again to match) would be a second approval of the same
    // acts; no store made it, so it is refused, and nothing is paid again.
    let mut changed = plan.clone();
    changed.id = "0".repeat(32);
    let changed = Plan::from_json(&changed.to_json()).unwrap_or_else(|why| panic!("{why}"));
    let refused = e
        .run(&program, &p, &approved(&made_on, &changed), &mut |_| {})
        .unwrap_err();
    assert_eq!(refused.code.as_str(), "E4014");
    assert!(
        refused.message.contains("made on another"),
        "{}",
        refused.message
    );
    let paid = audit_lines(&made_on)
        .iter()
        .filter(|l| l.starts_with("Pay.pay"))
        .count();
    assert_eq!(paid, 1, "paid once");
    // A store in memory is one store by its name within the process: a
    // plan made on it is approved on it.
    let memory = format!("memory:plans-{}", std::process::id());
    let plan = e
        .plan(&program, &p, &options(&memory))
        .unwrap_or_else(|err| panic!("{err:?}"));
    let o = e
        .run(&program, &p, &approved(&memory, &plan), &mut |_| {})
        .unwrap_or_else(|err| panic!("{err:?}"));
    assert_eq!(o.result.as_deref().ok(), Some("\"pay-1\""));
}

/// Plan `planned` under `p`, then run `executed` as that plan approved:
/// the outcome's error code and message, and the store's last record.
fn deviate(planned: &str, executed: &str) -> (String, String, String) {
    let e = engine();
    let p = policy(&e, "deviate", "ada", 50000);
    let db = common::db("plans", "deviate");
    let plan = e
        .plan(&check(&e, planned, &p), &p, &options(&db))
        .unwrap_or_else(|err| panic!("{err:?}"));
    // The same program's hash is required: the executed text stands in
    // for a program that takes another path than it took at planning.
    // The edited plan is recorded as made on this store, as the plan it
    // stands in for was (an edited plan is refused before it runs: below).
    let mut plan = plan;
    let program = check(&e, executed, &p);
    plan.program = program.hash.clone();
    record_as_made(&db, &plan);
    let o = e
        .run(&program, &p, &approved(&db, &plan), &mut |_| {})
        .unwrap_or_else(|err| panic!("{err:?}"));
    let err = o.result.expect_err("a deviation");
    let last = audit_lines(&db).last().cloned().unwrap_or_default();
    (err.code.as_str().to_string(), err.message, last)
}

#[test]
fn every_deviation_is_stopped_before_the_act_and_audited() {
    let pay = |c: i64, m: &str| format!("Pay.pay(\"air-one.example\", {c}, \"{m}\")\n");
    let one = pay(100, "a");
    let two = format!("{}{}", pay(100, "a"), pay(200, "b"));
    for (planned, executed, expected) in [
        // Other arguments.
        (
            one.clone(),
            pay(101, "a"),
            "expected the approved plan's next act, Pay.pay(\"air-one.example\", 100, \"a\"), found Pay.pay(\"air-one.example\", 101, \"a\"), which the plan does not approve there",
        ),
        // One more than approved.
        (
            one.clone(),
            two.clone(),
            "expected the approved plan's next act, no more acts, found Pay.pay(\"air-one.example\", 200, \"b\"), which the plan does not approve there",
        ),
        // Out of order.
        (
            two.clone(),
            format!("{}{}", pay(200, "b"), pay(100, "a")),
            "expected the approved plan's next act, Pay.pay(\"air-one.example\", 100, \"a\"), found Pay.pay(\"air-one.example\", 200, \"b\"), which the plan does not approve there",
        ),
        // An act not in the plan at all.
        (
            "Log.info(\"nothing\")\n".to_string(),
            one.clone(),
            "expected the approved plan's next act, no more acts, found Pay.pay(\"air-one.example\", 100, \"a\"), which the plan does not approve there",
        ),
    ] {
        let (code, message, last) = deviate(&planned, &executed);
        assert_eq!((code.as_str(), message.as_str()), ("E4013", expected));
        assert!(
            last.contains(" denied: expected the approved plan's next act"),
            "{last}"
        );
    }
}

#[test]
fn a_plan_of_another_program_policy_person_or_inputs_or_changed_is_refused() {
    let e = engine();
    let p = policy(&e, "apply", "ada", 50000);
    let db = common::db("plans", "apply");
    let program = check(&e, BOOK, &p);
    let plan = e
        .plan(&program, &p, &options(&db))
        .unwrap_or_else(|err| panic!("{err:?}"));
    let refused = |program: &Compiled, p: &Policy, plan: &Plan, opts: RunOptions| {
        let o = RunOptions {
            approved: Some(Arc::new(plan.clone())),
            ..opts
        };
        match e.run(program, p, &o, &mut |_| {}) {
            Err(err) => {
                assert_eq!(err.code.as_str(), "E4014");
                err.message
            }
            Ok(o) => panic!("expected E4014, found {:?}", o.result),
        }
    };
    let other = check(&e, "Log.info(\"x\")\n", &p);
    assert!(
        refused(&other, &p, &plan, options(&db)).starts_with("expected a plan of this program")
    );
    let raised = policy(&e, "apply", "ada", 90000);
    assert_eq!(
        refused(&program, &raised, &plan, options(&db)),
        "expected a plan made under this policy, found one made under another (or this one since changed)"
    );
    let bob = policy(&e, "apply", "bob", 50000);
    let mut bobs = plan.clone();
    bobs.policy = writ_host::engine::policy_digest(&bob);
    assert_eq!(
        refused(&program, &bob, &bobs, options(&db)),
        "expected a plan for bob, found one for ada"
    );
    let mut other_inputs = plan.clone();
    other_inputs.inputs.insert("x".into(), serde_json::json!(1));
    assert_eq!(
        refused(&program, &p, &other_inputs, options(&db)),
        "expected a plan made with these inputs' values, found one made with others"
    );
    assert!(
        audit_lines(&db)
            .iter()
            .all(|l| !l.starts_with("Plan.approve")),
        "nothing approved"
    );

    // A plan changed after it was made does not read back.
    let mut doc = plan.to_json();
    doc["acts"][0]["arguments"][1] = serde_json::json!(1);
    assert_eq!(
        Plan::from_json(&doc).err().as_deref(),
        Some("expected act 0's digest to be its operation's and arguments', found another")
    );
    let mut doc = plan.to_json();
    doc["reads"][0]["answer"] = serde_json::json!("sky.example");
    assert_eq!(
        Plan::from_json(&doc).err().as_deref(),
        Some(
            "expected read 0's digest to be its operation's, arguments' and answer's, found another"
        )
    );
    let mut doc = plan.to_json();
    doc["log"] = serde_json::json!(["something else"]);
    assert_eq!(
        Plan::from_json(&doc).err().as_deref(),
        Some(
            "expected the plan's `digest` to be its content's, found another: the plan was changed after it was made"
        )
    );
}

#[test]
fn an_embedders_act_is_simulated_in_a_plan_and_refused_at_execution_as_its_handler_says() {
    let e = engine();
    let p = policy(&e, "tickets", "ada", 50000);
    let db = common::db("plans", "tickets");
    let program = check(
        &e,
        "let t = Tickets.book(\"OSL-BER\")\n\"${t.id}|${t.seats}\"\n",
        &p,
    );
    let plan = e
        .plan(&program, &p, &options(&db))
        .unwrap_or_else(|err| panic!("{err:?}"));
    assert_eq!(
        plan.result.as_deref(),
        Ok("\"|0\""),
        "the plain default of its result type"
    );
    assert_eq!(plan.acts.len(), 1);
    assert_eq!(
        plan.words(&p),
        [
            "It will, in this order (approve all or none):",
            "  1. Tickets.book(\"OSL-BER\")",
            "  In all: 1 Tickets act.",
        ]
    );
    let o = e
        .run(&program, &p, &approved(&db, &plan), &mut |_| {})
        .unwrap_or_else(|err| panic!("{err:?}"));
    let err = o.result.expect_err("the handler refuses");
    assert_eq!(err.code.as_str(), "E4003");
}

#[test]
fn a_live_read_that_changed_makes_the_program_deviate_and_is_noted() {
    let e = engine();
    let dir = std::env::temp_dir().join(format!("writ-plans-live-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let page = |payee: &str| {
        std::fs::write(
            dir.join("responses.toml"),
            format!("[[response]]\nurl = \"https://fares.example/cheap\"\nbody = \"{payee}\"\n"),
        )
        .expect("written");
    };
    page("air-one.example");
    let text = "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[grants.Log]\n\n\
        [grants.Http]\nrecorded = \"responses.toml\"\n\n\
        [grants.Pay]\npayees = [\"air-one.example\", \"sky.example\"]\ncurrency = \"EUR\"\nmax_payment_cents = 50000\n";
    let mut p = e.parse_policy(text).unwrap_or_else(|d| panic!("{d:#?}"));
    p.dir = Some(dir.clone());
    let program = check(
        &e,
        "let payee = Http.get(\"https://fares.example/cheap\")\nPay.pay(payee, 100, \"fare\").id\n",
        &p,
    );
    let db = common::db("plans", "live");
    let plan = e
        .plan(&program, &p, &options(&db))
        .unwrap_or_else(|err| panic!("{err:?}"));
    // Between plan and execution the page changed: the program now
    // chooses another payee, and is stopped before paying it.
    page("sky.example");
    let live = RunOptions {
        reads: writ_host::engine::ReadMode::Record,
        ..approved(&db, &plan)
    };
    let o = e
        .run(&program, &p, &live, &mut |_| {})
        .unwrap_or_else(|err| panic!("{err:?}"));
    assert_eq!(
        o.changed_reads,
        [
            "Http.get(\"https://fares.example/cheap\") answered otherwise than when the plan was made"
        ]
    );
    let err = o.result.expect_err("a deviation");
    assert_eq!(err.code.as_str(), "E4013");
    assert!(
        !audit_lines(&db)
            .iter()
            .any(|l| l.starts_with("Pay.pay(\"sky.example\"") && l.contains("allowed"))
    );

    // Replayed (the default), the same plan pays the payee the person saw.
    let plan2 = e
        .plan(&program, &p, &options(&db))
        .unwrap_or_else(|err| panic!("{err:?}"));
    page("air-one.example");
    let o = e
        .run(&program, &p, &approved(&db, &plan2), &mut |_| {})
        .unwrap_or_else(|err| panic!("{err:?}"));
    assert!(o.changed_reads.is_empty());
    assert_eq!(o.result.as_deref().ok(), Some("\"pay-1\""));
}

#[test]
fn what_a_plan_keeps_of_its_acts_is_bounded_by_the_memory_limit() {
    let e = engine();
    let mut p = policy(&e, "bound", "ada", 50000);
    p.limits.memory = 256 << 10;
    let db = common::db("plans", "bound");
    // Each planned act is kept with its arguments: 1,000 payments with a
    // 512-byte memo take more than 256 KiB.
    let memo = "m".repeat(500);
    let source = format!(
        "fn pay(n: Int) -> Int / {{Pay}} {{\n  if n == 0 {{ 0 }} else {{ Pay.pay(\"air-one.example\", 1, \"{memo}\").cents + pay(n - 1) }}\n}}\npay(1000)\n"
    );
    let program = check(&e, &source, &p);
    let plan = e
        .plan(&program, &p, &options(&db))
        .unwrap_or_else(|err| panic!("{err:?}"));
    let err = plan.result.expect_err("E5002");
    assert!(
        err.starts_with("E5002: expected the plan's acts to take at most 262144 bytes (the memory limit), but Pay.pay would take "),
        "{err}"
    );
    assert!(
        plan.acts.len() < 1000 && plan.acts.len() > 100,
        "{}",
        plan.acts.len()
    );
}

#[test]
fn two_plans_alike_in_all_else_are_two_approvals_each_executed_once() {
    let engine = engine();
    let p = policy(&engine, "twice", "ada", 50000);
    let program = check(
        &engine,
        "Pay.pay(\"air-one.example\", 100, \"coffee\").id\n",
        &p,
    );
    let db = common::db("plans", "twice");
    let plan = |engine: &Engine| {
        engine
            .plan(&program, &p, &options(&db))
            .unwrap_or_else(|e| panic!("{e:?}"))
    };
    let run = |plan: &Plan| engine.run(&program, &p, &approved(&db, plan), &mut |_| {});
    let (today, tomorrow) = (plan(&engine), plan(&engine));
    assert_ne!(today.id, tomorrow.id);
    assert_eq!(today.acts, tomorrow.acts);
    let first = run(&today).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(first.result.as_deref(), Ok("\"pay-1\""));
    let second = run(&tomorrow).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(second.result.as_deref(), Ok("\"pay-2\""));
    for again in [&today, &tomorrow] {
        match run(again) {
            Err(e) => assert_eq!(e.code.as_str(), "E4014", "{}", e.message),
            Ok(o) => panic!("expected E4014, found {:?}", o.result),
        }
    }
    // Its identifier is part of what its digest covers.
    let mut changed = today.to_json();
    changed["id"] = serde_json::json!(tomorrow.id);
    assert!(Plan::from_json(&changed).is_err());
    let _ = std::fs::remove_file(&db);
}

/// A policy granting `Confirm` and `Pay` (to air-one.example).
fn asking_policy(engine: &Engine) -> Policy {
    engine
        .parse_policy(
            "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[grants.Confirm]\n\n\
             [grants.Pay]\npayees = [\"air-one.example\"]\ncurrency = \"EUR\"\nmax_payment_cents = 50000\n",
        )
        .unwrap_or_else(|d| panic!("{d:#?}"))
}

/// A plan of `program`, made on a new store named after `name` with the
/// person saying yes to every question: the store's path, and the plan.
fn planned_saying_yes(
    engine: &Engine,
    program: &Compiled,
    p: &Policy,
    name: &str,
) -> (String, Plan) {
    let db = std::env::temp_dir().join(format!("writ-plans-{name}-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&db);
    let db = db.display().to_string();
    let planner = engine.clone().with_confirm(Arc::new(|_: &str| true));
    let plan = planner
        .plan(program, p, &options(&db))
        .unwrap_or_else(|e| panic!("{e:?}"));
    (db, plan)
}

#[test]
fn a_run_of_an_approved_plan_paused_is_not_saved_as_a_snapshot() {
    use writ_host::engine::{PauseAt, Reply, Step};
    let engine = engine();
    let p = asking_policy(&engine);
    let program = check(
        &engine,
        "if Confirm.ask(\"Pay twice?\") {\n  let r = Pay.pay(\"air-one.example\", 100, \"first\")\n  let s = Pay.pay(\"air-one.example\", 200, \"second\")\n  \"${r.id} ${s.id}\"\n} else { \"none\" }\n",
        &p,
    );
    let (db, plan) = planned_saying_yes(&engine, &program, &p, "snap");
    assert_eq!(plan.acts.len(), 2);
    // Its approved run, asked to pause at the question, pauses there; a
    // snapshot of it would not hold how far through the plan it is, and
    // restored it would no longer be bound to the plan: refused.
    let paused = RunOptions {
        pause_at: PauseAt::Only(vec!["Confirm".into()]),
        ..approved(&db, &plan)
    };
    let started = engine.start(&program, &p, &paused);
    let Ok(Step::Paused(mut pending)) = started else {
        panic!("expected a pause at the question, found {started:?}")
    };
    let refused = match pending.to_bytes() {
        Ok(_) => panic!("a run of an approved plan was saved"),
        Err(e) => e,
    };
    assert_eq!(refused.code.as_str(), "E4009");
    assert_eq!(
        refused.message,
        "expected a run that can be saved, found a run of an approved plan: its snapshot would not hold how far through the plan it is"
    );
    // Where it is, it goes on as the plan says.
    let Ok(Step::Done(outcome)) = pending.resume(Reply::Answer(serde_json::json!(true))) else {
        panic!("expected the end")
    };
    assert_eq!(outcome.result.ok().as_deref(), Some("\"pay-1 pay-2\""));
    let _ = std::fs::remove_file(&db);
}

#[test]
fn an_approved_run_handed_out_at_a_question_stays_bound_to_its_plan() {
    use writ_host::engine::{PauseAt, Reply, Step};
    let engine = engine();
    let p = asking_policy(&engine);
    let program = check(
        &engine,
        "if Confirm.ask(\"Cheap?\") { Pay.pay(\"air-one.example\", 100, \"cheap\").id } else { Pay.pay(\"air-one.example\", 30000, \"dear\").id }\n",
        &p,
    );
    let (db, plan) = planned_saying_yes(&engine, &program, &p, "bound");
    let paused = RunOptions {
        pause_at: PauseAt::Only(vec!["Confirm".into()]),
        ..approved(&db, &plan)
    };
    let started = engine.start(&program, &p, &paused);
    let Ok(Step::Paused(pending)) = started else {
        panic!("expected a pause at the question, found {started:?}")
    };
    // Answered otherwise than when the plan was made, the program turns
    // to an act the plan does not hold: stopped before it.
    let Ok(Step::Done(outcome)) = pending.resume(Reply::Answer(serde_json::json!(false))) else {
        panic!("expected the end")
    };
    let err = outcome.result.err().map(|e| e.code.as_str().to_string());
    assert_eq!(err.as_deref(), Some("E4013"), "{:?}", outcome.operations);
    let _ = std::fs::remove_file(&db);
}

/// A policy paying `shop.example` up to 10.00 EUR a payment, with caps
/// per run and per day.
fn capped_policy(engine: &Engine, run: i64, day: i64) -> Policy {
    let text = format!(
        "[principal]\nid = \"grace\"\nrole = \"employee\"\n\n[grants.Log]\n\n\
         [grants.Pay]\npayees = [\"shop.example\"]\ncurrency = \"EUR\"\nmax_payment_cents = 1000\n\
         max_run_cents = {run}\nmax_day_cents = {day}\non_deny = \"fail\"\n"
    );
    engine
        .parse_policy(&text)
        .unwrap_or_else(|d| panic!("{d:#?}"))
}

/// Ten payments of 4.00 EUR, each caught if refused.
const PIECES: &str = "\
fn piece(n: Int) -> Str / {Pay} {
  handle Pay.pay(\"shop.example\", 400, \"piece ${n}\").id with { Fail.fail(why) => \"refused\" }
}
list.map(list.range(1, 11), piece)
";

#[test]
fn a_plans_payments_count_toward_the_caps_of_the_ones_after_them() {
    let e = engine();
    for (name, run, day, allowed, rule) in [
        (
            "run-cap",
            1500,
            100000,
            3,
            "4.00 EUR would bring this run's payments to 16.00 EUR, over the cap of 15.00 EUR",
        ),
        (
            "day-cap",
            100000,
            2000,
            5,
            "4.00 EUR would bring today's payments to 24.00 EUR, over the cap of 20.00 EUR",
        ),
    ] {
        let p = capped_policy(&e, run, day);
        let program = check(&e, PIECES, &p);
        let db = common::db("plans", name);
        let plan = e
            .plan(&program, &p, &options(&db))
            .unwrap_or_else(|err| panic!("{err:?}"));
        let decisions: Vec<Decision> = plan.acts.iter().map(|a| a.decision).collect();
        let mut want = vec![Decision::Allowed; allowed];
        want.resize(10, Decision::Denied);
        assert_eq!(decisions, want, "{name}");
        assert_eq!(
            plan.acts.get(allowed).map(|a| a.rule.as_str()),
            Some(rule),
            "{name}"
        );
        // The run it approves pays exactly what the plan says, and is
        // refused the rest at the same acts: it does not deviate.
        let o = e
            .run(&program, &p, &approved(&db, &plan), &mut |_| {})
            .unwrap_or_else(|err| panic!("{name}: {err:?}"));
        let paid: Vec<String> = (1..=10)
            .map(|n| {
                if n <= allowed {
                    format!("\"pay-{n}\"")
                } else {
                    "\"refused\"".to_string()
                }
            })
            .collect();
        assert_eq!(
            o.result.as_deref().ok(),
            Some(format!("[{}]", paid.join(", ")).as_str()),
            "{name}"
        );
    }
}
