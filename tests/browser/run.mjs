// Runs the browser tests as scripts/test does: the sample site built once
// (plain, and with --compress-records) for every file that only reads it,
// with a small site (E01 and the documents) for the checks of any site,
// and the files two at a time (what this 2-core machine allows: a whole-site
// verification keeps more than one core busy). Each file starts its own
// Chromium: one browser shared by every file measured slower (BENCHMARKS.md,
// "The test suite"). Afterwards each shared site must still verify: a test
// that changed one instead of a copy fails the run.
//
//   node tests/browser/run.mjs [file.test.mjs ...]   (default: every file)
//
// RECEIPTS_BIN names the receipts binary, CHROMIUM and FIREFOX the browsers;
// RECEIPTS_BROWSER_CONCURRENCY the files run at once (default 2).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { REPO, buildSmall, receipts, sharedSample, sharedSmall, tempDir } from "./setup.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const files = process.argv.length > 2
  ? process.argv.slice(2)
  : readdirSync(here).filter((f) => f.endsWith(".test.mjs")).sort().map((f) => join(here, f));

const shared = tempDir("receipts-browser-sites-");
const sites = [[], ["--compress-records"]].map((flags) => {
  const site = sharedSample(flags, shared);
  receipts(["build", "--quiet", "--root", REPO, "--out", site, ...flags]);
  return site;
});
sites.push(buildSmall(dirname(sharedSmall(shared))));

const run = spawn(
  process.execPath,
  ["--test", `--test-concurrency=${process.env.RECEIPTS_BROWSER_CONCURRENCY ?? 2}`, ...files],
  { stdio: "inherit", env: { ...process.env, RECEIPTS_SAMPLE_SITES: shared } },
);
const [code] = await once(run, "exit");
let status = code ?? 1;

for (const site of sites) {
  try {
    receipts(["verify", site, "--quiet"], { stdio: "pipe" });
  } catch (e) {
    console.error(`a test changed the shared site ${site}, which every file reads:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
    status = 1;
  }
}
process.exit(status);
