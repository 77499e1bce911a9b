//! Print the compiled code of a program's own functions (for reading what
//! lowering produces): `cargo run -p writ-runtime --example dump FILE`.

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: dump FILE");
        return;
    };
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let parsed = writ_lang::parse(&text);
    let typed = writ_lang::types::check(&parsed.program, &Default::default());
    let module = match writ_runtime::compile(&parsed.program, &typed) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{}", e.message);
            return;
        }
    };
    for (i, h) in module.handlers.iter().enumerate() {
        println!("handler #{i}: {h:?}");
    }
    for (i, f) in module.functions.iter().enumerate() {
        if f.library && std::env::var_os("DUMP_LIBRARY").is_none() {
            continue;
        }
        println!(
            "fn #{i} {} (arity {}, locals {}, captures {:?})",
            f.name, f.arity, f.locals, f.captures
        );
        for (pc, op) in f.ops.iter().enumerate() {
            println!("  {pc:4} {op:?}");
        }
    }
}
