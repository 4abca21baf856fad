// Shared set-up for the browser tests: the receipts binary, the built sample
// site (the run's shared one, or a fresh build in a temporary directory), and
// file helpers.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const RECEIPTS = process.env.RECEIPTS_BIN ?? join(REPO, "target/debug/receipts");

/** Runs the receipts command; returns stdout (a whole site's receipts as
 * JSON run to megabytes, past Node's default buffer). */
export function receipts(args, options = {}) {
  return execFileSync(RECEIPTS, args, { encoding: "utf8", maxBuffer: 1 << 28, ...options });
}

/** The temporary directories this test file made, removed when it exits:
 * each holds a built site, and a run of every file would otherwise leave
 * a gigabyte behind. */
const made = [];
process.on("exit", () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A new temporary directory whose name starts with `prefix`, removed when
 * the test file exits. */
export function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Where tests/browser/run.mjs put the sample sites it built for the
 * whole run, one folder per set of flags (`sample`, `sample--compress-records`). */
const SHARED = process.env.RECEIPTS_SAMPLE_SITES;

/** Where the shared sample site built with `flags` lives under `root`. */
export function sharedSample(flags = [], root = SHARED) {
  return join(root, `sample${flags.join("")}`, "site");
}

/** The shipped sample built with any further `build` flags; returns the
 * site's path. Under tests/browser/run.mjs the site is the one built for the
 * whole run, which no test may change (a test that changes a site changes a
 * `copySite`; the run fails if a shared site no longer verifies); run alone,
 * a test file builds its own into a new temporary directory. */
export function buildSample(flags = []) {
  if (SHARED && existsSync(join(sharedSample(flags), "SHA256SUMS"))) return sharedSample(flags);
  const dir = tempDir("receipts-browser-");
  receipts(["build", "--quiet", "--root", REPO, "--out", join(dir, "site"), ...flags]);
  return join(dir, "site");
}

/** The parts of the sample a small site is built from: one experiment (E01),
 * the tasks and objects it names, and the documents less the memos (which
 * cite the other experiments' figures). */
const SMALL_PARTS = ["experiments/E01", "experiments/tasks", "experiments/objects", "docs"];

/** Builds the small site into `dir`/site; returns the site's path. */
export function buildSmall(dir) {
  const project = join(dir, "project");
  for (const part of SMALL_PARTS) cpSync(join(REPO, part), join(project, part), { recursive: true });
  rmSync(join(project, "docs/memos"), { recursive: true });
  receipts(["build", "--quiet", "--root", project, "--out", join(dir, "site")]);
  return join(dir, "site");
}

/** Where the shared small site lives under `root`. */
export function sharedSmall(root = SHARED) {
  return join(root, "small", "site");
}

/** A small site: E01 and the documents, for tests whose checks do not depend
 * on the site's size (pins, zips, CORS, page edits), where each whole-site
 * verification of the full sample took seconds. Under run.mjs it is the
 * run's shared one, which no test may change. */
export function smallSample() {
  if (SHARED && existsSync(join(sharedSmall(), "SHA256SUMS"))) return sharedSmall();
  return buildSmall(tempDir("receipts-small-"));
}

/** Every file under `dir`, as paths relative to it with forward slashes. */
export function filesUnder(dir, base = dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path, base) : [relative(base, path).split("\\").join("/")];
  });
}

/** A copy of `site` in a new temporary directory. */
export function copySite(site) {
  const dir = tempDir("receipts-copy-");
  cpSync(site, join(dir, "site"), { recursive: true });
  return join(dir, "site");
}

/** A copy of `site` with the JSON record `rel` changed by `f`. */
export function tampered(site, rel, f) {
  const copy = copySite(site);
  const file = join(copy, rel);
  const record = JSON.parse(readFileSync(file, "utf8"));
  f(record);
  writeFileSync(file, JSON.stringify(record, null, 2) + "\n");
  return copy;
}

/** Changes one byte in the middle of `file`. */
export function flipAByte(file) {
  const bytes = readFileSync(file);
  const i = Math.floor(bytes.length / 2);
  bytes[i] = bytes[i] === 0x61 ? 0x62 : 0x61;
  writeFileSync(file, bytes);
}
