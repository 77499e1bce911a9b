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
//! By concept: [`pending`] (what the host sees of a run handed out, and
//! its reply), [`plans`] (making a plan, and running as one approved it),
//! [`restore`] (saving a pending run and restoring it).
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

mod pending;
mod plans;
mod restore;

pub use pending::Pending;
use plans::approve;
use restore::consume;

use std::collections::HashMap;

use writ_lang::Code;
use writ_runtime::{Driven, Driver, Handling, HostError, RunError, Usage, Value};

use crate::builtin::BuiltinOp;
use crate::engine::{Compiled, Engine, Operation, Outcome, RunOptions};
use crate::plan::Planning;
use crate::policy::Policy;
use crate::policy_host::{PolicyHost, Ready, clean};
use crate::reads::{Cursor, ReadMode, RecordedRead, Recording, answer_type, replayable};
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
    /// The bytes of the recorded reads' JSON so far: the host keeps them,
    /// so they are bounded by the run's memory limit.
    pub(crate) recorded_bytes: usize,
    /// Reads of an approved plan's run, performed again, that answered
    /// otherwise than when the plan was made.
    pub(crate) changed_reads: Vec<String>,
    /// The nonce of the snapshot the run was restored from, until the
    /// restored run is first replied to (then written to the store: a
    /// snapshot resumes once).
    pub(crate) restored_from: Option<String>,
    /// The store's path and file, when its connection may be kept by the
    /// engine for its next runs once this one ends.
    pub(crate) kept_as: Option<(String, crate::engine::FileId)>,
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
                recorded_bytes: 0,
                changed_reads: Vec::new(),
                restored_from: None,
                kept_as: None,
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
            planned_cents: 0,
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
            Ok(v) => (
                writ_runtime::display::result_text(&v, module, limits.output),
                Some(v.to_json(module, limits.output)),
            ),
            Err(e) => (Err(e), None),
        };
        if let Some((path, id)) = self.state.kept_as {
            self.engine.idle.put(path, id, self.state.store);
        }
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

/// A value as JSON (the mapping of `writ_runtime::json`), `null` past
/// the output limit.
pub(crate) fn json_of(
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
                        // The policy's rules on answers hold for a
                        // recorded one (`policy_host::replay`).
                        let answer = host.replay_answer(&ready, &read.answer)?;
                        let v = writ_runtime::inputs::value_from_json(
                            host.module,
                            &name,
                            &answer,
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
            // What the host keeps of a recording is the run's to bound:
            // past its memory limit, the run ends (E5002).
            let bytes = r.answer.to_string().len()
                + r.arguments
                    .iter()
                    .map(|a| a.to_string().len())
                    .sum::<usize>();
            let total = self.run.state.recorded_bytes.saturating_add(bytes);
            let max = self.run.policy.limits.memory;
            if total > max {
                return Handling::Answer(Err(HostError::Stop(RunError::limit(
                    writ_runtime::Limit::Memory,
                    max as u64,
                    format!(
                        "expected the recorded reads to take at most {max} bytes (the memory limit), but {} would take {total}",
                        r.operation
                    ),
                ))));
            }
            self.run.state.recorded_bytes = total;
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
        let (store, recorded, kept_as) = self.open_store(policy, options)?;
        let mut run = Run::new(
            self,
            (program, policy),
            options,
            pause_at,
            (store, recorded),
        );
        run.state.kept_as = kept_as;
        if making {
            run.plan = Some(Planning::Making {
                acts: crate::plan::PlannedActs::default(),
            });
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
        let driven = writ_runtime::drive(
            module,
            globals,
            &policy.limits,
            options.cancel.as_ref(),
            &mut drive,
        );
        let ready = drive.ready.take();
        // The plan being made comes back beside the run's end (a run
        // making a plan is never handed out). An approved plan stays with
        // the run: handed out and resumed, the run is still bound to it.
        let planning = if making { run.plan.take() } else { None };
        Ok((run.step(driven, ready), planning))
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
                (None, _) => self
                    .capabilities
                    .iter()
                    .any(|c| c.name == effect && op.is_none_or(|o| c.result_of(o).is_some())),
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
