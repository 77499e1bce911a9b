//! Diagnostics as data: every error or warning any stage of Writ reports.
//!
//! A [`Diagnostic`] is neutral: it knows its stable [`Code`], its severity,
//! a message, labelled spans, notes and help, but nothing about terminals,
//! colours or JSON. Rendering happens in exactly one place, at the edge (the
//! `writ` package's `render` module).
//!
//! Invariants: every [`Code`] has an entry in `docs/errors.md` (checked by a
//! test); a code's meaning never changes once published; a diagnostic has at
//! most one primary label, and it comes first in [`Diagnostic::labels`].

use serde::Serialize;

use crate::span::Span;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The program is rejected.
    Error,
    /// The program is accepted, but something is probably wrong.
    Warning,
}

macro_rules! codes {
    ($($(#[$doc:meta])* $variant:ident = $code:literal, $title:literal;)*) => {
        /// The stable code of a diagnostic. `E....` codes are errors, `W....`
        /// codes are warnings; `docs/errors.md` explains each one.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $($(#[$doc])* $variant,)*
        }

        impl Code {
            /// Every code, in documentation order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The code as printed, e.g. `E0100`.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $code,)* }
            }

            /// A few words naming what the code is about.
            pub fn title(self) -> &'static str {
                match self { $(Code::$variant => $title,)* }
            }
        }
    };
}

