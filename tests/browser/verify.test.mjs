// The verifier in a real headless Chromium: the sample site verifies, a
// tampered artifact is found and named, a changed asset or a digest a page
// shows fails by name, a dropped report verifies against the site hosting
// it, a root digest pinned in the address is checked (and a malformed one
// refused), and the WebAssembly verifier gives byte-for-byte the native result.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import vm from "node:vm";

import { OUTCOMES, isManifestFailure, isPageFailure, launch, open, verify, verifyAt } from "./browser.mjs";
import { serve } from "./server.mjs";
import { buildSample, copySite, filesUnder, flipAByte, receipts, smallSample } from "./setup.mjs";

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

const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

/** The lines of a SHA256SUMS file, as a map from path to digest. */
function sums(file) {
  const lines = readFileSync(file, "utf8").trimEnd().split("\n");
  return new Map(lines.map((l) => { const m = l.match(/^([0-9a-f]{64})  (.+)$/); assert.ok(m, l); return [m[2], m[1]]; }));
}

test("the whole sample site verifies in the browser", async () => {
  const { result, problems } = await verifyPage(site, "verify.html");
  assert.deepEqual(problems, []);
  assert.equal(result.status, "verified", result.text);
  assert.equal(result.failed, 0);
  // SHA256SUMS lists data/SHA256SUMS, every asset, the standalone
  // verifier's copy and .nojekyll, and nothing else: no page, no
  // runs/rows-*.json, no statement, no record.
  const files = sums(join(site, "SHA256SUMS"));
  const expected = [
    "data/SHA256SUMS",
    ".nojekyll",
    ...filesUnder(join(site, "assets")).map((f) => `assets/${f}`),
    ...filesUnder(join(site, "verifier")).map((f) => `verifier/${f}`),
  ];
  assert.deepEqual([...files.keys()].sort(), expected.sort());
  for (const [path, digest] of files) assert.equal(digest, sha256(readFileSync(join(site, path))), path);
  // data/SHA256SUMS lists every record under data/ (showcase and documents included).
  const records = sums(join(site, "data/SHA256SUMS"));
  assert.deepEqual([...records.keys()].sort(), filesUnder(join(site, "data")).filter((f) => f !== "SHA256SUMS").sort());
  assert.ok(records.has("showcase/showcase.json") && [...records.keys()].some((f) => /^docs\/[^/]+\.md$/.test(f)));
  const native = JSON.parse(receipts(["verify", site, "--records-only", "--json"]));
  assert.equal(native.tally.fail + native.tally.could_not_check, 0);
  // verify.html (scope all, no file list) fetches every file SHA256SUMS
  // lists (one "SHA-256 in SHA256SUMS" receipt each) and every record
  // data/SHA256SUMS lists (one "SHA-256 in data/SHA256SUMS" each), checks
  // the root digest its footer shows (one), recomputes every record
  // receipt (as many as natively) and renders every page again from the
  // records, comparing each with the page served (one receipt when none
  // differs). No root digest is pinned: no receipt for it.
  assert.equal(result.checked, files.size + records.size + 1 + native.tally.pass + 1);
  // And it gives the same account of that total as `receipts verify`, by kind.
  const n = (x) => x.toLocaleString("en-US");
  const kinds = `${n(native.tally.pass)} recomputed from the records, ${n(files.size + records.size)} file digests in the manifests, 1 check of the pages against the records, 1 digest shown on the page`;
  assert.ok(result.text.includes(`The ${result.checked}: ${kinds}.`), result.text);
});

