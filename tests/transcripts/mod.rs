//! What the harnesses of documents with transcripts share
//! (`tests/testing_doc.rs`, `tests/course.rs`): a lead-in line
//! `` `writ ARGS` prints: `` and the fenced block after it, and the exit
//! code a document states after a block (`exit code N.`).

// Each harness uses part of this module.
#![allow(dead_code)]

/// The arguments of a lead-in line `` `writ ARGS` prints: ``.
pub fn command_line(line: &str) -> Option<Vec<String>> {
    let rest = line.strip_prefix("`writ ")?;
    let (args, after) = rest.split_once('`')?;
    (after.trim() == "prints:").then(|| args.split_whitespace().map(str::to_string).collect())
}

/// The fenced block that follows line `at` (blank lines allowed between):
/// the index of its opening fence and of its closing fence (the end of the
/// document when it is not closed); `None` when no block follows.
pub fn block_after(lines: &[&str], at: usize) -> Option<(usize, usize)> {
    let mut open = at + 1;
    while open < lines.len() && lines[open].trim().is_empty() {
        open += 1;
    }
    if !lines.get(open).is_some_and(|l| l.starts_with("```")) {
        return None;
    }
    let close = (open + 1..lines.len())
        .find(|&k| lines[k] == "```")
        .unwrap_or(lines.len());
    Some((open, close))
}

/// The exit code stated on the first non-blank line after line `close`
/// (`exit code 3.`), if there is one.
pub fn stated_exit(lines: &[&str], close: usize) -> Option<i32> {
    lines
        .iter()
        .skip(close + 1)
        .find(|l| !l.trim().is_empty())
        .and_then(|l| l.strip_prefix("exit code "))
        .and_then(|l| l.trim().trim_end_matches('.').parse().ok())
}
