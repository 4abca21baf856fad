// The verifier in a second engine: Debian's Firefox ESR, driven over
// WebDriver BiDi by puppeteer-core. A run page verifies its receipts and
// updates its marks in place; the Verify page verifies the whole site,
// pages included; a forged record fails.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";

import puppeteer from "puppeteer-core";

import { OUTCOMES } from "./browser.mjs";
import { serve } from "./server.mjs";
import { buildSample, tampered } from "./setup.mjs";

const FIREFOX = process.env.FIREFOX ?? "/usr/bin/firefox-esr";
const RUN = "E02-release-brief-careful-s2-ladder";

let browser, server, site;

before(async () => {
  if (!existsSync(FIREFOX)) {
    throw new Error(`the Firefox tests need Firefox at ${FIREFOX} (Debian: apt-get install firefox-esr), or FIREFOX=/path/to/firefox`);
  }
  site = buildSample();
  server = await serve(site);
  browser = await puppeteer.launch({ browser: "firefox", executablePath: FIREFOX, headless: true });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** Opens `url`, presses Verify and waits for the outcome; returns the
 * summary's status and the page's marks as [data-verify, text]. */
async function verifyIn(url, timeout = 300_000) {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(url, { waitUntil: "load" });
  await page.click("#verify-run");
  // Polled from here: the page's CSP forbids the evaluated script
  // waitForFunction would install in Firefox.
  const deadline = Date.now() + timeout;
  while (!OUTCOMES.includes(await page.$eval("#verify-summary", (s) => s.dataset.status))) {
    if (Date.now() > deadline) throw new Error(`${url}: no outcome after ${timeout} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const status = await page.$eval("#verify-summary", (s) => [s.dataset.status, s.textContent]);
  const marks = await page.$$eval("main [data-claim]", (els) => els.map((e) => [e.dataset.verify, e.textContent]));
  await page.close();
  return { status, marks, errors };
}

test("Firefox verifies a run page and updates its marks in place", async () => {
  const { status, marks, errors } = await verifyIn(server.url + `runs/${RUN}.html`);
  assert.deepEqual(errors, []);
  assert.equal(status[0], "verified", status[1]);
  assert.ok(marks.length > 3);
  assert.ok(marks.every(([v, t]) => v === "pass" && t.startsWith("✓")), JSON.stringify(marks));
});

test("Firefox verifies the whole site, every page rendered again", async () => {
  const { status, errors } = await verifyIn(server.url + "verify.html");
  assert.deepEqual(errors, []);
  assert.equal(status[0], "verified", status[1]);
});

test("Firefox fails a run whose record was edited", async () => {
  const forged = tampered(site, `data/E02/runs/${RUN}.json`, (r) => {
    r.outcome.passed = !r.outcome.passed;
  });
  const local = await serve(forged);
  try {
    const { status, marks } = await verifyIn(local.url + `runs/${RUN}.html`);
    assert.equal(status[0], "failed", status[1]);
    assert.ok(marks.some(([v, t]) => v === "fail" && t.startsWith("✗")), JSON.stringify(marks));
  } finally {
    await local.close();
  }
});
