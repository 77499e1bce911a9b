//! Turning unification failures into diagnostics a person can act on.
//!
//! Every message names the expected and the found type in the program's
//! own names (one [`Checker::show`] call per message, so a variable has
//! one name throughout), points at the expression, and where the
//! expectation came from somewhere (an annotation, the first branch, the
//! first element) adds a secondary label there.
//!
//! Invariants: a mismatch involving `Error` is never reported (it is a
//! consequence of an earlier diagnostic); each call reports at most one
//! diagnostic.

use crate::diagnostic::{Code, Diagnostic};
use crate::span::Span;
use crate::types::TypeCon;
use crate::types::infer::{Checker, Origin};
use crate::types::ty::{Classes, Node, TyId};
use crate::types::unify::Mismatch;

impl Checker {
    /// Report that `found` (at `span`) is not `expected`.
    pub(super) fn report_mismatch(
        &mut self,
        span: Span,
        expected: TyId,
        found: TyId,
        m: Mismatch,
        origin: Option<Origin>,
    ) {
        let mut d = match m {
            Mismatch::Types(a, b) => {
                let shown = self.show(&[expected, found, a, b]);
                let (e, f, ia, ib) = (&shown[0], &shown[1], &shown[2], &shown[3]);
                let mut d =
                    Diagnostic::new(Code::TypeMismatch, format!("expected `{e}`, found `{f}`"))
                        .with_primary(span, format!("this is `{f}`"));
                if (ia != e || ib != f) && ia != ib {
                    d = d.with_note(format!("`{ia}` and `{ib}` are different types"));
                }
                let redeclared = match (
                    self.arena.node(self.arena.resolve(a)),
                    self.arena.node(self.arena.resolve(b)),
                ) {
                    (Node::Con(x, _), Node::Con(y, _)) if x != y => {
                        let name = |c: &TypeCon| self.types.info(*c).map(|i| i.name.clone());
                        name(x).filter(|n| Some(n) == name(y).as_ref())
                    }
                    _ => None,
                };
                if let Some(name) = redeclared {
                    d = d.with_note(format!(
                        "these are two different types named `{name}`: `{name}` was declared again, and what was made or defined before that keeps the old `{name}`; define it again to use the new one"
                    ));
                } else if e == f {
                    d = d.with_note(
                        "the two differ in effects that are not printed (a function's row variable or a declared type's function fields); write the effect rows (`/ {...}`) to see which",
                    );
                }
                if let Some(h) = self.mismatch_help(a, b, ia, ib) {
                    d = d.with_help(h);
                }
                d
            }
            Mismatch::Occurs(v, t) => {
                let shown = self.show(&[v, t]);
                Diagnostic::new(
                    Code::InfiniteType,
                    format!(
                        "expected `{}`, found `{}`, which contains `{}` itself: the type would be infinite",
                        shown[0], shown[1], shown[0]
                    ),
                )
                .with_primary(span, "this would need an infinite type")
                .with_help("a value is probably used inside itself, such as a function applied to itself or a list put into its own elements")
            }
            Mismatch::Class(c, t) => {
                if let Some(ctx) = self.call_context.clone() {
                    self.report_class_inner(span, found, c, t, &format!("an argument of {ctx}"));
                    return;
                }
                // A value whose type must support an operation meets a type
                // that does not: say what the value must be.
                let shown = self.show(&[expected, found, t]);
                let what = if c.0 & 4 != 0 {
                    "a number (`Int` or `Float`)"
                } else if c.0 & 8 != 0 {
                    "a `Str` or a `List` (it is used with `++`)"
                } else if c.0 & 2 != 0 {
                    "a value with an order (it is compared with `<`)"
                } else if c.0 & 1 != 0 {
                    "a value with equality (it is compared with `==`)"
                } else {
                    "a value with a display form (it is interpolated)"
                };
                let mut d = Diagnostic::new(
                    Code::TypeMismatch,
                    format!("expected `{}`, found {what}", shown[0]),
                )
                .with_primary(span, format!("this must be {what}"));
                if shown[2] != shown[0] && shown[2] != shown[1] {
                    d = d.with_note(format!(
                        "`{}` does not support what this value is used for",
                        shown[2]
                    ));
                }
                d
            }
            Mismatch::MissingField { label, in_expected } => {
                let shown = self.show(&[expected, found]);
                let name = self.syms.name(label).to_string();
                let is_effect = name.chars().next().is_some_and(char::is_uppercase);
                let (code, detail) = match (is_effect, in_expected) {
                    (true, true) => (
                        Code::TypeMismatch,
                        format!("`{}` does not allow the effect `{name}`", shown[1]),
                    ),
                    (true, false) => (
                        Code::TypeMismatch,
                        format!("`{}` does not allow the effect `{name}`", shown[0]),
                    ),
                    (false, true) => (
                        Code::NoSuchField,
                        format!("`{}` has no field `{name}`", shown[1]),
                    ),
                    (false, false) => (
                        Code::NoSuchField,
                        format!(
                            "`{}` has a field `{name}` that `{}` does not",
                            shown[1], shown[0]
                        ),
                    ),
                };
                let d = Diagnostic::new(
                    code,
                    format!("expected `{}`, found `{}`", shown[0], shown[1]),
                )
                .with_primary(span, detail);
                if is_effect && in_expected {
                    // The value's row cannot take `name`: it ends in a
                    // row variable of a signature (`f: fn() -> Int / {e}`),
                    // which stands for exactly the caller's effects.
                    d.with_help(format!("`{}` has a row of its own (a parameter's `{{e}}`), which cannot take `{name}`: wrap the function in a function value written in place, which takes the row expected: `fn() {{ f() }}` (`fn(x) {{ f(x) }}` with a parameter)", shown[1]))
                } else if is_effect {
                    d.with_help(format!("the expected function type does not allow `{name}`: if it is written in a parameter's type, add `{name}` to its row; if it comes from a `type` or `effect` declaration (where a function type without `/ {{...}}` performs nothing), give the declaration a row parameter: `type Job[e] = Job(fn() -> Unit / {{e}})`"))
                } else {
                    d
                }
            }
            Mismatch::Escape(r) => {
                let shown = self.show(&[expected, found, r]);
                Diagnostic::new(
                    Code::TypeVariableEscape,
                    format!("expected `{}`, found `{}`", shown[0], shown[1]),
                )
                .with_primary(span, format!("`{}` would stand for a type from outside its function", shown[2]))
                .with_help(format!("`{}` is a type parameter of a signature and means any type its caller picks; annotate with a concrete type, or leave the annotation out", shown[2]))
            }
        };
        if let Some(o) = origin
            && o.span != span
        {
            d = d.with_secondary(o.span, o.why);
        }
        self.report(d);
    }

