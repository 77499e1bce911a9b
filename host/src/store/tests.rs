//! The store's own tests: the chain, the ledger chained into it, the
//! head, the day cap under the lock, a lock that cannot be had (or not
//! within the run's time), a store that cannot be opened or seeded, and
//! a store that fails while it is checked.

use super::*;

#[path = "../../../tests/postgres/support.rs"]
pub(super) mod postgres_support;

/// The database a test's stores are on.
#[derive(Clone, Copy, Debug)]
enum Db {
    /// SQLite, in memory.
    Sqlite,
    /// A fresh database on the test server, per store.
    Postgres,
    /// A fresh store in the process's memory, per store.
    Memory,
}

/// A name no other memory store of the tests has.
pub(super) fn fresh_memory_name() -> String {
    static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    format!(
        "test{}",
        MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    )
}

impl Db {
    /// A new store, created with `seed`.
    fn fresh(self, seed: Option<&str>) -> Result<Store, StoreError> {
        match self {
            Db::Sqlite => Store::in_memory(seed),
            Db::Memory => Store::open(&format!("memory:{}", fresh_memory_name()), seed),
            Db::Postgres => match postgres_support::fresh_database() {
                Some(url) => Store::open(&url, seed),
                None => Err(StoreError::Missing),
            },
        }
    }

    /// Where a new store may be made: a temporary file's path, or a
    /// fresh database's URL.
    fn location(self) -> Option<String> {
        static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        match self {
            Db::Sqlite => Some(temp_store(&format!(
                "db{}",
                MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            ))),
            Db::Postgres => postgres_support::fresh_database(),
            Db::Memory => Some(format!("memory:{}", fresh_memory_name())),
        }
    }

    /// Remove what [`Db::location`] made, if it is a file.
    fn remove(self, at: &str) {
        if let Db::Sqlite = self {
            let _ = std::fs::remove_file(at);
        }
    }

    /// The SQL that drops the triggers keeping the log and the ledger
    /// append-only.
    fn untrigger(self) -> &'static str {
        match self {
            Db::Sqlite => {
                "DROP TRIGGER ledger_no_update; DROP TRIGGER ledger_no_delete; DROP TRIGGER audit_no_update; DROP TRIGGER audit_no_delete;"
            }
            Db::Postgres => {
                "DROP TRIGGER ledger_no_update ON ledger; DROP TRIGGER audit_no_update ON audit;"
            }
            // No SQL reaches a memory store; its tampering tests edit its
            // contents (tests_memory.rs).
            Db::Memory => "",
        }
    }
}

/// Each named test, run once on SQLite (module `on_sqlite`) and once on
/// PostgreSQL (`on_postgres`; skipped outside CI when there is no test
/// server).
macro_rules! on_both {
    ($($name:ident),* $(,)?) => {
        mod on_sqlite {
            $(#[test]
            fn $name() {
                super::$name(super::Db::Sqlite)
            })*
        }
        mod on_postgres {
            $(#[test]
            fn $name() {
                if super::postgres_support::server().is_some() {
                    super::$name(super::Db::Postgres)
                }
            })*
        }
    };
}

on_both!(
    the_chain_verifies_and_detects_edits_and_deletions,
    reports_are_direct_and_indirect,
    a_payment_over_the_day_cap_writes_only_its_denial,
    a_payment_record_commits_to_its_ledger_row,
    verify_finds_a_ledger_row_deleted_edited_or_added,
    a_head_finds_a_removed_or_rewritten_tail,
    decisions_are_stored_as_the_text_stores_have_always_held,
    last_records_reads_only_the_tail_of_the_log,
    last_records_of_a_principal_are_theirs_only,
    stores_of_other_schemas_are_refused_or_migrated,
);

/// The tests that use no SQL of their own, on a store in memory too.
mod on_memory {
    use super::Db;

    #[test]
    fn reports_are_direct_and_indirect() {
        super::reports_are_direct_and_indirect(Db::Memory)
    }

    #[test]
    fn a_payment_over_the_day_cap_writes_only_its_denial() {
        super::a_payment_over_the_day_cap_writes_only_its_denial(Db::Memory)
    }

