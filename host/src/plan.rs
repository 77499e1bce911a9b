//! Plans: what a program is about to do, shown to the person before it is
//! done, and a run that does exactly what the person approved.
//!
//! [`Engine::plan`](crate::engine::Engine::plan) runs a program with its
//! reads performed (as the policy allows, audited `for a plan`) and
//! recorded, and its acts **not performed**: each is decided by the policy
//! as if it were (a denial is audited and raised, and shows in the plan as
//! a denial), then answered with a simulated result that says so (a
//! `Receipt` whose id is `planned-1`). The [`Plan`] holds the program's
//! hash, the policy's digest, the principal, the inputs, the recorded
//! reads, the `Log` lines, and the ordered acts, each with its arguments,
//! decision and digest; [`Plan::words`] says it for a person.
//!
//! A run given the plan as approved ([`RunOptions::approved`]) answers its
//! reads from the plan's recording (so the program makes the same choices)
//! and carries out an act only if it is the next act the plan allowed —
//! same operation, same arguments — consuming it. Anything else (an act
//! not in the plan, other arguments, another order, one more than
//! approved) is stopped before it is carried out (`E4013`), and audited.
//! A plan made for another program, policy or person, or executed before,
//! is refused before anything runs (`E4014`). The approval is an audit
//! record (`Plan.approve`), and every operation of the run refers to it.
//!
//! Invariants: an act is carried out only as the next allowed act of the
//! approved plan, once; the plan's digest covers all it holds, and a plan
//! whose digest does not match its content is refused.
//!
//! [`RunOptions::approved`]: crate::engine::RunOptions::approved

use serde_json::{Value as Json, json};
use writ_lang::Code;
use writ_runtime::RunError;

use crate::policy::{Decision, Policy};
use crate::policy_host::money;
use crate::reads::{RecordedRead, Recording};
use crate::store::sha256_hex;

/// The version of a plan's JSON.
const FORMAT: u64 = 2;

/// One act a plan holds.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedAct {
    /// `Capability.op`.
    pub operation: String,
    /// Its arguments, as JSON values.
    pub arguments: Vec<Json>,
    /// Its arguments as the audit log shows them.
    pub shown: String,
    /// What the policy decided.
    pub decision: Decision,
    /// The rule that decided.
    pub rule: String,
    /// The SHA-256 of its operation and arguments.
    pub digest: String,
}

impl PlannedAct {
    /// The act `operation(arguments)`, its digest computed.
    pub(crate) fn new(
        operation: String,
        arguments: Vec<Json>,
        shown: String,
        decision: Decision,
        rule: String,
    ) -> PlannedAct {
        let digest = act_digest(&operation, &arguments);
        PlannedAct {
            operation,
            arguments,
            shown,
            decision,
            rule,
            digest,
        }
    }
}

/// The SHA-256 of a read: its operation, arguments and answer.
fn read_digest(r: &RecordedRead) -> String {
    sha256_hex(
        json!({ "operation": r.operation, "arguments": r.arguments, "answer": r.answer })
            .to_string()
            .as_bytes(),
    )
}

fn act_digest(operation: &str, arguments: &[Json]) -> String {
    sha256_hex(
        json!({ "operation": operation, "arguments": arguments })
            .to_string()
            .as_bytes(),
    )
}

/// What a program would do: made by `Engine::plan`, shown to the person,
/// approved, and run with `RunOptions::approved`.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// This plan's own identifier, made when it is made: two plans of the
    /// same program, policy, person and inputs, the same in all else, are
    /// two approvals (each executes once).
    pub id: String,
    /// The SHA-256 of the program's text.
    pub program: String,
    /// The policy's digest ([`policy_digest`]).
    pub policy: String,
    /// Whom the program runs for.
    pub principal: String,
    /// The inputs' values.
    pub inputs: serde_json::Map<String, Json>,
    /// The reads performed, with their answers.
    pub reads: Vec<RecordedRead>,
    /// The lines the program wrote.
    pub log: Vec<String>,
    /// The acts, in order, with the policy's decisions.
    pub acts: Vec<PlannedAct>,
    /// How the planned run ended: the final value's display, or the
    /// error's code and message.
    pub result: Result<String, String>,
}

