//! Parse-stage benchmark: generates realistic programs of 500 and 5,000
//! lines and reports the time of each stage and the growth between sizes.
//! Run with `cargo bench -p writ-lang --bench parse --features internals`
//! (the lexer alone is timed through the crate's internals).

use std::time::{Duration, Instant};

/// A program of about `lines` lines of ordinary functions.
fn program(lines: usize) -> String {
    let mut out = String::new();
    let mut i = 0;
    while out.lines().count() < lines {
        out.push_str(&format!(
            "/// Function {i}.\nfn f{i}(xs: List[Int], k: Int) -> Int {{\n  let ys = xs |> list.map(fn(x) {{ x * k + {i} }})\n  let total = list.fold(ys, 0, fn(acc, y) {{ acc + y }})\n  match list.first(ys) {{\n    Some(y) if y > 10 => total + y,\n    Some(_) => total,\n    None => 0,\n  }}\n}}\n"
        ));
        i += 1;
    }
    out
}

/// The best of `runs` timings of `f`.
fn best(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let mut totals = Vec::new();
    for lines in [500, 5_000] {
        let src = program(lines);
        let lex = best(10, || {
            std::hint::black_box(writ_lang::lexer::lex(&src));
        });
        let parse = best(10, || {
            std::hint::black_box(writ_lang::parse(&src));
        });
        println!(
            "{lines:>6} lines: lex {:>8.2} ms   lex+balance+parse {:>8.2} ms",
            lex.as_secs_f64() * 1e3,
            parse.as_secs_f64() * 1e3
        );
        totals.push(parse);
    }
    if let [small, large] = totals[..] {
        println!(
            "growth 500 -> 5,000 lines: {:.1}x (10x is linear)",
            large.as_secs_f64() / small.as_secs_f64().max(1e-9)
        );
    }
}
