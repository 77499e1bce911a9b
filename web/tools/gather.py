#!/usr/bin/env python3
"""Gather the playground's menu: the course's labs and the examples.

Writes one JSON file (the path given, or standard output) listing each
program with the policy it runs under and the files that policy names
(its seed, its recorded responses), read from the repository as they are:

    {"examples": [{"id", "group", "store", "title", "program",
                   "program_path", "policy", "policy_name", "policy_path"
                   (absent for Log only), "files": {path-as-written: text}}]}

Which policy goes with which program is what the lab's README runs it
with (`writ run P --policy Q`, `writ plan ...`, `writ check --policy Q
P`); a program no command names runs under the policy beside it
(`policy.toml` in its folder, else the lab's), else under Log only, as
`writ run` without a policy does (with the README's `--limit`s as the
policy's `[limits]`). Instructors' solutions and test files are left out.
"""

import json
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

LOG_ONLY = """# No policy file: Log only, as `writ run` without --policy.
[principal]
id = "student"
role = "student"

[grants.Log]
"""

COMMAND = re.compile(r"writ (?:run|plan|check)([^`|\n]*)")


def limits_toml(flags):
    """`--limit fuel=100000,memory=2M` as a policy's [limits] table."""
    out = []
    for flag in flags:
        for part in flag.split(","):
            if "=" in part:
                key, value = part.split("=", 1)
                value = value.strip()
                out.append(f"{key.strip()} = {value}" if value.isdigit() else f'{key.strip()} = "{value}"')
    return "\n[limits]\n" + "\n".join(out) + "\n" if out else ""


def commands(readme, lab):
    """(program, policy or None, [limits]) for each command of the README."""
    found = []
    for m in COMMAND.finditer(readme.read_text()):
        words = m.group(1).split()
        program = next((w for w in words if w.endswith(".writ")), None)
        if not program:
            continue
        policy = None
        limits = []
        for i, w in enumerate(words):
            if w == "--policy" and i + 1 < len(words) and words[i + 1].endswith(".toml"):
                policy = words[i + 1]
            if w == "--limit" and i + 1 < len(words):
                limits.append(words[i + 1])
        if (lab / program).is_file() and (policy is None or (lab / policy).is_file()):
            found.append((program, policy, limits))
    return found


def policy_files(policy_path):
    """The files a policy names, by the path written in it."""
    files = {}
    try:
        doc = tomllib.loads(policy_path.read_text())
    except tomllib.TOMLDecodeError:
        return files
    named = [doc.get("store", {}).get("seed"), doc.get("grants", {}).get("Http", {}).get("recorded")]
    for name in named:
        if isinstance(name, str) and (policy_path.parent / name).is_file():
            files[name] = (policy_path.parent / name).read_text()
    return files


def entry(group, store, base, program, policy, limits):
    item = {
        "id": f"{store}/{program}" + (f"@{policy}" if policy else "") + (f"+{','.join(limits)}" if limits else ""),
        "group": group,
        "store": store,
        "title": program + (f" with {policy}" if policy else "") + (f" ({', '.join(limits)})" if limits else ""),
        "program": (base / program).read_text(),
        "program_path": str((base / program).relative_to(ROOT)),
    }
    if policy:
        item["policy"] = (base / policy).read_text()
        item["policy_name"] = policy
        item["policy_path"] = str((base / policy).relative_to(ROOT))
        item["files"] = policy_files(base / policy)
    else:
        item["policy"] = LOG_ONLY + limits_toml(limits)
        item["policy_name"] = "(Log only)"
        item["files"] = {}
    return item


def labs():
    out = []
    for lab in sorted((ROOT / "docs" / "course").glob("lab*")):
        readme = lab / "README.md"
        title = readme.read_text().splitlines()[0].lstrip("# ").strip()
        store = lab.name.split("-")[0]
        seen = set()
        for program, policy, limits in commands(readme, lab):
            key = (program, policy, tuple(limits))
            if key in seen:
                continue
            seen.add(key)
            out.append(entry(title, store, lab, program, policy, limits))
        named = {p for p, _, _ in seen}
        for sub in ("starter", "guided"):
            for path in sorted((lab / sub).rglob("*.writ")):
                rel = str(path.relative_to(lab))
                if rel in named or path.name.endswith("_test.writ"):
                    continue
                beside = next((p for p in (path.parent / "policy.toml", lab / sub / "policy.toml", lab / "policy.toml") if p.is_file()), None)
                policy = str(beside.relative_to(lab)) if beside else None
                out.append(entry(title, store, lab, rel, policy, []))
    return out


def examples():
    out = []
    base = ROOT / "examples"
    for story in ("book_ticket", "my_benefits", "hr_review"):
        for path in sorted((base / story).glob("*.writ")):
            out.append(entry("Examples", story, base, f"{story}/{path.name}", f"{story}/policy.toml", []))
    for path in ("effects_tour.writ", "book_flight.writ"):
        out.append(entry("Examples", "examples", base, path, None, []))
    return out


def main():
    doc = {"examples": labs() + examples()}
    text = json.dumps(doc, indent=1, sort_keys=True)
    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
