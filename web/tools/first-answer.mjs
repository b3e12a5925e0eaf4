// Time to the first answer (BENCHMARKS.md, "Playground"): loads the built
// page N times (default 5), each in a new Chromium with an empty profile
// and cache, served from 127.0.0.1, and prints the page's own timings of
// the README example (examples/mp.test, checked on load): module compiled
// and worker ready, first answer shown; median and every run.
//
//   node web/tools/first-answer.mjs [N]      (after web/build.sh)
import { browser, firstAnswer, serve } from "../tests/harness.mjs";

const runs = Number(process.argv[2] || 5);
const server = await serve();
const seen = [];
try {
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
