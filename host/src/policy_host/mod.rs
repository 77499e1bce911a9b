//! The policy host: decides each operation a program hands to the host
//! against the grant's scope, carries it out, and keeps the audit log.
//!
//! Each operation goes in two steps. [`PolicyHost::decide`] makes the
//! policy's checks that need nothing carried out — the argument gates,
//! the grant, the scope (allow-list, payee and caps, whose records), the
//! store's reads they need — and gives a [`Ready`] operation (what the
//! policy allowed so far, and why) or the denial. [`PolicyHost::complete`]
//! carries a ready operation out: its write-ahead audit record first, then
//! the act (the request and its redirect hops, the confirmation and the
//! ledger's write, the record's read, the embedder's handler). Between the
//! two, a run driven by its host may be handed out ([`crate::drive`]); the
//! host then lets the engine complete the operation, or answers it itself
//! ([`PolicyHost::answered`]), fails it ([`PolicyHost::failed`]) or refuses
//! it ([`PolicyHost::refused`]) — each audited as the grant says. A
//! straight run ([`Host::perform`]) is the two steps back to back.
//!
//! By capability: [`web`] (`Http`), [`pay`] (`Pay`), [`records`]
//! (`Records`); the others are here.
//!
//! Invariants: an operation is checked at the moment it is performed
//! (and what may have changed since [`PolicyHost::decide`], the day's
//! payments and the records, is read again when it is completed);
//! its audit record (when the grant audits, and always for a denial) is
//! committed before its result returns, or it is denied; every argument
//! passes its size gate ([`crate::arguments`]) before anything is done with
//! it, and one over its bound is a denial; what the program chose is
//! escaped before it is stored or shown ([`clean`]); each redirect hop of
//! a request is checked and audited before it is requested; a denial
//! carries out nothing and becomes `Fail` or the end of the run, as the
//! grant's `on_deny` says.

mod pay;
mod records;
mod replay;
mod web;

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;
use writ_runtime::clock::Instant;

use writ_lang::Code;
use writ_runtime::{Host, HostError, Module, RunError, Value};

use crate::arguments::{self, Oversized};
use crate::builtin::BuiltinOp;
use crate::capability::{Args, Capability, Handler, ResultType};
use crate::engine::{Confirmer, Operation, unavailable};
use crate::policy::{Decision, Grant, OnDeny, Policy};
use crate::store::{Entry, Store};

/// Carries out host operations for one run, under one policy.
pub(crate) struct PolicyHost<'a> {
    pub(crate) policy: &'a Policy,
    pub(crate) module: &'a Module,
    pub(crate) program: &'a str,
    pub(crate) store: &'a mut Store,
    pub(crate) log: &'a mut dyn FnMut(&str),
    /// Told of each operation as it is decided (after its audit record).
    pub(crate) watch: Option<&'a mut dyn FnMut(&Operation)>,
    pub(crate) confirm: &'a Confirmer,
    pub(crate) clock: &'a Arc<dyn Fn() -> i64 + Send + Sync>,
    pub(crate) capabilities: &'a [Capability],
    pub(crate) output: Vec<String>,
    pub(crate) operations: Vec<Operation>,
    pub(crate) audit_ids: Vec<i64>,
    pub(crate) paid_this_run: i64,
    /// While a plan's act is decided, the cents of the payments the plan
    /// allowed before it, counted as paid this run and today (0
    /// otherwise; see [`crate::plan::plan_act`]).
    pub(crate) planned_cents: i64,
    pub(crate) recorded: Option<&'a HashMap<String, String>>,
    pub(crate) used_recorded: bool,
    /// Why the run runs, when not for itself: appended to the rule of
    /// every record it writes to the audit log, allowed or denied, and of
    /// every operation it allows in the outcome (`for a plan`, `as
    /// approved in plan …`).
    pub(crate) purpose: Option<&'a str>,
}

/// Text from a program made safe to store and show, on one line (see
/// [`writ_runtime::display::safe_text`]): an audit line cannot be made to
/// look like another, on a terminal or in the log.
pub fn clean(s: &str) -> String {
    writ_runtime::display::safe_text(s, writ_runtime::display::LineBreaks::Escape)
}

