//! Moving a local's (or a captured) value out on its last read.
//!
//! A `Local(n)` op pushes a copy of slot `n`, so a heap value held in a
//! slot is shared by the slot and the copy, and an operation on the copy
//! that could work in place (`acc ++ [x]` pushing onto a list) has to copy
//! it instead. This pass finds, per function, every `Local(n)` after which
//! no path through the function reads slot `n` before writing it, and makes
//! it `MoveLocal(n)`, which leaves `()` in the slot: the value is then
//! uniquely held when nothing else holds it.
//!
//! The analysis is a backward liveness dataflow on the ops themselves, so
//! it follows exactly what the code reads and writes (decision trees,
//! guards and temporaries included) rather than the source's scopes.
//! Reads are every slot an op names but `SetLocal`'s (the list of which
//! ops' fields are slots is [`super::slots::visit`], also used to
//! renumber them), and a `Closure` whose captures come from slots;
//! writes are `SetLocal`. A function run
//! again from the middle (a resumed continuation) runs the same code, so
//! what is dead on every path stays dead; a continuation resumed twice
//! runs on two copies of its frames, each with its own slots.
//!
//! The same analysis over a closure's captures (read by `Capture` and by
//! a `Closure` taking captures of the running closure; never written)
//! turns a capture's last read into `MoveCapture`. The machine moves the
//! value out of the closure only when the running frame holds the only
//! reference to it, so no other call of the closure can read the capture
//! afterwards; a call of the closure started from inside itself could,
//! so a function that names itself gets no capture moves. A resumption
//! held by a closure called once (`fn() { resume(()) }`) is then held once
//! when it is called, and moved instead of copied.
//!
//! Invariant: a slot or capture that may be read again is never moved.
//! Functions too large for the analysis to be cheap are left unchanged.

use crate::code::{CaptureFrom, Function, Op};

/// Above this many op-slot pairs, a function is left as it is.
const MAX_CELLS: usize = 1 << 22;

/// A set of slots.
#[derive(Clone, PartialEq)]
struct Slots(Vec<u64>);

impl Slots {
    fn new(n: usize) -> Slots {
        Slots(vec![0; n.div_ceil(64)])
    }

    fn insert(&mut self, i: u32) {
        if let Some(w) = self.0.get_mut(i as usize / 64) {
            *w |= 1 << (i % 64);
        }
    }

    fn remove(&mut self, i: u32) {
        if let Some(w) = self.0.get_mut(i as usize / 64) {
            *w &= !(1 << (i % 64));
        }
    }

    fn contains(&self, i: u32) -> bool {
        self.0
            .get(i as usize / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    fn union(&mut self, other: &Slots) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= *b;
        }
    }
}

/// Where control can go after op `i`: the next op unless it never goes
/// on ([`Op::ends`], the list the code's check and `tidy` use too), and
/// its jump target if it has one.
fn successors(op: &Op, i: usize) -> (Option<usize>, Option<usize>) {
    let next = (!op.ends()).then_some(i + 1);
    (next, op.target().map(|t| t as usize))
}

/// The slots op reads, given each function's captures: every slot it
/// names ([`super::slots::visit`], the one list of which ops' fields are
/// slots) except `SetLocal`'s, which it only writes, and the slots a
/// `Closure` captures. An op that also writes a slot counts as reading
/// it, which keeps the value longer, never shorter (those ops are fused
/// after this pass anyway).
fn reads(op: &Op, captures: &[Vec<CaptureFrom>], out: &mut Vec<u32>) {
    out.clear();
    match op {
        Op::SetLocal(_) => {}
        Op::Closure(f) => {
            for c in captures.get(*f as usize).into_iter().flatten() {
                if let CaptureFrom::Local(n) = c {
                    out.push(*n);
                }
            }
        }
        op => {
            let mut op = *op;
            super::slots::visit(&mut op, &mut |s| {
                out.push(s);
                s
            });
        }
    }
}

/// Turn the last reads of slots and captures into moves, in every
/// function.
pub(super) fn moves(functions: &mut [Function], from: usize) {
    let captures: Vec<Vec<CaptureFrom>> = functions.iter().map(|f| f.captures.clone()).collect();
    for f in functions.iter_mut().skip(from) {
        moves_in(f, &captures);
        capture_moves_in(f, &captures);
    }
}

fn moves_in(f: &mut Function, captures: &[Vec<CaptureFrom>]) {
    let slots = f.locals as usize;
    // (The list ops on locals that also write one are fused only after
    // this pass: it never sees them.)
    let write = |op: &Op| match op {
        Op::SetLocal(w) => Some(*w),
        _ => None,
    };
    let Some(live_in) = live_in(&f.ops, slots, |op, out| reads(op, captures, out), write) else {
        return;
    };
    for i in 0..f.ops.len() {
        let Some(op @ Op::Local(s)) = f.ops.get(i).copied() else {
            continue;
        };
        if !live_out(&live_in, &op, i, slots).contains(s)
            && let Some(op) = f.ops.get_mut(i)
        {
            *op = Op::MoveLocal(s);
        }
    }
}

