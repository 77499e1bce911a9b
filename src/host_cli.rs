//! The commands that run under a policy and look after the host's store:
//! `writ run --policy`, `writ audit show|verify|head`, `writ db init`.
//!
//! This is where files and the terminal are touched: the policy, the
//! program, the store's path, and the person's confirmation (asked on the
//! terminal; refused when there is none).

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use writ_host::engine::{Confirmer, DEFAULT_STORE, Decision, Engine, ReadMode, RunOptions};
use writ_host::policy::Policy;
use writ_host::store::{
    Head, Location, PostgresOptions, SCHEMA_VERSION, Store, StoreError, VerifyError,
};

use writ::render;
use writ::render::words::Edge;

/// Write to standard output. Output that cannot be written (a closed
/// pipe, `| head`; a full disk) is dropped: the command carries on, and
/// its exit code says how it ended, as it would have.
pub fn out(text: &str) {
    let mut o = std::io::stdout().lock();
    let _ = o.write_all(text.as_bytes());
    let _ = o.flush();
}

/// Write to standard error, as [`out`] writes to standard output: never
/// a panic (as `eprintln!` would be) when it is closed.
pub fn err(text: &str) {
    let mut e = std::io::stderr().lock();
    let _ = e.write_all(text.as_bytes());
    let _ = e.flush();
}

/// Print one `Log` line of a program. On a terminal, what could drive it
/// (escape sequences, other control characters) or make text read in
/// another order is shown escaped; into a pipe or file, the line is
/// written as the program wrote it.
pub fn log_line(line: &str) {
    if std::io::stdout().is_terminal() {
        out(&format!("{}\n", render::terminal_safe(line)));
    } else {
        out(&format!("{line}\n"));
    }
}

/// Ask on the terminal; `false` when standard input is not one.
pub fn terminal_confirm(question: &str) -> bool {
    ask(question, None)
}

/// [`terminal_confirm`] for the REPL, which sets `cancel` on Ctrl-C while
/// an input runs: a question waiting for its answer is then refused at
/// once (the run then ends as cancelled, `E5006`).
pub fn terminal_confirm_or_cancel(cancel: Arc<AtomicBool>) -> Confirmer {
    Arc::new(move |question: &str| ask(question, Some(&cancel)))
}

fn ask(question: &str, cancel: Option<&AtomicBool>) -> bool {
    // The question holds text the program chose (a memo, a payee): shown
    // escaped, it cannot rewrite itself on the terminal to ask another.
    let question = render::terminal_safe(question).replace('\n', "\\n");
    if !std::io::stdin().is_terminal() {
        err_println!("{question} [y/N] (no terminal to ask: refused)");
        return false;
    }
    err_print!("{question} [y/N] ");
    let _ = std::io::stderr().flush();
    // A question is answered within the run's time or not at all: left
    // unanswered, it is refused when the run's time is up (the run then
    // ends with its time limit, `E5005`), so nobody at the terminal cannot
    // keep the host waiting.
    let deadline = writ_runtime::meter::deadline().map(|d| d.at);
    match wait_for_answer(deadline, cancel) {
        Wait::Answer => {}
        Wait::TimeUp => {
            err_println!("(no answer before the run's time was up: refused)");
            return false;
        }
        Wait::Cancelled => {
            err_println!("(cancelled: refused)");
            return false;
        }
    }
    let mut answer = String::new();
    if std::io::stdin().lock().read_line(&mut answer).is_err() {
        return false;
    }
    matches!(answer.trim(), "y" | "Y" | "yes" | "Yes")
}

/// How waiting for the person's answer ended.
enum Wait {
    /// Standard input has a line to read (or the wait itself failed, and
    /// the read that follows decides).
    Answer,
    /// The deadline passed first.
    TimeUp,
    /// `cancel` was set first.
    Cancelled,
}

