"""`writ.check`, `Checked`, `Diagnostic`, `Label`, `Signature`,
`ManifestEntry`, `writ.explain`, `writ.primer`: checking without running."""

from __future__ import annotations

import pytest

import writ
from conftest import LOG, make_policy

BAD = 'fn add(a: Int, b: Int) -> Int { a + b }\nlet x: Int = "a"\nadd(x, 1)\n'

# What `writ check` prints for BAD, the file's name aside (the golden).
BAD_RENDERED_BODY = (
    "[E2001] Error: expected `Int`, found `Str`\n"
    "   ╭─[ {file}:2:14 ]\n"
    "   │\n"
    ' 2 │ let x: Int = "a"\n'
    "   │        ─┬─   ─┬─  \n"
    "   │         ╰───────── the type is declared here\n"
    "   │               │   \n"
    "   │               ╰─── this is `Str`\n"
    "───╯"
)

GOOD = (
    "fn add(a: Int, b: Int) -> Int { a + b }\n"
    'let r = Http.get("https://a.example/")\n'
    "Log.info(r)\n"
    "add(1, 2)\n"
)


def test_version():
    assert writ.__version__ == "0.1.0"


def test_accepted_program():
    c = writ.check(GOOD)
    assert c.accepted is True
    assert bool(c) is True
    assert c.diagnostics == [] and c.errors == [] and c.warnings == []
    assert [(s.name, s.signature, s.line) for s in c.signatures] == [
        ("add", "fn add(a: Int, b: Int) -> Int", 1)
    ]
    manifest = [(m.effect, m.capability, list(m.operations), list(m.lines)) for m in c.manifest]
    assert manifest == [("Http", True, ["Http.get"], [2]), ("Log", True, ["Log.info"], [3])]


def test_manifest_leaves_out_handled_effects():
    src = (
        "effect Ask { fn ask(q: Str) -> Int }\n"
        "handle Ask.ask(\"n?\") + 1 with { Ask.ask(q) => resume(41) }\n"
    )
    c = writ.check(src)
    assert c.accepted, c.rendered
    assert c.manifest == []


def test_rejected_program_diagnostic_fields():
    c = writ.check(BAD)
    assert c.accepted is False
    assert bool(c) is False
    assert len(c.diagnostics) == 1
    assert [d.code for d in c.errors] == ["E2001"]
    assert c.warnings == []
    d = c.errors[0]
    assert d.code == "E2001"
    assert d.severity == "error"
    assert d.message == "expected `Int`, found `Str`"
    assert d.help is None
    assert list(d.notes) == []
    assert (d.line, d.column) == (2, 14)
    labels = [(l.line, l.column, l.end_line, l.end_column, l.message, l.primary) for l in d.labels]
    assert labels == [
        (2, 14, 2, 17, "this is `Str`", True),
        (2, 8, 2, 11, "the type is declared here", False),
    ]


def test_rejected_program_rendered_golden():
    c = writ.check(BAD)
    d = c.errors[0]
    # Exactly what `writ check` prints, the source given as text named
    # `<program>`.
    assert d.rendered.rstrip("\n") == BAD_RENDERED_BODY.replace("{file}", "<program>")
    # No colour codes in text meant for logs and models.
    assert "\x1b[" not in d.rendered
    assert d.rendered in c.rendered


def test_diagnostic_to_dict():
    d = writ.check(BAD).errors[0]
    as_dict = d.to_dict()
    # Exactly what `writ check --format json` writes for one diagnostic.
    assert as_dict == {
        "code": "E2001",
        "severity": "error",
        "message": "expected `Int`, found `Str`",
        "file": "<program>",
        "labels": [
            {
                "primary": True,
                "message": "this is `Str`",
                "start": {"line": 2, "column": 14, "offset": 53},
                "end": {"line": 2, "column": 17, "offset": 56},
            },
            {
                "primary": False,
                "message": "the type is declared here",
                "start": {"line": 2, "column": 8, "offset": 47},
                "end": {"line": 2, "column": 11, "offset": 50},
            },
        ],
        "notes": [],
        "help": None,
    }
    # The same places as the diagnostic's labels.
    assert [(l.line, l.column, l.end_line, l.end_column) for l in d.labels] == [
        (x["start"]["line"], x["start"]["column"], x["end"]["line"], x["end"]["column"])
        for x in as_dict["labels"]
    ]
    import json

    json.dumps(as_dict)  # plain data


