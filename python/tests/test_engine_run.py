"""`writ.Engine`: compile, run, inputs, results as Python data, limits,
denials, run-time errors, confirmations, the store."""

from __future__ import annotations

import hashlib
import math
import os

import pytest

import writ
from conftest import CONFIRM, LOG, PAY, make_policy, outcome_of

SPIN = "fn spin(n: Int) -> Int { spin(n + 1) }\nspin(0)\n"
REQUEST = "{ to: Str, budget_cents: Int }"


# --- compile ---------------------------------------------------------------


def test_compile_program_fields(engine):
    src = 'Log.info("hi")\n1 + 2\n'
    p = engine.compile(src)
    assert p.hash == hashlib.sha256(src.encode()).hexdigest()
    assert p.source == src
    assert list(p.effects) == ["Log"]
    assert [(m.effect, m.capability, list(m.operations), list(m.lines)) for m in p.manifest] == [
        ("Log", True, ["Log.info"], [1])
    ]
    assert dict(p.inputs) == {}


def test_compile_with_inputs(engine):
    p = engine.compile("request.budget_cents / 100\n", inputs={"request": REQUEST})
    # The type as the checker reads it: fields in name order.
    assert dict(p.inputs) == {"request": "{ budget_cents: Int, to: Str }"}


def test_compile_rejected(engine):
    with pytest.raises(writ.Rejected) as info:
        engine.compile('let x: Int = "a"\n')
    e = info.value
    assert isinstance(e, writ.WritError)
    assert not isinstance(e, writ.RunError)
    assert e.code == "E2001"
    assert [d.code for d in e.diagnostics] == ["E2001"]
    assert e.diagnostics[0].message == "expected `Int`, found `Str`"
    assert "[E2001] Error: expected `Int`, found `Str`" in e.rendered


def test_compile_not_granted(engine):
    with pytest.raises(writ.Rejected) as info:
        engine.compile('Http.get("https://a.example/")\n')
    assert info.value.code == "E3002"
    assert info.value.diagnostics[0].message == (
        "expected only the granted capabilities (Log), found `Http.get`, which needs `Http`"
    )


@pytest.mark.parametrize("decl", ["fn(Int) -> Int", "{ a: Int, .. }", "List[", "Shape"])
def test_compile_malformed_input_type(engine, decl):
    with pytest.raises(writ.Rejected) as info:
        engine.compile("request\n", inputs={"request": decl})
    assert info.value.code == "E2014"
    assert [d.code for d in info.value.diagnostics] == ["E2014"]
    assert "the input `request`" in info.value.diagnostics[0].message


def test_engine_check(engine):
    ok = engine.check('Log.info("a")\n')
    assert ok.accepted is True
    bad = engine.check('Http.get("https://a.example/")\n')
    assert bad.accepted is False
    assert [d.code for d in bad.errors] == ["E3002"]
    with_inputs = engine.check("n + 1\n", inputs={"n": "Int"})
    assert with_inputs.accepted is True
    assert [d.code for d in engine.check("n\n", inputs={"n": "fn() -> Int"}).errors] == ["E2014"]


# --- run: values -------------------------------------------------------------


def test_run_source_and_program(engine):
    out = engine.run("1 + 2\n")
    assert out.value == 3
    assert out.display == "3"
    assert list(out.output) == []
    assert list(out.operations) == []
    assert list(out.audit_ids) == []
    assert out.recorded is False
    assert list(out.changed_reads) == []
    assert isinstance(out.usage.fuel, int) and out.usage.fuel > 0
    assert isinstance(out.usage.memory, int) and out.usage.memory >= 0
    assert out.usage.time_ms >= 0.0
    program = engine.compile("40 + 2\n")
    assert [engine.run(program).value for _ in range(3)] == [42, 42, 42]
    bigger = engine.run("list.range(0, 1000) |> list.map(fn(x) { [x] }) |> list.length\n")
    assert bigger.value == 1000
    assert bigger.usage.memory > 16_000  # a thousand lists were live at once
    assert bigger.usage.fuel > out.usage.fuel


