//! `docs/stdlib.md` is generated from the standard library's declarations
//! and doc comments; this test fails when the committed file differs from
//! what the library says, and `WRIT_BLESS=1` rewrites it. It also holds the
//! library to the conventions the reference relies on: every function is
//! described and has at least one example.

use std::path::Path;

#[test]
fn docs_stdlib_md_is_generated_from_the_library() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/stdlib.md");
    let want = writ_lang::stdlib::reference::markdown() + "\n";
    if std::env::var_os("WRIT_BLESS").is_some() {
        std::fs::write(&path, &want).expect("write docs/stdlib.md");
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/stdlib.md is out of date; regenerate it with WRIT_BLESS=1 cargo test --test stdlib_reference"
    );
}

#[test]
fn every_function_is_described_with_an_example() {
    let entries = writ_lang::stdlib::reference::entries();
    assert!(entries.len() > 100, "found {} functions", entries.len());
    let missing: Vec<String> = entries
        .iter()
        .filter(|e| e.doc.is_empty() || e.examples.is_empty())
        .map(|e| format!("{}.{}", e.namespace, e.name))
        .collect();
    assert!(missing.is_empty(), "undocumented: {missing:?}");
}

#[test]
fn every_namespace_is_introduced() {
    for file in writ_lang::stdlib::FILES {
        assert!(
            file.source.starts_with("// "),
            "{} does not start with a comment describing it",
            file.name
        );
    }
}

#[test]
fn every_function_has_a_run_case() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/run/stdlib");
    let missing: Vec<String> = writ_lang::stdlib::reference::entries()
        .iter()
        .filter(|e| {
            !root
                .join(&e.namespace)
                .join(format!("{}.writ", e.name))
                .is_file()
        })
        .map(|e| format!("tests/run/stdlib/{}/{}.writ", e.namespace, e.name))
        .collect();
    assert!(missing.is_empty(), "no run case: {missing:?}");
}