test("each kind of page verifies its own receipts", async () => {
  const root = sha256(readFileSync(join(site, "SHA256SUMS")));
  // Every page's footer shows the root digest (the standalone verifier's
  // copy is the same for every site, and shows none).
  for (const page of filesUnder(site).filter((f) => f.endsWith(".html") && !f.startsWith("verifier/"))) {
    const html = readFileSync(join(site, page), "utf8");
    assert.equal(html.split(`<code class="digest" id="root-digest">${root}</code>`).length, 2, `${page} shows the root digest once`);
  }
  const RUN = "runs/E02-release-brief-fast-s1-always-medium.html";
  const record = "data/E02/runs/E02-release-brief-fast-s1-always-medium.json";
  for (const path of ["index.html", "experiments/E02.html", RUN, "runs/index.html", "documents.html"]) {
    const { result, problems } = await verifyPage(site, path);
    assert.deepEqual(problems, [], path);
    assert.equal(result.status, "verified", `${path}: ${result.text}`);
    assert.ok(result.checked > 1, `${path} checked ${result.checked}`);
    if (result.receipts === null) continue; // too many to list: the whole site
    assert.equal(result.receipts.length, result.checked, path);
    // The page checks the root digest its footer shows, and the record
    // digest a record page shows; its own HTML is not hashed.
    const onPage = result.receipts.filter((r) => r.startsWith(`✓ ${path}: `));
    const shown = [`✓ ${path}: digest of SHA256SUMS shown on the page: ${root}`];
    if (path === RUN) shown.push(`✓ ${path}: digest of ${record} shown on the page: ${sha256(readFileSync(join(site, record)))}`);
    assert.deepEqual(onPage, shown, path);
    assert.ok(!result.receipts.some((r) => /^. [^:]+\.html: SHA-256/.test(r)), `${path}: no page is hashed`);
  }
});

test("one changed byte in an artifact fails exactly its receipts", async () => {
  const copy = copySite(site);
  const run = JSON.parse(readFileSync(join(copy, "data/E01/runs/E01-invoice-cleanup-careful-s1-always-large.json"), "utf8"));
  const digest = run.attempts.map((a) => a.artifact?.sha256).find(Boolean);
  assert.ok(digest, "the run has an artifact");
  flipAByte(join(copy, "data/objects", digest));
  const { result } = await verifyPage(copy, "verify.html");
  assert.equal(result.status, "failed", result.text);
  assert.ok(result.failed > 0);
  const object = `data/objects/${digest}`;
  // Of the manifest checks, only the object's digest in data/SHA256SUMS fails.
  assert.deepEqual(result.failures.filter(isManifestFailure), [
    `${object} | ✗ ${object}: SHA-256 in data/SHA256SUMS recorded ${digest}; recomputed ${sha256(readFileSync(join(copy, object)))}`,
  ]);
  const subjects = new Set(result.failures.map((f) => f.split(" | ")[0]));
  assert.ok(subjects.has(object), `the artifact is named: ${[...subjects].join(", ")}`);
  for (const f of result.failures) {
    const s = f.split(" | ")[0];
    // Only the artifact itself and the runs whose checks read it may fail,
    // and the pages that show those checks passing.
    assert.ok(s === object || /^data\/E0\d\/runs\//.test(s) || isPageFailure(f), `unexpected failure ${f}`);
  }
  assert.ok(result.failures.some((f) => f.startsWith("experiments/E01.html | ") && isPageFailure(f)), "the experiment's page no longer follows from its records");
  assert.ok(result.failures.some((f) => f.includes(`artifact \`normalized.csv\``)), "the artifact's digest receipt fails");
});

/** Drops report `text` on verify.html of the site `server` serves (with
 * `hash` in the address); returns the summary and the receipts that did not pass. */
async function dropReport(server, text, hash = "") {
  const { page, problems } = await open(browser, server.url + "verify.html" + hash);
  await page.evaluate((content) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([content], "run.report.json", { type: "application/json" }));
    const zone = document.getElementById("verify-drop");
    zone.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, text);
  await page.waitForFunction((outcomes) => outcomes.includes(document.querySelector("#verify-summary").dataset.status), OUTCOMES);
  const result = await page.evaluate(() => ({
    status: document.querySelector("#verify-summary").dataset.status,
    text: document.querySelector("#verify-summary").textContent,
    failures: [...document.querySelectorAll(".verify-failures li")].map((li) => li.dataset.subject + " | " + li.textContent),
  }));
  await page.close();
  assert.deepEqual(problems, []);
  return result;
}

