// The provider failures of the sample and the model-id smoke test, in
// Chromium: the pages that show them verify, and each forged away fails
// its receipt by name on the page that checks it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { claimFailures, launch, verifyAt } from "./browser.mjs";
import { buildSample, tampered } from "./setup.mjs";

const REFUSED = "E02-release-brief-fast-s2-always-medium";
const RETRIED = "E02-invoice-cleanup-careful-s2-always-medium";
const EXPERIMENT = "experiments/E02.html";
const MODELS = "data/E02/models.json";
let browser;
let site;

before(async () => {
  site = buildSample();
  browser = await launch();
});

after(async () => {
  await browser?.close();
});


test("the pages of the failed calls and of the smoke test verify", async () => {
  for (const path of [`runs/${REFUSED}.html`, `runs/${RETRIED}.html`, EXPERIMENT]) {
    const { result, problems } = await verifyAt(browser, site, path);
    assert.deepEqual(problems, [], path);
    assert.equal(result.status, "verified", `${path}: ${result.text}`);
  }
  const page = readFileSync(join(site, EXPERIMENT), "utf8");
  assert.ok(page.includes("Model ids, checked before the first run"));
});

test("a smoke test confirming an id the provider answered under another spelling fails", async () => {
  const copy = tampered(site, MODELS, (check) => {
    check.probes[0].call.model_echoed = check.probes[0].model.toUpperCase();
  });
  const { result } = await verifyAt(browser, copy, EXPERIMENT);
  assert.equal(result.status, "failed", result.text);
  const failed = claimFailures(result);
  assert.ok(
    failed.some((f) => f.startsWith(`${MODELS} | `) && f.includes(".confirmed recorded confirmed; recomputed not confirmed: the provider answered as")),
    failed.join("\n"),
  );
});

test("a refused call recorded as completed fails its run's record", async () => {
  const rel = `data/E02/runs/${REFUSED}.json`;
  const copy = tampered(site, rel, (run) => { run.attempts[0].calls[0].status = "ok"; });
  const { result } = await verifyAt(browser, copy, `runs/${REFUSED}.html`);
  assert.equal(result.status, "failed", result.text);
  const failed = claimFailures(result);
  assert.ok(
    failed.some((f) => f.startsWith(`${rel} | `) && f.includes("record is possible") && f.includes("completed but has no usage")),
    failed.join("\n"),
  );
});

test("the failed calls hidden from the summary fail its figures", async () => {
  const rel = "data/E02/summary.json";
  const copy = tampered(site, rel, (summary) => {
    for (const p of summary.primary.policies) p.errors = 0;
  });
  const { result } = await verifyAt(browser, copy, EXPERIMENT);
  assert.equal(result.status, "failed", result.text);
  const failed = claimFailures(result);
  assert.ok(
    failed.some((f) => f.startsWith(`${rel} | `) && f.includes("primary.policies[always-medium].errors recorded 0; recomputed 2")),
    failed.join("\n"),
  );
});
