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

/// What an escape in a string decoded to.
pub(super) enum Escape {
    /// A character, and the offset just past the escape.
    Char(char, usize),
    /// An invalid escape (reported), and the offset just past it.
    Bad(usize),
    /// A backslash before a line break, which is at this offset.
    Break(usize),
    /// A backslash at the end of the input.
    End,
}

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
        let mut text = String::new();
        let mut pos = start;
        while let Some(c) = self.src.get(pos..).and_then(|r| r.chars().next()) {
            match c {
                '"' => return (text, StrEnd::Quote, pos + 1),
                '\n' => return (text, StrEnd::Unterminated, pos),
                '$' if self.src.as_bytes().get(pos + 1) == Some(&b'{') => {
                    return (text, StrEnd::Interp, pos + 2);
                }
                '\\' => match self.escape_at(pos) {
                    Escape::Char(ch, next) => {
                        text.push(ch);
                        pos = next;
                    }
                    Escape::Bad(next) => pos = next,
                    // A backslash ending the line: the string is
                    // unterminated, reported once by `string_part`.
                    Escape::Break(at) => return (text, StrEnd::Unterminated, at),
                    Escape::End => return (text, StrEnd::Unterminated, self.src.len()),
                },
                c => {
                    text.push(c);
                    pos += c.len_utf8();
                }
            }
        }
        (text, StrEnd::Unterminated, self.src.len())
    }

    /// Decode the escape whose backslash is at byte `at`, reporting an
    /// invalid one (`E0003`).
    pub(super) fn escape_at(&mut self, at: usize) -> Escape {
        let Some(e) = self.src.get(at + 1..).and_then(|r| r.chars().next()) else {
            return Escape::End;
        };
        let after = at + 1 + e.len_utf8();
        let c = match e {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            '0' => '\0',
            '\\' => '\\',
            '"' => '"',
            '$' => '$',
            'u' => {
                let rest = self.src.get(after..).unwrap_or("");
                let (decoded, used) = decode_unicode_escape(rest);
                let end = after + rest.chars().take(used).map(char::len_utf8).sum::<usize>();
                return match decoded {
                    Ok(ch) => Escape::Char(ch, end),
                    Err(why) => {
                        self.error(
                            Diagnostic::new(
                                Code::InvalidEscape,
                                format!("invalid unicode escape: {why}"),
                            )
                            .with_primary(Span::new(at, end), "this escape")
                            .with_help("write `\\u{...}` with 1 to 6 hex digits naming a Unicode scalar value, e.g. `\\u{e9}`"),
                        );
                        Escape::Bad(end)
                    }
                };
            }
            '\n' => return Escape::Break(at + 1),
            other => {
                self.error(
                    Diagnostic::new(
                        Code::InvalidEscape,
                        format!("expected an escape sequence after `\\`, found `{}`", other.escape_debug()),
                    )
                    .with_primary(Span::new(at, after), "unknown escape")
                    .with_help("the escapes are \\n \\t \\r \\0 \\\\ \\\" \\$ and \\u{...}; write `\\\\` for a backslash"),
                );
                return Escape::Bad(after);
            }
        };
        Escape::Char(c, after)
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
                    .push((0, Span::new(next.saturating_sub(2), next), None));
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
    /// interpolation, like the string around it, cannot span lines. When
    /// the outermost was in a multi-line string, that string goes on from
    /// `at`: returns where lexing resumes, after it.
    ///
    /// At most two diagnostics are built: for the innermost level kept
    /// (the one shown: the others say the same at the same place, and are
    /// dropped as duplicates of it), and for the outermost, whose region,
    /// from its `${` to `at`, holds all the others' (the parser stays
    /// quiet inside it). Building one per level made a line of deep `${`
    /// cost a diagnostic per level.
    pub(super) fn end_interpolations(&mut self, at: usize, found: &str) -> Option<usize> {
        let mut resume = None;
        let mut reported = false;
        while let Some((_, open, multi)) = self.interp.pop() {
            let outermost = self.interp.is_empty();
            if outermost || (!reported && !self.too_deep()) {
                reported = true;
                self.report_unclosed_interpolation(at, found, open, multi.is_some());
            }
            self.push(Token::StrTail(String::new()), Span::point(at));
            if let Some(m) = multi
                && at < self.src.len()
            {
                // The rest of the multi-line string is read as a string of
                // its own, so that its text is not lexed as code.
                resume = Some(self.multi_part(at, at, true, m, false));
                break;
            }
        }
        resume
    }

    /// Report the `${` opened at `open` as not closed at `at`.
    fn report_unclosed_interpolation(&mut self, at: usize, found: &str, open: Span, multi: bool) {
        self.error(
            Diagnostic::new(
                Code::UnterminatedInterpolation,
                format!("expected `}}` to close the interpolation, found {found}"),
            )
            .with_primary(Span::point(at), "expected `}` here")
            .with_secondary(open, "interpolation starts here")
            .with_help(if multi {
                "close the expression with `}` on the same line"
            } else {
                "close the expression with `}` and the string with `\"` on the same line"
            }),
        );
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
