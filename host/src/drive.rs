//! Runs a host drives: [`Engine::start`] runs a program under a policy
//! until it performs an operation of a host capability the host chose to
//! see ([`PauseAt`]), and hands it out as a [`Pending`] operation; the
//! host replies ([`Reply`]) and the run goes on to its next pause or its
//! end ([`Step`]). [`Engine::run`] is the same loop with every operation
//! carried out by the engine.
//!
//! Each operation is decided by the policy before anything else
//! ([`crate::policy_host`]): an operation the policy denies is never
//! handed out (its denial is audited and raised as the grant says), so a
//! [`Pending`] operation is one the policy allowed so far, with its rule.
//! The host then lets the engine carry it out ([`Reply::CarryOut`]: its
//! write-ahead audit record, then the act, exactly as in a straight run),
//! answers it itself ([`Reply::Answer`], a JSON value converted to the
//! operation's result type, recorded as answered by the host), fails it
//! ([`Reply::Fail`]: `Fail` at the operation) or refuses it
//! ([`Reply::Refuse`]: a denial, audited).
//!
//! Invariants:
//! - **One path.** A straight run and a driven one decide and carry out
//!   operations through the same policy host, on the same machine
//!   ([`writ_runtime::drive`]); a straight run is a driven run that hands
//!   nothing out.
//! - **Per-run state is the run's.** The store, the recorded responses,
//!   the run's output, operations, audit ids and payments so far travel
//!   with the paused run ([`Pending`]), never with the engine.
//! - **A bad reply consumes nothing.** A reply that does not fit the
//!   operation (`E4010`) is given back with the pending operation
//!   ([`BadReply`]), which can be answered again.
//! - **Time is running time.** The time a run spends handed out is not
//!   counted against its time limit; carrying an operation out after a
//!   pause counts, as in a straight run (see [`writ_runtime::Driver`]).

use std::collections::HashMap;

use writ_lang::Code;
use writ_lang::types::{InputType, operation_result};
use writ_runtime::{Driven, Driver, Handling, HostError, RunError, Usage, Value};

use crate::builtin::BuiltinOp;
use crate::engine::{Compiled, Engine, Operation, Outcome, RunOptions, open_for, unavailable};
use crate::plan::{Plan, PlannedAct, Planning, policy_digest};
use crate::policy::Decision;
use crate::policy::Policy;
use crate::policy_host::{PolicyHost, Ready, clean};
use crate::reads::{Cursor, ReadMode, RecordedRead, Recording, answer_type, replayable};
use crate::snapshot;
use crate::store::Store;

/// Which operations of host capabilities a run started with
/// [`Engine::start`] is handed out at. ([`Engine::run`] hands out none.)
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum PauseAt {
    /// Every operation of a host capability (`Log.info` too).
    #[default]
    Every,
    /// The operations of these capabilities (`"Confirm"`), and these
    /// operations (`"Http.post"`). Each must name a capability of the
    /// engine (built-in or the embedder's) and, after a dot, one of its
    /// operations (else `E4011`, and nothing runs).
    Only(Vec<String>),
}

impl PauseAt {
    fn covers(&self, effect: &str, op: &str) -> bool {
        match self {
            PauseAt::Every => true,
            PauseAt::Only(names) => names.iter().any(|n| match n.split_once('.') {
                Some((e, o)) => e == effect && o == op,
                None => n == effect,
            }),
        }
    }
}

/// Where a run driven by its host stands.
pub enum Step<'a> {
    /// The run ended (with a value or an error): what it did.
    Done(Outcome),
    /// The run performed an operation the host chose to see, and waits
    /// for the host's [`Reply`].
    Paused(Pending<'a>),
}

impl std::fmt::Debug for Step<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Step::Done(o) => f.debug_tuple("Done").field(o).finish(),
            Step::Paused(p) => f.debug_tuple("Paused").field(p).finish(),
        }
    }
}

/// The host's reply to a [`Pending`] operation.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// Let the engine carry the operation out, as a straight run does
    /// (the built-in capability, or the embedder's handler).
    CarryOut,
    /// The operation's result, which the host produced itself: a JSON
    /// value of the operation's result type ([`Pending::answer_type`]),
    /// converted as inputs are. Only for `Clock`, `Confirm`, `Http` and
    /// the embedder's capabilities: `Pay`, `Records`, `Audit` and `Log`
    /// are the store's and the run's own, carried out by the engine.
    Answer(serde_json::Value),
    /// `Fail.fail(message)` where the operation was (the program may
    /// handle it): the operation was allowed but could not be carried out.
    Fail(String),
    /// Refuse the operation for this reason: a denial, audited, that
    /// raises `Fail` or ends the run as the grant's `on_deny` says.
    Refuse(String),
}

