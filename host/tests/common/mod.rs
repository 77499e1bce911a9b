//! Helpers the host's integration tests share: a fresh store path, a
//! checked program run against a store, and that store's audit log as
//! lines.

// Each test crate uses some of these.
#![allow(dead_code)]

use writ_host::engine::{Compiled, Engine, Outcome, RunOptions};
use writ_host::policy::Policy;
use writ_host::store::Store;

/// A store path in the temporary directory for test `name` of `crate_`,
/// with no store at it yet.
pub fn db(crate_: &str, name: &str) -> String {
    let p = std::env::temp_dir().join(format!("writ-{crate_}-{name}-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p.display().to_string()
}

/// Run a checked `program` under `policy` against the store at `db`,
/// dropping its `Log` lines as they come (they are in the outcome).
pub fn run(engine: &Engine, program: &Compiled, policy: &Policy, db: &str) -> Outcome {
    let options = RunOptions {
        store: Some(db.to_string()),
        ..Default::default()
    };
    match engine.run(program, policy, &options, &mut |_: &str| {}) {
        Ok(o) => o,
        Err(e) => panic!("{e:?}"),
    }
}

/// Check `source` under `policy` and [`run`] it.
pub fn run_with(engine: &Engine, source: &str, policy: &Policy, db: &str) -> Outcome {
    let program = match engine.check(source, policy) {
        Ok(p) => p,
        Err(d) => panic!("{d:#?}"),
    };
    run(engine, &program, policy, db)
}

/// The audit records the store at `db` holds, as
/// `operation(arguments) decision: rule`, once its chain verifies.
pub fn audit_lines(db: &str) -> Vec<String> {
    let store = match Store::open(db, None) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    if let Err(e) = store.verify() {
        panic!("the store at {db} does not verify: {e}");
    }
    store
        .records()
        .unwrap_or_default()
        .into_iter()
        .map(|r| {
            format!(
                "{}({}) {}: {}",
                r.operation, r.arguments, r.decision, r.rule
            )
        })
        .collect()
}
