//! Plans in the engine: making one (`Engine::plan`: reads performed and
//! recorded, acts decided and simulated, see [`crate::plan`]) and running
//! as one approved it (`approve`, and each act checked by `Drive::act`
//! against the plan's next allowed act before it is carried out).

use writ_runtime::{Handling, RunError, Value};

use super::{Drive, Run, Step, json_of};
use crate::engine::{Compiled, Engine, RunOptions, unavailable};
use crate::plan::{Plan, PlannedAct, Planning, policy_digest};
use crate::policy::{Decision, Policy};
use crate::policy_host::clean;
use crate::reads::{Cursor, ReadMode, Recording};
use crate::store::Approval;

/// Set `run` up to run as `plan` approved it: `E4014` (nothing run) if the
/// plan is of another program, policy, person or inputs, or was executed
/// already; else the approval's audit record, the plan marked executed,
/// the reads answered from the plan's recording (unless the options say
/// how), and every operation's rule naming the approval.
pub(super) fn approve(
    run: &mut Run<'_>,
    plan: &Plan,
    options: &RunOptions,
) -> Result<(), RunError> {
    let digest = plan.digest();
    let short = digest.get(..12).unwrap_or(&digest);
    let mismatch = if plan.program != run.program.hash {
        Some(format!(
            "expected a plan of this program (hash {}), found one of another (hash {})",
            run.program.hash,
            clean(&plan.program)
        ))
    } else if plan.policy != policy_digest(run.policy) {
        Some("expected a plan made under this policy, found one made under another (or this one since changed)".to_string())
    } else if plan.principal != run.policy.principal.id {
        Some(format!(
            "expected a plan for {}, found one for {}",
            clean(&run.policy.principal.id),
            clean(&plan.principal)
        ))
    } else if plan.inputs != options.inputs {
        Some(
            "expected a plan made with these inputs' values, found one made with others"
                .to_string(),
        )
    } else {
        None
    };
    if let Some(why) = mismatch {
        return Err(crate::plan::does_not_apply(why));
    }
    let allowed: Vec<PlannedAct> = plan
        .acts
        .iter()
        .filter(|a| a.decision == Decision::Allowed)
        .cloned()
        .collect();
    let rule = format!(
        "approved by {}: {} act{}",
        clean(&run.policy.principal.id),
        allowed.len(),
        if allowed.len() == 1 { "" } else { "s" }
    );
    let entry = crate::store::Entry {
        principal: &run.policy.principal.id,
        program: &run.program.hash,
        operation: "Plan.approve",
        arguments: &digest,
        decision: Decision::Allowed,
        rule: &rule,
    };
    let approval = run.state.store.approve_plan(&digest, &entry).map_err(|e| {
        unavailable(format!(
            "the approval could not be recorded ({e}); nothing was run"
        ))
    })?;
    let seq = match approval {
        Approval::Recorded(seq) => seq,
        Approval::Executed => {
            return Err(crate::plan::does_not_apply(format!(
                "expected a plan not executed before, found plan {short}, executed already (a plan executes once)"
            )));
        }
        Approval::NotMadeHere => {
            return Err(crate::plan::does_not_apply(format!(
                "expected a plan made on this store, found plan {short}, made on another (a plan is approved on the store it was made on, and executes once there)"
            )));
        }
    };
    run.state.audit_ids.push(seq);
    run.purpose = Some(format!("as approved in plan {short} (audit #{seq})"));
    run.plan = Some(Planning::Approved {
        acts: allowed,
        next: 0,
    });
    let recording = std::sync::Arc::new(Recording {
        reads: plan.reads.clone(),
    });
    match options.reads {
        ReadMode::Live => run.reads = ReadMode::Replay(recording),
        ReadMode::Record => run.planned_reads = Some((recording, Cursor::default())),
        ReadMode::Replay(_) => {}
    }
    Ok(())
}

