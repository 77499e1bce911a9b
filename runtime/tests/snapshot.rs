//! Snapshots of paused runs: a run driven straight through and the same
//! run snapshotted and restored (the original dropped first) at every
//! pause give the same result, the same operations and the same fuel at
//! each; bytes for another module, truncated, corrupted or crafted bytes
//! are refused (`E4009`) without a panic; the size of a snapshot and of
//! what it restores is bounded by the memory limit.

mod common;

use common::compile;
use proptest::prelude::*;
use writ_lang::Code;
use writ_runtime::{
    HostError, Limit, Limits, Module, Paused, Progress, RunError, Value, restore, start,
};

fn shown(v: &Value, module: &Module) -> String {
    writ_runtime::display::to_string(v, module, writ_runtime::display::StrForm::Quoted, 100_000)
}

/// One pause as seen by the host: the operation, its arguments, and the
/// fuel used so far.
type Seen = (String, u64);

/// Drive `module` to its end, answering the `n`th pause with
/// `answer(n, paused)`; with `snap`, every paused run is replaced by the
/// run restored from its snapshot (the original dropped first). The value
/// (displayed) or error, and each pause with the fuel used at it.
fn drive(
    module: &Module,
    limits: &Limits,
    snap: bool,
    answer: &dyn Fn(usize, &Paused<'_>) -> Result<Value, HostError>,
) -> (Result<String, RunError>, Vec<Seen>) {
    let mut seen = Vec::new();
    let mut progress = start(module, limits, None);
    loop {
        match progress {
            Progress::Done(r) => return (r.map(|v| shown(&v, module)), seen),
            Progress::Paused(p) => {
                let p = if snap {
                    let before = p.usage();
                    let bytes = p.to_bytes().expect("a snapshot");
                    drop(p);
                    let again = restore(module, &bytes, limits, None).expect("restores");
                    assert_eq!(again.usage().fuel, before.fuel);
                    again
                } else {
                    p
                };
                let args: Vec<String> = p.args().iter().map(|a| shown(a, module)).collect();
                seen.push((
                    format!("{}.{}({})", p.effect(), p.op(), args.join(", ")),
                    p.usage().fuel,
                ));
                let a = answer(seen.len() - 1, &p);
                progress = p.resume(a);
            }
        }
    }
}

/// Answers to every built-in capability's operations, varying with the
/// pause's number.
fn answer(n: usize, p: &Paused<'_>) -> Result<Value, HostError> {
    match (p.effect(), p.op()) {
        ("Clock", "now") => Ok(Value::int(n as i64 * 7 + 1)),
        ("Confirm", "ask") => Ok(Value::bool(!n.is_multiple_of(3))),
        ("Http", "get") => Ok(Value::str(format!("página {n} ✓ 🦀"))),
        ("Log", "info") => Ok(Value::unit()),
        _ => Err(HostError::Fail(format!("no answer at {n}"))),
    }
}

/// The program driven straight, and with a snapshot at every pause, agree;
/// the straight run's value, and how many pauses it made.
fn same_both_ways(src: &str) -> (String, usize) {
    let module = compile(src);
    let limits = Limits::default();
    let straight = drive(&module, &limits, false, &answer);
    let snapped = drive(&module, &limits, true, &answer);
    assert_eq!(straight.1, snapped.1, "the pauses of {src}");
    let (a, b) = (straight.0, snapped.0);
    assert_eq!(a, b, "the outcome of {src}");
    (a.expect("a value"), straight.1.len())
}

const STATE: &str = "effect State {\n  fn get() -> Int\n  fn put(value: Int) -> Unit\n}\n\
    fn with_state(init: Int, f: fn() -> Int / {State | e}) -> Int / {e} {\n\
      handle f() with (s = init) {\n\
        State.get() => resume(s, s),\n\
        State.put(v) => resume((), v),\n\
        return(x) => x + s,\n\
      }\n\
    }\n";

const MULTI_SHOT: &str = "effect Choose {\n  fn choose() -> Bool\n}\n\
    fn all(action: fn() -> a / {Choose | e}) -> List[a] / {e} {\n\
      handle action() with {\n\
        Choose.choose() => resume(true) ++ resume(false),\n\
        return(x) => [x],\n\
      }\n\
    }\n";

#[test]
fn a_loop_of_host_operations() {
    let (v, n) = same_both_ways(
        "fn go(n: Int, acc: Int) -> Int {\n  if n == 0 { acc } else { go(n - 1, acc + Clock.now()) }\n}\ngo(40, 0)\n",
    );
    assert_eq!(n, 40);
    assert_eq!(v, (0..40).map(|n| n * 7 + 1).sum::<i64>().to_string());
}

#[test]
fn inside_user_handlers_and_a_state_handler() {
    let src = format!(
        "{STATE}let r = with_state(10, fn() {{\n\
           State.put(State.get() + Clock.now())\n\
           Log.info(\"s=${{State.get()}}\")\n\
           let ok = handle {{ Confirm.ask(\"go?\") }} with {{ Fail.fail(m) => false, return(x) => x }}\n\
           if ok {{ State.put(State.get() * 2) }} else {{ () }}\n\
           State.get() + Clock.now()\n\
         }})\n\
         r\n"
    );
    let (v, n) = same_both_ways(&src);
    assert_eq!(n, 4);
    assert_eq!(v, "66");
}

#[test]
fn a_generator_and_a_failure_answered_at_a_pause() {
    let src = "effect Gen {\n  fn emit(x: Int) -> Unit\n}\n\
        fn collect(f: fn() -> Unit / {Gen | e}) -> List[Int] / {e} {\n\
          handle f() with {\n\
            Gen.emit(x) => [x] ++ resume(()),\n\
            return(u) => [],\n\
          }\n\
        }\n\
        let xs = collect(fn() {\n\
          Gen.emit(Clock.now())\n\
          let p = handle { Http.get(\"https://a.example\") } with { Fail.fail(m) => m, return(x) => x }\n\
          Gen.emit(str.length(p))\n\
          let q = handle { Pay.pay(\"acme\", 1, \"m\") } with { Fail.fail(m) => m, return(x) => \"paid\" }\n\
          Log.info(q)\n\
          Gen.emit(Clock.now())\n\
        })\n\
        xs\n";
    let (v, n) = same_both_ways(src);
    assert_eq!(n, 5);
    assert_eq!(v, "[1, 12, 29]");
}

#[test]
fn multi_shot_continuations_captured_before_the_pause() {
    let src = format!(
        "{MULTI_SHOT}all(fn() {{\n\
           let a = Choose.choose()\n\
           let t = Clock.now()\n\
           Log.info(\"a=${{a}}\")\n\
           let b = Choose.choose()\n\
           let ok = Confirm.ask(\"${{a}} ${{b}}?\")\n\
           (a, b, t, ok)\n\
         }})\n"
    );
    let (v, n) = same_both_ways(&src);
    assert_eq!(n, 8);
    assert_eq!(
        v,
        "[(true, true, 1, true), (true, false, 1, false), (false, true, 29, false), (false, false, 29, true)]"
    );
}

#[test]
fn closures_deep_recursion_and_list_views() {
    let (v, _) = same_both_ways(
        "fn deep(n: Int, f: fn(Int) -> Int) -> Int {\n  if n == 0 { f(Clock.now()) } else { 1 + deep(n - 1, f) }\n}\n\
         let k = 5\n\
         let add = fn(x: Int) { x + k }\n\
         let a = deep(150, add)\n\
         fn walk(xs: List[Int], acc: Int) -> Int {\n  match xs {\n    [] => acc,\n    [x, ..rest] => if x % 10 == 0 { walk(rest, acc + x + Clock.now()) } else { walk(rest, acc + x) },\n  }\n}\n\
         (a, walk(list.range(0, 35), 0))\n",
    );
    assert_eq!(v, "(156, 669)");
}

#[test]
fn big_lists_maps_records_and_unicode_strings() {
    let (v, n) = same_both_ways(
        "let xs = list.map(list.range(0, 3000), fn(i) { { id: i, name: \"nom ${i} ✓\", tags: [i, i * 2] } })\n\
         let m = list.fold(list.range(0, 1000), map.empty(), fn(acc, i) { map.insert(acc, \"k${i}é\", (i, \"v${i}\")) })\n\
         let shared = (xs, xs, m, m)\n\
         let page = Http.get(\"https://a.example\")\n\
         let t = Clock.now()\n\
         let nan = 0.0 / 0.0\n\
         let z = -0.0\n\
         let u = Confirm.ask(page)\n\
         let (a, b, c, d) = shared\n\
         (list.length(a) + list.length(b), map.size(c) + map.size(d), map.get(c, \"k999é\"), page, t, u, \"${nan} ${z} ${1.0 / z}\")\n",
    );
    assert_eq!(n, 3);
    assert_eq!(
        v,
        "(6000, 2000, Some((999, \"v999\")), \"página 0 ✓ 🦀\", 8, true, \"NaN -0.0 -inf\")"
    );
}

/// A paused run of a program with a bit of everything, and its snapshot.
fn sample(module: &Module) -> (Paused<'_>, Vec<u8>) {
    let mut progress = start(module, &Limits::default(), None);
    for n in 0.. {
        match progress {
            Progress::Paused(p) if n == 3 => {
                let bytes = p.to_bytes().expect("a snapshot");
                return (p, bytes);
            }
            Progress::Paused(p) => {
                let a = answer(n, &p);
                progress = p.resume(a);
            }
            Progress::Done(r) => panic!("ended before its fourth pause: {r:?}"),
        }
    }
    unreachable!()
}

fn sample_module() -> Module {
    compile(&format!(
        "{MULTI_SHOT}{STATE}let r = {{ a: [1, 2, 3], b: \"é\", c: 1.5 }}\n\
         all(fn() {{\n\
           let a = Choose.choose()\n\
           let t = with_state(1, fn() {{ State.put(Clock.now())\n State.get() }})\n\
           let m = map.from_list([(\"x\", r), (\"y\", r)])\n\
           let ok = Confirm.ask(\"${{a}}\")\n\
           (a, t, ok, m)\n\
         }})\n"
    ))
}

#[test]
fn a_snapshot_for_another_module_is_refused() {
    let module = sample_module();
    let (_p, bytes) = sample(&module);
    let other = compile("let t = Clock.now()\nt\n");
    let e = restore(&other, &bytes, &Limits::default(), None).expect_err("refused");
    assert_eq!(e.code, Code::SnapshotRefused);
    assert!(
        e.message.contains("a snapshot of another program"),
        "{}",
        e.message
    );
    assert!(
        e.message
            .starts_with("snapshot refused: expected a snapshot of this program (fingerprint "),
        "{}",
        e.message
    );
}

#[test]
fn other_versions_and_other_bytes_are_refused_with_what_was_expected() {
    let module = sample_module();
    let (_p, bytes) = sample(&module);
    let mut v2 = bytes.clone();
    v2[8] = 2;
    let e = restore(&module, &v2, &Limits::default(), None).expect_err("refused");
    assert_eq!(e.code, Code::SnapshotRefused);
    assert_eq!(
        e.message,
        "snapshot refused: expected the snapshot format's version 1 at byte 8, but found version 2"
    );
    let e = restore(&module, b"{\"json\": 1}", &Limits::default(), None).expect_err("refused");
    assert_eq!(
        e.message,
        "snapshot refused: expected a Writ snapshot (its magic `WRITSNAP`) at byte 0, but found other bytes"
    );
    let mut longer = bytes.clone();
    longer.push(0);
    let e = restore(&module, &longer, &Limits::default(), None).expect_err("refused");
    assert!(
        e.message
            .starts_with("snapshot refused: expected the end of the snapshot at byte "),
        "{}",
        e.message
    );
    assert!(
        e.message.ends_with("but found 1 more bytes"),
        "{}",
        e.message
    );
}

#[test]
fn every_truncation_of_a_snapshot_is_refused() {
    let module = sample_module();
    let (_p, bytes) = sample(&module);
    for n in 0..bytes.len() {
        match restore(&module, &bytes[..n], &Limits::default(), None) {
            Err(e) => assert_eq!(e.code, Code::SnapshotRefused, "at {n}: {e:?}"),
            Ok(_) => panic!("{n} bytes of {} restored", bytes.len()),
        }
    }
}

#[test]
fn a_restored_sample_finishes_as_the_original() {
    let module = sample_module();
    let (p, bytes) = sample(&module);
    let finish = |p: Paused<'_>| {
        let mut progress = p.resume(Ok(Value::bool(true)));
        let mut n = 10;
        loop {
            match progress {
                Progress::Done(r) => return r.map(|v| shown(&v, &module)),
                Progress::Paused(p) => {
                    let a = answer(n, &p);
                    n += 1;
                    progress = p.resume(a);
                }
            }
        }
    };
    let a = finish(p);
    let b = finish(restore(&module, &bytes, &Limits::default(), None).expect("restores"));
    assert_eq!(a, b);
    assert!(a.expect("a value").starts_with("[(true, "));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Damaged bytes are refused or restore a run that ends (within small
    /// limits) with a value or an error: never a panic.
    #[test]
    fn flipped_bytes_never_panic(flips in prop::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..4)) {
        let module = sample_module();
        let (_p, bytes) = sample(&module);
        let mut damaged = bytes.clone();
        for (i, x) in &flips {
            let at = i.index(damaged.len());
            damaged[at] ^= x;
        }
        let limits = Limits { fuel: 100_000, memory: 8 << 20, ..Limits::default() };
        if let Ok(p) = restore(&module, &damaged, &limits, None) {
            let mut progress = p.resume(Ok(Value::bool(true)));
            while let Progress::Paused(p) = progress {
                progress = p.resume(Ok(Value::unit()));
            }
        }
    }

    /// Arbitrary bytes after a valid header are refused or restore: never
    /// a panic.
    #[test]
    fn crafted_bodies_never_panic(body in prop::collection::vec(any::<u8>(), 0..200)) {
        let module = sample_module();
        let (_p, bytes) = sample(&module);
        let mut crafted = bytes[..20].to_vec();
        crafted.extend(body);
        let _ = restore(&module, &crafted, &Limits::default(), None);
    }
}

