//! Run a program and print how many times each op ran, and the pairs of
//! ops that most often ran one after the other (for finding what to fuse
//! or make cheaper): `cargo run --release -p writ-runtime --features
//! op-stats --example op_stats FILE [TOP]` (the first TOP pairs, 25 by
//! default). The run has `Log` and the default limits.

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: op_stats FILE [TOP]");
        std::process::exit(2);
    };
    let top: usize = args.next().and_then(|t| t.parse().ok()).unwrap_or(25);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    let parsed = writ_lang::parse(&text);
    let typed = writ_lang::types::check(&parsed.program, &Default::default());
    if parsed
        .diagnostics
        .iter()
        .chain(&typed.diagnostics)
        .any(|d| d.is_error())
    {
        eprintln!("{path}: rejected (run `writ check {path}`)");
        std::process::exit(1);
    }
    let module = match writ_runtime::compile(&parsed.program, &typed) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{}", e.message);
            std::process::exit(1);
        }
    };
    let _ = writ_runtime::op_stats::take();
    let mut host = writ_runtime::LogHost::new(|_: &str| {});
    let outcome = writ_runtime::run(&module, &Default::default(), &mut host, None);
    let (ops, pairs) = writ_runtime::op_stats::take();
    if let Err(e) = outcome {
        eprintln!("the run stopped: {}", e.message);
    }
    let total: u64 = ops.iter().map(|(_, n)| n).sum();
    let share = |n: u64| 100.0 * n as f64 / total.max(1) as f64;
    println!("{total} ops");
    for (name, n) in &ops {
        println!("{n:>14} {:>5.1}%  {name}", share(*n));
    }
    println!("\npairs (the first {top}):");
    for ((a, b), n) in pairs.iter().take(top) {
        println!("{n:>14} {:>5.1}%  {a} -> {b}", share(*n));
    }
}
