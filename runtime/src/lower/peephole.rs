//! Fusing common op sequences into one op, so the machine dispatches less.
//!
//! `Local a; Int k; Arith op` becomes `LocalIntArith(a, k, op)`,
//! `Int k; Local a; Arith op` becomes `IntLocalArith(k, a, op)` (`2 * n`;
//! a comparison, `k < n`, becomes `LocalIntArith(a, k, >)`),
//! `Local a; Local b; Arith op` becomes `LocalLocalArith(a, b, op)` and
//! any other `Int k; Arith op` becomes `ArithInt(op, k)` (`f(x) % 3`);
//! then a comparison of those forms followed by `JumpIfFalse` becomes one
//! conditional branch (`BranchLocalInt`, `BranchLocalLocal`, `BranchInt`),
//! as does any other comparison followed by `JumpIfFalse` (`BranchArith`).
//! `List(1); Arith(Concat)` (`acc ++ [x]`) becomes `Push`, which adds the
//! element without making a list of one.
//! `LocalIntArith` followed by a call of a known function of one
//! argument becomes `CallFuncLocalInt` (`f(n - 1)`). After the liveness
//! pass, a part of a tuple, variant or record set into a local (`let (i,
//! j) = st`) becomes `PartLocal` (or `TakePartLocal` on the value's last
//! read), and a branch that only skips the return of a local or of a
//! constant becomes `ReturnLocalIf` (`if n < 2 { n } else { ... }`) or
//! `ReturnIntIf` (`if k == 0 { 0 } else { ... }`), and a constructor
//! test of a local read again afterwards (a `match` on a variable)
//! becomes `TestCtorLocal`, which reads it in its slot. (After these,
//! `super::tidy` threads jumps, moves blocks and drops what no path
//! reaches.)
//! A sequence is fused only when no jump lands inside it; every jump
//! target is then remapped to the new positions, and the fused op keeps
//! the span of the operator (where an overflow is reported).

use crate::code::{Arith, Function, Op};

/// Fuse op sequences in one function.
pub(super) fn fuse(f: &mut Function) {
    fuse_with(f, 3, 2, &|_, w| match w {
        [Op::Local(a), Op::Int(k), Op::Arith(op)] => i32::try_from(*k)
            .ok()
            .map(|k| Op::LocalIntArith(*a, k, *op)),
        [Op::Local(a), Op::Local(b), Op::Arith(op)] => Some(Op::LocalLocalArith(*a, *b, *op)),
        // `k < n` is `n > k` (a comparison of two `Int`s cannot fail), so
        // it fuses as `LocalIntArith` does, into a branch too; `2 * n`
        // keeps its order, which an overflow's message shows.
        [Op::Int(k), Op::Local(a), Op::Arith(op)] if *op != Arith::Concat => {
            let k = i32::try_from(*k).ok()?;
            Some(match flipped(*op) {
                Some(cmp) => Op::LocalIntArith(*a, k, cmp),
                None => Op::IntLocalArith(k, *a, *op),
            })
        }
        _ => None,
    });
    fuse_with(f, 2, 1, &|_, w| match w {
        [Op::List(1), Op::Arith(Arith::Concat)] => Some(Op::Push),
        [Op::Int(k), Op::Arith(op)] if *op != Arith::Concat => Some(Op::ArithInt(*op, *k)),
        _ => None,
    });
    fuse_with(f, 2, 0, &|_, w| match w {
        [Op::LocalIntArith(a, k, op), Op::JumpIfFalse(t)] if is_comparison(*op) => {
            u16::try_from(*a)
                .ok()
                .map(|a| Op::BranchLocalInt(a, *op, *k, *t))
        }
        [Op::LocalLocalArith(a, b, op), Op::JumpIfFalse(t)] if is_comparison(*op) => {
            match (u16::try_from(*a), u16::try_from(*b)) {
                (Ok(a), Ok(b)) => Some(Op::BranchLocalLocal(a, b, *op, *t)),
                _ => None,
            }
        }
        [Op::Arith(op), Op::JumpIfFalse(t)] if is_comparison(*op) => Some(Op::BranchArith(*op, *t)),
        [Op::ArithInt(op, k), Op::JumpIfFalse(t)] if is_comparison(*op) => {
            Some(Op::BranchInt(*op, *k, *t))
        }
        _ => None,
    });
    // `f(n - 1)`: the argument made and the call in one op, which keeps
    // the call's span (where a stack trace shows the frame, and where an
    // overflow of the argument is reported).
    fuse_with(f, 2, 1, &|_, w| match w {
        [Op::LocalIntArith(a, k, op), Op::CallFunc(g, 1)] => u16::try_from(*a)
            .ok()
            .map(|a| Op::CallFuncLocalInt(*g, a, *k, *op)),
        _ => None,
    });
}