/// A reply that does not fit its operation (`E4010`), and the operation,
/// still pending: reply again.
pub struct BadReply<'a> {
    /// Why the reply does not fit.
    pub error: RunError,
    /// The operation, as it was.
    pub pending: Pending<'a>,
}

impl std::fmt::Debug for BadReply<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BadReply")
            .field("error", &self.error)
            .field("pending", &self.pending)
            .finish()
    }
}

/// What a run keeps of its own between operations and pauses.
pub(crate) struct RunState {
    pub(crate) store: Store,
    pub(crate) recorded: Option<HashMap<String, String>>,
    pub(crate) output: Vec<String>,
    pub(crate) operations: Vec<Operation>,
    pub(crate) audit_ids: Vec<i64>,
    pub(crate) paid_this_run: i64,
    pub(crate) used_recorded: bool,
    /// The reads recorded so far ([`ReadMode::Record`]).
    pub(crate) recorded_reads: Vec<RecordedRead>,
    /// Reads of an approved plan's run, performed again, that answered
    /// otherwise than when the plan was made.
    pub(crate) changed_reads: Vec<String>,
    /// The nonce of the snapshot the run was restored from, until the
    /// restored run is first replied to (then written to the store: a
    /// snapshot resumes once).
    pub(crate) restored_from: Option<String>,
}

/// A run under way: what it runs, under which policy, and its state.
pub(crate) struct Run<'a> {
    pub(crate) engine: &'a Engine,
    pub(crate) program: &'a Compiled,
    pub(crate) policy: &'a Policy,
    /// Where it is handed out; `None` for a straight run.
    pub(crate) pause_at: Option<PauseAt>,
    /// Whether its reads are performed, recorded or replayed.
    pub(crate) reads: ReadMode,
    /// Which recorded reads a replay has used.
    pub(crate) cursor: Cursor,
    /// Why it runs, when not for itself (see `PolicyHost::purpose`).
    pub(crate) purpose: Option<String>,
    /// Planning it, or running it as a plan approved it.
    pub(crate) plan: Option<crate::plan::Planning>,
    /// Running an approved plan with its reads performed again: the
    /// plan's recording, to say which reads answered otherwise.
    pub(crate) planned_reads: Option<(std::sync::Arc<Recording>, Cursor)>,
    pub(crate) state: RunState,
}

impl<'a> Run<'a> {
    /// A run of `program` under `policy` with `options`' reads, on `store`,
    /// paused where `pause_at` says, nothing done yet.
    fn new(
        engine: &'a Engine,
        (program, policy): (&'a Compiled, &'a Policy),
        options: &RunOptions,
        pause_at: Option<PauseAt>,
        (store, recorded): (Store, Option<HashMap<String, String>>),
    ) -> Run<'a> {
        Run {
            engine,
            program,
            policy,
            pause_at,
            reads: options.reads.clone(),
            cursor: Cursor::default(),
            purpose: None,
            plan: None,
            planned_reads: None,
            state: RunState {
                store,
                recorded,
                output: Vec::new(),
                operations: Vec::new(),
                audit_ids: Vec::new(),
                paid_this_run: 0,
                used_recorded: false,
                recorded_reads: Vec::new(),
                changed_reads: Vec::new(),
                restored_from: None,
            },
        }
    }

    /// Act as the run's policy host for one piece of work, the run's
    /// state lent to it and taken back after.
    fn with_host<T>(
        &mut self,
        log: &mut dyn FnMut(&str),
        work: impl FnOnce(&mut PolicyHost<'_>) -> T,
    ) -> T {
        let state = &mut self.state;
        let mut host = PolicyHost {
            policy: self.policy,
            module: self.program.module(),
            program: &self.program.hash,
            store: &mut state.store,
            log,
            watch: None,
            confirm: &self.engine.confirm,
            clock: &self.engine.clock,
            capabilities: &self.engine.capabilities,
            output: std::mem::take(&mut state.output),
            operations: std::mem::take(&mut state.operations),
            audit_ids: std::mem::take(&mut state.audit_ids),
            paid_this_run: state.paid_this_run,
            recorded: state.recorded.as_ref(),
            used_recorded: state.used_recorded,
            purpose: self.purpose.as_deref(),
        };
        let result = work(&mut host);
        let PolicyHost {
            output,
            operations,
            audit_ids,
            paid_this_run,
            used_recorded,
            ..
        } = host;
        state.output = output;
        state.operations = operations;
        state.audit_ids = audit_ids;
        state.paid_this_run = paid_this_run;
        state.used_recorded = used_recorded;
        result
    }

    /// The outcome of the run, ended with `result` having used `usage`.
    fn finish(self, result: Result<Value, RunError>, usage: Usage) -> Outcome {
        let module = self.program.module();
        let limits = &self.policy.limits;
        let (result, value) = match result {
            Ok(v) => {
                let display = if v.is_unit() {
                    String::new()
                } else {
                    writ_runtime::display::to_string(
                        &v,
                        module,
                        writ_runtime::display::StrForm::Quoted,
                        limits.output,
                    )
                };
                (Ok(display), Some(v.to_json(module, limits.output)))
            }
            Err(e) => (Err(e), None),
        };
        Outcome {
            result,
            value,
            usage,
            output: self.state.output,
            operations: self.state.operations,
            audit_ids: self.state.audit_ids,
            recorded: self.state.used_recorded,
            reads: self.state.recorded_reads,
            changed_reads: self.state.changed_reads,
        }
    }

    /// The run ended by the host before it ran on, with `error`.
    fn step_done(self, error: Result<Value, RunError>) -> Step<'a> {
        Step::Done(self.finish(error, Usage::default()))
    }

    /// Where a slice of running came to, for the host.
    fn step(self, driven: Driven<'a>, ready: Option<Ready>) -> Step<'a> {
        match (driven, ready) {
            (Driven::Done(result, usage), _) => Step::Done(self.finish(result, usage)),
            (Driven::Paused(paused), Some(ready)) => Step::Paused(Pending {
                paused,
                run: Box::new(self),
                ready,
            }),
            (Driven::Paused(paused), None) => {
                drop(paused);
                let e = RunError::internal("a run handed out at an operation it did not decide");
                Step::Done(self.finish(Err(e), Usage::default()))
            }
        }
    }
}

