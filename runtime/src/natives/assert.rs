//! Native `assert` functions: the checks of `writ test` (docs/testing.md),
//! usable in any program.
//!
//! An assertion that holds returns `()`; one that does not is the run's
//! error `E4016` (placed by the machine at the program's call), whose
//! message names what was expected and what was found. A run-time error,
//! unlike `Fail`, cannot be handled, so a test cannot catch its own
//! failure.
//!
//! Bounds: the values shown in a message are cut at [`SHOWN`] bytes (the
//! parts where two values differ at [`PART`]); finding where two values
//! differ goes at most [`MAX_PATH`] levels down, one structural comparison
//! per level, each charged to the run's meter like `==`.

use super::{Cx, text, wrong_args};
use crate::display::{self, StrForm};
use crate::error::RunError;
use crate::value::{self, Repr, Value, View};
use writ_lang::Code;

type R = Result<Value, RunError>;

/// The most bytes of one value a message shows.
pub(crate) const SHOWN: usize = 200;
/// The most bytes of one differing part a message shows.
const PART: usize = 100;
/// How deep [`difference`] looks for where two values differ.
const MAX_PATH: usize = 64;

/// The error of an assertion that does not hold.
fn failed(message: String) -> RunError {
    RunError::new(Code::AssertionFailed, message)
}

/// `v` as a message shows it: its display form, quoted, cut at `max` bytes.
fn shown(cx: &Cx, v: &Value, max: usize) -> String {
    let mut out = String::new();
    let _ = display::display(v, cx.module(), StrForm::Quoted, &mut out, max);
    display::safe_text(&out, display::LineBreaks::Escape)
}

/// Where two unequal values first differ: a path from the top (`[2]`,
/// `.price`, `Some.0`, `[0].Node.2.Node.1`) and the two parts there, or the two lengths of
/// sequences that agree as far as the shorter goes.
struct Difference<'a> {
    path: String,
    actual: &'a Value,
    expected: &'a Value,
    lengths: Option<(usize, usize)>,
}

/// Walk down both values to the first place they differ (`a != b` is
/// assumed). Charges the run's meter through `==`; `Err` once a limit is
/// exhausted.
fn difference<'a>(cx: &Cx, a: &'a Value, b: &'a Value) -> Result<Difference<'a>, RunError> {
    let mut d = Difference {
        path: String::new(),
        actual: a,
        expected: b,
        lengths: None,
    };
    for _ in 0..MAX_PATH {
        cx.tick(1)?;
        // The first pair of parts that differ, found without collecting
        // the parts (each comparison metered, as `==` is).
        let unequal = |(u, v): &(&Value, &Value)| !value::equal(u, v);
        let next: Option<(String, &Value, &Value)> = match (d.actual.view(), d.expected.view()) {
            (View::List(x), View::List(y)) => {
                first_unequal(x.iter().zip(y.iter()), |i| format!("[{i}]"))
            }
            (View::Tuple(x), View::Tuple(y)) => {
                first_unequal(x.iter().zip(y.iter()), |i| format!(".{i}"))
            }
            (View::Record(x), View::Record(y)) => x
                .fields(cx.module())
                .zip(y.values())
                .find(|((_, u), v)| !value::equal(u, v))
                .map(|((name, u), v)| (format!(".{name}"), u, v)),
            (View::Variant(x), View::Variant(y)) if x.ctor() == y.ctor() => {
                // `Some.0`: the constructor, then its field's position.
                let name = x.name(cx.module()).unwrap_or("?").to_string();
                let sep = if d.path.is_empty() { "" } else { "." };
                first_unequal(x.fields().iter().zip(y.fields()), |i| {
                    format!("{sep}{name}.{i}")
                })
            }
            (View::Map(x), View::Map(y)) => x
                .iter()
                .zip(y.iter())
                .take_while(|((k, _), (l, _))| value::equal(k, l))
                .map(|((k, u), (_, v))| (k, u, v))
                .find(|(_, u, v)| unequal(&(u, v)))
                .map(|(k, u, v)| (format!("[{}]", shown(cx, k, PART)), u, v)),
            _ => return Ok(d),
        };
        // A comparison cut short by a limit answered "equal": stop here
        // with the limit, not with a wrong place.
        cx.tick(1)?;
        match next {
            Some((step, u, v)) => {
                d.path.push_str(&step);
                d.actual = u;
                d.expected = v;
            }
            None => {
                d.lengths = sequence_lengths(d.actual, d.expected).filter(|(x, y)| x != y);
                return Ok(d);
            }
        }
    }
    Ok(d)
}

