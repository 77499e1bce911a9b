"""Capabilities written in Python (`writ.Capability`, or an
`(interface, handler)` pair): the handler forms, arguments and results
converted by the declared types, a handler that raises, returns the wrong
type or raises `writ.Refuse`, `on_error`, and `reads`."""

from __future__ import annotations

import pytest

import writ
from conftest import CONFIRM, LOG, WEATHER, Weather, make_policy, outcome_of, weather_engine

CATCH = 'handle {{ {expr} }} with {{ Fail.fail(m) => "failed: ${{m}}", return(x) => "ok: ${{x}}" }}\n'


def test_capability_attributes():
    cap = writ.Capability(WEATHER, Weather(), reads=["high", "report"], on_error="deny")
    assert cap.interface == WEATHER
    assert list(cap.reads) == ["high", "report"]
    assert cap.on_error == "deny"
    plain = writ.Capability(WEATHER, Weather())
    assert list(plain.reads) == []
    assert plain.on_error == "fail"


def test_capability_bad_on_error():
    with pytest.raises(ValueError):
        writ.Capability(WEATHER, Weather(), on_error="explode")  # type: ignore[arg-type]


def test_object_handler(store):
    w = Weather()
    e = weather_engine(store, handler=w)
    out = e.run('Weather.high("Oslo") + 1\n')
    assert out.value == -2
    assert w.calls == [("high", "Oslo")]
    [op] = out.operations
    assert (op.operation, op.arguments, op.decision) == ("Weather.high", '"Oslo"', "allowed")
    assert isinstance(op.audit_id, int)
    assert list(out.audit_ids) == [op.audit_id]


def test_callable_handler(store):
    calls = []

    def handler(op, *args):
        calls.append((op, *args))
        return 20 if op == "high" else True

    e = weather_engine(store, handler=handler)
    out = e.run('(Weather.high("Rome"), Weather.alert("Rome", 3))\n')
    assert out.value == [20, True]
    assert calls == [("high", "Rome"), ("alert", "Rome", 3)]


def test_record_result_whose_fields_the_program_never_names(store):
    """A record the handler returns is the program's value as it is, even
    when the program never names its fields."""
    e = weather_engine(store)
    out = e.run('Weather.report("Rome", 2)\n')
    assert out.value == {"city": "Rome", "highs": [18, 19]}
    assert out.display == '{ city: "Rome", highs: [18, 19] }'


def test_dict_handler(store):
    e = weather_engine(store, handler={"high": lambda city: len(city), "alert": lambda city, level: False})
    assert e.run('Weather.high("Paris")\n').value == 5
    assert e.run('Weather.alert("Paris", 1)\n').value is False


def test_tuple_form(store):
    policy = make_policy(LOG, "[grants.Weather]")
    e = writ.Engine(policy, store=store, capabilities={"Weather": (WEATHER, Weather())})
    assert e.run('Weather.high("Rome") * 2\n').value == 36


def test_arguments_and_results_converted(store):
    iface = (
        "effect Trips {\n"
        "  fn plan(trip: { city: Str, days: Int, budget: Float }, tags: List[Str], note: Option[Str]) -> Option[{ id: Str, legs: List[(Str, Int)] }]\n"
        "  fn none_found(city: Str) -> Option[Int]\n"
        "}\n"
    )
    seen = []

    def plan(trip, tags, note):
        seen.append((trip, tags, note))
        return {"id": f"{trip['city']}-{trip['days']}", "legs": [[tags[0], 1], ("b", 2)]}

    handler = {"plan": plan, "none_found": lambda city: None}
    e = writ.Engine(
        make_policy(LOG, "[grants.Trips]"),
        store=store,
        capabilities={"Trips": writ.Capability(iface, handler)},
    )
    src = (
        'let r = Trips.plan({ city: "Rome", days: 3, budget: 2.5 }, ["a", "z"], None)\n'
        'let n = Trips.none_found("x")\n'
        "(r, n, match r { Some(t) => list.length(t.legs), None => 0 })\n"
    )
    out = e.run(src)
    assert seen == [({"city": "Rome", "days": 3, "budget": 2.5}, ["a", "z"], None)]
    assert out.value == [{"id": "Rome-3", "legs": [["a", 1], ["b", 2]]}, None, 2]


