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

  // A zip file's entries (stored or deflated; no ZIP64), path → bytes. The
  // archive must read one way only, or it is refused: a tool that unpacks it
  // by its local headers, front to back, must find the very files verified
  // here from its central directory. So every byte before the directory
  // belongs to an entry it lists, in order; each local header names the file
  // and method its directory entry names; no name comes twice; and each
  // file's size and CRC-32 are the ones recorded.
  function unzip(bytes) {
    var entries;
    try {
      entries = zipEntries(bytes);
    } catch (e) {
      return Promise.reject(e);
    }
    return Promise.all(entries.map(function (e) {
      var data;
      if (e.method === 0) data = Promise.resolve(e.data);
      else if (e.method === 8) {
        var stream = new Blob([e.data]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
        data = new Response(stream).arrayBuffer().then(function (b) { return new Uint8Array(b); });
      } else throw new Error(e.name + ": compression method " + e.method + " is not supported");
      return data.then(function (bytes) {
        if (bytes.length !== e.size || crc32(bytes) !== e.crc) {
          throw new Error("a damaged zip file (" + e.name + ": its size or CRC-32 is not the one recorded)");
        }
        return [e.name, bytes];
      });
    })).then(function (pairs) {
      var files = {};
      pairs.forEach(function (p) { files[p[0]] = p[1]; });
      return files;
    });
  }

  // The files a zip's central directory lists, each held to its local
  // header, as above; throws when the zip is damaged or reads two ways.
  function zipEntries(bytes) {
    var view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    var u16 = function (at) { return view.getUint16(at, true); };
    var u32 = function (at) { return view.getUint32(at, true); };
    var damaged = function (what) { return new Error("a zip file that could be read two ways or is damaged: " + what); };
    var end = -1;
    for (var i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 65535); i--) {
      if (u32(i) === 0x06054b50) { end = i; break; }
    }
    if (end < 0) throw new Error("not a zip file (no end of central directory)");
    var count = u16(end + 10);
    var at = u32(end + 16);
    if (count === 0xffff || at === 0xffffffff) throw new Error("ZIP64 archives are not supported; zip the site without ZIP64");
    if (end + 22 + u16(end + 20) !== bytes.length) throw damaged("bytes follow the end of its central directory");
    if (u16(end + 4) !== 0 || u16(end + 6) !== 0 || u16(end + 8) !== count) throw damaged("it spans several disks");
    if (at + u32(end + 12) !== end) throw damaged("its central directory is not where its end says");
    var names = new TextDecoder("utf-8", { fatal: true });
    var seen = new Set();
    var entries = [];
    var spans = [];
    for (var n = 0; n < count; n++) {
      if (at + 46 > end || u32(at) !== 0x02014b50) throw damaged("central directory entry " + (n + 1));
      var flags = u16(at + 8);
      var method = u16(at + 10);
      var crc = u32(at + 16);
      var packed = u32(at + 20);
      var size = u32(at + 24);
      var nameLength = u16(at + 28);
      var local = u32(at + 42);
      var rawName = bytes.subarray(at + 46, at + 46 + nameLength);
      var name;
      try {
        name = names.decode(rawName);
      } catch (e) {
        throw damaged("central directory entry " + (n + 1) + " has a name that is not UTF-8");
      }
      at += 46 + nameLength + u16(at + 30) + u16(at + 32);
      if (at > end) throw damaged("central directory entry " + (n + 1));
      if (flags & 1) throw new Error(name + ": encrypted entries are not supported");
      if (seen.has(name)) throw damaged(name + " is listed twice");
      seen.add(name);
      if (local + 30 > end || u32(local) !== 0x04034b50) throw damaged(name + ": no local header where its directory entry points");
      var localName = bytes.subarray(local + 30, local + 30 + u16(local + 26));
      if (localName.length !== rawName.length || localName.some(function (b, k) { return b !== rawName[k]; })) {
        throw damaged(name + ": its local header names another file");
      }
      if (u16(local + 8) !== method || (u16(local + 6) & 8) !== (flags & 8)) throw damaged(name + ": its local header says another method");
      if (!(flags & 8) && (u32(local + 14) !== crc || u32(local + 18) !== packed || u32(local + 22) !== size)) {
        throw damaged(name + ": its local header says another size or CRC-32");
      }
      var start = local + 30 + u16(local + 26) + u16(local + 28);
      var stop = start + packed;
      if (flags & 8) {
        // A data descriptor follows the data, with or without its signature.
        var d = stop + 12 <= end && u32(stop) === 0x08074b50 ? stop + 4 : stop;
        if (d + 12 > end || u32(d) !== crc || u32(d + 4) !== packed || u32(d + 8) !== size) {
          throw damaged(name + ": its data descriptor says another size or CRC-32");
        }
        stop = d + 12;
      }
      if (stop > end) throw damaged(name + ": its data runs past the central directory");
      spans.push([local, stop, name]);
      if (!/\/$/.test(name)) entries.push({ name: name, method: method, crc: crc, size: size, data: bytes.subarray(start, start + packed) });
    }
    if (at !== end) throw damaged("its central directory holds more than its " + count + " entries");
    // The entries, by where they lie, cover every byte before the directory.
    spans.sort(function (a, b) { return a[0] - b[0]; });
    var next = 0;
    spans.forEach(function (s) {
      if (s[0] !== next) throw damaged("bytes " + next + " to " + s[0] + " belong to no entry its directory lists (before " + s[2] + ")");
      next = s[1];
    });
    if (next !== u32(end + 16)) throw damaged("bytes " + next + " to " + u32(end + 16) + " belong to no entry its directory lists");
    return entries;
  }

  // The CRC-32 (ISO 3309, as zip files record it) of some bytes.
  var CRC_TABLE = (function () {
    var table = new Uint32Array(256);
    for (var k = 0; k < 256; k++) {
      var c = k;
      for (var j = 0; j < 8; j++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[k] = c >>> 0;
    }
    return table;
  })();

  function crc32(bytes) {
    var c = 0xffffffff;
    for (var k = 0; k < bytes.length; k++) c = CRC_TABLE[(c ^ bytes[k]) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  }

  // Opened as index.html?site=…: verify at once.
  if (params.get("site")) form.requestSubmit();
})();
