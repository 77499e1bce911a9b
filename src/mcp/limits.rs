//! The bounds of every request the MCP server serves (docs/mcp.md,
//! "Bounds"): the size of a message and of a program's source, the time a
//! request may take, what a tool's result may hold, and how many requests
//! run at once.
//!
//! Invariant: a bound passed is said in the answer (an error or a note),
//! never a silent cut or a hang.

use std::time::Duration;

/// The longest message read, in bytes (4 MiB): room for a source at its
/// largest, escaped, with its inputs.
pub const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// The largest source a tool takes, in bytes: the command line's
/// (`writ::MAX_SOURCE_BYTES`); past it, the tool answers `E9004`.
pub const MAX_SOURCE_BYTES: u64 = writ::MAX_SOURCE_BYTES;

/// The most a tool's result holds, in bytes of text (1 MiB); past it, the
/// text is cut and says so.
pub const MAX_RESULT_BYTES: usize = 1024 * 1024;

/// How long the person has to answer a plan's approval (5 minutes);
/// unanswered, the plan is not run.
pub const APPROVAL_WAIT: Duration = Duration::from_secs(300);

/// The time a request may take past the policy's time limit (and, for
/// `approve`, past [`APPROVAL_WAIT`]): checking, compiling, the store.
pub const GRACE: Duration = Duration::from_secs(30);

/// How many tool calls run at once; others wait their turn, at most
/// [`GRACE`].
pub const CONCURRENT_CALLS: usize = 2;

/// How many plans are kept for `approve` (the oldest is forgotten first).
pub const KEPT_PLANS: usize = 32;

/// How many bytes the kept plans may take in all (sources and plans'
/// JSON text); past it the oldest are forgotten first, though the newest
/// is always kept (one plan is bounded by its run's memory limit).
pub const KEPT_PLAN_BYTES: usize = 64 * 1024 * 1024;

/// How many audit records the `writ://audit` resource shows (the last).
pub const AUDIT_RECORDS: usize = 100;

/// `text` cut to at most [`MAX_RESULT_BYTES`] bytes (at a character's
/// boundary), followed by a note saying how much was left out; `text`
/// itself when it fits. The second value is whether it was cut.
pub fn bounded(text: String) -> (String, bool) {
    if text.len() <= MAX_RESULT_BYTES {
        return (text, false);
    }
    let mut end = MAX_RESULT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let total = text.len();
    let mut cut = text;
    cut.truncate(end);
    cut.push_str(&format!(
        "\n[cut: the result was {total} bytes; the first {end} are shown (writ mcp shows at most {MAX_RESULT_BYTES} bytes of a result)]\n"
    ));
    (cut, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_that_fits_is_kept_whole() {
        assert_eq!(bounded("abc".to_string()), ("abc".to_string(), false));
    }

    #[test]
    fn a_result_past_the_bound_is_cut_at_a_character_and_says_so() {
        let text = "é".repeat(MAX_RESULT_BYTES);
        let (cut, was_cut) = bounded(text);
        assert!(was_cut);
        assert!(cut.starts_with("éé"));
        assert!(cut.contains("[cut: the result was 2097152 bytes; the first 1048576 are shown"));
    }
}
