//! The host's store: one SQLite file holding the audit log, the payment
//! ledger and the employee records.
//!
//! The store is created on first use with its schema (version
//! [`SCHEMA_VERSION`], kept in `meta`), then, if the policy names a seed
//! file, with the seed's SQL, in the same transaction. A store written by
//! another schema version is refused rather than guessed at.
//!
//! The audit log is append-only and hash-chained: each record holds the
//! hash of the one before it, and its own hash covers every field and that
//! link, so [`Store::verify`] finds any record edited, removed or
//! reordered. The ledger is chained into the log: an allowed payment's
//! record holds its ledger row's id and the hash of that row, and each row
//! names its record, so a ledger row deleted, edited or added is found
//! too. What the chain cannot show by itself, a removed tail, is found
//! against a head the person kept ([`Store::head`], [`Store::verify_head`]).
//!
//! Concurrency: every write is one transaction that takes the write lock
//! before it reads (`BEGIN IMMEDIATE`), waiting for it up to the store's
//! lock wait ([`DEFAULT_LOCK_WAIT`], or a policy's) in a few
//! bounded attempts; a write that still cannot get the lock fails whole.
//! A read waits as long for a writer. Within a run, no wait goes past the
//! run's time (`Store::set_until`); the one place a wait is bounded is
//! `Store::deadline`, which every statement's wait is set from.
//! A payment's check of the day's total, its ledger row and its audit
//! record are one such transaction (`Store::pay`), so runs paying at
//! once cannot together pass a cap.
//!
//! Invariant: `Store::audit` and `Store::pay` return only once what
//! they wrote is committed; a caller that cannot get a record committed
//! denies the operation.

mod error;
mod verify;

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rusqlite::{
    Connection, ErrorCode, OptionalExtension, Transaction, TransactionBehavior, params,
};
use sha2::{Digest, Sha256};

use crate::policy::Decision;

pub use error::StoreError;
pub use verify::{Break, Head, HeadError, VerifyError};

use error::sqlite;

/// The schema this code writes and reads. Version 2 chained the ledger
/// into the audit log; a store of version 1 is refused (see
/// [`Store::open`]).
pub const SCHEMA_VERSION: i64 = 2;

/// How long, in all, a write waits for the store's write lock by default.
pub const DEFAULT_LOCK_WAIT: Duration = Duration::from_secs(10);

/// How many times, at most, a write tries to get the lock within its
/// lock wait (SQLite may report the lock busy before the wait is over,
/// as when two writers would deadlock).
const LOCK_ATTEMPTS: u32 = 4;

/// The longest lock wait: SQLite counts it in milliseconds, in a C `int`.
const LONGEST_LOCK_WAIT: Duration = Duration::from_millis(i32::MAX as u64);

const SCHEMA: &str = "
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
";

/// The hash the first record links to.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// One audit record, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditRecord {
    /// Its position in the log, from 1.
    pub seq: i64,
    /// When, in milliseconds since the Unix epoch.
    pub time_ms: i64,
    /// For whom the program ran.
    pub principal: String,
    /// The hash of the program's text.
    pub program: String,
    /// `Effect.op`.
    pub operation: String,
    /// The arguments, as the policy lets them be shown.
    pub arguments: String,
    /// The decision, as stored: `allowed` or `denied` for a record the
    /// host wrote ([`Decision::as_str`]). Kept as text, as every field
    /// is: a record must be read as it is to be found changed.
    pub decision: String,
    /// The rule that decided.
    pub rule: String,
    /// For a payment made, the id of its ledger row.
    pub ledger_id: Option<i64>,
    /// For a payment made, the hash of its ledger row (see
    /// [`LedgerRow::hash`]); empty otherwise.
    pub ledger_hash: String,
    /// The previous record's hash.
    pub prev_hash: String,
    /// This record's hash.
    pub hash: String,
}

/// What to write in a new audit record.
#[derive(Clone, Debug)]
pub(crate) struct Entry<'a> {
    /// For whom.
    pub principal: &'a str,
    /// The program's hash.
    pub program: &'a str,
    /// `Effect.op`.
    pub operation: &'a str,
    /// The arguments, redacted.
    pub arguments: &'a str,
    /// What was decided.
    pub decision: Decision,
    /// The rule that decided.
    pub rule: &'a str,
}

