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
//! reordered. Invariant: [`Store::audit`] returns only once the record is
//! committed; a caller that cannot get a record committed denies the
//! operation.

use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OptionalExtension, Transaction, params};
use sha2::{Digest, Sha256};

/// The schema this code writes and reads.
pub const SCHEMA_VERSION: i64 = 1;

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
    /// `allowed` or `denied`.
    pub decision: String,
    /// The rule that decided.
    pub rule: String,
    /// The previous record's hash.
    pub prev_hash: String,
    /// This record's hash.
    pub hash: String,
}

/// What to write in a new audit record.
#[derive(Clone, Debug)]
pub struct Entry<'a> {
    /// For whom.
    pub principal: &'a str,
    /// The program's hash.
    pub program: &'a str,
    /// `Effect.op`.
    pub operation: &'a str,
    /// The arguments, redacted.
    pub arguments: &'a str,
    /// `allowed` or `denied`.
    pub decision: &'a str,
    /// The rule that decided.
    pub rule: &'a str,
}

/// One ledger entry: id, principal, payee, cents, currency, memo.
pub type Payment = (i64, String, String, i64, String, String);

/// An open store.
pub struct Store {
    conn: Connection,
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

fn record_hash(r: &AuditRecord) -> String {
    // Fields are length-prefixed so that no two records hash the same text.
    let mut text = String::new();
    for f in [
        r.seq.to_string(),
        r.time_ms.to_string(),
        r.principal.clone(),
        r.program.clone(),
        r.operation.clone(),
        r.arguments.clone(),
        r.decision.clone(),
        r.rule.clone(),
        r.prev_hash.clone(),
    ] {
        text.push_str(&format!("{}:{f};", f.len()));
    }
    sha256_hex(text.as_bytes())
}

fn err(e: rusqlite::Error) -> String {
    e.to_string()
}

impl Store {
    /// Open the store at `path`, creating it with its schema and `seed`
    /// (SQL text) if it does not exist yet.
    pub fn open(path: &str, seed: Option<&str>) -> Result<Store, String> {
        let conn =
            Connection::open(path).map_err(|e| format!("cannot open the store {path}: {e}"))?;
        Store::init(conn, seed)
    }

    /// A store in memory (for tests and dry runs), created with `seed`.
    pub fn in_memory(seed: Option<&str>) -> Result<Store, String> {
        Store::init(Connection::open_in_memory().map_err(err)?, seed)
    }

    fn init(mut conn: Connection, seed: Option<&str>) -> Result<Store, String> {
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(err)?;
        let has_meta: bool = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map_err(err)?
            > 0;
        if has_meta {
            let version: Option<String> = conn
                .query_row("SELECT value FROM meta WHERE key = 'schema'", [], |r| {
                    r.get(0)
                })
                .optional()
                .map_err(err)?;
            if version.as_deref() != Some(&SCHEMA_VERSION.to_string()) {
                return Err(format!(
                    "expected a store of schema version {SCHEMA_VERSION}, found version {}",
                    version.unwrap_or_else(|| "none".into())
                ));
            }
        } else {
            let tx = conn.transaction().map_err(err)?;
            tx.execute_batch(SCHEMA).map_err(err)?;
            tx.execute(
                "INSERT INTO meta (key, value) VALUES ('schema', ?1)",
                params![SCHEMA_VERSION.to_string()],
            )
            .map_err(err)?;
            if let Some(seed) = seed {
                tx.execute_batch(seed)
                    .map_err(|e| format!("the seed's SQL failed: {e}"))?;
            }
            tx.commit().map_err(err)?;
        }
        Ok(Store { conn })
    }

    /// Append an audit record; returns its sequence number once committed.
    pub fn audit(&mut self, e: &Entry<'_>) -> Result<i64, String> {
        let tx = self.conn.transaction().map_err(err)?;
        let seq = append(&tx, e)?;
        tx.commit().map_err(err)?;
        Ok(seq)
    }

