//! Prefix and binary operators: precedence climbing over a flat list.
//!
//! An expression is parsed as `operand (operator operand)*`, where an
//! operand is any number of prefix operators applied to a postfix
//! expression; [`climb`] then builds the tree with an explicit stack
//! (shunting-yard), so long chains never recurse. One `select!` reads each
//! operator, which keeps parsing cheap.
//!
//! Precedence, loosest first: `||`, `&&`, comparisons (which do not chain),
//! `++`, `|>`, `+ -`, `* / %`; all binary operators associate to the left.

use chumsky::prelude::*;

use crate::ast::{BinOp, Expr, ExprKind, UnOp};
use crate::diagnostic::{Code, Diagnostic};
use crate::parser::{Extra, P, Tokens, span};
use crate::span::Span;
use crate::token::Token;

type Extras<'t, 'b> = chumsky::input::MapExtra<'t, 'b, Tokens<'t>, Extra<'t>>;

/// Any binary operator, with the span of the operator.
pub(crate) fn binary_op<'t>() -> impl P<'t, BinOp> {
    select! {
        Token::OrOr => BinOp::Or,
        Token::AndAnd => BinOp::And,
        Token::EqEq => BinOp::Eq,
        Token::NotEq => BinOp::Ne,
        Token::Lt => BinOp::Lt,
        Token::Le => BinOp::Le,
        Token::Gt => BinOp::Gt,
        Token::Ge => BinOp::Ge,
        Token::PlusPlus => BinOp::Concat,
        Token::Pipe => BinOp::Pipe,
        Token::Plus => BinOp::Add,
        Token::Minus => BinOp::Sub,
        Token::Star => BinOp::Mul,
        Token::Slash => BinOp::Div,
        Token::Percent => BinOp::Rem,
    }
    .labelled("an operator")
}

/// How tightly `op` binds (higher binds tighter).
fn precedence(op: BinOp) -> u8 {
    match op {
        BinOp::Or => 1,
        BinOp::And => 2,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 3,
        BinOp::Concat => 4,
        BinOp::Pipe => 5,
        BinOp::Add | BinOp::Sub => 6,
        BinOp::Mul | BinOp::Div | BinOp::Rem => 7,
    }
}

/// Whether `e` is a comparison written without parentheses around it.
fn bare_comparison(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Binary { op, lhs, .. } => op.is_comparison() && lhs.span.start == e.span.start,
        _ => false,
    }
}

/// Combine `lhs op rhs`, reporting a comparison chained onto another.
fn combine(op: BinOp, lhs: Expr, rhs: Expr, e: &mut Extras<'_, '_>) -> Expr {
    let whole = lhs.span.join(rhs.span);
    let chained = op.is_comparison()
        && bare_comparison(&lhs)
        && !matches!(&lhs.kind, ExprKind::Binary { lhs: inner, .. } if bare_comparison(inner));
    if chained {
        let first = match &lhs.kind {
            ExprKind::Binary { op, .. } => op.as_str(),
            _ => "",
        };
        e.state().diagnostics.push(
            Diagnostic::new(
                Code::ChainedComparison,
                format!(
                    "expected `&&` or `||` between comparisons, found `{first}` followed by `{}`",
                    op.as_str()
                ),
            )
            .with_primary(
                Span::new(lhs.span.end, whole.end),
                "comparisons cannot be chained",
            )
            .with_secondary(lhs.span, "first comparison")
            .with_help(
                "write `a < b && b < c`, or add parentheses if you mean to compare a `Bool`",
            ),
        );
    }
    Expr {
        kind: ExprKind::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
        span: whole,
    }
}

/// Build the tree for `first (op operand)*` by precedence, left-associative.
pub(crate) fn climb(first: Expr, rest: Vec<(BinOp, Expr)>, e: &mut Extras<'_, '_>) -> Expr {
    let mut operands: Vec<Expr> = vec![first];
    let mut ops: Vec<BinOp> = Vec::new();
    let reduce = |operands: &mut Vec<Expr>, op: BinOp, e: &mut Extras<'_, '_>| {
        if let (Some(rhs), Some(lhs)) = (operands.pop(), operands.pop()) {
            operands.push(combine(op, lhs, rhs, e));
        }
    };
    for (op, rhs) in rest {
        while let Some(&top) = ops.last()
            && precedence(top) >= precedence(op)
        {
            ops.pop();
            reduce(&mut operands, top, e);
        }
        ops.push(op);
        operands.push(rhs);
    }
    while let Some(top) = ops.pop() {
        reduce(&mut operands, top, e);
    }
    operands.pop().unwrap_or(Expr {
        kind: ExprKind::Error,
        span: span(e.span()),
    })
}

/// Apply a prefix operator. `-` directly before a number literal is folded
/// into it, so that the smallest `Int` can be written.
pub(crate) fn prefix(op: UnOp, operand: Expr, e: &mut Extras<'_, '_>) -> Expr {
    let s = span(e.span());
    match (op, &operand.kind) {
        (UnOp::Neg, ExprKind::Int(n)) if operand.span.start > s.start => {
            if *n != i64::MIN {
                return Expr {
                    kind: ExprKind::Int(-n),
                    span: s,
                };
            }
            // `9223372036854775808` was reported as out of range when read;
            // negated, it is the smallest `Int`.
            let at = operand.span;
            let diags = &mut e.state().diagnostics;
            let before = diags.len();
            // (The literal may be in brackets, `-(9223372036854775808)`:
            // its report lies inside the operand.)
            diags.retain(|d| {
                !(d.code == Code::IntegerOutOfRange
                    && d.primary_span()
                        .is_some_and(|p| at.start <= p.start && p.end <= at.end))
            });
            if diags.len() == before {
                diags.push(
                    Diagnostic::new(
                        Code::IntegerOutOfRange,
                        "expected a value `Int` can hold, found the negation of -9223372036854775808, which is 9223372036854775808",
                    )
                    .with_primary(s, "too large for `Int`")
                    .with_help("the largest `Int` is 9223372036854775807"),
                );
            }
            Expr {
                kind: ExprKind::Int(i64::MIN),
                span: s,
            }
        }
        (UnOp::Neg, ExprKind::Float(x)) => Expr {
            kind: ExprKind::Float(-x),
            span: s,
        },
        _ => Expr {
            kind: ExprKind::Unary {
                op,
                expr: Box::new(operand),
            },
            span: s,
        },
    }
}
