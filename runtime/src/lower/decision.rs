//! Compiling `match` to a decision tree (Maranget, "Compiling pattern
//! matching to good decision trees", 2008).
//!
//! The arms form a matrix: one row per arm, one column per part of the
//! scrutinee still to examine (each held in a local slot). If the first
//! row has only variables and wildcards, its arm is chosen (after its
//! guard, which on failure goes on with the rows below). Otherwise the
//! first column where the first row has a pattern is tested once: for
//! each constructor (or literal) appearing in it, the rows that allow it
//! are specialised, its fields becoming new columns; the rows with a
//! wildcard there form the default. Tuples and records have one
//! constructor: their parts become columns without a test. So along any
//! path each part of the value is tested at most once.
//!
//! Each arm's body is lowered once; the leaves that choose it copy the
//! values its variables name into the arm's slots and jump to it. An arm
//! chosen by a single leaf without a guard binds its variables where the
//! leaf found them instead (its copies are jumped over).
//!
//! Lists are split by length: a branch for each length a pattern without
//! `..rest` has (`[a, b]`: exactly 2), then one for each "at least"
//! threshold of the patterns with `..rest` (`[a, ..rest]`: 1 or more),
//! largest first. The `rest` of a pattern is loaded in the branches where
//! its pattern applies.
//!
//! A match whose tree would grow past [`BUDGET`] ops, or whose matrix
//! work (the cells of the rows examined and copied while building it)
//! would pass [`WORK`], is instead lowered arm by arm
//! ([`super::pattern`]): a tree can be exponentially larger than the arms
//! in rare cases, and each test re-examines the rows below it, so a match
//! of many arms (200,000 literals) would cost arms times tests to build.

use std::collections::{HashMap, HashSet};

use writ_lang::Span;
use writ_lang::ast::{Arm, Pattern, PatternKind};

use super::{Lowerer, Position, binders};
use crate::code::{Literal, Op};

/// The most ops a decision tree may take before the match is lowered arm
/// by arm instead.
const BUDGET: usize = 4096;

/// The most matrix cells (see [`Limit::spend`]) building a decision tree
/// may examine or copy before the match is lowered arm by arm instead.
/// Building the tree of a match of a few hundred arms takes far less.
const WORK: usize = 1 << 20;

/// What building one decision tree may still spend.
struct Limit {
    /// The op index the code may not pass ([`BUDGET`] past the start).
    ops_end: usize,
    /// Matrix cells still to spend (from [`WORK`]).
    work: usize,
    /// Matrix cells spent so far, counted for tests of the work done.
    #[cfg(test)]
    spent: usize,
}

#[cfg(test)]
thread_local! {
    /// Matrix cells spent building decision trees on this thread.
    static SPENT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl Limit {
    /// Charge for examining or copying `rows`: a unit per row and per
    /// cell and binding it holds. `false` once the work passes [`WORK`].
    fn spend(&mut self, rows: &[Row]) -> bool {
        let cost: usize = rows.iter().map(|r| 1 + r.cells.len() + r.bound.len()).sum();
        #[cfg(test)]
        {
            self.spent = self.spent.saturating_add(cost);
        }
        match self.work.checked_sub(cost) {
            Some(left) => {
                self.work = left;
                true
            }
            None => false,
        }
    }
}

/// The slot of a part no row examines: never read (an op that did read it
/// would stop the run with an internal error, not read a wrong value).
const UNREAD: u32 = u32::MAX;

/// One cell of the matrix.
#[derive(Clone, Copy)]
enum Cell<'a> {
    /// Matches anything, binds nothing.
    Wild,
    /// Matches anything, binds the name (the span of its binder).
    Bind(Span),
    /// A pattern to test or take apart.
    Pat(&'a Pattern),
}

/// One row: an arm's remaining cells, and the names bound so far with
/// the slots holding their values.
#[derive(Clone)]
struct Row<'a> {
    cells: Vec<Cell<'a>>,
    arm: usize,
    bound: Vec<(Span, u32)>,
}

