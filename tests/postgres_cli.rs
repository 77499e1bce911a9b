//! The store's commands against a PostgreSQL database, as against a
//! file: `writ db init` (with a seed; refusing a database that holds a
//! store), `writ audit show|head|verify`, and `--db` refusing a URL of
//! another scheme or one holding a password. Needs the test server
//! (tests/postgres/support.rs).

use std::path::Path;
use std::process::{Command, Output};

#[path = "postgres/support.rs"]
mod postgres_support;

fn writ(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_writ"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/hr_review"))
        .env("NO_COLOR", "1")
        .output()
        .expect("writ runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn db_init_and_the_audit_commands_take_a_postgres_url() {
    let Some(db) = postgres_support::fresh_database() else {
        return;
    };
    // Nothing there yet: the audit commands say so, and create nothing.
    let o = writ(&["audit", "show", "--db", &db]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o.stderr),
        format!("error: there is no store at {db}; pass its path with `--db`\n")
    );
    let o = writ(&["db", "init", "--db", &db, "--seed", "../shared/org.sql"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), format!("created {db}\n"));
    let o = writ(&["db", "init", "--db", &db]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o.stderr),
        format!("error: {db} exists already; `writ db init` creates a new store\n")
    );
    // A run under the story's policy, on the database.
    let o = writ(&["run", "review.writ", "--policy", "policy.toml", "--db", &db]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let o = writ(&["audit", "head", "--db", &db]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let head = text(&o.stdout).trim().to_string();
    assert!(head.starts_with("4:"), "{head}");
    let o = writ(&["audit", "verify", "--db", &db, "--head", &head]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    let o = writ(&["audit", "show", "--db", &db, "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let shown: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_default();
    // One JSON array of the records, in order.
    assert_eq!(shown.as_array().map(Vec::len), Some(4), "{shown}");
    assert_eq!(shown[0]["operation"].as_str(), Some("Records.list"));
    assert_eq!(shown[3]["arguments"].as_str(), Some("\"e1004\""));
    // Records removed from the end, as the database's owner could: the
    // chain still holds, the head does not.
    postgres_support::psql(
        &db,
        "DROP TRIGGER audit_no_update ON audit; DELETE FROM audit WHERE seq = 4;",
    );
    let o = writ(&["audit", "verify", "--db", &db]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    let o = writ(&["audit", "verify", "--db", &db, "--head", &head]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stdout),
        "the audit log was tampered with: the log ends at record 3, but the head you hold is record 4: record 4 was removed from its end\n"
    );
}

#[test]
fn db_refuses_urls_of_other_schemes_and_urls_holding_a_password() {
    for (db, said) in [
        (
            "mysql://db.example/team",
            "error: expected a store's location to be a SQLite file's path or a postgres:// URL, found a URL of scheme `mysql`\n",
        ),
        (
            "postgres://writ:hunter2@127.0.0.1:1/team",
            "error: a store's URL must not hold a password (it would show in policies, command lines and messages); put the password in PGPASSWORD, or name a file or variable in the policy's [store] password_file or password_env\n",
        ),
    ] {
        for command in [&["audit", "show"][..], &["db", "init"], &["db", "migrate"]] {
            let mut args = command.to_vec();
            args.extend(["--db", db]);
            let o = writ(&args);
            assert_eq!(o.status.code(), Some(2), "{args:?}");
            assert_eq!(text(&o.stderr), said, "{args:?}");
        }
    }
}
