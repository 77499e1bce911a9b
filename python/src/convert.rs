//! Python data and JSON, both ways: how a program's values, inputs and a
//! capability's arguments and results cross into and out of Python.
//!
//! The mapping is JSON's (`None`, `bool`, `int`, `float`, `str`, `list`,
//! `dict` with `str` keys; a `tuple` is taken as a list); the host then
//! converts JSON to a Writ value of the declared type (inputs, results)
//! and back (values, arguments), as `writ run --format json` does.
//!
//! Invariants: no input makes it panic; Python data nested deeper than
//! [`MAX_DEPTH`] containers is refused (a `ValueError`), not followed
//! down the stack; an `int` outside 64 bits is refused, as Writ's `Int`
//! cannot hold it; a float that is not finite goes as the strings the
//! mapping writes one as (`"NaN"`, `"Infinity"`, `"-Infinity"`), which a
//! `Float` reads back. A program's value comes out at any depth
//! ([`json_text_to_py`] reads its JSON text without recursion): the
//! run's memory and output limits bound it, not a nesting limit.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::Value as Json;

/// How many containers (lists, tuples, dicts) deep Python data may nest
/// to cross into Writ: `[[1]]` is 2 deep, a scalar 0.
pub(crate) const MAX_DEPTH: usize = 128;

