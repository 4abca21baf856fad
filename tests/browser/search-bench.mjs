// The runs index's search at scale, for BENCHMARKS.md (not a test): opens
// runs/index.html of a built site in headless Chromium with a search in the
// address and times the first answer (the index fetched in its parts and
// searched), then a second search typed into the field (the index already
// loaded; from the input event to the frame that shows the new count, the
// 150 ms pause for typing included), and the longest the page's main thread was busy meanwhile.
// Prints one JSON object.
//   node tests/browser/search-bench.mjs <site-dir> [repeats]
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

import { launch } from "./browser.mjs";
import { serve } from "./server.mjs";

const site = process.argv[2];
const repeats = Number(process.argv[3] ?? 3);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const parts = readdirSync(join(site, "runs")).filter((f) => /^rows-\d+\.json$/.test(f));
const indexBytes = parts.reduce((sum, f) => sum + statSync(join(site, "runs", f)).size, 0);

const server = await serve(site);
const browser = await launch();
const first = [];
const typed = [];
const busy = [];
let rows = 0;
let matched = "";
try {
  for (let r = 0; r < repeats; r++) {
    const page = await browser.newPage();
    // The longest task the main thread ran, as the long-task observer reports it.
    await page.addInitScript(() => {
      window.__longest = 0;
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration);
      }).observe({ type: "longtask", buffered: true });
    });
    await page.goto(server.url + "runs/index.html?q=careful%20ladder&outcome=failed");
    await page.waitForFunction(() => /runs match/.test(document.getElementById("run-count").textContent), null, { timeout: 300_000 });
    first.push(await page.evaluate(() => performance.now()));
    // A second search, typed: the time from the last key to the answer
    // (the search waits 150 ms for typing to pause).
    // Timed in the page: from the input event to the count's change.
    await page.evaluate(() => {
      window.__typed = null;
      const q = document.querySelector("input[name=q]");
      q.addEventListener("input", () => { window.__input = performance.now(); }, { capture: true });
      new MutationObserver(() => {
        // Until the frame that shows it has been laid out and painted.
        if (window.__input !== undefined && window.__typed === null && !window.__waiting) {
          window.__waiting = true;
          requestAnimationFrame(() => setTimeout(() => { window.__typed = performance.now() - window.__input; }, 0));
        }
      }).observe(document.getElementById("run-count"), { childList: true, characterData: true, subtree: true });
    });
    await page.fill("input[name=q]", "release-brief always-large s3");
    await page.waitForFunction(() => window.__typed !== null, null, { timeout: 60_000 });
    typed.push(await page.evaluate(() => window.__typed));
    matched = await page.textContent("#run-count");
    rows = Number(/of (\d+) runs/.exec(matched)?.[1] ?? 0);
    busy.push(await page.evaluate(() => window.__longest));
    await page.close();
  }
} finally {
  await browser.close();
  await server.close();
}
console.log(JSON.stringify({
  runs: rows,
  index_parts: parts.length,
  index_bytes: indexBytes,
  first_answer_ms: Math.round(median(first)),
  typed_answer_ms: Math.round(median(typed)),
  longest_task_ms: Math.round(median(busy)),
  last_count: matched,
}));
