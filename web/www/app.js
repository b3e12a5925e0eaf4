// The playground page: editor, options, gallery, share links, results.
// The engine runs in a Web Worker (worker.js); this file never blocks on it.
/* global Viz, VKMM_GALLERY, VKMM_WORKER_SOURCE */
"use strict";

const $ = (id) => document.getElementById(id);
const started = performance.now();
// Read by the end-to-end test and shown in the footer.
window.vkmmTimings = {};

// ---------------------------------------------------------------- worker

let wasmModule = null; // compiled once, handed to each new worker
let worker = null;
let ready = null; // promise: the worker answered "ready"
let nextId = 1;
const pending = new Map(); // id -> {resolve, reject, onProgress}

async function wasmBytes() {
  if (location.protocol === "http:" || location.protocol === "https:") {
    const r = await fetch("vkmm_web_bg.wasm");
    if (!r.ok) throw new Error(`vkmm_web_bg.wasm: HTTP ${r.status}`);
    return r.arrayBuffer();
  }
  // Opened from disk: fetch() of a file: URL is refused, but a classic
  // script is not; the build writes the module as base64 into one.
  await loadScript("vkmm-wasm-base64.js");
  const text = atob(window.VKMM_WASM_BASE64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes.buffer;
}

// A classic script, loaded when first needed (also from disk).
function loadScript(src) {
  return new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = src;
    s.onload = resolve;
    s.onerror = () => reject(new Error(`cannot load ${src}`));
    document.head.appendChild(s);
  });
}

function startWorker() {
  const url = URL.createObjectURL(new Blob([VKMM_WORKER_SOURCE], { type: "text/javascript" }));
  worker = new Worker(url);
  URL.revokeObjectURL(url);
  ready = new Promise((resolve, reject) => {
    worker.onmessage = (event) => {
      const msg = event.data;
      if (msg.type === "ready") return resolve(msg);
      const p = pending.get(msg.id);
      if (!p) return;
      if (msg.type === "progress") return p.onProgress && p.onProgress(msg);
      pending.delete(msg.id);
      if (msg.type === "answer") p.resolve(msg);
      else p.reject(new Error(msg.message));
    };
    worker.onerror = (e) => reject(new Error(e.message || "the worker failed to start"));
  });
  worker.postMessage({ type: "init", wasm: wasmModule });
  return ready;
}

function request(type, payload, onProgress) {
  const id = nextId++;
  return ready.then(
    () =>
      new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject, onProgress });
        worker.postMessage({ type, id, ...payload });
      }),
  );
}

// Cancelling terminates the worker (the engine cannot be interrupted
// mid-walk otherwise) and starts a fresh one from the compiled module.
function cancelAll() {
  worker.terminate();
  for (const p of pending.values()) p.reject(new Cancelled());
  pending.clear();
  startWorker();
}

class Cancelled extends Error {
  constructor() {
    super("cancelled");
  }
}

// ---------------------------------------------------------------- inputs

const EXTENSIONS = { litmus: "litmus", test: "test", spvasm: "spvasm", wgsl: "wgsl" };
let testStem = "test";

function guessDialect(text) {
  const body = text.replace(/^\s*(\/\/[^\n]*\n|\s)*/, "");
  if (/^(VULKAN|OPENCL)\b/i.test(body)) return "litmus";
  if (/\bOp(Capability|EntryPoint|MemoryModel)\b/.test(text)) return "spvasm";
  if (/@compute\b/.test(text)) return "wgsl";
  return "test";
}

function fileName() {
  const text = $("editor").value;
  const d = $("dialect").value === "auto" ? guessDialect(text) : $("dialect").value;
  return `${testStem}.${EXTENSIONS[d]}`;
}

function number(id) {
  const v = $(id).value.trim();
  return v === "" ? undefined : Number(v);
}

