//! Tests of the exhaustiveness and redundancy checker.

use super::*;
use std::time::{Duration, Instant};

/// Check `arms` with the usual budget.
fn check(arms: &[Arm]) -> Report {
    check_within(arms, BUDGET)
}

// ---- building patterns ----

fn sum(ctors: &[(&str, usize)]) -> Family {
    Family::Sum(ctors.iter().map(|(n, a)| ((*n).to_string(), *a)).collect())
}

fn ctor(family: &Family, index: usize, args: Vec<Pat>) -> Pat {
    Pat::Ctor {
        family: family.clone(),
        index,
        args,
    }
}

fn option() -> Family {
    sum(&[("None", 0), ("Some", 1)])
}

fn none() -> Pat {
    ctor(&option(), 0, vec![])
}

fn some(p: Pat) -> Pat {
    ctor(&option(), 1, vec![p])
}

fn shape() -> Family {
    sum(&[("Circle", 1), ("Rect", 2)])
}

fn circle(p: Pat) -> Pat {
    ctor(&shape(), 0, vec![p])
}

fn rect(p: Pat, q: Pat) -> Pat {
    ctor(&shape(), 1, vec![p, q])
}

fn result() -> Family {
    sum(&[("Ok", 1), ("Err", 1)])
}

fn b(value: bool) -> Pat {
    ctor(&Family::Bool, usize::from(!value), vec![])
}

fn unit() -> Pat {
    ctor(&Family::Unit, 0, vec![])
}

fn tuple(ps: Vec<Pat>) -> Pat {
    ctor(&Family::Tuple(ps.len()), 0, ps)
}

fn record(fields: &[&str], ps: Vec<Pat>) -> Pat {
    let names: Rc<[String]> = fields.iter().map(|f| (*f).to_string()).collect();
    ctor(&Family::Record(names), 0, ps)
}

fn nil() -> Pat {
    ctor(&Family::List, 0, vec![])
}

fn cons(head: Pat, tail: Pat) -> Pat {
    ctor(&Family::List, 1, vec![head, tail])
}

/// `[items...]`, or `[items..., ..]` when `open`.
fn list(items: Vec<Pat>, open: bool) -> Pat {
    let end = if open { Pat::Wild } else { nil() };
    items
        .into_iter()
        .rev()
        .fold(end, |tail, head| cons(head, tail))
}

fn int(n: i64) -> Pat {
    Pat::Lit(Lit::Int(n))
}

fn float(x: f64) -> Pat {
    Pat::Lit(Lit::Float(x))
}

fn string(s: &str) -> Pat {
    Pat::Lit(Lit::Str(s.to_string()))
}

fn w() -> Pat {
    Pat::Wild
}

fn arm(pat: Pat) -> Arm {
    Arm {
        pat,
        guarded: false,
    }
}

fn guarded(pat: Pat) -> Arm {
    Arm { pat, guarded: true }
}

fn run(arms: Vec<Arm>) -> Report {
    check(&arms)
}

fn assert_ok(report: &Report) {
    assert!(!report.gave_up, "gave up: {report:?}");
    assert!(report.missing.is_empty(), "missing: {report:?}");
    assert!(report.unreachable.is_empty(), "unreachable: {report:?}");
}

fn assert_missing(report: &Report, expected: &[&str]) {
    assert!(!report.gave_up, "gave up: {report:?}");
    assert_eq!(report.missing, expected, "{report:?}");
}

/// Run `f` on a thread with a small stack, to show that deep recursion
/// grows the stack instead of overflowing it.
fn on_small_stack<F: FnOnce() + Send + 'static>(f: F) {
    let handle = std::thread::Builder::new().stack_size(1024 * 1024).spawn(f);
    match handle {
        Ok(handle) => assert!(handle.join().is_ok(), "thread panicked"),
        Err(e) => panic!("spawn failed: {e}"),
    }
}

// ---- exhaustive matches ----

#[test]
fn option_exhaustive() {
    assert_ok(&run(vec![arm(none()), arm(some(w()))]));
    assert_ok(&run(vec![arm(some(w())), arm(none())]));
}

