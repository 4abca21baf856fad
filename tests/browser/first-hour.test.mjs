// A new user's first hour, walked end to end on a fresh tree: an Inspect AI
// log imported into an empty project, built and verified with no folder
// made by hand; an agent on the official `openai` Python SDK recorded twice
// against a local mock of the API as docs/RECORD-YOUR-AGENT.md says (the
// task's input added with `receipts add-input`, the second run a declared
// rerun), the mock answering the alias as its dated snapshot; the site
// previewed with `receipts serve` and Verify pressed on the index, the
// evaluation's page and a run page, which must say verified there as the
// same site served as plain files does (what serve adds to a page is not
// what the page check compares), and in Firefox on the rerun's page and
// the Verify page (the whole site, every page rendered again); a screenshot of each page at a
// phone's width and a laptop's, kept in test-output/first-hour/ (with
// RECEIPTS_SCREENSHOTS=docs, in docs/screenshots/); and the same project
// built with --compress-records, whose compact run page names each wire call
// in the replay it draws.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { promisify } from "node:util";

import { launch, open, verify, verifyAt } from "./browser.mjs";
import { serve } from "./server.mjs";
import { launchFirefox, verifyIn } from "./firefox.mjs";
import { REPO, RECEIPTS, receipts, tempDir } from "./setup.mjs";

const LOG = join(REPO, "tests/fixtures/inspect/scorers.eval");
const RUN = "brief-notes-default-s1-single";
const RERUN = `${RUN}-rerun`;
const PAGES = {
  index: "index.html",
  evaluation: "imports/quiz/scorers.html",
  experiment: "experiments/brief.html",
  run: `runs/${RUN}.html`,
  rerun: `runs/${RERUN}.html`,
  verify: "verify.html",
};
const PYTHON = process.env.RECEIPTS_TEST_PYTHON ?? join(REPO, "target/python-sdks/bin/python");
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

/** A mock of OpenAI's Chat Completions on 127.0.0.1 that answers the alias
 * `gpt-4o-mini` as its dated snapshot, as OpenAI does, each answer with its
 * own request id and usage, after 40 ms. */
async function mockOpenAI() {
  let n = 0;
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => { body += c; });
    req.on("end", () => {
      n += 1;
      const asked = JSON.parse(body || "{}");
      const answer = {
        id: `chatcmpl-mock-${n}`,
        object: "chat.completion",
        created: 1764979200 + n,
        model: asked.model === "gpt-4o-mini" ? "gpt-4o-mini-2024-07-18" : asked.model,
        choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "The release ships on Friday once QA signs off." } }],
        usage: { prompt_tokens: 40 + n, completion_tokens: 12, total_tokens: 52 + n },
      };
      // No faster than a provider: the verifier holds a call's tokens per
      // second to what one could serve.
      setTimeout(() => {
        res.writeHead(200, { "content-type": "application/json", "x-request-id": `req_mock_${n}` });
        res.end(JSON.stringify(answer));
      }, 40);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

const NOTES = "# Release notes\n\nThe release ships on Friday once QA signs off.\n";

/** The agent: reads the task's input, asks the model through the official
 * SDK (which reads OPENAI_BASE_URL, set by the recorder), writes its brief
 * with its keys in its own order. */
const AGENT = `
import json
from openai import OpenAI
notes = open("notes.md").read()
reply = OpenAI(api_key="sk-first-hour").chat.completions.create(
    model="gpt-4o-mini", max_tokens=64,
    messages=[{"role": "user", "content": "When does the release ship? Quote the notes.\\n" + notes}])
quote = reply.choices[0].message.content
with open("brief.json", "w") as f:
    json.dump({"summary": quote, "items": [{"topic": "ship date", "quote": quote, "source": "notes.md"}]}, f)
`;