/// The first pair of parts at the same position that are not equal, with
/// its step.
fn first_unequal<'a>(
    pairs: impl Iterator<Item = (&'a Value, &'a Value)>,
    step: impl Fn(usize) -> String,
) -> Option<(String, &'a Value, &'a Value)> {
    pairs
        .enumerate()
        .find(|(_, (u, v))| !value::equal(u, v))
        .map(|(i, (u, v))| (step(i), u, v))
}

/// The lengths of two lists or two maps (what else can differ when every
/// common position agrees).
fn sequence_lengths(a: &Value, b: &Value) -> Option<(usize, usize)> {
    match (a.view(), b.view()) {
        (View::List(x), View::List(y)) => Some((x.len(), y.len())),
        (View::Map(x), View::Map(y)) => Some((x.len(), y.len())),
        _ => None,
    }
}

/// `assert.eq(actual, expected)`.
pub(super) fn eq(cx: &Cx, a: &[Value]) -> R {
    let [actual, expected] = a else {
        return Err(wrong_args("assert.eq"));
    };
    if value::equal(actual, expected) {
        return Ok(Value(Repr::Unit));
    }
    cx.tick(1)?;
    let mut message = format!(
        "expected `{}`, found `{}`",
        shown(cx, expected, SHOWN),
        shown(cx, actual, SHOWN)
    );
    let d = difference(cx, actual, expected)?;
    if !d.path.is_empty() || d.lengths.is_some() {
        let at = if d.path.is_empty() {
            String::new()
        } else {
            format!(" at `{}`", d.path)
        };
        match d.lengths {
            Some((found, wanted)) => message.push_str(&format!(
                "; they differ{at}: {wanted} {} expected, {found} found",
                if wanted == 1 { "element" } else { "elements" }
            )),
            None => message.push_str(&format!(
                "; they differ{at}: expected `{}`, found `{}`",
                shown(cx, d.expected, PART),
                shown(cx, d.actual, PART)
            )),
        }
    }
    message.push_str(&explained(cx, d.actual, d.expected)?);
    Err(failed(message))
}

