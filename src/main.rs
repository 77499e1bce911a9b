//! The `writ` command line: it reads source and policy files, checks and
//! runs them through the library facade, and prints what the facade
//! reports. With `host_cli` and `repl`, the terminal's only user; the
//! host's store, seed and `Http` files are opened by `writ-host` itself
//! (docs/architecture.md says who touches what).
//!
//! Exit codes: 0 every file accepted (and, for `run`, the program
//! finished); 1 some program rejected; 2 a usage error, or a file that
//! could not be read (this wins over 1); 3 (`run`) a run-time error; 4
//! (`run`) a limit was exhausted. Output that cannot be written (a closed
//! pipe) is dropped, never a panic, and changes no exit code: everything
//! written goes through [`host_cli::out`] and [`host_cli::err`].

/// `eprint!` for the CLI: written with [`host_cli::err`], so a closed
/// standard error drops the text instead of panicking.
macro_rules! err_print {
    ($($arg:tt)*) => {
        $crate::host_cli::err(&format!($($arg)*))
    };
}

/// `eprintln!` for the CLI, as [`err_print!`].
macro_rules! err_println {
    ($($arg:tt)*) => {
        $crate::host_cli::err(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// The process's allocator: jemalloc, whose size classes and per-thread
/// caches suit values (many small objects made and freed in bulk) better
/// than the C library's malloc (decision 019). Memory limits do not
/// depend on it: the runtime counts what values are charged, not what is
/// allocated.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's options, read once when it starts (its `malloc_conf`
/// string, under the prefixed name the crate builds it with): ask the
/// kernel for transparent huge pages where it hands them out on request
/// (`madvise`), so a large list or document takes a few faults of 2 MiB
/// instead of one per 4 KiB page (decision 019). Where the kernel has
/// none, or gives them to every process anyway, this changes nothing.
#[allow(non_upper_case_globals)]
#[unsafe(export_name = "_rjem_malloc_conf")]
pub static malloc_conf: &[u8; 11] = b"thp:always\0";

mod host_cli;
mod inputs_cli;
mod mcp;
mod outcome_json;
mod pause_cli;
mod plan_cli;
mod primer_cli;
mod repl;
mod test_cli;

use std::fs::File;
use std::io::{IsTerminal, Read, Write};
use std::path::Path;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use serde_json::json;
use writ::render::words::Edge;
use writ::{Code, Diagnostic, MAX_SOURCE_BYTES, render};
use writ_lang::types::BuiltinEffect;

/// Writ: run programs an LLM writes, with exactly the authority a person grants.
#[derive(Parser)]
#[command(name = "writ", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// What `writ audit` does.
#[derive(Clone, Copy, clap::ValueEnum)]
enum AuditAction {
    /// List the records.
    Show,
    /// Check the hash chain and the ledger against it (and, with
    /// `--head`, that the log still holds that head).
    Verify,
    /// Print the log's head, `COUNT:HASH`, once the log verifies: keep
    /// it, and `verify --head` finds records removed from the end.
    Head,
}

/// What `writ db` does.
#[derive(Clone, Copy, clap::ValueEnum)]
enum DbAction {
    /// Create the store with its schema.
    Init,
    /// Bring a store of an older schema version up to date, in place.
    Migrate,
}

#[derive(Subcommand)]
enum Command {
    /// Check programs without running them; report every problem.
    Check {
        /// The files to check.
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
        /// Output for people (`human`) or programs (`json`).
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Check only the syntax (lexing and parsing), not names or types.
        #[arg(long)]
        syntax_only: bool,
        /// Reject programs that need a host capability not in this
        /// comma-separated list (`--grant Http,Log`; `--grant ''` grants
        /// nothing).
        #[arg(long, value_delimiter = ',', num_args = 1, conflicts_with = "policy")]
        grant: Option<Vec<String>>,
        /// Reject programs that need a capability this policy file does
        /// not grant (see docs/policy.md); a malformed policy is an error.
        #[arg(long)]
        policy: Option<std::path::PathBuf>,
        /// Declare an input the host passes the programs, with its Writ
        /// type: `--input-type 'request={ to: Str, budget_cents: Int }'`
        /// (repeated for each input; docs/embedding.md#inputs).
        #[arg(long = "input-type", value_name = "NAME=TYPE")]
        input_type: Vec<String>,
    },
    /// Check a program, then run it with `Log` (printed) and `Fail` granted;
    /// print its final value.
    Run {
        /// The program.
        file: std::path::PathBuf,
        /// Limits of the run, e.g. `--limit fuel=1000000,memory=64M,time=2s`
        /// (also `depth` and `output`).
        #[arg(long, value_delimiter = ',')]
        limit: Vec<String>,
        /// Run under this policy (docs/policy.md): with exactly the
        /// capabilities it grants, scoped and audited.
        #[arg(long)]
        policy: Option<std::path::PathBuf>,
        /// The store for the audit log, ledger and records: a SQLite file
        /// or a `postgres://` URL; overrides the policy's `[store] url` and
        /// `path` (default `writ.db`).
        #[arg(long, requires = "policy")]
        db: Option<std::path::PathBuf>,
        /// Declare an input with its Writ type, as for `writ check`.
        #[arg(long = "input-type", value_name = "NAME=TYPE")]
        input_type: Vec<String>,
        /// The inputs' values: a JSON file holding one object, each
        /// member the value of the declared input of its name.
        #[arg(long, value_name = "FILE.json")]
        inputs: Option<std::path::PathBuf>,
        /// Output for people (`human`: `Log` lines, then the value) or
        /// programs (`json`: the whole outcome as one JSON object, see
        /// docs/embedding.md).
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Pause the run at the first operation of these capabilities
        /// (`Confirm`) or operations (`Http.post`) that the policy allows,
        /// print it, save the run (`--save`) and exit with 5; `writ resume`
        /// continues it (docs/embedding.md#from-the-command-line-2).
        #[arg(long, value_delimiter = ',', requires_all = ["policy", "save"], value_name = "CAP")]
        pause_at: Vec<String>,
        /// Where `--pause-at` saves the paused run (readable by its owner
        /// only: it holds what the program read).
        #[arg(long, requires = "pause_at", value_name = "FILE")]
        save: Option<std::path::PathBuf>,
        /// Save the answer of every read that comes from outside the run
        /// (`Http.get`, `Records`, `Clock`, `Confirm`) to this JSON file.
        #[arg(long, requires = "policy", conflicts_with_all = ["replay", "pause_at"], value_name = "FILE.json")]
        record: Option<std::path::PathBuf>,
        /// Answer those reads from a file `--record` wrote, instead of
        /// performing them (a read it does not hold: E4012).
        #[arg(long, requires = "policy", value_name = "FILE.json")]
        replay: Option<std::path::PathBuf>,
        /// Run as the plan `writ plan` wrote to this file, which the person
        /// approved: only its acts, in order, each once (E4013 for any
        /// other, E4014 for a plan that does not apply).
        #[arg(long, requires = "policy", conflicts_with_all = ["pause_at", "record"], value_name = "PLAN.json")]
        approve: Option<std::path::PathBuf>,
        /// With `--approve`: perform the reads again instead of replaying
        /// the plan's (each that answers otherwise is noted).
        #[arg(long, requires = "approve", conflicts_with = "replay")]
        live: bool,
    },
    /// Show what a program would do under a policy, without doing it: its
    /// reads performed, its acts (payments, posts) decided but not
    /// carried out; the plan is written as JSON for `writ run --approve`.
    Plan {
        /// The program.
        file: std::path::PathBuf,
        /// The policy (docs/policy.md).
        #[arg(long)]
        policy: std::path::PathBuf,
        /// The store, as for `writ run`.
        #[arg(long)]
        db: Option<std::path::PathBuf>,
        /// Limits, as for `writ run`.
        #[arg(long, value_delimiter = ',')]
        limit: Vec<String>,
        /// Declare an input with its Writ type, as for `writ check`.
        #[arg(long = "input-type", value_name = "NAME=TYPE")]
        input_type: Vec<String>,
        /// The inputs' values, as for `writ run`.
        #[arg(long, value_name = "FILE.json")]
        inputs: Option<std::path::PathBuf>,
        /// Where to write the plan (JSON; readable by its owner only).
        #[arg(short = 'o', long = "output", value_name = "PLAN.json")]
        output: std::path::PathBuf,
    },
    /// Continue a run `writ run --pause-at ... --save FILE` saved: reply to
    /// the operation it paused at and run on, under the same person's
    /// policy and store.
    Resume {
        /// The saved run.
        file: std::path::PathBuf,
        /// The policy to continue under (the same principal's).
        #[arg(long)]
        policy: std::path::PathBuf,
        /// The store; by default the one the run was saved with.
        #[arg(long)]
        db: Option<std::path::PathBuf>,
        /// Limits, as for `writ run`.
        #[arg(long, value_delimiter = ',')]
        limit: Vec<String>,
        /// Answer the operation with this JSON value of its result type
        /// (`true` for `Confirm.ask`), as the host that carried it out.
        #[arg(long, value_name = "JSON", group = "reply")]
        answer: Option<String>,
        /// Let Writ carry the operation out under the policy.
        #[arg(long, group = "reply")]
        carry_out: bool,
        /// Fail the operation: `Fail.fail(MESSAGE)` where it was.
        #[arg(long, value_name = "MESSAGE", group = "reply")]
        fail: Option<String>,
        /// Refuse the operation: a denial, audited.
        #[arg(long, value_name = "REASON", group = "reply")]
        refuse: Option<String>,
        /// Pause again at these capabilities or operations (with `--save`).
        #[arg(long, value_delimiter = ',', requires = "save", value_name = "CAP")]
        pause_at: Vec<String>,
        /// Where to save the run if it pauses again.
        #[arg(long, requires = "pause_at", value_name = "FILE")]
        save: Option<std::path::PathBuf>,
        /// Output for people or programs, as for `writ run`.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Read or check the audit log.
    Audit {
        /// `show` lists the records; `verify` checks the hash chain and
        /// the ledger; `head` prints the head to keep.
        #[arg(value_enum)]
        action: AuditAction,
        /// The store: a SQLite file (default `writ.db`) or a
        /// `postgres://` URL (password from PGPASSWORD).
        #[arg(long)]
        db: Option<std::path::PathBuf>,
        /// For `verify`: a head `writ audit head` printed earlier
        /// (`COUNT:HASH`); the log must still hold it.
        #[arg(long)]
        head: Option<String>,
        /// Output for people (`human`) or programs (`json`), for `show`.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Create a store, or migrate one: `writ db init|migrate [--db
    /// PATH|URL] [--seed FILE]`.
    Db {
        /// `init` or `migrate`.
        #[arg(value_enum)]
        action: DbAction,
        /// The store: a SQLite file (default `writ.db`) or a
        /// `postgres://` URL (password from PGPASSWORD).
        #[arg(long)]
        db: Option<std::path::PathBuf>,
        /// SQL run once in the new store (demo org, records).
        #[arg(long)]
        seed: Option<std::path::PathBuf>,
    },
    /// Start the REPL: enter definitions and expressions, see values with
    /// their types (docs/repl.md).
    Repl {
        /// Grant what this policy grants (docs/policy.md); without it, only
        /// `Log`.
        #[arg(long)]
        policy: Option<std::path::PathBuf>,
        /// The store for the audit log, ledger and records: a SQLite file
        /// or a `postgres://` URL; overrides the policy's `[store] url` and
        /// `path`.
        #[arg(long, requires = "policy")]
        db: Option<std::path::PathBuf>,
        /// Limits of each input, as for `writ run`.
        #[arg(long, value_delimiter = ',')]
        limit: Vec<String>,
    },
    /// Print the primer for models (docs/primer.md): the language in
    /// brief, what a host pastes into a model's prompt.
    Primer {
        /// Add what this policy grants, in words: each capability's
        /// interface, scope, reads and acts, and what is not granted.
        #[arg(long)]
        policy: Option<std::path::PathBuf>,
    },
    /// Serve Writ to a model over the Model Context Protocol (MCP) on
    /// standard input and output: tools to check, run and plan programs
    /// under this policy; the person approves plans and confirmations
    /// through the client (docs/mcp.md).
    Mcp {
        /// The policy every program runs under (docs/policy.md).
        #[arg(long)]
        policy: std::path::PathBuf,
        /// The store for the audit log, ledger and records: a SQLite file
        /// or a `postgres://` URL; overrides the policy's `[store] url` and
        /// `path`.
        #[arg(long)]
        db: Option<std::path::PathBuf>,
    },
    /// Run tests: the `test_...` functions of `*_test.writ` files and the
    /// `[[test]]` tables of `*_test.toml` files (docs/testing.md); exit 0
    /// when every test passed.
    Test {
        /// Test files, or directories to search for them (default: the
        /// current directory).
        paths: Vec<std::path::PathBuf>,
        /// Output for people (`human`) or programs (`json`: one object).
        #[arg(long, value_enum, default_value_t = test_cli::Format::Human)]
        format: test_cli::Format,
        /// Run only the tests whose name contains this text.
        #[arg(long, value_name = "TEXT")]
        filter: Option<String>,
        /// Limits of every test's run, as for `writ run` (a test's own
        /// `Limits:` line or `limits` key comes on top).
        #[arg(long, value_delimiter = ',')]
        limit: Vec<String>,
    },
    /// Explain a diagnostic code, e.g. `writ explain E0100`.
    Explain {
        /// The code, e.g. `E0100`.
        code: String,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Human,
    Json,
}

/// One file's outcome.
struct FileReport {
    path: String,
    text: String,
    diagnostics: Vec<Diagnostic>,
    /// The inferred signatures of its top-level functions.
    signatures: Vec<writ::Signature>,
    /// The effects it performs.
    manifest: Vec<writ::ManifestEntry>,
    /// The inputs it was checked with.
    inputs: Vec<writ::Input>,
    /// The file could not be read.
    unreadable: bool,
}

fn read_file(p: &Path) -> Result<String, Diagnostic> {
    read_file_as(p, FileKind::Source)
}

/// What a file read by [`read_file_as`] is to be: its messages name it.
#[derive(Clone, Copy)]
enum FileKind {
    /// A Writ program.
    Source,
    /// A policy (TOML).
    Policy,
}

/// Read a file of `kind`: a file (not a directory) of at most
/// `MAX_SOURCE_BYTES`, in UTF-8; or the diagnostic saying why not.
fn read_file_as(p: &Path, kind: FileKind) -> Result<String, Diagnostic> {
    let path = p.display();
    let fail = |e: std::io::Error| {
        Diagnostic::new(Code::CannotReadFile, format!("cannot read `{path}`: {e}"))
            .with_help("check the path and its permissions")
    };
    let (what, directory_help) = match kind {
        FileKind::Source => ("a Writ source file", "name the `.writ` files inside it"),
        FileKind::Policy => ("a policy file", "name the policy's `.toml` file"),
    };
    let meta = std::fs::metadata(p).map_err(fail)?;
    if meta.is_dir() {
        return Err(Diagnostic::new(
            Code::IsADirectory,
            format!("expected {what}, found the directory `{path}`"),
        )
        .with_help(directory_help));
    }
    let too_large = |found: Option<u64>| {
        match kind {
        FileKind::Source => found.map_or_else(writ::too_large_unknown, writ::too_large),
        FileKind::Policy => Diagnostic::new(
            Code::FileTooLarge,
            format!(
                "expected a policy file of at most {MAX_SOURCE_BYTES} bytes, found {}",
                found.map_or("more".to_string(), |n| format!("{n} bytes"))
            ),
        )
        .with_help("a policy grants capabilities and sets limits in a few lines; data (records, responses) belongs in the files it names, such as `[store] seed`"),
    }
    };
    if meta.len() > MAX_SOURCE_BYTES {
        return Err(too_large(Some(meta.len())));
    }
    let mut bytes = Vec::new();
    File::open(p)
        .and_then(|f| f.take(MAX_SOURCE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(fail)?;
    // A file that grows while read, or a device, can still be too large.
    if bytes.len() as u64 > MAX_SOURCE_BYTES {
        return Err(too_large(None));
    }
    writ::source_text(&bytes).map(str::to_string)
}

/// A policy file's text ([`read_file_as`] with the policy's wording).
fn read_policy_file(p: &Path) -> Result<String, Diagnostic> {
    read_file_as(p, FileKind::Policy)
}

/// Read and parse a policy file; on failure, print why (its diagnostics
/// rendered against the file) and give the exit code 2.
fn load_policy(path: &Path) -> Result<writ_host::policy::Policy, ExitCode> {
    let shown = path.display().to_string();
    let color = render::want_color(
        std::io::stdout().is_terminal(),
        std::env::var("NO_COLOR").ok().as_deref(),
    );
    read_policy(path).map_err(|(text, diags)| {
        host_cli::out(&render::human(&diags, &shown, &text, color));
        if text.is_empty() {
            host_cli::out(&format!("{shown}: policy not read\n"));
        } else {
            let n = diags.len();
            host_cli::out(&format!(
                "{shown}: malformed policy: {n} error{}; nothing is granted\n",
                if n == 1 { "" } else { "s" }
            ));
        }
        ExitCode::from(2)
    })
}

/// `policy` (read from `path`), if the files it names (its seed, its
/// recorded responses) can be read as a run would read them; else what
/// is wrong is printed, nothing is granted, and `writ` exits with 2.
fn named_files(
    path: &Path,
    mut policy: writ_host::policy::Policy,
) -> Result<writ_host::policy::Policy, ExitCode> {
    // Named files are relative to the policy's directory, as for a run.
    policy.dir = path.parent().map(Path::to_path_buf);
    let files: writ_host::engine::Files = std::sync::Arc::new(writ_host::engine::read_named_file);
    match writ_host::engine::check_named_files(&policy, &files) {
        Ok(()) => Ok(policy),
        Err(e) => {
            let shown = path.display().to_string();
            let color = render::want_color(
                std::io::stdout().is_terminal(),
                std::env::var("NO_COLOR").ok().as_deref(),
            );
            let mut d = Diagnostic::new(e.code, e.message);
            if let Some(help) = e.help {
                d = d.with_help(help);
            }
            host_cli::out(&render::human(&[d], &shown, "", color));
            host_cli::out(&format!(
                "{shown}: a file the policy names cannot be used; nothing is granted\n"
            ));
            Err(ExitCode::from(2))
        }
    }
}

/// Read and parse a policy file, or what went wrong: the file's text
/// (empty when it could not be read) and the diagnostics about it.
fn read_policy(path: &Path) -> Result<writ_host::policy::Policy, (String, Vec<Diagnostic>)> {
    let text = read_policy_file(path).map_err(|d| (String::new(), vec![d]))?;
    writ_host::policy::parse(&text).map_err(|diags| (text, diags))
}

fn check_file(
    p: &Path,
    syntax_only: bool,
    grants: Option<writ::Grants<'_>>,
    inputs: &[writ::InputDecl],
) -> FileReport {
    let path = p.display().to_string();
    match read_file(p) {
        Ok(text) => {
            let mut checked = if syntax_only {
                writ::check_syntax(&text)
            } else {
                writ::check_source(
                    &text,
                    &writ::CheckOptions {
                        grants,
                        inputs,
                        ..Default::default()
                    },
                )
            };
            render::words::reword(&mut checked.diagnostics, Edge::Cli);
            test_cli::note_pairing(p, &mut checked.diagnostics);
            FileReport {
                path,
                text,
                diagnostics: checked.diagnostics,
                signatures: checked.signatures,
                manifest: checked.manifest,
                inputs: checked.inputs,
                unreadable: false,
            }
        }
        Err(d) => FileReport {
            path,
            text: String::new(),
            diagnostics: vec![d],
            signatures: Vec::new(),
            manifest: Vec::new(),
            inputs: Vec::new(),
            unreadable: true,
        },
    }
}

fn summary(r: &FileReport) -> String {
    let errors = r.diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = r.diagnostics.len() - errors;
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    if r.unreadable {
        format!("{}: not checked\n", r.path)
    } else if errors == 0 && warnings == 0 {
        format!("{}: accepted\n", r.path)
    } else if errors == 0 {
        format!(
            "{}: accepted with {}\n",
            r.path,
            plural(warnings, "warning")
        )
    } else {
        format!(
            "{}: rejected: {}{}\n",
            r.path,
            plural(errors, "error"),
            if warnings > 0 {
                format!(", {}", plural(warnings, "warning"))
            } else {
                String::new()
            }
        )
    }
}

fn check(
    files: &[std::path::PathBuf],
    format: Format,
    syntax_only: bool,
    grants: Option<writ::Grants<'_>>,
    inputs: &[writ::InputDecl],
) -> ExitCode {
    let reports: Vec<FileReport> = files
        .iter()
        .map(|f| check_file(f, syntax_only, grants, inputs))
        .collect();
    let mut out = String::new();
    match format {
        Format::Human => {
            let color = render::want_color(
                std::io::stdout().is_terminal(),
                std::env::var("NO_COLOR").ok().as_deref(),
            );
            for r in &reports {
                out.push_str(&render::human(&r.diagnostics, &r.path, &r.text, color));
                out.push_str(&summary(r));
                for i in &r.inputs {
                    out.push_str(&format!("  input {}: {}\n", i.name, i.ty));
                }
                for s in &r.signatures {
                    out.push_str("  ");
                    out.push_str(&s.signature);
                    out.push('\n');
                }
                let index = writ::LineIndex::new(&r.text);
                for m in &r.manifest {
                    let mut sites: Vec<String> = m
                        .sites
                        .iter()
                        .take(SITES_SHOWN)
                        .map(|(op, span)| {
                            let at = index.position(span.start);
                            let kind = writ_lang::types::builtin_op_kind(&m.effect, op)
                                .map(|k| format!(" ({})", k.as_str()))
                                .unwrap_or_default();
                            format!(
                                "{}.{op}{kind} at {}:{}:{}",
                                m.effect, r.path, at.line, at.column
                            )
                        })
                        .collect();
                    if let Some(more) = m.sites.len().checked_sub(SITES_SHOWN).filter(|n| *n > 0) {
                        sites.push(format!(
                            "and {more} more (`--format json` lists every place)"
                        ));
                    }
                    let kind = if m.capability { "capability" } else { "effect" };
                    out.push_str(&format!("  {kind} {}: {}\n", m.effect, sites.join(", ")));
                }
            }
        }
        Format::Json => {
            let files: Vec<_> = reports.iter().map(file_json).collect();
            let doc = json!({ "version": 1, "files": files });
            out = serde_json::to_string_pretty(&doc).unwrap_or_default();
            out.push('\n');
        }
    }
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(out.as_bytes());
    let _ = stdout.flush();
    if reports.iter().any(|r| r.unreadable) {
        ExitCode::from(2)
    } else if reports.iter().all(accepted) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The places of one effect `writ check` shows in its text report; the
/// rest are counted (the JSON report lists them all).
const SITES_SHOWN: usize = 20;

/// One file's report as `writ check --format json` shows it (and the MCP
/// server's `check` tool): its status, diagnostics, manifest with each
/// site's read/act kind, signatures, and the inputs when any were
/// declared.
fn file_json(r: &FileReport) -> serde_json::Value {
    let index = writ::LineIndex::new(&r.text);
    let mut f = json!({
        "path": r.path,
        "status": if r.unreadable { "unreadable" } else if accepted(r) { "accepted" } else { "rejected" },
        "diagnostics": render::json(&r.diagnostics, &r.path, &r.text),
        "manifest": r.manifest.iter().map(|m| {
            json!({
                "effect": m.effect,
                "capability": m.capability,
                "sites": m.sites.iter().map(|(op, span)| {
                    let at = index.position(span.start);
                    let kind = writ_lang::types::builtin_op_kind(&m.effect, op).map(|k| k.as_str());
                    json!({ "operation": op, "kind": kind, "line": at.line, "column": at.column })
                }).collect::<Vec<_>>(),
            })
        }).collect::<Vec<_>>(),
        "signatures": r.signatures.iter().map(|s| {
            let at = index.position(s.span.start);
            json!({ "name": s.name, "signature": s.signature, "line": at.line, "column": at.column })
        }).collect::<Vec<_>>(),
    });
    // A file checked with declared inputs lists them (absent when none
    // were declared, so the output of a program without inputs is as it
    // was).
    if !r.inputs.is_empty() {
        f["inputs"] = r
            .inputs
            .iter()
            .map(|i| json!({ "name": i.name, "type": i.ty.to_string() }))
            .collect();
    }
    f
}

fn accepted(r: &FileReport) -> bool {
    !r.unreadable && !r.diagnostics.iter().any(Diagnostic::is_error)
}

fn explain(code: &str) -> ExitCode {
    match Code::parse(code).and_then(writ::explain::explain) {
        Some(text) => {
            host_cli::out(&text);
            ExitCode::SUCCESS
        }
        None => {
            // `E3008` for `W3008`, `w3008`: the same number with the other
            // letter, if that is a code.
            let other = code.trim().get(1..).and_then(|digits| {
                ["E", "W"]
                    .iter()
                    .map(|letter| format!("{letter}{digits}"))
                    .find(|c| c != code && Code::parse(c).is_some())
            });
            match other {
                Some(c) => err_println!(
                    "error: `{code}` is not a Writ diagnostic code; did you mean `{c}`? (see docs/errors.md)"
                ),
                None => err_println!(
                    "error: `{code}` is not a Writ diagnostic code (codes look like `E0100`; see docs/errors.md)"
                ),
            }
            ExitCode::from(2)
        }
    }
}

/// Apply `--limit name=value,...` arguments to `limits`; a malformed one
/// is a usage error (exit 2).
fn apply_limits(limits: &mut writ::Limits, limit: &[String]) -> Result<(), ExitCode> {
    for l in limit {
        if let Err(why) = set_limit(limits, l) {
            err_println!("error: in `--limit {l}`: {why}");
            return Err(ExitCode::from(2));
        }
    }
    Ok(())
}

/// Apply one `name=value` limit setting (as `--limit`, a test's `Limits:`
/// line and a test file's `limits` take them), or say why it is not one.
fn set_limit(limits: &mut writ::Limits, setting: &str) -> Result<(), String> {
    let (name, value) = setting
        .split_once('=')
        .ok_or_else(|| format!("expected `name=value` (like `fuel=1000000`), found `{setting}`"))?;
    limits
        .set(name.trim(), value.trim())
        .map_err(|e| e.to_string())
}

/// Whether diagnostics written to standard error get colour.
fn color_err() -> bool {
    render::want_color(
        std::io::stderr().is_terminal(),
        std::env::var("NO_COLOR").ok().as_deref(),
    )
}

/// Print how a run ended: its final value (nothing for `()`) on standard
/// output, or its error on standard error, its help worded for `edge`;
/// the exit code (3 for a run-time error, 4 for a limit).
fn finish(
    result: Result<String, writ::RunError>,
    path: &str,
    text: &str,
    edge: Edge<'_>,
) -> ExitCode {
    match result {
        Ok(value) => {
            if !value.is_empty() {
                host_cli::out(&format!("{value}\n"));
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            let d = render::words::run_error_in(&e, edge, text);
            err_print!("{}", render::human(&[d], path, text, color_err()));
            ExitCode::from(if e.is_limit() { 4 } else { 3 })
        }
    }
}

fn run(
    file: &Path,
    limit: &[String],
    (inputs, values): (&[String], Option<&Path>),
    format: Format,
) -> ExitCode {
    let mut limits = writ::Limits::default();
    if let Err(code) = apply_limits(&mut limits, limit) {
        return code;
    }
    let (decls, values) = match (inputs_cli::declared(inputs), inputs_cli::values(values)) {
        (Ok(d), Ok(v)) => (d, v),
        (Err(code), _) | (_, Err(code)) => return code,
    };
    let path = file.display().to_string();
    let color = color_err();
    let text = match read_file(file) {
        Ok(t) => t,
        Err(d) => {
            err_print!("{}", render::human(&[d], &path, "", color));
            return ExitCode::from(2);
        }
    };
    if matches!(format, Format::Json) {
        let mut lines = Vec::new();
        let mut log = |line: &str| lines.push(line.to_string());
        let mut ran = writ::run_source_with_inputs(&text, &decls, &values, &limits, &mut log, None);
        render::words::reword(&mut ran.checked.diagnostics, Edge::Cli);
        return outcome_json::print(outcome_json::Report {
            path: &path,
            text: &text,
            edge: Edge::Cli,
            diagnostics: &ran.checked.diagnostics,
            result: ran.result,
            value: ran.value,
            log: &lines,
            operations: &[],
            usage: ran.usage,
            limits: &limits,
            recorded: false,
        });
    }
    let mut log = |line: &str| host_cli::log_line(line);
    let mut ran = writ::run_source_with_inputs(&text, &decls, &values, &limits, &mut log, None);
    render::words::reword(&mut ran.checked.diagnostics, Edge::Cli);
    if !ran.checked.diagnostics.is_empty() {
        err_print!(
            "{}",
            render::human(&ran.checked.diagnostics, &path, &text, color)
        );
    }
    match ran.result {
        None => {
            err_println!("{path}: rejected: not run");
            ExitCode::from(1)
        }
        Some(result) => finish(result, &path, &text, Edge::Cli),
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match cli.command {
        Command::Check {
            files,
            format,
            syntax_only,
            grant,
            policy,
            input_type,
        } => {
            let inputs = match inputs_cli::declared(&input_type) {
                Ok(i) => i,
                Err(code) => return code,
            };
            if let Some(policy) = policy {
                return match load_policy(&policy).and_then(|p| named_files(&policy, p)) {
                    Ok(p) => {
                        let names = p.granted();
                        let grants = writ::Grants {
                            names: &names,
                            by: writ::GrantedBy::Policy,
                        };
                        check(&files, format, syntax_only, Some(grants), &inputs)
                    }
                    Err(code) => code,
                };
            }
            // `Fail` needs no grant; naming it is allowed and changes nothing.
            let grant: Option<Vec<String>> = grant.map(|g| {
                g.into_iter()
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty() && !BuiltinEffect::Fail.is(s))
                    .collect()
            });
            let known = writ_lang::types::HOST_CAPABILITIES;
            if let Some(bad) = grant
                .iter()
                .flatten()
                .find(|g| !known.contains(&g.as_str()))
            {
                let close = known
                    .iter()
                    .find(|k| k.eq_ignore_ascii_case(bad))
                    .map(|k| format!(" (did you mean `{k}`?)"))
                    .unwrap_or_default();
                err_println!(
                    "error: `{bad}` is not a host capability{close}; the capabilities are {}",
                    known.join(", ")
                );
                return ExitCode::from(2);
            }
            let grants = grant.as_deref().map(writ::Grants::list);
            check(&files, format, syntax_only, grants, &inputs)
        }
        Command::Run {
            file,
            limit,
            policy,
            db,
            input_type,
            inputs,
            format,
            pause_at,
            save,
            record,
            replay,
            approve,
            live,
        } => match policy {
            Some(p) => host_cli::run_with_policy(host_cli::PolicyRun {
                file: &file,
                policy: &p,
                db: db.as_deref(),
                limit: &limit,
                inputs: (&input_type, inputs.as_deref()),
                json: matches!(format, Format::Json),
                pausing: save.as_deref().map(|s| pause_cli::Pausing {
                    at: &pause_at,
                    save: Some(s),
                }),
                reads: (record.as_deref(), replay.as_deref()),
                approve: approve.as_deref().map(|a| (a, live)),
            }),
            None => run(&file, &limit, (&input_type, inputs.as_deref()), format),
        },
        Command::Plan {
            file,
            policy,
            db,
            limit,
            input_type,
            inputs,
            output,
        } => plan_cli::plan(&plan_cli::PlanArgs {
            file: &file,
            policy: &policy,
            db: db.as_deref(),
            limit: &limit,
            inputs: (&input_type, inputs.as_deref()),
            output: &output,
        }),
        Command::Resume {
            file,
            policy,
            db,
            limit,
            answer,
            carry_out,
            fail,
            refuse,
            pause_at,
            save,
            format,
        } => {
            let reply = match (answer, carry_out, fail, refuse) {
                (Some(a), ..) => match serde_json::from_str(&a) {
                    Ok(v) => Some(writ_host::engine::Reply::Answer(v)),
                    Err(e) => {
                        err_println!(
                            "error: expected `--answer` to be a JSON value (`true`, `42`, `\"text\"`), found `{a}`: {e}"
                        );
                        return ExitCode::from(2);
                    }
                },
                (None, true, ..) => Some(writ_host::engine::Reply::CarryOut),
                (None, false, Some(m), _) => Some(writ_host::engine::Reply::Fail(m)),
                (None, false, None, Some(r)) => Some(writ_host::engine::Reply::Refuse(r)),
                (None, false, None, None) => None,
            };
            pause_cli::resume(&pause_cli::Resume {
                file: &file,
                policy: &policy,
                db: db.as_deref(),
                limit: &limit,
                reply,
                pausing: pause_cli::Pausing {
                    at: &pause_at,
                    save: save.as_deref(),
                },
                json: matches!(format, Format::Json),
            })
        }
        Command::Audit {
            action,
            db,
            head,
            format,
        } => match (action, head) {
            (AuditAction::Verify | AuditAction::Head, _) if matches!(format, Format::Json) => {
                err_println!("error: `--format json` goes with `writ audit show`");
                ExitCode::from(2)
            }
            (AuditAction::Verify, head) => host_cli::audit_verify(db.as_deref(), head.as_deref()),
            (_, Some(_)) => {
                err_println!("error: `--head` goes with `writ audit verify`");
                ExitCode::from(2)
            }
            (AuditAction::Show, None) => {
                host_cli::audit_show(db.as_deref(), matches!(format, Format::Json))
            }
            (AuditAction::Head, None) => host_cli::audit_head(db.as_deref()),
        },
        Command::Db { action, db, seed } => match action {
            DbAction::Init => host_cli::db_init(db.as_deref(), seed.as_deref()),
            DbAction::Migrate => host_cli::db_migrate(db.as_deref(), seed.is_some()),
        },
        Command::Repl { policy, db, limit } => repl::main(repl::Options { policy, db, limit }),
        Command::Primer { policy } => primer_cli::primer(policy.as_deref()),
        Command::Mcp { policy, db } => mcp::main(&policy, db.as_deref()),
        Command::Test {
            paths,
            format,
            filter,
            limit,
        } => test_cli::run(&test_cli::Options {
            paths: &paths,
            format,
            filter: filter.as_deref(),
            limit: &limit,
        }),
        Command::Explain { code } => explain(&code),
    }
}
