// The verification worker. The wasm-bindgen glue of the core verifier
// (`receipts_core`) and of the verifier that recomputes receipts
// (`wasm_bindgen`) are prepended to this file when the page starts the
// worker, and, on a page that verifies the whole site, the page check's glue
// (`receipts_render`).
/* global wasm_bindgen, receipts_core, receipts_render */
"use strict";

// The core verifier (the manifest checks and SHA-256), loaded for every job.
// The standalone verifier carries one verifier, the full one, which holds
// the core's entry points too and serves as both.
var core = null;
var coreReady = null;
// Where the records' manifest is published (data/SHA256SUMS), as the core's
// layout says; set when the core is loaded.
var RECORDS_SUMS = null;
function initCore(job) {
  if (!coreReady) {
    coreReady = job.core && typeof receipts_core !== "undefined"
      ? receipts_core({ module_or_path: fetch(job.core.url, { integrity: job.core.integrity }) }).then(function () { return receipts_core; })
      : init(job).then(function () { return wasm_bindgen; });
  }
  return coreReady.then(function (c) { core = c; RECORDS_SUMS = c.records_sums(); });
}

// The verifier that recomputes receipts from records, lean or full as the
// page names: loaded only by a job that has records to recompute.
var ready = null;
function init(job) {
  if (!ready) {
    ready = job.wasmBytes
      // The standalone verifier hands over its own bytes (it may be opened from disk).
      ? WebAssembly.compile(job.wasmBytes).then(function (module) { return wasm_bindgen({ module_or_path: module }); })
      // Streaming compilation: the Response goes to WebAssembly.instantiateStreaming.
      : wasm_bindgen({ module_or_path: fetch(job.wasm, { integrity: job.wasmIntegrity }) });
  }
  return ready;
}

// The page check (render-wasm/), compiled when a whole site is verified.
var renderReady = null;
function initRender(job) {
  if (!renderReady) {
    renderReady = job.render.bytes
      ? WebAssembly.compile(job.render.bytes).then(function (module) { return receipts_render({ module_or_path: module }); })
      : receipts_render({ module_or_path: fetch(job.render.url, { integrity: job.render.integrity }) });
  }
  return renderReady;
}

// Where the site's files come from: fetched from the site's address, or,
// in the standalone verifier, a folder or zip file the reader picked
// (`job.source`: path relative to the site → bytes).
var source = null;
var sourceBase = null;
function get(url) {
  if (source) {
    var rel = url.indexOf(sourceBase) === 0 ? decodeURIComponent(url.slice(sourceBase.length)) : url;
    var bytes = source[rel];
    return bytes ? Promise.resolve(bytes) : Promise.reject(new Error(rel + " is not in the files picked"));
  }
  return fetch(url, { cache: "no-store" }).then(function (r) {
    if (!r.ok) throw new Error(r.status + " " + r.statusText + " for " + url);
    return r.arrayBuffer();
  }).then(function (b) { return new Uint8Array(b); });
}

// Fetches `path` of the site at `base`: `{ path, bytes }`. With
// `gzFallback`, a run record missing as `path` is fetched gzipped (the
// standalone verifier does not know whether a site gzipped them).
function getPath(base, path, gzFallback) {
  var found = function (p) { return function (bytes) { return { path: p, bytes: bytes }; }; };
  var plain = get(new URL(path, base).href).then(found(path));
  var rel = gzFallback ? core.record_of(path) : undefined;
  var gz = rel === undefined ? path : core.published(rel, true);
  if (gz === path) return plain;
  return plain.catch(function () {
    return get(new URL(gz, base).href).then(found(gz));
  });
}

