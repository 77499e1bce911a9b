//! Unit tests of the lexer.

use super::{MAX_KEPT, lex};
use crate::diagnostic::Code;
use crate::span::Span;
use crate::token::Token;

fn kinds(src: &str) -> Vec<Token> {
    lex(src).tokens.into_iter().map(|(t, _)| t).collect()
}

#[test]
fn keywords_identifiers_and_operators() {
    assert_eq!(
        kinds("fn f(x) -> Int { x |> g ++ \"a\" }"),
        vec![
            Token::Fn,
            Token::Lower("f".into()),
            Token::LParen,
            Token::Lower("x".into()),
            Token::RParen,
            Token::Arrow,
            Token::Upper("Int".into()),
            Token::LBrace,
            Token::Lower("x".into()),
            Token::Pipe,
            Token::Lower("g".into()),
            Token::PlusPlus,
            Token::Str("a".into()),
            Token::RBrace,
        ]
    );
}

#[test]
fn interpolation_splits_into_parts() {
    assert_eq!(
        kinds(r#""a${x}b${ {y} }c""#),
        vec![
            Token::StrHead("a".into()),
            Token::Lower("x".into()),
            Token::StrMid("b".into()),
            Token::LBrace,
            Token::Lower("y".into()),
            Token::RBrace,
            Token::StrTail("c".into()),
        ]
    );
}

#[test]
fn nested_string_inside_interpolation() {
    assert_eq!(
        kinds(r#""${f("q")}""#),
        vec![
            Token::StrHead("".into()),
            Token::Lower("f".into()),
            Token::LParen,
            Token::Str("q".into()),
            Token::RParen,
            Token::StrTail("".into()),
        ]
    );
}

#[test]
fn escapes_decode() {
    assert_eq!(
        kinds(r#""\n\t\\\"\$\u{e9}""#),
        vec![Token::Str("\n\t\\\"$é".into())]
    );
}

#[test]
fn line_initial_paren_cannot_call() {
    assert_eq!(
        kinds("f\n(x)"),
        vec![
            Token::Lower("f".into()),
            Token::LParenLine,
            Token::Lower("x".into()),
            Token::RParen
        ]
    );
}

#[test]
fn numbers_and_ranges() {
    assert_eq!(
        kinds("1_000 2.5 1e3"),
        vec![Token::Int(1000), Token::Float(2.5), Token::Float(1000.0)]
    );
    assert_eq!(kinds("9223372036854775808"), vec![Token::Int(1 << 63)]);
    let l = lex("99999999999999999999");
    assert_eq!(l.diagnostics[0].code, Code::IntegerOutOfRange);
    let l = lex("1e999");
    assert_eq!(l.diagnostics[0].code, Code::FloatOutOfRange);
}

#[test]
fn problems_do_not_stop_the_lexer() {
    let l = lex("let a = 1 €€ 2\n\"open\nlet b = 'c'");
    let codes: Vec<Code> = l.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        vec![
            Code::UnknownCharacter,
            Code::UnterminatedString,
            Code::UnknownCharacter
        ]
    );
    assert!(l.tokens.iter().any(|(t, _)| *t == Token::Lower("b".into())));
}

#[test]
fn look_alike_and_invisible_characters_are_rejected() {
    // Latin `p`, `y` with Cyrillic `а`.
    let l = lex("p\u{430}y");
    assert_eq!(l.diagnostics[0].code, Code::MixedScriptIdentifier);
    let l = lex("a\u{200B}b");
    assert_eq!(l.diagnostics[0].code, Code::UnknownCharacter);
    let l = lex("\"x\u{202E}y\"");
    assert_eq!(l.diagnostics[0].code, Code::BidiControl);
    // One script, accented Latin or all-Greek, is fine.
    assert!(lex("café λ αβ").diagnostics.is_empty());
}

#[test]
fn block_comments_nest() {
    assert_eq!(kinds("/* a /* b */ c */ x"), vec![Token::Lower("x".into())]);
    assert_eq!(
        lex("/* a /* b */").diagnostics[0].code,
        Code::UnterminatedComment
    );
}

#[test]
fn names_are_normalised() {
    // Precomposed `é` and `e` + combining acute accent.
    assert_eq!(kinds("caf\u{e9}"), kinds("cafe\u{301}"));
    assert_eq!(kinds("cafe\u{301}"), vec![Token::Lower("caf\u{e9}".into())]);
}

#[test]
fn a_multi_line_string_loses_its_closing_indentation_and_outer_line_breaks() {
    let src = "let s = \"\"\"\r\n    a\r\n\r\n      b ${x} \\u{e9}\n    \"\"\"\n";
    let lexed = lex(src);
    assert!(lexed.diagnostics.is_empty(), "{:?}", lexed.diagnostics);
    let kinds: Vec<Token> = lexed.tokens.into_iter().map(|(t, _)| t).collect();
    assert_eq!(
        kinds,
        vec![
            Token::Let,
            Token::Lower("s".into()),
            Token::Assign,
            Token::StrHead("a\n\n  b ".into()),
            Token::Lower("x".into()),
            Token::StrTail(" é".into()),
        ]
    );
}

#[test]
fn multi_line_strings_cost_time_linear_in_their_length() {
    // A long literal, then many openers none of which is closed: the first
    // runs to the end of the input, and is reported once.
    let mut src = String::from("let s = \"\"\"\n");
    for _ in 0..100_000 {
        src.push_str("  a line of text ${x}\n");
    }
    src.push_str("  \"\"\"\n");
    for _ in 0..100_000 {
        src.push_str("let t = \"\"\"\n");
    }
    let start = std::time::Instant::now();
    let lexed = lex(&src);
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
    let unterminated = lexed
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::UnterminatedString)
        .count();
    assert_eq!(unterminated, 1);
    assert_eq!(
        lexed.diagnostics.len(),
        1,
        "{:?}",
        lexed.diagnostics.first()
    );
}

#[test]
fn a_conditional_names_the_if_to_write() {
    let lexed = lex("let x = f(a > 1 ? \"b:c\" : d, 2)\n");
    let help = lexed
        .diagnostics
        .first()
        .and_then(|d| d.help.clone())
        .unwrap_or_default();
    assert_eq!(
        help,
        "write `if a > 1 { \"b:c\" } else { d }`: `if` is an expression, and has a value"
    );
    let plain = lex("let x = y?\n");
    let help = plain
        .diagnostics
        .first()
        .and_then(|d| d.help.clone())
        .unwrap_or_default();
    assert!(help.contains("no `?` operator"), "{help}");
}

#[test]
fn a_run_of_unknown_characters_is_one_diagnostic_showing_its_start() {
    // A short run is shown whole.
    let l = lex("let a = 1 @@@");
    assert_eq!(l.diagnostics.len(), 1);
    assert_eq!(
        l.diagnostics[0].message,
        "expected a token, found the characters `@@@`"
    );
    // A long run (here 200,000 characters) is one diagnostic over all of
    // it, showing its first 32 characters: its message was formatted
    // whole at each character, quadratic in the run's length.
    let run = "\u{2603}".repeat(200_000);
    let l = lex(&run);
    assert_eq!(l.diagnostics.len(), 1);
    let d = &l.diagnostics[0];
    assert_eq!(d.code, Code::UnknownCharacter);
    assert_eq!(d.primary_span(), Some(Span::new(0, run.len())));
    assert_eq!(
        d.message,
        format!(
            "expected a token, found the characters `{}`…",
            "\u{2603}".repeat(32)
        )
    );
}

/// Lex `src`, returning the output and how many bytes the lexer read
/// ahead of quotes inside interpolations.
fn lex_counting(src: &str) -> (super::Lexed, usize) {
    let mut driver = super::Driver::new(src);
    driver.run();
    (driver.out, driver.looked_ahead)
}

#[test]
fn nested_interpolations_are_read_ahead_once() {
    // Strings nested in `${` on one line, closed: each quote inside a `${`
    // looks ahead for a later quote on the line. Reading the rest of the
    // line each time read it once per quote (quadratic: 340,000 levels
    // took 30 seconds); each byte is read at most once.
    let depth = 20_000;
    let src = format!("let x = {}1{}\n", "\"${".repeat(depth), "}\"".repeat(depth));
    let (_, read) = lex_counting(&src);
    assert!(read <= src.len(), "read {read} bytes of {}", src.len());
    // The same line, never closed: the last quote has none after it.
    let src = format!("let x = {}\n", "\"${".repeat(depth));
    let (_, read) = lex_counting(&src);
    assert!(read <= src.len(), "read {read} bytes of {}", src.len());
}

#[test]
fn a_quote_with_another_after_it_on_its_line_opens_a_string() {
    // Inside `${`, a quote with a partner later on its line opens a string;
    // one without is the outer string's closing quote (the `}` missing).
    let (lexed, _) = lex_counting("\"a${\"b\"}c\"");
    assert!(lexed.diagnostics.is_empty(), "{:?}", lexed.diagnostics);
    let (lexed, _) = lex_counting("\"a${x\"\nlet y = \"z\"");
    let codes: Vec<Code> = lexed.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, vec![Code::UnterminatedInterpolation]);
}

