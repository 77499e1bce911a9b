#!/usr/bin/env python3
"""Run the Writ ports of the effect-handlers-bench suite at the suite's
benchmark inputs and time them; compare two of them with plain Python.

    cargo build --release          # first: this script builds nothing
    python3 examples/bench/bench.py [--runs N] [--only NAME,NAME] [--no-python]

What it does:

1. Checks that every program in examples/bench/ prints its NAME.expected at the
   small test input written in the file (`let n = ...`).
2. For each benchmark, writes a temporary copy of NAME.writ with the
   `let n = ...` line replaced by the suite's large "benchmark" input, runs
   `target/release/writ run --limit fuel=...,time=600s,memory=4G,depth=...`
   on it, checks the printed value against the suite's published output, and
   reports the best wall-clock time of --runs runs (default 3). A run that
   fails or prints a wrong value is not repeated.
3. Times fib(27) in Writ, and plain-Python versions (examples/bench/py/) of
   fibonacci_recursive (at 27 and at the suite's input 42) and countdown (at
   the suite's input), and prints Writ time, Python time and their ratio, and
   for countdown the nanoseconds per state operation.
4. If the `lupa` package is installed (pip install lupa), times the same
   fib(27) and countdown in Lua (examples/bench/py/lua.py), inside the
   process.

Times are wall-clock times of the whole process (start-up, parsing and type
checking included: a few milliseconds); the CPU time (user + sys) of the best
run is shown next to it, since the wall time suffers on a busy machine.
Standard library only (Lua optionally through lupa).
"""

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
WRIT = ROOT / "target" / "release" / "writ"
LIMITS = "fuel=100000000000,time=600s,memory=4G,depth=100000000"
TIMEOUT = 700  # seconds; writ's own time limit is 600 s

# name -> (benchmark input, published output at that input)
# Inputs are those of the suite's Makefiles (`make bench`), which agree with
# descriptions/NAME/README.md except where noted.
BENCHMARKS = [
    ("countdown", 200000000, "0"),
    # README: "Output: 43349443k" (a typo, and it is fib(43)); the suite's
    # implementations compute fib(42) with fib(0) = 0, fib(1) = 1.
    ("fibonacci_recursive", 42, "267914296"),
    ("product_early", 100000, "0"),
    ("iterator", 40000000, "800000020000000"),
    ("nqueens", 12, "14200"),
    ("generator", 25, "67108837"),
    ("tree_explore", 16, "1005"),
    ("triples", 300, "460212934"),
    ("parsing_dollars", 20000, "200010000"),
    ("resume_nontail", 20000, "357"),
    ("handler_sieve", 60000, "171848738"),
]
FIB_SMALL = 27
FIB_SMALL_OUT = "196418"

LET_N = re.compile(r"^let n = .*$", re.MULTILINE)


