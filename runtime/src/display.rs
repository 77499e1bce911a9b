//! How values print: in interpolation (`"${v}"`), in `Log`, and as the
//! final value of a run.
//!
//! The form is Writ's own literal syntax where one exists, so a printed
//! value reads like source: `[1, 2]`, `(1, "a")`, `{ name: "Ada", age: 36 }`
//! (fields in name order), `Some(3)`, `map.from_list([("a", 1)])`, `()`.
//! Floats always show a decimal point or exponent (`2.0`, `1e300`), so they
//! never read as integers. Strings are quoted and escaped inside a
//! structure; a string on its own interpolates as its text.
//!
//! Invariants: iterative (a value nested a million deep prints without
//! recursion), lazy (a list's elements are visited as they are printed,
//! never queued ahead) and bounded (printing stops after `max` bytes,
//! ending in `…`), so printing can neither overflow the stack nor exhaust
//! memory. The program's own displays (interpolation, `str.from`,
//! `list.join`) are metered: one unit per piece printed and one per 16
//! bytes of text, stopping early (with a cut-short text the caller
//! discards) once the meter trips.

use std::fmt::Write as _;

use crate::code::Module;
use crate::meter::{self, Meter};
use crate::value::{Key, Repr, Value};

type Entries<'a> = Box<dyn Iterator<Item = (&'a Key, &'a Value)> + 'a>;

enum Piece<'a> {
    Value(&'a Value),
    Text(&'static str),
    Owned(String),
    /// The elements of a tuple, list or variant not yet printed, and the
    /// closing bracket.
    Items {
        items: Box<dyn Iterator<Item = &'a Value> + 'a>,
        close: &'static str,
        first: bool,
    },
    /// The entries of a map not yet printed.
    Entries {
        entries: Entries<'a>,
        first: bool,
    },
}

/// How a string at the top of a display is written (a string inside a
/// structure is always quoted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StrForm {
    /// As its text, unquoted: what interpolation, `str.from` and
    /// `list.join` show.
    Text,
    /// Quoted and escaped, as inside a structure: how a run's value is
    /// shown.
    Quoted,
}

/// What [`safe_text`] does with `\n` and `\t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineBreaks {
    /// Kept as they are: a program's output lines.
    Keep,
    /// Escaped like the other control characters: one field of a record,
    /// one line of a message.
    Escape,
}

/// Append the display form of `v` to `out`, at most `max` bytes more, a
/// string at the top written in `form`. Not
/// metered (the host's displays are bounded by `max`, and the work by it:
/// every piece printed is at least a byte); never cut short.
pub(crate) fn display(v: &Value, module: &Module, form: StrForm, out: &mut String, max: usize) {
    display_in(v, module, form, out, max, Meter::OFF);
}

/// [`display`], charging `meter` (what the program's own displays use:
/// interpolation, `str.from`, `list.join`).
pub(crate) fn display_in(
    v: &Value,
    module: &Module,
    form: StrForm,
    out: &mut String,
    max: usize,
    meter: Meter,
) {
    if form == StrForm::Text
        && let Value(Repr::Str(s)) = v
    {
        if meter::push_str(out, prefix(&s.text, max), meter) && s.text.len() > max {
            out.push('…');
        }
        return;
    }
    let limit = out.len().saturating_add(max);
    let mut work = vec![Piece::Value(v)];
    while let Some(piece) = work.pop() {
        if out.len() >= limit {
            truncate_to(out, limit);
            out.push('…');
            return;
        }
        if !meter.charge(1) {
            return;
        }
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Owned(t) => out.push_str(&t),
            Piece::Value(v) => {
                let left = limit.saturating_sub(out.len());
                scalar_or_push(v, module, out, &mut work, left, meter);
            }
            Piece::Items {
                mut items,
                close,
                first,
            } => match items.next() {
                Some(v) => {
                    work.push(Piece::Items {
                        items,
                        close,
                        first: false,
                    });
                    work.push(Piece::Value(v));
                    if !first {
                        work.push(Piece::Text(", "));
                    }
                }
                None => out.push_str(close),
            },
            Piece::Entries { mut entries, first } => match entries.next() {
                Some((k, v)) => {
                    work.push(Piece::Entries {
                        entries,
                        first: false,
                    });
                    work.push(Piece::Text(")"));
                    work.push(Piece::Value(v));
                    work.push(Piece::Text(", "));
                    work.push(Piece::Value(&k.0));
                    work.push(Piece::Text("("));
                    if !first {
                        work.push(Piece::Text(", "));
                    }
                }
                None => out.push_str("])"),
            },
        }
    }
    if out.len() > limit {
        truncate_to(out, limit);
        out.push('…');
    }
}

