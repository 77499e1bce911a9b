//! The policy host: carries out each operation a program hands to the
//! host, after checking it against the grant's scope, and keeps the audit
//! log.
//!
//! Invariants: an operation is checked at the moment it is performed;
//! its audit record (when the grant audits, and always for a denial) is
//! committed before its result returns, or it is denied; every argument
//! passes its size gate ([`crate::arguments`]) before anything is done with
//! it, and one over its bound is a denial; what the program chose is
//! escaped before it is stored or shown ([`clean`]); each redirect hop of
//! a request is checked and audited before it is requested; a denial
//! carries out nothing and becomes `Fail` or the end of the run, as the
//! grant's `on_deny` says.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use writ_lang::Code;
use writ_runtime::{Host, HostError, Module, RunError, Value};

use crate::arguments::{self, Oversized};
use crate::builtin::BuiltinOp;
use crate::capability::{Args, Capability};
use crate::engine::{Confirmer, Operation, unavailable};
use crate::http::{Failure, fetch};
use crate::policy::{Decision, Grant, OnDeny, Policy, Scope, Subjects};
use crate::store::{self, Entry, NewPayment, Paid, Store};
use crate::url::{self, Url};

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
    pub(crate) recorded: Option<&'a HashMap<String, String>>,
    pub(crate) used_recorded: bool,
}

/// Text from a program made safe to store and show, on one line (see
/// [`writ_runtime::display::safe_text`]): an audit line cannot be made to
/// look like another, on a terminal or in the log.
pub fn clean(s: &str) -> String {
    writ_runtime::display::safe_text(s, writ_runtime::display::LineBreaks::Escape)
}

