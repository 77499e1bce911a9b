//! `Http` under the policy. Deciding: the URL and the body pass their
//! gates, the URL parses, the allow-list (or, with recorded responses
//! and no list, the recordings) allows it. Completing: the request's
//! record first (write-ahead), then the request, each redirect hop checked
//! against the list and recorded before it is requested; a hop off the
//! list, or a request that fails, is a denial with its URL.

use writ_runtime::{HostError, RunError, Value};

use super::{PolicyHost, quoted, run_until};
use crate::arguments::{self, Oversized};
use crate::builtin::BuiltinOp;
use crate::http::{Failure, fetch};
use crate::policy::{Grant, HttpScope, Scope};
use crate::url::{self, Url};

/// A request the policy allowed.
pub(crate) struct Request {
    target: Url,
    /// What `post` sends.
    body: Option<String>,
    /// The recorded response, when the policy replays recordings.
    recorded: Option<String>,
}

impl Request {
    /// The URL requested.
    pub(super) fn target(&self) -> &Url {
        &self.target
    }
}

pub(super) fn scope(grant: &Grant) -> Result<&HttpScope, HostError> {
    match &grant.scope {
        Scope::Http(s) => Ok(s),
        _ => Err(HostError::Stop(RunError::internal(
            "Http grant without an Http scope",
        ))),
    }
}

impl PolicyHost<'_> {
    /// Decide `Http.get(url)` or `Http.post(url, body)` (`operation`): its
    /// arguments as shown, the rule that allows it, and the
    /// request; or its denial.
    pub(super) fn decide_http(
        &mut self,
        grant: &Grant,
        operation: &str,
        op: BuiltinOp,
        args: &[Value],
    ) -> Result<(String, String, Request), HostError> {
        let scope = scope(grant)?;
        let raw = self.gate(grant, operation, args, (0, "the URL", arguments::MAX_URL))?;
        let mut shown = quoted(raw);
        let body = if op == BuiltinOp::HttpPost {
            // What is sent is part of the record: in full when short, else
            // its start, length and hash (which identify it exactly).
            match arguments::text(args, 1, "the body", arguments::MAX_POST_BODY) {
                Ok(b) => {
                    shown = format!("{shown}, {}", arguments::recorded(b));
                    Some(b.to_string())
                }
                Err(o) => {
                    let o = Oversized {
                        shown: format!("{shown}, {}", o.shown),
                        rule: o.rule,
                    };
                    return Err(self.deny_oversized(grant, operation, o));
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
                    operation,
                    &shown,
                    &format!("the URL is malformed: {e}"),
                ));
            }
        };
        // With no `allow` list, the recorded URLs are the allow-list.
        let recorded_only = scope.allow.is_empty() && self.recorded.is_some();
        let rule = match scope.allow.iter().find(|r| r.allows(&target)) {
            Some(rule) => format!("allowed by {}", rule.url),
            None if recorded_only => "a recorded URL".to_string(),
            None => {
                return Err(self.deny(
                    grant,
                    operation,
                    &shown,
                    &format!("{target} is not in the allow-list"),
                ));
            }
        };
        let Some(recordings) = self.recorded else {
            let request = Request {
                target,
                body,
                recorded: None,
            };
            return Ok((shown, rule, request));
        };
        match recordings.get(&target.to_string()).cloned() {
            Some(b) => {
                let request = Request {
                    target,
                    body,
                    recorded: Some(b),
                };
                let rule = format!("{rule} (recorded response)");
                Ok((shown, rule, request))
            }
            None => Err(self.deny(
                grant,
                operation,
                &shown,
                &format!("{target} has no recorded response"),
            )),
        }
    }

    /// Carry out a request the policy allowed (see the module docs).
    pub(super) fn complete_http(
        &mut self,
        grant: &Grant,
        operation: &str,
        shown: &str,
        rule: &str,
        request: Request,
    ) -> Result<Value, HostError> {
        let scope = scope(grant)?;
        // Write-ahead: the record of the request precedes it.
        self.allow(grant, operation, shown, rule)?;
        if let Some(b) = request.recorded {
            self.used_recorded = true;
            // A recorded response is held to the grant's bound as a live
            // one is.
            let limit = scope.max_response_bytes;
            if b.len() as u64 > limit {
                let why = format!(
                    "the recorded response of {} is larger than {limit} bytes",
                    request.target
                );
                return Err(self.deny(grant, operation, shown, &why));
            }
            return Ok(Value::str(b));
        }
        // Each redirect hop's record precedes the hop (a hop off the list
        // is a denial of its own, with its URL).
        let mut hop = |from: &Url, to: &Url| -> Result<(), HostError> {
            let hop_shown = quoted(&to.to_string());
            match scope.allow.iter().find(|r| r.allows(to)) {
                Some(rule) => self.allow(
                    grant,
                    operation,
                    &hop_shown,
                    &format!("a redirect from {from}, allowed by {}", rule.url),
                ),
                None => Err(self.deny(
                    grant,
                    operation,
                    &hop_shown,
                    &format!("{from} redirected to {to}, which is not in the allow-list"),
                )),
            }
        };
        let target = &request.target;
        match fetch(
            target,
            request.body.as_deref(),
            scope,
            run_until(),
            &mut hop,
        ) {
            Ok(text) => Ok(Value::str(text)),
            Err(Failure::Refused(e)) => Err(e),
            Err(Failure::At(at, why)) => {
                let at_shown = if *at == *target {
                    shown.to_string()
                } else {
                    quoted(&at.to_string())
                };
                Err(self.failed_once_begun(grant, operation, &at_shown, &why))
            }
        }
    }
}
