//! Named types, constructors and effects: the tables the checker consults,
//! and the translation of written types (`List[Flight]`) into [`TyId`]s.
//!
//! Invariants: the built-in types occupy the first table slots in the order
//! of the [`TypeCon`] constants; a declared type's constructors and record
//! fields are stored as [`Scheme`]s over the type's parameters, so using
//! them is instantiation; a name that cannot be resolved translates to the
//! `Error` type after one diagnostic.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::ast::{EffectRow, TypeExpr, TypeExprKind};
use crate::diagnostic::{Code, Diagnostic};
use crate::span::Span;
use crate::types::TypeCon;
use crate::types::infer::{Checker, Scheme};
use crate::types::suggest;
use crate::types::ty::{Classes, Kind, Node, TyId};

/// What a named type is.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) enum TypeDef {
    /// Built into the checker.
    Builtin,
    /// A sum type with these constructors (indices into the table).
    Sum(Vec<usize>),
    /// A record type: its scheme is the record over the type's parameters.
    Record(Scheme),
}

/// A named type.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct TypeInfo {
    /// Its name.
    pub(crate) name: String,
    /// How many type arguments it takes.
    pub(crate) arity: usize,
    /// What it is.
    pub(crate) def: TypeDef,
    /// Where it is declared (`None` for built-ins).
    pub(crate) span: Option<Span>,
    /// The classes every instance supports at most.
    pub(crate) classes: Classes,
}

/// A constructor of a sum type.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct CtorInfo {
    /// Its name.
    pub(crate) name: String,
    /// The type it builds.
    pub(crate) ty: TypeCon,
    /// Its position among the type's constructors.
    pub(crate) index: usize,
    /// How many fields it has.
    pub(crate) arity: usize,
    /// `fn(fields) -> T[params]`, or `T[params]` for a constant.
    pub(crate) scheme: Scheme,
    /// Where it is declared.
    pub(crate) span: Option<Span>,
}

/// An effect operation's signature.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct OpInfo {
    /// Its name.
    pub(crate) name: String,
    /// `fn(params) -> result` over the effect's parameters.
    pub(crate) scheme: Scheme,
    /// Whether its declared result is `Never`.
    pub(crate) never: bool,
}

/// A declared effect.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct EffectInfo {
    /// Its name.
    pub(crate) name: String,
    /// How many type parameters it takes.
    pub(crate) arity: usize,
    /// Its operations, in order.
    pub(crate) ops: Vec<OpInfo>,
    /// Where it is declared (`None` for built-ins).
    pub(crate) span: Option<Span>,
    /// Whether the host provides it (a capability).
    pub(crate) host: bool,
}

/// All named types and constructors.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(super) struct TypeTable {
    /// Every type, indexed by [`TypeCon`].
    pub(crate) types: Vec<TypeInfo>,
    /// Type names.
    #[serde(serialize_with = "crate::image::sorted")]
    pub(crate) by_name: HashMap<String, TypeCon>,
    /// Every constructor.
    pub(crate) ctors: Vec<CtorInfo>,
    /// Constructor names.
    #[serde(serialize_with = "crate::image::sorted")]
    pub(crate) ctor_by_name: HashMap<String, usize>,
    /// Effects by name.
    #[serde(serialize_with = "crate::image::sorted")]
    pub(crate) effects: HashMap<String, EffectInfo>,
    /// For declared types and effects (by name) with a row parameter:
    /// which parameters are effect rows (they take a row variable, `e`).
    #[serde(serialize_with = "crate::image::sorted")]
    pub(crate) row_params: HashMap<String, Vec<bool>>,
}

impl TypeTable {
    /// A table holding the built-in types.
    pub(super) fn new() -> TypeTable {
        let mut t = TypeTable::default();
        let all = Classes::NUM.union(Classes::CONCAT);
        let basic = Classes::ORD.union(Classes::SHOW);
        for (name, arity, classes) in [
            ("Int", 0, Classes::NUM),
            ("Float", 0, Classes::NUM),
            ("Bool", 0, basic),
            ("Str", 0, basic.union(Classes::CONCAT)),
            ("Unit", 0, basic),
            ("Never", 0, all),
            ("List", 1, basic.union(Classes::CONCAT)),
            ("Map", 2, Classes::EQ.union(Classes::SHOW)),
        ] {
            t.add_type(TypeInfo {
                name: name.to_string(),
                arity,
                def: TypeDef::Builtin,
                span: None,
                classes,
            });
        }
        t
    }