test("a dropped report verifies, and a tampered one fails", async () => {
  const report = receipts(["export", "E04-release-brief-careful-s1-ladder", "--root", site, "--out", "-"]);
  // The report carries the site's two manifests, which anchor it to the root digest.
  const root = sha256(readFileSync(join(site, "SHA256SUMS")));
  const { site: named } = JSON.parse(report);
  assert.deepEqual(named, {
    root_digest: root,
    sums: readFileSync(join(site, "SHA256SUMS"), "utf8"),
    records_sums: readFileSync(join(site, "data/SHA256SUMS"), "utf8"),
  });
  // A report of another site (here one whose .nojekyll differs, resealed):
  // consistent in itself, but not of the site it is dropped on.
  const other = copySite(site);
  writeFileSync(join(other, ".nojekyll"), "x\n");
  const otherSums = readFileSync(join(other, "SHA256SUMS"), "utf8").replace(/^[0-9a-f]{64}(?=  \.nojekyll$)/m, sha256("x\n"));
  writeFileSync(join(other, "SHA256SUMS"), otherSums);
  const foreign = receipts(["export", "E04-release-brief-careful-s1-ladder", "--root", other, "--out", "-"]);
  assert.equal(JSON.parse(foreign).site.root_digest, sha256(otherSums));
  const server = await serve(site);
  try {
    const genuine = await dropReport(server, report);
    assert.equal(genuine.status, "verified", genuine.text);
    const tampered = await dropReport(server, report.replace('"passed": true', '"passed": false'));
    assert.equal(tampered.status, "failed", tampered.text);
    assert.deepEqual(tampered.failures, ["report | ✗ report: claims.passed recorded false; recomputed true"]);
    // Anchored against the hosting site's SHA256SUMS.
    const elsewhere = await dropReport(server, foreign);
    assert.equal(elsewhere.status, "failed", elsewhere.text);
    assert.deepEqual(elsewhere.failures, [
      `SHA256SUMS | ✗ SHA256SUMS: root digest of the site checked against recorded ${root}; recomputed ${sha256(otherSums)}`,
    ]);
    // And against a pinned root digest.
    const pinned = await dropReport(server, report, `#root=${root}`);
    assert.equal(pinned.status, "verified", pinned.text);
    assert.doesNotMatch(pinned.text, /No root digest was pinned/);
    const wrong = await dropReport(server, report, `#root=${"0".repeat(64)}`);
    assert.equal(wrong.status, "failed", wrong.text);
    assert.deepEqual(wrong.failures, [`SHA256SUMS | ✗ SHA256SUMS: root digest recorded ${"0".repeat(64)}; recomputed ${root}`]);
    const invalid = await dropReport(server, report, `#root=${root}g`);
    assert.equal(invalid.status, "error", invalid.text);
    assert.match(invalid.text, /invalid pin/);
  } finally {
    await server.close();
  }
});

/** Verifies every record of the site at `scope` with WebAssembly module
 * `wasm` (an asset) through the site's glue, as the worker does; the JSON text. */
function verifyWithModule(wasm, scope) {
  const glue = readFileSync(join(site, "assets/receipts_verifier.js"), "utf8");
  const context = vm.createContext({ console, TextDecoder, TextEncoder, WebAssembly, URL, FinalizationRegistry });
  // The no-modules glue declares `wasm_bindgen` with `let`; hand it out explicitly.
  vm.runInContext(`${glue}\nglobalThis.wasm_bindgen = wasm_bindgen;`, context);
  // The options object must come from the glue's own realm.
  context.wasmBytes = new Uint8Array(readFileSync(join(site, "assets", wasm)));
  vm.runInContext("wasm_bindgen.initSync({ module: wasmBytes })", context);
  const bundle = new context.wasm_bindgen.Bundle();
  const data = join(site, "data");
  for (const rel of filesUnder(data).sort()) {
    if (rel !== "SHA256SUMS") bundle.add(rel, readFileSync(join(data, rel)));
  }
  return bundle.verify(JSON.stringify(scope));
}

test("the WebAssembly verifier gives byte-for-byte the native result", () => {
  const wasm = verifyWithModule("receipts_verifier_full_bg.wasm", { scope: "all" });
  const native = receipts(["verify", site, "--records-only", "--json"]).trimEnd();
  assert.ok(wasm.length > 10000);
  assert.equal(wasm, native);
});

