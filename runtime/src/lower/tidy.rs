//! The last pass over a function's code: jumps threaded, blocks put
//! where the only jump to them was, and what no path reaches dropped.
//!
//! Invariant: no op's successor changes. A jump to a jump goes where that
//! one goes; a jump to an op that ends the frame wherever it stands (a
//! return, a failed match) becomes a copy of it; a block moves only when
//! nothing falls into it and it ends its own path; an op is dropped only
//! when no jump and no fall-through reaches it. Every target is remapped.

use super::peephole::install;
use crate::code::{Function, Op};

/// Drop the ops no path from the function's start reaches (the copies
/// a `match` leaf jumps over when its arm binds in place, the tests a
/// complete signature left without a way in) and the jumps to the op
/// that follows once those are gone, after threading jumps and putting
/// blocks in their place ([`place_blocks`]). Run last: every jump target
/// is remapped, and only ops that never go on to the next one end a path
/// ([`Op::ends`]), so an op is dropped only when no jump and no
/// fall-through leads to it.
pub(super) fn tidy(f: &mut Function) {
    let n = f.ops.len();
    // A jump to a jump goes to where that one goes; a jump to an op that
    // ends the frame or the run wherever it stands (a return, a failed
    // match) becomes a copy of it, with its span. From the end back, so
    // a chain of forward jumps is followed one hop at a time (each later
    // one already goes where the chain ends).
    for i in (0..n).rev() {
        let Some(Op::Jump(mut t)) = f.ops.get(i).copied() else {
            continue;
        };
        let mut hops = 0;
        while let Some(Op::Jump(u)) = f.ops.get(t as usize).copied()
            && hops < n
        {
            t = u;
            hops += 1;
        }
        let end = f.ops.get(t as usize).copied().filter(|op| {
            matches!(
                op,
                Op::Return | Op::ReturnLocal(_) | Op::ReturnArith(_) | Op::NoMatch
            )
        });
        let span = f.spans.get(t as usize).copied();
        if let (Some(op), Some(at)) = (f.ops.get_mut(i), f.spans.get_mut(i)) {
            match (end, span) {
                (Some(end), Some(span)) => {
                    *op = end;
                    *at = span;
                }
                _ => *op = Op::Jump(t),
            }
        }
    }
    place_blocks(f);
    let n = f.ops.len();
    let mut reached = vec![false; n];
    let mut work = vec![0usize];
    while let Some(i) = work.pop() {
        let (Some(seen), Some(op)) = (reached.get_mut(i), f.ops.get(i)) else {
            continue;
        };
        if *seen {
            continue;
        }
        *seen = true;
        if let Some(t) = op.target() {
            work.push(t as usize);
        }
        if !op.ends() {
            work.push(i + 1);
        }
    }
    // A jump over nothing but dropped ops is dropped too.
    let mut keep = reached.clone();
    for (i, op) in f.ops.iter().enumerate() {
        if let Op::Jump(t) = *op
            && (t as usize) > i
            && reached
                .get(i + 1..t as usize)
                .is_some_and(|s| s.iter().all(|r| !r))
            && let Some(k) = keep.get_mut(i)
        {
            *k = false;
        }
    }
    if keep.iter().all(|k| *k) {
        return;
    }
    let mut map = Vec::with_capacity(n + 1);
    let mut ops = Vec::with_capacity(n);
    let mut spans = Vec::with_capacity(n);
    for (i, op) in f.ops.iter().enumerate() {
        map.push(ops.len() as u32);
        if keep.get(i).copied().unwrap_or(true) {
            ops.push(*op);
            spans.push(f.spans.get(i).copied().unwrap_or_default());
        }
    }
    map.push(ops.len() as u32);
    install(f, ops, spans, &map);
}

