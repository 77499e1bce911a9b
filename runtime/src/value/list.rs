//! Lists: contiguous arrays of values, changed in place while one
//! reference holds them, and lists that share another's elements (the
//! rest of a list, and a shared list with elements added at its end).
//!
//! Invariants: a base is never a list with a base itself, and a start is
//! never past its base's length; a base shared by a list is never changed
//! (it is held twice, so nothing changes it in place); a list is charged
//! for its header and every slot of its own array's capacity (spare slots
//! included), and grows only after the machine checked the slots it
//! needs against the memory limit; the elements of its base are charged
//! to the base.

use std::collections::VecDeque;
use std::collections::vec_deque;
use std::rc::Rc;

use super::{HEADER, SLOT, Value, charge, credit, defer_values};

/// A list: the elements of a base list from some index on (shared, not
/// copied), if it has one, followed by its own elements in a contiguous
/// double-ended array.
///
/// - A list with no base holds all its elements.
/// - A *view* has a base and no elements of its own: the rest of a list
///   in a pattern (`[x, ..rest]`) or `list.drop`, made in constant time.
/// - A list with a base and elements of its own is what adding elements
///   at the end of a shared list makes (`big ++ [x]` while `big` is held
///   elsewhere): `big`'s elements are shared and only the new ones held.
///
/// A list held by one reference changes in place: `acc ++ [x]` pushes
/// onto its end (O(1) amortized, Perceus-style reuse), `[x] ++ acc` onto
/// its start when it has no base, and `[x, ..rest]` drops its first
/// element. A list held twice is not changed: adding to it makes a new
/// list (sharing it as a base when it is long, copying it when short).
#[derive(Debug)]
pub(crate) struct ListObj {
    /// Its own elements, after the base's.
    items: VecDeque<Value>,
    /// The base: a list without a base, kept alive as long as this one
    /// is, and the index its elements are shown from.
    base: Option<(Rc<ListObj>, usize)>,
    charged: usize,
}

/// How many more elements a list grown in place makes room for: half
/// again its length (so n pushes move O(n) elements in all), at least
/// [`MIN_ROOM`].
const MIN_ROOM: usize = 4;

/// The shortest list that adding to while it is shared makes a base of
/// rather than copying.
const SHARE_FROM: usize = 64;

