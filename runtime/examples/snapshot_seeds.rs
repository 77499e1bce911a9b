//! Writes the snapshots of a program's run at each of its pauses, one
//! file each, as seeds for the `snapshot` fuzz target (`fuzz/seed.sh`):
//! `cargo run -p writ-runtime --example snapshot_seeds -- PROGRAM DIR`.
//! The run's pauses are answered as the fuzz target answers them
//! (`Clock.now` an `Int`, `Confirm.ask` a `Bool`, `Http.get` a `Str`,
//! anything else `()`).

use writ_runtime::{HostError, Limits, Progress, Value, start};

fn answer(effect: &str, n: usize) -> Result<Value, HostError> {
    match effect {
        "Clock" => Ok(Value::int(n as i64)),
        "Confirm" => Ok(Value::bool(n.is_multiple_of(2))),
        "Http" => Ok(Value::str(format!("page {n} ✓"))),
        _ => Ok(Value::unit()),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [program, dir] = args.as_slice() else {
        eprintln!("usage: snapshot_seeds PROGRAM DIR");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(program).unwrap_or_else(|e| {
        eprintln!("{program}: {e}");
        std::process::exit(1);
    });
    let parsed = writ_lang::parse(&text);
    let typed = writ_lang::types::check(&parsed.program, &Default::default());
    if parsed.has_errors() || typed.diagnostics.iter().any(|d| d.is_error()) {
        eprintln!("{program}: not accepted by the checker");
        std::process::exit(1);
    }
    let module = writ_runtime::compile(&parsed.program, &typed).unwrap_or_else(|e| {
        eprintln!("{program}: {}", e.message);
        std::process::exit(1);
    });
    let mut progress = start(&module, &Limits::default(), None);
    let mut n = 0;
    while let Progress::Paused(p) = progress {
        match p.to_bytes() {
            Ok(bytes) => {
                let path = format!("{dir}/pause-{n}.snap");
                if let Err(e) = std::fs::write(&path, bytes) {
                    eprintln!("{path}: {e}");
                    std::process::exit(1);
                }
            }
            Err(e) => {
                eprintln!("pause {n}: {}", e.message);
                std::process::exit(1);
            }
        }
        let a = answer(p.effect(), n);
        n += 1;
        progress = p.resume(a);
    }
    if let Progress::Done(Err(e)) = progress {
        eprintln!("the run failed: {}", e.message);
        std::process::exit(1);
    }
    println!("{n} snapshots");
}
