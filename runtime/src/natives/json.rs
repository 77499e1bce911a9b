//! Native `json` functions: parsing (RFC 8259) and writing.
//!
//! Parsing nests at most [`MAX_DEPTH`] arrays and objects (deeper input is
//! an `Err` naming the position, not a crash); writing is iterative, so a
//! `Json` value the program built a million deep is written without
//! recursion, within the memory limit, and lazy (an array's elements are
//! visited as they are written), so a long array costs no memory beyond
//! its text.
//!
//! A parse makes each distinct object key (up to [`SHARED_KEYS`] of them)
//! and each of `Bool(true)`, `Bool(false)` once, and shares it wherever
//! it recurs: values are immutable, so sharing is invisible except in
//! memory (each shared object is charged once).
//!
//! Metering: parsing charges one unit per value made or escape decoded
//! and one per [`meter::BYTES_PER_UNIT`] bytes of text read, a
//! [`READ_CHUNK`] of text at a time (each value, run of blanks or digits,
//! escape and stretch of a string checks whether a chunk has been read);
//! writing one unit per value, element or entry written and one per
//! [`meter::BYTES_PER_UNIT`] bytes of string escaped or indentation.
//! Input cut short by the meter reads as its end; the caller reports the
//! limit instead. Each chunk read also checks the vectors of the arrays
//! and objects being built against the memory limit (the values in them
//! are counted as they are made); once a limit is passed, every later
//! read finds it so, and the parse ends.

use std::cell::Cell;
use std::collections::HashMap;
use std::fmt::Write as _;

use super::{Cx, text, wrong_args};
use crate::error::RunError;
use crate::meter;
use crate::value::{Entries, Key, MapObj, Repr, SLOT, Value};

/// Bytes written between two charges: one poll's worth.
const CHUNK: usize = meter::POLL_EVERY as usize * meter::BYTES_PER_UNIT;

/// Bytes an element held in an array being built takes: its slot, and as
/// much again for the room a growing vector keeps.
const HELD_PER_ITEM: usize = 2 * SLOT;

/// Bytes read between two charges (parsing does more per byte than
/// copying, so a smaller chunk keeps the polls as frequent).
const READ_CHUNK: usize = 8 * 1024;

/// What a value's place held when it starts no JSON value (an unquoted
/// word, a `'`-quoted text, a stray character).
const NOT_A_VALUE: &str = "expected a JSON value";

type R = Result<Value, RunError>;

/// The deepest nesting of arrays and objects `json.parse` accepts.
pub const MAX_DEPTH: usize = 512;

/// How many distinct object keys one parse shares, and the longest it
/// shares: an object key seen before is the same string value (a
/// document of records repeats a few keys thousands of times), and the
/// table stays a few kilobytes whatever the text.
const SHARED_KEYS: usize = 256;
const SHARED_KEY_BYTES: usize = 64;

pub(super) fn parse(cx: &Cx, a: &[Value]) -> R {
    let [s] = a else {
        return Err(wrong_args("json.parse"));
    };
    let src = text(s, "json.parse")?;
    cx.reserve(src.len().saturating_mul(2))?;
    let mut p = Parser {
        src: src.as_bytes(),
        text: src,
        pos: 0,
        poll_at: Cell::new(0),
        values: Cell::new(0),
        keys: HashMap::new(),
        bools: [None, None],
        held: Cell::new(0),
        over: Cell::new(None),
        cx,
    };
    let result = p.ws().and_then(|()| p.value(0)).and_then(|v| {
        p.ws()?;
        if p.pos < p.src.len() {
            Err(p.error("expected the end of the text"))
        } else {
            Ok(v)
        }
    });
    // Memory past the limit while values were being made: the limit's
    // error, not the parse's.
    if let Some(e) = p.over.take() {
        return Err(e);
    }
    match result {
        Ok(v) => Ok(cx.ok(v)),
        Err(Problem::Invalid(msg)) => Ok(cx.err(Value::str(msg))),
        Err(Problem::Run(e)) => Err(e),
    }
}

