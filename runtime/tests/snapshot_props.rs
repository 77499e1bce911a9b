//! Property: for generated programs (well typed by construction: `Int`
//! expressions with host operations — `Clock.now`, `Confirm.ask`,
//! `Http.get`, `Log.info` — inside a state handler, a multi-shot choice
//! handler and a `Fail` handler, nested in every order, with lambdas,
//! `let`, `match` and `list.fold`), running straight through and running
//! with a snapshot and restore at every pause (the original dropped first)
//! give the same outcome — value or error, placed the same — the same
//! operations, and the same fuel used at each pause.

use proptest::prelude::*;
use writ_runtime::{HostError, Limits, Module, Paused, Progress, RunError, Value, restore, start};

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
        Just("Clock.now()".to_string()),
        Just("(if Confirm.ask(\"more?\") { Clock.now() } else { 1 })".to_string()),
        Just("str.length(Http.get(\"https://a.example/é\"))".to_string()),
    ]
}

fn expr() -> impl Strategy<Value = String> {
    leaf().prop_recursive(4, 32, 4, |inner| {
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
                .prop_map(|(x, y)| format!("(if Confirm.ask(\"go?\") {{ {x} }} else {{ {y} }})")),
            (inner.clone(), inner.clone())
                .prop_map(|(x, y)| format!("{{\n  let w = {x}\n  Log.info(\"x=${{w}}\")\n  {y}\n}}")),
            (inner.clone(), inner.clone())
                .prop_map(|(p, x)| format!("(if {p} == 3 {{ Fail.fail(\"boom\") }} else {{ {x} }})")),
            (inner.clone(), inner.clone())
                .prop_map(|(s, x)| format!("with_state({s}, fn() {{ {x} }})")),
            inner.clone().prop_map(|x| format!("list.sum(all(fn() {{ {x} }}))")),
            inner.clone().prop_map(|x| format!("attempt(fn() {{ {x} }})")),
        ]
    })
}

/// The answer to the `n`th pause: varying values, and now and then a
/// failure where the operation was.
fn answer(n: usize, p: &Paused<'_>) -> Result<Value, HostError> {
    if n % 7 == 6 {
        return Err(HostError::Fail("no".to_string()));
    }
    match p.effect() {
        "Clock" => Ok(Value::int(n as i64 * 3 - 10)),
        "Confirm" => Ok(Value::bool(n % 3 != 1)),
        "Http" => Ok(Value::str(format!("página {n}"))),
        _ => Ok(Value::unit()),
    }
}

/// A pause: the operation, its arguments, and the fuel used so far.
type Pause = (String, String, u64);

/// The outcome, and each pause.
fn drive(module: &Module, limits: &Limits, snap: bool) -> (Result<Value, RunError>, Vec<Pause>) {
    let mut seen = Vec::new();
    let mut progress = start(module, limits, None);
    loop {
        match progress {
            Progress::Done(r) => return (r, seen),
            Progress::Paused(p) => {
                let p = if snap {
                    let bytes = p.to_bytes().expect("a snapshot");
                    drop(p);
                    restore(module, &bytes, limits, None).expect("restores")
                } else {
                    p
                };
                let args = p
                    .args()
                    .iter()
                    .map(|a| format!("{a:?}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                seen.push((format!("{}.{}", p.effect(), p.op()), args, p.usage().fuel));
                let a = answer(seen.len() - 1, &p);
                progress = p.resume(a);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_snapshot_at_every_pause_changes_nothing(e in expr()) {
        let src = format!(
            "{PRELUDE}attempt(fn() {{ with_state(Clock.now(), fn() {{ list.sum(all(fn() {{\n  let z = Clock.now()\n  {e} + z\n}})) }}) }})\n"
        );
        let parsed = writ_lang::parse(&src);
        prop_assert!(!parsed.has_errors(), "{src}\n{:#?}", parsed.diagnostics);
        let typed = writ_lang::types::check(&parsed.program, &Default::default());
        prop_assert!(!typed.diagnostics.iter().any(|d| d.is_error()), "{src}\n{:#?}", typed.diagnostics);
        let module = writ_runtime::compile(&parsed.program, &typed).expect("compiles");
        let limits = Limits {
            fuel: 300_000,
            memory: 64 * 1024 * 1024,
            ..Limits::default()
        };
        let (a, pauses_a) = drive(&module, &limits, false);
        let (b, pauses_b) = drive(&module, &limits, true);
        prop_assert_eq!(pauses_a, pauses_b, "{}", src);
        match (a, b) {
            (Ok(x), Ok(y)) => prop_assert_eq!(x.as_int(), y.as_int(), "{}", src),
            (Err(x), Err(y)) => prop_assert_eq!(x, y, "{}", src),
            (x, y) => prop_assert!(false, "{src}: {x:?} against {y:?}"),
        }
    }
}
