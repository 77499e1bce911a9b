#!/usr/bin/env python3
"""Count the instructions one build of `writ` executes running a story
plainly and running it as an approved plan.

    python3 examples/bench/approve_instructions.py PATH/TO/writ

For each story, run in its directory, each against a fresh store: `writ run FILE --policy P`,
and `writ run FILE --policy P --approve plan.json` after `writ plan`
made the plan (the plan itself not counted). Instructions of the whole
process under valgrind's callgrind (`Ir`), as instructions.py counts
them: wall-clock times on a shared machine vary by more than the few per
cent compared here. Needs valgrind. Standard library only.
"""

import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STORIES = [
    ("book_ticket", "book.writ"),
    ("my_benefits", "benefits.writ"),
    ("hr_review", "review.writ"),
]


def run(cmd, cwd, callgrind, scratch=None):
    if callgrind:
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={scratch}/cg.out"] + cmd
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=3600, cwd=cwd)
    if callgrind:
        m = re.search(r"Collected : (\d+)", out.stderr)
        if not m:
            sys.exit(f"no instruction count from valgrind:\n{out.stderr[-2000:]}")
        return int(m.group(1))
    return out.returncode


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    writ = sys.argv[1]
    print(f"{'story':<28} {'plain (Ir)':>15} {'approved (Ir)':>15} {'approved/plain':>15}")
    for story, program in STORIES:
        counts = []
        for approved in (False, True):
            with tempfile.TemporaryDirectory() as d:
                d = Path(d)
                here = ROOT / "examples" / story
                base = [writ, "run", program, "--policy", "policy.toml", "--db", str(d / "run.db")]
                if approved:
                    run([writ, "plan", program, "--policy", "policy.toml", "--db", str(d / "run.db"),
                         "-o", str(d / "plan.json")], here, False)
                    base += ["--approve", str(d / "plan.json")]
                counts.append(run(base, here, True, d))
        print(f"{story + '/' + program:<28} {counts[0]:>15,} {counts[1]:>15,} {counts[1] / counts[0]:>15.4f}",
              flush=True)


if __name__ == "__main__":
    main()
