//! Sessions: checking a program one input at a time, as the REPL does.
//!
//! A [`CheckSession`] holds the checker's state after every accepted input:
//! the standard library, and the types, effects, functions and top-level
//! `let`s defined so far. [`CheckSession::check`] checks one more input against
//! it. Within an input the usual rules hold (functions may be used before
//! they appear, statements run in order); the input's own names come
//! first, then the session's.
//!
//! Redefinition replaces a name *for later inputs*: what was checked
//! before keeps the definition it was checked with (a function defined
//! earlier still calls the function it called). A redeclared type is a new
//! type that happens to print with the same name; a redeclared effect gets
//! a new label, so an old function performing the old effect is never
//! handled by a handler of the new one.
//!
//! Invariants: checking never changes the session itself; the caller
//! decides whether to keep the result ([`CheckedInput::commit`]), typically
//! only once the input has also run. So a rejected or failed input leaves
//! no trace.

use std::collections::HashSet;

use crate::ast::{Item, Program, Stmt};
use crate::diagnostic::Diagnostic;
use crate::types::infer::Checker;
use crate::types::pattern::collect_names;
use crate::types::ty::{Kind, Node, TyId};
use crate::types::{Grants, Typed};

/// The checker's state after the inputs accepted so far: the checking
/// half of a REPL session (`writ_host::session::Session` holds one, beside
/// the runtime's `CodeSession`).
#[derive(Clone)]
pub struct CheckSession {
    checker: Checker,
    /// Types, constructors and effects the session's inputs declared.
    user_types: HashSet<String>,
    user_effects: HashSet<String>,
}

/// What kind of name an input defined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefinedKind {
    /// A top-level `fn`.
    Fn,
    /// A name bound by a top-level `let`.
    Let,
    /// A `type`.
    Type,
    /// An `effect`.
    Effect,
}

/// A name an input defined, with its type as printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Defined {
    /// Its kind.
    pub kind: DefinedKind,
    /// The name.
    pub name: String,
    /// A function's signature (`fn f(x: Int) -> Int`), a value's type
    /// (`List[Int]`), or empty for types and effects.
    pub ty: String,
}

/// One input, checked against a session.
pub struct CheckedInput {
    /// Diagnostics, manifest and what lowering needs, as for a program.
    pub typed: Typed,
    /// The names the input defines, in source order.
    pub defined: Vec<Defined>,
    /// The type of the input's value: that of its last statement if it is
    /// an expression, `None` otherwise.
    pub value_type: Option<String>,
    /// When the value is a function: the effects calling it performs, in
    /// alphabetical order.
    pub calling_performs: Vec<String>,
    /// When the value is a function whose effects also depend on the
    /// functions passed to it (its row ends in a variable).
    pub calling_open: bool,
    next: Option<CheckSession>,
}

impl CheckedInput {
    /// Whether the input is accepted.
    pub fn accepted(&self) -> bool {
        self.next.is_some()
    }

    /// The session with this input's definitions added (`None` if it was
    /// rejected).
    pub fn commit(self) -> Option<CheckSession> {
        self.next
    }
}

impl CheckSession {
    /// A session holding the standard library and the embedder's
    /// capability `interfaces` (see [`crate::types::CheckOptions::interfaces`]).
    pub fn new(interfaces: &[String]) -> CheckSession {
        stacker::maybe_grow(super::STACK_RED_ZONE, super::STACK_CHUNK, || {
            // The interfaces' own diagnostics are the embedder's to see
            // (`types::check` reports them); inputs start clean.
            let mut c = crate::types::library::with_library(interfaces);
            c.diagnostics.clear();
            CheckSession {
                checker: c,
                user_types: HashSet::new(),
                user_effects: HashSet::new(),
            }
        })
    }

