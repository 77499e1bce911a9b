//! Type schemes: instantiating a polymorphic type at a use, and
//! generalising a type at a `let` or function.
//!
//! Invariants: instantiation copies only the nodes that contain quantified
//! variables, keeps shared parts shared, and refuses to build more than
//! [`MAX_INSTANCE_NODES`] nodes (the use reports `E2010`); generalisation
//! visits only nodes made since the binding began, which is sound because
//! the value restriction lowers the levels of what it keeps monomorphic
//! ([`Checker::settle`]).

use std::collections::HashMap;

use crate::types::infer::{Checker, MAX_INSTANCE_NODES, Scheme};
use crate::types::ty::{Classes, Kind, Node, TyId};
use crate::types::{STACK_CHUNK, STACK_RED_ZONE};

impl Checker {
    /// A fresh copy of `scheme`'s type.
    pub(super) fn instantiate(&mut self, scheme: &Scheme) -> TyId {
        if scheme.vars.is_empty() {
            return scheme.ty;
        }
        self.copy_budget = MAX_INSTANCE_NODES;
        let mut map = HashMap::new();
        for v in &scheme.vars {
            let classes = match self.arena.node(*v) {
                Node::Var { classes, .. } => *classes,
                Node::Rigid { bounds, .. } => *bounds,
                _ => Classes::NONE,
            };
            let kind = match self.arena.node(*v) {
                Node::Var { kind, .. } => *kind,
                _ => Kind::Type,
            };
            let fresh = self.arena.add(Node::Var {
                level: self.level,
                kind,
                classes,
            });
            map.insert(self.arena.resolve(*v), fresh);
        }
        self.copy(scheme.ty, &mut map)
    }

    /// `scheme` with its variables replaced by `args`, in order.
    pub(super) fn instantiate_with(&mut self, scheme: &Scheme, args: &[TyId]) -> TyId {
        self.copy_budget = MAX_INSTANCE_NODES;
        let mut map = HashMap::new();
        for (v, a) in scheme.vars.iter().zip(args.iter()) {
            map.insert(self.arena.resolve(*v), *a);
        }
        self.copy(scheme.ty, &mut map)
    }

    fn copy(&mut self, ty: TyId, map: &mut HashMap<TyId, TyId>) -> TyId {
        stacker::maybe_grow(STACK_RED_ZONE, STACK_CHUNK, || {
            let t = self.arena.resolve(ty);
            if let Some(done) = map.get(&t) {
                return *done;
            }
            if self.copy_budget == 0 || !self.charge(1) {
                self.too_large = true;
                return self.arena.add(Node::Error);
            }
            self.copy_budget -= 1;
            let node = self.arena.node(t).clone();
            let out = match node {
                Node::Con(c, args) => {
                    let new: Vec<TyId> = args.iter().map(|a| self.copy(*a, map)).collect();
                    if new == args {
                        t
                    } else {
                        self.arena.add(Node::Con(c, new))
                    }
                }
                Node::Tuple(args) => {
                    let new: Vec<TyId> = args.iter().map(|a| self.copy(*a, map)).collect();
                    if new == args {
                        t
                    } else {
                        self.arena.add(Node::Tuple(new))
                    }
                }
                Node::Fn(ps, r, e) => {
                    let nps: Vec<TyId> = ps.iter().map(|a| self.copy(*a, map)).collect();
                    let nr = self.copy(r, map);
                    let ne = self.copy(e, map);
                    if nps == ps && nr == r && ne == e {
                        t
                    } else {
                        self.arena.add(Node::Fn(nps, nr, ne))
                    }
                }
                Node::Record(r) => {
                    let nr = self.copy(r, map);
                    if nr == r {
                        t
                    } else {
                        self.arena.add(Node::Record(nr))
                    }
                }
                Node::RowExt(l, f, rest) => {
                    let nf = self.copy(f, map);
                    let nrest = self.copy(rest, map);
                    if nf == f && nrest == rest {
                        t
                    } else {
                        self.arena.add(Node::RowExt(l, nf, nrest))
                    }
                }
                _ => t,
            };
            map.insert(t, out);
            out
        })
    }

    /// Generalise `ty` over the variables deeper than the current level.
    /// Only nodes made since `since` are visited: older nodes hold no
    /// variable deeper than the current level (see [`Checker::settle`]),
    /// which keeps a long chain of `let`s linear.
    pub(super) fn generalize(&mut self, ty: TyId, since: TyId) -> Scheme {
        let vars = self.deep_vars(ty, since);
        if !self.sum_uses.is_empty() {
            // Only `list.sum`'s check asks which variables are generic.
            self.generalized.extend(vars.iter().copied());
        }
        Scheme { vars, ty }
    }

    /// Keep `ty` monomorphic: lower its deeper variables to the current
    /// level, so that a later generalisation at this level leaves them
    /// alone (they belong to a binding the value restriction kept
    /// monomorphic).
    pub(super) fn settle(&mut self, ty: TyId, since: TyId) -> bool {
        let vars = self.deep_vars(ty, since);
        let any = !vars.is_empty();
        for v in vars {
            match self.arena.node(v).clone() {
                Node::Var { kind, classes, .. } => self.arena.set(
                    v,
                    Node::Var {
                        level: self.level,
                        kind,
                        classes,
                    },
                ),
                Node::Rigid { name, bounds, .. } => self.arena.set(
                    v,
                    Node::Rigid {
                        name,
                        bounds,
                        level: self.level,
                    },
                ),
                _ => {}
            }
        }
        any
    }

    /// The variables of `ty` deeper than the current level, among the
    /// nodes made since `since`.
    fn deep_vars(&mut self, ty: TyId, since: TyId) -> Vec<TyId> {
        let level = self.level;
        self.arena
            .reachable(ty, |_, t| t >= since)
            .into_iter()
            .filter(|t| {
                *t >= since
                    && matches!(self.arena.node(*t),
                        Node::Var { level: l, .. } | Node::Rigid { level: l, .. } if *l > level)
            })
            .collect()
    }
}
