#!/usr/bin/env python3
"""Audited operations per second on each store: a SQLite file and a
PostgreSQL database, from one process and from 16 at once.

    python3 examples/bench/store_ops.py [--writ target/release/writ]
        [--postgres URL] [--ops 1000] [--procs 16] [--rounds 3]

Each measurement runs `writ run --policy` processes against a fresh store:
a program that performs `--ops` operations of one kind, each written to
the store in its own transaction before the operation returns:

- `Audit.note`: one audit record (the chain's next link);
- `Pay.pay`: the day's total read, a ledger row and its audit record,
  in one transaction under the store's write lock.

"1 process" is one run's operations divided by its time; "16 at once" is
the operations of 16 runs started together (each a quarter of `--ops`),
divided by the time from the first start to the last end, their start-up
included. A run's start-up (the same program with no
operations) is taken off the one-process figure. The best of `--rounds`.

The PostgreSQL server is `--postgres` or `WRIT_TEST_POSTGRES` (a URL
without a password; the password in PGPASSWORD), e.g. one started by
`tests/postgres/server.sh start DIR`; each measurement makes a database
on it with psql. Without one, only SQLite is measured. Standard library
only.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

POLICY = """[principal]
id = "ada"
role = "employee"

[limits]
time = "10m"

[store]
lock_wait = "60s"
statement_timeout = "60s"

[grants.Audit]

[grants.Pay]
payees = ["air-one.example"]
currency = "USD"
max_payment_cents = 100
max_run_cents = 1000000000
max_day_cents = 1000000000
"""

PROGRAMS = {
    "Audit.note": """fn go(n: Int) -> () / {Audit} {
  if n > 0 {
    Audit.note("op")
    go(n - 1)
  }
}
go(OPS)
""",
    "Pay.pay": """fn go(n: Int) -> () / {Pay} {
  if n > 0 {
    Pay.pay("air-one.example", 1, "op")
    go(n - 1)
  }
}
go(OPS)
""",
}


def fresh_store(kind, server, dir, counter=[0]):
    counter[0] += 1
    if kind == "sqlite":
        return str(dir / f"s{counter[0]}.db")
    name = f"writ_bench_{os.getpid()}_{counter[0]}"
    subprocess.run(
        ["psql", server, "-X", "-q", "-c", f"CREATE DATABASE {name}"],
        check=True,
    )
    return server.rsplit("/", 1)[0] + "/" + name


def run_all(writ, dir, program, db, procs):
    """Start `procs` runs of `program` against `db` together; the seconds
    from the first start to the last end."""
    start = time.perf_counter()
    children = [
        subprocess.Popen(
            [writ, "run", program, "--policy", "policy.toml", "--db", db],
            cwd=dir,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for _ in range(procs)
    ]
    for c in children:
        _, err = c.communicate()
        if c.returncode != 0:
            sys.exit(f"a run failed: {err.decode(errors='replace')}")
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--writ", default=str(ROOT / "target" / "release" / "writ"))
    ap.add_argument("--postgres", default=os.environ.get("WRIT_TEST_POSTGRES"))
    ap.add_argument("--ops", type=int, default=1000)
    ap.add_argument("--procs", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    args.writ = str(Path(args.writ).resolve())
    kinds = ["sqlite"] + (["postgres"] if args.postgres else [])
    if not args.postgres:
        print("no PostgreSQL server (--postgres or WRIT_TEST_POSTGRES): SQLite only")
    with tempfile.TemporaryDirectory() as d:
        dir = Path(d)
        (dir / "policy.toml").write_text(POLICY)
        per_proc = max(1, args.ops // 4)
        for op, text in PROGRAMS.items():
            (dir / f"{op}.writ").write_text(text.replace("OPS", str(args.ops)))
            (dir / f"{op}-each.writ").write_text(text.replace("OPS", str(per_proc)))
            (dir / f"{op}-none.writ").write_text(text.replace("OPS", "0"))
        results = {}
        for op in PROGRAMS:
            for kind in kinds:
                one, many = [], []
                for _ in range(args.rounds):
                    db = fresh_store(kind, args.postgres, dir)
                    # Created (and its schema checked) before timing.
                    run_all(args.writ, dir, f"{op}-none.writ", db, 1)
                    idle = run_all(args.writ, dir, f"{op}-none.writ", db, 1)
                    took = run_all(args.writ, dir, f"{op}.writ", db, 1)
                    one.append(args.ops / max(took - idle, 1e-9))
                    db = fresh_store(kind, args.postgres, dir)
                    run_all(args.writ, dir, f"{op}-none.writ", db, 1)
                    took = run_all(args.writ, dir, f"{op}-each.writ", db, args.procs)
                    many.append(per_proc * args.procs / took)
                results[(op, kind)] = (max(one), max(many))
        print()
        print(f"| operation | store | 1 process (ops/s) | {args.procs} at once (ops/s) |")
        print("| --- | --- | ---: | ---: |")
        for (op, kind), (one, many) in results.items():
            print(f"| `{op}` | {kind} | {one:,.0f} | {many:,.0f} |")
        if "postgres" in kinds:
            print()
            for op in PROGRAMS:
                s1, s16 = results[(op, "sqlite")]
                p1, p16 = results[(op, "postgres")]
                print(
                    f"{op}: PostgreSQL / SQLite = {p1 / s1:.2f}x (1 process), "
                    f"{p16 / s16:.2f}x ({args.procs} at once)"
                )
        print(
            f"\n{args.ops} operations in one run, {per_proc} in each of {args.procs} at once; "
            f"best of {args.rounds}"
        )


if __name__ == "__main__":
    main()