/// Set `run` up to run as `plan` approved it: `E4014` (nothing run) if the
/// plan is of another program, policy, person or inputs, or was executed
/// already; else the approval's audit record, the plan marked executed,
/// the reads answered from the plan's recording (unless the options say
/// how), and every operation's rule naming the approval.
fn approve(run: &mut Run<'_>, plan: &Plan, options: &RunOptions) -> Result<(), RunError> {
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
    let seq = run
        .state
        .store
        .approve_plan(&digest, &entry)
        .map_err(|e| {
            unavailable(format!(
                "the approval could not be recorded ({e}); nothing was run"
            ))
        })?
        .ok_or_else(|| {
            crate::plan::does_not_apply(format!(
                "expected a plan not executed before, found plan {short}, which was"
            ))
        })?;
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

/// Record in the store that the snapshot `nonce` is resumed: before the
/// restored run carries anything out (its pending operation replied to,
/// or a later one carried out), or once its pending operation is denied
/// by the restoring policy (the denial is audited; a second restore is
/// refused before anything). `E4009` if it was resumed already: of two
/// restores of one snapshot, one goes on.
fn consume(store: &mut Store, nonce: &str) -> Result<(), RunError> {
    match store.mark_resumed(nonce) {
        Ok(true) => Ok(()),
        Ok(false) => Err(snapshot::refused(
            "a snapshot not resumed before",
            "one that was resumed already (each snapshot resumes once)",
        )),
        Err(e) => Err(unavailable(format!(
            "the store could not record that the snapshot is resumed: {e}"
        ))),
    }
}

/// A value as JSON (the mapping of `writ_runtime::json`), `null` past
/// the output limit.
fn json_of(
    v: &Value,
    module: &writ_runtime::Module,
    limits: &writ_runtime::Limits,
) -> serde_json::Value {
    match v.to_json(module, limits.output) {
        Ok(j) => serde_json::from_str(j.as_str()).unwrap_or(serde_json::Value::Null),
        Err(_) => serde_json::Value::Null,
    }
}

/// `E4012`: a replayed run performed a read its recording does not hold.
fn not_recorded(operation: &str, arguments: &[serde_json::Value]) -> RunError {
    let args: Vec<String> = arguments.iter().map(ToString::to_string).collect();
    let shown = clean(&args.join(", "));
    RunError::new(
        Code::ReadNotRecorded,
        format!(
            "expected a read the recording holds, found {operation}({shown}), which it does not (or not as many times)"
        ),
    )
    .with_help("the run was stopped before the read; record the run again (`--record`), or run it live")
}

/// The engine as a [`Driver`]: each operation decided by the policy, then
/// carried out, or (when the run pauses there) handed out ready.
struct Drive<'r, 'a> {
    run: &'r mut Run<'a>,
    log: &'r mut dyn FnMut(&str),
    /// The operation the run was handed out at, decided.
    ready: Option<Ready>,
    /// Carry the next operation out whatever [`Run::pause_at`] says (the
    /// host replied [`Reply::CarryOut`]).
    carry: bool,
    /// Hand the next operation out whatever [`Run::pause_at`] says (a run
    /// restored from a snapshot, at the operation it was paused at).
    hand_out: bool,
}

impl Driver for Drive<'_, '_> {
    fn handle(&mut self, effect: &str, op: &str, args: &[Value]) -> Handling {
        if self.run.plan.is_some()
            && self.run.engine.operation_kind(effect, op) == Some(writ_lang::types::OpKind::Act)
        {
            return self.act(effect, op, args);
        }
        let carry = std::mem::take(&mut self.carry);
        let hand_out = std::mem::take(&mut self.hand_out)
            || (!carry && matches!(&self.run.pause_at, Some(p) if p.covers(effect, op)));
        // A restored run's snapshot is used up before it carries
        // anything out, or once its pending operation is denied (see
        // `consume`); handed out again, it is not used yet.
        let mut nonce = self.run.state.restored_from.take();
        // Reads recorded or replayed (see `crate::reads`).
        let engine = self.run.engine;
        let outside = !matches!(self.run.reads, ReadMode::Live) && replayable(engine, effect, op);
        let reads = if outside {
            self.run.reads.clone()
        } else {
            ReadMode::Live
        };
        let mut cursor = std::mem::take(&mut self.run.cursor);
        let mut recorded = None;
        let limits = &self.run.policy.limits;
        let decided = self.run.with_host(self.log, |host| {
            host.bounded(|host| {
                let ready = host.decide(effect, op, args)?;
                if hand_out {
                    return Ok(Err(ready));
                }
                if let Some(n) = nonce.take() {
                    consume(host.store, &n)?;
                }
                let operation = || format!("{effect}.{op}");
                match &reads {
                    ReadMode::Live => host.complete(ready, args).map(Ok),
                    ReadMode::Record => {
                        let v = host.complete(ready, args)?;
                        recorded = Some(RecordedRead {
                            operation: operation(),
                            arguments: args
                                .iter()
                                .map(|a| json_of(a, host.module, limits))
                                .collect(),
                            answer: json_of(&v, host.module, limits),
                        });
                        Ok(Ok(v))
                    }
                    ReadMode::Replay(recording) => {
                        let arguments: Vec<serde_json::Value> = args
                            .iter()
                            .map(|a| json_of(a, host.module, limits))
                            .collect();
                        let name = operation();
                        let Some(read) = cursor.take(recording, &name, &arguments) else {
                            return Err(HostError::Stop(not_recorded(&name, &arguments)));
                        };
                        let ty = answer_type(engine, effect, op).ok_or_else(|| {
                            RunError::new(
                                Code::AnswerMismatch,
                                format!("the answer of {name} is not data a recording can hold"),
                            )
                        })?;
                        let v = writ_runtime::inputs::value_from_json(
                            host.module,
                            &name,
                            &read.answer,
                            &ty,
                            limits,
                        )
                        .map_err(|mut e| {
                            if e.code == Code::InputMismatch {
                                e.code = Code::AnswerMismatch;
                                e.help = Some(format!(
                                    "the recording's answer must be a {ty}; the run was stopped"
                                ));
                            }
                            e
                        })?;
                        host.answered(ready, v, "replayed from the recording")
                            .map(Ok)
                    }
                }
            })
        });
        self.run.cursor = cursor;
        if let Some(r) = recorded {
            if let Some((planned, cursor)) = &mut self.run.planned_reads {
                let args: Vec<String> = r.arguments.iter().map(ToString::to_string).collect();
                let shown = clean(&format!("{}({})", r.operation, args.join(", ")));
                match cursor.take(planned, &r.operation, &r.arguments) {
                    None => self
                        .run
                        .state
                        .changed_reads
                        .push(format!("{shown} was not read when the plan was made")),
                    Some(p) if p.answer != r.answer => self.run.state.changed_reads.push(format!(
                        "{shown} answered otherwise than when the plan was made"
                    )),
                    Some(_) => {}
                }
            }
            self.run.state.recorded_reads.push(r);
        }
        if let Some(n) = nonce.take() {
            if matches!(decided, Ok(Err(_))) {
                self.run.state.restored_from = Some(n);
            } else if let Err(e) = consume(&mut self.run.state.store, &n) {
                return Handling::Answer(Err(HostError::Stop(e)));
            }
        }
        match decided {
            Ok(Ok(v)) => Handling::Answer(Ok(v)),
            Ok(Err(ready)) => {
                self.ready = Some(ready);
                Handling::HandOut
            }
            Err(e) => Handling::Answer(Err(e)),
        }
    }
}

impl Drive<'_, '_> {
    /// An act of a run making a plan (decided, not performed: simulated)
    /// or running as a plan approved it (carried out only as the plan's
    /// next allowed act).
    fn act(&mut self, effect: &str, op: &str, args: &[Value]) -> Handling {
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
    /// Start running a checked program under `policy`, handed out to the
    /// host at the operations `options.pause_at` names: the run's end, or
    /// its first such operation, pending. As [`Engine::run`], the inputs'
    /// values are converted and checked first and the store opened; if
    /// either fails, or `pause_at` names an operation the engine does not
    /// have (`E4011`), nothing runs.
    ///
    /// ```
    /// use writ_host::engine::{Engine, PauseAt, Reply, RunOptions, Step};
    ///
    /// let engine = Engine::new();
    /// let policy = engine
    ///     .parse_policy("[principal]\nid = \"a\"\nrole = \"r\"\n\n[grants.Log]\n\n[grants.Confirm]\n")
    ///     .expect("a valid policy");
    /// let text = "if Confirm.ask(\"Book it?\") { Log.info(\"booked\")\n 1 } else { 0 }\n";
    /// let program = engine.check(text, &policy).expect("accepted");
    /// let db = std::env::temp_dir().join(format!("writ-start-{}.db", std::process::id()));
    /// let options = RunOptions {
    ///     store: Some(db.display().to_string()),
    ///     pause_at: PauseAt::Only(vec!["Confirm".into()]),
    ///     ..RunOptions::default()
    /// };
    /// let Step::Paused(pending) = engine.start(&program, &policy, &options).expect("started")
    /// else { panic!("expected a pause at Confirm.ask") };
    /// assert_eq!(pending.operation(), "Confirm.ask");
    /// assert_eq!(pending.arguments_json(), serde_json::json!(["Book it?"]));
    /// let Step::Done(outcome) = pending.resume(Reply::Answer(serde_json::json!(true))).expect("fits")
    /// else { panic!("expected the end") };
    /// assert_eq!(outcome.result.ok().as_deref(), Some("1"));
    /// assert_eq!(outcome.output, ["booked"]);
    /// # let _ = std::fs::remove_file(db);
    /// ```
    pub fn start<'a>(
        &'a self,
        program: &'a Compiled,
        policy: &'a Policy,
        options: &RunOptions,
    ) -> Result<Step<'a>, RunError> {
        self.check_pause_at(&options.pause_at)?;
        self.begin(
            program,
            policy,
            options,
            Some(options.pause_at.clone()),
            &mut |_| {},
        )
    }

    /// Run a checked program under `policy` to its end, carrying out
    /// every operation itself (`options.pause_at` is not used), and
    /// writing each `Log.info` line to `log` as it is written. Its inputs'
    /// values ([`RunOptions::inputs`]) are converted and checked first,
    /// then the store is opened (and created, with the policy's seed); if
    /// either fails, nothing runs.
    pub fn run(
        &self,
        program: &Compiled,
        policy: &Policy,
        options: &RunOptions,
        log: &mut dyn FnMut(&str),
    ) -> Result<Outcome, RunError> {
        match self.begin(program, policy, options, None, log)? {
            Step::Done(outcome) => Ok(outcome),
            Step::Paused(_) => Err(RunError::internal("a straight run was handed out")),
        }
    }

    /// Set a run up and run it to its first pause or its end.
    fn begin<'a>(
        &'a self,
        program: &'a Compiled,
        policy: &'a Policy,
        options: &RunOptions,
        pause_at: Option<PauseAt>,
        log: &mut dyn FnMut(&str),
    ) -> Result<Step<'a>, RunError> {
        Ok(self
            .begin_planned(program, policy, options, pause_at, log, false)?
            .0)
    }

    /// [`Engine::begin`], making a plan (`making`) or running as
    /// `options.approved` approved: where the run came to, and its
    /// planning.
    fn begin_planned<'a>(
        &'a self,
        program: &'a Compiled,
        policy: &'a Policy,
        options: &RunOptions,
        pause_at: Option<PauseAt>,
        log: &mut dyn FnMut(&str),
        making: bool,
    ) -> Result<(Step<'a>, Option<Planning>), RunError> {
        let module = program.module();
        let globals = writ_runtime::inputs::from_json(module, &options.inputs, &policy.limits)?;
        let opened = open_for(policy, options)?;
        let mut run = Run::new(self, (program, policy), options, pause_at, opened);
        if making {
            run.plan = Some(Planning::Making { acts: Vec::new() });
            run.reads = ReadMode::Record;
            run.purpose = Some("for a plan".to_string());
        } else if let Some(plan) = &options.approved {
            approve(&mut run, plan, options)?;
        }
        let mut drive = Drive {
            run: &mut run,
            log,
            ready: None,
            carry: false,
            hand_out: false,
        };
        let driven = writ_runtime::drive(module, globals, &policy.limits, None, &mut drive);
        let ready = drive.ready.take();
        let planning = run.plan.take();
        Ok((run.step(driven, ready), planning))
    }

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
            Some(Planning::Making { acts }) => acts,
            _ => Vec::new(),
        };
        Ok(Plan {
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
        })
    }

    /// `E4011` unless every name in `pause_at` is a capability of this
    /// engine, or one of its operations.
    fn check_pause_at(&self, pause_at: &PauseAt) -> Result<(), RunError> {
        let PauseAt::Only(names) = pause_at else {
            return Ok(());
        };
        for name in names {
            let (effect, op) = match name.split_once('.') {
                Some((e, o)) => (e, Some(o)),
                None => (name.as_str(), None),
            };
            let builtin = crate::builtin::Builtin::named(effect).map(|b| b.name());
            let known = match (builtin, op) {
                (Some(_), None) => true,
                (Some(_), Some(o)) => BuiltinOp::of(effect, o).is_some(),
                (None, _) => self.capabilities.iter().any(|c| {
                    c.name == effect
                        && op.is_none_or(|o| operation_result(&c.interface, effect, o).is_some())
                }),
            };
            if !known {
                let mut names: Vec<String> = crate::builtin::Builtin::ALL
                    .iter()
                    .map(|b| b.name().to_string())
                    .collect();
                names.extend(self.capability_names());
                return Err(RunError::new(
                    Code::UnknownPausePoint,
                    format!(
                        "expected a capability ({}) or one of its operations (`Http.post`) to pause at, found `{}`",
                        names.join(", "),
                        crate::policy_host::clean(name)
                    ),
                )
                .with_help("nothing was run; name the capability as the policy grants it"));
            }
        }
        Ok(())
    }
}

