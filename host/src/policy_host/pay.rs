//! `Pay` under the policy. Deciding: the payee and the memo pass their
//! gates, the payee is allowed, the amount is positive and within the
//! caps per payment and per run, and a first look at the day's total
//! (so that the person is not asked to confirm what the cap refuses).
//! Completing: the person's confirmation when the grant asks for it,
//! then the payment and its audit record in one transaction of the
//! ledger, which reads the day's total again under the store's lock.

use writ_runtime::{HostError, RunError, Value};

use super::{PolicyHost, clean, confirmation, money, quoted, recorded, within_cap};
use crate::arguments::{self, Oversized};
use crate::engine::unavailable;
use crate::policy::{Decision, Grant, PayScope, Scope};
use crate::store::{self, Entry, NewPayment, Paid, StoreError};

/// A payment the policy allowed.
pub(crate) struct Payment {
    /// Lower case, as the policy lists payees.
    payee: String,
    cents: i64,
    memo: String,
}

impl Payment {
    /// To whom, as the policy lists payees.
    pub(crate) fn payee(&self) -> String {
        self.payee.clone()
    }

    /// How much.
    pub(crate) fn cents(&self) -> i64 {
        self.cents
    }
}

fn scope(grant: &Grant) -> Result<&PayScope, HostError> {
    match &grant.scope {
        Scope::Pay(s) => Ok(s),
        _ => Err(HostError::Stop(RunError::internal(
            "Pay grant without a Pay scope",
        ))),
    }
}

/// The rule of a payment over the day's cap, `today` paid before it.
fn over_day(scope: &PayScope, cents: i64, today: i64) -> String {
    let cur = &scope.currency;
    clean(&format!(
        "{} {cur} would bring today's payments to {} {cur}, over the cap of {} {cur}",
        money(cents),
        money(i128::from(today) + i128::from(cents)),
        money(scope.max_day_cents)
    ))
}

impl PolicyHost<'_> {
    /// Decide `Pay.pay(payee, cents, memo)`: its arguments as shown, the
    /// rule that allows it, and the payment; or its denial.
    pub(super) fn decide_pay(
        &mut self,
        grant: &Grant,
        args: &[Value],
    ) -> Result<(String, String, Payment), HostError> {
        let scope = scope(grant)?;
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
        if memo.contains('\0') {
            // PostgreSQL's text cannot hold one; refused on every store
            // alike, so that a memo means the same wherever it is kept.
            return Err(self.deny(grant, op, &shown, "a memo may not hold a NUL character"));
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
        // A plan's earlier payments count as made (`planned_cents`).
        let this_run = self.paid_this_run.saturating_add(self.planned_cents);
        if !within_cap(this_run, cents, scope.max_run_cents) {
            return Err(self.deny(
                grant,
                op,
                &shown,
                &format!(
                    "{} {cur} would bring this run's payments to {} {cur}, over the cap of {} {cur}",
                    money(cents),
                    money(i128::from(this_run) + i128::from(cents)),
                    money(scope.max_run_cents)
                ),
            ));
        }
        // A first look at the day's total; the total that decides is read
        // again with the payment's write, under the store's lock.
        let now = (self.clock)();
        let today = match self
            .store
            .paid_on(&self.policy.principal.id, &store::day_of(now))
        {
            Ok(t) => t.saturating_add(self.planned_cents),
            Err(e) => {
                return Err(self.deny(
                    grant,
                    op,
                    &shown,
                    &format!("today's payments could not be read: {e}"),
                ));
            }
        };
        if !within_cap(today, cents, scope.max_day_cents) {
            return Err(self.deny(grant, op, &shown, &over_day(scope, cents, today)));
        }
        let rule = format!(
            "{payee} is an allowed payee and {} {} is within the caps",
            money(cents),
            scope.currency
        );
        let payment = Payment {
            payee,
            cents,
            memo: memo.to_string(),
        };
        Ok((shown, rule, payment))
    }

    /// Carry out a payment the policy allowed (see the module docs).
    pub(super) fn complete_pay(
        &mut self,
        grant: &Grant,
        shown: &str,
        payment: Payment,
    ) -> Result<Value, HostError> {
        let scope = scope(grant)?;
        let op = "Pay.pay";
        let Payment { payee, cents, memo } = payment;
        if scope.confirm {
            let question = confirmation(&memo, &payee, cents, &scope.currency);
            if !(self.confirm)(&question) {
                return Err(self.deny(grant, op, shown, "the person did not confirm the payment"));
            }
        }
        let rule = format!(
            "{payee} is an allowed payee and {} {} is within the caps",
            money(cents),
            scope.currency
        );
        // With the run's purpose and escaped, as every record is (see
        // `audit`): this one is written by the ledger's transaction
        // instead.
        let (arguments, recorded_rule) =
            (clean(recorded(grant, shown)), clean(&self.purposed(&rule)));
        let entry = Entry {
            principal: &self.policy.principal.id,
            program: self.program,
            operation: op,
            arguments: &arguments,
            decision: Decision::Allowed,
            rule: &recorded_rule,
        };
        let new = NewPayment {
            payee: &payee,
            cents,
            currency: &scope.currency,
            memo: &memo,
            // After the confirmation, which may have taken a while.
            time_ms: (self.clock)(),
            max_day_cents: scope.max_day_cents,
        };
        let over = |today: i64| over_day(scope, cents, today);
        // The denial the ledger's transaction records, with the run's
        // purpose as every record has it.
        let purpose = self.purpose.map(|p| format!("; {p}")).unwrap_or_default();
        let over_recorded = |today: i64| format!("{}{purpose}", over(today));
        let paid = self.store.pay(&entry, &new, &over_recorded).map_err(|e| {
            HostError::Stop(unavailable(match e {
                StoreError::Uncertain { .. } => format!(
                    "the payment's outcome is unknown ({e}); the ledger and the audit log say whether it was made"
                ),
                _ => format!("the payment could not be recorded ({e}); nothing was paid"),
            }))
        })?;
        let (id, seq) = match paid {
            Paid::Made { id, seq } => (id, seq),
            Paid::OverDayCap { today, seq } => {
                self.audit_ids.push(seq);
                return Err(self.denied(grant, op, shown, &over(today), Some(seq)));
            }
        };
        self.audit_ids.push(seq);
        let rule = self.purposed(&rule);
        self.note(op, shown, Decision::Allowed, &rule, Some(seq));
        self.paid_this_run = self.paid_this_run.saturating_add(cents);
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
}
