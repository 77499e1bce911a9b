//! Objects of tuples, constructors and closures that the machine let go
//! of, kept for the next one it makes.
//!
//! A program that takes a pair apart and makes the next one (a handler's
//! state `(i, j)` read and replaced on every operation) would otherwise
//! free one small object and allocate one of the same size each time
//! round. Where the machine replaces a handler's parameter
//! (`Machine::set_param` and a resumed continuation's next parameter), it
//! hands the old one to [`Recycled::keep`] instead of dropping it. An
//! object held by nothing else, its parts inline, has its parts let go
//! and is kept, one of each kind; the next tuple, constructor or closure
//! of one or two parts the machine makes fills it instead of allocating
//! (the idea of reuse in "Perceus: Garbage Free Reference Counting with
//! Reuse", Reinking, Xie, de Moura and Leijen, 2021, done at run time
//! rather than by the compiler). A value taken apart on its last read
//! (`TakePartLocal`) is not handed over: that op is in the run loop, and
//! every way of doing it there cost the other programs more than it
//! saved (decision 031).
//!
//! Invariants:
//! - A kept object is held by nothing else (`Rc::get_mut` succeeded when
//!   it was kept; only [`Recycled`] holds it after) and holds no values:
//!   its parts were let go, in the usual way, when it was kept.
//! - A kept object is charged nothing: like the machine's kept
//!   resumptions, it is small and bounded, the machine's rather than the
//!   program's memory. Filling it charges what a new object of that size is
//!   charged, so what a program is charged does not depend on reuse.
//! - At most one object of each kind is kept, of at most two parts
//!   inline ([`super::HEADER`] plus two slots): what is kept is small and
//!   bounded, and a machine dropped lets it go.

use std::rc::Rc;

use super::Children;
use super::{ClosureObj, HEADER, Parts, Repr, SLOT, Small, Value, VariantObj, charge, credit};

/// The objects kept for reuse (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct Recycled {
    parts: Option<Rc<Parts>>,
    variant: Option<Rc<VariantObj>>,
    closure: Option<Rc<ClosureObj>>,
}

/// An object whose values are a [`Small`], and what it is charged.
trait Inline {
    /// Its values and what it is charged.
    fn inline(&mut self) -> (&mut Small, &mut usize);
}

impl Inline for Parts {
    fn inline(&mut self) -> (&mut Small, &mut usize) {
        (&mut self.items, &mut self.charged)
    }
}

impl Inline for VariantObj {
    fn inline(&mut self) -> (&mut Small, &mut usize) {
        (&mut self.fields, &mut self.charged)
    }
}

impl Inline for ClosureObj {
    fn inline(&mut self) -> (&mut Small, &mut usize) {
        (&mut self.captures, &mut self.charged)
    }
}

impl Recycled {
    /// Let `v` go, keeping its object for reuse when it is a tuple,
    /// constructor or closure held by nothing else, with its parts inline,
    /// and none of its kind is kept yet. Out of line: the machine's loop
    /// calls it where it would call the drop glue.
    #[inline(never)]
    pub(crate) fn keep(&mut self, v: Value) {
        match v.0 {
            Repr::Tuple(rc) => keep(&mut self.parts, rc),
            Repr::Variant(rc) => keep(&mut self.variant, rc),
            Repr::Closure(rc) => keep(&mut self.closure, rc),
            other => drop(Value(other)),
        }
    }

    /// A tuple of `items`, in the kept object when there is one.
    pub(crate) fn tuple(&mut self, items: Small) -> Value {
        match fill(&mut self.parts, items) {
            Ok(rc) => Value(Repr::Tuple(rc)),
            Err(items) => Value(Repr::Tuple(Parts::new(items))),
        }
    }

    /// Constructor `ctor` applied to `fields` (at least one), in the kept
    /// object when there is one.
    pub(crate) fn variant(&mut self, ctor: u32, fields: Small) -> Value {
        match fill(&mut self.variant, fields) {
            Ok(mut rc) => {
                if let Some(v) = Rc::get_mut(&mut rc) {
                    v.ctor = ctor;
                }
                Value(Repr::Variant(rc))
            }
            Err(fields) => Value(Repr::Variant(VariantObj::new(ctor, fields))),
        }
    }

    /// A closure of function `func` over `captures`, in the kept object
    /// when there is one.
    pub(crate) fn closure(&mut self, func: u32, captures: Small) -> Value {
        match fill(&mut self.closure, captures) {
            Ok(mut rc) => {
                if let Some(c) = Rc::get_mut(&mut rc) {
                    c.func = func;
                }
                Value(Repr::Closure(rc))
            }
            Err(captures) => Value(Repr::Closure(ClosureObj::new(func, captures))),
        }
    }

    /// How many objects are kept (for tests).
    #[cfg(test)]
    pub(crate) fn kept(&self) -> usize {
        usize::from(self.parts.is_some())
            + usize::from(self.variant.is_some())
            + usize::from(self.closure.is_some())
    }
}

/// Keep `rc` in `slot` if the slot is free, nothing else holds it and its
/// values are inline: they are let go and it is charged nothing. Anything
/// else is let go as usual.
fn keep<T: Inline>(slot: &mut Option<Rc<T>>, mut rc: Rc<T>) {
    if slot.is_some() {
        return;
    }
    let Some(obj) = Rc::get_mut(&mut rc) else {
        return;
    };
    let (values, charged) = obj.inline();
    if values.spilled() {
        return;
    }
    // Plain values are let go without the drop glue, tested inline
    // (`Children::defer`).
    values.defer();
    credit(*charged);
    *charged = 0;
    *slot = Some(rc);
}

