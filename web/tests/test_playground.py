"""The playground in a real browser: Debian's Chromium, headless, driven
by Playwright, against the built page (web/build.sh) served on loopback.

Each story a student plays is one test, in order, on one page: a
diagnostic as they type and its fix run with its Log output; a program
needing a capability the policy does not grant, refused; a payment
planned then approved; a question answered in the dialog; a runaway loop
stopped by its limit while the page keeps answering; a run stopped by
hand with the audit log kept; a lab loaded from the menu and run. A
screenshot of each step is saved in the output folder
(WRIT_WEB_ARTIFACTS, default target/web-test), which CI keeps.

Environment: WRIT_WEB_DIST (the built page, default web/dist),
WRIT_CHROMIUM (default /usr/bin/chromium).
"""

import functools
import json
import subprocess
import http.server
import os
import threading
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
DIST = Path(os.environ.get("WRIT_WEB_DIST", ROOT / "web" / "dist"))
SHOTS = Path(os.environ.get("WRIT_WEB_ARTIFACTS", ROOT / "target" / "web-test"))
CHROMIUM = os.environ.get("WRIT_CHROMIUM", "/usr/bin/chromium")

# As the machine's notes say: without the background-networking flags,
# Chromium keeps trying the closed network.
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]

LOG_ONLY = '[principal]\nid = "student"\nrole = "student"\n\n[grants.Log]\n'
PAYING = LOG_ONLY + (
    '\n[grants.Pay]\npayees = ["air-one.example"]\ncurrency = "EUR"\n'
    "max_payment_cents = 50000\n"
)


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server():
    assert (DIST / "index.html").is_file(), f"build the page first: web/build.sh {DIST}"
    handler = functools.partial(Quiet, directory=str(DIST))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


@pytest.fixture(scope="module")
def page(server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    # Playwright gives the browser a new, empty profile of its own.
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1500, "height": 1100})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server)
        expect(page.locator("body")).to_have_attribute("data-ready", "true", timeout=60_000)
        yield page
        browser.close()
        assert errors == [], errors


def shot(page, name):
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def edit(page, program=None, policy=None):
    """Replace the program and the policy, and wait for their check."""
    if policy is not None:
        page.fill("#policy", policy)
    if program is not None:
        page.fill("#source", program)
    expect(page.locator("body")).not_to_have_attribute("data-checking", "true", timeout=30_000)


def run(page):
    page.click("#run")
    expect(page.locator("#run")).to_be_enabled(timeout=60_000)


def test_a_diagnostic_appears_as_the_student_types_and_the_fix_runs(page):
    edit(page, 'Log.info("hello"\n', LOG_ONLY)
    first = page.locator("#diagnostics li").first
    expect(first).to_contain_text("E0010")
    expect(first).to_contain_text("expected `)`")
    expect(first).to_contain_text("help: add `)`")
    expect(page.locator("#highlight .diag")).not_to_have_count(0)
    shot(page, "01-diagnostic")
    # The code explains itself.
    first.locator("button.code").click()
    expect(page.locator("#explanation")).to_contain_text("E0010")

    edit(page, 'Log.info("hello")\n1 + 2\n')
    expect(page.locator("#diagnostics")).to_contain_text("No problems.")
    expect(page.locator("#highlight .diag")).to_have_count(0)
    run(page)
    expect(page.locator("#result")).to_contain_text("3")
    expect(page.locator("#log")).to_have_text("hello")
    shot(page, "02-run")


def test_a_capability_the_policy_does_not_grant_is_refused(page):
    edit(page, 'Log.info("paying")\nPay.pay("air-one.example", 100, "memo")\n', LOG_ONLY)
    expect(page.locator("#diagnostics li").first).to_contain_text("E3002")
    expect(page.locator("#grants")).to_contain_text("Pay not granted")
    expect(page.locator("#manifest .not-granted")).to_contain_text("Pay.pay (line 2)")
    run(page)
    expect(page.locator("#result")).to_contain_text("Rejected before its first step")
    expect(page.locator("#log")).to_have_text("")
    shot(page, "03-refused")


