// Debian's Chromium, headless, driven by playwright-core.
import { chromium } from "playwright-core";

import { serve } from "./server.mjs";

export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

export function launch() {
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

/** Presses Verify and waits for the outcome; returns the summary's data attributes and the failures. */
export async function verify(page, timeout = 120_000) {
  await page.click("#verify-run");
  await page.waitForFunction(
    () => ["verified", "failed", "error"].includes(document.querySelector("#verify-summary").dataset.status),
    null,
    { timeout },
  );
  return page.evaluate(() => {
    const s = document.querySelector("#verify-summary");
    return {
      status: s.dataset.status,
      checked: Number(s.dataset.checked),
      failed: Number(s.dataset.failed),
      text: s.textContent,
      failures: [...document.querySelectorAll(".verify-failures li")].map((li) => li.dataset.subject + " | " + li.textContent),
    };
  });
}

/** Serves `root`, opens `path` and verifies it; returns { result, problems }. */
export async function verifyAt(browser, root, path) {
  const server = await serve(root);
  try {
    const { page, problems } = await open(browser, server.url + path);
    const result = await verify(page);
    await page.close();
    return { result, problems };
  } finally {
    await server.close();
  }
}

/** A verification's failures other than file digests, each "subject | ✗ subject: claim recorded …". */
export function claimFailures(result) {
  return result.failures.filter((f) => !f.includes(": SHA-256 in") && !f.includes(": digest shown on the page"));
}
