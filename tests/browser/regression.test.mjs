// Regression-CI verdicts in Chromium: the suite page and an edit's verdict
// page verify their own receipts; a softened verdict fails by name (and the
// edit's digest in data/SHA256SUMS, and on the edit's page the record digest
// it shows) on the edit's page, the suite's page and the whole site; a
// changed skill object fails the edit that names it. The golden library
// and a week's digest verify the suite; a refused undo recorded as done, or
// an ablation's rounded-up recall, fails by name.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";

import { claimFailures as claims, isManifestFailure, isPageFailure, launch, verifyAt } from "./browser.mjs";
import { buildSample, copySite, flipAByte, receipts, tampered } from "./setup.mjs";

const SUITE = "regressions/R01.html";
const EDIT = "R01-edit-04-reporting";
const PAGE = `regressions/R01/${EDIT}.html`;
const RECORD = `data/regressions/R01/edits/${EDIT}.json`;
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

test("the suite page and an edit's verdict page verify", async () => {
  for (const path of [SUITE, PAGE]) {
    const { result, problems } = await verifyPage(site, path);
    assert.deepEqual(problems, [], path);
    assert.equal(result.status, "verified", `${path}: ${result.text}`);
    assert.equal(result.failed, 0);
  }
  // The suite page recomputes every edit and the benchmark: as many receipts as natively.
  const native = JSON.parse(receipts(["verify", site, "--records-only", "--json"]));
  const mine = native.receipts.filter((r) => r.subject.startsWith("regressions/R01/"));
  assert.ok(mine.length > 150, `${mine.length} regression receipts`);
  const records = readFileSync(join(site, "data/SHA256SUMS"), "utf8");
  const html = readFileSync(join(site, SUITE), "utf8");
  const files = html.match(/data-files="([^"]*)"/)[1].split(" ");
  assert.ok(files.every((f) => f.startsWith("data/") && records.includes(`  ${f.slice(5)}\n`)), "data/SHA256SUMS lists every record the page checks");
  const { result } = await verifyPage(site, SUITE);
  // data/SHA256SUMS' digest in SHA256SUMS, a digest in data/SHA256SUMS per
  // record fetched, the root digest the footer shows, and every recomputed
  // receipt. The page itself is not hashed.
  assert.equal(result.checked, 1 + files.length + 1 + mine.length);
});

test("a softened verdict fails by name on every page that checks it", async () => {
  const copy = copySite(site);
  const file = join(copy, RECORD);
  const edit = JSON.parse(readFileSync(file, "utf8"));
  assert.equal(edit.verdict.result, "BLOCK");
  edit.verdict.result = "PASS";
  edit.verdict.action = "merge";
  writeFileSync(file, JSON.stringify(edit, null, 2) + "\n");
  const found = createHash("sha256").update(readFileSync(file)).digest("hex");
  const listed = readFileSync(join(copy, "data/SHA256SUMS"), "utf8").match(new RegExp(`^([0-9a-f]{64})  ${RECORD.slice(5)}$`, "m"))[1];
  for (const path of [PAGE, SUITE, "verify.html"]) {
    const { result } = await verifyPage(copy, path);
    assert.equal(result.status, "failed", `${path}: ${result.text}`);
    // The manifest checks that fail: the edit's digest in data/SHA256SUMS
    // and, on the edit's own page, the record digest the page shows.
    const expected = [`${RECORD} | ✗ ${RECORD}: SHA-256 in data/SHA256SUMS recorded ${listed}; recomputed ${found}`];
    if (path === PAGE) expected.push(`${PAGE} | ✗ ${PAGE}: digest of ${RECORD} shown on the page recorded ${listed}; recomputed ${found}`);
    assert.deepEqual(result.failures.filter(isManifestFailure), expected, path);
    // Verifying the whole site renders every page again: the record's own
    // page, rendered from the changed record, is not the page served.
    const pages = result.failures.filter(isPageFailure).map((f) => f.split(" | ")[0]);
    if (path === "verify.html") assert.ok(pages.includes(PAGE), `${path}: ${pages.join(", ")}`);
    else assert.deepEqual(pages, [], path);
    const failed = claims(result);
    assert.deepEqual(
      failed.map((f) => f.replace(/^.*?: /, "")),
      ["verdict.result recorded PASS; recomputed BLOCK", "verdict.action recorded merge; recomputed revert"],
      path,
    );
    assert.ok(failed.every((f) => f.startsWith(`${RECORD} | `)), failed.join("; "));
  }
});

