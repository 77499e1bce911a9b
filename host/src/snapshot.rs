//! Snapshots of runs paused under a policy: a [`Pending`] operation as
//! bytes ([`Pending::to_bytes`]), and a run again from them
//! ([`Engine::restore`]), in this process or another.
//!
//! A snapshot is the runtime's bytes of the paused machine
//! ([`writ_runtime::Paused::to_bytes`]: values, frames, handlers and their
//! continuations, limits used) inside an envelope of the host's:
//!
//! | field | |
//! |---|---|
//! | magic `WRITRUN\0`, format version (u16) | refused first, before anything else is read |
//! | Writ's version | the same version only |
//! | the program's hash (SHA-256 of its text) | the same program only |
//! | the principal's id | the same person only |
//! | a nonce (16 random bytes) | each snapshot resumes once |
//! | the run's state: payments so far, whether recordings were used, its output lines, operations and audit ids | |
//! | where the run is handed out to its host (`pause_at`: every operation, or those named) | restored so by default ([`saved_pause_at`]) |
//! | the runtime's bytes | |
//! | an HMAC-SHA256 of all the above, keyed with the store's secret | |
//!
//! Integers are little-endian; texts and lists are length-prefixed.
//!
//! Invariants (fail closed):
//! - **Sealed by the store.** The key is the store's own (made at first
//!   use, kept in its `meta` table): only a host that can read the store
//!   makes or resumes a snapshot it accepts, and bytes changed anywhere
//!   (or sealed by another store) are refused before any of the state is
//!   read. A snapshot holds what the program read (records, responses):
//!   it deserves the store's protection.
//! - **Resumed once.** The nonce is written to the store when the restored
//!   run is first replied to; a snapshot whose nonce is there already is
//!   refused, so a saved run cannot be replayed to pay twice within one
//!   run's cap.
//! - **Untrusted bytes, bounded work.** Every length is checked against
//!   the bytes left before anything is allocated; the runtime's part is
//!   restored under the policy's limits (its size is bounded by twice the
//!   memory limit, see [`writ_runtime::restore`]). Anything wrong is
//!   `E4009` naming what was expected and what was found; never a panic.
//! - **The policy decides again.** The operation the run was paused at is
//!   decided again by the restoring policy before it is handed out: a
//!   snapshot carries no decision.

use sha2::{Digest, Sha256};
use writ_lang::Code;
use writ_runtime::RunError;

use crate::drive::PauseAt;
use crate::engine::Operation;
use crate::policy::Decision;

/// The first bytes of every snapshot.
const MAGIC: &[u8; 8] = b"WRITRUN\0";

/// The envelope's format version (2: with where the run is handed out).
pub(crate) const FORMAT: u16 = 2;

/// The version of Writ that wrote a snapshot, and the only one that
/// restores it.
pub(crate) const WRIT_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The bytes of the seal at the end.
const MAC_BYTES: usize = 32;

/// What the envelope holds beside the runtime's bytes.
pub(crate) struct Envelope {
    pub(crate) program: String,
    pub(crate) principal: String,
    pub(crate) nonce: String,
    pub(crate) paid_this_run: i64,
    pub(crate) used_recorded: bool,
    pub(crate) output: Vec<String>,
    pub(crate) operations: Vec<Operation>,
    pub(crate) audit_ids: Vec<i64>,
    /// Where the run was handed out to its host when it was saved.
    pub(crate) pause_at: PauseAt,
}

/// HMAC-SHA256 of `data` under `key` (RFC 2104).
fn hmac(key: &[u8; 32], data: &[u8]) -> [u8; 32] {
    let mut padded = [0u8; 64];
    padded[..32].copy_from_slice(key);
    let inner_pad: Vec<u8> = padded.iter().map(|b| b ^ 0x36).collect();
    let outer_pad: Vec<u8> = padded.iter().map(|b| b ^ 0x5c).collect();
    let mut inner = Sha256::new();
    inner.update(&inner_pad);
    inner.update(data);
    let inner = inner.finalize();
    let mut outer = Sha256::new();
    outer.update(&outer_pad);
    outer.update(inner);
    let mut mac = [0u8; 32];
    mac.copy_from_slice(&outer.finalize());
    mac
}

/// Whether two seals are equal, in time that does not depend on where
/// they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

