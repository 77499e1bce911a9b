//! Typed inputs (decision 009): the checker checks a program's uses of the
//! inputs a host declares, and a run converts the host's JSON values by
//! their declared types before the first step, refusing every mismatch
//! with the input and the path inside it.

mod common;

use serde_json::{Value as Json, json};
use writ_host::engine::{Compiled, Engine, RunOptions};
use writ_host::policy::Policy;
use writ_lang::Code;
use writ_lang::types::InputDecl;

fn policy(engine: &Engine) -> Policy {
    engine
        .parse_policy("[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[grants.Log]\n")
        .expect("a valid policy")
}

const REQUEST: &str = "{ from: Str, to: Str, budget_cents: Int }";

fn check(source: &str, inputs: &[(&str, &str)]) -> Result<Compiled, Vec<writ_lang::Diagnostic>> {
    let engine = Engine::new();
    let decls: Vec<InputDecl> = inputs.iter().map(|(n, t)| InputDecl::new(*n, *t)).collect();
    engine.check_with_inputs(source, &policy(&engine), &decls)
}

/// The codes and messages of a rejected program's errors.
fn rejected(source: &str, inputs: &[(&str, &str)]) -> Vec<(Code, String)> {
    match check(source, inputs) {
        Ok(_) => panic!("accepted: {source}"),
        Err(d) => d
            .into_iter()
            .filter(|d| d.is_error())
            .map(|d| (d.code, d.message))
            .collect(),
    }
}

/// Check `source` with `inputs` and run it with the JSON `values`.
fn run(
    name: &str,
    source: &str,
    inputs: &[(&str, &str)],
    values: Json,
) -> Result<String, (Code, String)> {
    let engine = Engine::new();
    let p = policy(&engine);
    let program = check(source, inputs).unwrap_or_else(|d| panic!("{d:#?}"));
    let db = common::db("inputs", name);
    let mut options = RunOptions {
        store: Some(db.clone()),
        ..Default::default()
    };
    if let Json::Object(m) = values {
        options.inputs = m;
    }
    let out = match engine.run(&program, &p, &options, &mut |_: &str| {}) {
        Ok(o) => o.result.map_err(|e| (e.code, e.message)),
        Err(e) => Err((e.code, e.message)),
    };
    let _ = std::fs::remove_file(&db);
    out
}

/// The error of running `source` (which must be refused) with `values`.
fn refused(name: &str, source: &str, inputs: &[(&str, &str)], values: Json) -> (Code, String) {
    match run(name, source, inputs, values) {
        Ok(v) => panic!("ran to {v}"),
        Err(e) => e,
    }
}

#[test]
fn a_declared_input_is_a_top_level_name_of_its_type() {
    let src =
        "let dollars = request.budget_cents / 100\n\"${request.from}-${request.to}: ${dollars}\"\n";
    let got = run(
        "accepted",
        src,
        &[("request", REQUEST)],
        json!({ "request": { "from": "OSL", "to": "BER", "budget_cents": 25000 } }),
    );
    assert_eq!(got.as_deref(), Ok("\"OSL-BER: 250\""));
}

#[test]
fn every_data_type_is_converted() {
    let src = "fn total(xs: List[Float]) -> Float { list.fold(xs, 0.0, fn(a, x) { a + x }) }\n\
               let o = match maybe { Some(n) => n, None => 0 }\n\
               let p = match nothing { Some(n) => n, None => 7 }\n\
               let (a, b) = pair\n\
               (total(prices), o + p, a, b, map.get(stock, \"pens\"), flag, unit)\n";
    let inputs = [
        ("prices", "List[Float]"),
        ("maybe", "Option[Int]"),
        ("nothing", "Option[Int]"),
        ("pair", "(Str, Bool)"),
        ("stock", "Map[Str, Int]"),
        ("flag", "Bool"),
        ("unit", "()"),
    ];
    let got = run(
        "every_type",
        src,
        &inputs,
        json!({
            "prices": [1.5, 2, 0.25],
            "maybe": 3,
            "nothing": null,
            "pair": ["x", true],
            "stock": { "pens": 4, "ink": 0 },
            "flag": false,
            "unit": null,
        }),
    );
    assert_eq!(
        got.as_deref(),
        Ok("(3.75, 10, \"x\", true, Some(4), false, ())")
    );
}

