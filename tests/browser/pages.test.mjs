// Every page type of the sample site in headless Chromium, light and dark:
// no console error, no failed request, no serious or critical axe-core
// violation, and a screenshot under test-output/screenshots/ for people to
// look at. Also the runs index's filters and the compare page.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

import { launch } from "./browser.mjs";
import { serve } from "./server.mjs";
import { REPO, buildSample } from "./setup.mjs";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const SHOTS = join(REPO, "test-output/screenshots");

const PAGES = {
  landing: "index.html",
  experiment: "experiments/E02.html",
  runs: "runs/index.html",
  run: "runs/E02-release-brief-fast-s1-always-medium.html",
  "run-csv": "runs/E01-invoice-cleanup-careful-s1-always-large.html",
  compare: "compare.html?a=E02-release-brief-fast-s1-always-medium&b=E02-release-brief-careful-s2-always-large",
  showcase: "showcase.html",
  documents: "documents.html",
  document: "docs/FORMAT.html",
  verify: "verify.html",
  harness: "harness/H01.html",
  "harness-run": "harness/H01/H01-sim-agent-careful-s2.html",
  regressions: "regressions/R01.html",
  "skill-edit": "regressions/R01/R01-edit-09-reporting.html",
  inspect: "imports/I01/tools.html",
  otel: "imports/I02/otel/agent.otlp.html",
};

let browser, server, site;

before(async () => {
  site = buildSample();
  server = await serve(site);
  browser = await launch();
  mkdirSync(SHOTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** Opens a page with the given colour scheme, recording console errors and failed requests. */
async function visit(path, colorScheme, options = {}) {
  const context = await browser.newContext({ colorScheme, viewport: { width: 1200, height: 900 }, ...options });
  const page = await context.newPage();
  const problems = [];
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("response", (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  await page.goto(server.url + path, { waitUntil: "networkidle" });
  return { context, page, problems };
}

for (const [name, path] of Object.entries(PAGES)) {
  test(`${name} page: no console errors, no serious accessibility violations, screenshots`, async () => {
    for (const scheme of ["light", "dark"]) {
      const { context, page, problems } = await visit(path, scheme);
      if (name === "compare") await page.waitForSelector("#compare[data-status=ready]");
      await page.screenshot({ path: join(SHOTS, `${name}-${scheme}.png`), fullPage: true });
      assert.deepEqual(problems, [], `${path} (${scheme})`);
      await context.close();
    }
    // axe-core is injected as a script, which the page's CSP forbids; this context bypasses it.
    const { context, page } = await visit(path, "light", { bypassCSP: true });
    if (name === "compare") await page.waitForSelector("#compare[data-status=ready]");
    await page.addScriptTag({ content: axeSource });
    const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
    const serious = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    assert.deepEqual(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.length}) e.g. ${v.nodes[0]?.html.slice(0, 120)}`), [], path);
    await context.close();
  });
}

test("every page has the landmarks and one first-level heading", async () => {
  for (const path of Object.values(PAGES)) {
    const { context, page } = await visit(path, "light");
    const shape = await page.evaluate(() => ({
      main: document.querySelectorAll("main").length,
      banner: document.querySelectorAll("header").length > 0,
      footer: document.querySelectorAll("footer").length,
      h1: document.querySelectorAll("h1").length,
      lang: document.documentElement.lang,
    }));
    assert.deepEqual(shape, { main: 1, banner: true, footer: 1, h1: 1, lang: "en" }, path);
    await context.close();
  }
});

test("the runs index filters and sorts in the browser and keeps the filter in the address", async () => {
  const { context, page, problems } = await visit("runs/index.html?experiment=E02&task=invoice-cleanup&lost=0&sort=time_s&dir=desc", "light");
  await page.waitForFunction(() => /runs match/.test(document.getElementById("run-count").textContent));
  const rows = await page.$$eval("table.runs tbody tr", (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  const all = JSON.parse(readFileSync(join(site, "runs/rows-1.json"), "utf8"));
  const expected = all.rows.filter((r) => r[1] === "E02" && r[2] === "invoice-cleanup").length;
  assert.equal(rows.length, expected);
  assert.ok(rows.every((r) => r[1] === "E02" && r[2] === "invoice-cleanup"));
  const times = rows.map((r) => parseFloat(r[9]));
  assert.deepEqual(times, [...times].sort((x, y) => y - x), "sorted by time, longest first");

  await page.selectOption("select[name=outcome]", "failed");
  await page.waitForFunction(() => window.location.search.includes("outcome=failed"));
  const failed = await page.$$eval("table.runs tbody tr", (trs) => trs.map((tr) => tr.children[7].textContent));
  assert.ok(failed.length > 0 && failed.every((t) => t.startsWith("failed")));
  await page.check("input[name=lost]");
  await page.waitForFunction(() => window.location.search.includes("lost=1"));
  const lost = await page.$$eval("table.runs tbody tr", (trs) => trs.map((tr) => tr.children[7].textContent));
  assert.ok(lost.every((t) => t.includes("usage lost")));
  assert.deepEqual(problems, []);
  await context.close();
});

test("the run page exports the same report the command writes", async () => {
  const { context, page, problems } = await visit(PAGES.run, "light", { acceptDownloads: true });
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export-report")]);
  const path = await download.path();
  const fromBrowser = readFileSync(path, "utf8");
  const { receipts } = await import("./setup.mjs");
  const fromCommand = receipts(["export", "E02-release-brief-fast-s1-always-medium", "--root", site, "--out", "-"]);
  assert.equal(fromBrowser, fromCommand);
  assert.deepEqual(problems, []);
  await context.close();
});

test("the compare page shows both runs and diffs their artifacts", async () => {
  const { context, page, problems } = await visit(PAGES.compare, "light");
  await page.waitForSelector("#compare[data-status=ready]");
  const text = await page.textContent("#compare");
  assert.match(text, /E02-release-brief-fast-s1-always-medium/);
  assert.match(text, /E02-release-brief-careful-s2-always-large/);
  assert.ok((await page.$$(".compare-col")).length === 2);
  assert.ok((await page.$$("pre.diff span")).length > 3, "the artifacts are diffed line by line");
  assert.deepEqual(problems, []);
  await context.close();
});
