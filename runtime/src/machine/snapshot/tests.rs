//! Crafted snapshots: bytes that a real run never writes, each refused
//! with `E4009` and a message naming what was expected and found (or,
//! for a state past the memory limit, `E5002`), never a panic and never
//! unbounded work.

use writ_lang::Code;

use super::{MAGIC, VERSION, kind, restore, tag};
use crate::code::Module;
use crate::error::RunError;
use crate::limits::Limits;

fn module() -> Module {
    let parsed = writ_lang::parse("let t = Clock.now()\nt\n");
    let typed = writ_lang::types::check(&parsed.program, &Default::default());
    crate::compile(&parsed.program, &typed).expect("compiles")
}

/// A snapshot written by hand.
struct Craft {
    out: Vec<u8>,
    /// The index of the next object.
    next: u64,
}

impl Craft {
    /// The header for `module` and a usage of nothing.
    fn new(module: &Module) -> Craft {
        let mut c = Craft {
            out: Vec::new(),
            next: module.literals.len() as u64,
        };
        c.out.extend_from_slice(MAGIC);
        c.out.extend_from_slice(&VERSION.to_le_bytes());
        c.out.extend_from_slice(&module.fingerprint().to_le_bytes());
        for n in [0, 1, 1, 0, 1, 0, 0, 0, 0, 0] {
            c.uint(n);
        }
        c
    }

    fn uint(&mut self, mut n: u64) -> &mut Craft {
        while n >= 0x80 {
            self.out.push((n as u8) | 0x80);
            n >>= 7;
        }
        self.out.push(n as u8);
        self
    }

    fn byte(&mut self, b: u8) -> &mut Craft {
        self.out.push(b);
        self
    }

    /// An object: its kind and contents; its index.
    fn object(&mut self, bytes: &[u8]) -> u64 {
        self.out.extend_from_slice(bytes);
        self.next += 1;
        self.next - 1
    }

    fn object_ref(&mut self, i: u64) -> &mut Craft {
        self.byte(tag::OBJECT).uint(i)
    }

    /// No globals but the module's (all `()`), an empty stack, the top
    /// level's frame, no handlers, and `Clock.now` pending.
    fn rest(&mut self, module: &Module) -> &mut Craft {
        self.uint(module.globals as u64);
        for _ in 0..module.globals {
            self.byte(tag::UNIT);
        }
        self.uint(0);
        self.uint(1)
            .uint(module.main as u64)
            .uint(0)
            .uint(0)
            .byte(3)
            .uint(0);
        self.uint(0);
        self.pending(module)
    }

    fn pending(&mut self, module: &Module) -> &mut Craft {
        let clock = module
            .effects
            .iter()
            .position(|e| e.name == "Clock")
            .expect("Clock");
        self.uint(clock as u64).uint(0).uint(0)
    }
}

fn refused(module: &Module, bytes: &[u8]) -> RunError {
    match restore(module, bytes, &Limits::default(), None) {
        Err(e) => {
            assert_eq!(e.code, Code::SnapshotRefused, "{e:?}");
            e
        }
        Ok(_) => panic!("restored"),
    }
}

#[test]
fn a_minimal_crafted_snapshot_restores_and_runs() {
    let m = module();
    let mut c = Craft::new(&m);
    c.byte(kind::END).rest(&m);
    let p = restore(&m, &c.out, &Limits::default(), None).expect("restores");
    assert_eq!((p.effect(), p.op()), ("Clock", "now"));
}

#[test]
fn a_count_past_the_bytes_left_is_refused_before_allocating() {
    let m = module();
    let mut c = Craft::new(&m);
    c.byte(kind::LIST).uint(1 << 40);
    let e = refused(&m, &c.out);
    assert!(
        e.message
            .ends_with("but found 1099511627776, more than the 0 bytes left could hold"),
        "{}",
        e.message
    );
    let mut c = Craft::new(&m);
    c.byte(kind::STR).uint(u64::MAX);
    refused(&m, &c.out);
}

#[test]
fn an_object_referring_to_itself_or_a_later_one_is_refused() {
    let m = module();
    let mut c = Craft::new(&m);
    let next = c.next;
    c.byte(kind::TUPLE)
        .uint(2)
        .object_ref(next)
        .object_ref(next);
    let e = refused(&m, &c.out);
    assert!(
        e.message.contains("expected an object written before"),
        "{}",
        e.message
    );
}

