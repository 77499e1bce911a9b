//! Run-time values: what the machine computes with, and what a host
//! reads and makes.
//!
//! A [`Value`] is 16 bytes: scalars inline, everything else behind a
//! reference-counted pointer (Writ has no mutation, so sharing is safe and
//! copying a value is an increment). A list is a contiguous array changed
//! in place while one reference holds it (`acc ++ [x]` pushes) and copied
//! when shared ([`ListObj`]); a map is a sorted array while small and a
//! persistent tree (imbl) when large ([`Entries`]).
//!
//! Invariants:
//! - **Outside the runtime a value is opaque.** [`Value`] is a
//!   transparent wrapper of the crate-private [`Repr`], the machine's
//!   representation, which the machine, the natives and the displays
//!   match on directly. Everyone else makes values with the constructors
//!   ([`Value::int`], [`Value::list`], [`Value::record`], ...), reads them
//!   with the accessors ([`Value::as_int`], [`Value::as_str`], ...) and
//!   walks their structure with [`Value::view`] ([`view`]), or converts
//!   them with [`FromValue`] and [`IntoValue`] ([`convert`]). The
//!   representation can change without changing that surface
//!   (`docs/decisions/008-opaque-values.md`).
//! - **Memory is accounted.** Every heap object records the bytes it was
//!   charged when made and gives them back when dropped, on a per-thread
//!   counter ([`live_bytes`]); the machine compares that counter with the
//!   memory limit. Shared structure is charged once per value that holds
//!   it (a map's charge is its size even where it shares nodes with
//!   another map), which over-counts, never under. A list is charged for
//!   every slot of its array's capacity, spare slots included; a view of
//!   a list for its header only (the list it shows is charged by itself).
//! - **Nothing here recurses on a value's depth.** Dropping, comparing and
//!   displaying a value nested a million deep use explicit work lists, so
//!   no program-built value can overflow the host stack.

mod convert;
pub mod json;
mod list;
mod map;
mod recycle;
mod view;

use std::cell::{Cell, RefCell};
use std::cmp::Ordering;
use std::rc::Rc;

use crate::code::Module;
use crate::machine::Resumption;

pub use convert::{FromValue, FromValueError, IntoValue};
pub(crate) use list::ListObj;
pub(crate) use map::Entries;
pub(crate) use recycle::Recycled;
pub use view::{ListRef, MapRef, RecordRef, VariantRef, View};

/// A value of a Writ program: what a run returns, what a [`Host`]
/// receives as an operation's arguments and gives back as its result, and
/// what a session keeps in its globals.
///
/// Opaque: make one with a constructor ([`Value::unit`], [`Value::int`],
/// [`Value::str`], [`Value::list`], [`Value::record`], ...) or
/// [`IntoValue`]; read it with an accessor ([`Value::as_int`],
/// [`Value::as_str`], ...), [`FromValue`], or [`Value::view`], which
/// shows its structure one level at a time (so a walk of a deep value is
/// a loop with a work list, never a recursion). Cloning one is cheap: the
/// parts of a structured value are shared, never copied.
///
/// Values are not `Send`: they belong to the thread of the run that made
/// them (their memory is counted per thread).
///
/// [`Host`]: crate::Host
#[derive(Debug)]
#[repr(transparent)]
pub struct Value(pub(crate) Repr);

/// Written out rather than derived: a derived clone is a jump over every
/// variant whose arms meet through memory, and the machine's loop reads
/// the copy back in a way the processor cannot forward (a stall on every
/// `Local`). Here a clone counts the one reference the value may own and
/// copies its two words, which stay in registers.
impl Clone for Value {
    #[inline(always)]
    fn clone(&self) -> Value {
        match &self.0 {
            Repr::Str(s) => std::mem::forget(Rc::clone(s)),
            Repr::Tuple(t) => std::mem::forget(Rc::clone(t)),
            Repr::Record(r) => std::mem::forget(Rc::clone(r)),
            Repr::Variant(v) => std::mem::forget(Rc::clone(v)),
            Repr::List(l) => std::mem::forget(Rc::clone(l)),
            Repr::Map(m) => std::mem::forget(Rc::clone(m)),
            Repr::Closure(c) => std::mem::forget(Rc::clone(c)),
            Repr::Resume(r) => std::mem::forget(Rc::clone(r)),
            plain!() => {}
        }
        // SAFETY: the only thing a value owns is the one reference counted
        // just above (plain variants own nothing), so the bitwise copy owns
        // a count of its own and the two are dropped independently, as two
        // `Rc::clone`s would be.
        unsafe { std::ptr::read(self) }
    }
}

