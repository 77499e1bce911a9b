"""`engine.start` / `Paused` / `Done`: pausing at operations, replying
(resume, carry_out, fail, refuse), saving (`dump`) and loading (`load`)
a paused run, and refusing damaged or replayed snapshots."""

from __future__ import annotations

import pytest

import writ
from conftest import CONFIRM, LOG, PAY, make_policy, outcome_of, weather_engine

BOOK = 'Log.info("found a flight")\nif Confirm.ask("Book it?") { "booked" } else { "not booked" }\n'
BOOK_HANDLED = (
    'Log.info("found a flight")\n'
    'let ok = handle Confirm.ask("Book it?") with {\n'
    '  Fail.fail(m) => { Log.info("failed: ${m}")\n false },\n'
    "}\n"
    'if ok { "booked" } else { "not booked" }\n'
)


@pytest.fixture
def confirm_engine(store):
    return writ.Engine(make_policy(LOG, CONFIRM), store=store)


def _paused(engine, src=BOOK, **kw) -> writ.Paused:
    step = engine.start(src, pause_at=["Confirm"], **kw)
    assert isinstance(step, writ.Paused), step
    return step


def test_paused_fields(confirm_engine):
    p = _paused(confirm_engine)
    assert p.capability == "Confirm"
    assert p.operation == "Confirm.ask"
    assert p.kind == "read"
    assert list(p.args) == ["Book it?"]
    assert p.arguments == '"Book it?"'
    assert p.rule == "granted"
    assert list(p.output) == ["found a flight"]
    assert [(o.operation, o.decision) for o in p.operations] == [("Log.info", "allowed")]


def test_resume_with_an_answer(confirm_engine):
    done = _paused(confirm_engine).resume(True)
    assert isinstance(done, writ.Done)
    assert done.value == "booked"
    assert list(done.output) == ["found a flight"]
    assert done.outcome.value == "booked"
    assert done.outcome.display == '"booked"'
    assert [o.operation for o in done.outcome.operations] == ["Log.info", "Confirm.ask"]
    assert "answered by the host" in done.outcome.operations[-1].rule
    assert _paused(confirm_engine).resume(False).value == "not booked"


def test_carry_out_asks_the_confirm_callback(store):
    asked = []
    engine = writ.Engine(make_policy(LOG, CONFIRM), store=store, confirm=lambda q: asked.append(q) or True)
    done = _paused(engine).carry_out()
    assert isinstance(done, writ.Done)
    assert done.value == "booked"
    assert asked == ["Book it?"]


def test_fail_reply(confirm_engine):
    done = _paused(confirm_engine, BOOK_HANDLED).fail("the line is down")
    assert isinstance(done, writ.Done)
    assert done.value == "not booked"
    assert list(done.output) == ["found a flight", "failed: the line is down"]
    with pytest.raises(writ.RunError) as info:
        _paused(confirm_engine).fail("the line is down")
    assert info.value.code == "E4003"
    assert "the line is down" in info.value.message


def test_refuse_reply(confirm_engine, store):
    with pytest.raises(writ.Denied) as info:
        _paused(confirm_engine).refuse("not now")
    assert info.value.code == "E4005"
    assert "not now" in info.value.message
    denied = [r for r in confirm_engine.audit() if r.decision == "denied"]
    assert [r.operation for r in denied] == ["Confirm.ask"]
    assert "refused by the host: not now" in denied[0].rule

    lenient = writ.Engine(make_policy(LOG, CONFIRM + '\non_deny = "fail"'), store=store)
    done = _paused(lenient, BOOK_HANDLED).refuse("not now")
    assert done.value == "not booked"
    assert list(done.output)[0] == "found a flight"
    assert len(done.output) == 2 and done.output[1].startswith("failed: ") and "not now" in done.output[1]


def test_answer_of_the_wrong_type_keeps_the_run_pending(confirm_engine):
    p = _paused(confirm_engine)
    with pytest.raises(writ.RunError) as info:
        p.resume(1)
    assert info.value.code == "E4010"
    assert info.value.message == "Confirm.ask: expected Bool, found 1"
    # Still pending: reply again.
    assert p.resume(True).value == "booked"


def test_a_paused_run_replies_once(confirm_engine):
    p = _paused(confirm_engine)
    assert p.resume(True).value == "booked"
    with pytest.raises((writ.WritError, RuntimeError, ValueError)):
        p.resume(False)
    with pytest.raises((writ.WritError, RuntimeError, ValueError)):
        p.dump()


