//! The alias table, entry by entry: each name another language uses is not
//! a function of its namespace, its target is, and checking a program that
//! uses the alias gives the diagnostic that names the target.
//! `lang/tests/aliases.out` shows the help each entry produces, as a user
//! reads it; `WRIT_BLESS=1` rewrites it.

use std::path::Path;

use super::{MEMBER_ALIASES, NAMESPACE_ALIASES};

/// Check `src` as `writ check` does.
fn check(src: &str) -> crate::Analysis {
    crate::analyse(src, &crate::types::CheckOptions::default())
}

/// The code and help of the only diagnostic of checking `src`.
fn only_diagnostic(src: &str) -> Result<(String, String), String> {
    let checked = check(src);
    match checked.diagnostics.as_slice() {
        [d] => Ok((d.code.to_string(), d.help.clone().unwrap_or_default())),
        ds => Err(format!(
            "{src:?}: expected one diagnostic, found {}: {:?}",
            ds.len(),
            ds.iter().map(|d| &d.message).collect::<Vec<_>>()
        )),
    }
}

fn golden(lines: &[String]) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/aliases.out");
    let want = lines.join("\n") + "\n";
    if std::env::var_os("WRIT_BLESS").is_some() {
        std::fs::write(&path, &want).expect("write lang/tests/aliases.out");
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "lang/tests/aliases.out differs from the table; review and run WRIT_BLESS=1 cargo test -p writ-lang aliases"
    );
}

#[test]
fn every_member_alias_is_unknown_and_suggests_its_target() {
    // Every target exists: one program uses them all (each a statement of
    // its own, not a generic `let`, which `list.sum` may not be: E2015).
    let targets: String = MEMBER_ALIASES
        .iter()
        .map(|a| format!("{}.{}\n", a.namespace, a.target))
        .collect();
    let checked = check(&targets);
    assert!(checked.accepted(), "{:#?}", checked.diagnostics);
    let mut failures = Vec::new();
    let mut lines = Vec::new();
    for a in MEMBER_ALIASES {
        let target = format!("{}.{}", a.namespace, a.target);
        match only_diagnostic(&format!("let f = {}.{}\n", a.namespace, a.alias)) {
            Ok((code, help)) => {
                let want = match a.hint {
                    Some(h) => format!("did you mean `{target}`? ({h})"),
                    None => format!("did you mean `{target}`?"),
                };
                if code != "E1005" || help != want {
                    failures.push(format!(
                        "{}.{}: {code} {help:?}, expected E1005 {want:?}",
                        a.namespace, a.alias
                    ));
                }
                lines.push(format!("{}.{}: {help}", a.namespace, a.alias));
            }
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let mut seen = std::collections::HashSet::new();
    for a in MEMBER_ALIASES {
        assert!(
            seen.insert((a.namespace, a.alias)),
            "{}.{} is listed twice",
            a.namespace,
            a.alias
        );
    }
    lines.push(String::new());
    lines.extend(namespace_lines());
    golden(&lines);
}

fn namespace_lines() -> Vec<String> {
    let mut failures = Vec::new();
    let mut lines = Vec::new();
    for (alias, real) in NAMESPACE_ALIASES {
        // A function the real namespace has, called the way the other
        // language would: `string.trim(s)`, `JSON.parse(text)`.
        let member = MEMBER_ALIASES
            .iter()
            .find(|a| a.namespace == *real)
            .map(|a| a.target)
            .unwrap_or("length");
        if check(&format!("let {alias} = 1\n")).accepted()
            && check(&format!("let f = {alias}.{member}\n")).accepted()
        {
            failures.push(format!("`{alias}` is a namespace of its own"));
            continue;
        }
        let src = format!("let f = {alias}.{member}(\"x\")\n");
        match only_diagnostic(&src) {
            Ok((code, help)) => {
                let want = format!("the namespace is `{real}`: did you mean `{real}.{member}`?");
                if help != want {
                    failures.push(format!("{alias}: {code} {help:?}, expected {want:?}"));
                }
                lines.push(format!("{alias}.{member}: {code}: {help}"));
            }
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    lines
}

#[test]
fn an_alias_of_an_alias_namespace_is_followed() {
    // `string.len`: both the namespace and the member are borrowed.
    let (code, help) = only_diagnostic("let n = string.len(\"abc\")\n").unwrap_or_default();
    assert_eq!(code, "E1001");
    assert_eq!(help, "the namespace is `str`: did you mean `str.length`?");
    let (code, help) = only_diagnostic("let n = Array.push([1], 2)\n").unwrap_or_default();
    assert_eq!(code, "E1006");
    assert_eq!(
        help,
        "the namespace is `list`: did you mean `list.concat`? (to add one element at the end, write `xs ++ [x]`)"
    );
}

#[test]
fn a_local_name_wins_over_a_namespace_alias() {
    let src = "let text = { length: 3 }\nlet n = text.length\n";
    assert!(check(src).accepted());
}

#[test]
fn a_method_call_with_a_borrowed_name_gets_the_hint() {
    let checked = check("let xs = [1, 2]\nlet ys = xs.push(3)\n");
    let d = checked
        .diagnostics
        .first()
        .map(|d| (d.help.clone(), d.notes.clone()));
    // Adding one element has no function of its own: the hint is the help
    // (`list.concat` takes a list of lists).
    assert_eq!(
        d,
        Some((
            Some(
                "Writ has no methods: to add one element at the end, write `xs ++ [x]`".to_string()
            ),
            Vec::new()
        ))
    );
}
