//! The gate every argument of a host operation passes before the host
//! does anything with it: a maximum size per argument, and the forms in
//! which arguments are recorded and shown.
//!
//! The maxima are fixed (not policy keys): they protect the host and its
//! audit log, not the person's authority, so no policy can make them
//! unbounded. An argument over its maximum is measured without being
//! copied, escaped or stored, and the operation is denied; its audit
//! record holds its start (at most [`SHOWN_IN_FULL`] bytes) and its length.
//! It is not hashed: a hash is a pass over the whole argument, work the
//! program would choose the size of (an accepted argument longer than
//! [`SHOWN_IN_FULL`] is recorded with its SHA-256, a pass over at most its
//! maximum).
//!
//! Invariants: `text` and `measure` read an argument without copying
//! it and stop measuring at the bound (a list of a million elements costs
//! a walk of at most a bound's worth of them); everything the host does
//! for one operation (gate, escape, record, show, send) costs a bounded
//! multiple of its arguments' maxima, whatever the arguments' sizes.

use writ_runtime::{Module, Value, View};

use crate::store;

/// The most bytes of a URL (`Http.get`, `Http.post`).
pub const MAX_URL: usize = 8 * 1024;
/// The most bytes of an `Http.post` body.
pub const MAX_POST_BODY: usize = 1024 * 1024;
/// The most bytes of a payee (`Pay.pay`).
pub const MAX_PAYEE: usize = 256;
/// The most bytes of a payment's memo (`Pay.pay`).
pub const MAX_MEMO: usize = 512;
/// The most bytes of a record's id (`Records.read`).
pub const MAX_ID: usize = 256;
/// The most bytes of an `Audit.note`.
pub const MAX_NOTE: usize = 64 * 1024;
/// The most bytes of a `Confirm.ask` question.
pub const MAX_QUESTION: usize = 1024;
/// The most bytes of a `Log.info` line (the run's `output` limit, counted
/// before the host is reached, is usually smaller).
pub const MAX_LOG_LINE: usize = 1024 * 1024;
/// The most bytes of each argument of an embedder's capability, measured
/// as the gate measures it.
pub const MAX_CAPABILITY_ARGUMENT: usize = 64 * 1024;
/// How deeply an argument of an embedder's capability may nest.
pub const MAX_CAPABILITY_DEPTH: usize = 32;
/// Text up to this many bytes is recorded in full; longer text as its
/// start, its length and its SHA-256.
pub const SHOWN_IN_FULL: usize = 1024;

/// An argument over its maximum: how it is recorded, and why it was
/// refused.
#[derive(Debug)]
pub(crate) struct Oversized {
    /// The argument as the audit record shows it (bounded).
    pub(crate) shown: String,
    /// The rule that refused it.
    pub(crate) rule: String,
}

/// Argument `i` as text, if it is at most `max` bytes; else how to record
/// and refuse it. `what` names the argument in the refusal ("the memo").
/// A missing or non-text argument reads as empty text (the checker
/// guarantees the types).
pub(crate) fn text<'v>(
    args: &'v [Value],
    i: usize,
    what: &str,
    max: usize,
) -> Result<&'v str, Oversized> {
    let s = args.get(i).and_then(Value::as_str).unwrap_or_default();
    if s.len() <= max {
        return Ok(s);
    }
    Err(too_long(s, what, max))
}

/// Text `what` over its maximum `max`: recorded as its quoted start and
/// its length (never a pass over all of it), and why it was refused.
fn too_long(s: &str, what: &str, max: usize) -> Oversized {
    Oversized {
        shown: format!(
            "{:?}… ({} bytes, over the limit: only its start is recorded)",
            start(s, SHOWN_IN_FULL),
            s.len()
        ),
        rule: format!(
            "{what} is {} bytes, over the host's limit of {max} bytes; nothing was carried out",
            s.len()
        ),
    }
}

/// Text as an audit record holds it: quoted in full up to
/// [`SHOWN_IN_FULL`] bytes, else its quoted start, its length and its
/// SHA-256 (which identify it exactly).
pub fn recorded(s: &str) -> String {
    if s.len() <= SHOWN_IN_FULL {
        return format!("{s:?}");
    }
    format!(
        "{:?}… ({} bytes, sha256 {})",
        start(s, SHOWN_IN_FULL),
        s.len(),
        store::sha256_hex(s.as_bytes())
    )
}

