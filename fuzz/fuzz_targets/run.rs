//! Checking and running any source text under tiny limits (fuel, memory,
//! depth, output, time): every run ends, with a value or a limit error.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = writ::source_text(data) else {
        return;
    };
    let limits = writ_fuzz::tiny_limits();
    let _ = writ::run_source(text, &limits, &mut |_: &str| {}, None);
});
