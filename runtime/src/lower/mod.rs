//! Lowering: from a checked program (and the standard library) to the core
//! IR of [`crate::code`].
//!
//! Lowering runs only on programs the type checker accepted, and redoes
//! name resolution with the same rules (a local wins over a top-level
//! `let`, which wins over a top-level `fn`; a function sees the top-level
//! `let`s written before it; a local wins over a namespace). Each variable
//! becomes a slot: a local of its frame, a captured value of its closure,
//! or a global. Closures capture by value, which is exact because Writ has
//! no mutable variables.
//!
//! Invariants: nothing here panics on an accepted program; an AST node the
//! checker would have rejected lowers to an op that stops the run with an
//! internal error ([`crate::code::Op::NoMatch`]), never to a crash.

mod decision;
mod expr;
mod handlers;
mod library;
mod liveness;
mod pattern;
mod peephole;

use std::collections::HashMap;

use writ_lang::Span;
use writ_lang::ast::{Block, FnDecl, Item, Pattern, PatternKind, Program, Stmt, TypeBody};

use crate::code::{CaptureFrom, CtorInfo, EffectInfo, Function, Literal, Module, Op};

/// What a name resolves to.
#[derive(Clone, Copy, Debug)]
enum Slot {
    Local(u32),
    Capture(u32),
    SelfFn,
    Global(u32),
    Func(u32),
    Native(u32),
}

/// How a `resume` in tail position is compiled, in a clause that runs in
/// place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ResumeMode {
    /// `resume` is an ordinary variable.
    Value,
    /// Tail-resumptive clause: `resume(v)` returns `v` to the performer.
    Tail,
    /// Tail-resumptive clause of a parameterised handler: `resume(v, p)`.
    TailWith,
}

/// One function being lowered.
#[derive(Clone)]
struct FnCtx {
    func: Function,
    /// Names bound in nested scopes, innermost last.
    scopes: Vec<Vec<(String, u32)>>,
    next_slot: u32,
    /// Captured names, by capture index.
    captured: Vec<String>,
    /// The name a local function calls itself by.
    self_name: Option<String>,
    resume: ResumeMode,
    /// Whether a top-level `let` binds globals (only in the top level's
    /// own scope).
    top_level: bool,
}

impl FnCtx {
    fn new(name: String, arity: u32) -> FnCtx {
        FnCtx {
            func: Function {
                name,
                arity,
                ..Function::default()
            },
            scopes: vec![Vec::new()],
            next_slot: 0,
            captured: Vec::new(),
            self_name: None,
            resume: ResumeMode::Value,
            top_level: false,
        }
    }

    /// A function whose parameters (names, `_` binding nothing) take its
    /// first slots.
    fn with_params(name: String, params: &[writ_lang::ast::Param]) -> FnCtx {
        let mut ctx = FnCtx::new(name, params.len() as u32);
        for p in params {
            let s = ctx.slot();
            if p.name.name != "_"
                && let Some(scope) = ctx.scopes.first_mut()
            {
                scope.push((p.name.name.clone(), s));
            }
        }
        ctx
    }

    fn slot(&mut self) -> u32 {
        let s = self.next_slot;
        self.next_slot += 1;
        self.func.locals = self.func.locals.max(self.next_slot);
        s
    }
}

/// The lowering state for one program (or a session of inputs).
#[derive(Clone)]
pub(crate) struct Lowerer {
    module: Module,
    ctor_ids: HashMap<String, u32>,
    effect_ids: HashMap<String, u32>,
    /// Operations whose result type is `Never`, by (effect, op).
    never_ops: Vec<(u32, u32)>,
    symbol_ids: HashMap<String, u32>,
    shape_ids: HashMap<Vec<u32>, u32>,
    string_ids: HashMap<String, u32>,
    namespaces: HashMap<String, HashMap<String, Slot>>,
    top_fns: HashMap<String, u32>,
    top_lets: HashMap<String, Vec<(usize, u32)>>,
    /// The position of the top-level item being lowered.
    top_position: usize,
    /// Whether library code is being lowered (it sees no program names).
    in_library: bool,
    ctor_wrappers: HashMap<u32, u32>,
    fns: Vec<FnCtx>,
    /// The uses of `list.sum` on `Float`s, from the type checker.
    float_sums: Vec<Span>,
    /// The native entry of `list.sum` on `Float`s, once registered.
    float_sum_native: Option<u32>,
    /// In a session, the top-level names of earlier inputs (seen after
    /// the current input's own).
    session: HashMap<String, Slot>,
}

