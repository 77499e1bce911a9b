"""Threads and cancellation: one Engine shared by threads, a Python
capability called from concurrent runs, the GIL released while Writ
runs, and Ctrl-C (KeyboardInterrupt) cancelling a run promptly."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

import writ
from conftest import CONFIRM, LOG, PAY, WEATHER, make_policy

SPIN = "fn spin(n: Int) -> Int { spin(n + 1) }\nspin(0)\n"


@pytest.fixture(autouse=True)
def sigint_to_python():
    """Ctrl-C reaches Python as it does in a terminal, however the tests
    were started: a process started in the background by a shell
    inherits SIGINT ignored, and the package leaves an ignored SIGINT
    alone (as it should), so these tests put Python's own handler back
    for their duration."""
    before = signal.getsignal(signal.SIGINT)
    if before == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    if before == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
LONG = {"fuel": 10**15, "time": "4s"}


def test_one_engine_eight_threads(engine):
    program = engine.compile(
        'Log.info("thread ${t}")\n(t, list.range(0, n) |> list.map(fn(x) { x * t }) |> list.sum)\n',
        inputs={"t": "Int", "n": "Int"},
    )
    results: dict[int, list] = {}
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def work(t: int):
        try:
            start.wait()
            mine = []
            for i in range(20):
                n = 100 + i * 10 + t
                out = engine.run(program, inputs={"t": t, "n": n})
                mine.append((out.value, list(out.output), n))
                # Source text, checked in this thread, as well.
                mine.append((engine.run(f"{t} * {i}\n").value, [], t * i))
            results[t] = mine
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert errors == []
    assert sorted(results) == list(range(8))
    for t, mine in results.items():
        assert len(mine) == 40
        for k, (value, output, n) in enumerate(mine):
            if k % 2 == 0:
                assert value == [t, t * n * (n - 1) // 2]
                assert output == [f"thread {t}"]
            else:
                assert value == n


def test_python_capability_called_from_concurrent_runs(store):
    lock = threading.Lock()
    state = {"active": 0, "most": 0, "calls": 0}

    def high(city):
        with lock:
            state["active"] += 1
            state["most"] = max(state["most"], state["active"])
            state["calls"] += 1
        time.sleep(0.02)  # a slow service; other runs go on meanwhile
        with lock:
            state["active"] -= 1
        return len(city) * 10

    engine = writ.Engine(
        make_policy(LOG, "[grants.Weather]"),
        store=store,
        capabilities={"Weather": writ.Capability(WEATHER, {"high": high}, reads=["high"])},
    )
    program = engine.compile("Weather.high(city) + 1\n", inputs={"city": "Str"})
    cities = ["Oslo", "Rome", "Paris", "Lima", "Bergen", "Kyiv", "Quito", "Hanoi"]
    results: dict[str, list] = {}
    errors: list[BaseException] = []

    def work(city: str):
        try:
            results[city] = [engine.run(program, inputs={"city": city}).value for _ in range(5)]
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(c,)) for c in cities]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert errors == []
    assert results == {c: [len(c) * 10 + 1] * 5 for c in cities}
    assert state["calls"] == 40
    assert state["most"] >= 2, "runs on different threads called the capability at the same time"
    assert engine.verify() == 40  # each call audited, the chain whole


def test_gil_released_while_running(log_policy, store):
    engine = writ.Engine(log_policy, store=store, limits={"fuel": 10**15, "time": "1s"})
    started = threading.Event()
    done = threading.Event()
    outcome: list = []

    def long_run():
        started.set()
        try:
            engine.run(SPIN)
        except BaseException as e:  # noqa: BLE001
            outcome.append(e)
        finally:
            done.set()

    th = threading.Thread(target=long_run)
    th.start()
    started.wait(5)
    count = 0
    t0 = time.monotonic()
    while not done.is_set():
        count += 1
    elapsed = time.monotonic() - t0
    th.join(10)
    assert len(outcome) == 1 and isinstance(outcome[0], writ.LimitExceeded)
    assert outcome[0].limit == "time"
    assert elapsed > 0.5
    # Python ran all along: millions of iterations a second when the GIL is free.
    assert count > 100_000, f"only {count} iterations in {elapsed:.2f}s: the GIL was held"


def test_gil_released_while_checking(log_policy, store):
    """Compiling (checking) a large program lets other threads run too."""
    engine = writ.Engine(log_policy, store=store)
    big = "".join(f"fn f{i}(x: Int) -> Int {{ x + {i} }}\n" for i in range(3000)) + "f1(1)\n"
    done = threading.Event()

    def compile_it():
        try:
            engine.compile(big)
        finally:
            done.set()

    th = threading.Thread(target=compile_it)
    t0 = time.monotonic()
    th.start()
    count = 0
    while not done.is_set():
        count += 1
    elapsed = time.monotonic() - t0
    th.join(30)
    if elapsed > 0.2:  # long enough to tell
        assert count > 10_000 * elapsed


def interrupted(fn, after: float = 0.3):
    """Run `fn` with Ctrl-C (a real SIGINT to the process, from a timer
    thread: `_thread.interrupt_main()` sends no signal, decision 013) sent
    `after` seconds in; return how it ended ("interrupted", or what it returned
    or raised) and how long it took. A KeyboardInterrupt that arrives
    late, wherever it lands here, is caught and reported, never left to
    stop the test session."""
    timer = threading.Timer(after, os.kill, [os.getpid(), signal.SIGINT])
    how: object = None
    elapsed = None
    t0 = time.monotonic()
    try:
        try:
            timer.start()
            try:
                how = ("returned", fn())
            except KeyboardInterrupt:
                how = "interrupted"
            except BaseException as e:  # noqa: BLE001
                how = ("raised", e)
            elapsed = time.monotonic() - t0
            timer.cancel()
            # An interrupt the run did not see is delivered here.
            for _ in range(200):
                time.sleep(0.001)
        except KeyboardInterrupt:
            how = ("late KeyboardInterrupt", how)
    except KeyboardInterrupt:  # landed in the handler above
        how = ("late KeyboardInterrupt", how)
    finally:
        timer.cancel()
    if elapsed is None:
        elapsed = time.monotonic() - t0
    return how, elapsed


def test_ctrl_c_cancels_a_run(log_policy, store):
    engine = writ.Engine(log_policy, store=store, limits=LONG)
    how, elapsed = interrupted(lambda: engine.run(SPIN))
    assert how == "interrupted"
    assert elapsed < 2.0
    # The engine is still usable.
    assert engine.run("1 + 1\n").value == 2
    how, elapsed = interrupted(lambda: engine.run(SPIN))
    assert how == "interrupted" and elapsed < 2.0


def test_ctrl_c_keeps_what_was_done(store):
    engine = writ.Engine(make_policy(LOG, PAY), store=store, limits=LONG)
    src = 'let r = Pay.pay("air-one.example", 100, "before")\n' + SPIN
    how, elapsed = interrupted(lambda: engine.run(src))
    assert how == "interrupted" and elapsed < 2.0
    assert [(r.operation, r.decision) for r in engine.audit()] == [("Pay.pay", "allowed")]
    assert engine.verify() == 1


def test_ctrl_c_cancels_a_start(log_policy, store):
    engine = writ.Engine(log_policy, store=store, limits=LONG)
    how, elapsed = interrupted(lambda: engine.start(SPIN, pause_at=["Log"]))
    assert how == "interrupted" and elapsed < 2.0


def test_ctrl_c_cancels_a_resumed_run(store):
    engine = writ.Engine(make_policy(LOG, CONFIRM), store=store, limits=LONG)
    src = 'fn spin(n: Int) -> Int { spin(n + 1) }\nif Confirm.ask("go?") { spin(0) } else { 0 }\n'
    paused = engine.start(src, pause_at=["Confirm"])
    assert isinstance(paused, writ.Paused)
    how, elapsed = interrupted(lambda: paused.resume(True))
    assert how == "interrupted"
    assert elapsed < 2.0
    # Another run of the same engine is fine afterwards.
    again = engine.start(src, pause_at=["Confirm"])
    assert again.resume(False).value == 0


def test_ctrl_c_cancels_a_plan(store):
    engine = writ.Engine(make_policy(LOG, PAY), store=store, limits=LONG)
    how, elapsed = interrupted(lambda: engine.plan(SPIN))
    assert how == "interrupted" and elapsed < 2.0



def test_ctrl_c_while_a_python_capability_waits(store):
    """Ctrl-C while the run waits in a Python handler (a slow service)
    cancels the run: the KeyboardInterrupt is not a `Fail` the program
    handles and then spins on."""
    calls = []

    def high(city):
        calls.append(city)
        time.sleep(1.0)
        return 1

    engine = writ.Engine(
        make_policy(LOG, "[grants.Weather]"),
        store=store,
        limits=LONG,
        capabilities={"Weather": (WEATHER, {"high": high})},
    )
    src = (
        "fn spin(n: Int) -> Int { spin(n + 1) }\n"
        'let h = handle Weather.high("Oslo") with { Fail.fail(m) => 0 }\n'
        "spin(h)\n"
    )
    how, elapsed = interrupted(lambda: engine.run(src), after=0.2)
    assert how == "interrupted"
    assert elapsed < 2.0
    assert calls == ["Oslo"]


def test_paused_run_resumed_on_another_thread(store):
    engine = writ.Engine(make_policy(LOG, CONFIRM), store=store)
    box: dict = {}
    th = threading.Thread(target=lambda: box.update(p=engine.start('Confirm.ask("x?")\n', pause_at=["Confirm"])))
    th.start()
    th.join(30)
    paused = box["p"]
    assert isinstance(paused, writ.Paused)
    assert paused.operation == "Confirm.ask"
    assert paused.resume(True).value is True


def test_many_paused_runs_at_once(store):
    engine = writ.Engine(make_policy(LOG, CONFIRM), store=store)
    program = engine.compile('if Confirm.ask("n=${n}?") { n } else { -n }\n', inputs={"n": "Int"})
    pauses = [engine.start(program, inputs={"n": n}, pause_at=["Confirm"]) for n in range(1, 11)]
    assert [list(p.args) for p in pauses] == [[f"n={n}?"] for n in range(1, 11)]
    # Replied to in another order than started.
    results = {n: pauses[n - 1].resume(n % 2 == 0).value for n in reversed(range(1, 11))}
    assert results == {n: (n if n % 2 == 0 else -n) for n in range(1, 11)}


def test_nothing_cancelled_after_a_ctrl_c(store):
    """Whatever a Ctrl-C did to the run it stopped, the next runs, pauses
    and plans of the engine (and of another engine) are not cancelled."""
    engine = writ.Engine(make_policy(LOG, CONFIRM), store=store, limits=LONG)
    src = 'fn spin(n: Int) -> Int { spin(n + 1) }\nif Confirm.ask("go?") { spin(0) } else { 0 }\n'
    other = writ.Engine(make_policy(LOG, CONFIRM), store=store)
    waiting = other.start(src, pause_at=["Confirm"])  # paused before the Ctrl-C
    paused = engine.start(src, pause_at=["Confirm"])
    interrupted(lambda: paused.resume(True))
    assert waiting.resume(False).value == 0
    again = engine.start(src, pause_at=["Confirm"])
    assert again.resume(False).value == 0
    assert other.start(src, pause_at=["Confirm"]).resume(False).value == 0
    assert engine.plan("list.range(0, 100000) |> list.length\n").result == "100000"
    interrupted(lambda: engine.run(SPIN))
    assert engine.run("list.range(0, 100000) |> list.sum\n").value == 4999950000
    assert engine.start(src, pause_at=["Confirm"]).resume(False).value == 0
