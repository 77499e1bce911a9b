//! A program's inputs: the values a host passes in, declared by the host
//! with their Writ types (decision 009).
//!
//! A host declares each input by name and type, written in Writ's type
//! syntax ([`InputDecl`]: `request` of type `{ from: Str, budget_cents:
//! Int }`). The checker reads each declared type ([`declared_type`]) into
//! an [`InputType`], the plain description of the data the input holds,
//! and binds the input as a monomorphic top-level name; the program uses
//! it and may not define a top-level name of its own with the same name
//! (`E2014`). At run time the runtime converts the host's JSON value to a
//! Writ value by the same [`InputType`].
//!
//! Invariants: an [`InputType`] describes data only — `Int`, `Float`,
//! `Str`, `Bool`, `Unit`, `List`, `Map` with `Str` keys, `Option`, tuples
//! and closed records of these — never a function, a type variable or a
//! type the program declares (the program cannot change its host's
//! contract). Its fields are sorted by name and distinct. Reading a
//! declared type never panics: a type that does not parse or is not data
//! is an error naming the input (`E2015`).

use std::collections::HashMap;

use crate::ast::{Item, Program, Stmt, TypeExpr, TypeExprKind};
use crate::diagnostic::{Code, Diagnostic};
use crate::span::Span;
use crate::types::infer::{Binding, Checker, Scheme};
use crate::types::pattern::collect_names;
use crate::types::typedecl::{TyVars, VarMode};

/// One input a host declares: its name and its type, as Writ type syntax.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputDecl {
    /// The name the program uses (a lower-case identifier).
    pub name: String,
    /// Its type, in Writ's syntax: `{ from: Str, to: Str, budget_cents: Int }`.
    pub ty: String,
}

impl InputDecl {
    /// The input `name` of type `ty`.
    pub fn new(name: impl Into<String>, ty: impl Into<String>) -> InputDecl {
        InputDecl {
            name: name.into(),
            ty: ty.into(),
        }
    }
}

/// The type of an input: what data it holds.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum InputType {
    /// `Int`: a 64-bit integer.
    Int,
    /// `Float`
    Float,
    /// `Str`
    Str,
    /// `Bool`
    Bool,
    /// `()`, also written `Unit`.
    Unit,
    /// `List[T]`
    List(Box<InputType>),
    /// `Map[Str, T]`: keys are strings.
    Map(Box<InputType>),
    /// `Option[T]`
    Option(Box<InputType>),
    /// `(A, B, ...)`
    Tuple(Vec<InputType>),
    /// `{ a: A, b: B }`, a closed record, fields sorted by name.
    Record(Vec<(String, InputType)>),
}

impl std::fmt::Display for InputType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InputType::Int => f.write_str("Int"),
            InputType::Float => f.write_str("Float"),
            InputType::Str => f.write_str("Str"),
            InputType::Bool => f.write_str("Bool"),
            InputType::Unit => f.write_str("()"),
            InputType::List(t) => write!(f, "List[{t}]"),
            InputType::Map(t) => write!(f, "Map[Str, {t}]"),
            InputType::Option(t) => write!(f, "Option[{t}]"),
            InputType::Tuple(ts) => {
                f.write_str("(")?;
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(")")
            }
            InputType::Record(fields) => {
                f.write_str("{ ")?;
                for (i, (n, t)) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{n}: {t}")?;
                }
                f.write_str(" }")
            }
        }
    }
}

/// An input a program was checked with: its name and type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: InputType,
}

impl Checker {
    /// Bind each declared input as a monomorphic name of its declared type
    /// (before the program's declarations, so that no type of the
    /// program's can stand in an input's type); an input whose type is
    /// malformed is reported (`E2014`) and bound with the `Error` type, so
    /// that its uses are not reported again. Returns the inputs read.
    pub(crate) fn declare_inputs(&mut self, decls: &[InputDecl]) -> Vec<Input> {
        let mut out = Vec::new();
        let mut seen: HashMap<&str, ()> = HashMap::new();
        for d in decls {
            if seen.insert(d.name.as_str(), ()).is_some() || !is_value_name(&d.name) {
                self.report(
                    Diagnostic::new(
                        Code::InputType,
                        format!(
                            "expected each input declared once under a lower-case name, found `{}`{}",
                            d.name,
                            if is_value_name(&d.name) { " twice" } else { "" }
                        ),
                    )
                    .with_help("declare each input once, named like a `let` (`request`)"),
                );
                continue;
            }
            let ty = match declared_type(&d.ty) {
                Ok((te, ty)) => {
                    let t = self.translate(&te, &mut TyVars::default(), VarMode::Declared);
                    out.push(Input {
                        name: d.name.clone(),
                        ty,
                    });
                    t
                }
                Err(why) => {
                    self.report(
                        Diagnostic::new(
                            Code::InputType,
                            format!(
                                "expected a data type for the input `{}`, found `{}`: {why}",
                                d.name, d.ty
                            ),
                        )
                        .with_help(
                            "an input's type is Int, Float, Str, Bool, (), List[T], \
                             Map[Str, T], Option[T], a tuple or a closed record of these",
                        ),
                    );
                    self.error_ty()
                }
            };
            self.inputs.insert(
                d.name.clone(),
                Binding {
                    scheme: Scheme::mono(ty),
                    span: Span::new(0, 0),
                },
            );
        }
        out
    }