test("the lean verifier gives the native result but for the imports, which it says it could not check", () => {
  const lean = JSON.parse(verifyWithModule("receipts_verifier_bg.wasm", { scope: "all" }));
  const native = JSON.parse(receipts(["verify", site, "--records-only", "--json"]));
  const imports = filesUnder(join(site, "data")).filter((p) => /^[^/]+\/(inspect|otel)\/[^/]+\.json$/.test(p)).sort();
  assert.ok(imports.length >= 2, imports.join(" "));
  const dirs = new Set(imports.map((p) => p.split("/")[0]));
  const imported = (r) => dirs.has(r.subject.split("/")[0]);
  assert.ok(native.receipts.filter(imported).length > 100);
  assert.deepEqual(lean.receipts.filter((r) => !imported(r)), native.receipts.filter((r) => !imported(r)));
  // One receipt an import, none of them a pass.
  const left = lean.receipts.filter(imported);
  assert.deepEqual(left.map((r) => r.subject), imports);
  for (const r of left) {
    assert.equal(r.status, "could_not_check", JSON.stringify(r));
    assert.match(r.recomputed, /checked by the full verifier/);
  }
  assert.equal(lean.tally.could_not_check, native.tally.could_not_check + imports.length);
  // A run's scope reaches no import: both verifiers agree byte for byte.
  const run = { scope: "run", experiment: "E04", run: "E04-release-brief-careful-s1-ladder" };
  const leanRun = verifyWithModule("receipts_verifier_bg.wasm", run);
  assert.ok(JSON.parse(leanRun).receipts.length > 10);
  assert.equal(leanRun, verifyWithModule("receipts_verifier_full_bg.wasm", run));
});

test("pages carry a strict Content-Security-Policy and load scripts with integrity", () => {
  const html = readFileSync(join(site, "runs/E02-release-brief-fast-s1-always-medium.html"), "utf8");
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self' 'wasm-unsafe-eval';[^"]*object-src 'none'/);
  assert.match(html, /<script src="\.\.\/assets\/verify\.js" integrity="sha384-[A-Za-z0-9+/=]+" defer><\/script>/);
  assert.doesNotMatch(html, /<script>/, "no inline script");
  // The verifier's modules are pinned through verify.js, which names each
  // with its integrity value; the page names which verifier it needs.
  assert.match(html, /data-verifier="lean"/);
  const script = readFileSync(join(site, "assets/verify.js"), "utf8");
  for (const name of ["worker", "coreGlue", "core", "glue", "lean", "full", "renderGlue", "renderWasm"]) {
    assert.match(script, new RegExp(`"${name}":\\{"src":"assets/[^"]+","sri":"sha384-[A-Za-z0-9+/=]+"\\}`), name);
  }
});