    fn mismatch_help(&self, a: TyId, b: TyId, sa: &str, sb: &str) -> Option<String> {
        let na = self.arena.node(a).clone();
        let nb = self.arena.node(b).clone();
        match (na, nb) {
            (Node::Con(x, _), Node::Con(y, _))
                if (x == TypeCon::INT && y == TypeCon::FLOAT)
                    || (x == TypeCon::FLOAT && y == TypeCon::INT) =>
            {
                Some("Writ never converts numbers implicitly: use `math.to_float(n)`, or `math.to_int(x)` for the other way".into())
            }
            (Node::Rigid { name, .. }, _) | (_, Node::Rigid { name, .. }) => {
                let n = self.syms.name(name);
                Some(match crate::types::suggest::type_alias(n) {
                    // `str`, `int`: a lower-case name is a type variable.
                    Some(t) => format!(
                        "`{n}` is a type variable (lower-case); did you mean the type `{t}`?"
                    ),
                    None => format!(
                        "`{n}` is a type parameter: the function must work for every type its caller picks"
                    ),
                })
            }
            (Node::Fn(p, _, _), Node::Fn(q, _, _)) if p.len() != q.len() => Some(format!(
                "a function of {} parameter{} is expected, and this one takes {}",
                p.len(),
                if p.len() == 1 { "" } else { "s" },
                q.len()
            )),
            (Node::Con(x, _), _) if self.types.name(x) == "Option" && sa == format!("Option[{sb}]") => {
                Some("wrap the value: `Some(...)`".into())
            }
            (_, Node::Con(y, _)) if self.types.name(y) == "Option" && sb == format!("Option[{sa}]") => {
                Some("this may be `None`: use `match`, or `option.unwrap_or(value, default)`".into())
            }
            (_, Node::Con(y, _)) if self.types.name(y) == "Result" && sb.starts_with(&format!("Result[{sa},")) => {
                Some("this may be an `Err`: use `match`, or `result.unwrap_or(value, default)`".into())
            }
            (Node::Con(x, _), Node::Con(y, _))
                if x == TypeCon::STR
                    && (y == TypeCon::INT || y == TypeCon::FLOAT || y == TypeCon::BOOL) =>
            {
                Some("to make text of a value, interpolate it: `\"${x}\"`".into())
            }
            (Node::Con(x, _), Node::Con(y, _))
                if x == TypeCon::UNIT && y != TypeCon::UNIT && y != TypeCon::NEVER =>
            {
                Some("`()` is expected here: if the value is not needed, drop it with `let _ = ...`".into())
            }
            _ => None,
        }
    }

