//! The store in memory: the same audit log, ledger and records as on a
//! database, held by the process, for hosts that have no file system or
//! database (the web playground) and for tests.
//!
//! A memory store is named (`memory:NAME`, [`super::Location::Memory`]).
//! Every store opened by one name in one process is the same store, as
//! every connection to one SQLite file is the same file: it lives until
//! the process ends or [`forget`] drops it. Its content can be taken out
//! ([`export`]) and put back ([`import`]) so that a page can keep it
//! across reloads and workers; what is put back is verified like any
//! store, by its chain ([`super::Store::verify`]).
//!
//! Transactions: a write holds the store's lock for its whole length.
//! The log and the ledger are only appended to, in order, so a write
//! appends in place and a failed one is undone by cutting them back to
//! their lengths; `meta` and the org chart, which change rarely (a
//! snapshot key, a plan approved, a seed), are copied before a write's
//! first change of them and put back if it fails. A write that fails
//! leaves nothing of itself behind, as a rolled-back transaction does,
//! and no write copies the log: each costs what it adds.
//!
//! Invariant: the records are in increasing order of their sequence
//! numbers, and the ledger rows of their ids (what `import` sorts, and
//! refuses duplicates of, and every insert keeps), so the last record
//! and the next ledger id are read at the end.
//!
//! Seeds: a memory store runs no SQL. A seed is read as the one form of
//! SQL seeds the examples use, `INSERT INTO employees (columns) VALUES
//! (row), (row);` with quoted strings and `NULL`, and `--` comments;
//! anything else is refused, naming what was found, so a seed is never
//! half-read.
//!
//! Randomness (snapshot keys and nonces) comes from a pool the embedder
//! fills ([`add_entropy`]); outside a web page it starts filled from the
//! operating system's hashing seed. In a web page, where the standard
//! library has no source of randomness, a store asked for random bytes
//! before the page gave any fails, rather than making a key anyone could
//! guess.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

use sha2::{Digest, Sha256};
use writ_runtime::clock::Instant;

use super::schema::Dialect;
use super::{AuditRecord, Employee, LedgerRow, StoreError, Tx, WriteError};

/// What a memory store holds: its tables.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Contents {
    /// The `meta` table: the schema version, the snapshot key, plans
    /// executed and snapshots resumed.
    pub meta: BTreeMap<String, String>,
    /// The audit log, in order.
    pub records: Vec<AuditRecord>,
    /// The payment ledger, in order.
    pub ledger: Vec<LedgerRow>,
    /// The employees by id: name, manager and fields (a JSON object).
    pub employees: Chart,
}

/// The org chart: each employee's name, manager and fields (a JSON
/// object), by id.
pub type Chart = BTreeMap<String, (String, Option<String>, String)>;

/// What one write added to the audit log and the ledger.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Committed {
    /// The records it appended.
    pub records: Vec<AuditRecord>,
    /// The ledger rows it appended.
    pub ledger: Vec<LedgerRow>,
}

/// Told of every committed write of a memory store that appended to its
/// log or ledger (the page mirrors them, so that a run stopped by ending
/// its worker loses no record).
pub type Watcher = Arc<dyn Fn(&str, &Committed) + Send + Sync>;

/// One memory store, shared by every handle opened on its name.
struct Shared {
    name: String,
    contents: Mutex<Contents>,
}

/// The memory stores of the process, by name.
fn stores() -> &'static Mutex<HashMap<String, Arc<Shared>>> {
    static STORES: OnceLock<Mutex<HashMap<String, Arc<Shared>>>> = OnceLock::new();
    STORES.get_or_init(Mutex::default)
}

/// The watcher of every memory store's commits, if one is set.
fn watcher() -> &'static Mutex<Option<Watcher>> {
    static WATCHER: OnceLock<Mutex<Option<Watcher>>> = OnceLock::new();
    WATCHER.get_or_init(Mutex::default)
}

