//! The representation of types during inference: an arena of nodes.
//!
//! A type is a [`TyId`], an index into the [`Arena`]. Unification variables
//! are nodes that are either unbound ([`Node::Var`]) or linked to another
//! node ([`Node::Link`]); [`Arena::resolve`] follows links. Rows (the fields
//! of a record, and later the effects of a function) are types too: a chain
//! of [`Node::RowExt`] ending in [`Node::RowEmpty`] (closed) or a variable
//! (open).
//!
//! Invariants: a `Link` never points (directly or through other links) at
//! itself (the occurs check in `unify` guarantees it); every variable has a
//! *level*, the depth of `let` nesting at which it was created, so that
//! generalisation takes exactly the variables created inside the binding
//! (Rémy's levels); a variable's [`Classes`] are always closed under
//! implication (`Num` includes `Ord`; `Ord` includes `Eq`; `Eq` includes `Show`).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::types::TypeCon;

/// A type: an index into the [`Arena`].
pub(super) type TyId = u32;

/// A set of type classes a type variable must belong to (bit flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub(super) struct Classes(pub(super) u8);

impl Classes {
    /// No requirement.
    pub(super) const NONE: Classes = Classes(0);
    /// Supports `==` and `!=` (and has a display form: the types with
    /// equality are exactly the types with a display form).
    pub(super) const EQ: Classes = Classes(1 | 16);
    /// Supports `<`, `<=`, `>`, `>=` (and equality).
    pub(super) const ORD: Classes = Classes(2 | 1 | 16);
    /// `Int` or `Float`: supports arithmetic (and ordering, display).
    pub(super) const NUM: Classes = Classes(4 | 2 | 1 | 16);
    /// `Str` or a `List`: supports `++`.
    pub(super) const CONCAT: Classes = Classes(8);
    /// Has a display form (can be interpolated into a string).
    pub(super) const SHOW: Classes = Classes(16);

    /// Both sets of requirements.
    pub(super) fn union(self, other: Classes) -> Classes {
        Classes(self.0 | other.0)
    }

    /// Whether every requirement of `other` is in `self`.
    pub(super) fn contains(self, other: Classes) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether nothing is required.
    pub(super) fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The requirements of `self` that are not in `other`.
    pub(super) fn minus(self, other: Classes) -> Classes {
        Classes(self.0 & !other.0)
    }

    /// Whether no type can satisfy the set (`Num` and `++` together).
    pub(super) fn impossible(self) -> bool {
        self.0 & 4 != 0 && self.0 & 8 != 0
    }

    /// The bound names, as written in a signature (`Num`, `Ord + Show`).
    pub(super) fn names(self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.contains(Classes::NUM) {
            out.push("Num");
        } else if self.contains(Classes::ORD) {
            out.push("Ord");
        } else if self.contains(Classes::EQ) {
            out.push("Eq");
        } else if self.contains(Classes::SHOW) {
            out.push("Show");
        }
        if self.contains(Classes::CONCAT) {
            out.push("Concat");
        }
        out
    }

    /// The class a bound name stands for.
    pub(super) fn from_name(name: &str) -> Option<Classes> {
        Some(match name {
            "Eq" => Classes::EQ,
            "Ord" => Classes::ORD,
            "Num" => Classes::NUM,
            "Show" => Classes::SHOW,
            "Concat" => Classes::CONCAT,
            _ => return None,
        })
    }
}

/// Whether a variable stands for a type or a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) enum Kind {
    /// An ordinary type.
    Type,
    /// A row of labelled types.
    Row,
}

/// A label in a row: a record field's or an effect's name (interned).
pub(super) type Label = u32;

/// One node of a type.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) enum Node {
    /// An unbound unification variable.
    Var {
        /// `let` depth at creation (lowered when unified with an outer one).
        level: u32,
        /// Type or row.
        kind: Kind,
        /// Classes its eventual type must belong to.
        classes: Classes,
    },
    /// A variable bound to another type.
    Link(TyId),
    /// A type variable written in a function's signature: stands for any
    /// type the caller chooses, so it unifies only with itself.
    Rigid {
        /// Its name as written.
        name: u32,
        /// Its declared bounds.
        bounds: Classes,
        /// The level of the function that declared it.
        level: u32,
    },
    /// A named type applied to arguments: `Int`, `List[a]`, `Option[Str]`.
    Con(TypeCon, Vec<TyId>),
    /// `(A, B, ...)`, at least two elements.
    Tuple(Vec<TyId>),
    /// `fn(A, B) -> C / row`.
    Fn(Vec<TyId>, TyId, TyId),
    /// A record whose fields are the given row.
    Record(TyId),
    /// The empty row.
    RowEmpty,
    /// A row with one more label in front of the rest.
    RowExt(Label, TyId, TyId),
    /// The type of something already reported as wrong: unifies with
    /// anything, so one mistake is reported once.
    Error,
}

/// The nodes of a finished check that later checks start from (the
/// standard library's, [`crate::types::library`]): shared by every arena
/// forked from it, and never changed while shared.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(super) struct Frozen {
    nodes: Vec<Node>,
    /// The tree sizes known when it was frozen, parallel to `nodes`.
    sizes: Vec<u32>,
}