function options() {
  const o = {
    unroll: number("unroll"),
    max_executions: number("max-executions"),
    max_writes: number("max-writes"),
    spin_reduction: $("spin").checked,
  };
  const t = number("timeout");
  if (t !== undefined && t > 0) o.timeout_ms = Math.round(t * 1000);
  if ($("model").value === "@pasted") o.cat = $("cat").value;
  else if ($("model").value) o.model = $("model").value;
  // A shader's dispatch, as the command line's options (empty: the
  // shader's own).
  const text = (id) => $(id).value.trim();
  const words = (id) => text(id).split(/\s+/).filter((w) => w);
  if (text("local-size")) o.local_size = text("local-size");
  if (text("workgroups")) o.workgroups = text("workgroups");
  if (text("subgroup-size")) o.subgroup_size = Number(text("subgroup-size"));
  if (text("entry")) o.entry = text("entry");
  for (const [id, key] of [["defines", "defines"], ["set", "set"], ["inputs", "inputs"], ["lengths", "lengths"], ["extents", "extents"]]) {
    if (words(id).length) o[key] = words(id);
  }
  return o;
}

// The dispatch fields, in share links and the change listeners.
const DISPATCH = ["local-size", "workgroups", "subgroup-size", "entry", "defines", "set", "inputs", "lengths", "extents"];

// ---------------------------------------------------------------- running

let runs = 0; // the latest run's number: older answers are dropped
let busy = false;

function setBusy(on, text) {
  busy = on;
  $("cancel").disabled = !on;
  $("status").classList.toggle("busy", on);
  if (text !== undefined) $("status").textContent = text;
}

// `explicit`: asked for (Run, an example, a link), not a live re-check
// while typing; only then does an error move the cursor to its place.
async function run(explicit = true) {
  const me = ++runs;
  if (busy) cancelAll();
  const name = fileName();
  const text = $("editor").value;
  const opts = options();
  setBusy(true, "checking…");
  hideErrors();
  try {
    const msg = await request("check", { name, text, options: opts }, (p) => {
      if (me === runs) {
        $("status").textContent =
          `checking… ${p.evaluations.toLocaleString()} evaluations, ${p.executions.toLocaleString()} executions` +
          (p.found !== undefined ? `, ${p.found} found` : "");
      }
    });
    if (me !== runs) return;
    if (!window.vkmmTimings.firstAnswer) {
      window.vkmmTimings.firstAnswer = performance.now() - started;
      showTimings();
    }
    const a = msg.answer;
    if (!a.ok) {
      setBusy(false, "error");
      showError(a.error, explicit);
      clearResults();
      return;
    }
    renderCheck(a);
    setBusy(true, `checked in ${msg.ms.toFixed(1)} ms; explaining…`);
    const checkMs = msg.ms;
    // Draw the test's own condition (witness or rejected execution).
    const own = a.kind === "litmus" ? "" : null;
    if (own === null) {
      setBusy(false, `checked in ${checkMs.toFixed(1)} ms`);
      $("explanation").textContent = "Explanations and pictures are for litmus tests (a .test file's values are pinned by its instructions).";
      $("graph").replaceChildren();
      return;
    }
    await explain(me, name, text, opts, own, a.result.condition || "the test's condition");
    if (me === runs) setBusy(false, `checked in ${checkMs.toFixed(1)} ms`);
  } catch (e) {
    if (e instanceof Cancelled) return;
    if (me === runs) {
      setBusy(false, "failed");
      showError({ message: `vkmm failed: ${e.message}` });
    }
  }
}

async function explain(me, name, text, opts, outcome, label) {
  $("explained").textContent = label;
  const msg = await request("explain", { name, text, options: opts, outcome });
  if (me !== runs) return;
  const x = msg.answer;
  if (!x.ok) {
    $("explanation").textContent = x.error.message;
    $("graph").replaceChildren();
    return;
  }
  $("explanation").textContent = x.report;
  if (x.dot) await draw(x);
  else {
    const p = document.createElement("p");
    p.textContent = x.dot_error;
    $("graph").replaceChildren(p);
  }
}

