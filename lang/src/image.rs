//! The standard library's prepared state (decision 014), as
//! `writ-lang`'s checker and `writ-runtime`'s lowerer both keep it:
//! writing and reading their build-time images, and keeping a copy with
//! each of the last few sets of an embedder's capability interfaces. Not
//! part of the language's interface (hidden from its docs).
//!
//! Invariants: the same value writes the same bytes (every map and set is
//! written in key order, never in a hash map's order), and bytes are read
//! as an image only when all of them are one (a truncated image, or one
//! with bytes after its end, reads as nothing). At most
//! [`KEPT_INTERFACE_SETS`] sets of interfaces are kept.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use serde::de::DeserializeOwned;
use serde::{Serialize, Serializer};

/// Write a map with its entries in key order (the same map, the same
/// bytes).
pub fn sorted<K, V, H, S>(map: &HashMap<K, V, H>, serializer: S) -> Result<S::Ok, S::Error>
where
    K: Ord + Serialize,
    V: Serialize,
    S: Serializer,
{
    serializer.collect_map(map.iter().collect::<BTreeMap<&K, &V>>())
}

/// [`sorted`], for a map shared between copies.
pub fn sorted_shared<K, V, S>(map: &Arc<HashMap<K, V>>, serializer: S) -> Result<S::Ok, S::Error>
where
    K: Ord + Serialize,
    V: Serialize,
    S: Serializer,
{
    sorted(map, serializer)
}

/// Write a (shared) map of maps with the entries of each in key order.
pub fn sorted_nested<K, J, V, S>(
    map: &Arc<HashMap<K, HashMap<J, V>>>,
    serializer: S,
) -> Result<S::Ok, S::Error>
where
    K: Ord + Serialize,
    J: Ord + Serialize,
    V: Serialize,
    S: Serializer,
{
    serializer.collect_map(
        map.iter()
            .map(|(k, inner)| (k, inner.iter().collect::<BTreeMap<&J, &V>>()))
            .collect::<BTreeMap<_, _>>(),
    )
}

/// Write a set with its elements in order.
pub fn sorted_set<T, H, S>(set: &HashSet<T, H>, serializer: S) -> Result<S::Ok, S::Error>
where
    T: Ord + Serialize,
    S: Serializer,
{
    let mut all: Vec<&T> = set.iter().collect();
    all.sort();
    serializer.collect_seq(all)
}

/// An image's value, if `bytes` are exactly one: `None` for bytes that do
/// not read, and for bytes left over after a value that does.
pub fn read<T: DeserializeOwned>(bytes: &[u8]) -> Option<T> {
    match postcard::take_from_bytes::<T>(bytes) {
        Ok((value, [])) => Some(value),
        _ => None,
    }
}

/// How many sets of interfaces a [`WithInterfaces`] keeps.
pub const KEPT_INTERFACE_SETS: usize = 8;

/// The library's state with each of the last [`KEPT_INTERFACE_SETS`] sets
/// of an embedder's interfaces declared on top, made once per set.
pub struct WithInterfaces<T> {
    sets: Mutex<Vec<(Vec<String>, T)>>,
}

impl<T: Clone> WithInterfaces<T> {
    /// None kept yet.
    pub const fn new() -> Self {
        WithInterfaces {
            sets: Mutex::new(Vec::new()),
        }
    }

    /// A copy of the state kept for `interfaces`, or of the one `make`
    /// makes now (kept in place of the oldest when the cache is full). The
    /// lock is held while making, so a set is made once.
    pub fn get<E>(
        &self,
        interfaces: &[String],
        make: impl FnOnce() -> Result<T, E>,
    ) -> Result<T, E> {
        // A thread that panicked while copying left the cache as it was.
        let mut sets = self.sets.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, kept)) = sets.iter().find(|(k, _)| k.as_slice() == interfaces) {
            return Ok(kept.clone());
        }
        let made = make()?;
        if sets.len() >= KEPT_INTERFACE_SETS {
            sets.remove(0);
        }
        sets.push((interfaces.to_vec(), made.clone()));
        Ok(made)
    }
}

