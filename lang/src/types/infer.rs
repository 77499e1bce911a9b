//! Inference of expressions: the checker's state and its walk over the
//! tree.
//!
//! [`Checker`] holds everything one program's check needs: the type arena,
//! the tables of types and effects, the scopes of values, and the
//! diagnostics. `infer` computes an expression's type; `check` infers and
//! then unifies with an expected type, reporting a mismatch at the
//! expression (and at the place that made the expectation, when known).
//!
//! Invariants: every scope opened is closed on every path (scopes are
//! marks on an undo log); `level` rises by one exactly around the value of
//! a `let` or a function, so that generalisation sees the right variables;
//! an expression whose type could not be found has type `Error` and causes
//! no further diagnostics.

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::ast::{BinOp, Block, Expr, ExprKind, FieldInit, StrPart, UnOp};
use crate::diagnostic::{Code, Diagnostic};
use crate::span::Span;
use crate::types::resolution::Resolved;
use crate::types::ty::{Arena, Classes, Kind, Node, TyId};
use crate::types::typedecl::{TyVars, TypeTable};
use crate::types::{STACK_CHUNK, STACK_RED_ZONE, TypeCon, suggest};

/// The level of the variables of a declared template (never unified).
pub(super) const GENERIC: u32 = u32::MAX;

/// The most type nodes one use of a polymorphic name may copy. A type
/// larger than this (built by doubling it through a chain of functions) is
/// reported rather than built: its size is exponential in the program's.
pub(super) const MAX_INSTANCE_NODES: usize = 50_000;

/// The most diagnostics the type checker reports for one program.
const MAX_DIAGNOSTICS: usize = 100;

/// A polymorphic type: `vars` are replaced by fresh variables at each use.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct Scheme {
    /// The quantified variables (nodes of `ty`).
    pub(crate) vars: Vec<TyId>,
    /// The type.
    pub(crate) ty: TyId,
}

impl Scheme {
    /// A type with nothing quantified.
    pub(super) fn mono(ty: TyId) -> Scheme {
        Scheme {
            vars: Vec::new(),
            ty,
        }
    }
}

/// Interned names (record fields, effect labels, type variable names).
/// Shared between copies (a program's check starts from a copy of the
/// library's) until a copy interns a new name.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(super) struct Interner {
    #[serde(serialize_with = "crate::image::sorted_shared")]
    map: Arc<HashMap<String, u32>>,
    names: Arc<Vec<String>>,
}

impl Interner {
    /// The number for `name`.
    pub(super) fn intern(&mut self, name: &str) -> u32 {
        if let Some(n) = self.map.get(name) {
            return *n;
        }
        self.rebind(name)
    }

    /// Give `name` a new number from now on; the old number still prints
    /// as `name` (a declaration that replaces another in a session).
    pub(super) fn rebind(&mut self, name: &str) -> u32 {
        let n = self.names.len() as u32;
        Arc::make_mut(&mut self.names).push(name.to_string());
        Arc::make_mut(&mut self.map).insert(name.to_string(), n);
        n
    }

    /// The number `name` has now, if it has one.
    pub(super) fn current(&self, name: &str) -> Option<u32> {
        self.map.get(name).copied()
    }

    /// The name numbered `n`.
    pub(super) fn name(&self, n: u32) -> &str {
        self.names
            .get(n as usize)
            .map(String::as_str)
            .unwrap_or("?")
    }
}

/// What a name in scope refers to.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct Binding {
    /// Its type.
    pub(crate) scheme: Scheme,
    /// Where it is defined.
    pub(crate) span: Span,
}

/// Where an expectation came from, for the secondary label of a mismatch.
#[derive(Clone, Debug)]
pub(super) struct Origin {
    /// The place.
    pub(crate) span: Span,
    /// What the label says there.
    pub(crate) why: String,
}

impl Origin {
    /// An origin at `span` saying `why`.
    pub(super) fn new(span: Span, why: impl Into<String>) -> Option<Origin> {
        Some(Origin {
            span,
            why: why.into(),
        })
    }
}

/// Which tier of names a binding was found in ([`Checker::find`]).
#[derive(Clone, Copy)]
enum Tier {
    Local,
    Top,
    Input,
    Session,
}

