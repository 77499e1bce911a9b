//! The host's store: the audit log, the payment ledger and the employee
//! records, on SQLite (one file, the default), on PostgreSQL (one
//! database that many hosts share), or in the process's memory (for a
//! web page and tests; [`memory`]).
//!
//! Which one a store is on is said by where it is ([`Location`]): a path
//! is a SQLite file, a `postgres://` URL a PostgreSQL database,
//! `memory:NAME` a store in memory. All hold the same schema (`schema.rs`)
//! and give the same guarantees, because everything this module does to a
//! store it does through one set of primitive reads and writes (`Tx`)
//! that each backend implements (`sqlite.rs`, `postgres.rs`,
//! `memory.rs`); the log's chain, the ledger's link into it and the day
//! cap are written once, here.
//!
//! The store is created on first use with its schema (version
//! [`SCHEMA_VERSION`], kept in `meta`), then, if the policy names a seed
//! file, with the seed's SQL, in the same transaction. A store of an
//! older version is refused until a migration brings it up to date
//! ([`Store::migrate`]); one of a newer version, or of version 1 (whose
//! records do not cover the ledger), is refused rather than guessed at.
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
//! Concurrency: every write is one transaction that holds the store's one
//! write lock before it reads anything (SQLite: `BEGIN IMMEDIATE`;
//! PostgreSQL: a transaction-scoped advisory lock, so one writer at a
//! time across every host and process), waiting for it up to the store's
//! lock wait ([`DEFAULT_LOCK_WAIT`], or a policy's) in a few bounded
//! attempts; a write that still cannot get the lock fails whole. Within a
//! run, no wait goes past the run's time (`Store::set_until`); the one
//! place a wait is bounded is `Store::deadline`, which every statement's
//! wait is set from. A payment's check of the day's total, its ledger row
//! and its audit record are one such transaction (`Store::pay`), so runs
//! paying at once, on one host or many, cannot together pass a cap.
//!
//! Invariant: `Store::audit` and `Store::pay` return only once what
//! they wrote is committed; a caller that cannot get a record committed
//! denies the operation. A transaction that fails in any way (the
//! database down, slow, or gone in the middle) is rolled back, by the
//! database if the connection is lost: nothing of it is written.

mod error;
mod location;
pub mod memory;
#[cfg(feature = "postgres")]
mod postgres;
mod schema;
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
mod sqlite;
mod verify;

use std::time::Duration;

use writ_runtime::clock::{Instant, SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

use crate::policy::Decision;

pub use error::StoreError;
pub use location::{
    DEFAULT_CONNECT_TIMEOUT, DEFAULT_STATEMENT_TIMEOUT, Location, PostgresOptions, PostgresUrl,
    sqlite_path_refusal,
};
pub use verify::{Break, Head, HeadError, VerifyError};

use schema::Dialect;

/// The schema this code writes and reads. Version 2 chained the ledger
/// into the audit log (a store of version 1 is refused); version 3 lets
/// the database itself keep one ledger row per payment record
/// ([`Store::migrate`] takes a store of version 2 there).
pub const SCHEMA_VERSION: i64 = 3;

/// How long, in all, a write waits for the store's write lock by default.
pub const DEFAULT_LOCK_WAIT: Duration = Duration::from_secs(10);

/// How many times, at most, a write tries to get the lock within its
/// lock wait (SQLite may report the lock busy before the wait is over,
/// as when two writers would deadlock).
const LOCK_ATTEMPTS: u32 = 4;

/// The longest lock wait: SQLite counts it in milliseconds, in a C `int`.
const LONGEST_LOCK_WAIT: Duration = Duration::from_millis(i32::MAX as u64);

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
    backend: Backend,
    lock_wait: Duration,
    /// No write waits for the lock past this moment (a run's time limit).
    until: Option<Instant>,
    /// What the store holds while it is alive (an engine's count of its
    /// connections): given back when the store is dropped.
    held: Option<Box<dyn Send>>,
}

/// The database a store is on, with its connection.
enum Backend {
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    Sqlite(sqlite::Sqlite),
    /// A store in the process's memory ([`memory`]).
    Memory(memory::Memory),
    /// Boxed: its runtime and configuration are large, and a store is
    /// moved between runs.
    #[cfg(feature = "postgres")]
    Postgres(Box<postgres::Postgres>),
}

