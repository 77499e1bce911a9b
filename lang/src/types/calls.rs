//! Functions: calls, operations, lambdas, `fn` declarations and the
//! statements of a block.
//!
//! Invariants: a call is checked against the callee's parameters one by
//! one, so a wrong argument is reported at that argument; a wrong number of
//! arguments is one diagnostic, after which the arguments are still
//! checked on their own; a call whose declared result is `Never` has a
//! fresh type (it fits anywhere, as it never returns).

use crate::ast::{Block, Expr, ExprKind, FnDecl, Lambda, Let, Param, Perform, Stmt};
use crate::diagnostic::{Code, Diagnostic};
use crate::span::Span;
use crate::types::TypeCon;
use crate::types::infer::{Binding, Checker, Origin, Scheme};
use crate::types::suggest;
use crate::types::ty::{Classes, Node, TyId};
use crate::types::typedecl::{EffectInfo, VarMode};

/// A function's type as its signature gives it.
pub(super) struct FnSig {
    /// Parameter types.
    pub(crate) params: Vec<TyId>,
    /// Result type.
    pub(crate) ret: TyId,
    /// Effect row.
    pub(crate) row: TyId,
    /// Whether every parameter and the result are annotated.
    pub(crate) annotated: bool,
}

/// What the type variables a signature names are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SigVars {
    /// A `fn`'s: rigid, each unifying only with itself.
    Rigid,
    /// A lambda's annotations: fresh variables, inferred like any other.
    Flexible,
}

impl Checker {
    /// `callee(args)`, or `piped |> callee(args)` when `piped` is given.
    pub(super) fn infer_call(
        &mut self,
        span: Span,
        callee: &Expr,
        args: &[Expr],
        piped: Option<&Expr>,
    ) -> TyId {
        let all: Vec<&Expr> = piped.into_iter().chain(args.iter()).collect();
        let ft = self.infer(callee);
        let ft = self.arena.resolve(ft);
        let (params, ret, row) = match self.arena.node(ft).clone() {
            Node::Fn(params, ret, row) => (params, ret, row),
            Node::Error => {
                for a in &all {
                    self.infer(a);
                }
                return self.error_ty();
            }
            Node::Var { .. } => {
                let params: Vec<TyId> = all.iter().map(|_| self.fresh()).collect();
                let ret = self.fresh();
                let row = self.fresh_row();
                let f = self.arena.add(Node::Fn(params.clone(), ret, row));
                if let Err(m) = self.unify(ft, f) {
                    self.report_mismatch(callee.span, f, ft, m, None);
                }
                (params, ret, row)
            }
            _ => {
                let shown = self.show(&[ft]).remove(0);
                let mut d = Diagnostic::new(
                    Code::NotAFunction,
                    format!("expected a function to call, found a value of type `{shown}`"),
                )
                .with_primary(callee.span, format!("this is `{shown}`, not a function"));
                if let ExprKind::Ctor(c) = &callee.kind {
                    d = d.with_help(format!(
                        "`{}` takes no arguments: write just `{}`",
                        c.name, c.name
                    ));
                }
                self.report(d);
                for a in &all {
                    self.infer(a);
                }
                return self.error_ty();
            }
        };
        if params.len() != all.len() {
            self.report_arity(span, callee, params.len(), all.len(), piped.is_some());
            // What it takes: a library function's declaration, with its
            // parameters' names (they are not seen where it is called),
            // else its type.
            let help = match library_declaration(self, callee) {
                Some((name, declared)) => format!("`{name}` is declared `{declared}`"),
                None => format!("its type is `{}`", self.show_value(ft)),
            };
            if let Some(d) = self.diagnostics.last_mut()
                && d.code == Code::ArgumentCount
                && d.help.is_none()
            {
                d.help = Some(help);
            }
            for a in &all {
                self.infer(a);
            }
            return self.result_of(ret);
        }
        let context = callee_name(callee);
        let what = context
            .clone()
            .map(|c| format!("the call of {c}"))
            .unwrap_or_else(|| "this call".to_string());
        let weak = match &callee.kind {
            ExprKind::Var(v) => self
                .lookup(&v.name)
                .map(|b| b.span)
                .filter(|s| self.weak.contains(s))
                .map(|s| (v.name.clone(), s)),
            _ => None,
        };
        let errors_before = self.error_count();
        let diagnostics_before = self.diagnostics.len();
        // Which parameters take a function, as declared (before the
        // arguments fix what the callee's type variables are).
        let takes_fn: Vec<bool> = params
            .iter()
            .map(|p| matches!(self.arena.node(*p), Node::Fn(..)))
            .collect();
        for (a, p) in all.iter().zip(params.iter()) {
            let saved = std::mem::replace(&mut self.call_context, context.clone());
            let before = self.diagnostics.len();
            self.check(a, *p, None);
            self.call_context = saved;
            if self.diagnostics.len() > before {
                self.blame_clause_at_call(callee, a, *p, self.diagnostics.len() - 1);
            }
            if let Some((name, def)) = &weak
                && self.diagnostics.len() > before
                && let Some(d) = self.diagnostics.last_mut()
                && d.code == Code::TypeMismatch
            {
                d.labels.push(crate::diagnostic::Label {
                    span: *def,
                    message: format!("`{name}` gets one type, fixed by its first use"),
                    primary: false,
                });
                d.notes.push(format!(
                    "a `let` whose value is computed (by a call, an `if`, a `match`, ...) is not generic; write `let {name} = fn(x) {{ ... }}` or a `fn`, or make two `let`s"
                ));
            }
        }
        if self.error_count() > errors_before {
            self.hint_function_argument_order(
                &all,
                &takes_fn,
                diagnostics_before,
                context.as_deref(),
            );
        }
        // After the arguments: a function argument's effects have reached
        // the callee's row by now, so they are reported at this call. (They
        // are added even when an argument was wrong: nothing may drop an
        // effect.)
        self.call_effects(row, span, &what);
        if self.error_count() > errors_before {
            // A wrong argument was reported: the call's result is not
            // reported again wherever it is used.
            return self.error_ty();
        }
        self.result_of(ret)
    }