/// One ledger entry: id, principal, payee, cents, currency, memo.
pub type Payment = (i64, String, String, i64, String, String);

/// One ledger row, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LedgerRow {
    /// Its id, from 1.
    pub id: i64,
    /// When, in milliseconds since the Unix epoch (the host's clock).
    pub time_ms: i64,
    /// The UTC day of `time_ms`, which the day cap counts by.
    pub day: String,
    /// Who paid.
    pub principal: String,
    /// To whom.
    pub payee: String,
    /// How much, in cents.
    pub cents: i64,
    /// The currency.
    pub currency: String,
    /// The memo.
    pub memo: String,
    /// The sequence number of the payment's audit record.
    pub audit_seq: i64,
}

impl LedgerRow {
    /// The hash an audit record holds of this row: every field,
    /// length-prefixed.
    pub fn hash(&self) -> String {
        fields_hash(&[
            &self.id.to_string(),
            &self.time_ms.to_string(),
            &self.day,
            &self.principal,
            &self.payee,
            &self.cents.to_string(),
            &self.currency,
            &self.memo,
            &self.audit_seq.to_string(),
        ])
    }
}

/// A payment to make: what its ledger row holds besides who paid.
#[derive(Clone, Debug)]
pub(crate) struct NewPayment<'a> {
    /// To whom.
    pub payee: &'a str,
    /// How much, in cents.
    pub cents: i64,
    /// The currency.
    pub currency: &'a str,
    /// The memo.
    pub memo: &'a str,
    /// When (the host's clock); its UTC day is the day counted.
    pub time_ms: i64,
    /// The cap on the principal's payments that day, this one included.
    pub max_day_cents: i64,
}

/// How [`Store::pay`] ended; either way its audit record is committed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Paid {
    /// The payment is in the ledger.
    Made {
        /// Its ledger row.
        id: i64,
        /// Its audit record.
        seq: i64,
    },
    /// The day's total, read under the write lock, left no room for it:
    /// nothing was written but the denial's record.
    OverDayCap {
        /// What the principal had paid that day.
        today: i64,
        /// The denial's audit record.
        seq: i64,
    },
}

/// An open store.
pub struct Store {
    conn: Connection,
    lock_wait: Duration,
    /// No write waits for the lock past this moment (a run's time limit).
    until: Option<Instant>,
}

/// Why a write transaction failed.
enum WriteError {
    /// Another connection held the lock (`SQLITE_BUSY` / `SQLITE_LOCKED`):
    /// SQLite's reason.
    Busy(String),
    /// Anything else.
    Other(StoreError),
}

impl From<rusqlite::Error> for WriteError {
    fn from(e: rusqlite::Error) -> WriteError {
        match e.sqlite_error_code() {
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
                WriteError::Busy(e.to_string())
            }
            _ => WriteError::Other(sqlite(e)),
        }
    }
}

