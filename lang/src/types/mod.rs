//! The type checker: name resolution, Hindley–Milner inference with
//! let-polymorphism, row-polymorphic records, and exhaustiveness.
//!
//! # The algorithm
//!
//! One pass over the tree resolves names and infers types together
//! (algorithm J with mutable unification variables in an arena,
//! `ty::Arena`). Generalisation uses levels: a variable created while
//! inferring a `let`'s value at depth *n* has level *n + 1*, unifying lowers
//! levels, and generalising takes the variables still deeper than *n*.
//! Resolving a name records what it refers to ([`resolution`]): that record
//! is the only resolution, which lowering compiles the program from.
//!
//! - **Top level.** Declarations (`type`, `effect`, `fn`) are collected
//!   first, so they can be used before they appear. Top-level functions and
//!   statements are then inferred in dependency order: the strongly
//!   connected components of the reference graph (Tarjan), each function
//!   group generalised together. A function may use a top-level `let` only
//!   if the `let` comes first in the file, and a statement may not call a
//!   function that needs a `let` defined after that statement.
//! - **Value restriction.** A `let` is generalised only when its value is a
//!   syntactic value (a lambda, a literal, a name, a constructor, tuple,
//!   list or record of values). Writ has no mutable references, but effect
//!   handlers can resume a computation twice; the restriction keeps the
//!   rule simple and obviously sound.
//! - **Signatures.** A type variable written in a `fn` signature is rigid:
//!   it unifies only with itself, supports only its declared bounds
//!   (`fn f[a: Eq]`), and may not escape. A fully annotated function has
//!   its declared type everywhere, even inside its own recursive group.
//! - **Records** are structural: a record type is a row of fields. Field
//!   access `r.f` unifies `r` with `{ f: a | rest }`, so it infers without
//!   annotations. A declared `type P = { ... }` names a closed record type.
//! - **Numbers and operators.** `+ - * / %` need a `Num` type (`Int` or
//!   `Float`), comparisons `Ord`, `==` `Eq`, `++` `Concat` (`Str` or a
//!   list), interpolation `Show`. These are classes carried by type
//!   variables; a function that adds unannotated parameters is polymorphic
//!   over `Num`. Literals are not overloaded (`1` is an `Int`), so a class
//!   left unresolved at the end of the program defaults (`Num` to `Int`).
//! - **`Never`**: a call or operation whose declared result is `Never` has
//!   a fresh type, so it fits wherever a value is expected.
//! - **Patterns** are checked for exhaustiveness and redundancy by
//!   Maranget's usefulness algorithm (`exhaust`).
//!
//! # Invariants
//!
//! Nothing here panics on any program, well formed or not; recursion over
//! expressions and types grows the stack on demand. A name or type that is
//! wrong has the type `Error`, which unifies with everything, so each
//! mistake is reported once. The type checker runs only on programs that
//! parsed without errors. Every walk over expressions, types and match
//! rows charges one work budget per check (`budget`); a check that spends
//! it stops at once and rejects the program with `E2013`, so no input can
//! keep the checker busy for long.
//!
//! # The surface
//!
//! Outside this crate, checking is: the entry point ([`check`], told what
//! is granted and declared by [`CheckOptions`]) and what it finds ([`Typed`]:
//! diagnostics, [`Signature`]s, the [`ManifestEntry`]s of the capability
//! manifest, the [`Resolution`] lowering compiles from, the [`WORK_LIMIT`]
//! spent); what grants capabilities ([`Grants`], [`GrantedBy`],
//! [`DEFAULT_GRANTS`], [`HOST_CAPABILITIES`]); the inputs a host declares
//! ([`InputDecl`], read into an [`Input`] of an [`InputType`]; decision
//! 010); the [`session`] that checks
//! a REPL's inputs one at a time; and [`suggest_name`], the "did you mean"
//! rule, for the names of a policy and the REPL's commands; and
//! [`BuiltinEffect`], the effects the language itself gives meaning to.
//! The checker's
//! machinery (inference, unification, the type arena, declarations,
//! exhaustiveness, printing) is `pub(crate)`.

mod aliases;
mod budget;
mod calls;
mod control;
mod declare;
mod deps;
mod effects;
mod exhaust;
mod infer;
mod inputs;
mod items;
pub(crate) mod library;
mod names;
mod pattern;
mod print;
mod report;
pub mod resolution;
mod schemes;
pub mod session;
mod suggest;
mod traps;
mod ty;
mod typedecl;
mod unify;

