// A static file server for the browser tests: serves a directory on
// 127.0.0.1 with the content types a site needs (.wasm as application/wasm),
// and refuses paths outside it.
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, resolve, sep } from "node:path";
import { gzipSync } from "node:zlib";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".csv": "text/csv; charset=utf-8",
  ".md": "text/markdown; charset=utf-8",
  ".svg": "image/svg+xml",
  // As GitHub Pages serves them: the gzip bytes, without Content-Encoding.
  ".gz": "application/gzip",
};

// What a static host compresses when the browser accepts it (GitHub Pages
// does these); a run record published gzipped is served as it is.
const COMPRESSED = new Set([".html", ".css", ".js", ".json", ".wasm", ".csv", ".md", ".svg"]);

/** Serves `dir` on a free port; resolves to { url, close }. With `cors`,
 * every answer allows any origin to read it, as GitHub Pages does; with
 * `log` (an array), each path asked for is pushed onto it; with `link`
 * (`{ bytesPerSecond, sent: [] }`, for benchmarks), answers are gzipped as
 * a static host sends them and share one link of that many bytes a second,
 * and each answer's size on the wire is pushed onto `link.sent` as
 * `[path, bytes]`. */
export function serve(dir, { cors = false, log = null, link = null } = {}) {
  const root = resolve(dir);
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
      if (log) log.push(path);
      let file = normalize(join(root, path));
      if (file !== root && !file.startsWith(root + sep)) {
        res.writeHead(403).end("outside the site");
        return;
      }
      if ((await stat(file)).isDirectory()) file = join(file, "index.html");
      const body = await readFile(file);
      const headers = { "content-type": TYPES[extname(file)] ?? "application/octet-stream" };
      if (cors) headers["access-control-allow-origin"] = "*";
      if (link) {
        await paced(req, res, path, file, body, headers, link);
        return;
      }
      res.writeHead(200, headers);
      res.end(body);
    } catch {
      res.writeHead(404).end("not found");
    }
  });
  return new Promise((ok) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      ok({ url: `http://127.0.0.1:${port}/`, close: () => new Promise((done) => server.close(done)) });
    });
  });
}

/** Sends `body` gzipped when the browser accepts it and the host would,
 * in slices over one link of `link.bytesPerSecond` that every answer shares:
 * a slice goes when the link is free, as on a reader's slow connection. */
async function paced(req, res, path, file, body, headers, link) {
  let wire = body;
  if (COMPRESSED.has(extname(file)) && /\bgzip\b/.test(req.headers["accept-encoding"] ?? "")) {
    wire = gzipSync(body, { level: 9 });
    headers["content-encoding"] = "gzip";
  }
  headers["content-length"] = String(wire.length);
  link.sent.push([path, wire.length]);
  res.writeHead(200, headers);
  const slice = Math.max(1, Math.round(link.bytesPerSecond / 100));
  for (let at = 0; at < wire.length; at += slice) {
    const bytes = wire.subarray(at, at + slice);
    // The link is busy until `link.free` (ms); this slice takes its turn.
    const start = Math.max(performance.now(), link.free ?? 0);
    link.free = start + (bytes.length / link.bytesPerSecond) * 1000;
    const wait = link.free - performance.now();
    if (wait > 0) await new Promise((ok) => setTimeout(ok, wait));
    res.write(bytes);
  }
  res.end();
}