#[test]
fn result_exhaustive() {
    let r = result();
    assert_ok(&run(vec![
        arm(ctor(&r, 0, vec![w()])),
        arm(ctor(&r, 1, vec![w()])),
    ]));
}

#[test]
fn bool_unit_exhaustive() {
    assert_ok(&run(vec![arm(b(true)), arm(b(false))]));
    assert_ok(&run(vec![arm(unit())]));
}

#[test]
fn tuple_of_bools_exhaustive() {
    assert_ok(&run(vec![
        arm(tuple(vec![b(true), b(true)])),
        arm(tuple(vec![b(true), b(false)])),
        arm(tuple(vec![b(false), w()])),
    ]));
}

#[test]
fn record_exhaustive() {
    let f = ["kind", "name"];
    assert_ok(&run(vec![
        arm(record(&f, vec![circle(w()), w()])),
        arm(record(&f, vec![rect(w(), w()), string("x")])),
        arm(record(&f, vec![rect(w(), w()), w()])),
    ]));
}

#[test]
fn list_exhaustive() {
    assert_ok(&run(vec![
        arm(list(vec![], false)),
        arm(list(vec![w()], true)),
    ]));
    assert_ok(&run(vec![
        arm(list(vec![w(), w()], true)),
        arm(list(vec![w()], false)),
        arm(list(vec![], false)),
    ]));
}

#[test]
fn sum_of_fifty_exhaustive_and_quick() {
    let names: Vec<String> = (0..50).map(|i| format!("C{i}")).collect();
    let family = Family::Sum(names.iter().map(|n| (n.clone(), 1)).collect());
    let arms: Vec<Arm> = (0..50)
        .map(|i| arm(ctor(&family, i, vec![b(true)])))
        .chain((0..50).map(|i| arm(ctor(&family, i, vec![w()]))))
        .collect();
    let start = Instant::now();
    assert_ok(&check(&arms));
    assert!(start.elapsed() < Duration::from_secs(1));
}

// ---- missing values ----

#[test]
fn missing_none() {
    assert_missing(&run(vec![arm(some(w()))]), &["None"]);
}

#[test]
fn missing_nested_constructor() {
    // match opt { None => .., Some(Circle(r)) => .. }
    let report = run(vec![arm(none()), arm(some(circle(w())))]);
    assert_missing(&report, &["Some(Rect(_, _))"]);
    assert!(report.unreachable.is_empty());
}

#[test]
fn missing_err_and_false() {
    let r = result();
    assert_missing(&run(vec![arm(ctor(&r, 0, vec![w()]))]), &["Err(_)"]);
    assert_missing(&run(vec![arm(b(true))]), &["false"]);
}

#[test]
fn missing_several_constructors_capped_at_six() {
    let f = sum(&[("A", 0), ("B", 1), ("C", 0), ("D", 2), ("E", 0)]);
    assert_missing(
        &run(vec![arm(ctor(&f, 0, vec![]))]),
        &["B(_)", "C", "D(_, _)", "E"],
    );
    assert_missing(
        &run(vec![arm(ctor(&f, 3, vec![w(), w()]))]),
        &["A", "B(_)", "C", "E"],
    );
}

#[test]
fn empty_match_misses_anything() {
    let report = run(vec![]);
    assert_missing(&report, &["_"]);
    assert!(report.unreachable.is_empty());
}

#[test]
fn missing_empty_list() {
    assert_missing(&run(vec![arm(list(vec![w()], true))]), &["[]"]);
}

#[test]
fn missing_non_empty_list() {
    assert_missing(&run(vec![arm(list(vec![], false))]), &["[_, ..]"]);
}

#[test]
fn missing_long_list() {
    let report = run(vec![
        arm(list(vec![w()], false)),
        arm(list(vec![w(), w()], false)),
        arm(list(vec![], false)),
    ]);
    assert_missing(&report, &["[_, _, _, ..]"]);
}

