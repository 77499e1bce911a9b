"""Every ```python block of docs/python.md runs, and prints what the doc says.

The blocks of one section (a ``## `` heading) run in order in one
namespace, in a fresh temporary directory that holds a copy of the
repository's ``examples/`` folder, as the doc says. A block followed by an
```output block (only blank lines between) must print exactly that text.

``WRIT_BLESS=1 pytest python/tests/test_docs.py`` rewrites the output
blocks with what the blocks print (read the diff: it is what users see).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import signal
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "python.md"

FENCE = re.compile(r"^```(\w*)\s*$")


@dataclass
class Block:
    """A ```python block, where it starts, and the output it should print."""

    line: int
    code: str
    output: Optional[str] = None
    # The lines of the output block's body in the doc (start, end), 0-based.
    output_span: Optional[tuple[int, int]] = None


@dataclass
class Section:
    title: str
    blocks: list[Block] = field(default_factory=list)


def parse(text: str) -> list[Section]:
    """The doc's sections and their python blocks, each with its output.

    An output block belongs to the python block it follows, with only
    blank lines between; one that follows anything else is an error."""
    lines = text.split("\n")
    sections: list[Section] = [Section("(top)")]
    last_python_end = -1  # the line of the closing fence of the last python block
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            sections.append(Section(line[3:].strip()))
        m = FENCE.match(line)
        if not m:
            i += 1
            continue
        lang = m.group(1)
        j = i + 1
        while j < len(lines) and lines[j].rstrip() != "```":
            j += 1
        if lang == "python":
            sections[-1].blocks.append(Block(line=i + 1, code="\n".join(lines[i + 1 : j]) + "\n"))
            last_python_end = j
        elif lang == "output":
            between = lines[last_python_end + 1 : i] if last_python_end >= 0 else ["(no python block)"]
            blocks = sections[-1].blocks
            if any(l.strip() for l in between) or not blocks or blocks[-1].output is not None:
                raise ValueError(f"docs/python.md:{i + 1}: an output block that does not follow a python block")
            body = lines[i + 1 : j]
            blocks[-1].output = "\n".join(body) + ("\n" if body else "")
            blocks[-1].output_span = (i + 1, j)
        i = j + 1
    return [s for s in sections if s.blocks]


SECTIONS = parse(DOC.read_text(encoding="utf-8"))


def run_section(section: Section, workdir: Path) -> list[tuple[Block, str]]:
    """Run a section's blocks in one namespace in `workdir`; what each printed."""
    shutil.copytree(ROOT / "examples", workdir / "examples")
    namespace: dict = {"__name__": "__doc_example__"}
    printed = []
    old = os.getcwd()
    os.chdir(workdir)
    # Ctrl-C's example sends SIGINT: let it raise KeyboardInterrupt even
    # where the runner was started with SIGINT ignored (a background job).
    old_sigint = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        for block in section.blocks:
            out = io.StringIO()
            try:
                with contextlib.redirect_stdout(out):
                    exec(compile(block.code, f"{DOC}:{block.line}", "exec"), namespace)
            except BaseException:
                raise AssertionError(
                    f"the block at docs/python.md:{block.line} ({section.title}) raised:\n"
                    f"{traceback.format_exc()}\nit printed:\n{out.getvalue()}"
                ) from None
            printed.append((block, out.getvalue()))
    finally:
        os.chdir(old)
        signal.signal(signal.SIGINT, old_sigint)
    return printed


def test_an_output_block_belongs_to_the_python_block_before_it():
    [section] = parse("## A\n```python\nprint(1)\n```\n\n```output\n1\n```\n")
    assert [(b.code, b.output) for b in section.blocks] == [("print(1)\n", "1\n")]
    for orphan in [
        "## A\n```python\nx = 1\n```\n\nprose\n\n```output\n1\n```\n",
        "## A\n```python\nx = 1\n```\n```sh\nls\n```\n```output\n1\n```\n",
        "## A\n```output\n1\n```\n",
    ]:
        with pytest.raises(ValueError, match="does not follow a python block"):
            parse(orphan)


def test_the_doc_has_examples():
    blocks = [b for s in SECTIONS for b in s.blocks]
    assert len(blocks) >= 20
    assert sum(1 for b in blocks if b.output is not None) >= 15


@pytest.mark.parametrize("section", SECTIONS, ids=[s.title for s in SECTIONS])
def test_section(section: Section, tmp_path: Path):
    printed = run_section(section, tmp_path)
    if os.environ.get("WRIT_BLESS") == "1":
        bless(section.title, [out for _, out in printed])
        return
    for block, out in printed:
        if block.output is not None:
            assert out == block.output, (
                f"docs/python.md:{block.line} ({section.title}) printed:\n{out}\n"
                f"but its output block says:\n{block.output}"
            )


def bless(title: str, printed: list[str]) -> None:
    """Write what the blocks of section `title` printed into their output
    blocks (the doc is read again: blessing a section moves the next)."""
    text = DOC.read_text(encoding="utf-8")
    section = next(s for s in parse(text) if s.title == title)
    lines = text.split("\n")
    # From the end, so that earlier spans stay where they are.
    for block, out in reversed(list(zip(section.blocks, printed))):
        if block.output_span is None:
            continue
        start, end = block.output_span
        lines[start:end] = out[:-1].split("\n") if out.endswith("\n") else out.split("\n")
    DOC.write_text("\n".join(lines), encoding="utf-8")


def test_the_readme_example(tmp_path: Path):
    """README.md's "From Python" example runs, and books the flight."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    part = readme.split("## From Python", 1)[1].split("\n## ", 1)[0]
    section = Section("README", parse("## README\n" + part)[0].blocks)
    assert len(section.blocks) == 1
    [(_, out)] = run_section(section, tmp_path)
    assert out.splitlines()[:3] == [
        "It will, in this order (approve all or none):",
        '  1. Pay 389.00 EUR to air-one.example ("flight A1-318")',
        "  In all: 389.00 EUR in 1 payment.",
    ]
    assert out.splitlines()[-1] == "booked A1-318 with air-one.example for 389.00 EUR (receipt pay-1)"
