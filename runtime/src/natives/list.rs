//! Native `list` functions.

use std::cmp::Ordering;

use super::{Cx, int, items, new_str, reserve_list, sort, wrong_args};
use crate::display;
use crate::error::RunError;
use crate::value::{self, Repr, Value};

type R = Result<Value, RunError>;

/// Elements made between two charges where making one is cheap.
const BLOCK: i64 = 4096;

/// A new list of `f` applied to each of `xs`, one unit per element.
fn mapped<T>(
    cx: &Cx,
    xs: impl Iterator<Item = T>,
    f: impl Fn(usize, T) -> Value,
) -> Result<imbl::Vector<Value>, RunError> {
    let mut out = imbl::Vector::new();
    for (i, x) in xs.enumerate() {
        cx.tick(1)?;
        out.push_back(f(i, x));
    }
    Ok(out)
}

fn list(cx: &Cx, v: imbl::Vector<Value>) -> R {
    reserve_list(cx, v.len())?;
    Ok(Value::from_vector(v))
}

/// A count argument: negative counts act as zero.
fn count(v: &Value, name: &str) -> Result<usize, RunError> {
    Ok(usize::try_from(int(v, name)?.max(0)).unwrap_or(usize::MAX))
}

pub(super) fn length(_: &Cx, a: &[Value]) -> R {
    let [xs] = a else {
        return Err(wrong_args("list.length"));
    };
    Ok(Value(Repr::Int(items(xs, "list.length")?.len() as i64)))
}

pub(super) fn is_empty(_: &Cx, a: &[Value]) -> R {
    let [xs] = a else {
        return Err(wrong_args("list.is_empty"));
    };
    Ok(Value(Repr::Bool(items(xs, "list.is_empty")?.is_empty())))
}

pub(super) fn sum(cx: &Cx, a: &[Value]) -> R {
    let [xs] = a else {
        return Err(wrong_args("list.sum"));
    };
    let xs = items(xs, "list.sum")?;
    let mut it = xs.iter();
    let Some(first) = it.next() else {
        return Ok(Value(Repr::Int(0)));
    };
    let mut acc = first.clone();
    for x in it {
        cx.tick(1)?;
        acc = match (&acc, x) {
            (Value(Repr::Int(a)), Value(Repr::Int(b))) => {
                Value(Repr::Int(a.checked_add(*b).ok_or_else(|| {
                    RunError::overflow(&format!("{a} + {b} in list.sum"))
                })?))
            }
            (Value(Repr::Float(a)), Value(Repr::Float(b))) => Value(Repr::Float(a + b)),
            _ => return Err(wrong_args("list.sum")),
        };
    }
    Ok(acc)
}

pub(super) fn sum_float(cx: &Cx, a: &[Value]) -> R {
    match a {
        [xs] if items(xs, "list.sum")?.is_empty() => Ok(Value(Repr::Float(0.0))),
        _ => sum(cx, a),
    }
}

fn extreme(cx: &Cx, a: &[Value], name: &str, want: Ordering) -> R {
    let [xs] = a else {
        return Err(wrong_args(name));
    };
    let xs = items(xs, name)?;
    let mut best: Option<&Value> = None;
    for x in xs.iter() {
        cx.tick(1)?;
        best = match best {
            Some(b) if value::compare(x, b) != want => Some(b),
            _ => Some(x),
        };
    }
    Ok(cx.option(best.cloned()))
}

pub(super) fn min(cx: &Cx, a: &[Value]) -> R {
    extreme(cx, a, "list.min", Ordering::Less)
}

pub(super) fn max(cx: &Cx, a: &[Value]) -> R {
    extreme(cx, a, "list.max", Ordering::Greater)
}

pub(super) fn sort(cx: &Cx, a: &[Value]) -> R {
    let [xs] = a else {
        return Err(wrong_args("list.sort"));
    };
    let xs = items(xs, "list.sort")?;
    let keys = refs(cx, &xs)?;
    let order = sort::sorted_order(cx, &keys)?;
    in_order(cx, &keys, &order)
}