impl Drive<'_, '_> {
    /// An act of a run making a plan (decided, not performed: simulated)
    /// or running as a plan approved it (carried out only as the plan's
    /// next allowed act).
    pub(super) fn act(&mut self, effect: &str, op: &str, args: &[Value]) -> Handling {
        let limits = self.run.policy.limits.clone();
        let mut planning = self.run.plan.take();
        let result = self.run.with_host(self.log, |host| {
            host.bounded(|host| {
                let arguments: Vec<serde_json::Value> = args
                    .iter()
                    .map(|a| json_of(a, host.module, &limits))
                    .collect();
                if let Some(Planning::Making { acts }) = &mut planning {
                    return crate::plan::plan_act(host, (effect, op, args), acts, arguments);
                }
                let ready = host.decide(effect, op, args)?;
                match &mut planning {
                    Some(Planning::Approved { acts, next }) => match acts.get(*next) {
                        Some(a) if a.operation == ready.operation && a.arguments == arguments => {
                            *next += 1;
                            host.complete(ready, args)
                        }
                        expected => Err(host.deviated(&ready, expected)),
                    },
                    _ => host.complete(ready, args),
                }
            })
        });
        self.run.plan = planning;
        Handling::Answer(result)
    }
}

impl Engine {
    /// Run a checked program under `policy` as a plan: its reads performed
    /// (as the policy allows, audited `for a plan`) and recorded, its acts
    /// decided by the policy but not performed, each answered with a
    /// simulated result (see the `plan` module). The plan says what the
    /// program would do, for the person to approve; run it approved with
    /// [`RunOptions::approved`]. `options.pause_at` and `options.approved`
    /// are not used.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use writ_host::engine::{Engine, RunOptions};
    ///
    /// let engine = Engine::new();
    /// let policy = engine
    ///     .parse_policy("[principal]\nid = \"ada\"\nrole = \"r\"\n\n[grants.Pay]\npayees = [\"air-one.example\"]\ncurrency = \"EUR\"\nmax_payment_cents = 50000\n")
    ///     .expect("a valid policy");
    /// let program = engine
    ///     .check("let r = Pay.pay(\"air-one.example\", 38900, \"flight A1-318\")\nr.id\n", &policy)
    ///     .expect("accepted");
    /// let db = std::env::temp_dir().join(format!("writ-plan-doc-{}.db", std::process::id()));
    /// let options = RunOptions { store: Some(db.display().to_string()), ..RunOptions::default() };
    ///
    /// let plan = engine.plan(&program, &policy, &options).expect("planned");
    /// assert_eq!(plan.result.as_deref(), Ok("\"planned-1\""));
    /// assert_eq!(plan.words(&policy)[1], "  1. Pay 389.00 EUR to air-one.example (\"flight A1-318\")");
    ///
    /// // The person approves it: the run pays exactly that, once.
    /// let approved = RunOptions { approved: Some(Arc::new(plan)), ..options.clone() };
    /// let outcome = engine.run(&program, &policy, &approved, &mut |_| {}).expect("ran");
    /// assert_eq!(outcome.result.ok().as_deref(), Some("\"pay-1\""));
    /// let again = engine.run(&program, &policy, &approved, &mut |_| {}).unwrap_err();
    /// assert_eq!(again.code.as_str(), "E4014");
    /// # let _ = std::fs::remove_file(db);
    /// ```
    pub fn plan(
        &self,
        program: &Compiled,
        policy: &Policy,
        options: &RunOptions,
    ) -> Result<Plan, RunError> {
        let (step, planning) =
            self.begin_planned(program, policy, options, None, &mut |_| {}, true)?;
        let Step::Done(outcome) = step else {
            return Err(RunError::internal("a plan's run was handed out"));
        };
        let acts = match planning {
            Some(Planning::Making { acts }) => acts.acts,
            _ => Vec::new(),
        };
        let plan = Plan {
            id: crate::plan::fresh_id(),
            program: program.hash.clone(),
            policy: policy_digest(policy),
            principal: policy.principal.id.clone(),
            inputs: options.inputs.clone(),
            reads: outcome.reads,
            log: outcome.output,
            acts,
            result: outcome
                .result
                .map_err(|e| format!("{}: {}", e.code.as_str(), e.message)),
        };
        // The store the plan was made on records it: only there is it
        // approved (once).
        let (mut store, _, kept_as) = self.open_store(policy, options)?;
        let recorded = store.record_plan(&plan.digest());
        if let Some((path, id)) = kept_as {
            self.idle.put(path, id, store);
        }
        recorded.map_err(|e| {
            unavailable(format!(
                "the plan could not be recorded in the store ({e}); it cannot be approved"
            ))
        })?;
        Ok(plan)
    }
}