/// A value as a program prints it, at most `max` bytes (then `…`); a
/// string at the top is its text or quoted, as `form` says. `module` is
/// the one the value was made with (it names constructors, fields and
/// functions). Not metered: the work is bounded by `max`.
pub fn to_string(v: &Value, module: &Module, form: StrForm, max: usize) -> String {
    let mut s = String::new();
    display(v, module, form, &mut s, max);
    s
}

/// A run's final value as it is shown (quoted, `()` as nothing), whole:
/// at most `max` bytes (the run's output limit), else `E5004`, as its
/// JSON is refused whole past the same bound (never cut, so a host or a
/// person never takes the start of a value for the value).
pub fn result_text(v: &Value, module: &Module, max: usize) -> Result<String, crate::RunError> {
    if v.is_unit() {
        return Ok(String::new());
    }
    let text = to_string(v, module, StrForm::Quoted, max);
    if text.len() > max {
        return Err(crate::RunError::limit(
            crate::Limit::Output,
            max as u64,
            format!("expected the result's display to take at most {max} bytes, but it needed more"),
        )
        .with_help("the result is refused whole, never cut: return less (or write it with `Log.info` in parts)"));
    }
    Ok(text)
}

/// The longest start of `text` of at most `max` bytes.
fn prefix(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or("")
}

fn truncate_to(out: &mut String, limit: usize) {
    let mut end = limit.min(out.len());
    while !out.is_char_boundary(end) {
        end -= 1;
    }
    out.truncate(end);
}

/// Write a float so that it reads as a float.
pub(crate) fn float_text(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf".into() } else { "-inf".into() }
    } else if x != 0.0 && !(1e-5..1e16).contains(&x.abs()) {
        // Very large or small magnitudes: an exponent, `1e300`, `2.5e-7`.
        format!("{x:e}")
    } else {
        let s = format!("{x}");
        if s.contains('.') { s } else { format!("{s}.0") }
    }
}