def test_run_output_and_log_operations(engine):
    out = engine.run('Log.info("hi")\nLog.info("there")\n"done"\n')
    assert list(out.output) == ["hi", "there"]
    assert out.value == "done"
    assert out.display == '"done"'
    ops = [(o.operation, o.arguments, o.decision, o.rule, o.audit_id) for o in out.operations]
    assert ops == [
        ("Log.info", '"hi"', "allowed", "granted", None),
        ("Log.info", '"there"', "allowed", "granted", None),
    ]


def test_on_log_called_in_order(engine):
    seen = []
    out = engine.run('Log.info("a")\nLog.info("b ${1 + 1}")\n0\n', on_log=seen.append)
    assert seen == ["a", "b 2"]
    assert list(out.output) == ["a", "b 2"]


VALUES = """\
type Shape = Circle(Float) | Dot
{ unit: (), b: true, i: 42, f: 1.0, s: "t", l: [1, 2], t: (1, "a"), some: Some(2),
  none: None, nested: Some(None), ok: Ok(1), err: Err("e"),
  m: map.from_list([("k", 1)]), im: map.from_list([(2, "b"), (1, "a")]),
  c: Circle(2.5), d: Dot, nan: 0.0 / 0.0, inf: 1.0 / 0.0, big: 9223372036854775807 }
"""


def test_value_mapping(engine):
    v = engine.run(VALUES).value
    assert v == {
        "b": True,
        "big": 9223372036854775807,
        "c": {"tag": "Circle", "fields": [2.5]},
        "d": {"tag": "Dot", "fields": []},
        "err": {"err": "e"},
        "f": 1.0,
        "i": 42,
        "im": [[1, "a"], [2, "b"]],
        "inf": "Infinity",
        "l": [1, 2],
        "m": {"k": 1},
        "nan": "NaN",
        "nested": {"some": None},
        "none": None,
        "ok": {"ok": 1},
        "s": "t",
        "some": 2,
        "t": [1, "a"],
        "unit": None,
    }
    assert type(v["f"]) is float and type(v["i"]) is int and type(v["b"]) is bool


def test_unit_value(engine):
    out = engine.run('Log.info("x")\n')
    assert out.value is None
    assert list(out.output) == ["x"]


# --- inputs ------------------------------------------------------------------


def test_inputs(engine):
    p = engine.compile('Log.info("to ${request.to}")\nrequest.budget_cents / 100\n', inputs={"request": REQUEST})
    out = engine.run(p, inputs={"request": {"to": "BER", "budget_cents": 25000}})
    assert out.value == 250
    assert list(out.output) == ["to BER"]
    out = engine.run(p, inputs={"request": {"to": "OSL", "budget_cents": 100}})
    assert out.value == 1


def test_inputs_of_every_kind(engine):
    types = {
        "i": "Int",
        "f": "Float",
        "s": "Str",
        "b": "Bool",
        "u": "()",
        "o": "Option[Int]",
        "l": "List[Str]",
        "m": "Map[Str, Int]",
        "t": "(Int, Str)",
    }
    src = '(i + 1, f * 2.0, s ++ "!", !b, u, option.unwrap_or(o, 0), list.length(l), map.get(m, "k"), t)\n'
    p = engine.compile(src, inputs=types)
    values = {"i": 1, "f": 1.25, "s": "a", "b": False, "u": None, "o": None, "l": ["x", "y"], "m": {"k": 7}, "t": [3, "z"]}
    assert engine.run(p, inputs=values).value == [2, 2.5, "a!", True, None, 0, 2, 7, [3, "z"]]
    # A Python int where a Float is declared is a number, and so fits; a tuple fits a tuple type.
    values.update(f=2, o=5, t=(4, "w"))
    assert engine.run(p, inputs=values).value == [2, 4.0, "a!", True, None, 5, 2, 7, [4, "w"]]


