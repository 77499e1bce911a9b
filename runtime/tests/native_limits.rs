//! Work that is not a machine step — library calls, structural equality
//! and ordering, display and interpolation, JSON, string building — is
//! charged to the fuel and stops at the time limit and on cancellation,
//! in the middle of the call (finding 1 of issue 15).
//!
//! Each program below would run for minutes unmetered. Under a small time
//! limit (fuel unlimited) it ends with `E5005`; under a small fuel limit
//! (time unlimited) with `E5001`, while the same program without the
//! costly call finishes under that fuel (so the call is what was charged).
//! Nothing here measures time: only which limit stopped the run, and that
//! it stopped in the costly call (the error's span is past the setup).
//!
//! The sizes and limits are the smallest that keep each point (the costly
//! call alone is far over the limit; the setup alone is well under it), so
//! that the file runs in seconds in a debug build.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::{exec, exec_logging, limits, stopped_by};
use writ_runtime::Limit;

/// The memory limit: high, because the memory accounting charges shared
/// structure once per value holding it (a thousand lists sharing `big`
/// are charged a thousand times its size), and these tests are about the
/// other limits.
const MEMORY: (&str, &str) = ("memory", "4096G");

/// A 100,000-element list, and lists of it.
macro_rules! big {
    ($rest:literal) => {
        concat!("let big = list.range(0, 100000)\n", $rest)
    };
}

/// `Err` stopped by `limit` in the code after `setup`.
fn stopped_after(r: &Result<String, writ_runtime::RunError>, limit: Limit, setup: &str) {
    let e = stopped_by(r, limit);
    assert!(
        e.span.is_some_and(|s| s.start > setup.len()),
        "stopped in the setup, not in the costly call: {e:#?}"
    );
}

/// Run `setup` then `costly` under a time limit (and no fuel limit): the
/// run ends with `E5005`.
fn times_out(setup: &str, costly: &str, time: &str) {
    let src = format!("{setup}\n{costly}\n");
    let (r, _) = exec(
        &src,
        &limits(&[("fuel", "1e15"), ("time", time), MEMORY]),
        None,
    );
    stopped_after(&r, Limit::Time, setup);
}

/// Run `setup` then `costly` under `fuel` (and no time limit): the run
/// ends with `E5001`; `setup` alone (then `0`) finishes under it.
fn runs_out_of_fuel(setup: &str, costly: &str, fuel: &str) {
    let lim = limits(&[("fuel", fuel), ("time", "10m"), MEMORY]);
    let (r, _) = exec(&format!("{setup}\n0\n"), &lim, None);
    assert_eq!(r.as_deref().ok(), Some("0"), "the setup alone: {r:?}");
    let (r, _) = exec(&format!("{setup}\n{costly}\n"), &lim, None);
    stopped_after(&r, Limit::Fuel, setup);
}

/// 2,000 references to one million-element list (the issue's repro).
const SHARED: &str =
    "let big = list.range(0, 1000000)\nlet xs = list.map(list.range(0, 2000), fn(i) { big })";
/// 300 distinct lists equal to `big` but for their last element.
const DISTINCT: &str = big!("let xs = list.map(list.range(0, 300), fn(i) { big ++ [i] })");
/// Two lists, each of 1,000 distinct copies of `big` (100 million elements
/// by sharing, in little memory), equal all through.
const TWINS: &str = big!(
    "let a = list.map(list.range(0, 1000), fn(i) { big ++ [0] })\n\
     let b = list.map(list.range(0, 1000), fn(i) { big ++ [0] })"
);

/// `TWINS` ten times larger (copies of a million-element list), for the
/// time limits: the costly call must stay far over the limit on the
/// fastest machine, while fuel limits count work and need no margin.
const TWINS_FOR_TIME: &str = "let big = list.range(0, 1000000)\n\
     let a = list.map(list.range(0, 1000), fn(i) { big ++ [0] })\n\
     let b = list.map(list.range(0, 1000), fn(i) { big ++ [0] })";

#[test]
fn the_repro_sort_of_two_thousand_shared_lists_stops_at_the_time_limit() {
    times_out(SHARED, "list.length(list.sort(xs))", "500ms");
    runs_out_of_fuel(SHARED, "list.length(list.sort(xs))", "1e7");
}

#[test]
fn sort_unique_and_contains_of_distinct_large_lists_stop() {
    for costly in [
        "list.length(list.sort(xs))",
        "list.length(list.unique(xs))",
        // One pass over `xs` is only 30 million element comparisons, which
        // a fast machine does inside the time limit: these two pass over
        // 100 copies of it (shared, so the setup stays small).
        "list.contains(list.concat(list.map(list.range(0, 100), fn(i) { xs })), big ++ [-1])",
        "list.max(list.concat(list.map(list.range(0, 100), fn(i) { xs })))",
        "list.length(list.sort_by(xs, fn(x) { x }))",
        "list.length(list.sort_along(xs, xs))",
    ] {
        times_out(DISTINCT, costly, "500ms");
        runs_out_of_fuel(DISTINCT, costly, "2e6");
    }
}

