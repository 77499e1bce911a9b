//! Arithmetic, comparison and data operations of the machine.
//!
//! `Int` arithmetic is checked: a result that does not fit in 64 bits, and
//! division or remainder by zero, are run-time errors (`E4001`, `E4002`).
//! Integer division truncates toward zero and `%` takes the sign of the
//! dividend. `Float` arithmetic is IEEE 754 (`1.0 / 0.0` is `inf`).
//! Operations that allocate in proportion to their operands (`++`,
//! interpolation) check the memory limit before allocating.

use std::cmp::Ordering;
use std::rc::Rc;

use writ_lang::Code;

use super::{Machine, bad_index};
use crate::code::{Arith, Op};
use crate::display;
use crate::error::RunError;
use crate::meter;
use crate::value::{self, ListObj, RecordObj, Repr, Small, Value};

fn overflow(x: i64, op: &str, y: i64) -> RunError {
    RunError::overflow(&format!("{x} {op} {y}"))
}

fn by_zero(x: i64, op: &str) -> RunError {
    RunError::new(
        Code::DivisionByZero,
        format!("expected a divisor other than zero, found {x} {op} 0"),
    )
    .with_help("check the divisor first, or return an `Option` when it can be zero")
}

impl<'a> Machine<'a> {
    /// `a ++ b` on lists. When nothing else holds one of them, the other's
    /// elements are added to it in place (at its end for `acc ++ xs`, at
    /// its start for `xs ++ acc`, the shorter being added), charged for
    /// the slots it grows by. Otherwise a new list is made: sharing `a`'s
    /// elements when it is long, copying them when it is short, and
    /// copying `b`'s, one unit of work per element copied.
    fn concat_lists(&mut self, mut a: Rc<ListObj>, mut b: Rc<ListObj>) -> Result<Value, RunError> {
        if b.is_empty() {
            self.tick(1)?;
            return Ok(Value(Repr::List(a)));
        }
        if a.is_empty() {
            self.tick(1)?;
            return Ok(Value(Repr::List(b)));
        }
        // The shorter is added to the longer.
        let shorter = a.len().min(b.len());
        self.tick(1 + shorter as u64)?;
        if b.len() <= a.len() {
            let room = self.room_to_grow(&a, b.len())?;
            if ListObj::append_unique(&mut a, &b, room) {
                return Ok(Value(Repr::List(a)));
            }
        } else {
            let room = self.room_to_grow(&b, a.len())?;
            if ListObj::prepend_unique(&mut b, &a, room) {
                return Ok(Value(Repr::List(b)));
            }
        }
        self.appended(&a, b.iter())
    }

    /// `acc ++ [x]` without making `[x]` (the fused `List(1); Concat`):
    /// pushed in place when nothing else holds `acc`, otherwise a new
    /// list as [`Machine::concat_lists`] makes one.
    #[inline]
    fn push_list(&mut self, mut acc: Rc<ListObj>, x: Value) -> Result<Value, RunError> {
        // As `acc ++ [x]` is charged: a unit, and one for the element
        // added when `acc` has any (the shorter side of a concatenation).
        self.tick(1 + u64::from(!acc.is_empty()))?;
        let room = self.room_to_grow(&acc, 1)?;
        match ListObj::push_unique(&mut acc, x, room) {
            Ok(()) => Ok(Value(Repr::List(acc))),
            Err(x) => self.appended(&acc, [x].iter()),
        }
    }

    /// One step of [`Op::Each`] over the list in local `l` of the frame
    /// at `base`, by the `Int` in local `i`: the element at the index,
    /// the index then counted up; `None` when the index has reached the
    /// list's length.
    #[inline(always)]
    pub(super) fn each(&mut self, base: usize, l: u32, i: u32) -> Result<Option<Value>, RunError> {
        let at = match self.stack.get(base + i as usize) {
            Some(Value(Repr::Int(k))) => usize::try_from(*k).map_err(|_| bad_index())?,
            _ => return Err(RunError::internal("a walk over a list without an index")),
        };
        let item = match self.stack.get(base + l as usize) {
            Some(Value(Repr::List(xs))) => match xs.get(at) {
                Some(x) => x.clone(),
                None => return Ok(None),
            },
            _ => return Err(RunError::internal("a walk over a value that is not a list")),
        };
        if let Some(slot) = self.stack.get_mut(base + i as usize) {
            *slot = Value(Repr::Int(at as i64 + 1));
        }
        Ok(Some(item))
    }