pub(crate) fn quoted(s: &str) -> String {
    format!("{s:?}")
}

impl PolicyHost<'_> {
    /// Write an audit record and return its sequence number; the record
    /// is committed before this returns, or the run stops.
    fn audit(
        &mut self,
        operation: &str,
        arguments: &str,
        decision: Decision,
        rule: &str,
    ) -> Result<i64, HostError> {
        let rule = self.purposed(rule);
        let (arguments, rule) = (clean(arguments), clean(&rule));
        let entry = Entry {
            principal: &self.policy.principal.id,
            program: self.program,
            operation,
            arguments: &arguments,
            decision,
            rule: &rule,
        };
        let seq = self.store.audit(&entry).map_err(|e| {
            HostError::Stop(unavailable(format!(
                "the audit record of {operation} could not be written ({e}); the operation was denied"
            )))
        })?;
        self.audit_ids.push(seq);
        Ok(seq)
    }

    /// `rule`, with the run's purpose after it when it has one.
    fn purposed<'r>(&self, rule: &'r str) -> Cow<'r, str> {
        match self.purpose {
            Some(p) => Cow::Owned(format!("{rule}; {p}")),
            None => Cow::Borrowed(rule),
        }
    }

    /// Note an operation once it is decided (and audited, if it was), and
    /// tell the watcher.
    fn note(
        &mut self,
        operation: &str,
        arguments: &str,
        decision: Decision,
        rule: &str,
        audit_id: Option<i64>,
    ) {
        let op = Operation {
            operation: operation.to_string(),
            arguments: clean(arguments),
            decision,
            rule: clean(rule),
            audit_id,
        };
        if let Some(watch) = self.watch.as_mut() {
            watch(&op);
        }
        self.operations.push(op);
    }

    /// Allow an operation: note it, and audit it first if the grant says so.
    fn allow(
        &mut self,
        grant: &Grant,
        operation: &str,
        arguments: &str,
        rule: &str,
    ) -> Result<(), HostError> {
        let audit_id = if grant.audit {
            Some(self.audit(
                operation,
                recorded(grant, arguments),
                Decision::Allowed,
                rule,
            )?)
        } else {
            None
        };
        let rule = self.purposed(rule);
        self.note(operation, arguments, Decision::Allowed, &rule, audit_id);
        Ok(())
    }

    /// Deny an operation: note it, audit it, and fail or stop.
    fn deny(&mut self, grant: &Grant, operation: &str, arguments: &str, rule: &str) -> HostError {
        let audited = self.audit(
            operation,
            recorded(grant, arguments),
            Decision::Denied,
            rule,
        );
        match audited {
            Ok(seq) => self.denied(grant, operation, arguments, rule, Some(seq)),
            Err(e) => {
                self.note(operation, arguments, Decision::Denied, rule, None);
                e
            }
        }
    }

    /// Note an operation denied (and audited as `audit_id`, if it was),
    /// and fail or stop.
    fn denied(
        &mut self,
        grant: &Grant,
        operation: &str,
        arguments: &str,
        rule: &str,
        audit_id: Option<i64>,
    ) -> HostError {
        self.denied_because(
            grant,
            (operation, arguments, rule),
            audit_id,
            Stopper::Policy,
        )
    }

    /// [`PolicyHost::denied`], said as `by` says (who stopped it, and
    /// so the message's verb and the run's help).
    fn denied_because(
        &mut self,
        grant: &Grant,
        (operation, arguments, rule): (&str, &str, &str),
        audit_id: Option<i64>,
        by: Stopper,
    ) -> HostError {
        self.note(operation, arguments, Decision::Denied, rule, audit_id);
        let (verb, help) = match by {
            Stopper::Policy => ("was denied", BY_POLICY),
            Stopper::Host => ("was denied", BY_HOST),
            Stopper::Failure => ("failed after the policy allowed it", BY_FAILURE),
        };
        let message = format!("{operation}({}) {verb}: {}", clean(arguments), clean(rule));
        match grant.on_deny {
            OnDeny::Fail => HostError::Fail(message),
            OnDeny::Stop => HostError::Stop(RunError::denied(message, help)),
        }
    }

    /// An operation the policy allowed that failed once begun (a request
    /// answered with an error status, cut off, or too large): audited as
    /// not carried out, then `Fail` or the end of the run as the grant's
    /// `on_deny` says, saying that it may have had its effect.
    fn failed_once_begun(
        &mut self,
        grant: &Grant,
        operation: &str,
        arguments: &str,
        why: &str,
    ) -> HostError {
        let audited = self.audit(operation, recorded(grant, arguments), Decision::Denied, why);
        match audited {
            Ok(seq) => self.denied_because(
                grant,
                (operation, arguments, why),
                Some(seq),
                Stopper::Failure,
            ),
            Err(e) => {
                self.note(operation, arguments, Decision::Denied, why, None);
                e
            }
        }
    }

    /// Deny an operation whose argument is over its bound.
    fn deny_oversized(&mut self, grant: &Grant, operation: &str, o: Oversized) -> HostError {
        self.deny(grant, operation, &o.shown, &o.rule)
    }

    /// Text argument `i` (`what`, at most `max` bytes) of `operation`, or
    /// the operation's denial.
    fn gate<'v>(
        &mut self,
        grant: &Grant,
        operation: &str,
        args: &'v [Value],
        (i, what, max): (usize, &str, usize),
    ) -> Result<&'v str, HostError> {
        arguments::text(args, i, what, max).map_err(|o| self.deny_oversized(grant, operation, o))
    }
}