#[test]
fn missing_list_with_elements() {
    let report = run(vec![
        arm(list(vec![], false)),
        arm(list(vec![b(false)], true)),
        arm(list(vec![b(true)], false)),
    ]);
    assert_missing(&report, &["[true, _, ..]"]);
    let report = run(vec![
        arm(list(vec![], false)),
        arm(list(vec![w()], false)),
        arm(list(vec![b(true), b(true)], false)),
        arm(list(vec![w(), w(), w()], true)),
    ]);
    // Algorithm I: where a constructor (`false`) is missing, only values
    // headed by it are listed, not `[true, false]` as well.
    assert_missing(&report, &["[false, _]"]);
}

#[test]
fn tuple_of_bools_missing_false_true() {
    let report = run(vec![
        arm(tuple(vec![b(true), w()])),
        arm(tuple(vec![w(), b(false)])),
    ]);
    assert_missing(&report, &["(false, true)"]);
}

#[test]
fn witnesses_follow_algorithm_i() {
    // `false` is missing in the first column: `(false, _)` is reported,
    // `(true, false)` only once that is fixed.
    let report = run(vec![arm(tuple(vec![b(true), b(true)]))]);
    assert_missing(&report, &["(false, _)"]);
    let report = run(vec![arm(tuple(vec![b(true), w()]))]);
    assert_missing(&report, &["(false, _)"]);
    // Both present: each branch has its own witness.
    let report = run(vec![
        arm(tuple(vec![b(true), b(true)])),
        arm(tuple(vec![b(false), b(false)])),
    ]);
    assert_missing(&report, &["(true, false)", "(false, true)"]);
}

#[test]
fn witnesses_are_distinct_and_capped() {
    let f = sum(&[("A", 1), ("B", 1), ("C", 1), ("D", 1)]);
    let arms: Vec<Arm> = (0..4).map(|i| arm(ctor(&f, i, vec![b(true)]))).collect();
    assert_missing(
        &check(&arms),
        &["A(false)", "B(false)", "C(false)", "D(false)"],
    );
}

#[test]
fn record_witness_omits_wild_fields() {
    let f = ["kind", "name"];
    let report = run(vec![arm(record(&f, vec![circle(w()), w()]))]);
    assert_missing(&report, &["{ kind: Rect(_, _), .. }"]);
    let report = run(vec![arm(record(&f, vec![w(), string("x")]))]);
    assert_missing(&report, &["{ name: \"\", .. }"]);
    let g = ["a", "b"];
    let report = run(vec![
        arm(record(&g, vec![b(true), b(true)])),
        arm(record(&g, vec![b(false), w()])),
    ]);
    assert_missing(&report, &["{ a: true, b: false }"]);
}

#[test]
fn literals_never_complete() {
    // The example is a literal no arm lists.
    assert_missing(&run(vec![arm(int(0)), arm(int(1))]), &["2"]);
    assert_missing(&run(vec![arm(string("a"))]), &["\"\""]);
    assert_missing(&run(vec![arm(string(""))]), &["\"a\""]);
    assert_missing(&run(vec![arm(float(1.5))]), &["0.0"]);
    assert_ok(&run(vec![arm(int(0)), arm(int(1)), arm(w())]));
    assert_missing(
        &run(vec![arm(some(int(1))), arm(some(int(2))), arm(none())]),
        &["Some(0)"],
    );
}

#[test]
fn bool_as_sum_prints_names() {
    let f = sum(&[("true", 0), ("false", 0)]);
    assert_missing(&run(vec![arm(ctor(&f, 1, vec![]))]), &["true"]);
}

// ---- unreachable arms ----

#[test]
fn redundant_after_wildcard() {
    let report = run(vec![arm(w()), arm(none()), arm(some(w()))]);
    assert_eq!(report.unreachable, [1, 2]);
    assert!(report.missing.is_empty());
}

