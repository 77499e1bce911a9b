//! Print the compiled code of a program's own functions (for reading what
//! lowering produces): `cargo run -p writ-runtime --features internals
//! --example dump FILE` (`DUMP_LIBRARY=1` for the standard library's
//! functions too).

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
    print!(
        "{}",
        module.listing(std::env::var_os("DUMP_LIBRARY").is_some())
    );
}