pub use budget::WORK_LIMIT;
pub use inputs::{Input, InputDecl, InputType, operation_result, operation_results};
pub use items::{BUILTIN_OPERATIONS, HOST_CAPABILITIES, OpKind, builtin_op_kind};
pub use resolution::{Resolution, Resolved};

use crate::ast::Program;
use crate::diagnostic::Diagnostic;
use crate::span::Span;

/// Grow the stack when less than this much is left.
pub(crate) const STACK_RED_ZONE: usize = 128 * 1024;
/// Grow it by this much at a time.
pub(crate) const STACK_CHUNK: usize = 4 * 1024 * 1024;

/// A type constructor: an index into the table of named types.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub(crate) struct TypeCon(pub(crate) u32);

impl TypeCon {
    /// `Int`
    pub(crate) const INT: TypeCon = TypeCon(0);
    /// `Float`
    pub(crate) const FLOAT: TypeCon = TypeCon(1);
    /// `Bool`
    pub(crate) const BOOL: TypeCon = TypeCon(2);
    /// `Str`
    pub(crate) const STR: TypeCon = TypeCon(3);
    /// `Unit`, written `()` or `Unit`
    pub(crate) const UNIT: TypeCon = TypeCon(4);
    /// `Never`, the type of no value
    pub(crate) const NEVER: TypeCon = TypeCon(5);
    /// `List[a]`
    pub(crate) const LIST: TypeCon = TypeCon(6);
    /// `Map[k, v]`
    pub(crate) const MAP: TypeCon = TypeCon(7);
}

/// The inferred signature of one top-level function.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Signature {
    /// The function's name.
    pub name: String,
    /// `fn name[a: Eq](x: a, ys: List[a]) -> Bool`
    pub signature: String,
    /// Where the function is declared.
    pub span: Span,
}

/// One effect a program may perform, with the places that perform it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ManifestEntry {
    /// The effect's name.
    pub effect: String,
    /// Whether it is a host capability (granted by a policy) rather than
    /// a built-in effect such as `Fail`.
    pub capability: bool,
    /// Each operation performed outside a handler of the effect in the
    /// same function: `(operation, span)`, in source order. (An operation
    /// in a function that is only ever called inside a handler is listed
    /// too: the list says where the effect *may* come from.)
    pub sites: Vec<(String, Span)>,
}

/// What the type checker found.
#[derive(Clone, Debug, Default)]
pub struct Typed {
    /// Every diagnostic, sorted by position.
    pub diagnostics: Vec<Diagnostic>,
    /// The signature of every top-level function, in source order.
    pub signatures: Vec<Signature>,
    /// The effects the program's top level performs (empty unless the
    /// program is accepted), in alphabetical order.
    pub manifest: Vec<ManifestEntry>,
    /// What each name in the program refers to (see [`resolution`]):
    /// lowering compiles names from it, and from nothing else. Complete
    /// only when the program is accepted.
    pub resolution: Resolution,
    /// The units of work the check spent (see the module docs): at most
    /// [`WORK_LIMIT`] and a little over when the budget ran out,
    /// which the diagnostics then say (`E2013`).
    pub work: u64,
    /// The embedder's capability interfaces the program was checked with
    /// ([`CheckOptions::interfaces`]): lowering compiles it against the
    /// same ones, so the two cannot disagree. Empty for one input of a
    /// [`session`], whose compiled side holds the session's own.
    pub interfaces: Vec<String>,
    /// The inputs the host declared ([`CheckOptions::inputs`]), each with
    /// the data type read from its declaration, in the order declared
    /// (those whose type is malformed left out: the program is then
    /// rejected). Lowering gives each a global slot, filled before the
    /// first step.
    pub inputs: Vec<Input>,
}

/// What granted a program's capabilities, as the caller tells it: E3002
/// carries it as data ([`crate::Hint::Grant`]), so that the edge (the
/// command line, the REPL, an embedder) can say where to grant one more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GrantedBy {
    /// A list of capability names the caller gave (a person's, on the
    /// command line; an embedder's).
    List,
    /// A policy: its `[grants.NAME]` tables.
    Policy,
    /// No policy: the default, [`DEFAULT_GRANTS`].
    Default,
}

