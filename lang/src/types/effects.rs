//! Effects in types: the row of effects an expression may perform, and the
//! capability manifest of a whole program.
//!
//! Every function type carries an effect row (`fn(A) -> B / {Http | e}`).
//! While a body is inferred, [`Checker::cur_row`] is the row of the
//! function (or top level) being inferred, and each place that may perform
//! an effect adds to it by unification:
//!
//! - an operation `Eff.op(...)` requires `Eff` (with its type arguments) in
//!   the current row;
//! - a call unifies the callee's latent row with the current row: a closed
//!   callee row is first *opened* with a fresh tail (as in Koka), so a
//!   function declared `/ {Log}` can be called wherever `Log` is allowed;
//!   a function *value* with a closed row is opened where it is named, so
//!   a pure function can be passed where an effectful one is expected;
//! - a lambda's body has a fresh row, which becomes the row on its arrow
//!   (creating a closure performs nothing);
//! - `handle` infers its body in a row `{E1, ..., En | rest}` where the
//!   `Ei` are the effects its clauses handle, so exactly those leave; what
//!   the body performs besides them (`rest`) must be in the outer row
//!   (checked label by label, then `rest`'s unknown tail becomes the outer
//!   row without the handled effects). Clause bodies run in the outer row
//!   (an operation performed in a clause goes to the next handler out), and
//!   `resume` has the outer row too.
//!
//! Rows unify up to reordering, by Rémy-style rewriting (see `unify`); a
//! label appears at most once in a row, so two uses of `State` in one row
//! are the same `State[s]`.
//!
//! # Soundness of the manifest
//!
//! The top-level statements are inferred in one row, the program's row.
//! At the end its open tail is closed (bound to the empty row), and its
//! labels are the manifest: no program can perform an effect the manifest
//! omits, because (1) every operation adds its label to the row of the
//! innermost enclosing function or handler body, (2) a function's row is
//! on its type and every call adds the callee's row to the caller's, so a
//! label travels through every call, closure, record, list or returned
//! function that holds the function (it is part of the value's type), (3) a
//! label leaves a row only at a `handle` whose clauses handle that effect,
//! and the clauses' own effects join the outer row, and (4) generalisation
//! quantifies a row variable only where every use instantiates it and adds
//! the instance to the using row. A `resume` that escapes its clause is a
//! function with the outer row, so calling it later adds those effects
//! where it is called.
//!
//! Invariants: `cur_row` is saved and restored around every body; a
//! function annotated with a row has exactly that row, so a body that
//! performs more is reported at the operation or call; sites of every
//! operation are kept for the manifest's locations.

use crate::diagnostic::{Code, Diagnostic};
use crate::span::Span;
use crate::types::infer::Checker;
use crate::types::ty::{Node, TyId};
use crate::types::unify::Mismatch;

/// Where a row's constraint comes from, for messages.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct RowOwner {
    /// What owns the row: `` `fetch` ``, `this function`.
    pub(crate) name: String,
    /// The row annotation, if the effects were declared.
    pub(crate) annotation: Option<Span>,
}

/// One place that performs an operation.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(super) struct PerformSite {
    /// The effect.
    pub(crate) effect: String,
    /// The operation.
    pub(crate) op: String,
    /// Where it is performed.
    pub(crate) span: Span,
    /// Whether a `handle` around it, in the same function body, handles
    /// its effect (then it cannot reach the program's row from here).
    pub(crate) handled: bool,
}

impl Checker {
    /// Add the effect `name[args]` to the current row (an operation at
    /// `span`).
    pub(super) fn perform_effect(&mut self, name: &str, op: &str, args: Vec<TyId>, span: Span) {
        let handled = self.handling.iter().any(|h| h == name);
        self.performs.push(PerformSite {
            effect: name.to_string(),
            op: op.to_string(),
            span,
            handled,
        });
        let label = self.syms.intern(name);
        let payload = self.arena.add(Node::Tuple(args));
        let rest = self.fresh_row();
        let want = self.extend(&[(label, payload)], rest);
        let cur = self.cur_row;
        if let Err(m) = self.unify(cur, want) {
            self.report_row(span, &format!("`{name}.{op}`"), name, m);
        }
    }

    /// Add a callee's latent row to the current row (a call at `span`).
    pub(super) fn call_effects(&mut self, row: TyId, span: Span, what: &str) {
        self.row_span = span;
        let cur = self.cur_row;
        if let Err(m) = self.include(row, cur, &[]) {
            let first = self.row_labels(row).first().cloned().unwrap_or_default();
            self.report_row(span, what, &first, m);
        }
    }

