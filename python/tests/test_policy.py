"""`writ.Policy` (from TOML text and from a file) and `writ.PolicyError`:
a malformed policy is an error with its diagnostics, never a policy that
grants something."""

from __future__ import annotations

import pathlib

import pytest

import writ
from conftest import LOG, PRINCIPAL, WEATHER, make_policy, policy_text

RESPONSES = """\
[[response]]
url = "https://air-one.example/offers"
body = '''{"flights": [{"id": "A1-318", "price_cents": 38900}]}'''
"""

HTTP_RECORDED = """\
[grants.Http]
recorded = "responses.toml"
"""


def test_from_toml_fields():
    p = make_policy(
        LOG,
        "[grants.Clock]",
        limits='fuel = 12345\nmemory = "64M"\ndepth = 500\noutput = "1K"\ntime = "2s"',
    )
    assert p.principal == "ada"
    assert p.role == "employee"
    assert sorted(p.grants) == ["Clock", "Log"]
    assert p.text == policy_text(
        LOG, "[grants.Clock]", limits='fuel = 12345\nmemory = "64M"\ndepth = 500\noutput = "1K"\ntime = "2s"'
    )
    assert p.limits["fuel"] == 12345
    assert p.limits["memory"] == 64 * 1024 * 1024
    assert p.limits["depth"] == 500
    assert p.limits["output"] == 1024
    assert p.limits["time"] == 2000  # milliseconds
    assert sorted(p.limits) == ["depth", "fuel", "memory", "output", "time"]


def test_default_limits():
    p = make_policy(LOG)
    assert p.limits["fuel"] == 1_000_000_000
    assert p.limits["memory"] == 512 * 1024 * 1024
    assert p.limits["output"] == 1024 * 1024


def test_nothing_granted():
    p = writ.Policy.from_toml(PRINCIPAL)
    assert list(p.grants) == []


def test_from_file_and_relative_paths(tmp_path):
    (tmp_path / "responses.toml").write_text(RESPONSES)
    path = tmp_path / "policy.toml"
    path.write_text(policy_text(LOG, HTTP_RECORDED, f'[store]\npath = "{tmp_path / "s.db"}"'))
    for p in (writ.Policy.from_file(path), writ.Policy.from_file(str(path))):
        assert p.principal == "ada"
        assert p.text == path.read_text()
        assert sorted(p.grants) == ["Http", "Log"]
    engine = writ.Engine(writ.Policy.from_file(path))
    out = engine.run('Http.get("https://air-one.example/offers")\n')
    assert out.value == '{"flights": [{"id": "A1-318", "price_cents": 38900}]}'
    assert out.recorded is True
    assert [(o.operation, o.decision) for o in out.operations] == [("Http.get", "allowed")]
    assert [r.operation for r in engine.audit()] == ["Http.get"]
    assert (tmp_path / "s.db").exists()  # the policy's [store] path


def test_from_toml_base_dir(tmp_path, store):
    (tmp_path / "responses.toml").write_text(RESPONSES)
    text = policy_text(LOG, HTTP_RECORDED)
    for base in (tmp_path, str(tmp_path)):
        p = writ.Policy.from_toml(text, base_dir=base)
        out = writ.Engine(p, store=store).run('Http.get("https://air-one.example/offers")\n')
        assert out.value.startswith('{"flights"')
        assert out.recorded is True


def test_from_file_missing(tmp_path):
    with pytest.raises((writ.PolicyError, OSError)):
        writ.Policy.from_file(tmp_path / "nowhere.toml")


def _policy_error(text: str) -> writ.PolicyError:
    with pytest.raises(writ.PolicyError) as info:
        writ.Policy.from_toml(text)
    e = info.value
    assert isinstance(e, writ.WritError)
    assert e.diagnostics, "a policy error carries its diagnostics"
    assert e.code == e.diagnostics[0].code
    return e


def test_syntax_error():
    e = _policy_error('[principal\nid = "a"\n')
    assert e.code == "E6001"
    d = e.diagnostics[0]
    assert d.severity == "error"
    assert d.message == "expected a TOML policy, found a syntax error: unclosed table, expected `]`"
    assert (d.line, d.column) == (1, 11)
    assert d.help == "see docs/policy.md for the form of a policy file"
    assert "[E6001] Error:" in d.rendered


def test_unknown_key():
    e = _policy_error('[principal]\nid = "a"\nrole = "r"\ncolour = "red"\n')
    assert e.code == "E6002"
    d = e.diagnostics[0]
    assert d.message == "expected a key of [principal] (`id`, `name`, `role`), found `colour`"
    assert (d.line, d.column) == (4, 1)
    assert [l.message for l in d.labels] == ["unknown key"]
    assert "colour" in str(e)