/// Why a transaction failed.
pub(crate) enum WriteError {
    /// Another connection held the write lock: the database's reason
    /// (never in a web page, whose one store is in memory).
    #[cfg_attr(all(target_arch = "wasm32", target_os = "unknown"), allow(dead_code))]
    Busy(String),
    /// Anything else.
    Other(StoreError),
}

impl From<StoreError> for WriteError {
    fn from(e: StoreError) -> WriteError {
        WriteError::Other(e)
    }
}

/// The primitive reads and writes of a store, each inside a transaction
/// its backend opened (a write transaction holding the write lock, or a
/// read-only one). Everything else the store does is written over these
/// once, so that both databases keep the same chain and the same caps.
pub(crate) trait Tx {
    /// Which database this is (for the schema's steps).
    fn dialect(&self) -> Dialect;
    /// Run SQL text of one or more statements (a schema step, a seed).
    fn batch(&mut self, sql: &str) -> Result<(), WriteError>;
    /// Whether the store has its `meta` table (an empty database has not).
    fn has_meta(&mut self) -> Result<bool, WriteError>;
    /// A value of `meta`.
    fn meta(&mut self, key: &str) -> Result<Option<String>, WriteError>;
    /// Set a value of `meta` unless the key has one: whether it was set.
    fn put_meta(&mut self, key: &str, value: &str) -> Result<bool, WriteError>;
    /// `bytes` fresh random bytes (at most 32), in lower-case hexadecimal,
    /// from the database's source of randomness (the operating system's).
    fn random_hex(&mut self, bytes: usize) -> Result<String, WriteError>;
    /// The last record's sequence number and hash, if there is one.
    fn last_record(&mut self) -> Result<Option<(i64, String)>, WriteError>;
    /// Insert an audit record as it is.
    fn insert_record(&mut self, r: &AuditRecord) -> Result<(), WriteError>;
    /// The id the next ledger row takes (one past the largest).
    fn next_ledger_id(&mut self) -> Result<i64, WriteError>;
    /// Insert a ledger row as it is.
    fn insert_ledger(&mut self, row: &LedgerRow) -> Result<(), WriteError>;
    /// The cents `principal` paid on `day`.
    fn paid_on(&mut self, principal: &str, day: &str) -> Result<i64, WriteError>;
    /// How many records the log holds.
    fn record_count(&mut self) -> Result<i64, WriteError>;
    /// The records from sequence number `first` on, in order.
    fn records_from(&mut self, first: i64) -> Result<Vec<AuditRecord>, WriteError>;
    /// The smallest of the last `n` records' sequence numbers (0 for none).
    fn first_of_last(&mut self, n: i64) -> Result<i64, WriteError>;
    /// How many records of `principal`'s runs the log holds.
    fn record_count_of(&mut self, principal: &str) -> Result<i64, WriteError>;
    /// The last `n` records of `principal`'s runs, in order.
    fn last_records_of(&mut self, principal: &str, n: i64) -> Result<Vec<AuditRecord>, WriteError>;
    /// Every ledger row, in order.
    fn ledger_rows(&mut self) -> Result<Vec<LedgerRow>, WriteError>;
    /// An employee: name, manager, and fields.
    fn employee(&mut self, id: &str) -> Result<Option<Employee>, WriteError>;
    /// The ids of `manager`'s direct and indirect reports, in order.
    fn reports(&mut self, manager: &str) -> Result<Vec<String>, WriteError>;
    /// Every employee id, in order.
    fn employee_ids(&mut self) -> Result<Vec<String>, WriteError>;
}

