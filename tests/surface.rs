//! Curated crates: the public modules of `writ-lang` and `writ-host` are
//! the listed ones (each a surface its crate documents), the rest of each
//! crate is private, and both crates warn of a `pub` item no other crate
//! can reach (`unreachable_pub`, an error under CI's `-D warnings`), so an
//! internal item is `pub(crate)` and a public one is re-exported on
//! purpose. Adding a public module means adding it here and to the crate's
//! documentation of its surface.

use std::path::Path;

/// The modules `file` declares: `(name, public, only with internals)`.
fn modules(file: &str) -> Vec<(String, bool, bool)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut out = Vec::new();
    let mut internals = false;
    for line in text.lines().map(str::trim) {
        if line == "#[cfg(feature = \"internals\")]" {
            internals = true;
            continue;
        }
        let (public, rest) = if let Some(rest) = line.strip_prefix("pub mod ") {
            (true, rest)
        } else if let Some(rest) = line.strip_prefix("mod ") {
            (false, rest)
        } else if let Some(rest) = line.strip_prefix("pub(crate) mod ") {
            (false, rest)
        } else {
            if !line.starts_with("#[") && !line.starts_with("//") {
                internals = false;
            }
            continue;
        };
        if let Some(name) = rest.strip_suffix(';') {
            out.push((name.to_string(), public, internals));
        }
        internals = false;
    }
    out
}

/// The names of the modules of `file` that are public (without the
/// `internals` feature).
fn public(file: &str) -> Vec<String> {
    modules(file)
        .into_iter()
        .filter(|(_, public, internals)| *public && !internals)
        .map(|(name, ..)| name)
        .collect()
}

#[test]
fn the_public_modules_are_the_listed_ones() {
    assert_eq!(
        public("lang/src/lib.rs"),
        ["ast", "image", "stdlib", "types"]
    );
    assert_eq!(public("lang/src/types/mod.rs"), ["resolution", "session"]);
    assert_eq!(
        public("host/src/lib.rs"),
        ["arguments", "engine", "policy", "session", "store", "url"]
    );
    // Each module is declared once, public or not (a module public only
    // with `internals` is also declared private without it).
    let lang = modules("lang/src/lib.rs");
    let internal: Vec<&str> = lang
        .iter()
        .filter(|(_, public, internals)| *public && *internals)
        .map(|(name, ..)| name.as_str())
        .collect();
    assert_eq!(internal, ["lexer", "token"]);
    for name in &internal {
        assert!(
            lang.iter().any(|(n, public, _)| n == name && !public),
            "{name} has no private declaration"
        );
    }
}

#[test]
fn the_curated_crates_warn_of_unreachable_pub_items_and_missing_docs() {
    for file in ["lang/src/lib.rs", "host/src/lib.rs"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        for lint in ["#![warn(unreachable_pub)]", "#![warn(missing_docs)]"] {
            assert!(text.contains(lint), "{file} lacks {lint}");
        }
    }
}