    /// An empty list with room for as many elements as the list at
    /// `slot` of the stack has ([`Op::ListFor`]), the room checked
    /// against the memory limit.
    pub(super) fn list_for(&mut self, slot: usize) -> Result<Value, RunError> {
        let n = match self.stack.get(slot) {
            Some(Value(Repr::List(xs))) => xs.len(),
            _ => return Err(RunError::internal("the room of a value that is not a list")),
        };
        self.check_memory(n.saturating_mul(value::SLOT) + value::HEADER)?;
        Ok(Value(Repr::List(ListObj::with_capacity(n))))
    }

    /// `acc ++ [x]` for [`Op::AppendLocal`], `acc` moved out of its slot:
    /// in place when nothing else holds it (see [`Machine::push_list`]).
    #[inline(always)]
    pub(super) fn append(&mut self, acc: Value, x: Value) -> Result<Value, RunError> {
        match acc {
            Value(Repr::List(acc)) => self.push_list(acc, x),
            _ => Err(RunError::internal("added to a value that is not a list")),
        }
    }

    /// Room for `list` to grow in place by `extra` elements: the slots it
    /// needs are checked against the memory limit, and the bytes left
    /// beyond them (for spare slots) returned. When so little is left
    /// that the growth moves the list without room for the next ones,
    /// the elements it moves are charged as work (otherwise growth by
    /// half again pays for its moves).
    fn room_to_grow(&mut self, list: &ListObj, extra: usize) -> Result<usize, RunError> {
        let needed = list.needed(extra);
        if needed == 0 {
            return Ok(0);
        }
        self.check_memory(needed)?;
        let room = self.memory_left().saturating_sub(needed);
        self.tick(list.tight_moves(extra, room) as u64)?;
        Ok(room)
    }

