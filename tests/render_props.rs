//! Arbitrary bytes through the whole facade: size and encoding checks,
//! checking, and both renderers. Nothing may panic.

use proptest::prelude::*;

fn render_all(bytes: &[u8]) {
    match writ::source_text(bytes) {
        Ok(text) => {
            let checked = writ::check_source(text, &writ::CheckOptions::default());
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

/// A diagnostic with labels at `spans` (the first primary) on `text`.
fn labelled(spans: &[(usize, usize)]) -> writ::Diagnostic {
    let mut d = writ::Diagnostic::new(writ::Code::UnknownName, "m");
    for (i, &(a, b)) in spans.iter().enumerate() {
        let s = writ::Span::new(a.min(b), a.max(b));
        d = if i == 0 {
            d.with_primary(s, "here")
        } else {
            d.with_secondary(s, "there")
        };
    }
    d
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Labels anywhere on long lines (with multi-byte characters, tabs,
    /// and several lines ended by `\n` or `\r\n`): drawing never panics,
    /// stays short whatever the length of the line, and the header names
    /// the label's line and column in the file.
    #[test]
    fn labels_on_long_lines_render_shortened(
        unit in "[a-z é€𝄞\t]{1,8}",
        repeats in 300usize..6000,
        lines in 1usize..4,
        crlf in any::<bool>(),
        spans in prop::collection::vec((0usize..200_000, 0usize..200_000), 1..4),
    ) {
        let line = unit.repeat(repeats);
        let text = vec![line; lines].join(if crlf { "\r\n" } else { "\n" });
        let spans: Vec<(usize, usize)> = spans.into_iter().map(|(a, b)| (a % (text.len() + 1), b % (text.len() + 1))).collect();
        let d = labelled(&spans);
        let out = writ::render::human(std::slice::from_ref(&d), "p.writ", &text, false);
        // A line of at most 2,048 bytes is drawn whole (with a few rows of
        // label arrows under it); a longer one keeps a few windows of 240
        // bytes around the labels. Lines reach 190 KB here. A tab is drawn
        // as up to four columns, on the line and on each row under it.
        let tab_width = if unit.contains('\t') { 4 } else { 1 };
        prop_assert!(out.len() < 24_000 * tab_width * lines, "{} bytes drawn", out.len());
        let (a, b) = spans[0];
        let mut start = a.min(b);
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        let before = &text[..start];
        let line_no = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        let header = format!(" p.writ:{line_no}:{column} ");
        prop_assert!(out.contains(&header), "no {header} in\n{out}");
    }
}
