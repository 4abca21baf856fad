// A study published as shards: the sample split in three sites (one with
// its run records gzipped) under a root site that lists each by its root
// digest. In Chromium the root's Verify checks the root and verifies every
// shard whole; a shard swapped for another, a run count the root's page
// rounds, a shard listed twice under two names with the root's manifest
// resealed, and the same runs published again under new run ids in a shard
// built apart each fail, naming the shard.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { cpSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";

import { launch, verifyAt } from "./browser.mjs";
import { serve } from "./server.mjs";
import { REPO, receipts, tempDir } from "./setup.mjs";

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const VNU = require.resolve("vnu-jar/build/dist/vnu.jar");

const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

// The sample's experiments in three shards, so that no claim reads an
// experiment of another shard.
const SPLIT = {
  "shard-a": ["E01", "E02", "E04", "study.json"],
  "shard-b": ["E03", "I01", "I02"],
  "shard-c": ["harness", "regressions"],
};
const PARTS = ["E01", "E02", "E03", "E04", "I01", "I02", "harness", "regressions", "study.json"];

let browser;
let study;

before(async () => {
  study = tempDir("receipts-shards-");
  for (const [name, keep] of Object.entries(SPLIT)) {
    const project = join(study, `project-${name}`);
    cpSync(join(REPO, "experiments"), join(project, "experiments"), { recursive: true });
    for (const part of PARTS.filter((p) => !keep.includes(p))) {
      rmSync(join(project, "experiments", part), { recursive: true, force: true });
    }
    const flags = name === "shard-b" ? ["--compress-records"] : [];
    receipts(["build", "--quiet", "--root", project, "--out", join(study, name), ...flags]);
  }
  receipts(["root", "--quiet", "--out", join(study, "root"), ...Object.keys(SPLIT).map((n) => join(study, n))]);
  // The root and its shards pass natively.
  receipts(["verify", join(study, "root"), "--quiet"]);
  browser = await launch();
});

after(async () => {
  await browser?.close();
});

/** A copy of the study (root and shards) in a new temporary directory. */
function copyStudy() {
  const dir = tempDir("receipts-shards-copy-");
  for (const name of ["root", ...Object.keys(SPLIT)]) cpSync(join(study, name), join(dir, name), { recursive: true });
  return dir;
}

function failing(result, needle) {
  return result.failures.some((f) => f.includes(needle));
}

test("a root's Verify checks the root and verifies every shard whole", async () => {
  const pin = sha256(readFileSync(join(study, "root/SHA256SUMS")));
  const { result, problems } = await verifyAt(browser, study, `root/index.html#root=${pin}`);
  // shard-b's records are gzipped: each is asked for as .json first.
  assert.deepEqual(problems.filter((p) => !/HTTP 404: .*\/shard-b\/data\/.*\/runs\/[^/]+\.json$/.test(p)), []);
  assert.equal(result.status, "verified", result.text + "\n" + result.failures.join("\n"));
  assert.doesNotMatch(result.text, /No root digest was pinned/);
  // Every shard recomputed and its pages checked: far more receipts than the root's own.
  const native = JSON.parse(receipts(["verify", join(study, "root"), "--json"]));
  assert.ok(result.checked > 1000, result.text);
  assert.match(result.text, /checks? of the pages/);
  assert.ok(native.tally.pass > 1000);
});

test("a shard swapped for another fails by name", async () => {
  const dir = copyStudy();
  renameSync(join(dir, "shard-b"), join(dir, "shard-x"));
  renameSync(join(dir, "shard-c"), join(dir, "shard-b"));
  renameSync(join(dir, "shard-x"), join(dir, "shard-c"));
  const { result } = await verifyAt(browser, dir, "root/index.html");
  assert.equal(result.status, "failed", result.text);
  assert.ok(failing(result, "shard-b/SHA256SUMS: root digest in SHARDS"), result.failures.join("\n"));
  assert.ok(failing(result, "shard-c/SHA256SUMS: root digest in SHARDS"), result.failures.join("\n"));
});

test("a run count the root's page rounds fails", async () => {
  const dir = copyStudy();
  const page = join(dir, "root/index.html");
  const text = readFileSync(page, "utf8");
  const runs = /data-shown="runs">(\d+)</.exec(text)[1];
  writeFileSync(page, text.replace(`data-shown="runs">${runs}<`, `data-shown="runs">${Number(runs) + 10}<`));
  const { result } = await verifyAt(browser, dir, "root/index.html");
  assert.equal(result.status, "failed", result.text);
  assert.ok(failing(result, "index.html: runs of shard shard-a shown"), result.failures.join("\n"));
});