/// The elements of a list, in order: those of its base, then its own.
#[derive(Clone, Debug)]
pub(crate) struct Iter<'a> {
    base: vec_deque::Iter<'a, Value>,
    own: vec_deque::Iter<'a, Value>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a Value;

    #[inline]
    fn next(&mut self) -> Option<&'a Value> {
        self.base.next().or_else(|| self.own.next())
    }

    /// In constant time (each part's own `nth` is): `skip(n)` on a list's
    /// elements, as [`ListObj::rest`] does, must not walk the `n`
    /// skipped, which no unit of work is charged for.
    fn nth(&mut self, n: usize) -> Option<&'a Value> {
        let b = self.base.len();
        if n < b {
            return self.base.nth(n);
        }
        if let Some(last) = b.checked_sub(1) {
            self.base.nth(last);
        }
        self.own.nth(n - b)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.base.len() + self.own.len();
        (n, Some(n))
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.own.next_back().or_else(|| self.base.next_back())
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl ListObj {
    /// Make one of the given elements, charging a slot per element of
    /// the array's capacity.
    pub fn new(items: Vec<Value>) -> Rc<Self> {
        ListObj::made(None, VecDeque::from(items))
    }

    /// Make an empty one with room for `n` elements, charging a slot for
    /// each (the caller checked them against the memory limit).
    pub fn with_capacity(n: usize) -> Rc<Self> {
        ListObj::made(None, VecDeque::with_capacity(n))
    }

    fn made(base: Option<(Rc<ListObj>, usize)>, items: VecDeque<Value>) -> Rc<Self> {
        let charged = HEADER + items.capacity() * SLOT;
        charge(charged);
        Rc::new(ListObj {
            items,
            base,
            charged,
        })
    }

    /// The list without its first `n` elements. Of a list with no
    /// elements of its own past its base (a list without a base, or a
    /// view), a view: constant time, charged for its header only, so
    /// walking a list with `[x, ..rest]` costs constant time and memory
    /// per step. Of a list with a base and elements of its own, a list of
    /// its own of the elements left (a copy, charged for them), which the
    /// next steps of a walk then view.
    pub fn rest(list: &Rc<ListObj>, n: usize) -> Rc<Self> {
        match &list.base {
            None => ListObj::made(
                Some((list.clone(), n.min(list.items.len()))),
                VecDeque::new(),
            ),
            Some((root, start)) if list.items.is_empty() => ListObj::made(
                Some((root.clone(), start.saturating_add(n).min(root.items.len()))),
                VecDeque::new(),
            ),
            Some(_) => ListObj::made(None, list.iter().skip(n).cloned().collect()),
        }
    }

    /// The elements a [`ListObj::rest`] of `list` copies (none for a
    /// view).
    pub fn rest_copies(&self, n: usize) -> usize {
        if self.base.is_some() && !self.items.is_empty() {
            self.len().saturating_sub(n)
        } else {
            0
        }
    }

    /// As [`ListObj::rest`] in place, when `list` is its only reference:
    /// it drops its first `n` elements (a base's by moving its start on,
    /// its own by freeing them, so a list walked with `[x, ..rest]` frees
    /// what it has walked); returns true. Nothing is made or charged.
    /// When the list is shared, leaves it and returns false.
    pub fn drop_front_unique(list: &mut Rc<ListObj>, n: usize) -> bool {
        let Some(obj) = Rc::get_mut(list) else {
            return false;
        };
        let mut n = n;
        if let Some((root, start)) = &mut obj.base {
            let shown = root.items.len().saturating_sub(*start);
            if n < shown || obj.items.is_empty() {
                *start = start.saturating_add(n).min(root.items.len());
                return true;
            }
            n -= shown;
            // The base is all dropped: let it go.
            obj.base = None;
        }
        let n = n.min(obj.items.len());
        if n == 1 {
            drop(obj.items.pop_front());
        } else {
            obj.items.drain(..n);
        }
        true
    }

    /// For a view: the list it shows and the index it starts at; `None`
    /// for a list with elements of its own.
    pub fn viewed(&self) -> Option<(&Rc<ListObj>, usize)> {
        match &self.base {
            Some((root, start)) if self.items.is_empty() => Some((root, *start)),
            _ => None,
        }
    }

    /// The number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        let own = self.items.len();
        match &self.base {
            Some((root, start)) => root.items.len().saturating_sub(*start) + own,
            None => own,
        }
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The element at an index.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&Value> {
        match &self.base {
            Some((root, start)) => {
                let shown = root.items.len().saturating_sub(*start);
                if i < shown {
                    root.items.get(start.checked_add(i)?)
                } else {
                    self.items.get(i - shown)
                }
            }
            None => self.items.get(i),
        }
    }

    /// The first element.
    pub fn first(&self) -> Option<&Value> {
        self.get(0)
    }

    /// The last element.
    pub fn last(&self) -> Option<&Value> {
        self.iter().next_back()
    }

    /// The elements, in order.
    #[inline]
    pub fn iter(&self) -> Iter<'_> {
        let base = match &self.base {
            Some((root, start)) => root.items.range((*start).min(root.items.len())..),
            None => self.items.range(0..0),
        };
        Iter {
            base,
            own: self.items.iter(),
        }
    }
}

