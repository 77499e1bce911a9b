//! Lowering: from a checked program (and the standard library) to the core
//! IR of [`crate::code`].
//!
//! Lowering runs only on programs the type checker accepted, and resolves
//! no names: each name is compiled from what the checker recorded it
//! refers to ([`writ_lang::types::Resolution`], decision 007). A binder
//! (a parameter, a pattern's name, a local `fn`, a handler's parameter, a
//! clause's `resume`) is known by the span of its identifier; lowering
//! keeps, per function, which slot holds each binder, and a name is the
//! slot of the binder the checker chose: a local of its frame, a captured
//! value of its closure (captured along the chain of enclosing functions),
//! or, for a top-level `let` or `fn`, a global or a function. Closures
//! capture by value, which is exact because Writ has no mutable variables.
//!
//! Invariants: nothing here panics on an accepted program; an AST node the
//! checker would have rejected, or a name it did not resolve, lowers to an
//! op that stops the run with an internal error
//! ([`crate::code::Op::NoMatch`]), never to a crash or a guess.

mod decision;
mod expr;
mod handlers;
pub(crate) mod image;
mod inline;
mod library;
mod liveness;
mod loops;
mod pattern;
mod peephole;
mod slots;
#[cfg(test)]
pub(crate) mod testing;
mod tidy;

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use writ_lang::Span;
use writ_lang::ast::{Block, FnDecl, Ident, Item, Pattern, PatternKind, Program, Stmt, TypeBody};
use writ_lang::types::{Input, InputType, Resolution, Resolved};

use crate::code::{CaptureFrom, CtorInfo, EffectInfo, Function, Literal, Module, ModuleInput, Op};

/// What a name resolves to.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
enum Slot {
    Local(u32),
    Capture(u32),
    SelfFn,
    Global(u32),
    Func(u32),
    Native(u32),
}

/// Where an expression is, which says where its value goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Position {
    /// Inside something else: its value is left on the operand stack.
    Inner,
    /// In tail position: its value is returned from the function, so a
    /// call there becomes a tail call.
    Tail,
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
    /// The binders (by span) bound in nested scopes, with their slots,
    /// innermost last.
    scopes: Vec<Vec<(Span, u32)>>,
    next_slot: u32,
    /// Captured binders, by capture index.
    captured: Vec<Span>,
    /// The binder of a local function's name, which its body calls
    /// itself by.
    self_binder: Option<Span>,
    resume: ResumeMode,
    /// The binder of the clause's `resume` (a tail-resumptive clause
    /// compiles calls of it in tail position, and binds no slot for it).
    resume_binder: Option<Span>,
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
            self_binder: None,
            resume: ResumeMode::Value,
            resume_binder: None,
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
                scope.push((p.name.span, s));
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

/// The lowering state for one program (or a session of inputs). Its
/// tables of names are shared between copies (each program starts from a
/// copy of the library's) until a copy adds to one.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Lowerer {
    module: Module,
    #[serde(serialize_with = "writ_lang::image::sorted_shared")]
    ctor_ids: Arc<HashMap<String, u32>>,
    #[serde(serialize_with = "writ_lang::image::sorted_shared")]
    effect_ids: Arc<HashMap<String, u32>>,
    /// Operations whose result type is `Never`, by (effect, op).
    never_ops: Vec<(u32, u32)>,
    #[serde(serialize_with = "writ_lang::image::sorted_shared")]
    symbol_ids: Arc<HashMap<String, u32>>,
    #[serde(serialize_with = "writ_lang::image::sorted_shared")]
    shape_ids: Arc<HashMap<Vec<u32>, u32>>,
    #[serde(serialize_with = "writ_lang::image::sorted_shared")]
    string_ids: Arc<HashMap<String, u32>>,
    #[serde(serialize_with = "writ_lang::image::sorted_nested")]
    namespaces: Arc<HashMap<String, HashMap<String, Slot>>>,
    /// The top-level `fn`s and `let` binders of the program (or input)
    /// being lowered, by the span of their name.
    #[serde(serialize_with = "writ_lang::image::sorted")]
    top: HashMap<Span, Slot>,
    /// Whether library code is being lowered.
    in_library: bool,
    #[serde(serialize_with = "writ_lang::image::sorted_shared")]
    ctor_wrappers: Arc<HashMap<u32, u32>>,
    #[serde(skip)]
    fns: Vec<FnCtx>,
    /// What the checker found each name of the code being lowered refers
    /// to.
    #[serde(skip)]
    resolution: Cow<'static, Resolution>,
    /// The native entry of `list.sum` on `Float`s, once registered.
    float_sum_native: Option<u32>,
    /// In a session, the top-level names of earlier inputs, each later
    /// one replacing an earlier one of the same name.
    #[serde(serialize_with = "writ_lang::image::sorted")]
    session: HashMap<String, Slot>,
    /// The global slot of each input the host declared, by name.
    #[serde(serialize_with = "writ_lang::image::sorted")]
    inputs: HashMap<String, Slot>,
}

