// End-to-end test of the playground in headless Chromium (web/e2e.sh builds
// the page first, then runs `node --test web/tests/`).
//
// It serves the built page (PLAYGROUND_DIR, default target/playground) on
// 127.0.0.1, opens it, and checks what a person would: the first page shows
// examples/mp.litmus with its outcome table and its forbidden outcome
// explained and drawn, and a screenshot of it shows the table (decoded
// here: target/playground-first-page.png); the README example answers;
// a gallery example gives its outcome list, verdicts and a
// drawn SVG graph (screenshot: target/playground-e2e.png); an outcome
// explains; a bad edit is a located error; a share link reopens the same
// test; a long run shows progress and cancels; the page also works opened
// from disk. The timings it prints are BENCHMARKS.md's.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { pathToFileURL } from "node:url";
import fs from "node:fs";
import { browser as startBrowser, dir, firstAnswer, repo, serve } from "./harness.mjs";
import { decodePng } from "./png.mjs";

const shot = path.join(repo, "target/playground-e2e.png");
const firstShot = path.join(repo, "target/playground-first-page.png");

let server;
let base;
let chromium;

before(async () => {
  server = await serve();
  base = server.base;
  chromium = await startBrowser();
});

after(async () => {
  if (chromium) await chromium.close();
  if (server) server.close();
});

async function open(url) {
  const page = await chromium.context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(url);
  page.errors = errors;
  return page;
}

/** A page showing `file` from the gallery, checked. */
async function openExample(file) {
  const page = await open(base);
  await firstAnswer(page);
  await choose(page, file);
  await page.waitForSelector("#outcomes tbody tr", { timeout: 60_000 });
  return page;
}

async function choose(page, file) {
  const value = await page.$eval(
    "#gallery",
    (sel, f) => [...sel.options].find((o) => o.textContent === f)?.value,
    file,
  );
  assert.ok(value, `the gallery lists ${file}`);
  await page.selectOption("#gallery", value);
}

/** Resolves when the page's status says the run (and its explanation) ended. */
const checked = (page) =>
  page.waitForFunction(() => /^checked in /.test(document.querySelector("#status").textContent), null, { timeout: 60_000 });

