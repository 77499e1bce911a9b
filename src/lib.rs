//! Writ: a statically typed functional language with algebraic effects, for
//! running programs that an LLM writes on a person's behalf.
//!
//! This crate is the stable face of the project: the embedding API and the
//! `writ` command line both go through it. It checks programs
//! ([`check_source`]), runs them with `Log` only ([`run_source`]), and, in
//! [`host`], checks and runs them under a person's policy.
//!
//! The command line is this package's default feature `cli`; an embedder
//! depends on the library alone, without the command line's crates
//! (clap, rustyline, ctrlc, nix):
//! `writ = { version = "0.1", default-features = false }`.
//!
//! ```
//! let checked = writ::check_source("let x = 1 +\n", &writ::CheckOptions::default());
//! assert!(!checked.accepted());
//! assert_eq!(checked.diagnostics[0].code, writ::Code::UnexpectedToken);
//! ```
//!
//! Invariants: the checker and the machine touch no file, network or
//! terminal; only the host capabilities of [`host`] do (the store, the
//! network for `Http`, the files a policy names), each as a policy allows.
//! No input makes any function here panic.
//!
//! # The surface
//!
//! - Checking: [`check_source`] with [`CheckOptions`] (the [`Grants`] a
//!   program is checked against, an embedder's interfaces), [`check_syntax`];
//!   each gives a [`Checked`]: [`Diagnostic`]s, [`Signature`]s and the
//!   capability manifest ([`ManifestEntry`]). [`source_text`] applies the
//!   size and encoding rules to a file's bytes.
//! - Running with `Log` only: [`run_source`] under [`Limits`], giving a
//!   [`Ran`]; a run's error is a [`RunError`]. A program's inputs
//!   ([`InputDecl`], decision 009) are declared in [`CheckOptions`] and
//!   given as JSON to [`run_source_with_inputs`].
//! - Under a person's policy, and one input at a time: [`host`].
//! - Showing what happened: [`render`] (diagnostics for people and as
//!   JSON, and the words of advice that depend on where a program ran);
//!   [`explain`] (the documentation of each code).
//!
//! The re-exported types are those of the crates below (`writ-lang`,
//! `writ-runtime`, `writ-host`), so that an embedder needs no other
//! dependency; what those crates keep to themselves, this one does too.

#![warn(missing_docs)]

pub mod explain;
pub mod primer;
pub mod render;

/// What a check finds and is told: the inferred signatures, the
/// capability manifest, and the grants a program is checked against
/// (with where they came from, and the defaults).
pub use writ_lang::types::{
    CheckOptions, DEFAULT_GRANTS, GrantedBy, Grants, HOST_CAPABILITIES, ManifestEntry, Signature,
};
/// A program's inputs (decision 009): what a host declares (a name and a
/// type in Writ's syntax), and what the checker read from it.
pub use writ_lang::types::{Input, InputDecl, InputType};
/// Diagnostics as data (code, severity, message, labelled spans, advice),
/// and where they point: byte spans, and lines and columns.
pub use writ_lang::{Code, Diagnostic, Hint, Label, LineIndex, Position, Severity, Span};
/// A run's limits (fuel, memory, depth, output, time) and how it ended
/// when it did not end well (with the exhausted limit and the trace),
/// what it used of them, and its final value as JSON.
pub use writ_runtime::{Limit, Limits, RunError, TraceEntry, Usage, json};

