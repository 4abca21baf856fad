// How fast `receipts serve` shows a changed run (a benchmark, not a test).
// Starts `receipts serve` on PROJECT, then REPEATS times appends a newline to
// one run record (still valid JSON, and a new record digest),
// and measures
//   - the rebuild time `receipts serve` reports for it ("rebuilt in N ms"), and
//   - the time from the write until the rebuild is done and the served run
//     page has new bytes (the watcher's 150 ms quiet period included).
// Prints one JSON object: { runs, rebuild_ms: [...], visible_ms: [...] }.
//   node scripts/serve-rebuild.mjs <receipts-binary> <project-dir> [repeats]
import { spawn } from "node:child_process";
import { appendFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";

const [bin, project, repeatsArg] = process.argv.slice(2);
const repeats = Number(repeatsArg ?? 5);
const experiment = readdirSync(join(project, "experiments")).find((d) => /^[A-Z]\d+$/.test(d));
const runsDir = join(project, "experiments", experiment, "runs");
const runFiles = readdirSync(runsDir).filter((f) => f.endsWith(".json")).sort();
const target = runFiles[Math.floor(runFiles.length / 2)];
const pagePath = `runs/${target.replace(/\.json$/, ".html")}`;

const server = spawn(bin, ["serve", "--port", "0", "--root", project, "--out", join(project, "site")], {
  stdio: ["ignore", "pipe", "pipe"],
});
const rebuilt = [];
let waiting = null;
createInterface({ input: server.stderr }).on("line", (line) => {
  const m = line.match(/rebuilt in (\d+) ms/);
  if (m) {
    rebuilt.push(Number(m[1]));
    if (waiting) waiting();
  }
});
const url = await new Promise((ok, fail) => {
  createInterface({ input: server.stdout }).on("line", (line) => {
    const m = line.match(/on (http:\/\/\S+)/);
    if (m) ok(m[1]);
  });
  server.on("exit", (code) => fail(new Error(`receipts serve exited with ${code}`)));
});
const fetchPage = async () => Buffer.from(await (await fetch(url + pagePath)).arrayBuffer());

const rebuildMs = [];
const visibleMs = [];
for (let i = 0; i < repeats; i++) {
  const before = await fetchPage();
  const count = rebuilt.length;
  const done = new Promise((ok) => { waiting = () => { if (rebuilt.length > count) ok(); }; });
  const t0 = performance.now();
  appendFileSync(join(runsDir, target), "\n");
  // Wait for the rebuild without polling the server, which would compete
  // with it for the CPU; then the page must have new bytes.
  await done;
  const now = await fetchPage();
  if (now.equals(before)) throw new Error("the page did not change after the rebuild");
  const seen = performance.now() - t0;
  visibleMs.push(Math.round(seen));
  rebuildMs.push(rebuilt[rebuilt.length - 1]);
  // Let the watcher settle before the next change.
  await new Promise((ok) => setTimeout(ok, 500));
}
server.kill("SIGINT");
console.log(JSON.stringify({ runs: runFiles.length, rebuild_ms: rebuildMs, visible_ms: visibleMs }));