def test_raising_handler_is_fail_the_program_handles(store):
    e = weather_engine(store)  # on_error="fail"
    out = e.run(CATCH.format(expr='Weather.high("Paris")'))
    assert out.value == "failed: Weather.high raised LookupError: no forecast for Paris"
    # Allowed (the policy allowed it), but it failed at the host: not a denial.
    [op] = out.operations
    assert op.operation == "Weather.high"
    assert op.decision == "allowed"


def test_raising_handler_unhandled_ends_the_run(store):
    e = weather_engine(store)
    with pytest.raises(writ.RunError) as info:
        e.run('Log.info("asking")\nWeather.high("Paris")\n')
    err = info.value
    assert err.code == "E4003"
    assert err.message == "the program failed: Weather.high raised LookupError: no forecast for Paris"
    assert list(err.outcome.output) == ["asking"]
    # The engine still works afterwards.
    assert e.run('Weather.high("Oslo")\n').value == -3


def test_exception_type_and_message_reach_the_program(store):
    def handler(op, *args):
        raise ValueError("the sky fell")

    e = weather_engine(store, handler=handler)
    out = e.run(CATCH.format(expr='Weather.high("Oslo")'))
    assert "the sky fell" in out.value


def test_wrong_result_type_is_fail(store):
    e = weather_engine(store, handler={"high": lambda city: "hot", "report": lambda c, d: {"city": c, "highs": [1], "extra": 1}})
    out = e.run(CATCH.format(expr='Weather.high("Oslo")'))
    assert out.value == 'failed: Weather.high: expected Int, found "hot"'
    out = e.run(CATCH.format(expr='Weather.report("Oslo", 1).city'))
    assert out.value == "failed: Weather.report: expected the fields city, highs, found the field `extra` too"
    with pytest.raises(writ.RunError) as info:
        e.run('Weather.high("Oslo") + 1\n')
    assert info.value.code == "E4003"


def test_wrong_result_type_none_and_bool(store):
    e = weather_engine(store, handler={"high": lambda city: None, "alert": lambda c, l: 1})
    assert e.run(CATCH.format(expr='Weather.high("Oslo")')).value == "failed: Weather.high: expected Int, found null"
    assert e.run(CATCH.format(expr='Weather.alert("Oslo", 1)')).value == "failed: Weather.alert: expected Bool, found 1"
    e = weather_engine(store, handler={"high": lambda city: True})
    assert e.run(CATCH.format(expr='Weather.high("Oslo")')).value == "failed: Weather.high: expected Int, found true"


def test_missing_operation_in_handler_is_fail(store):
    e = weather_engine(store, handler={"high": lambda city: 1})
    out = e.run(CATCH.format(expr='Weather.alert("Oslo", 1)'))
    assert out.value.startswith("failed: ")


def test_on_error_deny_stops_with_on_deny_stop(store):
    e = weather_engine(store, on_error="deny", grant='[grants.Weather]\non_deny = "stop"')
    with pytest.raises(writ.Denied) as info:
        e.run('Weather.high("Paris")\n')
    err = info.value
    assert err.code == "E4005"
    assert err.message == 'Weather.high("Paris") was denied: Weather.high raised LookupError: no forecast for Paris'
    last = err.outcome.operations[-1]
    assert (last.operation, last.decision) == ("Weather.high", "denied")
    assert last.rule == "Weather.high raised LookupError: no forecast for Paris"
    denied = [r for r in e.audit() if r.decision == "denied"]
    assert [(r.operation, r.arguments) for r in denied] == [("Weather.high", '"Paris"')]
    assert "no forecast for Paris" in denied[0].rule


