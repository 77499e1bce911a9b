//! Bracket balancing: runs between the lexer and the parser.
//!
//! Every `(`, `[` and `{` is matched with its closer here, before parsing,
//! so that an unclosed or stray bracket is reported once, precisely ("expected
//! `}` to close the `{` opened at 3:14"), and the parser receives a balanced
//! token stream in which the damage stays local. Repairs:
//!
//! - a closer with no opener is dropped;
//! - a closer of the wrong kind closes the innermost opener instead;
//! - openers still open where a closer for an outer opener arrives, where a
//!   closing `}` at the start of a line lines up with an outer opener's line,
//!   where a new item (`fn name`, `type Name`, `effect Name`) starts at
//!   column 1, or at the end of input, are closed there;
//! - a group nested deeper than [`MAX_NESTING`] is replaced by one
//!   [`Token::Error`] token.
//!
//! Invariant: the output has balanced brackets and never nests deeper than
//! [`MAX_NESTING`], so no later recursive stage can exhaust the stack on
//! bracket nesting.

use crate::diagnostic::{Code, Diagnostic};
use crate::span::{LineIndex, Span};
use crate::token::Token;

/// The deepest bracket nesting accepted.
pub const MAX_NESTING: usize = 256;

/// An open bracket waiting for its closer.
struct Open {
    token: Token,
    span: Span,
    /// Indentation (in characters) of the line the opener is on.
    indent: usize,
}

