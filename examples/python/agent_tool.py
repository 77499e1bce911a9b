#!/usr/bin/env python3
"""How an agent framework gives a model "run Writ code" as a tool.

The model writes a Writ program; the tool checks it against the person's
policy and gives the diagnostics back when it does not check, so that the
model repairs it; then it plans the program (its reads performed, its acts
not), shows the person the plan in words, and runs exactly what they
approved. The result goes back to the model.

The model here is a stand-in (`ScriptedModel`): canned responses, as a
real model might have written them (first a program with two mistakes,
then the repaired one), so the example runs offline. The story is
examples/book_ticket: Ada's policy, recorded airline pages, a fresh store
in a temporary directory.

    python examples/python/agent_tool.py                # Ada's answer is scripted: yes
    python examples/python/agent_tool.py --say no       # ... or no
    python examples/python/agent_tool.py --interactive  # you answer, on the terminal

Needs the `writ` package: `pip install ./python` (docs/python.md).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any, Callable, Union

import writ

STORY = Path(__file__).resolve().parent.parent / "book_ticket"


class WritTool:
    """The tool a model calls with a Writ program: check, plan, approve, run.

    `approve(words)` is the person's: it is shown the plan in words (a list
    of lines) and says yes or no. It is never the model's to answer.
    """

    name = "run_writ"

    def __init__(self, engine: writ.Engine, approve: Callable[[list[str]], bool]):
        self.engine = engine
        self.approve = approve

    def definition(self) -> dict[str, Any]:
        """The tool as a model's API takes it: a name, a description that
        teaches the language and what the policy grants, a JSON schema."""
        return {
            "name": self.name,
            "description": (
                "Run a program written in Writ on the person's behalf, under their policy. "
                "A program that does not check comes back with its diagnostics: repair it and "
                "call again. Acts (payments) are shown to the person first and carried out "
                "only if they approve.\n\n" + self.engine.primer()
            ),
            "input_schema": {
                "type": "object",
                "properties": {
                    "program": {"type": "string", "description": "the whole Writ program"},
                },
                "required": ["program"],
                "additionalProperties": False,
            },
        }

    def call(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Carry out one call of the tool; the result is JSON for the model."""
        source = arguments.get("program")
        if not isinstance(source, str):
            return {"status": "error", "message": "expected `program`, a string"}
        checked = self.engine.check(source)
        if not checked.accepted:
            return {"status": "rejected", "diagnostics": checked.rendered}
        try:
            program = self.engine.compile(source)
            plan = self.engine.plan(program)
            if plan.error is not None:
                # The planned run ended with an error (a denied act, a
                # failure): nothing to approve; the model hears why.
                return {"status": "failed", "error": plan.error, "log": plan.log, "plan": plan.words}
            if any(act["decision"] == "allowed" for act in plan.acts):
                if not self.approve(plan.words):
                    return {"status": "declined", "message": "the person did not approve", "plan": plan.words}
                outcome = self.engine.run(program, approve=plan)
            else:
                outcome = self.engine.run(program)
        except writ.RunError as e:
            return {
                "status": "failed",
                "error": e.rendered,
                "log": e.outcome.output if e.outcome else [],
            }
        return {
            "status": "ok",
            "value": outcome.value,
            "log": outcome.output,
            "operations": [f"{op.operation} {op.decision}" for op in outcome.operations],
        }


Response = Union[dict[str, Any], Callable[[dict[str, Any]], dict[str, Any]]]


class ScriptedModel:
    """A stand-in for the model: it gives its canned responses in order. A
    response is a tool call (`{"tool": name, "arguments": {...}}`) or a
    message (`{"text": ...}`), or a function of the last tool result that
    returns one (the model reading the result)."""

    def __init__(self, responses: list[Response]):
        self.responses = list(responses)

    def respond(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        response = self.responses.pop(0)
        if callable(response):
            last = json.loads(messages[-1]["content"])
            response = response(last)
        return response


# What the model first writes: two mistakes of a model that knows Python
# (`len`, and an Int divided by a Float).
FIRST_TRY = (
    (STORY / "book.writ")
    .read_text(encoding="utf-8")
    .replace("${list.length(all)} offers", "${len(all)} offers")
    .replace("str.fixed(math.to_float(receipt.cents) / 100.0, 2)", "str.fixed(receipt.cents / 100.0, 2)")
)
# ... and the program once repaired from the diagnostics.
REPAIRED = (STORY / "book.writ").read_text(encoding="utf-8")


def summary(result: dict[str, Any]) -> dict[str, Any]:
    """The model's last answer, reading the tool's result."""
    if result["status"] == "ok":
        return {"text": "Done: " + result["log"][-1] + "."}
    if result["status"] == "declined":
        return {"text": "I did not book anything: you did not approve the payment."}
    return {"text": "The booking failed: " + result.get("error", result.get("message", ""))}


def converse(model: ScriptedModel, tool: WritTool, request: str, show: Callable[[str], None]) -> str:
    """The framework's loop: the model answers, the tool is called, the
    result goes back, until the model says something to the person."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": request}]
    show(f"person: {request}")
    while True:
        response = model.respond(messages, [tool.definition()])
        if "text" in response:
            show(f"model: {response['text']}")
            return response["text"]
        program = response["arguments"]["program"]
        show(f"model: calls {response['tool']} with a program of {len(program.splitlines())} lines")
        result = tool.call(response["arguments"])
        if result["status"] == "rejected":
            show("tool: rejected, with its diagnostics:")
            show(indent(result["diagnostics"]))
        else:
            show(f"tool: {json.dumps(result)}")
        messages.append({"role": "assistant", "tool_call": response})
        messages.append({"role": "tool", "content": json.dumps(result)})


def indent(text: str) -> str:
    return "\n".join("    " + line if line else "" for line in text.rstrip("\n").split("\n"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--interactive", action="store_true", help="ask the person on the terminal")
    parser.add_argument("--say", choices=["yes", "no"], default="yes", help="the scripted person's answer")
    args = parser.parse_args(argv)

    def approve(words: list[str]) -> bool:
        print("person is shown the plan:")
        print(indent("\n".join(words)))
        if args.interactive:
            answer = input("Approve? [y/N] ").strip().lower() in ("y", "yes")
        else:
            answer = args.say == "yes"
            print(f"Approve? [y/N] {'y' if answer else 'n'}  (scripted)")
        return answer

    policy = writ.Policy.from_file(STORY / "policy.toml")
    with tempfile.TemporaryDirectory() as tmp:
        engine = writ.Engine(policy, store=Path(tmp) / "writ.db")
        tool = WritTool(engine, approve)
        definition = tool.definition()
        print(f"tool {definition['name']}: {len(definition['description'])} characters of description, "
              f"arguments {json.dumps(definition['input_schema']['properties'])}")
        model = ScriptedModel([
            {"tool": "run_writ", "arguments": {"program": FIRST_TRY}},
            {"tool": "run_writ", "arguments": {"program": REPAIRED}},
            summary,
        ])
        converse(model, tool, "Book me the cheapest flight within 12 hours and one stop.", print)
        print(f"audit log: {engine.verify()} records verified")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
