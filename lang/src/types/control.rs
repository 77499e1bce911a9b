//! `match` and `handle`: arms, guards, exhaustiveness, and the clauses of
//! a handler with `resume`.
//!
//! Invariants: every arm's names are bound in a scope of its own that ends
//! with the arm; all arms have the first arm's type; a match is checked for
//! exhaustiveness only when its arms typed without error (otherwise the
//! missing case would be a consequence of the first mistake).

use std::collections::HashMap;

use crate::ast::{Arm, Clause, Expr, Handle};
use crate::diagnostic::{Code, Diagnostic};
use crate::span::Span;
use crate::types::TypeCon;
use crate::types::exhaust;
use crate::types::infer::{Binding, Checker, Origin, Scheme};
use crate::types::pattern::PatInfo;
use crate::types::ty::{Node, TyId};

impl Checker<'_> {
    /// `match scrutinee { arms }`.
    pub fn infer_match(&mut self, span: Span, scrutinee: &Expr, arms: &[Arm]) -> TyId {
        let st = self.infer(scrutinee);
        let errors_before = self.diagnostics.len();
        let bool_ty = self.con(TypeCon::BOOL, Vec::new());
        let mut result: Option<(TyId, Span)> = None;
        let mut infos = Vec::with_capacity(arms.len());
        for arm in arms {
            let mut info = PatInfo::default();
            self.type_pattern(&arm.pattern, st, &mut info, scrutinee.span);
            let mark = self.mark();
            self.bind_pattern_names(&info);
            if let Some(g) = &arm.guard {
                self.check(g, bool_ty, None);
            }
            match result {
                None => {
                    let t = self.infer(&arm.body);
                    result = Some((t, arm.body.span));
                }
                Some((r, first)) => self.check(
                    &arm.body,
                    r,
                    Origin::new(first, "the first arm fixes the type of the `match`"),
                ),
            }
            self.pop_to(mark);
            infos.push(info);
        }
        let clean = !self.diagnostics[errors_before.min(self.diagnostics.len())..]
            .iter()
            .any(Diagnostic::is_error);
        if clean {
            self.check_exhaustive(span, scrutinee, arms, &infos);
        }
        match result {
            Some((r, _)) => r,
            None => self.fresh(),
        }
    }

    fn check_exhaustive(&mut self, span: Span, scrutinee: &Expr, arms: &[Arm], infos: &[PatInfo]) {
        let simplified: Vec<exhaust::Arm> = arms
            .iter()
            .zip(infos)
            .map(|(a, info)| exhaust::Arm {
                pat: self.simplify(&a.pattern, info),
                guarded: a.guard.is_some(),
            })
            .collect();
        let report = exhaust::check(&simplified);
        if report.gave_up {
            self.too_complex(span);
            return;
        }
        for i in &report.unreachable {
            if let Some(arm) = arms.get(*i) {
                self.report(
                    Diagnostic::new(
                        Code::UnreachableArm,
                        "expected every arm to match some value, found one that never can",
                    )
                    .with_primary(
                        arm.pattern.span,
                        "every value this matches is matched by an earlier arm",
                    )
                    .with_help("remove the arm, or move it above the arm that covers it"),
                );
            }
        }
        if !report.missing.is_empty() {
            // The check reports at most six; show five and say if there
            // are more.
            let more = report.missing.len() > 5;
            let shown: Vec<String> = report
                .missing
                .iter()
                .take(5)
                .map(|m| format!("`{m}`"))
                .collect();
            let list = if more {
                format!("{} and more", shown.join(", "))
            } else {
                shown.join(", ")
            };
            let guarded = arms.iter().any(|a| a.guard.is_some());
            let help = if report.missing.iter().all(|m| m == "_") {
                "add a final `_ => ...` arm for the other values".to_string()
            } else if more {
                "add arms for these, or a final `_ => ...` arm".to_string()
            } else {
                format!(
                    "add an arm for {}, or a final `_ => ...` arm",
                    shown.join(", ")
                )
            };
            let mut d = Diagnostic::new(
                Code::NonExhaustive,
                format!("expected the arms to cover every value, found no arm for {list}"),
            )
            .with_primary(scrutinee.span, format!("missing: {list}"))
            .with_help(help);
            if guarded {
                d = d.with_note(
                    "arms with an `if` guard do not count, since the guard may be false",
                );
            }
            self.report(d);
        }
    }

    /// `handle body with (state)? { clauses }`.
    pub fn infer_handle(&mut self, h: &Handle) -> TyId {
        let body = self.infer(&h.body);
        let result = self.fresh();
        let state = h.state.as_ref().map(|s| (s, self.infer(&s.init)));
        let has_return = h.clauses.iter().any(|c| matches!(c, Clause::Return { .. }));
        if !has_return {
            self.expect(h.body.span, result, body, None);
        }
        let mut seen: Vec<(String, String, Span)> = Vec::new();
        let mut effect_args: HashMap<String, Vec<TyId>> = HashMap::new();
        let mut first_body: Option<Span> = None;
        for c in &h.clauses {
            let mark = self.mark();
            if let Some((s, st)) = &state {
                self.bind(
                    &s.name.name,
                    Binding {
                        scheme: Scheme::mono(*st),
                        span: s.name.span,
                    },
                );
            }
            match c {
                Clause::Return {
                    param,
                    body: cb,
                    span,
                } => {
                    if let Some((_, _, first)) = seen.iter().find(|(e, _, _)| e.is_empty()) {
                        let first = *first;
                        self.duplicate("clause", "return", first, *span);
                    }
                    seen.push((String::new(), String::new(), *span));
                    let mut info = PatInfo::default();
                    self.type_pattern(param, body, &mut info, h.body.span);
                    self.irrefutable(param, &info, "a handler clause");
                    self.bind_pattern_names(&info);
                    self.clause_body(cb, result, &mut first_body);
                }
                Clause::Op {
                    effect,
                    op,
                    params,
                    body: cb,
                    span,
                } => {
                    if let Some((_, _, first)) = seen
                        .iter()
                        .find(|(e, o, _)| *e == effect.name && *o == op.name)
                    {
                        let first = *first;
                        self.duplicate(
                            "clause",
                            &format!("{}.{}", effect.name, op.name),
                            first,
                            *span,
                        );
                    }
                    seen.push((effect.name.clone(), op.name.clone(), *span));
                    let (ptys, ret) =
                        self.clause_op(effect, op, params.len(), *span, &mut effect_args);
                    for (p, t) in params.iter().zip(ptys.iter()) {
                        let mut info = PatInfo::default();
                        self.type_pattern(p, *t, &mut info, p.span);
                        self.irrefutable(p, &info, "a handler clause");
                        self.bind_pattern_names(&info);
                    }
                    let mut rparams = vec![ret];
                    if let Some((_, st)) = &state {
                        rparams.push(*st);
                    }
                    let row = self.fresh_row();
                    let resume = self.arena.add(Node::Fn(rparams, result, row));
                    self.bind(
                        "resume",
                        Binding {
                            scheme: Scheme::mono(resume),
                            span: *span,
                        },
                    );
                    self.clause_body(cb, result, &mut first_body);
                }
            }
            self.pop_to(mark);
        }
        result
    }

    fn clause_body(&mut self, body: &Expr, result: TyId, first: &mut Option<Span>) {
        let origin = first.and_then(|s| Origin::new(s, "this clause fixes the handler's type"));
        self.check(body, result, origin);
        if first.is_none() {
            *first = Some(body.span);
        }
    }

    /// The parameter types and result of the operation a clause handles.
    fn clause_op(
        &mut self,
        effect: &crate::ast::Ident,
        op: &crate::ast::Ident,
        given: usize,
        span: Span,
        effect_args: &mut HashMap<String, Vec<TyId>>,
    ) -> (Vec<TyId>, TyId) {
        let fallback = |c: &mut Self| {
            let ps = (0..given).map(|_| c.error_ty()).collect();
            let r = c.error_ty();
            (ps, r)
        };
        let Some(info) = self.types.effects.get(&effect.name).cloned() else {
            self.unknown_effect(effect);
            return fallback(self);
        };
        let Some(o) = info.ops.iter().find(|o| o.name == op.name).cloned() else {
            self.unknown_operation(&info, op);
            return fallback(self);
        };
        // The clauses of one handler share the effect's type arguments:
        // `State.get` and `State.put` handle one `State[s]`.
        let args = match effect_args.get(&effect.name) {
            Some(a) => a.clone(),
            None => {
                let a: Vec<TyId> = (0..info.arity).map(|_| self.fresh()).collect();
                effect_args.insert(effect.name.clone(), a.clone());
                a
            }
        };
        let ft = self.instantiate_with(&o.scheme, &args);
        let Node::Fn(ps, r, _) = self.arena.node(ft).clone() else {
            return fallback(self);
        };
        if ps.len() != given {
            let plural = |n: usize| if n == 1 { "parameter" } else { "parameters" };
            self.report(
                Diagnostic::new(
                    Code::PatternArity,
                    format!(
                        "expected {} {} for `{}.{}`, found {given}",
                        ps.len(),
                        plural(ps.len()),
                        effect.name,
                        op.name
                    ),
                )
                .with_primary(
                    span,
                    "the clause must bind each of the operation's arguments",
                ),
            );
            return fallback(self);
        }
        (ps, r)
    }
}