/// Lower a checked program, with the standard library, to a module.
/// `float_sums` are the uses of `list.sum` the type checker found to sum
/// `Float`s. An error names what could not be lowered (a bug in Writ, not
/// in the program).
pub fn lower(
    program: &Program,
    float_sums: &[Span],
    interfaces: &[String],
) -> Result<Module, String> {
    let mut l = Lowerer::library_only(interfaces)?;
    l.float_sums = float_sums.to_vec();
    l.program(program);
    for f in &mut l.module.functions {
        peephole::fuse(f);
    }
    liveness::moves(&mut l.module.functions, 0);
    Ok(l.module)
}

impl Lowerer {
    /// A lowerer holding the standard library and the host capability
    /// `interfaces`, ready for a program.
    pub(crate) fn library_only(interfaces: &[String]) -> Result<Lowerer, String> {
        let mut l = Lowerer {
            module: Module::default(),
            ctor_ids: HashMap::new(),
            effect_ids: HashMap::new(),
            never_ops: Vec::new(),
            symbol_ids: HashMap::new(),
            shape_ids: HashMap::new(),
            string_ids: HashMap::new(),
            namespaces: HashMap::new(),
            top_fns: HashMap::new(),
            top_lets: HashMap::new(),
            top_position: 0,
            in_library: true,
            ctor_wrappers: HashMap::new(),
            fns: Vec::new(),
            float_sums: Vec::new(),
            float_sum_native: None,
            session: HashMap::new(),
        };
        l.library()?;
        for source in interfaces {
            let parsed = writ_lang::parser::parse_library(source);
            if parsed.has_errors() {
                return Err("a host capability interface does not parse".to_string());
            }
            l.declare(&parsed.program);
        }
        l.in_library = false;
        Ok(l)
    }

    /// The global slot of a session's top-level `let` named `name`.
    pub(crate) fn session_global(&self, name: &str) -> Option<u32> {
        match self.session.get(name) {
            Some(Slot::Global(g)) => Some(*g),
            _ => None,
        }
    }

    /// The module built so far.
    pub(crate) fn module(&self) -> &Module {
        &self.module
    }

    /// Lower one more input of a session: its functions join the module,
    /// its top level becomes a function of its own (returned), and its
    /// top-level names are seen by later inputs, replacing earlier ones.
    pub(crate) fn input(&mut self, program: &Program, float_sums: &[Span]) -> u32 {
        let first = self.module.functions.len();
        self.float_sums = float_sums.to_vec();
        self.top_fns.clear();
        self.top_lets.clear();
        self.program(program);
        for (name, id) in std::mem::take(&mut self.top_fns) {
            self.session.insert(name, Slot::Func(id));
        }
        for (name, mut sites) in std::mem::take(&mut self.top_lets) {
            sites.sort_by_key(|(p, _)| *p);
            if let Some((_, g)) = sites.pop() {
                self.session.insert(name, Slot::Global(g));
            }
        }
        for f in self.module.functions.iter_mut().skip(first) {
            peephole::fuse(f);
        }
        liveness::moves(&mut self.module.functions, first);
        self.module.main
    }