    /// Add a type; returns its constructor.
    pub(super) fn add_type(&mut self, info: TypeInfo) -> TypeCon {
        let con = TypeCon(self.types.len() as u32);
        self.by_name.insert(info.name.clone(), con);
        self.types.push(info);
        con
    }

    /// The type's entry.
    pub(super) fn info(&self, con: TypeCon) -> Option<&TypeInfo> {
        self.types.get(con.0 as usize)
    }

    /// The classes `con`'s instances can support.
    pub(super) fn classes_of(&self, con: TypeCon) -> Classes {
        self.info(con).map(|i| i.classes).unwrap_or(Classes::NONE)
    }

    /// The constructor called `name`.
    pub(super) fn ctor(&self, name: &str) -> Option<&CtorInfo> {
        self.ctor_by_name.get(name).and_then(|i| self.ctors.get(*i))
    }

    /// The type's name.
    pub(super) fn name(&self, con: TypeCon) -> &str {
        self.info(con).map(|i| i.name.as_str()).unwrap_or("?")
    }
}

/// How a type variable written in an annotation is treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum VarMode {
    /// In a `fn` signature: a new name is a rigid variable at this level.
    Rigid(u32),
    /// In a `let` or lambda annotation: a new name is a fresh variable at
    /// this level.
    Flexible(u32),
    /// In a `type` or `effect` declaration: only the declared parameters.
    Declared,
}

/// The type variables in scope while translating annotations.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(super) struct TyVars {
    /// Name to variable, innermost last.
    pub(crate) names: Vec<(String, TyId)>,
}

impl TyVars {
    /// The variable called `name`, if any.
    pub(super) fn get(&self, name: &str) -> Option<TyId> {
        self.names
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, t)| *t)
    }
}

impl Checker {
    /// Translate a written type.
    pub(super) fn translate(&mut self, te: &TypeExpr, vars: &mut TyVars, mode: VarMode) -> TyId {
        let t = stacker::maybe_grow(
            crate::types::STACK_RED_ZONE,
            crate::types::STACK_CHUNK,
            || self.translate_inner(te, vars, mode),
        );
        self.report_too_large(te.span);
        t
    }