/// The pool memory stores draw random bytes from, and how many draws
/// were made.
fn pool() -> &'static Mutex<(Option<[u8; 32]>, u64)> {
    static POOL: OnceLock<Mutex<(Option<[u8; 32]>, u64)>> = OnceLock::new();
    POOL.get_or_init(|| Mutex::new((initial_entropy(), 0)))
}

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
fn initial_entropy() -> Option<[u8; 32]> {
    use std::hash::{BuildHasher, Hasher};
    let mut h = Sha256::new();
    for i in 0..4u64 {
        let mut s = std::collections::hash_map::RandomState::new().build_hasher();
        s.write_u64(i);
        h.update(s.finish().to_le_bytes());
    }
    h.update(std::process::id().to_le_bytes());
    Some(h.finalize().into())
}

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
fn initial_entropy() -> Option<[u8; 32]> {
    None
}

fn poisoned() -> StoreError {
    StoreError::Database {
        reason: "the in-memory store's lock was poisoned by a panic".to_string(),
    }
}

/// Mix `bytes` (fresh randomness, as from the page's
/// `crypto.getRandomValues`) into the pool memory stores draw from.
pub fn add_entropy(bytes: &[u8]) {
    if let Ok(mut p) = pool().lock() {
        let mut h = Sha256::new();
        if let Some(old) = p.0 {
            h.update(old);
        }
        h.update(bytes);
        p.0 = Some(h.finalize().into());
    }
}

/// Tell `watch` of every committed write that appends to a memory
/// store's log or ledger; `None` stops telling.
pub fn set_watcher(watch: Option<Watcher>) {
    if let Ok(mut w) = watcher().lock() {
        *w = watch;
    }
}

/// A copy of what the memory store `name` holds, if there is one.
pub fn export(name: &str) -> Option<Contents> {
    let shared = stores().lock().ok()?.get(name).cloned()?;
    let contents = shared.contents.lock().ok()?;
    Some(contents.clone())
}

/// Make the memory store `name` hold `contents`, replacing what it held.
/// The records are put in order of their sequence numbers and the ledger
/// rows of their ids (a database holds them in no order), and two of one
/// number are refused, as a database's keys refuse them; nothing else is
/// checked here: open the store and [`super::Store::verify`] it.
pub fn import(name: &str, mut contents: Contents) -> Result<(), StoreError> {
    contents.records.sort_by_key(|r| r.seq);
    contents.ledger.sort_by_key(|r| r.id);
    let twice = |what: &str, n: i64| StoreError::Database {
        reason: format!("expected each {what} once in the store put back, found {n} twice"),
    };
    if let Some(w) = contents.records.windows(2).find(|w| w[0].seq == w[1].seq) {
        return Err(twice("audit record's sequence number", w[0].seq));
    }
    if let Some(w) = contents.ledger.windows(2).find(|w| w[0].id == w[1].id) {
        return Err(twice("ledger row's id", w[0].id));
    }
    let mut all = stores().lock().map_err(|_| poisoned())?;
    all.insert(
        name.to_string(),
        Arc::new(Shared {
            name: name.to_string(),
            contents: Mutex::new(contents),
        }),
    );
    Ok(())
}

/// Drop the memory store `name`: the next open of the name makes a new,
/// empty one. Handles already open keep the old one until they close.
pub fn forget(name: &str) {
    if let Ok(mut all) = stores().lock() {
        all.remove(name);
    }
}

/// An open memory store.
pub(super) struct Memory {
    shared: Arc<Shared>,
}

impl Memory {
    /// Open the memory store `name`, making it, empty, if there is none.
    pub(super) fn open(name: &str) -> Result<Memory, StoreError> {
        let mut all = stores().lock().map_err(|_| poisoned())?;
        let shared = all
            .entry(name.to_string())
            .or_insert_with(|| {
                Arc::new(Shared {
                    name: name.to_string(),
                    contents: Mutex::default(),
                })
            })
            .clone();
        Ok(Memory { shared })
    }

