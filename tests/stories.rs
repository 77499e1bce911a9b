//! The three stories of `examples/`, run end to end by the `writ` binary
//! under their policies, each on a fresh store: the outcome (output, exit
//! code, the error that stopped it), the ledger and the audit log are
//! checked, and the audit chain must verify. Each story runs twice: on a
//! SQLite file and on a fresh PostgreSQL database (`--db postgres://...`;
//! see tests/postgres/support.rs).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use writ_host::store::Store;

#[path = "postgres/support.rs"]
mod postgres_support;

/// Each named story test, on a fresh SQLite file (`NAME`) and on a fresh
/// PostgreSQL database (`NAME_on_postgres`, skipped outside CI when there
/// is no test server). A URL is passed where a path is, as `--db` takes
/// either.
macro_rules! on_both {
    ($($name:ident => $on_postgres:ident),* $(,)?) => {
        $(#[test]
        fn $name() {
            let db = fresh_db(stringify!($name));
            stories::$name(&db);
            let _ = std::fs::remove_file(&db);
        }
        #[test]
        fn $on_postgres() {
            if let Some(url) = postgres_support::fresh_database() {
                stories::$name(Path::new(&url));
            }
        })*
    };
}

on_both!(
    book_ticket_pays_the_cheapest_acceptable_flight_and_refuses_the_injection_and_the_cap
        => book_ticket_on_postgres,
    my_benefits_reads_only_the_principals_own_record => my_benefits_on_postgres,
    hr_review_reads_each_report_audited_and_nobody_else => hr_review_on_postgres,
    a_tampered_audit_log_fails_verification => a_tampered_audit_log_fails_verification_on_postgres,
);

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples")
}

