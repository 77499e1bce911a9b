//! Every limit of a run, each with its own error, and the machine's
//! promises about the host: no Writ program overflows the host stack,
//! however deep it recurses or whatever value it builds.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::{exec, limits, stopped_by};
use writ_runtime::{Limit, Limits};

/// Run `f` on a thread with a small stack (256 KiB), as a host might.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(f)
        .expect("spawns")
        .join()
        .expect("does not panic or overflow")
}

#[test]
fn fuel_stops_an_endless_loop() {
    let (r, _) = exec(
        "fn spin(n: Int) -> Int { spin(n + 1) }\nspin(0)\n",
        &limits(&[("fuel", "10000")]),
        None,
    );
    let e = stopped_by(&r, Limit::Fuel);
    assert!(e.message.contains("10000 units of fuel"), "{}", e.message);
    assert!(e.span.is_some());
    assert_eq!(e.trace.first().map(|t| t.function.as_str()), Some("spin"));
}

#[test]
fn fuel_is_exact_enough_to_finish_a_run_that_fits() {
    let src = "fn count(n: Int) -> Int { if n == 0 { 0 } else { count(n - 1) } }\ncount(100)\n";
    let (r, _) = exec(src, &limits(&[("fuel", "100000")]), None);
    assert_eq!(r.unwrap(), "0");
}

#[test]
fn memory_stops_a_string_doubling_in_a_loop() {
    let (r, _) = exec(
        "fn grow(s: Str) -> Str { grow(s ++ s) }\ngrow(\"ab\")\n",
        &limits(&[("memory", "16M")]),
        None,
    );
    stopped_by(&r, Limit::Memory);
}

#[test]
fn an_in_place_append_is_charged_for_what_it_adds() {
    // The accumulator (600,000 elements, about 9.6 MB) takes more than
    // half of the limit: each `acc ++ [n]` adds one element in place, and
    // must not be refused as if it copied the list.
    let src = "fn build(n: Int, acc: List[Int]) -> List[Int] { if n == 0 { acc } else { build(n - 1, acc ++ [n]) } }\n\
list.length(build(600000, []))\n";
    let (r, _) = exec(src, &limits(&[("memory", "16M")]), None);
    assert_eq!(r.as_ref().ok().map(String::as_str), Some("600000"), "{r:?}");
    // The limit still holds: twice as many elements do not fit.
    let (r, _) = exec(
        &src.replace("600000", "1200000"),
        &limits(&[("memory", "16M")]),
        None,
    );
    stopped_by(&r, Limit::Memory);
}

#[test]
fn list_map_takes_the_room_of_its_result_once_and_within_the_limit() {
    // `list.map` makes room for its whole result before the first call
    // (16 bytes an element): 400,000 elements and their 400,000 results
    // (about 12.8 MB) fit in 16 MB, and 600,000 do not, the room being
    // refused before it is taken.
    let src = "let xs = list.range(0, 400000)\nlist.length(list.map(xs, fn(x) { x + 1 }))\n";
    let (r, _) = exec(src, &limits(&[("memory", "16M")]), None);
    assert_eq!(r.as_ref().ok().map(String::as_str), Some("400000"), "{r:?}");
    let (r, _) = exec(
        &src.replace("400000", "600000"),
        &limits(&[("memory", "16M")]),
        None,
    );
    let e = stopped_by(&r, Limit::Memory);
    assert!(e.message.contains("needed"), "{}", e.message);
}

#[test]
fn memory_counts_what_writing_a_deep_json_value_holds() {
    // A value 100,000 deep takes about 10 MB; writing it holds a piece of
    // work per level (about 17 MB more), which counts too.
    let src = "fn nest(n: Int, j: Json) -> Json { if n == 0 { j } else { nest(n - 1, Array([j])) } }\n\
let j = nest(100000, Null)\n\
str.length(json.stringify(j))\n";
    let built = src.replace("json.stringify(j)", "\"built\"");
    let (r, _) = exec(&built, &limits(&[("memory", "12M")]), None);
    assert_eq!(r.as_ref().ok().map(String::as_str), Some("5"), "{r:?}");
    let (r, _) = exec(src, &limits(&[("memory", "12M")]), None);
    stopped_by(&r, Limit::Memory);
    let (r, _) = exec(src, &limits(&[("memory", "64M")]), None);
    assert_eq!(r.as_ref().ok().map(String::as_str), Some("200004"), "{r:?}");
}

