// The standalone verifier (`receipts verifier --out DIR`) in a real
// headless Chromium: served from one loopback origin, it verifies a site
// served from another (fetched as data, with CORS), or a zip of it, or one
// opened from disk; and the attacks it can see fail or are refused. None of
// this depends on the site's size, so the site is the small one (E01 and the
// documents).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { isPageFailure, launch, open, OUTCOMES } from "./browser.mjs";
import { serve } from "./server.mjs";
import { copySite, filesUnder, receipts, REPO, smallSample, tempDir } from "./setup.mjs";

let browser;
let site;
let verifier;
let verifierServer;
let root;

const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

before(async () => {
  site = smallSample();
  verifier = join(tempDir("receipts-verifier-"), "verifier");
  const printed = receipts(["verifier", "--out", verifier]);
  // The command prints each file's digest and the verifier's own.
  const sums = readFileSync(join(verifier, "SHA256SUMS"), "utf8");
  assert.ok(printed.includes(`verifier digest ${sha256(sums)}`), printed);
  for (const line of sums.trim().split("\n")) {
    const [digest, name] = line.split("  ");
    assert.equal(sha256(readFileSync(join(verifier, name))), digest, name);
    assert.ok(printed.includes(line), `${name} printed`);
  }
  root = sha256(readFileSync(join(site, "SHA256SUMS")));
  verifierServer = await serve(verifier);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await verifierServer?.close();
});

/** Waits for the standalone verifier's outcome. */
async function outcome(page) {
  await page.waitForFunction(
    (outcomes) => outcomes.includes(document.querySelector("#verify-summary").dataset.status),
    OUTCOMES,
    { timeout: 120_000 },
  );
  return page.evaluate(() => {
    const s = document.querySelector("#verify-summary");
    return {
      status: s.dataset.status,
      checked: Number(s.dataset.checked),
      text: s.textContent,
      failures: [...document.querySelectorAll(".verify-failures li")].map((li) => li.dataset.subject + " | " + li.textContent),
    };
  });
}

/** Opens the standalone verifier on `siteDir` served from its own origin. */
async function verifySiteAt(siteDir, pin) {
  const server = await serve(siteDir, { cors: true });
  try {
    const hash = pin === undefined ? "" : `#root=${encodeURIComponent(pin)}`;
    const { page, problems } = await open(browser, `${verifierServer.url}index.html?site=${encodeURIComponent(server.url)}${hash}`);
    const result = await outcome(page);
    await page.close();
    return { result, problems, origins: [verifierServer.url, server.url] };
  } finally {
    await server.close();
  }
}

test("served from another origin, it verifies the site fetched with CORS", async () => {
  const { result, problems, origins } = await verifySiteAt(site, root);
  assert.notEqual(origins[0], origins[1], "two origins");
  assert.deepEqual(problems, []);
  assert.equal(result.status, "verified", result.text);
  // Every receipt the site's own verify.html gives with a pin, less the
  // footer it does not read, plus each asset and each file of the site's
  // copy of this verifier held to its own; the last is the page check's
  // (every page rendered again, none differs).
  const assets = readFileSync(join(site, "SHA256SUMS"), "utf8").split("\n").filter((l) => l.includes("  assets/")).length;
  const records = readFileSync(join(site, "data/SHA256SUMS"), "utf8").trim().split("\n").length;
  const native = JSON.parse(receipts(["verify", site, "--records-only", "--json"]));
  const lines = readFileSync(join(site, "SHA256SUMS"), "utf8").trim().split("\n").length;
  const copies = readFileSync(join(site, "SHA256SUMS"), "utf8").split("\n").filter((l) => l.includes("  verifier/")).length;
  assert.equal(result.checked, 1 + lines + records + native.tally.pass + assets + copies + 1);
  for (const pin of [root.toUpperCase(), `sha256:${root}`]) {
    assert.equal((await verifySiteAt(site, pin)).result.status, "verified", pin);
  }
  const unpinned = (await verifySiteAt(site)).result;
  assert.equal(unpinned.status, "verified");
  assert.match(unpinned.text, /No root digest was pinned/);
});