/// Wait until standard input has a line to read (a terminal delivers a
/// line when Enter is pressed), `deadline` passes, or `cancel` is set
/// (looked at every 100 ms).
#[cfg(unix)]
fn wait_for_answer(deadline: Option<Instant>, cancel: Option<&AtomicBool>) -> Wait {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    use std::os::fd::AsFd;
    // Without a flag to watch, long waits are made in steps of at most
    // 65 s (what one poll(2) here can wait).
    let step: u16 = if cancel.is_some() { 100 } else { u16::MAX };
    let stdin = std::io::stdin();
    loop {
        if cancel.is_some_and(|c| c.load(Ordering::SeqCst)) {
            return Wait::Cancelled;
        }
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        if left.is_some_and(|l| l.is_zero()) {
            return Wait::TimeUp;
        }
        // Whole milliseconds, rounded up so that a wait never ends early.
        let ms = left.map_or(step, |l| {
            u16::try_from(l.as_micros().div_ceil(1000)).map_or(step, |ms| ms.min(step))
        });
        let mut fds = [PollFd::new(stdin.as_fd(), PollFlags::POLLIN)];
        match poll(&mut fds, PollTimeout::from(ms)) {
            Ok(0) | Err(nix::errno::Errno::EINTR) => continue,
            Ok(_) | Err(_) => return Wait::Answer,
        }
    }
}

/// Elsewhere the read waits for the answer, however long it takes: the
/// run's time limit and cancellation are seen only once it returns.
#[cfg(not(unix))]
fn wait_for_answer(_deadline: Option<Instant>, _cancel: Option<&AtomicBool>) -> Wait {
    Wait::Answer
}

/// What `writ run FILE --policy P` was given.
pub struct PolicyRun<'a> {
    /// The program.
    pub file: &'a Path,
    /// The policy.
    pub policy: &'a Path,
    /// `--db`.
    pub db: Option<&'a Path>,
    /// `--limit`s.
    pub limit: &'a [String],
    /// `--input-type`s and `--inputs`.
    pub inputs: (&'a [String], Option<&'a Path>),
    /// `--format json`.
    pub json: bool,
    /// `--pause-at` with `--save`.
    pub pausing: Option<crate::pause_cli::Pausing<'a>>,
    /// `--record` and `--replay`.
    pub reads: (Option<&'a Path>, Option<&'a Path>),
    /// `--approve`, and `--live`.
    pub approve: Option<(&'a Path, bool)>,
}

