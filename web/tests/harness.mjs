// What the playground's browser test and its timing tool share: a static
// server for the built page on 127.0.0.1 and headless Debian Chromium
// driven by playwright-core, with a fresh profile and no background
// networking (the network here is closed).
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pw from "playwright-core";

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const dir = path.resolve(process.env.PLAYGROUND_DIR || path.join(repo, "target/playground"));
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm" };

/** Serves `dir`; resolves to {base, close}. */
export async function serve() {
  if (!fs.existsSync(path.join(dir, "index.html"))) {
    throw new Error(`${dir}/index.html is missing: run web/build.sh`);
  }
  const server = http.createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url, "http://x").pathname).replace(/^\/+/, "") || "index.html";
    const file = path.join(dir, name);
    if (!file.startsWith(dir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": TYPES[path.extname(file)] || "application/octet-stream" });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { base: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() };
}

/** Starts Chromium with a new empty profile; resolves to {context, close}. */
export async function browser() {
  fs.mkdirSync(path.join(repo, "target"), { recursive: true });
  const userData = fs.mkdtempSync(path.join(repo, "target/playground-chromium-"));
  const context = await pw.chromium.launchPersistentContext(userData, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1400, height: 1100 },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      fs.rmSync(userData, { recursive: true, force: true });
    },
  };
}

/** Resolves when the page has shown its first answer. */
export const firstAnswer = (page) =>
  page.waitForFunction(() => window.vkmmTimings.firstAnswer, null, { timeout: 60_000 });
