//! The type checker's work is bounded: programs built to make types that
//! share parts (a value paired with itself, again and again) end quickly,
//! accepted or with a diagnostic, and the checker's work counter says so.
//!
//! Time is never asserted here: the property is stated in units of work
//! (`Typed::work`), which do not depend on the machine. The ignored test
//! `worst_generated_inputs_timing` prints wall times (figures, not
//! assertions); run it with
//! `cargo test --release -p writ-lang --test checker_budget -- --ignored --nocapture`.

use proptest::prelude::*;
use writ_lang::types::WORK_LIMIT;
use writ_lang::{Code, parse, types};

/// How one level of a chain of `let`s builds its value from the one
/// before (`p`), so that the type doubles (or not) at each level.
#[derive(Clone, Copy, Debug)]
enum Step {
    Tuple,
    Record,
    List,
    ListOfPairs,
    Match,
    Annotated,
    Lambda,
    Call,
    If,
    FnType,
    Interp,
}

impl Step {
    const ALL: [Step; 11] = [
        Step::Tuple,
        Step::Record,
        Step::List,
        Step::ListOfPairs,
        Step::Match,
        Step::Annotated,
        Step::Lambda,
        Step::Call,
        Step::If,
        Step::FnType,
        Step::Interp,
    ];

    /// Steps that double the type as a tree at each level.
    const DOUBLING: [Step; 6] = [
        Step::Tuple,
        Step::Record,
        Step::Match,
        Step::If,
        Step::Call,
        Step::Lambda,
    ];

    fn build(self, p: &str) -> String {
        match self {
            Step::Tuple => format!("({p}, {p})"),
            Step::Record => format!("{{ l: {p}, r: {p} }}"),
            Step::List => format!("[{p}, {p}]"),
            Step::ListOfPairs => format!("[({p}, {p})]"),
            Step::Match => format!("match {p} {{ x => (x, x) }}"),
            Step::Annotated => format!("pair({p})"),
            Step::Lambda => format!("(fn(x) {{ (x, x) }})({p})"),
            Step::Call => format!("dup({p})"),
            Step::If => format!("if true {{ ({p}, {p}) }} else {{ ({p}, {p}) }}"),
            Step::FnType => format!("fn(y) {{ ({p}, {p}) }}"),
            Step::Interp => format!("\"${{{p}}}\""),
        }
    }
}

/// How the last value is used.
#[derive(Clone, Copy, Debug)]
enum Use {
    Eq,
    Ord,
    Show,
    TwoCopies,
    MatchEq,
    Print,
}

fn step() -> impl Strategy<Value = Step> {
    prop::sample::select(Step::ALL.to_vec())
}

fn use_() -> impl Strategy<Value = Use> {
    prop::sample::select(vec![
        Use::Eq,
        Use::Ord,
        Use::Show,
        Use::TwoCopies,
        Use::MatchEq,
        Use::Print,
    ])
}

/// A program: a chain of `let`s (inside a function when `nested`), built
/// step by step, twice (`v` and `w`), then a use of the last value.
fn program(steps: &[Step], last: Use, nested: bool) -> String {
    let mut out = String::from("fn dup(x) { (x, x) }\nfn pair[a](x: a) -> (a, a) { (x, x) }\n");
    let mut body = String::new();
    body.push_str(if nested {
        "let v0 = a\nlet w0 = a\n"
    } else {
        "let v0 = 1\nlet w0 = 1\n"
    });
    for (i, s) in steps.iter().enumerate() {
        let n = i + 1;
        body.push_str(&format!("let v{n} = {}\n", s.build(&format!("v{i}"))));
        body.push_str(&format!("let w{n} = {}\n", s.build(&format!("w{i}"))));
    }
    let n = steps.len();
    let tail = match last {
        Use::Eq => format!("v{n} == v{n}"),
        Use::Ord => format!("v{n} < v{n}"),
        Use::Show => format!("\"${{v{n}}}\""),
        Use::TwoCopies => format!("v{n} == w{n}"),
        Use::MatchEq => format!("match v{n} {{ (p, q) => p == q, _ => false }}"),
        Use::Print => format!("v{n} + 1"),
    };
    body.push_str(&tail);
    body.push('\n');
    if nested {
        out.push_str(&format!("fn f(a) {{\n{body}}}\nf(1)\n"));
    } else {
        out.push_str(&body);
    }
    out
}

