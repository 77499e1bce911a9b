//! A program's inputs at run time: the host's JSON values, converted to
//! Writ values by their declared types before the first step (decision
//! 010).
//!
//! [`from_json`] takes one JSON value per declared input (by name) and
//! gives the module's globals with each input's slot filled; [`run`]
//! runs the module with them. Each value is checked against its input's
//! [`InputType`] as it is converted: `Int` takes a JSON integer that fits
//! in 64 bits, `Float` any number, `Str` a string, `Bool` a boolean, `()`
//! `null`, `Option[T]` `null` (`None`) or a `T` (`Some`), `List[T]` and
//! tuples an array, `Map[Str, T]` an object, and a record an object with
//! exactly its fields.
//!
//! Invariants: a value that does not match is refused with `E4007`, whose
//! message names the input and the path inside it
//! (`request.budget_cents: expected Int, found "500"`); a declared input
//! given no value, or a value given for no declared input, is `E4008`;
//! either way nothing runs. The walk is iterative (no recursion on the
//! value's depth, which the declared type bounds anyway), and its work is
//! charged: each JSON node costs one unit of fuel, and each node's bytes
//! (16, plus a string's length) count against the memory limit, so an
//! input no larger than the limits allow is converted in time linear in
//! its size.

use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde_json::Value as Json;
use writ_lang::Code;
use writ_lang::types::InputType;

use crate::value::{Parts, RecordObj, Repr, Small, Value};
use crate::{Host, Limit, Limits, Module, RunError};

/// The longest text of a JSON value or key quoted in an error, in
/// characters.
const QUOTE_CHARS: usize = 40;

/// What one JSON node costs in memory, beside a string's bytes.
const NODE_BYTES: u64 = 16;

/// The module's globals, with each declared input's slot holding the
/// Writ value of the JSON value `given` names it by; the other slots hold
/// `()`. An error (nothing run) when a value does not match its input's
/// type (`E4007`), an input is not given or a value is given for no
/// input (`E4008`), or converting spends more fuel or memory than
/// `limits` allow.
pub fn from_json(
    module: &Module,
    given: &serde_json::Map<String, Json>,
    limits: &Limits,
) -> Result<Vec<Value>, RunError> {
    if let Some(extra) = given
        .keys()
        .find(|k| !module.inputs.iter().any(|i| &i.name == *k))
    {
        let declared: Vec<&str> = module.inputs.iter().map(|i| i.name.as_str()).collect();
        return Err(RunError::new(
            Code::InputNotGiven,
            format!(
                "expected values for the declared inputs only ({}), found a value for {}",
                if declared.is_empty() {
                    "none are declared".to_string()
                } else {
                    declared.join(", ")
                },
                quote_key(extra)
            ),
        )
        .with_help("declare the input with its type, or leave its value out"));
    }
    let mut globals = vec![Value::unit(); module.globals as usize];
    let mut budget = Budget {
        fuel: limits.fuel,
        memory: limits.memory as u64,
        nodes: 0,
        bytes: 0,
    };
    for input in &module.inputs {
        let Some(json) = given.get(&input.name) else {
            return Err(RunError::new(
                Code::InputNotGiven,
                format!(
                    "expected a value for the input `{}` (of type {}), found none",
                    input.name, input.ty
                ),
            )
            .with_help("pass a value for every declared input"));
        };
        let value = convert(module, &input.name, json, &input.ty, &mut budget)?;
        let slot = globals
            .get_mut(input.global as usize)
            .ok_or_else(|| RunError::internal("an input's global slot is missing"))?;
        *slot = value;
    }
    Ok(globals)
}

/// Convert one JSON value to a Writ value of type `ty`, as an input's is
/// (the same conversion, checks and charges as [`from_json`]'s), its
/// errors naming it `name` (`Confirm.ask: expected Bool, found 1`): how
/// a host's answer to an operation, given as JSON, becomes the
/// operation's result.
pub fn value_from_json(
    module: &Module,
    name: &str,
    json: &Json,
    ty: &InputType,
    limits: &Limits,
) -> Result<Value, RunError> {
    let mut budget = Budget {
        fuel: limits.fuel,
        memory: limits.memory as u64,
        nodes: 0,
        bytes: 0,
    };
    convert(module, name, json, ty, &mut budget)
}