test("a root digest given in the address is checked", async () => {
  const small = smallSample();
  const root = sha256(readFileSync(join(small, "SHA256SUMS")));
  const server = await serve(small);
  const at = async (hash, path = "verify.html") => {
    const { page, problems } = await open(browser, server.url + path + hash);
    const result = await verify(page);
    await page.close();
    assert.deepEqual(problems, [], hash);
    return result;
  };
  try {
    // The accepted forms: 64 hex digits in either case, optionally prefixed
    // sha256: (in either case; the pin's parser has the unit tests of every
    // form). A pinned root adds its receipt.
    const unpinned = await at("");
    assert.equal(unpinned.status, "verified", unpinned.text);
    assert.match(unpinned.text, /No root digest was pinned/);
    for (const pin of [root, `SHA256:${root.toUpperCase()}`]) {
      const result = await at(`#root=${pin}`);
      assert.equal(result.status, "verified", `${pin}: ${result.text}`);
      assert.equal(result.checked, unpinned.checked + 1, pin);
      assert.doesNotMatch(result.text, /No root digest was pinned/, pin);
    }
    // Any page checks a pin given in its address.
    const onPage = await at(`#root=${root.toUpperCase()}`, "documents.html");
    assert.equal(onPage.status, "verified", onPage.text);
    assert.ok(onPage.receipts.includes(`✓ SHA256SUMS: root digest: ${root}`), onPage.receipts.join("\n"));
    // A well-formed digest of another site fails the pin, and only it.
    for (const pin of ["0".repeat(64), root.slice(0, 63) + (root[63] === "0" ? "1" : "0")]) {
      const result = await at(`#root=${pin}`);
      assert.equal(result.status, "failed", `${pin}: ${result.text}`);
      assert.deepEqual(result.failures, [`SHA256SUMS | ✗ SHA256SUMS: root digest recorded ${pin}; recomputed ${root}`]);
    }
    // Anything else is refused, visibly: never ignored, never compared.
    // (manifest/pin.rs's unit tests hold every refused form; here, one of each kind.)
    for (const pin of [`${root}0`, `sha512:${root}`, "", "g".repeat(64)]) {
      const result = await at(`#root=${pin}`);
      assert.equal(result.status, "error", `${pin}: ${result.text}`);
      assert.match(result.text, /invalid pin/, pin);
      assert.deepEqual(result.failures, [], pin);
    }
    // The digest the footer shows, copied and pasted into the pin field,
    // verifies; pasted wrong, it is refused.
    for (const [paste, expected] of [[(d) => d, "verified"], [(d) => `SHA256:${d.toUpperCase()}`, "verified"], [(d) => `${d} extra`, "error"]]) {
      const { page, problems } = await open(browser, server.url + "verify.html");
      const shown = await page.textContent("#root-digest");
      assert.equal(shown, root, "the footer shows the root digest");
      await page.fill("#verify-pin", paste(shown));
      const result = await verify(page);
      await page.close();
      assert.deepEqual(problems, []);
      assert.equal(result.status, expected, result.text);
      if (expected === "verified") assert.equal(result.checked, unpinned.checked + 1);
    }
  } finally {
    await server.close();
  }
});

test("a changed asset, or a digest a page shows, fails by name", async () => {
  const copy = copySite(site);
  const root = sha256(readFileSync(join(copy, "SHA256SUMS")));
  const listed = sums(join(copy, "SHA256SUMS"));
  // Assets verify.html does not itself load, so the page still runs.
  appendFileSync(join(copy, "assets/compare.js"), "\n// patched\n");
  writeFileSync(join(copy, ".nojekyll"), "patched\n");
  {
    const { result, problems } = await verifyPage(copy, "verify.html");
    assert.deepEqual(problems, []);
    assert.equal(result.status, "failed", result.text);
    assert.deepEqual(result.failures.filter((f) => !isPageFailure(f)).sort(), [
      `.nojekyll | ✗ .nojekyll: SHA-256 in SHA256SUMS recorded ${listed.get(".nojekyll")}; recomputed ${sha256("patched\n")}`,
      `assets/compare.js | ✗ assets/compare.js: SHA-256 in SHA256SUMS recorded ${listed.get("assets/compare.js")}; recomputed ${sha256(readFileSync(join(copy, "assets/compare.js")))}`,
    ]);
    // The one page that loads compare.js names an integrity value the served file does not have.
    const pages = result.failures.filter(isPageFailure);
    assert.equal(pages.length, 1, pages.join("\n"));
    assert.match(pages[0], /^compare\.html \| .*assets\/compare\.js" integrity="sha384-/);
  }
  // A page that checks only its own records does not fetch the assets.
  const EDIT = "regressions/R01/R01-edit-04-reporting.html";
  {
    const { result } = await verifyPage(copy, EDIT);
    assert.equal(result.status, "verified", result.text);
  }
  // The root digest a page's footer shows, and the record digest a record
  // page gives, are checked against the files: a page showing another fails.
  const other = "0".repeat(64);
  const documents = join(copy, "documents.html");
  writeFileSync(documents, readFileSync(documents, "utf8").replace(`id="root-digest">${root}<`, `id="root-digest">${other}<`));
  const edit = join(copy, EDIT);
  const record = "data/regressions/R01/edits/R01-edit-04-reporting.json";
  const digest = sha256(readFileSync(join(copy, record)));
  const html = readFileSync(edit, "utf8");
  // The digest checked is the one the reader sees in the footer.
  assert.ok(html.includes(`data-pin-path="${record}"`));
  assert.ok(html.includes(`id="record-digest">${digest}<`));
  writeFileSync(edit, html.replace(`id="record-digest">${digest}<`, `id="record-digest">${other}<`));
  {
    const { result } = await verifyPage(copy, "documents.html");
    assert.equal(result.status, "failed", result.text);
    assert.deepEqual(result.failures, [`documents.html | ✗ documents.html: digest of SHA256SUMS shown on the page recorded ${other}; recomputed ${root}`]);
  }
  {
    const { result } = await verifyPage(copy, EDIT);
    assert.equal(result.status, "failed", result.text);
    assert.deepEqual(result.failures, [`${EDIT} | ✗ ${EDIT}: digest of ${record} shown on the page recorded ${other}; recomputed ${digest}`]);
  }
});

