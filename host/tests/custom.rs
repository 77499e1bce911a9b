//! A capability an embedder writes in Rust: its interface declared in Writ,
//! a handler with typed arguments, and the same grants, audit and denials
//! as the built-in capabilities.

use std::sync::Arc;

use writ_host::engine::{Engine, IntoValue, RunOptions};

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
                    other => Err(format!("no forecast for {other}")),
                }
            }
            other => Err(format!("no operation {other}")),
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
    let db = std::env::temp_dir().join(format!("writ-custom-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&db);
    let options = RunOptions {
        store: Some(db.display().to_string()),
    };
    let outcome = match engine.run(&program, &policy, &options, &mut |_: &str| {}) {
        Ok(o) => o,
        Err(e) => panic!("{e:?}"),
    };
    assert_eq!(
        outcome.output,
        [
            "-3",
            "19",
            "Weather.high(\"Atlantis\") was denied: no forecast for Atlantis"
        ]
    );
    // Custom capabilities are audited by default.
    let decisions: Vec<(String, String)> = outcome
        .operations
        .iter()
        .filter(|o| o.operation == "Weather.high")
        .map(|o| (o.arguments.clone(), o.decision.clone()))
        .collect();
    assert_eq!(
        decisions,
        [
            ("\"Oslo\"".to_string(), "allowed".to_string()),
            ("\"Lima\"".to_string(), "allowed".to_string()),
            // Recorded before the handler acts, then its refusal.
            ("\"Atlantis\"".to_string(), "allowed".to_string()),
            ("\"Atlantis\"".to_string(), "denied".to_string()),
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
