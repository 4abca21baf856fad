// The standalone verifier: checks a receipts site from its address (fetched
// as data, with CORS), or from a folder or zip file of it, or an exported
// report, with this verifier's own WebAssembly and worker (engine.js). No
// code of the site runs: its files are hashed and parsed, never executed.
(function () {
  "use strict";

  var engine = window.RECEIPTS_ENGINE;
  var summary = document.getElementById("verify-summary");
  var results = document.getElementById("verify-results");
  var progress = document.getElementById("verify-progress");
  var form = document.getElementById("verify-form");
  var urlInput = document.getElementById("site-url");
  var pinInput = document.getElementById("site-pin");
  var folderInput = document.getElementById("site-folder");
  // Not in the HTML standard, so set here rather than in the markup: the
  // picker then takes a folder.
  folderInput.webkitdirectory = true;
  var zipInput = document.getElementById("site-zip");
  var reportInput = document.getElementById("report-file");
  // Files picked from disk are read under this made-up address.
  var PICKED = "https://picked.invalid/";

  function fail(message) {
    progress.hidden = true;
    ReceiptsView.setStatus(summary, "error", 0, 0, "Could not verify: " + message);
  }

  if (!engine || !window.Worker || !window.WebAssembly) {
    fail("this browser cannot run the verifier (it needs Web Workers and WebAssembly with SIMD)");
    return;
  }

  var params = new URLSearchParams(window.location.search);
  if (params.get("site")) {
    urlInput.value = params.get("site");
  } else if (/^https?:$/.test(window.location.protocol) && /\/verifier\/(index\.html)?$/.test(window.location.pathname)) {
    // The copy a site carries under verifier/: the site is the folder above.
    urlInput.value = new URL("../", window.location.href).href;
  }
  var pinned = ReceiptsView.pinIn(window.location);
  if (pinned !== null) pinInput.value = pinned;

  function decodeBase64(text) {
    var binary = atob(text);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }
  var wasmBytes = decodeBase64(engine.wasm);
  // The page check's WebAssembly: decoded when a site is first verified.
  var renderBytes = null;
  var worker = new Worker(URL.createObjectURL(new Blob([engine.worker], { type: "text/javascript" })));

  function run(job) {
    progress.hidden = false;
    progress.value = 0;
    ReceiptsView.setStatus(summary, "running", 0, 0, "Verifying…");
    job.wasmBytes = wasmBytes;
    if (job.type === "site") {
      if (!renderBytes) renderBytes = decodeBase64(engine.render_wasm);
      job.render = { bytes: renderBytes };
    }
    worker.onmessage = function (event) {
      var m = event.data;
      if (m.type === "progress") {
        ReceiptsView.progress(summary, progress, m);
      } else if (m.type === "result") {
        progress.hidden = true;
        ReceiptsView.show(summary, results, m.result);
      } else if (m.type === "error") {
        fail(m.message);
      }
    };
    worker.onerror = function (e) { fail(e.message || "the worker stopped"); };
    worker.postMessage(job);
  }

  // engine.js as this verifier's version writes it: one line, the engine
  // as JSON (serde_json and JSON.stringify write it alike), so its digest
  // can be taken here and a site's copy held to it.
  function engineText() {
    return "var RECEIPTS_ENGINE = " + JSON.stringify(engine) + ";\n";
  }

  // The code a site of this version carries, path → SHA-256: its assets and
  // this verifier's files under verifier/ (engine.js and the manifest by the
  // worker, which hashes them).
  function shippedCode() {
    var code = { digests: {}, engine: engineText() };
    Object.keys(engine.assets).forEach(function (p) { code.digests[p] = engine.assets[p]; });
    Object.keys(engine.verifier).forEach(function (p) { code.digests[p] = engine.verifier[p]; });
    return code;
  }

  function pin() {
    var value = pinInput.value.trim();
    return value === "" ? null : value;
  }

  function siteJob(base, source) {
    return {
      type: "site",
      base: base,
      source: source || null,
      scope: { scope: "all" },
      files: null,
      gzipped: null,
      page: null,
      shownRoot: null,
      pin: null,
      expectRoot: pin(),
      shipped: { version: engine.version, code: shippedCode() }
    };
  }

  // The site's root: the address given, without a page name at its end.
  function siteBase(text) {
    var url = new URL(text, window.location.href);
    if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error("the site address must be http or https");
    url.search = "";
    url.hash = "";
    if (!/\/$/.test(url.pathname)) url.pathname = url.pathname.replace(/[^/]*$/, "");
    return url.href;
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    try {
      run(siteJob(siteBase(urlInput.value)));
    } catch (e) {
      fail(e.message);
    }
  });

  // Files picked from disk, by their path relative to the site's root: the
  // folder holding the root manifest SHA256SUMS (and statement.intoto.json).
  function rooted(files) {
    var roots = Object.keys(files).filter(function (p) {
      return /(^|\/)SHA256SUMS$/.test(p) && (p.slice(0, -10) + "statement.intoto.json") in files;
    }).map(function (p) { return p.slice(0, -10); });
    if (!roots.length) throw new Error("no SHA256SUMS beside a statement.intoto.json among the files: not a site receipts built");
    roots.sort(function (a, b) { return a.length - b.length; });
    var prefix = roots[0];
    var out = {};
    Object.keys(files).forEach(function (p) {
      if (p.indexOf(prefix) === 0) out[p.slice(prefix.length)] = files[p];
    });
    return out;
  }

  function readAll(list) {
    return Promise.all(Array.prototype.map.call(list, function (file) {
      return file.arrayBuffer().then(function (b) {
        return [file.webkitRelativePath || file.name, new Uint8Array(b)];
      });
    })).then(function (pairs) {
      var files = {};
      pairs.forEach(function (p) { files[p[0]] = p[1]; });
      return files;
    });
  }

  function verifyPicked(promise) {
    ReceiptsView.setStatus(summary, "running", 0, 0, "Reading the files…");
    promise.then(function (files) {
      run(siteJob(PICKED, rooted(files)));
    }).catch(function (e) { fail(e.message); });
  }

  folderInput.addEventListener("change", function () {
    if (folderInput.files.length) verifyPicked(readAll(folderInput.files));
  });
  zipInput.addEventListener("change", function () {
    if (zipInput.files.length) {
      verifyPicked(zipInput.files[0].arrayBuffer().then(function (b) { return unzip(new Uint8Array(b)); }));
    }
  });
  reportInput.addEventListener("change", function () {
    if (!reportInput.files.length) return;
    reportInput.files[0].text().then(function (content) {
      var base = null;
      if (urlInput.value.trim()) base = siteBase(urlInput.value.trim());
      run({ type: "report", text: content, expectRoot: pin(), base: base });
    }).catch(function (e) { fail(e.message); });
  });

  // A zip file's entries (stored or deflated; no ZIP64), path → bytes.
  function unzip(bytes) {
    var view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    var end = -1;
    for (var i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 65535); i--) {
      if (view.getUint32(i, true) === 0x06054b50) { end = i; break; }
    }
    if (end < 0) return Promise.reject(new Error("not a zip file (no end of central directory)"));
    var count = view.getUint16(end + 10, true);
    var at = view.getUint32(end + 16, true);
    if (count === 0xffff || at === 0xffffffff) return Promise.reject(new Error("ZIP64 archives are not supported; zip the site without ZIP64"));
    var entries = [];
    for (var n = 0; n < count; n++) {
      if (at + 46 > bytes.length || view.getUint32(at, true) !== 0x02014b50) return Promise.reject(new Error("a damaged zip file (central directory entry " + n + ")"));
      var method = view.getUint16(at + 10, true);
      var size = view.getUint32(at + 20, true);
      var nameLength = view.getUint16(at + 28, true);
      var extra = view.getUint16(at + 30, true);
      var comment = view.getUint16(at + 32, true);
      var local = view.getUint32(at + 42, true);
      var name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
      at += 46 + nameLength + extra + comment;
      if (/\/$/.test(name)) continue;
      if (local + 30 > bytes.length || view.getUint32(local, true) !== 0x04034b50) return Promise.reject(new Error("a damaged zip file (" + name + ")"));
      var start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
      entries.push({ name: name, method: method, data: bytes.subarray(start, start + size) });
    }
    return Promise.all(entries.map(function (e) {
      if (e.method === 0) return [e.name, e.data];
      if (e.method !== 8) throw new Error(e.name + ": compression method " + e.method + " is not supported");
      var stream = new Blob([e.data]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
      return new Response(stream).arrayBuffer().then(function (b) { return [e.name, new Uint8Array(b)]; });
    })).then(function (pairs) {
      var files = {};
      pairs.forEach(function (p) { files[p[0]] = p[1]; });
      return files;
    });
  }

  // Opened as index.html?site=…: verify at once.
  if (params.get("site")) form.requestSubmit();
})();