#[test]
fn memory_stops_a_list_of_a_billion_elements_before_building_it() {
    let (r, _) = exec(
        "list.range(0, 1000000000)\n",
        &limits(&[("memory", "64M")]),
        None,
    );
    let e = stopped_by(&r, Limit::Memory);
    assert!(e.message.contains("needed"), "{}", e.message);
}

#[test]
fn memory_stops_a_multi_shot_explosion() {
    let src = "effect Choose {\n  fn choose() -> Bool\n}\n\
fn pick(n: Int) -> Int / {Choose} { if n == 0 { 0 } else { (if Choose.choose() { 1 } else { 0 }) + pick(n - 1) } }\n\
let results = handle pick(40) with {\n  Choose.choose() => resume(true) ++ resume(false),\n  return(x) => [x] ++ list.range(0, 10000),\n}\n\
list.length(results)\n";
    let (r, _) = exec(
        src,
        &limits(&[("memory", "32M"), ("fuel", "100000000000")]),
        None,
    );
    stopped_by(&r, Limit::Memory);
}

#[test]
fn depth_stops_runaway_recursion() {
    let (r, _) = exec(
        "fn f(n: Int) -> Int { 1 + f(n) }\nf(0)\n",
        &limits(&[("depth", "1000")]),
        None,
    );
    let e = stopped_by(&r, Limit::Depth);
    assert_eq!(e.trace.first().map(|t| t.times), Some(999));
}

#[test]
fn a_mutual_recursion_is_traced_as_it_ran() {
    // `f` and `g` alternate: no entry merges frames that were not
    // consecutive, and what does not fit is counted at the end.
    let src = "fn f(n: Int) -> Int { if n == 0 { 1 / 0 } else { g(n - 1) + 1 } }\nfn g(n: Int) -> Int { f(n) + 1 }\nf(1000)\n";
    let (r, _) = exec(src, &limits(&[]), None);
    let Err(e) = r else {
        panic!("expected a division by zero")
    };
    let names: Vec<(&str, usize)> = e
        .trace
        .iter()
        .map(|t| (t.function.as_str(), t.times))
        .collect();
    let (last, kept) = names.split_last().expect("a trace");
    assert!(kept.iter().all(|(_, times)| *times == 1), "{names:?}");
    assert!(
        kept.windows(2).all(|w| w[0].0 != w[1].0),
        "alternating: {names:?}"
    );
    // 1,000 calls of `g`, 1,001 of `f` and the top level, in all.
    assert_eq!(
        *last,
        (format!("... {} more calls", 2002 - kept.len()).as_str(), 1)
    );
}

#[test]
fn output_stops_a_chatty_program() {
    let src = "fn chat(n: Int) -> Unit / {Log} { Log.info(\"line ${n}\"); chat(n + 1) }\nchat(0)\n";
    let (r, lines) = exec(src, &limits(&[("output", "100")]), None);
    stopped_by(&r, Limit::Output);
    let written: usize = lines.iter().map(|l| l.len() + 1).sum();
    assert!(written <= 100, "{written} bytes got out");
    assert!(!lines.is_empty());
}

#[test]
fn time_stops_a_long_run() {
    let (r, _) = exec(
        "fn spin(n: Int) -> Int { spin(n + 1) }\nspin(0)\n",
        &limits(&[("time", "50ms"), ("fuel", "1000000000000")]),
        None,
    );
    stopped_by(&r, Limit::Time);
}

#[test]
fn a_host_can_cancel_a_run_from_another_thread() {
    let cancel = Arc::new(AtomicBool::new(false));
    let canceller = std::thread::spawn({
        let cancel = cancel.clone();
        move || {
            std::thread::sleep(Duration::from_millis(50));
            cancel.store(true, Ordering::Relaxed);
        }
    });
    let (r, _) = exec(
        "fn spin(n: Int) -> Int { spin(n + 1) }\nspin(0)\n",
        &limits(&[("fuel", "1000000000000"), ("time", "60s")]),
        Some(&cancel),
    );
    canceller.join().expect("joins");
    stopped_by(&r, Limit::Cancelled);
}

#[test]
fn a_host_operation_that_outlasts_the_runs_time_ends_the_run_when_it_returns() {
    // The operation returns after the run's time is up, and the program
    // would finish a few steps later, long before a periodic check.
    let src = "Log.info(\"waiting\")\n1 + 1\n";
    let r = common::exec_logging(src, &limits(&[("time", "20ms")]), None, |_| {
        std::thread::sleep(Duration::from_millis(40));
    });
    stopped_by(&r, Limit::Time);
    // Within its time, the same program finishes.
    let (r, _) = exec(src, &limits(&[("time", "60s")]), None);
    assert_eq!(r.unwrap(), "2");
}

