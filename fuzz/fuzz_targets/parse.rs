//! Lexing and parsing: any bytes, as a source file would be read.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = writ::source_text(data) else {
        return;
    };
    let parsed = writ_lang::parse(text);
    let _ = parsed.has_errors();
    let _ = writ::check_syntax(text);
});
