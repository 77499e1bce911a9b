//! Native `list` functions.

use std::cmp::Ordering;

use super::{Cx, count, int, items, new_str, reserve_list, sort, wrong_args};
use crate::display;
use crate::error::RunError;
use crate::value::{self, ListObj, Repr, Value};

type R = Result<Value, RunError>;

/// Elements made between two charges where making one is cheap.
const BLOCK: i64 = 4096;

/// A new list of `f` applied to each of `xs`, one unit per element,
/// after checking that its `xs.len()` slots fit.
fn mapped<T>(cx: &Cx, xs: impl ExactSizeIterator<Item = T>, f: impl Fn(usize, T) -> Value) -> R {
    reserve_list(cx, xs.len())?;
    let mut out = Vec::with_capacity(xs.len());
    for (i, x) in xs.enumerate() {
        cx.tick(1)?;
        out.push(f(i, x));
    }
    Ok(Value::from_vec(out))
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
    Ok(Value::bool(items(xs, "list.is_empty")?.is_empty()))
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
    if let Value(Repr::Int(first)) = first {
        return sum_ints(cx, *first, it);
    }
    let mut acc = first.clone();
    for x in it {
        cx.tick(1)?;
        acc = match (&acc, x) {
            (Value(Repr::Int(a)), Value(Repr::Int(b))) => {
                Value(Repr::Int(a.checked_add(*b).ok_or_else(|| {
                    RunError::overflow(&format!("{a} + {b} in list.sum"))
                })?))
            }
            (Value(Repr::Float(a)), Value(Repr::Float(b))) => Value::float(a.get() + b.get()),
            _ => return Err(wrong_args("list.sum")),
        };
    }
    Ok(acc)
}

/// The sum of `first` and the `Int`s of `rest`: one unit per element
/// of `rest`, charged a block at a time before the block is added.
fn sum_ints<'v>(cx: &Cx, first: i64, mut rest: impl ExactSizeIterator<Item = &'v Value>) -> R {
    let mut total = first;
    while rest.len() > 0 {
        let block = rest.len().min(BLOCK as usize);
        cx.tick(block as u64)?;
        for x in rest.by_ref().take(block) {
            let Value(Repr::Int(b)) = x else {
                return Err(wrong_args("list.sum"));
            };
            total = total
                .checked_add(*b)
                .ok_or_else(|| RunError::overflow(&format!("{total} + {b} in list.sum")))?;
        }
    }
    Ok(Value(Repr::Int(total)))
}

pub(super) fn sum_float(cx: &Cx, a: &[Value]) -> R {
    match a {
        [xs] if items(xs, "list.sum")?.is_empty() => Ok(Value::float(0.0)),
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
    let keys = refs(cx, xs)?;
    let order = sort::sorted_order(cx, &keys)?;
    in_order(cx, &keys, &order)
}

/// References to the elements of `xs`, after checking that the scratch
/// they take fits under the memory limit.
fn refs<'v>(cx: &Cx, xs: &'v ListObj) -> Result<Vec<&'v Value>, RunError> {
    cx.reserve(xs.len().saturating_mul(std::mem::size_of::<&Value>()))?;
    Ok(xs.iter().collect())
}

/// The list of `values` in `order` (indices into it), one unit per element.
fn in_order(cx: &Cx, values: &[&Value], order: &[usize]) -> R {
    let picked = order.iter().map(|&i| values.get(i).copied());
    mapped(cx, picked, |_, v| v.cloned().unwrap_or(Value(Repr::Unit)))
}

pub(super) fn sort_pairs(cx: &Cx, a: &[Value]) -> R {
    let [xs] = a else {
        return Err(wrong_args("list.sort_pairs"));
    };
    let xs = items(xs, "list.sort_pairs")?;
    let pairs = refs(cx, xs)?;
    cx.reserve(pairs.len().saturating_mul(std::mem::size_of::<&Value>()))?;
    let keys: Vec<&Value> = pairs
        .iter()
        .map(|p| p.parts().first().unwrap_or(&Value(Repr::Unit)))
        .collect();
    let order = sort::sorted_order(cx, &keys)?;
    in_order(cx, &pairs, &order)
}

/// `list.sort_along(xs, keys)`: the elements of `xs` in the order that
/// sorts `keys` (stably), as far as the shorter list goes. The key list
/// is what `list.sort_by` makes with its callback, so no pair is made
/// per element.
pub(super) fn sort_along(cx: &Cx, a: &[Value]) -> R {
    let [xs, keys] = a else {
        return Err(wrong_args("list.sort_along"));
    };
    let xs = items(xs, "list.sort_along")?;
    let keys = items(keys, "list.sort_along")?;
    let n = xs.len().min(keys.len());
    cx.reserve(n.saturating_mul(2 * std::mem::size_of::<&Value>()))?;
    let values: Vec<&Value> = xs.iter().take(n).collect();
    let keys: Vec<&Value> = keys.iter().take(n).collect();
    let order = sort::sorted_order(cx, &keys)?;
    in_order(cx, &values, &order)
}

pub(super) fn reverse(cx: &Cx, a: &[Value]) -> R {
    let [xs] = a else {
        return Err(wrong_args("list.reverse"));
    };
    let xs = items(xs, "list.reverse")?;
    mapped(cx, xs.iter().rev(), |_, x| x.clone())
}

pub(super) fn take(cx: &Cx, a: &[Value]) -> R {
    let [xs, n] = a else {
        return Err(wrong_args("list.take"));
    };
    let n = count(n, "list.take")?;
    let whole = items(xs, "list.take")?;
    if n >= whole.len() {
        return Ok(Value(Repr::List(whole.clone())));
    }
    mapped(cx, whole.range(0, n), |_, x| x.clone())
}

