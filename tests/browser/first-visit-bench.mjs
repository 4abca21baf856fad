// Browser figures for BENCHMARKS.md (not a test): a reader's first visit,
// nothing cached, over a slow link. Each page is opened in a fresh browser
// context (an empty cache) from a server that gzips what a static host
// gzips and sends every answer over one link of `mbit` megabits a second;
// Verify is timed in the page from the click to the outcome, and the bytes
// the server sent while verifying are summed, the WebAssembly apart.
// Pages: one without records (the core verifier alone) and one run page
// (the core verifier, then the one that recomputes its receipts).
// Prints one JSON object.
//   node tests/browser/first-visit-bench.mjs <site-dir> [mbit] [repeats]
import { readdirSync } from "node:fs";
import { join } from "node:path";

import { launch, open, timedVerify } from "./browser.mjs";
import { serve } from "./server.mjs";

const site = process.argv[2];
const mbit = Number(process.argv[3] ?? 10);
const repeats = Number(process.argv[4] ?? 5);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const runPage = "runs/" + readdirSync(join(site, "runs")).find((f) => /^S01-.*\.html$/.test(f));
const pages = { no_records: "compare.html", run: runPage };

const browser = await launch();
const link = { bytesPerSecond: (mbit * 1e6) / 8, sent: [] };
const server = await serve(site, { link });
const figures = { mbit, repeats, pages };
for (const [name, path] of Object.entries(pages)) {
  const times = [];
  let outcome = null;
  let sent = [];
  for (let r = 0; r < repeats; r++) {
    // browser.newPage() opens a new context: nothing is cached.
    const { page } = await open(browser, server.url + path);
    link.sent.length = 0;
    const timed = await timedVerify(page, 600_000);
    sent = [...link.sent];
    outcome = timed.outcome;
    times.push(timed.ms);
    await page.close();
  }
  const wasm = sent.filter(([p]) => p.endsWith(".wasm"));
  figures[name] = {
    verify_ms: Math.round(median(times)),
    min_ms: Math.round(Math.min(...times)),
    max_ms: Math.round(Math.max(...times)),
    status: outcome.status,
    receipts: outcome.checked,
    files: sent.length,
    bytes: sent.reduce((n, [, b]) => n + b, 0),
    wasm: Object.fromEntries(wasm),
  };
}
await browser.close();
await server.close();
console.log(JSON.stringify(figures));
