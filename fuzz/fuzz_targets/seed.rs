//! A seed for a store in memory (`memory:NAME`): any text, given as the
//! seed file a policy names, read as the `INSERT INTO employees ...
//! VALUES ...` statements the memory store takes (anything else refused
//! whole). A run for an HR officer then lists the records in scope (her
//! reports, direct and not: a walk of the chart the seed made, which ends
//! on a chart with a cycle) and reads each one's name; the store is then
//! dropped.
#![no_main]

use std::sync::{Arc, Mutex, OnceLock};

use libfuzzer_sys::fuzz_target;
use writ_host::engine::{Compiled, Engine, RunOptions};
use writ_host::policy::{self, Policy};
use writ_host::store::memory;

struct Fixture {
    engine: Engine,
    policy: Policy,
    program: Compiled,
}

/// The seed of the input being run, which the engine reads as the file.
fn input() -> &'static Mutex<String> {
    static INPUT: OnceLock<Mutex<String>> = OnceLock::new();
    INPUT.get_or_init(Mutex::default)
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let text = "[principal]\nid = \"h100\"\nrole = \"hr\"\n\n[limits]\nfuel = 200000\ntime = \"1s\"\nmemory = \"8M\"\n\n[store]\nseed = \"seed.sql\"\n\n[grants.Records]\nscope = \"reports\"\n";
        let policy = policy::parse(text).expect("the fuzz policy is valid");
        let engine = Engine::new().with_files(Arc::new(|_: &str| {
            input()
                .lock()
                .map(|s| s.clone())
                .map_err(|_| "poisoned".to_string())
        }));
        let program = engine
            .check(
                "list.map(Records.list(), fn(id) { Records.read(id).name })\n",
                &policy,
            )
            .expect("the fuzz program is accepted");
        Fixture {
            engine,
            policy,
            program,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(mut slot) = input().lock() {
        *slot = text.to_string();
    }
    let fx = fixture();
    let options = RunOptions {
        store: Some("memory:fuzz-seed".to_string()),
        ..Default::default()
    };
    let _ = fx
        .engine
        .run(&fx.program, &fx.policy, &options, &mut |_: &str| {});
    memory::forget("fuzz-seed");
});
