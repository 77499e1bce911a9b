//! The one place diagnostics are rendered: for people (ariadne) and for
//! programs (JSON); [`words`] words the advice that depends on where a
//! program ran, and turns a run's error (with its trace) into a
//! diagnostic.
//!
//! Invariants: rendering never panics, whatever spans a diagnostic holds
//! (they are clamped to the source); the human form contains colour codes
//! only when asked to; the JSON form is stable: fields are only ever added;
//! drawing a diagnostic costs at most a bounded amount per line it shows,
//! however long the line (lines past 2,048 bytes are shown shortened).

use std::fmt::Write as _;

use ariadne::{Config, IndexType, Label, Report, ReportKind, Source};
use serde_json::{Value, json};
use writ_lang::{Diagnostic, LineIndex, Severity, Span};

mod excerpt;
pub mod words;

/// Whether human output should be coloured: only on a terminal, and never
/// when `NO_COLOR` is set to a non-empty value.
pub fn want_color(is_terminal: bool, no_color: Option<&str>) -> bool {
    is_terminal && no_color.is_none_or(str::is_empty)
}

/// Text a program wrote (a `Log` line, a question it asks), made safe to
/// print on a terminal: control characters but line breaks and tabs,
/// bidirectional controls and invisible characters are shown as `\u{...}`
/// escapes, so a program cannot move the cursor, recolour the terminal,
/// rewrite a line already shown or reorder what is shown.
pub fn terminal_safe(text: &str) -> String {
    writ_runtime::display::safe_text(text, writ_runtime::display::LineBreaks::Keep)
}

/// Render diagnostics about the file `path` (whose text is `text`) for a
/// person.
///
/// A diagnostic whose labels touch a line longer than 2,048 bytes is drawn
/// from an excerpt of the text in which such lines are cut down to the
/// parts around the labels (`src/render/excerpt.rs`), so that drawing it
/// costs the same whatever the length of the line; every other diagnostic
/// is drawn from the text itself.
pub fn human(diagnostics: &[Diagnostic], path: &str, text: &str, color: bool) -> String {
    // What reaches the terminal from the file (its excerpts, its name, and
    // what the messages quote of it) cannot drive the terminal: control
    // characters are replaced, each by one of its own length in bytes, so
    // that every span still points where it did.
    let shown = shown_source(text);
    let text: &str = &shown;
    let path_shown = terminal_safe(path);
    let path: &str = &path_shown;
    let mut out = String::new();
    // Built once per file: ariadne indexes the lines of the source.
    let mut cache = (path, Source::from(text));
    let lines = LineIndex::new(text);
    for d in diagnostics {
        let ranges: Vec<_> = d.labels.iter().map(|l| l.span.within(text)).collect();
        match excerpt::Excerpt::of(text, &lines, &ranges) {
            None => out.push_str(&human_one(d, path, text, color, &mut cache)),
            Some(ex) => out.push_str(&human_excerpt(d, path, text, &lines, color, &ex)),
        }
    }
    out
}

/// `text` with each control character (other than a tab or a line
/// break) replaced by one of the same length in UTF-8: `?` for one byte,
/// `¿` for two (the C1 controls), so that byte offsets are kept.
fn shown_source(text: &str) -> std::borrow::Cow<'_, str> {
    let control = |c: char| c.is_control() && !matches!(c, '\t' | '\n' | '\r');
    if !text.chars().any(control) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(
        text.chars()
            .map(|c| match c {
                c if control(c) && c.len_utf8() == 1 => '?',
                c if control(c) => '\u{bf}',
                c => c,
            })
            .collect(),
    )
}

/// Draw `d` from `ex`, an excerpt of `text`: its labels moved into the
/// excerpt, a note saying what was left out, and the location in the
/// header put back to the column in the whole line.
fn human_excerpt(
    d: &Diagnostic,
    path: &str,
    text: &str,
    lines: &LineIndex<'_>,
    color: bool,
    ex: &excerpt::Excerpt,
) -> String {
    let mut local = d.clone();
    for l in &mut local.labels {
        let r = l.span.within(text);
        l.span = Span::new(ex.map(r.start), ex.map(r.end));
    }
    local.notes.push(ex.note());
    let mut cache = (path, Source::from(ex.text.as_str()));
    let drawn = human_one(&local, path, &ex.text, color, &mut cache);
    // The header's `path:line:column` counts columns in the excerpt; the
    // reader wants the column in the file.
    let (Some(primary), Some(shown)) = (d.primary_span(), local.primary_span()) else {
        return drawn;
    };
    let real = lines.position(primary.within(text).start);
    let cut = LineIndex::new(&ex.text).position(shown.start);
    let wrong = format!(" {path}:{}:{} ", cut.line, cut.column);
    let right = format!(" {path}:{}:{} ", real.line, real.column);
    match drawn
        .find('\n')
        .and_then(|nl| drawn[nl..].find(&wrong).map(|i| nl + i))
    {
        Some(at) => format!("{}{right}{}", &drawn[..at], &drawn[at + wrong.len()..]),
        None => drawn,
    }
}

