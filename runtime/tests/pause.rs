//! Pausing at host operations: a run handed out at each operation of a
//! host capability, answered with a value, a failure or a stop, and
//! resumed; its limits (fuel, time, memory, output) carried across
//! pauses; and `run`, the loop over the same pauses, giving the same
//! outcomes.

mod common;

use std::time::Duration;

use common::{compile, limits};
use writ_runtime::{
    Host, HostError, Limit, Limits, Module, Paused, Progress, RunError, Value, run, start,
};

fn shown(v: &Value, module: &Module) -> String {
    writ_runtime::display::to_string(v, module, writ_runtime::display::StrForm::Quoted, 10_000)
}

/// The run's value (displayed) or error, answering each pause with
/// `answer`, and the operations it paused at (`Effect.op(args)`).
fn drive(
    module: &Module,
    limits: &Limits,
    mut answer: impl FnMut(&Paused<'_>) -> Result<Value, HostError>,
) -> (Result<String, RunError>, Vec<String>) {
    let mut seen = Vec::new();
    let mut progress = start(module, limits, None);
    loop {
        match progress {
            Progress::Done(r) => return (r.map(|v| shown(&v, module)), seen),
            Progress::Paused(p) => {
                let args: Vec<String> = p.args().iter().map(|a| shown(a, module)).collect();
                seen.push(format!("{}.{}({})", p.effect(), p.op(), args.join(", ")));
                let a = answer(&p);
                progress = p.resume(a);
            }
        }
    }
}

/// A host answering every operation as [`answer_all`] does.
struct Answering;

impl Host for Answering {
    fn perform(&mut self, effect: &str, op: &str, args: &[Value]) -> Result<Value, HostError> {
        answer_all(effect, op, args)
    }
}

/// An answer for every built-in host capability's operation.
fn answer_all(effect: &str, op: &str, args: &[Value]) -> Result<Value, HostError> {
    match (effect, op) {
        ("Http", "get") => Ok(Value::str(format!(
            "page of {}",
            args.first().and_then(Value::as_str).unwrap_or_default()
        ))),
        ("Http", "post") => Ok(Value::str("posted")),
        ("Log", "info") | ("Audit", "note") => Ok(Value::unit()),
        ("Clock", "now") => Ok(Value::int(42)),
        ("Confirm", "ask") => Ok(Value::bool(true)),
        ("Records", "list") => Ok(Value::list([Value::str("e1"), Value::str("e2")])),
        _ => Err(HostError::Fail(format!("no answer for {effect}.{op}"))),
    }
}

#[test]
fn a_run_pauses_at_each_host_operation_and_resumes_with_the_answer() {
    let module = compile(
        "let page = Http.get(\"https://a.example\")\n\
         Log.info(page)\n\
         let sent = Http.post(\"https://b.example\", \"x\")\n\
         Audit.note(\"noted\")\n\
         let t = Clock.now()\n\
         let ok = Confirm.ask(\"pay?\")\n\
         let ids = Records.list()\n\
         (page, sent, t, ok, ids)\n",
    );
    let (r, seen) = drive(&module, &Limits::default(), |p| {
        answer_all(p.effect(), p.op(), p.args())
    });
    assert_eq!(
        r.expect("ends with a value"),
        "(\"page of https://a.example\", \"posted\", 42, true, [\"e1\", \"e2\"])"
    );
    assert_eq!(
        seen,
        [
            "Http.get(\"https://a.example\")",
            "Log.info(\"page of https://a.example\")",
            "Http.post(\"https://b.example\", \"x\")",
            "Audit.note(\"noted\")",
            "Clock.now()",
            "Confirm.ask(\"pay?\")",
            "Records.list()",
        ]
    );
}

#[test]
fn a_run_pauses_at_pay_and_records_read_too_and_a_refused_one_fails_where_it_was() {
    let module = compile(
        "let r = handle { let e = Records.read(\"e1\")\n Some(e) } with { Fail.fail(m) => { Log.info(m)\n None }, return(x) => x }\n\
         let p = handle { let x = Pay.pay(\"acme\", 100, \"memo\")\n \"paid\" } with { Fail.fail(m) => \"refused: ${m}\", return(x) => x }\n\
         (r == None, p)\n",
    );
    let (r, seen) = drive(&module, &Limits::default(), |p| {
        answer_all(p.effect(), p.op(), p.args())
    });
    assert_eq!(
        r.expect("ends with a value"),
        "(true, \"refused: no answer for Pay.pay\")"
    );
    assert_eq!(
        seen,
        [
            "Records.read(\"e1\")",
            "Log.info(\"no answer for Records.read\")",
            "Pay.pay(\"acme\", 100, \"memo\")",
        ]
    );
}

#[test]
fn a_failure_at_a_pause_with_no_handler_ends_the_run_as_fail_does() {
    let module = compile("let a = Clock.now()\na + 1\n");
    let (r, _) = drive(&module, &Limits::default(), |_| {
        Err(HostError::Fail("denied by the host".into()))
    });
    let e = r.expect_err("fails");
    assert_eq!(e.code, writ_lang::Code::ProgramFailed);
    assert!(e.message.contains("denied by the host"), "{}", e.message);
    assert!(e.span.is_some(), "placed at the operation");
}

#[test]
fn a_stop_at_a_pause_ends_the_run_with_that_error() {
    let module = compile("let a = Clock.now()\nLog.info(\"never\")\na\n");
    let (r, seen) = drive(&module, &Limits::default(), |_| {
        Err(HostError::Stop(RunError::internal("the host stopped it")))
    });
    assert!(
        r.expect_err("stops")
            .message
            .ends_with("the host stopped it")
    );
    assert_eq!(seen, ["Clock.now()"]);
}

const MULTI_SHOT: &str = "effect Choose {\n  fn choose() -> Bool\n}\n\
    fn all(action: fn() -> a / {Choose | e}) -> List[a] / {e} {\n\
      handle action() with {\n\
        Choose.choose() => resume(true) ++ resume(false),\n\
        return(x) => [x],\n\
      }\n\
    }\n\
    all(fn() {\n\
      let a = Choose.choose()\n\
      let t = Clock.now()\n\
      Log.info(\"a=${a}\")\n\
      let b = Choose.choose()\n\
      let ok = Confirm.ask(\"${a} ${b}?\")\n\
      (a, b, t, ok)\n\
    })\n";

#[test]
fn a_run_inside_a_multi_shot_handler_pauses_in_every_branch() {
    let module = compile(MULTI_SHOT);
    let mut clock = 0;
    let (r, seen) = drive(&module, &Limits::default(), |p| match p.effect() {
        "Clock" => {
            clock += 1;
            Ok(Value::int(clock))
        }
        "Confirm" => Ok(Value::bool(
            p.args().first().and_then(Value::as_str) != Some("false false?"),
        )),
        _ => Ok(Value::unit()),
    });
    assert_eq!(
        r.expect("ends with a value"),
        "[(true, true, 1, true), (true, false, 1, true), (false, true, 2, true), (false, false, 2, false)]"
    );
    assert_eq!(
        seen,
        [
            "Clock.now()",
            "Log.info(\"a=true\")",
            "Confirm.ask(\"true true?\")",
            "Confirm.ask(\"true false?\")",
            "Clock.now()",
            "Log.info(\"a=false\")",
            "Confirm.ask(\"false true?\")",
            "Confirm.ask(\"false false?\")",
        ]
    );
}

#[test]
fn run_is_the_loop_over_the_pauses_and_gives_the_same_outcomes() {
    for src in [
        MULTI_SHOT,
        "let page = Http.get(\"u\")\nLog.info(page)\nlist.length(Records.list())\n",
        "let p = handle { Pay.pay(\"acme\", 1, \"m\")\n \"paid\" } with { Fail.fail(m) => m, return(x) => x }\np\n",
        "let a = Clock.now()\nFail.fail(\"no\")\n",
    ] {
        let module = compile(src);
        let straight = run(&module, &Limits::default(), &mut Answering, None);
        let (paused, _) = drive(&module, &Limits::default(), |p| {
            answer_all(p.effect(), p.op(), p.args())
        });
        match (straight, paused) {
            (Ok(a), Ok(b)) => assert_eq!(shown(&a, &module), b),
            (Err(a), Err(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}")),
            (a, b) => panic!("{src}: run gave {a:?}, start/resume gave {b:?}"),
        }
    }
}

const LOOP: &str = "fn go(n: Int, acc: Int) -> Int {\n\
      if n == 0 { acc } else { go(n - 1, acc + Clock.now()) }\n\
    }\n\
    go(1000, 0)\n";

#[test]
fn fuel_is_counted_across_pauses_as_in_a_straight_run() {
    let module = compile(LOOP);
    let enough = limits(&[("fuel", "1000000")]);
    let (r, seen) = drive(&module, &enough, |_| Ok(Value::int(2)));
    assert_eq!(r.expect("fits"), "2000");
    assert_eq!(seen.len(), 1000);
    // Find the least fuel the straight run needs; the paused run needs the
    // same, no more and no less.
    let needs = |fuel: u64| {
        let l = Limits {
            fuel,
            ..Limits::default()
        };
        let straight = run(&module, &l, &mut Answering, None).is_ok();
        let (paused, _) = drive(&module, &l, |_| Ok(Value::int(42)));
        assert_eq!(straight, paused.is_ok(), "fuel {fuel}");
        if let Err(e) = paused {
            assert_eq!(e.limit, Some(Limit::Fuel), "{e:?}");
        }
        straight
    };
    let (mut lo, mut hi) = (1u64, 1_000_000u64);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if needs(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    assert!(lo > 1000, "every pause's steps are counted: {lo}");
    assert!(!needs(lo - 1) && needs(lo));
}

#[test]
fn a_paused_runs_clock_stops_but_its_running_time_carries_over() {
    // Paused for longer than its time limit: the pause is not counted.
    let module = compile("let a = Clock.now()\na + 1\n");
    let short = limits(&[("time", "50ms")]);
    let (r, _) = drive(&module, &short, |_| {
        std::thread::sleep(Duration::from_millis(120));
        Ok(Value::int(1))
    });
    assert_eq!(r.expect("the pause is not the run's time"), "2");
    // Running time before the pause and after it add up: each slice spins
    // for ~40 ms of a 60 ms limit.
    let module = compile(
        "fn spin(n: Int) -> Int { if n == 0 { 0 } else { spin(n - 1) } }\n\
         fn slice(k: Int) -> Int { let t = Clock.now()\n if t == 0 { 0 } else { spin(t)\n slice(k + 1) } }\n\
         slice(0)\n",
    );
    // Steps for ~40 ms: measure a straight spin first.
    let probe =
        compile("fn spin(n: Int) -> Int { if n == 0 { 0 } else { spin(n - 1) } }\nspin(2000000)\n");
    let began = std::time::Instant::now();
    run(&probe, &Limits::default(), &mut Answering, None).expect("spins");
    let per_step = began.elapsed().as_secs_f64() / 2_000_000.0;
    let forty_ms = ((0.040 / per_step) as i64).max(1000);
    let l = limits(&[("time", "60ms")]);
    let mut slices = 0;
    let (r, _) = drive(&module, &l, |_| {
        slices += 1;
        std::thread::sleep(Duration::from_millis(30));
        Ok(Value::int(if slices > 3 { 0 } else { forty_ms }))
    });
    let e = r.expect_err("two slices of 40 ms pass a 60 ms limit");
    assert_eq!(e.limit, Some(Limit::Time), "{e:?}");
    assert!(
        slices <= 3,
        "stopped in the second or third slice, not later: {slices}"
    );
}

#[test]
fn a_paused_run_keeps_its_memory_and_is_not_charged_for_the_hosts() {
    // The run holds ~1 MB across the pause and makes ~1 MB more after it:
    // with a 1.5 MB limit, the second makes it pass, whatever the host
    // freed or made while it was paused.
    let module = compile(
        "let a = str.repeat(\"x\", 1000000)\n\
         let n = Clock.now()\n\
         let b = str.repeat(\"y\", n)\n\
         str.length(a) + str.length(b)\n",
    );
    let l = limits(&[("memory", "1500000")]);
    let (r, _) = drive(&module, &l, |_| Ok(Value::int(1_000_000)));
    let e = r.expect_err("a and b together pass the limit");
    assert_eq!(e.limit, Some(Limit::Memory), "{e:?}");
    // A small second string fits, even when the host keeps 10 MB of its own
    // values alive across the pause.
    let mut kept = Vec::new();
    let (r, _) = drive(&module, &l, |_| {
        kept.push(Value::str("z".repeat(10_000_000)));
        Ok(Value::int(10))
    });
    assert_eq!(r.expect("fits"), "1000010");
    drop(kept);
}

#[test]
fn output_is_counted_across_pauses() {
    let module = compile(
        "fn go(n: Int) -> Unit { if n == 0 { () } else { Log.info(\"0123456789\")\n go(n - 1) } }\ngo(20)\n",
    );
    let l = limits(&[("output", "100")]);
    let (r, seen) = drive(&module, &l, |_| Ok(Value::unit()));
    assert_eq!(r.expect_err("too much output").limit, Some(Limit::Output));
    assert_eq!(seen.len(), 9, "the tenth line would pass 100 bytes");
}

#[test]
fn paused_runs_resume_in_any_order_and_dropping_one_leaves_the_meter_alone() {
    let module = compile("let a = Clock.now()\nlet b = Clock.now()\na * 10 + b\n");
    let timed = limits(&[("time", "10s")]);
    let Progress::Paused(first) = start(&module, &timed, None) else {
        panic!("pauses");
    };
    assert_eq!(
        writ_runtime::meter::deadline(),
        None,
        "no meter while paused"
    );
    let Progress::Paused(second) = start(&module, &Limits::default(), None) else {
        panic!("pauses");
    };
    let Progress::Paused(second) = second.resume(Ok(Value::int(3))) else {
        panic!("pauses again");
    };
    let Progress::Paused(first) = first.resume(Ok(Value::int(1))) else {
        panic!("pauses again");
    };
    drop(second);
    assert_eq!(writ_runtime::meter::deadline(), None);
    let Progress::Done(r) = first.resume(Ok(Value::int(2))) else {
        panic!("ends");
    };
    assert_eq!(r.expect("a value").as_int(), Some(12));
    assert_eq!(writ_runtime::meter::deadline(), None);
}
