//! Resolving names in expressions: variables, constructors, namespace
//! members (`list.map`) and record fields.
//!
//! Invariants: a local binding always wins over a namespace of the same
//! name (so `list.length` on a variable called `list` is a field access,
//! and the message says why); every unknown name is reported once, with
//! the closest name in scope when one is close enough, and has type
//! `Error` afterwards.

use crate::ast::{Expr, ExprKind, Ident};
use crate::diagnostic::{Code, Diagnostic};
use crate::types::TypeCon;
use crate::types::aliases;
use crate::types::infer::{Checker, suggest_value};
use crate::types::resolution::Resolved;
use crate::types::suggest;
use crate::types::ty::{Node, TyId};
use crate::types::unify::Mismatch;

impl Checker {
    /// The type of a variable.
    pub(super) fn infer_var(&mut self, name: &Ident) -> TyId {
        if let Some((b, to)) = self.resolve_name(&name.name) {
            let scheme = b.scheme.clone();
            self.resolution.insert(name.span, to);
            let t = self.instantiate(&scheme);
            return self.open_fn(t);
        }
        if self.namespaces.contains_key(&name.name) {
            let help = match self.qualified_guess(&name.name) {
                Some(q) => format!("did you mean `{q}`?"),
                None => format!(
                    "call one of its functions, like `{}.{}(...)`",
                    name.name,
                    self.namespaces
                        .get(&name.name)
                        .and_then(|m| {
                            let mut k: Vec<&String> = m.keys().collect();
                            k.sort();
                            k.first().map(|s| s.to_string())
                        })
                        .unwrap_or_default()
                ),
            };
            self.report(
                Diagnostic::new(
                    Code::NamespaceAsValue,
                    format!("expected a value, found the namespace `{}`", name.name),
                )
                .with_primary(name.span, "a namespace, not a value")
                .with_help(help),
            );
            return self.error_ty();
        }
        self.unknown_name(name);
        self.error_ty()
    }

    /// Report an unknown value name with the best suggestion available.
    pub(super) fn unknown_name(&mut self, name: &Ident) {
        let mut d = Diagnostic::new(
            Code::UnknownName,
            format!("expected a name in scope, found `{}`", name.name),
        )
        .with_primary(name.span, "not defined here");
        let sites = self.let_sites.get(&name.name);
        let itself = sites.is_some_and(|v| v.iter().any(|(p, _)| *p == self.top_position))
            && !sites.is_some_and(|v| v.iter().any(|(p, _)| *p < self.top_position));
        let later = sites.and_then(|v| {
            v.iter()
                .find(|(p, _)| *p > self.top_position)
                .map(|(_, s)| *s)
        });
        if itself {
            d = d.with_help(format!(
                "`{}` is being defined by this `let`, so its value cannot use it",
                name.name
            ));
        } else if let Some(later) = later {
            d = d
                .with_secondary(later, "defined here, later in the file")
                .with_help(format!(
                    "a top-level `let` can be used only after it; move `{}` above this use",
                    name.name
                ));
        } else if let Some((_, at)) = self.later_fns.iter().rev().find(|(n, _)| *n == name.name) {
            d = d
                .with_secondary(*at, "defined here, later in the block")
                .with_help(format!(
                    "a local `fn` can be used only after it: move `{}` above this use; functions that call each other go at the top level, where order does not matter",
                    name.name
                ));
        } else if name.name == "resume" {
            d = d.with_help(
                "`resume` exists only inside a handler clause (`Eff.op(x) => resume(...)`)",
            );
        } else if let Some(s) = suggest_value(self, &name.name) {
            d = d.with_help(format!("did you mean `{s}`?"));
        } else if let Some(q) = self.qualified_guess(&name.name) {
            d = d.with_help(format!("did you mean `{q}`?"));
        } else if let Some(h) = suggest::keyword_help(&name.name) {
            d = d.with_help(h);
        }
        self.report(d);
    }

    /// `ns.name` for a bare `name` that some namespace defines.
    pub(super) fn qualified_guess(&self, name: &str) -> Option<String> {
        let mut hits: Vec<String> = self
            .namespaces
            .iter()
            .filter(|(_, m)| m.contains_key(name))
            .map(|(ns, _)| format!("{ns}.{name}"))
            .collect();
        hits.sort();
        // Prefer the list namespace: it is what a bare `map` usually means.
        hits.sort_by_key(|h| !h.starts_with("list."));
        hits.into_iter().next()
    }

    /// The type of a constructor used as a value.
    pub(super) fn infer_ctor(&mut self, name: &Ident) -> TyId {
        match self.types.ctor(&name.name).map(|c| c.scheme.clone()) {
            Some(s) => self.instantiate(&s),
            None => {
                self.unknown_ctor(name);
                self.error_ty()
            }
        }
    }