/// The snapshot of `envelope` and the runtime's bytes, sealed with `key`.
pub(crate) fn seal(envelope: &Envelope, runtime: &[u8], key: &[u8; 32]) -> Vec<u8> {
    let mut w = Writer(Vec::with_capacity(runtime.len() + 256));
    w.0.extend_from_slice(MAGIC);
    w.0.extend_from_slice(&FORMAT.to_le_bytes());
    w.text(WRIT_VERSION);
    w.text(&envelope.program);
    w.text(&envelope.principal);
    w.text(&envelope.nonce);
    w.0.extend_from_slice(&envelope.paid_this_run.to_le_bytes());
    w.0.push(u8::from(envelope.used_recorded));
    w.count(envelope.output.len());
    for line in &envelope.output {
        w.text(line);
    }
    w.count(envelope.operations.len());
    for op in &envelope.operations {
        w.text(&op.operation);
        w.text(&op.arguments);
        w.0.push(match op.decision {
            Decision::Allowed => 0,
            Decision::Denied => 1,
        });
        w.text(&op.rule);
        match op.audit_id {
            Some(id) => {
                w.0.push(1);
                w.0.extend_from_slice(&id.to_le_bytes());
            }
            None => w.0.push(0),
        }
    }
    w.count(envelope.audit_ids.len());
    for id in &envelope.audit_ids {
        w.0.extend_from_slice(&id.to_le_bytes());
    }
    match &envelope.pause_at {
        PauseAt::Every => w.0.push(0),
        PauseAt::Only(names) => {
            w.0.push(1);
            w.count(names.len());
            for name in names {
                w.text(name);
            }
        }
    }
    w.0.extend_from_slice(&(runtime.len() as u64).to_le_bytes());
    w.0.extend_from_slice(runtime);
    let mac = hmac(key, &w.0);
    w.0.extend_from_slice(&mac);
    w.0
}

/// Check that `bytes` start as a snapshot of this format, before the
/// store is opened: the magic and the format version.
pub(crate) fn check_kind(bytes: &[u8]) -> Result<(), RunError> {
    let mut r = Reader { bytes, at: 0 };
    let magic = r.take(MAGIC.len(), "the snapshot's magic bytes `WRITRUN`")?;
    if magic != MAGIC {
        return Err(refused(
            "the magic bytes `WRITRUN` at byte 0",
            "other bytes: this is not a snapshot of a Writ run",
        ));
    }
    let format = u16::from_le_bytes(r.array("the format version")?);
    if format != FORMAT {
        return Err(refused(
            &format!("a snapshot of format version {FORMAT} at byte 8"),
            &format!(
                "format version {format}, which this version of Writ ({WRIT_VERSION}) does not read"
            ),
        ));
    }
    Ok(())
}

/// Open a snapshot sealed with `key`: its envelope and the runtime's
/// bytes, once the seal matches.
pub(crate) fn open<'b>(bytes: &'b [u8], key: &[u8; 32]) -> Result<(Envelope, &'b [u8]), RunError> {
    check_kind(bytes)?;
    let Some(body_len) = bytes.len().checked_sub(MAC_BYTES) else {
        return Err(refused("a seal of 32 bytes at the end", "fewer bytes"));
    };
    let (body, mac) = bytes.split_at(body_len);
    if !same(&hmac(key, body), mac) {
        return Err(refused(
            "a snapshot sealed by this store",
            "a seal that does not match: the bytes were changed, cut short, or sealed by another store",
        ));
    }
    read(body)
}

/// Where the run saved in `bytes` was handed out to its host (the
/// `pause_at` it was started with), to restore it so: read **before** the
/// seal is checked, so it says nothing of whether the bytes will be
/// accepted; [`Engine::restore`](crate::engine::Engine::restore) checks
/// the seal, which covers it, and refuses bytes changed anywhere (`E4009`).
/// `E4009` for bytes that are not a snapshot of this format.
pub fn saved_pause_at(bytes: &[u8]) -> Result<PauseAt, RunError> {
    check_kind(bytes)?;
    let Some(body_len) = bytes.len().checked_sub(MAC_BYTES) else {
        return Err(refused("a seal of 32 bytes at the end", "fewer bytes"));
    };
    read(bytes.get(..body_len).unwrap_or_default()).map(|(e, _)| e.pause_at)
}

