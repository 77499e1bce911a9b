//! The server's resources, all read-only: the primer, what the policy
//! grants in words, and the last records of the audit log.
//!
//! Invariant: reading a resource changes nothing (the store is opened
//! only when it exists, never created) and returns at most
//! [`limits::AUDIT_RECORDS`] records.

use rmcp::ErrorData;
use rmcp::model::{Resource, ResourceContents};
use serde_json::json;

use super::limits;
use super::server::Shared;

/// The primer's address.
pub const PRIMER: &str = "writ://primer";
/// The grants' address.
pub const GRANTS: &str = "writ://grants";
/// The audit log's address.
pub const AUDIT: &str = "writ://audit";

/// The resources, as `resources/list` shows them.
pub fn list() -> Vec<Resource> {
    let markdown = |r: Resource| {
        let mut r = r;
        r.mime_type = Some("text/markdown".to_string());
        r
    };
    let mut audit = Resource::new(AUDIT, "audit").with_title("The audit log (its last records)");
    audit.mime_type = Some("application/json".to_string());
    audit.description = Some(format!(
        "The last {} records of this person's runs in the audit log of the store the server runs with, as JSON (read-only).",
        limits::AUDIT_RECORDS
    ));
    vec![
        markdown(
            Resource::new(PRIMER, "primer")
                .with_title("Writ for models: the primer")
                .with_description("The language in brief, followed by what this server's policy grants."),
        ),
        markdown(
            Resource::new(GRANTS, "grants")
                .with_title("What the policy grants")
                .with_description(
                    "Each capability the policy grants: its interface, scope, and which operations read and which act.",
                ),
        ),
        audit,
    ]
}

/// The text at `uri`, or the JSON-RPC error for an address that is not
/// one of [`list`]'s.
pub fn read(shared: &Shared, uri: &str) -> Result<ResourceContents, ErrorData> {
    let (text, mime) = match uri {
        PRIMER => (shared.primer.clone(), "text/markdown"),
        GRANTS => (shared.grants.clone(), "text/markdown"),
        AUDIT => (audit(shared), "application/json"),
        _ => {
            return Err(ErrorData::resource_not_found(
                format!("no resource `{uri}`: the resources are {PRIMER}, {GRANTS} and {AUDIT}"),
                None,
            ));
        }
    };
    let mut contents = ResourceContents::text(text, uri);
    if let ResourceContents::TextResourceContents { mime_type, .. } = &mut contents {
        *mime_type = Some(mime.to_string());
    }
    Ok(contents)
}

/// The last records of the audit log as JSON (`{"records": [...],
/// "total": N}`), or `{"error": ...}` saying why there are none.
fn audit(shared: &Shared) -> String {
    let path = shared.store_path();
    let opened = writ_host::engine::open_existing(&shared.policy, &path).and_then(|s| {
        s.map(|s| {
            // Only this person's records: a store may be shared by several
            // people (a team's), and theirs are not this model's to read.
            s.last_records_of(&shared.policy.principal.id, limits::AUDIT_RECORDS)
                .map_err(|e| e.to_string())
        })
        .transpose()
    });
    let doc = match opened {
        Ok(None) => {
            json!({ "store": path, "total": 0, "records": [], "note": "no store yet: nothing has run under this policy" })
        }
        Err(e) => json!({ "store": path, "error": e }),
        Ok(Some((shown, total))) => {
            let records: Vec<_> = shown
                .iter()
                .map(|r| {
                    json!({
                        "seq": r.seq, "time_ms": r.time_ms, "principal": r.principal,
                        "program": r.program, "operation": r.operation,
                        "arguments": r.arguments, "decision": r.decision,
                        "rule": r.rule, "hash": r.hash,
                    })
                })
                .collect();
            json!({ "store": path, "total": total, "records": records })
        }
    };
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}
