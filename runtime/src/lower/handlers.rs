//! Lowering `handle ... with { ... }`.
//!
//! The handled body becomes a thunk (a function of no arguments) and each
//! clause a function, so that the machine can run the body in a frame of
//! its own (the handler's delimiter) and a clause wherever it must. A
//! clause's parameters are the operation's arguments, then the handler's
//! parameter (if any), then `resume`.
//!
//! **Tail-resumptive clauses.** A clause whose every way out is a call
//! `resume(e)` in tail position (or an operation that never returns, such
//! as `Fail.fail`), and which mentions `resume` nowhere else, does not
//! need its continuation: the machine runs it on top of the performer and
//! `resume(e)` returns `e` straight to the operation (updating the
//! handler's parameter, for `resume(e, p)`). Such a clause takes no
//! `resume` parameter. The analysis is conservative: a clause that uses its
//! `resume` anywhere else (passes it, captures it, resumes inside an
//! argument) takes the general path. Which uses are the clause's `resume`
//! (not a nested clause's, nor a local named `resume`), and which
//! parameter a simple clause's operand is, come from the checker's
//! resolution.

use writ_lang::Span;
use writ_lang::ast::{Clause, Expr, ExprKind, Handle, Ident, Pattern, PatternKind, Stmt};
use writ_lang::types::{Resolution, Resolved};

use super::{FnCtx, Lowerer, Position, ResumeMode};
use crate::code::{Arith, Atom, ClauseInfo, HandlerInfo, Op, Operand, SimpleClause};

impl Lowerer {
    /// Lower a `handle` expression: push the parameter, the clause
    /// closures and the body thunk, then `Handle`.
    pub(super) fn handle(&mut self, span: Span, h: &Handle) {
        let handler_param = h.param.as_ref().map(|s| s.name.span);
        if let Some(st) = &h.param {
            self.expr(&st.init, Position::Inner);
        }
        let mut clauses = Vec::new();
        let mut closures = 0u32;
        for c in &h.clauses {
            let Clause::Op {
                effect,
                op,
                params,
                body,
                span,
            } = c
            else {
                continue;
            };
            let Some((e, o)) = self.op_ids(&effect.name, &op.name) else {
                self.emit(Op::NoMatch, *span);
                continue;
            };
            let resume = Resume {
                resolution: &self.resolution,
                binder: *span,
            };
            let never = |p: &writ_lang::ast::Perform| {
                self.op_ids(&p.effect.name, &p.op.name)
                    .is_some_and(|id| self.never_ops.contains(&id))
            };
            let tail = tail_resumptive(body, &never, resume);
            let abortive = !tail && resume.uses(body) == 0;
            let simple = if tail {
                simple_clause(params, handler_param, body, resume)
            } else {
                None
            };
            let mode = match (tail, handler_param.is_some()) {
                (false, _) => ResumeMode::Value,
                (true, false) => ResumeMode::Tail,
                (true, true) => ResumeMode::TailWith,
            };
            let name = format!("{}.{} clause", effect.name, op.name);
            self.clause(&name, params, handler_param, mode, body, *span);
            clauses.push(ClauseInfo {
                effect: e,
                op: o,
                clause: closures,
                tail_resumptive: tail,
                abortive,
                simple,
            });
            closures += 1;
        }
        let mut has_return = false;
        for c in &h.clauses {
            if let Clause::Return { param, body, span } = c {
                let params = std::slice::from_ref(param);
                self.clause(
                    "return clause",
                    params,
                    handler_param,
                    ResumeMode::Tail,
                    body,
                    *span,
                );
                has_return = true;
                closures += 1;
                break;
            }
        }
        // The body thunk.
        let ctx = FnCtx::new("<handled>".into(), 0);
        self.fns.push(ctx);
        self.expr(&h.body, Position::Tail);
        if let Some(ctx) = self.fns.pop() {
            self.push_function(ctx, h.body.span);
        }
        self.module.handlers.push(HandlerInfo {
            clauses,
            closures,
            has_return,
            has_param: handler_param.is_some(),
        });
        let id = self.module.handlers.len() as u32 - 1;
        self.emit(Op::Handle(id), span);
    }

