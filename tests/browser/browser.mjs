// Debian's Chromium, headless, driven by playwright-core.
import { chromium } from "playwright-core";

import { serve } from "./server.mjs";

export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

/** Launches Chromium; once more when it dies while starting (it has crashed
 * with SIGSEGV during launch on a loaded machine, before any page opened),
 * so a test fails for what a page does, not for a browser that never came up. */
export async function launch() {
  try {
    return await launchOnce();
  } catch (e) {
    if (!/has been closed|SIGSEGV/.test(String(e && e.message))) throw e;
    return launchOnce();
  }
}

function launchOnce() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** Opens `url` in a new page that records console errors and failed requests. */
export async function open(browser, url) {
  const page = await browser.newPage();
  const problems = [];
  page.on("console", (m) => {
    // Failed loads are reported below with their address.
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) problems.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("response", (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  await page.goto(url);
  return { page, problems };
}

/** The statuses a verification ends in: every receipt passed; some failed;
 * none failed but some could not be checked; it could not run (an invalid pin). */
export const OUTCOMES = ["verified", "failed", "unchecked", "error"];

/** Presses Verify and waits for the outcome; returns the summary's data
 * attributes, the receipts that did not pass ("subject | ✗ subject: claim
 * recorded …; recomputed …") and, when the page lists them all (at most 500),
 * every receipt ("✓ subject: claim: recomputed"; otherwise null). */
export async function verify(page, timeout = 120_000) {
  await page.click("#verify-run");
  await page.waitForFunction(
    (outcomes) => outcomes.includes(document.querySelector("#verify-summary").dataset.status),
    OUTCOMES,
    { timeout },
  );
  return page.evaluate(() => {
    const s = document.querySelector("#verify-summary");
    const all = document.querySelector(".verify-all");
    return {
      status: s.dataset.status,
      checked: Number(s.dataset.checked),
      failed: Number(s.dataset.failed),
      text: s.textContent,
      failures: [...document.querySelectorAll(".verify-failures li")].map((li) => li.dataset.subject + " | " + li.textContent),
      receipts: all ? [...all.querySelectorAll("li")].map((li) => li.textContent) : null,
    };
  });
}

/** Serves `root`, opens `path` and verifies it; returns { result, problems }. */
export async function verifyAt(browser, root, path) {
  const { result, problems } = await verifyLogged(browser, root, path);
  return { result, problems };
}

/** As `verifyAt`, also returning the paths the server was asked for (`log`). */
export async function verifyLogged(browser, root, path) {
  const log = [];
  const server = await serve(root, { log });
  try {
    const { page, problems } = await open(browser, server.url + path);
    const result = await verify(page);
    await page.close();
    return { result, problems, log };
  } finally {
    await server.close();
  }
}

/** Verifies `page` as `verify` does, timed in the page from the click on
 * Verify to the outcome in #verify-summary, without the driver's own work:
 * `{ outcome, ms }`. */
export async function timedVerify(page, timeout) {
  await page.evaluate(() => {
    const t = (window.__timing = {});
    const summary = document.getElementById("verify-summary");
    document.getElementById("verify-run").addEventListener("click", () => { t.start = performance.now(); }, { capture: true });
    new MutationObserver(() => {
      if (t.end === undefined && ["verified", "failed", "unchecked", "error"].includes(summary.dataset.status)) t.end = performance.now();
    }).observe(summary, { attributes: true });
  });
  const outcome = await verify(page, timeout);
  const t = await page.evaluate(() => window.__timing);
  return { outcome, ms: t.end - t.start };
}

/** Whether a failure is one of the manifest checks: a file's or record's
 * digest in SHA256SUMS, data/SHA256SUMS or a chunk manifest, a file not listed there, the
 * root pin, or a digest the page shows (of SHA256SUMS or of its record). */
export function isManifestFailure(f) {
  return / \| . \S+: ((SHA-256|listed) in (data\/(\S+\/runs\/)?)?SHA256SUMS(-[0-9a-f]+)?|root digest|digest of \S+ shown on the page) recorded /.test(f);
}

/** Whether failure `f` is a page that is not what the records render to. */
export function isPageFailure(f) {
  return / \| . \S+: rendered from the records recorded /.test(f);
}

/** A verification's failures other than the manifest checks and the page
 * check (the recomputed claims), each "subject | ✗ subject: claim recorded …". */
export function claimFailures(result) {
  return result.failures.filter((f) => !isManifestFailure(f) && !isPageFailure(f));
}
