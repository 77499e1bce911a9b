//! Where a store is, and how a PostgreSQL store is reached.
//!
//! A location is a SQLite file's path, a `postgres://` (or
//! `postgresql://`) URL, or `memory:NAME` (a store in the process's
//! memory, which only an embedder chooses: a policy cannot). A URL never holds a password: one that does is
//! refused, so that no policy, command line, process list, error message
//! or audit text carries it. The password comes from the environment
//! (`PGPASSWORD`, or a variable a policy names) or from a file a policy
//! names ([`PostgresOptions`]), never from the program.

use std::fmt;
use std::time::Duration;

use super::StoreError;

/// Where a store is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A SQLite file, by its path.
    Sqlite(String),
    /// A PostgreSQL database, by its URL (without a password).
    Postgres(PostgresUrl),
    /// A store in the process's memory, by its name (`memory:NAME`;
    /// see [`super::memory`]).
    Memory(String),
}

/// A `postgres://` URL that holds no password, as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PostgresUrl(String);

impl PostgresUrl {
    /// The URL as given (it holds no password, so it may be shown).
    pub fn shown(&self) -> String {
        self.0.clone()
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Sqlite(path) => f.write_str(path),
            Location::Postgres(url) => f.write_str(&url.0),
            Location::Memory(name) => write!(f, "memory:{name}"),
        }
    }
}

/// Whether `text` is meant as a PostgreSQL URL: it starts with the
/// scheme and its colon, slashes or not (`postgres:/host/db`, a slash
/// missing, is a malformed URL, never a file's path that would be shown
/// in a message with whatever password it holds).
fn is_postgres(text: &str) -> bool {
    let lower = text.get(..11).unwrap_or(text).to_ascii_lowercase();
    lower.starts_with("postgres:") || lower.starts_with("postgresql:")
}

impl Location {
    /// Read a store's location: `memory:NAME` is a store in memory (a
    /// name of 1 to 64 letters, digits, `_`, `-` or `.`, else refused), a
    /// `postgres://` URL is a PostgreSQL database (refused if it holds a
    /// password, or if it is not a URL the client reads), any other URL is
    /// refused, a name SQLite gives a meaning of its own is refused
    /// ([`sqlite_path_refusal`]), and anything else is a SQLite file's
    /// path.
    pub fn parse(text: &str) -> Result<Location, StoreError> {
        if let Some(name) = text.strip_prefix("memory:") {
            if name.is_empty()
                || name.len() > 64
                || !name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
            {
                return Err(StoreError::Location {
                    reason: format!(
                        "expected a memory store's name after `memory:` (1 to 64 letters, digits, `_`, `-` or `.`), found `{}`",
                        writ_runtime::display::safe_text(
                            name,
                            writ_runtime::display::LineBreaks::Escape
                        )
                    ),
                });
            }
            return Ok(Location::Memory(name.to_string()));
        }
        if is_postgres(text) {
            return parse_postgres(text)
                .map(|()| Location::Postgres(PostgresUrl(text.to_string())));
        }
        if let Some((scheme, _)) = text.split_once("://")
            && !scheme.is_empty()
            && scheme
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b'.')
        {
            return Err(StoreError::Location {
                reason: format!(
                    "expected a store's location to be a SQLite file's path or a postgres:// URL, found a URL of scheme `{}`",
                    writ_runtime::display::safe_text(
                        scheme,
                        writ_runtime::display::LineBreaks::Escape
                    )
                ),
            });
        }
        if let Some(reason) = sqlite_path_refusal(text) {
            return Err(StoreError::Location { reason });
        }
        Ok(Location::Sqlite(text.to_string()))
    }

    /// Whether the store is a file (whose identity on disk a kept
    /// connection is checked against).
    pub fn is_file(&self) -> bool {
        matches!(self, Location::Sqlite(_))
    }
}

/// Why `text` cannot name a SQLite store's file, if it cannot: SQLite
/// gives some names a meaning of their own, and a store opened by one of
/// them would hold nothing past its connection (an empty name opens a
/// temporary database, `:memory:` one in memory, and a `file:` URI
/// whatever its query says, `mode=memory` included): each run would start
/// with an empty ledger, so a day's cap would not hold, and its audit log
/// would be lost. Such a name is refused, never opened.
pub fn sqlite_path_refusal(text: &str) -> Option<String> {
    let shown =
        || writ_runtime::display::safe_text(text, writ_runtime::display::LineBreaks::Escape);
    if text.trim().is_empty() {
        return Some(
            "expected a SQLite file's path, found an empty one (SQLite would open a temporary store that each run starts empty)"
                .to_string(),
        );
    }
    if text.eq_ignore_ascii_case(":memory:") {
        return Some(format!(
            "expected a SQLite file's path, found `{text}` (SQLite would keep the store in memory, empty at each run: a day's cap would not hold and the audit log would be lost); to name a file called so, write `./{text}`"
        ));
    }
    if text
        .get(..5)
        .is_some_and(|s| s.eq_ignore_ascii_case("file:"))
    {
        return Some(format!(
            "expected a SQLite file's path, found the SQLite URI `{}` (a store is named by its plain path; a URI's query could keep it in memory); to name a file called so, write `./{}`",
            shown(),
            shown()
        ));
    }
    None
}

#[cfg(feature = "postgres")]
fn parse_postgres(text: &str) -> Result<(), StoreError> {
    let config: tokio_postgres::Config = text.parse().map_err(|e| StoreError::Location {
        reason: format!("expected a PostgreSQL URL the client reads (postgres://USER@HOST:PORT/DATABASE), found one it does not: {e}"),
    })?;
    if config.get_password().is_some() {
        return Err(StoreError::Location {
            reason: "a store's URL must not hold a password (it would show in policies, command lines and messages); put the password in PGPASSWORD, or name a file or variable in the policy's [store] password_file or password_env".into(),
        });
    }
    Ok(())
}

#[cfg(not(feature = "postgres"))]
fn parse_postgres(_: &str) -> Result<(), StoreError> {
    Ok(())
}

/// How a PostgreSQL store is reached: the password, and the bounds on
/// connecting and on each statement. Debug output never shows the
/// password.
#[derive(Clone)]
pub struct PostgresOptions {
    /// The password, if the server asks for one.
    pub password: Option<String>,
    /// How long connecting may take, at most.
    pub connect_timeout: Duration,
    /// How long one statement may take, at most, on the server (and how
    /// long the host waits for its answer beyond any lock wait).
    pub statement_timeout: Duration,
}

/// The default bound on connecting to a PostgreSQL store.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The default bound on one statement of a PostgreSQL store.
pub const DEFAULT_STATEMENT_TIMEOUT: Duration = Duration::from_secs(10);

impl Default for PostgresOptions {
    fn default() -> PostgresOptions {
        PostgresOptions {
            password: None,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            statement_timeout: DEFAULT_STATEMENT_TIMEOUT,
        }
    }
}

impl PostgresOptions {
    /// The default options, with the password from `PGPASSWORD` if set.
    pub fn from_env() -> PostgresOptions {
        PostgresOptions {
            password: std::env::var("PGPASSWORD").ok(),
            ..PostgresOptions::default()
        }
    }
}

impl fmt::Debug for PostgresOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PostgresOptions")
            .field("password", &self.password.as_ref().map(|_| "(hidden)"))
            .field("connect_timeout", &self.connect_timeout)
            .field("statement_timeout", &self.statement_timeout)
            .finish()
    }
}