pub(super) fn drop(cx: &Cx, a: &[Value]) -> R {
    let [xs, n] = a else {
        return Err(wrong_args("list.drop"));
    };
    let n = count(n, "list.drop")?;
    let whole = items(xs, "list.drop")?;
    if n == 0 {
        return Ok(Value(Repr::List(whole.clone())));
    }
    if n >= whole.len() {
        // Nothing left: an empty list, not a view that would keep all of
        // `xs` alive.
        cx.tick(1)?;
        cx.reserve(value::HEADER)?;
        return Ok(Value::list(Vec::new()));
    }
    // The rest as `[_, ..rest]` makes it: a view, in constant time, of
    // a list without elements past a shared part.
    let copies = whole.rest_copies(n);
    cx.tick(copies as u64)?;
    cx.reserve(copies.saturating_mul(value::SLOT) + value::HEADER)?;
    Ok(Value(Repr::List(ListObj::rest(whole, n))))
}

pub(super) fn zip(cx: &Cx, a: &[Value]) -> R {
    let [xs, ys] = a else {
        return Err(wrong_args("list.zip"));
    };
    let xs = items(xs, "list.zip")?;
    let ys = items(ys, "list.zip")?;
    reserve_list(cx, xs.len().min(ys.len()) * 3)?;
    mapped(cx, xs.iter().zip(ys.iter()), |_, (x, y)| {
        Value::tuple([x.clone(), y.clone()])
    })
}

pub(super) fn unzip(cx: &Cx, a: &[Value]) -> R {
    let [pairs] = a else {
        return Err(wrong_args("list.unzip"));
    };
    let pairs = items(pairs, "list.unzip")?;
    reserve_list(cx, pairs.len().saturating_mul(2))?;
    let mut firsts = Vec::with_capacity(pairs.len());
    let mut seconds = Vec::with_capacity(pairs.len());
    for p in pairs.iter() {
        cx.tick(1)?;
        let [x, y] = p.parts() else {
            return Err(wrong_args("list.unzip"));
        };
        firsts.push(x.clone());
        seconds.push(y.clone());
    }
    Ok(Value::tuple([
        Value::from_vec(firsts),
        Value::from_vec(seconds),
    ]))
}

pub(super) fn enumerate(cx: &Cx, a: &[Value]) -> R {
    let [xs] = a else {
        return Err(wrong_args("list.enumerate"));
    };
    let xs = items(xs, "list.enumerate")?;
    reserve_list(cx, xs.len() * 3)?;
    mapped(cx, xs.iter(), |i, x| {
        Value::tuple([Value(Repr::Int(i as i64)), x.clone()])
    })
}

pub(super) fn range(cx: &Cx, a: &[Value]) -> R {
    let [start, end] = a else {
        return Err(wrong_args("list.range"));
    };
    let (s, e) = (int(start, "list.range")?, int(end, "list.range")?);
    let n = usize::try_from(e.saturating_sub(s).max(0)).unwrap_or(usize::MAX);
    reserve_list(cx, n)?;
    // Charged a block at a time: making an integer is cheap.
    let mut out = Vec::with_capacity(n);
    let mut from = s;
    while from < e {
        let to = from.saturating_add(BLOCK).min(e);
        cx.tick((to - from) as u64)?;
        out.extend((from..to).map(Value::int));
        from = to;
    }
    Ok(Value::from_vec(out))
}

pub(super) fn contains(cx: &Cx, a: &[Value]) -> R {
    let [xs, x] = a else {
        return Err(wrong_args("list.contains"));
    };
    for y in items(xs, "list.contains")?.iter() {
        cx.tick(1)?;
        if value::equal(x, y) {
            return Ok(Value::bool(true));
        }
    }
    Ok(Value::bool(false))
}

pub(super) fn first(cx: &Cx, a: &[Value]) -> R {
    let [xs] = a else {
        return Err(wrong_args("list.first"));
    };
    Ok(cx.option(items(xs, "list.first")?.first().cloned()))
}

pub(super) fn last(cx: &Cx, a: &[Value]) -> R {
    let [xs] = a else {
        return Err(wrong_args("list.last"));
    };
    Ok(cx.option(items(xs, "list.last")?.last().cloned()))
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
    let mut out = Vec::with_capacity(total);
    for xs in xss.iter() {
        let xs = items(xs, "list.concat")?;
        cx.tick(1 + xs.len() as u64)?;
        out.extend(xs.iter().cloned());
    }
    Ok(Value::from_vec(out))
}

pub(super) fn unique(cx: &Cx, a: &[Value]) -> R {
    let [xs] = a else {
        return Err(wrong_args("list.unique"));
    };
    let xs = items(xs, "list.unique")?;
    let keys = refs(cx, xs)?;
    let keep = sort::firsts(cx, &keys)?;
    let n = keep.iter().filter(|k| **k).count();
    reserve_list(cx, n)?;
    let mut out = Vec::with_capacity(n);
    for (x, k) in keys.iter().zip(keep) {
        if k {
            cx.tick(1)?;
            out.push((*x).clone());
        }
    }
    Ok(Value::from_vec(out))
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
        let shown = display::display_in(
            x,
            cx.module(),
            display::StrForm::Text,
            &mut s,
            left,
            cx.meter(),
        );
        cx.displayed(shown)?;
        cx.tick(1)?;
        cx.reserve(s.len())?;
    }
    new_str(cx, s)
}