#[test]
fn sharing_is_kept_so_a_dag_takes_linear_bytes() {
    let module = compile(
        "type Tree = Leaf | Node(Tree, Tree)\n\
         let t = list.fold(list.range(0, 60), Leaf, fn(acc, i) { Node(acc, acc) })\n\
         let n = Clock.now()\n\
         match t { Node(a, b) => n, Leaf => 0 }\n",
    );
    let Progress::Paused(p) = start(&module, &Limits::default(), None) else {
        panic!("pauses")
    };
    let bytes = p.to_bytes().expect("a snapshot");
    assert!(bytes.len() < 2_000, "{} bytes", bytes.len());
    drop(p);
    let p = restore(&module, &bytes, &Limits::default(), None).expect("restores");
    let Progress::Done(r) = p.resume(Ok(Value::int(9))) else {
        panic!("ends")
    };
    assert_eq!(r.expect("a value").as_int(), Some(9));
}

#[test]
fn a_deep_value_snapshots_and_restores_without_recursion() {
    let module = compile(
        "type Chain = End | Link(Int, Chain)\n\
         let c = list.fold(list.range(0, 300000), End, fn(acc, i) { Link(i, acc) })\n\
         let n = Clock.now()\n\
         match c { Link(i, _) => i + n, End => 0 }\n",
    );
    let Progress::Paused(p) = start(&module, &Limits::default(), None) else {
        panic!("pauses")
    };
    let bytes = p.to_bytes().expect("a snapshot");
    drop(p);
    let p = restore(&module, &bytes, &Limits::default(), None).expect("restores");
    let Progress::Done(r) = p.resume(Ok(Value::int(1))) else {
        panic!("ends")
    };
    assert_eq!(r.expect("a value").as_int(), Some(300_000));
}

