//! Words at the edge: advice that depends on where a program was checked
//! or run, worded here from the data the pure crates report.
//!
//! The checker says which capability a program needs beyond its grants,
//! and where the grants came from as its caller told it
//! ([`writ_lang::Hint::Grant`]); the machine says which limit a run
//! exhausted, with its value, and the Writ stack at that point
//! ([`RunError`]). Neither knows whether a person typed `writ run`, sits
//! at the REPL or is an embedder's user, so neither names a flag or a
//! command: an [`Edge`] does, here. [`run_error`] also turns a run's error
//! into a diagnostic, formatting its trace.
//!
//! Invariants: the words of one edge never name another's commands (the
//! REPL's help never says `--limit`; an embedder's never names a flag or a
//! REPL command); the pure crates hold none of these words (a test greps
//! them); a policy's limit is raised in the policy, not with a flag that
//! would override what the person set.

use std::fmt::Write as _;

use writ_lang::types::GrantedBy;
use writ_lang::{Diagnostic, Hint, LineIndex, Span};
use writ_runtime::{Limit, RunError};

/// Where a program was checked or run: who words the advice, and where
/// its limits were set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edge<'a> {
    /// The command line (`writ check`, `writ run`): limits are raised
    /// with `--limit`, capabilities granted with `--grant` or a policy.
    Cli,
    /// A policy sets the limits (`[limits]`): `writ run --policy` for a
    /// limit no `--limit` named, or an embedder's engine. The policy
    /// file's path, when it is known.
    Policy(Option<&'a str>),
    /// The REPL: limits are raised with `:limits`, a policy chosen with
    /// `:policy`.
    Repl,
    /// An embedder's host, whose settings Writ does not know: neutral
    /// words (the limit by name, the grants as a list).
    Embedded,
    /// A test file run by `writ test`: limits are raised with `--limit`
    /// or a test's `Limits:` line, and a test has only `Log` and `Fail`
    /// (a capability is played by a handler in the test).
    Test,
    /// A `[[test]]` table of a `*_test.toml` file: its `limits` key sets
    /// the limits, over `--limit` and the policy's.
    TestTable,
}

/// How to raise `limit` at `edge`, with `it` for the limit (`it`, `the
/// limit`): `raise it with `--limit fuel=...``.
fn raise(limit: Limit, edge: Edge<'_>, it: &str) -> String {
    let name = limit.name();
    match edge {
        Edge::Cli => format!("raise {it} with `--limit {name}=...`"),
        Edge::Repl => format!("raise {it} with `:limits {name}=...`"),
        Edge::Policy(Some(path)) => format!("raise `{name}` in the policy's `[limits]` ({path})"),
        Edge::Policy(None) => format!("raise `{name}` in the policy's `[limits]`"),
        Edge::Embedded => format!("raise the {name} limit"),
        Edge::Test => format!(
            "raise {it} with `--limit {name}=...`, or with a line `Limits: {name}=...` in the test's doc comment"
        ),
        Edge::TestTable => format!("raise {it} with the test's `limits = [\"{name}=...\"]`"),
    }
}

/// The help of a run's error at `edge`: its own advice, and for an
/// exhausted limit (not a cancellation) how to raise it there. At the
/// REPL a cancellation needs none: the person pressed Ctrl-C.
pub fn run_help(e: &RunError, edge: Edge<'_>) -> Option<String> {
    let limit = match e.limit {
        Some(Limit::Cancelled) if edge == Edge::Repl => return None,
        Some(Limit::Cancelled) | None => return e.help.clone(),
        Some(l) => l,
    };
    let who = if edge == Edge::Repl {
        "the input"
    } else {
        "the program"
    };
    Some(match &e.help {
        Some(advice) => format!("{advice}; or {}", raise(limit, edge, "the limit")),
        None => format!("{} if {who} needs more", raise(limit, edge, "it")),
    })
}

/// A run's error as a diagnostic at `edge`: the primary label at its
/// span, its trace as a note (each call placed by `place`, which gives a
/// span's `line:column` or `input:line:column`), and its help for `edge`.
/// At the REPL, what cancels a run is Ctrl-C, and the message says so.
pub fn run_error(
    e: &RunError,
    edge: Edge<'_>,
    place: &dyn Fn(Span) -> Option<String>,
) -> Diagnostic {
    let message = match (e.limit, edge) {
        (Some(Limit::Cancelled), Edge::Repl) => "the run was stopped with Ctrl-C".to_string(),
        _ => e.message.clone(),
    };
    let mut d = Diagnostic::new(e.code, message);
    if let Some(span) = e.span {
        let label = match e.limit {
            Some(Limit::Cancelled) => "the run was cancelled here".to_string(),
            Some(l) => format!("the {} limit was reached here", l.name()),
            None => "here".to_string(),
        };
        d = d.with_primary(span, label);
    }
    if e.trace.len() > 1 || e.trace.first().is_some_and(|t| t.times > 1) {
        let mut note = String::from("while running (innermost call first):");
        for t in &e.trace {
            note.push_str("\n  ");
            note.push_str(&t.function);
            if let Some(at) = t.span.and_then(place) {
                let _ = write!(note, " at {at}");
            }
            if t.times > 1 {
                let _ = write!(note, ", {} times", t.times);
            }
        }
        d = d.with_note(note);
    }
    if let Some(h) = run_help(e, edge) {
        d = d.with_help(h);
    }
    d
}

/// [`run_error`] for a program whose text is `source`: the trace placed
/// by line and column in it.
pub fn run_error_in(e: &RunError, edge: Edge<'_>, source: &str) -> Diagnostic {
    let lines = LineIndex::new(source);
    run_error(e, edge, &|span: Span| {
        let p = lines.position(span.start);
        Some(format!("{}:{}", p.line, p.column))
    })
}