    /// Report an unknown constructor.
    pub(super) fn unknown_ctor(&mut self, name: &Ident) {
        let mut d = Diagnostic::new(
            Code::UnknownConstructor,
            format!(
                "expected a constructor, found the unknown name `{}`",
                name.name
            ),
        )
        .with_primary(name.span, "no constructor has this name");
        let is_record = self
            .types
            .by_name
            .get(&name.name)
            .and_then(|c| self.types.info(*c))
            .map(|i| matches!(i.def, crate::types::typedecl::TypeDef::Record(_)));
        let ctors: Vec<&str> = self.types.ctor_by_name.keys().map(String::as_str).collect();
        if is_record == Some(true) {
            d = d.with_help(format!(
                "`{}` is a record type: build one with `{{ field: value, ... }}`",
                name.name
            ));
        } else if let Some(h) = suggest::ctor_alias(&name.name) {
            d = d.with_help(h);
        } else if let Some(s) = self.closest(&name.name, ctors.iter().copied()) {
            d = d.with_help(format!("did you mean `{s}`?"));
        } else if is_record == Some(false) {
            d = d.with_help(format!(
                "`{}` is a type; use one of its constructors",
                name.name
            ));
        }
        self.report(d);
    }

    /// `expr.name`: a namespace member or a record field.
    pub(super) fn infer_field(&mut self, whole: &Expr, expr: &Expr, name: &Ident) -> TyId {
        if let ExprKind::Var(ns) = &expr.kind
            && self.lookup(&ns.name).is_none()
            && let Some(members) = self.namespaces.get(&ns.name)
        {
            if let Some(b) = members.get(&name.name) {
                let s = b.scheme.clone();
                let t = self.instantiate(&s);
                self.resolution
                    .insert(ns.span, Resolved::Member { float_sum: false });
                if ns.name == "list" && name.name == "sum" && self.user_code {
                    self.sum_uses.push((ns.span, t));
                }
                return self.open_fn(t);
            }
            let guess = self.member_guess(&ns.name, &name.name);
            let mut d = Diagnostic::new(
                Code::UnknownMember,
                format!(
                    "expected a function of the `{}` namespace, found `{}.{}`, which does not exist",
                    ns.name, ns.name, name.name
                ),
            )
            .with_primary(name.span, format!("`{}` has no `{}`", ns.name, name.name));
            if let Some(g) = guess {
                d = d.with_help(g.help(&ns.name));
            }
            self.report(d);
            return self.error_ty();
        }
        if let ExprKind::Var(ns) = &expr.kind
            && self.lookup(&ns.name).is_none()
            && let Some(real) = aliases::namespace(&ns.name)
        {
            let d = Diagnostic::new(
                Code::UnknownName,
                format!("expected a name in scope, found `{}`", ns.name),
            )
            .with_primary(ns.span, "not defined here")
            .with_help(self.namespace_help(real, &name.name));
            self.report(d);
            return self.error_ty();
        }
        let t = self.infer(expr);
        let label = self.syms.intern(&name.name);
        let field = self.fresh();
        let rest = self.fresh_row();
        let row = self.extend(&[(label, field)], rest);
        let want = self.arena.add(Node::Record(row));
        if let Err(m) = self.unify(want, t) {
            self.report_field(whole.span, expr, name, t, m);
            return self.error_ty();
        }
        field
    }