/// A tail call of the function itself by its index (`index`), in a
/// function that captures nothing (so its frame has no closure), becomes
/// `TailCallSelf`: the frame already runs that function, so only its
/// locals are replaced (`TailCallFunc` also writes the frame's function
/// and closure). Run last, after every pass that looks for
/// `TailCallFunc`; the liveness pass's reading of `TailCallSelf` (a
/// closure naming itself keeps its captures) does not apply to a
/// function without captures.
pub(super) fn tail_calls_of_itself(f: &mut Function, index: usize) {
    if !f.captures.is_empty() {
        return;
    }
    for op in &mut f.ops {
        if let Op::TailCallFunc(g, n) = *op
            && g as usize == index
        {
            *op = Op::TailCallSelf(n);
        }
    }
}

/// The comparison that holds of `y` and `x` when `cmp` holds of `x` and
/// `y` (`None` for an operator that is not a comparison).
fn flipped(cmp: Arith) -> Option<Arith> {
    Some(match cmp {
        Arith::Lt => Arith::Gt,
        Arith::Le => Arith::Ge,
        Arith::Gt => Arith::Lt,
        Arith::Ge => Arith::Le,
        Arith::Eq => Arith::Eq,
        Arith::Ne => Arith::Ne,
        _ => return None,
    })
}