/// An operation of a host capability a run is handed out at: the policy
/// allowed it so far; the host replies with [`Pending::resume`]. Dropping
/// it ends the run there (what was carried out before stays carried out
/// and audited).
pub struct Pending<'a> {
    paused: writ_runtime::Paused<'a>,
    /// Boxed: a pending run is moved from pause to pause.
    run: Box<Run<'a>>,
    ready: Ready,
}

impl std::fmt::Debug for Pending<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending")
            .field("operation", &self.operation())
            .field("arguments", &self.arguments())
            .field("rule", &self.rule())
            .finish()
    }
}

impl<'a> Pending<'a> {
    /// The capability (`Confirm`, `Http`, an embedder's).
    pub fn capability(&self) -> &str {
        self.paused.effect()
    }

    /// `Capability.op`, as the audit log names it (`Confirm.ask`).
    pub fn operation(&self) -> &str {
        self.ready.operation.as_ref()
    }

    /// Whether the operation is a read or an act
    /// ([`Engine::operation_kind`]).
    pub fn kind(&self) -> writ_lang::types::OpKind {
        self.run
            .engine
            .operation_kind(self.paused.effect(), self.paused.op())
            .unwrap_or(writ_lang::types::OpKind::Act)
    }

    /// The arguments, as the audit log shows them (escaped, bounded).
    pub fn arguments(&self) -> &str {
        &self.ready.shown
    }