#[test]
fn a_snapshot_near_the_memory_limit_restores_under_it_and_not_under_a_much_smaller_one() {
    let module = compile(
        "let xs = list.map(list.range(0, 100000), fn(i) { \"item ${i}\" })\n\
         let n = Clock.now()\n\
         list.length(xs) + n\n",
    );
    let limits = Limits {
        memory: 10 << 20,
        ..Limits::default()
    };
    let Progress::Paused(p) = start(&module, &limits, None) else {
        panic!("pauses")
    };
    let used = p.usage().memory_peak;
    assert!(used > 7 << 20, "near the limit: {used}");
    let bytes = p.to_bytes().expect("a snapshot");
    assert!(
        bytes.len() <= writ_runtime::snapshot_bound(&limits),
        "{}",
        bytes.len()
    );
    drop(p);
    let p = restore(&module, &bytes, &limits, None).expect("restores under the same limit");
    let Progress::Done(r) = p.resume(Ok(Value::int(1))) else {
        panic!("ends")
    };
    assert_eq!(r.expect("a value").as_int(), Some(100_001));

    let mut small = limits.clone();
    small.memory = 1 << 20;
    let e = restore(&module, &bytes, &small, None).expect_err("refused");
    assert_eq!(e.code, Limit::Memory.code());
    assert_eq!(e.limit, Some(Limit::Memory));
    assert_eq!(
        e.message,
        "expected the program to use at most 1 MiB, but restoring its snapshot needed more"
    );
}

