//! The native part of the standard library: functions declared without a
//! body in `stdlib/*.writ`, implemented here.
//!
//! Lowering looks each body-less declaration up by its qualified name
//! ([`lookup`]) and refuses to build a module if one is missing, so a
//! declared function always has an implementation. Functions that take
//! function arguments are written in Writ instead (in `stdlib/`), so that
//! effects and handlers work through them exactly as in the program.
//!
//! Invariants: a native never panics and never performs an effect; it
//! checks the memory limit before any allocation whose size depends on
//! its arguments; it charges the run's work meter ([`crate::meter`]) as it
//! goes, in proportion to the work it does (one unit per element visited
//! or made, one per [`crate::meter::BYTES_PER_UNIT`] bytes of text), so
//! fuel, time and cancellation stop it mid-call; argument kinds were
//! guaranteed by the type checker, and a wrong kind is an internal error,
//! not a crash.

mod assert;
mod json;
mod list;
mod map;
mod math;
mod sort;
mod text;

use crate::code::Module;
use crate::error::RunError;
use crate::machine::Machine;
use crate::meter::Meter;
use crate::value::{self, Repr, Value};
use std::rc::Rc;

/// The context a native runs in: the machine (for the module and the
/// memory limit).
pub(crate) struct Cx<'m, 'a> {
    machine: &'m Machine<'a>,
}

impl Cx<'_, '_> {
    /// The module being run.
    pub(crate) fn module(&self) -> &Module {
        self.machine.module()
    }

    /// Fail unless `bytes` more fit under the memory limit.
    pub(crate) fn reserve(&self, bytes: usize) -> Result<(), RunError> {
        self.machine.check_memory(bytes)
    }

    /// The outcome of a program's own display (`str.from`, `list.join`)
    /// given the memory left: the tripped limit if the meter tripped,
    /// else, if the display was cut short, the memory limit (its text and
    /// the room it held needed more than was left).
    pub(crate) fn displayed(&self, shown: crate::display::Shown) -> Result<(), RunError> {
        self.machine.displayed(shown)
    }

    /// The run's work meter.
    pub(crate) fn meter(&self) -> Meter {
        self.machine.meter()
    }

    /// Charge `units` of work; `Err` with the exhausted limit once one is.
    #[inline]
    pub(crate) fn tick(&self, units: u64) -> Result<(), RunError> {
        self.machine.tick(units)
    }

    /// `Some(v)`.
    pub(crate) fn some(&self, v: Value) -> Value {
        Value::constructed(self.module().prelude.some, [v])
    }

    /// `None`.
    pub(crate) fn none(&self) -> Value {
        Value::none(self.module())
    }

    /// `Some(v)` or `None`.
    pub(crate) fn option(&self, v: Option<Value>) -> Value {
        match v {
            Some(v) => self.some(v),
            None => self.none(),
        }
    }

    /// `Ok(v)`.
    pub(crate) fn ok(&self, v: Value) -> Value {
        Value::constructed(self.module().prelude.ok, [v])
    }

    /// `Err(v)`.
    pub(crate) fn err(&self, v: Value) -> Value {
        Value::constructed(self.module().prelude.err, [v])
    }
}

type Native = fn(&Cx, &[Value]) -> Result<Value, RunError>;

/// The entry of `list.sum` on a list of `Float`s (its empty sum is `0.0`);
/// not a name a program can write.
pub const FLOAT_SUM: &str = "list.sum of Float";

