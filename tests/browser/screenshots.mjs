// Writes the screenshots of the sample site to docs/screenshots/: a page of
// each kind (the README shows the index, an experiment and a run), each at
// a phone's width (390×844) and a laptop's (1280×900), as a reader first
// sees them. tests/browser/first-hour.test.mjs takes those of a new user's
// own project (RECEIPTS_SCREENSHOTS=docs writes them here too).
//
//   node tests/browser/screenshots.mjs     (after `cargo build -p receipts`)
import { mkdirSync } from "node:fs";
import { join } from "node:path";

import { launch } from "./browser.mjs";
import { serve } from "./server.mjs";
import { REPO, buildSample } from "./setup.mjs";

const OUT = join(REPO, "docs/screenshots");
const PAGES = {
  index: "index.html",
  experiment: "experiments/E02.html",
  run: "runs/E02-release-brief-fast-s1-always-medium.html",
  runs: "runs/index.html",
  compare: "compare.html",
  evaluation: "imports/I01/scorers.html",
  traces: "imports/I02/otel/agent.otlp.html",
  "harness-suite": "harness/H01.html",
  "harness-run": "harness/H01/H01-sim-agent-careful-s1.html",
  regressions: "regressions/R01.html",
  "skill-edit": "regressions/R01/R01-edit-01-github-triage.html",
  memo: "docs/memos/limitations.html",
  showcase: "showcase.html",
  verify: "verify.html",
};
const WIDTHS = [
  { width: 390, height: 844 },
  { width: 1280, height: 900 },
];

const site = buildSample();
const server = await serve(site);
const browser = await launch();
mkdirSync(OUT, { recursive: true });
try {
  for (const viewport of WIDTHS) {
    const context = await browser.newContext({ viewport, colorScheme: "light" });
    const page = await context.newPage();
    for (const [name, path] of Object.entries(PAGES)) {
      await page.goto(server.url + path, { waitUntil: "networkidle" });
      const file = join(OUT, `${name}-${viewport.width}.png`);
      await page.screenshot({ path: file });
      console.log(file);
    }
    await context.close();
  }
} finally {
  await browser.close();
  await server.close();
}