@pytest.mark.parametrize(
    "value, message",
    [
        ({"to": 5, "budget_cents": 100}, "request.to: expected Str, found 5"),
        ({"to": "x", "budget_cents": "500"}, 'request.budget_cents: expected Int, found "500"'),
        ({"to": "x", "budget_cents": True}, "request.budget_cents: expected Int, found true"),
        (
            {"to": "x", "budget_cents": 1.5},
            "request.budget_cents: expected Int (a whole number from -2^63 to 2^63 - 1), found 1.5",
        ),
        (
            {"to": "x", "budget_cents": 2**63},
            "request.budget_cents: expected Int (a whole number from -2^63 to 2^63 - 1), found 9223372036854775808",
        ),
        ({"budget_cents": 100}, "request.to: expected Str, found nothing (the field is missing)"),
        ({"to": "x", "budget_cents": 1, "z": 2}, "request: expected the fields budget_cents, to, found the field `z` too"),
    ],
)
def test_input_wrong_type(engine, value, message):
    p = engine.compile('Log.info("ran")\nrequest.budget_cents\n', inputs={"request": REQUEST})
    seen = []
    with pytest.raises(writ.RunError) as info:
        engine.run(p, inputs={"request": value}, on_log=seen.append)
    e = info.value
    assert e.code == "E4007"
    assert e.message == message
    assert e.outcome is None  # nothing ran
    assert e.limit is None
    assert not isinstance(e, (writ.LimitExceeded, writ.Denied, writ.NotApproved, writ.SnapshotError))
    assert seen == []  # nothing ran


def test_input_not_json_data(engine):
    p = engine.compile("request\n", inputs={"request": "Str"})
    with pytest.raises((writ.RunError, TypeError, ValueError)) as info:
        engine.run(p, inputs={"request": object()})
    if isinstance(info.value, writ.RunError):
        assert info.value.code == "E4007"


def test_input_missing(engine):
    p = engine.compile("request.budget_cents\n", inputs={"request": REQUEST})
    for inputs in (None, {}):
        with pytest.raises(writ.RunError) as info:
            engine.run(p, inputs=inputs)
        assert info.value.code == "E4008"
        assert info.value.message == (
            "expected a value for the input `request` (of type { budget_cents: Int, to: Str }), found none"
        )
        assert info.value.help == "pass a value for every declared input"


def test_input_extra(engine):
    p = engine.compile("request.budget_cents\n", inputs={"request": REQUEST})
    with pytest.raises(writ.RunError) as info:
        engine.run(p, inputs={"request": {"to": "x", "budget_cents": 1}, "other": 1})
    assert info.value.code == "E4008"
    assert info.value.message == "expected values for the declared inputs only (request), found a value for `other`"
    with pytest.raises(writ.RunError) as info:
        engine.run("1\n", inputs={"other": 1})
    assert info.value.code == "E4008"


# --- run-time errors ------------------------------------------------------------


def test_fail_reaches_top_level(engine):
    with pytest.raises(writ.RunError) as info:
        engine.run('Log.info("before")\nFail.fail("boom")\n')
    e = info.value
    assert type(e) is writ.RunError
    assert e.code == "E4003"
    assert e.limit is None
    assert e.message == "the program failed: boom"
    assert e.outcome is not None
    assert list(e.outcome.output) == ["before"]
    assert "[E4003] Error: the program failed: boom" in e.rendered
    assert "E4003" in str(e)


def test_division_by_zero(engine):
    with pytest.raises(writ.RunError) as info:
        engine.run("let z = 0\n1 / z\n")
    assert info.value.code == "E4002"
    assert info.value.help == "check the divisor first, or return an `Option` when it can be zero"


def test_run_rejected_source(engine):
    with pytest.raises(writ.Rejected) as info:
        engine.run('let x: Int = "a"\n')
    assert info.value.code == "E2001"


def test_handled_fail_is_a_value(engine):
    src = 'handle { Fail.fail("x") } with { Fail.fail(m) => "caught ${m}" }\n'
    assert engine.run(src).value == "caught x"


# --- limits --------------------------------------------------------------------


def _limit(engine, src, **kw) -> writ.LimitExceeded:
    with pytest.raises(writ.LimitExceeded) as info:
        engine.run(src, **kw)
    e = info.value
    assert isinstance(e, writ.RunError) and isinstance(e, writ.WritError)
    return e


def test_fuel_limit(log_policy, store):
    e = _limit(writ.Engine(log_policy, store=store, limits={"fuel": 100_000}), SPIN)
    assert e.limit == "fuel"
    assert e.code == "E5001"
    assert e.message.startswith("expected the program to finish within 100000 units of fuel")
    assert e.outcome is None or e.outcome.usage.fuel >= 100_000


def test_fuel_limit_from_the_policy(store):
    e = _limit(writ.Engine(make_policy(LOG, limits="fuel = 5000"), store=store), SPIN)
    assert e.limit == "fuel"
    assert "5000 units of fuel" in e.message


