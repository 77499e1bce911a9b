//! Excerpts of a source text, for drawing a diagnostic whose labels touch a
//! very long line.
//!
//! ariadne draws every character of each line a diagnostic shows, so a
//! diagnostic on a 4 MiB line costs milliseconds to draw, and a hundred of
//! them seconds. An [`Excerpt`] is a text with the same line numbers as
//! the source (the lines before the labels are blank), holding the lines
//! from the first label to the last, in which each line longer than
//! [`LONG_LINE`] bytes keeps only [`CONTEXT`] bytes either side of each
//! label's ends and the start and end of its line, with [`GAP`] where
//! something was left out. Drawing from it costs the same whatever the
//! length of the line.
//!
//! Invariants: an excerpt is only made when some line it would hold is
//! longer than [`LONG_LINE`] (a diagnostic on shorter lines is drawn from
//! the text itself, byte for byte as before); every label end is kept, and
//! [`Excerpt::map`] moves it to the same character of the excerpt; cuts
//! fall on character boundaries.

use std::ops::Range;

use writ_lang::LineIndex;

/// Lines longer than this many bytes are shortened.
pub(super) const LONG_LINE: usize = 2048;

/// Bytes kept either side of each label's ends on a shortened line.
pub(super) const CONTEXT: usize = 120;

/// What marks the place of left-out text.
pub(super) const GAP: &str = "…";

/// A text to draw a diagnostic from (see the module's documentation).
pub(super) struct Excerpt {
    /// The excerpt.
    pub(super) text: String,
    /// The parts of the source kept: (start in the source, end in the
    /// source, start in the excerpt), in order.
    pieces: Vec<(usize, usize, usize)>,
    /// The length in bytes of the longest line shortened.
    longest: usize,
}

impl Excerpt {
    /// The excerpt of `text` (whose lines are `lines`) for labels covering
    /// `ranges` (within `text`, on character boundaries), or `None` when no
    /// line from the first label to the last is longer than [`LONG_LINE`].
    pub(super) fn of(text: &str, lines: &LineIndex<'_>, ranges: &[Range<usize>]) -> Option<Self> {
        let lo = ranges.iter().map(|r| r.start).min()?;
        let hi = ranges.iter().map(|r| r.end).max()?;
        // The lines from the first label to the last: (start, end before
        // the line break).
        let mut spanned = Vec::new();
        let mut start = lines.line_start(lo);
        loop {
            let end = text
                .get(start..)
                .and_then(|rest| rest.find('\n'))
                .map_or(text.len(), |i| start + i);
            spanned.push(start..end);
            if hi <= end || end >= text.len() {
                break;
            }
            start = end + 1;
        }
        let longest = spanned.iter().map(ExactSizeIterator::len).max()?;
        if longest <= LONG_LINE {
            return None;
        }
        let first = lines.line_number(lo);
        let mut ex = Excerpt {
            text: "\n".repeat(first),
            pieces: Vec::new(),
            longest,
        };
        let ends: Vec<usize> = ranges.iter().flat_map(|r| [r.start, r.end]).collect();
        for line in spanned {
            if line.len() <= LONG_LINE {
                ex.keep(text, line.clone());
            } else {
                ex.keep_parts(text, line.clone(), &ends);
            }
            ex.text.push('\n');
        }
        Some(ex)
    }

    /// Copy `text[range]` to the excerpt.
    fn keep(&mut self, text: &str, range: Range<usize>) {
        self.pieces.push((range.start, range.end, self.text.len()));
        self.text.push_str(text.get(range).unwrap_or(""));
    }

    /// Copy the parts of the long line `line` around `ends` (and its first
    /// and last [`CONTEXT`] bytes), with [`GAP`] between them.
    fn keep_parts(&mut self, text: &str, line: Range<usize>, ends: &[usize]) {
        let mut parts: Vec<Range<usize>> = ends
            .iter()
            .copied()
            .chain([line.start, line.end])
            .filter(|p| line.contains(p) || *p == line.end)
            .map(|p| {
                let from = floor(text, p.saturating_sub(CONTEXT).max(line.start));
                let to = ceil(text, (p + CONTEXT).min(line.end));
                from..to
            })
            .collect();
        parts.sort_by_key(|r| r.start);
        let mut at = line.start;
        for part in merge(parts) {
            if part.start > at {
                self.text.push_str(GAP);
            }
            self.keep(text, part.clone());
            at = part.end;
        }
        if at < line.end {
            self.text.push_str(GAP);
        }
    }

    /// Where source offset `offset` (a label's end) is in the excerpt.
    pub(super) fn map(&self, offset: usize) -> usize {
        let i = self
            .pieces
            .partition_point(|&(start, _, _)| start <= offset);
        match i.checked_sub(1).and_then(|k| self.pieces.get(k)) {
            Some(&(start, end, at)) => at + offset.min(end) - start,
            None => self.text.len(),
        }
    }

    /// The note saying that the excerpt is one.
    pub(super) fn note(&self) -> String {
        format!(
            "the line is {} bytes long; only the parts around the labels are shown, \
             and `{GAP}` marks what is left out",
            self.longest
        )
    }
}

/// Join overlapping or touching ranges (sorted by start).
fn merge(parts: Vec<Range<usize>>) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    for p in parts {
        match out.last_mut() {
            Some(last) if p.start <= last.end => last.end = last.end.max(p.end),
            _ => out.push(p),
        }
    }
    out
}

/// `at`, moved back to a character boundary of `text`.
fn floor(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// `at`, moved on to a character boundary of `text`.
fn ceil(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lines_make_no_excerpt() {
        let text = format!("a\n{}\nb", "x".repeat(LONG_LINE));
        let lines = LineIndex::new(&text);
        let label = 2..5;
        assert!(Excerpt::of(&text, &lines, std::slice::from_ref(&label)).is_none());
    }

    #[test]
    fn a_long_line_keeps_the_label_and_its_context() {
        let text = format!("first\n{}NAME{}\nlast", "é".repeat(2000), "x".repeat(3000));
        let lines = LineIndex::new(&text);
        let at = text.find("NAME").unwrap_or(0);
        let label = at..at + 4;
        let ex = Excerpt::of(&text, &lines, std::slice::from_ref(&label)).expect("an excerpt");
        let (from, to) = (ex.map(at), ex.map(at + 4));
        assert_eq!(&ex.text[from..to], "NAME");
        // Same line number: one blank line stands for `first`.
        assert!(ex.text.starts_with("\n"));
        assert_eq!(ex.text.lines().count(), 2);
        assert!(ex.text.len() < 6 * CONTEXT + 20, "{} bytes", ex.text.len());
        assert_eq!(ex.text.matches(GAP).count(), 2);
        assert!(ex.note().contains(&format!("{} bytes", 4000 + 4 + 3000)));
    }
}