// Where each record is published, and which file holds a record gzipped
// (`receipts build --compress-records`), is the verification core's layout
// (`published`, `record_of`, `is_gzipped_record`): only an experiment's run
// record is read as gzip, so no other file stands for a record under
// another name.
// A record inflates to at most the core's `max_record_bytes()`, as a build
// accepts it: a small file that decompresses without end is refused once it
// passes that, not read into memory whole.
function gunzip(bytes) {
  if (typeof DecompressionStream === "undefined") {
    return Promise.reject(new Error("this browser cannot decompress gzip (no DecompressionStream)"));
  }
  var limit = core.max_record_bytes();
  var reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip")).getReader();
  var parts = [];
  var total = 0;
  function next() {
    return reader.read().then(function (step) {
      if (step.done) {
        var out = new Uint8Array(total);
        var at = 0;
        parts.forEach(function (p) { out.set(p, at); at += p.length; });
        return out;
      }
      total += step.value.length;
      if (total > limit) {
        reader.cancel();
        throw new Error("uncompressed, the file has over " + limit + " bytes");
      }
      parts.push(step.value);
      return next();
    });
  }
  return next();
}

// Hands a fetched data/ file to the bundle under its record's path, the
// record inside it when it is gzipped; `then(path, bytes)` sees the record.
function addRecord(bundle, path, bytes, then) {
  var rel = core.record_of(path);
  if (!core.is_gzipped_record(path)) {
    bundle.add(rel, bytes);
    if (then) then(path, bytes);
    return null;
  }
  return gunzip(bytes).then(function (record) {
    bundle.add(rel, record);
    if (then) then(path, record);
  });
}

function tally(receipts) {
  var t = { pass: 0, fail: 0, could_not_check: 0 };
  receipts.forEach(function (r) { t[r.status] += 1; });
  return t;
}

