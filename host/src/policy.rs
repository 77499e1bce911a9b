//! Policies: whom a program acts for, and what it may do in their name.
//!
//! A policy is a TOML file (see `docs/policy.md`): a `[principal]`, optional
//! `[limits]` and `[store]`, and one `[grants.NAME]` table per granted
//! capability with its scope. [`parse`] turns the text into a [`Policy`] or
//! into diagnostics that point into the file.
//!
//! Invariants: a malformed policy never means "allow". Every key that is
//! not known, every value of the wrong type or out of range, every grant
//! for a capability this host does not know, and every missing required key
//! is an error; a policy with any error is not returned at all. Nothing is
//! granted that the file does not name.

use std::collections::BTreeMap;

use toml::Spanned;
use toml::de::{DeTable, DeValue};
use writ_lang::{Code, Diagnostic, Span};
use writ_runtime::limits::{self, Limits};

use crate::builtin::Builtin;
use crate::url::Rule;

/// What the policy decided about one operation. Written in the audit log
/// as [`Decision::as_str`] says it (`allowed`, `denied`), the text stores
/// have always held.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Decision {
    /// The operation was carried out.
    Allowed,
    /// The operation was refused, and nothing of it was carried out.
    Denied,
}

impl Decision {
    /// `allowed` or `denied`, as the audit log holds it.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allowed => "allowed",
            Decision::Denied => "denied",
        }
    }
}

impl std::fmt::Display for Decision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A checked policy.
#[derive(Clone, Debug)]
pub struct Policy {
    /// The directory of the policy file: the seed and recorded-responses
    /// files it names are relative to it.
    pub dir: Option<std::path::PathBuf>,
    /// Whom programs run for.
    pub principal: Principal,
    /// The limits of each run.
    pub limits: Limits,
    /// Where the host keeps its data.
    pub store: Store,
    /// The granted capabilities, by name (`Http`, `Pay`, ...).
    pub grants: BTreeMap<String, Grant>,
}

impl Policy {
    /// A path the policy names, relative to the policy file's directory.
    pub fn resolve(&self, path: &str) -> String {
        match &self.dir {
            Some(d) if !std::path::Path::new(path).is_absolute() => {
                d.join(path).to_string_lossy().into_owned()
            }
            _ => path.to_string(),
        }
    }

    /// The names of the granted capabilities.
    pub fn granted(&self) -> Vec<String> {
        self.grants.keys().cloned().collect()
    }
}

/// The person (or service) programs act for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    /// A stable identifier (an employee id, an account name).
    pub id: String,
    /// How to show them.
    pub name: String,
    /// Their role (`employee`, `hr`, ...), as the host's data knows it.
    pub role: String,
}

/// Where the host keeps its data (audit log, ledger, records).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Store {
    /// The SQLite file; the host's default when absent (and no `url`).
    pub path: Option<String>,
    /// A PostgreSQL database's `postgres://` URL, which holds no
    /// password (the store is then on that database, not in a file).
    pub url: Option<String>,
    /// A file holding the PostgreSQL password (its first line).
    pub password_file: Option<String>,
    /// The environment variable holding the PostgreSQL password
    /// (`PGPASSWORD` when neither this nor `password_file` is given).
    pub password_env: Option<String>,
    /// The bound on connecting to a PostgreSQL store (at most
    /// [`MAX_LOCK_WAIT`]).
    pub connect_timeout: Option<std::time::Duration>,
    /// The bound on each statement of a PostgreSQL store (at most
    /// [`MAX_LOCK_WAIT`]).
    pub statement_timeout: Option<std::time::Duration>,
    /// The most connections to PostgreSQL stores the host's engine holds
    /// at once, runs and kept ones together (1 to 1000; 16 when absent).
    pub max_connections: Option<usize>,
    /// A file of SQL run once, when the store is created.
    pub seed: Option<String>,
    /// How long a write waits for the store's write lock, in all (at
    /// most [`MAX_LOCK_WAIT`]); the store's default when absent.
    pub lock_wait: Option<std::time::Duration>,
}

/// The longest `[store] lock_wait` (and `connect_timeout`,
/// `statement_timeout`) a policy may set.
pub const MAX_LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// What happens to a program whose operation is denied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnDeny {
    /// The operation raises `Fail` in the program, which may handle it.
    Fail,
    /// The run ends with the denial.
    Stop,
}

