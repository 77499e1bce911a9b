//! The engine: check a program against a policy, then run it with exactly
//! the authority the policy grants.
//!
//! [`Engine::check`] type-checks a program with the policy's grants (a
//! program that could perform an effect nobody granted is rejected before
//! its first step) and compiles it once; [`Engine::run`] runs a
//! [`Compiled`] program under a policy to its end, and [`Engine::start`]
//! runs it handing it out to the host at the operations the host chose
//! ([`PauseAt`], [`Step`], [`Pending`], [`Reply`]; see the `drive` module),
//! both with a policy host that carries out each
//! host operation only after checking its arguments' sizes
//! ([`crate::arguments`]) and then against the grant's scope, writing the
//! audit record first.
//!
//! Invariants (fail closed): an operation whose check cannot be made
//! (store unavailable, audit record not committed, malformed URL) is
//! denied and carries out nothing; a denial is audited, and raises `Fail`
//! in the program or ends the run as the grant's `on_deny` says.

use std::collections::HashMap;
use std::sync::Arc;

use writ_lang::{Code, Diagnostic};
use writ_runtime::json::Json;
use writ_runtime::{Module, RunError, Usage};

use crate::builtin::Builtin;
pub use crate::capability::{ArgError, Args, Capability, FromValue, Handler, IntoValue, Refusal};
pub use crate::drive::{BadReply, PauseAt, Pending, Reply, Step};
use crate::http::load_recorded;
pub use crate::plan::{Plan, PlannedAct, policy_digest};
pub use crate::policy::Decision;
use crate::policy::{Policy, Scope};
pub use crate::policy_host::clean;
pub use crate::reads::{ReadMode, RecordedRead, Recording};
pub use crate::snapshot::saved_pause_at;
use crate::store::{self, Store};

/// A checked, compiled program, ready to run any number of times.
pub struct Compiled {
    module: Module,
    /// The SHA-256 of the program's text, recorded in every audit record.
    pub hash: String,
    /// The effects the program performs, by name.
    pub effects: Vec<String>,
    /// Its capability manifest: each effect with the places it is
    /// performed.
    pub manifest: Vec<writ_lang::types::ManifestEntry>,
    /// The inputs it was checked with ([`Engine::check_with_inputs`]),
    /// whose values each run is given ([`RunOptions::inputs`]).
    pub inputs: Vec<writ_lang::types::Input>,
}

impl Compiled {
    /// What a snapshot of a run of this program is bound to: the program's
    /// hash, and, when it was checked with inputs, each input's name and
    /// type too (the run's values were made by those types, and a saved
    /// run is resumed only by the program checked as it was).
    pub(crate) fn identity(&self) -> String {
        if self.inputs.is_empty() {
            return self.hash.clone();
        }
        let mut text = self.hash.clone();
        for input in &self.inputs {
            text.push_str(&format!("\n{}={}", input.name, input.ty));
        }
        store::sha256_hex(text.as_bytes())
    }

    /// The compiled module.
    pub(crate) fn module(&self) -> &Module {
        &self.module
    }
}

/// One host operation the program asked for, and what became of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operation {
    /// `Effect.op`.
    pub operation: String,
    /// Its arguments, as shown in the audit log.
    pub arguments: String,
    /// What was decided.
    pub decision: Decision,
    /// The rule that decided.
    pub rule: String,
    /// The sequence number of its audit record, when one was written (the
    /// grant audits, or the operation was denied).
    pub audit_id: Option<i64>,
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// How the run ended: the final value's display form (empty for `()`),
    /// or the error that stopped it.
    pub result: Result<String, RunError>,
    /// The final value as JSON (the mapping of [`writ_runtime::json`]):
    /// `None` when the run failed, `Some(Err(_))` with the output limit's
    /// code (`E5004`) when its JSON would be longer than the policy's
    /// output limit (it is refused whole, never cut).
    pub value: Option<Result<Json, RunError>>,
    /// What the run used of its limits: fuel, peak memory, time.
    pub usage: Usage,
    /// The lines the program wrote with `Log.info`.
    pub output: Vec<String>,
    /// Every host operation, in order, with its decision.
    pub operations: Vec<Operation>,
    /// The sequence numbers of the audit records the run wrote.
    pub audit_ids: Vec<i64>,
    /// Whether `Http` answers came from recorded responses rather than the
    /// network.
    pub recorded: bool,
    /// The reads performed, with their answers, when the run recorded them
    /// ([`RunOptions::reads`], [`ReadMode::Record`]); else empty.
    pub reads: Vec<RecordedRead>,
    /// In a run of an approved plan with its reads performed again
    /// ([`RunOptions::approved`] with [`ReadMode::Record`]): each read that
    /// answered otherwise than when the plan was made, or was not made
    /// then, in words (`Http.get("…") answered otherwise than when the
    /// plan was made`).
    pub changed_reads: Vec<String>,
}

