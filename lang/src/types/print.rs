//! Printing types the way the program writes them.
//!
//! Declared record types print by their name (`Flight`), other records by
//! their fields; type variables print as `a`, `b`, ... in order of first
//! appearance, consistently across every type of one message (one
//! [`Checker::show`] call), skipping names the signature's own type
//! variables use.
//!
//! Invariants: printing never fails and never recurses without growing the
//! stack; output is cut at [`MAX_TYPE_TEXT`] characters with `…`, so a huge
//! type cannot flood a terminal.

use std::collections::{HashMap, HashSet};

use crate::ast::{Expr, ExprKind};
use crate::types::TypeCon;
use crate::types::infer::Checker;
use crate::types::ty::{Node, TyId};
use crate::types::typedecl::TypeDef;

/// The longest type text printed, in characters.
pub(super) const MAX_TYPE_TEXT: usize = 400;

/// The most type nodes one printed type visits. Printing has its own
/// bound rather than the check's budget: a program whose check spent
/// most of that budget still has each binding's type shown, and the
/// work printing adds stays a constant per printed type.
const MAX_PRINT_STEPS: usize = 4 * MAX_TYPE_TEXT;

/// The most type nodes walked to find which row variables end more than
/// one arrow (only the part of a type that prints matters).
const MAX_COUNT_STEPS: usize = 2_000;

#[derive(Default)]
struct Namer {
    names: HashMap<TyId, String>,
    taken: HashSet<String>,
    next: usize,
    /// Names of row variables: `e`, `e1`, ...
    rows: HashMap<TyId, String>,
    /// How many arrows end in each row variable: one that ends a single
    /// arrow says nothing (any effects) and is not printed.
    row_uses: HashMap<TyId, usize>,
    /// Type nodes written so far, against [`MAX_PRINT_STEPS`].
    steps: usize,
}

impl Namer {
    fn row_name(&mut self, v: TyId) -> String {
        if let Some(n) = self.rows.get(&v) {
            return n.clone();
        }
        let mut i = self.rows.len();
        loop {
            let name = if i == 0 {
                "e".to_string()
            } else {
                format!("e{i}")
            };
            i += 1;
            if !self.taken.contains(&name) && !self.rows.values().any(|n| *n == name) {
                self.rows.insert(v, name.clone());
                return name;
            }
        }
    }

    fn name(&mut self, v: TyId) -> String {
        if let Some(n) = self.names.get(&v) {
            return n.clone();
        }
        loop {
            let i = self.next;
            self.next += 1;
            let letter = ((b'a' + (i % 26) as u8) as char).to_string();
            let name = if i < 26 {
                letter
            } else {
                format!("{letter}{}", i / 26)
            };
            if !self.taken.contains(&name) {
                self.names.insert(v, name.clone());
                return name;
            }
        }
    }
}

impl Checker {
    /// Print types for one message, naming variables consistently.
    pub(super) fn show(&mut self, tys: &[TyId]) -> Vec<String> {
        let mut namer = Namer::default();
        let mut counted = HashSet::new();
        for t in tys {
            self.rigid_names(*t, &mut namer.taken);
            // A type printed twice in one message (the whole and a part)
            // does not make its row variables look shared.
            if counted.insert(self.arena.resolve(*t)) {
                let mut budget = MAX_COUNT_STEPS;
                self.count_rows(*t, &mut namer.row_uses, &mut budget);
            }
        }
        tys.iter()
            .map(|t| {
                let mut out = String::new();
                self.write_ty(*t, &mut namer, &mut out);
                cut(out)
            })
            .collect()
    }

    /// Print the type of a value (the REPL's `:type`, an input's value):
    /// as [`Checker::show`] does, a function's bounded variables with
    /// their bounds after `fn` (`fn[a: Num](a) -> a`).
    pub(super) fn show_value(&mut self, ty: TyId) -> String {
        let mut namer = Namer::default();
        self.rigid_names(ty, &mut namer.taken);
        let mut budget = MAX_COUNT_STEPS;
        self.count_rows(ty, &mut namer.row_uses, &mut budget);
        let mut out = String::new();
        self.write_ty(ty, &mut namer, &mut out);
        self.with_bounds(ty, &namer, out)
    }