    /// After a wrong argument: when a function written in place
    /// (`fn(acc, x) { ... }`) is given where the callee does not declare
    /// a function, and something else where it does, the two are likely
    /// swapped (`list.fold(xs, fn(a, x) { a + x }, 0)`): the first
    /// diagnostic of the call says so, if it has no help yet.
    fn hint_function_argument_order(
        &mut self,
        args: &[&Expr],
        takes_fn: &[bool],
        from: usize,
        callee: Option<&str>,
    ) {
        let lambda = |e: &Expr| matches!(e.kind, ExprKind::Lambda(_));
        let misplaced = args.iter().zip(takes_fn).position(|(a, f)| lambda(a) && !f);
        let wanted = args
            .iter()
            .zip(takes_fn)
            .position(|(a, f)| !lambda(a) && *f);
        let (Some(given), Some(wanted)) = (misplaced, wanted) else {
            return;
        };
        if let Some(d) = self.diagnostics.get_mut(from)
            && d.help.is_none()
        {
            d.help = Some(format!(
                "the arguments may be in the wrong order: {} takes a function as argument {}, and one is given as argument {}",
                callee.unwrap_or("this call"),
                wanted + 1,
                given + 1
            ));
        }
    }

    /// A call's result: `Never` becomes a fresh type.
    fn result_of(&mut self, ret: TyId) -> TyId {
        match self.arena.node(ret) {
            Node::Con(c, _) if *c == TypeCon::NEVER => self.fresh(),
            _ => ret,
        }
    }