/// An operation the policy has allowed so far, ready to be carried out.
pub(crate) struct Ready {
    /// The capability, whose grant allowed it.
    effect: Cow<'static, str>,
    /// `Effect.op`.
    pub(crate) operation: Cow<'static, str>,
    /// Its arguments as the audit log shows them.
    pub(crate) shown: String,
    /// The rule that allowed it so far.
    pub(crate) rule: Cow<'static, str>,
    act: Act,
}

impl Ready {
    /// The cents it pays: a payment's amount, 0 for any other act.
    pub(crate) fn cents(&self) -> i64 {
        match &self.act {
            Act::Pay(p) => p.cents(),
            _ => 0,
        }
    }
}

/// What carrying a ready operation out does.
enum Act {
    /// Write the line.
    Log(String),
    /// Read the clock.
    Clock,
    /// Ask the person the question.
    Confirm(String),
    /// Write the note (as recorded) to the audit log.
    Note(String),
    /// Request the URL (see [`web`]).
    Http(web::Request),
    /// Pay (see [`pay`]).
    Pay(pay::Payment),
    /// Read one record (see [`records`]).
    Read(String),
    /// List the ids the scope allows.
    List(Vec<String>),
    /// Call the embedder's handler; the operation's declared result type
    /// (as data, or why it is not).
    Custom(Handler, Option<ResultType>),
}

impl Ready {
    /// Whether the host may answer the operation with a value of its own
    /// ([`PolicyHost::answered`]): not when the store holds its truth
    /// (the ledger, the records, the audit log) or it is the run's own
    /// output (`Log`).
    pub(crate) fn answerable(&self) -> bool {
        matches!(
            self.act,
            Act::Clock | Act::Confirm(_) | Act::Http(_) | Act::Custom(..)
        )
    }
}

