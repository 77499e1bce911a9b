//! The help for `c ? a : b`, a conditional other languages have: the
//! lexer meets its `?` (a character Writ gives no meaning) and names the
//! `if` to write instead, with the program's own text where the line's
//! shape makes its three parts clear.
//!
//! Invariant: the work is one pass over the `?`'s line, so bounded by the
//! line's length; nothing here reports, it only words a help.

use crate::lexer::Driver;
use crate::span::Span;

/// The longest part of a conditional quoted back in the help.
const MAX_PART: usize = 60;

impl Driver<'_> {
    /// The help for a `?` at `at` when a `:` follows it on its line (so it
    /// is a conditional), or `None` when it is some other use of `?`.
    pub(super) fn conditional(&self, at: Span) -> Option<String> {
        let line_start = self
            .src
            .get(..at.start)
            .and_then(|b| b.rfind('\n'))
            .map_or(0, |i| i + 1);
        let before = self.src.get(line_start..at.start)?;
        let rest = self.src.get(at.end..)?;
        let after = rest.split('\n').next().unwrap_or("");
        let (then_part, else_start) = top_level_colon(after)?;
        let else_part = after.get(else_start..).map(top_level_prefix)?;
        let cond = condition(before);
        let parts = [cond.trim(), then_part.trim(), else_part.trim()];
        let shown = parts
            .iter()
            .all(|p| !p.is_empty() && p.len() <= MAX_PART && !p.contains('?'));
        Some(if shown {
            format!(
                "write `if {} {{ {} }} else {{ {} }}`: `if` is an expression, and has a value",
                parts[0], parts[1], parts[2]
            )
        } else {
            "write `if c { a } else { b }`: `if` is an expression, and has a value".to_string()
        })
    }
}

/// Walks `text` outside strings, calling `step` with each character's
/// offset, the character, and the bracket depth before it; stops when
/// `step` returns `true`, returning that offset.
fn walk(text: &str, mut step: impl FnMut(usize, char, i64) -> bool) -> Option<usize> {
    let mut depth = 0i64;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        if step(i, c, depth) {
            return Some(i);
        }
        match c {
            '"' => in_string = true,
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The text before the first `:` at depth 0 (not part of `::`), and the
/// offset just after that `:`.
fn top_level_colon(text: &str) -> Option<(&str, usize)> {
    let bytes = text.as_bytes();
    let at = walk(text, |i, c, depth| {
        c == ':'
            && depth == 0
            && bytes.get(i + 1) != Some(&b':')
            && (i == 0 || bytes.get(i - 1) != Some(&b':'))
    })?;
    Some((text.get(..at)?, at + 1))
}

/// The text up to where the enclosing construct goes on: a closing
/// bracket of an outer one, a `,` or `;` at depth 0, or a comment.
fn top_level_prefix(text: &str) -> &str {
    let bytes = text.as_bytes();
    let end = walk(text, |i, c, depth| {
        (depth == 0 && matches!(c, ')' | ']' | '}' | ',' | ';'))
            || (c == '/' && bytes.get(i + 1) == Some(&b'/'))
    });
    text.get(..end.unwrap_or(text.len())).unwrap_or(text)
}

/// The condition: the text before the `?` back to the start of the
/// innermost construct holding it (an open bracket, a `,`, a `;`, a `=`
/// that binds, or a `=>`).
fn condition(before: &str) -> &str {
    let bytes = before.as_bytes();
    // starts[d]: where the current piece at depth d starts.
    let mut starts: Vec<usize> = vec![0];
    walk(before, |i, c, _| {
        let next = bytes.get(i + 1).copied();
        let prev = i.checked_sub(1).and_then(|p| bytes.get(p)).copied();
        match c {
            '(' | '[' | '{' => starts.push(i + 1),
            ')' | ']' | '}' if starts.len() > 1 => {
                starts.pop();
            }
            ',' | ';' => set_last(&mut starts, i + 1),
            '=' if next == Some(b'>') => set_last(&mut starts, i + 2),
            '=' if next != Some(b'=') && !matches!(prev, Some(b'=' | b'!' | b'<' | b'>')) => {
                set_last(&mut starts, i + 1)
            }
            _ => {}
        }
        false
    });
    let from = starts.last().copied().unwrap_or(0);
    before.get(from..).unwrap_or(before)
}

fn set_last(starts: &mut [usize], at: usize) {
    if let Some(last) = starts.last_mut() {
        *last = at;
    }
}
