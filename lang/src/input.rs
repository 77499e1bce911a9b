//! When an input is finished: a REPL reads lines until the text has no
//! open bracket, no unfinished block comment, and does not end with
//! something that asks for more (an operator, `=`, `,`, `=>`, ...).
//!
//! Invariants: decided from the lexer's tokens alone, so it never panics
//! and agrees with how the parser joins lines.

use crate::diagnostic::Code;
use crate::lexer::lex;

/// Whether `text` needs more lines before it can be checked: a REPL reads
/// on while this holds.
pub fn needs_more(text: &str) -> bool {
    let lexed = lex(text);
    if lexed
        .diagnostics
        .iter()
        .any(|d| d.code == Code::UnterminatedComment)
    {
        return true;
    }
    let mut depth: i64 = 0;
    for (t, _) in &lexed.tokens {
        if t.is_open() {
            depth += 1;
        } else if t.is_close() {
            depth -= 1;
        }
    }
    if depth > 0 {
        return true;
    }
    lexed
        .tokens
        .last()
        .is_some_and(|(t, _)| crate::parser::expects_more(t))
}

/// Whether the line `line` continues the expression of the lines above
/// it, as the parser joins lines: its first token is a binary operator
/// (`|>`, `+`, `&&`, ...), `.`, `else`, `->` or `=>`. A REPL reading a
/// script joins such a line to the input before it.
pub fn continues_above(line: &str) -> bool {
    lex(line)
        .tokens
        .first()
        .is_some_and(|(t, _)| crate::parser::continues_line(t))
}

/// Whether `text` closes a bracket it did not open (`}` with no `{`
/// before it): it was meant to go on from text before it.
pub fn closes_unopened(text: &str) -> bool {
    let mut depth: i64 = 0;
    for (t, _) in &lex(text).tokens {
        if t.is_open() {
            depth += 1;
        } else if t.is_close() {
            depth -= 1;
            if depth < 0 {
                return true;
            }
        }
    }
    false
}

/// Whether `text` holds nothing to check or run: only blanks and comments.
pub fn is_blank(text: &str) -> bool {
    lex(text).tokens.is_empty()
}

#[cfg(test)]
mod tests {
    use super::{is_blank, needs_more};

    #[test]
    fn open_brackets_and_trailing_operators_continue() {
        for text in [
            "fn f(x) {",
            "fn f(x) {\n  x +",
            "[1, 2,",
            "let x =",
            "(1,",
            "match x {\n  Some(y) =>",
            "1 +",
            "/* a comment",
            "xs\n  |> list.map(",
        ] {
            assert!(needs_more(text), "{text:?} should continue");
        }
    }

    #[test]
    fn finished_inputs_do_not() {
        for text in [
            "",
            "1 + 2",
            "fn f(x) { x }",
            "let x = [1, 2]",
            "\"unterminated",
            "}",
            "fn f(x) {\n  x + 1\n}",
            "// a comment (",
        ] {
            assert!(!needs_more(text), "{text:?} should be finished");
        }
    }

    #[test]
    fn only_blanks_and_comments_are_blank() {
        for text in ["", "  \n", "// a comment", "/* a */ // b\n"] {
            assert!(is_blank(text), "{text:?} should be blank");
        }
        for text in ["1", "// a comment\nx", "\"", "@"] {
            assert!(!is_blank(text), "{text:?} should not be blank");
        }
    }
}
