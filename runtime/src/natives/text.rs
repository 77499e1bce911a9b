//! Native `str` functions. Lengths, positions and slices count characters
//! (Unicode scalar values), not bytes.

use super::{Cx, int, items, new_str, reserve_list, text, wrong_args};
use crate::display;
use crate::error::RunError;
use crate::value::{self, Value};

type R = Result<Value, RunError>;

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
    let (n, bytes) = parts
        .clone()
        .fold((0usize, 0usize), |(n, b), p| (n + 1, b + p.len()));
    reserve_list(cx, n)?;
    cx.reserve(bytes.saturating_add(n.saturating_mul(value::HEADER)))?;
    Ok(Value::list(
        parts.map(|p| Value::str(p.to_string())).collect(),
    ))
}

/// Each character of `s` as its own piece of `s`.
fn pieces(s: &str) -> impl Iterator<Item = &str> + Clone {
    s.split_inclusive(|_: char| true)
}

pub(super) fn length(_: &Cx, a: &[Value]) -> R {
    Ok(Value::Int(one(a, "str.length")?.chars().count() as i64))
}

pub(super) fn is_empty(_: &Cx, a: &[Value]) -> R {
    Ok(Value::Bool(one(a, "str.is_empty")?.is_empty()))
}

pub(super) fn split(cx: &Cx, a: &[Value]) -> R {
    let (s, sep) = two(a, "str.split")?;
    if sep.is_empty() {
        strings(cx, pieces(s))
    } else {
        strings(cx, s.split(sep))
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
    for (i, x) in xs.iter().enumerate() {
        if i > 0 {
            s.push_str(sep);
        }
        s.push_str(text(x, "str.join")?);
    }
    new_str(cx, s)
}

pub(super) fn trim(cx: &Cx, a: &[Value]) -> R {
    new_str(cx, one(a, "str.trim")?.trim().to_string())
}

pub(super) fn contains(_: &Cx, a: &[Value]) -> R {
    let (s, t) = two(a, "str.contains")?;
    Ok(Value::Bool(s.contains(t)))
}

pub(super) fn starts_with(_: &Cx, a: &[Value]) -> R {
    let (s, t) = two(a, "str.starts_with")?;
    Ok(Value::Bool(s.starts_with(t)))
}

pub(super) fn ends_with(_: &Cx, a: &[Value]) -> R {
    let (s, t) = two(a, "str.ends_with")?;
    Ok(Value::Bool(s.ends_with(t)))
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
        return new_str(cx, s.to_string());
    }
    let n = s.matches(pat).count();
    cx.reserve(s.len() + n.saturating_mul(rep.len()))?;
    new_str(cx, s.replace(pat, rep))
}

pub(super) fn to_upper(cx: &Cx, a: &[Value]) -> R {
    new_str(cx, one(a, "str.to_upper")?.to_uppercase())
}

pub(super) fn to_lower(cx: &Cx, a: &[Value]) -> R {
    new_str(cx, one(a, "str.to_lower")?.to_lowercase())
}

/// Clamp a character index into `0..=len`.
fn clamp(i: i64, len: usize) -> usize {
    usize::try_from(i.max(0)).unwrap_or(usize::MAX).min(len)
}

pub(super) fn slice(cx: &Cx, a: &[Value]) -> R {
    let [s, start, end] = a else {
        return Err(wrong_args("str.slice"));
    };
    let s = text(s, "str.slice")?;
    let len = s.chars().count();
    let start = clamp(int(start, "str.slice")?, len);
    let end = clamp(int(end, "str.slice")?, len).max(start);
    new_str(cx, s.chars().skip(start).take(end - start).collect())
}

pub(super) fn chars(cx: &Cx, a: &[Value]) -> R {
    strings(cx, pieces(one(a, "str.chars")?))
}

pub(super) fn parse_int(cx: &Cx, a: &[Value]) -> R {
    let s = one(a, "str.parse_int")?;
    Ok(cx.option(s.parse::<i64>().ok().map(Value::Int)))
}

pub(super) fn parse_float(cx: &Cx, a: &[Value]) -> R {
    let s = one(a, "str.parse_float")?;
    let ok = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'));
    Ok(cx.option(
        s.parse::<f64>()
            .ok()
            .filter(|x| ok && x.is_finite())
            .map(Value::Float),
    ))
}

pub(super) fn repeat(cx: &Cx, a: &[Value]) -> R {
    let [s, n] = a else {
        return Err(wrong_args("str.repeat"));
    };
    let s = text(s, "str.repeat")?;
    let n = usize::try_from(int(n, "str.repeat")?.max(0)).unwrap_or(usize::MAX);
    cx.reserve(s.len().saturating_mul(n))?;
    new_str(cx, s.repeat(n))
}

fn pad(cx: &Cx, a: &[Value], name: &str, left: bool) -> R {
    let [s, width, fill] = a else {
        return Err(wrong_args(name));
    };
    let s = text(s, name)?;
    let fill = text(fill, name)?;
    let len = s.chars().count();
    let width = usize::try_from(int(width, name)?.max(0)).unwrap_or(usize::MAX);
    if width <= len || fill.is_empty() {
        return new_str(cx, s.to_string());
    }
    let missing = width - len;
    cx.reserve(missing.saturating_mul(fill.len()).saturating_add(s.len()))?;
    let padding: String = fill.chars().cycle().take(missing).collect();
    new_str(
        cx,
        if left {
            padding + s
        } else {
            s.to_string() + &padding
        },
    )
}

pub(super) fn pad_left(cx: &Cx, a: &[Value]) -> R {
    pad(cx, a, "str.pad_left", true)
}

pub(super) fn pad_right(cx: &Cx, a: &[Value]) -> R {
    pad(cx, a, "str.pad_right", false)
}

pub(super) fn index_of(cx: &Cx, a: &[Value]) -> R {
    let (s, t) = two(a, "str.index_of")?;
    Ok(cx.option(
        s.find(t)
            .map(|b| Value::Int(s.get(..b).map_or(0, |p| p.chars().count()) as i64)),
    ))
}

pub(super) fn lines(cx: &Cx, a: &[Value]) -> R {
    strings(cx, one(a, "str.lines")?.lines())
}

pub(super) fn from(cx: &Cx, a: &[Value]) -> R {
    let [v] = a else {
        return Err(wrong_args("str.from"));
    };
    let s = display::to_string(v, cx.module(), true, cx.machine.memory_left());
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