    /// `out`, the printed `ty`, with its bounds after `fn` when it is a
    /// function whose variables have some.
    fn with_bounds(&mut self, ty: TyId, namer: &Namer, out: String) -> String {
        if matches!(self.arena.node(ty), Node::Fn(..))
            && let Some(rest) = out.strip_prefix("fn")
        {
            let bounds = self.bounds_text(ty, namer);
            if !bounds.is_empty() {
                return cut(format!("fn{bounds}{rest}"));
            }
        }
        cut(out)
    }

    /// Print the type of a binding whose quantified variables are `vars`:
    /// any other type variable in it is not generic (the value restriction
    /// kept it so, and its first use will fix it) and prints as `_a`,
    /// `_b`, ... — the difference a reader needs between `List[a]`, a list
    /// of anything, and `List[_a]`, a list of one type not known yet.
    pub(super) fn show_binding(&mut self, ty: TyId, vars: &[TyId]) -> String {
        let quantified: HashSet<TyId> = vars.iter().map(|v| self.arena.resolve(*v)).collect();
        let mut namer = Namer::default();
        self.rigid_names(ty, &mut namer.taken);
        let mut budget = MAX_COUNT_STEPS;
        self.count_rows(ty, &mut namer.row_uses, &mut budget);
        let mut weak = 0usize;
        for v in self.vars_in(ty) {
            let is_type_var = matches!(
                self.arena.node(v),
                Node::Var { kind, .. } if *kind != crate::types::ty::Kind::Row
            );
            if is_type_var && !quantified.contains(&v) {
                let letter = ((b'a' + (weak % 26) as u8) as char).to_string();
                let name = if weak < 26 {
                    format!("_{letter}")
                } else {
                    format!("_{letter}{}", weak / 26)
                };
                namer.names.insert(v, name);
                weak += 1;
            }
        }
        let mut out = String::new();
        self.write_ty(ty, &mut namer, &mut out);
        // A function's bounded variables show their bounds after `fn`, as
        // a declaration writes them (`fn[a: Num](a, a) -> a`).
        self.with_bounds(ty, &namer, out)
    }

    /// Print a function signature: `fn name[a: Eq](x: a) -> Bool`.
    pub(super) fn show_signature(&mut self, name: &str, params: &[String], ty: TyId) -> String {
        let mut namer = Namer::default();
        self.rigid_names(ty, &mut namer.taken);
        // Parameter names live in another namespace, but a reader would
        // still confuse `a: a`.
        namer.taken.extend(params.iter().cloned());
        let mut budget = MAX_COUNT_STEPS;
        self.count_rows(ty, &mut namer.row_uses, &mut budget);
        let Node::Fn(ps, ret, own_row) = self.arena.node(ty).clone() else {
            let mut out = String::new();
            self.write_ty(ty, &mut namer, &mut out);
            return format!("{name}: {}", cut(out));
        };
        let mut parts = Vec::new();
        for (i, p) in ps.iter().enumerate() {
            let mut out = String::new();
            self.write_ty(*p, &mut namer, &mut out);
            let pname = params.get(i).cloned().unwrap_or_else(|| "_".into());
            parts.push(format!("{pname}: {}", cut(out)));
        }
        let mut r = String::new();
        self.write_ty(ret, &mut namer, &mut r);
        let mut row_text = String::new();
        self.write_row(own_row, &mut namer, &mut row_text);
        // A row after a returned function type would read as that
        // function's: parenthesise it.
        if !row_text.is_empty() && matches!(self.arena.node(ret), Node::Fn(..)) {
            r = format!("({r})");
        }
        r.push_str(&row_text);
        let generics = self.bounds_text(ty, &namer);
        format!("fn {name}{generics}({}) -> {}", parts.join(", "), cut(r))
    }