test("a wrong pin fails, a malformed one is refused", async () => {
  const wrong = (await verifySiteAt(site, "0".repeat(64))).result;
  assert.equal(wrong.status, "failed");
  assert.deepEqual(wrong.failures, [`SHA256SUMS | ✗ SHA256SUMS: root digest recorded ${"0".repeat(64)}; recomputed ${root}`]);
  for (const pin of [`${root}0`, root.slice(1), `sha512:${root}`, `${root.slice(1)}g`]) {
    const { result } = await verifySiteAt(site, pin);
    assert.equal(result.status, "error", pin);
    assert.match(result.text, /invalid pin/, pin);
  }
});

/** Patches the site's worker to pass every receipt, updates its integrity
 * value in verify.js and verify.js's on every page, and reseals SHA256SUMS,
 * as a forger would. */
function patchVerifier(copy) {
  const file = join(copy, "assets/verify-worker.js");
  const before = readFileSync(file);
  const patched = Buffer.concat([before, Buffer.from("\n// every receipt passes\n")]);
  writeFileSync(file, patched);
  const sri = (b) => "sha384-" + createHash("sha384").update(b).digest("base64");
  const script = join(copy, "assets/verify.js");
  const scriptBefore = readFileSync(script);
  const scriptPatched = Buffer.from(scriptBefore.toString("utf8").replace(sri(before), sri(patched)));
  assert.notDeepEqual(scriptPatched, scriptBefore, "verify.js names the worker's integrity value");
  writeFileSync(script, scriptPatched);
  for (const page of filesUnder(copy).filter((p) => p.endsWith(".html")).map((p) => join(copy, p))) {
    writeFileSync(page, readFileSync(page, "utf8").replaceAll(sri(scriptBefore), sri(scriptPatched)));
  }
  const sums = join(copy, "SHA256SUMS");
  writeFileSync(sums, readFileSync(sums, "utf8")
    .replace(sha256(before), sha256(patched))
    .replace(sha256(scriptBefore), sha256(scriptPatched)));
}

test("a patched verifier with its integrity values updated and SHA256SUMS resealed fails", async () => {
  const copy = copySite(site);
  patchVerifier(copy);
  const unpinned = (await verifySiteAt(copy)).result;
  assert.equal(unpinned.status, "failed", unpinned.text);
  const code = (failures) => failures.filter((f) => !isPageFailure(f)).map((f) => f.split(" | ")[0]).sort();
  assert.deepEqual(code(unpinned.failures), ["assets/verify-worker.js", "assets/verify.js"]);
  assert.match(unpinned.failures.find((f) => !isPageFailure(f)), /the copy receipts \S+ ships/);
  // Resealing SHA256SUMS changed the root digest, which every page shows:
  // no page is what the records render to with the new one.
  const pages = unpinned.failures.filter(isPageFailure);
  assert.ok(pages.every((f) => f.includes(root)), pages.slice(0, 3).join("\n"));
  const failed = new Set(pages.map((f) => f.split(" | ")[0]));
  const shown = filesUnder(copy).filter((p) => p.endsWith(".html") && !p.startsWith("verifier/"));
  assert.deepEqual(shown.filter((p) => !failed.has(p)), [], "every page fails");
  const pinned = (await verifySiteAt(copy, root)).result;
  assert.equal(pinned.status, "failed");
  assert.deepEqual(code(pinned.failures), ["SHA256SUMS", "assets/verify-worker.js", "assets/verify.js"]);
  // Native verify fails it too.
  let exit = 0;
  try {
    receipts(["verify", copy, "--expect-root", root], { stdio: "pipe" });
  } catch (e) {
    exit = e.status;
  }
  assert.equal(exit, 1);
});

