//! Writing a paused run's state (see the parent module for the format).
//!
//! The value graph is walked once, depth first, with an explicit work
//! list (never Rust recursion): an object is written after its children,
//! the first time it is met, and given the next index; every later
//! occurrence is that index. The output is checked against its bound as
//! it grows.

use std::collections::HashMap;
use std::rc::Rc;

use super::super::handlers::Resumption;
use super::super::{Entry, Frame, Kind, Machine, Paused};
use super::{MAGIC, VERSION, bound, kind, tag, too_big};
use crate::error::RunError;
use crate::value::{
    ClosureObj, ListObj, MapObj, Parts, RecordObj, Repr, StrObj, Value, VariantObj,
};

/// An object of the value graph, by reference.
#[derive(Clone, Copy)]
enum Node<'s> {
    Str(&'s Rc<StrObj>),
    Tuple(&'s Rc<Parts>),
    Record(&'s Rc<RecordObj>),
    Variant(&'s Rc<VariantObj>),
    List(&'s Rc<ListObj>),
    Map(&'s Rc<MapObj>),
    Closure(&'s Rc<ClosureObj>),
    Resume(&'s Rc<Resumption>),
    Clauses(&'s Rc<Vec<Value>>),
}

impl Node<'_> {
    /// The object's address: its identity while the run is borrowed.
    fn key(self) -> usize {
        fn at<T: ?Sized>(r: &Rc<T>) -> usize {
            Rc::as_ptr(r).cast::<()>() as usize
        }
        match self {
            Node::Str(r) => at(r),
            Node::Tuple(r) => at(r),
            Node::Record(r) => at(r),
            Node::Variant(r) => at(r),
            Node::List(r) => at(r),
            Node::Map(r) => at(r),
            Node::Closure(r) => at(r),
            Node::Resume(r) => at(r),
            Node::Clauses(r) => at(r),
        }
    }
}

/// The object a value refers to, if it is not a scalar.
fn node(v: &Value) -> Option<Node<'_>> {
    Some(match &v.0 {
        Repr::Str(r) => Node::Str(r),
        Repr::Tuple(r) => Node::Tuple(r),
        Repr::Record(r) => Node::Record(r),
        Repr::Variant(r) => Node::Variant(r),
        Repr::List(r) => Node::List(r),
        Repr::Map(r) => Node::Map(r),
        Repr::Closure(r) => Node::Closure(r),
        Repr::Resume(r) => Node::Resume(r),
        crate::value::plain!() => return None,
    })
}

/// Call `f` with each object `n` refers to directly.
fn children<'s>(n: Node<'s>, f: &mut impl FnMut(Node<'s>)) {
    fn each<'s>(values: impl Iterator<Item = &'s Value>, f: &mut impl FnMut(Node<'s>)) {
        for v in values {
            if let Some(c) = node(v) {
                f(c);
            }
        }
    }
    match n {
        Node::Str(_) => {}
        Node::Tuple(t) => each(t.items.iter(), f),
        Node::Record(r) => each(r.values.iter(), f),
        Node::Variant(v) => each(v.fields.iter(), f),
        Node::Closure(c) => each(c.captures.iter(), f),
        Node::Clauses(c) => each(c.iter(), f),
        Node::List(l) => match l.viewed() {
            Some((root, _)) => f(Node::List(root)),
            None => each(l.iter(), f),
        },
        Node::Map(m) => {
            for (k, v) in m.entries.iter() {
                each([&k.0, v].into_iter(), f);
            }
        }
        Node::Resume(r) => {
            for fr in &r.frames {
                if let Some(c) = &fr.closure {
                    f(Node::Closure(c));
                }
            }
            each(r.stack.iter(), f);
            entry_children(&r.handlers, f);
        }
    }
}

/// Call `f` with the objects of handler entries (clause lists and
/// parameters).
fn entry_children<'s>(entries: &'s [Entry], f: &mut impl FnMut(Node<'s>)) {
    for e in entries {
        if let Entry::Handler {
            closures, param, ..
        } = e
        {
            f(Node::Clauses(closures));
            if let Some(c) = node(param) {
                f(c);
            }
        }
    }
}

/// Where an object stands in the walk.
#[derive(Clone, Copy)]
enum Mark {
    /// Its children are being written.
    Open,
    /// Written, with this index.
    Done(u64),
}

/// The writer.
struct Enc<'s> {
    out: Vec<u8>,
    bound: usize,
    limits: &'s crate::limits::Limits,
    marks: HashMap<usize, Mark>,
    next: u64,
    /// Record shapes written (the module's first), by address.
    shapes: HashMap<usize, u64>,
}

/// The bytes of a paused run (see [`Paused::to_bytes`]).
pub(super) fn encode(p: &Paused<'_>) -> Result<Vec<u8>, RunError> {
    let m: &Machine<'_> = &p.machine;
    let Some(pending) = m.pending else {
        return Err(RunError::internal("a paused run without its operation"));
    };
    let (used, poll_at, tripped) = p.meter.units();
    if tripped.is_some() {
        return Err(RunError::internal("a paused run with an exhausted limit"));
    }
    let mut e = Enc {
        out: Vec::with_capacity(1024),
        bound: bound(&m.limits),
        limits: &m.limits,
        marks: HashMap::new(),
        next: m.literals.len() as u64,
        shapes: m
            .shapes
            .iter()
            .enumerate()
            .map(|(i, s)| (Rc::as_ptr(s).cast::<u32>() as usize, i as u64))
            .collect(),
    };
    for (i, l) in m.literals.iter().enumerate() {
        if let Some(n) = node(l) {
            e.marks.insert(n.key(), Mark::Done(i as u64));
        }
    }
    e.out.extend_from_slice(MAGIC);
    e.out.extend_from_slice(&VERSION.to_le_bytes());
    e.out
        .extend_from_slice(&m.module.fingerprint().to_le_bytes());
    for n in [
        m.steps,
        m.window,
        m.countdown,
        used,
        poll_at.saturating_sub(used),
        m.earlier.as_secs(),
        u64::from(m.earlier.subsec_nanos()),
        m.output as u64,
        m.peak.get() as u64,
        p.live as u64,
    ] {
        e.uint(n);
    }

    for v in m.globals.iter().chain(&m.stack) {
        if let Some(n) = node(v) {
            e.visit(n)?;
        }
    }
    for f in &m.frames {
        if let Some(c) = &f.closure {
            e.visit(Node::Closure(c))?;
        }
    }
    let mut roots = Vec::new();
    entry_children(&m.handlers, &mut |n| roots.push(n));
    for n in roots {
        e.visit(n)?;
    }
    e.out.push(kind::END);

    e.values(m.globals.iter())?;
    e.values(m.stack.iter())?;
    e.frames(&m.frames)?;
    e.entries(&m.handlers)?;
    e.uint(u64::from(pending.effect));
    e.uint(u64::from(pending.op));
    e.uint(pending.start as u64);
    e.check()?;
    Ok(e.out)
}

impl<'s> Enc<'s> {
    fn uint(&mut self, mut n: u64) {
        while n >= 0x80 {
            self.out.push((n as u8) | 0x80);
            n >>= 7;
        }
        self.out.push(n as u8);
    }

    fn check(&self) -> Result<(), RunError> {
        if self.out.len() > self.bound {
            return Err(too_big(self.limits, "its snapshot"));
        }
        Ok(())
    }

    /// Write `root` and every object under it not written yet, children
    /// first.
    fn visit(&mut self, root: Node<'s>) -> Result<(), RunError> {
        if self.marks.contains_key(&root.key()) {
            return Ok(());
        }
        let mut work: Vec<(Node<'s>, bool)> = vec![(root, false)];
        while let Some((n, expanded)) = work.pop() {
            if expanded {
                self.define(n)?;
                self.marks.insert(n.key(), Mark::Done(self.next));
                self.next += 1;
                self.check()?;
                continue;
            }
            if self.marks.contains_key(&n.key()) {
                continue;
            }
            self.marks.insert(n.key(), Mark::Open);
            work.push((n, true));
            let marks = &self.marks;
            children(n, &mut |c| {
                if !marks.contains_key(&c.key()) {
                    work.push((c, false));
                }
            });
        }
        Ok(())
    }

    /// The index of a written object.
    fn index(&self, n: Node<'_>) -> Result<u64, RunError> {
        match self.marks.get(&n.key()) {
            Some(Mark::Done(i)) => Ok(*i),
            _ => Err(RunError::internal(
                "a snapshot's object referred to before it was written",
            )),
        }
    }

    fn value(&mut self, v: &Value) -> Result<(), RunError> {
        match &v.0 {
            Repr::Unit => self.out.push(tag::UNIT),
            Repr::Bool(b) => self.out.push(if b.get() { tag::TRUE } else { tag::FALSE }),
            Repr::Int(n) => {
                self.out.push(tag::INT);
                self.uint(((n << 1) ^ (n >> 63)) as u64);
            }
            Repr::Float(x) => {
                self.out.push(tag::FLOAT);
                self.out.extend_from_slice(&x.get().to_bits().to_le_bytes());
            }
            Repr::Tag(c) => {
                self.out.push(tag::CTOR);
                self.uint(u64::from(c.get()));
            }
            Repr::Func(f) => {
                self.out.push(tag::FUNC);
                self.uint(u64::from(f.get()));
            }
            Repr::Native(n) => {
                self.out.push(tag::NATIVE);
                self.uint(u64::from(n.get()));
            }
            _ => {
                let i = match node(v) {
                    Some(n) => self.index(n)?,
                    None => return Err(RunError::internal("a value neither scalar nor object")),
                };
                self.out.push(tag::OBJECT);
                self.uint(i);
            }
        }
        Ok(())
    }

    fn values<'v>(&mut self, vs: impl ExactSizeIterator<Item = &'v Value>) -> Result<(), RunError>
    where
        's: 'v,
    {
        self.uint(vs.len() as u64);
        for v in vs {
            self.value(v)?;
        }
        self.check()
    }

    fn frames(&mut self, frames: &[Frame]) -> Result<(), RunError> {
        self.uint(frames.len() as u64);
        for f in frames {
            self.uint(u64::from(f.func));
            self.uint(u64::from(f.pc));
            self.uint(u64::from(f.base));
            self.out.push(match f.kind {
                Kind::Normal => 0,
                Kind::Body => 1,
                Kind::Clause => 2,
                Kind::Top => 3,
            });
            match &f.closure {
                None => self.uint(0),
                Some(c) => {
                    let i = self.index(Node::Closure(c))?;
                    self.uint(i + 1);
                }
            }
        }
        self.check()
    }

    fn entries(&mut self, entries: &[Entry]) -> Result<(), RunError> {
        self.uint(entries.len() as u64);
        for e in entries {
            match e {
                Entry::Skip(t) => {
                    self.out.push(0);
                    self.uint(u64::from(*t));
                }
                Entry::Handler {
                    info,
                    closures,
                    param,
                    frame,
                    stack,
                } => {
                    self.out.push(1);
                    self.uint(u64::from(*info));
                    let i = self.index(Node::Clauses(closures))?;
                    self.uint(i);
                    self.value(param)?;
                    self.uint(u64::from(*frame));
                    self.uint(u64::from(*stack));
                }
            }
        }
        self.check()
    }

    /// Write one object, its children written already.
    fn define(&mut self, n: Node<'s>) -> Result<(), RunError> {
        match n {
            Node::Str(s) => {
                self.out.push(kind::STR);
                self.uint(s.text.len() as u64);
                if self.out.len().saturating_add(s.text.len()) > self.bound {
                    return Err(too_big(self.limits, "its snapshot"));
                }
                self.out.extend_from_slice(s.text.as_bytes());
            }
            Node::Tuple(t) => {
                self.out.push(kind::TUPLE);
                self.values(t.items.iter())?;
            }
            Node::Record(r) => {
                self.out.push(kind::RECORD);
                let at = Rc::as_ptr(&r.shape).cast::<u32>() as usize;
                match self.shapes.get(&at) {
                    Some(&i) => self.uint(i + 1),
                    None => {
                        let i = self.shapes.len() as u64;
                        self.shapes.insert(at, i);
                        self.uint(0);
                        self.uint(r.shape.len() as u64);
                        for &s in r.shape.iter() {
                            self.uint(u64::from(s));
                        }
                    }
                }
                self.values(r.values.iter())?;
            }
            Node::Variant(v) => {
                self.out.push(kind::VARIANT);
                self.uint(u64::from(v.ctor));
                self.values(v.fields.iter())?;
            }
            Node::List(l) => match l.viewed() {
                Some((root, start)) => {
                    self.out.push(kind::VIEW);
                    let i = self.index(Node::List(root))?;
                    self.uint(i);
                    self.uint(start as u64);
                }
                None => {
                    self.out.push(kind::LIST);
                    self.values(l.iter())?;
                }
            },
            Node::Map(m) => {
                self.out.push(kind::MAP);
                self.uint(m.entries.len() as u64);
                for (k, v) in m.entries.iter() {
                    self.value(&k.0)?;
                    self.value(v)?;
                }
            }
            Node::Closure(c) => {
                self.out.push(kind::CLOSURE);
                self.uint(u64::from(c.func));
                self.values(c.captures.iter())?;
            }
            Node::Clauses(c) => {
                self.out.push(kind::CLAUSES);
                self.values(c.iter())?;
            }
            Node::Resume(r) => {
                self.out.push(kind::RESUME);
                self.uint(u64::from(r.frame_base));
                self.uint(u64::from(r.stack_base));
                self.uint(u64::from(r.handler_base));
                self.values(r.stack.iter())?;
                self.frames(&r.frames)?;
                self.entries(&r.handlers)?;
            }
        }
        Ok(())
    }
}