// Graphviz sizes labels with its own font metrics; for "monospace" it
// guesses Times' (narrower), so labels would overflow their boxes in the
// browser's monospace font. Courier's metrics match it.
const courier = (dot) => dot.replaceAll('fontname="monospace"', 'fontname="Courier"');

// Drawn as `vkmm show --svg` draws (src/report/dot.rs, split_relations and
// with_relations): scope instances and program order laid out first, so
// the threads stay in litmus order, then the relation edges routed over
// the fixed positions (engine nop2, as `neato -n2`). One pass if that fails.
//
// Graphviz builds differ in how they order sibling clusters nested in a
// cluster (dot 2.43, which `vkmm show` is tested with, reverses them; the
// Graphviz in Viz.js may not): the first picture is laid out both ways and
// the one whose threads read left to right in litmus order is kept for
// the rest of the session.
let nestedOrder = null;
function threadsLeftToRight(viz, layout, eventThreads) {
  const json = viz.renderJSON(courier(layout));
  const thread = new Map(eventThreads);
  const left = new Map();
  for (const o of json.objects || []) {
    const m = /^e(\d+)$/.exec(o.name || "");
    if (!m || !o.pos || !thread.has(Number(m[1]))) continue;
    const t = thread.get(Number(m[1]));
    const x = parseFloat(o.pos.split(",")[0]);
    left.set(t, Math.min(left.get(t) ?? Infinity, x));
  }
  const xs = [...left.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
  return xs.every((x, i) => i === 0 || xs[i - 1] < x);
}
function chooseLayout(viz, x) {
  if (!x.layout_written || !x.event_threads) return x.layout;
  if (nestedOrder === null && new Set(x.event_threads.map((e) => e[1])).size > 1) {
    // Decided only by a picture where the two layouts differ (threads
    // that are siblings in one cluster); until then, the default order.
    const reversed = threadsLeftToRight(viz, x.layout, x.event_threads);
    const written = threadsLeftToRight(viz, x.layout_written, x.event_threads);
    if (reversed !== written) nestedOrder = written ? "written" : "reversed";
  }
  return nestedOrder === "written" ? x.layout_written : x.layout;
}
function twoPass(viz, x) {
  const laid = viz.renderString(courier(chooseLayout(viz, x)), { format: "dot" }).trimEnd().replace(/}$/, "");
  const full = `${laid}\tsplines=true;\n${x.edges.map((e) => `${courier(e)}\n`).join("")}}\n`;
  return viz.renderSVGElement(full, { engine: "nop2" });
}

// The picture as large as the column when that keeps its labels
// readable (drawn at no less than READABLE of Graphviz's size), else at
// that scale with the box scrolling; never larger than Graphviz's size.
const READABLE = 0.65;
function readableSize(svg) {
  const natural = svg.width.baseVal.value;
  const column = $("graph").clientWidth - 2;
  if (!(natural > 0) || !(column > 0)) return;
  const scale = Math.min(1, Math.max(column / natural, READABLE));
  svg.style.width = `${(natural * scale).toFixed(0)}px`;
  svg.style.height = "auto";
}

let vizInstance = null;
async function draw(x) {
  try {
    // Graphviz (1.3 MB) loads with the first picture, not before the
    // first answer.
    if (!vizInstance) {
      if (!window.Viz) await loadScript("viz-global.js");
      vizInstance = await Viz.instance();
    }
    let svg;
    try {
      svg = twoPass(vizInstance, x);
      svg.dataset.layout = "two-pass";
    } catch {
      svg = vizInstance.renderSVGElement(courier(x.dot));
      svg.dataset.layout = "one-pass";
    }
    $("graph").replaceChildren(svg);
    readableSize(svg);
    if (!window.vkmmTimings.firstGraph) {
      window.vkmmTimings.firstGraph = performance.now() - started;
      showTimings();
    }
  } catch (e) {
    const p = document.createElement("p");
    p.textContent = `Graphviz could not draw the execution: ${e.message || e}`;
    $("graph").replaceChildren(p);
  }
}