    /// Make row `sup` allow everything row `sub` performs, except the
    /// labels in `exclude` (the effects a handler removes).
    ///
    /// When `sup` is still unknown it simply becomes `sub`. Otherwise each
    /// label of `sub` is required in `sup`, and an unknown rest of `sub`
    /// becomes `sup` without `sub`'s own labels (so the effects of a
    /// callee do not flow back into the callee's row twice); a signature's
    /// row variable in `sub` must be `sup`'s too.
    pub(super) fn include(
        &mut self,
        sub: TyId,
        sup: TyId,
        exclude: &[u32],
    ) -> Result<(), Mismatch> {
        let (sup_labels, sup_tail) = self.arena.row_fields_compress(sup);
        let sup_tail = self.arena.resolve(sup_tail);
        let (labels, tail) = self.arena.row_fields_compress(sub);
        let tail = self.arena.resolve(tail);
        let sub_open = matches!(self.arena.node(tail), Node::Var { .. });
        if sup_labels.is_empty()
            && exclude.is_empty()
            && sub_open
            && tail != sup_tail
            && matches!(self.arena.node(sup_tail), Node::Var { .. })
        {
            return self.unify(sup, sub);
        }
        for (l, payload) in &labels {
            if exclude.contains(l) {
                continue;
            }
            let more = self.fresh_row();
            let want = self.extend(&[(*l, *payload)], more);
            self.unify(sup, want)?;
        }
        // Adding the labels may have bound `sub`'s tail (when it is
        // `sup`'s own tail): look again.
        let (_, tail) = self.arena.row_fields_compress(sub);
        let tail = self.arena.resolve(tail);
        match self.arena.node(tail).clone() {
            Node::RowEmpty | Node::Error => Ok(()),
            Node::Var { .. } => {
                let (sup_labels, sup_tail) = self.arena.row_fields_compress(sup);
                if self.arena.resolve(sup_tail) == tail {
                    return Ok(());
                }
                let kept: Vec<(u32, TyId)> = sup_labels
                    .into_iter()
                    .filter(|(l, _)| !exclude.contains(l) && !labels.iter().any(|(m, _)| m == l))
                    .collect();
                let target = self.extend(&kept, sup_tail);
                self.unify(tail, target)
            }
            _ => {
                // A signature's row variable: `sup` must end in it. While
                // `sup` is still open, wait: more labels may come first
                // (`{Log | e}` is fine for a body that calls an `e`
                // function and logs).
                let (_, sup_tail) = self.arena.row_fields_compress(sup);
                let sup_tail = self.arena.resolve(sup_tail);
                if sup_tail == tail {
                    return Ok(());
                }
                if matches!(self.arena.node(sup_tail), Node::Var { .. }) {
                    let span = self.row_span;
                    self.row_waits.push((sup, tail, span));
                    return Ok(());
                }
                self.unify(sup_tail, tail)
            }
        }
    }

    /// Settle the row variables that waited for a body to finish (see
    /// `include`): each open row that must end in a signature's row
    /// variable now does.
    pub(super) fn settle_row_waits(&mut self, from: usize) {
        let waits: Vec<(TyId, TyId, Span)> = self.row_waits.drain(from..).collect();
        for (sup, rigid, span) in waits {
            let (_, sup_tail) = self.arena.row_fields_compress(sup);
            let sup_tail = self.arena.resolve(sup_tail);
            if sup_tail == self.arena.resolve(rigid) {
                continue;
            }
            if let Err(m) = self.unify(sup_tail, rigid) {
                let saved = std::mem::replace(&mut self.cur_row, sup);
                self.report_row(span, "this call", "", m);
                self.cur_row = saved;
            }
        }
    }

    /// A function value's type, with a closed effect row opened: a
    /// function declared pure (or with `/ {Log}`) may be passed where a
    /// function with more effects is expected.
    pub(super) fn open_fn(&mut self, ty: TyId) -> TyId {
        let Node::Fn(ps, r, row) = self.arena.node(ty).clone() else {
            return ty;
        };
        let (labels, tail) = self.arena.row_fields_compress(row);
        if !matches!(self.arena.node(tail), Node::RowEmpty) {
            return ty;
        }
        let fresh = self.fresh_row();
        let opened = self.extend(&labels, fresh);
        self.arena.add(Node::Fn(ps, r, opened))
    }

    /// Report that the current row does not allow what `what` performs.
    pub(super) fn report_row_at(&mut self, span: Span, what: &str, effect: &str, m: Mismatch) {
        self.report_row(span, what, effect, m);
    }

