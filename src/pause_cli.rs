//! Pausing a run on the command line, and finishing it later:
//! `writ run FILE --policy P --pause-at CAP --save run.snap` stops the
//! run at the first operation of `CAP` (after the policy allowed it so
//! far), prints it, saves the run, and exits with 5;
//! `writ resume run.snap --policy P --answer JSON` (or `--carry-out`,
//! `--fail MESSAGE`, `--refuse REASON`) continues it, in a new process.
//!
//! The file `--save` writes holds a first line `writ-run-snapshot 1`, a
//! line of JSON naming the program's file and holding its text, its
//! `--input-type`s and the store's `--db` (so that `writ resume` checks
//! the same program again), then the engine's snapshot
//! ([`writ_host::engine::Pending::to_bytes`]: sealed with the store's
//! key, resumed once). It holds what the program read: it is written
//! readable by its owner only.
//!
//! Invariants: a reply that does not fit (`E4010`) or a `writ resume`
//! without a reply leaves the saved run as it was (exit 3 and 5); a run
//! that pauses again is saved again only where `--save` says, and the
//! file is written whole or not at all (a temporary file renamed).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use writ_host::engine::{Compiled, Engine, PauseAt, Pending, Reply, RunOptions, Step};

use crate::host_cli::{Shown, compile, log_line, out, policy_for, report, terminal_confirm};

/// The first line of a saved run.
const HEADER: &str = "writ-run-snapshot 1\n";

/// The exit code of a run that paused (and was saved, with `--save`).
const PAUSED: u8 = 5;

/// `--pause-at` and `--save`.
pub struct Pausing<'a> {
    /// The capabilities (`Confirm`) and operations (`Http.post`) to pause at.
    pub at: &'a [String],
    /// Where to save the run when it pauses; `None` for `writ resume`
    /// without `--save` (the run then pauses nowhere more).
    pub save: Option<&'a Path>,
}

/// A program checked under a policy, about to be run with pauses.
pub struct Started<'a> {
    /// The engine (its confirmations asked on the terminal).
    pub engine: &'a Engine,
    /// The program.
    pub program: &'a Compiled,
    /// What is shown, and the policy.
    pub shown: &'a Shown<'a>,
    /// Its `--input-type`s, saved with the run.
    pub input_types: &'a [String],
    /// Its `--db`, saved with the run.
    pub db: Option<&'a Path>,
}

/// `writ run ... --pause-at CAP --save FILE`: start the run, pausing at
/// `pausing.at`.
pub fn start(run: &Started<'_>, mut options: RunOptions, pausing: &Pausing<'_>) -> ExitCode {
    options.pause_at = PauseAt::Only(pausing.at.to_vec());
    match run.engine.start(run.program, run.shown.policy, &options) {
        Ok(step) => settle(step, run, pausing.save),
        Err(e) => report(Err(e), run.shown, false),
    }
}

/// The run ended (shown as `writ run` shows it) or paused (shown, saved
/// to `save` if given; exit 5).
fn settle(step: Step<'_>, run: &Started<'_>, save: Option<&Path>) -> ExitCode {
    let mut pending = match step {
        Step::Done(outcome) => return report(Ok(outcome), run.shown, false),
        Step::Paused(p) => p,
    };
    let saved = match save {
        Some(path) => match save_run(&mut pending, run, path) {
            Ok(()) => Some(path),
            Err(e) if e.code == writ::Code::CannotWriteFile => {
                drop(pending);
                let d = writ::render::words::run_error_in(&e, writ::render::words::Edge::Cli, "");
                err_print!(
                    "{}",
                    writ::render::human(&[d], run.shown.path, "", crate::color_err())
                );
                return ExitCode::from(2);
            }
            Err(e) => {
                drop(pending);
                return report(Err(e), run.shown, false);
            }
        },
        None => None,
    };
    show_pending(&pending, run.shown, saved);
    ExitCode::from(PAUSED)
}