/// A leaf of the tree: the jump to its arm's body, and, for a leaf without
/// a guard, where its copies of the arm's variables are and where they
/// come from (so that an arm with a single leaf can bind them in place).
struct Leaf {
    jump: usize,
    arm: usize,
    copies: Option<Copies>,
}

/// The ops that copy a leaf's values into its arm's slots.
struct Copies {
    at: usize,
    len: usize,
    from: Vec<(Span, u32)>,
}

/// What a column's first pattern asks for.
enum Split {
    /// A constructor test: the constructors in first-appearance order.
    Ctors(Vec<u32>),
    /// A literal test: the literals in first-appearance order.
    Literals(Vec<Lit>),
    /// A tuple of this many parts (no test).
    Tuple(usize),
    /// A record with these fields (no test).
    Record(Vec<String>),
    /// A list: the lengths of the patterns without `..rest` (ascending),
    /// and the numbers of elements before a `..rest` (descending).
    List { exact: Vec<usize>, mins: Vec<usize> },
}

/// A literal pattern's value.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Lit {
    Int(i64),
    Float(u64),
    Str(String),
    Bool(bool),
}

fn lit_of(p: &Pattern) -> Option<Lit> {
    Some(match &p.kind {
        PatternKind::Int(n) => Lit::Int(*n),
        PatternKind::Float(x) => Lit::Float(x.to_bits()),
        PatternKind::Str(s) => Lit::Str(s.clone()),
        PatternKind::Bool(b) => Lit::Bool(*b),
        _ => return None,
    })
}