/// The variants of [`Repr`] that own nothing (no counted reference), as a
/// pattern: one list for the places that must agree on it (`clone`
/// counts a reference for every other variant, `is_heap`, the
/// snapshot's walk of what values refer to). Keep `clone`'s match
/// exhaustive: a new variant must be placed on one side or the other.
macro_rules! plain {
    () => {
        $crate::value::Repr::Unit
            | $crate::value::Repr::Bool(_)
            | $crate::value::Repr::Int(_)
            | $crate::value::Repr::Float(_)
            | $crate::value::Repr::Tag(_)
            | $crate::value::Repr::Func(_)
            | $crate::value::Repr::Native(_)
    };
}
pub(crate) use plain;

/// The machine's representation of a value (see [`Value`]).
///
/// The tag is a full word (`repr(u64)`), so a value is two clean words:
/// copying one never reads a half-written word, which keeps the machine's
/// pushes and pops free of store-forwarding stalls.
#[derive(Debug)]
#[repr(u64)]
pub(crate) enum Repr {
    /// `()`
    Unit,
    /// `true`, `false`
    Bool(Word<bool>),
    /// A 64-bit integer.
    Int(i64),
    /// A 64-bit float.
    Float(Word<f64>),
    /// A string.
    Str(Rc<StrObj>),
    /// A tuple (two or more parts).
    Tuple(Rc<Parts>),
    /// A record: fields sorted by name.
    Record(Rc<RecordObj>),
    /// A constructor without fields (`None`, `Null`).
    Tag(Word<u32>),
    /// A constructor with fields (`Some(1)`).
    Variant(Rc<VariantObj>),
    /// A list (a contiguous array, or a view of one's tail).
    List(Rc<ListObj>),
    /// A persistent ordered map.
    Map(Rc<MapObj>),
    /// A function that captures nothing (a top-level or library function).
    Func(Word<u32>),
    /// A function implemented by the host language (the native part of the
    /// standard library).
    Native(Word<u32>),
    /// A function with captured values.
    Closure(Rc<ClosureObj>),
    /// The rest of a handled computation, callable like a function.
    Resume(Rc<Resumption>),
}

/// A scalar of a [`Repr`] held in a full machine word: a `bool`, an
/// `f64` (its bits) or a `u32` id.
///
/// Every payload of [`Repr`] is a 64-bit integer or a pointer, which
/// makes a value a *pair of scalars* to the compiler: it is moved and
/// returned in two registers and written as two words. With a `bool`, an
/// `f64` or a `u32` among the payloads it would be a 16-byte aggregate,
/// copied through memory and read back as one 16-byte load from two
/// 8-byte stores, which the processor cannot forward (a stall of a dozen
/// cycles on every push of a fresh value). See
/// `docs/decisions/020-values-in-two-registers.md`.
#[repr(transparent)]
pub(crate) struct Word<T>(u64, std::marker::PhantomData<T>);

impl<T> Clone for Word<T> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Word<T> {}

impl Word<bool> {
    /// The word of a `bool`.
    #[inline(always)]
    pub(crate) const fn new(b: bool) -> Self {
        Word(b as u64, std::marker::PhantomData)
    }

    /// The `bool` it holds.
    #[inline(always)]
    pub(crate) const fn get(self) -> bool {
        self.0 != 0
    }
}

impl Word<f64> {
    /// The word of an `f64`: its bits.
    #[inline(always)]
    pub(crate) const fn new(x: f64) -> Self {
        Word(x.to_bits(), std::marker::PhantomData)
    }

    /// The `f64` it holds.
    #[inline(always)]
    pub(crate) const fn get(self) -> f64 {
        f64::from_bits(self.0)
    }
}

impl Word<u32> {
    /// The word of a `u32`.
    #[inline(always)]
    pub(crate) const fn new(n: u32) -> Self {
        Word(n as u64, std::marker::PhantomData)
    }

    /// The `u32` it holds (only ever made from one, so nothing is cut).
    #[inline(always)]
    pub(crate) const fn get(self) -> u32 {
        self.0 as u32
    }
}

