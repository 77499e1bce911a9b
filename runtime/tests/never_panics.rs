//! Property: a program the checker accepts never panics the machine and
//! never reaches an internal error; it ends with a value, a run-time error
//! of the program (overflow, division by zero) or an exhausted limit.
//!
//! Programs are generated well typed by construction: `Int` expressions
//! over three variables, with arithmetic (including `/` and `%`, which may
//! divide by zero, and `*`, which may overflow), `if`, `let`, lambdas,
//! `list.fold` with a callback, `match` on `Option`, and the effects of a
//! state handler (tail-resumptive), a multi-shot choice handler and a
//! `Fail` handler, nested in every order.

use proptest::prelude::*;
use writ_lang::Code;
use writ_runtime::{Limits, LogHost, run};

const PRELUDE: &str = "effect State {\n  fn get() -> Int\n  fn put(value: Int) -> Unit\n}\n\
effect Choose {\n  fn choose() -> Bool\n}\n\
fn with_state(init: Int, f: fn() -> Int / {State | e}) -> Int / {e} {\n  handle f() with (s = init) {\n    State.get() => resume(s, s),\n    State.put(v) => resume((), v),\n    return(x) => x + s,\n  }\n}\n\
fn all(f: fn() -> Int / {Choose | e}) -> List[Int] / {e} {\n  handle f() with {\n    Choose.choose() => resume(true) ++ resume(false),\n    return(x) => [x],\n  }\n}\n\
fn attempt(f: fn() -> Int / {Fail | e}) -> Int / {e} {\n  handle f() with {\n    Fail.fail(m) => 0 - str.length(m),\n  }\n}\n\
let a = 3\nlet b = -7\nlet c = 4611686018427387903\n";

fn leaf() -> impl Strategy<Value = String> {
    prop_oneof![
        (-5i64..50).prop_map(|n| if n < 0 {
            format!("({n})")
        } else {
            n.to_string()
        }),
        Just("a".to_string()),
        Just("b".to_string()),
        Just("c".to_string()),
        Just("State.get()".to_string()),
        Just("9223372036854775807".to_string()),
    ]
}

fn expr() -> impl Strategy<Value = String> {
    leaf().prop_recursive(5, 48, 4, |inner| {
        let var = prop_oneof![Just("a"), Just("b"), Just("c")];
        let op = prop_oneof![Just("+"), Just("-"), Just("*"), Just("/"), Just("%")];
        prop_oneof![
            (inner.clone(), op, inner.clone()).prop_map(|(x, o, y)| format!("({x} {o} {y})")),
            (inner.clone(), inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(p, q, x, y)| format!("(if {p} < {q} {{ {x} }} else {{ {y} }})")),
            (var.clone(), inner.clone(), inner.clone())
                .prop_map(|(v, x, y)| format!("{{\n  let {v} = {x}\n  {y}\n}}")),
            (var.clone(), inner.clone(), inner.clone())
                .prop_map(|(v, body, arg)| format!("(fn({v}) {{ {body} }})({arg})")),
            (inner.clone(), inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(x, y, init, body)| format!(
                    "list.fold([{x}, {y}], {init}, fn(a, b) {{ {body} }})"
                )),
            (inner.clone(), inner.clone(), inner.clone(), inner.clone(), var.clone())
                .prop_map(|(p, x, some, none, v)| format!(
                    "(match (if {p} > 0 {{ Some({x}) }} else {{ None }}) {{\n  Some({v}) => {some},\n  None => {none},\n}})"
                )),
            (inner.clone(), inner.clone()).prop_map(|(x, y)| format!("{{\n  State.put({x})\n  {y}\n}}")),
            (inner.clone(), inner.clone())
                .prop_map(|(x, y)| format!("(if Choose.choose() {{ {x} }} else {{ {y} }})")),
            (inner.clone(), inner.clone())
                .prop_map(|(p, x)| format!("(if {p} == 3 {{ Fail.fail(\"boom\") }} else {{ {x} }})")),
            (inner.clone(), inner.clone())
                .prop_map(|(s, x)| format!("with_state({s}, fn() {{ {x} }})")),
            inner.clone().prop_map(|x| format!("list.sum(all(fn() {{ {x} }}))")),
            inner.clone().prop_map(|x| format!("attempt(fn() {{ {x} }})")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn checked_programs_never_panic_the_machine(e in expr()) {
        let src = format!("{PRELUDE}attempt(fn() {{ with_state(0, fn() {{ list.sum(all(fn() {{ {e} }})) }}) }})\n");
        let parsed = writ_lang::parse(&src);
        prop_assert!(!parsed.has_errors(), "{src}\n{:#?}", parsed.diagnostics);
        let typed = writ_lang::types::check(&parsed.program, &Default::default());
        prop_assert!(!typed.diagnostics.iter().any(|d| d.is_error()), "{src}\n{:#?}", typed.diagnostics);
        let module = writ_runtime::compile(&parsed.program, &typed).expect("compiles");
        let limits = Limits {
            fuel: 2_000_000,
            memory: 64 * 1024 * 1024,
            ..Limits::default()
        };
        let mut host = LogHost::new(|_: &str| {});
        match run(&module, &limits, &mut host, None) {
            Ok(v) => prop_assert!(v.as_int().is_some(), "{src}: {v:?}"),
            Err(e) => prop_assert!(
                matches!(e.code, Code::IntegerOverflow | Code::DivisionByZero)
                    || e.limit.is_some(),
                "{src}\n{e:#?}"
            ),
        }
    }
}
