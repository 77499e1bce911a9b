//! Exhaustiveness and redundancy checking of `match` arms.
//!
//! The type checker lowers each arm's pattern to a [`Pat`] (a constructor of
//! a known [`Family`], a literal, or a wildcard) and calls [`check`], which
//! reports example values no arm matches ([`Report::missing`]) and arms that
//! can never be reached ([`Report::unreachable`]).
//!
//! # The algorithm
//!
//! Maranget, "Warnings for pattern matching" (JFP 2007). Arm *j* is
//! reachable iff its pattern is *useful* with respect to the matrix of the
//! unguarded arms before it (some value matches it and none of them); the
//! match is exhaustive iff the wildcard is not useful with respect to all
//! unguarded arms, and the missing values are the witnesses of that
//! usefulness (Maranget's algorithm I).
//!
//! Instead of asking the usefulness question once per arm (quadratic in the
//! number of arms: a match of 5,000 literals would take 12.5 million row
//! visits), all the questions are answered in one traversal of the matrix,
//! as rustc does. Each step looks at the first column and splits the rows
//! by the constructor at its head:
//!
//! - If the constructors present (Σ) are *all* the constructors of the
//!   family, every value starts with one of them, so the matrix is
//!   specialised by each in turn (rows headed by that constructor, plus the
//!   rows with a wildcard there) and the witnesses found inside are wrapped
//!   in the constructor.
//! - Otherwise some constructor is missing (always so for literals, which
//!   never complete `Infinite`). The *default* matrix (rows with a wildcard
//!   head) is walked for the values starting with a missing constructor;
//!   its witnesses get a missing constructor with `_` arguments (or `_`
//!   when Σ is empty or the column holds literals). Then each present
//!   constructor's specialisation is walked only to decide the
//!   reachability of the rows headed by it: a wildcard-headed row that is
//!   useful there is also useful in the default matrix, and any missing
//!   value also shows up there, so those walks look for no witnesses and
//!   treat wildcard rows only as blockers ("relevance"). This keeps
//!   `{ a: 1, .. }`, `{ b: 2, .. }`, ... linear, as in Maranget's per-arm
//!   formulation.
//! - When no columns are left, every remaining row matches every value of
//!   the class reached: rows are marked reachable in order up to the first
//!   unguarded one; if there is none, the class is a witness.
//!
//! A walk that needs no witnesses drops the trailing rows that it cannot
//! teach anything (not relevant, or already known reachable), and stops at
//! once when none remain; leading all-wildcard rows are settled directly.
//!
//! # Invariants
//!
//! - Every row of one walk has the same width (the number of columns).
//! - A reported witness describes missing values (every value it describes,
//!   except that a `_` in a literal column stands only for the literals no
//!   arm lists), and a reported unreachable arm is really unreachable. When
//!   the walk completes, `unreachable` is exact and `missing` is empty iff
//!   the match is exhaustive.
//! - Never panics, on any input: all access is checked, and malformed input
//!   is read defensively. Sub-pattern lists shorter or longer than the
//!   constructor's arity are padded with wildcards or truncated; a
//!   constructor index out of range, a constructor of an `Infinite` family,
//!   or a pattern of another family than its column's (or a literal in a
//!   constructor column, and the reverse) matches nothing, so its arm is
//!   reported unreachable and it never makes a match look exhaustive.
//! - Float literals are distinct when their bits are, but for `0.0` and
//!   `-0.0`, which are one: a pattern matches as `==` compares, and
//!   `-0.0 == 0.0`, so the second of the two arms is unreachable.
//! - Recursion (one level per pattern node, at most) runs under
//!   `stacker::maybe_grow`, so deeply nested patterns cannot overflow the
//!   stack; witnesses are flat token lists, so dropping them is not
//!   recursive either.
//!
//! # Budget
//!
//! Usefulness is NP-complete in the number of columns (a match on a tuple
//! of booleans can encode SAT), so an adversarial match could keep the
//! checker busy for ever. Work is counted in units, about one per row
//! visited or built (plus one per 16 columns of a row built), and after
//! 1,000,000 units (or fewer: what is left of the whole program's budget,
//! see [`check_within`]) the check stops with [`Report::gave_up`] set: the
//! caller then reports an error (fail closed). Such a report keeps the witnesses
//! already found (they are genuine) and claims no arm unreachable.
//! Ordinary matches use a few units per arm; the limit takes well under a
//! second even in a debug build.
//!
//! # Printing
//!
//! Witnesses are printed as Writ patterns: `Name` or `Name(p, q)`; `true`,
//! `false`; `()`; `(p, q)`; `{ a: p, .. }` (fields whose witness is `_` are
//! left out and `..` added, `{ .. }` when all are); lists as `[]`, `[p, q]`,
//! `[p, ..]`. A wildcard, and any value of an `Infinite` family, is `_`.
//! The shape of a tuple or record is printed even when all its parts are
//! `_` (`(_, _)`, `{ .. }`): it appears only where the matrix did mention
//! that constructor, and it mirrors the patterns the programmer wrote.
//! As in algorithm I, where a column lacks a constructor only values headed
//! by a missing one are listed: `(true, true)` alone reports `(false, _)`,
//! and `(true, false)` only once that is covered.

