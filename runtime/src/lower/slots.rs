//! Renumbering a function's slots so that its frame has no unused ones.
//!
//! Lowering gives out slots as it goes (a pattern's parts, a scrutinee's
//! copy, a decision tree's temporaries) and later passes remove some of
//! their uses: a `match` on a variable works in the variable's own slot
//! (decision 026), fused ops read a part straight into its binding. A
//! slot nothing names any more still costs at run time: every call
//! fills the frame's slots with `()`, and every capture and resume of a
//! continuation moves them (decision 025). This pass, the last one,
//! numbers the slots that are named from the arity up, in the order they
//! had, and sets the frame's size to what is left.
//!
//! Invariants:
//! - **Parameters keep their numbers** (`0..arity`): the caller writes
//!   the arguments there.
//! - **Every op that names a slot is renumbered**: [`visit`] matches
//!   every op without a catch-all arm, so a new op has to say which of
//!   its fields are slots before the crate compiles. The liveness pass
//!   takes an op's reads from it too, so neither can miss one.
//! - **A closure's captures name its creator's slots**
//!   (`CaptureFrom::Local`), so they are renumbered with the creator. A
//!   function made by `Closure` ops in more than one function (which
//!   lowering never does) leaves every one of them as it is.
//! - The order of the slots is kept, so no slot's number grows and a
//!   slot held in a 16-bit field still fits.

use crate::code::{CaptureFrom, Function, Op};

/// Renumber the slots of every function from `first` on.
pub(super) fn compact(functions: &mut [Function], first: usize) {
    // The function that makes each closure; `MANY` when several do.
    const MANY: usize = usize::MAX;
    let mut maker: Vec<Option<usize>> = vec![None; functions.len()];
    for (i, f) in functions.iter().enumerate() {
        for op in &f.ops {
            if let Op::Closure(g) = op
                && let Some(m) = maker.get_mut(*g as usize)
            {
                *m = Some(match *m {
                    Some(j) if j != i => MANY,
                    _ => i,
                });
            }
        }
    }
    let made_by = |g: u32, i: usize| maker.get(g as usize) == Some(&Some(i));
    for i in first..functions.len() {
        let Some(f) = functions.get(i) else {
            continue;
        };
        // The closures this function makes, which must be its own alone.
        let mut made = Vec::new();
        let mut alone = true;
        for op in &f.ops {
            if let Op::Closure(g) = op {
                alone &= made_by(*g, i);
                made.push(*g);
            }
        }
        if !alone {
            continue;
        }
        let Some(map) = numbering(f, functions, &made) else {
            continue;
        };
        let locals = map.iter().filter(|n| n.is_some()).count() as u32;
        if let Some(f) = functions.get_mut(i) {
            for op in &mut f.ops {
                visit(op, &mut |s| new_number(&map, s));
            }
            f.locals = f.locals.min(locals.max(f.arity));
        }
        made.sort_unstable();
        made.dedup();
        for g in made {
            if let Some(g) = functions.get_mut(g as usize) {
                for c in &mut g.captures {
                    if let CaptureFrom::Local(s) = c {
                        *s = new_number(&map, *s);
                    }
                }
            }
        }
    }
}

