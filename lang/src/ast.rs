//! The abstract syntax tree: what the parser builds and later stages read.
//!
//! Invariants: every node carries the [`Span`] of the source it came from;
//! a node that could not be parsed is an `Error` variant (already reported),
//! never missing, so later stages can keep going without reporting it twice.
//! The tree is plain data: no types, no resolved names.

use crate::span::Span;

/// A name as written, with where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    /// The name.
    pub name: String,
    /// Where it appears.
    pub span: Span,
}

/// A whole source file: items and top-level statements in source order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Program {
    /// Declarations and statements, in order.
    pub items: Vec<Item>,
}

/// One top-level element of a program.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `fn name(...) { ... }`
    Fn(Box<FnDecl>),
    /// `type Name = ...`
    Type(TypeDecl),
    /// `effect Name { ... }`
    Effect(EffectDecl),
    /// A top-level `let` or expression, run in order.
    Stmt(Stmt),
}

/// A named function.
#[derive(Clone, Debug, PartialEq)]
pub struct FnDecl {
    /// Text of the `///` comments before it.
    pub doc: Option<String>,
    /// Its name.
    pub name: Ident,
    /// Explicit type parameters `fn f[a, b: Eq](...)` (usually inferred
    /// instead).
    pub generics: Vec<Generic>,
    /// Parameters.
    pub params: Vec<Param>,
    /// The `-> T` annotation.
    pub ret: Option<TypeExpr>,
    /// The `/ {E, ...}` annotation.
    pub effects: Option<EffectRow>,
    /// The body; `None` only for a native function declared in a standard
    /// library file (see [`crate::parser::parse_library`]).
    pub body: Option<Block>,
    /// From `fn` to the closing `}`.
    pub span: Span,
}

/// A declared type parameter with its bounds: `a`, `a: Eq`, `n: Num`.
#[derive(Clone, Debug, PartialEq)]
pub struct Generic {
    /// The parameter's name.
    pub name: Ident,
    /// The bounds it must satisfy, as written (`Eq`, `Ord`, ...).
    pub bounds: Vec<Ident>,
}

/// A function or lambda parameter: a name (or `_`) and an optional type.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// The bound name; `_` binds nothing.
    pub name: Ident,
    /// The `: T` annotation.
    pub ty: Option<TypeExpr>,
    /// The whole parameter.
    pub span: Span,
}

/// A `type` declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeDecl {
    /// Text of the `///` comments before it.
    pub doc: Option<String>,
    /// The type's name.
    pub name: Ident,
    /// Its type parameters, `type Pair[a, b] = ...`.
    pub params: Vec<Ident>,
    /// Record or sum.
    pub body: TypeBody,
    /// The whole declaration.
    pub span: Span,
}

/// The right-hand side of a `type` declaration.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeBody {
    /// `{ field: T, ... }`
    Record(Vec<FieldDecl>),
    /// `A(T, U) | B | ...`
    Variants(Vec<VariantDecl>),
}

/// One field of a record type.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldDecl {
    /// Field name.
    pub name: Ident,
    /// Field type.
    pub ty: TypeExpr,
    /// The whole field.
    pub span: Span,
}

/// One constructor of a sum type.
#[derive(Clone, Debug, PartialEq)]
pub struct VariantDecl {
    /// Constructor name.
    pub name: Ident,
    /// Payload types (empty for a constant constructor).
    pub fields: Vec<TypeExpr>,
    /// The whole variant.
    pub span: Span,
}

/// An `effect` declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct EffectDecl {
    /// Text of the `///` comments before it.
    pub doc: Option<String>,
    /// The effect's name.
    pub name: Ident,
    /// Its type parameters, `effect State[s] { ... }`.
    pub params: Vec<Ident>,
    /// Its operations.
    pub ops: Vec<OpDecl>,
    /// The whole declaration.
    pub span: Span,
}