/// A fresh store path for one test.
fn fresh_db(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("writ-story-{name}-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

fn run(story: &str, program: &str, policy: &str, db: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_writ"))
        .args(["run", program, "--policy", policy, "--db"])
        .arg(db)
        .current_dir(examples().join(story))
        .env("NO_COLOR", "1")
        .output()
        .expect("writ runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn store(db: &Path) -> Store {
    match Store::open(&db.display().to_string(), None) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}

/// Each audit record as `operation arguments decision`.
fn audit_lines(s: &Store) -> Vec<String> {
    s.records()
        .unwrap_or_default()
        .iter()
        .map(|r| format!("{}({}) {}", r.operation, r.arguments, r.decision))
        .collect()
}

/// The stories, each on the store `db` names.
mod stories {
    use super::*;

    pub fn book_ticket_pays_the_cheapest_acceptable_flight_and_refuses_the_injection_and_the_cap(
        db: &Path,
    ) {
        let o = run("book_ticket", "book.writ", "policy.toml", db);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        assert_eq!(
            text(&o.stdout),
            "5 offers, 4 within 12 hours and 1 stop\nbooked A1-318 with air-one.example for 389.00 EUR (receipt pay-1)\n"
        );
        assert!(
            text(&o.stderr).contains("recorded responses"),
            "{}",
            text(&o.stderr)
        );

        // The page's injected instruction: the payment is refused by payee scope.
        let o = run("book_ticket", "injected.writ", "policy.toml", db);
        assert_eq!(o.status.code(), Some(3));
        assert_eq!(text(&o.stdout), "following the page's instructions\n");
        assert!(
            text(&o.stderr).contains("[E4005]")
                && text(&o.stderr).contains("attacker.example is not an allowed payee"),
            "{}",
            text(&o.stderr)
        );

        // Over the per-payment cap.
        let o = run("book_ticket", "over_cap.writ", "policy.toml", db);
        assert_eq!(o.status.code(), Some(3));
        assert!(
            text(&o.stderr).contains("900.00 EUR is over the cap of 500.00 EUR per payment"),
            "{}",
            text(&o.stderr)
        );

        let s = store(db);
        let ledger = s.ledger().unwrap_or_default();
        assert_eq!(
            ledger,
            vec![(
                1,
                "ada".to_string(),
                "air-one.example".to_string(),
                38900,
                "EUR".to_string(),
                "flight A1-318".to_string()
            )],
            "only the booking was paid"
        );
        assert_eq!(
            audit_lines(&s),
            [
                "Http.get(\"https://air-one.example/offers\") allowed",
                "Http.get(\"https://skyways.example/api/offers\") allowed",
                "Http.get(\"https://jetlow.example/offers\") allowed",
                "Pay.pay(\"air-one.example\", 38900, \"flight A1-318\") allowed",
                "Http.get(\"https://jetlow.example/offers\") allowed",
                "Pay.pay(\"attacker.example\", 30000, \"verification fee\") denied",
                "Pay.pay(\"air-one.example\", 90000, \"business class, A1-204\") denied",
            ]
        );
        assert_eq!(s.verify(), Ok(7));
    }

    pub fn my_benefits_reads_only_the_principals_own_record(db: &Path) {
        let o = run("my_benefits", "benefits.writ", "policy.toml", db);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        assert_eq!(
            text(&o.stdout),
            "Grace Hopper: plan Gold, covering vision\nfields shown: [\"dental\", \"plan\", \"vision\"]\n",
            "the ssn field is redacted"
        );

        // A coworker's record: refused, audited, and seen by the program as Fail.
        let o = run("my_benefits", "coworker.writ", "policy.toml", db);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        assert_eq!(
            text(&o.stdout),
            "refused: Records.read(\"e1003\") was denied: scope \"self\": e1003 is not e1002\n"
        );

        // Without a Records grant the program does not run at all.
        let o = run("my_benefits", "benefits.writ", "log_only.toml", db);
        assert_eq!(o.status.code(), Some(1));
        assert!(text(&o.stderr).contains("[E3002]"), "{}", text(&o.stderr));
        assert_eq!(text(&o.stdout), "");

        let s = store(db);
        assert_eq!(
            audit_lines(&s),
            [
                "Records.read(\"e1002\") allowed",
                "Records.read(\"e1003\") denied"
            ]
        );
        assert_eq!(s.verify(), Ok(2));
    }

    pub fn hr_review_reads_each_report_audited_and_nobody_else(db: &Path) {
        let o = run("hr_review", "review.writ", "policy.toml", db);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        assert_eq!(
            text(&o.stdout),
            "e1001 Ada Lovelace: Silver\ne1002 Grace Hopper: Gold\ne1004 Alan Turing: Bronze\nplans: [(\"Bronze\", 1), (\"Gold\", 1), (\"Silver\", 1)]\n"
        );
        let o = run("hr_review", "outside.writ", "policy.toml", db);
        assert_eq!(o.status.code(), Some(3));
        assert!(
            text(&o.stderr).contains("e1003 is not one of h100's reports"),
            "{}",
            text(&o.stderr)
        );

        let s = store(db);
        assert_eq!(
            audit_lines(&s),
            [
                "Records.list() allowed",
                "Records.read(\"e1001\") allowed",
                "Records.read(\"e1002\") allowed",
                "Records.read(\"e1004\") allowed",
                "Records.read(\"e1003\") denied",
            ]
        );
        assert_eq!(s.verify(), Ok(5));
    }

    pub fn a_tampered_audit_log_fails_verification(db: &Path) {
        let o = run("hr_review", "review.writ", "policy.toml", db);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let verify = |db: &Path| {
            Command::new(env!("CARGO_BIN_EXE_writ"))
                .args(["audit", "verify", "--db"])
                .arg(db)
                .output()
                .expect("writ runs")
        };
        let o = verify(db);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
        // The store edited directly, as its owner could.
        let text_of = db.display().to_string();
        if text_of.starts_with("postgres://") {
            super::postgres_support::psql(
                &text_of,
                "DROP TRIGGER audit_no_update ON audit; UPDATE audit SET arguments = '\"e9999\"' WHERE seq = 3;",
            );
        } else {
            let edited = rusqlite::Connection::open(db).and_then(|c| {
            c.execute_batch(
                "DROP TRIGGER audit_no_update; UPDATE audit SET arguments = '\"e9999\"' WHERE seq = 3;",
            )
        });
            assert_eq!(edited, Ok(()));
        }
        let o = verify(db);
        assert_eq!(o.status.code(), Some(1));
        assert_eq!(
            text(&o.stdout),
            "the audit log was tampered with: record 3 does not match its hash: it was edited\n"
        );
    }
}

#[test]
fn an_unwritable_store_denies_everything_before_the_run() {
    let dir = std::env::temp_dir().join(format!("writ-story-nodir-{}", std::process::id()));
    let db = dir.join("missing").join("store.db");
    let o = run("hr_review", "review.writ", "policy.toml", &db);
    assert_eq!(o.status.code(), Some(3));
    assert!(text(&o.stderr).contains("[E4006]"), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "", "nothing ran");
}

#[test]
fn an_audit_record_that_cannot_be_written_denies_the_operation() {
    let db = fresh_db("auditfail");
    if let Err(e) = Store::open(&db.display().to_string(), None) {
        panic!("{e}");
    }
    let broken = rusqlite::Connection::open(&db).and_then(|c| {
        c.execute_batch(
            "CREATE TRIGGER audit_full BEFORE INSERT ON audit BEGIN SELECT RAISE(ABORT, 'disk full'); END;",
        )
    });
    assert_eq!(broken, Ok(()));
    let o = run("book_ticket", "book.writ", "policy.toml", &db);
    assert_eq!(o.status.code(), Some(3));
    let err = text(&o.stderr);
    assert!(
        err.contains("[E4006]")
            && err.contains("the audit record of Http.get could not be written"),
        "{err}"
    );
    assert_eq!(text(&o.stdout), "", "no page was read, nothing was paid");
    assert_eq!(store(&db).ledger().unwrap_or_default(), vec![]);
    let _ = std::fs::remove_file(&db);
}
