#!/usr/bin/env python3
"""Time the standard library's heavy functions beside python3 doing the same.

    cargo build --release          # first: this script builds nothing
    python3 examples/bench/stdlib_bench.py [--runs N]

Four workloads, each in Writ (target/release/writ run) and in Python:

1. json: parse a 1 MB JSON document (an array of order records with
   nested objects, strings with escapes and non-ASCII text, floats and
   integers), then count its records. The document is generated here,
   deterministically, and embedded in the Writ program as a string literal.
2. sort_by: sort 10^5 records ({id, price, name}) by their price field
   with a stable key sort (list.sort_by / sorted(key=...)).
3. sort: sort 10^5 integers (list.sort / sorted).
4. map: double the integers below 10^6 and sum them
   (list.sum(list.map(list.range(0, 10^6), fn(x) { x * 2 })) /
   sum([x * 2 for x in range(10**6)])): a closure called per element
   and a list built by appending.

The work is done REPS times inside one process, and the process is also run
with the work done 0 times; the figure reported is
(time with REPS - time with 0) / REPS, so start-up, checking and building
the input are left out on both sides. Python times itself the same way
(time.perf_counter around the loop) after building the same input. Best of
--runs runs (default 3). Standard library only.

The memory of the parsed JSON document is measured the same way on both
sides: the peak resident set (/usr/bin/time) of a process that parses it
once, less that of the same process that does not parse it (writ run, and
python3 reading the document from a file).
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
WRIT = ROOT / "target" / "release" / "writ"
LIMITS = "fuel=100000000000,time=600s,memory=4G"
REPS = 10
N_RECORDS = 100_000


def document() -> str:
    """A deterministic JSON array of about 1 MB."""
    state = 12345

    def rnd(m: int) -> int:
        nonlocal state
        state = (state * 1103515245 + 12345) % 2147483648
        return state % m

    cities = ["Zürich", "Łódź", "São Paulo", "Kraków", "東京", "Reykjavík", "Oslo"]
    records = []
    size = 0
    i = 0
    while size < 1_000_000:
        r = {
            "id": i,
            "customer": {"name": f"Customer \"{rnd(10000)}\"", "city": cities[rnd(len(cities))]},
            "items": [
                {"sku": f"SKU-{rnd(100000):05d}", "qty": rnd(9) + 1, "price": rnd(100000) / 100}
                for _ in range(rnd(4) + 1)
            ],
            "paid": rnd(2) == 1,
            "note": None if rnd(3) else "leave at door\n\tring twice",
        }
        text = json.dumps(r, ensure_ascii=False)
        size += len(text.encode()) + 2
        records.append(r)
        i += 1
    return json.dumps(records, ensure_ascii=False)


def writ_literal(s: str) -> str:
    out = ['"']
    for c in s:
        if c == '"':
            out.append('\\"')
        elif c == "\\":
            out.append("\\\\")
        elif c == "$":
            out.append("\\$")
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def writ_json(doc: str, reps: int) -> str:
    return f"""let doc = {writ_literal(doc)}
fn count(text: Str) -> Int {{
  match json.parse(text) {{
    Ok(Array(items)) => list.length(items),
    _ => -1,
  }}
}}
fn go(n: Int, acc: Int) -> Int {{ if n == 0 {{ acc }} else {{ go(n - 1, acc + count(doc)) }} }}
go({reps}, 0)
"""


RECORDS_WRIT = """let records = list.map(list.range(0, {n}), fn(i) {{
  {{ id: i, price: (i * 7919 + 13) % 100003, name: "r${{i}}" }}
}})
"""


def writ_sort_by(reps: int) -> str:
    return RECORDS_WRIT.format(n=N_RECORDS) + f"""fn go(n: Int, acc: Int) -> Int {{
  if n == 0 {{ acc }} else {{
    let sorted = list.sort_by(records, fn(r) {{ r.price }})
    go(n - 1, acc + option.unwrap_or(option.map(list.first(sorted), fn(r) {{ r.id }}), 0))
  }}
}}
go({reps}, list.length(records))
"""


def writ_sort(reps: int) -> str:
    return f"""let xs = list.map(list.range(0, {N_RECORDS}), fn(i) {{ (i * 7919 + 13) % 100003 }})
fn go(n: Int, acc: Int) -> Int {{
  if n == 0 {{ acc }} else {{ go(n - 1, acc + option.unwrap_or(list.first(list.sort(xs)), 0)) }}
}}
go({reps}, list.length(xs))
"""


N_MAP = 1_000_000


def writ_map(reps: int) -> str:
    return f"""fn work() -> Int {{ list.sum(list.map(list.range(0, {N_MAP}), fn(x) {{ x * 2 }})) }}
