// Browser figures for BENCHMARKS.md (not a test): the verifier's size, its
// SHA-256 throughput in Chromium against the browser's own crypto.subtle
// and native sha256sum, and verifying a whole site from its verify page:
// the time, how often the progress bar moved, the longest the page's main
// thread went without running a 20 ms timer (its responsiveness), and the
// time only fetching the same files takes from the same page.
// Prints one JSON object.
//   node tests/browser/bench.mjs <site-dir>
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

import { launch, open, timedVerify, verify } from "./browser.mjs";
import { serve } from "./server.mjs";

const site = process.argv[2];
const MIB = 1024 * 1024;
const size = 64 * MIB;
const repeats = 5;

const coreWasm = readFileSync(join(site, "assets/receipts_verifier_core_bg.wasm"));
const wasm = readFileSync(join(site, "assets/receipts_verifier_bg.wasm"));
const fullWasm = readFileSync(join(site, "assets/receipts_verifier_full_bg.wasm"));
const renderWasm = readFileSync(join(site, "assets/receipts_render_bg.wasm"));
const glue = readFileSync(join(site, "assets/receipts_verifier.js"));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Native sha256sum over the same amount of data.
const file = join(mkdtempSync(join(tmpdir(), "receipts-bench-")), "data.bin");
const data = Buffer.alloc(size);
for (let i = 0; i < size; i++) data[i] = (i * 2654435761) >>> 24;
writeFileSync(file, data);
const native = [];
for (let r = 0; r < repeats; r++) {
  const t0 = process.hrtime.bigint();
  execFileSync("sha256sum", [file]);
  native.push(Number(process.hrtime.bigint() - t0) / 1e9);
}

// A bare page (no CSP) that loads the verifier's glue and wasm.
const page = `<!doctype html><script src="/glue.js"></script>`;
const server = createServer((req, res) => {
  if (req.url === "/glue.js") res.writeHead(200, { "content-type": "text/javascript" }).end(glue);
  else if (req.url === "/v.wasm") res.writeHead(200, { "content-type": "application/wasm" }).end(wasm);
  else res.writeHead(200, { "content-type": "text/html" }).end(page);
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const browser = await launch();
const tab = await browser.newPage();
await tab.goto(`http://127.0.0.1:${server.address().port}/`);
const inBrowser = await tab.evaluate(async ({ size, repeats }) => {
  await wasm_bindgen({ module_or_path: fetch("/v.wasm") });
  const buf = new Uint8Array(size);
  for (let i = 0; i < size; i++) buf[i] = (i * 2654435761) >>> 24;
  const once = async (f) => {
    const t0 = performance.now();
    await f();
    return (performance.now() - t0) / 1000;
  };
  const wasm = () => wasm_bindgen.sha256_hex(buf);
  const subtle = () => crypto.subtle.digest("SHA-256", buf);
  // One untimed round first (the wasm engine compiles hot code again with
  // its optimizing tier), then the two in turn, so both see the same machine.
  await once(wasm);
  await once(subtle);
  const viaWasm = [];
  const viaSubtle = [];
  for (let r = 0; r < repeats; r++) {
    viaWasm.push(await once(wasm));
    viaSubtle.push(await once(subtle));
  }
  return { viaWasm, viaSubtle };
}, { size, repeats });
await tab.close();
server.close();

// The whole site, verified from its verify page, with a probe of the main thread.
const siteServer = await serve(site);
const { page: verifyTab } = await open(browser, siteServer.url + "verify.html");
await verifyTab.evaluate(() => {
  const probe = { longestGapMs: 0, progressSteps: 0 };
  const bar = document.getElementById("verify-progress");
  let last = performance.now();
  let value = -1;
  setInterval(() => {
    const now = performance.now();
    probe.longestGapMs = Math.max(probe.longestGapMs, now - last);
    last = now;
    if (!bar.hidden && bar.value !== value) {
      value = bar.value;
      probe.progressSteps++;
    }
  }, 20);
  window.__probe = probe;
});
const t0 = Date.now();
const outcome = await verify(verifyTab, 3_600_000);
const siteSeconds = (Date.now() - t0) / 1000;
const probe = await verifyTab.evaluate(() => window.__probe);

// The floor under that: every file the whole-site Verify reads (each file
// of the site but the manifests it starts from), fetched from the same tab
// and server as the worker fetches them (six at a time, not cached) with
// nothing done with the bytes. What the verify takes beyond this is the
// verifier's own work.
const everyFile = (dir, at = "") => readdirSync(join(dir, at), { withFileTypes: true }).flatMap((e) =>
  e.isDirectory() ? everyFile(dir, join(at, e.name)) : [join(at, e.name)]);
const fetched = everyFile(site).filter((p) => p !== "SHA256SUMS" && p !== "data/SHA256SUMS");
const fetchFloorMs = await verifyTab.evaluate(async (files) => {
  const t0 = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < files.length) {
      const r = await fetch(files[next++], { cache: "no-store" });
      await r.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 6 }, lane));
  return performance.now() - t0;
}, fetched);

// One run page, each time in a new tab (the worker and the wasm start
// anew): the median of a few, timed in the page from the click on Verify to
// the outcome in #verify-summary, without the test driver's own work.
const runPage = readdirSync(join(site, "runs")).find((f) => /^S01-.*\.html$/.test(f));
const runTimes = [];
let runOutcome = null;
for (let r = 0; r < 5; r++) {
  const { page: runTab } = await open(browser, `${siteServer.url}runs/${runPage}`);
  const { outcome, ms } = await timedVerify(runTab, 600_000);
  runOutcome = outcome;
  runTimes.push(ms);
  await runTab.close();
}
await browser.close();
await siteServer.close();

const version = execFileSync(process.env.CHROMIUM ?? "/usr/bin/chromium", ["--version"], { encoding: "utf8" }).trim();
const mibps = (seconds) => size / MIB / seconds;
console.log(JSON.stringify({
  chromium: version,
  core_bytes: coreWasm.length,
  core_gzip_bytes: gzipSync(coreWasm, { level: 9 }).length,
  wasm_bytes: wasm.length,
  wasm_gzip_bytes: gzipSync(wasm, { level: 9 }).length,
  full_bytes: fullWasm.length,
  full_gzip_bytes: gzipSync(fullWasm, { level: 9 }).length,
  render_bytes: renderWasm.length,
  render_gzip_bytes: gzipSync(renderWasm, { level: 9 }).length,
  sha_buffer_mib: size / MIB,
  sha_repeats: repeats,
  sha_wasm_mibps: mibps(median(inBrowser.viaWasm)),
  sha_subtle_mibps: mibps(median(inBrowser.viaSubtle)),
  sha_native_mibps: mibps(median(native)),
  site_verify_s: siteSeconds,
  site_receipts: outcome.checked,
  site_status: outcome.status,
  site_progress_steps: probe.progressSteps,
  site_longest_gap_ms: Math.round(probe.longestGapMs),
  site_files: fetched.length,
  site_fetch_floor_s: fetchFloorMs / 1000,
  run_page_verify_ms: median(runTimes),
  run_page_receipts: runOutcome.checked,
  run_page_status: runOutcome.status,
}));
