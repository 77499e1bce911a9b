//! `writ repl`: the interactive front end of [`writ_host::session`].
//!
//! On a terminal it reads with rustyline (history in a file, tab
//! completion, Ctrl-C to drop the input being typed or to stop a running
//! one, Ctrl-D to leave). With piped standard input it reads the same
//! inputs line by line with no prompt, banner or colour, so a transcript
//! can be tested and scripted; it then exits with 1 if any input was
//! rejected or failed.
//!
//! An input is a command (a line starting with `:`) or Writ text: lines
//! are read until brackets close and the last line does not end asking
//! for more ([`writ_lang::needs_more`]); an empty line ends an unfinished
//! input early. Results go to standard output, diagnostics and run-time
//! errors to standard error.
//!
//! Invariants: the REPL checks every input against the grants in force,
//! exactly as `writ run` checks a script; nothing here decides what is
//! allowed.

mod commands;
mod complete;
mod show;

use std::io::{BufRead, IsTerminal};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use rustyline::{Config, Editor};
use writ::render;
use writ::render::words::Edge;
use writ_host::engine::{Engine, RunOptions};
use writ_host::session::{Event, Session, Source};
use writ_lang::types::session::DefinedKind;

use crate::host_cli::out;
use complete::{ReplHelper, Words};

/// How `writ repl` was started.
pub struct Options {
    /// The policy file, if any.
    pub policy: Option<PathBuf>,
    /// The store, overriding the policy's.
    pub db: Option<PathBuf>,
    /// `name=value` limits.
    pub limit: Vec<String>,
}

const PROMPT: &str = "writ> ";
const MORE: &str = "  ... ";

/// One line read, or why there is none.
enum Read {
    Line(String),
    /// A line that is not UTF-8 text: the offset of its first invalid
    /// byte (unknown on a terminal, which does not say).
    NotUtf8(Option<usize>),
    Interrupted,
    End,
}

/// Where lines come from: the terminal (rustyline) or a pipe.
enum Reader {
    Terminal(Box<Editor<ReplHelper, DefaultHistory>>, Option<PathBuf>),
    /// Standard input, and the lines read ahead (to see whether one
    /// continues the input before it, or whether the lines after a plan
    /// were meant to be in it), oldest first.
    Pipe(
        std::io::StdinLock<'static>,
        std::collections::VecDeque<Read>,
    ),
}

/// The most lines read ahead after a plan (the lines up to an empty one).
const PLAN_LOOK_AHEAD: usize = 10_000;

impl Reader {
    fn read(&mut self, prompt: &str) -> Read {
        match self {
            Reader::Terminal(rl, _) => match rl.readline(prompt) {
                Ok(l) => Read::Line(l),
                Err(ReadlineError::Interrupted) => Read::Interrupted,
                Err(ReadlineError::Io(e)) if e.kind() == std::io::ErrorKind::InvalidData => {
                    Read::NotUtf8(None)
                }
                Err(_) => Read::End,
            },
            Reader::Pipe(stdin, ahead) => match ahead.pop_front() {
                Some(read) => read,
                None => read_piped(stdin),
            },
        }
    }

    /// The `n`th line ahead (0: the next), read now if it was not yet.
    fn peek(&mut self, n: usize) -> Option<&Read> {
        let Reader::Pipe(stdin, ahead) = self else {
            return None;
        };
        while ahead.len() <= n {
            if matches!(ahead.back(), Some(Read::End)) {
                return None;
            }
            ahead.push_back(read_piped(stdin));
        }
        ahead.get(n)
    }

    /// Whether the next line of a script starts with an operator (or `.`,
    /// `else`, ...) and so continues the input before it, as it would in
    /// a file. Never on a terminal, where the input before it has run.
    fn continues(&mut self) -> bool {
        matches!(self.peek(0), Some(Read::Line(l)) if writ_lang::continues_above(l))
    }

    /// Whether the lines of a script after a plan, up to an empty line,
    /// close a bracket they did not open: then they were meant to be in
    /// the plan, whose text closed too early. Never on a terminal.
    fn closes_a_plan(&mut self) -> bool {
        let mut text = String::new();
        for n in 0..PLAN_LOOK_AHEAD {
            match self.peek(n) {
                Some(Read::Line(l)) if !l.trim().is_empty() => {
                    text.push_str(l);
                    text.push('\n');
                }
                _ => break,
            }
        }
        writ_lang::closes_unopened(&text)
    }