/// Check `src`; the codes found and the work spent.
fn check(src: &str) -> (Vec<Code>, u64) {
    let parsed = parse(src);
    assert!(!parsed.has_errors(), "{src}\n{:?}", parsed.diagnostics);
    let typed = types::check(&parsed.program, &Default::default());
    (codes(&typed.diagnostics), typed.work)
}

/// The codes of `diagnostics`.
fn codes(diagnostics: &[writ_lang::Diagnostic]) -> Vec<Code> {
    diagnostics.iter().map(|d| d.code).collect()
}

/// The programs of this file stay far below the budget: the memos make
/// every walk visit a shared part once, and a type too large as a tree
/// is cut at its `let` or call (E2010).
const GENERATED_CEILING: u64 = WORK_LIMIT / 20;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn shared_types_end_within_the_budget(
        steps in prop::collection::vec(step(), 1..60),
        last in use_(),
        nested in any::<bool>(),
    ) {
        let src = program(&steps, last, nested);
        let (codes, work) = check(&src);
        prop_assert!(
            work <= GENERATED_CEILING,
            "{work} units (ceiling {GENERATED_CEILING}) for\n{src}\n{codes:?}"
        );
        prop_assert!(!codes.contains(&Code::CheckBudget), "{src}\n{codes:?}");
    }
}

/// `count` functions each matching a record of 12 `Bool` fields with arms
/// that each test a different field: each match is accepted on its own,
/// but checking one costs a few hundred thousand units.
fn many_wide_matches(count: usize) -> String {
    let names = [
        "address", "age", "bank", "credit", "device", "email", "fraud", "identity", "income",
        "location", "name", "phone",
    ];
    let mut out = format!(
        "type Checks = {{ {}, strict: Bool }}\n",
        names.map(|n| format!("{n}: Bool")).join(", ")
    );
    for c in 0..count {
        out.push_str(&format!(
            "fn decide{c}(c: Checks) -> Str {{\n  match c {{\n"
        ));
        for n in names {
            out.push_str(&format!(
                "    {{ {n}: false, strict: true, .. }} => \"no\",\n"
            ));
        }
        for n in names {
            out.push_str(&format!(
                "    {{ {n}: true, strict: false, .. }} => \"yes\",\n"
            ));
        }
        out.push_str("    { strict: true, .. } => \"yes\",\n    _ => \"no\",\n  }\n}\n");
    }
    out
}

#[test]
fn the_issue_repro_is_cut_at_the_first_type_too_large() {
    for last in [Use::Eq, Use::Show] {
        let src = program(&[Step::Tuple; 59], last, false);
        let (codes, work) = check(&src);
        // Once for `v`, once for `w` (built the same way beside it).
        assert_eq!(codes, vec![Code::TooComplex; 2], "{last:?}");
        assert!(work < GENERATED_CEILING, "{work}");
    }
}

#[test]
fn a_chain_below_the_limit_is_accepted_for_each_step() {
    // 2^13 leaves: large, but below the limit as a tree.
    for s in Step::DOUBLING {
        let src = program(&[s; 13], Use::Eq, false);
        let (codes, _) = check(&src);
        assert_eq!(codes, Vec::<Code>::new(), "{s:?}\n{src}");
    }
    // Lists do not double: a list of a list of ... is accepted at any depth.
    let src = program(&[Step::List; 59], Use::Eq, true);
    assert_eq!(check(&src).0, Vec::<Code>::new());
}

#[test]
fn a_chain_past_the_limit_is_rejected_for_each_step() {
    for s in Step::DOUBLING
        .into_iter()
        .chain([Step::ListOfPairs, Step::FnType])
    {
        for nested in [false, true] {
            let src = program(&[s; 40], Use::TwoCopies, nested);
            let (codes, work) = check(&src);
            // At least once per chain; a call of a generic function on a
            // value already reported starts from a fresh type again, so a
            // long chain of calls may be reported again further on.
            assert!(
                codes.len() >= 2 && codes.iter().all(|c| *c == Code::TooComplex),
                "{s:?} nested {nested}: {codes:?}\n{src}"
            );
            assert!(work < GENERATED_CEILING, "{s:?}: {work}");
        }
    }
}