/// Fuse a local read followed by `Return` into `ReturnLocal`, an
/// operator followed by `Return` into `ReturnArith`, and the sequences a
/// list pattern makes into ops that work on locals in place: run after
/// the liveness pass (which turns a last read into `MoveLocal`), since a
/// returned local is read for the last time either way, and the list
/// ops fuse only a read that is not the last (`Local`, which leaves the
/// list in its slot as the fused op does) or a move (`MoveLocal`, which
/// the fused op also moves).
pub(super) fn fuse_after_moves(f: &mut Function) {
    // `x op captured` (`x > limit` in a closure), read in place: at the
    // operator's span, where an overflow is reported.
    fuse_with(f, 3, 2, &|_, w| {
        let (a, moved) = match w.first() {
            Some(Op::Local(a)) => (*a, false),
            Some(Op::MoveLocal(a)) => (*a, true),
            _ => return None,
        };
        let c = match w.get(1) {
            Some(Op::Capture(c) | Op::MoveCapture(c)) => *c,
            _ => return None,
        };
        let (a, c) = (u16::try_from(a).ok()?, u16::try_from(c).ok()?);
        match w.get(2) {
            Some(Op::Arith(op)) => Some(Op::LocalCaptureArith(a, c, *op, moved)),
            Some(Op::BranchArith(cmp, t)) => Some(Op::BranchLocalCapture(a, c, *cmp, moved, *t)),
            _ => None,
        }
    });
    fuse_with(f, 2, 0, &|_, w| match w {
        [Op::Local(a) | Op::MoveLocal(a), Op::Return] => Some(Op::ReturnLocal(*a)),
        [Op::Arith(op), Op::Return] => Some(Op::ReturnArith(*op)),
        [Op::Local(a), Op::TestCtor(c, t)] => Some(Op::TestCtorLocal(*a, *c, *t)),
        [Op::Local(a), Op::TestLen(n, t)] => Some(Op::TestLenLocal(*a, *n, *t)),
        [Op::Local(a), Op::TestMinLen(n, t)] => Some(Op::TestMinLenLocal(*a, *n, *t)),
        _ => None,
    });
    fuse_with(f, 3, 1, &|_, w| match w {
        [Op::Local(a), Op::Item(i), Op::SetLocal(d)] => Some(Op::ItemLocal(*a, *i, *d)),
        [Op::MoveLocal(a), Op::DropItems(n), Op::SetLocal(d)] => {
            Some(Op::DropItemsLocal(*a, *n, *d))
        }
        [Op::Local(a), Op::Part(i), Op::SetLocal(d)] => Some(Op::PartLocal(*a, *i, *d)),
        [Op::MoveLocal(a), Op::Part(i), Op::SetLocal(d)] => Some(Op::TakePartLocal(*a, *i, *d)),
        _ => None,
    });
    fuse_with(f, 2, 0, &|_, w| match w {
        [Op::MoveLocal(a), Op::SetLocal(b)] => Some(Op::MoveToLocal(*a, *b)),
        _ => None,
    });
    // `if n < 2 { n } else { ... }`: a branch that only skips a return
    // of a local returns it itself when it holds (at the comparison's
    // span, as the branch was).
    fuse_with(f, 2, 0, &|i, w| match w {
        [Op::BranchLocalInt(a, cmp, k, t), Op::ReturnLocal(r)] if *t as usize == i + 2 => {
            u16::try_from(*r)
                .ok()
                .map(|r| Op::ReturnLocalIf(*a, *cmp, *k, r))
        }
        _ => None,
    });
    // `if k == 0 { 0 } else { ... }`: the same for a constant returned.
    fuse_with(f, 3, 0, &|i, w| match w {
        [Op::BranchLocalInt(a, cmp, k, t), Op::Int(v), Op::Return] if *t as usize == i + 3 => {
            i32::try_from(*v)
                .ok()
                .map(|v| Op::ReturnIntIf(*a, *cmp, *k, v))
        }
        _ => None,
    });
    // A length test that skips a jump when it fails (`[] => ...` first
    // in a match) jumps itself when it holds.
    fuse_with(f, 2, 0, &|i, w| match w {
        [Op::TestLenLocal(a, n, t), Op::Jump(j)] if *t as usize == i + 2 => {
            Some(Op::JumpLenLocal(*a, *n, *j))
        }
        _ => None,
    });
    call_locals(f);
}

/// `f(x)` where `f` is a local read again later (a clause calling
/// `resume` twice, a function value passed down a recursion): the
/// local's `Local`, then arguments that are one push each, then `Call`,
/// become the arguments and `CallLocal`, which calls the value in its
/// slot without pushing it below them. A last read (`MoveLocal`) is
/// left as it is: moving the value out keeps a closure held once, so
/// the values it captures can be moved when it runs.
fn call_locals(f: &mut Function) {
    // The arguments' ops: one value pushed each, nothing else changed,
    // and never slot `s` (which the call then reads).
    let simple = |op: &Op, s: u32| match op {
        Op::Unit
        | Op::Bool(_)
        | Op::Int(_)
        | Op::Literal(_)
        | Op::Capture(_)
        | Op::MoveCapture(_)
        | Op::Func(_)
        | Op::Native(_)
        | Op::Global(_) => true,
        Op::Local(y) | Op::MoveLocal(y) => *y != s,
        _ => false,
    };
    rewrite(f, &|ops, i| {
        let Some(Op::Local(s)) = ops.get(i) else {
            return None;
        };
        let mut argc = 0;
        loop {
            match ops.get(i + 1 + argc)? {
                Op::Call(n) if *n as usize == argc => break,
                op if argc < 4 && simple(op, *s) => argc += 1,
                _ => return None,
            }
        }
        let mut new: Replacement = (i + 1..=i + argc)
            .filter_map(|k| Some((*ops.get(k)?, k)))
            .collect();
        new.push((Op::CallLocal(*s, argc as u32), i + 1 + argc));
        Some((argc + 2, new))
    });
}