impl From<bool> for Word<bool> {
    #[inline(always)]
    fn from(b: bool) -> Self {
        Word::<bool>::new(b)
    }
}

impl From<f64> for Word<f64> {
    #[inline(always)]
    fn from(x: f64) -> Self {
        Word::<f64>::new(x)
    }
}

impl From<u32> for Word<u32> {
    #[inline(always)]
    fn from(n: u32) -> Self {
        Word::<u32>::new(n)
    }
}

impl std::fmt::Debug for Word<bool> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

impl std::fmt::Debug for Word<f64> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

impl std::fmt::Debug for Word<u32> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

/// The machine's stack and every structure hold values by the slot; the
/// wrapper must cost nothing.
const _: () = assert!(std::mem::size_of::<Value>() == 16);

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PENDING: RefCell<Vec<Value>> = const { RefCell::new(Vec::new()) };
    static DRAINING: Cell<bool> = const { Cell::new(false) };
}

/// Bytes of values alive on this thread (as charged when they were made).
pub(crate) fn live_bytes() -> usize {
    LIVE.with(Cell::get)
}

/// Charge `bytes` for a new heap object.
pub(crate) fn charge(bytes: usize) {
    LIVE.with(|l| l.set(l.get().saturating_add(bytes)));
}

/// Give back what a dropped object was charged.
pub(crate) fn credit(bytes: usize) {
    LIVE.with(|l| l.set(l.get().saturating_sub(bytes)));
}

/// The size of one value slot, used for charging containers.
pub(crate) const SLOT: usize = std::mem::size_of::<Value>();
/// What a heap object costs besides its contents (count, header).
pub(crate) const HEADER: usize = 32;

/// Up to two values held inline, more in a vector: the parts of a tuple,
/// a constructor's fields, a closure's captures. Most hold one or two
/// (a pair, `Some(x)`, a closure over one variable), which then take one
/// allocation, the object's own, instead of two.
pub(crate) type Small = smallvec::SmallVec<[Value; 2]>;

/// An object's values, dropped through the work list.
pub(crate) trait Children {
    /// Drop the values without recursing (see [`defer_drop`]).
    fn defer(&mut self);
}

impl Children for Vec<Value> {
    #[inline]
    fn defer(&mut self) {
        defer_drop(self);
    }
}

impl Children for Small {
    /// The test for values that own nothing is inline in each object's
    /// drop (a tuple, constructor or closure whose parts were moved out
    /// or are plain, the commonest); the work list is out of line.
    #[inline]
    fn defer(&mut self) {
        if self.iter().all(|v| !v.is_heap()) {
            // SAFETY: every value owns nothing (tested just above), so
            // leaving them undropped leaks nothing; the drop glue that
            // would otherwise run for each is skipped.
            unsafe { self.set_len(0) };
            return;
        }
        defer_small(self);
    }
}

/// The parts of a `Small` that own something: see [`count_down`].
#[inline(never)]
fn defer_small(children: &mut Small) {
    count_down(children.drain(..));
}

/// Drop the children of a dropped object without recursing: they join a
/// per-thread work list that the outermost drop empties. Children that
/// own nothing (all plain) are let go without the drop glue, tested
/// inline; the rest out of line.
#[inline]
pub(crate) fn defer_drop(children: &mut Vec<Value>) {
    if children.iter().all(|v| !v.is_heap()) {
        // SAFETY: as for `Small` above: nothing is owned, nothing leaks.
        unsafe { children.set_len(0) };
        return;
    }
    defer_vec(children);
}

/// The values of a vector that own something: see [`count_down`].
#[inline(never)]
fn defer_vec(children: &mut Vec<Value>) {
    count_down(children.drain(..));
}

/// Let go of a dropped object's values: each held elsewhere too is let go
/// at once (its count lowered frees nothing, so nothing recurses: a
/// tuple's part copied out of it before the tuple goes, say); from the
/// first that this drop would free, the rest go through the work list
/// ([`defer_values`]). Whether a value is held once is asked as it comes,
/// not beforehand: an object holding one value twice (`Node(t, k, t)`)
/// lowers its count with the first and frees it with the second.
#[inline(always)]
fn count_down(mut values: impl Iterator<Item = Value>) {
    while let Some(v) = values.next() {
        if v.is_held_once() {
            defer_values(std::iter::once(v));
            defer_values(values);
            return;
        }
        drop(v);
    }
}

