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
//!   is [`Resolved::Top`]; then an input the host declared,
//!   [`Resolved::Input`] (a program may not define a top-level name of an
//!   input's); then a name from an earlier session input,
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
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Resolved {
    /// A local binder: the span of the identifier binding it (for
    /// `resume`, of its clause).
    Local(Span),
    /// A top-level `let` or `fn` of the same program or input: the span of
    /// the identifier binding it.
    Top(Span),
    /// A top-level name of an earlier input of a session.
    Session(String),
    /// An input the host declared (decision 009), by name.
    Input(String),
    /// A member of a standard-library namespace (recorded at the
    /// namespace's identifier in `ns.f`).
    Member {
        /// Whether this is `list.sum` on `Float`s.
        float_sum: bool,
    },
}

/// What each name occurrence of one parse refers to, by the span of its
/// identifier.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Resolution {
    #[serde(serialize_with = "crate::image::sorted")]
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
/// file name (`list.writ`), made once per process (read from the
/// library's image: see `types/library.rs`).
pub fn library() -> &'static HashMap<String, Resolution> {
    crate::types::library::resolution()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The resolution of `src` (which must be accepted).
    fn resolve(src: &str) -> Resolution {
        let parsed = crate::parse(src);
        assert!(!parsed.has_errors(), "{:#?}", parsed.diagnostics);
        let typed = crate::types::check(&parsed.program, &Default::default());
        assert!(
            !typed.diagnostics.iter().any(|d| d.is_error()),
            "{:#?}",
            typed.diagnostics
        );
        typed.resolution
    }

    /// The span of the `nth` (from 0) occurrence of `name` in `src`.
    fn at(src: &str, name: &str, nth: usize) -> Span {
        let start = src
            .match_indices(name)
            .nth(nth)
            .map(|(i, _)| i)
            .expect("the occurrence exists");
        Span::new(start, start + name.len())
    }

    #[test]
    fn a_later_let_in_a_block_hides_an_earlier_one() {
        let src = "fn f(y) {\n  let y = y + 1\n  y\n}\nf(1)\n";
        let r = resolve(src);
        assert_eq!(
            r.get(at(src, "y", 2)),
            Some(&Resolved::Local(at(src, "y", 0)))
        );
        assert_eq!(
            r.get(at(src, "y", 3)),
            Some(&Resolved::Local(at(src, "y", 1)))
        );
    }

    #[test]
    fn a_function_sees_the_top_level_lets_before_it() {
        let src = "let x = 1\nfn get() { x }\nlet x = 2\n(get(), x)\n";
        let r = resolve(src);
        assert_eq!(
            r.get(at(src, "x", 1)),
            Some(&Resolved::Top(at(src, "x", 0)))
        );
        assert_eq!(
            r.get(at(src, "x", 3)),
            Some(&Resolved::Top(at(src, "x", 2)))
        );
        assert_eq!(
            r.get(at(src, "get", 1)),
            Some(&Resolved::Top(at(src, "get", 0)))
        );
    }

    #[test]
    fn a_local_function_sees_itself() {
        let src =
            "fn f(n) {\n  fn go(k) { if k == 0 { 0 } else { go(k - 1) } }\n  go(n)\n}\nf(2)\n";
        let r = resolve(src);
        let binder = at(src, "go", 0);
        assert_eq!(r.get(at(src, "go", 1)), Some(&Resolved::Local(binder)));
        assert_eq!(r.get(at(src, "go", 2)), Some(&Resolved::Local(binder)));
    }

    #[test]
    fn resume_is_the_clause_s_own_even_past_a_parameter_named_resume() {
        let src = "effect Ask {\n  fn ask(n: Int) -> Int\n}\nhandle Ask.ask(1) with {\n  Ask.ask(resume) => resume(41)\n}\n";
        let r = resolve(src);
        let clause = Span::new(at(src, "Ask.ask(resume)", 0).start, src.len() - 3);
        assert_eq!(r.get(at(src, "resume", 1)), Some(&Resolved::Local(clause)));
    }

    #[test]
    fn a_local_hides_a_namespace() {
        let src = "let n = list.length([1])\nfn f(list) { list.length }\nf({ length: n })\n";
        let r = resolve(src);
        assert_eq!(
            r.get(at(src, "list", 0)),
            Some(&Resolved::Member { float_sum: false })
        );
        assert_eq!(
            r.get(at(src, "list", 2)),
            Some(&Resolved::Local(at(src, "list", 1)))
        );
    }

    #[test]
    fn a_sum_of_floats_is_marked() {
        let src = "(list.sum([1.5]), list.sum([1]))\n";
        let r = resolve(src);
        assert_eq!(
            r.get(at(src, "list", 0)),
            Some(&Resolved::Member { float_sum: true })
        );
        assert_eq!(
            r.get(at(src, "list", 1)),
            Some(&Resolved::Member { float_sum: false })
        );
    }

    #[test]
    fn the_library_is_resolved_file_by_file() {
        let lib = library();
        assert!(lib.get("list.writ").is_some_and(|r| !r.is_empty()));
        assert!(lib.get("prelude.writ").is_none());
    }

    #[test]
    fn the_library_resolution_is_the_one_any_checker_computes() {
        // The process's (read from the image, and the same after a
        // session with an embedder's interfaces, which are declared after
        // the library) is the one a fresh load of the library computes.
        let sms = "effect Sms {\n  fn send(to: Str) -> Unit\n}\n".to_string();
        let _session = crate::types::session::CheckSession::new(&[sms]);
        let mut fresh = crate::types::infer::Checker::new();
        crate::types::library::load_stdlib(&mut fresh);
        assert!(!fresh.library_resolution.is_empty());
        assert_eq!(library(), &fresh.library_resolution);
    }
}