#[test]
fn many_wide_matches_are_accepted_until_the_budget_runs_out() {
    let (codes, work) = check(&many_wide_matches(2));
    assert_eq!(codes, Vec::<Code>::new());
    // Each match costs the same: enough of them spend the budget.
    let per_match = work / 2;
    let over = usize::try_from(WORK_LIMIT / per_match.max(1) + 2).unwrap_or(usize::MAX);
    let (codes, work) = check(&many_wide_matches(over));
    assert_eq!(codes, vec![Code::CheckBudget]);
    assert!(work > WORK_LIMIT);
}

/// Figures, not assertions: the wall time of the worst inputs found.
#[test]
#[ignore = "a benchmark: prints wall times"]
fn worst_generated_inputs_timing() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = (prop::collection::vec(step(), 1..60), use_(), any::<bool>());
    let mut worst: Vec<(u64, std::time::Duration, String)> = Vec::new();
    for _ in 0..2000 {
        let Ok(tree) = strategy.new_tree(&mut runner) else {
            continue;
        };
        let (steps, last, nested) = tree.current();
        let src = program(&steps, last, nested);
        let start = std::time::Instant::now();
        let (_, work) = check(&src);
        worst.push((work, start.elapsed(), src));
    }
    worst.sort_by_key(|w| std::cmp::Reverse(w.1));
    for (work, time, src) in worst.iter().take(5) {
        println!("{time:?}\t{work} units\t{} bytes", src.len());
    }
    let named = [
        ("repro ==", program(&[Step::Tuple; 59], Use::Eq, false)),
        ("repro ${}", program(&[Step::Tuple; 59], Use::Show, false)),
        ("wide matches over budget", many_wide_matches(200)),
    ];
    for (name, src) in named {
        let start = std::time::Instant::now();
        let (codes, work) = check(&src);
        println!("{name}: {:?}\t{work} units\t{codes:?}", start.elapsed());
    }
}

/// Every `.writ` file under `dir`, recursively.
fn writ_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            writ_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "writ") {
            out.push(path);
        }
    }
}

/// The budget is generous: every program shipped with Writ (examples,
/// test programs) needs less than a fiftieth of it, as `docs/errors.md`
/// says (E2013).
#[test]
fn shipped_programs_use_a_small_part_of_the_budget() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["examples", "tests"] {
        writ_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 100, "found only {} programs", files.len());
    let mut most = (0u64, String::new());
    for path in files {
        let Ok(src) = std::fs::read_to_string(&path) else {
            continue;
        };
        let parsed = parse(&src);
        if parsed.has_errors() {
            continue;
        }
        let typed = types::check(&parsed.program, &Default::default());
        if typed.work > most.0 {
            most = (typed.work, path.display().to_string());
        }
    }
    println!("most work: {} units ({})", most.0, most.1);
    assert!(most.0 < WORK_LIMIT / 50, "{} units for {}", most.0, most.1);
}

/// "Did you mean" compares a misspelt name with every name in scope: with
/// many names and many misspellings that was quadratic. Suggestions are
/// worked out only for the diagnostics that are shown, and charged.
#[test]
fn many_unknown_names_among_many_names_end_within_the_budget() {
    let mut src = String::new();
    for i in 0..5_000 {
        src.push_str(&format!("let total_amount_{i} = {i}\n"));
    }
    for i in 0..5_000 {
        src.push_str(&format!("total_amont_{i}\n"));
    }
    let parsed = parse(&src);
    let typed = types::check(&parsed.program, &Default::default());
    let codes = codes(&typed.diagnostics);
    assert!(codes.iter().all(|c| *c == Code::UnknownName), "{codes:?}");
    // The diagnostics shown still make their suggestion.
    let first = typed.diagnostics.first().map(|d| format!("{d:?}"));
    assert!(first.is_some_and(|d| d.contains("total_amount_0")));
    // Comparing 5,000 names with each of the 100 shown is charged.
    assert!(typed.work > 100 * 5_000, "{}", typed.work);
    assert!(typed.work < WORK_LIMIT / 4, "{}", typed.work);
}

