//! Multi-line string literals: `"""` at the end of a line, text lines, and
//! `"""` first on a line of its own
//! ([decision 011](../../../docs/decisions/011-multi-line-strings.md)).
//!
//! The text is the lines between the two delimiters, joined with `\n`,
//! less the closing delimiter's indentation, which every line that is not
//! blank must start with (`E0015` otherwise); the line break after the
//! opening `"""` and the one before the closing line are not part of it.
//! Escapes and `${...}` are those of ordinary strings, and an interpolation
//! stays on its line.
//!
//! Invariants: the closing line is found by one scan forward from the
//! opening, and the text is then scanned once (an interpolation resumes
//! where it stopped), so a literal costs time linear in its length; the
//! deceptive characters rejected anywhere in a file (bidirectional
//! controls, misleading line breaks) are rejected here too, by the
//! lexer's scan of the whole file.

use crate::diagnostic::{Code, Diagnostic};
use crate::lexer::Driver;
use crate::lexer::text::{Escape, StrEnd};
use crate::span::Span;
use crate::token::Token;

/// Where a multi-line string ends.
#[derive(Clone, Copy, Debug)]
pub(super) struct Multi {
    /// The start of the closing line.
    close: usize,
    /// The bytes of indentation (spaces and tabs) before the closing `"""`.
    indent: usize,
    /// The offset just past the closing `"""`.
    end: usize,
}

