// A site built with --compress-records (run records published as
// data/<experiment>/runs/<run>.json.gz) verifies in Chromium as a plain one
// does: the worker reads the records inside the gzip files, a run page's
// footer digest is its record's, the compare page reads them, and a record
// changed inside its gzip file fails.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";

import { launch, open, verifyAt } from "./browser.mjs";
import { serve } from "./server.mjs";
import { buildSample, copySite, receipts } from "./setup.mjs";

const RUN = "E02-release-brief-careful-s2-ladder";
const RECORD = `data/E02/runs/${RUN}.json.gz`;
let browser;
let site;

before(async () => {
  site = buildSample(["--compress-records"]);
  browser = await launch();
});

after(async () => {
  await browser?.close();
});

function verifyPage(root, path) {
  return verifyAt(browser, root, path);
}

test("run records are published gzipped, and only so", () => {
  const runs = readdirSync(join(site, "data/E02/runs"));
  assert.ok(runs.length > 50, `${runs.length} records`);
  assert.ok(runs.every((f) => f.endsWith(".json.gz")), runs.find((f) => !f.endsWith(".json.gz")));
  const record = JSON.parse(gunzipSync(readFileSync(join(site, RECORD))));
  assert.equal(record.id, RUN);
  const html = readFileSync(join(site, `runs/${RUN}.html`), "utf8");
  assert.ok(html.includes(`href="../${RECORD}"`), "the run page links its gzipped record");
  assert.match(html, /Record digest <code class="digest">[0-9a-f]{64}<\/code>: the SHA-256 of <a [^>]+>[^<]+<\/a>, uncompressed\./);
});

test("the whole compressed site verifies, as many receipts as natively", async () => {
  const { result, problems } = await verifyPage(site, "verify.html");
  assert.deepEqual(problems, []);
  assert.equal(result.status, "verified", result.text);
  const files = readFileSync(join(site, "SHA256SUMS"), "utf8").trim().split("\n").length;
  const native = JSON.parse(receipts(["verify", site, "--records-only", "--json"]));
  assert.equal(result.checked, files + 1 + native.tally.pass);
});

test("a run page verifies its gzipped record against the digest it shows", async () => {
  const { result, problems } = await verifyPage(site, `runs/${RUN}.html`);
  assert.deepEqual(problems, []);
  assert.equal(result.status, "verified", result.text);
  assert.ok(result.checked > 5, `${result.checked} receipts`);
});

test("the compare page reads gzipped records", async () => {
  const server = await serve(site);
  try {
    const { page, problems } = await open(browser, `${server.url}compare.html?a=${RUN}&b=E02-release-brief-careful-s2-always-large`);
    await page.waitForSelector("#compare[data-status=ready]");
    assert.match(await page.textContent("#compare"), /always-large/);
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    await server.close();
  }
});

test("a record changed inside its gzip file fails, on its page and on the site", async () => {
  const copy = copySite(site);
  const file = join(copy, RECORD);
  const text = gunzipSync(readFileSync(file)).toString("utf8");
  const changed = text.replace(/"duration_ms": (\d+)/, (_, d) => `"duration_ms": ${Number(d) + 1000}`);
  assert.notEqual(changed, text);
  writeFileSync(file, gzipSync(changed));
  for (const path of [`runs/${RUN}.html`, "verify.html"]) {
    const { result } = await verifyPage(copy, path);
    assert.equal(result.status, "failed", `${path}: ${result.text}`);
    const subjects = new Set(result.failures.map((f) => f.split(" | ")[0]));
    assert.ok(subjects.has(RECORD), `${path} names the file: ${[...subjects].join(", ")}`);
  }
  // Bytes that are not gzip at all are a failure, not an error.
  writeFileSync(file, "not gzip");
  const { result } = await verifyPage(copy, `runs/${RUN}.html`);
  assert.equal(result.status, "failed", result.text);
});
