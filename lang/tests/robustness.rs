//! The front end never panics and never overflows the stack, whatever it is
//! given: arbitrary text, token soup, and pathologically deep nesting.

use proptest::prelude::*;
use writ_lang::{Code, Diagnostic, parse};

/// Every label lies inside the source, on character boundaries.
fn well_formed(src: &str, diags: &[Diagnostic]) {
    for d in diags {
        for l in &d.labels {
            assert!(
                l.span.start <= l.span.end && l.span.end <= src.len(),
                "{d:?}"
            );
            assert!(
                src.is_char_boundary(l.span.start) && src.is_char_boundary(l.span.end),
                "{d:?}"
            );
        }
        assert!(!d.message.is_empty());
    }
}

/// Pieces of Writ, valid and not, to shuffle into soup.
const PIECES: &[&str] = &[
    "\r",
    "\u{2028}",
    "a\u{3164}b",
    "fn",
    "let",
    "type",
    "effect",
    "match",
    "if",
    "else",
    "handle",
    "with",
    "return",
    "true",
    "false",
    "for",
    "x",
    "f",
    "Some",
    "None",
    "Http",
    "_",
    "0",
    "42",
    "9223372036854775808",
    "99999999999999999999",
    "1.5",
    "1e999",
    "\"s\"",
    "\"a${x}b\"",
    "\"${",
    "}\"",
    "\"\\q\"",
    "\"open",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    ";",
    ".",
    "..",
    "->",
    "=>",
    "=",
    "|>",
    "|",
    "+",
    "-",
    "*",
    "/",
    "%",
    "++",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "&&",
    "||",
    "!",
    "@",
    "'",
    "é",
    "λ",
    "p\u{430}y",
    "\u{202E}",
    "\u{200B}",
    "/*",
    "*/",
    "//",
    "///",
    "\n",
    "\n\n",
    " ",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..80).prop_map(|ps| ps.join(" "))
}

/// A generator of valid expressions, to check the parser accepts them.
fn valid_expr() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("x".to_string()),
        Just("42".to_string()),
        Just("-7".to_string()),
        Just("2.5".to_string()),
        Just("true".to_string()),
        Just("\"s\"".to_string()),
        Just("()".to_string()),
        Just("None".to_string()),
        Just("list.map".to_string()),
    ];
    leaf.prop_recursive(5, 48, 4, |inner| {
        let op = prop::sample::select(vec![
            "+", "-", "*", "/", "%", "++", "|>", "&&", "||", "==", "<",
        ]);
        prop_oneof![
            (inner.clone(), op, inner.clone()).prop_map(|(a, o, b)| format!("({a} {o} {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("f({a}, {b})")),
            prop::collection::vec(inner.clone(), 0..4)
                .prop_map(|xs| format!("[{}]", xs.join(", "))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}, {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{{ a: {a}, b: {b} }}")),
            inner.clone().prop_map(|a| format!("{{ ..r, a: {a} }}")),
            inner.clone().prop_map(|a| format!("Some({a})")),
            inner.clone().prop_map(|a| format!("!{a}")),
            inner
                .clone()
                .prop_map(|a| format!("fn(y: Int) -> Int {{ {a} }}")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, a, b)| format!("if {c} {{ {a} }} else {{ {b} }}")),
            (inner.clone(), inner.clone()).prop_map(|(s, a)| format!(
                "match {s} {{ Some([y, ..rest]) if y > 0 => {a}, _ => 0 }}"
            )),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!(
                "handle {a} with {{ Eff.op(v) => resume(v), return(r) => {b} }}"
            )),
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| format!("{{\n  let z = {a}\n  {b}\n}}")),
            // Interpolations cannot span lines.
            inner
                .clone()
                .prop_map(|a| format!("\"n = ${{{}}}!\"", a.replace('\n', "; "))),
            inner.clone().prop_map(|a| format!("Eff.op({a}).field")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_text_never_panics(src in any::<String>()) {
        let p = parse(&src);
        well_formed(&src, &p.diagnostics);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let src = String::from_utf8_lossy(&bytes);
        let p = parse(&src);
        well_formed(&src, &p.diagnostics);
    }

    #[test]
    fn token_soup_never_panics(src in soup()) {
        let p = parse(&src);
        well_formed(&src, &p.diagnostics);
    }

    #[test]
    fn soup_with_a_definite_error_is_reported(src in soup(), bad in prop::sample::select(vec!["@", ")", "]", "}", "\u{202E}", "'", "`"])) {
        // `bad` is invalid wherever it appears: an unknown character, a
        // bidi control, or a closer with nothing open before it.
        let src = format!("{bad} {src}");
        let p = parse(&src);
        prop_assert!(p.has_errors(), "no error for {src:?}");
        well_formed(&src, &p.diagnostics);
    }

    #[test]
    fn valid_programs_parse_cleanly(e in valid_expr()) {
        let src = format!("let v = {e}\n");
        let p = parse(&src);
        prop_assert!(p.diagnostics.is_empty(), "{src}\n{:#?}", p.diagnostics);
    }
}

fn only_code(src: &str, code: Code) {
    let p = parse(src);
    let codes: Vec<Code> = p.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, vec![code], "{:#?}", p.diagnostics);
}

#[test]
fn ten_thousand_nested_parentheses() {
    let n = 10_000;
    only_code(
        &format!("let x = {}1{}", "(".repeat(n), ")".repeat(n)),
        Code::NestingTooDeep,
    );
}

#[test]
fn ten_thousand_nested_blocks() {
    let n = 10_000;
    only_code(
        &format!("fn f() {}1{}", "{ ".repeat(n), " }".repeat(n)),
        Code::NestingTooDeep,
    );
}

#[test]
fn ten_thousand_nested_lists() {
    let n = 10_000;
    only_code(
        &format!("let x = {}1{}", "[".repeat(n), "]".repeat(n)),
        Code::NestingTooDeep,
    );
}

#[test]
fn ten_thousand_nested_lambdas() {
    let n = 10_000;
    only_code(
        &format!("let f = {}1{}", "fn() { ".repeat(n), " }".repeat(n)),
        Code::NestingTooDeep,
    );
}

#[test]
fn long_operator_chains_are_cut_off_not_overflowed() {
    let n = 100_000;
    only_code(
        &format!("let x = 1{}", " + 1".repeat(n)),
        Code::NestingTooDeep,
    );
    only_code(
        &format!("let x = {}true", "!".repeat(n)),
        Code::NestingTooDeep,
    );
    only_code(
        &format!("let x = a{}", ".b".repeat(n)),
        Code::NestingTooDeep,
    );
    only_code(
        &format!("let x = f{}", "(1)".repeat(n)),
        Code::NestingTooDeep,
    );
    only_code(
        &format!("let x: {}Int = 1", "Int -> ".repeat(n)),
        Code::NestingTooDeep,
    );
    only_code(
        &format!("let x = 1{}", " +\n1".repeat(n)),
        Code::NestingTooDeep,
    );
}

#[test]
fn deep_but_allowed_nesting_parses_on_a_small_stack() {
    // Run on a thread with a deliberately small stack: the parser grows its
    // own.
    let handle = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let parens = format!("let x = {}1{}", "(".repeat(255), ")".repeat(255));
            assert!(parse(&parens).diagnostics.is_empty());
            let bangs = format!("let x = {}true", "!".repeat(900));
            assert!(parse(&bangs).diagnostics.is_empty());
            let mixed = format!("let x = {}true{}", "(!".repeat(250), ")".repeat(250));
            assert!(parse(&mixed).diagnostics.is_empty());
            // The deepest kind of input accepted: 255 blocks, then a lambda
            // with a 740-long prefix chain.
            let worst = format!(
                "let x = {}fn() {{ {}true }}{}",
                "{ ".repeat(254),
                "!".repeat(740),
                " }".repeat(254)
            );
            assert!(parse(&worst).diagnostics.is_empty());
        })
        .expect("spawn");
    assert!(handle.join().is_ok());
}

