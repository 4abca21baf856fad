// Chromium driven over its DevTools protocol with the Runtime domain only,
// for timings (not for tests: it logs no console message or request). A
// driver such as Playwright watches every request the page and its workers
// make (the protocol's Network domain), which on a 2-core machine about
// doubles what fetching a site's 20,000 files costs; a reader's browser
// watches none.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";

import { CHROMIUM } from "./browser.mjs";

/** Starts Chromium on `url`; resolves, once the page has loaded, to
 * `{ evaluate(expression), close() }`: `evaluate` runs `expression` in the
 * page, awaits it when it is a promise, and resolves to its value (JSON). */
export async function openBare(url) {
  const profile = mkdtempSync(join(tmpdir(), "receipts-bare-"));
  const child = spawn(CHROMIUM, [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--remote-debugging-port=0", `--user-data-dir=${profile}`, url,
  ], { stdio: ["ignore", "ignore", "pipe"] });
  const close = async () => {
    child.kill();
    await new Promise((ok) => (child.exitCode !== null ? ok() : child.once("exit", ok)));
    rmSync(profile, { recursive: true, force: true });
  };
  try {
    const endpoint = await new Promise((ok, fail) => {
      let said = "";
      child.stderr.on("data", (d) => {
        said += d;
        const m = /DevTools listening on (ws:\/\/\S+)/.exec(said);
        if (m) ok(m[1]);
      });
      child.once("exit", (code) => fail(new Error(`${CHROMIUM} exited (${code}): ${said}`)));
    });
    const { host } = new URL(endpoint);
    const targets = await (await fetch(`http://${host}/json/list`)).json();
    const target = targets.find((t) => t.type === "page");
    if (!target) throw new Error(`no page among ${JSON.stringify(targets)}`);
    const ws = new WebSocket(target.webSocketDebuggerUrl, { perMessageDeflate: false, maxPayload: 1 << 30 });
    await new Promise((ok, fail) => { ws.once("open", ok); ws.once("error", fail); });
    let next = 0;
    const pending = new Map();
    ws.on("message", (data) => {
      const m = JSON.parse(data);
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (m.error) p.fail(new Error(m.error.message));
      else p.ok(m.result);
    });
    const send = (method, params) => new Promise((ok, fail) => {
      const id = ++next;
      pending.set(id, { ok, fail });
      ws.send(JSON.stringify({ id, method, params }));
    });
    const evaluate = async (expression) => {
      const r = await send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true });
      if (r.exceptionDetails) {
        throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
      }
      return r.result.value;
    };
    for (let waited = 0; ; waited += 50) {
      const ready = await evaluate(`location.href === ${JSON.stringify(url)} && document.readyState === "complete"`);
      if (ready) break;
      if (waited > 30_000) throw new Error(`${url} did not load`);
      await new Promise((ok) => setTimeout(ok, 50));
    }
    return {
      evaluate,
      close: async () => {
        ws.close();
        await close();
      },
    };
  } catch (e) {
    await close();
    throw e;
  }
}
