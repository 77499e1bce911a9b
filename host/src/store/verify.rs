//! Checking a store: the audit chain, the ledger against the log, and the
//! log against a head the person kept.
//!
//! What [`Store::verify`] finds by itself: a record edited, removed from
//! the middle or reordered (the chain); a ledger row deleted (its payment's
//! record names it), edited (the record holds its hash) or added (no record
//! names it). What needs the person's [`Head`]: records removed from the
//! end, or the log rewritten from some record on, hashes and all.
//!
//! A check that finds the log changed says where and how ([`Break`]); a
//! check the store fails before it can be made says only that
//! ([`VerifyError::Store`]): a store that cannot be read is not evidence
//! that anyone changed it.

use std::collections::HashMap;
use std::fmt;

use super::{AuditRecord, GENESIS, LedgerRow, Store, StoreError, record_hash};

/// The head of the audit log: how many records it holds and the hash of
/// the last (of none: [`GENESIS`]). Written `COUNT:HASH` ([`Head::parse`]
/// reads what `Display` writes), for the person to keep apart from the
/// store.
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

/// A head not written `COUNT:HASH`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeadError {
    /// The text given, as it was.
    pub found: String,
}

impl fmt::Display for HeadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "expected a head written COUNT:HASH (a number of records, `:`, 64 hex digits); found `{}`",
            writ_runtime::display::safe_text(
                &self.found,
                writ_runtime::display::LineBreaks::Escape
            )
        )
    }
}

impl std::error::Error for HeadError {}

impl Head {
    /// Read a head written `COUNT:HASH`; the error says what was expected.
    pub fn parse(text: &str) -> Result<Head, HeadError> {
        let expected = || HeadError {
            found: text.to_string(),
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

/// Where the audit log or the ledger was found changed, and how. Each
/// variant names the record (or ledger row) at which the check failed;
/// `Display` says it as a person reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Break {
    /// The records skip from before `seq` to `next`: `seq` was removed.
    Missing {
        /// The sequence number expected.
        seq: i64,
        /// The one found in its place.
        next: i64,
    },
    /// Record `seq` does not hold the hash of the record before it.
    Unlinked {
        /// The record.
        seq: i64,
    },
    /// Record `seq` does not match its own hash: it was edited.
    Edited {
        /// The record.
        seq: i64,
    },
    /// Ledger row `id` is named by no audit record: it was added outside
    /// a run.
    RowAdded {
        /// The row.
        id: i64,
        /// Its amount, in cents.
        cents: i64,
        /// Its payee, as stored.
        payee: String,
    },
    /// Ledger row `id` does not match the hash its record `seq` holds.
    RowEdited {
        /// The row.
        id: i64,
        /// The payment's audit record.
        seq: i64,
    },
    /// Record `seq` names ledger row `id`, which is not there.
    RowDeleted {
        /// The row.
        id: i64,
        /// The payment's audit record.
        seq: i64,
    },
    /// The log ends at record `ends`, before the head's record `held`:
    /// records were removed from its end.
    TailRemoved {
        /// The last record now (0 for none).
        ends: usize,
        /// The head's record.
        held: usize,
    },
    /// Record `held` is not the head's: the log was rewritten at or
    /// before it.
    Rewritten {
        /// The head's record.
        held: usize,
        /// The hash the log holds there.
        found: String,
        /// The hash the head holds.
        kept: String,
    },
}

impl fmt::Display for Break {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Break::Missing { seq, next } => {
                write!(f, "record {seq} is missing (the next record is {next})")
            }
            Break::Unlinked { seq } => write!(
                f,
                "record {seq} does not link to record {}: the log was changed there",
                seq.saturating_sub(1)
            ),
            Break::Edited { seq } => {
                write!(f, "record {seq} does not match its hash: it was edited")
            }
            Break::RowAdded { id, cents, payee } => write!(
                f,
                "ledger row {id} ({cents} cents to {}) has no audit record: it was added outside a run",
                writ_runtime::display::safe_text(payee, writ_runtime::display::LineBreaks::Escape)
            ),
            Break::RowEdited { id, seq } => write!(
                f,
                "ledger row {id} does not match the hash in its audit record {seq}: it was edited"
            ),
            Break::RowDeleted { id, seq } => write!(
                f,
                "ledger row {id}, the payment of audit record {seq}, is missing: it was deleted, and the day's total with it"
            ),
            Break::TailRemoved { ends, held } => {
                write!(
                    f,
                    "the log ends at record {ends}, but the head you hold is record {held}: "
                )?;
                if *held == ends.saturating_add(1) {
                    write!(f, "record {held} was removed from its end")
                } else {
                    write!(
                        f,
                        "records {} to {held} were removed from its end",
                        ends.saturating_add(1)
                    )
                }
            }
            Break::Rewritten { held, found, kept } => write!(
                f,
                "record {held} is not the head you hold (its hash starts {}, the head's {}): the log was rewritten at or before it",
                short(found),
                short(kept)
            ),
        }
    }
}

