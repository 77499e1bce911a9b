#!/usr/bin/env python3
"""Report the size of the primer for models, in bytes and in tokens.

    cargo build                    # first: this script builds nothing
    python3 examples/bench/primer_tokens.py [--writ PATH]

What a model's prompt carries from Writ (issue 19): the primer as
`writ primer` prints it, its core (the text up to `<!-- core ends -->` in
docs/primer.md, which the MCP server's tool descriptions carry), and the
primer followed by the grants in words of each example policy
(`writ primer --policy P`). Tokens are approximate: characters / 4,
rounded up, the usual rule of thumb for English text and code; a real
tokenizer differs by some tens of percent either way.

The binary is `--writ`, else target/release/writ, else target/debug/writ
(under $CARGO_TARGET_DIR when it is set). Standard library only; not a
timed test: the figures are sizes, the same on every machine.
"""

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CORE_ENDS = "<!-- core ends -->"
POLICIES = [
    "examples/book_ticket/policy.toml",
    "examples/hr_review/policy.toml",
    "examples/my_benefits/policy.toml",
    "examples/my_benefits/log_only.toml",
]


def find_writ(given: str | None) -> Path:
    if given:
        return Path(given)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    for profile in ("release", "debug"):
        candidate = target / profile / "writ"
        if candidate.exists():
            return candidate
    sys.exit(f"no writ binary under {target}: run `cargo build` first, or pass --writ PATH")


def primer(writ: Path, policy: str | None) -> str:
    args = [str(writ), "primer"] + (["--policy", policy] if policy else [])
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"`{' '.join(args)}` failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return done.stdout


def tokens(text: str) -> int:
    return -(-len(text) // 4)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--writ", help="the writ binary (default: target/release/writ, else debug)")
    args = ap.parse_args()
    writ = find_writ(args.writ)
    whole = primer(writ, None)
    source = (ROOT / "docs" / "primer.md").read_text()
    core = source.split(CORE_ENDS)[0].rstrip() if CORE_ENDS in source else source
    rows = [
        ("docs/primer.md (the file)", source),
        ("writ primer", whole),
        ("its core (tool descriptions)", core),
    ]
    for policy in POLICIES:
        text = primer(writ, policy)
        rows.append((f"writ primer --policy {policy}", text))
        rows.append((f"  its grants in words alone", text[len(whole):]))
    print("| text | bytes | characters | tokens (chars / 4) |")
    print("| --- | ---: | ---: | ---: |")
    for name, text in rows:
        print(f"| {name} | {len(text.encode())} | {len(text)} | {tokens(text)} |")


if __name__ == "__main__":
    main()
