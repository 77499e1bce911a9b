//! Structural ordering and equality of values, metered.
//!
//! Both walk the two values side by side, lazily: a list of a million
//! elements is visited one pair at a time, so the first difference ends
//! the walk and nothing is queued ahead of it. Each pair of nodes visited
//! costs one unit on the [`Meter`], and a pair of strings one more unit per
//! [`crate::meter::BYTES_PER_UNIT`] bytes of the shorter.
//!
//! Invariants: iterative (no recursion on a value's depth), and a
//! sequence whose last pair is being compared is no longer held, so the
//! room the walk takes grows only with the parts left to compare at
//! each level, not with depth alone; once the meter
//! trips, the walk stops at once and answers "equal" — the caller reports
//! the exhausted limit instead of using that answer.

use std::cmp::Ordering;
use std::rc::Rc;

use crate::meter::{self, Meter};
use crate::value::{Repr, Value};

/// The rank of a value's kind, ordering values of different kinds (which
/// the type checker never compares; the order only has to be total).
fn rank(v: &Value) -> u8 {
    match v {
        Value(Repr::Unit) => 0,
        Value(Repr::Bool(_)) => 1,
        Value(Repr::Int(_)) => 2,
        Value(Repr::Float(_)) => 3,
        Value(Repr::Str(_)) => 4,
        Value(Repr::Tuple(_)) => 5,
        Value(Repr::Record(_)) => 6,
        Value(Repr::Tag(_)) | Value(Repr::Variant(_)) => 7,
        Value(Repr::List(_)) => 8,
        Value(Repr::Map(_)) => 9,
        Value(Repr::Func(_))
        | Value(Repr::Native(_))
        | Value(Repr::Closure(_))
        | Value(Repr::Resume(_)) => 10,
    }
}

/// The total order on floats that sorting and map keys use: IEEE 754's
/// `totalOrder` (so `-0.0` before `0.0`), except that every NaN, whatever
/// its sign and payload, is one value after every number (`0.0 / 0.0` is a
/// NaN with its sign bit set on common hardware, which `totalOrder` alone
/// would put first).
pub fn float_order(x: f64, y: f64) -> Ordering {
    match (x.is_nan(), y.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => x.total_cmp(&y),
    }
}

/// A total order on values: numbers by value (floats by [`float_order`]),
/// strings by bytes, `false < true`, tuples and lists lexicographically,
/// variants by constructor then fields, maps by their entries. Equal under
/// this order is what `==` means, except that `==` on floats follows IEEE
/// (see [`equal`]). Metered on the running run's meter ([`Meter::AMBIENT`]:
/// its fuel, clock and cancellation flag; outside a run it never trips),
/// including where the persistent map compares its keys.
pub fn compare(a: &Value, b: &Value) -> Ordering {
    walk(a, b, Meter::AMBIENT, false)
}

/// `==` on values: structural, with IEEE equality on floats (`NaN` is not
/// equal to itself). Metered like [`compare`].
pub fn equal(a: &Value, b: &Value) -> bool {
    walk(a, b, Meter::AMBIENT, true) == Ordering::Equal
}

/// The children of a node still to visit.
enum Items<'a> {
    Slice(std::slice::Iter<'a, Value>),
    Dyn(std::iter::Peekable<Box<dyn Iterator<Item = &'a Value> + 'a>>),
}

impl<'a> Items<'a> {
    fn dynamic(items: Box<dyn Iterator<Item = &'a Value> + 'a>) -> Items<'a> {
        Items::Dyn(items.peekable())
    }

    fn next(&mut self) -> Option<&'a Value> {
        match self {
            Items::Slice(s) => s.next(),
            Items::Dyn(d) => d.next(),
        }
    }

    /// Whether no child is left.
    fn known_empty(&mut self) -> bool {
        match self {
            Items::Slice(s) => s.len() == 0,
            Items::Dyn(d) => d.peek().is_none(),
        }
    }
}

/// Two sequences being compared pair by pair, and what decides when one
/// runs out first.
struct Seq<'a> {
    xs: Items<'a>,
    ys: Items<'a>,
    lengths: Ordering,
}

/// What one pair of nodes says: an answer (`Equal`: go on), or children
/// to compare.
enum Step<'a> {
    Done(Ordering),
    Into(Seq<'a>),
}

fn slices<'a>(xs: &'a [Value], ys: &'a [Value], lengths: Ordering) -> Step<'a> {
    Step::Into(Seq {
        xs: Items::Slice(xs.iter()),
        ys: Items::Slice(ys.iter()),
        lengths,
    })
}