/// The captures op reads, given each function's captures: a `Capture`,
/// and a `Closure` whose captures come from the running closure's.
fn capture_reads(op: &Op, captures: &[Vec<CaptureFrom>], out: &mut Vec<u32>) {
    out.clear();
    match op {
        Op::Capture(n) | Op::MoveCapture(n) => out.push(*n),
        Op::Closure(f) => {
            for c in captures.get(*f as usize).into_iter().flatten() {
                if let CaptureFrom::Capture(n) = c {
                    out.push(*n);
                }
            }
        }
        _ => {}
    }
}

/// Turn each `Capture(n)` after which no path through the function reads
/// capture `n` again into `MoveCapture(n)`. The machine moves the value
/// only when the running frame holds the only reference to the closure,
/// so no other call of it can read the capture later, except one this
/// call starts itself: a function that names itself (`SelfFn`, a tail
/// call of itself, or a closure capturing it) is left unchanged.
fn capture_moves_in(f: &mut Function, captures: &[Vec<CaptureFrom>]) {
    let width = f.captures.len();
    let names_itself = f.ops.iter().any(|op| match op {
        Op::SelfFn | Op::TailCallSelf(_) => true,
        Op::Closure(g) => captures
            .get(*g as usize)
            .is_none_or(|cs| cs.contains(&CaptureFrom::SelfFn)),
        _ => false,
    });
    if width == 0 || names_itself {
        return;
    }
    let reads = |op: &Op, out: &mut Vec<u32>| capture_reads(op, captures, out);
    let Some(live_in) = live_in(&f.ops, width, reads, |_| None) else {
        return;
    };
    for i in 0..f.ops.len() {
        let Some(op @ Op::Capture(c)) = f.ops.get(i).copied() else {
            continue;
        };
        if !live_out(&live_in, &op, i, width).contains(c)
            && let Some(op) = f.ops.get_mut(i)
        {
            *op = Op::MoveCapture(c);
        }
    }
}

/// What is live on entry to each op (and past the end), for `width`
/// things read by `reads` and written by `write`; `None` when the
/// function is too large for the analysis to be cheap.
fn live_in(
    ops: &[Op],
    width: usize,
    reads: impl Fn(&Op, &mut Vec<u32>),
    write: impl Fn(&Op) -> Option<u32>,
) -> Option<Vec<Slots>> {
    let n = ops.len();
    if n == 0 || n.saturating_mul(width.max(1)) > MAX_CELLS {
        return None;
    }
    let mut live_in: Vec<Slots> = vec![Slots::new(width); n + 1];
    let mut buf = Vec::new();
    // Jumps go forward in lowered code, so one backward sweep usually
    // settles it; sweep again until nothing changes, whatever the shape.
    loop {
        let mut changed = false;
        for i in (0..n).rev() {
            let Some(op) = ops.get(i) else { continue };
            let mut live = live_out(&live_in, op, i, width);
            if let Some(w) = write(op) {
                live.remove(w);
            }
            reads(op, &mut buf);
            for r in &buf {
                live.insert(*r);
            }
            if let Some(cell) = live_in.get_mut(i)
                && *cell != live
            {
                *cell = live;
                changed = true;
            }
        }
        if !changed {
            return Some(live_in);
        }
    }
}