codes! {
    /// A character that cannot start any token.
    UnknownCharacter = "E0001", "unknown character";
    /// A string literal with no closing quote on its line.
    UnterminatedString = "E0002", "unterminated string";
    /// A backslash escape that Writ does not define.
    InvalidEscape = "E0003", "invalid escape sequence";
    /// An integer literal outside the range of `Int`.
    IntegerOutOfRange = "E0004", "integer literal out of range";
    /// A float literal too large for `Float`.
    FloatOutOfRange = "E0005", "float literal out of range";
    /// A `/*` comment with no matching `*/`.
    UnterminatedComment = "E0006", "unterminated block comment";
    /// A bidirectional-text control character, which can make code read
    /// differently from how it runs.
    BidiControl = "E0007", "bidirectional control character";
    /// An identifier that mixes letters of different scripts.
    MixedScriptIdentifier = "E0008", "identifier mixes scripts";
    /// A `${` inside a string with no matching `}`.
    UnterminatedInterpolation = "E0009", "unterminated interpolation";
    /// An opening bracket with no closing bracket.
    UnclosedDelimiter = "E0010", "unclosed delimiter";
    /// A closing bracket with no opening bracket.
    UnexpectedClosingDelimiter = "E0011", "unexpected closing delimiter";
    /// A bracket closed by a bracket of another kind.
    MismatchedDelimiter = "E0012", "mismatched delimiter";
    /// Brackets nested deeper than the parser accepts.
    NestingTooDeep = "E0013", "nesting too deep";
    /// A line break other than `\n`, which editors may show differently.
    MisleadingLineBreak = "E0014", "misleading line break";
    /// A multi-line string (`"""`) laid out wrongly: text after its
    /// opening `"""`, or a line indented less than its closing `"""`.
    MultiLineStringLayout = "E0015", "malformed multi-line string";
    /// A number written in another base (`0xFF`, `0b101`, `0o17`): Writ
    /// has decimal literals only.
    NumberInAnotherBase = "E0016", "number in another base";
    /// A token where the grammar does not allow it.
    UnexpectedToken = "E0100", "unexpected token";
    /// Comparisons written one after another, like `a < b < c`.
    ChainedComparison = "E0101", "chained comparison";
    /// An effect operation named but not called.
    OperationNotCalled = "E0102", "operation not called";
    /// A word Writ reserves, used where a name or expression was expected.
    ReservedWord = "E0103", "reserved word";
    /// A row variable that is not the last thing in an effect row.
    RowVariablePosition = "E0104", "misplaced row variable";
    /// Two statements on one line with no `;` between them.
    MissingSeparator = "E0105", "missing statement separator";
    /// A name that is not defined where it is used.
    UnknownName = "E1001", "unknown name";
    /// A type name that is not defined.
    UnknownType = "E1002", "unknown type";
    /// A constructor that is not defined.
    UnknownConstructor = "E1003", "unknown constructor";
    /// The same name defined twice where names must be distinct.
    DuplicateDefinition = "E1004", "duplicate definition";
    /// A standard-library namespace has no member of this name.
    UnknownMember = "E1005", "unknown namespace member";
    /// An effect that is not declared.
    UnknownEffect = "E1006", "unknown effect";
    /// An effect has no operation of this name.
    UnknownOperation = "E1007", "unknown operation";
    /// A namespace such as `list` used as a value.
    NamespaceAsValue = "E1008", "namespace used as a value";
    /// A declaration that reuses a name Writ reserves for a built-in.
    BuiltinRedefined = "E1009", "built-in name redefined";
    /// A top-level `let` used before it is defined.
    UsedBeforeDefinition = "E1010", "used before definition";
    /// A top-level `let` or `fn` that takes the name of an input the host
    /// declared.
    InputRedefined = "E1011", "input redefined";
    /// Two types that should be the same are not.
    TypeMismatch = "E2001", "type mismatch";
    /// A call with the wrong number of arguments.
    ArgumentCount = "E2002", "wrong number of arguments";
    /// A call of something that is not a function.
    NotAFunction = "E2003", "not a function";
    /// A type that would have to contain itself.
    InfiniteType = "E2004", "infinite type";
    /// A record without the field that is used.
    NoSuchField = "E2005", "no such field";
    /// An operator, comparison or interpolation used on a type that does
    /// not support it.
    UnsupportedOperation = "E2006", "operation not supported by type";
    /// A named type given the wrong number of type arguments.
    TypeArity = "E2007", "wrong number of type arguments";
    /// A constructor pattern with the wrong number of fields.
    PatternArity = "E2008", "wrong number of constructor fields";
    /// A signature's type variable that would take a type from outside.
    TypeVariableEscape = "E2009", "type variable escapes";
    /// A type or match too large to check within the checker's limits.
    TooComplex = "E2010", "too complex to check";
    /// A bound that is not one of `Eq`, `Ord`, `Num`, `Show`, `Concat`.
    UnknownBound = "E2011", "unknown bound";
    /// An operation parameter without a type.
    MissingAnnotation = "E2012", "missing type annotation";
    /// A program whose checking needs more work than the checker's
    /// budget allows (types that share parts, walked once per path).
    CheckBudget = "E2013", "program too complex to check";
    /// The type a host declared for an input does not parse, or is not
    /// data an input can hold.
    InputType = "E2014", "malformed input type";
    /// `list.sum` of numbers whose type is a type parameter, whose empty
    /// sum (`0` or `0.0`) cannot be told.
    UnknownNumberType = "E2015", "number type not known";
    /// A `match` that does not cover every value.
    NonExhaustive = "E2101", "non-exhaustive match";
    /// A `let`, parameter or clause pattern that may not match.
    RefutablePattern = "E2103", "refutable pattern";
    /// A match arm that no value can reach.
    UnreachableArm = "W2102", "unreachable match arm";
    /// An operation or call performs an effect its context does not allow.
    EffectNotAllowed = "E3001", "effect not allowed";
    /// The program performs a capability the host did not grant.
    EffectNotGranted = "E3002", "capability not granted";
    /// A program-declared effect performed but never handled.
    UnhandledEffect = "E3003", "unhandled effect";
    /// A handler without a clause for one of its effect's operations.
    MissingClause = "E3004", "missing handler clause";
    /// A `resume` in a clause for an operation that never returns.
    ResumeNeverReturns = "W3005", "resume of an operation that never returns";
    /// A `handle` whose handled expression is a function value, which
    /// performs nothing until it is called: the handler handles nothing.
    HandledFunction = "W3006", "handled function not called";
    /// A parameterised handler without a `return` clause whose parameter
    /// is only ever passed on to the next `resume`: its final value is
    /// thrown away.
    StateDiscarded = "W3007", "handler state thrown away";
    /// A clause that never calls `resume` although its value has the
    /// operation's result type, or is a next value of the handler's
    /// parameter computed from it: it stops the handled code where it
    /// probably meant to continue it.
    ContinuationDropped = "W3008", "clause does not resume";
    /// Integer arithmetic whose result does not fit in 64 bits.
    IntegerOverflow = "E4001", "integer overflow";
    /// Integer division or remainder by zero.
    DivisionByZero = "E4002", "division by zero";
    /// `Fail.fail` reached the top level: the program gave up.
    ProgramFailed = "E4003", "the program failed";
    /// The machine found itself in a state a checked program cannot reach
    /// (a bug in Writ, reported instead of crashing).
    InternalError = "E4004", "internal error";
    /// A host operation the policy does not allow (its scope, caps or
    /// confirmation), with `on_deny = "stop"`.
    OperationDenied = "E4005", "operation denied by the policy";
    /// The host could not make the checks the policy asks for (its store,
    /// a seed or recorded-responses file, the audit log), so nothing more
    /// was carried out.
    HostUnavailable = "E4006", "host unavailable";
    /// A value the host passed for an input does not have the input's
    /// declared type; nothing was run.
    InputMismatch = "E4007", "input does not match its type";
    /// The host passed no value for a declared input, or a value for an
    /// input the program was not checked with; nothing was run.
    InputNotGiven = "E4008", "input missing or not declared";
    /// Bytes given as a paused run's snapshot are not one: truncated,
    /// damaged, crafted, of another format version, or for another
    /// module; nothing was restored.
    SnapshotRefused = "E4009", "snapshot refused";
    /// A host's answer to an operation it paused a run at does not have
    /// the operation's result type, or the operation is one the host may
    /// not answer itself; the run was not resumed.
    AnswerMismatch = "E4010", "answer does not fit the operation";
    /// A run was asked to pause at a capability or operation the engine
    /// does not have; nothing was run.
    UnknownPausePoint = "E4011", "unknown pause point";
    /// A run replaying recorded reads performed a read the recording does
    /// not hold; the run was stopped before it.
    ReadNotRecorded = "E4012", "read not in the recording";
    /// A run of an approved plan performed an act the plan does not hold
    /// next; it was stopped before the act.
    PlanDeviation = "E4013", "act not in the approved plan";
    /// A plan given as approved was made for another program, policy,
    /// person or inputs, or was executed already; nothing was run.
    PlanNotApplicable = "E4014", "plan does not apply";
    /// The audit log does not verify: a record was changed, removed or
    /// put in, or the ledger does not match it (what an embedder's
    /// verification of the store reports).
    AuditBroken = "E4015", "audit log does not verify";
    /// An assertion of the `assert` namespace that does not hold: the
    /// run (a test) stops at it.
    AssertionFailed = "E4016", "assertion failed";
    /// The run spent more fuel (machine steps and metered library work) than it had.
    FuelExhausted = "E5001", "fuel exhausted";
    /// The run's live values outgrew its memory limit.
    MemoryExhausted = "E5002", "memory limit reached";
    /// Calls nested deeper than the depth limit.
    DepthExhausted = "E5003", "call depth limit reached";
    /// The program wrote more output than the output limit.
    OutputExhausted = "E5004", "output limit reached";
    /// The run took longer than its time limit.
    TimeExhausted = "E5005", "time limit reached";
    /// The host cancelled the run.
    Cancelled = "E5006", "run cancelled";
    /// A policy file that is not valid TOML.
    PolicySyntax = "E6001", "malformed policy";
    /// A key a policy section does not have.
    PolicyUnknownKey = "E6002", "unknown policy key";
    /// A policy value of the wrong type or out of range.
    PolicyInvalidValue = "E6003", "invalid policy value";
    /// A grant for a capability the engine does not know.
    PolicyUnknownCapability = "E6004", "unknown capability in policy";
    /// A key a policy must have but does not.
    PolicyMissingKey = "E6005", "missing policy key";
    /// A test file `writ test` cannot use: a `*_test.toml` that is not
    /// valid or names a file that cannot be read, or a test's doc comment
    /// with an `Expect:` or `Limits:` line that does not parse.
    MalformedTest = "E7001", "malformed test";
    /// A `test_` function of a `*_test.writ` file that takes parameters.
    TestTakesParameters = "E7002", "test function takes parameters";
    /// A test whose program did not do what the test expects of it (how
    /// it ended, its code, value, `Log` lines, operations, audit records).
    ExpectationNotMet = "E7003", "expectation not met";
    /// `writ test` found no test to run.
    NoTests = "E7004", "no tests found";
    /// A function of a `*_test.writ` file named almost like a test
    /// (`testTotal`, `tset_total`), which `writ test` would not run.
    NotNamedAsTest = "E7005", "function named almost like a test";
    /// A file that cannot be read.
    CannotReadFile = "E9001", "cannot read file";
    /// A path that names a directory where a file was expected.
    IsADirectory = "E9002", "path is a directory";
    /// A file whose bytes are not UTF-8 text.
    NotUtf8 = "E9003", "file is not UTF-8";
    /// A file larger than Writ accepts.
    FileTooLarge = "E9004", "file too large";
    /// A file that cannot be written (a run saved with `--save`).
    CannotWriteFile = "E9005", "cannot write file";
}

