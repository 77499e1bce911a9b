//! Counting the ops a run executes, and the pairs of ops that follow each
//! other, for finding what to fuse or make cheaper (`--features
//! op-stats`; the `op_stats` example prints them for a program). Not
//! built otherwise: the step loop's code is the same without the feature.
//!
//! Invariant: counts are per thread and only grow until [`take`] empties
//! them; the pair counted at an op is (the op before it on this thread,
//! the op), so a pair may span a call, a return or a resume, as the
//! loop runs them.

use std::cell::RefCell;
use std::collections::HashMap;
use std::mem::Discriminant;

use crate::code::Op;

#[derive(Default)]
struct Counts {
    names: HashMap<Discriminant<Op>, String>,
    ops: HashMap<Discriminant<Op>, u64>,
    pairs: HashMap<(Discriminant<Op>, Discriminant<Op>), u64>,
    last: Option<Discriminant<Op>>,
}

thread_local! {
    static COUNTS: RefCell<Counts> = RefCell::new(Counts::default());
}

/// Count `op`, run now.
pub(super) fn count(op: &Op) {
    let d = std::mem::discriminant(op);
    COUNTS.with(|c| {
        let mut c = c.borrow_mut();
        c.names.entry(d).or_insert_with(|| {
            let text = format!("{op:?}");
            text.split('(').next().unwrap_or_default().to_string()
        });
        *c.ops.entry(d).or_default() += 1;
        if let Some(prev) = c.last {
            *c.pairs.entry((prev, d)).or_default() += 1;
        }
        c.last = Some(d);
    });
}

/// Each op's name and how many times it ran.
pub type OpCounts = Vec<(String, u64)>;
/// Each pair's names (the op before, the op) and how many times it ran.
pub type PairCounts = Vec<((String, String), u64)>;

/// What this thread's runs executed since the last call: each op's name
/// and count, and each pair's names and count, the largest counts first.
pub fn take() -> (OpCounts, PairCounts) {
    COUNTS.with(|c| {
        let c = std::mem::take(&mut *c.borrow_mut());
        let name = |d: &Discriminant<Op>| c.names.get(d).cloned().unwrap_or_default();
        let mut ops: Vec<_> = c.ops.iter().map(|(d, n)| (name(d), *n)).collect();
        let mut pairs: Vec<_> = c
            .pairs
            .iter()
            .map(|((a, b), n)| ((name(a), name(b)), *n))
            .collect();
        ops.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        pairs.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        (ops, pairs)
    })
}

#[cfg(test)]
mod tests {
    use crate::code::Op;

    #[test]
    fn ops_and_pairs_are_counted_by_kind() {
        let _ = super::take();
        for op in [Op::Int(1), Op::Int(2), Op::Pop, Op::Int(3), Op::Pop] {
            super::count(&op);
        }
        let (ops, pairs) = super::take();
        assert_eq!(ops, vec![("Int".to_string(), 3), ("Pop".to_string(), 2)]);
        assert_eq!(
            pairs,
            vec![
                (("Int".to_string(), "Pop".to_string()), 2),
                (("Int".to_string(), "Int".to_string()), 1),
                (("Pop".to_string(), "Int".to_string()), 1),
            ]
        );
        assert_eq!(super::take(), (vec![], vec![]));
    }
}