/// Lower a checked program, with the standard library, to a module.
/// `resolution` is what the type checker found each name to refer to. An
/// error names what could not be lowered (a bug in Writ, not in the
/// program).
pub fn lower(
    program: &Program,
    resolution: &Resolution,
    interfaces: &[String],
    inputs: &[Input],
) -> Result<Module, String> {
    lower_onto(
        Lowerer::library_only(interfaces)?,
        program,
        resolution,
        inputs,
    )
}

/// Lower the program onto `l`, which holds the library. The library's
/// functions were fused and given their moves when it was lowered; the
/// program's are done here.
fn lower_onto(
    mut l: Lowerer,
    program: &Program,
    resolution: &Resolution,
    inputs: &[Input],
) -> Result<Module, String> {
    let first = l.module.functions.len();
    l.inputs(inputs);
    l.resolution = Cow::Owned(resolution.clone());
    l.program(program);
    finish(&mut l.module, first)?;
    Ok(l.module)
}

/// [`lower`], from the standard library with its walks over a list
/// lowered as their Writ text is written rather than as loops
/// ([`loops`]): what the tests compare the loops with.
#[cfg(test)]
pub(crate) fn lower_as_written(
    program: &Program,
    resolution: &Resolution,
) -> Result<Module, String> {
    lower_onto(Lowerer::library_lowered(false)?, program, resolution, &[])
}

/// The passes over lowered code, on the functions from `first` on (those
/// just lowered): fusing op sequences, putting the bodies of trivial
/// functions in place of their calls (and fusing again where that
/// happened), moving values out on their last
/// read (which needs the fused code), then fusing what needs the moves
/// (returns of a local, and list patterns on locals, which fuse only a
/// read that is not the last), and last dropping the ops no path reaches
/// and the jumps that skipped only those. Last of all, a function's tail
/// call of itself by its index becomes `TailCallSelf`, which keeps the
/// frame as it is.
///
/// Then the module's new code is checked ([`Module::verify`]): the error
/// names a function whose code could run past its end (a bug here).
pub(super) fn finish(module: &mut Module, first: usize) -> Result<(), String> {
    let functions = &mut module.functions;
    for f in functions.iter_mut().skip(first) {
        peephole::fuse(f);
    }
    let changed = inline::calls(functions, first);
    for (f, changed) in functions.iter_mut().skip(first).zip(changed) {
        if changed {
            peephole::fuse(f);
        }
    }
    liveness::moves(functions, first);
    for f in functions.iter_mut().skip(first) {
        peephole::fuse_after_moves(f);
        tidy::tidy(f);
    }
    slots::compact(functions, first);
    for (i, f) in functions.iter_mut().enumerate().skip(first) {
        peephole::tail_calls_of_itself(f, i);
    }
    module.verify()
}

impl Lowerer {
    /// Give each declared input a global slot (filled by the host before
    /// the first step, [`crate::inputs`]) and make its records' field
    /// names known symbols.
    fn inputs(&mut self, inputs: &[Input]) {
        for input in inputs {
            let global = self.module.globals;
            self.module.globals += 1;
            self.inputs.insert(input.name.clone(), Slot::Global(global));
            self.symbols_of(&input.ty);
            self.module.inputs.push(ModuleInput {
                name: input.name.clone(),
                ty: input.ty.clone(),
                global,
            });
        }
    }