/// The current time in milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The UTC calendar day of a time, `YYYY-MM-DD`.
pub fn day_of(time_ms: i64) -> String {
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let days = time_ms.div_euclid(86_400_000);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The hash of fields, each length-prefixed so that no two lists of
/// fields hash the same text.
fn fields_hash(fields: &[&str]) -> String {
    let mut text = String::new();
    for f in fields {
        text.push_str(&format!("{}:{f};", f.len()));
    }
    sha256_hex(text.as_bytes())
}

fn record_hash(r: &AuditRecord) -> String {
    fields_hash(&[
        &r.seq.to_string(),
        &r.time_ms.to_string(),
        &r.principal,
        &r.program,
        &r.operation,
        &r.arguments,
        &r.decision,
        &r.rule,
        &r.ledger_id.map(|i| i.to_string()).unwrap_or_default(),
        &r.ledger_hash,
        &r.prev_hash,
    ])
}

impl Store {
    /// Open the store at `path`, creating it with its schema and `seed`
    /// (SQL text) if it does not exist yet. A store of another schema
    /// version is refused with a message saying which.
    pub fn open(path: &str, seed: Option<&str>) -> Result<Store, StoreError> {
        let conn = Connection::open(path).map_err(|e| StoreError::Open {
            path: path.to_string(),
            reason: e.to_string(),
        })?;
        Store::init(conn, seed)
    }

    /// A store in memory (for the store's tests), created with `seed`.
    #[cfg(test)]
    pub(crate) fn in_memory(seed: Option<&str>) -> Result<Store, StoreError> {
        Store::init(Connection::open_in_memory().map_err(sqlite)?, seed)
    }

    fn init(conn: Connection, seed: Option<&str>) -> Result<Store, StoreError> {
        let mut store = Store {
            conn,
            lock_wait: DEFAULT_LOCK_WAIT,
            until: None,
        };
        // Read first (a store that exists needs no write lock, and may be
        // read-only); create under the write lock, asking again there, as
        // another process may have created it meanwhile.
        if store.schema_version()?.is_none() {
            store.write(|tx| {
                if schema_version(tx)?.is_some() {
                    return Ok(());
                }
                tx.execute_batch(SCHEMA)?;
                tx.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema', ?1)",
                    params![SCHEMA_VERSION.to_string()],
                )?;
                if let Some(seed) = seed {
                    tx.execute_batch(seed)
                        .map_err(|e| match WriteError::from(e) {
                            WriteError::Other(StoreError::Sqlite { reason }) => {
                                WriteError::Other(StoreError::Seed { reason })
                            }
                            busy => busy,
                        })?;
                }
                Ok(())
            })?;
        }
        match store.schema_version()? {
            Some(v) if v == SCHEMA_VERSION.to_string() => Ok(store),
            v => Err(StoreError::Schema {
                found: v.unwrap_or_else(|| "none".into()),
            }),
        }
    }

    /// The schema version the store records, `None` for an empty file.
    fn schema_version(&self) -> Result<Option<String>, StoreError> {
        self.read(schema_version)
    }

    /// Whether no transaction is open on the connection (so that it may
    /// be kept for another run).
    pub(crate) fn is_idle(&self) -> bool {
        self.conn.is_autocommit()
    }

    /// Wait up to `wait`, in all, for the write lock before a write fails
    /// (default [`DEFAULT_LOCK_WAIT`]; at most about 24 days); a read
    /// waits as long for a writer.
    pub(crate) fn set_lock_wait(&mut self, wait: Duration) {
        self.lock_wait = wait.min(LONGEST_LOCK_WAIT);
    }

    /// Let reads and writes wait for the lock no later than `until` (the
    /// running run's time being up), even within the lock wait; `None`
    /// lifts it.
    pub(crate) fn set_until(&mut self, until: Option<Instant>) {
        self.until = until;
    }

    /// When a wait for the lock that starts now ends: once the lock wait
    /// is over, or the run's time is up ([`Store::set_until`]) if that
    /// comes first. Every statement waits for the lock until then at most.
    fn deadline(&self) -> Instant {
        let waited = Instant::now() + self.lock_wait;
        self.until.map_or(waited, |u| u.min(waited))
    }

    /// Let the statements that follow wait for the lock until `deadline`
    /// at most (not at all once it has passed).
    fn wait_until(&self, deadline: Instant) -> rusqlite::Result<()> {
        self.conn
            .busy_timeout(deadline.saturating_duration_since(Instant::now()))
    }

    /// Run the reads of `f`, each waiting for a writer until
    /// [`Store::deadline`] at most.
    fn read<T>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T, StoreError> {
        self.wait_until(self.deadline())
            .and_then(|()| f(&self.conn))
            .map_err(sqlite)
    }

    /// Run `f` in one write transaction, taken before anything is read,
    /// and commit it. While another connection holds the lock, the
    /// transaction is tried again, at most [`LOCK_ATTEMPTS`] times and
    /// until [`Store::deadline`] in all (each statement waits only what is
    /// left); then it fails. A failed transaction is rolled back: nothing
    /// of it is written.
    /// The store's secret key for sealing snapshots of paused runs
    /// (32 bytes): made once, from SQLite's random source (seeded by the
    /// operating system's), at its first use, and kept in the store's
    /// `meta` table, so that only a host that can read this store can make
    /// or resume a snapshot it accepts.
    pub(crate) fn snapshot_key(&mut self) -> Result<[u8; 32], StoreError> {
        let hex: String = self.write(|tx| {
            tx.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('snapshot_key', lower(hex(randomblob(32))))",
                [],
            )?;
            Ok(tx.query_row(
                "SELECT value FROM meta WHERE key = 'snapshot_key'",
                [],
                |r| r.get(0),
            )?)
        })?;
        let mut key = [0u8; 32];
        let digits: Vec<u8> = hex
            .as_bytes()
            .chunks(2)
            .filter_map(|pair| std::str::from_utf8(pair).ok())
            .filter_map(|pair| u8::from_str_radix(pair, 16).ok())
            .collect();
        if digits.len() != key.len() {
            return Err(StoreError::Sqlite {
                reason: "the store's snapshot key is not 32 bytes of hexadecimal".to_string(),
            });
        }
        key.copy_from_slice(&digits);
        Ok(key)
    }

    /// 16 fresh random bytes, in hexadecimal: a snapshot's nonce.
    pub(crate) fn nonce(&self) -> Result<String, StoreError> {
        self.conn
            .query_row("SELECT lower(hex(randomblob(16)))", [], |r| r.get(0))
            .map_err(sqlite)
    }

    /// Whether the snapshot with `nonce` was resumed already.
    pub(crate) fn was_resumed(&self, nonce: &str) -> Result<bool, StoreError> {
        self.conn
            .query_row(
                "SELECT count(*) FROM meta WHERE key = ?1",
                params![format!("resumed:{nonce}")],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n > 0)
            .map_err(sqlite)
    }

    /// Record that the snapshot with `nonce` is being resumed: `false` if
    /// it was already (two processes resuming one snapshot: one wins).
    pub(crate) fn mark_resumed(&mut self, nonce: &str) -> Result<bool, StoreError> {
        let key = format!("resumed:{nonce}");
        self.write(|tx| {
            let n = tx.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES (?1, 'resumed')",
                params![key],
            )?;
            Ok(n == 1)
        })
    }

    /// Record that the plan with `digest` is executed, and its approval
    /// (an audit record, `entry`) in the same transaction: the approval's
    /// sequence number, or `None` if the plan was executed already.
    pub(crate) fn approve_plan(
        &mut self,
        digest: &str,
        entry: &Entry<'_>,
    ) -> Result<Option<i64>, StoreError> {
        let key = format!("plan:{digest}");
        self.write(|tx| {
            let done: i64 = tx.query_row(
                "SELECT count(*) FROM meta WHERE key = ?1",
                params![key],
                |r| r.get(0),
            )?;
            if done > 0 {
                return Ok(None);
            }
            let seq = append(tx, entry, None)?;
            tx.execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2)",
                params![key, seq.to_string()],
            )?;
            Ok(Some(seq))
        })
    }

    fn write<T>(
        &mut self,
        mut f: impl FnMut(&Transaction<'_>) -> Result<T, WriteError>,
    ) -> Result<T, StoreError> {
        let deadline = self.deadline();
        let mut last = String::new();
        for attempt in 0..LOCK_ATTEMPTS {
            // The first attempt is made even with no time left: a store
            // nobody else holds is written at once.
            if attempt > 0 && Instant::now() >= deadline {
                break;
            }
            let attempt = (|| {
                self.wait_until(deadline)?;
                let tx = self
                    .conn
                    .transaction_with_behavior(TransactionBehavior::Immediate)?;
                let value = f(&tx)?;
                tx.commit()?;
                Ok(value)
            })();
            match attempt {
                Ok(v) => return Ok(v),
                Err(WriteError::Busy(e)) => last = e,
                Err(WriteError::Other(e)) => return Err(e),
            }
        }
        Err(StoreError::Busy {
            waited: self.lock_wait,
            reason: last,
        })
    }

    /// Append an audit record; returns its sequence number once committed.
    pub(crate) fn audit(&mut self, e: &Entry<'_>) -> Result<i64, StoreError> {
        self.write(|tx| append(tx, e, None))
    }

    /// Every audit record, in order.
    pub fn records(&self) -> Result<Vec<AuditRecord>, StoreError> {
        self.read(records)
    }

    /// The last `n` audit records, in order, and how many the log holds:
    /// reads no more than `n` records, however long the log.
    pub fn last_records(&self, n: usize) -> Result<(Vec<AuditRecord>, i64), StoreError> {
        self.read(|conn| {
            let total: i64 = conn.query_row("SELECT COUNT(*) FROM audit", [], |r| r.get(0))?;
            let first: i64 = conn.query_row(
                "SELECT COALESCE(MIN(seq), 0) FROM (SELECT seq FROM audit ORDER BY seq DESC LIMIT ?1)",
                [i64::try_from(n).unwrap_or(i64::MAX)],
                |r| r.get(0),
            )?;
            if n == 0 || total == 0 {
                return Ok((Vec::new(), total));
            }
            Ok((records_from(conn, first)?, total))
        })
    }

    /// The cents `principal` paid on `day`, in every run. Only a hint
    /// (it may be stale by the time it is used): `Store::pay` reads the
    /// total again under the write lock.
    pub fn paid_on(&self, principal: &str, day: &str) -> Result<i64, StoreError> {
        self.read(|conn| paid_on(conn, principal, day))
    }

    /// Make a payment if the day's total leaves room for it: in one write
    /// transaction, read what `e.principal` paid on the payment's day and,
    /// if the payment keeps it within `p.max_day_cents`, write its ledger
    /// row and its audit record `e` (which commits to the row); if not,
    /// write only a denial's audit record, whose rule is `over(today)`.
    pub(crate) fn pay(
        &mut self,
        e: &Entry<'_>,
        p: &NewPayment<'_>,
        over: &dyn Fn(i64) -> String,
    ) -> Result<Paid, StoreError> {
        let day = day_of(p.time_ms);
        self.write(|tx| {
            let today = paid_on(tx, e.principal, &day)?;
            if today.saturating_add(p.cents) > p.max_day_cents {
                let rule = over(today);
                let denied = Entry {
                    decision: Decision::Denied,
                    rule: &rule,
                    ..e.clone()
                };
                let seq = append(tx, &denied, None)?;
                return Ok(Paid::OverDayCap { today, seq });
            }
            let seq = next_seq(tx)?.0;
            tx.execute(
                "INSERT INTO ledger (time_ms, day, principal, payee, cents, currency, memo, audit_seq) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![p.time_ms, day, e.principal, p.payee, p.cents, p.currency, p.memo, seq],
            )?;
            let row = LedgerRow {
                id: tx.last_insert_rowid(),
                time_ms: p.time_ms,
                day: day.clone(),
                principal: e.principal.to_string(),
                payee: p.payee.to_string(),
                cents: p.cents,
                currency: p.currency.to_string(),
                memo: p.memo.to_string(),
                audit_seq: seq,
            };
            append(tx, e, Some(&row))?;
            Ok(Paid::Made { id: row.id, seq })
        })
    }

    /// Every payment, in order.
    pub fn ledger(&self) -> Result<Vec<Payment>, StoreError> {
        Ok(self
            .read(ledger_rows)?
            .into_iter()
            .map(|r| (r.id, r.principal, r.payee, r.cents, r.currency, r.memo))
            .collect())
    }

    /// An employee: name, manager, and fields (a JSON object of strings).
    pub(crate) fn employee(
        &self,
        id: &str,
    ) -> Result<Option<(String, Option<String>, String)>, StoreError> {
        self.read(|conn| {
            conn.query_row(
                "SELECT name, manager, fields FROM employees WHERE id = ?1",
                params![id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
        })
    }

    /// The ids of `manager`'s direct and indirect reports, in order.
    pub(crate) fn reports(&self, manager: &str) -> Result<Vec<String>, StoreError> {
        self.read(|conn| {
            let mut st = conn.prepare(
                "WITH RECURSIVE chain(id) AS (
                   SELECT id FROM employees WHERE manager = ?1
                   UNION SELECT e.id FROM employees e JOIN chain c ON e.manager = c.id
                 ) SELECT id FROM chain ORDER BY id",
            )?;
            let rows = st.query_map(params![manager], |r| r.get::<_, String>(0))?;
            rows.collect()
        })
    }

    /// Every employee id, in order.
    pub(crate) fn employee_ids(&self) -> Result<Vec<String>, StoreError> {
        self.read(|conn| {
            let mut st = conn.prepare("SELECT id FROM employees ORDER BY id")?;
            let rows = st.query_map([], |r| r.get::<_, String>(0))?;
            rows.collect()
        })
    }
}

fn schema_version(conn: &Connection) -> rusqlite::Result<Option<String>> {
    let has_meta: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
        [],
        |r| r.get(0),
    )?;
    if has_meta == 0 {
        return Ok(None);
    }
    let version: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = 'schema'", [], |r| {
            r.get(0)
        })
        .optional()?;
    Ok(Some(version.unwrap_or_else(|| "none".into())))
}