/// A cell as it stands for matching: variables and wildcards normalised.
fn view(cell: Cell<'_>) -> Cell<'_> {
    match cell {
        Cell::Pat(p) => match &p.kind {
            PatternKind::Wildcard | PatternKind::Unit | PatternKind::Error => Cell::Wild,
            PatternKind::Bind(n) => Cell::Bind(n.span),
            _ => cell,
        },
        other => other,
    }
}

impl Lowerer {
    /// Lower `match` arms as a decision tree over the value in `slot`;
    /// `false` (with nothing emitted) if the match should be lowered arm by
    /// arm instead.
    pub(super) fn match_tree(&mut self, slot: u32, arms: &[Arm], at: Position) -> bool {
        let start = self.here() as usize;
        let saved = self.push_scope();
        // Each arm's variables get slots of their own, filled at the leaves.
        let arm_slots: Vec<HashMap<Span, u32>> = arms
            .iter()
            .map(|a| {
                let mut names = Vec::new();
                binders(&a.pattern, &mut names);
                names
                    .into_iter()
                    .map(|n| (n.span, self.ctx().slot()))
                    .collect()
            })
            .collect();
        let rows: Vec<Row> = arms
            .iter()
            .enumerate()
            .map(|(i, a)| Row {
                cells: vec![Cell::Pat(&a.pattern)],
                arm: i,
                bound: Vec::new(),
            })
            .collect();
        let mut leaves: Vec<Leaf> = Vec::new();
        let mut limit = Limit {
            ops_end: start + BUDGET,
            work: WORK,
            #[cfg(test)]
            spent: 0,
        };
        let ok = self.tree(rows, vec![slot], arms, &arm_slots, &mut leaves, &mut limit);
        #[cfg(test)]
        SPENT.with(|s| s.set(s.get().saturating_add(limit.spent)));
        if !ok {
            self.abandon(start);
            self.pop_scope(saved);
            return false;
        }
        // An arm reached by a single leaf without a guard binds its
        // variables where the leaf found them: the copies are jumped over.
        // (Leaves are counted per arm first: searching them for each arm
        // took arms times leaves.)
        let mut count = vec![0usize; arms.len()];
        for leaf in &leaves {
            if let Some(n) = count.get_mut(leaf.arm) {
                *n += 1;
            }
        }
        let mut in_place: Vec<Option<Vec<(Span, u32)>>> = vec![None; arms.len()];
        for leaf in &leaves {
            if count.get(leaf.arm) == Some(&1)
                && let Some(slot) = in_place.get_mut(leaf.arm)
                && let Some(c) = &leaf.copies
            {
                if c.len > 0 {
                    let past = (c.at + c.len) as u32;
                    let f = &mut self.ctx().func;
                    if let Some(op) = f.ops.get_mut(c.at) {
                        *op = Op::Jump(past);
                    }
                }
                *slot = Some(c.from.clone());
            }
        }
        // The bodies, each once.
        let mut ends = Vec::new();
        let mut body_at = vec![0u32; arms.len()];
        for (i, arm) in arms.iter().enumerate() {
            body_at[i] = self.here();
            let inner = self.push_scope();
            match in_place.get(i) {
                Some(Some(from)) => {
                    for (n, s) in from {
                        self.bind(*n, *s);
                    }
                }
                _ => {
                    if let Some(names) = arm_slots.get(i) {
                        for (n, s) in names {
                            self.bind(*n, *s);
                        }
                    }
                }
            }
            self.expr(&arm.body, at);
            if at == Position::Inner {
                ends.push(self.emit(Op::Jump(0), arm.span));
            }
            self.pop_scope(inner);
        }
        for leaf in leaves {
            let target = body_at.get(leaf.arm).copied().unwrap_or(0);
            self.patch(leaf.jump, target);
            // A jump over in-place copies goes straight to the body.
            if let Some(c) = &leaf.copies
                && c.len > 0
                && in_place.get(leaf.arm).is_some_and(Option::is_some)
            {
                self.patch(c.at, target);
            }
        }
        self.patch_here(ends);
        self.pop_scope(saved);
        true
    }

    /// Drop the code emitted since `start` (a tree over budget).
    fn abandon(&mut self, start: usize) {
        let f = &mut self.ctx().func;
        f.ops.truncate(start);
        f.spans.truncate(start);
    }

    /// Lower the decision tree of `rows` over the values in `cols`. Leaves
    /// jump to their arm's body: each such jump is pushed on `leaves` with
    /// its arm. `false` when the code or the work passes `limit`.
    fn tree<'a>(
        &mut self,
        mut rows: Vec<Row<'a>>,
        cols: Vec<u32>,
        arms: &'a [Arm],
        arm_slots: &[HashMap<Span, u32>],
        leaves: &mut Vec<Leaf>,
        limit: &mut Limit,
    ) -> bool {
        if self.here() as usize > limit.ops_end || !limit.spend(&rows) {
            return false;
        }
        // Variables are recorded and become wildcards.
        for row in &mut rows {
            for (cell, col) in row.cells.iter_mut().zip(&cols) {
                match view(*cell) {
                    Cell::Bind(n) => {
                        row.bound.push((n, *col));
                        *cell = Cell::Wild;
                    }
                    Cell::Wild => *cell = Cell::Wild,
                    Cell::Pat(_) => {}
                }
            }
        }
        let Some(first) = rows.first() else {
            self.emit(Op::NoMatch, Span::default());
            return true;
        };
        let Some(c) = first.cells.iter().position(|c| matches!(c, Cell::Pat(_))) else {
            return self.leaf(rows, cols, arms, arm_slots, leaves, limit);
        };
        let Some(split) = self.split(&rows, c) else {
            return false;
        };
        let col = cols.get(c).copied().unwrap_or(0);
        match split {
            Split::Tuple(n) => {
                let parts: Vec<u32> = (0..n).map(|i| self.load(col, Op::Part(i as u32))).collect();
                let rows = specialise(&rows, c, n, |p| match &p.kind {
                    PatternKind::Tuple(ps) => Some(ps.iter().map(Cell::Pat).collect()),
                    _ => None,
                });
                self.tree(
                    rows,
                    splice(&cols, c, parts),
                    arms,
                    arm_slots,
                    leaves,
                    limit,
                )
            }
            Split::Record(names) => {
                let parts: Vec<u32> = names
                    .iter()
                    .map(|n| {
                        let sym = self.symbol(n);
                        self.load(col, Op::Field(sym))
                    })
                    .collect();
                let rows = specialise(&rows, c, names.len(), |p| match &p.kind {
                    PatternKind::Record { fields, .. } => Some(
                        names
                            .iter()
                            .map(|n| match fields.iter().find(|f| f.name.name == *n) {
                                Some(f) => match &f.pattern {
                                    Some(p) => Cell::Pat(p),
                                    None => Cell::Bind(f.name.span),
                                },
                                None => Cell::Wild,
                            })
                            .collect(),
                    ),
                    _ => None,
                });
                self.tree(
                    rows,
                    splice(&cols, c, parts),
                    arms,
                    arm_slots,
                    leaves,
                    limit,
                )
            }
            Split::Ctors(ctors) => {
                // A column naming every constructor of its type (a
                // complete signature) needs no test of the last one: a
                // value that is none of the others is that one, and no
                // value is left for the default rows.
                let complete = ctors
                    .first()
                    .and_then(|k| self.module.ctors.get(*k as usize))
                    .is_some_and(|i| i.siblings as usize == ctors.len());
                let last = ctors.len().saturating_sub(1);
                for (i, k) in ctors.into_iter().enumerate() {
                    let arity = self.module.ctors.get(k as usize).map_or(0, |i| i.arity) as usize;
                    let test = if complete && i == last {
                        None
                    } else {
                        self.emit(Op::Local(col), Span::default());
                        Some(self.emit(Op::TestCtor(k, 0), Span::default()))
                    };
                    if !limit.spend(&rows) {
                        return false;
                    }
                    let ctor_ids = &self.ctor_ids;
                    let rows = specialise(&rows, c, arity, |p| match &p.kind {
                        PatternKind::Ctor { name, args }
                            if ctor_ids.get(&name.name) == Some(&k) =>
                        {
                            Some(args.iter().map(Cell::Pat).collect())
                        }
                        _ => None,
                    });
                    let parts = self.load_needed(col, &rows, c, arity, Op::Part);
                    if !self.tree(
                        rows,
                        splice(&cols, c, parts),
                        arms,
                        arm_slots,
                        leaves,
                        limit,
                    ) {
                        return false;
                    }
                    if let Some(test) = test {
                        self.patch_here([test]);
                    }
                }
                if complete {
                    return true;
                }
                self.tree(
                    default(&rows, c),
                    remove(&cols, c),
                    arms,
                    arm_slots,
                    leaves,
                    limit,
                )
            }
            Split::List { exact, mins } => {
                // Exact lengths first, then "at least" thresholds from the
                // largest down, so a threshold branch sees only lengths no
                // exact pattern has and no larger threshold took.
                // The last threshold always holds when every length below
                // it has an exact pattern (`[]` and `[x, ..rest]`), or it
                // is 0 (`[..rest]`): it is not tested, and no list is left
                // for the default rows.
                let complete = mins
                    .last()
                    .is_some_and(|m| (0..*m).all(|n| exact.contains(&n)));
                let last = (exact.len() + mins.len()).saturating_sub(1);
                let tests = exact
                    .iter()
                    .map(|n| (*n, true))
                    .chain(mins.iter().map(|m| (*m, false)));
                for (i, (n, is_exact)) in tests.enumerate() {
                    let test = if complete && i == last {
                        None
                    } else {
                        self.emit(Op::Local(col), Span::default());
                        let op = if is_exact {
                            Op::TestLen(n as u32, 0)
                        } else {
                            Op::TestMinLen(n as u32, 0)
                        };
                        Some(self.emit(op, Span::default()))
                    };
                    if !limit.spend(&rows) {
                        return false;
                    }
                    let rests = self.rests(&rows, c, n);
                    let rows = specialise_list(&rows, c, n, is_exact.then_some(n), &rests);
                    let parts = self.load_needed(col, &rows, c, n, Op::Item);
                    // The rests are loaded after the elements, so that the
                    // last of them can take the list (`MoveLocal`, see
                    // `lower::liveness`) and a view nothing else holds
                    // moves on in place rather than making another.
                    for &(skip, slot) in &rests {
                        self.emit(Op::Local(col), Span::default());
                        self.emit(Op::DropItems(skip as u32), Span::default());
                        self.emit(Op::SetLocal(slot), Span::default());
                    }
                    if !self.tree(
                        rows,
                        splice(&cols, c, parts),
                        arms,
                        arm_slots,
                        leaves,
                        limit,
                    ) {
                        return false;
                    }
                    if let Some(test) = test {
                        self.patch_here([test]);
                    }
                }
                if complete {
                    return true;
                }
                self.tree(
                    default(&rows, c),
                    remove(&cols, c),
                    arms,
                    arm_slots,
                    leaves,
                    limit,
                )
            }
            Split::Literals(lits) => {
                for lit in lits {
                    if !limit.spend(&rows) {
                        return false;
                    }
                    self.emit(Op::Local(col), Span::default());
                    self.push_lit(&lit);
                    let test = self.emit(Op::TestEq(0), Span::default());
                    let rows = specialise(&rows, c, 0, |p| {
                        (lit_of(p).as_ref() == Some(&lit)).then(Vec::new)
                    });
                    if !self.tree(rows, remove(&cols, c), arms, arm_slots, leaves, limit) {
                        return false;
                    }
                    self.patch_here([test]);
                }
                self.tree(
                    default(&rows, c),
                    remove(&cols, c),
                    arms,
                    arm_slots,
                    leaves,
                    limit,
                )
            }
        }
    }

    /// The first row matches: bind its variables into its arm's slots,
    /// check its guard (going on with the other rows if it fails), and
    /// jump to its body.
    fn leaf<'a>(
        &mut self,
        rows: Vec<Row<'a>>,
        cols: Vec<u32>,
        arms: &'a [Arm],
        arm_slots: &[HashMap<Span, u32>],
        leaves: &mut Vec<Leaf>,
        limit: &mut Limit,
    ) -> bool {
        let mut rows = rows;
        let first = rows.remove(0);
        let slots = arm_slots.get(first.arm).cloned().unwrap_or_default();
        let at = self.here() as usize;
        let mut from = Vec::new();
        for (name, src) in &first.bound {
            if let Some(to) = slots.get(name) {
                self.emit(Op::Local(*src), Span::default());
                self.emit(Op::SetLocal(*to), Span::default());
                from.push((*name, *src));
            }
        }
        let len = self.here() as usize - at;
        let guard = arms.get(first.arm).and_then(|a| a.guard.as_ref());
        match guard {
            None => {
                let j = self.emit(Op::Jump(0), Span::default());
                leaves.push(Leaf {
                    jump: j,
                    arm: first.arm,
                    copies: Some(Copies { at, len, from }),
                });
                true
            }
            Some(g) => {
                let scope = self.push_scope();
                for (n, s) in &slots {
                    self.bind(*n, *s);
                }
                let mut fails = Vec::new();
                self.branch(g, false, &mut fails);
                self.pop_scope(scope);
                let j = self.emit(Op::Jump(0), g.span);
                leaves.push(Leaf {
                    jump: j,
                    arm: first.arm,
                    copies: None,
                });
                self.patch_here(fails);
                self.tree(rows, cols, arms, arm_slots, leaves, limit)
            }
        }
    }

    /// What column `c` asks for, from the patterns in it.
    fn split(&self, rows: &[Row], c: usize) -> Option<Split> {
        // The distinct constructors and literals, in first-appearance
        // order (the sets make a column of many literals linear).
        let mut ctors = Vec::new();
        let mut ctor_seen = HashSet::new();
        let mut lits = Vec::new();
        let mut lit_seen = HashSet::new();
        let mut tuple = None;
        let mut record: Vec<String> = Vec::new();
        let mut is_record = false;
        let mut list: Option<(Vec<usize>, Vec<usize>)> = None;
        for row in rows {
            let Some(Cell::Pat(p)) = row.cells.get(c) else {
                continue;
            };
            match &p.kind {
                PatternKind::Ctor { name, .. } => {
                    let k = *self.ctor_ids.get(&name.name)?;
                    if ctor_seen.insert(k) {
                        ctors.push(k);
                    }
                }
                PatternKind::Tuple(ps) => tuple = Some(ps.len()),
                PatternKind::List { items, rest } => {
                    let (exact, mins) = list.get_or_insert_with(Default::default);
                    let lengths = if rest.is_some() { mins } else { exact };
                    if !lengths.contains(&items.len()) {
                        lengths.push(items.len());
                    }
                }
                PatternKind::Record { fields, .. } => {
                    is_record = true;
                    for f in fields {
                        if !record.contains(&f.name.name) {
                            record.push(f.name.name.clone());
                        }
                    }
                }
                _ => {
                    let l = lit_of(p)?;
                    if !lit_seen.contains(&l) {
                        lit_seen.insert(l.clone());
                        lits.push(l);
                    }
                }
            }
        }
        if is_record {
            record.sort();
            return Some(Split::Record(record));
        }
        if let Some(n) = tuple {
            return Some(Split::Tuple(n));
        }
        if let Some((mut exact, mut mins)) = list {
            exact.sort_unstable();
            mins.sort_unstable_by(|a, b| b.cmp(a));
            return Some(Split::List { exact, mins });
        }
        if !ctors.is_empty() {
            return Some(Split::Ctors(ctors));
        }
        (!lits.is_empty()).then_some(Split::Literals(lits))
    }

    /// For the `..rest` patterns in column `c` that apply to lists of at
    /// least `len` elements and name their rest: a fresh slot for each
    /// such rest (by how many elements it skips), which the caller loads.
    fn rests(&mut self, rows: &[Row], c: usize, len: usize) -> Vec<(usize, u32)> {
        let mut out: Vec<(usize, u32)> = Vec::new();
        for row in rows {
            if let Some(Cell::Pat(p)) = row.cells.get(c)
                && let PatternKind::List {
                    items,
                    rest: Some(r),
                } = &p.kind
                && r.name.is_some()
                && items.len() <= len
                && !out.iter().any(|(m, _)| *m == items.len())
            {
                let slot = self.ctx().slot();
                out.push((items.len(), slot));
            }
        }
        out
    }

    /// Load the `n` parts (`part(i)`) of the value in `col` that a row of
    /// `rows` (already specialised, the parts at columns `c..c + n`)
    /// examines or binds; a part nobody looks at is not loaded, and its
    /// column gets a slot no op reads.
    fn load_needed(
        &mut self,
        col: u32,
        rows: &[Row],
        c: usize,
        n: usize,
        part: impl Fn(u32) -> Op,
    ) -> Vec<u32> {
        (0..n)
            .map(|i| {
                let needed = rows
                    .iter()
                    .any(|r| !matches!(r.cells.get(c + i).copied().map(view), Some(Cell::Wild)));
                if needed {
                    self.load(col, part(i as u32))
                } else {
                    UNREAD
                }
            })
            .collect()
    }

    /// Load a part of the value in `col` into a fresh slot.
    fn load(&mut self, col: u32, part: Op) -> u32 {
        let s = self.ctx().slot();
        self.emit(Op::Local(col), Span::default());
        self.emit(part, Span::default());
        self.emit(Op::SetLocal(s), Span::default());
        s
    }

    fn push_lit(&mut self, lit: &Lit) {
        match lit {
            Lit::Int(n) => {
                self.emit(Op::Int(*n), Span::default());
            }
            Lit::Bool(b) => {
                self.emit(Op::Bool(*b), Span::default());
            }
            Lit::Float(bits) => {
                let l = self.literal(Literal::Float(f64::from_bits(*bits)));
                self.emit(Op::Literal(l), Span::default());
            }
            Lit::Str(s) => {
                let l = self.literal(Literal::Str(s.clone()));
                self.emit(Op::Literal(l), Span::default());
            }
        }
    }
}

