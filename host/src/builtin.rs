//! The capabilities this host provides itself, and their operations, as
//! types: what the policy's grants, their scope keys and the dispatch of
//! an operation match on, instead of names compared as text.
//!
//! Invariant: [`Builtin::ALL`] names exactly the checker's
//! [`HOST_CAPABILITIES`](writ_lang::types::HOST_CAPABILITIES), in its
//! order, which are exactly the effects the standard library declares
//! but `Fail`, and each [`Builtin`]'s operations ([`BuiltinOp`]) are
//! exactly those its interface declares (all tested), so
//! an operation a program can perform under a grant always has a case
//! here, and nothing here is unreachable.

use writ_lang::types::BuiltinEffect;

/// A capability the host provides itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Builtin {
    /// `Http`: requests to the URLs the grant allows.
    Http,
    /// `Pay`: payments within the grant's payees and caps.
    Pay,
    /// `Records`: the org chart's records the grant's scope allows.
    Records,
    /// `Audit`: notes in the audit log.
    Audit,
    /// `Log`: lines of output.
    Log,
    /// `Clock`: the time.
    Clock,
    /// `Confirm`: questions to the person.
    Confirm,
}

impl Builtin {
    /// Every built-in capability, in the checker's order.
    pub(crate) const ALL: [Builtin; 7] = [
        Builtin::Http,
        Builtin::Pay,
        Builtin::Records,
        Builtin::Audit,
        Builtin::Log,
        Builtin::Clock,
        Builtin::Confirm,
    ];

    /// The effect's name, as programs and policies write it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Builtin::Http => "Http",
            Builtin::Pay => "Pay",
            Builtin::Records => "Records",
            Builtin::Audit => "Audit",
            Builtin::Log => BuiltinEffect::Log.name(),
            Builtin::Clock => "Clock",
            Builtin::Confirm => "Confirm",
        }
    }

    /// The built-in capability named `name`, if there is one.
    pub(crate) fn named(name: &str) -> Option<Builtin> {
        Builtin::ALL.into_iter().find(|b| b.name() == name)
    }

    /// The keys its grant takes besides those every grant takes
    /// (`audit`, `audit_arguments`, `on_deny`).
    pub(crate) fn scope_keys(self) -> &'static [&'static str] {
        match self {
            Builtin::Http => &["allow", "recorded", "max_response_bytes", "timeout"],
            Builtin::Pay => &[
                "payees",
                "currency",
                "max_payment_cents",
                "max_run_cents",
                "max_day_cents",
                "confirm",
            ],
            Builtin::Records => &["scope", "redact"],
            Builtin::Audit | Builtin::Log | Builtin::Clock | Builtin::Confirm => &[],
        }
    }

    /// Whether its grant audits each operation unless it says otherwise:
    /// those that reach outside the run or are the audit log's content.
    pub(crate) fn audited_by_default(self) -> bool {
        match self {
            Builtin::Http | Builtin::Pay | Builtin::Records | Builtin::Audit => true,
            Builtin::Log | Builtin::Clock | Builtin::Confirm => false,
        }
    }
}

/// An operation of a built-in capability.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum BuiltinOp {
    /// `Http.get`.
    HttpGet,
    /// `Http.post`.
    HttpPost,
    /// `Pay.pay`.
    Pay,
    /// `Records.read`.
    RecordsRead,
    /// `Records.list`.
    RecordsList,
    /// `Audit.note`.
    AuditNote,
    /// `Log.info`.
    LogInfo,
    /// `Clock.now`.
    ClockNow,
    /// `Confirm.ask`.
    ConfirmAsk,
}

impl BuiltinOp {
    /// Every operation of the built-in capabilities.
    pub(crate) const ALL: [BuiltinOp; 9] = [
        BuiltinOp::HttpGet,
        BuiltinOp::HttpPost,
        BuiltinOp::Pay,
        BuiltinOp::RecordsRead,
        BuiltinOp::RecordsList,
        BuiltinOp::AuditNote,
        BuiltinOp::LogInfo,
        BuiltinOp::ClockNow,
        BuiltinOp::ConfirmAsk,
    ];

    /// The capability it belongs to.
    pub(crate) fn capability(self) -> Builtin {
        match self {
            BuiltinOp::HttpGet | BuiltinOp::HttpPost => Builtin::Http,
            BuiltinOp::Pay => Builtin::Pay,
            BuiltinOp::RecordsRead | BuiltinOp::RecordsList => Builtin::Records,
            BuiltinOp::AuditNote => Builtin::Audit,
            BuiltinOp::LogInfo => Builtin::Log,
            BuiltinOp::ClockNow => Builtin::Clock,
            BuiltinOp::ConfirmAsk => Builtin::Confirm,
        }
    }

    /// The operation's name within its capability (`get`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            BuiltinOp::HttpGet => "get",
            BuiltinOp::HttpPost => "post",
            BuiltinOp::Pay => "pay",
            BuiltinOp::RecordsRead => "read",
            BuiltinOp::RecordsList => "list",
            BuiltinOp::AuditNote => "note",
            BuiltinOp::LogInfo => "info",
            BuiltinOp::ClockNow => "now",
            BuiltinOp::ConfirmAsk => "ask",
        }
    }

    /// The operation `effect.op`, if it is a built-in one.
    pub(crate) fn of(effect: &str, op: &str) -> Option<BuiltinOp> {
        BuiltinOp::ALL
            .into_iter()
            .find(|o| o.capability().name() == effect && o.name() == op)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Engine, RunOptions};
    use crate::session::Session;

    #[test]
    fn the_builtins_are_the_checkers_host_capabilities_with_their_declared_operations() {
        let names: Vec<&str> = Builtin::ALL.iter().map(|b| b.name()).collect();
        assert_eq!(names, writ_lang::types::HOST_CAPABILITIES);
        let Ok(session) = Session::new(Engine::new(), None, RunOptions::default()) else {
            panic!("a session")
        };
        let declared = session.effect_ops();
        // Every effect the library declares is a built-in capability, but
        // the prelude's `Fail` (which needs no grant): an interface added
        // to the library is a case here too.
        let mut effects: Vec<&str> = declared
            .iter()
            .map(|(effect, _)| effect.as_str())
            .filter(|e| !BuiltinEffect::Fail.is(e))
            .collect();
        effects.sort_unstable();
        let mut builtins = names.clone();
        builtins.sort_unstable();
        assert_eq!(effects, builtins);
        for b in Builtin::ALL {
            let mut ops: Vec<&str> = declared
                .iter()
                .find(|(effect, _)| effect == b.name())
                .map(|(_, ops)| ops.iter().map(String::as_str).collect())
                .unwrap_or_default();
            ops.sort_unstable();
            let mut ours: Vec<&str> = BuiltinOp::ALL
                .iter()
                .filter(|o| o.capability() == b)
                .map(|o| o.name())
                .collect();
            ours.sort_unstable();
            assert_eq!(ops, ours, "{}", b.name());
            assert_eq!(Builtin::named(b.name()), Some(b));
        }
        for o in BuiltinOp::ALL {
            assert_eq!(BuiltinOp::of(o.capability().name(), o.name()), Some(o));
        }
        assert_eq!(Builtin::named("Weather"), None);
        assert_eq!(BuiltinOp::of("Http", "delete"), None);
        assert_eq!(BuiltinOp::of("Log", "get"), None);
    }
}