/// The state of one program's check.
#[derive(Clone, Serialize, Deserialize)]
pub(super) struct Checker {
    /// Every type node.
    pub(crate) arena: Arena,
    /// Named types, constructors and effects (shared between copies until
    /// a copy declares one: `Arc::make_mut` to change them).
    pub(crate) types: Arc<TypeTable>,
    /// Interned labels and names.
    pub(crate) syms: Interner,
    /// What was found.
    #[serde(skip)]
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// How many errors were dropped over the limit.
    pub(crate) dropped: usize,
    /// How many errors were reported (kept or dropped).
    pub(crate) errors: usize,
    /// Current `let` depth.
    pub(crate) level: u32,
    #[serde(serialize_with = "crate::image::sorted")]
    values: HashMap<String, Vec<Binding>>,
    undo: Vec<String>,
    /// Standard-library namespaces: `list` → `map` → its type.
    #[serde(serialize_with = "crate::image::sorted_nested")]
    pub(crate) namespaces: Arc<HashMap<String, HashMap<String, Binding>>>,
    /// Type variables of the enclosing signatures.
    pub(crate) tyvars: TyVars,
    /// Every top-level `let` name with the item positions binding it.
    #[serde(serialize_with = "crate::image::sorted")]
    pub(crate) let_sites: HashMap<String, Vec<(usize, Span)>>,
    /// Local `fn`s of the blocks being checked not declared yet (by
    /// name, at their name): an unknown name that is one of them is
    /// reported with where it is declared.
    #[serde(skip)]
    pub(crate) later_fns: Vec<(String, Span)>,
    /// Top-level `let` bindings inferred so far, by item position.
    #[serde(serialize_with = "crate::image::sorted")]
    pub(crate) top_lets: HashMap<String, Vec<(usize, Binding)>>,
    /// Top-level functions: binding, monomorphic type, item position.
    #[serde(serialize_with = "crate::image::sorted")]
    pub(crate) top_fns: HashMap<String, (Binding, TyId, usize)>,
    /// The item position being inferred (a top-level `let` is visible
    /// only after its position).
    pub(crate) top_position: usize,
    /// The signature type variables of each top-level function.
    #[serde(serialize_with = "crate::image::sorted")]
    pub(crate) fn_tyvars: HashMap<usize, Vec<(String, TyId)>>,
    /// Whether the program (not the standard library) is being checked.
    pub(crate) user_code: bool,
    /// Host capabilities an embedder declared beside the built-in ones.
    pub(crate) extra_hosts: Vec<String>,
    /// Each use of `list.sum` in the program (the span of its `list`),
    /// with its instantiated type (its result is `Int` or `Float`, known
    /// only once inference ends).
    pub(crate) sum_uses: Vec<(Span, TyId)>,
    /// The type variables generalised (quantified in a scheme) since a
    /// use of `list.sum` was seen: a sum over one of them is a sum over
    /// a type each use may choose.
    #[serde(skip)]
    pub(crate) generalized: std::collections::HashSet<TyId>,
    /// What each name inferred so far refers to (handed to lowering).
    pub(crate) resolution: crate::types::resolution::Resolution,
    /// The resolution of each standard-library file's functions, recorded
    /// while the library is loaded.
    #[serde(serialize_with = "crate::image::sorted")]
    pub(crate) library_resolution: HashMap<String, crate::types::resolution::Resolution>,
    /// Record types declared but not translated yet.
    #[serde(skip)]
    pub(crate) pending: HashMap<TypeCon, crate::types::declare::PendingRecord>,
    /// Numeric variables left ambiguous, to default at the end.
    pub(crate) num_vars: Vec<TyId>,
    /// The effect row of the body being inferred (see `effects`).
    pub(crate) cur_row: TyId,
    /// The program's row: the effects of the top-level statements.
    pub(crate) top_row: TyId,
    /// Who owns the current row, for messages.
    pub(crate) row_owner: Option<crate::types::effects::RowOwner>,
    /// Open rows that must end in a signature's row variable once their
    /// body is inferred (see `effects::include`).
    pub(crate) row_waits: Vec<(TyId, TyId, Span)>,
    /// Set for the next body's row only (a lambda given where a function
    /// type is expected): its `row_waits` are settled by the enclosing
    /// body rather than its own.
    #[serde(skip)]
    pub(crate) settle_waits_later: bool,
    /// Where the current row inclusion happens (for a waiting one).
    pub(crate) row_span: Span,
    /// The top-level statement that first brought each effect to the
    /// program's row.
    #[serde(serialize_with = "crate::image::sorted")]
    pub(crate) top_sources: HashMap<String, Span>,
    /// Every operation performed, for the manifest.
    pub(crate) performs: Vec<crate::types::effects::PerformSite>,
    /// The effects handled by the `handle`s around the current expression,
    /// within the current function body.
    pub(crate) handling: Vec<String>,
    /// Signature variables that stand for effect rows.
    #[serde(serialize_with = "crate::image::sorted_set")]
    pub(crate) row_rigids: std::collections::HashSet<TyId>,
    /// Nodes the current instantiation may still copy.
    pub(crate) copy_budget: usize,
    /// Set when an instantiation ran out of budget (reported by the use).
    pub(crate) too_large: bool,
    /// Pairs of structural types unified so far (see `unify`).
    #[serde(skip)]
    pub(crate) unified: std::collections::HashSet<(TyId, TyId)>,
    /// Variables whose binding failed: they become `Error` when the
    /// failure is reported.
    pub(crate) poisoned: Vec<TyId>,
    /// Where the bindings kept monomorphic by the value restriction are
    /// defined (for the note explaining a mismatch through one).
    #[serde(serialize_with = "crate::image::sorted_set")]
    pub(crate) weak: std::collections::HashSet<Span>,
    /// The function whose arguments are being checked, for messages.
    pub(crate) call_context: Option<String>,
    /// The span of the name of the `fn` whose body is being inferred
    /// (`None` at the top level and in a lambda).
    pub(crate) current_fn: Option<Span>,
    /// The clauses without `resume` that fixed the type of their handled
    /// code, for a mismatch at a call of their function
    /// (see [`crate::types::traps`]).
    pub(crate) fixed_by_clause: Vec<crate::types::traps::FixedByClause>,
    /// Position of each top-level function's (first) declaration.
    #[serde(serialize_with = "crate::image::sorted")]
    pub(crate) fn_pos: HashMap<String, usize>,
    /// The type declaration being translated, for messages.
    pub(crate) decl_name: Option<String>,
    /// In a session (the REPL), the top-level values of earlier inputs:
    /// seen after the current input's own top level.
    #[serde(serialize_with = "crate::image::sorted")]
    pub(crate) session: HashMap<String, Binding>,
    /// The inputs the host declared (decision 009): seen after
    /// the program's own top level (which may not reuse their names).
    #[serde(serialize_with = "crate::image::sorted")]
    pub(crate) inputs: HashMap<String, Binding>,
    /// The type of each top-level expression statement, by item position.
    pub(crate) expr_types: Vec<(usize, TyId)>,
    /// Whether running out of the work budget has been reported (see
    /// [`crate::types::budget`]).
    pub(crate) work_reported: bool,
    /// Pairs (type, classes) already required in the current
    /// [`Checker::require`] (a shared part is checked once).
    #[serde(skip)]
    pub(crate) required: std::collections::HashSet<(TyId, u8)>,
    /// The `Error` types standing for values reported as too large (a
    /// type containing one is too large too, but not reported again).
    #[serde(serialize_with = "crate::image::sorted_set")]
    pub(crate) oversized: std::collections::HashSet<TyId>,
}