def test_on_error_deny_with_on_deny_fail(store):
    e = weather_engine(store, on_error="deny", grant='[grants.Weather]\non_deny = "fail"')
    out = e.run(CATCH.format(expr='Weather.high("Paris")'))
    assert out.value.startswith("failed: ")
    assert "no forecast for Paris" in out.value
    # Written ahead as allowed before the handler ran, then its denial.
    assert [(o.operation, o.decision) for o in out.operations] == [("Weather.high", "allowed"), ("Weather.high", "denied")]
    assert [r.decision for r in e.audit()] == ["allowed", "denied"]


def test_refuse_always_denies(store):
    def handler(op, *args):
        raise writ.Refuse("closed today")

    for on_error in ("fail", "deny"):
        e = weather_engine(store, handler=handler, on_error=on_error)
        with pytest.raises(writ.Denied) as info:
            e.run('Weather.high("Oslo")\n')
        assert info.value.code == "E4005"
        assert info.value.message == 'Weather.high("Oslo") was denied: closed today'
        assert info.value.outcome.operations[-1].decision == "denied"
        assert info.value.outcome.operations[-1].rule == "closed today"


def test_refuse_with_on_deny_fail(store):
    def handler(op, *args):
        raise writ.Refuse("closed today")

    e = weather_engine(store, handler=handler, grant='[grants.Weather]\non_deny = "fail"')
    out = e.run(CATCH.format(expr='Weather.high("Oslo")'))
    assert out.value.startswith("failed: ") and "closed today" in out.value
    assert [o.decision for o in out.operations] == ["allowed", "denied"]


def test_refuse_is_an_exception():
    r = writ.Refuse("because")
    assert isinstance(r, Exception)
    assert str(r) == "because"


def test_reads_declared(store):
    e = weather_engine(store, reads=["high"])
    plan = e.plan('let h = Weather.high("Oslo")\nWeather.alert("Oslo", h)\n')
    assert [r["operation"] for r in plan.reads] == ["Weather.high"]
    assert [a["operation"] for a in plan.acts] == ["Weather.alert"]
    e2 = weather_engine(store, reads=[])
    plan2 = e2.plan('let h = Weather.high("Oslo")\nWeather.alert("Oslo", h)\n')
    assert [r["operation"] for r in plan2.reads] == []
    assert [a["operation"] for a in plan2.acts] == ["Weather.high", "Weather.alert"]


def test_reads_unknown_operation_refused(store):
    with pytest.raises((ValueError, writ.WritError)):
        weather_engine(store, reads=["snow"])


def test_interface_that_does_not_parse(store):
    with pytest.raises((ValueError, writ.WritError)):
        writ.Engine(
            make_policy(LOG, "[grants.Weather]"),
            store=store,
            capabilities={"Weather": ("effect Weather { fn high(city: Str) -> }", Weather())},
        )


def test_interface_of_another_name(store):
    with pytest.raises((ValueError, writ.WritError)):
        writ.Engine(
            make_policy(LOG, "[grants.Weather]"),
            store=store,
            capabilities={"Weather": (WEATHER.replace("effect Weather", "effect Forecast"), Weather())},
        )


def test_capability_not_granted(store):
    policy = make_policy(LOG)
    e = writ.Engine(policy, store=store, capabilities={"Weather": (WEATHER, Weather())})
    with pytest.raises(writ.Rejected) as info:
        e.compile('Weather.high("Oslo")\n')
    assert info.value.code == "E3002"


def test_program_reaches_python_only_through_the_capability(store):
    w = Weather()
    e = weather_engine(store, handler=w)
    out = e.run('list.map(["Oslo", "Rome", "Oslo"], fn(c) { Weather.high(c) })\n')
    assert out.value == [-3, 18, -3]
    assert w.calls == [("high", "Oslo"), ("high", "Rome"), ("high", "Oslo")]
    assert len(out.audit_ids) == 3