/// The rows that allow what `accept` recognises in column `c` (it returns
/// the new cells for the column), and the rows with a wildcard there
/// (`width` wildcards), in order.
fn specialise<'a>(
    rows: &[Row<'a>],
    c: usize,
    width: usize,
    accept: impl Fn(&'a Pattern) -> Option<Vec<Cell<'a>>>,
) -> Vec<Row<'a>> {
    rows.iter()
        .filter_map(|row| {
            let cells = match row.cells.get(c).copied() {
                Some(Cell::Pat(p)) => accept(p)?,
                _ => vec![Cell::Wild; width],
            };
            let mut new = row.clone();
            new.cells.splice(c..=c, cells);
            Some(new)
        })
        .collect()
}

/// The rows that allow a list in column `c` of exactly `exact` elements
/// (or, with `None`, of at least `width` elements but none of the exact
/// lengths tested before), its first `width` elements becoming columns; a
/// `..rest` binds the slot `rests` holds for the number of elements it
/// skips.
fn specialise_list<'a>(
    rows: &[Row<'a>],
    c: usize,
    width: usize,
    exact: Option<usize>,
    rests: &[(usize, u32)],
) -> Vec<Row<'a>> {
    rows.iter()
        .filter_map(|row| {
            let mut new = row.clone();
            let cells = match row.cells.get(c).copied() {
                Some(Cell::Pat(p)) => {
                    let PatternKind::List { items, rest } = &p.kind else {
                        return None;
                    };
                    let fits = match (rest, exact) {
                        (None, Some(len)) => items.len() == len,
                        (None, None) => false,
                        (Some(_), _) => items.len() <= width,
                    };
                    if !fits {
                        return None;
                    }
                    if let Some(name) = rest.as_ref().and_then(|r| r.name.as_ref()) {
                        let slot = rests.iter().find(|(m, _)| *m == items.len())?.1;
                        new.bound.push((name.span, slot));
                    }
                    let mut cells: Vec<Cell<'a>> = items.iter().map(Cell::Pat).collect();
                    cells.resize(width, Cell::Wild);
                    cells
                }
                _ => vec![Cell::Wild; width],
            };
            new.cells.splice(c..=c, cells);
            Some(new)
        })
        .collect()
}

