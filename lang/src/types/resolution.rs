//! The checker's name resolution, handed to lowering (decision 007).
//!
//! The type checker is the only place where names are resolved. As it
//! infers each name, it records what the name refers to in a
//! [`Resolution`]; lowering (in the runtime) compiles each name from that
//! record and has no scopes of names of its own. So the program that runs
//! is the program that was checked: the checker decides what a program may
//! do and lowering what it does, from one resolution.
//!
//! # Identities
//!
//! A name occurrence is identified by the [`Span`] of its identifier, and
//! a binder by the span of the identifier that binds it (for the `resume`
//! of a handler clause, which is bound by no identifier, the span of the
//! clause). Within one parse — a program, one REPL input (each parsed at a
//! base of its own), or one standard-library file — an identifier's span
//! is unique: every identifier the parser builds covers its own token, and
//! nothing copies one. That makes spans node ids without adding a field to
//! every node. Across inputs of a session spans may repeat (an embedder may
//! parse every input at 0), so a name bound by an earlier input is recorded
//! by name, [`Resolved::Session`]: a session's top-level names are its
//! interface, each later input's replacing an earlier one's.
//!
//! # The rules (what the checker decides)
//!
//! - A name bound in a block, a parameter, a pattern (in a `let`, a
//!   `match` arm, a handler clause) or a handler's parameter is
//!   [`Resolved::Local`]; the innermost binding of a name wins, and within
//!   one block a later `let` hides an earlier one from the statements
//!   after it.
//! - A local `fn` sees itself in its own body (recursion) and is bound
//!   after its declaration for the rest of its block.
//! - `resume` in an operation clause is the clause's own binder.
//! - Otherwise a top-level `let` written before the current item (the
//!   latest one, if the name is defined again), then a top-level `fn`,
//!   is [`Resolved::Top`]; then a name from an earlier session input,
//!   [`Resolved::Session`].
//! - `ns.f` is a namespace member, [`Resolved::Member`], only when `ns`
//!   names a namespace and no local or top-level value hides it; `list.sum`
//!   records whether it sums `Float`s (its empty sum is then `0.0`).
//! - Constructors and effect operations are not scoped: a program's type
//!   and effect declarations are global (a session's later declaration
//!   replaces an earlier one), so they are resolved by name on both sides.
//!
//! Invariants: every name occurrence in an accepted program has an entry
//! (a name without one lowers to an internal error, never to a guess); an
//! entry is written only by the checker.

use std::collections::HashMap;

use crate::span::Span;

/// What one name occurrence refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// A local binder: the span of the identifier binding it (for
    /// `resume`, of its clause).
    Local(Span),
    /// A top-level `let` or `fn` of the same program or input: the span of
    /// the identifier binding it.
    Top(Span),
    /// A top-level name of an earlier input of a session.
    Session(String),
    /// A member of a standard-library namespace (recorded at the
    /// namespace's identifier in `ns.f`).
    Member {
        /// Whether this is `list.sum` on `Float`s.
        float_sum: bool,
    },
}

/// What each name occurrence of one parse refers to, by the span of its
/// identifier.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resolution {
    uses: HashMap<Span, Resolved>,
}

impl Resolution {
    /// What the name whose identifier is at `at` refers to.
    pub fn get(&self, at: Span) -> Option<&Resolved> {
        self.uses.get(&at)
    }

    /// Record what the name at `at` refers to (replacing what was
    /// recorded there).
    pub fn insert(&mut self, at: Span, to: Resolved) {
        self.uses.insert(at, to);
    }

    /// Forget what the name at `at` refers to.
    pub fn remove(&mut self, at: Span) -> Option<Resolved> {
        self.uses.remove(&at)
    }

    /// How many name occurrences are recorded.
    pub fn len(&self) -> usize {
        self.uses.len()
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.uses.is_empty()
    }

    /// Every recorded occurrence, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (Span, &Resolved)> {
        self.uses.iter().map(|(s, r)| (*s, r))
    }
}

/// The resolution of the standard library's functions written in Writ, by
/// file name (`list.writ`), computed once per process.
pub fn library() -> &'static HashMap<String, Resolution> {
    static LIBRARY: std::sync::OnceLock<HashMap<String, Resolution>> = std::sync::OnceLock::new();
    LIBRARY.get_or_init(|| {
        stacker::maybe_grow(super::STACK_RED_ZONE, super::STACK_CHUNK, || {
            let mut c = crate::types::infer::Checker::new();
            crate::types::items::load_stdlib(&mut c);
            std::mem::take(&mut c.library_resolution)
        })
    })
}