    fn translate_inner(&mut self, te: &TypeExpr, vars: &mut TyVars, mode: VarMode) -> TyId {
        match &te.kind {
            TypeExprKind::Error => self.error_ty(),
            TypeExprKind::Unit => self.con(TypeCon::UNIT, Vec::new()),
            TypeExprKind::Var(name) => {
                if let Some(t) = vars.get(&name.name) {
                    if mode != VarMode::Declared && self.is_row_var(t) {
                        self.kind_clash(name, "an effect row", "a type");
                        return self.error_ty();
                    }
                    return t;
                }
                let t = match mode {
                    VarMode::Rigid(level) => {
                        let name_sym = self.syms.intern(&name.name);
                        self.arena.add(Node::Rigid {
                            name: name_sym,
                            bounds: Classes::NONE,
                            level,
                        })
                    }
                    VarMode::Flexible(level) => self.arena.var(level, Kind::Type),
                    VarMode::Declared => {
                        self.report(
                            Diagnostic::new(
                                Code::UnknownType,
                                format!(
                                    "expected one of the declaration's type parameters, found `{}`",
                                    name.name
                                ),
                            )
                            .with_primary(name.span, "not a parameter of this declaration")
                            .with_help(self.declare_param_help(&name.name)),
                        );
                        return self.error_ty();
                    }
                };
                vars.names.push((name.name.clone(), t));
                t
            }
            TypeExprKind::Tuple(items) => {
                let ts = items
                    .iter()
                    .map(|i| self.translate(i, vars, mode))
                    .collect();
                self.arena.add(Node::Tuple(ts))
            }
            TypeExprKind::Record { fields, open } => {
                let mut row = Vec::new();
                let labels = self.field_labels(fields.iter().map(|f| &f.name));
                for (f, label) in fields.iter().zip(labels) {
                    let Some(label) = label else { continue };
                    let t = self.translate(&f.ty, vars, mode);
                    row.push((label, t));
                }
                let tail = match (open, mode) {
                    (false, _) => self.arena.add(Node::RowEmpty),
                    // `..` stands for the other fields, whatever they are
                    // (inferred, like an omitted annotation).
                    (true, VarMode::Rigid(level) | VarMode::Flexible(level)) => {
                        self.arena.var(level, Kind::Row)
                    }
                    (true, VarMode::Declared) => {
                        self.report(
                            Diagnostic::new(
                                Code::UnexpectedToken,
                                "expected a closed record type in a declaration, found `..`",
                            )
                            .with_primary(te.span, "a declared type lists all its fields")
                            .with_help("remove the `..`; a function parameter can take `{ field: T, .. }` instead"),
                        );
                        self.arena.add(Node::RowEmpty)
                    }
                };
                let row = self.extend(&row, tail);
                self.arena.add(Node::Record(row))
            }
            TypeExprKind::Fn {
                params,
                ret,
                effects,
            } => {
                let ps = params
                    .iter()
                    .map(|p| self.translate(p, vars, mode))
                    .collect();
                let r = self.translate(ret, vars, mode);
                let row = self.translate_row(effects.as_ref(), vars, mode);
                self.arena.add(Node::Fn(ps, r, row))
            }
            TypeExprKind::Named { name, args } => self.translate_named(te, name, args, vars, mode),
        }
    }

    fn translate_named(
        &mut self,
        te: &TypeExpr,
        name: &crate::ast::Ident,
        args: &[TypeExpr],
        vars: &mut TyVars,
        mode: VarMode,
    ) -> TyId {
        if !self.row_arguments_ok(&name.name, args) {
            return self.error_ty();
        }
        let arg_tys = self.translate_args(&name.name, args, vars, mode);
        let Some(con) = self.types.by_name.get(&name.name).copied() else {
            let mut d = Diagnostic::new(
                Code::UnknownType,
                format!("expected a type, found the unknown name `{}`", name.name),
            )
            .with_primary(name.span, "no type has this name");
            let candidates: Vec<&str> = self.types.by_name.keys().map(String::as_str).collect();
            if let Some(s) = suggest::type_alias(&name.name)
                .map(str::to_string)
                .or_else(|| self.closest(&name.name, candidates.iter().copied()))
            {
                d = d.with_help(format!("did you mean `{s}`?"));
            } else if self.types.ctor_by_name.contains_key(&name.name) {
                d = d.with_help(format!(
                    "`{}` is a constructor, not a type; use the type it builds",
                    name.name
                ));
            }
            self.report(d);
            return self.error_ty();
        };
        if self.pending.contains_key(&con) {
            self.define_record(con);
        }
        let (arity, def) = match self.types.info(con) {
            Some(i) => (i.arity, i.def.clone()),
            None => return self.error_ty(),
        };
        if arity != arg_tys.len() {
            let plural = |n: usize| if n == 1 { "argument" } else { "arguments" };
            self.report(
                Diagnostic::new(
                    Code::TypeArity,
                    format!(
                        "expected {arity} type {} for `{}`, found {}",
                        plural(arity),
                        name.name,
                        arg_tys.len()
                    ),
                )
                .with_primary(te.span, format!("`{}` takes {arity}", name.name))
                .with_help(type_arity_help(&name.name, arity)),
            );
            return self.error_ty();
        }
        match def {
            TypeDef::Record(scheme) => self.instantiate_with(&scheme, &arg_tys),
            _ => self.con(con, arg_tys),
        }
    }