    /// Make the field names of the records in `ty` known symbols (a host
    /// makes values of the type from JSON: an input's, a capability's
    /// result).
    fn symbols_of(&mut self, ty: &InputType) {
        let mut types = vec![ty];
        while let Some(t) = types.pop() {
            match t {
                InputType::List(t) | InputType::Map(t) | InputType::Option(t) => types.push(t),
                InputType::Tuple(ts) => types.extend(ts),
                InputType::Record(fields) => {
                    for (name, t) in fields {
                        self.symbol(name);
                        types.push(t);
                    }
                }
                InputType::Int
                | InputType::Float
                | InputType::Str
                | InputType::Bool
                | InputType::Unit => {}
            }
        }
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
    pub(crate) fn input(&mut self, program: &Program, resolution: &Resolution) -> u32 {
        let first = self.module.functions.len();
        self.resolution = Cow::Owned(resolution.clone());
        self.top.clear();
        self.program(program);
        // The input's names join the session's, a later `let` of a name
        // replacing an earlier one (as the checker's session does).
        for item in &program.items {
            let mut names = Vec::new();
            match item {
                Item::Fn(f) => names.push(&f.name),
                Item::Stmt(Stmt::Let(l)) => binders(&l.pattern, &mut names),
                _ => {}
            }
            for n in names {
                if let Some(slot) = self.top.get(&n.span) {
                    self.session.insert(n.name.clone(), *slot);
                }
            }
        }
        self.top.clear();
        self.resolution = Cow::Owned(Resolution::default());
        // Code that fails its check (a bug in lowering) leaves the module
        // unchecked, and the machine refuses to run it.
        let _ = finish(&mut self.module, first);
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
                                siblings: vs.len() as u32,
                            });
                            let id = self.module.ctors.len() as u32 - 1;
                            Arc::make_mut(&mut self.ctor_ids).insert(v.name.name.clone(), id);
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
                    Arc::make_mut(&mut self.effect_ids).insert(e.name.name.clone(), id);
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
        for item in &program.items {
            match item {
                Item::Fn(f) => {
                    let id = self.reserve_fn(&f.name.name, f.params.len());
                    self.top.insert(f.name.span, Slot::Func(id));
                }
                Item::Stmt(Stmt::Let(l)) => {
                    let mut names = Vec::new();
                    binders(&l.pattern, &mut names);
                    for n in names {
                        let g = self.module.globals;
                        self.module.globals += 1;
                        self.top.insert(n.span, Slot::Global(g));
                    }
                }
                _ => {}
            }
        }
        for item in &program.items {
            if let Item::Fn(f) = item
                && let Some(&Slot::Func(id)) = self.top.get(&f.name.span)
            {
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
        for (n, (_, stmt)) in stmts.into_iter().enumerate() {
            let is_last = n + 1 == last;
            match stmt {
                Stmt::Let(l) => {
                    self.expr(&l.value, Position::Inner);
                    self.let_pattern(&l.pattern);
                    if is_last {
                        self.emit(Op::Unit, l.span);
                    }
                }
                Stmt::Expr(e) => {
                    self.expr(e, Position::Inner);
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
        if let Some(ctx) = self.fns.pop() {
            self.finish(ctx, main);
        }
        self.module.main = main;
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
        self.block(body, Position::Tail);
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

    /// Point every jump in `jumps` at the next op to be emitted.
    fn patch_here(&mut self, jumps: impl IntoIterator<Item = usize>) {
        let here = self.here();
        for j in jumps {
            self.patch(j, here);
        }
    }

    /// Point the jump at `at` to `target`.
    fn patch(&mut self, at: usize, target: u32) {
        if let Some(t) = self.ctx().func.ops.get_mut(at).and_then(Op::target_mut) {
            *t = target;
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

    /// Record that `binder` is held in `slot` (in the innermost scope).
    fn bind(&mut self, binder: Span, slot: u32) {
        if let Some(s) = self.ctx().scopes.last_mut() {
            s.push((binder, slot));
        }
    }

    /// What the checker resolved the name whose identifier is at `at` to.
    fn resolved(&self, at: Span) -> Option<&Resolved> {
        self.resolution.get(at)
    }

    /// The slot of the value the name `name` refers to (by the checker's
    /// resolution), seen from the innermost function; `None` for a name
    /// the checker did not resolve to a value.
    fn slot_of(&mut self, name: &Ident) -> Option<Slot> {
        match self.resolved(name.span)?.clone() {
            Resolved::Local(binder) => {
                let depth = self.fns.len();
                self.local_in(depth.checked_sub(1)?, binder)
            }
            Resolved::Top(binder) => self.top.get(&binder).copied(),
            Resolved::Session(name) => self.session.get(&name).copied(),
            Resolved::Input(name) => self.inputs.get(&name).copied(),
            Resolved::Member { .. } => None,
        }
    }

    /// Where function `i` finds the local `binder`: a slot of its own, or
    /// a capture (added along the chain of enclosing functions).
    fn local_in(&mut self, i: usize, binder: Span) -> Option<Slot> {
        let ctx = self.fns.get(i)?;
        for scope in ctx.scopes.iter().rev() {
            if let Some((_, s)) = scope.iter().rev().find(|(b, _)| *b == binder) {
                return Some(Slot::Local(*s));
            }
        }
        if ctx.self_binder == Some(binder) {
            return Some(Slot::SelfFn);
        }
        if let Some(k) = ctx.captured.iter().position(|b| *b == binder) {
            return Some(Slot::Capture(k as u32));
        }
        let from = match self.local_in(i.checked_sub(1)?, binder)? {
            Slot::Local(s) => CaptureFrom::Local(s),
            Slot::Capture(c) => CaptureFrom::Capture(c),
            Slot::SelfFn => CaptureFrom::SelfFn,
            other => return Some(other),
        };
        let ctx = self.fns.get_mut(i)?;
        ctx.captured.push(binder);
        ctx.func.captures.push(from);
        Some(Slot::Capture(ctx.captured.len() as u32 - 1))
    }

    fn symbol(&mut self, name: &str) -> u32 {
        if let Some(s) = self.symbol_ids.get(name) {
            return *s;
        }
        self.module.symbols.push(name.to_string());
        let id = self.module.symbols.len() as u32 - 1;
        Arc::make_mut(&mut self.symbol_ids).insert(name.to_string(), id);
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
        Arc::make_mut(&mut self.shape_ids).insert(syms, id);
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
            Arc::make_mut(&mut self.string_ids).insert(s, id);
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
        Arc::make_mut(&mut self.ctor_wrappers).insert(ctor, id);
        id
    }

    /// Lower a block; in tail position it returns its value.
    fn block(&mut self, b: &Block, at: Position) {
        let saved = self.push_scope();
        let n = b.stmts.len();
        let mut valued = false;
        for (i, stmt) in b.stmts.iter().enumerate() {
            let last = i + 1 == n;
            match stmt {
                Stmt::Let(l) => {
                    // `let (i, j) = st` takes a variable of the frame apart
                    // in its own slot.
                    let own = match &l.pattern.kind {
                        PatternKind::Bind(_) => None,
                        _ => self.own_local(&l.value),
                    };
                    match own {
                        Some(slot) => self.pattern_in(&l.pattern, slot),
                        None => {
                            self.expr(&l.value, Position::Inner);
                            self.local_pattern(&l.pattern);
                        }
                    }
                }
                Stmt::Fn(f) => self.local_fn(f),
                Stmt::Expr(e) => {
                    if last {
                        self.expr(e, at);
                        valued = true;
                    } else {
                        self.expr(e, Position::Inner);
                        self.emit(Op::Pop, e.span);
                    }
                }
            }
        }
        if !valued {
            self.emit(Op::Unit, b.span);
            if at == Position::Tail {
                self.emit(Op::Return, b.span);
            }
        }
        self.pop_scope(saved);
    }

    /// A local named function: a closure bound to its name, which its own
    /// body refers to as itself.
    fn local_fn(&mut self, f: &FnDecl) {
        let Some(body) = &f.body else { return };
        let mut ctx = FnCtx::with_params(self.nested_name(&f.name.name), &f.params);
        ctx.self_binder = Some(f.name.span);
        self.fns.push(ctx);
        self.block(body, Position::Tail);
        let Some(ctx) = self.fns.pop() else { return };
        self.push_function(ctx, f.span);
        let slot = self.ctx().slot();
        self.emit(Op::SetLocal(slot), f.span);
        self.bind(f.name.span, slot);
    }
}

/// The identifiers a pattern binds, in order.
fn binders<'a>(p: &'a Pattern, out: &mut Vec<&'a Ident>) {
    match &p.kind {
        PatternKind::Bind(n) => out.push(n),
        PatternKind::Tuple(ps) => ps.iter().for_each(|p| binders(p, out)),
        PatternKind::Ctor { args, .. } => args.iter().for_each(|p| binders(p, out)),
        PatternKind::Record { fields, .. } => {
            for f in fields {
                match &f.pattern {
                    Some(p) => binders(p, out),
                    None => out.push(&f.name),
                }
            }
        }
        PatternKind::List { items, rest } => {
            items.iter().for_each(|p| binders(p, out));
            if let Some(n) = rest.as_ref().and_then(|r| r.name.as_ref()) {
                out.push(n);
            }
        }
        _ => {}
    }
}