#[test]
fn a_run_cancelled_during_a_host_operation_ends_when_it_returns() {
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    let r = common::exec_logging(
        "Log.info(\"waiting\")\n1 + 1\n",
        &limits(&[("time", "60s")]),
        Some(&cancel),
        |_| flag.store(true, Ordering::Relaxed),
    );
    let e = stopped_by(&r, Limit::Cancelled);
    assert!(e.span.is_some(), "{e:#?}");
}

#[test]
fn a_million_deep_recursion_completes_without_the_host_stack() {
    let r = on_small_stack(|| {
        let src = "fn count(n: Int) -> Int { if n == 0 { 0 } else { 1 + count(n - 1) } }\ncount(1000000)\n";
        exec(src, &Limits::default(), None).0.map_err(|e| e.message)
    });
    assert_eq!(r.unwrap(), "1000000");
}

#[test]
fn tail_calls_run_in_constant_depth() {
    let src = "fn even(n: Int) -> Bool { if n == 0 { true } else { odd(n - 1) } }\n\
fn odd(n: Int) -> Bool { if n == 0 { false } else { even(n - 1) } }\neven(1000001)\n";
    let (r, _) = exec(src, &limits(&[("depth", "100")]), None);
    assert_eq!(r.unwrap(), "false");
}

#[test]
fn deep_values_compare_print_and_drop_without_recursion() {
    let r = on_small_stack(|| {
        let src = "type Nat = Zero | Succ(Nat)\n\
fn build(n: Int, acc: Nat) -> Nat { if n == 0 { acc } else { build(n - 1, Succ(acc)) } }\n\
let a = build(1000000, Zero)\nlet b = build(1000000, Zero)\n\
let shown = str.length(\"${[a]}\")\n(a == b, shown > 1000)\n";
        exec(src, &Limits::default(), None).0.map_err(|e| e.message)
    });
    assert_eq!(r.unwrap(), "(true, true)");
}

#[test]
fn a_handler_stack_a_thousand_deep() {
    let src = "effect Count {\n  fn tick() -> Int\n}\n\
fn nest(n: Int) -> Int / {Count} {\n  if n == 0 { Count.tick() } else {\n    handle nest(n - 1) with {\n      Count.tick() => resume(Count.tick() + 1),\n    }\n  }\n}\n\
handle nest(1000) with {\n  Count.tick() => resume(0),\n}\n";
    let (r, _) = exec(src, &Limits::default(), None);
    assert_eq!(r.unwrap(), "1000");
}

#[test]
fn a_fail_message_reaches_the_top_level_whole_up_to_a_kib_and_shortened_past_it() {
    let lim = limits(&[("time", "60s")]);
    let failed = |src: &str| match exec(src, &lim, None).0 {
        Err(e) => {
            assert_eq!(e.code, writ_lang::Code::ProgramFailed, "{e:#?}");
            e.message
        }
        Ok(v) => panic!("expected the run to fail, got {v}"),
    };
    // At the bound: whole.
    let whole = failed("Fail.fail(str.repeat(\"ab\", 512))\n");
    assert_eq!(whole, format!("the program failed: {}", "ab".repeat(512)));
    // Past it (a 30 MB message): its first KiB, escaped, and its length.
    let long = failed("Fail.fail(str.repeat(\"a\\tb\", 10000000))\n");
    assert_eq!(
        long,
        format!(
            "the program failed: {}a… (30000000 bytes, shown shortened)",
            "a\\u{9}b".repeat(341)
        )
    );
    // Cut at a character boundary (`é` is two bytes; the first KiB ends
    // inside the 512th).
    let accented = failed("Fail.fail(\"x\" ++ str.repeat(\"é\", 600))\n");
    assert_eq!(
        accented,
        format!(
            "the program failed: x{}… (1201 bytes, shown shortened)",
            "é".repeat(511)
        )
    );
}

/// Run `src` under `limits`, with what it used.
fn measured(src: &str, limits: &Limits) -> (bool, writ_runtime::Usage) {
    let module = common::compile(src);
    let mut host = writ_runtime::LogHost::new(|_: &str| {});
    let (result, usage) = writ_runtime::run_measured(&module, limits, &mut host, None);
    (result.is_ok(), usage)
}