/// `writ run FILE --policy P [--db PATH] [--limit ...] [--input-type
/// NAME=TYPE ... --inputs FILE.json] [--format json] [--pause-at CAP
/// --save FILE] [--record FILE | --replay FILE]` (`json`: the outcome as
/// one JSON object, [`crate::outcome_json`]; `--pause-at`:
/// [`crate::pause_cli`]).
pub fn run_with_policy(run: PolicyRun<'_>) -> ExitCode {
    let PolicyRun {
        file,
        policy: policy_path,
        db,
        limit,
        inputs: (input_types, values),
        json,
        pausing,
        reads: (record, replay),
        approve,
    } = run;
    let (decls, values) = match (
        crate::inputs_cli::declared(input_types),
        crate::inputs_cli::values(values),
    ) {
        (Ok(d), Ok(v)) => (d, v),
        (Err(code), _) | (_, Err(code)) => return code,
    };
    let policy = match policy_for(policy_path, limit) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let path = file.display().to_string();
    let text = match crate::read_file(file) {
        Ok(t) => t,
        Err(d) => {
            err_print!("{}", render::human(&[d], &path, "", crate::color_err()));
            return ExitCode::from(2);
        }
    };
    let engine = Engine::new().with_confirm(Arc::new(terminal_confirm));
    let policy_shown = policy_path.display().to_string();
    let shown = Shown {
        path: &path,
        text: &text,
        policy_shown: &policy_shown,
        limit,
        policy: &policy,
        json,
    };
    let program = match compile(&engine, &shown, &decls) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let reads = match (record, replay) {
        (Some(_), _) => ReadMode::Record,
        (None, Some(file)) => match crate::inputs_cli::recording(file) {
            Ok(r) => ReadMode::Replay(Arc::new(r)),
            Err(code) => return code,
        },
        (None, None) => ReadMode::Live,
    };
    let live = approve.is_some_and(|(_, live)| live);
    let approved = match approve.map(|(file, _)| file) {
        Some(file) => match crate::plan_cli::read_plan(file) {
            Ok(plan) => Some(Arc::new(plan)),
            Err(code) => return code,
        },
        None => None,
    };
    let reads = if live { ReadMode::Record } else { reads };
    let options = RunOptions {
        store: db.map(|d| d.display().to_string()),
        inputs: values,
        reads,
        approved,
        ..RunOptions::default()
    };
    if let Some(pausing) = pausing {
        let run = crate::pause_cli::Started {
            engine: &engine,
            program: &program,
            shown: &shown,
            input_types,
            db,
        };
        return crate::pause_cli::start(&run, options, &pausing);
    }
    let mut log = |line: &str| {
        if !json {
            log_line(line);
        }
    };
    let ran = engine.run(&program, &policy, &options, &mut log);
    if let (Some(file), Ok(outcome)) = (record, &ran)
        && let Err(code) = save_recording(file, outcome)
    {
        return code;
    }
    report(ran, &shown, !json)
}

/// Write the reads a run recorded to `file` (`--record`), as JSON; a file
/// that cannot be written is `E9005`, exit 2.
fn save_recording(file: &Path, outcome: &writ_host::engine::Outcome) -> Result<(), ExitCode> {
    let recording = writ_host::engine::Recording {
        reads: outcome.reads.clone(),
    };
    let text = serde_json::to_string_pretty(&recording.to_json()).unwrap_or_default() + "\n";
    // What the run read (records, pages): readable by its owner only, as
    // a plan or a saved run is.
    crate::pause_cli::write_private(file, text.as_bytes()).map_err(|e| {
        err_println!(
            "[E9005] Error: cannot write the recording of reads to `{}`: {e}",
            file.display()
        );
        ExitCode::from(2)
    })
}

/// The policy at `path`, its directory noted (seeds, recordings), with
/// the `--limit`s applied.
pub(crate) fn policy_for(path: &Path, limit: &[String]) -> Result<Policy, ExitCode> {
    let mut policy = crate::load_policy(path)?;
    policy.dir = path.parent().map(Path::to_path_buf);
    crate::apply_limits(&mut policy.limits, limit)?;
    Ok(policy)
}

/// What the command line shows of a run under a policy, and where.
pub(crate) struct Shown<'a> {
    /// The program's file, as the diagnostics name it.
    pub(crate) path: &'a str,
    /// Its text.
    pub(crate) text: &'a str,
    /// The policy's file, as shown.
    pub(crate) policy_shown: &'a str,
    /// The `--limit`s given.
    pub(crate) limit: &'a [String],
    /// The policy, the limits applied.
    pub(crate) policy: &'a Policy,
    /// `--format json`.
    pub(crate) json: bool,
}

impl Shown<'_> {
    /// Who set what an error is about: the command line for a limit set
    /// with `--limit`, else the policy (whose limit the person chose).
    fn edge(&self, result: &Result<String, writ::RunError>) -> Edge<'_> {
        let named = |l: writ::Limit| {
            self.limit
                .iter()
                .any(|s| s.split_once('=').is_some_and(|(n, _)| n.trim() == l.name()))
        };
        match result {
            Err(e) if e.limit.is_some_and(named) => Edge::Cli,
            _ => Edge::Policy(Some(self.policy_shown)),
        }
    }
}

