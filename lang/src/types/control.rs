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
use crate::types::traps::OpClause;
use crate::types::ty::{Node, TyId};

impl Checker {
    /// `match scrutinee { arms }`.
    /// With `expected`, every arm is checked against it (the match's
    /// context fixes the type); otherwise the first arm fixes it.
    pub(super) fn infer_match(
        &mut self,
        span: Span,
        scrutinee: &Expr,
        arms: &[Arm],
        expected: Option<(TyId, Option<Origin>)>,
    ) -> TyId {
        let st = self.infer(scrutinee);
        let errors_before = self.diagnostics.len();
        let bool_ty = self.con(TypeCon::BOOL, Vec::new());
        let mut result: Option<(TyId, Span)> = None;
        let mut arms_ok = true;
        let mut infos = Vec::with_capacity(arms.len());
        for arm in arms {
            let mut info = PatInfo::default();
            self.type_pattern(&arm.pattern, st, &mut info, scrutinee.span);
            let mark = self.mark();
            self.bind_pattern_names(&info);
            if let Some(g) = &arm.guard {
                self.check(g, bool_ty, None);
            }
            let before = self.error_count();
            match (&expected, result) {
                (Some((t, origin)), _) => self.check(&arm.body, *t, origin.clone()),
                (None, None) => {
                    let t = self.infer(&arm.body);
                    result = Some((t, arm.body.span));
                }
                (None, Some((r, first))) => {
                    self.check(
                        &arm.body,
                        r,
                        Origin::new(first, "the first arm fixes the type of the `match`"),
                    );
                    arms_ok &= self.error_count() == before;
                }
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
        match (expected, result) {
            (Some((t, _)), _) => t,
            // An arm of the wrong type was reported: the match is not
            // reported again where it is used.
            (None, Some(_)) if !arms_ok => self.error_ty(),
            (None, Some((r, _))) => r,
            (None, None) => self.fresh(),
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
        let report = self.exhaustive(&simplified);
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
            } else if report.missing.iter().all(|m| is_literal(m)) {
                // Listing `""`, then `"a"`, ... would never end.
                "`Int`, `Float` and `Str` have too many values to list: end with an arm for the rest, `_ => ...` (or a name, `other => ...`)".to_string()
            } else if !more && report.missing.iter().any(|m| names_a_literal(m)) {
                format!(
                    "add an arm for {} with `_` or a name in place of the number or text (`Int`, `Float` and `Str` have too many values to list), or a final `_ => ...` arm",
                    shown.join(", ")
                )
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

    /// `handle body with (param)? { clauses }`.
    pub(super) fn infer_handle(&mut self, h: &Handle) -> TyId {
        // The effects the clauses handle, each with one set of type
        // arguments shared by the body and every clause.
        let mut effect_args: HashMap<String, Vec<TyId>> = HashMap::new();
        let mut handled: Vec<(u32, TyId)> = Vec::new();
        for c in &h.clauses {
            if let Clause::Op { effect, .. } = c
                && !effect_args.contains_key(&effect.name)
                && let Some(arity) = self.types.effects.get(&effect.name).map(|i| i.arity)
            {
                let args: Vec<TyId> = (0..arity).map(|_| self.fresh()).collect();
                let label = self.syms.intern(&effect.name);
                let payload = self.arena.add(Node::Tuple(args.clone()));
                handled.push((label, payload));
                effect_args.insert(effect.name.clone(), args);
            }
        }
        let outer = self.cur_row;
        let rest = self.fresh_row();
        let body_row = self.extend(&handled, rest);
        let names: Vec<String> = effect_args.keys().cloned().collect();
        let saved_row = std::mem::replace(&mut self.cur_row, body_row);
        let depth = self.handling.len();
        self.handling.extend(names);
        let body = self.infer(&h.body);
        self.handling.truncate(depth);
        self.cur_row = saved_row;
        // What the body performs besides the handled effects goes out.
        let handled_labels: Vec<u32> = handled.iter().map(|(l, _)| *l).collect();
        if let Err(m) = self.include(rest, outer, &handled_labels) {
            let first = self.row_labels(rest).first().cloned().unwrap_or_default();
            self.report_row_at(h.body.span, "the handled code", &first, m);
        }
        let result = self.fresh();
        let param = h.param.as_ref().map(|s| (s, self.infer(&s.init)));
        let has_return = h.clauses.iter().any(|c| matches!(c, Clause::Return { .. }));
        if !has_return {
            self.expect(h.body.span, result, body, None);
        }
        self.check_clauses_cover(h, &effect_args);
        let mut seen: Vec<(String, String, Span)> = Vec::new();
        let mut first_body: Option<Span> = None;
        let mut clauses_failed = false;
        let mut op_clauses: Vec<OpClause> = Vec::new();
        for c in &h.clauses {
            let mark = self.mark();
            if let Some((s, st)) = &param {
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
                    let item = self.return_gives_back_item(param, cb, body, result);
                    let reported = self.diagnostics.len();
                    let before = self.error_count();
                    self.clause_body(cb, result, &mut first_body);
                    clauses_failed |= self.error_count() > before;
                    if let Some(shown) = &item {
                        for i in reported..self.diagnostics.len() {
                            self.explain_return_clause(param, cb, i, shown);
                        }
                    }
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
                    if let Some((_, st)) = &param {
                        rparams.push(*st);
                    }
                    // Resuming runs the rest of the handled computation,
                    // whose remaining effects are the outer row's.
                    let resume = self.arena.add(Node::Fn(rparams, result, outer));
                    self.bind(
                        "resume",
                        Binding {
                            scheme: Scheme::mono(resume),
                            span: *span,
                        },
                    );
                    let before = self.error_count();
                    let reported = self.diagnostics.len();
                    let open = self.is_unknown(result);
                    self.clause_body(cb, result, &mut first_body);
                    self.warn_resume_of_never(effect, op, cb, *span);
                    let clause = OpClause {
                        effect,
                        op,
                        body: cb,
                        span: *span,
                        result: ret,
                        clean: self.error_count() == before,
                    };
                    if !clause.clean {
                        clauses_failed = true;
                        for i in reported..self.diagnostics.len() {
                            self.explain_clause_without_resume(h, &clause, i, body);
                        }
                    } else if open && !has_return && !self.is_unknown(result) {
                        self.note_fixed_by_clause(&clause, result);
                    }
                    op_clauses.push(clause);
                }
            }
            self.pop_to(mark);
        }
        self.warn_handled_function(h, body);
        self.warn_state_discarded(h);
        for c in &op_clauses {
            self.warn_dropped_continuation(h, c, result);
            self.warn_state_not_resumed(h, c, result, param.as_ref().map(|(_, t)| *t));
        }
        // A clause of the wrong type was reported: the handler is not
        // reported again where it is used.
        if clauses_failed {
            return self.error_ty();
        }
        result
    }

    /// Every operation of a handled effect needs a clause.
    fn check_clauses_cover(&mut self, h: &Handle, effects: &HashMap<String, Vec<TyId>>) {
        let mut names: Vec<&String> = effects.keys().collect();
        names.sort();
        for name in names {
            let Some(info) = self.types.effects.get(name) else {
                continue;
            };
            // A clause naming an operation the effect lacks was reported
            // (E1007); its missing twin is the same mistake.
            let misspelt = h.clauses.iter().any(|c| {
                matches!(c, Clause::Op { effect, op, .. } if effect.name == *name && !info.ops.iter().any(|o| o.name == op.name))
            });
            if misspelt {
                continue;
            }
            let missing: Vec<String> = info
                .ops
                .iter()
                .filter(|o| {
                    !h.clauses.iter().any(|c| {
                        matches!(c, Clause::Op { effect, op, .. } if effect.name == *name && op.name == o.name)
                    })
                })
                .map(|o| format!("`{name}.{}`", o.name))
                .collect();
            if missing.is_empty() {
                continue;
            }
            let span = h
                .clauses
                .iter()
                .find_map(|c| match c {
                    Clause::Op { effect, span, .. } if effect.name == *name => Some(*span),
                    _ => None,
                })
                .unwrap_or(h.body.span);
            let example = missing.first().cloned().unwrap_or_default();
            self.report(
                Diagnostic::new(
                    Code::MissingClause,
                    format!(
                        "expected a clause for every operation of `{name}`, found none for {}",
                        missing.join(", ")
                    ),
                )
                .with_primary(span, format!("this handler handles `{name}`"))
                .with_help(format!(
                    "add a clause such as `{}(...) => resume(...)`",
                    example.trim_matches('`')
                )),
            );
        }
    }

    /// Warn when a clause (at `clause`, whose body has been inferred) for
    /// an operation that never returns uses its `resume` (which cannot be
    /// given a value of type `Never`); a `resume` of a clause nested in it
    /// is that clause's own.
    fn warn_resume_of_never(
        &mut self,
        effect: &crate::ast::Ident,
        op: &crate::ast::Ident,
        body: &Expr,
        clause: Span,
    ) {
        if self.op_never(effect, op) != Some(true) {
            return;
        }
        if self.uses_own_resume(body, clause) {
            self.report(
                Diagnostic::new(
                    Code::ResumeNeverReturns,
                    format!(
                        "expected no `resume` in the clause for `{}.{}`, which never returns, found one",
                        effect.name, op.name
                    ),
                )
                .with_primary(body.span, "`resume` here would need a value of type `Never`, which does not exist")
                .with_help("end the clause with a value of the handler's type instead of resuming"),
            );
        }
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

/// Whether a missing value `witness` is itself a literal (`""`, `2`,
/// `-1`, `0.5`).
fn is_literal(witness: &str) -> bool {
    witness.starts_with('"')
        || witness
            .strip_prefix('-')
            .unwrap_or(witness)
            .starts_with(|c: char| c.is_ascii_digit())
}

/// Whether a missing value `witness` (as the exhaustiveness check shows
/// it: `""`, `2`, `Some(-1)`, `(_, "")`) holds a literal of `Int`,
/// `Float` or `Str`, whose values no list of arms can cover.
fn names_a_literal(witness: &str) -> bool {
    let mut before = ' ';
    for c in witness.chars() {
        let starts_number = c.is_ascii_digit() && !(before.is_alphanumeric() || before == '_');
        if c == '"' || starts_number {
            return true;
        }
        before = c;
    }
    false
}
