//! The store on PostgreSQL: one database that every host and process of
//! a team shares, reached with `tokio-postgres` on a runtime of the
//! store's own (the host is synchronous; each call waits for its answer).
//!
//! Concurrency: a write transaction takes the database's one write lock
//! first, a transaction-scoped advisory lock ([`WRITE_LOCK`]), so writers
//! take turns across every connection, as `BEGIN IMMEDIATE` makes them
//! on SQLite; each statement after it sees every write committed before
//! it (`READ COMMITTED`). The audit chain needs this order in any case
//! (each record links to the one before), and it makes the day cap's sum
//! and the payment's row one step no other writer can come between.
//! Reads are `REPEATABLE READ READ ONLY` transactions: one view of the
//! database, never waiting for a writer.
//!
//! Bounds: connecting takes at most the options' `connect_timeout`; the
//! lock is waited for until the store's deadline (`lock_timeout`); each
//! statement runs at most `statement_timeout` on the server; and the host
//! waits for the whole transaction's answers no longer than the deadline
//! plus `statement_timeout`, so a server that hangs cannot hold a run.
//! A connection that fails or times out is dropped (the server rolls its
//! transaction back) and made again at the next use.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use writ_runtime::clock::Instant;

use tokio::runtime::Runtime;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::{FromSqlOwned, ToSql};
use tokio_postgres::{Client, Config, NoTls, Row, Statement};

use super::location::{PostgresOptions, PostgresUrl};
use super::schema::Dialect;
use super::{AuditRecord, Employee, LedgerRow, StoreError, Tx, WriteError};

/// The advisory lock every write transaction holds: one key for the
/// database ("Writ" in ASCII).
pub(super) const WRITE_LOCK: i64 = 0x5772_6974;

/// The longest bound set on the server (a wait for the lock, a
/// statement): half of the largest `int` of milliseconds, so that two of
/// them added stay one.
const LONGEST_BOUND: Duration = Duration::from_millis(i32::MAX as u64 / 2);

/// An open PostgreSQL store.
pub(super) struct Postgres {
    config: Config,
    shown: String,
    statement_timeout: Duration,
    connect_timeout: Duration,
    /// The connection, if there is one that has not failed.
    client: Mutex<Option<Conn>>,
    /// The runtime the connection's I/O runs on; `None` only while
    /// dropped (shut down in the background, so that a store may be
    /// dropped on any thread).
    rt: Option<Runtime>,
}

impl Drop for Postgres {
    fn drop(&mut self) {
        if let Ok(mut client) = self.client.lock() {
            client.take();
        }
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}

/// A connection, and the statements prepared on it (each of the store's
/// statements is parsed and planned once per connection, not at every
/// use: half the round trips of a transaction).
struct Conn {
    client: Client,
    prepared: HashMap<&'static str, Statement>,
    /// The task that drives the connection's socket: aborted when the
    /// connection is given up, which closes the socket at once (the
    /// server then ends its session and rolls back what it holds, and
    /// its advisory lock with it).
    task: tokio::task::JoinHandle<()>,
}

impl Conn {
    /// Close the connection now, on the store's runtime.
    fn close(self, rt: &Runtime) {
        self.task.abort();
        drop(self.client);
        let _ = rt.block_on(self.task);
    }
}

/// What a failed call says, and whether the connection is lost with it.
fn failed(e: &tokio_postgres::Error, statement_timeout: Duration) -> (WriteError, bool) {
    let code = e.code();
    if code == Some(&SqlState::LOCK_NOT_AVAILABLE) {
        return (WriteError::Busy(reason(e)), false);
    }
    if code == Some(&SqlState::QUERY_CANCELED) {
        return (
            WriteError::Other(StoreError::Database {
                reason: format!(
                    "the store took longer than its statement_timeout ({} ms): {}",
                    statement_timeout.as_millis(),
                    reason(e)
                ),
            }),
            false,
        );
    }
    // A server shutting down (class 57P) or a connection gone (class 08,
    // or no answer at all): the connection is not used again.
    let lost = e.is_closed()
        || code.is_none_or(|c| c.code().starts_with("57P") || c.code().starts_with("08"));
    let reason = if lost {
        format!("the connection to the store was lost: {}", reason(e))
    } else {
        reason(e)
    };
    (WriteError::Other(StoreError::Database { reason }), lost)
}

/// The database's message, or the client's with its cause.
fn reason(e: &tokio_postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return match db.detail() {
            Some(detail) => format!("{} ({detail})", db.message()),
            None => db.message().to_string(),
        };
    }
    match std::error::Error::source(e) {
        Some(cause) => format!("{e}: {cause}"),
        None => e.to_string(),
    }
}

