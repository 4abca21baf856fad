// A site built with --compress-records (run records published as
// data/<experiment>/runs/<run>.json.gz) verifies in Chromium as a plain one
// does: data/SHA256SUMS lists each gzipped record by the digest of the record
// it holds, under its name without .gz; the worker reads the records inside
// the gzip files; a run page checks the record digest it shows; the compare
// page reads them; and a record changed inside its gzip file fails. Its run
// pages are compact: the facts and a row per attempt, with the replay (turns,
// calls, messages) drawn in the browser from the gzipped record, inert.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { gunzipSync, gzipSync } from "node:zlib";

import { isPageFailure, launch, open, verifyAt, verifyLogged } from "./browser.mjs";
import { serve } from "./server.mjs";
import { buildSample, copySite, receipts } from "./setup.mjs";

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const VNU = require.resolve("vnu-jar/build/dist/vnu.jar");

const RUN = "E04-release-brief-careful-s1-ladder";
const RECORD = `data/E04/runs/${RUN}.json.gz`;
// The record as data/SHA256SUMS lists it, and the subject of its receipts.
const LISTED = `data/E04/runs/${RUN}.json`;
const PAGE = `runs/${RUN}.html`;
let browser;
let site;

before(async () => {
  site = buildSample(["--compress-records"]);
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

test("run records are published gzipped, and only so", () => {
  const runs = readdirSync(join(site, "data/E02/runs"));
  assert.ok(runs.length > 50, `${runs.length} records`);
  assert.ok(runs.every((f) => f.endsWith(".json.gz")), runs.find((f) => !f.endsWith(".json.gz")));
  const record = JSON.parse(gunzipSync(readFileSync(join(site, RECORD))));
  assert.equal(record.id, RUN);
  const html = readFileSync(join(site, `runs/${RUN}.html`), "utf8");
  assert.ok(html.includes(`href="../${RECORD}"`), "the run page links its gzipped record");
  assert.match(html, /Record digest <code class="digest" id="record-digest">[0-9a-f]{64}<\/code>: the SHA-256 of the record, uncompressed\./);
  // data/SHA256SUMS lists the record it holds, by the digest of the
  // decompressed bytes, under the name without .gz; the page shows that digest.
  const records = sums(join(site, "data/SHA256SUMS"));
  assert.equal(records.get(`E04/runs/${RUN}.json`), sha256(gunzipSync(readFileSync(join(site, RECORD)))));
  assert.ok(![...records.keys()].some((p) => p.endsWith(".gz")), "no record is listed under its .gz name");
  assert.ok(html.includes(`Record digest <code class="digest" id="record-digest">${records.get(`E04/runs/${RUN}.json`)}</code>`));
  // A compact page pins its run's record without naming it twice: the
  // record is the run's among the files its Verify fetches.
  assert.ok(!html.includes("data-pin-path="));
  assert.ok(html.includes(`data-scope="run" data-experiment="E04"`));
  assert.ok(html.includes(` ${RECORD} `), "the record among data-files");
});

test("a compact run page's script builds its Verify control, the copy button and the export, which writes the report the command writes", async () => {
  const html = readFileSync(join(site, PAGE), "utf8");
  for (const left of ['id="verify-run"', 'id="export-report"', 'class="copy"']) {
    assert.ok(!html.includes(left), `${left} is left to the script`);
  }
  const server = await serve(site);
  try {
    const context = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    await page.goto(`${server.url}${PAGE}`);
    await page.waitForSelector("#verify:not([hidden]) #verify-run");
    assert.equal(await page.textContent("#verify-summary"), "Not verified yet.");
    assert.equal(await page.getAttribute("#verify .verify-about a", "href"), "../verify.html#what-a-pass-here-proves");
    assert.equal(await page.locator('button.copy[data-copy="root-digest"]').count(), 1);
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export-report")]);
    const fromBrowser = readFileSync(await download.path(), "utf8");
    const fromCommand = receipts(["export", RUN, "--root", site, "--out", "-"]);
    assert.equal(fromBrowser, fromCommand);
    await context.close();
  } finally {
    await server.close();
  }
});

test("the whole compressed site verifies, as many receipts as natively", async () => {
  const { result, problems } = await verifyPage(site, "verify.html");
  assert.deepEqual(problems, []);
  assert.equal(result.status, "verified", result.text);
  // One receipt per file SHA256SUMS lists (data/SHA256SUMS, the assets,
  // .nojekyll: verify.html fetches them all), one per record data/SHA256SUMS
  // lists (each gzipped record as the record it holds), the root digest in
  // the footer, every record receipt recomputed, as many as natively, and
  // the page check (every page rendered again from the gzipped records).
  const files = sums(join(site, "SHA256SUMS")).size;
  const records = sums(join(site, "data/SHA256SUMS")).size;
  const native = JSON.parse(receipts(["verify", site, "--records-only", "--json"]));
  assert.equal(native.tally.fail + native.tally.could_not_check, 0);
  assert.equal(result.checked, files + records + 1 + native.tally.pass + 1);
});

test("a run page verifies its gzipped record against the digest it shows", async () => {
  const { result, problems } = await verifyPage(site, PAGE);
  assert.deepEqual(problems, []);
  assert.equal(result.status, "verified", result.text);
  assert.ok(result.checked > 5, `${result.checked} receipts`);
  const digest = sha256(gunzipSync(readFileSync(join(site, RECORD))));
  const root = sha256(readFileSync(join(site, "SHA256SUMS")));
  assert.equal(result.receipts.length, result.checked);
  for (const expected of [
    `✓ ${LISTED}: SHA-256 in data/SHA256SUMS: ${digest}`,
    `✓ ${PAGE}: digest of ${RECORD} shown on the page: ${digest}`,
    `✓ ${PAGE}: digest of SHA256SUMS shown on the page: ${root}`,
    `✓ data/SHA256SUMS: SHA-256 in SHA256SUMS: ${sha256(readFileSync(join(site, "data/SHA256SUMS")))}`,
  ]) {
    assert.ok(result.receipts.includes(expected), `${expected} in ${result.receipts.join("\n")}`);
  }
  // The run's own receipts are recomputed: its scope is the page's run.
  const outcome = new RegExp(`^✓ (data/)?E04/runs/${RUN}\\.json: outcome`);
  assert.ok(result.receipts.some((r) => outcome.test(r)), result.receipts.join("\n"));
});

test("a compact page that leaves its record out of its files, or stands for another run, does not verify", async () => {
  const copy = copySite(site);
  const file = join(copy, PAGE);
  const html = readFileSync(file, "utf8");
  const digest = sha256(gunzipSync(readFileSync(join(site, RECORD))));
  // The record left out of the files the page names, and another digest
  // shown: the pin still reads the run's record, which was not fetched.
  const other = "0".repeat(64);
  const dropped = html.replace(` ${RECORD} `, " ").replace(`id="record-digest">${digest}<`, `id="record-digest">${other}<`);
  assert.notEqual(dropped, html);
  writeFileSync(file, dropped);
  {
    const { result } = await verifyPage(copy, PAGE);
    assert.equal(result.status, "failed", result.text);
    assert.ok(result.failures.some((f) => f.includes(`digest of ${RECORD} shown on the page`)), result.failures.join("\n"));
  }
  // The page of one run served as another's: it names a run that is not
  // the page's, and verifies nothing.
  const OTHER = "runs/E02-release-brief-careful-s2-always-large.html";
  writeFileSync(join(copy, OTHER), html);
  {
    const { result } = await verifyPage(copy, OTHER);
    assert.equal(result.status, "error", result.text);
    assert.match(result.text, new RegExp(`names run ${RUN} but is the page of E02-release-brief-careful-s2-always-large`));
  }
});

test("the compare page reads gzipped records", async () => {
  const server = await serve(site);
  try {
    const { page, problems } = await open(browser, `${server.url}compare.html?a=${RUN}&b=E02-release-brief-careful-s2-always-large`);
    await page.waitForSelector("#compare[data-status=ready]");
    assert.match(await page.textContent("#compare"), /always-large/);
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    await server.close();
  }
});

test("a run page draws its replay from the gzipped record, every text inert", async () => {
  const copy = copySite(site);
  const file = join(copy, RECORD);
  const record = JSON.parse(gunzipSync(readFileSync(file)));
  // A publisher's record may hold anything: markup in a message, a tool
  // call's arguments and a check's detail must show as text.
  const hostile = `<img src=x onerror="window.__injected = true"><script>window.__injected = true</script>`;
  const message = record.attempts[0].messages.find((m) => typeof m.text === "string");
  message.text = hostile;
  record.attempts[0].turns[0].action.args = { path: hostile };
  record.attempts[0].checks[0].detail = hostile;
  writeFileSync(file, gzipSync(JSON.stringify(record)));
  const server = await serve(copy);
  try {
    const { page, problems } = await open(browser, `${server.url}${PAGE}#turn-2`);
    await page.waitForSelector("#replay[data-status=ready]");
    const drawn = await page.evaluate(() => {
      const replay = document.getElementById("replay");
      return {
        injected: window.__injected === true,
        markup: replay.querySelectorAll("script, img").length,
        attempts: [...replay.querySelectorAll("section.attempt")].map((s) => ({
          heading: s.querySelector("h3").id,
          rows: [...s.querySelectorAll("table.steps tbody tr")].map((r) => r.id),
          messages: [...s.querySelectorAll("ol.messages > li pre code")].map((c) => c.textContent),
          checks: [...s.querySelectorAll("ul.checks li")].map((l) => l.textContent),
        })),
        text: replay.textContent,
      };
    });
    assert.equal(drawn.injected, false, "no recorded text ran");
    assert.equal(drawn.markup, 0, "no recorded text became markup");
    assert.equal(drawn.attempts.length, record.attempts.length);
    drawn.attempts.forEach((a, i) => {
      const attempt = record.attempts[i];
      assert.equal(a.heading, `attempt-${i + 1}`);
      // A row per turn, then one per call no turn names, each named as the
      // full page names it.
      const named = new Set(attempt.turns.map((t) => t.call));
      const rows = attempt.turns.length + attempt.calls.filter((c) => !named.has(c.request_id)).length;
      assert.equal(a.rows.length, rows);
      assert.equal(a.rows[0], i === 0 ? "turn-1" : `attempt-${i + 1}-turn-1`);
      const texts = (attempt.messages ?? []).flatMap((m) => [m.reasoning, m.text].filter((t) => typeof t === "string"));
      assert.deepEqual(a.messages, texts);
      assert.equal(a.checks.length, attempt.checks.length);
    });
    assert.ok(drawn.attempts[0].messages.includes(hostile), "the markup shows as the text it is");
    assert.ok(drawn.attempts[0].checks[0].endsWith(hostile));
    assert.ok(drawn.text.includes(JSON.stringify({ path: hostile })));
    // The address's turn names a row drawn only now.
    assert.equal(await page.evaluate(() => document.getElementById("turn-2")?.tagName), "TR");
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    await server.close();
  }
});

test("without scripts a compact run page still says how the run went and where its record is", async () => {
  const server = await serve(site);
  try {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${server.url}${PAGE}`);
    const text = await page.textContent("main");
    assert.match(text, /Outcome\s*recorded .+, recomputed /);
    assert.match(text, /Receipts\s*\d+ of \d+ recomputed and agree/);
    assert.match(text, /the record above \(gzipped JSON\) holds every turn, call and message/);
    assert.equal(await page.locator(`main a[href="../${RECORD}"]`).count(), 1);
    assert.ok(await page.locator("table.attempts tbody tr").count() >= 1);
    await context.close();
  } finally {
    await server.close();
  }
});

test("a compact run page is valid HTML, and with its replay drawn axe-clean and no wider than a phone", async () => {
  let report;
  try {
    report = execFileSync("java", ["-jar", VNU, "--errors-only", "--format", "json", PAGE], { cwd: site, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    if (e.code === "ENOENT") throw new Error("the Nu HTML Checker needs Java (Debian: apt-get install default-jre-headless)");
    report = e.stderr || e.stdout;
  }
  const errors = JSON.parse(report || "{\"messages\":[]}").messages.filter((m) => m.type === "error" || m.subType === "fatal");
  assert.deepEqual(errors.map((m) => `${m.lastLine}: ${m.message}`), []);
  const server = await serve(site);
  try {
    for (const viewport of [{ width: 390, height: 844 }, { width: 1280, height: 900 }]) {
      // axe-core is injected as a script, which the page's CSP forbids; this context bypasses it.
      const context = await browser.newContext({ viewport, bypassCSP: true });
      const page = await context.newPage();
      await page.goto(`${server.url}${PAGE}`);
      await page.waitForSelector("#replay[data-status=ready]");
      await page.addScriptTag({ content: axeSource });
      const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
      const serious = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
      assert.deepEqual(serious.map((v) => `${v.id}: ${v.help} e.g. ${v.nodes[0]?.html.slice(0, 120)}`), [], `at ${viewport.width}px`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
      assert.ok(overflow <= 0, `${overflow} px of sideways scroll at ${viewport.width}px`);
      await context.close();
    }
  } finally {
    await server.close();
  }
});

test("a record changed inside its gzip file fails, on its page and on the site", async () => {
  const copy = copySite(site);
  const file = join(copy, RECORD);
  const text = gunzipSync(readFileSync(file)).toString("utf8");
  const changed = text.replace(/"duration_ms": (\d+)/, (_, d) => `"duration_ms": ${Number(d) + 1000}`);
  assert.notEqual(changed, text);
  writeFileSync(file, gzipSync(changed));
  const listed = sums(join(copy, "data/SHA256SUMS")).get(`E04/runs/${RUN}.json`);
  const found = sha256(changed);
  // The record fails its digest in data/SHA256SUMS (named without .gz, by
  // the digest of the record it holds) wherever it is read.
  const digestFails = `${LISTED} | ✗ ${LISTED}: SHA-256 in data/SHA256SUMS recorded ${listed}; recomputed ${found}`;
  {
    // Its page also shows the record's digest, which no longer holds; and
    // the first attempt, a second longer, now ends after the second starts:
    // a record that could not have happened.
    const { result } = await verifyPage(copy, PAGE);
    assert.equal(result.status, "failed", `${PAGE}: ${result.text}`);
    assert.deepEqual(result.failures.slice(0, 2), [
      digestFails,
      `${PAGE} | ✗ ${PAGE}: digest of ${RECORD} shown on the page recorded ${listed}; recomputed ${found}`,
    ]);
    assert.equal(result.failures.length, 3, result.failures.join("\n"));
    assert.match(result.failures[2], new RegExp(`^${LISTED} \\| ✗ ${LISTED}: record is possible .*before attempts\\[0\\] ended$`));
  }
  {
    // The whole site finds the same two receipts of the record. The run's
    // time is its wall time, which ends with its last attempt, so the
    // results it feeds still agree.
    const { result } = await verifyPage(copy, "verify.html");
    assert.equal(result.status, "failed", `verify.html: ${result.text}`);
    assert.ok(result.failures.includes(digestFails), result.failures.join("\n"));
    const subjects = new Set(result.failures.filter((f) => !isPageFailure(f)).map((f) => f.split(" | ")[0]));
    assert.deepEqual([...subjects], [LISTED]);
    // The pages that show the run's receipts, rendered again from the changed
    // record, are not the pages served: its own page among them.
    const pages = result.failures.filter(isPageFailure).map((f) => f.split(" | ")[0]);
    assert.ok(pages.includes(PAGE) && pages.includes("experiments/E04.html"), pages.join("\n"));
  }
  // Bytes that are not gzip at all are a failure, not an error, naming the file.
  writeFileSync(file, "not gzip");
  const { result } = await verifyPage(copy, PAGE);
  assert.equal(result.status, "failed", result.text);
  assert.equal(result.failures.length, 2, result.failures.join("\n"));
  assert.ok(result.failures[0].startsWith(`${LISTED} | ✗ ${LISTED}: SHA-256 in data/SHA256SUMS recorded ${listed}; recomputed ${RECORD}: not a gzipped record`), result.failures[0]);
  assert.equal(result.failures[1], `${PAGE} | ✗ ${PAGE}: digest of ${RECORD} shown on the page recorded ${listed}; recomputed the record could not be read`);
});

test("a gzipped record that inflates past the largest record is refused, not read whole", async () => {
  // 80 MiB of spaces after the record's text: a few hundred KB gzipped,
  // more than any record a build accepts (64 MiB) once inflated.
  const copy = copySite(site);
  const file = join(copy, RECORD);
  const text = gunzipSync(readFileSync(file));
  writeFileSync(file, gzipSync(Buffer.concat([text, Buffer.alloc(80 * 1024 * 1024, 32)]), { level: 9 }));
  const { result } = await verifyPage(copy, PAGE);
  assert.equal(result.status, "failed", result.text);
  assert.ok(
    result.failures[0].startsWith(`${LISTED} | ✗ ${LISTED}: SHA-256 in data/SHA256SUMS`)
      && result.failures[0].includes("it could not be decompressed: uncompressed, the file has over 67108864 bytes"),
    result.failures.join("\n"),
  );
});

test("only an experiment's run record is read gzipped: a harness run gzipped in place of its record stands for nothing", async () => {
  // The same rule as `receipts verify` (the core's layout, which the worker
  // asks through wasm): the worker looks for the harness run's record under
  // its own name, finds none, and the record fails; the gzip file is read
  // as no record.
  const copy = copySite(site);
  const rel = "data/harness/H01/runs/H01-sim-agent-careful-s1.json";
  const bytes = readFileSync(join(copy, rel));
  writeFileSync(join(copy, `${rel}.gz`), gzipSync(bytes));
  rmSync(join(copy, rel));
  const { result, log } = await verifyLogged(browser, copy, "verify.html");
  assert.equal(result.status, "failed", result.text);
  const listed = sums(join(copy, "data/SHA256SUMS")).get(rel.slice("data/".length));
  assert.ok(
    result.failures.includes(`${rel} | ✗ ${rel}: SHA-256 in data/SHA256SUMS recorded ${listed}; recomputed the record could not be fetched`),
    result.failures.join("\n"),
  );
  assert.ok(!log.some((p) => p.endsWith(`${rel}.gz`)), "the gzip file is not fetched for the record");
});