/// In a session (the REPL) each input has its own budget, and values kept
/// from earlier inputs are walked once however they share parts.
#[test]
fn each_session_input_has_its_own_budget() {
    use writ_lang::types::session::CheckSession;
    let input = |session: &CheckSession, src: &str| {
        let parsed = parse(src);
        assert!(!parsed.has_errors());
        session.check(&parsed.program, None)
    };
    let mut session = CheckSession::new(&[]);
    // Values below the limit, kept by the session.
    let chain = program(&[Step::Tuple; 13], Use::Eq, false);
    let first = input(&session, &chain);
    assert!(first.accepted(), "{:?}", first.typed.diagnostics);
    session = first.commit().expect("accepted");
    // Doubling them past the limit in a later input is refused there.
    let later = input(&session, "let big = (v13, (v13, (v13, v13)))\nbig == big\n");
    assert_eq!(codes(&later.typed.diagnostics), vec![Code::TooComplex]);
    // An input that spends the whole budget is refused, and the next
    // input starts afresh.
    let heavy = input(&session, &many_wide_matches(140));
    assert_eq!(codes(&heavy.typed.diagnostics), vec![Code::CheckBudget]);
    let next = input(&session, "v13 == v13");
    assert!(next.accepted(), "{:?}", next.typed.diagnostics);
    assert!(next.typed.work < GENERATED_CEILING);
}

/// Handlers nested `depth` deep, each in the clause of the one around it,
/// the innermost holding a list of `width` uses of its state.
fn nested_handlers(depth: usize, width: usize) -> String {
    let mut e = format!("list.length([{}])", vec!["s"; width].join(", "));
    for _ in 0..depth {
        e = format!(
            "handle St.bump() with (s = 0) {{ St.bump() => {{ let z = {e}; resume((), s + 1) }} }}"
        );
    }
    format!("effect St {{ fn bump() -> Unit }}\nfn f() -> Unit / {{St}} {{\n{e}\n}}\n")
}

#[test]
fn the_handler_trap_walks_are_charged_to_the_budget() {
    // The warnings' checks walk each handler's clauses, and so every
    // handler nested in them once per handler around it: work that grows
    // with depth times width, which the budget must see (else a program
    // under the size limit could make the checker walk for minutes).
    let (_, shallow) = check(&nested_handlers(1, 4000));
    let (codes, deep) = check(&nested_handlers(40, 4000));
    assert!(!codes.contains(&Code::CheckBudget), "{codes:?}");
    assert!(
        deep >= shallow + 39 * 4000,
        "40 nested handlers over 4000 uses spent {deep} units, one spent {shallow}"
    );
}

/// Printing a session's bindings has its own bound per type, so a long
/// input whose types are deep still shows every binding's type (each
/// cut at the printed length), and the printing adds a constant per
/// binding rather than a walk of each whole type.
#[test]
fn every_binding_of_a_long_input_shows_its_type() {
    use writ_lang::types::session::CheckSession;
    let count = 6_000;
    let mut src = String::from("let a0 = 1\n");
    for i in 1..count {
        src.push_str(&format!("let a{i} = [a{}]\n", i - 1));
    }
    let parsed = parse(&src);
    assert!(!parsed.has_errors());
    let session = CheckSession::new(&[]);
    let checked = session.check(&parsed.program, None);
    assert!(checked.accepted(), "{:?}", checked.typed.diagnostics);
    assert_eq!(checked.defined.len(), count);
    let first_empty = checked.defined.iter().find(|d| d.ty.is_empty());
    assert!(first_empty.is_none(), "{first_empty:?} has no type shown");
    let last = checked.defined.last().map(|d| d.ty.as_str()).unwrap_or("");
    assert!(
        last.starts_with("List[List[") && last.ends_with('…'),
        "{last}"
    );
    assert_eq!(
        checked.defined.get(2).map(|d| d.ty.as_str()),
        Some("List[List[Int]]")
    );
}