impl Outcome {
    /// The final value as a `serde_json::Value`: `None` when the run
    /// failed or its JSON was refused; `Some(Err(_))` if serde_json cannot
    /// read it back (it refuses nesting deeper than 128, where
    /// [`Outcome::value`]'s text has no depth limit).
    pub fn value_json(&self) -> Option<Result<serde_json::Value, serde_json::Error>> {
        match &self.value {
            Some(Ok(json)) => Some(serde_json::from_str(json.as_str())),
            _ => None,
        }
    }
}

/// Where the store lives for a run, and what the program is given.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// The SQLite file; overrides the policy's `[store] path`.
    pub store: Option<String>,
    /// A JSON value for each input the program was checked with, by name
    /// (decision 009): each is converted to a Writ value of the input's
    /// type before the first step; a value that does not match (`E4007`),
    /// an input without a value or a value for no input (`E4008`) is an
    /// error, and nothing runs.
    pub inputs: serde_json::Map<String, serde_json::Value>,
    /// Where a run started with [`Engine::start`] is handed out to the
    /// host: at every operation of a host capability (the default), or
    /// at those named. [`Engine::run`] hands out none.
    pub pause_at: PauseAt,
    /// Whether the reads that come from outside the run are performed
    /// (the default), recorded, or replayed from a recording (see
    /// [`ReadMode`]).
    pub reads: ReadMode,
    /// A plan the person approved ([`Engine::plan`]): the run carries out
    /// only its allowed acts, in order, each once (another act is `E4013`,
    /// stopped before it), and answers its reads from the plan's recording
    /// (with `reads` set to [`ReadMode::Record`], performs and records them
    /// instead; [`ReadMode::Replay`] replays that recording); a plan of another program, policy,
    /// person or inputs, or executed before, is `E4014` and nothing runs.
    pub approved: Option<Arc<Plan>>,
    /// Set from another thread to stop the run: it ends with the
    /// `cancel` limit (`E5006`) at its next check of its limits (every
    /// 4,096 steps), carrying out nothing more.
    /// A run restored from a snapshot watches the flag it is restored with.
    pub cancel: Option<Arc<std::sync::atomic::AtomicBool>>,
}

/// Asks the person to confirm an action; `false` when nobody can answer.
pub type Confirmer = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// Reads a file a policy names (its seed, its recorded `Http` responses)
/// by its path, resolved against the policy's directory: its text, or why
/// not. The default reads the file system ([`read_named_file`]); a host
/// without one (a web page) gives the files it holds
/// ([`Engine::with_files`]).
pub type Files = Arc<dyn Fn(&str) -> Result<String, String> + Send + Sync>;

/// The most bytes of a file a policy names (a seed, recorded responses)
/// that the host reads: 64 MiB.
pub const MAX_NAMED_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Read the file at `path` as UTF-8 text of at most
/// [`MAX_NAMED_FILE_BYTES`], or say why not. Reads no more than one byte
/// past the bound, whatever the file is (a device, a pipe, a file that
/// grows), so a policy cannot make the host read without end.
pub fn read_named_file(path: &str) -> Result<String, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        return Err("expected a file, found a directory".to_string());
    }
    let mut bytes = Vec::new();
    file.take(MAX_NAMED_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_NAMED_FILE_BYTES {
        return Err(format!(
            "expected a file of at most {MAX_NAMED_FILE_BYTES} bytes (64 MiB), found more"
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "expected UTF-8 text, found an invalid byte at offset {}",
            e.utf8_error().valid_up_to()
        )
    })
}