    /// Run `f` on the store, reading only. A memory store's lock is
    /// held only for a transaction's length, by its process: there is no
    /// wait to bound, and the deadline is not needed.
    pub(super) fn read<T>(
        &self,
        _deadline: Instant,
        f: impl FnOnce(&mut dyn Tx) -> Result<T, WriteError>,
    ) -> Result<T, WriteError> {
        let contents = self.shared.contents.lock().map_err(|_| poisoned())?;
        let mut tx = On {
            at: Work::Reading(&contents),
        };
        f(&mut tx)
    }

    /// Run `f` on a copy of the store, which replaces it if `f` returns a
    /// value; the watcher is told what was appended.
    pub(super) fn write<T>(
        &mut self,
        _deadline: Instant,
        f: &mut impl FnMut(&mut dyn Tx) -> Result<T, WriteError>,
    ) -> Result<T, WriteError> {
        let mut contents = self.shared.contents.lock().map_err(|_| poisoned())?;
        let (records, ledger) = (contents.records.len(), contents.ledger.len());
        let (value, undo) = {
            let mut tx = On {
                at: Work::Writing(&mut contents, Undo::default()),
            };
            let value = f(&mut tx);
            match tx.at {
                Work::Writing(_, undo) => (value, undo),
                Work::Reading(_) => (value, Undo::default()),
            }
        };
        let value = match value {
            Ok(v) => v,
            Err(e) => {
                // Rolled back: what it appended cut off, what it changed
                // put back.
                contents.records.truncate(records);
                contents.ledger.truncate(ledger);
                if let Some(meta) = undo.meta {
                    contents.meta = meta;
                }
                if let Some(employees) = undo.employees {
                    contents.employees = employees;
                }
                return Err(e);
            }
        };
        let committed = Committed {
            records: contents.records.get(records..).unwrap_or_default().to_vec(),
            ledger: contents.ledger.get(ledger..).unwrap_or_default().to_vec(),
        };
        drop(contents);
        if !committed.records.is_empty() || !committed.ledger.is_empty() {
            let watch = watcher().lock().ok().and_then(|w| w.clone());
            if let Some(watch) = watch {
                watch(&self.shared.name, &committed);
            }
        }
        Ok(value)
    }

    /// Run `sql` as it is: a memory store reads only seeds (see the
    /// module's text).
    pub(super) fn execute_raw(&mut self, sql: &str) -> Result<(), StoreError> {
        self.write(Instant::now(), &mut |tx: &mut dyn Tx| tx.batch(sql))
            .map_err(|e| match e {
                WriteError::Busy(reason) => StoreError::Database { reason },
                WriteError::Other(e) => e,
            })
    }
}

/// What a transaction works on: the store, to read, or to write with
/// what undoes the write.
enum Work<'a> {
    Reading(&'a Contents),
    Writing(&'a mut Contents, Undo),
}

/// What a write changed in place of `meta` and the org chart, as they
/// were before (the log and the ledger are cut back to their lengths).
#[derive(Default)]
struct Undo {
    meta: Option<BTreeMap<String, String>>,
    employees: Option<Chart>,
}

/// The primitive reads and writes of a memory store.
struct On<'a> {
    at: Work<'a>,
}

impl On<'_> {
    fn get(&self) -> &Contents {
        match &self.at {
            Work::Reading(c) => c,
            Work::Writing(c, _) => c,
        }
    }

    fn get_mut(&mut self) -> Result<(&mut Contents, &mut Undo), WriteError> {
        match &mut self.at {
            Work::Reading(_) => Err(WriteError::Other(StoreError::Database {
                reason: "a write in a read-only transaction of the in-memory store".to_string(),
            })),
            Work::Writing(c, undo) => Ok((c, undo)),
        }
    }

    /// The store's `meta`, kept as it was first (to put back on failure).
    fn meta_mut(&mut self) -> Result<&mut BTreeMap<String, String>, WriteError> {
        let (c, undo) = self.get_mut()?;
        if undo.meta.is_none() {
            undo.meta = Some(c.meta.clone());
        }
        Ok(&mut c.meta)
    }
}

