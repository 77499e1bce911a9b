//! The tokens the parser consumes, and how they are named in messages.
//!
//! Tokens own their text, so the token stream outlives nothing. Identifiers
//! come pre-sorted by case: [`Token::Upper`] names types, constructors and
//! effects; [`Token::Lower`] names values, functions, namespaces and type
//! variables. A `(` that starts a line is [`Token::LParenLine`], which can
//! group but never call: `f` followed by a line starting `(x)` is two
//! statements, not a call.

use std::fmt;

/// One token of Writ source.
#[derive(Clone, Debug, PartialEq)]
pub enum Token {
    /// `fn`
    Fn,
    /// `let`
    Let,
    /// `type`
    Type,
    /// `effect`
    Effect,
    /// `match`
    Match,
    /// `if`
    If,
    /// `else`
    Else,
    /// `handle`
    Handle,
    /// `with`
    With,
    /// `return` (only meaningful as a handler clause)
    Return,
    /// `true`
    True,
    /// `false`
    False,
    /// A word reserved for possible future use (`for`, `while`, ...).
    Reserved(String),
    /// An identifier starting with an upper-case letter.
    Upper(String),
    /// An identifier starting with a lower-case letter, `_` or another letter.
    Lower(String),
    /// `_` on its own.
    Underscore,
    /// An integer literal's magnitude (a leading `-` is a separate token).
    Int(u64),
    /// A float literal.
    Float(f64),
    /// A string literal without interpolation, escapes decoded.
    Str(String),
    /// The text of a string before its first `${`.
    StrHead(String),
    /// The text between a `}` and the next `${` of one string.
    StrMid(String),
    /// The text after the last `}` of a string, up to its closing quote.
    StrTail(String),
    /// A `///` comment that documents the item after it (text after `///`).
    DocComment(String),
    /// `(` on the same line as the token before it.
    LParen,
    /// `(` at the start of a line.
    LParenLine,
    /// `)`
    RParen,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `;`
    Semi,
    /// `.`
    Dot,
    /// `..`
    DotDot,
    /// `->`
    Arrow,
    /// `=>`
    FatArrow,
    /// `=`
    Assign,
    /// `|>`
    Pipe,
    /// `|`
    Bar,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `%`
    Percent,
    /// `++`
    PlusPlus,
    /// `==`
    EqEq,
    /// `!=`
    NotEq,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `&&`
    AndAnd,
    /// `||`
    OrOr,
    /// `!`
    Bang,
    /// Input the lexer could not make sense of (already reported).
    Error,
}

impl Token {
    /// The exact source text of a fixed token, `None` for tokens with data.
    pub fn fixed_text(&self) -> Option<&'static str> {
        Some(match self {
            Token::Fn => "fn",
            Token::Let => "let",
            Token::Type => "type",
            Token::Effect => "effect",
            Token::Match => "match",
            Token::If => "if",
            Token::Else => "else",
            Token::Handle => "handle",
            Token::With => "with",
            Token::Return => "return",
            Token::True => "true",
            Token::False => "false",
            Token::Underscore => "_",
            Token::LParen | Token::LParenLine => "(",
            Token::RParen => ")",
            Token::LBrace => "{",
            Token::RBrace => "}",
            Token::LBracket => "[",
            Token::RBracket => "]",
            Token::Comma => ",",
            Token::Colon => ":",
            Token::Semi => ";",
            Token::Dot => ".",
            Token::DotDot => "..",
            Token::Arrow => "->",
            Token::FatArrow => "=>",
            Token::Assign => "=",
            Token::Pipe => "|>",
            Token::Bar => "|",
            Token::Plus => "+",
            Token::Minus => "-",
            Token::Star => "*",
            Token::Slash => "/",
            Token::Percent => "%",
            Token::PlusPlus => "++",
            Token::EqEq => "==",
            Token::NotEq => "!=",
            Token::Lt => "<",
            Token::Le => "<=",
            Token::Gt => ">",
            Token::Ge => ">=",
            Token::AndAnd => "&&",
            Token::OrOr => "||",
            Token::Bang => "!",
            _ => return None,
        })
    }

    /// Whether this token is a binary operator (`|>`, `||`, `+`, `==`, ...).
    /// `-` counts: it is binary wherever it follows an operand.
    pub fn is_binary_operator(&self) -> bool {
        matches!(
            self,
            Token::Pipe
                | Token::OrOr
                | Token::AndAnd
                | Token::EqEq
                | Token::NotEq
                | Token::Lt
                | Token::Le
                | Token::Gt
                | Token::Ge
                | Token::PlusPlus
                | Token::Plus
                | Token::Minus
                | Token::Star
                | Token::Slash
                | Token::Percent
        )
    }

    /// Whether this token opens a bracket pair.
    pub fn is_open(&self) -> bool {
        matches!(
            self,
            Token::LParen | Token::LParenLine | Token::LBrace | Token::LBracket
        )
    }

    /// The closing token matching an opening one.
    pub fn closer(&self) -> Option<Token> {
        match self {
            Token::LParen | Token::LParenLine => Some(Token::RParen),
            Token::LBrace => Some(Token::RBrace),
            Token::LBracket => Some(Token::RBracket),
            _ => None,
        }
    }

    /// Whether this token closes a bracket pair.
    pub fn is_close(&self) -> bool {
        matches!(self, Token::RParen | Token::RBrace | Token::RBracket)
    }
}

/// Shortens `text` to at most `max` characters, marking the cut with `…`.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(max).collect();
        s.push('…');
        s
    }
}

impl fmt::Display for Token {
    /// How a token is named in a message: `` `fn` ``, ``identifier `x` ``, ...
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(text) = self.fixed_text() {
            return write!(f, "`{text}`");
        }
        match self {
            Token::Reserved(w) => write!(f, "reserved word `{w}`"),
            Token::Upper(n) | Token::Lower(n) => write!(f, "identifier `{}`", shorten(n, 40)),
            Token::Int(n) => write!(f, "integer `{n}`"),
            Token::Float(x) => write!(f, "float `{x:?}`"),
            Token::Str(_) | Token::StrHead(_) => write!(f, "a string"),
            Token::StrMid(_) | Token::StrTail(_) => write!(f, "the rest of a string"),
            Token::DocComment(_) => write!(f, "a doc comment"),
            _ => write!(f, "invalid input"),
        }
    }
}
