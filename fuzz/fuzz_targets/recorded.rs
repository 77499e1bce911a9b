//! A file of recorded responses (`[[response]]` tables of `url` and
//! `body`): any text, loaded by a run under a policy that names it, with
//! the store in memory. The run fetches one URL and parses it as JSON.
#![no_main]

use std::cell::RefCell;
use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;
use writ_host::engine::{Compiled, Engine, RunOptions};
use writ_host::policy::{self, Policy};

struct Fixture {
    engine: Engine,
    policy: Policy,
    program: Compiled,
    file: PathBuf,
}

thread_local! {
    static FIXTURE: RefCell<Option<Fixture>> = const { RefCell::new(None) };
}

fn fixture() -> Fixture {
    // One directory for every process; each input's file is removed after
    // its run, so nothing is left behind when the process exits.
    let dir = std::env::temp_dir().join("writ-fuzz-recorded");
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let file = dir.join(format!("responses-{}.toml", std::process::id()));
    let text = format!(
        "[principal]\nid = \"fuzz\"\nrole = \"employee\"\n\n[limits]\nfuel = 200000\ntime = \"1s\"\nmemory = \"8M\"\n\n[grants.Log]\n\n[grants.Http]\nrecorded = {:?}\n",
        file.display().to_string()
    );
    let policy = policy::parse(&text).expect("the fuzz policy is valid");
    let engine = Engine::new();
    let program = engine
        .check(
            "match json.parse(Http.get(\"https://a.example/offers\")) {\n  Ok(j) => json.stringify(j),\n  Err(e) => e,\n}\n",
            &policy,
        )
        .expect("the fuzz program is accepted");
    Fixture {
        engine,
        policy,
        program,
        file,
    }
}

fuzz_target!(|data: &[u8]| {
    FIXTURE.with(|f| {
        let mut slot = f.borrow_mut();
        let fx = slot.get_or_insert_with(fixture);
        if std::fs::write(&fx.file, data).is_err() {
            return;
        }
        let options = RunOptions {
            store: Some(":memory:".to_string()),
            ..Default::default()
        };
        let _ = fx
            .engine
            .run(&fx.program, &fx.policy, &options, &mut |_: &str| {});
        let _ = std::fs::remove_file(&fx.file);
    });
});