/// One operation signature in an effect.
#[derive(Clone, Debug, PartialEq)]
pub struct OpDecl {
    /// Text of the `///` comments before it.
    pub doc: Option<String>,
    /// Operation name.
    pub name: Ident,
    /// Parameters (their types are required by the checker, not the parser).
    pub params: Vec<Param>,
    /// Result type; `Unit` when omitted.
    pub ret: Option<TypeExpr>,
    /// The whole signature.
    pub span: Span,
}

/// `let pattern (: T)? = value`
#[derive(Clone, Debug, PartialEq)]
pub struct Let {
    /// What is bound.
    pub pattern: Pattern,
    /// Optional annotation.
    pub ty: Option<TypeExpr>,
    /// The bound value.
    pub value: Expr,
    /// The whole statement.
    pub span: Span,
    /// Made by the parser from a lambda's pattern parameter: `fn((k, v))
    /// { body }` is read as `fn(p) { let (k, v) = p; body }`, with `p` a
    /// name no program can write.
    pub from_parameter: bool,
}

/// A statement in a block or at top level. (Large variants are boxed to keep
/// the tree compact.)
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `let pattern (: T)? = value`
    Let(Box<Let>),
    /// A local named function.
    Fn(Box<FnDecl>),
    /// An expression evaluated for its value or effects.
    Expr(Expr),
}

impl Stmt {
    /// The statement's span.
    pub fn span(&self) -> Span {
        match self {
            Stmt::Let(l) => l.span,
            Stmt::Fn(f) => f.span,
            Stmt::Expr(e) => e.span,
        }
    }

    /// Every variable the statement uses (see [`Expr::vars`]).
    pub fn vars<'a>(&'a self, out: &mut Vec<&'a Ident>) {
        self.each(&mut |e| push_var(e, out));
    }

    /// Call `f` on every expression in the statement (see [`Expr::each`]).
    pub fn each<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        match self {
            Stmt::Expr(e) => e.each(f),
            Stmt::Let(l) => l.value.each(f),
            Stmt::Fn(d) => {
                if let Some(b) = &d.body {
                    b.each(f);
                }
            }
        }
    }
}

/// `{ stmt ... }`: its value is the last statement's if that is an
/// expression, `()` otherwise.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// Statements in order.
    pub stmts: Vec<Stmt>,
    /// From `{` to `}`.
    pub span: Span,
}

impl Block {
    /// Every variable the block uses (see [`Expr::vars`]).
    pub fn vars<'a>(&'a self, out: &mut Vec<&'a Ident>) {
        self.each(&mut |e| push_var(e, out));
    }

    /// Call `f` on every expression in the block (see [`Expr::each`]).
    pub fn each<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        for s in &self.stmts {
            s.each(f);
        }
    }
}

/// An expression with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What kind of expression.
    pub kind: ExprKind,
    /// Where it is.
    pub span: Span,
}