/// Put a block that only a jump leads into (no op falls into it) where
/// the jump is, in its place: `Jump(t)` at `i`, and the ops from `t`
/// through the first that ends its path, when the op before `t` ends its
/// path too and `t` is not the function's start. Nothing falls into or
/// out of such a block, so moving it changes no op's successor; the jump
/// is gone, and every target (into the block too) is remapped. A block
/// moves once, and a jump inside a block that moves stays a jump.
fn place_blocks(f: &mut Function) {
    let n = f.ops.len();
    // For each op the block that takes its place (a jump's), and the
    // ops that leave their place to join one.
    let mut takes: Vec<Option<(usize, usize)>> = vec![None; n];
    let mut moved = vec![false; n];
    for i in 0..n {
        let Some(&Op::Jump(t)) = f.ops.get(i) else {
            continue;
        };
        let t = t as usize;
        // A block already moved (another jump to it) is not scanned again:
        // the blocks scanned start after an op that ends its path and end
        // at the next such op, so they do not overlap, and the pass is
        // linear in the function's length.
        if t == 0 || moved.get(i).copied().unwrap_or(true) || moved.get(t).copied().unwrap_or(true)
        {
            continue;
        }
        if !f.ops.get(t - 1).is_some_and(Op::ends) {
            continue;
        }
        let Some(end) = (t..n).find(|&k| f.ops.get(k).is_some_and(Op::ends)) else {
            continue;
        };
        let clear = (t..=end).all(|k| {
            !moved.get(k).copied().unwrap_or(true) && takes.get(k).is_some_and(Option::is_none)
        });
        if (t..=end).contains(&i) || !clear {
            continue;
        }
        if let Some(slot) = takes.get_mut(i) {
            *slot = Some((t, end));
        }
        for m in moved.iter_mut().take(end + 1).skip(t) {
            *m = true;
        }
    }
    if takes.iter().all(Option::is_none) {
        return;
    }
    let mut order = Vec::with_capacity(n);
    for i in 0..n {
        match takes.get(i).copied().flatten() {
            Some((t, end)) => order.extend(t..=end),
            None if !moved.get(i).copied().unwrap_or(false) => order.push(i),
            None => {}
        }
    }
    let mut map = vec![0u32; n + 1];
    for (new, &old) in order.iter().enumerate() {
        if let Some(m) = map.get_mut(old) {
            *m = new as u32;
        }
    }
    // A jump that gave its place to a block lands where the block starts.
    for (i, take) in takes.iter().enumerate() {
        if let Some((t, _)) = take {
            let at = map.get(*t).copied().unwrap_or(u32::MAX);
            if let Some(m) = map.get_mut(i) {
                *m = at;
            }
        }
    }
    if let Some(end) = map.get_mut(n) {
        *end = order.len() as u32;
    }
    let ops = order
        .iter()
        .filter_map(|&k| f.ops.get(k).copied())
        .collect();
    let spans = order
        .iter()
        .map(|&k| f.spans.get(k).copied().unwrap_or_default())
        .collect();
    install(f, ops, spans, &map);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::Arith;

    #[test]
    fn tidy_threads_jumps_and_drops_what_no_path_reaches() {
        // 1 jumps to a jump to a return: it becomes that return, with its
        // span, and the two are left unreached; 2-3 and 5 are reached by
        // nothing; 4 jumps over nothing but 5, so it goes too, and the
        // branch to it lands on 6.
        let span = |at: usize| writ_lang::Span::new(at, at + 1);
        let mut f = Function {
            ops: vec![
                Op::BranchLocalInt(0, Arith::Lt, 2, 4),
                Op::Jump(8),
                Op::Local(0),
                Op::SetLocal(1),
                Op::Jump(6),
                Op::Unit,
                Op::Int(1),
                Op::Return,
                Op::Jump(9),
                Op::ReturnLocal(0),
            ],
            spans: (0..10).map(span).collect(),
            ..Function::default()
        };
        tidy(&mut f);
        assert_eq!(
            f.ops,
            vec![
                Op::BranchLocalInt(0, Arith::Lt, 2, 2),
                Op::ReturnLocal(0),
                Op::Int(1),
                Op::Return,
            ]
        );
        // The copied return keeps the span of the one it copies.
        assert_eq!(f.spans.get(1), Some(&span(9)));
        // A loop of jumps ends (and is left a jump).
        let mut g = Function {
            ops: vec![Op::Jump(1), Op::Jump(0)],
            spans: vec![Default::default(); 2],
            ..Function::default()
        };
        tidy(&mut g);
        assert!(matches!(g.ops.first(), Some(Op::Jump(_))), "{:?}", g.ops);
    }

    #[test]
    fn a_block_only_a_jump_leads_into_takes_the_jump_s_place() {
        // 1 jumps to 4..5, which nothing falls into (3 returns): the block
        // takes 1's place and the branch into it follows it. 6 jumps back
        // to 0, the function's start, which stays where it is; 8 jumps to
        // the block that holds it (a loop), which stays too.
        let mut f = Function {
            ops: vec![
                Op::BranchLocalInt(0, Arith::Lt, 2, 4),
                Op::Jump(4),
                Op::Unit,
                Op::Return,
                Op::Local(0),
                Op::TailCallFunc(0, 1),
                Op::Jump(0),
                Op::Unit,
                Op::Jump(7),
            ],
            spans: vec![Default::default(); 9],
            ..Function::default()
        };
        place_blocks(&mut f);
        assert_eq!(
            f.ops,
            vec![
                Op::BranchLocalInt(0, Arith::Lt, 2, 1),
                Op::Local(0),
                Op::TailCallFunc(0, 1),
                Op::Unit,
                Op::Return,
                Op::Jump(0),
                Op::Unit,
                Op::Jump(6),
            ]
        );
    }
}