#[test]
fn redundant_duplicate_constructor() {
    let report = run(vec![arm(some(w())), arm(none()), arm(some(circle(w())))]);
    assert_eq!(report.unreachable, [2]);
    let report = run(vec![
        arm(some(circle(w()))),
        arm(some(rect(w(), w()))),
        arm(none()),
        arm(some(w())),
    ]);
    assert_eq!(report.unreachable, [3]);
}

#[test]
fn redundant_literals() {
    let report = run(vec![arm(int(1)), arm(int(2)), arm(int(1)), arm(w())]);
    assert_eq!(report.unreachable, [2]);
    let report = run(vec![arm(string("a")), arm(string("a")), arm(w())]);
    assert_eq!(report.unreachable, [1]);
    // `-0.0` matches where `0.0` does (`-0.0 == 0.0`), either way round.
    let report = run(vec![
        arm(float(0.0)),
        arm(float(-0.0)),
        arm(float(0.0)),
        arm(w()),
    ]);
    assert_eq!(report.unreachable, [1, 2]);
    let report = run(vec![arm(float(-0.0)), arm(float(0.0)), arm(w())]);
    assert_eq!(report.unreachable, [1]);
    let report = run(vec![arm(float(0.5)), arm(float(-0.5)), arm(w())]);
    assert!(report.unreachable.is_empty());
}

#[test]
fn redundant_nested_in_tuple() {
    let report = run(vec![
        arm(tuple(vec![b(true), w()])),
        arm(tuple(vec![w(), b(false)])),
        arm(tuple(vec![b(true), b(false)])),
        arm(tuple(vec![w(), w()])),
    ]);
    assert_eq!(report.unreachable, [2]);
    assert!(report.missing.is_empty());
}

#[test]
fn redundant_list_arms() {
    let report = run(vec![
        arm(list(vec![], false)),
        arm(list(vec![w()], true)),
        arm(list(vec![w(), w()], false)),
    ]);
    assert_eq!(report.unreachable, [2]);
    assert!(report.missing.is_empty());
}

#[test]
fn linear_record_fields_are_all_reachable() {
    let fields: Vec<String> = (0..30).map(|i| format!("f{i:02}")).collect();
    let family = Family::Record(fields.iter().cloned().collect());
    let mut arms: Vec<Arm> = (0..30)
        .map(|i| {
            let args = (0..30).map(|j| if i == j { int(1) } else { w() }).collect();
            arm(ctor(&family, 0, args))
        })
        .collect();
    arms.push(arm(w()));
    assert_ok(&check(&arms));
}

// ---- guards ----

#[test]
fn guarded_arms_do_not_cover() {
    let report = run(vec![guarded(some(w())), arm(none())]);
    assert_missing(&report, &["Some(_)"]);
    assert!(report.unreachable.is_empty());
    assert_missing(&run(vec![guarded(w())]), &["_"]);
}

#[test]
fn guarded_arms_are_checked_for_reachability() {
    let report = run(vec![arm(w()), guarded(some(w()))]);
    assert_eq!(report.unreachable, [1]);
    let report = run(vec![
        arm(some(w())),
        guarded(some(circle(w()))),
        arm(none()),
    ]);
    assert_eq!(report.unreachable, [1]);
}

#[test]
fn guarded_arms_do_not_hide_later_arms() {
    assert_ok(&run(vec![guarded(w()), guarded(w()), arm(w())]));
    assert_ok(&run(vec![guarded(none()), arm(none()), arm(some(w()))]));
    let report = run(vec![
        guarded(int(1)),
        arm(int(1)),
        guarded(int(1)),
        arm(w()),
    ]);
    assert_eq!(report.unreachable, [2]);
}

// ---- budget, depth, size, malformed input ----

