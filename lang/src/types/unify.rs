//! Unification: making two types equal, or explaining why they cannot be.
//!
//! `unify(expected, found)` binds variables so that both sides become the
//! same type. Rows unify up to reordering, by rewriting (Rémy): to match a
//! label the other side lacks, its open tail is bound to a row holding that
//! label and a fresh tail. Class requirements travel with variables: binding
//! a variable that must support `==` to `List[a]` requires `a` to support
//! `==`, and binding it to a function type fails.
//!
//! Invariants: binding a variable first runs the occurs check and lowers the
//! levels of the variables in the bound type (so generalisation stays
//! sound), and refuses to let a signature's type variable escape to a level
//! where it is not in scope; every traversal is guarded against deep types
//! by growing the stack, and visits each node of a shared type once. A
//! bound variable is a link to its type; unification follows links with
//! path compression, so a chain of links bound one at a time (as calls in a
//! long function make) is walked once, not once per use.

use std::collections::HashMap;

use crate::types::infer::Checker;
use crate::types::ty::{Classes, Kind, Label, Node, TyId};
use crate::types::{STACK_CHUNK, STACK_RED_ZONE, TypeCon};

/// Why two types could not be unified.
#[derive(Clone, Debug)]
pub(super) enum Mismatch {
    /// These two parts differ (expected side first).
    Types(TyId, TyId),
    /// Binding a variable to a type containing itself (the variable, the
    /// type).
    Occurs(TyId, TyId),
    /// A type that cannot belong to these classes.
    Class(Classes, TyId),
    /// A record lacks a field the other side has. `in_expected` tells
    /// which side has it.
    MissingField {
        /// The field.
        label: Label,
        /// True when the expected side has it and the found side lacks it.
        in_expected: bool,
    },
    /// A signature's type variable would leave the function it belongs to.
    Escape(TyId),
}

/// Rows whose numbers of fields multiply to at most this are matched label
/// by label with a scan; wider ones through a map, so that two wide records
/// unify in linear time without the common narrow case paying for maps.
const SCANNED_ROW_PAIRS: usize = 256;

/// A row's fields, looked up by label. (A row may hold a label twice; the
/// first one counts.)
enum Fields<'a> {
    Scan(&'a [(Label, TyId)]),
    Map(HashMap<Label, TyId>),
}

impl<'a> Fields<'a> {
    fn new(fields: &'a [(Label, TyId)], wide: bool) -> Fields<'a> {
        if wide {
            Fields::Map(fields.iter().rev().copied().collect())
        } else {
            Fields::Scan(fields)
        }
    }

    fn get(&self, label: Label) -> Option<TyId> {
        match self {
            Fields::Scan(fields) => fields.iter().find(|(l, _)| *l == label).map(|(_, t)| *t),
            Fields::Map(map) => map.get(&label).copied(),
        }
    }
}

impl Checker {
    /// Make `expected` and `found` the same type.
    pub(super) fn unify(&mut self, expected: TyId, found: TyId) -> Result<(), Mismatch> {
        // The memo of structures already unified lives for one call: a
        // failed attempt leaves nothing behind, and it does not grow with
        // the program.
        self.unified.clear();
        self.unify_rec(expected, found)
    }

    fn unify_rec(&mut self, expected: TyId, found: TyId) -> Result<(), Mismatch> {
        stacker::maybe_grow(STACK_RED_ZONE, STACK_CHUNK, || {
            self.unify_inner(expected, found)
        })
    }

    fn unify_inner(&mut self, expected: TyId, found: TyId) -> Result<(), Mismatch> {
        // Out of budget: a neutral answer (the budget's error rejects the
        // program).
        if !self.charge(1) {
            return Ok(());
        }
        let a = self.arena.resolve_compress(expected);
        let b = self.arena.resolve_compress(found);
        if a == b {
            return Ok(());
        }
        let na = self.arena.node(a).clone();
        let nb = self.arena.node(b).clone();
        // Two structures already unified are equal from then on: a type
        // that shares parts (a DAG) is walked once, not once per path.
        let has_parts = |n: &Node| match n {
            Node::Con(_, args) => !args.is_empty(),
            Node::Tuple(_) | Node::Fn(..) | Node::Record(_) | Node::RowExt(..) => true,
            _ => false,
        };
        let structural = has_parts(&na) && has_parts(&nb);
        if structural && !self.unified.insert((a, b)) {
            return Ok(());
        }
        match (na, nb) {
            (Node::Error, _) | (_, Node::Error) => Ok(()),
            (Node::Var { level, classes, .. }, _) => self.bind_var(a, level, classes, b),
            (_, Node::Var { level, classes, .. }) => self.bind_var(b, level, classes, a),
            (Node::Con(c1, args1), Node::Con(c2, args2)) => {
                if c1 != c2 || args1.len() != args2.len() {
                    return Err(Mismatch::Types(a, b));
                }
                for (x, y) in args1.iter().zip(args2.iter()) {
                    self.unify_rec(*x, *y)?;
                }
                Ok(())
            }
            (Node::Tuple(xs), Node::Tuple(ys)) => {
                if xs.len() != ys.len() {
                    return Err(Mismatch::Types(a, b));
                }
                for (x, y) in xs.iter().zip(ys.iter()) {
                    self.unify_rec(*x, *y)?;
                }
                Ok(())
            }
            (Node::Fn(p1, r1, e1), Node::Fn(p2, r2, e2)) => {
                if p1.len() != p2.len() {
                    return Err(Mismatch::Types(a, b));
                }
                for (x, y) in p1.iter().zip(p2.iter()) {
                    self.unify_rec(*x, *y)?;
                }
                self.unify_rec(r1, r2)?;
                self.unify_rec(e1, e2)
            }
            (Node::Record(r1), Node::Record(r2)) => self.unify_rows(r1, r2),
            (Node::RowEmpty, Node::RowEmpty) => Ok(()),
            (Node::RowExt(..), _) | (_, Node::RowExt(..)) => self.unify_rows(a, b),
            _ => Err(Mismatch::Types(a, b)),
        }
    }

