//! Fresh PostgreSQL databases for tests, on the throwaway server that
//! `.ci/run` starts with `tests/postgres/server.sh`: the server's URL
//! (with no password) in `WRIT_TEST_POSTGRES`, its password in
//! `PGPASSWORD`.
//!
//! Without `WRIT_TEST_POSTGRES`, a test that needs the server is skipped
//! with a line on standard error, except where the server is required
//! (`WRIT_REQUIRE_POSTGRES` set, as `.ci/run` sets it, or `CI` set), where
//! it fails: CI always runs the store's tests on both databases.

#![allow(dead_code, unreachable_pub)]

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The test server's URL, or `None` (with a line saying the test is
/// skipped) when there is none outside CI.
pub fn server() -> Option<String> {
    match std::env::var("WRIT_TEST_POSTGRES") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var_os("WRIT_REQUIRE_POSTGRES").is_none()
                    && std::env::var_os("CI").is_none(),
                "CI runs the store's tests on PostgreSQL: start a server with tests/postgres/server.sh and set WRIT_TEST_POSTGRES (and PGPASSWORD)"
            );
            eprintln!("skipped: no PostgreSQL server (set WRIT_TEST_POSTGRES)");
            None
        }
    }
}

/// Run `sql` on the server's `postgres` database with psql; panics with
/// psql's message if it fails.
pub fn psql(url: &str, sql: &str) -> String {
    let out = Command::new("psql")
        .args([
            url,
            "-X",
            "-q",
            "-t",
            "-A",
            "-v",
            "ON_ERROR_STOP=1",
            "-c",
            sql,
        ])
        .output()
        .unwrap_or_else(|e| panic!("psql: {e}"));
    assert!(
        out.status.success(),
        "psql {sql}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The URL of a new, empty database on the test server: one per call.
pub fn fresh_database() -> Option<String> {
    static MADE: AtomicUsize = AtomicUsize::new(0);
    let server = server()?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let name = format!(
        "writ_{}_{}_{nanos}",
        std::process::id(),
        MADE.fetch_add(1, Ordering::Relaxed)
    );
    psql(&server, &format!("CREATE DATABASE {name}"));
    Some(database_url(&server, &name))
}

/// `server`'s URL with its database replaced by `name`.
pub fn database_url(server: &str, name: &str) -> String {
    let (base, _) = server.rsplit_once('/').unwrap_or((server, ""));
    format!("{base}/{name}")
}
