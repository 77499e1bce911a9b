// The playground page: the editor, the policy, the buttons and the
// panels, and two workers running the WebAssembly host (worker.js): one
// checks as the student types, the other runs, so that diagnostics keep
// coming while a program runs. Stop ends the running worker and starts
// another; the stores (audit log, ledger, org chart) are kept here, in
// the page, and given back to it, so stopping a run loses no record.
import { highlight, utf16Offset, escapeHtml } from "./highlight.js";

const $ = (id) => document.getElementById(id);
const source = $("source");
const policy = $("policy");
const status = $("status");

// A worker with request/answer pairing.
class Host {
  constructor(onCommit) {
    this.onCommit = onCommit;
    this.start();
  }
  start() {
    this.worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
    this.next = 0;
    this.waiting = new Map();
    this.worker.onmessage = (e) => {
      const m = e.data;
      if (m.commit) { this.onCommit && this.onCommit(m.commit); return; }
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if (m.failed) w.reject(new Error(m.failed)); else w.resolve(m.answer);
    };
    this.worker.onerror = (e) => {
      for (const w of this.waiting.values()) w.reject(new Error(e.message || "the worker failed"));
      this.waiting.clear();
    };
  }
  ask(op, args) {
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, op, args });
    });
  }
  stop() {
    this.worker.terminate();
    for (const w of this.waiting.values()) w.reject(new Error("stopped"));
    this.waiting.clear();
    this.start();
  }
}

// What the page keeps of each store: the last full copy, with the
// records and rows committed since appended.
const kept = new Map();
function keepCommit(c) {
  const s = kept.get(c.store) || { meta: {}, records: [], ledger: [], employees: [] };
  s.records.push(...c.records);
  s.ledger.push(...c.ledger);
  kept.set(c.store, s);
}

const checker = new Host(null);
const runner = new Host(keepCommit);
let store = "playground";
let files = {};
let planId = null;

// The runner knows the files and the store of the example in use; a new
// runner (after Stop) is told them again, with every store kept.
async function prepareRunner() {
  for (const [name, contents] of kept) {
    await runner.ask("use_store", { name });
    await runner.ask("import", { contents });
  }
  await runner.ask("use_store", { name: store });
  await runner.ask("set_files", { files });
}

async function saveStore() {
  const contents = await runner.ask("export");
  kept.set(store, contents);
}

// ---- the editor ----------------------------------------------------

let marks = [];
function paint() {
  $("highlight").innerHTML = highlight(source.value, marks);
  $("highlight").scrollTop = source.scrollTop;
}
source.addEventListener("scroll", () => { $("highlight").scrollTop = source.scrollTop; });
source.addEventListener("keydown", (e) => {
  if (e.key === "Tab") {
    e.preventDefault();
    const { selectionStart: s, selectionEnd: t } = source;
    source.setRangeText("  ", s, t, "end");
    changed();
  }
});

function where(label) {
  return label ? `${label.start.line}:${label.start.column}` : "";
}

function showDiagnostics(list, into, text, underline) {
  into.innerHTML = "";
  for (const d of list) {
    const li = document.createElement("li");
    const primary = (d.labels || []).find((l) => l.primary) || (d.labels || [])[0];
    li.innerHTML = `<button class="code" data-code="${escapeHtml(d.code)}" title="What ${escapeHtml(d.code)} means">${escapeHtml(d.code)}</button> `
      + `<span class="message">${escapeHtml(d.message)}</span> <span class="where">${escapeHtml(where(primary))}</span>`
      + (primary && primary.message ? `<div class="label">${escapeHtml(primary.message)}</div>` : "")
      + (d.help ? `<div class="help">help: ${escapeHtml(d.help)}</div>` : "");
    into.appendChild(li);
    if (underline && primary) {
      marks.push([utf16Offset(text, primary.start.offset), utf16Offset(text, primary.end.offset), `${d.code}: ${d.message}`]);
    }
  }
}

document.addEventListener("click", async (e) => {
  const b = e.target.closest("button.code");
  if (!b) return;
  const answer = await checker.ask("explain", { code: b.dataset.code });
  const box = $("explanation");
  box.hidden = false;
  box.textContent = answer.text || `No explanation of ${b.dataset.code}.`;
});