    fn remember(&mut self, entry: &str) {
        if let Reader::Terminal(rl, file) = self {
            let _ = rl.add_history_entry(entry);
            if let Some(f) = file {
                let _ = rl.append_history(f);
            }
        }
    }

    /// Give completion the session's words, computed only when there is
    /// a terminal to complete on (a piped session of thousands of inputs
    /// does not sort its names after each one).
    fn refresh(&mut self, words: impl FnOnce() -> Words) {
        if let Reader::Terminal(rl, _) = self
            && let Some(h) = rl.helper_mut()
        {
            h.words = words();
        }
    }
}

/// The history file: `$WRIT_HISTORY`, else `~/.writ_history`; none when
/// neither can be found (history then lasts the session).
fn history_file() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("WRIT_HISTORY").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(".writ_history"))
}

/// The REPL's state between inputs.
pub(crate) struct Repl {
    session: Session,
    policy_path: Option<PathBuf>,
    interactive: bool,
    color: bool,
    /// Whether any input was rejected or failed (the piped exit code).
    failed: bool,
    /// How many Writ inputs were entered (they are named `<input N>`).
    inputs: usize,
    cancel: Arc<AtomicBool>,
    running: Arc<AtomicBool>,
    quit: bool,
}

/// `writ repl [--policy P] [--db PATH] [--limit ...]`.
pub fn main(options: Options) -> ExitCode {
    let interactive = std::io::stdin().is_terminal();
    let policy = match &options.policy {
        Some(p) => match commands::read_policy(p, crate::color_err()) {
            Ok(p) => Some(p),
            Err(text) => {
                err_print!("{text}");
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    // Ctrl-C sets `cancel` while an input runs (below): it stops the run,
    // and refuses a question the run is waiting on.
    let cancel = Arc::new(AtomicBool::new(false));
    let engine =
        Engine::new().with_confirm(crate::host_cli::terminal_confirm_or_cancel(cancel.clone()));
    let run_options = RunOptions {
        store: options.db.as_ref().map(|d| d.display().to_string()),
        ..Default::default()
    };
    let mut session = match Session::new(engine, policy, run_options) {
        Ok(s) => s,
        Err(e) => {
            let shown = options
                .policy
                .as_ref()
                .map_or("<repl>".to_string(), |p| p.display().to_string());
            err_print!(
                "{}",
                render::human(
                    &[render::words::run_error_in(&e, Edge::Repl, "")],
                    &shown,
                    "",
                    crate::color_err()
                )
            );
            return ExitCode::from(2);
        }
    };
    if let Err(code) = crate::apply_limits(session.limits_mut(), &options.limit) {
        return code;
    }
    let running = Arc::new(AtomicBool::new(false));
    {
        let (cancel, running) = (cancel.clone(), running.clone());
        // Ctrl-C stops a running input; while one is typed, the terminal
        // is raw and rustyline sees the key instead. Piped, with nothing
        // running, it ends the REPL as it would any program.
        let _ = ctrlc::set_handler(move || {
            if running.load(Ordering::SeqCst) {
                cancel.store(true, Ordering::SeqCst);
            } else if !interactive {
                std::process::exit(130);
            }
        });
    }
    let mut repl = Repl {
        session,
        policy_path: options.policy.clone(),
        interactive,
        // Colour for diagnostics (on standard error) and audit lines (on
        // standard output): only when both are the terminal.
        color: interactive && crate::color_err() && render_color_out(),
        failed: false,
        inputs: 0,
        cancel,
        running,
        quit: false,
    };
    let mut reader = if interactive {
        let config = Config::builder()
            .auto_add_history(false)
            .max_history_size(10_000)
            .map(|b| b.completion_type(rustyline::CompletionType::List).build());
        let editor = config.and_then(Editor::with_config);
        match editor {
            Ok(mut rl) => {
                rl.set_helper(Some(ReplHelper::new(repl.words())));
                let file = history_file();
                if let Some(f) = &file {
                    let _ = rl.load_history(f);
                }
                out(&repl.banner());
                Reader::Terminal(Box::new(rl), file)
            }
            Err(e) => {
                err_println!("error: the terminal cannot be used ({e})");
                return ExitCode::from(2);
            }
        }
    } else {
        Reader::Pipe(std::io::stdin().lock(), Default::default())
    };
    repl.run(&mut reader);
    if !repl.interactive && repl.failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Read the lines that go on from `text` while `unfinished` says it asks
/// for more: the end of the input ends it early, and an empty line too
/// when `blank_ends` (else it is skipped); `None` when Ctrl-C drops it.
fn read_rest(
    reader: &mut Reader,
    mut text: String,
    more: &str,
    unfinished: impl Fn(&str) -> bool,
    blank_ends: bool,
    not_text: &mut impl FnMut(Option<usize>),
) -> Option<String> {
    while unfinished(&text) {
        match reader.read(more) {
            Read::Line(l) if l.trim().is_empty() && blank_ends => break,
            Read::Line(l) if l.trim().is_empty() => {}
            Read::Line(l) => {
                text.push('\n');
                text.push_str(&l);
            }
            Read::NotUtf8(at) => {
                not_text(at);
                return None;
            }
            Read::Interrupted => return None,
            Read::End => break,
        }
    }
    Some(text)
}

/// One line of standard input, without its line break.
fn read_piped(stdin: &mut std::io::StdinLock<'static>) -> Read {
    let mut line = Vec::new();
    match stdin.read_until(b'\n', &mut line) {
        Ok(0) | Err(_) => Read::End,
        Ok(_) => {
            if line.ends_with(b"\n") {
                line.pop();
                if line.ends_with(b"\r") {
                    line.pop();
                }
            }
            match String::from_utf8(line) {
                Ok(line) => Read::Line(line),
                Err(e) => Read::NotUtf8(Some(e.utf8_error().valid_up_to())),
            }
        }
    }
}

/// Report an input that starts by continuing the one before it (`|>
/// list.map(f)` on a line of its own, typed after the input it was to
/// continue had run).
fn continued_alone(text: &str, color: bool) {
    let word = text.split_whitespace().next().unwrap_or_default();
    let d = writ::Diagnostic::new(
        writ::Code::UnexpectedToken,
        format!(
            "expected a statement, found `{}` at the start of an input",
            writ::render::terminal_safe(word)
        ),
    )
    .with_help("in the REPL an input ends with its line once it is complete, and runs: end the line before with the operator (`xs |>`), or write the whole expression on one line or in parentheses");
    err_print!("{}", writ::render::human(&[d], "", "", color));
}

/// Report a line that is not UTF-8 text (`E9003`, as `:load` reports a
/// file): the line is dropped, and the input it was part of with it.
fn not_utf8(at: Option<usize>, color: bool) {
    let found = match at {
        Some(at) => format!("an invalid byte at column {} of the line", at + 1),
        None => "a line that is not".to_string(),
    };
    let d = writ::Diagnostic::new(
        writ::Code::NotUtf8,
        format!("expected UTF-8 text, found {found}"),
    )
    .with_help("the line was not read: write it again as UTF-8 text (in a string, a `\\u{...}` escape writes any character)");
    err_print!("{}", writ::render::human(&[d], "", "", color));
}

impl Repl {
    fn run(&mut self, reader: &mut Reader) {
        let (prompt, more) = if self.interactive {
            (PROMPT, MORE)
        } else {
            ("", "")
        };
        // A line that is not UTF-8 text is reported and dropped, with the
        // input it was part of. From a pipe nothing more is read: the lines
        // after it may belong with it (inside a handler it opened, say),
        // and none of them may act on its own.
        let color = self.color;
        let bad = std::cell::Cell::new(false);
        let mut not_text = |at: Option<usize>| {
            not_utf8(at, color);
            bad.set(true);
        };
        while !self.quit {
            let first = match reader.read(prompt) {
                Read::Line(l) => l,
                Read::NotUtf8(at) => {
                    not_text(at);
                    if self.stop_after_bad_line(&bad) {
                        break;
                    }
                    continue;
                }
                Read::Interrupted => continue,
                Read::End => break,
            };
            if first.trim_start().starts_with(':') {
                // A command whose argument is Writ text (`:plan {`) reads
                // on while that text asks for more, across empty lines
                // (a bare `:plan` reads its text from the next line): its
                // lines must never reach the REPL as inputs of their own.
                let Some(line) = read_rest(
                    reader,
                    first.trim().to_string(),
                    more,
                    commands::reads_on,
                    false,
                    &mut not_text,
                ) else {
                    if self.stop_after_bad_line(&bad) {
                        break;
                    }
                    continue;
                };
                reader.remember(&line);
                let whole = self.command(&line);
                reader.refresh(|| self.words());
                let planned = commands::is_plan(&line);
                if !self.interactive && (!whole || (planned && reader.closes_a_plan())) {
                    // A plan whose text could not be read whole, or whose
                    // next lines (up to an empty one) close a bracket they
                    // did not open (its text closed too early), leaves
                    // lines that may be its own: a script is not read on,
                    // so none of them acts.
                    self.failed = true;
                    err_println!(
                        "error: the rest of the input is not read: the `:plan` above could not be read whole, or the lines after it close a bracket they did not open, and they may be part of it"
                    );
                    break;
                }
                continue;
            }
            let Some(text) = read_rest(
                reader,
                first,
                more,
                writ_lang::needs_more,
                true,
                &mut not_text,
            ) else {
                if self.stop_after_bad_line(&bad) {
                    break;
                }
                continue;
            };
            let mut text = text;
            while reader.continues() {
                let Read::Line(line) = reader.read(more) else {
                    break;
                };
                text.push('\n');
                text.push_str(&line);
                match read_rest(
                    reader,
                    text,
                    more,
                    writ_lang::needs_more,
                    true,
                    &mut not_text,
                ) {
                    Some(t) => text = t,
                    None => {
                        text = String::new();
                        break;
                    }
                }
            }
            if self.stop_after_bad_line(&bad) {
                break;
            }
            if text.trim().is_empty() {
                continue;
            }
            reader.remember(&text);
            if writ_lang::continues_above(&text) {
                // The input before it has run: it cannot be continued.
                self.failed = true;
                continued_alone(&text, self.color);
                continue;
            }
            if writ_lang::is_blank(&text) {
                // Only comments: nothing to check or run.
                continue;
            }
            self.inputs += 1;
            let name = format!("<input {}>", self.inputs);
            self.eval(&name, &text);
            reader.refresh(|| self.words());
        }
    }

    /// After a line that was not UTF-8 text (when `bad` says so): the
    /// session has failed, and from a pipe it reads no further (true).
    fn stop_after_bad_line(&mut self, bad: &std::cell::Cell<bool>) -> bool {
        if !bad.replace(false) {
            return false;
        }
        self.failed = true;
        if self.interactive {
            return false;
        }
        err_println!(
            "error: the rest of the input is not read: a line above is not UTF-8 text, and the lines after it may belong with it"
        );
        true
    }

    /// The first lines an interactive session prints.
    fn banner(&self) -> String {
        let mut b = format!(
            "Writ {} — :help for commands, :quit or Ctrl-D to leave.\n",
            env!("CARGO_PKG_VERSION")
        );
        b.push_str(&self.policy_line());
        b
    }

    /// What the policy in force grants, in one line.
    fn policy_line(&self) -> String {
        match (self.session.policy(), &self.policy_path) {
            (Some(p), Some(path)) => format!(
                "Policy {}: acting for {} ({}); grants {}. :grants shows the scopes.\n",
                path.display(),
                p.principal.name,
                p.principal.role,
                list_or_nothing(&self.session.granted()),
            ),
            _ => "No policy: only Log is granted. Start with --policy FILE, or use :policy FILE, to grant more.\n"
                .to_string(),
        }
    }

    fn words(&self) -> Words {
        Words {
            names: self.session.names(),
            namespaces: self.session.namespaces(),
            effects: self.session.effect_ops(),
            types: self.session.type_names(),
        }
    }

    /// Check and run one input, and show what it did.
    fn eval(&mut self, name: &str, text: &str) {
        self.cancel.store(false, Ordering::SeqCst);
        self.running.store(true, Ordering::SeqCst);
        let cancel = self.cancel.clone();
        let color = self.color;
        // Audited operations are shown as they happen, between the Log
        // lines, with their record's number in the audit log.
        let mut events = |event: Event<'_>| match event {
            Event::Log(line) => out(&format!("{}\n", writ::render::terminal_safe(line))),
            Event::Operation(op) => {
                if let Some(id) = op.audit_id {
                    // The host has escaped what the program chose; on a
                    // terminal the line is also coloured, which a program's
                    // own (escaped) output cannot imitate.
                    let line = format!(
                        "audit #{id}: {}({}) {}: {}",
                        op.operation, op.arguments, op.decision, op.rule
                    );
                    if color {
                        out(&format!("\x1b[36m{line}\x1b[0m\n"));
                    } else {
                        out(&format!("{line}\n"));
                    }
                }
            }
        };
        let e = self.session.eval(name, text, &mut events, Some(&cancel));
        self.running.store(false, Ordering::SeqCst);
        if !self.problems(&e) {
            return;
        }
        if e.error.is_some() {
            if e.operations.is_empty() {
                err_println!("(the input defined nothing)");
            } else {
                err_println!(
                    "(the input defined nothing; the host operations it carried out stay done)"
                );
            }
            return;
        }
        for d in &e.defined {
            match d.kind {
                DefinedKind::Fn => out(&format!("{}\n", d.ty)),
                DefinedKind::Type => out(&format!("type {}\n", d.name)),
                DefinedKind::Effect => out(&format!("effect {}\n", d.name)),
                DefinedKind::Let => {}
            }
        }
        for v in &e.values {
            out(&format!("{} : {} = {}\n", v.name, v.ty, v.text));
        }
    }

    /// `:plan EXPR`: run the input as a plan (its acts decided, not
    /// carried out; nothing it defines kept) and show what it would do.
    /// Whether its text was read whole (no syntax error: one may mean
    /// that lines after it were part of it).
    pub(super) fn plan(&mut self, arg: &str) -> bool {
        if arg.is_empty() {
            self.failed = true;
            err_println!(
                "error: expected an input after `:plan`, found nothing (like `:plan Pay.pay(\"air-one.example\", 100, \"fare\")`)"
            );
            return true;
        }
        let Some(policy) = self.session.policy().cloned() else {
            self.failed = true;
            err_println!(
                "error: no policy: only Log is granted, so there is nothing to plan; start with --policy FILE or use :policy FILE"
            );
            return true;
        };
        let mut events = |event: Event<'_>| {
            if let Event::Log(line) = event {
                out(&format!("{}\n", writ::render::terminal_safe(line)));
            }
        };
        // Ctrl-C cancels a plan's run as it does an input's.
        self.cancel.store(false, Ordering::SeqCst);
        self.running.store(true, Ordering::SeqCst);
        let cancel = self.cancel.clone();
        let planned = self
            .session
            .plan("<:plan>", arg, &mut events, Some(&cancel));
        self.running.store(false, Ordering::SeqCst);
        let Some((e, plan)) = planned else {
            return true;
        };
        // Syntax errors are the E0 codes.
        let whole = !e
            .diagnostics
            .iter()
            .any(|d| d.is_error() && d.code.as_str().starts_with("E0"));
        if !self.problems(&e) {
            return whole;
        }
        for v in &e.values {
            out(&format!("{} : {} = {}\n", v.name, v.ty, v.text));
        }
        for line in plan.words(&policy) {
            out(&format!("{}\n", writ::render::terminal_safe(&line)));
        }
        out("(a plan: no act was carried out, and nothing it defines is kept)\n");
        true
    }

    /// Show an evaluated input's diagnostics and the error that ended its
    /// run, if any (marking the session failed); whether it was accepted.
    fn problems(&mut self, e: &writ_host::session::Evaluation) -> bool {
        if !e.diagnostics.is_empty() {
            err_print!(
                "{}",
                show::diagnostics(&self.session, &e.diagnostics, self.color)
            );
        }
        if !e.accepted {
            self.failed = true;
            return false;
        }
        if let Some(err) = &e.error {
            self.failed = true;
            err_print!("{}", show::run_error(&self.session, err, self.color));
        }
        true
    }

    /// The source of an input, for messages.
    fn source(&self, index: usize) -> Option<&Source> {
        self.session.sources().get(index)
    }
}

/// Whether standard output may be coloured.
fn render_color_out() -> bool {
    writ::render::want_color(
        std::io::stdout().is_terminal(),
        std::env::var("NO_COLOR").ok().as_deref(),
    )
}

fn list_or_nothing(names: &[String]) -> String {
    if names.is_empty() {
        "nothing".to_string()
    } else {
        names.join(", ")
    }
}