def test_unknown_limit_key():
    e = _policy_error(policy_text(LOG, limits="fuell = 1000"))
    assert e.code == "E6002"
    assert "`fuell`" in e.diagnostics[0].message


def test_invalid_value():
    e = _policy_error(policy_text(LOG, limits='fuel = "lots"'))
    assert e.code == "E6003"
    assert e.diagnostics[0].message == (
        "expected a valid `fuel` limit, found `lots`: expected a whole number such as 1000000 or 1e6, found `lots`"
    )


def test_missing_required_key():
    e = _policy_error('[principal]\nid = "a"\n')
    assert e.code == "E6005"
    assert e.diagnostics[0].message == "expected [principal] to have `role`, found none"
    assert e.diagnostics[0].help == 'add `role = "..."` to [principal]'


def test_every_problem_reported():
    e = _policy_error('[principal]\nid = "a"\nrole = "r"\ncolour = 1\n[limits]\nfuel = "lots"\n')
    assert sorted(d.code for d in e.diagnostics) == ["E6002", "E6003"]


def test_embedder_capability_granted_in_policy_needs_the_engine(store):
    p = make_policy(LOG, "[grants.Weather]")
    assert sorted(p.grants) == ["Log", "Weather"]
    with pytest.raises(writ.PolicyError) as info:
        writ.Engine(p, store=store)
    e = info.value
    assert e.code == "E6004"
    assert "`Weather`" in e.diagnostics[0].message
    # With another capability of the embedder's, still not this one.
    with pytest.raises(writ.PolicyError) as info:
        writ.Engine(p, store=store, capabilities={"Forecast": (WEATHER.replace("Weather", "Forecast"), lambda op, *a: 0)})
    assert info.value.code == "E6004"
    # With the capability: accepted.
    e2 = writ.Engine(p, store=store, capabilities={"Weather": (WEATHER, lambda op, *a: 0)})
    assert sorted(e2.policy.grants) == ["Log", "Weather"]


def test_policy_error_is_not_a_policy():
    with pytest.raises(writ.PolicyError):
        writ.Policy.from_toml("this is not toml at all [[[")
    with pytest.raises(TypeError):
        writ.Policy.from_toml(b"[principal]")  # type: ignore[arg-type]


def test_policy_shared_by_engines(store, tmp_path):
    p = make_policy(LOG)
    a = writ.Engine(p, store=store)
    b = writ.Engine(p, store=str(tmp_path / "other.db"))
    assert a.run("1 + 1\n").value == 2
    assert b.run("2 + 2\n").value == 4
    assert a.policy.principal == "ada"


def test_policy_error_rendered_golden():
    with pytest.raises(writ.PolicyError) as info:
        writ.Policy.from_toml('[principal]\nid = "a"\nrole = "r"\ncolour = "red"\n')
    e = info.value
    assert str(e) == "[E6002] expected a key of [principal] (`id`, `name`, `role`), found `colour`"
    assert e.rendered.rstrip("\n") == (
        "[E6002] Error: expected a key of [principal] (`id`, `name`, `role`), found `colour`\n"
        "   ╭─[ <policy>:4:1 ]\n"
        "   │\n"
        ' 4 │ colour = "red"\n'
        "   │ ───┬──  \n"
        "   │    ╰──── unknown key\n"
        "   │ \n"
        "   │ Help: a key the policy does not know is an error, so that a misspelt key (a limit, a cap) never goes unnoticed\n"
        "───╯"
    )
    assert e.diagnostics[0].rendered == e.rendered or e.diagnostics[0].rendered in e.rendered


def test_policy_file_error_names_the_file(tmp_path):
    path = tmp_path / "policy.toml"
    path.write_text('[principal]\nid = "a"\nrole = "r"\ncolour = "red"\n')
    with pytest.raises(writ.PolicyError) as info:
        writ.Policy.from_file(path)
    assert f"   ╭─[ {path}:4:1 ]" in info.value.rendered


SEED = """\
INSERT INTO employees (id, name, manager, fields) VALUES
  ('ada', 'Ada Lovelace', NULL, '{"plan": "Gold", "ssn": "900-00-0001"}'),
  ('bob', 'Bob', 'ada', '{"plan": "Silver", "ssn": "900-00-0002"}'),
  ('eve', 'Eve', NULL, '{"plan": "Bronze", "ssn": "900-00-0003"}');
"""

RECORDS = """\
[grants.Records]
scope = "reports"
redact = ["ssn"]
on_deny = "fail"
"""

READ = (
    "fn plan_of(id: Str) -> Str / {Records} {\n"
    "  handle { let r = Records.read(id)\n map.get(r.fields, \"plan\") |> option.unwrap_or(\"?\") } with {\n"
    '    Fail.fail(m) => "denied",\n'
    "  }\n"
    "}\n"
    '(Records.list(), plan_of("bob"), plan_of("eve"), Records.read("bob").fields |> map.keys)\n'
)