def test_engine_limits_override_the_policy(store):
    policy = make_policy(LOG, limits="fuel = 100")
    src = "list.range(0, 200) |> list.map(fn(x) { x * 2 }) |> list.sum\n"
    with pytest.raises(writ.LimitExceeded):
        writ.Engine(policy, store=store).run(src)
    assert writ.Engine(policy, store=store, limits={"fuel": 1_000_000}).run(src).value == 39800


def test_memory_limit(log_policy, store):
    e = _limit(
        writ.Engine(log_policy, store=store, limits={"memory": "1M"}),
        "let xs = list.range(0, 10000000)\nlist.length(xs)\n",
    )
    assert e.limit == "memory"
    assert e.code == "E5002"
    assert e.message == "expected the program to use at most 1 MiB, but it needed more"


def test_depth_limit(log_policy, store):
    src = "fn deep(n: Int) -> Int { if n == 0 { 0 } else { 1 + deep(n - 1) } }\ndeep(100000)\n"
    e = _limit(writ.Engine(log_policy, store=store, limits={"depth": 1000}), src)
    assert e.limit == "depth"
    assert e.code == "E5003"
    assert e.message == "expected calls nested at most 1000 deep, but `deep` went deeper"


def test_output_limit(log_policy, store):
    e = _limit(
        writ.Engine(log_policy, store=store, limits={"output": 100}),
        'Log.info("short")\nLog.info(str.repeat("x", 1000))\n1\n',
    )
    assert e.limit == "output"
    assert e.code == "E5004"
    assert e.outcome is not None
    assert list(e.outcome.output) == ["short"]


def test_time_limit(log_policy, store):
    import time

    t0 = time.monotonic()
    e = _limit(writ.Engine(log_policy, store=store, limits={"fuel": 10**15, "time": "300ms"}), SPIN)
    elapsed = time.monotonic() - t0
    assert e.limit == "time"
    assert e.code == "E5005"
    assert 0.25 < elapsed < 5.0
    e = _limit(writ.Engine(log_policy, store=store, limits={"fuel": 10**15, "time": "200ms"}), SPIN)
    assert e.limit == "time"


@pytest.mark.parametrize(
    "limits",
    [{"fuel": "lots"}, {"colour": 1}, {"memory": -1}, {"time": "2 weeks"}, {"time": "200"}, {"time": -5}],
)
def test_bad_limits(log_policy, store, limits):
    with pytest.raises((ValueError, TypeError, writ.WritError)):
        writ.Engine(log_policy, store=store, limits=limits)


def test_time_limit_as_a_number_is_milliseconds(log_policy, store):
    e = _limit(writ.Engine(log_policy, store=store, limits={"fuel": 10**15, "time": 200}), SPIN)
    assert e.limit == "time"
    assert e.message == "expected the program to finish within 200 ms, but it ran longer"
    # A whole float is that number (`2e2`), in the same unit.
    e = _limit(writ.Engine(log_policy, store=store, limits={"fuel": 10**15, "time": 2e2}), SPIN)
    assert e.message == "expected the program to finish within 200 ms, but it ran longer"
    assert writ.Engine(log_policy, store=store, limits={"time": 2000}).run("6 * 7\n").value == 42


def test_a_policys_own_limits_are_accepted_as_limits(store):
    """`Policy.limits` gives each limit in its unit (time in
    milliseconds): given back as `limits`, it sets the same limits."""
    policy = make_policy(LOG, limits='fuel = 5000\ntime = "3s"')
    assert policy.limits["time"] == 3000
    engine = writ.Engine(policy, store=store, limits=policy.limits)
    e = _limit(engine, SPIN)
    assert e.limit == "fuel"
    assert "5000 units of fuel" in e.message


@pytest.mark.parametrize("name", ["fuel", "memory", "depth", "output", "time"])
@pytest.mark.parametrize("value", [True, False])
def test_limits_refuse_bools(log_policy, store, name, value):
    with pytest.raises(ValueError) as info:
        writ.Engine(log_policy, store=store, limits={name: value})
    unit = "milliseconds" if name == "time" else "in the limit's unit"
    assert str(info.value) == (
        f'limits["{name}"]: expected a whole number ({unit}) or a str ("64M", "2s"), found {value!r}'
    )


