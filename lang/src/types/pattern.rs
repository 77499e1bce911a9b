//! Patterns: typing them against the value matched, binding their names,
//! and turning them into the simplified form the exhaustiveness check
//! ([`crate::types::exhaust`]) reads.
//!
//! Invariants: a pattern is typed before it is simplified, so the
//! simplification sees resolved types (record patterns need every field of
//! their record's type); a name bound twice in one pattern is reported and
//! bound once; a pattern that names an unknown constructor matches anything
//! for the rest of the check (it was reported).

use std::collections::HashMap;
use std::rc::Rc;

use crate::ast::{Pattern, PatternKind};
use crate::diagnostic::{Code, Diagnostic};
use crate::span::Span;
use crate::types::TypeCon;
use crate::types::exhaust::{self, Family, Lit, Pat};
use crate::types::infer::{Binding, Checker, Origin, Scheme};
use crate::types::ty::{Node, TyId};
use crate::types::typedecl::TypeDef;

/// What [`Checker::irrefutable`] is told a lambda's pattern parameter is.
pub(super) const LAMBDA_PARAMETER: &str = "a lambda's parameter";

/// Side information gathered while typing patterns.
#[derive(Default)]
pub(super) struct PatInfo {
    /// The names bound, in order.
    pub(crate) bound: Vec<(String, Span, TyId)>,
    /// The type of each record pattern (by address), to list its fields.
    pub(crate) records: HashMap<usize, TyId>,
    /// Whether typing the pattern reported an error (then its coverage is
    /// not checked: the error explains the problem).
    pub(crate) failed: bool,
}

impl Checker {
    /// Type `p` against `t`, collecting its bindings in `info`.
    pub(super) fn type_pattern(&mut self, p: &Pattern, t: TyId, info: &mut PatInfo, origin: Span) {
        stacker::maybe_grow(
            crate::types::STACK_RED_ZONE,
            crate::types::STACK_CHUNK,
            || self.type_pattern_inner(p, t, info, origin),
        )
    }

    fn type_pattern_inner(&mut self, p: &Pattern, t: TyId, info: &mut PatInfo, origin: Span) {
        let before = self.error_count();
        self.type_pattern_kind(p, t, info, origin);
        self.report_too_large(p.span);
        if self.error_count() > before {
            info.failed = true;
        }
    }

    fn type_pattern_kind(&mut self, p: &Pattern, t: TyId, info: &mut PatInfo, origin: Span) {
        let lit = |c: &mut Self, con: TypeCon| {
            let want = c.con(con, Vec::new());
            c.pattern_expect(p.span, t, want, origin);
        };
        match &p.kind {
            PatternKind::Error | PatternKind::Wildcard => {}
            PatternKind::Bind(name) => {
                if let Some((_, first, _)) = info.bound.iter().find(|(n, _, _)| *n == name.name) {
                    let first = *first;
                    self.duplicate("pattern variable", &name.name, first, name.span);
                } else {
                    info.bound.push((name.name.clone(), name.span, t));
                }
            }
            PatternKind::Unit => lit(self, TypeCon::UNIT),
            PatternKind::Bool(_) => lit(self, TypeCon::BOOL),
            PatternKind::Int(_) => lit(self, TypeCon::INT),
            PatternKind::Float(_) => lit(self, TypeCon::FLOAT),
            PatternKind::Str(_) => lit(self, TypeCon::STR),
            PatternKind::Tuple(items) => {
                let ts: Vec<TyId> = items.iter().map(|_| self.fresh()).collect();
                let want = self.arena.add(Node::Tuple(ts.clone()));
                if self.pattern_expect(p.span, t, want, origin) {
                    for (i, ti) in items.iter().zip(ts) {
                        self.type_pattern(i, ti, info, origin);
                    }
                } else {
                    self.bind_wild(p, info);
                }
            }
            PatternKind::List { items, rest } => {
                let elem = self.fresh();
                let want = self.con(TypeCon::LIST, vec![elem]);
                if self.pattern_expect(p.span, t, want, origin) {
                    for i in items {
                        self.type_pattern(i, elem, info, origin);
                    }
                    if let Some(name) = rest.as_ref().and_then(|r| r.name.as_ref()) {
                        if let Some((_, first, _)) =
                            info.bound.iter().find(|(n, _, _)| *n == name.name)
                        {
                            let first = *first;
                            self.duplicate("pattern variable", &name.name, first, name.span);
                        } else if name.name != "_" {
                            info.bound.push((name.name.clone(), name.span, want));
                        }
                    }
                } else {
                    self.bind_wild(p, info);
                }
            }
            PatternKind::Record { fields, open } => {
                let mut row = Vec::new();
                let mut subs = Vec::new();
                let labels = self.field_labels(fields.iter().map(|f| &f.name));
                for (f, label) in fields.iter().zip(labels) {
                    let Some(label) = label else { continue };
                    let ft = self.fresh();
                    row.push((label, ft));
                    subs.push((f, ft));
                }
                let tail = if *open {
                    self.fresh_row()
                } else {
                    self.arena.add(Node::RowEmpty)
                };
                let row = self.extend(&row, tail);
                let want = self.arena.add(Node::Record(row));
                info.records.insert(p as *const Pattern as usize, t);
                if self.pattern_expect(p.span, t, want, origin) {
                    for (f, ft) in subs {
                        match &f.pattern {
                            Some(sub) => self.type_pattern(sub, ft, info, origin),
                            None => {
                                if let Some((_, first, _)) =
                                    info.bound.iter().find(|(n, _, _)| *n == f.name.name)
                                {
                                    let first = *first;
                                    self.duplicate(
                                        "pattern variable",
                                        &f.name.name,
                                        first,
                                        f.name.span,
                                    );
                                } else {
                                    info.bound.push((f.name.name.clone(), f.name.span, ft));
                                }
                            }
                        }
                    }
                } else {
                    self.bind_wild(p, info);
                }
            }
            PatternKind::Ctor { name, args } => {
                let Some(ctor) = self.types.ctor(&name.name).cloned() else {
                    self.unknown_ctor(name);
                    self.bind_wild(p, info);
                    return;
                };
                let ct = self.instantiate(&ctor.scheme);
                let (params, res) = match self.arena.node(ct).clone() {
                    Node::Fn(ps, r, _) => (ps, r),
                    _ => (Vec::new(), ct),
                };
                if params.len() != args.len() {
                    let plural = |n: usize| if n == 1 { "field" } else { "fields" };
                    let example = if params.is_empty() {
                        name.name.clone()
                    } else {
                        format!("{}({})", name.name, vec!["_"; params.len()].join(", "))
                    };
                    self.report(
                        Diagnostic::new(
                            Code::PatternArity,
                            format!(
                                "expected {} {} for `{}`, found {}",
                                params.len(),
                                plural(params.len()),
                                name.name,
                                args.len()
                            ),
                        )
                        .with_primary(p.span, format!("write `{example}`")),
                    );
                    self.pattern_expect(p.span, t, res, origin);
                    self.bind_wild(p, info);
                    return;
                }
                if self.pattern_expect(p.span, t, res, origin) {
                    for (a, pt) in args.iter().zip(params) {
                        self.type_pattern(a, pt, info, origin);
                    }
                } else {
                    self.bind_wild(p, info);
                }
            }
        }
    }