def test_system_exit_in_a_handler_propagates(store):
    """SystemExit and KeyboardInterrupt are not errors of the handler's
    service: they are not turned into a `Fail` the program could catch."""

    def handler(op, *args):
        raise SystemExit(3)

    e = weather_engine(store, handler=handler)
    how, raised = outcome_of(lambda: e.run(CATCH.format(expr='Weather.high("Oslo")')))
    assert how == "raised" and type(raised) is SystemExit, raised
    assert raised.code == 3


def test_keyboard_interrupt_in_a_handler_propagates(store):
    def handler(op, *args):
        raise KeyboardInterrupt

    e = weather_engine(store, handler=handler)
    how, raised = outcome_of(lambda: e.run(CATCH.format(expr='Weather.high("Oslo")')))
    assert how == "raised" and type(raised) is KeyboardInterrupt, raised
    assert e.run('1 + 1\n').value == 2


def test_handler_may_run_another_program(store):
    holder = {}

    def high(city):
        return holder["engine"].run("40 + 2\n").value

    e = weather_engine(store, handler={"high": high})
    holder["engine"] = e
    assert e.run('Weather.high("x") + 1\n').value == 43


def test_deep_result_is_fail_not_a_crash(store):
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    e = weather_engine(store, handler={"report": lambda c, d: {"city": c, "highs": deep}})
    out = e.run(CATCH.format(expr='Weather.report("Oslo", 1).city'))
    assert out.value.startswith("failed: ")


def test_identity_handler_round_trips_every_float(store):
    """Whatever form a non-finite Float takes in Python (the mapping's
    "NaN"/"Infinity" or a float), a handler that gives back what it was
    given gives the program the same Float."""
    iface = "effect Svc {\n  fn same(x: Float) -> Float\n}\n"
    seen = []

    def same(x):
        seen.append(x)
        return x

    e = writ.Engine(make_policy(LOG, "[grants.Svc]"), store=store, capabilities={"Svc": (iface, {"same": same})})
    src = (
        "let nan = Svc.same(0.0 / 0.0)\n"
        "let inf = Svc.same(1.0 / 0.0)\n"
        "let minus = Svc.same(-1.0 / 0.0)\n"
        "(nan != nan, inf > 1.0e308, minus < -1.0e308, Svc.same(1.5))\n"
    )
    assert e.run(src).value == [True, True, True, 1.5]
    assert len(seen) == 4


def test_python_non_finite_floats_are_floats(store):
    iface = "effect Svc {\n  fn big() -> Float\n}\n"
    e = writ.Engine(make_policy(LOG, "[grants.Svc]"), store=store, capabilities={"Svc": (iface, lambda op: float("inf"))})
    assert e.run("Svc.big() > 1.0e308\n").value is True


def test_capability_named_like_a_built_in_refused(store):
    with pytest.raises((ValueError, writ.WritError)):
        writ.Engine(
            make_policy(LOG),
            store=store,
            capabilities={"Log": ("effect Log { fn info(s: Str) -> Unit }", lambda op, *a: None)},
        )


def test_bad_capability_values(store):
    for bad in (42, (WEATHER,), (WEATHER, Weather(), "extra")):
        with pytest.raises(TypeError):
            writ.Engine(make_policy(LOG, "[grants.Weather]"), store=store, capabilities={"Weather": bad})


def test_confirm_must_be_callable(store):
    with pytest.raises(TypeError):
        writ.Engine(make_policy(LOG, CONFIRM), store=store, confirm=42)  # type: ignore[arg-type]


def test_slow_handler_meets_the_time_limit(store):
    import time

    def high(city):
        time.sleep(0.6)
        return 1

    e = writ.Engine(
        make_policy(LOG, "[grants.Weather]"),
        store=store,
        limits={"time": "200ms"},
        capabilities={"Weather": (WEATHER, {"high": high})},
    )
    with pytest.raises(writ.LimitExceeded) as info:
        e.run('Weather.high("x")\n')
    assert info.value.limit == "time"
    assert info.value.code == "E5005"