impl Default for Checker {
    fn default() -> Checker {
        Checker::new()
    }
}

impl Checker {
    /// The table of named types, to change it: copied first while another
    /// checker shares it (the library's, until a program declares a type
    /// or an effect).
    pub(super) fn types_mut(&mut self) -> &mut TypeTable {
        Arc::make_mut(&mut self.types)
    }

    /// A checker with the built-in types and nothing else.
    pub(super) fn new() -> Checker {
        let mut arena = Arena::default();
        let top_row = arena.var(0, Kind::Row);
        Checker {
            cur_row: top_row,
            top_row,
            row_owner: None,
            performs: Vec::new(),
            top_sources: HashMap::new(),
            row_waits: Vec::new(),
            settle_waits_later: false,
            row_span: Span::new(0, 0),
            handling: Vec::new(),
            arena,
            types: Arc::new(TypeTable::new()),
            syms: Interner::default(),
            diagnostics: Vec::new(),
            dropped: 0,
            errors: 0,
            level: 0,
            values: HashMap::new(),
            undo: Vec::new(),
            namespaces: Arc::default(),
            tyvars: TyVars::default(),
            let_sites: HashMap::new(),
            later_fns: Vec::new(),
            top_lets: HashMap::new(),
            top_fns: HashMap::new(),
            top_position: 0,
            fn_tyvars: HashMap::new(),
            user_code: false,
            extra_hosts: Vec::new(),
            sum_uses: Vec::new(),
            generalized: Default::default(),
            resolution: Default::default(),
            library_resolution: HashMap::new(),
            pending: HashMap::new(),
            num_vars: Vec::new(),
            call_context: None,
            current_fn: None,
            fixed_by_clause: Vec::new(),
            weak: std::collections::HashSet::new(),
            poisoned: Vec::new(),
            copy_budget: 0,
            row_rigids: std::collections::HashSet::new(),
            too_large: false,
            unified: std::collections::HashSet::new(),
            fn_pos: HashMap::new(),
            decl_name: None,
            session: HashMap::new(),
            inputs: HashMap::new(),
            expr_types: Vec::new(),
            work_reported: false,
            required: std::collections::HashSet::new(),
            oversized: std::collections::HashSet::new(),
        }
    }