/// Every type node made while checking one program.
///
/// The nodes below `frozen.nodes.len()` are the frozen base (the standard
/// library's), shared behind an [`Arc`]: copying an arena copies its own
/// nodes only. A base node that a check changes (a variable of the library
/// bound, which no program does in practice: the library's types are
/// generalised) makes the arena copy the base first, so a change never
/// reaches another check.
#[derive(Clone, Debug, Default)]
pub(super) struct Arena {
    frozen: Arc<Frozen>,
    /// `frozen.nodes.len()`, kept beside it: every node read tests it,
    /// and a field of the arena is one load where the base's length is
    /// two (through the `Arc`). Set where the base is made or grows
    /// ([`Arena::from_frozen`], [`Arena::freeze`]) and nowhere else.
    base: usize,
    /// The nodes made since the base was frozen, from id
    /// `frozen.nodes.len()` on.
    nodes: Vec<Node>,
    /// Visit marks for traversals, one for every id (base included).
    marks: Vec<u32>,
    epoch: u32,
    /// The tree size of nodes whose size can no longer change (no
    /// variable below them), one for every id (base included); 0 when
    /// not known.
    sizes: Vec<u32>,
    /// The check's work budget, charged by every walk over types.
    pub(crate) work: crate::types::budget::Work,
}

/// An arena is written as one frozen base: its nodes and known sizes (the
/// visit marks and the work spent are a check's own, not its result).
impl Serialize for Arena {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let whole = Frozen {
            nodes: self
                .frozen
                .nodes
                .iter()
                .chain(&self.nodes)
                .cloned()
                .collect(),
            sizes: self.sizes.clone(),
        };
        whole.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Arena {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Arena, D::Error> {
        let frozen = Frozen::deserialize(deserializer)?;
        if frozen.sizes.len() != frozen.nodes.len() {
            return Err(serde::de::Error::invalid_length(
                frozen.sizes.len(),
                &"one size for every node",
            ));
        }
        Ok(Arena::from_frozen(Arc::new(frozen)))
    }
}

impl Arena {
    /// An arena holding `frozen`'s nodes, nothing of its own yet.
    pub(super) fn from_frozen(frozen: Arc<Frozen>) -> Arena {
        let n = frozen.nodes.len();
        Arena {
            marks: vec![0; n],
            sizes: frozen.sizes.clone(),
            base: n,
            frozen,
            nodes: Vec::new(),
            epoch: 0,
            work: Default::default(),
        }
    }

    /// Make every node so far part of the shared base, so that copies of
    /// the arena share them rather than copying them.
    pub(super) fn freeze(&mut self) {
        if !self.nodes.is_empty() {
            let base = Arc::make_mut(&mut self.frozen);
            base.nodes.append(&mut self.nodes);
            base.sizes.clone_from(&self.sizes);
            self.base = base.nodes.len();
        }
    }

    /// The node at `id` (no links followed), if there is one.
    fn get(&self, id: TyId) -> Option<&Node> {
        let i = id as usize;
        match i.checked_sub(self.base) {
            Some(own) => self.nodes.get(own),
            None => self.frozen.nodes.get(i),
        }
    }

    /// The node at `id`, to change it (copying the base first if `id` is
    /// one of its nodes: see the type's docs).
    fn get_mut(&mut self, id: TyId) -> Option<&mut Node> {
        let i = id as usize;
        match i.checked_sub(self.base) {
            None => Arc::make_mut(&mut self.frozen).nodes.get_mut(i),
            Some(own) => self.nodes.get_mut(own),
        }
    }

    /// Add a node.
    pub(super) fn add(&mut self, node: Node) -> TyId {
        let id = self.len() as TyId;
        self.nodes.push(node);
        self.marks.push(0);
        self.sizes.push(0);
        id
    }

    /// A fresh variable.
    pub(super) fn var(&mut self, level: u32, kind: Kind) -> TyId {
        self.add(Node::Var {
            level,
            kind,
            classes: Classes::NONE,
        })
    }

    /// A fresh type variable with class requirements.
    pub(super) fn var_with(&mut self, level: u32, classes: Classes) -> TyId {
        self.add(Node::Var {
            level,
            kind: Kind::Type,
            classes,
        })
    }

    /// The node of `id` (after following links).
    pub(super) fn node(&self, id: TyId) -> &Node {
        let id = self.resolve(id);
        self.get(id).unwrap_or(&Node::Error)
    }

    /// Follow links to the representative node.
    pub(super) fn resolve(&self, mut id: TyId) -> TyId {
        // Links form chains without cycles; the bound keeps a corrupted
        // arena from looping.
        for _ in 0..self.len() + 1 {
            match self.get(id) {
                Some(Node::Link(next)) => id = *next,
                _ => return id,
            }
        }
        id
    }

