//! How the REPL shows what happened: diagnostics and run-time errors
//! rendered against the input (or loaded file) they are about, values with
//! their types, audited operations and grants.
//!
//! Invariants: spans are session-wide; each diagnostic is rendered against
//! the one input its primary span is in, with its labels moved into that
//! input's coordinates (a label in another input becomes a note naming
//! where it is), so line and column are those of the text as typed.

use std::fmt::Write as _;

use writ::render;
use writ::render::words::Edge;
use writ_host::policy::{Grant, OnDeny, Policy, Scope, Subjects};
use writ_host::session::{Session, Source};
use writ_lang::{Diagnostic, LineIndex, Span};
use writ_runtime::RunError;

/// `name:line:column` of a session-wide offset.
fn place(session: &Session, span: Span) -> Option<String> {
    let (source, local) = session.locate(span)?;
    let p = LineIndex::new(&source.text).position(local.start);
    Some(format!("{}:{}:{}", source.name, p.line, p.column))
}

fn inside(source: &Source, span: Span) -> bool {
    source.base <= span.start && span.end <= source.base + source.text.len()
}

/// Render diagnostics for a person.
pub fn diagnostics(session: &Session, diagnostics: &[Diagnostic], color: bool) -> String {
    let mut out = String::new();
    for d in diagnostics {
        let mut d = d.clone();
        render::words::reword(std::slice::from_mut(&mut d), Edge::Repl);
        let d = &d;
        let located = d.primary_span().and_then(|s| session.locate(s));
        let Some((source, _)) = located else {
            out.push_str(&render::human(std::slice::from_ref(d), "<repl>", "", color));
            continue;
        };
        let mut local = d.clone();
        local.labels.clear();
        for label in &d.labels {
            if inside(source, label.span) || label.primary {
                let mut l = label.clone();
                let start = label.span.start.saturating_sub(source.base);
                let end = label.span.end.saturating_sub(source.base).max(start);
                l.span = Span::new(start, end);
                local.labels.push(l);
            } else if let Some(at) = place(session, label.span) {
                local.notes.push(format!("{} (at {at})", label.message));
            }
        }
        out.push_str(&render::human(
            std::slice::from_ref(&local),
            &source.name,
            &source.text,
            color,
        ));
    }
    out
}

/// Render a run-time error, its trace placed in the inputs it runs
/// through, its help worded for the REPL.
pub fn run_error(session: &Session, e: &RunError, color: bool) -> String {
    let d = render::words::run_error(e, Edge::Repl, &|s| place(session, s));
    diagnostics(session, &[d], color)
}

/// One line per grant: the capability, its scope, and how it is audited.
pub fn grants(policy: &Policy) -> String {
    let mut out = String::new();
    for (name, g) in &policy.grants {
        let _ = writeln!(
            out,
            "  {name}{}: {}{}",
            kinds(name),
            scope(&g.scope),
            audit(g)
        );
    }
    if policy.grants.is_empty() {
        out.push_str("  nothing\n");
    }
    out
}

/// A built-in capability's operations by kind: ` (reads: get; acts:
/// post)`.
fn kinds(capability: &str) -> String {
    let of = |kind: writ_lang::types::OpKind| -> Vec<&str> {
        writ_lang::types::BUILTIN_OPERATIONS
            .iter()
            .filter(|(e, _, k)| *e == capability && *k == kind)
            .map(|(_, o, _)| *o)
            .collect()
    };
    let mut parts = Vec::new();
    for (label, kind) in [
        ("reads", writ_lang::types::OpKind::Read),
        ("acts", writ_lang::types::OpKind::Act),
    ] {
        let ops = of(kind);
        if !ops.is_empty() {
            parts.push(format!("{label}: {}", ops.join(", ")));
        }
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join("; "))
    }
}

fn audit(g: &Grant) -> String {
    let mut parts = Vec::new();
    if g.audit {
        parts.push(if g.audit_arguments {
            "audited"
        } else {
            "audited (arguments hidden)"
        });
    }
    if g.on_deny == OnDeny::Stop && !matches!(g.scope, Scope::Whole) {
        parts.push("a denial stops the run");
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("; {}", parts.join("; "))
    }
}

fn scope(s: &Scope) -> String {
    match s {
        Scope::Whole => "every operation".to_string(),
        Scope::Http(h) => {
            let mut t = if h.allow.is_empty() {
                "only the recorded URLs".to_string()
            } else {
                let urls: Vec<String> = h.allow.iter().map(|r| r.url.to_string()).collect();
                format!("URLs under {}", urls.join(", "))
            };
            if let Some(r) = &h.recorded {
                let _ = write!(t, "; answers recorded in {r} (no network)");
            }
            t
        }
        Scope::Pay(p) => {
            let money = |c: i64| format!("{}.{:02} {}", c / 100, c % 100, p.currency);
            format!(
                "payees {}; at most {} a payment, {} a run, {} a day{}",
                p.payees.join(", "),
                money(p.max_payment_cents),
                money(p.max_run_cents),
                money(p.max_day_cents),
                if p.confirm {
                    "; each payment confirmed"
                } else {
                    ""
                }
            )
        }
        Scope::Records(r) => {
            let who = match r.subjects {
                Subjects::Own => "the principal's own record",
                Subjects::Reports => "the records of the principal's direct and indirect reports",
                Subjects::All => "every record",
            };
            if r.redact.is_empty() {
                who.to_string()
            } else {
                format!("{who}; without {}", r.redact.join(", "))
            }
        }
    }
}