    /// Every audit record, in order.
    pub fn records(&self) -> Result<Vec<AuditRecord>, String> {
        let mut st = self
            .conn
            .prepare("SELECT seq, time_ms, principal, program, operation, arguments, decision, rule, prev_hash, hash FROM audit ORDER BY seq")
            .map_err(err)?;
        let rows = st
            .query_map([], |r| {
                Ok(AuditRecord {
                    seq: r.get(0)?,
                    time_ms: r.get(1)?,
                    principal: r.get(2)?,
                    program: r.get(3)?,
                    operation: r.get(4)?,
                    arguments: r.get(5)?,
                    decision: r.get(6)?,
                    rule: r.get(7)?,
                    prev_hash: r.get(8)?,
                    hash: r.get(9)?,
                })
            })
            .map_err(err)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(err)
    }

    /// Check the audit chain: `Ok(n)` with the number of records, or the
    /// first place where it is broken.
    pub fn verify(&self) -> Result<usize, String> {
        let records = self.records()?;
        let mut prev = GENESIS.to_string();
        for (i, r) in records.iter().enumerate() {
            let want_seq = i64::try_from(i).unwrap_or(i64::MAX) + 1;
            if r.seq != want_seq {
                return Err(format!(
                    "record {want_seq} is missing (the next record is {})",
                    r.seq
                ));
            }
            if r.prev_hash != prev {
                return Err(format!(
                    "record {} does not link to record {}: the log was changed there",
                    r.seq,
                    r.seq - 1
                ));
            }
            if record_hash(r) != r.hash {
                return Err(format!(
                    "record {} does not match its hash: it was edited",
                    r.seq
                ));
            }
            prev = r.hash.clone();
        }
        Ok(records.len())
    }

    /// The cents `principal` paid on `day`, in every run.
    pub fn paid_on(&self, principal: &str, day: &str) -> Result<i64, String> {
        self.conn
            .query_row(
                "SELECT coalesce(sum(cents), 0) FROM ledger WHERE principal = ?1 AND day = ?2",
                params![principal, day],
                |r| r.get(0),
            )
            .map_err(err)
    }

    /// Record a payment and its audit record in one transaction; returns
    /// the ledger id and the audit sequence number.
    pub fn pay(
        &mut self,
        e: &Entry<'_>,
        payee: &str,
        cents: i64,
        currency: &str,
        memo: &str,
    ) -> Result<(i64, i64), String> {
        let tx = self.conn.transaction().map_err(err)?;
        let seq = append(&tx, e)?;
        let now = now_ms();
        tx.execute(
            "INSERT INTO ledger (time_ms, day, principal, payee, cents, currency, memo, audit_seq) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![now, day_of(now), e.principal, payee, cents, currency, memo, seq],
        )
        .map_err(err)?;
        let id = tx.last_insert_rowid();
        tx.commit().map_err(err)?;
        Ok((id, seq))
    }

    /// Every payment, in order.
    pub fn ledger(&self) -> Result<Vec<Payment>, String> {
        let mut st = self
            .conn
            .prepare("SELECT id, principal, payee, cents, currency, memo FROM ledger ORDER BY id")
            .map_err(err)?;
        let rows = st
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            })
            .map_err(err)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(err)
    }

    /// An employee: name, manager, and fields (a JSON object of strings).
    pub fn employee(&self, id: &str) -> Result<Option<(String, Option<String>, String)>, String> {
        self.conn
            .query_row(
                "SELECT name, manager, fields FROM employees WHERE id = ?1",
                params![id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(err)
    }

    /// The ids of `manager`'s direct and indirect reports, in order.
    pub fn reports(&self, manager: &str) -> Result<Vec<String>, String> {
        let mut st = self
            .conn
            .prepare(
                "WITH RECURSIVE chain(id) AS (
                   SELECT id FROM employees WHERE manager = ?1
                   UNION SELECT e.id FROM employees e JOIN chain c ON e.manager = c.id
                 ) SELECT id FROM chain ORDER BY id",
            )
            .map_err(err)?;
        let rows = st
            .query_map(params![manager], |r| r.get::<_, String>(0))
            .map_err(err)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(err)
    }

    /// Every employee id, in order.
    pub fn employee_ids(&self) -> Result<Vec<String>, String> {
        let mut st = self
            .conn
            .prepare("SELECT id FROM employees ORDER BY id")
            .map_err(err)?;
        let rows = st.query_map([], |r| r.get::<_, String>(0)).map_err(err)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(err)
    }

    /// Run SQL directly (for tests that tamper with the store).
    pub fn execute_unchecked(&self, sql: &str) -> Result<(), String> {
        self.conn.execute_batch(sql).map_err(err)
    }
}