test("an agent on the openai SDK recorded twice, the second as the docs say, builds and verifies", async () => {
  assert.ok(existsSync(PYTHON), `the test needs Python with the openai SDK at ${PYTHON} (scripts/test installs it)`);
  const experiment = join(project, "experiments/brief");
  mkdirSync(experiment, { recursive: true });
  mkdirSync(join(project, "experiments/tasks"), { recursive: true });
  writeFileSync(join(experiment, "experiment.json"), JSON.stringify({
    format_version: 1, kind: "experiment", id: "brief", title: "My agent on the release notes",
    provenance: "recorded", question: "Does my agent quote the release date exactly?",
    grid: { tasks: ["notes"], profiles: ["default"], seeds: [1], policies: ["single"], runs_per_cell: 1 },
    tiers: [{ id: "main", label: "GPT-4o mini", model: "gpt-4o-mini" }],
    policies: [{ id: "single", label: "GPT-4o mini", kind: "single", tiers: ["main"] }],
    prices: { version: "2026-12", currency: "USD", models: { "gpt-4o-mini": { input_per_mtok: 0.15, output_per_mtok: 0.6 } } },
    limits: { max_turns: 30, max_run_ms: 600000, max_output_tokens: 4096 },
    hypotheses: [],
  }, null, 2));
  writeFileSync(join(project, "experiments/tasks/notes.json"), JSON.stringify({
    format_version: 1, kind: "task", id: "notes", title: "The ship date, quoted", family: "document-research",
    prompt: "Write brief.json: when the release ships, with an exact quote from notes.md.",
    inputs: [], artifact: { path: "brief.json", media_type: "application/json" },
    checks: [
      { kind: "exact-quotes", id: "quotes-exact" },
      { kind: "required-items", id: "ship-date", items: [{ id: "friday", phrase: "ships on Friday" }] },
      { kind: "inputs-unchanged", id: "inputs-unchanged" },
    ],
  }, null, 2));
  const work = tempDir("receipts-agent-");
  writeFileSync(join(work, "notes.md"), NOTES);
  writeFileSync(join(work, "agent.py"), AGENT);
  receipts(["add-input", join(work, "notes.md"), "--task", "notes", "--role", "approved-source"], { cwd: project });
  const task = JSON.parse(readFileSync(join(project, "experiments/tasks/notes.json"), "utf8"));
  assert.equal(task.inputs.length, 1);
  assert.ok(existsSync(join(project, "experiments/objects", task.inputs[0].sha256)), "the input is kept by digest");

  const mock = await mockOpenAI();
  try {
    const into = join(project, "experiments/brief");
    // Not execFileSync: the mock answers from this process's event loop.
    const record = async (extra) => {
      const args = ["record", "--into", into, "--upstream", mock.url, ...extra, "--", PYTHON, "agent.py"];
      try {
        return (await promisify(execFile)(RECEIPTS, args, { cwd: work, encoding: "utf8" })).stdout;
      } catch (e) {
        throw new Error(`receipts ${args.join(" ")}:\n${e.stdout}${e.stderr}`);
      }
    };
    const first = await record([]);
    assert.match(first, new RegExp(`recorded .* as .*${RUN}\\.json: 1 provider calls?, .*; (\\d+) receipts, \\1 pass, 0 fail, 0 could not be checked`), first);
    const second = await record(["--rerun-of", RUN, "--reason", "The notes changed after the first run."]);
    assert.match(second, new RegExp(`${RERUN}\\.json`), second);
  } finally {
    await mock.close();
  }
  const built = receipts(["build"], { cwd: project });
  assert.match(built, /^built site: 1 experiment \(2 runs\), 1 evaluation \(\d+ samples\),/, built);
  receipts(["verify", "site"], { cwd: project });
  const page = readFileSync(join(project, "site", PAGES.run), "utf8");
  assert.ok(page.includes("a dated snapshot of the alias"), "the dated id is shown, not flagged");
  assert.ok(!page.includes("a call no turn names"), "the wire call is named");
});

test("under receipts serve, Verify on the index, the evaluation and a run says verified, as on a plain host", async () => {
  const server = await serveProject(project);
  try {
    for (const path of [PAGES.index, PAGES.evaluation, PAGES.run]) {
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

test("Firefox, under receipts serve, verifies the recorded run and the whole site, pages included", async () => {
  const server = await serveProject(project);
  const firefox = await launchFirefox();
  try {
    for (const path of [PAGES.rerun, PAGES.verify]) {
      const { status, errors } = await verifyIn(firefox, server.url + path);
      assert.deepEqual(errors, [], path);
      assert.equal(status[0], "verified", `${path}: ${status[1]}`);
    }
  } finally {
    await firefox.close();
    await server.close();
  }
});

test("built with --compress-records, the recorded run's replay names each wire call and the page verifies", async () => {
  const out = tempDir("receipts-first-hour-compact-");
  receipts(["build", "--compress-records", "--out", out], { cwd: project });
  const html = readFileSync(join(out, PAGES.run), "utf8");
  assert.ok(html.includes('id="replay"') && html.includes("data-call-names="), "a compact page naming its calls");
  const server = await serve(out);
  try {
    const { page, problems } = await open(browser, server.url + PAGES.run);
    await page.waitForSelector("#replay[data-status=ready]");
    const text = await page.evaluate(() => document.getElementById("replay").textContent);
    assert.ok(text.includes("chat completion 1 (gpt-4o-mini)"), text.slice(0, 2000));
    assert.ok(!text.includes("a call no turn names"), "no wire call left unnamed");
    const result = await verify(page);
    await page.close();
    assert.deepEqual(problems, []);
    assert.equal(result.status, "verified", `${result.text}\n${result.failures.join("\n")}`);
  } finally {
    await server.close();
  }
});
