// An evaluation imported from Inspect AI, in Chromium: its page verifies
// its own receipts against the kept log (the record, every recomputed
// score, reduction and metric), as many as natively; a score flipped in the
// published record fails by name; and one byte of the kept log changed
// fails its digest; and a log held to its directory's registration.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { cpSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { isManifestFailure, launch, verifyAt, verifyLogged } from "./browser.mjs";
import { REPO, buildSample, copySite, flipAByte, receipts, tempDir } from "./setup.mjs";

const PAGE = "imports/I01/scorers.html";
const RECORD = "data/I01/inspect/scorers.json";
let browser;
let site;

before(async () => {
  site = buildSample();
  browser = await launch();
});

after(async () => {
  await browser?.close();
});

test("an imported evaluation's page verifies every receipt natively recomputed", async () => {
  const { result, problems } = await verifyAt(browser, site, PAGE);
  assert.deepEqual(problems, []);
  assert.equal(result.status, "verified", result.text);
  assert.equal(result.failed, 0);
  const native = JSON.parse(receipts(["verify", site, "--records-only", "--json"]));
  const imported = native.receipts.filter((r) => r.subject.startsWith("I01/inspect/"));
  assert.ok(imported.length > 90, `${imported.length} imported receipts`);
  const html = readFileSync(join(site, PAGE), "utf8");
  const files = html.match(/data-files="([^"]*)"/)[1].split(" ");
  // data/SHA256SUMS in SHA256SUMS, one digest per file fetched (the
  // records and the kept logs), the root digest the footer shows, the
  // record digest the page pins, and every recomputed receipt.
  assert.equal(result.checked, 1 + files.length + 1 + 1 + imported.length);
});

test("a score flipped in the published record, or a byte of the kept log, fails", async () => {
  const copy = copySite(site);
  const file = join(copy, RECORD);
  const record = JSON.parse(readFileSync(file, "utf8"));
  const sample = record.samples.find((s) => s.scores.match.value === "I");
  sample.scores.match.value = "C";
  writeFileSync(file, JSON.stringify(record, null, 2) + "\n");
  let { result } = await verifyAt(browser, copy, PAGE);
  assert.equal(result.status, "failed", result.text);
  assert.ok(result.failures.some((f) => f.includes("I01/inspect/scorers.json: derived from the log")), result.failures.join("\n"));

  const other = copySite(site);
  const log = record.source.sha256;
  flipAByte(join(other, "data/objects", log));
  ({ result } = await verifyAt(browser, other, PAGE));
  assert.equal(result.status, "failed", result.text);
  assert.ok(result.failures.filter(isManifestFailure).some((f) => f.startsWith(`data/objects/${log} | `)), result.failures.join("\n"));
  assert.ok(result.failures.some((f) => f.includes("I01/inspect/scorers.json: source")), result.failures.join("\n"));
});

const CORE = "/assets/receipts_verifier_core_bg.wasm";
const LEAN = "/assets/receipts_verifier_bg.wasm";
const FULL = "/assets/receipts_verifier_full_bg.wasm";

test("a page without records loads only the core verifier, which holds the files to the manifests alone", async () => {
  const DOCS = "documents.html";
  let { result, problems, log } = await verifyLogged(browser, site, DOCS);
  assert.deepEqual(problems, []);
  assert.equal(result.status, "verified", result.text);
  assert.ok(log.includes(CORE) && !log.includes(LEAN) && !log.includes(FULL), log.join(" "));
  assert.ok(result.checked > 0, result.text);

  // A changed file the page needs fails there with the core verifier alone:
  // data/SHA256SUMS, which the page checks against SHA256SUMS.
  const copy = copySite(site);
  flipAByte(join(copy, "data/SHA256SUMS"));
  ({ result, log } = await verifyLogged(browser, copy, DOCS));
  assert.equal(result.status, "failed", result.text);
  assert.ok(!log.includes(LEAN) && !log.includes(FULL), log.join(" "));
  assert.ok(result.failures.some((f) => f.startsWith("data/SHA256SUMS | ") && isManifestFailure(f)), result.failures.join("\n"));
});

test("an import's page loads the full verifier and a run's the lean one; pointed at the lean one, the import cannot pass", async () => {
  let { result, log } = await verifyLogged(browser, site, PAGE);
  assert.equal(result.status, "verified", result.text);
  assert.ok(log.includes(CORE) && log.includes(FULL) && !log.includes(LEAN), log.join(" "));
  const RUN = "runs/E02-release-brief-fast-s1-always-medium.html";
  ({ result, log } = await verifyLogged(browser, site, RUN));
  assert.equal(result.status, "verified", result.text);
  assert.ok(log.includes(CORE) && log.includes(LEAN) && !log.includes(FULL), log.join(" "));

  // A publisher points the import's page at the lean verifier (whose
  // integrity value verify.js carries): the imported receipts are not recomputed, and say so.
  const copy = copySite(site);
  const page = join(copy, PAGE);
  const html = readFileSync(page, "utf8");
  const edited = html.replace('data-verifier="full"', 'data-verifier="lean"');
  assert.notEqual(edited, html);
  writeFileSync(page, edited);
  ({ result, log } = await verifyLogged(browser, copy, PAGE));
  assert.ok(log.includes(LEAN) && !log.includes(FULL), log.join(" "));
  assert.equal(result.status, "unchecked", result.text);
  assert.equal(result.failed, 0);
  // Every import of the directory the page verifies, each named.
  const imports = readdirSync(join(copy, "data/I01/inspect")).filter((f) => f.endsWith(".json")).sort();
  assert.ok(imports.includes("scorers.json"), imports.join(" "));
  assert.deepEqual(result.failures.map((f) => f.split(" | ")[0]), imports.map((f) => `data/I01/inspect/${f}`));
  for (const f of result.failures) assert.match(f, /checked by the full verifier/);
});