/// The rows with a wildcard in column `c`, without that column.
fn default<'a>(rows: &[Row<'a>], c: usize) -> Vec<Row<'a>> {
    rows.iter()
        .filter(|r| !matches!(r.cells.get(c), Some(Cell::Pat(_))))
        .map(|r| {
            let mut new = r.clone();
            if c < new.cells.len() {
                new.cells.remove(c);
            }
            new
        })
        .collect()
}

/// `cols` with column `c` replaced by `parts`.
fn splice(cols: &[u32], c: usize, parts: Vec<u32>) -> Vec<u32> {
    let mut new = cols.to_vec();
    if c < new.len() {
        new.splice(c..=c, parts);
    }
    new
}

/// `cols` without column `c`.
fn remove(cols: &[u32], c: usize) -> Vec<u32> {
    let mut new = cols.to_vec();
    if c < new.len() {
        new.remove(c);
    }
    new
}

#[cfg(test)]
mod tests {
    use super::{SPENT, WORK};
    use crate::code::Op;
    use crate::lower::testing::{compiled, ops_of};

    /// `f`, a match of `arms` literal arms and a final `_`, and a call.
    fn literal_match(arms: usize) -> String {
        let mut src = String::from("fn f(a: Int) -> Int { match a {\n");
        for i in 0..arms {
            src.push_str(&format!("{i} => {},\n", i + 1));
        }
        src.push_str("_ => 0 } }\nf(3)\n");
        src
    }

