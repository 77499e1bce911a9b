//! The top level: the standard library, declarations, and the order in
//! which functions and statements are inferred.
//!
//! Invariants: the standard library is checked by the same code as a
//! program (its diagnostics are a bug, caught by a test); declarations are
//! all known before any function body is inferred; functions are inferred
//! group by group in dependency order and each group is generalised before
//! anything that uses it is inferred.

use std::collections::HashMap;

use crate::ast::{FnDecl, Item, Program, Stmt};
use crate::diagnostic::{Code, Diagnostic, sort_and_dedup};
use crate::span::Span;
use crate::types::calls::{FnSig, SigVars};
use crate::types::deps;
use crate::types::infer::{Binding, Checker, Scheme};
use crate::types::pattern::collect_names;
use crate::types::ty::{Classes, Node, TyId};
use crate::types::{BuiltinEffect, ManifestEntry, Signature, TypeCon, Typed};

/// The names of the host capabilities, which programs may not redeclare.
pub const HOST_CAPABILITIES: &[&str] = &[
    "Http",
    "Pay",
    "Records",
    "Audit",
    BuiltinEffect::Log.name(),
    "Clock",
    "Confirm",
];

/// What an operation of a host capability does to the world outside the
/// run: the distinction a plan makes (a read is performed and recorded; an
/// act is what the person approves).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// Changes nothing outside the person's host: it fetches or reads
    /// (`Http.get`, `Records.read`, `Records.list`, `Clock.now`), asks the
    /// person (`Confirm.ask`), or writes to the run's own output and the
    /// host's audit log (`Log.info`, `Audit.note`).
    Read,
    /// Changes the world: `Pay.pay`, `Http.post`, and every operation of an
    /// embedder's capability not declared a read.
    Act,
}

impl OpKind {
    /// `read` or `act`, as the manifest and the REPL show it.
    pub fn as_str(self) -> &'static str {
        match self {
            OpKind::Read => "read",
            OpKind::Act => "act",
        }
    }
}

/// Every operation of the built-in host capabilities, with its kind, in
/// the order `stdlib/capabilities.writ` declares them.
pub const BUILTIN_OPERATIONS: &[(&str, &str, OpKind)] = &[
    ("Http", "get", OpKind::Read),
    ("Http", "post", OpKind::Act),
    ("Pay", "pay", OpKind::Act),
    ("Records", "read", OpKind::Read),
    ("Records", "list", OpKind::Read),
    ("Audit", "note", OpKind::Read),
    ("Log", "info", OpKind::Read),
    ("Clock", "now", OpKind::Read),
    ("Confirm", "ask", OpKind::Read),
];

/// The kind of an operation of a built-in host capability (`None` for
/// any other operation: an embedder's capability declares its own, see
/// `writ_host::engine::Engine::with_reads`).
pub fn builtin_op_kind(effect: &str, op: &str) -> Option<OpKind> {
    BUILTIN_OPERATIONS
        .iter()
        .find(|(e, o, _)| *e == effect && *o == op)
        .map(|(_, _, k)| *k)
}

/// Check a whole program with `options`: the inputs a host declares
/// (bound before the program's declarations) and the host capability
/// interfaces an embedder declares (Writ source of `effect` declarations)
/// beside the built-in ones.
pub(super) fn check_program(program: &Program, options: &crate::types::CheckOptions<'_>) -> Typed {
    let mut c = crate::types::library::with_library(options.interfaces);
    let inputs = c.declare_inputs(options.inputs);
    c.forbid_input_names(program);
    Typed {
        interfaces: options.interfaces.to_vec(),
        inputs,
        ..c.check_items(program, options.grants)
    }
}

