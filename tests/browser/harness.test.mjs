// Harness run reports in Chromium: the suite page and a run's report page
// verify their own receipts; a published figure changed in a record fails
// that figure's receipt by name (and the record's digest), on the run's
// page, on the suite's page and natively; and an egress decision that
// disagrees with the allowlist fails its receipt.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { claimFailures as claims, launch, verifyAt } from "./browser.mjs";
import { buildSample, copySite, receipts } from "./setup.mjs";

const SUITE = "harness/H01.html";
const RUN = "H01-sim-agent-careful-s2";
const PAGE = `harness/H01/${RUN}.html`;
const RECORD = `data/harness/H01/runs/${RUN}.json`;
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

/** A copy of the site whose run record is changed by `f` (on its parsed JSON). */
function tampered(f) {
  const copy = copySite(site);
  const file = join(copy, RECORD);
  const run = JSON.parse(readFileSync(file, "utf8"));
  f(run);
  writeFileSync(file, JSON.stringify(run, null, 2) + "\n");
  return copy;
}

test("the suite page and a run's report page verify", async () => {
  for (const path of [SUITE, PAGE]) {
    const { result, problems } = await verifyPage(site, path);
    assert.deepEqual(problems, [], path);
    assert.equal(result.status, "verified", `${path}: ${result.text}`);
    assert.equal(result.failed, 0);
  }
  // The suite page recomputes every run's receipts: as many as natively.
  const native = JSON.parse(receipts(["verify", site, "--records-only", "--json"]));
  const harness = native.receipts.filter((r) => r.subject.startsWith("harness/H01/"));
  assert.ok(harness.length > 100, `${harness.length} harness receipts`);
  const { result } = await verifyPage(site, SUITE);
  // A digest receipt per file fetched (the suite, its 12 runs, the page and
  // data/SHA256SUMS), and the records digest the page shows.
  assert.equal(result.checked, harness.length + 1 + 12 + 2 + 1);
});

test("a published figure changed in a record fails that figure, on every page that checks it", async () => {
  const copy = tampered((run) => { run.report.tool_failures += 1; });
  for (const path of [PAGE, SUITE, "verify.html"]) {
    const { result } = await verifyPage(copy, path);
    assert.equal(result.status, "failed", `${path}: ${result.text}`);
    assert.ok(result.failures.some((f) => f.startsWith(`${RECORD} | `) && f.includes(": SHA-256 in SHA256SUMS")), `${path}: the record's digest fails`);
    const failed = claims(result);
    assert.equal(failed.length, 1, `${path}: ${failed.join("; ")}`);
    const m = failed[0].match(/^(\S+) \| .*: report\.tool_failures recorded (\d+); recomputed (\d+)$/);
    assert.ok(m && m[1] === RECORD && Number(m[2]) === Number(m[3]) + 1, failed[0]);
  }
  let code = 0;
  try {
    receipts(["verify", copy], { stdio: "pipe" });
  } catch (e) {
    code = e.status;
    assert.match(e.stdout, /FAIL data\/harness\/H01\/runs\/H01-sim-agent-careful-s2\.json: report\.tool_failures: recorded \d+; recomputed \d+/);
  }
  assert.equal(code, 1, "receipts verify exits 1");
});

test("an egress decision the allowlist contradicts fails its receipt", async () => {
  const copy = tampered((run) => {
    const denied = run.events.findIndex((e) => e.event === "egress" && e.decision === "denied");
    assert.ok(denied >= 0, "the run has a blocked egress");
    run.events[denied].decision = "allowed";
    run.report.egress_blocked -= 1;
  });
  const { result } = await verifyPage(copy, PAGE);
  assert.equal(result.status, "failed", result.text);
  const failed = claims(result);
  assert.equal(failed.length, 1, failed.join("; "));
  assert.match(failed[0], /events\[\d+\]\.decision/);
});