/// Holds the host's capability implementations and checks and runs
/// programs. `Send + Sync`: check once, run many times on many threads.
#[derive(Clone)]
pub struct Engine {
    pub(crate) confirm: Confirmer,
    pub(crate) clock: Arc<dyn Fn() -> i64 + Send + Sync>,
    pub(crate) files: Files,
    pub(crate) capabilities: Vec<Capability>,
    /// Connections to stores kept between runs (shared by the engine's
    /// clones).
    pub(crate) idle: Arc<IdleStores>,
    /// The connections to PostgreSQL stores held, counted (shared by the
    /// engine's clones).
    pub(crate) connections: Arc<crate::connections::Connections>,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

/// The default store file when neither the options nor the policy name one.
pub const DEFAULT_STORE: &str = "writ.db";

impl Engine {
    /// An engine whose confirmations are all refused (no one to ask) and
    /// whose clock is the system's.
    pub fn new() -> Engine {
        Engine {
            confirm: Arc::new(|_| false),
            clock: Arc::new(store::now_ms),
            files: Arc::new(read_named_file),
            capabilities: Vec::new(),
            idle: Arc::new(IdleStores::default()),
            connections: Arc::default(),
        }
    }

    /// Use `confirm` to ask the person before actions that need it.
    pub fn with_confirm(mut self, confirm: Confirmer) -> Engine {
        self.confirm = confirm;
        self
    }

    /// Use `clock` (milliseconds since the Unix epoch) for `Clock.now`.
    pub fn with_clock(mut self, clock: Arc<dyn Fn() -> i64 + Send + Sync>) -> Engine {
        self.clock = clock;
        self
    }

    /// Read the files a policy names (its seed, its recorded responses)
    /// with `files` rather than from the file system.
    pub fn with_files(mut self, files: Files) -> Engine {
        self.files = files;
        self
    }

    /// Provide a capability of the embedder's: `interface` declares the
    /// effect `name` in Writ, `handler` carries out its operations. Its
    /// grants, audit and denials work as the built-in capabilities' do.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use writ_host::engine::{Engine, IntoValue, RunOptions};
    ///
    /// let engine = Engine::new().with_capability(
    ///     "Weather",
    ///     "effect Weather {\n  /// The forecast high for `city`.\n  fn high(city: Str) -> Int\n}\n",
    ///     Arc::new(|op, args| match op {
    ///         "high" if args.get::<String>(0)? == "Oslo" => Ok((-3i64).into_value()),
    ///         _ => Err("no forecast".into()),
    ///     }),
    /// );
    /// let policy = engine
    ///     .parse_policy("[principal]\nid = \"a\"\nrole = \"r\"\n\n[grants.Weather]\n")
    ///     .expect("a valid policy");
    /// let program = engine.check("Weather.high(\"Oslo\") + 1\n", &policy).expect("accepted");
    /// let db = std::env::temp_dir().join(format!("writ-weather-{}.db", std::process::id()));
    /// let options = RunOptions { store: Some(db.display().to_string()), ..Default::default() };
    /// let outcome = engine.run(&program, &policy, &options, &mut |_: &str| {}).expect("ran");
    /// assert_eq!(outcome.result.ok().as_deref(), Some("-2"));
    /// assert_eq!(outcome.audit_ids.len(), 1);
    /// # let _ = std::fs::remove_file(db);
    /// ```
    pub fn with_capability(mut self, name: &str, interface: &str, handler: Handler) -> Engine {
        self.capabilities.push(Capability {
            name: name.to_string(),
            interface: interface.to_string(),
            handler,
            reads: Vec::new(),
            results: Capability::results_of(name, interface),
        });
        self
    }

