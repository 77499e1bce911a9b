//! Runs paying at once against one store: the caps hold (per payment,
//! per run, per day), every run ends allowed or denied, never on a locked
//! store, and the audit log and the ledger verify afterwards.
//!
//! Each round starts 16 `writ run` processes together; each tries five
//! payments, whose caps let one run pay at most 12,000 cents and the day
//! 100,000, against a demand of 16 × 12,000. The rounds run on SQLite
//! files, and on PostgreSQL databases (one per round, on the test server:
//! tests/postgres/support.rs), where 16 threads of one engine also pay at
//! once, beside the processes.
//!
//! A write that cannot have the lock within the policy's `[store]
//! lock_wait` stops the run with E4006 and writes nothing.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use writ_host::engine::{Engine, RunOptions};
use writ_host::store::{Store, day_of, now_ms};

#[path = "postgres/support.rs"]
mod postgres_support;

const RUNS: usize = 16;
const ROUNDS: usize = 3;
const MAX_PAYMENT: i64 = 5000;
const MAX_RUN: i64 = 12_000;
const MAX_DAY: i64 = 100_000;

const POLICY: &str = "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[grants.Log]\n\n\
[grants.Pay]\npayees = [\"air-one.example\"]\ncurrency = \"USD\"\nmax_payment_cents = 5000\n\
max_run_cents = 12000\nmax_day_cents = 100000\non_deny = \"fail\"\n";

/// Five payments, one over the per-payment cap; prints what was paid.
const PROGRAM: &str = "fn pay(c: Int) -> Int / {Pay} {\n  handle Pay.pay(\"air-one.example\", c, \"seat\").cents with { Fail.fail(why) => 0 }\n}\n\
let paid = list.map([5000, 4000, 6000, 3000, 2000], pay)\nLog.info(\"paid ${list.sum(paid)}\")\n";

const ATTEMPTS: usize = 5;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("writ-concurrency-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("policy.toml"), POLICY).expect("write");
    std::fs::write(dir.join("pay.writ"), PROGRAM).expect("write");
    dir
}

fn writ(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_writ"));
    c.args(args).current_dir(dir).env("NO_COLOR", "1");
    c
}

/// Start every run, then wait for them all.
fn pay_at_once(dir: &Path, db: &str) -> Vec<Output> {
    let children: Vec<_> = (0..RUNS)
        .map(|_| {
            writ(
                dir,
                &["run", "pay.writ", "--policy", "policy.toml", "--db", db],
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("writ starts")
        })
        .collect();
    children
        .into_iter()
        .map(|c| c.wait_with_output().expect("writ ends"))
        .collect()
}

#[test]
fn runs_paying_at_once_stay_within_every_cap_and_the_log_verifies() {
    let dir = scratch("sqlite");
    let stores: Vec<String> = (0..ROUNDS)
        .map(|round| dir.join(format!("round{round}.db")).display().to_string())
        .collect();
    rounds(&dir, &stores, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn runs_paying_at_once_on_postgres_stay_within_every_cap_and_the_log_verifies() {
    if postgres_support::server().is_none() {
        return;
    }
    let dir = scratch("postgres");
    let stores: Vec<String> = (0..ROUNDS + 2)
        .filter_map(|_| postgres_support::fresh_database())
        .collect();
    rounds(&dir, &stores, RUNS);
    let _ = std::fs::remove_dir_all(&dir);
}

/// 16 runs of `pay.writ` on 16 threads of one engine, against `db`: what
/// each printed it paid.
fn pay_on_threads(dir: &Path, db: &str) -> Vec<Option<i64>> {
    let engine = Engine::new();
    let policy = match writ_host::policy::parse(POLICY) {
        Ok(p) => p,
        Err(d) => panic!("{d:#?}"),
    };
    let program = match engine.check(PROGRAM, &policy) {
        Ok(x) => std::sync::Arc::new(x),
        Err(d) => panic!("{d:#?}"),
    };
    let _ = dir;
    let handles: Vec<_> = (0..RUNS)
        .map(|_| {
            let (engine, policy, program) = (engine.clone(), policy.clone(), program.clone());
            let db = db.to_string();
            std::thread::spawn(move || {
                let options = RunOptions {
                    store: Some(db),
                    ..Default::default()
                };
                let mut said = String::new();
                let o = engine.run(&program, &policy, &options, &mut |line: &str| {
                    said.push_str(line)
                });
                match o.map(|o| o.result) {
                    Ok(Ok(_)) => said
                        .strip_prefix("paid ")
                        .and_then(|s| s.trim().parse().ok()),
                    _ => None,
                }
            })
        })
        .collect();
    handles
        .into_iter()
        .map(|h| h.join().ok().flatten())
        .collect()
}

/// One round per store of `stores`: 16 processes paying at once, and
/// `threads` (16 or none) runs on threads of this process beside them.
fn rounds(dir: &Path, stores: &[String], threads: usize) {
    let start = now_ms();
    assert!(!stores.is_empty());
    for db in stores {
        let (outputs, on_threads) = std::thread::scope(|scope| {
            let on_threads = scope.spawn(|| {
                if threads > 0 {
                    pay_on_threads(dir, db)
                } else {
                    Vec::new()
                }
            });
            let outputs = pay_at_once(dir, db);
            (outputs, on_threads.join().unwrap_or_default())
        });
        let mut paid_by_runs = 0;
        assert_eq!(on_threads.len(), threads);
        for paid in &on_threads {
            let paid = paid.unwrap_or(-1);
            assert!((0..=MAX_RUN).contains(&paid), "run cap: {paid}");
            paid_by_runs += paid;
        }
        for o in &outputs {
            let (out, err) = (
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr),
            );
            // Every run ends: allowed or denied, never on a busy store.
            assert_eq!(o.status.code(), Some(0), "{out}{err}");
            // What stderr holds is the denials the program handled, each
            // by a cap (a store read that failed, "database is locked",
            // would be a denial too, but not by a cap).
            assert!(
                err.lines()
                    .all(|l| l.starts_with("denied: Pay.pay(") && l.contains("over the cap of")),
                "{err}"
            );
            let paid: i64 = out
                .strip_prefix("paid ")
                .and_then(|s| s.trim().parse().ok())
                .unwrap_or(-1);
            assert!((0..=MAX_RUN).contains(&paid), "run cap: {out}");
            paid_by_runs += paid;
        }
        let store = match Store::open(db, None) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        };
        let ledger = store.ledger().unwrap_or_default();
        assert!(
            ledger.iter().all(|p| p.3 > 0 && p.3 <= MAX_PAYMENT),
            "payment cap"
        );
        let total: i64 = ledger.iter().map(|p| p.3).sum();
        assert_eq!(total, paid_by_runs, "the ledger holds what the runs paid");
        // The day cap, on each day the round touched (one, but for a
        // round across midnight UTC).
        let mut days = vec![day_of(start), day_of(now_ms())];
        days.dedup();
        let per_day: Vec<i64> = days
            .iter()
            .map(|d| store.paid_on("ada", d).unwrap_or(i64::MAX))
            .collect();
        assert_eq!(per_day.iter().sum::<i64>(), total);
        assert!(
            per_day.iter().all(|t| *t <= MAX_DAY),
            "day cap: {per_day:?}"
        );
        // The cap was reached: demand was 16 × 12,000.
        let records = store.records().unwrap_or_default();
        assert!(
            records
                .iter()
                .any(|r| r.rule.contains("would bring today's payments to")),
            "no run met the day cap"
        );
        // Every attempt has its record, and the log and ledger verify.
        let runs = RUNS + threads;
        assert_eq!(records.len(), runs * ATTEMPTS);
        assert_eq!(store.verify(), Ok(runs * ATTEMPTS));
        let o = writ(dir, &["audit", "verify", "--db", db])
            .output()
            .expect("writ runs");
        assert_eq!(o.status.code(), Some(0));
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            format!(
                "the audit log holds: {} records, each linked to the one before, and the ledger matches them\n",
                runs * ATTEMPTS
            )
        );
    }
}