/// As [`defer_drop`], for values taken from any container.
///
/// The outermost drop lets its own values go at once (their children
/// join the work list, so the recursion is one level deep), then empties
/// the list. Inside it, a value held elsewhere too is let go at once as
/// well: that only lowers its count. Only a value this drop frees waits
/// on the list.
pub(crate) fn defer_values(values: impl Iterator<Item = Value>) {
    if DRAINING.with(Cell::get) {
        let _ = PENDING.try_with(|p| {
            if let Ok(mut p) = p.try_borrow_mut() {
                for v in values {
                    if v.is_held_once() {
                        p.push(v);
                    }
                }
            }
        });
        return;
    }
    DRAINING.with(|d| d.set(true));
    for v in values {
        drop(v);
    }
    loop {
        let next = PENDING.with(|p| p.try_borrow_mut().ok().and_then(|mut p| p.pop()));
        match next {
            Some(v) => drop(v),
            None => break,
        }
    }
    DRAINING.with(|d| d.set(false));
}

macro_rules! heap_object {
    ($(#[$doc:meta])* $name:ident { $($(#[$fdoc:meta])* $field:ident : $ty:ty),* $(,)? } children: $children:ident) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub(crate) struct $name {
            $($(#[$fdoc])* pub $field: $ty,)*
            charged: usize,
        }
        impl $name {
            /// Make one, charging its size.
            pub(crate) fn new($($field: $ty),*) -> Rc<Self> {
                let charged = HEADER + $children.len() * SLOT;
                charge(charged);
                Rc::new($name { $($field,)* charged })
            }
        }
        impl Drop for $name {
            fn drop(&mut self) {
                credit(self.charged);
                Children::defer(&mut self.$children);
            }
        }
    };
}

heap_object! {
    /// The parts of a tuple.
    Parts {
        /// The parts, in order.
        items: Small,
    } children: items
}

heap_object! {
    /// A record: field symbols (sorted by name) and their values, in the
    /// same order.
    RecordObj {
        /// Field symbols, sorted by name.
        shape: Rc<[u32]>,
        /// The fields' values, in shape order.
        values: Vec<Value>,
    } children: values
}

heap_object! {
    /// A constructor applied to its fields.
    VariantObj {
        /// The constructor's id.
        ctor: u32,
        /// Its fields, in order.
        fields: Small,
    } children: fields
}

heap_object! {
    /// A function value with the values it captured.
    ClosureObj {
        /// The function's id.
        func: u32,
        /// The captured values, in capture order.
        captures: Small,
    } children: captures
}

/// A string.
#[derive(Debug)]
pub(crate) struct StrObj {
    /// The text.
    pub text: String,
}

impl StrObj {
    /// Make one, charging its length.
    pub fn new(text: String) -> Rc<Self> {
        charge(HEADER + text.len());
        Rc::new(StrObj { text })
    }
}

impl Drop for StrObj {
    fn drop(&mut self) {
        credit(HEADER + self.text.len());
    }
}

/// A map key: a value ordered by [`compare`].
#[derive(Clone, Debug)]
pub(crate) struct Key(pub Value);

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        compare(&self.0, &other.0) == Ordering::Equal
    }
}
impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        compare(&self.0, &other.0)
    }
}

/// An ordered map: a sorted array while small, a persistent tree when
/// large ([`Entries`]).
#[derive(Debug)]
pub(crate) struct MapObj {
    /// The entries.
    pub entries: Entries,
    charged: usize,
}

impl MapObj {
    /// Make one, charging two slots per entry.
    pub fn new(entries: Entries) -> Rc<Self> {
        let charged = HEADER + entries.len() * 2 * SLOT;
        charge(charged);
        Rc::new(MapObj { entries, charged })
    }
}

impl Drop for MapObj {
    fn drop(&mut self) {
        credit(self.charged);
    }
}

impl Value {
    /// Whether the value lives behind a pointer. One that does not owns
    /// nothing: letting it go drops nothing.
    #[inline(always)]
    pub(crate) fn is_heap(&self) -> bool {
        !matches!(self.0, plain!())
    }