#[test]
fn overlong_and_oversized_numbers_are_refused() {
    let m = module();
    let mut c = Craft::new(&m);
    c.byte(kind::STR).byte(0x80).byte(0x00);
    let e = refused(&m, &c.out);
    assert!(
        e.message
            .ends_with("but found a number not in its shortest form"),
        "{}",
        e.message
    );
    let mut c = Craft::new(&m);
    c.byte(kind::STR);
    c.out.extend_from_slice(&[0xff; 10]);
    c.byte(0x01);
    let e = refused(&m, &c.out);
    assert!(
        e.message.ends_with("but found a number past 64 bits"),
        "{}",
        e.message
    );
}

#[test]
fn indices_past_the_module_and_bad_frames_are_refused() {
    let m = module();
    let functions = m.functions.len() as u64;
    // A function that does not exist, as a value.
    let mut c = Craft::new(&m);
    c.byte(kind::TUPLE)
        .uint(2)
        .byte(tag::FUNC)
        .uint(functions)
        .byte(tag::UNIT);
    let e = refused(&m, &c.out);
    assert!(
        e.message.contains(&format!(
            "expected a function at byte 33, but found {functions} (there are {functions})"
        )),
        "{}",
        e.message
    );
    // A frame past its function's code, or at its end: the run loop
    // fetches the op at a frame's place without a bounds test, so the
    // place must be one of the function's ops.
    let ops = m.functions[m.main as usize].ops.len() as u64;
    for pc in [ops, ops + 1] {
        let mut c = Craft::new(&m);
        c.byte(kind::END).uint(m.globals as u64);
        for _ in 0..m.globals {
            c.byte(tag::UNIT);
        }
        c.uint(0).uint(1).uint(m.main as u64).uint(pc);
        c.out.extend_from_slice(&[0; 8]);
        let e = refused(&m, &c.out);
        assert!(
            e.message.contains(&format!(
                "expected a frame's place in its code at byte 36, but found {pc} (past {})",
                ops - 1
            )),
            "{}",
            e.message
        );
    }
    // A frame base above the stack.
    let mut c = Craft::new(&m);
    c.byte(kind::END).uint(m.globals as u64);
    for _ in 0..m.globals {
        c.byte(tag::UNIT);
    }
    c.uint(0).uint(1).uint(m.main as u64).uint(0).uint(5);
    c.out.extend_from_slice(&[0; 8]);
    let e = refused(&m, &c.out);
    assert!(
        e.message.contains("expected a frame base from 0 to 0"),
        "{}",
        e.message
    );
    // No top-level frame.
    let mut c = Craft::new(&m);
    c.byte(kind::END).uint(m.globals as u64);
    for _ in 0..m.globals {
        c.byte(tag::UNIT);
    }
    c.uint(0)
        .uint(1)
        .uint(m.main as u64)
        .uint(0)
        .uint(0)
        .byte(0)
        .uint(0)
        .uint(0);
    c.out.extend_from_slice(&[0; 8]);
    let e = refused(&m, &c.out);
    assert!(
        e.message
            .contains("expected the top level's frame at the bottom"),
        "{}",
        e.message
    );
}

#[test]
fn a_hidden_handler_that_is_not_one_and_a_pending_fail_are_refused() {
    let m = module();
    let mut c = Craft::new(&m);
    c.byte(kind::END).uint(m.globals as u64);
    for _ in 0..m.globals {
        c.byte(tag::UNIT);
    }
    c.uint(0)
        .uint(1)
        .uint(m.main as u64)
        .uint(0)
        .uint(0)
        .byte(3)
        .uint(0);
    c.uint(1).byte(0).uint(0);
    let e = refused(&m, &c.out);
    assert!(
        e.message
            .contains("expected a handler below the clause that hides it"),
        "{}",
        e.message
    );

    let mut c = Craft::new(&m);
    c.byte(kind::END).uint(m.globals as u64);
    for _ in 0..m.globals {
        c.byte(tag::UNIT);
    }
    c.uint(0)
        .uint(1)
        .uint(m.main as u64)
        .uint(0)
        .uint(0)
        .byte(3)
        .uint(0)
        .uint(0);
    let fail = m
        .effects
        .iter()
        .position(|e| e.name == "Fail")
        .expect("Fail");
    c.uint(fail as u64).uint(0).uint(0);
    let e = refused(&m, &c.out);
    assert!(
        e.message
            .contains("expected an operation of a host capability"),
        "{}",
        e.message
    );
}