fn is_comparison(op: crate::code::Arith) -> bool {
    use crate::code::Arith::*;
    matches!(op, Lt | Le | Gt | Ge | Eq | Ne)
}

/// Replace each window of `width` ops that `fused` maps to one op, where
/// no jump lands inside the window (its first op may be a target); the
/// fused op keeps the span of the window's op at `span_of` (the operator,
/// where an error is reported).
fn fuse_with(
    f: &mut Function,
    width: usize,
    span_of: usize,
    fused: &dyn Fn(usize, &[Op]) -> Option<Op>,
) {
    rewrite(f, &|ops, i| {
        let op = fused(i, ops.get(i..i + width)?)?;
        let mut new = Replacement::new();
        new.push((op, i + span_of));
        Some((width, new))
    });
}

/// The ops that replace a window, each with the index of the old op
/// whose span it keeps.
type Replacement = smallvec::SmallVec<[(Op, usize); 5]>;

/// What a rewrite found at an op: the width of the window it replaces,
/// and the replacement; `None` where it found nothing.
type Found = Option<(usize, Replacement)>;

/// Replace the ops from each `i` where `found(ops, i)` gives a width and
/// a replacement, unless a jump lands inside the window (its first op
/// may be a target: it lands on the replacement's first op); every jump
/// target is remapped.
fn rewrite(f: &mut Function, found: &dyn Fn(&[Op], usize) -> Found) {
    // Most functions have nothing to rewrite: look before building the
    // maps.
    if !(0..f.ops.len()).any(|i| found(&f.ops, i).is_some()) {
        return;
    }
    let n = f.ops.len();
    let landing = landing(&f.ops);
    let mut ops = Vec::with_capacity(n);
    let mut spans = Vec::with_capacity(n);
    let mut map = vec![0u32; n + 1];
    let mut i = 0;
    while i < n {
        let start = ops.len() as u32;
        let free = |w: usize| (i + 1..i + w).all(|k| !landing.get(k).copied().unwrap_or(true));
        match found(&f.ops, i).filter(|(w, _)| *w > 0 && free(*w)) {
            Some((width, new)) => {
                for m in map.iter_mut().skip(i).take(width) {
                    *m = start;
                }
                for (op, from) in new {
                    ops.push(op);
                    spans.push(f.spans.get(from).copied().unwrap_or_default());
                }
                i += width;
            }
            None => {
                if let (Some(m), Some(op)) = (map.get_mut(i), f.ops.get(i)) {
                    *m = start;
                    ops.push(*op);
                    spans.push(f.spans.get(i).copied().unwrap_or_default());
                }
                i += 1;
            }
        }
    }
    if let Some(m) = map.get_mut(n) {
        *m = ops.len() as u32;
    }
    install(f, ops, spans, &map);
}

/// Whether a jump lands on each op (and on the end), for the rewrites,
/// which fuse nothing a jump lands inside.
fn landing(ops: &[Op]) -> Vec<bool> {
    let mut landing = vec![false; ops.len() + 1];
    for op in ops {
        if let Some(t) = op.target()
            && let Some(l) = landing.get_mut(t as usize)
        {
            *l = true;
        }
    }
    landing
}

/// Give `f` its rewritten code, each jump target remapped by `map` (the
/// new index of each old op, and of the end).
pub(super) fn install(
    f: &mut Function,
    mut ops: Vec<Op>,
    spans: Vec<writ_lang::Span>,
    map: &[u32],
) {
    for op in &mut ops {
        if let Some(t) = op.target_mut() {
            *t = map.get(*t as usize).copied().unwrap_or(u32::MAX);
        }
    }
    f.ops = ops;
    f.spans = spans;
}

#[cfg(test)]
mod tests;
