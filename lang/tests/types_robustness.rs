//! The type checker never panics, never overflows the host stack, and
//! stays fast on large and deep programs.

use proptest::prelude::*;
use writ_lang::{Code, Diagnostic, parse, types};

/// Parse, and type-check if the parse succeeded; return the codes, after
/// asserting that every diagnostic is well formed.
fn codes(src: &str) -> Vec<Code> {
    let parsed = parse(src);
    let diagnostics = if parsed.has_errors() {
        parsed.diagnostics
    } else {
        types::check(&parsed.program, &Default::default()).diagnostics
    };
    well_formed(src, &diagnostics);
    diagnostics.iter().map(|d| d.code).collect()
}

/// Every diagnostic has a message and a primary label, and its labels lie
/// inside the source, on character boundaries.
fn well_formed(src: &str, diagnostics: &[Diagnostic]) {
    for d in diagnostics {
        assert!(!d.message.is_empty(), "{d:?}");
        assert!(
            d.labels.iter().any(|l| l.primary),
            "no primary label: {d:?}"
        );
        for l in &d.labels {
            assert!(
                l.span.start <= l.span.end && l.span.end <= src.len(),
                "a label outside the source: {d:?}"
            );
            assert!(
                src.is_char_boundary(l.span.start) && src.is_char_boundary(l.span.end),
                "a label inside a character: {d:?}"
            );
        }
    }
}

/// Expressions over a small set of names: well and ill typed.
fn expr() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("x".to_string()),
        Just("xs".to_string()),
        Just("f".to_string()),
        Just("42".to_string()),
        Just("2.5".to_string()),
        Just("true".to_string()),
        Just("\"s\"".to_string()),
        Just("()".to_string()),
        Just("None".to_string()),
        Just("[]".to_string()),
        Just("list.map".to_string()),
        Just("nope".to_string()),
    ];
    leaf.prop_recursive(5, 48, 4, |inner| {
        let op = prop::sample::select(vec![
            "+", "-", "*", "/", "%", "++", "|>", "&&", "||", "==", "<", "!=",
        ]);
        prop_oneof![
            (inner.clone(), op, inner.clone()).prop_map(|(a, o, b)| format!("({a} {o} {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("f({a}, {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("list.map({a}, {b})")),
            prop::collection::vec(inner.clone(), 0..4)
                .prop_map(|xs| format!("[{}]", xs.join(", "))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}, {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{{ a: {a}, b: {b} }}")),
            inner.clone().prop_map(|a| format!("{{ ..x, a: {a} }}")),
            inner.clone().prop_map(|a| format!("{a}.a")),
            inner.clone().prop_map(|a| format!("Some({a})")),
            inner.clone().prop_map(|a| format!("!{a}")),
            inner.clone().prop_map(|a| format!("fn(y) {{ {a} }}")),
            inner
                .clone()
                .prop_map(|a| format!("fn(y: Int) -> Int {{ {a} }}")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, a, b)| format!("if {c} {{ {a} }} else {{ {b} }}")),
            (inner.clone(), inner.clone()).prop_map(|(s, a)| format!(
                "match {s} {{ Some([y, ..rest]) if y > 0 => {a}, None => 1, _ => 0 }}"
            )),
            (inner.clone(), inner.clone()).prop_map(|(s, a)| format!(
                "match {s} {{ (true, z) => {a}, {{ a, .. }} => a, [] => 0 }}"
            )),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!(
                "handle {a} with {{ Ask.ask(q) => resume(q), return(r) => {b} }}"
            )),
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| format!("{{\n  let z = {a}\n  {b}\n}}")),
            inner
                .clone()
                .prop_map(|a| format!("\"n = ${{{}}}!\"", a.replace('\n', "; "))),
            inner.clone().prop_map(|a| format!("Ask.ask({a})")),
        ]
    })
}

