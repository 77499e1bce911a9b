//! Source text → tokens.
//!
//! The lexer never stops early: every byte of input ends up in a token, a
//! skipped comment or whitespace, or an [`Token::Error`] token with a
//! diagnostic. Literals are decoded here (escapes, numbers with range checks),
//! so later stages see values, not text.
//!
//! Strings with `${...}` interpolation are split into [`Token::StrHead`],
//! the tokens of each embedded expression, [`Token::StrMid`] between them, and
//! [`Token::StrTail`]; a stack of brace depths tells a `}` that ends an
//! interpolation from one that closes a block inside it.
//!
//! Invariants: token spans are non-overlapping, increasing, and lie on
//! character boundaries; a string literal never spans a line break (an
//! unterminated string ends at the end of its line), so one missing quote
//! cannot swallow the rest of the file.

use logos::Logos;

use crate::diagnostic::{Code, Diagnostic};
use crate::span::Span;
use crate::token::Token;

/// Lexer output: tokens with their spans, and every lexical diagnostic.
#[derive(Clone, Debug, Default)]
pub struct Lexed {
    /// The tokens in source order.
    pub tokens: Vec<(Token, Span)>,
    /// Diagnostics found while lexing.
    pub diagnostics: Vec<Diagnostic>,
}

/// The raw token classes logos recognises; the driver below turns them into
/// [`Token`]s, decoding literals and handling strings and block comments.
#[derive(Logos, Clone, Copy, Debug, PartialEq)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
enum Raw {
    #[regex(r"///[^\n]*", priority = 20, allow_greedy = true)]
    DocComment,
    #[token("/*")]
    BlockCommentStart,
    #[token("\"")]
    Quote,
    #[regex(r"[0-9][0-9_]*")]
    Int,
    #[regex(r"[0-9][0-9_]*\.[0-9][0-9_]*([eE][+-]?[0-9]+)?")]
    #[regex(r"[0-9][0-9_]*[eE][+-]?[0-9]+")]
    Float,
    #[regex(r"[\p{Lu}\p{Lt}][\p{L}\p{M}\p{N}_]*")]
    Upper,
    #[regex(r"[\p{Ll}\p{Lm}\p{Lo}_][\p{L}\p{M}\p{N}_]*")]
    Lower,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token(",")]
    Comma,
    #[token(":")]
    Colon,
    #[token(";")]
    Semi,
    #[token(".")]
    Dot,
    #[token("..")]
    DotDot,
    #[token("->")]
    Arrow,
    #[token("=>")]
    FatArrow,
    #[token("=")]
    Assign,
    #[token("|>")]
    Pipe,
    #[token("|")]
    Bar,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("++")]
    PlusPlus,
    #[token("==")]
    EqEq,
    #[token("!=")]
    NotEq,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
    #[token("!")]
    Bang,
}

/// Words that are keywords.
fn keyword(word: &str) -> Option<Token> {
    Some(match word {
        "fn" => Token::Fn,
        "let" => Token::Let,
        "type" => Token::Type,
        "effect" => Token::Effect,
        "match" => Token::Match,
        "if" => Token::If,
        "else" => Token::Else,
        "handle" => Token::Handle,
        "with" => Token::With,
        "return" => Token::Return,
        "true" => Token::True,
        "false" => Token::False,
        "_" => Token::Underscore,
        _ => return None,
    })
}

/// Words reserved so that a program using them gets a clear message (and so
/// that the language can grow into them).
pub const RESERVED_WORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "do", "for", "import", "in", "loop",
    "mod", "mut", "pub", "self", "struct", "trait", "use", "var", "where", "while", "yield",
];

/// Bidirectional-text controls that can make source display in an order
/// different from the one it is parsed in ("Trojan Source").
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Characters that draw nothing, which could hide text inside a name.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}' | '\u{00AD}'
    )
}