#[test]
fn interpolations_nested_past_the_limit_keep_no_tokens() {
    // Past one more than the bracket limit, a `${` nested inside others is
    // read (to find its end) but keeps no tokens and no diagnostics: the
    // balancer reports the nesting (E0013) and cuts it off at the limit.
    let depth = 100_000;
    let limit = super::MAX_INTERPOLATION;
    for src in [
        format!("{}1{}", "\"${".repeat(depth), "}\"".repeat(depth)),
        "\"${".repeat(depth),
    ] {
        let lexed = lex(&src);
        let heads = lexed
            .tokens
            .iter()
            .filter(|(t, _)| matches!(t, Token::StrHead(_)))
            .count();
        assert_eq!(heads, limit + 1);
        assert!(
            lexed.tokens.len() <= 2 * limit + 4,
            "{}",
            lexed.tokens.len()
        );
        assert!(
            lexed.diagnostics.len() <= limit + 2,
            "{}",
            lexed.diagnostics.len()
        );
    }
    // Up to the limit, every level keeps its tokens.
    let src = format!("{}1{}", "\"${".repeat(limit), "}\"".repeat(limit));
    let lexed = lex(&src);
    assert!(lexed.diagnostics.is_empty());
    assert_eq!(lexed.tokens.len(), 2 * limit + 1);
}