impl<'p> PolicyHost<'p> {
    /// Make the policy's checks of `effect.op(args)`: the operation ready
    /// to be carried out, or its denial (noted, audited, and `Fail` or
    /// the end of the run as the grant's `on_deny` says).
    pub(crate) fn decide(
        &mut self,
        effect: &str,
        op: &str,
        args: &[Value],
    ) -> Result<Ready, HostError> {
        let policy: &'p Policy = self.policy;
        let Some(grant) = policy.grants.get(effect) else {
            // The checker rejects such programs; refuse all the same, and
            // keep a record of the attempt.
            let shown = arguments::capability(args, self.module).unwrap_or_else(|o| o.shown);
            let operation = format!("{effect}.{op}");
            let rule = "not granted by the policy";
            let audited = self.audit(&operation, &shown, Decision::Denied, rule);
            self.note(
                &operation,
                &shown,
                Decision::Denied,
                rule,
                audited.as_ref().ok().copied(),
            );
            audited?;
            return Err(HostError::Stop(
                RunError::new(
                    Code::OperationDenied,
                    format!("{effect}.{op} is not granted by the policy"),
                )
                .with_help("nothing was carried out"),
            ));
        };
        // The built-in capabilities' names are static: deciding one of
        // their operations copies no name.
        let ready =
            |effect: &'static str, operation: &'static str, shown: String, act: Act| Ready {
                effect: Cow::Borrowed(effect),
                operation: Cow::Borrowed(operation),
                shown,
                rule: Cow::Borrowed("granted"),
                act,
            };
        match BuiltinOp::of(effect, op) {
            Some(BuiltinOp::LogInfo) => {
                let line = (0, "the line", arguments::MAX_LOG_LINE);
                let line = self.gate(grant, "Log.info", args, line)?;
                let shown = arguments::recorded(line);
                Ok(ready("Log", "Log.info", shown, Act::Log(line.to_string())))
            }
            Some(BuiltinOp::ClockNow) => Ok(ready("Clock", "Clock.now", String::new(), Act::Clock)),
            Some(BuiltinOp::ConfirmAsk) => {
                let q = (0, "the question", arguments::MAX_QUESTION);
                let q = self.gate(grant, "Confirm.ask", args, q)?;
                Ok(ready(
                    "Confirm",
                    "Confirm.ask",
                    quoted(q),
                    Act::Confirm(q.to_string()),
                ))
            }
            Some(BuiltinOp::AuditNote) => {
                let m = (0, "the note", arguments::MAX_NOTE);
                let m = arguments::recorded(self.gate(grant, "Audit.note", args, m)?);
                Ok(ready("Audit", "Audit.note", m.clone(), Act::Note(m)))
            }
            Some(o @ (BuiltinOp::HttpGet | BuiltinOp::HttpPost)) => {
                let operation = match o {
                    BuiltinOp::HttpPost => "Http.post",
                    _ => "Http.get",
                };
                let (shown, rule, request) = self.decide_http(grant, operation, o, args)?;
                Ok(Ready {
                    rule: Cow::Owned(rule),
                    ..ready("Http", operation, shown, Act::Http(request))
                })
            }
            Some(BuiltinOp::Pay) => {
                let (shown, rule, payment) = self.decide_pay(grant, args)?;
                Ok(Ready {
                    rule: Cow::Owned(rule),
                    ..ready("Pay", "Pay.pay", shown, Act::Pay(payment))
                })
            }
            Some(o @ (BuiltinOp::RecordsRead | BuiltinOp::RecordsList)) => {
                let operation = match o {
                    BuiltinOp::RecordsList => "Records.list",
                    _ => "Records.read",
                };
                let (shown, rule, act) = self.decide_records(grant, operation, o, args)?;
                Ok(Ready {
                    rule: Cow::Owned(rule),
                    ..ready("Records", operation, shown, act)
                })
            }
            None => {
                let Some((handler, result)) = self
                    .capabilities
                    .iter()
                    .find(|c| c.name == effect)
                    .map(|c| (c.handler.clone(), c.result_of(op)))
                else {
                    return Err(HostError::Stop(RunError::new(
                        Code::OperationDenied,
                        format!("{effect}.{op} is not an operation this host carries out"),
                    )));
                };
                let operation = format!("{effect}.{op}");
                // The arguments pass the same gate as the built-in
                // capabilities' (each bounded in size and depth) before
                // they are shown or the handler sees them.
                let shown = match arguments::capability(args, self.module) {
                    Ok(s) => s,
                    Err(o) => return Err(self.deny_oversized(grant, &operation, o)),
                };
                Ok(Ready {
                    effect: Cow::Owned(effect.to_string()),
                    operation: Cow::Owned(operation),
                    shown,
                    rule: Cow::Borrowed("granted"),
                    act: Act::Custom(handler, result),
                })
            }
        }
    }