#[test]
fn the_bound_is_twice_the_memory_limit_and_64_kib() {
    let limits = Limits {
        memory: 1 << 20,
        ..Limits::default()
    };
    assert_eq!(writ_runtime::snapshot_bound(&limits), (2 << 20) + 64 * 1024);
}

#[test]
fn fuel_output_and_time_carry_over_and_count_against_the_new_limits() {
    let module = compile(
        "fn spin(n: Int) -> Int { if n == 0 { 0 } else { spin(n - 1) } }\n\
         Log.info(\"0123456789\")\n\
         let a = spin(50000)\n\
         let t = Clock.now()\n\
         Log.info(\"0123456789\")\n\
         spin(50000) + t\n",
    );
    let limits = Limits::default();
    let mut progress = start(&module, &limits, None);
    let p = loop {
        match progress {
            Progress::Paused(p) if p.effect() == "Clock" => break p,
            Progress::Paused(p) => progress = p.resume(Ok(Value::unit())),
            Progress::Done(r) => panic!("{r:?}"),
        }
    };
    let used = p.usage();
    assert!(used.fuel > 100_000, "{used:?}");
    let bytes = p.to_bytes().expect("a snapshot");
    drop(p);
    // Too little fuel left for the second spin: the restored run runs out.
    let mut tight = limits.clone();
    tight.fuel = used.fuel + 1_000;
    let p = restore(&module, &bytes, &tight, None).expect("restores");
    let mut progress = p.resume(Ok(Value::int(1)));
    while let Progress::Paused(p) = progress {
        progress = p.resume(Ok(Value::unit()));
    }
    let Progress::Done(Err(e)) = progress else {
        panic!("runs out of fuel")
    };
    assert_eq!(e.limit, Some(Limit::Fuel));
    // The first line's output counted: one more line passes a limit of 15.
    let mut out = limits.clone();
    out.output = 15;
    let p = restore(&module, &bytes, &out, None).expect("restores");
    let Progress::Done(Err(e)) = p.resume(Ok(Value::int(1))) else {
        panic!("ends at the second Log.info")
    };
    assert_eq!(e.limit, Some(Limit::Output), "{e:?}");
    // The running time used counts: a time limit below it ends the run at
    // resume.
    let mut quick = limits.clone();
    quick.time = std::time::Duration::from_nanos(1);
    let p = restore(&module, &bytes, &quick, None).expect("restores");
    let Progress::Done(Err(e)) = p.resume(Ok(Value::int(1))) else {
        panic!("ends")
    };
    assert_eq!(e.limit, Some(Limit::Time), "{e:?}");
}

