"""examples/python/agent_tool.py runs offline and tells its story: the
first program is rejected with its diagnostics, the repaired one is
planned, the person sees the plan and approves (or not), and the result
goes back to the model."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import writ

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "python" / "agent_tool.py"


def run(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout


def test_the_person_approves():
    out = run()
    lines = out.splitlines()
    assert lines[0].startswith("tool run_writ: ")
    assert lines[0].endswith(' characters of description, arguments {"program": {"type": "string", "description": "the whole Writ program"}}')
    # The first try is rejected, with the diagnostics a model repairs from.
    assert "model: calls run_writ with a program of 43 lines" in lines
    assert lines.index("tool: rejected, with its diagnostics:") < lines.index("person is shown the plan:")
    assert "    [E1001] Error: expected a name in scope, found `len`" in lines
    assert "    [E2001] Error: expected `Int`, found `Float`" in lines
    # The repaired one is planned, shown, approved and run as approved.
    start = lines.index("person is shown the plan:")
    assert lines[start + 1 : start + 9] == [
        "    It will, in this order (approve all or none):",
        '      1. Pay 389.00 EUR to air-one.example ("flight A1-318")',
        "      In all: 389.00 EUR in 1 payment.",
        "    It read, to decide (3):",
        '      Http.get("https://air-one.example/offers")',
        '      Http.get("https://skyways.example/api/offers")',
        '      Http.get("https://jetlow.example/offers")',
        "Approve? [y/N] y  (scripted)",
    ]
    # The result goes back to the model as JSON, and the model reads it.
    assert json.loads(lines[start + 9].removeprefix("tool: ")) == {
        "status": "ok",
        "value": None,
        "log": [
            "5 offers, 4 within 12 hours and 1 stop",
            "booked A1-318 with air-one.example for 389.00 EUR (receipt pay-1)",
        ],
        "operations": [
            "Http.get allowed",
            "Http.get allowed",
            "Http.get allowed",
            "Log.info allowed",
            "Pay.pay allowed",
            "Log.info allowed",
        ],
    }
    assert lines[start + 10 :] == [
        "model: Done: booked A1-318 with air-one.example for 389.00 EUR (receipt pay-1).",
        "audit log: 8 records verified",
    ]


def test_the_person_says_no():
    out = run("--say", "no")
    lines = out.splitlines()
    assert "Approve? [y/N] n  (scripted)" in lines
    declined = [json.loads(line.removeprefix("tool: ")) for line in lines if line.startswith('tool: {"status": "declined"')]
    assert declined == [{
        "status": "declined",
        "message": "the person did not approve",
        "plan": [
            "It will, in this order (approve all or none):",
            '  1. Pay 389.00 EUR to air-one.example ("flight A1-318")',
            "  In all: 389.00 EUR in 1 payment.",
            "It read, to decide (3):",
            '  Http.get("https://air-one.example/offers")',
            '  Http.get("https://skyways.example/api/offers")',
            '  Http.get("https://jetlow.example/offers")',
        ],
    }]
    assert "model: I did not book anything: you did not approve the payment." in lines
    assert "pay-1" not in out
    # Nothing was paid: the plan's reads are the only audit records.
    assert lines[-1] == "audit log: 3 records verified"


def load_example():
    spec = importlib.util.spec_from_file_location("agent_tool", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_plan_that_ends_in_a_denial_is_not_put_to_the_person(tmp_path: Path):
    example = load_example()
    policy = writ.Policy.from_file(ROOT / "examples" / "book_ticket" / "policy.toml")
    asked = []
    tool = example.WritTool(writ.Engine(policy, store=tmp_path / "writ.db"), lambda words: asked.append(words) or True)
    injected = (ROOT / "examples" / "book_ticket" / "injected.writ").read_text(encoding="utf-8")
    result = tool.call({"program": injected})
    assert asked == []
    assert result["status"] == "failed"
    assert result["error"].startswith('E4005: Pay.pay("attacker.example", 30000, "verification fee") was denied')
    assert result["log"] == ["following the page's instructions"]
    assert "It does nothing that needs approving." in result["plan"]


def test_a_program_without_acts_runs_without_asking(tmp_path: Path):
    example = load_example()
    policy = writ.Policy.from_file(ROOT / "examples" / "book_ticket" / "policy.toml")
    asked = []
    tool = example.WritTool(writ.Engine(policy, store=tmp_path / "writ.db"), lambda words: asked.append(words) or True)
    result = tool.call({"program": 'Log.info("hi")\n[1, 2] |> list.sum'})
    assert asked == []
    assert result == {"status": "ok", "value": 3, "log": ["hi"], "operations": ["Log.info allowed"]}
    assert tool.call({"program": 42}) == {"status": "error", "message": "expected `program`, a string"}
