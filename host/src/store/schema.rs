//! The store's schema on each database, and the migrations between its
//! versions.
//!
//! Both databases hold the same tables (`meta`, `audit`, `ledger`,
//! `employees`) with the same columns, and both refuse updates and
//! deletes of the audit log and the ledger by triggers. A new store is
//! made by running every step from nothing to [`super::SCHEMA_VERSION`];
//! a store of an older version is brought up to date by a
//! migration ([`super::Store::migrate`]), which runs the steps it lacks in
//! one write transaction, so a migration is done whole or not at all.
//!
//! Invariant: a step's SQL never changes once released (stores made by
//! it exist); a change of schema is a new step, and a new version.

/// Which database a store is on: the SQL of each step differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// SQLite, one file (not in a web page).
    #[cfg_attr(all(target_arch = "wasm32", target_os = "unknown"), allow(dead_code))]
    Sqlite,
    /// PostgreSQL, a database on a server (made only with the `postgres`
    /// feature).
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    Postgres,
    /// The process's memory (`memory.rs`): no SQL, the tables always
    /// there.
    Memory,
}

/// The oldest version a store can be migrated from.
pub(crate) const OLDEST_MIGRATABLE: i64 = 2;

/// Version 2 on SQLite: the ledger chained into the log.
const SQLITE_V2: &str = "
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE audit (
  seq INTEGER PRIMARY KEY,
  time_ms INTEGER NOT NULL,
  principal TEXT NOT NULL,
  program TEXT NOT NULL,
  operation TEXT NOT NULL,
  arguments TEXT NOT NULL,
  decision TEXT NOT NULL,
  rule TEXT NOT NULL,
  ledger_id INTEGER,
  ledger_hash TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
);
CREATE TABLE ledger (
  id INTEGER PRIMARY KEY,
  time_ms INTEGER NOT NULL,
  day TEXT NOT NULL,
  principal TEXT NOT NULL,
  payee TEXT NOT NULL,
  cents INTEGER NOT NULL,
  currency TEXT NOT NULL,
  memo TEXT NOT NULL,
  audit_seq INTEGER NOT NULL
);
CREATE INDEX ledger_day ON ledger (principal, day);
CREATE TABLE employees (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  manager TEXT,
  fields TEXT NOT NULL DEFAULT '{}'
);
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
  BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
  BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
  BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
  BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
INSERT INTO meta (key, value) VALUES ('schema', '2');
";

/// Version 2 on PostgreSQL: the same tables, with 64-bit integers, and
/// `TRUNCATE` refused too (PostgreSQL's triggers on rows do not see it).
const POSTGRES_V2: &str = "
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE audit (
  seq BIGINT PRIMARY KEY,
  time_ms BIGINT NOT NULL,
  principal TEXT NOT NULL,
  program TEXT NOT NULL,
  operation TEXT NOT NULL,
  arguments TEXT NOT NULL,
  decision TEXT NOT NULL,
  rule TEXT NOT NULL,
  ledger_id BIGINT,
  ledger_hash TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
);
CREATE TABLE ledger (
  id BIGINT PRIMARY KEY,
  time_ms BIGINT NOT NULL,
  day TEXT NOT NULL,
  principal TEXT NOT NULL,
  payee TEXT NOT NULL,
  cents BIGINT NOT NULL,
  currency TEXT NOT NULL,
  memo TEXT NOT NULL,
  audit_seq BIGINT NOT NULL
);
CREATE INDEX ledger_day ON ledger (principal, day);
CREATE TABLE employees (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  manager TEXT,
  fields TEXT NOT NULL DEFAULT '{}'
);
CREATE FUNCTION writ_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN RAISE EXCEPTION 'the % is append-only', TG_ARGV[0]; END $$;
CREATE TRIGGER audit_no_update BEFORE UPDATE OR DELETE ON audit
  FOR EACH ROW EXECUTE FUNCTION writ_append_only('audit log');
CREATE TRIGGER audit_no_truncate BEFORE TRUNCATE ON audit
  FOR EACH STATEMENT EXECUTE FUNCTION writ_append_only('audit log');
CREATE TRIGGER ledger_no_update BEFORE UPDATE OR DELETE ON ledger
  FOR EACH ROW EXECUTE FUNCTION writ_append_only('ledger');
CREATE TRIGGER ledger_no_truncate BEFORE TRUNCATE ON ledger
  FOR EACH STATEMENT EXECUTE FUNCTION writ_append_only('ledger');
INSERT INTO meta (key, value) VALUES ('schema', '2');
";

/// Version 3, on either database: at most one ledger row per audit
/// record, kept by the database (a row added by hand that claims a
/// payment's record is refused, not only found by `verify`), and the
/// index `verify` and the day cap read the ledger by.
const V3: &str = "
CREATE UNIQUE INDEX ledger_audit_seq ON ledger (audit_seq);
UPDATE meta SET value = '3' WHERE key = 'schema';
";

/// The SQL that takes a store of version `from` to `from + 1` on
/// `dialect`; `None` past the current version. Step 0 makes a new store
/// of the oldest version still made.
pub(crate) fn step(dialect: Dialect, from: i64) -> Option<&'static str> {
    match (from, dialect) {
        (0, Dialect::Sqlite) => Some(SQLITE_V2),
        (0, Dialect::Postgres) => Some(POSTGRES_V2),
        (0, Dialect::Memory) => Some(super::memory::MEMORY_V2),
        (2, Dialect::Memory) => Some(super::memory::MEMORY_V3),
        (2, _) => Some(V3),
        _ => None,
    }
}

/// The version step `from` leads to (step 0 makes version 2).
pub(crate) fn step_to(from: i64) -> i64 {
    if from == 0 {
        OLDEST_MIGRATABLE
    } else {
        from + 1
    }
}