fn quoted(s: &str) -> String {
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
        let (arguments, rule) = (clean(arguments), clean(rule));
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
        self.note(operation, arguments, Decision::Allowed, rule, audit_id);
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
        self.note(operation, arguments, Decision::Denied, rule, audit_id);
        let message = format!(
            "{operation}({}) was denied: {}",
            clean(arguments),
            clean(rule)
        );
        match grant.on_deny {
            OnDeny::Fail => HostError::Fail(message),
            OnDeny::Stop => HostError::Stop(
                RunError::new(Code::OperationDenied, message)
                    .with_help("the policy does not allow this; nothing was carried out, and the denial is in the audit log"),
            ),
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

    fn http(&mut self, grant: &Grant, op: BuiltinOp, args: &[Value]) -> Result<Value, HostError> {
        let Scope::Http(scope) = &grant.scope else {
            return Err(HostError::Stop(RunError::internal(
                "Http grant without an Http scope",
            )));
        };
        let operation = format!("Http.{}", op.name());
        let raw = self.gate(grant, &operation, args, (0, "the URL", arguments::MAX_URL))?;
        let mut shown = quoted(raw);
        let body = if op == BuiltinOp::HttpPost {
            // What is sent is part of the record: in full when short, else
            // its start, length and hash (which identify it exactly).
            match arguments::text(args, 1, "the body", arguments::MAX_POST_BODY) {
                Ok(b) => {
                    shown = format!("{shown}, {}", arguments::recorded(b));
                    Some(b)
                }
                Err(o) => {
                    let o = Oversized {
                        shown: format!("{shown}, {}", o.shown),
                        rule: o.rule,
                    };
                    return Err(self.deny_oversized(grant, &operation, o));
                }
            }
        } else {
            None
        };
        let target = match url::parse(raw) {
            Ok(u) => u,
            Err(e) => {
                return Err(self.deny(
                    grant,
                    &operation,
                    &shown,
                    &format!("the URL is malformed: {e}"),
                ));
            }
        };
        // With no `allow` list, the recorded URLs are the allow-list.
        let recorded_only = scope.allow.is_empty() && self.recorded.is_some();
        let rule_text = match scope.allow.iter().find(|r| r.allows(&target)) {
            Some(rule) => format!("allowed by {}", rule.url),
            None if recorded_only => "a recorded URL".to_string(),
            None => {
                return Err(self.deny(
                    grant,
                    &operation,
                    &shown,
                    &format!("{target} is not in the allow-list"),
                ));
            }
        };
        if let Some(recorded) = self.recorded {
            let body = recorded.get(&target.to_string()).cloned();
            return match body {
                Some(b) => {
                    self.allow(
                        grant,
                        &operation,
                        &shown,
                        &format!("{rule_text} (recorded response)"),
                    )?;
                    self.used_recorded = true;
                    Ok(Value::str(b))
                }
                None => Err(self.deny(
                    grant,
                    &operation,
                    &shown,
                    &format!("{target} has no recorded response"),
                )),
            };
        }
        // Write-ahead: the record of the request precedes it, and each
        // redirect hop's record precedes the hop (a hop off the list is a
        // denial of its own, with its URL).
        self.allow(grant, &operation, &shown, &rule_text)?;
        let mut hop = |from: &Url, to: &Url| -> Result<(), HostError> {
            let hop_shown = quoted(&to.to_string());
            match scope.allow.iter().find(|r| r.allows(to)) {
                Some(rule) => self.allow(
                    grant,
                    &operation,
                    &hop_shown,
                    &format!("a redirect from {from}, allowed by {}", rule.url),
                ),
                None => Err(self.deny(
                    grant,
                    &operation,
                    &hop_shown,
                    &format!("{from} redirected to {to}, which is not in the allow-list"),
                )),
            }
        };
        match fetch(&target, body, scope, run_until(), &mut hop) {
            Ok(text) => Ok(Value::str(text)),
            Err(Failure::Refused(e)) => Err(e),
            Err(Failure::At(at, why)) => {
                let at_shown = if *at == target {
                    shown
                } else {
                    quoted(&at.to_string())
                };
                Err(self.deny(grant, &operation, &at_shown, &why))
            }
        }
    }

    fn pay(&mut self, grant: &Grant, args: &[Value]) -> Result<Value, HostError> {
        let Scope::Pay(scope) = &grant.scope else {
            return Err(HostError::Stop(RunError::internal(
                "Pay grant without a Pay scope",
            )));
        };
        let op = "Pay.pay";
        let cents = args.get(1).and_then(Value::as_int).unwrap_or(0);
        // Both texts pass their gates before either is copied.
        let gated = (
            arguments::text(args, 0, "the payee", arguments::MAX_PAYEE),
            arguments::text(args, 2, "the memo", arguments::MAX_MEMO),
        );
        let (payee, memo) = match gated {
            (Ok(p), Ok(m)) => (p.to_ascii_lowercase(), m),
            (p, m) => {
                let form = |r: &Result<&str, Oversized>| match r {
                    Ok(t) => quoted(t),
                    Err(o) => o.shown.clone(),
                };
                let shown = format!("{}, {cents}, {}", form(&p), form(&m));
                let rule = p.err().or(m.err()).map(|o| o.rule).unwrap_or_default();
                return Err(self.deny_oversized(grant, op, Oversized { shown, rule }));
            }
        };
        let shown = format!("{}, {cents}, {}", quoted(&payee), quoted(memo));
        if !scope.payees.contains(&payee) {
            return Err(self.deny(
                grant,
                op,
                &shown,
                &format!(
                    "{payee} is not an allowed payee ({})",
                    scope.payees.join(", ")
                ),
            ));
        }
        if cents <= 0 {
            return Err(self.deny(grant, op, &shown, "a payment must be of at least 1 cent"));
        }
        let cur = &scope.currency;
        if cents > scope.max_payment_cents {
            return Err(self.deny(
                grant,
                op,
                &shown,
                &format!(
                    "{} {cur} is over the cap of {} {cur} per payment",
                    money(cents),
                    money(scope.max_payment_cents)
                ),
            ));
        }
        if self.paid_this_run.saturating_add(cents) > scope.max_run_cents {
            return Err(self.deny(
                grant,
                op,
                &shown,
                &format!(
                    "{} {cur} would bring this run's payments to {} {cur}, over the cap of {} {cur}",
                    money(cents),
                    money(self.paid_this_run.saturating_add(cents)),
                    money(scope.max_run_cents)
                ),
            ));
        }
        // A first look at the day's total, so that the person is not asked
        // to confirm what the cap refuses; the total that decides is read
        // again with the payment's write, under the store's lock.
        let now = (self.clock)();
        let over_day = |today: i64| {
            clean(&format!(
                "{} {cur} would bring today's payments to {} {cur}, over the cap of {} {cur}",
                money(cents),
                money(today.saturating_add(cents)),
                money(scope.max_day_cents)
            ))
        };
        let today = match self
            .store
            .paid_on(&self.policy.principal.id, &store::day_of(now))
        {
            Ok(t) => t,
            Err(e) => {
                return Err(self.deny(
                    grant,
                    op,
                    &shown,
                    &format!("today's payments could not be read: {e}"),
                ));
            }
        };
        if today.saturating_add(cents) > scope.max_day_cents {
            return Err(self.deny(grant, op, &shown, &over_day(today)));
        }
        if scope.confirm {
            let question = confirmation(memo, &payee, cents, &scope.currency);
            if !(self.confirm)(&question) {
                return Err(self.deny(grant, op, &shown, "the person did not confirm the payment"));
            }
        }
        let rule = format!(
            "{payee} is an allowed payee and {} {} is within the caps",
            money(cents),
            scope.currency
        );
        // Escaped as every record is (see `audit`): this one is written by
        // the ledger's transaction instead.
        let (arguments, rule) = (clean(recorded(grant, &shown)), clean(&rule));
        let entry = Entry {
            principal: &self.policy.principal.id,
            program: self.program,
            operation: op,
            arguments: &arguments,
            decision: Decision::Allowed,
            rule: &rule,
        };
        let payment = NewPayment {
            payee: &payee,
            cents,
            currency: &scope.currency,
            memo,
            // After the confirmation, which may have taken a while.
            time_ms: (self.clock)(),
            max_day_cents: scope.max_day_cents,
        };
        let paid = self.store.pay(&entry, &payment, &over_day).map_err(|e| {
            HostError::Stop(unavailable(format!(
                "the payment could not be recorded ({e}); nothing was paid"
            )))
        })?;
        let (id, seq) = match paid {
            Paid::Made { id, seq } => (id, seq),
            Paid::OverDayCap { today, seq } => {
                self.audit_ids.push(seq);
                return Err(self.denied(grant, op, &shown, &over_day(today), Some(seq)));
            }
        };
        self.audit_ids.push(seq);
        self.note(op, &shown, Decision::Allowed, &rule, Some(seq));
        self.paid_this_run += cents;
        Value::record(
            self.module,
            vec![
                ("id", Value::str(format!("pay-{id}"))),
                ("payee", Value::str(payee)),
                ("cents", Value::int(cents)),
                ("currency", Value::str(scope.currency.clone())),
            ],
        )
        .ok_or_else(|| {
            HostError::Stop(RunError::internal("the Receipt type is not in the program"))
        })
    }

    fn records(
        &mut self,
        grant: &Grant,
        op: BuiltinOp,
        args: &[Value],
    ) -> Result<Value, HostError> {
        let Scope::Records(scope) = &grant.scope else {
            return Err(HostError::Stop(RunError::internal(
                "Records grant without a Records scope",
            )));
        };
        let me = self.policy.principal.id.clone();
        let operation = format!("Records.{}", op.name());
        // The id passes its gate before the store is read.
        let id = self.gate(grant, &operation, args, (0, "the id", arguments::MAX_ID))?;
        let readable = match scope.subjects {
            Subjects::Own => Ok(vec![me.clone()]),
            Subjects::Reports => self.store.reports(&me),
            Subjects::All => self.store.employee_ids(),
        };
        let readable = match readable {
            Ok(r) => r,
            Err(e) => {
                return Err(self.deny(
                    grant,
                    &operation,
                    "",
                    &format!("the org chart could not be read: {e}"),
                ));
            }
        };
        if op == BuiltinOp::RecordsList {
            self.allow(grant, &operation, "", "the ids the scope allows")?;
            return Ok(Value::list(readable.into_iter().map(Value::str)));
        }
        let id = id.to_string();
        let shown = quoted(&id);
        if !readable.contains(&id) {
            let rule = match scope.subjects {
                Subjects::Own => format!("scope \"self\": {id} is not {me}"),
                Subjects::Reports => {
                    format!("scope \"reports\": {id} is not one of {me}'s reports")
                }
                Subjects::All => format!("no employee {id}"),
            };
            return Err(self.deny(grant, &operation, &shown, &rule));
        }
        let row = match self.store.employee(&id) {
            Ok(Some(r)) => r,
            Ok(None) => {
                return Err(self.deny(grant, &operation, &shown, &format!("no employee {id}")));
            }
            Err(e) => {
                return Err(self.deny(
                    grant,
                    &operation,
                    &shown,
                    &format!("the record could not be read: {e}"),
                ));
            }
        };
        let rule = match scope.subjects {
            Subjects::Own => "scope \"self\": the principal's own record".to_string(),
            Subjects::Reports => format!("scope \"reports\": {id} reports to {me}"),
            Subjects::All => "scope \"all\"".to_string(),
        };
        // Write-ahead: the read is audited before the record returns.
        self.allow(grant, &operation, &shown, &rule)?;
        let (name, manager, fields) = row;
        let fields: HashMap<String, serde_json::Value> =
            serde_json::from_str(&fields).unwrap_or_default();
        let fields = fields
            .into_iter()
            .filter(|(k, _)| !scope.redact.contains(k))
            .map(|(k, v)| {
                let v = match v {
                    serde_json::Value::String(s) => s,
                    other => other.to_string(),
                };
                (Value::str(k), Value::str(v))
            });
        let fields = Value::map(fields);
        let manager = match manager {
            Some(m) => Value::some(self.module, Value::str(m)),
            None => Value::none(self.module),
        };
        Value::record(
            self.module,
            vec![
                ("id", Value::str(id)),
                ("name", Value::str(name)),
                ("manager", manager),
                ("fields", fields),
            ],
        )
        .ok_or_else(|| {
            HostError::Stop(RunError::internal(
                "the Employee type is not in the program",
            ))
        })
    }
}

impl PolicyHost<'_> {
    /// An operation of an embedder's capability: recorded (if audited),
    /// then carried out by its handler; a refusal is a denial.
    fn custom(
        &mut self,
        grant: &Grant,
        effect: &str,
        op: &str,
        args: &[Value],
    ) -> Result<Value, HostError> {
        let operation = format!("{effect}.{op}");
        // The arguments pass the same gate as the built-in capabilities'
        // (each bounded in size and depth) before they are shown or the
        // handler sees them.
        let shown = match arguments::capability(args, self.module) {
            Ok(s) => s,
            Err(o) => return Err(self.deny_oversized(grant, &operation, o)),
        };
        let Some(handler) = self
            .capabilities
            .iter()
            .find(|c| c.name == effect)
            .map(|c| c.handler.clone())
        else {
            return Err(HostError::Stop(RunError::internal(
                "the capability is not registered",
            )));
        };
        // Write-ahead, as for `Http`: the operation is recorded before the
        // handler acts, so nothing happens that the log does not show; a
        // refusal by the handler is recorded after it.
        self.allow(grant, &operation, &shown, "granted")?;
        match handler(op, &Args(args)) {
            Ok(v) => Ok(v),
            Err(why) => Err(self.deny(grant, &operation, &shown, &why.reason)),
        }
    }
}