impl Checker {
    /// Declare and check `program`'s items against what the checker
    /// already holds, close its row and build its manifest. The
    /// diagnostics are taken out (sorted, with a note when some were
    /// dropped); signatures and manifest are empty unless it is accepted.
    pub(crate) fn check_items(
        &mut self,
        program: &Program,
        grants: Option<crate::types::Grants<'_>>,
    ) -> Typed {
        self.arena.work.restart();
        self.work_reported = false;
        self.declare(program);
        self.check_top_level(program);
        self.settle_row_waits(0);
        self.default_numbers();
        self.check_sum_uses();
        let manifest = self.manifest(grants);
        // Spent in declarations or in closing the program: the whole
        // program is where.
        let whole = program
            .items
            .iter()
            .map(item_span)
            .reduce(Span::join)
            .unwrap_or_default();
        self.report_out_of_work(whole);
        let rejected = self.diagnostics.iter().any(Diagnostic::is_error);
        let (signatures, manifest) = if rejected {
            (Vec::new(), Vec::new())
        } else {
            (self.signatures(program), manifest)
        };
        let mut diagnostics = std::mem::take(&mut self.diagnostics);
        if self.dropped > 0
            && let Some(last) = diagnostics.last_mut()
        {
            last.notes.push(format!(
                "{} more problems were found and are not shown; fix these first",
                self.dropped
            ));
        }
        sort_and_dedup(&mut diagnostics);
        Typed {
            diagnostics,
            signatures,
            manifest,
            resolution: self.take_resolution(),
            work: self.arena.work.used(),
            // The caller that knows them says (a session's are its own).
            interfaces: Vec::new(),
            inputs: Vec::new(),
        }
    }
}

impl Checker {
    /// The resolution of the names checked, with each use of `list.sum`
    /// whose numbers turned out to be `Float`s marked (known only once
    /// inference ends).
    pub(crate) fn take_resolution(&mut self) -> crate::types::Resolution {
        let floats: Vec<Span> = self
            .sum_uses
            .iter()
            .filter(|(_, t)| {
                let Node::Fn(_, ret, _) = self.arena.node(*t) else {
                    return false;
                };
                matches!(self.arena.node(*ret), Node::Con(TypeCon::FLOAT, _))
            })
            .map(|(s, _)| *s)
            .collect();
        for at in floats {
            self.resolution
                .insert(at, crate::types::Resolved::Member { float_sum: true });
        }
        std::mem::take(&mut self.resolution)
    }