    /// Carry out an operation the policy allowed: its audit record first
    /// (write-ahead), then the act. `args` are the operation's arguments,
    /// as [`PolicyHost::decide`] saw them.
    pub(crate) fn complete(&mut self, ready: Ready, args: &[Value]) -> Result<Value, HostError> {
        let grant = self.grant_of(&ready)?;
        let Ready {
            effect: _,
            operation,
            shown,
            rule,
            act,
        } = ready;
        match act {
            Act::Log(line) => {
                self.allow(grant, &operation, &shown, &rule)?;
                (self.log)(&line);
                self.output.push(line);
                Ok(Value::unit())
            }
            Act::Clock => {
                self.allow(grant, &operation, &shown, &rule)?;
                Ok(Value::int((self.clock)()))
            }
            Act::Confirm(q) => {
                self.allow(grant, &operation, &shown, &rule)?;
                Ok(Value::bool((self.confirm)(&q)))
            }
            Act::Note(m) => {
                // A note is the audit log's content: always written (a
                // long one as its start, length and hash).
                let seq = self.audit(&operation, recorded(grant, &m), Decision::Allowed, &rule)?;
                let rule = self.purposed(&rule);
                self.note(&operation, &m, Decision::Allowed, &rule, Some(seq));
                Ok(Value::unit())
            }
            Act::Http(request) => self.complete_http(grant, &operation, &shown, &rule, request),
            Act::Pay(payment) => self.complete_pay(grant, &shown, payment),
            Act::Read(id) => self.complete_read(grant, &operation, &shown, &rule, id),
            Act::List(ids) => {
                self.allow(grant, &operation, &shown, &rule)?;
                Ok(Value::list(ids.into_iter().map(Value::str)))
            }
            Act::Custom(handler, result) => {
                // Write-ahead, as for `Http`: the operation is recorded
                // before the handler acts, so nothing happens that the log
                // does not show; a refusal by the handler is recorded
                // after it.
                self.allow(grant, &operation, &shown, &rule)?;
                let op = operation.split_once('.').map_or("", |(_, o)| o);
                let args = Args::in_program(
                    args,
                    self.module,
                    &self.policy.limits,
                    &operation,
                    result.as_deref(),
                );
                match handler(op, &args) {
                    Ok(v) => Ok(v),
                    // Allowed, and recorded so before the handler acted:
                    // it could not carry the operation out.
                    Err(why) if why.fail => Err(HostError::Fail(why.reason)),
                    Err(why) => Err(self.deny(grant, &operation, &shown, &why.reason)),
                }
            }
        }
    }

    /// The host answered a ready operation with `value` itself (the
    /// caller checked that it may, [`Ready::answerable`], or replays a
    /// recorded read, and that the value is of the operation's result
    /// type): recorded as allowed and answered `how` ("answered by the
    /// host"), before the value returns.
    pub(crate) fn answered(
        &mut self,
        ready: Ready,
        value: Value,
        how: &str,
    ) -> Result<Value, HostError> {
        let grant = self.grant_of(&ready)?;
        let rule = format!("{}; {how}", ready.rule);
        self.allow(grant, &ready.operation, &ready.shown, &rule)?;
        Ok(value)
    }

    /// The simulated result of an act a plan does not perform (its `n`th
    /// allowed act): a `Receipt` whose id is `planned-n` for a payment,
    /// `(planned: not sent)` for a post, the plain default of its result
    /// type (`0`, `""`, `false`, empty, `None`) for an embedder's act.
    pub(crate) fn simulated(&self, ready: &Ready, n: usize) -> Result<Value, HostError> {
        match &ready.act {
            Act::Pay(p) => {
                let currency = match self.grant_of(ready)?.scope {
                    crate::policy::Scope::Pay(ref s) => s.currency.clone(),
                    _ => String::new(),
                };
                Value::record(
                    self.module,
                    vec![
                        ("id", Value::str(format!("planned-{n}"))),
                        ("payee", Value::str(p.payee())),
                        ("cents", Value::int(p.cents())),
                        ("currency", Value::str(currency)),
                    ],
                )
                .ok_or_else(|| {
                    HostError::Stop(RunError::internal("the Receipt type is not in the program"))
                })
            }
            Act::Http(_) => Ok(Value::str("(planned: not sent)")),
            Act::Custom(_, result) => {
                let ty = match result.as_deref() {
                    Some(Ok(t)) => t,
                    _ => {
                        return Err(HostError::Stop(crate::plan::does_not_apply(format!(
                            "expected an act whose result a plan can simulate (data), found {}, whose result is not",
                            ready.operation
                        ))));
                    }
                };
                let json = default_of(ty);
                writ_runtime::inputs::value_from_json(
                    self.module,
                    &ready.operation,
                    &json,
                    ty,
                    &self.policy.limits,
                )
                .map_err(HostError::Stop)
            }
            _ => Err(HostError::Stop(RunError::internal(
                "a plan simulating an operation that is not an act",
            ))),
        }
    }