/// What the file `--save` writes says beside the snapshot.
#[derive(serde::Serialize, serde::Deserialize)]
struct Saved {
    file: String,
    source: String,
    input_types: Vec<String>,
    db: Option<String>,
}

fn save_run(
    pending: &mut Pending<'_>,
    run: &Started<'_>,
    path: &Path,
) -> Result<(), writ::RunError> {
    let bytes = pending.to_bytes()?;
    let saved = Saved {
        file: run.shown.path.to_string(),
        source: run.shown.text.to_string(),
        input_types: run.input_types.to_vec(),
        // Absolute, so that `writ resume` from another directory opens the
        // same store.
        db: run.db.map(|d| {
            std::fs::canonicalize(d)
                .unwrap_or_else(|_| d.to_path_buf())
                .display()
                .to_string()
        }),
    };
    let meta = serde_json::to_string(&saved)
        .map_err(|e| writ::RunError::internal(format!("the saved run's header: {e}")))?;
    let mut all = Vec::with_capacity(HEADER.len() + meta.len() + 1 + bytes.len());
    all.extend_from_slice(HEADER.as_bytes());
    all.extend_from_slice(meta.as_bytes());
    all.push(b'\n');
    all.extend_from_slice(&bytes);
    write_private(path, &all).map_err(|e| {
        writ::RunError::new(
            writ::Code::CannotWriteFile,
            format!("cannot write the saved run to `{}`: {e}", path.display()),
        )
        .with_help("the run was not saved; check the path and its permissions")
    })
}

