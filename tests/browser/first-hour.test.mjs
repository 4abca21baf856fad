// A new user's first hour, walked end to end on a fresh tree: an Inspect AI
// log imported into an empty project, built and verified with no folder
// made by hand; the site previewed with `receipts serve` and Verify pressed
// on the index and on the evaluation's page, which must say verified there
// as the same site served as plain files does (what serve adds to a page
// is not what the page check compares); and a screenshot of each page at a
// phone's width and a laptop's, kept in test-output/first-hour/ (with
// RECEIPTS_SCREENSHOTS=docs, in docs/screenshots/).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";

import { launch, open, verify, verifyAt } from "./browser.mjs";
import { REPO, RECEIPTS, receipts, tempDir } from "./setup.mjs";

const LOG = join(REPO, "tests/fixtures/inspect/scorers.eval");
const PAGES = { index: "index.html", evaluation: "imports/quiz/scorers.html", verify: "verify.html" };
const WIDTHS = [{ width: 390, height: 844 }, { width: 1280, height: 900 }];
const SHOTS = process.env.RECEIPTS_SCREENSHOTS === "docs"
  ? join(REPO, "docs/screenshots")
  : join(REPO, "test-output/first-hour");

let browser;
let project;

before(async () => {
  browser = await launch();
  project = tempDir("receipts-first-hour-");
});

after(async () => {
  await browser?.close();
});

/** `receipts serve --port 0` in `dir`: resolves to { url, close } once it
 * says where it serves. */
async function serveProject(dir) {
  const child = spawn(RECEIPTS, ["serve", "--port", "0"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let said = "";
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`receipts serve said nothing useful in 120 s:\n${said}`)), 120_000);
    const read = (chunk) => {
      said += chunk;
      const m = said.match(/on (http:\/\/\S+\/) /);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.on("exit", (code) => reject(new Error(`receipts serve exited ${code}:\n${said}`)));
  });
  return {
    url,
    close: async () => { child.kill("SIGINT"); await once(child, "exit"); },
  };
}

test("an Inspect log imported into an empty project builds and verifies", () => {
  const said = receipts(["import", "inspect", LOG, "--into", "experiments/quiz"], { cwd: project });
  assert.match(said, /imported .*scorers\.eval as experiments\/quiz\/inspect\/scorers\.json/);
  assert.ok(!existsSync(join(project, "experiments/tasks")), "no tasks folder is needed");
  const built = receipts(["build"], { cwd: project });
  assert.match(built, /^built site: 1 evaluation \(\d+ samples\),/, built);
  receipts(["verify", "site"], { cwd: project });
});

test("under receipts serve, Verify on the index and the evaluation says verified, as on a plain host", async () => {
  const server = await serveProject(project);
  try {
    for (const path of [PAGES.index, PAGES.evaluation]) {
      const { page, problems } = await open(browser, server.url + path);
      assert.ok(await page.$("script[src='/_receipts/reload.js']"), "the page reloads on change");
      const result = await verify(page);
      await page.close();
      assert.deepEqual(problems, [], path);
      assert.equal(result.status, "verified", `${path} under serve: ${result.text}\n${result.failures.join("\n")}`);
      const plain = await verifyAt(browser, join(project, "site"), path);
      assert.equal(plain.result.status, "verified", `${path} as plain files: ${plain.result.text}`);
      assert.equal(result.checked, plain.result.checked, `${path}: the same receipts checked`);
    }
  } finally {
    await server.close();
  }
});

test("each page at a phone's width and a laptop's: no sideways scroll, a screenshot kept", async () => {
  const server = await serveProject(project);
  mkdirSync(SHOTS, { recursive: true });
  try {
    for (const viewport of WIDTHS) {
      const context = await browser.newContext({ viewport, colorScheme: "light" });
      const page = await context.newPage();
      for (const [name, path] of Object.entries(PAGES)) {
        await page.goto(server.url + path, { waitUntil: "networkidle" });
        const overflow = await page.evaluate(() => document.scrollingElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `${path}: ${overflow} px of sideways scroll at ${viewport.width} px`);
        await page.screenshot({ path: join(SHOTS, `first-hour-${name}-${viewport.width}.png`) });
      }
      await context.close();
    }
  } finally {
    await server.close();
  }
});
