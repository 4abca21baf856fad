// Finding things: the runs index searched and filtered (by the address and
// by typing, by id, task, model and outcome), the compare page's runs picked from the index with the nearest
// runs named for an id it does not hold, and breadcrumbs back up from a run.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { launch } from "./browser.mjs";
import { serve } from "./server.mjs";
import { buildSample } from "./setup.mjs";

let browser, server, rows;

before(async () => {
  const site = buildSample();
  const part = JSON.parse(readFileSync(join(site, "runs/rows-1.json"), "utf8"));
  rows = part.rows.map((values) => Object.fromEntries(part.columns.map((c, i) => [c, values[i]])));
  server = await serve(site);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** The runs the table lists once the index has been filtered. */
async function listed(page) {
  await page.waitForFunction(() => / runs match/.test(document.getElementById("run-count").textContent));
  return page.$$eval("table.runs tbody tr", (trs) => trs.map((tr) => ({
    id: tr.cells[0].textContent, experiment: tr.cells[1].textContent, task: tr.cells[2].textContent,
    profile: tr.cells[3].textContent, seed: tr.cells[4].textContent, policy: tr.cells[5].textContent,
  })));
}

test("the runs index searches and filters by profile and seed, from the address and as one types", async () => {
  const page = await browser.newPage();
  await page.goto(server.url + "runs/index.html?q=invoice%20LADDER&seed=2&profile=careful");
  const expected = rows
    .filter((r) => r.id.includes("invoice") && r.policy === "ladder" && r.seed === 2 && r.profile === "careful")
    .map((r) => r.id);
  assert.ok(expected.length > 0);
  assert.deepEqual((await listed(page)).map((r) => r.id), expected);
  assert.equal(await page.inputValue("input[name=q]"), "invoice LADDER");
  assert.equal(await page.inputValue("select[name=seed]"), "2");

  // Typing narrows the list and the address keeps the search.
  await page.goto(server.url + "runs/index.html");
  await page.fill("input[name=q]", "release-brief always-large failed");
  await page.waitForFunction(() => new URLSearchParams(location.search).get("q") === "release-brief always-large failed");
  const typed = await listed(page);
  const failing = rows.filter((r) => r.task === "release-brief" && r.policy === "always-large" && !r.passed).map((r) => r.id);
  assert.deepEqual(typed.map((r) => r.id), failing);
  await page.selectOption("select[name=profile]", "fast");
  await page.waitForFunction(() => new URLSearchParams(location.search).get("profile") === "fast");
  const fast = await listed(page);
  assert.deepEqual(fast.map((r) => r.id), typed.filter((r) => r.profile === "fast").map((r) => r.id));
  await page.close();
});

test("the search finds runs by the model of a tier they tried", async () => {
  // Each experiment's model by tier, from its record.
  const experiments = fileURLToPath(new URL("../../experiments/", import.meta.url));
  const models = {};
  for (const dir of readdirSync(experiments)) {
    const file = join(experiments, dir, "experiment.json");
    if (!existsSync(file)) continue;
    const e = JSON.parse(readFileSync(file, "utf8"));
    models[e.id] = Object.fromEntries(e.tiers.map((t) => [t.id, t.model]));
  }
  const page = await browser.newPage();
  for (const model of ["sim-small-30b", "sim-large-550b"]) {
    await page.goto(server.url + `runs/index.html?q=${model}`);
    const expected = rows
      .filter((r) => r.tiers.split(" → ").some((t) => (models[r.experiment]?.[t] ?? "").includes(model)))
      .map((r) => r.id);
    assert.ok(expected.length > 0 && expected.length < rows.length, `${model}: ${expected.length} of ${rows.length}`);
    assert.deepEqual((await listed(page)).map((r) => r.id), expected, model);
  }
  await page.close();
});

test("compare picks its runs from the index and names the nearest runs for an unknown id", async () => {
  const page = await browser.newPage();
  await page.goto(server.url + "compare.html");
  await page.fill("input[name=a]", "release-brief ladder s2");
  await page.waitForFunction(() => document.querySelectorAll("#run-ids option").length > 0);
  const options = await page.$$eval("#run-ids option", (os) => os.map((o) => o.value));
  const expected = rows
    .filter((r) => ["release-brief", "ladder", "s2"].every((w) => `${r.id} ${r.task} ${r.policy}`.toLowerCase().includes(w)))
    .map((r) => r.id)
    .slice(0, 20);
  assert.deepEqual(options, expected);

  // A typo: no 404, but the runs nearest it, the intended one first.
  const b = "E01-release-brief-careful-s1-always-large";
  await page.goto(`${server.url}compare.html?a=E01-release-brief-careful-s1-always-smal&b=${b}`);
  await page.waitForFunction(() => document.getElementById("compare").dataset.status);
  assert.equal(await page.$eval("#compare", (e) => e.dataset.status), "unknown");
  const text = await page.textContent("#compare");
  assert.match(text, /This site has no run “E01-release-brief-careful-s1-always-smal”/);
  const suggested = await page.$$eval("#compare ul.suggestions a", (as) => as.map((a) => a.textContent));
  assert.equal(suggested[0], "E01-release-brief-careful-s1-always-small", suggested.join(", "));
  await page.click("#compare ul.suggestions li:first-child a");
  await page.waitForFunction(() => document.getElementById("compare").dataset.status === "ready");
  const facts = await page.$$eval(".compare-col dl.facts dt", (dts) => dts.map((d) => d.textContent));
  for (const field of ["Models", "Provider calls", "Truncated calls", "Prompt tokens", "Completion tokens", "Cost", "Time", "Receipts"]) {
    assert.ok(facts.filter((f) => f === field).length === 2, `${field} for both runs: ${facts}`);
  }
  assert.equal(new URL(page.url()).searchParams.get("b"), b, "the other run kept");
  await page.close();
});

test("a run page's breadcrumbs lead back to its experiment and its runs", async () => {
  const page = await browser.newPage();
  const run = "E03-invoice-cleanup-fast-s1-always-small";
  await page.goto(`${server.url}runs/${run}.html`);
  const crumbs = await page.$$eval("nav.crumbs li", (lis) => lis.map((li) => li.textContent));
  assert.deepEqual(crumbs, ["Results", "E03", "Runs", run]);
  await page.click("nav.crumbs a:text-is('Runs')");
  const runs = await listed(page);
  assert.deepEqual(runs.map((r) => r.id), rows.filter((r) => r.experiment === "E03").map((r) => r.id));
  await page.goBack();
  await page.click("nav.crumbs a:text-is('E03')");
  await page.waitForLoadState("load");
  assert.match(await page.textContent("h1"), /^E03: /);
  await page.close();
});

test("an experiment's grid shows every cell against every policy, each run with its outcome", async () => {
  const page = await browser.newPage();
  await page.goto(server.url + "experiments/E02.html#cells");
  // The runs in their cells; a composed policy's cells link to the tier runs
  // it took, which are checked on their own.
  const shown = await page.$$eval("table.cell-grid tbody td:not(.composed) a", (as) =>
    as.map((a) => ({ id: a.title.split(":")[0], text: a.textContent, row: a.closest("tr").cells[0].textContent })));
  const e02 = rows.filter((r) => r.experiment === "E02");
  // Every run of E02 is in its cell, once, with its recomputed outcome.
  assert.deepEqual(shown.map((s) => s.id).sort(), e02.map((r) => r.id).sort());
  for (const s of shown) {
    const r = e02.find((x) => x.id === s.id);
    assert.equal(s.row, `${r.task} · ${r.profile} · ${r.seed}`, s.id);
    assert.equal(s.text, (r.passed ? "✓ passed" : "✗ failed") + (r.replaces ? " (rerun)" : ""), s.id);
  }
  const columns = await page.$$eval("table.cell-grid thead th", (ths) => ths.map((t) => t.textContent));
  const run = columns.slice(1).filter((c) => !c.endsWith(" (composed)"));
  assert.deepEqual(run.sort(), [...new Set(e02.map((r) => r.policy))].sort());
  assert.ok(columns.includes("ladder (composed)"), columns.join(", "));
  await page.close();
});