def test_a_policys_diagnostic_to_dict_names_its_file(tmp_path):
    path = tmp_path / "policy.toml"
    path.write_text('[principal]\nid = "ada"\nrole = "r"\n\n[grants.Pay]\npayees = ["a.example"]\n')
    with pytest.raises(writ.PolicyError) as info:
        writ.Policy.from_file(path)
    assert info.value.diagnostics[0].to_dict()["file"] == str(path)


# --- text as the command line reads it: a byte-order mark, 2 MiB, UTF-8 -----


def test_a_leading_byte_order_mark_is_skipped(engine):
    for checked in (writ.check("\ufeff1 + 1"), engine.check("\ufeff1 + 1")):
        assert checked.accepted, checked.rendered
    program = engine.compile('\ufeffLog.info("hi")\n6 * 7\n')
    assert program.source == 'Log.info("hi")\n6 * 7\n'
    import hashlib

    assert program.hash == hashlib.sha256(program.source.encode()).hexdigest()
    assert engine.run("\ufeff6 * 7").value == 42
    # Only one, and only leading: another is a character the lexer refuses.
    for text in ("\ufeff\ufeff1 + 1", "1 + \ufeff1"):
        checked = writ.check(text)
        assert not checked.accepted
        assert checked.errors[0].code == "E0001"


def test_a_byte_order_mark_does_not_move_the_diagnostics(engine):
    d = writ.check('\ufefflet x: Int = "a"\n').errors[0]
    assert (d.code, d.line, d.column) == ("E2001", 1, 14)


MAX = 2 * 1024 * 1024


def test_a_program_of_2_mib_is_read_one_byte_more_is_refused(engine):
    at_most = "1" + " " * (MAX - 1)
    assert len(at_most.encode()) == MAX
    assert writ.check(at_most).accepted
    over = at_most + " "
    for checked in (writ.check(over), engine.check(over)):
        assert not checked.accepted
        [d] = checked.diagnostics
        assert d.code == "E9004"
        assert d.message == f"expected a source file of at most {MAX} bytes, found {MAX + 1} bytes"
    # Bytes of UTF-8 count, not characters.
    wide = "1" + " " * (MAX - 2) + "é"
    assert len(wide) == MAX and len(wide.encode()) == MAX + 1
    assert writ.check(wide).errors[0].code == "E9004"
    # A leading byte-order mark counts, as a file's would.
    assert writ.check("\ufeff" + "1" + " " * (MAX - 3)).errors[0].code == "E9004"


def test_a_program_over_2_mib_is_refused_at_once_by_compile_and_run(engine):
    import time

    huge = "1 + " * (8 * 1024 * 1024) + "1"  # 32 MiB
    t0 = time.monotonic()
    for call in (engine.compile, engine.run, engine.plan, engine.start):
        with pytest.raises(writ.Rejected) as info:
            call(huge)
        assert info.value.code == "E9004"
        assert [d.code for d in info.value.diagnostics] == ["E9004"]
    assert time.monotonic() - t0 < 5.0


@pytest.mark.parametrize("text", ["1\ud800", "\udfff", 'let a = 1\nlet b = "\ud83d"\n'])
def test_a_str_with_a_lone_surrogate_is_e9003_never_an_exception(engine, text):
    for checked in (writ.check(text), engine.check(text), writ.check(text, grants=["Log"])):
        assert not checked.accepted
        [d] = checked.diagnostics
        assert d.code == "E9003"
        assert d.message.startswith("expected UTF-8 text, found an invalid byte at offset ")
        assert "lone surrogate" in d.help
        assert "[E9003] Error: expected UTF-8 text" in checked.rendered
    for call in (engine.compile, engine.run):
        with pytest.raises(writ.Rejected) as info:
            call(text)
        assert info.value.code == "E9003"


def test_where_a_lone_surrogate_is(engine):
    d = writ.check('let a = 1\nlet b = "\ud83d"\n').errors[0]
    assert d.message == "expected UTF-8 text, found an invalid byte at offset 19 (line 2)"


def test_warning_only_is_accepted():
    src = (
        "let x = match list.first([1]) { Some(v) => v, None => 0 }\n"
        'match x { 1 => "a", _ => "b", 1 => "c" }\n'
    )
    c = writ.check(src)
    assert c.accepted is True
    assert c.errors == []
    assert [w.code for w in c.warnings] == ["W2102"]
    w = c.warnings[0]
    assert w.severity == "warning"
    assert w.message == "expected every arm to match some value, found one that never can"
    assert w.help == "remove the arm, or move it above the arm that covers it"
    assert (w.line, w.column) == (2, 31)
    assert "[W2102] Warning:" in w.rendered