#[test]
fn equality_and_ordering_of_two_huge_values_stop_inside_one_operation() {
    for costly in ["a == b", "a < b", "(1, a) >= (1, b)", "Some(a) != Some(b)"] {
        times_out(TWINS_FOR_TIME, costly, "500ms");
        runs_out_of_fuel(TWINS, costly, "2e6");
    }
}

#[test]
fn maps_with_huge_keys_stop() {
    let setup = big!("let keys = list.map(list.range(0, 300), fn(i) { (big ++ [i], i) })");
    times_out(setup, "map.size(map.from_list(keys))", "500ms");
    runs_out_of_fuel(setup, "map.size(map.from_list(keys))", "2e6");
    // One lookup comparing two keys of a billion elements.
    let setup = format!("{TWINS_FOR_TIME}\nlet m = map.from_list([(a, 1)])");
    times_out(&setup, "map.get(m, b)", "500ms");
    let setup = format!("{TWINS}\nlet m = map.from_list([(a, 1)])");
    runs_out_of_fuel(&setup, "map.contains(m, b)", "2e6");
}

#[test]
fn interpolating_or_printing_a_huge_value_stops() {
    times_out(TWINS_FOR_TIME, "str.length(\"${a}\")", "500ms");
    runs_out_of_fuel(TWINS, "str.length(\"${a}\")", "2e6");
    runs_out_of_fuel(TWINS, "str.length(str.from(a))", "2e6");
    runs_out_of_fuel(TWINS, "str.length(list.join(a, \",\"))", "2e6");
}

#[test]
fn writing_huge_json_stops() {
    let setup = "let j = Array(list.map(list.range(0, 10000), fn(x) { Number(math.to_float(x)) }))\n\
                 let many = Array(list.map(list.range(0, 1000), fn(i) { j }))";
    // Ten times more for the time limit (a hundred million numbers).
    let for_time = setup.replace("range(0, 1000)", "range(0, 10000)");
    times_out(&for_time, "str.length(json.stringify(many))", "500ms");
    runs_out_of_fuel(setup, "str.length(json.stringify(many))", "2e6");
    runs_out_of_fuel(setup, "str.length(json.pretty(many))", "2e6");
}

#[test]
fn building_and_searching_long_strings_is_charged() {
    let s = "let s = str.repeat(\"a,\", 10000000)";
    for costly in [
        "str.length(s ++ s)",
        "str.length(str.replace(s, \",\", \";;\"))",
        "list.length(str.split(s, \",\"))",
        "list.length(str.chars(s))",
        "str.length(str.to_upper(s))",
        "str.contains(s, \"b\")",
        "str.index_of(s, \"b\")",
        "str.length(str.pad_left(s, 30000000, \"-\"))",
        "str.length(str.join([s, s, s], s))",
        "list.length(str.lines(str.replace(s, \",\", \"\\n\")))",
        "str.length(str.slice(s, 1, 9000000))",
    ] {
        runs_out_of_fuel(s, costly, "2000000");
    }
    // The repetition itself, and under time.
    runs_out_of_fuel("", "str.length(str.repeat(\"ab\", 100000000))", "1e6");
    times_out("", "str.length(str.repeat(\"ab\", 100000000))", "2ms");
}