#[test]
fn long_flat_programs_are_fine() {
    let lets: String = (0..10_000)
        .map(|i| format!("let x{i} = {i} + 1\n"))
        .collect();
    assert!(parse(&lets).diagnostics.is_empty());
    let elifs = format!(
        "let x = if a {{ 1 }}{} else {{ 2 }}",
        " else if a { 1 }".repeat(5_000)
    );
    assert!(parse(&elifs).diagnostics.is_empty());
    let list = format!("let xs = [{}]", vec!["1"; 5_000].join(", "));
    assert!(parse(&list).diagnostics.is_empty());
}

#[test]
fn three_unrelated_errors_give_three_diagnostics() {
    let src = "fn f(x) {\n  let y = x +\n}\n\ntype T = | \n\nlet z = (1, 2]\nlet ok = 1\n";
    let p = parse(src);
    assert_eq!(p.diagnostics.len(), 3, "{:#?}", p.diagnostics);
    // The partial program keeps what could be parsed.
    assert!(p.program.items.len() >= 3);
}

#[test]
fn heads_nested_without_brackets_are_cut_off() {
    let n = 50_000;
    for (head, tail) in [("if ", "{1}"), ("match ", " {}"), ("handle ", " with {}")] {
        let src = format!("let x = {}x{}", head.repeat(n), tail.repeat(n));
        let p = parse(&src);
        assert!(
            p.diagnostics.iter().any(|d| d.code == Code::NestingTooDeep),
            "{head}"
        );
    }
}

#[test]
fn doc_comments_do_not_split_an_operator_chain() {
    let src = format!(
        "let x = 1{}",
        format!("\n///\n{}", "+1".repeat(900)).repeat(50)
    );
    only_code(&src, Code::NestingTooDeep);
}

#[test]
fn interpolation_parts_are_siblings() {
    let src = format!("let s = \"{}\"", "${a.b}".repeat(2_000));
    assert!(parse(&src).diagnostics.is_empty());
}

/// The most diagnostics one parse reports: the rest are counted in a note.
const SHOWN: usize = 100;

#[test]
fn diagnostics_are_capped_with_a_note() {
    let src = "@\n".repeat(1_000);
    let p = parse(&src);
    assert_eq!(p.diagnostics.len(), SHOWN);
    let last = p.diagnostics.last().expect("diagnostics");
    assert!(
        last.notes.iter().any(|n| n.contains("900 more problems")),
        "{last:?}"
    );
}

#[test]
fn unclosed_brackets_past_those_shown_are_counted_and_still_damage() {
    // Two brackets left open on each line: 2,000 unclosed, then a stray
    // character. Only the first 100 become diagnostics, but the count
    // says how many there were, and the parser still stays quiet about
    // the damaged lines past them.
    let src = format!("{}@\n", "f((1, 2\n".repeat(1_000));
    let p = parse(&src);
    assert_eq!(p.diagnostics.len(), SHOWN);
    assert!(
        p.diagnostics
            .iter()
            .all(|d| d.code == Code::UnclosedDelimiter)
    );
    let last = p.diagnostics.last().expect("diagnostics");
    assert!(
        last.notes.iter().any(|n| n.contains("1901 more problems")),
        "{last:?}"
    );
}
