//! The parser's error type: where it failed, what it found there and what
//! it expected, kept so that trying an alternative allocates nothing.
//!
//! While parsing, chumsky records at the furthest position reached every
//! token and label an alternative expected there, and a parse tries many
//! alternatives at every token. With chumsky's general error type each
//! record is a boxed reason and a growing vector; on large inputs that was
//! about a third of the parser's time. Here a token without data is a bit of
//! a `u64` (by [`kind`]), and labels (the grammar's `.labelled(...)` words)
//! sit in a small inline array, so recording and merging cost a few
//! instructions. What does not fit (a token with data, more labels than the
//! array holds) goes to a side list, which allocates only then.
//!
//! Invariant: the expectations held are the same *set* chumsky's own error
//! type would hold after the same calls (the same merges, replacements and
//! labels); only their order differs, and the diagnostics sort and
//! deduplicate them, so every message is unchanged.

use chumsky::DefaultExpected;
use chumsky::error::{Error, LabelError};
use chumsky::input::Input;
use chumsky::span::SimpleSpan;
use chumsky::util::MaybeRef;

use crate::token::Token;

/// One parse error: an expected/found conflict, or a rule's own message.
/// Small (chumsky moves errors by value as it backtracks).
#[derive(Debug)]
pub(crate) struct ParseError<'t> {
    span: SimpleSpan,
    reason: Reason<'t>,
}

/// Why a parse failed.
#[derive(Debug)]
pub(crate) enum Reason<'t> {
    /// Something in `expected` was wanted; `found` was there.
    ExpectedFound {
        /// What would have been accepted.
        expected: Expected,
        /// What was there instead.
        found: Found<'t>,
    },
    /// A rule refused the input with this message.
    Custom(&'static str),
}

/// What a parse found where it failed.
#[derive(Debug)]
pub(crate) enum Found<'t> {
    /// The end of the input.
    End,
    /// A token of the input.
    Token(&'t Token),
    /// A token chumsky made rather than read (kept for completeness).
    Made(Box<Token>),
}

impl<'t> Found<'t> {
    fn new(found: Option<MaybeRef<'t, Token>>) -> Self {
        match found {
            None => Found::End,
            Some(MaybeRef::Ref(t)) => Found::Token(t),
            Some(MaybeRef::Val(t)) => Found::Made(Box::new(t)),
        }
    }

    /// The token found, or `None` at the end of the input.
    pub(crate) fn token(&self) -> Option<&Token> {
        match self {
            Found::End => None,
            Found::Token(t) => Some(t),
            Found::Made(t) => Some(t),
        }
    }
}

/// The labels the grammar gives its rules (`.labelled(...)`), in the order
/// of their bits; a test checks that every label in the grammar is here
/// (another would still be kept, in the side list).
const LABELS: [&str; 14] = [
    "an expression",
    "an operator",
    "a block",
    "a pattern",
    "a type",
    "a lower-case name",
    "a capitalised name",
    "a field name",
    "`(`",
    "a parameter list",
    "an effect row such as `{Http, Log}`",
    "a constructor such as `Some(a)` or `None`",
    "an operation such as `fn get(url: Str) -> Str`",
    "a handler clause such as `Eff.op(x) => ...` or `return(x) => ...`",
];

/// A set of expectations.
#[derive(Debug, Default)]
pub(crate) struct Expected {
    /// Tokens without data, one bit per [`kind`].
    tokens: u64,
    /// Labels, one bit per place in [`LABELS`].
    labels: u32,
    /// The end of the input.
    end: bool,
    /// Any token at all.
    any: bool,
    /// Tokens with data and labels not in [`LABELS`]: rare.
    more: Option<Box<More>>,
}

/// The rare part of an [`Expected`].
#[derive(Debug, Default)]
struct More {
    tokens: Vec<Token>,
    labels: Vec<&'static str>,
}