def test_seed_relative_to_the_policy_file(tmp_path):
    (tmp_path / "org.sql").write_text(SEED)
    path = tmp_path / "policy.toml"
    path.write_text(policy_text(LOG, RECORDS, '[store]\npath = "org.db"\nseed = "org.sql"'))
    engine = writ.Engine(writ.Policy.from_file(path))
    out = engine.run(READ)
    assert out.value == [["bob"], "Silver", "denied", ["plan"]]
    assert (tmp_path / "org.db").exists()  # the store's path is relative to the policy file too
    decisions = [(o.operation, o.arguments, o.decision) for o in out.operations]
    assert decisions == [
        ("Records.list", "", "allowed"),
        ("Records.read", '"bob"', "allowed"),
        ("Records.read", '"eve"', "denied"),
        ("Records.read", '"bob"', "allowed"),
    ]


def test_seed_with_base_dir(tmp_path, store):
    (tmp_path / "org.sql").write_text(SEED)
    p = writ.Policy.from_toml(policy_text(LOG, RECORDS, '[store]\nseed = "org.sql"'), base_dir=tmp_path)
    out = writ.Engine(p, store=store).run(READ)
    assert out.value == [["bob"], "Silver", "denied", ["plan"]]


def test_missing_seed_file(tmp_path, store):
    p = writ.Policy.from_toml(policy_text(LOG, RECORDS, '[store]\nseed = "nowhere.sql"'), base_dir=tmp_path)
    with pytest.raises(writ.WritError) as info:
        writ.Engine(p, store=store).run(READ)
    assert info.value.code == "E4006"


# --- where a policy's relative paths resolve without base_dir --------------------------


def test_from_toml_without_base_dir_resolves_against_the_current_directory(tmp_path, store, monkeypatch):
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    here.mkdir()
    elsewhere.mkdir()
    (here / "responses.toml").write_text(RESPONSES)
    policy = writ.Policy.from_toml(policy_text(LOG, HTTP_RECORDED))
    engine = writ.Engine(policy, store=store)
    monkeypatch.chdir(here)
    out = engine.run('Http.get("https://air-one.example/offers")\n')
    assert out.recorded is True
    # The directory current at the run, not when the policy was read.
    monkeypatch.chdir(elsewhere)
    with pytest.raises(writ.RunError) as info:
        engine.run('Http.get("https://air-one.example/offers")\n')
    assert info.value.code == "E4006"
    assert "responses.toml" in info.value.message


# --- a policy's text, read as the command line reads it ----------------------------------


def test_a_policy_with_a_leading_byte_order_mark(tmp_path):
    text = policy_text(LOG)
    assert writ.Policy.from_toml("\ufeff" + text).grants == ["Log"]
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    p = writ.Policy.from_file(path)
    assert (p.grants, p.text) == (["Log"], text)


def test_a_policy_str_with_a_lone_surrogate_is_a_policy_error():
    with pytest.raises(writ.PolicyError) as info:
        writ.Policy.from_toml(policy_text(LOG) + '# \ud800\n')
    e = info.value
    assert e.code == "E9003"
    assert [d.code for d in e.diagnostics] == ["E9003"]


def test_a_policy_over_2_mib_is_refused(tmp_path):
    big = policy_text(LOG) + "#" * (2 * 1024 * 1024)
    with pytest.raises(writ.PolicyError) as info:
        writ.Policy.from_toml(big)
    assert info.value.code == "E9004"
    assert info.value.message == f"expected a policy of at most {2 * 1024 * 1024} bytes, found {len(big)} bytes"
    path = tmp_path / "big.toml"
    path.write_text(big)
    with pytest.raises(writ.PolicyError) as info:
        writ.Policy.from_file(path)
    assert info.value.code == "E9004"
    assert [d.code for d in info.value.diagnostics] == ["E9004"]
    # 2 MiB exactly is read.
    at_most = policy_text(LOG)
    at_most += "#" * (2 * 1024 * 1024 - len(at_most))
    assert writ.Policy.from_toml(at_most).grants == ["Log"]


def test_from_file_errors_are_policy_errors_with_diagnostics(tmp_path):
    cases = {
        "E9001": tmp_path / "nowhere.toml",
        "E9003": tmp_path / "latin1.toml",
    }
    cases["E9003"].write_bytes(policy_text(LOG).encode() + b"# caf\xe9\n")
    for code, path in cases.items():
        with pytest.raises(writ.PolicyError) as info:
            writ.Policy.from_file(path)
        e = info.value
        assert e.code == code
        assert [d.code for d in e.diagnostics] == [code]
        assert str(path) in e.message
    with pytest.raises(writ.PolicyError) as info:
        writ.Policy.from_file(tmp_path)  # a directory
    assert info.value.code == "E9001"
