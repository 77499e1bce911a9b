#!/usr/bin/env python3
"""Regenerate docs/errors.md, the reference of every Writ diagnostic code.

Run it from the repository root, after `cargo build`:

    cargo build
    python3 docs/tools/gen_errors.py

It REWRITES docs/errors.md (pass another path as the first argument to
write there instead). The prose and the example programs live in
docs/tools/errors_sections.py; this script runs every example through
`target/debug/writ check` (with NO_COLOR=1, in a scratch directory) and pastes
the real output into the document, so the output shown is always what the
binary prints. It stops with an error if an example does not produce its
code, exits with an unexpected status, or if a fix shown is not accepted.

The set of codes and their titles come from the `codes!` macro in
lang/src/diagnostic.rs; every code there needs an entry in SECTIONS, and the
sections come out in the macro's order.

`cargo test --test errors_doc` checks that docs/errors.md still matches the
binary's behaviour; when it fails after a deliberate change to a diagnostic,
rerun this script and review the diff of docs/errors.md.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
W = os.path.join(os.environ.get("CARGO_TARGET_DIR") or os.path.join(REPO, "target"), "debug", "writ")
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "docs", "errors.md")

sys.dont_write_bytecode = True  # no __pycache__ in docs/tools
sys.path.insert(0, HERE)
from errors_sections import INTRO, SECTIONS  # noqa: E402

if not os.path.exists(W):
    sys.exit(f"{W} not found: run `cargo build` first")

with open(os.path.join(REPO, "lang", "src", "diagnostic.rs"), encoding="utf-8") as f:
    src = f.read()
macro = src[src.index("codes! {"):]
macro = macro[:macro.index("\n}\n")]
CODES = re.findall(r'(\w+) = "(\w+)", "([^"]+)";', macro)

SCRATCH = tempfile.mkdtemp(prefix="writ-errors-doc-")


def fail(msg):
    shutil.rmtree(SCRATCH, ignore_errors=True)
    sys.exit(msg)


def fresh_dir(name):
    d = os.path.join(SCRATCH, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def run(code, files, args, name=None, cmd="check"):
    d = fresh_dir(name or code)
    for name, content in files.items():
        p = os.path.join(d, name)
        if content is None:
            os.makedirs(p, exist_ok=True)
            continue
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(content if isinstance(content, bytes) else content.encode())
    r = subprocess.run([W, cmd, *args], cwd=d, capture_output=True,
                       env={"NO_COLOR": "1", "PATH": os.environ["PATH"]})
    out = r.stdout.decode()
    if cmd == "run":
        # `writ run` prints the program's output on stdout and diagnostics
        # on stderr; the document shows both, output first.
        out += r.stderr.decode()
    elif r.stderr:
        fail(f"{code}: stderr: {r.stderr.decode()}")
    if f"[{code}]" not in out:
        fail(f"{code}: example does not produce {code}:\n{out}")
    return out, r.returncode


def accepted(code, text, options, cmd="check", policy=None):
    """The fix is checked with the options of the section's example (its
    arguments less the last, the file), as tests/errors_doc.rs does; for a
    run-time error, the fixed program must run to the end."""
    d = fresh_dir(code + "-fix")
    with open(os.path.join(d, "main.writ"), "w", encoding="utf-8") as f:
        f.write(text)
    if policy is not None:
        with open(os.path.join(d, "policy.toml"), "w", encoding="utf-8") as f:
            f.write(policy)
    r = subprocess.run([W, cmd, *options, "main.writ"], cwd=d, capture_output=True,
                       env={"NO_COLOR": "1", "PATH": os.environ["PATH"]})
    if r.returncode != 0:
        fail(f"{code}: fix is not accepted:\n{text}\n{r.stdout.decode()}")


# The JSON example in the introduction.
JSON_SOURCE = "let xs = [1, 2, 3)\n"
intro = INTRO
if "@@JSON@@" in intro:
    d = fresh_dir("json")
    with open(os.path.join(d, "main.writ"), "w", encoding="utf-8") as f:
        f.write(JSON_SOURCE)
    r = subprocess.run([W, "check", "--format", "json", "main.writ"], cwd=d, capture_output=True,
                       env={"NO_COLOR": "1", "PATH": os.environ["PATH"]})
    if r.returncode != 1:
        fail(f"JSON example: exit code {r.returncode}")
    intro = intro.replace("@@JSON_SOURCE@@", JSON_SOURCE.rstrip("\n"))
    intro = intro.replace("@@JSON@@", r.stdout.decode().rstrip("\n"))
parts = [intro.strip() + "\n"]
by_code = {s["code"]: s for s in SECTIONS}
documented, defined = set(by_code), {c for _, c, _ in CODES}
if documented != defined:
    fail(f"codes without a section: {sorted(defined - documented)}; "
         f"sections without a code: {sorted(documented - defined)}")
def shown_exactly(code, what, text):
    """A program shown in a ```writ block must be the file exactly, less its
    final line break, so that tests/errors_doc.rs can rebuild the file."""
    if not text.endswith("\n") or text.endswith("\n\n") or text.startswith("\n"):
        fail(f"{code}: {what} must end with exactly one line break, and not start with one")


for variant, code, title in CODES:
    s = by_code[code]
    if s.get("not_run"):
        # A code no command line can produce (the host cancels a run);
        # the section explains it and shows a fix, which is checked.
        body = [f"## {code}: {title}", "", s["meaning"].strip(), ""]
        if s.get("before"):
            body += [s["before"].strip(), ""]
        body += [s["fix"].strip(), ""]
        shown_exactly(code, "fix_code", s["fix_code"])
        accepted(code, s["fix_code"], [], s.get("cmd", "check"))
        body += ["```writ", s["fix_code"].rstrip("\n"), "```", ""]
        parts.append("\n".join(body))
        continue
    if "show" not in s and "files" not in s:
        shown_exactly(code, "source", s["source"])
    for extra in s.get("extra", []):
        shown_exactly(code, "extra source", extra["source"])
    if s.get("fix_code"):
        shown_exactly(code, "fix_code", s["fix_code"])
    files = dict(s.get("files") or {"main.writ": s["source"]})
    if s.get("policy"):
        files["policy.toml"] = s["policy"]
    args = s.get("args", ["main.writ"])
    cmd = s.get("cmd", "check")
    out, rc = run(code, files, args, cmd=cmd)
    shown_src = s.get("show", s.get("source"))
    shown_out = out
    for a, b in s.get("replace_out", []):
        if a not in shown_out:
            fail(f"{code}: {a!r} is not in the output")
        shown_out = shown_out.replace(a, b)
    want_rc = s.get("rc", 1)
    if rc != want_rc:
        fail(f"{code}: exit code {rc}, expected {want_rc}")
    body = [f"## {code}: {title}", "", s["meaning"].strip(), ""]
    if s.get("before"):
        body += [s["before"].strip(), ""]
    if s.get("policy"):
        body += ["With this `policy.toml`:", "", "```toml", s["policy"].rstrip("\n"), "```", ""]
        body += ["and this `main.writ`:", ""]
    body += ["```writ", shown_src.rstrip("\n"), "```", ""]
    body += [s.get("lead", f"`writ {cmd} main.writ` prints:").strip(), ""]
    body += ["```text", shown_out.rstrip("\n"), "```", ""]
    # Further examples, each run like the first (as `main.writ`, expected
    # to be rejected with this code).
    for i, extra in enumerate(s.get("extra", [])):
        out, rc = run(code, {"main.writ": extra["source"]}, ["main.writ"], f"{code}-{i + 2}")
        if rc != 1:
            fail(f"{code}: extra example {i + 2}: exit code {rc}, expected 1")
        body += [extra["before"].strip(), ""]
        body += ["```writ", extra["source"].rstrip("\n"), "```", ""]
        body += ["`writ check main.writ` prints:", ""]
        body += ["```text", out.rstrip("\n"), "```", ""]
    if s.get("after"):
        body += [s["after"].strip(), ""]
    body += [s["fix"].strip(), ""]
    if s.get("fix_policy"):
        body += ["```toml", s["fix_policy"].rstrip("\n"), "```", ""]
    if s.get("fix_code"):
        accepted(code, s["fix_code"], args[:-1], cmd, s.get("fix_policy") or s.get("policy"))
        body += ["```writ", s["fix_code"].rstrip("\n"), "```", ""]
    if s.get("fix_after"):
        body += [s["fix_after"].strip(), ""]
    parts.append("\n".join(body))

shutil.rmtree(SCRATCH, ignore_errors=True)
text = "\n".join(parts).rstrip("\n") + "\n"
for ch in text:
    if 0x202A <= ord(ch) <= 0x202E or 0x2066 <= ord(ch) <= 0x2069 or ord(ch) in (0x200E, 0x200F, 0x061C, 0x200B, 0x2028, 0x2029, 0x85, 0x0B, 0x0C, 0x0D):
        sys.exit(f"doc contains control character U+{ord(ch):04X}")
for line in text.splitlines():
    if line.startswith("## ") and not re.match(r"## [EW]\d{4}: ", line):
        sys.exit(f"stray level-2 heading: {line}")
with open(OUT, "w", encoding="utf-8") as f:
    f.write(text)
print("wrote", os.path.relpath(OUT), len(text), "bytes")