    /// Whether letting the value go frees an object: it lives behind a
    /// pointer nothing else holds.
    fn is_held_once(&self) -> bool {
        match &self.0 {
            plain!() => false,
            Repr::Str(r) => Rc::strong_count(r) == 1,
            Repr::Tuple(r) => Rc::strong_count(r) == 1,
            Repr::Record(r) => Rc::strong_count(r) == 1,
            Repr::Variant(r) => Rc::strong_count(r) == 1,
            Repr::List(r) => Rc::strong_count(r) == 1,
            Repr::Map(r) => Rc::strong_count(r) == 1,
            Repr::Closure(r) => Rc::strong_count(r) == 1,
            Repr::Resume(r) => Rc::strong_count(r) == 1,
        }
    }

    /// `()`.
    #[inline]
    pub const fn unit() -> Value {
        Value(Repr::Unit)
    }

    /// `true` or `false`.
    #[inline]
    pub const fn bool(b: bool) -> Value {
        Value(Repr::Bool(Word::<bool>::new(b)))
    }

    /// An `Int`.
    #[inline]
    pub const fn int(n: i64) -> Value {
        Value(Repr::Int(n))
    }

    /// A `Float`.
    #[inline]
    pub const fn float(x: f64) -> Value {
        Value(Repr::Float(Word::<f64>::new(x)))
    }

    /// A `Str`.
    pub fn str(text: impl Into<String>) -> Value {
        Value(Repr::Str(StrObj::new(text.into())))
    }

    /// A `List` of the given elements, in order.
    pub fn list(items: impl IntoIterator<Item = Value>) -> Value {
        Value::from_vec(items.into_iter().collect())
    }

    /// A tuple of the given parts, in order (a Writ tuple has two or
    /// more).
    pub fn tuple(parts: impl IntoIterator<Item = Value>) -> Value {
        Value(Repr::Tuple(Parts::new(parts.into_iter().collect())))
    }

    /// A `Map` of the given entries (a later entry for an equal key
    /// replaces an earlier one).
    pub fn map(entries: impl IntoIterator<Item = (Value, Value)>) -> Value {
        let entries = entries.into_iter().map(|(k, v)| (Key(k), v)).collect();
        Value(Repr::Map(MapObj::new(entries)))
    }

    /// A record with the given fields, for a value of a record type the
    /// program declares or uses; `None` if a field name is not one that
    /// `module` knows (then no program of that module can read it).
    pub fn record<'n>(
        module: &Module,
        fields: impl IntoIterator<Item = (&'n str, Value)>,
    ) -> Option<Value> {
        let mut fields: Vec<(&str, Value)> = fields.into_iter().collect();
        fields.sort_by(|a, b| a.0.cmp(b.0));
        let mut shape = Vec::with_capacity(fields.len());
        let mut values = Vec::with_capacity(fields.len());
        for (name, v) in fields {
            shape.push(module.symbol(name)?);
            values.push(v);
        }
        Some(Value(Repr::Record(RecordObj::new(Rc::from(shape), values))))
    }

    /// The constructor named `name` applied to `fields` (none for a
    /// constructor without fields, such as `None`); `None` if `module` has
    /// no constructor of that name. The prelude's `Option` has its own
    /// ([`Value::some`], [`Value::none`]).
    pub fn variant(module: &Module, name: &str, fields: Vec<Value>) -> Option<Value> {
        Some(Value::constructed(module.ctor(name)?, fields))
    }

    /// `Some(v)`, the prelude's.
    pub fn some(module: &Module, v: Value) -> Value {
        Value::constructed(module.prelude.some, [v])
    }

    /// `None`, the prelude's.
    pub fn none(module: &Module) -> Value {
        Value(Repr::Tag(module.prelude.none.into()))
    }

    /// Whether the value is `()`.
    pub fn is_unit(&self) -> bool {
        matches!(self.0, Repr::Unit)
    }

    /// The value of a `Bool`.
    pub fn as_bool(&self) -> Option<bool> {
        match self.0 {
            Repr::Bool(b) => Some(b.get()),
            _ => None,
        }
    }

    /// The value of an `Int`.
    pub fn as_int(&self) -> Option<i64> {
        match self.0 {
            Repr::Int(n) => Some(n),
            _ => None,
        }
    }

    /// The value of a `Float`.
    pub fn as_float(&self) -> Option<f64> {
        match self.0 {
            Repr::Float(x) => Some(x.get()),
            _ => None,
        }
    }