def test_a_plan_pays_nothing_and_its_approval_pays_it(page):
    edit(
        page,
        'let r = Pay.pay("air-one.example", 38900, "flight A1-318")\nr.id\n',
        PAYING,
    )
    expect(page.locator("#diagnostics")).to_contain_text("No problems.")
    page.click("#plan")
    expect(page.locator("#plan-words")).to_contain_text(
        'Pay 389.00 EUR to air-one.example ("flight A1-318")', timeout=30_000
    )
    expect(page.locator("#ledger tbody tr")).to_have_count(0)
    expect(page.locator("#approve")).to_be_enabled()
    shot(page, "04-plan")
    page.click("#approve")
    expect(page.locator("#result")).to_contain_text('"pay-1"', timeout=30_000)
    expect(page.locator("#ledger tbody tr")).to_have_count(1)
    expect(page.locator("#ledger")).to_contain_text("389.00 EUR")
    expect(page.locator("#verified")).to_contain_text("Chain verified")
    expect(page.locator("#approve")).to_be_disabled()
    shot(page, "05-approved")


def test_confirm_asks_in_a_dialog(page):
    edit(
        page,
        'Log.info("asking")\nif Confirm.ask("Book it?") { "booked" } else { "kept" }\n',
        LOG_ONLY + "\n[grants.Confirm]\n",
    )
    expect(page.locator("#diagnostics")).to_contain_text("No problems.")
    page.click("#run")
    expect(page.locator("#confirm")).to_be_visible(timeout=30_000)
    expect(page.locator("#question")).to_have_text('"Book it?"')
    shot(page, "06-confirm")
    page.click("#confirm-yes")
    expect(page.locator("#result")).to_contain_text('"booked"', timeout=30_000)


def test_a_runaway_loop_stops_at_its_limit_and_the_page_stays_responsive(page):
    edit(
        page,
        "fn spin(n: Int) -> Int { spin(n + 1) }\nspin(0)\n",
        LOG_ONLY + '\n[limits]\nfuel = 30000000\ntime = "20s"\n',
    )
    expect(page.locator("#diagnostics")).to_contain_text("No problems.")
    page.click("#run")
    expect(page.locator("#stop")).to_be_enabled()
    # While it runs, the editor is still checked as the student types.
    page.locator("#source").press("End")
    page.locator("#source").type("+")
    expect(page.locator("#diagnostics li").first).to_contain_text("E0", timeout=10_000)
    page.locator("#source").press("Backspace")
    expect(page.locator("#result")).to_contain_text("E5001", timeout=60_000)
    expect(page.locator("#result")).to_contain_text("raise `fuel` in the policy's `[limits]`")
    shot(page, "07-limit")
    # The time limit holds in the page too (the page's clock).
    edit(page, policy=LOG_ONLY + '\n[limits]\nfuel = 1000000000000\ntime = "300ms"\n')
    run(page)
    expect(page.locator("#result")).to_contain_text("E5005")
    # And memory: a list that doubles until the limit stops it.
    edit(
        page,
        "fn grow(xs: List[Int]) -> List[Int] { grow(xs ++ xs) }\ngrow([1])\n",
        LOG_ONLY + '\n[limits]\nmemory = "8M"\n',
    )
    run(page)
    expect(page.locator("#result")).to_contain_text("E5002")
    shot(page, "07-memory")