/// The capabilities granted when neither a policy nor a list of grants is
/// given: `Log`, and `Fail`, which needs no grant.
pub const DEFAULT_GRANTS: &[&str] = &[BuiltinEffect::Log.name()];

/// The effects the language and its runtime give a meaning of their own,
/// named once here for every crate that treats them apart (so a misspelt
/// name does not compile).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BuiltinEffect {
    /// `Fail`, declared by the prelude: it needs no grant, and unhandled at
    /// the top level it ends the run with its message instead of reaching
    /// the host; a denied operation the program may handle is raised as
    /// `Fail.fail` where it was performed.
    Fail,
    /// `Log`, the host capability granted when nothing else is
    /// ([`DEFAULT_GRANTS`]); what it writes counts against the output
    /// limit.
    Log,
}

impl BuiltinEffect {
    /// The effect's name, as programs, policies and the host write it.
    pub const fn name(self) -> &'static str {
        match self {
            BuiltinEffect::Fail => "Fail",
            BuiltinEffect::Log => "Log",
        }
    }

    /// Whether `name` names this effect.
    pub fn is(self, name: &str) -> bool {
        name == self.name()
    }
}

/// The capabilities a program may perform, and what granted them.
#[derive(Clone, Copy, Debug)]
pub struct Grants<'a> {
    /// The granted capability names (`Fail` needs none).
    pub names: &'a [String],
    /// Where they came from.
    pub by: GrantedBy,
}

impl<'a> Grants<'a> {
    /// `names`, granted by a list the caller gave ([`GrantedBy::List`]).
    pub fn list(names: &'a [String]) -> Grants<'a> {
        Grants {
            names,
            by: GrantedBy::List,
        }
    }
}

/// What a program is checked against beside the standard library: the
/// grants, and the host capabilities an embedder declares. The default
/// grants nothing in particular (any host capability may appear in the
/// manifest) and declares no capability of its own.
#[derive(Clone, Copy, Debug, Default)]
pub struct CheckOptions<'a> {
    /// With grants, a program whose manifest holds a host capability
    /// outside them is rejected (`E3002`; `Fail` needs no grant). `None`:
    /// the program is checked, not judged.
    pub grants: Option<Grants<'a>>,
    /// Host capabilities beside the built-in ones: each is Writ source
    /// holding `effect` declarations (with `///` comments), which programs
    /// may perform (if granted) but not redeclare.
    pub interfaces: &'a [String],
    /// The inputs the host passes the program (decision 009): each a
    /// top-level name of the program, of its declared type. A malformed
    /// type is `E2014`; a top-level definition of an input's name `E1011`.
    pub inputs: &'a [InputDecl],
}

/// Type-check a parsed program against the standard library and
/// `options` (its grants and the embedder's capabilities).
pub fn check(program: &Program, options: &CheckOptions<'_>) -> Typed {
    stacker::maybe_grow(STACK_RED_ZONE, STACK_CHUNK, || {
        items::check_program(program, options)
    })
}

/// The candidate closest to a misspelt `name`, if one is close enough to be
/// a typo (the rule the checker's "did you mean" uses).
pub fn suggest_name(name: &str, candidates: &[&str]) -> Option<String> {
    suggest::closest(name, candidates.iter().copied())
}

#[cfg(test)]
mod tests {
    use super::{BuiltinEffect, DEFAULT_GRANTS, HOST_CAPABILITIES};

    #[test]
    fn the_builtin_effects_are_the_librarys_fail_and_the_host_capability_log() {
        let library = super::session::CheckSession::new(&[]);
        let declared: Vec<String> = library.effect_ops().into_iter().map(|(e, _)| e).collect();
        for e in [BuiltinEffect::Fail, BuiltinEffect::Log] {
            assert!(declared.iter().any(|d| e.is(d)), "{e:?} is not declared");
            assert!(
                !e.is(&e.name().to_lowercase()),
                "{e:?} matches another name"
            );
        }
        // `Log` is a host capability and the default grant; `Fail` is
        // neither: it needs no grant.
        assert!(HOST_CAPABILITIES.contains(&BuiltinEffect::Log.name()));
        assert!(!HOST_CAPABILITIES.contains(&BuiltinEffect::Fail.name()));
        assert_eq!(DEFAULT_GRANTS, [BuiltinEffect::Log.name()]);
    }
}
