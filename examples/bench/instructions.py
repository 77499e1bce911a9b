#!/usr/bin/env python3
"""Count the instructions two builds of `writ` execute on the benchmarks.

    python3 examples/bench/instructions.py BEFORE/writ AFTER/writ

Wall-clock times on a shared machine vary by more than the few per cent a
change to the machine's hot paths costs; instruction counts do not. Each
program is run once per binary under valgrind's callgrind (`Ir`, the
instructions executed, of the whole process), and the table gives both
counts and their ratio.

The programs: the effect-handlers benchmarks of examples/bench/ (bench.py)
at reduced inputs (valgrind runs ~50x slower), and the four workloads of
stdlib_bench.py with the work done once and not at all (the difference is
the work of one repetition, without start-up and building the input).
An empty program shows the start-up (checking the standard library).
Needs valgrind. Standard library only.
"""

import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import stdlib_bench  # noqa: E402

LIMITS = "fuel=100000000000,time=600s,memory=4G,depth=100000000"

# The effect benchmarks, at inputs that take ~0.05-0.3 s natively.
EFFECTS = [
    ("countdown", 1000000),
    ("fibonacci_recursive", 24),
    ("product_early", 2000),
    ("iterator", 400000),
    ("nqueens", 8),
    ("generator", 16),
    ("tree_explore", 10),
    ("triples", 60),
    ("parsing_dollars", 500),
    ("resume_nontail", 500),
    ("handler_sieve", 3000),
]


def instructions(writ: str, program: str) -> int:
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "main.writ"
        src.write_text(program, encoding="utf-8")
        out = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={d}/cg.out",
             writ, "run", "--limit", LIMITS, str(src)],
            capture_output=True, text=True, timeout=3600,
        )
        if out.returncode != 0:
            sys.exit(f"{writ} failed on a program:\n{out.stderr[-2000:]}")
        m = re.search(r"Collected : (\d+)", out.stderr)
        if not m:
            sys.exit(f"no instruction count from valgrind:\n{out.stderr[-2000:]}")
        return int(m.group(1))


def effect_program(name: str, n: int) -> str:
    text = (HERE / f"{name}.writ").read_text(encoding="utf-8")
    return re.sub(r"^let n = .*$", f"let n = {n}", text, count=1, flags=re.M)


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    before, after = sys.argv[1], sys.argv[2]
    doc = stdlib_bench.document()
    rows = [("(empty program)", "()\n", None)]
    rows += [(f"{name}({n})", effect_program(name, n), None) for name, n in EFFECTS]
    rows += [
        ("json: one parse", stdlib_bench.writ_json(doc, 1), stdlib_bench.writ_json(doc, 0)),
        ("sort_by: one sort", stdlib_bench.writ_sort_by(1), stdlib_bench.writ_sort_by(0)),
        ("sort: one sort", stdlib_bench.writ_sort(1), stdlib_bench.writ_sort(0)),
        ("map: one map", stdlib_bench.writ_map(1), stdlib_bench.writ_map(0)),
    ]
    print(f"{'program':<28} {'before (Ir)':>15} {'after (Ir)':>15} {'after/before':>12}")
    for label, program, base in rows:
        counts = []
        for writ in (before, after):
            c = instructions(writ, program)
            if base is not None:
                c -= instructions(writ, base)
            counts.append(c)
        print(f"{label:<28} {counts[0]:>15,} {counts[1]:>15,} {counts[1] / counts[0]:>12.4f}",
              flush=True)


if __name__ == "__main__":
    main()