def test_several_errors_all_reported():
    c = writ.check('let a: Int = "x"\nlet b: Str = 1\nundefined_name\n')
    assert c.accepted is False
    assert len(c.errors) == 3
    assert [d.line for d in c.errors] == [1, 2, 3]


def test_grants_restrict_capabilities():
    src = 'Http.get("https://a.example/")\n'
    assert writ.check(src).accepted is True  # no grants given: all host capabilities
    c = writ.check(src, grants=["Log"])
    assert c.accepted is False
    assert [d.code for d in c.errors] == ["E3002"]
    d = c.errors[0]
    assert d.message == "expected only the granted capabilities (Log), found `Http.get`, which needs `Http`"
    assert (d.line, d.column) == (1, 1)
    assert "the program was not run" in d.notes
    assert writ.check(src, grants=["Log", "Http"]).accepted is True


def test_policy_restricts_capabilities():
    policy = make_policy(LOG)
    c = writ.check('Http.get("https://a.example/")\n', policy=policy)
    assert [d.code for d in c.errors] == ["E3002"]
    assert writ.check('Log.info("hi")\n', policy=policy).accepted is True


def test_grants_and_policy_together_refused():
    with pytest.raises((ValueError, TypeError)):
        writ.check("1\n", grants=["Log"], policy=make_policy(LOG))


def test_inputs_declared():
    src = "request.budget_cents / 100\n"
    assert writ.check(src).accepted is False  # `request` is unknown without it
    c = writ.check(src, inputs={"request": "{ to: Str, budget_cents: Int }"})
    assert c.accepted is True, c.rendered


def test_input_used_at_the_wrong_type():
    c = writ.check('request ++ "x"\n', inputs={"request": "Int"})
    assert c.accepted is False
    assert c.errors[0].code.startswith("E2")


@pytest.mark.parametrize(
    "decl, found",
    [
        ("fn(Int) -> Int", "found `fn(Int) -> Int`: an input holds data, not a function"),
        ("{ a: Int, .. }", "found `{ a: Int, .. }`: an input's record type is closed (no `..`)"),
        ("List[", "found `List[`: `List[` is not a type"),
    ],
)
def test_input_malformed_type(decl, found):
    c = writ.check("request\n", inputs={"request": decl})
    assert c.accepted is False
    assert [d.code for d in c.errors] == ["E2014"]
    d = c.errors[0]
    assert d.message.startswith("expected a data type for the input `request`, " + found)
    assert d.help == (
        "an input's type is Int, Float, Str, Bool, (), List[T], Map[Str, T], Option[T],"
        " a tuple or a closed record of these"
    )


def test_check_wrong_argument_types():
    with pytest.raises(TypeError):
        writ.check(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        writ.check("1\n", inputs={"n": 3})  # type: ignore[dict-item]
    with pytest.raises(TypeError):
        writ.check("1\n", policy="[grants.Log]")  # type: ignore[arg-type]


def test_explain():
    text = writ.explain("E4007")
    assert text is not None
    assert text.startswith("## E4007: input does not match its type")
    assert writ.explain("E9999") is None


def test_primer():
    base = writ.primer()
    assert base.startswith("# Writ for models")
    assert "## Effects and handlers" in base
    with_policy = writ.primer(make_policy(LOG))
    assert with_policy.startswith(base.rstrip("\n")[:200])
    assert len(with_policy) > len(base)
    assert "- `Log.info` reads: it changes nothing outside the person's host." in with_policy
    assert "Not granted: `Http`, `Pay`, `Records`, `Audit`, `Clock` and `Confirm`." in with_policy


def test_engine_primer_names_embedder_capability(store):
    from conftest import weather_engine

    e = weather_engine(store)
    text = e.primer()
    assert text.startswith("# Writ for models")
    assert "fn high(city: Str) -> Int" in text
    assert "Weather" in text


def test_error_classes():
    assert issubclass(writ.WritError, Exception)
    for cls in (writ.PolicyError, writ.Rejected, writ.RunError, writ.AuditError):
        assert issubclass(cls, writ.WritError), cls
    for cls in (writ.LimitExceeded, writ.Denied, writ.NotApproved, writ.SnapshotError):
        assert issubclass(cls, writ.RunError), cls
    assert not issubclass(writ.Refuse, writ.WritError)
    assert issubclass(writ.Refuse, Exception)


def test_unknown_grant_refused():
    """As `writ check --grant Bogus` is a usage error, so is a grant of
    no capability here: never a silent no-op."""
    with pytest.raises((ValueError, writ.WritError)):
        writ.check("1\n", grants=["Bogus", "Log"])
