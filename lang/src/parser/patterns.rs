//! Patterns, as written in `let`, `match` arms and handler clauses.
//!
//! ```text
//! pattern := "_" | lower | literal | "-" number | "(" ")" | "(" pattern,+ ")"
//!          | Upper ("(" pattern,* ")")? | "{" (lower (":" pattern)?),* ".."? "}"
//!          | "[" (pattern | ".." lower?),* "]"
//! ```
//! A `..rest` element must be the last of its list pattern.

use chumsky::prelude::*;

use crate::ast::{FieldPattern, ListRest, Pattern, PatternKind};
use crate::diagnostic::{Code, Diagnostic};
use crate::parser::{P, field_name, lower, lparen, report, span, upper};
use crate::token::Token;

/// An element of a list pattern before validation.
#[derive(Clone)]
enum Elem {
    Pat(Pattern),
    Rest(ListRest),
}

/// A pattern.
pub(crate) fn pattern<'t>() -> impl P<'t, Pattern> {
    recursive(|pat| {
        let literal = select! {
            Token::Underscore => PatternKind::Wildcard,
            Token::True => PatternKind::Bool(true),
            Token::False => PatternKind::Bool(false),
            Token::Float(x) => PatternKind::Float(x),
            Token::Str(s) => PatternKind::Str(s),
            Token::Error => PatternKind::Error,
        };
        let int = just(Token::Minus)
            .or_not()
            .then(select! { Token::Int(v) => v })
            .validate(|(neg, v), e, _| match int_value(neg.is_some(), v) {
                Some(n) => PatternKind::Int(n),
                None => {
                    report(e, int_out_of_range);
                    PatternKind::Error
                }
            });
        let neg_float = just(Token::Minus)
            .ignore_then(select! { Token::Float(x) => x })
            .map(|x| PatternKind::Float(-x));
        let bind = lower().map(PatternKind::Bind);
        let items = pat
            .clone()
            .separated_by(just(Token::Comma))
            .allow_trailing()
            .collect::<Vec<_>>();
        let ctor = upper()
            .then(
                items
                    .clone()
                    .delimited_by(lparen(), just(Token::RParen))
                    .or_not(),
            )
            .map(|(name, args)| PatternKind::Ctor {
                name,
                args: args.unwrap_or_default(),
            });
        let tuple = items
            .clone()
            .delimited_by(lparen(), just(Token::RParen))
            .map_with(|mut items, e| match items.len() {
                0 => PatternKind::Unit,
                1 => {
                    let mut p = items.remove(0);
                    p.span = span(e.span());
                    p.kind
                }
                _ => PatternKind::Tuple(items),
            });
        // `{ name }` binds the field to `name`; a field named by a keyword
        // needs an explicit pattern: `{ type: t }`.
        let field = lower()
            .then(just(Token::Colon).ignore_then(pat.clone()).or_not())
            .or(field_name().then(just(Token::Colon).ignore_then(pat.clone()).map(Some)))
            .map(|(name, pattern)| FieldPattern { name, pattern });
        let record = field
            .separated_by(just(Token::Comma))
            .allow_trailing()
            .collect::<Vec<_>>()
            .then(
                just(Token::DotDot)
                    .then(just(Token::Comma).or_not())
                    .or_not(),
            )
            .delimited_by(just(Token::LBrace), just(Token::RBrace))
            .map(|(fields, rest)| PatternKind::Record {
                fields,
                open: rest.is_some(),
            });
        let rest_elem = just(Token::DotDot)
            .ignore_then(
                lower()
                    .map(Some)
                    .or(just(Token::Underscore).to(None))
                    .or_not(),
            )
            .map_with(|name, e| {
                Elem::Rest(ListRest {
                    name: name.flatten(),
                    span: span(e.span()),
                })
            });
        let list = rest_elem
            .or(pat.clone().map(Elem::Pat))
            .separated_by(just(Token::Comma))
            .allow_trailing()
            .collect::<Vec<_>>()
            .delimited_by(just(Token::LBracket), just(Token::RBracket))
            .validate(|elems, e, _| {
                let mut items = Vec::new();
                let mut rest: Option<ListRest> = None;
                for elem in elems {
                    if let Some(r) = &rest {
                        report(e, |_| {
                            Diagnostic::new(
                                Code::UnexpectedToken,
                                "expected `]` after the `..` rest pattern, found another element",
                            )
                            .with_primary(r.span, "the rest pattern must come last")
                            .with_help("a list pattern matches leading elements then the rest: `[first, second, ..rest]`")
                        });
                        break;
                    }
                    match elem {
                        Elem::Pat(p) => items.push(p),
                        Elem::Rest(r) => rest = Some(r),
                    }
                }
                PatternKind::List { items, rest }
            });

        choice((int, neg_float, literal, bind, ctor, tuple, record, list))
            .map_with(|kind, e| Pattern {
                kind,
                span: span(e.span()),
            })
            .labelled("a pattern")
    })
}

/// The value of an integer literal `v`, negated if `neg`, if it fits `Int`.
pub(crate) fn int_value(neg: bool, v: u64) -> Option<i64> {
    if neg {
        0i64.checked_sub_unsigned(v)
    } else {
        i64::try_from(v).ok()
    }
}

/// The diagnostic for `9223372036854775808` written without a minus.
pub(crate) fn int_out_of_range(at: crate::span::Span) -> Diagnostic {
    Diagnostic::new(
        Code::IntegerOutOfRange,
        "integer literal `9223372036854775808` is out of range: the largest `Int` is 9223372036854775807",
    )
    .with_primary(at, "too large for `Int`")
    .with_help("only the negative number `-9223372036854775808` can be written with these digits; a `-` that subtracts (after a value, or at the start of a line, which goes on with the line before) leaves them alone: bracket the number, `(-9223372036854775808)`")
}
