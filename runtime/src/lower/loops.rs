//! The standard library's walks over a list, as loops over an index.
//!
//! `list.map`, `list.each`, `list.filter`, `list.fold`, `list.find`,
//! `list.any` and `list.all` are written in Writ (`stdlib/list.writ`) as a
//! local function matching `[x, ..tail]` and calling itself: that text is
//! what the checker reads and what the reference documents. Lowered as
//! written, each element costs about a dozen ops (the pattern's tests,
//! the element and the rest taken apart, the arguments of the next call
//! moved into place). Their code here is the same walk as a loop: one
//! [`Op::Each`] takes the next element by index, [`Op::CallLocal`] calls
//! the function argument where it lies, [`Op::AppendLocal`] adds a result
//! to the accumulator in place; four ops an element for `list.map`.
//!
//! Invariants: each loop does what its Writ text does, in the same order:
//! the same calls of the function argument with the same arguments, the
//! same effects, the same result, and it stops where the text stops
//! (`find`, `any` and `all` at the first decisive element). Its state is
//! ordinary locals of an ordinary frame (the list, an `Int` index, the
//! accumulator), so capturing, copying, resuming many times, pausing and
//! snapshots need nothing of their own. A run takes fewer steps than the
//! text would (fuel counts the ops the machine runs). The tests run each
//! one beside its text lowered as written.

use writ_lang::Span;

use crate::code::{Function, Op};

/// The ops and the number of locals of the library function `name` with
/// `arity` parameters, when it is one of the walks above; `some` and
/// `none` are the ids of the prelude's `Some` and `None`.
fn code(name: &str, arity: u32, some: u32, none: u32) -> Option<(u32, Vec<Op>)> {
    use Op::*;
    let (locals, ops) = match (name, arity) {
        // xs 0, f 1, i 2, acc 3
        ("list.map", 2) => (
            4,
            vec![
                Int(0),
                SetLocal(2),
                ListFor(0),
                SetLocal(3),
                Each(0, 2, 8),
                CallLocal(1, 1),
                AppendLocal(3),
                Jump(4),
                ReturnLocal(3),
            ],
        ),
        // xs 0, f 1, i 2
        ("list.each", 2) => (
            3,
            vec![
                Int(0),
                SetLocal(2),
                Each(0, 2, 6),
                CallLocal(1, 1),
                Pop,
                Jump(2),
                Unit,
                Return,
            ],
        ),
        // xs 0, keep 1, i 2, acc 3, x 4
        ("list.filter", 2) => (
            5,
            vec![
                Int(0),
                SetLocal(2),
                List(0),
                SetLocal(3),
                Each(0, 2, 12),
                SetLocal(4),
                Local(4),
                CallLocal(1, 1),
                JumpIfFalse(4),
                MoveLocal(4),
                AppendLocal(3),
                Jump(4),
                ReturnLocal(3),
            ],
        ),
        // xs 0, acc 1, f 2, i 3: the accumulator is pushed before the
        // element, so at the end of the list it is on top, returned.
        ("list.fold", 3) => (
            4,
            vec![
                Int(0),
                SetLocal(3),
                MoveLocal(1),
                Each(0, 3, 7),
                CallLocal(2, 2),
                SetLocal(1),
                Jump(2),
                Return,
            ],
        ),
        // xs 0, pred 1, i 2, x 3
        ("list.find", 2) => (
            4,
            vec![
                Int(0),
                SetLocal(2),
                Each(0, 2, 10),
                SetLocal(3),
                Local(3),
                CallLocal(1, 1),
                JumpIfFalse(2),
                MoveLocal(3),
                Variant(some, 1),
                Return,
                Variant(none, 0),
                Return,
            ],
        ),
        // xs 0, pred 1, i 2
        ("list.any", 2) => (
            3,
            vec![
                Int(0),
                SetLocal(2),
                Each(0, 2, 7),
                CallLocal(1, 1),
                JumpIfFalse(2),
                Bool(true),
                Return,
                Bool(false),
                Return,
            ],
        ),
        // xs 0, pred 1, i 2
        ("list.all", 2) => (
            3,
            vec![
                Int(0),
                SetLocal(2),
                Each(0, 2, 8),
                CallLocal(1, 1),
                JumpIfFalse(6),
                Jump(2),
                Bool(false),
                Return,
                Bool(true),
                Return,
            ],
        ),
        _ => return None,
    };
    Some((locals, ops))
}