    /// The text of a `Str`.
    pub fn as_str(&self) -> Option<&str> {
        match &self.0 {
            Repr::Str(s) => Some(&s.text),
            _ => None,
        }
    }

    /// A list of the given elements.
    pub(crate) fn from_vec(items: Vec<Value>) -> Value {
        Value(Repr::List(ListObj::new(items)))
    }

    /// The constructor `ctor` applied to fields (a [`Repr::Tag`] when
    /// there are none).
    pub(crate) fn constructed(ctor: u32, fields: impl IntoIterator<Item = Value>) -> Value {
        let fields: Small = fields.into_iter().collect();
        if fields.is_empty() {
            Value(Repr::Tag(ctor.into()))
        } else {
            Value(Repr::Variant(VariantObj::new(ctor, fields)))
        }
    }

    /// The constructor of a variant value.
    pub(crate) fn ctor(&self) -> Option<u32> {
        match &self.0 {
            Repr::Tag(c) => Some(c.get()),
            Repr::Variant(v) => Some(v.ctor),
            _ => None,
        }
    }

    /// The parts of a tuple, the fields of a variant or the values of a
    /// record.
    pub(crate) fn parts(&self) -> &[Value] {
        match &self.0 {
            Repr::Tuple(t) => &t.items,
            Repr::Variant(v) => &v.fields,
            Repr::Record(r) => &r.values,
            _ => &[],
        }
    }
}