const TRACES_PAGE = "imports/I02/otel/agent.otlp.html";
const TRACES_RECORD = "data/I02/otel/agent.otlp.json";

test("an imported trace export's page verifies every receipt natively recomputed", async () => {
  const { result, problems } = await verifyAt(browser, site, TRACES_PAGE);
  assert.deepEqual(problems, []);
  assert.equal(result.status, "verified", result.text);
  assert.equal(result.failed, 0);
  const native = JSON.parse(receipts(["verify", site, "--records-only", "--json"]));
  const imported = native.receipts.filter((r) => r.subject.startsWith("I02/otel/"));
  assert.ok(imported.length >= 20, `${imported.length} imported receipts`);
  const html = readFileSync(join(site, TRACES_PAGE), "utf8");
  const files = html.match(/data-files="([^"]*)"/)[1].split(" ");
  // The record, the trace export and the log export.
  assert.equal(files.length, 3, files.join(" "));
  assert.equal(result.checked, 1 + files.length + 1 + 1 + imported.length);
});

test("a run's tokens edited in the published traces record fail by name", async () => {
  const copy = copySite(site);
  const file = join(copy, TRACES_RECORD);
  const record = JSON.parse(readFileSync(file, "utf8"));
  record.runs[0].usage.input_tokens -= 100;
  writeFileSync(file, JSON.stringify(record, null, 2) + "\n");
  const { result } = await verifyAt(browser, copy, TRACES_PAGE);
  assert.equal(result.status, "failed", result.text);
  assert.ok(result.failures.some((f) => f.includes("I02/otel/agent.otlp.json: derived from the export")), result.failures.join("\n"));
});

/** The sample with `registration` kept as experiments/I01/registration.json, built. */
function registeredSample(registration) {
  const root = tempDir("receipts-registered-");
  for (const dir of ["experiments", "showcase", "docs"]) {
    cpSync(join(REPO, dir), join(root, dir), { recursive: true });
  }
  writeFileSync(join(root, "experiments/I01/registration.json"), JSON.stringify(registration, null, 2) + "\n");
  receipts(["build", "--quiet", "--root", root, "--out", join(root, "site")]);
  return join(root, "site");
}

/** What each of the sample's imported tasks registered before it ran. */
function registration() {
  const task = (name, samples, epochs, scorers) => ({ task: name, samples, epochs, scorers });
  return {
    format_version: 1,
    kind: "evaluation_registration",
    registered_at: "2026-01-05T09:00:00Z",
    evaluations: [
      task("choice", ["mc-1", "mc-2", "mc-3"], 2, ["choice"]),
      task("errors", ["ok-1", "ok-2", "boom"], 1, ["match"]),
      task("failed", ["ok-1", "ok-2", "boom"], 1, ["match"]),
      task("scorers", [1, 2, 3, 4], 2, ["match", "includes", "pattern", "exact", "f1"]),
      task("tools", ["add-1", "add-2"], 1, ["includes"]),
      task("unscored", ["u-1", "u-2", "u-3"], 2, ["judged"]),
    ],
  };
}

test("an evaluation is held to its registration in the browser: the registered sample a log does not hold fails by name", async () => {
  const honest = registeredSample(registration());
  const page = "imports/I01/tools.html";
  let { result } = await verifyAt(browser, honest, page);
  assert.equal(result.status, "verified", result.text);
  assert.ok(readFileSync(join(honest, page), "utf8").includes("registered 2026-01-05T09:00:00Z (self-asserted): 2 samples × 1 epoch, scored by includes"));

  // The log holds add-1 and add-2; the registration named a third sample
  // it did not run (as when a log is published without one it dropped).
  const forged = registration();
  forged.evaluations[4].samples.push("add-3");
  const site = registeredSample(forged);
  ({ result } = await verifyAt(browser, site, page));
  assert.equal(result.status, "failed", result.text);
  assert.deepEqual(
    result.failures.filter((f) => f.startsWith("data/I01/registration.json")),
    ["data/I01/registration.json | ✗ data/I01/registration.json: tools: the samples its task registered recorded 2 sample-epochs; recomputed the 3 samples × 1 epoch registered include sample add-3, epoch 1, which the log does not hold (1 missing)"],
    result.failures.join("\n"),
  );
});