/** Replaces the first `from` in `file` with `to`. */
function replaceIn(file, from, to) {
  const text = readFileSync(file, "utf8");
  assert.ok(text.includes(from), `${file} has no ${from}`);
  writeFileSync(file, text.replace(from, to));
}

// Pages are not listed in SHA256SUMS (each shows its root digest), so an
// edited page needs no resealing: the root digest is unchanged and pins.
// The page check does not depend on the site's size: the small site's.
const PAGE_EDITS = [
  ["index.html", "✓ 83.3%", "✓ 93.3%"],
  ["experiments/E01.html", "54 runs on record", "55 runs on record"],
  ["runs/E01-invoice-cleanup-careful-s1-always-small.html", "<dt>Time</dt><dd>15.7 s</dd>", "<dt>Time</dt><dd>5.7 s</dd>"],
  ["runs/rows-1.json", "15.009", "5.009"],
];

test("a number edited on a page fails the whole site's verification, with the root pinned", async () => {
  for (const [page, from, to] of PAGE_EDITS) {
    const copy = copySite(smallSample());
    const root = sha256(readFileSync(join(copy, "SHA256SUMS")));
    replaceIn(join(copy, page), from, to);
    const server = await serve(copy);
    try {
      const { page: tab, problems } = await open(browser, `${server.url}verify.html#root=${root}`);
      const result = await verify(tab);
      await tab.close();
      assert.deepEqual(problems, []);
      assert.equal(result.status, "failed", `${page}: ${result.text}`);
      assert.equal(result.failures.length, 1, result.failures.join("\n"));
      const [failure] = result.failures;
      assert.ok(failure.startsWith(`${page} | ✗ ${page}: rendered from the records recorded line `), failure);
      assert.ok(failure.includes(to) && failure.includes(from), `both versions shown: ${failure}`);
    } finally {
      await server.close();
    }
  }
});

test("a page removed, or records that cannot be rendered, are never verified", async () => {
  {
    const copy = copySite(smallSample());
    const page = "runs/E01-invoice-cleanup-careful-s1-always-small.html";
    rmSync(join(copy, page));
    const { result } = await verifyPage(copy, "verify.html");
    assert.equal(result.status, "failed", result.text);
    assert.deepEqual(result.failures, [`${page} | ✗ ${page}: rendered from the records recorded no such file; recomputed a page the records make`]);
  }
  {
    // A document no build would render (not UTF-8), listed, with every
    // manifest and every page's root digest resealed: the records cannot be
    // what the pages were rendered from, so the page check fails.
    const copy = copySite(smallSample());
    const doc = "docs/zz-notes.md";
    writeFileSync(join(copy, "data", doc), Buffer.from([0xff, 0xfe, 0x41]));
    const resealed = resealAll(copy, (records) => records.set(doc, sha256(readFileSync(join(copy, "data", doc)))));
    const { result } = await verifyPage(copy, "verify.html");
    assert.equal(result.status, "failed", result.text);
    assert.deepEqual(result.failures.filter((f) => !f.startsWith(`data/${doc} |`)).map((f) => f.split(" | ")[0]), ["pages"]);
    assert.match(result.failures.find((f) => f.startsWith("pages |")), /the records cannot be rendered: data\/docs\/zz-notes\.md/);
    assert.ok(resealed);
  }
});

/** Reseals `data/SHA256SUMS` (after `change` edits its lines, path → digest),
 * `SHA256SUMS` and the root digest every page shows, as a forger would;
 * returns the new root digest. */
