"""`engine.plan`, `Plan` (its fields, JSON, words) and runs of an
approved plan: the acts carried out once, a plan that does not apply
(E4014), a run that strays from it (E4013), a tampered plan."""

from __future__ import annotations

import hashlib
import json
import sqlite3

import pytest

import writ
from conftest import CONFIRM, LOG, PAY, Weather, make_policy, weather_engine

BOOK = 'let r = Pay.pay("air-one.example", 38900, "flight A1-318")\nLog.info("receipt ${r.id}")\nr.id\n'
WORDS = [
    "It will, in this order (approve all or none):",
    '  1. Pay 389.00 EUR to air-one.example ("flight A1-318")',
    "  In all: 389.00 EUR in 1 payment.",
]


def ledger_rows(path: str) -> int:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT count(*) FROM ledger").fetchone()[0]
    except sqlite3.OperationalError:
        return 0  # no store yet
    finally:
        db.close()


def test_plan_fields(pay_engine, store):
    plan = pay_engine.plan(BOOK)
    assert plan.program == hashlib.sha256(BOOK.encode()).hexdigest()
    assert plan.principal == "ada"
    [act] = plan.acts
    assert act["operation"] == "Pay.pay"
    assert act["arguments"] == ["air-one.example", 38900, "flight A1-318"]
    assert act["decision"] == "allowed"
    assert act["rule"] == "air-one.example is an allowed payee and 389.00 EUR is within the caps"
    assert list(plan.reads) == []
    assert list(plan.log) == ["receipt planned-1"]
    assert plan.result == '"planned-1"'
    assert list(plan.words) == WORDS
    assert ledger_rows(store) == 0  # a plan pays nothing


def test_plan_json_round_trip(pay_engine):
    plan = pay_engine.plan(BOOK)
    text = plan.to_json()
    data = json.loads(text)
    assert data["format"] == 2
    assert isinstance(data["id"], str) and data["id"]  # its own identifier
    assert data["principal"] == "ada"
    assert data["program"] == plan.program
    assert [a["operation"] for a in data["acts"]] == ["Pay.pay"]
    assert data["result"] == {"ok": '"planned-1"'}
    back = writ.Plan.from_json(text)
    assert back.to_json() == text
    assert back.acts == plan.acts
    assert back.principal == plan.principal and back.program == plan.program
    assert list(back.log) == list(plan.log) and back.result == plan.result
    # In words, under the policy that says the currency.
    assert list(writ.Plan.from_json(text, policy=pay_engine.policy).words) == WORDS


def test_approved_run_pays_once(pay_engine, store):
    program = pay_engine.compile(BOOK)
    plan = pay_engine.plan(program)
    out = pay_engine.run(program, approve=plan)
    assert out.value == "pay-1"
    assert list(out.output) == ["receipt pay-1"]
    assert ledger_rows(store) == 1
    pays = [r for r in pay_engine.audit() if r.operation == "Pay.pay"]
    assert len(pays) == 1
    assert pays[0].decision == "allowed"
    assert "as approved in plan" in pays[0].rule
    assert [r.operation for r in pay_engine.audit()].count("Plan.approve") == 1

    with pytest.raises(writ.NotApproved) as info:
        pay_engine.run(program, approve=plan)
    e = info.value
    assert isinstance(e, writ.RunError)
    assert e.code == "E4014"
    assert e.message.startswith("expected a plan not executed before")
    assert ledger_rows(store) == 1
    # The same plan as JSON text is the same plan: executed already.
    with pytest.raises(writ.NotApproved) as info:
        pay_engine.run(program, approve=plan.to_json())
    assert info.value.code == "E4014"
    assert ledger_rows(store) == 1


def test_approve_json_text(pay_engine, store):
    text = pay_engine.plan(BOOK).to_json()
    out = pay_engine.run(BOOK, approve=text)
    assert out.value == "pay-1"
    assert ledger_rows(store) == 1


def test_tampered_plan_refused(pay_engine, store):
    text = pay_engine.plan(BOOK).to_json()
    data = json.loads(text)
    data["acts"][0]["arguments"][1] = 100
    tampered = json.dumps(data)
    edited = text.replace("38900", "38901")  # a changed byte of the text itself
    assert edited != text
    for bad in (tampered, edited, "not json", "{}"):
        with pytest.raises(writ.NotApproved) as info:
            writ.Plan.from_json(bad)
        assert info.value.code == "E4014"
        assert info.value.message.startswith("expected a plan as Engine.plan made it, but this one is not: ")
        with pytest.raises(writ.NotApproved) as info:
            pay_engine.run(BOOK, approve=bad)
        assert info.value.code == "E4014"
    assert ledger_rows(store) == 0
    assert pay_engine.audit() == []  # nothing ran, nothing approved