/// A policy paying as [`POLICY`] does, waiting `wait` for the store's lock.
fn waiting_policy(dir: &Path, wait: &str) {
    let policy = POLICY.replace(
        "[grants.Log]",
        &format!("[store]\nlock_wait = \"{wait}\"\n\n[grants.Audit]\n\n[grants.Log]"),
    );
    std::fs::write(dir.join("waiting.toml"), policy).expect("write");
}

/// `writ run PROGRAM` under `waiting.toml`, against the store `s.db`.
fn run_waiting(dir: &Path, program: &str) -> Output {
    writ(
        dir,
        &["run", program, "--policy", "waiting.toml", "--db", "s.db"],
    )
    .output()
    .expect("writ runs")
}

#[test]
fn a_write_that_cannot_get_the_store_lock_stops_the_run_with_nothing_written() {
    let dir = std::env::temp_dir().join(format!("writ-lock-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    waiting_policy(&dir, "300ms");
    std::fs::write(
        dir.join("pay.writ"),
        "Pay.pay(\"air-one.example\", 100, \"m\")\n",
    )
    .expect("write");
    std::fs::write(dir.join("note.writ"), "Audit.note(\"hello\")\n").expect("write");
    let db = dir.join("s.db").display().to_string();
    let holder = match Store::open(&db, None) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    // Another process's connection holds the write lock.
    let lock = match rusqlite::Connection::open(&db) {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(lock.execute_batch("BEGIN IMMEDIATE"), Ok(()));
    let busy = "(the store is busy: other runs held its write lock for over 300 ms (database is locked); nothing was written)";
    for (program, said) in [
        (
            "pay.writ",
            format!("[E4006] Error: the payment could not be recorded {busy}; nothing was paid"),
        ),
        (
            "note.writ",
            format!(
                "[E4006] Error: the audit record of Audit.note could not be written {busy}; the operation was denied"
            ),
        ),
    ] {
        let o = run_waiting(&dir, program);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(3), "{err}");
        assert!(err.starts_with(&said), "{err}");
    }
    assert_eq!(lock.execute_batch("COMMIT"), Ok(()));
    assert_eq!(
        holder.records().map(|r| r.len()),
        Ok(0),
        "nothing was written"
    );
    assert_eq!(holder.ledger().map(|l| l.len()), Ok(0), "nothing was paid");
    // Released, the same run pays, and waits are bounded by the policy.
    let o = run_waiting(&dir, "pay.writ");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(holder.verify(), Ok(1));
    for wait in ["61s", "2h", "soon"] {
        waiting_policy(&dir, wait);
        let o = run_waiting(&dir, "pay.writ");
        assert_eq!(o.status.code(), Some(2));
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            out.starts_with(&format!("[E6003] Error: expected `lock_wait` in [store] to be a time of at most 60s, found `{wait}`")),
            "{out}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