def test_default_pauses_at_every_operation(confirm_engine):
    step = confirm_engine.start(BOOK)
    assert isinstance(step, writ.Paused)
    assert (step.operation, list(step.args), step.kind) == ("Log.info", ["found a flight"], "read")
    step = step.carry_out()
    assert isinstance(step, writ.Paused)
    assert step.operation == "Confirm.ask"
    assert list(step.output) == ["found a flight"]
    done = step.resume(False)
    assert done.value == "not booked"


def test_start_of_a_program_without_operations(confirm_engine):
    done = confirm_engine.start("1 + 2\n")
    assert isinstance(done, writ.Done)
    assert done.value == 3
    assert done.outcome.value == 3
    assert list(done.output) == []


def test_start_with_inputs(confirm_engine):
    program = confirm_engine.compile('if Confirm.ask("Pay ${n}?") { n } else { 0 }\n', inputs={"n": "Int"})
    p = confirm_engine.start(program, inputs={"n": 7}, pause_at=["Confirm.ask"])
    assert list(p.args) == ["Pay 7?"]
    assert p.resume(True).value == 7
    with pytest.raises(writ.RunError) as info:
        confirm_engine.start(program, inputs={"n": "7"})
    assert info.value.code == "E4007"


def test_unknown_pause_point(confirm_engine):
    with pytest.raises(writ.RunError) as info:
        confirm_engine.start(BOOK, pause_at=["Teleport"])
    assert info.value.code == "E4011"


def test_pay_is_carried_out_not_answered(store):
    engine = writ.Engine(make_policy(LOG, PAY), store=store)
    p = engine.start('Pay.pay("air-one.example", 1200, "pen").id\n', pause_at=["Pay"])
    assert (p.operation, p.kind) == ("Pay.pay", "act")
    assert p.arguments == '"air-one.example", 1200, "pen"'
    assert list(p.args) == ["air-one.example", 1200, "pen"]
    with pytest.raises(writ.RunError) as info:
        p.resume({"id": "fake", "payee": "air-one.example", "cents": 1200, "currency": "EUR"})
    assert info.value.code == "E4010"
    done = p.carry_out()
    assert done.value == "pay-1"


def test_pause_at_a_python_capability(store):
    from conftest import Weather

    w = Weather()
    engine = weather_engine(store, handler=w, reads=["high"])
    p = engine.start('let h = Weather.high("Oslo")\nWeather.alert("Oslo", h)\n', pause_at=["Weather"])
    assert (p.capability, p.operation, p.kind, list(p.args)) == ("Weather", "Weather.high", "read", ["Oslo"])
    p2 = p.resume(25)
    assert w.calls == []  # answered by the host, not by the handler
    assert (p2.operation, p2.kind, list(p2.args)) == ("Weather.alert", "act", ["Oslo", 25])
    done = p2.carry_out()
    assert done.value is True
    assert w.calls == [("alert", "Oslo", 25)]
    p = engine.start('Weather.report("Oslo", 2)\n', pause_at=["Weather.report"])
    with pytest.raises(writ.RunError) as info:
        p.resume({"city": "Oslo"})
    assert info.value.code == "E4010"


def test_answer_a_record_whose_fields_the_program_never_names(store):
    engine = weather_engine(store)
    p = engine.start('Weather.report("Oslo", 2)\n', pause_at=["Weather.report"])
    done = p.resume({"city": "Oslo", "highs": [1, 2]})
    assert done.value == {"city": "Oslo", "highs": [1, 2]}


# --- snapshots ----------------------------------------------------------------------


def test_dump_and_load(confirm_engine):
    program = confirm_engine.compile(BOOK)
    data = _paused(confirm_engine, program).dump()
    assert isinstance(data, bytes) and len(data) > 0
    p = confirm_engine.load(program, data)
    assert isinstance(p, writ.Paused)
    assert p.operation == "Confirm.ask"
    assert list(p.output) == ["found a flight"]
    done = p.resume(False)
    assert done.value == "not booked"
    assert list(done.output) == ["found a flight"]


def test_load_in_another_engine_on_the_same_store(store):
    policy = make_policy(LOG, CONFIRM)
    first = writ.Engine(policy, store=store)
    data = _paused(first).dump()
    second = writ.Engine(make_policy(LOG, CONFIRM), store=store)
    p = second.load(BOOK, data)
    assert p.resume(True).value == "booked"