// Fetches `paths` with six requests in flight (as many as a browser opens
// to one host over HTTP/1.1), calling `each(path, bytes)` in order of arrival.
function fetchAll(base, paths, each, onProgress, gzFallback) {
  var next = 0, done = 0, inFlight = 6;
  return new Promise(function (resolve, reject) {
    if (!paths.length) return resolve();
    function start() {
      if (next >= paths.length) return;
      var path = paths[next++];
      getPath(base, path, gzFallback).then(function (got) {
        return each(got.path, got.bytes);
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

// The records a scope verifies, as data/SHA256SUMS names them: every
// record; or one experiment's (and those its claims read, `with`), or one
// memo and the experiments its claims read, with the tasks, the objects and
// the study's file.
function inScope(scope, rel) {
  if (scope.scope === "all") return true;
  if (scope.scope !== "experiment" && scope.scope !== "document") return false;
  if (rel === scope.path || core.is_shared_record(rel)) return true;
  var dirs = (scope.with || []).concat(scope.scope === "experiment" ? [scope.experiment] : []);
  return dirs.some(function (d) { return rel.indexOf(d + "/") === 0; });
}

// Whether site path `path` is under data/: a record, or a manifest of them.
function inData(path) {
  return core.record_of(path) !== undefined;
}

// Whether site path `path` is a record to recompute: a file under data/ but
// its manifest.
function isRecordFile(path) {
  return inData(path) && path !== RECORDS_SUMS;
}

// Whether `paths` (under the site) name a record to recompute.
function hasRecords(paths) {
  return paths.some(isRecordFile);
}

// Whether a job checks every page: a whole site verified, with the page check.
function checksPagesOf(job) {
  return !!job.render && job.scope.scope === "all" && !job.files;
}

// Verifies a site: the manifest checks of the verification core (each
// record against data/SHA256SUMS, data/SHA256SUMS and the assets against
// SHA256SUMS, SHA256SUMS against the pin, the digests the page shows), then
// every receipt of the records in scope recomputed.
function verifySite(job) {
  // The recomputing verifier and its bundle, once there are records to
  // recompute. A page that names records among its files fetches it at
  // once, beside the manifests; otherwise it is fetched when the manifests
  // list records in scope.
  if (job.files && hasRecords(job.files)) {
    // A failure to load it is reported when the records need it.
    init(job).catch(function () { return null; });
  }
  var bundleReady = null;
  var manifests = null;
  var pin = job.expectRoot === null ? null : core.parse_pin(job.expectRoot);
  // A compact run page names the run whose record's digest it shows.
  if (job.pin && job.pin.run !== undefined) {
    job.pin.path = core.published(core.run_path(job.pin.experiment, job.pin.run), !!job.gzipped);
  }
  var shownRecord = null;
  var listed = null;
  // Verifying the whole site checks every page too: the records and assets
  // fetched are kept for the page check.
  var checksPages = checksPagesOf(job);
  var kept = {};
  // The paths fetched, as found (a run record's `.gz` name when it is gzipped).
  var read = {};
  return get(new URL("SHA256SUMS", job.base).href).then(function (sumsBytes) {
    manifests = new core.Manifests(sumsBytes, pin);
    listed = JSON.parse(core.parse_sums(new TextDecoder().decode(sumsBytes)));
    return get(new URL(RECORDS_SUMS, job.base).href).then(function (bytes) {
      manifests.feed(RECORDS_SUMS, bytes, undefined);
      // A page that names its files fetches only the chunk manifests that
      // list its run records; a whole site, every chunk and every record.
      var chunks = {};
      var paths;
      if (job.files) {
        paths = job.files.filter(isRecordFile);
        paths.forEach(function (p) {
          var chunk = manifests.chunk_for(core.record_of(p));
          if (chunk) chunks[core.published(chunk, false)] = true;
        });
      } else {
        paths = [];
        Object.keys(JSON.parse(core.parse_sums(new TextDecoder().decode(bytes)))).forEach(function (rel) {
          if (core.is_chunk(rel)) chunks[core.published(rel, false)] = true;
          else if (inScope(job.scope, rel)) paths.push(core.published(rel, !!job.gzipped));
        });
      }
      // Verifying the whole site also checks the code it ships.
      if (job.scope.scope === "all" && !job.files) {
        Object.keys(listed).forEach(function (p) { if (!inData(p)) paths.push(p); });
      }
      return fetchAll(job.base, Object.keys(chunks).sort(), function (path, fetched) {
        read[path] = true;
        manifests.feed(path, fetched === null ? undefined : fetched, undefined);
        if (job.files || fetched === null) return null;
        // A chunk lists run records by their file name in its own directory.
        var dir = core.record_of(path.slice(0, path.lastIndexOf("/") + 1));
        var runs = {};
        // A chunk that is not a manifest fails above; it lists no records.
        try { runs = JSON.parse(core.parse_sums(new TextDecoder().decode(fetched))); } catch (e) { /* named by its receipt */ }
        Object.keys(runs).forEach(function (file) {
          var rel = dir + file;
          if (inScope(job.scope, rel)) paths.push(core.published(rel, !!job.gzipped));
        });
        return null;
      }, progress).then(function () {
        paths.sort();
        // The recomputing verifier loads while the records are fetched.
        if (hasRecords(paths)) {
          bundleReady = init(job).then(function () { return new wasm_bindgen.Bundle(); });
        }
        return fetchAll(job.base, paths, function (path, fetched) {
          read[path] = true;
          if (checksPages && fetched !== null && (inData(path) || path.indexOf("assets/") === 0)) {
            kept[path] = fetched;
          }
          if (!inData(path) || fetched === null) {
            manifests.feed(path, fetched === null ? undefined : fetched, undefined);
            return null;
          }
          return bundleReady.then(function (bundle) {
            var added = addRecord(bundle, path, fetched, function (p, record) {
              manifests.feed(path, record, undefined);
              if (job.pin && job.pin.path === path) shownRecord = core.sha256_hex(record);
            });
            return added && added.catch(function (e) {
              manifests.feed(path, undefined, path + ": not a gzipped record (it could not be decompressed: " + e.message + ")");
            });
          });
        }, function (done, total) {
          progress(done, total);
        }, job.gzipped === null || job.gzipped === undefined);
      });
    });
  }).then(function () {
    // A folder or zip can be listed: a file under data/ that
    // data/SHA256SUMS does not list fails (a served site cannot be listed).
    if (!source || job.scope.scope !== "all" || job.files) return;
    Object.keys(source).sort().forEach(function (path) {
      if (isRecordFile(path) && !read[path]) {
        manifests.feed(path, source[path], undefined);
      }
    });
  }).then(function () {
    if (!job.shipped) return null;
    // The standalone verifier holds the site's code to its own copies, for
    // a site built by its version (the statement names the builder).
    return get(new URL("statement.intoto.json", job.base).href).then(function (bytes) {
      var builder = JSON.parse(new TextDecoder().decode(bytes)).predicate.builder;
      return builder && typeof builder.version === "string" ? builder.version : undefined;
    }).catch(function () {
      return undefined;
    }).then(function (builtBy) {
      var shipped = shippedDigests(job.shipped.code);
      var paths = Object.keys(shipped).sort();
      manifests.against_shipped(paths, paths.map(function (p) { return shipped[p]; }), builtBy, job.shipped.version);
    });
  }).then(function () {
    var root = manifests.root_digest();
    if (job.shownRoot) manifests.shown(job.page, "SHA256SUMS", job.shownRoot, root);
    if (job.pin && job.pin.path) manifests.shown(job.page, job.pin.path, job.pin.digest, shownRecord || "the record could not be read");
    // A shard's run records, for the root that lists it.
    var runRecords = job.shardOf ? manifests.run_records() : null;
    var checked = JSON.parse(manifests.finish(job.scope.scope === "all" && !job.files));
    // A job without records recomputes nothing: the recomputation of no
    // files has no receipts (verify::bundle's tests hold it to that).
    // A shard's runs by the keys of their calls, for the root's one call
    // index; a shard without records has none.
    var prints = new Uint8Array(0);
    return (bundleReady || Promise.resolve(null)).then(function (bundle) {
      var recomputed = { receipts: [] };
      if (bundle) {
        recomputed = JSON.parse(bundle.verify(JSON.stringify(job.scope)));
        if (job.shardOf) prints = bundle.prints();
        bundle.free();
      }
      var pageFiles = kept;
      kept = null;
      return finishSite(job, root, pin, checked.receipts, recomputed.receipts, pageFiles, listed);
    }).then(function (result) {
      if (runRecords) result.run_records = runRecords;
      if (job.shardOf) result.prints = prints;
      return result;
    });
  });
}

// The manifest checks' receipts and those recomputed (paths under data/
// made the site's), with the page check's when the whole site is verified.
function finishSite(job, root, pin, receipts, recomputed, kept, listed) {
  var marks = marksFor(job.marks, recomputed);
  recomputed.forEach(function (r) {
    r.subject = core.published(r.subject, false);
    receipts.push(r);
  });
  var pages = checksPagesOf(job) ? checkPages(job, kept, listed, root) : Promise.resolve([]);
  return pages.then(function (pageReceipts) {
    receipts = receipts.concat(pageReceipts);
    // A shard's receipts go to its root whole.
    if (job.shardOf) return { root_digest: root, receipts: receipts };
    return forPage({ root_digest: root, pinned: pin !== null, receipts: receipts, tally: tally(receipts), marks: marks });
  });
}

// Verifies a root site (a study published as shards) and every shard it
// lists, each published beside it at ../<name>/: the root's files against
// its SHA256SUMS, each shard's SHA256SUMS against the root digest SHARDS
// lists for it, no run published by two shards, no provider call on record
// in two shards nor a run of one a copy of another's (one call index over
// every shard's runs), the figures and the root digest its page shows; and every shard verified whole, as the shard's own
// Verify page verifies it (every page rendered again too), its receipts
// named under its name. The shards are verified one after another. The
// root's checks (RootSite) are the recomputing verifier's, loaded first.
function verifyRoot(job) {
  var pin = job.expectRoot === null ? null : core.parse_pin(job.expectRoot);
  var root = null;
  var shardReceipts = [];
  return get(new URL("SHA256SUMS", job.base).href).then(function (sumsBytes) {
    root = new wasm_bindgen.RootSite(sumsBytes, pin);
    return fetchAll(job.base, root.listed(), function (path, bytes) {
      root.file(path, bytes === null ? undefined : bytes);
    }, progress);
  }).then(function () {
    return root.shard_names().reduce(function (previous, name) {
      return previous.then(function () {
        // Whether a shard gzipped its run records is not known here: a
        // record missing as .json is fetched as .json.gz.
        var shard = {
          type: "site", shardOf: name, base: new URL("../" + name + "/", job.base).href,
          scope: { scope: "all" }, files: null, gzipped: null, expectRoot: null,
          render: job.render, wasm: job.wasm, wasmIntegrity: job.wasmIntegrity, page: job.page
        };
        return verifySite(shard).then(function (result) {
          root.shard(name, result.root_digest, undefined, result.run_records || []);
          root.calls(name, result.prints);
          result.receipts.forEach(function (r) {
            r.subject = name + "/" + r.subject;
            shardReceipts.push(r);
          });
        }, function (e) {
          root.shard(name, undefined, String(e && e.message || e), []);
        });
      });
    }, Promise.resolve());
  }).then(function () {
    var shown = job.shown || [];
    var field = function (key) { return shown.map(function (s) { return s[key]; }); };
    root.shown(job.page, field("name"), field("digest"), field("runs"));
    if (job.shownRoot) root.shown_root(job.page, job.shownRoot);
    var found = JSON.parse(root.finish());
    root.free();
    var receipts = found.receipts.concat(shardReceipts);
    return forPage({ root_digest: found.root_digest, pinned: pin !== null, receipts: receipts, tally: tally(receipts), marks: null });
  });
}

// The receipts behind the marks the page shows (`subject NUL claim`), each
// with the status and value recomputed here; where two receipts share a
// name, the worse status wins.
var RANK = { pass: 0, could_not_check: 1, fail: 2 };
function marksFor(keys, receipts) {
  if (!keys) return null;
  var wanted = {};
  keys.forEach(function (k) { wanted[k] = true; });
  var marks = {};
  receipts.forEach(function (r) {
    var k = r.subject + "\u0000" + r.claim;
    if (!wanted[k]) return;
    var m = marks[k];
    if (!m || RANK[r.status] > RANK[m.status]) marks[k] = { status: r.status, recomputed: r.recomputed };
  });
  return marks;
}

// The standalone verifier's code, path → SHA-256: the digests it carries,
// with its engine.js (as its page writes it out) and its manifest
// verifier/SHA256SUMS, which hash the engine and so cannot be carried in it.
function shippedDigests(code) {
  var digests = {};
  Object.keys(code.digests).forEach(function (p) { digests[p] = code.digests[p]; });
  digests["verifier/engine.js"] = core.sha256_hex(new TextEncoder().encode(code.engine));
  var sums = Object.keys(digests).filter(function (p) { return p.indexOf("verifier/") === 0; }).sort()
    .map(function (p) { return digests[p] + "  " + p.slice("verifier/".length) + "\n"; }).join("");
  digests["verifier/SHA256SUMS"] = core.sha256_hex(new TextEncoder().encode(sums));
  return digests;
}

// Files of the site that are neither rendered from the records nor listed
// in its manifests; only a folder or zip picked can be listed.
function unlisted(made, listed) {
  if (!source) return [];
  var known = {};
  made.concat(Object.keys(listed), ["SHA256SUMS", "statement.intoto.json"]).forEach(function (p) { known[p] = true; });
  return Object.keys(source).filter(function (p) { return !known[p] && !inData(p); }).sort();
}

// The page check: every page rendered again from the records and assets
// the manifest checks held to SHA256SUMS (render-wasm/), then each page the
// site serves compared with it, byte for byte.
function checkPages(job, kept, listed, root) {
  return initRender(job).then(function () {
    var pages = new receipts_render.SitePages();
    Object.keys(kept).sort().forEach(function (path) { pages.add(path, kept[path]); });
    // Records that cannot be rendered give a receipt that could not be checked, and no pages.
    var made = JSON.parse(pages.render(root, listed["verifier/SHA256SUMS"] || ""));
    return fetchAll(job.base, made, function (path, bytes) {
      pages.page(path, bytes === null ? undefined : bytes);
    }, progress).then(function () {
      unlisted(made, listed).forEach(function (path) { pages.page(path, source[path]); });
      var receipts = JSON.parse(pages.finish());
      pages.free();
      return receipts;
    });
  });
}

// What the page shows: the tally, every receipt that did not pass, and all
// receipts only when there are few. Copying a site's hundred thousand
// receipts to the page would hold its main thread for most of a second.
var SHOW_ALL = 500;
function forPage(result) {
  var all = result.receipts;
  result.count = all.length;
  // Counted by what they hold the site to, as `receipts verify` counts them.
  result.kinds = core.describe_claims(all.map(function (r) { return r.claim; }));
  result.not_passing = all.filter(function (r) { return r.status !== "pass"; });
  result.receipts = all.length <= SHOW_ALL ? all : null;
  return result;
}

function exportReport(job) {
  var bundle = new wasm_bindgen.Bundle();
  // The report carries the site's two manifests, which anchor it to the root digest.
  var manifests = { SHA256SUMS: null };
  manifests[RECORDS_SUMS] = null;
  return fetchAll(job.base, job.files.concat(Object.keys(manifests)), function (path, bytes) {
    if (bytes === null) return;
    if (path in manifests) manifests[path] = new TextDecoder().decode(bytes);
    else if (inData(path)) return addRecord(bundle, path, bytes, null);
  }, function (done, total) {
    progress(done, total);
  }).then(function () {
    if (manifests.SHA256SUMS === null || manifests[RECORDS_SUMS] === null) {
      throw new Error("the site's SHA256SUMS and " + RECORDS_SUMS + " could not be fetched");
    }
    // An experiment of many runs lists them in chunks: the report carries the run's.
    var chunk = core.record_chunk(manifests[RECORDS_SUMS], core.run_path(job.dir, job.run));
    var runSums = chunk ? get(new URL(core.published(chunk, false), job.base).href).then(function (b) { return new TextDecoder().decode(b); })
      : Promise.resolve(undefined);
    return runSums.then(function (runSums) {
      var text = bundle.export_report(job.dir, job.run, manifests.SHA256SUMS, manifests[RECORDS_SUMS], runSums);
      postMessage({ type: "export", name: job.run + ".report.json", text: text });
      return null;
    });
  });
}

// A report is anchored by the root digest pinned, and by the SHA256SUMS of
// the site it is checked on (`job.base`, when there is one): checked there,
// it must come from that site.
function verifyReport(job) {
  var pin = job.expectRoot === null ? null : core.parse_pin(job.expectRoot);
  var site = job.base ? get(new URL("SHA256SUMS", job.base).href) : Promise.reject(new Error("no site"));
  return site.then(function (sums) {
    return sums;
  }, function () {
    return undefined;
  }).then(function (sums) {
    var result = JSON.parse(wasm_bindgen.verify_report_text(job.text, pin === null ? undefined : pin, sums));
    result.pinned = pin !== null;
    return forPage(result);
  });
}

onmessage = function (event) {
  var job = event.data;
  source = job.source || null;
  sourceBase = job.base;
  initCore(job).then(function () {
    // A report and an export are recomputed from records whatever they hold.
    if (job.type === "export") return init(job).then(function () { return exportReport(job); });
    if (job.type === "report") return init(job).then(function () { return verifyReport(job); });
    // A root's checks are in the recomputing verifier: its shards have records.
    if (job.type === "root") return init(job).then(function () { return verifyRoot(job); });
    return verifySite(job);
  }).then(function (result) {
    if (result) postMessage({ type: "result", result: result });
  }).catch(function (e) {
    postMessage({ type: "error", message: String(e && e.message || e) });
  });
};