/// The loop for the library function `name` (see the module's text), if
/// it is one, with `some` and `none` the ids of the prelude's `Some` and
/// `None` and every op placed at `span` (the function's text).
pub(super) fn function(
    name: &str,
    arity: u32,
    some: u32,
    none: u32,
    span: Span,
) -> Option<Function> {
    let (locals, ops) = code(name, arity, some, none)?;
    Some(Function {
        name: name.to_string(),
        arity,
        locals,
        captures: Vec::new(),
        spans: vec![span; ops.len()],
        ops,
        library: true,
    })
}

#[cfg(test)]
mod tests {
    use crate::code::Module;
    use crate::error::RunError;
    use crate::host::LogHost;
    use crate::limits::Limits;

    /// What a run showed: its value (or its error's code and message) and
    /// its `Log` lines, with the fuel it used.
    fn outcome(module: &Module) -> (Result<String, String>, Vec<String>, u64) {
        let mut lines = Vec::new();
        let mut host = LogHost::new(|l: &str| lines.push(l.to_string()));
        let (result, usage) = crate::run_measured(module, &Limits::default(), &mut host, None);
        let shown = result
            .map(|v| {
                crate::display::to_string(&v, module, crate::display::StrForm::Quoted, 100_000)
            })
            .map_err(|e: RunError| format!("{:?}: {}", e.code, e.message));
        (shown, lines, usage.fuel)
    }

    /// `src` run with the library's walks as loops and as written: the
    /// same value or error and the same lines; the loops' fuel.
    fn alike(src: &str) -> (Result<String, String>, Vec<String>) {
        let parsed = writ_lang::parse(src);
        assert!(!parsed.has_errors(), "{:#?}", parsed.diagnostics);
        let typed = writ_lang::types::check(&parsed.program, &Default::default());
        assert!(
            !typed.diagnostics.iter().any(|d| d.is_error()),
            "{src}: {:#?}",
            typed.diagnostics
        );
        let loops = crate::compile(&parsed.program, &typed).expect("compiles");
        let written =
            super::super::lower_as_written(&parsed.program, &typed.resolution).expect("compiles");
        let (a, la, fuel_loops) = outcome(&loops);
        let (b, lb, fuel_written) = outcome(&written);
        assert_eq!(a, b, "{src}");
        assert_eq!(la, lb, "{src}");
        assert!(
            fuel_loops <= fuel_written,
            "{src}: {fuel_loops} steps as loops, {fuel_written} as written"
        );
        (a, la)
    }

    #[test]
    fn each_walk_gives_what_its_text_gives_on_empty_and_longer_lists() {
        for xs in ["[]", "[7]", "[1, 2, 3, 4, 5, 6]", "list.range(0, 300)"] {
            for body in [
                format!("list.map({xs}, fn(x) {{ x * 3 }})"),
                format!("list.map({xs}, fn(x) {{ \"<${{x}}>\" }})"),
                format!("list.filter({xs}, fn(x) {{ x % 2 == 0 }})"),
                format!("list.fold({xs}, 10, fn(acc, x) {{ acc * 3 % 1000 - x }})"),
                format!("list.find({xs}, fn(x) {{ x > 3 }})"),
                format!("list.find({xs}, fn(x) {{ x > 1000 }})"),
                format!("list.any({xs}, fn(x) {{ x == 5 }})"),
                format!("list.all({xs}, fn(x) {{ x < 5 }})"),
                format!("list.all({xs}, fn(x) {{ x >= 0 }})"),
                format!("list.each({xs}, fn(x) {{ x + 1 }})"),
                format!("list.reduce({xs}, fn(a, b) {{ a + b }})"),
            ] {
                let (value, _) = alike(&format!("{body}\n"));
                assert!(value.is_ok(), "{body}: {value:?}");
            }
        }
    }

