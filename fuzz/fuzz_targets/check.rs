//! Type and effect checking of any source text: with only `Log` granted
//! when the first byte is even, with every capability granted when odd.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = writ::source_text(data) else {
        return;
    };
    if data.first().is_none_or(|b| b % 2 == 0) {
        let _ = writ::check_source(text);
        return;
    }
    let all: Vec<String> = ["Log", "Http", "Pay", "Records", "Audit", "Confirm"]
        .iter()
        .map(|g| g.to_string())
        .collect();
    let _ = writ::check_source_granted(text, Some(&all));
});