/// The script buckets that matter for look-alike letters.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Script {
    Latin,
    Greek,
    Cyrillic,
    Fullwidth,
    Other,
}

fn script_of(c: char) -> Option<Script> {
    if !c.is_alphabetic() {
        return None;
    }
    Some(match c as u32 {
        0x41..=0x5A | 0x61..=0x7A | 0xC0..=0x24F | 0x1E00..=0x1EFF => Script::Latin,
        0x370..=0x3FF | 0x1F00..=0x1FFF => Script::Greek,
        0x400..=0x52F | 0x1C80..=0x1C8F | 0x2DE0..=0x2DFF | 0xA640..=0xA69F => Script::Cyrillic,
        0xFF21..=0xFF3A | 0xFF41..=0xFF5A => Script::Fullwidth,
        _ => Script::Other,
    })
}

/// If `name` mixes two of the scripts whose letters look alike, the two.
fn mixed_scripts(name: &str) -> Option<(Script, Script)> {
    let mut first: Option<Script> = None;
    for s in name.chars().filter_map(script_of) {
        if s == Script::Other {
            continue;
        }
        match first {
            None => first = Some(s),
            Some(f) if f != s => return Some((f, s)),
            Some(_) => {}
        }
    }
    None
}

fn script_name(s: Script) -> &'static str {
    match s {
        Script::Latin => "Latin",
        Script::Greek => "Greek",
        Script::Cyrillic => "Cyrillic",
        Script::Fullwidth => "full-width Latin",
        Script::Other => "other",
    }
}

/// How a string literal's text part ended.
enum StrEnd {
    /// At a closing `"`.
    Quote,
    /// At `${`: an interpolated expression follows.
    Interp,
    /// At a line break or the end of input.
    Unterminated,
}

/// The state of the lexer driver.
struct Driver<'s> {
    src: &'s str,
    out: Lexed,
    /// One entry per open `${`: how many `{` are open inside it.
    interp: Vec<(usize, Span)>,
    /// Mixed-script names already reported.
    mixed_reported: Vec<String>,
}

impl<'s> Driver<'s> {
    fn push(&mut self, token: Token, span: Span) {
        self.out.tokens.push((token, span));
    }