def test_plan_of_another_program(pay_engine, store):
    plan = pay_engine.plan(BOOK)
    other = BOOK.replace("A1-318", "A1-319")
    with pytest.raises(writ.NotApproved) as info:
        pay_engine.run(other, approve=plan)
    assert info.value.code == "E4014"
    assert ledger_rows(store) == 0


def test_plan_under_another_policy(pay_engine, store):
    plan = pay_engine.plan(BOOK)
    looser = writ.Engine(make_policy(LOG, PAY.replace("50000", "90000")), store=store)
    with pytest.raises(writ.NotApproved) as info:
        looser.run(BOOK, approve=plan)
    assert info.value.code == "E4014"


def test_plan_with_inputs(pay_engine, store):
    program = pay_engine.compile('Pay.pay("air-one.example", cents, "x").cents\n', inputs={"cents": "Int"})
    plan = pay_engine.plan(program, inputs={"cents": 1500})
    assert [a["arguments"] for a in plan.acts] == [["air-one.example", 1500, "x"]]
    with pytest.raises(writ.NotApproved) as info:
        pay_engine.run(program, inputs={"cents": 2500}, approve=plan)
    assert info.value.code == "E4014"
    assert pay_engine.run(program, inputs={"cents": 1500}, approve=plan).value == 1500
    assert ledger_rows(store) == 1


def test_plan_shows_denials(store):
    engine = writ.Engine(make_policy(LOG, PAY + 'on_deny = "fail"\n'), store=store)
    src = 'handle Pay.pay("air-one.example", 60000, "sofa").id with { Fail.fail(m) => "not paid" }\n'
    plan = engine.plan(src)
    assert [(a["operation"], a["decision"]) for a in plan.acts] == [("Pay.pay", "denied")]
    assert plan.result == '"not paid"'
    words = list(plan.words)
    assert words[0] == "It does nothing that needs approving."
    assert words[1].startswith('Denied by the policy (not approvable): Pay.pay("air-one.example", 60000, "sofa"): ')
    assert len(words) == 2


ALERT = 'let h = Weather.high("Oslo")\nWeather.alert("Oslo", if h > 10 { 3 } else { 1 })\n'
ALERT_EXACT = 'let h = Weather.high("Oslo")\nWeather.alert("Oslo", h)\n'


def test_reads_replayed_from_the_plan(store):
    w = Weather({"Oslo": 20})
    engine = weather_engine(store, handler=w, reads=["high"])
    plan = engine.plan(ALERT_EXACT)
    assert [(r["operation"], r["answer"]) for r in plan.reads] == [("Weather.high", 20)]
    assert [(a["operation"], a["arguments"]) for a in plan.acts] == [("Weather.alert", ["Oslo", 20])]
    assert w.calls == [("high", "Oslo")]  # the read performed, the act not
    assert list(plan.words) == [
        "It will, in this order (approve all or none):",
        '  1. Weather.alert("Oslo", 20)',
        "  In all: 1 Weather act.",
        "It read, to decide (1):",
        '  Weather.high("Oslo")',
    ]
    w.highs["Oslo"] = 30
    w.calls.clear()
    out = engine.run(ALERT_EXACT, approve=plan)
    assert out.value is True
    assert w.calls == [("alert", "Oslo", 20)]  # the read answered from the plan
    assert list(out.changed_reads) == []


def test_live_run_that_strays_is_stopped(store):
    w = Weather({"Oslo": 20})
    engine = weather_engine(store, handler=w, reads=["high"])
    plan = engine.plan(ALERT_EXACT)
    w.highs["Oslo"] = 30
    w.calls.clear()
    with pytest.raises(writ.NotApproved) as info:
        engine.run(ALERT_EXACT, approve=plan, live=True)
    e = info.value
    assert e.code == "E4013"
    assert w.calls == [("high", "Oslo")]  # read again; the act never carried out
    denied = [r for r in engine.audit() if r.decision == "denied"]
    assert [r.operation for r in denied] == ["Weather.alert"]


def test_live_run_notes_changed_reads(store):
    w = Weather({"Oslo": 20})
    engine = weather_engine(store, handler=w, reads=["high"])
    plan = engine.plan(ALERT)
    w.highs["Oslo"] = 25
    out = engine.run(ALERT, approve=plan, live=True)
    assert out.value is True
    assert list(out.changed_reads) == ['Weather.high("Oslo") answered otherwise than when the plan was made']


def test_plan_wrong_types(pay_engine):
    with pytest.raises(TypeError):
        pay_engine.run(BOOK, approve=42)  # type: ignore[arg-type]


def test_plan_of_a_run_that_fails_is_still_a_plan(pay_engine, store):
    """A planned run that ends with an error still gives its plan (as
    `writ plan` writes it): what it would do, and how it ended."""
    plan = pay_engine.plan('Pay.pay("air-one.example", 100, "x")\nFail.fail("after paying")\n')
    assert [(a["operation"], a["decision"]) for a in plan.acts] == [("Pay.pay", "allowed")]
    assert plan.result is None
    assert plan.error == "E4003: the program failed: after paying"
    assert json.loads(plan.to_json())["result"] == {"error": "E4003: the program failed: after paying"}
    assert ledger_rows(store) == 0