    /// Declare operations of the embedder's capability `capability` reads:
    /// they change nothing outside the person's host (they fetch, look up,
    /// compute). Every operation not declared so is an act — what a person
    /// approves in a plan — so a declaration left out errs on the side of
    /// asking. An error names a capability that is not the embedder's (the
    /// built-in ones' kinds are fixed) or an operation its interface does
    /// not declare.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use writ_host::engine::{Engine, IntoValue};
    /// use writ_lang::types::OpKind;
    ///
    /// let engine = Engine::new()
    ///     .with_capability(
    ///         "Tickets",
    ///         "effect Tickets {\n  fn price(route: Str) -> Int\n  fn book(route: Str) -> Str\n}\n",
    ///         Arc::new(|op, _| Ok(if op == "price" { 38900i64.into_value() } else { "T-1".into_value() })),
    ///     )
    ///     .with_reads("Tickets", &["price"])
    ///     .expect("Tickets.price is declared");
    /// assert_eq!(engine.operation_kind("Tickets", "price"), Some(OpKind::Read));
    /// assert_eq!(engine.operation_kind("Tickets", "book"), Some(OpKind::Act));
    /// assert_eq!(engine.operation_kind("Pay", "pay"), Some(OpKind::Act));
    /// assert!(engine.clone().with_reads("Tickets", &["cancel"]).is_err());
    /// assert!(engine.with_reads("Pay", &["pay"]).is_err());
    /// ```
    pub fn with_reads(mut self, capability: &str, ops: &[&str]) -> Result<Engine, String> {
        let Some(c) = self.capabilities.iter_mut().find(|c| c.name == capability) else {
            return Err(format!(
                "expected one of the embedder's capabilities ({}), found `{}`: the built-in capabilities' reads and acts are fixed",
                self.capability_names().join(", "),
                clean(capability)
            ));
        };
        for op in ops {
            if c.result_of(op).is_none() {
                return Err(format!(
                    "expected an operation {capability}'s interface declares, found `{}`",
                    clean(op)
                ));
            }
            if !c.reads.iter().any(|r| r == op) {
                c.reads.push(op.to_string());
            }
        }
        Ok(self)
    }

    /// Whether `effect.op` is a read or an act: fixed for the built-in
    /// capabilities, declared for the embedder's ([`Engine::with_reads`]);
    /// `None` for an operation of no capability of this engine.
    pub fn operation_kind(&self, effect: &str, op: &str) -> Option<writ_lang::types::OpKind> {
        if let Some(k) = writ_lang::types::builtin_op_kind(effect, op) {
            return Some(k);
        }
        let c = self.capabilities.iter().find(|c| c.name == effect)?;
        let _declared = c.result_of(op)?;
        Some(if c.reads.iter().any(|r| r == op) {
            writ_lang::types::OpKind::Read
        } else {
            writ_lang::types::OpKind::Act
        })
    }

    /// The names of the capabilities the embedder added.
    pub fn capability_names(&self) -> Vec<String> {
        self.capabilities.iter().map(|c| c.name.clone()).collect()
    }

    /// The Writ interface of the embedder's capability `name`, as given
    /// to [`Engine::with_capability`] (its `effect` declaration); `None`
    /// for a name the embedder did not add.
    pub fn capability_interface(&self, name: &str) -> Option<&str> {
        self.capabilities
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.interface.as_str())
    }

    /// Parse a policy that may grant this engine's own capabilities too.
    pub fn parse_policy(&self, text: &str) -> Result<Policy, Vec<Diagnostic>> {
        crate::policy::parse_with(text, &self.capability_names())
    }

    /// Check `source` against the capabilities `policy` grants and compile
    /// it; the diagnostics if it is rejected.
    pub fn check(&self, source: &str, policy: &Policy) -> Result<Compiled, Vec<Diagnostic>> {
        self.check_with_inputs(source, policy, &[])
    }

