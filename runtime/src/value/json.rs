//! A run's final value as data: the mapping from a [`Value`] to JSON text
//! ([`Value::to_json`]), read from the value and the module it was made
//! with (constructor and field names), with no type needed.
//!
//! | value | JSON |
//! | --- | --- |
//! | `()` | `null` |
//! | `Bool`, `Int`, `Str` | `true`/`false`, a number, a string |
//! | a finite `Float` | a number, always with a `.` or an exponent (`1.0`) |
//! | `NaN`, `inf`, `-inf` | the strings `"NaN"`, `"Infinity"`, `"-Infinity"` |
//! | a tuple, a `List` | an array |
//! | a record | an object, its fields by name |
//! | a `Map` whose keys are `Str` | an object (an empty map is `{}`) |
//! | any other `Map` | an array of `[key, value]` pairs, in key order |
//! | `None` | `null` |
//! | `Some(v)` | `v`, or `{"some": v}` when `v` is itself `None` or `Some(..)` |
//! | `Ok(v)`, `Err(e)` | `{"ok": v}`, `{"err": e}` |
//! | any other constructor | `{"tag": "Name", "fields": [..]}` |
//! | a function, closure or resumption | the string `"<fn>"` |
//!
//! The mapping is decodable given the value's type (decision 010): a
//! reader that knows it reads an `Option[Option[Int]]` tells `null`
//! (`None`), `{"some": null}` (`Some(None)`) and `{"some": 1}`
//! (`Some(Some(1))`) apart, and a `Float` field holding a string holds a
//! non-finite float. `Int`s are written exactly; a JSON reader that reads
//! numbers as doubles loses precision past 2^53.
//!
//! Invariants:
//! - **No recursion.** The writer keeps its own stack of open containers,
//!   so a value a million deep is written without using the host stack.
//! - **Bounded.** The text is at most the `max` bytes the caller gives,
//!   and every step of the writer writes at least one byte, so the work,
//!   the text and the writer's stack are all bounded by `max`; a value
//!   whose text would be longer is refused with the output limit's code
//!   (`E5004`), never cut.

use std::fmt::Write as _;

use crate::code::Module;
use crate::error::RunError;
use crate::limits::Limit;

use super::{Value, View};

/// A value's JSON text (see the [module documentation](self) for the
/// mapping). It is text rather than a tree so that a value of any depth
/// is held, cloned and dropped without recursion; parse it with any JSON
/// reader (one with a nesting limit refuses a deep value rather than
/// crashing).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Json(String);

impl Json {
    /// The JSON text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The JSON text, owned.
    pub fn into_string(self) -> String {
        self.0
    }
}

impl std::fmt::Display for Json {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The text a function, closure or resumption is written as.
pub const FUNCTION_MARKER: &str = "<fn>";

impl Value {
    /// The value as JSON text, at most `max` bytes long; `module` is the
    /// one the value was made with (it names constructors and fields).
    /// `Err` with the output limit's code (`E5004`) when the text would be
    /// longer than `max`.
    ///
    /// ```
    /// use writ_runtime::{IntoValue, Value};
    /// let module = writ_runtime::Module::default();
    /// let v = Value::tuple([vec![1i64, 2].into_value(), Value::str("a\"b"), Value::unit()]);
    /// assert_eq!(v.to_json(&module, 100).unwrap().as_str(), r#"[[1,2],"a\"b",null]"#);
    /// assert_eq!(v.to_json(&module, 5).unwrap_err().code.as_str(), "E5004");
    /// ```
    pub fn to_json(&self, module: &Module, max: usize) -> Result<Json, RunError> {
        let mut w = Writer {
            out: String::new(),
            module,
            max,
            stack: Vec::new(),
            boxed: 0,
        };
        w.value(self)?;
        while let Some(top) = w.stack.last_mut() {
            match top.items.next() {
                None => {
                    let close = top.close;
                    if let Some(done) = w.stack.pop() {
                        w.boxed = w.boxed.saturating_sub(crate::display::boxed_bytes(
                            std::mem::size_of_val(&*done.items),
                        ));
                    }
                    w.text(close)?;
                }
                Some(item) => {
                    if top.first {
                        top.first = false;
                    } else {
                        w.text(",")?;
                    }
                    match item {
                        Item::Value(v) => w.value(v)?,
                        Item::Keyed(k, v) => {
                            w.string(k)?;
                            w.text(":")?;
                            w.value(v)?;
                        }
                        Item::Pair(k, v) => {
                            w.text("[")?;
                            w.open(Box::new([Item::Value(k), Item::Value(v)].into_iter()), "]")?;
                        }
                    }
                }
            }
        }
        Ok(Json(w.out))
    }
}

/// One part of a container still to be written.
enum Item<'a> {
    /// An element.
    Value(&'a Value),
    /// An object's member.
    Keyed(&'a str, &'a Value),
    /// A `[key, value]` pair of a map whose keys are not strings.
    Pair(&'a Value, &'a Value),
}

/// An open container: its parts still to be written, and its closing text.
struct Open<'a> {
    items: Box<dyn Iterator<Item = Item<'a>> + 'a>,
    first: bool,
    close: &'static str,
}

struct Writer<'a> {
    out: String,
    module: &'a Module,
    max: usize,
    /// The containers open, innermost last.
    stack: Vec<Open<'a>>,
    /// The bytes of the iterators `stack` owns.
    boxed: usize,
}

impl<'a> Writer<'a> {
    fn too_long(&self) -> RunError {
        RunError::limit(
            Limit::Output,
            self.max as u64,
            format!(
                "expected the result's JSON to take at most {} bytes, but it needed more",
                self.max
            ),
        )
        .with_help("the result is refused whole, never cut: return less")
    }

