"""`writ mcp` end to end, driven by the official MCP Python SDK (`mcp`).

The client is the SDK's `ClientSession` over `stdio_client`, launching the
binary named by `WRIT_BIN` (default `target/debug/writ`) under
examples/book_ticket/policy.toml, each test with a store of its own. The
`elicitation_callback` plays the person: it answers the plan's approval
and the program's confirmations, and records what it was shown; a session
without one is a client without elicitation support.

Run: `WRIT_BIN=target/debug/writ python -m pytest tests/mcp_python` (`.ci/run`
does, in a virtual environment with the pinned `mcp` and `pytest`).
"""

import json
import os
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parents[2]
WRIT = os.environ.get("WRIT_BIN", str(ROOT / "target" / "debug" / "writ"))
POLICY = ROOT / "examples" / "book_ticket" / "policy.toml"

PAY_OK = 'let r = Pay.pay("air-one.example", 38900, "flight A1-318")\nr.id\n'
PAY_OVER_CAP = (ROOT / "examples" / "book_ticket" / "over_cap.writ").read_text()
CONFIRMED = (ROOT / "examples" / "book_ticket" / "book_confirmed.writ").read_text()


class Person:
    """Answers every question with `action`, keeping what it was asked."""

    def __init__(self, action):
        self.action = action
        self.asked = []

    async def __call__(self, context, params):
        self.asked.append(params.message)
        return types.ElicitResult(action=self.action)


def session(db, person=None):
    """Run `body(client)` against a fresh server; its result."""

    async def go(body):
        params = StdioServerParameters(
            command=WRIT, args=["mcp", "--policy", str(POLICY), "--db", str(db)]
        )
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, elicitation_callback=person) as client:
                await client.initialize()
                return await body(client)

    return lambda body: anyio.run(go, body)


async def call(client, tool, **arguments):
    """Call `tool`; its result, the JSON text parsed (as text for explain)."""
    result = await client.call_tool(tool, arguments)
    text = result.content[0].text
    return result.is_error, (text if tool == "explain" else json.loads(text))


def test_initialize_and_list_tools(tmp_path):
    async def body(client):
        assert client.server_info.name == "writ"
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert sorted(tools) == ["approve", "check", "explain", "plan", "run"]
        check = tools["check"].annotations
        assert check.read_only_hint is True and check.open_world_hint is False
        run = tools["run"].annotations
        # The policy grants `Pay`: a run may act, and reaches payees.
        assert run.read_only_hint is False
        assert run.destructive_hint is True
        assert run.open_world_hint is True
        plan = tools["plan"].annotations
        # Its `Http` reads are recorded responses: a plan reaches nothing.
        assert plan.read_only_hint is True and plan.open_world_hint is False
        # The descriptions carry the primer's core and the grants.
        assert "Writ" in tools["check"].description
        assert "Pay" in tools["run"].description
        resources = {str(r.uri) for r in (await client.list_resources()).resources}
        assert resources == {"writ://primer", "writ://grants", "writ://audit"}
        primer = (await client.read_resource("writ://primer")).contents[0].text
        grants = (await client.read_resource("writ://grants")).contents[0].text
        assert "Pay" in grants and "Pay" in primer

    session(tmp_path / "t.db")(body)


def test_check_with_errors_then_the_repaired_program(tmp_path):
    async def body(client):
        bad, doc = await call(client, "check", source='let total = 1 + "2"\ntotal\n')
        assert not bad
        assert doc["status"] == "rejected"
        first = doc["diagnostics"][0]
        assert first["code"].startswith("E")
        assert first["labels"][0]["start"]["line"] == 1
        _, explained = await call(client, "explain", code=first["code"])
        assert f"## {first['code']}" in explained
        _, doc = await call(client, "check", source="let total = 1 + 2\ntotal\n")
        assert doc["status"] == "accepted"
        assert doc["diagnostics"] == []

    session(tmp_path / "t.db")(body)


def test_a_run(tmp_path):
    async def body(client):
        bad, doc = await call(
            client,
            "run",
            source='Log.info("hello ${name}")\nstr.length(name)\n',
            input_types={"name": "Str"},
            inputs={"name": "Ada"},
        )
        assert not bad, doc
        assert doc["status"] == "ok"
        assert doc["log"] == ["hello Ada"]
        assert doc["value"]["data"] == 3

    session(tmp_path / "t.db")(body)


def test_a_denied_payment(tmp_path):
    async def body(client):
        bad, doc = await call(client, "run", source=PAY_OVER_CAP)
        assert bad
        assert doc["status"] == "failed"
        assert doc["error"]["code"] == "E4005"
        [op] = doc["operations"]
        assert op["operation"] == "Pay.pay" and op["decision"] == "denied"
        assert op["audit_id"] is not None
        audit = await client.read_resource("writ://audit")
        records = json.loads(audit.contents[0].text)["records"]
        assert records[-1]["decision"] == "denied"

    session(tmp_path / "t.db")(body)


def test_a_plan_approved_through_elicitation(tmp_path):
    person = Person("accept")

    async def body(client):
        bad, planned = await call(client, "plan", source=PAY_OK)
        assert not bad and planned["status"] == "planned"
        assert any("air-one.example" in line for line in planned["words"])
        bad, ran = await call(client, "approve", plan_id=planned["plan_id"])
        assert not bad, ran
        assert ran["status"] == "ok"
        assert [o["decision"] for o in ran["operations"] if o["operation"] == "Pay.pay"] == ["allowed"]
        # A plan is carried out once.
        bad, again = await call(client, "approve", plan_id=planned["plan_id"])
        assert bad and again["status"] == "usage"

    session(tmp_path / "t.db", person)(body)
    [asked] = person.asked
    assert "air-one.example" in asked


def test_a_plan_declined_through_elicitation(tmp_path):
    person = Person("decline")

    async def body(client):
        _, planned = await call(client, "plan", source=PAY_OK)
        bad, refused = await call(client, "approve", plan_id=planned["plan_id"])
        assert bad
        assert refused["status"] == "refused" and refused["ran"] is False
        assert "declined" in refused["why"]
        audit = await client.read_resource("writ://audit")
        records = json.loads(audit.contents[0].text)["records"]
        assert not any(r["operation"] == "Pay.pay" and r["decision"] == "allowed" for r in records)

    session(tmp_path / "t.db", person)(body)
    assert len(person.asked) == 1


@pytest.mark.parametrize("action,value", [("accept", "booked"), ("decline", "not booked")])
def test_a_confirmation(tmp_path, action, value):
    person = Person(action)

    async def body(client):
        _, doc = await call(client, "run", source=CONFIRMED)
        assert doc["status"] == "ok", doc
        assert doc["value"]["data"].startswith(value)

    session(tmp_path / "t.db", person)(body)
    [asked] = person.asked
    assert "Pay " in asked and "EUR" in asked


def test_a_client_without_elicitation_gets_a_denial(tmp_path):
    async def body(client):
        _, doc = await call(client, "run", source=CONFIRMED)
        assert doc["status"] == "ok"
        assert doc["value"]["data"] == "not booked: Ada said no"
        _, planned = await call(client, "plan", source=PAY_OK)
        bad, refused = await call(client, "approve", plan_id=planned["plan_id"])
        assert bad and refused["ran"] is False
        assert "cannot ask the person" in refused["why"]

    session(tmp_path / "t.db")(body)
