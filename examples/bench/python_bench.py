#!/usr/bin/env python3
"""The Python package's figures, beside pydantic-monty's where it is installed.

    python examples/bench/python_bench.py [--rounds 15] [--calls 10000] [--no-monty]

Each figure is the median over `--rounds` rounds of the time per operation
in a round (a round repeats the operation many times). Measured in one
process, with `time.perf_counter`:

- `Engine(...)`: making an engine for a policy (its store not yet opened),
  with the host's capabilities alone and with one of Python's;
- compile + run of `1 + 1` on an existing engine (`engine.run(source)`),
  and each half alone (`engine.compile`, `engine.run(program)`); the same
  on an engine with one Python capability;
- a Python capability called `--calls` times by one run, against the
  same run with the operation handled in Writ: the difference per call is
  what calling into Python costs (its grant `audit = false`; the cost of
  an audited call, a committed audit record each, is given apart);
- `writ.check` of a small program (14 lines).

For pydantic-monty (a pool of worker processes, `Monty()`; a session is a
worker checked out of it; code runs with `session.feed_run`): making the
pool and starting its worker, checking out a session, `feed_run("1 + 1")`,
an external function called `--calls` times against a function defined
in the sandbox, and a feed type-checked (`checkout(type_check=True)`)
against the same feed not checked.

Needs the `writ` package (`pip install ./python`, docs/python.md) and,
for the comparison, `pip install pydantic-monty`.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path
from typing import Callable, Optional

import writ

POLICY = """
[principal]
id = "bench"
role = "bench"

[grants.Log]

[grants.Tick]
audit = false
"""

PLAIN_POLICY = POLICY.split("[grants.Tick]")[0]
AUDITED_POLICY = POLICY.replace("audit = false", "audit = true")

TICK = "effect Tick {\n  fn tick(n: Int) -> Int\n}\n"

LOOP = """
fn go(i: Int, acc: Int) -> Int / {Tick} {
  if i == 0 { acc } else { go(i - 1, acc + Tick.tick(i)) }
}
"""

IN_PYTHON = LOOP + "go(n, 0)\n"
IN_WRIT = TICK + LOOP + "handle go(n, 0) with { Tick.tick(x) => resume(x) }\n"

SMALL = """
type Item = { name: Str, cents: Int, qty: Int }

fn line_total(i: Item) -> Int { i.cents * i.qty }

fn euros(cents: Int) -> Str {
  str.fixed(math.to_float(cents) / 100.0, 2)
}

let cart = [{ name: "pen", cents: 120, qty: 3 }, { name: "ink", cents: 450, qty: 1 }]
let total = cart |> list.map(line_total) |> list.sum
let pricey = list.filter(cart, fn(i) { i.cents > 200 })
Log.info("total ${euros(total)}, ${list.length(pricey)} pricey")
total
"""

MONTY_EXTERNAL = "acc = 0\nfor i in range(n):\n    acc += f(i)\nacc\n"
MONTY_LOCAL = "def g(x):\n    return x\nacc = 0\nfor i in range(n):\n    acc += g(i)\nacc\n"
MONTY_SMALL = """
Item = tuple[str, int, int]

def line_total(i: Item) -> int:
    name, cents, qty = i
    return cents * qty

def euros(cents: int) -> str:
    return f"{cents / 100:.2f}"

cart: list[Item] = [("pen", 120, 3), ("ink", 450, 1)]
total = sum(line_total(i) for i in cart)
pricey = [i for i in cart if i[1] > 200]
print(f"total {euros(total)}, {len(pricey)} pricey")
total
"""


class Timing(float):
    """A median, in seconds, that also knows the best round's figure."""

    best: float

    def __new__(cls, median: float, best: float) -> "Timing":
        t = super().__new__(cls, median)
        t.best = best
        return t


def per_op(fn: Callable[[], object], repeat: int, rounds: int) -> Timing:
    """The median over `rounds` of the seconds per call of `fn`, called
    `repeat` times a round (after one call to warm up), with the best."""
    fn()
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(repeat):
            fn()
        times.append((time.perf_counter() - t0) / repeat)
    return Timing(statistics.median(times), min(times))