    pub(crate) fn check_top_level(&mut self, program: &Program) {
        // Nodes: every top-level fn and statement, by item position.
        let mut fn_pos: HashMap<String, usize> = HashMap::new();
        let mut let_sites: HashMap<String, Vec<(usize, Span)>> = HashMap::new();
        for (pos, item) in program.items.iter().enumerate() {
            match item {
                Item::Fn(f) => {
                    if let Some(first) = fn_pos.get(&f.name.name).and_then(|p| fn_at(program, *p)) {
                        let first = first.name.span;
                        self.duplicate("function", &f.name.name, first, f.name.span);
                        continue;
                    }
                    fn_pos.insert(f.name.name.clone(), pos);
                }
                Item::Stmt(Stmt::Let(l)) => {
                    let mut names = Vec::new();
                    collect_names(&l.pattern, &mut names);
                    for (n, s) in names {
                        let_sites.entry(n).or_default().push((pos, s));
                    }
                }
                _ => {}
            }
        }
        for (name, sites) in &let_sites {
            if let (Some(p), Some((_, s))) = (fn_pos.get(name), sites.first())
                && let Some(f) = fn_at(program, *p)
            {
                let (fs, ls) = (f.name.span, *s);
                let (first, again) = if fs.start < ls.start {
                    (fs, ls)
                } else {
                    (ls, fs)
                };
                self.duplicate("top-level name", name, first, again);
            }
        }
        let n = program.items.len();
        let mut edges: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (pos, item) in program.items.iter().enumerate() {
            let mut vars = Vec::new();
            match item {
                Item::Fn(f) => {
                    if let Some(b) = &f.body {
                        b.vars(&mut vars);
                    }
                }
                Item::Stmt(s) => s.vars(&mut vars),
                _ => continue,
            }
            let mut refs: Vec<&String> = vars.into_iter().map(|v| &v.name).collect();
            refs.sort();
            refs.dedup();
            for r in refs {
                let before = let_sites
                    .get(r)
                    .and_then(|v| v.iter().rev().find(|(p, _)| *p < pos).map(|(p, _)| *p));
                let target = match item {
                    Item::Fn(_) => fn_pos.get(r).copied().or(before),
                    _ => before.or_else(|| fn_pos.get(r).copied()),
                };
                if let Some(t) = target
                    && let Some(e) = edges.get_mut(pos)
                {
                    e.push(t);
                }
            }
        }
        self.let_sites = let_sites;
        self.fn_pos = fn_pos;
        // The latest top-level `let` each node needs, directly or through
        // the functions it calls.
        let mut needs: Vec<Option<usize>> = vec![None; n];
        for comp in deps::components(&edges) {
            let has_stmt = comp
                .iter()
                .any(|p| matches!(program.items.get(*p), Some(Item::Stmt(_))));
            if has_stmt && comp.len() > 1 {
                self.report_cycle(program, &comp);
                continue;
            }
            let mut need: Option<usize> = None;
            for p in &comp {
                for t in edges.get(*p).into_iter().flatten() {
                    if comp.contains(t) {
                        continue;
                    }
                    let direct = matches!(program.items.get(*t), Some(Item::Stmt(_))).then_some(*t);
                    let via = needs.get(*t).copied().flatten();
                    need = need.max(direct).max(via);
                }
            }
            for p in &comp {
                if let Some(slot) = needs.get_mut(*p) {
                    *slot = need;
                }
            }
            if self.out_of_work() {
                // Nothing after the budget ran out is checked (or
                // reported): the program is rejected already.
                break;
            }
            if has_stmt {
                let pos = comp.first().copied().unwrap_or(0);
                self.check_order(program, pos, &edges, &needs);
                if let Some(Item::Stmt(s)) = program.items.get(pos) {
                    self.top_statement(pos, s);
                }
            } else {
                self.fn_group(program, &comp);
            }
            // The budget ran out in this item outside any expression (a
            // signature, generalisation): the item is where.
            if let Some(item) = comp.first().and_then(|p| program.items.get(*p)) {
                self.report_out_of_work(item_span(item));
            }
        }
    }

    /// A statement that calls a function needing a `let` defined after the
    /// statement would read it before it exists.
    fn check_order(
        &mut self,
        program: &Program,
        pos: usize,
        edges: &[Vec<usize>],
        needs: &[Option<usize>],
    ) {
        for t in edges.get(pos).into_iter().flatten() {
            let Some(Item::Fn(f)) = program.items.get(*t) else {
                continue;
            };
            if let Some(late) = needs.get(*t).copied().flatten()
                && late >= pos
            {
                let stmt_span = program.items.get(pos).map(item_span).unwrap_or_default();
                let late_span = program.items.get(late).map(item_span).unwrap_or_default();
                self.report(
                    Diagnostic::new(
                        Code::UsedBeforeDefinition,
                        format!(
                            "expected `{}` to be used after the top-level values it reads exist, found a use before one of them is defined",
                            f.name.name
                        ),
                    )
                    .with_primary(stmt_span, format!("`{}` is used here", f.name.name))
                    .with_secondary(late_span, "it needs this, which runs later")
                    .with_help("top-level statements run in order: move this statement below the `let` it depends on"),
                );
                return;
            }
        }
    }

