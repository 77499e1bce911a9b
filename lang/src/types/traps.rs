//! Handlers that are accepted but probably do not do what their author
//! meant, and the wording of the errors a clause that forgets `resume`
//! causes.
//!
//! The warnings (each rule is stated in `docs/errors.md` and
//! `docs/language.md`):
//! - **W3006**: the handled expression is a function value (a name, a
//!   field or a lambda) that is not called: it performs nothing, so the
//!   handler handles nothing.
//! - **W3007**: a parameterised handler without a `return` clause whose
//!   parameter no clause reads, except to compute its next value in a
//!   `resume` (from names, operators and library functions only), though
//!   some clause changes it: the state can affect nothing, and its final
//!   value is thrown away.
//! - **W3008**: in a handler without a `return` clause, a clause for an
//!   operation that returns never names its `resume`, does not end in an
//!   operation that never returns, and the handler's type is the
//!   operation's result type: the clause's value, which would fit as the
//!   operation's result, stops the handled code instead.
//!
//! The errors reworded:
//! - a clause that never names its `resume` and whose value has the wrong
//!   type: the help says to `resume`, or to add (or fix) the `return`
//!   clause;
//! - a clause that never names its `resume` and so fixed the type of the
//!   handled code of a function's handler: a mismatch at a call of that
//!   function, in a function argument returning that type, is reported at
//!   the clause (the call becomes a secondary label);
//! - `return(x) => x` where the other clauses make the handler's value a
//!   list of the handled code's values, or join resumptions with `++`
//!   (`E2004`, or `E2001`): the help says `return(x) => [x]`. (A `return`
//!   clause of the wrong type, like an operation clause, leaves the
//!   `handle` with the error type, so it is not reported again where the
//!   `handle` is used.)
//!
//! Invariants: these rules only read the tree, the resolution and the
//! types; they never unify, so they cannot change what is accepted. A
//! `resume` belongs to the clause its resolution names (a handler nested
//! in a clause has its own).

use crate::ast::{Clause, Expr, ExprKind, Handle, Ident, PatternKind, Stmt};
use crate::diagnostic::{Code, Diagnostic, Label};
use crate::span::Span;
use crate::types::TypeCon;
use crate::types::infer::{Checker, block_value_span};
use crate::types::resolution::Resolved;
use crate::types::ty::{Classes, Node, TyId};

/// A clause that does not resume and fixed the type of its handler's
/// handled code, in a function: a mismatch at a call of the function is
/// explained at the clause.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct FixedByClause {
    /// The span of the name of the function whose body holds the handler.
    pub(crate) owner: Span,
    /// The clause's body.
    pub(crate) body: Span,
    /// The operation, as `Effect.op`.
    pub(crate) op: String,
    /// The operation's result type.
    pub(crate) op_result: TyId,
    /// The type the clause gave the handled code.
    pub(crate) fixed: TyId,
}

/// What the checks after a handler need of one operation clause.
pub(super) struct OpClause<'a> {
    /// The effect named.
    pub(super) effect: &'a Ident,
    /// The operation named.
    pub(super) op: &'a Ident,
    /// The clause's body.
    pub(super) body: &'a Expr,
    /// The whole clause (what its `resume` resolves to).
    pub(super) span: Span,
    /// The operation's result type.
    pub(super) result: TyId,
    /// Whether the clause's body typed without error.
    pub(super) clean: bool,
}

/// The expression that gives `e` its value: the last statement of a
/// block (through nested blocks), or `e` itself.
fn value_expr(e: &Expr) -> Option<&Expr> {
    let mut e = e;
    loop {
        match &e.kind {
            ExprKind::Block(b) => match b.stmts.last() {
                Some(Stmt::Expr(x)) => e = x,
                _ => return None,
            },
            _ => return Some(e),
        }
    }
}

/// The span of the value of a clause's body (where a mismatch of the
/// body's type is reported).
fn value_span(body: &Expr) -> Span {
    match &body.kind {
        ExprKind::Block(b) => block_value_span(b),
        _ => body.span,
    }
}

