// Harness run reports in Chromium: the suite page and a run's report page
// verify their own receipts; a published figure changed in a record fails
// that figure's receipt by name (and the record's digest in data/SHA256SUMS,
// and on the run's page the record digest it shows), on the run's page, on
// the suite's page, on the whole site and natively; and an egress decision
// that disagrees with the allowlist fails its receipt.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";

import { claimFailures as claims, isManifestFailure, isPageFailure, launch, verifyAt } from "./browser.mjs";
import { buildSample, copySite, receipts } from "./setup.mjs";

const SUITE = "harness/H01.html";
const RUN = "H01-sim-agent-careful-s1";
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

/** A copy of the site whose run record (of run `id`) is changed by `f` (on its parsed JSON). */
function tampered(f, id = RUN) {
  const copy = copySite(site);
  const file = join(copy, `data/harness/H01/runs/${id}.json`);
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
  const html = readFileSync(join(site, SUITE), "utf8");
  const files = html.match(/data-files="([^"]*)"/)[1].split(" ");
  assert.equal(files.length, 1 + 12, "the suite and its 12 runs");
  const records = readFileSync(join(site, "data/SHA256SUMS"), "utf8");
  assert.ok(files.every((f) => f.startsWith("data/") && records.includes(`  ${f.slice(5)}\n`)), "data/SHA256SUMS lists every record the page checks");
  const { result } = await verifyPage(site, SUITE);
  // data/SHA256SUMS' digest in SHA256SUMS, a digest in data/SHA256SUMS per
  // record fetched (the suite and its 12 runs), the root digest the footer
  // shows, and every recomputed receipt. The page itself is not hashed.
  assert.equal(result.checked, 1 + files.length + 1 + harness.length);
});

test("a published figure changed in a record fails that figure, on every page that checks it", async () => {
  const copy = tampered((run) => { run.report.tool_failures += 1; });
  const found = createHash("sha256").update(readFileSync(join(copy, RECORD))).digest("hex");
  const listed = readFileSync(join(copy, "data/SHA256SUMS"), "utf8").match(new RegExp(`^([0-9a-f]{64})  ${RECORD.slice(5)}$`, "m"))[1];
  for (const path of [PAGE, SUITE, "verify.html"]) {
    const { result } = await verifyPage(copy, path);
    assert.equal(result.status, "failed", `${path}: ${result.text}`);
    // The manifest checks that fail: the record's digest in data/SHA256SUMS
    // and, on the run's own page, the record digest the page shows.
    const expected = [`${RECORD} | ✗ ${RECORD}: SHA-256 in data/SHA256SUMS recorded ${listed}; recomputed ${found}`];
    if (path === PAGE) expected.push(`${PAGE} | ✗ ${PAGE}: digest of ${RECORD} shown on the page recorded ${listed}; recomputed ${found}`);
    assert.deepEqual(result.failures.filter(isManifestFailure), expected, path);
    // Verifying the whole site renders every page again: the record's own
    // page, rendered from the changed record, is not the page served.
    const pages = result.failures.filter(isPageFailure).map((f) => f.split(" | ")[0]);
    if (path === "verify.html") assert.ok(pages.includes(PAGE), `${path}: ${pages.join(", ")}`);
    else assert.deepEqual(pages, [], path);
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
    assert.match(e.stdout, /FAIL data\/harness\/H01\/runs\/H01-sim-agent-careful-s1\.json: report\.tool_failures: recorded \d+; recomputed \d+/);
    assert.ok(e.stdout.includes(`FAIL ${RECORD}: SHA-256 in data/SHA256SUMS: recorded ${listed}; recomputed ${found}`), e.stdout);
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
  // The record's digest, in data/SHA256SUMS and as the page shows it, fails too.
  assert.deepEqual(result.failures.filter(isManifestFailure).map((f) => f.split(" | ")[0] + " | " + (f.match(/: (SHA-256 in data\/SHA256SUMS|digest of \S+ shown on the page) recorded/) ?? [, f])[1]), [
    `${RECORD} | SHA-256 in data/SHA256SUMS`,
    `${PAGE} | digest of ${RECORD} shown on the page`,
  ]);
});

test("a tool call's refusal rewritten as an approval fails its vetting receipt", async () => {
  const refused = "H01-sim-agent-fast-s2";
  const record = `data/harness/H01/runs/${refused}.json`;
  let index = -1;
  const copy = tampered((run) => {
    index = run.events.findIndex((e) => e.event === "tool_call" && (e.vetting ?? []).some((v) => v.decision === "denied"));
    assert.ok(index >= 0, "the run has a refused tool call");
    const call = run.events[index];
    for (const v of call.vetting) v.decision = "allowed";
    call.ok = true;
    call.error = null;
    run.report.args_refused -= 1;
    run.report.tool_failures -= 1;
  }, refused);
  const { result } = await verifyPage(copy, `harness/H01/${refused}.html`);
  assert.equal(result.status, "failed", result.text);
  const failed = claims(result);
  assert.ok(
    failed.some((f) => f.startsWith(`${record} | `) && f.includes(`events[${index}].vetting`) && f.includes("recorded allowed, recomputed denied")),
    failed.join("\n"),
  );
  assert.ok(failed.some((f) => f.includes("report.args_refused")), failed.join("\n"));
});