    fn report_cycle(&mut self, program: &Program, comp: &[usize]) {
        let names: Vec<String> = comp
            .iter()
            .filter_map(|p| program.items.get(*p))
            .filter_map(|i| match i {
                Item::Fn(f) => Some(format!("`{}`", f.name.name)),
                Item::Stmt(Stmt::Let(l)) => {
                    let mut ns = Vec::new();
                    collect_names(&l.pattern, &mut ns);
                    ns.first().map(|(n, _)| format!("`{n}`"))
                }
                _ => None,
            })
            .collect();
        let span = comp
            .iter()
            .filter_map(|p| program.items.get(*p))
            .find(|i| matches!(i, Item::Stmt(_)))
            .map(item_span)
            .unwrap_or_default();
        self.report(
            Diagnostic::new(
                Code::UsedBeforeDefinition,
                format!(
                    "expected top-level values to be defined before they are used, found {} depending on each other",
                    names.join(" and ")
                ),
            )
            .with_primary(span, "this value needs itself to be computed")
            .with_help("a top-level `let` runs once, in order; pass the value to the function as a parameter instead"),
        );
        // Bind the names so that their uses are not reported again.
        for p in comp {
            if let Some(Item::Stmt(Stmt::Let(l))) = program.items.get(*p) {
                let mut ns = Vec::new();
                collect_names(&l.pattern, &mut ns);
                for (n, s) in ns {
                    let e = self.error_ty();
                    self.top_lets.entry(n).or_default().push((
                        *p,
                        Binding {
                            scheme: Scheme::mono(e),
                            span: s,
                        },
                    ));
                }
            }
            if let Some(Item::Fn(f)) = program.items.get(*p) {
                let e = self.error_ty();
                self.top_fns.insert(
                    f.name.name.clone(),
                    (
                        Binding {
                            scheme: Scheme::mono(e),
                            span: f.name.span,
                        },
                        e,
                        *p,
                    ),
                );
            }
        }
    }

    fn top_statement(&mut self, pos: usize, s: &Stmt) {
        self.top_position = pos;
        let before = self.row_labels(self.top_row);
        self.top_statement_inner(s, pos);
        // Remember which statement first brought each effect to the top.
        for l in self.row_labels(self.top_row) {
            if !before.contains(&l) {
                self.top_sources.entry(l).or_insert(s.span());
            }
        }
    }

    fn top_statement_inner(&mut self, s: &Stmt, pos: usize) {
        match s {
            Stmt::Expr(e) => {
                let t = self.infer(e);
                self.expr_types.push((pos, t));
            }
            Stmt::Let(l) => {
                let mark = self.mark();
                self.infer_let(l);
                // Move what the `let` bound into the top-level table.
                let mut ns = Vec::new();
                collect_names(&l.pattern, &mut ns);
                let mut bound = Vec::new();
                for (n, _) in &ns {
                    if let Some(b) = self.lookup(n) {
                        bound.push((n.clone(), b.clone()));
                    }
                }
                self.pop_to(mark);
                for (n, b) in bound {
                    // Kept in order of position: statements come in
                    // order, so this is a push (a sort per `let` made a
                    // long program's check quadratic).
                    let list = self.top_lets.entry(n).or_default();
                    let at = list.partition_point(|(p, _)| *p <= pos);
                    list.insert(at, (pos, b));
                }
            }
            Stmt::Fn(f) => self.infer_local_fn(f),
        }
    }

