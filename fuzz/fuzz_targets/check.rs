//! Type and effect checking of any source text: without grants (checked,
//! not judged) when the first byte is even, with every capability granted
//! when odd;
//! the diagnostics are drawn for people, in colour when the second byte is
//! odd.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = writ::source_text(data) else {
        return;
    };
    let checked = if data.first().is_none_or(|b| b % 2 == 0) {
        writ::check_source(text, &writ::CheckOptions::default())
    } else {
        let all: Vec<String> = writ::HOST_CAPABILITIES
            .iter()
            .map(|g| g.to_string())
            .collect();
        let options = writ::CheckOptions {
            grants: Some(writ::Grants::list(&all)),
            ..Default::default()
        };
        writ::check_source(text, &options)
    };
    let color = data.get(1).is_some_and(|b| b % 2 == 1);
    let _ = writ::render::human(&checked.diagnostics, "main.writ", text, color);
});