fn live_out(live_in: &[Slots], op: &Op, i: usize, slots: usize) -> Slots {
    let mut out = Slots::new(slots);
    let (a, b) = successors(op, i);
    for s in [a, b].into_iter().flatten() {
        if let Some(l) = live_in.get(s) {
            out.union(l);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::Arith;

    fn func(ops: Vec<Op>, captures: Vec<CaptureFrom>) -> Function {
        Function {
            name: "f".into(),
            arity: 2,
            locals: 2,
            captures,
            spans: vec![writ_lang::Span::default(); ops.len()],
            ops,
            library: false,
        }
    }

    fn after(ops: Vec<Op>, closure_captures: Vec<CaptureFrom>) -> Vec<Op> {
        let mut fs = vec![
            func(ops, Vec::new()),
            func(vec![Op::Return], closure_captures),
        ];
        moves(&mut fs, 0);
        fs.swap_remove(0).ops
    }

    #[test]
    fn the_last_read_moves_and_earlier_ones_copy() {
        let ops = vec![
            Op::Local(0),
            Op::Local(0),
            Op::Arith(Arith::Concat),
            Op::Return,
        ];
        assert_eq!(
            after(ops, vec![]),
            vec![
                Op::Local(0),
                Op::MoveLocal(0),
                Op::Arith(Arith::Concat),
                Op::Return
            ]
        );
    }

    #[test]
    fn each_branch_has_its_own_last_read() {
        let ops = vec![
            Op::Local(1),
            Op::JumpIfFalse(4),
            Op::Local(0),
            Op::Return,
            Op::Local(0),
            Op::Return,
        ];
        let want = vec![
            Op::MoveLocal(1),
            Op::JumpIfFalse(4),
            Op::MoveLocal(0),
            Op::Return,
            Op::MoveLocal(0),
            Op::Return,
        ];
        assert_eq!(after(ops, vec![]), want);
    }

    #[test]
    fn a_tail_call_of_a_value_goes_on_and_a_known_one_does_not() {
        // A `TailCall` may call a native or a resumption, which go on in
        // the frame: a read after it keeps the earlier one a copy. A
        // `TailCallFunc` takes the frame over: nothing after it is read.
        let ops = vec![
            Op::Local(1),
            Op::Local(0),
            Op::TailCall(1),
            Op::Local(0),
            Op::Return,
        ];
        let got = after(ops, vec![]);
        assert_eq!(got.get(1), Some(&Op::Local(0)));
        assert_eq!(got.get(3), Some(&Op::MoveLocal(0)));
        let ops = vec![
            Op::Local(0),
            Op::TailCallFunc(7, 1),
            Op::Local(0),
            Op::Return,
        ];
        assert_eq!(after(ops, vec![]).first(), Some(&Op::MoveLocal(0)));
    }

    #[test]
    fn a_read_on_a_later_path_keeps_the_value() {
        // The read at 2 may be followed by the read at 4.
        let ops = vec![
            Op::Local(1),
            Op::JumpIfFalse(4),
            Op::Local(0),
            Op::Pop,
            Op::Local(0),
            Op::Return,
        ];
        let got = after(ops, vec![]);
        assert_eq!(got.get(2), Some(&Op::Local(0)));
        assert_eq!(got.get(4), Some(&Op::MoveLocal(0)));
    }

    #[test]
    fn a_closure_capturing_the_slot_is_a_read_and_a_write_ends_liveness() {
        let ops = vec![Op::Local(0), Op::Pop, Op::Closure(1), Op::Return];
        let got = after(ops, vec![CaptureFrom::Local(0)]);
        assert_eq!(got.first(), Some(&Op::Local(0)));
        let ops = vec![
            Op::Local(0),
            Op::Pop,
            Op::Int(1),
            Op::SetLocal(0),
            Op::Local(0),
            Op::Return,
        ];
        let got = after(ops, vec![]);
        assert_eq!(got.first(), Some(&Op::MoveLocal(0)));
        assert_eq!(got.get(4), Some(&Op::MoveLocal(0)));
    }

    #[test]
    fn fused_reads_count_as_reads() {
        let ops = vec![
            Op::Local(0),
            Op::Pop,
            Op::LocalIntArith(0, 1, Arith::Add),
            Op::Return,
        ];
        assert_eq!(after(ops, vec![]).first(), Some(&Op::Local(0)));
    }

    fn after_captures(ops: Vec<Op>, own: Vec<CaptureFrom>, inner: Vec<CaptureFrom>) -> Vec<Op> {
        let mut fs = vec![func(ops, own), func(vec![Op::Return], inner)];
        moves(&mut fs, 0);
        fs.swap_remove(0).ops
    }

    #[test]
    fn the_last_read_of_a_capture_moves_and_earlier_ones_copy() {
        let own = vec![CaptureFrom::Local(0), CaptureFrom::Local(1)];
        let ops = vec![
            Op::Capture(0),
            Op::Capture(1),
            Op::Capture(0),
            Op::Call(1),
            Op::Return,
        ];
        let want = vec![
            Op::Capture(0),
            Op::MoveCapture(1),
            Op::MoveCapture(0),
            Op::Call(1),
            Op::Return,
        ];
        assert_eq!(after_captures(ops, own, vec![]), want);
    }

    #[test]
    fn a_capture_read_on_a_later_path_or_by_an_inner_closure_is_kept() {
        let own = vec![CaptureFrom::Local(0)];
        // The read at 2 may be followed by the read at 4.
        let ops = vec![
            Op::Local(1),
            Op::JumpIfFalse(4),
            Op::Capture(0),
            Op::Pop,
            Op::Capture(0),
            Op::Return,
        ];
        let got = after_captures(ops, own.clone(), vec![]);
        assert_eq!(got.get(2), Some(&Op::Capture(0)));
        assert_eq!(got.get(4), Some(&Op::MoveCapture(0)));
        // A closure made from the running closure's capture reads it.
        let ops = vec![Op::Capture(0), Op::Pop, Op::Closure(1), Op::Return];
        let got = after_captures(ops, own, vec![CaptureFrom::Capture(0)]);
        assert_eq!(got.first(), Some(&Op::Capture(0)));
    }

    #[test]
    fn a_function_that_names_itself_moves_no_capture() {
        let own = vec![CaptureFrom::Local(0)];
        let ops = vec![Op::Capture(0), Op::SelfFn, Op::Call(1), Op::Return];
        let got = after_captures(ops.clone(), own.clone(), vec![]);
        assert_eq!(got, ops);
        let ops = vec![Op::Capture(0), Op::Closure(1), Op::Call(1), Op::Return];
        let got = after_captures(ops.clone(), own, vec![CaptureFrom::SelfFn]);
        assert_eq!(got, ops);
    }
}