/// Python data as JSON; `what` names it in errors (`input "request"`).
pub(crate) fn to_json(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Json> {
    to_json_at(obj, what, 0)
}

/// `obj` as JSON, inside `depth` containers.
fn to_json_at(obj: &Bound<'_, PyAny>, what: &str, depth: usize) -> PyResult<Json> {
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
    let container = obj.cast::<PyList>().is_ok()
        || obj.cast::<PyTuple>().is_ok()
        || obj.cast::<PyDict>().is_ok();
    if container && depth >= MAX_DEPTH {
        return Err(PyValueError::new_err(format!(
            "{what}: expected data nested at most {MAX_DEPTH} deep (lists, tuples and dicts), found deeper"
        )));
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

/// A program's value, JSON text as Writ writes it ([`writ_runtime::Json`]),
/// as Python data: read without recursion and without a nesting limit
/// (its size is bounded by the run's memory and output limits), so a value
/// of any depth arrives whole. A dict's keys are in sorted order, as
/// [`to_py`] gives them (a capability's arguments, a pause's). Text that
/// is not JSON (which Writ never writes) is a `RuntimeError`, never
/// `None`.
pub(crate) fn json_text_to_py<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let mut r = JsonReader {
        bytes: text.as_bytes(),
        text,
        at: 0,
    };
    /// A container being filled: a list, or a dict's members so far and
    /// the key of the member being read.
    enum Open<'py> {
        List(Bound<'py, PyList>),
        Dict(Vec<(String, Bound<'py, PyAny>)>, Option<String>),
    }
    let mut stack: Vec<Open<'py>> = Vec::new();
    loop {
        // A value starts here (or a container closes at once, empty).
        r.skip_space();
        let mut done: Option<Bound<'py, PyAny>> = match r.peek() {
            Some(b'[') => {
                r.at += 1;
                r.skip_space();
                if r.eat(b']') {
                    Some(PyList::empty(py).into_any())
                } else {
                    stack.push(Open::List(PyList::empty(py)));
                    continue;
                }
            }
            Some(b'{') => {
                r.at += 1;
                r.skip_space();
                if r.eat(b'}') {
                    Some(PyDict::new(py).into_any())
                } else {
                    let key = r.key()?;
                    stack.push(Open::Dict(Vec::new(), Some(key)));
                    continue;
                }
            }
            _ => Some(r.scalar(py)?),
        };
        // Put each finished value in its container, closing those that end.
        loop {
            let Some(value) = done.take() else { break };
            match stack.last_mut() {
                None => {
                    r.skip_space();
                    if r.at != r.bytes.len() {
                        return Err(r.bad("the end of the text"));
                    }
                    return Ok(value);
                }
                Some(Open::List(list)) => {
                    list.append(value)?;
                    r.skip_space();
                    if r.eat(b',') {
                        break;
                    }
                    if !r.eat(b']') {
                        return Err(r.bad("`,` or `]`"));
                    }
                }
                Some(Open::Dict(members, key)) => {
                    if let Some(k) = key.take() {
                        members.push((k, value));
                    }
                    r.skip_space();
                    if r.eat(b',') {
                        *key = Some(r.key()?);
                        break;
                    }
                    if !r.eat(b'}') {
                        return Err(r.bad("`,` or `}`"));
                    }
                }
            }
            done = match stack.pop() {
                Some(Open::List(list)) => Some(list.into_any()),
                Some(Open::Dict(mut members, _)) => {
                    // Sorted, stably: of a key given twice, the last wins.
                    members.sort_by(|a, b| a.0.cmp(&b.0));
                    let dict = PyDict::new(py);
                    for (k, v) in members {
                        dict.set_item(k, v)?;
                    }
                    Some(dict.into_any())
                }
                None => None,
            };
        }
    }
}

/// The reader of [`json_text_to_py`]: where it is in the text.
struct JsonReader<'t> {
    bytes: &'t [u8],
    text: &'t str,
    at: usize,
}

impl JsonReader<'_> {
    fn bad(&self, expected: &str) -> PyErr {
        pyo3::exceptions::PyRuntimeError::new_err(format!(
            "the run's value: expected {expected} at byte {} of its JSON, found other text",
            self.at
        ))
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            self.at += 1;
        }
    }

    /// A member's key and its `:`.
    fn key(&mut self) -> PyResult<String> {
        self.skip_space();
        let key = self.string()?;
        self.skip_space();
        if !self.eat(b':') {
            return Err(self.bad("`:`"));
        }
        Ok(key)
    }

    /// `null`, `true`, `false`, a number or a string.
    fn scalar<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let rest = self.text.get(self.at..).unwrap_or_default();
        for (word, value) in [
            ("null", py.None().into_bound(py)),
            ("true", PyBool::new(py, true).to_owned().into_any()),
            ("false", PyBool::new(py, false).to_owned().into_any()),
        ] {
            if rest.starts_with(word) {
                self.at += word.len();
                return Ok(value);
            }
        }
        match self.peek() {
            Some(b'"') => Ok(PyString::new(py, &self.string()?).into_any()),
            Some(b'-' | b'0'..=b'9') => self.number(py),
            _ => Err(self.bad("a value")),
        }
    }

    /// A number: an `int` when it is written without a fraction or an
    /// exponent (as Writ writes an `Int`), else a `float`.
    fn number<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let start = self.at;
        while matches!(
            self.peek(),
            Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
        ) {
            self.at += 1;
        }
        let n = self.text.get(start..self.at).unwrap_or_default();
        if !n.contains(['.', 'e', 'E']) {
            if let Ok(i) = n.parse::<i64>() {
                return Ok(i.into_pyobject(py)?.into_any());
            }
            if let Ok(u) = n.parse::<u64>() {
                return Ok(u.into_pyobject(py)?.into_any());
            }
        }
        match n.parse::<f64>() {
            Ok(x) => Ok(x.into_pyobject(py)?.into_any()),
            Err(_) => {
                self.at = start;
                Err(self.bad("a number"))
            }
        }
    }

    /// A string, its escapes read.
    fn string(&mut self) -> PyResult<String> {
        if !self.eat(b'"') {
            return Err(self.bad("a string"));
        }
        let mut out = String::new();
        loop {
            let start = self.at;
            while !matches!(self.peek(), None | Some(b'"' | b'\\')) {
                self.at += 1;
            }
            out.push_str(self.text.get(start..self.at).unwrap_or_default());
            match self.peek() {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.at += 1;
                    let escaped = self.peek();
                    self.at += 1;
                    match escaped {
                        Some(b'"') => out.push('"'),
                        Some(b'\\') => out.push('\\'),
                        Some(b'/') => out.push('/'),
                        Some(b'n') => out.push('\n'),
                        Some(b'r') => out.push('\r'),
                        Some(b't') => out.push('\t'),
                        Some(b'b') => out.push('\u{8}'),
                        Some(b'f') => out.push('\u{c}'),
                        Some(b'u') => {
                            let unit = self.hex4()?;
                            // A surrogate pair is one character; a lone
                            // surrogate, which no `str` of Rust's holds,
                            // is U+FFFD.
                            let pair = (0xD800..0xDC00).contains(&unit)
                                && self.text.get(self.at..).is_some_and(|r| {
                                    r.starts_with("\\u")
                                        && r.get(2..6)
                                            .and_then(|h| u32::from_str_radix(h, 16).ok())
                                            .is_some_and(|low| (0xDC00..0xE000).contains(&low))
                                });
                            let c = if pair {
                                self.at += 2;
                                let low = self.hex4()?;
                                char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                            } else {
                                char::from_u32(unit)
                            };
                            out.push(c.unwrap_or('\u{FFFD}'));
                        }
                        _ => {
                            self.at -= 1;
                            return Err(self.bad("an escape"));
                        }
                    }
                }
                _ => return Err(self.bad("the string's closing `\"`")),
            }
        }
    }

    fn hex4(&mut self) -> PyResult<u32> {
        let digits = self.text.get(self.at..self.at + 4).unwrap_or_default();
        match u32::from_str_radix(digits, 16) {
            Ok(u) if digits.len() == 4 => {
                self.at += 4;
                Ok(u)
            }
            _ => Err(self.bad("four hex digits")),
        }
    }
}