    #[test]
    fn decisions_are_stored_as_the_text_stores_have_always_held() {
        super::decisions_are_stored_as_the_text_stores_have_always_held(Db::Memory)
    }

    #[test]
    fn last_records_reads_only_the_tail_of_the_log() {
        super::last_records_reads_only_the_tail_of_the_log(Db::Memory)
    }

    #[test]
    fn last_records_of_a_principal_are_theirs_only() {
        super::last_records_of_a_principal_are_theirs_only(Db::Memory)
    }
}

/// Run `sql` on `s`'s connection directly (tampering as someone with the
/// file would); it must succeed.
fn sql(s: &mut Store, sql: &str) {
    assert_eq!(s.execute_raw(sql), Ok(()), "{sql}");
}

/// Run `sql` on `s`'s connection directly; the store must refuse it.
fn refused(s: &mut Store, sql: &str) {
    assert!(s.execute_raw(sql).is_err(), "{sql}");
}

/// What a check found broken, as `writ audit verify` says it; anything
/// else fails the test.
fn broken<T: std::fmt::Debug>(checked: Result<T, VerifyError>) -> String {
    match checked {
        Err(VerifyError::Broken(b)) => b.to_string(),
        other => panic!("expected the log found changed, got {other:?}"),
    }
}

pub(super) fn entry(op: &str) -> Entry<'_> {
    Entry {
        principal: "e1",
        program: "p",
        operation: op,
        arguments: "[]",
        decision: Decision::Allowed,
        rule: "granted",
    }
}

fn the_chain_verifies_and_detects_edits_and_deletions(db: Db) {
    let Ok(mut s) = db.fresh(None) else {
        panic!("store")
    };
    for op in ["Log.info", "Pay.pay", "Records.read"] {
        assert!(s.audit(&entry(op)).is_ok());
    }
    assert_eq!(s.verify(), Ok(3));
    // Updates and deletes are refused by the store itself.
    refused(&mut s, "UPDATE audit SET decision = 'denied' WHERE seq = 2");
    refused(&mut s, "DELETE FROM audit WHERE seq = 2");
    // Someone who drops the triggers can edit, and is found out.
    sql(&mut s, db.untrigger());
    sql(&mut s, "UPDATE audit SET decision = 'denied' WHERE seq = 2");
    assert_eq!(s.verify(), Err(Break::Edited { seq: 2 }.into()));
    assert_eq!(
        broken(s.verify()),
        "record 2 does not match its hash: it was edited"
    );
    sql(&mut s, "DELETE FROM audit WHERE seq = 2");
    assert_eq!(s.verify(), Err(Break::Missing { seq: 2, next: 3 }.into()));
    assert_eq!(
        broken(s.verify()),
        "record 2 is missing (the next record is 3)"
    );
    // A record linking to another than the one before it.
    sql(
        &mut s,
        "INSERT INTO audit SELECT 2, time_ms, principal, program, operation, arguments, decision, rule, ledger_id, ledger_hash, hash, hash FROM audit WHERE seq = 3",
    );
    assert_eq!(
        broken(s.verify()),
        "record 2 does not link to record 1: the log was changed there"
    );
}

#[test]
fn days_are_utc_calendar_days() {
    assert_eq!(day_of(0), "1970-01-01");
    assert_eq!(day_of(951_782_400_000), "2000-02-29");
    assert_eq!(day_of(1_796_083_200_000), "2026-12-01");
}

fn reports_are_direct_and_indirect(db: Db) {
    let seed = "INSERT INTO employees (id, name, manager) VALUES
      ('boss', 'B', NULL), ('m1', 'M', 'boss'), ('w1', 'W', 'm1'), ('w2', 'X', 'm1'), ('other', 'O', NULL);";
    let Ok(s) = db.fresh(Some(seed)) else {
        panic!("store")
    };
    assert_eq!(
        s.reports("boss"),
        Ok(vec!["m1".into(), "w1".into(), "w2".into()])
    );
    assert_eq!(s.reports("w1"), Ok(vec![]));
}

pub(super) fn payment(payee: &str, cents: i64) -> NewPayment<'_> {
    NewPayment {
        payee,
        cents,
        currency: "USD",
        memo: "m",
        time_ms: 1_796_083_200_000,
        max_day_cents: 1000,
    }
}