@pytest.mark.parametrize("value", [1.5, float("nan"), float("inf"), -1.0, 2**64])
def test_limits_refuse_numbers_that_are_not_whole(log_policy, store, value):
    with pytest.raises(ValueError):
        writ.Engine(log_policy, store=store, limits={"fuel": value})


def test_limits_refuse_other_types(log_policy, store):
    with pytest.raises(TypeError):
        writ.Engine(log_policy, store=store, limits={"fuel": [1]})


# --- denials, payments, confirmations --------------------------------------------------


HTTP_A = '[grants.Http]\nallow = ["https://a.example/"]'


def test_denied_stops_the_run(store):
    engine = writ.Engine(make_policy(LOG, HTTP_A), store=store)
    with pytest.raises(writ.Denied) as info:
        engine.run('Log.info("before")\nHttp.get("https://b.example/x")\nLog.info("after")\n')
    e = info.value
    assert isinstance(e, writ.RunError)
    assert e.code == "E4005"
    assert e.message == 'Http.get("https://b.example/x") was denied: https://b.example/x is not in the allow-list'
    assert e.help == "the policy does not allow this; nothing was carried out, and the denial is in the audit log"
    assert list(e.outcome.output) == ["before"]
    last = e.outcome.operations[-1]
    assert (last.operation, last.arguments, last.decision, last.rule, last.audit_id) == (
        "Http.get",
        '"https://b.example/x"',
        "denied",
        "https://b.example/x is not in the allow-list",
        1,
    )
    assert list(e.outcome.audit_ids) == [1]
    [record] = engine.audit()
    assert (record.seq, record.operation, record.decision) == (1, "Http.get", "denied")


def test_denied_with_on_deny_fail_is_handled(store):
    engine = writ.Engine(make_policy(LOG, HTTP_A + '\non_deny = "fail"'), store=store)
    src = 'handle Http.get("https://b.example/x") with { Fail.fail(m) => "no: ${m}" }\n'
    out = engine.run(src)
    assert out.value == 'no: Http.get("https://b.example/x") was denied: https://b.example/x is not in the allow-list'
    assert [(o.operation, o.decision) for o in out.operations] == [("Http.get", "denied")]


def test_payment(pay_engine):
    out = pay_engine.run('Pay.pay("air-one.example", 1200, "pen")\n')
    assert out.value == {"cents": 1200, "currency": "EUR", "id": "pay-1", "payee": "air-one.example"}
    [op] = out.operations
    assert (op.operation, op.arguments, op.decision, op.rule, op.audit_id) == (
        "Pay.pay",
        '"air-one.example", 1200, "pen"',
        "allowed",
        "air-one.example is an allowed payee and 12.00 EUR is within the caps",
        1,
    )
    assert list(out.audit_ids) == [1]
    out2 = pay_engine.run('Pay.pay("air-one.example", 100, "ink").id\n')
    assert out2.value == "pay-2"
    assert list(out2.audit_ids) == [2]


def test_payment_over_cap_denied(pay_engine):
    with pytest.raises(writ.Denied) as info:
        pay_engine.run('Pay.pay("air-one.example", 60000, "sofa")\n')
    assert info.value.code == "E4005"
    assert [o.decision for o in info.value.outcome.operations] == ["denied"]


def test_confirm_callback(store):
    asked = []

    def confirm(question):
        asked.append(question)
        return question.endswith("yes?")

    engine = writ.Engine(make_policy(LOG, CONFIRM), store=store, confirm=confirm)
    out = engine.run('(Confirm.ask("say yes?"), Confirm.ask("say no"))\n')
    assert out.value == [True, False]
    assert asked == ["say yes?", "say no"]


def test_confirm_without_callback_is_no(store):
    engine = writ.Engine(make_policy(LOG, CONFIRM), store=store)
    assert engine.run('Confirm.ask("ok?")\n').value is False


def test_payment_confirmation(store):
    asked = []
    answer = {"value": False}

    def confirm(q):
        asked.append(q)
        return answer["value"]

    engine = writ.Engine(make_policy(LOG, PAY + "confirm = true\n"), store=store, confirm=confirm)
    with pytest.raises(writ.Denied):
        engine.run('Pay.pay("air-one.example", 600, "Coffee order 1")\n')
    assert len(asked) == 1
    assert asked[0].startswith('memo "Coffee order 1" — Pay 6.00 EUR to air-one.example?')
    answer["value"] = True
    assert engine.run('Pay.pay("air-one.example", 600, "Coffee order 1").id\n').value == "pay-1"
    assert len(asked) == 2



