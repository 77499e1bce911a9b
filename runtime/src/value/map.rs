//! A map's entries: a sorted array while the map is small, a persistent
//! tree (imbl's `OrdMap`) once it grows past [`SMALL`] entries.
//!
//! Most maps a program holds are small: a decoded JSON object, a record
//! of options, a group of a few keys. A tree spends a node of fixed size
//! on each (hundreds of bytes for three entries); the array spends 32
//! bytes an entry. Changing a shared small map copies at most [`SMALL`]
//! entries, which is what a tree's path copy costs for a map of one node
//! anyway.
//!
//! Invariants: the array's keys are strictly increasing under
//! [`super::compare`] (found by binary search with the same order the
//! tree uses, so the two forms hold the same maps); an array never holds
//! more than [`SMALL`] entries (an insert past it moves the entries into
//! a tree); which form a map has is invisible to programs: equality,
//! order, display and iteration see the entries in key order either way.

use std::slice;

use super::{Key, Value};

/// The most entries a map keeps as a sorted array.
pub(crate) const SMALL: usize = 32;

/// A map's entries, in ascending key order.
#[derive(Clone, Debug)]
pub(crate) enum Entries {
    /// At most [`SMALL`] entries, keys strictly increasing.
    Small(Vec<(Key, Value)>),
    /// More than [`SMALL`] entries (or once more: a large map that
    /// shrinks stays a tree).
    Large(imbl::OrdMap<Key, Value>),
}

impl Default for Entries {
    fn default() -> Self {
        Entries::Small(Vec::new())
    }
}

impl Entries {
    /// No entries.
    pub(crate) fn new() -> Self {
        Entries::default()
    }

    /// The number of entries.
    pub(crate) fn len(&self) -> usize {
        match self {
            Entries::Small(v) => v.len(),
            Entries::Large(m) => m.len(),
        }
    }

    /// Whether there are none.
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value at `key`, if there is one.
    pub(crate) fn get(&self, key: &Key) -> Option<&Value> {
        match self {
            Entries::Small(v) => v
                .binary_search_by(|(k, _)| k.cmp(key))
                .ok()
                .and_then(|i| v.get(i))
                .map(|(_, x)| x),
            Entries::Large(m) => m.get(key),
        }
    }

    /// Whether `key` has a value.
    pub(crate) fn contains_key(&self, key: &Key) -> bool {
        self.get(key).is_some()
    }

    /// Set `key` to `value`, replacing the value an equal key had.
    pub(crate) fn insert(&mut self, key: Key, value: Value) {
        match self {
            Entries::Small(v) => match v.binary_search_by(|(k, _)| k.cmp(&key)) {
                Ok(i) => {
                    if let Some(slot) = v.get_mut(i) {
                        slot.1 = value;
                    }
                }
                Err(i) if v.len() < SMALL => v.insert(i, (key, value)),
                Err(_) => {
                    let mut m: imbl::OrdMap<Key, Value> = v.drain(..).collect();
                    m.insert(key, value);
                    *self = Entries::Large(m);
                }
            },
            Entries::Large(m) => {
                m.insert(key, value);
            }
        }
    }

    /// A copy of these entries with `key` set to `value`. A small map's
    /// copy has exactly the room it needs.
    pub(crate) fn inserted(&self, key: Key, value: Value) -> Self {
        match self {
            Entries::Small(v) if v.len() < SMALL => {
                let at = v.binary_search_by(|(k, _)| k.cmp(&key));
                let mut out = Vec::with_capacity(v.len() + usize::from(at.is_err()));
                match at {
                    Ok(i) => {
                        out.extend(v.iter().take(i).cloned());
                        out.push((key, value));
                        out.extend(v.iter().skip(i + 1).cloned());
                    }
                    Err(i) => {
                        out.extend(v.iter().take(i).cloned());
                        out.push((key, value));
                        out.extend(v.iter().skip(i).cloned());
                    }
                }
                Entries::Small(out)
            }
            _ => {
                let mut out = self.clone();
                out.insert(key, value);
                out
            }
        }
    }

    /// A copy of these entries without `key`'s. A small map's copy has
    /// exactly the room it needs.
    pub(crate) fn removed(&self, key: &Key) -> Self {
        match self {
            Entries::Small(v) => match v.binary_search_by(|(k, _)| k.cmp(key)) {
                Ok(i) => {
                    let mut out = Vec::with_capacity(v.len() - 1);
                    out.extend(v.iter().take(i).cloned());
                    out.extend(v.iter().skip(i + 1).cloned());
                    Entries::Small(out)
                }
                Err(_) => self.clone(),
            },
            Entries::Large(m) => Entries::Large(m.without(key)),
        }
    }

    /// Give back an array's spare room (after building one entry by
    /// entry).
    pub(crate) fn shrink_to_fit(&mut self) {
        if let Entries::Small(v) = self {
            v.shrink_to_fit();
        }
    }