/// How an error message shows what it found at `rest`: a word whole
/// (`tru`, `NaN`), a visible character as itself, and an invisible or
/// blank one by its code point, so the message cannot mislead.
fn found(rest: &str) -> String {
    let Some(c) = rest.chars().next() else {
        return "the end of the text".to_string();
    };
    // A number, or an escape, is shown whole (`-1e400`, `\u0041`): its
    // first character alone would name the wrong thing.
    if c == '-' || c.is_ascii_digit() {
        let number: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-'))
            .take(24)
            .collect();
        return format!("`{number}`");
    }
    if c == '\\' {
        let mut chars = rest.chars();
        let escape: String = match (chars.next(), chars.next()) {
            (Some(_), Some('u')) => rest
                .chars()
                .take(2)
                .chain(
                    rest.chars()
                        .skip(2)
                        .take_while(char::is_ascii_hexdigit)
                        .take(4),
                )
                .collect(),
            _ => rest.chars().take(2).collect(),
        };
        return format!("`{escape}`");
    }
    if c.is_alphabetic() {
        let word: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .take(24)
            .collect();
        return format!("`{word}`");
    }
    let invisible = c.is_whitespace()
        || c.is_control()
        || matches!(c, '\u{ad}' | '\u{180e}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{206f}' | '\u{feff}');
    if invisible {
        format!("U+{:04X}", c as u32)
    } else {
        format!("`{c}`")
    }
}

enum Problem {
    Invalid(String),
    Run(RunError),
}

/// The parse stopped because the meter tripped: the caller reports the
/// limit instead, so the message is never shown (and the text is not
/// scanned for a line and column).
fn stopped() -> Problem {
    Problem::Invalid(String::new())
}

struct Parser<'s, 'c, 'm, 'a> {
    src: &'s [u8],
    text: &'s str,
    pos: usize,
    /// The position at which to charge the next chunk read.
    poll_at: Cell<usize>,
    /// Values made since the last charge.
    values: Cell<u64>,
    /// Object keys made so far, shared by every object that has them
    /// (at most [`SHARED_KEYS`], each at most [`SHARED_KEY_BYTES`]).
    keys: HashMap<String, Value>,
    /// `Bool(false)` and `Bool(true)` once made, shared likewise.
    bools: [Option<Value>; 2],
    /// Bytes held in the arrays and objects being built (their element
    /// vectors, with room to grow): not yet values the run's memory
    /// counts, so each chunk read checks them against the limit.
    held: Cell<usize>,
    /// The memory limit's error, once a chunk's check found it passed.
    over: Cell<Option<RunError>>,
    cx: &'c Cx<'m, 'a>,
}

impl Parser<'_, '_, '_, '_> {
    fn error(&self, what: &str) -> Problem {
        self.cx
            .meter()
            .charge(meter::bytes(self.pos).saturating_mul(2));
        let before = self.text.get(..self.pos.min(self.text.len())).unwrap_or("");
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        let found = found(self.text.get(self.pos..).unwrap_or(""));
        Problem::Invalid(format!(
            "{what} at line {line}, column {col}, found {found}"
        ))
    }

    /// The error `what` at byte `pos` of the text.
    fn error_at(&mut self, pos: usize, what: &str) -> Problem {
        self.pos = pos;
        self.error(what)
    }

    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    /// Charge for the text read and the values made so far, once a chunk
    /// has been read; `false` once the meter has tripped (the parse then
    /// stops with an error that the caller replaces with the limit's).
    #[inline(always)]
    fn read(&self) -> bool {
        if self.pos < self.poll_at.get() {
            return true;
        }
        self.charge_chunk()
    }

