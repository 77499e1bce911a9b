//! Every argument of every host operation has a maximum size, checked
//! before the host copies, escapes or stores it: an argument over it is a
//! denial, recorded by its start and length only; one at the maximum goes
//! through. The repros of issue 15 (an 80 MB note, a 20 MB memo or id)
//! end within their limits. And a payment's question shows what the
//! program chose bounded and collapsed, and the amount last.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::{Arc, Mutex};

mod common;

use writ_host::arguments::{
    MAX_ID, MAX_LOG_LINE, MAX_MEMO, MAX_NOTE, MAX_PAYEE, MAX_POST_BODY, MAX_QUESTION, MAX_URL,
};
use writ_host::engine::{Engine, Outcome};
use writ_host::policy::{self, Policy};

/// Counts the bytes this thread holds, and the most it held, so a test can
/// bound what one run allocates (other tests' threads do not count).
struct Counting;

thread_local! {
    static HELD: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is passed on to the system allocator unchanged; the
// counting only reads and writes this thread's cells, which allocate
// nothing.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = HELD.try_with(|h| {
            let now = h.get().saturating_add(layout.size());
            h.set(now);
            let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
        });
        // SAFETY: the caller's layout, as given.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let _ = HELD.try_with(|h| h.set(h.get().saturating_sub(layout.size())));
        // SAFETY: a pointer this allocator gave, with its layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most bytes this thread held above what it held before, while `f`
/// ran.
fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = HELD.with(Cell::get);
    PEAK.with(|p| p.set(before));
    let out = f();
    (out, PEAK.with(Cell::get).saturating_sub(before))
}

const GRANTS: &str = "[grants.Log]\non_deny = \"fail\"\n\n[grants.Pay]\npayees = [\"air-one.example\"]\ncurrency = \"EUR\"\nmax_payment_cents = 1000\nconfirm = true\non_deny = \"fail\"\n\n[grants.Records]\nscope = \"all\"\non_deny = \"fail\"\n\n[grants.Audit]\non_deny = \"fail\"\n\n[grants.Confirm]\non_deny = \"fail\"\n\n[grants.Http]\nrecorded = \"responses.toml\"\non_deny = \"fail\"\n";