    /// The entries, in ascending key order.
    pub(crate) fn iter(&self) -> Iter<'_> {
        match self {
            Entries::Small(v) => Iter::Small(v.iter()),
            Entries::Large(m) => Iter::Large(m.iter()),
        }
    }

    /// The keys, in ascending order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &Key> {
        self.iter().map(|(k, _)| k)
    }

    /// The values, in the order of their keys.
    pub(crate) fn values(&self) -> impl Iterator<Item = &Value> {
        self.iter().map(|(_, v)| v)
    }
}

impl FromIterator<(Key, Value)> for Entries {
    /// The entries in turn; a later entry for an equal key replaces an
    /// earlier one.
    fn from_iter<I: IntoIterator<Item = (Key, Value)>>(entries: I) -> Self {
        let mut out = Entries::new();
        for (k, v) in entries {
            out.insert(k, v);
        }
        out.shrink_to_fit();
        out
    }
}

/// The entries of a map, in ascending key order.
pub(crate) enum Iter<'a> {
    /// Of an array.
    Small(slice::Iter<'a, (Key, Value)>),
    /// Of a tree.
    Large(imbl::ordmap::Iter<'a, Key, Value, imbl::shared_ptr::DefaultSharedPtr>),
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a Key, &'a Value);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Iter::Small(i) => i.next().map(|(k, v)| (k, v)),
            Iter::Large(i) => i.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Iter::Small(i) => i.size_hint(),
            Iter::Large(i) => i.size_hint(),
        }
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        match self {
            Iter::Small(i) => i.next_back().map(|(k, v)| (k, v)),
            Iter::Large(i) => i.next_back(),
        }
    }
}

impl ExactSizeIterator for Iter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: i64) -> Key {
        Key(Value::int(n))
    }

    fn keys(e: &Entries) -> Vec<i64> {
        e.keys().filter_map(|k| k.0.as_int()).collect()
    }

    #[test]
    fn an_array_and_a_tree_hold_the_same_map() {
        // Inserted in a scrambled order, past the array's size and back.
        let order: Vec<i64> = (0..100).map(|i| (i * 37) % 100).collect();
        let mut e = Entries::new();
        let mut tree = imbl::OrdMap::new();
        for (n, &k) in order.iter().enumerate() {
            e.insert(key(k), Value::int(n as i64));
            tree.insert(key(k), Value::int(n as i64));
            assert_eq!(e.len(), tree.len());
            assert_eq!(matches!(e, Entries::Small(_)), e.len() <= SMALL);
        }
        assert_eq!(keys(&e), (0..100).collect::<Vec<_>>());
        for k in 0..100 {
            assert_eq!(
                e.get(&key(k)).and_then(Value::as_int),
                tree.get(&key(k)).and_then(Value::as_int)
            );
        }
    }

    #[test]
    fn a_later_entry_for_an_equal_key_replaces_the_earlier() {
        let e: Entries = [
            (key(2), Value::int(1)),
            (key(1), Value::int(2)),
            (key(2), Value::int(3)),
        ]
        .into_iter()
        .collect();
        assert_eq!(keys(&e), vec![1, 2]);
        assert_eq!(e.get(&key(2)).and_then(Value::as_int), Some(3));
        let copy = e.inserted(key(1), Value::int(9));
        assert_eq!(copy.get(&key(1)).and_then(Value::as_int), Some(9));
        assert_eq!(e.get(&key(1)).and_then(Value::as_int), Some(2));
    }

    #[test]
    fn copies_have_exactly_the_room_they_need() {
        let e: Entries = (0..10).map(|k| (key(k * 2), Value::unit())).collect();
        let room = |e: &Entries| match e {
            Entries::Small(v) => v.capacity(),
            Entries::Large(_) => usize::MAX,
        };
        assert_eq!(room(&e), 10);
        assert_eq!(room(&e.inserted(key(5), Value::unit())), 11);
        assert_eq!(room(&e.inserted(key(4), Value::unit())), 10);
        assert_eq!(room(&e.removed(&key(4))), 9);
        assert_eq!(room(&e.removed(&key(5))), 10);
        assert_eq!(
            keys(&e.removed(&key(0))),
            vec![2, 4, 6, 8, 10, 12, 14, 16, 18]
        );
        assert_eq!(keys(&e.inserted(key(19), Value::unit())).last(), Some(&19));
    }

    #[test]
    fn a_full_array_copied_with_one_more_becomes_a_tree() {
        let e: Entries = (0..SMALL as i64).map(|k| (key(k), Value::unit())).collect();
        assert!(matches!(e, Entries::Small(_)));
        let more = e.inserted(key(-1), Value::unit());
        assert!(matches!(more, Entries::Large(_)));
        assert_eq!(keys(&more).first(), Some(&-1));
        assert_eq!(more.len(), SMALL + 1);
        // Replacing a value in a full array adds nothing: it stays one.
        let replaced = e.inserted(key(0), Value::int(1));
        assert!(matches!(replaced, Entries::Small(_)));
        assert_eq!(replaced.get(&key(0)).and_then(Value::as_int), Some(1));
    }
}