/// Run `module`'s top level with its inputs' values filled in (the
/// globals [`from_json`] gives), as [`crate::run_measured`] runs it: the
/// result, and what the run used.
pub fn run(
    module: &Module,
    globals: Vec<Value>,
    limits: &Limits,
    host: &mut dyn Host,
    cancel: Option<&Arc<AtomicBool>>,
) -> (Result<Value, RunError>, crate::Usage) {
    let mut globals = globals;
    let ran = crate::machine::run_top(module, module.main, &mut globals, limits, host, cancel);
    while globals.pop().is_some() {}
    ran
}

/// What converting may still spend.
struct Budget {
    fuel: u64,
    memory: u64,
    nodes: u64,
    bytes: u64,
}

impl Budget {
    /// Charge one node of `bytes` extra bytes.
    fn charge(&mut self, bytes: usize) -> Result<(), RunError> {
        self.nodes += 1;
        self.bytes = self
            .bytes
            .saturating_add(NODE_BYTES)
            .saturating_add(bytes as u64);
        if self.nodes > self.fuel {
            return Err(RunError::limit(
                Limit::Fuel,
                self.fuel,
                format!(
                    "the inputs hold more than {} values, more than the fuel limit allows converting",
                    self.fuel
                ),
            ));
        }
        if self.bytes > self.memory {
            return Err(RunError::limit(
                Limit::Memory,
                self.memory,
                format!(
                    "the inputs take more than {} bytes, more than the memory limit",
                    self.memory
                ),
            ));
        }
        Ok(())
    }
}

