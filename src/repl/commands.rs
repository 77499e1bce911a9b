//! The REPL's `:commands` (see [`super::complete::COMMANDS`]).
//!
//! Invariants: a command never changes what is granted except `:policy`,
//! which switches only to a policy that parsed and whose store opened; on
//! any error the session keeps its policy.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use writ::render;
use writ::render::words::Edge;
use writ_host::policy::Policy;
use writ_lang::types::BuiltinEffect;

use super::complete::COMMANDS;
use super::{Repl, show};
use crate::host_cli::out;

/// Read and parse a policy file, with its directory set; the rendered
/// errors if it cannot be used.
pub fn read_policy(path: &Path, color: bool) -> Result<Policy, String> {
    let shown = path.display().to_string();
    let text = match crate::read_policy_file(path) {
        Ok(t) => t,
        Err(d) => {
            return Err(format!(
                "{}{shown}: policy not read\n",
                render::human(&[d], &shown, "", color)
            ));
        }
    };
    match writ_host::policy::parse(&text) {
        Ok(mut p) => {
            p.dir = path.parent().map(Path::to_path_buf);
            Ok(p)
        }
        Err(diags) => {
            let n = diags.len();
            Err(format!(
                "{}{shown}: malformed policy: {n} error{}; nothing is granted\n",
                render::human(&diags, &shown, &text, color),
                if n == 1 { "" } else { "s" }
            ))
        }
    }
}

/// A command line's name (without its `:`) and its argument: the name
/// is its letters (or one `?`), so `:plan{` is `:plan` with `{`.
fn split(line: &str) -> (&str, &str) {
    let body = line.trim_start().trim_start_matches(':');
    let end = if body.starts_with('?') {
        1
    } else {
        body.find(|c: char| !c.is_alphanumeric() && c != '_')
            .unwrap_or(body.len())
    };
    let (name, arg) = body.split_at(end);
    (name, arg.trim())
}

/// Whether a command line being read goes on to the next line: a command
/// taking Writ text whose text asks for more, or a bare `:plan`, whose
/// text then follows.
pub(super) fn reads_on(line: &str) -> bool {
    let (name, arg) = split(line);
    (name == "plan" && arg.is_empty()) || (takes_text(line) && writ_lang::needs_more(arg))
}

/// Whether `line` is a `:plan` command.
pub(super) fn is_plan(line: &str) -> bool {
    split(line).0 == "plan"
}

/// Whether the command of `line` takes Writ text (`:type`, `:effects`,
/// `:plan`), which may go on over several lines.
pub(super) fn takes_text(line: &str) -> bool {
    matches!(split(line).0, "type" | "t" | "effects" | "e" | "plan")
}

impl Repl {
    /// Run one `:command` line (a command taking Writ text may hold
    /// several lines); whether its text, if a plan's, was read whole.
    pub(super) fn command(&mut self, line: &str) -> bool {
        let (name, arg) = split(line);
        if name == "plan" {
            return self.plan(arg);
        }
        match name {
            "help" | "h" | "?" => out(&help()),
            "quit" | "q" | "exit" => self.quit = true,
            "type" | "t" => self.type_of(arg, false),
            "effects" | "e" => self.type_of(arg, true),
            "grants" => self.grants(),
            "policy" => self.policy(arg),
            "load" | "l" => self.load(arg),
            "reset" => self.reset(),
            "limits" => self.limits(arg),
            "audit" => self.audit(arg),
            _ => {
                self.failed = true;
                let names: Vec<&str> = COMMANDS
                    .iter()
                    .map(|(c, _)| c.split(' ').next().unwrap_or(c).trim_start_matches(':'))
                    .collect();
                let guess = writ_lang::types::suggest_name(name, &names)
                    .map(|g| format!(" Did you mean `:{g}`?"))
                    .unwrap_or_default();
                err_println!(
                    "error: expected a command, found `:{name}`.{guess} `:help` lists them."
                );
            }
        }
        true
    }

    fn usage(&mut self, text: &str) {
        self.failed = true;
        err_println!("error: {text}");
    }

