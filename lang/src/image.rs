//! Writing and reading the standard library's images (decision 014):
//! what `writ-lang`'s checked image and `writ-runtime`'s lowered image
//! share. Not part of the language's interface (hidden from its docs).
//!
//! Invariants: the same value writes the same bytes (every map and set is
//! written in key order, never in a hash map's order), and bytes are read
//! as an image only when all of them are one (a truncated image, or one
//! with bytes after its end, reads as nothing).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

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
}