    /// Record a diagnostic (up to the limit).
    pub(super) fn report(&mut self, d: Diagnostic) {
        // Once the budget is spent, walks give neutral answers: what is
        // found after that is not trustworthy, and the budget's own error
        // rejects the program.
        if self.out_of_work() && d.code != Code::CheckBudget {
            return;
        }
        if d.is_error() {
            self.errors += 1;
        }
        if self.diagnostics.len() < MAX_DIAGNOSTICS {
            self.diagnostics.push(d);
        } else {
            self.dropped += 1;
        }
        for v in std::mem::take(&mut self.poisoned) {
            self.arena.set(v, Node::Error);
        }
    }

    /// Whether a diagnostic reported now would be dropped (over the
    /// limit): what it would say need not be worked out.
    pub(super) fn diagnostics_full(&self) -> bool {
        self.diagnostics.len() >= MAX_DIAGNOSTICS
    }

    /// The closest of `candidates` to a misspelt `name` (see
    /// [`suggest::closest`]), charging the comparisons to the work budget:
    /// none when the diagnostic would be dropped or the budget is spent.
    pub(super) fn closest<'a>(
        &self,
        name: &str,
        candidates: impl Iterator<Item = &'a str>,
    ) -> Option<String> {
        if self.diagnostics_full() {
            return None;
        }
        let n = name.len() as u64;
        let affordable: Vec<&str> = candidates
            .take_while(|c| self.charge(1 + n.saturating_mul(c.len() as u64) / 16))
            .collect();
        suggest::closest(name, affordable.into_iter())
    }

    /// How many errors (not warnings) have been found so far; a later
    /// count tells whether something in between was wrong.
    pub(super) fn error_count(&self) -> usize {
        self.errors
    }

    /// A fresh `Error` type.
    pub(super) fn error_ty(&mut self) -> TyId {
        self.arena.add(Node::Error)
    }

    /// A fresh type variable at the current level.
    pub(super) fn fresh(&mut self) -> TyId {
        self.arena.var(self.level, Kind::Type)
    }

    /// A fresh row variable at the current level.
    pub(super) fn fresh_row(&mut self) -> TyId {
        self.arena.var(self.level, Kind::Row)
    }

    /// Report `name` defined twice.
    pub(super) fn duplicate(&mut self, what: &str, name: &str, first: Span, again: Span) {
        self.report(
            Diagnostic::new(
                Code::DuplicateDefinition,
                format!("expected one definition of the {what} `{name}`, found two"),
            )
            .with_primary(again, "defined again here")
            .with_secondary(first, "first defined here")
            .with_help("rename one of them, or remove one of the two"),
        );
    }

    /// The label of each field name, or `None` for a name already given
    /// (reported as a duplicate field, pointing at both).
    pub(super) fn field_labels<'i>(
        &mut self,
        names: impl IntoIterator<Item = &'i crate::ast::Ident>,
    ) -> Vec<Option<u32>> {
        // A map, not a list: a record of 300,000 fields is checked in
        // linear time.
        let mut seen: HashMap<u32, Span> = HashMap::new();
        let mut out = Vec::new();
        for name in names {
            let label = self.syms.intern(&name.name);
            if let Some(&first) = seen.get(&label) {
                self.duplicate("field", &name.name, first, name.span);
                out.push(None);
            } else {
                seen.insert(label, name.span);
                out.push(Some(label));
            }
        }
        out
    }

    // ----- scopes -----

    /// The current scope mark.
    pub(super) fn mark(&self) -> usize {
        self.undo.len()
    }

    /// Close every scope opened since `mark`.
    pub(super) fn pop_to(&mut self, mark: usize) {
        while self.undo.len() > mark {
            if let Some(name) = self.undo.pop()
                && let Some(stack) = self.values.get_mut(&name)
            {
                stack.pop();
            }
        }
    }

    /// Bind `name` in the innermost scope.
    pub(super) fn bind(&mut self, name: &str, binding: Binding) {
        self.values
            .entry(name.to_string())
            .or_default()
            .push(binding);
        self.undo.push(name.to_string());
    }

    /// The innermost binding of `name`.
    pub(super) fn lookup(&self, name: &str) -> Option<&Binding> {
        self.find(name).map(|(b, _)| b)
    }

    /// The binding of `name` where it is used now, and what it refers to
    /// (see [`crate::types::resolution`]): the one lookup that both
    /// types a name and records it for lowering.
    pub(super) fn resolve_name(&self, name: &str) -> Option<(&Binding, Resolved)> {
        let (b, tier) = self.find(name)?;
        let to = match tier {
            Tier::Local => Resolved::Local(b.span),
            Tier::Top => Resolved::Top(b.span),
            Tier::Input => Resolved::Input(name.to_string()),
            Tier::Session => Resolved::Session(name.to_string()),
        };
        Some((b, to))
    }

    /// The innermost binding of `name`, and which tier of names it is in:
    /// a local, then a top-level `let` before the current item (the
    /// latest), then a top-level `fn`, then a declared input, then an
    /// earlier session input's.
    fn find(&self, name: &str) -> Option<(&Binding, Tier)> {
        if let Some(b) = self.values.get(name).and_then(|s| s.last()) {
            return Some((b, Tier::Local));
        }
        if let Some(b) = self.top_lets.get(name).and_then(|v| {
            v.iter()
                .rev()
                .find(|(p, _)| *p < self.top_position)
                .map(|(_, b)| b)
        }) {
            return Some((b, Tier::Top));
        }
        if let Some((b, _, _)) = self.top_fns.get(name) {
            return Some((b, Tier::Top));
        }
        if let Some(b) = self.inputs.get(name) {
            return Some((b, Tier::Input));
        }
        self.session.get(name).map(|b| (b, Tier::Session))
    }

    /// Every value name in scope (for suggestions).
    pub(super) fn names_in_scope(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .values
            .iter()
            .filter(|(_, s)| !s.is_empty())
            .map(|(n, _)| n.clone())
            .chain(self.top_fns.keys().cloned())
            .chain(self.session.keys().cloned())
            .chain(
                self.top_lets
                    .iter()
                    .filter(|(_, v)| v.iter().any(|(p, _)| *p < self.top_position))
                    .map(|(n, _)| n.clone()),
            )
            .collect();
        v.sort();
        v.dedup();
        v
    }

    // ----- expressions -----

    /// Infer `e` and require it to have type `expected`.
    pub(super) fn check(&mut self, e: &Expr, expected: TyId, origin: Option<Origin>) {
        stacker::maybe_grow(STACK_RED_ZONE, STACK_CHUNK, || {
            self.check_inner(e, expected, origin)
        });
        self.report_out_of_work(e.span);
    }

    fn check_inner(&mut self, e: &Expr, expected: TyId, origin: Option<Origin>) {
        // A known expectation goes into branches, arms and a block's last
        // expression, so a mistake is reported where it is made.
        let known = !matches!(self.arena.node(expected), Node::Var { .. } | Node::Error);
        match &e.kind {
            ExprKind::Lambda(l) => {
                let found = self.infer_lambda(l, e.span, Some(expected));
                self.expect(e.span, expected, found, origin);
            }
            ExprKind::If {
                branches,
                otherwise: Some(otherwise),
            } if known => {
                let bool_ty = self.con(TypeCon::BOOL, Vec::new());
                for (cond, block) in branches {
                    self.check(cond, bool_ty, None);
                    self.check_block(block, expected, origin.clone());
                }
                self.check_block(otherwise, expected, origin);
            }
            ExprKind::Match { scrutinee, arms } if known => {
                self.infer_match(e.span, scrutinee, arms, Some((expected, origin)));
            }
            ExprKind::Block(b) if known => self.check_block(b, expected, origin),
            _ => {
                let found = self.infer(e);
                self.expect(e.span, expected, found, origin);
            }
        }
    }

    /// Check a block's value against `expected`.
    pub(super) fn check_block(&mut self, b: &Block, expected: TyId, origin: Option<Origin>) {
        let mark = self.mark();
        let n = b.stmts.len();
        let later = self.expect_local_fns(b);
        for (i, s) in b.stmts.iter().enumerate() {
            self.declaring(s, later);
            match s {
                crate::ast::Stmt::Expr(e) if i + 1 == n => self.check(e, expected, origin.clone()),
                _ => {
                    self.infer_stmt(s);
                }
            }
        }
        if !matches!(b.stmts.last(), Some(crate::ast::Stmt::Expr(_))) {
            let unit = self.con(TypeCon::UNIT, Vec::new());
            self.expect(b.span, expected, unit, origin);
        }
        self.later_fns.truncate(later);
        self.pop_to(mark);
    }

    /// Note the local `fn`s of `b`, not declared yet; the length to cut
    /// [`Checker::later_fns`] back to when the block ends.
    fn expect_local_fns(&mut self, b: &Block) -> usize {
        let base = self.later_fns.len();
        for s in &b.stmts {
            if let crate::ast::Stmt::Fn(f) = s {
                self.later_fns.push((f.name.name.clone(), f.name.span));
            }
        }
        base
    }

    /// A statement of a block is being checked: a local `fn` is declared
    /// from now on.
    fn declaring(&mut self, s: &crate::ast::Stmt, base: usize) {
        if let crate::ast::Stmt::Fn(f) = s
            && let Some(i) = self
                .later_fns
                .iter()
                .skip(base)
                .position(|(_, at)| *at == f.name.span)
        {
            self.later_fns.remove(base + i);
        }
    }

    /// Require `found` (the type of what is at `span`) to be `expected`;
    /// false if it is not (and that was reported).
    pub(super) fn expect(
        &mut self,
        span: Span,
        expected: TyId,
        found: TyId,
        origin: Option<Origin>,
    ) -> bool {
        match self.unify(expected, found) {
            Ok(()) => true,
            Err(m) => {
                self.report_mismatch(span, expected, found, m, origin);
                false
            }
        }
    }

    /// The type of `e`.
    pub(super) fn infer(&mut self, e: &Expr) -> TyId {
        if !self.charge(1) {
            self.report_out_of_work(e.span);
            return self.error_ty();
        }
        let mut t = stacker::maybe_grow(STACK_RED_ZONE, STACK_CHUNK, || self.infer_inner(e));
        self.report_too_large(e.span);
        if matches!(e.kind, ExprKind::Call { .. })
            || matches!(
                e.kind,
                ExprKind::Binary {
                    op: BinOp::Pipe,
                    ..
                }
            )
        {
            t = self.limit_tree_size(t, e.span);
        }
        self.report_out_of_work(e.span);
        t
    }

    /// If a use inside the expression at `span` needed a type larger than
    /// the checker builds, report it (the part not built is `Error`, which
    /// must never let a program through unreported).
    pub(super) fn report_too_large(&mut self, span: Span) {
        if std::mem::take(&mut self.too_large) {
            self.report(
                Diagnostic::new(
                    Code::TooComplex,
                    format!(
                        "expected types of at most {MAX_INSTANCE_NODES} parts, found a larger one here"
                    ),
                )
                .with_primary(span, "this needs a type too large to check")
                .with_help("split the data into smaller declared types, or annotate with smaller types"),
            );
        }
    }

    fn infer_inner(&mut self, e: &Expr) -> TyId {
        match &e.kind {
            ExprKind::Error => self.error_ty(),
            ExprKind::Unit => self.con(TypeCon::UNIT, Vec::new()),
            ExprKind::Bool(_) => self.con(TypeCon::BOOL, Vec::new()),
            ExprKind::Int(_) => self.con(TypeCon::INT, Vec::new()),
            ExprKind::Float(_) => self.con(TypeCon::FLOAT, Vec::new()),
            ExprKind::Str(_) => self.con(TypeCon::STR, Vec::new()),
            ExprKind::Interp(parts) => {
                for p in parts {
                    if let StrPart::Expr(x) = p {
                        let t = self.infer(x);
                        if let Err(m) = self.require(t, Classes::SHOW) {
                            self.report_class(x.span, t, m, "`${...}` interpolation");
                        }
                    }
                }
                self.con(TypeCon::STR, Vec::new())
            }
            ExprKind::Var(name) => self.infer_var(name),
            ExprKind::Ctor(name) => self.infer_ctor(name),
            ExprKind::List(items) => {
                let elem = match items.first() {
                    Some(first) => self.infer(first),
                    None => self.fresh(),
                };
                if let Some(first) = items.first() {
                    for item in items.iter().skip(1) {
                        self.check(
                            item,
                            elem,
                            Origin::new(first.span, "the first element fixes the list's type"),
                        );
                    }
                }
                self.con(TypeCon::LIST, vec![elem])
            }
            ExprKind::Tuple(items) => {
                let ts = items.iter().map(|i| self.infer(i)).collect();
                self.arena.add(Node::Tuple(ts))
            }
            ExprKind::Record(fields) => {
                let row = self.record_fields(fields);
                let empty = self.arena.add(Node::RowEmpty);
                let row = self.extend(&row, empty);
                self.arena.add(Node::Record(row))
            }
            ExprKind::RecordUpdate { base, fields } => self.infer_update(base, fields),
            ExprKind::Field { expr, name } => self.infer_field(e, expr, name),
            ExprKind::Call { callee, args } => self.infer_call(e.span, callee, args, None),
            ExprKind::Perform(p) => self.infer_perform(e.span, p, None),
            ExprKind::Lambda(l) => self.infer_lambda(l, e.span, None),
            ExprKind::Block(b) => self.infer_block(b),
            ExprKind::If {
                branches,
                otherwise,
            } => self.infer_if(branches, otherwise.as_deref()),
            ExprKind::Match { scrutinee, arms } => self.infer_match(e.span, scrutinee, arms, None),
            ExprKind::Handle(h) => self.infer_handle(h),
            ExprKind::Binary { op, lhs, rhs } => self.infer_binary(e.span, *op, lhs, rhs),
            ExprKind::Unary { op, expr } => {
                let t = self.infer(expr);
                match op {
                    UnOp::Not => {
                        let b = self.con(TypeCon::BOOL, Vec::new());
                        self.expect(expr.span, b, t, Origin::new(e.span, "`!` needs a `Bool`"));
                        b
                    }
                    UnOp::Neg => {
                        if let Err(m) = self.require(t, Classes::NUM) {
                            self.report_class(expr.span, t, m, "`-`");
                        }
                        t
                    }
                }
            }
        }
    }

    fn record_fields(&mut self, fields: &[FieldInit]) -> Vec<(u32, TyId)> {
        let labels = self.field_labels(fields.iter().map(|f| &f.name));
        let mut row = Vec::new();
        for (f, label) in fields.iter().zip(labels) {
            let t = self.infer(&f.value);
            if let Some(label) = label {
                row.push((label, t));
            }
        }
        row
    }

    fn infer_update(&mut self, base: &Expr, fields: &[FieldInit]) -> TyId {
        let tb = self.infer(base);
        let row = self.record_fields(fields);
        // What is known not to be a record (a number, a list, an
        // `Option`, a declared variant): said so, at the `..` value.
        let resolved = self.arena.resolve(tb);
        let not_record = match self.arena.node(resolved) {
            Node::Con(c, _) => Some(*c != TypeCon::NEVER),
            Node::Tuple(_) | Node::Fn(..) => Some(true),
            _ => None,
        };
        if not_record == Some(true) {
            let shown = self.show(&[tb]).remove(0);
            let help = if shown.starts_with("Option[") {
                "to update the record in an `Option`, match it, or map it: `option.map(o, fn(r) { { ..r, field: value } })`".to_string()
            } else {
                "`{ ..r, field: value }` is a copy of the record `r` with `field` replaced; only a record can be updated so".to_string()
            };
            self.report(
                Diagnostic::new(
                    Code::TypeMismatch,
                    format!("expected a record after `..`, found `{shown}`"),
                )
                .with_primary(base.span, format!("this is `{shown}`, not a record"))
                .with_help(help),
            );
            return self.error_ty();
        }
        for (label, t) in row {
            let rest = self.fresh_row();
            let want = self.extend(&[(label, t)], rest);
            let want = self.arena.add(Node::Record(want));
            if let Err(m) = self.unify(want, tb) {
                let span = fields
                    .iter()
                    .find(|f| self.syms.intern(&f.name.name) == label)
                    .map(|f| f.value.span)
                    .unwrap_or(base.span);
                self.report_update(span, base.span, label, tb, t, m);
            }
        }
        tb
    }

    /// A block's type; its bindings end with it.
    pub(super) fn infer_block(&mut self, b: &Block) -> TyId {
        let mark = self.mark();
        let mut last = None;
        let later = self.expect_local_fns(b);
        for (i, s) in b.stmts.iter().enumerate() {
            self.declaring(s, later);
            let t = self.infer_stmt(s);
            if i + 1 == b.stmts.len() {
                last = t;
            }
        }
        self.later_fns.truncate(later);
        self.pop_to(mark);
        match last {
            Some(t) => t,
            None => self.con(TypeCon::UNIT, Vec::new()),
        }
    }

    fn infer_if(&mut self, branches: &[(Expr, Block)], otherwise: Option<&Block>) -> TyId {
        let bool_ty = self.con(TypeCon::BOOL, Vec::new());
        let mut result: Option<(TyId, Span)> = None;
        let mut ok = true;
        for (cond, block) in branches {
            self.check(cond, bool_ty, None);
            match result {
                None => {
                    let t = self.infer_block(block);
                    result = Some((t, block_value_span(block)));
                }
                Some((r, first)) => {
                    let before = self.error_count();
                    self.check_block(
                        block,
                        r,
                        Origin::new(first, "the first branch fixes the type of the `if`"),
                    );
                    ok &= self.error_count() == before;
                }
            }
        }
        match (otherwise, result) {
            (Some(block), Some((r, first))) => {
                let before = self.error_count();
                self.check_block(
                    block,
                    r,
                    Origin::new(first, "the first branch fixes the type of the `if`"),
                );
                ok &= self.error_count() == before;
                // A branch of the wrong type was reported: the `if` is not
                // reported again where it is used.
                if ok { r } else { self.error_ty() }
            }
            (None, Some((r, first))) => {
                let unit = self.con(TypeCon::UNIT, Vec::new());
                if let Err(m) = self.unify(unit, r) {
                    self.report_mismatch(first, unit, r, m, None);
                    if let Some(d) = self.diagnostics.last_mut()
                        && d.code == Code::TypeMismatch
                    {
                        d.help = Some(
                            "an `if` without `else` has no value: add an `else` branch of the same type, or, if the value is not needed, drop it with `let _ = ...`".into(),
                        );
                    }
                    // Reported: uses of its value are not reported again.
                    return self.error_ty();
                }
                unit
            }
            (_, None) => self.error_ty(),
        }
    }

    fn infer_binary(&mut self, span: Span, op: BinOp, lhs: &Expr, rhs: &Expr) -> TyId {
        match op {
            BinOp::Pipe => return self.infer_pipe(span, lhs, rhs),
            BinOp::And | BinOp::Or => {
                let b = self.con(TypeCon::BOOL, Vec::new());
                self.check(lhs, b, None);
                self.check(rhs, b, None);
                return b;
            }
            _ => {}
        }
        let classes = match op {
            BinOp::Eq | BinOp::Ne => Classes::EQ,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => Classes::ORD,
            BinOp::Concat => Classes::CONCAT,
            _ => Classes::NUM,
        };
        let t = self.infer(lhs);
        let u = self.infer(rhs);
        let opname = format!("`{}`", op.as_str());
        let yields_operand = classes == Classes::NUM || classes == Classes::CONCAT;
        // An operand already reported: nothing more to say.
        if matches!(self.arena.node(t), Node::Error) || matches!(self.arena.node(u), Node::Error) {
            return if yields_operand {
                self.error_ty()
            } else {
                self.con(TypeCon::BOOL, Vec::new())
            };
        }
        // Each side must support the operator; checking that first blames
        // the side that does not (`map.get(m, k) + 1` blames the lookup).
        for (side, ty, other) in [(lhs, t, u), (rhs, u, t)] {
            if let Err(m) = self.require(ty, classes) {
                self.report_class(side.span, ty, m, &opname);
                let _ = other;
                return if yields_operand {
                    self.error_ty()
                } else {
                    self.con(TypeCon::BOOL, Vec::new())
                };
            }
        }
        if let Err(m) = self.unify(t, u) {
            self.report_mismatch(
                rhs.span,
                t,
                u,
                m,
                Origin::new(
                    lhs.span,
                    format!("both sides of {opname} must have the same type"),
                ),
            );
            return if yields_operand {
                self.error_ty()
            } else {
                self.con(TypeCon::BOOL, Vec::new())
            };
        }
        match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem => {
                if matches!(self.arena.node(t), Node::Var { .. }) {
                    self.num_vars.push(t);
                }
                t
            }
            BinOp::Concat => t,
            _ => self.con(TypeCon::BOOL, Vec::new()),
        }
    }

    fn infer_pipe(&mut self, span: Span, lhs: &Expr, rhs: &Expr) -> TyId {
        match &rhs.kind {
            ExprKind::Call { callee, args } => self.infer_call(span, callee, args, Some(lhs)),
            ExprKind::Perform(p) => self.infer_perform(span, p, Some(lhs)),
            _ => self.infer_call(span, rhs, &[], Some(lhs)),
        }
    }
}

/// The span of a block's value: its last statement, or the block.
pub(super) fn block_value_span(b: &Block) -> Span {
    b.stmts.last().map(|s| s.span()).unwrap_or(b.span)
}

/// Suggestions for an unknown value name.
pub(super) fn suggest_value(c: &Checker, name: &str) -> Option<String> {
    if c.diagnostics_full() {
        return None;
    }
    let names = c.names_in_scope();
    c.closest(name, names.iter().map(String::as_str))
}

impl Checker {
    /// Whether `name` is a host capability (built in, or declared by the
    /// embedder).
    pub(super) fn is_host_capability(&self, name: &str) -> bool {
        crate::types::items::HOST_CAPABILITIES.contains(&name)
            || self.extra_hosts.iter().any(|h| h == name)
    }
}