    /// Translate an effect row annotation; `None` is a fresh open row.
    pub(super) fn translate_row(
        &mut self,
        row: Option<&EffectRow>,
        vars: &mut TyVars,
        mode: VarMode,
    ) -> TyId {
        let level = match mode {
            VarMode::Rigid(l) | VarMode::Flexible(l) => l,
            VarMode::Declared => crate::types::infer::GENERIC,
        };
        let Some(row) = row else {
            // In a `type` or `effect` declaration a function type without a
            // row is pure: a row that belonged to no parameter would be
            // shared by every use of the declaration, and effects could
            // hide in it. To carry effects, a declaration names a row
            // parameter: `type Job[e] = Job(fn() -> Unit / {e})`.
            if mode == VarMode::Declared {
                return self.arena.add(Node::RowEmpty);
            }
            return self.arena.var(level, Kind::Row);
        };
        let mut labels = Vec::new();
        for e in &row.effects {
            if !self.row_arguments_ok(&e.name.name, &e.args) {
                continue;
            }
            let args = self.translate_args(&e.name.name, &e.args, vars, mode);
            match self.types.effects.get(&e.name.name) {
                Some(info) if info.arity == args.len() => {}
                Some(info) => {
                    let arity = info.arity;
                    let plural = if arity == 1 { "argument" } else { "arguments" };
                    self.report(
                        Diagnostic::new(
                            Code::TypeArity,
                            format!(
                                "expected {arity} type {plural} for effect `{}`, found {}",
                                e.name.name,
                                args.len()
                            ),
                        )
                        .with_primary(e.span, format!("`{}` takes {arity}", e.name.name))
                        .with_help(type_arity_help(&e.name.name, arity)),
                    );
                    continue;
                }
                None => {
                    self.unknown_effect(&e.name);
                    continue;
                }
            }
            let label = self.syms.intern(&e.name.name);
            let payload = self.arena.add(Node::Tuple(args));
            labels.push((label, payload));
        }
        let tail = match &row.tail {
            Some(name) => match self.row_var_named(name, vars, mode) {
                Some(t) => t,
                None => return self.error_ty(),
            },
            None => self.arena.add(Node::RowEmpty),
        };
        self.extend(&labels, tail)
    }

    /// The effect row variable `name` of an annotation: the one in scope,
    /// or a new one (rigid in a signature). `None` after a reported error.
    fn row_var_named(
        &mut self,
        name: &crate::ast::Ident,
        vars: &mut TyVars,
        mode: VarMode,
    ) -> Option<TyId> {
        if let Some(t) = vars.get(&name.name) {
            if mode != VarMode::Declared && !self.is_row_var(t) {
                self.kind_clash(name, "a type", "an effect row");
                return None;
            }
            return Some(t);
        }
        // In a signature, a row variable is any effects the caller picks:
        // the body cannot add to it.
        let t = match mode {
            VarMode::Rigid(level) => {
                let sym = self.syms.intern(&name.name);
                let t = self.arena.add(Node::Rigid {
                    name: sym,
                    bounds: Classes::NONE,
                    level,
                });
                self.row_rigids.insert(t);
                t
            }
            VarMode::Flexible(level) => self.arena.var(level, Kind::Row),
            VarMode::Declared => {
                self.report(
                    Diagnostic::new(
                        Code::UnknownType,
                        format!(
                            "expected one of the declaration's parameters, found the row variable `{}`",
                            name.name
                        ),
                    )
                    .with_primary(name.span, "not a parameter of this declaration")
                    .with_help(self.declare_param_help(&name.name)),
                );
                return None;
            }
        };
        vars.names.push((name.name.clone(), t));
        Some(t)
    }

    /// The type arguments of a use of `name` (a declared type or effect):
    /// a row parameter's argument is an effect row variable.
    fn translate_args(
        &mut self,
        name: &str,
        args: &[TypeExpr],
        vars: &mut TyVars,
        mode: VarMode,
    ) -> Vec<TyId> {
        let flags = self.types.row_params.get(name).cloned().unwrap_or_default();
        args.iter()
            .enumerate()
            .map(
                |(i, a)| match (&a.kind, flags.get(i).copied().unwrap_or(false)) {
                    (TypeExprKind::Var(v), true) => self
                        .row_var_named(v, vars, mode)
                        .unwrap_or_else(|| self.arena.add(Node::Error)),
                    _ => self.translate(a, vars, mode),
                },
            )
            .collect()
    }

