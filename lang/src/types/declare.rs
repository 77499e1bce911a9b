//! Declarations: `type` and `effect` items become entries of the
//! [`crate::types::typedecl::TypeTable`].
//!
//! Types are declared in two steps, so that they may refer to each other in
//! any order: first every name (with its arity), then every body. A record
//! type is structural, so its body is translated when first needed; a
//! record that contains itself (directly or through other records) has no
//! finite structural type and is reported, with a hint to use a sum type.
//!
//! Invariants: a name is declared at most once per namespace (types,
//! constructors, effects), and the built-in type names and the host
//! capability names cannot be declared by a program.

use crate::ast::{Item, Program, TypeBody, TypeDecl};
use crate::diagnostic::{Code, Diagnostic};
use crate::types::infer::{Checker, GENERIC, Scheme};
use crate::types::ty::{Classes, Kind, Node, TyId};
use crate::types::typedecl::{CtorInfo, EffectInfo, OpInfo, TyVars, TypeDef, TypeInfo, VarMode};
use crate::types::{BuiltinEffect, TypeCon};

/// A record type whose body is not translated yet.
#[derive(Clone, Debug)]
pub(super) struct PendingRecord {
    /// The declaration.
    pub(crate) decl: TypeDecl,
    /// Whether its translation has started (a second visit is a cycle).
    pub(crate) started: bool,
}

impl Checker {
    /// Declare the types and effects of `program`.
    pub(super) fn declare(&mut self, program: &Program) {
        let mut sums: Vec<(TypeCon, &TypeDecl)> = Vec::new();
        for item in &program.items {
            let Item::Type(t) = item else { continue };
            if let Some(con) = self.types.by_name.get(&t.name.name).copied() {
                match self.types.info(con).and_then(|i| i.span) {
                    Some(first) => {
                        self.duplicate("type", &t.name.name, first, t.name.span);
                    }
                    _ => {
                        let (what, help) = if con.0 < 8 {
                            ("a built-in type", "choose another name for your type")
                        } else {
                            (
                                "declared by the standard library",
                                "the standard library (or a host capability) already uses this name; choose another name for your type",
                            )
                        };
                        self.report(
                            Diagnostic::new(
                                Code::BuiltinRedefined,
                                format!(
                                    "expected a new type name, found `{}`, which is built in",
                                    t.name.name
                                ),
                            )
                            .with_primary(t.name.span, what)
                            .with_help(help),
                        );
                        // A standard-library type is shadowed by the
                        // program's own, so that its uses are not reported
                        // again; a type built into the checker is not.
                        if con.0 >= 8 {
                            self.shadow_library_type(t);
                        }
                    }
                }
                continue;
            }
            let span = self.user_code.then_some(t.name.span);
            if let Some(con) = self.add_declared_type(t, span) {
                sums.push((con, t));
            }
        }
        for (con, t) in &sums {
            self.define_sum(*con, t, false);
        }
        // In the order declared: the type nodes made do not depend on a
        // hash map's order (the library's image is the same every build).
        let mut pending: Vec<TypeCon> = self.pending.keys().copied().collect();
        pending.sort();
        for con in pending {
            self.define_record(con);
        }
        self.sum_classes();
        for item in &program.items {
            if let Item::Effect(e) = item {
                self.declare_effect(e);
            }
        }
        // Row parameters pass through other declarations (`type Jobs[e] =
        // Jobs(List[Job[e]])`): repeat until nothing changes.
        for _ in 0..8 {
            if !self.find_row_params(program) {
                break;
            }
        }
    }

    /// Declare `t` under a name the standard library already uses (after
    /// reporting it), so the rest of the program sees the program's type.
    fn shadow_library_type(&mut self, t: &TypeDecl) {
        if let Some(con) = self.add_declared_type(t, Some(t.name.span)) {
            self.define_sum(con, t, true);
        }
    }

    /// Add `t`'s name to the table. A record waits to be translated on
    /// first use; a sum type's constructor is returned for the caller to
    /// define once every name is known.
    fn add_declared_type(
        &mut self,
        t: &TypeDecl,
        span: Option<crate::span::Span>,
    ) -> Option<TypeCon> {
        let record = matches!(t.body, TypeBody::Record(_));
        let con = self.types_mut().add_type(TypeInfo {
            name: t.name.name.clone(),
            arity: t.params.len(),
            def: TypeDef::Builtin,
            span,
            classes: if record {
                Classes::NONE
            } else {
                Classes::EQ.union(Classes::SHOW)
            },
        });
        if !record {
            return Some(con);
        }
        self.pending.insert(
            con,
            PendingRecord {
                decl: t.clone(),
                started: false,
            },
        );
        None
    }

