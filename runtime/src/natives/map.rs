//! Native `map` functions. Keys are ordered by Writ's total order on
//! values, so keys, values and entries come out in ascending key order.
//!
//! Metering: one unit per entry visited, inserted or made, plus the key
//! comparisons inside the persistent map, which charge the run's meter
//! themselves ([`crate::meter::Meter::AMBIENT`]), so fuel, time and
//! cancellation stop even one insert or lookup on enormous keys.

use super::{Cx, items, reserve_list, wrong_args};
use crate::error::RunError;
use crate::value::{Entries, Key, MapObj, Repr, SLOT, Value};

type R = Result<Value, RunError>;

fn entries<'v>(v: &'v Value, name: &str) -> Result<&'v Entries, RunError> {
    match v {
        Value(Repr::Map(m)) => Ok(&m.entries),
        _ => Err(wrong_args(name)),
    }
}

fn new_map(cx: &Cx, m: Entries) -> R {
    cx.reserve(m.len().saturating_mul(2 * SLOT))?;
    Ok(Value(Repr::Map(MapObj::new(m))))
}

pub(super) fn empty(cx: &Cx, a: &[Value]) -> R {
    let [] = a else {
        return Err(wrong_args("map.empty"));
    };
    new_map(cx, Entries::new())
}

pub(super) fn from_list(cx: &Cx, a: &[Value]) -> R {
    let [pairs] = a else {
        return Err(wrong_args("map.from_list"));
    };
    let mut m = Entries::new();
    for p in items(pairs, "map.from_list")?.iter() {
        cx.tick(1)?;
        let [k, v] = p.parts() else {
            return Err(wrong_args("map.from_list"));
        };
        m.insert(Key(k.clone()), v.clone());
    }
    m.shrink_to_fit();
    new_map(cx, m)
}

pub(super) fn insert(cx: &Cx, a: &[Value]) -> R {
    let [m, k, v] = a else {
        return Err(wrong_args("map.insert"));
    };
    cx.tick(1)?;
    let m = entries(m, "map.insert")?.inserted(Key(k.clone()), v.clone());
    new_map(cx, m)
}

pub(super) fn get(cx: &Cx, a: &[Value]) -> R {
    let [m, k] = a else {
        return Err(wrong_args("map.get"));
    };
    cx.tick(1)?;
    Ok(cx.option(entries(m, "map.get")?.get(&Key(k.clone())).cloned()))
}

pub(super) fn remove(cx: &Cx, a: &[Value]) -> R {
    let [m, k] = a else {
        return Err(wrong_args("map.remove"));
    };
    cx.tick(1)?;
    let m = entries(m, "map.remove")?.removed(&Key(k.clone()));
    new_map(cx, m)
}

pub(super) fn contains(cx: &Cx, a: &[Value]) -> R {
    let [m, k] = a else {
        return Err(wrong_args("map.contains"));
    };
    cx.tick(1)?;
    Ok(Value::bool(
        entries(m, "map.contains")?.contains_key(&Key(k.clone())),
    ))
}

pub(super) fn keys(cx: &Cx, a: &[Value]) -> R {
    let [m] = a else {
        return Err(wrong_args("map.keys"));
    };
    let m = entries(m, "map.keys")?;
    reserve_list(cx, m.len())?;
    listed(cx, m.len(), m.keys().map(|k| k.0.clone()))
}

pub(super) fn values(cx: &Cx, a: &[Value]) -> R {
    let [m] = a else {
        return Err(wrong_args("map.values"));
    };
    let m = entries(m, "map.values")?;
    reserve_list(cx, m.len())?;
    listed(cx, m.len(), m.values().cloned())
}

pub(super) fn to_list(cx: &Cx, a: &[Value]) -> R {
    let [m] = a else {
        return Err(wrong_args("map.to_list"));
    };
    let m = entries(m, "map.to_list")?;
    reserve_list(cx, m.len() * 3)?;
    listed(
        cx,
        m.len(),
        m.iter()
            .map(|(k, v)| Value::tuple([k.0.clone(), v.clone()])),
    )
}

pub(super) fn size(_: &Cx, a: &[Value]) -> R {
    let [m] = a else {
        return Err(wrong_args("map.size"));
    };
    Ok(Value(Repr::Int(entries(m, "map.size")?.len() as i64)))
}

pub(super) fn is_empty(_: &Cx, a: &[Value]) -> R {
    let [m] = a else {
        return Err(wrong_args("map.is_empty"));
    };
    Ok(Value::bool(entries(m, "map.is_empty")?.is_empty()))
}

pub(super) fn merge(cx: &Cx, a: &[Value]) -> R {
    let [m, other] = a else {
        return Err(wrong_args("map.merge"));
    };
    let m = entries(m, "map.merge")?;
    let other = entries(other, "map.merge")?;
    // `other`'s value wins where both have a key; walk the smaller map.
    let merged = if other.len() >= m.len() {
        let mut out = other.clone();
        for (k, v) in m.iter() {
            cx.tick(1)?;
            if !out.contains_key(k) {
                out.insert(k.clone(), v.clone());
            }
        }
        out
    } else {
        let mut out = m.clone();
        for (k, v) in other.iter() {
            cx.tick(1)?;
            out.insert(k.clone(), v.clone());
        }
        out
    };
    new_map(cx, merged)
}

/// A list of `values`, one unit per element.
fn listed(cx: &Cx, n: usize, values: impl Iterator<Item = Value>) -> R {
    let mut out = Vec::with_capacity(n);
    for v in values {
        cx.tick(1)?;
        out.push(v);
    }
    Ok(Value::from_vec(out))
}