impl<T: Clone> Default for WithInterfaces<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// The image `make` writes, if it is stable: made twice it is the same
/// bytes (nothing in it follows a hash map's order), and it reads back to
/// a value that writes the same bytes again. What each crate's tests ask
/// of its image.
pub fn stable<T: Serialize + DeserializeOwned>(
    make: impl Fn() -> Result<Vec<u8>, String>,
) -> Result<Vec<u8>, String> {
    let bytes = make()?;
    if bytes.is_empty() || make()? != bytes {
        return Err("two images of the same library differ".to_string());
    }
    let read = read::<T>(&bytes).ok_or("the image does not read back")?;
    match postcard::to_stdvec(&read) {
        Ok(again) if again == bytes => Ok(bytes),
        _ => Err("the image read back writes other bytes".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Table {
        #[serde(serialize_with = "sorted")]
        names: HashMap<String, u32>,
        #[serde(serialize_with = "sorted_set")]
        seen: HashSet<u32>,
    }

    #[test]
    fn the_same_table_writes_the_same_bytes_whatever_its_order() {
        let bytes = |order: &[u32]| {
            let t = Table {
                names: order.iter().map(|&n| (format!("n{n}"), n)).collect(),
                seen: order.iter().copied().collect(),
            };
            postcard::to_stdvec(&t).unwrap_or_default()
        };
        let a = bytes(&[1, 2, 3, 4, 5, 6, 7, 8]);
        assert!(!a.is_empty());
        assert_eq!(a, bytes(&[8, 7, 6, 5, 4, 3, 2, 1]));
        assert_eq!(a, bytes(&[5, 1, 8, 3, 7, 2, 6, 4]));
    }

    #[test]
    fn only_bytes_that_are_exactly_one_image_read() {
        let bytes = postcard::to_stdvec(&(7u32, "seven".to_string())).unwrap_or_default();
        assert_eq!(
            read::<(u32, String)>(&bytes),
            Some((7, "seven".to_string()))
        );
        // Cut short anywhere: nothing.
        for cut in 0..bytes.len() {
            assert_eq!(read::<(u32, String)>(&bytes[..cut]), None, "cut at {cut}");
        }
        // A byte after the end: nothing.
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(read::<(u32, String)>(&longer), None);
    }

    #[test]
    fn an_image_is_stable_only_if_made_alike_and_read_back_alike() {
        let seven = || postcard::to_stdvec(&7u32).map_err(|e| e.to_string());
        assert_eq!(stable::<u32>(seven), seven());
        // Two makings that differ.
        let n = std::cell::Cell::new(0u32);
        let counting = || {
            n.set(n.get() + 1);
            postcard::to_stdvec(&n.get()).map_err(|e| e.to_string())
        };
        assert!(stable::<u32>(counting).is_err());
        // Bytes that read as a value writing other bytes (a `u32` written
        // in more bytes than it needs).
        assert!(stable::<u32>(|| Ok(vec![0x81, 0x00])).is_err());
        // Bytes that do not read.
        assert!(stable::<String>(|| Ok(vec![0x05, b'a'])).is_err());
        // No bytes.
        assert!(stable::<()>(|| Ok(Vec::new())).is_err());
    }

    #[test]
    fn each_set_of_interfaces_is_made_once_and_the_oldest_let_go() {
        let cache: WithInterfaces<usize> = WithInterfaces::new();
        let made = std::cell::Cell::new(0);
        let get = |name: &str| {
            cache.get(&[name.to_string()], || {
                made.set(made.get() + 1);
                Ok::<_, ()>(made.get())
            })
        };
        assert_eq!(get("a"), Ok(1));
        assert_eq!(get("a"), Ok(1));
        for i in 0..KEPT_INTERFACE_SETS {
            let _ = get(&format!("other {i}"));
        }
        // `a` was the oldest: made again.
        assert_eq!(get("a"), Ok(KEPT_INTERFACE_SETS + 2));
        // A failed making keeps nothing.
        assert_eq!(
            cache.get(&["bad".to_string()], || Err::<usize, _>("no")),
            Err("no")
        );
        assert_eq!(get("bad"), Ok(KEPT_INTERFACE_SETS + 3));
    }
}