    fn type_params(&mut self, params: &[crate::ast::Ident]) -> (TyVars, Vec<TyId>) {
        let mut vars = TyVars::default();
        let mut ids = Vec::new();
        for p in params {
            if let Some(first) = vars.names.iter().position(|(n, _)| *n == p.name) {
                let first = params.get(first).map(|f| f.span).unwrap_or(p.span);
                self.duplicate("type parameter", &p.name, first, p.span);
            }
            let v = self.arena.var(GENERIC, Kind::Type);
            vars.names.push((p.name.clone(), v));
            ids.push(v);
        }
        (vars, ids)
    }

    /// Define a sum type's constructors; with `shadowing`, constructors
    /// of the standard library with the same names are replaced silently
    /// (the type itself was already reported).
    fn define_sum(&mut self, con: TypeCon, t: &TypeDecl, shadowing: bool) {
        let TypeBody::Variants(variants) = &t.body else {
            return;
        };
        if let [only] = variants.as_slice()
            && only.fields.is_empty()
            && self
                .types
                .by_name
                .get(&only.name.name)
                .is_some_and(|c| c.0 < 8)
        {
            self.report(
                Diagnostic::new(
                    Code::BuiltinRedefined,
                    format!(
                        "expected a constructor, found `{}`, the name of a built-in type",
                        only.name.name
                    ),
                )
                .with_primary(only.name.span, "this declares a constructor, not an alias")
                .with_help(format!(
                    "Writ has no type aliases; to wrap the value, write `type {} = {}({})`",
                    t.name.name, t.name.name, only.name.name
                )),
            );
        }
        let (mut vars, params) = self.type_params(&t.params);
        self.decl_name = Some(t.name.name.clone());
        let result = self.con(con, params.clone());
        let mut ctors = Vec::new();
        for (index, v) in variants.iter().enumerate() {
            let fields: Vec<TyId> = v
                .fields
                .iter()
                .map(|f| self.translate(f, &mut vars, VarMode::Declared))
                .collect();
            if let Some(i) = self.types.ctor_by_name.get(&v.name.name).copied()
                && !(shadowing && self.types.ctors.get(i).is_some_and(|c| c.span.is_none()))
            {
                match self.types.ctors.get(i).and_then(|c| c.span) {
                    Some(first) => self.duplicate("constructor", &v.name.name, first, v.name.span),
                    None => self.report(
                        Diagnostic::new(
                            Code::BuiltinRedefined,
                            format!(
                                "expected a new constructor name, found `{}`, which is built in",
                                v.name.name
                            ),
                        )
                        .with_primary(v.name.span, "a constructor of the prelude")
                        .with_help("choose another name for this constructor"),
                    ),
                }
                continue;
            }
            let arity = fields.len();
            let ty = if fields.is_empty() {
                result
            } else {
                let row = self.arena.add(Node::RowEmpty);
                self.arena.add(Node::Fn(fields, result, row))
            };
            let info = CtorInfo {
                name: v.name.name.clone(),
                ty: con,
                index: ctors.len(),
                arity,
                scheme: Scheme {
                    vars: params.clone(),
                    ty,
                },
                span: self.user_code.then_some(v.name.span),
            };
            let _ = index;
            let types = self.types_mut();
            let id = types.ctors.len();
            types.ctors.push(info);
            types.ctor_by_name.insert(v.name.name.clone(), id);
            ctors.push(id);
        }
        if let Some(info) = self.types_mut().types.get_mut(con.0 as usize) {
            info.def = TypeDef::Sum(ctors);
        }
    }

    /// Translate a record type's body (on first use).
    pub(super) fn define_record(&mut self, con: TypeCon) {
        let Some(p) = self.pending.get_mut(&con) else {
            return;
        };
        if p.started {
            let decl = p.decl.clone();
            self.pending.remove(&con);
            self.report(
                Diagnostic::new(
                    Code::TypeMismatch,
                    format!(
                        "expected a record type that does not mention itself, found `{}` in its own fields",
                        decl.name.name
                    ),
                )
                .with_primary(decl.name.span, "this record type refers to itself")
                .with_note("records are structural: a record type is its fields, so one that contains itself (even inside a `List` or `Option`) would be infinite")
                .with_help(format!(
                    "make it a sum type with one constructor, which may refer to itself: `type {} = {}({{ ... }})`, built with `{}({{ ... }})` and read with `match`",
                    decl.name.name, decl.name.name, decl.name.name
                )),
            );
            return;
        }
        p.started = true;
        let decl = p.decl.clone();
        let TypeBody::Record(fields) = &decl.body else {
            return;
        };
        let (mut vars, params) = self.type_params(&decl.params);
        self.decl_name = Some(decl.name.name.clone());
        let mut row = Vec::new();
        let labels = self.field_labels(fields.iter().map(|f| &f.name));
        for (f, label) in fields.iter().zip(labels) {
            let Some(label) = label else { continue };
            let t = self.translate(&f.ty, &mut vars, VarMode::Declared);
            row.push((label, t));
        }
        if !self.pending.contains_key(&con) {
            // A cycle was found while translating the fields.
            let e = self.arena.add(Node::Error);
            if let Some(info) = self.types_mut().types.get_mut(con.0 as usize) {
                info.def = TypeDef::Record(Scheme::mono(e));
            }
            return;
        }
        self.pending.remove(&con);
        let empty = self.arena.add(Node::RowEmpty);
        let row = self.extend(&row, empty);
        let ty = self.arena.add(Node::Record(row));
        if let Some(info) = self.types_mut().types.get_mut(con.0 as usize) {
            info.def = TypeDef::Record(Scheme { vars: params, ty });
        }
    }

