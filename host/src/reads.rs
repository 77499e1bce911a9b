//! Recording a run's reads, and replaying them: a run under
//! [`ReadMode::Record`] keeps the answer of every read that comes from
//! outside the run (`Http.get`, `Records.read`, `Records.list`,
//! `Clock.now`, `Confirm.ask`, and an embedder's declared reads) in
//! [`Outcome::reads`](crate::engine::Outcome::reads); a run under
//! [`ReadMode::Replay`] answers those reads from such a [`Recording`]
//! instead of performing them, so that an agent's script can be tested
//! deterministically and a lab reproduced.
//!
//! Invariants:
//! - **The policy still decides.** A replayed read is decided by the
//!   policy as a performed one is (a read out of scope is denied, not
//!   replayed), and audited when its grant audits, its rule saying it was
//!   replayed.
//! - **A read is found, or the run stops.** Reads are matched by operation
//!   and arguments, in order among equal ones (the first unused); a read
//!   the recording does not hold ends the run with `E4012` before anything
//!   else is done. Acts, `Log` and `Audit` are never replayed.
//! - **Typed.** A recorded answer is converted to the operation's result
//!   type as a host's answer is; one that does not fit is `E4010`.
//! - **Bounded.** A recording is read from text the host bounds; each
//!   answer is converted under the run's limits; finding a read's answer
//!   is a lookup in an index built once, never a scan of the recording.

use std::collections::{HashMap, VecDeque};

use serde_json::{Value as Json, json};
use writ_lang::types::{InputType, OpKind};

use crate::engine::Engine;

/// Which reads of a run come from outside it, and how.
#[derive(Clone, Debug, Default)]
pub enum ReadMode {
    /// Performed (the default).
    #[default]
    Live,
    /// Performed, and each answer kept in the outcome's `reads`.
    Record,
    /// Answered from this recording, not performed.
    Replay(std::sync::Arc<Recording>),
}

/// One read and its answer.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedRead {
    /// `Capability.op`.
    pub operation: String,
    /// Its arguments, as JSON values.
    pub arguments: Vec<Json>,
    /// Its answer, as JSON (the mapping of `writ_runtime::json`).
    pub answer: Json,
}

/// The reads of a run, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recording {
    /// The reads.
    pub reads: Vec<RecordedRead>,
}

/// The version of a recording's JSON.
const FORMAT: u64 = 1;

impl Recording {
    /// The recording as JSON:
    /// `{"format": 1, "reads": [{"operation", "arguments", "answer"}]}`.
    pub fn to_json(&self) -> Json {
        json!({
            "format": FORMAT,
            "reads": self.reads.iter().map(|r| json!({
                "operation": r.operation,
                "arguments": r.arguments,
                "answer": r.answer,
            })).collect::<Vec<_>>(),
        })
    }

    /// A recording from its JSON, or what is wrong with it.
    pub fn from_json(doc: &Json) -> Result<Recording, String> {
        let format = doc.get("format").and_then(Json::as_u64);
        if format != Some(FORMAT) {
            return Err(format!(
                "expected a recording of reads of format {FORMAT} (`\"format\": {FORMAT}`), found {}",
                doc.get("format")
                    .map_or("none".to_string(), ToString::to_string)
            ));
        }
        let Some(list) = doc.get("reads").and_then(Json::as_array) else {
            return Err("expected a list `reads`, found none".to_string());
        };
        let mut reads = Vec::with_capacity(list.len());
        for (i, r) in list.iter().enumerate() {
            let operation = r.get("operation").and_then(Json::as_str);
            let arguments = r.get("arguments").and_then(Json::as_array);
            let answer = r.get("answer");
            match (operation, arguments, answer) {
                (Some(o), Some(a), Some(answer)) if o.contains('.') => reads.push(RecordedRead {
                    operation: o.to_string(),
                    arguments: a.clone(),
                    answer: answer.clone(),
                }),
                _ => {
                    return Err(format!(
                        "expected read {i} to hold an `operation` (`Http.get`), its `arguments` (a list) and its `answer`, found {}",
                        short(r)
                    ));
                }
            }
        }
        Ok(Recording { reads })
    }
}

fn short(j: &Json) -> String {
    let t = j.to_string();
    match t.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &t[..at]),
        None => t,
    }
}

/// Whether `effect.op` is a read whose answer comes from outside the run
/// (recorded and replayed): every read but `Log.info` and `Audit.note`,
/// which write the run's own output and the host's log.
pub(crate) fn replayable(engine: &Engine, effect: &str, op: &str) -> bool {
    engine.operation_kind(effect, op) == Some(OpKind::Read)
        && !matches!((effect, op), ("Log", "info") | ("Audit", "note"))
}

/// The data type of `effect.op`'s answer, as a recording holds it.
pub(crate) fn answer_type(engine: &Engine, effect: &str, op: &str) -> Option<InputType> {
    let s = || Box::new(InputType::Str);
    match (effect, op) {
        ("Http", _) => Some(InputType::Str),
        ("Clock", "now") => Some(InputType::Int),
        ("Confirm", "ask") => Some(InputType::Bool),
        ("Records", "list") => Some(InputType::List(s())),
        // `Employee`, fields sorted by name.
        ("Records", "read") => Some(InputType::Record(vec![
            ("fields".to_string(), InputType::Map(s())),
            ("id".to_string(), InputType::Str),
            ("manager".to_string(), InputType::Option(s())),
            ("name".to_string(), InputType::Str),
        ])),
        _ => {
            let c = engine.capabilities.iter().find(|c| c.name == effect)?;
            c.result_of(op)?.as_ref().as_ref().ok().cloned()
        }
    }
}

/// Where a replay stands: for each read (operation and arguments), the
/// positions of its recorded answers not used yet, in order. Built once,
/// at the first read (linear in the recording); each read then costs a
/// lookup, not a scan, so a replay is linear in its reads however long
/// the recording.
#[derive(Debug, Default)]
pub(crate) struct Cursor {
    unused: Option<HashMap<String, VecDeque<usize>>>,
}

/// What a read is looked up by: its operation and its arguments' JSON.
fn key(operation: &str, arguments: &[Json]) -> String {
    format!("{operation}{}", Json::Array(arguments.to_vec()))
}

impl Cursor {
    /// The first unused read of `operation` with `arguments`, now used.
    pub(crate) fn take<'r>(
        &mut self,
        recording: &'r Recording,
        operation: &str,
        arguments: &[Json],
    ) -> Option<&'r RecordedRead> {
        let unused = self.unused.get_or_insert_with(|| {
            let mut index: HashMap<String, VecDeque<usize>> = HashMap::new();
            for (i, r) in recording.reads.iter().enumerate() {
                index
                    .entry(key(&r.operation, &r.arguments))
                    .or_default()
                    .push_back(i);
            }
            index
        });
        let i = unused.get_mut(&key(operation, arguments))?.pop_front()?;
        recording.reads.get(i)
    }
}