def test_confirm_asks_the_programs_question_raw(store):
    """`Confirm.ask`'s question is the program's text, as it is: a host
    that shows it on a terminal escapes it (the package does not)."""
    asked = []
    engine = writ.Engine(make_policy(LOG, CONFIRM), store=store, confirm=lambda q: asked.append(q) or True)
    engine.run('Confirm.ask("Book it?\\n\\u{1b}[2J\\u{202e}yes")\n')
    assert asked == ["Book it?\n\x1b[2J\u202eyes"]


def test_a_payments_question_is_escaped_by_the_host(store):
    """A payment's question (`confirm = true`) is made by the engine: the
    memo, the program's text, is shown escaped and on one line."""
    asked = []
    engine = writ.Engine(make_policy(LOG, PAY + "confirm = true\n"), store=store, confirm=lambda q: asked.append(q) or True)
    engine.run('Pay.pay("air-one.example", 600, "pen\\n\\u{1b}[2Jfree")\n')
    assert asked == ['memo "pen\\n\\u{1b}[2Jfree" — Pay 6.00 EUR to air-one.example?']
    assert "\n" not in asked[0] and "\x1b" not in asked[0]


# --- the store ---------------------------------------------------------------------


def test_store_attribute(log_policy, tmp_path):
    path = tmp_path / "x.db"
    engine = writ.Engine(log_policy, store=path)
    assert engine.policy.principal == "ada"
    engine.run('Log.info("a")\n')
    assert engine.store == str(path)


def test_store_from_the_policy(tmp_path):
    path = tmp_path / "from-policy.db"
    engine = writ.Engine(make_policy(LOG, HTTP_A, f'[store]\npath = "{path}"'))
    with pytest.raises(writ.Denied):
        engine.run('Http.get("https://b.example/")\n')
    assert path.exists()
    assert engine.store == str(path)


def test_default_store_in_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    engine = writ.Engine(make_policy(LOG, HTTP_A))
    with pytest.raises(writ.Denied):
        engine.run('Http.get("https://b.example/")\n')
    assert (tmp_path / "writ.db").exists()
    assert os.path.abspath(engine.store) == str(tmp_path / "writ.db")


def test_store_cannot_be_opened(tmp_path):
    with pytest.raises(writ.WritError) as info:
        engine = writ.Engine(make_policy(LOG, HTTP_A), store=tmp_path)  # a directory
        engine.run('Http.get("https://b.example/")\n')
    assert info.value.code == "E4006"


