//! Reading a value's structure from outside the runtime: [`Value::view`]
//! shows one level of it as a [`View`], whose parts are borrowed
//! [`Value`]s (never copies).
//!
//! A view is the language's data model (a tuple's parts, a record's
//! fields by name, a constructor and its fields, a list's elements, a
//! map's entries), not the machine's representation: lists, records and
//! maps are read through handles ([`ListRef`], [`RecordRef`],
//! [`MapRef`], [`VariantRef`]) that hide how they are stored, and
//! [`View`] is `#[non_exhaustive]`, so a new kind of value is not a
//! breaking change.
//!
//! Invariant: nothing here recurses: a view shows one level, so walking a
//! value of any depth is the caller's loop over a work list (the host's
//! argument measure is one), and costs no host stack.

use crate::code::Module;

use super::{ListObj, MapObj, RecordObj, Repr, Value};

/// One level of a value's structure (see [`Value::view`]).
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum View<'a> {
    /// `()`
    Unit,
    /// A `Bool`.
    Bool(bool),
    /// An `Int`.
    Int(i64),
    /// A `Float`.
    Float(f64),
    /// A `Str`'s text.
    Str(&'a str),
    /// A tuple's parts, in order.
    Tuple(&'a [Value]),
    /// A record.
    Record(RecordRef<'a>),
    /// A constructor applied to its fields (`Some(1)`), or a constructor
    /// without fields (`None`).
    Variant(VariantRef<'a>),
    /// A `List`.
    List(ListRef<'a>),
    /// A `Map`.
    Map(MapRef<'a>),
    /// A function, a closure or a resumption: nothing a host can look
    /// into.
    Function,
}

impl Value {
    /// One level of the value's structure, with its parts borrowed.
    pub fn view(&self) -> View<'_> {
        match &self.0 {
            Repr::Unit => View::Unit,
            Repr::Bool(b) => View::Bool(b.get()),
            Repr::Int(n) => View::Int(*n),
            Repr::Float(x) => View::Float(x.get()),
            Repr::Str(s) => View::Str(&s.text),
            Repr::Tuple(t) => View::Tuple(&t.items),
            Repr::Record(r) => View::Record(RecordRef(r)),
            Repr::Tag(c) => View::Variant(VariantRef {
                ctor: c.get(),
                fields: &[],
            }),
            Repr::Variant(v) => View::Variant(VariantRef {
                ctor: v.ctor,
                fields: &v.fields,
            }),
            Repr::List(l) => View::List(ListRef(l)),
            Repr::Map(m) => View::Map(MapRef(m)),
            Repr::Func(_) | Repr::Native(_) | Repr::Closure(_) | Repr::Resume(_) => View::Function,
        }
    }

    /// What kind of value this is, as a message names it: `()`, `a Bool`,
    /// `an Int`, `a Float`, `a Str`, `a tuple`, `a record`, `a
    /// constructed value`, `a List`, `a Map`, `a function`.
    pub fn describe(&self) -> &'static str {
        match self.view() {
            View::Unit => "()",
            View::Bool(_) => "a Bool",
            View::Int(_) => "an Int",
            View::Float(_) => "a Float",
            View::Str(_) => "a Str",
            View::Tuple(_) => "a tuple",
            View::Record(_) => "a record",
            View::Variant(_) => "a constructed value",
            View::List(_) => "a List",
            View::Map(_) => "a Map",
            View::Function => "a function",
        }
    }
}

/// A record's fields, in the order of their names.
#[derive(Clone, Copy, Debug)]
pub struct RecordRef<'a>(&'a RecordObj);

impl<'a> RecordRef<'a> {
    /// The number of fields.
    pub fn len(&self) -> usize {
        self.0.values.len()
    }

    /// Whether it has no fields (`{}`).
    pub fn is_empty(&self) -> bool {
        self.0.values.is_empty()
    }

    /// The fields' values, in the order of their names.
    pub fn values(&self) -> &'a [Value] {
        &self.0.values
    }

    /// The fields, by name, in the order of their names; `module` is the
    /// one the value was made with (a name it does not know reads `?`).
    pub fn fields<'m>(
        &self,
        module: &'m Module,
    ) -> impl ExactSizeIterator<Item = (&'m str, &'a Value)> + use<'a, 'm> {
        let values: &'a [Value] = &self.0.values;
        self.0.shape.iter().zip(values).map(move |(sym, v)| {
            let name = module
                .symbols
                .get(*sym as usize)
                .map_or("?", String::as_str);
            (name, v)
        })
    }

    /// The field named `name`, if the record has it.
    pub fn get(&self, module: &Module, name: &str) -> Option<&'a Value> {
        let sym = module.symbol(name)?;
        let i = self.0.shape.iter().position(|s| *s == sym)?;
        self.0.values.get(i)
    }
}

/// A constructor and its fields.
#[derive(Clone, Copy, Debug)]
pub struct VariantRef<'a> {
    ctor: u32,
    fields: &'a [Value],
}

impl<'a> VariantRef<'a> {
    /// The constructor's name (`Some`), as `module` (the one the value was
    /// made with) declares it.
    pub fn name<'m>(&self, module: &'m Module) -> Option<&'m str> {
        module
            .ctors
            .get(self.ctor as usize)
            .map(|c| c.name.as_str())
    }

    /// The constructor's index in the module that made the value.
    pub(crate) fn ctor(&self) -> u32 {
        self.ctor
    }

    /// Its fields, in order (none for `None`).
    pub fn fields(&self) -> &'a [Value] {
        self.fields
    }
}

/// A list's elements.
#[derive(Clone, Copy, Debug)]
pub struct ListRef<'a>(&'a ListObj);

impl<'a> ListRef<'a> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The element at index `i` (from 0).
    pub fn get(&self, i: usize) -> Option<&'a Value> {
        self.0.get(i)
    }

    /// The elements, in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &'a Value> + ExactSizeIterator + use<'a> {
        self.0.iter()
    }
}

/// A map's entries, in the order of their keys.
#[derive(Clone, Copy, Debug)]
pub struct MapRef<'a>(&'a MapObj);

impl<'a> MapRef<'a> {
    /// The number of entries.
    pub fn len(&self) -> usize {
        self.0.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.entries.is_empty()
    }

    /// The entries (key, value), in the order of their keys.
    pub fn iter(
        &self,
    ) -> impl DoubleEndedIterator<Item = (&'a Value, &'a Value)> + ExactSizeIterator + use<'a> {
        self.0.entries.iter().map(|(k, v)| (&k.0, v))
    }
}