    /// Report that `t` (at `span`) does not support `op`.
    pub(super) fn report_class(&mut self, span: Span, t: TyId, m: Mismatch, op: &str) {
        match m {
            Mismatch::Class(c, offender) => self.report_class_inner(span, t, c, offender, op),
            other => self.report_mismatch(span, t, t, other, None),
        }
    }

    fn report_class_inner(&mut self, span: Span, t: TyId, c: Classes, offender: TyId, op: &str) {
        let shown = self.show(&[t, offender]);
        let (ts, os) = (&shown[0], &shown[1]);
        let is_fn = matches!(self.arena.node(offender), Node::Fn(..));
        let rigid = match self.arena.node(offender) {
            Node::Rigid { name, bounds, .. } => {
                Some((self.syms.name(*name).to_string(), bounds.union(c)))
            }
            _ => None,
        };
        let is_str = matches!(self.arena.node(offender), Node::Con(c, _) if *c == TypeCon::STR);
        let is_num = matches!(self.arena.node(offender), Node::Con(c, _) if crate::types::print::is_numeric(*c));
        let arithmetic = c.0 & (4 | 8) != 0;
        let maybe = match self.arena.node(offender) {
            _ if !arithmetic => None,
            Node::Con(c, _) if self.types.name(*c) == "Option" => {
                Some("this may be `None`: use `match`, or `option.unwrap_or(value, default)`")
            }
            Node::Con(c, _) if self.types.name(*c) == "Result" => {
                Some("this may be an `Err`: use `match`, or `result.unwrap_or(value, default)`")
            }
            _ => None,
        };

        let (message, help) = if c.impossible() {
            (
                format!(
                    "expected one type for both arithmetic and `++`, found `{ts}` used as both"
                ),
                Some(
                    "arithmetic needs `Int` or `Float`, and `++` needs `Str` or a list".to_string(),
                ),
            )
        } else if c.contains(Classes::NUM) || c.0 & 4 != 0 {
            (
                format!("expected a number (`Int` or `Float`) for {op}, found `{ts}`"),
                if is_str && op == "`+`" {
                    Some("to join strings, use `++`; to put a number into a string, interpolate it: `\"${n}\"`".to_string())
                } else if op == "`+`"
                    && matches!(self.arena.node(offender), Node::Con(c, _) if *c == TypeCon::LIST)
                {
                    Some("to join lists, use `++`".to_string())
                } else {
                    None
                },
            )
        } else if c.0 & 8 != 0 {
            (
                format!("expected `Str` or a `List` for {op}, found `{ts}`"),
                if is_num {
                    Some("to add numbers use `+`; to add an element to a list, write `xs ++ [x]`; to put a value into a string, interpolate it: `\"${x}\"`".to_string())
                } else {
                    None
                },
            )
        } else if c.0 & 2 != 0 {
            (
                format!("expected a type with an order for {op}, found `{ts}`"),
                Some("ordering is defined on numbers, `Str`, `Bool`, `Unit`, and lists and tuples of those; compare a field instead (`list.sort_by(xs, fn(x) { x.field })`)".to_string()),
            )
        } else if c.0 & 1 != 0 {
            // `op` is an operator (`==`) or a use (an argument of
            // `list.contains`), whose bound is equality.
            let what = if op.starts_with('`') {
                format!("a type that supports {op}")
            } else {
                format!("a type whose values can be compared with `==` for {op}")
            };
            (format!("expected {what}, found `{ts}`"), None)
        } else {
            (
                format!("expected a value with a display form for {op}, found `{ts}`"),
                None,
            )
        };
        let mut d = Diagnostic::new(Code::UnsupportedOperation, message)
            .with_primary(span, format!("this is `{ts}`"));
        if is_fn {
            d = d.with_note(if c.0 & 4 != 0 {
                "a function is not a number: to use what it returns, call it (`f()`)".to_string()
            } else if c.0 & 16 != 0 && c.0 & 3 == 0 {
                "functions have no display form".to_string()
            } else {
                "functions cannot be compared".to_string()
            });
        } else if os != ts {
            d = d.with_note(format!("`{ts}` contains `{os}`, which does not support it"));
        }
        if let Some((r, wanted)) = rigid {
            let bound = wanted.names().join(" + ");
            d = d.with_help(match crate::types::suggest::type_alias(&r) {
                // `x: int`, `s: string`: another language's type name, in
                // lower case, which Writ reads as a type parameter.
                Some(t) if r.starts_with(|c: char| c.is_ascii_lowercase()) => {
                    format!("`{r}` is a type variable (lower-case); did you mean the type `{t}`?")
                }
                _ => format!(
                    "`{r}` is a type parameter without that bound; declare it: `[{r}: {bound}]`"
                ),
            });
        } else if let Some(h) = maybe {
            d = d.with_help(h);
        } else if let Some(h) = help {
            d = d.with_help(h);
        }
        self.report(d);
    }