    /// Bind the names of a pattern that did not type, as `Error`.
    fn bind_wild(&mut self, p: &Pattern, info: &mut PatInfo) {
        let mut names = Vec::new();
        collect_names(p, &mut names);
        for (n, s) in names {
            if !info.bound.iter().any(|(b, _, _)| *b == n) {
                let e = self.error_ty();
                info.bound.push((n, s, e));
            }
        }
    }

    /// Require the value matched (`t`) to have the pattern's type.
    fn pattern_expect(&mut self, span: Span, t: TyId, want: TyId, origin: Span) -> bool {
        match self.unify(t, want) {
            Ok(()) => true,
            Err(m) => {
                let closed_record = matches!(
                    m,
                    crate::types::unify::Mismatch::MissingField {
                        in_expected: true,
                        ..
                    }
                );
                self.report_mismatch(
                    span,
                    t,
                    want,
                    m,
                    Origin::new(origin, "this is the value matched"),
                );
                if closed_record
                    && let Some(d) = self.diagnostics.last_mut()
                    && d.help.is_none()
                {
                    d.help = Some(
                        "a record pattern names every field, unless it ends with `..` to ignore the others"
                            .into(),
                    );
                }
                false
            }
        }
    }

    /// Bind every name a typed pattern collected, monomorphically.
    pub(super) fn bind_pattern_names(&mut self, info: &PatInfo) {
        for (n, s, t) in &info.bound {
            self.bind(
                n,
                Binding {
                    scheme: Scheme::mono(*t),
                    span: *s,
                },
            );
        }
    }

    /// Report `p` if some value of its type does not match it.
    pub(super) fn irrefutable(&mut self, p: &Pattern, info: &PatInfo, place: &str) {
        if info.failed {
            return;
        }
        let pat = self.simplify(p, info);
        let report = self.exhaustive(&[exhaust::Arm {
            pat,
            guarded: false,
        }]);
        if report.gave_up {
            self.too_complex(p.span);
        } else if let Some(missing) = report.missing.first() {
            self.report(
                Diagnostic::new(
                    Code::RefutablePattern,
                    format!(
                        "expected a pattern that matches every value in {place}, found one that does not match `{missing}`"
                    ),
                )
                .with_primary(p.span, format!("`{missing}` is not matched"))
                .with_help(if place == LAMBDA_PARAMETER {
                    "take the argument whole, `fn(x) { ... }`, and `match x { ... }` in the body, with an arm for the other cases"
                } else {
                    "use `match` to handle the other cases"
                }),
            );
        }
    }

