//! A capability an embedder writes in Rust: its interface declared in Writ,
//! a handler with typed arguments, and the same grants, audit, denials and
//! argument gate as the built-in capabilities.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

mod common;

use writ_host::engine::{Decision, Engine, IntoValue, Refusal};

const WEATHER: &str = "/// Weather forecasts, from the host.\neffect Weather {\n  /// The forecast high for `city`, in degrees Celsius.\n  fn high(city: Str) -> Int\n}\n";

fn engine() -> Engine {
    Engine::new().with_capability(
        "Weather",
        WEATHER,
        Arc::new(|op, args| match op {
            "high" => {
                let city: String = args.get(0)?;
                match city.as_str() {
                    "Oslo" => Ok((-3i64).into_value()),
                    "Lima" => Ok(19i64.into_value()),
                    other => Err(format!("no forecast for {other}").into()),
                }
            }
            other => Err(format!("no operation {other}").into()),
        }),
    )
}

const POLICY: &str = "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[grants.Log]\n\n[grants.Weather]\non_deny = \"fail\"\n";

#[test]
fn a_custom_capability_is_checked_granted_called_and_audited() {
    let engine = engine();
    let policy = match engine.parse_policy(POLICY) {
        Ok(p) => p,
        Err(d) => panic!("{d:#?}"),
    };
    let src = "fn high(city: Str) -> Str / {Weather} {\n  handle \"${Weather.high(city)}\" with { Fail.fail(why) => why }\n}\n\
Log.info(high(\"Oslo\"))\nLog.info(high(\"Lima\"))\nLog.info(high(\"Atlantis\"))\n";
    let program = match engine.check(src, &policy) {
        Ok(p) => p,
        Err(d) => panic!("{d:#?}"),
    };
    assert_eq!(program.effects, ["Log", "Weather"]);
    let db = common::db("custom", "weather");
    let outcome = common::run(&engine, &program, &policy, &db);
    assert_eq!(
        outcome.output,
        [
            "-3",
            "19",
            "Weather.high(\"Atlantis\") was denied: no forecast for Atlantis"
        ]
    );
    // Custom capabilities are audited by default.
    let decisions: Vec<(String, Decision)> = outcome
        .operations
        .iter()
        .filter(|o| o.operation == "Weather.high")
        .map(|o| (o.arguments.clone(), o.decision))
        .collect();
    assert_eq!(
        decisions,
        [
            ("\"Oslo\"".to_string(), Decision::Allowed),
            ("\"Lima\"".to_string(), Decision::Allowed),
            // Recorded before the handler acts, then its refusal.
            ("\"Atlantis\"".to_string(), Decision::Allowed),
            ("\"Atlantis\"".to_string(), Decision::Denied),
        ]
    );
    assert_eq!(outcome.audit_ids.len(), 4);
    let _ = std::fs::remove_file(&db);
}

#[test]
fn without_its_grant_a_custom_capability_is_rejected_and_cannot_be_redeclared() {
    let engine = engine();
    let only_log =
        match engine.parse_policy("[principal]\nid = \"a\"\nrole = \"r\"\n\n[grants.Log]\n") {
            Ok(p) => p,
            Err(d) => panic!("{d:#?}"),
        };
    let codes = |r: Result<_, Vec<writ_lang::Diagnostic>>| -> Vec<String> {
        r.err()
            .unwrap_or_default()
            .iter()
            .map(|d| d.code.to_string())
            .collect()
    };
    assert_eq!(
        codes(
            engine
                .check("Weather.high(\"Oslo\")\n", &only_log)
                .map(|_| ())
        ),
        ["E3002"]
    );
    let redeclared = "effect Weather {\n  fn high(city: Str) -> Int\n}\nLog.info(\"x\")\n";
    assert_eq!(
        codes(engine.check(redeclared, &only_log).map(|_| ())),
        ["E1009"]
    );
    // An engine without the capability refuses a policy that grants it.
    let plain = writ_host::policy::parse(POLICY).err().unwrap_or_default();
    assert_eq!(
        plain.first().map(|d| d.code.to_string()).as_deref(),
        Some("E6004")
    );
}

