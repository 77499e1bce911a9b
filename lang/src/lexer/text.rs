//! String literals, interpolation boundaries, single-quoted text and block
//! comments: the parts of lexing that scan by hand rather than with logos.
//!
//! Invariant: a string part never extends past the end of its line; every
//! `${` pushed on the interpolation stack is matched by exactly one
//! [`Token::StrMid`] or [`Token::StrTail`].

use crate::diagnostic::{Code, Diagnostic};
use crate::lexer::Driver;
use crate::span::Span;
use crate::token::Token;

/// How a string literal's text part ended.
pub(super) enum StrEnd {
    /// At a closing `"`.
    Quote,
    /// At `${`: an interpolated expression follows.
    Interp,
    /// At a line break or the end of input.
    Unterminated,
}

impl Driver<'_> {
    /// Scan string text starting at byte `start` (just after `"` or `}`).
    /// Returns the decoded text, how it ended and the offset just past it.
    fn scan_string(&mut self, start: usize) -> (String, StrEnd, usize) {
        let rest = self.src.get(start..).unwrap_or("");
        let mut text = String::new();
        let mut chars = rest.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            let at = start + i;
            match c {
                '"' => return (text, StrEnd::Quote, at + 1),
                '\n' => return (text, StrEnd::Unterminated, at),
                '$' if matches!(chars.peek(), Some((_, '{'))) => {
                    return (text, StrEnd::Interp, at + 2);
                }
                '\\' => {
                    let Some((j, e)) = chars.next() else {
                        return (text, StrEnd::Unterminated, start + rest.len());
                    };
                    match e {
                        'n' => text.push('\n'),
                        't' => text.push('\t'),
                        'r' => text.push('\r'),
                        '0' => text.push('\0'),
                        '\\' => text.push('\\'),
                        '"' => text.push('"'),
                        '$' => text.push('$'),
                        'u' => {
                            let (decoded, used) =
                                decode_unicode_escape(rest.get(j + 1..).unwrap_or(""));
                            for _ in 0..used {
                                chars.next();
                            }
                            let span = Span::new(at, start + j + 1 + used);
                            match decoded {
                                Ok(ch) => text.push(ch),
                                Err(why) => self.error(
                                    Diagnostic::new(
                                        Code::InvalidEscape,
                                        format!("invalid unicode escape: {why}"),
                                    )
                                    .with_primary(span, "this escape")
                                    .with_help("write `\\u{...}` with 1 to 6 hex digits naming a Unicode scalar value, e.g. `\\u{e9}`"),
                                ),
                            }
                        }
                        // A backslash ending the line: the string is
                        // unterminated, reported once by `string_part`.
                        '\n' => return (text, StrEnd::Unterminated, start + j),
                        other => {
                            let span = Span::new(at, start + j + other.len_utf8());
                            self.error(
                                Diagnostic::new(
                                    Code::InvalidEscape,
                                    format!("expected an escape sequence after `\\`, found `{}`", other.escape_debug()),
                                )
                                .with_primary(span, "unknown escape")
                                .with_help("the escapes are \\n \\t \\r \\0 \\\\ \\\" \\$ and \\u{...}; write `\\\\` for a backslash"),
                            );
                        }
                    }
                }
                c => text.push(c),
            }
        }
        (text, StrEnd::Unterminated, start + rest.len())
    }

    /// Lex a string part that began at `open` (its `"` or `}`), whose text
    /// starts at `text_start`. `head` says whether it began with `"`.
    /// Returns the offset just past the part.
    pub(super) fn string_part(&mut self, open: usize, text_start: usize, head: bool) -> usize {
        let (text, end, next) = self.scan_string(text_start);
        let span = Span::new(open, next);
        // The token for a part that ends the string.
        let last = |text| {
            if head {
                Token::Str(text)
            } else {
                Token::StrTail(text)
            }
        };
        match end {
            StrEnd::Quote => self.push(last(text), span),
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
                    .push((0, Span::new(next.saturating_sub(2), next)));
            }
            StrEnd::Unterminated => {
                {
                    let found = if next >= self.src.len() {
                        "the end of input"
                    } else {
                        "the end of the line"
                    };
                    let start_span = Span::new(open, open + 1);
                    self.error(
                        Diagnostic::new(
                            Code::UnterminatedString,
                            format!("expected `\"` to close the string, found {found}"),
                        )
                        .with_primary(Span::point(next), "expected `\"` here")
                                .with_secondary(
                            start_span,
                            if head { "string starts here" } else { "string continues here" },
                        )
                        .with_help("strings cannot span lines; close the string, or write `\\n` for a line break"),
                    );
                }
                self.push(last(text), span);
            }
        }
        next
    }

    /// Close every open `${` at `at` (a line end or the end of input): an
    /// interpolation, like the string around it, cannot span lines.
    pub(super) fn end_interpolations(&mut self, at: usize, found: &str) {
        while let Some((_, open)) = self.interp.pop() {
            self.error(
                Diagnostic::new(
                    Code::UnterminatedInterpolation,
                    format!("expected `}}` to close the interpolation, found {found}"),
                )
                .with_primary(Span::point(at), "expected `}` here")
                .with_secondary(open, "interpolation starts here")
                .with_help(
                    "close the expression with `}` and the string with `\"` on the same line",
                ),
            );
            self.push(Token::StrTail(String::new()), Span::point(at));
        }
    }

    /// `'text'` on one line: reported once as a string in the wrong quotes,
    /// and lexed as a string so parsing goes on. Returns the offset past the
    /// closing `'`, or `None` if there is none on the line.
    pub(super) fn single_quoted(&mut self, start: usize) -> Option<usize> {
        let rest = self.src.get(start + 1..)?;
        let line = rest.split('\n').next().unwrap_or("");
        // Find the closing `'`, skipping escaped characters.
        let mut text = String::new();
        let mut close = None;
        let mut chars = line.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\'' => {
                    close = Some(i);
                    break;
                }
                '\\' => match chars.next() {
                    Some((_, '\'')) => text.push('\''),
                    Some((_, e)) => {
                        text.push('\\');
                        text.push(e);
                    }
                    None => {}
                },
                c => text.push(c),
            }
        }
        let close = close?;
        let end = start + 1 + close + 1;
        self.error(
            Diagnostic::new(
                Code::UnknownCharacter,
                "expected a string in double quotes, found single quotes",
            )
            .with_primary(Span::new(start, end), "single-quoted text")
            .with_help(format!(
                "write \"{}\"",
                text.replace('"', "\\\"").replace('\n', "\\n")
            )),
        );
        self.push(Token::Str(text), Span::new(start, end));
        Some(end)
    }

    /// Skip a (nested) block comment starting at `start`; returns the offset
    /// just past it.
    pub(super) fn block_comment(&mut self, start: usize) -> usize {
        let bytes = self.src.as_bytes();
        let mut depth = 0usize;
        let mut i = start;
        while let (Some(&a), Some(&b)) = (bytes.get(i), bytes.get(i + 1)) {
            match (a, b) {
                (b'/', b'*') => {
                    depth += 1;
                    i += 2;
                }
                (b'*', b'/') => {
                    depth = depth.saturating_sub(1);
                    i += 2;
                    if depth == 0 {
                        return i;
                    }
                }
                _ => i += 1,
            }
        }
        self.error(
            Diagnostic::new(
                Code::UnterminatedComment,
                "expected `*/` to close the block comment, found the end of input",
            )
            .with_primary(Span::new(start, start + 2), "comment starts here")
            .with_help("add `*/` where the comment ends (block comments nest: each `/*` needs its own `*/`)"),
        );
        self.src.len()
    }
}