    fn report_arity(&mut self, span: Span, callee: &Expr, want: usize, got: usize, piped: bool) {
        let plural = |n: usize| if n == 1 { "argument" } else { "arguments" };
        let what = match &callee.kind {
            ExprKind::Var(v) => format!("`{}`", v.name),
            ExprKind::Ctor(v) => format!("`{}`", v.name),
            ExprKind::Field { expr, name } => match &expr.kind {
                ExprKind::Var(ns) => format!("`{}.{}`", ns.name, name.name),
                _ => "this function".to_string(),
            },
            _ => "this function".to_string(),
        };
        let mut d = Diagnostic::new(
            Code::ArgumentCount,
            format!("expected {want} {} for {what}, found {got}", plural(want),),
        )
        .with_primary(span, format!("{what} takes {want} {}", plural(want)));
        if let ExprKind::Var(v) = &callee.kind
            && let Some(b) = self.lookup(&v.name)
        {
            let def = b.span;
            if def != v.span && !def.is_empty() {
                d = d.with_secondary(def, "defined here");
            }
        }
        if piped {
            d = d.with_note("the value before `|>` is passed as the first argument");
        }
        // `Log.info("total", n)`, as a print with several arguments is
        // written elsewhere: the message is one string.
        if let ExprKind::Var(v) = &callee.kind
            && let Some((e, o)) = v.name.split_once('.')
            && matches!(e, "Log" | "Fail")
            && want == 1
            && got > 1
        {
            d = d.with_help(format!(
                "`{e}.{o}` takes one `Str`: put the values in it with interpolation, `{e}.{o}(\"total: ${{n}}\")`"
            ));
        }
        self.report(d);
    }

    /// `Eff.op(args)`.
    pub(super) fn infer_perform(&mut self, span: Span, p: &Perform, piped: Option<&Expr>) -> TyId {
        if !p.called && piped.is_none() {
            self.report(
                Diagnostic::new(
                    Code::OperationNotCalled,
                    format!(
                        "expected a call of the operation `{}.{}`, found it used as a value",
                        p.effect.name, p.op.name
                    ),
                )
                .with_primary(span, "operation not called")
                .with_help(format!(
                    "operations are performed by calling them: `{e}.{o}(...)` (or `x |> {e}.{o}`, which is `{e}.{o}(x)`); to pass one as a function, wrap it: `fn(x) {{ {e}.{o}(x) }}`",
                    e = p.effect.name,
                    o = p.op.name
                )),
            );
            return self.error_ty();
        }
        let all: Vec<&Expr> = piped.into_iter().chain(p.args.iter()).collect();
        let Some(info) = self.types.effects.get(&p.effect.name).cloned() else {
            for a in &all {
                self.infer(a);
            }
            let help = if let Some(real) = crate::types::aliases::namespace(&p.effect.name) {
                Some(self.namespace_help(real, &p.op.name))
            } else if self.types.by_name.contains_key(&p.effect.name)
                || self.types.ctor_by_name.contains_key(&p.effect.name)
            {
                Some("Writ has no methods or static members; only effects have operations called with `Name.op(...)`".to_string())
            } else {
                None
            };
            if let Some(help) = help {
                self.report(
                    Diagnostic::new(
                        Code::UnknownEffect,
                        format!(
                            "expected an effect before `.{}`, found `{}`, which is not an effect",
                            p.op.name, p.effect.name
                        ),
                    )
                    .with_primary(p.effect.span, "not an effect")
                    .with_help(help),
                );
            } else {
                self.unknown_effect(&p.effect);
            }
            return self.error_ty();
        };
        let Some(op) = info.ops.iter().find(|o| o.name == p.op.name).cloned() else {
            for a in &all {
                self.infer(a);
            }
            self.unknown_operation(&info, &p.op);
            return self.error_ty();
        };
        let args: Vec<TyId> = (0..info.arity).map(|_| self.fresh()).collect();
        let ft = self.instantiate_with(&op.scheme, &args);
        let (params, ret) = match self.arena.node(ft).clone() {
            Node::Fn(ps, r, _) => (ps, r),
            _ => return self.error_ty(),
        };
        self.perform_effect(&info.name, &op.name, args, span);
        if params.len() != all.len() {
            let callee = Expr {
                kind: ExprKind::Var(crate::ast::Ident {
                    name: format!("{}.{}", p.effect.name, p.op.name),
                    span: p.op.span,
                }),
                span: p.op.span,
            };
            self.report_arity(span, &callee, params.len(), all.len(), piped.is_some());
            for a in &all {
                self.infer(a);
            }
            return self.result_of(ret);
        }
        for (a, t) in all.iter().zip(params.iter()) {
            self.check(a, *t, None);
        }
        self.result_of(ret)
    }