/// An employee's name, manager and fields (a JSON object of strings).
pub(crate) type Employee = (String, Option<String>, String);

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
    /// Open the store at `location` (a SQLite file's path, or a
    /// `postgres://` URL: [`Location::parse`]), creating it with its
    /// schema and `seed` (SQL text) if it does not exist yet. A store of
    /// another schema version is refused with a message saying which.
    /// A PostgreSQL store is opened with default [`PostgresOptions`]
    /// (its password from `PGPASSWORD`): [`Store::open_at`] takes others.
    pub fn open(location: &str, seed: Option<&str>) -> Result<Store, StoreError> {
        let location = Location::parse(location)?;
        Store::open_at(&location, &PostgresOptions::from_env(), seed)
    }

    /// [`Store::open`] at a parsed location, with the options a
    /// PostgreSQL store is opened with.
    pub fn open_at(
        location: &Location,
        options: &PostgresOptions,
        seed: Option<&str>,
    ) -> Result<Store, StoreError> {
        let store = Store::connect(location, options)?;
        store.create(seed)
    }

    /// Connect to the store at `location`, without looking at its schema.
    fn connect(location: &Location, options: &PostgresOptions) -> Result<Store, StoreError> {
        let backend = match location {
            #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
            Location::Sqlite(path) => Backend::Sqlite(sqlite::Sqlite::open(path)?),
            #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
            Location::Sqlite(path) => {
                return Err(StoreError::Open {
                    path: path.clone(),
                    reason: "a web page has no files: its store is in memory (memory:NAME)".into(),
                });
            }
            Location::Memory(name) => Backend::Memory(memory::Memory::open(name)?),
            #[cfg(feature = "postgres")]
            Location::Postgres(url) => {
                Backend::Postgres(Box::new(postgres::Postgres::open(url, options)?))
            }
            #[cfg(not(feature = "postgres"))]
            Location::Postgres(url) => {
                let _ = options;
                return Err(StoreError::Open {
                    path: url.shown(),
                    reason: "this build of Writ has no PostgreSQL support (the `postgres` feature of writ-host)".into(),
                });
            }
        };
        Ok(Store {
            backend,
            lock_wait: DEFAULT_LOCK_WAIT,
            until: None,
            held: None,
        })
    }

    /// A store in memory (for the store's tests), created with `seed`.
    #[cfg(test)]
    pub(crate) fn in_memory(seed: Option<&str>) -> Result<Store, StoreError> {
        Store {
            backend: Backend::Sqlite(sqlite::Sqlite::in_memory()?),
            lock_wait: DEFAULT_LOCK_WAIT,
            until: None,
            held: None,
        }
        .create(seed)
    }

    /// Create the schema and run `seed` if the store is empty, then
    /// check its version.
    fn create(mut self, seed: Option<&str>) -> Result<Store, StoreError> {
        // Read first (a store that exists needs no write lock, and may be
        // read-only); create under the write lock, asking again there, as
        // another process may have created it meanwhile.
        if self.schema_version()?.is_none() {
            self.write(|tx| {
                if schema_version(tx)?.is_some() {
                    return Ok(());
                }
                migrate(tx, 0, SCHEMA_VERSION)?;
                if let Some(seed) = seed {
                    tx.batch(seed).map_err(|e| match e {
                        WriteError::Other(StoreError::Database { reason }) => {
                            WriteError::Other(StoreError::Seed { reason })
                        }
                        busy => busy,
                    })?;
                }
                Ok(())
            })?;
        }
        match self.schema_version()? {
            Some(v) if v == SCHEMA_VERSION.to_string() => Ok(self),
            v => Err(StoreError::Schema {
                found: v.unwrap_or_else(|| "none".into()),
            }),
        }
    }

    /// Bring the store at `location` up to [`SCHEMA_VERSION`], in one
    /// write transaction: the version it was at, or
    /// the reason it cannot be (version 1, a version newer than this
    /// code's, no store there).
    pub fn migrate(location: &Location, options: &PostgresOptions) -> Result<i64, StoreError> {
        let mut store = Store::connect(location, options)?;
        store.write(|tx| {
            let found = schema_version(tx)?;
            let from = match found.as_deref().map(str::parse::<i64>) {
                Some(Ok(v)) if (schema::OLDEST_MIGRATABLE..=SCHEMA_VERSION).contains(&v) => v,
                None => return Err(StoreError::Missing.into()),
                _ => {
                    return Err(StoreError::Schema {
                        found: found.unwrap_or_else(|| "none".into()),
                    }
                    .into());
                }
            };
            migrate(tx, from, SCHEMA_VERSION)?;
            Ok(from)
        })
    }

    /// Make the schema of version `version` (and no later) in an empty
    /// store: for the tests of migrations.
    #[doc(hidden)]
    pub fn create_at_version(location: &Location, version: i64) -> Result<(), StoreError> {
        let mut store = Store::connect(location, &PostgresOptions::from_env())?;
        store.write(|tx| migrate(tx, 0, version))
    }

    /// Open the store at `location` if there is one (a file, or a
    /// database holding the store's schema), creating nothing: `Ok(None)`
    /// when there is none yet. One connection both asks and opens.
    pub fn open_existing(
        location: &Location,
        options: &PostgresOptions,
    ) -> Result<Option<Store>, StoreError> {
        if let Location::Sqlite(path) = location
            && !std::path::Path::new(path).is_file()
        {
            return Ok(None);
        }
        let store = Store::connect(location, options)?;
        if store.schema_version()?.is_none() {
            return Ok(None);
        }
        store.create(None).map(Some)
    }

    /// The schema version the store at `location` records, without
    /// creating or checking anything: `None` for an empty database (or
    /// SQLite file).
    pub fn version_at(
        location: &Location,
        options: &PostgresOptions,
    ) -> Result<Option<String>, StoreError> {
        Store::connect(location, options)?.schema_version()
    }

    /// The schema version the store records, `None` for an empty store.
    fn schema_version(&self) -> Result<Option<String>, StoreError> {
        self.read(schema_version)
    }

    /// Which database the store is on: `sqlite`, `postgres` or `memory`.
    pub fn kind(&self) -> &'static str {
        match &self.backend {
            #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
            Backend::Sqlite(_) => "sqlite",
            Backend::Memory(_) => "memory",
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => "postgres",
        }
    }

    /// Keep `guard` for as long as the store is alive (an engine's count
    /// of its connections, given back when the store is dropped).
    pub(crate) fn hold(&mut self, guard: Box<dyn Send>) {
        self.held = Some(guard);
    }

    /// Whether no transaction is open on the connection (so that it may
    /// be kept for another run).
    pub(crate) fn is_idle(&self) -> bool {
        match &self.backend {
            #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
            Backend::Sqlite(b) => b.is_idle(),
            Backend::Memory(_) => true,
            #[cfg(feature = "postgres")]
            Backend::Postgres(b) => b.is_idle(),
        }
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

    /// Run the reads of `f` in one read transaction (one view of the
    /// store), waiting for a writer until [`Store::deadline`] at most.
    fn read<T>(
        &self,
        f: impl FnOnce(&mut dyn Tx) -> Result<T, WriteError>,
    ) -> Result<T, StoreError> {
        let deadline = self.deadline();
        let read = match &self.backend {
            #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
            Backend::Sqlite(b) => b.read(deadline, f),
            Backend::Memory(b) => b.read(deadline, f),
            #[cfg(feature = "postgres")]
            Backend::Postgres(b) => b.read(deadline, f),
        };
        read.map_err(|e| match e {
            WriteError::Busy(reason) => StoreError::Busy {
                waited: self.lock_wait,
                reason,
            },
            WriteError::Other(e) => e,
        })
    }

    /// Run `f` in one write transaction, taken before anything is read,
    /// and commit it. While another connection holds the lock, the
    /// transaction is tried again, at most [`LOCK_ATTEMPTS`] times and
    /// until [`Store::deadline`] in all (each statement waits only what is
    /// left); then it fails. A failed transaction is rolled back: nothing
    /// of it is written.
    fn write<T>(
        &mut self,
        mut f: impl FnMut(&mut dyn Tx) -> Result<T, WriteError>,
    ) -> Result<T, StoreError> {
        let deadline = self.deadline();
        let mut last = String::new();
        for attempt in 0..LOCK_ATTEMPTS {
            // The first attempt is made even with no time left: a store
            // nobody else holds is written at once.
            if attempt > 0 && Instant::now() >= deadline {
                break;
            }
            let attempt = match &mut self.backend {
                #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
                Backend::Sqlite(b) => b.write(deadline, &mut f),
                Backend::Memory(b) => b.write(deadline, &mut f),
                #[cfg(feature = "postgres")]
                Backend::Postgres(b) => b.write(deadline, &mut f),
            };
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

    /// Run SQL on the store as it is, outside any of the store's rules
    /// (as someone with access to the database would): for tests that
    /// tamper with a store, or play a second writer.
    #[doc(hidden)]
    pub fn execute_raw(&mut self, sql: &str) -> Result<(), StoreError> {
        match &mut self.backend {
            #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
            Backend::Sqlite(b) => b.execute_raw(sql),
            Backend::Memory(b) => b.execute_raw(sql),
            #[cfg(feature = "postgres")]
            Backend::Postgres(b) => b.execute_raw(sql),
        }
    }

    /// The store's secret key for sealing snapshots of paused runs
    /// (32 bytes): made once, from the database's random source (seeded
    /// by the operating system's), at its first use, and kept in the
    /// store's `meta` table, so that only a host that can read this store
    /// can make or resume a snapshot it accepts.
    pub(crate) fn snapshot_key(&mut self) -> Result<[u8; 32], StoreError> {
        let hex: String = self.write(|tx| {
            let fresh = tx.random_hex(32)?;
            tx.put_meta("snapshot_key", &fresh)?;
            Ok(tx.meta("snapshot_key")?.unwrap_or_default())
        })?;
        let mut key = [0u8; 32];
        let digits: Vec<u8> = hex
            .as_bytes()
            .chunks(2)
            .filter_map(|pair| std::str::from_utf8(pair).ok())
            .filter_map(|pair| u8::from_str_radix(pair, 16).ok())
            .collect();
        if digits.len() != key.len() {
            return Err(StoreError::Database {
                reason: "the store's snapshot key is not 32 bytes of hexadecimal".to_string(),
            });
        }
        key.copy_from_slice(&digits);
        Ok(key)
    }

    /// 16 fresh random bytes, in hexadecimal: a snapshot's nonce.
    pub(crate) fn nonce(&self) -> Result<String, StoreError> {
        self.read(|tx| tx.random_hex(16))
    }

    /// Whether the snapshot with `nonce` was resumed already.
    pub(crate) fn was_resumed(&self, nonce: &str) -> Result<bool, StoreError> {
        self.read(|tx| Ok(tx.meta(&format!("resumed:{nonce}"))?.is_some()))
    }

    /// Record that the snapshot with `nonce` is being resumed: `false` if
    /// it was already (two processes resuming one snapshot: one wins).
    pub(crate) fn mark_resumed(&mut self, nonce: &str) -> Result<bool, StoreError> {
        let key = format!("resumed:{nonce}");
        self.write(|tx| tx.put_meta(&key, "resumed"))
    }

    /// Record that the plan with `digest` was made on this store (by
    /// [`crate::engine::Engine::plan`]): only a plan made here is approved
    /// here ([`Store::approve_plan`]), so one approval cannot be carried
    /// out again on another store.
    pub(crate) fn record_plan(&mut self, digest: &str) -> Result<(), StoreError> {
        let key = format!("planned:{digest}");
        self.write(|tx| tx.put_meta(&key, "made")).map(|_| ())
    }

    /// Record that the plan with `digest` is executed, and its approval
    /// (an audit record, `entry`) in the same transaction: the approval's
    /// sequence number, or why it is refused (executed already, or not
    /// made on this store).
    pub(crate) fn approve_plan(
        &mut self,
        digest: &str,
        entry: &Entry<'_>,
    ) -> Result<Approval, StoreError> {
        let key = format!("plan:{digest}");
        let made = format!("planned:{digest}");
        self.write(|tx| {
            if tx.meta(&key)?.is_some() {
                return Ok(Approval::Executed);
            }
            if tx.meta(&made)?.is_none() {
                return Ok(Approval::NotMadeHere);
            }
            let seq = append(tx, entry)?;
            tx.put_meta(&key, &seq.to_string())?;
            Ok(Approval::Recorded(seq))
        })
    }

    /// Append an audit record; returns its sequence number once committed.
    pub(crate) fn audit(&mut self, e: &Entry<'_>) -> Result<i64, StoreError> {
        self.write(|tx| append(tx, e))
    }

    /// Every audit record, in order.
    pub fn records(&self) -> Result<Vec<AuditRecord>, StoreError> {
        self.read(|tx| tx.records_from(i64::MIN))
    }

    /// The last `n` audit records, in order, and how many the log holds:
    /// reads no more than `n` records, however long the log.
    pub fn last_records(&self, n: usize) -> Result<(Vec<AuditRecord>, i64), StoreError> {
        self.read(|tx| {
            let total = tx.record_count()?;
            if n == 0 || total == 0 {
                return Ok((Vec::new(), total));
            }
            let first = tx.first_of_last(i64::try_from(n).unwrap_or(i64::MAX))?;
            Ok((tx.records_from(first)?, total))
        })
    }

    /// The last `n` audit records of `principal`'s runs, in order, and
    /// how many of theirs the log holds: what one person may be shown of
    /// a store that several share (their records, not the others').
    pub fn last_records_of(
        &self,
        principal: &str,
        n: usize,
    ) -> Result<(Vec<AuditRecord>, i64), StoreError> {
        self.read(|tx| {
            let total = tx.record_count_of(principal)?;
            if n == 0 || total == 0 {
                return Ok((Vec::new(), total));
            }
            let n = i64::try_from(n).unwrap_or(i64::MAX);
            Ok((tx.last_records_of(principal, n)?, total))
        })
    }

    /// The cents `principal` paid on `day`, in every run. Only a hint
    /// (it may be stale by the time it is used): `Store::pay` reads the
    /// total again under the write lock.
    pub fn paid_on(&self, principal: &str, day: &str) -> Result<i64, StoreError> {
        self.read(|tx| tx.paid_on(principal, day))
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
            let today = tx.paid_on(e.principal, &day)?;
            // Counted without overflow: a total past `i64::MAX` is over
            // every cap.
            if i128::from(today) + i128::from(p.cents) > i128::from(p.max_day_cents) {
                let rule = over(today);
                let denied = Entry {
                    decision: Decision::Denied,
                    rule: &rule,
                    ..e.clone()
                };
                let seq = append(tx, &denied)?;
                return Ok(Paid::OverDayCap { today, seq });
            }
            let (seq, prev_hash) = next_seq(tx)?;
            let row = LedgerRow {
                id: tx.next_ledger_id()?,
                time_ms: p.time_ms,
                day: day.clone(),
                principal: e.principal.to_string(),
                payee: p.payee.to_string(),
                cents: p.cents,
                currency: p.currency.to_string(),
                memo: p.memo.to_string(),
                audit_seq: seq,
            };
            tx.insert_ledger(&row)?;
            write_record(tx, e, Some(&row), (seq, prev_hash))?;
            Ok(Paid::Made { id: row.id, seq })
        })
    }

    /// Every payment, in order.
    pub fn ledger(&self) -> Result<Vec<Payment>, StoreError> {
        Ok(self
            .read(|tx| tx.ledger_rows())?
            .into_iter()
            .map(|r| (r.id, r.principal, r.payee, r.cents, r.currency, r.memo))
            .collect())
    }

    /// An employee: name, manager, and fields (a JSON object of strings).
    pub(crate) fn employee(&self, id: &str) -> Result<Option<Employee>, StoreError> {
        self.read(|tx| tx.employee(id))
    }

    /// The ids of `manager`'s direct and indirect reports, in order.
    pub(crate) fn reports(&self, manager: &str) -> Result<Vec<String>, StoreError> {
        self.read(|tx| tx.reports(manager))
    }

    /// Every employee id, in order.
    pub(crate) fn employee_ids(&self) -> Result<Vec<String>, StoreError> {
        self.read(|tx| tx.employee_ids())
    }
}

