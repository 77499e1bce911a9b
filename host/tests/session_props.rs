//! Sessions never break, whatever order inputs come in: random sequences
//! of definitions, redefinitions (of functions, values, types and
//! effects), uses, handlers, rejected and failing inputs never panic and
//! never end in an internal error (E4004), and every diagnostic points into
//! the input just entered.

use proptest::prelude::*;
use writ_host::engine::{Engine, RunOptions};
use writ_host::session::{Event, Session};

/// Inputs that name each other in every combination of order.
const POOL: &[&str] = &[
    "let n = 1",
    "let n = n + 1",
    "let n = \"text\"",
    "n",
    "fn f(x) { x + 1 }",
    "fn f(x) { x ++ \"!\" }",
    "fn g() { f(1) }",
    "g()",
    "f(41)",
    "f(\"a\")",
    "let h = fn(x) { f(x) }",
    "h(1)",
    "type T = A | B(Int)",
    "type T = C",
    "fn show(t) { match t { A => 0, B(k) => k } }",
    "show(B(3))",
    "show(C)",
    "[A, B(2)]",
    "effect E { fn get() -> Int }",
    "effect E { fn get() -> Str }",
    "fn uses_e() { E.get() }",
    "handle uses_e() with { E.get() => resume(7) }",
    "handle E.get() with { E.get() => resume(\"s\") }",
    "let k = handle { E.get() * 2 } with { E.get() => fn(x) { resume(x)(0) }, return(v) => fn(y) { v + y } }",
    "k(5)",
    "let xs = list.range(0, 5)",
    "list.map(xs, fn(x) { x * n })",
    "let boom = 1 / 0",
    "boom",
    "Log.info(\"line\")",
    "Http.get(\"https://example.com/\")",
    "fn broken( {",
    "let r = { a: 1, b: \"x\" }",
    "r.a + 1",
    "undefined_thing",
];

fn run(indices: &[usize]) -> Result<(), TestCaseError> {
    let mut s = Session::new(Engine::new(), None, RunOptions::default())
        .map_err(|e| TestCaseError::fail(e.message))?;
    for &i in indices {
        let text = POOL[i % POOL.len()];
        let e = s.eval("<input>", text, &mut |_: Event<'_>| {}, None);
        for d in &e.diagnostics {
            prop_assert_ne!(d.code.as_str(), "E4004", "{}: {}", text, d.message);
        }
        if let Some(err) = &e.error {
            prop_assert_ne!(err.code.as_str(), "E4004", "{}: {}", text, err.message);
        }
        // Every span of a diagnostic lies in the input just entered.
        let last = s
            .sources()
            .last()
            .map(|src| (src.base, src.base + src.text.len()));
        for d in &e.diagnostics {
            if let (Some(sp), Some((lo, hi))) = (d.primary_span(), last) {
                prop_assert!(lo <= sp.start && sp.end <= hi, "{text}: {:?}", d);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_sessions_never_break(indices in proptest::collection::vec(0usize..100, 1..40)) {
        run(&indices)?;
    }
}

#[test]
fn every_input_after_every_other() {
    // One session per input, entered again after each of the others.
    for (a, text) in POOL.iter().enumerate() {
        let order: Vec<usize> = (0..POOL.len()).flat_map(|b| [a, b]).chain([a]).collect();
        if let Err(e) = run(&order) {
            panic!("{text} among the others: {e}");
        }
    }
}
