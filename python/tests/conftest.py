"""Fixtures of the `writ` package's tests: a fresh store per test, and
small policies written inline as TOML.

Every test passes its own store (a SQLite file under pytest's tmp_path),
so no test touches `writ.db` in the working directory or sees another
test's audit log."""

from __future__ import annotations

import textwrap

import pytest

import writ

PRINCIPAL = """\
[principal]
id = "ada"
name = "Ada Lovelace"
role = "employee"
"""

# The weather service of the tests: an embedder's capability.
WEATHER = """\
effect Weather {
  /// The forecast high for `city`, in degrees.
  fn high(city: Str) -> Int
  /// Several days' highs.
  fn report(city: Str, days: Int) -> { city: Str, highs: List[Int] }
  /// Sets an alert for `city`: changes the world (an act).
  fn alert(city: Str, level: Int) -> Bool
}
"""


def policy_text(*sections: str, limits: str | None = None) -> str:
    """A policy for ada with `sections` (TOML tables, dedented) after
    its principal."""
    parts = [PRINCIPAL]
    if limits is not None:
        parts.append("[limits]\n" + textwrap.dedent(limits).strip() + "\n")
    parts.extend(textwrap.dedent(s).strip() + "\n" for s in sections)
    return "\n".join(parts)


def make_policy(*sections: str, limits: str | None = None) -> writ.Policy:
    return writ.Policy.from_toml(policy_text(*sections, limits=limits))


LOG = "[grants.Log]"
CONFIRM = "[grants.Confirm]\naudit = true"
PAY = """\
[grants.Pay]
payees = ["air-one.example"]
currency = "EUR"
max_payment_cents = 50000
"""


@pytest.fixture
def store(tmp_path) -> str:
    """A store path of this test's own (the file does not exist yet)."""
    return str(tmp_path / "store.db")


@pytest.fixture
def log_policy() -> writ.Policy:
    return make_policy(LOG)


@pytest.fixture
def engine(log_policy, store) -> writ.Engine:
    """An engine granting `Log` only, on this test's store."""
    return writ.Engine(log_policy, store=store)


@pytest.fixture
def pay_engine(store) -> writ.Engine:
    """An engine granting `Log`, `Confirm` and `Pay` (to air-one.example,
    at most 500.00 EUR a payment)."""
    return writ.Engine(make_policy(LOG, CONFIRM, PAY), store=store)


class Weather:
    """A weather service whose calls are recorded (for the handler given
    as an object with a method per operation)."""

    def __init__(self, highs: dict[str, int] | None = None):
        self.highs = dict(highs or {"Oslo": -3, "Rome": 18})
        self.calls: list[tuple] = []

    def high(self, city):
        self.calls.append(("high", city))
        if city not in self.highs:
            raise LookupError(f"no forecast for {city}")
        return self.highs[city]

    def report(self, city, days):
        self.calls.append(("report", city, days))
        return {"city": city, "highs": [self.highs.get(city, 0) + d for d in range(days)]}

    def alert(self, city, level):
        self.calls.append(("alert", city, level))
        return level > 2


def weather_engine(store, *, handler=None, reads=("high", "report"), on_error="fail",
                   grant: str = "[grants.Weather]", extra=(LOG,), **kw) -> writ.Engine:
    """An engine with the Weather capability granted (and `extra` grants)."""
    handler = handler if handler is not None else Weather()
    cap = writ.Capability(WEATHER, handler, reads=list(reads), on_error=on_error)
    policy = make_policy(*extra, grant)
    return writ.Engine(policy, store=store, capabilities={"Weather": cap}, **kw)


def outcome_of(fn):
    """("returned", value) or ("raised", exception), whatever `fn` raises:
    a KeyboardInterrupt or SystemExit that a test expects not (or expects)
    is reported by the test, never left to stop the test session."""
    try:
        return ("returned", fn())
    except BaseException as e:  # noqa: BLE001
        return ("raised", e)