def test_plan_that_does_nothing(pay_engine):
    plan = pay_engine.plan("1 + 1\n")
    assert list(plan.acts) == [] and list(plan.reads) == []
    assert list(plan.words) == ["It does nothing that needs approving."]
    assert plan.result == "2"
    assert pay_engine.run("1 + 1\n", approve=plan).value == 2
    with pytest.raises(writ.NotApproved):
        pay_engine.run("1 + 1\n", approve=plan)


def test_approved_plan_in_another_engine_on_the_same_store(pay_engine, store):
    text = pay_engine.plan(BOOK).to_json()
    other = writ.Engine(make_policy(LOG, CONFIRM, PAY), store=store)  # pay_engine's policy, made again
    assert other.run(BOOK, approve=writ.Plan.from_json(text)).value == "pay-1"
    with pytest.raises(writ.NotApproved):
        pay_engine.run(BOOK, approve=text)
    assert ledger_rows(store) == 1


def test_the_same_program_planned_again_can_be_approved(pay_engine, store):
    """The person approves today's purchase, and tomorrow's, of the same
    program: a new plan is a new approval, never "executed before"."""
    small = 'Pay.pay("air-one.example", 100, "coffee").id\n'
    first = pay_engine.plan(small)
    assert pay_engine.run(small, approve=first).value == "pay-1"
    second = pay_engine.plan(small)
    assert pay_engine.run(small, approve=second).value == "pay-2"
    with pytest.raises(writ.NotApproved):
        pay_engine.run(small, approve=second)
    assert ledger_rows(store) == 2


# --- a plan's words come from the policy it was made under --------------------------


def test_from_json_refuses_a_policy_other_than_the_plans(pay_engine):
    text = pay_engine.plan(BOOK).to_json()
    usd = make_policy(LOG, CONFIRM, PAY.replace('"EUR"', '"USD"'))
    with pytest.raises(writ.NotApproved) as info:
        writ.Plan.from_json(text, policy=usd)
    e = info.value
    assert e.code == "E4014"
    assert e.message == (
        "expected a plan made under this policy, found one made under another (or this one since changed)"
    )
    assert (e.outcome, e.limit) == (None, None)
    # Never words of another currency.
    assert "USD" not in str(e) and "USD" not in e.rendered
    # The policy it was made under (the same text, read again) makes its words.
    same = make_policy(LOG, CONFIRM, PAY)
    assert list(writ.Plan.from_json(text, policy=same).words) == WORDS
    assert list(writ.Plan.from_json(text, policy=pay_engine).words) == WORDS
    # Without a policy there are no words, and nothing is refused.
    assert list(writ.Plan.from_json(text).words) == []


def test_from_json_of_a_plan_made_by_an_engine_with_limits_of_its_own(store):
    policy = make_policy(LOG, CONFIRM, PAY)
    engine = writ.Engine(policy, store=store, limits={"fuel": 10**6})
    text = engine.plan(BOOK).to_json()
    # The engine's policy is not the one given: its limits differ.
    with pytest.raises(writ.NotApproved):
        writ.Plan.from_json(text, policy=policy)
    back = writ.Plan.from_json(text, policy=engine)
    assert list(back.words) == WORDS
    assert engine.run(BOOK, approve=back).value == "pay-1"


def test_from_json_of_a_plan_with_a_capability_of_the_embedders(store):
    engine = weather_engine(store, extra=(LOG,))
    src = 'Weather.alert("Oslo", 3)\n'
    text = engine.plan(src).to_json()
    back = writ.Plan.from_json(text, policy=engine.policy)
    assert back.words[0] == "It will, in this order (approve all or none):"
    assert engine.run(src, approve=back).value is True


def test_from_json_policy_of_another_type(pay_engine):
    text = pay_engine.plan(BOOK).to_json()
    with pytest.raises(TypeError):
        writ.Plan.from_json(text, policy="policy.toml")  # type: ignore[arg-type]


# --- NotApproved is a RunError, with its attributes ------------------------------------


@pytest.mark.parametrize("bad", ["{x", "not json", "{}", '{"format": 2}'])
def test_not_approved_of_a_malformed_plan_has_outcome_and_limit(pay_engine, bad):
    for call in (lambda: writ.Plan.from_json(bad), lambda: pay_engine.run(BOOK, approve=bad)):
        with pytest.raises(writ.NotApproved) as info:
            call()
        e = info.value
        assert isinstance(e, writ.RunError)
        assert e.code == "E4014"
        assert e.outcome is None
        assert e.limit is None