    fn report_row(&mut self, span: Span, what: &str, effect: &str, m: Mismatch) {
        let row_var = |c: &Self, t: TyId| match c.arena.node(t) {
            Node::Rigid { name, .. } => Some(c.syms.name(*name).to_string()),
            _ => None,
        };
        let effect = match &m {
            Mismatch::MissingField { label, .. } => format!("`{}`", self.syms.name(*label)),
            // A signature's row variable meets a row that does not allow it.
            Mismatch::Types(a, b) if row_var(self, *a).is_some() || row_var(self, *b).is_some() => {
                let v = row_var(self, *b)
                    .or_else(|| row_var(self, *a))
                    .unwrap_or_default();
                format!("the effects of `{v}`")
            }
            Mismatch::Types(a, b) => {
                // Type arguments of one effect disagree: `State[Int]` and
                // `State[Str]` in one row.
                let shown = self.show(&[*a, *b]);
                self.report(
                    Diagnostic::new(
                        Code::TypeMismatch,
                        format!(
                            "expected one type argument for `{effect}` in a row, found `{}` and `{}`",
                            shown[0], shown[1]
                        ),
                    )
                    .with_primary(span, format!("{what} uses `{effect}` with `{}`", shown[1]))
                    .with_note(format!(
                        "a row holds `{effect}` once, so every use of it in one function or handler has the same type argument"
                    )),
                );
                return;
            }
            _ => {
                let cur = self.cur_row;
                return self.report_mismatch(span, cur, cur, m, None);
            }
        };
        let owner = self.row_owner.clone();
        let allowed = self.row_labels(self.cur_row);
        let (_, tail) = self.arena.row_fields_compress(self.cur_row);
        let variable = match self.arena.node(tail) {
            Node::Rigid { name, .. } => Some(self.syms.name(*name).to_string()),
            _ => None,
        };
        let open = variable.is_some() || matches!(self.arena.node(tail), Node::Var { .. });
        let allowed_text = match (allowed.is_empty(), variable) {
            (true, None) => "no effects".to_string(),
            (false, None) => format!("only {{{}}}", allowed.join(", ")),
            (true, Some(v)) => {
                format!("only the effects of `{v}` (those of the functions it is given)")
            }
            (false, Some(v)) => format!("only {{{}}} and the effects of `{v}`", allowed.join(", ")),
        };
        let (whose, annotation) = match &owner {
            Some(o) => (o.name.clone(), o.annotation),
            None => ("this code".to_string(), None),
        };
        let mut d = Diagnostic::new(
            Code::EffectNotAllowed,
            format!("expected {allowed_text} in {whose}, found {what}, which performs {effect}"),
        )
        .with_primary(span, format!("performs {effect}"));
        if let Some(a) = annotation {
            d = d
                .with_secondary(a, "the effects allowed are declared here")
                .with_help(if effect.starts_with('`') {
                    let bare = effect.trim_matches('`');
                    format!("add `{bare}` to the declared effects, or handle it here with `handle ... with {{ {bare}.op(...) => ... }}`")
                } else {
                    format!("declare {effect} in this function's row too (for example `/ {{e}}`), or do not call it here")
                });
        } else if owner.is_some() && !open {
            // No row is written: something earlier in the function fixed
            // its effects, such as its continuation (`resume`) or a
            // closure given where a function type without a row is
            // expected.
            d = d.with_help(format!(
                "{whose} has no written effects, so they were fixed by an earlier use inside it: a `resume` or a function value given where a function type without `/ {{...}}` is expected (a `type`'s field, a parameter's type), which performs nothing; give that type a row (`type K[e] = Wait(fn(Int) -> K[e] / {{e}})`), or handle {effect} around this"
            ));
        } else {
            d = d.with_help(format!(
                "handle {effect} around this, or allow it where the function's type is fixed"
            ));
        }
        self.report(d);
    }

    /// The effect names in a row (without its tail).
    pub(super) fn row_labels(&self, row: TyId) -> Vec<String> {
        let (labels, _) = self.arena.row_fields(row);
        labels
            .iter()
            .map(|(l, _)| self.syms.name(*l).to_string())
            .collect()
    }

    /// Run `f` with `row` as the current row and `owner` for messages,
    /// restoring both (and the handled effects) afterwards.
    pub(super) fn in_row<T>(
        &mut self,
        row: TyId,
        owner: Option<RowOwner>,
        f: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let saved_row = std::mem::replace(&mut self.cur_row, row);
        let saved_owner = std::mem::replace(&mut self.row_owner, owner);
        let saved_handling = std::mem::take(&mut self.handling);
        let waits = self.row_waits.len();
        // Asked for this body only (a lambda given where a function type
        // is expected): its waits are left to the enclosing body.
        let later = std::mem::take(&mut self.settle_waits_later);
        let out = f(self);
        if !later {
            self.settle_row_waits(waits);
        }
        self.cur_row = saved_row;
        self.row_owner = saved_owner;
        self.handling = saved_handling;
        out
    }
}