pub(crate) use crate::order::{compare, equal};

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether a tuple's parts or a variant's fields live in the object
    /// itself (one allocation) rather than in a vector of their own.
    fn inline(v: &Value) -> Option<bool> {
        match &v.0 {
            Repr::Tuple(t) => Some(!t.items.spilled()),
            Repr::Variant(x) => Some(!x.fields.spilled()),
            _ => None,
        }
    }

    /// A dropped object frees what it alone held, lowers the count of
    /// what is held elsewhere too, and gives back every byte charged,
    /// through any mix of the two and any depth.
    #[test]
    fn a_drop_frees_what_it_held_alone_and_keeps_what_is_shared() {
        let before = live_bytes();
        let shared = Value::list([Value::str("kept"), Value::int(1)]);
        let Repr::List(held) = &shared.0 else {
            panic!("a list")
        };
        let held = held.clone();
        assert_eq!(Rc::strong_count(&held), 2);
        let mut v = Value::tuple([shared.clone(), Value::str("alone")]);
        for i in 0..10_000 {
            v = Value::tuple([v, Value::constructed(3, [shared.clone(), Value::int(i)])]);
        }
        assert_eq!(Rc::strong_count(&held), 10_003);
        drop(v);
        assert_eq!(Rc::strong_count(&held), 2);
        assert!(!Value::int(1).is_held_once());
        drop(shared);
        assert!(Value::str("x").is_held_once());
        drop(held);
        assert_eq!(live_bytes(), before);
    }

    /// Objects whose values all own nothing (inline parts, spilled parts,
    /// a closure's captures, a list of numbers) are let go without the
    /// drop glue for each value, and give back what they were charged;
    /// a mix still frees what owns something.
    #[test]
    fn objects_of_plain_values_are_let_go_whole() {
        let before = live_bytes();
        let plain = [
            Value::tuple([Value::int(1), Value::bool(true)]),
            Value::tuple((0..40).map(Value::int)),
            Value::constructed(2, [Value::float(1.5), Value::unit()]),
            Value::list((0..100).map(Value::int)),
        ];
        assert!(live_bytes() > before);
        drop(plain);
        assert_eq!(live_bytes(), before);
        let s = Value::str("s");
        let mixed = Value::tuple((0..40).map(Value::int).chain([s.clone()]));
        let Repr::Str(held) = &s.0 else {
            panic!("a string")
        };
        let held = held.clone();
        drop(s);
        assert_eq!(Rc::strong_count(&held), 2);
        drop(mixed);
        assert_eq!(Rc::strong_count(&held), 1);
        drop(held);
        assert_eq!(live_bytes(), before);
    }

    /// An object whose owning parts are all held elsewhere too (a part
    /// copied out before the object goes) lowers their counts at once,
    /// without the work list, inline parts or in a vector, at the top or
    /// inside another drop; nothing it did not hold alone is freed.
    #[test]
    fn parts_held_elsewhere_are_only_counted_down() {
        let before = live_bytes();
        let s = Value::str("s");
        let Repr::Str(held) = &s.0 else {
            panic!("a string")
        };
        let held = held.clone();
        let f = Value(Repr::Closure(ClosureObj::new(
            1,
            Small::from_iter([s.clone()]),
        )));
        let pair = Value::constructed(4, [Value::int(1), f.clone()]);
        let spilled = Value::tuple([s.clone(), f.clone(), Value::int(2)]);
        assert_eq!(inline(&spilled), Some(false));
        assert_eq!(Rc::strong_count(&held), 4);
        drop(pair);
        drop(spilled);
        assert!(f.is_held_once());
        assert_eq!(Rc::strong_count(&held), 3);
        // Inside another drop: the outer tuple is freed, its parts held
        // elsewhere are counted down.
        let outer = Value::tuple([
            Value::tuple([f.clone(), s.clone()]),
            Value::constructed(4, [s.clone()]),
        ]);
        assert_eq!(Rc::strong_count(&held), 5);
        drop(outer);
        assert_eq!(Rc::strong_count(&held), 3);
        assert!(f.is_held_once());
        drop((f, s));
        assert_eq!(Rc::strong_count(&held), 1);
        drop(held);
        assert_eq!(live_bytes(), before);
    }

    /// A deep value that holds the same part twice at every level (a
    /// tree whose two children are one value, as `Node(t, k, t)` makes)
    /// is let go without recursing: a part's count lowered by its first
    /// holder leaves the second holding it alone, and that one goes
    /// through the work list.
    #[test]
    fn a_deep_value_sharing_its_parts_is_let_go_without_recursing() {
        let before = live_bytes();
        let mut t = Value::constructed(0, []);
        for k in 0..200_000 {
            t = Value::constructed(1, [t.clone(), Value::int(k), t]);
        }
        let mut r = Value::tuple([Value::int(0), Value::unit()]);
        for _ in 0..200_000 {
            r = Value::tuple([r.clone(), r]);
        }
        assert!(live_bytes() > before);
        drop(t);
        drop(r);
        assert_eq!(live_bytes(), before);
    }

    #[test]
    fn one_or_two_parts_take_no_allocation_of_their_own() {
        let pair = Value::tuple([Value::int(1), Value::str("a")]);
        let triple = Value::tuple([Value::int(1), Value::int(2), Value::int(3)]);
        let one = Value::constructed(7, [Value::int(1)]);
        let none = Value::constructed(7, []);
        assert_eq!(inline(&pair), Some(true));
        assert_eq!(inline(&triple), Some(false));
        assert_eq!(inline(&one), Some(true));
        assert_eq!(inline(&none), None);
        assert_eq!(triple.parts().len(), 3);
        assert_eq!(pair.parts().get(1).and_then(Value::as_str), Some("a"));
    }

    #[test]
    fn words_give_back_what_they_were_made_of() {
        for b in [false, true] {
            assert_eq!(Word::<bool>::new(b).get(), b);
        }
        for x in [0.0, -0.0, 1.5, f64::INFINITY, f64::MIN_POSITIVE, f64::NAN] {
            assert_eq!(Word::<f64>::new(x).get().to_bits(), x.to_bits());
        }
        for n in [0, 1, u32::MAX] {
            assert_eq!(Word::<u32>::new(n).get(), n);
        }
        assert_eq!(Value::bool(true).as_bool(), Some(true));
        assert_eq!(
            Value::float(-0.0).as_float().map(f64::to_bits),
            Some((-0.0f64).to_bits())
        );
    }

    #[test]
    fn a_clone_counts_the_reference_it_shares() {
        let s = Value::str("shared");
        let Repr::Str(rc) = &s.0 else {
            panic!("a string is a Str")
        };
        assert_eq!(Rc::strong_count(rc), 1);
        let copies: Vec<Value> = (0..3).map(|_| s.clone()).collect();
        assert_eq!(Rc::strong_count(rc), 4);
        drop(copies);
        assert_eq!(Rc::strong_count(rc), 1);
        let plain = [
            Value::unit(),
            Value::bool(true),
            Value::int(-3),
            Value::float(2.5),
        ];
        let again: Vec<Value> = plain.to_vec();
        assert!(plain.iter().zip(&again).all(|(a, b)| equal(a, b)));
    }
}