/// Text from a program made safe to show or store: control characters,
/// bidirectional controls, invisible characters and line breaks other
/// than `\n` become `\u{...}` escapes, so the text cannot move a terminal's
/// cursor, recolour it, reorder what is shown, or pass for another line.
/// `breaks` says whether `\n` and `\t` are kept ([`LineBreaks`]).
pub fn safe_text(s: &str, breaks: LineBreaks) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let kept = breaks == LineBreaks::Keep && matches!(c, '\n' | '\t');
        if !kept && (c.is_control() || writ_lang::is_deceptive(c)) {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

/// [`safe_text`] of the start of `s`: at most its first `max` bytes (cut
/// at a character boundary), then, when `s` is longer, `…` and its full
/// length in bytes. The work is bounded by `max`, whatever the length of
/// `s`.
pub(crate) fn safe_start(s: &str, max: usize, breaks: LineBreaks) -> String {
    if s.len() <= max {
        return safe_text(s, breaks);
    }
    let mut cut = max;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    let start = s.get(..cut).unwrap_or_default();
    format!("{}{}", safe_text(start, breaks), shortened(s.len()))
}

/// What follows the start of a text of `len` bytes shown shortened:
/// `… (30000000 bytes, shown shortened)` (the one wording for every
/// shortened text a person reads).
pub fn shortened(len: usize) -> String {
    format!("… ({len} bytes, shown shortened)")
}

/// Write a string literal with quotes and escapes.
pub(crate) fn quoted(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '$' => out.push_str("\\$"),
            c if c.is_control() || writ_lang::is_deceptive(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn scalar_or_push<'a>(
    v: &'a Value,
    module: &Module,
    out: &mut String,
    work: &mut Vec<Piece<'a>>,
    left: usize,
    meter: Meter,
) {
    match v {
        Value(Repr::Unit) => out.push_str("()"),
        Value(Repr::Bool(b)) => out.push_str(if b.get() { "true" } else { "false" }),
        Value(Repr::Int(n)) => {
            let _ = write!(out, "{n}");
        }
        Value(Repr::Float(x)) => out.push_str(&float_text(x.get())),
        Value(Repr::Str(s)) => {
            // At most what fits: the rest would be cut anyway.
            let shown = prefix(&s.text, left);
            if meter.charge(meter::bytes(shown.len())) {
                quoted(shown, out);
            }
        }
        Value(Repr::Tuple(t)) => {
            out.push('(');
            push_items(work, Box::new(t.items.iter()), ")");
        }
        Value(Repr::List(l)) => {
            out.push('[');
            push_items(work, Box::new(l.iter()), "]");
        }
        Value(Repr::Tag(c)) => out.push_str(ctor_name(module, c.get())),
        Value(Repr::Variant(var)) => {
            out.push_str(ctor_name(module, var.ctor));
            out.push('(');
            push_items(work, Box::new(var.fields.iter()), ")");
        }
        Value(Repr::Record(r)) => {
            if r.values.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push_str("{ ");
            work.push(Piece::Text(" }"));
            for (i, (sym, val)) in r.shape.iter().zip(r.values.iter()).enumerate().rev() {
                work.push(Piece::Value(val));
                let name = module
                    .symbols
                    .get(*sym as usize)
                    .map_or("?", String::as_str);
                work.push(Piece::Owned(format!("{name}: ")));
                if i > 0 {
                    work.push(Piece::Text(", "));
                }
            }
        }
        Value(Repr::Map(m)) => {
            out.push_str("map.from_list([");
            work.push(Piece::Entries {
                entries: Box::new(m.entries.iter()),
                first: true,
            });
        }
        Value(Repr::Func(f)) => {
            let name = module
                .functions
                .get(f.get() as usize)
                .map_or("?", |f| f.name.as_str());
            let _ = write!(out, "<fn {name}>");
        }
        Value(Repr::Native(n)) => {
            let name = module
                .natives
                .get(n.get() as usize)
                .map_or("?", |f| f.name.as_str());
            let _ = write!(out, "<fn {name}>");
        }
        Value(Repr::Closure(c)) => {
            let name = module
                .functions
                .get(c.func as usize)
                .map_or("?", |f| f.name.as_str());
            let _ = write!(out, "<fn {name}>");
        }
        Value(Repr::Resume(_)) => out.push_str("<resume>"),
    }
}

/// Queue `a, b, c close` (the opener is already written).
fn push_items<'a>(
    work: &mut Vec<Piece<'a>>,
    items: Box<dyn Iterator<Item = &'a Value> + 'a>,
    close: &'static str,
) {
    work.push(Piece::Items {
        items,
        close,
        first: true,
    });
}

fn ctor_name(module: &Module, c: u32) -> &str {
    module
        .ctors
        .get(c as usize)
        .map_or("?", |c| c.name.as_str())
}

#[cfg(test)]
mod tests {
    use super::{LineBreaks, safe_start, safe_text};

    #[test]
    fn safe_text_escapes_what_could_rewrite_a_terminal_or_a_line() {
        let attack = "pay 1\u{1b}[2K\rpay 999\u{202E}\u{200B}\u{2028}";
        let shown = safe_text(attack, LineBreaks::Keep);
        assert_eq!(
            shown,
            "pay 1\\u{1b}[2K\\u{d}pay 999\\u{202e}\\u{200b}\\u{2028}"
        );
        assert!(!shown.chars().any(char::is_control));
        // Lines and tabs stay in program output, not in a record's field.
        assert_eq!(safe_text("a\n\tb é", LineBreaks::Keep), "a\n\tb é");
        assert_eq!(safe_start("a\n\tb é", 7, LineBreaks::Keep), "a\n\tb é");
        // Cut at a character boundary: `é` is two bytes.
        assert_eq!(
            safe_start("abé\u{1b}[2J", 3, LineBreaks::Escape),
            "ab… (8 bytes, shown shortened)"
        );
        assert_eq!(
            safe_start("\u{1b}xyz", 2, LineBreaks::Escape),
            "\\u{1b}x… (4 bytes, shown shortened)"
        );
        assert_eq!(
            safe_text("a\n\tb é", LineBreaks::Escape),
            "a\\u{a}\\u{9}b é"
        );
    }
}
