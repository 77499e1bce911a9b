//! Arbitrary bytes through the whole facade: size and encoding checks,
//! checking, and both renderers. Nothing may panic.

use proptest::prelude::*;

fn render_all(bytes: &[u8]) {
    match writ::source_text(bytes) {
        Ok(text) => {
            let checked = writ::check_source(text);
            let human = writ::render::human(&checked.diagnostics, "p.writ", text, false);
            let json = writ::render::json(&checked.diagnostics, "p.writ", text);
            assert_eq!(
                checked.accepted(),
                checked.diagnostics.iter().all(|d| !d.is_error())
            );
            assert!(checked.diagnostics.is_empty() || !human.is_empty());
            assert_eq!(
                json.as_array().map(Vec::len),
                Some(checked.diagnostics.len())
            );
        }
        Err(d) => {
            let human = writ::render::human(std::slice::from_ref(&d), "p.writ", "", true);
            assert!(human.contains(d.code.as_str()));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_render_without_panicking(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        render_all(&bytes);
    }

    #[test]
    fn arbitrary_text_renders_without_panicking(text in "\\PC{0,200}") {
        render_all(text.as_bytes());
    }
}

#[test]
fn tricky_inputs_render() {
    for input in [
        &b""[..],
        b"\xEF\xBB\xBF",
        b"\0\0\0",
        b"let s = \"\r\n\"\r\n",
        b"let x = (\n",
        "let é = \u{2028}\"".as_bytes(),
        b"\xff\xfe",
    ] {
        render_all(input);
    }
}
