//! The store on SQLite: one file, one connection per open store.
//!
//! A write is a `BEGIN IMMEDIATE` transaction (the file's write lock taken
//! before anything is read); a read is a deferred transaction (one view
//! of the file). Every statement waits for a lock until the deadline it
//! was given at most (SQLite's busy timeout), and a lock still held then
//! is [`WriteError::Busy`].

use writ_runtime::clock::Instant;

use rusqlite::{Connection, ErrorCode, OptionalExtension, TransactionBehavior, params};

use super::schema::Dialect;
use super::{AuditRecord, Employee, LedgerRow, StoreError, Tx, WriteError};

/// An open SQLite store.
pub(super) struct Sqlite {
    conn: Connection,
}

/// A failed statement: busy if another connection held the lock.
fn failed(e: rusqlite::Error) -> WriteError {
    match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            WriteError::Busy(e.to_string())
        }
        _ => WriteError::Other(StoreError::Database {
            reason: e.to_string(),
        }),
    }
}

impl Sqlite {
    /// Open (or create, empty) the file at `path`, read as a plain path,
    /// never as a `file:` URI (the location refused those already:
    /// [`super::location::sqlite_path_refusal`]).
    pub(super) fn open(path: &str) -> Result<Sqlite, StoreError> {
        // A new store is made readable by its owner only: it holds the
        // records a policy redacts and the key that seals saved runs
        // (SQLite gives its journal files the same permissions). One
        // that exists keeps the permissions it has.
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            let _ = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(path);
        }
        let flags = rusqlite::OpenFlags::default().difference(rusqlite::OpenFlags::SQLITE_OPEN_URI);
        let conn = Connection::open_with_flags(path, flags).map_err(|e| StoreError::Open {
            path: path.to_string(),
            reason: e.to_string(),
        })?;
        Ok(Sqlite { conn })
    }

    /// A store in memory, for the store's tests.
    #[cfg(test)]
    pub(super) fn in_memory() -> Result<Sqlite, StoreError> {
        let conn = Connection::open_in_memory().map_err(|e| StoreError::Database {
            reason: e.to_string(),
        })?;
        Ok(Sqlite { conn })
    }

    /// Whether no transaction is open.
    pub(super) fn is_idle(&self) -> bool {
        self.conn.is_autocommit()
    }

    /// Let the statements that follow wait for a lock until `deadline`
    /// at most (not at all once it has passed).
    fn wait_until(&self, deadline: Instant) -> Result<(), WriteError> {
        self.conn
            .busy_timeout(deadline.saturating_duration_since(Instant::now()))
            .map_err(failed)
    }

    /// Run `f` in a read transaction.
    pub(super) fn read<T>(
        &self,
        deadline: Instant,
        f: impl FnOnce(&mut dyn Tx) -> Result<T, WriteError>,
    ) -> Result<T, WriteError> {
        self.wait_until(deadline)?;
        let tx = self.conn.unchecked_transaction().map_err(failed)?;
        // Dropped, not committed: a read writes nothing.
        f(&mut On(&tx))
    }

    /// One attempt at `f` in a write transaction, committed if `f`
    /// returns a value and rolled back if not.
    pub(super) fn write<T>(
        &mut self,
        deadline: Instant,
        f: &mut impl FnMut(&mut dyn Tx) -> Result<T, WriteError>,
    ) -> Result<T, WriteError> {
        self.wait_until(deadline)?;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(failed)?;
        let value = f(&mut On(&tx))?;
        tx.commit().map_err(failed)?;
        Ok(value)
    }

    /// Run `sql` on the connection as it is.
    pub(super) fn execute_raw(&mut self, sql: &str) -> Result<(), StoreError> {
        self.conn
            .execute_batch(sql)
            .map_err(|e| StoreError::Database {
                reason: e.to_string(),
            })
    }
}

/// The primitive reads and writes, on a connection in a transaction.
struct On<'a>(&'a Connection);