impl Postgres {
    /// Connect to the database at `url`.
    pub(super) fn open(
        url: &PostgresUrl,
        options: &PostgresOptions,
    ) -> Result<Postgres, StoreError> {
        let shown = url.shown();
        let open_error = |reason: String| StoreError::Open {
            path: shown.clone(),
            reason,
        };
        let mut config: Config = shown
            .parse()
            .map_err(|e: tokio_postgres::Error| open_error(e.to_string()))?;
        if let Some(password) = &options.password {
            config.password(password);
        }
        config
            .connect_timeout(options.connect_timeout.min(LONGEST_BOUND))
            .application_name("writ")
            .keepalives(true)
            .keepalives_idle(Duration::from_secs(30));
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| open_error(e.to_string()))?;
        let store = Postgres {
            config,
            shown: shown.clone(),
            // PostgreSQL counts its timeouts in milliseconds, in an `int`;
            // the lock wait and the statement bound are set as their sum.
            statement_timeout: options.statement_timeout.min(LONGEST_BOUND),
            connect_timeout: options.connect_timeout.min(LONGEST_BOUND),
            client: Mutex::new(None),
            rt: Some(rt),
        };
        let conn = store.connect().map_err(open_error)?;
        if let Ok(mut slot) = store.client.lock() {
            *slot = Some(conn);
        }
        Ok(store)
    }

    /// A new connection, its I/O driven on the store's runtime.
    fn connect(&self) -> Result<Conn, String> {
        let rt = self.rt.as_ref().ok_or("the store is closed")?;
        let bound = self.connect_timeout;
        // The timer is made inside the runtime, which drives it.
        let connecting = self.config.connect(NoTls);
        match rt.block_on(async { tokio::time::timeout(bound, connecting).await }) {
            Ok(Ok((client, connection))) => {
                let task = rt.spawn(async move {
                    let _ = connection.await;
                });
                Ok(Conn {
                    client,
                    prepared: HashMap::new(),
                    task,
                })
            }
            Ok(Err(e)) => Err(reason(&e)),
            Err(_) => Err(format!(
                "the server did not answer within the connect_timeout ({} ms)",
                bound.as_millis()
            )),
        }
    }

    /// Whether there is a connection with no transaction open.
    pub(super) fn is_idle(&self) -> bool {
        self.client
            .lock()
            .is_ok_and(|c| c.as_ref().is_some_and(|c| !c.client.is_closed()))
    }

    /// Run `f` in a transaction begun by `begin`: committed if `f`
    /// returns a value (and `commit`), rolled back if not. The
    /// connection is made again first if it was lost, and once more if it
    /// is found lost at the transaction's first statement (a connection
    /// kept while the server restarted: nothing was written on it).
    fn transaction<T>(
        &self,
        begin: &str,
        commit: bool,
        deadline: Instant,
        f: impl FnOnce(&mut dyn Tx) -> Result<T, WriteError>,
    ) -> Result<T, WriteError> {
        let rt = self.rt.as_ref().ok_or_else(|| {
            WriteError::Other(StoreError::Database {
                reason: "the store is closed".into(),
            })
        })?;
        let mut slot = self.client.lock().map_err(|_| {
            WriteError::Other(StoreError::Database {
                reason: "the store's connection was left unusable by a failed thread".into(),
            })
        })?;
        let mut f = Some(f);
        for attempt in 0..2 {
            if slot.as_ref().is_none_or(|c| c.client.is_closed()) {
                if let Some(old) = slot.take() {
                    old.close(rt);
                }
                *slot = Some(self.connect().map_err(|reason| StoreError::Open {
                    path: self.shown.clone(),
                    reason,
                })?);
            }
            let Some(conn) = slot.as_mut() else {
                break;
            };
            let now = Instant::now();
            let lock_ms = deadline
                .saturating_duration_since(now)
                .min(LONGEST_BOUND)
                .as_millis()
                .max(1);
            let statement_ms = self.statement_timeout.as_millis().max(1);
            let mut on = On {
                rt,
                client: &conn.client,
                prepared: &mut conn.prepared,
                until: deadline.max(now) + self.statement_timeout,
                statement_timeout: self.statement_timeout,
                lost: false,
            };
            // The lock's wait is the lock wait; each statement after it
            // has the statement bound; and a session left in the middle of
            // a transaction (its host gone quiet) is ended by the server.
            let began = on.batch(&format!(
                "{begin}; SET LOCAL lock_timeout = {lock_ms}; SET LOCAL statement_timeout = {}; SET LOCAL idle_in_transaction_session_timeout = {}; {}SET LOCAL statement_timeout = {statement_ms}",
                lock_ms + statement_ms,
                lock_ms + statement_ms,
                if commit {
                    format!("SELECT pg_advisory_xact_lock({WRITE_LOCK}); ")
                } else {
                    String::new()
                },
            ));
            if began.is_err() && on.lost && attempt == 0 {
                // Nothing was written: try once on a new connection.
                if let Some(old) = slot.take() {
                    old.close(rt);
                }
                continue;
            }
            let result = match began {
                Err(e) => Err(e),
                Ok(()) => match f.take() {
                    Some(f) => f(&mut on).and_then(|value| {
                        on.batch(if commit { "COMMIT" } else { "ROLLBACK" })
                            .map(|()| value)
                            .map_err(|e| match e {
                                // Lost while the commit was on its way:
                                // the server decides what was kept.
                                WriteError::Other(StoreError::Database { reason })
                                    if commit && on.lost =>
                                {
                                    WriteError::Other(StoreError::Uncertain { reason })
                                }
                                e => e,
                            })
                    }),
                    None => break,
                },
            };
            if result.is_err() && !on.lost {
                let _ = on.batch("ROLLBACK");
            }
            let lost = on.lost;
            if lost && let Some(old) = slot.take() {
                // Closed now: the server rolls back what it still holds.
                old.close(rt);
            }
            return result.map_err(|e| match e {
                WriteError::Other(StoreError::Database { reason }) if lost => {
                    WriteError::Other(StoreError::Database {
                        reason: format!("{reason}; what the transaction wrote was rolled back"),
                    })
                }
                e => e,
            });
        }
        Err(WriteError::Other(StoreError::Database {
            reason: "the store has no connection".into(),
        }))
    }

    /// Run `f` in a read transaction (one view, never waiting for a
    /// writer).
    pub(super) fn read<T>(
        &self,
        deadline: Instant,
        f: impl FnOnce(&mut dyn Tx) -> Result<T, WriteError>,
    ) -> Result<T, WriteError> {
        self.transaction(
            "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
            false,
            deadline,
            f,
        )
    }

    /// One attempt at `f` in a write transaction holding the write lock.
    pub(super) fn write<T>(
        &mut self,
        deadline: Instant,
        f: &mut impl FnMut(&mut dyn Tx) -> Result<T, WriteError>,
    ) -> Result<T, WriteError> {
        self.transaction("BEGIN ISOLATION LEVEL READ COMMITTED", true, deadline, f)
    }

    /// Run `sql` on the connection as it is, outside any transaction of
    /// the store's.
    pub(super) fn execute_raw(&mut self, sql: &str) -> Result<(), StoreError> {
        let deadline = Instant::now();
        let rt = self.rt.as_ref().ok_or(StoreError::Missing)?;
        let mut slot = self.client.lock().map_err(|_| StoreError::Database {
            reason: "the store's connection was left unusable by a failed thread".into(),
        })?;
        let Some(conn) = slot.as_mut() else {
            return Err(StoreError::Database {
                reason: "the store has no connection".into(),
            });
        };
        let mut on = On {
            rt,
            client: &conn.client,
            prepared: &mut conn.prepared,
            until: deadline + self.statement_timeout,
            statement_timeout: self.statement_timeout,
            lost: false,
        };
        on.batch(sql).map_err(|e| match e {
            WriteError::Busy(reason) => StoreError::Database { reason },
            WriteError::Other(e) => e,
        })
    }
}

