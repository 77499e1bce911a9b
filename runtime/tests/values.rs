//! The API of values, as a host sees it (decision 008): values are made
//! with constructors and `IntoValue`, read with accessors, `FromValue` and
//! `Value::view`, and never matched on. Every conversion that does not
//! apply says what it expected and what it found; a value of any depth is
//! walked with a work list, and a deep one is dropped without recursion.

mod common;

use writ_runtime::display::{StrForm, to_string};
use writ_runtime::{
    FromValue, FromValueError, IntoValue, Limits, LogHost, Module, Value, View, run,
};

/// A program whose module knows the fields and constructors used below.
fn module() -> Module {
    common::compile("let p = { name: \"Ada\", age: 36 }\nlet r: Result[Int, Str] = Ok(1)\np.name\n")
}

/// Run `src` to its value, with its module.
fn value_of(src: &str) -> (Value, Module) {
    let module = common::compile(src);
    let mut host = LogHost::new(|_: &str| {});
    let v = run(&module, &Limits::default(), &mut host, None).expect("runs");
    (v, module)
}

#[test]
fn scalars_are_made_and_read_back() {
    assert!(Value::unit().is_unit());
    assert_eq!(Value::bool(true).as_bool(), Some(true));
    assert_eq!(Value::int(-7).as_int(), Some(-7));
    assert_eq!(Value::float(2.5).as_float(), Some(2.5));
    assert_eq!(Value::str("héllo").as_str(), Some("héllo"));
    assert!(matches!(Value::int(3).view(), View::Int(3)));
    assert!(matches!(Value::str("a").view(), View::Str("a")));
}

#[test]
fn an_accessor_of_another_kind_reads_nothing() {
    let s = Value::str("1");
    assert_eq!(s.as_int(), None);
    assert_eq!(s.as_float(), None);
    assert_eq!(s.as_bool(), None);
    assert!(!s.is_unit());
    assert_eq!(Value::int(1).as_str(), None);
    assert_eq!(Value::int(1).as_float(), None, "an Int is not a Float");
    assert_eq!(Value::float(1.0).as_int(), None, "a Float is not an Int");
    assert_eq!(Value::list([]).as_str(), None);
}

#[test]
fn conversions_go_both_ways() {
    assert_eq!(i64::from_value(&42i64.into_value()), Ok(42));
    assert_eq!(f64::from_value(&0.5f64.into_value()), Ok(0.5));
    assert_eq!(bool::from_value(&false.into_value()), Ok(false));
    assert_eq!(String::from_value(&"ab".into_value()), Ok("ab".into()));
    assert_eq!(
        String::from_value(&String::from("cd").into_value()),
        Ok("cd".into())
    );
    assert_eq!(<()>::from_value(&().into_value()), Ok(()));
    let v = Value::from_value(&Value::int(5)).expect("any value");
    assert_eq!(v.as_int(), Some(5));
    assert_eq!(Value::str("x").into_value().as_str(), Some("x"));
    let list = vec![1i64, 2, 3].into_value();
    let View::List(items) = list.view() else {
        panic!("expected a list, found {list:?}");
    };
    let items: Vec<i64> = items.iter().filter_map(Value::as_int).collect();
    assert_eq!(items, [1, 2, 3]);
}

#[test]
fn a_conversion_that_does_not_apply_names_what_it_expected_and_found() {
    let cases: [(Result<(), FromValueError>, &str, &str); 6] = [
        (
            i64::from_value(&Value::str("7")).map(drop),
            "an Int",
            "a Str",
        ),
        (
            f64::from_value(&Value::int(7)).map(drop),
            "a Float",
            "an Int",
        ),
        (bool::from_value(&Value::unit()).map(drop), "a Bool", "()"),
        (
            String::from_value(&Value::list([Value::str("a")])).map(drop),
            "a Str",
            "a List",
        ),
        (<()>::from_value(&Value::bool(true)), "()", "a Bool"),
        (
            i64::from_value(&Value::tuple([Value::int(1), Value::int(2)])).map(drop),
            "an Int",
            "a tuple",
        ),
    ];
    for (got, expected, found) in cases {
        assert_eq!(got, Err(FromValueError { expected, found }));
    }
    let e = i64::from_value(&Value::float(1.5)).expect_err("a Float is not an Int");
    assert_eq!(e.to_string(), "expected an Int, found a Float");
}

#[test]
fn every_kind_of_value_is_described() {
    let module = module();
    let (f, _) = value_of("fn(x: Int) { x + 1 }\n");
    let cases = [
        (Value::unit(), "()"),
        (Value::bool(true), "a Bool"),
        (Value::int(1), "an Int"),
        (Value::float(1.0), "a Float"),
        (Value::str(""), "a Str"),
        (Value::tuple([Value::int(1), Value::int(2)]), "a tuple"),
        (
            Value::record(&module, [("age", Value::int(1))]).expect("a known field"),
            "a record",
        ),
        (Value::none(&module), "a constructed value"),
        (Value::list([]), "a List"),
        (Value::map([]), "a Map"),
        (f, "a function"),
    ];
    for (v, what) in cases {
        assert_eq!(v.describe(), what, "{v:?}");
    }
}

