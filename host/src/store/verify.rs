//! Checking a store: the audit chain, the ledger against the log, and the
//! log against a head the person kept.
//!
//! What [`Store::verify`] finds by itself: a record edited, removed from
//! the middle or reordered (the chain); a ledger row deleted (its payment's
//! record names it), edited (the record holds its hash) or added (no record
//! names it). What needs the person's [`Head`]: records removed from the
//! end, or the log rewritten from some record on, hashes and all.

use std::collections::HashMap;
use std::fmt;

use super::{AuditRecord, GENESIS, LedgerRow, Store, err, ledger_rows, record_hash, records};

/// The head of the audit log: how many records it holds and the hash of
/// the last (of none: [`GENESIS`]). Written `COUNT:HASH`, as
/// `writ audit head` prints it and `writ audit verify --head` reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Head {
    /// The number of records.
    pub count: i64,
    /// The last record's hash, 64 hex digits.
    pub hash: String,
}

impl fmt::Display for Head {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.count, self.hash)
    }
}

impl Head {
    /// Read a head written `COUNT:HASH`; the error says what was expected.
    pub fn parse(text: &str) -> Result<Head, String> {
        let expected = || {
            format!(
                "expected a head written COUNT:HASH (a number of records, `:`, 64 hex digits), as `writ audit head` prints it; found `{}`",
                writ_runtime::display::safe_text(text, false)
            )
        };
        let (count, hash) = text.trim().split_once(':').ok_or_else(expected)?;
        let count: i64 = match count.parse() {
            Ok(n) if n >= 0 && count.bytes().all(|b| b.is_ascii_digit()) => n,
            _ => return Err(expected()),
        };
        if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(expected());
        }
        Ok(Head {
            count,
            hash: hash.to_ascii_lowercase(),
        })
    }
}

/// The first 12 characters of a hash, for messages.
fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}

impl Store {
    /// Check the audit chain and the ledger against it: `Ok(n)` with the
    /// number of records, or the first place where either was changed.
    pub fn verify(&self) -> Result<usize, String> {
        self.verified().map(|records| records.len())
    }

    /// The head of the log, once the log verifies (the head of a changed
    /// log is no anchor).
    pub fn head(&self) -> Result<Head, String> {
        let records = self.verified()?;
        Ok(match records.last() {
            Some(r) => Head {
                count: r.seq,
                hash: r.hash.clone(),
            },
            None => Head {
                count: 0,
                hash: GENESIS.to_string(),
            },
        })
    }

    /// [`Store::verify`], and check that the log still holds `head`: as
    /// many records at least, the last of them with its hash. `Ok(n)` with
    /// the number of records now.
    pub fn verify_head(&self, head: &Head) -> Result<usize, String> {
        let records = self.verified()?;
        let n = records.len();
        let held = usize::try_from(head.count).unwrap_or(usize::MAX);
        if held > n {
            let removed = if held == n + 1 {
                format!("record {held} was removed")
            } else {
                format!("records {} to {held} were removed", n + 1)
            };
            return Err(format!(
                "the log ends at record {n}, but the head you hold is record {held}: {removed} from its end"
            ));
        }
        let at = match held.checked_sub(1).and_then(|i| records.get(i)) {
            Some(r) => r.hash.as_str(),
            None => GENESIS,
        };
        if at != head.hash {
            return Err(format!(
                "record {held} is not the head you hold (its hash starts {}, the head's {}): the log was rewritten at or before it",
                short(at),
                short(&head.hash)
            ));
        }
        Ok(n)
    }

    /// Every record, once the chain and the ledger are checked; both are
    /// read in one transaction, so a payment made meanwhile is seen whole
    /// or not at all.
    fn verified(&self) -> Result<Vec<AuditRecord>, String> {
        let tx = self.conn.unchecked_transaction().map_err(err)?;
        let records = records(&tx).map_err(err)?;
        let ledger = ledger_rows(&tx).map_err(err)?;
        drop(tx);
        check_chain(&records)?;
        check_ledger(&records, &ledger)?;
        Ok(records)
    }
}

fn check_chain(records: &[AuditRecord]) -> Result<(), String> {
    let mut prev = GENESIS;
    for (i, r) in records.iter().enumerate() {
        let want_seq = i64::try_from(i).unwrap_or(i64::MAX).saturating_add(1);
        if r.seq != want_seq {
            return Err(format!(
                "record {want_seq} is missing (the next record is {})",
                r.seq
            ));
        }
        if r.prev_hash != prev {
            return Err(format!(
                "record {} does not link to record {}: the log was changed there",
                r.seq,
                r.seq - 1
            ));
        }
        if record_hash(r) != r.hash {
            return Err(format!(
                "record {} does not match its hash: it was edited",
                r.seq
            ));
        }
        prev = &r.hash;
    }
    Ok(())
}

/// Every ledger row is named by its payment's record, with its hash; every
/// record that names a row has it.
fn check_ledger(records: &[AuditRecord], ledger: &[LedgerRow]) -> Result<(), String> {
    let by_seq: HashMap<i64, &AuditRecord> = records.iter().map(|r| (r.seq, r)).collect();
    for row in ledger {
        let record = by_seq
            .get(&row.audit_seq)
            .filter(|r| r.ledger_id == Some(row.id));
        let Some(record) = record else {
            return Err(format!(
                "ledger row {} ({} cents to {}) has no audit record: it was added outside a run",
                row.id,
                row.cents,
                writ_runtime::display::safe_text(&row.payee, false)
            ));
        };
        if record.ledger_hash != row.hash() {
            return Err(format!(
                "ledger row {} does not match the hash in its audit record {}: it was edited",
                row.id, record.seq
            ));
        }
    }
    let ids: std::collections::HashSet<i64> = ledger.iter().map(|r| r.id).collect();
    if let Some((r, id)) = records
        .iter()
        .filter_map(|r| r.ledger_id.map(|id| (r, id)))
        .find(|(_, id)| !ids.contains(id))
    {
        return Err(format!(
            "ledger row {id}, the payment of audit record {}, is missing: it was deleted, and the day's total with it",
            r.seq
        ));
    }
    Ok(())
}
