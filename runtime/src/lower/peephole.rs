//! Fusing common op sequences into one op, so the machine dispatches less.
//!
//! `Local a; Int k; Arith op` becomes `LocalIntArith(a, k, op)` and
//! `Local a; Local b; Arith op` becomes `LocalLocalArith(a, b, op)`.
//! A sequence is fused only when no jump lands inside it; every jump
//! target is then remapped to the new positions, and the fused op keeps
//! the span of the operator (where an overflow is reported).

use crate::code::{Function, Op};

/// The jump target an op holds, if any.
fn target(op: &mut Op) -> Option<&mut u32> {
    match op {
        Op::Jump(t)
        | Op::JumpIfFalse(t)
        | Op::TestCtor(_, t)
        | Op::TestEq(t)
        | Op::TestLen(_, t)
        | Op::TestMinLen(_, t) => Some(t),
        _ => None,
    }
}

/// Fuse op sequences in one function.
pub(super) fn fuse(f: &mut Function) {
    let n = f.ops.len();
    let mut landing = vec![false; n + 1];
    for op in &mut f.ops {
        if let Some(t) = target(op)
            && let Some(l) = landing.get_mut(*t as usize)
        {
            *l = true;
        }
    }
    let mut ops = Vec::with_capacity(n);
    let mut spans = Vec::with_capacity(n);
    let mut map = vec![0u32; n + 1];
    let mut i = 0;
    while i < n {
        map[i] = ops.len() as u32;
        let window = (f.ops.get(i), f.ops.get(i + 1), f.ops.get(i + 2));
        let free = !landing.get(i + 1).copied().unwrap_or(true)
            && !landing.get(i + 2).copied().unwrap_or(true);
        let fused = match window {
            (Some(Op::Local(a)), Some(Op::Int(k)), Some(Op::Arith(op))) if free => {
                i32::try_from(*k)
                    .ok()
                    .map(|k| Op::LocalIntArith(*a, k, *op))
            }
            (Some(Op::Local(a)), Some(Op::Local(b)), Some(Op::Arith(op))) if free => {
                Some(Op::LocalLocalArith(*a, *b, *op))
            }
            _ => None,
        };
        if let Some(op) = fused {
            map[i + 1] = ops.len() as u32;
            map[i + 2] = ops.len() as u32;
            ops.push(op);
            spans.push(f.spans.get(i + 2).copied().unwrap_or_default());
            i += 3;
            continue;
        }
        if let Some(op) = f.ops.get(i) {
            ops.push(*op);
            spans.push(f.spans.get(i).copied().unwrap_or_default());
        }
        i += 1;
    }
    map[n] = ops.len() as u32;
    for op in &mut ops {
        if let Some(t) = target(op) {
            *t = map.get(*t as usize).copied().unwrap_or(u32::MAX);
        }
    }
    f.ops = ops;
    f.spans = spans;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::Arith;

    #[test]
    fn fuses_and_remaps_jumps() {
        let mut f = Function {
            ops: vec![
                Op::Local(0),
                Op::Int(2),
                Op::Arith(Arith::Lt),
                Op::JumpIfFalse(6),
                Op::Local(0),
                Op::Return,
                Op::Local(0),
                Op::Local(1),
                Op::Arith(Arith::Add),
                Op::Return,
            ],
            spans: vec![Default::default(); 10],
            ..Function::default()
        };
        fuse(&mut f);
        assert_eq!(
            f.ops,
            vec![
                Op::LocalIntArith(0, 2, Arith::Lt),
                Op::JumpIfFalse(4),
                Op::Local(0),
                Op::Return,
                Op::LocalLocalArith(0, 1, Arith::Add),
                Op::Return,
            ]
        );
    }

    #[test]
    fn does_not_fuse_across_a_jump_target() {
        let mut f = Function {
            ops: vec![
                Op::Jump(2),
                Op::Local(0),
                Op::Int(1),
                Op::Arith(Arith::Add),
                Op::Return,
            ],
            spans: vec![Default::default(); 5],
            ..Function::default()
        };
        fuse(&mut f);
        assert_eq!(f.ops[0], Op::Jump(2));
        assert_eq!(f.ops.len(), 5);
    }
}