#[test]
fn adversarial_matrix_gives_up_quickly() {
    // 20 Bool columns; every arm fixes one early column and the last one,
    // so all early columns are complete and nothing is settled before the
    // last column: 2^19 classes. The duplicate last arm keeps the walk
    // looking.
    let n = 20;
    let pat = |col: usize, value: bool| {
        let args = (0..n)
            .map(|j| {
                if j == col {
                    b(value)
                } else if j == n - 1 {
                    b(true)
                } else {
                    w()
                }
            })
            .collect();
        tuple(args)
    };
    let mut arms: Vec<Arm> = (0..n - 1)
        .flat_map(|col| [arm(pat(col, true)), arm(pat(col, false))])
        .collect();
    arms.push(arm(pat(0, true)));
    let start = Instant::now();
    let report = check(&arms);
    let elapsed = start.elapsed();
    assert!(report.gave_up, "{report:?}");
    assert!(report.unreachable.is_empty());
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
}

#[test]
fn five_thousand_literals_are_quick() {
    let mut arms: Vec<Arm> = (0..5000).map(|i| arm(int(i))).collect();
    arms.push(arm(int(17)));
    let start = Instant::now();
    let report = check(&arms);
    let elapsed = start.elapsed();
    assert_missing(&report, &["5000"]);
    assert_eq!(report.unreachable, [5000]);
    assert!(elapsed < Duration::from_secs(1), "took {elapsed:?}");

    let mut arms: Vec<Arm> = (0..5000)
        .map(|i| arm(some(string(&i.to_string()))))
        .collect();
    arms.push(arm(w()));
    let start = Instant::now();
    assert_ok(&check(&arms));
    assert!(start.elapsed() < Duration::from_secs(1));
}

fn nest_some(depth: usize, inner: Pat) -> Pat {
    (0..depth).fold(inner, |p, _| some(p))
}

#[test]
fn deep_nesting_does_not_overflow() {
    on_small_stack(|| {
        let report = run(vec![arm(nest_some(1000, w())), arm(none())]);
        assert_missing(&report, &["Some(None)"]);
        assert!(report.unreachable.is_empty());

        let report = run(vec![
            arm(nest_some(1000, int(3))),
            arm(nest_some(1000, int(3))),
            arm(w()),
        ]);
        assert_eq!(report.unreachable, [1]);
        assert!(report.missing.is_empty());
    });
}

#[test]
fn deep_witness_prints() {
    on_small_stack(|| {
        // None, Some(None), Some(Some(None)), ...: only the deepest is missing.
        let depth = 400;
        let arms: Vec<Arm> = (0..depth).map(|d| arm(nest_some(d, none()))).collect();
        let report = check(&arms);
        let expected = format!("{}_{}", "Some(".repeat(depth), ")".repeat(depth));
        assert_missing(&report, &[expected.as_str()]);
        assert!(report.unreachable.is_empty());
    });
}

#[test]
fn long_list_pattern() {
    on_small_stack(|| {
        let items: Vec<Pat> = (0..1000).map(int).collect();
        let report = run(vec![arm(list(items, false)), arm(list(vec![], false))]);
        assert!(!report.gave_up);
        assert_eq!(report.missing, ["[1, ..]"]);
    });
}

#[test]
fn malformed_arity_does_not_panic() {
    // Too few and too many sub-patterns.
    let report = run(vec![
        arm(ctor(&option(), 1, vec![])),
        arm(ctor(&option(), 1, vec![w(), b(true), b(false)])),
        arm(ctor(&option(), 0, vec![w()])),
    ]);
    assert!(report.missing.is_empty());
    assert_eq!(report.unreachable, [1]);
    let report = run(vec![arm(ctor(&Family::Tuple(2), 0, vec![b(true)]))]);
    assert_missing(&report, &["(false, _)"]);
    let report = run(vec![arm(ctor(&Family::List, 1, vec![]))]);
    assert_missing(&report, &["[]"]);
}