mod print;

use print::render;
use std::collections::HashMap;
use std::rc::Rc;

/// A family of constructors: everything the checker needs to know about the
/// type of a column.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Family {
    /// A sum type: constructor names and arities, in declaration order.
    /// (Also usable for `Bool` as `[("true", 0), ("false", 0)]`, printed
    /// `true`/`false`.) Share one `Rc` per type: families are compared by
    /// pointer first, by contents only when the pointers differ.
    Sum(Rc<[(String, usize)]>),
    /// `Bool`: constructors `true` and `false` (index 0 = true, 1 = false).
    Bool,
    /// `()`: one constructor, arity 0.
    Unit,
    /// A tuple of this many elements: one constructor.
    Tuple(usize),
    /// A record with these field names (sorted): one constructor whose arity
    /// is the number of fields, sub-patterns in this field order.
    Record(Rc<[String]>),
    /// `List[a]`: constructor 0 = `[]` (arity 0), constructor 1 = cons
    /// (arity 2: head, tail).
    List,
    /// Int, Float, Str and any type whose values cannot be enumerated: only
    /// literals and wildcards; never covered without a wildcard.
    Infinite,
}

impl Family {
    /// How many constructors the family has; `None` for `Infinite`.
    fn ctor_count(&self) -> Option<usize> {
        match self {
            Family::Sum(ctors) => Some(ctors.len()),
            Family::Bool | Family::List => Some(2),
            Family::Unit | Family::Tuple(_) | Family::Record(_) => Some(1),
            Family::Infinite => None,
        }
    }

    /// The arity of constructor `index`; `None` if there is no such
    /// constructor.
    fn arity(&self, index: usize) -> Option<usize> {
        match self {
            Family::Sum(ctors) => ctors.get(index).map(|(_, arity)| *arity),
            Family::Bool => (index < 2).then_some(0),
            Family::Unit => (index == 0).then_some(0),
            Family::Tuple(n) => (index == 0).then_some(*n),
            Family::Record(fields) => (index == 0).then_some(fields.len()),
            Family::List => match index {
                0 => Some(0),
                1 => Some(2),
                _ => None,
            },
            Family::Infinite => None,
        }
    }

    /// Whether two families are the same type's.
    fn same(&self, other: &Family) -> bool {
        match (self, other) {
            (Family::Sum(a), Family::Sum(b)) => Rc::ptr_eq(a, b) || a == b,
            (Family::Record(a), Family::Record(b)) => Rc::ptr_eq(a, b) || a == b,
            _ => self == other,
        }
    }
}

/// A literal in a pattern (for `Infinite` families).
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Lit {
    /// An `Int` literal.
    Int(i64),
    /// A `Float` literal (never NaN); compared by its bits.
    Float(f64),
    /// A `Str` literal.
    Str(String),
}

/// A simplified pattern.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Pat {
    /// `_` or a binding name: matches anything.
    Wild,
    /// Constructor number `index` of `family` with its sub-patterns
    /// (`args.len()` == arity).
    Ctor {
        /// The constructor's family (the type of the matched value).
        family: Family,
        /// The constructor's number in the family.
        index: usize,
        /// The sub-patterns, one per field.
        args: Vec<Pat>,
    },
    /// A literal (the family is `Infinite`).
    Lit(Lit),
}