#[test]
fn records_and_constructors_are_made_and_read_by_name() {
    let module = module();
    let p = Value::record(
        &module,
        [("name", Value::str("Ada")), ("age", Value::int(36))],
    )
    .expect("fields the program uses");
    assert_eq!(
        to_string(&p, &module, StrForm::Quoted, 100),
        "{ age: 36, name: \"Ada\" }"
    );
    let View::Record(r) = p.view() else {
        panic!("expected a record, found {p:?}");
    };
    assert_eq!(r.len(), 2);
    let names: Vec<&str> = r.fields(&module).map(|(n, _)| n).collect();
    assert_eq!(names, ["age", "name"]);
    assert_eq!(r.get(&module, "name").and_then(Value::as_str), Some("Ada"));
    assert_eq!(r.values().len(), 2);
    assert!(r.get(&module, "salary").is_none());

    let some = Value::some(&module, Value::int(1));
    assert_eq!(to_string(&some, &module, StrForm::Quoted, 100), "Some(1)");
    let View::Variant(v) = some.view() else {
        panic!("expected a constructed value, found {some:?}");
    };
    assert_eq!(v.name(&module), Some("Some"));
    assert_eq!(v.fields().len(), 1);
    let none = Value::none(&module);
    let View::Variant(v) = none.view() else {
        panic!("expected a constructed value, found {none:?}");
    };
    assert_eq!((v.name(&module), v.fields().len()), (Some("None"), 0));
    let err = Value::variant(&module, "Err", vec![Value::str("no")]).expect("the prelude's");
    assert_eq!(
        to_string(&err, &module, StrForm::Quoted, 100),
        "Err(\"no\")"
    );
}

#[test]
fn a_field_or_constructor_the_module_does_not_know_is_refused() {
    let module = module();
    assert!(Value::record(&module, [("salary_of_the_ceo", Value::int(1))]).is_none());
    assert!(Value::variant(&module, "Maybe", vec![]).is_none());
}

#[test]
fn lists_tuples_and_maps_are_read_in_order() {
    let module = module();
    let t = Value::tuple([Value::int(1), Value::str("a")]);
    let View::Tuple(parts) = t.view() else {
        panic!("expected a tuple, found {t:?}");
    };
    assert_eq!(parts.len(), 2);
    let l = Value::list((1..=3).map(Value::int));
    let View::List(items) = l.view() else {
        panic!("expected a list, found {l:?}");
    };
    assert_eq!((items.len(), items.is_empty()), (3, false));
    assert_eq!(items.get(2).and_then(Value::as_int), Some(3));
    assert!(items.get(3).is_none());
    let back: Vec<i64> = items.iter().rev().filter_map(Value::as_int).collect();
    assert_eq!(back, [3, 2, 1]);
    // A later entry for an equal key replaces the earlier one; entries are
    // in the order of their keys.
    let m = Value::map([
        (Value::str("b"), Value::int(2)),
        (Value::str("a"), Value::int(1)),
        (Value::str("b"), Value::int(3)),
    ]);
    assert_eq!(
        to_string(&m, &module, StrForm::Quoted, 100),
        "map.from_list([(\"a\", 1), (\"b\", 3)])"
    );
    let View::Map(entries) = m.view() else {
        panic!("expected a map, found {m:?}");
    };
    let keys: Vec<&str> = entries.iter().filter_map(|(k, _)| k.as_str()).collect();
    assert_eq!((entries.len(), keys), (2, vec!["a", "b"]));
}

#[test]
fn a_runs_value_is_read_through_the_same_api() {
    let (v, module) = value_of(
        "let p = { name: \"Ada\", tags: [\"x\", \"y\"], boss: Some(\"Grace\") }\n(p, 2.5)\n",
    );
    let View::Tuple([p, x]) = v.view() else {
        panic!("expected a pair, found {v:?}");
    };
    assert_eq!(x.as_float(), Some(2.5));
    let View::Record(p) = p.view() else {
        panic!("expected a record, found {p:?}");
    };
    let boss = p.get(&module, "boss").expect("a field");
    let View::Variant(boss) = boss.view() else {
        panic!("expected Some, found {boss:?}");
    };
    assert_eq!(boss.name(&module), Some("Some"));
    assert_eq!(boss.fields()[0].as_str(), Some("Grace"));
    let tags = p.get(&module, "tags").expect("a field");
    let View::List(tags) = tags.view() else {
        panic!("expected a list, found {tags:?}");
    };
    let tags: Vec<&str> = tags.iter().filter_map(Value::as_str).collect();
    assert_eq!(tags, ["x", "y"]);
}

#[test]
fn a_value_a_million_deep_is_walked_and_dropped_without_recursion() {
    const DEPTH: usize = 1_000_000;
    let module = module();
    let mut v = Value::int(0);
    for i in 0..DEPTH {
        v = match i % 4 {
            0 => Value::list([v]),
            1 => Value::tuple([v, Value::unit()]),
            2 => Value::some(&module, v),
            _ => Value::map([(Value::int(0), v)]),
        };
    }
    // The deepest level, by a walk with a work list over the public view.
    let mut deepest = 0;
    let mut work = vec![(&v, 0usize)];
    while let Some((v, d)) = work.pop() {
        deepest = deepest.max(d);
        match v.view() {
            View::List(items) => work.extend(items.iter().map(|c| (c, d + 1))),
            View::Tuple(parts) => work.extend(parts.iter().map(|c| (c, d + 1))),
            View::Variant(var) => work.extend(var.fields().iter().map(|c| (c, d + 1))),
            View::Record(r) => work.extend(r.values().iter().map(|c| (c, d + 1))),
            View::Map(m) => work.extend(m.iter().map(|(_, c)| (c, d + 1))),
            _ => {}
        }
    }
    assert_eq!(deepest, DEPTH);
    // Shown (bounded) and dropped, neither recursing.
    assert!(to_string(&v, &module, StrForm::Quoted, 64).ends_with('…'));
    drop(v);
}
