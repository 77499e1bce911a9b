//! In-process start-up: compile + run of a one-line program on an
//! existing engine, the figure of issue 21's start-up target (at most
//! 100 µs), and each half alone.
//!
//! ```sh
//! cargo run --release --example startup [-- ITERATIONS]
//! ```
//!
//! Prints the median over 15 rounds of the time per iteration of a round
//! (each round repeats the work ITERATIONS times, 2,000 by default), for
//! `Engine::check` + `Engine::run` of `1 + 1` under a policy granting
//! `Log`, for `Engine::check` alone, and for `writ::check_source`. The
//! first compile (which loads the standard library into the process) is
//! timed apart.

use std::time::Instant;

use writ::host::{Engine, RunOptions, policy};

const SOURCE: &str = "1 + 1\n";
const POLICY: &str = "[principal]\nid = \"bench\"\nrole = \"bench\"\n\n[grants.Log]\n";
const ROUNDS: usize = 15;

fn main() {
    let iterations: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(2_000);
    let policy = match policy::parse(POLICY) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("the bench's policy does not parse: {e:?}");
            std::process::exit(1);
        }
    };
    let engine = Engine::new();
    let db = std::env::temp_dir().join(format!("writ-startup-{}.db", std::process::id()));
    let options = RunOptions {
        store: Some(db.display().to_string()),
        ..Default::default()
    };
    let first = Instant::now();
    let Ok(program) = engine.check(SOURCE, &policy) else {
        eprintln!("the bench's program was rejected");
        std::process::exit(1);
    };
    let first = first.elapsed();
    // The store is created by the first run, not timed.
    let ran = engine.run(&program, &policy, &options, &mut |_| {});
    if !matches!(&ran, Ok(o) if o.result.as_deref() == Ok("2")) {
        eprintln!("the bench's program did not give 2: {ran:?}");
        std::process::exit(1);
    }
    println!(
        "first compile (loads the standard library): {:.1} µs",
        micros(first, 1)
    );
    let both = median(iterations, || {
        let Ok(p) = engine.check(SOURCE, &policy) else {
            return;
        };
        let _ = engine.run(&p, &policy, &options, &mut |_| {});
    });
    println!("compile + run of `1 + 1` on an existing engine: {both:.1} µs");
    let compile = median(iterations, || {
        let _ = engine.check(SOURCE, &policy);
    });
    println!("compile alone (Engine::check): {compile:.1} µs");
    let run = median(iterations, || {
        let _ = engine.run(&program, &policy, &options, &mut |_| {});
    });
    println!("run alone (Engine::run): {run:.1} µs");
    let check = median(iterations, || {
        let _ = writ::check_source(SOURCE, &writ::CheckOptions::default());
    });
    println!("check alone (writ::check_source): {check:.1} µs");
    let _ = std::fs::remove_file(&db);
}

/// The median over the rounds of the µs per iteration of `work`.
fn median(iterations: usize, mut work: impl FnMut()) -> f64 {
    let mut rounds: Vec<f64> = (0..ROUNDS)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..iterations {
                work();
            }
            micros(t.elapsed(), iterations)
        })
        .collect();
    rounds.sort_by(f64::total_cmp);
    rounds.get(ROUNDS / 2).copied().unwrap_or(f64::NAN)
}

fn micros(d: std::time::Duration, n: usize) -> f64 {
    d.as_secs_f64() * 1e6 / n.max(1) as f64
}