    /// Check `source` as [`Engine::check`] does, with the `inputs` the host
    /// will pass it (decision 009): each a top-level name of the program,
    /// of the type declared in Writ's syntax. A malformed type is `E2014`,
    /// a top-level definition of an input's name `E1011`.
    ///
    /// ```
    /// use writ_host::engine::{Engine, RunOptions};
    /// use writ_lang::types::InputDecl;
    ///
    /// let engine = Engine::new();
    /// let policy = engine
    ///     .parse_policy("[principal]\nid = \"a\"\nrole = \"r\"\n")
    ///     .expect("a valid policy");
    /// let inputs = [InputDecl::new("request", "{ to: Str, budget_cents: Int }")];
    /// let program = engine
    ///     .check_with_inputs("request.budget_cents / 100\n", &policy, &inputs)
    ///     .expect("accepted");
    /// let db = std::env::temp_dir().join(format!("writ-inputs-{}.db", std::process::id()));
    /// let mut options = RunOptions { store: Some(db.display().to_string()), ..Default::default() };
    /// options.inputs.insert("request".into(), serde_json::json!({ "to": "OSL", "budget_cents": 25000 }));
    /// let outcome = engine.run(&program, &policy, &options, &mut |_: &str| {}).expect("ran");
    /// assert_eq!(outcome.result.ok().as_deref(), Some("250"));
    ///
    /// options.inputs.insert("request".into(), serde_json::json!({ "to": "OSL", "budget_cents": "250" }));
    /// let refused = engine.run(&program, &policy, &options, &mut |_: &str| {}).unwrap_err();
    /// assert_eq!(refused.message, "request.budget_cents: expected Int, found \"250\"");
    /// # let _ = std::fs::remove_file(db);
    /// ```
    pub fn check_with_inputs(
        &self,
        source: &str,
        policy: &Policy,
        inputs: &[writ_lang::types::InputDecl],
    ) -> Result<Compiled, Vec<Diagnostic>> {
        let granted = policy.granted();
        let interfaces: Vec<String> = self
            .capabilities
            .iter()
            .map(|c| c.interface.clone())
            .collect();
        let grants = writ_lang::types::Grants {
            names: &granted,
            by: writ_lang::types::GrantedBy::Policy,
        };
        let options = writ_lang::types::CheckOptions {
            grants: Some(grants),
            interfaces: &interfaces,
            inputs,
        };
        let a = writ_lang::analyse(source, &options);
        let accepted = a.accepted();
        let (Some(typed), true) = (a.typed, accepted) else {
            return Err(a.diagnostics);
        };
        let module = writ_runtime::compile(&a.program, &typed)
            .map_err(|e| vec![Diagnostic::new(Code::InternalError, e.message)])?;
        Ok(Compiled {
            module,
            hash: store::sha256_hex(source.as_bytes()),
            effects: typed.manifest.iter().map(|m| m.effect.clone()).collect(),
            manifest: typed.manifest.clone(),
            inputs: typed.inputs.clone(),
        })
    }
}

/// Where the store a run under `policy` with `options` is: the options'
/// [`RunOptions::store`] (a path or a `postgres://` URL), else the
/// policy's `[store] url`, else its `[store] path` (relative to the
/// policy file's directory), else [`DEFAULT_STORE`].
pub fn store_path(policy: &Policy, options: &RunOptions) -> String {
    options
        .store
        .clone()
        .or_else(|| policy.store.url.clone())
        .or_else(|| policy.store.path.as_ref().map(|p| policy.resolve(p)))
        .unwrap_or_else(|| DEFAULT_STORE.to_string())
}

/// How the store of a run under `policy` is reached if it is on
/// PostgreSQL: the password from the policy's `password_file` (its first
/// line), else from the environment variable its `password_env` names
/// (which must be set), else from `PGPASSWORD` if set; the policy's
/// timeouts, else the defaults.
pub fn postgres_options(policy: &Policy) -> Result<store::PostgresOptions, String> {
    let password = match (&policy.store.password_file, &policy.store.password_env) {
        (Some(file), _) => {
            // Its first line, read from its first 4 KiB at most.
            let mut text = String::new();
            std::io::Read::read_to_string(
                &mut std::io::Read::take(
                    std::fs::File::open(policy.resolve(file)).map_err(|e| {
                        format!("cannot read the store's password file {file}: {e}")
                    })?,
                    4096,
                ),
                &mut text,
            )
            .map_err(|e| format!("cannot read the store's password file {file}: {e}"))?;
            Some(text.lines().next().unwrap_or_default().to_string())
        }
        (None, Some(var)) => Some(std::env::var(var).map_err(|_| {
            format!("the policy takes the store's password from the environment variable {var}, which is not set")
        })?),
        (None, None) => std::env::var("PGPASSWORD").ok(),
    };
    Ok(store::PostgresOptions {
        password,
        connect_timeout: policy
            .store
            .connect_timeout
            .unwrap_or(store::DEFAULT_CONNECT_TIMEOUT),
        statement_timeout: policy
            .store
            .statement_timeout
            .unwrap_or(store::DEFAULT_STATEMENT_TIMEOUT),
    })
}

/// How the store at `location` is reached under `policy`: a PostgreSQL
/// store with [`postgres_options`]; a file needs nothing of the policy.
pub fn reach(
    policy: &Policy,
    location: &store::Location,
) -> Result<store::PostgresOptions, String> {
    match location {
        store::Location::Postgres(_) => postgres_options(policy),
        store::Location::Sqlite(_) | store::Location::Memory(_) => {
            Ok(store::PostgresOptions::default())
        }
    }
}