/// Decode the `{XXXX}` part of a `\u{XXXX}` escape at the start of `rest`.
/// Returns the character (or why not) and how many characters were used.
fn decode_unicode_escape(rest: &str) -> (Result<char, String>, usize) {
    if !rest.starts_with('{') {
        return (Err("expected `{` after `\\u`".to_string()), 0);
    }
    // The closing `}` must come within the escape, before the string or the
    // line ends.
    let stop = rest
        .char_indices()
        .skip(1)
        .take(8)
        .find(|(_, c)| matches!(c, '}' | '"' | '\n'));
    let close = match stop {
        Some((i, '}')) => i,
        Some((i, _)) => {
            let used = rest.get(..i).map_or(1, |t| t.chars().count());
            return (Err("expected `}` to close `\\u{`".to_string()), used);
        }
        None => {
            let used = rest.chars().take(9).count();
            return (
                Err("expected `}` to close `\\u{` within 6 hex digits".to_string()),
                used,
            );
        }
    };
    let inner = rest.get(1..close).unwrap_or("");
    let used = rest.get(..=close).map_or(0, |t| t.chars().count());
    if inner.is_empty() || inner.len() > 6 || !inner.chars().all(|c| c.is_ascii_hexdigit()) {
        return (
            Err(format!(
                "`{}` is not 1 to 6 hex digits",
                inner.escape_debug()
            )),
            used,
        );
    }
    match u32::from_str_radix(inner, 16).ok().and_then(char::from_u32) {
        Some(c) => (Ok(c), used),
        None => (
            Err(format!("U+{inner} is not a Unicode scalar value")),
            used,
        ),
    }
}