fn paid_on(conn: &Connection, principal: &str, day: &str) -> rusqlite::Result<i64> {
    conn.query_row(
        "SELECT coalesce(sum(cents), 0) FROM ledger WHERE principal = ?1 AND day = ?2",
        params![principal, day],
        |r| r.get(0),
    )
}

/// Every audit record, in order.
fn records(conn: &Connection) -> rusqlite::Result<Vec<AuditRecord>> {
    records_from(conn, i64::MIN)
}

/// The audit records from sequence number `first` on, in order.
fn records_from(conn: &Connection, first: i64) -> rusqlite::Result<Vec<AuditRecord>> {
    let mut st = conn.prepare(
        "SELECT seq, time_ms, principal, program, operation, arguments, decision, rule, ledger_id, ledger_hash, prev_hash, hash FROM audit WHERE seq >= ?1 ORDER BY seq",
    )?;
    let rows = st.query_map([first], |r| {
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
    })?;
    rows.collect()
}

fn ledger_rows(conn: &Connection) -> rusqlite::Result<Vec<LedgerRow>> {
    let mut st = conn.prepare(
        "SELECT id, time_ms, day, principal, payee, cents, currency, memo, audit_seq FROM ledger ORDER BY id",
    )?;
    let rows = st.query_map([], |r| {
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
    })?;
    rows.collect()
}

