//! Tests of capture and resume's parts: moving a tail in bulk, the kept
//! resumptions, a resumption's charge, and the deep cut of an abortive
//! clause.

use std::rc::Rc;

use super::{Resumption, SPARE_ROOM, SPARE_SETS, Spare, move_below, move_tail};

#[test]
fn move_tail_moves_the_tail_onto_another_vector() {
    for at in [0u32, 3, 8, 10, 12] {
        let mut v: Vec<u32> = (0..10).collect();
        let mut to = vec![100, 101];
        move_tail(&mut v, at as usize, &mut to);
        let cut = at.min(10);
        assert_eq!(v, (0..cut).collect::<Vec<_>>());
        let mut want = vec![100, 101];
        want.extend(cut..10);
        assert_eq!(to, want);
    }
    // Into room already there: nothing allocated.
    let mut v: Vec<u32> = (0..4).collect();
    let mut to = Vec::with_capacity(16);
    let room = to.as_ptr();
    move_tail(&mut v, 1, &mut to);
    assert_eq!((to.as_ptr(), to.capacity()), (room, 16));
    assert_eq!(to, vec![1, 2, 3]);
}

#[test]
fn move_tail_moves_owned_values_once() {
    // Every value moved keeps one owner: none is dropped or counted
    // twice, on either side.
    let values: Vec<Rc<u32>> = (0..6).map(Rc::new).collect();
    let mut v = values.clone();
    let mut to = Vec::new();
    move_tail(&mut v, 2, &mut to);
    assert!(values.iter().all(|x| Rc::strong_count(x) == 2));
    drop(v);
    drop(to);
    assert!(values.iter().all(|x| Rc::strong_count(x) == 1));
}

#[test]
fn move_below_moves_a_middle_part_and_closes_the_gap() {
    // `at..end` goes onto `to`; what lay above it (an operation's
    // arguments) comes down to `at`. Ends past the length are cut to it.
    for (at, end) in [
        (0, 0),
        (0, 10),
        (2, 7),
        (3, 3),
        (7, 10),
        (4, 12),
        (12, 14),
        (8, 5),
    ] {
        let mut v: Vec<u32> = (0..10).collect();
        let mut to = vec![100];
        move_below(&mut v, at, end, &mut to);
        let end_cut = end.min(10);
        let at_cut = at.min(end_cut);
        let mut want_v: Vec<u32> = (0..at_cut as u32).collect();
        want_v.extend(end_cut as u32..10);
        assert_eq!(v, want_v, "at {at}, end {end}");
        let mut want_to = vec![100];
        want_to.extend(at_cut as u32..end_cut as u32);
        assert_eq!(to, want_to, "at {at}, end {end}");
    }
    // Into room already there: nothing allocated.
    let mut v: Vec<u32> = (0..6).collect();
    let mut to = Vec::with_capacity(16);
    let room = to.as_ptr();
    move_below(&mut v, 1, 4, &mut to);
    assert_eq!((to.as_ptr(), to.capacity()), (room, 16));
    assert_eq!((v, to), (vec![0, 4, 5], vec![1, 2, 3]));
}

#[test]
fn move_below_moves_owned_values_once() {
    let values: Vec<Rc<u32>> = (0..8).map(Rc::new).collect();
    let mut v = values.clone();
    let mut to = Vec::new();
    move_below(&mut v, 2, 5, &mut to);
    assert!(values.iter().all(|x| Rc::strong_count(x) == 2));
    assert_eq!(v.iter().map(|x| **x).collect::<Vec<_>>(), [0, 1, 5, 6, 7]);
    drop(v);
    assert!(values[2..5].iter().all(|x| Rc::strong_count(x) == 2));
    drop(to);
    assert!(values.iter().all(|x| Rc::strong_count(x) == 1));
}

