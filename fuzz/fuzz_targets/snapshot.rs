//! Restoring arbitrary bytes as a paused run's snapshot, against a fixed
//! program (`fuzz/src/snapshot.writ`, with handlers, multi-shot
//! continuations, state, a list view, a record and a map): the bytes are
//! refused, or the run restored is resumed under tiny limits, its pauses
//! answered (some with a failure), and snapshotted again at each: never a
//! panic, and every run ends. Seeds: the program's real snapshots.
#![no_main]

use libfuzzer_sys::fuzz_target;
use writ_runtime::{HostError, Progress, Value};

fuzz_target!(|data: &[u8]| {
    let module = writ_fuzz::snapshot_module();
    let limits = writ_fuzz::tiny_limits();
    let Ok(paused) = writ_runtime::restore(module, data, &limits, None) else {
        return;
    };
    let mut progress = Progress::Paused(paused);
    let mut n = 0usize;
    while let Progress::Paused(p) = progress {
        let _ = p.to_bytes();
        n += 1;
        let answer = match (p.effect(), n % 5) {
            (_, 0) => Err(HostError::Fail("refused".to_string())),
            ("Clock", _) => Ok(Value::int(n as i64)),
            ("Confirm", _) => Ok(Value::bool(n.is_multiple_of(2))),
            ("Http", _) => Ok(Value::str("page ✓")),
            _ => Ok(Value::unit()),
        };
        progress = p.resume(answer);
    }
});
