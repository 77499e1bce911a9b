//! Sessions: programs entered one input at a time (the REPL's back end),
//! under a policy or under the default that grants only `Log`.
//!
//! Each input is parsed with spans after every earlier input's
//! ([`writ_lang::parse_at`]), checked against what the session defines so
//! far ([`writ_lang::types::session`]), lowered into the session's module
//! ([`writ_runtime::session`]) and run. Its definitions are kept only if
//! it is accepted *and* its run ends with a value: an input that is
//! rejected, fails or is interrupted defines nothing (what it already did
//! through the host stays done, and audited).
//!
//! Invariants: every input is checked against the grants in force when it
//! is entered, exactly as a script is, so a session can never perform
//! what its policy does not grant; the store is opened once per policy
//! and the per-run caps (`Pay.per_run`) count the whole session, which is
//! one run as far as the policy is concerned.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use writ_lang::types::session::{CheckSession, Defined, DefinedKind};
use writ_lang::types::{GrantedBy, Grants, ManifestEntry};
use writ_lang::{Diagnostic, Span};
use writ_runtime::session::CodeSession;
use writ_runtime::{Limits, LogHost, RunError, Value};

use crate::engine::{Engine, Operation, RunOptions, open_for};
use crate::policy::Policy;
use crate::policy_host::PolicyHost;

use crate::plan::{Plan, PlannedActs};
use crate::store::{self, AuditRecord, Store, StoreError};

/// The host of an input run as a plan: its acts planned (decided, not
/// carried out), everything else as the policy host does it.
struct Planner<'h, 'p> {
    host: PolicyHost<'h>,
    engine: &'p Engine,
    acts: &'p mut PlannedActs,
    limits: &'p Limits,
}

impl writ_runtime::Host for Planner<'_, '_> {
    fn perform(
        &mut self,
        effect: &str,
        op: &str,
        args: &[writ_runtime::Value],
    ) -> Result<writ_runtime::Value, writ_runtime::HostError> {
        if self.engine.operation_kind(effect, op) != Some(writ_lang::types::OpKind::Act) {
            return self.host.perform(effect, op, args);
        }
        let module = self.host.module;
        let arguments = args
            .iter()
            .map(|a| crate::drive::json_of(a, module, self.limits))
            .collect();
        let acts = &mut *self.acts;
        self.host
            .bounded(|host| crate::plan::plan_act(host, (effect, op, args), acts, arguments))
    }
}
/// The capabilities granted when no policy is given.
pub use writ_lang::types::DEFAULT_GRANTS;

/// The text of one input, and where its spans start.
#[derive(Clone, Debug)]
pub struct Source {
    /// How diagnostics name it: `<input 3>`, or a loaded file's path.
    pub name: String,
    /// The session-wide offset of its first byte.
    pub base: usize,
    /// The text.
    pub text: String,
}

/// A value an input produced, with its type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown {
    /// The name it is bound to (`-` for an expression's value).
    pub name: String,
    /// Its type, as the checker prints it.
    pub ty: String,
    /// Its display form.
    pub text: String,
}

/// What became of one input.
#[derive(Debug, Default)]
pub struct Evaluation {
    /// The index of its [`Source`].
    pub source: usize,
    /// Every diagnostic (session-wide spans; see [`Session::locate`]).
    pub diagnostics: Vec<Diagnostic>,
    /// Whether it was checked and accepted.
    pub accepted: bool,
    /// The functions, types and effects it defined (once it ran).
    pub defined: Vec<Defined>,
    /// The values it bound or produced (once it ran): its `let`s, then
    /// its final expression's value unless that is `()`.
    pub values: Vec<Shown>,
    /// The error that ended its run, if one did.
    pub error: Option<RunError>,
    /// The lines it logged.
    pub output: Vec<String>,
    /// The host operations it asked for (under a policy), with decisions
    /// and the numbers of their audit records.
    pub operations: Vec<Operation>,
}