    /// An effect's and operation's ids.
    fn op_ids(&self, effect: &str, op: &str) -> Option<(u32, u32)> {
        let e = *self.effect_ids.get(effect)?;
        let o = self
            .module
            .effects
            .get(e as usize)?
            .ops
            .iter()
            .position(|n| n == op)?;
        Some((e, o as u32))
    }

    /// Lower one clause to a function value on the stack. `mode` is
    /// `Value` for a general clause (which takes `resume`); the return
    /// clause is lowered with `Tail`, which only means "no `resume`".
    /// `param` is the binder of the handler's parameter; an operation
    /// clause's `resume` is bound by the clause (at `span`).
    fn clause(
        &mut self,
        name: &str,
        params: &[Pattern],
        param: Option<Span>,
        mode: ResumeMode,
        body: &Expr,
        span: Span,
    ) {
        let takes_resume = mode == ResumeMode::Value;
        let arity = params.len() + usize::from(param.is_some()) + usize::from(takes_resume);
        let mut ctx = FnCtx::new(name.to_string(), arity as u32);
        if name == "return clause" {
            ctx.resume = ResumeMode::Value;
        } else {
            ctx.resume = mode;
            ctx.resume_binder = Some(span);
        }
        let param_slots: Vec<u32> = params.iter().map(|_| ctx.slot()).collect();
        let binders = param.into_iter().chain(takes_resume.then_some(span));
        for binder in binders {
            let slot = ctx.slot();
            if let Some(scope) = ctx.scopes.first_mut() {
                scope.push((binder, slot));
            }
        }
        self.fns.push(ctx);
        let mut fails = Vec::new();
        for (p, slot) in params.iter().zip(param_slots) {
            self.pattern(p, slot, &mut fails);
        }
        self.fail_to_no_match(fails, span);
        self.expr(body, Position::Tail);
        if let Some(ctx) = self.fns.pop() {
            self.push_function(ctx, span);
        }
    }
}

/// The `resume` of one operation clause, as the checker resolved it.
#[derive(Clone, Copy)]
struct Resume<'r> {
    resolution: &'r Resolution,
    /// The clause's span, which binds its `resume`.
    binder: Span,
}

impl Resume<'_> {
    /// Whether `v` is this `resume`.
    fn is(&self, v: &Ident) -> bool {
        self.resolution.get(v.span) == Some(&Resolved::Local(self.binder))
    }

    /// Whether `e` is this `resume`.
    fn is_expr(&self, e: &Expr) -> bool {
        matches!(&e.kind, ExprKind::Var(v) if self.is(v))
    }

    /// How many times `e` uses this `resume`.
    fn uses(&self, e: &Expr) -> usize {
        let mut vars = Vec::new();
        e.vars(&mut vars);
        vars.iter().filter(|v| self.is(v)).count()
    }
}

/// The clause as a [`SimpleClause`], if its body (inside any blocks) is a
/// single call of its `resume` whose arguments are parameters, the
/// handler's parameter (bound at `param`) or constants.
fn simple_clause(
    params: &[Pattern],
    param: Option<Span>,
    body: &Expr,
    resume: Resume<'_>,
) -> Option<SimpleClause> {
    let mut e = body;
    while let ExprKind::Block(b) = &e.kind {
        match b.stmts.as_slice() {
            [Stmt::Expr(inner)] => e = inner,
            _ => return None,
        }
    }
    let ExprKind::Call { callee, args } = &e.kind else {
        return None;
    };
    if !resume.is_expr(callee) {
        return None;
    }
    // A name: which parameter the checker found it to be.
    let atom = |a: &Expr| -> Option<Atom> {
        Some(match &a.kind {
            ExprKind::Int(n) => Atom::Int(*n),
            ExprKind::Var(v) => {
                let Some(Resolved::Local(binder)) = resume.resolution.get(v.span) else {
                    return None;
                };
                let bound =
                    |p: &Pattern| matches!(&p.kind, PatternKind::Bind(n) if n.span == *binder);
                if let Some(i) = params.iter().position(bound) {
                    Atom::Arg(i as u32)
                } else if param == Some(*binder) {
                    Atom::Param
                } else {
                    return None;
                }
            }
            _ => return None,
        })
    };
    let operand = |a: &Expr| -> Option<Operand> {
        Some(match &a.kind {
            ExprKind::Unit => Operand::Unit,
            ExprKind::Bool(b) => Operand::Bool(*b),
            ExprKind::Binary { op, lhs, rhs } => {
                // What the machine computes inline (`Int` with `Int`).
                use Arith::*;
                let op = super::expr::arith_of(*op)
                    .filter(|a| matches!(a, Add | Sub | Mul | Eq | Ne | Lt | Le | Gt | Ge))?;
                Operand::Arith(op, atom(lhs)?, atom(rhs)?)
            }
            _ => match atom(a)? {
                Atom::Arg(i) => Operand::Arg(i),
                Atom::Param => Operand::Param,
                Atom::Int(n) => Operand::Int(n),
            },
        })
    };
    // Every parameter pattern must bind or ignore (no test that can fail).
    if !params
        .iter()
        .all(|p| matches!(p.kind, PatternKind::Bind(_) | PatternKind::Wildcard))
    {
        return None;
    }
    match (args.as_slice(), param) {
        ([r], None) => Some(SimpleClause {
            result: operand(r)?,
            next: None,
        }),
        // `resume(x, s)` with the parameter as it was (a state's `get`)
        // leaves it alone, as `resume(x)` does.
        ([r, n], Some(_)) => Some(SimpleClause {
            result: operand(r)?,
            next: Some(operand(n)?).filter(|n| *n != Operand::Param),
        }),
        _ => None,
    }
}

