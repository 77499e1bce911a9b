//! The page's store as JSON, to keep in the page between workers: what
//! `writ_host::store::memory::Contents` holds, field by field. Reading it
//! back checks only its shape; the chain is verified when the store is
//! used (`Playground::import` answers with the verification).

use serde_json::{Map, Value as Json, json};
use writ_host::store::memory::Contents;
use writ_host::store::{AuditRecord, LedgerRow};

use crate::{ledger_json, record_json};

/// `contents` as JSON: `{"meta": {...}, "records": [...], "ledger":
/// [...], "employees": [{"id", "name", "manager", "fields"}]}`.
pub fn contents_to_json(contents: &Contents) -> Json {
    let employees: Vec<Json> = contents
        .employees
        .iter()
        .map(|(id, (name, manager, fields))| {
            json!({ "id": id, "name": name, "manager": manager, "fields": fields })
        })
        .collect();
    json!({
        "meta": contents.meta,
        "records": contents.records.iter().map(record_json).collect::<Vec<_>>(),
        "ledger": contents.ledger.iter().map(ledger_json).collect::<Vec<_>>(),
        "employees": employees,
    })
}

/// Read what [`contents_to_json`] wrote; an error names the first field
/// that is missing or of another type.
pub fn contents_from_json(doc: &Json) -> Result<Contents, String> {
    let top = object(doc, "the store")?;
    let mut contents = Contents::default();
    for (k, v) in object(field(top, "meta", "the store")?, "meta")? {
        let Some(v) = v.as_str() else {
            return Err(format!(
                "expected meta `{k}` to be text, found another JSON value"
            ));
        };
        contents.meta.insert(k.clone(), v.to_string());
    }
    for r in array(top, "records")? {
        let r = object(r, "an audit record")?;
        let w = "an audit record";
        contents.records.push(AuditRecord {
            seq: int(r, "seq", w)?,
            time_ms: int(r, "time_ms", w)?,
            principal: text(r, "principal", w)?,
            program: text(r, "program", w)?,
            operation: text(r, "operation", w)?,
            arguments: text(r, "arguments", w)?,
            decision: text(r, "decision", w)?,
            rule: text(r, "rule", w)?,
            ledger_id: match field(r, "ledger_id", w)? {
                Json::Null => None,
                _ => Some(int(r, "ledger_id", w)?),
            },
            ledger_hash: text(r, "ledger_hash", w)?,
            prev_hash: text(r, "prev_hash", w)?,
            hash: text(r, "hash", w)?,
        });
    }
    for r in array(top, "ledger")? {
        let r = object(r, "a ledger row")?;
        let w = "a ledger row";
        contents.ledger.push(LedgerRow {
            id: int(r, "id", w)?,
            time_ms: int(r, "time_ms", w)?,
            day: text(r, "day", w)?,
            principal: text(r, "principal", w)?,
            payee: text(r, "payee", w)?,
            cents: int(r, "cents", w)?,
            currency: text(r, "currency", w)?,
            memo: text(r, "memo", w)?,
            audit_seq: int(r, "audit_seq", w)?,
        });
    }
    for e in array(top, "employees")? {
        let e = object(e, "an employee")?;
        let w = "an employee";
        let manager = match field(e, "manager", w)? {
            Json::Null => None,
            _ => Some(text(e, "manager", w)?),
        };
        contents.employees.insert(
            text(e, "id", w)?,
            (text(e, "name", w)?, manager, text(e, "fields", w)?),
        );
    }
    Ok(contents)
}

fn object<'a>(v: &'a Json, what: &str) -> Result<&'a Map<String, Json>, String> {
    v.as_object()
        .ok_or_else(|| format!("expected {what} to be a JSON object, found another value"))
}

fn field<'a>(o: &'a Map<String, Json>, name: &str, what: &str) -> Result<&'a Json, String> {
    o.get(name)
        .ok_or_else(|| format!("expected {what} to have `{name}`, found none"))
}

fn array<'a>(o: &'a Map<String, Json>, name: &str) -> Result<&'a Vec<Json>, String> {
    field(o, name, "the store")?
        .as_array()
        .ok_or_else(|| format!("expected the store's `{name}` to be an array, found another value"))
}

fn int(o: &Map<String, Json>, name: &str, what: &str) -> Result<i64, String> {
    field(o, name, what)?
        .as_i64()
        .ok_or_else(|| format!("expected `{name}` of {what} to be an integer, found another value"))
}

fn text(o: &Map<String, Json>, name: &str, what: &str) -> Result<String, String> {
    field(o, name, what)?
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("expected `{name}` of {what} to be text, found another value"))
}
