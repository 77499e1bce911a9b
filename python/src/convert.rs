//! Python data and JSON, both ways: how a program's values, inputs and a
//! capability's arguments and results cross into and out of Python.
//!
//! The mapping is JSON's (`None`, `bool`, `int`, `float`, `str`, `list`,
//! `dict` with `str` keys; a `tuple` is taken as a list); the host then
//! converts JSON to a Writ value of the declared type (inputs, results)
//! and back (values, arguments), as `writ run --format json` does.
//!
//! Invariants: no input makes it panic; nesting deeper than
//! [`MAX_DEPTH`] is refused (a `ValueError`), not followed down the
//! stack; an `int` outside 64 bits is refused, as Writ's `Int` cannot
//! hold it; a float that is not finite goes as the strings the mapping
//! writes one as (`"NaN"`, `"Infinity"`, `"-Infinity"`), which a `Float`
//! reads back.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::Value as Json;

/// How deep Python data may nest to cross into Writ (serde_json refuses
/// JSON text deeper than 128 as well).
pub(crate) const MAX_DEPTH: usize = 128;

/// Python data as JSON; `what` names it in errors (`input "request"`).
pub(crate) fn to_json(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Json> {
    to_json_at(obj, what, 0)
}

fn to_json_at(obj: &Bound<'_, PyAny>, what: &str, depth: usize) -> PyResult<Json> {
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err(format!(
            "{what}: expected data nested at most {MAX_DEPTH} deep, found deeper"
        )));
    }
    if obj.is_none() {
        return Ok(Json::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Json::Bool(b.is_true()));
    }
    if let Ok(i) = obj.cast::<PyInt>() {
        // Past 64 bits signed but within 64 unsigned, the number goes on
        // and Writ refuses it with the input's or result's name.
        if let Ok(n) = i.extract::<u64>() {
            return Ok(Json::from(n));
        }
        return match i.extract::<i64>() {
            Ok(n) => Ok(Json::from(n)),
            Err(_) => Err(PyValueError::new_err(format!(
                "{what}: expected an int of at most 64 bits (Writ's Int), found {}",
                short_repr(obj)
            ))),
        };
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        // A float that is not finite goes as the mapping writes one.
        let x = f.value();
        return Ok(match serde_json::Number::from_f64(x) {
            Some(n) => Json::Number(n),
            None if x.is_nan() => Json::String("NaN".into()),
            None if x > 0.0 => Json::String("Infinity".into()),
            None => Json::String("-Infinity".into()),
        });
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Json::String(s.to_cow()?.into_owned()));
    }
    let items = |it: &mut dyn Iterator<Item = Bound<'_, PyAny>>| {
        it.map(|x| to_json_at(&x, what, depth + 1))
            .collect::<PyResult<Vec<_>>>()
            .map(Json::Array)
    };
    if let Ok(l) = obj.cast::<PyList>() {
        return items(&mut l.iter());
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return items(&mut t.iter());
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = serde_json::Map::new();
        for (k, v) in d.iter() {
            let Ok(key) = k.cast::<PyString>() else {
                return Err(PyTypeError::new_err(format!(
                    "{what}: expected a dict with str keys, found a key {}",
                    short_repr(&k)
                )));
            };
            map.insert(key.to_cow()?.into_owned(), to_json_at(&v, what, depth + 1)?);
        }
        return Ok(Json::Object(map));
    }
    Err(PyTypeError::new_err(format!(
        "{what}: expected JSON-like data (None, bool, int, float, str, list, tuple, dict), found {} {}",
        obj.get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_else(|_| "?".into()),
        short_repr(obj)
    )))
}

/// A short `repr` for messages (at most 60 characters).
pub(crate) fn short_repr(obj: &Bound<'_, PyAny>) -> String {
    let r = obj
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "<unprintable>".to_string());
    if r.chars().count() > 60 {
        let cut: String = r.chars().take(57).collect();
        format!("{cut}...")
    } else {
        r
    }
}

/// JSON as Python data. Iterative, so that nesting of any depth (a
/// program's value may nest deeper than Python's recursion limit) does not
/// grow the host stack.
pub(crate) fn to_py<'py>(py: Python<'py>, json: &Json) -> PyResult<Bound<'py, PyAny>> {
    /// A container being filled, with what is left of its JSON.
    enum Open<'j, 'py> {
        List(std::slice::Iter<'j, Json>, Bound<'py, PyList>),
        Dict(serde_json::map::Iter<'j>, Bound<'py, PyDict>, String),
    }
    let mut stack: Vec<Open<'_, 'py>> = Vec::new();
    let mut next = Some(json);
    let mut done: Option<Bound<'py, PyAny>> = None;
    loop {
        if let Some(j) = next.take() {
            match j {
                Json::Array(a) => stack.push(Open::List(a.iter(), PyList::empty(py))),
                Json::Object(m) => stack.push(Open::Dict(m.iter(), PyDict::new(py), String::new())),
                other => done = Some(scalar(py, other)?),
            }
        }
        if let Some(v) = done.take() {
            match stack.last_mut() {
                None => return Ok(v),
                Some(Open::List(_, l)) => l.append(v)?,
                Some(Open::Dict(_, d, key)) => d.set_item(std::mem::take(key), v)?,
            }
        }
        let finished = match stack.last_mut() {
            None => return Ok(py.None().into_bound(py)),
            Some(Open::List(it, _)) => match it.next() {
                Some(j) => {
                    next = Some(j);
                    false
                }
                None => true,
            },
            Some(Open::Dict(it, _, key)) => match it.next() {
                Some((k, j)) => {
                    key.clone_from(k);
                    next = Some(j);
                    false
                }
                None => true,
            },
        };
        if finished {
            done = match stack.pop() {
                Some(Open::List(_, l)) => Some(l.into_any()),
                Some(Open::Dict(_, d, _)) => Some(d.into_any()),
                None => None,
            };
        }
    }
}

fn scalar<'py>(py: Python<'py>, json: &Json) -> PyResult<Bound<'py, PyAny>> {
    Ok(match json {
        Json::Null => py.None().into_bound(py),
        Json::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Json::Number(n) => match n.as_i64() {
            Some(i) => i.into_pyobject(py)?.into_any(),
            None => match n.as_u64() {
                Some(u) => u.into_pyobject(py)?.into_any(),
                None => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
            },
        },
        Json::String(s) => PyString::new(py, s).into_any(),
        Json::Array(_) | Json::Object(_) => PyList::empty(py).into_any(),
    })
}