    /// The value names in scope: the session's functions and `let`s.
    pub fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.checker.session.keys().cloned().collect();
        v.sort();
        v
    }

    /// The standard library's namespaces and their members.
    pub fn namespaces(&self) -> Vec<(String, Vec<String>)> {
        let mut v: Vec<(String, Vec<String>)> = self
            .checker
            .namespaces
            .iter()
            .map(|(ns, members)| {
                let mut m: Vec<String> = members.keys().cloned().collect();
                m.sort();
                (ns.clone(), m)
            })
            .collect();
        v.sort();
        v
    }

    /// The type, constructor and effect names in scope.
    pub fn type_names(&self) -> Vec<String> {
        let t = &self.checker.types;
        let mut v: Vec<String> = t
            .by_name
            .keys()
            .chain(t.ctor_by_name.keys())
            .chain(t.effects.keys())
            .cloned()
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// The effects in scope, each with its operations' names.
    pub fn effect_ops(&self) -> Vec<(String, Vec<String>)> {
        let mut v: Vec<(String, Vec<String>)> = self
            .checker
            .types
            .effects
            .iter()
            .map(|(name, info)| {
                (
                    name.clone(),
                    info.ops.iter().map(|o| o.name.clone()).collect(),
                )
            })
            .collect();
        v.sort();
        v
    }

    /// Check one input (parsed with spans that do not overlap earlier
    /// inputs') with `grants`. The session is unchanged.
    pub fn check(&self, program: &Program, grants: Option<Grants<'_>>) -> CheckedInput {
        stacker::maybe_grow(super::STACK_RED_ZONE, super::STACK_CHUNK, || {
            self.check_on_stack(program, grants)
        })
    }

    fn check_on_stack(&self, program: &Program, grants: Option<Grants<'_>>) -> CheckedInput {
        let mut c = self.checker.clone();
        let mut user_types = self.user_types.clone();
        let mut user_effects = self.user_effects.clone();
        // What belongs to one input only starts afresh.
        c.diagnostics.clear();
        c.dropped = 0;
        c.errors = 0;
        c.level = 0;
        c.top_position = 0;
        c.top_row = c.arena.var(0, Kind::Row);
        c.cur_row = c.top_row;
        c.row_owner = None;
        c.performs.clear();
        c.top_sources.clear();
        c.sum_uses.clear();
        c.generalized.clear();
        c.resolution = Default::default();
        c.num_vars.clear();
        c.row_waits.clear();
        c.handling.clear();
        c.expr_types.clear();
        // Clause spans of earlier inputs mean nothing in this one.
        c.fixed_by_clause.clear();
        c.current_fn = None;
        forget_redeclared(&mut c, program, &user_types, &user_effects);
        let typed = c.check_items(program, grants);
        // The input's type is known when nothing but an effect of the
        // program's own left unhandled (`E3003`, a rule of running) was
        // found: the REPL's `:type` shows it; an input so refused defines
        // nothing all the same.
        let typed_anyway = !typed
            .diagnostics
            .iter()
            .any(|d| d.is_error() && d.code != crate::Code::UnhandledEffect);
        if !typed_anyway {
            return CheckedInput {
                typed,
                defined: Vec::new(),
                value_type: None,
                calling_performs: Vec::new(),
                calling_open: false,
                next: None,
            };
        }
        let value = last_expression(program).and_then(|pos| {
            c.expr_types
                .iter()
                .find(|(p, _)| *p == pos)
                .map(|(_, t)| *t)
        });
        // A bare name of a generic function (`list.sum`, `f`) shows its
        // declared type with its bounded variables, not the instance its
        // lone use here fixed (`Int` for a number type left open).
        let named = last_expression(program)
            .and_then(|pos| program.items.get(pos))
            .and_then(|item| match item {
                Item::Stmt(Stmt::Expr(e)) => named_scheme(&c, e),
                _ => None,
            });
        let value_type = match named {
            Some(ty) => Some(c.show_value(ty)),
            None => value.map(|t| c.show_value(t)),
        };
        let (calling_performs, calling_open) =
            value.map_or((Vec::new(), false), |t| calling_effects(&mut c, t));
        if typed.diagnostics.iter().any(Diagnostic::is_error) {
            // A rejected program has no manifest; this one's effects are
            // what `:effects` shows (the checker is dropped with what the
            // second look reports).
            let mut typed = typed;
            typed.manifest = c.manifest(grants);
            return CheckedInput {
                typed,
                defined: Vec::new(),
                value_type,
                calling_performs,
                calling_open,
                next: None,
            };
        }
        let defined = defined(&mut c, program, &typed.signatures);
        // The input's top level joins the session's.
        for (name, (binding, _, _)) in std::mem::take(&mut c.top_fns) {
            c.session.insert(name, binding);
        }
        // Each name's bindings are kept in order of position (`items.rs`):
        // the last is the one in force.
        for (name, mut sites) in std::mem::take(&mut c.top_lets) {
            if let Some((_, b)) = sites.pop() {
                c.session.insert(name, b);
            }
        }
        c.let_sites.clear();
        c.fn_pos.clear();
        c.fn_tyvars.clear();
        for item in &program.items {
            match item {
                Item::Type(t) => {
                    user_types.insert(t.name.name.clone());
                }
                Item::Effect(e) => {
                    user_effects.insert(e.name.name.clone());
                }
                _ => {}
            }
        }
        CheckedInput {
            typed,
            defined,
            value_type,
            calling_performs,
            calling_open,
            next: Some(CheckSession {
                checker: c,
                user_types,
                user_effects,
            }),
        }
    }
}