/// What a message of two unequal parts adds when showing them does not
/// tell them apart: where two long texts first differ (shown from just
/// before there), the characters of two short texts that may show alike, and
/// that `NaN` equals nothing.
fn explained(cx: &Cx, actual: &Value, expected: &Value) -> Result<String, RunError> {
    match (actual.view(), expected.view()) {
        // Texts short enough to be shown whole speak for themselves.
        (View::Str(x), View::Str(y)) if x.len().max(y.len()) > PART / 2 => {
            // Charged as `==` on them is: a pass over the shorter.
            cx.tick(crate::meter::bytes(x.len().min(y.len())))?;
            let at = x
                .char_indices()
                .zip(y.chars())
                .find(|((_, a), b)| a != b)
                .map(|((i, _), _)| i)
                .unwrap_or(x.len().min(y.len()));
            let index = x.get(..at).map_or(0, |p| p.chars().count());
            // A few characters before the difference, for its place.
            let from = x
                .get(..at)
                .and_then(|p| p.char_indices().rev().nth(9).map(|(i, _)| i))
                .unwrap_or(0);
            let window = |s: &str| -> String {
                let part: String = s.get(from..).unwrap_or("").chars().take(40).collect();
                let lead = if from > 0 { "…" } else { "" };
                format!("`{lead}{}`", shown(cx, &Value::str(&part), PART))
            };
            Ok(format!(
                "; the texts first differ at index {index} (counted in characters from 0, as `str` counts): expected {}, found {}",
                window(y),
                window(x)
            ))
        }
        // Short texts with a character past ASCII may show alike (`"é"`
        // written as one character or as `e` and a combining accent, a
        // Cyrillic `а` for a Latin `a`): their characters tell them apart.
        (View::Str(x), View::Str(y))
            if x.chars().chain(y.chars()).any(|c| !c.is_ascii_graphic() && c != ' ') =>
        {
            let points = |s: &str| -> String {
                s.chars()
                    .map(|c| format!("U+{:04X}", u32::from(c)))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            Ok(format!(
                "; their characters: expected {}, found {}",
                points(y),
                points(x)
            ))
        }
        (View::Float(a), View::Float(b)) if a.is_nan() || b.is_nan() => Ok(
            "; `NaN` is equal to nothing, itself included (`==` on `Float`s follows IEEE 754): `x != x` holds only for `NaN`"
                .to_string(),
        ),
        _ => Ok(String::new()),
    }
}

/// `assert.ne(actual, unexpected)`.
pub(super) fn ne(cx: &Cx, a: &[Value]) -> R {
    let [actual, unexpected] = a else {
        return Err(wrong_args("assert.ne"));
    };
    if !value::equal(actual, unexpected) {
        return Ok(Value(Repr::Unit));
    }
    // A comparison cut short by a limit answers "equal": the limit, not a
    // false failure.
    cx.tick(1)?;
    Err(failed(format!(
        "expected a value other than `{}`, found it",
        shown(cx, unexpected, SHOWN)
    )))
}

/// `assert.that(condition, message)`.
pub(super) fn that(_: &Cx, a: &[Value]) -> R {
    let [condition, message] = a else {
        return Err(wrong_args("assert.that"));
    };
    match condition.as_bool() {
        Some(true) => Ok(Value(Repr::Unit)),
        Some(false) => Err(failed(format!(
            "expected the condition to hold ({}), found it false",
            said(text(message, "assert.that")?)
        ))),
        None => Err(wrong_args("assert.that")),
    }
}

/// `assert.fail(message)`.
pub(super) fn fail(_: &Cx, a: &[Value]) -> R {
    let [message] = a else {
        return Err(wrong_args("assert.fail"));
    };
    Err(failed(said(text(message, "assert.fail")?)))
}

/// `assert.contains(text, part)`.
pub(super) fn contains(cx: &Cx, a: &[Value]) -> R {
    let [whole, part] = a else {
        return Err(wrong_args("assert.contains"));
    };
    let (whole_text, part_text) = (
        text(whole, "assert.contains")?,
        text(part, "assert.contains")?,
    );
    cx.tick(crate::meter::bytes(whole_text.len() + part_text.len()))?;
    if whole_text.contains(part_text) {
        return Ok(Value(Repr::Unit));
    }
    Err(failed(format!(
        "expected text containing `{}`, found `{}`",
        shown(cx, part, PART),
        shown(cx, whole, SHOWN)
    )))
}

/// A program's own words in a message: one line, cut at [`SHOWN`] bytes.
fn said(words: &str) -> String {
    display::safe_start(words, SHOWN, display::LineBreaks::Escape)
}

/// The field of `v` when it is made with constructor `ctor` (one field),
/// or `E4016` naming `wanted` and what was found.
fn inside(cx: &Cx, a: &[Value], name: &str, ctor: u32, wanted: &str) -> R {
    let [v] = a else {
        return Err(wrong_args(name));
    };
    match (v.ctor(), v.parts()) {
        (Some(c), [x]) if c == ctor => Ok(x.clone()),
        _ => Err(failed(format!(
            "expected `{wanted}`, found `{}`",
            shown(cx, v, SHOWN)
        ))),
    }
}

/// `assert.some(o)`: the value in `Some(x)`.
pub(super) fn some(cx: &Cx, a: &[Value]) -> R {
    inside(cx, a, "assert.some", cx.module().prelude.some, "Some(...)")
}

/// `assert.none(o)`.
pub(super) fn none(cx: &Cx, a: &[Value]) -> R {
    let [o] = a else {
        return Err(wrong_args("assert.none"));
    };
    if o.ctor() == Some(cx.module().prelude.none) {
        return Ok(Value(Repr::Unit));
    }
    Err(failed(format!(
        "expected `None`, found `{}`",
        shown(cx, o, SHOWN)
    )))
}

/// `assert.ok(r)`: the value in `Ok(x)`.
pub(super) fn ok(cx: &Cx, a: &[Value]) -> R {
    inside(cx, a, "assert.ok", cx.module().prelude.ok, "Ok(...)")
}

/// `assert.err(r)`: the error in `Err(e)`.
pub(super) fn err(cx: &Cx, a: &[Value]) -> R {
    inside(cx, a, "assert.err", cx.module().prelude.err, "Err(...)")
}
