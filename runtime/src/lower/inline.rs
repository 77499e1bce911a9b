//! Calls of functions whose whole body is a constant or one comparison
//! of the argument with a constant, replaced by that body.
//!
//! `fn dollar() -> Int { 36 }` and `fn is_dollar(c: Int) -> Bool { c ==
//! 36 }` are what a program names its constants and tests with. A call
//! of one pushes a frame, runs two ops and returns; its body in place is
//! one op, or (for a test) two that the peephole pass then fuses with
//! the argument and the branch around it (`if is_dollar(c)` becomes one
//! `BranchLocalInt`).
//!
//! Invariants: only bodies that cannot fail are put in place (a constant,
//! and a comparison, which never overflows or divides), so no error, and
//! no stack trace, can tell the difference; a run takes fewer steps (and
//! frames) than the call did. Only direct calls of a known function
//! (`CallFunc`, `CallFuncLocalInt`) are replaced, with the body the
//! callee has after the peephole pass's first fusion (the library's
//! final code has the same forms).

use crate::code::{Arith, Function, Op};

/// What a call of a trivial function becomes.
#[derive(Clone, Copy)]
enum Body {
    /// A constant (`Int`, `Bool` or `()`): the op that pushes it.
    Constant(Op),
    /// The argument compared with a constant.
    Compare(i32, Arith),
}

/// The body of `f`, if it is trivial.
fn trivial(f: &Function) -> Option<Body> {
    match (f.arity, f.ops.as_slice()) {
        (0, [op @ (Op::Int(_) | Op::Bool(_) | Op::Unit), Op::Return]) => Some(Body::Constant(*op)),
        (1, [Op::LocalIntArith(0, k, cmp), Op::Return]) if is_comparison(*cmp) => {
            Some(Body::Compare(*k, *cmp))
        }
        _ => None,
    }
}

fn is_comparison(op: Arith) -> bool {
    use Arith::*;
    matches!(op, Lt | Le | Gt | Ge | Eq | Ne)
}

/// Replace the calls of trivial functions in the functions from `first`
/// on, after the peephole pass's first fusion (which makes `c == 36` one
/// `LocalIntArith`); the bodies are looked up among all of them, the
/// library's final code included. True for each function that changed,
/// which the peephole pass should see again.
pub(super) fn calls(functions: &mut [Function], first: usize) -> Vec<bool> {
    // The trivial bodies among the functions the batch calls directly
    // (a constant-time look at each callee): the work follows the
    // program's calls, not the size of the library.
    let mut bodies: Vec<(u32, Body)> = Vec::new();
    for f in functions.iter().skip(first) {
        for op in &f.ops {
            if let Op::CallFunc(g, _) | Op::CallFuncLocalInt(g, ..) = op
                && let Err(at) = bodies.binary_search_by_key(g, |(h, _)| *h)
                && let Some(b) = functions.get(*g as usize).and_then(trivial)
            {
                bodies.insert(at, (*g, b));
            }
        }
    }
    let body = |g: u32| {
        bodies
            .binary_search_by_key(&g, |(h, _)| *h)
            .ok()
            .and_then(|i| bodies.get(i))
            .map(|(_, b)| *b)
    };
    let mut changed = Vec::new();
    for f in functions.iter_mut().skip(first) {
        let any = f.ops.iter().any(|op| match op {
            Op::CallFunc(g, n) => matches!(
                (body(*g), n),
                (Some(Body::Constant(_)), 0) | (Some(Body::Compare(..)), 1)
            ),
            Op::CallFuncLocalInt(g, ..) => matches!(body(*g), Some(Body::Compare(..))),
            _ => false,
        });
        changed.push(any);
        if any {
            expand(f, &body);
        }
    }
    changed
}

/// Rewrite `f`'s code with each replaceable call expanded, every jump
/// target remapped.
fn expand(f: &mut Function, body: &dyn Fn(u32) -> Option<Body>) {
    let n = f.ops.len();
    let mut ops = Vec::with_capacity(n + 8);
    let mut spans = Vec::with_capacity(n + 8);
    let mut map = vec![0u32; n + 1];
    for (i, op) in f.ops.iter().enumerate() {
        map[i] = ops.len() as u32;
        let span = f.spans.get(i).copied().unwrap_or_default();
        let replacement: Vec<Op> = match *op {
            Op::CallFunc(g, 0) => match body(g) {
                Some(Body::Constant(c)) => vec![c],
                _ => vec![*op],
            },
            Op::CallFunc(g, 1) => match body(g) {
                Some(Body::Compare(k, cmp)) => vec![Op::Int(i64::from(k)), Op::Arith(cmp)],
                _ => vec![*op],
            },
            Op::CallFuncLocalInt(g, a, k, arith) => match body(g) {
                Some(Body::Compare(c, cmp)) => vec![
                    Op::LocalIntArith(u32::from(a), k, arith),
                    Op::Int(i64::from(c)),
                    Op::Arith(cmp),
                ],
                _ => vec![*op],
            },
            _ => vec![*op],
        };
        for r in replacement {
            ops.push(r);
            spans.push(span);
        }
    }
    map[n] = ops.len() as u32;
    super::peephole::install(f, ops, spans, &map);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn func(arity: u32, ops: Vec<Op>) -> Function {
        Function {
            arity,
            locals: arity,
            spans: vec![Default::default(); ops.len()],
            ops,
            ..Function::default()
        }
    }

    #[test]
    fn constants_and_comparisons_are_put_in_place_and_jumps_follow() {
        let mut fs = vec![
            func(0, vec![Op::Int(36), Op::Return]),
            func(1, vec![Op::LocalIntArith(0, 10, Arith::Eq), Op::Return]),
            // Not trivial: an addition may overflow, a call may do anything.
            func(1, vec![Op::LocalIntArith(0, 1, Arith::Add), Op::Return]),
            func(0, vec![Op::CallFunc(0, 0), Op::Return]),
            func(
                1,
                vec![
                    Op::CallFunc(0, 0),
                    Op::Local(0),
                    Op::CallFunc(1, 1),
                    Op::JumpIfFalse(6),
                    Op::CallFuncLocalInt(1, 0, 1, Arith::Sub),
                    Op::Return,
                    Op::CallFunc(2, 1),
                    Op::CallFunc(3, 0),
                    Op::Return,
                ],
            ),
        ];
        let changed = calls(&mut fs, 4);
        assert_eq!(changed, vec![true]);
        assert_eq!(
            fs[4].ops,
            vec![
                Op::Int(36),
                Op::Local(0),
                Op::Int(10),
                Op::Arith(Arith::Eq),
                Op::JumpIfFalse(9),
                Op::LocalIntArith(0, 1, Arith::Sub),
                Op::Int(10),
                Op::Arith(Arith::Eq),
                Op::Return,
                Op::CallFunc(2, 1),
                Op::CallFunc(3, 0),
                Op::Return,
            ]
        );
        assert_eq!(fs[4].spans.len(), fs[4].ops.len());
    }
}