    /// The arguments as values.
    pub fn args(&self) -> &[Value] {
        self.paused.args()
    }

    /// The arguments as a JSON array (the mapping of
    /// [`writ_runtime::json`]; each bounded by the policy's output limit,
    /// an argument past it shown as `null`).
    pub fn arguments_json(&self) -> serde_json::Value {
        let module = self.run.program.module();
        let limit = self.run.policy.limits.output;
        serde_json::Value::Array(
            self.args()
                .iter()
                .map(|a| match a.to_json(module, limit) {
                    Ok(j) => serde_json::from_str(j.as_str()).unwrap_or(serde_json::Value::Null),
                    Err(_) => serde_json::Value::Null,
                })
                .collect(),
        )
    }

    /// The policy's decision so far: the rule that allows the operation
    /// (the person's confirmation of a payment, if the grant asks for one,
    /// comes when it is carried out).
    pub fn rule(&self) -> &str {
        self.ready.rule.as_ref()
    }

    /// The type of the value a [`Reply::Answer`] must hold, or why the
    /// host may not answer this operation itself.
    pub fn answer_type(&self) -> Result<InputType, String> {
        let (effect, op) = (self.paused.effect(), self.paused.op());
        if !self.ready.answerable() {
            return Err(format!(
                "{effect}.{op} is carried out by the engine only (the store or the run holds what it does)"
            ));
        }
        match BuiltinOp::of(effect, op) {
            Some(BuiltinOp::ClockNow) => Ok(InputType::Int),
            Some(BuiltinOp::ConfirmAsk) => Ok(InputType::Bool),
            Some(BuiltinOp::HttpGet | BuiltinOp::HttpPost) => Ok(InputType::Str),
            Some(_) => Err(format!("{effect}.{op} is carried out by the engine only")),
            None => {
                let interface = self
                    .run
                    .engine
                    .capabilities
                    .iter()
                    .find(|c| c.name == effect)
                    .map(|c| c.interface.as_str())
                    .unwrap_or_default();
                match operation_result(interface, effect, op) {
                    Some(Ok(t)) => Ok(t),
                    Some(Err(why)) => Err(format!(
                        "the result of {effect}.{op} is not data the host can give ({why})"
                    )),
                    None => Err(format!(
                        "{effect}.{op} is not in its capability's interface"
                    )),
                }
            }
        }
    }