    /// Declare constructors and effects.
    fn declare(&mut self, program: &Program) {
        for item in &program.items {
            match item {
                Item::Type(t) => {
                    // The fields of declared records are known symbols, so
                    // that a host can build such records.
                    if let TypeBody::Record(fields) = &t.body {
                        for f in fields {
                            self.symbol(&f.name.name);
                        }
                    }
                    if let TypeBody::Variants(vs) = &t.body {
                        for v in vs {
                            self.module.ctors.push(CtorInfo {
                                name: v.name.name.clone(),
                                arity: v.fields.len() as u32,
                            });
                            let id = self.module.ctors.len() as u32 - 1;
                            self.ctor_ids.insert(v.name.name.clone(), id);
                        }
                    }
                }
                Item::Effect(e) => {
                    let id = self.module.effects.len() as u32;
                    for (i, op) in e.ops.iter().enumerate() {
                        let never = matches!(&op.ret, Some(t) if matches!(&t.kind,
                            writ_lang::ast::TypeExprKind::Named { name, .. } if name.name == "Never"));
                        if never {
                            self.never_ops.push((id, i as u32));
                        }
                    }
                    self.module.effects.push(EffectInfo {
                        name: e.name.name.clone(),
                        ops: e.ops.iter().map(|o| o.name.name.clone()).collect(),
                    });
                    self.effect_ids.insert(e.name.name.clone(), id);
                }
                _ => {}
            }
        }
    }

    /// Reserve a function id (its code is filled in later).
    fn reserve_fn(&mut self, name: &str, arity: usize) -> u32 {
        self.module.functions.push(Function {
            name: name.to_string(),
            arity: arity as u32,
            ..Function::default()
        });
        self.module.functions.len() as u32 - 1
    }

    /// Lower the program: its declarations, functions, and the top level.
    fn program(&mut self, program: &Program) {
        self.declare(program);
        // Every top-level function and `let` gets its id or global first,
        // so that items can be used before they appear.
        for (pos, item) in program.items.iter().enumerate() {
            match item {
                Item::Fn(f) if !self.top_fns.contains_key(&f.name.name) => {
                    let id = self.reserve_fn(&f.name.name, f.params.len());
                    self.top_fns.insert(f.name.name.clone(), id);
                }
                Item::Stmt(Stmt::Let(l)) => {
                    let mut names = Vec::new();
                    binders(&l.pattern, &mut names);
                    for n in names {
                        let g = self.module.globals;
                        self.module.globals += 1;
                        self.top_lets.entry(n).or_default().push((pos, g));
                    }
                }
                _ => {}
            }
        }
        for (pos, item) in program.items.iter().enumerate() {
            if let Item::Fn(f) = item
                && let Some(&id) = self.top_fns.get(&f.name.name)
                && self
                    .module
                    .functions
                    .get(id as usize)
                    .is_some_and(|f| f.ops.is_empty())
            {
                self.top_position = pos;
                self.function(f, id);
            }
        }
        let main = self.reserve_fn("<top level>", 0);
        let mut ctx = FnCtx::new("<top level>".into(), 0);
        ctx.top_level = true;
        self.fns.push(ctx);
        let stmts: Vec<(usize, &Stmt)> = program
            .items
            .iter()
            .enumerate()
            .filter_map(|(p, i)| match i {
                Item::Stmt(s) => Some((p, s)),
                _ => None,
            })
            .collect();
        let last = stmts.len();
        for (n, (pos, stmt)) in stmts.into_iter().enumerate() {
            self.top_position = pos;
            let is_last = n + 1 == last;
            match stmt {
                Stmt::Let(l) => {
                    self.expr(&l.value, false);
                    self.let_pattern(&l.pattern, pos);
                    if is_last {
                        self.emit(Op::Unit, l.span);
                    }
                }
                Stmt::Expr(e) => {
                    self.expr(e, false);
                    if !is_last {
                        self.emit(Op::Pop, e.span);
                    }
                }
                Stmt::Fn(_) => {}
            }
        }
        // Where the top level itself is (in a session, inside the input).
        let at = program.items.first().map_or(Span::new(0, 0), |i| {
            let start = match i {
                Item::Fn(f) => f.span.start,
                Item::Type(t) => t.span.start,
                Item::Effect(e) => e.span.start,
                Item::Stmt(s) => s.span().start,
            };
            Span::point(start)
        });
        if last == 0 {
            self.emit(Op::Unit, at);
        }
        self.emit(Op::Return, at);
        self.top_position = usize::MAX;
        if let Some(ctx) = self.fns.pop() {
            self.finish(ctx, main);
        }
        self.module.main = main;
    }