/// The schema version a store records: `None` for an empty store,
/// `Some("none")` for one whose `meta` table records none.
fn schema_version(tx: &mut dyn Tx) -> Result<Option<String>, WriteError> {
    if !tx.has_meta()? {
        return Ok(None);
    }
    Ok(Some(tx.meta("schema")?.unwrap_or_else(|| "none".into())))
}

/// Run the schema's steps from version `from` up to version `to`
/// ([`SCHEMA_VERSION`], but for the tests of migrations).
fn migrate(tx: &mut dyn Tx, from: i64, to: i64) -> Result<(), WriteError> {
    let mut at = from;
    while at < to {
        let Some(sql) = schema::step(tx.dialect(), at) else {
            return Err(StoreError::Schema {
                found: at.to_string(),
            }
            .into());
        };
        tx.batch(sql)?;
        at = schema::step_to(at);
    }
    Ok(())
}

/// The sequence number the next record takes, and the hash it links to.
fn next_seq(tx: &mut dyn Tx) -> Result<(i64, String), WriteError> {
    Ok(match tx.last_record()? {
        Some((s, h)) => (s.saturating_add(1), h),
        None => (1, GENESIS.to_string()),
    })
}

/// Append the record of `e`; returns its sequence number.
fn append(tx: &mut dyn Tx, e: &Entry<'_>) -> Result<i64, WriteError> {
    let at = next_seq(tx)?;
    write_record(tx, e, None, at)
}

/// Write the record of `e` at `(seq, prev_hash)` (what [`next_seq`]
/// said), committing to `payment`'s ledger row if there is one; returns
/// its sequence number.
fn write_record(
    tx: &mut dyn Tx,
    e: &Entry<'_>,
    payment: Option<&LedgerRow>,
    (seq, prev_hash): (i64, String),
) -> Result<i64, WriteError> {
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
    tx.insert_record(&r)?;
    Ok(seq)
}

/// What [`Store::approve_plan`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Approval {
    /// Approved: the sequence number of the approval's audit record.
    Recorded(i64),
    /// The plan was executed already (a plan executes once).
    Executed,
    /// The plan was not made on this store.
    NotMadeHere,
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_memory;
#[cfg(all(test, feature = "postgres"))]
mod tests_postgres;
