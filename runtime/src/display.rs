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
//! never queued ahead) and bounded (printing stops, ending in `…`, once
//! the text written plus the room its work list holds — one entry per
//! level of nesting still open — reaches `max` bytes), so printing can
//! neither overflow the stack nor take more memory than it was given. The program's own displays (interpolation, `str.from`,
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
    /// A record's field name, written with `: ` after it.
    Field(&'a str),
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

/// Whether a display was written whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub(crate) enum Shown {
    /// Written whole.
    Whole,
    /// Cut short: the text (or, for a program's display, the text and
    /// the room its work list held) reached the bytes given (the text
    /// then ends in `…`), or the meter tripped.
    Cut,
    /// Cut short, the text ending in `…`, because a host's display of a
    /// value nested this deep would hold more room than it is allowed.
    Deep,
}

/// How many times the bytes of text it may write a host's display (or
/// JSON) may hold as room for its work list (one entry per open level of
/// a deeply nested value).
const HOST_ROOM: usize = 16;

/// The room a host's display or JSON of at most `max` bytes may hold for
/// its work list: [`HOST_ROOM`] times `max`, or a mebibyte if more.
pub(crate) fn host_room(max: usize) -> usize {
    max.saturating_mul(HOST_ROOM).max(1 << 20)
}

/// Append the display form of `v` to `out`, a string at the top written
/// in `form`: at most `max` bytes more, holding at most [`HOST_ROOM`]
/// times that (or a mebibyte, if more) as room for its work list while
/// it is written. Not metered (the host's displays are bounded by `max`,
/// and the work by it: every piece printed is at least a byte).
pub(crate) fn display(
    v: &Value,
    module: &Module,
    form: StrForm,
    out: &mut String,
    max: usize,
) -> Shown {
    write(v, module, form, out, max, Some(host_room(max)), Meter::OFF)
}

/// The work list of a display: what is still to be written, and the
/// bytes of the iterators its entries own (with the list's own room,
/// what a display holds besides its text).
struct Work<'a> {
    pieces: Vec<Piece<'a>>,
    boxed: usize,
}

impl<'a> Work<'a> {
    /// Bytes held besides the text.
    fn room(&self) -> usize {
        self.pieces
            .capacity()
            .saturating_mul(std::mem::size_of::<Piece<'a>>())
            .saturating_add(self.boxed)
    }

    fn push(&mut self, piece: Piece<'a>) {
        self.pieces.push(piece);
    }

    /// Queue `a, b, c close` (the opener is already written).
    fn items(&mut self, items: Box<dyn Iterator<Item = &'a Value> + 'a>, close: &'static str) {
        self.boxed = self
            .boxed
            .saturating_add(boxed_bytes(std::mem::size_of_val(&*items)));
        self.pieces.push(Piece::Items {
            items,
            close,
            first: true,
        });
    }

    /// Queue a map's entries (`map.from_list([` is already written).
    fn entries(&mut self, entries: Entries<'a>) {
        self.boxed = self
            .boxed
            .saturating_add(boxed_bytes(std::mem::size_of_val(&*entries)));
        self.pieces.push(Piece::Entries {
            entries,
            first: true,
        });
    }

    /// An iterator of `bytes` is done with and dropped.
    fn done(&mut self, bytes: usize) {
        self.boxed = self.boxed.saturating_sub(boxed_bytes(bytes));
    }
}

/// What an allocation of `bytes` takes: the allocator's word of
/// bookkeeping, rounded up to 16 bytes.
pub(crate) fn boxed_bytes(bytes: usize) -> usize {
    (bytes.saturating_add(8).saturating_add(15) / 16).saturating_mul(16)
}

/// A program's own display (interpolation, `str.from`, `list.join`):
/// like [`display`], but its `max` bytes (the memory left) bound the text
/// written and the room its work list holds together, and `meter` is
/// charged as it goes.
pub(crate) fn display_in(
    v: &Value,
    module: &Module,
    form: StrForm,
    out: &mut String,
    max: usize,
    meter: Meter,
) -> Shown {
    write(v, module, form, out, max, None, meter)
}

/// Write `v` (see [`display`]): at most `max` bytes of text, and at most
/// `room` bytes of work list besides (`None`: the text and the room
/// share `max`).
fn write<'a>(
    v: &'a Value,
    module: &'a Module,
    form: StrForm,
    out: &mut String,
    max: usize,
    room: Option<usize>,
    meter: Meter,
) -> Shown {
    if form == StrForm::Text
        && let Value(Repr::Str(s)) = v
    {
        if !meter::push_str(out, prefix(&s.text, max), meter) {
            return Shown::Cut;
        }
        if s.text.len() > max {
            out.push('…');
            return Shown::Cut;
        }
        return Shown::Whole;
    }
    let limit = out.len().saturating_add(max);
    let mut work = Work {
        pieces: vec![Piece::Value(v)],
        boxed: 0,
    };
    while let Some(piece) = work.pieces.pop() {
        let full = match room {
            Some(room) if work.room() > room => Some(Shown::Deep),
            Some(_) => (out.len() >= limit).then_some(Shown::Cut),
            None => (out.len().saturating_add(work.room()) >= limit).then_some(Shown::Cut),
        };
        if let Some(shown) = full {
            truncate_to(out, limit);
            out.push('…');
            return shown;
        }
        if !meter.charge(1) {
            return Shown::Cut;
        }
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Field(name) => {
                out.push_str(name);
                out.push_str(": ");
            }
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
                None => {
                    work.done(std::mem::size_of_val(&*items));
                    out.push_str(close);
                }
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
                None => {
                    work.done(std::mem::size_of_val(&*entries));
                    out.push_str("])");
                }
            },
        }
    }
    if out.len() > limit {
        truncate_to(out, limit);
        out.push('…');
        return Shown::Cut;
    }
    Shown::Whole
}

