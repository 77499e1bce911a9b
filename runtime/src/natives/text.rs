//! Native `str` functions. Lengths, positions and slices count characters
//! (Unicode scalar values), not bytes.
//!
//! Metering: text is scanned, searched and copied a chunk of
//! [`CHUNK`] bytes at a time, one unit per
//! [`meter::BYTES_PER_UNIT`] bytes, plus one unit per piece made, so a
//! call on a long text polls the limits like any other work. A search or
//! copy cut short by the meter returns a partial result that the caller
//! discards.

use super::{Cx, count, int, items, new_str, reserve_list, text, wrong_args};
use crate::display;
use crate::error::RunError;
use crate::meter::{self, Meter};
use crate::value::{self, Repr, Value};

type R = Result<Value, RunError>;

/// Bytes of text handled between two charges: one poll's worth.
const CHUNK: usize = meter::POLL_EVERY as usize * meter::BYTES_PER_UNIT;

/// The first char boundary of `s` at or after `i` (or its length).
fn boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// The byte position of the first `t` in `s`, searching a chunk at a
/// time (windows overlapping by `t`'s length, so no match is missed);
/// `None` also when the meter trips.
fn find(s: &str, t: &str, m: Meter) -> Option<usize> {
    if t.len() > CHUNK {
        // The standard search is linear in both; charge it whole.
        return if m.charge(meter::bytes(s.len() + t.len())) {
            s.find(t)
        } else {
            None
        };
    }
    let mut start = 0;
    while start < s.len() {
        // A window is searched whole before it is charged (for the bytes
        // up to the match only): it is at most two chunks.
        let end = boundary(s, start + CHUNK + t.len());
        let found = s.get(start..end).and_then(|w| w.find(t));
        let scanned = found.map_or(end - start, |i| i + t.len());
        if !m.charge(meter::bytes(scanned)) {
            return None;
        }
        if let Some(i) = found {
            return Some(start + i);
        }
        if end >= s.len() {
            return None;
        }
        start = boundary(s, start + CHUNK);
    }
    // Only the empty text is left: it holds only the empty pattern.
    t.is_empty().then_some(start)
}

/// The number of characters in `s`, counted a chunk at a time.
fn char_count(s: &str, m: Meter) -> usize {
    let mut n = 0;
    for chunk in s.as_bytes().chunks(CHUNK) {
        if !m.charge(meter::bytes(chunk.len())) {
            return n;
        }
        n += chunk.iter().filter(|&&b| (b & 0xC0) != 0x80).count();
    }
    n
}

/// The byte position of character `n` of `s` (its length if it has
/// fewer), found a chunk at a time.
fn char_offset(s: &str, n: usize, m: Meter) -> usize {
    let mut seen = 0;
    for (c, chunk) in s.as_bytes().chunks(CHUNK).enumerate() {
        if !m.charge(meter::bytes(chunk.len())) {
            return s.len();
        }
        for (i, &b) in chunk.iter().enumerate() {
            if (b & 0xC0) != 0x80 {
                if seen == n {
                    return c * CHUNK + i;
                }
                seen += 1;
            }
        }
    }
    s.len()
}