    fn error(&mut self, d: Diagnostic) {
        self.out.diagnostics.push(d);
    }

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
                            let (decoded, used) = decode_unicode_escape(&rest[j + 1..]);
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
    fn string_part(&mut self, open: usize, text_start: usize, head: bool) -> usize {
        let (text, end, next) = self.scan_string(text_start);
        let span = Span::new(open, next);
        match end {
            StrEnd::Quote => {
                self.push(
                    if head {
                        Token::Str(text)
                    } else {
                        Token::StrTail(text)
                    },
                    span,
                );
            }
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
                self.push(
                    if head {
                        Token::Str(text)
                    } else {
                        Token::StrTail(text)
                    },
                    span,
                );
            }
        }
        next
    }

    fn run(mut self) -> Lexed {
        let src = self.src;
        self.report_bidi();
        let mut lex = Raw::lexer(src);
        while let Some(raw) = lex.next() {
            let range = lex.span();
            let span = Span::new(range.start, range.end);
            let slice = lex.slice();
            if !self.interp.is_empty() && self.newline_since_last_token(span.start) {
                let from = self.out.tokens.last().map_or(0, |(_, s)| s.end);
                let line_end = src
                    .get(from..)
                    .and_then(|r| r.find('\n'))
                    .map_or(src.len(), |i| from + i);
                self.end_interpolations(line_end, "the end of the line");
            }
            let raw = match raw {
                Ok(r) => r,
                Err(()) => {
                    if slice == "'"
                        && let Some(next) = self.single_quoted(span.start)
                    {
                        lex.bump(next - span.end);
                    } else {
                        self.unknown(span);
                    }
                    continue;
                }
            };
            match raw {
                Raw::Quote => {
                    // Inside `${`, a quote with no partner later on its line
                    // is the string's own closing quote: the `}` is missing.
                    let rest_of_line = src
                        .get(span.end..)
                        .and_then(|r| r.split('\n').next())
                        .unwrap_or("");
                    if matches!(self.interp.last(), Some((0, _))) && !rest_of_line.contains('"') {
                        if let Some((_, open)) = self.interp.pop() {
                            self.error(
                                Diagnostic::new(
                                    Code::UnterminatedInterpolation,
                                    "expected `}` to close the interpolation, found `\"`",
                                )
                                .with_primary(span, "expected `}` before this quote")
                                .with_secondary(open, "interpolation starts here")
                                .with_help("close the expression with `}` before the string's closing `\"`"),
                            );
                        }
                        self.push(Token::StrTail(String::new()), span);
                        continue;
                    }
                    let next = self.string_part(span.start, span.end, true);
                    lex.bump(next - span.end);
                }
                Raw::BlockCommentStart => {
                    let next = self.block_comment(span.start);
                    lex.bump(next - span.end);
                }
                Raw::DocComment => {
                    let text = slice.get(3..).unwrap_or("");
                    let text = text
                        .strip_prefix(' ')
                        .unwrap_or(text)
                        .trim_end()
                        .to_string();
                    self.push(Token::DocComment(text), span);
                }
                Raw::Int => self.int(slice, span),
                Raw::Float => self.float(slice, span),
                Raw::Upper | Raw::Lower => self.word(raw, slice, span),
                Raw::LBrace => {
                    if let Some(top) = self.interp.last_mut() {
                        top.0 += 1;
                    }
                    self.push(Token::LBrace, span);
                }
                Raw::RBrace => match self.interp.last_mut() {
                    Some((0, _)) => {
                        self.interp.pop();
                        let next = self.string_part(span.start, span.end, false);
                        lex.bump(next - span.end);
                    }
                    Some(top) => {
                        top.0 -= 1;
                        self.push(Token::RBrace, span);
                    }
                    None => self.push(Token::RBrace, span),
                },
                Raw::LParen => {
                    let starts_line = src.get(..span.start).is_some_and(|before| {
                        before.trim_end_matches([' ', '\t', '\r']).ends_with('\n')
                    }) && self.out.tokens.last().is_some();
                    let starts_line = starts_line && self.newline_since_last_token(span.start);
                    self.push(
                        if starts_line {
                            Token::LParenLine
                        } else {
                            Token::LParen
                        },
                        span,
                    );
                }
                other => self.push(punct(other), span),
            }
        }
        if !self.interp.is_empty() {
            let from = self.out.tokens.last().map_or(0, |(_, s)| s.end);
            let line_end = src
                .get(from..)
                .and_then(|r| r.find('\n'))
                .map_or(src.len(), |i| from + i);
            let found = if line_end == src.len() {
                "the end of input"
            } else {
                "the end of the line"
            };
            self.end_interpolations(line_end, found);
        }
        self.out
    }

    /// Close every open `${` at `at` (a line end or the end of input): an
    /// interpolation, like the string around it, cannot span lines.
    fn end_interpolations(&mut self, at: usize, found: &str) {
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
    fn single_quoted(&mut self, start: usize) -> Option<usize> {
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

    /// Whether any line break lies between the previous token and `offset`.
    fn newline_since_last_token(&self, offset: usize) -> bool {
        let from = self.out.tokens.last().map_or(0, |(_, s)| s.end);
        self.src
            .get(from..offset)
            .is_some_and(|gap| gap.contains('\n'))
    }

    fn report_bidi(&mut self) {
        let found: Vec<(usize, char)> = self
            .src
            .char_indices()
            .filter(|(_, c)| is_bidi_control(*c))
            .collect();
        for (i, c) in found {
            self.error(
                Diagnostic::new(
                    Code::BidiControl,
                    format!("found the bidirectional control character U+{:04X}, which can make code display differently from how it runs", c as u32),
                )
                .with_primary(Span::new(i, i + c.len_utf8()), "invisible control character here")
                .with_help("remove it; in a string, write it as an escape such as `\\u{202e}` if it is really wanted"),
            );
        }
    }

    fn unknown(&mut self, span: Span) {
        let text = self.src.get(span.start..span.end).unwrap_or("");
        let c = text.chars().next().unwrap_or('\u{FFFD}');
        if is_bidi_control(c) {
            // Already reported by `report_bidi`.
            self.push(Token::Error, span);
            return;
        }
        // Merge with an error token directly before (one diagnostic per run).
        if let Some((Token::Error, prev)) = self.out.tokens.last_mut()
            && prev.end == span.start
            && let Some(d) = self.out.diagnostics.last_mut()
            && d.code == Code::UnknownCharacter
            && d.primary_span() == Some(*prev)
        {
            *prev = prev.join(span);
            let merged = *prev;
            if let Some(l) = d.labels.first_mut() {
                l.span = merged;
            }
            d.message = format!(
                "expected a token, found the characters `{}`",
                self.src
                    .get(merged.start..merged.end)
                    .unwrap_or("")
                    .escape_debug()
            );
            d.help = Some("remove these characters".to_string());
            return;
        }
        let (message, help) = if is_invisible(c) {
            (
                format!(
                    "expected a token, found the invisible character U+{:04X}",
                    c as u32
                ),
                "remove it: invisible characters could hide text inside a name".to_string(),
            )
        } else {
            let hint = match c {
                '\'' => "strings use double quotes: \"text\"",
                '&' => "for logical and, write `&&`",
                '#' => "comments start with `//`",
                '$' => "interpolation is written inside a string: \"${expr}\"",
                '?' => "Writ has no `?` operator; match on the `Option` or `Result`",
                '@' | '~' | '^' | '`' | '\\' => "this character has no meaning in Writ",
                _ => "remove this character",
            };
            (
                format!(
                    "expected a token, found the character `{}` (U+{:04X})",
                    shown(c),
                    c as u32
                ),
                hint.to_string(),
            )
        };
        self.error(
            Diagnostic::new(Code::UnknownCharacter, message)
                .with_primary(span, "not part of any token")
                .with_help(help),
        );
        self.push(Token::Error, span);
    }

    /// Skip a (nested) block comment starting at `start`; returns the offset
    /// just past it.
    fn block_comment(&mut self, start: usize) -> usize {
        let bytes = self.src.as_bytes();
        let mut depth = 0usize;
        let mut i = start;
        while i + 1 < bytes.len() {
            match (bytes[i], bytes[i + 1]) {
                (b'/', b'*') => {
                    depth += 1;
                    i += 2;
                }
                (b'*', b'/') => {
                    depth -= 1;
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

    fn int(&mut self, slice: &str, span: Span) {
        let digits: String = slice.chars().filter(|c| *c != '_').collect();
        // The magnitude of i64::MIN is allowed so that `-9223372036854775808`
        // can be written; the parser rejects it without the minus.
        match digits.parse::<u64>() {
            Ok(v) if v <= 1u64 << 63 => self.push(Token::Int(v), span),
            _ => {
                self.error(
                    Diagnostic::new(
                        Code::IntegerOutOfRange,
                        format!("integer literal `{slice}` is out of range: `Int` holds -9223372036854775808 to 9223372036854775807"),
                    )
                    .with_primary(span, "too large for `Int`")
                    .with_help("use a smaller number, or a `Float` literal such as `1.0e20`"),
                );
                self.push(Token::Error, span);
            }
        }
    }

    fn float(&mut self, slice: &str, span: Span) {
        let digits: String = slice.chars().filter(|c| *c != '_').collect();
        match digits.parse::<f64>() {
            Ok(v) if v.is_finite() => self.push(Token::Float(v), span),
            _ => {
                self.error(
                    Diagnostic::new(
                        Code::FloatOutOfRange,
                        format!("float literal `{slice}` is out of range: the largest `Float` is about 1.8e308"),
                    )
                    .with_primary(span, "too large for `Float`")
                    .with_help("use a smaller exponent"),
                );
                self.push(Token::Error, span);
            }
        }
    }

    fn word(&mut self, raw: Raw, slice: &str, span: Span) {
        if let Some(kw) = keyword(slice) {
            self.push(kw, span);
            return;
        }
        if RESERVED_WORDS.contains(&slice) {
            self.push(Token::Reserved(slice.to_string()), span);
            return;
        }
        if let Some((a, b)) = mixed_scripts(slice) {
            // Reported once per name; later uses are error tokens too.
            if self.mixed_reported.iter().any(|n| n == slice) {
                self.push(Token::Error, span);
                return;
            }
            self.mixed_reported.push(slice.to_string());
            self.error(
                Diagnostic::new(
                    Code::MixedScriptIdentifier,
                    format!(
                        "identifier `{slice}` mixes {} and {} letters, which can look identical",
                        script_name(a),
                        script_name(b)
                    ),
                )
                .with_primary(span, "mixed-script identifier")
                .with_help("write the name in one script"),
            );
            self.push(Token::Error, span);
            return;
        }
        let name = slice.to_string();
        self.push(
            if raw == Raw::Upper {
                Token::Upper(name)
            } else {
                Token::Lower(name)
            },
            span,
        );
    }
}

/// A character as shown in a message: itself if it is visible, escaped if
/// not.
fn shown(c: char) -> String {
    if c.is_control() || c.is_whitespace() || is_invisible(c) {
        c.escape_debug().to_string()
    } else {
        c.to_string()
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
    let inner = &rest[1..close];
    let used = rest[..=close].chars().count();
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

fn punct(raw: Raw) -> Token {
    match raw {
        Raw::LParen => Token::LParen,
        Raw::RParen => Token::RParen,
        Raw::LBrace => Token::LBrace,
        Raw::RBrace => Token::RBrace,
        Raw::LBracket => Token::LBracket,
        Raw::RBracket => Token::RBracket,
        Raw::Comma => Token::Comma,
        Raw::Colon => Token::Colon,
        Raw::Semi => Token::Semi,
        Raw::Dot => Token::Dot,
        Raw::DotDot => Token::DotDot,
        Raw::Arrow => Token::Arrow,
        Raw::FatArrow => Token::FatArrow,
        Raw::Assign => Token::Assign,
        Raw::Pipe => Token::Pipe,
        Raw::Bar => Token::Bar,
        Raw::Plus => Token::Plus,
        Raw::Minus => Token::Minus,
        Raw::Star => Token::Star,
        Raw::Slash => Token::Slash,
        Raw::Percent => Token::Percent,
        Raw::PlusPlus => Token::PlusPlus,
        Raw::EqEq => Token::EqEq,
        Raw::NotEq => Token::NotEq,
        Raw::Lt => Token::Lt,
        Raw::Le => Token::Le,
        Raw::Gt => Token::Gt,
        Raw::Ge => Token::Ge,
        Raw::AndAnd => Token::AndAnd,
        Raw::OrOr => Token::OrOr,
        Raw::Bang => Token::Bang,
        // Handled by the driver before this is called.
        Raw::DocComment
        | Raw::BlockCommentStart
        | Raw::Quote
        | Raw::Int
        | Raw::Float
        | Raw::Upper
        | Raw::Lower => Token::Error,
    }
}

/// Lex `src` completely. Never fails: problems become diagnostics and
/// [`Token::Error`] tokens.
pub fn lex(src: &str) -> Lexed {
    Driver {
        src,
        out: Lexed::default(),
        interp: Vec::new(),
        mixed_reported: Vec::new(),
    }
    .run()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Token> {
        lex(src).tokens.into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn keywords_identifiers_and_operators() {
        assert_eq!(
            kinds("fn f(x) -> Int { x |> g ++ \"a\" }"),
            vec![
                Token::Fn,
                Token::Lower("f".into()),
                Token::LParen,
                Token::Lower("x".into()),
                Token::RParen,
                Token::Arrow,
                Token::Upper("Int".into()),
                Token::LBrace,
                Token::Lower("x".into()),
                Token::Pipe,
                Token::Lower("g".into()),
                Token::PlusPlus,
                Token::Str("a".into()),
                Token::RBrace,
            ]
        );
    }

    #[test]
    fn interpolation_splits_into_parts() {
        assert_eq!(
            kinds(r#""a${x}b${ {y} }c""#),
            vec![
                Token::StrHead("a".into()),
                Token::Lower("x".into()),
                Token::StrMid("b".into()),
                Token::LBrace,
                Token::Lower("y".into()),
                Token::RBrace,
                Token::StrTail("c".into()),
            ]
        );
    }

    #[test]
    fn nested_string_inside_interpolation() {
        assert_eq!(
            kinds(r#""${f("q")}""#),
            vec![
                Token::StrHead("".into()),
                Token::Lower("f".into()),
                Token::LParen,
                Token::Str("q".into()),
                Token::RParen,
                Token::StrTail("".into()),
            ]
        );
    }

    #[test]
    fn escapes_decode() {
        assert_eq!(
            kinds(r#""\n\t\\\"\$\u{e9}""#),
            vec![Token::Str("\n\t\\\"$é".into())]
        );
    }

    #[test]
    fn line_initial_paren_cannot_call() {
        assert_eq!(
            kinds("f\n(x)"),
            vec![
                Token::Lower("f".into()),
                Token::LParenLine,
                Token::Lower("x".into()),
                Token::RParen
            ]
        );
    }

    #[test]
    fn numbers_and_ranges() {
        assert_eq!(
            kinds("1_000 2.5 1e3"),
            vec![Token::Int(1000), Token::Float(2.5), Token::Float(1000.0)]
        );
        assert_eq!(kinds("9223372036854775808"), vec![Token::Int(1 << 63)]);
        let l = lex("99999999999999999999");
        assert_eq!(l.diagnostics[0].code, Code::IntegerOutOfRange);
        let l = lex("1e999");
        assert_eq!(l.diagnostics[0].code, Code::FloatOutOfRange);
    }

    #[test]
    fn problems_do_not_stop_the_lexer() {
        let l = lex("let a = 1 €€ 2\n\"open\nlet b = 'c'");
        let codes: Vec<Code> = l.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(
            codes,
            vec![
                Code::UnknownCharacter,
                Code::UnterminatedString,
                Code::UnknownCharacter
            ]
        );
        assert!(l.tokens.iter().any(|(t, _)| *t == Token::Lower("b".into())));
    }

    #[test]
    fn look_alike_and_invisible_characters_are_rejected() {
        // Latin `p`, `y` with Cyrillic `а`.
        let l = lex("p\u{430}y");
        assert_eq!(l.diagnostics[0].code, Code::MixedScriptIdentifier);
        let l = lex("a\u{200B}b");
        assert_eq!(l.diagnostics[0].code, Code::UnknownCharacter);
        let l = lex("\"x\u{202E}y\"");
        assert_eq!(l.diagnostics[0].code, Code::BidiControl);
        // One script, accented Latin or all-Greek, is fine.
        assert!(lex("café λ αβ").diagnostics.is_empty());
    }

    #[test]
    fn block_comments_nest() {
        assert_eq!(kinds("/* a /* b */ c */ x"), vec![Token::Lower("x".into())]);
        assert_eq!(
            lex("/* a /* b */").diagnostics[0].code,
            Code::UnterminatedComment
        );
    }
}