    fn unify_rows(&mut self, r1: TyId, r2: TyId) -> Result<(), Mismatch> {
        let (f1, t1) = self.arena.row_fields_compress(r1);
        let (f2, t2) = self.arena.row_fields_compress(r2);
        if !self.charge((f1.len() + f2.len()) as u64) {
            return Ok(());
        }
        let wide = f1.len().saturating_mul(f2.len()) > SCANNED_ROW_PAIRS;
        let by_label1 = Fields::new(&f1, wide);
        let by_label2 = Fields::new(&f2, wide);
        let mut only1 = Vec::new();
        for (l, t) in &f1 {
            match by_label2.get(*l) {
                Some(u) => self.unify_rec(*t, u)?,
                None => only1.push((*l, *t)),
            }
        }
        let only2: Vec<(Label, TyId)> = f2
            .iter()
            .filter(|(l, _)| by_label1.get(*l).is_none())
            .copied()
            .collect();
        let t1 = self.arena.resolve(t1);
        let t2 = self.arena.resolve(t2);
        if only1.is_empty() && only2.is_empty() {
            return self.unify_rec(t1, t2);
        }
        let open1 = matches!(self.arena.node(t1), Node::Var { .. } | Node::Error);
        let open2 = matches!(self.arena.node(t2), Node::Var { .. } | Node::Error);
        if let Some((l, _)) = only2.first()
            && !open1
        {
            return Err(Mismatch::MissingField {
                label: *l,
                in_expected: false,
            });
        }
        if let Some((l, _)) = only1.first()
            && !open2
        {
            return Err(Mismatch::MissingField {
                label: *l,
                in_expected: true,
            });
        }
        if t1 == t2 {
            // The same open tail cannot take different labels on each side.
            let label = only1
                .first()
                .or(only2.first())
                .map(|(l, _)| *l)
                .unwrap_or(0);
            return Err(Mismatch::MissingField {
                label,
                in_expected: !only1.is_empty(),
            });
        }
        if only2.is_empty() {
            // r2 = {shared | t2} lacks only1: t2 takes them, then ends as r1.
            let ext = self.extend(&only1, t1);
            return self.unify_rec(t2, ext);
        }
        if only1.is_empty() {
            let ext = self.extend(&only2, t2);
            return self.unify_rec(t1, ext);
        }
        let level = self.var_level(t1).min(self.var_level(t2));
        let tail = self.arena.var(level, Kind::Row);
        let ext2 = self.extend(&only2, tail);
        let ext1 = self.extend(&only1, tail);
        self.unify_rec(t1, ext2)?;
        self.unify_rec(t2, ext1)
    }

    fn var_level(&self, id: TyId) -> u32 {
        match self.arena.node(id) {
            Node::Var { level, .. } => *level,
            _ => u32::MAX,
        }
    }

    /// A row with `fields` in front of `tail`.
    pub(super) fn extend(&mut self, fields: &[(Label, TyId)], tail: TyId) -> TyId {
        fields.iter().rev().fold(tail, |rest, (l, t)| {
            self.arena.add(Node::RowExt(*l, *t, rest))
        })
    }