/// One granted capability.
#[derive(Clone, Debug)]
pub struct Grant {
    /// Whether each operation is written to the audit log before its
    /// result returns.
    pub audit: bool,
    /// Whether the audit log shows the operations' arguments; when false,
    /// they are recorded as `(redacted)`.
    pub audit_arguments: bool,
    /// What a denial does.
    pub on_deny: OnDeny,
    /// What the grant allows.
    pub scope: Scope,
    /// Where the grant is in the policy file.
    pub span: Span,
}

/// What one grant allows.
#[derive(Clone, Debug)]
pub enum Scope {
    /// Capabilities without arguments to check: `Log`, `Clock`, `Audit`,
    /// `Confirm`.
    Whole,
    /// `Http`.
    Http(HttpScope),
    /// `Pay`.
    Pay(PayScope),
    /// `Records`.
    Records(RecordsScope),
}

/// The URLs an `Http` grant reaches.
#[derive(Clone, Debug)]
pub struct HttpScope {
    /// Allowed URL prefixes.
    pub allow: Vec<Rule>,
    /// A file of recorded responses served instead of the network.
    pub recorded: Option<String>,
    /// The largest response body accepted, in bytes.
    pub max_response_bytes: u64,
    /// How long a request may take, in milliseconds.
    pub timeout_ms: u64,
}

/// The payments a `Pay` grant allows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PayScope {
    /// Payees that may be paid.
    pub payees: Vec<String>,
    /// The currency of every amount (ISO 4217, such as `EUR`).
    pub currency: String,
    /// The largest single payment, in cents.
    pub max_payment_cents: i64,
    /// The most one run may pay in all, in cents.
    pub max_run_cents: i64,
    /// The most paid per calendar day (UTC), over all runs, in cents.
    pub max_day_cents: i64,
    /// Whether the person confirms each payment first.
    pub confirm: bool,
}

/// Whose records a `Records` grant reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subjects {
    /// Only the principal's own record.
    Own,
    /// The principal's direct and indirect reports.
    Reports,
    /// Everyone's.
    All,
}

/// What a `Records` grant allows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordsScope {
    /// Whose records.
    pub subjects: Subjects,
    /// Fields removed from every record read.
    pub redact: Vec<String>,
}

/// Parse a policy's text; `Err` holds every problem found, each pointing
/// into the text. An engine with capabilities of its own parses with
/// [`Engine::parse_policy`](crate::engine::Engine::parse_policy), which
/// knows them.
pub fn parse(text: &str) -> Result<Policy, Vec<Diagnostic>> {
    parse_with(text, &[])
}

/// The names of the capabilities a policy's text grants (the keys of its
/// `[grants]` table), in the order written; empty if the text is not
/// TOML or grants nothing. What a host that has not made its engine yet
/// reads before parsing a policy that may grant capabilities of its own
/// ([`parse_with`]), to check them against its engine later.
pub fn granted_names(text: &str) -> Vec<String> {
    let Ok(root) = DeTable::parse(text) else {
        return Vec::new();
    };
    match root.get_ref().get("grants").map(|v| v.get_ref()) {
        Some(DeValue::Table(t)) => t.keys().map(|k| k.get_ref().to_string()).collect(),
        _ => Vec::new(),
    }
}

