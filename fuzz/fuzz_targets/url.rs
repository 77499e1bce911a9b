//! URL and allow-list rule parsing. The first line is a rule, the rest a
//! URL; a URL that parses must print as text that parses to the same URL,
//! and a rule must allow the URL it was written as.
#![no_main]

use libfuzzer_sys::fuzz_target;
use writ_host::url::{self, Rule};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (rule, target) = text.split_once('\n').unwrap_or((text, text));
    let parsed = url::parse(target);
    if let Ok(u) = &parsed {
        let printed = u.to_string();
        let again = url::parse(&printed);
        assert_eq!(
            again.as_ref().map(|a| a.to_string()),
            Ok(printed.clone()),
            "{target:?} printed as {printed:?}, which does not parse to itself"
        );
    }
    if let Ok(r) = Rule::parse(rule) {
        if let Ok(u) = &parsed {
            let _ = r.allows(u);
        }
        if let Ok(own) = url::parse(rule) {
            let _ = r.allows(&own);
        }
    }
});