/// Word the help of every diagnostic that carries a [`Hint`] for `edge`;
/// at an edge with nothing more to say, the checker's neutral words stay.
pub fn reword(diagnostics: &mut [Diagnostic], edge: Edge<'_>) {
    for d in diagnostics {
        if let Some(help) = d.hint.as_ref().and_then(|h| hint_help(h, edge)) {
            d.help = Some(help);
        }
    }
}

/// A hint's help at `edge`, when the edge words it differently from the
/// checker.
fn hint_help(hint: &Hint, edge: Edge<'_>) -> Option<String> {
    let Hint::Grant {
        capability: name,
        granted,
        by,
    } = hint;
    match (by, edge) {
        (GrantedBy::List, Edge::Cli) => {
            let mut all = granted.clone();
            all.push(name.clone());
            Some(format!(
                "grant `{name}` (for example `--grant {}`), or remove what performs it",
                all.join(",")
            ))
        }
        (GrantedBy::Default, Edge::Cli) => Some(format!(
            "without `--policy`, `writ run` grants only `Log` (and `Fail`, which needs no grant); run it with `--policy FILE` whose policy grants `{name}` (see docs/policy.md)"
        )),
        (GrantedBy::Default, Edge::Test) => Some(format!(
            "tests run with only `Log` and `Fail`: handle `{name}` in the test (a handler that plays the host), keep it in a function the tests do not call, or test the whole program under a policy in a `_test.toml` file (docs/testing.md)"
        )),
        (GrantedBy::Default, Edge::Repl) => Some(format!(
            "the REPL has no policy in force, so it grants only `Log` (and `Fail`, which needs no grant); switch to a policy that grants `{name}` with `:policy FILE`, or start with `writ repl --policy FILE` (see docs/policy.md)"
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use writ_lang::Code;

    fn fuel() -> RunError {
        RunError::limit(Limit::Fuel, 1000, "out of fuel")
    }

    #[test]
    fn each_edge_says_how_to_raise_a_limit_its_own_way() {
        let e = fuel();
        let help = |edge| run_help(&e, edge).unwrap_or_default();
        assert_eq!(
            help(Edge::Cli),
            "raise it with `--limit fuel=...` if the program needs more"
        );
        assert_eq!(
            help(Edge::Repl),
            "raise it with `:limits fuel=...` if the input needs more"
        );
        assert_eq!(
            help(Edge::Test),
            "raise it with `--limit fuel=...`, or with a line `Limits: fuel=...` in the test's doc comment if the program needs more"
        );
        assert_eq!(
            help(Edge::TestTable),
            "raise it with the test's `limits = [\"fuel=...\"]` if the program needs more"
        );
        assert_eq!(
            help(Edge::Policy(Some("p.toml"))),
            "raise `fuel` in the policy's `[limits]` (p.toml) if the program needs more"
        );
        assert_eq!(
            help(Edge::Embedded),
            "raise the fuel limit if the program needs more"
        );
        assert_eq!(e.limit_value, Some(1000));
    }

    #[test]
    fn advice_comes_first_and_a_cancellation_is_not_raised() {
        let e = RunError::limit(Limit::Depth, 10, "deep").with_help("use a tail call");
        assert_eq!(
            run_help(&e, Edge::Policy(None)).as_deref(),
            Some("use a tail call; or raise `depth` in the policy's `[limits]`")
        );
        let c = RunError::limit(Limit::Cancelled, 0, "stopped");
        assert_eq!(c.limit_value, None);
        assert_eq!(run_help(&c, Edge::Cli), c.help);
        let plain = RunError::new(Code::DivisionByZero, "x").with_help("h");
        assert_eq!(run_help(&plain, Edge::Repl).as_deref(), Some("h"));
    }

    #[test]
    fn at_the_repl_a_cancellation_is_ctrl_c() {
        let c = RunError::limit(Limit::Cancelled, 0, "the host cancelled the run");
        let at = |edge| run_error(&c, edge, &|_| None);
        let repl = at(Edge::Repl);
        assert_eq!(
            (repl.message.as_str(), repl.help),
            ("the run was stopped with Ctrl-C", None)
        );
        let cli = at(Edge::Embedded);
        assert_eq!(cli.message, "the host cancelled the run");
        assert_eq!(cli.help, c.help);
    }

    #[test]
    fn grant_hints_are_worded_only_where_the_edge_knows_better() {
        let hint = |by| {
            Diagnostic::new(Code::EffectNotGranted, "m")
                .with_help("neutral")
                .with_hint(Hint::Grant {
                    capability: "Http".to_string(),
                    granted: vec!["Log".to_string()],
                    by,
                })
        };
        let worded = |by, edge| {
            let mut d = [hint(by)];
            reword(&mut d, edge);
            d[0].help.clone().unwrap_or_default()
        };
        assert!(worded(GrantedBy::List, Edge::Cli).contains("`--grant Log,Http`"));
        assert_eq!(worded(GrantedBy::List, Edge::Embedded), "neutral");
        assert!(worded(GrantedBy::Default, Edge::Repl).contains("`:policy FILE`"));
        assert!(worded(GrantedBy::Default, Edge::Cli).contains("`--policy FILE`"));
        assert_eq!(worded(GrantedBy::Default, Edge::Embedded), "neutral");
        assert!(worded(GrantedBy::Default, Edge::Test).contains("a handler that plays the host"));
        assert_eq!(worded(GrantedBy::List, Edge::Test), "neutral");
        assert_eq!(worded(GrantedBy::Policy, Edge::Cli), "neutral");
        assert_eq!(worded(GrantedBy::Policy, Edge::Repl), "neutral");
    }
}