/// The primitive reads and writes, on a connection in a transaction.
struct On<'a> {
    rt: &'a Runtime,
    client: &'a Client,
    prepared: &'a mut HashMap<&'static str, Statement>,
    /// No answer is waited for past this moment.
    until: Instant,
    statement_timeout: Duration,
    /// Whether the connection failed (it is dropped after the
    /// transaction).
    lost: bool,
}

type Params<'p> = &'p [&'p (dyn ToSql + Sync)];

impl On<'_> {
    /// Wait for `work`'s answer until [`On::until`] at most.
    fn run<T>(
        &mut self,
        work: impl std::future::Future<Output = Result<T, tokio_postgres::Error>>,
    ) -> Result<T, WriteError> {
        if self.lost {
            return Err(WriteError::Other(StoreError::Database {
                reason: "the connection to the store was lost".into(),
            }));
        }
        let left = self.until.saturating_duration_since(Instant::now());
        match self
            .rt
            .block_on(async { tokio::time::timeout(left, work).await })
        {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => {
                let (error, lost) = failed(&e, self.statement_timeout);
                self.lost |= lost;
                Err(error)
            }
            Err(_) => {
                self.lost = true;
                Err(WriteError::Other(StoreError::Database {
                    reason: format!(
                        "the store did not answer within its statement_timeout ({} ms) beyond the lock wait; the connection was dropped",
                        self.statement_timeout.as_millis()
                    ),
                }))
            }
        }
    }

    /// `sql`, prepared on this connection (once).
    fn statement(&mut self, sql: &'static str) -> Result<Statement, WriteError> {
        if let Some(st) = self.prepared.get(sql) {
            return Ok(st.clone());
        }
        let client = self.client;
        let st = self.run(client.prepare(sql))?;
        self.prepared.insert(sql, st.clone());
        Ok(st)
    }

    fn rows(&mut self, sql: &'static str, params: Params<'_>) -> Result<Vec<Row>, WriteError> {
        let st = self.statement(sql)?;
        let client = self.client;
        self.run(client.query(&st, params))
    }

    fn row(&mut self, sql: &'static str, params: Params<'_>) -> Result<Option<Row>, WriteError> {
        let st = self.statement(sql)?;
        let client = self.client;
        self.run(client.query_opt(&st, params))
    }

    fn one<T: FromSqlOwned>(
        &mut self,
        sql: &'static str,
        params: Params<'_>,
    ) -> Result<T, WriteError> {
        let st = self.statement(sql)?;
        let client = self.client;
        let row = self.run(client.query_one(&st, params))?;
        get(&row, 0)
    }

    fn execute(&mut self, sql: &'static str, params: Params<'_>) -> Result<u64, WriteError> {
        let st = self.statement(sql)?;
        let client = self.client;
        self.run(client.execute(&st, params))
    }
}

