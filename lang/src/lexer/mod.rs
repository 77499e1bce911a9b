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
//! interpolation from one that closes a block inside it. Strings nested in
//! `${` deeper than the bracket limit keep their tokens only one level past
//! it ([`MAX_INTERPOLATION`]), where the bracket balancer cuts them off as
//! nested too deep (`E0013`).
//!
//! Invariants: token spans are non-overlapping, increasing, and lie on
//! character boundaries; an ordinary string literal never spans a line
//! break (an unterminated string ends at the end of its line), so one
//! missing quote cannot swallow the rest of the file; only a multi-line
//! string, opened by `"""` at the end of a line ([`multiline`]), does.

use logos::Logos;
use unicode_normalization::UnicodeNormalization;

use crate::diagnostic::{Code, Diagnostic};
use crate::span::Span;
use crate::token::Token;

mod conditional;
mod multiline;
#[cfg(test)]
mod tests;
mod text;
mod unicode;

/// Whether `c` can deceive a reader of text it is in: a bidirectional
/// control, a character that draws nothing, or a line break other than
/// `\n`. Source text may not hold one outside an escape; displays escape
/// them (`\u{202e}`).
pub fn is_deceptive(c: char) -> bool {
    unicode::is_bidi_control(c) || unicode::is_invisible(c) || unicode::is_misleading_break(c)
}

use unicode::{
    break_name, is_bidi_control, is_invisible, is_misleading_break, mixed_scripts, script_name,
    shown,
};

/// The most characters of a run of unknown ones a diagnostic shows.
const SHOWN_RUN: usize = 32;

/// The deepest `${` whose tokens are kept: one past the bracket nesting
/// limit, so that the bracket balancer (which counts each string with an
/// open `${` as a bracket) reports the nesting as too deep (`E0013`) and
/// replaces the interpolation that passes the limit by one error token.
/// Inside it, the lexer goes on reading (to find where it ends) but keeps
/// no tokens and no diagnostics: a line of `"${` nested a million deep
/// costs a counter per level, not a token and a diagnostic.
const MAX_INTERPOLATION: usize = crate::delimiters::MAX_NESTING + 1;

/// The most diagnostics the lexer keeps (ten times what is shown, as for
/// the parser's recoveries): past them, a problem is counted in
/// [`Lexed::unreported`], its token still made, so that a file of a
/// million stray characters costs a token each, not a diagnostic each.
/// An unterminated block comment, at most one and at the end, is always
/// kept (a REPL reads on when it sees one).
const MAX_KEPT: usize = 10 * crate::parser::MAX_DIAGNOSTICS;

/// Lexer output: tokens with their spans, and every lexical diagnostic.
#[derive(Clone, Debug, Default)]
pub struct Lexed {
    /// The tokens in source order.
    pub tokens: Vec<(Token, Span)>,
    /// Diagnostics found while lexing (at most [`MAX_KEPT`] and an
    /// unterminated comment).
    pub diagnostics: Vec<Diagnostic>,
    /// Problems found after [`MAX_KEPT`] diagnostics, counted only (each
    /// still an error token).
    pub unreported: usize,
}

/// The raw token classes logos recognises; the driver below turns them into
/// [`Token`]s, decoding literals and handling strings and block comments.
#[derive(Logos, Clone, Copy, Debug, PartialEq)]
#[logos(skip r"([ \t\n]|\r\n)+")]
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
    /// `0x`, `0o` or `0b` and what follows: a number in another base,
    /// which Writ does not have (`E0016`, with its decimal value).
    #[regex(r"0[xXoObB][0-9A-Za-z_]*")]
    RadixInt,
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
    "and", "as", "async", "await", "break", "class", "const", "continue", "def", "do", "elif",
    "enum", "for", "function", "import", "in", "loop", "mod", "mut", "nil", "not", "null", "or",
    "pub", "self", "struct", "trait", "use", "var", "where", "while", "yield",
];

/// The state of the lexer driver.
pub(crate) struct Driver<'s> {
    src: &'s str,
    out: Lexed,
    /// One entry per open `${`: how many `{` are open inside it, where it
    /// opened, and the multi-line string it is in, if it is in one.
    interp: Vec<(usize, Span, Option<multiline::Multi>)>,
    /// Where the last token lexed ends, whether it was kept or not (see
    /// [`MAX_INTERPOLATION`]); `None` before the first.
    last_end: Option<usize>,
    /// Bytes read ahead of quotes inside `${` (to tell a string's own
    /// closing quote), counted for tests of the lexer's work.
    #[cfg(test)]
    looked_ahead: usize,
    /// Mixed-script names already reported.
    mixed_reported: std::collections::HashSet<String>,
}

impl<'s> Driver<'s> {
    /// Whether the lexer is inside a `${` nested deeper than
    /// [`MAX_INTERPOLATION`], whose tokens and diagnostics are dropped.
    fn too_deep(&self) -> bool {
        self.interp.len() > MAX_INTERPOLATION
    }

