"""Writ for Python: check and run programs an LLM writes, in-process, under
a person's policy.

Every side effect a Writ program may have (``Http``, ``Pay``, ``Records``,
``Log``, your own capabilities) is an effect in its type; a program that
could perform one the policy does not grant is rejected before it runs.
What it does is audited, and a plan shows the person what it would do
before it does it.

>>> import writ, tempfile, os
>>> policy = writ.Policy.from_toml('[principal]\\nid = "ada"\\nrole = "employee"\\n\\n[grants.Log]\\n')
>>> engine = writ.Engine(policy, store=os.path.join(tempfile.mkdtemp(), "writ.db"))
>>> outcome = engine.run('Log.info("hello")\\n6 * 7')
>>> outcome.value, outcome.output
(42, ['hello'])

The guide is docs/python.md in Writ's repository.
"""

from ._writ import (
    AuditError,
    AuditRecord,
    Capability,
    Checked,
    Denied,
    Diagnostic,
    Done,
    Engine,
    Label,
    LimitExceeded,
    ManifestEntry,
    NotApproved,
    Operation,
    Outcome,
    Paused,
    Plan,
    Policy,
    PolicyError,
    Program,
    Refuse,
    Rejected,
    RunError,
    Signature,
    SnapshotError,
    Usage,
    WritError,
    __version__,
    check,
    explain,
    primer,
)

__all__ = [
    "AuditError",
    "AuditRecord",
    "Capability",
    "Checked",
    "Denied",
    "Diagnostic",
    "Done",
    "Engine",
    "Label",
    "LimitExceeded",
    "ManifestEntry",
    "NotApproved",
    "Operation",
    "Outcome",
    "Paused",
    "Plan",
    "Policy",
    "PolicyError",
    "Program",
    "Refuse",
    "Rejected",
    "RunError",
    "Signature",
    "SnapshotError",
    "Usage",
    "WritError",
    "__version__",
    "check",
    "explain",
    "primer",
]
