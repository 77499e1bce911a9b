"""Type stubs of Writ's native module (``writ._writ``); ``writ`` re-exports
everything here. See docs/python.md for the guide."""

from __future__ import annotations

import os
from typing import Any, Callable, Literal, Mapping, Optional, Sequence, Union

__version__: str

JSON = Any
"""Python data in the JSON mapping: None, bool, int, float, str, list, dict
with str keys (records as dicts, variants as ``{"tag": ..., "fields": ...}``
as docs/embedding.md describes)."""

# --- diagnostics ---------------------------------------------------------

class Label:
    """A place a diagnostic points at, lines and columns from 1."""

    line: int
    column: int
    end_line: int
    end_column: int
    message: str
    primary: bool

class Diagnostic:
    """What the checker (or a policy's parser) found: ``code`` is stable
    (``E3002``), ``rendered`` is the text ``writ check`` prints."""

    code: str
    severity: Literal["error", "warning"]
    message: str
    labels: list[Label]
    notes: list[str]
    help: Optional[str]
    rendered: str
    line: int
    column: int
    def to_dict(self) -> dict[str, Any]:
        """As ``writ check --format json`` writes it: code, severity,
        message, file, labels (primary, message, start and end: line,
        column, offset), notes, help."""

class Signature:
    name: str
    signature: str
    line: int

class ManifestEntry:
    """One effect a program may perform, and where."""

    effect: str
    capability: bool
    operations: list[str]
    lines: list[int]

class Checked:
    accepted: bool
    diagnostics: list[Diagnostic]
    errors: list[Diagnostic]
    warnings: list[Diagnostic]
    signatures: list[Signature]
    manifest: list[ManifestEntry]
    rendered: str
    def __bool__(self) -> bool: ...

def check(
    source: str,
    *,
    inputs: Optional[Mapping[str, str]] = None,
    grants: Optional[Sequence[str]] = None,
    policy: Optional[Policy] = None,
) -> Checked:
    """Never raises for a bad program: text over 2 MiB is E9004, a str
    with no UTF-8 form E9003; a leading byte-order mark is skipped."""
def primer(policy: Optional[Policy] = None) -> str: ...
def explain(code: str) -> Optional[str]: ...

# --- errors ----------------------------------------------------------------

class WritError(Exception):
    """Every error of this package: ``code`` is the diagnostic code."""

    code: str
    message: str
    help: Optional[str]
    rendered: str

class PolicyError(WritError):
    diagnostics: list[Diagnostic]

class Rejected(WritError):
    """The program did not check (or named an input that is not data)."""

    diagnostics: list[Diagnostic]

class RunError(WritError):
    """The run stopped with an error (``outcome`` says what it did first,
    or None when nothing ran; ``limit`` the limit reached, or None)."""

    outcome: Optional[Outcome]
    limit: Optional[str]

class LimitExceeded(RunError):
    """``limit`` is fuel, memory, depth, output, time or cancel."""

class Denied(RunError):
    """An operation was denied and its grant says ``on_deny = "stop"``."""

class NotApproved(RunError):
    """A run of an approved plan strayed from it (E4013) or the plan does
    not apply (E4014)."""

class SnapshotError(RunError):
    """A snapshot that cannot be loaded (E4009)."""

class AuditError(WritError):
    """The audit log does not verify (E4015), or the store does not exist
    or cannot be read (E4006)."""

class Refuse(Exception):
    """Raised by a capability's handler: deny the operation (audited), for
    ``reason``, whatever its ``on_error``."""

    def __init__(self, reason: str) -> None: ...

# --- policies, engines, programs -------------------------------------------

class Policy:
    principal: str
    role: str
    grants: list[str]
    limits: dict[str, int]
    text: str
    @staticmethod
    def from_toml(text: str, *, base_dir: Optional[Union[str, os.PathLike[str]]] = None) -> Policy: ...
    @staticmethod
    def from_file(path: Union[str, os.PathLike[str]]) -> Policy: ...

class Capability:
    interface: str
    reads: list[str]
    on_error: Literal["fail", "deny"]
    def __init__(
        self,
        interface: str,
        handler: Union[Callable[..., Any], Mapping[str, Callable[..., Any]], object],
        *,
        reads: Sequence[str] = (),
        on_error: Literal["fail", "deny"] = "fail",
    ) -> None: ...

