// The verifier in a real headless Chromium: the sample site verifies, a
// tampered artifact is found and named, a dropped report verifies, and the
// WebAssembly verifier gives byte-for-byte the native result.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import vm from "node:vm";

import { launch, open, verifyAt } from "./browser.mjs";
import { serve } from "./server.mjs";
import { buildSample, copySite, flipAByte, receipts } from "./setup.mjs";

let browser;
let site;

before(async () => {
  site = buildSample();
  browser = await launch();
});

after(async () => {
  await browser?.close();
});

function verifyPage(root, path) {
  return verifyAt(browser, root, path);
}

test("the whole sample site verifies in the browser", async () => {
  const { result, problems } = await verifyPage(site, "verify.html");
  assert.deepEqual(problems, []);
  assert.equal(result.status, "verified", result.text);
  assert.equal(result.failed, 0);
  const files = readFileSync(join(site, "SHA256SUMS"), "utf8").trim().split("\n").length;
  const native = JSON.parse(receipts(["verify", site, "--records-only", "--json"]));
  // One receipt per listed file, the records digest, and every recomputed record receipt.
  assert.equal(result.checked, files + 1 + native.tally.pass);
});

test("each kind of page verifies its own receipts", async () => {
  for (const path of ["index.html", "experiments/E02.html", "runs/E02-release-brief-careful-s2-ladder.html", "runs/index.html", "documents.html"]) {
    const { result, problems } = await verifyPage(site, path);
    assert.deepEqual(problems, [], path);
    assert.equal(result.status, "verified", `${path}: ${result.text}`);
    assert.ok(result.checked > 1, `${path} checked ${result.checked}`);
  }
});

test("one changed byte in an artifact fails exactly its receipts", async () => {
  const copy = copySite(site);
  const run = JSON.parse(readFileSync(join(copy, "data/E01/runs/E01-invoice-cleanup-careful-s1-always-large.json"), "utf8"));
  const digest = run.attempts.map((a) => a.artifact?.sha256).find(Boolean);
  assert.ok(digest, "the run has an artifact");
  flipAByte(join(copy, "data/objects", digest));
  const { result } = await verifyPage(copy, "verify.html");
  assert.equal(result.status, "failed", result.text);
  assert.ok(result.failed > 0);
  const object = `data/objects/${digest}`;
  const subjects = new Set(result.failures.map((f) => f.split(" | ")[0]));
  assert.ok(subjects.has(object), `the artifact is named: ${[...subjects].join(", ")}`);
  for (const s of subjects) {
    // Only the artifact itself and the runs whose checks read it may fail.
    assert.ok(s === object || /^data\/E0\d\/runs\//.test(s), `unexpected failure ${s}`);
  }
  assert.ok(result.failures.some((f) => f.includes(`artifact \`normalized.csv\``)), "the artifact's digest receipt fails");
});

test("a dropped report verifies, and a tampered one fails", async () => {
  const report = receipts(["export", "E02-release-brief-careful-s2-ladder", "--root", site, "--out", "-"]);
  const server = await serve(site);
  try {
    for (const [text, expected] of [[report, "verified"], [report.replace('"passed": true', '"passed": false'), "failed"]]) {
      const { page, problems } = await open(browser, server.url + "verify.html");
      await page.evaluate((content) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([content], "run.report.json", { type: "application/json" }));
        const zone = document.getElementById("verify-drop");
        zone.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
      }, text);
      await page.waitForFunction(() => ["verified", "failed", "error"].includes(document.querySelector("#verify-summary").dataset.status));
      const status = await page.evaluate(() => document.querySelector("#verify-summary").dataset.status);
      assert.equal(status, expected);
      assert.deepEqual(problems, []);
      await page.close();
    }
  } finally {
    await server.close();
  }
});

test("the WebAssembly verifier gives byte-for-byte the native result", () => {
  const glue = readFileSync(join(site, "assets/receipts_verifier.js"), "utf8");
  const context = vm.createContext({ console, TextDecoder, TextEncoder, WebAssembly, URL, FinalizationRegistry });
  // The no-modules glue declares `wasm_bindgen` with `let`; hand it out explicitly.
  vm.runInContext(`${glue}\nglobalThis.wasm_bindgen = wasm_bindgen;`, context);
  // The options object must come from the glue's own realm.
  context.wasmBytes = new Uint8Array(readFileSync(join(site, "assets/receipts_verifier_bg.wasm")));
  vm.runInContext("wasm_bindgen.initSync({ module: wasmBytes })", context);
  const bundle = new context.wasm_bindgen.Bundle();
  const data = join(site, "data");
  const walk = (dir) => readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
  for (const file of walk(data).sort()) {
    const rel = relative(data, file).split("\\").join("/");
    if (rel !== "SHA256SUMS") bundle.add(rel, readFileSync(file));
  }
  const wasm = bundle.verify(JSON.stringify({ scope: "all" }));
  const native = receipts(["verify", site, "--records-only", "--json"]).trimEnd();
  assert.ok(wasm.length > 10000);
  assert.equal(wasm, native);
});

test("pages carry a strict Content-Security-Policy and load scripts with integrity", () => {
  const html = readFileSync(join(site, "runs/E02-release-brief-careful-s2-ladder.html"), "utf8");
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self' 'wasm-unsafe-eval';[^"]*object-src 'none'/);
  assert.match(html, /<script src="\.\.\/assets\/verify\.js" integrity="sha384-[A-Za-z0-9+/=]+" defer><\/script>/);
  assert.doesNotMatch(html, /<script>/, "no inline script");
  assert.match(html, /data-wasm-sri="sha384-/);
});

test("a root digest given in the address is checked", async () => {
  const sums = readFileSync(join(site, "SHA256SUMS"));
  const { createHash } = await import("node:crypto");
  const root = createHash("sha256").update(sums).digest("hex");
  for (const [digest, expected] of [[root, "verified"], ["0".repeat(64), "failed"]]) {
    const { result } = await verifyPage(site, `verify.html#root=${digest}`);
    assert.equal(result.status, expected, result.text);
  }
});