    fn fn_group(&mut self, program: &Program, comp: &[usize]) {
        let fns: Vec<(usize, &FnDecl)> = comp
            .iter()
            .filter_map(|p| fn_at(program, *p).map(|f| (*p, f)))
            .collect();
        let group_start = self.arena.len() as TyId;
        self.level = 1;
        let mut sigs: Vec<(FnSig, TyId, usize)> = Vec::new();
        for (pos, f) in &fns {
            let since = self.arena.len() as TyId;
            let saved = self.tyvars.names.len();
            let sig = self.signature(
                &f.generics,
                &f.params,
                f.ret.as_ref(),
                f.effects.as_ref(),
                SigVars::Rigid,
            );
            let vars_end = self.tyvars.names.len();
            let ft = self
                .arena
                .add(Node::Fn(sig.params.clone(), sig.ret, sig.row));
            let scheme = if sig.annotated {
                self.level = 0;
                let mut s = self.generalize(ft, since);
                self.level = 1;
                // Without a written row, the row is inferred from the body:
                // every use inside the group shares it, so no effect of a
                // recursive call is lost.
                // So do the row variables of its parameters' function types:
                // a recursive call that passed a function with other effects
                // would otherwise add them nowhere.
                if f.effects.is_none() {
                    let rows = self.row_tails(ft);
                    s.vars.retain(|v| !rows.contains(&self.arena.resolve(*v)));
                }
                s
            } else {
                Scheme::mono(ft)
            };
            // A second declaration of a name is reported; the first one
            // stays the one that calls use.
            let canonical = self.fn_pos.get(&f.name.name) == Some(pos);
            if canonical {
                self.top_fns.insert(
                    f.name.name.clone(),
                    (
                        Binding {
                            scheme,
                            span: f.name.span,
                        },
                        ft,
                        *pos,
                    ),
                );
            }
            let vars: Vec<(String, TyId)> = self.tyvars.names.drain(saved..vars_end).collect();
            self.fn_tyvars.insert(*pos, vars);
            sigs.push((sig, ft, *pos));
        }
        for ((pos, f), (sig, _, _)) in fns.iter().zip(sigs.iter()) {
            let Some(body) = &f.body else { continue };
            self.top_position = *pos;
            let vars = self.fn_tyvars.get(pos).cloned().unwrap_or_default();
            let saved = self.tyvars.names.len();
            self.tyvars.names.extend(vars);
            let outer_fn = self.current_fn.replace(f.name.span);
            self.infer_fn_body(
                format!("`{}`", f.name.name),
                &f.params,
                sig,
                body,
                f.ret.as_ref(),
                f.effects.as_ref(),
            );
            self.current_fn = outer_fn;
            self.tyvars.names.truncate(saved);
        }
        self.level = 0;
        for ((_, f), (_, ft, pos)) in fns.iter().zip(sigs.iter()) {
            let scheme = self.generalize(*ft, group_start);
            if self.fn_pos.get(&f.name.name) != Some(pos) {
                continue;
            }
            self.top_fns.insert(
                f.name.name.clone(),
                (
                    Binding {
                        scheme,
                        span: f.name.span,
                    },
                    *ft,
                    *pos,
                ),
            );
        }
    }

    /// Numeric type variables never determined (only possible for values
    /// the value restriction kept monomorphic) become `Int`.
    pub(crate) fn default_numbers(&mut self) {
        let vars = std::mem::take(&mut self.num_vars);
        for v in vars {
            if let Node::Var {
                level: 0, classes, ..
            } = self.arena.node(v).clone()
                && classes.contains(Classes::NUM)
            {
                let int = self.con(TypeCon::INT, Vec::new());
                if self.unify(v, int).is_err() {
                    self.poisoned.clear();
                }
            }
        }
    }

    /// Report each use of `list.sum` whose numbers' type is still a type
    /// variable once inference and defaulting are done: a type parameter
    /// of a generic function (written or inferred), which may be `Int` at
    /// one call and `Float` at another (one that nothing generalised is an
    /// `Int`). The machine has one value for the
    /// sum of no numbers, chosen where `list.sum` is written (`0`, or
    /// `0.0` when the checker found `Float`s there), so such a use is
    /// refused rather than give `0` where `0.0` is due (fail closed).
    pub(crate) fn check_sum_uses(&mut self) {
        // After another error the type may be unknown because of it.
        if self.diagnostics.iter().any(Diagnostic::is_error) {
            return;
        }
        let uses = self.sum_uses.clone();
        for (at, t) in uses {
            let Node::Fn(_, ret, _) = self.arena.node(t) else {
                continue;
            };
            let ret = *ret;
            let ret = self.arena.resolve(ret);
            let name = match self.arena.node(ret) {
                Node::Var { .. } if self.generalized.contains(&ret) => None,
                // Not generalised: nothing else can make it `Float`, so
                // it is an `Int`, as `default_numbers` makes numbers.
                Node::Var { .. } => {
                    let int = self.con(TypeCon::INT, Vec::new());
                    if self.unify(ret, int).is_err() {
                        self.poisoned.clear();
                    }
                    continue;
                }
                Node::Rigid { name, .. } => Some(self.syms.name(*name).to_string()),
                _ => continue,
            };
            let found = match &name {
                Some(n) => format!("the type parameter `{n}`"),
                None => "a generic number type, which each use may choose".to_string(),
            };
            let d = Diagnostic::new(
                Code::UnknownNumberType,
                format!(
                    "expected the numbers `list.sum` adds here to be known as `Int`s or `Float`s, found {found}"
                ),
            )
            .with_primary(at, "its empty sum would be `0` even where `0.0` is due")
            .with_help(
                "write the numbers' type where they come from (`xs: List[Float]`), or add them with \
                 `list.fold(xs, 0.0, fn(a, x) { a + x })`, whose start value says which",
            );
            self.report(d);
        }
    }