/// As [`parse`], where the host also provides the capabilities named in
/// `extra` (registered by an embedder); their grants take the keys every
/// grant has (`audit`, default `true`, and `on_deny`).
pub fn parse_with(text: &str, extra: &[String]) -> Result<Policy, Vec<Diagnostic>> {
    let root = match DeTable::parse(text) {
        Ok(t) => t,
        Err(e) => {
            let span = e
                .span()
                .map_or(Span::new(0, 0), |r| Span::new(r.start, r.end));
            return Err(vec![
                Diagnostic::new(
                    Code::PolicySyntax,
                    format!(
                        "expected a TOML policy, found a syntax error: {}",
                        first_line(e.message())
                    ),
                )
                .with_primary(span, "here")
                .with_help("see docs/policy.md for the form of a policy file"),
            ]);
        }
    };
    let mut r = Reader { diags: Vec::new() };
    let whole = Span::new(0, 0);
    let top = root.get_ref();
    r.known_keys(
        top,
        "the policy",
        &["principal", "limits", "store", "grants"],
    );
    let principal = match r.table(top, "principal", "the policy") {
        Some((t, span)) => {
            r.known_keys(t, "[principal]", &["id", "name", "role"]);
            let id = r.required_str(t, "id", "[principal]", span);
            let name = r.str(t, "name", "[principal]").map(|(s, _)| s);
            let role = r.required_str(t, "role", "[principal]", span);
            Principal {
                name: name.unwrap_or_else(|| id.clone()),
                id,
                role,
            }
        }
        None => {
            r.missing(
                whole,
                "the policy",
                "[principal]",
                "add `[principal]` with `id` and `role`",
            );
            Principal {
                id: String::new(),
                name: String::new(),
                role: String::new(),
            }
        }
    };
    let mut limits = Limits::default();
    if let Some((t, _)) = r.table(top, "limits", "the policy") {
        let names = limits::Limit::SETTABLE.map(limits::Limit::name);
        r.known_keys(t, "[limits]", &names);
        for (key, value) in t
            .iter()
            .filter(|(k, _)| names.contains(&k.get_ref().as_ref()))
        {
            let text = match value.get_ref() {
                DeValue::String(s) => Some(s.to_string()),
                DeValue::Integer(i) => Some(i.as_str().to_string()),
                DeValue::Float(f) => Some(f.as_str().to_string()),
                _ => None,
            };
            let span = span_of(value);
            match text {
                Some(text) => {
                    if let Err(e) = limits.set(key.get_ref(), &text) {
                        r.invalid(span, format!("expected a valid `{}` limit, found `{text}`: {e}", key.get_ref()), "sizes take K, M or G (`64M`), times ms, s or m (`10s`), counts may be written `1e9`");
                    }
                }
                None => r.invalid(
                    span,
                    format!(
                        "expected `{}` in [limits] to be a number or a string, found {}",
                        key.get_ref(),
                        value.get_ref().type_str()
                    ),
                    "write `memory = \"64M\"` or `fuel = 1000000`",
                ),
            }
        }
    }
    let mut store = Store::default();
    if let Some((t, _)) = r.table(top, "store", "the policy") {
        r.known_keys(
            t,
            "[store]",
            &[
                "path",
                "url",
                "seed",
                "lock_wait",
                "password_file",
                "password_env",
                "connect_timeout",
                "statement_timeout",
                "max_connections",
            ],
        );
        store.path = match r.str(t, "path", "[store]") {
            // A store in memory is the embedder's to choose (it lives
            // only as long as the host's process), never a policy's.
            Some((p, span)) if p.starts_with("memory:") => {
                r.invalid(
                    span,
                    "expected `path` in [store] to be a SQLite file's path, found a memory store's name".to_string(),
                    "a store in memory is chosen by the host that embeds Writ, not by a policy; to name a file called so, write `./memory:...`",
                );
                None
            }
            Some((p, span)) => match crate::store::sqlite_path_refusal(&p) {
                Some(reason) => {
                    r.invalid(
                        span,
                        format!("in `path` of [store]: {reason}"),
                        "name the store's file, like `path = \"audit.db\"` (relative to the policy's directory)",
                    );
                    None
                }
                None => Some(p),
            },
            None => None,
        };
        store.seed = r.str(t, "seed", "[store]").map(|(s, _)| s);
        // A time of at most 60s; for a timeout, above zero too (a
        // connection or a statement given no time at all always fails).
        let mut time = |key: &str, least: &str| -> Option<std::time::Duration> {
            let (text, span) = r.str(t, key, "[store]")?;
            match limits::parse_time(&text) {
                Ok(wait) if wait <= MAX_LOCK_WAIT && (least.is_empty() || !wait.is_zero()) => {
                    Some(wait)
                }
                _ => {
                    r.invalid(
                        span,
                        format!("expected `{key}` in [store] to be a time{least} of at most 60s, found `{text}`"),
                        &format!("write a time in ms, s or m, like `{key} = \"10s\"`"),
                    );
                    None
                }
            }
        };
        store.lock_wait = time("lock_wait", "");
        store.connect_timeout = time("connect_timeout", " above 0");
        store.statement_timeout = time("statement_timeout", " above 0");
        if let Some(v) = t.get("max_connections") {
            let n = match v.get_ref() {
                DeValue::Integer(i) => {
                    i64::from_str_radix(&i.as_str().replace('_', ""), i.radix()).ok()
                }
                _ => None,
            };
            let most = crate::connections::MOST_CONNECTIONS;
            match n.and_then(|n| usize::try_from(n).ok()) {
                Some(n) if (1..=most).contains(&n) => store.max_connections = Some(n),
                _ => r.invalid(
                    span_of(v),
                    format!(
                        "expected `max_connections` in [store] to be a whole number from 1 to {most}, found {}",
                        describe(v.get_ref())
                    ),
                    "the most connections to a PostgreSQL store this host holds at once, like `max_connections = 16`",
                ),
            }
        }
        store.password_file = r.str(t, "password_file", "[store]").map(|(s, _)| s);
        store.password_env = r.str(t, "password_env", "[store]").map(|(s, _)| s);
        if let Some((url, span)) = r.str(t, "url", "[store]") {
            match crate::store::Location::parse(&url) {
                Ok(crate::store::Location::Postgres(_)) if store.path.is_some() => r.invalid(
                    span,
                    "expected one of `path` and `url` in [store], found both".to_string(),
                    "a store is a SQLite file (`path`) or a PostgreSQL database (`url`)",
                ),
                Ok(crate::store::Location::Postgres(_)) => store.url = Some(url),
                // Not shown: a text that is not a URL may still hold a
                // password (`writ:secret@host/team`).
                Ok(crate::store::Location::Sqlite(_) | crate::store::Location::Memory(_)) => r.invalid(
                    span,
                    "expected `url` in [store] to be a postgres:// URL, found a text that is not one"
                        .to_string(),
                    "a SQLite store is named by `path`",
                ),
                Err(e) => r.invalid(
                    span,
                    // What is wrong (a password, another scheme, a URL
                    // the client does not read) is in `e`.
                    format!("in `url` of [store]: {e}"),
                    "write `url = \"postgres://USER@HOST:PORT/DATABASE\"`",
                ),
            }
        }
    }
    let mut grants = BTreeMap::new();
    if let Some((t, _)) = r.table(top, "grants", "the policy") {
        for (key, value) in t.iter() {
            let name = key.get_ref().to_string();
            let kspan = span_of_key(key);
            let mut known: Vec<&str> = Builtin::ALL.iter().map(|b| b.name()).collect();
            known.extend(extra.iter().map(String::as_str));
            if !known.contains(&name.as_str()) {
                let mut d = Diagnostic::new(
                    Code::PolicyUnknownCapability,
                    format!(
                        "expected a capability this host provides ({}), found `{name}`",
                        known.join(", ")
                    ),
                )
                .with_primary(kspan, "no such capability");
                if name == "Fail" {
                    d = d.with_help(
                        "`Fail` needs no grant: every program may fail, and may handle `Fail` itself; remove this section",
                    );
                } else if let Some(s) = writ_lang::types::suggest_name(&name, &known) {
                    d = d.with_help(format!("did you mean `{s}`?"));
                }
                r.diags.push(d);
                continue;
            }
            let section = format!("[grants.{name}]");
            let DeValue::Table(g) = value.get_ref() else {
                r.invalid(
                    span_of(value),
                    format!(
                        "expected {section} to be a table, found {}",
                        value.get_ref().type_str()
                    ),
                    "write the grant as a section: `[grants.Log]`",
                );
                continue;
            };
            if let Some(grant) = r.grant(&name, g, &section, span_of(value)) {
                grants.insert(name, grant);
            }
        }
    }
    if r.diags.is_empty() {
        Ok(Policy {
            dir: None,
            principal,
            limits,
            store,
            grants,
        })
    } else {
        r.diags
            .sort_by_key(|d| d.labels.first().map_or(0, |l| l.span.start));
        Err(r.diags)
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or(s).trim()
}

fn span_of<T>(v: &Spanned<T>) -> Span {
    let r = v.span();
    Span::new(r.start, r.end)
}

fn span_of_key<T>(k: &Spanned<T>) -> Span {
    span_of(k)
}

/// Collects diagnostics while reading the tables.
struct Reader {
    diags: Vec<Diagnostic>,
}

impl Reader {
    fn invalid(&mut self, span: Span, message: String, help: &str) {
        self.diags.push(
            Diagnostic::new(Code::PolicyInvalidValue, message)
                .with_primary(span, "this value")
                .with_help(help.to_string()),
        );
    }

    fn missing(&mut self, span: Span, section: &str, key: &str, help: &str) {
        self.diags.push(
            Diagnostic::new(
                Code::PolicyMissingKey,
                format!("expected {section} to have `{key}`, found none"),
            )
            .with_primary(span, format!("{section} starts here"))
            .with_help(help.to_string()),
        );
    }

    /// Report every key of `t` not in `known`.
    fn known_keys(&mut self, t: &DeTable<'_>, section: &str, known: &[&str]) {
        for key in t.keys() {
            let name = key.get_ref();
            if known.contains(&name.as_ref()) {
                continue;
            }
            let listed: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
            let mut d = Diagnostic::new(
                Code::PolicyUnknownKey,
                format!(
                    "expected a key of {section} ({}), found `{name}`",
                    listed.join(", ")
                ),
            )
            .with_primary(span_of_key(key), "unknown key");
            if let Some(s) = writ_lang::types::suggest_name(name, known) {
                d = d.with_help(format!("did you mean `{s}`?"));
            } else {
                d = d.with_help("a key the policy does not know is an error, so that a misspelt key (a limit, a cap) never goes unnoticed");
            }
            self.diags.push(d);
        }
    }

    /// The sub-table `key` of `t`, if present (an error if it is not a table).
    fn table<'t, 'i>(
        &mut self,
        t: &'t DeTable<'i>,
        key: &str,
        section: &str,
    ) -> Option<(&'t DeTable<'i>, Span)> {
        let v = t.get(key)?;
        match v.get_ref() {
            DeValue::Table(inner) => Some((inner, span_of(v))),
            other => {
                self.invalid(
                    span_of(v),
                    format!(
                        "expected `{key}` in {section} to be a table, found {}",
                        other.type_str()
                    ),
                    "write it as a section: `[principal]` on its own line, then its keys",
                );
                None
            }
        }
    }

    fn str(&mut self, t: &DeTable<'_>, key: &str, section: &str) -> Option<(String, Span)> {
        let v = t.get(key)?;
        match v.get_ref() {
            DeValue::String(s) => Some((s.to_string(), span_of(v))),
            other => {
                self.invalid(
                    span_of(v),
                    format!(
                        "expected `{key}` in {section} to be a string, found {}",
                        other.type_str()
                    ),
                    "put the value in double quotes",
                );
                None
            }
        }
    }

    fn required_str(&mut self, t: &DeTable<'_>, key: &str, section: &str, at: Span) -> String {
        if t.get(key).is_none() {
            self.missing(
                at,
                section,
                key,
                &format!("add `{key} = \"...\"` to {section}"),
            );
            return String::new();
        }
        match self.str(t, key, section) {
            // Who the program acts for (and as what) names them in the
            // audit log and keys their daily totals: never nobody.
            Some((s, at)) if s.trim().is_empty() => {
                let example = if key == "role" { "employee" } else { "e1001" };
                self.invalid(
                    at,
                    format!("expected `{key}` in {section} to be a non-empty string, found an empty one"),
                    &format!("write the {key} of the person the programs act for, such as `{key} = \"{example}\"`"),
                );
                String::new()
            }
            Some((s, _)) => s,
            None => String::new(),
        }
    }

    fn bool(&mut self, t: &DeTable<'_>, key: &str, section: &str) -> Option<bool> {
        let v = t.get(key)?;
        match v.get_ref() {
            DeValue::Boolean(b) => Some(*b),
            other => {
                self.invalid(
                    span_of(v),
                    format!(
                        "expected `{key}` in {section} to be `true` or `false`, found {}",
                        other.type_str()
                    ),
                    "write `true` or `false`, without quotes",
                );
                None
            }
        }
    }

    /// A non-negative integer.
    fn count(&mut self, t: &DeTable<'_>, key: &str, section: &str) -> Option<i64> {
        let v = t.get(key)?;
        let parsed = match v.get_ref() {
            DeValue::Integer(i) => {
                i64::from_str_radix(&i.as_str().replace('_', ""), i.radix()).ok()
            }
            _ => None,
        };
        match parsed {
            Some(n) if n >= 0 => Some(n),
            _ => {
                let help = if key.ends_with("_cents") {
                    "amounts are whole numbers of cents: `50000` for 500.00"
                } else if key.ends_with("_bytes") {
                    "a size is a whole number of bytes, without a unit or quotes: `1048576` for 1 MiB"
                } else {
                    "write a whole number, without quotes"
                };
                self.invalid(span_of(v), format!("expected `{key}` in {section} to be a whole number of at least 0, found {}", describe(v.get_ref())), help);
                None
            }
        }
    }

    fn strings(
        &mut self,
        t: &DeTable<'_>,
        key: &str,
        section: &str,
    ) -> Option<Vec<(String, Span)>> {
        let v = t.get(key)?;
        let DeValue::Array(items) = v.get_ref() else {
            self.invalid(
                span_of(v),
                format!(
                    "expected `{key}` in {section} to be a list of strings, found {}",
                    v.get_ref().type_str()
                ),
                "write a list: `[\"a\", \"b\"]`",
            );
            return None;
        };
        let mut out = Vec::new();
        for item in items.iter() {
            match item.get_ref() {
                DeValue::String(s) => out.push((s.to_string(), span_of(item))),
                other => self.invalid(
                    span_of(item),
                    format!(
                        "expected each entry of `{key}` in {section} to be a string, found {}",
                        other.type_str()
                    ),
                    "put each entry in double quotes",
                ),
            }
        }
        Some(out)
    }

    fn grant(&mut self, name: &str, g: &DeTable<'_>, section: &str, span: Span) -> Option<Grant> {
        // An embedder's capability takes only the keys every grant takes,
        // and is audited by default.
        let builtin = Builtin::named(name);
        let specific = builtin.map_or(&[][..], Builtin::scope_keys);
        let mut known = vec!["audit", "audit_arguments", "on_deny"];
        known.extend_from_slice(specific);
        self.known_keys(g, section, &known);
        let before = self.diags.len();
        let audit = self
            .bool(g, "audit", section)
            .unwrap_or(builtin.is_none_or(Builtin::audited_by_default));
        if builtin == Some(Builtin::Pay)
            && !audit
            && let Some(v) = g.get("audit")
        {
            self.invalid(span_of(v), format!("expected `audit` in {section} to be true, found false"), "every payment is recorded in the audit log with the ledger entry, in one transaction; leave `audit` out");
        }
        let on_deny = match self.str(g, "on_deny", section) {
            None => OnDeny::Stop,
            Some((s, _)) if s == "stop" => OnDeny::Stop,
            Some((s, _)) if s == "fail" => OnDeny::Fail,
            Some((s, at)) => {
                self.invalid(
                    at,
                    format!(
                        "expected `on_deny` in {section} to be \"fail\" or \"stop\", found \"{s}\""
                    ),
                    "\"fail\" raises `Fail` in the program; \"stop\" ends the run",
                );
                OnDeny::Stop
            }
        };
        let scope = match builtin {
            Some(Builtin::Http) => Scope::Http(self.http(g, section, span)),
            Some(Builtin::Pay) => Scope::Pay(self.pay(g, section, span)),
            Some(Builtin::Records) => Scope::Records(self.records(g, section, span)),
            Some(Builtin::Audit | Builtin::Log | Builtin::Clock | Builtin::Confirm) | None => {
                Scope::Whole
            }
        };
        let audit_arguments = self.bool(g, "audit_arguments", section).unwrap_or(true);
        (self.diags.len() == before).then_some(Grant {
            audit,
            audit_arguments,
            on_deny,
            scope,
            span,
        })
    }

    fn http(&mut self, g: &DeTable<'_>, section: &str, span: Span) -> HttpScope {
        let mut allow = Vec::new();
        for (text, at) in self.strings(g, "allow", section).unwrap_or_default() {
            match Rule::parse(&text) {
                Ok(rule) => allow.push(rule),
                Err(e) => self.invalid(
                    at,
                    format!("expected an allow-list URL, found \"{text}\": {e}"),
                    "write an origin and a path prefix: \"https://air-one.example/offers\"",
                ),
            }
        }
        let recorded = self.str(g, "recorded", section).map(|(s, _)| s);
        if g.get("allow").is_none() && recorded.is_none() {
            self.missing(span, section, "allow", "list the URL prefixes the program may reach, or name a file of `recorded` responses");
        }
        let timeout_ms = match self.str(g, "timeout", section) {
            None => 10_000,
            Some((text, at)) => match limits::parse_time(&text) {
                Ok(t) => u64::try_from(t.as_millis()).unwrap_or(u64::MAX),
                Err(e) => {
                    self.invalid(
                        at,
                        format!("expected a duration for `timeout`, found \"{text}\": {e}"),
                        "write milliseconds, seconds or minutes: \"500ms\", \"10s\", \"1m\"",
                    );
                    10_000
                }
            },
        };
        let max_response_bytes = self
            .count(g, "max_response_bytes", section)
            .map_or(1 << 20, |n| n.unsigned_abs());
        HttpScope {
            allow,
            recorded,
            max_response_bytes,
            timeout_ms,
        }
    }

    fn pay(&mut self, g: &DeTable<'_>, section: &str, span: Span) -> PayScope {
        let payees: Vec<String> = match self.strings(g, "payees", section) {
            Some(p) => p.into_iter().map(|(s, _)| s.to_ascii_lowercase()).collect(),
            // Present but of the wrong type: already reported.
            None if g.get("payees").is_some() => Vec::new(),
            None => {
                self.missing(
                    span,
                    section,
                    "payees",
                    "list who may be paid: `payees = [\"air-one.example\"]`",
                );
                Vec::new()
            }
        };
        let currency = match self.str(g, "currency", section) {
            Some((c, at)) => {
                if c.len() != 3 || !c.chars().all(|ch| ch.is_ascii_uppercase()) {
                    self.invalid(
                        at,
                        format!("expected a currency code of three capital letters, found \"{c}\""),
                        "write an ISO 4217 code: \"EUR\", \"USD\"",
                    );
                }
                c
            }
            None if g.get("currency").is_some() => String::new(),
            None => {
                self.missing(span, section, "currency", "add `currency = \"EUR\"`");
                String::new()
            }
        };
        let max_payment_cents = match self.count(g, "max_payment_cents", section) {
            Some(n) => n,
            None => {
                if g.get("max_payment_cents").is_none() {
                    self.missing(
                        span,
                        section,
                        "max_payment_cents",
                        "cap each payment: `max_payment_cents = 50000`",
                    );
                }
                0
            }
        };
        let max_run_cents = self
            .count(g, "max_run_cents", section)
            .unwrap_or(max_payment_cents);
        let max_day_cents = self
            .count(g, "max_day_cents", section)
            .unwrap_or(max_run_cents);
        let confirm = self.bool(g, "confirm", section).unwrap_or(false);
        PayScope {
            payees,
            currency,
            max_payment_cents,
            max_run_cents,
            max_day_cents,
            confirm,
        }
    }

    fn records(&mut self, g: &DeTable<'_>, section: &str, span: Span) -> RecordsScope {
        let subjects = match self.str(g, "scope", section) {
            Some((s, at)) => match s.as_str() {
                "self" => Subjects::Own,
                "reports" => Subjects::Reports,
                "all" => Subjects::All,
                _ => {
                    self.invalid(at, format!("expected `scope` in {section} to be \"self\", \"reports\" or \"all\", found \"{s}\""), "\"self\": the principal's own record; \"reports\": their direct and indirect reports; \"all\": everyone's");
                    Subjects::Own
                }
            },
            None if g.get("scope").is_some() => Subjects::Own,
            None => {
                self.missing(
                    span,
                    section,
                    "scope",
                    "add `scope = \"self\"`, `\"reports\"` or `\"all\"`",
                );
                Subjects::Own
            }
        };
        let redact = self
            .strings(g, "redact", section)
            .unwrap_or_default()
            .into_iter()
            .map(|(s, _)| s)
            .collect();
        RecordsScope { subjects, redact }
    }
}

fn describe(v: &DeValue<'_>) -> String {
    match v {
        DeValue::Integer(i) => format!("`{}`", i.as_str()),
        DeValue::Float(f) => format!("`{}`", f.as_str()),
        DeValue::String(s) => format!("\"{s}\""),
        other => other.type_str().to_string(),
    }
}