/// Check the program under the policy: compiled, or the exit code after
/// its diagnostics are shown.
pub(crate) fn compile(
    engine: &Engine,
    shown: &Shown<'_>,
    decls: &[writ_lang::types::InputDecl],
) -> Result<writ_host::engine::Compiled, ExitCode> {
    match engine.check_with_inputs(shown.text, shown.policy, decls) {
        Ok(p) => Ok(p),
        Err(diags) if shown.json => Err(crate::outcome_json::print(crate::outcome_json::Report {
            path: shown.path,
            text: shown.text,
            edge: Edge::Policy(Some(shown.policy_shown)),
            diagnostics: &diags,
            result: None,
            value: None,
            log: &[],
            operations: &[],
            usage: writ::Usage::default(),
            limits: &shown.policy.limits,
            recorded: false,
        })),
        Err(diags) => {
            err_print!(
                "{}",
                render::human(&diags, shown.path, shown.text, crate::color_err())
            );
            err_println!("{}: rejected: not run", shown.path);
            Err(ExitCode::from(1))
        }
    }
}

/// Show how a run ended (human or JSON) and choose the exit code.
/// `streamed`: its `Log` lines were printed as they were written; else
/// they are printed first.
pub(crate) fn report(
    ran: Result<writ_host::engine::Outcome, writ::RunError>,
    shown: &Shown<'_>,
    streamed: bool,
) -> ExitCode {
    if shown.json {
        let (json, code) = crate::outcome_json::policy_run(
            ran,
            shown.path,
            shown.text,
            &shown.policy.limits,
            |r| shown.edge(r),
        );
        out(&json);
        return ExitCode::from(code);
    }
    let finish = |result: Result<String, writ::RunError>| {
        let edge = shown.edge(&result);
        crate::finish(result, shown.path, shown.text, edge)
    };
    let outcome = match ran {
        Ok(o) => o,
        // The store could not be opened: nothing ran.
        Err(e) => return finish(Err(e)),
    };
    if !streamed {
        for line in &outcome.output {
            log_line(line);
        }
    }
    // Denials the program saw as `Fail` and handled; one that ended the
    // run (as E4005, or as an unhandled `Fail`) is shown as its error below.
    let last_denied = outcome
        .operations
        .last()
        .is_some_and(|o| o.decision == Decision::Denied);
    let stopped = last_denied
        && matches!(&outcome.result, Err(e) if e.code == writ::Code::OperationDenied || e.code == writ::Code::ProgramFailed);
    let denied: Vec<_> = outcome
        .operations
        .iter()
        .filter(|o| o.decision == Decision::Denied)
        .collect();
    let shown_denials = denied.len().saturating_sub(usize::from(stopped));
    for op in denied.iter().take(shown_denials) {
        err_println!("denied: {}({}): {}", op.operation, op.arguments, op.rule);
    }
    if outcome.recorded {
        err_println!("note: Http answers came from recorded responses, not the network");
    }
    for changed in &outcome.changed_reads {
        err_println!("note: {changed}");
    }
    finish(outcome.result)
}

/// The store `--db` names (a path or a `postgres://` URL, its password
/// from `PGPASSWORD`), parsed; a usage error says why not.
fn location(db: Option<&Path>) -> Result<(String, Location), ExitCode> {
    let path = db.map_or(DEFAULT_STORE.to_string(), |d| d.display().to_string());
    match Location::parse(&path) {
        Ok(Location::Memory(_)) => {
            err_println!(
                "error: expected a SQLite file's path or a postgres:// URL, found {path}: a memory store lives only in the process that made it"
            );
            Err(ExitCode::from(2))
        }
        Ok(l) => Ok((path, l)),
        Err(e) => {
            err_println!("error: {e}");
            Err(ExitCode::from(2))
        }
    }
}

