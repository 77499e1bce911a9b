//! Helpers shared by the fuzz targets: the tiny limits every run is under,
//! and a Writ string literal holding arbitrary text.
//!
//! Every target must end quickly on every input (libFuzzer reports an
//! input slower than its `-timeout` as a finding), so runs are under
//! limits far below the defaults.

use std::time::Duration;

use writ::Limits;

/// Limits small enough that any input ends in milliseconds: a few
/// hundred thousand steps, 8 MiB of values, 64 KiB of output, 1 s.
pub fn tiny_limits() -> Limits {
    Limits {
        fuel: 200_000,
        memory: 8 * 1024 * 1024,
        depth: 10_000,
        output: 64 * 1024,
        time: Duration::from_secs(1),
    }
}

/// `text` as a Writ string literal (quotes included): backslash, quote and
/// `$` escaped, and every character outside printable ASCII written as a
/// `\u{...}` escape, so the literal's value is exactly `text`.
pub fn string_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '$' => out.push_str("\\$"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if !(' '..='~').contains(&c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