async function explainChosen(row, outcome) {
  for (const r of $("outcomes").tBodies[0].rows) r.classList.toggle("chosen", r === row);
  const me = ++runs;
  if (busy) cancelAll();
  setBusy(true, "explaining…");
  try {
    await explain(me, fileName(), $("editor").value, options(), outcome, outcome);
    if (me === runs) setBusy(false, "explained");
  } catch (e) {
    if (!(e instanceof Cancelled) && me === runs) {
      setBusy(false, "failed");
      $("explanation").textContent = e.message;
    }
  }
}

// ---------------------------------------------------------------- compare

// `vkmm diff` in the page: the smallest tests on which two built-in models
// disagree, each with both models' verdicts and explanations; a test
// opens in the editor (checked under model A) with a click.
async function compareModels() {
  const me = ++runs;
  if (busy) cancelAll();
  const req = {
    models: [$("diff-a").value, $("diff-b").value],
    threads: number("diff-threads"),
    events: number("diff-events"),
    locations: number("diff-locations"),
    max_tests: number("diff-tests"),
    vocabulary: $("diff-vocabulary").value,
    scopes: $("diff-scopes").value,
  };
  // The models are the panel's; the limits are the page's.
  const opts = options();
  delete opts.model;
  delete opts.cat;
  const out = $("diff-out");
  out.replaceChildren();
  setBusy(true, `comparing ${req.models.join(" and ")}…`);
  try {
    const msg = await request("diff", { request: req, options: opts });
    if (me !== runs) return;
    const a = msg.answer;
    if (!a.ok) {
      setBusy(false, "error");
      const p = document.createElement("p");
      p.className = "error";
      p.textContent = a.error.message;
      out.append(p);
      return;
    }
    renderDiff(a);
    setBusy(false, `compared in ${msg.ms.toFixed(0)} ms`);
  } catch (e) {
    if (e instanceof Cancelled) return;
    if (me === runs) setBusy(false, `failed: ${e.message}`);
  }
}

function renderDiff(a) {
  const out = $("diff-out");
  const summary = document.createElement("p");
  summary.id = "diff-summary";
  // Yellow when a limit stopped the search: no "no difference" claimed.
  summary.className = `verdict ${!a.complete ? "unknown" : a.tests.length ? "no" : "yes"}`;
  summary.textContent = a.summary;
  out.append(summary);
  if (a.bounded) {
    const p = document.createElement("p");
    p.className = "bounded";
    p.textContent = `Undecided past the sizes covered: ${a.bounded}.`;
    out.append(p);
  }
  for (const t of a.tests) {
    const box = document.createElement("div");
    box.className = "diff-test";
    const h = document.createElement("h3");
    h.textContent = `${t.name} (${t.events} events, ${t.threads} thread${t.threads === 1 ? "" : "s"})`;
    const v = document.createElement("p");
    v.textContent = a.models.map((m, i) => `${m}: ${t.verdicts[i]}`).join("; ");
    const pre = document.createElement("pre");
    pre.textContent = t.annotated;
    const open = document.createElement("button");
    open.textContent = `Open in the editor (under ${a.models[0]})`;
    open.addEventListener("click", () => {
      $("gallery").value = "";
      $("editor").value = t.annotated;
      testStem = t.name;
      $("dialect").value = "auto";
      $("attribution").hidden = true;
      $("model").value = a.models[0];
      $("cat-box").hidden = true;
      run();
    });
    box.append(h, v, open, pre);
    out.append(box);
  }
}

// ---------------------------------------------------------------- results

// A verdict badge: green when `value` is `good`, red when not, yellow when
// undecided (null).
function verdict(label, value, yes, no, good = true) {
  const s = document.createElement("span");
  s.className = `verdict ${value === null || value === undefined ? "unknown" : value === good ? "yes" : "no"}`;
  s.textContent = `${label}: ${value === true ? yes : value === false ? no : "undecided"}`;
  return s;
}

