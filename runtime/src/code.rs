//! The core IR: what lowering produces and the machine runs.
//!
//! A program becomes a [`Module`]: a table of [`Function`]s, each a flat
//! list of [`Op`]s for a stack machine, with every variable resolved to a
//! slot (a local of the frame, a captured value of the closure, or a
//! global of the program). Closures list their captures explicitly;
//! matches are compiled to tests and jumps; `perform` and `handle` are
//! ops of their own.
//!
//! Invariants: a module is plain data (no run-time values), so it can be
//! shared between threads and run many times; every jump target is inside
//! its function; every index an op holds is valid in its module (lowering
//! only emits what it allocated). The machine still checks indices and
//! stops with an internal error rather than panicking if one is not.

use serde::{Deserialize, Serialize};
use writ_lang::Span;

/// A compiled program, with the standard library it uses: what [`run`]
/// runs, and what names the constructors, fields and functions of the
/// values a run makes ([`Value::record`], [`display::to_string`]).
/// Opaque: the bytecode is not part of the runtime's API.
///
/// [`run`]: crate::run
/// [`Value::record`]: crate::Value::record
/// [`display::to_string`]: crate::display::to_string
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Module {
    /// Every function: top-level, local, lambdas, handler clauses,
    /// library functions written in Writ, and the top level itself.
    pub(crate) functions: Vec<Function>,
    /// Literal values.
    pub(crate) literals: Vec<Literal>,
    /// Record field names, by symbol.
    pub(crate) symbols: Vec<String>,
    /// Record shapes: field symbols sorted by name.
    pub(crate) shapes: Vec<Vec<u32>>,
    /// Constructors, by constructor id.
    pub(crate) ctors: Vec<CtorInfo>,
    /// Effects, by effect id.
    pub(crate) effects: Vec<EffectInfo>,
    /// Handlers, by handler id.
    pub(crate) handlers: Vec<HandlerInfo>,
    /// The natives a program may call, by native id.
    pub(crate) natives: Vec<NativeInfo>,
    /// How many global slots the top level needs.
    pub(crate) globals: u32,
    /// The function that runs the top-level statements.
    pub(crate) main: u32,
    /// The prelude's constructors.
    pub(crate) prelude: PreludeCtors,
    /// The inputs the host declared, in the order declared, each with its
    /// global slot.
    pub(crate) inputs: Vec<ModuleInput>,
    /// How many of `functions`, from the first, have had their code
    /// checked ([`Module::verify`]). Lowering only appends functions, so
    /// the ones counted here never change again. Not part of an image: a
    /// module read from bytes is checked again.
    #[serde(skip)]
    pub(crate) verified: usize,
}

/// One input a module was compiled with.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct ModuleInput {
    /// Its name.
    pub(crate) name: String,
    /// Its declared type.
    pub(crate) ty: writ_lang::types::InputType,
    /// The global slot that holds its value.
    pub(crate) global: u32,
}

impl Module {
    /// The symbol of a record field name, if the program or its library
    /// declares or uses it.
    pub(crate) fn symbol(&self, name: &str) -> Option<u32> {
        self.symbols
            .iter()
            .position(|s| s == name)
            .map(|i| i as u32)
    }

    /// The inputs the program was checked and compiled with: each name
    /// and declared type, in the order declared.
    pub fn inputs(&self) -> impl Iterator<Item = (&str, &writ_lang::types::InputType)> {
        self.inputs.iter().map(|i| (i.name.as_str(), &i.ty))
    }

    /// The id of a constructor, by name.
    pub(crate) fn ctor(&self, name: &str) -> Option<u32> {
        self.ctors
            .iter()
            .position(|c| c.name == name)
            .map(|i| i as u32)
    }

    /// Check the code of the functions added since the last check
    /// ([`Function::verify`]). The run loop runs only a module whose
    /// functions are all checked ([`Module::is_verified`]), and then
    /// fetches ops without a bounds test. An error names the first
    /// function that failed (a bug in lowering, never in a program).
    pub(crate) fn verify(&mut self) -> Result<(), String> {
        for (i, f) in self.functions.iter().enumerate().skip(self.verified) {
            f.verify()
                .map_err(|e| format!("the code of function #{i} `{}` {e}", f.name))?;
            self.verified = i + 1;
        }
        Ok(())
    }