#[test]
fn map_keys_out_of_order_and_keys_too_costly_to_compare_are_refused() {
    let m = module();
    let mut c = Craft::new(&m);
    c.byte(kind::MAP).uint(2);
    c.byte(tag::INT).uint(4).byte(tag::UNIT);
    c.byte(tag::INT).uint(2).byte(tag::UNIT);
    let e = refused(&m, &c.out);
    assert!(
        e.message.contains("expected map keys in increasing order"),
        "{}",
        e.message
    );

    // A chain of 50 tuples, each of the one before twice: comparing two
    // keys built on it visits 2^50 pairs.
    let mut c = Craft::new(&m);
    let mut k = c.object(&[kind::TUPLE, 2, tag::INT, 0, tag::INT, 0]);
    let tuple = || Craft {
        out: vec![kind::TUPLE, 2],
        next: 0,
    };
    for _ in 0..50 {
        let mut o = tuple();
        o.object_ref(k).object_ref(k);
        k = c.object(&o.out);
    }
    // Keys (k, 0) and (k, 1): equal up to their last part.
    let mut o = tuple();
    o.object_ref(k).byte(tag::INT).uint(0);
    let a = c.object(&o.out);
    let mut o = tuple();
    o.object_ref(k).byte(tag::INT).uint(2);
    let b = c.object(&o.out);
    c.byte(kind::MAP)
        .uint(2)
        .object_ref(a)
        .byte(tag::UNIT)
        .object_ref(b)
        .byte(tag::UNIT);
    let started = std::time::Instant::now();
    let e = refused(&m, &c.out);
    assert!(
        e.message.contains(
            "expected map keys that compare within the work a snapshot of this size allows"
        ),
        "{}",
        e.message
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

#[test]
fn a_state_past_the_memory_limit_is_the_memory_limits_error() {
    let m = module();
    let mut c = Craft::new(&m);
    let text = vec![b'x'; 100_000];
    c.byte(kind::STR).uint(text.len() as u64);
    c.out.extend_from_slice(&text);
    c.next += 1;
    c.byte(kind::END).rest(&m);
    assert!(restore(&m, &c.out, &Limits::default(), None).is_ok());
    let small = Limits {
        memory: 50_000,
        ..Limits::default()
    };
    let e = restore(&m, &c.out, &small, None).expect_err("refused");
    assert_eq!(e.code, Code::MemoryExhausted);
}

#[test]
fn huge_counters_are_refused_or_harmless() {
    let m = module();
    let with = |usage: [u64; 10]| {
        let mut c = Craft::new(&m);
        c.out.truncate(20);
        for n in usage {
            c.uint(n);
        }
        c.byte(kind::END).rest(&m);
        c.out
    };
    // Steps past half of u64 cannot come from a run.
    let e = refused(&m, &with([u64::MAX, 1, 1, 0, 1, 0, 0, 0, 0, 0]));
    assert!(
        e.message.contains("expected the steps taken"),
        "{}",
        e.message
    );
    // A countdown of zero would never reach its check.
    let e = refused(&m, &with([0, 1, 0, 0, 1, 0, 0, 0, 0, 0]));
    assert!(
        e.message.contains("at least one step left in the window"),
        "{}",
        e.message
    );
    // Live bytes, peak and output as large as they come: restored under
    // no memory limit, they are only numbers.
    let big = usize::MAX as u64;
    let unlimited = Limits {
        memory: usize::MAX,
        ..Limits::default()
    };
    let p = restore(
        &m,
        &with([0, 1, 1, 0, 1, 0, 0, big, big, big]),
        &unlimited,
        None,
    )
    .expect("restores");
    assert_eq!(p.usage().memory_peak, usize::MAX);
    // The crafted frame is at the top level's start: it asks again.
    let mut progress = p.resume(Ok(crate::Value::int(1)));
    while let crate::Progress::Paused(p) = progress {
        progress = p.resume(Ok(crate::Value::int(2)));
    }
    assert!(matches!(progress, crate::Progress::Done(_)));
    let e = restore(
        &m,
        &with([0, 1, 1, 0, 1, 0, 0, 0, 0, big]),
        &Limits::default(),
        None,
    )
    .expect_err("refused");
    assert_eq!(e.code, Code::MemoryExhausted);
}