test("the first page: a litmus test, its outcome table, a forbidden outcome explained and drawn", async () => {
  const page = await open(base);
  await firstAnswer(page);
  await checked(page);
  const t = await page.evaluate(() => window.vkmmTimings);
  console.log(`timings over http: module ready ${t.wasmReady.toFixed(0)} ms, first answer (examples/mp.litmus) ${t.firstAnswer.toFixed(0)} ms after page start`);
  // The selector names the example shown.
  const chosen = await page.$eval("#gallery", (s) => s.options[s.selectedIndex].textContent);
  assert.equal(chosen, "examples/mp.litmus");
  // mp.litmus: one outcome (P1:r1 = 1); its `forall` holds because the
  // negation, the stale payload, is forbidden: a rejected execution drawn.
  const rows = await page.$$eval("#outcomes tbody tr", (trs) => trs.map((tr) => tr.textContent));
  assert.equal(rows.length, 1);
  assert.match(await page.textContent("#explanation"), /HOLDS under vulkan: its negation is FORBIDDEN/);
  assert.match(await page.textContent("#explanation"), /Rejected by/);
  await page.waitForSelector("#graph svg g.node", { timeout: 60_000 });
  // Readable without a click: not shrunk below 0.65 of Graphviz's size
  // (14-point labels stay at least 9 points), and as wide as the column
  // allows.
  assert.equal(await page.$eval("#graph", (g) => g.classList.contains("fit")), false);
  const scale = await page.$eval("#graph svg", (svg) => svg.getBoundingClientRect().width / svg.width.baseVal.value);
  assert.ok(scale >= 0.64 && scale <= 1.01, `the picture is drawn at ${scale.toFixed(2)} of its size`);
  // Long lines wrap: the explanation scrolls no wider than its box.
  const wide = await page.$eval("#explanation", (e) => e.scrollWidth - e.clientWidth);
  assert.ok(wide <= 1, `the explanation wraps (${wide} px wider than its box)`);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// The screenshot must contain the outcome table: the DOM places it inside
// the first screen, and the pixels of its region in the image are the
// table's (dark text on a light background, with its grey borders), not a
// blank or "loading…" page.
test("a screenshot of the first page shows the outcome table", async () => {
  const page = await open(base);
  await firstAnswer(page);
  await checked(page);
  await page.waitForSelector("#graph svg g.node", { timeout: 60_000 });
  const png = await page.screenshot({ path: firstShot });
  console.log(`screenshot: ${path.relative(repo, firstShot)}`);
  const img = decodePng(png);
  const viewport = page.viewportSize();
  assert.equal(img.width, viewport.width);
  assert.equal(img.height, viewport.height);
  const box = await page.$eval("#outcomes", (t) => {
    const r = t.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  });
  assert.ok(box.width > 20 && box.height > 20, `the table has a size: ${JSON.stringify(box)}`);
  assert.ok(
    box.x >= 0 && box.y >= 0 && box.x + box.width <= img.width && box.y + box.height <= img.height,
    `the table is on the first screen: ${JSON.stringify(box)} in ${img.width}x${img.height}`,
  );
  let dark = 0;
  let light = 0;
  let border = 0;
  for (let y = Math.ceil(box.y); y < Math.floor(box.y + box.height); y++) {
    for (let x = Math.ceil(box.x); x < Math.floor(box.x + box.width); x++) {
      const [r, g, b] = img.pixel(x, y);
      const lum = (r + g + b) / 3;
      if (lum < 110) dark++;
      else if (lum > 235) light++;
      else if (Math.abs(r - 204) < 12 && Math.abs(g - 204) < 12 && Math.abs(b - 204) < 12) border++;
    }
  }
  const area = Math.floor(box.width) * Math.floor(box.height);
  // Text (the header `P1:r1`, `executions`, the values) is dark ink on a
  // light page: some of each, and the cells' #ccc borders.
  assert.ok(dark > 30, `text in the table region (${dark} dark of ${area} pixels)`);
  assert.ok(light > area / 3, `a light background (${light} of ${area})`);
  assert.ok(border > 20, `the cells' borders (${border} pixels)`);
  // And the table reads what it should.
  const cells = await page.$$eval("#outcomes th, #outcomes td", (c) => c.map((e) => e.textContent));
  assert.deepEqual(cells.slice(0, 2), ["P1:r1", "executions"]);
  assert.equal(fs.existsSync(firstShot), true);
  await page.close();
});

test("a WGSL shader checks with its dispatch, and the fields change it", async () => {
  const page = await open(base);
  await firstAnswer(page);
  await choose(page, "examples/shaders/counter.wgsl");
  // Its comment's dispatch fills the fields: two invocations, out of length 1.
  assert.equal(await page.inputValue("#local-size"), "2");
  assert.equal(await page.inputValue("#lengths"), "out=1");
  await page.waitForFunction(() => /counter/.test(document.querySelector("#report").textContent), null, { timeout: 60_000 });
  await checked(page);
  // With no condition the states list the memory the shader may write
  // (the tickets atomicAdd returns are never read, so no register is
  // shown): out[0], which invocation 0 publishes after the barrier, is
  // the count, 2, in every execution: one state.
  // Race-free: the barrier orders the count before it is read.
  const values = () =>
    page.$$eval("#outcomes tbody tr", (trs) =>
      trs.flatMap((tr) => [...tr.cells].slice(0, -1).map((td) => td.textContent.trim())));
  assert.equal((await page.$$("#outcomes tbody tr")).length, 1);
  assert.deepEqual(await values(), ["2"]);
  assert.match(await page.textContent("#verdicts"), /Data races: race-free/);
  // Three invocations: still one state, and the count is 3.
  await page.fill("#local-size", "3");
  await page.dispatchEvent("#local-size", "change");
  await page.waitForFunction(
    () => [...document.querySelectorAll("#outcomes tbody tr td")].some((td) => td.textContent.trim() === "3"),
    null,
    { timeout: 60_000 },
  );
  assert.deepEqual(await values(), ["3"]);
  // A bad size is an error naming the field.
  await page.fill("#local-size", "0");
  await page.dispatchEvent("#local-size", "change");
  await page.waitForSelector("#editor-error:not([hidden])", { timeout: 60_000 });
  assert.match(await page.textContent("#editor-error"), /local size/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// vulkan and vulkan-dat3m differ on a coherence test of two plain reads
// and two plain writes (the spec's reading forbids P0 seeing x=2 then
// x=1 when 2 is coherence-last; Dat3M's allows it): the page finds it,
// shows both verdicts and both explanations, and opens it in the editor,
// where checking under vulkan gives the forbidden outcome.
test("compare two models: a distinguishing test with both verdicts, opened in the editor", async () => {
  const page = await open(base);
  await firstAnswer(page);
  await checked(page);
  await page.click("#diff-box summary");
  assert.equal(await page.inputValue("#diff-a"), "vulkan");
  assert.equal(await page.inputValue("#diff-b"), "vulkan-dat3m");
  await page.click("#diff-run");
  await page.waitForSelector("#diff-summary", { timeout: 60_000 });
  assert.match(await page.textContent("#diff-summary"), /vulkan and vulkan-dat3m differ: 1 distinguishing test of 4 events/);
  const test1 = await page.textContent(".diff-test pre");
  assert.match(test1, /^VULKAN diff-1-outcome/);
  assert.match(test1, /Under vulkan:/);
  assert.match(test1, /Under vulkan-dat3m:/);
  assert.match(await page.textContent(".diff-test p"), /vulkan: condition No \(forbidden\).*vulkan-dat3m: condition Ok \(allowed\)/);
  await page.click(".diff-test button");
  await checked(page);
  assert.equal(await page.inputValue("#model"), "vulkan");
  assert.match(await page.inputValue("#editor"), /^VULKAN diff-1-outcome/);
  assert.match(await page.textContent("#verdicts"), /does not hold \(No\)/);
  // A bound past the page's is an error naming it.
  await page.fill("#diff-threads", "4");
  await page.click("#diff-run");
  await page.waitForSelector("#diff-out .error", { timeout: 60_000 });
  assert.match(await page.textContent("#diff-out .error"), /threads: expected 1 to 3 in the page/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("the README example answers", async () => {
  const page = await open(base);
  await firstAnswer(page);
  await choose(page, "examples/mp.test");
  await page.waitForFunction(() => /line 18/.test(document.querySelector("#verdicts").textContent), null, { timeout: 60_000 });
  assert.match(await page.textContent("#verdicts"), /line 18 .*Satisfiable \(as expected\)/);
  assert.match(await page.textContent("#report"), /expected SATISFIABLE got SATISFIABLE ok/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("an example runs: outcome list, verdicts, SVG graph; an outcome explains", async () => {
  const page = await open(base);
  await firstAnswer(page);
  await choose(page, "examples/mp.litmus");
  // mp.litmus: the consumer always reads the payload; one final state.
  await page.waitForSelector("#graph svg g.node", { timeout: 60_000 });
  await page.waitForFunction(() => document.querySelector("#status").textContent.startsWith("checked"));
  const header = await page.$$eval("#outcomes thead th", (ths) => ths.map((t) => t.textContent));
  assert.deepEqual(header, ["P1:r1", "executions"]);
  const rows = await page.$$eval("#outcomes tbody tr", (trs) => trs.map((tr) => tr.textContent));
  assert.equal(rows.length, 1);
  assert.match(rows[0], /^1\d+$/);
  assert.match(await page.textContent("#verdicts"), /Condition forall \(P1:r1 == 1\): holds \(Ok\)/);
  assert.match(await page.textContent("#verdicts .verdict.yes:last-child"), /Data races: race-free/);
  // Laid out as `vkmm show` does: scope instances first, then the relations.
  assert.equal(await page.getAttribute("#graph svg", "data-layout"), "two-pass");
  const edges = await page.$$eval("#graph svg g.edge", (g) => g.length);
  assert.ok(edges >= 3, `relation and program-order edges drawn (${edges})`);
  const nodes = await page.$$eval("#graph svg g.node", (g) => g.length);
  assert.ok(nodes >= 4, `the execution graph draws its events (${nodes} nodes)`);
  assert.match(await page.textContent("#graph svg"), /st\.av\.dv\.sc0 x, 1|x/);
  // Threads read left to right in litmus order (P0, in workgroup 0, left
  // of P1), whichever way this Graphviz orders nested clusters.
  const labels = await page.$$eval("#graph svg g.cluster text", (ts) =>
    ts.map((t) => [t.textContent.trim(), parseFloat(t.getAttribute("x"))]));
  const x = Object.fromEntries(labels);
  assert.ok(x.P0 < x.P1, `P0 left of P1: ${JSON.stringify(labels)}`);
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`screenshot: ${path.relative(repo, shot)}`);

  // Explaining the listed outcome: allowed, with a witness drawn.
  await page.click("#outcomes tbody tr");
  await page.waitForFunction(() => document.querySelector("#status").textContent === "explained");
  assert.match(await page.textContent("#explanation"), /ALLOWED/);
  assert.equal(await page.textContent("#explained"), "P1:r1 == 1");
  assert.ok((await page.$$("#graph svg g.node")).length >= 4);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("a bad edit is a located error; fixing it answers again", async () => {
  const page = await openExample("examples/mp.litmus");
  const good = await page.inputValue("#editor");
  await page.fill("#editor", good.replace("ld.vis.dv.sc0", "ld.bogus.dv.sc0"));
  await page.waitForSelector("#editor-error:not([hidden])");
  const message = await page.textContent("#editor-error");
  assert.match(message, /mp\.litmus:14:\d+/, message);
  assert.match(message, /bogus/);
  // Typing left the cursor alone; Run selects the place of the error.
  await page.$eval("#status", (s) => {
    s.textContent = "";
  });
  await page.click("#run");
  await page.waitForFunction(() => document.querySelector("#status").textContent === "error");
  const line = await page.$eval("#editor", (t) => t.value.slice(0, t.selectionStart).split("\n").length);
  assert.equal(line, 14);
  assert.equal(await page.textContent("#explanation"), "", "no stale explanation beside an error");
  await page.fill("#editor", good);
  await page.waitForSelector("#editor-error", { state: "hidden" });
  await page.waitForSelector("#outcomes tbody tr");
  await page.close();
});

test("a share link reopens the test and its options", async () => {
  const page = await openExample("examples/opencl-mp.litmus");
  await page.fill("#unroll", "3");
  await page.selectOption("#model", "vulkan");
  await page.click("#share");
  await page.waitForFunction(() => location.hash.includes("t="));
  const link = await page.evaluate(() => location.href);
  const text = await page.inputValue("#editor");
  const again = await open(link);
  await firstAnswer(again);
  assert.equal(await again.inputValue("#editor"), text);
  assert.equal(await again.inputValue("#unroll"), "3");
  assert.equal(await again.inputValue("#model"), "vulkan");
  assert.match(await again.textContent("#report"), /model vulkan/);
  await page.close();
  await again.close();
});

test("a pasted cat model runs, and its errors are located", async () => {
  const page = await openExample("examples/mp.litmus");
  await page.selectOption("#model", "@pasted");
  await page.fill("#cat", '"no axioms"\nlet dr = 0\n');
  // Without axioms the stale payload is allowed too: two outcomes.
  await page.waitForFunction(() => document.querySelectorAll("#outcomes tbody tr").length === 2);
  await page.fill("#cat", '"broken"\nlet x =\n');
  await page.waitForSelector("#cat-error:not([hidden])");
  assert.match(await page.textContent("#cat-error"), /pasted\.cat:3:\d+/);
  await page.close();
});

test("a long run shows progress and cancels", async () => {
  const page = await open(base);
  await firstAnswer(page);
  await page.uncheck("#live");
  // Three threads writing one location twice and reading it twice.
  const busy = [
    "VULKAN busy",
    "{ x=0; }",
    " P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 | P2@sg 0, wg 2, qf 0 ;",
    " st.atom.dv.sc0 x, 1 | st.atom.dv.sc0 x, 3 | st.atom.dv.sc0 x, 5 ;",
    " st.atom.dv.sc0 x, 2 | st.atom.dv.sc0 x, 4 | st.atom.dv.sc0 x, 6 ;",
    " ld.atom.dv.sc0 r0, x | ld.atom.dv.sc0 r0, x | ld.atom.dv.sc0 r0, x ;",
    " ld.atom.dv.sc0 r1, x | ld.atom.dv.sc0 r1, x | ld.atom.dv.sc0 r1, x ;",
    "exists (P0:r0 == 6)",
  ].join("\n");
  await page.fill("#editor", busy);
  await page.fill("#timeout", "0");
  await page.click("#run");
  await page.waitForFunction(() => /evaluations/.test(document.querySelector("#status").textContent), null, { timeout: 60_000 });
  assert.equal(await page.isEnabled("#cancel"), true);
  await page.click("#cancel");
  assert.equal(await page.textContent("#status"), "cancelled");
  assert.equal(await page.isEnabled("#cancel"), false);
  // The fresh worker answers the next run; a limit makes it bounded, and
  // the page says so.
  await page.fill("#max-executions", "500");
  await page.click("#run");
  await page.waitForSelector("#bounded:not([hidden])", { timeout: 60_000 });
  assert.match(await page.textContent("#bounded"), /max-executions/);
  assert.match(await page.textContent("#verdicts"), /undecided/);
  await page.close();
});

test("the page works opened from disk", async () => {
  const page = await open(pathToFileURL(path.join(dir, "index.html")).href);
  await firstAnswer(page);
  await choose(page, "examples/mp.litmus");
  await page.waitForSelector("#graph svg g.node", { timeout: 60_000 });
  assert.equal((await page.$$("#outcomes tbody tr")).length, 1);
  const t = await page.evaluate(() => window.vkmmTimings);
  console.log(`timings from disk: module ready ${t.wasmReady.toFixed(0)} ms, first answer ${t.firstAnswer.toFixed(0)} ms`);
  await page.close();
});