    /// Bind variable `var` (of `level`, needing `classes`) to `ty`.
    fn bind_var(
        &mut self,
        var: TyId,
        level: u32,
        classes: Classes,
        ty: TyId,
    ) -> Result<(), Mismatch> {
        if let Node::Var {
            level: l2,
            classes: c2,
            kind,
        } = self.arena.node(ty).clone()
        {
            let joined = classes.union(c2);
            if joined.impossible() {
                return Err(Mismatch::Class(joined, ty));
            }
            self.arena.set(
                ty,
                Node::Var {
                    level: level.min(l2),
                    kind,
                    classes: joined,
                },
            );
            self.arena.set(var, Node::Link(ty));
            return Ok(());
        }
        self.arena.new_epoch();
        if let Err(m) = self.occurs_adjust(var, level, ty) {
            // The variable cannot take this type; once the failure is
            // reported it becomes `Error`, so that report is the only one.
            self.poisoned.push(var);
            return Err(match m {
                Mismatch::Occurs(v, _) => Mismatch::Occurs(v, ty),
                other => other,
            });
        }
        self.arena.set(var, Node::Link(ty));
        if !classes.is_empty() {
            self.require(ty, classes)?;
        }
        Ok(())
    }

    /// The occurs check and level adjustment, visiting each node once.
    fn occurs_adjust(&mut self, var: TyId, level: u32, ty: TyId) -> Result<(), Mismatch> {
        stacker::maybe_grow(STACK_RED_ZONE, STACK_CHUNK, || {
            let t = self.arena.resolve(ty);
            if t == var {
                return Err(Mismatch::Occurs(var, var));
            }
            if !self.charge(1) {
                return Ok(());
            }
            if !self.arena.visit(t) {
                return Ok(());
            }
            match self.arena.node(t).clone() {
                Node::Var {
                    level: l,
                    kind,
                    classes,
                } if l > level => {
                    self.arena.set(
                        t,
                        Node::Var {
                            level,
                            kind,
                            classes,
                        },
                    );
                    Ok(())
                }
                Node::Rigid { level: l, .. } if l > level => Err(Mismatch::Escape(t)),
                _ => {
                    for c in self.arena.children(t) {
                        self.occurs_adjust(var, level, c)?;
                    }
                    Ok(())
                }
            }
        })
    }

    /// Require `ty` to belong to `classes`.
    pub(super) fn require(&mut self, ty: TyId, classes: Classes) -> Result<(), Mismatch> {
        // A shared part is checked once per call (`(v, v)` needs `v`
        // checked once, not twice).
        self.required.clear();
        self.require_rec(ty, classes)
    }

    fn require_rec(&mut self, ty: TyId, classes: Classes) -> Result<(), Mismatch> {
        stacker::maybe_grow(STACK_RED_ZONE, STACK_CHUNK, || {
            self.require_inner(ty, classes)
        })
    }

    fn require_inner(&mut self, ty: TyId, classes: Classes) -> Result<(), Mismatch> {
        if classes.is_empty() {
            return Ok(());
        }
        let t = self.arena.resolve(ty);
        if !self.required.insert((t, classes.0)) || !self.charge(1) {
            return Ok(());
        }
        let structural = Classes(classes.0 & (Classes::EQ.0 | 2 | Classes::SHOW.0));
        match self.arena.node(t).clone() {
            Node::Error | Node::Link(_) => Ok(()),
            Node::Var {
                level,
                kind,
                classes: have,
            } => {
                let joined = have.union(classes);
                if joined.impossible() {
                    return Err(Mismatch::Class(joined, t));
                }
                self.arena.set(
                    t,
                    Node::Var {
                        level,
                        kind,
                        classes: joined,
                    },
                );
                Ok(())
            }
            Node::Rigid { bounds, .. } => {
                if bounds.contains(classes) {
                    Ok(())
                } else {
                    Err(Mismatch::Class(classes.minus(bounds), t))
                }
            }
            Node::Con(con, args) => {
                let supported = self.types.classes_of(con);
                if !supported.contains(classes) {
                    return Err(Mismatch::Class(classes.minus(supported), t));
                }
                // Requirements on a container pass to its elements (`++`
                // on a list needs nothing of them).
                let inner = if con == TypeCon::LIST {
                    structural
                } else {
                    classes
                };
                let inner = Classes(inner.0 & !Classes::CONCAT.0);
                if con == TypeCon::NEVER {
                    return Ok(());
                }
                for a in args {
                    self.require_rec(a, inner)?;
                }
                Ok(())
            }
            Node::Tuple(items) => {
                if !Classes::ORD.union(Classes::SHOW).contains(classes) {
                    return Err(Mismatch::Class(classes, t));
                }
                for i in items {
                    self.require_rec(i, classes)?;
                }
                Ok(())
            }
            Node::Record(row) => {
                if !Classes::EQ.union(Classes::SHOW).contains(classes) {
                    return Err(Mismatch::Class(classes, t));
                }
                self.require_rec(row, classes)
            }
            Node::RowExt(_, field, rest) => {
                self.require_rec(field, classes)?;
                self.require_rec(rest, classes)
            }
            Node::RowEmpty => Ok(()),
            Node::Fn(..) => Err(Mismatch::Class(classes, t)),
        }
    }
}