test("a number edited on a page fails, served or zipped, and a page added to a zip fails", async () => {
  const copy = copySite(site);
  const page = "experiments/E01.html";
  const file = join(copy, page);
  const html = readFileSync(file, "utf8");
  assert.ok(html.includes("54 runs on record"));
  writeFileSync(file, html.replace("54 runs on record", "55 runs on record"));
  const served = (await verifySiteAt(copy, root)).result;
  assert.equal(served.status, "failed", served.text);
  assert.equal(served.failures.length, 1, served.failures.join("\n"));
  assert.match(served.failures[0], /^experiments\/E01\.html \| ✗ experiments\/E01\.html: rendered from the records recorded line \d+: .*55 runs on record.*; recomputed line \d+: .*54 runs on record/);
  // A page the records do not make, found in a zip (a served site cannot be listed).
  writeFileSync(file, html);
  writeFileSync(join(copy, "runs/E01-invented.html"), "<p>a run that was never recorded</p>");
  const { page: tab, problems } = await open(browser, `${verifierServer.url}index.html#root=${root}`);
  await tab.setInputFiles("#site-zip", zipOf(copy));
  const zipped = await outcome(tab);
  await tab.close();
  assert.deepEqual(problems, []);
  assert.equal(zipped.status, "failed", zipped.text);
  assert.deepEqual(zipped.failures, ["runs/E01-invented.html | ✗ runs/E01-invented.html: rendered from the records recorded a file; recomputed no such file: the records do not make it"]);
  // A record that data/SHA256SUMS does not list, found in a zip, fails by name.
  rmSync(join(copy, "runs/E01-invented.html"));
  const extra = "data/E01/runs/E01-invented.json";
  writeFileSync(join(copy, extra), readFileSync(join(copy, "data/E01/runs/E01-invoice-cleanup-careful-s1-always-small.json")));
  const again = await open(browser, `${verifierServer.url}index.html#root=${root}`);
  await again.page.setInputFiles("#site-zip", zipOf(copy));
  const unlisted = await outcome(again.page);
  await again.page.close();
  assert.equal(unlisted.status, "failed", unlisted.text);
  assert.deepEqual(unlisted.failures, [`${extra} | ✗ ${extra}: listed in data/SHA256SUMS recorded not listed; recomputed a record of the site`]);
});

test("a patched copy of the standalone verifier under verifier/, resealed, fails against this verifier", async () => {
  const copy = copySite(site);
  const file = join(copy, "verifier/verify.js");
  const before = readFileSync(file);
  const patched = Buffer.concat([before, Buffer.from("\n// always verified\n")]);
  writeFileSync(file, patched);
  const own = join(copy, "verifier/SHA256SUMS");
  const ownBefore = readFileSync(own);
  writeFileSync(own, readFileSync(own, "utf8").replace(sha256(before), sha256(patched)));
  const sums = join(copy, "SHA256SUMS");
  // verifier/verify.js is a copy of assets/verify.js: only its own line changes.
  writeFileSync(sums, readFileSync(sums, "utf8")
    .replace(`${sha256(before)}  verifier/verify.js`, `${sha256(patched)}  verifier/verify.js`)
    .replace(`${sha256(ownBefore)}  verifier/SHA256SUMS`, `${sha256(readFileSync(own))}  verifier/SHA256SUMS`));
  const { result } = await verifySiteAt(copy);
  assert.equal(result.status, "failed", result.text);
  const code = result.failures.filter((f) => !isPageFailure(f)).map((f) => f.split(" | ")[0]).sort();
  assert.deepEqual(code, ["verifier/SHA256SUMS", "verifier/verify.js"]);
});

test("a record edited without resealing fails by name", async () => {
  const copy = copySite(site);
  const rel = "data/E01/summary.json";
  const file = join(copy, rel);
  writeFileSync(file, readFileSync(file, "utf8").replace('"pass_rate_pct": 83.3', '"pass_rate_pct": 99.4'));
  const { result } = await verifySiteAt(copy, root);
  assert.equal(result.status, "failed");
  const subjects = new Set(result.failures.map((f) => f.split(" | ")[0]));
  assert.ok(subjects.has(rel), [...subjects].join(", "));
  assert.ok(result.failures.some((f) => f.includes(`${rel}: SHA-256 in data/SHA256SUMS`)));
  assert.ok(result.failures.some((f) => f.includes("pass_rate_pct recorded 99.4")));
});

/** A zip of the site in `dir`, its files under `site/`, made or forged as
 * `kind` says (see zip_site.py). */
function zipOf(dir, kind = "deflated") {
  const zip = join(tempDir("receipts-zip-"), "site.zip");
  execFileSync("python3", [join(REPO, "tests/browser/zip_site.py"), dir, zip, kind]);
  return zip;
}

test("a zip of the site verifies, and one with a tampered record fails", async () => {
  for (const [dir, expected] of [[site, "verified"], [(() => {
    const copy = copySite(site);
    const run = join(copy, "data/E01/runs/E01-release-brief-fast-s1-always-medium.json");
    writeFileSync(run, readFileSync(run, "utf8").replace('"duration_ms": ', '"duration_ms": 1'));
    return copy;
  })(), "failed"]]) {
    const { page, problems } = await open(browser, `${verifierServer.url}index.html#root=${root}`);
    await page.setInputFiles("#site-zip", zipOf(dir));
    const result = await outcome(page);
    assert.deepEqual(problems, []);
    assert.equal(result.status, expected, result.text);
    if (expected === "failed") {
      assert.ok(result.failures.some((f) => f.startsWith("data/E01/runs/E01-release-brief-fast-s1-always-medium.json | ")), result.failures.join("\n"));
    }
    await page.close();
  }
});

