//! Policy parsing: any text as a policy file.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(policy) = writ_host::policy::parse(text) {
        let _ = policy.granted();
    }
});