/// The schema steps of a memory store: it has its tables always, so a
/// step only records its version.
pub(super) const MEMORY_V2: &str = "-- memory store: schema version 2";
/// See [`MEMORY_V2`].
pub(super) const MEMORY_V3: &str = "-- memory store: schema version 3";

impl Tx for On<'_> {
    fn dialect(&self) -> Dialect {
        Dialect::Memory
    }

    fn batch(&mut self, sql: &str) -> Result<(), WriteError> {
        let version = match sql {
            MEMORY_V2 => Some("2"),
            MEMORY_V3 => Some("3"),
            _ => None,
        };
        if let Some(v) = version {
            self.meta_mut()?.insert("schema".to_string(), v.to_string());
            return Ok(());
        }
        let rows = read_seed(sql)?;
        let (c, undo) = self.get_mut()?;
        if undo.employees.is_none() {
            undo.employees = Some(c.employees.clone());
        }
        for (id, name, manager, fields) in rows {
            if c.employees.contains_key(&id) {
                return Err(database(format!(
                    "the seed gives the employee `{id}` twice"
                )));
            }
            c.employees.insert(id, (name, manager, fields));
        }
        Ok(())
    }

    fn has_meta(&mut self) -> Result<bool, WriteError> {
        Ok(!self.get().meta.is_empty())
    }

    fn meta(&mut self, key: &str) -> Result<Option<String>, WriteError> {
        Ok(self.get().meta.get(key).cloned())
    }

    fn put_meta(&mut self, key: &str, value: &str) -> Result<bool, WriteError> {
        if self.get().meta.contains_key(key) {
            return Ok(false);
        }
        self.meta_mut()?.insert(key.to_string(), value.to_string());
        Ok(true)
    }

    fn random_hex(&mut self, bytes: usize) -> Result<String, WriteError> {
        let mut p = pool().lock().map_err(|_| poisoned())?;
        let Some(key) = p.0 else {
            return Err(database(
                "the in-memory store has no randomness yet: the host gives it some (add_entropy) before a snapshot is sealed".to_string(),
            ));
        };
        p.1 = p.1.wrapping_add(1);
        let mut h = Sha256::new();
        h.update(key);
        h.update(p.1.to_le_bytes());
        let digest: [u8; 32] = h.finalize().into();
        Ok(digest
            .iter()
            .take(bytes.min(32))
            .map(|b| format!("{b:02x}"))
            .collect())
    }

    fn last_record(&mut self) -> Result<Option<(i64, String)>, WriteError> {
        Ok(self.get().records.last().map(|r| (r.seq, r.hash.clone())))
    }

    fn insert_record(&mut self, r: &AuditRecord) -> Result<(), WriteError> {
        let (c, _) = self.get_mut()?;
        // In order, each number once (the module's invariant).
        if c.records.last().is_some_and(|last| last.seq >= r.seq) {
            return Err(database(format!(
                "expected an audit record after the last, found record {} at or before it",
                r.seq
            )));
        }
        c.records.push(r.clone());
        Ok(())
    }

    fn next_ledger_id(&mut self) -> Result<i64, WriteError> {
        let last = self.get().ledger.last().map_or(0, |r| r.id);
        Ok(last.saturating_add(1))
    }

    fn insert_ledger(&mut self, row: &LedgerRow) -> Result<(), WriteError> {
        let (c, _) = self.get_mut()?;
        // In order of ids; and, as the database's own index keeps, one
        // row per payment record (rows are written with records ever
        // later, so one after the last's is one no row has).
        if c.ledger
            .last()
            .is_some_and(|last| last.id >= row.id || last.audit_seq >= row.audit_seq)
        {
            return Err(database(format!(
                "expected a ledger row after the last, found row {} of record {} at or before it",
                row.id, row.audit_seq
            )));
        }
        c.ledger.push(row.clone());
        Ok(())
    }

    fn paid_on(&mut self, principal: &str, day: &str) -> Result<i64, WriteError> {
        Ok(self
            .get()
            .ledger
            .iter()
            .filter(|r| r.principal == principal && r.day == day)
            .fold(0i64, |a, r| a.saturating_add(r.cents)))
    }

    fn record_count(&mut self) -> Result<i64, WriteError> {
        Ok(i64::try_from(self.get().records.len()).unwrap_or(i64::MAX))
    }

    fn records_from(&mut self, first: i64) -> Result<Vec<AuditRecord>, WriteError> {
        let records = &self.get().records;
        let at = records.partition_point(|r| r.seq < first);
        Ok(records.get(at..).unwrap_or_default().to_vec())
    }

    fn record_count_of(&mut self, principal: &str) -> Result<i64, WriteError> {
        let n = self
            .get()
            .records
            .iter()
            .filter(|r| r.principal == principal)
            .count();
        Ok(i64::try_from(n).unwrap_or(i64::MAX))
    }

    fn last_records_of(&mut self, principal: &str, n: i64) -> Result<Vec<AuditRecord>, WriteError> {
        let n = usize::try_from(n.max(0)).unwrap_or(usize::MAX);
        let mut records: Vec<AuditRecord> = self
            .get()
            .records
            .iter()
            .rev()
            .filter(|r| r.principal == principal)
            .take(n)
            .cloned()
            .collect();
        records.reverse();
        Ok(records)
    }

    fn first_of_last(&mut self, n: i64) -> Result<i64, WriteError> {
        let records = &self.get().records;
        let n = usize::try_from(n.max(0)).unwrap_or(usize::MAX);
        Ok(if n == 0 {
            0
        } else {
            records
                .get(records.len().saturating_sub(n))
                .map_or(0, |r| r.seq)
        })
    }

    fn ledger_rows(&mut self) -> Result<Vec<LedgerRow>, WriteError> {
        Ok(self.get().ledger.clone())
    }

    fn employee(&mut self, id: &str) -> Result<Option<Employee>, WriteError> {
        Ok(self.get().employees.get(id).cloned())
    }

    fn reports(&mut self, manager: &str) -> Result<Vec<String>, WriteError> {
        // Each manager's direct reports, once; then a walk from `manager`
        // taking each person once (a cycle in the chart ends where it
        // comes back): time in proportion to the chart, not its square.
        let c = self.get();
        let mut under: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (id, (_, boss, _)) in &c.employees {
            if let Some(boss) = boss {
                under.entry(boss.as_str()).or_default().push(id.as_str());
            }
        }
        let mut found: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
        let mut frontier = vec![manager];
        while let Some(m) = frontier.pop() {
            for id in under.get(m).into_iter().flatten() {
                if found.insert(id) {
                    frontier.push(id);
                }
            }
        }
        Ok(found.into_iter().map(str::to_string).collect())
    }

    fn employee_ids(&mut self) -> Result<Vec<String>, WriteError> {
        Ok(self.get().employees.keys().cloned().collect())
    }
}