    /// A match of many literal arms: building its tree re-examined the
    /// rows below each literal tested, arms times tests (200,000 arms
    /// took 24 seconds before the run began). The work is capped: past
    /// [`WORK`] cells the match is lowered arm by arm, and still chooses
    /// the right arm.
    #[test]
    fn a_match_of_many_arms_is_built_in_bounded_work() {
        let arms = 20_000;
        SPENT.with(|s| s.set(0));
        let m = compiled(&literal_match(arms));
        let spent = SPENT.with(std::cell::Cell::get);
        // Linear in the arms: the cap, and the last charge past it.
        assert!(WORK + 4 * arms <= 64 * arms);
        assert!(spent <= 64 * arms, "spent {spent}");
        let f = ops_of(&m, "f");
        let tests = f.iter().filter(|op| matches!(op, Op::TestEq(..))).count();
        assert_eq!(tests, arms, "one test per arm, arm by arm");
    }

    /// A match of a few dozen literal arms is still built as a tree, in
    /// work well inside the cap.
    #[test]
    fn a_match_of_some_arms_is_a_tree() {
        let arms = 40;
        SPENT.with(|s| s.set(0));
        let m = compiled(&literal_match(arms));
        let spent = SPENT.with(std::cell::Cell::get);
        assert!(spent > 0 && spent < WORK / 100, "spent {spent}");
        assert!(!ops_of(&m, "f").contains(&Op::NoMatch));
    }

