//! What pausing at a host operation costs: a loop of 10,000 `Clock.now()`
//! operations, answered by the host, run three ways —
//!
//! - `handled`: answered by a handler in the program (no host at all: the
//!   loop's own cost);
//! - `run`: [`writ_runtime::run`], which stops the machine at each
//!   operation and calls the [`Host`] (the loop over the pauses, the run
//!   never handed out);
//! - `start/resume`: [`writ_runtime::start`] and [`Paused::resume`], the
//!   run handed out at each operation with its meter parked.
//!
//! It prints the best of `ROUNDS` rounds of each, per operation, and the
//! cost of a pause/resume pair beyond the operation (`start/resume` less
//! `run`, whose host call is the operation itself).
//! `cargo run --release -p writ-runtime --example pause_bench`.
//!
//! [`Paused::resume`]: writ_runtime::Paused::resume

use std::time::{Duration, Instant};

use writ_runtime::{Host, HostError, Limits, Module, Progress, Value, run, start};

const OPS: i64 = 10_000;
const ROUNDS: usize = 30;

const LOOP: &str = "fn go(n: Int, acc: Int) -> Int {\n\
      if n == 0 { acc } else { go(n - 1, acc + Clock.now()) }\n\
    }\n";

fn compile(src: &str) -> Module {
    let parsed = writ_lang::parse(src);
    let typed = writ_lang::types::check(&parsed.program, &Default::default());
    if parsed.has_errors() || typed.diagnostics.iter().any(|d| d.is_error()) {
        eprintln!("the benchmark's program is not accepted");
        std::process::exit(1);
    }
    match writ_runtime::compile(&parsed.program, &typed) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{}", e.message);
            std::process::exit(1);
        }
    }
}

struct Clock;

impl Host for Clock {
    fn perform(&mut self, _: &str, _: &str, _: &[Value]) -> Result<Value, HostError> {
        Ok(Value::int(1))
    }
}

fn best(mut f: impl FnMut()) -> Duration {
    (0..ROUNDS)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn per_op(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6 / OPS as f64
}

fn check(r: Result<Value, writ_runtime::RunError>) {
    match r {
        Ok(v) if v.as_int() == Some(OPS) => {}
        other => {
            eprintln!("unexpected result: {other:?}");
            std::process::exit(1);
        }
    }
}

fn main() {
    let limits = Limits::default();
    let handled = compile(&format!(
        "{LOOP}handle go({OPS}, 0) with {{ Clock.now() => resume(1), return(x) => x }}\n"
    ));
    let hosted = compile(&format!("{LOOP}go({OPS}, 0)\n"));
    let t_handled = best(|| check(run(&handled, &limits, &mut Clock, None)));
    let t_run = best(|| check(run(&hosted, &limits, &mut Clock, None)));
    let t_paused = best(|| {
        let mut progress = start(&hosted, &limits, None);
        let result = loop {
            match progress {
                Progress::Done(r) => break r,
                Progress::Paused(p) => progress = p.resume(Ok(Value::int(1))),
            }
        };
        check(result);
    });
    println!("{OPS} operations, best of {ROUNDS} rounds, microseconds per operation:");
    println!("  handled in the program: {:.3}", per_op(t_handled));
    println!("  run (host answers):     {:.3}", per_op(t_run));
    println!("  start/resume:           {:.3}", per_op(t_paused));
    println!(
        "  a pause/resume pair beyond the operation: {:.3}",
        per_op(t_paused.saturating_sub(t_run))
    );
}