impl Expr {
    /// Every variable the expression uses: each [`ExprKind::Var`] in it,
    /// with repeats, whatever binds it (what each one refers to is the
    /// checker's [`crate::types::Resolution`]).
    pub fn vars<'a>(&'a self, out: &mut Vec<&'a Ident>) {
        self.each(&mut |e| push_var(e, out));
    }

    /// Call `f` on the expression and on every expression inside it,
    /// outer before inner, in source order (the bodies of lambdas,
    /// clauses and local functions included); deep nesting grows the
    /// stack instead of overflowing it.
    pub fn each<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        stacker::maybe_grow(
            crate::types::STACK_RED_ZONE,
            crate::types::STACK_CHUNK,
            || self.each_here(f),
        )
    }

    fn each_here<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        f(self);
        match &self.kind {
            ExprKind::Interp(parts) => {
                for p in parts {
                    if let StrPart::Expr(x) = p {
                        x.each(f);
                    }
                }
            }
            ExprKind::List(items) | ExprKind::Tuple(items) => items.iter().for_each(|i| i.each(f)),
            ExprKind::Record(fields) => fields.iter().for_each(|x| x.value.each(f)),
            ExprKind::RecordUpdate { base, fields } => {
                base.each(f);
                fields.iter().for_each(|x| x.value.each(f));
            }
            ExprKind::Field { expr, .. } => expr.each(f),
            ExprKind::Call { callee, args } => {
                callee.each(f);
                args.iter().for_each(|a| a.each(f));
            }
            ExprKind::Perform(p) => p.args.iter().for_each(|a| a.each(f)),
            ExprKind::Lambda(l) => l.body.each(f),
            ExprKind::Block(b) => b.each(f),
            ExprKind::If {
                branches,
                otherwise,
            } => {
                for (c, b) in branches {
                    c.each(f);
                    b.each(f);
                }
                if let Some(b) = otherwise {
                    b.each(f);
                }
            }
            ExprKind::Match { scrutinee, arms } => {
                scrutinee.each(f);
                for a in arms {
                    if let Some(g) = &a.guard {
                        g.each(f);
                    }
                    a.body.each(f);
                }
            }
            ExprKind::Handle(h) => {
                h.body.each(f);
                if let Some(s) = &h.param {
                    s.init.each(f);
                }
                for c in &h.clauses {
                    match c {
                        Clause::Op { body, .. } | Clause::Return { body, .. } => body.each(f),
                    }
                }
            }
            ExprKind::Binary { lhs, rhs, .. } => {
                lhs.each(f);
                rhs.each(f);
            }
            ExprKind::Unary { expr, .. } => expr.each(f),
            ExprKind::Error
            | ExprKind::Unit
            | ExprKind::Bool(_)
            | ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Str(_)
            | ExprKind::Var(_)
            | ExprKind::Ctor(_) => {}
        }
    }
}

/// `out` gains `e`'s name when `e` is a variable.
fn push_var<'a>(e: &'a Expr, out: &mut Vec<&'a Ident>) {
    if let ExprKind::Var(v) = &e.kind {
        out.push(v);
    }
}

/// Binary operators, loosest first in `docs/language.md`'s table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `||`
    Or,
    /// `&&`
    And,
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
    /// `|>`
    Pipe,
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
}

impl BinOp {
    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        match self {
            BinOp::Or => "||",
            BinOp::And => "&&",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Concat => "++",
            BinOp::Pipe => "|>",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
        }
    }

    /// Whether this is one of the comparison operators, which do not chain.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }
}

/// Prefix operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// `-x`
    Neg,
    /// `!x`
    Not,
}

/// One piece of an interpolated string.
#[derive(Clone, Debug, PartialEq)]
pub enum StrPart {
    /// Literal text (escapes decoded).
    Text(String),
    /// `${expr}`
    Expr(Box<Expr>),
}

/// `field: value` in a record literal or update.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldInit {
    /// Field name.
    pub name: Ident,
    /// Its value.
    pub value: Expr,
}

/// `pattern (if guard)? => body` in a `match`.
#[derive(Clone, Debug, PartialEq)]
pub struct Arm {
    /// What the arm matches.
    pub pattern: Pattern,
    /// Optional `if` guard.
    pub guard: Option<Expr>,
    /// The arm's value.
    pub body: Expr,
    /// The whole arm.
    pub span: Span,
}

/// One clause of a `handle ... with { ... }`.
#[derive(Clone, Debug, PartialEq)]
pub enum Clause {
    /// `Eff.op(p, ...) => body`
    Op {
        /// The effect named.
        effect: Ident,
        /// The operation named.
        op: Ident,
        /// Patterns for the operation's arguments.
        params: Vec<Pattern>,
        /// The clause body; `resume` is in scope here.
        body: Expr,
        /// The whole clause.
        span: Span,
    },
    /// `return(p) => body`
    Return {
        /// Pattern for the handled computation's value.
        param: Pattern,
        /// The clause body.
        body: Expr,
        /// The whole clause.
        span: Span,
    },
}