    /// An act the approved plan does not hold next: noted, audited as
    /// denied, and the run stopped (`E4013`).
    pub(crate) fn deviated(
        &mut self,
        ready: &Ready,
        expected: Option<&crate::plan::PlannedAct>,
    ) -> HostError {
        let error = crate::plan::deviation(&ready.operation, &ready.shown, expected);
        let rule = error.message.clone();
        let audited = self.audit(&ready.operation, &ready.shown, Decision::Denied, &rule);
        self.note(
            &ready.operation,
            &ready.shown,
            Decision::Denied,
            &rule,
            audited.as_ref().ok().copied(),
        );
        match audited {
            Ok(_) => HostError::Stop(error),
            Err(e) => e,
        }
    }

    /// The grant that allowed a ready operation.
    fn grant_of(&self, ready: &Ready) -> Result<&'p Grant, HostError> {
        let policy: &'p Policy = self.policy;
        policy.grants.get(ready.effect.as_ref()).ok_or_else(|| {
            HostError::Stop(RunError::internal(
                "an operation ready under a grant the policy does not have",
            ))
        })
    }

    /// The host failed a ready operation with `message`: recorded (when
    /// the grant audits) as allowed and failed at the host, then
    /// `Fail.fail(message)` where the operation was.
    pub(crate) fn failed(&mut self, ready: Ready, message: &str) -> HostError {
        let grant = match self.grant_of(&ready) {
            Ok(g) => g,
            Err(e) => return e,
        };
        let rule = format!("{}; failed at the host: {message}", ready.rule);
        match self.allow(grant, &ready.operation, &ready.shown, &rule) {
            Ok(()) => HostError::Fail(message.to_string()),
            Err(e) => e,
        }
    }

    /// The host refused a ready operation for `reason`: a denial, audited,
    /// then `Fail` or the end of the run as the grant's `on_deny` says.
    pub(crate) fn refused(&mut self, ready: Ready, reason: &str) -> HostError {
        let grant = match self.grant_of(&ready) {
            Ok(g) => g,
            Err(e) => return e,
        };
        let rule = format!("refused by the host: {reason}");
        let audited = self.audit(
            &ready.operation,
            recorded(grant, &ready.shown),
            Decision::Denied,
            &rule,
        );
        match audited {
            Ok(seq) => self.denied_because(
                grant,
                (&ready.operation, &ready.shown, &rule),
                Some(seq),
                Stopper::Host,
            ),
            Err(e) => {
                self.note(
                    &ready.operation,
                    &ready.shown,
                    Decision::Denied,
                    &rule,
                    None,
                );
                e
            }
        }
    }
}

/// What stopped an operation the host does not carry out.
#[derive(Clone, Copy)]
enum Stopper {
    /// The policy denied it.
    Policy,
    /// The host refused it (`--refuse`, an embedder's answer).
    Host,
    /// It was allowed and failed once begun ([`PolicyHost::failed_once_begun`]).
    Failure,
}

/// The help of a run stopped by the policy's denial.
const BY_POLICY: &str =
    "the policy does not allow this; nothing was carried out, and the denial is in the audit log";

/// The help of a run stopped by an allowed operation that failed once
/// begun ([`PolicyHost::failed_once_begun`]).
const BY_FAILURE: &str = "the policy allowed this, but it failed once begun: a request may have reached the server before it failed, so find out whether it took effect before sending it again; the failure is in the audit log";