/// The pieces of `s` between occurrences of `sep` (not empty), found with
/// [`find`].
fn split_on<'s>(s: &'s str, sep: &'s str, m: Meter) -> impl Iterator<Item = &'s str> + Clone {
    let mut rest = Some(s);
    let next = move || {
        let r = rest?;
        match find(r, sep, m) {
            Some(i) => {
                rest = r.get(i + sep.len()..);
                r.get(..i)
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    };
    Pieces(next)
}

/// The lines of `s`, as `str::lines` splits them (at `\n`, a `\r` before
/// it dropped, no last line after a final `\n`), found with [`find`].
fn lines_of(s: &str, m: Meter) -> impl Iterator<Item = &str> + Clone {
    let mut pieces = split_on(s, "\n", m).peekable();
    Pieces(move || {
        let line = pieces.next()?;
        if pieces.peek().is_none() {
            // The last piece: nothing after a final `\n`.
            (!line.is_empty()).then_some(line)
        } else {
            Some(line.strip_suffix('\r').unwrap_or(line))
        }
    })
}

/// An iterator from a cloneable closure (so that [`strings`] can measure
/// the pieces before making them).
#[derive(Clone)]
struct Pieces<F>(F);

impl<'s, F: FnMut() -> Option<&'s str>> Iterator for Pieces<F> {
    type Item = &'s str;
    fn next(&mut self) -> Option<&'s str> {
        (self.0)()
    }
}

/// `text` repeated `n` times appended to `out`, a chunk at a time; `false`
/// once the meter trips.
fn repeat_into(out: &mut String, text: &str, n: usize, m: Meter) -> bool {
    if text.is_empty() || n == 0 {
        return true;
    }
    // A block of whole copies about a chunk long, copied as a whole.
    let per_block = (CHUNK / text.len()).clamp(1, n);
    let block = text.repeat(per_block);
    let mut left = n;
    while left >= per_block {
        if !meter::push_str(out, &block, m) {
            return false;
        }
        left -= per_block;
    }
    for _ in 0..left {
        if !meter::push_str(out, text, m) {
            return false;
        }
    }
    true
}

/// A copy of `s`, made a chunk at a time.
fn copied(cx: &Cx, s: &str) -> R {
    cx.reserve(s.len())?;
    let mut out = String::with_capacity(s.len());
    meter::push_str(&mut out, s, cx.meter());
    new_str(cx, out)
}

fn one<'v>(a: &'v [Value], name: &str) -> Result<&'v str, RunError> {
    match a {
        [s] => text(s, name),
        _ => Err(wrong_args(name)),
    }
}

fn two<'v>(a: &'v [Value], name: &str) -> Result<(&'v str, &'v str), RunError> {
    match a {
        [s, t] => Ok((text(s, name)?, text(t, name)?)),
        _ => Err(wrong_args(name)),
    }
}

/// A list of the pieces `parts` yields, charged to the memory limit before
/// anything is allocated (the pieces are counted and measured first).
fn strings<'s>(cx: &Cx, parts: impl Iterator<Item = &'s str> + Clone) -> R {
    let (mut n, mut bytes) = (0usize, 0usize);
    for p in parts.clone() {
        cx.tick(1)?;
        n += 1;
        bytes += p.len();
    }
    reserve_list(cx, n)?;
    cx.reserve(bytes.saturating_add(n.saturating_mul(value::HEADER)))?;
    let mut out = Vec::with_capacity(n);
    for p in parts {
        cx.tick(meter::bytes(p.len()))?;
        out.push(Value::str(p));
    }
    Ok(Value::from_vec(out))
}

/// Each character of `s` as its own piece of `s`.
fn pieces(s: &str) -> impl Iterator<Item = &str> + Clone {
    s.split_inclusive(|_: char| true)
}

pub(super) fn length(cx: &Cx, a: &[Value]) -> R {
    Ok(Value(Repr::Int(
        char_count(one(a, "str.length")?, cx.meter()) as i64,
    )))
}

pub(super) fn is_empty(_: &Cx, a: &[Value]) -> R {
    Ok(Value::bool(one(a, "str.is_empty")?.is_empty()))
}

pub(super) fn split(cx: &Cx, a: &[Value]) -> R {
    let (s, sep) = two(a, "str.split")?;
    if sep.is_empty() {
        strings(cx, pieces(s))
    } else {
        strings(cx, split_on(s, sep, cx.meter()))
    }
}

pub(super) fn join(cx: &Cx, a: &[Value]) -> R {
    let [xs, sep] = a else {
        return Err(wrong_args("str.join"));
    };
    let sep = text(sep, "str.join")?;
    let xs = items(xs, "str.join")?;
    let total: usize = xs
        .iter()
        .filter_map(Value::as_str)
        .map(str::len)
        .fold(sep.len().saturating_mul(xs.len()), usize::saturating_add);
    cx.reserve(total)?;
    let mut s = String::with_capacity(total);
    let m = cx.meter();
    for (i, x) in xs.iter().enumerate() {
        cx.tick(1)?;
        if i > 0 {
            meter::push_str(&mut s, sep, m);
        }
        meter::push_str(&mut s, text(x, "str.join")?, m);
    }
    new_str(cx, s)
}

