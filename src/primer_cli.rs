//! `writ primer [--policy P]`: the primer for models, then, with a
//! policy, what it grants in words ([`writ::primer`]). A policy that
//! cannot be read or is malformed is reported as `writ run` reports it
//! (exit 2), and nothing else is printed.

use std::path::Path;
use std::process::ExitCode;

use writ_host::engine::Engine;

/// Print the primer, and the grants of the policy at `policy` if given.
pub(crate) fn primer(policy: Option<&Path>) -> ExitCode {
    let policy = match policy.map(|p| crate::host_cli::policy_for(p, &[])) {
        Some(Ok(p)) => Some(p),
        Some(Err(code)) => return code,
        None => None,
    };
    crate::host_cli::out(&writ::primer::primer(&Engine::new(), policy.as_ref()));
    ExitCode::SUCCESS
}
