//! Unit tests of the lexer.

use super::lex;
use crate::diagnostic::Code;
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
