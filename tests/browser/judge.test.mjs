// The judge's view of the sample site, at a phone's width (390×844) and a
// laptop's (1280×900): on every page nothing scrolls sideways, no two chart
// labels overlap, every section heading has an anchor, the root digest is
// visible and there is a meta description; every section is reachable by clicks from the index; Verify
// updates the page's marks in place; keyboard focus is always visible;
// axe-core finds nothing serious. The Nu HTML Checker finds no error on any
// page.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";

import { launch } from "./browser.mjs";
import { serve } from "./server.mjs";
import { buildSample, copySite, tampered } from "./setup.mjs";

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const VNU = require.resolve("vnu-jar/build/dist/vnu.jar");

const WIDTHS = [
  { width: 390, height: 844 },
  { width: 1280, height: 900 },
];

let browser, server, site, pages, rootDigest;

/** Every HTML page of the site, relative to it, sorted. */
function htmlPages(dir) {
  const out = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".html")) out.push(relative(dir, path));
    }
  };
  walk(dir);
  return out.sort();
}

before(async () => {
  site = buildSample();
  pages = htmlPages(site);
  rootDigest = createHash("sha256").update(readFileSync(join(site, "SHA256SUMS"))).digest("hex");
  server = await serve(site);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test("the Nu HTML Checker finds no error on any page", () => {
  let report;
  try {
    report = execFileSync("java", ["-jar", VNU, "--errors-only", "--format", "json", ...pages], {
      cwd: site,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 1 << 26,
    });
  } catch (e) {
    // The checker exits 1 when it found errors; its report is on stderr.
    if (e.code === "ENOENT") throw new Error("the Nu HTML Checker needs Java (Debian: apt-get install default-jre-headless)");
    report = e.stderr || e.stdout;
  }
  const messages = JSON.parse(report || "{\"messages\":[]}").messages;
  const errors = messages.filter((m) => m.type === "error" || m.subType === "fatal");
  assert.ok(pages.length > 100, `${pages.length} pages checked`);
  assert.deepEqual(
    errors.map((m) => `${relative(site, new URL(m.url).pathname)}:${m.lastLine}: ${m.message}`),
    [],
  );
});

/** What a page shows that a judge relies on, measured in the browser. */
function measure() {
  const de = document.documentElement;
  const overlaps = [];
  document.querySelectorAll("svg.chart").forEach((svg, n) => {
    const texts = [...svg.querySelectorAll("text")]
      .map((t) => [t.textContent, t.getBoundingClientRect()])
      .filter(([, b]) => b.width > 0);
    for (let i = 0; i < texts.length; i++) {
      for (let j = i + 1; j < texts.length; j++) {
        const [a, b] = [texts[i][1], texts[j][1]];
        const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (x > 0.5 && y > 0.5) overlaps.push(`chart ${n}: "${texts[i][0]}" over "${texts[j][0]}"`);
      }
    }
  });
  const unanchored = [...document.querySelectorAll("main h2, main h3")]
    .filter((h) => !h.id || !h.querySelector(`a.anchor[href="#${CSS.escape(h.id)}"]`))
    .map((h) => h.textContent.trim().slice(0, 40));
  const digest = document.getElementById("root-digest");
  const box = digest?.getBoundingClientRect();
  return {
    sideways: de.scrollWidth - de.clientWidth,
    overlaps,
    unanchored,
    description: document.querySelector('meta[name="description"]')?.content ?? "",
    footer: !!document.querySelector("footer.site"),
    digest: digest ? digest.textContent.trim() : null,
    digestVisible: !!box && box.width > 0 && box.left >= 0 && box.right <= de.clientWidth + 0.5 && digest.checkVisibility(),
  };
}

// Each page is loaded once and measured at each width in turn: resizing
// the viewport lays the page out again, and a load is most of the cost.
test(`every page at ${WIDTHS.map((v) => `${v.width}×${v.height}`).join(" and ")}: no sideways scroll, chart labels apart, headings anchored, the root digest visible, a meta description`, async () => {
  const context = await browser.newContext({ viewport: WIDTHS[0] });
  const page = await context.newPage();
  const problems = [];
  for (const path of pages) {
    await page.goto(server.url + path, { waitUntil: "load" });
    for (const viewport of WIDTHS) {
      await page.setViewportSize(viewport);
      const m = await page.evaluate(measure);
      const at = `${path} (${viewport.width}px)`;
      if (m.sideways > 0) problems.push(`${at}: scrolls ${m.sideways}px sideways`);
      problems.push(...m.overlaps.map((o) => `${at}: ${o}`));
      // The standalone verifier under verifier/ is a tool, not a page of the
      // study: its one heading is the result it shows.
      if (!path.startsWith("verifier/")) problems.push(...m.unanchored.map((h) => `${at}: heading "${h}" has no anchor`));
      if (m.description.trim().length < 40) problems.push(`${at}: meta description "${m.description}"`);
      if (m.footer) {
        if (m.digest !== rootDigest) problems.push(`${at}: root digest shown ${m.digest}`);
        if (!m.digestVisible) problems.push(`${at}: the root digest is not visible`);
      } else if (!path.startsWith("verifier/")) {
        problems.push(`${at}: no site footer`);
      }
    }
  }
  assert.deepEqual(problems, []);
  await context.close();
});

// Each section of the navigation, clicked from the index, lands where it
// says: its page, or its part of the index in view.
test("every section is reachable by clicks from the index, at both widths", async () => {
  for (const viewport of WIDTHS) {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    await page.goto(server.url + "index.html");
    const names = await page.$$eval("header.site nav a", (as) => as.map((a) => a.textContent.trim()));
    for (const section of ["Results", "Experiments", "Runs", "Harness", "Regressions", "Documents", "Showcase", "Verify"]) {
      assert.ok(names.includes(section), `${section} is in the navigation: ${names}`);
    }
    for (const name of names) {
      await page.goto(server.url + "index.html");
      await page.getByRole("navigation", { name: "Site" }).getByRole("link", { name, exact: true }).click();
      await page.waitForLoadState("load");
      const landed = await page.evaluate(() => {
        const id = decodeURIComponent(location.hash.slice(1));
        const target = id ? document.getElementById(id) : document.querySelector("h1");
        const box = target?.getBoundingClientRect();
        return { path: location.pathname, found: !!target, inView: !!box && box.top < innerHeight && box.bottom > 0 };
      });
      assert.ok(landed.found && landed.inView, `${name} (${viewport.width}px): ${JSON.stringify(landed)}`);
    }
    // And on from there: an experiment, a run of it, a harness run, a skill edit.
    for (const [from, link, heading] of [
      ["index.html#experiments", "#experiments h2 a", /^E\d+/],
      ["runs/index.html", "table.runs tbody th a", /^Run /],
      ["index.html#harness", "#harness + p + ul a", /^Harness suite /],
      ["index.html#regressions", "#regressions + p + ul a", /^Regression suite /],
    ]) {
      await page.goto(server.url + from);
      await page.waitForSelector(link);
      await page.click(link);
      await page.waitForLoadState("load");
      assert.match(await page.textContent("h1"), heading, `${link} from ${from}`);
    }
    await context.close();
  }
});

const MARKS = "main [data-claim]";

for (const path of ["runs/E02-release-brief-fast-s1-always-medium.html", "experiments/E02.html", "experiments/E01.html"]) {
  test(`Verify on ${path} updates each mark in place, at both widths`, async () => {
    for (const viewport of WIDTHS) {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      await page.goto(server.url + path);
      const built = await page.$$eval(MARKS, (els) => els.map((e) => e.textContent));
      assert.ok(built.length > 3, `${path} shows ${built.length} marks`);
      assert.ok(built.every((t) => t.startsWith("✓")), `${path}: ${built}`);
      // The control is at the top: on screen without scrolling.
      const top = await page.$eval("#verify-run", (b) => b.getBoundingClientRect().bottom);
      assert.ok(top < viewport.height, `the Verify button is at ${top}px`);
      await page.click("#verify-run");
      const pending = await page.$$eval(MARKS, (els) => els.filter((e) => e.dataset.verify === "pending").length);
      assert.equal(pending, built.length, "every mark is pending while the browser recomputes");
      await page.waitForFunction(() => document.querySelector("#verify-summary").dataset.status !== "running");
      assert.equal(await page.$eval("#verify-summary", (s) => s.dataset.status), "verified");
      const after = await page.$$eval(MARKS, (els) => els.map((e) => [e.dataset.verify, e.textContent, e.title]));
      assert.deepEqual(after.map(([v]) => v), built.map(() => "pass"));
      // Each mark shows what this browser recomputed, which is what the build wrote.
      assert.deepEqual(after.map(([, t]) => t), built);
      assert.ok(after.every(([, , title]) => title.startsWith("recomputed in this browser")));
      await context.close();
    }
  });
}

test("a run whose recorded figure was edited shows ✗ in place of its mark", async () => {
  const run = "E02-release-brief-fast-s1-always-medium";
  const rel = `data/E02/runs/${run}.json`;
  const forged = tampered(site, rel, (r) => {
    r.outcome.passed = !r.outcome.passed;
  });
  const local = await serve(forged);
  try {
    const context = await browser.newContext({ viewport: WIDTHS[0] });
    const page = await context.newPage();
    await page.goto(local.url + `runs/${run}.html`);
    await page.click("#verify-run");
    await page.waitForFunction(() => document.querySelector("#verify-summary").dataset.status !== "running");
    assert.equal(await page.$eval("#verify-summary", (s) => s.dataset.status), "failed");
    const failed = await page.$$eval(MARKS, (els) => els.filter((e) => e.dataset.verify === "fail").map((e) => e.textContent));
    assert.ok(failed.length > 0 && failed.every((t) => t.startsWith("✗")), `marks: ${failed}`);
    await context.close();
  } finally {
    await local.close();
  }
});

test("keyboard focus is always visible, the skip link first", async () => {
  for (const viewport of WIDTHS) {
    for (const path of ["index.html", "runs/E02-release-brief-fast-s1-always-medium.html", "experiments/E02.html", "runs/index.html"]) {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      await page.goto(server.url + path);
      const seen = [];
      for (let i = 0; i < 25; i++) {
        await page.keyboard.press("Tab");
        const f = await page.evaluate(() => {
          const el = document.activeElement;
          if (!el || el === document.body) return null;
          const s = getComputedStyle(el);
          const box = el.getBoundingClientRect();
          return {
            what: el.tagName + (el.id ? "#" + el.id : "") + " " + (el.textContent || "").trim().slice(0, 30),
            outline: s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2,
            // In view, at least in part (a tall table cannot be all on a phone's screen).
            onScreen: box.width > 0 && box.height > 0 && box.bottom > 0 && box.top < innerHeight && box.right > 0 && box.left < innerWidth,
            skip: el.classList.contains("skip"),
          };
        });
        if (f) seen.push(f);
      }
      assert.ok(seen.length > 10, `${path}: ${seen.length} focus stops`);
      assert.ok(seen[0].skip, `${path}: the first Tab goes to the skip link, not ${seen[0].what}`);
      const hidden = seen.filter((f) => !f.outline || !f.onScreen).map((f) => `${f.what} (outline ${f.outline}, on screen ${f.onScreen})`);
      assert.deepEqual(hidden, [], `${path} at ${viewport.width}px`);
      await context.close();
    }
  }
});

test("axe-core finds nothing serious at either width", async () => {
  const sample = [
    "index.html",
    "experiments/E02.html",
    "runs/index.html",
    "runs/E02-release-brief-fast-s1-always-medium.html",
    "harness/H01.html",
    "regressions/R01.html",
    "regressions/R01/R01-edit-05-github-triage.html",
    "docs/FORMAT.html",
    "verify.html",
  ];
  // axe-core is injected as a script, which the page's CSP forbids; this context bypasses it.
  const context = await browser.newContext({ viewport: WIDTHS[0], bypassCSP: true });
  const page = await context.newPage();
  for (const path of sample) {
    // Each page loaded once, and checked at each width as the window is resized.
    await page.setViewportSize(WIDTHS[0]);
    await page.goto(server.url + path);
    await page.addScriptTag({ content: axeSource });
    for (const viewport of WIDTHS) {
      await page.setViewportSize(viewport);
      await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
      const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
      const serious = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
      assert.deepEqual(serious.map((v) => `${v.id}: ${v.help} e.g. ${v.nodes[0]?.html.slice(0, 120)}`), [], `${path} at ${viewport.width}px`);
    }
  }
  await context.close();
});

test("a turn's address opens the page at that turn, and its number links to it", async () => {
  const context = await browser.newContext({ viewport: WIDTHS[0] });
  const page = await context.newPage();
  const path = "runs/E04-release-brief-careful-s1-ladder.html";
  await page.goto(server.url + path + "#attempt-2-turn-3");
  const turn = await page.evaluate(() => {
    const row = document.querySelector(":target");
    const box = row?.getBoundingClientRect();
    return { id: row?.id, inView: !!box && box.bottom > 0 && box.top < innerHeight, link: row?.querySelector("a.anchor")?.getAttribute("href") };
  });
  assert.deepEqual(turn, { id: "attempt-2-turn-3", inView: true, link: "#attempt-2-turn-3" });
  // The first attempt's turns are plain `#turn-N`.
  assert.ok(await page.$("tr#turn-1 a.anchor[href='#turn-1']"));
  // Inputs download under their own names.
  const names = await page.$$eval("a[download]", (as) => as.map((a) => [a.getAttribute("download"), a.textContent]));
  assert.ok(names.length > 3 && names.every(([d]) => /^[\w.-]+\.[a-z0-9]+$/i.test(d) && !/[0-9a-f]{64}/.test(d)), JSON.stringify(names));
  // An input's link is named as the input it is.
  assert.ok(names.some(([d, t]) => d === "runbook.md" && t === "runbook.md"), JSON.stringify(names));
  await context.close();
});

test("labels tell the truth: a regression the gate missed is red, every label explained", async () => {
  const context = await browser.newContext({ viewport: WIDTHS[1] });
  const page = await context.newPage();
  await page.goto(server.url + "regressions/R01.html");
  const rows = await page.$$eval("#timeline + .scroll table tbody tr", (trs) => trs.map((tr) => {
    const cells = [...tr.children];
    const gate = cells[6];
    return {
      edit: cells[1].textContent,
      label: cells[3].querySelector("abbr")?.title ?? cells[3].textContent,
      verdict: cells[5].textContent,
      gate: gate.textContent,
      red: !!gate.querySelector(".fail") && getComputedStyle(gate.querySelector(".fail")).color !== getComputedStyle(gate.closest("tr")).color,
    };
  }));
  const missed = rows.find((r) => r.edit === "R01-edit-05-github-triage");
  assert.ok(missed, JSON.stringify(rows));
  assert.match(missed.verdict, /PASS/);
  assert.equal(missed.gate, "missed");
  assert.ok(missed.red, "a missed regression is red");
  for (const r of rows) {
    assert.ok(r.label === "none" || /^[A-Z]\d+: /.test(r.label), `the label of ${r.edit} is explained: ${r.label}`);
    if (/PASS/.test(r.verdict) && /^[A-Z]\d+: a regression/.test(r.label)) assert.equal(r.gate, "missed", r.edit);
  }
  await page.goto(server.url + "regressions/R01/R01-edit-05-github-triage.html");
  assert.match(await page.textContent("dl.facts"), /Gate\s*missed: the recomputed verdict is not what the label calls for/);
  await context.close();
});

test("the pre-registered log shows its end as a rule, not as the raw marker", async () => {
  const context = await browser.newContext({ viewport: WIDTHS[1] });
  const page = await context.newPage();
  await page.goto(server.url + "experiments/E02.html");
  const log = await page.$eval("article.log", (a) => ({ text: a.textContent, rule: !!a.querySelector("hr.end-marker") }));
  assert.ok(log.rule);
  assert.ok(!log.text.includes("<!--"), "the marker's comment is not shown as text");
  await context.close();
});

// The publisher edits the page, not the record: a hypothesis's outcome is
// rewritten in the page's mark (its records, and so every digest, stay as
// they were). Verify passes, since the records hold, but writes the mark
// from what the browser recomputed, so the edit is gone where it is read.
test("a mark edited on the page is rewritten from the browser's recomputation", async () => {
  const forged = copySite(site);
  const file = join(forged, "experiments/E02.html");
  const html = readFileSync(file, "utf8");
  const mark = /(data-claim="(hypotheses\[H\d+\]\.outcome)" data-show="value" data-before="" data-after="">)✓ (accepted|rejected)</;
  const found = mark.exec(html);
  assert.ok(found, "E02's page shows a hypothesis outcome's mark");
  const [, opening, claim, shown] = found;
  const lie = shown === "accepted" ? "rejected" : "accepted";
  writeFileSync(file, html.replace(mark, `${opening}✓ ${lie}<`));
  const local = await serve(forged);
  try {
    const context = await browser.newContext({ viewport: WIDTHS[0] });
    const page = await context.newPage();
    await page.goto(local.url + "experiments/E02.html");
    const selector = `main [data-claim="${claim}"][data-show="value"]`;
    assert.equal(await page.textContent(selector), `✓ ${lie}`, "the forged page shows the lie before Verify");
    await page.click("#verify-run");
    await page.waitForFunction(() => document.querySelector("#verify-summary").dataset.status !== "running");
    assert.equal(await page.$eval("#verify-summary", (s) => s.dataset.status), "verified");
    assert.equal(await page.textContent(selector), `✓ ${shown}`, "the mark shows what the records recompute to");
    await context.close();
  } finally {
    await local.close();
  }
});