function showCheck(c) {
  marks = [];
  showDiagnostics(c.diagnostics || [], $("diagnostics"), source.value, true);
  showDiagnostics(c.policy_diagnostics || [], $("policy-diagnostics"), policy.value, false);
  if (c.accepted) $("diagnostics").innerHTML = '<li class="none">No problems.</li>';
  const grants = $("grants");
  grants.innerHTML = "";
  for (const g of c.grants || []) {
    const li = document.createElement("li");
    li.className = g.granted ? "granted" : "not-granted";
    li.textContent = `${g.name}${g.granted ? " granted" : " not granted"}`;
    grants.appendChild(li);
  }
  const manifest = $("manifest");
  manifest.innerHTML = "";
  for (const m of c.manifest || []) {
    const li = document.createElement("li");
    li.className = m.granted ? "granted" : "not-granted";
    const at = m.sites.map((s) => {
      const line = source.value.slice(0, utf16Offset(source.value, s.start)).split("\n").length;
      return `${m.effect}.${s.operation} (line ${line})`;
    });
    li.textContent = `${m.effect}${m.capability ? "" : " (in the language)"}: ${at.join(", ") || "performed"}`;
    manifest.appendChild(li);
  }
  paint();
}

let checkTimer = null;
let checkSeq = 0;
// `data-checking` is on the page's body from an edit until the check of
// the text as it now is has been shown.
function changed() {
  paint();
  document.body.dataset.checking = "true";
  clearTimeout(checkTimer);
  checkTimer = setTimeout(check, 200);
}
async function check() {
  const seq = ++checkSeq;
  try {
    const c = await checker.ask("check", { source: source.value, policy: policy.value });
    if (seq === checkSeq) {
      showCheck(c);
      delete document.body.dataset.checking;
    }
  } catch (e) {
    // The checking worker failed (a bug: the host does not panic on any
    // input): say so, and start another.
    status.textContent = `The checker failed: ${e.message}`;
    checker.stop();
  }
}
source.addEventListener("input", changed);
policy.addEventListener("input", changed);

// ---- running -------------------------------------------------------

function setBusy(on, what) {
  for (const id of ["run", "plan", "reset", "examples"]) $(id).disabled = on;
  $("approve").disabled = on || !planId;
  $("stop").disabled = !on;
  status.textContent = on ? `${what}…` : "Ready";
}

function showOutcome(o) {
  const result = $("result");
  $("log").textContent = (o.log || []).join("\n");
  const ops = $("operations");
  ops.innerHTML = "";
  for (const op of o.operations || []) {
    const li = document.createElement("li");
    li.className = op.decision;
    li.textContent = `${op.operation}(${op.arguments}) ${op.decision}: ${op.rule}`;
    ops.appendChild(li);
  }
  if (o.status === "rejected") {
    result.className = "result error";
    result.textContent = "Rejected before its first step: see the diagnostics.";
    marks = [];
    showDiagnostics(o.diagnostics || [], $("diagnostics"), source.value, true);
    showDiagnostics(o.policy_diagnostics || [], $("policy-diagnostics"), policy.value, false);
    paint();
  } else if (o.status === "error" || o.ok === false) {
    const e = o.error || {};
    result.className = "result error";
    result.textContent = `${e.code}: ${e.message}` + (e.help ? `\nhelp: ${e.help}` : "");
  } else {
    result.className = "result ok";
    const u = o.usage || {};
    result.textContent = `${o.value === "" ? "()" : o.value}\n(${u.fuel} fuel, ${u.time_ms} ms${o.recorded ? ", Http from recorded responses" : ""})`;
  }
}

async function showAudit() {
  const a = await runner.ask("audit");
  $("store-name").textContent = `(store ${store})`;
  const v = $("verified");
  if (a.verified && a.verified.ok) {
    v.className = "verified-ok";
    v.textContent = `Chain verified: ${a.verified.records} record(s).`;
  } else {
    v.className = "verified-broken";
    v.textContent = `Chain broken: ${a.verified ? a.verified.message : "unknown"}`;
  }
  const body = $("audit").querySelector("tbody");
  body.innerHTML = "";
  for (const r of a.records || []) {
    const tr = document.createElement("tr");
    tr.className = r.decision;
    tr.innerHTML = [r.seq, r.operation, r.arguments, r.decision, r.rule, r.hash.slice(0, 12)]
      .map((x) => `<td>${escapeHtml(String(x))}</td>`).join("");
    body.appendChild(tr);
  }
  const ledger = $("ledger").querySelector("tbody");
  ledger.innerHTML = "";
  for (const r of a.ledger || []) {
    const tr = document.createElement("tr");
    tr.innerHTML = [r.id, r.payee, `${(r.cents / 100).toFixed(2)} ${r.currency}`, r.memo, r.audit_seq]
      .map((x) => `<td>${escapeHtml(String(x))}</td>`).join("");
    ledger.appendChild(tr);
  }
}

// A request to the runner that may pause at Confirm: the dialog asks,
// and the answer goes on, until the run ends.
async function drive(op, args, what) {
  setBusy(true, what);
  const started = performance.now();
  const tick = setInterval(() => {
    status.textContent = `${what}… ${((performance.now() - started) / 1000).toFixed(1)} s`;
  }, 100);
  try {
    let answer = await runner.ask(op, args);
    while (answer.status === "confirm") {
      $("log").textContent = (answer.log || []).join("\n");
      const yes = await ask(answer.question);
      answer = await runner.ask("answer", { yes });
    }
    return answer;
  } finally {
    clearInterval(tick);
    setBusy(false);
  }
}