/// The sequence number the next record takes, and the hash it links to.
fn next_seq(tx: &Transaction<'_>) -> rusqlite::Result<(i64, String)> {
    let last: Option<(i64, String)> = tx
        .query_row(
            "SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    Ok(match last {
        Some((s, h)) => (s.saturating_add(1), h),
        None => (1, GENESIS.to_string()),
    })
}

/// Append the record of `e`, committing to `payment`'s ledger row if
/// there is one; returns its sequence number.
fn append(
    tx: &Transaction<'_>,
    e: &Entry<'_>,
    payment: Option<&LedgerRow>,
) -> Result<i64, WriteError> {
    let (seq, prev_hash) = next_seq(tx)?;
    let mut r = AuditRecord {
        seq,
        time_ms: now_ms(),
        principal: e.principal.to_string(),
        program: e.program.to_string(),
        operation: e.operation.to_string(),
        arguments: e.arguments.to_string(),
        decision: e.decision.as_str().to_string(),
        rule: e.rule.to_string(),
        ledger_id: payment.map(|p| p.id),
        ledger_hash: payment.map(LedgerRow::hash).unwrap_or_default(),
        prev_hash,
        hash: String::new(),
    };
    r.hash = record_hash(&r);
    tx.execute(
        "INSERT INTO audit (seq, time_ms, principal, program, operation, arguments, decision, rule, ledger_id, ledger_hash, prev_hash, hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        params![r.seq, r.time_ms, r.principal, r.program, r.operation, r.arguments, r.decision, r.rule, r.ledger_id, r.ledger_hash, r.prev_hash, r.hash],
    )?;
    Ok(seq)
}

#[cfg(test)]
mod tests;