#[test]
fn interpolations_left_open_at_a_line_end_are_reported_at_most_twice() {
    // Each level would be reported at the same place with the same
    // message; only the innermost is shown. It and the outermost (whose
    // region holds the others') are built; a level alone is built once.
    // (The last quote, with none after it on the line, closes the string
    // of the 199th `${`, reported on its own; the 198th is the innermost
    // left open.)
    let src = format!("let s = {}\nlet t = 1\n", "\"${".repeat(200));
    let lexed = lex(&src);
    let open: Vec<_> = lexed
        .diagnostics
        .iter()
        .filter(|d| d.message.ends_with("found the end of the line"))
        .collect();
    assert_eq!(open.len(), 2, "{open:?}");
    let starts: Vec<usize> = open
        .iter()
        .filter_map(|d| d.labels.iter().find(|l| !l.primary).map(|l| l.span.start))
        .collect();
    assert_eq!(starts, vec![8 + 197 * 3 + 1, 9]);
    let lexed = lex("let s = \"${x\nlet t = 1\n");
    let codes: Vec<Code> = lexed.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, vec![Code::UnterminatedInterpolation]);
}

#[test]
fn diagnostics_past_the_kept_ones_are_counted_not_built() {
    // A million stray `$`, each its own problem: a token each, but only
    // the first MAX_KEPT diagnostics are built; the rest are counted.
    let l = lex(&"$ ".repeat(1_000_000));
    assert_eq!(l.tokens.len(), 1_000_000);
    assert_eq!(l.diagnostics.len(), MAX_KEPT);
    assert_eq!(l.unreported, 1_000_000 - MAX_KEPT);
    // Past them, a run of unknown characters still counts once.
    let l = lex(&format!("{}$$$$ @@", "$ ".repeat(MAX_KEPT)));
    assert_eq!(l.diagnostics.len(), MAX_KEPT);
    assert_eq!(l.unreported, 2);
    assert_eq!(l.tokens.len(), MAX_KEPT + 2);
    // An unterminated comment at the end is kept all the same.
    let l = lex(&format!("{}/* open", "$ ".repeat(MAX_KEPT + 5)));
    assert_eq!(l.diagnostics.len(), MAX_KEPT + 1);
    assert_eq!(
        l.diagnostics.last().map(|d| d.code),
        Some(Code::UnterminatedComment)
    );
    // Below the bound, nothing is counted.
    let l = lex(&"$ ".repeat(10));
    assert_eq!((l.diagnostics.len(), l.unreported), (10, 0));
    // The parse shows the first hundred and says how many more there were.
    let p = crate::parser::parse(&"$ ".repeat(5000));
    assert_eq!(p.diagnostics.len(), crate::parser::MAX_DIAGNOSTICS);
    let last = p
        .diagnostics
        .last()
        .map(|d| d.notes.join(" "))
        .unwrap_or_default();
    assert!(last.contains("4900 more problems"), "{last}");
}
