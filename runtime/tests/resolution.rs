//! Lowering compiles names from the checker's resolution and from nothing
//! else (decision 007): programs with shadowing, top-level redefinition,
//! local functions and handlers run as the checker resolved them, and a
//! resolution changed on purpose changes what runs, the way the new
//! resolution says. A name the checker did not resolve is an internal
//! error, not a guess by name. (That a nested clause's `resume` is its
//! own, as the analysis of handler clauses reads it from the resolution,
//! is tested beside that analysis, in `runtime/src/lower/handlers.rs`:
//! it reads the compiled handlers, which are not the crate's API.)

use writ_lang::types::{Resolution, Resolved};
use writ_lang::{Code, Span};
use writ_runtime::{Limits, LogHost, RunError, run};

/// The span of the `nth` (from 0) whole-word occurrence of `name` in
/// `src`.
fn at(src: &str, name: &str, nth: usize) -> Span {
    let word = |i: usize| {
        let before = src[..i].chars().next_back();
        let after = src[i + name.len()..].chars().next();
        let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !part(before) && !part(after)
    };
    let start = src
        .match_indices(name)
        .map(|(i, _)| i)
        .filter(|i| word(*i))
        .nth(nth)
        .expect("the occurrence exists");
    Span::new(start, start + name.len())
}

/// Check `src` (which must be accepted), let `edit` change the checker's
/// resolution, then compile and run it; the display of its value.
fn run_with(src: &str, edit: impl FnOnce(&mut Resolution)) -> Result<String, RunError> {
    let parsed = writ_lang::parse(src);
    assert!(!parsed.has_errors(), "{:#?}", parsed.diagnostics);
    let mut typed = writ_lang::types::check(&parsed.program, &Default::default());
    assert!(
        !typed.diagnostics.iter().any(|d| d.is_error()),
        "{:#?}",
        typed.diagnostics
    );
    edit(&mut typed.resolution);
    let module = writ_runtime::compile(&parsed.program, &typed)?;
    let mut host = LogHost::new(|_| {});
    run(&module, &Limits::default(), &mut host, None).map(|v| {
        writ_runtime::display::to_string(
            &v,
            &module,
            writ_runtime::display::StrForm::Quoted,
            10_000,
        )
    })
}

/// Point the name at `from` to the local binder at `to`.
fn local(r: &mut Resolution, from: Span, to: Span) {
    assert!(
        matches!(r.get(from), Some(Resolved::Local(_))),
        "{:?}",
        r.get(from)
    );
    r.insert(from, Resolved::Local(to));
}

#[test]
fn shadowing_follows_the_checker() {
    let src = "fn f(y) {\n  let y = y + 10\n  y\n}\nf(1)\n";
    assert_eq!(run_with(src, |_| {}).unwrap(), "11");
    // The last `y` made to mean the parameter, which the `let` hides.
    let param = at(src, "y", 0);
    let last = at(src, "y", 3);
    assert_eq!(run_with(src, |r| local(r, last, param)).unwrap(), "1");
    // No entry: no lookup by name behind the checker's back.
    let e = run_with(src, |r| {
        r.remove(last);
    })
    .unwrap_err();
    assert_eq!(e.code, Code::InternalError, "{e:#?}");
}

#[test]
fn top_level_redefinition_follows_the_checker() {
    let src = "let x = 1\nfn get() { x }\nlet x = 2\n(get(), x)\n";
    assert_eq!(run_with(src, |_| {}).unwrap(), "(1, 2)");
    let first = at(src, "x", 0);
    let second = at(src, "x", 2);
    let in_get = at(src, "x", 1);
    let last = at(src, "x", 3);
    assert_eq!(
        run_with(src, |r| {
            assert_eq!(r.get(in_get), Some(&Resolved::Top(first)));
            r.insert(in_get, Resolved::Top(second));
        })
        .unwrap(),
        "(2, 2)"
    );
    assert_eq!(
        run_with(src, |r| {
            assert_eq!(r.get(last), Some(&Resolved::Top(second)));
            r.insert(last, Resolved::Top(first));
        })
        .unwrap(),
        "(1, 1)"
    );
}

#[test]
fn local_functions_follow_the_checker() {
    let src = "fn outer(n) {\n  fn twice(k) { k * 2 }\n  fn count(k) { if k == 0 { 0 } else { 1 + count(k - 1) } }\n  count(n)\n}\nouter(3)\n";
    assert_eq!(run_with(src, |_| {}).unwrap(), "3");
    let twice = at(src, "twice", 0);
    let call = at(src, "count", 2);
    let recursive = at(src, "count", 1);
    // The outer call made to mean `twice`.
    assert_eq!(run_with(src, |r| local(r, call, twice)).unwrap(), "6");
    // The recursive call made to mean `twice`, which `count` then captures.
    assert_eq!(run_with(src, |r| local(r, recursive, twice)).unwrap(), "5");
}

#[test]
fn handlers_follow_the_checker() {
    let src = "effect Ask {\n  fn ask(n: Int) -> Int\n}\nhandle Ask.ask(1) + Ask.ask(2) with (base = 100) {\n  Ask.ask(n) => resume(n + base, base)\n}\n";
    assert_eq!(run_with(src, |_| {}).unwrap(), "203");
    let n_use = at(src, "n", 2);
    let base = at(src, "base", 0);
    // The operation's argument made to mean the handler's parameter.
    assert_eq!(run_with(src, |r| local(r, n_use, base)).unwrap(), "400");
}

/// The checker binds a clause's `resume` after its parameters: a parameter
/// named `resume` is hidden by the continuation. (Lowering used to bind it
/// the other way round, and ran such a clause calling the argument.)
#[test]
fn a_parameter_named_resume_is_hidden_by_the_continuation() {
    let src = "effect Ask {\n  fn ask(n: Int) -> Int\n}\nhandle Ask.ask(1) + 1 with {\n  Ask.ask(resume) => {\n    let k = resume\n    k(41)\n  }\n}\n";
    assert_eq!(run_with(src, |_| {}).unwrap(), "42");
}

/// A session's inputs redefine names; each input is parsed at 0 here, so
/// spans repeat across inputs (an embedder may do that): an earlier
/// input's names are resolved by name, a later one replacing an earlier
/// one, and a function keeps the binding it was checked with.
#[test]
fn a_session_follows_the_checker_across_inputs() {
    let mut checker = writ_lang::types::session::CheckSession::new(&[]);
    let mut session = writ_runtime::session::CodeSession::new(&[]).unwrap();
    let mut last = String::new();
    for input in ["let x = 1", "fn f() { x }", "let x = 2", "(f(), x)"] {
        let parsed = writ_lang::parse(input);
        assert!(!parsed.has_errors());
        let checked = checker.check(&parsed.program, None);
        assert!(checked.accepted(), "{:#?}", checked.typed.diagnostics);
        let prepared = session.prepare(&parsed.program, &checked.typed);
        let mut host = LogHost::new(|_| {});
        let v = session
            .run(&prepared, &Limits::default(), &mut host, None)
            .unwrap();
        last = writ_runtime::display::to_string(
            &v,
            prepared.module(),
            writ_runtime::display::StrForm::Quoted,
            10_000,
        );
        session.commit(prepared);
        checker = checked.commit().unwrap();
    }
    assert_eq!(last, "(1, 2)");
}