    /// Whether every function's code has been checked.
    pub(crate) fn is_verified(&self) -> bool {
        self.verified == self.functions.len()
    }
}

impl Module {
    /// A fingerprint of the module: a 64-bit hash of everything a run's
    /// state refers to by index or depends on to mean the same — each
    /// function's name, arity, locals, captures and code, the literals,
    /// record symbols and shapes, constructors, effects, handlers,
    /// natives, the global count and the top level. Spans are left out
    /// (they only place errors). Deterministic for a given build of the
    /// runtime (the same module gives the same fingerprint in every
    /// process), not a cryptographic hash: a snapshot names the module it
    /// was taken of with it, so one for another module is refused.
    pub(crate) fn fingerprint(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = WordHash::default();
        self.functions.len().hash(&mut h);
        for f in &self.functions {
            (&f.name, f.arity, f.locals, &f.captures, &f.ops, f.library).hash(&mut h);
        }
        self.literals.len().hash(&mut h);
        for l in &self.literals {
            match l {
                Literal::Float(x) => (0u8, x.to_bits()).hash(&mut h),
                Literal::Str(s) => (1u8, s).hash(&mut h),
            }
        }
        (&self.symbols, &self.shapes).hash(&mut h);
        self.ctors.len().hash(&mut h);
        for c in &self.ctors {
            (&c.name, c.arity, c.siblings).hash(&mut h);
        }
        self.effects.len().hash(&mut h);
        for e in &self.effects {
            (&e.name, &e.ops).hash(&mut h);
        }
        self.handlers.len().hash(&mut h);
        for x in &self.handlers {
            (x.closures, x.has_return, x.has_param).hash(&mut h);
            x.clauses.len().hash(&mut h);
            for c in &x.clauses {
                (c.effect, c.op, c.clause, c.tail_resumptive, c.abortive).hash(&mut h);
            }
        }
        self.natives.len().hash(&mut h);
        for n in &self.natives {
            (&n.name, n.arity, n.entry).hash(&mut h);
        }
        (self.globals, self.main).hash(&mut h);
        h.finish()
    }
}

/// A word-at-a-time multiplicative hash (the Fx hash's step, with a
/// final avalanche): deterministic (unlike the standard library's
/// randomly keyed hasher) and cheap.
#[derive(Default)]
struct WordHash(u64);

impl std::hash::Hasher for WordHash {
    fn finish(&self) -> u64 {
        let mut x = self.0;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        x ^ (x >> 33)
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(word));
        }
        for &b in chunks.remainder() {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

/// What lowering produced, as text for a person reading it (the `dump`
/// example): each handler, then each function with its ops. Only with
/// the feature `internals`, which is off by default: the bytecode is not
/// part of the runtime's API, and this text's form is not stable.
#[cfg(any(test, feature = "internals"))]
impl Module {
    /// The listing; the standard library's functions only with `library`.
    pub fn listing(&self, library: bool) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        for (i, h) in self.handlers.iter().enumerate() {
            let _ = writeln!(out, "handler #{i}: {h:?}");
        }
        for (i, f) in self.functions.iter().enumerate() {
            if f.library && !library {
                continue;
            }
            let _ = writeln!(
                out,
                "fn #{i} {} (arity {}, locals {}, captures {:?})",
                f.name, f.arity, f.locals, f.captures
            );
            for (pc, op) in f.ops.iter().enumerate() {
                let _ = writeln!(out, "  {pc:4} {op:?}");
            }
        }
        out
    }
}

/// A literal in the program text that an op cannot hold inline (an
/// integer is an operand of [`Op::Int`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Literal {
    /// A float.
    Float(f64),
    /// A string.
    Str(String),
}

