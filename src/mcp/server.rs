//! The MCP server: what it says of itself at `initialize`, and how it
//! serves `tools/list`, `tools/call`, `resources/list` and
//! `resources/read` (rmcp's [`ServerHandler`]).
//!
//! Invariants: a tool's work runs on a blocking thread, at most
//! [`limits::CONCURRENT_CALLS`] at once, its permit held until the work
//! ends (even when the request's wall-clock bound answered first); every
//! call is answered within its bound; a tool's text is at most
//! [`limits::MAX_RESULT_BYTES`]; only the protocol revisions with the
//! `initialize` handshake are spoken (up to 2025-11-25), in which the
//! server may ask the client to elicit from the person.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use tokio::sync::Semaphore;
use writ::render::words::Edge;
use writ_host::engine::{Engine, Plan};
use writ_host::policy::Policy;

use super::elicitation::Asker;
use super::{limits, resources, tools};

/// A plan kept for `approve`, with what running it needs.
#[derive(Clone)]
pub struct StoredPlan {
    /// The program's source.
    pub source: String,
    /// The program, as checked when it was planned.
    pub program: Arc<writ_host::engine::Compiled>,
    /// What keeping it costs, in bytes (its source and its plan's JSON
    /// text), counted against [`limits::KEPT_PLAN_BYTES`].
    pub bytes: usize,
    /// The inputs' values.
    pub inputs: serde_json::Map<String, serde_json::Value>,
    /// The plan.
    pub plan: Arc<Plan>,
}

/// What every request shares: the policy, the store, the texts shown.
pub struct Shared {
    /// The policy every program runs under.
    pub policy: Policy,
    /// The policy's file, as shown in errors' help.
    pub policy_shown: String,
    /// `--db`: the store, overriding the policy's.
    pub db: Option<String>,
    /// The primer followed by the grants in words.
    pub primer: String,
    /// The grants in words.
    pub grants: String,
    /// What the policy lets a program reach.
    pub reach: tools::Reach,
    /// The plans made, newest last.
    plans: Mutex<VecDeque<(String, StoredPlan)>>,
}

impl Shared {
    /// Who set the limits and grants: the policy, by its file.
    pub fn edge(&self) -> Edge<'_> {
        Edge::Policy(Some(&self.policy_shown))
    }

    /// The store's path or URL, as a run opens it.
    pub fn store_path(&self) -> String {
        writ_host::engine::store_path(
            &self.policy,
            &writ_host::engine::RunOptions {
                store: self.db.clone(),
                ..Default::default()
            },
        )
    }

    /// Keep `plan` for `approve`; its id.
    pub fn keep_plan(&self, plan: StoredPlan) -> String {
        let digest = plan.plan.digest();
        let id = format!("plan-{}", digest.get(..16).unwrap_or(&digest));
        let mut plans = self
            .plans
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        plans.retain(|(i, _)| *i != id);
        plans.push_back((id.clone(), plan));
        let mut bytes: usize = plans.iter().map(|(_, p)| p.bytes).sum();
        while plans.len() > 1
            && (plans.len() > limits::KEPT_PLANS || bytes > limits::KEPT_PLAN_BYTES)
        {
            if let Some((_, old)) = plans.pop_front() {
                bytes -= old.bytes;
            }
        }
        id
    }

    /// The plan kept as `id`.
    pub fn plan(&self, id: &str) -> Option<StoredPlan> {
        let plans = self
            .plans
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        plans.iter().find(|(i, _)| i == id).map(|(_, p)| p.clone())
    }

    /// Forget the plan kept as `id` (it was carried out).
    pub fn forget_plan(&self, id: &str) {
        let mut plans = self
            .plans
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        plans.retain(|(i, _)| i != id);
    }
}

/// The server.
#[derive(Clone)]
pub struct Writ {
    shared: Arc<Shared>,
    tools: Arc<Vec<Tool>>,
    permits: Arc<Semaphore>,
}

impl Writ {
    /// A server running programs under `policy` (read from the file
    /// `policy_shown`), with the store `db` when given.
    pub fn new(policy: Policy, policy_shown: String, db: Option<String>) -> Writ {
        let engine = Engine::new();
        let reach = tools::reach(&engine, &policy);
        let shared = Shared {
            primer: writ::primer::primer(&engine, Some(&policy)),
            grants: writ::primer::grants_in_words(&engine, &policy),
            reach,
            policy,
            policy_shown,
            db,
            plans: Mutex::new(VecDeque::new()),
        };
        let tools = tools::definitions(&shared);
        Writ {
            shared: Arc::new(shared),
            tools: Arc::new(tools),
            permits: Arc::new(Semaphore::new(limits::CONCURRENT_CALLS)),
        }
    }