/// Balance the brackets of `tokens`, reporting every repair.
pub fn balance(
    src: &str,
    tokens: Vec<(Token, Span)>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<(Token, Span)> {
    let lines = LineIndex::new(src);
    let mut out: Vec<(Token, Span)> = Vec::with_capacity(tokens.len());
    let mut stack: Vec<Open> = Vec::new();
    // While skipping a too-deep group: the depth at which skipping ends and
    // where the skipped region started.
    let mut skipping: Option<(usize, Span)> = None;
    let mut iter = tokens.into_iter().peekable();

    while let Some((tok, span)) = iter.next() {
        if let Some((depth, start)) = skipping {
            if tok.is_open() {
                stack.push(Open {
                    token: tok,
                    span,
                    indent: 0,
                });
                continue;
            }
            if tok.is_close() && stack.len() > depth {
                stack.pop();
                if stack.len() == depth {
                    out.push((Token::Error, start.join(span)));
                    skipping = None;
                }
                continue;
            }
            if !tok.is_close() {
                continue;
            }
            // A closer that would close below the skip depth: stop skipping
            // and handle it normally.
            out.push((Token::Error, start.join(span)));
            skipping = None;
        }

        if tok.is_open() {
            if stack.len() >= MAX_NESTING {
                diags.push(
                    Diagnostic::new(
                        Code::NestingTooDeep,
                        format!(
                            "expected at most {MAX_NESTING} levels of nested brackets, found more"
                        ),
                    )
                    .with_primary(
                        span,
                        format!("this bracket is nested more than {MAX_NESTING} deep"),
                    )
                    .with_help("split the expression into smaller pieces with `let`"),
                );
                let depth = stack.len();
                stack.push(Open {
                    token: tok,
                    span,
                    indent: 0,
                });
                skipping = Some((depth, span));
                continue;
            }
            let indent = line_indent(src, &lines, span.start);
            stack.push(Open {
                token: tok.clone(),
                span,
                indent,
            });
            out.push((tok, span));
            continue;
        }

        if tok.is_close() {
            close(src, &lines, &mut stack, &mut out, diags, tok, span);
            continue;
        }

        // A line that starts at or left of the line where a `(` or `[` was
        // opened, without closing it, means it was left open.
        if let Some((prev_end, first_on_line)) = out.last().map(|(_, s)| s.end).map(|e| {
            (
                e,
                src.get(e..span.start).is_some_and(|gap| gap.contains('\n')),
            )
        }) && first_on_line
        {
            let indent = line_indent(src, &lines, span.start);
            while let Some(open) = stack.last()
                && open.token != Token::LBrace
                && open.indent >= indent
            {
                let Some(open) = stack.pop() else { break };
                report_unclosed(
                    &lines,
                    &open,
                    span,
                    &format!("{tok} on the next line"),
                    diags,
                );
                push_closer(&mut out, &open, Span::point(prev_end));
            }
        }

        // A new item at column 1 closes everything still open.
        if !stack.is_empty()
            && starts_item(&tok, iter.peek().map(|(t, _)| t))
            && lines.position(span.start).column == 1
        {
            while let Some(open) = stack.pop() {
                report_unclosed(&lines, &open, span, &found_text(&tok), diags);
                push_closer(&mut out, &open, span);
            }
        }
        out.push((tok, span));
    }

    if let Some((_, start)) = skipping {
        out.push((Token::Error, start.join(Span::point(src.len()))));
    }
    let eof = Span::point(src.len());
    while let Some(open) = stack.pop() {
        report_unclosed(&lines, &open, eof, "the end of input", diags);
        push_closer(&mut out, &open, eof);
    }
    out
}

/// Handle one closing token.
fn close(
    src: &str,
    lines: &LineIndex<'_>,
    stack: &mut Vec<Open>,
    out: &mut Vec<(Token, Span)>,
    diags: &mut Vec<Diagnostic>,
    tok: Token,
    span: Span,
) {
    let Some(top) = stack.last() else {
        diags.push(
            Diagnostic::new(
                Code::UnexpectedClosingDelimiter,
                format!("found {tok} with no matching opening bracket"),
            )
            .with_primary(span, "nothing to close here")
            .with_help("remove it, or add the opening bracket it belongs to"),
        );
        return;
    };
    let matches_top = top.token.closer().as_ref() == Some(&tok);

    // A `}` alone at the start of a line that lines up with an outer `{`'s
    // line closes that one; the blocks in between were left open.
    if tok == Token::RBrace && at_line_start(src, span.start) {
        let col = line_indent(src, lines, span.start);
        if top.indent > col
            && let Some(pos) = stack
                .iter()
                .rposition(|o| o.token == Token::LBrace && o.indent == col)
        {
            while stack.len() > pos + 1 {
                if let Some(open) = stack.pop() {
                    report_unclosed(lines, &open, span, "`}`", diags);
                    push_closer(out, &open, span);
                }
            }
            stack.pop();
            out.push((tok, span));
            return;
        }
    }

    if matches_top {
        stack.pop();
        out.push((tok, span));
        return;
    }

    // A closer for some outer opener: the ones above it were never closed.
    if let Some(pos) = stack
        .iter()
        .rposition(|o| o.token.closer().as_ref() == Some(&tok))
    {
        while stack.len() > pos + 1 {
            if let Some(open) = stack.pop() {
                report_unclosed(lines, &open, span, &found_text(&tok), diags);
                push_closer(out, &open, span);
            }
        }
        stack.pop();
        out.push((tok, span));
        return;
    }

    // No opener of this kind at all: treat it as the closer the innermost
    // opener expects.
    if let Some(open) = stack.pop() {
        let want = open.token.closer().unwrap_or(Token::RParen);
        let at = lines.position(open.span.start);
        diags.push(
            Diagnostic::new(
                Code::MismatchedDelimiter,
                format!(
                    "expected {want} to close the {} opened at {}:{}, found {tok}",
                    open.token, at.line, at.column
                ),
            )
            .with_primary(span, format!("expected {want} here"))
            .with_secondary(open.span, "opened here")
            .with_help(format!("replace {tok} with {want}")),
        );
        out.push((want, span));
    }
}

fn report_unclosed(
    lines: &LineIndex<'_>,
    open: &Open,
    at: Span,
    found: &str,
    diags: &mut Vec<Diagnostic>,
) {
    let want = open.token.closer().unwrap_or(Token::RParen);
    let pos = lines.position(open.span.start);
    diags.push(
        Diagnostic::new(
            Code::UnclosedDelimiter,
            format!(
                "expected {want} to close the {} opened at {}:{}, found {found}",
                open.token, pos.line, pos.column
            ),
        )
        .with_primary(at, format!("expected {want} before this"))
        .with_secondary(open.span, "opened here, never closed")
        .with_help(format!("add {want} where the {} should end", open.token)),
    );
}

/// Insert a synthetic closer for `open`, as an empty span at `at`.
fn push_closer(out: &mut Vec<(Token, Span)>, open: &Open, at: Span) {
    out.push((
        open.token.closer().unwrap_or(Token::RParen),
        Span::point(at.start),
    ));
}

fn found_text(tok: &Token) -> String {
    tok.to_string()
}

/// Whether `tok` followed by `next` begins a top-level item.
fn starts_item(tok: &Token, next: Option<&Token>) -> bool {
    match (tok, next) {
        (Token::Fn, Some(Token::Lower(_))) => true,
        (Token::Type | Token::Effect, Some(Token::Upper(_))) => true,
        (Token::DocComment(_), _) => true,
        _ => false,
    }
}

/// Whether only spaces and tabs stand between the start of the line and
/// `offset`.
fn at_line_start(src: &str, offset: usize) -> bool {
    let before = src.get(..offset).unwrap_or("");
    let line = before.rsplit('\n').next().unwrap_or("");
    line.chars().all(|c| c == ' ' || c == '\t')
}

/// Indentation (leading spaces and tabs, in characters) of the line holding
/// `offset`.
fn line_indent(src: &str, lines: &LineIndex<'_>, offset: usize) -> usize {
    let pos = lines.position(offset);
    let line_start = pos.offset
        - src
            .get(..pos.offset)
            .map_or(0, |b| b.rsplit('\n').next().map_or(0, str::len));
    src.get(line_start..)
        .unwrap_or("")
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexer::lex;

    fn run(src: &str) -> (Vec<Token>, Vec<Code>) {
        let mut diags = Vec::new();
        let toks = balance(src, lex(src).tokens, &mut diags);
        (
            toks.into_iter().map(|(t, _)| t).collect(),
            diags.iter().map(|d| d.code).collect(),
        )
    }

    #[test]
    fn balanced_input_is_untouched() {
        let (toks, codes) = run("f(a, [b], { c })");
        assert!(codes.is_empty());
        assert_eq!(toks.len(), 12);
    }

    #[test]
    fn missing_brace_is_closed_before_the_next_item() {
        let (toks, codes) = run("fn f() {\n  1\nfn g() { 2 }\n");
        assert_eq!(codes, vec![Code::UnclosedDelimiter]);
        let closers = toks.iter().filter(|t| **t == Token::RBrace).count();
        assert_eq!(closers, 2);
    }

    #[test]
    fn paren_left_open_at_end_of_line_is_closed_there() {
        let (toks, codes) = run("  let z = (1, 2\n  z\n");
        assert_eq!(codes, vec![Code::UnclosedDelimiter]);
        assert_eq!(toks.get(7), Some(&Token::RParen));
        // A multi-line call whose lines are indented further is fine.
        assert!(run("f(\n  a,\n  b\n)").1.is_empty());
        assert!(run("f(a,\n   b)").1.is_empty());
    }

    #[test]
    fn stray_and_mismatched_closers() {
        assert_eq!(run("a)").1, vec![Code::UnexpectedClosingDelimiter]);
        assert_eq!(run("(a]").1, vec![Code::MismatchedDelimiter]);
        assert_eq!(run("{ (a }").1, vec![Code::UnclosedDelimiter]);
    }

    #[test]
    fn deep_nesting_is_cut_off() {
        let src = format!("{}{}", "(".repeat(10_000), ")".repeat(10_000));
        let (toks, codes) = run(&src);
        assert_eq!(codes, vec![Code::NestingTooDeep]);
        assert_eq!(toks.len(), MAX_NESTING * 2 + 1);
    }
}
