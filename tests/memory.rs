//! Memory stays flat over many checks and runs in one process: the REPL,
//! an embedding server and the Python package live for hours, so whatever
//! one check or run allocates must be freed when it ends.
//!
//! A counting global allocator keeps the number of live bytes (allocated
//! and not yet freed). Each test warms up (thread-local pools and the
//! like reach their size), takes the count, does many more checks or runs,
//! and asserts the count has not grown beyond a small tolerance. The tests
//! take a lock so that only one of them allocates at a time; the harness's
//! own threads allocate little and nothing that lasts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};

/// The system allocator, counting live bytes.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);
/// Allocations made (`alloc`, `alloc_zeroed`), ever.
static MADE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator; the
// counter is only bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
            MADE.fetch_add(1, Ordering::Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
            MADE.fetch_add(1, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_add(
                new_size as isize - layout.size() as isize,
                Ordering::Relaxed,
            );
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// One measurement at a time (the checks below run from one test, so
/// that no other test of this file, nor the harness starting its thread,
/// allocates while one is measured).
static SERIAL: Mutex<()> = Mutex::new(());

/// How much the live bytes may grow over a whole measured phase. Every
/// test measures exactly 0 on the development machine; the room left is
/// for the harness's threads (a thread it starts meanwhile holds a few
/// hundred bytes). It is below 100 rounds of a 100-byte leak, so such a
/// leak fails every test but the REPL's (40 sessions: a leak of over 205
/// bytes a session fails it).
const TOLERANCE: isize = 8 * 1024;

/// Runs `round(i)` `warm` times, then `rounds` more times, and asserts the
/// live bytes after the second phase are within [`TOLERANCE`] of those
/// after the first.
fn assert_flat(what: &str, warm: usize, rounds: usize, mut round: impl FnMut(usize)) {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for i in 0..warm {
        round(i);
    }
    let before = LIVE.load(Ordering::SeqCst);
    for i in warm..warm + rounds {
        round(i);
    }
    let after = LIVE.load(Ordering::SeqCst);
    let grown = after - before;
    assert!(
        grown <= TOLERANCE,
        "{what}: live bytes grew by {grown} over {rounds} rounds ({} a round)",
        grown / rounds as isize
    );
}

/// Programs of a few kinds; `i` makes names and literals differ from one
/// round to the next, so a cache keyed by them would show as growth.
fn program(i: usize) -> String {
    match i % 4 {
        0 => format!("let x{i} = {i} + 1\nx{i} * 2\n"),
        1 => format!(
            "fn f{i}(n: Int) -> Int {{ if n <= 0 {{ 0 }} else {{ n + f{i}(n - 1) }} }}\n\
             Log.info(\"sum ${{f{i}(10)}}\")\nlist.map([1, 2, 3], fn(x) {{ x + {i} }})\n"
        ),
        2 => format!(
            "type T{i} = A{i}(Int) | B{i}\n\
             let v = match A{i}({i}) {{ A{i}(n) => n, B{i} => 0 }}\n\
             str.length(\"v${{v}}\")\n"
        ),
        _ => format!("let bad = {i} +\n"),
    }
}

/// Programs from `examples/` and `tests/run/`, read once.
fn corpus() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut texts = Vec::new();
    let dirs = [
        root.join("examples"),
        root.join("tests/run/basics"),
        root.join("tests/run/handlers"),
        root.join("tests/run/stdlib"),
    ];
    for dir in dirs {
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        files.sort();
        for f in files {
            if f.extension().is_some_and(|x| x == "writ")
                && let Ok(text) = std::fs::read_to_string(&f)
            {
                texts.push(text);
            }
        }
    }
    assert!(texts.len() >= 20, "expected the example programs");
    texts
}

fn checking_many_programs_keeps_memory_flat() {
    assert_flat("check_source", 20, 300, |i| {
        let checked = writ::check_source(&program(i), &writ::CheckOptions::default());
        assert_eq!(checked.accepted(), i % 4 != 3, "{:?}", checked.diagnostics);
    });
}

fn checking_the_same_program_keeps_memory_flat() {
    assert_flat("check_source(\"1 + 1\")", 10, 200, |_| {
        assert!(writ::check_source("1 + 1", &writ::CheckOptions::default()).accepted());
    });
}

fn running_many_programs_keeps_memory_flat() {
    let texts = corpus();
    let limits = writ::Limits {
        fuel: 200_000,
        ..Default::default()
    };
    let n = texts.len();
    assert_flat("run_source", n, 2 * n, |i| {
        let ran = writ::run_source(&texts[i % n], &limits, &mut |_: &str| {}, None);
        assert!(ran.result.is_some() || !ran.checked.accepted());
    });
    assert_flat("run_source (generated)", 20, 200, |i| {
        let ran = writ::run_source(&program(i), &limits, &mut |_: &str| {}, None);
        assert_eq!(ran.result.is_some(), i % 4 != 3);
    });
}

fn running_under_a_policy_keeps_memory_flat() {
    use writ::host::{Engine, RunOptions, policy};
    let policy = policy::parse(
        "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[grants.Log]\n\n[grants.Audit]\n",
    )
    .expect("a valid policy");
    let dir = std::env::temp_dir().join(format!("writ-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let store = dir.join("store.db");
    let options = RunOptions {
        store: Some(store.display().to_string()),
        ..Default::default()
    };
    let engine = Engine::new();
    assert_flat("Engine::check + run", 10, 100, |i| {
        let source = format!("Audit.note(\"round {i}\")\nLog.info(\"x\")\nlist.sum([{i}, 2])\n");
        let program = engine.check(&source, &policy).expect("accepted");
        let outcome = engine
            .run(&program, &policy, &options, &mut |_: &str| {})
            .expect("ran");
        assert_eq!(outcome.result.ok(), Some((i + 2).to_string()));
    });
    let _ = std::fs::remove_dir_all(&dir);
}

fn repl_sessions_keep_memory_flat() {
    use writ::host::{Engine, RunOptions, Session};
    let mut quiet = |_: writ::host::Event<'_>| {};
    // A session keeps every input it is given (its text, its definitions),
    // so each round is a whole session of a few inputs, dropped at the end.
    assert_flat("Session", 5, 40, |i| {
        let mut session =
            Session::new(Engine::new(), None, RunOptions::default()).expect("a session");
        let inputs = [
            format!("let x = {i}"),
            "fn g(n) { n * x }".to_string(),
            "effect Ask { fn ask() -> Int }".to_string(),
            "handle g(Ask.ask()) with { Ask.ask() => resume(2), return(v) => v }".to_string(),
            format!("g({i}) +"),
        ];
        for (k, text) in inputs.iter().enumerate() {
            let e = session.eval("<input>", text, &mut quiet, None);
            assert_eq!(e.accepted, k != 4, "{text}: {:?}", e.diagnostics);
        }
        session.reset().expect("reset");
    });
}

/// A handler's state taken apart and made again on every operation (a
/// pair, a constructor) allocates nothing per operation: the object let
/// go of is filled again (decision 031). Counted as the allocations of a
/// run of `n` operations; the runs differ only in `n`, so what the extra
/// 20,000 operations allocate is the difference (one or more each without
/// the reuse).
fn a_state_made_again_reuses_its_object() {
    let limits = writ::Limits::default();
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let states = [
        ("(0, 0)", "let (i, j) = st\n resume(i, (i + 1, j + i))"),
        (
            "Two(0, 0)",
            "match st { Two(i, j) => resume(i, Two(i + 1, j + i)) }",
        ),
    ];
    for (init, clause) in states {
        let made = |n: u32| {
            let source = format!(
                "effect Tick {{ fn tick() -> Int }}\n\
                 type Two = Two(Int, Int)\n\
                 fn ticks(n: Int, acc: Int) -> Int / {{Tick}} {{\n\
                   if n == 0 {{ acc }} else {{ ticks(n - 1, acc + Tick.tick()) }}\n\
                 }}\n\
                 handle ticks({n}, 0) with (st = {init}) {{\n\
                   Tick.tick() => {{ {clause} }},\n\
                 }}\n"
            );
            let before = MADE.load(Ordering::SeqCst);
            let ran = writ::run_source(&source, &limits, &mut |_: &str| {}, None);
            let made = MADE.load(Ordering::SeqCst) - before;
            let want = (u64::from(n) * u64::from(n - 1) / 2).to_string();
            let result = ran.result.as_ref().and_then(|r| r.as_ref().ok());
            assert_eq!(result, Some(&want), "{init}: {:?}", ran.result);
            made
        };
        let (few, many) = (made(1_000), made(21_000));
        assert!(
            many.saturating_sub(few) < 1_000,
            "{init}: 20,000 more operations made {} more allocations",
            many.saturating_sub(few)
        );
    }
}

/// Every check of this file, in turn: as one test, so that nothing else
/// in this process allocates while one of them measures (separate tests
/// would run beside each other, each allocating before it measures, and
/// the harness would start their threads meanwhile).
#[test]
fn memory_stays_flat() {
    checking_many_programs_keeps_memory_flat();
    checking_the_same_program_keeps_memory_flat();
    running_many_programs_keeps_memory_flat();
    running_under_a_policy_keeps_memory_flat();
    repl_sessions_keep_memory_flat();
    a_state_made_again_reuses_its_object();
}