/// One arm as the checker sees it.
pub(super) struct Arm {
    /// The arm's pattern.
    pub(crate) pat: Pat,
    /// Whether the arm has an `if` guard (which may be false, so the arm
    /// never counts toward exhaustiveness).
    pub(crate) guarded: bool,
}

/// What the check found.
#[derive(Debug, Default)]
pub(super) struct Report {
    /// Up to 3 example values not matched by any arm, printed as patterns
    /// (empty when exhaustive).
    pub(crate) missing: Vec<String>,
    /// Indices of arms that can never be reached (every value they match is
    /// matched by earlier unguarded arms), in increasing order.
    pub(crate) unreachable: Vec<usize>,
    /// True when the work budget ran out before the answer was known (the
    /// caller then reports an error: fail closed). When true, `missing` may
    /// be incomplete and `unreachable` is empty.
    pub(crate) gave_up: bool,
    /// The work units the check spent.
    pub(crate) used: usize,
}

/// Check `arms` (in order) of a match whose scrutinee's family is known only
/// through the patterns themselves (see the [module docs](self)), with at
/// most `budget` units of work (the smaller of [`BUDGET`] and what is left
/// of the whole program's budget).
pub(super) fn check_within(arms: &[Arm], budget: usize) -> Report {
    let wild = Pat::Wild;
    let mut checker = Checker {
        arms,
        wild: &wild,
        reachable: vec![false; arms.len()],
        budget,
        gave_up: false,
    };
    let rows = arms
        .iter()
        .enumerate()
        .map(|(arm, a)| Row {
            pats: vec![&a.pat],
            arm,
            relevant: true,
        })
        .collect();
    let witnesses = checker.walk(rows, 1, MAX_WITNESSES);
    let mut missing: Vec<String> = Vec::new();
    for witness in &witnesses {
        let text = render(witness);
        if missing.len() < MAX_WITNESSES && !missing.contains(&text) {
            missing.push(text);
        }
    }
    let unreachable = if checker.gave_up {
        Vec::new()
    } else {
        (0..arms.len())
            .filter(|&arm| !checker.reachable.get(arm).copied().unwrap_or(false))
            .collect()
    };
    Report {
        missing,
        unreachable,
        gave_up: checker.gave_up,
        used: budget.saturating_sub(checker.budget),
    }
}

/// Work units allowed for one [`check`].
pub(super) const BUDGET: usize = 1_000_000;
/// How many missing values are reported at most.
const MAX_WITNESSES: usize = 6;
/// Grow the stack when less than this is left...
const RED_ZONE: usize = 64 * 1024;
/// ...by this much.
const STACK_GROWTH: usize = 2 * 1024 * 1024;
/// Columns of a built row (or of a witness) that cost one extra work unit.
const CELLS_PER_UNIT: usize = 16;

/// One row of a matrix: what is left of one arm's pattern.
struct Row<'a> {
    /// One pattern per column.
    pats: Vec<&'a Pat>,
    /// The arm the row comes from.
    arm: usize,
    /// Whether this walk must decide the row's reachability; otherwise it is
    /// there only to block the rows after it.
    relevant: bool,
}

/// One node of a witness, in prefix order: a constructor is followed by the
/// tokens of its `arity` arguments.
#[derive(Clone, Copy, Debug)]
enum Tok<'a> {
    /// Any value.
    Wild,
    /// A literal none of the arms lists (an Int, Float or string).
    Other(Other),
    /// Constructor `index` of `family`.
    Ctor {
        family: &'a Family,
        index: usize,
        arity: usize,
    },
}

/// A literal value no arm lists, chosen to print as an example.
#[derive(Clone, Copy, Debug)]
enum Other {
    Int(i64),
    Float(u64),
    /// Index into [`OTHER_STRINGS`].
    Str(usize),
}

/// Example strings for a string column, in order of preference.
const OTHER_STRINGS: &[&str] = &["", "a", "b", "c", "x", "y", "z", "other"];