    const SHAPES: &str = "type T = A | B(Int) | C\n";

    /// A match naming every constructor of its type tests all but the
    /// last, in the variable's own slot (no copy of it); one that leaves
    /// some to a wildcard tests those it names and has a default.
    #[test]
    fn a_complete_signature_leaves_its_last_constructor_untested() {
        let m = compiled(&format!(
            "{SHAPES}fn f(t: T) -> Int {{ match t {{ A => 1, B(n) => n, C => 3 }} }}\n\
             fn g(t: T) -> Int {{ match t {{ A => 1, B(_) => 2, _ => 3 }} }}\n\
             f(C) + g(A)\n"
        ));
        assert_eq!(
            ops_of(&m, "f"),
            vec![
                Op::TestCtorLocal(0, 10, 3),
                Op::Int(1),
                Op::Return,
                Op::TestCtorLocal(0, 11, 6),
                Op::TakePartLocal(0, 0, 1),
                Op::ReturnLocal(1),
                Op::Int(3),
                Op::Return,
            ]
        );
        let g = ops_of(&m, "g");
        let tests: Vec<_> = g
            .iter()
            .filter(|op| matches!(op, Op::TestCtor(..) | Op::TestCtorLocal(..)))
            .collect();
        assert_eq!(tests.len(), 2, "{g:?}");
        assert!(g.contains(&Op::Int(3)), "{g:?}");
    }

