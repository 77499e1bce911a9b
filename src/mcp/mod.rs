//! `writ mcp --policy P [--db PATH]`: Writ as a Model Context Protocol
//! server over standard input and output (docs/mcp.md), built on the
//! official Rust SDK (rmcp). A model checks, runs and plans programs
//! through its tools; the person approves plans and answers
//! confirmations through the client (elicitation).
//!
//! Layout: [`transport`] reads and writes the messages, [`server`] serves
//! them, [`tools`] does the tools' work, [`elicitation`] asks the person,
//! [`resources`] reads the primer, the grants and the audit log, and
//! [`limits`] holds every bound.
//!
//! Invariant: standard output carries the protocol only; everything else
//! (a policy that cannot be read, a refused confirmation) is written to
//! standard error.

mod elicitation;
mod limits;
mod resources;
mod server;
mod tools;
mod transport;

use std::path::Path;
use std::process::ExitCode;

use rmcp::ServiceExt;

/// Serve until the client closes standard input (or leaves before its
/// session begins, which is said on standard error): exit 0. Exit 2 when
/// the policy cannot be read (said on standard error) and nothing is
/// served.
pub fn main(policy_path: &Path, db: Option<&Path>) -> ExitCode {
    let shown = policy_path.display().to_string();
    let text = match crate::read_policy_file(policy_path) {
        Ok(t) => t,
        Err(d) => {
            err_print!(
                "{}",
                writ::render::human(&[d], &shown, "", crate::color_err())
            );
            err_println!("{shown}: policy not read");
            return ExitCode::from(2);
        }
    };
    let mut policy = match writ_host::policy::parse(&text) {
        Ok(p) => p,
        Err(diags) => {
            err_print!(
                "{}",
                writ::render::human(&diags, &shown, &text, crate::color_err())
            );
            err_println!("{shown}: malformed policy; nothing is granted");
            return ExitCode::from(2);
        }
    };
    policy.dir = policy_path.parent().map(Path::to_path_buf);
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            err_println!("error: writ mcp cannot start its runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let server = server::Writ::new(policy, shown, db.map(|d| d.display().to_string()));
    runtime.block_on(async move {
        match server.serve(transport::stdio()).await {
            Ok(running) => {
                let _ = running.waiting().await;
                ExitCode::SUCCESS
            }
            // The client left, or spoke no MCP, before the session began:
            // said, and the session is over as when it closes.
            Err(e) => {
                err_println!("writ mcp: no session: the initialization failed: {e}");
                ExitCode::SUCCESS
            }
        }
    })
}