/// A constructor of a sum type.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CtorInfo {
    /// Its name.
    pub name: String,
    /// How many fields it takes.
    pub arity: u32,
    /// How many constructors its type has (a `match` testing them all
    /// need not test the last).
    pub siblings: u32,
}

/// An effect and its operations.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EffectInfo {
    /// Its name.
    pub name: String,
    /// Its operations' names, by operation index.
    pub ops: Vec<String>,
}

/// How a handler handles one operation.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ClauseInfo {
    /// The effect handled.
    pub effect: u32,
    /// The operation handled.
    pub op: u32,
    /// Which of the handler's clause closures runs it.
    pub clause: u32,
    /// Whether the clause resumes only in tail position, so it runs where
    /// the operation was performed, without capturing the continuation.
    pub tail_resumptive: bool,
    /// Whether the clause never uses its `resume`, so the continuation is
    /// discarded rather than captured.
    pub abortive: bool,
    /// For a clause that only resumes with its arguments, its parameter or
    /// constants (`resume(s, s)`, `resume((), v)`): what it resumes with,
    /// so that the machine needs no frame to run it.
    pub simple: Option<SimpleClause>,
}

/// A clause whose whole body is `resume(result)` or
/// `resume(result, next)`, each an [`Operand`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimpleClause {
    /// The operation's result.
    pub result: Operand,
    /// The handler's next parameter (`None`: unchanged).
    pub next: Option<Operand>,
}

/// A value a simple clause resumes with.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Operand {
    /// The operation's argument at this index.
    Arg(u32),
    /// The handler's parameter.
    Param,
    /// `()`
    Unit,
    /// An integer constant.
    Int(i64),
    /// A boolean constant.
    Bool(bool),
    /// `x op y` on two [`Atom`]s that hold `Int`s, with `+`, `-`, `*` or a
    /// comparison (`s + e`, `n - 1`). Anything else (a value that is not
    /// an `Int`, an overflow) runs the clause in its frame instead, which
    /// computes it as the program says.
    Arith(Arith, Atom, Atom),
}

/// A leaf of an [`Operand::Arith`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Atom {
    /// The operation's argument at this index.
    Arg(u32),
    /// The handler's parameter.
    Param,
    /// An integer constant.
    Int(i64),
}

/// A `handle ... with { ... }`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HandlerInfo {
    /// The operation clauses.
    pub clauses: Vec<ClauseInfo>,
    /// How many clause closures the handler holds (one per operation
    /// clause, plus the return clause if any).
    pub closures: u32,
    /// Whether there is a `return(x)` clause (the last closure).
    pub has_return: bool,
    /// Whether the handler has a parameter `(p = init)`.
    pub has_param: bool,
}

/// A native function's entry.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct NativeInfo {
    /// `namespace.name`.
    pub name: String,
    /// How many arguments it takes.
    pub arity: u32,
    /// Its index in the table of native implementations.
    pub entry: u32,
}

/// The constructors of the prelude's types, which natives build.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct PreludeCtors {
    /// `Some`
    pub some: u32,
    /// `None`
    pub none: u32,
    /// `Ok`
    pub ok: u32,
    /// `Err`
    pub err: u32,
    /// `Null`
    pub null: u32,
    /// `Bool`
    pub bool: u32,
    /// `Number`
    pub number: u32,
    /// `String`
    pub string: u32,
    /// `Array`
    pub array: u32,
    /// `Object`
    pub object: u32,
}

/// One function's code.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Function {
    /// Its name for stack traces (`f`, `list.map`, `<lambda>`, `<top level>`).
    pub name: String,
    /// How many parameters it takes.
    pub arity: u32,
    /// How many local slots its frame needs (parameters included).
    pub locals: u32,
    /// Where its captured values come from, in the defining frame.
    pub captures: Vec<CaptureFrom>,
    /// The code.
    pub ops: Vec<Op>,
    /// The source span of each op (for errors and stack traces).
    pub spans: Vec<Span>,
    /// Whether it is standard-library code (its spans are not in the
    /// program's text).
    pub library: bool,
}

