//! The store's tests that only PostgreSQL has: locations and passwords,
//! a server that cannot be reached, the write lock held by another
//! connection (of this host or another), and stores created at once by
//! many connections. Each needs the test server (`WRIT_TEST_POSTGRES`)
//! but the first two.

use std::time::{Duration, Instant};

use super::tests::{entry, over, payment, postgres_support};
use super::*;

#[test]
fn locations_are_paths_or_postgres_urls_without_a_password() {
    assert_eq!(
        Location::parse("audit.db"),
        Ok(Location::Sqlite("audit.db".into()))
    );
    assert!(matches!(
        Location::parse("postgresql://writ@db.example:5432/team"),
        Ok(Location::Postgres(_))
    ));
    let said = |text: &str| Location::parse(text).err().map(|e| e.to_string());
    assert_eq!(
        said("postgres://writ:hunter2@db.example/team"),
        Some("a store's URL must not hold a password (it would show in policies, command lines and messages); put the password in PGPASSWORD, or name a file or variable in the policy's [store] password_file or password_env".into())
    );
    assert_eq!(
        said("mysql://db.example/team"),
        Some("expected a store's location to be a SQLite file's path or a postgres:// URL, found a URL of scheme `mysql`".into())
    );
    // A slash missing is a malformed URL, not a file's path shown with
    // its password.
    let typo = said("postgres:/writ:hunter2@db.example/team").unwrap_or_default();
    assert!(
        typo.starts_with("expected a PostgreSQL URL the client reads") && !typo.contains("hunter2"),
        "{typo}"
    );
    let bad = said("postgres://writ@db.example:port/team").unwrap_or_default();
    assert!(
        bad.starts_with("expected a PostgreSQL URL the client reads (postgres://USER@HOST:PORT/DATABASE), found one it does not: "),
        "{bad}"
    );
    // The password never shows in the options' debug output either.
    let options = PostgresOptions {
        password: Some("hunter2".into()),
        ..PostgresOptions::default()
    };
    assert!(!format!("{options:?}").contains("hunter2"));
}

#[test]
fn a_server_that_cannot_be_reached_is_an_open_error_within_the_bound() {
    // Port 1 on loopback: nothing listens there.
    let url = "postgres://writ@127.0.0.1:1/none";
    let started = Instant::now();
    match Store::open(url, None) {
        Err(e @ StoreError::Open { .. }) => {
            let said = e.to_string();
            assert!(
                said.starts_with("cannot open the store postgres://writ@127.0.0.1:1/none: "),
                "{said}"
            );
        }
        other => panic!("expected the store not to open, got {:?}", other.err()),
    }
    assert!(started.elapsed() < DEFAULT_CONNECT_TIMEOUT + Duration::from_secs(1));
}

/// A second connection to the database at `url` that holds the write
/// lock until it commits (`COMMIT` through [`Store::execute_raw`]).
fn holder(url: &str) -> Store {
    let Ok(mut holder) = Store::open(url, None) else {
        panic!("store")
    };
    assert_eq!(
        holder.execute_raw(&format!(
            "BEGIN; SELECT pg_advisory_xact_lock({})",
            postgres::WRITE_LOCK
        )),
        Ok(())
    );
    holder
}

#[test]
fn a_write_that_cannot_get_the_lock_fails_whole_and_says_why() {
    let Some(url) = postgres_support::fresh_database() else {
        return;
    };
    let Ok(mut s) = Store::open(&url, None) else {
        panic!("store")
    };
    s.set_lock_wait(Duration::from_millis(200));
    let mut held = holder(&url);
    let started = Instant::now();
    for tried in [
        s.pay(&entry("Pay.pay"), &payment("a", 5), &over)
            .map(|_| ()),
        s.audit(&entry("Log.info")).map(|_| ()),
    ] {
        match tried {
            Err(e @ StoreError::Busy { .. }) => assert_eq!(
                e.to_string(),
                "the store is busy: other runs held its write lock for over 200 ms (canceling statement due to lock timeout); nothing was written"
            ),
            other => panic!("expected the store busy, got {other:?}"),
        }
    }
    assert!(started.elapsed() < Duration::from_secs(5));
    // Reads do not wait for a writer.
    assert_eq!(s.paid_on("e1", "2026-12-01"), Ok(0));
    assert_eq!(s.verify(), Ok(0));
    // Released, the same writes go through; nothing half-written is in
    // the way.
    assert_eq!(held.execute_raw("COMMIT"), Ok(()));
    assert_eq!(
        s.pay(&entry("Pay.pay"), &payment("a", 5), &over),
        Ok(Paid::Made { id: 1, seq: 1 })
    );
    // A run whose time is up waits no longer, whatever the lock wait.
    s.set_lock_wait(Duration::from_secs(60));
    s.set_until(Some(Instant::now()));
    let _held = holder(&url);
    let started = Instant::now();
    assert!(matches!(
        s.audit(&entry("Log.info")),
        Err(StoreError::Busy { .. })
    ));
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(s.verify(), Ok(1));
}