    /// As [`Arena::resolve`], and point every link on the way straight at
    /// the end (path compression), so that a chain of links made one
    /// binding at a time is walked once, not once per use. Bindings are
    /// never undone, so this changes no type.
    pub(super) fn resolve_compress(&mut self, id: TyId) -> TyId {
        let end = self.resolve(id);
        let mut cur = id;
        // The base's links are left as they are: changing one would copy
        // the base, for no change of type.
        while cur != end && cur as usize >= self.base {
            match self.get_mut(cur) {
                Some(Node::Link(next)) => {
                    let after = *next;
                    *next = end;
                    cur = after;
                }
                _ => break,
            }
        }
        end
    }

    /// Replace the node at `id` (used to bind variables).
    pub(super) fn set(&mut self, id: TyId, node: Node) {
        if let Some(slot) = self.get_mut(id) {
            *slot = node;
        }
    }

    /// Start a traversal: nodes marked in this epoch have been visited.
    pub(super) fn new_epoch(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.marks.iter_mut().for_each(|m| *m = 0);
            self.epoch = 1;
        }
    }

    /// Mark `id` visited; false if it already was in this epoch.
    pub(super) fn visit(&mut self, id: TyId) -> bool {
        match self.marks.get_mut(id as usize) {
            Some(m) if *m == self.epoch => false,
            Some(m) => {
                *m = self.epoch;
                true
            }
            None => false,
        }
    }

    /// The tree size of `id`, if it is known and can no longer change.
    pub(super) fn known_size(&self, id: TyId) -> Option<usize> {
        match self.sizes.get(id as usize) {
            Some(0) | None => None,
            Some(n) => Some(*n as usize),
        }
    }

    /// Remember the tree size of `id`, which has no variable below it.
    pub(super) fn remember_size(&mut self, id: TyId, size: usize) {
        if let (Some(slot), Ok(n)) = (self.sizes.get_mut(id as usize), u32::try_from(size)) {
            *slot = n;
        }
    }

    /// The number of nodes made so far.
    pub(super) fn len(&self) -> usize {
        self.base + self.nodes.len()
    }

    /// Every node reachable from `root` (links followed), each once, in
    /// depth-first order, without recursion (a type can be deeper than the
    /// host stack allows). `descend(arena, id)` says whether to look below
    /// `id`; `id` itself is listed either way. Each node charges the work
    /// budget; once it is spent the list stops short.
    pub(super) fn reachable(
        &mut self,
        root: TyId,
        descend: impl Fn(&Arena, TyId) -> bool,
    ) -> Vec<TyId> {
        self.new_epoch();
        let mut out = Vec::new();
        let mut stack = vec![root];
        while let Some(t) = stack.pop() {
            let t = self.resolve(t);
            if !self.visit(t) {
                continue;
            }
            if !self.work.charge(1) {
                break;
            }
            out.push(t);
            if descend(self, t) {
                stack.extend(self.children(t).into_iter().rev());
            }
        }
        out
    }

    /// The fields of a row, in order, and what it ends in.
    pub(super) fn row_fields(&self, row: TyId) -> (Vec<(Label, TyId)>, TyId) {
        let mut fields = Vec::new();
        let mut cur = self.resolve(row);
        while let Some(Node::RowExt(l, t, rest)) = self.get(cur) {
            fields.push((*l, *t));
            cur = self.resolve(*rest);
        }
        (fields, cur)
    }

    /// As [`Arena::row_fields`], compressing the links on the way
    /// ([`Arena::resolve_compress`]): a row whose tail is bound one
    /// statement at a time (the top level's, a long block's) is walked
    /// once, not once per use.
    pub(super) fn row_fields_compress(&mut self, row: TyId) -> (Vec<(Label, TyId)>, TyId) {
        let mut fields = Vec::new();
        let mut cur = self.resolve_compress(row);
        while let Some(Node::RowExt(l, t, rest)) = self.get(cur) {
            let (l, t, rest) = (*l, *t, *rest);
            fields.push((l, t));
            cur = self.resolve_compress(rest);
        }
        (fields, cur)
    }

    /// The children of a node, for traversals.
    pub(super) fn children(&self, id: TyId) -> Vec<TyId> {
        match self.node(id) {
            Node::Con(_, args) | Node::Tuple(args) => args.clone(),
            Node::Fn(params, ret, row) => {
                let mut v = params.clone();
                v.push(*ret);
                v.push(*row);
                v
            }
            Node::Record(row) => vec![*row],
            Node::RowExt(_, t, rest) => vec![*t, *rest],
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolving_with_compression_points_each_link_at_the_end() {
        let mut arena = Arena::default();
        let end = arena.add(Node::RowEmpty);
        // A chain made one binding at a time: ids[0] -> ids[1] -> ... -> end.
        let mut next = end;
        let mut ids = Vec::new();
        for _ in 0..1000 {
            next = arena.add(Node::Link(next));
            ids.push(next);
        }
        ids.reverse();
        let first = ids[0];
        assert_eq!(arena.resolve(first), end);
        assert_eq!(arena.resolve_compress(first), end);
        for id in ids {
            assert!(matches!(arena.get(id), Some(Node::Link(n)) if *n == end));
            assert_eq!(arena.resolve(id), end);
        }
        assert_eq!(arena.resolve_compress(end), end);
    }
}
