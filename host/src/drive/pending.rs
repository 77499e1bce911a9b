//! A pending operation: what the host sees of a run handed out to it,
//! and its reply ([`Pending::resume`]).

use writ_lang::Code;
use writ_lang::types::InputType;
use writ_runtime::{HostError, RunError, Value};

use super::{BadReply, Drive, Reply, Run, Step, consume};
use crate::builtin::BuiltinOp;
use crate::engine::Operation;
use crate::policy_host::Ready;

/// An operation of a host capability a run is handed out at: the policy
/// allowed it so far; the host replies with [`Pending::resume`]. Dropping
/// it ends the run there (what was carried out before stays carried out
/// and audited).
pub struct Pending<'a> {
    pub(super) paused: writ_runtime::Paused<'a>,
    /// Boxed: a pending run is moved from pause to pause.
    pub(super) run: Box<Run<'a>>,
    pub(super) ready: Ready,
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
    /// ([`crate::engine::Engine::operation_kind`]).
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
        let limits = &self.run.policy.limits;
        serde_json::Value::Array(
            self.args()
                .iter()
                .map(|a| super::json_of(a, module, limits))
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
                let result = self
                    .run
                    .engine
                    .capabilities
                    .iter()
                    .find(|c| c.name == effect)
                    .and_then(|c| c.result_of(op));
                match result.as_deref() {
                    Some(Ok(t)) => Ok(t.clone()),
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
                .with_help("let the engine carry it out (`Reply::CarryOut`; `writ resume --carry-out`), or fail or refuse it (`Reply::Fail`, `Reply::Refuse`; `--fail`, `--refuse`)")
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