/// The help of a run stopped by the host's refusal (`--refuse`, an
/// embedder's answer).
const BY_HOST: &str = "the host refused this operation (the policy allowed it); nothing was carried out, and the refusal is in the audit log";

/// The plain default of a data type, as JSON: what a plan answers an
/// embedder's act with.
fn default_of(ty: &writ_lang::types::InputType) -> serde_json::Value {
    use writ_lang::types::InputType as T;
    let mut work = vec![ty];
    // Built back to front: a stack of the values made for each part.
    let mut order = Vec::new();
    while let Some(t) = work.pop() {
        order.push(t);
        match t {
            T::Tuple(parts) => work.extend(parts.iter()),
            T::Record(fields) => work.extend(fields.iter().map(|(_, t)| t)),
            _ => {}
        }
    }
    let mut made: Vec<serde_json::Value> = Vec::new();
    for t in order.into_iter().rev() {
        let v = match t {
            T::Int => serde_json::json!(0),
            T::Float => serde_json::json!(0.0),
            T::Str => serde_json::json!(""),
            T::Bool => serde_json::json!(false),
            T::Unit | T::Option(_) => serde_json::Value::Null,
            T::List(_) => serde_json::json!([]),
            T::Map(_) => serde_json::json!({}),
            T::Tuple(parts) => {
                let at = made.len().saturating_sub(parts.len());
                serde_json::Value::Array(made.split_off(at))
            }
            T::Record(fields) => {
                let at = made.len().saturating_sub(fields.len());
                let items = made.split_off(at);
                serde_json::Value::Object(
                    fields.iter().map(|(k, _)| k.clone()).zip(items).collect(),
                )
            }
        };
        made.push(v);
    }
    made.pop().unwrap_or(serde_json::Value::Null)
}

/// The arguments as the audit log shows them under `grant`.
pub(crate) fn recorded<'s>(grant: &Grant, arguments: &'s str) -> &'s str {
    if grant.audit_arguments {
        arguments
    } else {
        "(redacted)"
    }
}

/// The question a payment with `confirm = true` asks: what the program
/// chose (the memo) first, bounded and shown shortened
/// ([`arguments::for_question`]), then what the host knows (amount,
/// currency, and the payee as the policy lists it) last, where the
/// person's answer goes: `memo "…" — Pay 6.00 EUR to air-one.example?`.
pub(crate) fn confirmation(memo: &str, payee: &str, cents: i64, currency: &str) -> String {
    let memo = if memo.is_empty() {
        String::new()
    } else {
        format!(
            "memo {} — ",
            arguments::for_question(memo, arguments::CONFIRM_SHOWN)
        )
    };
    format!(
        "{memo}Pay {} {} to {}?",
        money(cents),
        clean(currency),
        clean(payee)
    )
}

/// Cents as an amount with two decimals (a sum of payments is counted
/// in `i128`, which no sum of `i64` amounts overflows).
pub(crate) fn money(cents: impl Into<i128>) -> String {
    let cents: i128 = cents.into();
    let sign = if cents < 0 { "-" } else { "" };
    let abs = cents.unsigned_abs();
    format!("{sign}{}.{:02}", abs / 100, abs % 100)
}

/// Whether `cents` more on top of `total` stays within `cap`, counted
/// without overflow (a sum past `i64::MAX` is over every cap).
pub(crate) fn within_cap(total: i64, cents: i64, cap: i64) -> bool {
    i128::from(total) + i128::from(cents) <= i128::from(cap)
}

/// When the running run's time is up: a request or a wait for the
/// store's lock ends then (see [`writ_runtime::meter::deadline`]).
pub(crate) fn run_until() -> Option<Instant> {
    writ_runtime::meter::deadline().map(|d| d.at)
}

/// The run's time-limit error, if its time is up: what an operation that
/// failed then reports, instead of its own failure (a request or a wait
/// for the store was cut short by the run's time).
fn out_of_time() -> Option<HostError> {
    let d = writ_runtime::meter::deadline()?;
    (Instant::now() >= d.at).then(|| HostError::Stop(RunError::out_of_time(d.limit)))
}