impl Function {
    /// Check that running the code can never take the program counter
    /// past its end: there is code, its last op never goes on to the next
    /// ([`Op::ends`]), and every jump lands on one of its ops. With that,
    /// every program counter the machine makes is in range: a new frame
    /// starts at 0, a jump goes to a checked target, and an op that goes
    /// on is not the last, so the one after it exists (a frame left by a
    /// call goes on there when the call returns).
    pub(crate) fn verify(&self) -> Result<(), String> {
        let n = self.ops.len();
        match self.ops.last() {
            None => return Err("is empty".to_string()),
            Some(op) if !op.ends() => {
                return Err(format!("ends with {op:?}, which goes on past the end"));
            }
            Some(_) => {}
        }
        for (at, op) in self.ops.iter().enumerate() {
            if let Some(t) = op.target()
                && t as usize >= n
            {
                return Err(format!("jumps from {at} to {t}, past its {n} ops"));
            }
        }
        Ok(())
    }
}

/// Where a closure's captured value is taken from when it is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CaptureFrom {
    /// A local slot of the defining frame.
    Local(u32),
    /// A captured value of the defining closure.
    Capture(u32),
    /// The defining closure itself (a local function naming itself).
    SelfFn,
}

/// The arithmetic and comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Arith {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `++`
    Concat,
}