fn database(reason: String) -> WriteError {
    WriteError::Other(StoreError::Database { reason })
}

/// One employee row of a seed: id, name, manager, fields.
type SeedRow = (String, String, Option<String>, String);

/// The rows of a seed of `INSERT INTO employees` statements.
fn read_seed(sql: &str) -> Result<Vec<SeedRow>, WriteError> {
    let mut p = Seed { text: sql, at: 0 };
    let mut rows = Vec::new();
    loop {
        p.space();
        if p.at >= p.text.len() {
            return Ok(rows);
        }
        for word in ["INSERT", "INTO", "employees"] {
            p.keyword(word)?;
        }
        p.expect('(')?;
        let mut columns = Vec::new();
        loop {
            let c = p.word()?.to_ascii_lowercase();
            if !["id", "name", "manager", "fields"].contains(&c.as_str()) || columns.contains(&c) {
                return Err(p.expected("the columns id, name, manager and fields, each once", &c));
            }
            columns.push(c);
            if !p.eat(',') {
                break;
            }
        }
        p.expect(')')?;
        if !columns.iter().any(|c| c == "id") || !columns.iter().any(|c| c == "name") {
            return Err(p.expected("the columns id and name", &columns.join(", ")));
        }
        p.keyword("VALUES")?;
        loop {
            p.expect('(')?;
            let mut row: (String, String, Option<String>, String) =
                (String::new(), String::new(), None, "{}".to_string());
            for (i, column) in columns.iter().enumerate() {
                if i > 0 {
                    p.expect(',')?;
                }
                let value = p.value()?;
                match (column.as_str(), value) {
                    ("id", Some(v)) => row.0 = v,
                    ("name", Some(v)) => row.1 = v,
                    ("manager", v) => row.2 = v,
                    ("fields", Some(v)) => row.3 = v,
                    (c, None) => return Err(p.expected(&format!("a string for `{c}`"), "NULL")),
                    _ => {}
                }
            }
            p.expect(')')?;
            rows.push(row);
            if !p.eat(',') {
                break;
            }
        }
        p.space();
        if !p.eat(';') && p.at < p.text.len() {
            return Err(p.expected("`;` or the end of the seed", p.rest()));
        }
    }
}

