//! Top-level declarations and the program.
//!
//! ```text
//! program := (fn_decl | type_decl | effect_decl | statement ";"*)*
//! type_decl := doc "type" Upper ("[" lower,+ "]")? "=" (record | "|"? variant ("|" variant)*)
//! effect_decl := doc "effect" Upper ("[" lower,+ "]")? "{" (doc "fn" lower params ("->" type)? ","?)* "}"
//! ```
//! Recovery: an item that does not parse is skipped, bracket group by
//! bracket group, up to the next `fn`, `type`, `effect` or `let`, and
//! reported once.

use chumsky::prelude::*;

use crate::ast::{
    EffectDecl, FieldDecl, Ident, Item, OpDecl, Program, Stmt, TypeBody, TypeDecl, VariantDecl,
};
use crate::ast::{Expr, ExprKind};
use crate::parser::grammar::{expr_and_block, fn_decl, params, skip_statement, stmt};
use crate::parser::separators::{Sep, check_separated};
use crate::parser::types::type_expr;
use crate::parser::{P, doc, field_name, lower, lparen, operation_name, span, upper};
use crate::token::Token;

/// `[a, b]` after a declared name.
fn type_params<'t>() -> impl P<'t, Vec<Ident>> {
    lower()
        .separated_by(just(Token::Comma))
        .allow_trailing()
        .at_least(1)
        .collect::<Vec<_>>()
        .delimited_by(just(Token::LBracket), just(Token::RBracket))
        .or_not()
        .map(Option::unwrap_or_default)
}

fn type_decl<'t>() -> impl P<'t, TypeDecl> {
    let field = field_name()
        .then_ignore(just(Token::Colon))
        .then(type_expr())
        .map_with(|(name, ty), e| FieldDecl {
            name,
            ty,
            span: span(e.span()),
        });
    let record = field
        .separated_by(just(Token::Comma))
        .allow_trailing()
        .collect::<Vec<_>>()
        .delimited_by(just(Token::LBrace), just(Token::RBrace))
        .map(TypeBody::Record);
    let variant = upper()
        .then(
            type_expr()
                .separated_by(just(Token::Comma))
                .allow_trailing()
                .collect::<Vec<_>>()
                .delimited_by(lparen(), just(Token::RParen))
                .or_not(),
        )
        .map_with(|(name, fields), e| VariantDecl {
            name,
            fields: fields.unwrap_or_default(),
            span: span(e.span()),
        })
        .labelled("a constructor such as `Some(a)` or `None`");
    let variants = just(Token::Bar)
        .or_not()
        .ignore_then(
            variant
                .separated_by(just(Token::Bar))
                .at_least(1)
                .collect::<Vec<_>>(),
        )
        .map(TypeBody::Variants);
    doc()
        .then_ignore(just(Token::Type))
        .then(upper())
        .then(type_params())
        .then_ignore(just(Token::Assign))
        .then(record.or(variants))
        .map_with(|(((doc, name), params), body), e| TypeDecl {
            doc,
            name,
            params,
            body,
            span: span(e.span()),
        })
}

fn effect_decl<'t>() -> impl P<'t, EffectDecl> {
    let op = doc()
        .then_ignore(just(Token::Fn))
        .then(operation_name())
        .then(params())
        .then(just(Token::Arrow).ignore_then(type_expr()).or_not())
        .map_with(|(((doc, name), params), ret), e| OpDecl {
            doc,
            name,
            params,
            ret,
            span: span(e.span()),
        })
        .labelled("an operation such as `fn get(url: Str) -> Str`");
    let sep = just(Token::Comma).or(just(Token::Semi)).repeated();
    doc()
        .then_ignore(just(Token::Effect))
        .then(upper())
        .then(type_params())
        .then(
            sep.clone()
                .ignore_then(op.then_ignore(sep).repeated().collect::<Vec<_>>())
                .delimited_by(just(Token::LBrace), just(Token::RBrace)),
        )
        .map_with(|(((doc, name), params), ops), e| EffectDecl {
            doc,
            name,
            params,
            ops,
            span: span(e.span()),
        })
}

/// A damaged item, skipped (see [`skip_statement`]).
fn skip_item<'t>() -> impl P<'t, Item> {
    skip_statement().map(|span| {
        Item::Stmt(Stmt::Expr(Expr {
            kind: ExprKind::Error,
            span,
        }))
    })
}

/// A whole program.
pub(crate) fn program<'t>(native: bool) -> impl P<'t, Program> {
    let (expr, block) = expr_and_block();
    let item = choice((
        fn_decl(block.clone(), native).map(|f| Item::Fn(Box::new(f))),
        type_decl().map(Item::Type),
        effect_decl().map(Item::Effect),
        stmt(expr, block).map(Item::Stmt),
    ))
    .recover_with(via_parser(skip_item()));
    let semis = just(Token::Semi).repeated();
    semis
        .clone()
        .ignore_then(
            item.then(semis.at_least(1).to(true).or_not().map(|s| s.is_some()))
                .repeated()
                .collect::<Vec<_>>(),
        )
        .then_ignore(end())
        .map_with(|items, e| {
            let seps: Vec<Sep> = items
                .iter()
                .map(|(item, semi)| Sep::item(item, *semi))
                .collect();
            check_separated(e, &seps);
            Program {
                items: items.into_iter().map(|(i, _)| i).collect(),
            }
        })
}