#[test]
fn a_custom_capabilitys_arguments_pass_the_same_gate() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let deep_type = format!("{}Int{}", "List[".repeat(34), "]".repeat(34));
    let interface = format!(
        "/// Takes what it is given.\neffect Sink {{\n  /// Keep `text` and `items`.\n  fn put(text: Str, items: List[Str]) -> Int\n  /// Keep a nested list.\n  fn deep(x: {deep_type}) -> Int\n}}\n"
    );
    let engine = Engine::new().with_capability(
        "Sink",
        &interface,
        Arc::new(move |_, _| {
            counted.fetch_add(1, Ordering::SeqCst);
            Ok(1i64.into_value())
        }),
    );
    let policy = match engine.parse_policy(
        "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[grants.Log]\n\n[grants.Sink]\non_deny = \"fail\"\n",
    ) {
        Ok(p) => p,
        Err(d) => panic!("{d:#?}"),
    };
    let deep_value = format!("{}1{}", "[".repeat(34), "]".repeat(34));
    let src = format!(
        "fn put(t: Str, xs: List[Str]) -> Str / {{Sink}} {{\n  handle \"${{Sink.put(t, xs)}}\" with {{ Fail.fail(why) => why }}\n}}\n\
fn tens(n: Int) -> List[Str] {{ list.map(list.range(0, n), fn(i) {{ \"xxxxxxxxxx\" }}) }}\n\
Log.info(put(\"a\", [\"b\"]))\n\
Log.info(put(str.repeat(\"t\", 65536), []))\n\
Log.info(put(str.repeat(\"t\", 65537), []))\n\
Log.info(put(\"a\", tens(1000)))\n\
Log.info(put(\"a\", tens(10000)))\n\
Log.info(handle \"${{Sink.deep({deep_value})}}\" with {{ Fail.fail(why) => why }})\n"
    );
    let db = common::db("custom", "gate");
    let outcome = common::run_with(&engine, &src, &policy, &db);
    let start = format!("{:?}", "t".repeat(1024));
    assert_eq!(
        outcome.output,
        [
            "1".to_string(),
            "1".to_string(),
            format!("Sink.put({start}… (65537 bytes, over the limit: only its start is recorded), []) was denied: argument 1 is 65537 bytes, over the host's limit of 65536 bytes; nothing was carried out"),
            "1".to_string(),
            "Sink.put(\"a\", <a list of more than 65536 bytes>) was denied: argument 2 is a list of more than 65536 bytes, over the host's limit; nothing was carried out".to_string(),
            "Sink.deep(<a list nested more than 32 deep>) was denied: argument 1 is a list nested more than 32 deep, over the host's limit; nothing was carried out".to_string(),
        ]
    );
    // The handler saw only the arguments within the gate; a refused
    // operation has its denial and no record of being allowed.
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    let decisions: Vec<Decision> = outcome
        .operations
        .iter()
        .filter(|o| o.operation.starts_with("Sink."))
        .map(|o| o.decision)
        .collect();
    assert_eq!(
        decisions,
        [
            Decision::Allowed,
            Decision::Allowed,
            Decision::Denied,
            Decision::Allowed,
            Decision::Denied,
            Decision::Denied
        ]
    );
    let _ = std::fs::remove_file(&db);
}

/// An engine whose `Trips` capability reads its arguments and gives its
/// result as JSON, and fails (rather than denies) a trip it cannot price.
fn json_engine() -> Engine {
    Engine::new().with_capability(
        "Trips",
        "effect Trips {\n  fn price(trip: { from: Str, to: Str, seats: Int }) -> { cents: Int, carrier: Str }\n  fn label(code: Int) -> Str\n}\n",
        Arc::new(|op, args| {
            let json = args.json()?;
            let answer = match (op, json.first()) {
                ("price", Some(trip)) if trip["to"] == "OSL" => serde_json::json!({
                    "cents": 12900 * trip["seats"].as_i64().unwrap_or(0),
                    "carrier": format!("{}-air", trip["from"].as_str().unwrap_or("?")),
                }),
                ("price", _) => return Err(Refusal::fail("no fares to there")),
                // Of the wrong type: the declared result is a Str.
                ("label", _) => serde_json::json!(7),
                _ => return Err("no such operation".into()),
            };
            args.result_from_json(&answer).map_err(Refusal::fail)
        }),
    )
}

#[test]
fn a_handler_reads_its_arguments_and_gives_its_result_as_json() {
    let engine = json_engine();
    let policy =
        match engine.parse_policy("[principal]\nid = \"ada\"\nrole = \"r\"\n\n[grants.Trips]\n") {
            Ok(p) => p,
            Err(d) => panic!("{d:#?}"),
        };
    let src = "let q = Trips.price({ from: \"LIS\", to: \"OSL\", seats: 2 })\n\"${q.carrier} ${q.cents}\"\n";
    let db = common::db("custom", "json");
    let outcome = common::run_with(&engine, src, &policy, &db);
    assert_eq!(outcome.result.as_deref(), Ok("\"LIS-air 25800\""));
    // A result whose fields the program never names is still a record.
    let whole = common::run_with(
        &engine,
        "Trips.price({ from: \"OPO\", to: \"OSL\", seats: 1 })\n",
        &policy,
        &db,
    );
    assert_eq!(
        whole.result.as_deref(),
        Ok("{ carrier: \"OPO-air\", cents: 12900 }")
    );
    let _ = std::fs::remove_file(&db);
}

#[test]
fn a_handler_that_fails_raises_fail_where_the_operation_was_and_is_not_a_denial() {
    let engine = json_engine();
    let policy = match engine.parse_policy(
        "[principal]\nid = \"ada\"\nrole = \"r\"\n\n[grants.Trips]\non_deny = \"stop\"\n",
    ) {
        Ok(p) => p,
        Err(d) => panic!("{d:#?}"),
    };
    // `on_deny = "stop"` would end the run at a denial; a failure is
    // `Fail` the program handles.
    let src = "let a = handle Trips.price({ from: \"LIS\", to: \"NYC\", seats: 1 }).carrier with { Fail.fail(why) => \"failed: ${why}\" }\n\
let b = handle Trips.label(3) with { Fail.fail(why) => \"failed: ${why}\" }\n[a, b]\n";
    let db = common::db("custom", "json-fail");
    let outcome = common::run_with(&engine, src, &policy, &db);
    assert_eq!(
        outcome.result.as_deref(),
        Ok("[\"failed: no fares to there\", \"failed: Trips.label: expected Str, found 7\"]")
    );
    let decisions: Vec<Decision> = outcome.operations.iter().map(|o| o.decision).collect();
    assert_eq!(decisions, [Decision::Allowed, Decision::Allowed]);
    let _ = std::fs::remove_file(&db);
}

#[test]
fn arguments_outside_a_program_have_no_json() {
    let values = [writ_runtime::Value::int(3)];
    let args = writ_host::engine::Args::new(&values);
    assert_eq!(args.get::<i64>(0), Ok(3));
    assert!(args.json().is_err());
    assert!(args.result_from_json(&serde_json::json!(1)).is_err());
}