/// A new plan's identifier: 32 hex digits, different for each plan made
/// (the time, the process, a count and the process's hashing seed, hashed).
pub(crate) fn fresh_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    static MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let count = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut seed = std::collections::hash_map::RandomState::new().build_hasher();
    seed.write_u64(count);
    let now = writ_runtime::clock::SystemTime::now()
        .duration_since(writ_runtime::clock::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    // A web page has no process id (the standard library panics when
    // asked); there the time, the count and the seed make it.
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    let process = std::process::id();
    #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
    let process = 0u32;
    let text = format!("{now}:{process}:{count}:{}", seed.finish());
    let digest = sha256_hex(text.as_bytes());
    digest.get(..32).unwrap_or(&digest).to_string()
}

/// The digest of a policy: what it grants, to whom, under which limits
/// and store (not where its file is).
pub fn policy_digest(policy: &Policy) -> String {
    let text = format!(
        "{:?}|{:?}|{:?}|{:?}",
        policy.principal, policy.limits, policy.store, policy.grants
    );
    sha256_hex(text.as_bytes())
}

impl Plan {
    /// The plan as JSON (the schema of docs/embedding.md), its `digest`
    /// included.
    pub fn to_json(&self) -> Json {
        let mut doc = self.body();
        if let Json::Object(m) = &mut doc {
            m.insert("digest".into(), Json::String(self.digest()));
        }
        doc
    }

    /// Everything the plan holds but its digest.
    fn body(&self) -> Json {
        json!({
            "format": FORMAT,
            "id": self.id,
            "program": self.program,
            "policy": self.policy,
            "principal": self.principal,
            "inputs": self.inputs,
            "reads": self.reads.iter().map(|r| json!({
                "operation": r.operation,
                "arguments": r.arguments,
                "answer": r.answer,
                "digest": read_digest(r),
            })).collect::<Vec<_>>(),
            "log": self.log,
            "acts": self.acts.iter().map(|a| json!({
                "operation": a.operation,
                "arguments": a.arguments,
                "shown": a.shown,
                "decision": a.decision.as_str(),
                "rule": a.rule,
                "digest": a.digest,
            })).collect::<Vec<_>>(),
            "result": match &self.result {
                Ok(v) => json!({ "ok": v }),
                Err(e) => json!({ "error": e }),
            },
        })
    }

    /// The SHA-256 of everything the plan holds: what an approval names.
    pub fn digest(&self) -> String {
        sha256_hex(self.body().to_string().as_bytes())
    }

