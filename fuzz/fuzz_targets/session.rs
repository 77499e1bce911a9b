//! A REPL session fed a sequence of inputs: the data is split at NUL bytes
//! (or, if it has none, at blank lines) into inputs, each checked and run
//! in turn under tiny limits, with definitions carried from one to the
//! next; `reset` is fed as the input `:reset`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use writ_host::engine::{Engine, RunOptions};
use writ_host::session::{Event, Session};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let inputs: Vec<&str> = if text.contains('\0') {
        text.split('\0').collect()
    } else {
        text.split("\n\n").collect()
    };
    let Ok(mut session) = Session::new(Engine::new(), None, RunOptions::default()) else {
        return;
    };
    *session.limits_mut() = writ_fuzz::tiny_limits();
    let mut quiet = |_: Event<'_>| {};
    for (i, input) in inputs.iter().take(32).enumerate() {
        if input.trim() == ":reset" {
            let _ = session.reset();
            continue;
        }
        let _ = session.eval(&format!("<input {}>", i + 1), input, &mut quiet, None);
    }
});