def test_snapshot_resumes_once(confirm_engine):
    program = confirm_engine.compile(BOOK)
    data = _paused(confirm_engine, program).dump()
    # Loaded and dropped unanswered: it can be loaded again.
    unanswered = confirm_engine.load(program, data)
    assert unanswered.operation == "Confirm.ask"
    del unanswered
    p = confirm_engine.load(program, data)
    assert p.resume(True).value == "booked"
    with pytest.raises(writ.SnapshotError) as info:
        confirm_engine.load(program, data)
    e = info.value
    assert isinstance(e, writ.RunError)
    assert e.code == "E4009"


@pytest.mark.parametrize("where", ["start", "middle", "end"])
def test_damaged_snapshot(confirm_engine, where):
    program = confirm_engine.compile(BOOK)
    data = bytearray(_paused(confirm_engine, program).dump())
    i = {"start": 0, "middle": len(data) // 2, "end": len(data) - 1}[where]
    data[i] ^= 0x01
    with pytest.raises(writ.SnapshotError) as info:
        confirm_engine.load(program, bytes(data))
    assert info.value.code == "E4009"
    # The intact snapshot still loads: the damaged one used nothing.


def test_truncated_and_foreign_bytes(confirm_engine):
    program = confirm_engine.compile(BOOK)
    data = _paused(confirm_engine, program).dump()
    for bad in (data[: len(data) // 2], b"", b"not a snapshot", data + b"\x00"):
        with pytest.raises(writ.SnapshotError) as info:
            confirm_engine.load(program, bad)
        assert info.value.code == "E4009"
    assert confirm_engine.load(program, data).resume(True).value == "booked"


def test_snapshot_of_another_program(confirm_engine):
    data = _paused(confirm_engine).dump()
    other = BOOK.replace("booked", "reserved")
    with pytest.raises(writ.SnapshotError) as info:
        confirm_engine.load(other, data)
    assert info.value.code == "E4009"


def test_snapshot_of_another_store(confirm_engine, tmp_path):
    data = _paused(confirm_engine).dump()
    elsewhere = writ.Engine(make_policy(LOG, CONFIRM), store=str(tmp_path / "elsewhere.db"))
    with pytest.raises(writ.SnapshotError) as info:
        elsewhere.load(BOOK, data)
    assert info.value.code == "E4009"


def test_load_wrong_type(confirm_engine):
    with pytest.raises(TypeError):
        confirm_engine.load(BOOK, "not bytes")  # type: ignore[arg-type]


def test_load_with_pause_at(confirm_engine):
    src = 'Log.info("a")\nif Confirm.ask("x") {\n  Log.info("b")\n  1\n} else { 0 }\n'
    data = _paused(confirm_engine, src).dump()
    p = confirm_engine.load(src, data, pause_at=["Log"])
    assert p.operation == "Confirm.ask"  # where it was saved
    p = p.resume(True)
    assert (p.operation, list(p.args)) == ("Log.info", ["b"])
    done = p.carry_out()
    assert done.value == 1
    assert list(done.output) == ["a", "b"]


def test_a_saved_run_is_carried_on_once(store):
    """A paused run saved with `dump` goes on once: from the original or
    from the snapshot, never both (so nothing is paid twice)."""
    engine = writ.Engine(make_policy(LOG, CONFIRM, PAY), store=store)
    src = 'if Confirm.ask("pay?") { Pay.pay("air-one.example", 100, "x").id } else { "no" }\n'
    p = engine.start(src, pause_at=["Confirm"])
    data = p.dump()
    assert p.resume(True).value == "pay-1"
    with pytest.raises(writ.SnapshotError) as info:
        q = engine.load(src, data, pause_at=["Confirm"])
        q.resume(True)
    assert info.value.code == "E4009"
    pays = [r for r in engine.audit() if r.operation == "Pay.pay" and r.decision == "allowed"]
    assert len(pays) == 1


def test_limits_carry_across_a_pause(store):
    engine = writ.Engine(make_policy(LOG, CONFIRM), store=store, limits={"fuel": 20_000})
    src = 'fn spin(n: Int) -> Int { spin(n + 1) }\nif Confirm.ask("go?") { spin(0) } else { 0 }\n'
    p = engine.start(src, pause_at=["Confirm"])
    assert p.resume(False).value == 0
    p = engine.start(src, pause_at=["Confirm"])
    with pytest.raises(writ.LimitExceeded) as info:
        p.resume(True)
    assert info.value.limit == "fuel"
    assert info.value.code == "E5001"
    with pytest.raises(writ.LimitExceeded):
        engine.start("fn spin(n: Int) -> Int { spin(n + 1) }\nspin(0)\n")


# --- a loaded run pauses where it was started to pause ---------------------------------------


LOG_CONFIRM_LOG = 'Log.info("a")\nif Confirm.ask("x") {\n  Log.info("b")\n  1\n} else { 0 }\n'


def test_load_keeps_the_pause_at_the_run_was_started_with(confirm_engine):
    data = _paused(confirm_engine, LOG_CONFIRM_LOG).dump()
    p = confirm_engine.load(LOG_CONFIRM_LOG, data)
    assert p.operation == "Confirm.ask"
    # Not paused at `Log.info("b")`: the run was started to pause at Confirm only.
    done = p.resume(True)
    assert isinstance(done, writ.Done)
    assert done.value == 1
    assert list(done.output) == ["a", "b"]


def test_load_keeps_a_pause_at_every_operation(confirm_engine):
    step = confirm_engine.start(LOG_CONFIRM_LOG)  # every operation
    assert step.operation == "Log.info"
    step = step.carry_out()
    data = step.dump()
    p = confirm_engine.load(LOG_CONFIRM_LOG, data)
    assert p.operation == "Confirm.ask"
    p = p.resume(True)
    assert (p.operation, list(p.args)) == ("Log.info", ["b"])
    assert p.carry_out().value == 1


def test_load_keeps_a_pause_at_one_operation(store):
    engine = writ.Engine(make_policy(LOG, CONFIRM), store=store)
    src = 'Log.info("a")\nlet x = Confirm.ask("x")\nLog.info("b")\nif Confirm.ask("y") { 1 } else { 0 }\n'
    step = engine.start(src, pause_at=["Confirm.ask"])
    data = step.dump()
    p = engine.load(src, data)
    p = p.resume(True)
    assert (p.operation, list(p.args), list(p.output)) == ("Confirm.ask", ["y"], ["a", "b"])


def test_a_changed_pause_at_is_refused(store):
    engine = writ.Engine(make_policy(LOG, CONFIRM, PAY), store=store)
    data = _paused(engine, LOG_CONFIRM_LOG).dump()
    named = b"\x07\x00\x00\x00Confirm"
    assert data.count(named) == 1
    # Another capability's name of the same length, the seal left as it was.
    changed = data.replace(named, b"\x07\x00\x00\x00Records")
    with pytest.raises(writ.SnapshotError) as info:
        engine.load(LOG_CONFIRM_LOG, changed)
    assert info.value.code == "E4009"
    assert "a seal that does not match" in info.value.message
    # An explicit pause_at does not let changed bytes through either.
    with pytest.raises(writ.SnapshotError):
        engine.load(LOG_CONFIRM_LOG, changed, pause_at=["Confirm"])
    assert engine.load(LOG_CONFIRM_LOG, data).resume(False).value == 0


# --- what a host may answer itself -------------------------------------------------------


@pytest.mark.parametrize(
    "src, grant, operation",
    [
        ('Log.info("x")\n', LOG, "Log.info"),
        ('Audit.note("x")\n', "[grants.Audit]", "Audit.note"),
        ("Records.list()\n", '[grants.Records]\nscope = "self"', "Records.list"),
        ('Records.read("ada")\n', '[grants.Records]\nscope = "self"', "Records.read"),
        ('Pay.pay("air-one.example", 100, "x")\n', PAY, "Pay.pay"),
    ],
)
def test_operations_the_engine_carries_out_cannot_be_answered(store, src, grant, operation):
    engine = writ.Engine(make_policy(grant), store=store)
    p = engine.start(src)
    assert p.operation == operation
    with pytest.raises(writ.RunError) as info:
        p.resume(None)
    assert info.value.code == "E4010"
    assert info.value.message == (
        f"{operation} is carried out by the engine only (the store or the run holds what it does)"
    )
    # Still paused there: the engine carries it out.
    outcome_of(p.carry_out)


@pytest.mark.parametrize(
    "src, grant, answer, value",
    [
        ("Clock.now()\n", "[grants.Clock]", 1234, 1234),
        ('Confirm.ask("x")\n', CONFIRM, True, True),
        ('Http.get("https://a.example/")\n', '[grants.Http]\nallow = ["https://a.example/"]', "page", "page"),
    ],
)
def test_operations_a_host_may_answer(store, src, grant, answer, value):
    engine = writ.Engine(make_policy(grant), store=store)
    assert engine.start(src).resume(answer).value == value
