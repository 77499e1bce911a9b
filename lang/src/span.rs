//! Byte spans into one source text, and the line index that turns them into
//! line/column positions for people.
//!
//! Invariants: a [`Span`] is a half-open byte range `start..end` with
//! `start <= end`; every span produced by the lexer or parser lies on UTF-8
//! character boundaries of the text it was made from. [`LineIndex`] never
//! panics, whatever offset it is given: offsets past the end are clamped.

use serde::{Deserialize, Serialize};

/// A half-open byte range `start..end` into a source text.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct Span {
    /// First byte of the range.
    pub start: usize,
    /// One past the last byte of the range.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end`; the bounds are swapped if given backwards.
    pub fn new(start: usize, end: usize) -> Span {
        if start <= end {
            Span { start, end }
        } else {
            Span {
                start: end,
                end: start,
            }
        }
    }

    /// An empty span at `offset`.
    pub fn point(offset: usize) -> Span {
        Span {
            start: offset,
            end: offset,
        }
    }

    /// The smallest span covering both `self` and `other`.
    pub fn join(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// Number of bytes covered.
    pub fn len(self) -> usize {
        self.end - self.start
    }

    /// Whether the span covers no bytes.
    pub fn is_empty(self) -> bool {
        self.start == self.end
    }

    /// The span's bytes within `text`: cut to its length, and widened to
    /// character boundaries (where a diagnostic's label is drawn, whatever
    /// span it was given).
    pub fn within(self, text: &str) -> std::ops::Range<usize> {
        let mut start = self.start.min(text.len());
        let mut end = self.end.min(text.len()).max(start);
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        while !text.is_char_boundary(end) {
            end += 1;
        }
        start..end
    }
}

impl From<std::ops::Range<usize>> for Span {
    fn from(r: std::ops::Range<usize>) -> Span {
        Span::new(r.start, r.end)
    }
}

/// A position for people: 1-based line and 1-based column counted in
/// Unicode scalar values (characters), plus the byte offset it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Position {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// 0-based byte offset into the source.
    pub offset: usize,
}

/// Start offsets of every line of a text, for offset → line/column lookups.
#[derive(Clone, Debug)]
pub struct LineIndex<'a> {
    text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    /// Index the lines of `text` (lines end at `\n`).
    pub fn new(text: &'a str) -> LineIndex<'a> {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { text, line_starts }
    }

    /// Index the lines of `text` whose first line starts at byte `base`
    /// (the text before it is padding on that line, as
    /// [`crate::parse_at`] makes it): columns on the first line count
    /// from `base`.
    pub fn starting_at(text: &'a str, base: usize) -> LineIndex<'a> {
        let mut index = LineIndex::new(text);
        let first_break = index.line_starts.get(1).copied().unwrap_or(usize::MAX);
        if let Some(first) = index.line_starts.first_mut() {
            *first = base.min(text.len()).min(first_break.saturating_sub(1));
        }
        index
    }

    /// The byte offset where the line holding `offset` starts (O(log n)).
    pub fn line_start(&self, offset: usize) -> usize {
        let i = self.line_starts.partition_point(|&s| s <= offset);
        i.checked_sub(1)
            .and_then(|k| self.line_starts.get(k))
            .copied()
            .unwrap_or(0)
    }

    /// The 0-based number of the line holding `offset` (O(log n)).
    pub fn line_number(&self, offset: usize) -> usize {
        self.line_starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }

    /// The position of byte `offset`, clamped to the text and moved back to
    /// the nearest character boundary.
    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let start = self.line_starts.get(line).copied().unwrap_or(0);
        let column = self
            .text
            .get(start..offset)
            .map_or(0, |s| s.chars().count())
            + 1;
        Position {
            line: line + 1,
            column,
            offset,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_within_a_text_is_cut_to_it_on_character_boundaries() {
        let text = "aé€b";
        assert_eq!(Span::new(2, 5).within(text), 1..6);
        assert_eq!(Span::new(4, 100).within(text), 3..7);
        assert_eq!(Span::point(100).within(text), 7..7);
        assert_eq!(Span::new(0, 1).within(""), 0..0);
    }

    #[test]
    fn a_text_starting_later_counts_columns_from_its_start() {
        let text = "     ab\ncd";
        let idx = LineIndex::starting_at(text, 5);
        assert_eq!((idx.position(6).line, idx.position(6).column), (1, 2));
        assert_eq!((idx.position(9).line, idx.position(9).column), (2, 2));
        // Offsets in the padding, or past the end, do not panic.
        assert_eq!(idx.position(2).column, 1);
        let _ = idx.position(100);
        let short = LineIndex::starting_at("ab", 50);
        let _ = short.position(1);
        let broken = LineIndex::starting_at("\n\nx", 7);
        assert_eq!(broken.position(2).line, 3);
    }

    #[test]
    fn positions_count_characters_not_bytes() {
        let idx = LineIndex::new("ab\nπx\n");
        assert_eq!(
            idx.position(0),
            Position {
                line: 1,
                column: 1,
                offset: 0
            }
        );
        assert_eq!(
            idx.position(3),
            Position {
                line: 2,
                column: 1,
                offset: 3
            }
        );
        assert_eq!(
            idx.position(5),
            Position {
                line: 2,
                column: 2,
                offset: 5
            }
        );
        // Inside the two-byte `π`: moved back to its start.
        assert_eq!(
            idx.position(4),
            Position {
                line: 2,
                column: 1,
                offset: 3
            }
        );
        // Past the end: clamped.
        assert_eq!(idx.position(99).offset, 7);
    }

    #[test]
    fn span_join_and_new_are_ordered() {
        assert_eq!(Span::new(5, 2), Span { start: 2, end: 5 });
        assert_eq!(Span::new(1, 2).join(Span::new(7, 9)), Span::new(1, 9));
    }
}
