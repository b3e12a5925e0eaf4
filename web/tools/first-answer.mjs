// Time to the first answer (BENCHMARKS.md, "Playground"): loads the built
// page N times (default 5), each in a new Chromium with an empty profile
// and cache, served from 127.0.0.1, and prints the page's own timings of
// the README example (examples/mp.test, checked on load): module compiled
// and worker ready, first answer shown; median and every run. Then the
// engine's own time in the page on a heavier test (three threads writing
// one location twice and reading it: 3038 executions), three times, to
// compare with the native `vkmm check` of the same text (printed).
//
//   node web/tools/first-answer.mjs [N]      (after web/build.sh)
import { browser, firstAnswer, serve } from "../tests/harness.mjs";

const runs = Number(process.argv[2] || 5);
const BUSY = [
  "VULKAN busy",
  "{ x=0; }",
  " P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 | P2@sg 0, wg 2, qf 0 ;",
  " st.atom.dv.sc0 x, 1 | st.atom.dv.sc0 x, 3 | st.atom.dv.sc0 x, 5 ;",
  " st.atom.dv.sc0 x, 2 | st.atom.dv.sc0 x, 4 | st.atom.dv.sc0 x, 6 ;",
  " ld.atom.dv.sc0 r0, x | ld.atom.dv.sc0 r0, x | ld.atom.dv.sc0 r0, x ;",
  "exists (P0:r0 == 6)",
  "",
].join("\n");
const server = await serve();
const seen = [];
const busy = [];
try {
  const chromium = await browser();
  try {
    const page = await chromium.context.newPage();
    await page.goto(server.base);
    await firstAnswer(page);
    await page.uncheck("#live");
    await page.fill("#editor", BUSY);
    for (let i = 0; i < 3; i++) {
      await page.click("#run");
      await page.waitForFunction(() => /^Time busy/m.test(document.querySelector("#report").textContent), null, { timeout: 120_000 });
      busy.push((await page.textContent("#report")).match(/^Time busy .*$/m)[0]);
      await page.evaluate(() => { document.querySelector("#report").textContent = ""; });
    }
  } finally {
    await chromium.close();
  }
  for (let i = 0; i < runs; i++) {
    const chromium = await browser();
    try {
      const page = await chromium.context.newPage();
      await page.goto(server.base);
      await firstAnswer(page);
      seen.push(await page.evaluate(() => window.vkmmTimings));
    } finally {
      await chromium.close();
    }
  }
} finally {
  server.close();
}
const median = (k) => {
  const v = seen.map((t) => t[k]).sort((a, b) => a - b);
  return v[Math.floor(v.length / 2)];
};
const ms = (x) => `${x.toFixed(0)} ms`;
console.log(`runs: ${runs}`);
console.log(`module ready (compile + worker start): median ${ms(median("wasmReady"))}; ${seen.map((t) => ms(t.wasmReady)).join(", ")}`);
console.log(`first answer (examples/mp.test): median ${ms(median("firstAnswer"))}; ${seen.map((t) => ms(t.firstAnswer)).join(", ")}`);
console.log("heavier test in the page (native: save the text below as busy.litmus, `vkmm check busy.litmus`):");
for (const line of busy) console.log(`  ${line}`);
process.stdout.write(BUSY.replace(/^/gm, "    "));