    /// Report that effect `info` has no operation `op`.
    pub(super) fn unknown_operation(&mut self, info: &EffectInfo, op: &crate::ast::Ident) {
        let names: Vec<&str> = info.ops.iter().map(|o| o.name.as_str()).collect();
        let d = Diagnostic::new(
            Code::UnknownOperation,
            format!(
                "expected an operation of `{}`, found `{}`",
                info.name, op.name
            ),
        )
        .with_primary(op.span, format!("`{}` has no such operation", info.name));
        let d = match self.closest(&op.name, names.iter().copied()) {
            Some(s) => d.with_help(format!("did you mean `{}.{s}`?", info.name)),
            None => d.with_note(format!("its operations are {}", suggest::quoted(&names))),
        };
        self.report(d);
    }

    /// The type a signature gives a function. Type variables it names are
    /// made at the current level, as `sig_vars` says; missing annotations are
    /// fresh variables.
    pub(super) fn signature(
        &mut self,
        generics: &[crate::ast::Generic],
        params: &[Param],
        ret: Option<&crate::ast::TypeExpr>,
        effects: Option<&crate::ast::EffectRow>,
        sig_vars: SigVars,
    ) -> FnSig {
        let level = self.level;
        let mode = match sig_vars {
            SigVars::Rigid => VarMode::Rigid(level),
            SigVars::Flexible => VarMode::Flexible(level),
        };
        for g in generics {
            let mut bounds = Classes::NONE;
            for b in &g.bounds {
                match Classes::from_name(&b.name) {
                    Some(c) => bounds = bounds.union(c),
                    None => self.report(
                        Diagnostic::new(
                            Code::UnknownBound,
                            format!(
                                "expected a bound (`Eq`, `Ord`, `Num`, `Show` or `Concat`), found `{}`",
                                b.name
                            ),
                        )
                        .with_primary(b.span, "not a bound")
                        .with_help(
                            suggest::closest(&b.name, ["Eq", "Ord", "Num", "Show", "Concat"].into_iter())
                                .map(|s| format!("did you mean `{s}`?"))
                                .unwrap_or_else(|| "Writ has no user-defined interfaces; these five bounds are all there is".into()),
                        ),
                    ),
                }
            }
            if let Some(first) = generics
                .iter()
                .take_while(|o| !std::ptr::eq(*o, g))
                .find(|o| o.name.name == g.name.name)
            {
                self.duplicate("type parameter", &g.name.name, first.name.span, g.name.span);
                continue;
            }
            let name = self.syms.intern(&g.name.name);
            let t = if sig_vars == SigVars::Rigid {
                self.arena.add(Node::Rigid {
                    name,
                    bounds,
                    level,
                })
            } else {
                self.arena.var_with(level, bounds)
            };
            self.tyvars.names.push((g.name.name.clone(), t));
        }
        let mut vars = std::mem::take(&mut self.tyvars);
        let mut annotated = true;
        let ps = params
            .iter()
            .map(|p| match &p.ty {
                Some(te) => self.translate(te, &mut vars, mode),
                None => {
                    annotated = false;
                    self.fresh()
                }
            })
            .collect();
        let ret = match ret {
            Some(te) => self.translate(te, &mut vars, mode),
            None => {
                annotated = false;
                self.fresh()
            }
        };
        let row = self.translate_row(effects, &mut vars, mode);
        self.tyvars = vars;
        FnSig {
            params: ps,
            ret,
            row,
            annotated,
        }
    }

    /// A function's body, in the function's own effect row (`name` says
    /// whose, for messages).
    pub(super) fn infer_fn_body(
        &mut self,
        name: String,
        params: &[Param],
        sig: &FnSig,
        body: &Block,
        ret: Option<&crate::ast::TypeExpr>,
        effects: Option<&crate::ast::EffectRow>,
    ) {
        let owner = crate::types::effects::RowOwner {
            name,
            annotation: effects.map(|e| e.span),
        };
        self.in_row(sig.row, Some(owner), |c| {
            c.infer_body(params, sig, body, ret.map(|r| r.span))
        });
    }

