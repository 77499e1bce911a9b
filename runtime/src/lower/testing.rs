//! For tests: the module of a program that checks, and the code of one
//! of its functions by name.

use crate::code::{Module, Op};

/// The module of `src`, which must check without errors.
pub(crate) fn compiled(src: &str) -> Module {
    let parsed = writ_lang::parse(src);
    let typed = writ_lang::types::check(&parsed.program, &Default::default());
    assert!(!typed.diagnostics.iter().any(|d| d.is_error()), "{src}");
    crate::compile(&parsed.program, &typed).expect("compiles")
}

/// The code of the function named `name` (empty if there is none).
pub(crate) fn ops_of(module: &Module, name: &str) -> Vec<Op> {
    let f = module.functions.iter().find(|f| f.name == name);
    f.map(|f| f.ops.clone()).unwrap_or_default()
}