/// The arguments as the audit log shows them under `grant`.
fn recorded<'s>(grant: &Grant, arguments: &'s str) -> &'s str {
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

/// Cents as an amount with two decimals.
fn money(cents: i64) -> String {
    format!("{}.{:02}", cents / 100, (cents % 100).abs())
}

/// When the running run's time is up: a request or a wait for the
/// store's lock ends then (see [`writ_runtime::meter::deadline`]).
fn run_until() -> Option<Instant> {
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
        // The store waits for its lock no longer than the run may go on;
        // it outlives the run (a session's), so lift that after.
        self.store.set_until(run_until());
        let result = self.carry_out(effect, op, args);
        self.store.set_until(None);
        // Failed once the run's time is up (a request or a wait for the
        // store cut short by it), an operation ends the run on its time
        // limit, not with its own failure or denial.
        result.map_err(|e| out_of_time().unwrap_or(e))
    }
}

impl PolicyHost<'_> {
    /// Decide and carry out one operation (see [`Host::perform`]).
    fn carry_out(&mut self, effect: &str, op: &str, args: &[Value]) -> Result<Value, HostError> {
        let policy = self.policy;
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
        match BuiltinOp::of(effect, op) {
            Some(BuiltinOp::LogInfo) => {
                let line = (0, "the line", arguments::MAX_LOG_LINE);
                let line = self.gate(grant, "Log.info", args, line)?;
                self.allow(grant, "Log.info", &arguments::recorded(line), "granted")?;
                (self.log)(line);
                self.output.push(line.to_string());
                Ok(Value::unit())
            }
            Some(BuiltinOp::ClockNow) => {
                self.allow(grant, "Clock.now", "", "granted")?;
                Ok(Value::int((self.clock)()))
            }
            Some(BuiltinOp::ConfirmAsk) => {
                let q = (0, "the question", arguments::MAX_QUESTION);
                let q = self.gate(grant, "Confirm.ask", args, q)?;
                self.allow(grant, "Confirm.ask", &quoted(q), "granted")?;
                Ok(Value::bool((self.confirm)(q)))
            }
            Some(BuiltinOp::AuditNote) => {
                let m = (0, "the note", arguments::MAX_NOTE);
                let m = arguments::recorded(self.gate(grant, "Audit.note", args, m)?);
                // A note is the audit log's content: always written (a
                // long one as its start, length and hash).
                let seq = self.audit(
                    "Audit.note",
                    recorded(grant, &m),
                    Decision::Allowed,
                    "granted",
                )?;
                self.note("Audit.note", &m, Decision::Allowed, "granted", Some(seq));
                Ok(Value::unit())
            }
            Some(o @ (BuiltinOp::HttpGet | BuiltinOp::HttpPost)) => self.http(grant, o, args),
            Some(BuiltinOp::Pay) => self.pay(grant, args),
            Some(o @ (BuiltinOp::RecordsRead | BuiltinOp::RecordsList)) => {
                self.records(grant, o, args)
            }
            None if self.capabilities.iter().any(|c| c.name == effect) => {
                self.custom(grant, effect, op, args)
            }
            None => Err(HostError::Stop(RunError::new(
                Code::OperationDenied,
                format!("{effect}.{op} is not an operation this host carries out"),
            ))),
        }
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