    fn push(&mut self, token: Token, span: Span) {
        self.last_end = Some(span.end);
        if !self.too_deep() {
            self.out.tokens.push((token, span));
        }
    }

    fn error(&mut self, d: Diagnostic) {
        if self.too_deep() {
            return;
        }
        if self.full() && d.code != Code::UnterminatedComment {
            self.out.unreported = self.out.unreported.saturating_add(1);
            return;
        }
        self.out.diagnostics.push(d);
    }

    /// Whether [`MAX_KEPT`] diagnostics are kept already.
    fn full(&self) -> bool {
        self.out.diagnostics.len() >= MAX_KEPT
    }

    /// Where the last token lexed ends (0 before the first).
    fn last_end(&self) -> usize {
        self.last_end.unwrap_or(0)
    }

    fn run(&mut self) {
        let src = self.src;
        self.report_bidi();
        let mut lex = Raw::lexer(src);
        while let Some(raw) = lex.next() {
            let range = lex.span();
            let span = Span::new(range.start, range.end);
            let slice = lex.slice();
            if !self.interp.is_empty() && self.newline_since_last_token(span.start) {
                let from = self.last_end();
                let line_end = src
                    .get(from..)
                    .and_then(|r| r.find('\n'))
                    .map_or(src.len(), |i| from + i);
                if let Some(resume) = self.end_interpolations(line_end, "the end of the line") {
                    // The interpolation was in a multi-line string, which
                    // went on from the line's end: the token read is in it.
                    lex.bump(resume.saturating_sub(span.end));
                    continue;
                }
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
                    if self.interp.is_empty()
                        && src
                            .get(span.start..)
                            .is_some_and(|r| r.starts_with("\"\"\""))
                    {
                        let next = self.multi_line_string(span.start);
                        lex.bump(next.saturating_sub(span.end));
                        continue;
                    }
                    let closes_string = matches!(self.interp.last(), Some((0, _, None)))
                        && !self.quote_ahead_on_line(span.end);
                    if closes_string {
                        if let Some((_, open, _)) = self.interp.pop() {
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
                Raw::RadixInt => self.radix_int(slice, span),
                Raw::Float => self.float(slice, span),
                Raw::Upper | Raw::Lower => self.word(raw, slice, span),
                Raw::LBrace => {
                    if let Some(top) = self.interp.last_mut() {
                        top.0 += 1;
                    }
                    self.push(Token::LBrace, span);
                }
                Raw::RBrace => match self.interp.last_mut() {
                    Some((0, _, multi)) => {
                        let multi = *multi;
                        self.interp.pop();
                        let next = match multi {
                            Some(m) => self.multi_part(span.start, span.end, false, m, false),
                            None => self.string_part(span.start, span.end, false),
                        };
                        lex.bump(next.saturating_sub(span.end));
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
                    }) && self.last_end.is_some();
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
            let from = self.last_end();
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
    }

    /// Whether a `"` follows `offset` on its line. Only the text up to the
    /// next quote or line break is read, so the reads from successive
    /// quotes never overlap: all of them together read each byte at most
    /// once.
    fn quote_ahead_on_line(&mut self, offset: usize) -> bool {
        let rest = self.src.as_bytes().get(offset..).unwrap_or(&[]);
        let stop = rest.iter().position(|&b| b == b'"' || b == b'\n');
        #[cfg(test)]
        {
            self.looked_ahead += stop.map_or(rest.len(), |i| i + 1);
        }
        stop.is_some_and(|i| rest.get(i) == Some(&b'"'))
    }

    /// Whether any line break lies between the previous token and `offset`.
    fn newline_since_last_token(&self, offset: usize) -> bool {
        let from = self.last_end();
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
                    format!("expected ordinary text, found the bidirectional control character U+{:04X}, which can make code display differently from how it runs", c as u32),
                )
                .with_primary(Span::new(i, i + c.len_utf8()), "invisible control character here")
                .with_help("remove it; in a string, write it as an escape such as `\\u{202e}` if it is really wanted"),
            );
        }
        let bytes = self.src.as_bytes();
        let breaks: Vec<(usize, char)> = self
            .src
            .char_indices()
            .filter(|&(i, c)| {
                is_misleading_break(c) && !(c == '\r' && bytes.get(i + 1) == Some(&b'\n'))
            })
            .collect();
        for (i, c) in breaks {
            self.error(
                Diagnostic::new(
                    Code::MisleadingLineBreak,
                    format!(
                        "expected line breaks written as `\\n`, found U+{:04X} ({}), which some editors and terminals show as a line break",
                        c as u32,
                        break_name(c)
                    ),
                )
                .with_primary(Span::new(i, i + c.len_utf8()), "misleading line break here")
                .with_help("replace it with an ordinary line break; in a string, write `\\n` or a `\\u{...}` escape"),
            );
        }
    }

    /// Report the unknown character at `span`, one diagnostic for a run
    /// of them (whose message shows at most [`SHOWN_RUN`] characters).
    fn unknown(&mut self, span: Span) {
        let text = self.src.get(span.start..span.end).unwrap_or("");
        let c = text.chars().next().unwrap_or('\u{FFFD}');
        if is_bidi_control(c) || is_misleading_break(c) {
            // Already reported by `report_bidi`.
            self.push(Token::Error, span);
            return;
        }
        if self.full() {
            // Counted, a run once, without building its diagnostic.
            if let Some((Token::Error, prev)) = self.out.tokens.last_mut()
                && prev.end == span.start
            {
                *prev = prev.join(span);
                return;
            }
            self.out.unreported = self.out.unreported.saturating_add(1);
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
            // The run is shown by its first characters only (formatting
            // it whole at each merge made a long run quadratic), and once
            // it is cut, its message stays as it is.
            if d.message.ends_with('…') {
                return;
            }
            let run = self.src.get(merged.start..merged.end).unwrap_or("");
            let shown: String = run.chars().take(SHOWN_RUN).collect();
            let cut = if shown.len() < run.len() { "…" } else { "" };
            d.message = format!(
                "expected a token, found the characters `{}`{cut}",
                shown.escape_debug()
            );
            d.help = Some(
                if self.src.get(merged.start..merged.end) == Some("??") {
                    "Writ has no `??`: write `option.unwrap_or(o, default)`, or match on the `Option`"
                } else {
                    "remove these characters"
                }
                .to_string(),
            );
            return;
        }
        let (message, help) = if c == '?'
            && let Some(help) = self.conditional(span)
        {
            (
                "expected a token, found the `?` of a conditional `c ? a : b`, which Writ does not have".to_string(),
                help,
            )
        } else if is_invisible(c) {
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
                '`' => "strings use double quotes, and every string interpolates: \"total: ${n}\"",
                '@' | '~' | '^' | '\\' => "this character has no meaning in Writ",
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

    /// A number in another base: refused, with its decimal value when it
    /// is one (`0xFF` is 255).
    fn radix_int(&mut self, slice: &str, span: Span) {
        let (radix, name) = match slice.as_bytes().get(1) {
            Some(b'x' | b'X') => (16, "hexadecimal"),
            Some(b'o' | b'O') => (8, "octal"),
            _ => (2, "binary"),
        };
        let digits: String = slice.chars().skip(2).filter(|c| *c != '_').collect();
        let help = match i64::from_str_radix(&digits, radix) {
            Ok(v) if !digits.is_empty() => format!("write the number in decimal: `{v}`"),
            _ => "write the number in decimal".to_string(),
        };
        self.error(
            Diagnostic::new(
                Code::NumberInAnotherBase,
                format!(
                    "expected a decimal number, found the {name} literal `{slice}`: Writ's numbers are written in decimal"
                ),
            )
            .with_primary(span, format!("{} {name} literal", if radix == 8 { "an" } else { "a" }))
            .with_help(help),
        );
        self.push(Token::Error, span);
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
        if let Some(c) = slice.chars().find(|c| is_invisible(*c)) {
            self.error(
                Diagnostic::new(
                    Code::UnknownCharacter,
                    format!(
                        "expected a name made of visible characters, found the invisible character U+{:04X} in `{}`",
                        c as u32,
                        slice
                            .chars()
                            .map(|ch| if is_invisible(ch) { format!("<U+{:04X}>", ch as u32) } else { ch.to_string() })
                            .collect::<String>()
                    ),
                )
                .with_primary(span, "name with an invisible character")
                .with_help("remove it: invisible characters could make two different names look the same"),
            );
            self.push(Token::Error, span);
            return;
        }
        if let Some((a, b)) = mixed_scripts(slice) {
            // Reported once per name; later uses are error tokens too.
            if !self.mixed_reported.insert(slice.to_string()) {
                self.push(Token::Error, span);
                return;
            }
            self.error(
                Diagnostic::new(
                    Code::MixedScriptIdentifier,
                    format!(
                        "expected a name written in one script, found `{slice}`, which mixes {} and {} letters that can look identical",
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
        // Names are compared in Unicode normal form C, so `café` written
        // with a precomposed `é` and with `e` plus a combining accent is one
        // name, as it looks.
        let name: String = if slice.is_ascii() {
            slice.to_string()
        } else {
            slice.nfc().collect()
        };
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
        | Raw::RadixInt
        | Raw::Float
        | Raw::Upper
        | Raw::Lower => Token::Error,
    }
}

/// Lex `src` completely. Never fails: problems become diagnostics and
/// [`Token::Error`] tokens.
pub fn lex(src: &str) -> Lexed {
    let mut driver = Driver::new(src);
    driver.run();
    driver.out
}

impl<'s> Driver<'s> {
    fn new(src: &'s str) -> Self {
        Driver {
            src,
            out: Lexed::default(),
            interp: Vec::new(),
            last_end: None,
            #[cfg(test)]
            looked_ahead: 0,
            mixed_reported: std::collections::HashSet::new(),
        }
    }
}
