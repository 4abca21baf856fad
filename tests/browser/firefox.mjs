// Debian's Firefox ESR, driven over WebDriver BiDi by puppeteer-core: the
// second engine the verifier is tested in.
import { existsSync } from "node:fs";

import puppeteer from "puppeteer-core";

import { OUTCOMES } from "./browser.mjs";

export const FIREFOX = process.env.FIREFOX ?? "/usr/bin/firefox-esr";

/** Launches headless Firefox, or says exactly what is missing. */
export async function launchFirefox() {
  if (!existsSync(FIREFOX)) {
    throw new Error(`the Firefox tests need Firefox at ${FIREFOX} (Debian: apt-get install firefox-esr), or FIREFOX=/path/to/firefox`);
  }
  return puppeteer.launch({ browser: "firefox", executablePath: FIREFOX, headless: true });
}

/** Opens `url` in `browser`, presses Verify and waits for the outcome;
 * returns the summary's status and text, the page's marks as
 * [data-verify, text], and the page's errors. */
export async function verifyIn(browser, url, timeout = 300_000) {
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
