//! Sessions: compiling and running a program one input at a time, as the
//! REPL does.
//!
//! A [`CodeSession`] holds one growing [`Module`] and the values of the
//! top-level `let`s run so far. Each input checked by
//! [`writ_lang::types::session::CheckSession`] is lowered into a copy of the
//! session's module ([`CodeSession::prepare`]): its functions are appended, its
//! top level becomes one more function, and its names are seen by later
//! inputs. [`CodeSession::run`] runs that function with the session's globals;
//! [`CodeSession::commit`] keeps the input.
//!
//! Invariants: values hold indices into the module (functions,
//! constructors, effects), so the module only ever grows and an index
//! stays valid for the whole session. A value is only ever stored in a
//! global of the input that made it; when a run fails, the globals it added
//! are dropped, and without a commit the input's code and names are
//! forgotten, so a failed input defines nothing.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use writ_lang::ast::Program;
use writ_lang::types::Typed;

use crate::lower::Lowerer;
use crate::{Host, Limits, Module, RunError, Value};

/// The compiled state of a session: its module and its globals' values
/// (the running half of `writ_host::session::Session`, beside the checker's
/// `CheckSession`).
pub struct CodeSession {
    lowerer: Lowerer,
    globals: Vec<Value>,
}

/// One input, lowered into a copy of the session's module.
pub struct Prepared {
    lowerer: Lowerer,
    main: u32,
}

impl Prepared {
    /// The module with the input's code added (what a host that displays
    /// or builds values needs while the input runs).
    pub fn module(&self) -> &Module {
        self.lowerer.module()
    }
}

impl CodeSession {
    /// A session holding the standard library and the host capability
    /// `interfaces`.
    pub fn new(interfaces: &[String]) -> Result<CodeSession, RunError> {
        let lowerer = stacker::maybe_grow(crate::STACK_RED_ZONE, crate::STACK_CHUNK, || {
            Lowerer::library_only(interfaces)
        })
        .map_err(RunError::internal)?;
        Ok(CodeSession {
            lowerer,
            globals: Vec::new(),
        })
    }

    /// The value of the top-level `let` named `name`, as a prepared input
    /// sees it once it has run (`None` if the name is not a `let`'s).
    pub fn value(&self, input: &Prepared, name: &str) -> Option<&Value> {
        let g = input.lowerer.session_global(name)?;
        self.globals.get(g as usize)
    }

    /// Lower an input the session's checker accepted (`typed` is what it
    /// found).
    pub fn prepare(&self, program: &Program, typed: &Typed) -> Prepared {
        let mut lowerer = self.lowerer.clone();
        let main = stacker::maybe_grow(crate::STACK_RED_ZONE, crate::STACK_CHUNK, || {
            lowerer.input(program, &typed.resolution)
        });
        Prepared { lowerer, main }
    }

    /// Run a prepared input. On an error, the globals it added are
    /// dropped.
    pub fn run(
        &mut self,
        input: &Prepared,
        limits: &Limits,
        host: &mut dyn Host,
        cancel: Option<&Arc<AtomicBool>>,
    ) -> Result<Value, RunError> {
        let result = crate::machine::run_function(
            input.module(),
            input.main,
            &mut self.globals,
            limits,
            host,
            cancel,
        );
        if result.is_err() {
            self.forget_globals();
        }
        result
    }

    /// Keep a prepared input (after it ran): its code and names stay.
    pub fn commit(&mut self, input: Prepared) {
        self.lowerer = input.lowerer;
    }

    /// Drop the globals past the kept module's count (front to back, so
    /// that a long chain does not recurse as it drops).
    fn forget_globals(&mut self) {
        let keep = self.lowerer.module().globals as usize;
        while self.globals.len() > keep {
            self.globals.pop();
        }
    }
}