    fn fits(&self, more: usize) -> Result<(), RunError> {
        if self.out.len().saturating_add(more) > self.max {
            Err(self.too_long())
        } else {
            Ok(())
        }
    }

    fn text(&mut self, s: &str) -> Result<(), RunError> {
        self.fits(s.len())?;
        self.out.push_str(s);
        Ok(())
    }

    /// A JSON string: at least as long as `s` plus its quotes, so the
    /// bound is checked before anything is escaped.
    fn string(&mut self, s: &str) -> Result<(), RunError> {
        self.fits(s.len().saturating_add(2))?;
        self.out.push('"');
        for c in s.chars() {
            match c {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                '\n' => self.out.push_str("\\n"),
                '\r' => self.out.push_str("\\r"),
                '\t' => self.out.push_str("\\t"),
                c if (c as u32) < 0x20 => {
                    let _ = write!(self.out, "\\u{:04x}", c as u32);
                }
                c => self.out.push(c),
            }
            if self.out.len() > self.max {
                return Err(self.too_long());
            }
        }
        self.text("\"")
    }

    /// Open a container (its opening text is written): refused, as too
    /// deep, once the containers open would hold more room than a host's
    /// display may ([`crate::display::host_room`]).
    fn open(
        &mut self,
        items: Box<dyn Iterator<Item = Item<'a>> + 'a>,
        close: &'static str,
    ) -> Result<(), RunError> {
        self.boxed = self
            .boxed
            .saturating_add(crate::display::boxed_bytes(std::mem::size_of_val(&*items)));
        self.stack.push(Open {
            items,
            first: true,
            close,
        });
        let room = self
            .stack
            .capacity()
            .saturating_mul(std::mem::size_of::<Open<'a>>())
            .saturating_add(self.boxed);
        if room > crate::display::host_room(self.max) {
            return Err(RunError::limit(
                Limit::Output,
                self.max as u64,
                format!(
                    "expected the result to be nested shallowly enough to write as JSON in {} bytes of output, but it is nested deeper",
                    self.max
                ),
            )
            .with_help("the result is refused whole, never cut: return less"));
        }
        Ok(())
    }

    /// Write a value: a scalar whole, a container's opening text (its
    /// parts are pushed, to be written by the caller's loop).
    fn value(&mut self, v: &'a Value) -> Result<(), RunError> {
        let module = self.module;
        let mut v = v;
        loop {
            return match v.view() {
                View::Unit => self.text("null"),
                View::Bool(b) => self.text(if b { "true" } else { "false" }),
                View::Int(n) => self.text(&n.to_string()),
                View::Float(x) if x.is_nan() => self.text("\"NaN\""),
                View::Float(x) if x.is_infinite() && x > 0.0 => self.text("\"Infinity\""),
                View::Float(x) if x.is_infinite() => self.text("\"-Infinity\""),
                // `{:?}` writes a finite float with a `.` or an exponent,
                // both valid JSON (`1.0`, `1e300`, `-2.5e-8`).
                View::Float(x) => self.text(&format!("{x:?}")),
                View::Str(s) => self.string(s),
                View::Function => self.string(FUNCTION_MARKER),
                View::Tuple(items) => {
                    self.text("[")?;
                    self.open(Box::new(items.iter().map(Item::Value)), "]")?;
                    Ok(())
                }
                View::List(l) => {
                    self.text("[")?;
                    self.open(Box::new(l.iter().map(Item::Value)), "]")?;
                    Ok(())
                }
                View::Record(r) => {
                    self.text("{")?;
                    self.open(
                        Box::new(r.fields(module).map(|(k, v)| Item::Keyed(k, v))),
                        "}",
                    )?;
                    Ok(())
                }
                View::Map(m) => {
                    let keyed = match m.iter().next() {
                        None => true,
                        Some((k, _)) => matches!(k.view(), View::Str(_)),
                    };
                    if keyed {
                        self.text("{")?;
                        self.open(
                            Box::new(m.iter().map(|(k, v)| match k.view() {
                                View::Str(s) => Item::Keyed(s, v),
                                // Keys of one map have one type: not
                                // reached, written as a pair if it is.
                                _ => Item::Pair(k, v),
                            })),
                            "}",
                        )?;
                    } else {
                        self.text("[")?;
                        self.open(Box::new(m.iter().map(|(k, v)| Item::Pair(k, v))), "]")?;
                    }
                    Ok(())
                }
                View::Variant(c) => {
                    let prelude = &module.prelude;
                    match (c.ctor(), c.fields()) {
                        (n, []) if n == prelude.none => self.text("null"),
                        (n, [inner]) if n == prelude.some && is_option(inner, module) => {
                            self.text("{")?;
                            self.open(Box::new(std::iter::once(Item::Keyed("some", inner))), "}")?;
                            Ok(())
                        }
                        (n, [inner]) if n == prelude.some => {
                            v = inner;
                            continue;
                        }
                        (n, [inner]) if n == prelude.ok || n == prelude.err => {
                            let key = if n == prelude.ok { "ok" } else { "err" };
                            self.text("{")?;
                            self.open(Box::new(std::iter::once(Item::Keyed(key, inner))), "}")?;
                            Ok(())
                        }
                        (_, fields) => {
                            self.text("{\"tag\":")?;
                            self.string(c.name(module).unwrap_or("?"))?;
                            self.text(",\"fields\":[")?;
                            self.open(Box::new(fields.iter().map(Item::Value)), "]}")?;
                            Ok(())
                        }
                    }
                }
            };
        }
    }
}

/// Whether `v` is the prelude's `Option` (`None` or `Some(..)`).
fn is_option(v: &Value, module: &Module) -> bool {
    match v.view() {
        View::Variant(c) => c.ctor() == module.prelude.none || c.ctor() == module.prelude.some,
        _ => false,
    }
}
