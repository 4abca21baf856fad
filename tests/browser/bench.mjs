// Browser figures for BENCHMARKS.md (not a test): the verifier's size, its
// SHA-256 throughput in Chromium against the browser's own crypto.subtle
// and native sha256sum, and the time to verify a whole site in the page.
//   node tests/browser/bench.mjs <site-dir>
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

import { launch, open, verify } from "./browser.mjs";
import { serve } from "./server.mjs";

const site = process.argv[2];
const MIB = 1024 * 1024;
const size = 64 * MIB;
const repeats = 5;

const wasm = readFileSync(join(site, "assets/receipts_verifier_bg.wasm"));
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
  const time = async (f) => {
    const xs = [];
    for (let r = 0; r < repeats; r++) {
      const t0 = performance.now();
      await f();
      xs.push((performance.now() - t0) / 1000);
    }
    return xs;
  };
  const viaWasm = await time(() => wasm_bindgen.sha256_hex(buf));
  const viaSubtle = await time(() => crypto.subtle.digest("SHA-256", buf));
  return { viaWasm, viaSubtle };
}, { size, repeats });
await tab.close();
server.close();

// The whole site, verified from its verify page.
const siteServer = await serve(site);
const { page: verifyTab } = await open(browser, siteServer.url + "verify.html");
const t0 = Date.now();
const outcome = await verify(verifyTab, 600_000);
const siteSeconds = (Date.now() - t0) / 1000;
await browser.close();
await siteServer.close();

const version = execFileSync(process.env.CHROMIUM ?? "/usr/bin/chromium", ["--version"], { encoding: "utf8" }).trim();
const mbps = (seconds) => (size / MIB / seconds).toFixed(0);
const [w, s, n] = [median(inBrowser.viaWasm), median(inBrowser.viaSubtle), median(native)];
console.log(`| wasm verifier size | ${(wasm.length / 1024).toFixed(0)} KiB raw, ${(gzipSync(wasm, { level: 9 }).length / 1024).toFixed(0)} KiB gzip | \`assets/receipts_verifier_bg.wasm\` after \`wasm-opt -Oz\` |`);
console.log(`| SHA-256 in the browser, wasm verifier | ${mbps(w)} MiB/s | 64 MiB buffer, median of ${repeats}, ${version} |`);
console.log(`| SHA-256 in the browser, \`crypto.subtle.digest\` | ${mbps(s)} MiB/s | same buffer; the wasm verifier runs at ${(s / w).toFixed(2)}× its speed |`);
console.log(`| SHA-256 native, \`sha256sum\` | ${mbps(n)} MiB/s | same bytes from a file (page cache), process start included; the wasm verifier runs at ${(n / w).toFixed(2)}× its speed |`);
console.log(`| verify the whole site in the browser | ${siteSeconds.toFixed(1)} s | ${outcome.checked} receipts, status ${outcome.status}, from pressing Verify on \`verify.html\` |`);