function resealAll(copy, change) {
  const recordsFile = join(copy, "data/SHA256SUMS");
  const records = sums(recordsFile);
  change(records);
  const text = [...records].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([p, d]) => `${d}  ${p}\n`).join("");
  writeFileSync(recordsFile, text);
  const rootFile = join(copy, "SHA256SUMS");
  const before = sha256(readFileSync(rootFile));
  const listed = sums(rootFile);
  listed.set("data/SHA256SUMS", sha256(text));
  writeFileSync(rootFile, [...listed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([p, d]) => `${d}  ${p}\n`).join(""));
  const after = sha256(readFileSync(rootFile));
  for (const page of filesUnder(copy).filter((p) => p.endsWith(".html") && !p.startsWith("verifier/"))) {
    const path = join(copy, page);
    writeFileSync(path, readFileSync(path, "utf8").replaceAll(before, after));
  }
  return after;
}

test("a manifest naming a record in another spelling is refused, never skipped", async () => {
  // `E01/./experiment.json` is fetched as data/E01/experiment.json; a
  // verifier that kept the line's text would leave the experiment out.
  const copy = copySite(smallSample());
  resealAll(copy, (records) => {
    const digest = records.get("E01/experiment.json");
    records.delete("E01/experiment.json");
    records.set("E01/./experiment.json", digest);
  });
  const { result } = await verifyPage(copy, "verify.html");
  assert.equal(result.status, "error", result.text);
  assert.match(result.text, /the path must not have empty, `\.` or `\.\.` parts/);
});

test("a patched worker with its integrity values, SHA256SUMS and every page's root digest resealed is caught by the pin", async () => {
  const copy = copySite(smallSample());
  const root = sha256(readFileSync(join(copy, "SHA256SUMS")));
  // The forger's patch here changes nothing the verifier does; a real one
  // could make the site's own verifier say anything, which is why the
  // standalone verifier exists (standalone.test.mjs fails this site by its code).
  const file = join(copy, "assets/verify-worker.js");
  const before = readFileSync(file);
  const patched = Buffer.concat([before, Buffer.from("\n// every receipt passes\n")]);
  writeFileSync(file, patched);
  const sri = (b) => "sha384-" + createHash("sha384").update(b).digest("base64");
  // verify.js carries the worker's integrity value; the pages carry verify.js's.
  const script = join(copy, "assets/verify.js");
  const scriptBefore = readFileSync(script);
  const scriptPatched = Buffer.from(scriptBefore.toString("utf8").replace(sri(before), sri(patched)));
  assert.notDeepEqual(scriptPatched, scriptBefore, "verify.js names the worker's integrity value");
  writeFileSync(script, scriptPatched);
  const sumsFile = join(copy, "SHA256SUMS");
  writeFileSync(sumsFile, readFileSync(sumsFile, "utf8")
    .replace(sha256(before), sha256(patched))
    .replace(sha256(scriptBefore), sha256(scriptPatched)));
  const resealed = sha256(readFileSync(sumsFile));
  for (const page of filesUnder(copy).filter((p) => p.endsWith(".html") && !p.startsWith("verifier/"))) {
    const path = join(copy, page);
    writeFileSync(path, readFileSync(path, "utf8").replaceAll(sri(scriptBefore), sri(scriptPatched)).replaceAll(root, resealed));
  }
  // Consistent: every page follows from the records and the code listed.
  const unpinned = (await verifyPage(copy, "verify.html")).result;
  assert.equal(unpinned.status, "verified", unpinned.text);
  assert.match(unpinned.text, /No root digest was pinned/);
  // Not the site the reader was given: the pin fails it.
  const server = await serve(copy);
  try {
    const { page, problems } = await open(browser, `${server.url}verify.html#root=${root}`);
    const result = await verify(page);
    await page.close();
    assert.deepEqual(problems, []);
    assert.equal(result.status, "failed", result.text);
    assert.deepEqual(result.failures, [`SHA256SUMS | ✗ SHA256SUMS: root digest recorded ${root}; recomputed ${resealed}`]);
  } finally {
    await server.close();
  }
});
