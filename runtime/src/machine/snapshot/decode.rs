//! Reading a paused run's state back (see the parent module for the
//! format), from untrusted bytes.
//!
//! Objects are read in order, each referring only to objects before it,
//! into a table; the roots (globals, stack, frames, handlers) then refer
//! into the table, which is dropped before the run is handed out, so the
//! objects' reference counts are the original's. Every count is checked
//! against the bytes left before anything is allocated for it, every
//! index against the module or the state read so far, and the memory the
//! values take against the limit as they are made.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::clock::Instant;

use writ_lang::types::BuiltinEffect;

use super::super::entry::literal_values;
use super::super::handlers::Resumption;
use super::super::{Entry, Frame, Kind, Machine, Paused, Pending};
use super::reader::Reader;
use super::{COMPARE_UNITS_PER_BYTE, MAGIC, VERSION, kind, refused, tag, too_big};
use crate::code::Module;
use crate::error::RunError;
use crate::limits::{CHECK_EVERY, Limits};
use crate::meter::{self, POLL_EVERY};
use crate::value::{
    self, ClosureObj, Key, ListObj, MapObj, Parts, RecordObj, Repr, SLOT, Small, StrObj, Value,
    VariantObj, compare,
};

/// An object read: a value, or a handler's clause closures.
enum Made {
    Value(Value),
    Clauses(Rc<Vec<Value>>),
}

/// The decoder: the reader, the module, and the objects read so far.
struct Dec<'a, 'b> {
    r: Reader<'b>,
    module: &'a Module,
    limits: &'b Limits,
    /// The thread's live bytes before anything of the run was made.
    base: usize,
    table: Vec<Made>,
    shapes: Vec<Rc<[u32]>>,
}

/// The paused run the bytes are a snapshot of (see [`super::restore`]).
pub(super) fn decode<'a>(
    module: &'a Module,
    bytes: &[u8],
    limits: &Limits,
    cancel: Option<&Arc<AtomicBool>>,
) -> Result<Paused<'a>, RunError> {
    let mut r = Reader { bytes, at: 0 };
    let magic = r.take(MAGIC.len(), "a Writ snapshot (its magic `WRITSNAP`)")?;
    if magic != MAGIC {
        return Err(refused(
            "a Writ snapshot (its magic `WRITSNAP`)",
            0,
            "other bytes",
        ));
    }
    let mut word = [0u8; 4];
    word.copy_from_slice(r.take(4, "the snapshot format's version")?);
    let version = u32::from_le_bytes(word);
    if version != VERSION {
        return Err(refused(
            &format!("the snapshot format's version {VERSION}"),
            MAGIC.len(),
            format_args!("version {version}"),
        ));
    }
    let mut long = [0u8; 8];
    long.copy_from_slice(r.take(8, "the program's fingerprint")?);
    let print = u64::from_le_bytes(long);
    if print != module.fingerprint() {
        return Err(refused(
            &format!(
                "a snapshot of this program (fingerprint {:016x})",
                module.fingerprint()
            ),
            MAGIC.len() + 4,
            format_args!("a snapshot of another program (fingerprint {print:016x})"),
        ));
    }

    // What the run had used (numbers past these bounds cannot come from a
    // run, and would overflow the machine's counters).
    const HALF: u64 = u64::MAX / 2;
    let steps = r.at_most(HALF, "the steps taken")?;
    let window = r.at_most(CHECK_EVERY, "the steps of the check window")?;
    if window == 0 {
        return Err(refused("a check window of at least one step", r.at, 0));
    }
    let countdown = r.at_most(window, "the steps left in the check window")?;
    if countdown == 0 {
        return Err(refused("at least one step left in the window", r.at, 0));
    }
    let used = r.at_most(HALF, "the units of metered work")?;
    let poll = r.at_most(POLL_EVERY, "the units to the next poll")?;
    if poll == 0 {
        return Err(refused("at least one unit to the next poll", r.at, 0));
    }
    let secs = r.at_most(HALF, "the running time's seconds")?;
    let nanos = r.at_most(999_999_999, "the running time's nanoseconds")? as u32;
    let earlier = Duration::new(secs, nanos);
    let output = r.usize("the output written")?;
    let peak = r.usize("the memory peak")?;
    let live = r.usize("the live bytes")?;

    let base = value::live_bytes();
    let literals = literal_values(module);
    let shapes: Vec<Rc<[u32]>> = module
        .shapes
        .iter()
        .map(|s| Rc::from(s.as_slice()))
        .collect();
    let mut d = Dec {
        r,
        module,
        limits,
        base,
        table: literals.iter().cloned().map(Made::Value).collect(),
        shapes: shapes.clone(),
    };
    // Map keys are compared as maps are rebuilt: metered, on a budget of
    // their own (not the run's fuel), in proportion to the bytes.
    let scope = meter::Scope::start(
        COMPARE_UNITS_PER_BYTE
            .saturating_mul(bytes.len() as u64)
            .saturating_add(POLL_EVERY),
        None,
        None,
    );
    d.objects()?;
    drop(scope);
    let globals = d.values("the globals")?;
    if globals.len() != module.globals as usize {
        return Err(refused(
            &format!("{} globals", module.globals),
            d.r.at,
            globals.len(),
        ));
    }
    let stack = d.values("the operand stack")?;
    let frames = d.frames(stack.len(), (0, 0))?;
    let handlers = d.entries(&frames, stack.len(), (0, 0, 0))?;
    check_top(&frames, d.r.at)?;
    let pending = d.pending(&frames, stack.len())?;
    if d.r.left() != 0 {
        return Err(refused(
            "the end of the snapshot",
            d.r.at,
            format_args!("{} more bytes", d.r.left()),
        ));
    }
    drop(d.table);

    let mut m = Box::new(Machine {
        module,
        limits: limits.clone(),
        literals,
        shapes,
        globals,
        stack,
        frames,
        handlers,
        spare: Default::default(),
        recycled: Default::default(),
        steps,
        window,
        countdown,
        started: Instant::now(),
        earlier,
        memory_base: base,
        stack_wanted: 0,
        peak: Cell::new(peak),
        output,
        pending: Some(pending),
        meter: None,
    });
    // The memory the run holds: what the values restored take, or what
    // the run counted when it paused, if that was more (values of the run
    // that its host held then are not in the snapshot).
    let live = value::live_bytes().saturating_sub(base).max(live);
    let in_use = live.saturating_add(m.stacks_bytes());
    if in_use > limits.memory {
        return Err(too_big(limits, "restoring its snapshot"));
    }
    m.memory_base = value::live_bytes().saturating_sub(live);
    let meter = meter::Parked::restored(
        used,
        used.saturating_add(poll),
        limits.fuel.saturating_sub(steps),
        Some((limits.time, limits.time.saturating_sub(earlier))),
        cancel.cloned(),
    );
    Ok(Paused {
        machine: m,
        meter,
        live,
    })
}