/// The store `--db` names, which must exist (`writ db migrate`) or must
/// not (`writ db init`): a file, or a database holding the store's
/// schema. A usage error says why not.
fn located(db: Option<&Path>, existing: bool) -> Result<(String, Location), ExitCode> {
    let (path, location) = location(db)?;
    let exists = match &location {
        Location::Sqlite(p) => Path::new(p).exists(),
        Location::Memory(_) => false,
        Location::Postgres(_) => Store::version_at(&location, &PostgresOptions::from_env())
            .map_err(|e| {
                err_println!("error: {e}");
                ExitCode::from(2)
            })?
            .is_some(),
    };
    match (exists, existing) {
        (true, false) => {
            err_println!("error: {path} exists already; `writ db init` creates a new store");
            Err(ExitCode::from(2))
        }
        (false, true) => {
            err_println!("error: there is no store at {path}; pass its path with `--db`");
            Err(ExitCode::from(2))
        }
        _ => Ok((path, location)),
    }
}

/// The store `--db` names, which must exist (a path or a URL with no
/// store is a usage error, never an empty log).
fn open(db: Option<&Path>) -> Result<Store, ExitCode> {
    let (path, location) = location(db)?;
    match Store::open_existing(&location, &PostgresOptions::from_env()) {
        Ok(Some(store)) => Ok(store),
        Ok(None) => {
            err_println!("error: there is no store at {path}; pass its path with `--db`");
            Err(ExitCode::from(2))
        }
        Err(e) => {
            err_println!("error: {}", opening(&e));
            Err(ExitCode::from(2))
        }
    }
}

/// Why a store could not be opened, with the command that mends it where
/// there is one: a store of schema version 1 is kept, and a new one made.
fn opening(e: &StoreError) -> String {
    match e {
        StoreError::Schema { found } if found == "1" => {
            format!("{e} (`writ db init` creates one)")
        }
        _ if e.migratable() => format!("{e} (`writ db migrate` does it)"),
        _ => e.to_string(),
    }
}

