//! What a snapshot costs: a run paused at a `Clock.now()` 100 calls deep,
//! holding a list of 5,000 records, each with a string (10,001 objects
//! and 5,000 integers live), is snapshotted ([`Paused::to_bytes`]) and
//! restored ([`writ_runtime::restore`]) again and again. It prints the
//! snapshot's size and the best of `ROUNDS` rounds of each, and checks
//! that the restored run finishes with the original's value.
//! `cargo run --release -p writ-runtime --example snapshot_bench`.
//!
//! [`Paused::to_bytes`]: writ_runtime::Paused::to_bytes

use std::time::{Duration, Instant};

use writ_runtime::{Limits, Module, Progress, Value, restore, start};

const ROUNDS: usize = 50;

const PROGRAM: &str = "fn deep(n: Int, xs: List[{ id: Int, name: Str }]) -> Int {\n\
      if n == 0 { Clock.now() + list.length(xs) } else { 1 + deep(n - 1, xs) }\n\
    }\n\
    let xs = list.map(list.range(0, 5000), fn(i) { { id: i, name: \"item ${i}\" } })\n\
    deep(100, xs)\n";

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

fn fail(what: &str) -> ! {
    eprintln!("{what}");
    std::process::exit(1)
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

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let module = compile(PROGRAM);
    let limits = Limits::default();
    let Progress::Paused(paused) = start(&module, &limits, None) else {
        fail("the run did not pause")
    };
    let bytes = paused.to_bytes().unwrap_or_else(|e| fail(&e.message));
    let t_snapshot = best(|| {
        if paused.to_bytes().is_err() {
            fail("no snapshot");
        }
    });
    let t_restore = best(|| {
        if restore(&module, &bytes, &limits, None).is_err() {
            fail("not restored");
        }
    });
    drop(paused);
    let restored = restore(&module, &bytes, &limits, None).unwrap_or_else(|e| fail(&e.message));
    match restored.resume(Ok(Value::int(1))) {
        Progress::Done(Ok(v)) if v.as_int() == Some(5_101) => {}
        other => fail(&format!("unexpected end: {other:?}")),
    }
    println!("a run paused 100 calls deep holding 10,001 objects (best of {ROUNDS} rounds):");
    println!("  snapshot size:        {} bytes", bytes.len());
    println!("  to_bytes:             {:.3} ms", ms(t_snapshot));
    println!("  restore (and drop):   {:.3} ms", ms(t_restore));
    println!(
        "  snapshot + restore:   {:.3} ms",
        ms(t_snapshot + t_restore)
    );
}
