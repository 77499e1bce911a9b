#!/usr/bin/env python3
"""Count the instructions two builds of `writ` execute on runs under a
policy (`writ run --policy`), the path `Engine::run` takes.

    python3 examples/bench/policy_instructions.py BEFORE/writ AFTER/writ

As instructions.py does for the machine's benchmarks, each program is run
once per binary under valgrind's callgrind (`Ir`, the instructions of the
whole process, start-up and the store included), each time against a
fresh store, and the table gives both counts and their ratio:

- the book_ticket story (examples/book_ticket/book.writ under its policy:
  three recorded `Http.get`s, a payment, the audit log written);
- 10,000 `Log.info` lines under a policy granting `Log` (not audited):
  what deciding and carrying out an operation costs, beside the machine;
- 500 `Audit.note`s (each an audit record committed to the store).

Needs valgrind. Standard library only.
"""

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STORY = ROOT / "examples" / "book_ticket"

LOG_POLICY = '[principal]\nid = "ada"\nrole = "r"\n\n[grants.Log]\n\n[grants.Audit]\n'
LOG_LOOP = """fn lines(n: Int) -> () / {Log} {
  if n > 0 {
    Log.info("line")
    lines(n - 1)
  }
}
lines(10000)
"""
NOTES = """fn notes(n: Int) -> () / {Audit} {
  if n > 0 {
    Audit.note("note ${n}")
    notes(n - 1)
  }
}
notes(500)
"""


def instructions(writ: str, case: str) -> int:
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        if case == "book_ticket":
            for f in ("book.writ", "policy.toml", "responses.toml"):
                shutil.copy(STORY / f, d / f)
            program = "book.writ"
        else:
            (d / "policy.toml").write_text(LOG_POLICY, encoding="utf-8")
            (d / "main.writ").write_text(LOG_LOOP if case == "log" else NOTES, encoding="utf-8")
            program = "main.writ"
        out = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={d}/cg.out",
             writ, "run", program, "--policy", "policy.toml", "--db", str(d / "run.db")],
            capture_output=True, text=True, timeout=3600, cwd=d,
        )
        if out.returncode != 0:
            sys.exit(f"{writ} failed on {case}:\n{out.stderr[-2000:]}")
        m = re.search(r"Collected : (\d+)", out.stderr)
        if not m:
            sys.exit(f"no instruction count from valgrind:\n{out.stderr[-2000:]}")
        return int(m.group(1))


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    before, after = sys.argv[1], sys.argv[2]
    print(f"{'program':<28} {'before (Ir)':>15} {'after (Ir)':>15} {'after/before':>12}")
    for label, case in [("book_ticket", "book_ticket"), ("10,000 Log.info", "log"),
                        ("500 Audit.note", "notes")]:
        counts = [instructions(w, case) for w in (before, after)]
        print(f"{label:<28} {counts[0]:>15,} {counts[1]:>15,} {counts[1] / counts[0]:>12.4f}",
              flush=True)


if __name__ == "__main__":
    main()