/// Remove the session's declarations of the types, constructors and
/// effects `program` declares again, so that the new ones replace them.
fn forget_redeclared(
    c: &mut Checker,
    program: &Program,
    user_types: &HashSet<String>,
    user_effects: &HashSet<String>,
) {
    for item in &program.items {
        match item {
            Item::Type(t) => {
                if user_types.contains(&t.name.name) {
                    let types = c.types_mut();
                    types.by_name.remove(&t.name.name);
                    types.row_params.remove(&t.name.name);
                }
                if let crate::ast::TypeBody::Variants(vs) = &t.body {
                    for v in vs {
                        // Only constructors a session input declared (they
                        // have a span); the prelude's stay built in.
                        let declared = c
                            .types
                            .ctor_by_name
                            .get(&v.name.name)
                            .and_then(|i| c.types.ctors.get(*i))
                            .is_some_and(|info| info.span.is_some());
                        if declared {
                            c.types_mut().ctor_by_name.remove(&v.name.name);
                        }
                    }
                }
            }
            Item::Effect(e) if user_effects.contains(&e.name.name) => {
                let types = c.types_mut();
                types.effects.remove(&e.name.name);
                types.row_params.remove(&e.name.name);
                c.syms.rebind(&e.name.name);
            }
            _ => {}
        }
    }
}

/// When `t` is a function type: the effects calling it performs (sorted),
/// and whether it also performs what the functions passed to it do (its
/// row's variable is also a parameter's, as `list.map`'s `e` is).
fn calling_effects(c: &mut Checker, t: TyId) -> (Vec<String>, bool) {
    let t = c.arena.resolve(t);
    let Node::Fn(params, _, row) = c.arena.node(t).clone() else {
        return (Vec::new(), false);
    };
    let (labels, tail) = c.arena.row_fields(row);
    let tail = c.arena.resolve(tail);
    let open = matches!(c.arena.node(tail), Node::Var { .. } | Node::Rigid { .. })
        && params
            .iter()
            .any(|p| c.arena.reachable(*p, |_, _| true).contains(&tail));
    let mut names: Vec<String> = labels
        .iter()
        .map(|(l, _)| c.syms.name(*l).to_string())
        .collect();
    names.sort();
    names.dedup();
    (names, open)
}

/// The position of the last statement, if it is an expression.
fn last_expression(program: &Program) -> Option<usize> {
    let (pos, item) = program
        .items
        .iter()
        .enumerate()
        .rfind(|(_, i)| matches!(i, Item::Stmt(_)))?;
    matches!(item, Item::Stmt(Stmt::Expr(_))).then_some(pos)
}

/// The declared type of `e` when it is a bare name of a generic
/// function: a session's (`f`) or a library namespace's (`list.sum`).
fn named_scheme(c: &Checker, e: &crate::ast::Expr) -> Option<crate::types::ty::TyId> {
    use crate::ast::ExprKind;
    let binding = match &e.kind {
        ExprKind::Var(v) => c.lookup(&v.name),
        ExprKind::Field { expr, name } => match &expr.kind {
            ExprKind::Var(ns) if c.lookup(&ns.name).is_none() => c
                .namespaces
                .get(&ns.name)
                .and_then(|members| members.get(&name.name)),
            _ => None,
        },
        _ => None,
    }?;
    let generic_fn = !binding.scheme.vars.is_empty()
        && matches!(
            c.arena.node(binding.scheme.ty),
            crate::types::ty::Node::Fn(..)
        );
    generic_fn.then_some(binding.scheme.ty)
}

/// The names `program` defines, with their types.
fn defined(
    c: &mut Checker,
    program: &Program,
    signatures: &[crate::types::Signature],
) -> Vec<Defined> {
    let mut out = Vec::new();
    for item in &program.items {
        match item {
            Item::Fn(f) => out.push(Defined {
                kind: DefinedKind::Fn,
                name: f.name.name.clone(),
                ty: signatures
                    .iter()
                    .find(|s| s.name == f.name.name)
                    .map(|s| s.signature.clone())
                    .unwrap_or_default(),
            }),
            Item::Type(t) => out.push(Defined {
                kind: DefinedKind::Type,
                name: t.name.name.clone(),
                ty: String::new(),
            }),
            Item::Effect(e) => out.push(Defined {
                kind: DefinedKind::Effect,
                name: e.name.name.clone(),
                ty: String::new(),
            }),
            Item::Stmt(Stmt::Let(l)) => {
                let mut names = Vec::new();
                collect_names(&l.pattern, &mut names);
                for (n, _) in names {
                    let ty = c
                        .top_lets
                        .get(&n)
                        .and_then(|v| {
                            v.iter().find(|(_, b)| {
                                l.span.start <= b.span.start && b.span.end <= l.span.end
                            })
                        })
                        .map(|(_, b)| b.scheme.clone());
                    let ty = ty
                        .map(|s| c.show_binding(s.ty, &s.vars))
                        .unwrap_or_default();
                    out.push(Defined {
                        kind: DefinedKind::Let,
                        name: n,
                        ty,
                    });
                }
            }
            Item::Stmt(_) => {}
        }
    }
    out
}