impl Checker {
    /// Call `f` on every expression in `e` ([`Expr::each`]), charging the
    /// check's work budget one unit for each: handlers nested in clauses
    /// are walked once for each handler around them, so the walks are
    /// bounded by the budget, not by the program's size. Nothing is
    /// walked once the budget is spent (the program is rejected then).
    fn walk<'a>(&self, e: &'a Expr, f: &mut dyn FnMut(&'a Expr)) {
        if self.out_of_work() {
            return;
        }
        e.each(&mut |x| {
            if self.charge(1) {
                f(x);
            }
        });
    }

    /// Every variable `e` uses ([`Expr::vars`]), walked as [`Self::walk`]
    /// walks.
    fn vars_of<'a>(&self, e: &'a Expr) -> Vec<&'a Ident> {
        let mut vars = Vec::new();
        self.walk(e, &mut |x| {
            if let ExprKind::Var(v) = &x.kind {
                vars.push(v);
            }
        });
        vars
    }

    /// Whether `body`, the body of the clause at `clause`, names that
    /// clause's `resume` (a nested clause's `resume` is its own).
    pub(super) fn uses_own_resume(&self, body: &Expr, clause: Span) -> bool {
        let vars = self.vars_of(body);
        let own = Resolved::Local(clause);
        vars.iter()
            .any(|v| self.resolution.get(v.span) == Some(&own))
    }

    /// Whether the operation `effect.op` is declared to return `Never`
    /// (`None` if there is no such operation).
    pub(super) fn op_never(&self, effect: &Ident, op: &Ident) -> Option<bool> {
        self.types
            .effects
            .get(&effect.name)
            .and_then(|i| i.ops.iter().find(|o| o.name == op.name))
            .map(|o| o.never)
    }

    /// Whether the value of `body` is an operation that never returns (a
    /// clause that ends so stops the handled code on purpose).
    fn ends_in_never(&self, body: &Expr) -> bool {
        match value_expr(body).map(|e| &e.kind) {
            Some(ExprKind::Perform(p)) => self.op_never(&p.effect, &p.op) == Some(true),
            _ => false,
        }
    }

    /// Whether `t` is still an unbound type variable.
    pub(super) fn is_unknown(&self, t: TyId) -> bool {
        matches!(self.arena.node(self.arena.resolve(t)), Node::Var { .. })
    }

    /// The clause `c`, which typed cleanly in a handler without a
    /// `return` clause, has just fixed the type of the handled code to
    /// `result`: if it never names its `resume`, remember it for a
    /// mismatch at a call of the function it is in.
    pub(super) fn note_fixed_by_clause(&mut self, c: &OpClause, result: TyId) {
        let Some(owner) = self.current_fn else { return };
        // The standard library's spans are in other sources.
        if !self.user_code
            || self.op_never(c.effect, c.op) != Some(false)
            || self.uses_own_resume(c.body, c.span)
        {
            return;
        }
        self.fixed_by_clause.push(FixedByClause {
            owner,
            body: c.body.span,
            op: format!("{}.{}", c.effect.name, c.op.name),
            op_result: c.result,
            fixed: result,
        });
    }

    /// W3006: `handle action with { ... }` where `action` is a function
    /// value, which performs nothing.
    pub(super) fn warn_handled_function(&mut self, h: &Handle, body: TyId) {
        let name = match &h.body.kind {
            ExprKind::Var(v) => Some(v.name.clone()),
            ExprKind::Field { name, .. } => Some(name.name.clone()),
            ExprKind::Lambda(_) => None,
            _ => return,
        };
        let t = self.arena.resolve(body);
        let Node::Fn(params, _, _) = self.arena.node(t).clone() else {
            return;
        };
        let shown = self.show(&[t]).remove(0);
        let args = if params.is_empty() { "" } else { "..." };
        let help = match name {
            Some(n) => format!(
                "call it, so that the handler handles what it performs: `handle {n}({args}) with {{ ... }}`"
            ),
            None => format!(
                "call the function, so that the handler handles what it performs: `handle (fn() {{ ... }})({args})`, or handle its body directly: `handle {{ ... }} with {{ ... }}`"
            ),
        };
        self.report(
            Diagnostic::new(
                Code::HandledFunction,
                format!(
                    "expected code that performs effects for the handler, found a function value of type `{shown}` that is not called"
                ),
            )
            .with_primary(
                h.body.span,
                "a function performs nothing until it is called: this handler handles nothing",
            )
            .with_help(help),
        );
    }

    /// W3007: a handler parameter that no clause reads except to compute
    /// its own next value, in a handler without a `return` clause.
    pub(super) fn warn_state_discarded(&mut self, h: &Handle) {
        let Some(param) = &h.param else { return };
        if h.clauses.iter().any(|c| matches!(c, Clause::Return { .. })) {
            return;
        }
        let state = Resolved::Local(param.name.span);
        let mut changed: Option<Span> = None;
        for c in &h.clauses {
            let Clause::Op { body, span, .. } = c else {
                continue;
            };
            let own = Resolved::Local(*span);
            let mut reads = 0usize;
            for v in &self.vars_of(body) {
                if self.resolution.get(v.span) == Some(&state) {
                    reads += 1;
                }
            }
            // Every `resume` of this clause must be called with the next
            // state, computed without effects; a `resume` passed around
            // uncalled could be given anything.
            let mut resume_names = 0usize;
            let mut resume_calls: Vec<&Expr> = Vec::new();
            let mut opaque = false;
            self.walk(body, &mut |e| match &e.kind {
                ExprKind::Var(v) if self.resolution.get(v.span) == Some(&own) => {
                    resume_names += 1;
                }
                ExprKind::Call { callee, args } => {
                    if let ExprKind::Var(v) = &callee.kind
                        && self.resolution.get(v.span) == Some(&own)
                    {
                        match args.get(1) {
                            Some(next) if args.len() == 2 => resume_calls.push(next),
                            _ => opaque = true,
                        }
                    }
                }
                _ => {}
            });
            if opaque || resume_names != resume_calls.len() {
                return;
            }
            let mut in_next = 0usize;
            for next in &resume_calls {
                if !self.inert(next) {
                    return;
                }
                in_next += self
                    .vars_of(next)
                    .iter()
                    .filter(|v| self.resolution.get(v.span) == Some(&state))
                    .count();
                let same = matches!(&next.kind, ExprKind::Var(v)
                    if self.resolution.get(v.span) == Some(&state));
                if !same && changed.is_none() {
                    changed = Some(next.span);
                }
            }
            if reads > in_next {
                return;
            }
        }
        let Some(changed) = changed else { return };
        let name = &param.name.name;
        self.report(
            Diagnostic::new(
                Code::StateDiscarded,
                format!(
                    "expected the handler's state `{name}` to be used, found it only passed on to the next `resume`: its final value is thrown away"
                ),
            )
            .with_primary(
                param.name.span,
                format!("no clause reads `{name}` but to compute its next value"),
            )
            .with_secondary(changed, format!("the next value of `{name}`, which nothing reads"))
            .with_help(format!(
                "add a `return` clause that keeps it, such as `return(x) => (x, {name})`; or give it to the handled code, as `State.get() => resume({name}, {name})` does"
            )),
        );
    }

    /// Whether evaluating `e` can do nothing but compute a value: no
    /// operation, handler, lambda, or call of anything but a
    /// standard-library function.
    fn inert(&self, e: &Expr) -> bool {
        let mut inert = true;
        self.walk(e, &mut |x| match &x.kind {
            ExprKind::Perform(_) | ExprKind::Handle(_) | ExprKind::Lambda(_) => inert = false,
            ExprKind::Call { callee, .. } => {
                let member = matches!(&callee.kind, ExprKind::Field { expr, .. }
                    if matches!(&expr.kind, ExprKind::Var(ns)
                        if matches!(self.resolution.get(ns.span), Some(Resolved::Member { .. }))));
                if !member {
                    inert = false;
                }
            }
            _ => {}
        });
        inert
    }

    /// W3008: in a handler without a `return` clause, a clause that never
    /// names its `resume` although the handler's type, `result`, is the
    /// operation's result type.
    pub(super) fn warn_dropped_continuation(&mut self, h: &Handle, c: &OpClause, result: TyId) {
        if !c.clean
            || h.clauses.iter().any(|c| matches!(c, Clause::Return { .. }))
            || self.op_never(c.effect, c.op) != Some(false)
            || self.uses_own_resume(c.body, c.span)
            || self.ends_in_never(c.body)
        {
            return;
        }
        let r = self.arena.resolve(result);
        if matches!(self.arena.node(r), Node::Error | Node::Var { .. }) {
            return;
        }
        let shown = self.show(&[result, c.result]);
        if shown[0] != shown[1] {
            return;
        }
        let op = format!("{}.{}", c.effect.name, c.op.name);
        let next = match &h.param {
            Some(p) => format!(", with the next value of `{}` after it", p.name.name),
            None => String::new(),
        };
        self.report(
            Diagnostic::new(
                Code::ContinuationDropped,
                format!(
                    "expected the clause for `{op}` to resume the code that performed it, found a value of the operation's result type `{}` and no `resume`",
                    shown[0]
                ),
            )
            .with_primary(
                c.body.span,
                "this value stops the handled code and becomes the value of the whole `handle`",
            )
            .with_help(format!(
                "to give the value to the code that performed `{op}` and continue it, write `resume(...)` around it{next}; if stopping here is intended, say so with a `return(x) => x` clause"
            )),
        );
    }

    /// W3008 for a handler with a parameter: a clause that never names
    /// its `resume` and whose value, of the parameter's type, is computed
    /// from the parameter (`Gen.yield(x) => acc ++ [x]`): it looks like
    /// the parameter's next value, but it stops the handled code at the
    /// first operation and becomes the value of the whole `handle`. A
    /// clause giving the parameter back as it is (`Stop.stop() => acc`)
    /// stops on purpose and is left alone.
    pub(super) fn warn_state_not_resumed(
        &mut self,
        h: &Handle,
        c: &OpClause,
        result: TyId,
        param_ty: Option<TyId>,
    ) {
        let (Some(param), Some(init)) = (&h.param, param_ty) else {
            return;
        };
        if !c.clean
            || self.op_never(c.effect, c.op) != Some(false)
            || self.uses_own_resume(c.body, c.span)
            || self.ends_in_never(c.body)
        {
            return;
        }
        let Some(value) = value_expr(c.body) else {
            return;
        };
        let name = &param.name.name;
        let is_param = matches!(&value.kind, ExprKind::Var(v) if v.name == *name);
        let reads_param = self.vars_of(value).iter().any(|v| v.name == *name);
        if is_param || !reads_param {
            return;
        }
        // The value is of the parameter's type: the handler's type is.
        let shown = self.show(&[result, init, c.result]);
        if shown[0] != shown[1] {
            return;
        }
        let op = format!("{}.{}", c.effect.name, c.op.name);
        let first = if matches!(shown[2].as_str(), "()" | "Unit") {
            "()".to_string()
        } else {
            format!("the operation's result, of type `{}`", shown[2])
        };
        self.report(
            Diagnostic::new(
                Code::ContinuationDropped,
                format!(
                    "expected the clause for `{op}` to resume the code that performed it, found a next value of `{name}` and no `resume`"
                ),
            )
            .with_primary(
                value.span,
                "this value stops the handled code at its first `{op}` and becomes the value of the whole `handle`".replace("{op}", &op),
            )
            .with_help(format!(
                "to continue the handled code with this as the next value of `{name}`, give it to `resume` after {}: `resume({}, <this value>)`; to stop here on purpose, give `{name}` back as it is",
                if first == "()" { "`()`, the operation's result".to_string() } else { first.clone() },
                if first == "()" { "()" } else { "..." },
            )),
        );
    }

    /// An error was just reported at the value of an operation clause's
    /// body (`diagnostic` is its index): if the clause never names its
    /// `resume`, say that the fix is probably a `resume`.
    pub(super) fn explain_clause_without_resume(
        &mut self,
        h: &Handle,
        c: &OpClause,
        diagnostic: usize,
        handled: TyId,
    ) {
        let has_return = h.clauses.iter().any(|c| matches!(c, Clause::Return { .. }));
        let at = value_span(c.body);
        let Some(d) = self.diagnostics.get(diagnostic) else {
            return;
        };
        if d.code != Code::TypeMismatch || d.primary_span() != Some(at) {
            return;
        }
        if self.op_never(c.effect, c.op) != Some(false) || self.uses_own_resume(c.body, c.span) {
            if !has_return && let Some(d) = self.diagnostics.get_mut(diagnostic) {
                d.help = Some("without a `return(x) => ...` clause, a handler has the type of the code it handles; add one that turns that value into the clauses' type, such as `return(x) => Some(x)`".into());
            }
            return;
        }
        let shown = self.show(&[c.result, handled]);
        let op = format!("{}.{}", c.effect.name, c.op.name);
        let next = match &h.param {
            Some(p) => format!(" and the next value of `{}`", p.name.name),
            None => String::new(),
        };
        let stop = if has_return {
            "to stop the handled code here with this value, make the `return` clause give a value of the same type".to_string()
        } else {
            format!(
                "to stop the handled code here with this value, add a `return(x) => ...` clause that turns the handled code's value, of type `{}`, into the same type",
                shown[1]
            )
        };
        if let Some(d) = self.diagnostics.get_mut(diagnostic) {
            d.labels.push(Label {
                span: c.span,
                message:
                    "this clause never calls `resume`: its value is the value of the whole `handle`"
                        .to_string(),
                primary: false,
            });
            d.help = Some(format!(
                "to continue the code that performed `{op}`, end the clause with `resume(...)`, giving it the operation's result, of type `{}`{next}; {stop}",
                shown[0]
            ));
        }
    }

    /// Before the `return` clause `return(param) => body` is checked: if
    /// it gives the handled code's value (of type `handled`) back, and the
    /// other clauses have made the handler's type `result` a list of such
    /// values, the two types as printed (for [`Self::explain_return_clause`]:
    /// a failed check may leave them unprintable), and whether the handled
    /// code's value is of the list's element type (else a list of other
    /// values, such as a generator's emitted items, and `[x]` would not do).
    pub(super) fn return_gives_back_item(
        &mut self,
        param: &crate::ast::Pattern,
        body: &Expr,
        handled: TyId,
        result: TyId,
    ) -> Option<(String, String, bool)> {
        let PatternKind::Bind(x) = &param.kind else {
            return None;
        };
        let gives_back = matches!(value_expr(body).map(|e| &e.kind),
            Some(ExprKind::Var(v)) if v.name == x.name);
        if !gives_back {
            return None;
        }
        let r = self.arena.resolve(result);
        let (con, args) = match self.arena.node(r).clone() {
            Node::Con(con, args) => (con, args),
            // The other clauses join resumptions with `++`: a list (or a
            // string) of results, not known yet.
            Node::Var { classes, .. } if classes.contains(Classes::CONCAT) => {
                let mut shown = self.show(&[result, handled]);
                let handled = shown.pop()?;
                let result = shown.pop()?;
                return Some((result, handled, true));
            }
            _ => return None,
        };
        let ([elem], true) = (args.as_slice(), con == TypeCon::LIST) else {
            return None;
        };
        let mut shown = self.show(&[result, handled, *elem]);
        let item = shown.get(1) == shown.get(2);
        shown.truncate(2);
        let handled = shown.pop()?;
        let result = shown.pop()?;
        Some((result, handled, item))
    }

    /// An error was just reported (`diagnostic` is its index) at the value
    /// of the `return` clause `return(param) => body`, which gives back
    /// the handled code's value where the handler's type is a list of them
    /// (`shown`: the two types, from
    /// [`Self::return_gives_back_item`]): say `return(x) => [x]`, or,
    /// when the handled code's value is not of the list's element type,
    /// that the clause must give a list too, such as `[]`.
    pub(super) fn explain_return_clause(
        &mut self,
        param: &crate::ast::Pattern,
        body: &Expr,
        diagnostic: usize,
        shown: &(String, String, bool),
    ) {
        let PatternKind::Bind(x) = &param.kind else {
            return;
        };
        let Some(d) = self.diagnostics.get_mut(diagnostic) else {
            return;
        };
        if !matches!(d.code, Code::InfiniteType | Code::TypeMismatch)
            || d.primary_span() != Some(value_span(body))
        {
            return;
        }
        let (result, handled, item) = shown;
        let x = &x.name;
        if !item {
            if d.code == Code::TypeMismatch {
                d.help = Some(format!(
                    "the other clauses make the handler's value a `{result}`, and the handled code's own value is a `{handled}`: the `return` clause must give a `{result}` too, such as `return(_) => []`"
                ));
            }
            return;
        }
        if d.code == Code::InfiniteType {
            d.message = format!(
                "expected the `return` clause to give a `{result}`, as the other clauses do, found `{handled}`, the handled code's value: the handler's type would have to contain itself"
            );
            if let Some(l) = d.labels.iter_mut().find(|l| l.primary) {
                l.message = format!("this is one `{handled}`, not a list of them");
            }
        }
        d.help = Some(format!(
            "the other clauses make the handler's value a list of the handled code's values: make the handled code's own value a one-element list, `return({x}) => [{x}]`"
        ));
    }

    /// A function argument of a call of `callee` was just reported as a
    /// mismatch (`diagnostic` is its index): if the parameter's type,
    /// `param`, returns the type a clause without `resume` in the
    /// callee's handler fixed, report the mismatch at that clause.
    pub(super) fn blame_clause_at_call(
        &mut self,
        callee: &Expr,
        arg: &Expr,
        param: TyId,
        diagnostic: usize,
    ) {
        let ExprKind::Var(v) = &callee.kind else {
            return;
        };
        let Some(owner) = self.lookup(&v.name).map(|b| b.span) else {
            return;
        };
        let Some(d) = self.diagnostics.get(diagnostic) else {
            return;
        };
        if d.code != Code::TypeMismatch || d.primary_span() != Some(arg.span) {
            return;
        }
        let p = self.arena.resolve(param);
        let Node::Fn(_, ret, _) = self.arena.node(p).clone() else {
            return;
        };
        let records: Vec<FixedByClause> = self
            .fixed_by_clause
            .iter()
            .filter(|f| f.owner == owner)
            .cloned()
            .collect();
        for f in records {
            let shown = self.show(&[ret, f.fixed, f.op_result]);
            if shown[0] != shown[1] {
                continue;
            }
            let name = &v.name;
            if let Some(d) = self.diagnostics.get_mut(diagnostic) {
                for l in d.labels.iter_mut() {
                    l.primary = false;
                }
                d.labels.insert(
                    0,
                    Label {
                        span: f.body,
                        message: format!(
                            "this clause never calls `resume`: its value, of type `{}`, is the value of the whole `handle`, so `{name}` expects code whose value has that type too",
                            shown[1]
                        ),
                        primary: true,
                    },
                );
                d.help = Some(format!(
                    "to continue the code that performed `{}`, end the clause with `resume(...)`, giving it the operation's result, of type `{}`; to stop the handled code here instead, add a `return(x) => ...` clause, and the handled code may return another type",
                    f.op, shown[2]
                ));
            }
            return;
        }
    }
}