#[test]
fn values_the_host_made_round_trip_records_of_their_own_shape_too() {
    // The machine does not check an answer's type: the program keeps the
    // host's values as they are (a record whose shape the host made, a
    // map, a list) and returns the first.
    let module = compile(
        "let r = { name: \"n\", size: 1 }\nlet t = Clock.now()\nlet u = Clock.now()\n(r, t)\n",
    );
    let Progress::Paused(p) = start(&module, &Limits::default(), None) else {
        panic!("pauses")
    };
    let made = Value::record(
        &module,
        [
            (
                "size",
                Value::map([(Value::str("k"), Value::list([Value::float(f64::NAN)]))]),
            ),
            ("name", Value::str("hôte")),
        ],
    )
    .expect("known fields");
    let Progress::Paused(p) = p.resume(Ok(made)) else {
        panic!("pauses again")
    };
    let bytes = p.to_bytes().expect("a snapshot");
    drop(p);
    let p = restore(&module, &bytes, &Limits::default(), None).expect("restores");
    // The host's values are charged to the restored run, which holds
    // them (the original was not charged for them: they were the host's
    // when made), so its snapshot says more live bytes, and is otherwise
    // the same.
    let again = p.to_bytes().expect("again");
    // (The count is a variable-length integer: a larger one may take a
    // byte more, or the same bytes.)
    assert!(
        (bytes.len()..=bytes.len() + 1).contains(&again.len()),
        "{} bytes, then {}",
        bytes.len(),
        again.len()
    );
    assert_ne!(again, bytes);
    assert_eq!(again[again.len() - 60..], bytes[bytes.len() - 60..]);
    let Progress::Done(r) = p.resume(Ok(Value::int(0))) else {
        panic!("ends")
    };
    assert_eq!(
        shown(&r.expect("a value"), &module),
        "({ name: \"n\", size: 1 }, { name: \"hôte\", size: map.from_list([(\"k\", [NaN])]) })"
    );
}