pub(super) fn over(today: i64) -> String {
    format!("over, at {today}")
}

/// A store in memory holding a note, two payments (ids 1 and 2) and a
/// note after them: records 1 to 4.
fn with_payments(db: Db) -> Store {
    let Ok(mut s) = db.fresh(None) else {
        panic!("store")
    };
    assert!(s.audit(&entry("Audit.note")).is_ok());
    assert_eq!(
        s.pay(&entry("Pay.pay"), &payment("a", 300), &over),
        Ok(Paid::Made { id: 1, seq: 2 })
    );
    assert_eq!(
        s.pay(&entry("Pay.pay"), &payment("b", 400), &over),
        Ok(Paid::Made { id: 2, seq: 3 })
    );
    assert!(s.audit(&entry("Audit.note")).is_ok());
    assert_eq!(s.verify(), Ok(4));
    s
}

fn a_payment_over_the_day_cap_writes_only_its_denial(db: Db) {
    let mut s = with_payments(db);
    // 700 paid that day: 300 more reaches the cap of 1000, 301 passes it.
    assert_eq!(
        s.pay(&entry("Pay.pay"), &payment("c", 301), &over),
        Ok(Paid::OverDayCap { today: 700, seq: 5 })
    );
    let last = s.records().unwrap_or_default().pop();
    assert_eq!(
        last.map(|r| (r.decision, r.rule, r.ledger_id)),
        Some(("denied".into(), "over, at 700".into(), None))
    );
    assert_eq!(
        s.pay(&entry("Pay.pay"), &payment("c", 300), &over),
        Ok(Paid::Made { id: 3, seq: 6 })
    );
    assert_eq!(s.paid_on("e1", "2026-12-01"), Ok(1000));
    // The next day starts from nothing; another principal counts apart.
    let tomorrow = NewPayment {
        time_ms: 1_796_083_200_000 + 86_400_000,
        ..payment("c", 1000)
    };
    assert!(matches!(
        s.pay(&entry("Pay.pay"), &tomorrow, &over),
        Ok(Paid::Made { .. })
    ));
    let other = Entry {
        principal: "e2",
        ..entry("Pay.pay")
    };
    assert!(matches!(
        s.pay(&other, &payment("c", 1000), &over),
        Ok(Paid::Made { .. })
    ));
    assert_eq!(s.verify(), Ok(8));
}

fn a_payment_record_commits_to_its_ledger_row(db: Db) {
    let mut s = with_payments(db);
    let records = s.records().unwrap_or_default();
    let paid: Vec<_> = records
        .iter()
        .map(|r| (r.seq, r.ledger_id, r.ledger_hash.len()))
        .collect();
    assert_eq!(
        paid,
        [
            (1, None, 0),
            (2, Some(1), 64),
            (3, Some(2), 64),
            (4, None, 0)
        ]
    );
    // The ledger refuses edits and deletions by itself.
    refused(&mut s, "DELETE FROM ledger WHERE id = 1");
    refused(&mut s, "UPDATE ledger SET cents = 1 WHERE id = 1");
}

/// [`with_payments`] with the triggers that keep the log and the ledger
/// append-only dropped (as someone who owns the database could).
fn untriggered(db: Db) -> Store {
    let mut s = with_payments(db);
    sql(&mut s, db.untrigger());
    s
}

