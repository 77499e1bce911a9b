//! The embedded standard-library sources parse cleanly (that they
//! type-check cleanly is a test of `types/items.rs`), and
//! document the host capabilities and every library function.

use writ_lang::ast::Item;
use writ_lang::stdlib::FILES;

#[test]
fn stdlib_parses_and_documents_capabilities() {
    let mut effects = Vec::new();
    for file in FILES {
        let parsed = writ_lang::parse_library(file.source);
        assert!(
            parsed.diagnostics.is_empty(),
            "{}: {:#?}",
            file.name,
            parsed.diagnostics
        );
        for item in parsed.program.items {
            if let Item::Fn(f) = &item {
                assert!(
                    f.doc.is_some(),
                    "{}: {} has no doc comment",
                    file.name,
                    f.name.name
                );
            }
            if let Item::Effect(e) = item {
                assert!(e.doc.is_some(), "effect {} has no doc comment", e.name.name);
                for op in &e.ops {
                    assert!(
                        op.doc.is_some(),
                        "{}.{} has no doc comment",
                        e.name.name,
                        op.name.name
                    );
                }
                effects.push(e.name.name);
            }
        }
    }
    for cap in ["Http", "Pay", "Records", "Audit", "Log", "Clock", "Confirm"] {
        assert!(effects.iter().any(|e| e == cap), "{cap} is not declared");
    }
}
