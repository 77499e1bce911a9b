//! A policy's grants in words, for a model's prompt: whom programs act
//! for, then, for each granted capability, its Writ interface, which of
//! its operations read and which act, its scope, its audit and what a
//! denial does; and which capabilities are not granted.
//!
//! Invariant: every sentence is made from the policy and the engine; none
//! claims more than the host enforces (docs/policy.md says what each
//! scope key means, and this module says the same in fewer words).

use std::fmt::Write as _;

use writ_host::engine::Engine;
use writ_host::policy::{
    Grant, HttpScope, OnDeny, PayScope, Policy, RecordsScope, Scope, Subjects,
};
use writ_lang::ast::Item;
use writ_lang::types::{HOST_CAPABILITIES, OpKind};

/// What `policy` grants, in words: each granted capability with its
/// interface, its scope, and which of its operations read and which act;
/// then what is not granted.
pub fn grants_in_words(engine: &Engine, policy: &Policy) -> String {
    let mut out = String::from("## What this policy grants\n\n");
    let p = &policy.principal;
    let granted = policy.granted();
    let _ = write!(
        out,
        "Programs run for {} (id {}, role {}).",
        shown(&p.name),
        code(&p.id),
        code(&p.role)
    );
    if granted.is_empty() {
        out.push_str(" Nothing is granted: a program may only compute, and `Fail`.\n");
    } else {
        let names: Vec<String> = granted.iter().map(|g| code(g)).collect();
        let _ = writeln!(
            out,
            " They may perform {}, as below; `Fail` needs no grant.",
            and_list(&names)
        );
    }
    let limits = &policy.limits;
    let _ = writeln!(
        out,
        "A run may take {} steps, {} of memory, {} nested calls, {} of `Log` output and {}; past one, it ends (E5001 to E5005).",
        limits.fuel,
        bytes(limits.memory as u64),
        limits.depth,
        bytes(limits.output as u64),
        duration(u64::try_from(limits.time.as_millis()).unwrap_or(u64::MAX)),
    );
    for (name, grant) in &policy.grants {
        out.push('\n');
        capability(&mut out, engine, name, grant);
    }
    let mut missing: Vec<String> = HOST_CAPABILITIES
        .iter()
        .map(|c| c.to_string())
        .chain(engine.capability_names())
        .filter(|c| !policy.grants.contains_key(c))
        .collect();
    missing.dedup();
    out.push('\n');
    if missing.is_empty() {
        out.push_str("Every capability of this host is granted.\n");
    } else {
        let names: Vec<String> = missing.iter().map(|m| code(m)).collect();
        let _ = writeln!(
            out,
            "Not granted: {}. A program that performs {} is rejected before it runs (E3002); it may still handle {} itself (a dry run).",
            and_list(&names),
            if missing.len() == 1 {
                "it"
            } else {
                "one of them"
            },
            if missing.len() == 1 { "it" } else { "them" },
        );
    }
    out
}

/// One granted capability: heading, interface, operations, scope, audit,
/// denials.
fn capability(out: &mut String, engine: &Engine, name: &str, grant: &Grant) {
    let _ = writeln!(out, "### {}\n", code(name));
    let (interface, ops) = interface(engine, name);
    if !interface.is_empty() {
        let _ = writeln!(out, "```writ\n{}\n```\n", interface.trim_end());
    }
    let kind = |k: OpKind| -> Vec<String> {
        ops.iter()
            .filter(|op| engine.operation_kind(name, op) == Some(k))
            .map(|op| format!("`{name}.{op}`"))
            .collect()
    };
    let (reads, acts) = (kind(OpKind::Read), kind(OpKind::Act));
    if !reads.is_empty() {
        let _ = writeln!(
            out,
            "- {} {}: {} nothing outside the person's host.",
            and_list(&reads),
            if reads.len() == 1 { "reads" } else { "read" },
            if reads.len() == 1 {
                "it changes"
            } else {
                "they change"
            },
        );
    }
    if !acts.is_empty() {
        let _ = writeln!(
            out,
            "- {} {}: {} the world.",
            and_list(&acts),
            if acts.len() == 1 { "acts" } else { "act" },
            if acts.len() == 1 {
                "it changes"
            } else {
                "they change"
            },
        );
    }
    match &grant.scope {
        Scope::Whole if name == "Confirm" => out.push_str(
            "- No scope: every question is asked; when nobody answers, the answer is never a yes.\n",
        ),
        Scope::Whole => out.push_str("- No scope: every operation is allowed.\n"),
        Scope::Http(h) => http(out, h),
        Scope::Pay(p) => pay(out, p),
        Scope::Records(r) => records(out, r),
    }
    out.push_str(match (grant.audit, grant.audit_arguments) {
        _ if name == "Audit" => "- Each note is a record of the audit log.\n",
        (true, true) => {
            "- Audited: each operation, with its arguments, is written to the audit log before its result returns.\n"
        }
        (true, false) => {
            "- Audited: each operation is written to the audit log before its result returns, its arguments as `(redacted)`.\n"
        }
        (false, _) => "- Not audited (denials always are).\n",
    });
    // Without a scope, only an argument over the host's size limit is
    // denied: the default needs no line.
    out.push_str(match grant.on_deny {
        OnDeny::Stop if matches!(grant.scope, Scope::Whole) => "",
        OnDeny::Stop => "- A denied operation does nothing and ends the run (E4005).\n",
        OnDeny::Fail => {
            "- A denied operation does nothing and performs `Fail.fail(reason)` where it was: handle `Fail` to go on (`on_deny = \"fail\"`).\n"
        }
    });
}

