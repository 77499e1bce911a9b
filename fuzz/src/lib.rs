//! Helpers shared by the fuzz targets: the tiny limits every run is under,
//! a Writ string literal holding arbitrary text, and the program whose
//! snapshots the `snapshot` target restores.
//!
//! Every target must end quickly on every input (libFuzzer reports an
//! input slower than its `-timeout` as a finding), so runs are under
//! limits far below the defaults.

use std::sync::OnceLock;
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

/// The program the `snapshot` target restores snapshots of (its seeds are
/// this program's real snapshots, `fuzz/seed.sh`).
pub const SNAPSHOT_PROGRAM: &str = include_str!("snapshot.writ");

/// [`SNAPSHOT_PROGRAM`], compiled once.
pub fn snapshot_module() -> &'static writ_runtime::Module {
    static MODULE: OnceLock<writ_runtime::Module> = OnceLock::new();
    MODULE.get_or_init(|| {
        let parsed = writ_lang::parse(SNAPSHOT_PROGRAM);
        let typed = writ_lang::types::check(&parsed.program, &Default::default());
        match writ_runtime::compile(&parsed.program, &typed) {
            Ok(m) if !parsed.has_errors() && !typed.diagnostics.iter().any(|d| d.is_error()) => m,
            _ => panic!("fuzz/src/snapshot.writ is not an accepted program"),
        }
    })
}
