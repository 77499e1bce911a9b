//! Tests of the peephole pass: each fusion, its spans and jump
//! remapping, and what is left unfused.

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
            Op::BranchLocalInt(0, Arith::Lt, 2, 3),
            Op::Local(0),
            Op::Return,
            Op::LocalLocalArith(0, 1, Arith::Add),
            Op::Return,
        ]
    );
}

#[test]
fn a_constant_before_a_local_is_one_op_in_its_order_and_a_comparison_turned_round() {
    // `10 - n` and `2 * n` keep their order (`IntLocalArith`); `3 < n`
    // is `n > 3`, a branch when a conditional jump follows; a constant
    // beyond an `i32` is left.
    let mut f = Function {
        ops: vec![
            Op::Int(10),
            Op::Local(0),
            Op::Arith(Arith::Sub),
            Op::Int(2),
            Op::Local(1),
            Op::Arith(Arith::Mul),
            Op::Int(3),
            Op::Local(0),
            Op::Arith(Arith::Lt),
            Op::JumpIfFalse(13),
            Op::Int(4),
            Op::Local(0),
            Op::Arith(Arith::Le),
            Op::Int(1 << 40),
            Op::Local(0),
            Op::Arith(Arith::Add),
            Op::Return,
        ],
        spans: vec![Default::default(); 17],
        ..Function::default()
    };
    fuse(&mut f);
    assert_eq!(
        f.ops,
        vec![
            Op::IntLocalArith(10, 0, Arith::Sub),
            Op::IntLocalArith(2, 1, Arith::Mul),
            Op::BranchLocalInt(0, Arith::Gt, 3, 4),
            Op::LocalIntArith(0, 4, Arith::Ge),
            Op::Int(1 << 40),
            Op::Local(0),
            Op::Arith(Arith::Add),
            Op::Return,
        ]
    );
}

#[test]
fn a_tail_call_of_the_function_itself_keeps_its_frame_unless_it_has_captures() {
    let ops = vec![
        Op::TailCallFunc(3, 1),
        Op::TailCallFunc(4, 1),
        Op::CallFunc(3, 1),
    ];
    let mut f = Function {
        ops: ops.clone(),
        ..Function::default()
    };
    tail_calls_of_itself(&mut f, 3);
    assert_eq!(
        f.ops,
        vec![
            Op::TailCallSelf(1),
            Op::TailCallFunc(4, 1),
            Op::CallFunc(3, 1)
        ]
    );
    // A function with captures runs in a frame with its closure: left.
    let mut f = Function {
        ops: ops.clone(),
        captures: vec![crate::code::CaptureFrom::Local(0)],
        ..Function::default()
    };
    tail_calls_of_itself(&mut f, 3);
    assert_eq!(f.ops, ops);
}

#[test]
fn any_comparison_before_a_conditional_jump_is_one_branch_but_not_arithmetic() {
    // `if f(x) > g(y)`, `if x + 1 == y * 2`: the comparison of two
    // values on the stack and the jump are one op; an addition before
    // a jump (not a comparison) and a comparison a jump lands between
    // are left alone.
    let mut f = Function {
        ops: vec![
            Op::CallFunc(1, 0),
            Op::CallFunc(2, 0),
            Op::Arith(Arith::Gt),
            Op::JumpIfFalse(7),
            Op::Arith(Arith::Add),
            Op::JumpIfFalse(7),
            Op::Arith(Arith::Eq),
            Op::JumpIfFalse(0),
            Op::Return,
        ],
        spans: vec![Default::default(); 9],
        ..Function::default()
    };
    fuse(&mut f);
    assert_eq!(
        f.ops,
        vec![
            Op::CallFunc(1, 0),
            Op::CallFunc(2, 0),
            Op::BranchArith(Arith::Gt, 6),
            Op::Arith(Arith::Add),
            Op::JumpIfFalse(6),
            Op::Arith(Arith::Eq),
            Op::JumpIfFalse(0),
            Op::Return,
        ]
    );
}