/// The refusal of map keys whose comparisons passed the budget.
fn costly(at: usize) -> RunError {
    refused(
        "map keys that compare within the work a snapshot of this size allows",
        at,
        "keys that need more",
    )
}

/// The run's own frames: its top level at the bottom, and only there.
fn check_top(frames: &[Frame], at: usize) -> Result<(), RunError> {
    match frames.first() {
        Some(f) if f.kind == Kind::Top && f.base == 0 => {}
        _ => {
            return Err(refused(
                "the top level's frame at the bottom",
                at,
                "another",
            ));
        }
    }
    if frames.iter().skip(1).any(|f| f.kind == Kind::Top) {
        return Err(refused("one top-level frame", at, "more"));
    }
    Ok(())
}

impl<'a> Dec<'a, '_> {
    /// Fail if the values made so far pass the memory limit, or would with
    /// `more` bytes.
    fn charge(&self, more: usize) -> Result<(), RunError> {
        let made = value::live_bytes().saturating_sub(self.base);
        if made.saturating_add(more) > self.limits.memory {
            return Err(too_big(self.limits, "restoring its snapshot"));
        }
        Ok(())
    }

    fn value(&mut self) -> Result<Value, RunError> {
        let at = self.r.at;
        let t = self.r.byte("a value")?;
        Ok(Value(match t {
            tag::UNIT => Repr::Unit,
            tag::FALSE => Repr::Bool(false.into()),
            tag::TRUE => Repr::Bool(true.into()),
            tag::INT => {
                let z = self.r.uint("an integer")?;
                Repr::Int(((z >> 1) as i64) ^ -((z & 1) as i64))
            }
            tag::FLOAT => {
                let mut b = [0u8; 8];
                b.copy_from_slice(self.r.take(8, "a float")?);
                Repr::Float((f64::from_bits(u64::from_le_bytes(b))).into())
            }
            tag::CTOR => {
                Repr::Tag((self.r.index(self.module.ctors.len(), "a constructor")? as u32).into())
            }
            tag::FUNC => {
                Repr::Func((self.r.index(self.module.functions.len(), "a function")? as u32).into())
            }
            tag::NATIVE => Repr::Native(
                (self
                    .r
                    .index(self.module.natives.len(), "a native function")?
                    as u32)
                    .into(),
            ),
            tag::OBJECT => {
                let i = self.r.index(self.table.len(), "an object written before")?;
                match self.table.get(i) {
                    Some(Made::Value(v)) => return Ok(v.clone()),
                    _ => return Err(refused("a value's object", at + 1, "a handler's clauses")),
                }
            }
            other => return Err(refused("a value's tag (0 to 8)", at, other)),
        }))
    }

    /// A count and that many values (each at least one byte).
    fn values(&mut self, what: &str) -> Result<Vec<Value>, RunError> {
        let n = self.r.count(1, what)?;
        self.charge(n.saturating_mul(SLOT))?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(self.value()?);
        }
        Ok(out)
    }

    /// A record's shape: the module's or a new one (field symbols in
    /// increasing order of their names).
    fn shape(&mut self) -> Result<Rc<[u32]>, RunError> {
        let at = self.r.at;
        let i = self.r.uint("a record's shape")?;
        if i > 0 {
            return usize::try_from(i - 1)
                .ok()
                .and_then(|i| self.shapes.get(i))
                .cloned()
                .ok_or_else(|| {
                    refused(
                        "a record's shape",
                        at,
                        format_args!("shape {} (there are {})", i - 1, self.shapes.len()),
                    )
                });
        }
        let n = self.r.count(1, "a shape's fields")?;
        let symbols = &self.module.symbols;
        let mut shape: Vec<u32> = Vec::with_capacity(n);
        for _ in 0..n {
            let at = self.r.at;
            let s = self.r.index(symbols.len(), "a field's symbol")?;
            if let Some(&prev) = shape.last()
                && symbols.get(prev as usize) >= symbols.get(s)
            {
                return Err(refused(
                    "fields in increasing order of their names",
                    at,
                    "a field out of order",
                ));
            }
            shape.push(s as u32);
        }
        let shape: Rc<[u32]> = Rc::from(shape);
        self.shapes.push(shape.clone());
        Ok(shape)
    }

    /// The objects, up to their end.
    fn objects(&mut self) -> Result<(), RunError> {
        loop {
            let at = self.r.at;
            let k = self.r.byte("an object")?;
            let made = match k {
                kind::END => return Ok(()),
                kind::STR => {
                    let n = self.r.count(1, "a string's length")?;
                    self.charge(n)?;
                    let at = self.r.at;
                    let text = std::str::from_utf8(self.r.take(n, "a string")?)
                        .map_err(|_| refused("a string in UTF-8", at, "other bytes"))?;
                    Made::Value(Value(Repr::Str(StrObj::new(text.to_string()))))
                }
                kind::TUPLE => {
                    let items = self.values("a tuple's parts")?;
                    Made::Value(Value(Repr::Tuple(Parts::new(Small::from_vec(items)))))
                }
                kind::RECORD => {
                    let shape = self.shape()?;
                    let at = self.r.at;
                    let values = self.values("a record's fields")?;
                    if values.len() != shape.len() {
                        return Err(refused(
                            &format!("{} fields, as the record's shape has", shape.len()),
                            at,
                            values.len(),
                        ));
                    }
                    Made::Value(Value(Repr::Record(RecordObj::new(shape, values))))
                }
                kind::VARIANT => {
                    let ctor = self.r.index(self.module.ctors.len(), "a constructor")?;
                    let at = self.r.at;
                    let fields = self.values("a variant's fields")?;
                    if fields.is_empty() {
                        return Err(refused("a variant with fields", at, "none"));
                    }
                    Made::Value(Value(Repr::Variant(VariantObj::new(
                        ctor as u32,
                        Small::from_vec(fields),
                    ))))
                }
                kind::LIST => {
                    let items = self.values("a list's elements")?;
                    Made::Value(Value(Repr::List(ListObj::new(items))))
                }
                kind::VIEW => {
                    let i = self.r.index(self.table.len(), "the list a view shows")?;
                    let root = match self.table.get(i) {
                        Some(Made::Value(Value(Repr::List(l)))) if l.viewed().is_none() => {
                            l.clone()
                        }
                        _ => {
                            return Err(refused(
                                "a list that is not a view",
                                at + 1,
                                "another object",
                            ));
                        }
                    };
                    let start = self.r.at_most(root.len() as u64, "where a view starts")?;
                    Made::Value(Value(Repr::List(ListObj::rest(&root, start as usize))))
                }
                kind::MAP => Made::Value(self.map()?),
                kind::CLOSURE => {
                    let f = self.r.index(self.module.functions.len(), "a function")?;
                    let at = self.r.at;
                    let captures = self.values("a closure's captures")?;
                    let want = self.module.functions.get(f).map_or(0, |f| f.captures.len());
                    if captures.len() != want {
                        return Err(refused(
                            &format!("{want} captured values, as the function has"),
                            at,
                            captures.len(),
                        ));
                    }
                    Made::Value(Value(Repr::Closure(ClosureObj::new(
                        f as u32,
                        Small::from_vec(captures),
                    ))))
                }
                kind::CLAUSES => Made::Clauses(Rc::new(self.values("a handler's clauses")?)),
                kind::RESUME => Made::Value(self.resumption()?),
                other => return Err(refused("an object's kind (0 to 10)", at, other)),
            };
            self.table.push(made);
            self.charge(0)?;
        }
    }

    /// A map: its entries, keys in strictly increasing order.
    fn map(&mut self) -> Result<Value, RunError> {
        let n = self.r.count(2, "a map's entries")?;
        self.charge(n.saturating_mul(2 * SLOT))?;
        let mut entries = crate::value::Entries::new();
        let mut last: Option<Value> = None;
        for _ in 0..n {
            let at = self.r.at;
            let k = self.value()?;
            let v = self.value()?;
            let order = last.as_ref().map(|prev| compare(prev, &k));
            if meter::tripped().is_some() {
                return Err(costly(at));
            }
            if order.is_some_and(|o| o != std::cmp::Ordering::Less) {
                return Err(refused(
                    "map keys in increasing order",
                    at,
                    "a key not after the one before",
                ));
            }
            last = Some(k.clone());
            entries.insert(Key(k), v);
            if meter::tripped().is_some() {
                return Err(costly(at));
            }
        }
        entries.shrink_to_fit();
        Ok(Value(Repr::Map(MapObj::new(entries))))
    }

    /// A captured continuation: its bases, stack, frames and handlers.
    fn resumption(&mut self) -> Result<Value, RunError> {
        let fb = self.r.u32("a continuation's frame base")?;
        let sb = self.r.u32("a continuation's stack base")?;
        let hb = self.r.u32("a continuation's handler base")?;
        let stack = self.values("a continuation's stack")?;
        let frames = self.frames(stack.len(), (fb, sb))?;
        let handlers = self.entries(&frames, stack.len(), (fb, sb, hb))?;
        if frames.iter().any(|f| f.kind == Kind::Top) {
            return Err(refused(
                "a continuation without the top level",
                self.r.at,
                "its frame",
            ));
        }
        Ok(Value(Repr::Resume(Rc::new(Resumption::new(
            frames,
            stack,
            handlers,
            (fb, sb, hb),
        )))))
    }

    /// Frames over a stack of `height` slots starting at `bases.1` (and
    /// numbered from `bases.0`).
    fn frames(&mut self, height: usize, bases: (u32, u32)) -> Result<Vec<Frame>, RunError> {
        let n = self.r.count(5, "the frames")?;
        self.charge(n.saturating_mul(std::mem::size_of::<Frame>()))?;
        let top = u64::from(bases.1) + height as u64;
        let mut frames: Vec<Frame> = Vec::with_capacity(n);
        for _ in 0..n {
            let at = self.r.at;
            let func = self
                .r
                .index(self.module.functions.len(), "a frame's function")?;
            let ops = self.module.functions.get(func).map_or(0, |f| f.ops.len());
            // On one of its ops: the run loop fetches the op at `pc`
            // without a bounds test.
            let last = (ops as u64)
                .checked_sub(1)
                .ok_or_else(|| refused("a function with code", at, "one without"))?;
            let pc = self.r.at_most(last, "a frame's place in its code")? as u32;
            let base_at = self.r.at;
            let base = self.r.u32("a frame's base")?;
            let lowest = frames.last().map_or(bases.1, |f| f.base);
            if base < lowest || u64::from(base) > top {
                return Err(refused(
                    &format!("a frame base from {lowest} to {top}"),
                    base_at,
                    base,
                ));
            }
            let kind = match self.r.byte("a frame's kind")? {
                0 => Kind::Normal,
                1 => Kind::Body,
                2 => Kind::Clause,
                3 => Kind::Top,
                other => return Err(refused("a frame's kind (0 to 3)", self.r.at - 1, other)),
            };
            let c = self.r.uint("a frame's closure")?;
            let closure = if c == 0 {
                None
            } else {
                match usize::try_from(c - 1).ok().and_then(|i| self.table.get(i)) {
                    Some(Made::Value(Value(Repr::Closure(cl)))) if cl.func as usize == func => {
                        Some(cl.clone())
                    }
                    _ => {
                        return Err(refused(
                            "the frame's closure, of its function",
                            at,
                            "another object",
                        ));
                    }
                }
            };
            frames.push(Frame {
                func: func as u32,
                pc,
                base,
                kind,
                closure,
            });
        }
        Ok(frames)
    }

    /// Handler entries over `frames` and a stack of `height` slots
    /// (numbered from the bases: frames, stack, handlers): each handler's
    /// frame is its body's, each hidden one a handler below.
    fn entries(
        &mut self,
        frames: &[Frame],
        height: usize,
        bases: (u32, u32, u32),
    ) -> Result<Vec<Entry>, RunError> {
        let n = self.r.count(2, "the handler entries")?;
        self.charge(n.saturating_mul(std::mem::size_of::<Entry>()))?;
        let (fb, sb, hb) = (u64::from(bases.0), u64::from(bases.1), u64::from(bases.2));
        let mut entries: Vec<Entry> = Vec::with_capacity(n);
        for i in 0..n {
            let at = self.r.at;
            match self.r.byte("a handler entry")? {
                0 => {
                    let t = self.r.u32("the handler a clause hides")?;
                    let own = u64::from(t);
                    let hidden = own
                        .checked_sub(hb)
                        .filter(|&k| k < i as u64)
                        .and_then(|k| entries.get(k as usize));
                    if !matches!(hidden, Some(Entry::Handler { .. })) {
                        return Err(refused(
                            "a handler below the clause that hides it",
                            at + 1,
                            t,
                        ));
                    }
                    entries.push(Entry::Skip(t));
                }
                1 => {
                    let info = self.r.index(self.module.handlers.len(), "a handler")?;
                    let c_at = self.r.at;
                    let c = self.r.index(self.table.len(), "a handler's clauses")?;
                    let closures = match self.table.get(c) {
                        Some(Made::Clauses(cl)) => cl.clone(),
                        _ => return Err(refused("a handler's clauses", c_at, "another object")),
                    };
                    let want = self.module.handlers.get(info).map_or(0, |h| h.closures);
                    if closures.len() != want as usize {
                        return Err(refused(
                            &format!("{want} clause closures, as the handler has"),
                            c_at,
                            closures.len(),
                        ));
                    }
                    let param = self.value()?;
                    let frame = self.r.at_most(
                        (fb + frames.len() as u64)
                            .saturating_sub(1)
                            .min(u64::from(u32::MAX)),
                        "a handler's frame",
                    )?;
                    let stack = self.r.at_most(
                        (sb + height as u64).min(u64::from(u32::MAX)),
                        "a handler's stack",
                    )?;
                    let body = frame
                        .checked_sub(fb)
                        .and_then(|i| frames.get(i as usize))
                        .map(|f| f.kind);
                    if body != Some(Kind::Body) || stack < sb {
                        return Err(refused(
                            "a handler's body frame and stack inside its part of the run",
                            at,
                            "others",
                        ));
                    }
                    entries.push(Entry::Handler {
                        info: info as u32,
                        closures,
                        param,
                        frame: frame as u32,
                        stack: stack as u32,
                    });
                }
                other => return Err(refused("a handler entry's kind (0 or 1)", at, other)),
            }
        }
        Ok(entries)
    }

    /// The operation the run stopped at: a host capability's (not
    /// `Fail`'s), its arguments on top of the running frame.
    fn pending(&mut self, frames: &[Frame], height: usize) -> Result<Pending, RunError> {
        let at = self.r.at;
        let effect = self
            .r
            .index(self.module.effects.len(), "the pending operation's effect")?;
        let info = self.module.effects.get(effect);
        if info.is_none_or(|e| BuiltinEffect::Fail.is(&e.name)) {
            return Err(refused("an operation of a host capability", at, "`Fail`"));
        }
        let op = self
            .r
            .index(info.map_or(0, |e| e.ops.len()), "the pending operation")?;
        let lowest = frames.last().map_or(0, |f| f.base as u64);
        let start = self
            .r
            .at_most(height as u64, "where the operation's arguments start")?;
        if start < lowest {
            return Err(refused(
                "the operation's arguments on the running frame",
                self.r.at,
                start,
            ));
        }
        Ok(Pending {
            effect: effect as u32,
            op: op as u32,
            start: start as usize,
        })
    }
}
