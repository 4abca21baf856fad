// Writes a Hugo site with one page per run of a receipts input, for the
// build-time comparison in scripts/bench: each page holds what a run page
// shows in Markdown (the run's facts and every turn), so the two tools build
// comparable pages from the same runs.
//   node scripts/hugo-site.mjs [--light] <receipts-input-dir> <hugo-site-dir>
// With --light, each page is the lightest a run could have instead: five
// paragraphs of its facts and a table of its first twelve turns, a floor
// for what any static generator does per run.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const args = process.argv.slice(2);
const light = args[0] === "--light";
const [input, out] = light ? args.slice(1) : args;
const layouts = join(out, "layouts", "_default");
mkdirSync(layouts, { recursive: true });
mkdirSync(join(out, "content", "runs"), { recursive: true });
writeFileSync(join(out, "hugo.toml"), 'baseURL = "/"\ntitle = "runs"\ndisableKinds = ["taxonomy", "term", "RSS", "sitemap"]\n');
const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{ .Title }}</title></head><body><main><h1>{{ .Title }}</h1>{{ .Content }}</main></body></html>\n`;
writeFileSync(join(layouts, "single.html"), page);
writeFileSync(join(layouts, "list.html"), `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{ .Title }}</title></head><body><main><h1>{{ .Title }}</h1><ul>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul></main></body></html>\n`);
let count = 0;
for (const exp of readdirSync(join(input, "experiments"))) {
  const runs = join(input, "experiments", exp, "runs");
  let files;
  try { files = readdirSync(runs); } catch { continue; }
  for (const file of files) {
    const run = JSON.parse(readFileSync(join(runs, file), "utf8"));
    const lines = [`---`, `title: "${run.id}"`, `---`, ``, `Task ${run.task}, profile ${run.profile}, seed ${run.seed}, policy ${run.policy}.`, ``];
    if (light) {
      writeFileSync(join(out, "content", "runs", `${run.id}.md`), lightPage(run, lines).join("\n"));
      count += 1;
      continue;
    }
    run.attempts.forEach((a, i) => {
      lines.push(`## Attempt ${i + 1}: ${a.tier}`, ``);
      a.turns.forEach((t) => {
        lines.push(`1. **${t.action.tool}** ${t.permission.decision}: ${t.permission.reason}`, "   ```json", "   " + JSON.stringify(t.action.args), "   ```", `   ${t.result.text ?? t.result.sha256 ?? ""}`);
      });
      lines.push(``, `| request | model | prompt | completion | latency |`, `| --- | --- | --- | --- | --- |`);
      a.calls.forEach((c) => lines.push(`| ${c.request_id} | ${c.model_requested} | ${c.usage?.prompt_tokens ?? "lost"} | ${c.usage?.completion_tokens ?? "lost"} | ${c.latency_ms} |`));
      lines.push(``, ...a.checks.map((c) => `- ${c.check}: ${c.passed ? "pass" : "fail"}, ${c.detail}`), ``);
    });
    writeFileSync(join(out, "content", "runs", `${run.id}.md`), lines.join("\n"));
    count += 1;
  }
}
console.log(`wrote ${count} pages`);

// Five paragraphs and a twelve-row table of turns.
function lightPage(run, lines) {
  const attempts = run.attempts;
  const last = attempts[attempts.length - 1];
  const calls = attempts.flatMap((a) => a.calls);
  const tokens = calls.reduce((sum, c) => sum + (c.usage?.prompt_tokens ?? 0) + (c.usage?.completion_tokens ?? 0), 0);
  const checks = attempts.flatMap((a) => a.checks);
  lines.push(
    `${attempts.length} attempt(s); the last on tier ${last.tier}.`, ``,
    `${calls.length} provider call(s), ${tokens} tokens in all.`, ``,
    `${checks.filter((c) => c.passed).length} of ${checks.length} checks passed.`, ``,
    `Outcome: ${run.outcome?.passed ? `passed on tier ${run.outcome.passed_tier}` : "failed"}.`, ``,
    `| # | tool | decision | reason |`, `| --- | --- | --- | --- |`,
  );
  attempts.flatMap((a) => a.turns).slice(0, 12).forEach((t, i) =>
    lines.push(`| ${i + 1} | ${t.action.tool} | ${t.permission.decision} | ${String(t.permission.reason).replaceAll("|", "\\|")} |`));
  return lines;
}