def us(seconds: float) -> str:
    micros = seconds * 1e6
    return f"{micros:,.3f} µs" if micros < 1 else f"{micros:,.2f} µs" if micros < 10 else f"{micros:,.1f} µs"


def writ_figures(rounds: int, calls: int, tmp: Path) -> dict[str, float]:
    figures: dict[str, float] = {}
    policy = writ.Policy.from_toml(POLICY)
    capabilities = {"Tick": writ.Capability(TICK, {"tick": lambda n: n})}
    store = tmp / "writ.db"

    plain_policy = writ.Policy.from_toml(PLAIN_POLICY)
    figures["engine"] = per_op(lambda: writ.Engine(plain_policy, store=store), 20, rounds)
    figures["engine_caps"] = per_op(lambda: writ.Engine(policy, store=store, capabilities=capabilities), 20, rounds)

    # A one-line program on an engine of the host's capabilities alone ...
    plain = writ.Engine(plain_policy, store=store)
    plain.run("1 + 1")  # opens the store
    program = plain.compile("1 + 1")
    figures["compile_run"] = per_op(lambda: plain.run("1 + 1"), 500, rounds)
    figures["compile"] = per_op(lambda: plain.compile("1 + 1"), 500, rounds)
    figures["run"] = per_op(lambda: plain.run(program), 500, rounds)
    # ... and on one with a capability of the embedder's.
    engine = writ.Engine(policy, store=store, capabilities=capabilities)
    figures["compile_run_caps"] = per_op(lambda: engine.run("1 + 1"), 500, rounds)

    in_python = engine.compile(IN_PYTHON, inputs={"n": "Int"})
    # The same loop with `Tick` a program's own effect, handled in Writ
    # (on the engine without the capability, whose name it would clash with).
    in_writ = plain.compile(IN_WRIT, inputs={"n": "Int"})
    assert engine.run(in_python, inputs={"n": calls}).value == calls * (calls + 1) // 2
    assert plain.run(in_writ, inputs={"n": calls}).value == calls * (calls + 1) // 2
    figures["calls_python"] = per_op(lambda: engine.run(in_python, inputs={"n": calls}), 1, rounds)
    figures["calls_writ"] = per_op(lambda: plain.run(in_writ, inputs={"n": calls}), 1, rounds)
    figures["call_overhead"] = Timing(
        (figures["calls_python"] - figures["calls_writ"]) / calls,
        (figures["calls_python"].best - figures["calls_writ"].best) / calls,
    )
    bare = lambda n: n  # noqa: E731
    figures["python_call"] = per_op(lambda: bare(1), 100_000, rounds)

    audited = writ.Engine(writ.Policy.from_toml(AUDITED_POLICY), store=tmp / "audited.db", capabilities=capabilities)
    audited_program = audited.compile(IN_PYTHON, inputs={"n": "Int"})
    few = max(1, calls // 200)
    figures["audited_call"] = (
        per_op(lambda: audited.run(audited_program, inputs={"n": few}), 1, rounds) - figures["calls_writ"] * few / calls
    ) / few

    assert writ.check(SMALL, grants=["Log"]).accepted
    figures["check"] = per_op(lambda: writ.check(SMALL, grants=["Log"]), 100, rounds)
    figures["engine_check"] = per_op(lambda: plain.check(SMALL), 100, rounds)
    figures["check_tiny"] = per_op(lambda: writ.check("1 + 1"), 100, rounds)
    return figures


def monty_figures(rounds: int, calls: int) -> Optional[dict[str, float]]:
    try:
        import pydantic_monty
    except ImportError:
        return None
    from pydantic_monty import Monty

    figures: dict[str, float] = {"version": pydantic_monty.__version__}

    def pool_up() -> None:
        with Monty() as pool:
            with pool.checkout() as session:
                session.feed_run("1 + 1")

    figures["pool"] = per_op(pool_up, 3, rounds)
    with Monty() as pool:

        def checkout() -> None:
            with pool.checkout() as session:
                session.feed_run("1 + 1")

        figures["checkout"] = per_op(checkout, 20, rounds)
        # Each external call is a suspension, 1,000 a checkout by default.
        with pool.checkout(limits={"max_suspensions": 10**9}) as session:
            assert session.feed_run("1 + 1") == 2
            figures["run"] = per_op(lambda: session.feed_run("1 + 1"), 500, rounds)
            lookup = {"f": lambda x: x}
            total = calls * (calls - 1) // 2
            assert session.feed_run(MONTY_EXTERNAL, inputs={"n": calls}, external_lookup=lookup) == total
            assert session.feed_run(MONTY_LOCAL, inputs={"n": calls}) == total
            figures["calls_python"] = per_op(
                lambda: session.feed_run(MONTY_EXTERNAL, inputs={"n": calls}, external_lookup=lookup), 1, rounds
            )
            figures["calls_local"] = per_op(lambda: session.feed_run(MONTY_LOCAL, inputs={"n": calls}), 1, rounds)
            figures["call_overhead"] = (figures["calls_python"] - figures["calls_local"]) / calls
            figures["small"] = per_op(lambda: session.feed_run(MONTY_SMALL, print_callback=lambda *_: None), 20, rounds)
        with pool.checkout(type_check=True) as session:
            figures["small_checked"] = per_op(
                lambda: session.feed_run(MONTY_SMALL, print_callback=lambda *_: None), 20, rounds
            )
        figures["type_check"] = figures["small_checked"] - figures["small"]
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--no-monty", action="store_true", help="measure Writ alone")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        w = writ_figures(args.rounds, args.calls, Path(tmp))
    m = None if args.no_monty else monty_figures(args.rounds, max(1, args.calls // 10))

    print(
        f"{datetime.date.today()} · writ {writ.__version__} · Python {platform.python_version()} · "
        f"{platform.machine()}, {os.cpu_count()} cores · medians of {args.rounds} rounds (the time per operation in a round)"
    )
    if m:
        print(f"pydantic-monty {m['version']}: external calls counted over {max(1, args.calls // 10):,} calls")
    print()
    print("| figure | writ | pydantic-monty | writ / monty |")
    print("| --- | ---: | ---: | ---: |")

    def row(name: str, ours: Optional[float], theirs: Optional[float]) -> None:
        a = us(ours) if ours is not None else ""
        b = us(theirs) if theirs is not None else ""
        ratio = f"{ours / theirs:.2f}" if ours is not None and theirs else ""
        print(f"| {name} | {a} | {b} | {ratio} |")

    get = (lambda k: m[k]) if m else (lambda k: None)
    row("make an engine (`Engine(policy)`) / a pool and its worker (`Monty()`, checkout, a first feed)", w["engine"], get("pool"))
    row("… an engine with one Python capability", w["engine_caps"], None)
    row("check out a session and feed it `1 + 1` (monty)", None, get("checkout"))
    row("compile + run `1 + 1` on an existing engine / `feed_run(\"1 + 1\")` on a session", w["compile_run"], get("run"))
    row("… compile alone (`engine.compile`)", w["compile"], None)
    row("… run alone (`engine.run(program)`)", w["run"], None)
    row("… compile + run on an engine with one Python capability", w["compile_run_caps"], None)
    row("a call into a Python function: overhead per call", w["call_overhead"], get("call_overhead"))
    row(f"… the run of {args.calls:,} calls into Python (monty: {max(1, args.calls // 10):,})", w["calls_python"], get("calls_python"))
    row("… the same run, the operation handled in Writ (monty: a function in the sandbox)", w["calls_writ"], get("calls_local"))
    row("… an audited call (a committed audit record each)", w["audited_call"], None)
    row("… a bare Python call of the handler (`lambda n: n`)", w["python_call"], None)
    row("check a 14-line program (`writ.check`) / its type check (monty: `type_check=True` less unchecked)", w["check"], get("type_check"))
    row("… against an engine's policy (`engine.check`)", w["engine_check"], None)
    row("… `writ.check(\"1 + 1\")`", w["check_tiny"], None)
    print()
    for name, key, target in [("compile + run", "compile_run", 200e-6), ("a Python call's overhead", "call_overhead", 5e-6)]:
        t = w[key]
        print(f"target: {name} ≤ {us(target)}: median {us(t)} ({'met' if t <= target else 'MISSED'}), "
              f"best round {us(t.best)} ({'met' if t.best <= target else 'missed'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