/// References to the elements of `xs`, after checking that the scratch
/// they take fits under the memory limit.
fn refs<'v>(cx: &Cx, xs: &'v imbl::Vector<Value>) -> Result<Vec<&'v Value>, RunError> {
    cx.reserve(xs.len().saturating_mul(std::mem::size_of::<&Value>()))?;
    Ok(xs.iter().collect())
}

/// The list of `values` in `order` (indices into it), one unit per element.
fn in_order(cx: &Cx, values: &[&Value], order: &[usize]) -> R {
    let picked = order.iter().filter_map(|&i| values.get(i).copied());
    list(cx, mapped(cx, picked, |_, v| v.clone())?)
}

pub(super) fn sort_pairs(cx: &Cx, a: &[Value]) -> R {
    let [xs] = a else {
        return Err(wrong_args("list.sort_pairs"));
    };
    let xs = items(xs, "list.sort_pairs")?;
    let pairs = refs(cx, &xs)?;
    cx.reserve(pairs.len().saturating_mul(std::mem::size_of::<&Value>()))?;
    let keys: Vec<&Value> = pairs
        .iter()
        .map(|p| p.parts().first().unwrap_or(&Value(Repr::Unit)))
        .collect();
    let order = sort::sorted_order(cx, &keys)?;
    in_order(cx, &pairs, &order)
}

pub(super) fn reverse(cx: &Cx, a: &[Value]) -> R {
    let [xs] = a else {
        return Err(wrong_args("list.reverse"));
    };
    let xs = items(xs, "list.reverse")?;
    list(cx, mapped(cx, xs.iter().rev(), |_, x| x.clone())?)
}

pub(super) fn take(cx: &Cx, a: &[Value]) -> R {
    let [xs, n] = a else {
        return Err(wrong_args("list.take"));
    };
    let xs = items(xs, "list.take")?;
    let n = count(n, "list.take")?.min(xs.len());
    list(cx, xs.clone().slice(..n))
}

pub(super) fn drop(cx: &Cx, a: &[Value]) -> R {
    let [xs, n] = a else {
        return Err(wrong_args("list.drop"));
    };
    let xs = items(xs, "list.drop")?;
    let n = count(n, "list.drop")?.min(xs.len());
    list(cx, xs.clone().slice(n..))
}

pub(super) fn zip(cx: &Cx, a: &[Value]) -> R {
    let [xs, ys] = a else {
        return Err(wrong_args("list.zip"));
    };
    let xs = items(xs, "list.zip")?;
    let ys = items(ys, "list.zip")?;
    reserve_list(cx, xs.len().min(ys.len()) * 3)?;
    let out = mapped(cx, xs.iter().zip(ys.iter()), |_, (x, y)| {
        Value::tuple(vec![x.clone(), y.clone()])
    })?;
    list(cx, out)
}

pub(super) fn unzip(cx: &Cx, a: &[Value]) -> R {
    let [pairs] = a else {
        return Err(wrong_args("list.unzip"));
    };
    let pairs = items(pairs, "list.unzip")?;
    reserve_list(cx, pairs.len().saturating_mul(2))?;
    let mut firsts = imbl::Vector::new();
    let mut seconds = imbl::Vector::new();
    for p in pairs.iter() {
        cx.tick(1)?;
        let [x, y] = p.parts() else {
            return Err(wrong_args("list.unzip"));
        };
        firsts.push_back(x.clone());
        seconds.push_back(y.clone());
    }
    Ok(Value::tuple(vec![
        Value::from_vector(firsts),
        Value::from_vector(seconds),
    ]))
}

pub(super) fn enumerate(cx: &Cx, a: &[Value]) -> R {
    let [xs] = a else {
        return Err(wrong_args("list.enumerate"));
    };
    let xs = items(xs, "list.enumerate")?;
    reserve_list(cx, xs.len() * 3)?;
    let out = mapped(cx, xs.iter(), |i, x| {
        Value::tuple(vec![Value(Repr::Int(i as i64)), x.clone()])
    })?;
    list(cx, out)
}