/// Embedding: check a program against a person's policy once, then run it
/// (on any thread, any number of times) with exactly the authority the
/// policy grants.
///
/// A run's error is data ([`RunError`]: the exhausted limit with its
/// value, the trace); [`render::words::run_error_in`] makes it a
/// diagnostic, with `Edge::Policy` saying to raise a limit in the
/// policy's `[limits]`, or `Edge::Embedded` naming it plainly.
///
/// ```
/// use writ::host::{Engine, RunOptions, policy};
///
/// let policy = policy::parse(
///     "[principal]\nid = \"ada\"\nrole = \"employee\"\n\n[grants.Log]\n",
/// ).expect("a valid policy");
/// let engine = Engine::new();
///
/// // A program that needs a capability the policy does not grant is
/// // rejected before it runs.
/// let refused = engine.check("Pay.pay(\"a.example\", 100, \"x\")\n", &policy);
/// assert!(matches!(refused, Err(d) if d[0].code == writ::Code::EffectNotGranted));
///
/// let program = engine.check("Log.info(\"hi\")\n6 * 7\n", &policy).expect("accepted");
/// let db = std::env::temp_dir().join(format!("writ-doc-{}.db", std::process::id()));
/// let options = RunOptions { store: Some(db.display().to_string()), ..Default::default() };
/// let outcome = engine.run(&program, &policy, &options, &mut |_line: &str| {}).expect("ran");
/// assert_eq!(outcome.result.ok().as_deref(), Some("42"));
/// assert_eq!(outcome.output, ["hi"]);
/// # let _ = std::fs::remove_file(db);
/// ```
///
/// What is here: the [`Engine`](host::Engine) that checks a program into
/// a [`Compiled`](host::Compiled) program and runs it ([`RunOptions`](host::RunOptions),
/// [`Outcome`](host::Outcome): each [`Operation`](host::Operation) with its
/// [`Decision`](host::Decision)); an embedder's own capabilities
/// ([`Engine::with_capability`](host::Engine::with_capability) with a
/// [`Handler`](host::Handler), its [`Args`](host::Args) read with
/// [`FromValue`](host::FromValue), its results made with
/// [`IntoValue`](host::IntoValue), its refusals a [`Refusal`](host::Refusal),
/// the program's values opaque [`Value`](host::Value)s walked through a
/// [`View`](host::View));
/// the person's answer to a question ([`Confirmer`](host::Confirmer));
/// [`policy`](host::policy) files; the [`session`](host::session) that
/// runs inputs one at a time (the REPL's back end); and the
/// [`store`](host::store), read and verified (the audit log and the
/// ledger), which only a run writes.
pub mod host {
    pub use writ_host::engine::{
        ArgError, Args, Capability, Compiled, Confirmer, DEFAULT_STORE, Decision, Engine,
        FromValue, Handler, IntoValue, Operation, Outcome, Refusal, RunOptions,
    };
    pub use writ_host::policy::{self, Policy};
    pub use writ_host::session::{self, Evaluation, Event, Session};
    pub use writ_host::store::{self, Store};
    /// A program's values, opaque: what a capability's handler reads and
    /// returns (decision 008).
    pub use writ_runtime::{FromValueError, ListRef, MapRef, RecordRef, Value, VariantRef, View};
}

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// The largest source file Writ accepts, in bytes (2 MiB): what bounds the
/// time and memory of checking one file (docs/decisions/006).
pub const MAX_SOURCE_BYTES: u64 = 2 * 1024 * 1024;

/// The outcome of checking one program.
#[derive(Clone, Debug)]
pub struct Checked {
    /// Every diagnostic, sorted by position.
    pub diagnostics: Vec<Diagnostic>,
    /// The inferred signature of every top-level function (empty unless
    /// the program is accepted).
    pub signatures: Vec<Signature>,
    /// The effects the program performs, with where (empty unless the
    /// program is accepted).
    pub manifest: Vec<ManifestEntry>,
    /// The inputs it was checked with ([`CheckOptions::inputs`]), each
    /// with its type, in the order declared.
    pub inputs: Vec<Input>,
}