fn program(body: String, sig: &str) -> String {
    format!(
        "effect Ask {{ fn ask(q: Int) -> Int }}\ntype T = A | B(Int)\nfn g{sig} {{\n  {body}\n}}\nlet v = g(1, [1], fn(a) {{ a }})\n"
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_parsed_program_checks_without_panic(e in expr(), sig in prop::sample::select(vec![
        "(x, xs, f)", "(x: Int, xs: List[Int], f: fn(Int) -> Int)", "[a: Eq](x: a, xs: List[a], f)",
        "(x: { a: Int }, xs, f) -> Str",
    ])) {
        let src = program(e, sig);
        let parsed = parse(&src);
        if parsed.has_errors() {
            well_formed(&src, &parsed.diagnostics);
            return Ok(());
        }
        let typed = types::check(&parsed.program, &Default::default());
        well_formed(&src, &typed.diagnostics);
        // An accepted program has its function's signature; a rejected
        // one has none.
        let accepted = !typed.diagnostics.iter().any(Diagnostic::is_error);
        prop_assert_eq!(
            typed.signatures.iter().any(|s| s.name == "g"),
            accepted,
            "{}\n{:?}", src, typed.diagnostics
        );
    }

    #[test]
    fn arbitrary_text_checks_without_panic(src in any::<String>()) {
        // `codes` asserts that every diagnostic is well formed; checking
        // depends on the text alone.
        let found = codes(&src);
        prop_assert_eq!(codes(&src), found);
    }
}

/// Run `f` on a thread with a small stack: the checker must grow its own.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    let handle = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(f)
        .expect("spawn");
    assert!(handle.join().is_ok(), "the checker panicked or overflowed");
}

#[test]
fn ten_thousand_nested_lets() {
    on_small_stack(|| {
        let mut src = String::from("fn main() {\n  let x0 = 0\n");
        for i in 1..10_000 {
            src.push_str(&format!("  let x{i} = (x{}, {i})\n", i - 1));
        }
        src.push_str("  x9999\n}\n");
        assert_eq!(codes(&src), vec![]);
    });
}

#[test]
fn ten_thousand_nested_generalised_lets() {
    on_small_stack(|| {
        let mut src = String::from("fn main() {\n  let f0 = fn(a) { a }\n");
        for i in 1..10_000 {
            src.push_str(&format!("  let f{i} = fn(a) {{ f{}(a) }}\n", i - 1));
        }
        src.push_str("  (f9999(1), f9999(\"s\"))\n}\n");
        assert_eq!(codes(&src), vec![]);
    });
}

#[test]
fn five_thousand_element_list() {
    on_small_stack(|| {
        let items: Vec<String> = (0..5_000).map(|i| i.to_string()).collect();
        let src = format!(
            "let xs = [{}]\nlet bad = [{}, \"x\"]\n",
            items.join(", "),
            items.join(", ")
        );
        assert_eq!(codes(&src), vec![Code::TypeMismatch]);
    });
}

#[test]
fn deeply_nested_expressions() {
    on_small_stack(|| {
        let parens = format!("let x = {}1{}", "(".repeat(255), ")".repeat(255));
        assert_eq!(codes(&parens), vec![]);
        let lambdas = format!("let f = {}a{}", "fn(a) { ".repeat(250), " }".repeat(250));
        assert_eq!(codes(&lambdas), vec![]);
        let sums = format!("let y = {}", vec!["1"; 900].join(" + "));
        assert_eq!(codes(&sums), vec![]);
        let calls = format!(
            "fn id(x) {{ x }}\nlet z = {}1{}",
            "id(".repeat(250),
            ")".repeat(250)
        );
        assert_eq!(codes(&calls), vec![]);
        let somes = format!(
            "let s = {}1{}\nlet t = match s {{ {}_{} => 1 }}",
            "Some(".repeat(250),
            ")".repeat(250),
            "Some(".repeat(250),
            ")".repeat(250)
        );
        assert_eq!(codes(&somes), vec![Code::NonExhaustive]);
    });
}

#[test]
fn exponentially_large_types_print_briefly() {
    // Each let doubles the type; printing it must not. Below the limit
    // (2^14 leaves as a tree) the mismatch is reported, briefly; past it,
    // the first value too large is reported once (E2010).
    for (depth, code) in [(14, Code::TypeMismatch), (40, Code::TooComplex)] {
        let mut src = String::from("fn main() {\n  let p0 = 1\n");
        for i in 1..depth {
            src.push_str(&format!("  let p{i} = (p{}, p{})\n", i - 1, i - 1));
        }
        src.push_str(&format!("  let bad: Int = p{}\n  bad\n}}\n", depth - 1));
        let parsed = parse(&src);
        let typed = types::check(&parsed.program, &Default::default());
        let codes: Vec<Code> = typed.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, vec![code]);
        assert!(typed.diagnostics[0].message.len() < 1_000);
    }
}

