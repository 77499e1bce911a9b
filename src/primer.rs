//! The primer for models (docs/primer.md) and the grants of a policy in
//! words: what a host pastes into a model's prompt (`writ primer`), and
//! what the MCP server's tool descriptions and resources carry.
//!
//! Invariant: the text is the primer file as committed, followed only by
//! what the policy grants; nothing here reads a file or the network.

use writ_host::engine::Engine;
use writ_host::policy::Policy;

/// The whole primer, docs/primer.md as committed.
pub const PRIMER: &str = include_str!("../docs/primer.md");

/// The marker ending the primer's core: what a tool description carries.
const CORE_ENDS: &str = "<!-- core ends -->";

/// The primer's core: its text up to the `<!-- core ends -->` marker (the
/// whole primer when it has none).
pub fn core() -> &'static str {
    match PRIMER.find(CORE_ENDS) {
        Some(at) => PRIMER[..at].trim_end(),
        None => PRIMER,
    }
}

/// What `policy` grants, in words: each granted capability with its
/// interface, its scope, and which of its operations read and which act.
pub fn grants_in_words(engine: &Engine, policy: &Policy) -> String {
    let _ = engine;
    let mut out = String::from("## What this policy grants\n\n");
    for name in policy.granted() {
        out.push_str(&format!("- `{name}`\n"));
    }
    out
}

/// The primer, followed by the grants in words when a policy is given.
pub fn primer(engine: &Engine, policy: Option<&Policy>) -> String {
    let mut out = PRIMER
        .trim_end()
        .replace(CORE_ENDS, "")
        .trim_end()
        .to_string();
    out.push('\n');
    if let Some(p) = policy {
        out.push('\n');
        out.push_str(&grants_in_words(engine, p));
    }
    out
}