    /// Bind the parameters, then check the body against the result type.
    pub(super) fn infer_body(
        &mut self,
        params: &[Param],
        sig: &FnSig,
        body: &Block,
        ret_span: Option<Span>,
    ) {
        let mark = self.mark();
        let mut seen: Vec<(&str, Span)> = Vec::new();
        for (p, t) in params.iter().zip(sig.params.iter()) {
            if p.name.name == "_" {
                continue;
            }
            if let Some((_, first)) = seen.iter().find(|(n, _)| *n == p.name.name) {
                let first = *first;
                self.duplicate("parameter", &p.name.name, first, p.name.span);
                continue;
            }
            seen.push((&p.name.name, p.name.span));
            self.bind(
                &p.name.name,
                Binding {
                    scheme: Scheme::mono(*t),
                    span: p.name.span,
                },
            );
        }
        let origin = ret_span.and_then(|s| Origin::new(s, "the result type is declared here"));
        self.check_block(body, sig.ret, origin);
        self.pop_to(mark);
    }

    /// `fn(params) { body }`, checked against `expected` when it is known.
    pub(super) fn infer_lambda(&mut self, l: &Lambda, _span: Span, expected: Option<TyId>) -> TyId {
        let saved = self.tyvars.names.len();
        let sig = self.signature(
            &[],
            &l.params,
            l.ret.as_ref(),
            l.effects.as_ref(),
            SigVars::Flexible,
        );
        self.tyvars.names.truncate(saved);
        // Use what the context expects for unannotated parameters, so that
        // a mistake is reported inside the lambda.
        if let Some(exp) = expected
            && let Node::Fn(eps, _, _) = self.arena.node(exp).clone()
            && eps.len() == sig.params.len()
        {
            for ((p, t), e) in l.params.iter().zip(sig.params.iter()).zip(eps.iter()) {
                if p.ty.is_none() && self.unify(*e, *t).is_err() {
                    self.poisoned.clear();
                }
            }
        }
        // With a function type expected and no row written, the rows that
        // must end in a signature's row variable (a body calling an `e`
        // function) are settled by the enclosing body, after the lambda
        // has met the expected type: `fn() { f() }` then fits
        // `{Fail | e}`, as a body that also fails does, instead of its
        // row being fixed to `{e}` first.
        let settle_here = l.effects.is_some()
            || !expected.is_some_and(|e| matches!(self.arena.node(e), Node::Fn(..)));
        let outer_fn = self.current_fn.take();
        self.settle_waits_later = !settle_here;
        self.infer_fn_body(
            "this function".to_string(),
            &l.params,
            &sig,
            &l.body,
            l.ret.as_ref(),
            l.effects.as_ref(),
        );
        self.settle_waits_later = false;
        self.current_fn = outer_fn;
        self.arena.add(Node::Fn(sig.params, sig.ret, sig.row))
    }

    /// A statement; returns the type of an expression statement.
    pub(super) fn infer_stmt(&mut self, s: &Stmt) -> Option<TyId> {
        match s {
            Stmt::Expr(e) => Some(self.infer(e)),
            Stmt::Let(l) => {
                self.infer_let(l);
                None
            }
            Stmt::Fn(f) => {
                self.infer_local_fn(f);
                None
            }
        }
    }

    /// `let pattern (: T)? = value`, binding the pattern's names.
    pub(super) fn infer_let(&mut self, l: &Let) {
        let since = self.arena.len() as TyId;
        self.level += 1;
        let t = self.let_value(l);
        let value = is_value(&l.value);
        if let crate::ast::PatternKind::Bind(name) = &l.pattern.kind {
            self.level -= 1;
            let scheme = if value {
                self.generalize(t, since)
            } else {
                if self.settle(t, since) && matches!(self.arena.node(t), Node::Fn(..)) {
                    self.weak.insert(name.span);
                }
                Scheme::mono(t)
            };
            self.bind(
                &name.name,
                Binding {
                    scheme,
                    span: name.span,
                },
            );
            return;
        }
        // A pattern: its names are generalised one by one.
        let mut info = crate::types::pattern::PatInfo::default();
        self.type_pattern(&l.pattern, t, &mut info, l.value.span);
        self.level -= 1;
        let place = if l.from_parameter {
            crate::types::pattern::LAMBDA_PARAMETER
        } else {
            "a `let`"
        };
        self.irrefutable(&l.pattern, &info, place);
        for (name, span, ty) in std::mem::take(&mut info.bound) {
            let scheme = if value {
                self.generalize(ty, since)
            } else {
                self.settle(ty, since);
                Scheme::mono(ty)
            };
            self.bind(&name, Binding { scheme, span });
        }
    }