#[test]
fn a_dropped_resumption_lets_go_of_everything_it_holds() {
    // Its stack's values, its handlers' parameters and clause closures,
    // its frames' closures: every count back, every byte credited, with
    // the stack's vector full to its capacity (as a capture leaves it).
    use crate::value::{ClosureObj, Repr, Small, Value};
    let before = crate::value::live_bytes();
    let s = Value::str("held");
    let Repr::Str(held) = &s.0 else {
        panic!("a string")
    };
    let held = held.clone();
    let closure = ClosureObj::new(3, Small::from_iter([s.clone()]));
    let mut stack = Vec::with_capacity(3);
    stack.extend([
        Value::int(1),
        s.clone(),
        Value::tuple([s.clone(), Value::int(2)]),
    ]);
    assert_eq!(stack.len(), stack.capacity());
    let handlers = vec![
        super::Entry::Handler {
            info: 0,
            closures: Rc::new(vec![Value(Repr::Closure(closure.clone())), s.clone()]),
            param: Value::tuple([s.clone(), s.clone()]),
            frame: 0,
            stack: 0,
        },
        super::Entry::Skip(0),
    ];
    let frames = vec![super::Frame {
        func: 3,
        pc: 0,
        base: 0,
        kind: super::Kind::Normal,
        closure: Some(closure),
    }];
    let k = Resumption::new(frames, stack, handlers, (0, 0, 0));
    drop(s);
    assert_eq!(Rc::strong_count(&held), 7);
    drop(k);
    assert_eq!(Rc::strong_count(&held), 1);
    drop(held);
    assert_eq!(crate::value::live_bytes(), before);
}

#[test]
fn kept_resumptions_are_few_small_and_not_charged() {
    let before = crate::value::live_bytes();
    let mut spare = Spare::default();
    for _ in 0..2 * SPARE_SETS {
        let k = Resumption::new(
            Vec::with_capacity(8),
            Vec::with_capacity(SPARE_ROOM),
            Vec::with_capacity(1),
            (0, 0, 0),
        );
        assert!(crate::value::live_bytes() > before);
        spare.keep(Rc::new(k));
        assert_eq!(crate::value::live_bytes(), before);
    }
    assert_eq!(spare.kept.len(), SPARE_SETS);
    // Too large to keep, or still holding something: let go, its
    // charge given back.
    let mut big = Spare::default();
    big.keep(Rc::new(Resumption::new(
        Vec::new(),
        Vec::with_capacity(SPARE_ROOM + 1),
        Vec::new(),
        (0, 0, 0),
    )));
    big.keep(Rc::new(Resumption::new(
        Vec::new(),
        vec![crate::value::Value::str("held")],
        Vec::new(),
        (0, 0, 0),
    )));
    assert!(big.kept.is_empty());
    assert_eq!(crate::value::live_bytes(), before);
    // One held elsewhere too is not kept.
    let shared = Rc::new(Resumption::default());
    big.keep(shared.clone());
    assert!(big.kept.is_empty());
    // Taken back, a kept one has its room and nothing else holds it.
    let mut k = spare.take();
    let r = Rc::get_mut(&mut k).map(|r| r.stack.capacity());
    assert_eq!(r, Some(SPARE_ROOM));
    assert_eq!(spare.kept.len(), SPARE_SETS - 1);
    assert!(Rc::get_mut(&mut Spare::default().take()).is_some());
}

#[test]
fn a_resumption_is_charged_for_the_room_it_holds() {
    // A capture that hands the resumption the machine's own stack
    // vector hands it that vector's room too: a program that went deep
    // once, then captured and kept resumptions, would otherwise hold
    // memory no limit sees.
    let before = crate::value::live_bytes();
    let k = super::Resumption::new(
        Vec::new(),
        Vec::with_capacity(100_000),
        Vec::new(),
        (0, 0, 0),
    );
    assert!(crate::value::live_bytes() - before >= 100_000 * crate::value::SLOT);
    drop(k);
    assert_eq!(crate::value::live_bytes(), before);
}

#[test]
fn a_deep_cut_drops_what_owns_something_and_leaves_what_is_below() {
    use crate::value::Value;
    let before = crate::value::live_bytes();
    let kept = Value::str("kept");
    let shared = Value::str("shared");
    let mut stack = vec![kept.clone(), Value::int(1)];
    for i in 0..1000 {
        stack.push(Value::int(i));
        stack.push(Value::str(format!("s{i}")));
        stack.push(shared.clone());
        stack.push(Value::unit());
    }
    super::super::inline::discard_above(&mut stack, 2);
    assert_eq!(stack.len(), 2);
    assert_eq!(stack.first().and_then(Value::as_str), Some("kept"));
    assert_eq!(stack.get(1).and_then(Value::as_int), Some(1));
    // The strings made above are freed; the shared one only lost the
    // copies the stack held.
    drop(stack);
    drop(kept);
    assert_eq!(shared.as_str(), Some("shared"));
    drop(shared);
    assert_eq!(crate::value::live_bytes(), before);
    // A cut at or past the top does nothing.
    let mut stack = vec![Value::str("a")];
    super::super::inline::discard_above(&mut stack, 1);
    super::super::inline::discard_above(&mut stack, 5);
    assert_eq!(stack.len(), 1);
}