/// One instruction of the stack machine. "Push" and "pop" refer to the
/// frame's operand stack; locals live at the bottom of the frame.
#[derive(Clone, Copy, Debug, PartialEq, Hash, Serialize, Deserialize)]
pub enum Op {
    /// Push `()`.
    Unit,
    /// Push a boolean.
    Bool(bool),
    /// Push an integer.
    Int(i64),
    /// Push a literal.
    Literal(u32),
    /// Push a local.
    Local(u32),
    /// Push a local and leave `()` in its slot: its last read (see
    /// `lower::liveness`).
    MoveLocal(u32),
    /// Pop into a local.
    SetLocal(u32),
    /// Push a captured value.
    Capture(u32),
    /// Push a captured value on its last read in the running function
    /// (see `lower::liveness`): moved out of the closure, leaving `()`,
    /// when the running frame holds the only reference to the closure;
    /// copied otherwise.
    MoveCapture(u32),
    /// Push the running closure itself.
    SelfFn,
    /// Push a global.
    Global(u32),
    /// Pop into a global.
    SetGlobal(u32),
    /// Push a function that captures nothing.
    Func(u32),
    /// Push a native function.
    Native(u32),
    /// Make a closure of a function, taking its captures as its
    /// [`Function::captures`] say.
    Closure(u32),
    /// Drop the top of the stack.
    Pop,
    /// Pop two operands, push the result.
    Arith(Arith),
    /// Push `local op constant` (a fused `Local`, `Int`, `Arith`).
    LocalIntArith(u32, i32, Arith),
    /// Push `constant op local` (a fused `Int`, `Local`, `Arith`: `2 * n`,
    /// `10 - i`): constant, local, operator.
    IntLocalArith(i32, u32, Arith),
    /// Push `local op local` (a fused `Local`, `Local`, `Arith`).
    LocalLocalArith(u32, u32, Arith),
    /// Jump to the target unless `local cmp constant` holds (a fused
    /// `LocalIntArith` and `JumpIfFalse`): local, comparison, constant,
    /// target.
    BranchLocalInt(u16, Arith, i32, u32),
    /// Jump to the target unless `local cmp local` holds: locals,
    /// comparison, target.
    BranchLocalLocal(u16, u16, Arith, u32),
    /// Pop two operands; jump to the target unless `x cmp y` holds (a
    /// fused comparison `Arith` and `JumpIfFalse`, for operands that are
    /// not both locals or a local and a constant): comparison, target.
    BranchArith(Arith, u32),
    /// Negate a number.
    Neg,
    /// Boolean not.
    Not,
    /// Jump to an op index.
    Jump(u32),
    /// Pop a boolean; jump if it is false.
    JumpIfFalse(u32),
    /// Call the callee below the `n` arguments on top of the stack.
    Call(u32),
    /// As `Call`, replacing the running frame.
    TailCall(u32),
    /// Call a known function (no callee on the stack): function, arguments.
    CallFunc(u32, u32),
    /// Call a known function with one argument, `local op constant` (a
    /// fused `LocalIntArith` and `CallFunc(f, 1)`: `f(n - 1)`): function,
    /// local, constant, operator.
    CallFuncLocalInt(u32, u16, i32, Arith),
    /// As `CallFunc`, replacing the running frame.
    TailCallFunc(u32, u32),
    /// A tail call of the running function itself, with `n` arguments
    /// (a function calling itself by its own name as the last thing it
    /// does): the arguments replace the frame's locals, and the frame
    /// keeps its function and closure.
    TailCallSelf(u32),
    /// Return the top of the stack from the frame.
    Return,
    /// Return a local from the frame (a fused `Local` or `MoveLocal` and
    /// `Return`; the local is moved out, as the frame ends).
    ReturnLocal(u32),
    /// Return a local from the frame if `local cmp constant` holds, else
    /// go on (a fused `BranchLocalInt` and the `ReturnLocal` it skips:
    /// `if n < 2 { n } else { ... }`): the local tested, the comparison,
    /// the constant, the local returned.
    ReturnLocalIf(u16, Arith, i32, u16),
    /// Return an integer constant from the frame if `local cmp constant`
    /// holds, else go on (a fused `BranchLocalInt` and the `Int`, `Return`
    /// it skips: `if k == 0 { 0 } else { ... }`): the local tested, the
    /// comparison, the constant compared with, the constant returned.
    ReturnIntIf(u16, Arith, i32, i32),
    /// Pop two operands and return the result (a fused `Arith` and
    /// `Return`: `f(x) + g(y)` as a function's value).
    ReturnArith(Arith),
    /// Pop `n` values into a tuple.
    Tuple(u32),
    /// Pop `n` values into a list.
    List(u32),
    /// Pop a value and a list; push the list with the value added at its
    /// end (`acc ++ [x]`, the fused `List(1); Arith(Concat)`): in place
    /// when nothing else holds the list.
    Push,
    /// Pop the values of a record of the given shape (in shape order).
    Record(u32),
    /// Pop a record and the values of the fields given by the shape; push
    /// the record with those fields replaced.
    Update(u32),
    /// Pop `n` fields into a constructor.
    Variant(u32, u32),
    /// Pop a record; push one of its fields (by symbol).
    Field(u32),
    /// Pop a tuple, variant or record value; push its part at an index.
    Part(u32),
    /// Pop `n` values; push the concatenation of their display forms
    /// (strings as they are).
    Interp(u32),
    /// Pop a value; jump unless it is the given constructor.
    TestCtor(u32, u32),
    /// Pop two values; jump unless they are equal.
    TestEq(u32),
    /// Pop a list; jump unless its length is exactly `n`.
    TestLen(u32, u32),
    /// Pop a list; jump unless its length is at least `n`.
    TestMinLen(u32, u32),
    /// Pop a list; push its element at an index.
    Item(u32),
    /// Pop a list; push it without its first `n` elements.
    DropItems(u32),
    /// Jump unless the list in a local has exactly `n` elements (a fused
    /// `Local` and `TestLen`): local, `n`, target.
    TestLenLocal(u32, u32, u32),
    /// Jump unless the list in a local has at least `n` elements (a
    /// fused `Local` and `TestMinLen`): local, `n`, target.
    TestMinLenLocal(u32, u32, u32),
    /// Jump if the list in a local has exactly `n` elements (a fused
    /// `TestLenLocal` whose failure goes to the op after the `Jump` that
    /// follows it): local, `n`, target.
    JumpLenLocal(u32, u32, u32),
    /// Set a local to an element of the list in another (a fused `Local`,
    /// `Item` and `SetLocal`): the list's local, the index, the local set.
    ItemLocal(u32, u32, u32),
    /// Move the list out of a local and set another to it without its
    /// first `n` elements, in place when nothing else holds it (a fused
    /// `MoveLocal`, `DropItems` and `SetLocal`): the list's local, `n`,
    /// the local set.
    DropItemsLocal(u32, u32, u32),
    /// Set a local to a part of the tuple, variant or record in another
    /// (a fused `Local`, `Part` and `SetLocal`: `let (i, j) = st`): the
    /// value's local, the part's index, the local set.
    PartLocal(u32, u32, u32),
    /// As `PartLocal` on the value's last read: it is moved out of its
    /// local (leaving `()`) and let go once its part is taken (a fused
    /// `MoveLocal`, `Part` and `SetLocal`).
    TakePartLocal(u32, u32, u32),
    /// Move a local into another, leaving `()` (a fused `MoveLocal` and
    /// `SetLocal`): from, to.
    MoveToLocal(u32, u32),
    /// One step of a walk over a list by index: jump to the target when
    /// the `Int` in the second local has reached the length of the list
    /// in the first; otherwise push the element at that index and add
    /// one to it. The list's local, the index's local, the target.
    Each(u32, u32, u32),
    /// Call the function value held in a local with the `n` arguments on
    /// top of the stack (a `Local` pushed below the arguments, then
    /// `Call`, without moving the arguments down over it): local, `n`.
    CallLocal(u32, u32),
    /// Push an empty list with room for as many elements as the list in
    /// a local has (what `list.map` makes of it), the room checked
    /// against the memory limit and charged.
    ListFor(u32),
    /// Pop a value and add it at the end of the list in a local (`acc ++
    /// [x]` for a list held in a slot): in place when nothing else holds
    /// the list.
    AppendLocal(u32),
    /// A match that matched nothing (unreachable in a checked program).
    NoMatch,
    /// Pop `n` arguments and perform an operation: effect, operation,
    /// argument count.
    Perform(u32, u32, u32),
    /// Install a handler and run its body: pops the body thunk, then the
    /// clause closures, then the initial parameter (if any).
    Handle(u32),
    /// In a tail-resumptive clause: return the top of the stack to where
    /// the operation was performed.
    ResumeTail,
    /// As `ResumeTail` for a parameterised handler: pops the next
    /// parameter, then the result.
    ResumeTailWith,
    /// Pop an operand, push `x op constant` (a fused `Int`, `Arith`:
    /// `x % 1009` of any `x`): operator, constant.
    ArithInt(Arith, i64),
    /// Pop an operand; jump to the target unless `x cmp constant` holds
    /// (a fused `ArithInt` and `JumpIfFalse`: `e % i == 0`): comparison,
    /// constant, target.
    BranchInt(Arith, i64, u32),
    /// Jump unless the value in a local is the given constructor (a fused
    /// `Local` and `TestCtor`, the value left in its slot): local,
    /// constructor, target.
    TestCtorLocal(u32, u32, u32),
    /// Call a known native (no callee on the stack) with the `n`
    /// arguments on top of the stack, pushing its result: native, `n`.
    CallNative(u32, u32),
    /// Push `local op capture` (a fused `Local` or `MoveLocal`, `Capture`
    /// or `MoveCapture`, and `Arith`: `x > limit` in a closure): `Int`
    /// with `Int` inline, read where they are; anything else through the
    /// machine's arithmetic, the local moved out first when the flag
    /// says it was a last read (so `acc ++ suffix` can still append in
    /// place). Local, capture, operator, moved.
    LocalCaptureArith(u16, u16, Arith, bool),
    /// Jump unless `local cmp capture` holds (a fused `Local` or
    /// `MoveLocal`, `Capture` or `MoveCapture`, and `BranchArith`), the
    /// local moved out as for `LocalCaptureArith`: local, capture,
    /// comparison, moved, target.
    BranchLocalCapture(u16, u16, Arith, bool, u32),
}