    /// Bind a top-level `let`'s pattern to its globals.
    fn let_pattern(&mut self, pat: &Pattern, pos: usize) {
        let span = pat.span;
        let slot = self.ctx().slot();
        self.emit(Op::SetLocal(slot), span);
        let mut fails = Vec::new();
        let before = self.ctx().scopes.len();
        self.ctx().scopes.push(Vec::new());
        self.pattern(pat, slot, &mut fails);
        let bound = self.ctx().scopes.pop().unwrap_or_default();
        self.ctx().scopes.truncate(before);
        for (name, local) in bound {
            if let Some(g) = self
                .top_lets
                .get(&name)
                .and_then(|v| v.iter().find(|(p, _)| *p == pos))
                .map(|(_, g)| *g)
            {
                self.emit(Op::Local(local), span);
                self.emit(Op::SetGlobal(g), span);
            }
        }
        self.fail_to_no_match(fails, span);
    }

    /// Make a failed irrefutable pattern stop the run (unreachable once
    /// checked).
    fn fail_to_no_match(&mut self, fails: Vec<usize>, span: Span) {
        if fails.is_empty() {
            return;
        }
        let skip = self.emit(Op::Jump(0), span);
        let here = self.here();
        for f in fails {
            self.patch(f, here);
        }
        self.emit(Op::NoMatch, span);
        let after = self.here();
        self.patch(skip, after);
    }

    /// Lower a named function (top-level or library) into a reserved id.
    fn function(&mut self, f: &FnDecl, id: u32) {
        let Some(body) = &f.body else { return };
        let name = self
            .module
            .functions
            .get(id as usize)
            .map(|f| f.name.clone())
            .unwrap_or_default();
        let ctx = FnCtx::with_params(name, &f.params);
        self.fns.push(ctx);
        self.block(body, true);
        if let Some(ctx) = self.fns.pop() {
            self.finish(ctx, id);
        }
    }

    /// Store a finished function at its id.
    fn finish(&mut self, ctx: FnCtx, id: u32) {
        let mut func = ctx.func;
        func.library = self.in_library;
        if let Some(slot) = self.module.functions.get_mut(id as usize) {
            func.name = std::mem::take(&mut slot.name);
            *slot = func;
        }
    }

    /// The name stack traces show for a function nested in the one being
    /// lowered: its own, except in library code, where helpers are shown as
    /// the library function they belong to (`list.map`).
    fn nested_name(&self, own: &str) -> String {
        match self.fns.first() {
            Some(outer) if self.in_library => outer.func.name.clone(),
            _ => own.to_string(),
        }
    }

    /// Add a finished nested function and push it (as a closure if it
    /// captures).
    fn push_function(&mut self, ctx: FnCtx, span: Span) {
        let closure = !ctx.func.captures.is_empty();
        let id = self.add_function(ctx);
        self.emit(
            if closure {
                Op::Closure(id)
            } else {
                Op::Func(id)
            },
            span,
        );
    }

    /// Add a finished nested function; its id.
    fn add_function(&mut self, ctx: FnCtx) -> u32 {
        let mut func = ctx.func;
        func.library = self.in_library;
        self.module.functions.push(func);
        self.module.functions.len() as u32 - 1
    }

    fn ctx(&mut self) -> &mut FnCtx {
        if self.fns.is_empty() {
            self.fns.push(FnCtx::new("<lost>".into(), 0));
        }
        let n = self.fns.len() - 1;
        &mut self.fns[n]
    }

    fn emit(&mut self, op: Op, span: Span) -> usize {
        let f = &mut self.ctx().func;
        f.ops.push(op);
        f.spans.push(span);
        f.ops.len() - 1
    }

    fn here(&mut self) -> u32 {
        self.ctx().func.ops.len() as u32
    }

