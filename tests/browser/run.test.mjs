// tests/browser/run.mjs shares one built sample between the files that only
// read it; a file that changes it in place instead of a copy must fail the
// run, even though its own test passes.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

test("a test that changes the shared sample site in place fails the run", () => {
  // Without NODE_TEST_CONTEXT, which makes the inner test runner skip its files.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const run = spawnSync(process.execPath, [join(here, "run.mjs"), join(here, "fixtures/changes-shared-site.mjs")], {
    encoding: "utf8",
    env: { ...env, RECEIPTS_BROWSER_CONCURRENCY: "1" },
  });
  const output = run.stdout + run.stderr;
  assert.match(output, /^# pass 1$/m, "the forging file's own test passes");
  assert.match(output, /a test changed the shared site \S+sample\/site, which every file reads/, output);
  assert.equal(run.status, 1, output);
});
