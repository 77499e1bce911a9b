//! The format of a `*_test.toml` file (docs/testing.md#tests-of-whole-programs):
//! its tests, what each expects, and the operations it names.

use serde::Deserialize;
use writ_host::engine::Engine;

/// A `*_test.toml` file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Spec {
    /// The tests, in order.
    #[serde(default)]
    pub(super) test: Vec<Case>,
}

/// One `[[test]]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Case {
    pub(super) name: String,
    pub(super) program: String,
    pub(super) policy: Option<String>,
    pub(super) replay: Option<String>,
    pub(super) inputs: Option<String>,
    #[serde(default)]
    pub(super) input_types: Vec<String>,
    #[serde(default)]
    pub(super) limits: Vec<String>,
    #[serde(default)]
    pub(super) confirm: bool,
    #[serde(default)]
    pub(super) store: StoreMode,
    /// Make a plan (`writ plan`) instead of running: nothing is carried
    /// out, and the expectations apply to the plan's acts.
    #[serde(default)]
    pub(super) plan: bool,
    pub(super) expect: Expect,
}

/// Whose store a test runs on.
#[derive(Deserialize, Default, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(super) enum StoreMode {
    /// A new, empty store (seeded as the policy says).
    #[default]
    Fresh,
    /// The store the file's other `shared` tests run on, in their order.
    Shared,
}

/// How the run must end.
#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "lowercase")]
pub(super) enum End {
    /// Ran to its end.
    Finished,
    /// Rejected by the checker: not run.
    Rejected,
    /// Stopped by a run-time error (`E4xxx`).
    Error,
    /// Stopped by a limit (`E5xxx`).
    Limit,
}

impl End {
    /// What a test expects, in words (`expected the program to ...`).
    pub(super) fn expected(self) -> &'static str {
        match self {
            End::Finished => "finish",
            End::Rejected => "be rejected",
            End::Error => "stop with a run-time error",
            End::Limit => "stop at a limit",
        }
    }

    /// What happened, in words (`found that it ...`).
    pub(super) fn found(self) -> &'static str {
        match self {
            End::Finished => "finished",
            End::Rejected => "was rejected",
            End::Error => "stopped with a run-time error",
            End::Limit => "stopped at a limit",
        }
    }
}

/// `[test.expect]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Expect {
    pub(super) outcome: End,
    pub(super) code: Option<String>,
    pub(super) value: Option<String>,
    pub(super) log: Option<Vec<String>>,
    #[serde(default)]
    pub(super) log_contains: Vec<String>,
    #[serde(default)]
    pub(super) allowed: Vec<Matcher>,
    #[serde(default)]
    pub(super) denied: Vec<Matcher>,
    #[serde(default)]
    pub(super) never: Vec<Matcher>,
    #[serde(default)]
    pub(super) audit: Vec<Matcher>,
    /// With `plan = true`: the plan's acts, exactly, in order.
    pub(super) acts: Option<Vec<Matcher>>,
}

/// Which operations: `"Pay.pay"`, or `{ operation = "Pay.pay", arguments
/// = "attacker.example", decision = "denied" }` (the arguments as the
/// audit log shows them, containing that text).
#[derive(Deserialize, Clone)]
#[serde(untagged)]
pub(super) enum Matcher {
    Name(String),
    Full(FullMatcher),
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct FullMatcher {
    pub(super) operation: String,
    pub(super) arguments: Option<String>,
    pub(super) decision: Option<String>,
}

impl Matcher {
    pub(super) fn parts(&self) -> (&str, Option<&str>, Option<&str>) {
        match self {
            Matcher::Name(op) => (op, None, None),
            Matcher::Full(m) => (&m.operation, m.arguments.as_deref(), m.decision.as_deref()),
        }
    }

    pub(super) fn matches(&self, operation: &str, arguments: &str, decision: &str) -> bool {
        let (op, args, dec) = self.parts();
        op == operation
            && args.is_none_or(|a| arguments.contains(a))
            && dec.is_none_or(|d| d == decision)
    }

    pub(super) fn shown(&self) -> String {
        let (op, args, dec) = self.parts();
        let mut s = op.to_string();
        if let Some(a) = args {
            s.push_str(&format!(" with arguments containing `{a}`"));
        }
        if let Some(d) = dec {
            s.push_str(&format!(" ({d})"));
        }
        s
    }
}

/// The first operation named in `expect` that the host does not have,
/// or decision that is neither `allowed` nor `denied`, in words: a
/// misspelt name would match nothing, and `never` would hold vacuously.
pub(super) fn unknown_matcher(expect: &Expect) -> Option<String> {
    let engine = Engine::new();
    let all = expect
        .allowed
        .iter()
        .chain(&expect.denied)
        .chain(&expect.never)
        .chain(&expect.audit)
        .chain(expect.acts.iter().flatten());
    for m in all {
        let (op, _, decision) = m.parts();
        let known = op
            .split_once('.')
            .is_some_and(|(effect, name)| engine.operation_kind(effect, name).is_some());
        if !known {
            return Some(format!(
                "expected an operation the host has, written `Capability.operation` (like `Pay.pay` or `Http.get`), found `{op}`"
            ));
        }
        if let Some(d) = decision.filter(|d| !matches!(*d, "allowed" | "denied")) {
            return Some(format!(
                "expected the decision `allowed` or `denied`, found `{d}`"
            ));
        }
    }
    // `never` speaks of what was carried out, which only an allowed
    // operation is: `never` a denied one could not fail.
    if let Some(m) = expect
        .never
        .iter()
        .find(|m| m.parts().2.is_some_and(|d| d != "allowed"))
    {
        return Some(format!(
            "expected `never` of operations carried out (allowed), found {} in `never`, which holds whatever happens; to say it was asked for and refused, use `denied`",
            m.shown()
        ));
    }
    None
}