/// The new number of each slot of `f` that is used (`None` for one that
/// is not), or `None` when nothing changes or a slot is out of range.
fn numbering(f: &Function, functions: &[Function], made: &[u32]) -> Option<Vec<Option<u32>>> {
    let n = f.locals as usize;
    let mut used = vec![false; n];
    let mut in_range = true;
    let mut mark = |s: u32| {
        match used.get_mut(s as usize) {
            Some(u) => *u = true,
            None => in_range = false,
        }
        s
    };
    for p in 0..f.arity.min(f.locals) {
        mark(p);
    }
    for op in &f.ops {
        let mut op = *op;
        visit(&mut op, &mut mark);
    }
    for g in made {
        for c in functions
            .get(*g as usize)
            .map(|g| &g.captures[..])
            .unwrap_or(&[])
        {
            if let CaptureFrom::Local(s) = c {
                mark(*s);
            }
        }
    }
    if !in_range || used.iter().all(|u| *u) {
        return None;
    }
    let mut next = 0u32;
    Some(
        used.iter()
            .map(|u| {
                u.then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect(),
    )
}

fn new_number(map: &[Option<u32>], s: u32) -> u32 {
    map.get(s as usize).copied().flatten().unwrap_or(s)
}

/// Call `f` on every slot `op` names, replacing it with what `f` returns
/// (the liveness pass reads them through it too).
pub(super) fn visit(op: &mut Op, f: &mut dyn FnMut(u32) -> u32) {
    // A slot in a 16-bit field: renumbering never makes it larger.
    let short = |s: &mut u16, f: &mut dyn FnMut(u32) -> u32| {
        *s = u16::try_from(f(u32::from(*s))).unwrap_or(*s);
    };
    match op {
        Op::Local(s)
        | Op::MoveLocal(s)
        | Op::SetLocal(s)
        | Op::ReturnLocal(s)
        | Op::LocalIntArith(s, ..)
        | Op::IntLocalArith(_, s, _)
        | Op::TestLenLocal(s, ..)
        | Op::TestMinLenLocal(s, ..)
        | Op::JumpLenLocal(s, ..)
        | Op::TestCtorLocal(s, ..)
        | Op::CallLocal(s, _)
        | Op::ListFor(s)
        | Op::AppendLocal(s) => *s = f(*s),
        Op::LocalLocalArith(a, b, _)
        | Op::ItemLocal(a, _, b)
        | Op::DropItemsLocal(a, _, b)
        | Op::PartLocal(a, _, b)
        | Op::TakePartLocal(a, _, b)
        | Op::MoveToLocal(a, b)
        | Op::Each(a, b, _) => {
            *a = f(*a);
            *b = f(*b);
        }
        Op::BranchLocalInt(s, ..)
        | Op::CallFuncLocalInt(_, s, ..)
        | Op::ReturnIntIf(s, ..)
        | Op::LocalCaptureArith(s, ..)
        | Op::BranchLocalCapture(s, ..) => short(s, f),
        Op::BranchLocalLocal(a, b, ..) | Op::ReturnLocalIf(a, _, _, b) => {
            short(a, f);
            short(b, f);
        }
        Op::Unit
        | Op::Bool(_)
        | Op::Int(_)
        | Op::Literal(_)
        | Op::Capture(_)
        | Op::MoveCapture(_)
        | Op::SelfFn
        | Op::Global(_)
        | Op::SetGlobal(_)
        | Op::Func(_)
        | Op::Native(_)
        | Op::Closure(_)
        | Op::Pop
        | Op::Arith(_)
        | Op::BranchArith(..)
        | Op::Neg
        | Op::Not
        | Op::Jump(_)
        | Op::JumpIfFalse(_)
        | Op::Call(_)
        | Op::TailCall(_)
        | Op::CallFunc(..)
        | Op::TailCallFunc(..)
        | Op::TailCallSelf(_)
        | Op::Return
        | Op::ReturnArith(_)
        | Op::Tuple(_)
        | Op::List(_)
        | Op::Push
        | Op::Record(_)
        | Op::Update(_)
        | Op::Variant(..)
        | Op::Field(_)
        | Op::Part(_)
        | Op::Interp(_)
        | Op::TestCtor(..)
        | Op::TestEq(_)
        | Op::TestLen(..)
        | Op::TestMinLen(..)
        | Op::Item(_)
        | Op::DropItems(_)
        | Op::NoMatch
        | Op::Perform(..)
        | Op::Handle(_)
        | Op::ResumeTail
        | Op::ResumeTailWith
        | Op::ArithInt(..)
        | Op::BranchInt(..)
        | Op::CallNative(..) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::compact;
    use crate::code::{Arith, CaptureFrom, Function, Op};

    fn func(arity: u32, locals: u32, ops: Vec<Op>, captures: Vec<CaptureFrom>) -> Function {
        Function {
            name: "f".into(),
            arity,
            locals,
            captures,
            spans: vec![Default::default(); ops.len()],
            ops,
            library: false,
        }
    }

    #[test]
    fn unused_slots_go_and_the_rest_keep_their_order() {
        let mut fs = vec![func(
            1,
            6,
            vec![
                Op::PartLocal(0, 0, 3),
                Op::TakePartLocal(0, 1, 5),
                Op::BranchLocalLocal(3, 5, Arith::Lt, 4),
                Op::ReturnLocal(3),
                Op::ReturnLocalIf(5, Arith::Eq, 0, 3),
                Op::LocalLocalArith(3, 5, Arith::Add),
                Op::LocalCaptureArith(5, 0, Arith::Sub, true),
                Op::BranchLocalCapture(3, 1, Arith::Gt, false, 0),
                Op::Return,
            ],
            vec![],
        )];
        compact(&mut fs, 0);
        assert_eq!(fs[0].locals, 3);
        assert_eq!(
            fs[0].ops,
            vec![
                Op::PartLocal(0, 0, 1),
                Op::TakePartLocal(0, 1, 2),
                Op::BranchLocalLocal(1, 2, Arith::Lt, 4),
                Op::ReturnLocal(1),
                Op::ReturnLocalIf(2, Arith::Eq, 0, 1),
                Op::LocalLocalArith(1, 2, Arith::Add),
                Op::LocalCaptureArith(2, 0, Arith::Sub, true),
                Op::BranchLocalCapture(1, 1, Arith::Gt, false, 0),
                Op::Return,
            ]
        );
    }

    #[test]
    fn parameters_stay_even_when_unused() {
        let mut fs = vec![func(
            3,
            5,
            vec![Op::Int(1), Op::SetLocal(4), Op::ReturnLocal(4)],
            vec![],
        )];
        compact(&mut fs, 0);
        assert_eq!(fs[0].locals, 4);
        assert_eq!(
            fs[0].ops,
            vec![Op::Int(1), Op::SetLocal(3), Op::ReturnLocal(3)]
        );
    }

    #[test]
    fn a_closures_captures_follow_its_maker() {
        let mut fs = vec![
            func(
                0,
                3,
                vec![Op::Int(1), Op::SetLocal(2), Op::Closure(1), Op::Return],
                vec![],
            ),
            func(
                0,
                0,
                vec![Op::Capture(0), Op::Return],
                vec![CaptureFrom::Local(2)],
            ),
        ];
        compact(&mut fs, 0);
        assert_eq!(fs[0].locals, 1);
        assert_eq!(fs[0].ops[1], Op::SetLocal(0));
        assert_eq!(fs[1].captures, vec![CaptureFrom::Local(0)]);
        // A slot only a closure names is kept.
        let mut fs = vec![
            func(0, 3, vec![Op::Closure(1), Op::Return], vec![]),
            func(0, 0, vec![Op::Return], vec![CaptureFrom::Local(1)]),
        ];
        compact(&mut fs, 0);
        assert_eq!(
            (fs[0].locals, &fs[1].captures),
            (1, &vec![CaptureFrom::Local(0)])
        );
    }

    #[test]
    fn a_closure_made_in_two_functions_leaves_both_alone() {
        let maker = || {
            func(
                0,
                2,
                vec![Op::Int(1), Op::SetLocal(1), Op::Closure(2), Op::Return],
                vec![],
            )
        };
        let mut fs = vec![
            maker(),
            maker(),
            func(0, 0, vec![Op::Return], vec![CaptureFrom::Local(1)]),
        ];
        compact(&mut fs, 0);
        assert_eq!((fs[0].locals, fs[1].locals), (2, 2));
        assert_eq!(fs[2].captures, vec![CaptureFrom::Local(1)]);
    }

    #[test]
    fn a_slot_out_of_range_leaves_the_function_alone() {
        let mut fs = vec![func(0, 2, vec![Op::Local(7), Op::Return], vec![])];
        compact(&mut fs, 0);
        assert_eq!((fs[0].locals, fs[0].ops[0]), (2, Op::Local(7)));
    }

    #[test]
    fn functions_before_the_first_are_left_alone() {
        let mut fs = vec![func(0, 4, vec![Op::Unit, Op::Return], vec![])];
        compact(&mut fs, 1);
        assert_eq!(fs[0].locals, 4);
        compact(&mut fs, 0);
        assert_eq!(fs[0].locals, 0);
    }
}