    /// Report each top-level `let` or `fn` of `program` that takes an
    /// input's name (`E1011`): the host's contract is the program's too.
    pub(crate) fn forbid_input_names(&mut self, program: &Program) {
        if self.inputs.is_empty() {
            return;
        }
        for item in &program.items {
            let mut names = Vec::new();
            match item {
                Item::Fn(f) => names.push((f.name.name.clone(), f.name.span)),
                Item::Stmt(Stmt::Let(l)) => collect_names(&l.pattern, &mut names),
                _ => {}
            }
            for (name, span) in names {
                if self.inputs.contains_key(&name) {
                    self.report(
                        Diagnostic::new(
                            Code::InputRedefined,
                            format!(
                                "expected `{name}` to be the input the host declares, found a definition of it"
                            ),
                        )
                        .with_primary(span, "defined again here")
                        .with_help(format!(
                            "`{name}` is given by the host; use it as it is, or give this definition another name"
                        )),
                    );
                }
            }
        }
    }
}

/// Whether `name` is written like a value's name (`request`, `max_2`).
fn is_value_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name != "_"
}

/// Read the declared type `text` of an input: its parsed form (which the
/// checker translates) and the data it describes; an error says what is
/// wrong with it.
pub(crate) fn declared_type(text: &str) -> Result<(TypeExpr, InputType), String> {
    // The type parser, reached through a declaration that holds only the
    // type: a library `fn` may leave out its body.
    let wrapped = format!("fn input() -> {text}\n");
    let parsed = crate::parser::parse_library(&wrapped);
    if let Some(d) = parsed.diagnostics.iter().find(|d| d.is_error()) {
        return Err(format!("`{text}` is not a type: {}", d.message));
    }
    let te = match parsed.program.items.as_slice() {
        [Item::Fn(f)] if f.body.is_none() && f.effects.is_none() && f.generics.is_empty() => {
            f.ret.clone()
        }
        _ => None,
    };
    let Some(te) = te else {
        return Err(format!("`{text}` is not one type"));
    };
    let ty = stacker::maybe_grow(super::STACK_RED_ZONE, super::STACK_CHUNK, || {
        input_type(&te)
    })?;
    Ok((te, ty))
}

/// The result type of every operation `interface` declares for the effect
/// `effect`, in the order declared, each as [`operation_result`] gives it
/// (the interface parsed once): empty when it declares no such effect.
///
/// ```
/// use writ_lang::types::{InputType, operation_results};
///
/// let interface = "effect Weather {\n  fn high(city: Str) -> Int\n  fn warn(msg: Str)\n}\n";
/// let results = operation_results(interface, "Weather");
/// assert_eq!(results, [("high".to_string(), Ok(InputType::Int)), ("warn".to_string(), Ok(InputType::Unit))]);
/// ```
pub fn operation_results(
    interface: &str,
    effect: &str,
) -> Vec<(String, Result<InputType, String>)> {
    let parsed = crate::parser::parse_library(interface);
    let Some(decl) = parsed.program.items.iter().find_map(|item| match item {
        Item::Effect(e) if e.name.name == effect => Some(e),
        _ => None,
    }) else {
        return Vec::new();
    };
    decl.ops
        .iter()
        .map(|o| {
            let ty = if !decl.params.is_empty() {
                Err(format!("the effect {effect} has type parameters"))
            } else {
                match &o.ret {
                    None => Ok(InputType::Unit),
                    Some(te) => {
                        stacker::maybe_grow(super::STACK_RED_ZONE, super::STACK_CHUNK, || {
                            input_type(te)
                        })
                    }
                }
            };
            (o.name.name.clone(), ty)
        })
        .collect()
}

/// The data type of the result of the operation `effect.op` that
/// `interface` (Writ source declaring effects, as an embedder's capability
/// interface does) declares: the type of the value a host that answers the
/// operation itself must give. `None` when the interface declares no such
/// operation; `Some(Err(why))` when its result is not data (a function, a
/// type variable, a named type, an effect with type parameters).
///
/// ```
/// use writ_lang::types::{InputType, operation_result};
///
/// let interface = "effect Weather {\n  fn high(city: Str) -> Int\n  fn warn(msg: Str)\n}\n";
/// assert_eq!(operation_result(interface, "Weather", "high"), Some(Ok(InputType::Int)));
/// assert_eq!(operation_result(interface, "Weather", "warn"), Some(Ok(InputType::Unit)));
/// assert_eq!(operation_result(interface, "Weather", "low"), None);
/// ```
pub fn operation_result(
    interface: &str,
    effect: &str,
    op: &str,
) -> Option<Result<InputType, String>> {
    let parsed = crate::parser::parse_library(interface);
    let decl = parsed.program.items.iter().find_map(|item| match item {
        Item::Effect(e) if e.name.name == effect => Some(e),
        _ => None,
    })?;
    let o = decl.ops.iter().find(|o| o.name.name == op)?;
    if !decl.params.is_empty() {
        return Some(Err(format!("the effect {effect} has type parameters")));
    }
    Some(match &o.ret {
        None => Ok(InputType::Unit),
        Some(te) => {
            stacker::maybe_grow(super::STACK_RED_ZONE, super::STACK_CHUNK, || input_type(te))
        }
    })
}