/// A value as a program prints it, at most `max` bytes (then `…`); a
/// string at the top is its text or quoted, as `form` says. `module` is
/// the one the value was made with (it names constructors, fields and
/// functions). Not metered: the work is bounded by `max`; the room a
/// deeply nested value's display holds besides its text is at most 16
/// times `max` (at least 1 MiB), past which the text is cut short.
pub fn to_string(v: &Value, module: &Module, form: StrForm, max: usize) -> String {
    let mut s = String::new();
    let _ = display(v, module, form, &mut s, max);
    s
}

/// A run's final value as it is shown (quoted, `()` as nothing), whole:
/// at most `max` bytes (the run's output limit), else `E5004`, as its
/// JSON is refused whole past the same bound (never cut, so a host or a
/// person never takes the start of a value for the value). A value
/// nested so deep that its display would hold more room than 16 times
/// `max` (at least 1 MiB) is refused the same way.
pub fn result_text(v: &Value, module: &Module, max: usize) -> Result<String, crate::RunError> {
    if v.is_unit() {
        return Ok(String::new());
    }
    let mut text = String::new();
    let message = match display(v, module, StrForm::Quoted, &mut text, max) {
        Shown::Whole => return Ok(text),
        Shown::Cut => {
            format!("expected the result's display to take at most {max} bytes, but it needed more")
        }
        Shown::Deep => format!(
            "expected the result to be nested shallowly enough to show in {max} bytes of output, but it is nested deeper"
        ),
    };
    Err(crate::RunError::limit(crate::Limit::Output, max as u64, message)
        .with_help("the result is refused whole, never cut: return less (or write it with `Log.info` in parts)"))
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
pub fn safe_start(s: &str, max: usize, breaks: LineBreaks) -> String {
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
    module: &'a Module,
    out: &mut String,
    work: &mut Work<'a>,
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
            work.items(Box::new(t.items.iter()), ")");
        }
        Value(Repr::List(l)) => {
            out.push('[');
            work.items(Box::new(l.iter()), "]");
        }
        Value(Repr::Tag(c)) => out.push_str(ctor_name(module, c.get())),
        Value(Repr::Variant(var)) => {
            out.push_str(ctor_name(module, var.ctor));
            out.push('(');
            work.items(Box::new(var.fields.iter()), ")");
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
                work.push(Piece::Field(name));
                if i > 0 {
                    work.push(Piece::Text(", "));
                }
            }
        }
        Value(Repr::Map(m)) => {
            out.push_str("map.from_list([");
            work.entries(Box::new(m.entries.iter()));
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
