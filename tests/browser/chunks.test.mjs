// An experiment of many runs lists its run records in chunk manifests
// (data/<experiment>/runs/SHA256SUMS-<hex>). In Chromium a run page's Verify
// fetches data/SHA256SUMS and the one chunk that lists its record, never
// the others; the whole site verifies every chunk and every page; and a
// chunk forged, or a run moved to another chunk with every manifest
// resealed, fails on the run's own page.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";

import { launch, verifyLogged as verifyWithLog } from "./browser.mjs";
import { copySite, receipts, tempDir } from "./setup.mjs";

// Whole seeds of the simulated grid (18 runs each), past 512: 16 chunks.
const RUNS = 612;
let browser;
let site;
let run;

const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

/** A SHA256SUMS file as a Map from path to digest, and back. */
function readSums(file) {
  const text = readFileSync(file, "utf8");
  return new Map(text.split("\n").filter(Boolean).map((l) => [l.slice(66), l.slice(0, 64)]));
}
function writeSums(file, map) {
  const lines = [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([p, d]) => `${d}  ${p}\n`);
  writeFileSync(file, lines.join(""));
}

/** The chunk listing run file `file` in `top` (a data/SHA256SUMS map). */
function chunkOf(top, file) {
  const width = [...top.keys()].find((p) => p.startsWith("S01/runs/SHA256SUMS-")).length - "S01/runs/SHA256SUMS-".length;
  return `S01/runs/SHA256SUMS-${sha256(file).slice(0, width)}`;
}

before(async () => {
  const dir = tempDir("receipts-chunks-");
  receipts(["simulate", "--quiet", "--out", dir, "--scale", String(RUNS)]);
  receipts(["build", "--quiet", "--compress-records", "--root", dir, "--out", join(dir, "site")]);
  site = join(dir, "site");
  // The simulated study passes its own receipts: natively, every one.
  receipts(["verify", site, "--quiet"]);
  run = readdirSync(join(site, "data/S01/runs"))
    .filter((f) => f.endsWith(".json.gz"))
    .map((f) => f.slice(0, -".json.gz".length))
    .sort()[0];
  browser = await launch();
});

after(async () => {
  await browser?.close();
});

function verifyLogged(root, path) {
  return verifyWithLog(browser, root, path);
}

test("a run page verifies reading only the chunk that lists its record", async () => {
  const top = readSums(join(site, "data/SHA256SUMS"));
  const chunks = [...top.keys()].filter((p) => p.includes("/SHA256SUMS-"));
  assert.equal(chunks.length, 16);
  const mine = chunkOf(top, `${run}.json`);
  assert.ok(top.has(mine), mine);
  const { result, problems, log } = await verifyLogged(site, `runs/${run}.html`);
  assert.deepEqual(problems, []);
  assert.equal(result.status, "verified", result.text + "\n" + result.failures.join("\n"));
  const fetchedChunks = log.filter((p) => p.includes("/SHA256SUMS-"));
  assert.deepEqual(fetchedChunks, [`/data/${mine}`]);
  assert.ok(log.includes("/data/SHA256SUMS"));
  // Its record checked against its chunk.
  assert.ok(result.receipts.some((r) => r.includes(`data/S01/runs/${run}.json: SHA-256 in data/${mine}`)), result.receipts.join("\n"));
});

test("the whole site verifies every chunk, and its pages", async () => {
  const { result, problems, log } = await verifyLogged(site, "verify.html");
  assert.deepEqual(problems, []);
  assert.equal(result.status, "verified", result.text + "\n" + result.failures.join("\n"));
  const fetchedChunks = new Set(log.filter((p) => p.includes("/SHA256SUMS-")));
  assert.ok(fetchedChunks.size === 16, [...fetchedChunks].join(" "));
});

test("a chunk forged, or the run moved to another chunk and every manifest resealed, fails on the run's page", async () => {
  const top = readSums(join(site, "data/SHA256SUMS"));
  const file = `${run}.json`;
  const mine = chunkOf(top, file);
  const other = [...top.keys()].find((p) => p.includes("/SHA256SUMS-") && p !== mine);

  // The run's line changed in its chunk, data/SHA256SUMS not resealed.
  const forged = copySite(site);
  const chunk = readSums(join(forged, "data", mine));
  chunk.set(file, "0".repeat(64));
  writeSums(join(forged, "data", mine), chunk);
  let { result } = await verifyLogged(forged, `runs/${run}.html`);
  assert.equal(result.status, "failed");
  assert.ok(result.failures.some((f) => f.includes(`data/${mine}: SHA-256 in data/SHA256SUMS recorded`)), result.failures.join("\n"));

  // Moved to another chunk, both chunks, data/SHA256SUMS and SHA256SUMS resealed.
  const moved = copySite(site);
  const from = readSums(join(moved, "data", mine));
  const to = readSums(join(moved, "data", other));
  to.set(file, from.get(file));
  from.delete(file);
  writeSums(join(moved, "data", mine), from);
  writeSums(join(moved, "data", other), to);
  for (const c of [mine, other]) top.set(c, sha256(readFileSync(join(moved, "data", c))));
  writeSums(join(moved, "data/SHA256SUMS"), top);
  const root = readSums(join(moved, "SHA256SUMS"));
  const oldRoot = sha256(readFileSync(join(moved, "SHA256SUMS")));
  root.set("data/SHA256SUMS", sha256(readFileSync(join(moved, "data/SHA256SUMS"))));
  writeSums(join(moved, "SHA256SUMS"), root);
  // The page shows the new root digest, as a forger would have it.
  const page = join(moved, `runs/${run}.html`);
  writeFileSync(page, readFileSync(page, "utf8").replaceAll(oldRoot, sha256(readFileSync(join(moved, "SHA256SUMS")))));
  ({ result } = await verifyLogged(moved, `runs/${run}.html`));
  assert.equal(result.status, "failed");
  assert.ok(result.failures.some((f) => f.includes(`data/S01/runs/${file}: listed in data/${mine} recorded`)), result.failures.join("\n"));
});
