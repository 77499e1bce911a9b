//! The primer for models (docs/primer.md) and the grants of a policy in
//! words: what a host pastes into a model's prompt (`writ primer`), and
//! what the MCP server's tool descriptions and resources carry.
//!
//! Invariant: the text is the primer file as committed, followed only by
//! what the policy grants; nothing here reads a file or the network. The
//! grants in words are made from the policy and the engine alone: each
//! granted capability's interface as the checker knows it (the built-in
//! ones from `stdlib/capabilities.writ`, an embedder's from the text it
//! registered), its scope, its audit and denial behaviour, and whether
//! each operation reads or acts ([`Engine::operation_kind`]).

mod grants;

use writ_host::engine::Engine;
use writ_host::policy::Policy;

pub use grants::grants_in_words;

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

/// The primer, followed by the grants in words when a policy is given:
/// the core, a blank line, the rest (the marker left out).
pub fn primer(engine: &Engine, policy: Option<&Policy>) -> String {
    let mut out = match PRIMER.split_once(CORE_ENDS) {
        Some((core, rest)) => format!("{}\n\n{}", core.trim_end(), rest.trim()),
        None => PRIMER.trim_end().to_string(),
    };
    out.push('\n');
    if let Some(p) = policy {
        out.push('\n');
        out.push_str(&grants_in_words(engine, p));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_core_ends_at_the_marker_and_the_primer_drops_it() {
        assert!(core().len() < PRIMER.len());
        assert!(!core().contains(CORE_ENDS));
        let whole = primer(&Engine::new(), None);
        assert!(!whole.contains(CORE_ENDS));
        assert!(whole.starts_with(core()));
        assert!(whole.ends_with('\n') && !whole.ends_with("\n\n"));
        assert!(
            !whole.contains("\n\n\n"),
            "one blank line where the marker was"
        );
    }
}