#[test]
fn a_returned_local_or_sum_is_one_op_unless_a_jump_lands_on_the_return() {
    let mut f = Function {
        ops: vec![
            Op::JumpIfFalse(6),
            Op::MoveLocal(0),
            Op::Return,
            Op::Local(1),
            Op::Return,
            Op::Local(2),
            Op::Return,
            Op::Arith(Arith::Add),
            Op::Return,
        ],
        spans: vec![Default::default(); 9],
        ..Function::default()
    };
    fuse_after_moves(&mut f);
    assert_eq!(
        f.ops,
        vec![
            Op::JumpIfFalse(4),
            Op::ReturnLocal(0),
            Op::ReturnLocal(1),
            Op::Local(2),
            Op::Return,
            Op::ReturnArith(Arith::Add),
        ]
    );
}

#[test]
fn a_list_pattern_works_on_its_locals_but_a_last_read_is_not_left_behind() {
    // `match rest { [] => acc, [x, ..tail] => ... }` as lowered, with
    // its moves: the list stays in slot 2 while it is tested and
    // read, and is moved out when its rest is taken.
    let mut f = Function {
        ops: vec![
            Op::MoveLocal(0),
            Op::SetLocal(2),
            Op::Local(2),
            Op::TestLen(0, 5),
            Op::Jump(13),
            Op::Local(2),
            Op::TestMinLen(1, 13),
            Op::Local(2),
            Op::Item(0),
            Op::SetLocal(3),
            Op::MoveLocal(2),
            Op::DropItems(1),
            Op::SetLocal(4),
            Op::MoveLocal(2),
            Op::TestLen(0, 0),
        ],
        spans: vec![Default::default(); 15],
        ..Function::default()
    };
    fuse_after_moves(&mut f);
    assert_eq!(
        f.ops,
        vec![
            Op::MoveToLocal(0, 2),
            // `[]` first: the test that skipped the jump jumps.
            Op::JumpLenLocal(2, 0, 5),
            Op::TestMinLenLocal(2, 1, 5),
            Op::ItemLocal(2, 0, 3),
            Op::DropItemsLocal(2, 1, 4),
            // A last read before a test is left as it is: the fused
            // test would leave the list in its slot.
            Op::MoveLocal(2),
            Op::TestLen(0, 0),
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
    // `Local; Int; Arith` is not fused (a jump lands on the `Int`);
    // `Int; Arith`, which starts where the jump lands, is.
    assert_eq!(
        f.ops,
        vec![
            Op::Jump(2),
            Op::Local(0),
            Op::ArithInt(Arith::Add, 1),
            Op::Return,
        ]
    );
}

#[test]
fn a_push_of_one_element_keeps_the_span_of_the_operator() {
    let span = |at: usize| writ_lang::Span::new(at, at + 1);
    let mut f = Function {
        ops: vec![
            Op::Local(0),
            Op::Local(1),
            Op::List(1),
            Op::Arith(Arith::Concat),
            Op::Return,
        ],
        spans: (0..5).map(span).collect(),
        ..Function::default()
    };
    fuse(&mut f);
    assert_eq!(
        f.ops,
        vec![Op::Local(0), Op::Local(1), Op::Push, Op::Return]
    );
    assert_eq!(f.spans.get(2), Some(&span(3)));
    // A list of two is not a push.
    let mut g = Function {
        ops: vec![Op::List(2), Op::Arith(Arith::Concat)],
        spans: vec![Default::default(); 2],
        ..Function::default()
    };
    fuse(&mut g);
    assert_eq!(g.ops, vec![Op::List(2), Op::Arith(Arith::Concat)]);
}

#[test]
fn a_call_of_a_known_function_on_a_local_and_a_constant_is_one_op_at_the_call() {
    // `f(n - 1)` with `f` known: fused, keeping the call's span; a call
    // of two arguments, or a local beyond a `u16`, is left.
    let span = |at: usize| writ_lang::Span::new(at, at + 1);
    let mut f = Function {
        ops: vec![
            Op::Local(0),
            Op::Int(1),
            Op::Arith(Arith::Sub),
            Op::CallFunc(7, 1),
            Op::Local(0),
            Op::Int(2),
            Op::Arith(Arith::Sub),
            Op::Local(0),
            Op::CallFunc(7, 2),
            Op::Local(70000),
            Op::Int(2),
            Op::Arith(Arith::Sub),
            Op::CallFunc(7, 1),
            Op::Return,
        ],
        spans: (0..14).map(span).collect(),
        ..Function::default()
    };
    fuse(&mut f);
    assert_eq!(
        f.ops,
        vec![
            Op::CallFuncLocalInt(7, 0, 1, Arith::Sub),
            Op::LocalIntArith(0, 2, Arith::Sub),
            Op::Local(0),
            Op::CallFunc(7, 2),
            Op::LocalIntArith(70000, 2, Arith::Sub),
            Op::CallFunc(7, 1),
            Op::Return,
        ]
    );
    assert_eq!(f.spans.first(), Some(&span(3)));
}

#[test]
fn a_branch_skipping_only_a_return_of_a_local_or_a_constant_returns_it_itself() {
    // `if n < 2 { n } else { ... }`, with the branch's span kept; a
    // branch going further than the return is left alone.
    let span = |at: usize| writ_lang::Span::new(at, at + 1);
    let mut f = Function {
        ops: vec![
            Op::BranchLocalInt(0, Arith::Lt, 2, 2),
            Op::ReturnLocal(0),
            Op::BranchLocalInt(1, Arith::Eq, 0, 5),
            Op::ReturnLocal(1),
            Op::Unit,
            Op::ReturnLocal(2),
            Op::BranchLocalInt(1, Arith::Gt, 7, 9),
            Op::Int(-1),
            Op::Return,
            Op::Unit,
            Op::ReturnLocal(2),
        ],
        spans: (0..9).map(span).collect(),
        ..Function::default()
    };
    fuse_after_moves(&mut f);
    assert_eq!(
        f.ops,
        vec![
            Op::ReturnLocalIf(0, Arith::Lt, 2, 0),
            Op::BranchLocalInt(1, Arith::Eq, 0, 4),
            Op::ReturnLocal(1),
            Op::Unit,
            Op::ReturnLocal(2),
            Op::ReturnIntIf(1, Arith::Gt, 7, -1),
            Op::Unit,
            Op::ReturnLocal(2),
        ]
    );
    assert_eq!(f.spans.first(), Some(&span(0)));
}

#[test]
fn a_part_set_into_a_local_is_one_op_that_moves_on_a_last_read() {
    let mut f = Function {
        ops: vec![
            Op::Local(1),
            Op::Part(0),
            Op::SetLocal(2),
            Op::MoveLocal(1),
            Op::Part(1),
            Op::SetLocal(3),
            Op::Unit,
            Op::Return,
        ],
        spans: vec![Default::default(); 8],
        ..Function::default()
    };
    fuse_after_moves(&mut f);
    assert_eq!(
        f.ops,
        vec![
            Op::PartLocal(1, 0, 2),
            Op::TakePartLocal(1, 1, 3),
            Op::Unit,
            Op::Return,
        ]
    );
}

#[test]
fn a_constant_right_operand_fuses_with_its_operator_and_a_branch() {
    // `f(x) % 3 == 0` as a condition: the remainder keeps its
    // operator's span (where a division by zero is reported), the
    // comparison and the branch become one op, with any `Int`
    // constant; an operator that is not a comparison before the
    // branch is left.
    let span = |at: usize| writ_lang::Span::new(at, at + 1);
    let mut f = Function {
        ops: vec![
            Op::CallFunc(1, 0),
            Op::Int(3),
            Op::Arith(Arith::Rem),
            Op::Int(0),
            Op::Arith(Arith::Eq),
            Op::JumpIfFalse(7),
            Op::Return,
            Op::CallFunc(1, 0),
            Op::Int(1 << 40),
            Op::Arith(Arith::Add),
            Op::Return,
        ],
        spans: (0..11).map(span).collect(),
        ..Function::default()
    };
    fuse(&mut f);
    assert_eq!(
        f.ops,
        vec![
            Op::CallFunc(1, 0),
            Op::ArithInt(Arith::Rem, 3),
            Op::BranchInt(Arith::Eq, 0, 4),
            Op::Return,
            Op::CallFunc(1, 0),
            Op::ArithInt(Arith::Add, 1 << 40),
            Op::Return,
        ]
    );
    assert_eq!(f.spans.get(1), Some(&span(2)));
    assert_eq!(f.spans.get(2), Some(&span(4)));
    let mut g = Function {
        ops: vec![
            Op::Local(0),
            Op::Not,
            Op::Int(1),
            Op::Arith(Arith::Add),
            Op::JumpIfFalse(0),
        ],
        spans: vec![Default::default(); 5],
        ..Function::default()
    };
    fuse(&mut g);
    assert_eq!(
        g.ops,
        vec![
            Op::Local(0),
            Op::Not,
            Op::ArithInt(Arith::Add, 1),
            Op::JumpIfFalse(0),
        ]
    );
}

#[test]
fn a_constructor_test_reads_a_local_in_place_unless_it_is_the_last_read() {
    // The scrutinee read again after the test stays in its slot: the
    // fused test reads it there. A last read (`MoveLocal`) is left,
    // as the fused test would keep the value alive in its slot.
    let mut f = Function {
        ops: vec![
            Op::Local(1),
            Op::TestCtor(10, 3),
            Op::Jump(6),
            Op::MoveLocal(1),
            Op::TestCtor(11, 6),
            Op::Return,
            Op::Unit,
            Op::Return,
        ],
        spans: vec![Default::default(); 8],
        ..Function::default()
    };
    fuse_after_moves(&mut f);
    assert_eq!(
        f.ops,
        vec![
            Op::TestCtorLocal(1, 10, 2),
            Op::Jump(5),
            Op::MoveLocal(1),
            Op::TestCtor(11, 5),
            Op::Return,
            Op::Unit,
            Op::Return,
        ]
    );
}

#[test]
fn a_local_with_a_capture_is_one_op_and_a_last_read_still_moves() {
    // `x % limit` and `if i > lines` in a closure: read in place. A
    // last read of the local keeps its move (for `acc ++ suffix`).
    let mut f = Function {
        ops: vec![
            Op::Local(0),
            Op::MoveCapture(1),
            Op::Arith(Arith::Rem),
            Op::MoveLocal(2),
            Op::Capture(0),
            Op::Arith(Arith::Concat),
            Op::Local(3),
            Op::Capture(0),
            Op::BranchArith(Arith::Gt, 12),
            Op::MoveLocal(3),
            Op::MoveCapture(0),
            Op::BranchArith(Arith::Lt, 12),
            Op::Return,
        ],
        spans: vec![Default::default(); 13],
        ..Function::default()
    };
    fuse_after_moves(&mut f);
    assert_eq!(
        f.ops,
        vec![
            Op::LocalCaptureArith(0, 1, Arith::Rem, false),
            Op::LocalCaptureArith(2, 0, Arith::Concat, true),
            Op::BranchLocalCapture(3, 0, Arith::Gt, false, 4),
            Op::BranchLocalCapture(3, 0, Arith::Lt, true, 4),
            Op::Return,
        ]
    );
}

#[test]
fn a_function_value_in_a_local_read_again_is_called_in_its_slot() {
    // `resume(true) ++ resume(false)`: the first call reads `resume`
    // in place, the last (a move) pushes it as before. Arguments that
    // move the slot itself, or that a jump lands on, are left alone;
    // a jump to the `Local` lands on the first argument.
    let mut f = Function {
        ops: vec![
            Op::JumpIfFalse(1),
            Op::Local(0),
            Op::Bool(true),
            Op::Call(1),
            Op::MoveLocal(0),
            Op::Bool(false),
            Op::Call(1),
            Op::Local(1),
            Op::MoveLocal(1),
            Op::Call(1),
            Op::Local(2),
            Op::Int(1),
            Op::Call(1),
            Op::Local(3),
            Op::Call(0),
            Op::Local(4),
            Op::Capture(0),
            Op::Local(5),
            Op::Call(2),
            Op::JumpIfFalse(11),
            Op::Return,
        ],
        spans: vec![Default::default(); 21],
        ..Function::default()
    };
    fuse_after_moves(&mut f);
    assert_eq!(
        f.ops,
        vec![
            Op::JumpIfFalse(1),
            Op::Bool(true),
            Op::CallLocal(0, 1),
            Op::MoveLocal(0),
            Op::Bool(false),
            Op::Call(1),
            Op::Local(1),
            Op::MoveLocal(1),
            Op::Call(1),
            Op::Local(2),
            Op::Int(1),
            Op::Call(1),
            Op::CallLocal(3, 0),
            Op::Capture(0),
            Op::Local(5),
            Op::CallLocal(4, 2),
            Op::JumpIfFalse(10),
            Op::Return,
        ]
    );
}