    /// Report a functional update whose field does not fit the record.
    pub(super) fn report_update(
        &mut self,
        span: Span,
        base_span: Span,
        label: u32,
        record: TyId,
        value: TyId,
        m: Mismatch,
    ) {
        let name = self.syms.name(label).to_string();
        let effect_row = matches!(&m, Mismatch::MissingField { label, .. }
            if self.syms.name(*label).chars().next().is_some_and(char::is_uppercase));
        match m {
            Mismatch::MissingField { .. } if !effect_row => {
                let shown = self.show(&[record]);
                self.report(
                    Diagnostic::new(
                        Code::NoSuchField,
                        format!("expected a record with a field `{name}` to update, found `{}`", shown[0]),
                    )
                    .with_primary(span, format!("`{}` has no field `{name}`", shown[0]))
                    .with_secondary(base_span, "the record updated")
                    .with_help("an update replaces existing fields; to build a record with new fields, write a record literal"),
                );
            }
            other => {
                let field = self.fresh();
                let rest = self.fresh_row();
                let row = self.extend(&[(label, field)], rest);
                let want = self.arena.add(Node::Record(row));
                if self.unify(want, record).is_err() {
                    self.poisoned.clear();
                }
                self.report_mismatch(
                    span,
                    field,
                    value,
                    match other {
                        Mismatch::Types(..) => Mismatch::Types(field, value),
                        o => o,
                    },
                    Origin::new(
                        base_span,
                        format!("the field `{name}` of this record has its type"),
                    ),
                );
            }
        }
    }
}