/// `s` without its leading and trailing white space (as `str::trim`),
/// reading only the blanks it removes (and the first other character at
/// each end), a chunk at a time; `""` once the meter trips.
fn trimmed(s: &str, m: Meter) -> &str {
    let mut rest = s;
    while !rest.is_empty() {
        let (head, _) = rest.split_at(boundary(rest, CHUNK));
        if !m.charge(meter::bytes(head.len())) {
            return "";
        }
        let blanks = head.len() - head.trim_start().len();
        rest = rest.get(blanks..).unwrap_or("");
        if blanks < head.len() {
            break;
        }
    }
    while !rest.is_empty() {
        let mut start = rest.len().saturating_sub(CHUNK);
        while !rest.is_char_boundary(start) {
            start -= 1;
        }
        let tail = rest.get(start..).unwrap_or("");
        if !m.charge(meter::bytes(tail.len())) {
            return "";
        }
        let kept = tail.trim_end().len();
        rest = rest.get(..start + kept).unwrap_or("");
        if kept > 0 {
            break;
        }
    }
    rest
}

pub(super) fn trim(cx: &Cx, a: &[Value]) -> R {
    let kept = trimmed(one(a, "str.trim")?, cx.meter());
    cx.tick(1)?;
    copied(cx, kept)
}

pub(super) fn contains(cx: &Cx, a: &[Value]) -> R {
    let (s, t) = two(a, "str.contains")?;
    Ok(Value::bool(find(s, t, cx.meter()).is_some()))
}

pub(super) fn starts_with(cx: &Cx, a: &[Value]) -> R {
    let (s, t) = two(a, "str.starts_with")?;
    cx.tick(meter::bytes(t.len().min(s.len())))?;
    Ok(Value::bool(s.starts_with(t)))
}

pub(super) fn ends_with(cx: &Cx, a: &[Value]) -> R {
    let (s, t) = two(a, "str.ends_with")?;
    cx.tick(meter::bytes(t.len().min(s.len())))?;
    Ok(Value::bool(s.ends_with(t)))
}

pub(super) fn replace(cx: &Cx, a: &[Value]) -> R {
    let [s, pat, rep] = a else {
        return Err(wrong_args("str.replace"));
    };
    let (s, pat, rep) = (
        text(s, "str.replace")?,
        text(pat, "str.replace")?,
        text(rep, "str.replace")?,
    );
    if pat.is_empty() {
        return copied(cx, s);
    }
    let m = cx.meter();
    let n = split_on(s, pat, m).count().saturating_sub(1);
    cx.tick(1)?;
    cx.reserve(s.len() + n.saturating_mul(rep.len()))?;
    let mut out = String::new();
    for (i, piece) in split_on(s, pat, m).enumerate() {
        cx.tick(1)?;
        if i > 0 {
            meter::push_str(&mut out, rep, m);
        }
        meter::push_str(&mut out, piece, m);
    }
    new_str(cx, out)
}

/// `s` with each chunk mapped by `f`; chunks end after an ASCII blank, so
/// that a case mapping that looks at neighbouring letters (a final sigma)
/// sees the same neighbours as on the whole text.
fn case_mapped(cx: &Cx, s: &str, f: fn(&str) -> String) -> R {
    cx.reserve(s.len())?;
    let mut out = String::new();
    let mut rest = s;
    while !rest.is_empty() {
        let end = if rest.len() > CHUNK {
            case_cut(rest.as_bytes(), CHUNK).unwrap_or(rest.len())
        } else {
            rest.len()
        };
        let (chunk, after) = rest.split_at(boundary(rest, end));
        cx.tick(meter::bytes(chunk.len()))?;
        // A mapped character takes at most three times its bytes (`ΐ`,
        // two, is `Ϊ́` in upper case, six): a chunk without a place to
        // cut is checked for that before it is mapped.
        if chunk.len() > CHUNK {
            cx.reserve(out.len().saturating_add(chunk.len().saturating_mul(3)))?;
        }
        let mapped = f(chunk);
        cx.reserve(out.len() + mapped.len())?;
        out.push_str(&mapped);
        rest = after;
    }
    new_str(cx, out)
}

