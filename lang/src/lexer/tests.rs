//! Unit tests of the lexer.

use super::lex;
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
