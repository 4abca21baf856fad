// A judge's trail, by clicks only: from each hypothesis on the index to its
// rule, to each figure the rule reads, to the runs behind the figures, to one
// run's page and its receipts, which the browser recomputes there.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";

import { launch } from "./browser.mjs";
import { serve } from "./server.mjs";
import { buildSample } from "./setup.mjs";

let browser, server, cards;

before(async () => {
  const site = buildSample();
  server = await serve(site);
  browser = await launch();
  const page = await browser.newPage();
  await page.goto(server.url + "index.html");
  cards = await page.$$eval("#claims ~ article.claim-card", (articles) =>
    articles.map((a) => ({
      anchor: a.id,
      title: a.querySelector("h3").textContent,
      decision: a.querySelector(".verdict").textContent.trim(),
      outcome: a.querySelector(".claim-outcome .recomputed").textContent.trim(),
      rule: a.querySelector("a.trail-rule").textContent.trim(),
      figures: [...a.querySelectorAll("a.trail-figure")].map((f) => ({
        label: f.textContent.trim(),
        mark: f.parentElement.querySelector(".recomputed")?.textContent.trim() ?? null,
        claim: f.parentElement.querySelector(".recomputed")?.dataset.claim ?? null,
      })),
      runs: [...a.querySelectorAll("a.trail-runs")].map((r) => r.textContent.trim()),
    })),
  );
  await page.close();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** Opens the index at a card, ready for the next click from it. */
async function atCard(page, card) {
  await page.goto(server.url + "index.html#" + card.anchor);
  await page.waitForLoadState("load");
}

/** Clicks the `n`th link of `selector` in `card` and waits for the page it opens. */
async function follow(page, card, selector, n = 0) {
  await page.locator(`#${card.anchor} ${selector}`).nth(n).click();
  await page.waitForLoadState("load");
}

/** The element the address names, whether it is in view, and its text. */
function target(page) {
  return page.evaluate(() => {
    const el = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (!el) return null;
    const box = el.getBoundingClientRect();
    return { id: el.id, path: location.pathname, text: el.textContent, inView: box.top < innerHeight && box.bottom > 0 };
  });
}

test("the index leads with every hypothesis of the sample, each decided", () => {
  // E01 H1–H3, E02 H4–H6, E03 H7–H8, E04 H9–H11.
  assert.equal(cards.length, 11, cards.map((c) => c.title).join("\n"));
  for (const c of cards) {
    assert.ok(["supported", "not supported", "undecided"].includes(c.decision), `${c.anchor}: ${c.decision}`);
    assert.match(c.outcome, /^✓ /, `${c.anchor}: its outcome agrees with the record`);
    assert.ok(c.figures.length >= 1 && c.runs.length >= 1, `${c.anchor} has a trail`);
  }
});

test("each hypothesis's trail leads by clicks to its rule, its figures, its runs and a run's receipts", { timeout: 600_000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  for (const card of cards) {
    // Claim → rule: the hypothesis's row on its experiment's page, the same
    // rule in words and the same recomputed outcome.
    await atCard(page, card);
    await follow(page, card, "a.trail-rule");
    const rule = await target(page);
    assert.ok(rule?.inView, `${card.anchor}: the rule is in view: ${JSON.stringify(rule)}`);
    assert.match(rule.id, /^hypothesis-/);
    assert.ok(rule.text.includes("Rule: " + card.rule), `${card.anchor}: ${rule.text}`);
    assert.ok(rule.text.includes(card.outcome), `${card.anchor}: the outcome ${card.outcome} in ${rule.text}`);

    // Rule → figures: each figure's policy row, holding the same recomputed
    // value under the same receipt.
    for (const [i, figure] of card.figures.entries()) {
      await atCard(page, card);
      await follow(page, card, "a.trail-figure", i);
      const row = await target(page);
      assert.ok(row?.inView, `${card.anchor}, ${figure.label}: ${JSON.stringify(row)}`);
      assert.match(row.id, /^policy-/);
      if (figure.claim) {
        const shown = await page.$eval(`#${row.id} [data-claim="${figure.claim}"]`, (e) => e.textContent.trim());
        assert.equal(shown, figure.mark, `${card.anchor}, ${figure.label}`);
      }
    }

    // Figures → runs: the runs index filtered to the policy's runs, as many
    // as the card says; then the first run's page and its receipts.
    await atCard(page, card);
    await follow(page, card, "a.trail-runs");
    const [, count, policy, experiment] = card.runs[0].match(/^(\d+) runs? of (\S+) in (\S+)$/);
    await page.waitForFunction(() => / runs match/.test(document.getElementById("run-count").textContent));
    const listed = await page.$$eval("table.runs tbody tr", (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    assert.equal(listed.length, Number(count), `${card.anchor}: runs of ${policy} in ${experiment}`);
    assert.ok(listed.every((cells) => cells[1] === experiment && cells[5] === policy), `${card.anchor}: ${JSON.stringify(listed)}`);
    const run = listed[0][0];
    await page.click(`table.runs tbody tr:first-child th a`);
    await page.waitForLoadState("load");
    assert.match(await page.textContent("h1"), new RegExp(`^Run ${run}\\b`));

    // Runs → receipts: the run's outcome and its other marks, recomputed
    // here; the record they are recomputed from opens from the page.
    const marks = await page.$$eval("main [data-claim]", (els) => els.map((e) => e.closest("[data-subject]").dataset.subject));
    assert.ok(marks.some((s) => s.endsWith(`/${run}.json`)), `${run}: ${marks}`);
    await page.click("#verify-run");
    await page.waitForFunction(() => !["pending", "running"].includes(document.querySelector("#verify-summary").dataset.status));
    assert.equal(await page.$eval("#verify-summary", (s) => s.dataset.status), "verified", run);
    const outcome = await page.$eval('main [data-claim="outcome"]', (e) => [e.dataset.verify, e.textContent]);
    assert.equal(outcome[0], "pass", `${run}: its outcome receipt, recomputed in this browser`);
    const record = page.locator("dt:text-is('Record') + dd a");
    const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith(`/${run}.json`)), record.click()]);
    const json = await response.json();
    assert.equal(json.id, run, `${run}: the record the receipts are recomputed from`);
  }
  await context.close();
});