/// `writ audit show [--db PATH] [--format human|json]`.
pub fn audit_show(db: Option<&Path>, json: bool) -> ExitCode {
    let store = match open(db) {
        Ok(s) => s,
        Err(c) => return c,
    };
    let records = match store.records() {
        Ok(r) => r,
        Err(e) => {
            err_println!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if json {
        let list: Vec<serde_json::Value> = records
            .iter()
            .map(|r| {
                serde_json::json!({
                    "seq": r.seq, "time_ms": r.time_ms, "principal": r.principal,
                    "program": r.program, "operation": r.operation,
                    "arguments": r.arguments, "decision": r.decision,
                    "rule": r.rule, "prev_hash": r.prev_hash, "hash": r.hash,
                })
            })
            .collect();
        out(&format!("{}\n", serde_json::Value::Array(list)));
    } else {
        // Fields are shown escaped, whatever the store holds (a record
        // written before escaping, or edited).
        let clean = writ_host::engine::clean;
        for r in &records {
            out(&format!(
                "#{} {} {} {}({}) {}: {} [program {}]\n",
                r.seq,
                writ_host::store::day_of(r.time_ms),
                clean(&r.principal),
                clean(&r.operation),
                clean(&r.arguments),
                r.decision,
                clean(&r.rule),
                r.program.get(..12).unwrap_or(&r.program)
            ));
        }
        let n = records.len();
        out(&format!("{n} record{}\n", if n == 1 { "" } else { "s" }));
    }
    ExitCode::SUCCESS
}

/// `writ audit verify [--db PATH] [--head COUNT:HASH]`: exit 0 when the
/// chain, the ledger and the head hold, 1 when not ("tampered with"), 2
/// for a malformed head or a store that cannot be read (which says
/// nothing of tampering).
pub fn audit_verify(db: Option<&Path>, head: Option<&str>) -> ExitCode {
    let head = match head.map(Head::parse).transpose() {
        Ok(h) => h,
        Err(e) => {
            err_println!("error: in `--head`: {e} (`writ audit head` prints one)");
            return ExitCode::from(2);
        }
    };
    let store = match open(db) {
        Ok(s) => s,
        Err(c) => return c,
    };
    let verified = match &head {
        Some(h) => store.verify_head(h),
        None => store.verify(),
    };
    match verified {
        Ok(n) => {
            let held = head.map_or(String::new(), |h| {
                format!("; it still holds the head you kept (record {})", h.count)
            });
            let (records, each) = if n == 1 {
                ("1 record", "linked to the log's start")
            } else {
                (&*format!("{n} records"), "each linked to the one before")
            };
            out(&format!(
                "the audit log holds: {records}, {each}, and the ledger matches them{held}\n"
            ));
            ExitCode::SUCCESS
        }
        Err(VerifyError::Broken(b)) => {
            out(&format!("the audit log was tampered with: {b}\n"));
            ExitCode::from(1)
        }
        Err(VerifyError::Store(e)) => {
            err_println!("error: the store could not be read ({e}); the audit log was not checked");
            ExitCode::from(2)
        }
    }
}

/// `writ audit head [--db PATH]`: print `COUNT:HASH` (exit 0) once the log
/// verifies; a log that does not is said so (exit 1), with no head, and a
/// store that cannot be read is an error (exit 2).
pub fn audit_head(db: Option<&Path>) -> ExitCode {
    let store = match open(db) {
        Ok(s) => s,
        Err(c) => return c,
    };
    match store.head() {
        Ok(h) => {
            out(&format!("{h}\n"));
            ExitCode::SUCCESS
        }
        Err(VerifyError::Broken(b)) => {
            out(&format!(
                "the audit log was tampered with: {b}; no head is given for it\n"
            ));
            ExitCode::from(1)
        }
        Err(VerifyError::Store(e)) => {
            err_println!("error: the store could not be read ({e}); no head is given for it");
            ExitCode::from(2)
        }
    }
}

/// `writ db init [--db PATH] [--seed FILE]`.
pub fn db_init(db: Option<&Path>, seed: Option<&Path>) -> ExitCode {
    let (path, location) = match located(db, false) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let seed_text = match seed {
        Some(s) => match writ_host::engine::read_named_file(&s.display().to_string()) {
            Ok(t) => Some(t),
            Err(e) => {
                err_println!("error: cannot read the seed {}: {e}", s.display());
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    match Store::open_at(
        &location,
        &PostgresOptions::from_env(),
        Some(seed_text.as_deref().unwrap_or("")),
    ) {
        Ok(_) => {
            out(&format!("created {path}\n"));
            ExitCode::SUCCESS
        }
        Err(e) => {
            // The file did not exist before: leave nothing behind (a
            // database's failed creation was rolled back whole).
            if location.is_file() {
                let _ = std::fs::remove_file(&path);
            }
            err_println!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// `writ db migrate [--db PATH|URL]`: bring the store up to the schema
/// version this Writ reads, in one transaction.
pub fn db_migrate(db: Option<&Path>, seeded: bool) -> ExitCode {
    if seeded {
        err_println!(
            "error: `writ db migrate` takes no `--seed`: a seed is run only when a store is created"
        );
        return ExitCode::from(2);
    }
    let (path, location) = match located(db, true) {
        Ok(l) => l,
        Err(code) => return code,
    };
    match Store::migrate(&location, &PostgresOptions::from_env()) {
        Ok(from) if from == SCHEMA_VERSION => {
            out(&format!(
                "{path} is at schema version {SCHEMA_VERSION} already\n"
            ));
            ExitCode::SUCCESS
        }
        Ok(from) => {
            out(&format!(
                "migrated {path} from schema version {from} to {SCHEMA_VERSION}\n"
            ));
            ExitCode::SUCCESS
        }
        Err(e) => {
            err_println!("error: {}", opening(&e));
            ExitCode::from(2)
        }
    }
}