function clearResults() {
  $("verdicts").replaceChildren();
  $("outcomes").tHead.replaceChildren();
  $("outcomes").tBodies[0].replaceChildren();
  $("races").replaceChildren();
  $("report").textContent = "";
  $("bounded").hidden = true;
  $("explained").textContent = "";
  $("explanation").textContent = "";
  $("graph").replaceChildren();
}

function renderCheck(a) {
  clearResults();
  const r = a.result;
  $("report").textContent = a.report;
  if (a.bounded) {
    $("bounded").hidden = false;
    $("bounded").textContent = `Bounded answer — ${a.bounded}. Verdicts that depend on the rest read "undecided".`;
  }
  const v = $("verdicts");
  if (a.kind === "litmus") {
    if (r.condition) {
      v.append(verdict(`Condition ${r.condition}`, r.condition_holds, "holds (Ok)", "does not hold (No)"));
    }
    v.append(verdict("Data races", r.race_free === null ? null : !r.race_free, "racy", "race-free", false));
    const races = r.races || [];
    if (races.length) {
      const ul = document.createElement("ul");
      for (const p of races) {
        const li = document.createElement("li");
        // Where the pair races: the outcomes whose executions race.
        const n = (p.states || []).length;
        const where =
          n === 0 ? "" : n === a.outcomes.length ? " (in every outcome)" : ` (in ${n} of ${a.outcomes.length} outcomes, marked race)`;
        li.textContent = `race on ${p.location}: ${p.first}  ×  ${p.second}${where}`;
        ul.append(li);
      }
      $("races").append(ul);
    }
    renderOutcomes(a.outcomes, races);
  } else if (a.kind === "queries") {
    for (const q of r.queries) {
      const s = verdict(`line ${q.line} ${q.query}`, q.actual === "Undecided" ? null : q.passed, `${q.actual} (as expected)`, `${q.actual} (expected otherwise)`);
      v.append(s, document.createElement("br"));
    }
  }
  for (const w of a.warnings || []) {
    const p = document.createElement("p");
    p.className = "hint";
    p.textContent = `warning: ${w}`;
    v.append(p);
  }
}

// Whether two value maps are the same state.
const sameState = (a, b) => {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
};

function renderOutcomes(outcomes, races = []) {
  const keys = [];
  for (const o of outcomes) for (const k of Object.keys(o.values)) if (!keys.includes(k)) keys.push(k);
  const head = document.createElement("tr");
  for (const k of [...keys, "executions"]) {
    const th = document.createElement("th");
    th.textContent = k;
    head.append(th);
  }
  $("outcomes").tHead.replaceChildren(head);
  const body = $("outcomes").tBodies[0];
  for (const o of outcomes) {
    const tr = document.createElement("tr");
    tr.title = `explain ${o.condition}`;
    for (const k of keys) {
      const td = document.createElement("td");
      td.textContent = k in o.values ? o.values[k] : "";
      tr.append(td);
    }
    const td = document.createElement("td");
    td.textContent = o.executions;
    tr.append(td);
    const racy = races.filter((p) => (p.states || []).some((st) => sameState(st, o.values)));
    if (racy.length) {
      tr.classList.add("racy");
      tr.title += ` (races on ${[...new Set(racy.map((p) => p.location))].join(", ")})`;
    }
    tr.addEventListener("click", () => explainChosen(tr, o.condition));
    body.append(tr);
  }
  if (!outcomes.length) {
    const tr = document.createElement("tr");
    tr.innerHTML = "<td>no consistent execution</td>";
    body.append(tr);
  }
}

function hideErrors() {
  $("editor-error").hidden = true;
  $("cat-error").hidden = true;
}

// A located error: shown under the text at fault; the place is selected
// when `select` (not while the person types: the next key would replace it).
function showError(err, select = false) {
  const where = err.source === "model" ? "cat" : "editor";
  const box = $(`${where}-error`);
  box.hidden = false;
  box.textContent = err.message;
  if (err.line && select) {
    const area = $(where);
    const lines = area.value.split("\n");
    let pos = 0;
    for (let i = 0; i < err.line - 1 && i < lines.length; i++) pos += lines[i].length + 1;
    const col = Math.max(0, (err.column || 1) - 1);
    const lineLen = (lines[err.line - 1] || "").length;
    area.setSelectionRange(pos + Math.min(col, lineLen), pos + lineLen);
  }
}