    /// Report a match or pattern too large to check.
    pub(super) fn too_complex(&mut self, span: Span) {
        self.report(
            Diagnostic::new(
                Code::TooComplex,
                "expected a match the checker can verify within its limits, found one too large",
            )
            .with_primary(span, "too many cases to check")
            .with_help("split the match into smaller matches, or match on fewer values at once"),
        );
    }

    /// The simplified form of a typed pattern.
    pub(super) fn simplify(&mut self, p: &Pattern, info: &PatInfo) -> Pat {
        stacker::maybe_grow(
            crate::types::STACK_RED_ZONE,
            crate::types::STACK_CHUNK,
            || self.simplify_inner(p, info),
        )
    }

    fn simplify_inner(&mut self, p: &Pattern, info: &PatInfo) -> Pat {
        match &p.kind {
            PatternKind::Error | PatternKind::Wildcard | PatternKind::Bind(_) => Pat::Wild,
            PatternKind::Unit => Pat::Ctor {
                family: Family::Unit,
                index: 0,
                args: Vec::new(),
            },
            PatternKind::Bool(b) => Pat::Ctor {
                family: Family::Bool,
                index: if *b { 0 } else { 1 },
                args: Vec::new(),
            },
            PatternKind::Int(n) => Pat::Lit(Lit::Int(*n)),
            PatternKind::Float(x) => Pat::Lit(Lit::Float(*x)),
            PatternKind::Str(s) => Pat::Lit(Lit::Str(s.clone())),
            PatternKind::Tuple(items) => Pat::Ctor {
                family: Family::Tuple(items.len()),
                index: 0,
                args: items.iter().map(|i| self.simplify(i, info)).collect(),
            },
            PatternKind::List { items, rest } => {
                let mut tail = if rest.is_some() {
                    Pat::Wild
                } else {
                    Pat::Ctor {
                        family: Family::List,
                        index: 0,
                        args: Vec::new(),
                    }
                };
                for i in items.iter().rev() {
                    let head = self.simplify(i, info);
                    tail = Pat::Ctor {
                        family: Family::List,
                        index: 1,
                        args: vec![head, tail],
                    };
                }
                tail
            }
            PatternKind::Record { fields, .. } => {
                let Some(t) = info.records.get(&(p as *const Pattern as usize)).copied() else {
                    return Pat::Wild;
                };
                let Node::Record(row) = self.arena.node(t).clone() else {
                    return Pat::Wild;
                };
                let (row_fields, _) = self.arena.row_fields(row);
                let mut names: Vec<String> = row_fields
                    .iter()
                    .map(|(l, _)| self.syms.name(*l).to_string())
                    .collect();
                names.sort();
                names.dedup();
                let args = names
                    .iter()
                    .map(|n| match fields.iter().find(|f| f.name.name == *n) {
                        Some(f) => match &f.pattern {
                            Some(sub) => self.simplify(sub, info),
                            None => Pat::Wild,
                        },
                        None => Pat::Wild,
                    })
                    .collect();
                Pat::Ctor {
                    family: Family::Record(Rc::from(names)),
                    index: 0,
                    args,
                }
            }
            PatternKind::Ctor { name, args } => {
                let Some(ctor) = self.types.ctor(&name.name).cloned() else {
                    return Pat::Wild;
                };
                if ctor.arity != args.len() {
                    return Pat::Wild;
                }
                Pat::Ctor {
                    family: self.family_of(ctor.ty),
                    index: ctor.index,
                    args: args.iter().map(|a| self.simplify(a, info)).collect(),
                }
            }
        }
    }

    /// The constructors of a sum type, for the exhaustiveness check.
    fn family_of(&self, con: TypeCon) -> Family {
        let Some(TypeDef::Sum(ctors)) = self.types.info(con).map(|i| &i.def) else {
            return Family::Infinite;
        };
        let list: Vec<(String, usize)> = ctors
            .iter()
            .filter_map(|i| self.types.ctors.get(*i))
            .map(|c| (c.name.clone(), c.arity))
            .collect();
        Family::Sum(Rc::from(list))
    }
}

/// The names a pattern binds, in order.
pub(super) fn collect_names(p: &Pattern, out: &mut Vec<(String, Span)>) {
    match &p.kind {
        PatternKind::Bind(n) => out.push((n.name.clone(), n.span)),
        PatternKind::Tuple(items) => items.iter().for_each(|i| collect_names(i, out)),
        PatternKind::Ctor { args, .. } => args.iter().for_each(|i| collect_names(i, out)),
        PatternKind::List { items, rest } => {
            items.iter().for_each(|i| collect_names(i, out));
            if let Some(n) = rest.as_ref().and_then(|r| r.name.as_ref()) {
                out.push((n.name.clone(), n.span));
            }
        }
        PatternKind::Record { fields, .. } => {
            for f in fields {
                match &f.pattern {
                    Some(sub) => collect_names(sub, out),
                    None => out.push((f.name.name.clone(), f.name.span)),
                }
            }
        }
        _ => {}
    }
}
