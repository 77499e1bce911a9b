//! Lexing and parsing: any bytes, as a source file would be read, and the
//! diagnostics drawn as `writ check` draws them (for people and as JSON).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = writ::source_text(data) else {
        return;
    };
    let checked = writ::check_syntax(text);
    let _ = writ::render::human(&checked.diagnostics, "main.writ", text, false);
    let _ = writ::render::json(&checked.diagnostics, "main.writ", text);
});