    /// The bounds of the type variables of `ty` as `namer` named them,
    /// in brackets (`[a: Num, b: Eq]`), or nothing when none has one.
    fn bounds_text(&mut self, ty: TyId, namer: &Namer) -> String {
        let mut bounded: Vec<(String, String)> = Vec::new();
        let mut seen = HashSet::new();
        for v in self.vars_in(ty) {
            if !seen.insert(v) {
                continue;
            }
            let (n, classes) = match self.arena.node(v) {
                Node::Var { classes, .. } => (namer.names.get(&v).cloned(), *classes),
                Node::Rigid { name, bounds, .. } => {
                    (Some(self.syms.name(*name).to_string()), *bounds)
                }
                _ => continue,
            };
            if let Some(n) = n
                && !classes.is_empty()
            {
                bounded.push((n, classes.names().join(" + ")));
            }
        }
        bounded.sort();
        bounded.dedup();
        if bounded.is_empty() {
            String::new()
        } else {
            format!(
                "[{}]",
                bounded
                    .iter()
                    .map(|(n, b)| format!("{n}: {b}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    }

    /// The type variables and signature variables of `t`.
    fn vars_in(&mut self, t: TyId) -> Vec<TyId> {
        let all = self.arena.reachable(t, |_, _| true);
        all.into_iter()
            .filter(|v| matches!(self.arena.node(*v), Node::Var { .. } | Node::Rigid { .. }))
            .collect()
    }

    /// The names of the signature variables in `t`.
    fn rigid_names(&mut self, t: TyId, taken: &mut HashSet<String>) {
        for v in self.arena.reachable(t, |_, _| true) {
            if let Node::Rigid { name, .. } = self.arena.node(v) {
                taken.insert(self.syms.name(*name).to_string());
            }
        }
    }

    fn write_ty(&mut self, t: TyId, namer: &mut Namer, out: &mut String) {
        stacker::maybe_grow(
            crate::types::STACK_RED_ZONE,
            crate::types::STACK_CHUNK,
            || self.write_inner(t, namer, out),
        )
    }

    fn write_list(&mut self, items: &[TyId], namer: &mut Namer, out: &mut String) {
        for (i, a) in items.iter().enumerate() {
            if out.len() > MAX_TYPE_TEXT {
                return;
            }
            if i > 0 {
                out.push_str(", ");
            }
            self.write_ty(*a, namer, out);
        }
    }

    fn write_inner(&mut self, t: TyId, namer: &mut Namer, out: &mut String) {
        namer.steps += 1;
        if out.len() > MAX_TYPE_TEXT || namer.steps > MAX_PRINT_STEPS {
            return;
        }
        let t = self.arena.resolve(t);
        match self.arena.node(t).clone() {
            Node::Var {
                kind: crate::types::ty::Kind::Row,
                ..
            } => out.push_str(&namer.row_name(t)),
            Node::Var { .. } => out.push_str(&namer.name(t)),
            Node::Link(_) | Node::Error => out.push('_'),
            Node::Rigid { name, .. } => out.push_str(self.syms.name(name)),
            Node::Con(c, args) => {
                out.push_str(self.types.name(c));
                if !args.is_empty() {
                    out.push('[');
                    self.write_list(&args, namer, out);
                    out.push(']');
                }
            }
            Node::Tuple(items) => {
                out.push('(');
                self.write_list(&items, namer, out);
                out.push(')');
            }
            Node::Fn(ps, r, row) => {
                out.push_str("fn(");
                self.write_list(&ps, namer, out);
                out.push_str(") -> ");
                self.write_ty(r, namer, out);
                self.write_row(row, namer, out);
            }
            Node::Record(row) => {
                if let Some((name, args)) = self.declared_record(row) {
                    out.push_str(&name);
                    if !args.is_empty() {
                        out.push('[');
                        self.write_list(&args, namer, out);
                        out.push(']');
                    }
                    return;
                }
                let (fields, tail) = self.arena.row_fields(row);
                let open = !matches!(self.arena.node(tail), Node::RowEmpty);
                if fields.is_empty() {
                    out.push_str(if open { "{ .. }" } else { "{}" });
                    return;
                }
                out.push_str("{ ");
                for (i, (l, ft)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(self.syms.name(*l));
                    out.push_str(": ");
                    self.write_ty(*ft, namer, out);
                }
                out.push_str(if open { ", .. }" } else { " }" });
            }
            Node::RowEmpty | Node::RowExt(..) => {
                // A row as a type argument (`Job[{Pay | e}]`).
                let mut text = String::new();
                self.write_row(t, namer, &mut text);
                let text = text.trim_start_matches(" / ");
                out.push_str(if text.is_empty() { "{}" } else { text });
            }
        }
    }

    /// ` / {Http, State[Int] | e}` after an arrow's result; nothing for a
    /// row with no effects and no variable worth naming.
    fn write_row(&mut self, row: TyId, namer: &mut Namer, out: &mut String) {
        let (labels, tail) = self.arena.row_fields(row);
        let tail = self.arena.resolve(tail);
        let tail_name = match self.arena.node(tail) {
            Node::Rigid { name, .. } if namer.row_uses.get(&tail).copied().unwrap_or(0) > 1 => {
                Some(self.syms.name(*name).to_string())
            }
            Node::Var { .. } if namer.row_uses.get(&tail).copied().unwrap_or(0) > 1 => {
                Some(namer.row_name(tail))
            }
            _ => None,
        };
        if labels.is_empty() && tail_name.is_none() {
            return;
        }
        let mut parts = Vec::new();
        let mut printed: Vec<u32> = Vec::new();
        for (l, payload) in &labels {
            // A row is a set: an effect met twice while rows were joined is
            // one effect.
            if printed.contains(l) {
                continue;
            }
            printed.push(*l);
            let mut p = self.syms.name(*l).to_string();
            if let Node::Tuple(args) = self.arena.node(*payload).clone()
                && !args.is_empty()
            {
                p.push('[');
                self.write_list(&args, namer, &mut p);
                p.push(']');
            }
            parts.push(p);
        }
        out.push_str(" / {");
        out.push_str(&parts.join(", "));
        match (tail_name, parts.is_empty()) {
            (Some(t), true) => out.push_str(&t),
            (Some(t), false) => {
                out.push_str(" | ");
                out.push_str(&t);
            }
            (None, _) => {}
        }
        out.push('}');
    }

    /// Count, for each row variable, the arrows whose rows end in it.
    fn count_rows(&self, t: TyId, uses: &mut HashMap<TyId, usize>, budget: &mut usize) {
        stacker::maybe_grow(
            crate::types::STACK_RED_ZONE,
            crate::types::STACK_CHUNK,
            || self.count_rows_inner(t, uses, budget),
        )
    }

    fn count_rows_inner(&self, t: TyId, uses: &mut HashMap<TyId, usize>, budget: &mut usize) {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let t = self.arena.resolve(t);
        match self.arena.node(t) {
            Node::Fn(ps, r, row) => {
                let (labels, tail) = self.arena.row_fields(*row);
                *uses.entry(self.arena.resolve(tail)).or_insert(0) += 1;
                for (_, payload) in labels {
                    self.count_rows(payload, uses, budget);
                }
                for p in ps.clone() {
                    self.count_rows(p, uses, budget);
                }
                self.count_rows(*r, uses, budget);
            }
            Node::Var {
                kind: crate::types::ty::Kind::Row,
                ..
            } => *uses.entry(t).or_insert(0) += 1,
            Node::Rigid { .. } if self.row_rigids.contains(&t) => *uses.entry(t).or_insert(0) += 1,
            Node::RowExt(..) => {
                // A row as a type argument counts its tail once.
                let (labels, tail) = self.arena.row_fields(t);
                *uses.entry(self.arena.resolve(tail)).or_insert(0) += 1;
                for (_, payload) in labels {
                    self.count_rows(payload, uses, budget);
                }
            }
            _ => {
                for c in self.arena.children(t) {
                    self.count_rows(c, uses, budget);
                }
            }
        }
    }

    /// The declared record type a closed row is, with its arguments.
    fn declared_record(&mut self, row: TyId) -> Option<(String, Vec<TyId>)> {
        let (fields, tail) = self.arena.row_fields(row);
        if !matches!(self.arena.node(tail), Node::RowEmpty) {
            return None;
        }
        let candidates: Vec<(String, crate::types::infer::Scheme)> = self
            .types
            .types
            .iter()
            .filter_map(|i| match &i.def {
                TypeDef::Record(s) => Some((i.name.clone(), s.clone())),
                _ => None,
            })
            .collect();
        let mut found: Option<(String, Vec<TyId>)> = None;
        for (name, scheme) in candidates {
            let Node::Record(trow) = self.arena.node(scheme.ty).clone() else {
                continue;
            };
            let (tfields, _) = self.arena.row_fields(trow);
            if tfields.len() != fields.len() {
                continue;
            }
            let mut binds: HashMap<TyId, TyId> = HashMap::new();
            let vars: Vec<TyId> = scheme.vars.iter().map(|v| self.arena.resolve(*v)).collect();
            let ok = tfields.iter().all(|(l, tt)| {
                fields
                    .iter()
                    .find(|(l2, _)| l2 == l)
                    .is_some_and(|(_, ft)| self.matches(*tt, *ft, &vars, &mut binds, 0))
            });
            if ok {
                if found.is_some() {
                    // Two declared types with these fields: the name would
                    // be a guess, so print the fields.
                    return None;
                }
                let args = vars
                    .iter()
                    .map(|v| binds.get(v).copied().unwrap_or(*v))
                    .collect();
                found = Some((name, args));
            }
        }
        found
    }

    /// Whether `ty` is an instance of `template` (whose variables are
    /// `vars`), recording what each variable stands for.
    fn matches(
        &self,
        template: TyId,
        ty: TyId,
        vars: &[TyId],
        binds: &mut HashMap<TyId, TyId>,
        depth: usize,
    ) -> bool {
        if depth > 64 || !self.charge(1) {
            return false;
        }
        let a = self.arena.resolve(template);
        let b = self.arena.resolve(ty);
        if vars.contains(&a) {
            return match binds.get(&a) {
                Some(prev) => self.same(*prev, b, depth + 1),
                None => {
                    binds.insert(a, b);
                    true
                }
            };
        }
        if a == b {
            return true;
        }
        match (self.arena.node(a), self.arena.node(b)) {
            (Node::Con(c1, x), Node::Con(c2, y)) => {
                c1 == c2
                    && x.len() == y.len()
                    && x.iter()
                        .zip(y.iter())
                        .all(|(p, q)| self.matches(*p, *q, vars, binds, depth + 1))
            }
            (Node::Tuple(x), Node::Tuple(y)) => {
                x.len() == y.len()
                    && x.iter()
                        .zip(y.iter())
                        .all(|(p, q)| self.matches(*p, *q, vars, binds, depth + 1))
            }
            (Node::Fn(p1, r1, e1), Node::Fn(p2, r2, e2)) => {
                let (e1, e2) = (*e1, *e2);
                p1.len() == p2.len()
                    && p1
                        .iter()
                        .zip(p2.iter())
                        .all(|(p, q)| self.matches(*p, *q, vars, binds, depth + 1))
                    && self.matches(*r1, *r2, vars, binds, depth + 1)
                    && {
                        // A row parameter of the declaration stands for the
                        // whole row here.
                        let e1 = self.arena.resolve(e1);
                        if vars.contains(&e1) {
                            let e2 = self.arena.resolve(e2);
                            match binds.get(&e1) {
                                Some(prev) => self.arena.resolve(*prev) == e2,
                                None => {
                                    binds.insert(e1, e2);
                                    true
                                }
                            }
                        } else {
                            true
                        }
                    }
            }
            (Node::Record(r1), Node::Record(r2)) => {
                let (f1, t1) = self.arena.row_fields(*r1);
                let (f2, t2) = self.arena.row_fields(*r2);
                matches!(self.arena.node(t1), Node::RowEmpty)
                    && matches!(self.arena.node(t2), Node::RowEmpty)
                    && f1.len() == f2.len()
                    && f1.iter().all(|(l, x)| {
                        f2.iter()
                            .find(|(l2, _)| l2 == l)
                            .is_some_and(|(_, y)| self.matches(*x, *y, vars, binds, depth + 1))
                    })
            }
            _ => false,
        }
    }

    fn same(&self, a: TyId, b: TyId, depth: usize) -> bool {
        let mut none = HashMap::new();
        self.matches(a, b, &[], &mut none, depth)
    }
}

fn cut(mut s: String) -> String {
    if s.chars().count() > MAX_TYPE_TEXT {
        s = s.chars().take(MAX_TYPE_TEXT).collect();
        s.push('…');
    }
    s
}

/// A short rendering of a simple expression for a hint (`xs`, `a.b`), or
/// `...` when it is not simple.
pub(super) fn snippet(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Var(v) => v.name.clone(),
        ExprKind::Field { expr, name } => {
            let inner = snippet(expr);
            if inner == "..." {
                inner
            } else {
                format!("{inner}.{}", name.name)
            }
        }
        _ => "...".to_string(),
    }
}

/// Whether `con` is one of the numeric types.
pub(super) fn is_numeric(con: TypeCon) -> bool {
    con == TypeCon::INT || con == TypeCon::FLOAT
}