    /// `:type EXPR` and `:effects EXPR`.
    fn type_of(&mut self, arg: &str, manifest: bool) {
        let command = if manifest { ":effects" } else { ":type" };
        if arg.is_empty() {
            self.usage(&format!(
                "expected an expression after `{command}`, found nothing (like `{command} list.map`)"
            ));
            return;
        }
        match self.session.typing(&format!("<{command}>"), arg) {
            Err((_, diags)) => {
                self.failed = true;
                err_print!("{}", show::diagnostics(&self.session, &diags, self.color));
            }
            Ok(t) => match &t.ty {
                None => self.usage(&format!(
                    "`{command}` takes an expression, found a definition or a `let`; give the name it defines instead"
                )),
                Some(ty) if !manifest => {
                    let effects: Vec<&str> =
                        t.manifest.iter().map(|m| m.effect.as_str()).collect();
                    if effects.is_empty() {
                        out(&format!("{arg} : {ty}\n"));
                    } else {
                        out(&format!("{arg} : {ty} / {{{}}}\n", effects.join(", ")));
                    }
                }
                Some(_) => out(&self.manifest_text(arg, &t)),
            },
        }
    }

    /// What `:effects` prints: the effects evaluating the expression
    /// performs (with where), and, for a function, those calling it does.
    fn manifest_text(&self, arg: &str, t: &writ_host::session::Typing) -> String {
        let granted = self.session.granted();
        let status = |effect: &str| {
            if BuiltinEffect::Fail.is(effect) {
                "built in, needs no grant"
            } else if !writ_lang::types::HOST_CAPABILITIES.contains(&effect) {
                "the program's own effect: a handler must handle it"
            } else if granted.iter().any(|g| g == effect) {
                "granted"
            } else {
                "NOT granted: an input performing it is refused"
            }
        };
        let mut o = String::new();
        if t.manifest.is_empty() {
            let _ = writeln!(o, "evaluating {arg} performs no effects");
        }
        let index = self.session.sources().len().saturating_sub(1);
        let (text, base) = self
            .source(index)
            .map(|s| (s.text.clone(), s.base))
            .unwrap_or_default();
        let lines = writ_lang::LineIndex::new(&text);
        for m in &t.manifest {
            let _ = writeln!(o, "{}: {}", m.effect, status(&m.effect));
            if m.sites.is_empty() {
                let _ = writeln!(o, "  performed inside a function defined earlier");
            }
            for (op, span) in &m.sites {
                let kind = writ_lang::types::builtin_op_kind(&m.effect, op)
                    .map(|k| format!(" ({})", k.as_str()))
                    .unwrap_or_default();
                if span.start >= base && span.start <= base + text.len() {
                    // A one-line expression is placed by its column; one
                    // over several lines by line and column.
                    let p = lines.position(span.start - base);
                    let at = if text.contains('\n') {
                        format!("line {}, column {}", p.line, p.column)
                    } else {
                        format!("column {}", p.column)
                    };
                    let _ = writeln!(o, "  {}.{op}{kind} at {at}", m.effect);
                } else {
                    let _ = writeln!(o, "  {}.{op}{kind} in a function defined earlier", m.effect);
                }
            }
        }
        if !t.calling_performs.is_empty() {
            let _ = writeln!(o, "calling it performs:");
            for e in &t.calling_performs {
                let _ = writeln!(o, "  {e}: {}", status(e));
            }
            if t.calling_open {
                let _ = writeln!(o, "  and whatever the functions passed to it perform");
            }
        } else if t.calling_open {
            let _ = writeln!(
                o,
                "calling it performs what the functions passed to it perform"
            );
        } else if t.ty.as_deref().is_some_and(|ty| ty.starts_with("fn(")) {
            let _ = writeln!(o, "calling it performs no effects");
        }
        o
    }

    /// `:grants`.
    fn grants(&mut self) {
        match self.session.policy() {
            Some(p) => {
                out(&format!(
                    "Acting for {} ({}, {}). Granted:\n{}",
                    p.principal.name,
                    p.principal.id,
                    p.principal.role,
                    show::grants(p)
                ));
            }
            None => out("No policy: only Log is granted (every operation, not audited).\n"),
        }
    }

