//! The playground's host, natively: each request the page makes, with
//! what it answers, for the stories the browser test plays (a diagnostic
//! then a fix, a refused capability, a plan approved, a question, a
//! runaway loop) and the rest of its surface (recorded `Http`, records
//! from a seed, the audit chain kept and put back, the page's bounds).

use serde_json::{Value as Json, json};

use super::*;

/// A playground on a store no other test uses.
fn fresh() -> Playground {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static MADE: AtomicUsize = AtomicUsize::new(0);
    add_entropy(b"the tests' randomness");
    Playground::with_store(&format!("webtest{}", MADE.fetch_add(1, Ordering::Relaxed)))
}

const ADA: &str =
    "[principal]\nid = \"e1001\"\nname = \"Ada Lovelace\"\nrole = \"employee\"\n\n[grants.Log]\n";

fn with(policy: &str, more: &str) -> String {
    format!("{policy}\n{more}")
}

const PAY: &str =
    "[grants.Pay]\npayees = [\"air-one.example\"]\ncurrency = \"EUR\"\nmax_payment_cents = 50000\n";

#[test]
fn a_diagnostic_as_the_student_types_then_the_fix_runs_with_its_log() {
    let p = fresh();
    let broken = "Log.info(\"hello\"\n";
    let checked = p.check(broken, ADA);
    assert_eq!(checked["accepted"], json!(false));
    let d = &checked["diagnostics"][0];
    assert_eq!(d["code"], json!("E0010"), "{checked}");
    assert!(
        d["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("expected")),
        "{d}"
    );
    assert!(d["labels"][0]["start"]["offset"].as_u64().is_some(), "{d}");
    // Refused for its syntax, it has no manifest (and is not checked again
    // for one).
    assert_eq!(checked["manifest"], json!([]));

    let fixed = "Log.info(\"hello\")\n1 + 2\n";
    let checked = p.check(fixed, ADA);
    assert_eq!(checked["accepted"], json!(true), "{checked}");
    assert_eq!(
        checked["manifest"],
        json!([{ "effect": "Log", "capability": true, "granted": true,
                 "sites": [{ "operation": "info", "start": 0, "end": 17 }] }])
    );
    let grants = checked["grants"].as_array().cloned().unwrap_or_default();
    assert!(grants.contains(&json!({ "name": "Log", "granted": true })));
    assert!(grants.contains(&json!({ "name": "Pay", "granted": false })));

    let mut p = p;
    let ran = p.run(fixed, ADA);
    assert_eq!(ran["status"], json!("done"), "{ran}");
    assert_eq!(ran["value"], json!("3"));
    assert_eq!(ran["log"], json!(["hello"]));
}

#[test]
fn a_capability_the_policy_does_not_grant_is_refused_before_any_step() {
    let mut p = fresh();
    let program = "Log.info(\"paying\")\nPay.pay(\"air-one.example\", 100, \"x\")\n";
    let checked = p.check(program, ADA);
    assert_eq!(checked["accepted"], json!(false));
    let d = &checked["diagnostics"][0];
    assert_eq!(d["code"], json!("E3002"), "{checked}");
    assert!(
        d["help"]
            .as_str()
            .is_some_and(|h| h.contains("[grants.Pay]")),
        "{d}"
    );
    // What it would need is shown beside what is granted.
    assert_eq!(
        checked["manifest"][1],
        json!({ "effect": "Pay", "capability": true, "granted": false,
                "sites": [{ "operation": "pay", "start": 19, "end": 55 }] })
    );
    let ran = p.run(program, ADA);
    assert_eq!(ran["status"], json!("rejected"), "{ran}");
    assert_eq!(ran["diagnostics"][0]["code"], json!("E3002"));
    // Nothing ran: no "paying" and no record.
    assert_eq!(p.audit()["total"], json!(0));
}

#[test]
fn a_plan_pays_nothing_and_its_approval_pays_exactly_it_once() {
    let mut p = fresh();
    let policy = with(ADA, PAY);
    let program = "let r = Pay.pay(\"air-one.example\", 38900, \"flight A1-318\")\nr.id\n";
    let plan = p.plan(program, &policy);
    assert_eq!(plan["status"], json!("plan"), "{plan}");
    assert_eq!(plan["acts"], json!(1));
    assert_eq!(
        plan["words"][1],
        json!("  1. Pay 389.00 EUR to air-one.example (\"flight A1-318\")")
    );
    assert_eq!(p.audit()["ledger"], json!([]), "a plan pays nothing");

    let id = plan["id"].as_str().unwrap_or_default().to_string();
    let ran = p.approve(&id);
    assert_eq!(ran["value"], json!("\"pay-1\""), "{ran}");
    let audit = p.audit();
    assert_eq!(audit["ledger"][0]["cents"], json!(38900), "{audit}");
    assert_eq!(audit["verified"]["ok"], json!(true));

    let again = p.approve(&id);
    assert_eq!(again["status"], json!("error"));
    assert!(
        again["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("expected the id of the plan made last")),
        "{again}"
    );
}

#[test]
fn confirm_pauses_the_run_and_the_answer_goes_on() {
    let mut p = fresh();
    let policy = with(ADA, "[grants.Confirm]\n");
    let program =
        "Log.info(\"asking\")\nif Confirm.ask(\"Book it?\") { \"booked\" } else { \"kept\" }\n";
    let asked = p.run(program, &policy);
    assert_eq!(asked["status"], json!("confirm"), "{asked}");
    assert_eq!(asked["question"], json!("\"Book it?\""));
    assert_eq!(asked["log"], json!(["asking"]));
    assert_eq!(p.waiting(), Some("\"Book it?\""));
    let done = p.answer(true);
    assert_eq!(done["value"], json!("\"booked\""), "{done}");
    assert_eq!(done["log"], json!(["asking"]));
    assert_eq!(p.waiting(), None);

    // No: the program goes the other way.
    assert_eq!(p.run(program, &policy)["status"], json!("confirm"));
    assert_eq!(p.answer(false)["value"], json!("\"kept\""));
    // Nothing waiting: an answer is refused.
    assert_eq!(p.answer(true)["status"], json!("error"));

    // While a plan is made there is no one to ask: the question is
    // answered no, and the approved run replays that answer.
    let plan = p.plan(program, &policy);
    assert_eq!(plan["result"], json!({ "value": "\"kept\"" }), "{plan}");
    let id = plan["id"].as_str().unwrap_or_default().to_string();
    let ran = p.approve(&id);
    assert_eq!(ran["value"], json!("\"kept\""), "{ran}");
}

#[test]
fn a_runaway_loop_stops_at_the_policys_fuel_with_its_code() {
    let mut p = fresh();
    let policy = with(ADA, "[limits]\nfuel = 100000\n");
    let program = "fn spin(n: Int) -> Int { spin(n + 1) }\nspin(0)\n";
    let ran = p.run(program, &policy);
    assert_eq!(ran["ok"], json!(false), "{ran}");
    assert_eq!(ran["error"]["code"], json!("E5001"));
    assert!(
        ran["error"]["help"]
            .as_str()
            .is_some_and(|h| h.contains("raise `fuel` in the policy's `[limits]`")),
        "{ran}"
    );
}

#[test]
fn http_answers_from_the_recorded_responses_the_page_gives() {
    let mut p = fresh();
    let policy = with(
        ADA,
        "[grants.Http]\nallow = [\"https://air-one.example\"]\nrecorded = \"responses.toml\"\n",
    );
    let program = "Http.get(\"https://air-one.example/fares\")\n";
    // The file is not given yet: the host cannot run it.
    let missing = p.run(program, &policy);
    assert_eq!(missing["error"]["code"], json!("E4006"), "{missing}");
    assert!(
        missing["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("the page has no file `responses.toml`")),
        "{missing}"
    );
    let files = json!({ "responses.toml": "[[response]]\nurl = \"https://air-one.example/fares\"\nbody = \"389\"\n" });
    assert_eq!(p.set_files(&files)["status"], json!("ok"));
    let ran = p.run(program, &policy);
    assert_eq!(ran["value"], json!("\"389\""), "{ran}");
    assert_eq!(ran["recorded"], json!(true));
    // Allowed but not recorded: there is no network to ask.
    let other = p.run("Http.get(\"https://air-one.example/seats\")\n", &policy);
    assert_eq!(other["ok"], json!(false), "{other}");
    assert_eq!(other["operations"][0]["decision"], json!("denied"));
}

#[test]
fn records_come_from_the_seed_within_the_policys_scope() {
    let mut p = fresh();
    let org = include_str!("../../examples/shared/org.sql");
    assert_eq!(
        p.set_files(&json!({ "org.sql": org }))["status"],
        json!("ok")
    );
    let policy = "[principal]\nid = \"e1001\"\nname = \"Ada Lovelace\"\nrole = \"employee\"\n\n[store]\nseed = \"org.sql\"\n\n[grants.Records]\nscope = \"self\"\n";
    let mine = p.run("Records.read(\"e1001\").name\n", policy);
    assert_eq!(mine["value"], json!("\"Ada Lovelace\""), "{mine}");
    let theirs = p.run("Records.read(\"e1002\").name\n", policy);
    assert_eq!(theirs["ok"], json!(false), "{theirs}");
    assert_eq!(theirs["operations"][0]["decision"], json!("denied"));
}

#[test]
fn the_store_kept_by_the_page_comes_back_verified_and_a_change_is_found() {
    let mut p = fresh();
    let policy = with(ADA, PAY);
    let plan = p.plan("Pay.pay(\"air-one.example\", 100, \"x\")\n", &policy);
    let id = plan["id"].as_str().unwrap_or_default().to_string();
    assert_eq!(p.approve(&id)["ok"], json!(true));
    let kept = p.export();
    assert_eq!(kept["ledger"].as_array().map(Vec::len), Some(1), "{kept}");

    let mut q = fresh();
    let back = q.import(&kept);
    assert_eq!(back["verified"]["ok"], json!(true), "{back}");
    assert_eq!(
        back["total"].as_u64(),
        kept["records"].as_array().map(|r| r.len() as u64)
    );

    let mut changed = kept.clone();
    changed["ledger"][0]["cents"] = json!(1);
    let back = fresh().import(&changed);
    assert_eq!(back["verified"]["ok"], json!(false), "{back}");
    assert!(
        back["verified"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("was edited")),
        "{back}"
    );
    let bad = fresh().import(&json!({ "meta": {}, "records": [{}] }));
    assert_eq!(
        bad["error"]["message"],
        json!("expected an audit record to have `seq`, found none")
    );
    // Another store is another log; a name that is not one is refused.
    assert_eq!(q.use_store("lab9")["status"], json!("ok"));
    assert_eq!(q.store_name(), "lab9");
    assert_eq!(q.use_store("a/b")["status"], json!("error"));
    assert_eq!(q.store_name(), "lab9");
    // Reset: an empty store.
    assert_eq!(q.reset()["status"], json!("ok"));
    assert_eq!(q.audit()["total"], json!(0));
}

#[test]
fn a_policy_with_errors_is_shown_with_its_diagnostics() {
    let p = fresh();
    let checked = p.check("1\n", "[principal]\nid = 3\n");
    assert_eq!(checked["accepted"], json!(false));
    let d = &checked["policy_diagnostics"][0];
    assert_eq!(d["file"], json!("policy.toml"), "{checked}");
    assert!(
        d["code"].as_str().is_some_and(|c| c.starts_with('E')),
        "{d}"
    );
    // Nothing runs under it, and nothing is planned.
    let mut p = p;
    let bad = "[principal]\nid = 3\n";
    for answer in [p.run("1\n", bad), p.plan("1\n", bad)] {
        assert_eq!(answer["status"], json!("rejected"), "{answer}");
        assert_eq!(
            answer["policy_diagnostics"][0]["file"],
            json!("policy.toml")
        );
    }
}

#[test]
fn the_pages_bounds_hold() {
    let mut p = fresh();
    let many: serde_json::Map<String, Json> = (0..=MAX_FILES)
        .map(|i| (format!("f{i}"), json!("")))
        .collect();
    assert_eq!(p.set_files(&Json::Object(many))["status"], json!("error"));
    assert_eq!(p.set_files(&json!(["x"]))["status"], json!("error"));
    assert_eq!(p.set_files(&json!({ "a": 1 }))["status"], json!("error"));
    let long = "1".repeat(writ::MAX_SOURCE_BYTES as usize + 1);
    let checked = p.check(&long, ADA);
    assert_eq!(
        checked["diagnostics"][0]["code"],
        json!("E9004"),
        "{checked:.200}"
    );
    let checked = p.check("1\n", &long);
    assert_eq!(checked["policy_diagnostics"][0]["code"], json!("E9004"));
    assert_eq!(explain("E5001").map(|t| t.contains("fuel")), Some(true));
    assert_eq!(explain("E9999"), None);
    assert_eq!(explain("nonsense"), None);
}