    #[cold]
    #[inline(never)]
    fn charge_chunk(&self) -> bool {
        // The values made so far are counted by the run's memory; the
        // vectors holding them until their array or object ends are not.
        if let Err(e) = self.cx.reserve(self.held.get()) {
            self.over.set(Some(e));
            return false;
        }
        let units = meter::bytes(READ_CHUNK) + self.values.replace(0);
        if !self.cx.meter().charge(units) {
            return false;
        }
        // Only a chunk paid for moves the next check on: once a limit is
        // passed, every later read finds it so (a `false` that `ws`
        // passed over must not let the next value go on).
        self.poll_at.set(self.pos.saturating_add(READ_CHUNK));
        true
    }

    fn ws(&mut self) -> Result<(), Problem> {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
            // A tripped meter ends the blanks early; the next value stops.
            if !self.read() {
                break;
            }
        }
        Ok(())
    }

    fn literal(&mut self, word: &str, v: Value) -> Result<Value, Problem> {
        if self.src.get(self.pos..self.pos + word.len()) == Some(word.as_bytes()) {
            self.pos += word.len();
            Ok(v)
        } else {
            // `nul` or `True` were meant as the literal; `name` or `no`
            // were not JSON at all (an unquoted word).
            let rest = self.src.get(self.pos..).unwrap_or(&[]);
            let typed = rest
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric())
                .count();
            let meant = rest
                .get(..typed)
                .is_some_and(|w| word.as_bytes().starts_with(&w.to_ascii_lowercase()));
            if meant {
                Err(self.error(&format!("expected `{word}`")))
            } else {
                Err(self.error(NOT_A_VALUE))
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, Problem> {
        self.values.set(self.values.get() + 1);
        if !self.read() {
            return Err(stopped());
        }
        let pre = self.cx.module().prelude;
        match self.peek() {
            Some(b'n') => self.literal("null", Value(Repr::Tag(pre.null.into()))),
            Some(b't') => {
                let v = self.boolean(true);
                self.literal("true", v)
            }
            Some(b'f') => {
                let v = self.boolean(false);
                self.literal("false", v)
            }
            Some(b'"') => {
                let s = self.string()?;
                Ok(Value::constructed(pre.string, [Value::str(s)]))
            }
            Some(b'-' | b'0'..=b'9') => {
                let x = self.number()?;
                Ok(Value::constructed(pre.number, [Value::float(x)]))
            }
            Some(b'[') | Some(b'{') if depth >= MAX_DEPTH => Err(self.error(&format!(
                "expected arrays and objects nested at most {MAX_DEPTH} deep"
            ))),
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                self.ws()?;
                if self.peek() == Some(b']') {
                    self.pos += 1;
                } else {
                    loop {
                        self.ws()?;
                        items.push(self.value(depth + 1)?);
                        self.held.set(self.held.get().saturating_add(HELD_PER_ITEM));
                        self.ws()?;
                        match self.peek() {
                            Some(b',') => self.pos += 1,
                            Some(b']') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(self.error("expected `,` or `]`")),
                        }
                    }
                }
                self.held.set(
                    self.held
                        .get()
                        .saturating_sub(items.len().saturating_mul(HELD_PER_ITEM)),
                );
                items.shrink_to_fit();
                self.cx.reserve(items.len() * SLOT).map_err(Problem::Run)?;
                Ok(Value::constructed(pre.array, [Value::from_vec(items)]))
            }
            Some(b'{') => {
                self.pos += 1;
                let mut m = Entries::new();
                self.ws()?;
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                } else {
                    loop {
                        self.ws()?;
                        if self.peek() != Some(b'"') {
                            return Err(self.error("expected a string key"));
                        }
                        let k = self.string()?;
                        let k = self.key(k);
                        self.ws()?;
                        if self.peek() != Some(b':') {
                            return Err(self.error("expected `:`"));
                        }
                        self.pos += 1;
                        self.ws()?;
                        let v = self.value(depth + 1)?;
                        m.insert(Key(k), v);
                        self.held
                            .set(self.held.get().saturating_add(2 * HELD_PER_ITEM));
                        self.ws()?;
                        match self.peek() {
                            Some(b',') => self.pos += 1,
                            Some(b'}') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(self.error("expected `,` or `}`")),
                        }
                    }
                }
                self.held.set(
                    self.held
                        .get()
                        .saturating_sub(m.len().saturating_mul(2 * HELD_PER_ITEM)),
                );
                m.shrink_to_fit();
                self.cx.reserve(m.len() * 2 * SLOT).map_err(Problem::Run)?;
                Ok(Value::constructed(
                    pre.object,
                    [Value(Repr::Map(MapObj::new(m)))],
                ))
            }
            _ => Err(self.error(NOT_A_VALUE)),
        }
    }

    /// `Bool(b)`, made once per parse.
    fn boolean(&mut self, b: bool) -> Value {
        let pre = self.cx.module().prelude;
        self.bools[usize::from(b)]
            .get_or_insert_with(|| Value::constructed(pre.bool, [Value::bool(b)]))
            .clone()
    }

    /// The string value of an object key: the one made for an equal key
    /// earlier in the parse, when there is one.
    fn key(&mut self, k: String) -> Value {
        if let Some(v) = self.keys.get(k.as_str()) {
            return v.clone();
        }
        let v = Value::str(k.as_str());
        if self.keys.len() < SHARED_KEYS && k.len() <= SHARED_KEY_BYTES {
            self.keys.insert(k, v.clone());
        }
        v
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
            if !self.read() {
                break;
            }
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<f64, Problem> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        if self.peek() == Some(b'0') {
            self.pos += 1;
        } else if self.digits() == 0 {
            return Err(self.error("expected a digit"));
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.error("expected a digit after `.`"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.error("expected a digit in the exponent"));
            }
        }
        let text = self.text.get(start..self.pos).unwrap_or("");
        match text.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(x),
            _ => {
                self.pos = start;
                Err(self.error("expected a number that fits in a Float"))
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, Problem> {
        let digits = self
            .text
            .get(self.pos..self.pos + 4)
            .filter(|h| h.chars().all(|c| c.is_ascii_hexdigit()));
        let Some(h) = digits else {
            return Err(self.error("expected four hexadecimal digits"));
        };
        let v =
            u32::from_str_radix(h, 16).map_err(|_| self.error("expected hexadecimal digits"))?;
        self.pos += 4;
        Ok(v)
    }

    fn string(&mut self) -> Result<String, Problem> {
        self.pos += 1;
        let mut out = String::new();
        loop {
            let rest = self.text.get(self.pos..).unwrap_or("");
            let Some(c) = rest.chars().next() else {
                return Err(self.error("expected a closing `\"`"));
            };
            match c {
                '"' => {
                    self.pos += 1;
                    return Ok(out);
                }
                '\\' => {
                    let escape = self.pos;
                    self.pos += 1;
                    let e = self.peek();
                    self.pos += 1;
                    match e {
                        Some(b'"') => out.push('"'),
                        Some(b'\\') => out.push('\\'),
                        Some(b'/') => out.push('/'),
                        Some(b'b') => out.push('\u{8}'),
                        Some(b'f') => out.push('\u{c}'),
                        Some(b'n') => out.push('\n'),
                        Some(b'r') => out.push('\r'),
                        Some(b't') => out.push('\t'),
                        Some(b'u') => {
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi) {
                                let second = self.pos;
                                let low = if self.src.get(self.pos..self.pos + 2) == Some(b"\\u") {
                                    self.pos += 2;
                                    Some(self.hex4()?)
                                } else {
                                    None
                                };
                                match low {
                                    Some(lo) if (0xDC00..0xE000).contains(&lo) => {
                                        0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                                    }
                                    _ => {
                                        return Err(self.error_at(
                                            second,
                                            &format!("expected a low surrogate (`\\uDC00` to `\\uDFFF`) after `\\u{hi:04X}`"),
                                        ));
                                    }
                                }
                            } else {
                                hi
                            };
                            match char::from_u32(code) {
                                Some(c) => out.push(c),
                                None => {
                                    return Err(self.error_at(
                                        escape,
                                        "expected a Unicode scalar value (a low surrogate must follow a high one)",
                                    ));
                                }
                            }
                        }
                        _ => {
                            self.pos -= 1;
                            return Err(
                                self.error("expected an escape (`\\n`, `\\\"`, `\\u0041`, ...)")
                            );
                        }
                    }
                    // An escape is decoded one at a time: a unit each, and
                    // a text of nothing but escapes polls like any other.
                    self.values.set(self.values.get() + 1);
                    if !self.read() {
                        return Err(stopped());
                    }
                }
                c if (c as u32) < 0x20 => {
                    return Err(self.error("expected a control character to be escaped"));
                }
                c => {
                    // A stretch that needs no escape, copied at once (at
                    // most a chunk: its end is an ASCII byte or is moved
                    // back to a character boundary).
                    let bytes = rest.as_bytes();
                    let most = bytes.len().min(READ_CHUNK);
                    let mut end = bytes
                        .iter()
                        .take(most)
                        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                        .unwrap_or(most);
                    while end > 0 && !rest.is_char_boundary(end) {
                        end -= 1;
                    }
                    let end = end.max(c.len_utf8());
                    out.push_str(rest.get(..end).unwrap_or(""));
                    self.pos += end;
                    if !self.read() {
                        return Err(stopped());
                    }
                }
            }
        }
    }
}