    /// The type of a `let`'s value, checked against its annotation.
    pub(super) fn let_value(&mut self, l: &Let) -> TyId {
        let t = self.let_value_unchecked(l);
        self.limit_tree_size(t, l.value.span)
    }

    fn let_value_unchecked(&mut self, l: &Let) -> TyId {
        match &l.ty {
            Some(te) => {
                let mut vars = std::mem::take(&mut self.tyvars);
                let mark = vars.names.len();
                let want = self.translate(te, &mut vars, VarMode::Flexible(self.level));
                vars.names.truncate(mark);
                self.tyvars = vars;
                self.check(
                    &l.value,
                    want,
                    Origin::new(te.span, "the type is declared here"),
                );
                want
            }
            None => self.infer(&l.value),
        }
    }

    /// A `fn` inside a block: recursive, generalised after its body.
    pub(super) fn infer_local_fn(&mut self, f: &FnDecl) {
        let Some(body) = &f.body else {
            return;
        };
        let since = self.arena.len() as TyId;
        self.level += 1;
        let saved = self.tyvars.names.len();
        let sig = self.signature(
            &f.generics,
            &f.params,
            f.ret.as_ref(),
            f.effects.as_ref(),
            SigVars::Rigid,
        );
        let ft = self
            .arena
            .add(Node::Fn(sig.params.clone(), sig.ret, sig.row));
        let mark = self.mark();
        self.bind(
            &f.name.name,
            Binding {
                scheme: Scheme::mono(ft),
                span: f.name.span,
            },
        );
        let outer_fn = self.current_fn.replace(f.name.span);
        self.infer_fn_body(
            format!("`{}`", f.name.name),
            &f.params,
            &sig,
            body,
            f.ret.as_ref(),
            f.effects.as_ref(),
        );
        self.current_fn = outer_fn;
        self.pop_to(mark);
        self.tyvars.names.truncate(saved);
        self.level -= 1;
        let scheme = self.generalize(ft, since);
        self.bind(
            &f.name.name,
            Binding {
                scheme,
                span: f.name.span,
            },
        );
    }
}

/// Whether `e` is a syntactic value (safe to generalise).
pub(super) fn is_value(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Lambda(_)
        | ExprKind::Unit
        | ExprKind::Bool(_)
        | ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Var(_)
        | ExprKind::Ctor(_) => true,
        ExprKind::List(items) | ExprKind::Tuple(items) => items.iter().all(is_value),
        // A field of a value, or a namespace member such as `list.map`.
        ExprKind::Field { expr, .. } => is_value(expr),
        ExprKind::Record(fields) => fields.iter().all(|f| is_value(&f.value)),
        ExprKind::Call { callee, args } => {
            matches!(callee.kind, ExprKind::Ctor(_)) && args.iter().all(is_value)
        }
        _ => false,
    }
}

/// How to name a callee in a message: `` `f` ``, `` `list.map` ``.
fn callee_name(callee: &Expr) -> Option<String> {
    match &callee.kind {
        ExprKind::Var(v) | ExprKind::Ctor(v) => Some(format!("`{}`", v.name)),
        ExprKind::Field { expr, name } => match &expr.kind {
            ExprKind::Var(ns) => Some(format!("`{}.{}`", ns.name, name.name)),
            _ => None,
        },
        _ => None,
    }
}

/// The declaration of a standard-library function called as `ns.name`
/// (where `ns` is a namespace, not a local of that name), as the library
/// writes it: `("list.map", "fn map(xs: List[a], f: ...) -> ...")`.
fn library_declaration(c: &Checker, callee: &crate::ast::Expr) -> Option<(String, String)> {
    let ExprKind::Field { expr, name } = &callee.kind else {
        return None;
    };
    let ExprKind::Var(ns) = &expr.kind else {
        return None;
    };
    if c.lookup(&ns.name).is_some() || !c.namespaces.contains_key(&ns.name) {
        return None;
    }
    static ENTRIES: std::sync::OnceLock<Vec<crate::stdlib::reference::Entry>> =
        std::sync::OnceLock::new();
    ENTRIES
        .get_or_init(crate::stdlib::reference::entries)
        .iter()
        .find(|e| e.namespace == ns.name && e.name == name.name)
        .map(|e| (format!("{}.{}", ns.name, name.name), e.signature.clone()))
}
