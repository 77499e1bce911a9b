//! The page's side of the host: each function the worker calls
//! (`web/static/worker.js`), taking and giving text (JSON where it is
//! data), on one [`Playground`] that lives as long as the worker.
//!
//! Only built for `wasm32`: the functions are thin, and what they call is
//! tested natively (`tests.rs`).

use std::cell::RefCell;
use std::sync::Arc;

use serde_json::{Value as Json, json};
use wasm_bindgen::prelude::*;
use writ_host::store::memory;

use crate::{Playground, ledger_json, record_json};

thread_local! {
    static PLAYGROUND: RefCell<Playground> = RefCell::new(Playground::new());
    static ON_COMMIT: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
}

fn with<T>(f: impl FnOnce(&mut Playground) -> T) -> T {
    PLAYGROUND.with(|p| f(&mut p.borrow_mut()))
}

fn parse(text: &str) -> Json {
    serde_json::from_str(text).unwrap_or(Json::Null)
}

/// Start the host: `entropy` (from `crypto.getRandomValues`) seeds the
/// store's randomness, and `on_commit` is called with the JSON of every
/// write the store commits (`{"store": name, "records": [...], "ledger": [...]}`), as it
/// commits, so the page keeps the log even if it ends the worker.
#[wasm_bindgen]
pub fn init(entropy: &[u8], on_commit: js_sys::Function) {
    crate::add_entropy(entropy);
    ON_COMMIT.with(|c| *c.borrow_mut() = Some(on_commit));
    memory::set_watcher(Some(Arc::new(
        |store: &str, committed: &memory::Committed| {
            let text = json!({
                "store": store,
                "records": committed.records.iter().map(record_json).collect::<Vec<_>>(),
                "ledger": committed.ledger.iter().map(ledger_json).collect::<Vec<_>>(),
            })
            .to_string();
            ON_COMMIT.with(|c| {
                if let Some(f) = c.borrow().as_ref() {
                    // What the page does with it cannot stop the store.
                    let _ = f.call1(&JsValue::NULL, &JsValue::from_str(&text));
                }
            });
        },
    )));
}

/// [`Playground::set_files`], given a JSON object of paths to texts.
#[wasm_bindgen]
pub fn set_files(files: &str) -> String {
    with(|p| p.set_files(&parse(files))).to_string()
}

/// [`Playground::check`].
#[wasm_bindgen]
pub fn check(source: &str, policy: &str) -> String {
    with(|p| p.check(source, policy)).to_string()
}

/// [`Playground::run`].
#[wasm_bindgen]
pub fn run(source: &str, policy: &str) -> String {
    with(|p| p.run(source, policy)).to_string()
}

/// [`Playground::answer`].
#[wasm_bindgen]
pub fn answer(yes: bool) -> String {
    with(|p| p.answer(yes)).to_string()
}

/// [`Playground::plan`].
#[wasm_bindgen]
pub fn plan(source: &str, policy: &str) -> String {
    with(|p| p.plan(source, policy)).to_string()
}

/// [`Playground::approve`].
#[wasm_bindgen]
pub fn approve(id: &str) -> String {
    with(|p| p.approve(id)).to_string()
}

/// [`Playground::audit`].
#[wasm_bindgen]
pub fn audit() -> String {
    with(|p| p.audit()).to_string()
}

/// [`Playground::export`].
#[wasm_bindgen]
pub fn export_store() -> String {
    with(|p| p.export()).to_string()
}

/// [`Playground::import`], given what [`export_store`] gave.
#[wasm_bindgen]
pub fn import_store(contents: &str) -> String {
    with(|p| p.import(&parse(contents))).to_string()
}

/// [`Playground::use_store`].
#[wasm_bindgen]
pub fn use_store(name: &str) -> String {
    with(|p| p.use_store(name)).to_string()
}

/// [`Playground::reset`].
#[wasm_bindgen]
pub fn reset() -> String {
    with(Playground::reset).to_string()
}

/// [`crate::explain`]: the explanation of a code, or `undefined`.
#[wasm_bindgen]
pub fn explain(code: &str) -> Option<String> {
    crate::explain(code)
}