    /// The lines the run has written so far.
    pub fn output(&self) -> &[String] {
        &self.run.state.output
    }

    /// The operations the run has performed so far, with their decisions
    /// (the pending one is not among them yet).
    pub fn operations(&self) -> &[Operation] {
        &self.run.state.operations
    }

    /// Reply to the operation and continue the run, to its next pause or
    /// its end. A [`Reply::Answer`] that does not fit (the operation may
    /// not be answered by the host, or the value is not of its result
    /// type) is `E4010`, and the operation stays pending ([`BadReply`]).
    pub fn resume(self, reply: Reply) -> Result<Step<'a>, Box<BadReply<'a>>> {
        let answer = match &reply {
            Reply::Answer(json) => match self.convert(json) {
                Ok(v) => Some(v),
                Err(error) => {
                    return Err(Box::new(BadReply {
                        error,
                        pending: self,
                    }));
                }
            },
            _ => None,
        };
        let Pending {
            paused,
            mut run,
            ready,
        } = self;
        if let Some(nonce) = run.state.restored_from.take()
            && let Err(e) = consume(&mut run.state.store, &nonce)
        {
            drop(paused);
            return Ok(run.step_done(Err(e)));
        }
        let mut no_log = |_: &str| {};
        let (driven, ready) = {
            let mut drive = Drive {
                run: &mut run,
                log: &mut no_log,
                ready: None,
                carry: false,
                hand_out: false,
            };
            let driven = match (reply, answer) {
                (Reply::CarryOut, _) => {
                    // The engine carries it out, the run's clock running:
                    // decided again at this moment, as a straight run's is.
                    drive.carry = true;
                    drop(ready);
                    paused.hand_back(&mut drive)
                }
                (Reply::Answer(_), Some(v)) => {
                    let a = drive
                        .run
                        .with_host(drive.log, |h| h.answered(ready, v, "answered by the host"));
                    paused.resume_driven(a, &mut drive)
                }
                (Reply::Fail(message), _) => {
                    let a = drive
                        .run
                        .with_host(drive.log, |h| h.failed(ready, &message));
                    paused.resume_driven(Err(a), &mut drive)
                }
                (Reply::Refuse(reason), _) => {
                    let a = drive
                        .run
                        .with_host(drive.log, |h| h.refused(ready, &reason));
                    paused.resume_driven(Err(a), &mut drive)
                }
                (Reply::Answer(_), None) => {
                    let e = RunError::internal("an answer lost before it was given");
                    paused.resume_driven(Err(HostError::Stop(e)), &mut drive)
                }
            };
            (driven, drive.ready.take())
        };
        Ok(run.step(driven, ready))
    }