/// Open the store at `location` (a path or a `postgres://` URL) for
/// reading what it holds, reaching it as `policy` says ([`reach`]),
/// without creating it: `Ok(None)` when there is no store there yet
/// ([`Store::open_existing`]).
pub fn open_existing(policy: &Policy, location: &str) -> Result<Option<Store>, String> {
    let location = store::Location::parse(location).map_err(|e| e.to_string())?;
    Store::open_existing(&location, &reach(policy, &location)?).map_err(|e| e.to_string())
}

/// Open the store a run under `policy` uses (created, with the policy's
/// seed, on first use) and load its recorded `Http` responses.
pub(crate) fn open_for(
    policy: &Policy,
    options: &RunOptions,
    files: &Files,
) -> Result<(Store, Option<HashMap<String, String>>), RunError> {
    let path = store_path(policy, options);
    let seed = match &policy.store.seed {
        Some(s) => Some(
            files(&policy.resolve(s))
                .map_err(|e| unavailable(format!("cannot read the seed file {s}: {e}")))?,
        ),
        None => None,
    };
    let location = store::Location::parse(&path).map_err(|e| unavailable(e.to_string()))?;
    let pg = reach(policy, &location).map_err(unavailable)?;
    let mut store =
        Store::open_at(&location, &pg, seed.as_deref()).map_err(|e| unavailable(e.to_string()))?;
    if let Some(wait) = policy.store.lock_wait {
        store.set_lock_wait(wait);
    }
    Ok((store, recorded_for(policy, files)?))
}

/// Read the files `policy` names as a run would before it starts: its
/// seed (read, not applied) and its recorded `Http` responses (read
/// strictly), so that a policy whose files are missing or malformed is
/// found before anything is run, as the command line's check does; the
/// error is the one a run would stop with (`E4006`).
pub fn check_named_files(policy: &Policy, files: &Files) -> Result<(), RunError> {
    if let Some(s) = &policy.store.seed {
        files(&policy.resolve(s))
            .map_err(|e| unavailable(format!("cannot read the seed file {s}: {e}")))?;
    }
    recorded_for(policy, files).map(|_| ())
}

/// The recorded `Http` responses `policy` names, loaded.
fn recorded_for(
    policy: &Policy,
    files: &Files,
) -> Result<Option<HashMap<String, String>>, RunError> {
    Ok(
        match policy.grants.get(Builtin::Http.name()).map(|g| &g.scope) {
            Some(Scope::Http(h)) => match &h.recorded {
                Some(file) => Some(load_recorded(&policy.resolve(file), files)?),
                None => None,
            },
            _ => None,
        },
    )
}

/// What identifies a store's file on disk (its device and inode): a
/// connection kept for the path is used again only while the path still
/// names the same file (not one deleted, or replaced, since). For a
/// PostgreSQL store, what the connection was made with (a digest of the
/// password and the bounds): a connection is used again only by a run
/// whose policy reaches the database the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FileId(u64, u64);

impl FileId {
    /// What a connection to the store at `path` under `policy` is kept
    /// by: the file's identity, or for a PostgreSQL store the options the
    /// policy gives (refused, as a run is, when the policy's password
    /// cannot be had).
    fn for_store(policy: &Policy, path: &str) -> Result<Option<FileId>, RunError> {
        if !matches!(
            store::Location::parse(path),
            Ok(store::Location::Postgres(_))
        ) {
            return Ok(FileId::of(path));
        }
        let pg = postgres_options(policy).map_err(unavailable)?;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        std::hash::Hash::hash(&pg.password, &mut h);
        std::hash::Hash::hash(&pg.connect_timeout, &mut h);
        std::hash::Hash::hash(&pg.statement_timeout, &mut h);
        Ok(Some(FileId(std::hash::Hasher::finish(&h), 0)))
    }

    /// The file at `path`, if it exists and the platform says which it
    /// is.
    fn of(path: &str) -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let m = std::fs::metadata(path).ok()?;
            Some(FileId(m.dev(), m.ino()))
        }
        #[cfg(not(unix))]
        {
            let _ = path;
            None
        }
    }
}

