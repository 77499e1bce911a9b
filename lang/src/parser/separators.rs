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
    /// The word another language uses as a keyword (`try`, `switch`, ...)
    /// that the statement is, ends with, or starts calling, with its span.
    foreign: Option<(&'static str, Span)>,
}

fn ends_with_name(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Var(_) | ExprKind::Field { .. })
}

/// Words other languages use as keywords, which Writ does not reserve (a
/// Writ program may name a function `catch`), each with the Writ way.
const FOREIGN_KEYWORDS: &[(&str, &str)] = &[
    ("try", EXCEPTIONS),
    ("catch", EXCEPTIONS),
    ("except", EXCEPTIONS),
    ("finally", EXCEPTIONS),
    ("throw", EXCEPTIONS),
    ("raise", EXCEPTIONS),
    ("switch", SWITCH),
    ("case", SWITCH),
    ("lambda", LAMBDA),
];

const EXCEPTIONS: &str = "Writ has no exceptions: fail with `Fail.fail(\"message\")` and recover with a handler, `handle risky() with { Fail.fail(msg) => fallback }`; or return a `Result` (`Ok(v)` or `Err(e)`) and `match` on it";
const SWITCH: &str = "Writ has no `switch`: write `match x { 1 => \"one\", _ => \"other\" }`, one `pattern => value` arm per case";
const LAMBDA: &str = "a function value is written `fn(x) { x + 1 }`";

/// The foreign keyword `e` is (or calls), if any.
fn foreign(e: &Expr) -> Option<(&'static str, Span)> {
    let (name, at) = match &e.kind {
        ExprKind::Var(id) => (id.name.as_str(), id.span),
        ExprKind::Call { callee, .. } => match &callee.kind {
            ExprKind::Var(id) => (id.name.as_str(), id.span),
            _ => return None,
        },
        _ => return None,
    };
    FOREIGN_KEYWORDS
        .iter()
        .find(|(word, _)| *word == name)
        .map(|(word, _)| (*word, at))
}

/// The Writ way for a foreign keyword.
fn foreign_help(word: &str) -> &'static str {
    FOREIGN_KEYWORDS
        .iter()
        .find(|(w, _)| *w == word)
        .map_or(LAMBDA, |(_, help)| help)
}

impl Sep {
    /// Describe a statement followed (or not) by `;`.
    pub(crate) fn stmt(s: &Stmt, semi: bool) -> Sep {
        let (damaged, ends, list, foreign) = match s {
            Stmt::Expr(e) => (
                matches!(e.kind, ExprKind::Error),
                ends_with_name(e),
                matches!(e.kind, ExprKind::List(_)),
                foreign(e),
            ),
            Stmt::Let(l) => (false, ends_with_name(&l.value), false, foreign(&l.value)),
            Stmt::Fn(_) => (false, false, false, None),
        };
        Sep {
            span: s.span(),
            semi,
            damaged,
            ends_with_name: ends,
            is_list: list,
            is_decl: matches!(s, Stmt::Fn(_)),
            foreign,
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
            foreign: None,
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
        // A keyword of another language (`try {`, `switch x {`, `throw e`,
        // `lambda x: ...`) reads as a name followed by another statement.
        if let Some((word, at)) = prev.foreign.or(next.foreign) {
            state.foreign_words.push(at.start);
            state.diagnostics.push(
                Diagnostic::new(
                    Code::MissingSeparator,
                    format!(
                        "expected `;` or a line break between two statements, found `{word}` and another statement: Writ has no `{word}`"
                    ),
                )
                .with_primary(next.span, "a second statement starts here")
                .with_secondary(at, format!("`{word}` is not a Writ keyword"))
                .with_help(foreign_help(word)),
            );
            continue;
        }
        let help = if prev.is_decl || next.is_decl {
            "put each declaration on its own line, or separate them with `;`"
        } else if next.is_list {
            "Writ has no indexing: write `list.get(xs, i)` for a `List`, `map.get(m, key)` for a `Map`; both return an `Option`"
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