impl Driver<'_> {
    /// Lex a multi-line string whose opening `"""` starts at `open`;
    /// returns the offset just past it.
    pub(super) fn multi_line_string(&mut self, open: usize) -> usize {
        let src = self.src;
        let opener = Span::new(open, open + 3);
        let after = open + 3;
        let first_line = src
            .get(after..)
            .and_then(|r| r.split('\n').next())
            .unwrap_or("");
        let body = match src.get(after..).and_then(|r| r.find('\n')) {
            Some(i) => after + i + 1,
            None => src.len(),
        };
        let extra = first_line.trim_end_matches('\r');
        if !extra.trim_matches([' ', '\t']).is_empty() {
            let start = after + (extra.len() - extra.trim_start_matches([' ', '\t']).len());
            self.error(
                Diagnostic::new(
                    Code::MultiLineStringLayout,
                    format!(
                        "expected a line break after the opening `\"\"\"` of a multi-line string, found `{}`",
                        shorten(extra.trim())
                    ),
                )
                .with_primary(Span::new(start, after + extra.len()), "text after `\"\"\"`")
                .with_secondary(opener, "multi-line string starts here")
                .with_help("start the text on the next line; for a string on one line, use `\"...\"`"),
            );
        }
        let Some(m) = closing_line(src, body) else {
            self.error(
                Diagnostic::new(
                    Code::UnterminatedString,
                    "expected `\"\"\"` at the start of a line to close the multi-line string, found the end of input",
                )
                .with_primary(Span::point(src.len()), "expected `\"\"\"` here")
                .with_secondary(opener, "multi-line string starts here")
                .with_help("end the string with a line holding `\"\"\"`, indented as its text is"),
            );
            self.push(Token::Str(String::new()), Span::new(open, src.len()));
            return src.len();
        };
        self.multi_part(open, body, true, m, true)
    }

    /// Lex a part of a multi-line string that began at `open` (its `"""`
    /// or a `}`), whose text starts at `text_start` (at the start of a line
    /// when `line_start`). Returns the offset just past the part.
    pub(super) fn multi_part(
        &mut self,
        open: usize,
        text_start: usize,
        head: bool,
        m: Multi,
        line_start: bool,
    ) -> usize {
        let (text, end, next) = self.scan_multi(text_start, m, line_start);
        let span = Span::new(open, next);
        match end {
            StrEnd::Interp => {
                self.push(
                    if head {
                        Token::StrHead(text)
                    } else {
                        Token::StrMid(text)
                    },
                    span,
                );
                self.interp
                    .push((0, Span::new(next.saturating_sub(2), next), Some(m)));
            }
            StrEnd::Quote | StrEnd::Unterminated => self.push(
                if head {
                    Token::Str(text)
                } else {
                    Token::StrTail(text)
                },
                span,
            ),
        }
        next
    }

    /// Scan multi-line string text from `pos` up to its closing line.
    fn scan_multi(
        &mut self,
        mut pos: usize,
        m: Multi,
        mut line_start: bool,
    ) -> (String, StrEnd, usize) {
        let src = self.src;
        let indent = src.get(m.close..m.close + m.indent).unwrap_or("");
        let mut text = String::new();
        while pos < m.close {
            if line_start {
                line_start = false;
                let line = src
                    .get(pos..m.close)
                    .and_then(|r| r.split('\n').next())
                    .unwrap_or("");
                if line.trim_matches([' ', '\t', '\r']).is_empty() {
                    // A blank line is an empty line, whatever its spaces.
                    pos += line.len();
                    continue;
                }
                if line.starts_with(indent) {
                    pos += indent.len();
                } else {
                    let lead = line.len() - line.trim_start_matches([' ', '\t']).len();
                    self.error(
                        Diagnostic::new(
                            Code::MultiLineStringLayout,
                            format!(
                                "expected each line of a multi-line string to start with the closing `\"\"\"`'s indentation ({}), found a line that does not",
                                describe_indent(indent)
                            ),
                        )
                        .with_primary(Span::new(pos, pos + lead.max(1)), "indented less than the closing `\"\"\"`")
                        .with_secondary(Span::new(m.close + m.indent, m.end), "the closing `\"\"\"` sets the indentation")
                        .with_help("indent every line at least as far as the closing `\"\"\"`, with the same spaces or tabs"),
                    );
                    pos += lead;
                }
                continue;
            }
            let Some(c) = src.get(pos..).and_then(|r| r.chars().next()) else {
                break;
            };
            match c {
                '\n' => {
                    pos += 1;
                    line_start = true;
                    if pos < m.close {
                        text.push('\n');
                    }
                }
                '\r' if src.as_bytes().get(pos + 1) == Some(&b'\n') => pos += 1,
                '$' if src.as_bytes().get(pos + 1) == Some(&b'{') => {
                    return (text, StrEnd::Interp, pos + 2);
                }
                '\\' => match self.escape_at(pos) {
                    Escape::Char(ch, next) => {
                        text.push(ch);
                        pos = next;
                    }
                    Escape::Bad(next) => pos = next,
                    Escape::Break(at) => {
                        self.error(
                            Diagnostic::new(
                                Code::InvalidEscape,
                                "expected an escape sequence after `\\`, found a line break",
                            )
                            .with_primary(Span::new(pos, at), "backslash before a line break")
                            .with_help("a multi-line string keeps its line breaks; write `\\\\` for a backslash"),
                        );
                        pos = at;
                    }
                    Escape::End => break,
                },
                c => {
                    text.push(c);
                    pos += c.len_utf8();
                }
            }
        }
        (text, StrEnd::Quote, m.end)
    }
}

/// The closing line of a multi-line string whose text starts at `body`:
/// the first line from there whose first characters other than spaces and
/// tabs are `"""`.
fn closing_line(src: &str, body: usize) -> Option<Multi> {
    let mut start = body;
    while start < src.len() {
        let line = src.get(start..)?.split('\n').next()?;
        let trimmed = line.trim_start_matches([' ', '\t']);
        if trimmed.starts_with("\"\"\"") {
            let indent = line.len() - trimmed.len();
            return Some(Multi {
                close: start,
                indent,
                end: start + indent + 3,
            });
        }
        start += line.len() + 1;
    }
    None
}

/// The indentation in words: "4 spaces", "1 tab", "none".
fn describe_indent(indent: &str) -> String {
    if indent.is_empty() {
        return "none".to_string();
    }
    let spaces = indent.chars().filter(|c| *c == ' ').count();
    let tabs = indent.len() - spaces;
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    match (spaces, tabs) {
        (s, 0) => plural(s, "space"),
        (0, t) => plural(t, "tab"),
        (s, t) => format!("{} and {}", plural(s, "space"), plural(t, "tab")),
    }
}

/// At most 40 characters of `text`, for a message.
fn shorten(text: &str) -> String {
    if text.chars().count() <= 40 {
        text.to_string()
    } else {
        text.chars().take(40).collect::<String>() + "…"
    }
}
