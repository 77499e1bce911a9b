//! Type expressions and effect rows.
//!
//! ```text
//! type  := atom ("->" type ("/" row)?)?
//! atom  := Upper ("[" type,+ "]")? | lower | "(" type,* ")" | "{" field,* "}"
//!        | "fn" "(" type,* ")" ("->" type)? ("/" row)?
//! row   := "{" (Effect ("," Effect)*)? ("|" lower)? "}" | "{" lower "}"
//! ```
//! A parenthesised list before `->` is a parameter list: `(Int, Str) -> Bool`
//! takes two arguments, `((Int, Str)) -> Bool` one tuple. A row after an
//! arrow belongs to that arrow.

use chumsky::prelude::*;

use crate::ast::{EffectRef, EffectRow, FieldDecl, Ident, TypeExpr, TypeExprKind};
use crate::diagnostic::{Code, Diagnostic};
use crate::parser::{P, field_name, lower, lparen, report, span, upper};
use crate::token::Token;

/// One element of an effect row before validation.
#[derive(Clone)]
enum RowItem {
    Effect(EffectRef),
    Var(Ident),
}

/// An effect row, given the type parser for effect arguments.
pub(crate) fn row<'t>(ty: impl P<'t, TypeExpr>) -> impl P<'t, EffectRow> {
    let args = ty
        .separated_by(just(Token::Comma))
        .allow_trailing()
        .at_least(1)
        .collect::<Vec<_>>()
        .delimited_by(just(Token::LBracket), just(Token::RBracket));
    let effect = upper().then(args.or_not()).map_with(|(name, args), e| {
        RowItem::Effect(EffectRef {
            name,
            args: args.unwrap_or_default(),
            span: span(e.span()),
        })
    });
    let item = effect.or(lower().map(RowItem::Var));
    // After `|`, the row variable; effects there (`{e | Log}`) are read
    // too, to say where they go.
    let after_bar = item
        .clone()
        .separated_by(just(Token::Comma))
        .allow_trailing()
        .at_least(1)
        .collect::<Vec<_>>();
    item.separated_by(just(Token::Comma))
        .allow_trailing()
        .collect::<Vec<_>>()
        .then(just(Token::Bar).ignore_then(after_bar).or_not())
        .delimited_by(just(Token::LBrace), just(Token::RBrace))
        .validate(|(mut items, after), e, _| {
            let row_span = span(e.span());
            let mut effects = Vec::new();
            let mut bar_tail = None;
            match after.as_deref() {
                Some([RowItem::Var(v)]) => bar_tail = Some(v.clone()),
                Some(rest) => {
                    let first_effect = rest.iter().find_map(|i| match i {
                        RowItem::Effect(r) => Some(r.clone()),
                        RowItem::Var(_) => None,
                    });
                    let var = items.iter().chain(rest.iter()).find_map(|i| match i {
                        RowItem::Var(v) => Some(v.name.clone()),
                        RowItem::Effect(_) => None,
                    });
                    let help = match &var {
                        Some(var) => format!(
                            "the effects come first and the row variable last, after `|`: `{{E1, E2 | {var}}}`"
                        ),
                        None => "effects are separated by `,` (`{Log, Http}`); `|` comes before a row variable only (`{Log, Http | e}`)".to_string(),
                    };
                    let at = match &first_effect {
                        Some(r) => r.span,
                        None => row_span,
                    };
                    report(e, |_| {
                        Diagnostic::new(
                            Code::RowVariablePosition,
                            match &first_effect {
                                Some(r) => format!(
                                    "expected one row variable after `|`, found the effect `{}`",
                                    r.name.name
                                ),
                                None => "expected one row variable after `|`, found several".to_string(),
                            },
                        )
                        .with_primary(at, "after `|`")
                        .with_help(help)
                    });
                    // Read on as if written in order: the effects, then
                    // the variable (no second report for it).
                    for i in rest.iter() {
                        match i {
                            RowItem::Effect(r) => effects.push(r.clone()),
                            RowItem::Var(v) => bar_tail = Some(v.clone()),
                        }
                    }
                    items.retain(|i| match i {
                        RowItem::Var(v) if bar_tail.is_none() => {
                            bar_tail = Some(v.clone());
                            false
                        }
                        _ => true,
                    });
                }
                None => {}
            }
            let mut tail = bar_tail;
            let only_item = items.len() == 1 && tail.is_none();
            let last = items.len().saturating_sub(1);
            let mut reported = false;
            for (i, item) in items.into_iter().enumerate() {
                match item {
                    RowItem::Effect(r) => effects.push(r),
                    RowItem::Var(v) if only_item => tail = Some(v),
                    // One row variable problem per row is enough.
                    RowItem::Var(_) if reported => {}
                    RowItem::Var(v) if i == last && tail.is_none() => {
                        reported = true;
                        report(e, |_| {
                            Diagnostic::new(
                                Code::RowVariablePosition,
                                format!(
                                    "expected `|` before the row variable `{}`, found `,`",
                                    v.name
                                ),
                            )
                            .with_primary(v.span, "row variable after a comma")
                            .with_help(format!(
                                "separate the row variable with `|`: `{{E1, E2 | {}}}`",
                                v.name
                            ))
                        });
                        tail = Some(v);
                    }
                    RowItem::Var(v) => {
                        reported = true;
                        report(e, |_| {
                            Diagnostic::new(
                                Code::RowVariablePosition,
                                format!(
                                    "expected an effect name, found the row variable `{}`",
                                    v.name
                                ),
                            )
                            .with_primary(v.span, "row variable in the middle of the row")
                            .with_help(format!(
                                "put the row variable last, after `|`: `{{E1, E2 | {}}}`",
                                v.name
                            ))
                        })
                    }
                }
            }
            EffectRow {
                effects,
                tail,
                span: row_span,
            }
        })
        .labelled("an effect row such as `{Http, Log}`")
}