/// Write `bytes` to `path` readable by its owner only, whole or not at
/// all (a temporary file beside it, renamed).
pub(crate) fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let mut open = std::fs::OpenOptions::new();
    open.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        open.mode(0o600);
    }
    let written = open.open(&tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    match written.and_then(|()| std::fs::rename(&tmp, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// Print the pending operation (and the run's `Log` lines so far), human
/// or JSON.
fn show_pending(p: &Pending<'_>, shown: &Shown<'_>, saved: Option<&Path>) {
    let answer = p.answer_type();
    if shown.json {
        let doc = serde_json::json!({
            "file": shown.path,
            "status": "paused",
            "paused": {
                "operation": p.operation(),
                "capability": p.capability(),
                "arguments": p.arguments_json(),
                "rule": p.rule(),
                "answer_type": answer.as_ref().ok().map(ToString::to_string),
            },
            "log": p.output(),
            "saved": saved.map(|s| s.display().to_string()),
        });
        out(&format!("{doc}\n"));
        return;
    }
    for line in p.output() {
        log_line(line);
    }
    let answer = match answer {
        Ok(t) => format!("--answer (a {t}), --carry-out, --fail MESSAGE or --refuse REASON"),
        Err(_) => "--carry-out, --fail MESSAGE or --refuse REASON".to_string(),
    };
    out(&format!(
        "paused at {}({})\n  allowed so far: {}\n  reply with {answer}\n",
        p.operation(),
        writ::render::terminal_safe(p.arguments()),
        writ::render::terminal_safe(p.rule()),
    ));
    match saved {
        Some(s) => out(&format!(
            "saved to {}: continue with `writ resume {} --policy {} --carry-out` (or another reply)\n",
            s.display(),
            s.display(),
            shown.policy_shown
        )),
        None => out("not saved again: the saved run is unchanged\n"),
    }
}

/// `writ resume FILE --policy P [--db PATH] [--limit ...] [reply]
/// [--pause-at CAP --save FILE] [--format json]`.
pub struct Resume<'a> {
    /// The saved run.
    pub file: &'a Path,
    /// The policy to continue it under (the same person's).
    pub policy: &'a Path,
    /// The store; else the one saved with the run, else the policy's.
    pub db: Option<&'a Path>,
    /// `--limit`s.
    pub limit: &'a [String],
    /// The reply to the pending operation; `None` shows it and leaves the
    /// saved run as it is.
    pub reply: Option<Reply>,
    /// Where to pause next and save.
    pub pausing: Pausing<'a>,
    /// `--format json`.
    pub json: bool,
}

/// `writ resume`: restore the saved run, reply, and go on.
pub fn resume(r: &Resume<'_>) -> ExitCode {
    let policy = match policy_for(r.policy, r.limit) {
        Ok(p) => p,
        Err(code) => return code,
    };
    // At most the snapshot the memory limit allows, and the header.
    let cap = (policy.limits.memory as u64)
        .saturating_mul(2)
        .saturating_add(64 << 20);
    let (saved, bytes) = match read_saved(r.file, cap) {
        Ok(x) => x,
        Err(message) => {
            err_println!("error: {message}");
            return ExitCode::from(2);
        }
    };
    // The program in the header is bounded as a source file is (the seal
    // is checked later, when the program is compiled).
    if saved.source.len() as u64 > writ::MAX_SOURCE_BYTES {
        err_println!(
            "error: expected a saved run whose program is at most {} bytes, found {} bytes",
            writ::MAX_SOURCE_BYTES,
            saved.source.len()
        );
        return ExitCode::from(2);
    }
    let decls = match crate::inputs_cli::declared(&saved.input_types) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let policy_shown = r.policy.display().to_string();
    let shown = Shown {
        path: &saved.file,
        text: &saved.source,
        policy_shown: &policy_shown,
        limit: r.limit,
        policy: &policy,
        json: r.json,
    };
    let engine = Engine::new().with_confirm(Arc::new(terminal_confirm));
    let program = match compile(&engine, &shown, &decls) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let db =
        r.db.map(Path::to_path_buf)
            .or(saved.db.as_ref().map(Into::into));
    let options = RunOptions {
        store: db.as_ref().map(|d| d.display().to_string()),
        pause_at: PauseAt::Only(r.pausing.at.to_vec()),
        ..RunOptions::default()
    };
    let run = Started {
        engine: &engine,
        program: &program,
        shown: &shown,
        input_types: &saved.input_types,
        db: db.as_deref(),
    };
    let pending = match engine.restore(&program, &policy, &bytes, &options) {
        Ok(Step::Paused(p)) => p,
        // Denied by this policy now, and run on past the denial.
        Ok(step) => return settle(step, &run, r.pausing.save),
        Err(e) => return report(Err(e), &shown, false),
    };
    let Some(reply) = r.reply.clone() else {
        show_pending(&pending, &shown, None);
        return ExitCode::from(PAUSED);
    };
    match pending.resume(reply) {
        Ok(step) => settle(step, &run, r.pausing.save),
        Err(bad) => report(Err(bad.error), &shown, false),
    }
}

/// The saved run at `path`: its header and the engine's snapshot; at most
/// `cap` bytes are read.
fn read_saved(path: &Path, cap: u64) -> Result<(Saved, Vec<u8>), String> {
    use std::io::Read;
    let shown = path.display();
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read `{shown}`: {e}"))?;
    let mut bytes = Vec::new();
    file.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read `{shown}`: {e}"))?;
    if bytes.len() as u64 > cap {
        return Err(format!(
            "expected a saved run of at most {cap} bytes (twice the memory limit and 64 MiB) in `{shown}`, found a longer file"
        ));
    }
    let Some(rest) = bytes.strip_prefix(HEADER.as_bytes()) else {
        return Err(format!(
            "expected a run saved by `writ run --save` in `{shown}` (its first line `writ-run-snapshot 1`), found other bytes"
        ));
    };
    let Some(end) = rest.iter().position(|b| *b == b'\n') else {
        return Err(format!(
            "expected the saved run's header line in `{shown}`, found none"
        ));
    };
    let (meta, snapshot) = rest.split_at(end);
    let saved: Saved = serde_json::from_slice(meta)
        .map_err(|e| format!("expected the saved run's header in `{shown}` as JSON, found: {e}"))?;
    Ok((saved, snapshot.get(1..).unwrap_or_default().to_vec()))
}