/// Whether a clause body resumes only in tail position, and uses its
/// `resume` nowhere else (see the module docs).
fn tail_resumptive(
    body: &Expr,
    never: &dyn Fn(&writ_lang::ast::Perform) -> bool,
    resume: Resume<'_>,
) -> bool {
    let mut tails = 0;
    tails_resume(body, never, resume, &mut tails) && resume.uses(body) == tails
}

/// Whether every way out of `e` is a call of `resume` (counted in
/// `tails`) whose arguments do not use it, or an operation that never
/// returns.
fn tails_resume(
    e: &Expr,
    never: &dyn Fn(&writ_lang::ast::Perform) -> bool,
    resume: Resume<'_>,
    tails: &mut usize,
) -> bool {
    match &e.kind {
        ExprKind::Call { callee, args } => {
            if resume.is_expr(callee) {
                *tails += 1;
                return args.iter().all(|a| resume.uses(a) == 0);
            }
            false
        }
        ExprKind::Perform(p) => never(p),
        ExprKind::Block(b) => match b.stmts.last() {
            Some(Stmt::Expr(last)) => tails_resume(last, never, resume, tails),
            _ => false,
        },
        ExprKind::If {
            branches,
            otherwise,
        } => {
            let Some(other) = otherwise else {
                return false;
            };
            let block_ok = |b: &writ_lang::ast::Block, tails: &mut usize| match b.stmts.last() {
                Some(Stmt::Expr(last)) => tails_resume(last, never, resume, tails),
                _ => false,
            };
            branches.iter().all(|(_, b)| block_ok(b, tails)) && block_ok(other, tails)
        }
        ExprKind::Match { arms, .. } => arms
            .iter()
            .all(|a| tails_resume(&a.body, never, resume, tails)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::{Limits, LogHost, run};

    /// Check and compile `src`; each handler's clauses, as (tail-resumptive,
    /// abortive), and the display of its value.
    fn clauses_and_value(src: &str) -> (Vec<Vec<(bool, bool)>>, String) {
        let parsed = writ_lang::parse(src);
        assert!(!parsed.has_errors(), "{:#?}", parsed.diagnostics);
        let typed = writ_lang::types::check(&parsed.program, &Default::default());
        // Warnings are allowed: some of these clauses stop the handled code
        // on purpose (W3008).
        assert!(
            !typed.diagnostics.iter().any(|d| d.is_error()),
            "{:#?}",
            typed.diagnostics
        );
        let module = crate::compile(&parsed.program, &typed).unwrap();
        // The standard library's handlers (`assert.fails`) come first.
        let empty = writ_lang::parse("()\n");
        let library = crate::compile(
            &empty.program,
            &writ_lang::types::check(&empty.program, &Default::default()),
        )
        .unwrap()
        .handlers
        .len();
        let clauses = module
            .handlers
            .iter()
            .skip(library)
            .map(|h| {
                h.clauses
                    .iter()
                    .map(|c| (c.tail_resumptive, c.abortive))
                    .collect()
            })
            .collect();
        let mut host = LogHost::new(|_| {});
        let v = run(&module, &Limits::default(), &mut host, None).unwrap();
        let shown = crate::display::to_string(&v, &module, crate::display::StrForm::Quoted, 10_000);
        (clauses, shown)
    }

    /// Which uses are a clause's `resume` is the checker's: a nested clause's
    /// `resume` is that clause's own, so the outer clause still resumes only
    /// in tail position (and runs in place), or, using its own nowhere, drops
    /// its continuation.
    #[test]
    fn a_nested_clause_s_resume_is_its_own() {
        let effects = "effect Ask {\n  fn ask() -> Int\n}\neffect Tell {\n  fn tell() -> Int\n}\n";
        let src = format!(
            "{effects}handle Ask.ask() + 1 with {{\n  Ask.ask() => resume(handle Tell.tell() with {{\n    Tell.tell() => resume(41)\n  }})\n}}\n"
        );
        let (clauses, value) = clauses_and_value(&src);
        assert_eq!(value, "42");
        // The outer handler is lowered after the inner one in its clause.
        assert_eq!(clauses, [vec![(true, false)], vec![(true, false)]]);
        let src = format!(
            "{effects}handle Ask.ask() + 1 with {{\n  Ask.ask() => handle Tell.tell() with {{\n    Tell.tell() => resume(7)\n  }}\n}}\n"
        );
        let (clauses, value) = clauses_and_value(&src);
        assert_eq!(value, "7");
        assert!(clauses.contains(&vec![(false, true)]), "{clauses:?}");
        // A local function named `resume` hides the clause's: calling it is
        // not resuming, so the clause takes the general path.
        let src = format!(
            "{effects}handle Ask.ask() + 1 with {{\n  Ask.ask() => {{\n    fn resume(n) {{ n * 2 }}\n    resume(5)\n  }}\n}}\n"
        );
        let (clauses, value) = clauses_and_value(&src);
        assert_eq!(value, "10");
        assert_eq!(clauses, [vec![(false, true)]]);
    }

    /// A clause resuming with `Int` arithmetic of two atoms (arguments,
    /// the parameter, integer constants) is simple; a deeper expression,
    /// an operator the machine does not compute inline, or a call is not.
    #[test]
    fn arithmetic_of_two_atoms_makes_a_simple_clause_and_nothing_more() {
        use crate::code::{Arith, Atom, Operand};
        let simple = |clause: &str| {
            let src = format!(
                "effect E {{\n  fn e(x: Int) -> Int\n}}\nhandle E.e(5) with (s = 2) {{\n  E.e(x) => {clause},\n  return(v) => v + s,\n}}\n"
            );
            let parsed = writ_lang::parse(&src);
            let typed = writ_lang::types::check(&parsed.program, &Default::default());
            assert!(!typed.diagnostics.iter().any(|d| d.is_error()), "{src}");
            let module = crate::compile(&parsed.program, &typed).unwrap();
            let h = module.handlers.last().unwrap();
            h.clauses[0].simple.map(|c| (c.result, c.next))
        };
        assert_eq!(
            simple("resume(x, s + x)"),
            Some((
                Operand::Arg(0),
                Some(Operand::Arith(Arith::Add, Atom::Param, Atom::Arg(0)))
            ))
        );
        assert_eq!(
            simple("resume(s * 3, s - 1)"),
            Some((
                Operand::Arith(Arith::Mul, Atom::Param, Atom::Int(3)),
                Some(Operand::Arith(Arith::Sub, Atom::Param, Atom::Int(1)))
            ))
        );
        // The parameter resumed with as it was is left alone (no next).
        assert_eq!(simple("resume(s, s)"), Some((Operand::Param, None)));
        assert_eq!(simple("resume(x, s)"), Some((Operand::Arg(0), None)));
        assert_eq!(
            simple("resume(s, x)"),
            Some((Operand::Param, Some(Operand::Arg(0))))
        );
        assert!(simple("resume(if x > s { 1 } else { 0 }, s)").is_none());
        assert!(simple("resume(x, s * 2 - x)").is_none());
        assert!(simple("resume(x / 2, s)").is_none());
        assert!(simple("resume(x % 2, s)").is_none());
        assert!(simple("resume(math.abs(x), s)").is_none());
    }
}