fn go(n: Int, acc: Int) -> Int {{ if n == 0 {{ acc }} else {{ go(n - 1, acc + work()) }} }}
go({reps}, 0)
"""


def run_writ(program: str) -> tuple[float, str]:
    with tempfile.NamedTemporaryFile("w", suffix=".writ", delete=False, encoding="utf-8") as f:
        f.write(program)
        path = f.name
    try:
        start = time.perf_counter()
        out = subprocess.run(
            [str(WRIT), "run", "--limit", LIMITS, path],
            capture_output=True, text=True, timeout=600,
        )
        elapsed = time.perf_counter() - start
    finally:
        Path(path).unlink()
    if out.returncode != 0:
        sys.exit(f"writ failed ({out.returncode}):\n{out.stderr[:2000]}")
    return elapsed, out.stdout.strip()


def peak_rss(argv: list[str]) -> int:
    """The peak resident set of a process, in bytes, as /usr/bin/time reports
    it (a process started from this one would count this one's pages)."""
    out = subprocess.run(["/usr/bin/time", "-f", "%M", *argv],
                         capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        sys.exit(f"{argv[0]} failed while measuring memory:\n{out.stderr[-2000:]}")
    return int(out.stderr.strip().splitlines()[-1]) * 1024


def json_memory(doc: str) -> tuple[int, int]:
    """Bytes the parsed document takes: (writ, python3), best of 3 each."""
    with tempfile.TemporaryDirectory() as d:
        progs = []
        for reps in (0, 1):
            path = Path(d) / f"m{reps}.writ"
            path.write_text(writ_json(doc, reps), encoding="utf-8")
            progs.append([str(WRIT), "run", "--limit", LIMITS, str(path)])
        data = Path(d) / "doc.json"
        data.write_text(doc, encoding="utf-8")
        py = [sys.executable, "-c",
              "import json, sys; t = open(sys.argv[1], encoding='utf-8').read(); "
              "v = json.loads(t) if sys.argv[2] == '1' else None; print(len(t))",
              str(data)]
        def grew(a: list[str], b: list[str]) -> int:
            return min(peak_rss(b) for _ in range(3)) - min(peak_rss(a) for _ in range(3))
        return grew(progs[0], progs[1]), grew(py + ["0"], py + ["1"])


def writ_per_op(make, runs: int) -> tuple[float, str]:
    base = min(run_writ(make(0))[0] for _ in range(runs))
    best, value = None, ""
    for _ in range(runs):
        t, value = run_writ(make(REPS))
        best = t if best is None else min(best, t)
    return (best - base) / REPS, value


def python_per_op(work, runs: int) -> float:
    best = None
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(REPS):
            work()
        t = (time.perf_counter() - start) / REPS
        best = t if best is None else min(best, t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    if not WRIT.exists():
        sys.exit("build first: cargo build --release")

    doc = document()
    n_docs = len(json.loads(doc))
    print(f"json document: {len(doc.encode()) / 1e6:.2f} MB, {n_docs} records")
    print(f"{'workload':<10} {'writ':>10} {'python3':>10} {'ratio':>7}")

    w, value = writ_per_op(lambda reps: writ_json(doc, reps), args.runs)
    if value != str(REPS * n_docs):
        sys.exit(f"json: writ printed {value}, expected {REPS * n_docs}")
    p = python_per_op(lambda: len(json.loads(doc)), args.runs)
    print(f"{'json':<10} {w * 1e3:>8.1f}ms {p * 1e3:>8.1f}ms {w / p:>6.2f}x")
    mw, mp = json_memory(doc)
    print(f"{'json mem':<10} {mw / 1e6:>8.1f}MB {mp / 1e6:>8.1f}MB {mw / mp:>6.2f}x")

    records = [{"id": i, "price": (i * 7919 + 13) % 100003, "name": f"r{i}"} for i in range(N_RECORDS)]
    w, value = writ_per_op(writ_sort_by, args.runs)
    first = sorted(records, key=lambda r: r["price"])[0]["id"]
    if value != str(N_RECORDS + REPS * first):
        sys.exit(f"sort_by: writ printed {value}, expected {N_RECORDS + REPS * first}")
    p = python_per_op(lambda: sorted(records, key=lambda r: r["price"]), args.runs)
    print(f"{'sort_by':<10} {w * 1e3:>8.1f}ms {p * 1e3:>8.1f}ms {w / p:>6.2f}x")

    xs = [(i * 7919 + 13) % 100003 for i in range(N_RECORDS)]
    w, value = writ_per_op(writ_sort, args.runs)
    if value != str(N_RECORDS + REPS * min(xs)):
        sys.exit(f"sort: writ printed {value}, expected {N_RECORDS + REPS * min(xs)}")
    p = python_per_op(lambda: sorted(xs), args.runs)
    print(f"{'sort':<10} {w * 1e3:>8.1f}ms {p * 1e3:>8.1f}ms {w / p:>6.2f}x")

    w, value = writ_per_op(writ_map, args.runs)
    expected = REPS * sum(x * 2 for x in range(N_MAP))
    if value != str(expected):
        sys.exit(f"map: writ printed {value}, expected {expected}")
    p = python_per_op(lambda: sum([x * 2 for x in range(N_MAP)]), args.runs)
    print(f"{'map':<10} {w * 1e3:>8.1f}ms {p * 1e3:>8.1f}ms {w / p:>6.2f}x")


if __name__ == "__main__":
    main()