/// The envelope in `body` (a snapshot without its seal), and the
/// runtime's bytes.
fn read(body: &[u8]) -> Result<(Envelope, &[u8]), RunError> {
    let mut r = Reader {
        bytes: body,
        at: MAGIC.len() + 2,
    };
    let version = r.text("Writ's version")?;
    if version != WRIT_VERSION {
        return Err(refused(
            &format!("a snapshot written by Writ {WRIT_VERSION}"),
            &format!("one written by Writ {version}"),
        ));
    }
    let program = r.text("the program's hash")?;
    let principal = r.text("the principal's id")?;
    let nonce = r.text("the snapshot's nonce")?;
    let paid_this_run = i64::from_le_bytes(r.array("the run's payments")?);
    let used_recorded = r.flag("whether recordings were used")?;
    let mut output = Vec::new();
    for _ in 0..r.count(4, "the number of output lines")? {
        output.push(r.text("an output line")?);
    }
    let mut operations = Vec::new();
    for _ in 0..r.count(14, "the number of operations")? {
        let operation = r.text("an operation's name")?;
        let arguments = r.text("an operation's arguments")?;
        let decision = match r.flag("an operation's decision")? {
            false => Decision::Allowed,
            true => Decision::Denied,
        };
        let rule = r.text("an operation's rule")?;
        let audit_id = match r.flag("whether an operation was audited")? {
            true => Some(i64::from_le_bytes(r.array("an audit id")?)),
            false => None,
        };
        operations.push(Operation {
            operation,
            arguments,
            decision,
            rule,
            audit_id,
        });
    }
    let mut audit_ids = Vec::new();
    for _ in 0..r.count(8, "the number of audit ids")? {
        audit_ids.push(i64::from_le_bytes(r.array("an audit id")?));
    }
    let pause_at = match r.flag("whether the run pauses at named operations only")? {
        false => PauseAt::Every,
        true => {
            let mut names = Vec::new();
            for _ in 0..r.count(4, "the number of operations to pause at")? {
                names.push(r.text("an operation to pause at")?);
            }
            PauseAt::Only(names)
        }
    };
    let runtime_len = u64::from_le_bytes(r.array("the length of the run's state")?);
    let runtime = r.take(
        usize::try_from(runtime_len).unwrap_or(usize::MAX),
        "the run's state",
    )?;
    if r.at != body.len() {
        return Err(refused(
            &format!("the seal right after the run's state, at byte {}", r.at),
            &format!("{} more bytes", body.len() - r.at),
        ));
    }
    let envelope = Envelope {
        program,
        principal,
        nonce,
        paid_this_run,
        used_recorded,
        output,
        operations,
        audit_ids,
        pause_at,
    };
    Ok((envelope, runtime))
}

/// `E4009`: a snapshot refused, expecting `expected` and finding `found`.
pub(crate) fn refused(expected: &str, found: &str) -> RunError {
    RunError::new(
        Code::SnapshotRefused,
        format!("snapshot refused: expected {expected}, but found {found}"),
    )
    .with_help("nothing was restored or run; a snapshot is resumed with the program, store and person it was made with, once")
}

struct Writer(Vec<u8>);

impl Writer {
    fn count(&mut self, n: usize) {
        self.0.extend_from_slice(&(n as u32).to_le_bytes());
    }

    fn text(&mut self, s: &str) {
        self.count(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }
}

/// Reads an envelope; every read checked against the bytes left.
struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> Reader<'b> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'b [u8], RunError> {
        let end = self.at.checked_add(n).filter(|e| *e <= self.bytes.len());
        let Some(end) = end else {
            return Err(refused(
                &format!("{what} ({n} bytes) at byte {}", self.at),
                &format!(
                    "the end of the bytes, {} bytes on",
                    self.bytes.len() - self.at.min(self.bytes.len())
                ),
            ));
        };
        let taken = self.bytes.get(self.at..end).unwrap_or_default();
        self.at = end;
        Ok(taken)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], RunError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N, what)?);
        Ok(a)
    }

    fn flag(&mut self, what: &str) -> Result<bool, RunError> {
        let at = self.at;
        match self.array::<1>(what)? {
            [0] => Ok(false),
            [1] => Ok(true),
            [b] => Err(refused(
                &format!("{what} (0 or 1) at byte {at}"),
                &b.to_string(),
            )),
        }
    }

    /// A count of items of at least `least` bytes each, no more than the
    /// bytes left could hold.
    fn count(&mut self, least: usize, what: &str) -> Result<usize, RunError> {
        let at = self.at;
        let n = u32::from_le_bytes(self.array(what)?) as usize;
        let left = self.bytes.len().saturating_sub(self.at);
        if n.saturating_mul(least) > left {
            return Err(refused(
                &format!("{what} at byte {at}, at most {}", left / least.max(1)),
                &n.to_string(),
            ));
        }
        Ok(n)
    }

    fn text(&mut self, what: &str) -> Result<String, RunError> {
        let n = self.count(1, what)?;
        let at = self.at;
        let bytes = self.take(n, what)?;
        String::from_utf8(bytes.to_vec())
            .map_err(|_| refused(&format!("{what} in UTF-8 at byte {at}"), "other bytes"))
    }
}

#[cfg(test)]
mod tests {
    use super::{Envelope, FORMAT, MAC_BYTES, WRIT_VERSION, hmac, open, saved_pause_at, seal};
    use crate::drive::PauseAt;
    use crate::engine::Operation;
    use crate::policy::Decision;