/// What an input does while it runs, as it happens.
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    /// A line written with `Log.info`.
    Log(&'a str),
    /// A host operation, once decided (and audited, if its grant audits).
    Operation(&'a Operation),
}

/// An expression's type and effects, for `:type` and `:effects`.
#[derive(Clone, Debug)]
pub struct Typing {
    /// Its type (`None` when the input is not an expression).
    pub ty: Option<String>,
    /// When it is a function: the effects calling it performs.
    pub calling_performs: Vec<String>,
    /// When it is a function: whether calling it also performs what the
    /// functions passed to it perform.
    pub calling_open: bool,
    /// Its manifest: each effect with the places that perform it.
    pub manifest: Vec<ManifestEntry>,
}

/// The policy in force, with what running under it keeps open.
struct UnderPolicy {
    policy: Policy,
    store: Store,
    recorded: Option<HashMap<String, String>>,
}

/// A REPL session: definitions so far, their values, and the grants.
///
/// ```
/// use writ_host::engine::{Engine, RunOptions};
/// use writ_host::session::{Event, Session};
///
/// let mut s = Session::new(Engine::new(), None, RunOptions::default()).expect("a session");
/// let mut quiet = |_: Event<'_>| {};
/// s.eval("<input 1>", "fn double(x) { x * 2 }", &mut quiet, None);
/// let e = s.eval("<input 2>", "list.map([1, 2], double)", &mut quiet, None);
/// let v = &e.values[0];
/// assert_eq!((v.ty.as_str(), v.text.as_str()), ("List[Int]", "[2, 4]"));
/// // Without a policy only `Log` is granted: this input is refused.
/// let e = s.eval("<input 3>", "Pay.pay(\"x.example\", 1, \"m\")", &mut quiet, None);
/// assert!(!e.accepted && e.diagnostics[0].code.as_str() == "E3002");
/// ```
pub struct Session {
    engine: Engine,
    interfaces: Vec<String>,
    under: Option<UnderPolicy>,
    options: RunOptions,
    check: CheckSession,
    code: CodeSession,
    sources: Vec<Source>,
    next_base: usize,
    limits: Limits,
    /// What the session has paid: it is one run, whatever policies it
    /// switches between, so neither [`Session::set_policy`] nor
    /// [`Session::reset`] starts it again.
    paid: i64,
    /// Whether the last source belongs to an input that was not kept.
    scratch: bool,
}

impl Session {
    /// A session under `policy` (`None`: only `Log` is granted). The
    /// policy's store is opened now; if it cannot be, there is no session.
    pub fn new(
        engine: Engine,
        policy: Option<Policy>,
        options: RunOptions,
    ) -> Result<Session, RunError> {
        let interfaces: Vec<String> = engine
            .capabilities
            .iter()
            .map(|c| c.interface.clone())
            .collect();
        let check = CheckSession::new(&interfaces);
        let code = CodeSession::new(&interfaces)?;
        let mut s = Session {
            engine,
            interfaces,
            under: None,
            options,
            check,
            code,
            sources: Vec::new(),
            next_base: 0,
            limits: Limits::default(),
            paid: 0,
            scratch: false,
        };
        s.set_policy(policy)?;
        Ok(s)
    }

    /// Switch to `policy` (`None`: only `Log`). Definitions stay; later
    /// inputs are checked against the new grants. On an error the session
    /// keeps its policy.
    pub fn set_policy(&mut self, policy: Option<Policy>) -> Result<(), RunError> {
        self.under = match policy {
            Some(policy) => {
                let (store, recorded) = open_for(&policy, &self.options, &self.engine.files)?;
                self.limits = policy.limits.clone();
                Some(UnderPolicy {
                    policy,
                    store,
                    recorded,
                })
            }
            None => {
                self.limits = Limits::default();
                None
            }
        };
        Ok(())
    }

    /// Forget every definition (the policy and limits stay).
    pub fn reset(&mut self) -> Result<(), RunError> {
        let code = CodeSession::new(&self.interfaces)?;
        self.check = CheckSession::new(&self.interfaces);
        self.code = code;
        Ok(())
    }

    /// The policy in force, if any.
    pub fn policy(&self) -> Option<&Policy> {
        self.under.as_ref().map(|u| &u.policy)
    }

    /// The granted capability names.
    pub fn granted(&self) -> Vec<String> {
        match &self.under {
            Some(u) => u.policy.granted(),
            None => DEFAULT_GRANTS.iter().map(|g| g.to_string()).collect(),
        }
    }

    /// The limits each input runs under.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Change the limits each input runs under.
    pub fn limits_mut(&mut self) -> &mut Limits {
        &mut self.limits
    }

    /// The text of every input kept so far, and of the last input entered
    /// (kept or not, until the next one).
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// The input a session-wide span is in, and the span within it.
    pub fn locate(&self, span: Span) -> Option<(&Source, Span)> {
        let s = self
            .sources
            .iter()
            .rev()
            .find(|s| s.base <= span.start && span.start <= s.base + s.text.len())?;
        let end = span.end.saturating_sub(s.base).min(s.text.len());
        let start = span.start - s.base;
        Some((s, Span::new(start, end.max(start))))
    }

    /// The names of the session's functions and values.
    pub fn names(&self) -> Vec<String> {
        self.check.names()
    }

    /// The standard library's namespaces, with their members.
    pub fn namespaces(&self) -> Vec<(String, Vec<String>)> {
        self.check.namespaces()
    }

    /// The type, constructor and effect names in scope.
    pub fn type_names(&self) -> Vec<String> {
        self.check.type_names()
    }

    /// The effects in scope, each with its operations' names.
    pub fn effect_ops(&self) -> Vec<(String, Vec<String>)> {
        self.check.effect_ops()
    }

    /// The last `n` records of the audit log (none without a policy).
    pub fn audit_tail(&self, n: usize) -> Result<Vec<AuditRecord>, StoreError> {
        let Some(u) = &self.under else {
            return Ok(Vec::new());
        };
        Ok(u.store.last_records(n)?.0)
    }

    /// Register an input's text. The text of the input before, if it
    /// was not kept (rejected, failed, or only asked about), is dropped
    /// first and its place reused: nothing of it can be referred to again,
    /// and the session's offsets grow only with what it keeps.
    fn add_source(&mut self, name: &str, text: &str) -> usize {
        if self.scratch
            && let Some(last) = self.sources.pop()
        {
            self.next_base = last.base;
        }
        // Until the input is kept, its text is only there to be shown.
        self.scratch = true;
        let base = self.next_base;
        // One byte between inputs, so that an end-of-input span of one is
        // not the start of the next.
        self.next_base = base + text.len() + 1;
        self.sources.push(Source {
            name: name.to_string(),
            base,
            text: text.to_string(),
        });
        self.sources.len() - 1
    }

    fn grants<'a>(&self, names: &'a [String]) -> Grants<'a> {
        Grants {
            names,
            by: if self.under.is_some() {
                GrantedBy::Policy
            } else {
                GrantedBy::Default
            },
        }
    }

    /// The type and manifest of an expression (or input), without running
    /// it; the diagnostics if it is rejected.
    pub fn typing(&mut self, name: &str, text: &str) -> Result<Typing, (usize, Vec<Diagnostic>)> {
        let source = self.add_source(name, text);
        let base = self.sources.get(source).map_or(0, |s| s.base);
        let parsed = writ_lang::parse_at(text, base);
        if parsed.has_errors() {
            return Err((source, parsed.diagnostics));
        }
        // Checked with no grants in force: `:type` shows what an expression
        // needs, whether or not the policy grants it.
        let checked = self.check.check(&parsed.program, None);
        // An effect of the program's own left unhandled is a rule of
        // running (`E3003`), not of typing: `:type Ask.ask("x")` shows
        // `Int / {Ask}`, as `:type Http.get(url)` shows `Str / {Http}`.
        let refused = checked
            .typed
            .diagnostics
            .iter()
            .any(|d| d.is_error() && d.code != writ_lang::Code::UnhandledEffect);
        if refused || (checked.value_type.is_none() && !checked.accepted()) {
            return Err((source, checked.typed.diagnostics));
        }
        Ok(Typing {
            ty: checked.value_type,
            calling_performs: checked.calling_performs,
            calling_open: checked.calling_open,
            manifest: checked.typed.manifest,
        })
    }

    /// Check and run one input; `events` is told of its `Log` lines and
    /// host operations as they happen. `cancel`, when set from another
    /// thread, stops the run (E5006) and the input defines nothing.
    pub fn eval(
        &mut self,
        name: &str,
        text: &str,
        events: &mut dyn FnMut(Event<'_>),
        cancel: Option<&Arc<AtomicBool>>,
    ) -> Evaluation {
        self.eval_inner(name, text, events, cancel, None)
    }

    /// Run one input as a plan (the REPL's `:plan`): its reads performed
    /// as the policy allows (audited `for a plan`), its acts decided by
    /// the policy but not carried out (answered with simulated results),
    /// and nothing it defines kept. `None` without a policy (only `Log` is
    /// granted: there is nothing to plan).
    pub fn plan(
        &mut self,
        name: &str,
        text: &str,
        events: &mut dyn FnMut(Event<'_>),
        cancel: Option<&Arc<AtomicBool>>,
    ) -> Option<(Evaluation, Plan)> {
        let under = self.under.as_ref()?;
        let policy = under.policy.clone();
        let mut acts = PlannedActs::default();
        let e = self.eval_inner(name, text, events, cancel, Some(&mut acts));
        let plan = Plan {
            id: crate::plan::fresh_id(),
            program: store::sha256_hex(text.as_bytes()),
            policy: crate::plan::policy_digest(&policy),
            principal: policy.principal.id.clone(),
            inputs: serde_json::Map::new(),
            reads: Vec::new(),
            log: e.output.clone(),
            acts: acts.acts,
            result: match &e.error {
                Some(err) => Err(format!("{}: {}", err.code.as_str(), err.message)),
                None => Ok(e.values.last().map(|v| v.text.clone()).unwrap_or_default()),
            },
        };
        Some((e, plan))
    }

    fn eval_inner(
        &mut self,
        name: &str,
        text: &str,
        events: &mut dyn FnMut(Event<'_>),
        cancel: Option<&Arc<AtomicBool>>,
        mut planning: Option<&mut PlannedActs>,
    ) -> Evaluation {
        let events = std::cell::RefCell::new(events);
        let source = self.add_source(name, text);
        let base = self.sources.get(source).map_or(0, |s| s.base);
        let mut out = Evaluation {
            source,
            ..Evaluation::default()
        };
        let parsed = writ_lang::parse_at(text, base);
        if parsed.has_errors() {
            out.diagnostics = parsed.diagnostics;
            return out;
        }
        let granted = self.granted();
        let grants = self.grants(&granted);
        let checked = self.check.check(&parsed.program, Some(grants));
        let mut diagnostics = parsed.diagnostics;
        diagnostics.extend(checked.typed.diagnostics.iter().cloned());
        writ_lang::sort_and_dedup(&mut diagnostics);
        out.diagnostics = diagnostics;
        if !checked.accepted() {
            return out;
        }
        out.accepted = true;
        let prepared = self.code.prepare(&parsed.program, &checked.typed);
        let hash = store::sha256_hex(text.as_bytes());
        let limits = self.limits.clone();
        let result = match &mut self.under {
            Some(u) => {
                let mut log = |line: &str| (events.borrow_mut())(Event::Log(line));
                let mut watch = |op: &Operation| (events.borrow_mut())(Event::Operation(op));
                let mut host = PolicyHost {
                    policy: &u.policy,
                    module: prepared.module(),
                    program: &hash,
                    store: &mut u.store,
                    log: &mut log,
                    watch: Some(&mut watch),
                    confirm: &self.engine.confirm,
                    clock: &self.engine.clock,
                    capabilities: &self.engine.capabilities,
                    output: Vec::new(),
                    operations: Vec::new(),
                    audit_ids: Vec::new(),
                    paid_this_run: self.paid,
                    planned_cents: 0,
                    recorded: u.recorded.as_ref(),
                    used_recorded: false,
                    purpose: None,
                };
                let result = match planning.as_deref_mut() {
                    Some(acts) => {
                        host.purpose = Some("for a plan");
                        let mut planner = Planner {
                            host,
                            engine: &self.engine,
                            acts,
                            limits: &limits,
                        };
                        let result = self.code.run(&prepared, &limits, &mut planner, cancel);
                        host = planner.host;
                        result
                    }
                    None => self.code.run(&prepared, &limits, &mut host, cancel),
                };
                self.paid = host.paid_this_run;
                out.output = host.output;
                out.operations = host.operations;
                result
            }
            None => {
                let mut lines = Vec::new();
                let mut host = LogHost::new(|line: &str| {
                    (events.borrow_mut())(Event::Log(line));
                    lines.push(line.to_string());
                });
                let result = self.code.run(&prepared, &limits, &mut host, cancel);
                out.output = lines;
                result
            }
        };
        let value = match result {
            Ok(v) => v,
            Err(e) => {
                out.error = Some(e);
                return out;
            }
        };
        let module = prepared.module();
        let show = |v: &Value| {
            writ_runtime::display::to_string(
                v,
                module,
                writ_runtime::display::StrForm::Quoted,
                limits.output,
            )
        };
        for (i, d) in checked.defined.iter().enumerate() {
            // A name bound twice in one input is shown once, as it is now.
            let later = checked
                .defined
                .iter()
                .skip(i + 1)
                .any(|e| e.kind == DefinedKind::Let && e.name == d.name);
            if d.kind == DefinedKind::Let
                && !later
                && let Some(v) = self.code.value(&prepared, &d.name)
            {
                out.values.push(Shown {
                    name: d.name.clone(),
                    ty: d.ty.clone(),
                    text: show(v),
                });
            }
        }
        if let Some(ty) = &checked.value_type
            && !value.is_unit()
        {
            out.values.push(Shown {
                name: "-".to_string(),
                ty: ty.clone(),
                text: show(&value),
            });
        }
        out.defined = checked.defined.clone();
        if planning.is_some() {
            // A plan keeps nothing the input defines.
            return out;
        }
        if let Some(next) = checked.commit() {
            self.check = next;
        }
        self.code.commit(prepared);
        self.scratch = false;
        out
    }
}