    /// Work out which sum types support `==` and display: those whose
    /// fields contain no function (a fixed point, for recursive types).
    fn sum_classes(&mut self) {
        loop {
            let mut changed = false;
            for i in 0..self.types.types.len() {
                let Some(TypeDef::Sum(ctors)) = self.types.types.get(i).map(|t| t.def.clone())
                else {
                    continue;
                };
                if self.types.types.get(i).map(|t| t.classes) == Some(Classes::NONE) {
                    continue;
                }
                let bad = ctors.iter().any(|c| {
                    self.types
                        .ctors
                        .get(*c)
                        .map(|c| c.scheme.ty)
                        .is_some_and(|t| match self.arena.node(t) {
                            Node::Fn(fields, _, _) => {
                                fields.clone().iter().any(|f| self.holds_fn(*f, 0))
                            }
                            _ => false,
                        })
                });
                if bad && let Some(t) = self.types_mut().types.get_mut(i) {
                    t.classes = Classes::NONE;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    fn holds_fn(&self, t: TyId, depth: usize) -> bool {
        if depth > 200 {
            return true;
        }
        match self.arena.node(t) {
            Node::Fn(..) => true,
            Node::Con(c, args) => {
                self.types.classes_of(*c) == Classes::NONE
                    || args.iter().any(|a| self.holds_fn(*a, depth + 1))
            }
            Node::Tuple(items) => items.iter().any(|a| self.holds_fn(*a, depth + 1)),
            Node::Record(row) => {
                let (fields, _) = self.arena.row_fields(*row);
                fields.iter().any(|(_, f)| self.holds_fn(*f, depth + 1))
            }
            _ => false,
        }
    }

    /// Record which parameters of each declared type and effect are used
    /// as effect rows, so that a use must give them a row variable.
    fn find_row_params(&mut self, program: &Program) -> bool {
        let mut changed = false;
        for item in &program.items {
            let (name, vars, tys): (String, Vec<TyId>, Vec<TyId>) = match item {
                Item::Type(t) => {
                    let Some(con) = self.types.by_name.get(&t.name.name).copied() else {
                        continue;
                    };
                    match self.types.info(con).map(|i| i.def.clone()) {
                        Some(TypeDef::Record(s)) => (t.name.name.clone(), s.vars, vec![s.ty]),
                        Some(TypeDef::Sum(ctors)) => {
                            let schemes: Vec<_> = ctors
                                .iter()
                                .filter_map(|c| self.types.ctors.get(*c))
                                .map(|c| c.scheme.clone())
                                .collect();
                            let vars = schemes.first().map(|s| s.vars.clone()).unwrap_or_default();
                            (
                                t.name.name.clone(),
                                vars,
                                schemes.iter().map(|s| s.ty).collect(),
                            )
                        }
                        _ => continue,
                    }
                }
                Item::Effect(e) => match self.types.effects.get(&e.name.name) {
                    Some(info) => {
                        let vars = info
                            .ops
                            .first()
                            .map(|o| o.scheme.vars.clone())
                            .unwrap_or_default();
                        (
                            e.name.name.clone(),
                            vars,
                            info.ops.iter().map(|o| o.scheme.ty).collect(),
                        )
                    }
                    None => continue,
                },
                _ => continue,
            };
            let mut tails = Vec::new();
            for t in tys {
                tails.extend(self.row_tails(t));
            }
            let flags: Vec<bool> = vars
                .iter()
                .map(|v| tails.contains(&self.arena.resolve(*v)))
                .collect();
            // The parameters that are rows are row variables from now on,
            // so every instance of the declaration has row variables there.
            for (v, f) in vars.iter().zip(flags.iter()) {
                if *f && let Node::Var { level, classes, .. } = self.arena.node(*v).clone() {
                    let v = self.arena.resolve(*v);
                    self.arena.set(
                        v,
                        Node::Var {
                            level,
                            kind: Kind::Row,
                            classes,
                        },
                    );
                }
            }
            if flags.iter().any(|f| *f) && self.types.row_params.get(&name) != Some(&flags) {
                self.types_mut().row_params.insert(name, flags);
                changed = true;
            }
        }
        changed
    }

    /// The row variables inside `t`: the tails of its function types'
    /// rows, and the arguments it gives to row parameters of declared types
    /// and effects.
    pub(super) fn row_tails(&mut self, t: TyId) -> Vec<TyId> {
        let mut out = Vec::new();
        for id in self.arena.reachable(t, |_, _| true) {
            let flagged = |name: &str, args: &[TyId], out: &mut Vec<TyId>| {
                for (a, f) in args
                    .iter()
                    .zip(self.types.row_params.get(name).into_iter().flatten())
                {
                    if *f {
                        out.push(self.arena.resolve(*a));
                    }
                }
            };
            match self.arena.node(id) {
                Node::Fn(_, _, row) => {
                    let (_, tail) = self.arena.row_fields(*row);
                    out.push(self.arena.resolve(tail));
                }
                Node::Con(con, args) => flagged(self.types.name(*con), args, &mut out),
                Node::RowExt(label, payload, _) => {
                    if let Node::Tuple(args) = self.arena.node(*payload) {
                        flagged(self.syms.name(*label), args, &mut out);
                    }
                }
                _ => {}
            }
        }
        out
    }

    fn declare_effect(&mut self, e: &crate::ast::EffectDecl) {
        if let Some(first) = self.types.effects.get(&e.name.name).map(|i| i.span) {
            if self.user_code && self.is_host_capability(&e.name.name) {
                self.report(
                    Diagnostic::new(
                        Code::BuiltinRedefined,
                        format!("expected a new effect name, found `{}`, which is a host capability", e.name.name),
                    )
                    .with_primary(e.name.span, "a program cannot declare a host capability")
                    .with_help(format!("the host provides `{}` as its policy grants; choose another name for your own effect", e.name.name)),
                );
            } else {
                match first {
                    Some(f)
                        if self.user_code
                            && self
                                .types
                                .effects
                                .get(&e.name.name)
                                .is_some_and(|i| !i.host && !BuiltinEffect::Fail.is(&i.name)) =>
                    {
                        self.duplicate("effect", &e.name.name, f, e.name.span)
                    }
                    _ => self.report(
                        Diagnostic::new(
                            Code::BuiltinRedefined,
                            format!(
                                "expected a new effect name, found `{}`, which is built in",
                                e.name.name
                            ),
                        )
                        .with_primary(e.name.span, "a built-in effect")
                        .with_help("choose another name for your own effect"),
                    ),
                }
            }
            return;
        }
        let (mut vars, params) = self.type_params(&e.params);
        self.decl_name = Some(format!("effect {}", e.name.name));
        let mut ops: Vec<OpInfo> = Vec::new();
        for op in &e.ops {
            if ops.iter().any(|o| o.name == op.name.name) {
                let first = e
                    .ops
                    .iter()
                    .find(|o| o.name.name == op.name.name)
                    .map(|o| o.name.span)
                    .unwrap_or(op.name.span);
                self.duplicate("operation", &op.name.name, first, op.name.span);
                continue;
            }
            let ps: Vec<TyId> = op
                .params
                .iter()
                .map(|p| match &p.ty {
                    Some(t) => self.translate(t, &mut vars, VarMode::Declared),
                    None => {
                        self.report(
                            Diagnostic::new(
                                Code::MissingAnnotation,
                                format!("expected a type for the parameter `{}` of an operation, found none", p.name.name),
                            )
                            .with_primary(p.span, "add `: Type`")
                            .with_help("operation signatures are the interface between a program and its handlers, so every parameter has a written type"),
                        );
                        self.arena.add(Node::Error)
                    }
                })
                .collect();
            let ret = match &op.ret {
                Some(t) => self.translate(t, &mut vars, VarMode::Declared),
                None => self.con(TypeCon::UNIT, Vec::new()),
            };
            let never = matches!(self.arena.node(ret), Node::Con(c, _) if *c == TypeCon::NEVER);
            let row = self.arena.add(Node::RowEmpty);
            let ty = self.arena.add(Node::Fn(ps.clone(), ret, row));
            ops.push(OpInfo {
                name: op.name.name.clone(),
                scheme: Scheme {
                    vars: params.clone(),
                    ty,
                },
                never,
            });
        }
        let info = EffectInfo {
            name: e.name.name.clone(),
            arity: params.len(),
            ops,
            span: if self.user_code {
                Some(e.name.span)
            } else {
                None
            },
            host: !self.user_code && self.is_host_capability(&e.name.name),
        };
        self.types_mut().effects.insert(e.name.name.clone(), info);
    }
}