fn human_one<'a>(
    d: &Diagnostic,
    path: &'a str,
    text: &str,
    color: bool,
    cache: &mut (&'a str, Source<&str>),
) -> String {
    let kind = match d.severity {
        Severity::Error => ReportKind::Error,
        Severity::Warning => ReportKind::Warning,
    };
    let Some(primary) = d.primary_span() else {
        return plain(d, path);
    };
    let mut report = Report::build(kind, (path, primary.within(text)))
        .with_config(
            Config::new()
                .with_color(color)
                .with_index_type(IndexType::Byte),
        )
        .with_code(d.code.as_str())
        .with_message(&d.message);
    for label in &d.labels {
        let mut l = Label::new((path, label.span.within(text)));
        if !label.message.is_empty() {
            l = l.with_message(&label.message);
        }
        if color {
            l = l.with_color(if label.primary {
                ariadne::Color::Red
            } else {
                ariadne::Color::Blue
            });
        }
        report = report.with_label(l);
    }
    for note in &d.notes {
        report = report.with_note(note);
    }
    if let Some(help) = &d.help {
        report = report.with_help(help);
    }
    let mut buf = Vec::new();
    if report.finish().write(&mut *cache, &mut buf).is_err() {
        return plain(d, path);
    }
    String::from_utf8_lossy(&buf).into_owned()
}

/// A diagnostic with no location in a text (an unreadable file, say);
/// with an empty `path`, about no file at all.
fn plain(d: &Diagnostic, path: &str) -> String {
    let kind = match d.severity {
        Severity::Error => "Error",
        Severity::Warning => "Warning",
    };
    let mut out = format!("[{}] {kind}: {}\n", d.code, d.message);
    if !path.is_empty() {
        let _ = writeln!(out, "  in {path}");
    }
    for note in &d.notes {
        let _ = writeln!(out, "  Note: {note}");
    }
    if let Some(help) = &d.help {
        let _ = writeln!(out, "  Help: {help}");
    }
    out
}

/// One diagnostic as JSON: code, severity, message, file, labels (with
/// line, column and byte offset of both ends), notes and help.
pub fn json_one(d: &Diagnostic, path: &str, text: &str) -> Value {
    json_with(d, path, text, &LineIndex::new(text))
}

fn json_with(d: &Diagnostic, path: &str, text: &str, lines: &LineIndex<'_>) -> Value {
    let labels: Vec<Value> = d
        .labels
        .iter()
        .map(|l| {
            let r = l.span.within(text);
            json!({
                "primary": l.primary,
                "message": l.message,
                "start": lines.position(r.start),
                "end": lines.position(r.end),
            })
        })
        .collect();
    json!({
        "code": d.code.as_str(),
        "severity": d.severity,
        "message": d.message,
        "file": path,
        "labels": labels,
        "notes": d.notes,
        "help": d.help,
    })
}

/// Every diagnostic about one file as a JSON array.
pub fn json(diagnostics: &[Diagnostic], path: &str, text: &str) -> Value {
    // Built once per file, not once per diagnostic.
    let lines = LineIndex::new(text);
    Value::Array(
        diagnostics
            .iter()
            .map(|d| json_with(d, path, text, &lines))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use writ_lang::Code;

    #[test]
    fn colour_follows_terminal_and_no_color() {
        assert!(want_color(true, None));
        assert!(want_color(true, Some("")));
        assert!(!want_color(true, Some("1")));
        assert!(!want_color(false, None));
    }

    #[test]
    fn out_of_range_spans_do_not_panic() {
        let d = Diagnostic::new(Code::UnexpectedToken, "m").with_primary(Span::new(50, 90), "x");
        let text = "é";
        assert!(human(std::slice::from_ref(&d), "f.writ", text, false).contains("E0100"));
        let v = json_one(&d, "f.writ", text);
        assert_eq!(v["labels"][0]["start"]["offset"], 2);
    }

    #[test]
    fn control_characters_of_the_source_never_reach_the_terminal() {
        // A comment holding escape sequences (a window title, a cleared
        // screen, a forged line), a C1 control and a backspace, on the
        // line a diagnostic points at; the file's name holds one too.
        let text = "let n = 1 / 0 // \u{1b}]0;owned\u{7}\u{1b}[2J\u{9b}x\u{8}y\tz\n";
        let at = text.find('/').unwrap_or(0);
        let d =
            Diagnostic::new(Code::UnexpectedToken, "m").with_primary(Span::new(at, at + 1), "here");
        for color in [false, true] {
            let shown = human(std::slice::from_ref(&d), "f\u{1b}[8m.writ", text, color);
            let raw = shown
                .chars()
                .filter(|c| c.is_control() && !matches!(c, '\n' | '\t'))
                .filter(|c| !(color && *c == '\u{1b}'));
            assert_eq!(raw.count(), 0, "{shown:?}");
        }
        // Without colour, no escape character at all; the line is shown
        // with its controls replaced, the label still under the `/`.
        let plain = human(std::slice::from_ref(&d), "f.writ", text, false);
        assert!(!plain.contains('\u{1b}'), "{plain:?}");
        assert!(plain.contains("1 / 0 // ?]0;owned??[2J¿x?y"), "{plain:?}");
        assert!(plain.contains("f.writ:1:11"), "{plain:?}");
    }

    #[test]
    fn json_has_positions() {
        let d = Diagnostic::new(Code::UnexpectedToken, "m")
            .with_primary(Span::new(3, 4), "here")
            .with_help("h");
        let v = json_one(&d, "f.writ", "ab\ncd");
        assert_eq!(v["labels"][0]["start"]["line"], 2);
        assert_eq!(v["labels"][0]["start"]["column"], 1);
        assert_eq!(v["labels"][0]["end"]["column"], 2);
        assert_eq!(v["help"], "h");
        assert_eq!(v["severity"], "error");
    }
}