/// The first `max` bytes of `s` at most, cut at a character boundary.
pub(crate) fn start(s: &str, max: usize) -> &str {
    let mut cut = max.min(s.len());
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    s.get(..cut).unwrap_or_default()
}

/// Why a structured value is over its bound.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Exceeded {
    /// It holds more than the bound's bytes.
    Size,
    /// It nests deeper than the bound's depth.
    Depth,
}

/// The size of `v` as the gate counts it (the bytes of each string it
/// holds, and 8 for each value inside it; a string alone is its length),
/// if it is at most `max` bytes and nests at
/// most `depth` deep. Iterative, and it stops at the bound: each value is
/// counted when it is reached, before its own parts are, so the work is at
/// most about `max / 8` values whatever `v` holds.
pub(crate) fn measure(v: &Value, max: usize, depth: usize) -> Result<usize, Exceeded> {
    let mut total = 0usize;
    let mut work: Vec<(&Value, usize)> = vec![(v, 0)];
    while let Some((v, d)) = work.pop() {
        if d > depth {
            return Err(Exceeded::Depth);
        }
        let view = v.view();
        if let View::Str(s) = view {
            total = total.saturating_add(s.len());
        }
        if total > max {
            return Err(Exceeded::Size);
        }
        let mut reach = || -> Result<(), Exceeded> {
            total = total.saturating_add(8);
            if total > max {
                return Err(Exceeded::Size);
            }
            Ok(())
        };
        match view {
            View::Tuple(parts) => {
                for c in parts {
                    reach()?;
                    work.push((c, d + 1));
                }
            }
            View::List(l) => {
                for c in l.iter() {
                    reach()?;
                    work.push((c, d + 1));
                }
            }
            View::Record(r) => {
                for c in r.values() {
                    reach()?;
                    work.push((c, d + 1));
                }
            }
            View::Variant(var) => {
                for c in var.fields() {
                    reach()?;
                    work.push((c, d + 1));
                }
            }
            View::Map(m) => {
                for (k, c) in m.iter() {
                    reach()?;
                    reach()?;
                    work.push((k, d + 1));
                    work.push((c, d + 1));
                }
            }
            _ => {}
        }
    }
    Ok(total)
}

/// An embedder's capability's arguments as the audit log shows them, if
/// each is within [`MAX_CAPABILITY_ARGUMENT`] and [`MAX_CAPABILITY_DEPTH`];
/// else the (bounded) record of them and why they were refused.
pub(crate) fn capability(args: &[Value], module: &Module) -> Result<String, Oversized> {
    let mut shown = Vec::new();
    let mut why_refused = None;
    for (i, a) in args.iter().enumerate() {
        match measure(a, MAX_CAPABILITY_ARGUMENT, MAX_CAPABILITY_DEPTH) {
            Ok(_) => shown.push(writ_runtime::display::to_string(
                a,
                module,
                writ_runtime::display::StrForm::Quoted,
                4096,
            )),
            Err(why) => {
                let what = format!("argument {}", i + 1);
                let o = match (a.as_str(), why) {
                    (Some(s), _) => too_long(s, &what, MAX_CAPABILITY_ARGUMENT),
                    (None, why) => {
                        let size = match why {
                            Exceeded::Size => {
                                format!("of more than {MAX_CAPABILITY_ARGUMENT} bytes")
                            }
                            Exceeded::Depth => {
                                format!("nested more than {MAX_CAPABILITY_DEPTH} deep")
                            }
                        };
                        Oversized {
                            shown: format!("<{} {size}>", kind(a)),
                            rule: format!(
                                "{what} is {} {size}, over the host's limit; nothing was carried out",
                                kind(a)
                            ),
                        }
                    }
                };
                shown.push(o.shown);
                why_refused.get_or_insert(o.rule);
            }
        }
    }
    let shown = shown.join(", ");
    match why_refused {
        None => Ok(shown),
        Some(rule) => Err(Oversized { shown, rule }),
    }
}

/// The kind of a structured value, for a refusal.
fn kind(v: &Value) -> &'static str {
    match v.view() {
        View::Tuple(_) => "a tuple",
        View::List(_) => "a list",
        View::Record(_) => "a record",
        View::Variant(_) => "a constructed value",
        View::Map(_) => "a map",
        _ => "a value",
    }
}

/// How many characters of what the program chose a confirmation shows.
pub(crate) const CONFIRM_SHOWN: usize = 48;