/// A type expression.
pub(crate) fn type_expr<'t>() -> impl P<'t, TypeExpr> {
    recursive(|ty| {
        let type_args = ty
            .clone()
            .separated_by(just(Token::Comma))
            .allow_trailing()
            .at_least(1)
            .collect::<Vec<_>>()
            .delimited_by(just(Token::LBracket), just(Token::RBracket));
        let named = upper()
            .then(type_args.or_not())
            .map(|(name, args)| TypeExprKind::Named {
                name,
                args: args.unwrap_or_default(),
            });
        let var = lower().map(TypeExprKind::Var);
        let field = field_name()
            .then_ignore(just(Token::Colon))
            .then(ty.clone())
            .map_with(|(name, ty), e| FieldDecl {
                name,
                ty,
                span: span(e.span()),
            });
        let record = field
            .separated_by(just(Token::Comma))
            .allow_trailing()
            .collect::<Vec<_>>()
            .then(just(Token::DotDot).or_not().map(|d| d.is_some()))
            .delimited_by(just(Token::LBrace), just(Token::RBrace))
            .map(|(fields, open)| TypeExprKind::Record { fields, open });
        let list = ty
            .clone()
            .separated_by(just(Token::Comma))
            .allow_trailing()
            .collect::<Vec<_>>()
            .delimited_by(lparen(), just(Token::RParen));
        let fn_type = just(Token::Fn)
            .ignore_then(list.clone())
            .then(just(Token::Arrow).ignore_then(ty.clone()).or_not())
            .then(just(Token::Slash).ignore_then(row(ty.clone())).or_not())
            .map_with(|((params, ret), effects), e| {
                let ret = ret.unwrap_or(TypeExpr {
                    kind: TypeExprKind::Unit,
                    span: span(e.span()),
                });
                TypeExprKind::Fn {
                    params,
                    ret: Box::new(ret),
                    effects,
                }
            });
        let error = just(Token::Error).to(TypeExprKind::Error);

        // Atoms other than a parenthesised list.
        let single = choice((fn_type, named, var, record, error)).map_with(|kind, e| {
            (
                vec![TypeExpr {
                    kind,
                    span: span(e.span()),
                }],
                false,
            )
        });
        let parens = list.map(|items| (items, true));
        let arrow = just(Token::Arrow)
            .ignore_then(ty.clone())
            .then(just(Token::Slash).ignore_then(row(ty)).or_not());

        single
            .or(parens)
            .then(arrow.or_not())
            // The rest of a type cut off by the depth limit (reported).
            .then_ignore(just(Token::Error).or_not())
            .map_with(|((mut items, parenthesised), arrow), e| {
                let whole = span(e.span());
                match arrow {
                    Some((ret, effects)) => TypeExpr {
                        kind: TypeExprKind::Fn {
                            params: items,
                            ret: Box::new(ret),
                            effects,
                        },
                        span: whole,
                    },
                    None if !parenthesised && items.len() == 1 => items.remove(0),
                    None => match items.len() {
                        0 => TypeExpr {
                            kind: TypeExprKind::Unit,
                            span: whole,
                        },
                        1 => {
                            let mut t = items.remove(0);
                            t.span = whole;
                            t
                        }
                        _ => TypeExpr {
                            kind: TypeExprKind::Tuple(items),
                            span: whole,
                        },
                    },
                }
            })
            .labelled("a type")
    })
}