pub(super) fn range(cx: &Cx, a: &[Value]) -> R {
    let [start, end] = a else {
        return Err(wrong_args("list.range"));
    };
    let (s, e) = (int(start, "list.range")?, int(end, "list.range")?);
    let n = usize::try_from(e.saturating_sub(s).max(0)).unwrap_or(usize::MAX);
    reserve_list(cx, n)?;
    // Charged a block at a time: making an integer is cheap.
    let mut out = imbl::Vector::new();
    let mut from = s;
    while from < e {
        let to = from.saturating_add(BLOCK).min(e);
        cx.tick((to - from) as u64)?;
        out.extend((from..to).map(Value::int));
        from = to;
    }
    list(cx, out)
}

pub(super) fn contains(cx: &Cx, a: &[Value]) -> R {
    let [xs, x] = a else {
        return Err(wrong_args("list.contains"));
    };
    for y in items(xs, "list.contains")?.iter() {
        cx.tick(1)?;
        if value::equal(x, y) {
            return Ok(Value(Repr::Bool(true)));
        }
    }
    Ok(Value(Repr::Bool(false)))
}

pub(super) fn first(cx: &Cx, a: &[Value]) -> R {
    let [xs] = a else {
        return Err(wrong_args("list.first"));
    };
    Ok(cx.option(items(xs, "list.first")?.front().cloned()))
}

pub(super) fn last(cx: &Cx, a: &[Value]) -> R {
    let [xs] = a else {
        return Err(wrong_args("list.last"));
    };
    Ok(cx.option(items(xs, "list.last")?.back().cloned()))
}

pub(super) fn get(cx: &Cx, a: &[Value]) -> R {
    let [xs, i] = a else {
        return Err(wrong_args("list.get"));
    };
    let xs = items(xs, "list.get")?;
    let i = int(i, "list.get")?;
    Ok(cx.option(usize::try_from(i).ok().and_then(|i| xs.get(i)).cloned()))
}

pub(super) fn concat(cx: &Cx, a: &[Value]) -> R {
    let [xss] = a else {
        return Err(wrong_args("list.concat"));
    };
    let xss = items(xss, "list.concat")?;
    let mut total = 0usize;
    for xs in xss.iter() {
        cx.tick(1)?;
        total = total.saturating_add(items(xs, "list.concat")?.len());
    }
    reserve_list(cx, total)?;
    let mut out = imbl::Vector::new();
    for xs in xss.iter() {
        let xs = items(xs, "list.concat")?;
        cx.tick(1 + xs.len().min(64) as u64)?;
        // Appending a tree costs more than pushing a few elements.
        if xs.len() < 64 {
            out.extend(xs.iter().cloned());
        } else {
            out.append(xs.clone());
        }
    }
    list(cx, out)
}

pub(super) fn unique(cx: &Cx, a: &[Value]) -> R {
    let [xs] = a else {
        return Err(wrong_args("list.unique"));
    };
    let xs = items(xs, "list.unique")?;
    let keys = refs(cx, &xs)?;
    let keep = sort::firsts(cx, &keys)?;
    let kept = keys.iter().zip(keep).filter_map(|(x, k)| k.then_some(*x));
    list(cx, mapped(cx, kept, |_, x| x.clone())?)
}

pub(super) fn join(cx: &Cx, a: &[Value]) -> R {
    let [xs, sep] = a else {
        return Err(wrong_args("list.join"));
    };
    let sep = super::text(sep, "list.join")?;
    let mut s = String::new();
    for (i, x) in items(xs, "list.join")?.iter().enumerate() {
        if i > 0 {
            cx.tick(crate::meter::bytes(sep.len()))?;
            s.push_str(sep);
        }
        let left = cx.machine.memory_left().saturating_sub(s.len());
        display::display_in(
            x,
            cx.module(),
            display::StrForm::Text,
            &mut s,
            left,
            cx.meter(),
        );
        cx.tick(1)?;
        cx.reserve(s.len())?;
    }
    new_str(cx, s)
}