#[test]
fn a_store_is_created_once_and_a_failed_seed_leaves_nothing() {
    let Some(url) = postgres_support::fresh_database() else {
        return;
    };
    let refused = Store::open(&url, Some("INSERT INTO nowhere VALUES (1);")).err();
    assert_eq!(
        refused.map(|e| e.to_string()),
        Some("the seed's SQL failed: relation \"nowhere\" does not exist".into())
    );
    let opened: Vec<Result<i64, StoreError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|_| {
                scope.spawn(|| {
                    let mut s = Store::open(
                        &url,
                        Some("INSERT INTO employees (id, name) VALUES ('e1', 'A');"),
                    )?;
                    s.audit(&entry("Log.info"))
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let failed: Vec<&StoreError> = opened.iter().filter_map(|r| r.as_ref().err()).collect();
    assert!(failed.is_empty(), "{failed:?}");
    let mut seqs: Vec<i64> = opened.into_iter().filter_map(Result::ok).collect();
    seqs.sort_unstable();
    assert_eq!(seqs, (1..=8).collect::<Vec<_>>());
    let s = Store::open(&url, None);
    assert_eq!(
        s.as_ref().map(Store::employee_ids),
        Ok(Ok(vec!["e1".into()]))
    );
    assert_eq!(s.as_ref().map(Store::kind), Ok("postgres"));
    assert_eq!(s.map(|s| s.verify()), Ok(Ok(8)));
}

#[test]
fn the_log_and_the_ledger_refuse_truncation() {
    let Some(url) = postgres_support::fresh_database() else {
        return;
    };
    let Ok(mut s) = Store::open(&url, None) else {
        panic!("store")
    };
    assert!(s.audit(&entry("Log.info")).is_ok());
    for table in ["audit", "ledger"] {
        let refused = s.execute_raw(&format!("TRUNCATE {table}"));
        assert!(
            matches!(&refused, Err(StoreError::Database { reason }) if reason.ends_with("is append-only")),
            "{refused:?}"
        );
    }
    assert_eq!(s.verify(), Ok(1));
}

#[test]
fn ids_are_ordered_by_their_bytes_whatever_the_databases_collation() {
    let Some(server) = postgres_support::server() else {
        return;
    };
    // A database whose collation puts `a` before `B` (ICU's English);
    // SQLite, and the store, put `B` first.
    let name = format!("writ_icu_{}", std::process::id());
    postgres_support::psql(
        &server,
        &format!(
            "CREATE DATABASE {name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C'"
        ),
    );
    let url = postgres_support::database_url(&server, &name);
    assert_eq!(
        postgres_support::psql(
            &url,
            "SELECT string_agg(x, ',' ORDER BY x) FROM (VALUES ('a'), ('B')) AS t(x)"
        ),
        "a,B",
        "the database does not collate as this test needs"
    );
    let seed = "INSERT INTO employees (id, name, manager) VALUES ('m', 'M', NULL), ('a', 'A', 'm'), ('B', 'B', 'm');";
    let s = match Store::open(&url, Some(seed)) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(
        s.employee_ids(),
        Ok(vec!["B".into(), "a".into(), "m".into()])
    );
    assert_eq!(s.reports("m"), Ok(vec!["B".into(), "a".into()]));
    let Ok(sqlite) = Store::in_memory(Some(seed)) else {
        panic!("store")
    };
    assert_eq!(sqlite.employee_ids(), s.employee_ids());
}
