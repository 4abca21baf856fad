// The verification worker. The wasm-bindgen glue (`wasm_bindgen`) is
// prepended to this file when the page starts the worker.
/* global wasm_bindgen */
"use strict";

var ready = null;
function init(url, integrity) {
  if (!ready) {
    // Streaming compilation: the Response goes to WebAssembly.instantiateStreaming.
    ready = wasm_bindgen({ module_or_path: fetch(url, { integrity: integrity }) });
  }
  return ready;
}

function get(url) {
  return fetch(url, { cache: "no-store" }).then(function (r) {
    if (!r.ok) throw new Error(r.status + " " + r.statusText + " for " + url);
    return r.arrayBuffer();
  }).then(function (b) { return new Uint8Array(b); });
}

// A record published gzipped (`receipts build --compress-records`) is
// `<record>.json.gz`; the verifier reads the record it holds.
var GZ = ".gz";
function gunzip(bytes) {
  if (typeof DecompressionStream === "undefined") {
    return Promise.reject(new Error("this browser cannot decompress gzip (no DecompressionStream)"));
  }
  var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Response(stream).arrayBuffer().then(function (b) { return new Uint8Array(b); });
}

// Hands a fetched data/ file to the bundle under its record's path, the
// record inside it when it is gzipped; `then(path, bytes)` sees the record.
function addRecord(bundle, path, bytes, then) {
  if (path.slice(-GZ.length) !== GZ) {
    bundle.add(path.slice(5), bytes);
    if (then) then(path, bytes);
    return null;
  }
  return gunzip(bytes).then(function (record) {
    bundle.add(path.slice(5, -GZ.length), record);
    if (then) then(path, record);
  });
}

function receipt(subject, claim, recorded, recomputed, pass) {
  return { subject: subject, claim: claim, status: pass ? "pass" : "fail", recorded: recorded, recomputed: recomputed };
}

function tally(receipts) {
  var t = { pass: 0, fail: 0, could_not_check: 0 };
  receipts.forEach(function (r) { t[r.status] += 1; });
  return t;
}

// Fetches `paths` with a few requests in flight, calling `each(path, bytes)` in order of arrival.
function fetchAll(base, paths, each, onProgress) {
  var next = 0, done = 0, inFlight = 4;
  return new Promise(function (resolve, reject) {
    if (!paths.length) return resolve();
    function start() {
      if (next >= paths.length) return;
      var path = paths[next++];
      get(new URL(path, base).href).then(function (bytes) {
        return each(path, bytes);
      }, function () {
        return each(path, null);
      }).then(function () {
        done += 1;
        onProgress(done, paths.length);
        if (done === paths.length) resolve(); else start();
      }).catch(reject);
    }
    for (var i = 0; i < inFlight; i++) start();
  });
}

// Progress goes to the page at most every 50 ms (and at the end): a message
// per file would queue thousands of tasks on the page's main thread.
var lastProgress = 0;
function progress(done, total) {
  var now = Date.now();
  if (done === total || now - lastProgress >= 50) {
    lastProgress = now;
    postMessage({ type: "progress", done: done, total: total });
  }
}

function verifySite(job) {
  var receipts = [];
  var bundle = new wasm_bindgen.Bundle();
  var result = {};
  return get(new URL("SHA256SUMS", job.base).href).then(function (sumsBytes) {
    var sumsText = new TextDecoder().decode(sumsBytes);
    result.root_digest = wasm_bindgen.sha256_hex(sumsBytes);
    if (job.expectRoot) {
      receipts.push(receipt("SHA256SUMS", "root digest", job.expectRoot, result.root_digest, job.expectRoot === result.root_digest));
    }
    var sums = JSON.parse(wasm_bindgen.parse_sums(sumsText));
    var s = job.scope;
    var paths = job.files ? job.files.slice() : Object.keys(sums).filter(function (p) {
      if (s.scope === "all") return true;
      if (s.scope !== "experiment") return false;
      // One experiment: its records, the tasks and the objects.
      return p.indexOf("data/" + s.experiment + "/") === 0 || p.indexOf("data/tasks/") === 0 || p.indexOf("data/objects/") === 0;
    });
    ["data/SHA256SUMS", job.page, job.pin && job.pin.path].forEach(function (p) {
      if (p && paths.indexOf(p) < 0) paths.push(p);
    });
    paths.sort();
    return fetchAll(job.base, paths, function (path, bytes) {
      var listed = sums[path];
      if (bytes === null) {
        receipts.push(receipt(path, "SHA-256 in SHA256SUMS", listed || "not listed", "the file could not be fetched", false));
        return;
      }
      var actual = wasm_bindgen.sha256_hex(bytes);
      receipts.push(receipt(path, "SHA-256 in SHA256SUMS", listed || "not listed", actual, listed === actual));
      // The page states a digest: of the file, or of the record a gzipped file holds.
      function pinned(p, b) {
        if (!job.pin || p !== job.pin.path) return;
        var digest = b === bytes ? actual : wasm_bindgen.sha256_hex(b);
        receipts.push(receipt(p, "digest shown on the page", job.pin.digest, digest, digest === job.pin.digest));
      }
      if (path.indexOf("data/") !== 0 || path === "data/SHA256SUMS") {
        pinned(path, bytes);
        return null;
      }
      var added = addRecord(bundle, path, bytes, pinned);
      return added && added.catch(function (e) {
        receipts.push(receipt(path, "a gzip file", "a record, gzipped", e.message, false));
      });
    }, function (done, total) {
      progress(done, total);
    });
  }).then(function () {
    var recomputed = JSON.parse(bundle.verify(JSON.stringify(job.scope)));
    recomputed.receipts.forEach(function (r) {
      r.subject = "data/" + r.subject;
      receipts.push(r);
    });
    result.receipts = receipts;
    result.tally = tally(receipts);
    return forPage(result);
  });
}

// What the page shows: the tally, every receipt that did not pass, and all
// receipts only when there are few. Copying a site's hundred thousand
// receipts to the page would hold its main thread for most of a second.
var SHOW_ALL = 500;
function forPage(result) {
  var all = result.receipts;
  result.count = all.length;
  result.not_passing = all.filter(function (r) { return r.status !== "pass"; });
  result.receipts = all.length <= SHOW_ALL ? all : null;
  return result;
}

function exportReport(job) {
  var bundle = new wasm_bindgen.Bundle();
  // The report names the records digest: the SHA-256 of data/SHA256SUMS.
  var recordsDigest = "";
  return fetchAll(job.base, job.files.concat(["data/SHA256SUMS"]), function (path, bytes) {
    if (bytes === null) return;
    if (path === "data/SHA256SUMS") recordsDigest = wasm_bindgen.sha256_hex(bytes);
    else if (path.indexOf("data/") === 0) return addRecord(bundle, path, bytes, null);
  }, function (done, total) {
    progress(done, total);
  }).then(function () {
    var text = bundle.export_report(job.dir, job.run, recordsDigest);
    postMessage({ type: "export", name: job.run + ".report.json", text: text });
    return null;
  });
}

function verifyReport(job) {
  return forPage(JSON.parse(wasm_bindgen.verify_report_text(job.text)));
}

onmessage = function (event) {
  var job = event.data;
  init(job.wasm, job.wasmIntegrity).then(function () {
    if (job.type === "export") return exportReport(job);
    return job.type === "report" ? verifyReport(job) : verifySite(job);
  }).then(function (result) {
    if (result) postMessage({ type: "result", result: result });
  }).catch(function (e) {
    postMessage({ type: "error", message: String(e && e.message || e) });
  });
};
