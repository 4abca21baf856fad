// Claims bound to figures, in Chromium: an experiment's page recomputes the
// figures of the other experiments its claims and hypotheses read (and
// fetches their records), a memo's page recomputes its own claims, and a
// claim's number edited in its record fails by name, manifests resealed or not.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";

import { claimFailures, isManifestFailure, launch, verifyAt } from "./browser.mjs";
import { buildSample, copySite, flipAByte } from "./setup.mjs";

const MEMO_PAGE = "docs/memos/E02-corrections.html";
const MEMO = "data/docs/memos/E02-corrections.md";
let browser;
let site;

before(async () => {
  site = buildSample();
  browser = await launch();
});

after(async () => {
  await browser?.close();
});

const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

test("an experiment's page and a memo's page verify their claims", async () => {
  for (const path of ["experiments/E02.html", MEMO_PAGE]) {
    const { result, problems } = await verifyAt(browser, site, path);
    assert.deepEqual(problems, [], path);
    assert.equal(result.status, "verified", `${path}: ${result.text}`);
    assert.equal(result.failed, 0, path);
  }
  const scope = readFileSync(join(site, "experiments/E02.html"), "utf8").match(/data-scope="([^"]*)"/)[1].replaceAll("&quot;", '"');
  assert.deepEqual(JSON.parse(scope), { scope: "experiment", experiment: "E02", with: ["E01"] });
});

test("E02's page fetches and checks the E01 records its claims read", async () => {
  const copy = copySite(site);
  const record = "data/E01/runs/E01-release-brief-careful-s1-always-medium.json";
  flipAByte(join(copy, record));
  const { result } = await verifyAt(browser, copy, "experiments/E02.html");
  assert.equal(result.status, "failed", result.text);
  assert.ok(
    result.failures.filter(isManifestFailure).some((f) => f.startsWith(`${record} | ✗ ${record}: SHA-256 in data/SHA256SUMS`)),
    result.failures.join("\n"),
  );
});

test("a claim's number edited in a memo fails by name, resealed or not", async () => {
  const copy = copySite(site);
  const file = join(copy, MEMO);
  const text = readFileSync(file, "utf8");
  const forged = text.replace("[83.3%](#E02.ladder.pass_rate_pct)", "[88.9%](#E02.ladder.pass_rate_pct)");
  assert.notEqual(forged, text);
  writeFileSync(file, forged);
  const line = forged.split("\n").findIndex((l) => l.includes("[88.9%](#E02.ladder.pass_rate_pct)")) + 1;
  const expected = `${MEMO} | ✗ ${MEMO}: line ${line}: [88.9%](#E02.ladder.pass_rate_pct) recorded 88.9%; recomputed the figure is 83.3`;
  let { result } = await verifyAt(browser, copy, MEMO_PAGE);
  assert.equal(result.status, "failed", result.text);
  assert.ok(result.failures.filter(isManifestFailure).some((f) => f.startsWith(`${MEMO} | `)), result.failures.join("\n"));
  assert.ok(claimFailures(result).some((f) => f.startsWith(expected)), claimFailures(result).join("\n"));
  // Resealed in data/SHA256SUMS and SHA256SUMS: the manifests agree, the claim still fails.
  const sumsFile = join(copy, "data/SHA256SUMS");
  const listed = readFileSync(sumsFile, "utf8");
  const old = listed.match(/^([0-9a-f]{64})  docs\/memos\/E02-corrections\.md$/m)[1];
  writeFileSync(sumsFile, listed.replace(old, sha256(readFileSync(file))));
  const rootFile = join(copy, "SHA256SUMS");
  const root = readFileSync(rootFile, "utf8");
  const oldData = root.match(/^([0-9a-f]{64})  data\/SHA256SUMS$/m)[1];
  writeFileSync(rootFile, root.replace(oldData, sha256(readFileSync(sumsFile))));
  const page = join(copy, MEMO_PAGE);
  const oldRoot = sha256(Buffer.from(root));
  const newRoot = sha256(readFileSync(rootFile));
  writeFileSync(page, readFileSync(page, "utf8").replaceAll(oldRoot, newRoot));
  ({ result } = await verifyAt(browser, copy, MEMO_PAGE));
  assert.equal(result.status, "failed", result.text);
  assert.deepEqual(result.failures.filter(isManifestFailure), []);
  assert.ok(claimFailures(result).some((f) => f.startsWith(expected)), claimFailures(result).join("\n"));
});

test("words that claim in a memo fail by their word", async () => {
  const copy = copySite(site);
  const file = join(copy, MEMO);
  const text = readFileSync(file, "utf8");
  const rates = "change(E02.ladder.pass_rate_pct,E02.always-large.pass_rate_pct)";
  const forged = text.replace("[83.3%](#E02.ladder.pass_rate_pct)", `[faster](#${rates}), nine in ten, dearer`);
  assert.notEqual(forged, text);
  writeFileSync(file, forged);
  const line = forged.split("\n").findIndex((l) => l.includes("nine in ten")) + 1;
  const { result } = await verifyAt(browser, copy, MEMO_PAGE);
  assert.equal(result.status, "failed", result.text);
  const failures = claimFailures(result);
  for (const expected of [
    `${MEMO} | ✗ ${MEMO}: line ${line}: [faster](#${rates}) recorded faster; recomputed \`faster\` describes a time, but the figure is a rate`,
    `${MEMO} | ✗ ${MEMO}: line ${line}: nine in ten recorded nine in ten; recomputed a number written in words`,
    `${MEMO} | ✗ ${MEMO}: line ${line}: dearer recorded dearer; recomputed a comparison typed by hand`,
  ]) {
    assert.ok(failures.some((f) => f.startsWith(expected)), `${expected}\n${failures.join("\n")}`);
  }
});

test("the whole site's Verify holds a showcase note's number to the claim rules", async () => {
  const copy = copySite(site);
  const file = join(copy, "data/showcase/showcase.json");
  const text = readFileSync(file, "utf8");
  const forged = text.replace("A ladder that escalated from small to large", "A ladder that passed l00% of tasks, escalated from small to large");
  assert.notEqual(forged, text);
  writeFileSync(file, forged);
  const { result } = await verifyAt(browser, copy, "verify.html");
  assert.equal(result.status, "failed", result.text);
  const expected = "✗ data/showcase/showcase.json: runs[0].note: l00% recorded l00%; recomputed a number written with letters that look like digits";
  assert.ok(claimFailures(result).some((f) => f.includes(expected)), claimFailures(result).join("\n"));
});