impl ListObj {
    /// The elements from `from` up to (not including) `to`, clamped to
    /// the list.
    pub fn range(&self, from: usize, to: usize) -> std::iter::Take<std::iter::Skip<Iter<'_>>> {
        self.iter().skip(from).take(to.saturating_sub(from))
    }

    /// The bytes an in-place append of `extra` elements to this list
    /// adds at least (the slots it must have; growing may take more, up
    /// to what [`ListObj::grow`] is allowed).
    pub fn needed(&self, extra: usize) -> usize {
        let need = self.items.len().saturating_add(extra);
        need.saturating_sub(self.items.capacity())
            .saturating_mul(SLOT)
    }

    /// The elements a growth by `extra` in place moves that no spare room
    /// pays for: when it must move the array (it has not the room) and
    /// `room` bytes leave less than the usual spare slots (half again its
    /// length), all its own elements, as the next growth may have to move
    /// them again; none otherwise (growing by half again moves each
    /// element a constant number of times in all).
    pub fn tight_moves(&self, extra: usize, room: usize) -> usize {
        let len = self.items.len();
        if self.needed(extra) > 0 && room / SLOT < (len / 2).max(MIN_ROOM) {
            len
        } else {
            0
        }
    }

    /// Make room for `extra` more elements, taking at most `room` bytes
    /// beyond what they need for spare slots, and charge the slots added.
    fn grow(&mut self, extra: usize, room: usize) {
        let len = self.items.len();
        let need = len.saturating_add(extra);
        let cap = self.items.capacity();
        if need <= cap {
            return;
        }
        let spare = (len / 2).max(MIN_ROOM).min(room / SLOT);
        let target = need.saturating_add(spare);
        self.items.reserve_exact(target - len);
        let added = self.items.capacity().saturating_sub(cap) * SLOT;
        charge(added);
        self.charged += added;
    }

    /// The list itself, when `list` is its only reference (so it may
    /// change in place).
    fn sole(list: &mut Rc<ListObj>) -> Option<&mut ListObj> {
        Rc::get_mut(list)
    }

    /// Add the elements of `extra` at the end of `list` in place, when
    /// `list` is its only reference, charging for the slots added (spare
    /// slots up to `room` bytes); otherwise leave it and return false.
    /// This is what makes `acc ++ [x]` on a list held by one variable
    /// cost O(1) amortized rather than a copy.
    pub fn append_unique(list: &mut Rc<ListObj>, extra: &ListObj, room: usize) -> bool {
        let Some(obj) = ListObj::sole(list) else {
            return false;
        };
        obj.grow(extra.len(), room);
        obj.items.extend(extra.iter().cloned());
        true
    }

    /// As [`ListObj::append_unique`], adding the elements of `extra` at
    /// the start of `list` (`[x] ++ acc`), when `list` has no base.
    pub fn prepend_unique(list: &mut Rc<ListObj>, extra: &ListObj, room: usize) -> bool {
        let Some(obj) = ListObj::sole(list).filter(|obj| obj.base.is_none()) else {
            return false;
        };
        obj.grow(extra.len(), room);
        for x in extra.iter().rev() {
            obj.items.push_front(x.clone());
        }
        true
    }

    /// Push `x` onto the end of `list` in place (`acc ++ [x]` without
    /// making `[x]`), as [`ListObj::append_unique`]; `Err(x)` when
    /// `list` is shared.
    pub fn push_unique(list: &mut Rc<ListObj>, x: Value, room: usize) -> Result<(), Value> {
        let Some(obj) = ListObj::sole(list) else {
            return Err(x);
        };
        obj.grow(1, room);
        obj.items.push_back(x);
        Ok(())
    }

    /// The elements a [`ListObj::appended`] of `extra` elements to `list`
    /// copies: `extra` and `list`'s own elements when it is long (its
    /// base's, or itself, is shared), every element when it is short.
    pub fn append_copies(&self, extra: usize) -> usize {
        match &self.base {
            None if self.items.len() >= SHARE_FROM => extra,
            Some((root, start)) if root.items.len().saturating_sub(*start) >= SHARE_FROM => {
                self.items.len().saturating_add(extra)
            }
            _ => self.len().saturating_add(extra),
        }
    }

    /// A new list of the elements of `list` then `extra`, leaving `list`
    /// as it is (it is shared): a long list becomes the new one's base
    /// (or its base does, with its own elements copied), a short one is
    /// copied. Charged for the new list's own elements.
    pub fn appended<'v>(
        list: &Rc<ListObj>,
        extra: impl ExactSizeIterator<Item = &'v Value>,
    ) -> Rc<Self> {
        let base = match &list.base {
            None if list.items.len() >= SHARE_FROM => Some((list.clone(), 0)),
            Some((root, start)) if root.items.len().saturating_sub(*start) >= SHARE_FROM => {
                Some((root.clone(), *start))
            }
            _ => None,
        };
        let mut items;
        match &base {
            Some(_) if list.base.is_none() => {
                items = VecDeque::with_capacity(extra.len());
            }
            Some(_) => {
                items = VecDeque::with_capacity(list.items.len().saturating_add(extra.len()));
                items.extend(list.items.iter().cloned());
            }
            None => {
                items = VecDeque::with_capacity(list.len().saturating_add(extra.len()));
                items.extend(list.iter().cloned());
            }
        }
        items.extend(extra.cloned());
        ListObj::made(base, items)
    }
}