    /// A new list of `list`'s elements then `extra`, `list` being shared:
    /// charged one unit of work and one slot per element it copies.
    fn appended<'v>(
        &mut self,
        list: &Rc<ListObj>,
        extra: impl ExactSizeIterator<Item = &'v Value>,
    ) -> Result<Value, RunError> {
        let copies = list.append_copies(extra.len());
        self.tick(copies as u64)?;
        self.check_memory(copies.saturating_mul(value::SLOT) + value::HEADER)?;
        Ok(Value(Repr::List(ListObj::appended(list, extra))))
    }

    /// A binary operator on two values.
    pub(super) fn arith(&mut self, op: Arith, x: Value, y: Value) -> Result<Value, RunError> {
        use Arith::*;
        let (x, y) = match (x, y) {
            (Value(Repr::List(a)), Value(Repr::List(b))) if op == Concat => {
                return self.concat_lists(a, b);
            }
            pair => pair,
        };
        Ok(match (op, &x, &y) {
            (Add, Value(Repr::Int(a)), Value(Repr::Int(b))) => Value(Repr::Int(
                a.checked_add(*b).ok_or_else(|| overflow(*a, "+", *b))?,
            )),
            (Sub, Value(Repr::Int(a)), Value(Repr::Int(b))) => Value(Repr::Int(
                a.checked_sub(*b).ok_or_else(|| overflow(*a, "-", *b))?,
            )),
            (Mul, Value(Repr::Int(a)), Value(Repr::Int(b))) => Value(Repr::Int(
                a.checked_mul(*b).ok_or_else(|| overflow(*a, "*", *b))?,
            )),
            (Div, Value(Repr::Int(a)), Value(Repr::Int(0))) => return Err(by_zero(*a, "/")),
            (Rem, Value(Repr::Int(a)), Value(Repr::Int(0))) => return Err(by_zero(*a, "%")),
            (Div, Value(Repr::Int(a)), Value(Repr::Int(b))) => Value(Repr::Int(
                a.checked_div(*b).ok_or_else(|| overflow(*a, "/", *b))?,
            )),
            // The remainder always fits (`MIN % -1` is 0).
            (Rem, Value(Repr::Int(a)), Value(Repr::Int(b))) => Value(Repr::Int(a.wrapping_rem(*b))),
            (Add, Value(Repr::Float(a)), Value(Repr::Float(b))) => Value::float(a.get() + b.get()),
            (Sub, Value(Repr::Float(a)), Value(Repr::Float(b))) => Value::float(a.get() - b.get()),
            (Mul, Value(Repr::Float(a)), Value(Repr::Float(b))) => Value::float(a.get() * b.get()),
            (Div, Value(Repr::Float(a)), Value(Repr::Float(b))) => Value::float(a.get() / b.get()),
            (Rem, Value(Repr::Float(a)), Value(Repr::Float(b))) => Value::float(a.get() % b.get()),
            (Lt, Value(Repr::Int(a)), Value(Repr::Int(b))) => Value::bool(a < b),
            (Le, Value(Repr::Int(a)), Value(Repr::Int(b))) => Value::bool(a <= b),
            (Gt, Value(Repr::Int(a)), Value(Repr::Int(b))) => Value::bool(a > b),
            (Ge, Value(Repr::Int(a)), Value(Repr::Int(b))) => Value::bool(a >= b),
            (Lt, Value(Repr::Float(a)), Value(Repr::Float(b))) => Value::bool(a.get() < b.get()),
            (Le, Value(Repr::Float(a)), Value(Repr::Float(b))) => Value::bool(a.get() <= b.get()),
            (Gt, Value(Repr::Float(a)), Value(Repr::Float(b))) => Value::bool(a.get() > b.get()),
            (Ge, Value(Repr::Float(a)), Value(Repr::Float(b))) => Value::bool(a.get() >= b.get()),
            (Eq, Value(Repr::Int(a)), Value(Repr::Int(b))) => Value::bool(a == b),
            (Ne, Value(Repr::Int(a)), Value(Repr::Int(b))) => Value::bool(a != b),
            (Eq | Ne, _, _) => {
                let same = value::equal(&x, &y);
                self.metered()?;
                Value::bool(same == (op == Eq))
            }
            (Lt | Le | Gt | Ge, _, _) => {
                let o = value::compare(&x, &y);
                self.metered()?;
                Value::bool(match op {
                    Lt => o == Ordering::Less,
                    Le => o != Ordering::Greater,
                    Gt => o == Ordering::Greater,
                    _ => o != Ordering::Less,
                })
            }
            (Concat, Value(Repr::Str(a)), Value(Repr::Str(b))) => {
                let n = a.text.len() + b.text.len();
                self.check_memory(n + value::HEADER)?;
                let mut s = String::with_capacity(n);
                let m = self.meter();
                let _ = meter::push_str(&mut s, &a.text, m) && meter::push_str(&mut s, &b.text, m);
                self.metered()?;
                Value::str(s)
            }
            _ => {
                return Err(RunError::internal(format!(
                    "operator {op:?} applied to values of the wrong kinds"
                )));
            }
        })
    }

    /// `local op capture` in the running frame (`LocalCaptureArith`,
    /// `BranchLocalCapture`): `Int` with `Int` read in place, anything
    /// else through [`Machine::arith`], the local moved out first when
    /// `moved` (its last read).
    fn local_capture_arith(
        &mut self,
        p: u16,
        c: u16,
        a: Arith,
        moved: bool,
    ) -> Result<Value, RunError> {
        let frame = self.frames.last().ok_or_else(bad_index)?;
        let at = frame.base as usize + usize::from(p);
        let y = frame
            .closure
            .as_ref()
            .and_then(|cl| cl.captures.get(usize::from(c)))
            .ok_or_else(bad_index)?;
        let x = self.stack.get_mut(at).ok_or_else(bad_index)?;
        if let (Value(Repr::Int(p)), Value(Repr::Int(q))) = (&*x, y)
            && let Some(v) = super::inline::int_fast(a, *p, *q)
        {
            return Ok(v);
        }
        let y = y.clone();
        let x = if moved {
            std::mem::replace(x, Value(Repr::Unit))
        } else {
            x.clone()
        };
        self.arith(a, x, y)
    }

    /// The data operations, and calls of natives; `Some(target)` when the
    /// op jumps.
    pub(super) fn data_op(&mut self, op: Op) -> Result<Option<u32>, RunError> {
        let pop = |m: &mut Self| m.stack.pop().ok_or_else(bad_index);
        match op {
            Op::Tuple(n) => {
                let items = self.take_small(n as usize)?;
                let t = self.recycled.tuple(items);
                self.push(t);
            }
            Op::List(n) => {
                let items = self.take(n as usize)?;
                self.push(Value(Repr::List(ListObj::new(items))));
            }
            Op::Push => {
                let x = pop(self)?;
                let Value(Repr::List(acc)) = pop(self)? else {
                    return Err(RunError::internal("pushed onto a value that is not a list"));
                };
                let v = self.push_list(acc, x)?;
                self.push(v);
            }
            Op::Variant(c, n) => {
                let fields = self.take_small(n as usize)?;
                let v = if fields.is_empty() {
                    Value(Repr::Tag(c.into()))
                } else {
                    self.recycled.variant(c, fields)
                };
                self.push(v);
            }
            Op::Record(shape) => {
                let shape = self
                    .shapes
                    .get(shape as usize)
                    .cloned()
                    .ok_or_else(bad_index)?;
                let values = self.take(shape.len())?;
                self.stack
                    .push(Value(Repr::Record(RecordObj::new(shape, values))));
            }
            Op::Update(shape) => {
                let fields = self
                    .shapes
                    .get(shape as usize)
                    .cloned()
                    .ok_or_else(bad_index)?;
                let new = self.take(fields.len())?;
                let Value(Repr::Record(base)) = pop(self)? else {
                    return Err(RunError::internal("updated a value that is not a record"));
                };
                let mut values = base.values.clone();
                for (sym, v) in fields.iter().zip(new) {
                    let at = base
                        .shape
                        .iter()
                        .position(|s| s == sym)
                        .ok_or_else(bad_index)?;
                    if let Some(slot) = values.get_mut(at) {
                        *slot = v;
                    }
                }
                self.push(Value(Repr::Record(RecordObj::new(
                    base.shape.clone(),
                    values,
                ))));
            }
            Op::Field(sym) => {
                let Value(Repr::Record(r)) = pop(self)? else {
                    return Err(RunError::internal(
                        "a field of a value that is not a record",
                    ));
                };
                let at = r
                    .shape
                    .iter()
                    .position(|s| *s == sym)
                    .ok_or_else(bad_index)?;
                let v = r.values.get(at).cloned().ok_or_else(bad_index)?;
                self.push(v);
            }
            Op::Part(i) => {
                let v = pop(self)?;
                let part = v.parts().get(i as usize).cloned().ok_or_else(bad_index)?;
                self.push(part);
            }
            Op::Interp(n) => {
                let parts = self.take(n as usize)?;
                let mut s = String::new();
                let budget = self.memory_left();
                for p in &parts {
                    let left = budget.saturating_sub(s.len());
                    let shown = display::display_in(
                        p,
                        self.module,
                        display::StrForm::Text,
                        &mut s,
                        left,
                        self.meter(),
                    );
                    self.displayed(shown)?;
                }
                self.check_memory(s.len() + value::HEADER)?;
                self.push(Value::str(s));
            }
            Op::TestCtor(c, target) => {
                let v = pop(self)?;
                if v.ctor() != Some(c) {
                    return Ok(Some(target));
                }
            }
            Op::LocalCaptureArith(p, c, a, moved) => {
                let v = self.local_capture_arith(p, c, a, moved)?;
                self.push(v);
            }
            Op::BranchLocalCapture(p, c, cmp, moved, t) => {
                let holds = match self.local_capture_arith(p, c, cmp, moved)? {
                    Value(Repr::Bool(b)) => b.get(),
                    _ => return Err(RunError::internal("a comparison that is not a Bool")),
                };
                return Ok((!holds).then_some(t));
            }
            Op::CallNative(n, argc) => {
                let start = self
                    .stack
                    .len()
                    .checked_sub(argc as usize)
                    .ok_or_else(bad_index)?;
                let v = crate::natives::call(self, n, start)?;
                self.metered()?;
                self.stack.truncate(start);
                self.push(v);
            }
            Op::TestEq(target) => {
                let y = pop(self)?;
                let x = pop(self)?;
                let same = value::equal(&x, &y);
                self.metered()?;
                if !same {
                    return Ok(Some(target));
                }
            }
            Op::TestLen(n, target) | Op::TestMinLen(n, target) => {
                let len = list_len(Some(&pop(self)?))?;
                let ok = if matches!(op, Op::TestLen(..)) {
                    len == n as usize
                } else {
                    len >= n as usize
                };
                if !ok {
                    return Ok(Some(target));
                }
            }
            Op::Item(i) => {
                let v = list_item(Some(&pop(self)?), i)?;
                self.push(v);
            }
            Op::DropItems(n) => {
                let v = pop(self)?;
                let rest = self.rest_of(v, n)?;
                self.push(rest);
            }
            _ => return Err(RunError::internal(format!("unexpected op {op:?}"))),
        }
        Ok(None)
    }

    /// A list without its first `n` elements (`DropItems`): in place when
    /// nothing else holds it, otherwise a new list, charged for what it
    /// copies.
    pub(super) fn rest_of(&mut self, list: Value, n: u32) -> Result<Value, RunError> {
        let Value(Repr::List(mut l)) = list else {
            return Err(RunError::internal("the rest of a value that is not a list"));
        };
        if !ListObj::drop_front_unique(&mut l, n as usize) {
            let copies = l.rest_copies(n as usize);
            self.tick(copies as u64)?;
            self.check_memory(copies * value::SLOT + value::HEADER)?;
            l = ListObj::rest(&l, n as usize);
        }
        Ok(Value(Repr::List(l)))
    }

    /// Pop the top `n` values, in order.
    fn take(&mut self, n: usize) -> Result<Vec<Value>, RunError> {
        let start = self.stack.len().checked_sub(n).ok_or_else(bad_index)?;
        Ok(self.stack.split_off(start))
    }

    /// As [`Machine::take`], into a [`Small`] (inline when two or fewer).
    /// One or two values are popped straight into the inline room (a
    /// pair, `Some(x)`: the common cases), more drained.
    #[inline]
    pub(super) fn take_small(&mut self, n: usize) -> Result<Small, RunError> {
        let start = self.stack.len().checked_sub(n).ok_or_else(bad_index)?;
        match n {
            1 => {
                let a = self.stack.pop().ok_or_else(bad_index)?;
                // The second slot is room, not an element (a `()`, which
                // owns nothing).
                Ok(Small::from_buf_and_len([a, Value(Repr::Unit)], 1))
            }
            2 => {
                let b = self.stack.pop().ok_or_else(bad_index)?;
                let a = self.stack.pop().ok_or_else(bad_index)?;
                Ok(Small::from_buf([a, b]))
            }
            _ => Ok(self.stack.drain(start..).collect()),
        }
    }

    /// Bytes left under the memory limit.
    pub(crate) fn memory_left(&self) -> usize {
        self.limits.memory.saturating_sub(self.memory_used())
    }
}

/// The length of the list a pattern tests (`None`: a local out of
/// range).
#[inline(always)]
pub(super) fn list_len(list: Option<&Value>) -> Result<usize, RunError> {
    match list {
        Some(Value(Repr::List(l))) => Ok(l.len()),
        Some(_) => Err(RunError::internal(
            "a list pattern on a value that is not a list",
        )),
        None => Err(bad_index()),
    }
}

/// The element at index `i` of the list a pattern reads (`None`: a local
/// out of range).
#[inline(always)]
pub(super) fn list_item(list: Option<&Value>, i: u32) -> Result<Value, RunError> {
    match list {
        Some(Value(Repr::List(l))) => l.get(i as usize).cloned().ok_or_else(bad_index),
        Some(_) => Err(RunError::internal(
            "an element of a value that is not a list",
        )),
        None => Err(bad_index()),
    }
}