fn append(tx: &Transaction<'_>, e: &Entry<'_>) -> Result<i64, String> {
    let last: Option<(i64, String)> = tx
        .query_row(
            "SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()
        .map_err(err)?;
    let (seq, prev_hash) = match last {
        Some((s, h)) => (s + 1, h),
        None => (1, GENESIS.to_string()),
    };
    let mut r = AuditRecord {
        seq,
        time_ms: now_ms(),
        principal: e.principal.to_string(),
        program: e.program.to_string(),
        operation: e.operation.to_string(),
        arguments: e.arguments.to_string(),
        decision: e.decision.to_string(),
        rule: e.rule.to_string(),
        prev_hash,
        hash: String::new(),
    };
    r.hash = record_hash(&r);
    tx.execute(
        "INSERT INTO audit (seq, time_ms, principal, program, operation, arguments, decision, rule, prev_hash, hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![r.seq, r.time_ms, r.principal, r.program, r.operation, r.arguments, r.decision, r.rule, r.prev_hash, r.hash],
    )
    .map_err(err)?;
    Ok(seq)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(op: &str) -> Entry<'_> {
        Entry {
            principal: "e1",
            program: "p",
            operation: op,
            arguments: "[]",
            decision: "allowed",
            rule: "granted",
        }
    }

    #[test]
    fn the_chain_verifies_and_detects_edits_and_deletions() {
        let Ok(mut s) = Store::in_memory(None) else {
            panic!("store")
        };
        for op in ["Log.info", "Pay.pay", "Records.read"] {
            assert!(s.audit(&entry(op)).is_ok());
        }
        assert_eq!(s.verify(), Ok(3));
        // Updates and deletes are refused by the store itself.
        assert!(
            s.execute_unchecked("UPDATE audit SET decision = 'denied' WHERE seq = 2")
                .is_err()
        );
        assert!(
            s.execute_unchecked("DELETE FROM audit WHERE seq = 2")
                .is_err()
        );
        // Someone who drops the triggers can edit, and is found out.
        assert!(
            s.execute_unchecked("DROP TRIGGER audit_no_update; DROP TRIGGER audit_no_delete;")
                .is_ok()
        );
        assert!(
            s.execute_unchecked("UPDATE audit SET decision = 'denied' WHERE seq = 2")
                .is_ok()
        );
        assert_eq!(
            s.verify(),
            Err("record 2 does not match its hash: it was edited".into())
        );
        assert!(
            s.execute_unchecked("DELETE FROM audit WHERE seq = 2")
                .is_ok()
        );
        assert_eq!(
            s.verify(),
            Err("record 2 is missing (the next record is 3)".into())
        );
    }

    #[test]
    fn days_are_utc_calendar_days() {
        assert_eq!(day_of(0), "1970-01-01");
        assert_eq!(day_of(951_782_400_000), "2000-02-29");
        assert_eq!(day_of(1_796_083_200_000), "2026-12-01");
    }

    #[test]
    fn reports_are_direct_and_indirect() {
        let seed = "INSERT INTO employees (id, name, manager) VALUES
          ('boss', 'B', NULL), ('m1', 'M', 'boss'), ('w1', 'W', 'm1'), ('w2', 'X', 'm1'), ('other', 'O', NULL);";
        let Ok(s) = Store::in_memory(Some(seed)) else {
            panic!("store")
        };
        assert_eq!(
            s.reports("boss"),
            Ok(vec!["m1".into(), "w1".into(), "w2".into()])
        );
        assert_eq!(s.reports("w1"), Ok(vec![]));
    }
}
