//! Tests of capture and resume's parts: moving a tail in bulk, the kept
//! resumptions, a resumption's charge, and the deep cut of an abortive
//! clause.

use std::rc::Rc;

use super::{Resumption, SPARE_ROOM, SPARE_SETS, Spare, move_tail};

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