/// The `(name = init)` of a parameterised handler.
#[derive(Clone, Debug, PartialEq)]
pub struct HandlerParam {
    /// The parameter's name, bound in every clause.
    pub name: Ident,
    /// Its initial value.
    pub init: Expr,
}

/// `Eff.op(args)`: performing an effect operation.
#[derive(Clone, Debug, PartialEq)]
pub struct Perform {
    /// The effect.
    pub effect: Ident,
    /// The operation.
    pub op: Ident,
    /// The arguments.
    pub args: Vec<Expr>,
    /// Whether it was written as a call (`Eff.op(...)`). `Eff.op` alone
    /// is an operation only on the right of `|>` (`x |> Http.get` is
    /// `Http.get(x)`); anywhere else the checker reports `E0102`.
    pub called: bool,
}

/// `fn(params) (-> T)? (/ row)? { body }`
#[derive(Clone, Debug, PartialEq)]
pub struct Lambda {
    /// Parameters.
    pub params: Vec<Param>,
    /// Optional result annotation.
    pub ret: Option<TypeExpr>,
    /// Optional effect annotation.
    pub effects: Option<EffectRow>,
    /// The body.
    pub body: Block,
}

/// `handle e with (p = init)? { clauses }`
#[derive(Clone, Debug, PartialEq)]
pub struct Handle {
    /// The handled computation.
    pub body: Expr,
    /// The parameter of a parameterised handler.
    pub param: Option<HandlerParam>,
    /// The clauses, in order.
    pub clauses: Vec<Clause>,
}

/// The kinds of expression.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// Could not be parsed (already reported).
    Error,
    /// `()`
    Unit,
    /// `true` / `false`
    Bool(bool),
    /// An integer literal (a leading `-` is folded in).
    Int(i64),
    /// A float literal (a leading `-` is folded in).
    Float(f64),
    /// A string without interpolation.
    Str(String),
    /// A string with `${...}` parts.
    Interp(Vec<StrPart>),
    /// A lower-case name: variable, function or namespace.
    Var(Ident),
    /// An upper-case name: a constructor.
    Ctor(Ident),
    /// `[a, b, c]`
    List(Vec<Expr>),
    /// `(a, b)`; never fewer than two elements.
    Tuple(Vec<Expr>),
    /// `{ a: 1, b: 2 }`
    Record(Vec<FieldInit>),
    /// `{ ..base, a: 1 }`
    RecordUpdate {
        /// The record copied.
        base: Box<Expr>,
        /// Fields replaced.
        fields: Vec<FieldInit>,
    },
    /// `e.name` (also `list.map`: namespaces are resolved later).
    Field {
        /// The record (or namespace).
        expr: Box<Expr>,
        /// The field.
        name: Ident,
    },
    /// `f(args)`
    Call {
        /// What is called.
        callee: Box<Expr>,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `Eff.op(args)`: performing an effect operation.
    Perform(Box<Perform>),
    /// `fn(params) (-> T)? (/ row)? { body }`
    Lambda(Box<Lambda>),
    /// `{ stmts }`
    Block(Block),
    /// `if c { } else if d { } else { }`, flattened.
    If {
        /// Each condition with its block, in order.
        branches: Vec<(Expr, Block)>,
        /// The final `else` block, if any.
        otherwise: Option<Box<Block>>,
    },
    /// `match e { arms }`
    Match {
        /// The value matched.
        scrutinee: Box<Expr>,
        /// The arms, in order.
        arms: Vec<Arm>,
    },
    /// `handle e with (p = init)? { clauses }`
    Handle(Box<Handle>),
    /// `a op b`
    Binary {
        /// The operator.
        op: BinOp,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// `op a`
    Unary {
        /// The operator.
        op: UnOp,
        /// The operand.
        expr: Box<Expr>,
    },
}

/// A pattern with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Pattern {
    /// What kind of pattern.
    pub kind: PatternKind,
    /// Where it is.
    pub span: Span,
}