def test_stop_cancels_a_run_and_the_audit_log_is_kept(page):
    before = page.locator("#ledger tbody tr").count()
    # A payment, then a loop with no end: the payment's record and ledger
    # row are committed before the loop, and the page keeps them when the
    # worker running the loop is ended.
    edit(
        page,
        'fn spin(n: Int) -> Int { spin(n + 1) }\nPay.pay("air-one.example", 100, "before the loop")\nspin(0)\n',
        PAYING + '\n[limits]\nfuel = 1000000000000\ntime = "10m"\n',
    )
    page.click("#run")
    expect(page.locator("#stop")).to_be_enabled()
    page.wait_for_timeout(500)
    page.click("#stop")
    expect(page.locator("#result")).to_contain_text("Stopped", timeout=10_000)
    expect(page.locator("#run")).to_be_enabled()
    # The new worker has the store the page kept: the payment is there,
    # and the chain verifies.
    expect(page.locator("#ledger tbody tr")).to_have_count(before + 1)
    expect(page.locator("#ledger")).to_contain_text("before the loop")
    expect(page.locator("#verified")).to_contain_text("Chain verified")
    shot(page, "08-stopped")
    edit(page, 'Log.info("after")\n"again"\n')
    run(page)
    expect(page.locator("#result")).to_contain_text('"again"')


def test_a_lab_loads_from_the_menu_and_runs(page):
    option = page.locator("#examples option[data-id='lab4/guided/trip.writ@policy.toml']")
    expect(option).to_have_count(1)
    page.select_option("#examples", value=option.get_attribute("value"))
    expect(page.locator("#policy-name")).to_have_text("policy.toml")
    expect(page.locator("#source")).to_have_value(
        (ROOT / "docs/course/lab4-attenuation/guided/trip.writ").read_text()
    )
    # The grants and the manifest are the lab's policy's and program's.
    expect(page.locator("#grants .granted")).to_contain_text(["Http granted", "Pay granted", "Log granted"])
    expect(page.locator("#manifest")).to_contain_text("Http.get")
    expect(page.locator("#diagnostics")).to_contain_text("No problems.")
    expect(page.locator("#store-name")).to_have_text("(store lab4)")
    run(page)
    expect(page.locator("#result")).to_have_class("result ok")
    expect(page.locator("#operations")).to_contain_text("Http.get")
    shot(page, "09-lab")


def test_every_program_of_the_menu_is_checked_in_the_page_as_writ_checks_it(page):
    """Each lab and example is checked by the page's checker against its
    policy, and the verdict (accepted, or the codes of the diagnostics)
    is the command line's for the same files: `writ check --policy P`,
    or `writ check --grant Log` for a program run with Log only."""
    found = page.evaluate(
        """async () => {
      const examples = (await (await fetch('examples.json')).json()).examples;
      const w = new Worker(new URL('./worker.js', location.href), { type: 'module' });
      let n = 0;
      const waiting = new Map();
      w.onmessage = (e) => { if (!e.data.commit) waiting.get(e.data.id)(e.data); };
      const ask = (op, args) => new Promise((r) => { const id = ++n; waiting.set(id, r); w.postMessage({ id, op, args }); });
      const out = [];
      for (const e of examples) {
        const m = await ask('check', { source: e.program, policy: e.policy });
        out.push([e.program_path, e.policy_path || null, m.failed ? `failed: ${m.failed}`
          : m.answer.accepted ? 'accepted'
          : m.answer.diagnostics.concat(m.answer.policy_diagnostics).filter((d) => d.severity === 'error').map((d) => d.code).join(',')]);
      }
      w.terminate();
      return out;
    }"""
    )
    assert len(found) > 60, found
    writ = os.environ.get("WRIT_BIN", str(ROOT / "target" / "debug" / "writ"))
    differ = []
    for program, policy, verdict in found:
        judged = ["--policy", policy] if policy else ["--grant", "Log"]
        cli = subprocess.run(
            [writ, "check", "--format", "json", *judged, program],
            cwd=ROOT, capture_output=True, text=True, timeout=60,
        )
        report = json.loads(cli.stdout) if cli.stdout.strip() else {"files": []}
        codes = [
            d["code"]
            for f in report.get("files", [])
            for d in f["diagnostics"]
            if d.get("severity") == "error"
        ]
        expected = ",".join(codes) if codes else "accepted"
        if verdict != expected:
            differ.append((program, policy, verdict, expected, cli.stderr[:200]))
    assert differ == []