#[test]
fn malformed_patterns_match_nothing() {
    // Constructor index out of range.
    let report = run(vec![arm(ctor(&option(), 7, vec![])), arm(w())]);
    assert_eq!(report.unreachable, [0]);
    // A constructor of an Infinite family; a literal in a constructor column.
    let report = run(vec![
        arm(none()),
        arm(int(3)),
        arm(ctor(&Family::Infinite, 0, vec![])),
    ]);
    assert_eq!(report.unreachable, [1, 2]);
    assert_missing(&report, &["Some(_)"]);
    // Two families in one column.
    let report = run(vec![arm(b(true)), arm(none()), arm(b(false))]);
    assert_eq!(report.unreachable, [1]);
    assert!(report.missing.is_empty());
    let report = run(vec![arm(int(1)), arm(b(true))]);
    assert_eq!(report.unreachable, [1]);
    assert_missing(&report, &["0"]);
    // An empty sum type's (impossible) constructor.
    let empty = sum(&[]);
    let report = run(vec![arm(ctor(&empty, 0, vec![]))]);
    assert_eq!(report.unreachable, [0]);
    assert_missing(&report, &["_"]);
}

#[test]
fn huge_arity_fails_closed() {
    let report = run(vec![arm(ctor(&Family::Tuple(usize::MAX), 0, vec![]))]);
    assert!(report.gave_up);
    let f = sum(&[("A", 0), ("B", usize::MAX)]);
    let report = run(vec![arm(ctor(&f, 0, vec![]))]);
    assert!(report.gave_up);
    let report = run(vec![arm(ctor(&f, 0, vec![])), arm(ctor(&f, 1, vec![]))]);
    assert!(report.gave_up);
}

#[test]
fn families_compare_by_contents() {
    // Each helper call builds a new Rc: equal contents are the same family.
    let report = run(vec![
        arm(ctor(&option(), 0, vec![])),
        arm(ctor(&option(), 1, vec![w()])),
    ]);
    assert_ok(&report);
}

// ---- against a brute-force oracle ----

/// A small type universe whose values can be listed.
#[derive(Clone)]
enum Ty {
    Bool,
    Opt(Box<Ty>),
    /// Lists of Bool; patterns mention at most 2 elements, so lengths up
    /// to 3 tell all patterns apart.
    List,
    /// Ints; patterns use 0..3, so 99 stands for every other value.
    Int,
    Tuple(Vec<Ty>),
}

fn values(ty: &Ty) -> Vec<Pat> {
    match ty {
        Ty::Bool => vec![b(true), b(false)],
        Ty::Opt(inner) => std::iter::once(none())
            .chain(values(inner).into_iter().map(some))
            .collect(),
        Ty::List => {
            let mut all = vec![nil()];
            let mut last = vec![nil()];
            for _ in 0..3 {
                last = last
                    .iter()
                    .flat_map(|tail| [cons(b(true), tail.clone()), cons(b(false), tail.clone())])
                    .collect();
                all.extend(last.iter().cloned());
            }
            all
        }
        Ty::Int => vec![int(0), int(1), int(2), int(99)],
        Ty::Tuple(tys) => tys
            .iter()
            .fold(vec![vec![]], |acc, ty| {
                let vs = values(ty);
                acc.iter()
                    .flat_map(|prefix: &Vec<Pat>| {
                        vs.iter().map(move |v| {
                            let mut next = prefix.clone();
                            next.push(v.clone());
                            next
                        })
                    })
                    .collect()
            })
            .into_iter()
            .map(tuple)
            .collect(),
    }
}

/// A deterministic pseudo-random source (an LCG).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

fn random_pat(ty: &Ty, rng: &mut Rng) -> Pat {
    if rng.below(4) == 0 {
        return w();
    }
    match ty {
        Ty::Bool => b(rng.below(2) == 0),
        Ty::Opt(inner) => {
            if rng.below(3) == 0 {
                none()
            } else {
                some(random_pat(inner, rng))
            }
        }
        Ty::List => {
            let len = rng.below(3);
            let items = (0..len).map(|_| random_pat(&Ty::Bool, rng)).collect();
            list(items, rng.below(2) == 0)
        }
        Ty::Int => int(i64::try_from(rng.below(3)).unwrap_or(0)),
        Ty::Tuple(tys) => tuple(tys.iter().map(|t| random_pat(t, rng)).collect()),
    }
}

