//! Type-checking benchmark: generates realistic programs (records, sum
//! types, matches, pipelines over the standard library, recursion,
//! polymorphic helpers) of 500 to 5,000 lines and reports the time to parse
//! and the time to type-check, and the growth between sizes.
//! Run with `cargo bench -p writ-lang --bench check`.
//!
//! Target (issue 3): parse + check of 5,000 lines in at most 50 ms on the
//! development machine, growing close to linearly. Then programs of many
//! identical top-level statements (10,000 and 40,000 lines), which must
//! grow linearly too.

use std::time::{Duration, Instant};

const HEADER: &str = "type Flight = { carrier: Str, price: Int, hours: Int, stops: Int }
type Shape = Circle(Float) | Rect(Float, Float) | Tri(Float, Float, Float)
type Tree[a] = Leaf | Node(Tree[a], a, Tree[a])

fn size(t) {
  match t {
    Leaf => 0,
    Node(l, _, r) => size(l) + 1 + size(r),
  }
}
";

/// One group of functions, numbered `i`: about 45 lines.
fn group(i: usize) -> String {
    format!(
        "/// Cheapest acceptable flight, variant {i}.
fn cheapest{i}(flights: List[Flight], max_stops: Int) -> Option[Flight] {{
  flights
    |> list.filter(fn(f) {{ f.stops <= max_stops && f.hours < 20 + {i} }})
    |> list.min_by(fn(f) {{ f.price }})
}}

fn area{i}(s) {{
  match s {{
    Circle(r) => 3.14 * r * r,
    Rect(w, h) => w * h,
    Tri(a, b, c) => {{
      let p = (a + b + c) / 2.0
      p * (p - a) * (p - b) * (p - c)
    }}
  }}
}}

fn describe{i}(f) {{
  let label = if f.stops == 0 {{ \"direct\" }} else {{ \"${{f.stops}} stops\" }}
  \"${{f.carrier}}: ${{f.price}} cents, ${{label}}\"
}}

fn total{i}(orders) {{
  list.fold(orders, 0, fn(acc, o) {{ acc + o.qty * o.price }})
}}

fn lookup{i}(pairs, key) {{
  match pairs {{
    [] => None,
    [(k, v), ..rest] => if k == key {{ Some(v) }} else {{ lookup{i}(rest, key) }},
  }}
}}

fn discounted{i}(f: Flight, percent: Int) -> Flight {{
  {{ ..f, price: f.price - f.price * percent / 100 }}
}}

fn summary{i}(flights) {{
  let names = list.map(flights, fn(f) {{ describe{i}(f) }})
  let best = cheapest{i}(flights, 1)
  match best {{
    Some(f) => (names, f.price, size(Node(Leaf, f, Leaf))),
    None => (names, 0, 0),
  }}
}}
"
    )
}

/// A program of about `lines` lines.
fn program(lines: usize) -> String {
    let mut out = String::from(HEADER);
    let mut i = 0;
    while out.lines().count() < lines {
        out.push_str(&group(i));
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
    for lines in [500, 1_000, 2_000, 5_000] {
        let src = program(lines);
        let parsed = writ_lang::parse(&src);
        assert!(parsed.diagnostics.is_empty(), "{:#?}", parsed.diagnostics);
        let typed = writ_lang::types::check(&parsed.program, &Default::default());
        assert!(typed.diagnostics.is_empty(), "{:#?}", typed.diagnostics);
        let parse = best(10, || {
            std::hint::black_box(writ_lang::parse(&src));
        });
        let check = best(10, || {
            std::hint::black_box(writ_lang::types::check(
                &parsed.program,
                &Default::default(),
            ));
        });
        let both = parse + check;
        println!(
            "{lines:>6} lines: parse {:>7.2} ms   check {:>7.2} ms   total {:>7.2} ms",
            parse.as_secs_f64() * 1e3,
            check.as_secs_f64() * 1e3,
            both.as_secs_f64() * 1e3
        );
        totals.push(both);
    }
    if let (Some(small), Some(large)) = (totals.first(), totals.last()) {
        println!(
            "growth 500 -> 5,000 lines: {:.1}x (10x is linear); target: 5,000 lines in <= 50 ms",
            large.as_secs_f64() / small.as_secs_f64().max(1e-9)
        );
    }
    flat();
}

/// Programs of many top-level statements, each the same line: the top
/// level's effect row and a name bound again and again grow with them
/// (each was once walked or sorted whole per statement, and a 2 MiB
/// program took minutes). Parse and check, 10,000 and 40,000 lines, and
/// the growth (4x is linear).
fn flat() {
    let shapes: [(&str, &str); 3] = [
        ("Log.info(\"a\")", "the same effect performed"),
        ("let x = 1", "one name bound again"),
        ("let y = [1, 2]", "a list bound again"),
    ];
    for (line, what) in shapes {
        let mut times = Vec::new();
        for lines in [10_000usize, 40_000] {
            let src = format!("{line}\n").repeat(lines);
            let t = best(3, || {
                let parsed = writ_lang::parse(&src);
                std::hint::black_box(writ_lang::types::check(
                    &parsed.program,
                    &Default::default(),
                ));
            });
            times.push(t);
        }
        if let [small, large] = times[..] {
            println!(
                "{what:>28}: 10,000 lines {:>8.2} ms   40,000 lines {:>8.2} ms   growth {:.1}x (4x is linear)",
                small.as_secs_f64() * 1e3,
                large.as_secs_f64() * 1e3,
                large.as_secs_f64() / small.as_secs_f64().max(1e-9)
            );
        }
    }
}