/// The interface of capability `name` (with the types it names, and the
/// doc comments), and its operations' names, in declaration order.
fn interface(engine: &Engine, name: &str) -> (String, Vec<String>) {
    if let Some(text) = engine.capability_interface(name) {
        return (text.trim().to_string(), operations(text, name));
    }
    let Some(file) = writ_lang::stdlib::FILES
        .iter()
        .find(|f| f.name == "capabilities.writ")
    else {
        return (String::new(), Vec::new());
    };
    let source = file.source;
    let parsed = writ_lang::parse_library(source);
    let Some(effect) = parsed.program.items.iter().find_map(|i| match i {
        Item::Effect(e) if e.name.name == name => Some(e),
        _ => None,
    }) else {
        return (String::new(), Vec::new());
    };
    let effect_text = with_docs(source, effect.span.start, effect.span.end);
    let mut parts: Vec<String> = parsed
        .program
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Type(t) if mentions(&effect_text, &t.name.name) => {
                Some(with_docs(source, t.span.start, t.span.end))
            }
            _ => None,
        })
        .collect();
    parts.push(effect_text);
    let ops = effect.ops.iter().map(|o| o.name.name.clone()).collect();
    (parts.join("\n\n"), ops)
}

/// The operations the effect `name` declares in `interface`.
fn operations(interface: &str, name: &str) -> Vec<String> {
    writ_lang::parse_library(interface)
        .program
        .items
        .iter()
        .find_map(|i| match i {
            Item::Effect(e) if e.name.name == name => {
                Some(e.ops.iter().map(|o| o.name.name.clone()).collect())
            }
            _ => None,
        })
        .unwrap_or_default()
}

/// The text of `source[start..end]`, with the `///` lines right above it.
fn with_docs(source: &str, start: usize, end: usize) -> String {
    let before = source.get(..start).unwrap_or_default();
    let mut from = start;
    let mut lines = before.trim_end_matches([' ', '\t']).lines().rev();
    // The declaration starts a line: the lines above it, nearest first.
    for line in lines.by_ref() {
        if line.trim_start().starts_with("///") {
            from = from.saturating_sub(line.len() + 1);
        } else {
            break;
        }
    }
    source.get(from..end).unwrap_or_default().trim().to_string()
}

/// Whether `text` names the type `name` as a whole word.
fn mentions(text: &str, name: &str) -> bool {
    text.split(|c: char| !c.is_alphanumeric() && c != '_')
        .any(|w| w == name)
}

fn http(out: &mut String, h: &HttpScope) {
    if h.allow.is_empty() {
        out.push_str("- URLs allowed: only those with a recorded response.\n");
    } else {
        let urls: Vec<String> = h.allow.iter().map(|r| code(&r.url.to_string())).collect();
        let _ = writeln!(
            out,
            "- URLs allowed: {}, and the paths below them (`/offers` allows `/offers/today`, not `/offersx`); any other URL is denied.",
            and_list(&urls)
        );
    }
    if let Some(r) = &h.recorded {
        let _ = writeln!(
            out,
            "- Answers come from recorded responses ({}), not the network; a URL without one is denied.",
            code(r)
        );
    }
    let _ = writeln!(
        out,
        "- A response may be up to {}; a request may take {} (redirects included).",
        bytes(h.max_response_bytes),
        duration(h.timeout_ms)
    );
}

fn pay(out: &mut String, p: &PayScope) {
    let payees: Vec<String> = p.payees.iter().map(|x| code(x)).collect();
    let money = |c: i64| format!("{} {} ({c} cents)", amount(c), shown(&p.currency));
    let _ = writeln!(
        out,
        "- Payees: {} (compared in lower case); any other is denied.",
        and_list(&payees)
    );
    let _ = writeln!(
        out,
        "- Amounts are `Int` cents of {}: `Pay.pay(payee, 1250, memo)` pays {} {}.",
        shown(&p.currency),
        amount(1250),
        shown(&p.currency)
    );
    let _ = writeln!(
        out,
        "- At most {} a payment, {} in one run, {} a day (UTC, over all runs); at least 1 cent.",
        money(p.max_payment_cents),
        money(p.max_run_cents),
        money(p.max_day_cents)
    );
    if p.confirm {
        out.push_str(
            "- The person is asked to confirm each payment; without a yes it is denied.\n",
        );
    }
}