test("a changed skill object fails the edit that names it", async () => {
  const copy = copySite(site);
  const edit = JSON.parse(readFileSync(join(copy, RECORD), "utf8"));
  const object = `data/objects/${edit.skill.after_sha256}`;
  flipAByte(join(copy, object));
  const { result } = await verifyPage(copy, PAGE);
  assert.equal(result.status, "failed", result.text);
  // The object fails its digest in data/SHA256SUMS; the edit's record is intact.
  const found = createHash("sha256").update(readFileSync(join(copy, object))).digest("hex");
  assert.deepEqual(result.failures.filter(isManifestFailure), [
    `${object} | ✗ ${object}: SHA-256 in data/SHA256SUMS recorded ${edit.skill.after_sha256}; recomputed ${found}`,
  ]);
  const failed = claims(result).map((f) => f.replace(/^.*?: /, ""));
  assert.equal(failed.length, 1, failed.join("; "));
  assert.match(failed[0], new RegExp(`^skill\\.after_sha256 recorded ${edit.skill.after_sha256}; recomputed [0-9a-f]{64}$`));
});


test("the golden library and a week's digest verify the suite's history", async () => {
  for (const path of ["regressions/R01/golden/index.html", "regressions/R01/weeks/2026-W46.html"]) {
    const { result, problems } = await verifyPage(site, path);
    assert.deepEqual(problems, [], path);
    assert.equal(result.status, "verified", `${path}: ${result.text}`);
  }
  const native = JSON.parse(receipts(["verify", site, "--records-only", "--json"]));
  const history = native.receipts.filter((r) => /regressions\/R01\/(actions|ablations\/)/.test(r.subject));
  assert.ok(history.length > 100, `${history.length} receipts of the history`);
});

test("a refused undo recorded as done and an ablation's recall rounded up fail", async () => {
  const actions = "data/regressions/R01/actions.json";
  const ablation = "data/regressions/R01/ablations/no-level0.json";
  let copy = tampered(site, actions, (h) => {
    const undo = h.actions.find((a) => a.outcome === "refused");
    undo.outcome = "done";
    delete undo.reason;
  });
  let { result } = await verifyPage(copy, SUITE);
  assert.equal(result.status, "failed", result.text);
  let failed = claims(result);
  assert.ok(
    failed.some((f) => f.startsWith(`${actions} | `) && f.includes("actions[undo-2].outcome recorded done; recomputed refused")),
    failed.join("\n"),
  );
  copy = tampered(site, ablation, (a) => { a.figures.recall = 0.81; });
  ({ result } = await verifyPage(copy, "regressions/R01/golden/index.html"));
  assert.equal(result.status, "failed", result.text);
  failed = claims(result);
  assert.ok(
    failed.some((f) => f.startsWith(`${ablation} | `) && f.includes("figures.recall recorded 0.81; recomputed 0.8")),
    failed.join("\n"),
  );
});

test("a verdict summary softened to a pass, or with a count changed, fails by name", async () => {
  const copy = tampered(site, RECORD, (edit) => {
    assert.ok(edit.verdict.summary.startsWith("BLOCK:"), edit.verdict.summary);
    edit.verdict.summary = edit.verdict.summary
      .replace("BLOCK:", "PASS:")
      .replace(/\[(\d+)\]\(#edit\.replays\.block\)/, "[0](#edit.replays.block)");
  });
  const { result } = await verifyPage(copy, PAGE);
  assert.equal(result.status, "failed", result.text);
  const failed = claims(result).filter((f) => f.startsWith(`${RECORD} | `));
  assert.ok(failed.some((f) => f.includes("verdict.summary recorded opens with PASS; recomputed opens with BLOCK")), failed.join("\n"));
  assert.ok(failed.some((f) => f.includes("verdict.summary: [0](#edit.replays.block) recorded 0")), failed.join("\n"));
});
