//! What can go wrong with the store itself, as data.
//!
//! A [`StoreError`] says that the store failed — the database, the
//! connection to it, the write lock, the schema — never what the store
//! holds: a log found changed is a
//! [`super::Break`], reported apart ([`super::VerifyError`]). Each
//! variant's `Display` is a sentence that holds wherever the store is
//! used; what to type to mend it is the edge's to add (the command line
//! names its command that makes a new store, for one of version 1, and
//! the one that migrates a store, for one of version 2).

use std::fmt;
use std::time::Duration;

use super::SCHEMA_VERSION;

/// Why the store could not do what it was asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreError {
    /// The store's location is not one Writ can open: a URL of another
    /// scheme, a malformed `postgres://` URL, or one that holds a
    /// password.
    Location {
        /// What was expected, and what was found.
        reason: String,
    },
    /// The file could not be opened as a database, or the database
    /// server could not be reached or refused the connection.
    Open {
        /// The store's path, or its URL (which never holds a password).
        path: String,
        /// The database's reason.
        reason: String,
    },
    /// A statement failed, or the connection was lost in the middle of
    /// one (the database's reason: a file that cannot be read, a
    /// malformed database, a table that is not there, a server that shut
    /// down, a statement over its time, ...). The transaction it was in
    /// was rolled back.
    Database {
        /// The database's reason.
        reason: String,
    },
    /// The connection was lost while a transaction's commit was on its
    /// way: the database decided whether what it wrote was kept (all of
    /// it or none), and nobody heard which.
    Uncertain {
        /// What was lost.
        reason: String,
    },
    /// The seed's SQL failed while the store was created; nothing of the
    /// store was written.
    Seed {
        /// The database's reason.
        reason: String,
    },
    /// A migration found no store to bring up to date.
    Missing,
    /// Other connections held the write lock through the whole lock wait
    /// (the store's lock wait: [`DEFAULT_LOCK_WAIT`](super::DEFAULT_LOCK_WAIT), or a
    /// policy's `[store] lock_wait`); nothing was written.
    Busy {
        /// The lock wait that ran out.
        waited: Duration,
        /// The database's reason for the last attempt.
        reason: String,
    },
    /// The store records a schema version this code does not read (it
    /// reads only [`SCHEMA_VERSION`]; an older one but 1 is taken there
    /// by [`super::Store::migrate`]).
    Schema {
        /// The version found (`none` for a store whose `meta` table
        /// records none).
        found: String,
    },
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Open { path, reason } => {
                write!(f, "cannot open the store {path}: {reason}")
            }
            StoreError::Location { reason } => f.write_str(reason),
            StoreError::Database { reason } => f.write_str(reason),
            StoreError::Uncertain { reason } => write!(
                f,
                "{reason}, while the transaction was committing: the database kept all of what it wrote, or none of it"
            ),
            StoreError::Missing => f.write_str("there is no store there to migrate"),
            StoreError::Seed { reason } => write!(f, "the seed's SQL failed: {reason}"),
            StoreError::Busy { waited, reason } => write!(
                f,
                "the store is busy: other runs held its write lock for over {} ms ({reason}); nothing was written",
                waited.as_millis()
            ),
            StoreError::Schema { found } if found == "1" => write!(
                f,
                "expected a store of schema version {SCHEMA_VERSION}, found version 1: it was written before the ledger was chained into the audit log, and cannot be changed in place; keep it as an archive and create a new store"
            ),
            StoreError::Schema { found } if self.migratable() => {
                write!(
                    f,
                    "expected a store of schema version {SCHEMA_VERSION}, found version {found}: a migration brings it up to date, in place"
                )
            }
            StoreError::Schema { found }
                if found.parse::<i64>().is_ok_and(|v| v > SCHEMA_VERSION) =>
            {
                write!(
                    f,
                    "expected a store of schema version {SCHEMA_VERSION}, found version {found}: it was written by a newer Writ, which this one cannot read or migrate; use that Writ (or a newer one)"
                )
            }
            StoreError::Schema { found } => write!(
                f,
                "expected a store of schema version {SCHEMA_VERSION}, found version {found}, which no Writ writes"
            ),
        }
    }
}

impl std::error::Error for StoreError {}

impl StoreError {
    /// Whether this is a store of an older schema version that a
    /// migration ([`super::Store::migrate`]) brings up to date.
    pub fn migratable(&self) -> bool {
        matches!(self, StoreError::Schema { found }
            if found
                .parse::<i64>()
                .is_ok_and(|v| (super::schema::OLDEST_MIGRATABLE..SCHEMA_VERSION).contains(&v)))
    }
}