    /// Point the jump at `at` to `target`.
    fn patch(&mut self, at: usize, target: u32) {
        if let Some(op) = self.ctx().func.ops.get_mut(at) {
            match op {
                Op::Jump(t) | Op::JumpIfFalse(t) => *t = target,
                Op::TestCtor(_, t)
                | Op::TestEq(t)
                | Op::TestLen(_, t)
                | Op::TestMinLen(_, t)
                | Op::BranchLocalInt(_, _, _, t)
                | Op::BranchLocalLocal(_, _, _, t) => *t = target,
                _ => {}
            }
        }
    }

    fn push_scope(&mut self) -> u32 {
        let ctx = self.ctx();
        ctx.scopes.push(Vec::new());
        ctx.next_slot
    }

    fn pop_scope(&mut self, saved: u32) {
        let ctx = self.ctx();
        ctx.scopes.pop();
        ctx.next_slot = saved;
    }

    fn bind(&mut self, name: &str, slot: u32) {
        if let Some(s) = self.ctx().scopes.last_mut() {
            s.push((name.to_string(), slot));
        }
    }

    /// Resolve a value name in the innermost function.
    fn resolve(&mut self, name: &str) -> Option<Slot> {
        let depth = self.fns.len();
        if depth == 0 {
            return self.resolve_top(name);
        }
        self.resolve_in(depth - 1, name)
    }

    fn resolve_in(&mut self, i: usize, name: &str) -> Option<Slot> {
        let ctx = self.fns.get(i)?;
        for scope in ctx.scopes.iter().rev() {
            if let Some((_, s)) = scope.iter().rev().find(|(n, _)| n == name) {
                return Some(Slot::Local(*s));
            }
        }
        if ctx.self_name.as_deref() == Some(name) {
            return Some(Slot::SelfFn);
        }
        if let Some(k) = ctx.captured.iter().position(|n| n == name) {
            return Some(Slot::Capture(k as u32));
        }
        if i == 0 {
            return self.resolve_top(name);
        }
        let from = match self.resolve_in(i - 1, name)? {
            Slot::Local(s) => CaptureFrom::Local(s),
            Slot::Capture(c) => CaptureFrom::Capture(c),
            Slot::SelfFn => CaptureFrom::SelfFn,
            other => return Some(other),
        };
        let ctx = self.fns.get_mut(i)?;
        ctx.captured.push(name.to_string());
        ctx.func.captures.push(from);
        Some(Slot::Capture(ctx.captured.len() as u32 - 1))
    }

    fn resolve_top(&self, name: &str) -> Option<Slot> {
        if self.in_library {
            return None;
        }
        if let Some(g) = self.top_lets.get(name).and_then(|v| {
            v.iter()
                .rev()
                .find(|(p, _)| *p < self.top_position)
                .map(|(_, g)| *g)
        }) {
            return Some(Slot::Global(g));
        }
        self.top_fns
            .get(name)
            .map(|id| Slot::Func(*id))
            .or_else(|| self.session.get(name).copied())
    }

    fn symbol(&mut self, name: &str) -> u32 {
        if let Some(s) = self.symbol_ids.get(name) {
            return *s;
        }
        self.module.symbols.push(name.to_string());
        let id = self.module.symbols.len() as u32 - 1;
        self.symbol_ids.insert(name.to_string(), id);
        id
    }

    /// The shape of a set of field names (sorted by name).
    fn shape(&mut self, names: &[&str]) -> u32 {
        let mut sorted: Vec<&str> = names.to_vec();
        sorted.sort();
        let syms: Vec<u32> = sorted.iter().map(|n| self.symbol(n)).collect();
        if let Some(s) = self.shape_ids.get(&syms) {
            return *s;
        }
        self.module.shapes.push(syms.clone());
        let id = self.module.shapes.len() as u32 - 1;
        self.shape_ids.insert(syms, id);
        id
    }