fn verify_finds_a_ledger_row_deleted_edited_or_added(db: Db) {
    let mut s = untriggered(db);
    sql(&mut s, "DELETE FROM ledger WHERE id = 1");
    assert_eq!(s.paid_on("e1", "2026-12-01"), Ok(400), "the total fell");
    assert_eq!(s.verify(), Err(Break::RowDeleted { id: 1, seq: 2 }.into()));
    assert_eq!(
        broken(s.verify()),
        "ledger row 1, the payment of audit record 2, is missing: it was deleted, and the day's total with it"
    );

    let mut s = untriggered(db);
    sql(&mut s, "UPDATE ledger SET cents = 4 WHERE id = 2");
    assert_eq!(s.verify(), Err(Break::RowEdited { id: 2, seq: 3 }.into()));
    assert_eq!(
        broken(s.verify()),
        "ledger row 2 does not match the hash in its audit record 3: it was edited"
    );

    // A row naming a record that is not a payment's, or none.
    let added = |audit_seq: i64| {
        format!(
            "INSERT INTO ledger (id, time_ms, day, principal, payee, cents, currency, memo, audit_seq) VALUES (3, 0, '2026-12-01', 'e1', 'x\u{1b}', 5, 'USD', '', {audit_seq})"
        )
    };
    for audit_seq in [4, 99] {
        let mut s = untriggered(db);
        sql(&mut s, &added(audit_seq));
        assert_eq!(
            broken(s.verify()),
            "ledger row 3 (5 cents to x\\u{1b}) has no audit record: it was added outside a run"
        );
    }
    // One naming another row's record is refused by the database itself
    // (schema version 3), triggers or not.
    let mut s = untriggered(db);
    refused(&mut s, &added(3));
    assert_eq!(s.verify(), Ok(4));
}

fn a_head_finds_a_removed_or_rewritten_tail(db: Db) {
    let s = with_payments(db);
    let head = match s.head() {
        Ok(h) => h,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(head.count, 4);
    assert_eq!(Head::parse(&head.to_string()), Ok(head.clone()));
    assert_eq!(s.verify_head(&head), Ok(4));
    // An older head holds as the log grows.
    let Ok(mut s) = db.fresh(None) else {
        panic!("store")
    };
    let empty = s.head();
    assert_eq!(
        empty.as_ref().map(ToString::to_string),
        Ok(format!("0:{GENESIS}"))
    );
    assert!(s.audit(&entry("Audit.note")).is_ok());
    assert_eq!(empty.map(|h| s.verify_head(&h)), Ok(Ok(1)));

    // The last record removed: the chain still holds, the head does not.
    let mut s = untriggered(db);
    sql(&mut s, "DELETE FROM audit WHERE seq = 4");
    assert_eq!(s.verify(), Ok(3));
    assert_eq!(
        s.verify_head(&head),
        Err(Break::TailRemoved { ends: 3, held: 4 }.into())
    );
    assert_eq!(
        broken(s.verify_head(&head)),
        "the log ends at record 3, but the head you hold is record 4: record 4 was removed from its end"
    );
    // The last three: the payments' ledger rows are then without records.
    let mut s = untriggered(db);
    sql(
        &mut s,
        "DELETE FROM audit WHERE seq >= 2; DELETE FROM ledger;",
    );
    assert_eq!(
        broken(s.verify_head(&head)),
        "the log ends at record 1, but the head you hold is record 4: records 2 to 4 were removed from its end"
    );
    // Removed and written again, hashes and all: the head's hash differs.
    let Ok(mut s) = db.fresh(None) else {
        panic!("store")
    };
    for _ in 0..4 {
        assert!(s.audit(&entry("Log.info")).is_ok());
    }
    let e = broken(s.verify_head(&head));
    assert!(
        e.starts_with("record 4 is not the head you hold (its hash starts ")
            && e.ends_with("): the log was rewritten at or before it"),
        "{e}"
    );
}

#[test]
fn a_head_is_read_as_count_colon_hash() {
    let hash = "ab".repeat(32);
    assert_eq!(
        Head::parse(&format!(" 12:{} ", hash.to_uppercase())),
        Ok(Head {
            count: 12,
            hash: hash.clone()
        })
    );
    for bad in [
        String::new(),
        "12".into(),
        format!("-1:{hash}"),
        format!("+1:{hash}"),
        format!("x:{hash}"),
        "12:abc".into(),
        format!("12:{}", "g".repeat(64)),
        format!("12:{hash}0"),
    ] {
        assert_eq!(Head::parse(&bad), Err(HeadError { found: bad.clone() }));
        let e = Head::parse(&bad)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            e.starts_with("expected a head written COUNT:HASH (a number of records, `:`, 64 hex digits); found `"),
            "{bad}: {e}"
        );
    }
}

