//! Words at the edge: the pure crates (`lang`, `runtime`, `host`) name no
//! command-line flag or REPL command, and the advice they report as data
//! reads right for an embedder, worded by `writ::render::words`. (The
//! command line's words are tested by their rendered text in
//! `tests/run/`, `tests/cli.rs` and `docs/errors.md`; the REPL's in
//! `tests/repl/`.)

use std::path::{Path, PathBuf};

use writ::render::words::{self, Edge};
use writ::{Code, Limits, render};

/// Words that belong to the command line or the REPL.
const EDGE_WORDS: &[&str] = &[
    "--limit",
    "--grant",
    "--policy",
    ":policy",
    ":limits",
    "--db",
    "--head",
    "--seed",
    "writ run",
    "writ repl",
    "writ check",
    "writ audit",
    "writ db",
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let name = entry.file_name();
        if name == "tests" || name == "tests.rs" {
            continue;
        }
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Whether `line` holds `word` as a word of its own: `:policy`, but not
/// the path `crate::policy`.
fn mentions(line: &str, word: &str) -> bool {
    line.match_indices(word).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':' || c == '-')
    })
}

#[test]
fn mentions_finds_words_not_paths() {
    assert!(mentions("switch with `:policy FILE`", ":policy"));
    assert!(mentions("--limit fuel=1", "--limit"));
    assert!(!mentions("use crate::policy::Policy;", ":policy"));
    assert!(!mentions("use crate::limits::Limit;", ":limits"));
    assert!(mentions("`writ run` grants", "writ run"));
}

#[test]
fn the_pure_crates_name_no_flag_or_repl_command() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for krate in ["lang/src", "runtime/src", "host/src"] {
        sources(&root.join(krate), &mut files);
    }
    assert!(files.len() > 50, "found only {} files", files.len());
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a source file");
        for (i, line) in text.lines().enumerate() {
            for word in EDGE_WORDS {
                if mentions(line, word) {
                    let rel = file.strip_prefix(&root).unwrap_or(file).display();
                    found.push(format!("{rel}:{}: `{word}`: {}", i + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "words of the command line or the REPL below the edge (word them in src/render/words.rs from data):\n{}",
        found.join("\n")
    );
}

const SPIN: &str = "fn spin(n) { spin(n + 1) }\nspin(0)\n";

/// `text` rendered as a person sees it, without colour.
fn shown(d: writ::Diagnostic, text: &str) -> String {
    render::human(&[d], "main.writ", text, false)
}

#[test]
fn an_embedders_limit_is_named_plainly() {
    let limits = Limits {
        fuel: 10_000,
        ..Limits::default()
    };
    let ran = writ::run_source(SPIN, &limits, &mut |_: &str| {}, None);
    let Some(Err(e)) = ran.result else {
        panic!("expected the run to stop");
    };
    assert_eq!(
        (e.limit, e.limit_value),
        (Some(writ::Limit::Fuel), Some(10_000))
    );
    let d = words::run_error_in(&e, Edge::Embedded, SPIN);
    assert_eq!(
        shown(d, SPIN),
        "[E5001] Error: expected the program to finish within 10000 units of fuel (steps and library work), but it needed more
   ╭─[ main.writ:1:14 ]
   │
 1 │ fn spin(n) { spin(n + 1) }
   │              ─────┬─────  
   │                   ╰─────── the fuel limit was reached here
   │ 
   │ Help: raise the fuel limit if the program needs more
   │ 
   │ Note: while running (innermost call first):
   │         spin at 1:14
   │         <top level> at 2:1
───╯
"
    );
}

#[test]
fn a_policys_limit_is_raised_in_the_policy() {
    use writ::host::{Engine, RunOptions, policy};
    let policy = policy::parse(
        "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[limits]\nfuel = 10000\n\n[grants.Log]\n",
    )
    .expect("a valid policy");
    let engine = Engine::new();
    let program = engine.check(SPIN, &policy).expect("accepted");
    let db = std::env::temp_dir().join(format!("writ-words-{}.db", std::process::id()));
    let options = RunOptions {
        store: Some(db.display().to_string()),
        ..Default::default()
    };
    let outcome = engine
        .run(&program, &policy, &options, &mut |_: &str| {})
        .expect("ran");
    let _ = std::fs::remove_file(&db);
    let Err(e) = outcome.result else {
        panic!("expected the run to stop");
    };
    let help = words::run_error_in(&e, Edge::Policy(None), SPIN).help;
    assert_eq!(
        help.as_deref(),
        Some("raise `fuel` in the policy's `[limits]` if the program needs more")
    );
}

#[test]
fn an_embedders_grants_are_named_plainly() {
    let src = "Http.get(\"https://a.example\")\n";
    // A list the embedder gave.
    let granted = vec!["Log".to_string()];
    let options = writ::CheckOptions {
        grants: Some(writ::Grants::list(&granted)),
        ..Default::default()
    };
    let checked = writ::check_source(src, &options);
    let [d] = checked.diagnostics.as_slice() else {
        panic!("expected one diagnostic: {:?}", checked.diagnostics);
    };
    assert_eq!(d.code, Code::EffectNotGranted);
    assert!(
        shown(d.clone(), src).contains(
            "Help: grant `Http` too, if the person allows it (the granted capabilities would be Log, Http); or remove what performs it"
        ),
        "{}",
        shown(d.clone(), src)
    );
    // The default of `run_source`, and of a session without a policy.
    let ran = writ::run_source(src, &Limits::default(), &mut |_: &str| {}, None);
    let [d] = ran.checked.diagnostics.as_slice() else {
        panic!("expected one diagnostic");
    };
    assert_eq!(
        d.help.as_deref(),
        Some(
            "without a policy only `Log` is granted (and `Fail`, which needs no grant); run it under a policy that grants `Http` (see docs/policy.md)"
        )
    );
    let mut session = writ::host::Session::new(
        writ::host::Engine::new(),
        None,
        writ::host::RunOptions::default(),
    )
    .expect("a session");
    let e = session.eval("<input 1>", src, &mut |_| {}, None);
    assert_eq!(e.diagnostics.first().map(|d| &d.help), Some(&d.help));
    // The edges word it again from the hint; an embedder's words stay.
    let mut cli = ran.checked.diagnostics.clone();
    words::reword(&mut cli, Edge::Cli);
    assert!(
        cli[0]
            .help
            .as_deref()
            .is_some_and(|h| h.contains("`--policy FILE`"))
    );
    let mut host = ran.checked.diagnostics.clone();
    words::reword(&mut host, Edge::Embedded);
    assert_eq!(host, ran.checked.diagnostics);
}
