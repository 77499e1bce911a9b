//! A replayed read's answer under the policy in force. A recording is data
//! from outside the run (a run under another policy, a file edited by
//! hand), so the rules the policy applies to a live answer apply to a
//! recorded one too, before the program sees it:
//!
//! - `Records.list()`: only the ids the scope allows now, in the
//!   recording's order;
//! - `Records.read(id)`: the record must be `id`'s (another's is denied),
//!   and the fields the scope redacts are left out;
//! - `Http.get`/`Http.post`: a body longer than the grant's
//!   `max_response_bytes` is denied, as a live response is.
//!
//! Anything else is answered as recorded. The policy's checks of the
//! arguments (the allow-list, the records' scope) were made already, by
//! [`PolicyHost::decide`], as for a live read.

use std::borrow::Cow;
use std::collections::HashSet;

use serde_json::Value as Json;
use writ_runtime::HostError;

use super::{Act, PolicyHost, Ready, records, web};

impl PolicyHost<'_> {
    /// The recording's `answer` to the read `ready`, held to the policy's
    /// rules on answers (see the module docs): as recorded, narrowed, or
    /// denied (audited, and `Fail` or the end of the run as the grant's
    /// `on_deny` says).
    pub(crate) fn replay_answer<'j>(
        &mut self,
        ready: &Ready,
        answer: &'j Json,
    ) -> Result<Cow<'j, Json>, HostError> {
        match &ready.act {
            Act::List(ids) => {
                let Json::Array(items) = answer else {
                    return Ok(Cow::Borrowed(answer));
                };
                let allowed: HashSet<&str> = ids.iter().map(String::as_str).collect();
                // Anything not a text is left for the answer's type check.
                let kept = items
                    .iter()
                    .filter(|i| i.as_str().is_none_or(|id| allowed.contains(id)))
                    .cloned()
                    .collect();
                Ok(Cow::Owned(Json::Array(kept)))
            }
            Act::Read(id) => {
                let grant = self.grant_of(ready)?;
                let scope = records::scope(grant)?;
                let Json::Object(record) = answer else {
                    return Ok(Cow::Borrowed(answer));
                };
                if let Some(of) = record.get("id").and_then(Json::as_str)
                    && of != id
                {
                    let rule = format!(
                        "the recorded record is {}'s, not {}'s",
                        super::clean(of),
                        super::clean(id)
                    );
                    return Err(self.deny(grant, &ready.operation, &ready.shown, &rule));
                }
                let redacts = record
                    .get("fields")
                    .and_then(Json::as_object)
                    .is_some_and(|f| f.keys().any(|k| scope.redact.contains(k)));
                if !redacts {
                    return Ok(Cow::Borrowed(answer));
                }
                let mut record = record.clone();
                if let Some(Json::Object(fields)) = record.get_mut("fields") {
                    fields.retain(|k, _| !scope.redact.contains(k));
                }
                Ok(Cow::Owned(Json::Object(record)))
            }
            Act::Http(request) => {
                let grant = self.grant_of(ready)?;
                let limit = web::scope(grant)?.max_response_bytes;
                match answer.as_str() {
                    Some(body) if body.len() as u64 > limit => {
                        let rule = format!(
                            "the recorded response of {} is larger than {limit} bytes",
                            request.target()
                        );
                        Err(self.deny(grant, &ready.operation, &ready.shown, &rule))
                    }
                    _ => Ok(Cow::Borrowed(answer)),
                }
            }
            _ => Ok(Cow::Borrowed(answer)),
        }
    }
}