fn temp_store(name: &str) -> String {
    let path = std::env::temp_dir().join(format!("writ-store-{name}-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path.display().to_string()
}

#[test]
fn a_write_that_cannot_get_the_lock_fails_whole_and_says_why() {
    let path = temp_store("lock");
    let (Ok(mut s), Ok(mut holder)) = (Store::open(&path, None), Store::open(&path, None)) else {
        panic!("store")
    };
    s.set_lock_wait(Duration::from_millis(40));
    sql(&mut holder, "BEGIN IMMEDIATE");
    let want = StoreError::Busy {
        waited: Duration::from_millis(40),
        reason: "database is locked".into(),
    };
    assert_eq!(
        want.to_string(),
        "the store is busy: other runs held its write lock for over 40 ms (database is locked); nothing was written"
    );
    assert_eq!(
        s.pay(&entry("Pay.pay"), &payment("a", 5), &over),
        Err(want.clone())
    );
    assert_eq!(s.audit(&entry("Log.info")), Err(want));
    // Released, the same writes go through, and nothing half-written
    // is in the way.
    sql(&mut holder, "COMMIT");
    assert_eq!(
        s.pay(&entry("Pay.pay"), &payment("a", 5), &over),
        Ok(Paid::Made { id: 1, seq: 1 })
    );
    assert_eq!(s.verify(), Ok(1));
    let _ = std::fs::remove_file(&path);
}

#[test]
fn reads_and_writes_wait_for_the_lock_no_longer_than_the_run() {
    // A holder lets go of the lock after a while: within the lock wait,
    // but after the run's time is up. No wait reaches that far, so each
    // fails (a wait bounded by the lock wait alone would get the lock).
    let path = temp_store("until");
    let Ok(mut s) = Store::open(&path, None) else {
        panic!("store")
    };
    s.set_lock_wait(Duration::from_secs(60));
    s.set_until(Some(Instant::now()));
    let busy = |lock: &'static str| {
        let Ok(mut holder) = Store::open(&path, None) else {
            panic!("store")
        };
        sql(&mut holder, lock);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(1));
            sql(&mut holder, "COMMIT");
        })
    };
    // `BEGIN EXCLUSIVE` keeps readers out too.
    let held = busy("BEGIN EXCLUSIVE");
    assert!(s.paid_on("e1", "2024-01-01").is_err());
    assert!(s.records().is_err());
    assert!(s.verify().is_err());
    let _ = held.join();
    let held = busy("BEGIN IMMEDIATE");
    assert!(matches!(
        s.audit(&entry("Log.info")),
        Err(StoreError::Busy { .. })
    ));
    let _ = held.join();
    // Lifted, the same store is read and written.
    s.set_until(None);
    assert_eq!(s.audit(&entry("Log.info")), Ok(1));
    assert_eq!(s.paid_on("e1", "2024-01-01"), Ok(0));
    let _ = std::fs::remove_file(&path);
}