impl Drop for ListObj {
    fn drop(&mut self) {
        credit(self.charged);
        if self.items.iter().any(Value::is_heap) {
            defer_values(self.items.drain(..));
        } else {
            // Nothing to drop: let the elements go without calling the
            // drop glue of each (which the array's own drop would).
            self.items.drain(..).for_each(std::mem::forget);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::live_bytes;

    fn ints(n: i64) -> Vec<Value> {
        (0..n).map(Value::int).collect()
    }

    #[test]
    fn a_list_is_charged_for_its_capacity_and_gives_it_all_back() {
        let before = live_bytes();
        let mut l = ListObj::new(ints(10));
        assert_eq!(live_bytes() - before, HEADER + 10 * SLOT);
        // Pushing in place grows the array by half again: charged for
        // every slot added, spare ones included.
        assert!(ListObj::push_unique(&mut l, Value::int(10), usize::MAX).is_ok());
        let cap = l.items.capacity();
        assert!(cap >= 15, "{cap}");
        assert_eq!(live_bytes() - before, HEADER + cap * SLOT);
        assert_eq!(l.charged, HEADER + cap * SLOT);
        // Further pushes within the capacity charge nothing.
        let now = live_bytes();
        assert!(ListObj::push_unique(&mut l, Value::int(11), usize::MAX).is_ok());
        assert_eq!(live_bytes(), now);
        assert_eq!(l.len(), 12);
        drop(l);
        assert_eq!(live_bytes(), before);
    }

    #[test]
    fn spare_slots_are_only_taken_where_the_room_allows() {
        let mut l = ListObj::new(ints(100));
        // No room beyond the element itself: exactly one slot more.
        assert!(ListObj::push_unique(&mut l, Value::int(100), 0).is_ok());
        assert_eq!(l.items.capacity(), 101);
        assert_eq!(l.charged, HEADER + 101 * SLOT);
        // Room for ten spare slots: ten, not the fifty half again would take.
        assert!(ListObj::push_unique(&mut l, Value::int(101), 10 * SLOT).is_ok());
        assert_eq!(l.items.capacity(), 112);
        assert_eq!(l.needed(10), 0);
        assert_eq!(l.needed(11), SLOT);
    }

    #[test]
    fn a_shared_list_is_not_changed_in_place() {
        let mut l = ListObj::new(ints(3));
        let other = l.clone();
        let before = live_bytes();
        assert!(ListObj::push_unique(&mut l, Value::int(3), usize::MAX).is_err());
        let one = ListObj::new(ints(1));
        assert!(!ListObj::append_unique(&mut l, &one, usize::MAX));
        assert!(!ListObj::prepend_unique(&mut l, &one, usize::MAX));
        assert!(!ListObj::drop_front_unique(&mut l, 1));
        assert_eq!(other.len(), 3);
        assert_eq!(live_bytes() - before, HEADER + SLOT);
        // A copy is charged for exactly its elements.
        let before = live_bytes();
        let copy = ListObj::appended(&l, one.iter());
        assert_eq!(live_bytes() - before, HEADER + 4 * SLOT);
        assert_eq!(
            copy.iter().filter_map(Value::as_int).collect::<Vec<_>>(),
            [0, 1, 2, 0]
        );
    }

    #[test]
    fn a_view_costs_its_header_and_moves_on_in_place_when_unique() {
        let l = ListObj::new(ints(5));
        let before = live_bytes();
        let mut v = ListObj::rest(&l, 1);
        assert_eq!(live_bytes() - before, HEADER);
        assert!(ListObj::drop_front_unique(&mut v, 2));
        assert_eq!(live_bytes() - before, HEADER);
        assert_eq!(
            v.iter().filter_map(Value::as_int).collect::<Vec<_>>(),
            [3, 4]
        );
        assert_eq!(
            (
                v.first().and_then(Value::as_int),
                v.last().and_then(Value::as_int)
            ),
            (Some(3), Some(4))
        );
        // Past the end: empty, never out of range.
        assert!(ListObj::drop_front_unique(&mut v, 10));
        assert!(v.is_empty());
        assert!(v.last().is_none());
        // A view of a view shows the first list.
        let w = ListObj::rest(&v, 1);
        assert!(w.viewed().is_some_and(|(root, _)| Rc::ptr_eq(root, &l)));
        // A view nothing else holds takes elements of its own at its end.
        let mut w2 = ListObj::rest(&l, 3);
        assert!(ListObj::push_unique(&mut w2, Value::int(9), usize::MAX).is_ok());
        assert!(w2.viewed().is_none());
        assert_eq!(
            w2.iter().filter_map(Value::as_int).collect::<Vec<_>>(),
            [3, 4, 9]
        );
        drop((v, w, w2));
        assert_eq!(live_bytes(), before);
    }

    #[test]
    fn a_unique_list_walked_from_the_front_frees_what_it_walked() {
        let mut l = ListObj::new((0..4).map(|i| Value::str(format!("s{i}"))).collect());
        let before = live_bytes();
        assert!(ListObj::drop_front_unique(&mut l, 1));
        // The string dropped gives back its charge; the array keeps its
        // slots (and their charge) until the list goes.
        assert_eq!(before - live_bytes(), HEADER + 2);
        assert_eq!(l.len(), 3);
        assert!(ListObj::drop_front_unique(&mut l, 2));
        assert_eq!(l.first().and_then(Value::as_str), Some("s3"));
        assert!(l.get(1).is_none());
    }

    #[test]
    fn in_place_appends_at_either_end_keep_the_order() {
        let mut l = ListObj::new(ints(2));
        let extra = ListObj::new(vec![Value::int(7), Value::int(8)]);
        assert!(ListObj::append_unique(&mut l, &extra, usize::MAX));
        assert!(ListObj::prepend_unique(&mut l, &extra, usize::MAX));
        let got: Vec<i64> = l.iter().filter_map(Value::as_int).collect();
        assert_eq!(got, [7, 8, 0, 1, 7, 8]);
        assert_eq!(
            l.range(1, 3).filter_map(Value::as_int).collect::<Vec<_>>(),
            [8, 0]
        );
        assert_eq!(l.range(5, 100).count(), 1);
        assert_eq!(l.range(9, 100).count(), 0);
        assert_eq!(l.charged, HEADER + l.items.capacity() * SLOT);
    }

    #[test]
    fn a_list_nested_a_million_deep_is_dropped_without_recursion() {
        let before = live_bytes();
        let mut v = Value::list([]);
        for _ in 0..1_000_000 {
            v = Value::list([v]);
        }
        drop(v);
        assert_eq!(live_bytes(), before);
    }

    #[test]
    fn a_growth_without_room_for_spare_slots_counts_its_moves() {
        let l = ListObj::new(ints(100));
        // Full: growing moves the 100; with room for 50 spare slots that
        // is paid for by the growth, with less it is not.
        assert_eq!(l.tight_moves(1, 50 * SLOT), 0);
        assert_eq!(l.tight_moves(1, 49 * SLOT), 100);
        assert_eq!(l.tight_moves(1, 0), 100);
        // Nothing moves where there is room already.
        let mut l = ListObj::new(ints(100));
        assert!(ListObj::push_unique(&mut l, Value::int(100), usize::MAX).is_ok());
        assert_eq!(l.tight_moves(1, 0), 0);
    }

    #[test]
    fn skipping_into_a_list_jumps_rather_than_walks() {
        // A base of 100 from 10 on (90 shown), then 5 of its own.
        let big = ListObj::new(ints(100));
        let view = ListObj::rest(&big, 10);
        let a = ListObj::appended(&view, ints(5).iter());
        fn ints_of<'a>(it: impl Iterator<Item = &'a Value>) -> Vec<i64> {
            it.filter_map(Value::as_int).collect()
        }
        for (n, first) in [
            (0, Some(10)),
            (89, Some(99)),
            (90, Some(0)),
            (94, Some(4)),
            (95, None),
        ] {
            assert_eq!(a.iter().nth(n).and_then(Value::as_int), first, "nth({n})");
        }
        assert_eq!(ints_of(a.iter().skip(88)), [98, 99, 0, 1, 2, 3, 4]);
        assert_eq!(ints_of(a.iter().skip(92)), [2, 3, 4]);
        let mut it = a.iter();
        assert_eq!(it.nth(91).and_then(Value::as_int), Some(1));
        assert_eq!(it.len(), 3);
        assert!(it.nth(usize::MAX).is_none());
        // The copy `rest` makes of it starts where asked.
        assert_eq!(ints_of(ListObj::rest(&a, 93).iter()), [3, 4]);
    }

    #[test]
    fn adding_to_a_long_shared_list_shares_it() {
        let big = ListObj::new(ints(1000));
        let before = live_bytes();
        // Charged for the new element only: the thousand are `big`'s.
        assert_eq!(big.append_copies(1), 1);
        let mut a = ListObj::appended(&big, [Value::int(-1)].iter());
        assert_eq!(live_bytes() - before, HEADER + SLOT);
        assert_eq!(a.len(), 1001);
        assert_eq!(a.get(1000).and_then(Value::as_int), Some(-1));
        assert_eq!(a.last().and_then(Value::as_int), Some(-1));
        assert_eq!(a.iter().rev().nth(1).and_then(Value::as_int), Some(999));
        // Adding to that again while it is shared copies its own elements.
        let held = a.clone();
        assert_eq!(a.append_copies(1), 2);
        let b = ListObj::appended(&a, [Value::int(-2)].iter());
        assert_eq!(
            b.iter()
                .skip(999)
                .filter_map(Value::as_int)
                .collect::<Vec<_>>(),
            [999, -1, -2]
        );
        // The rest of it is a copy of the elements left, not a view.
        assert_eq!(a.rest_copies(998), 3);
        let r = ListObj::rest(&a, 998);
        assert!(r.viewed().is_none());
        assert_eq!(
            r.iter().filter_map(Value::as_int).collect::<Vec<_>>(),
            [998, 999, -1]
        );
        drop(held);
        // Walked in place past the shared part, `big` is let go.
        assert!(ListObj::drop_front_unique(&mut a, 1000));
        assert_eq!(Rc::strong_count(&big), 2);
        assert_eq!(a.iter().filter_map(Value::as_int).collect::<Vec<_>>(), [-1]);
        drop((a, b, r));
        assert_eq!(Rc::strong_count(&big), 1);
        assert_eq!(live_bytes(), before);
        // A short shared list is copied.
        let small = ListObj::new(ints(3));
        assert_eq!(small.append_copies(1), 4);
        let c = ListObj::appended(&small, [Value::int(3)].iter());
        assert!(c.viewed().is_none());
        assert_eq!(c.len(), 4);
    }
}