impl Code {
    /// The severity every diagnostic with this code has.
    pub fn severity(self) -> Severity {
        if self.as_str().starts_with('W') {
            Severity::Warning
        } else {
            Severity::Error
        }
    }

    /// Look a code up by its printed form (case-insensitive).
    pub fn parse(text: &str) -> Option<Code> {
        Code::ALL
            .iter()
            .copied()
            .find(|c| c.as_str().eq_ignore_ascii_case(text.trim()))
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A span with a message attached.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Label {
    /// What the label points at.
    pub span: Span,
    /// What it says there (may be empty).
    pub message: String,
    /// Whether this is the diagnostic's main location.
    pub primary: bool,
}

/// One error or warning, ready to be rendered for a person or a program.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Stable code, e.g. `E0100`.
    pub code: Code,
    /// Derived from the code.
    pub severity: Severity,
    /// One sentence: what was expected and what was found.
    pub message: String,
    /// The primary label first, then secondary labels in the order given.
    pub labels: Vec<Label>,
    /// Extra facts worth knowing.
    pub notes: Vec<String>,
    /// What to do about it, where there is something to say: worded so
    /// that it holds wherever the program is checked (an edge that knows
    /// more, such as the command line, words it again from [`Self::hint`]).
    pub help: Option<String>,
    /// The advice as data, for advice whose words depend on where the
    /// program is checked or run; the edge words it (the `writ` package's
    /// `render::words`).
    /// (Boxed: most diagnostics have none, and a diagnostic stays small.)
    #[serde(skip)]
    pub hint: Option<Box<Hint>>,
}

/// Advice as data: what a person could do, with what the edge needs to
/// say how where they are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hint {
    /// Grant `capability`, which the program performs, beside the
    /// capabilities `granted` now, if the person allows it; or remove
    /// what performs it (E3002).
    Grant {
        /// The capability that is needed.
        capability: String,
        /// The capabilities granted now.
        granted: Vec<String>,
        /// Where they were granted, as the caller told the checker.
        by: crate::types::GrantedBy,
    },
}