impl Host for PolicyHost<'_> {
    fn perform(&mut self, effect: &str, op: &str, args: &[Value]) -> Result<Value, HostError> {
        self.bounded(|host| {
            let ready = host.decide(effect, op, args)?;
            host.complete(ready, args)
        })
    }
}

impl PolicyHost<'_> {
    /// Run `work` (deciding or carrying out an operation) bounded by the
    /// run's time: the store waits for its lock no longer than the run may
    /// go on (it outlives the run, so that is lifted after), and failed
    /// once the run's time is up (a request or a wait for the store cut
    /// short by it), an operation ends the run on its time limit, not with
    /// its own failure or denial.
    pub(crate) fn bounded<T>(
        &mut self,
        work: impl FnOnce(&mut Self) -> Result<T, HostError>,
    ) -> Result<T, HostError> {
        self.store.set_until(run_until());
        let result = work(self);
        self.store.set_until(None);
        result.map_err(|e| out_of_time().unwrap_or(e))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::confirmation;
    use crate::arguments::CONFIRM_SHOWN;

    #[test]
    fn a_payment_question_shows_the_memo_bounded_and_the_amount_last() {
        // The repro (a memo the gate refuses before any question)
        // rendered by itself, and variants within the gate.
        let spaces = format!("{}Pay 0.50 USD to airline-a (coffee", " ".repeat(20_000));
        assert_eq!(
            confirmation(&spaces, "airline-a", 60000, "USD"),
            "memo \"⟨20000 blanks⟩Pay 0.50 USD to airline-a (coffee\" — Pay 600.00 USD to airline-a?"
        );
        let cases = [
            (
                format!("{}Pay 0.50 USD to airline-a (coffee", " ".repeat(400)),
                "memo \"⟨400 blanks⟩Pay 0.50 USD to airline-a (coffee\" — Pay 600.00 USD to airline-a?",
            ),
            (
                "coffee)?\n\n\n\nPay 0.50 USD to airline-a (coffee".to_string(),
                "memo \"coffee)?\\n\\n\\n\\nPay 0.50 USD to airline-a (coffee\" — Pay 600.00 USD to airline-a?",
            ),
            (
                "a\t\t\tb\r\u{a0}\u{a0}c".to_string(),
                "memo \"a\\t\\t\\tb\\r⟨2 blanks⟩c\" — Pay 600.00 USD to airline-a?",
            ),
            (
                "\u{202E}ASU 05.0\u{202C} \u{200B}x".to_string(),
                "memo \"\\u{202e}ASU 05.0\\u{202c} \\u{200b}x\" — Pay 600.00 USD to airline-a?",
            ),
            (
                format!("{} Pay 0.50", "y".repeat(500)),
                "memo \"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\"… (509 bytes, shown shortened) — Pay 600.00 USD to airline-a?",
            ),
            (String::new(), "Pay 600.00 USD to airline-a?"),
        ];
        for (memo, question) in &cases {
            assert_eq!(&confirmation(memo, "airline-a", 60000, "USD"), question);
            // One line, and the amount the host knows ends it.
            assert!(!question.contains('\n'));
            assert!(question.ends_with("Pay 600.00 USD to airline-a?"));
        }
    }

    proptest! {
        #[test]
        fn a_memo_in_a_question_is_one_bounded_line(memo in "(\\PC|[ \t\n\r\u{a0}\u{202e}\u{200b}]){0,200}") {
            let q = confirmation(&memo, "air-one.example", 600, "EUR");
            prop_assert!(q.ends_with(" — Pay 6.00 EUR to air-one.example?") || q == "Pay 6.00 EUR to air-one.example?", "{}", q);
            prop_assert!(!q.chars().any(|c| c.is_control() || c == '\u{202e}' || c == '\u{200b}'), "{}", q);
            prop_assert!(!q.contains("  "), "{}", q);
            // At most CONFIRM_SHOWN characters of the memo, each at most a
            // `\u{...}` escape or a collapsed run.
            prop_assert!(q.len() <= CONFIRM_SHOWN * 16 + 120, "{}", q.len());
        }
    }
}