impl Checked {
    /// Whether the program is accepted (no error; warnings allowed).
    pub fn accepted(&self) -> bool {
        !self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Check a program's source text: parse it, then (if it parsed) resolve
/// its names and infer its types, against `options`. With grants, a
/// program that needs a host capability outside them is rejected (`E3002`:
/// the program would not be run); E3002 carries the missing capability and
/// the grants' origin as data ([`Hint::Grant`]), its help is worded for any
/// host, and [`render::words::reword`] words it for an edge that knows
/// more.
///
/// ```
/// use writ::{CheckOptions, Grants};
///
/// let src = "let page = Http.get(\"https://a.example\")\nLog.info(page)\n";
/// let granted = vec!["Log".to_string()];
/// let options = CheckOptions { grants: Some(Grants::list(&granted)), ..Default::default() };
/// let checked = writ::check_source(src, &options);
/// assert!(!checked.accepted());
/// assert_eq!(checked.diagnostics[0].code, writ::Code::EffectNotGranted);
/// let all = writ::check_source(src, &CheckOptions::default());
/// let needs: Vec<&str> = all.manifest.iter().map(|m| m.effect.as_str()).collect();
/// assert_eq!(needs, ["Http", "Log"]);
/// ```
pub fn check_source(text: &str, options: &CheckOptions<'_>) -> Checked {
    let a = writ_lang::analyse(text, options);
    let (signatures, manifest, inputs) = a
        .typed
        .map(|t| (t.signatures, t.manifest, t.inputs))
        .unwrap_or_default();
    Checked {
        diagnostics: a.diagnostics,
        signatures,
        manifest,
        inputs,
    }
}

/// The outcome of [`run_source`].
#[derive(Clone, Debug)]
pub struct Ran {
    /// What checking found; the program ran only if it was accepted.
    pub checked: Checked,
    /// `None` if the program was not run (rejected); otherwise the display
    /// form of its value, or why it stopped.
    pub result: Option<Result<String, RunError>>,
    /// The final value as JSON ([`json`]'s mapping), when it ran to a
    /// value: `Err` with `E5004` when the JSON would pass the output
    /// limit.
    pub value: Option<Result<json::Json, RunError>>,
    /// What the run used of its limits (zero when it did not run).
    pub usage: Usage,
}

/// Check a program with only `Log` granted and, if it is accepted, run it
/// under `limits`. Each `Log.info` line is passed to `log` as it happens;
/// `cancel`, when set from another thread, stops the run (`E5006`).
///
/// ```
/// let mut lines = Vec::new();
/// let ran = writ::run_source(
///     "fn double(x) { x * 2 }\nLog.info(\"hello\")\ndouble(21)\n",
///     &writ::Limits::default(),
///     &mut |line: &str| lines.push(line.to_string()),
///     None,
/// );
/// assert_eq!(ran.result, Some(Ok("42".to_string())));
/// assert_eq!(lines, ["hello"]);
///
/// let mut limits = writ::Limits::default();
/// limits.fuel = 10_000;
/// let ran = writ::run_source("fn f(n) { f(n + 1) }\nf(0)\n", &limits, &mut |_: &str| {}, None);
/// let err = ran.result.unwrap().unwrap_err();
/// assert_eq!(err.code, writ::Code::FuelExhausted);
/// ```
pub fn run_source(
    text: &str,
    limits: &Limits,
    log: &mut dyn FnMut(&str),
    cancel: Option<&Arc<AtomicBool>>,
) -> Ran {
    run_source_with_inputs(text, &[], &serde_json::Map::new(), limits, log, cancel)
}

/// [`run_source`] for a program with inputs (decision 009): `inputs`
/// declares each by name and Writ type, `values` gives each a JSON value,
/// converted and checked against its type before the first step. A value
/// that does not match is the run's error (`E4007`, naming the input and
/// the path inside it), as is a declared input without a value or a value
/// for no input (`E4008`); then nothing runs.
///
/// ```
/// let inputs = [writ::InputDecl::new("order", "{ items: List[Int], note: Option[Str] }")];
/// let source = "list.sum(order.items)\n";
/// let values = serde_json::json!({ "order": { "items": [1, 2, 3], "note": null } });
/// let Some(values) = values.as_object() else { unreachable!() };
/// let limits = writ::Limits::default();
/// let ran = writ::run_source_with_inputs(source, &inputs, values, &limits, &mut |_: &str| {}, None);
/// assert_eq!(ran.result, Some(Ok("6".to_string())));
///
/// let values = serde_json::json!({ "order": { "items": [1, "2"], "note": null } });
/// let Some(values) = values.as_object() else { unreachable!() };
/// let ran = writ::run_source_with_inputs(source, &inputs, values, &limits, &mut |_: &str| {}, None);
/// let err = ran.result.unwrap().unwrap_err();
/// assert_eq!(err.code, writ::Code::InputMismatch);
/// assert_eq!(err.message, "order.items[1]: expected Int, found \"2\"");
/// ```
pub fn run_source_with_inputs(
    text: &str,
    inputs: &[InputDecl],
    values: &serde_json::Map<String, serde_json::Value>,
    limits: &Limits,
    log: &mut dyn FnMut(&str),
    cancel: Option<&Arc<AtomicBool>>,
) -> Ran {
    let names: Vec<String> = DEFAULT_GRANTS.iter().map(|g| g.to_string()).collect();
    let grants = Grants {
        names: &names,
        by: GrantedBy::Default,
    };
    let options = CheckOptions {
        grants: Some(grants),
        inputs,
        ..Default::default()
    };
    let a = writ_lang::analyse(text, &options);
    let accepted = a.accepted();
    let Some(typed) = a.typed else {
        return Ran {
            checked: Checked {
                diagnostics: a.diagnostics,
                signatures: Vec::new(),
                manifest: Vec::new(),
                inputs: Vec::new(),
            },
            result: None,
            value: None,
            usage: Usage::default(),
        };
    };
    let checked = Checked {
        diagnostics: a.diagnostics,
        signatures: typed.signatures.clone(),
        manifest: typed.manifest.clone(),
        inputs: typed.inputs.clone(),
    };
    if !accepted {
        return Ran {
            checked,
            result: None,
            value: None,
            usage: Usage::default(),
        };
    }
    let mut usage = Usage::default();
    let mut value = None;
    let result = writ_runtime::compile(&a.program, &typed).and_then(|module| {
        let globals = writ_runtime::inputs::from_json(&module, values, limits)?;
        let mut host = writ_runtime::LogHost::new(|line: &str| log(line));
        let (ran, used) = writ_runtime::inputs::run(&module, globals, limits, &mut host, cancel);
        usage = used;
        let v = ran?;
        value = Some(v.to_json(&module, limits.output));
        writ_runtime::display::result_text(&v, &module, limits.output)
    });
    Ran {
        checked,
        result: Some(result),
        value,
        usage,
    }
}

/// Check only a program's syntax (lexing and parsing), as `writ check
/// --syntax-only` does.
pub fn check_syntax(text: &str) -> Checked {
    let parsed = writ_lang::parse(text);
    Checked {
        diagnostics: parsed.diagnostics,
        signatures: Vec::new(),
        manifest: Vec::new(),
        inputs: Vec::new(),
    }
}

/// Interpret a file's bytes as Writ source: at most [`MAX_SOURCE_BYTES`],
/// and UTF-8. A leading byte-order mark is skipped.
pub fn source_text(bytes: &[u8]) -> Result<&str, Diagnostic> {
    if bytes.len() as u64 > MAX_SOURCE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(text.strip_prefix('\u{FEFF}').unwrap_or(text)),
        Err(e) => {
            let at = e.valid_up_to();
            let before = bytes.get(..at).unwrap_or(&[]);
            let line = before.iter().filter(|b| **b == b'\n').count() + 1;
            Err(Diagnostic::new(
                Code::NotUtf8,
                format!("expected UTF-8 text, found an invalid byte at offset {at} (line {line})"),
            )
            .with_help("save the file as UTF-8"))
        }
    }
}

/// The diagnostic for a file whose size is unknown (a device, a pipe) but
/// over the limit.
pub fn too_large_unknown() -> Diagnostic {
    Diagnostic::new(
        Code::FileTooLarge,
        format!("expected a source file of at most {MAX_SOURCE_BYTES} bytes, found more"),
    )
    .with_help("a program is one file: keep data out of the source and let an effect (such as `Http` or `Records`) supply it")
}

/// The diagnostic for a file of `size` bytes, over the limit.
pub fn too_large(size: u64) -> Diagnostic {
    Diagnostic::new(
        Code::FileTooLarge,
        format!("expected a source file of at most {MAX_SOURCE_BYTES} bytes, found {size} bytes"),
    )
    .with_help("a program is one file: keep data out of the source and let an effect (such as `Http` or `Records`) supply it")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_text_checks_encoding_and_size() {
        assert_eq!(source_text(b"\xEF\xBB\xBFlet x = 1"), Ok("let x = 1"));
        let e = source_text(b"ok\n\xFF").unwrap_err();
        assert_eq!(e.code, Code::NotUtf8);
        assert!(e.message.contains("offset 3 (line 2)"));
        let big = vec![b' '; MAX_SOURCE_BYTES as usize + 1];
        assert_eq!(source_text(&big).unwrap_err().code, Code::FileTooLarge);
    }
}

/// The examples of docs/embedding.md, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/embedding.md")]
pub struct EmbeddingGuide;
