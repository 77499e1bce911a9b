//! `Records` under the policy. Deciding: the id passes its gate, and the
//! scope (`self`, `reports`, `all`) read against the org chart allows it.
//! Completing: the record is read, its audit record written (write-ahead:
//! before the record returns to the program), and the fields the scope
//! redacts left out.

use std::collections::HashMap;

use writ_runtime::{HostError, RunError, Value};

use super::{Act, PolicyHost, quoted};
use crate::arguments;
use crate::builtin::BuiltinOp;
use crate::policy::{Grant, RecordsScope, Scope, Subjects};

pub(super) fn scope(grant: &Grant) -> Result<&RecordsScope, HostError> {
    match &grant.scope {
        Scope::Records(s) => Ok(s),
        _ => Err(HostError::Stop(RunError::internal(
            "Records grant without a Records scope",
        ))),
    }
}

impl PolicyHost<'_> {
    /// Decide `Records.read(id)` or `Records.list()` (`operation`): the arguments as
    /// shown, the rule that allows it, and what completing it does; or its
    /// denial.
    pub(super) fn decide_records(
        &mut self,
        grant: &Grant,
        operation: &str,
        op: BuiltinOp,
        args: &[Value],
    ) -> Result<(String, String, Act), HostError> {
        let scope = scope(grant)?;
        let me = self.policy.principal.id.clone();
        // The id passes its gate before the store is read.
        let id = self.gate(grant, operation, args, (0, "the id", arguments::MAX_ID))?;
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
                    operation,
                    "",
                    &format!("the org chart could not be read: {e}"),
                ));
            }
        };
        if op == BuiltinOp::RecordsList {
            let rule = "the ids the scope allows".to_string();
            return Ok((String::new(), rule, Act::List(readable)));
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
            return Err(self.deny(grant, operation, &shown, &rule));
        }
        let rule = match scope.subjects {
            Subjects::Own => "scope \"self\": the principal's own record".to_string(),
            Subjects::Reports => format!("scope \"reports\": {id} reports to {me}"),
            Subjects::All => "scope \"all\"".to_string(),
        };
        Ok((shown, rule, Act::Read(id)))
    }

    /// Read the record `id` the policy allowed (see the module docs).
    pub(super) fn complete_read(
        &mut self,
        grant: &Grant,
        operation: &str,
        shown: &str,
        rule: &str,
        id: String,
    ) -> Result<Value, HostError> {
        let scope = scope(grant)?;
        let row = match self.store.employee(&id) {
            Ok(Some(r)) => r,
            Ok(None) => {
                return Err(self.deny(grant, operation, shown, &format!("no employee {id}")));
            }
            Err(e) => {
                return Err(self.deny(
                    grant,
                    operation,
                    shown,
                    &format!("the record could not be read: {e}"),
                ));
            }
        };
        // Write-ahead: the read is audited before the record returns.
        self.allow(grant, operation, shown, rule)?;
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