/// What an expectation is, for describing it.
pub(crate) enum Pattern<'a> {
    /// A token.
    Token(&'a Token),
    /// A label from the grammar.
    Label(&'a str),
    /// The end of the input.
    EndOfInput,
    /// Any token.
    Any,
}

impl Expected {
    fn clear(&mut self) {
        *self = Expected::default();
    }

    fn add_token(&mut self, t: &Token) {
        match kind(t) {
            Some(bit) => self.tokens |= 1 << bit,
            None => {
                let more = self.more.get_or_insert_with(Box::default);
                if !more.tokens.contains(t) {
                    more.tokens.push(t.clone());
                }
            }
        }
    }

    fn add_label(&mut self, label: &'static str) {
        match LABELS.iter().position(|l| *l == label) {
            Some(bit) => self.labels |= 1 << bit,
            None => {
                let more = self.more.get_or_insert_with(Box::default);
                if !more.labels.contains(&label) {
                    more.labels.push(label);
                }
            }
        }
    }

    fn union(&mut self, other: Expected) {
        self.tokens |= other.tokens;
        self.labels |= other.labels;
        self.end |= other.end;
        self.any |= other.any;
        if let Some(more) = other.more {
            for label in more.labels {
                self.add_label(label);
            }
            for t in &more.tokens {
                self.add_token(t);
            }
        }
    }

    /// Every expectation held, in no particular order.
    pub(crate) fn patterns(&self) -> impl Iterator<Item = Pattern<'_>> {
        let tokens = KINDS
            .iter()
            .enumerate()
            .filter(|(bit, _)| self.tokens & (1 << bit) != 0)
            .map(|(_, t)| Pattern::Token(t));
        let labels = LABELS
            .iter()
            .enumerate()
            .filter(|(bit, _)| self.labels & (1 << bit) != 0)
            .map(|(_, l)| Pattern::Label(l));
        let more = self.more.as_deref();
        let more_tokens = more
            .into_iter()
            .flat_map(|m| m.tokens.iter().map(Pattern::Token));
        let more_labels = more
            .into_iter()
            .flat_map(|m| m.labels.iter().map(|l| Pattern::Label(l)));
        tokens
            .chain(more_tokens)
            .chain(labels)
            .chain(more_labels)
            .chain(self.end.then_some(Pattern::EndOfInput))
            .chain(self.any.then_some(Pattern::Any))
    }
}

/// Something chumsky can say was expected.
pub(crate) trait Expectation<'t> {
    /// Add it to `set`.
    fn add_to(self, set: &mut Expected);
}

impl<'t> Expectation<'t> for DefaultExpected<'t, Token> {
    fn add_to(self, set: &mut Expected) {
        match self {
            DefaultExpected::Token(t) => set.add_token(&t),
            DefaultExpected::Any => set.any = true,
            DefaultExpected::EndOfInput => set.end = true,
            // "Something else" and "nothing" are never described.
            _ => {}
        }
    }
}

impl<'t> Expectation<'t> for &'static str {
    fn add_to(self, set: &mut Expected) {
        set.add_label(self);
    }
}

fn collect<'t, L: Expectation<'t>>(expected: impl IntoIterator<Item = L>) -> Expected {
    let mut set = Expected::default();
    for e in expected {
        e.add_to(&mut set);
    }
    set
}

impl<'t> ParseError<'t> {
    /// A rule's own refusal, with its message.
    pub(crate) fn custom(span: SimpleSpan, message: &'static str) -> Self {
        ParseError {
            span,
            reason: Reason::Custom(message),
        }
    }

    /// A rule declining `found` without expecting anything in its place
    /// (so that the alternatives' expectations make the message).
    pub(crate) fn declined(span: SimpleSpan, found: Token) -> Self {
        ParseError {
            span,
            reason: Reason::ExpectedFound {
                expected: Expected::default(),
                found: Found::Made(Box::new(found)),
            },
        }
    }

    /// Where the parse failed.
    pub(crate) fn span(&self) -> SimpleSpan {
        self.span
    }

    /// Why it failed.
    pub(crate) fn reason(&self) -> &Reason<'t> {
        &self.reason
    }
}

impl<'t, I, L> LabelError<'t, I, L> for ParseError<'t>
where
    I: Input<'t, Token = Token, Span = SimpleSpan>,
    L: Expectation<'t>,
{
    fn expected_found<E: IntoIterator<Item = L>>(
        expected: E,
        found: Option<MaybeRef<'t, Token>>,
        span: SimpleSpan,
    ) -> Self {
        ParseError {
            span,
            reason: Reason::ExpectedFound {
                expected: collect(expected),
                found: Found::new(found),
            },
        }
    }

    fn merge_expected_found<E: IntoIterator<Item = L>>(
        mut self,
        new_expected: E,
        new_found: Option<MaybeRef<'t, Token>>,
        _span: SimpleSpan,
    ) -> Self {
        if let Reason::ExpectedFound { expected, found } = &mut self.reason {
            for e in new_expected {
                e.add_to(expected);
            }
            if matches!(found, Found::End) {
                *found = Found::new(new_found);
            }
        }
        self
    }

    fn replace_expected_found<E: IntoIterator<Item = L>>(
        mut self,
        new_expected: E,
        new_found: Option<MaybeRef<'t, Token>>,
        span: SimpleSpan,
    ) -> Self {
        self.span = span;
        match &mut self.reason {
            Reason::ExpectedFound { expected, found } => {
                expected.clear();
                for e in new_expected {
                    e.add_to(expected);
                }
                *found = Found::new(new_found);
            }
            Reason::Custom(_) => {
                self.reason = Reason::ExpectedFound {
                    expected: collect(new_expected),
                    found: Found::new(new_found),
                }
            }
        }
        self
    }

    fn label_with(&mut self, label: L) {
        match &mut self.reason {
            Reason::ExpectedFound { expected, .. } => {
                expected.clear();
                label.add_to(expected);
            }
            Reason::Custom(_) => {
                let mut expected = Expected::default();
                label.add_to(&mut expected);
                self.reason = Reason::ExpectedFound {
                    expected,
                    found: Found::End,
                };
            }
        }
    }
}