def test_wrong_argument_types(engine):
    with pytest.raises(TypeError):
        engine.run(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        writ.Engine("not a policy")  # type: ignore[arg-type]


def test_float_results_are_floats(engine):
    v = engine.run("math.sqrt(2.0)\n").value
    assert math.isclose(v, 2**0.5)


def test_on_log_exception_propagates(engine):
    """A log sink that raises stops the run and the caller sees its
    exception (never a run that goes on with its output lost)."""
    seen = []

    def sink(line):
        seen.append(line)
        raise ValueError("log sink broke")

    how, raised = outcome_of(lambda: engine.run('Log.info("a")\nLog.info("b")\n1\n', on_log=sink))
    assert how == "raised" and type(raised) is ValueError, raised
    assert str(raised) == "log sink broke"
    assert seen == ["a"]


def test_confirm_callback_that_raises_or_is_not_a_bool_is_no(store):
    def broken(q):
        raise RuntimeError("no one home")

    engine = writ.Engine(make_policy(LOG, CONFIRM), store=store, confirm=broken)
    how, out = outcome_of(lambda: engine.run('Confirm.ask("x?")\n'))
    assert how == "returned", out
    assert out.value is False
    engine = writ.Engine(make_policy(LOG, CONFIRM), store=store, confirm=lambda q: "yes")
    assert engine.run('Confirm.ask("x?")\n').value is False


def test_inputs_not_json_data(engine):
    p = engine.compile("map.size(m)\n", inputs={"m": "Map[Str, Int]"})
    with pytest.raises((TypeError, ValueError, writ.RunError)):
        engine.run(p, inputs={"m": {1: 2}})
    q = engine.compile("list.length(l)\n", inputs={"l": "List[Int]"})
    cycle: list = []
    cycle.append(cycle)
    with pytest.raises((TypeError, ValueError, writ.RunError)):
        engine.run(q, inputs={"l": cycle})
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises((TypeError, ValueError, writ.RunError)):
        engine.run(q, inputs={"l": deep})
    assert engine.run(q, inputs={"l": [1, 2, 3]}).value == 3


def test_run_error_rendered_golden(engine):
    with pytest.raises(writ.RunError) as info:
        engine.run('Log.info("before")\nFail.fail("boom")\n')
    e = info.value
    assert str(e) == "[E4003] the program failed: boom"
    assert e.rendered.rstrip("\n") == (
        "[E4003] Error: the program failed: boom\n"
        "   ╭─[ <program>:2:1 ]\n"
        "   │\n"
        ' 2 │ Fail.fail("boom")\n'
        "   │ ────────┬────────  \n"
        "   │         ╰────────── here\n"
        "   │ \n"
        "   │ Help: `Fail.fail` was performed with no handler of `Fail` around it; handle `Fail` to recover instead\n"
        "───╯"
    )


def test_limit_rendered_names_the_limit_plainly(log_policy, store):
    with pytest.raises(writ.LimitExceeded) as info:
        writ.Engine(log_policy, store=store, limits={"fuel": 1000}).run(SPIN)
    e = info.value
    assert e.help == "raise the fuel limit if the program needs more"
    assert "   ╭─[ <program>:1:26 ]\n" in e.rendered
    assert "the fuel limit was reached here" in e.rendered


# --- values of any depth ------------------------------------------------------------


def _unwrap_lists(value, depth):
    for _ in range(depth):
        assert isinstance(value, list) and len(value) == 1, value
        value = value[0]
    return value


@pytest.mark.parametrize("depth", [1, 127, 128, 129, 250])
def test_a_deeply_nested_list_arrives_whole(engine, depth):
    out = engine.run("[" * depth + "1" + "]" * depth)
    assert _unwrap_lists(out.value, depth) == 1
    assert out.display == "[" * depth + "1" + "]" * depth


def test_a_deeply_nested_json_parse_result_arrives_whole(engine):
    out = engine.run('json.parse("' + "[" * 43 + "]" * 43 + '")')
    value = out.value
    assert value is not None
    # Ok(Array([Array([...])])): each level a constructor of one list.
    value = value["ok"]
    for _ in range(42):
        assert value["tag"] == "Array", value
        [inner] = value["fields"]
        [value] = inner
    assert value == {"tag": "Array", "fields": [[]]}


@pytest.mark.parametrize("depth", [63, 64, 65, 20_000])
def test_a_deep_recursive_constructor_arrives_whole(engine, depth):
    src = (
        "type T = Leaf | Node(T)\n"
        "fn build(n: Int, t: T) -> T { if n == 0 { t } else { build(n - 1, Node(t)) } }\n"
        f"build({depth}, Leaf)\n"
    )
    value = engine.run(src).value
    for _ in range(depth):
        assert value["tag"] == "Node"
        [value] = value["fields"]
    assert value == {"tag": "Leaf", "fields": []}


def test_a_value_over_the_output_limit_is_refused_never_none(log_policy, store):
    engine = writ.Engine(log_policy, store=store, limits={"output": "16K"})
    src = (
        "type T = Leaf | Node(T)\n"
        "fn build(n: Int, t: T) -> T { if n == 0 { t } else { build(n - 1, Node(t)) } }\n"
        "build(5000, Leaf)\n"
    )
    e = _limit(engine, src)
    assert (e.code, e.limit) == ("E5004", "output")


def test_strings_and_numbers_of_the_value_read_back_exactly(engine):
    src = r'''(
  ("quote \" back \\ slash", "tab\t nl\n cr\r", "\u{1}\u{1f}", "é ✓ 😀"),
  (9223372036854775807, -9223372036854775807 - 1, 0.1, -2.5e-300),
)'''
    value = engine.run("let x = " + src + "\nx").value
    assert value == [
        ["quote \" back \\ slash", "tab\t nl\n cr\r", "\x01\x1f", "é ✓ 😀"],
        [2**63 - 1, -(2**63), 0.1, -2.5e-300],
    ]


# --- inputs: how deep --------------------------------------------------------------


def _nested(depth):
    value: list = []
    for _ in range(depth - 1):
        value = [value]
    return value


def test_input_nested_128_deep_is_taken_129_refused(engine):
    program = engine.compile("x\n", inputs={"x": "List[" * 127 + "List[Int]" + "]" * 127})
    value = engine.run(program, inputs={"x": _nested(128)}).value
    assert _unwrap_lists(value, 127) == []
    with pytest.raises(ValueError) as info:
        engine.run(program, inputs={"x": _nested(129)})
    assert str(info.value) == (
        'input "x": expected data nested at most 128 deep (lists, tuples and dicts), found deeper'
    )
    # A scalar inside the deepest container is not a level.
    program = engine.compile("x\n", inputs={"x": "List[" * 128 + "Int" + "]" * 128})
    deep = _nested(128)
    innermost = deep
    for _ in range(127):
        innermost = innermost[0]
    innermost.append(7)
    assert _unwrap_lists(engine.run(program, inputs={"x": deep}).value, 128) == 7


def test_input_dicts_and_tuples_count_as_levels(engine):
    program = engine.compile("1\n", inputs={"x": "Int"})
    deep: object = 1
    for i in range(129):
        deep = {"a": deep} if i % 2 else (deep,)
    with pytest.raises(ValueError):
        engine.run(program, inputs={"x": deep})


# --- stores that no run could open ---------------------------------------------------------


PASSWORD_URLS = [
    "postgres://writ:hunter2@127.0.0.1:1/team",
    "postgresql://writ:hunter2@127.0.0.1:1/team",
    "postgres://writ@127.0.0.1:1/team?password=hunter2",
    "postgres://writ:hunter2@127.0.0.1:notaport/team",
    "postgres:/writ:hunter2@127.0.0.1/team",
]


@pytest.mark.parametrize("url", PASSWORD_URLS)
def test_a_store_url_with_a_password_is_refused_when_the_engine_is_made(log_policy, url):
    with pytest.raises(writ.RunError) as info:
        writ.Engine(log_policy, store=url)
    e = info.value
    assert e.code == "E4006"
    assert (e.outcome, e.limit) == (None, None)
    for shown in (str(e), e.message, e.rendered, repr(e), str(e.help)):
        assert "hunter2" not in shown


def test_the_refusal_of_a_password_is_a_runs_own(log_policy):
    with pytest.raises(writ.RunError) as info:
        writ.Engine(log_policy, store="postgres://writ:hunter2@127.0.0.1:1/team")
    assert info.value.message == (
        "a store's URL must not hold a password (it would show in policies, command lines and "
        "messages); put the password in PGPASSWORD, or name a file or variable in the policy's "
        "[store] password_file or password_env"
    )
    assert info.value.help == "nothing was run: the host could not make the checks the policy asks for"
    assert str(info.value).startswith("[E4006] a store's URL must not hold a password")


def test_a_store_url_without_a_password_is_taken(log_policy):
    url = "postgres://writ@127.0.0.1:1/team"
    engine = writ.Engine(log_policy, store=url)
    assert engine.store == url
    assert url in repr(engine)


@pytest.mark.parametrize("location", [":memory:", "file:x.db?mode=memory", "https://example.com/x.db", ""])
def test_other_stores_no_run_could_open_are_refused_when_the_engine_is_made(log_policy, location):
    with pytest.raises(writ.RunError) as info:
        writ.Engine(log_policy, store=location)
    assert info.value.code == "E4006"


def test_inputs_need_compile(engine):
    """Source text given to `run` is compiled with no inputs declared."""
    with pytest.raises(writ.Rejected) as info:
        engine.run("x + 1\n", inputs={"x": 1})
    assert info.value.code == "E1001"
    with pytest.raises(writ.RunError) as info:
        engine.run("1\n", inputs={"x": 1})
    assert info.value.code == "E4008"
    program = engine.compile("x + 1\n", inputs={"x": "Int"})
    assert engine.run(program, inputs={"x": 1}).value == 2
