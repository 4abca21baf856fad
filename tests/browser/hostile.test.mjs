// Untrusted text stays inert: a site built from runs whose untrusted fields
// hold a corpus of hostile strings runs none of them, loads nothing they
// name, and still shows them as text. Pages are checked with the page's CSP
// bypassed, so escaping alone must hold; and once more with the CSP.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";

import { OUTCOMES, launch } from "./browser.mjs";
import { payloads } from "./payloads.mjs";
import { serve } from "./server.mjs";
import { REPO, receipts, tempDir } from "./setup.mjs";

const P = payloads();
const HARNESS_RUN = "H01-sim-agent-careful-s2";
const EDIT = "R01-edit-09-reporting";
const pick = (i) => P[i % P.length];
let browser, server, root;

function editJson(path, f) {
  const value = JSON.parse(readFileSync(path, "utf8"));
  f(value);
  writeFileSync(path, JSON.stringify(value, null, 2) + "\n");
}

before(async () => {
  assert.ok(P.length >= 50, `${P.length} payloads`);
  root = tempDir("receipts-hostile-");
  for (const sub of ["experiments", "showcase", "docs"]) cpSync(join(REPO, sub), join(root, sub), { recursive: true });
  const e = join(root, "experiments");
  let k = 0;
  // A run: every free-text field, the model echoed, request ids, check details.
  editJson(join(e, "E04/runs/E04-release-brief-fast-s2-ladder.json"), (run) => {
    for (const a of run.attempts) {
      a.end.message = pick(k++);
      for (const c of a.calls) {
        const id = pick(k++);
        for (const t of a.turns) if (t.call === c.request_id) t.call = id;
        c.request_id = id;
        c.model_echoed = pick(k++);
      }
      for (const t of a.turns) {
        t.action.args = { payload: pick(k++), nested: [pick(k++)] };
        t.permission.reason = pick(k++);
        t.result.text = pick(k++);
      }
      for (const c of a.checks) c.detail = pick(k++);
    }
  });
  // An artifact whose cells are payloads (a CSV shown as a table), stored by digest.
  const csv = "id,customer,amount_cents,status\n" + P.map((p, i) => `INV-${i},"${p.replaceAll('"', '""')}",1,ok`).join("\n") + "\n";
  const digest = createHash("sha256").update(csv).digest("hex");
  writeFileSync(join(e, "objects", digest), csv);
  editJson(join(e, "E01/runs/E01-invoice-cleanup-careful-s1-always-large.json"), (run) => {
    const a = run.attempts.find((x) => x.artifact);
    a.artifact.sha256 = digest;
    a.artifact.bytes = Buffer.byteLength(csv);
  });
  // The experiment, task, summary and showcase texts, and a Markdown document.
  editJson(join(e, "E01/experiment.json"), (x) => {
    x.title = pick(k++);
    x.question = pick(k++);
    x.tiers.forEach((t) => { t.label = pick(k++); });
    x.policies.forEach((p) => { p.label = pick(k++); });
    x.hypotheses.forEach((h) => { h.statement = pick(k++); });
  });
  editJson(join(e, "tasks/release-brief.json"), (t) => { t.title = pick(k++); t.prompt = pick(k++); });
  editJson(join(e, "E02/summary.json"), (s) => {
    s.headline = pick(k++);
    s.corrections.forEach((c) => { c.reason = pick(k++); });
    s.secondary.forEach((x) => { x.label = pick(k++); x.description = pick(k++); });
  });
  // A harness suite and run: the title, the agent, tool names, arguments and
  // errors, host names and snapshot labels.
  editJson(join(e, "harness/H01/harness.json"), (x) => { x.title = pick(k++); });
  editJson(join(e, `harness/H01/runs/${HARNESS_RUN}.json`), (run) => {
    run.agent = pick(k++);
    for (const ev of run.events) {
      if (ev.event === "tool_call") {
        ev.tool = pick(k++);
        ev.args = { payload: pick(k++) };
        ev.ok = false;
        ev.error = pick(k++);
      }
      if (ev.event === "egress") ev.host = pick(k++);
      if (ev.event === "snapshot") ev.label = pick(k++);
    }
  });
  // A skill edit: the judges' reasons, the side effects' arguments, the
  // drift evidence's source and claim, and the skill's own text.
  editJson(join(e, `regressions/R01/edits/${EDIT}.json`), (edit) => {
    for (const r of edit.replays) {
      for (const t of [r.golden, r.replay, r.control].filter(Boolean)) {
        for (const s of t.side_effects) s.args = { payload: pick(k++) };
      }
      for (const j of r.judges) j.rationale = pick(k++);
      if (r.drift) { r.drift.source = pick(k++); r.drift.claim = pick(k++); }
    }
    const skill = Buffer.from("# Hostile skill\n" + P.join("\n") + "\n");
    const digest = createHash("sha256").update(skill).digest("hex");
    writeFileSync(join(e, "objects", digest), skill);
    edit.skill.after_sha256 = digest;
  });
  editJson(join(root, "showcase/showcase.json"), (s) => { s.title = pick(k++); s.runs.forEach((r) => { r.note = pick(k++); }); });
  writeFileSync(join(root, "showcase/NARRATIVE.md"), "# Narrative\n\n" + P.join("\n\n") + "\n");
  writeFileSync(join(root, "docs/HOSTILE.md"), "# Hostile document\n\n" + P.map((p) => `- ${p}`).join("\n") + "\n\n" + P.join("\n\n") + "\n");
  receipts(["build", "--quiet", "--root", root, "--out", join(root, "site")]);
  server = await serve(join(root, "site"));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const PAGES = [
  "index.html",
  "experiments/E01.html",
  "experiments/E02.html",
  "runs/index.html",
  "runs/E04-release-brief-fast-s2-ladder.html",
  "runs/E01-invoice-cleanup-careful-s1-always-large.html",
  "compare.html?a=E04-release-brief-fast-s2-ladder&b=E01-release-brief-careful-s1-always-large",
  "showcase.html",
  "documents.html",
  "docs/HOSTILE.html",
  "harness/H01.html",
  `harness/H01/${HARNESS_RUN}.html`,
  "regressions/R01.html",
  `regressions/R01/${EDIT}.html`,
];

for (const bypassCSP of [true, false]) {
  test(`no payload runs or loads anything${bypassCSP ? " (escaping alone, CSP bypassed)" : " (with the CSP)"}`, async () => {
    for (const path of PAGES) {
      const context = await browser.newContext({ bypassCSP });
      const page = await context.newPage();
      const requests = [];
      page.on("request", (r) => { if (r.url().includes("/pwned")) requests.push(r.url()); });
      page.on("dialog", (d) => { requests.push(`dialog: ${d.message()}`); d.dismiss(); });
      await page.goto(server.url + path, { waitUntil: "networkidle" });
      if (path.startsWith("runs/E01-release") || path.startsWith("harness/H01/") || path.startsWith("regressions/R01/")) {
        // The verifier shows failing receipts, recorded details included.
        await page.click("#verify-run");
        await page.waitForFunction((outcomes) => outcomes.includes(document.querySelector("#verify-summary").dataset.status), OUTCOMES);
      }
      if (path.startsWith("compare")) await page.waitForSelector("#compare[data-status]");
      await page.mouse.move(200, 300);
      await page.waitForTimeout(100);
      const pwned = await page.evaluate(() => window.__pwned ?? null);
      assert.equal(pwned, null, `${path}: payload ${pwned} ran`);
      assert.deepEqual(requests, [], `${path}: a payload loaded something`);
      const scripts = await page.$$eval("script", (s) => s.map((x) => x.getAttribute("src") ?? "inline"));
      assert.ok(scripts.every((s) => s !== "inline"), `${path}: an inline script appeared: ${scripts}`);
      await context.close();
    }
  });
}

test("the payloads are still visible as text", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(server.url + "docs/HOSTILE.html");
  const doc = await page.textContent("main");
  assert.ok(doc.includes("<script>window.__pwned=1</script>"), "a script tag is shown as text");
  assert.ok(doc.includes("{{ 7*7 }}"), "template syntax is shown as text, not evaluated");
  await page.goto(server.url + "runs/E01-invoice-cleanup-careful-s1-always-large.html");
  const run = await page.textContent("main");
  assert.ok(run.includes(`<img src=x onerror="window.__pwned=3">`), "a CSV cell is shown as text");
  await page.goto(server.url + "runs/E04-release-brief-fast-s2-ladder.html");
  const replay = await page.textContent("main");
  const shown = P.filter((p) => replay.includes(p.trim())).length;
  assert.ok(shown >= 20, `only ${shown} payloads appear as text on the replay page`);
  await page.goto(server.url + `harness/H01/${HARNESS_RUN}.html`);
  const report = await page.textContent("main");
  const inReport = P.filter((p) => report.includes(p.trim())).length;
  assert.ok(inReport >= 10, `only ${inReport} payloads appear as text on the harness report page`);
  await page.goto(server.url + `regressions/R01/${EDIT}.html`);
  const verdict = await page.textContent("main");
  const onVerdict = P.filter((p) => verdict.includes(p.trim())).length;
  assert.ok(onVerdict >= 10, `only ${onVerdict} payloads appear as text on the verdict page`);
  await context.close();
});