impl<'t, I> Error<'t, I> for ParseError<'t>
where
    I: Input<'t, Token = Token, Span = SimpleSpan>,
{
    fn merge(self, other: Self) -> Self {
        // The first rule's refusal wins over expectations; else the union.
        let reason = match (self.reason, other.reason) {
            (a @ Reason::Custom(_), _) => a,
            (_, b @ Reason::Custom(_)) => b,
            (
                Reason::ExpectedFound {
                    mut expected,
                    found,
                },
                Reason::ExpectedFound { expected: more, .. },
            ) => {
                expected.union(more);
                Reason::ExpectedFound { expected, found }
            }
        };
        ParseError {
            span: self.span,
            reason,
        }
    }
}

/// The tokens without data, each given a bit (its place in the list), and
/// the tokens with data: one list, from which [`KINDS`] and [`kind`] are
/// made, so they cannot fall out of step; `kind` matches every token, so a
/// new one does not compile until it is listed here.
macro_rules! token_bits {
    (bits: $($bit:ident),* $(,)?; data: $($data:ident),* $(,)?) => {
        /// A token without data's bit, by name.
        #[repr(u32)]
        enum Bit {
            $($bit),*
        }

        /// The tokens without data, in the order of their bits.
        const KINDS: &[Token] = &[$(Token::$bit),*];

        /// The bit of a token without data (its place in [`KINDS`]);
        /// `None` for a token that carries data.
        fn kind(t: &Token) -> Option<u32> {
            Some(match t {
                $(Token::$bit => Bit::$bit as u32,)*
                $(Token::$data(_))|* => return None,
            })
        }
    };
}

token_bits! {
    bits:
    Fn, Let, Type, Effect, Match, If, Else, Handle, With, Return, True, False,
    Underscore, LParen, LParenLine, RParen, LBrace, RBrace, LBracket, RBracket,
    Comma, Colon, Semi, Dot, DotDot, Arrow, FatArrow, Assign, Pipe, Bar, Plus,
    Minus, Star, Slash, Percent, PlusPlus, EqEq, NotEq, Lt, Le, Gt, Ge, AndAnd,
    OrOr, Bang, Error,
    ;
    data: Reserved, Upper, Lower, Int, Float, Str, StrHead, StrMid, StrTail, DocComment
}

// Every bit fits in `Expected::tokens`.
const _: () = assert!(KINDS.len() <= u64::BITS as usize);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_token_without_data_has_its_own_bit() {
        for (bit, t) in KINDS.iter().enumerate() {
            assert_eq!(kind(t), Some(bit as u32), "{t:?}");
        }
        assert_eq!(kind(&Token::Lower("x".into())), None);
    }

    #[test]
    fn a_set_holds_each_expectation_once_whatever_the_order() {
        let mut a = Expected::default();
        a.add_token(&Token::Comma);
        a.add_label("an expression");
        a.add_token(&Token::Lower("x".into()));
        let mut b = Expected::default();
        b.add_label("an expression");
        b.add_token(&Token::Comma);
        b.add_token(&Token::Lower("x".into()));
        b.end = true;
        a.union(b);
        let described: Vec<String> = a
            .patterns()
            .map(|p| match p {
                Pattern::Token(t) => t.to_string(),
                Pattern::Label(l) => l.to_string(),
                Pattern::EndOfInput => "end".to_string(),
                Pattern::Any => "any".to_string(),
            })
            .collect();
        assert_eq!(described, ["`,`", "identifier `x`", "an expression", "end"]);
    }

    #[test]
    fn labels_outside_the_table_are_kept() {
        let mut set = Expected::default();
        for name in ["a", "an expression", "b", "a", "a type"] {
            set.add_label(name);
        }
        let labels: Vec<&str> = set
            .patterns()
            .filter_map(|p| match p {
                Pattern::Label(l) => Some(l),
                _ => None,
            })
            .collect();
        assert_eq!(labels, ["an expression", "a type", "a", "b"]);
    }

    #[test]
    fn every_label_of_the_grammar_has_a_bit() {
        let sources = [
            include_str!("grammar.rs"),
            include_str!("items.rs"),
            include_str!("mod.rs"),
            include_str!("operators.rs"),
            include_str!("patterns.rs"),
            include_str!("separators.rs"),
            include_str!("types.rs"),
        ];
        let mut found = 0;
        for source in sources {
            for piece in source.split(".labelled(\"").skip(1) {
                let label = piece.split("\")").next().unwrap_or_default();
                assert!(LABELS.contains(&label), "{label} is not in LABELS");
                found += 1;
            }
        }
        assert!(found >= LABELS.len(), "only {found} labels found");
    }
}