impl Diagnostic {
    /// A diagnostic with `code` and `message` and no labels yet.
    pub fn new(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: code.severity(),
            message: message.into(),
            labels: Vec::new(),
            notes: Vec::new(),
            help: None,
            hint: None,
        }
    }

    /// Set the primary label (replacing any earlier primary label).
    pub fn with_primary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.retain(|l| !l.primary);
        self.labels.insert(
            0,
            Label {
                span,
                message: message.into(),
                primary: true,
            },
        );
        self
    }

    /// Add a secondary label.
    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            span,
            message: message.into(),
            primary: false,
        });
        self
    }

    /// Add a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// Set the help text.
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Attach the advice as data (beside its neutral words in `help`).
    pub fn with_hint(mut self, hint: Hint) -> Diagnostic {
        self.hint = Some(Box::new(hint));
        self
    }

    /// The primary label's span, if the diagnostic has one.
    pub fn primary_span(&self) -> Option<Span> {
        self.labels.iter().find(|l| l.primary).map(|l| l.span)
    }

    /// Whether this diagnostic rejects the program.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Sort diagnostics by position (then code) and drop exact duplicates.
pub fn sort_and_dedup(diags: &mut Vec<Diagnostic>) {
    diags.sort_by_key(|d| (d.primary_span().map(|s| (s.start, s.end)), d.code));
    diags.dedup_by(|a, b| {
        a.code == b.code && a.primary_span() == b.primary_span() && a.message == b.message
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_parse_back() {
        for (i, a) in Code::ALL.iter().enumerate() {
            assert_eq!(Code::parse(a.as_str()), Some(*a));
            for b in &Code::ALL[i + 1..] {
                assert_ne!(a.as_str(), b.as_str());
            }
        }
        assert_eq!(Code::parse("e0100"), Some(Code::UnexpectedToken));
        assert_eq!(Code::parse("X1"), None);
    }

    #[test]
    fn primary_label_comes_first() {
        let d = Diagnostic::new(Code::UnexpectedToken, "m")
            .with_secondary(Span::new(0, 1), "a")
            .with_primary(Span::new(2, 3), "b");
        assert!(d.labels[0].primary);
        assert_eq!(d.primary_span(), Some(Span::new(2, 3)));
    }
}