/// Column `i` of `row`, as a `T`.
fn get<T: FromSqlOwned>(row: &Row, i: usize) -> Result<T, WriteError> {
    row.try_get(i).map_err(|e| {
        WriteError::Other(StoreError::Database {
            reason: e.to_string(),
        })
    })
}

fn record(r: &Row) -> Result<AuditRecord, WriteError> {
    Ok(AuditRecord {
        seq: get(r, 0)?,
        time_ms: get(r, 1)?,
        principal: get(r, 2)?,
        program: get(r, 3)?,
        operation: get(r, 4)?,
        arguments: get(r, 5)?,
        decision: get(r, 6)?,
        rule: get(r, 7)?,
        ledger_id: get(r, 8)?,
        ledger_hash: get(r, 9)?,
        prev_hash: get(r, 10)?,
        hash: get(r, 11)?,
    })
}

fn ledger_row(r: &Row) -> Result<LedgerRow, WriteError> {
    Ok(LedgerRow {
        id: get(r, 0)?,
        time_ms: get(r, 1)?,
        day: get(r, 2)?,
        principal: get(r, 3)?,
        payee: get(r, 4)?,
        cents: get(r, 5)?,
        currency: get(r, 6)?,
        memo: get(r, 7)?,
        audit_seq: get(r, 8)?,
    })
}