#[test]
fn parsing_a_long_json_text_is_charged() {
    let setup = "let text = \"[\" ++ str.repeat(\"1,\", 3000000) ++ \"1]\"";
    runs_out_of_fuel(setup, "json.parse(text) == Ok(Null)", "3e6");
    // A string of nothing but escapes: each is decoded on its own.
    for escape in [r"\\n", r"\\u0041"] {
        let setup = format!(r#"let text = "\"" ++ str.repeat("{escape}", 2000000) ++ "\"""#);
        runs_out_of_fuel(&setup, "json.parse(text) == Ok(Null)", "3e6");
    }
}

/// Run `setup`, log a line, then `costly` as the last thing the program
/// does; the host raises the cancellation flag 100 ms after the line. The
/// run ends with `E5006` (under a time limit of 10 s, which the costly
/// operation would reach if the flag were not seen inside it).
fn cancelled_inside(setup: &str, costly: &str) {
    let cancel = Arc::new(AtomicBool::new(false));
    let src = format!("{setup}\nLog.info(\"ready\")\n{costly}\n");
    let lim = limits(&[("fuel", "1e15"), ("time", "10s"), MEMORY]);
    let (ready, logged) = std::sync::mpsc::channel();
    let canceller = std::thread::spawn({
        let cancel = cancel.clone();
        move || {
            if logged.recv().is_ok() {
                std::thread::sleep(Duration::from_millis(100));
                cancel.store(true, Ordering::Relaxed);
            }
        }
    });
    let r = exec_logging(&src, &lim, Some(&cancel), |_| {
        let _ = ready.send(());
    });
    canceller.join().expect("joins");
    stopped_by(&r, Limit::Cancelled);
}

#[test]
fn a_host_can_cancel_one_map_operation_on_huge_keys() {
    // Each operation compares two keys of a billion elements, inside the
    // persistent map, where only the thread's meter can see the flag.
    let setup = format!("{TWINS_FOR_TIME}\nlet m = map.from_list([(a, 1)])");
    cancelled_inside(&setup, "map.size(map.insert(m, b, 2))");
    cancelled_inside(&setup, "map.get(m, b) == None");
    cancelled_inside(&setup, "map.size(map.remove(m, b))");
}

#[test]
fn a_host_can_cancel_a_long_library_call() {
    cancelled_inside(SHARED, "list.length(list.sort(xs))");
}

#[test]
fn a_host_can_cancel_a_long_comparison() {
    cancelled_inside(TWINS_FOR_TIME, "a < b");
}

#[test]
fn metered_library_calls_give_the_same_results_as_before() {
    let src = r#"
let words = ["pear", "fig", "apple", "fig", "kiwi", "apple"]
let pairs = [(2, "b"), (1, "a"), (2, "a"), (1, "b")]
let m = map.merge(map.from_list([("a", 1), ("b", 2)]), map.from_list([("b", 20), ("c", 30)]))
let nested = [[3, 1], [2], [3, 0, 9], [], [2]]
let j = json.parse("{\"k\": [1, 2.5, \"x\\ny\"], \"a\": null}")
let checks = [
  list.sort([5, 3, 9, 1, 3, -2]) == [-2, 1, 3, 3, 5, 9],
  list.sort(words) == ["apple", "apple", "fig", "fig", "kiwi", "pear"],
  list.sort(nested) == [[], [2], [2], [3, 0, 9], [3, 1]],
  list.unique(words) == ["pear", "fig", "apple", "kiwi"],
  list.unique(nested) == [[3, 1], [2], [3, 0, 9], []],
  list.sort_by(pairs, fn(p) { match p { (k, _) => k } }) == [(1, "a"), (1, "b"), (2, "b"), (2, "a")],
  list.sort_by(list.range(0, 5000), fn(x) { 0 - x }) == list.reverse(list.range(0, 5000)),
  list.sort(list.map(list.range(0, 9000), fn(x) { (x * 7919) % 9000 })) == list.range(0, 9000),
  list.contains(nested, [3, 0, 9]),
  !list.contains(nested, [3, 0]),
  list.max(nested) == Some([3, 1]),
  map.to_list(m) == [("a", 1), ("b", 20), ("c", 30)],
  map.get(m, "b") == Some(20),
  str.replace("a-b--c", "-", "+") == "a+b++c",
  str.split("a,b,,c", ",") == ["a", "b", "", "c"],
  str.lines("x\r\ny\n\nz\n") == ["x", "y", "", "z"],
  str.index_of("héllo wörld", "wö") == Some(6),
  str.slice("héllo", 1, 4) == "éll",
  str.pad_left("7", 4, "ab") == "aba7",
  str.pad_right("7", 4, "0") == "7000",
  str.to_lower("ΟΔΟΣ ΣΑΣ") == "οδος σας",
  str.to_upper("straße") == "STRASSE",
  str.repeat("ab", 3) == "ababab",
  str.trim("  x y  ") == "x y",
  str.length("héllo") == 5,
  "${nested} ${m}" == "[[3, 1], [2], [3, 0, 9], [], [2]] map.from_list([(\"a\", 1), (\"b\", 20), (\"c\", 30)])",
  list.join([1, 2, 3], "-") == "1-2-3",
  (nested, 1) < (nested, 2),
  [1.0, 0.0 / 0.0] != [1.0, 0.0 / 0.0],
  json.stringify(match j { Ok(v) => v, Err(_) => Null }) == "{\"a\":null,\"k\":[1,2.5,\"x\\ny\"]}",
]
list.length(list.filter(checks, fn(c) { !c }))
"#;
    let (r, _) = exec(src, &limits(&[("fuel", "1e8"), ("time", "60s")]), None);
    assert_eq!(r.as_deref().ok(), Some("0"), "{r:?}");
}