pub(super) fn stringify(cx: &Cx, a: &[Value]) -> R {
    let [j] = a else {
        return Err(wrong_args("json.stringify"));
    };
    write(cx, j, false)
}

pub(super) fn pretty(cx: &Cx, a: &[Value]) -> R {
    let [j] = a else {
        return Err(wrong_args("json.pretty"));
    };
    write(cx, j, true)
}

/// What is left to write. An array's elements and an object's entries are
/// visited as they are written, never queued ahead, so writing a long
/// array needs no memory beyond its text; the pieces left are one per
/// array or object open, as many as the value is deep.
enum Piece<'v> {
    Json(&'v Value, usize),
    /// The elements of an array at `depth` not yet written.
    Items {
        items: Box<dyn Iterator<Item = &'v Value> + 'v>,
        depth: usize,
        first: bool,
    },
    /// The entries of an object at `depth` not yet written.
    Entries {
        entries: Box<dyn Iterator<Item = (&'v Key, &'v Value)> + 'v>,
        depth: usize,
        first: bool,
    },
}

fn number_text(x: f64, out: &mut String) {
    if !x.is_finite() {
        out.push_str("null");
    } else if x == 0.0 && x.is_sign_negative() {
        out.push_str("-0");
    } else if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 {
        let _ = write!(out, "{}", x as i64);
    } else if x.abs() >= 1e21 || x.abs() < 1e-7 {
        let _ = write!(out, "{x:e}");
    } else {
        let _ = write!(out, "{x}");
    }
}