impl Tx for On<'_> {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn batch(&mut self, sql: &str) -> Result<(), WriteError> {
        let client = self.client;
        self.run(client.batch_execute(sql))
    }

    fn has_meta(&mut self) -> Result<bool, WriteError> {
        // Read from the catalog's table, under the statement's snapshot:
        // `to_regclass` may answer from a cache made before the write
        // lock was taken, and miss a table another host just created.
        self.one(
            "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = 'meta')",
            &[],
        )
    }

    fn meta(&mut self, key: &str) -> Result<Option<String>, WriteError> {
        match self.row("SELECT value FROM meta WHERE key = $1", &[&key])? {
            Some(r) => get(&r, 0).map(Some),
            None => Ok(None),
        }
    }

    fn put_meta(&mut self, key: &str, value: &str) -> Result<bool, WriteError> {
        self.execute(
            "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
            &[&key, &value],
        )
        .map(|n| n == 1)
    }

    fn random_hex(&mut self, bytes: usize) -> Result<String, WriteError> {
        // Three version-4 UUIDs (366 random bits from the server's strong
        // source) hashed down to 256 bits.
        let digits = i32::try_from(bytes.min(32) * 2).unwrap_or(64);
        self.one(
            "SELECT left(encode(sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text || gen_random_uuid()::text, 'UTF8')), 'hex'), $1)",
            &[&digits],
        )
    }

    fn last_record(&mut self) -> Result<Option<(i64, String)>, WriteError> {
        match self.row("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1", &[])? {
            Some(r) => Ok(Some((get(&r, 0)?, get(&r, 1)?))),
            None => Ok(None),
        }
    }

    fn insert_record(&mut self, r: &AuditRecord) -> Result<(), WriteError> {
        self.execute(
            "INSERT INTO audit (seq, time_ms, principal, program, operation, arguments, decision, rule, ledger_id, ledger_hash, prev_hash, hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            &[&r.seq, &r.time_ms, &r.principal, &r.program, &r.operation, &r.arguments, &r.decision, &r.rule, &r.ledger_id, &r.ledger_hash, &r.prev_hash, &r.hash],
        )
        .map(|_| ())
    }

    fn next_ledger_id(&mut self) -> Result<i64, WriteError> {
        self.one("SELECT coalesce(max(id), 0) + 1 FROM ledger", &[])
    }

    fn insert_ledger(&mut self, row: &LedgerRow) -> Result<(), WriteError> {
        self.execute(
            "INSERT INTO ledger (id, time_ms, day, principal, payee, cents, currency, memo, audit_seq) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            &[&row.id, &row.time_ms, &row.day, &row.principal, &row.payee, &row.cents, &row.currency, &row.memo, &row.audit_seq],
        )
        .map(|_| ())
    }

    fn paid_on(&mut self, principal: &str, day: &str) -> Result<i64, WriteError> {
        self.one(
            "SELECT coalesce(sum(cents), 0)::bigint FROM ledger WHERE principal = $1 AND day = $2",
            &[&principal, &day],
        )
    }

    fn record_count(&mut self) -> Result<i64, WriteError> {
        self.one("SELECT count(*) FROM audit", &[])
    }

    fn records_from(&mut self, first: i64) -> Result<Vec<AuditRecord>, WriteError> {
        self.rows(
            "SELECT seq, time_ms, principal, program, operation, arguments, decision, rule, ledger_id, ledger_hash, prev_hash, hash FROM audit WHERE seq >= $1 ORDER BY seq",
            &[&first],
        )?
        .iter()
        .map(record)
        .collect()
    }

    fn first_of_last(&mut self, n: i64) -> Result<i64, WriteError> {
        self.one(
            "SELECT coalesce(min(seq), 0) FROM (SELECT seq FROM audit ORDER BY seq DESC LIMIT $1) AS tail",
            &[&n],
        )
    }

    fn record_count_of(&mut self, principal: &str) -> Result<i64, WriteError> {
        self.one(
            "SELECT count(*) FROM audit WHERE principal = $1",
            &[&principal],
        )
    }

    fn last_records_of(&mut self, principal: &str, n: i64) -> Result<Vec<AuditRecord>, WriteError> {
        let mut records = self
            .rows(
                "SELECT seq, time_ms, principal, program, operation, arguments, decision, rule, ledger_id, ledger_hash, prev_hash, hash FROM audit WHERE principal = $1 ORDER BY seq DESC LIMIT $2",
                &[&principal, &n],
            )?
            .iter()
            .map(record)
            .collect::<Result<Vec<_>, _>>()?;
        records.reverse();
        Ok(records)
    }

    fn ledger_rows(&mut self) -> Result<Vec<LedgerRow>, WriteError> {
        self.rows(
            "SELECT id, time_ms, day, principal, payee, cents, currency, memo, audit_seq FROM ledger ORDER BY id",
            &[],
        )?
        .iter()
        .map(ledger_row)
        .collect()
    }

    fn employee(&mut self, id: &str) -> Result<Option<Employee>, WriteError> {
        match self.row(
            "SELECT name, manager, fields FROM employees WHERE id = $1",
            &[&id],
        )? {
            Some(r) => Ok(Some((get(&r, 0)?, get(&r, 1)?, get(&r, 2)?))),
            None => Ok(None),
        }
    }

    fn reports(&mut self, manager: &str) -> Result<Vec<String>, WriteError> {
        // Ordered by bytes, as SQLite orders text, whatever the
        // database's collation.
        self.rows(
            "WITH RECURSIVE chain(id) AS (
               SELECT id FROM employees WHERE manager = $1
               UNION SELECT e.id FROM employees e JOIN chain c ON e.manager = c.id
             ) SELECT id FROM chain ORDER BY id COLLATE \"C\"",
            &[&manager],
        )?
        .iter()
        .map(|r| get(r, 0))
        .collect()
    }

    fn employee_ids(&mut self) -> Result<Vec<String>, WriteError> {
        self.rows("SELECT id FROM employees ORDER BY id COLLATE \"C\"", &[])?
            .iter()
            .map(|r| get(r, 0))
            .collect()
    }
}