    /// The host's JSON answer as the operation's result, or `E4010`.
    fn convert(&self, json: &serde_json::Value) -> Result<Value, RunError> {
        let ty = self.answer_type().map_err(|why| {
            RunError::new(Code::AnswerMismatch, why)
                .with_help("reply CarryOut to let the engine carry it out, or Fail or Refuse it")
        })?;
        let name = format!("{}.{}", self.paused.effect(), self.paused.op());
        let module = self.run.program.module();
        writ_runtime::inputs::value_from_json(module, &name, json, &ty, &self.run.policy.limits)
            .map_err(|mut e| {
                if e.code == Code::InputMismatch {
                    e.code = Code::AnswerMismatch;
                    e.help = Some(format!(
                        "the answer must be a {ty}; the run was not resumed"
                    ));
                }
                e
            })
    }
}

impl Pending<'_> {
    /// The paused run as bytes, to restore later with [`Engine::restore`],
    /// in this process or another (see the `snapshot` module for the
    /// format): the machine's state with its values, frames, handlers and
    /// captured continuations, the limits it has used, the run's output,
    /// operations, audit ids and payments so far, the program's hash and
    /// the principal's id, sealed with the store's key. The bytes hold
    /// what the program read: keep them as the store is kept. At most
    /// about twice the memory limit (else the memory limit's `E5002`).
    ///
    /// Taking a snapshot does not end the run: the pending operation can
    /// still be replied to here (then the snapshot is of a run that went
    /// on elsewhere; each snapshot resumes once).
    pub fn to_bytes(&mut self) -> Result<Vec<u8>, RunError> {
        let runtime = self.paused.to_bytes()?;
        let state = &mut self.run.state;
        let store_error = |e: crate::store::StoreError| {
            unavailable(format!("the snapshot could not be sealed: {e}"))
        };
        let key = state.store.snapshot_key().map_err(store_error)?;
        let nonce = state.store.nonce().map_err(store_error)?;
        let envelope = snapshot::Envelope {
            program: self.run.program.hash.clone(),
            principal: self.run.policy.principal.id.clone(),
            nonce,
            paid_this_run: state.paid_this_run,
            used_recorded: state.used_recorded,
            output: state.output.clone(),
            operations: state.operations.clone(),
            audit_ids: state.audit_ids.clone(),
        };
        Ok(snapshot::seal(&envelope, &runtime, &key))
    }
}

