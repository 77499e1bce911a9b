//! Asking the person, through MCP elicitation: the approval of a plan and
//! the program's confirmations (`Confirm.ask`, `confirm = true`
//! payments).
//!
//! Invariants: only the client's `accept` is a yes; `decline`, `cancel`,
//! no answer within the wait, a failed request, and a client that did
//! not declare elicitation are all a no. The model never answers: the
//! question goes to the client, which shows it to the person. Asked from
//! the engine's thread (a `spawn_blocking` thread), never from the
//! runtime's own.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
use rmcp::service::ElicitationMode;
use rmcp::{Peer, RoleServer};

/// How a question was answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// The person accepted.
    Accepted,
    /// The person declined.
    Declined,
    /// The person dismissed the question.
    Cancelled,
    /// The client cannot ask (it declared no elicitation).
    Unsupported,
    /// No answer came: the wait ran out or the request failed.
    Unanswered(String),
}

impl Answer {
    /// The answer in words, for a tool's result.
    pub fn words(&self) -> String {
        match self {
            Answer::Accepted => "the person accepted".to_string(),
            Answer::Declined => "the person declined".to_string(),
            Answer::Cancelled => "the person dismissed the question".to_string(),
            Answer::Unsupported => {
                "the client cannot ask the person (it declared no elicitation support)".to_string()
            }
            Answer::Unanswered(why) => format!("no answer came from the person: {why}"),
        }
    }
}

/// Who asks the person, for one request.
#[derive(Clone)]
pub struct Asker {
    peer: Peer<RoleServer>,
    runtime: tokio::runtime::Handle,
}

impl Asker {
    /// Ask through `peer`, on `runtime`.
    pub fn new(peer: Peer<RoleServer>, runtime: tokio::runtime::Handle) -> Asker {
        Asker { peer, runtime }
    }

    /// Whether the client declared form elicitation.
    pub fn can_ask(&self) -> bool {
        self.peer
            .supported_elicitation_modes()
            .contains(&ElicitationMode::Form)
    }

    /// Ask `message`, waiting at most `wait`; from a blocking thread.
    pub fn ask(&self, message: &str, wait: Duration) -> Answer {
        if !self.can_ask() {
            return Answer::Unsupported;
        }
        if wait.is_zero() {
            return Answer::Unanswered("no time was left to ask".to_string());
        }
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: message.to_string(),
            // Nothing to fill in: accepting is the answer.
            requested_schema: ElicitationSchema::new(BTreeMap::new()),
        };
        let asked = self.runtime.block_on(
            self.peer
                .create_elicitation_with_timeout(params, Some(wait)),
        );
        match asked {
            Ok(r) => match r.action {
                ElicitationAction::Accept => Answer::Accepted,
                ElicitationAction::Decline => Answer::Declined,
                _ => Answer::Cancelled,
            },
            Err(e) => Answer::Unanswered(e.to_string()),
        }
    }

    /// The engine's confirmer: `question` asked within the run's time
    /// (the wait ends with the run's time limit); yes only on accept.
    pub fn confirm(&self, question: &str) -> bool {
        let wait = writ_runtime::meter::deadline().map_or(super::limits::APPROVAL_WAIT, |d| {
            d.at.saturating_duration_since(Instant::now())
        });
        // The question is the program's text: on one line (its line
        // breaks escaped), so that it cannot draw what looks like the
        // server's own words, a plan to approve, below it.
        let message = format!(
            "The Writ program asks you:\n\n{}\n\nAccept to answer yes; decline or cancel to answer no.",
            writ_runtime::display::safe_text(question, writ_runtime::display::LineBreaks::Escape)
        );
        let answer = self.ask(&message, wait);
        if answer != Answer::Accepted {
            err_println!("writ mcp: a confirmation was refused: {}", answer.words());
        }
        answer == Answer::Accepted
    }
}
