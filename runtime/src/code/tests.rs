//! Tests of the module's code: its listing, and the check that lets the
//! run loop fetch ops without a bounds test.

#[test]
fn the_listing_shows_the_programs_functions_and_the_library_on_request() {
    let parsed = writ_lang::parse("fn twice(x: Int) -> Int { x * 2 }\ntwice(21)\n");
    let typed = writ_lang::types::check(&parsed.program, &Default::default());
    let module = crate::compile(&parsed.program, &typed).expect("compiles");
    let own = module.listing(false);
    assert!(own.contains(" twice (arity 1,"), "{own}");
    assert!(own.contains("<top level>"), "{own}");
    assert!(!own.contains("list.map"), "{own}");
    assert!(module.listing(true).contains("list.map"));
}

use super::{Arith, Function, Module, Op};

fn function(ops: Vec<Op>) -> Function {
    Function {
        name: "f".to_string(),
        spans: vec![writ_lang::Span::new(0, 0); ops.len()],
        ops,
        ..Function::default()
    }
}

#[test]
fn code_that_cannot_run_past_its_end_passes_its_check() {
    // Each op that never goes on, last.
    for end in [
        Op::Jump(0),
        Op::Return,
        Op::ReturnLocal(0),
        Op::ReturnArith(Arith::Add),
        Op::TailCallFunc(0, 0),
        Op::TailCallSelf(0),
        Op::ResumeTail,
        Op::ResumeTailWith,
        Op::NoMatch,
    ] {
        assert_eq!(function(vec![Op::Unit, end]).verify(), Ok(()), "{end:?}");
    }
    // Jumps to the first op and to the last.
    let f = function(vec![
        Op::JumpIfFalse(0),
        Op::BranchArith(Arith::Lt, 2),
        Op::Return,
    ]);
    assert_eq!(f.verify(), Ok(()));
}

#[test]
fn code_that_could_run_past_its_end_fails_its_check() {
    assert_eq!(function(vec![]).verify(), Err("is empty".to_string()));
    // Ops that go on, last: a call of a value (a native's or a
    // resumption's goes on in the frame), a conditional return, an
    // operation, a jump that may not be taken.
    for last in [
        Op::TailCall(1),
        Op::Call(0),
        Op::ReturnLocalIf(0, Arith::Eq, 0, 0),
        Op::Perform(0, 0, 0),
        Op::JumpIfFalse(0),
    ] {
        assert_eq!(
            function(vec![Op::Unit, last]).verify(),
            Err(format!("ends with {last:?}, which goes on past the end")),
        );
    }
    // A jump to the end, or past it.
    for t in [2, 3, u32::MAX] {
        let f = function(vec![Op::TestEq(t), Op::Return]);
        assert_eq!(
            f.verify(),
            Err(format!("jumps from 0 to {t}, past its 2 ops"))
        );
    }
}

#[test]
fn a_module_counts_the_functions_it_checked() {
    let mut m = Module::default();
    assert!(m.is_verified());
    m.functions.push(function(vec![Op::Return]));
    assert!(!m.is_verified());
    assert_eq!(m.verify(), Ok(()));
    assert!(m.is_verified());
    // A function that fails stops the count at it, and is named.
    m.functions.push(function(vec![Op::Pop]));
    m.functions.push(function(vec![Op::Return]));
    assert_eq!(
        m.verify(),
        Err("the code of function #1 `f` ends with Pop, which goes on past the end".to_string())
    );
    assert_eq!(m.verified, 1);
    assert!(!m.is_verified());
}

#[test]
fn a_module_whose_code_was_not_checked_does_not_run() {
    let parsed = writ_lang::parse("1 + 1\n");
    let typed = writ_lang::types::check(&parsed.program, &Default::default());
    let mut module = crate::compile(&parsed.program, &typed).expect("compiles");
    assert!(module.is_verified());
    let limits = crate::Limits::default();
    let run = |m: &Module| crate::run(m, &limits, &mut crate::LogHost::new(|_: &str| {}), None);
    assert_eq!(run(&module).ok().and_then(|v| v.as_int()), Some(2));
    module.verified = 0;
    let e = run(&module).err().map(|e| (e.code, e.message));
    assert_eq!(
        e,
        Some((
            writ_lang::Code::InternalError,
            "internal error: a module whose code was not checked".to_string()
        ))
    );
}