function showTimings() {
  const t = window.vkmmTimings;
  const parts = [];
  if (t.wasmReady) parts.push(`module ready ${t.wasmReady.toFixed(0)} ms`);
  if (t.firstAnswer) parts.push(`first answer ${t.firstAnswer.toFixed(0)} ms`);
  if (t.firstGraph) parts.push(`first graph ${t.firstGraph.toFixed(0)} ms`);
  $("timings").textContent = parts.length ? `— after page start: ${parts.join(", ")}` : "";
}

// ---------------------------------------------------------------- gallery

function fillGallery() {
  const sel = $("gallery");
  const groups = new Map();
  for (const [i, ex] of VKMM_GALLERY.entries()) {
    if (!groups.has(ex.group)) {
      const g = document.createElement("optgroup");
      g.label = ex.group;
      groups.set(ex.group, g);
      sel.append(g);
    }
    const o = document.createElement("option");
    o.value = String(i);
    o.textContent = ex.file;
    groups.get(ex.group).append(o);
  }
}

function loadExample(ex) {
  // The selector names the example shown.
  const i = VKMM_GALLERY.indexOf(ex);
  $("gallery").value = i >= 0 ? String(i) : "";
  $("editor").value = ex.text;
  testStem = ex.file.replace(/^.*\//, "").replace(/\.[^.]*$/, "") || "test";
  const ext = ex.file.replace(/^.*\./, "");
  // The file kind decides; "auto" when the text says the same, so that a
  // test of another dialect typed over the example is read as what it is.
  $("dialect").value = EXTENSIONS[ext] && guessDialect(ex.text) !== ext ? ext : "auto";
  $("attribution").hidden = !ex.attribution;
  $("attribution").textContent = ex.attribution || "";
  // A shader example's dispatch (from its comment), or none.
  const dispatch = ex.dispatch || {};
  for (const id of DISPATCH) $(id).value = dispatch[id] || "";
  $("dispatch-box").open = Object.keys(dispatch).length > 0;
}

// ---------------------------------------------------------------- sharing

function toBase64Url(bytes) {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text) {
  const s = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

async function squeeze(text) {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  return toBase64Url(new Uint8Array(await new Response(stream).arrayBuffer()));
}

async function unsqueeze(data) {
  const stream = new Blob([fromBase64Url(data)]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return new Response(stream).text();
}

// The fragment: `#name=mp&dialect=litmus&model=vulkan&unroll=2&...&t=<deflated test>[&c=<deflated cat>]`.
async function shareFragment() {
  const p = new URLSearchParams();
  p.set("name", testStem);
  p.set("dialect", $("dialect").value);
  if ($("model").value) p.set("model", $("model").value);
  for (const id of ["unroll", "max-executions", "max-writes", "timeout"]) p.set(id, $(id).value);
  if (!$("spin").checked) p.set("spin", "0");
  for (const id of DISPATCH) if ($(id).value.trim()) p.set(id, $(id).value.trim());
  p.set("t", await squeeze($("editor").value));
  if ($("model").value === "@pasted") p.set("c", await squeeze($("cat").value));
  return `#${p.toString()}`;
}

async function applyFragment(hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ""));
  if (!p.has("t")) return false;
  testStem = p.get("name") || "test";
  if (p.has("dialect")) $("dialect").value = p.get("dialect");
  for (const id of ["unroll", "max-executions", "max-writes", "timeout"]) if (p.has(id)) $(id).value = p.get(id);
  $("spin").checked = p.get("spin") !== "0";
  for (const id of DISPATCH) $(id).value = p.get(id) || "";
  $("dispatch-box").open = DISPATCH.some((id) => p.has(id));
  $("editor").value = await unsqueeze(p.get("t"));
  if (p.has("c")) $("cat").value = await unsqueeze(p.get("c"));
  if (p.has("model")) $("model").value = p.get("model");
  $("cat-box").hidden = $("model").value !== "@pasted";
  return true;
}

async function share() {
  const frag = await shareFragment();
  history.replaceState(null, "", frag);
  const link = location.href;
  try {
    await navigator.clipboard.writeText(link);
    $("status").textContent = "share link copied to the clipboard (and in the address bar)";
  } catch {
    $("status").textContent = "share link in the address bar (the clipboard was not available)";
  }
}

// ---------------------------------------------------------------- start

let debounce = null;
function edited() {
  if (!$("live").checked) return;
  clearTimeout(debounce);
  debounce = setTimeout(() => run(false), 350);
}

async function main() {
  fillGallery();
  $("gallery").addEventListener("change", () => {
    const i = $("gallery").value;
    if (i === "") return;
    loadExample(VKMM_GALLERY[Number(i)]);
    run();
  });
  $("run").addEventListener("click", () => run());
  // The picture is drawn at full size (scrolling); a click fits it to the
  // column, another shows it at full size again.
  $("graph").addEventListener("click", () => $("graph").classList.toggle("fit"));
  $("cancel").addEventListener("click", () => {
    runs++;
    cancelAll();
    setBusy(false, "cancelled");
  });
  $("share").addEventListener("click", share);
  $("diff-run").addEventListener("click", compareModels);
  $("editor").addEventListener("input", edited);
  // Where the cursor is, to find an error's line and column.
  const cursor = () => {
    const before = $("editor").value.slice(0, $("editor").selectionStart).split("\n");
    $("cursor").textContent = `line ${before.length}, column ${before[before.length - 1].length + 1}`;
  };
  for (const ev of ["keyup", "click", "select", "input"]) $("editor").addEventListener(ev, cursor);
  $("cat").addEventListener("input", edited);
  for (const id of ["dialect", "unroll", "max-executions", "max-writes", "timeout", "spin", ...DISPATCH]) {
    $(id).addEventListener("change", edited);
  }
  $("model").addEventListener("change", () => {
    $("cat-box").hidden = $("model").value !== "@pasted";
    if ($("model").value === "@pasted" && !$("cat").value) {
      $("cat").value = '"my model"\n\n(* start from the built-in rules, then change them *)\ninclude "vulkan.cat"\n';
    }
    edited();
  });

  try {
    wasmModule = await WebAssembly.compile(await wasmBytes());
    const info = await startWorker();
    window.vkmmTimings.wasmReady = performance.now() - started;
    for (const m of info.models) {
      const o = document.createElement("option");
      o.value = m.name;
      o.textContent = m.name;
      o.title = m.description;
      $("model").append(o);
    }
    const pasted = document.createElement("option");
    pasted.value = "@pasted";
    pasted.textContent = "pasted cat model…";
    $("model").append(pasted);
    // The compare panel's models: built-in ones, two that differ first.
    for (const [id, first] of [["diff-a", "vulkan"], ["diff-b", "vulkan-dat3m"]]) {
      for (const m of info.models) {
        const o = document.createElement("option");
        o.value = m.name;
        o.textContent = m.name;
        o.title = m.description;
        $(id).append(o);
      }
      $(id).value = first;
    }
    $("version").textContent = `vkmm ${info.version}.`;
  } catch (e) {
    setBusy(false, "could not start");
    showError({ message: `The vkmm module could not be loaded: ${e.message}` });
    return;
  }
  setBusy(false, "ready");
  const shared = location.hash && (await applyFragment(location.hash).catch(() => false));
  if (!shared) {
    // A litmus test with its outcome table and a forbidden outcome
    // explained: message passing, whose `forall` holds because its
    // negation (the consumer reading the stale payload) is forbidden.
    const ex = VKMM_GALLERY.find((e) => e.file === "examples/mp.litmus") || VKMM_GALLERY[0];
    if (ex) loadExample(ex);
  }
  run();
}

main();