    #[test]
    fn the_walks_call_in_order_and_stop_where_the_text_stops() {
        let (value, lines) = alike(
            "fn seen(x: Int) -> Bool / {Log} { Log.info(\"${x}\"); x > 2 }\n\
             let a = list.find([1, 2, 3, 4], seen)\n\
             let b = list.any([1, 5, 2], seen)\n\
             let c = list.all([5, 1, 9], seen)\n\
             let d = list.filter([3, 1, 4], seen)\n\
             list.each([9], fn(x) { Log.info(\"each ${x}\") })\n\
             (a, b, c, d)\n",
        );
        assert_eq!(value, Ok("(Some(3), true, false, [3, 4])".to_string()));
        assert_eq!(
            lines,
            ["1", "2", "3", "1", "5", "5", "1", "3", "1", "4", "each 9"]
        );
    }

    #[test]
    fn functions_of_every_kind_are_called_where_they_lie() {
        // A named function, a closure, a constructor, a native, a local
        // function calling itself, and a function taking a function.
        let (value, _) = alike(
            "fn twice(x: Int) -> Int { x * 2 }\n\
             let k = 5\n\
             let a = list.map([1, 2], twice)\n\
             let b = list.map([1, 2], fn(x) { x + k })\n\
             let c = list.map([1, 2], Some)\n\
             let d = list.map([\"ab\", \"c\"], str.length)\n\
             fn down(n: Int) -> Int { if n == 0 { 0 } else { down(n - 1) } }\n\
             let e = list.map([3, 4], down)\n\
             let f = list.map([[1], [2, 3]], fn(xs) { list.map(xs, twice) })\n\
             (a, b, c, d, e, f)\n",
        );
        assert_eq!(
            value.as_deref(),
            Ok("([2, 4], [6, 7], [Some(1), Some(2)], [2, 1], [0, 0], [[2], [4, 6]])")
        );
    }

    #[test]
    fn effects_handled_inside_resume_the_walk_once_many_times_or_never() {
        // A state handler around a walk (a clause resuming in place).
        let (value, _) = alike(
            "effect Count { fn tick() -> Int }\n\
             fn counted(n: Int) -> (List[Int], Int) {\n\
               handle list.map(list.range(0, n), fn(x) { x + Count.tick() }) with (c = 0) {\n\
                 Count.tick() => resume(c, c + 1),\n\
                 return(v) => (v, c),\n\
               }\n\
             }\n\
             counted(4)\n",
        );
        assert_eq!(value.as_deref(), Ok("([0, 2, 4, 6], 4)"));
        // Every choice resumed twice: the walk's frame is copied with
        // its index and accumulator, and each copy goes on alone.
        let (value, _) = alike(
            "effect Choose { fn pick() -> Bool }\n\
             handle list.map([1, 2, 3], fn(x) { if Choose.pick() { x } else { 0 - x } }) with {\n\
               Choose.pick() => resume(true) ++ resume(false),\n\
               return(v) => [v],\n\
             }\n",
        );
        assert_eq!(
            value.as_deref().map(|v| v.matches('[').count()),
            Ok(9),
            "{value:?}"
        );
        // A clause that never resumes ends the walk.
        let (value, _) = alike(
            "effect Stop { fn stop(x: Int) -> Never }\n\
             handle list.fold([1, 2, 3, 4], 0, fn(acc, x) { if x == 3 { Stop.stop(acc) } else { acc + x } }) with {\n\
               Stop.stop(x) => 100 + x,\n\
             }\n",
        );
        assert_eq!(value.as_deref(), Ok("103"));
        // A generator: each element handed out and the walk resumed later.
        let (value, _) = alike(
            "effect Yield { fn yield(x: Int) -> Unit }\n\
             fn sum_of(xs: List[Int]) -> Int {\n\
               handle list.each(xs, fn(x) { Yield.yield(x * x) }) with (s = 0) {\n\
                 Yield.yield(x) => resume((), s + x),\n\
                 return(_) => s,\n\
               }\n\
             }\n\
             sum_of(list.range(0, 100))\n",
        );
        assert_eq!(value.as_deref(), Ok("328350"));
    }

    #[test]
    fn an_error_inside_a_walk_is_the_same_error() {
        let (value, _) = alike("list.map([2, 1, 0], fn(x) { 10 / x })\n");
        assert!(value.is_err_and(|e| e.contains("DivisionByZero")));
        let (value, _) = alike("list.fold([1, 2], 9223372036854775807, fn(a, x) { a + x })\n");
        assert!(value.is_err(), "{value:?}");
    }
}