fn stores_of_other_schemas_are_refused_or_migrated(db: Db) {
    let Some(at) = db.location() else {
        panic!("no location")
    };
    let Ok(location) = Location::parse(&at) else {
        panic!("{at}")
    };
    let options = PostgresOptions::from_env();
    // No store there yet: nothing to migrate.
    assert_eq!(
        Store::migrate(&location, &options),
        Err(StoreError::Missing)
    );
    // A store of version 2, with a log and a ledger.
    assert_eq!(Store::create_at_version(&location, 2), Ok(()));
    let Ok(mut old) = Store::connect(&location, &options) else {
        panic!("connect")
    };
    assert!(old.audit(&entry("Audit.note")).is_ok());
    assert!(matches!(
        old.pay(&entry("Pay.pay"), &payment("a", 300), &over),
        Ok(Paid::Made { id: 1, seq: 2 })
    ));
    let old_version = Store::open(&at, None).err();
    assert_eq!(old_version, Some(StoreError::Schema { found: "2".into() }));
    assert_eq!(
        old_version.map(|e| e.to_string()),
        Some("expected a store of schema version 3, found version 2: a migration brings it up to date, in place".into())
    );
    // Migrated in place: the log and the ledger kept, the chain whole,
    // and version 3's rule in force.
    assert_eq!(Store::migrate(&location, &options), Ok(2));
    let Ok(mut s) = Store::open(&at, None) else {
        panic!("the migrated store does not open")
    };
    assert_eq!(s.verify(), Ok(2));
    assert_eq!(s.paid_on("e1", "2026-12-01"), Ok(300));
    refused(
        &mut s,
        "INSERT INTO ledger (id, time_ms, day, principal, payee, cents, currency, memo, audit_seq) VALUES (2, 0, '2026-12-01', 'e1', 'x', 5, 'USD', '', 2)",
    );
    // Migrating a store that is up to date changes nothing.
    assert_eq!(Store::migrate(&location, &options), Ok(3));
    assert_eq!(s.verify(), Ok(2));
    // Version 1 cannot be migrated; versions newer than this code's are
    // not read.
    sql(&mut s, "UPDATE meta SET value = '1' WHERE key = 'schema'");
    let unchained = Store::open(&at, None).err();
    assert_eq!(unchained, Some(StoreError::Schema { found: "1".into() }));
    assert_eq!(
        unchained.map(|e| e.to_string()),
        Some("expected a store of schema version 3, found version 1: it was written before the ledger was chained into the audit log, and cannot be changed in place; keep it as an archive and create a new store".into())
    );
    assert_eq!(
        Store::migrate(&location, &options),
        Err(StoreError::Schema { found: "1".into() })
    );
    sql(&mut s, "UPDATE meta SET value = '99' WHERE key = 'schema'");
    assert_eq!(
        Store::open(&at, None).err().map(|e| e.to_string()),
        Some("expected a store of schema version 3, found version 99: it was written by a newer Writ, which this one cannot read or migrate; use that Writ (or a newer one)".into())
    );
    assert_eq!(
        Store::migrate(&location, &options),
        Err(StoreError::Schema { found: "99".into() })
    );
    db.remove(&at);
}

#[test]
fn a_store_that_cannot_be_opened_or_seeded_says_which() {
    let nowhere = std::env::temp_dir()
        .join(format!("writ-store-no-such-dir-{}", std::process::id()))
        .join("s.db")
        .display()
        .to_string();
    match Store::open(&nowhere, None) {
        Err(e @ StoreError::Open { .. }) => assert!(
            e.to_string()
                .starts_with(&format!("cannot open the store {nowhere}: ")),
            "{e}"
        ),
        other => panic!("expected the store not to open, got {:?}", other.err()),
    }
    // A seed that fails leaves no store behind: the next open creates it.
    let path = temp_store("seed");
    let refused = Store::open(&path, Some("INSERT INTO nowhere VALUES (1);")).err();
    assert_eq!(
        refused,
        Some(StoreError::Seed {
            reason: "no such table: nowhere".into()
        })
    );
    assert_eq!(
        refused.map(|e| e.to_string()),
        Some("the seed's SQL failed: no such table: nowhere".into())
    );
    assert_eq!(Store::open(&path, None).map(|s| s.verify()), Ok(Ok(0)));
    let _ = std::fs::remove_file(&path);
}

