//! What the runtime's tests share: compiling an accepted program, running
//! it under limits, and reading which limit stopped it.

#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use writ_runtime::{Limit, Limits, LogHost, Module, RunError, run};

/// Parse, check and compile `src`, which must be an accepted program.
pub fn compile(src: &str) -> Module {
    let parsed = writ_lang::parse(src);
    assert!(!parsed.has_errors(), "{:#?}", parsed.diagnostics);
    let typed = writ_lang::types::check(&parsed.program, &Default::default());
    assert!(
        !typed.diagnostics.iter().any(|d| d.is_error()),
        "{:#?}",
        typed.diagnostics
    );
    writ_runtime::compile(&parsed.program, &typed).expect("compiles")
}

/// Check, compile and run `src`; the display of its value and its `Log`
/// lines, or the error that stopped it.
pub fn exec(
    src: &str,
    limits: &Limits,
    cancel: Option<&Arc<AtomicBool>>,
) -> (Result<String, RunError>, Vec<String>) {
    let mut lines = Vec::new();
    let result = exec_logging(src, limits, cancel, |l| lines.push(l.to_string()));
    (result, lines)
}

/// [`exec`], telling `on_log` of each `Log` line as it is written.
pub fn exec_logging(
    src: &str,
    limits: &Limits,
    cancel: Option<&Arc<AtomicBool>>,
    on_log: impl FnMut(&str),
) -> Result<String, RunError> {
    let module = compile(src);
    let mut host = LogHost::new(on_log);
    run(&module, limits, &mut host, cancel).map(|v| {
        writ_runtime::display::to_string(
            &v,
            &module,
            writ_runtime::display::StrForm::Quoted,
            10_000,
        )
    })
}

pub fn limits(set: &[(&str, &str)]) -> Limits {
    let mut l = Limits::default();
    for (k, v) in set {
        l.set(k, v).expect("a valid limit");
    }
    l
}

pub fn stopped_by(r: &Result<String, RunError>, limit: Limit) -> &RunError {
    match r {
        Err(e) => {
            assert_eq!(e.limit, Some(limit), "{e:#?}");
            assert_eq!(e.code, limit.code());
            e
        }
        Ok(v) => panic!("expected the {} limit, got the value {v}", limit.name()),
    }
}
