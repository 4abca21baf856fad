// A static file server for the browser tests: serves a directory on
// 127.0.0.1 with the content types a site needs (.wasm as application/wasm),
// and refuses paths outside it.
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, resolve, sep } from "node:path";

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

/** Serves `dir` on a free port; resolves to { url, close }. With `cors`,
 * every answer allows any origin to read it, as GitHub Pages does; with
 * `log` (an array), each path asked for is pushed onto it. */
export function serve(dir, { cors = false, log = null } = {}) {
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