#[test]
fn the_checker_checks_uses_against_the_declared_type() {
    let errors = rejected("request.budget_cents ++ \"!\"\n", &[("request", REQUEST)]);
    assert!(
        errors
            .iter()
            .any(|(c, _)| *c == Code::UnsupportedOperation || *c == Code::TypeMismatch),
        "{errors:?}"
    );
    let errors = rejected("request.seat\n", &[("request", REQUEST)]);
    assert_eq!(
        errors.first().map(|e| e.0),
        Some(Code::NoSuchField),
        "{errors:?}"
    );
    // Monomorphic: an input is not generalised.
    let errors = rejected("let n: Str = count\n", &[("count", "Int")]);
    assert_eq!(
        errors.first().map(|e| e.0),
        Some(Code::TypeMismatch),
        "{errors:?}"
    );
    // Without the declaration, the name is unknown.
    let errors = rejected("request.to\n", &[]);
    assert_eq!(
        errors.first().map(|e| e.0),
        Some(Code::UnknownName),
        "{errors:?}"
    );
}

#[test]
fn a_top_level_definition_of_an_input_is_refused() {
    for src in [
        "let request = 1\nrequest\n",
        "fn request() { 1 }\nrequest()\n",
    ] {
        let errors = rejected(src, &[("request", REQUEST)]);
        assert_eq!(
            errors,
            [(
                Code::InputRedefined,
                "expected `request` to be the input the host declares, found a definition of it"
                    .to_string()
            )],
            "{src}"
        );
    }
    // A local of the same name hides it, as any local does.
    assert!(
        check(
            "fn f(request) { request + 1 }\nf(1)\n",
            &[("request", REQUEST)]
        )
        .is_ok()
    );
}

#[test]
fn a_malformed_declared_type_is_refused_naming_the_input() {
    for (ty, why) in [
        ("{ from: Str", "is not a type"),
        ("Int -> Int", "not a function"),
        ("Ticket", "`Ticket` is not a type an input can have"),
        ("List[a]", "type variable"),
        ("Map[Int, Str]", "`Str` keys"),
    ] {
        let errors = rejected("1\n", &[("request", ty)]);
        assert_eq!(errors.len(), 1, "{ty}: {errors:?}");
        let (code, message) = &errors[0];
        assert_eq!(*code, Code::InputType, "{ty}");
        assert!(
            message.starts_with(&format!(
                "expected a data type for the input `request`, found `{ty}`: "
            )) && message.contains(why),
            "{ty}: {message}"
        );
    }
    // A program's own type cannot stand in the host's contract.
    let errors = rejected("type Ticket = { id: Int }\nt.id\n", &[("t", "Ticket")]);
    assert_eq!(errors.first().map(|e| e.0), Some(Code::InputType));
    // Names: once each, and named like a value.
    for decls in [
        &[("a", "Int"), ("a", "Str")][..],
        &[("Request", "Int")][..],
        &[("", "Int")][..],
    ] {
        let errors = rejected("1\n", decls);
        assert_eq!(
            errors.first().map(|e| e.0),
            Some(Code::InputType),
            "{decls:?}"
        );
    }
}