/// The data a written type describes, or why it describes none.
fn input_type(te: &TypeExpr) -> Result<InputType, String> {
    let arg = |args: &[TypeExpr], i: usize| -> Result<InputType, String> {
        match args.get(i) {
            Some(a) => {
                stacker::maybe_grow(super::STACK_RED_ZONE, super::STACK_CHUNK, || input_type(a))
            }
            None => Err("a type argument is missing".to_string()),
        }
    };
    match &te.kind {
        TypeExprKind::Error => Err("the type does not parse".to_string()),
        TypeExprKind::Unit => Ok(InputType::Unit),
        TypeExprKind::Var(v) => Err(format!(
            "an input's type is one type, not a type variable (`{}`)",
            v.name
        )),
        TypeExprKind::Fn { .. } => Err("an input holds data, not a function".to_string()),
        TypeExprKind::Tuple(items) => Ok(InputType::Tuple(
            items
                .iter()
                .enumerate()
                .map(|(i, _)| arg(items, i))
                .collect::<Result<_, _>>()?,
        )),
        TypeExprKind::Record { fields, open } => {
            if *open {
                return Err("an input's record type is closed (no `..`)".to_string());
            }
            let mut out = Vec::with_capacity(fields.len());
            for f in fields {
                let t = stacker::maybe_grow(super::STACK_RED_ZONE, super::STACK_CHUNK, || {
                    input_type(&f.ty)
                })?;
                out.push((f.name.name.clone(), t));
            }
            out.sort_by(|a, b| a.0.cmp(&b.0));
            if let Some(w) = out.windows(2).find(|w| w[0].0 == w[1].0) {
                return Err(format!("the field `{}` is given twice", w[0].0));
            }
            Ok(InputType::Record(out))
        }
        TypeExprKind::Named { name, args } => {
            let arity = |n: usize| -> Result<(), String> {
                if args.len() == n {
                    Ok(())
                } else {
                    Err(format!(
                        "`{}` takes {n} type argument{}, found {}",
                        name.name,
                        if n == 1 { "" } else { "s" },
                        args.len()
                    ))
                }
            };
            match name.name.as_str() {
                "Int" => arity(0).map(|()| InputType::Int),
                "Float" => arity(0).map(|()| InputType::Float),
                "Str" => arity(0).map(|()| InputType::Str),
                "Bool" => arity(0).map(|()| InputType::Bool),
                "Unit" => arity(0).map(|()| InputType::Unit),
                "List" => {
                    arity(1)?;
                    Ok(InputType::List(Box::new(arg(args, 0)?)))
                }
                "Option" => {
                    arity(1)?;
                    Ok(InputType::Option(Box::new(arg(args, 0)?)))
                }
                "Map" => {
                    arity(2)?;
                    if arg(args, 0)? != InputType::Str {
                        return Err("an input's map has `Str` keys".to_string());
                    }
                    Ok(InputType::Map(Box::new(arg(args, 1)?)))
                }
                other => Err(format!("`{other}` is not a type an input can have")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{InputType, declared_type};

    fn ty(text: &str) -> Result<String, String> {
        declared_type(text).map(|(_, t)| t.to_string())
    }

    #[test]
    fn data_types_are_read_and_records_sorted() {
        assert_eq!(
            ty("{ to: Str, from: Str, budget_cents: Int }").as_deref(),
            Ok("{ budget_cents: Int, from: Str, to: Str }")
        );
        assert_eq!(
            ty("List[Option[(Int, Float)]]").as_deref(),
            Ok("List[Option[(Int, Float)]]")
        );
        assert_eq!(ty("Map[Str, Bool]").as_deref(), Ok("Map[Str, Bool]"));
        assert_eq!(ty("()").as_deref(), Ok("()"));
        assert_eq!(declared_type("Unit").map(|(_, t)| t), Ok(InputType::Unit));
    }

    #[test]
    fn what_is_not_data_is_refused_with_a_reason() {
        for (text, why) in [
            ("Int -> Int", "not a function"),
            ("a", "type variable"),
            ("{ a: Int, .. }", "closed"),
            ("Map[Int, Str]", "`Str` keys"),
            ("List", "takes 1 type argument"),
            ("Ticket", "`Ticket` is not a type an input can have"),
            ("{ a: Int, a: Str }", "twice"),
            ("{ a: ", "is not a type"),
            ("Int\nfn f() -> Int", "not one type"),
            ("Int / {Http}", "not one type"),
            ("", "is not a type"),
        ] {
            let got = ty(text);
            assert!(
                got.as_ref().is_err_and(|e| e.contains(why)),
                "{text:?}: {got:?}"
            );
        }
    }
}