/// `name: pattern` (or just `name`, binding the field to its own name) in a
/// record pattern.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldPattern {
    /// The field.
    pub name: Ident,
    /// Its sub-pattern; `None` binds the field's value to `name`.
    pub pattern: Option<Pattern>,
}

/// The kinds of pattern.
#[derive(Clone, Debug, PartialEq)]
pub enum PatternKind {
    /// Could not be parsed (already reported).
    Error,
    /// `_`
    Wildcard,
    /// A lower-case name: binds the value.
    Bind(Ident),
    /// `()`
    Unit,
    /// `true` / `false`
    Bool(bool),
    /// An integer, possibly negative.
    Int(i64),
    /// A float, possibly negative.
    Float(f64),
    /// A string.
    Str(String),
    /// `(p, q)`
    Tuple(Vec<Pattern>),
    /// `Name` or `Name(p, ...)`
    Ctor {
        /// The constructor.
        name: Ident,
        /// Its argument patterns.
        args: Vec<Pattern>,
    },
    /// `{ a: p, b, .. }`
    Record {
        /// The fields named.
        fields: Vec<FieldPattern>,
        /// Whether `..` allows fields not named.
        open: bool,
    },
    /// `[p, q]` or `[p, ..rest]`
    List {
        /// The leading element patterns.
        items: Vec<Pattern>,
        /// `..rest` or `..` (the latter binds nothing).
        rest: Option<ListRest>,
    },
}

/// The `..rest` tail of a list pattern.
#[derive(Clone, Debug, PartialEq)]
pub struct ListRest {
    /// The name bound to the remaining list; `None` for a bare `..`.
    pub name: Option<Ident>,
    /// Where the tail is written.
    pub span: Span,
}

/// A type as written in an annotation or declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeExpr {
    /// What kind of type.
    pub kind: TypeExprKind,
    /// Where it is.
    pub span: Span,
}

/// The kinds of type expression.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeExprKind {
    /// Could not be parsed (already reported).
    Error,
    /// `Int`, `List[a]`, `Map[Str, Int]`
    Named {
        /// The type's name.
        name: Ident,
        /// Its arguments.
        args: Vec<TypeExpr>,
    },
    /// A lower-case type variable such as `a`.
    Var(Ident),
    /// `()`
    Unit,
    /// `(A, B)`
    Tuple(Vec<TypeExpr>),
    /// `{ a: A, b: B }`, or `{ a: A, .. }` for any record with at least
    /// these fields.
    Record {
        /// The fields named.
        fields: Vec<FieldDecl>,
        /// Whether `..` allows other fields.
        open: bool,
    },
    /// `fn(A, B) -> C / {E}`, `(A, B) -> C`, `A -> C`
    Fn {
        /// Parameter types.
        params: Vec<TypeExpr>,
        /// Result type.
        ret: Box<TypeExpr>,
        /// Effect row; `None` means "inferred" (an open, fresh row).
        effects: Option<EffectRow>,
    },
}

/// An effect row `{E1, E2[T] | e}`.
#[derive(Clone, Debug, PartialEq)]
pub struct EffectRow {
    /// The effects named.
    pub effects: Vec<EffectRef>,
    /// The row variable standing for "any other effects".
    pub tail: Option<Ident>,
    /// From `{` to `}`.
    pub span: Span,
}

/// One effect in a row: a name and its type arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct EffectRef {
    /// The effect.
    pub name: Ident,
    /// Its type arguments, `State[Int]`.
    pub args: Vec<TypeExpr>,
    /// The whole reference.
    pub span: Span,
}

#[cfg(test)]
mod tests {
    /// The tree stays compact: moving nodes around is most of parsing.
    #[test]
    fn nodes_are_small() {
        assert!(std::mem::size_of::<super::Expr>() <= 96);
        assert!(std::mem::size_of::<super::Stmt>() <= 96);
    }
}
