//! Sorting under the work meter: a stable merge sort whose comparisons
//! may stop when a limit is exhausted.
//!
//! The standard library's sort requires a comparison that stays a total
//! order; one cut short by the meter does not, so the merging is done
//! here, where a cut-short comparison is harmless (the result is
//! discarded and the limit reported). Runs of cheap keys (scalars, short
//! strings) are first sorted by the standard library in blocks of
//! [`BLOCK`], with the block's comparisons charged before it starts and
//! made without the meter, so no comparison there can be cut short.

use std::cmp::Ordering;

use super::Cx;
use crate::error::RunError;
use crate::order::{compare_cheap, is_cheap};
use crate::value::{self, Repr, Value};

/// The length of the blocks of cheap keys sorted without polling.
const BLOCK: usize = 2048;

/// The order that sorts `keys` stably (indices into `keys`), charging
/// the comparisons to the run's meter; `Err` with the exhausted limit.
pub(super) fn sorted_order(cx: &Cx, keys: &[&Value]) -> Result<Vec<usize>, RunError> {
    let n = keys.len();
    cx.reserve(n.saturating_mul(2 * std::mem::size_of::<usize>()))?;
    cx.tick(n as u64)?;
    let key = |i: usize| keys.get(i).copied().unwrap_or(&Value(Repr::Unit));
    let cheap = keys.iter().all(|k| is_cheap(k));
    let mut order: Vec<usize> = (0..n).collect();
    let mut width = 1;
    if cheap {
        for block in order.chunks_mut(BLOCK) {
            let len = block.len() as u64;
            cx.tick(2 * len * (u64::from(len.max(1).ilog2()) + 1))?;
            block.sort_by(|&a, &b| compare_cheap(key(a), key(b)));
        }
        width = BLOCK;
    }
    let meter = cx.meter();
    let mut before = |a: usize, b: usize| {
        let o = if cheap {
            meter.charge(2);
            compare_cheap(key(a), key(b))
        } else {
            value::compare(key(a), key(b))
        };
        o == Ordering::Less
    };
    let mut spare = Vec::with_capacity(n);
    while width < n {
        merge_pass(&order, &mut spare, width, &mut before);
        std::mem::swap(&mut order, &mut spare);
        cx.tick(1)?;
        width = width.saturating_mul(2);
    }
    Ok(order)
}

/// Merge the sorted runs of `width` in `src` pairwise into `dst`; on a
/// tie the element of the left run goes first (stability).
fn merge_pass(
    src: &[usize],
    dst: &mut Vec<usize>,
    width: usize,
    before: &mut impl FnMut(usize, usize) -> bool,
) {
    dst.clear();
    for pair in src.chunks(width.saturating_mul(2)) {
        let (left, right) = pair.split_at(width.min(pair.len()));
        let (mut i, mut j) = (0, 0);
        while let (Some(&x), Some(&y)) = (left.get(i), right.get(j)) {
            if before(y, x) {
                dst.push(y);
                j += 1;
            } else {
                dst.push(x);
                i += 1;
            }
        }
        dst.extend_from_slice(left.get(i..).unwrap_or(&[]));
        dst.extend_from_slice(right.get(j..).unwrap_or(&[]));
    }
}

/// The indices of the first of each group of equal keys, in `keys`'
/// order (what `list.unique` keeps).
pub(super) fn firsts(cx: &Cx, keys: &[&Value]) -> Result<Vec<bool>, RunError> {
    let order = sorted_order(cx, keys)?;
    let mut keep = vec![false; keys.len()];
    let mut last: Option<&Value> = None;
    for &i in &order {
        let Some(&k) = keys.get(i) else { continue };
        let new = last.is_none_or(|l| value::compare(l, k) != Ordering::Equal);
        if new && let Some(slot) = keep.get_mut(i) {
            *slot = true;
        }
        last = Some(k);
    }
    cx.tick(1)?;
    Ok(keep)
}
