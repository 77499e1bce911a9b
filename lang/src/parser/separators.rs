//! Statements on one line need a `;` between them (`E0105`).
//!
//! Without a separator rule, `f 3` (a call missing its parentheses) and
//! `xs[0]` (indexing, which Writ does not have) would silently parse as two
//! statements. The check runs over each block's statements and over the
//! program's items, after they are parsed, using the line-break table in
//! [`ParseState`](crate::parser::ParseState).

use crate::ast::{Expr, ExprKind, Item, Stmt};
use crate::diagnostic::{Code, Diagnostic};
use crate::parser::{Extra, Tokens};
use crate::span::Span;

/// What the check needs to know about one statement or item.
pub(crate) struct Sep {
    span: Span,
    /// Followed by at least one `;`.
    semi: bool,
    /// Could not be parsed (already reported).
    damaged: bool,
    /// Ends with a bare name (so a following value may be a call argument).
    ends_with_name: bool,
    /// Is a list literal (so it may be an attempt at indexing).
    is_list: bool,
    /// Is a declaration (`fn`, `type`, `effect`).
    is_decl: bool,
}

fn ends_with_name(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Var(_) | ExprKind::Field { .. })
}

impl Sep {
    /// Describe a statement followed (or not) by `;`.
    pub(crate) fn stmt(s: &Stmt, semi: bool) -> Sep {
        let (damaged, ends, list) = match s {
            Stmt::Expr(e) => (
                matches!(e.kind, ExprKind::Error),
                ends_with_name(e),
                matches!(e.kind, ExprKind::List(_)),
            ),
            Stmt::Let(l) => (false, ends_with_name(&l.value), false),
            Stmt::Fn(_) => (false, false, false),
        };
        Sep {
            span: s.span(),
            semi,
            damaged,
            ends_with_name: ends,
            is_list: list,
            is_decl: matches!(s, Stmt::Fn(_)),
        }
    }

    /// Describe a top-level item followed (or not) by `;`.
    pub(crate) fn item(i: &Item, semi: bool) -> Sep {
        let decl = |span| Sep {
            span,
            semi,
            damaged: false,
            ends_with_name: false,
            is_list: false,
            is_decl: true,
        };
        match i {
            Item::Stmt(s) => Sep::stmt(s, semi),
            Item::Fn(f) => decl(f.span),
            Item::Type(t) => decl(t.span),
            Item::Effect(d) => decl(d.span),
        }
    }
}

/// Report each statement that follows another on the same line without `;`.
pub(crate) fn check_separated<'t>(
    e: &mut chumsky::input::MapExtra<'t, '_, Tokens<'t>, Extra<'t>>,
    seps: &[Sep],
) {
    // One report per line: the first missing separator explains the rest.
    let mut reported_line = None;
    for pair in seps.windows(2) {
        let [prev, next] = pair else { continue };
        let state = e.state();
        let line = state.line_start_of(next.span.start);
        if reported_line == Some(line) {
            continue;
        }
        if prev.semi
            || prev.damaged
            || next.damaged
            || state.line_break_between(prev.span.end, next.span.start)
            || state.line_damaged(next.span.start)
        {
            continue;
        }
        reported_line = Some(line);
        let help = if prev.is_decl || next.is_decl {
            "put each declaration on its own line, or separate them with `;`"
        } else if next.is_list {
            "Writ has no indexing: write `list.get(xs, i)`, which returns an `Option`"
        } else if prev.ends_with_name {
            "to call a function, write its arguments in parentheses: `f(x)`; to put two statements on one line, separate them with `;`"
        } else {
            "to put two statements on one line, separate them with `;`; to combine values, use an operator such as `+` or `++`"
        };
        state.diagnostics.push(
            Diagnostic::new(
                Code::MissingSeparator,
                "expected `;` or a line break between two statements, found another statement on the same line",
            )
            .with_primary(next.span, "a second statement starts here")
            .with_secondary(prev.span, "after this one")
            .with_help(help),
        );
    }
}