function ask(question) {
  const dialog = $("confirm");
  $("question").textContent = question;
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), { once: true });
    dialog.showModal();
  });
}

// A check still waiting for the student to stop typing is made now, so
// that the grants and manifest shown are those of what runs.
function checkNow() {
  if (document.body.dataset.checking) {
    clearTimeout(checkTimer);
    check();
  }
}

$("run").addEventListener("click", async () => {
  checkNow();
  try {
    const o = await drive("run", { source: source.value, policy: policy.value }, "Running");
    showOutcome(o);
    await saveStore();
    await showAudit();
  } catch (e) {
    stopped(e);
  }
});

$("plan").addEventListener("click", async () => {
  checkNow();
  try {
    const p = await drive("plan", { source: source.value, policy: policy.value }, "Planning");
    if (p.status === "plan") {
      planId = p.id;
      $("plan-words").textContent = p.words.join("\n");
      $("log").textContent = (p.log || []).join("\n");
      $("result").className = "result";
      $("result").textContent = `Planned: ${p.acts} act(s) to approve; nothing was carried out.`;
      $("approve").disabled = false;
    } else {
      planId = null;
      showOutcome(p);
    }
  } catch (e) {
    stopped(e);
  }
});

$("approve").addEventListener("click", async () => {
  const id = planId;
  planId = null;
  try {
    const o = await drive("approve", { id }, "Running the approved plan");
    showOutcome(o);
    await saveStore();
    await showAudit();
  } catch (e) {
    stopped(e);
  }
});

$("stop").addEventListener("click", () => {
  runner.stop();
});

async function stopped(e) {
  // The run's worker was ended (Stop) or failed: a new one gets the
  // stores the page kept.
  setBusy(false);
  $("result").className = "result error";
  $("result").textContent = e.message === "stopped"
    ? "Stopped: the run was cancelled; what it wrote to the audit log is kept."
    : `The host failed: ${e.message}`;
  try {
    await prepareRunner();
    await showAudit();
  } catch (err) {
    status.textContent = `Could not restart: ${err.message}`;
  }
}

$("reset").addEventListener("click", async () => {
  await runner.ask("reset");
  kept.delete(store);
  await showAudit();
});

// ---- examples ------------------------------------------------------

let examples = [];
async function loadExamples() {
  const response = await fetch(new URL("./examples.json", import.meta.url));
  examples = (await response.json()).examples;
  const select = $("examples");
  const groups = new Map();
  for (const [i, e] of examples.entries()) {
    if (!groups.has(e.group)) {
      const g = document.createElement("optgroup");
      g.label = e.group;
      groups.set(e.group, g);
      select.appendChild(g);
    }
    const o = document.createElement("option");
    o.value = String(i);
    o.textContent = e.title;
    o.dataset.id = e.id;
    groups.get(e.group).appendChild(o);
  }
}

const LOG_ONLY = '# Log only, as `writ run` without a policy.\n[principal]\nid = "student"\nrole = "student"\n\n[grants.Log]\n';
const HELLO = '/// Try editing me: the checker answers as you type.\nfn greet(name: Str) -> Str {\n  "Hello, " ++ name ++ "!"\n}\n\nLog.info(greet("Writ"))\nlist.sum([1, 2, 3])\n';

async function loadExample(e) {
  source.value = e ? e.program : HELLO;
  policy.value = e ? e.policy : LOG_ONLY;
  $("policy-name").textContent = e ? e.policy_name : "(Log only)";
  files = e ? e.files : {};
  store = e ? e.store : "playground";
  planId = null;
  $("approve").disabled = true;
  $("plan-words").textContent = "";
  $("result").textContent = "";
  $("result").className = "result";
  $("log").textContent = "";
  $("operations").innerHTML = "";
  $("explanation").hidden = true;
  await runner.ask("use_store", { name: store });
  await runner.ask("set_files", { files });
  await showAudit();
  paint();
  clearTimeout(checkTimer);
  await check();
}

$("examples").addEventListener("change", async (ev) => {
  const e = examples[Number(ev.target.value)];
  await loadExample(ev.target.value === "" ? null : e);
  history.replaceState(null, "", e && ev.target.value !== "" ? `#${encodeURIComponent(e.id)}` : "#");
});

async function main() {
  try {
    await loadExamples();
    const wanted = decodeURIComponent(location.hash.slice(1));
    const i = examples.findIndex((e) => e.id === wanted);
    if (i >= 0) $("examples").value = String(i);
    await loadExample(i >= 0 ? examples[i] : null);
    await check();
    status.textContent = "Ready";
    document.body.dataset.ready = "true";
  } catch (e) {
    status.textContent = `Could not start: ${e.message}`;
  }
}

main();