def run_timed(cmd):
    """Run cmd; return (wall seconds, cpu seconds, returncode, stdout, stderr)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as e:
        code, out, err = None, e.stdout or "", "timed out after %d s" % TIMEOUT
        if isinstance(out, bytes):
            out = out.decode(errors="replace")
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, code, out, err


def best_of(cmd, expected, runs):
    """Best (wall, cpu) of `runs` runs of cmd, and an error message or None."""
    results = []
    for _ in range(runs):
        wall, cpu, code, out, err = run_timed(cmd)
        if code != 0:
            msg = err.strip().splitlines()
            return None, "exit %s: %s" % (code, msg[-1] if msg else "")
        if out.strip() != expected:
            return None, "printed %r, expected %r" % (out.strip()[:60], expected)
        results.append((wall, cpu))
    return min(results), None


def writ_cmd(path):
    return [str(WRIT), "run", "--limit", LIMITS, str(path)]


def with_input(name, n, tmpdir):
    """A copy of NAME.writ with its `let n = ...` line set to n."""
    src = (HERE / (name + ".writ")).read_text()
    new, count = LET_N.subn("let n = %d" % n, src, count=1)
    if count != 1:
        sys.exit("%s.writ has no `let n = ...` line" % name)
    path = Path(tmpdir) / ("%s_%d.writ" % (name, n))
    path.write_text(new)
    return path


def fmt(t):
    return "-" if t is None else "%.3f" % t


def check_small():
    print("Test inputs (the `let n` in each file) against NAME.expected:")
    bad = 0
    for name, _, _ in BENCHMARKS:
        expected = (HERE / (name + ".expected")).read_text()
        _, _, code, out, err = run_timed(writ_cmd(HERE / (name + ".writ")))
        ok = code == 0 and out == expected
        bad += not ok
        print("  %-20s %s" % (name, "ok" if ok else "FAIL: exit %s, printed %r %s"
                              % (code, out, err.strip()[-200:])))
    print()
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="runs per timing (best is kept)")
    ap.add_argument("--only", help="comma-separated benchmark names")
    ap.add_argument("--no-python", action="store_true", help="skip the Python comparison")
    args = ap.parse_args()

    if not WRIT.exists():
        sys.exit("%s is missing: run `cargo build --release` in %s first" % (WRIT, ROOT))
    only = set(args.only.split(",")) if args.only else None
    if only:
        unknown = only - {b[0] for b in BENCHMARKS}
        if unknown:
            sys.exit("unknown benchmark(s): %s" % ", ".join(sorted(unknown)))

    print("writ: %s (built %s)" % (WRIT, time.strftime(
        "%Y-%m-%d %H:%M", time.localtime(WRIT.stat().st_mtime))))
    print("python: %s %s" % (sys.executable, sys.version.split()[0]))
    print("best of %d runs; limits %s\n" % (args.runs, LIMITS))

    built = WRIT.stat().st_mtime
    check_small()

    writ_times = {}
    with tempfile.TemporaryDirectory(prefix="writ-bench-") as tmp:
        print("%-20s %10s  %-16s %10s %10s  %s" % (
            "benchmark", "input", "output", "wall s", "cpu s", "status"))
        print("-" * 84)
        for name, n, expected in BENCHMARKS:
            if only and name not in only:
                continue
            best, error = best_of(writ_cmd(with_input(name, n, tmp)), expected, args.runs)
            writ_times[name] = best
            print("%-20s %10d  %-16s %10s %10s  %s" % (
                name, n, expected, fmt(best and best[0]), fmt(best and best[1]),
                error or "ok"), flush=True)
        print()

        if args.no_python or (only and not only & {"countdown", "fibonacci_recursive"}):
            warn_if_rebuilt(built)
            return
        py = sys.executable
        rows = []  # (label, writ (wall, cpu), python (wall, cpu), ops or None)
        if not only or "fibonacci_recursive" in only:
            w27, e = best_of(writ_cmd(with_input("fibonacci_recursive", FIB_SMALL, tmp)),
                             FIB_SMALL_OUT, args.runs)
            if e:
                print("writ fib(%d): %s" % (FIB_SMALL, e))
            p27, e = best_of([py, str(HERE / "py" / "fib.py"), str(FIB_SMALL)],
                             FIB_SMALL_OUT, args.runs)
            if e:
                print("python fib(%d): %s" % (FIB_SMALL, e))
            rows.append(("fib(%d)" % FIB_SMALL, w27, p27, None))
            _, fib_n, fib_out = BENCHMARKS[1]
            if fib_n > FIB_SMALL:
                p, e = best_of([py, str(HERE / "py" / "fib.py"), str(fib_n)], fib_out, args.runs)
                if e:
                    print("python fib(%d): %s" % (fib_n, e))
                rows.append(("fib(%d)" % fib_n, writ_times.get("fibonacci_recursive"), p, None))
        if not only or "countdown" in only:
            _, cd_n, cd_out = BENCHMARKS[0]
            p, e = best_of([py, str(HERE / "py" / "countdown.py"), str(cd_n)], cd_out, args.runs)
            if e:
                print("python countdown: %s" % e)
            rows.append(("countdown(%d)" % cd_n, writ_times.get("countdown"), p, 2 * cd_n))

        print("Writ vs Python (best wall-clock seconds; ratio = Writ / Python):")
        print("%-20s %10s %10s %8s %14s %14s" % (
            "program", "writ s", "python s", "ratio", "writ ns/op", "python ns/op"))
        print("-" * 80)
        for label, w, p, ops in rows:
            wt, pt = (w[0] if w else None), (p[0] if p else None)
            ratio = "%.2f" % (wt / pt) if wt and pt else "-"
            wn = "%.1f" % (wt * 1e9 / ops) if ops and wt else ""
            pn = "%.1f" % (pt * 1e9 / ops) if ops and pt else ""
            print("%-20s %10s %10s %8s %14s %14s" % (label, fmt(wt), fmt(pt), ratio, wn, pn))
        print()
        lua_rows(py, cd_n if (not only or "countdown" in only) else 0, args.runs)
        print("ns/op for countdown = whole-process wall time / (2 * N): one get and one put")
        print("per iteration, N iterations (the final get, at 0, is not counted). The time")
        print("includes the loop's own work (the comparison, the subtraction, the call).")
        warn_if_rebuilt(built)


def lua_rows(py, countdown_n, runs):
    """Lua's fib(27) and countdown through lupa, if it is installed
    (pip install lupa): timed inside the process, so without start-up."""
    try:
        import lupa  # noqa: F401
    except ImportError:
        print("(Lua: `pip install lupa` to compare with Lua as well)\n")
        return
    n = countdown_n or BENCHMARKS[0][1]
    proc = subprocess.run([py, str(HERE / "py" / "lua.py"), str(FIB_SMALL), str(n), str(runs)],
                          capture_output=True, text=True, timeout=TIMEOUT)
    if proc.returncode != 0:
        print("Lua: %s\n" % proc.stderr.strip()[-200:])
        return
    print("Lua through lupa (timed inside the process, without start-up; best of %d):" % runs)
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) == 4:
            version, what, secs, result = parts
            extra = ""
            if what.startswith("countdown"):
                extra = "  %.1f ns/op" % (float(secs) * 1e9 / (2 * n))
            print("  %-8s %-22s %10.3f s%s" % (version, what, float(secs), extra))
    print()


def warn_if_rebuilt(built):
    if WRIT.stat().st_mtime != built:
        print("\nWARNING: %s was rebuilt while the benchmarks ran; the times may mix builds."
              % WRIT)


if __name__ == "__main__":
    main()