fn string_text(cx: &Cx, s: &str, out: &mut String) -> Result<(), RunError> {
    out.push('"');
    let mut next = 0;
    for (i, c) in s.char_indices() {
        if i >= next {
            cx.tick(meter::bytes(CHUNK.min(s.len() - i)))?;
            next = i + CHUNK;
        }
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    Ok(())
}

/// The most an iterator of a list's elements (a `VecDeque`'s, 32 bytes)
/// or of a map's entries (136 bytes, for a map kept as a tree) holds
/// (tested).
const ITERATOR_BYTES: usize = 136;

/// What a piece left to write holds, its boxed iterator included: counted
/// against the memory limit, as a value a million deep leaves a million.
const PIECE_BYTES: usize = std::mem::size_of::<Piece<'static>>() + ITERATOR_BYTES;

fn write(cx: &Cx, j: &Value, pretty: bool) -> R {
    let pre = cx.module().prelude;
    let mut out = String::new();
    let mut work = vec![Piece::Json(j, 0)];
    let budget = cx.machine.memory_left();
    // Before an element or entry (`first`: the first of its array or
    // object) or before a closing bracket (`close`).
    let separate = |out: &mut String, depth: usize, first: bool, close: bool| {
        if !first && !close {
            out.push(',');
        }
        if pretty {
            let n = if close { depth } else { depth + 1 };
            cx.tick(meter::bytes(2 * n))?;
            out.push('\n');
            for _ in 0..n {
                out.push_str("  ");
            }
        }
        Ok::<(), RunError>(())
    };
    while let Some(p) = work.pop() {
        // The text so far and the pieces left, beyond what the value holds.
        let held = out
            .len()
            .saturating_add(work.len().saturating_mul(PIECE_BYTES));
        if held > budget {
            cx.reserve(held)?;
        }
        cx.tick(1)?;
        match p {
            Piece::Items {
                mut items,
                depth,
                first,
            } => match items.next() {
                Some(x) => {
                    separate(&mut out, depth, first, false)?;
                    work.push(Piece::Items {
                        items,
                        depth,
                        first: false,
                    });
                    work.push(Piece::Json(x, depth + 1));
                }
                None => {
                    separate(&mut out, depth, first, true)?;
                    out.push(']');
                }
            },
            Piece::Entries {
                mut entries,
                depth,
                first,
            } => match entries.next() {
                Some((k, x)) => {
                    separate(&mut out, depth, first, false)?;
                    string_text(cx, k.0.as_str().unwrap_or(""), &mut out)?;
                    out.push_str(if pretty { ": " } else { ":" });
                    work.push(Piece::Entries {
                        entries,
                        depth,
                        first: false,
                    });
                    work.push(Piece::Json(x, depth + 1));
                }
                None => {
                    separate(&mut out, depth, first, true)?;
                    out.push('}');
                }
            },
            Piece::Json(v, depth) => {
                let Some(c) = v.ctor() else {
                    return Err(wrong_args("json.stringify"));
                };
                let field = v.parts().first();
                match (field, c) {
                    (_, c) if c == pre.null => out.push_str("null"),
                    (Some(Value(Repr::Bool(b))), _) => {
                        out.push_str(if b.get() { "true" } else { "false" })
                    }
                    (Some(Value(Repr::Float(x))), _) => number_text(x.get(), &mut out),
                    (Some(Value(Repr::Str(s))), _) => string_text(cx, &s.text, &mut out)?,
                    (Some(Value(Repr::List(l))), _) if l.is_empty() => out.push_str("[]"),
                    (Some(Value(Repr::List(l))), _) => {
                        out.push('[');
                        work.push(Piece::Items {
                            items: Box::new(l.iter()),
                            depth,
                            first: true,
                        });
                    }
                    (Some(Value(Repr::Map(m))), _) if m.entries.is_empty() => out.push_str("{}"),
                    (Some(Value(Repr::Map(m))), _) => {
                        out.push('{');
                        work.push(Piece::Entries {
                            entries: Box::new(m.entries.iter()),
                            depth,
                            first: true,
                        });
                    }
                    _ => return Err(wrong_args("json.stringify")),
                }
            }
        }
    }
    cx.reserve(out.len())?;
    Ok(Value::str(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_piece_left_to_write_is_counted_with_its_iterator() {
        fn size<T>(_: &T) -> usize {
            std::mem::size_of::<T>()
        }
        let list = crate::value::ListObj::new(Vec::new());
        let map = Entries::new();
        assert!(size(&list.iter()) <= ITERATOR_BYTES);
        assert!(size(&map.iter()) <= ITERATOR_BYTES);
    }
}
