// One page of every record kind in Chromium, on a phone (390 × 844) and a
// laptop (1280 × 800): the page never scrolls sideways (a wide table or
// block of code scrolls inside its own container), and no ordinary word is
// broken across two lines, neither by a style that allows it on prose
// (`word-break: break-all`, `overflow-wrap: anywhere`) nor in what the
// browser laid out. The site is the sample plus an Inspect AI log imported
// under the long file name Inspect gives its logs, whose page is titled by
// its task, the file name kept in the page's body.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, cpSync, readFileSync } from "node:fs";
import { join } from "node:path";

import { launch } from "./browser.mjs";
import { serve } from "./server.mjs";
import { REPO, receipts, tempDir } from "./setup.mjs";

/** The name Inspect AI gives a log: when it started, the task, an id. */
const LOG = "2026-01-05T09-00-00+00-00_scorers_Xq7kV2mPb9LwN3cR8tYf4z";
/** The name its record and page take (`+` is not kept in a name). */
const NAME = LOG.replace("+", "-");

const PAGES = {
  landing: "index.html",
  experiment: "experiments/E02.html",
  "experiment stopped": "experiments/E03.html",
  "experiment of five policies": "experiments/E04.html",
  runs: "runs/index.html",
  run: "runs/E02-release-brief-fast-s1-always-medium.html",
  "run with a table artifact": "runs/E01-invoice-cleanup-careful-s1-always-large.html",
  compare: "compare.html?a=E02-release-brief-fast-s1-always-medium&b=E02-release-brief-careful-s2-always-large",
  showcase: "showcase.html",
  documents: "documents.html",
  document: "docs/FORMAT.html",
  memo: "docs/memos/limitations.html",
  verify: "verify.html",
  "standalone verifier": "verifier/index.html",
  harness: "harness/H01.html",
  "harness run": "harness/H01/H01-sim-agent-careful-s2.html",
  regressions: "regressions/R01.html",
  "skill edit": "regressions/R01/R01-edit-09-reporting.html",
  golden: "regressions/R01/golden/index.html",
  week: "regressions/R01/weeks/2026-W45.html",
  inspect: "imports/I01/scorers.html",
  "inspect with tools": "imports/I01/tools.html",
  "inspect imported": `imports/I03/${NAME}.html`,
  otel: "imports/I02/otel/agent.otlp.html",
};

const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
];

let browser, server, site;