test("a shard listed twice under two names, the root resealed, fails", async () => {
  const dir = copyStudy();
  cpSync(join(dir, "shard-a"), join(dir, "shard-d"), { recursive: true });
  const list = readFileSync(join(dir, "root/SHARDS"), "utf8") +
    `${sha256(readFileSync(join(dir, "shard-d/SHA256SUMS")))}  shard-d\n`;
  writeFileSync(join(dir, "root/SHARDS"), list);
  const sums = readFileSync(join(dir, "root/SHA256SUMS"), "utf8")
    .replace(/^[0-9a-f]{64}  SHARDS$/m, `${sha256(list)}  SHARDS`);
  writeFileSync(join(dir, "root/SHA256SUMS"), sums);
  const { result } = await verifyAt(browser, dir, "root/index.html");
  assert.equal(result.status, "failed", result.text);
  assert.ok(failing(result, "published by one shard"), result.failures.join("\n"));
  // The page does not show the shard its SHARDS now lists, nor the root digest it now has.
  assert.ok(failing(result, "index.html: shard shard-d shown"), result.failures.join("\n"));
  assert.ok(failing(result, "index.html: digest of SHA256SUMS shown on the page"), result.failures.join("\n"));
});

test("the same runs published again under new run ids in another shard fail by both shards", async () => {
  const dir = copyStudy();
  // A shard built apart from shard-a's project, keeping E01 only, each
  // run under a new id with its calls as they were.
  const project = join(dir, "project-shard-d");
  cpSync(join(study, "project-shard-a"), project, { recursive: true });
  for (const part of ["E02", "E04", "study.json"]) rmSync(join(project, "experiments", part), { recursive: true, force: true });
  for (const extra of ["showcase", "docs"]) rmSync(join(project, extra), { recursive: true, force: true });
  const runs = join(project, "experiments/E01/runs");
  for (const file of readdirSync(runs)) {
    const run = JSON.parse(readFileSync(join(runs, file), "utf8"));
    run.id = `${run.id}-again`;
    if (run.replaces) run.replaces = `${run.replaces}-again`;
    rmSync(join(runs, file));
    writeFileSync(join(runs, `${run.id}.json`), JSON.stringify(run, null, 2) + "\n");
  }
  const results = join(project, "experiments/E01/results.csv");
  const rows = readFileSync(results, "utf8").split("\n").map((line, i) => i === 0 || line === "" ? line :
    line.split(",").map((cell, c) => (c === 0 || c === 12) && cell !== "" ? `${cell}-again` : cell).join(","));
  writeFileSync(results, rows.join("\n"));
  receipts(["build", "--quiet", "--root", project, "--out", join(dir, "shard-d")]);
  receipts(["root", "--quiet", "--out", join(dir, "root"), ...[...Object.keys(SPLIT), "shard-d"].map((n) => join(dir, n))]);
  const { result } = await verifyAt(browser, dir, "root/index.html");
  assert.equal(result.status, "failed", result.text);
  assert.ok(result.failures.some((f) => f.startsWith("shard-d/data/E01/runs/") && f.includes("calls on record once")
    && f.includes("as a call of shard-a/data/E01/runs/")), result.failures.join("\n"));
});

test("the root's page is valid HTML and axe-clean, and shows its shards without scripts", async () => {
  let report;
  try {
    report = execFileSync("java", ["-jar", VNU, "--errors-only", "--format", "json", "root/index.html"], { cwd: study, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    if (e.code === "ENOENT") throw new Error("the Nu HTML Checker needs Java (Debian: apt-get install default-jre-headless)");
    report = e.stderr || e.stdout;
  }
  const errors = JSON.parse(report || "{\"messages\":[]}").messages.filter((m) => m.type === "error" || m.subType === "fatal");
  assert.deepEqual(errors.map((m) => `${m.lastLine}: ${m.message}`), []);
  const server = await serve(study);
  try {
    // axe-core is injected as a script, which the page's CSP forbids; this context bypasses it.
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, bypassCSP: true });
    const page = await context.newPage();
    await page.goto(`${server.url}root/index.html`);
    await page.addScriptTag({ content: axeSource });
    const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
    const serious = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    assert.deepEqual(serious.map((v) => `${v.id}: ${v.help} e.g. ${v.nodes[0]?.html.slice(0, 120)}`), []);
    await context.close();
    const plain = await browser.newContext({ javaScriptEnabled: false });
    const still = await plain.newPage();
    await still.goto(`${server.url}root/index.html`);
    assert.equal(await still.locator("main tr[data-shard]").count(), 3);
    for (const name of Object.keys(SPLIT)) {
      const href = await still.locator(`tr[data-shard="${name}"] a`).getAttribute("href");
      assert.equal(href, `../${name}/index.html`);
    }
    await plain.close();
  } finally {
    await server.close();
  }
});