    fn literal(&mut self, lit: Literal) -> u32 {
        if let Literal::Str(s) = &lit
            && let Some(id) = self.string_ids.get(s)
        {
            return *id;
        }
        self.module.literals.push(lit.clone());
        let id = self.module.literals.len() as u32 - 1;
        if let Literal::Str(s) = lit {
            self.string_ids.insert(s, id);
        }
        id
    }

    /// A function value that applies a constructor to its arguments.
    fn ctor_wrapper(&mut self, ctor: u32, arity: u32, name: &str) -> u32 {
        if let Some(f) = self.ctor_wrappers.get(&ctor) {
            return *f;
        }
        let mut ops: Vec<Op> = (0..arity).map(Op::Local).collect();
        ops.push(Op::Variant(ctor, arity));
        ops.push(Op::Return);
        let spans = vec![Span::new(0, 0); ops.len()];
        self.module.functions.push(Function {
            name: name.to_string(),
            arity,
            locals: arity,
            captures: Vec::new(),
            ops,
            spans,
            library: false,
        });
        let id = self.module.functions.len() as u32 - 1;
        self.ctor_wrappers.insert(ctor, id);
        id
    }

    /// Lower a block; in tail position it returns its value.
    fn block(&mut self, b: &Block, tail: bool) {
        let saved = self.push_scope();
        let n = b.stmts.len();
        let mut valued = false;
        for (i, stmt) in b.stmts.iter().enumerate() {
            let last = i + 1 == n;
            match stmt {
                Stmt::Let(l) => {
                    self.expr(&l.value, false);
                    self.local_pattern(&l.pattern);
                }
                Stmt::Fn(f) => self.local_fn(f),
                Stmt::Expr(e) => {
                    if last {
                        self.expr(e, tail);
                        valued = true;
                    } else {
                        self.expr(e, false);
                        self.emit(Op::Pop, e.span);
                    }
                }
            }
        }
        if !valued {
            self.emit(Op::Unit, b.span);
            if tail {
                self.emit(Op::Return, b.span);
            }
        }
        self.pop_scope(saved);
    }

    /// Bind a local `let`'s pattern (the value is on the stack).
    fn local_pattern(&mut self, pat: &Pattern) {
        if let PatternKind::Bind(name) = &pat.kind {
            let slot = self.ctx().slot();
            self.emit(Op::SetLocal(slot), pat.span);
            self.bind(&name.name, slot);
            return;
        }
        let slot = self.ctx().slot();
        self.emit(Op::SetLocal(slot), pat.span);
        let mut fails = Vec::new();
        self.pattern(pat, slot, &mut fails);
        self.fail_to_no_match(fails, pat.span);
    }

    /// A local named function: a closure bound to its name, which its own
    /// body refers to as itself.
    fn local_fn(&mut self, f: &FnDecl) {
        let Some(body) = &f.body else { return };
        let mut ctx = FnCtx::with_params(self.nested_name(&f.name.name), &f.params);
        ctx.self_name = Some(f.name.name.clone());
        self.fns.push(ctx);
        self.block(body, true);
        let Some(ctx) = self.fns.pop() else { return };
        self.push_function(ctx, f.span);
        let slot = self.ctx().slot();
        self.emit(Op::SetLocal(slot), f.span);
        self.bind(&f.name.name, slot);
    }
}

/// The names a pattern binds, in order.
fn binders(p: &Pattern, out: &mut Vec<String>) {
    match &p.kind {
        PatternKind::Bind(n) => out.push(n.name.clone()),
        PatternKind::Tuple(ps) => ps.iter().for_each(|p| binders(p, out)),
        PatternKind::Ctor { args, .. } => args.iter().for_each(|p| binders(p, out)),
        PatternKind::Record { fields, .. } => {
            for f in fields {
                match &f.pattern {
                    Some(p) => binders(p, out),
                    None => out.push(f.name.name.clone()),
                }
            }
        }
        PatternKind::List { items, rest } => {
            items.iter().for_each(|p| binders(p, out));
            if let Some(n) = rest.as_ref().and_then(|r| r.name.as_ref()) {
                out.push(n.name.clone());
            }
        }
        _ => {}
    }
}
