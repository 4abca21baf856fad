// Browser figures for BENCHMARKS.md (not a test): the verifier's size, its
// SHA-256 throughput in Chromium against the browser's own crypto.subtle
// and native sha256sum, and verifying a whole site from its verify page:
// the time, how often the progress bar moved, the longest the page's main
// thread went without running a 20 ms timer (its responsiveness), and the
// time only fetching the same files takes from the same page, with how busy
// the machine's cores were meanwhile. The whole site is verified in a
// Chromium driven with nothing but the protocol's Runtime domain
// (bare.mjs), as a reader's browser runs it, unwatched; the run pages with
// Playwright. With --run-page only a run page is timed (the first of S01 by
// name, as below), for a second, larger site.
// Prints one JSON object.
//   node tests/browser/bench.mjs <site-dir> [--run-page]
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

import { openBare } from "./bare.mjs";
import { launch, open, timedVerify } from "./browser.mjs";
import { serve } from "./server.mjs";

const site = process.argv[2];
const runPageOnly = process.argv[3] === "--run-page";
const MIB = 1024 * 1024;
const size = 64 * MIB;
const repeats = 5;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// One run page, each time in a new tab (the worker and the wasm start
// anew): the median of a few, timed in the page from the click on Verify to
// the outcome in #verify-summary, without the test driver's own work.
async function runPage(browser, url) {
  const page = readdirSync(join(site, "runs")).find((f) => /^S01-.*\.html$/.test(f));
  const times = [];
  let outcome = null;
  for (let r = 0; r < 5; r++) {
    const { page: tab } = await open(browser, `${url}runs/${page}`);
    const timed = await timedVerify(tab, 600_000);
    outcome = timed.outcome;
    times.push(timed.ms);
    await tab.close();
  }
  return { run_page_verify_ms: median(times), run_page_receipts: outcome.checked, run_page_status: outcome.status };
}

if (runPageOnly) {
  const server = await serve(site);
  const browser = await launch();
  const figures = await runPage(browser, server.url);
  await browser.close();
  await server.close();
  console.log(JSON.stringify(figures));
  process.exit(0);
}

// How busy the machine's cores were while `work` ran (from /proc/stat):
// `{ value, busyCores }`, busyCores null where /proc/stat cannot be read.
async function busy(work) {
  const ticks = () => {
    try {
      const [, ...fields] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).map(Number);
      const idle = fields[3] + fields[4];
      return { idle, all: fields.reduce((a, b) => a + b, 0) };
    } catch {
      return null;
    }
  };
  const before = ticks();
  const t0 = process.hrtime.bigint();
  const value = await work();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const after = ticks();
  const hz = 100;
  const busyCores = before && after ? ((after.all - before.all) - (after.idle - before.idle)) / hz / seconds : null;
  return { value, busyCores };
}

const coreWasm = readFileSync(join(site, "assets/receipts_verifier_core_bg.wasm"));
const wasm = readFileSync(join(site, "assets/receipts_verifier_bg.wasm"));
const fullWasm = readFileSync(join(site, "assets/receipts_verifier_full_bg.wasm"));
const renderWasm = readFileSync(join(site, "assets/receipts_render_bg.wasm"));
const glue = readFileSync(join(site, "assets/receipts_verifier.js"));

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
// Closed while the whole site is verified in another Chromium.
await browser.close();

// The whole site, verified from its verify page in an unwatched Chromium,
// with a probe of the main thread: timed in the page from the click on
// Verify to the outcome in #verify-summary.
const siteServer = await serve(site);
const wholeSite = async () => {
  const probe = { longestGapMs: 0, progressSteps: 0 };
  const bar = document.getElementById("verify-progress");
  const summary = document.getElementById("verify-summary");
  let last = performance.now();
  let value = -1;
  const timer = setInterval(() => {
    const now = performance.now();
    probe.longestGapMs = Math.max(probe.longestGapMs, now - last);
    last = now;
    if (!bar.hidden && bar.value !== value) {
      value = bar.value;
      probe.progressSteps++;
    }
  }, 20);
  const outcomes = ["verified", "failed", "unchecked", "error"];
  const done = new Promise((ok) => new MutationObserver(() => {
    if (outcomes.includes(summary.dataset.status)) ok();
  }).observe(summary, { attributes: true }));
  const t0 = performance.now();
  document.getElementById("verify-run").click();
  await done;
  const ms = performance.now() - t0;
  clearInterval(timer);
  return { ms, status: summary.dataset.status, checked: Number(summary.dataset.checked), ...probe };
};
const bare = await openBare(siteServer.url + "verify.html");
const { value: whole, busyCores: verifyBusy } = await busy(() => bare.evaluate(`(${wholeSite})()`));

// The floor under that: every file the whole-site Verify reads (each file
// of the site but the manifests it starts from), fetched from the same kind
// of page and server as the worker fetches them (six at a time, not cached)
// with nothing done with the bytes. What the verify takes beyond this is
// the verifier's own work.
const everyFile = (dir, at = "") => readdirSync(join(dir, at), { withFileTypes: true }).flatMap((e) =>
  e.isDirectory() ? everyFile(dir, join(at, e.name)) : [join(at, e.name)]);
const fetched = everyFile(site).filter((p) => p !== "SHA256SUMS" && p !== "data/SHA256SUMS");
const floor = async (files) => {
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
};
const { value: fetchFloorMs, busyCores: floorBusy } = await busy(() => bare.evaluate(`(${floor})(${JSON.stringify(fetched)})`));
await bare.close();

// The same Verify driven by Playwright, as the browser tests drive it: it
// watches every request, which is what earlier figures here were measured under.
const driver = await launch();
const { page: verifyTab } = await open(driver, siteServer.url + "verify.html");
const driven = await timedVerify(verifyTab, 3_600_000);
await verifyTab.close();

const run = await runPage(driver, siteServer.url);
await driver.close();
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
  site_verify_s: whole.ms / 1000,
  site_receipts: whole.checked,
  site_status: whole.status,
  site_progress_steps: whole.progressSteps,
  site_longest_gap_ms: Math.round(whole.longestGapMs),
  site_busy_cores: verifyBusy,
  site_driven_verify_s: driven.ms / 1000,
  site_driven_status: driven.outcome.status,
  site_files: fetched.length,
  site_fetch_floor_s: fetchFloorMs / 1000,
  site_fetch_busy_cores: floorBusy,
  ...run,
}));
