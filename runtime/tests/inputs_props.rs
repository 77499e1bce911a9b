//! Converting inputs (decision 009) never panics: for any JSON value and
//! any of a set of declared types, conversion gives a value or refuses it
//! with E4007 (its message starting with the input's name); and a JSON
//! value built to fit its type is always accepted, and the program runs.

use proptest::prelude::*;
use serde_json::{Value as Json, json};
use writ_lang::Code;
use writ_lang::types::{CheckOptions, InputDecl};
use writ_runtime::{Limits, Module};

/// The declared types the properties run over.
const TYPES: &[&str] = &[
    "Int",
    "Float",
    "Str",
    "Bool",
    "()",
    "Option[Int]",
    "List[Str]",
    "Map[Str, List[Int]]",
    "(Int, Option[Str])",
    "{ a: Int, b: List[{ c: Str, d: Option[Bool] }] }",
];

/// The module of a program that only uses its input `x` of type `ty`.
fn module(ty: &str) -> Module {
    let decls = [InputDecl::new("x", ty)];
    let options = CheckOptions {
        inputs: &decls,
        ..Default::default()
    };
    let a = writ_lang::analyse("x\n", &options);
    assert!(a.accepted(), "{ty}: {:#?}", a.diagnostics);
    let typed = a.typed.expect("typed");
    writ_runtime::compile(&a.program, &typed).expect("compiles")
}

fn any_json() -> impl Strategy<Value = Json> {
    let leaf = prop_oneof![
        Just(Json::Null),
        any::<bool>().prop_map(Json::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|x| json!(x)),
        "[a-d]{0,3}".prop_map(Json::String),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Json::Array),
            prop::collection::btree_map("[a-d]{1,2}", inner, 0..4)
                .prop_map(|m| Json::Object(m.into_iter().collect())),
        ]
    })
}

/// A JSON value of `ty` (one of [`TYPES`]'s shapes), from `seed`.
fn fitting(ty: &str, seed: u64) -> Json {
    let n = (seed % 1000) as i64 - 500;
    match ty {
        "Int" => json!(n),
        "Float" => json!(n as f64 / 4.0),
        "Str" => json!(format!("s{n}")),
        "Bool" => json!(seed.is_multiple_of(2)),
        "()" => Json::Null,
        "Option[Int]" if seed.is_multiple_of(2) => Json::Null,
        "Option[Int]" => json!(n),
        "List[Str]" => json!((0..seed % 4).map(|i| format!("e{i}")).collect::<Vec<_>>()),
        "Map[Str, List[Int]]" => json!({ "k": [n, 1], "j": [] }),
        "(Int, Option[Str])" => json!([
            n,
            if seed.is_multiple_of(2) {
                Json::Null
            } else {
                json!("t")
            }
        ]),
        _ => {
            json!({ "a": n, "b": [{ "c": "x", "d": null }, { "c": "y", "d": seed.is_multiple_of(2) }] })
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_json_converts_or_is_refused_with_e4007(value in any_json(), which in 0..TYPES.len()) {
        let ty = TYPES[which];
        let m = module(ty);
        let mut given = serde_json::Map::new();
        given.insert("x".into(), value);
        if let Err(e) = writ_runtime::inputs::from_json(&m, &given, &Limits::default()) {
            prop_assert_eq!(e.code, Code::InputMismatch, "{}: {}", ty, e.message);
            prop_assert!(e.message.starts_with('x'), "{}", e.message);
        }
    }

    #[test]
    fn a_value_that_fits_its_type_is_accepted(seed in any::<u64>(), which in 0..TYPES.len()) {
        let ty = TYPES[which];
        let m = module(ty);
        let mut given = serde_json::Map::new();
        given.insert("x".into(), fitting(ty, seed));
        let globals = writ_runtime::inputs::from_json(&m, &given, &Limits::default());
        prop_assert!(globals.is_ok(), "{}: {:?}", ty, globals.err());
        let mut host = writ_runtime::LogHost::new(|_: &str| {});
        let (ran, _) = writ_runtime::inputs::run(&m, globals.unwrap_or_default(), &Limits::default(), &mut host, None);
        prop_assert!(ran.is_ok(), "{}: {:?}", ty, ran.err());
    }
}