/// Where a text may be cut for case mapping, at most `max` bytes in: the
/// last place after an ASCII space or between two ASCII letters or
/// digits. No character's mapping looks across such a place (a final
/// `Σ`, lower-cased as `ς`, looks past the letters and marks next to it,
/// and stops at a space, a letter or a digit), so each part maps as it
/// would in the whole. `None` if there is no such place.
fn case_cut(bytes: &[u8], max: usize) -> Option<usize> {
    (1..=max.min(bytes.len().saturating_sub(1)))
        .rev()
        .find(|&i| {
            let (Some(&a), Some(&b)) = (bytes.get(i - 1), bytes.get(i)) else {
                return false;
            };
            a.is_ascii_whitespace() || (a.is_ascii_alphanumeric() && b.is_ascii_alphanumeric())
        })
}

pub(super) fn to_upper(cx: &Cx, a: &[Value]) -> R {
    case_mapped(cx, one(a, "str.to_upper")?, str::to_uppercase)
}

pub(super) fn to_lower(cx: &Cx, a: &[Value]) -> R {
    case_mapped(cx, one(a, "str.to_lower")?, str::to_lowercase)
}

pub(super) fn slice(cx: &Cx, a: &[Value]) -> R {
    let [s, start, end] = a else {
        return Err(wrong_args("str.slice"));
    };
    let s = text(s, "str.slice")?;
    let m = cx.meter();
    // Only the text up to `end` is walked (a short slice of a long text
    // is cheap): an index past the end finds the end, so it clamps itself.
    let start = count(start, "str.slice")?;
    let end = count(end, "str.slice")?.max(start);
    let from = char_offset(s, start, m);
    let rest = s.get(from..).unwrap_or("");
    let to = from + char_offset(rest, end - start, m);
    copied(cx, s.get(from..to).unwrap_or(""))
}

pub(super) fn chars(cx: &Cx, a: &[Value]) -> R {
    strings(cx, pieces(one(a, "str.chars")?))
}

pub(super) fn parse_int(cx: &Cx, a: &[Value]) -> R {
    let s = one(a, "str.parse_int")?;
    cx.tick(meter::bytes(s.len()))?;
    Ok(cx.option(s.parse::<i64>().ok().map(Value::int)))
}

pub(super) fn parse_float(cx: &Cx, a: &[Value]) -> R {
    let s = one(a, "str.parse_float")?;
    cx.tick(meter::bytes(s.len()).saturating_mul(2))?;
    let ok = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'));
    Ok(cx.option(
        s.parse::<f64>()
            .ok()
            .filter(|x| ok && x.is_finite())
            .map(Value::float),
    ))
}

pub(super) fn repeat(cx: &Cx, a: &[Value]) -> R {
    let [s, n] = a else {
        return Err(wrong_args("str.repeat"));
    };
    let s = text(s, "str.repeat")?;
    let n = count(n, "str.repeat")?;
    cx.reserve(s.len().saturating_mul(n))?;
    let mut out = String::with_capacity(s.len().saturating_mul(n));
    repeat_into(&mut out, s, n, cx.meter());
    new_str(cx, out)
}

fn pad(cx: &Cx, a: &[Value], name: &str, left: bool) -> R {
    let [s, width, fill] = a else {
        return Err(wrong_args(name));
    };
    let s = text(s, name)?;
    let fill = text(fill, name)?;
    let m = cx.meter();
    let len = char_count(s, m);
    let width = count(width, name)?;
    if width <= len || fill.is_empty() {
        return new_str(cx, s.to_string());
    }
    let missing = width - len;
    cx.reserve(missing.saturating_mul(fill.len()).saturating_add(s.len()))?;
    // Whole copies of the fill, then the start of one more.
    let fill_len = char_count(fill, m).max(1);
    let mut padding = String::new();
    repeat_into(&mut padding, fill, missing / fill_len, m);
    let part = fill
        .get(..char_offset(fill, missing % fill_len, m))
        .unwrap_or("");
    padding.push_str(part);
    let mut out = String::new();
    let (first, second) = if left {
        (&padding[..], s)
    } else {
        (s, &padding[..])
    };
    let _ = meter::push_str(&mut out, first, m) && meter::push_str(&mut out, second, m);
    new_str(cx, out)
}

