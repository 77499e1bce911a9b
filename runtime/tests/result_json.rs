//! A run's final value as JSON (`writ_runtime::json`): one case per kind
//! of value, each the program and the exact JSON text it gives; then the
//! bounds: a value a million deep is written without recursion, and one
//! whose text passes the bound is refused with the output limit's code.

mod common;

use writ_runtime::{Limits, LogHost, Value, run};

/// Run `src` and write its value as JSON, at most `max` bytes.
fn json_of(src: &str, max: usize) -> Result<String, String> {
    let module = common::compile(src);
    let mut host = LogHost::new(|_: &str| {});
    let v: Value = run(&module, &Limits::default(), &mut host, None).expect("runs");
    v.to_json(&module, max)
        .map(|j| j.into_string())
        .map_err(|e| format!("{}: {}", e.code, e.message))
}

/// Every kind of value, and the JSON it maps to.
const CASES: &[(&str, &str)] = &[
    ("()\n", "null"),
    ("true\n", "true"),
    ("false\n", "false"),
    ("-42\n", "-42"),
    ("9223372036854775807\n", "9223372036854775807"),
    ("1.0\n", "1.0"),
    ("-2.5\n", "-2.5"),
    ("1.0e300 * 10.0\n", "1e301"),
    ("0.0 / 0.0\n", "\"NaN\""),
    ("1.0 / 0.0\n", "\"Infinity\""),
    ("-1.0 / 0.0\n", "\"-Infinity\""),
    ("\"héllo\"\n", "\"héllo\""),
    (
        "\"quote \\\" backslash \\\\ line\\n tab\\t\"\n",
        "\"quote \\\" backslash \\\\ line\\n tab\\t\"",
    ),
    ("\"\\u{1}\\u{202e}\"\n", "\"\\u0001\u{202e}\""),
    ("(1, \"a\", true)\n", "[1,\"a\",true]"),
    ("[1, 2, 3]\n", "[1,2,3]"),
    ("let xs: List[Int] = []\nxs\n", "[]"),
    ("[[1], [], [2, 3]]\n", "[[1],[],[2,3]]"),
    (
        "{ name: \"Ada\", age: 36, tags: [\"x\"] }\n",
        "{\"age\":36,\"name\":\"Ada\",\"tags\":[\"x\"]}",
    ),
    (
        "map.from_list([(\"b\", 2), (\"a\", 1)])\n",
        "{\"a\":1,\"b\":2}",
    ),
    (
        "map.from_list([(2, \"two\"), (1, \"one\")])\n",
        "[[1,\"one\"],[2,\"two\"]]",
    ),
    ("map.from_list([((1, 2), true)])\n", "[[[1,2],true]]"),
    ("let m: Map[Int, Int] = map.empty()\nm\n", "{}"),
    ("let o: Option[Int] = None\no\n", "null"),
    ("Some(1)\n", "1"),
    ("Some({ a: 1 })\n", "{\"a\":1}"),
    (
        "let o: Option[Option[Int]] = Some(None)\no\n",
        "{\"some\":null}",
    ),
    ("Some(Some(1))\n", "{\"some\":1}"),
    ("Some(Some(Some(1)))\n", "{\"some\":{\"some\":1}}"),
    ("[Some(1), None]\n", "[1,null]"),
    ("let r: Result[Int, Str] = Ok(1)\nr\n", "{\"ok\":1}"),
    (
        "let r: Result[Int, Str] = Err(\"no\")\nr\n",
        "{\"err\":\"no\"}",
    ),
    ("let r: Result[(), Str] = Ok(())\nr\n", "{\"ok\":null}"),
    (
        "type Shape = Circle(Float) | Rect(Float, Float) | Dot\n[Circle(1.0), Rect(2.0, 3.0), Dot]\n",
        "[{\"tag\":\"Circle\",\"fields\":[1.0]},{\"tag\":\"Rect\",\"fields\":[2.0,3.0]},{\"tag\":\"Dot\",\"fields\":[]}]",
    ),
    (
        "json.parse(\"[1, null]\")\n",
        "{\"ok\":{\"tag\":\"Array\",\"fields\":[[{\"tag\":\"Number\",\"fields\":[1.0]},{\"tag\":\"Null\",\"fields\":[]}]]}}",
    ),
    ("fn f(x: Int) -> Int { x }\nf\n", "\"<fn>\""),
    ("(fn(x: Int) { x + 1 }, 1)\n", "[\"<fn>\",1]"),
    (
        "effect Ask {\n  fn ask() -> Int\n}\ntype K = K(fn(Int) -> K) | Done(Int)\nhandle { Ask.ask() } with {\n  Ask.ask() => K(resume),\n  return(x) => Done(x),\n}\n",
        "{\"tag\":\"K\",\"fields\":[\"<fn>\"]}",
    ),
];

