// Verify in the browser: recompute this page's receipts (or the whole site's)
// with the receipts verifier compiled to WebAssembly, in a Web Worker.
// Nothing is uploaded: every file is fetched from this site and checked here.

// How a result is shown: the outcome in words and in `data-status`
// (`verified`, `failed`, `unchecked` when nothing failed but something could
// not be checked or anchored, `error`), every receipt that did not pass, and
// all of them when there are few. The standalone verifier shows its results
// with the same code.
var ReceiptsView = (function () {
  "use strict";

  function text(tag, content, className) {
    var el = document.createElement(tag);
    el.textContent = content;
    if (className) el.className = className;
    return el;
  }

  function setStatus(summary, status, checked, failed, message) {
    summary.dataset.status = status;
    summary.dataset.checked = String(checked);
    summary.dataset.failed = String(failed);
    summary.textContent = message;
  }

  function show(summary, results, result) {
    results.textContent = "";
    var t = result.tally;
    var checked = t.pass + t.fail + t.could_not_check;
    // Verified only when something was recomputed: no receipt is not a pass.
    var status = t.fail > 0 ? "failed" : t.could_not_check > 0 || checked === 0 ? "unchecked" : "verified";
    var message = status === "verified"
      ? "Verified: all " + t.pass + " receipts recomputed in this browser agree."
      : status === "failed"
        ? "Failed: " + t.fail + " of " + checked + " receipts do not agree with what was recomputed."
        : checked === 0
          ? "Nothing was verified: no receipt was recomputed."
          : "Nothing failed, but " + t.could_not_check + " of " + checked + " receipts could not be checked or anchored: see them below.";
    // The same account of the total as `receipts verify` gives.
    if (result.kinds) message += " The " + checked + ": " + result.kinds + ".";
    if (status !== "failed" && !result.pinned) {
      message += " No root digest was pinned: this shows the site is consistent, not that it is the one you were pointed to.";
    }
    if (result.root_digest) {
      results.appendChild(text("p", "Root digest (SHA-256 of SHA256SUMS): " + result.root_digest, "digest"));
    }
    var notPassing = result.not_passing;
    if (notPassing.length) {
      var list = document.createElement("ul");
      list.className = "verify-failures";
      notPassing.forEach(function (r) {
        var item = document.createElement("li");
        item.dataset.subject = r.subject;
        item.dataset.status = r.status;
        item.appendChild(text("strong", (r.status === "fail" ? "✗ " : "? ") + r.subject + ": " + r.claim));
        item.appendChild(text("span", " recorded " + r.recorded + "; recomputed " + r.recomputed));
        (r.evidence || []).filter(function (e) { return !e.passed; }).slice(0, 5).forEach(function (e) {
          item.appendChild(text("div", e.item + ": expected " + e.expected + ", got " + e.got, "evidence"));
        });
        list.appendChild(item);
      });
      results.appendChild(list);
    }
    if (result.receipts) {
      var all = document.createElement("details");
      all.appendChild(text("summary", "All " + result.count + " receipts"));
      var table = document.createElement("ul");
      table.className = "verify-all";
      result.receipts.forEach(function (r) {
        var mark = r.status === "pass" ? "✓ " : r.status === "fail" ? "✗ " : "? ";
        table.appendChild(text("li", mark + r.subject + ": " + r.claim + ": " + r.recomputed, r.status));
      });
      all.appendChild(table);
      results.appendChild(all);
    }
    setStatus(summary, status, checked, t.fail, message);
  }

  // A pin given in the address (`#root=` or `?root=`), as written: the
  // verifier refuses anything that is not a digest ("invalid pin").
  function pinIn(location) {
    var m = /(?:^#|&)root=([^&]*)/.exec(location.hash) || /(?:^\?|&)root=([^&]*)/.exec(location.search);
    if (!m) return null;
    try {
      return decodeURIComponent(m[1]);
    } catch (e) {
      return m[1];
    }
  }

  // The worker's progress message, on the progress bar and in the summary.
  function progress(summary, bar, m) {
    bar.max = m.total;
    bar.value = m.done;
    summary.textContent = "Verifying… " + m.done + " of " + m.total + " files";
  }

  // A cost as the build writes it (`usd` in generator/src/numbers.rs): three
  // significant figures under a dollar, cents from a dollar up, one value
  // when both ends of its bound read the same.
  function usd(low, high) {
    function one(x) {
      var a = Math.abs(x);
      if (!isFinite(x)) return "$" + x;
      var digits = a === 0 ? "0.00" : a >= 1
        ? a.toFixed(2).replace(/\B(?=(\d{3})+\.)/g, ",")
        : a.toFixed(Math.max(2, 2 - Math.floor(Math.log10(a)))).replace(/(\.\d\d\d*?)0+$/, "$1");
      return (x < 0 ? "-$" : "$") + digits;
    }
    var a = one(low), b = one(high);
    return a === b ? a : a + "–" + b.replace("$", "");
  }

  return { show: show, setStatus: setStatus, text: text, pinIn: pinIn, progress: progress, usd: usd };
})();

(function () {
  "use strict";

  var panel = document.getElementById("verify");
  if (!panel || !panel.dataset.verifier || typeof RECEIPTS_MODULES !== "object" || !window.Worker || !window.WebAssembly || !window.fetch) {
    return;
  }
  // A compact page (a run's, in a site of many runs) leaves the control's
  // markup to this script: built here as other pages carry it.
  if (!document.getElementById("verify-run")) {
    var make = function (tag, attrs, text, parent) {
      var el = document.createElement(tag);
      Object.keys(attrs).forEach(function (k) { el.setAttribute(k, attrs[k]); });
      if (text) el.textContent = text;
      parent.appendChild(el);
      return el;
    };
    make("p", { "class": "verify-title", id: "verify-heading" }, "Verify this page", panel);
    var line = make("p", {}, "", panel);
    make("button", { id: "verify-run", type: "button" }, "Recompute this page's receipts in this browser", line);
    make("progress", { id: "verify-progress", hidden: "", value: "0", max: "1" }, "", line);
    make("p", { id: "verify-summary", role: "status", "aria-live": "polite", "data-status": "pending", "data-checked": "0", "data-failed": "0" }, "Not verified yet.", panel);
    var about = make("p", { "class": "verify-about" }, "", panel);
    make("a", { href: panel.dataset.root + "verify.html#what-a-pass-here-proves" }, "What this checks, and what a pass assumes", about);
    make("div", { id: "verify-results" }, "", panel);
    panel.setAttribute("aria-labelledby", "verify-heading");
  }
  var button = document.getElementById("verify-run");
  var progress = document.getElementById("verify-progress");
  var summary = document.getElementById("verify-summary");
  var results = document.getElementById("verify-results");
  var dropZone = document.getElementById("verify-drop");
  var fileInput = document.getElementById("verify-file");
  panel.hidden = false;

  function abs(path) {
    return new URL(path, document.baseURI).href;
  }

  var text = ReceiptsView.text;

  function setStatus(status, checked, failed, message) {
    ReceiptsView.setStatus(summary, status, checked, failed, message);
  }

  function show(result) {
    ReceiptsView.show(summary, results, result);
  }

  function fail(message) {
    progress.hidden = true;
    setStatus("error", 0, 0, "Could not verify: " + message);
    button.disabled = false;
    marks.forEach(function (el) {
      if (el.dataset.built === undefined) return;
      el.textContent = el.dataset.built;
      el.dataset.verify = "error";
      el.title = "not verified: " + message;
    });
  }

  // The marks of the page's receipts, each naming its receipt: pending
  // while a verification runs, then what this browser recomputed.
  var marks = Array.prototype.slice.call(document.querySelectorAll("main [data-claim]"));
  var WORDS = { pass: "pass", fail: "fail", could_not_check: "could not check" };
  var SIGNS = { pass: "✓", fail: "✗", could_not_check: "?" };
  // A mark's subject is its own data-subject or, left out, the nearest
  // enclosing one's (a run page's facts name their record once).
  function markKey(el) {
    var named = el.closest("[data-subject]");
    return (named ? named.dataset.subject : "") + "\u0000" + el.dataset.claim;
  }
  function marksPending() {
    marks.forEach(function (el) {
      if (el.dataset.built === undefined) el.dataset.built = el.textContent;
      el.dataset.verify = "pending";
      el.textContent = "… checking";
      el.title = "being recomputed in this browser";
    });
  }
  function marksDone(found) {
    marks.forEach(function (el) {
      var m = found ? found[markKey(el)] : undefined;
      el.classList.remove("pass", "fail", "could_not_check");
      if (!m) {
        el.textContent = el.dataset.built;
        el.dataset.verify = "unchecked";
        el.title = "not recomputed by this page's verification";
        return;
      }
      el.classList.add(m.status);
      el.dataset.verify = m.status;
      // As the build wrote it: the mark and the status in words, the mark
      // and the value (between its unit), or the mark alone while it passes.
      var sign = SIGNS[m.status];
      if (el.dataset.show === "word") el.textContent = sign + " " + WORDS[m.status];
      // A value the build shortened (`data-display`) stays so while it is
      // what was recomputed here; the exact value is on hover either way.
      else if (el.dataset.show === "value") el.textContent = sign + " " + (m.recomputed === el.dataset.exact ? el.dataset.display : (el.dataset.before || "") + m.recomputed + (el.dataset.after || ""));
      else el.textContent = m.status === "pass" ? sign : sign + " " + m.recomputed;
      el.title = "recomputed in this browser: " + m.recomputed;
    });
  }

  // The worker's code is fetched with Subresource Integrity and started from
  // a blob, with the wasm-bindgen glue of both verifiers (the core one and
  // the one that recomputes receipts) in front of it, and on a page that
  // verifies the whole site the page check's glue too (its WebAssembly is
  // fetched by the worker only then). Where each module is and its integrity
  // value come from RECEIPTS_MODULES, which the build writes at the top of
  // this file; the page names only which verifier its Verify needs.
  var checksPages = panel.dataset.checksPages === "true";
  function module(name) {
    var m = RECEIPTS_MODULES[name];
    return { url: abs(panel.dataset.root + m.src), integrity: m.sri };
  }
  var workerPromise = null;
  function startWorker() {
    if (!workerPromise) {
      var load = function (name) {
        var m = module(name);
        return fetch(m.url, { integrity: m.integrity }).then(function (r) {
          if (!r.ok) throw new Error(r.status + " " + r.statusText + " for " + r.url);
          return r.text();
        });
      };
      var parts = ["coreGlue", "glue"].concat(checksPages ? ["renderGlue"] : [], ["worker"]);
      workerPromise = Promise.all(parts.map(load)).then(function (texts) {
        var blob = new Blob([texts.join("\n")], { type: "text/javascript" });
        return new Worker(URL.createObjectURL(blob));
      });
    }
    return workerPromise;
  }

  function run(job) {
    if (job.type === "site") {
      job.marks = marks.map(markKey);
      marksPending();
    }
    button.disabled = true;
    progress.hidden = false;
    progress.value = 0;
    setStatus("running", 0, 0, "Verifying…");
    startWorker().then(function (worker) {
      worker.onmessage = function (event) {
        var m = event.data;
        if (m.type === "progress") {
          ReceiptsView.progress(summary, progress, m);
        } else if (m.type === "result") {
          progress.hidden = true;
          button.disabled = false;
          if (job.type === "site") marksDone(m.result.marks);
          show(m.result);
        } else if (m.type === "export") {
          progress.hidden = true;
          button.disabled = false;
          var link = document.createElement("a");
          link.href = URL.createObjectURL(new Blob([m.text], { type: "application/json" }));
          link.download = m.name;
          link.textContent = "Download " + m.name;
          link.id = "report-download";
          results.textContent = "";
          results.appendChild(link);
          setStatus("exported", 0, 0, "The report is ready: " + m.name + ".");
          link.click();
        } else if (m.type === "error") {
          fail(m.message);
        }
      };
      worker.onerror = function (e) { fail(e.message || "the worker stopped"); };
      // Every job loads the core verifier; one with records to recompute
      // also the verifier the page names, "lean" or "full" (anything but
      // "full" loads the lean one, which names what it leaves unchecked).
      job.core = module("core");
      var wasm = module(panel.dataset.verifier === "full" ? "full" : "lean");
      job.wasm = wasm.url;
      job.wasmIntegrity = wasm.integrity;
      if (checksPages && (job.type === "site" || job.type === "root")) {
        job.render = module("renderWasm");
      }
      worker.postMessage(job);
    }).catch(function (e) { fail(e.message); });
  }

  // A reader can pin the site they mean: verify.html#root=<SHA-256 of
  // SHA256SUMS>. Whatever follows root= is handed to the verifier, which
  // refuses anything that is not a digest ("invalid pin"): never ignored.
  // verify.html also takes it pasted into a field (the address's wins only
  // while the field is empty).
  var pinField = document.getElementById("verify-pin");
  if (pinField) {
    document.getElementById("verify-pin-field").hidden = false;
    var fromAddress = ReceiptsView.pinIn(window.location);
    if (fromAddress !== null) pinField.value = fromAddress;
  }
  function expectedRoot() {
    if (pinField && pinField.value.trim() !== "") return pinField.value.trim();
    return ReceiptsView.pinIn(window.location);
  }

  var shownRoot = document.getElementById("root-digest");
  var shownRecord = document.getElementById("record-digest");

  // The scope the page names: as JSON, or on a compact run page "run" with
  // the run's experiment, the run being the page's own (runs/<id>.html, the
  // page this browser is showing): a page that names no run, or another
  // page's, cannot be verified as one.
  function pageScope() {
    var scope = panel.dataset.scope;
    if (scope !== "run") return JSON.parse(scope);
    var run = /^runs\/([^/]+)\.html$/.exec(panel.dataset.page || "");
    var shown = decodeURIComponent(window.location.pathname.split("/").pop() || "").replace(/\.html$/, "");
    if (!run || !panel.dataset.experiment) throw new Error("the page names no run to verify");
    if (run[1] !== shown) throw new Error("the page names run " + run[1] + " but is the page of " + shown);
    return { scope: "run", experiment: panel.dataset.experiment, run: run[1] };
  }

  // The record whose digest the page shows: named by its path, or on a
  // compact run page always the run's record (its path is the worker's to
  // spell, from the verification core's layout), fetched or not: a record
  // left out of the files the page names fails as a record that could not
  // be read.
  function pinOf(digest) {
    if (panel.dataset.pinPath) return { path: panel.dataset.pinPath, digest: digest };
    if (panel.dataset.scope !== "run") return null;
    var scope = pageScope();
    return { experiment: scope.experiment, run: scope.run, digest: digest };
  }

  // A root site's page (a study published as shards) shows each shard
  // with its root digest and runs: the worker holds them to the shards.
  function shownShards() {
    return Array.prototype.map.call(document.querySelectorAll("main tr[data-shard]"), function (row) {
      var cell = function (what) {
        var el = row.querySelector('[data-shown="' + what + '"]');
        return el ? el.textContent.trim() : "";
      };
      return { name: row.dataset.shard, digest: cell("digest"), runs: cell("runs") };
    });
  }

  button.addEventListener("click", function () {
    if (panel.dataset.scope === "root") {
      run({
        type: "root",
        expectRoot: expectedRoot(),
        base: abs(panel.dataset.root),
        page: panel.dataset.page,
        shownRoot: shownRoot ? shownRoot.textContent.trim() : null,
        shown: shownShards()
      });
      return;
    }
    var scope;
    try {
      scope = pageScope();
    } catch (e) {
      fail(e.message);
      return;
    }
    run({
      expectRoot: expectedRoot(),
      type: "site",
      base: abs(panel.dataset.root),
      scope: scope,
      files: panel.dataset.files ? panel.dataset.files.split(" ") : null,
      gzipped: panel.dataset.recordsGzipped === "true",
      page: panel.dataset.page,
      shownRoot: shownRoot ? shownRoot.textContent.trim() : null,
      // The digests checked are the ones the reader sees.
      pin: shownRecord ? pinOf(shownRecord.textContent.trim()) : null
    });
  });

  // Copy buttons beside the digests a page shows (a compact page leaves the
  // root digest's to this script).
  Array.prototype.forEach.call(document.querySelectorAll("code.digest#root-digest"), function (code) {
    if (document.querySelector('button.copy[data-copy="' + code.id + '"]')) return;
    var copy = document.createElement("button");
    copy.type = "button";
    copy.className = "copy";
    copy.dataset.copy = code.id;
    copy.hidden = true;
    copy.textContent = "Copy";
    code.after(" ", copy);
  });
  Array.prototype.forEach.call(document.querySelectorAll("button.copy[data-copy]"), function (copy) {
    var source = document.getElementById(copy.dataset.copy);
    if (!source || !navigator.clipboard) return;
    copy.hidden = false;
    copy.addEventListener("click", function () {
      navigator.clipboard.writeText(source.textContent.trim()).then(function () {
        copy.textContent = "Copied";
      }, function () {
        copy.textContent = "Select and copy";
      });
    });
  });

  // A section's or a turn's link: following it also copies its address.
  document.addEventListener("click", function (e) {
    var link = e.target.closest ? e.target.closest("a.anchor") : null;
    if (!link || !navigator.clipboard) return;
    navigator.clipboard.writeText(link.href).then(function () {
      link.title = "Link copied";
    }, function () {});
  });

  var exportButton = document.getElementById("export-report");
  var recordLink = document.getElementById("record-link");
  var exportScope = null;
  if (!exportButton && recordLink && panel.dataset.scope === "run") {
    try {
      exportScope = pageScope();
    } catch (e) {
      exportScope = null;
    }
  }
  if (exportScope) {
    exportButton = document.createElement("button");
    exportButton.id = "export-report";
    exportButton.type = "button";
    exportButton.dataset.dir = exportScope.experiment;
    exportButton.dataset.run = exportScope.run;
    exportButton.textContent = "Export the report file";
    recordLink.after(" ", exportButton);
  }
  if (exportButton) {
    exportButton.hidden = false;
    exportButton.addEventListener("click", function () {
      run({
        type: "export",
        base: abs(panel.dataset.root),
        files: panel.dataset.files.split(" "),
        dir: exportButton.dataset.dir,
        run: exportButton.dataset.run
      });
    });
  }

  function verifyReportFile(file) {
    file.text().then(function (content) {
      run({ type: "report", name: file.name, text: content, expectRoot: expectedRoot(), base: abs(panel.dataset.root) });
    }).catch(function (e) { fail(e.message); });
  }
  if (fileInput) {
    fileInput.addEventListener("change", function () {
      if (fileInput.files.length) verifyReportFile(fileInput.files[0]);
    });
  }
  if (dropZone) {
    dropZone.addEventListener("dragover", function (e) { e.preventDefault(); dropZone.classList.add("over"); });
    dropZone.addEventListener("dragleave", function () { dropZone.classList.remove("over"); });
    dropZone.addEventListener("drop", function (e) {
      e.preventDefault();
      dropZone.classList.remove("over");
      if (e.dataTransfer.files.length) verifyReportFile(e.dataTransfer.files[0]);
    });
  }
})();