before(async () => {
  const root = tempDir("receipts-phones-");
  for (const dir of ["experiments", "showcase", "docs"]) cpSync(join(REPO, dir), join(root, dir), { recursive: true });
  const log = join(tempDir("receipts-phones-log-"), `${LOG}.eval`);
  copyFileSync(join(REPO, "tests/fixtures/inspect/scorers.eval"), log);
  receipts(["import", "inspect", log, "--into", join(root, "experiments/I03")], { cwd: root, stdio: "pipe" });
  site = join(root, "site");
  receipts(["build", "--quiet", "--root", root, "--out", site]);
  server = await serve(site);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** In the page: how wide the document is, the outermost elements that
 * stick out past the window (not inside a container that scrolls or clips
 * sideways), the elements whose prose a style lets break anywhere, and the
 * ordinary words (letters, perhaps an apostrophe, between spaces) laid out
 * over two lines. */
function measure() {
  const width = window.innerWidth;
  const describe = (el) => {
    const cls = typeof el.className === "string" && el.className ? "." + el.className.trim().split(/\s+/).join(".") : "";
    return `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}${cls}`;
  };
  // Tokens whose every character may be a break point: code, digests,
  // file names and addresses are not words.
  const TOKENS = "code, pre, kbd, samp, .digest, svg, script, style, textarea, select, option";
  const clips = (el) => ["auto", "scroll", "hidden", "clip"].includes(getComputedStyle(el).overflowX);

  const sticking = [];
  const walk = (el) => {
    if (clips(el) && el !== document.documentElement && el !== document.body) {
      if (el.getBoundingClientRect().right > width + 0.5) sticking.push(`${describe(el)} (a container ${Math.round(el.getBoundingClientRect().width)} px wide)`);
      return;
    }
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > width + 0.5) {
      sticking.push(`${describe(el)} ${Math.round(r.width)} px wide, right edge at ${Math.round(r.right)}`);
      return;
    }
    for (const child of el.children) walk(child);
  };
  walk(document.body);

  const loose = new Set();
  const broken = [];
  const text = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  const WORD = /^[(“‘"']*(\p{L}+(?:['’]\p{L}+)?)[)”’"'.,;:!?]*$/u;
  // Whether an element sits in a container that scrolls or clips sideways.
  const held = new Map();
  const contained = (el) => {
    if (!el || el === document.body) return false;
    if (!held.has(el)) held.set(el, clips(el) || contained(el.parentElement));
    return held.get(el);
  };
  for (let node = text.nextNode(); node; node = text.nextNode()) {
    const parent = node.parentElement;
    if (!parent) continue;
    // Text, such as a long name, that runs out of its box past the window.
    if (node.data.trim() && !contained(parent)) {
      range.selectNodeContents(node);
      const right = Math.max(0, ...[...range.getClientRects()].map((r) => r.right));
      if (right > width + 0.5) sticking.push(`text "${node.data.trim().slice(0, 60)}" in ${describe(parent)}, right edge at ${Math.round(right)}`);
    }
    if (parent.closest(TOKENS) || !/\p{L}{2}/u.test(node.data)) continue;
    const style = getComputedStyle(parent);
    if (["break-all", "break-word"].includes(style.wordBreak) || style.overflowWrap === "anywhere" || style.hyphens === "auto") {
      loose.add(`${describe(parent)} (word-break: ${style.wordBreak}; overflow-wrap: ${style.overflowWrap}; hyphens: ${style.hyphens})`);
    }
    for (const m of node.data.matchAll(/\S+/g)) {
      const word = WORD.exec(m[0]);
      if (!word || word[1].length < 2) continue;
      const start = m.index + m[0].indexOf(word[1]);
      range.setStart(node, start);
      range.setEnd(node, start + word[1].length);
      const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (tops.size > 1) broken.push(`"${word[1]}" in ${describe(parent)}`);
    }
  }
  return {
    scrollWidth: document.scrollingElement.scrollWidth,
    width,
    sticking: sticking.slice(0, 8),
    loose: [...loose].slice(0, 8),
    broken: broken.slice(0, 12),
    brokenCount: broken.length,
  };
}

test(`${VIEWPORTS.map((v) => v.width).join(" and ")} px wide: no page scrolls sideways, no word broken mid-word`, async (t) => {
  const problems = [];
  const widest = new Map(VIEWPORTS.map(({ width }) => [width, { scrollWidth: 0 }]));
  const context = await browser.newContext({ viewport: VIEWPORTS[0] });
  try {
    for (const [name, path] of Object.entries(PAGES)) {
      // Each page loaded once, and measured at each width as the window is resized.
      const page = await context.newPage();
      const response = await page.goto(server.url + path, { waitUntil: "networkidle" });
      assert.equal(response.status(), 200, path);
      if (name === "compare") await page.waitForSelector("#compare[data-status=ready]");
      // Closed details and toggled content are part of the page too.
      await page.evaluate(() => { for (const d of document.querySelectorAll("details")) d.open = true; });
      for (const viewport of VIEWPORTS) {
        await page.setViewportSize(viewport);
        await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
        const m = await page.evaluate(measure);
        const at = `${name} (${path}) at ${viewport.width} px`;
        if (m.scrollWidth > widest.get(viewport.width).scrollWidth) widest.set(viewport.width, { scrollWidth: m.scrollWidth, path });
        if (m.scrollWidth > m.width) {
          problems.push(`${at} scrolls sideways: ${m.scrollWidth} px in ${m.width}; sticking out: ${m.sticking.join("; ")}`);
        }
        if (m.loose.length) problems.push(`${at} lets prose break mid-word: ${m.loose.join("; ")}`);
        if (m.brokenCount) problems.push(`${at} breaks ${m.brokenCount} word(s) mid-word: ${m.broken.join(", ")}`);
      }
      await page.close();
    }
  } finally {
    await context.close();
  }
  for (const [width, w] of widest) t.diagnostic(`widest page at ${width} px: ${w.path}, ${w.scrollWidth} px`);
  assert.deepEqual(problems, []);
});

test("an imported evaluation is titled by its task and model, its log's file name kept in the page", () => {
  const html = readFileSync(join(site, `imports/I03/${NAME}.html`), "utf8");
  const title = html.match(/<title>([^<]*)<\/title>/)[1];
  const h1 = html.match(/<h1>([\s\S]*?)<\/h1>/)[1].replace(/<[^>]*>/g, "");
  for (const heading of [title, h1]) {
    assert.ok(heading.includes("scorers"), heading);
    assert.ok(heading.includes("mockllm/model"), heading);
    assert.ok(!heading.includes(NAME), heading);
  }
  assert.ok(html.includes(`${LOG}.eval`), "the log's file name on the page");
});