    fn report_field(
        &mut self,
        span: crate::span::Span,
        expr: &Expr,
        name: &Ident,
        t: TyId,
        m: Mismatch,
    ) {
        let hides = match &expr.kind {
            ExprKind::Var(v) if self.namespaces.contains_key(&v.name) => Some(format!(
                "`{}` here is a local name, which hides the `{}` namespace",
                v.name, v.name
            )),
            _ => None,
        };
        if let Mismatch::Occurs(..) | Mismatch::Escape(_) = m {
            self.report_mismatch(span, t, t, m, None);
            if let (Some(note), Some(d)) = (hides, self.diagnostics.last_mut()) {
                d.notes.push(note);
            }
            return;
        }
        if let Mismatch::Class(c, _) = m {
            let shown = self.show(&[t]).remove(0);
            let what = if c.0 & 4 != 0 {
                "arithmetic"
            } else if c.0 & 8 != 0 {
                "`++`"
            } else if c.0 & 2 != 0 {
                "ordering (`<`, `list.sort`, `list.max`, ...)"
            } else {
                "comparison or display"
            };
            self.report(
                Diagnostic::new(
                    Code::UnsupportedOperation,
                    format!(
                        "expected `{shown}` to be one type, found it used both as a record (with a field `{}`) and with {what}, which records do not support",
                        name.name
                    ),
                )
                .with_primary(name.span, "used as a record here")
                .with_help("sort or compare records by a field: `list.sort_by(xs, fn(x) { x.field })`, `list.max_by(...)`"),
            );
            return;
        }
        let shown = self.show(&[t]).remove(0);
        let mut d = Diagnostic::new(
            Code::NoSuchField,
            format!(
                "expected a record with a field `{}`, found `{shown}`",
                name.name
            ),
        )
        .with_primary(name.span, format!("`{shown}` has no field `{}`", name.name));
        // `1.` then a name on the next line: a field access of the number.
        if let ExprKind::Int(n) = &expr.kind {
            self.report(d.with_help(format!(
                "a number has digits after its `.`: write `{n}.0`, not `{n}.` (a `.` after a value starts a field name, even on the next line)"
            )));
            return;
        }
        let ns = match self.arena.node(t) {
            Node::Con(c, _) if *c == TypeCon::LIST => Some("list"),
            Node::Con(c, _) if *c == TypeCon::STR => Some("str"),
            Node::Con(c, _) if *c == TypeCon::MAP => Some("map"),
            Node::Con(c, _) => match self.types.name(*c) {
                "Option" => Some("option"),
                "Result" => Some("result"),
                "Json" => Some("json"),
                _ => None,
            },
            _ => None,
        };
        if let Some(ns) = ns {
            let members = self.namespaces.get(ns);
            let member = members.and_then(|m| {
                if m.contains_key(&name.name) {
                    Some(Guess {
                        name: name.name.clone(),
                        hint: None,
                    })
                } else {
                    self.member_guess(ns, &name.name)
                }
            });
            let subject = crate::types::print::snippet(expr);
            let shadowed = matches!(&expr.kind, ExprKind::Var(v) if self.namespaces.contains_key(&v.name) && v.name == ns);
            d = match member {
                Some(_) if shadowed => d.with_help(format!(
                    "rename `{ns}`: it hides the `{ns}` namespace, whose functions work on this value"
                )),
                // Adding one element has no function of its own: the
                // hint (`xs ++ [x]`) is the help.
                Some(Guess {
                    name: f,
                    hint: Some(h),
                }) if f == "concat" => d.with_help(format!("Writ has no methods: {h}")),
                Some(Guess { name: f, hint }) => {
                    let arity = self
                        .namespaces
                        .get(ns)
                        .and_then(|m| m.get(&f))
                        .map(|b| match self.arena.node(b.scheme.ty) {
                            Node::Fn(ps, _, _) => ps.len(),
                            _ => 0,
                        })
                        .unwrap_or(0);
                    let args = if arity <= 1 {
                        subject.clone()
                    } else {
                        format!("{subject}, ...")
                    };
                    let d = d.with_help(format!(
                        "Writ has no methods; call the `{ns}` namespace's function: `{ns}.{f}({args})`"
                    ));
                    match hint {
                        Some(h) => d.with_note(h),
                        None => d,
                    }
                }
                None => d.with_help(format!(
                    "Writ has no methods; the functions on this type are in the `{ns}` namespace"
                )),
            };
        } else if let Node::Record(row) = self.arena.node(t).clone() {
            let (fields, _) = self.arena.row_fields(row);
            let names: Vec<String> = fields
                .iter()
                .map(|(l, _)| self.syms.name(*l).to_string())
                .collect();
            if let Some(s) = self.closest(&name.name, names.iter().map(String::as_str)) {
                d = d.with_help(format!("did you mean `{s}`?"));
            } else if !names.is_empty() {
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                d = d.with_note(format!("its fields are {}", suggest::quoted(&names)));
            }
        }
        if let Some(note) = hides {
            d = d.with_note(note);
        }
        self.report(d);
    }
}

/// The member a misspelt or borrowed `ns.name` most likely means.
pub(super) struct Guess {
    /// The member's name.
    pub(crate) name: String,
    /// How to write what the borrowed name usually does, if the member
    /// alone does not say it.
    pub(crate) hint: Option<&'static str>,
}

impl Guess {
    /// "did you mean `ns.name`?", with the hint after it.
    pub(super) fn help(&self, ns: &str) -> String {
        match self.hint {
            Some(h) => format!("did you mean `{ns}.{}`? ({h})", self.name),
            None => format!("did you mean `{ns}.{}`?", self.name),
        }
    }
}

impl Checker {
    /// The member of namespace `ns` that `name` most likely means: the
    /// alias table's answer, else the closest member.
    pub(super) fn member_guess(&self, ns: &str, name: &str) -> Option<Guess> {
        let members = self.namespaces.get(ns)?;
        if let Some(a) = aliases::member(ns, name).filter(|a| members.contains_key(a.target)) {
            return Some(Guess {
                name: a.target.to_string(),
                hint: a.hint,
            });
        }
        let mut keys: Vec<&str> = members.keys().map(String::as_str).collect();
        keys.sort();
        self.closest(name, keys.iter().copied())
            .map(|name| Guess { name, hint: None })
    }

    /// The help for `alias.member`, where `alias` is another language's name
    /// for the namespace `real`.
    pub(super) fn namespace_help(&self, real: &str, member: &str) -> String {
        let exists = self
            .namespaces
            .get(real)
            .is_some_and(|m| m.contains_key(member));
        let guess = if exists {
            Some(Guess {
                name: member.to_string(),
                hint: None,
            })
        } else {
            self.member_guess(real, member)
        };
        match guess {
            Some(g) => format!("the namespace is `{real}`: {}", g.help(real)),
            None => {
                format!("the namespace is `{real}`; its functions are listed in docs/stdlib.md")
            }
        }
    }
}