    /// Close the program's row and list its effects; report effects that
    /// nothing handles and capabilities outside `granted`.
    pub(crate) fn manifest(
        &mut self,
        grants: Option<crate::types::Grants<'_>>,
    ) -> Vec<ManifestEntry> {
        let (labels, tail) = self.arena.row_fields(self.top_row);
        if matches!(self.arena.node(tail), Node::Var { .. }) {
            let empty = self.arena.add(Node::RowEmpty);
            if self.unify(tail, empty).is_err() {
                self.poisoned.clear();
            }
        }
        // A label that is no longer its name's is an effect declared again
        // since (in a session): the old effect, which the new one's
        // handlers do not handle.
        let stale: Vec<String> = labels
            .iter()
            .filter(|(l, _)| self.syms.current(self.syms.name(*l)) != Some(*l))
            .map(|(l, _)| self.syms.name(*l).to_string())
            .collect();
        let mut names: Vec<String> = labels
            .iter()
            .map(|(l, _)| self.syms.name(*l).to_string())
            .collect();
        names.sort();
        names.dedup();
        let mut out = Vec::new();
        for name in names {
            let sites: Vec<(String, Span)> = self
                .performs
                .iter()
                .filter(|p| p.effect == name && !p.handled)
                .map(|p| (p.op.clone(), p.span))
                .collect();
            let capability = self.is_host_capability(&name);
            let first_op = sites
                .first()
                .map(|(o, _)| format!("`{name}.{o}`"))
                .unwrap_or_else(|| format!("a use of `{name}`"));
            // The top-level statement that brings the effect in is where a
            // handler or a fix goes; the operations are shown beside it.
            let source = self.top_sources.get(&name).copied();
            let primary = source
                .or_else(|| sites.first().map(|(_, s)| *s))
                .unwrap_or_default();
            // The operations beside it: those inside that statement, when
            // it performs some itself (the others may be in functions it
            // does not call, or calls inside a handler); else those of the
            // functions, through which it performs them.
            let within = |s: &Span| primary.start <= s.start && s.end <= primary.end;
            let direct = source.is_some() && sites.iter().any(|(_, s)| within(s));
            let site_labels = |d: Diagnostic, verb: &str| {
                sites
                    .iter()
                    .filter(|(_, s)| *s != primary && (!direct || within(s)))
                    .take(3)
                    .fold(d, |d, (op, s)| {
                        d.with_secondary(*s, format!("`{name}.{op}` {verb}"))
                    })
            };
            if !capability && !BuiltinEffect::Fail.is(&name) {
                let d = Diagnostic::new(
                    Code::UnhandledEffect,
                    format!("expected every effect the program declares to be handled, found `{name}` performed but never handled"),
                )
                .with_primary(primary, format!("`{name}` reaches the top level here, unhandled"))
                .with_help(format!("wrap the code that performs it in `handle ... with {{ {name}.op(...) => ... }}`; only host capabilities are left to the host"));
                let mut d = site_labels(d, "is performed here");
                if stale.contains(&name) {
                    d = d.with_note(format!(
                        "this `{name}` is the effect declared before `{name}` was declared again: a handler of the new one does not handle it; define again what performs it"
                    ));
                }
                self.report(d);
            } else if let Some(grants) = grants
                && capability
                && !grants.names.contains(&name)
            {
                let granted = grants.names;
                let set = if granted.is_empty() {
                    "none".to_string()
                } else {
                    granted.join(", ")
                };
                let mut all: Vec<String> = granted.to_vec();
                all.push(name.clone());
                let d = Diagnostic::new(
                    Code::EffectNotGranted,
                    format!("expected only the granted capabilities ({set}), found {first_op}, which needs `{name}`"),
                )
                .with_primary(primary, format!("needs `{name}`, which is not granted"))
                .with_note("the program was not run")
                .with_help(match grants.by {
                    crate::types::GrantedBy::List => format!("grant `{name}` too, if the person allows it (the granted capabilities would be {}); or remove what performs it", all.join(", ")),
                    crate::types::GrantedBy::Policy => format!("add `[grants.{name}]` to the policy, with its scope (see docs/policy.md), if the person allows it; or remove what performs it"),
                    crate::types::GrantedBy::Default => format!("without a policy only `Log` is granted (and `Fail`, which needs no grant); run it under a policy that grants `{name}` (see docs/policy.md)"),
                })
                .with_hint(crate::Hint::Grant {
                    capability: name.clone(),
                    granted: granted.to_vec(),
                    by: grants.by,
                });
                let d = site_labels(d, "is performed here");
                self.report(d);
            }
            out.push(ManifestEntry {
                effect: name,
                capability,
                sites,
            });
        }
        out
    }