#[test]
fn one_mistake_one_diagnostic() {
    let src = "fn total(items) {\n  let n = itemz\n  let m = n + 1\n  let k = m * n\n  (n, m, k, n.price, n(1))\n}\n";
    assert_eq!(codes(src), vec![Code::UnknownName]);
}

#[test]
fn a_chain_of_many_functions_is_checked_in_order() {
    let mut src = String::new();
    for i in 0..3_000 {
        src.push_str(&format!("fn f{i}(x) {{ f{}(x) + 1 }}\n", i + 1));
    }
    src.push_str("fn f3000(x) { x * 2 }\nlet r = f0(1)\n");
    assert_eq!(codes(&src), vec![]);
}

#[test]
fn deeply_nested_handlers_and_effectful_lambdas() {
    on_small_stack(|| {
        let n = 120;
        let handlers = format!(
            "effect Ask {{ fn ask(q: Str) -> Int }}\nlet x = {}Ask.ask(\"q\"){}\n",
            "handle { ".repeat(n),
            " } with { Ask.ask(q) => resume(1) }".repeat(n)
        );
        assert_eq!(codes(&handlers), vec![]);
        let lambdas = format!(
            "let f = {}Log.info(\"deep\"){}\nlet _ = f\n",
            "fn() { ".repeat(200),
            " }".repeat(200)
        );
        assert_eq!(codes(&lambdas), vec![]);
    });
}

#[test]
fn an_oversized_declared_type_is_reported_not_ignored() {
    // A record type whose use needs more type nodes than the checker
    // builds: the use is an error, so nothing hidden behind the part not
    // built (here a paying closure) can pass unnoticed.
    let tuple = vec!["Int"; 60_000].join(", ");
    let src = format!(
        "type R = {{ pad: List[({tuple})], run: fn() -> Unit }}\n(fn() -> R {{ {{ pad: [], run: fn() {{ let _ = Pay.pay(\"bob\", 100, \"m\"); () }} }} }})().run()\n"
    );
    let found = codes(&src);
    assert!(!found.is_empty(), "accepted an oversized type");
    assert!(found.contains(&Code::TooComplex), "{found:?}");
}

/// Records wide enough that their rows are matched through a map (and
/// narrow ones, by a scan) unify field by field, in any order, and a field
/// missing on either side is reported, the same way for both.
#[test]
fn wide_and_narrow_records_unify_by_label() {
    let mut found = Vec::new();
    for n in [3, 40] {
        let decl = (0..n)
            .map(|i| format!("f{i}: Int"))
            .collect::<Vec<_>>()
            .join(", ");
        let value = |skip: Option<usize>, extra: &str| {
            let fields: Vec<String> = (0..n)
                .rev()
                .filter(|i| Some(*i) != skip)
                .map(|i| format!("f{i}: {i}"))
                .chain((!extra.is_empty()).then(|| extra.to_string()))
                .collect();
            format!("{{ {} }}", fields.join(", "))
        };
        let program =
            |v: String| format!("type R = {{ {decl} }}\nfn g(r: R) -> Int {{ r.f0 }}\ng({v})\n");
        assert_eq!(codes(&program(value(None, ""))), Vec::<Code>::new(), "{n}");
        let missing = codes(&program(value(Some(1), "")));
        let extra = codes(&program(value(None, "zz: 1")));
        assert_eq!(missing.len(), 1, "{n}: {missing:?}");
        assert_eq!(extra.len(), 1, "{n}: {extra:?}");
        let wrong = codes(&program(value(None, "").replace("f2: 2", "f2: true")));
        assert_eq!(wrong.len(), 1, "{n}: {wrong:?}");
        found.push((missing, extra, wrong));
    }
    assert_eq!(found.first(), found.last());
}