pub(super) fn pad_left(cx: &Cx, a: &[Value]) -> R {
    pad(cx, a, "str.pad_left", true)
}

pub(super) fn pad_right(cx: &Cx, a: &[Value]) -> R {
    pad(cx, a, "str.pad_right", false)
}

pub(super) fn index_of(cx: &Cx, a: &[Value]) -> R {
    let (s, t) = two(a, "str.index_of")?;
    let m = cx.meter();
    Ok(cx.option(
        find(s, t, m).map(|b| Value(Repr::Int(s.get(..b).map_or(0, |p| char_count(p, m)) as i64))),
    ))
}

pub(super) fn lines(cx: &Cx, a: &[Value]) -> R {
    let s = one(a, "str.lines")?;
    strings(cx, lines_of(s, cx.meter()))
}

pub(super) fn from(cx: &Cx, a: &[Value]) -> R {
    let [v] = a else {
        return Err(wrong_args("str.from"));
    };
    let mut s = String::new();
    let left = cx.machine.memory_left();
    let shown = display::display_in(
        v,
        cx.module(),
        display::StrForm::Text,
        &mut s,
        left,
        cx.meter(),
    );
    cx.displayed(shown)?;
    new_str(cx, s)
}

pub(super) fn fixed(cx: &Cx, a: &[Value]) -> R {
    let [x, d] = a else {
        return Err(wrong_args("str.fixed"));
    };
    let x = super::float(x, "str.fixed")?;
    let d = usize::try_from(int(d, "str.fixed")?.clamp(0, 1000)).unwrap_or(0);
    new_str(cx, format!("{x:.d$}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metered_lines_and_search_agree_with_the_standard_library() {
        let long = format!("{}needle{}", "a\r\n".repeat(CHUNK), "é".repeat(CHUNK));
        let blank = format!(
            "{} x\u{3000}y{}",
            "\u{3000}".repeat(CHUNK),
            " \t".repeat(CHUNK)
        );
        let texts = [
            " ",
            "\u{3000}a\u{2028}",
            &blank,
            "",
            "\n",
            "a",
            "a\n",
            "a\r\n",
            "a\r",
            "a\n\nb",
            "foo\nbar\n\r\nbaz\r",
            "\r\n\r\n",
            &long,
        ];
        for t in texts {
            let ours: Vec<&str> = lines_of(t, Meter::AMBIENT).collect();
            assert_eq!(ours, t.lines().collect::<Vec<_>>(), "{t:?}");
            for pat in ["needle", "\n", "é", "aé", "x"] {
                assert_eq!(
                    find(t, pat, Meter::AMBIENT),
                    t.find(pat),
                    "{pat:?} in {t:?}"
                );
            }
            assert_eq!(char_count(t, Meter::AMBIENT), t.chars().count());
            assert_eq!(trimmed(t, Meter::AMBIENT), t.trim(), "{t:?}");
            let n = t.chars().count() / 2;
            assert_eq!(
                char_offset(t, n, Meter::AMBIENT),
                t.char_indices().nth(n).map_or(t.len(), |(i, _)| i)
            );
        }
    }

    #[test]
    fn trimming_a_long_blank_text_stops_reading_once_the_meter_trips() {
        let blank = " ".repeat(100 * CHUNK);
        let _run = meter::Scope::start(10_000, None, None);
        assert_eq!(trimmed(&blank, Meter::AMBIENT), "");
        assert_eq!(meter::tripped(), Some(crate::limits::Limit::Fuel));
        assert!(meter::used() < 5 * meter::POLL_EVERY, "{}", meter::used());
    }
}
