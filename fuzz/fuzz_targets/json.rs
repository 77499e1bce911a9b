//! `json.parse` on any text, called from Writ under tiny limits; what
//! parses is written back with `json.stringify` and must parse to the
//! same text again. One REPL session defines the checking function once;
//! each input is one call of it, so only the call is checked per input.
//! A session keeps every input it accepts (its text and its code), so it
//! is replaced by a fresh one every [`INPUTS_PER_SESSION`] inputs: memory
//! stays bounded over a long run.
#![no_main]

use std::cell::RefCell;

use libfuzzer_sys::fuzz_target;
use writ_host::engine::{Engine, RunOptions};
use writ_host::session::{Event, Session};

const DEFINITION: &str = "fn roundtrip(text: Str) -> Bool {
  match json.parse(text) {
    Ok(j) => {
      let s = json.stringify(j)
      match json.parse(s) { Ok(k) => json.stringify(k) == s, Err(_) => false }
    },
    Err(e) => str.length(e) > 0,
  }
}";

const INPUTS_PER_SESSION: usize = 1000;

thread_local! {
    /// The session and how many inputs it has been given.
    static SESSION: RefCell<Option<(Session, usize)>> = const { RefCell::new(None) };
}

fn session() -> Session {
    let mut s = Session::new(Engine::new(), None, RunOptions::default()).expect("a session");
    *s.limits_mut() = writ_fuzz::tiny_limits();
    let e = s.eval("<definition>", DEFINITION, &mut |_: Event<'_>| {}, None);
    assert!(e.accepted, "{:?}", e.diagnostics);
    s
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    SESSION.with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.as_ref().is_some_and(|(_, n)| *n >= INPUTS_PER_SESSION) {
            *slot = None;
        }
        let (s, n) = slot.get_or_insert_with(|| (session(), 0));
        *n += 1;
        let call = format!("roundtrip({})", writ_fuzz::string_literal(text));
        let e = s.eval("<input>", &call, &mut |_: Event<'_>| {}, None);
        assert!(e.accepted, "{:?}", e.diagnostics);
        if e.error.is_none() {
            let v = e.values.first().map(|v| v.text.as_str());
            assert_eq!(v, Some("true"), "json.parse of {text:?}");
        }
    });
});