test("a zip that could be read two ways is refused before anything is verified", async () => {
  // Each forgery but the last would let a tool that unpacks the zip by its
  // local headers write a page other than the one verified.
  for (const [kind, message] of [
    ["smuggled", /could be read two ways or is damaged: bytes \d+ to \d+ belong to no entry its directory lists$/],
    ["renamed", /could be read two ways or is damaged: site\/experiments\/E01\.html: its local header names another file$/],
    ["twice", /could be read two ways or is damaged: site\/experiments\/E01\.html is listed twice$/],
    ["crc", /a damaged zip file \(site\/experiments\/E01\.html: its size or CRC-32 is not the one recorded\)$/],
  ]) {
    const { page, problems } = await open(browser, `${verifierServer.url}index.html#root=${root}`);
    await page.setInputFiles("#site-zip", zipOf(site, kind));
    const result = await outcome(page);
    await page.close();
    assert.deepEqual(problems, [], kind);
    assert.equal(result.status, "error", `${kind}: ${result.text}`);
    assert.match(result.text, /^Could not verify: /, kind);
    assert.match(result.text, message, kind);
  }
  // The same site zipped as a stream (sizes in data descriptors) verifies.
  const { page, problems } = await open(browser, `${verifierServer.url}index.html#root=${root}`);
  await page.setInputFiles("#site-zip", zipOf(site, "stream"));
  const streamed = await outcome(page);
  await page.close();
  assert.deepEqual(problems, []);
  assert.equal(streamed.status, "verified", streamed.text);
});

test("the copy a site carries under verifier/ is the one the command writes, and verifies its site", async () => {
  for (const name of readdirSync(verifier)) {
    assert.deepEqual(readFileSync(join(site, "verifier", name)), readFileSync(join(verifier, name)), name);
  }
  const verifyPage = readFileSync(join(site, "verify.html"), "utf8");
  assert.ok(verifyPage.includes(sha256(readFileSync(join(verifier, "SHA256SUMS")))), "verify.html names the verifier's digest");
  assert.ok(verifyPage.includes('href="verifier/index.html"'), "verify.html links to it");
  const server = await serve(site);
  try {
    const { page, problems } = await open(browser, `${server.url}verifier/index.html#root=${root}`);
    assert.equal(await page.inputValue("#site-url"), server.url, "the site is the folder above");
    await page.click("#verify-url");
    const result = await outcome(page);
    assert.deepEqual(problems, []);
    assert.equal(result.status, "verified", result.text);
    await page.close();
  } finally {
    await server.close();
  }
});

test("opened from disk, it verifies a site given by address", async () => {
  const server = await serve(site, { cors: true });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`file://${join(verifier, "index.html")}?site=${encodeURIComponent(server.url)}#root=${root}`);
    const result = await outcome(page);
    assert.deepEqual(errors, []);
    assert.equal(result.status, "verified", result.text);
    await page.close();
  } finally {
    await server.close();
  }
});

test("a report is anchored only by the pin or its site", async () => {
  const report = receipts(["export", "E01-release-brief-fast-s1-always-medium", "--root", site, "--out", "-"]);
  const file = join(tempDir("receipts-report-"), "run.report.json");
  const forged = JSON.parse(report);
  forged.claims.passed = !forged.claims.passed;
  for (const [text, pin, expected] of [
    [report, null, "unchecked"],
    [report, root, "verified"],
    [JSON.stringify(forged), root, "failed"],
  ]) {
    writeFileSync(file, text);
    const { page, problems } = await open(browser, `${verifierServer.url}index.html${pin ? `#root=${pin}` : ""}`);
    await page.setInputFiles("#report-file", file);
    const result = await outcome(page);
    assert.deepEqual(problems, []);
    assert.equal(result.status, expected, result.text);
    if (expected === "unchecked") assert.ok(result.failures.some((f) => f.includes("consistent, not anchored")), result.failures.join("\n"));
    await page.close();
  }
});