#[test]
fn stores_opened_at_once_are_created_once() {
    let path = temp_store("create");
    let opened: Vec<Result<i64, StoreError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|_| {
                scope.spawn(|| {
                    let mut s = Store::open(
                        &path,
                        Some("INSERT INTO employees (id, name) VALUES ('e1', 'A');"),
                    )?;
                    s.audit(&entry("Log.info"))
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let mut seqs: Vec<i64> = opened.into_iter().filter_map(Result::ok).collect();
    seqs.sort_unstable();
    assert_eq!(seqs, (1..=8).collect::<Vec<_>>());
    let s = Store::open(&path, None);
    assert_eq!(
        s.as_ref().map(Store::employee_ids),
        Ok(Ok(vec!["e1".into()]))
    );
    assert_eq!(s.map(|s| s.verify()), Ok(Ok(8)));
    let _ = std::fs::remove_file(&path);
}

#[test]
fn a_store_that_fails_while_checked_is_a_store_error_not_a_break() {
    let path = temp_store("unreadable");
    let Ok(mut s) = Store::open(&path, None) else {
        panic!("store")
    };
    assert!(s.audit(&entry("Audit.note")).is_ok());
    assert_eq!(s.verify(), Ok(1));
    // The audit table's root made another table's page: the file opens
    // (its schema version reads), but the log cannot be read.
    sql(
        &mut s,
        "PRAGMA writable_schema = ON; UPDATE sqlite_master SET rootpage = (SELECT rootpage FROM sqlite_master WHERE name = 'ledger_day') WHERE name = 'audit'; PRAGMA writable_schema = OFF;",
    );
    drop(s);
    let Ok(s) = Store::open(&path, None) else {
        panic!("the store no longer opens")
    };
    let failed = VerifyError::Store(StoreError::Database {
        reason: "database disk image is malformed".into(),
    });
    assert_eq!(s.verify(), Err(failed.clone()));
    assert_eq!(s.head(), Err(failed.clone()));
    let head = Head {
        count: 1,
        hash: GENESIS.into(),
    };
    assert_eq!(s.verify_head(&head), Err(failed));
    let _ = std::fs::remove_file(&path);
}

fn decisions_are_stored_as_the_text_stores_have_always_held(db: Db) {
    let Ok(mut s) = db.fresh(None) else {
        panic!("store")
    };
    let denied = Entry {
        decision: Decision::Denied,
        ..entry("Pay.pay")
    };
    assert_eq!(s.audit(&entry("Log.info")), Ok(1));
    assert_eq!(s.audit(&denied), Ok(2));
    let stored: Vec<String> = s
        .records()
        .unwrap_or_default()
        .into_iter()
        .map(|r| r.decision)
        .collect();
    assert_eq!(stored, ["allowed", "denied"]);
    assert_eq!(
        [Decision::Allowed, Decision::Denied].map(|d| d.to_string()),
        ["allowed", "denied"]
    );
    assert_eq!(s.verify(), Ok(2));
}

fn last_records_reads_only_the_tail_of_the_log(db: Db) {
    let mut s = match db.fresh(None) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(
        s.last_records(3).map(|(r, t)| (r.len(), t)).ok(),
        Some((0, 0))
    );
    for i in 0..5 {
        let op = format!("Log.info(\"{i}\")");
        if let Err(e) = s.audit(&entry(&op)) {
            panic!("{e}");
        }
    }
    let (tail, total) = match s.last_records(3) {
        Ok(t) => t,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(total, 5);
    let all = s.records().unwrap_or_default();
    let want: Vec<i64> = all.iter().skip(2).map(|r| r.seq).collect();
    assert_eq!(tail.iter().map(|r| r.seq).collect::<Vec<_>>(), want);
    assert_eq!(
        s.last_records(0).map(|(r, t)| (r.len(), t)).ok(),
        Some((0, 5))
    );
    assert_eq!(s.last_records(99).map(|(r, _)| r.len()).ok(), Some(5));
}

/// On a store two people share, each one's last records are theirs
/// alone, the last `n` of them in order, with their own count.
fn last_records_of_a_principal_are_theirs_only(db: Db) {
    let mut s = match db.fresh(None) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    for (i, who) in ["ada", "bob", "ada", "bob", "ada"].iter().enumerate() {
        let op = format!("Log.info(\"{i}\")");
        let e = Entry {
            principal: who,
            ..entry(&op)
        };
        if let Err(e) = s.audit(&e) {
            panic!("{e}");
        }
    }
    let (ada, total) = match s.last_records_of("ada", 2) {
        Ok(t) => t,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(total, 3);
    let ops: Vec<&str> = ada.iter().map(|r| r.operation.as_str()).collect();
    assert_eq!(ops, ["Log.info(\"2\")", "Log.info(\"4\")"]);
    assert!(ada.iter().all(|r| r.principal == "ada"));
    let (bob, total) = match s.last_records_of("bob", 99) {
        Ok(t) => t,
        Err(e) => panic!("{e}"),
    };
    assert_eq!((bob.len(), total), (2, 2));
    assert!(bob.iter().all(|r| r.principal == "bob"));
    assert_eq!(
        s.last_records_of("eve", 5).map(|(r, t)| (r.len(), t)).ok(),
        Some((0, 0))
    );
}