    /// `:policy`, `:policy FILE`, `:policy none`.
    fn policy(&mut self, arg: &str) {
        if arg.is_empty() {
            out(&self.policy_line());
            return;
        }
        if arg == "none" {
            if let Err(e) = self.session.set_policy(None) {
                self.usage(&e.message);
                return;
            }
            self.policy_path = None;
            out(&self.policy_line());
            return;
        }
        let path = PathBuf::from(arg);
        let policy = match read_policy(&path, self.color) {
            Ok(p) => p,
            Err(text) => {
                self.failed = true;
                err_print!("{text}");
                err_println!("(the policy in force is unchanged)");
                return;
            }
        };
        if let Err(e) = self.session.set_policy(Some(policy)) {
            self.failed = true;
            err_print!(
                "{}",
                render::human(
                    &[render::words::run_error_in(&e, Edge::Repl, "")],
                    arg,
                    "",
                    self.color
                )
            );
            err_println!("(the policy in force is unchanged)");
            return;
        }
        self.policy_path = Some(path);
        out(&self.policy_line());
    }

    /// `:load FILE`: the file is one input.
    fn load(&mut self, arg: &str) {
        if arg.is_empty() {
            self.usage(
                "expected a file after `:load`, found nothing (like `:load examples/hello.writ`)",
            );
            return;
        }
        // A path may be written in quotes, as a string would be.
        let arg = arg
            .strip_prefix('"')
            .and_then(|a| a.strip_suffix('"'))
            .unwrap_or(arg);
        let path = Path::new(arg);
        match crate::read_file(path) {
            Ok(text) => self.eval(arg, &text),
            Err(d) => {
                self.failed = true;
                err_print!("{}", render::human(&[d], arg, "", self.color));
            }
        }
    }

    /// `:reset`.
    fn reset(&mut self) {
        match self.session.reset() {
            Ok(()) => out("Every definition is forgotten; the policy and limits stay.\n"),
            Err(e) => self.usage(&e.message),
        }
    }

    /// `:limits` and `:limits name=value ...`.
    fn limits(&mut self, arg: &str) {
        if !arg.is_empty() {
            let settings: Vec<String> = arg
                .split([',', ' '])
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            let mut limits = self.session.limits().clone();
            for setting in &settings {
                let result = match setting.split_once('=') {
                    Some((name, value)) => limits
                        .set(name.trim(), value.trim())
                        .map_err(|e| e.to_string()),
                    None => Err(format!(
                        "expected `name=value` (like `fuel=1e6` or `time=2s`), found `{setting}`"
                    )),
                };
                if let Err(e) = result {
                    self.usage(&format!(
                        "in `:limits {setting}`: {e}; the limits are unchanged"
                    ));
                    return;
                }
            }
            *self.session.limits_mut() = limits;
        }
        let l = self.session.limits();
        out(&format!(
            "Each input runs with at most: fuel={} steps, memory={} bytes, depth={} calls, output={} bytes, time={}ms\n",
            l.fuel,
            l.memory,
            l.depth,
            l.output,
            l.time.as_millis()
        ));
    }

    /// `:audit [N]`.
    fn audit(&mut self, arg: &str) {
        let n = if arg.is_empty() {
            10
        } else {
            match arg.parse::<usize>() {
                Ok(n) if n > 0 => n,
                _ => {
                    self.usage(&format!(
                        "expected a number of records (1 or more) after `:audit`, found `{arg}`"
                    ));
                    return;
                }
            }
        };
        if self.session.policy().is_none() {
            out("No policy, so no audit log: start with --policy FILE, or use :policy FILE.\n");
            return;
        }
        match self.session.audit_tail(n) {
            Ok(records) if records.is_empty() => out("The audit log is empty.\n"),
            Ok(records) => {
                let mut o = String::new();
                let clean = writ_host::engine::clean;
                for r in records {
                    let _ = writeln!(
                        o,
                        "#{} {} {}({}) {}: {}",
                        r.seq,
                        clean(&r.principal),
                        clean(&r.operation),
                        clean(&r.arguments),
                        r.decision,
                        clean(&r.rule)
                    );
                }
                out(&o);
            }
            Err(e) => self.usage(&format!("the audit log cannot be read: {e}")),
        }
    }
}

/// The text of `:help`.
fn help() -> String {
    let mut h = String::from(
        "Type Writ: definitions (fn, type, effect, let) stay for later inputs, and a name\n\
         defined again replaces the old one from then on. An expression's value is shown\n\
         with its type. An unfinished line (open bracket, trailing operator) continues\n\
         on the next; an empty line ends it. Ctrl-C drops the input or stops a run.\n\n\
         Commands:\n",
    );
    let width = COMMANDS.iter().map(|(c, _)| c.len()).max().unwrap_or(0);
    for (c, what) in COMMANDS {
        let _ = writeln!(h, "  {c:width$}  {what}");
    }
    h
}
