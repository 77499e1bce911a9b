// The playground's worker: the WebAssembly host (writ-web) on a thread
// of its own, so that a program running, however long, never freezes
// the page. The page sends one request at a time, {id, op, args}; the
// worker answers {id, answer} (the host's JSON), and, as the store
// commits each write, {commit} (the records and ledger rows appended),
// so that the page keeps the audit log even if it ends this worker.
import init, * as host from "./pkg/writ_web.js";

const ready = (async () => {
  await init({ module_or_path: new URL("./pkg/writ_web_bg.wasm", import.meta.url) });
  const entropy = new Uint8Array(32);
  crypto.getRandomValues(entropy);
  host.init(entropy, (text) => postMessage({ commit: JSON.parse(text) }));
})();

const ops = {
  check: (a) => host.check(a.source, a.policy),
  run: (a) => host.run(a.source, a.policy),
  answer: (a) => host.answer(a.yes),
  plan: (a) => host.plan(a.source, a.policy),
  approve: (a) => host.approve(a.id),
  audit: () => host.audit(),
  export: () => host.export_store(),
  import: (a) => host.import_store(JSON.stringify(a.contents)),
  use_store: (a) => host.use_store(a.name),
  set_files: (a) => host.set_files(JSON.stringify(a.files)),
  reset: () => host.reset(),
  explain: (a) => JSON.stringify({ text: host.explain(a.code) ?? null }),
};

onmessage = async (event) => {
  const { id, op, args } = event.data;
  try {
    await ready;
    const f = ops[op];
    if (!f) throw new Error(`no such request: ${op}`);
    postMessage({ id, answer: JSON.parse(f(args || {})) });
  } catch (e) {
    // A trap in the module (a bug: the host does not panic on any
    // input) ends this worker's usefulness; the page starts another.
    postMessage({ id, failed: String(e && e.message ? e.message : e) });
  }
};
