#!/usr/bin/env python3
"""CPU time of `writ check` on adversarial inputs of (almost) the largest size.

    cargo build --release          # first: this script builds nothing
    python3 examples/bench/check_time.py [--runs N] [--keep DIR] [--only NAME] [--size BYTES]

Issue 15's target is that no input of at most 4 MiB keeps `writ check`
busy for more than 2 s. Writ reads files of at most 2 MiB
(`writ::MAX_SOURCE_BYTES`, docs/decisions/006), so a larger one is refused
before it is read; each input below is built here, deterministically, to
just under that size (or under --size BYTES, to see how time grows with
size: `--size 4194240` shows what 4 MiB would cost, with a binary built
with a larger limit), and checked --runs times (default 1); the figure
printed is the best user + system CPU time of the process (from
`os.wait4`), which a shared machine disturbs far less than wall time. The
exit code and the first diagnostic code are printed too, so a reader sees
what each input does (accepted, rejected with many errors, stopped by a
limit).

Figures, not assertions: the table in docs/performance.md ("Checking
time") comes from this script.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
WRIT = ROOT / "target" / "release" / "writ"
SIZE = 2 * 1024 * 1024 - 64  # a little under the 2 MiB limit


def fill(head, unit, tail="", sep=""):
    """`head`, then `unit(i)` for i = 0, 1, ... joined by `sep`, then
    `tail`, as long as the whole stays under SIZE bytes."""
    parts = [head]
    size = len(head.encode()) + len(tail.encode())
    i = 0
    while True:
        piece = unit(i)
        add = len(piece.encode()) + (len(sep) if i else 0)
        if size + add > SIZE:
            break
        if i:
            parts.append(sep)
        parts.append(piece)
        size += add
        i += 1
    parts.append(tail)
    return "".join(parts)


def nested(depth):
    return "(" * depth + "1" + ")" * depth


INPUTS = {
    # One line, an undefined name every few bytes (checker errors).
    "long line, undefined names": lambda: fill(
        "let a = [", lambda i: f"y{i}", "]\n", sep=", "
    ),
    # One line, a syntax error every few bytes.
    "long line, syntax errors": lambda: fill("", lambda i: "let a = (1 +); "),
    # One syntax error per line.
    "many lines with syntax errors": lambda: fill("", lambda i: f"let x{i} = (1 + ) * 2\n"),
    # Lines of `let x =` with nothing after them.
    "many `let x =`": lambda: fill("", lambda i: "let x =\n"),
    # Parenthesised lines that do not close.
    "many unclosed parentheses": lambda: fill("", lambda i: "f((1, 2\n"),
    # Well-formed top-level lets.
    "many lets": lambda: fill("", lambda i: f"let x{i} = {i} + 1\n"),
    # One name bound again and again, one effect performed again and again:
    # the top level's bindings of a name and its effect row grow with them.
    "one name bound again": lambda: fill("", lambda i: "let x = 1\n"),
    "one effect performed again": lambda: fill("", lambda i: "Log.info(\"a\")\n"),
    # One function calling another on each line (each call binds a
    # variable to the next one's: a chain of links).
    "many calls in one function": lambda: fill(
        "fn inc(a: Int) -> Int { a + 1 }\nfn go(n: Int) -> Int {\n  let x0 = n\n",
        lambda i: f"  let x{i + 1} = inc(x{i})\n",
        "  x0\n}\n",
    ),
    # Nesting 250 deep (E0013 stops at 256), line after line.
    "nesting 250 deep": lambda: fill("", lambda i: f"let n{i} = {nested(250)}\n"),
    # One string literal.
    "one long string": lambda: fill('let s = "', lambda i: "abcdefghij", '"\n'),
    # One interpolation with a splice every few bytes.
    "long interpolation": lambda: fill(
        'let a = 1\nlet s = "', lambda i: "x${a}", '"\n'
    ),
    # Small generic functions.
    "many small functions": lambda: fill("", lambda i: f"fn f{i}(x) {{ (x, {i}) }}\n"),
    # One match with an arm per integer.
    "huge match": lambda: fill(
        "fn pick(n: Int) -> Int {\n  match n {\n",
        lambda i: f"    {i} => {i}\n",
        "    _ => 0\n  }\n}\n",
    ),
    # One record type with a field per name.
    "huge record type": lambda: fill(
        "type R = { ", lambda i: f"f{i}: Int", " }\n", sep=", "
    ),
    # One list literal.
    "huge list": lambda: fill("let xs = [", lambda i: f"{i}", "]\n", sep=", "),
}


def cpu_of(path):
    """Run `writ check path`; return (cpu seconds, exit code, first code)."""
    start = time.monotonic()
    proc = subprocess.Popen(
        [str(WRIT), "check", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - start
    m = re.search(rb"\[(E\d{4})\]", out)
    code = m.group(1).decode() if m else "-"
    return usage.ru_utime + usage.ru_stime, wall, proc.returncode, code, len(out)


def main():
    global SIZE
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--keep", help="write the inputs to this directory")
    ap.add_argument("--only", help="run only inputs whose name contains this")
    ap.add_argument("--size", type=int, default=SIZE, help="bytes of each input")
    args = ap.parse_args()
    SIZE = args.size
    if not WRIT.exists():
        sys.exit(f"{WRIT} not found: run `cargo build --release` first")
    out_dir = Path(args.keep or tempfile.mkdtemp(prefix="writ-check-time-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    print(f"| input | bytes | exit | first code | output bytes | CPU (s) |")
    print(f"| --- | --- | --- | --- | --- | --- |")
    for name, build in INPUTS.items():
        if args.only and args.only not in name:
            continue
        text = build()
        path = out_dir / (re.sub(r"[^a-z0-9]+", "_", name).strip("_") + ".writ")
        path.write_text(text)
        best = None
        for _ in range(args.runs):
            cpu, wall, rc, code, out_len = cpu_of(path)
            if best is None or cpu < best[0]:
                best = (cpu, wall, rc, code, out_len)
        cpu, wall, rc, code, out_len = best
        size = len(text.encode())
        print(f"| {name} | {size} | {rc} | {code} | {out_len} | {cpu:.2f} |", flush=True)
    if not args.keep:
        for p in out_dir.iterdir():
            p.unlink()
        out_dir.rmdir()


if __name__ == "__main__":
    main()