fn records(out: &mut String, r: &RecordsScope) {
    out.push_str(match r.subjects {
        Subjects::Own => "- Whose records: only the principal's own.",
        Subjects::Reports => {
            "- Whose records: the principal's direct and indirect reports, as the org chart says."
        }
        Subjects::All => "- Whose records: everyone's.",
    });
    out.push_str(" `Records.list()` gives their ids; reading any other id is denied.\n");
    if !r.redact.is_empty() {
        let fields: Vec<String> = r.redact.iter().map(|f| code(f)).collect();
        let _ = writeln!(
            out,
            "- Redacted: {} {} removed from the `fields` of every record read.",
            and_list(&fields),
            if fields.len() == 1 { "is" } else { "are" }
        );
    }
}

/// Cents as an amount with two decimals: `1250` is `12.50`.
fn amount(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let c = cents.unsigned_abs();
    format!("{sign}{}.{:02}", c / 100, c % 100)
}

/// A size in bytes, in the largest unit that divides it.
fn bytes(n: u64) -> String {
    const KIB: u64 = 1024;
    if n >= KIB * KIB && n.is_multiple_of(KIB * KIB) {
        format!("{} MiB", n / (KIB * KIB))
    } else if n >= KIB && n.is_multiple_of(KIB) {
        format!("{} KiB", n / KIB)
    } else {
        format!("{n} bytes")
    }
}

/// Milliseconds, in seconds when whole.
fn duration(ms: u64) -> String {
    if ms >= 1000 && ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Text from the policy, with control and other characters that could
/// rewrite the prompt's layout escaped as `\u{...}`.
fn shown(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_control() || writ_lang::is_deceptive(c) {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

/// Text from the policy as inline code (escaped as [`shown`]; a backtick
/// inside it makes it plain text in quotes).
fn code(s: &str) -> String {
    let s = shown(s);
    if s.contains('`') {
        format!("\"{s}\"")
    } else {
        format!("`{s}`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use writ_host::engine::IntoValue;

    const BASE: &str = "[principal]\nid = \"a1\"\nname = \"Ann\"\nrole = \"ops\"\n\n";

    #[test]
    fn amounts_sizes_and_durations_read_as_people_write_them() {
        assert_eq!(amount(50000), "500.00");
        assert_eq!(amount(5), "0.05");
        assert_eq!(amount(-1250), "-12.50");
        assert_eq!(bytes(1048576), "1 MiB");
        assert_eq!(bytes(2048), "2 KiB");
        assert_eq!(bytes(1000), "1000 bytes");
        assert_eq!(duration(10000), "10 s");
        assert_eq!(duration(1500), "1500 ms");
        assert_eq!(
            and_list(&["a".into(), "b".into(), "c".into()]),
            "a, b and c"
        );
    }

    #[test]
    fn policy_text_cannot_break_the_prompt_layout() {
        assert_eq!(code("x\ny"), "`x\\u{a}y`");
        assert_eq!(code("a`b"), "\"a`b\"");
        assert_eq!(shown("p\u{202e}q"), "p\\u{202e}q");
    }

    #[test]
    fn an_embedders_capability_shows_its_interface_and_kinds() {
        let engine = Engine::new()
            .with_capability(
                "Tickets",
                "effect Tickets {\n  /// The price of `route`, in cents.\n  fn price(route: Str) -> Int\n  fn book(route: Str) -> Str\n}\n",
                Arc::new(|_, _| Ok(0i64.into_value())),
            )
            .with_reads("Tickets", &["price"])
            .expect("price is declared");
        let policy = engine
            .parse_policy(&format!("{BASE}[grants.Tickets]\non_deny = \"fail\"\n"))
            .expect("a valid policy");
        let words = grants_in_words(&engine, &policy);
        assert!(words.contains("### `Tickets`\n\n```writ\neffect Tickets {\n  /// The price"));
        assert!(words.contains("- `Tickets.price` reads: it changes nothing"));
        assert!(words.contains("- `Tickets.book` acts: it changes the world"));
        assert!(words.contains("performs `Fail.fail(reason)`"));
        assert!(words.contains(
            "Not granted: `Http`, `Pay`, `Records`, `Audit`, `Log`, `Clock` and `Confirm`."
        ));
    }

    #[test]
    fn a_builtin_capability_shows_the_types_its_interface_names() {
        let engine = Engine::new();
        let policy = writ_host::policy::parse(&format!(
            "{BASE}[grants.Pay]\npayees = [\"shop.example\"]\ncurrency = \"EUR\"\nmax_payment_cents = 900\n"
        ))
        .expect("a valid policy");
        let words = grants_in_words(&engine, &policy);
        assert!(words.contains(
            "/// What a payment returns once the host has carried it out.\ntype Receipt"
        ));
        assert!(
            words.contains(
                "/// Payments, limited by payee allow-list and amount caps.\neffect Pay {"
            )
        );
        assert!(!words.contains("type Employee"));
        assert!(
            words.contains(
                "At most 9.00 EUR (900 cents) a payment, 9.00 EUR (900 cents) in one run"
            )
        );
    }

    #[test]
    fn a_policy_granting_nothing_says_so() {
        let policy = writ_host::policy::parse(BASE).expect("a valid policy");
        let words = grants_in_words(&Engine::new(), &policy);
        assert!(words.contains("Nothing is granted"));
        assert!(words.contains("Not granted: `Http`"));
    }
}