    pub(crate) fn signatures(&mut self, program: &Program) -> Vec<Signature> {
        let mut out = Vec::new();
        for item in &program.items {
            if let Item::Fn(f) = item
                && let Some((_, ft, _)) = self.top_fns.get(&f.name.name).cloned()
            {
                let params: Vec<String> = f.params.iter().map(|p| p.name.name.clone()).collect();
                let signature = self.show_signature(&f.name.name, &params, ft);
                out.push(Signature {
                    name: f.name.name.clone(),
                    signature,
                    span: f.span,
                });
            }
        }
        out
    }
}

fn fn_at(program: &Program, pos: usize) -> Option<&FnDecl> {
    match program.items.get(pos) {
        Some(Item::Fn(f)) => Some(f),
        _ => None,
    }
}

fn item_span(item: &Item) -> Span {
    match item {
        Item::Fn(f) => f.span,
        Item::Type(t) => t.span,
        Item::Effect(e) => e.span,
        Item::Stmt(s) => s.span(),
    }
}

#[cfg(test)]
mod tests {
    /// Every operation of every built-in host capability is a read or an
    /// act, and nothing else is: the two lists cannot drift apart.
    #[test]
    fn every_builtin_operation_is_a_read_or_an_act() {
        use super::{OpKind, builtin_op_kind};
        let caps = crate::stdlib::FILES
            .iter()
            .find(|f| f.name == "capabilities.writ")
            .map(|f| f.source)
            .unwrap_or_default();
        let parsed = crate::parser::parse_library(caps);
        let mut kinds = Vec::new();
        for item in &parsed.program.items {
            if let crate::ast::Item::Effect(e) = item {
                assert!(super::HOST_CAPABILITIES.contains(&e.name.name.as_str()));
                for o in &e.ops {
                    let kind = builtin_op_kind(&e.name.name, &o.name.name);
                    kinds.push(format!("{}.{} {:?}", e.name.name, o.name.name, kind));
                }
            }
        }
        assert_eq!(
            kinds,
            [
                "Http.get Some(Read)",
                "Http.post Some(Act)",
                "Pay.pay Some(Act)",
                "Records.read Some(Read)",
                "Records.list Some(Read)",
                "Audit.note Some(Read)",
                "Log.info Some(Read)",
                "Clock.now Some(Read)",
                "Confirm.ask Some(Read)",
            ]
        );
        assert_eq!(builtin_op_kind("Weather", "high"), None);
        assert_eq!(builtin_op_kind("Pay", "refund"), None);
        assert_eq!(
            (OpKind::Read.as_str(), OpKind::Act.as_str()),
            ("read", "act")
        );
    }
}
