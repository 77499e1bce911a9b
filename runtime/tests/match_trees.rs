//! Property: a `match` lowered as a decision tree chooses the same arm as
//! the language's rule (the first arm, in order, whose pattern and guard
//! hold), checked against a reference matcher written here. Patterns mix
//! options (with literals, variables and guards), lists (exact lengths,
//! `..` and `..rest`, literals inside) and booleans, in tuples.

use proptest::prelude::*;
use writ_runtime::{Limits, LogHost, run};

#[derive(Clone, Debug)]
enum POpt {
    Any,
    None,
    SomeAny,
    SomeLit(i64),
    /// `Some(x)`, with an optional guard `x > k`.
    SomeVar(Option<i64>),
}

#[derive(Clone, Debug)]
enum PElem {
    Any,
    Lit(i64),
}

#[derive(Clone, Debug)]
struct PList {
    /// `None`: `_`.
    items: Option<Vec<PElem>>,
    rest: bool,
}

#[derive(Clone, Debug)]
enum PBool {
    Any,
    Is(bool),
}

type Arm = (POpt, PList, PBool);
type Val = (Option<i64>, Vec<i64>, bool);

fn opt_src(p: &POpt) -> (String, Option<String>) {
    match p {
        POpt::Any => ("_".into(), None),
        POpt::None => ("None".into(), None),
        POpt::SomeAny => ("Some(_)".into(), None),
        POpt::SomeLit(k) => (format!("Some({k})"), None),
        POpt::SomeVar(g) => ("Some(x)".into(), g.map(|k| format!("x > {k}"))),
    }
}

fn list_src(p: &PList) -> String {
    let Some(items) = &p.items else {
        return "_".into();
    };
    let mut parts: Vec<String> = items
        .iter()
        .map(|e| match e {
            PElem::Any => "_".to_string(),
            PElem::Lit(k) => k.to_string(),
        })
        .collect();
    if p.rest {
        parts.push("..rest".into());
    }
    format!("[{}]", parts.join(", "))
}

fn arm_matches(arm: &Arm, v: &Val) -> bool {
    let (po, pl, pb) = arm;
    let opt_ok = match (po, v.0) {
        (POpt::Any, _) => true,
        (POpt::None, None) => true,
        (POpt::SomeAny, Some(_)) => true,
        (POpt::SomeLit(k), Some(n)) => *k == n,
        (POpt::SomeVar(g), Some(n)) => g.is_none_or(|k| n > k),
        _ => false,
    };
    let list_ok = match &pl.items {
        None => true,
        Some(items) => {
            let len_ok = if pl.rest {
                v.1.len() >= items.len()
            } else {
                v.1.len() == items.len()
            };
            len_ok
                && items.iter().zip(&v.1).all(|(e, n)| match e {
                    PElem::Any => true,
                    PElem::Lit(k) => k == n,
                })
        }
    };
    let bool_ok = match pb {
        PBool::Any => true,
        PBool::Is(b) => *b == v.2,
    };
    opt_ok && list_ok && bool_ok
}

fn popt() -> impl Strategy<Value = POpt> {
    prop_oneof![
        Just(POpt::Any),
        Just(POpt::None),
        Just(POpt::SomeAny),
        (-2i64..3).prop_map(POpt::SomeLit),
        proptest::option::of(-2i64..3).prop_map(POpt::SomeVar),
    ]
}

fn plist() -> impl Strategy<Value = PList> {
    let elem = prop_oneof![Just(PElem::Any), (-2i64..3).prop_map(PElem::Lit)];
    prop_oneof![
        Just(PList {
            items: None,
            rest: false
        }),
        (proptest::collection::vec(elem, 0..3), any::<bool>()).prop_map(|(items, rest)| PList {
            items: Some(items),
            rest
        }),
    ]
}

fn pbool() -> impl Strategy<Value = PBool> {
    prop_oneof![Just(PBool::Any), any::<bool>().prop_map(PBool::Is)]
}

fn value() -> impl Strategy<Value = Val> {
    (
        proptest::option::of(-2i64..3),
        proptest::collection::vec(-2i64..3, 0..4),
        any::<bool>(),
    )
}

fn val_src(v: &Val) -> String {
    let o = match v.0 {
        Some(n) => format!("Some({n})"),
        None => "None".into(),
    };
    let l: Vec<String> = v.1.iter().map(|n| n.to_string()).collect();
    format!("({o}, [{}], {})", l.join(", "), v.2)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn decision_trees_choose_the_first_matching_arm(
        arms in proptest::collection::vec((popt(), plist(), pbool()), 1..7),
        values in proptest::collection::vec(value(), 1..8),
    ) {
        let mut src = String::from("fn m(v: (Option[Int], List[Int], Bool)) -> Int {\n  match v {\n");
        for (i, arm) in arms.iter().enumerate() {
            let (o, guard) = opt_src(&arm.0);
            let b = match arm.2 {
                PBool::Any => "_".to_string(),
                PBool::Is(b) => b.to_string(),
            };
            let guard = guard.map(|g| format!(" if {g}")).unwrap_or_default();
            src.push_str(&format!("    ({o}, {}, {b}){guard} => {i},\n", list_src(&arm.1)));
        }
        src.push_str("    _ => -1,\n  }\n}\n");
        let calls: Vec<String> = values.iter().map(|v| format!("m({})", val_src(v))).collect();
        src.push_str(&format!("[{}]\n", calls.join(", ")));

        let expected: Vec<String> = values
            .iter()
            .map(|v| {
                arms.iter()
                    .position(|a| arm_matches(a, v))
                    .map_or("-1".to_string(), |i| i.to_string())
            })
            .collect();
        let expected = format!("[{}]", expected.join(", "));

        let parsed = writ_lang::parse(&src);
        prop_assert!(!parsed.has_errors(), "{src}\n{:#?}", parsed.diagnostics);
        let typed = writ_lang::types::check(&parsed.program, &Default::default());
        prop_assert!(!typed.diagnostics.iter().any(|d| d.is_error()), "{src}\n{:#?}", typed.diagnostics);
        let module = writ_runtime::compile(&parsed.program, &typed).expect("compiles");
        let mut host = LogHost::new(|_: &str| {});
        let v = run(&module, &Limits::default(), &mut host, None).map_err(|e| e.message);
        let shown = v.map(|v| writ_runtime::display::to_string(&v, &module, writ_runtime::display::StrForm::Quoted, 10_000));
        prop_assert_eq!(shown, Ok(expected), "{}", src);
    }
}