/// A reader of a seed's text.
struct Seed<'a> {
    text: &'a str,
    at: usize,
}

impl Seed<'_> {
    fn rest(&self) -> &str {
        let rest = self.text.get(self.at..).unwrap_or_default();
        let end = rest.char_indices().nth(24).map_or(rest.len(), |(i, _)| i);
        rest.get(..end).unwrap_or_default()
    }

    fn expected(&self, what: &str, found: &str) -> WriteError {
        database(format!(
            "the in-memory store reads seeds of `INSERT INTO employees (columns) VALUES (...)` only: expected {what}, found `{}`",
            writ_runtime::display::safe_text(found, writ_runtime::display::LineBreaks::Escape)
        ))
    }

    /// Skip white space and `--` comments.
    fn space(&mut self) {
        loop {
            let rest = self.text.get(self.at..).unwrap_or_default();
            let trimmed = rest.trim_start();
            self.at += rest.len() - trimmed.len();
            if trimmed.starts_with("--") {
                self.at += trimmed.find('\n').unwrap_or(trimmed.len());
            } else {
                return;
            }
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.space();
        if self.text.get(self.at..).is_some_and(|r| r.starts_with(c)) {
            self.at += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<(), WriteError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.expected(&format!("`{c}`"), self.rest()))
        }
    }

    fn word(&mut self) -> Result<String, WriteError> {
        self.space();
        let rest = self.text.get(self.at..).unwrap_or_default();
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if len == 0 {
            return Err(self.expected("a word", self.rest()));
        }
        self.at += len;
        Ok(rest.get(..len).unwrap_or_default().to_string())
    }

    fn keyword(&mut self, k: &str) -> Result<(), WriteError> {
        let at = self.at;
        match self.word() {
            Ok(w) if w.eq_ignore_ascii_case(k) => Ok(()),
            _ => {
                self.at = at;
                self.space();
                Err(self.expected(&format!("`{k}`"), self.rest()))
            }
        }
    }

    /// A quoted string (`''` for a quote) or `NULL`.
    fn value(&mut self) -> Result<Option<String>, WriteError> {
        self.space();
        if !self.eat('\'') {
            return match self.keyword("NULL") {
                Ok(()) => Ok(None),
                Err(_) => Err(self.expected("a quoted string or NULL", self.rest())),
            };
        }
        let mut out = String::new();
        let rest = self.text.get(self.at..).unwrap_or_default();
        let mut chars = rest.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c == '\'' {
                if chars.peek().is_some_and(|(_, n)| *n == '\'') {
                    chars.next();
                    out.push('\'');
                    continue;
                }
                self.at += i + 1;
                return Ok(Some(out));
            }
            out.push(c);
        }
        Err(self.expected("the string's closing quote", "the end of the seed"))
    }
}