impl Engine {
    /// A run again from the bytes [`Pending::to_bytes`] made of it, with
    /// the same program, under `policy` (the same person's), against the
    /// same store (`options.store`, or the policy's): paused at the
    /// operation it was paused at, decided again by `policy` (an
    /// operation the policy now denies is not handed out: the run goes on
    /// past its denial), then handed out at the operations
    /// `options.pause_at` names. `options.inputs` is not used (the run
    /// has its values). Bytes that are not a snapshot, of another format,
    /// Writ version, program or person, sealed by another store, changed,
    /// cut short, or already resumed are refused (`E4009`), and nothing
    /// runs.
    ///
    /// ```
    /// use writ_host::engine::{Engine, PauseAt, Reply, RunOptions, Step};
    ///
    /// let engine = Engine::new();
    /// let policy = engine
    ///     .parse_policy("[principal]\nid = \"a\"\nrole = \"r\"\n\n[grants.Log]\n\n[grants.Confirm]\n")
    ///     .expect("a valid policy");
    /// let program = engine
    ///     .check("Log.info(\"asking\")\nif Confirm.ask(\"Go?\") { \"went\" } else { \"stayed\" }\n", &policy)
    ///     .expect("accepted");
    /// let db = std::env::temp_dir().join(format!("writ-restore-{}.db", std::process::id()));
    /// let options = RunOptions {
    ///     store: Some(db.display().to_string()),
    ///     pause_at: PauseAt::Only(vec!["Confirm".into()]),
    ///     ..RunOptions::default()
    /// };
    /// let Ok(Step::Paused(mut pending)) = engine.start(&program, &policy, &options)
    /// else { panic!("expected a pause") };
    /// let bytes = pending.to_bytes().expect("a snapshot");
    /// drop(pending);
    ///
    /// // Later, perhaps in another process:
    /// let Ok(Step::Paused(pending)) = engine.restore(&program, &policy, &bytes, &options)
    /// else { panic!("expected the pause again") };
    /// assert_eq!((pending.operation(), pending.output()), ("Confirm.ask", &["asking".to_string()][..]));
    /// let Ok(Step::Done(outcome)) = pending.resume(Reply::Answer(serde_json::json!(true)))
    /// else { panic!("expected the end") };
    /// assert_eq!(outcome.result.ok().as_deref(), Some("\"went\""));
    ///
    /// // A snapshot resumes once.
    /// let refused = engine.restore(&program, &policy, &bytes, &options).unwrap_err();
    /// assert_eq!(refused.code.as_str(), "E4009");
    /// # let _ = std::fs::remove_file(db);
    /// ```
    pub fn restore<'a>(
        &'a self,
        program: &'a Compiled,
        policy: &'a Policy,
        bytes: &[u8],
        options: &RunOptions,
    ) -> Result<Step<'a>, RunError> {
        snapshot::check_kind(bytes)?;
        self.check_pause_at(&options.pause_at)?;
        let (mut store, recorded) = open_for(policy, options)?;
        let key = store
            .snapshot_key()
            .map_err(|e| unavailable(format!("the store's snapshot key could not be read: {e}")))?;
        let (envelope, runtime) = snapshot::open(bytes, &key)?;
        if envelope.program != program.hash {
            return Err(snapshot::refused(
                &format!("a snapshot of this program (hash {})", program.hash),
                &format!("one of another program (hash {})", clean(&envelope.program)),
            ));
        }
        if envelope.principal != policy.principal.id {
            return Err(snapshot::refused(
                &format!("a snapshot of a run for {}", clean(&policy.principal.id)),
                &format!("one of a run for {}", clean(&envelope.principal)),
            ));
        }
        if store.was_resumed(&envelope.nonce).map_err(|e| {
            unavailable(format!(
                "the store could not say whether the snapshot was resumed: {e}"
            ))
        })? {
            return Err(snapshot::refused(
                "a snapshot not resumed before",
                "one that was resumed already (each snapshot resumes once)",
            ));
        }
        let paused = writ_runtime::restore(program.module(), runtime, &policy.limits, None)?;
        let mut run = Run::new(
            self,
            (program, policy),
            options,
            Some(options.pause_at.clone()),
            (store, recorded),
        );
        run.state.output = envelope.output;
        run.state.operations = envelope.operations;
        run.state.audit_ids = envelope.audit_ids;
        run.state.paid_this_run = envelope.paid_this_run;
        run.state.used_recorded = envelope.used_recorded;
        run.state.restored_from = Some(envelope.nonce);
        let mut no_log = |_: &str| {};
        let mut drive = Drive {
            run: &mut run,
            log: &mut no_log,
            ready: None,
            carry: false,
            hand_out: true,
        };
        let driven = paused.hand_back(&mut drive);
        let ready = drive.ready.take();
        Ok(run.step(driven, ready))
    }
}