#[test]
fn each_mismatch_names_the_input_and_the_path_inside_it() {
    let i = |path: &str, message: &str| (Code::InputMismatch, format!("{path}: {message}"));
    let request = [("request", REQUEST)];
    let good = || json!({ "from": "OSL", "to": "BER", "budget_cents": 25000 });
    let with = |field: &str, v: Json| {
        let mut r = good();
        r[field] = v;
        json!({ "request": r })
    };
    let cases: Vec<(&str, Json, (Code, String))> = vec![
        (
            "wrong scalar",
            with("budget_cents", json!("500")),
            i("request.budget_cents", "expected Int, found \"500\""),
        ),
        (
            "a fraction for an Int",
            with("budget_cents", json!(1.5)),
            i(
                "request.budget_cents",
                "expected Int (a whole number from -2^63 to 2^63 - 1), found 1.5",
            ),
        ),
        (
            "out of range",
            with("budget_cents", json!(9_223_372_036_854_775_808u64)),
            i(
                "request.budget_cents",
                "expected Int (a whole number from -2^63 to 2^63 - 1), found 9223372036854775808",
            ),
        ),
        (
            "null for a non-Option",
            with("to", Json::Null),
            i("request.to", "expected Str, found null"),
        ),
        (
            "missing field",
            json!({ "request": { "from": "OSL", "budget_cents": 1 } }),
            i(
                "request.to",
                "expected Str, found nothing (the field is missing)",
            ),
        ),
        (
            "extra field",
            with("seat", json!("12A")),
            i(
                "request",
                "expected the fields budget_cents, from, to, found the field `seat` too",
            ),
        ),
        (
            "not an object",
            json!({ "request": [1, 2] }),
            i(
                "request",
                "expected { budget_cents: Int, from: Str, to: Str }, found an array of 2",
            ),
        ),
    ];
    for (name, values, want) in cases {
        let got = refused(&name.replace(' ', "_"), "request.to\n", &request, values);
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn a_wrong_element_deep_in_a_list_is_found_by_its_path() {
    let inputs = [(
        "trip",
        "{ legs: List[{ to: Str, stops: Map[Str, Option[Int]] }] }",
    )];
    let leg = |stop: Json| json!({ "to": "BER", "stops": { "CPH": stop } });
    let values = json!({ "trip": { "legs": [leg(json!(1)), leg(Json::Null), leg(json!(true))] } });
    let got = refused("deep", "trip.legs\n", &inputs, values);
    assert_eq!(
        got,
        (
            Code::InputMismatch,
            "trip.legs[2].stops[\"CPH\"]: expected Int, found true".to_string()
        )
    );
    let tuple = refused(
        "tuple",
        "pair\n",
        &[("pair", "(Int, Int)")],
        json!({ "pair": [1, 2, 3] }),
    );
    assert_eq!(
        tuple,
        (
            Code::InputMismatch,
            "pair: expected (Int, Int) (an array of 2), found an array of 3".to_string()
        )
    );
}

#[test]
fn inputs_not_given_or_not_declared_are_refused() {
    let missing = refused("missing", "n\n", &[("n", "Int")], json!({}));
    assert_eq!(
        missing,
        (
            Code::InputNotGiven,
            "expected a value for the input `n` (of type Int), found none".to_string()
        )
    );
    let unknown = refused("unknown", "n\n", &[("n", "Int")], json!({ "n": 1, "m": 2 }));
    assert_eq!(
        unknown,
        (
            Code::InputNotGiven,
            "expected values for the declared inputs only (n), found a value for `m`".to_string()
        )
    );
    let none_declared = refused("none_declared", "1\n", &[], json!({ "m": 2 }));
    assert_eq!(none_declared.0, Code::InputNotGiven);
}

#[test]
fn nothing_runs_when_an_input_is_refused() {
    // The program would log and then audit; refused inputs leave no store.
    let engine = Engine::new();
    let p = policy(&engine);
    let program = engine
        .check_with_inputs("Log.info(\"ran\")\nn\n", &p, &[InputDecl::new("n", "Int")])
        .expect("accepted");
    let db = common::db("inputs", "nothing_runs");
    let mut options = RunOptions {
        store: Some(db.clone()),
        ..Default::default()
    };
    options.inputs.insert("n".into(), json!("1"));
    let mut lines = Vec::new();
    let err = engine
        .run(&program, &p, &options, &mut |l: &str| {
            lines.push(l.to_string())
        })
        .expect_err("refused");
    assert_eq!(err.code, Code::InputMismatch);
    assert!(lines.is_empty());
    assert!(!std::path::Path::new(&db).exists(), "the store was opened");
}

#[test]
fn converting_is_charged_to_the_fuel_and_memory_limits() {
    let engine = Engine::new();
    let small = engine
        .parse_policy(
            "[principal]\nid = \"a\"\nrole = \"r\"\n\n[grants.Log]\n\n[limits]\nfuel = 100\n",
        )
        .expect("a valid policy");
    let program = engine
        .check_with_inputs(
            "list.length(xs)\n",
            &small,
            &[InputDecl::new("xs", "List[Int]")],
        )
        .expect("accepted");
    let db = common::db("inputs", "fuel");
    let mut options = RunOptions {
        store: Some(db.clone()),
        ..Default::default()
    };
    options.inputs.insert(
        "xs".into(),
        Json::Array((0..1000).map(|i| json!(i)).collect()),
    );
    let err = engine
        .run(&program, &small, &options, &mut |_: &str| {})
        .expect_err("over the fuel limit");
    assert_eq!(err.code, Code::FuelExhausted);

    let tight = engine
        .parse_policy(
            "[principal]\nid = \"a\"\nrole = \"r\"\n\n[grants.Log]\n\n[limits]\nmemory = \"64K\"\n",
        )
        .expect("a valid policy");
    let program = engine
        .check_with_inputs("str.length(s)\n", &tight, &[InputDecl::new("s", "Str")])
        .expect("accepted");
    options.inputs.clear();
    options
        .inputs
        .insert("s".into(), json!("x".repeat(100_000)));
    let err = engine
        .run(&program, &tight, &options, &mut |_: &str| {})
        .expect_err("over the memory limit");
    assert_eq!(err.code, Code::MemoryExhausted);
    let _ = std::fs::remove_file(&db);
}