/// A literal that none of `keys` is, of the same kind as they are.
fn other_literal(keys: &HashMap<Key<'_>, usize>) -> Option<Other> {
    let first = keys.keys().next()?;
    match first {
        Key::Int(_) => (0..=keys.len() as i64)
            .find(|n| !keys.contains_key(&Key::Int(*n)))
            .map(Other::Int),
        Key::Float(_) => (0..=keys.len() as u64)
            .map(|n| (n as f64).to_bits())
            .find(|b| !keys.contains_key(&Key::Float(*b)))
            .map(Other::Float),
        Key::Str(_) => OTHER_STRINGS
            .iter()
            .position(|s| !keys.contains_key(&Key::Str(s)))
            .map(Other::Str),
        Key::Ctor(_) => None,
    }
}

/// A vector of values missed by the matrix, one per column, as tokens in
/// *reverse* prefix order (so wrapping in a constructor is a push).
type Witness<'a> = Vec<Tok<'a>>;

/// A head constructor, as a hashable key.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Key<'a> {
    Ctor(usize),
    Int(i64),
    Float(u64),
    Str(&'a str),
}

/// What the first column holds, judged by its first meaningful head.
#[derive(Clone, Copy)]
enum Column<'a> {
    /// Only wildcards (and malformed patterns).
    Unknown,
    /// Constructors of this family.
    Ctors(&'a Family),
    /// Literals.
    Lits,
}

/// The rows headed by one constructor (or literal).
struct Group<'a> {
    key: Key<'a>,
    arity: usize,
    /// Positions in the walk's rows, increasing.
    rows: Vec<usize>,
}

/// The state of one [`check`].
struct Checker<'a> {
    arms: &'a [Arm],
    wild: &'a Pat,
    /// Arms known to be reachable.
    reachable: Vec<bool>,
    /// Work units left.
    budget: usize,
    gave_up: bool,
}

impl<'a> Checker<'a> {
    /// Spend `units` of work; false (and `gave_up`) when the budget is out.
    fn charge(&mut self, units: usize) -> bool {
        if self.gave_up || units > self.budget {
            self.budget = 0;
            self.gave_up = true;
            return false;
        }
        self.budget -= units;
        true
    }

    fn guarded(&self, arm: usize) -> bool {
        self.arms.get(arm).is_some_and(|a| a.guarded)
    }

    fn is_reachable(&self, arm: usize) -> bool {
        self.reachable.get(arm).copied().unwrap_or(false)
    }

    fn mark(&mut self, arm: usize) {
        if let Some(flag) = self.reachable.get_mut(arm) {
            *flag = true;
        }
    }