    /// Whether a variable written in an annotation stands for an effect
    /// row (rather than a type).
    fn is_row_var(&self, t: TyId) -> bool {
        let t = self.arena.resolve(t);
        self.row_rigids.contains(&t)
            || matches!(
                self.arena.node(t),
                Node::Var {
                    kind: Kind::Row,
                    ..
                }
            )
    }

    /// Report a variable used both as a type and as an effect row.
    fn kind_clash(&mut self, name: &crate::ast::Ident, was: &str, now: &str) {
        let message = format!(
            "expected `{}` to be used as {was}, as it is elsewhere in this signature, found it used as {now}",
            name.name
        );
        // One name misused is one mistake, however often it recurs.
        if self.diagnostics.iter().any(|d| d.message == message) {
            return;
        }
        self.report(
            Diagnostic::new(
                Code::TypeArity,
                format!(
                    "expected `{}` to be used as {was}, as it is elsewhere in this signature, found it used as {now}",
                    name.name
                ),
            )
            .with_primary(name.span, format!("used as {now} here"))
            .with_help("a lower-case name in an effect row (`/ {e}`) stands for effects; use another name for a type"),
        );
    }

    /// How to declare `name` as a parameter of the declaration being
    /// translated.
    fn declare_param_help(&self, name: &str) -> String {
        match self.decl_name.as_deref() {
            Some(d) if d.starts_with("effect ") => {
                format!("declare it after the name: `{d}[{name}] {{ ... }}`")
            }
            Some(d) => format!("declare it after the name: `type {d}[{name}] = ...`"),
            None => format!("declare it after the name, like `[{name}]`"),
        }
    }

    /// Whether each argument given for a row parameter of `name` is a
    /// row variable (reporting the first that is not).
    fn row_arguments_ok(&mut self, name: &str, args: &[TypeExpr]) -> bool {
        let Some(flags) = self.types.row_params.get(name).cloned() else {
            return true;
        };
        for (arg, is_row) in args.iter().zip(flags) {
            if is_row && !matches!(arg.kind, TypeExprKind::Var(_) | TypeExprKind::Error) {
                self.report(
                    Diagnostic::new(
                        Code::TypeArity,
                        format!(
                            "expected an effect row variable (such as `e`) for a row parameter of `{name}`, found a type"
                        ),
                    )
                    .with_primary(arg.span, "this parameter stands for effects, not a type")
                    .with_help("pass a row variable, and let the effects be inferred: `Job[e]`"),
                );
                return false;
            }
        }
        true
    }

    /// Report an unknown effect name.
    pub(super) fn unknown_effect(&mut self, name: &crate::ast::Ident) {
        let candidates: Vec<String> = self.types.effects.keys().cloned().collect();
        let mut d = Diagnostic::new(
            Code::UnknownEffect,
            format!("expected an effect, found the unknown name `{}`", name.name),
        )
        .with_primary(name.span, "no effect has this name");
        if let Some(s) = self.closest(&name.name, candidates.iter().map(String::as_str)) {
            d = d.with_help(format!("did you mean `{s}`?"));
        } else {
            d = d.with_help(format!(
                "declare it with `effect {} {{ fn op() -> T }}`",
                name.name
            ));
        }
        self.report(d);
    }

    /// `con[args]`.
    pub(super) fn con(&mut self, con: TypeCon, args: Vec<TyId>) -> TyId {
        self.arena.add(Node::Con(con, args))
    }
}

fn type_arity_help(name: &str, arity: usize) -> String {
    match name {
        "List" => "write `List[T]`, with `T` the type of the elements".to_string(),
        "Map" => "write `Map[K, V]`, with the key type and the value type".to_string(),
        "Option" => "write `Option[T]`, with `T` the type of the value inside".to_string(),
        "Result" => "write `Result[T, E]`, with the value type and the error type".to_string(),
        _ if arity == 0 => format!("`{name}` takes no type arguments: write just `{name}`"),
        _ => format!(
            "write `{name}[{}]`",
            (0..arity)
                .map(|i| ((b'a' + (i % 26) as u8) as char).to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