    /// The wall-clock bound of a call of `tool`.
    fn wall(&self, tool: &str) -> Duration {
        let run = self.shared.policy.limits.time + limits::GRACE;
        match tool {
            "approve" => run + limits::APPROVAL_WAIT,
            _ => run,
        }
    }
}

/// A tool's result: its text (cut to the bound), an error or not.
fn result(reply: tools::Reply) -> CallToolResult {
    let (text, _) = limits::bounded(reply.text);
    let content = vec![ContentBlock::text(text)];
    if reply.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    }
}

impl ServerHandler for Writ {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(
            Implementation::new("writ", env!("CARGO_PKG_VERSION")).with_title("Writ"),
        )
        .with_instructions(format!(
            "Writ runs programs you write under {}'s policy, with exactly the authority it grants. Write a Writ program (the `check` tool's description teaches the language; the resource writ://primer holds it whole), `check` it until it is accepted, then `run` it; or `plan` it and `approve` the plan, which asks the person. Payments and confirmations are the person's to accept.",
            self.shared.policy.principal.id
        ))
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if !self.tools.iter().any(|t| t.name == name) {
            return Err(ErrorData::invalid_params(
                format!("no tool `{name}`: the tools are check, run, plan, approve and explain"),
                None,
            ));
        }
        let args = request.arguments.unwrap_or_default();
        let wall = self.wall(&name);
        let permit = match tokio::time::timeout(
            limits::GRACE,
            Arc::clone(&self.permits).acquire_owned(),
        )
        .await
        {
            Ok(Ok(p)) => p,
            _ => {
                return Ok(result(tools::Reply {
                    text: format!(
                        "{{\"status\": \"busy\", \"error\": \"the server runs at most {} calls at once, and none ended within {} s: try again\"}}\n",
                        limits::CONCURRENT_CALLS,
                        limits::GRACE.as_secs()
                    ),
                    is_error: true,
                })
                .into());
            }
        };
        let started = std::time::Instant::now();
        let shared = Arc::clone(&self.shared);
        let asker = Asker::new(context.peer.clone(), tokio::runtime::Handle::current());
        let tool = name.clone();
        // Stops the run when the client cancels the call
        // (`notifications/cancelled`) or the call's time is up, so that
        // no run outlives its call holding a permit.
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&cancel);
        let work = tokio::task::spawn_blocking(move || {
            let reply = tools::call(&shared, &tool, &args, &asker, &flag);
            drop(permit);
            reply
        });
        let watch = {
            let flag = Arc::clone(&cancel);
            let ct = context.ct.clone();
            tokio::spawn(async move {
                ct.cancelled().await;
                flag.store(true, Ordering::SeqCst);
            })
        };
        let waited = tokio::time::timeout(wall, work).await;
        watch.abort();
        if waited.is_err() || context.ct.is_cancelled() {
            cancel.store(true, Ordering::SeqCst);
        }
        let reply = match waited {
            Ok(Ok(Some(reply))) => reply,
            Ok(Ok(None)) => {
                return Err(ErrorData::invalid_params(format!("no tool `{name}`"), None));
            }
            Ok(Err(e)) => {
                err_println!("writ mcp: the tool `{name}` stopped: {e}");
                return Err(ErrorData::internal_error(
                    format!("the tool `{name}` stopped before answering"),
                    None,
                ));
            }
            Err(_) => tools::Reply {
                text: format!(
                    "{{\"status\": \"timeout\", \"error\": \"the call took longer than its bound of {} s (the policy's time limit, with room to check and to ask the person): its run was stopped (E5006) and nothing more was carried out\"}}\n",
                    wall.as_secs()
                ),
                is_error: true,
            },
        };
        // A line for whoever keeps the server's log (standard error).
        err_println!(
            "writ mcp: {name}: {} in {} ms",
            if reply.is_error { "error" } else { "ok" },
            started.elapsed().as_millis()
        );
        Ok(result(reply).into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(resources::list()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let shared = Arc::clone(&self.shared);
        let uri = request.uri.clone();
        let read = tokio::task::spawn_blocking(move || resources::read(&shared, &uri))
            .await
            .map_err(|_| ErrorData::internal_error("the resource could not be read", None))??;
        Ok(ReadResourceResult::new(vec![read]).into())
    }
}