/// One step of a path inside an input.
enum Step<'a> {
    /// The input itself.
    Root(&'a str),
    /// `.name`
    Field(&'a str),
    /// `[3]`
    Index(usize),
    /// `["key"]`
    Key(&'a str),
}

/// Work left to do: check a node, or build a value from the last `n`
/// values made.
enum Task<'a> {
    /// The JSON node at path `at` (an index into the path arena), which
    /// must be a `ty`.
    Visit(&'a Json, &'a InputType, usize),
    /// `Some` of the last value.
    Some,
    /// A list of the last `n` values.
    List(usize),
    /// A tuple of the last `n` values.
    Tuple(usize),
    /// A map of the keys and the last values.
    Map(Vec<&'a str>),
    /// A record of the shape and the last values.
    Record(Rc<[u32]>),
}

/// Convert `json` to a value of type `ty`, the input `name`'s.
fn convert<'a>(
    module: &Module,
    name: &'a str,
    json: &'a Json,
    ty: &'a InputType,
    budget: &mut Budget,
) -> Result<Value, RunError> {
    // Each node's path is a step and its parent's path, kept until the
    // input is converted: an error spells out the path of its node.
    let mut paths: Vec<(usize, Step<'a>)> = vec![(0, Step::Root(name))];
    let mut tasks = vec![Task::Visit(json, ty, 0)];
    let mut made: Vec<Value> = Vec::new();
    while let Some(task) = tasks.pop() {
        match task {
            Task::Visit(json, ty, at) => {
                let text = match json {
                    Json::String(s) => s.len(),
                    _ => 0,
                };
                budget.charge(text)?;
                let mismatch = || mismatch(&paths, at, ty, json);
                match (ty, json) {
                    (InputType::Int, Json::Number(n)) => match n.as_i64() {
                        Some(i) => made.push(Value::int(i)),
                        None => return Err(mismatch()),
                    },
                    (InputType::Float, Json::Number(n)) => match n.as_f64() {
                        Some(x) => made.push(Value::float(x)),
                        None => return Err(mismatch()),
                    },
                    // The strings a Float that is not finite is written as
                    // (`writ_runtime::json`), read back as that Float.
                    (InputType::Float, Json::String(s)) => match s.as_str() {
                        "NaN" => made.push(Value::float(f64::NAN)),
                        "Infinity" => made.push(Value::float(f64::INFINITY)),
                        "-Infinity" => made.push(Value::float(f64::NEG_INFINITY)),
                        _ => return Err(mismatch()),
                    },
                    (InputType::Str, Json::String(s)) => made.push(Value::str(s.as_str())),
                    (InputType::Bool, Json::Bool(b)) => made.push(Value::bool(*b)),
                    (InputType::Unit, Json::Null) => made.push(Value::unit()),
                    (InputType::Option(_), Json::Null) => made.push(Value::none(module)),
                    (InputType::Option(inner), json) => {
                        tasks.push(Task::Some);
                        tasks.push(Task::Visit(json, inner, at));
                    }
                    (InputType::List(elem), Json::Array(items)) => {
                        tasks.push(Task::List(items.len()));
                        for (i, item) in items.iter().enumerate().rev() {
                            paths.push((at, Step::Index(i)));
                            tasks.push(Task::Visit(item, elem, paths.len() - 1));
                        }
                    }
                    (InputType::Tuple(parts), Json::Array(items)) if parts.len() == items.len() => {
                        tasks.push(Task::Tuple(items.len()));
                        for (i, (item, t)) in items.iter().zip(parts).enumerate().rev() {
                            paths.push((at, Step::Index(i)));
                            tasks.push(Task::Visit(item, t, paths.len() - 1));
                        }
                    }
                    (InputType::Map(elem), Json::Object(entries)) => {
                        tasks.push(Task::Map(entries.keys().map(String::as_str).collect()));
                        for (k, v) in entries.iter().rev() {
                            budget.charge(k.len())?;
                            paths.push((at, Step::Key(k)));
                            tasks.push(Task::Visit(v, elem, paths.len() - 1));
                        }
                    }
                    (InputType::Record(fields), Json::Object(entries)) => {
                        if let Some(extra) = entries
                            .keys()
                            .find(|k| !fields.iter().any(|(f, _)| f == *k))
                        {
                            let names: Vec<&str> = fields.iter().map(|(f, _)| f.as_str()).collect();
                            return Err(RunError::new(
                                Code::InputMismatch,
                                format!(
                                    "{}: expected the fields {}, found the field {} too",
                                    path_text(&paths, at),
                                    if names.is_empty() {
                                        "(none)".to_string()
                                    } else {
                                        names.join(", ")
                                    },
                                    quote_key(extra)
                                ),
                            )
                            .with_help("a record input has exactly its type's fields"));
                        }
                        let mut shape = Vec::with_capacity(fields.len());
                        for (f, _) in fields {
                            shape.push(module.symbol(f).ok_or_else(|| {
                                RunError::internal("an input's field name is not a symbol")
                            })?);
                        }
                        tasks.push(Task::Record(Rc::from(shape)));
                        for (f, t) in fields.iter().rev() {
                            paths.push((at, Step::Field(f)));
                            let here = paths.len() - 1;
                            match entries.get(f) {
                                Some(v) => tasks.push(Task::Visit(v, t, here)),
                                None => {
                                    return Err(RunError::new(
                                        Code::InputMismatch,
                                        format!(
                                            "{}: expected {t}, found nothing (the field is missing)",
                                            path_text(&paths, here)
                                        ),
                                    )
                                    .with_help("a record input has exactly its type's fields"));
                                }
                            }
                        }
                    }
                    _ => return Err(mismatch()),
                }
            }
            Task::Some => {
                let v = made.pop().ok_or_else(lost)?;
                made.push(Value::some(module, v));
            }
            Task::List(n) => {
                let items = take_last(&mut made, n)?;
                made.push(Value::list(items));
            }
            Task::Tuple(n) => {
                let parts = take_last(&mut made, n)?;
                made.push(Value(Repr::Tuple(Parts::new(Small::from_vec(parts)))));
            }
            Task::Map(keys) => {
                let values = take_last(&mut made, keys.len())?;
                made.push(Value::map(keys.into_iter().map(Value::str).zip(values)));
            }
            Task::Record(shape) => {
                let values = take_last(&mut made, shape.len())?;
                made.push(Value(Repr::Record(RecordObj::new(shape, values))));
            }
        }
    }
    match (made.pop(), made.is_empty()) {
        (Some(v), true) => Ok(v),
        _ => Err(lost()),
    }
}

/// The last `n` values made, in order.
fn take_last(made: &mut Vec<Value>, n: usize) -> Result<Vec<Value>, RunError> {
    let from = made.len().checked_sub(n).ok_or_else(lost)?;
    Ok(made.split_off(from))
}

/// The error of a conversion that lost track of its values (a bug).
fn lost() -> RunError {
    RunError::internal("converting an input lost a value")
}

/// `E4007` at the node `at`: expected `ty`, found `json`.
fn mismatch(paths: &[(usize, Step<'_>)], at: usize, ty: &InputType, json: &Json) -> RunError {
    let expected = match (ty, json) {
        (InputType::Int, Json::Number(_)) => {
            "Int (a whole number from -2^63 to 2^63 - 1)".to_string()
        }
        (InputType::Tuple(parts), Json::Array(_)) => {
            format!("{ty} (an array of {})", parts.len())
        }
        _ => ty.to_string(),
    };
    let mut e = RunError::new(
        Code::InputMismatch,
        format!(
            "{}: expected {expected}, found {}",
            path_text(paths, at),
            found(json)
        ),
    );
    if json.is_null() {
        e = e.with_help("only an input of an `Option` type (or `()`) may be null");
    }
    e
}

/// What a JSON value is, shortly: `"500"`, `1.5`, `null`, `an array of 3`.
fn found(json: &Json) -> String {
    match json {
        Json::Null => "null".to_string(),
        Json::Bool(b) => b.to_string(),
        Json::Number(n) => quote(&n.to_string()),
        Json::String(s) => quote_string(s),
        Json::Array(items) => format!("an array of {}", items.len()),
        Json::Object(entries) => format!("an object of {} fields", entries.len()),
    }
}

/// `text`, cut to [`QUOTE_CHARS`] characters.
fn quote(text: &str) -> String {
    let mut out: String = text.chars().take(QUOTE_CHARS).collect();
    if text.chars().nth(QUOTE_CHARS).is_some() {
        out.push('…');
    }
    out
}

/// A string as JSON writes it (quoted, escaped), cut short.
fn quote_string(s: &str) -> String {
    let cut: String = s.chars().take(QUOTE_CHARS).collect();
    let mut out = serde_json::to_string(&cut).unwrap_or_else(|_| "\"\"".to_string());
    if s.chars().nth(QUOTE_CHARS).is_some() {
        out.push('…');
    }
    out
}

/// A key or field name from the host, quoted as code: `` `extra` ``, or as
/// a JSON string when it is not a plain name.
fn quote_key(k: &str) -> String {
    let plain = !k.is_empty()
        && k.len() <= QUOTE_CHARS
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        format!("`{k}`")
    } else {
        quote_string(k)
    }
}

/// The path of node `at`: `request.legs[2].to`.
fn path_text(paths: &[(usize, Step<'_>)], at: usize) -> String {
    let mut steps = Vec::new();
    let mut i = at;
    // Each parent is an earlier entry, so the walk ends at the root.
    while let Some((parent, step)) = paths.get(i) {
        steps.push(step);
        if i == 0 || *parent >= i {
            break;
        }
        i = *parent;
    }
    let mut out = String::new();
    for step in steps.into_iter().rev() {
        match step {
            Step::Root(name) => out.push_str(name),
            Step::Field(f) => {
                out.push('.');
                out.push_str(f);
            }
            Step::Index(n) => out.push_str(&format!("[{n}]")),
            Step::Key(k) => {
                out.push('[');
                out.push_str(&quote_string(k));
                out.push(']');
            }
        }
    }
    out
}