fn matches(pat: &Pat, value: &Pat) -> bool {
    match (pat, value) {
        (Pat::Wild, _) => true,
        (
            Pat::Ctor { index, args, .. },
            Pat::Ctor {
                index: vi,
                args: vargs,
                ..
            },
        ) => index == vi && args.iter().zip(vargs).all(|(p, v)| matches(p, v)),
        (Pat::Lit(a), Pat::Lit(b)) => a == b,
        _ => false,
    }
}

/// The witnesses of [`check`], as patterns rather than text.
fn witness_pats(arms: &[Arm]) -> Vec<Pat> {
    fn to_pat(toks: &[Tok<'_>], pos: &mut usize) -> Pat {
        let tok = toks.get(*pos).copied();
        *pos += 1;
        match tok {
            Some(Tok::Ctor {
                family,
                index,
                arity,
            }) => Pat::Ctor {
                family: family.clone(),
                index,
                args: (0..arity).map(|_| to_pat(toks, pos)).collect(),
            },
            _ => Pat::Wild,
        }
    }
    let wild = Pat::Wild;
    let mut checker = Checker {
        arms,
        wild: &wild,
        reachable: vec![false; arms.len()],
        budget: BUDGET,
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
    witnesses
        .iter()
        .map(|w| {
            let toks: Vec<Tok<'_>> = w.iter().rev().copied().collect();
            to_pat(&toks, &mut 0)
        })
        .collect()
}

#[test]
fn agrees_with_brute_force() {
    // (type, whether it has a literal column)
    let universes = [
        (
            Ty::Tuple(vec![
                Ty::Opt(Box::new(Ty::Bool)),
                Ty::Bool,
                Ty::List,
                Ty::Int,
            ]),
            true,
        ),
        (
            Ty::Opt(Box::new(Ty::Opt(Box::new(Ty::Tuple(vec![
                Ty::Bool,
                Ty::Int,
            ]))))),
            true,
        ),
        (Ty::Tuple(vec![Ty::List, Ty::List]), false),
        (
            Ty::Tuple(vec![
                Ty::Bool,
                Ty::Bool,
                Ty::Bool,
                Ty::Opt(Box::new(Ty::Bool)),
            ]),
            false,
        ),
    ];
    let mut rng = Rng(7);
    for (ty, literals) in &universes {
        let all = values(ty);
        for _ in 0..400 {
            let n = 1 + rng.below(7);
            let arms: Vec<Arm> = (0..n)
                .map(|_| Arm {
                    pat: random_pat(ty, &mut rng),
                    guarded: rng.below(5) == 0,
                })
                .collect();
            let report = check(&arms);
            let reachable = |j: usize| {
                all.iter().any(|v| {
                    arms.get(j).is_some_and(|a| matches(&a.pat, v))
                        && !arms
                            .iter()
                            .take(j)
                            .any(|a| !a.guarded && matches(&a.pat, v))
                })
            };
            let expected: Vec<usize> = (0..arms.len()).filter(|&j| !reachable(j)).collect();
            let uncovered = all
                .iter()
                .any(|v| !arms.iter().any(|a| !a.guarded && matches(&a.pat, v)));
            let pats: Vec<(&Pat, bool)> = arms.iter().map(|a| (&a.pat, a.guarded)).collect();
            assert!(!report.gave_up, "{pats:?}");
            assert_eq!(report.unreachable, expected, "{pats:?}");
            assert_eq!(
                !report.missing.is_empty(),
                uncovered,
                "{pats:?}\n{report:?}"
            );
            // Every value a witness describes is missed; with literals, some
            // (a `_` in a literal column stands for the literals not listed).
            let unmatched = |v: &Pat| !arms.iter().any(|a| !a.guarded && matches(&a.pat, v));
            for witness in witness_pats(&arms) {
                let instances: Vec<&Pat> = all.iter().filter(|v| matches(&witness, v)).collect();
                let missed = if *literals {
                    instances.iter().any(|v| unmatched(v))
                } else {
                    !instances.is_empty() && instances.iter().all(|v| unmatched(v))
                };
                assert!(missed, "{pats:?}\n{witness:?}");
            }
        }
    }
}