    /// A plan from its JSON, or what is wrong with it: a malformed field,
    /// an act whose digest does not match it, or a `digest` that does not
    /// match the plan (it was changed after it was made).
    pub fn from_json(doc: &Json) -> Result<Plan, String> {
        if doc.get("format").and_then(Json::as_u64) != Some(FORMAT) {
            return Err(format!(
                "expected a plan of format {FORMAT} (`\"format\": {FORMAT}`)"
            ));
        }
        let text = |k: &str| -> Result<String, String> {
            doc.get(k)
                .and_then(Json::as_str)
                .map(str::to_string)
                .ok_or_else(|| format!("expected the plan's `{k}` as text"))
        };
        let inputs = match doc.get("inputs") {
            Some(Json::Object(m)) => m.clone(),
            _ => return Err("expected the plan's `inputs` as an object".into()),
        };
        let reads = Recording::from_json(
            &json!({ "format": 1, "reads": doc.get("reads").cloned().unwrap_or(Json::Null) }),
        )?
        .reads;
        let digests = doc
            .get("reads")
            .and_then(Json::as_array)
            .cloned()
            .unwrap_or_default();
        for (i, (r, d)) in reads.iter().zip(&digests).enumerate() {
            if d.get("digest").and_then(Json::as_str) != Some(read_digest(r).as_str()) {
                return Err(format!(
                    "expected read {i}'s digest to be its operation's, arguments' and answer's, found another"
                ));
            }
        }
        let log = doc
            .get("log")
            .and_then(Json::as_array)
            .ok_or("expected the plan's `log` as a list")?
            .iter()
            .map(|l| {
                l.as_str()
                    .map(str::to_string)
                    .ok_or("expected each `log` line as text")
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut acts = Vec::new();
        for (i, a) in doc
            .get("acts")
            .and_then(Json::as_array)
            .ok_or("expected the plan's `acts` as a list")?
            .iter()
            .enumerate()
        {
            let field = |k: &str| a.get(k).and_then(Json::as_str).map(str::to_string);
            let decision = match a.get("decision").and_then(Json::as_str) {
                Some("allowed") => Decision::Allowed,
                Some("denied") => Decision::Denied,
                _ => {
                    return Err(format!(
                        "expected act {i}'s `decision`, `allowed` or `denied`"
                    ));
                }
            };
            let (Some(operation), Some(arguments), Some(shown), Some(rule), Some(digest)) = (
                field("operation"),
                a.get("arguments").and_then(Json::as_array).cloned(),
                field("shown"),
                field("rule"),
                field("digest"),
            ) else {
                return Err(format!(
                    "expected act {i} to hold its `operation`, `arguments`, `shown`, `rule` and `digest`"
                ));
            };
            let act = PlannedAct::new(operation, arguments, shown, decision, rule);
            if act.digest != digest {
                return Err(format!(
                    "expected act {i}'s digest to be its operation's and arguments', found another"
                ));
            }
            acts.push(act);
        }
        let result = match doc.get("result") {
            Some(r) => match (
                r.get("ok").and_then(Json::as_str),
                r.get("error").and_then(Json::as_str),
            ) {
                (Some(v), _) => Ok(v.to_string()),
                (None, Some(e)) => Err(e.to_string()),
                _ => return Err("expected the plan's `result`, `ok` or `error`".into()),
            },
            None => return Err("expected the plan's `result`".into()),
        };
        let plan = Plan {
            id: text("id")?,
            program: text("program")?,
            policy: text("policy")?,
            principal: text("principal")?,
            inputs,
            reads,
            log,
            acts,
            result,
        };
        let digest = text("digest")?;
        if plan.digest() != digest {
            return Err("expected the plan's `digest` to be its content's, found another: the plan was changed after it was made".into());
        }
        Ok(plan)
    }

    /// The plan in words, a line each: the acts (`Pay 389.00 EUR to
    /// air-one.example ("flight A1-318")`), the totals per capability, and
    /// what was read.
    pub fn words(&self, policy: &Policy) -> Vec<String> {
        let mut lines = Vec::new();
        let allowed: Vec<&PlannedAct> = self
            .acts
            .iter()
            .filter(|a| a.decision == Decision::Allowed)
            .collect();
        if allowed.is_empty() {
            lines.push("It does nothing that needs approving.".to_string());
        } else {
            lines.push("It will, in this order (approve all or none):".to_string());
        }
        for (i, a) in allowed.iter().enumerate() {
            lines.push(format!("  {}. {}", i + 1, act_words(a, policy)));
        }
        let mut paid = 0i128;
        let mut payments = 0;
        for a in &allowed {
            if a.operation == "Pay.pay" {
                paid += i128::from(a.arguments.get(1).and_then(Json::as_i64).unwrap_or(0));
                payments += 1;
            }
        }
        if payments > 0 {
            let cur = pay_currency(policy);
            lines.push(format!(
                "  In all: {} {cur} in {payments} payment{}.",
                money(paid),
                if payments == 1 { "" } else { "s" }
            ));
        }
        // The other capabilities' acts, counted by capability.
        let mut others: Vec<(&str, usize)> = Vec::new();
        for a in &allowed {
            let cap = a
                .operation
                .split_once('.')
                .map_or(a.operation.as_str(), |(c, _)| c);
            if cap == "Pay" {
                continue;
            }
            match others.iter_mut().find(|(c, _)| *c == cap) {
                Some((_, n)) => *n += 1,
                None => others.push((cap, 1)),
            }
        }
        for (cap, n) in others {
            lines.push(format!(
                "  In all: {n} {cap} act{}.",
                if n == 1 { "" } else { "s" }
            ));
        }
        for a in self.acts.iter().filter(|a| a.decision == Decision::Denied) {
            lines.push(format!(
                "Denied by the policy (not approvable): {}({}): {}",
                a.operation, a.shown, a.rule
            ));
        }
        if !self.reads.is_empty() {
            lines.push(format!("It read, to decide ({}):", self.reads.len()));
            for r in &self.reads {
                let args: Vec<String> = r.arguments.iter().map(ToString::to_string).collect();
                lines.push(format!(
                    "  {}({})",
                    r.operation,
                    crate::policy_host::clean(&args.join(", "))
                ));
            }
        }
        lines
    }
}

fn pay_currency(policy: &Policy) -> String {
    match policy.grants.get("Pay").map(|g| &g.scope) {
        Some(crate::policy::Scope::Pay(s)) => s.currency.clone(),
        _ => String::new(),
    }
}

/// One act in words.
fn act_words(a: &PlannedAct, policy: &Policy) -> String {
    let text = |i: usize| {
        crate::policy_host::clean(a.arguments.get(i).and_then(Json::as_str).unwrap_or(""))
    };
    match a.operation.as_str() {
        "Pay.pay" => format!(
            "Pay {} {} to {} (\"{}\")",
            money(a.arguments.get(1).and_then(Json::as_i64).unwrap_or(0)),
            pay_currency(policy),
            text(0),
            text(2)
        ),
        "Http.post" => format!(
            "Post {} bytes to {}",
            a.arguments
                .get(1)
                .and_then(Json::as_str)
                .map_or(0, str::len),
            text(0)
        ),
        _ => format!("{}({})", a.operation, a.shown),
    }
}

/// Making a plan, or running as one approved it.
pub(crate) enum Planning {
    /// Making a plan: the acts so far.
    Making {
        /// The acts decided so far.
        acts: PlannedActs,
    },
    /// Running as approved.
    Approved {
        /// The acts the plan allowed, in order.
        acts: Vec<PlannedAct>,
        /// How many of them are carried out.
        next: usize,
    },
}

/// `E4013`: an act the approved plan does not hold next.
pub(crate) fn deviation(operation: &str, shown: &str, expected: Option<&PlannedAct>) -> RunError {
    let expected = match expected {
        Some(a) => format!("{}({})", a.operation, a.shown),
        None => "no more acts".to_string(),
    };
    RunError::new(
        Code::PlanDeviation,
        format!(
            "expected the approved plan's next act, {expected}, found {operation}({}), which the plan does not approve there",
            crate::policy_host::clean(shown)
        ),
    )
    .with_help("nothing of it was carried out, and it is in the audit log; make a new plan and approve it")
}

/// `E4014`: a plan that does not apply to this run.
pub(crate) fn does_not_apply(why: String) -> RunError {
    RunError::new(Code::PlanNotApplicable, why).with_help(
        "nothing was run; make a new plan of this program under this policy, and approve it",
    )
}

/// The acts of a plan being made, with how many are allowed and the
/// bytes they take: the host keeps them, so they are bounded by the run's
/// memory limit.
#[derive(Debug, Default)]
pub(crate) struct PlannedActs {
    /// The acts, in order.
    pub(crate) acts: Vec<PlannedAct>,
    allowed: usize,
    bytes: usize,
    /// The cents of the payments allowed so far: each later payment is
    /// decided as if they had been made, against the caps per run and
    /// per day (the run the plan is approved for makes them).
    cents: i64,
}

impl PlannedActs {
    /// Keep `act`, or end the run (`E5002`) if the acts would take more
    /// than `max` bytes.
    fn push(&mut self, act: PlannedAct, max: usize) -> Result<(), writ_runtime::HostError> {
        let bytes = act.operation.len()
            + act.shown.len()
            + act.rule.len()
            + act
                .arguments
                .iter()
                .map(|a| a.to_string().len())
                .sum::<usize>();
        let total = self.bytes.saturating_add(bytes);
        if total > max {
            return Err(writ_runtime::HostError::Stop(RunError::limit(
                writ_runtime::Limit::Memory,
                max as u64,
                format!(
                    "expected the plan's acts to take at most {max} bytes (the memory limit), but {} would take {total}",
                    act.operation
                ),
            )));
        }
        self.bytes = total;
        if act.decision == Decision::Allowed {
            self.allowed += 1;
        }
        self.acts.push(act);
        Ok(())
    }
}

/// An act of a run making a plan: decided by the policy (a denial is
/// audited and raised, and kept in `acts` as denied), then answered with a
/// simulated result and kept in `acts` as allowed. Nothing is carried out.
pub(crate) fn plan_act(
    host: &mut crate::policy_host::PolicyHost<'_>,
    (effect, op, args): (&str, &str, &[writ_runtime::Value]),
    acts: &mut PlannedActs,
    arguments: Vec<Json>,
) -> Result<writ_runtime::Value, writ_runtime::HostError> {
    let max = host.policy.limits.memory;
    host.planned_cents = acts.cents;
    let decided = host.decide(effect, op, args);
    host.planned_cents = 0;
    let ready = match decided {
        Ok(r) => r,
        Err(e) => {
            let (shown, rule) = host
                .operations
                .last()
                .map(|o| (o.arguments.clone(), o.rule.clone()))
                .unwrap_or_default();
            let act = PlannedAct::new(
                format!("{effect}.{op}"),
                arguments,
                shown,
                Decision::Denied,
                rule,
            );
            acts.push(act, max)?;
            return Err(e);
        }
    };
    let v = host.simulated(&ready, acts.allowed + 1)?;
    acts.cents = acts.cents.saturating_add(ready.cents());
    let act = PlannedAct::new(
        ready.operation.to_string(),
        arguments,
        ready.shown.clone(),
        Decision::Allowed,
        ready.rule.to_string(),
    );
    acts.push(act, max)?;
    Ok(v)
}