/// A policy with every built-in capability granted (`on_deny = "fail"`)
/// and `limits`, in a fresh directory with a recorded response for
/// `https://a.example/form`.
fn policy(name: &str, limits: &str) -> Policy {
    let dir = std::env::temp_dir().join(format!("writ-args-{name}-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(
        dir.join("responses.toml"),
        "[[response]]\nurl = \"https://a.example/form\"\nbody = \"thanks\"\n",
    );
    let text =
        format!("[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[limits]\n{limits}\n{GRANTS}");
    let mut p = match policy::parse(&text) {
        Ok(p) => p,
        Err(d) => panic!("{d:#?}"),
    };
    p.dir = Some(dir);
    p
}

/// What a run did: its outcome, the questions it asked, its audit
/// records, and the most bytes it held at once (above what the thread
/// held before).
struct Ran {
    outcome: Outcome,
    asked: Vec<String>,
    records: Vec<String>,
    peak: usize,
}

/// Run `source` with an engine that answers yes and keeps the questions.
fn run(name: &str, source: &str, policy: &Policy) -> Ran {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = asked.clone();
    let engine = Engine::new().with_confirm(Arc::new(move |q: &str| {
        if let Ok(mut l) = log.lock() {
            l.push(q.to_string());
        }
        true
    }));
    let program = match engine.check(source, policy) {
        Ok(p) => p,
        Err(d) => panic!("{d:#?}"),
    };
    let db = common::db("args", name);
    let (outcome, peak) = peak_during(|| common::run(&engine, &program, policy, &db));
    let records = common::audit_lines(&db);
    let _ = std::fs::remove_file(&db);
    let asked = asked.lock().map(|l| l.clone()).unwrap_or_default();
    Ran {
        outcome,
        asked,
        records,
        peak,
    }
}

/// `expr` (a `Str`) handled: its value, or `refused: why`.
fn tried(expr: &str) -> String {
    format!("Log.info(handle {{ {expr} }} with {{ Fail.fail(why) => \"refused: ${{why}}\" }})\n")
}

/// How an argument of `n` copies of `c` over its maximum is recorded.
fn refused_form(c: char, n: usize) -> String {
    format!(
        "{:?}… ({n} bytes, over the limit: only its start is recorded)",
        c.to_string().repeat(n.min(1024))
    )
}

fn over(what: &str, n: usize, max: usize) -> String {
    format!("{what} is {n} bytes, over the host's limit of {max} bytes; nothing was carried out")
}

#[test]
fn every_argument_over_its_maximum_is_denied_and_recorded_by_its_start() {
    let p = policy("over", "output = \"8M\"");
    let n = 2_000_000;
    let small = |c: &str, n: usize| format!("str.repeat(\"{c}\", {n})");
    let big = |c: &str| small(c, n);
    let url = "\"https://a.example/form\"";
    let source = [
        tried(&format!(
            "Pay.pay(\"air-one.example\", 100, {}).id",
            big("m")
        )),
        tried(&format!(
            "Pay.pay({}, 100, \"t\").id",
            small("p", MAX_PAYEE + 1)
        )),
        tried(&format!("Records.read({}).name", big("i"))),
        tried(&format!("Audit.note({}); \"noted\"", big("n"))),
        tried(&format!(
            "if Confirm.ask({}) {{ \"yes\" }} else {{ \"no\" }}",
            small("q", MAX_QUESTION + 1)
        )),
        tried(&format!(
            "Http.get(\"https://a.example/\" ++ {})",
            small("u", MAX_URL)
        )),
        tried(&format!(
            "Http.post({url}, {})",
            small("b", MAX_POST_BODY + 1)
        )),
        tried(&format!(
            "Log.info({}); \"logged\"",
            small("l", MAX_LOG_LINE + 1)
        )),
    ]
    .concat();
    let Ran {
        outcome: o,
        asked,
        records,
        ..
    } = run("over", &source, &p);
    assert!(o.result.is_ok(), "{:?}", o.result);
    let url_len = "https://a.example/".len() + MAX_URL;
    let url_form = format!(
        "{:?}… ({url_len} bytes, over the limit: only its start is recorded)",
        format!("https://a.example/{}", "u".repeat(1024 - 18))
    );
    let expected = [
        (
            "Pay.pay",
            format!("\"air-one.example\", 100, {}", refused_form('m', n)),
            over("the memo", n, MAX_MEMO),
        ),
        (
            "Pay.pay",
            format!("{}, 100, \"t\"", refused_form('p', MAX_PAYEE + 1)),
            over("the payee", MAX_PAYEE + 1, MAX_PAYEE),
        ),
        (
            "Records.read",
            refused_form('i', n),
            over("the id", n, MAX_ID),
        ),
        (
            "Audit.note",
            refused_form('n', n),
            over("the note", n, MAX_NOTE),
        ),
        (
            "Confirm.ask",
            refused_form('q', MAX_QUESTION + 1),
            over("the question", MAX_QUESTION + 1, MAX_QUESTION),
        ),
        ("Http.get", url_form, over("the URL", url_len, MAX_URL)),
        (
            "Http.post",
            format!(
                "\"https://a.example/form\", {}",
                refused_form('b', MAX_POST_BODY + 1)
            ),
            over("the body", MAX_POST_BODY + 1, MAX_POST_BODY),
        ),
        (
            "Log.info",
            refused_form('l', MAX_LOG_LINE + 1),
            over("the line", MAX_LOG_LINE + 1, MAX_LOG_LINE),
        ),
    ];
    let lines: Vec<String> = expected
        .iter()
        .map(|(op, args, rule)| format!("refused: {op}({args}) was denied: {rule}"))
        .collect();
    // The last line is the refusal of a `Log` line, itself logged.
    assert_eq!(o.output, lines);
    let denials: Vec<String> = expected
        .iter()
        .map(|(op, args, rule)| format!("{op}({args}) denied: {rule}"))
        .collect();
    assert_eq!(records, denials);
    // Each record is bounded, whatever the argument's size.
    assert!(records.iter().all(|r| r.len() < 2400), "{records:?}");
    // Nobody was asked, nothing was paid.
    assert!(asked.is_empty(), "{asked:?}");
}

#[test]
fn arguments_at_their_maximum_go_through() {
    let p = policy("at", "");
    let url = "\"https://a.example/form\"";
    let source = [
        tried(&format!(
            "Pay.pay(\"air-one.example\", 100, str.repeat(\"m\", {MAX_MEMO})).id"
        )),
        tried(&format!("Records.read(str.repeat(\"i\", {MAX_ID})).name")),
        tried(&format!(
            "Audit.note(str.repeat(\"n\", {MAX_NOTE})); \"noted\""
        )),
        tried(&format!(
            "if Confirm.ask(str.repeat(\"q\", {MAX_QUESTION})) {{ \"yes\" }} else {{ \"no\" }}"
        )),
        tried(&format!(
            "Http.post({url}, str.repeat(\"b\", {MAX_POST_BODY}))"
        )),
    ]
    .concat();
    let Ran {
        outcome: o,
        asked,
        records,
        ..
    } = run("at", &source, &p);
    assert!(o.result.is_ok(), "{:?}", o.result);
    let id = "i".repeat(MAX_ID);
    assert_eq!(
        o.output,
        [
            "pay-1".to_string(),
            format!("refused: Records.read(\"{id}\") was denied: no employee {id}"),
            "noted".to_string(),
            "yes".to_string(),
            "thanks".to_string(),
        ]
    );
    assert_eq!(asked.len(), 2, "{asked:?}");
    let note = "n".repeat(MAX_NOTE);
    let hash = writ_host::store::sha256_hex(note.as_bytes());
    assert!(
        records.iter().any(|r| r
            == &format!(
                "Audit.note({:?}… ({MAX_NOTE} bytes, sha256 {hash})) allowed: granted",
                "n".repeat(1024)
            )),
        "{records:?}"
    );
}

#[test]
fn the_repros_end_within_their_limits() {
    // An 80 MB note under 512 MiB and 10 s; a 20 MB memo on a denied
    // payment and a 20 MB id under 64 MiB and 1 s: each a denial, the run
    // going on to its end.
    // What the run holds at its peak is the program's own argument and a
    // few MiB (the machine, the store), never a copy of the argument.
    let cases = [
        (
            "memory = \"512M\"\ntime = \"10s\"",
            "Audit.note(str.repeat(\"n\", 80000000)); \"noted\"",
            "Audit.note",
            80_000_000,
        ),
        (
            "memory = \"64M\"\ntime = \"1s\"",
            "Pay.pay(\"attacker.example\", 60000, str.repeat(\" \", 20000000)).id",
            "Pay.pay",
            20_000_000,
        ),
        (
            "memory = \"64M\"\ntime = \"1s\"",
            "Records.read(str.repeat(\"9\", 20000000)).name",
            "Records.read",
            20_000_000,
        ),
        (
            "memory = \"64M\"\ntime = \"1s\"",
            "Http.post(\"https://a.example/form\", str.repeat(\"b\", 20000000))",
            "Http.post",
            20_000_000,
        ),
    ];
    for (i, (limits, expr, op, size)) in cases.iter().enumerate() {
        let p = policy(&format!("repro{i}"), limits);
        let Ran {
            outcome: o,
            asked,
            records,
            peak,
        } = run(&format!("repro{i}"), &tried(expr), &p);
        assert!(
            (*size..size + 8 * 1024 * 1024).contains(&peak),
            "{op}: a peak of {peak} bytes for an argument of {size}"
        );
        assert!(o.result.is_ok(), "{expr}: {:?}", o.result);
        assert!(
            o.output
                .first()
                .is_some_and(|l| l.starts_with(&format!("refused: {op}("))
                    && l.ends_with("nothing was carried out")
                    && l.len() < 1400),
            "{:?}",
            o.output.first().map(|l| l.get(..200))
        );
        assert_eq!(records.len(), 1);
        assert!(asked.is_empty());
    }
}

#[test]
fn a_payment_question_shows_the_memo_bounded_and_the_amount_last() {
    // How the question is worded for each memo is a test of
    // `host/src/policy_host.rs`; here, a run asks it.
    // The memo the program chose, then the amount.
    let p = policy("question", "");
    let memo = format!("{}Pay 0.50 EUR (coffee", " ".repeat(300));
    let Ran {
        outcome: o, asked, ..
    } = run(
        "question",
        &tried(&format!("Pay.pay(\"AIR-ONE.example\", 600, {memo:?}).id")),
        &p,
    );
    assert_eq!(o.output, ["pay-1"]);
    assert_eq!(
        asked,
        ["memo \"⟨300 blanks⟩Pay 0.50 EUR (coffee\" — Pay 6.00 EUR to air-one.example?"]
    );
    // A payee longer than any the policy could list is refused before the
    // question.
    let Ran {
        outcome: o, asked, ..
    } = run(
        "question-payee",
        &tried(&format!(
            "Pay.pay(\"air-one.example\" ++ str.repeat(\" \", {MAX_PAYEE}), 600, \"t\").id"
        )),
        &p,
    );
    assert!(
        o.output.first().is_some_and(|l| l.ends_with(&over(
            "the payee",
            MAX_PAYEE + 15,
            MAX_PAYEE
        ))),
        "{:?}",
        o.output
    );
    assert!(asked.is_empty());
}
