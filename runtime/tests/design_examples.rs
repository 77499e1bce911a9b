//! The example program of the design sketch (`tests/design/taste.writ`,
//! see its header) runs with the expected result. Its host capabilities
//! come from a test host: recorded pages for `Http` and a list of
//! payments for `Pay` (a simulation for this test only; the real
//! capabilities belong to the embedding API).

mod common;

use writ_runtime::{Host, HostError, Limits, RunError, Value};

/// A payment the test host received: payee, cents, memo.
type Payment = (String, i64, String);

/// Serves two airline pages and records payments.
struct TestHost<'m> {
    module: &'m writ_runtime::Module,
    paid: Vec<Payment>,
}

impl Host for TestHost<'_> {
    fn perform(&mut self, effect: &str, op: &str, args: &[Value]) -> Result<Value, HostError> {
        match (effect, op, args) {
            ("Http", "get", [url]) => Ok(Value::str(match url.as_str() {
                Some("https://a.example/q") => {
                    r#"{"carrier": "Alpha Air", "price": 31000, "hours": 6, "stops": 0}"#
                }
                Some("https://b.example/q") => {
                    r#"{"carrier": "Beta Lines", "price": 29000, "hours": 9, "stops": 1}"#
                }
                _ => "not found",
            })),
            ("Pay", "pay", [payee, cents, memo]) => {
                let payee = payee.as_str().unwrap_or_default().to_string();
                let Some(cents) = cents.as_int() else {
                    return Err(RunError::internal("cents").into());
                };
                let memo = memo.as_str().unwrap_or_default().to_string();
                self.paid.push((payee.clone(), cents, memo));
                Value::record(
                    self.module,
                    vec![
                        ("id", Value::str(format!("r{}", self.paid.len()))),
                        ("payee", Value::str(payee)),
                        ("cents", Value::int(cents)),
                        ("currency", Value::str("USD")),
                    ],
                )
                .ok_or_else(|| RunError::internal("Receipt's fields are not symbols").into())
            }
            _ => Err(RunError::internal(format!("{effect}.{op} is not granted")).into()),
        }
    }
}

fn run(src: &str) -> (Result<String, RunError>, Vec<Payment>) {
    let module = common::compile(src);
    let mut host = TestHost {
        module: &module,
        paid: Vec::new(),
    };
    let result = writ_runtime::run(&module, &Limits::default(), &mut host, None).map(|v| {
        writ_runtime::display::to_string(
            &v,
            &module,
            writ_runtime::display::StrForm::Quoted,
            10_000,
        )
    });
    (result, host.paid)
}

fn taste() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("tests")
        .join("design")
        .join("taste.writ");
    std::fs::read_to_string(path).expect("the fixture exists")
}

#[test]
fn the_taste_program_pays_for_the_cheapest_acceptable_flight() {
    let (result, paid) = run(&taste());
    assert_eq!(
        result.unwrap(),
        r#"{ cents: 29000, currency: "USD", id: "r1", payee: "Beta Lines" }"#
    );
    assert_eq!(
        paid,
        [(
            "Beta Lines".to_string(),
            29000,
            "flight SFO-JFK".to_string()
        )]
    );
}

#[test]
fn the_taste_programs_functions_compute_what_the_sketch_says() {
    let extra = r#"
let shapes = [area(Circle(1.0)), area(Rect(2.0, 3.0))]
let outcomes = all_choices(fn() { if Choose.choose() { "heads" } else { "tails" } })
let counted = with_state(10, fn() {
  State.put(State.get() + 5)
  State.get() * 2
})
fn log_twice() -> Unit / {Log} { twice(fn() { Log.info("hi") }) }
let capped_small = handle capped(50000, fn() { Pay.pay("Alpha Air", 100, "seat") }) with {
  Fail.fail(m) => { id: "none", payee: m, cents: 0, currency: "" },
}
let capped_big = handle capped(50000, fn() { Pay.pay("Alpha Air", 90000, "upgrade") }) with {
  Fail.fail(m) => { id: "none", payee: m, cents: 0, currency: "" },
}
(shapes, outcomes, counted, capped_small.cents, capped_big.payee)
"#;
    let (result, paid) = run(&format!("{}{extra}", taste()));
    assert_eq!(
        result.unwrap(),
        r#"([3.14159, 6.0], ["heads", "tails"], 30, 100, "payment of 90000 exceeds cap 50000")"#
    );
    // The flight, then the small payment; the capped one never reached the host.
    let payees: Vec<i64> = paid.iter().map(|p| p.1).collect();
    assert_eq!(payees, [29000, 100]);
}
