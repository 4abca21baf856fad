// The verifier in a second engine: Debian's Firefox ESR, driven over
// WebDriver BiDi by puppeteer-core. A run page verifies its receipts and
// updates its marks in place; the Verify page verifies the whole site,
// pages included; a forged record fails.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";

import { launchFirefox, verifyIn as verifyWith } from "./firefox.mjs";
import { serve } from "./server.mjs";
import { buildSample, tampered } from "./setup.mjs";

const RUN = "E02-release-brief-fast-s1-always-medium";

let browser, server, site;

before(async () => {
  site = buildSample();
  server = await serve(site);
  browser = await launchFirefox();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const verifyIn = (url) => verifyWith(browser, url);

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