#[test]
fn every_kind_of_value_maps_to_its_json() {
    let mut wrong = Vec::new();
    for (src, expected) in CASES {
        match json_of(src, 1 << 20) {
            Ok(got) if got == *expected => {}
            got => wrong.push(format!(
                "{src:?}\n  expected {expected}\n  got      {got:?}"
            )),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_json_text_is_valid_json() {
    for (src, _) in CASES {
        let text = json_of(src, 1 << 20).expect("fits");
        assert!(valid(&text), "{src:?} gave invalid JSON {text}");
    }
}

/// A minimal check that `text` is one JSON value: balanced brackets
/// outside strings, no trailing separators, and nothing after the value.
fn valid(text: &str) -> bool {
    let mut depth = 0i64;
    let mut in_str = false;
    let mut escaped = false;
    let mut prev = ' ';
    for c in text.chars() {
        if in_str {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_str = false;
            } else if (c as u32) < 0x20 {
                return false;
            }
        } else {
            match c {
                '"' => in_str = true,
                '[' | '{' => depth += 1,
                ']' | '}' => {
                    if prev == ',' {
                        return false;
                    }
                    depth -= 1;
                }
                _ => {}
            }
            if depth < 0 {
                return false;
            }
        }
        prev = c;
    }
    depth == 0 && !in_str
}

#[test]
fn a_value_a_million_deep_is_written_without_recursion() {
    let src = "fn nest(n: Int, acc: List[Int]) -> Option[List[Int]] {\n  if n == 0 { Some(acc) } else { nest(n - 1, acc) }\n}\n\
               fn deep(n: Int, acc: Result[Int, Int]) -> Result[Int, Int] {\n  if n == 0 { acc } else { deep(n - 1, Ok(0)) }\n}\n\
               type Chain = Link(Chain) | End\n\
               fn chain(n: Int, acc: Chain) -> Chain {\n  if n == 0 { acc } else { chain(n - 1, Link(acc)) }\n}\n\
               chain(1000000, End)\n";
    let module = common::compile(src);
    let mut host = LogHost::new(|_: &str| {});
    let v = run(&module, &Limits::default(), &mut host, None).expect("runs");
    let text = v.to_json(&module, 64 << 20).expect("fits").into_string();
    let link = "{\"tag\":\"Link\",\"fields\":[";
    assert!(text.starts_with(&link.repeat(3)));
    assert_eq!(text.matches("Link").count(), 1_000_000);
    assert!(text.ends_with(&format!(
        "{{\"tag\":\"End\",\"fields\":[]}}{}",
        "]}".repeat(1_000_000)
    )));
    assert!(valid(&text));
}

#[test]
fn a_nested_list_a_million_deep_is_written_within_its_bound() {
    let src = "fn nest(n: Int, acc: List[Json]) -> List[Json] {\n  if n == 0 { acc } else { nest(n - 1, [Array(acc)]) }\n}\nnest(1000000, [])\n";
    // 1,000,000 levels of `[{"tag":"Array","fields":[` do not fit in
    // 1 MiB: refused, with the output limit's code, after at most 1 MiB.
    let err = json_of(src, 1 << 20).expect_err("too long");
    assert!(
        err.starts_with("E5004: expected the result's JSON to take at most 1048576 bytes"),
        "{err}"
    );
}

#[test]
fn a_huge_result_is_refused_with_the_output_limits_code() {
    // A list of 100,000 strings of 100 bytes: 10 MB of JSON.
    let src = "list.map(list.range(0, 100000), fn(i) { str.repeat(\"x\", 100) })\n";
    let err = json_of(src, 1 << 20).expect_err("too long");
    assert!(err.starts_with("E5004:"), "{err}");
    // One string longer than the bound is refused before it is escaped.
    let err = json_of("str.repeat(\"\\n\", 2000000)\n", 1 << 20).expect_err("too long");
    assert!(err.starts_with("E5004:"), "{err}");
    // The same list within a bound that holds it.
    let text = json_of(src, 11 << 20).expect("fits");
    assert_eq!(text.len(), 100_000 * 103 - 1 + 2);
}

#[test]
fn the_bound_is_exact() {
    assert_eq!(json_of("[1, 2]\n", 5).as_deref(), Ok("[1,2]"));
    assert!(json_of("[1, 2]\n", 4).is_err());
    assert_eq!(json_of("\"ab\"\n", 4).as_deref(), Ok("\"ab\""));
    assert!(json_of("\"ab\"\n", 3).is_err());
}

#[test]
fn a_value_nested_deeper_than_its_room_allows_is_refused_whole() {
    // Tuples of one element, 300,000 deep (a host can build these; a
    // program's types can not): 600,000 bytes of JSON or display text,
    // within 1 MiB, but an open container per level holds more room than
    // sixteen times the bound allows.
    let module = writ_runtime::Module::default();
    let mut v = Value::unit();
    for _ in 0..300_000 {
        v = Value::tuple([v]);
    }
    let err = v.to_json(&module, 1 << 20).expect_err("too deep");
    assert_eq!(err.code.as_str(), "E5004");
    assert!(err.message.contains("nested deeper"), "{}", err.message);
    let err = writ_runtime::display::result_text(&v, &module, 1 << 20).expect_err("too deep");
    assert_eq!(err.code.as_str(), "E5004");
    assert!(err.message.contains("nested deeper"), "{}", err.message);
    // Written as text (a log line, a message), it is cut short instead.
    let shown = writ_runtime::display::to_string(
        &v,
        &module,
        writ_runtime::display::StrForm::Quoted,
        1 << 20,
    );
    assert!(
        shown.ends_with('…') && shown.len() < 1 << 20,
        "{}",
        shown.len()
    );
    // A tenth as deep, both are written whole.
    let mut v = Value::unit();
    for _ in 0..30_000 {
        v = Value::tuple([v]);
    }
    let text = v.to_json(&module, 1 << 20).expect("fits").into_string();
    assert_eq!(text.len(), 30_000 * 2 + 4);
    let shown = writ_runtime::display::result_text(&v, &module, 1 << 20).expect("fits");
    assert_eq!(shown.len(), 30_000 * 2 + 2);
}