/// Why a check of the store did not pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VerifyError {
    /// The log, the ledger or the head does not hold: what the store
    /// holds was changed.
    Broken(Break),
    /// The store failed before the check could be made: nothing is known
    /// of the log either way.
    Store(StoreError),
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyError::Broken(b) => b.fmt(f),
            VerifyError::Store(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for VerifyError {}

impl From<Break> for VerifyError {
    fn from(b: Break) -> VerifyError {
        VerifyError::Broken(b)
    }
}

impl From<StoreError> for VerifyError {
    fn from(e: StoreError) -> VerifyError {
        VerifyError::Store(e)
    }
}

/// The first 12 characters of a hash, for messages.
fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}

impl Store {
    /// Check the audit chain and the ledger against it: `Ok(n)` with the
    /// number of records, or the first place where either was changed.
    pub fn verify(&self) -> Result<usize, VerifyError> {
        self.verified().map(|records| records.len())
    }

    /// The head of the log, once the log verifies (the head of a changed
    /// log is no anchor).
    pub fn head(&self) -> Result<Head, VerifyError> {
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
    pub fn verify_head(&self, head: &Head) -> Result<usize, VerifyError> {
        let records = self.verified()?;
        let n = records.len();
        let held = usize::try_from(head.count).unwrap_or(usize::MAX);
        if held > n {
            return Err(Break::TailRemoved { ends: n, held }.into());
        }
        let at = match held.checked_sub(1).and_then(|i| records.get(i)) {
            Some(r) => r.hash.as_str(),
            None => GENESIS,
        };
        if at != head.hash {
            return Err(Break::Rewritten {
                held,
                found: at.to_string(),
                kept: head.hash.clone(),
            }
            .into());
        }
        Ok(n)
    }

    /// Every record, once the chain and the ledger are checked; both are
    /// read in one transaction, so a payment made meanwhile is seen whole
    /// or not at all.
    fn verified(&self) -> Result<Vec<AuditRecord>, VerifyError> {
        let (records, ledger) =
            self.read(|tx| Ok((tx.records_from(i64::MIN)?, tx.ledger_rows()?)))?;
        check_chain(&records)?;
        check_ledger(&records, &ledger)?;
        Ok(records)
    }
}

fn check_chain(records: &[AuditRecord]) -> Result<(), Break> {
    let mut prev = GENESIS;
    for (i, r) in records.iter().enumerate() {
        let want_seq = i64::try_from(i).unwrap_or(i64::MAX).saturating_add(1);
        if r.seq != want_seq {
            return Err(Break::Missing {
                seq: want_seq,
                next: r.seq,
            });
        }
        if r.prev_hash != prev {
            return Err(Break::Unlinked { seq: r.seq });
        }
        if record_hash(r) != r.hash {
            return Err(Break::Edited { seq: r.seq });
        }
        prev = &r.hash;
    }
    Ok(())
}

/// Every ledger row is named by its payment's record, with its hash; every
/// record that names a row has it.
fn check_ledger(records: &[AuditRecord], ledger: &[LedgerRow]) -> Result<(), Break> {
    let by_seq: HashMap<i64, &AuditRecord> = records.iter().map(|r| (r.seq, r)).collect();
    for row in ledger {
        let record = by_seq
            .get(&row.audit_seq)
            .filter(|r| r.ledger_id == Some(row.id));
        let Some(record) = record else {
            return Err(Break::RowAdded {
                id: row.id,
                cents: row.cents,
                payee: row.payee.clone(),
            });
        };
        if record.ledger_hash != row.hash() {
            return Err(Break::RowEdited {
                id: row.id,
                seq: record.seq,
            });
        }
    }
    let ids: std::collections::HashSet<i64> = ledger.iter().map(|r| r.id).collect();
    if let Some((r, id)) = records
        .iter()
        .filter_map(|r| r.ledger_id.map(|id| (r, id)))
        .find(|(_, id)| !ids.contains(id))
    {
        return Err(Break::RowDeleted { id, seq: r.seq });
    }
    Ok(())
}