/// Compare one pair of nodes. With `ieee`, answer for `==`: floats by
/// IEEE equality, shared lists equal at once, and sequences of different
/// lengths unequal before their elements are looked at (any answer other
/// than `Equal` then only means "not equal").
fn node<'a>(a: &'a Value, b: &'a Value, ieee: bool, meter: Meter) -> Step<'a> {
    let done = Step::Done;
    let unequal_lengths = |x: usize, y: usize| ieee && x != y;
    match (a, b) {
        (Value(Repr::Unit), Value(Repr::Unit)) => done(Ordering::Equal),
        (Value(Repr::Bool(x)), Value(Repr::Bool(y))) => done(x.get().cmp(&y.get())),
        (Value(Repr::Int(x)), Value(Repr::Int(y))) => done(x.cmp(y)),
        (Value(Repr::Float(x)), Value(Repr::Float(y))) if ieee => done(if x.get() == y.get() {
            Ordering::Equal
        } else {
            Ordering::Less
        }),
        (Value(Repr::Float(x)), Value(Repr::Float(y))) => done(float_order(x.get(), y.get())),
        (Value(Repr::Str(x)), Value(Repr::Str(y))) => {
            meter.charge(meter::bytes(x.text.len().min(y.text.len())));
            done(x.text.cmp(&y.text))
        }
        (Value(Repr::Tuple(x)), Value(Repr::Tuple(y))) => {
            if unequal_lengths(x.items.len(), y.items.len()) {
                return done(Ordering::Less);
            }
            slices(&x.items, &y.items, x.items.len().cmp(&y.items.len()))
        }
        (Value(Repr::Record(x)), Value(Repr::Record(y))) => match x.shape.cmp(&y.shape) {
            Ordering::Equal => slices(&x.values, &y.values, Ordering::Equal),
            o => done(o),
        },
        (
            Value(Repr::Tag(_)) | Value(Repr::Variant(_)),
            Value(Repr::Tag(_)) | Value(Repr::Variant(_)),
        ) => {
            let (xs, ys) = (a.parts(), b.parts());
            match a.ctor().cmp(&b.ctor()) {
                Ordering::Equal if unequal_lengths(xs.len(), ys.len()) => done(Ordering::Less),
                Ordering::Equal => slices(xs, ys, xs.len().cmp(&ys.len())),
                o => done(o),
            }
        }
        (Value(Repr::List(x)), Value(Repr::List(y))) => {
            if ieee && Rc::ptr_eq(x, y) {
                return done(Ordering::Equal);
            }
            if unequal_lengths(x.len(), y.len()) {
                return done(Ordering::Less);
            }
            Step::Into(Seq {
                xs: Items::dynamic(Box::new(x.iter())),
                ys: Items::dynamic(Box::new(y.iter())),
                lengths: x.len().cmp(&y.len()),
            })
        }
        (Value(Repr::Map(x)), Value(Repr::Map(y))) => {
            if unequal_lengths(x.entries.len(), y.entries.len()) {
                return done(Ordering::Less);
            }
            Step::Into(Seq {
                xs: Items::dynamic(Box::new(x.entries.iter().flat_map(|(k, v)| [&k.0, v]))),
                ys: Items::dynamic(Box::new(y.entries.iter().flat_map(|(k, v)| [&k.0, v]))),
                lengths: x.entries.len().cmp(&y.entries.len()),
            })
        }
        _ => done(rank(a).cmp(&rank(b))),
    }
}

/// Walk `a` and `b` side by side until a pair differs or both end.
fn walk<'a>(a: &'a Value, b: &'a Value, meter: Meter, ieee: bool) -> Ordering {
    // The commonest pairs (sort and map keys) answered at once: their
    // answer is complete, so a tripped meter changes nothing.
    match (a, b) {
        (Value(Repr::Int(x)), Value(Repr::Int(y))) => {
            meter.charge(1);
            return x.cmp(y);
        }
        (Value(Repr::Str(x)), Value(Repr::Str(y))) => {
            meter.charge(meter::bytes(x.text.len().min(y.text.len())));
            return x.text.cmp(&y.text);
        }
        _ => {}
    }
    let mut work: Vec<Seq<'a>> = Vec::new();
    let (mut a, mut b) = (a, b);
    loop {
        if !meter.charge(1) {
            return Ordering::Equal;
        }
        match node(a, b, ieee, meter) {
            Step::Done(Ordering::Equal) => {}
            Step::Done(o) => return o,
            Step::Into(seq) => work.push(seq),
        }
        // The next pair: the next children of the innermost sequence not
        // yet finished.
        loop {
            let Some(top) = work.last_mut() else {
                return Ordering::Equal;
            };
            match (top.xs.next(), top.ys.next()) {
                (Some(x), Some(y)) => {
                    (a, b) = (x, y);
                    // The last pair of a sequence is compared in its
                    // place (its lengths are equal, as both ended
                    // together): a value nested through its last part
                    // (`T(Some(T(...)))`, a list in a list's last
                    // element) is walked in constant room.
                    if top.xs.known_empty() && top.ys.known_empty() {
                        work.pop();
                    }
                    break;
                }
                _ => {
                    let lengths = top.lengths;
                    work.pop();
                    if lengths != Ordering::Equal {
                        return lengths;
                    }
                }
            }
        }
    }
}

/// Whether `v` is a scalar (or a short string): comparing it with another
/// such value costs at most a few units, so a sort may compare such
/// values without polling the meter in between.
pub(crate) fn is_cheap(v: &Value) -> bool {
    match v {
        Value(Repr::Unit)
        | Value(Repr::Bool(_))
        | Value(Repr::Int(_))
        | Value(Repr::Float(_))
        | Value(Repr::Tag(_)) => true,
        Value(Repr::Str(s)) => s.text.len() <= CHEAP_TEXT,
        _ => false,
    }
}

/// The longest string [`is_cheap`] accepts, in bytes.
pub(crate) const CHEAP_TEXT: usize = 64;

/// [`compare`] on two values [`is_cheap`] accepts, without the meter (the
/// caller charges for it).
pub(crate) fn compare_cheap(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value(Repr::Unit), Value(Repr::Unit)) => Ordering::Equal,
        (Value(Repr::Bool(x)), Value(Repr::Bool(y))) => x.get().cmp(&y.get()),
        (Value(Repr::Int(x)), Value(Repr::Int(y))) => x.cmp(y),
        (Value(Repr::Float(x)), Value(Repr::Float(y))) => float_order(x.get(), y.get()),
        (Value(Repr::Str(x)), Value(Repr::Str(y))) => x.text.cmp(&y.text),
        (Value(Repr::Tag(x)), Value(Repr::Tag(y))) => x.get().cmp(&y.get()),
        _ => rank(a).cmp(&rank(b)),
    }
}
