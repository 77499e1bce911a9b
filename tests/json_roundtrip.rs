//! Property: JSON text round-trips. For generated `Json` values (every
//! kind, nested, with any finite number, -0.0 included, and strings of any
//! characters, controls and astral ones included), `json.parse` of
//! `json.stringify(v)` and of `json.pretty(v)` gives back `Ok(v)` (compared
//! by display, so `-0.0` must stay `-0.0`), and
//! stringifying the parsed value gives the same text again.

use proptest::prelude::*;

/// A Writ string literal holding `s`, with everything but letters, digits
/// and spaces escaped, so the literal is valid whatever `s` holds.
fn literal(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        if c.is_ascii_alphanumeric() || c == ' ' {
            out.push(c);
        } else {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    }
    out.push('"');
    out
}

fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i32>().prop_map(|n| format!("{}.0", n)),
        Just("-0.0".to_string()),
        Just("9007199254740993.0".to_string()),
        Just("1e21".to_string()),
        Just("1.5e-8".to_string()),
        any::<f64>()
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(|x| format!("{x:e}")),
    ]
}

fn json() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("Null".to_string()),
        any::<bool>().prop_map(|b| format!("Bool({b})")),
        number().prop_map(|x| format!("Number({x})")),
        any::<String>().prop_map(|s| format!("String({})", literal(&s))),
    ];
    leaf.prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5)
                .prop_map(|xs| format!("Array([{}])", xs.join(", "))),
            prop::collection::vec((any::<String>(), inner), 0..5).prop_map(|kvs| {
                let pairs: Vec<String> = kvs
                    .iter()
                    .map(|(k, v)| format!("({}, {v})", literal(k)))
                    .collect();
                format!("Object(map.from_list([{}]))", pairs.join(", "))
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn stringify_and_pretty_parse_back(values in prop::collection::vec(json(), 1..6)) {
        let mut program = String::new();
        for (i, v) in values.iter().enumerate() {
            program.push_str(&format!(
                "let v{i} = {v}\n\
                 let s{i} = json.stringify(v{i})\n\
                 let again{i} = match json.parse(s{i}) {{ Ok(w) => json.stringify(w), Err(e) => e }}\n\
                 let want{i} = \"${{Ok(v{i})}}\"\n\
                 Log.info(\"${{\"${{json.parse(s{i})}}\" == want{i}}} ${{\"${{json.parse(json.pretty(v{i}))}}\" == want{i}}} ${{again{i} == s{i}}}\")\n"
            ));
        }
        let mut lines = Vec::new();
        let ran = writ::run_source(
            &program,
            &writ::Limits::default(),
            &mut |l: &str| lines.push(l.to_string()),
            None,
        );
        prop_assert!(ran.checked.accepted(), "{:#?}\n{program}", ran.checked.diagnostics.first());
        prop_assert!(matches!(ran.result, Some(Ok(_))), "{:?}", ran.result);
        for (i, l) in lines.iter().enumerate() {
            prop_assert_eq!(l.as_str(), "true true true", "value {}: {}", i, values.get(i).map_or("", String::as_str));
        }
        prop_assert_eq!(lines.len(), values.len());
    }
}