/// Every native, by qualified name.
const NATIVES: &[(&str, Native)] = &[
    ("list.length", list::length),
    ("list.is_empty", list::is_empty),
    ("list.sum", list::sum),
    (FLOAT_SUM, list::sum_float),
    ("list.min", list::min),
    ("list.max", list::max),
    ("list.sort", list::sort),
    ("list.reverse", list::reverse),
    ("list.take", list::take),
    ("list.drop", list::drop),
    ("list.zip", list::zip),
    ("list.unzip", list::unzip),
    ("list.enumerate", list::enumerate),
    ("list.range", list::range),
    ("list.contains", list::contains),
    ("list.first", list::first),
    ("list.last", list::last),
    ("list.get", list::get),
    ("list.concat", list::concat),
    ("list.unique", list::unique),
    ("list.join", list::join),
    ("list.sort_pairs", list::sort_pairs),
    ("list.sort_along", list::sort_along),
    ("str.length", text::length),
    ("str.is_empty", text::is_empty),
    ("str.split", text::split),
    ("str.join", text::join),
    ("str.trim", text::trim),
    ("str.contains", text::contains),
    ("str.starts_with", text::starts_with),
    ("str.ends_with", text::ends_with),
    ("str.replace", text::replace),
    ("str.to_upper", text::to_upper),
    ("str.to_lower", text::to_lower),
    ("str.slice", text::slice),
    ("str.chars", text::chars),
    ("str.parse_int", text::parse_int),
    ("str.parse_float", text::parse_float),
    ("str.repeat", text::repeat),
    ("str.pad_left", text::pad_left),
    ("str.pad_right", text::pad_right),
    ("str.index_of", text::index_of),
    ("str.lines", text::lines),
    ("str.from", text::from),
    ("str.fixed", text::fixed),
    ("map.empty", map::empty),
    ("map.from_list", map::from_list),
    ("map.insert", map::insert),
    ("map.get", map::get),
    ("map.remove", map::remove),
    ("map.contains", map::contains),
    ("map.keys", map::keys),
    ("map.values", map::values),
    ("map.to_list", map::to_list),
    ("map.size", map::size),
    ("map.merge", map::merge),
    ("map.is_empty", map::is_empty),
    ("json.parse", json::parse),
    ("json.stringify", json::stringify),
    ("json.pretty", json::pretty),
    ("math.abs", math::abs),
    ("math.min", math::min),
    ("math.max", math::max),
    ("math.pow", math::pow),
    ("math.ipow", math::ipow),
    ("math.sqrt", math::sqrt),
    ("math.floor", math::floor),
    ("math.ceil", math::ceil),
    ("math.round", math::round),
    ("math.to_int", math::to_int),
    ("math.to_float", math::to_float),
    ("math.pi", math::pi),
    ("assert.eq", assert::eq),
    ("assert.ne", assert::ne),
    ("assert.that", assert::that),
    ("assert.fail", assert::fail),
    ("assert.some", assert::some),
    ("assert.none", assert::none),
    ("assert.ok", assert::ok),
    ("assert.err", assert::err),
    ("assert.contains", assert::contains),
];

/// The table index of the native called `name` (`list.length`).
pub fn lookup(name: &str) -> Option<u32> {
    NATIVES
        .iter()
        .position(|(n, _)| *n == name)
        .map(|i| i as u32)
}

/// Call native `n` of the module with the arguments from `start` on the
/// machine's stack. (The caller reports a limit the call exhausted on the
/// meter, in place of the call's cut-short result.)
pub(crate) fn call(m: &Machine, n: u32, start: usize) -> Result<Value, RunError> {
    let info = m
        .module()
        .natives
        .get(n as usize)
        .ok_or_else(|| RunError::internal("an unknown native"))?;
    let (_, f) = NATIVES
        .get(info.entry as usize)
        .ok_or_else(|| RunError::internal("an unknown native"))?;
    let args = m.args(start);
    if args.len() != info.arity as usize {
        return Err(RunError::internal(format!(
            "`{}` called with {} arguments",
            info.name,
            args.len()
        )));
    }
    f(&Cx { machine: m }, args)
}

/// The argument kinds did not match the declaration (a bug: the checker
/// guarantees them).
pub(crate) fn wrong_args(name: &str) -> RunError {
    RunError::internal(format!("`{name}` received arguments of the wrong kinds"))
}

/// An integer argument.
pub(crate) fn int(v: &Value, name: &str) -> Result<i64, RunError> {
    match v {
        Value(Repr::Int(n)) => Ok(*n),
        _ => Err(wrong_args(name)),
    }
}

/// A count or index argument: negative ones act as zero, and those past
/// `usize` as its largest.
pub(crate) fn count(v: &Value, name: &str) -> Result<usize, RunError> {
    Ok(usize::try_from(int(v, name)?.max(0)).unwrap_or(usize::MAX))
}

/// A float argument.
pub(crate) fn float(v: &Value, name: &str) -> Result<f64, RunError> {
    match v {
        Value(Repr::Float(x)) => Ok(x.get()),
        _ => Err(wrong_args(name)),
    }
}

/// A string argument.
pub(crate) fn text<'v>(v: &'v Value, name: &str) -> Result<&'v str, RunError> {
    v.as_str().ok_or_else(|| wrong_args(name))
}

/// A list argument (its reference, to read it, share it or make a view
/// of it).
pub(crate) fn items<'v>(v: &'v Value, name: &str) -> Result<&'v Rc<value::ListObj>, RunError> {
    match v {
        Value(Repr::List(l)) => Ok(l),
        _ => Err(wrong_args(name)),
    }
}

/// A new string, after checking that it fits.
pub(crate) fn new_str(cx: &Cx, s: String) -> Result<Value, RunError> {
    cx.reserve(s.len())?;
    Ok(Value::str(s))
}

/// Check that a list of `n` elements fits before building it.
pub(crate) fn reserve_list(cx: &Cx, n: usize) -> Result<(), RunError> {
    cx.reserve(n.saturating_mul(value::SLOT))
}