impl Tx for On<'_> {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn batch(&mut self, sql: &str) -> Result<(), WriteError> {
        self.0.execute_batch(sql).map_err(failed)
    }

    fn has_meta(&mut self) -> Result<bool, WriteError> {
        self.0
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n > 0)
            .map_err(failed)
    }

    fn meta(&mut self, key: &str) -> Result<Option<String>, WriteError> {
        self.0
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()
            .map_err(failed)
    }

    fn put_meta(&mut self, key: &str, value: &str) -> Result<bool, WriteError> {
        self.0
            .execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES (?1, ?2)",
                params![key, value],
            )
            .map(|n| n == 1)
            .map_err(failed)
    }

    fn random_hex(&mut self, bytes: usize) -> Result<String, WriteError> {
        self.0
            .query_row(
                "SELECT lower(hex(randomblob(?1)))",
                [i64::try_from(bytes.min(32)).unwrap_or(32)],
                |r| r.get(0),
            )
            .map_err(failed)
    }

    fn last_record(&mut self) -> Result<Option<(i64, String)>, WriteError> {
        self.0
            .query_row(
                "SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(failed)
    }

    fn insert_record(&mut self, r: &AuditRecord) -> Result<(), WriteError> {
        self.0.execute(
            "INSERT INTO audit (seq, time_ms, principal, program, operation, arguments, decision, rule, ledger_id, ledger_hash, prev_hash, hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![r.seq, r.time_ms, r.principal, r.program, r.operation, r.arguments, r.decision, r.rule, r.ledger_id, r.ledger_hash, r.prev_hash, r.hash],
        ).map(|_| ()).map_err(failed)
    }

    fn next_ledger_id(&mut self) -> Result<i64, WriteError> {
        self.0
            .query_row("SELECT coalesce(max(id), 0) + 1 FROM ledger", [], |r| {
                r.get(0)
            })
            .map_err(failed)
    }

    fn insert_ledger(&mut self, row: &LedgerRow) -> Result<(), WriteError> {
        self.0.execute(
            "INSERT INTO ledger (id, time_ms, day, principal, payee, cents, currency, memo, audit_seq) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![row.id, row.time_ms, row.day, row.principal, row.payee, row.cents, row.currency, row.memo, row.audit_seq],
        ).map(|_| ()).map_err(failed)
    }

    fn paid_on(&mut self, principal: &str, day: &str) -> Result<i64, WriteError> {
        self.0
            .query_row(
                "SELECT coalesce(sum(cents), 0) FROM ledger WHERE principal = ?1 AND day = ?2",
                params![principal, day],
                |r| r.get(0),
            )
            .map_err(failed)
    }

    fn record_count(&mut self) -> Result<i64, WriteError> {
        self.0
            .query_row("SELECT count(*) FROM audit", [], |r| r.get(0))
            .map_err(failed)
    }

    fn records_from(&mut self, first: i64) -> Result<Vec<AuditRecord>, WriteError> {
        let mut st = self.0.prepare(
            "SELECT seq, time_ms, principal, program, operation, arguments, decision, rule, ledger_id, ledger_hash, prev_hash, hash FROM audit WHERE seq >= ?1 ORDER BY seq",
        ).map_err(failed)?;
        let rows = st.query_map([first], audit_row).map_err(failed)?;
        rows.collect::<rusqlite::Result<_>>().map_err(failed)
    }

    fn record_count_of(&mut self, principal: &str) -> Result<i64, WriteError> {
        self.0
            .query_row(
                "SELECT count(*) FROM audit WHERE principal = ?1",
                [principal],
                |r| r.get(0),
            )
            .map_err(failed)
    }

    fn last_records_of(&mut self, principal: &str, n: i64) -> Result<Vec<AuditRecord>, WriteError> {
        let mut st = self.0.prepare(
            "SELECT seq, time_ms, principal, program, operation, arguments, decision, rule, ledger_id, ledger_hash, prev_hash, hash FROM audit WHERE principal = ?1 ORDER BY seq DESC LIMIT ?2",
        ).map_err(failed)?;
        let rows = st
            .query_map(rusqlite::params![principal, n], audit_row)
            .map_err(failed)?;
        let mut records: Vec<AuditRecord> =
            rows.collect::<rusqlite::Result<_>>().map_err(failed)?;
        records.reverse();
        Ok(records)
    }

    fn first_of_last(&mut self, n: i64) -> Result<i64, WriteError> {
        self.0
            .query_row(
                "SELECT coalesce(min(seq), 0) FROM (SELECT seq FROM audit ORDER BY seq DESC LIMIT ?1)",
                [n],
                |r| r.get(0),
            )
            .map_err(failed)
    }

    fn ledger_rows(&mut self) -> Result<Vec<LedgerRow>, WriteError> {
        let mut st = self.0.prepare(
            "SELECT id, time_ms, day, principal, payee, cents, currency, memo, audit_seq FROM ledger ORDER BY id",
        ).map_err(failed)?;
        let rows = st
            .query_map([], |r| {
                Ok(LedgerRow {
                    id: r.get(0)?,
                    time_ms: r.get(1)?,
                    day: r.get(2)?,
                    principal: r.get(3)?,
                    payee: r.get(4)?,
                    cents: r.get(5)?,
                    currency: r.get(6)?,
                    memo: r.get(7)?,
                    audit_seq: r.get(8)?,
                })
            })
            .map_err(failed)?;
        rows.collect::<rusqlite::Result<_>>().map_err(failed)
    }

    fn employee(&mut self, id: &str) -> Result<Option<Employee>, WriteError> {
        self.0
            .query_row(
                "SELECT name, manager, fields FROM employees WHERE id = ?1",
                params![id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(failed)
    }

    fn reports(&mut self, manager: &str) -> Result<Vec<String>, WriteError> {
        let mut st = self
            .0
            .prepare(
                "WITH RECURSIVE chain(id) AS (
                   SELECT id FROM employees WHERE manager = ?1
                   UNION SELECT e.id FROM employees e JOIN chain c ON e.manager = c.id
                 ) SELECT id FROM chain ORDER BY id",
            )
            .map_err(failed)?;
        let rows = st
            .query_map(params![manager], |r| r.get::<_, String>(0))
            .map_err(failed)?;
        rows.collect::<rusqlite::Result<_>>().map_err(failed)
    }

    fn employee_ids(&mut self) -> Result<Vec<String>, WriteError> {
        let mut st = self
            .0
            .prepare("SELECT id FROM employees ORDER BY id")
            .map_err(failed)?;
        let rows = st
            .query_map([], |r| r.get::<_, String>(0))
            .map_err(failed)?;
        rows.collect::<rusqlite::Result<_>>().map_err(failed)
    }
}

/// An audit record from a row of `SELECT seq, time_ms, principal,
/// program, operation, arguments, decision, rule, ledger_id, ledger_hash,
/// prev_hash, hash`.
fn audit_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<AuditRecord> {
    Ok(AuditRecord {
        seq: r.get(0)?,
        time_ms: r.get(1)?,
        principal: r.get(2)?,
        program: r.get(3)?,
        operation: r.get(4)?,
        arguments: r.get(5)?,
        decision: r.get(6)?,
        rule: r.get(7)?,
        ledger_id: r.get(8)?,
        ledger_hash: r.get(9)?,
        prev_hash: r.get(10)?,
        hash: r.get(11)?,
    })
}