#[test]
fn a_run_reports_the_fuel_memory_and_time_it_used() {
    let src = "let xs = list.range(0, 100000)\nlist.fold(xs, 0, fn(a, x) { a + x })\n";
    let (ok, usage) = measured(src, &Limits::default());
    assert!(ok);
    // A fold over 100,000 elements takes at least a step per element.
    assert!(usage.fuel > 100_000, "{usage:?}");
    assert!(usage.fuel < Limits::default().fuel, "{usage:?}");
    // The list is live during the fold: its 100,000 slots at least.
    assert!(usage.memory_peak >= 100_000 * 8, "{usage:?}");
    assert!(usage.time > Duration::ZERO, "{usage:?}");
    // The same program again uses the same fuel: it is counted, not timed.
    assert_eq!(measured(src, &Limits::default()).1.fuel, usage.fuel);
    // A smaller program uses less.
    let (_, small) = measured("1 + 2\n", &Limits::default());
    assert!(
        small.fuel < 100 && small.memory_peak < usage.memory_peak,
        "{small:?}"
    );
}

#[test]
fn a_run_stopped_by_a_limit_reports_what_it_used_up_to_it() {
    let (ok, usage) = measured(
        "fn spin(n: Int) -> Int { spin(n + 1) }\nspin(0)\n",
        &limits(&[("fuel", "100000")]),
    );
    assert!(!ok);
    assert!(
        (100_000..=100_000 + 4096).contains(&usage.fuel),
        "{usage:?}"
    );
}

#[test]
fn appending_to_a_shared_list_is_charged_for_what_it_copies() {
    // `xs` is held by its global while each `xs ++ [i]` is made, so each
    // is a new list: a short `xs` is copied (61 elements, a unit of work
    // and a slot each), a long one shared as the new list's base (one
    // element made).
    let copying = "let xs = list.range(0, 60)\n\
list.length(list.map(list.range(0, 1000), fn(i) { xs ++ [i] }))\n";
    let sharing = copying.replace("range(0, 60)", "range(0, 6000)");
    let (ok, copy) = measured(copying, &Limits::default());
    assert!(ok);
    let (ok, share) = measured(&sharing, &Limits::default());
    assert!(ok);
    // 61,000 elements copied, less the 5,940 more that `list.range` made.
    assert!(copy.fuel > share.fuel + 50_000, "{copy:?} {share:?}");
    assert!(copy.memory_peak >= 1000 * 61 * 16, "{copy:?}");
    assert!(share.memory_peak < copy.memory_peak, "{share:?} {copy:?}");
    // The copies count against the memory limit; the shared version of
    // the same program fits under it.
    let many = copying.replace("range(0, 1000)", "range(0, 100000)");
    let (r, _) = exec(&many, &limits(&[("memory", "64M")]), None);
    stopped_by(&r, Limit::Memory);
    let (r, _) = exec(
        &many.replace("range(0, 60)", "range(0, 6000)"),
        &limits(&[("memory", "64M")]),
        None,
    );
    assert_eq!(r.as_deref().ok(), Some("100000"), "{r:?}");
}

#[test]
fn a_list_walked_while_it_grows_in_place_stays_linear() {
    // `list.map` over a million elements pushes in place and walks its
    // argument in place: a fuel limit a few units per element is enough.
    let src = "list.sum(list.map(list.range(0, 1000000), fn(x) { x * 2 }))\n";
    let (r, _) = exec(src, &limits(&[("fuel", "30000000")]), None);
    assert_eq!(r.as_deref().ok(), Some("999999000000"), "{r:?}");
}

#[test]
fn a_group_grown_through_map_update_stays_linear() {
    // `map.update` hands `f` the entry's value taken out of the map, so
    // `++ [x]` on it pushes in place: about 70 units per element, where a
    // copy of the group per element would need 5 * 10^9 for 10^5.
    let src = "fn go(rest: List[Int], m: Map[Int, List[Int]]) -> Map[Int, List[Int]] {\n\
  match rest {\n\
    [] => m,\n\
    [x, ..tail] => go(tail, map.update(m, x % 3, fn(o) { Some(option.unwrap_or(o, []) ++ [x]) })),\n\
  }\n\
}\n\
list.map(map.to_list(go(list.range(0, 100000), map.empty())), fn(p) { match p { (_, g) => list.length(g) } })\n";
    let (r, _) = exec(src, &limits(&[("fuel", "10000000")]), None);
    assert_eq!(r.as_deref().ok(), Some("[33334, 33333, 33333]"), "{r:?}");
}