    fn envelope() -> Envelope {
        Envelope {
            program: "ab".repeat(32),
            principal: "ada".into(),
            nonce: "00".repeat(16),
            paid_this_run: 600,
            used_recorded: true,
            output: vec!["a line".into()],
            operations: vec![Operation {
                operation: "Pay.pay".into(),
                arguments: "\"air-one.example\", 600, \"m\"".into(),
                decision: Decision::Allowed,
                rule: "within the caps".into(),
                audit_id: Some(3),
            }],
            audit_ids: vec![3],
            pause_at: PauseAt::Only(vec!["Confirm".into(), "Http.post".into()]),
        }
    }

    #[test]
    fn a_sealed_envelope_opens_as_it_was() {
        let key = [7u8; 32];
        let bytes = seal(&envelope(), b"runtime bytes", &key);
        let (e, runtime) = match open(&bytes, &key) {
            Ok(x) => x,
            Err(e) => panic!("{e:?}"),
        };
        assert_eq!(runtime, b"runtime bytes");
        assert_eq!((e.paid_this_run, e.used_recorded), (600, true));
        assert_eq!(e.operations, envelope().operations);
        assert_eq!(
            (e.output, e.audit_ids),
            (envelope().output, envelope().audit_ids)
        );
        assert_eq!(e.pause_at, envelope().pause_at);
        // Where it pauses is read without the key, and sealed with the
        // rest: changed, the bytes are refused.
        assert_eq!(saved_pause_at(&bytes).ok(), Some(envelope().pause_at));
        let every = Envelope {
            pause_at: PauseAt::Every,
            ..envelope()
        };
        let every = seal(&every, b"runtime bytes", &key);
        assert_eq!(saved_pause_at(&every).ok(), Some(PauseAt::Every));
        let mut changed = bytes.clone();
        let at = changed.len() - MAC_BYTES - 8 - b"runtime bytes".len() - 1;
        changed[at] ^= 1;
        assert!(open(&changed, &key).is_err());
        assert!(saved_pause_at(&bytes[..20]).is_err());
    }

    /// `bytes` with their seal made again under `key` (what only a holder
    /// of the store's key can do).
    fn resealed(mut bytes: Vec<u8>, key: &[u8; 32]) -> Vec<u8> {
        bytes.truncate(bytes.len() - MAC_BYTES);
        let mac = hmac(key, &bytes);
        bytes.extend_from_slice(&mac);
        bytes
    }

    #[test]
    fn another_version_of_writ_or_of_the_format_is_refused_even_when_sealed() {
        let key = [7u8; 32];
        let bytes = seal(&envelope(), b"", &key);
        // Writ's version, just after the magic, the format and its length.
        let at = 8 + 2 + 4;
        let mut other = bytes.clone();
        other[at..at + WRIT_VERSION.len()]
            .copy_from_slice(&"9".repeat(WRIT_VERSION.len()).into_bytes());
        let e = open(&resealed(other, &key), &key).err().map(|e| e.message);
        assert_eq!(
            e,
            Some(format!(
                "snapshot refused: expected a snapshot written by Writ {WRIT_VERSION}, but found one written by Writ {}",
                "9".repeat(WRIT_VERSION.len())
            ))
        );
        let mut newer = bytes;
        newer[8..10].copy_from_slice(&(FORMAT + 1).to_le_bytes());
        let e = open(&resealed(newer, &key), &key).err().map(|e| e.message);
        assert_eq!(
            e,
            Some(format!(
                "snapshot refused: expected a snapshot of format version {FORMAT} at byte 8, but found format version {}, which this version of Writ ({WRIT_VERSION}) does not read",
                FORMAT + 1
            ))
        );
    }

    #[test]
    fn counts_past_the_bytes_left_are_refused_before_anything_is_allocated() {
        let key = [7u8; 32];
        let mut bytes = seal(&envelope(), b"", &key);
        // The number of output lines, after the texts and the fixed fields.
        let at = 8 + 2 + (4 + WRIT_VERSION.len()) + (4 + 64) + (4 + 3) + (4 + 32) + 8 + 1;
        bytes[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = open(&resealed(bytes, &key), &key).err().map(|e| e.message);
        let e = e.unwrap_or_default();
        assert!(
            e.starts_with(&format!(
                "snapshot refused: expected the number of output lines at byte {at}, at most "
            )),
            "{e}"
        );
    }

    #[test]
    fn the_seal_is_hmac_sha256() {
        // The key 0x0b * 32 over "Hi There" (RFC 4231's first case, with
        // a key of our length), checked against Python's `hmac` module.
        let key = [0x0bu8; 32];
        let mac = hmac(&key, b"Hi There");
        let hex: String = mac.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "198a607eb44bfbc69903a0f1cf2bbdc5ba0aa3f3d9ae3c1c7a3b1696a0b68cf7"
        );
    }
}