    /// Walk a matrix of `ncols` columns: mark the rows reachable for some
    /// value, and return up to `want` witnesses of values no unguarded row
    /// matches.
    fn walk(&mut self, rows: Vec<Row<'a>>, ncols: usize, want: usize) -> Vec<Witness<'a>> {
        stacker::maybe_grow(RED_ZONE, STACK_GROWTH, || self.walk_here(rows, ncols, want))
    }

    fn walk_here(&mut self, mut rows: Vec<Row<'a>>, ncols: usize, want: usize) -> Vec<Witness<'a>> {
        if !self.charge(1 + rows.len()) {
            return Vec::new();
        }
        if want == 0 {
            // Rows after the last one still to be decided teach nothing.
            let last = rows
                .iter()
                .rposition(|r| r.relevant && !self.is_reachable(r.arm));
            match last {
                Some(last) => rows.truncate(last + 1),
                None => return Vec::new(),
            }
        }
        // Leading rows of wildcards match every value here: they are
        // reachable, and the first unguarded one hides all the rest.
        let mut settled = 0;
        for row in &rows {
            if !row.pats.iter().all(|p| matches!(p, Pat::Wild)) {
                break;
            }
            self.mark(row.arm);
            if !self.guarded(row.arm) {
                return Vec::new();
            }
            settled += 1;
        }
        rows.drain(..settled);
        if rows.is_empty() {
            // No row matches: every value of this class is missing.
            if want == 0 || !self.charge(1 + ncols / CELLS_PER_UNIT) {
                return Vec::new();
            }
            return vec![vec![Tok::Wild; ncols]];
        }
        self.split(&rows, ncols, want)
    }

    /// The step of the algorithm for a non-empty matrix whose first row is
    /// not all wildcards (so `ncols > 0`).
    fn split(&mut self, rows: &[Row<'a>], ncols: usize, want: usize) -> Vec<Witness<'a>> {
        let column = column_of(rows);
        let mut wilds: Vec<usize> = Vec::new();
        let mut groups: Vec<Group<'a>> = Vec::new();
        let mut index: HashMap<Key<'a>, usize> = HashMap::new();
        for (pos, row) in rows.iter().enumerate() {
            if let (Some(Pat::Ctor { family, .. }), Column::Ctors(col)) = (row.pats.first(), column)
                && !self.charge(compare_cost(family, col))
            {
                return Vec::new();
            }
            let (key, arity) = match head(column, row) {
                Head::Wild => {
                    wilds.push(pos);
                    continue;
                }
                Head::Invalid => continue,
                Head::Key(key, arity) => (key, arity),
            };
            match index.get(&key).and_then(|&g| groups.get_mut(g)) {
                Some(group) => group.rows.push(pos),
                None => {
                    index.insert(key, groups.len());
                    groups.push(Group {
                        key,
                        arity,
                        rows: vec![pos],
                    });
                }
            }
        }
        let family = match column {
            Column::Ctors(family) => Some(family),
            Column::Unknown | Column::Lits => None,
        };
        let count = family.and_then(Family::ctor_count);
        let complete = !groups.is_empty() && count == Some(groups.len());
        let rest = ncols.saturating_sub(1);
        let mut out: Vec<Witness<'a>> = Vec::new();

        if complete {
            groups.sort_by_key(|g| match g.key {
                Key::Ctor(i) => i,
                _ => usize::MAX,
            });
            for group in &groups {
                let positions = merge(&group.rows, &wilds);
                let Some(sub) = self.specialize(rows, &positions, group.arity, None) else {
                    return out;
                };
                let found = self.walk(
                    sub,
                    group.arity.saturating_add(rest),
                    want.saturating_sub(out.len()),
                );
                for mut witness in found {
                    witness.push(ctor_tok(family, group.key, group.arity));
                    out.push(witness);
                }
            }
            return out;
        }

        // The values whose head is a constructor no row mentions.
        let Some(default) = self.specialize(rows, &wilds, 0, None) else {
            return out;
        };
        for witness in self.walk(default, rest, want) {
            match family {
                Some(family) if !groups.is_empty() => {
                    for i in 0..count.unwrap_or(0) {
                        if out.len() >= want {
                            break;
                        }
                        if index.contains_key(&Key::Ctor(i)) {
                            continue;
                        }
                        let arity = family.arity(i).unwrap_or(0);
                        if !self.charge(1 + arity / CELLS_PER_UNIT) {
                            return out;
                        }
                        let mut full = witness.clone();
                        full.extend(std::iter::repeat_n(Tok::Wild, arity));
                        full.push(ctor_tok(Some(family), Key::Ctor(i), arity));
                        out.push(full);
                    }
                }
                _ => {
                    let mut full = witness;
                    full.push(match other_literal(&index) {
                        Some(other) if !groups.is_empty() => Tok::Other(other),
                        _ => Tok::Wild,
                    });
                    out.push(full);
                }
            }
        }
        // The rows headed by a present constructor: only their own
        // reachability is in question; wildcard rows before them block.
        for group in &groups {
            let last = group.rows.last().copied().unwrap_or(0);
            let before = wilds.partition_point(|&w| w < last);
            let positions = merge(&group.rows, wilds.get(..before).unwrap_or(&wilds));
            let Some(sub) = self.specialize(rows, &positions, group.arity, Some(&wilds)) else {
                return out;
            };
            self.walk(sub, group.arity.saturating_add(rest), 0);
        }
        out
    }

    /// The rows at `positions`, with their head replaced by `arity`
    /// sub-patterns (a wildcard head gives wildcards). Rows at a position in
    /// `irrelevant` lose their relevance. `None` when the budget ran out.
    fn specialize(
        &mut self,
        rows: &[Row<'a>],
        positions: &[usize],
        arity: usize,
        irrelevant: Option<&[usize]>,
    ) -> Option<Vec<Row<'a>>> {
        let mut out = Vec::with_capacity(positions.len());
        for &pos in positions {
            let Some(row) = rows.get(pos) else { continue };
            let tail = row.pats.get(1..).unwrap_or(&[]);
            let width = arity.saturating_add(tail.len());
            if !self.charge(1 + width / CELLS_PER_UNIT) {
                return None;
            }
            let mut pats = Vec::with_capacity(width);
            match row.pats.first() {
                Some(Pat::Ctor { args, .. }) => {
                    pats.extend((0..arity).map(|j| args.get(j).unwrap_or(self.wild)));
                }
                _ => pats.extend(std::iter::repeat_n(self.wild, arity)),
            }
            pats.extend_from_slice(tail);
            let demoted = irrelevant.is_some_and(|w| w.binary_search(&pos).is_ok());
            out.push(Row {
                pats,
                arm: row.arm,
                relevant: row.relevant && !demoted,
            });
        }
        Some(out)
    }
}

/// How a row's head reads in its column.
enum Head<'a> {
    Wild,
    /// A constructor or literal of the column, and its arity.
    Key(Key<'a>, usize),
    /// Matches nothing (malformed or ill-typed).
    Invalid,
}

fn head<'a>(column: Column<'a>, row: &Row<'a>) -> Head<'a> {
    match (row.pats.first(), column) {
        (None | Some(Pat::Wild), _) => Head::Wild,
        (Some(Pat::Ctor { family, index, .. }), Column::Ctors(col)) if family.same(col) => {
            match family.arity(*index) {
                Some(arity) => Head::Key(Key::Ctor(*index), arity),
                None => Head::Invalid,
            }
        }
        (Some(Pat::Lit(lit)), Column::Lits) => Head::Key(lit_key(lit), 0),
        _ => Head::Invalid,
    }
}

/// The work of telling whether two families are the same: none when they
/// share their `Rc` (or have none).
fn compare_cost(a: &Family, b: &Family) -> usize {
    match (a, b) {
        (Family::Sum(x), Family::Sum(y)) if !Rc::ptr_eq(x, y) => 1 + x.len().min(y.len()) / 16,
        (Family::Record(x), Family::Record(y)) if !Rc::ptr_eq(x, y) => {
            1 + x.len().min(y.len()) / 16
        }
        _ => 0,
    }
}

fn lit_key(lit: &Lit) -> Key<'_> {
    match lit {
        Lit::Int(n) => Key::Int(*n),
        // `-0.0` matches where `0.0` does (`==`): one key.
        Lit::Float(x) if *x == 0.0 => Key::Float(0.0f64.to_bits()),
        Lit::Float(x) => Key::Float(x.to_bits()),
        Lit::Str(s) => Key::Str(s),
    }
}

/// The kind of the first column: that of its first well-formed head.
fn column_of<'a>(rows: &[Row<'a>]) -> Column<'a> {
    for row in rows {
        match row.pats.first() {
            Some(Pat::Ctor { family, index, .. }) if family.arity(*index).is_some() => {
                return Column::Ctors(family);
            }
            Some(Pat::Lit(_)) => return Column::Lits,
            _ => {}
        }
    }
    Column::Unknown
}

/// The token for the head of a specialisation.
fn ctor_tok<'a>(family: Option<&'a Family>, key: Key<'a>, arity: usize) -> Tok<'a> {
    match (family, key) {
        (Some(family), Key::Ctor(index)) => Tok::Ctor {
            family,
            index,
            arity,
        },
        // Literal columns are never complete and never print a head.
        _ => Tok::Wild,
    }
}

/// Two increasing position lists, merged (both stay increasing).
fn merge(a: &[usize], b: &[usize]) -> Vec<usize> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    loop {
        match (a.get(i), b.get(j)) {
            (Some(&x), Some(&y)) if x <= y => {
                out.push(x);
                i += 1;
            }
            (_, Some(&y)) => {
                out.push(y);
                j += 1;
            }
            (Some(&x), None) => {
                out.push(x);
                i += 1;
            }
            (None, None) => return out,
        }
    }
}

#[cfg(test)]
mod tests;