#[test]
fn dropping_into_a_shared_list_is_charged_for_what_it_keeps_only() {
    // `v` has a base (`big`, shared) and 200,001 elements of its own; each
    // `list.drop(v, 200000)` copies the 101 left and jumps over the rest.
    let src = "let big = list.range(0, 100)\n\
fn grow(acc, i) { if i == 0 { acc } else { grow(acc ++ [i], i - 1) } }\n\
let v = grow(big ++ [0], 200000)\n\
fn go(n, s) { if n == 0 { s } else { go(n - 1, s + list.length(list.drop(v, 200000))) } }\n\
(go(1000, 0), list.drop(v, 300000), list.drop(v, 200101))\n";
    let (r, _) = exec(src, &limits(&[("fuel", "2000000")]), None);
    assert_eq!(r.as_deref().ok(), Some("(101000, [], [])"), "{r:?}");
}

#[test]
fn fuel_is_exact_a_run_needs_one_unit_more_than_it_reports() {
    // The step counter lives in a register of the run loop; what a run
    // reports and where a limit stops it must not depend on that. Calls,
    // returns, a loop across many check windows, and library work charged
    // on the meter between steps.
    let programs = [
        "fn fib(n: Int) -> Int { if n < 2 { n } else { fib(n - 1) + fib(n - 2) } }\nfib(15)\n",
        "fn count(n: Int, acc: Int) -> Int { if n == 0 { acc } else { count(n - 1, acc + n) } }\ncount(20000, 0)\n",
        "let xs = list.range(0, 3000)\nfn fib(n: Int) -> Int { if n < 2 { n } else { fib(n - 1) + fib(n - 2) } }\nlist.fold(xs, 0, fn(a, x) { a + x }) + fib(12)\n",
    ];
    for src in programs {
        let (ok, usage) = measured(src, &Limits::default());
        assert!(ok, "{src}");
        let fuel = |n: u64| limits(&[("fuel", &n.to_string())]);
        let (ok, _) = measured(src, &fuel(usage.fuel + 1));
        assert!(ok, "{src}: with {} units", usage.fuel + 1);
        let (ok, short) = measured(src, &fuel(usage.fuel));
        assert!(!ok, "{src}: with {} units", usage.fuel);
        assert!(short.fuel >= usage.fuel, "{src}: {short:?}");
    }
}

/// The machine's stacks are charged for the room they hold, as a list is
/// for its spare slots: after a deep recursion returns, that room is
/// still the host's memory, so what the program allocates next counts on
/// top of it. A list about half the recursion's peak fits under a limit
/// a little above that peak on its own, and not after the recursion.
#[test]
fn the_stacks_are_charged_for_the_room_a_deep_recursion_left() {
    let deep = "fn d(n) { if n == 0 { 0 } else { 1 + d(n - 1) } }\n";
    let (ok, recursion) = measured(&format!("{deep}d(200000)\n"), &Limits::default());
    assert!(ok);
    let peak = recursion.memory_peak;
    // A list of about half that peak, on its own and after the recursion.
    let n = peak / 2 / 16;
    let limits = Limits {
        memory: peak + peak / 8,
        ..Limits::default()
    };
    let (alone, _) = measured(&format!("list.length(list.range(0, {n}))\n"), &limits);
    assert!(alone, "the list alone fits");
    let (after, usage) = measured(
        &format!("{deep}let k = d(200000)\nlist.length(list.range(0, {n})) + k\n"),
        &limits,
    );
    assert!(!after, "the stacks' room counts: {usage:?}");
}

#[test]
fn a_deep_recursion_stops_at_the_memory_limit_not_at_a_doubling_past_it() {
    // The stacks grow by doubling; a doubling that would pass the limit
    // takes the room left instead, and then the run stops (E5002) within
    // a few elements of the limit (it once reached 1.4 times it).
    let src = "fn f(n: Int) -> Int { 1 + f(n + 1) }\nf(0)\n";
    for mib in [8usize, 64] {
        let limits = Limits {
            memory: mib << 20,
            ..Limits::default()
        };
        let (ok, usage) = measured(src, &limits);
        assert!(!ok);
        let module = common::compile(src);
        let mut host = writ_runtime::LogHost::new(|_: &str| {});
        let (result, _) = writ_runtime::run_measured(&module, &limits, &mut host, None);
        assert_eq!(result.err().map(|e| e.code.as_str()), Some("E5002"));
        assert!(
            usage.memory_peak <= limits.memory + 64 * 1024,
            "{mib} MiB: a peak of {} bytes",
            usage.memory_peak
        );
        // The room below the limit is used, not given up early.
        assert!(
            usage.memory_peak >= limits.memory - limits.memory / 16,
            "{mib} MiB: a peak of {} bytes",
            usage.memory_peak
        );
    }
}