// The run loop fetches an op per step: it stays two words.
const _: () = assert!(std::mem::size_of::<Op>() == 16);

impl Op {
    /// The jump target this op holds, if any: the one list of the ops
    /// that jump, which lowering patches, the peephole pass remaps and
    /// the liveness pass follows.
    pub(crate) fn target_mut(&mut self) -> Option<&mut u32> {
        match self {
            Op::Jump(t)
            | Op::JumpIfFalse(t)
            | Op::TestCtor(_, t)
            | Op::TestCtorLocal(_, _, t)
            | Op::BranchInt(_, _, t)
            | Op::TestEq(t)
            | Op::TestLen(_, t)
            | Op::TestMinLen(_, t)
            | Op::TestLenLocal(_, _, t)
            | Op::TestMinLenLocal(_, _, t)
            | Op::JumpLenLocal(_, _, t)
            | Op::Each(_, _, t)
            | Op::BranchLocalInt(_, _, _, t)
            | Op::BranchLocalLocal(_, _, _, t)
            | Op::BranchLocalCapture(_, _, _, _, t)
            | Op::BranchArith(_, t) => Some(t),
            // Every other op, named: a new op must say whether it jumps
            // (the code's check, [`Function::verify`], relies on this
            // list being whole).
            Op::Unit
            | Op::Bool(..)
            | Op::Int(..)
            | Op::Literal(..)
            | Op::Local(..)
            | Op::MoveLocal(..)
            | Op::SetLocal(..)
            | Op::Capture(..)
            | Op::MoveCapture(..)
            | Op::SelfFn
            | Op::Global(..)
            | Op::SetGlobal(..)
            | Op::Func(..)
            | Op::Native(..)
            | Op::Closure(..)
            | Op::Pop
            | Op::Arith(..)
            | Op::LocalIntArith(..)
            | Op::IntLocalArith(..)
            | Op::LocalLocalArith(..)
            | Op::Neg
            | Op::Not
            | Op::Call(..)
            | Op::TailCall(..)
            | Op::CallFunc(..)
            | Op::CallFuncLocalInt(..)
            | Op::TailCallFunc(..)
            | Op::TailCallSelf(..)
            | Op::Return
            | Op::ReturnLocal(..)
            | Op::ReturnLocalIf(..)
            | Op::ReturnIntIf(..)
            | Op::ReturnArith(..)
            | Op::Tuple(..)
            | Op::List(..)
            | Op::Push
            | Op::Record(..)
            | Op::Update(..)
            | Op::Variant(..)
            | Op::Field(..)
            | Op::Part(..)
            | Op::Interp(..)
            | Op::Item(..)
            | Op::DropItems(..)
            | Op::ItemLocal(..)
            | Op::DropItemsLocal(..)
            | Op::PartLocal(..)
            | Op::TakePartLocal(..)
            | Op::MoveToLocal(..)
            | Op::CallLocal(..)
            | Op::ListFor(..)
            | Op::AppendLocal(..)
            | Op::NoMatch
            | Op::Perform(..)
            | Op::Handle(..)
            | Op::ResumeTail
            | Op::ResumeTailWith
            | Op::ArithInt(..)
            | Op::CallNative(..)
            | Op::LocalCaptureArith(..) => None,
        }
    }

    /// The jump target this op holds, if any (see [`Op::target_mut`]).
    pub(crate) fn target(mut self) -> Option<u32> {
        self.target_mut().map(|t| *t)
    }

    /// Whether the op never goes on to the next one: a jump, a return of
    /// the frame (a clause's `resume` in place included), a call that
    /// takes the frame over (a known function or the running one; a call
    /// of a value may be a native's or a resumption's, which go on in
    /// the frame), a match that matched nothing. Every function ends with
    /// one ([`Function::verify`]), which is what lets the run loop fetch
    /// ops without a bounds test.
    pub(crate) fn ends(&self) -> bool {
        matches!(
            self,
            Op::Jump(_)
                | Op::Return
                | Op::ReturnLocal(_)
                | Op::ReturnArith(_)
                | Op::TailCallFunc(..)
                | Op::TailCallSelf(_)
                | Op::ResumeTail
                | Op::ResumeTailWith
                | Op::NoMatch
        )
    }
}

#[cfg(test)]
mod tests;