class Program:
    hash: str
    effects: list[str]
    manifest: list[ManifestEntry]
    inputs: dict[str, str]
    source: str

class Usage:
    fuel: int
    memory: int
    time_ms: float

class Operation:
    operation: str
    arguments: str
    decision: str
    rule: str
    audit_id: Optional[int]

class Outcome:
    value: JSON
    display: str
    output: list[str]
    operations: list[Operation]
    audit_ids: list[int]
    usage: Usage
    recorded: bool
    changed_reads: list[str]

class Done:
    outcome: Outcome
    value: JSON
    output: list[str]

class Paused:
    capability: str
    operation: str
    kind: Literal["read", "act"]
    args: list[JSON]
    arguments: str
    rule: str
    output: list[str]
    operations: list[Operation]
    def resume(self, value: JSON = None) -> Union[Paused, Done]: ...
    def carry_out(self) -> Union[Paused, Done]: ...
    def fail(self, message: str) -> Union[Paused, Done]: ...
    def refuse(self, reason: str) -> Union[Paused, Done]: ...
    def dump(self) -> bytes: ...

class Plan:
    program: str
    principal: str
    acts: list[dict[str, Any]]
    reads: list[dict[str, Any]]
    log: list[str]
    result: Optional[str]
    error: Optional[str]
    words: list[str]
    def to_json(self) -> str: ...
    @staticmethod
    def from_json(text: str, *, policy: Optional[Union[Policy, Engine]] = None) -> Plan:
        """A plan from its JSON; ``NotApproved`` (E4014) for one changed or
        malformed, or for a ``policy`` other than the one it was made under
        (an ``Engine`` gives its own policy, its ``limits`` included)."""

class AuditRecord:
    seq: int
    time_ms: int
    principal: str
    program: str
    operation: str
    arguments: str
    decision: str
    rule: str
    hash: str
    prev_hash: str
    def to_dict(self) -> dict[str, Any]: ...

class Engine:
    policy: Policy
    store: str
    def __init__(
        self,
        policy: Policy,
        *,
        store: Optional[Union[str, os.PathLike[str]]] = None,
        limits: Optional[Mapping[str, Union[int, float, str]]] = None,
        capabilities: Optional[Mapping[str, Union[Capability, tuple[str, Any]]]] = None,
        confirm: Optional[Callable[[str], bool]] = None,
    ) -> None:
        """``limits``: whole numbers in each limit's unit (``time`` in
        milliseconds, as ``Policy.limits`` gives them) or strings (``"64M"``,
        ``"2s"``); a bool is ``ValueError``. A ``store`` no run could open (a
        URL holding a password, say) is ``RunError`` E4006."""
    def check(self, source: str, *, inputs: Optional[Mapping[str, str]] = None) -> Checked: ...
    def compile(self, source: str, *, inputs: Optional[Mapping[str, str]] = None) -> Program: ...
    def run(
        self,
        program: Union[Program, str],
        *,
        inputs: Optional[Mapping[str, JSON]] = None,
        approve: Optional[Union[Plan, str]] = None,
        live: bool = False,
        on_log: Optional[Callable[[str], None]] = None,
    ) -> Outcome: ...
    def start(
        self,
        program: Union[Program, str],
        *,
        inputs: Optional[Mapping[str, JSON]] = None,
        pause_at: Optional[Sequence[str]] = None,
    ) -> Union[Paused, Done]: ...
    def load(
        self,
        program: Union[Program, str],
        data: bytes,
        *,
        pause_at: Optional[Sequence[str]] = None,
    ) -> Union[Paused, Done]:
        """The saved run again; it pauses where it was started to pause
        (the ``pause_at`` the bytes hold), unless ``pause_at`` is given."""
    def plan(self, program: Union[Program, str], *, inputs: Optional[Mapping[str, JSON]] = None) -> Plan: ...
    def primer(self) -> str: ...
    def audit(self, last: Optional[int] = None) -> list[AuditRecord]:
        """``AuditError`` (E4006) when the store does not exist."""
    def verify(self) -> int:
        """``AuditError`` (E4006) when the store does not exist, (E4015)
        when the log does not verify."""
