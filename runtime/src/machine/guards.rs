//! A callee's leading guards, tested at the call.
//!
//! A function that starts by returning when a comparison of an argument
//! with a constant holds (`if n == 0 { 0 } else { ... }`, lowered to
//! `ReturnIntIf` and `ReturnLocalIf`, decision 023) is called far more
//! often than it gets past those tests: half the calls of a doubly
//! recursive function are leaves. The run loop's `CallFuncLocalInt`
//! (`f(n - 1)`, a known function of one argument computed from a local)
//! tests the callee's leading guards on the argument before it pushes a
//! frame (decision 029):
//!
//! - a guard that holds is the call's result, and no frame is pushed (a
//!   call of a leaf is one step, not a frame pushed, a test and a
//!   return);
//! - when none holds, the frame is pushed with its program counter past
//!   the guards tested, so the callee does not test them again.
//!
//! Other calls are left as they were: tested at a `CallFunc` or a tail
//! call, the guards cost the loop's other ops up to 7% (measured with
//! callgrind: the loop's registers), more than they saved.
//!
//! Invariants:
//! - **Nothing a program can see changes** but the steps counted (the
//!   guards tested at a call are part of that call's step, as a fused
//!   op's parts are, decision 023). The depth limit is tested before the
//!   guards, as before. A guard cannot fail: it compares an `Int`
//!   argument with a constant; an argument that is not an `Int` stops
//!   the testing, and the callee tests it as before.
//! - **Bounded**: at most [`MOST_GUARDS`] guards are tested per call.
//! - **The program counter stays proven** (see `step.rs`): the callee
//!   starts one past a guard, an op that goes on to the next
//!   ([`crate::code::Op::ends`]), so never past its last op.

use super::inline::int_cmp;
use crate::code::Op;

/// The most leading guards a call tests before pushing the frame.
pub(super) const MOST_GUARDS: usize = 4;

/// What a call's guards decided ([`guards`]): eight bytes, returned in
/// a register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Guarded {
    /// No guard held: push the frame and start it at this op.
    Enter(u32),
    /// A guard held: the call's result is this integer.
    Int(i32),
    /// A guard held: the call's result is the argument itself.
    Arg,
}

const _: () = assert!(std::mem::size_of::<Guarded>() == 8);

/// Test the leading guards of a callee of one argument, whose code is
/// `ops`, on that argument, the integer `x`. Whether there is a guard is
/// tested inline; the testing is out of line: inline, it cost the run
/// loop's other ops up to 2.3% (the loop's registers, decision 029).
#[inline(always)]
pub(super) fn guards(ops: &[Op], x: i64) -> Guarded {
    match ops.first() {
        Some(Op::ReturnIntIf(..) | Op::ReturnLocalIf(..)) => test_guards(ops, x),
        _ => Guarded::Enter(0),
    }
}

/// [`guards`]' testing.
#[inline(never)]
fn test_guards(ops: &[Op], x: i64) -> Guarded {
    let mut pc = 0;
    while pc < MOST_GUARDS {
        // A test of the argument (local 0) answering a constant or the
        // argument itself; anything else (another local, which is not
        // an argument) is left to the callee.
        let (cmp, k, answer) = match ops.get(pc) {
            Some(&Op::ReturnIntIf(0, cmp, k, v)) => (cmp, k, Guarded::Int(v)),
            Some(&Op::ReturnLocalIf(0, cmp, k, 0)) => (cmp, k, Guarded::Arg),
            _ => break,
        };
        if int_cmp(cmp, x, i64::from(k)) {
            return answer;
        }
        pc += 1;
    }
    Guarded::Enter(pc as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::Arith;

    /// `fn fib(n) { if n == 0 { 0 } else if n == 1 { 1 } else { ... } }`
    fn fib_like() -> Vec<Op> {
        vec![
            Op::ReturnIntIf(0, Arith::Eq, 0, 0),
            Op::ReturnIntIf(0, Arith::Eq, 1, 1),
            Op::Local(0),
            Op::Return,
        ]
    }

    #[test]
    fn a_guard_that_holds_answers_the_call() {
        assert_eq!(guards(&fib_like(), 0), Guarded::Int(0));
        assert_eq!(guards(&fib_like(), 1), Guarded::Int(1));
    }

    #[test]
    fn none_holding_enters_past_the_guards() {
        assert_eq!(guards(&fib_like(), 7), Guarded::Enter(2));
        assert_eq!(guards(&[Op::Local(0), Op::Return], 0), Guarded::Enter(0));
    }

    #[test]
    fn a_guard_returning_the_argument() {
        // `fn f(n) { if n < 2 { n } else { ... } }`
        let ops = [Op::ReturnLocalIf(0, Arith::Lt, 2, 0), Op::Return];
        assert_eq!(guards(&ops, 1), Guarded::Arg);
        assert_eq!(guards(&ops, 2), Guarded::Enter(1));
    }

    #[test]
    fn tests_of_other_locals_are_left_to_the_callee() {
        // A test of local 1 (not the argument) stops the testing.
        let ops = [
            Op::ReturnIntIf(1, Arith::Eq, 0, 5),
            Op::ReturnIntIf(0, Arith::Eq, 0, 6),
            Op::Return,
        ];
        assert_eq!(guards(&ops, 0), Guarded::Enter(0));
        // So does a return of local 1.
        let ops = [Op::ReturnLocalIf(0, Arith::Eq, 0, 1), Op::Return];
        assert_eq!(guards(&ops, 0), Guarded::Enter(0));
    }

    #[test]
    fn at_most_a_few_guards_are_tested() {
        let ops: Vec<Op> = (0..10)
            .map(|k| Op::ReturnIntIf(0, Arith::Eq, k, k))
            .chain([Op::Return])
            .collect();
        assert_eq!(guards(&ops, 3), Guarded::Int(3));
        assert_eq!(guards(&ops, 8), Guarded::Enter(MOST_GUARDS as u32));
    }

    #[test]
    fn every_comparison() {
        let cases = [
            (Arith::Lt, [true, false, false]),
            (Arith::Le, [true, true, false]),
            (Arith::Gt, [false, false, true]),
            (Arith::Ge, [false, true, true]),
            (Arith::Eq, [false, true, false]),
            (Arith::Ne, [true, false, true]),
        ];
        for (cmp, want) in cases {
            let ops = [Op::ReturnIntIf(0, cmp, 2, 9), Op::Return];
            let got = [1, 2, 3].map(|x| guards(&ops, x) == Guarded::Int(9));
            assert_eq!(got, want, "{cmp:?}");
        }
    }
}
