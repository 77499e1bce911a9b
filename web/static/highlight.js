// Writ highlighting for the editor: tokens by a small scanner (comments,
// strings, numbers, keywords, capitalised names), each wrapped in a span
// of its class; diagnostics' ranges are underlined on top. Offsets are
// JavaScript string indices (UTF-16), converted from the host's byte
// offsets by utf16Offset.

const KEYWORDS = new Set(["as", "effect", "else", "false", "fn", "handle", "if", "import",
  "in", "let", "match", "pub", "resume", "return", "true", "type", "with"]);

export function escapeHtml(s) {
  return s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
}

// The UTF-16 index of byte offset `byte` in `text` (UTF-8).
export function utf16Offset(text, byte) {
  let bytes = 0;
  let i = 0;
  while (i < text.length && bytes < byte) {
    const cp = text.codePointAt(i);
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    i += cp > 0xffff ? 2 : 1;
  }
  return i;
}

function tokens(src) {
  const out = [];
  const re = /(\/\/[^\n]*)|("(?:[^"\\\n]|\\.)*"?)|(\b\d[\d_]*(?:\.\d+)?\b)|([A-Za-z_][A-Za-z0-9_]*)/g;
  let m;
  while ((m = re.exec(src))) {
    let cls = null;
    if (m[1]) cls = "tok-comment";
    else if (m[2]) cls = "tok-string";
    else if (m[3]) cls = "tok-number";
    else if (m[4]) {
      if (KEYWORDS.has(m[4])) cls = "tok-keyword";
      else if (/^[A-Z]/.test(m[4])) cls = "tok-type";
    }
    if (cls) out.push([m.index, m.index + m[0].length, cls]);
  }
  return out;
}

// HTML of `src` highlighted, with each of `marks` ([start, end, title],
// UTF-16 indices) underlined. The text is cut at every boundary of a
// token or a mark, and each piece is one span with its classes, so that
// tokens and marks never have to nest.
export function highlight(src, marks) {
  const toks = tokens(src);
  // An empty range (at the end of input, say) underlines one place.
  const diag = marks.map(([s, e, title]) => [s, Math.max(e, s + 1), title]);
  const cuts = new Set([0, src.length]);
  for (const [s, e] of toks) { cuts.add(s); cuts.add(e); }
  for (const [s, e] of diag) { cuts.add(Math.min(s, src.length)); cuts.add(Math.min(e, src.length)); }
  const points = [...cuts].sort((a, b) => a - b);
  let out = "";
  let t = 0;
  for (let k = 0; k + 1 < points.length; k++) {
    const [a, b] = [points[k], points[k + 1]];
    while (t < toks.length && toks[t][1] <= a) t++;
    const classes = [];
    if (t < toks.length && toks[t][0] <= a && b <= toks[t][1]) classes.push(toks[t][2]);
    const over = diag.filter(([s, e]) => s <= a && b <= e);
    if (over.length) classes.push("diag");
    // A mark that starts on a line's end (a missing `)` before the
    // newline) shows as an underlined space there: an underlined newline
    // shows nothing, and a space at a line's end moves no other text.
    const eol = diag.find(([s]) => s === a && src[a] === "\n");
    if (eol) out += `<span class="diag" title="${escapeHtml(eol[2])}"> </span>`;
    const text = escapeHtml(src.slice(a, b));
    out += classes.length
      ? `<span class="${classes.join(" ")}"${over.length ? ` title="${escapeHtml(over[0][2])}"` : ""}>${text}</span>`
      : text;
  }
  // A mark past the end (a missing `)` at the end of input) shows as a
  // space underlined.
  const past = diag.filter(([s]) => s >= src.length);
  if (past.length) out += `<span class="diag" title="${escapeHtml(past[0][2])}"> </span>`;
  // A final newline needs a line after it to show the caret there.
  return out + "\n";
}