/// A store opened for a run: the connection, the recorded `Http`
/// responses its policy names, and the path and file to keep the
/// connection for (see [`IdleStores`]).
pub(crate) type Opened = (
    Store,
    Option<HashMap<String, String>>,
    Option<(String, FileId)>,
);

/// The most connections to stores an engine keeps open between runs.
const IDLE_STORES: usize = 4;

/// Connections to stores an engine's runs have finished with, kept open
/// for its next runs: opening a SQLite store (and checking its schema)
/// costs more than a short run. A connection is kept only when no
/// transaction is open in it (a run's writes are each one transaction,
/// committed or rolled back before the operation returns), and used again
/// only for the same path naming the same file.
#[derive(Default)]
pub(crate) struct IdleStores {
    kept: std::sync::Mutex<Vec<(String, FileId, Store)>>,
}

impl IdleStores {
    /// A kept connection to the store at `path`, if there is one and
    /// `path` still names its file.
    fn take(&self, path: &str, id: Option<FileId>) -> Option<(Store, FileId)> {
        let mut kept = self.kept.lock().ok()?;
        // Connections to a file the path no longer names (deleted or
        // replaced) are closed, not kept taking a place.
        kept.retain(|(p, i, _)| p != path || Some(*i) == id);
        let id = id?;
        let at = kept.iter().position(|(p, i, _)| p == path && *i == id)?;
        let (_, id, store) = kept.swap_remove(at);
        Some((store, id))
    }

    /// Close one kept connection to a PostgreSQL store, if there is one:
    /// whether one was closed (its place in the engine's count given
    /// back).
    fn close_a_postgres_one(&self) -> bool {
        let closed = match self.kept.lock() {
            Ok(mut kept) => kept
                .iter()
                .position(|(_, _, s)| s.kind() == "postgres")
                .map(|at| kept.swap_remove(at)),
            Err(_) => None,
        };
        // Dropped here, with the lock let go: its slot takes the count's.
        closed.is_some()
    }

    /// Keep `store`, open on `path` (the file `id`), for a later run.
    pub(crate) fn put(&self, path: String, id: FileId, store: Store) {
        if let Ok(mut kept) = self.kept.lock()
            && kept.len() < IDLE_STORES
            && store.is_idle()
        {
            kept.push((path, id, store));
        }
    }
}

impl Engine {
    /// [`open_for`], with a connection this engine kept from an earlier
    /// run of the same store when there is one; and the store's path and
    /// file, to keep the connection when the run ends.
    pub(crate) fn open_store(
        &self,
        policy: &Policy,
        options: &RunOptions,
    ) -> Result<Opened, RunError> {
        let path = store_path(policy, options);
        if let Some((mut store, id)) = self.idle.take(&path, FileId::for_store(policy, &path)?) {
            store.set_lock_wait(policy.store.lock_wait.unwrap_or(store::DEFAULT_LOCK_WAIT));
            store.set_until(None);
            let recorded = recorded_for(policy, &self.files)?;
            return Ok((store, recorded, Some((path, id))));
        }
        // A connection to a PostgreSQL store takes a place in the
        // engine's count first, waiting for one (never past the run's
        // time) when all are held.
        let slot = match store::Location::parse(&path) {
            Ok(store::Location::Postgres(_)) => {
                let wait = policy
                    .store
                    .lock_wait
                    .unwrap_or(store::DEFAULT_LOCK_WAIT)
                    .min(policy.limits.time);
                let max = policy
                    .store
                    .max_connections
                    .unwrap_or(crate::connections::DEFAULT_MAX_CONNECTIONS);
                Some(
                    self.connections
                        .acquire(max, wait, || self.idle.close_a_postgres_one())
                        .map_err(unavailable)?,
                )
            }
            _ => None,
        };
        let (mut store, recorded) = open_for(policy, options, &self.files)?;
        if let Some(slot) = slot {
            store.hold(Box::new(slot));
        }
        let id = FileId::for_store(policy, &path)?;
        Ok((store, recorded, id.map(|i| (path, i))))
    }
}

pub(crate) fn unavailable(message: impl Into<String>) -> RunError {
    RunError::new(Code::HostUnavailable, message.into())
        .with_help("nothing was run: the host could not make the checks the policy asks for")
}