/// The kept object of `slot` holding `values` and charged for them as a
/// new object holding them is, or the values back when none is kept or
/// they are not inline.
fn fill<T: Inline>(slot: &mut Option<Rc<T>>, values: Small) -> Result<Rc<T>, Small> {
    if values.spilled() {
        return Err(values);
    }
    let Some(mut rc) = slot.take() else {
        return Err(values);
    };
    let Some(obj) = Rc::get_mut(&mut rc) else {
        return Err(values);
    };
    let (held, charged) = obj.inline();
    *charged = HEADER + values.len() * SLOT;
    charge(*charged);
    // The kept object's values are empty and inline (it was emptied when
    // kept): the old ones own nothing, and are forgotten rather than
    // dropped.
    std::mem::forget(std::mem::replace(held, values));
    Ok(rc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::live_bytes;

    fn pair(a: Value, b: Value) -> Small {
        Small::from_buf([a, b])
    }

    /// A tuple let go of is kept, charged nothing, and the next tuple
    /// fills the same object, charged as a new one is.
    #[test]
    fn a_tuple_let_go_is_filled_again_and_charged_as_new() {
        let mut r = Recycled::default();
        let before = live_bytes();
        let t = r.tuple(pair(Value::int(1), Value::int(2)));
        let charged = live_bytes() - before;
        assert_eq!(charged, HEADER + 2 * SLOT);
        let Repr::Tuple(rc) = &t.0 else {
            panic!("not a tuple")
        };
        let at = Rc::as_ptr(rc);
        r.keep(t);
        assert_eq!(r.kept(), 1);
        assert_eq!(live_bytes(), before);
        let u = r.tuple(pair(Value::int(3), Value::int(4)));
        assert_eq!(r.kept(), 0);
        assert_eq!(live_bytes() - before, charged);
        let Repr::Tuple(rc) = &u.0 else {
            panic!("not a tuple")
        };
        assert_eq!(Rc::as_ptr(rc), at);
        assert_eq!(u.parts().len(), 2);
        assert_eq!(u.parts()[1].as_int(), Some(4));
        drop(u);
        assert_eq!(live_bytes(), before);
    }

    /// A tuple held elsewhere too is not kept: letting it go only lowers
    /// its count, and the other holder still sees its parts.
    #[test]
    fn a_shared_tuple_is_not_kept() {
        let mut r = Recycled::default();
        let t = r.tuple(pair(Value::int(1), Value::str("x")));
        let other = t.clone();
        r.keep(t);
        assert_eq!(r.kept(), 0);
        assert_eq!(other.parts()[1].as_str(), Some("x"));
    }

    /// A kept object's parts are let go when it is kept: a string held
    /// only by the tuple is freed then (its bytes credited).
    #[test]
    fn keeping_lets_the_parts_go() {
        let mut r = Recycled::default();
        let before = live_bytes();
        let t = r.tuple(pair(Value::str("held only here"), Value::int(2)));
        r.keep(t);
        assert_eq!(r.kept(), 1);
        assert_eq!(live_bytes(), before);
    }

    /// A constructor and a closure are kept and filled as a tuple is, each
    /// in its own place, the constructor's id and the closure's function
    /// those of the new value.
    #[test]
    fn constructors_and_closures_are_kept_by_kind() {
        let mut r = Recycled::default();
        let v = r.variant(
            7,
            Small::from_buf_and_len([Value::int(1), Value::unit()], 1),
        );
        let c = r.closure(3, pair(Value::int(1), Value::int(2)));
        r.keep(v);
        r.keep(c);
        assert_eq!(r.kept(), 2);
        let t = r.tuple(pair(Value::int(1), Value::int(2)));
        assert_eq!(r.kept(), 2, "a tuple does not take a constructor's object");
        let v = r.variant(9, pair(Value::int(5), Value::int(6)));
        assert_eq!(v.ctor(), Some(9));
        assert_eq!(v.parts().len(), 2);
        let c = r.closure(4, Small::new());
        let Repr::Closure(obj) = &c.0 else {
            panic!("not a closure")
        };
        assert_eq!(obj.func, 4);
        assert_eq!(obj.captures.len(), 0);
        assert_eq!(r.kept(), 0);
        drop((t, v, c));
    }

    /// Only one object of a kind is kept; one whose parts are not inline
    /// (three or more) is neither kept nor made in a kept object;
    /// anything else is let go as usual. Every byte charged comes back.
    #[test]
    fn one_of_a_kind_and_only_inline_parts() {
        let mut r = Recycled::default();
        let before = live_bytes();
        let a = r.tuple(pair(Value::int(1), Value::int(2)));
        let b = r.tuple(pair(Value::int(3), Value::int(4)));
        r.keep(a);
        r.keep(b);
        assert_eq!(r.kept(), 1);
        let three = || -> Small {
            [Value::int(1), Value::int(2), Value::int(3)]
                .into_iter()
                .collect()
        };
        let big = r.tuple(three());
        assert_eq!(r.kept(), 1, "three parts do not fill the kept object");
        assert_eq!(live_bytes() - before, HEADER + 3 * SLOT);
        assert_eq!(big.parts().len(), 3);
        let _ = r.tuple(pair(Value::int(5), Value::int(6)));
        assert_eq!(r.kept(), 0);
        r.keep(big);
        assert_eq!(r.kept(), 0, "three parts are not kept");
        r.keep(Value::str("s"));
        r.keep(Value::int(1));
        assert_eq!(r.kept(), 0);
        assert_eq!(live_bytes(), before);
    }
}