/// Text the program chose, as a confirmation question shows it: quoted;
/// newlines, tabs and returns as `\n`, `\t`, `\r`; other control,
/// bidirectional and invisible characters as `\u{...}`; each run of two or
/// more other whitespace characters collapsed to `⟨N blanks⟩`; and at most
/// `max` characters of it, then `…` and its full length in bytes. Its
/// length is what the caller's gate allowed, so this is bounded.
pub(crate) fn for_question(s: &str, max: usize) -> String {
    let mut out = String::from("\"");
    let mut chars = s.chars().peekable();
    let mut taken = 0usize;
    while let Some(c) = chars.next() {
        if taken == max {
            out.push('"');
            out.push_str(&writ_runtime::display::shortened(s.len()));
            return out;
        }
        taken += 1;
        let blank = |c: char| c.is_whitespace() && !matches!(c, '\n' | '\t' | '\r');
        if blank(c) && chars.peek().copied().is_some_and(blank) {
            let mut n = 1;
            while chars.next_if(|c| blank(*c)).is_some() {
                n += 1;
            }
            out.push_str(&format!("⟨{n} blanks⟩"));
            continue;
        }
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            ' ' => out.push(' '),
            c if c.is_control() || c.is_whitespace() || writ_lang::is_deceptive(c) => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_within_its_bound_is_lent_and_over_it_is_recorded_by_start_and_length() {
        let args = [Value::str("x".repeat(10)), Value::str("y".repeat(2000))];
        assert_eq!(text(&args, 0, "the id", 10).ok(), Some("xxxxxxxxxx"));
        let Err(o) = text(&args, 1, "the memo", 512) else {
            panic!("expected a refusal");
        };
        assert_eq!(
            o.shown,
            format!(
                "{:?}… (2000 bytes, over the limit: only its start is recorded)",
                "y".repeat(1024)
            )
        );
        // Accepted text is recorded in full, or past 1 KiB by its start,
        // length and hash.
        assert_eq!(recorded("a\"b"), "\"a\\\"b\"");
        let hash = store::sha256_hex("y".repeat(2000).as_bytes());
        assert_eq!(
            recorded(&"y".repeat(2000)),
            format!("{:?}… (2000 bytes, sha256 {hash})", "y".repeat(1024))
        );
        assert_eq!(
            o.rule,
            "the memo is 2000 bytes, over the host's limit of 512 bytes; nothing was carried out"
        );
        // A start never splits a character.
        assert_eq!(start("aé", 2), "a");
    }

    #[test]
    fn measuring_stops_at_the_bound() {
        let small = Value::list([Value::str("ab"), Value::int(1)]);
        assert_eq!(measure(&small, 100, 4), Ok(8 + 2 + 8));
        assert_eq!(measure(&small, 17, 4), Err(Exceeded::Size));
        assert_eq!(measure(&Value::str("abc"), 3, 0), Ok(3));
        let long = Value::list((0..100_000).map(Value::int));
        assert_eq!(measure(&long, 1000, 4), Err(Exceeded::Size));
        let mut deep = Value::int(0);
        for _ in 0..40 {
            deep = Value::list([deep]);
        }
        assert_eq!(measure(&deep, 1 << 20, 32), Err(Exceeded::Depth));
        assert!(measure(&deep, 1 << 20, 40).is_ok());
    }

    #[test]
    fn a_question_shows_what_the_program_chose_bounded_and_collapsed() {
        let fake = format!("{}Pay 0.50 USD to airline-a (coffee", " ".repeat(20_000));
        assert_eq!(
            for_question(&fake, CONFIRM_SHOWN),
            "\"⟨20000 blanks⟩Pay 0.50 USD to airline-a (coffee\""
        );
        assert_eq!(
            for_question("a\n\nb\tc\r\u{202E}d\u{a0}\u{3000}e \"f\\", CONFIRM_SHOWN),
            "\"a\\n\\nb\\tc\\r\\u{202e}d⟨2 blanks⟩e \\\"f\\\\\""
        );
        assert_eq!(for_question("a\u{a0}b", 10), "\"a\\u{a0}b\"");
        assert_eq!(
            for_question(&"z".repeat(300), 5),
            "\"zzzzz\"… (300 bytes, shown shortened)"
        );
        assert_eq!(for_question("zzzzz", 5), "\"zzzzz\"");
    }
}