    /// List patterns covering every length (`[]` and `[x, ..rest]`) test
    /// all but the last; a gap (no pattern of length 1) keeps the test
    /// and the default.
    #[test]
    fn list_patterns_covering_every_length_leave_the_last_untested() {
        let m = compiled(
            "fn h(xs: List[Int]) -> Int { match xs { [] => 0, [x, ..rest] => x + list.length(rest) } }\n\
             fn k(xs: List[Int]) -> Int { match xs { [] => 0, [x, y, ..rest] => x + y, _ => 1 } }\n\
             h([]) + k([])\n",
        );
        let h = ops_of(&m, "h");
        assert!(
            !h.iter()
                .any(|op| matches!(op, Op::TestMinLen(..) | Op::TestMinLenLocal(..))),
            "{h:?}"
        );
        let k = ops_of(&m, "k");
        assert!(
            k.iter()
                .any(|op| matches!(op, Op::TestMinLenLocal(0, 2, _))),
            "{k:?}"
        );
        assert!(k.contains(&Op::Int(1)), "{k:?}");
    }

    /// A `let` taking a variable apart reads it in its slot; a value that
    /// is not a variable is computed into a new one first.
    #[test]
    fn a_let_pattern_takes_a_variable_apart_in_its_slot() {
        let m = compiled(
            "fn p(q: (Int, Int)) -> Int {\n  let (a, b) = q\n  a + b\n}\n\
             fn same(q: (Int, Int)) -> (Int, Int) { q }\n\
             fn r(q: (Int, Int)) -> Int {\n  let (a, b) = same(q)\n  a + b\n}\n\
             p((1, 2)) + r((3, 4))\n",
        );
        assert_eq!(
            ops_of(&m, "p"),
            vec![
                Op::PartLocal(0, 0, 1),
                Op::TakePartLocal(0, 1, 2),
                Op::LocalLocalArith(1, 2, crate::code::Arith::Add),
                Op::Return,
            ]
        );
        assert!(
            ops_of(&m, "r")
                .iter()
                .any(|op| matches!(op, Op::SetLocal(1)))
        );
    }
}
